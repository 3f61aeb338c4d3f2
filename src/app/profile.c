// src/app/profile.c: the frame-time profile recorder of --profile (see
// profile.h for the formats). Rows in memory; one write at exit through a
// temporary file in the same directory (boids_atomic_write: fsync, rename,
// fsync of the directory).
#include "profile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "boids/atomic.h"
#include "boids/core.h"
#include "cli.h"

#define EXIT_INPUT 2
#define EXIT_ENVIRONMENT 3

const char *const boids_profile_stage_names[BOIDS_PROFILE_STAGES] = {"key",   "count",     "scan",   "scatter",
                                                                     "steer", "integrate", "bodies", "draw"};

typedef enum profile_format { FORMAT_CSV, FORMAT_JSON } profile_format;

struct boids_profile {
    const char *prog;
    char *path;
    const char *backend;
    uint32_t stages;
    profile_format format;
    boids_profile_row *rows;
    size_t n, cap;
    uint64_t dropped;
};

static const char *const expected_path = "a .csv or .json file in an existing, writable directory";

// Does `s` end in `suffix` (ASCII case-insensitive)?
static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    if (n <= k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return false;
    }
    return true;
}

int boids_profile_open(boids_profile **out, const char *prog, const char *path, const char *backend, uint32_t stages) {
    *out = NULL;
    profile_format format;
    if (ends_with(path, ".csv"))
        format = FORMAT_CSV;
    else if (ends_with(path, ".json"))
        format = FORMAT_JSON;
    else {
        boids_cli_error(prog, "--profile", path, expected_path, "has an unknown extension");
        return EXIT_INPUT;
    }
    int rc = boids_cli_check_output(prog, "--profile", path, expected_path);
    if (rc)
        return rc;
    boids_profile *p = calloc(1, sizeof *p);
    char *copy = p ? strdup(path) : NULL;
    if (!copy) {
        free(p);
        boids_cli_error(prog, "--profile", path, NULL, "cannot be recorded: out of memory");
        return EXIT_ENVIRONMENT;
    }
    p->prog = prog;
    p->path = copy;
    p->backend = backend;
    p->stages = stages;
    p->format = format;
    *out = p;
    return 0;
}

void boids_profile_add(boids_profile *p, const boids_profile_row *row) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        if (cap > BOIDS_PROFILE_MAX_ROWS)
            cap = BOIDS_PROFILE_MAX_ROWS;
        boids_profile_row *rows = cap > p->cap ? realloc(p->rows, cap * sizeof *rows) : NULL;
        if (!rows) {
            p->dropped++;
            return;
        }
        p->rows = rows;
        p->cap = cap;
    }
    p->rows[p->n++] = *row;
}

// The rows as CSV (columns in profile.h).
static void write_csv(const boids_profile *p, FILE *f) {
    fprintf(f, "step,time_ms,frame_ms");
    for (int s = 0; s < BOIDS_PROFILE_STAGES; s++)
        fprintf(f, ",%s_ms", boids_profile_stage_names[s]);
    fprintf(f, ",agents,backend,behaviors\n");
    double t0 = p->n ? p->rows[0].time_ms : 0;
    for (size_t i = 0; i < p->n; i++) {
        const boids_profile_row *r = &p->rows[i];
        char behaviors[400];
        boids_behaviors_text(r->behaviors, "+", behaviors, sizeof behaviors);
        fprintf(f, "%llu,%.6f,%.6f", (unsigned long long)r->step, r->time_ms - t0, r->frame_ms);
        for (int s = 0; s < BOIDS_PROFILE_STAGES; s++)
            fprintf(f, ",%.6f", (p->stages & (1u << s)) && r->stage_ms[s] > 0 ? r->stage_ms[s] : 0.0);
        fprintf(f, ",%u,%s,%s\n", r->agents, p->backend, behaviors);
    }
}

static void write_json(const boids_profile *p, FILE *f) {
    bool gpu = strcmp(p->backend, "gpu") == 0;
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"%s\"}},\n", p->prog);
    fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"CPU\"}},\n");
    fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"%s\"}},\n",
            gpu ? "GPU" : "CPU stages");
    fprintf(f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"sort_index\":1}},\n");
    fprintf(f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"sort_index\":2}}");
    double t0 = p->n ? p->rows[0].time_ms : 0;
    double cursor = 0; // µs: end of the previous step's events
    for (size_t i = 0; i < p->n; i++) {
        const boids_profile_row *r = &p->rows[i];
        char behaviors[400];
        boids_behaviors_text(r->behaviors, "+", behaviors, sizeof behaviors);
        double ts = (r->time_ms - t0) * 1e3;
        if (ts < cursor)
            ts = cursor;
        double dur = r->frame_ms > 0 ? r->frame_ms * 1e3 : 0;
        fprintf(f,
                ",\n{\"name\":\"step\",\"cat\":\"step\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,"
                "\"args\":{\"step\":%llu,\"agents\":%u,\"behaviors\":\"%s\"}}",
                ts, dur, (unsigned long long)r->step, r->agents, behaviors);
        double at = ts;
        for (int s = 0; s < BOIDS_PROFILE_STAGES; s++) {
            if (!(p->stages & (1u << s)))
                continue;
            double d = r->stage_ms[s] > 0 ? r->stage_ms[s] * 1e3 : 0;
            fprintf(f,
                    ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":%.3f,\"dur\":%.3f,"
                    "\"args\":{\"step\":%llu}}",
                    boids_profile_stage_names[s], gpu ? "gpu" : "cpu", at, d, (unsigned long long)r->step);
            at += d;
        }
        cursor = at > ts + dur ? at : ts + dur;
    }
    fprintf(f, "\n]}\n");
}

// Writes the rows of p to f in its format (a boids_atomic_fill).
static bool fill_profile(FILE *f, void *ctx) {
    const boids_profile *p = ctx;
    if (p->format == FORMAT_CSV)
        write_csv(p, f);
    else
        write_json(p, f);
    return !ferror(f);
}

// Writes the file through a temporary one (boids_atomic_write); see profile.h.
int boids_profile_write_quiet(boids_profile *p, char *why, size_t why_size) {
    boids_result r = boids_atomic_write(p->path, fill_profile, p);
    if (r == BOIDS_OK)
        return 0;
    snprintf(why, why_size, "%s", r == BOIDS_ERR_NOMEM ? "out of memory" : strerror(errno));
    return EXIT_ENVIRONMENT;
}

// Writes the file; a failure is one line (see profile.h).
int boids_profile_write(boids_profile *p) {
    char why[256];
    int before = boids_cli_interrupted();
    int rc = boids_profile_write_quiet(p, why, sizeof why);
    if (rc) {
        int cut = boids_cli_cut_by_signal(p->prog, "--profile", p->path, before);
        if (cut)
            return cut;
        boids_cli_error(p->prog, "--profile", p->path, NULL, "could not be written: %s", why);
    }
    return rc;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Value at fraction q of sorted v[0..n-1] (nearest rank).
static double quantile(const double *v, size_t n, double q) {
    size_t k = (size_t)(q * (double)n + 0.999999);
    k = k ? k - 1 : 0;
    return v[k < n ? k : n - 1];
}

void boids_profile_summary(const boids_profile *p, FILE *f) {
    fprintf(f, "profile: %s: %zu steps recorded", p->path, p->n);
    if (p->dropped)
        fprintf(f, " (%llu more not kept)", (unsigned long long)p->dropped);
    fprintf(f, "\n");
    if (!p->n)
        return;
    double *v = malloc(p->n * sizeof *v);
    if (!v)
        return;
    fprintf(f, "profile: %-10s %10s %10s %10s %10s   (ms, %s stage times)\n", "stage", "min", "median", "p95", "max",
            p->backend);
    for (int s = -1; s < BOIDS_PROFILE_STAGES; s++) {
        if (s >= 0 && !(p->stages & (1u << s)))
            continue;
        for (size_t i = 0; i < p->n; i++)
            v[i] = s < 0 ? p->rows[i].frame_ms : p->rows[i].stage_ms[s];
        qsort(v, p->n, sizeof *v, cmp_double);
        double med = p->n % 2 ? v[p->n / 2] : 0.5 * (v[p->n / 2 - 1] + v[p->n / 2]);
        fprintf(f, "profile: %-10s %10.4f %10.4f %10.4f %10.4f\n", s < 0 ? "frame" : boids_profile_stage_names[s], v[0],
                med, quantile(v, p->n, 0.95), v[p->n - 1]);
    }
    free(v);
}

void boids_profile_destroy(boids_profile *p) {
    if (!p)
        return;
    free(p->rows);
    free(p->path);
    free(p);
}
