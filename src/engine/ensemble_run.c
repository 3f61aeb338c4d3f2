// src/engine/ensemble_run.c: one run of a plan through the engine into the
// text of its files, the output folder (boids/ensemble.h), and a whole plan
// in one process: `jobs` threads each taking the next run (CPU), or one run
// after another on one shared headless context (GPU). Every file but
// runs/RUN.time.json depends only on the plan and the run index, so any
// number of threads or ranks writes the same bytes.
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boids/atomic.h"
#include "boids/ensemble.h"
#include "boids/input.h"
#include "boids/parse.h"
#include "boids/scenario.h"

// ---- a growing text buffer ---------------------------------------------------

typedef struct text {
    char *s;
    size_t n, cap;
    bool nomem;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
    if (t->nomem)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->nomem = true;
            return;
        }
        if (t->s && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t cap = t->cap ? t->cap : 1024;
        while (cap <= t->n + (size_t)k)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->nomem = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

// A JSON string of s (quotes, backslashes and control characters escaped).
static void put_json(text *t, const char *s) {
    put(t, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            put(t, "\\%c", *p);
        else if (*p < 0x20)
            put(t, "\\u%04x", *p);
        else
            put(t, "%c", *p);
    }
    put(t, "\"");
}

// A CSV field of s: quoted when it holds a comma, a quote or a line break.
static void put_csv(text *t, const char *s) {
    if (!strpbrk(s, ",\"\n\r")) {
        put(t, "%s", s);
        return;
    }
    put(t, "\"");
    for (const char *p = s; *p; p++)
        put(t, *p == '"' ? "\"\"" : "%c", *p);
    put(t, "\"");
}

// A statistic as text: integers exactly, others with 17 significant digits
// (the double's bits round-trip); NaN (not of a group) as an empty field.
static void put_value(text *t, double v) {
    if (isnan(v))
        return;
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        put(t, "%.0f", v);
    else
        put(t, "%.17g", v);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

// ---- one run -----------------------------------------------------------------------

// n steps of e; with env->stepped, in calls of about a quarter second
// (*chunk steps, doubled or halved after each call as it took under an
// eighth or over half a second), each reported: the same states as one call.
static boids_result step_reporting(boids_engine *e, uint64_t n, const boids_run_env *env, uint64_t *chunk) {
    if (!env || !env->stepped)
        return boids_engine_step(e, n, NULL);
    while (n > 0) {
        uint64_t k = n < *chunk ? n : *chunk;
        double t0 = now_s();
        boids_result res = boids_engine_step(e, k, NULL);
        if (res != BOIDS_OK)
            return res;
        env->stepped(env->stepped_user, k);
        n -= k;
        double took = now_s() - t0;
        if (took < 0.125 && k == *chunk && *chunk < (UINT64_C(1) << 40))
            *chunk *= 2;
        else if (took > 0.5 && *chunk > 1)
            *chunk /= 2;
    }
    return BOIDS_OK;
}

// The row's leading fields: run, values, seed.
static void put_lead(text *t, const boids_plan *p, uint32_t r) {
    put(t, "%u", r);
    for (uint32_t k = 0; k < p->n_params; k++) {
        put(t, ",");
        put_csv(t, boids_plan_run_value(p, r, k));
    }
    put(t, ",%llu", (unsigned long long)boids_plan_run_seed(p, r));
}

// One row per logged group (the whole flock, then each group when asked).
static boids_result put_rows(text *t, const boids_plan *p, uint32_t r, boids_engine *e, const boids_scenario *sc) {
    uint32_t groups = p->groups ? boids_engine_params(e)->world.group_count : 0;
    for (uint32_t g = 0; g <= groups; g++) {
        double v[BOIDS_ENGINE_STATS_MAX];
        uint32_t which = g == 0 ? UINT32_MAX : g - 1;
        boids_result res = boids_engine_stat_values(e, which, v);
        if (res != BOIDS_OK)
            return res;
        put_lead(t, p, r);
        if (p->groups) {
            put(t, ",");
            put_csv(t, g == 0 ? "all" : sc->group_name[g - 1]);
        }
        put(t, ",%llu", (unsigned long long)boids_engine_steps(e));
        for (uint32_t i = 0; i < boids_engine_stat_count(); i++) {
            put(t, ",");
            put_value(t, v[i]);
        }
        put(t, ",,ok\n"); // the hash goes on the final rows only (filled in below)
    }
    return BOIDS_OK;
}

// FNV-1a 64 of n bytes (a run's CSV in its log: csv_hash).
static uint64_t fnv(const void *data, size_t n) {
    return boids_fnv1a(BOIDS_FNV1A_BASIS, data, n);
}

// Is err (an errno after a failed read) the environment's fault, not the
// input's: the disk, the quota, the device, the process's limits?
static bool environment_errno(int err) {
    switch (err) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
    case EROFS:
    case ESTALE:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case EINTR:
        return true;
    default:
        return false;
    }
}

// Tests: BOIDS_DEBUG=ensemble-enospc=RUN makes run RUN's snapshot fail to
// be written with ENOSPC, as on a full disk (nothing is written).
static bool test_enospc(uint32_t r) {
    char v[32];
    uint64_t u;
    return boids_debug_value("ensemble-enospc", v, sizeof v) &&
           !boids_parse_uint(v, BOIDS_PARSE_TRIM, 0, UINT32_MAX, &u) && u == r;
}

// The snapshot of a run's final state at path, a name the ensemble gives
// its own file: a link or a FIFO planted there is removed, so the save
// cannot go through it. *environment: a failure of the write itself
// (ENOSPC, EIO, a folder not writable...), never the run's.
static boids_result save_snapshot(boids_engine *e, const char *path, uint32_t r, char *msg, size_t size,
                                  bool *environment) {
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        unlink(path);
    if (test_enospc(r)) {
        snprintf(msg, size, "%s: cannot be written: %s", path, strerror(ENOSPC));
        *environment = true;
        return BOIDS_ERR_IO;
    }
    boids_result res = boids_engine_save(e, path, msg, size);
    *environment = res == BOIDS_ERR_IO || res == BOIDS_ERR_NOMEM;
    return res;
}

// The texts of run r's files into out (out->ok, interrupted, message and
// state_hash set; rows: its rows with ",,ok" ends, the final ones from
// final_rows_at on).
static boids_result run_texts(const boids_plan *p, uint32_t r, const boids_run_env *env, boids_run_output *out,
                              const text *rows, size_t final_rows_at, double t0, double step_s) {
    // The CSV: the hash on the final rows; a failed run is one row, status failed.
    text csv = {0};
    const char *status = out->ok ? "ok" : out->interrupted ? "interrupted" : "failed";
    if (out->ok) {
        char hash[20];
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)out->state_hash);
        const char *s = rows->s;
        size_t at = 0;
        while (at < rows->n) {
            size_t len = strcspn(s + at, "\n");
            if (at >= final_rows_at) // ",,ok" -> ",HASH,ok": keep the first comma
                put(&csv, "%.*s%s,ok\n", (int)(len - 3), s + at, hash);
            else
                put(&csv, "%.*s\n", (int)len, s + at);
            at += len + 1;
        }
    } else {
        put_lead(&csv, p, r);
        put(&csv, "%s,", p->groups ? "," : "");
        for (uint32_t i = 0; i < boids_engine_stat_count(); i++)
            put(&csv, ",");
        put(&csv, ",,%s\n", status); // state_hash empty, status
    }
    text json = {0};
    put(&json, "{\n  \"run\": %u,\n  \"plan\": ", r);
    put_json(&json, p->name);
    put(&json, ",\n  \"plan_hash\": \"%016llx\",\n  \"scenario\": ", (unsigned long long)boids_plan_run_hash(p, r));
    put_json(&json, p->scenario_arg);
    put(&json, ",\n  \"parameters\": {");
    for (uint32_t k = 0; k < p->n_params; k++) {
        put(&json, "%s", k ? ", " : "");
        put_json(&json, p->param[k].key);
        put(&json, ": ");
        put_json(&json, boids_plan_run_value(p, r, k));
    }
    put(&json, "},\n  \"seed\": %llu,\n  \"backend\": \"%s\",\n  \"steps\": %llu,\n  \"status\": \"%s\",\n",
        (unsigned long long)boids_plan_run_seed(p, r), p->backend == BOIDS_BACKEND_GPU ? "gpu" : "cpu",
        (unsigned long long)p->steps, status);
    put(&json, "  \"message\": ");
    put_json(&json, out->message);
    if (out->ok)
        put(&json, ",\n  \"state_hash\": \"%016llx\"", (unsigned long long)out->state_hash);
    else
        put(&json, ",\n  \"state_hash\": null");
    put(&json, ",\n  \"csv_hash\": \"%016llx\"\n}\n", (unsigned long long)fnv(csv.s, csv.n));
    out->seconds = now_s() - t0;
    text tj = {0};
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    put(&tj, "{\n  \"run\": %u,\n  \"seconds\": %.6f,\n  \"step_seconds\": %.6f,\n  \"ms_per_step\": %.6f,\n", r,
        out->seconds, step_s, out->ok && p->steps ? step_s * 1e3 / (double)p->steps : 0.0);
    put(&tj, "  \"host\": ");
    put_json(&tj, host);
    put(&tj, ",\n  \"rank\": %d,\n  \"worker\": %d,\n  \"threads\": %d\n}\n", env ? env->rank : 0,
        env ? env->worker : 0, env && env->threads > 0 ? env->threads : 1);
    if (csv.nomem || json.nomem || tj.nomem) {
        free(csv.s);
        free(json.s);
        free(tj.s);
        return BOIDS_ERR_NOMEM;
    }
    out->csv = csv.s ? csv.s : calloc(1, 1);
    out->json = json.s;
    out->time_json = tj.s;
    return out->csv ? BOIDS_OK : BOIDS_ERR_NOMEM;
}

boids_result boids_ensemble_run_one(const boids_plan *p, uint32_t r, const boids_run_env *env, boids_run_output *out) {
    if (!out)
        return BOIDS_ERR_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->run = r;
    if (!p || r >= p->runs)
        return BOIDS_ERR_ARGUMENT;
    double t0 = now_s();
    boids_scenario_override ov[BOIDS_PLAN_MAX_PARAMS];
    for (uint32_t k = 0; k < p->n_params; k++)
        ov[k] = (boids_scenario_override){p->param[k].key, boids_plan_run_value(p, r, k), p->name, p->param[k].line};
    boids_scenario *sc = malloc(sizeof *sc);
    text rows = {0};
    boids_engine *e = NULL;
    size_t final_rows_at = 0;
    double step_s = 0;
    if (!sc)
        return BOIDS_ERR_NOMEM;
    char msg[sizeof out->message] = "";
    errno = 0;
    boids_result res = boids_scenario_load_with(p->scenario, ov, p->n_params, sc, msg, sizeof msg, NULL);
    // The plan's scenario was read when the plan was loaded: a read failing
    // now for the disk's sake (EIO) is the environment's.
    bool environment = res == BOIDS_ERR_IO && environment_errno(errno);
    if (res == BOIDS_OK) {
        boids_engine_desc d = {
            .scenario = sc,
            .backend = p->backend,
            .threads = env && env->threads > 0 ? env->threads : 1,
            .headless = env ? env->headless : NULL,
            .quiet = true,
            .silent_errors = true,
            .seed = boids_plan_run_seed(p, r),
        };
        res = boids_engine_create(&e, &d, msg, sizeof msg);
    }
    if (res == BOIDS_OK) {
        uint64_t every = p->every ? p->every : p->steps, chunk = 1;
        double s0 = now_s();
        for (uint64_t at = 0;;) {
            if (at == p->steps)
                final_rows_at = rows.n;
            res = put_rows(&rows, p, r, e, sc);
            if (res != BOIDS_OK || at == p->steps)
                break;
            uint64_t n = every - at % every;
            if (at + n > p->steps)
                n = p->steps - at;
            res = step_reporting(e, n, env, &chunk);
            if (res != BOIDS_OK)
                break;
            at += n;
        }
        step_s = now_s() - s0;
        if (res != BOIDS_OK) {
            char why[400] = "";
            boids_engine_check(e, why, sizeof why);
            snprintf(msg, sizeof msg, "at step %llu: %s", (unsigned long long)boids_engine_steps(e),
                     why[0] ? why : boids_result_str(res));
        }
    }
    if (res == BOIDS_OK && rows.nomem)
        res = BOIDS_ERR_NOMEM;
    if (res == BOIDS_OK) {
        out->state_hash = boids_engine_hash(e);
        if (env && env->snapshot_path)
            res = save_snapshot(e, env->snapshot_path, r, msg, sizeof msg, &environment);
    }
    boids_engine_destroy(e);
    free(sc);
    // Out of memory is the machine's state, not the run's: interrupted, as a full disk is.
    if (res == BOIDS_ERR_NOMEM) {
        environment = true;
        if (!msg[0])
            snprintf(msg, sizeof msg, "%s", boids_result_str(res));
    }
    out->ok = res == BOIDS_OK;
    out->interrupted = !out->ok && environment;
    snprintf(out->message, sizeof out->message, "%s", out->ok ? "" : msg);
    res = run_texts(p, r, env, out, &rows, final_rows_at, t0, step_s);
    free(rows.s);
    return res;
}

void boids_ensemble_output_free(boids_run_output *o) {
    if (!o)
        return;
    free(o->csv);
    free(o->json);
    free(o->time_json);
    o->csv = o->json = o->time_json = NULL;
}

// ---- the output folder --------------------------------------------------------------

typedef struct blob {
    const char *s;
    size_t n;
} blob;

static bool fill_blob(FILE *f, void *ctx) {
    const blob *b = ctx;
    return fwrite(b->s, 1, b->n, f) == b->n;
}

static boids_result write_text(const char *path, const char *s, size_t n, char *err, size_t err_size) {
    blob b = {s, n};
    if (boids_atomic_write_own(path, fill_blob, &b) != BOIDS_OK) {
        snprintf(err, err_size, "%s: cannot be written (%s)", path, strerror(errno));
        return BOIDS_ERR_IO;
    }
    return BOIDS_OK;
}

static void run_path(const char *out_dir, uint32_t r, const char *ext, char *out, size_t size) {
    snprintf(out, size, "%s/runs/%06u%s", out_dir, r, ext);
}

// A run's file whole, or NULL (missing, unreadable, or not a regular file:
// a FIFO or a device in its place is never read, so a resume cannot hang on
// one; the run is then run again, and its files replace them).
static char *slurp(const char *path, size_t *len) {
    char why[256];
    FILE *f = boids_input_open(path, 0, 0, "a run's file", why, sizeof why);
    if (!f)
        return NULL;
    text t = {0};
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        put(&t, "%.*s", (int)got, buf);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || t.nomem) {
        free(t.s);
        return NULL;
    }
    if (!t.s)
        t.s = calloc(1, 1);
    *len = t.n;
    return t.s;
}

static bool make_dir(const char *path) {
    return mkdir(path, 0777) == 0 || errno == EEXIST;
}

// The expansion as CSV: run, values, seed, plan_hash (without it: as
// plan.csv was written before the column, with_hash false).
static char *plan_csv(const boids_plan *p, bool with_hash, size_t *len) {
    text t = {0};
    put(&t, "run");
    for (uint32_t k = 0; k < p->n_params; k++)
        put(&t, ",%s", p->param[k].key);
    put(&t, ",seed%s\n", with_hash ? ",plan_hash" : "");
    for (uint32_t r = 0; r < p->runs; r++) {
        put_lead(&t, p, r);
        if (with_hash)
            put(&t, ",%016llx", (unsigned long long)boids_plan_run_hash(p, r));
        put(&t, "\n");
    }
    if (t.nomem) {
        free(t.s);
        return NULL;
    }
    *len = t.n;
    return t.s;
}

boids_result boids_ensemble_prepare(const boids_plan *p, const char *out_dir, bool resume, char *err, size_t err_size) {
    if (!p || !out_dir) {
        snprintf(err, err_size, "boids_ensemble_prepare: %s is NULL; expected a plan and an output folder",
                 p ? "out_dir" : "the plan");
        return BOIDS_ERR_ARGUMENT;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/runs", out_dir);
    if (!make_dir(out_dir) || !make_dir(path)) {
        snprintf(err, err_size, "%s: cannot be made (%s); expected a folder for the results", path, strerror(errno));
        return BOIDS_ERR_IO;
    }
    size_t n = 0, have_n = 0, old_n = 0;
    char *want = plan_csv(p, true, &n);
    if (!want)
        return BOIDS_ERR_NOMEM;
    snprintf(path, sizeof path, "%s/plan.csv", out_dir);
    char *have = slurp(path, &have_n);
    // A plan.csv of before the plan_hash column: the same runs are this
    // plan's (its logs lack the hash too: every run runs again).
    char *old = have && (have_n != n || memcmp(have, want, n) != 0) ? plan_csv(p, false, &old_n) : NULL;
    bool older = old && old_n == have_n && memcmp(have, old, old_n) == 0;
    boids_result r = BOIDS_OK;
    if (have && !resume) {
        snprintf(err, err_size, "%s: holds the results of a plan; expected --resume (to finish it) or another --out",
                 out_dir);
        r = BOIDS_ERR_ARGUMENT;
    } else if (have && !older && (have_n != n || memcmp(have, want, n) != 0)) {
        // Steps, a swept value, a seed, a [log] key or the base scenario's
        // values differ: the runs done would not be this plan's.
        snprintf(err, err_size,
                 "%s: the plan changed since this folder was started (its runs, steps or settings differ); expected "
                 "the plan as it was (restore it) or another --out for the changed plan",
                 path);
        r = BOIDS_ERR_ARGUMENT;
    } else if (!have || older) {
        r = write_text(path, want, n, err, err_size);
    }
    free(have);
    free(old);
    free(want);
    // A killed job's half-written files (boids_atomic_write's ".NAME.tmp.PID.N"
    // of a run in flight, its snapshot say) go: the folder then holds only
    // whole files, the same as an uninterrupted job's. Those of a job still
    // running on the folder (a live PID) stay.
    snprintf(path, sizeof path, "%s/runs", out_dir);
    if (r == BOIDS_OK)
        boids_atomic_sweep(path);
    return r;
}

// Is text (n bytes) a whole JSON object as write_run writes them: "{" at
// the start, "}\n" at the end, no NUL, holding `needle`?
static bool whole_json(const char *text, size_t n, const char *needle) {
    return text && n >= 3 && text[0] == '{' && text[n - 2] == '}' && text[n - 1] == '\n' && strlen(text) == n &&
           strstr(text, needle);
}

// Is text (n bytes) a whole RUN.csv of run r: one or more lines, each
// "r,...,ok" or "r,...,failed" ending in a newline, all with as many fields.
static bool whole_csv(const char *text, size_t n, uint32_t r) {
    if (!text || !n || text[n - 1] != '\n' || strlen(text) != n)
        return false;
    char lead[16];
    int lead_len = snprintf(lead, sizeof lead, "%u,", r);
    long fields = -1;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = (size_t)(end - line);
        long commas = 0;
        for (const char *c = line; c < end; c++)
            commas += *c == ',';
        bool status = (len > 3 && memcmp(end - 3, ",ok", 3) == 0) || (len > 7 && memcmp(end - 7, ",failed", 7) == 0);
        if (strncmp(line, lead, (size_t)lead_len) != 0 || !status || (fields >= 0 && commas != fields))
            return false;
        fields = commas;
        line = end + 1;
    }
    return true;
}

// The value of a log's field `key` as write_run writes it (on its own
// line: "\n  \"KEY\": VALUE,"), into out without quotes; false when absent.
static bool json_field(const char *json, const char *key, char *out, size_t size) {
    char needle[64];
    snprintf(needle, sizeof needle, "\n  \"%s\": ", key);
    const char *v = strstr(json, needle);
    if (!v)
        return false;
    v += strlen(needle);
    bool quoted = *v == '"';
    v += quoted;
    size_t n = quoted ? strcspn(v, "\"\n") : strcspn(v, ",\n");
    if (n >= size)
        return false;
    snprintf(out, size, "%.*s", (int)n, v);
    return true;
}

// Does run r's snapshot at path load (on the CPU: the same bits), at the
// plan's steps, with the log's state hash?
static bool snapshot_agrees(const boids_plan *p, const char *path, const char *hash) {
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    boids_engine_desc d = {.backend = BOIDS_BACKEND_CPU, .threads = 1, .quiet = true, .silent_errors = true};
    boids_engine *e = NULL;
    char err[600], have[20];
    if (boids_engine_load(&e, path, &d, err, sizeof err) != BOIDS_OK)
        return false;
    snprintf(have, sizeof have, "%016llx", (unsigned long long)boids_engine_hash(e));
    bool same = boids_engine_steps(e) == p->steps && strcmp(have, hash) == 0;
    boids_engine_destroy(e);
    return same;
}

// Do run r's log (json) and rows (csv, n bytes) agree with each other and
// with the plan? *failed: the log says the run itself failed. with_snapshot:
// the snapshot is checked too ([log] snapshot).
static bool run_agrees(const boids_plan *p, const char *out_dir, uint32_t r, const char *json, const char *csv,
                       size_t n, bool with_snapshot, bool *failed) {
    char plan_hash[32], status[32], state_hash[32], csv_hash[32], want[20];
    if (!json_field(json, "plan_hash", plan_hash, sizeof plan_hash) ||
        !json_field(json, "status", status, sizeof status) ||
        !json_field(json, "state_hash", state_hash, sizeof state_hash) ||
        !json_field(json, "csv_hash", csv_hash, sizeof csv_hash))
        return false; // a log of before these fields: run again
    snprintf(want, sizeof want, "%016llx", (unsigned long long)boids_plan_run_hash(p, r));
    if (strcmp(plan_hash, want) != 0)
        return false;
    snprintf(want, sizeof want, "%016llx", (unsigned long long)fnv(csv, n));
    if (strcmp(csv_hash, want) != 0)
        return false;
    // The last row: ",HASH,ok" of the log's state hash, or the one row of a failed run.
    const char *last = n >= 2 ? csv + n - 2 : csv;
    while (last > csv && last[-1] != '\n')
        last--;
    char tail[64];
    *failed = strcmp(status, "failed") == 0;
    if (*failed) {
        snprintf(tail, sizeof tail, ",,failed\n");
        if (last != csv || strcmp(state_hash, "null") != 0)
            return false;
    } else if (strcmp(status, "ok") == 0 && strlen(state_hash) == 16) {
        snprintf(tail, sizeof tail, ",%s,ok\n", state_hash);
    } else {
        return false; // interrupted (the environment's failure), or a status of no run
    }
    size_t tl = strlen(tail);
    if (n < tl || memcmp(csv + n - tl, tail, tl) != 0)
        return false;
    if (!*failed && with_snapshot && p->snapshot) {
        char path[1200];
        run_path(out_dir, r, ".boids", path, sizeof path);
        return snapshot_agrees(p, path, state_hash);
    }
    return true;
}

// boids_ensemble_run_done; with_snapshot false: all but the snapshot (when
// results.csv is assembled, from runs checked or written by this job).
static bool run_done(const boids_plan *p, const char *out_dir, uint32_t r, bool with_snapshot, bool *failed) {
    bool f = false;
    if (failed)
        *failed = false;
    if (!p || !out_dir || r >= p->runs)
        return false;
    // Done only when every file of the run is there and whole (a file
    // truncated or removed after the .json was written: the run again) and
    // the files agree with each other and with the plan.
    char path[1200];
    size_t n = 0, nc = 0, nt = 0;
    run_path(out_dir, r, ".json", path, sizeof path);
    char *json = slurp(path, &n);
    run_path(out_dir, r, ".csv", path, sizeof path);
    char *csv = slurp(path, &nc);
    run_path(out_dir, r, ".time.json", path, sizeof path);
    char *times = slurp(path, &nt);
    bool done = whole_json(json, n, "\"state_hash\"") && whole_csv(csv, nc, r) && whole_json(times, nt, "\"run\"") &&
                run_agrees(p, out_dir, r, json, csv, nc, with_snapshot, &f);
    if (failed)
        *failed = done && f;
    free(json);
    free(csv);
    free(times);
    return done;
}

bool boids_ensemble_run_done(const boids_plan *p, const char *out_dir, uint32_t r, bool *failed) {
    return run_done(p, out_dir, r, true, failed);
}

boids_result boids_ensemble_write_run(const char *out_dir, const boids_run_output *o, char *err, size_t err_size) {
    if (!out_dir || !o || !o->csv || !o->json || !o->time_json) {
        snprintf(err, err_size, "boids_ensemble_write_run: %s is NULL; expected an output folder and a run's output",
                 !out_dir ? "out_dir" : !o ? "the output" : "the output's text");
        return BOIDS_ERR_ARGUMENT;
    }
    char path[1200];
    run_path(out_dir, o->run, ".csv", path, sizeof path);
    boids_result r = write_text(path, o->csv, strlen(o->csv), err, err_size);
    if (r == BOIDS_OK) {
        run_path(out_dir, o->run, ".time.json", path, sizeof path);
        r = write_text(path, o->time_json, strlen(o->time_json), err, err_size);
    }
    if (r == BOIDS_OK) { // last: a run with its .json is done
        run_path(out_dir, o->run, ".json", path, sizeof path);
        r = write_text(path, o->json, strlen(o->json), err, err_size);
    }
    return r;
}

typedef struct assemble_ctx {
    const boids_plan *p;
    const char *out_dir;
    uint32_t failed;
    char *err;
    size_t err_size;
    bool missing;
} assemble_ctx;

static bool fill_results(FILE *f, void *user) {
    assemble_ctx *a = user;
    char header[4096];
    boids_plan_csv_header(a->p, header, sizeof header);
    if (fprintf(f, "%s\n", header) < 0)
        return false;
    for (uint32_t r = 0; r < a->p->runs; r++) {
        char path[1200];
        run_path(a->out_dir, r, ".csv", path, sizeof path);
        size_t n = 0;
        char *s = run_done(a->p, a->out_dir, r, false, NULL) ? slurp(path, &n) : NULL;
        if (!s) {
            snprintf(a->err, a->err_size, "%s: missing; expected every run's results (run again with --resume)", path);
            a->missing = true;
            errno = ENOENT;
            return false;
        }
        if (n >= 7 && memcmp(s + n - 7, "failed\n", 7) == 0)
            a->failed++;
        bool ok = fwrite(s, 1, n, f) == n;
        free(s);
        if (!ok)
            return false;
    }
    return true;
}

boids_result boids_ensemble_assemble(const boids_plan *p, const char *out_dir, uint32_t *failed, char *err,
                                     size_t err_size) {
    if (failed)
        *failed = 0;
    if (!p || !out_dir) {
        snprintf(err, err_size, "boids_ensemble_assemble: %s is NULL; expected a plan and its output folder",
                 p ? "out_dir" : "the plan");
        return BOIDS_ERR_ARGUMENT;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/results.csv", out_dir);
    assemble_ctx a = {p, out_dir, 0, err, err_size, false};
    if (boids_atomic_write_own(path, fill_results, &a) != BOIDS_OK) {
        if (!a.missing)
            snprintf(err, err_size, "%s: cannot be written (%s)", path, strerror(errno));
        return BOIDS_ERR_IO;
    }
    if (failed)
        *failed = a.failed;
    return BOIDS_OK;
}

// ---- a plan in this process ------------------------------------------------------------

typedef struct runner {
    const boids_plan *p;
    const boids_ensemble_desc *d;
    uint32_t *todo, n_todo;
    uint32_t next; // the next index of todo to take
    uint32_t done, failed, written;
    boids_result error; // the first write error (stops the taking)
    char err[1200];
    boids_engine_headless *headless;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    // Finished outputs waiting for the calling thread to write (threads hand them over).
    boids_run_output *ready;
    uint32_t n_ready, active;
    // The work (agent-steps, run_weight) of the plan, and done: runs done whole, runs in flight their steps so far.
    double work_total, work_done, work_reported_at;
} runner;

// What one step of run r weighs in the plan's work: its world.count where
// the plan sweeps it (a step's cost grows with the agents), else 1.
static double run_weight(const boids_plan *p, uint32_t r) {
    for (uint32_t k = 0; k < p->n_params; k++)
        if (strcmp(p->param[k].key, "world.count") == 0) {
            double v = strtod(boids_plan_run_value(p, r, k), NULL);
            return v >= 1 && v <= 1e12 ? v : 1;
        }
    return 1;
}

// The share of the work done to desc's work callback (the calling thread
// only): at most every half second unless `now`.
static void report_work(runner *R, bool now) {
    if (!R->d->work)
        return;
    double t = now_s();
    if (!now && t - R->work_reported_at < 0.5)
        return;
    R->work_reported_at = t;
    pthread_mutex_lock(&R->lock);
    double f = R->work_total > 0 ? R->work_done / R->work_total : 1;
    pthread_mutex_unlock(&R->lock);
    R->d->work(R->d->user, f < 0 ? 0 : f > 1 ? 1 : f);
}

// One run's steps as they are done (boids_run_env's stepped): its weight in
// the runner's work; on the calling thread (one job) reported from here.
typedef struct run_meter {
    runner *R;
    double weight;
    uint64_t steps; // reported so far
    bool calling_thread;
} run_meter;

static void on_stepped(void *user, uint64_t steps) {
    run_meter *m = user;
    m->steps += steps;
    pthread_mutex_lock(&m->R->lock);
    m->R->work_done += m->weight * (double)steps;
    pthread_mutex_unlock(&m->R->lock);
    if (m->calling_thread)
        report_work(m->R, false);
}

// A run has ended: the steps it did not report (it failed early) count as done.
static void meter_end(run_meter *m) {
    uint64_t steps = m->R->p->steps;
    if (m->steps < steps)
        m->R->work_done += m->weight * (double)(steps - m->steps); // the caller holds the lock or is alone
}

// Writes one output and reports progress (the calling thread only).
static void finish_run(runner *R, boids_run_output *o) {
    char err[1200];
    const boids_ensemble_desc *d = R->d;
    if (R->error == BOIDS_OK) {
        boids_result w = boids_ensemble_write_run(d->out_dir, o, err, sizeof err);
        if (w == BOIDS_OK && o->interrupted) { // recorded; the environment stops the job
            w = BOIDS_ERR_IO;
            snprintf(err, sizeof err, "run %u: %.900s; recorded as interrupted (--resume runs it again)", o->run,
                     o->message);
        }
        if (w != BOIDS_OK) {
            pthread_mutex_lock(&R->lock); // the workers read it to stop taking runs
            R->error = w;
            snprintf(R->err, sizeof R->err, "%s", err);
            pthread_mutex_unlock(&R->lock);
        } else {
            R->done++;
            R->failed += !o->ok;
            R->written++;
            if (d->progress)
                d->progress(d->user, R->done, R->failed, R->p->runs);
            report_work(R, true);
            if (d->kill_after && R->written >= d->kill_after)
                raise(SIGKILL); // tests: a job killed with runs in flight
        }
    }
    boids_ensemble_output_free(o);
}

static void *worker(void *arg) {
    runner *R = arg;
    pthread_mutex_lock(&R->lock);
    int id = (int)R->active++;
    for (;;) {
        if (R->next >= R->n_todo || R->error != BOIDS_OK)
            break;
        uint32_t r = R->todo[R->next++];
        pthread_mutex_unlock(&R->lock);
        char snap[1200];
        if (R->p->snapshot)
            run_path(R->d->out_dir, r, ".boids", snap, sizeof snap);
        run_meter m = {R, run_weight(R->p, r), 0, false};
        boids_run_env env = {.threads = R->d->threads,
                             .headless = R->headless,
                             .snapshot_path = R->p->snapshot ? snap : NULL,
                             .worker = id,
                             .stepped = R->d->work ? on_stepped : NULL,
                             .stepped_user = &m};
        boids_run_output o;
        boids_result res = boids_ensemble_run_one(R->p, r, &env, &o);
        pthread_mutex_lock(&R->lock);
        meter_end(&m);
        if (res != BOIDS_OK) {
            if (R->error == BOIDS_OK) {
                R->error = res;
                snprintf(R->err, sizeof R->err, "run %u: %s", r, boids_result_str(res));
            }
            break;
        }
        R->ready[R->n_ready++] = o;
        pthread_cond_signal(&R->wake);
    }
    R->active--;
    pthread_cond_signal(&R->wake);
    pthread_mutex_unlock(&R->lock);
    return NULL;
}

boids_result boids_ensemble_run(const boids_plan *p, const boids_ensemble_desc *d, uint32_t *failed, char *err,
                                size_t err_size) {
    if (failed)
        *failed = 0;
    if (!p || !d) {
        snprintf(err, err_size, "boids_ensemble_run: %s is NULL; expected a plan and a boids_ensemble_desc",
                 p ? "the desc" : "the plan");
        return BOIDS_ERR_ARGUMENT;
    }
    boids_result res = boids_ensemble_prepare(p, d->out_dir, d->resume, err, err_size);
    if (res != BOIDS_OK)
        return res;
    runner R = {.p = p, .d = d};
    R.todo = malloc(sizeof *R.todo * (p->runs ? p->runs : 1));
    R.ready = malloc(sizeof *R.ready * (p->runs ? p->runs : 1));
    if (!R.todo || !R.ready) {
        free(R.todo);
        free(R.ready);
        return BOIDS_ERR_NOMEM;
    }
    for (uint32_t r = 0; r < p->runs; r++) {
        bool f = false;
        if (!boids_ensemble_run_done(p, d->out_dir, r, &f))
            R.todo[R.n_todo++] = r;
        R.failed += f;
    }
    R.done = p->runs - R.n_todo;
    for (uint32_t r = 0, i = 0; r < p->runs; r++) {
        double w = run_weight(p, r) * (double)p->steps;
        R.work_total += w;
        if (i < R.n_todo && R.todo[i] == r)
            i++;
        else
            R.work_done += w;
    }
    int jobs = d->jobs > 0 ? d->jobs : 1;
    if (p->backend == BOIDS_BACKEND_GPU) {
        jobs = 1; // one context, one run after another
        if (R.n_todo) {
            res = boids_engine_headless_open(&R.headless, err, err_size);
            if (res != BOIDS_OK) {
                free(R.todo);
                free(R.ready);
                return res;
            }
        }
    }
    if ((uint32_t)jobs > R.n_todo)
        jobs = R.n_todo ? (int)R.n_todo : 1;
    pthread_mutex_init(&R.lock, NULL);
    pthread_cond_init(&R.wake, NULL);
    report_work(&R, true); // the share already done (--resume): the start of the estimate
    if (jobs == 1 || p->backend == BOIDS_BACKEND_GPU) {
        // On this thread (the GPU context is current here).
        R.active = 0;
        for (uint32_t i = 0; i < R.n_todo && R.error == BOIDS_OK; i++) {
            uint32_t r = R.todo[i];
            char snap[1200];
            if (p->snapshot)
                run_path(d->out_dir, r, ".boids", snap, sizeof snap);
            run_meter m = {&R, run_weight(p, r), 0, true};
            boids_run_env env = {.threads = d->threads,
                                 .headless = R.headless,
                                 .snapshot_path = p->snapshot ? snap : NULL,
                                 .stepped = d->work ? on_stepped : NULL,
                                 .stepped_user = &m};
            boids_run_output o;
            res = boids_ensemble_run_one(p, r, &env, &o);
            meter_end(&m);
            if (res != BOIDS_OK) {
                R.error = res;
                snprintf(R.err, sizeof R.err, "run %u: %s", r, boids_result_str(res));
                break;
            }
            finish_run(&R, &o);
        }
    } else {
        pthread_t *th = malloc(sizeof *th * (size_t)jobs);
        int started = 0;
        pthread_mutex_lock(&R.lock);
        for (int j = 0; th && j < jobs; j++)
            if (pthread_create(&th[j], NULL, worker, &R) == 0)
                started++;
        if (started == 0) {
            R.error = BOIDS_ERR_NOMEM;
            snprintf(R.err, sizeof R.err, "no thread could be started");
        }
        // Write outputs as they come, on this thread, until every worker is done.
        while (started && (R.active > 0 || R.n_ready > 0 || R.next < R.n_todo) && R.error == BOIDS_OK) {
            if (R.n_ready == 0) { // wakes at least every half second to report the work done
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_nsec += 500000000L;
                if (until.tv_nsec >= 1000000000L) {
                    until.tv_sec++;
                    until.tv_nsec -= 1000000000L;
                }
                pthread_cond_timedwait(&R.wake, &R.lock, &until);
                pthread_mutex_unlock(&R.lock);
                report_work(&R, false);
                pthread_mutex_lock(&R.lock);
                continue;
            }
            boids_run_output o = R.ready[--R.n_ready];
            pthread_mutex_unlock(&R.lock);
            finish_run(&R, &o);
            pthread_mutex_lock(&R.lock);
        }
        pthread_mutex_unlock(&R.lock);
        for (int j = 0; j < started; j++)
            pthread_join(th[j], NULL);
        while (R.n_ready > 0) // after an error: what finished meanwhile is still written if it can be
            finish_run(&R, &R.ready[--R.n_ready]);
        free(th);
    }
    pthread_mutex_destroy(&R.lock);
    pthread_cond_destroy(&R.wake);
    boids_engine_headless_close(R.headless);
    free(R.todo);
    free(R.ready);
    if (R.error != BOIDS_OK) {
        snprintf(err, err_size, "%s", R.err);
        return R.error;
    }
    return boids_ensemble_assemble(p, d->out_dir, failed, err, err_size);
}
