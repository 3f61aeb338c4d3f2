/* src/app/cli.c: the shared command-line parser (see cli.h). Every value is
 * parsed completely (strtod/strtoull, full consumption, errno, finiteness) and
 * range-checked here, so the library only sees sane numbers; what only the
 * library can judge (does the radius fit the world?) comes back from
 * boids_params_finalize and is turned into the same one-line format. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boids/atomic.h"

#define VALUE_SHOWN_MAX 96 // longer values are shortened in messages
#define PI_DOUBLE 3.14159265358979323846

typedef struct flag_def {
    const char *name; // without the leading "--"
    uint64_t bit;     // 0: --help / --version, always accepted
    bool takes_value;
    const char *metavar;
} flag_def;

static const flag_def flag_defs[] = {
    {"count", BOIDS_CLI_COUNT, true, "N"},
    {"steps", BOIDS_CLI_STEPS, true, "S"},
    {"seed", BOIDS_CLI_SEED, true, "X"},
    {"dim", BOIDS_CLI_DIM, true, "2|3"},
    {"world", BOIDS_CLI_WORLD, true, "WxH[xD]"},
    {"origin", BOIDS_CLI_ORIGIN, true, "X,Y[,Z]"},
    {"boundary", BOIDS_CLI_BOUNDARY, true, "wrap|walls|bounce"},
    {"behaviors", BOIDS_CLI_BEHAVIORS, true, "LIST|all|none"},
    {"weights", BOIDS_CLI_WEIGHTS, true, "name=value,..."},
    {"radius", BOIDS_CLI_RADIUS, true, "R"},
    {"separation", BOIDS_CLI_SEPARATION, true, "R"},
    {"fov", BOIDS_CLI_FOV, true, "DEGREES"},
    {"maxspeed", BOIDS_CLI_MAXSPEED, true, "V"},
    {"maxforce", BOIDS_CLI_MAXFORCE, true, "F"},
    {"dt", BOIDS_CLI_DT, true, "T"},
    {"backend", BOIDS_CLI_BACKEND, true, "cpu|gpu"},
    {"shader-dir", BOIDS_CLI_SHADER_DIR, true, "DIR"},
    {"init", BOIDS_CLI_INIT, true, "FILE.csv"},
    {"export-csv", BOIDS_CLI_EXPORT_CSV, true, "FILE.csv"},
    {"stats-every", BOIDS_CLI_STATS_EVERY, true, "K"},
    {"threads", BOIDS_CLI_THREADS, true, "N"},
    {"counts", BOIDS_CLI_COUNTS, true, "N,N,..."},
    {"distribution", BOIDS_CLI_DISTRIBUTION, true, "uniform|clustered"},
    {"quiet", BOIDS_CLI_QUIET, false, NULL},
    {"width", BOIDS_CLI_WIDTH, true, "W"},
    {"height", BOIDS_CLI_HEIGHT, true, "H"},
    {"vsync", BOIDS_CLI_VSYNC, true, "on|off"},
    {"frames", BOIDS_CLI_FRAMES, true, "K"},
    {"screenshot", BOIDS_CLI_SCREENSHOT, true, "FILE.png"},
    {"keys", BOIDS_CLI_KEYS, true, "SCRIPT"},
    {"profile", BOIDS_CLI_PROFILE, true, "FILE.csv|FILE.json"},
    {"bodies", BOIDS_CLI_BODIES, true, "none|chain|snake|fish"},
    {"joints", BOIDS_CLI_JOINTS, true, "J"},
    {"body-length", BOIDS_CLI_BODY_LENGTH, true, "L"},
    {"demo", BOIDS_CLI_DEMO, true, "chain|snake"},
    {"index", BOIDS_CLI_INDEX, true, "grid|quadtree|brute"},
    {"scenario", BOIDS_CLI_SCENARIO, true, "FILE.ini|NAME"},
    {"list-scenarios", BOIDS_CLI_LIST_SCENARIOS, false, NULL},
    {"dump-scenario", BOIDS_CLI_DUMP_SCENARIO, false, NULL},
    {"save", BOIDS_CLI_SAVE, true, "FILE.boids"},
    {"save-every", BOIDS_CLI_SAVE_EVERY, true, "K"},
    {"load", BOIDS_CLI_LOAD, true, "FILE.boids"},
    {"record", BOIDS_CLI_RECORD, true, "FILE"},
    {"record-every", BOIDS_CLI_RECORD_EVERY, true, "K"},
    {"replay", BOIDS_CLI_REPLAY, true, "FILE"},
    {"export-frames", BOIDS_CLI_EXPORT_FRAMES, true, "DIR"},
    {"frame", BOIDS_CLI_FRAME, true, "N"},
    {"help", 0, false, NULL},
    {"version", 0, false, NULL},
};
#define FLAG_DEF_COUNT (sizeof flag_defs / sizeof flag_defs[0])

// What one flag handler needs: where to report, and the flag and value at hand.
typedef struct parse_ctx {
    const boids_cli_spec *spec;
    const char *flag;  // "--count"
    const char *value; // as given
} parse_ctx;

// Appends printf output to buf at *len, never past size (keeps it terminated).
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) BOIDS_CLI_PRINTF(4, 5);
// Appends printf output to buf at *len, never past size (keeps it terminated).
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
    if (*len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *len += (size_t)n;
    if (*len >= size)
        *len = size - 1;
}

// Appends a value with control characters escaped and long values cut, so a
// message stays one printable line whatever the user typed.
static void append_value(char *buf, size_t size, size_t *len, const char *value) {
    size_t shown = 0;
    for (const unsigned char *c = (const unsigned char *)value; *c; c++, shown++) {
        if (shown == VALUE_SHOWN_MAX) {
            append(buf, size, len, "...");
            break;
        }
        if (*c == '\n')
            append(buf, size, len, "\\n");
        else if (*c == '\t')
            append(buf, size, len, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            append(buf, size, len, "\\x%02x", *c);
        else
            append(buf, size, len, "%c", *c);
    }
}

// The value escaped and shortened as in messages, in the caller's buffer.
static const char *shown(const char *value, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    append_value(buf, size, &len, value);
    return buf;
}

// Shared body of boids_cli_format and boids_cli_error.
static void format_line(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                        const char *expected, const char *problem_fmt, va_list ap) {
    size_t len = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    append(buf, size, &len, "%s: ", prog ? prog : "boids");
    if (flag)
        append(buf, size, &len, "%s: ", flag);
    if (value) {
        append(buf, size, &len, "'");
        append_value(buf, size, &len, value);
        append(buf, size, &len, "' ");
    }
    if (len + 1 < size) {
        int n = vsnprintf(buf + len, size - len, problem_fmt, ap);
        if (n > 0)
            len = len + (size_t)n < size ? len + (size_t)n : size - 1;
    }
    if (expected)
        append(buf, size, &len, "; expected %s", expected);
    // A problem text built from file content must not break the line either.
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

// Formats the one-line error message (see cli.h).
void boids_cli_format(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                      const char *expected, const char *problem_fmt, ...) {
    va_list ap;
    va_start(ap, problem_fmt);
    format_line(buf, size, prog, flag, value, expected, problem_fmt, ap);
    va_end(ap);
}

// Formats a library description as the one-line message (see cli.h).
void boids_cli_format_described(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                                const char *default_expected, const char *description) {
    static const char marker[] = " (allowed: ";
    char body[512];
    snprintf(body, sizeof body, "%s", description);
    const char *expected = default_expected;
    char *open = strstr(body, marker);
    size_t n = strlen(body);
    if (open && n > 0 && body[n - 1] == ')') {
        body[n - 1] = '\0';
        *open = '\0';
        expected = open + strlen(marker);
    }
    boids_cli_format(buf, size, prog, flag, value, expected, "%s", body);
}

// Prints the one-line error message on stderr (see cli.h).
void boids_cli_error(const char *prog, const char *flag, const char *value, const char *expected,
                     const char *problem_fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, problem_fmt);
    format_line(buf, sizeof buf, prog, flag, value, expected, problem_fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", buf);
}

// Reports a problem with the flag and value at hand; returns 2 (error).
static int bad(const parse_ctx *c, const char *expected, const char *problem_fmt, ...) BOIDS_CLI_PRINTF(3, 4);
// Reports a problem with the flag and value at hand; returns 2 (error).
static int bad(const parse_ctx *c, const char *expected, const char *problem_fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, problem_fmt);
    format_line(buf, sizeof buf, c->spec->prog, c->flag, c->value, expected, problem_fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", buf);
    return 2;
}

// Parses an unsigned integer (decimal, or 0x hex if allowed) in [lo, hi].
// Returns NULL if fine, else what is wrong ("not an integer", "negative", ...).
static const char *check_uint(const char *s, bool hex, uint64_t lo, uint64_t hi, uint64_t *out) {
    int base = 10;
    const char *digits = s;
    if (s[0] == '-' && isdigit((unsigned char)s[1])) {
        for (const char *c = s + 1; *c; c++)
            if (!isdigit((unsigned char)*c))
                return "not an integer";
        return "negative";
    }
    if (hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        digits = s + 2;
    }
    if (!digits[0])
        return "not an integer";
    for (const char *c = digits; *c; c++)
        if (base == 16 ? !isxdigit((unsigned char)*c) : !isdigit((unsigned char)*c))
            return "not an integer";
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(digits, &end, base);
    if (errno == ERANGE || v > hi)
        return "too large";
    if (errno != 0 || end == digits || *end != '\0')
        return "not an integer";
    if (v < lo)
        return "too small";
    *out = (uint64_t)v;
    return NULL;
}

enum float_kind { FLOAT_ANY, FLOAT_POSITIVE, FLOAT_FOV };

// Parses a finite decimal number that fits a float, with the constraint of
// `kind`. Returns NULL if fine, else what is wrong.
static const char *check_float(const char *s, enum float_kind kind, float *out) {
    if (!s[0] || isspace((unsigned char)s[0]))
        return "not a number";
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return "not a number";
    if (strchr(s, 'x') || strchr(s, 'X'))
        return "not a decimal number";
    if (errno == ERANGE && fabs(v) > 1.0)
        return "too large";
    if (errno == ERANGE && kind != FLOAT_ANY)
        return "too small";
    if (!isfinite(v))
        return "not a finite number";
    if (fabs(v) > FLT_MAX)
        return "too large";
    if (kind != FLOAT_ANY) {
        if (v < 0.0)
            return "negative";
        if (v == 0.0)
            return "zero";
        if ((float)v == 0.0f)
            return "too small";
        if (kind == FLOAT_FOV && v > 360.0)
            return "more than 360";
    }
    *out = (float)v;
    return NULL;
}

// A float flag: checked by kind, stored with its "given" mark; 2 on error.
static int set_float(const parse_ctx *c, enum float_kind kind, const char *expected, float *dest, bool *given) {
    float v;
    const char *problem = check_float(c->value, kind, &v);
    if (problem)
        return bad(c, expected, "is %s", problem);
    *dest = v;
    *given = true;
    return 0;
}

// Splits s at each of the separators into at most max pieces (copied into
// store, which must hold strlen(s)+1 bytes). Returns the piece count, or
// max + 1 if there are more.
static uint32_t split(const char *s, const char *separators, char *store, char **pieces, uint32_t max) {
    uint32_t n = 0;
    strcpy(store, s);
    char *start = store;
    for (;;) {
        char *sep = strpbrk(start, separators);
        if (n == max)
            return max + 1;
        pieces[n++] = start;
        if (!sep)
            break;
        *sep = '\0';
        start = sep + 1;
    }
    return n;
}

// The comma list of every behaviour name, for messages.
static const char *behavior_list(void) {
    static char list[512];
    if (list[0])
        return list;
    size_t len = 0;
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++) {
        const char *name = boids_behavior_name(i);
        append(list, sizeof list, &len, "%s%s", i ? ", " : "", name ? name : "?");
    }
    return list;
}

// Index of a behaviour name, or -1 (guards against names the library lacks).
static int behavior_index(const char *name) {
    int i = boids_behavior_index(name);
    return i >= 0 && (uint32_t)i < BOIDS_BEHAVIOR_COUNT ? i : -1;
}

// Edit distance with adjacent transpositions (optimal string alignment),
// for "did you mean"; strings longer than 63 characters are not compared.
static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

// The accepted flag nearest to `name` (a typo or a prefix), or NULL.
static const char *suggest(const boids_cli_spec *spec, const char *name) {
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    size_t len = strlen(name);
    for (size_t i = 0; i < FLAG_DEF_COUNT; i++) {
        const flag_def *f = &flag_defs[i];
        if (f->bit && !(spec->flags & f->bit))
            continue;
        size_t d = edit_distance(name, f->name);
        if (len >= 2 && strncmp(name, f->name, len) == 0)
            d = 1; // a prefix of a real flag
        if (d < best_d) {
            best_d = d;
            best = f->name;
        }
    }
    size_t limit = len <= 4 ? 1 : 2;
    return best_d <= limit ? best : NULL;
}

// --behaviors LIST|all|none.
static int parse_behaviors(const parse_ctx *c, boids_options *o) {
    char expected[700];
    snprintf(expected, sizeof expected, "a comma list of %s, flocking, or all, none", behavior_list());
    if (strcmp(c->value, "all") == 0) {
        o->behaviors = (uint32_t)((1ull << BOIDS_BEHAVIOR_COUNT) - 1u);
        return 0;
    }
    if (strcmp(c->value, "none") == 0) {
        o->behaviors = 0;
        return 0;
    }
    size_t n = strlen(c->value);
    char *store = malloc(n + 1);
    char **pieces = malloc((n + 2) * sizeof *pieces);
    int rc = 0;
    if (!store || !pieces) {
        rc = bad(c, NULL, "cannot be parsed: out of memory");
        goto done;
    }
    uint32_t count = split(c->value, ",", store, pieces, (uint32_t)(n + 1));
    uint32_t bits = 0;
    for (uint32_t i = 0; i < count; i++) {
        const char *name = pieces[i];
        if (!name[0]) {
            rc = bad(c, expected, "has an empty name");
            goto done;
        }
        if (strcmp(name, "flocking") == 0) {
            bits |= BOIDS_B_FLOCKING;
            continue;
        }
        if (strcmp(name, "all") == 0 || strcmp(name, "none") == 0) {
            rc = bad(c, expected, "mixes '%s' with other names", name);
            goto done;
        }
        int index = behavior_index(name);
        if (index < 0) {
            char text[VALUE_SHOWN_MAX + 8];
            rc = bad(c, expected, "names an unknown behaviour '%s'", shown(name, text, sizeof text));
            goto done;
        }
        bits |= BOIDS_BIT((uint32_t)index);
    }
    o->behaviors = bits;
done:
    free(store);
    free(pieces);
    return rc;
}

// --weights name=value,...
static int parse_weights(const parse_ctx *c, boids_options *o) {
    char expected[700];
    snprintf(expected, sizeof expected, "name=value,... with a finite number for each of %s", behavior_list());
    size_t n = strlen(c->value);
    char *store = malloc(n + 1);
    char **pieces = malloc((n + 2) * sizeof *pieces);
    int rc = 0;
    if (!store || !pieces) {
        rc = bad(c, NULL, "cannot be parsed: out of memory");
        goto done;
    }
    uint32_t count = split(c->value, ",", store, pieces, (uint32_t)(n + 1));
    float w[BOIDS_BEHAVIOR_COUNT];
    bool set[BOIDS_BEHAVIOR_COUNT] = {false};
    for (uint32_t i = 0; i < count; i++) {
        char text[VALUE_SHOWN_MAX + 8], vtext[VALUE_SHOWN_MAX + 8];
        char *eq = strchr(pieces[i], '=');
        if (!eq) {
            rc = bad(c, expected, "has '%s' without '=value'", shown(pieces[i], text, sizeof text));
            goto done;
        }
        *eq = '\0';
        int index = behavior_index(pieces[i]);
        if (index < 0) {
            rc = bad(c, expected, "names an unknown behaviour '%s'", shown(pieces[i], text, sizeof text));
            goto done;
        }
        float v = 0.0f;
        const char *problem = check_float(eq + 1, FLOAT_ANY, &v);
        if (problem) {
            rc = bad(c, expected, "gives %s the weight '%s', which is %s", shown(pieces[i], text, sizeof text),
                     shown(eq + 1, vtext, sizeof vtext), problem);
            goto done;
        }
        w[index] = v;
        set[index] = true;
    }
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++) {
        if (set[i]) {
            o->weights[i] = w[i];
            o->weight_set[i] = true;
        }
    }
done:
    free(store);
    free(pieces);
    return rc;
}

// --world WxH[xD] (count against --dim is checked after all flags).
static int parse_world(const parse_ctx *c, boids_options *o) {
    static const char *const axis[3] = {"width", "height", "depth"};
    const char *expected = "WxH (2D) or WxHxD (3D) with every extent a positive number";
    char store[256];
    char *pieces[3];
    if (strlen(c->value) >= sizeof store)
        return bad(c, expected, "is too long");
    uint32_t n = split(c->value, "xX", store, pieces, 3);
    if (n < 2 || n > 3)
        return bad(c, expected, "has %s extent%s", n < 2 ? "one" : "more than three", n < 2 ? "" : "s");
    for (uint32_t i = 0; i < n; i++) {
        float v = 0.0f;
        const char *problem = check_float(pieces[i], FLOAT_POSITIVE, &v);
        char text[VALUE_SHOWN_MAX + 8];
        if (problem)
            return bad(c, expected, "has a %s '%s' that is %s", axis[i], shown(pieces[i], text, sizeof text), problem);
        o->world[i] = v;
    }
    if (n == 2)
        o->world[2] = 0.0;
    o->world_n = n;
    o->world_set = true;
    o->world_arg = c->value;
    return 0;
}

// --origin X,Y[,Z].
static int parse_origin(const parse_ctx *c, boids_options *o, uint32_t *n_out) {
    static const char *const axis[3] = {"x", "y", "z"};
    const char *expected = "X,Y (2D) or X,Y,Z (3D), finite numbers";
    char store[256];
    char *pieces[3];
    if (strlen(c->value) >= sizeof store)
        return bad(c, expected, "is too long");
    uint32_t n = split(c->value, ",", store, pieces, 3);
    if (n < 2 || n > 3)
        return bad(c, expected, "has %s coordinate%s", n < 2 ? "one" : "more than three", n < 2 ? "" : "s");
    double v[3] = {0.0, 0.0, 0.0};
    for (uint32_t i = 0; i < n; i++) {
        float f = 0.0f;
        const char *problem = check_float(pieces[i], FLOAT_ANY, &f);
        char text[VALUE_SHOWN_MAX + 8];
        if (problem)
            return bad(c, expected, "has an %s '%s' that is %s", axis[i], shown(pieces[i], text, sizeof text), problem);
        v[i] = f;
    }
    memcpy(o->origin, v, sizeof v);
    o->origin_set = true;
    o->origin_arg = c->value;
    *n_out = n;
    return 0;
}

// --counts N,N,...
static int parse_counts(const parse_ctx *c, boids_options *o) {
    char expected[128];
    snprintf(expected, sizeof expected, "a comma list of at most %u integers 1..%u", BOIDS_CLI_MAX_COUNTS,
             BOIDS_MAX_AGENTS);
    size_t n = strlen(c->value);
    char *store = malloc(n + 1);
    char *pieces[BOIDS_CLI_MAX_COUNTS];
    if (!store)
        return bad(c, NULL, "cannot be parsed: out of memory");
    uint32_t count = split(c->value, ",", store, pieces, BOIDS_CLI_MAX_COUNTS);
    int rc = 0;
    if (count > BOIDS_CLI_MAX_COUNTS) {
        rc = bad(c, expected, "has more than %u counts", BOIDS_CLI_MAX_COUNTS);
    } else {
        for (uint32_t i = 0; i < count && rc == 0; i++) {
            uint64_t v = 0;
            const char *problem = check_uint(pieces[i], false, 1, BOIDS_MAX_AGENTS, &v);
            if (problem) {
                char text[VALUE_SHOWN_MAX + 8];
                rc = bad(c, expected, "has a count '%s' that is %s", shown(pieces[i], text, sizeof text), problem);
            } else {
                o->counts[i] = (uint32_t)v;
            }
        }
        if (rc == 0)
            o->n_counts = count;
    }
    free(store);
    return rc;
}

// Handles one flag with its value; returns 0 or 2 (error printed).
static int handle(const parse_ctx *c, const flag_def *f, boids_options *o, uint32_t *origin_n) {
    char expected[160];
    uint64_t u = 0;
    const char *problem = NULL;
    switch (f->bit) {
    case BOIDS_CLI_COUNT:
        snprintf(expected, sizeof expected, "an integer 1..%u (agents)", BOIDS_MAX_AGENTS);
        if ((problem = check_uint(c->value, false, 1, BOIDS_MAX_AGENTS, &u)))
            return bad(c, expected, "is %s", problem);
        o->count = (uint32_t)u;
        o->count_set = true;
        return 0;
    case BOIDS_CLI_STEPS:
        snprintf(expected, sizeof expected, "an integer 1..%llu", (unsigned long long)BOIDS_CLI_MAX_STEPS);
        if ((problem = check_uint(c->value, false, 1, BOIDS_CLI_MAX_STEPS, &u)))
            return bad(c, expected, "is %s", problem);
        o->steps = o->bench_steps = u;
        o->steps_set = true;
        return 0;
    case BOIDS_CLI_SEED:
        if ((problem = check_uint(c->value, true, 0, UINT64_MAX, &u)))
            return bad(c, "an integer 0..18446744073709551615, decimal or 0x hex", "is %s", problem);
        o->seed = u;
        return 0;
    case BOIDS_CLI_DIM:
        if (strcmp(c->value, "2") != 0 && strcmp(c->value, "3") != 0)
            return bad(c, "2 or 3", "is not a dimension");
        o->dim = c->value[0] == '2' ? 2u : 3u;
        o->dim_set = true;
        return 0;
    case BOIDS_CLI_WORLD:
        return parse_world(c, o);
    case BOIDS_CLI_ORIGIN:
        return parse_origin(c, o, origin_n);
    case BOIDS_CLI_BOUNDARY:
        if (strcmp(c->value, "wrap") == 0)
            o->boundary = BOIDS_BOUNDARY_WRAP;
        else if (strcmp(c->value, "walls") == 0)
            o->boundary = BOIDS_BOUNDARY_WALLS;
        else if (strcmp(c->value, "bounce") == 0)
            o->boundary = BOIDS_BOUNDARY_BOUNCE;
        else
            return bad(c, "wrap, walls or bounce", "is not a boundary mode");
        o->boundary_set = true;
        return 0;
    case BOIDS_CLI_BEHAVIORS:
        if (parse_behaviors(c, o))
            return 2;
        o->behaviors_set = true;
        return 0;
    case BOIDS_CLI_WEIGHTS:
        return parse_weights(c, o);
    case BOIDS_CLI_RADIUS:
        return set_float(c, FLOAT_POSITIVE, "a perception radius > 0", &o->radius, &o->radius_set);
    case BOIDS_CLI_SEPARATION:
        return set_float(c, FLOAT_POSITIVE, "a desired separation > 0", &o->separation, &o->separation_set);
    case BOIDS_CLI_FOV:
        return set_float(c, FLOAT_FOV, "a field of view in degrees, 0 < fov <= 360", &o->fov_deg, &o->fov_set);
    case BOIDS_CLI_MAXSPEED:
        return set_float(c, FLOAT_POSITIVE, "a maximum speed > 0", &o->maxspeed, &o->maxspeed_set);
    case BOIDS_CLI_MAXFORCE:
        return set_float(c, FLOAT_POSITIVE, "a maximum steering force > 0", &o->maxforce, &o->maxforce_set);
    case BOIDS_CLI_DT:
        return set_float(c, FLOAT_POSITIVE, "a time step > 0", &o->dt, &o->dt_set);
    case BOIDS_CLI_BACKEND:
        if (strcmp(c->value, "cpu") == 0 || strcmp(c->value, "gpu") == 0) {
            o->backend = c->value[0] == 'c' ? "cpu" : "gpu";
            return 0;
        }
        return bad(c, "cpu or gpu", "is not a backend");
    case BOIDS_CLI_SHADER_DIR:
        if (!c->value[0])
            return bad(c, "a directory holding the files of shaders/", "is an empty path");
        o->shader_dir = c->value;
        return 0;
    case BOIDS_CLI_INIT:
        if (!c->value[0])
            return bad(c, "a CSV file with the header id,group,px,py,pz,vx,vy,vz", "is an empty path");
        o->init_csv = c->value;
        return 0;
    case BOIDS_CLI_EXPORT_CSV:
        if (!c->value[0])
            return bad(c, "a path of a CSV file to write", "is an empty path");
        o->export_csv = c->value;
        return 0;
    case BOIDS_CLI_STATS_EVERY:
        snprintf(expected, sizeof expected, "an integer 1..%llu (steps between statistics lines)",
                 (unsigned long long)BOIDS_CLI_MAX_STEPS);
        if ((problem = check_uint(c->value, false, 1, BOIDS_CLI_MAX_STEPS, &u)))
            return bad(c, expected, "is %s", problem);
        o->stats_every = (uint32_t)u;
        o->stats_every_set = true;
        return 0;
    case BOIDS_CLI_THREADS:
        snprintf(expected, sizeof expected, "an integer 0..%d (0 = the OpenMP default)", BOIDS_CLI_MAX_THREADS);
        if ((problem = check_uint(c->value, false, 0, BOIDS_CLI_MAX_THREADS, &u)))
            return bad(c, expected, "is %s", problem);
        o->threads = (int)u;
        return 0;
    case BOIDS_CLI_COUNTS:
        return parse_counts(c, o);
    case BOIDS_CLI_DISTRIBUTION:
        if (strcmp(c->value, "uniform") == 0)
            o->distribution = BOIDS_DIST_UNIFORM;
        else if (strcmp(c->value, "clustered") == 0)
            o->distribution = BOIDS_DIST_CLUSTERED;
        else
            return bad(c, "uniform or clustered", "is not a distribution");
        return 0;
    case BOIDS_CLI_QUIET:
        o->quiet = true;
        return 0;
    case BOIDS_CLI_WIDTH:
    case BOIDS_CLI_HEIGHT:
        snprintf(expected, sizeof expected, "an integer 1..%u (pixels)", BOIDS_CLI_MAX_WINDOW);
        if ((problem = check_uint(c->value, false, 1, BOIDS_CLI_MAX_WINDOW, &u)))
            return bad(c, expected, "is %s", problem);
        *(f->bit == BOIDS_CLI_WIDTH ? &o->width : &o->height) = (uint32_t)u;
        return 0;
    case BOIDS_CLI_VSYNC:
        if (strcmp(c->value, "on") == 0 || strcmp(c->value, "off") == 0) {
            o->vsync = c->value[1] == 'n';
            return 0;
        }
        return bad(c, "on or off", "is not a vsync setting");
    case BOIDS_CLI_FRAMES:
        snprintf(expected, sizeof expected, "an integer 1..%llu (frames before exiting)",
                 (unsigned long long)BOIDS_CLI_MAX_STEPS);
        if ((problem = check_uint(c->value, false, 1, BOIDS_CLI_MAX_STEPS, &u)))
            return bad(c, expected, "is %s", problem);
        o->frames = u;
        return 0;
    case BOIDS_CLI_SCREENSHOT:
        if (!c->value[0])
            return bad(c, "a path of a PNG file to write", "is an empty path");
        o->screenshot = c->value;
        return 0;
    case BOIDS_CLI_KEYS:
        if (!c->value[0])
            return bad(c, "a comma list of [FRAME:]KEY (see --help)", "is empty");
        o->keys = c->value;
        return 0;
    case BOIDS_CLI_PROFILE: {
        const char *expected_profile = "a path ending in .csv or .json";
        size_t len = strlen(c->value);
        if (!len)
            return bad(c, expected_profile, "is an empty path");
        const char *dot = strrchr(c->value, '.');
        if (!dot || strchr(dot, '/') || dot == c->value || dot[-1] == '/' ||
            (strcasecmp(dot, ".csv") != 0 && strcasecmp(dot, ".json") != 0))
            return bad(c, expected_profile, "has an unknown extension");
        o->profile = c->value;
        return 0;
    }
    case BOIDS_CLI_BODIES: {
        int style = boids_body_style_index(c->value);
        if (style < 0)
            return bad(c, "none, chain, snake or fish", "is not a body style");
        o->body_style = (uint32_t)style;
        o->body_style_set = true;
        return 0;
    }
    case BOIDS_CLI_JOINTS:
        snprintf(expected, sizeof expected, "an integer %u..%u (joints per body)", BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS);
        if ((problem = check_uint(c->value, false, BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS, &u)))
            return bad(c, expected, "is %s", problem);
        o->joints = (uint32_t)u;
        return 0;
    case BOIDS_CLI_BODY_LENGTH:
        return set_float(c, FLOAT_POSITIVE, "a body length > 0 (world units, head to tail)", &o->body_length,
                         &o->body_length_set);
    case BOIDS_CLI_INDEX: {
        static const char *const names[BOIDS_INDEX_KINDS] = {"grid", "quadtree", "brute"};
        for (uint32_t k = 0; k < BOIDS_INDEX_KINDS; k++)
            if (strcmp(c->value, names[k]) == 0) {
                o->index = k;
                return 0;
            }
        return bad(c, "grid, quadtree or brute", "is not a neighbour index");
    }
    case BOIDS_CLI_SCENARIO:
        if (!c->value[0])
            return bad(c, "a scenario file (.ini) or a name of --list-scenarios", "is empty");
        o->scenario_arg = c->value;
        return 0;
    case BOIDS_CLI_LIST_SCENARIOS:
        return 0; // acted on after parsing
    case BOIDS_CLI_DUMP_SCENARIO:
        o->dump_scenario = true;
        return 0;
    case BOIDS_CLI_SAVE:
        if (!c->value[0])
            return bad(c, "a path of a .boids snapshot to write", "is an empty path");
        o->save = c->value;
        return 0;
    case BOIDS_CLI_SAVE_EVERY:
        snprintf(expected, sizeof expected, "an integer 1..%llu (steps between snapshots)",
                 (unsigned long long)BOIDS_CLI_MAX_STEPS);
        if ((problem = check_uint(c->value, false, 1, BOIDS_CLI_MAX_STEPS, &u)))
            return bad(c, expected, "is %s", problem);
        o->save_every = u;
        return 0;
    case BOIDS_CLI_LOAD:
        if (!c->value[0])
            return bad(c, "a .boids snapshot written by --save", "is an empty path");
        o->load = c->value;
        return 0;
    case BOIDS_CLI_RECORD:
        if (!c->value[0])
            return bad(c, "a path of a recording to write", "is an empty path");
        o->record = c->value;
        return 0;
    case BOIDS_CLI_RECORD_EVERY:
        snprintf(expected, sizeof expected, "an integer 1..%llu (steps between recorded frames)",
                 (unsigned long long)BOIDS_CLI_MAX_STEPS);
        if ((problem = check_uint(c->value, false, 1, BOIDS_CLI_MAX_STEPS, &u)))
            return bad(c, expected, "is %s", problem);
        o->record_every = u;
        return 0;
    case BOIDS_CLI_REPLAY:
        if (!c->value[0])
            return bad(c, "a recording written by boids-run --record", "is an empty path");
        o->replay = c->value;
        return 0;
    case BOIDS_CLI_EXPORT_FRAMES:
        if (!c->value[0])
            return bad(c, "an existing directory for the PNG frames", "is an empty path");
        o->export_frames = c->value;
        return 0;
    case BOIDS_CLI_FRAME:
        if ((problem = check_uint(c->value, false, 0, UINT32_MAX - 1, &u)))
            return bad(c, "an integer 0..4294967294 (a frame of the recording)", "is %s", problem);
        o->frame = (uint32_t)u;
        return 0;
    case BOIDS_CLI_DEMO:
        if (strcmp(c->value, "chain") == 0 || strcmp(c->value, "snake") == 0) {
            o->demo = c->value[0] == 'c' ? "chain" : "snake";
            return 0;
        }
        return bad(c, "chain or snake", "is not a demo");
    default:
        return bad(c, NULL, "is not handled (internal error)");
    }
}

// The defaults of every option.
static void set_defaults(const boids_cli_spec *spec, boids_options *o) {
    memset(o, 0, sizeof *o);
    o->prog = spec->prog;
    o->steps = 100;
    o->bench_steps = 10;
    o->seed = 1;
    o->dim = 2;
    o->boundary = BOIDS_BOUNDARY_WRAP;
    o->backend = "cpu";
    o->distribution = BOIDS_DIST_UNIFORM;
    o->width = 1280;
    o->height = 800;
    o->vsync = true;
    o->joints = 12;
}

// --scenario: the file found and loaded (all or nothing); its count, dimension
// and distribution become the defaults of the flags not given.
static int load_scenario(const boids_cli_spec *spec, boids_options *o) {
    parse_ctx c = {spec, "--scenario", o->scenario_arg};
    char path[1024], err[900];
    if (!boids_scenario_find(o->scenario_arg, path, sizeof path))
        return bad(&c, "a scenario file (.ini), or a name of --list-scenarios (set BOIDS_SCENARIOS to their directory)",
                   "is not a file and no scenarios directory was found");
    o->scenario = malloc(sizeof *o->scenario);
    if (!o->scenario)
        return bad(&c, NULL, "cannot be loaded: out of memory");
    if (boids_scenario_load(path, o->scenario, err, sizeof err) != BOIDS_OK) {
        free(o->scenario);
        o->scenario = NULL;
        boids_cli_error(spec->prog, "--scenario", NULL, NULL, "%s", err);
        return 2;
    }
    const boids_world_params *w = &o->scenario->params.world;
    if (!o->count_set) {
        o->count = w->count;
        o->count_set = true;
    }
    if (!o->dim_set)
        o->dim = w->dim;
    if (!(o->flags_given & BOIDS_CLI_DISTRIBUTION))
        o->distribution = o->scenario->distribution;
    return 0;
}

void boids_options_free(boids_options *o) {
    free(o->scenario);
    o->scenario = NULL;
}

// Parses the command line (see cli.h).
int boids_cli_parse(int argc, char **argv, const boids_cli_spec *spec, boids_options *out) {
    set_defaults(spec, out);
    // --help and --version win wherever they are, even after a bad flag.
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(spec->usage, stdout);
            if (spec->usage_more)
                fputs(spec->usage_more, stdout);
            return 1;
        }
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--version") == 0) {
            printf("%s %s\n", spec->prog, BOIDS_VERSION);
            return 1;
        }
    }
    uint32_t origin_n = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        parse_ctx c = {spec, NULL, arg};
        if (arg[0] != '-' || strcmp(arg, "-") == 0 || strcmp(arg, "--") == 0)
            return bad(&c, "options of the form --flag VALUE (see --help)", "is not an option");
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const flag_def *f = NULL;
        for (size_t k = 0; k < FLAG_DEF_COUNT && arg[1] == '-'; k++)
            if (strlen(flag_defs[k].name) == name_len && strncmp(flag_defs[k].name, name, name_len) == 0)
                f = &flag_defs[k];
        char flag[80];
        snprintf(flag, sizeof flag, "--%.*s", (int)(name_len < 60 ? name_len : 60), name);
        if (!f || (f->bit && !(spec->flags & f->bit))) {
            char bare[64];
            snprintf(bare, sizeof bare, "%.*s", (int)(name_len < 63 ? name_len : 63), name);
            const char *near = suggest(spec, bare);
            parse_ctx u = {spec, NULL, NULL};
            char problem[160], text[VALUE_SHOWN_MAX + 8];
            char *given = strdup(arg);
            if (given && eq)
                given[eq - arg] = '\0';
            shown(given ? given : arg, text, sizeof text);
            free(given);
            if (f)
                snprintf(problem, sizeof problem, "is not an option of %s", spec->prog);
            else if (near)
                snprintf(problem, sizeof problem, "is not an option (did you mean --%s?)", near);
            else
                snprintf(problem, sizeof problem, "is not an option");
            return bad(&u, "an option listed by --help", "%s: %s", text, problem);
        }
        c.flag = flag;
        if (!f->takes_value) {
            c.value = NULL;
            if (eq)
                return bad(&c, flag, "takes no value");
            if (f->bit == 0) // --help / --version: handled above
                continue;
        } else if (eq) {
            c.value = eq + 1;
        } else if (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-')) {
            c.value = argv[++i];
        } else {
            c.value = NULL;
            char expected[128];
            snprintf(expected, sizeof expected, "%s %s", flag, f->metavar);
            return bad(&c, expected, "needs a value");
        }
        out->flags_given |= f->bit;
        if (handle(&c, f, out, &origin_n))
            return 2;
    }

    if (out->flags_given & BOIDS_CLI_LIST_SCENARIOS) {
        const char *dir = boids_scenario_dir();
        if (!dir) {
            parse_ctx c = {spec, "--list-scenarios", NULL};
            return bad(&c, "a scenarios/ directory (set BOIDS_SCENARIOS to one)", "finds no scenarios directory");
        }
        printf("scenarios in %s (use --scenario NAME):\n", dir);
        boids_scenario_list(stdout);
        return 1;
    }
    if (out->scenario_arg && load_scenario(spec, out))
        return 2;

    // Checks across flags, so that their order does not matter.
    for (size_t k = 0; k < FLAG_DEF_COUNT; k++) {
        const flag_def *f = &flag_defs[k];
        if (f->bit && (spec->required & f->bit) && !(out->flags_given & f->bit)) {
            char flag[80], expected[128];
            snprintf(flag, sizeof flag, "--%s", f->name);
            snprintf(expected, sizeof expected, "%s %s", flag, f->metavar);
            parse_ctx c = {spec, flag, NULL};
            return bad(&c, expected, "is required");
        }
    }
    if ((out->flags_given & BOIDS_CLI_RECORD_EVERY) && !out->record) {
        parse_ctx c = {spec, "--record-every", NULL};
        return bad(&c, "--record FILE with it", "needs --record (the file to write)");
    }
    if ((out->flags_given & (BOIDS_CLI_EXPORT_FRAMES | BOIDS_CLI_FRAME)) && !out->replay) {
        parse_ctx c = {spec, out->flags_given & BOIDS_CLI_FRAME ? "--frame" : "--export-frames", NULL};
        return bad(&c, "--replay FILE with it", "needs --replay (the recording to play)");
    }
    if ((out->flags_given & BOIDS_CLI_SAVE_EVERY) && !out->save) {
        parse_ctx c = {spec, "--save-every", NULL};
        return bad(&c, "--save FILE.boids with it", "needs --save (the file to write)");
    }
    // A snapshot holds the parameters: with --load only the run's own flags
    // (steps, backend, outputs, threads, index) may be given.
    const uint64_t not_with_load = BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_COUNT | BOIDS_CLI_COUNTS | BOIDS_CLI_INIT |
                                   BOIDS_CLI_DISTRIBUTION | BOIDS_CLI_DUMP_SCENARIO;
    if (out->load && (out->flags_given & not_with_load)) {
        for (size_t k = 0; k < FLAG_DEF_COUNT; k++)
            if (flag_defs[k].bit & out->flags_given & not_with_load) {
                char flag[80];
                snprintf(flag, sizeof flag, "--%s", flag_defs[k].name);
                parse_ctx c = {spec, flag, NULL};
                return bad(&c,
                           "with --load only flags that do not set up the simulation (--steps, --frames, "
                           "--backend, --threads, --index, window and output flags)",
                           "cannot be combined with --load (the snapshot holds the parameters)");
            }
    }
    if (out->world_set && out->world_n != out->dim) {
        parse_ctx c = {spec, "--world", out->world_arg};
        return bad(&c, out->dim == 2 ? "WxH in 2D (or --dim 3 with WxHxD)" : "WxHxD in 3D",
                   "has %u extents but the run is %uD (--dim %u%s)", out->world_n, out->dim, out->dim,
                   out->dim_set ? "" : " by default");
    }
    if (out->origin_set && origin_n != out->dim) {
        parse_ctx c = {spec, "--origin", out->origin_arg};
        return bad(&c, out->dim == 2 ? "X,Y in 2D" : "X,Y,Z in 3D", "has %u coordinates but the run is %uD", origin_n,
                   out->dim);
    }
    if (!out->record_every)
        out->record_every = 1;
    if (!out->stats_every_set) {
        uint64_t k = out->steps / 10;
        out->stats_every = (uint32_t)(k < 1 ? 1 : k);
    }
    return 0;
}

enum radius_flag { FLAG_RADIUS, FLAG_SEPARATION, FLAG_NONE };

// Finalizes a copy of base with the radius or separation of every group set
// to `value` (FLAG_NONE: radii unchanged) and the world extents `size` (NULL:
// unchanged): does the interaction radius fit?
static bool fits(const boids_params *base, enum radius_flag which, float value, const float *size) {
    boids_params q = *base;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        if (which == FLAG_RADIUS)
            q.group[g].radius = value;
        else if (which == FLAG_SEPARATION)
            q.group[g].separation = value;
    }
    if (size)
        memcpy(q.world.size, size, 3 * sizeof(float));
    return boids_params_finalize(&q, NULL, 0) == BOIDS_OK;
}

// "100x100" or "100x100x100" of extents.
static void extents_text(uint32_t dim, const float *size, char *buf, size_t buf_size) {
    if (dim == 3)
        snprintf(buf, buf_size, "%gx%gx%g", (double)size[0], (double)size[1], (double)size[2]);
    else
        snprintf(buf, buf_size, "%gx%g", (double)size[0], (double)size[1]);
}

// The largest value of the flag (<= value) that fits the world, printed as
// briefly as possible; false if no value does (another radius binds).
static bool largest_fit(const boids_params *base, enum radius_flag which, float value, char *buf, size_t size) {
    float lo = value * 1e-6f, hi = value;
    if (!fits(base, which, lo, NULL))
        return false;
    for (int i = 0; i < 80; i++) {
        float mid = lo + (hi - lo) * 0.5f;
        if (mid <= lo || mid >= hi)
            break;
        if (fits(base, which, mid, NULL))
            lo = mid;
        else
            hi = mid;
    }
    // The shortest printed bound that still fits (%g could round up past it).
    for (int digits = 3; digits <= 9; digits++) {
        snprintf(buf, size, "%.*g", digits, (double)lo);
        if (fits(base, which, strtof(buf, NULL), NULL))
            break;
    }
    return true;
}

// The smallest world of the same proportions that fits, with whole-number
// extents where possible; false if none does.
static bool smallest_world(const boids_params *base, char *buf, size_t size) {
    const float *s = base->world.size;
    float trial[3];
    double lo = 1.0, hi = 2.0;
    for (;; hi *= 2.0) {
        for (int a = 0; a < 3; a++)
            trial[a] = (float)(s[a] * hi);
        if (fits(base, FLAG_NONE, 0.0f, trial))
            break;
        if (hi > 1e12)
            return false;
    }
    for (int i = 0; i < 80 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        for (int a = 0; a < 3; a++)
            trial[a] = (float)(s[a] * mid);
        if (fits(base, FLAG_NONE, 0.0f, trial))
            hi = mid;
        else
            lo = mid;
    }
    for (int a = 0; a < 3; a++)
        trial[a] = (float)ceil(s[a] * hi);
    if (!fits(base, FLAG_NONE, 0.0f, trial))
        for (int a = 0; a < 3; a++)
            trial[a] = (float)(s[a] * hi);
    extents_text(base->world.dim, trial, buf, size);
    return true;
}

// Explains BOIDS_ERR_CELL: which radius does not fit which world, the largest
// radius and the smallest world that would (both found with
// boids_params_finalize itself, so the message follows the library's rule).
static void explain_cell(const boids_options *o, const boids_params *base, char *err, size_t err_size) {
    static const char *const modes[3] = {"wrap", "walls", "bounce"};
    const boids_group_params *g = &base->group[0];
    const char *mode = base->world.boundary < 3 ? modes[base->world.boundary] : "?";
    enum radius_flag largest = FLAG_NONE; // the view radius, which has no flag
    float rmax = g->view_radius;
    if (g->radius >= g->separation && g->radius >= g->view_radius)
        largest = FLAG_RADIUS, rmax = g->radius;
    else if (g->separation >= g->view_radius)
        largest = FLAG_SEPARATION, rmax = g->separation;
    const char *name = largest == FLAG_RADIUS ? "radius" : largest == FLAG_SEPARATION ? "separation" : "view radius";
    char world[96], min_world[96] = "", bound[32] = "", value[32], expected[300], problem[300];
    extents_text(base->world.dim, base->world.size, world, sizeof world);
    bool have_world = smallest_world(base, min_world, sizeof min_world);
    bool have_bound = largest != FLAG_NONE && largest_fit(base, largest, rmax, bound, sizeof bound);
    snprintf(value, sizeof value, "%g", (double)rmax);
    size_t len = 0;
    expected[0] = '\0';
    if (have_bound)
        append(expected, sizeof expected, &len, "a %s <= %s for this world", name, bound);
    if (have_world)
        append(expected, sizeof expected, &len, "%sa --world of at least %s", len ? ", or " : "", min_world);
    if (!len)
        append(expected, sizeof expected, &len, "a smaller radius or a larger --world");
    bool flag_given = largest == FLAG_RADIUS ? o->radius_set : largest == FLAG_SEPARATION && o->separation_set;
    if (largest != FLAG_NONE && (flag_given || !o->world_set)) {
        char flag[16];
        snprintf(flag, sizeof flag, "--%s", name);
        boids_cli_format(err, err_size, o->prog, flag, value, expected, "does not fit the %sworld %s (%s)",
                         o->world_set ? "" : "automatic ", world, mode);
        return;
    }
    snprintf(problem, sizeof problem,
             "the interaction radius %g (the largest of radius %g, separation %g, view radius %g; %s)", (double)rmax,
             (double)g->radius, (double)g->separation, (double)g->view_radius, mode);
    if (o->world_set)
        boids_cli_format(err, err_size, o->prog, "--world", o->world_arg, expected, "is too small for %s", problem);
    else
        boids_cli_format(err, err_size, o->prog, NULL, NULL, expected, "the automatic world %s is too small for %s",
                         world, problem);
}

// Explains any other error of boids_params_finalize. Its description reads
// "WHAT (allowed: RANGE)": WHAT becomes the problem, RANGE the expectation,
// and the flag is guessed from the result code and WHAT.
static void explain_finalize(const boids_options *o, boids_result r, const char *what, char *err, size_t err_size) {
    char body[256], value[32] = "";
    snprintf(body, sizeof body, "%s", what[0] ? what : boids_result_str(r));
    const char *flag = NULL, *shown = NULL;
    if (r == BOIDS_ERR_WORLD && (o->world_set || o->origin_set)) {
        flag = o->world_set ? "--world" : "--origin";
        shown = o->world_set ? o->world_arg : o->origin_arg;
    } else if (r == BOIDS_ERR_COUNT) {
        flag = "--count";
    } else if (strncmp(body, "dt ", 3) == 0 && o->dt_set) {
        flag = "--dt";
        snprintf(value, sizeof value, "%g", (double)o->dt);
        shown = value;
    } else if (r == BOIDS_ERR_PATH) {
        flag = "--behaviors";
    } else if (r == BOIDS_ERR_BODY) {
        flag = o->body_length_set ? "--body-length" : "--bodies";
        shown = o->body_length_set ? NULL : boids_body_style_name(o->body_style);
    }
    char described[300];
    snprintf(described, sizeof described, "%s: %s", shown ? "is rejected" : "rejected", body);
    boids_cli_format_described(err, err_size, o->prog, flag, shown, "values accepted by --help", described);
}

// The signal that interrupted the run (see cli.h).
static volatile sig_atomic_t interrupted_by;

static void on_interrupt(int sig) {
    interrupted_by = sig;
}

void boids_cli_catch_interrupts(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    // A second signal stops the program at once (the handler is reset); a
    // write or fsync under way is resumed, not failed with EINTR.
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int boids_cli_interrupted(void) {
    return (int)interrupted_by;
}

// Builds finalized parameters from the options (see cli.h).
boids_result boids_options_params(const boids_options *o, uint32_t count, boids_params *p, char *err, size_t err_size) {
    if (err_size)
        err[0] = '\0';
    const boids_scenario *sc = o->scenario;
    bool auto_world = !o->world_set;
    if (sc) {
        // The file's world unless a flag says otherwise; a changed dimension
        // or count without a file size is sized anew.
        *p = sc->params;
        p->flow.vec = NULL;
        auto_world = !o->world_set && (!sc->size_set || o->dim != sc->params.world.dim);
        p->world.dim = o->dim;
        p->world.count = count;
        if (o->dim != sc->params.world.dim)
            for (int i = 0; i < 3; i++)
                p->world.min[i] = 0.0f;
    } else {
        boids_params_default(p, count, o->dim);
    }
    if (o->boundary_set)
        p->world.boundary = o->boundary;
    if (o->dt_set)
        p->world.dt = o->dt;
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS; gi++) {
        boids_group_params *g = &p->group[gi];
        if (o->radius_set)
            g->radius = o->radius;
        if (o->separation_set)
            g->separation = o->separation;
        if (o->fov_set)
            g->fov_cos = boids_fov_cos(o->fov_deg);
        if (o->maxspeed_set)
            g->maxspeed = o->maxspeed;
        if (o->maxforce_set)
            g->maxforce = o->maxforce;
        if (o->behaviors_set)
            g->behaviors = o->behaviors;
        for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
            if (o->weight_set[i])
                g->weight[i >> 2][i & 3] = o->weights[i];
    }
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS && o->body_style_set; gi++) {
        float length = o->body_length_set ? o->body_length : 1.2f * p->group[gi].separation;
        char what[160];
        if (boids_body_make(&p->body[gi], o->body_style, o->joints, length, what, sizeof what) != BOIDS_OK) {
            boids_cli_format_described(err, err_size, o->prog, "--body-length", NULL, "a body length > 0", what);
            return BOIDS_ERR_BODY;
        }
    }
    if (!sc || (o->flags_given & BOIDS_CLI_SEED)) {
        p->world.seed_lo = (uint32_t)(o->seed & 0xffffffffu);
        p->world.seed_hi = (uint32_t)(o->seed >> 32);
    }
    if (o->world_set) {
        for (int i = 0; i < 3; i++)
            p->world.size[i] = i < (int)o->dim ? (float)o->world[i] : 0.0f;
    } else if (auto_world) {
        boids_params_auto_world(p, 20.0);
    }
    if (o->world_set || o->origin_set)
        for (int i = 0; i < 3; i++)
            p->world.min[i] = i < (int)o->dim ? (float)o->origin[i] : 0.0f;
    if (sc && (o->world_set || o->origin_set || auto_world)) {
        // A target the file did not place follows the world's centre.
        for (int i = 0; i < 3; i++) {
            float centre = i < (int)o->dim ? p->world.min[i] + 0.5f * p->world.size[i] : 0.0f;
            if (!sc->target_position_set)
                p->world.target_pos[i] = centre;
        }
    }

    boids_params base = *p;
    char what[256] = "";
    boids_result r = boids_params_finalize(p, what, sizeof what);
    if (r == BOIDS_OK)
        return r;
    if (r == BOIDS_ERR_CELL)
        explain_cell(o, &base, err, err_size);
    else
        explain_finalize(o, r, what, err, err_size);
    return r;
}

// See cli.h.
int boids_cli_check_output(const char *prog, const char *flag, const char *path, const char *expected) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        boids_cli_error(prog, flag, path, expected, "is a directory");
        return 2;
    }
    char *dir = boids_atomic_dir_of(path);
    size_t size = dir ? strlen(dir) + 64 : 0;
    char *probe = dir ? malloc(size) : NULL;
    if (!probe) {
        free(dir);
        boids_cli_error(prog, flag, path, NULL, "cannot be checked: out of memory");
        return 3;
    }
    int rc = 0;
    if (stat(dir, &st) != 0) {
        boids_cli_error(prog, flag, path, expected, "cannot be written: directory '%s': %s", dir, strerror(errno));
        rc = 2;
    } else if (!S_ISDIR(st.st_mode)) {
        boids_cli_error(prog, flag, path, expected, "cannot be written: '%s' is not a directory", dir);
        rc = 2;
    } else {
        for (unsigned k = 0; k < 100; k++) {
            snprintf(probe, size, "%s/.boids-probe.%ld.%u", dir, (long)getpid(), k);
            int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
            if (fd >= 0) {
                close(fd);
                unlink(probe);
                break;
            }
            if (errno != EEXIST) {
                boids_cli_error(prog, flag, path, expected, "cannot be written: directory '%s': %s", dir,
                                strerror(errno));
                rc = 2;
                break;
            }
        }
    }
    free(probe);
    free(dir);
    return rc;
}

// See cli.h: the loaded scenario (or the defaults) with the effective params.
void boids_options_scenario(const boids_options *o, const boids_params *p, boids_scenario *out) {
    if (o->scenario)
        *out = *o->scenario;
    else
        boids_scenario_default(out);
    out->params = *p;
    out->params.flow.vec = NULL;
    if (!o->scenario)
        out->distribution = o->distribution;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        if (o->fov_set)
            out->fov_deg[g] = o->fov_deg;
        if (o->body_style_set)
            out->body_length[g] = o->body_length_set ? o->body_length : 1.2f * p->group[g].separation;
    }
    if (!o->scenario)
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            if (!o->fov_set)
                out->fov_deg[g] = 0.0f; // from the cosine
    // A circle the file did not place follows the (possibly resized) world.
    const boids_world_params *w = &p->world;
    for (int a = 0; a < 3; a++)
        if (!out->target_center_set)
            out->target_center[a] = a < (int)w->dim ? w->min[a] + 0.5f * w->size[a] : 0.0f;
    if (!out->target_radius_set)
        out->target_radius = 0.25f * (w->size[0] < w->size[1] ? w->size[0] : w->size[1]);
}
