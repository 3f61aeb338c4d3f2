// src/engine/ensemble_plan.c: plan files (boids/ensemble.h, docs/ENSEMBLES.md)
// read with libinih, values checked by the one value parser (boids/parse.h),
// the swept keys checked once against the base scenario through its own
// parser (boids_scenario_load_with), then expanded into runs.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "boids/behaviors.h"
#include "boids/ensemble.h"
#include "boids/input.h"
#include "boids/parse.h"
#include "boids/scenario.h"

typedef struct plan_ctx {
    const char *name; // the plan's path in messages
    const char *text; // what is left to hand to inih
    int line;
    bool failed;
    char err[1600];
    boids_plan *p;
    int scenario_line, seeds_line, steps_line;
    bool steps_set, scenario_set;
    char scenario_arg[512];
    // [sweep] specs, expanded after the whole file is read ([plan] seed may come later).
    char spec[BOIDS_PLAN_MAX_PARAMS][200];
    // The line of each [plan] and [log] key already given (0: not yet): a
    // key twice is refused, as in [sweep].
    struct {
        char key[16];
        int line;
    } seen[16];
    int n_seen;
} plan_ctx;

// Records the first error: "PLAN:LINE: [SECTION] KEY: 'VALUE' PROBLEM; expected EXPECTED".
static void fail(plan_ctx *c, const char *section, const char *key, const char *value, const char *expected,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void fail(plan_ctx *c, const char *section, const char *key, const char *value, const char *expected,
                 const char *fmt, ...) {
    if (c->failed)
        return;
    c->failed = true;
    char problem[400], shown[BOIDS_PARSE_SHOWN_MAX + 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    size_t n = (size_t)snprintf(c->err, sizeof c->err, "%s:%d: ", c->name, c->line);
    if (section && n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "[%s] ", section);
    if (key && n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "%s: ", key);
    if (value && n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "'%s' ", boids_parse_shown(value, shown, sizeof shown));
    if (n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "%s", problem);
    if (expected && n < sizeof c->err)
        snprintf(c->err + n, sizeof c->err - n, "; expected %s", expected);
}

static bool parse_bool(const char *v, bool *out) {
    int k = boids_parse_pick(v, BOIDS_PARSE_TRIM, (const char *const[]){"false", "true", "no", "yes", "0", "1", NULL});
    if (k < 0)
        return false;
    *out = k % 2 == 1;
    return true;
}

// "A..B" or "A, B, C" (integers 0..2^63) into the plan's seeds.
static void parse_seeds(plan_ctx *c, const char *key, const char *value) {
    const char *expected = "seeds as A..B (a range, A <= B) or A, B, C (a list), each 0..9223372036854775807";
    boids_plan *p = c->p;
    free(p->seeds);
    p->seeds = NULL;
    p->n_seeds = 0;
    size_t len = strlen(value);
    char *store = malloc(len + 1);
    char **pieces = malloc(sizeof(char *) * (BOIDS_PLAN_MAX_SEEDS + 1));
    if (!store || !pieces) {
        fail(c, "plan", key, NULL, NULL, "out of memory");
        goto done;
    }
    const char *dots = strstr(value, "..");
    if (dots) {
        char a[64], b[64];
        if ((size_t)(dots - value) >= sizeof a || strlen(dots + 2) >= sizeof b) {
            fail(c, "plan", key, value, expected, "is not a range");
            goto done;
        }
        snprintf(a, sizeof a, "%.*s", (int)(dots - value), value);
        snprintf(b, sizeof b, "%s", dots + 2);
        uint64_t lo, hi;
        const char *e = boids_parse_uint(a, BOIDS_PARSE_TRIM, 0, INT64_MAX, &lo);
        if (!e)
            e = boids_parse_uint(b, BOIDS_PARSE_TRIM, 0, INT64_MAX, &hi);
        if (e) {
            fail(c, "plan", key, value, expected, "has an end that is %s", e);
            goto done;
        }
        if (hi < lo || hi - lo >= BOIDS_PLAN_MAX_SEEDS) {
            fail(c, "plan", key, value, "A..B with A <= B and at most 100000 seeds",
                 hi < lo ? "is an empty range" : "is too many seeds");
            goto done;
        }
        p->n_seeds = (uint32_t)(hi - lo + 1);
        p->seeds = malloc(sizeof *p->seeds * p->n_seeds);
        for (uint32_t i = 0; p->seeds && i < p->n_seeds; i++)
            p->seeds[i] = lo + i;
    } else {
        uint32_t n = boids_parse_split(value, ",", store, pieces, BOIDS_PLAN_MAX_SEEDS);
        if (n > BOIDS_PLAN_MAX_SEEDS) {
            fail(c, "plan", key, NULL, "at most 100000 seeds", "lists %u seeds", n);
            goto done;
        }
        p->seeds = malloc(sizeof *p->seeds * n);
        for (uint32_t i = 0; p->seeds && i < n; i++) {
            const char *e = boids_parse_uint(pieces[i], BOIDS_PARSE_TRIM, 0, INT64_MAX, &p->seeds[i]);
            if (e) {
                char *s = pieces[i] + strspn(pieces[i], " \t");
                size_t m = strlen(s);
                while (m && (s[m - 1] == ' ' || s[m - 1] == '\t'))
                    s[--m] = '\0';
                fail(c, "plan", key, s, expected, "is %s", e);
                goto done;
            }
        }
        p->n_seeds = n;
    }
    if (!p->seeds)
        fail(c, "plan", key, NULL, NULL, "out of memory");
done:
    free(store);
    free(pieces);
}

static int plan_key(plan_ctx *c, const char *key, const char *value) {
    boids_plan *p = c->p;
    uint64_t u;
    const char *e;
    if (strcmp(key, "scenario") == 0) {
        char t[512];
        size_t a = strspn(value, " \t"), n = strlen(value + a);
        while (n && (value[a + n - 1] == ' ' || value[a + n - 1] == '\t'))
            n--;
        if (n == 0 || n >= sizeof t) {
            fail(c, "plan", key, value, "a scenario file (relative to the plan) or a shipped scenario's name",
                 n ? "is too long" : "is empty");
            return 0;
        }
        snprintf(t, sizeof t, "%.*s", (int)n, value + a);
        snprintf(c->scenario_arg, sizeof c->scenario_arg, "%s", t);
        snprintf(p->scenario_arg, sizeof p->scenario_arg, "%s", t);
        c->scenario_line = c->line;
        c->scenario_set = true;
    } else if (strcmp(key, "steps") == 0) {
        if ((e = boids_parse_uint(value, BOIDS_PARSE_TRIM, 1, 1000000000000ull, &u))) {
            fail(c, "plan", key, value, "an integer 1..1000000000000", "is %s", e);
            return 0;
        }
        p->steps = u;
        c->steps_set = true;
    } else if (strcmp(key, "backend") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, (const char *const[]){"cpu", "gpu", NULL});
        if (k < 0) {
            fail(c, "plan", key, value, "cpu or gpu", "is not a backend");
            return 0;
        }
        p->backend = k ? BOIDS_BACKEND_GPU : BOIDS_BACKEND_CPU;
    } else if (strcmp(key, "seeds") == 0) {
        c->seeds_line = c->line;
        parse_seeds(c, key, value);
        return !c->failed;
    } else if (strcmp(key, "combine") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, (const char *const[]){"cross", "zip", NULL});
        if (k < 0) {
            fail(c, "plan", key, value, "cross (every combination) or zip (the lists side by side)",
                 "is not a way to combine");
            return 0;
        }
        p->zip = k == 1;
    } else if (strcmp(key, "seed") == 0) {
        if ((e = boids_parse_uint(value, BOIDS_PARSE_TRIM, 0, UINT64_MAX, &u))) {
            fail(c, "plan", key, value, "an integer (the seed of the random draws)", "is %s", e);
            return 0;
        }
        p->draw_seed = u;
    } else {
        static const char *const keys[] = {"scenario", "steps", "backend", "seeds", "combine", "seed", NULL};
        const char *near = boids_parse_nearest(key, keys, 2, true);
        char ex[200];
        snprintf(ex, sizeof ex, "%s%s%sscenario, steps, backend, seeds, combine or seed", near ? "(did you mean '" : "",
                 near ? near : "", near ? "'?) " : "");
        fail(c, "plan", key, NULL, ex, "is not a key of [plan]");
        return 0;
    }
    return 1;
}

static int log_key(plan_ctx *c, const char *key, const char *value) {
    boids_plan *p = c->p;
    if (strcmp(key, "every") == 0) {
        uint64_t u;
        const char *e = boids_parse_uint(value, BOIDS_PARSE_TRIM, 0, 1000000000000ull, &u);
        if (e) {
            fail(c, "log", key, value, "an integer: statistics every K steps (0: at the start and the end only)",
                 "is %s", e);
            return 0;
        }
        p->every = u;
    } else if (strcmp(key, "groups") == 0 || strcmp(key, "snapshot") == 0) {
        if (!parse_bool(value, strcmp(key, "groups") == 0 ? &p->groups : &p->snapshot)) {
            fail(c, "log", key, value, "true or false", "is not a yes/no value");
            return 0;
        }
    } else {
        fail(c, "log", key, NULL, "every, groups or snapshot", "is not a key of [log]");
        return 0;
    }
    return 1;
}

// Can keys a and b set the same parameter? Their dot-separated parts pair
// up one to one, each pair equal or one of them "*" (group.*.radius and
// group.boids.radius).
static bool keys_overlap(const char *a, const char *b) {
    for (;;) {
        size_t la = strcspn(a, "."), lb = strcspn(b, ".");
        bool star = (la == 1 && a[0] == '*') || (lb == 1 && b[0] == '*');
        if (!star && (la != lb || strncmp(a, b, la) != 0))
            return false;
        a += la;
        b += lb;
        if (!*a || !*b)
            return !*a && !*b;
        a++;
        b++;
    }
}

static int sweep_key(plan_ctx *c, const char *key, const char *value) {
    boids_plan *p = c->p;
    for (uint32_t k = 0; k < p->n_params; k++) {
        if (strcmp(p->param[k].key, key) == 0) {
            fail(c, "sweep", key, NULL, "each key once", "is given twice (first on line %d)", p->param[k].line);
            return 0;
        }
        // One would override the other for some group: the runs' labels would lie.
        if (keys_overlap(p->param[k].key, key)) {
            char ex[160];
            snprintf(ex, sizeof ex, "keys that set different parameters (or one of the two)");
            fail(c, "sweep", key, NULL, ex, "sets what %s (line %d) sets too: one would override the other",
                 p->param[k].key, p->param[k].line);
            return 0;
        }
    }
    if (p->n_params == BOIDS_PLAN_MAX_PARAMS) {
        fail(c, "sweep", key, NULL, "at most 16 swept keys", "is one key too many");
        return 0;
    }
    if (strlen(key) >= sizeof p->param[0].key || strlen(value) >= sizeof c->spec[0]) {
        fail(c, "sweep", key, NULL, "a key of at most 63 characters and a value of at most 199", "is too long");
        return 0;
    }
    boids_plan_param *q = &p->param[p->n_params];
    snprintf(q->key, sizeof q->key, "%s", key);
    q->line = c->line;
    snprintf(c->spec[p->n_params], sizeof c->spec[0], "%s", value);
    p->n_params++;
    return 1;
}

// Refuses a [plan] or [log] key given twice (the later would silently win).
static bool once(plan_ctx *c, const char *section, const char *key) {
    char id[16];
    snprintf(id, sizeof id, "%c.%.12s", section[0], key);
    for (int k = 0; k < c->n_seen; k++)
        if (strcmp(c->seen[k].key, id) == 0) {
            fail(c, section, key, NULL, "each key once", "is given twice (first on line %d)", c->seen[k].line);
            return false;
        }
    if (c->n_seen < (int)(sizeof c->seen / sizeof c->seen[0])) {
        snprintf(c->seen[c->n_seen].key, sizeof c->seen[0].key, "%s", id);
        c->seen[c->n_seen++].line = c->line;
    }
    return true;
}

static int on_key(void *user, const char *section, const char *key, const char *value) {
    plan_ctx *c = user;
    if (c->failed)
        return 0;
    if ((strcmp(section, "plan") == 0 || strcmp(section, "log") == 0) && !once(c, section, key))
        return 0;
    if (strcmp(section, "plan") == 0)
        return plan_key(c, key, value);
    if (strcmp(section, "log") == 0)
        return log_key(c, key, value);
    if (strcmp(section, "sweep") == 0)
        return sweep_key(c, key, value);
    fail(c, NULL, NULL, section, "plan, sweep or log", "is not a section");
    return 0;
}

// inih's line reader over the text: counts lines, refuses long ones.
static char *read_line(char *str, int num, void *stream) {
    plan_ctx *c = stream;
    if (!*c->text)
        return NULL;
    size_t n = strcspn(c->text, "\n");
    c->line++;
    if (n + 2 > (size_t)num) {
        char ex[64];
        snprintf(ex, sizeof ex, "lines of at most %d characters", num - 2);
        fail(c, NULL, NULL, NULL, ex, "the line is too long");
        str[0] = '\0';
    } else {
        memcpy(str, c->text, n);
        str[n] = '\0';
    }
    c->text += n + (c->text[n] == '\n');
    return str;
}

// "%.9g" of v: a float's value, the same text on every host.
static void value_text(double v, char out[BOIDS_PLAN_VALUE]) {
    snprintf(out, BOIDS_PLAN_VALUE, "%.9g", v);
}

// A uniform draw in (0, 1) of the counter-based RNG: (plan seed, key, draw).
static double draw_unit(uint64_t seed, uint32_t key, uint32_t i, uint32_t stream) {
    uint32_t hi = boids_rng_u32((uint32_t)seed, (uint32_t)(seed >> 32), key, i, 2 * stream);
    uint32_t lo = boids_rng_u32((uint32_t)seed, (uint32_t)(seed >> 32), key, i, 2 * stream + 1);
    // 53 bits, then half a step off 0 so log() never sees 0.
    uint64_t bits = ((uint64_t)hi << 21) ^ (lo >> 11);
    return ((double)(bits & ((1ull << 53) - 1)) + 0.5) / 9007199254740992.0;
}

// One [sweep] spec into its values.
static void expand_param(plan_ctx *c, uint32_t k) {
    boids_plan_param *q = &c->p->param[k];
    const char *spec = c->spec[k];
    c->line = q->line;
    static const char *const fns[] = {"linear", "log", "uniform", "loguniform", "normal", NULL};
    static const boids_sweep_kind kinds[] = {BOIDS_SWEEP_LINEAR, BOIDS_SWEEP_LOG, BOIDS_SWEEP_UNIFORM,
                                             BOIDS_SWEEP_LOG_UNIFORM, BOIDS_SWEEP_NORMAL};
    const char *expected = "A | B | C (a list), linear(FROM, TO, N), log(FROM, TO, N), uniform(LO, HI, N), "
                           "loguniform(LO, HI, N) or normal(MEAN, SD, N)";
    size_t a = strspn(spec, " \t");
    const char *paren = strchr(spec, '(');
    int fn = -1;
    if (paren) {
        char name[32];
        size_t n = (size_t)(paren - spec) - a;
        while (n && (spec[a + n - 1] == ' ' || spec[a + n - 1] == '\t'))
            n--;
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), spec + a);
        fn = boids_parse_pick(name, 0, fns);
        if (fn < 0) {
            const char *near = boids_parse_nearest(name, fns, 3, true);
            char ex[400];
            snprintf(ex, sizeof ex, "%s%s%s%s", near ? "(did you mean '" : "", near ? near : "", near ? "'?) " : "",
                     expected);
            fail(c, "sweep", q->key, spec, ex, "names no sweep '%s'", name);
            return;
        }
    }
    if (fn < 0) { // a list
        char store[200], *pieces[101];
        uint32_t n = boids_parse_split(spec, "|", store, pieces, 100);
        if (n > 100) {
            fail(c, "sweep", q->key, NULL, "at most 100 values in a list (linear() and log() make more)",
                 "lists %u values", n);
            return;
        }
        q->kind = BOIDS_SWEEP_LIST;
        q->values = calloc(n, sizeof *q->values);
        if (!q->values) {
            fail(c, "sweep", q->key, NULL, NULL, "out of memory");
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            char *s = pieces[i];
            s += strspn(s, " \t");
            size_t m = strlen(s);
            while (m && (s[m - 1] == ' ' || s[m - 1] == '\t'))
                s[--m] = '\0';
            if (m == 0) {
                fail(c, "sweep", q->key, spec, expected, "has an empty value (item %u)", i + 1);
                return;
            }
            snprintf(q->values[i], BOIDS_PLAN_VALUE, "%s", s);
        }
        q->n = n;
        return;
    }
    q->kind = kinds[fn];
    const char *close = strrchr(paren, ')');
    if (!close || close[1 + strspn(close + 1, " \t")] != '\0') {
        fail(c, "sweep", q->key, spec, expected, "does not end with ')'");
        return;
    }
    char inner[200], *args[4];
    snprintf(inner, sizeof inner, "%.*s", (int)(close - paren - 1), paren + 1);
    char store[200];
    uint32_t na = boids_parse_split(inner, ",", store, args, 4);
    if (na != 3) {
        fail(c, "sweep", q->key, spec, expected, "has %u arguments, not 3", na);
        return;
    }
    float f0, f1;
    uint64_t n;
    const char *e = boids_parse_float(args[0], BOIDS_PARSE_TRIM, &f0);
    const char *which = "first";
    if (!e) {
        e = boids_parse_float(args[1], BOIDS_PARSE_TRIM, &f1);
        which = "second";
    }
    if (!e) {
        e = boids_parse_uint(args[2], BOIDS_PARSE_TRIM, 1, BOIDS_PLAN_MAX_VALUES, &n);
        which = "count";
    }
    if (e) {
        fail(c, "sweep", q->key, spec, "numbers FROM, TO and a count N of 1..100000", "has a %s argument that is %s",
             which, e);
        return;
    }
    double lo = strtod(args[0], NULL), hi = strtod(args[1], NULL); // checked above; in double, not float
    bool logs = q->kind == BOIDS_SWEEP_LOG || q->kind == BOIDS_SWEEP_LOG_UNIFORM;
    if (logs && !(lo > 0 && hi > 0)) {
        fail(c, "sweep", q->key, spec, "both ends > 0 for log() and loguniform()", "has an end <= 0");
        return;
    }
    if (q->kind == BOIDS_SWEEP_NORMAL && hi < 0) {
        fail(c, "sweep", q->key, spec, "a standard deviation >= 0", "has a negative standard deviation");
        return;
    }
    if ((q->kind == BOIDS_SWEEP_UNIFORM || q->kind == BOIDS_SWEEP_LOG_UNIFORM) && hi < lo) {
        fail(c, "sweep", q->key, spec, "LO <= HI", "has LO > HI");
        return;
    }
    q->values = calloc(n, sizeof *q->values);
    if (!q->values) {
        fail(c, "sweep", q->key, NULL, NULL, "out of memory");
        return;
    }
    q->n = (uint32_t)n;
    for (uint32_t i = 0; i < q->n; i++) {
        double t = q->n > 1 ? (double)i / (double)(q->n - 1) : 0.0, v = lo;
        switch (q->kind) {
        case BOIDS_SWEEP_LINEAR:
            v = i + 1 == q->n && q->n > 1 ? hi : lo + (hi - lo) * t;
            break;
        case BOIDS_SWEEP_LOG:
            v = i + 1 == q->n && q->n > 1 ? hi : exp(log(lo) + (log(hi) - log(lo)) * t);
            break;
        case BOIDS_SWEEP_UNIFORM:
            v = lo + (hi - lo) * draw_unit(c->p->draw_seed, k, i, 0);
            break;
        case BOIDS_SWEEP_LOG_UNIFORM:
            v = exp(log(lo) + (log(hi) - log(lo)) * draw_unit(c->p->draw_seed, k, i, 0));
            break;
        case BOIDS_SWEEP_NORMAL: { // Box-Muller of two draws
            double u1 = draw_unit(c->p->draw_seed, k, i, 0), u2 = draw_unit(c->p->draw_seed, k, i, 1);
            v = lo + hi * sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
            break;
        }
        default:
            break;
        }
        value_text(v, q->values[i]);
    }
}

// The base scenario: a file relative to the plan's folder (a path with '/'
// or ending in .ini), else a shipped scenario's name.
static void find_scenario(plan_ctx *c) {
    const char *arg = c->scenario_arg;
    c->line = c->scenario_line;
    size_t len = strlen(arg);
    bool file = strchr(arg, '/') || (len > 4 && strcmp(arg + len - 4, ".ini") == 0);
    if (file && arg[0] != '/') {
        const char *slash = strrchr(c->name, '/');
        int dir = slash ? (int)(slash - c->name) : 0;
        int n = snprintf(c->p->scenario, sizeof c->p->scenario, "%.*s%s%.500s", dir > 500 ? 500 : dir, c->name,
                         dir ? "/" : "", arg);
        if (n < 0 || (size_t)n >= sizeof c->p->scenario)
            fail(c, "plan", "scenario", arg, "a path of at most 511 characters", "is too long");
    } else if (!boids_scenario_find(arg, c->p->scenario, sizeof c->p->scenario) || access(c->p->scenario, R_OK) != 0) {
        fail(c, "plan", "scenario", arg,
             "a scenario file or the name of a shipped scenario (boids-run --list-scenarios)", "names no scenario");
    }
}

static uint64_t fnv_text(uint64_t h, const char *s) {
    return boids_fnv1a(h, s, strlen(s) + 1); // with the NUL: "ab","c" differs from "a","bc"
}

// p->settings_hash: the plan's own settings and the base scenario sc's
// effective values (as boids_scenario_write gives them, so a comment or the
// order of the file's lines does not count, a changed value does).
static bool settings_hash(boids_plan *p, const boids_scenario *sc) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    bool ok = f && boids_scenario_write(sc, f);
    if (f)
        ok = fclose(f) == 0 && ok;
    if (!ok) {
        free(text);
        return false;
    }
    char head[600];
    snprintf(head, sizeof head, "boids-ensemble plan 1\nsteps %llu\nbackend %d\nevery %llu\ngroups %d\nsnapshot %d\n",
             (unsigned long long)p->steps, (int)p->backend, (unsigned long long)p->every, (int)p->groups,
             (int)p->snapshot);
    uint64_t h = fnv_text(BOIDS_FNV1A_BASIS, head);
    h = fnv_text(h, p->name);
    h = fnv_text(h, p->scenario_arg);
    for (uint32_t k = 0; k < p->n_params; k++)
        h = fnv_text(h, p->param[k].key);
    p->settings_hash = boids_fnv1a(h, text, n);
    free(text);
    return true;
}

static void check_whole(plan_ctx *c) {
    boids_plan *p = c->p;
    if (!c->scenario_set) {
        c->line = 0;
        fail(c, "plan", "scenario", NULL, "scenario = NAME or FILE in [plan]", "is missing");
        return;
    }
    if (!c->steps_set) {
        c->line = 0;
        fail(c, "plan", "steps", NULL, "steps = N in [plan]", "is missing");
        return;
    }
    if (!p->seeds) { // the scenario's seed alone: seed 0 means "the file's"
        p->seeds = calloc(1, sizeof *p->seeds);
        p->n_seeds = 1;
        if (!p->seeds) {
            fail(c, NULL, NULL, NULL, NULL, "out of memory");
            return;
        }
    }
    find_scenario(c);
    for (uint32_t k = 0; k < p->n_params && !c->failed; k++)
        expand_param(c, k);
    if (c->failed)
        return;
    // The scenario, and each swept key applied once (its first value): an
    // unknown key is the plan's error; a value the scenario refuses is a
    // failed run, later.
    boids_scenario *sc = malloc(sizeof *sc);
    if (!sc) {
        fail(c, NULL, NULL, NULL, NULL, "out of memory");
        return;
    }
    char e[1200];
    bool key_problem = false;
    c->line = c->scenario_line;
    if (boids_scenario_load(p->scenario, sc, e, sizeof e) != BOIDS_OK)
        fail(c, "plan", "scenario", c->scenario_arg, NULL, "is refused: %s", e);
    else if (!settings_hash(p, sc))
        fail(c, NULL, NULL, NULL, NULL, "out of memory");
    for (uint32_t k = 0; k < p->n_params && !c->failed; k++) {
        boids_scenario_override o = {p->param[k].key, p->param[k].values[0], c->name, p->param[k].line};
        if (boids_scenario_load_with(p->scenario, &o, 1, sc, e, sizeof e, &key_problem) != BOIDS_OK && key_problem) {
            c->failed = true; // the scenario parser's line names the plan, the line and the key
            snprintf(c->err, sizeof c->err, "%.1500s", e);
        }
    }
    free(sc);
    if (c->failed)
        return;
    uint64_t combos = 1;
    for (uint32_t k = 0; k < p->n_params; k++) {
        if (p->zip) {
            if (p->param[k].n != p->param[0].n) {
                c->line = p->param[k].line;
                fail(c, "sweep", p->param[k].key, NULL, "the same number of values for every key with combine = zip",
                     "has %u values, %s %u", p->param[k].n, p->param[0].key, p->param[0].n);
                return;
            }
            combos = p->param[0].n;
        } else {
            combos *= p->param[k].n;
            if (combos > BOIDS_PLAN_MAX_RUNS)
                break;
        }
    }
    uint64_t runs = combos * p->n_seeds;
    if (runs > BOIDS_PLAN_MAX_RUNS) {
        c->line = 0;
        fail(c, NULL, NULL, NULL, "at most 1000000 runs", "the plan makes %llu or more runs", (unsigned long long)runs);
        return;
    }
    p->runs = (uint32_t)runs;
}

void boids_plan_free(boids_plan *p) {
    if (!p)
        return;
    for (uint32_t k = 0; k < BOIDS_PLAN_MAX_PARAMS; k++)
        free(p->param[k].values);
    free(p->seeds);
    free(p);
}

boids_result boids_plan_load_string(const char *text, const char *name, boids_plan **out, char *err, size_t err_size) {
    if (out)
        *out = NULL;
    if (!text || !out) {
        snprintf(err, err_size, "boids_plan_load_string: %s is NULL; expected a plan's text and where to put the plan",
                 text ? "out" : "text");
        return BOIDS_ERR_ARGUMENT;
    }
    if (!name)
        name = "(text)";
    plan_ctx *c = calloc(1, sizeof *c);
    boids_plan *p = calloc(1, sizeof *p);
    if (!c || !p) {
        free(c);
        free(p);
        return BOIDS_ERR_NOMEM;
    }
    c->name = name;
    c->text = text;
    c->p = p;
    snprintf(p->path, sizeof p->path, "%s", name);
    const char *slash = strrchr(name, '/');
    snprintf(p->name, sizeof p->name, "%s", slash ? slash + 1 : name);
    p->backend = BOIDS_BACKEND_CPU;
    int r = ini_parse_stream(read_line, c, on_key, c);
    if (r > 0 && !c->failed) {
        c->line = r;
        fail(c, NULL, NULL, NULL, "[section] or key = value lines (comments start with # or ;)",
             "the line is not a section, a key = value or a comment");
    }
    if (!c->failed)
        check_whole(c);
    if (c->failed) {
        snprintf(err, err_size, "%s", c->err);
        boids_plan_free(p);
        free(c);
        return BOIDS_ERR_FORMAT;
    }
    free(c);
    *out = p;
    return BOIDS_OK;
}

boids_result boids_plan_load(const char *path, boids_plan **out, char *err, size_t err_size) {
    if (out)
        *out = NULL;
    if (!path || !out) {
        snprintf(err, err_size, "boids_plan_load: %s is NULL; expected a plan file (.ini) and where to put the plan",
                 path ? "out" : "path");
        return BOIDS_ERR_ARGUMENT;
    }
    char why[256];
    FILE *f = boids_input_open(path, BOIDS_INPUT_PIPES, 1u << 24, "a plan file", why, sizeof why);
    if (!f) {
        snprintf(err, err_size, "%s: %s; expected a plan file (.ini) under 16 MB", path, why);
        return BOIDS_ERR_IO;
    }
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *t = n < (1u << 24) ? realloc(text, cap * 2) : NULL;
            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            cap *= 2;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (!text || bad) {
        free(text);
        snprintf(err, err_size, "%s: cannot be read (%s); expected a plan file (.ini) under 16 MB", path,
                 bad ? "read error" : "too large");
        return BOIDS_ERR_IO;
    }
    text[n] = '\0';
    if (strlen(text) != n) {
        free(text);
        snprintf(err, err_size, "%s: holds a NUL byte; expected a plan file (.ini, text)", path);
        return BOIDS_ERR_FORMAT;
    }
    boids_result r = boids_plan_load_string(text, path, out, err, err_size);
    free(text);
    return r;
}

uint32_t boids_plan_runs(const boids_plan *p) {
    return p ? p->runs : 0;
}

uint64_t boids_plan_run_seed(const boids_plan *p, uint32_t r) {
    return p ? p->seeds[r % p->n_seeds] : 0;
}

const char *boids_plan_run_value(const boids_plan *p, uint32_t r, uint32_t k) {
    if (!p || r >= p->runs || k >= p->n_params)
        return NULL;
    uint32_t combo = r / p->n_seeds;
    if (p->zip)
        return p->param[k].values[combo];
    // Cross: the last key varies fastest.
    for (uint32_t j = p->n_params - 1; j > k; j--)
        combo /= p->param[j].n;
    return p->param[k].values[combo % p->param[k].n];
}

uint64_t boids_plan_run_hash(const boids_plan *p, uint32_t r) {
    if (!p || r >= p->runs)
        return 0;
    char head[64];
    snprintf(head, sizeof head, "run %u\nseed %llu\n", r, (unsigned long long)boids_plan_run_seed(p, r));
    uint64_t h = fnv_text(p->settings_hash, head);
    for (uint32_t k = 0; k < p->n_params; k++)
        h = fnv_text(h, boids_plan_run_value(p, r, k));
    return h;
}

void boids_plan_csv_header(const boids_plan *p, char *out, size_t size) {
    if (!out || !size)
        return;
    if (!p) {
        out[0] = '\0';
        return;
    }
    size_t n = (size_t)snprintf(out, size, "run");
    for (uint32_t k = 0; k < p->n_params && n < size; k++)
        n += (size_t)snprintf(out + n, size - n, ",%s", p->param[k].key);
    if (n < size)
        n += (size_t)snprintf(out + n, size - n, ",seed%s,step", p->groups ? ",group" : "");
    for (uint32_t i = 0; i < boids_engine_stat_count() && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, ",%s", boids_engine_stat_name(i));
    if (n < size)
        snprintf(out + n, size - n, ",state_hash,status");
}
