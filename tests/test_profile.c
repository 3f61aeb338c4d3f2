// tests/test_profile.c: --profile FILE of boids-run and boids-bench, and
// tools/plot_profile.py, through the real executables (posix_spawn, no
// shell; output captured under BOIDS_TEST_TMP). The CSV is checked column by
// column against its header; the JSON is parsed by a strict recursive-descent
// JSON parser (below, RFC 8259) and checked as a Chrome trace: one complete
// event per stage per step on the stage track, one step event per step on the
// CPU track, timestamps non-decreasing. A path that cannot be written fails at
// start-up with exit 2 and leaves no file. The GPU's stage times split the
// step alike in boids-bench, boids-bench --render and the viewer's
// --profile (under xvfb-run). Label `profile`.
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#ifndef BOIDS_SOURCE_DIR
#error "BOIDS_SOURCE_DIR must name the source tree (for tools/plot_profile.py)"
#endif

#define BENCH_BIN BOIDS_BIN_DIR "/boids-bench"
#define VIEWER_BIN BOIDS_BIN_DIR "/boids"
#define PLOT_PY BOIDS_SOURCE_DIR "/tools/plot_profile.py"
#define PYTHON "/usr/bin/python3" // Debian's, which sees python3-matplotlib
#define MAX_ARGS 64

static const char *const stage_names[6] = {"key", "count", "scan", "scatter", "steer", "integrate"};
static const char *const csv_columns[] = {"step",    "time_ms",    "frame_ms", "key_ms",       "count_ms",
                                          "scan_ms", "scatter_ms", "steer_ms", "integrate_ms", "bodies_ms",
                                          "draw_ms", "agents",     "backend",  "behaviors"};
#define CSV_COLUMNS (sizeof csv_columns / sizeof csv_columns[0])

// ---- running the executables (tests/spawn.c) ----

// Runs `bin` with argv (argv[0] included, NULL-terminated); waits for it.
static run_result run_exe(const char *bin, const char *const *args) {
    return boids_test_run(bin, args, TMP, "profile");
}

#define run_free boids_test_run_free
#define slurp boids_test_slurp
#define slurp_len boids_test_slurp_len

static void assert_exit(const char *bin, const run_result *r, int code) {
    ck_assert_msg(r->spawned, "expected to start %s", bin);
    ck_assert_msg(!WIFSIGNALED(r->status), "expected exit status %d from %s, got signal %d; stderr: %s", code, bin,
                  WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0, r->err);
    ck_assert_msg(WIFEXITED(r->status) && WEXITSTATUS(r->status) == code,
                  "expected exit status %d from %s, got %d; stderr: %s", code, bin, WEXITSTATUS(r->status), r->err);
}

// A fresh scratch directory for one test: TMP/profile-NAME-PID.
static void scratch_dir(char *buf, size_t size, const char *name) {
    mkdir(TMP, 0755);
    snprintf(buf, size, "%s/profile-%s-%ld", TMP, name, (long)getpid());
    ck_assert_msg(mkdir(buf, 0755) == 0 || errno == EEXIST, "expected to create %s: %s", buf, strerror(errno));
}

// Asserts that `dir` holds exactly the file names in `names` (NULL-terminated):
// no temporary files or probes left behind.
static void assert_dir_holds(const char *dir, const char *const *names) {
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "expected to open %s", dir);
    size_t want = 0;
    while (names[want])
        want++;
    size_t seen = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        bool known = false;
        for (size_t i = 0; i < want; i++)
            known = known || strcmp(e->d_name, names[i]) == 0;
        ck_assert_msg(known, "expected no file '%s' in %s (temporary file or probe left behind?)", e->d_name, dir);
        seen++;
    }
    closedir(d);
    ck_assert_msg(seen == want, "expected %zu files in %s, found %zu", want, dir, seen);
}

// Removes the files of a scratch directory, then the directory.
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            rmdir(path);
    }
    closedir(d);
    rmdir(dir);
}

// ---- a strict JSON parser (RFC 8259), recursive descent ----

typedef enum { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jval {
    jtype type;
    double number;
    char *string;        // J_STRING (decoded; \u escapes above ASCII become '?')
    struct jval **items; // J_ARRAY elements, J_OBJECT values
    char **keys;         // J_OBJECT keys
    size_t n;
} jval;

typedef struct jparser {
    const char *s;
    size_t pos, len;
    int depth;
    char err[160];
} jparser;

static jval *j_value(jparser *p);

static void j_fail(jparser *p, const char *what) {
    if (!p->err[0])
        snprintf(p->err, sizeof p->err, "%s at byte %zu", what, p->pos);
}

static void j_ws(jparser *p) {
    while (p->pos < p->len &&
           (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static jval *j_new(jtype t) {
    jval *v = calloc(1, sizeof *v);
    ck_assert_msg(v != NULL, "expected calloc to succeed");
    v->type = t;
    return v;
}

static void j_free(jval *v) {
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        j_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

static int j_hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// A string starting at the opening quote; returns the decoded text or NULL.
static char *j_string(jparser *p) {
    if (p->pos >= p->len || p->s[p->pos] != '"') {
        j_fail(p, "expected '\"'");
        return NULL;
    }
    p->pos++;
    size_t cap = 16, n = 0;
    char *out = malloc(cap);
    ck_assert_msg(out != NULL, "expected malloc to succeed");
    for (;;) {
        if (p->pos >= p->len) {
            j_fail(p, "unterminated string");
            free(out);
            return NULL;
        }
        unsigned char c = (unsigned char)p->s[p->pos++];
        if (c == '"')
            break;
        if (c < 0x20) {
            j_fail(p, "control character in string");
            free(out);
            return NULL;
        }
        if (c == '\\') {
            if (p->pos >= p->len) {
                j_fail(p, "unterminated escape");
                free(out);
                return NULL;
            }
            char e = p->s[p->pos++];
            switch (e) {
            case '"':
                c = '"';
                break;
            case '\\':
                c = '\\';
                break;
            case '/':
                c = '/';
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'n':
                c = '\n';
                break;
            case 'r':
                c = '\r';
                break;
            case 't':
                c = '\t';
                break;
            case 'u': {
                int code = 0;
                for (int k = 0; k < 4; k++) {
                    int h = p->pos < p->len ? j_hex(p->s[p->pos]) : -1;
                    if (h < 0) {
                        j_fail(p, "bad \\u escape");
                        free(out);
                        return NULL;
                    }
                    code = code * 16 + h;
                    p->pos++;
                }
                c = code < 0x80 ? (unsigned char)code : '?';
                break;
            }
            default:
                j_fail(p, "bad escape");
                free(out);
                return NULL;
            }
        }
        if (n + 2 > cap) {
            cap *= 2;
            out = realloc(out, cap);
            ck_assert_msg(out != NULL, "expected realloc to succeed");
        }
        out[n++] = (char)c;
    }
    out[n] = '\0';
    return out;
}

static bool j_digit(const jparser *p) {
    return p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9';
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
static jval *j_number(jparser *p) {
    size_t start = p->pos;
    if (p->pos < p->len && p->s[p->pos] == '-')
        p->pos++;
    if (!j_digit(p)) {
        j_fail(p, "bad number");
        return NULL;
    }
    if (p->s[p->pos] == '0')
        p->pos++;
    else
        while (j_digit(p))
            p->pos++;
    if (p->pos < p->len && p->s[p->pos] == '.') {
        p->pos++;
        if (!j_digit(p)) {
            j_fail(p, "bad fraction");
            return NULL;
        }
        while (j_digit(p))
            p->pos++;
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (!j_digit(p)) {
            j_fail(p, "bad exponent");
            return NULL;
        }
        while (j_digit(p))
            p->pos++;
    }
    char buf[64];
    size_t k = p->pos - start;
    if (k >= sizeof buf) {
        j_fail(p, "number too long");
        return NULL;
    }
    memcpy(buf, p->s + start, k);
    buf[k] = '\0';
    jval *v = j_new(J_NUMBER);
    v->number = strtod(buf, NULL);
    return v;
}

static void j_push(jval *v, char *key, jval *item, size_t *cap) {
    if (v->n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        v->items = realloc(v->items, *cap * sizeof *v->items);
        ck_assert_msg(v->items != NULL, "expected realloc to succeed");
        if (v->type == J_OBJECT) {
            v->keys = realloc(v->keys, *cap * sizeof *v->keys);
            ck_assert_msg(v->keys != NULL, "expected realloc to succeed");
        }
    }
    if (v->type == J_OBJECT)
        v->keys[v->n] = key;
    v->items[v->n++] = item;
}

// An array or object starting at its bracket.
static jval *j_container(jparser *p, bool object) {
    if (++p->depth > 64) {
        j_fail(p, "nested too deeply");
        return NULL;
    }
    p->pos++; // '[' or '{'
    jval *v = j_new(object ? J_OBJECT : J_ARRAY);
    size_t cap = 0;
    char close = object ? '}' : ']';
    j_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        p->depth--;
        return v;
    }
    for (;;) {
        char *key = NULL;
        j_ws(p);
        if (object) {
            if (!(key = j_string(p)))
                goto fail;
            j_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(key);
                j_fail(p, "expected ':'");
                goto fail;
            }
            p->pos++;
        }
        jval *item = j_value(p);
        if (!item) {
            free(key);
            goto fail;
        }
        j_push(v, key, item, &cap);
        j_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            p->depth--;
            return v;
        }
        j_fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
        goto fail;
    }
fail:
    j_free(v);
    return NULL;
}

static bool j_literal(jparser *p, const char *word) {
    size_t k = strlen(word);
    if (p->len - p->pos >= k && memcmp(p->s + p->pos, word, k) == 0) {
        p->pos += k;
        return true;
    }
    return false;
}

static jval *j_value(jparser *p) {
    j_ws(p);
    if (p->pos >= p->len) {
        j_fail(p, "unexpected end");
        return NULL;
    }
    char c = p->s[p->pos];
    if (c == '{' || c == '[')
        return j_container(p, c == '{');
    if (c == '"') {
        char *s = j_string(p);
        if (!s)
            return NULL;
        jval *v = j_new(J_STRING);
        v->string = s;
        return v;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return j_number(p);
    if (j_literal(p, "true"))
        return j_new(J_TRUE);
    if (j_literal(p, "false"))
        return j_new(J_FALSE);
    if (j_literal(p, "null"))
        return j_new(J_NULL);
    j_fail(p, "unexpected character");
    return NULL;
}

// Parses a whole document (nothing but whitespace after the value).
static jval *j_parse(const char *s, size_t len, char *err, size_t err_size) {
    jparser p = {.s = s, .len = len};
    jval *v = j_value(&p);
    if (v) {
        j_ws(&p);
        if (p.pos != p.len) {
            j_fail(&p, "trailing characters");
            j_free(v);
            v = NULL;
        }
    }
    snprintf(err, err_size, "%s", p.err);
    return v;
}

static const jval *j_get(const jval *obj, const char *key) {
    if (!obj || obj->type != J_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

static double j_num(const jval *obj, const char *key, const char *what) {
    const jval *v = j_get(obj, key);
    ck_assert_msg(v && v->type == J_NUMBER, "expected %s to have a number \"%s\"", what, key);
    return v->number;
}

static const char *j_str(const jval *obj, const char *key, const char *what) {
    const jval *v = j_get(obj, key);
    ck_assert_msg(v && v->type == J_STRING, "expected %s to have a string \"%s\"", what, key);
    return v->string;
}

// ---- checks of the formats ----

// Splits one CSV line (no quoting in profiles) into at most max fields, in place.
static size_t split_csv(char *line, char **fields, size_t max) {
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n < max)
            fields[n] = p;
        n++;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

// Checks a profile CSV: the header's columns, `rows` data rows with as many
// fields, steps 1.. in order (restarting per agent count for a bench), every
// time a finite number >= 0, agents one of `agents` (0-terminated).
static void check_csv(const char *path, size_t rows, const char *backend, const uint32_t *agents) {
    char *text = slurp_len(path, NULL);
    ck_assert_msg(text != NULL, "expected %s to exist", path);
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    ck_assert_msg(line != NULL, "expected a header row in %s", path);
    char *fields[32];
    size_t n = split_csv(line, fields, 32);
    ck_assert_msg(n == CSV_COLUMNS, "expected %zu columns in the header of %s, got %zu", CSV_COLUMNS, path, n);
    for (size_t i = 0; i < CSV_COLUMNS; i++)
        ck_assert_msg(strcmp(fields[i], csv_columns[i]) == 0, "expected column %zu of %s to be '%s', got '%s'", i, path,
                      csv_columns[i], fields[i]);
    size_t count = 0;
    unsigned long long prev_step = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        count++;
        n = split_csv(line, fields, 32);
        ck_assert_msg(n == CSV_COLUMNS, "expected %zu fields in row %zu of %s, got %zu", CSV_COLUMNS, count, path, n);
        char *end;
        unsigned long long step = strtoull(fields[0], &end, 10);
        ck_assert_msg(*end == '\0' && (step == prev_step + 1 || step == 1),
                      "expected step %llu (or 1) in row %zu of %s, got '%s'", prev_step + 1, count, path, fields[0]);
        prev_step = step;
        for (size_t i = 1; i <= 10; i++) {
            double v = strtod(fields[i], &end);
            ck_assert_msg(*end == '\0' && isfinite(v) && v >= 0,
                          "expected column %s of row %zu of %s to be a time >= 0, got '%s'", csv_columns[i], count,
                          path, fields[i]);
        }
        unsigned long a = strtoul(fields[11], &end, 10);
        bool known = false;
        for (size_t i = 0; agents[i]; i++)
            known = known || a == agents[i];
        ck_assert_msg(*end == '\0' && known, "expected an agent count of the run in row %zu of %s, got '%s'", count,
                      path, fields[11]);
        ck_assert_msg(strcmp(fields[12], backend) == 0, "expected backend %s in row %zu of %s, got '%s'", backend,
                      count, path, fields[12]);
        ck_assert_msg(strcmp(fields[13], "separation+alignment+cohesion") == 0,
                      "expected the default behaviours in row %zu of %s, got '%s'", count, path, fields[13]);
    }
    ck_assert_msg(count == rows, "expected %zu data rows in %s, got %zu", rows, path, count);
    free(text);
}

// Checks a Chrome trace: parses, the tracks named, per step one "step"
// event on tid 1 and one event per stage on tid 2, every ts non-decreasing
// in file order, dur >= 0, the stage events of a step end to end.
static void check_trace(const char *path, size_t steps, const char *stage_track) {
    size_t len = 0;
    char *text = slurp_len(path, &len);
    ck_assert_msg(text != NULL, "expected %s to exist", path);
    char err[160];
    jval *doc = j_parse(text, len, err, sizeof err);
    ck_assert_msg(doc != NULL, "expected %s to be valid JSON: %s", path, err);
    ck_assert_msg(doc->type == J_OBJECT, "expected a JSON object at the top of %s", path);
    const jval *events = j_get(doc, "traceEvents");
    ck_assert_msg(events && events->type == J_ARRAY, "expected an array \"traceEvents\" in %s", path);
    size_t step_events = 0, stage_events[6] = {0};
    bool named[3] = {false, false, false};
    double last_ts = -1, stage_end = 0;
    uint64_t current_step = 0;
    for (size_t i = 0; i < events->n; i++) {
        const jval *e = events->items[i];
        ck_assert_msg(e->type == J_OBJECT, "expected event %zu of %s to be an object", i, path);
        const char *ph = j_str(e, "ph", "every event");
        const char *name = j_str(e, "name", "every event");
        double tid = j_num(e, "tid", "every event");
        j_num(e, "pid", "every event");
        if (strcmp(ph, "M") == 0) {
            if (strcmp(name, "thread_name") == 0 && (tid == 1 || tid == 2)) {
                const char *track = j_str(j_get(e, "args"), "name", "a thread_name event's args");
                ck_assert_msg(strcmp(track, tid == 1 ? "CPU" : stage_track) == 0,
                              "expected track %g to be named '%s', got '%s'", tid, tid == 1 ? "CPU" : stage_track,
                              track);
                named[(int)tid] = true;
            }
            continue;
        }
        ck_assert_msg(strcmp(ph, "X") == 0, "expected only complete (X) and metadata (M) events, got '%s'", ph);
        double ts = j_num(e, "ts", "a complete event"), dur = j_num(e, "dur", "a complete event");
        ck_assert_msg(ts >= last_ts, "expected non-decreasing timestamps: event %zu (%s) at %.3f after %.3f", i, name,
                      ts, last_ts);
        ck_assert_msg(dur >= 0, "expected dur >= 0 in event %zu, got %g", i, dur);
        last_ts = ts;
        uint64_t step = (uint64_t)j_num(j_get(e, "args"), "step", "a complete event's args");
        if (tid == 1) {
            ck_assert_msg(strcmp(name, "step") == 0, "expected only step events on the CPU track, got '%s'", name);
            ck_assert_msg(step == current_step + 1, "expected step %llu, got %llu",
                          (unsigned long long)current_step + 1, (unsigned long long)step);
            ck_assert_uint_eq((uint64_t)j_num(j_get(e, "args"), "agents", "a step event's args"), 2000);
            current_step = step;
            step_events++;
            stage_end = ts;
        } else {
            ck_assert_msg(tid == 2, "expected tid 1 or 2, got %g", tid);
            ck_assert_msg(step == current_step, "expected stage event %s of step %llu, got step %llu", name,
                          (unsigned long long)current_step, (unsigned long long)step);
            int s = -1;
            for (int k = 0; k < 6; k++)
                if (strcmp(name, stage_names[k]) == 0)
                    s = k;
            ck_assert_msg(s >= 0, "expected a stage name on the stage track, got '%s'", name);
            ck_assert_msg(fabs(ts - stage_end) < 0.01, "expected stage %s of step %llu to start at %.3f, got %.3f",
                          name, (unsigned long long)step, stage_end, ts);
            stage_end = ts + dur;
            stage_events[s]++;
        }
    }
    ck_assert_msg(named[1] && named[2], "expected thread_name metadata for tids 1 and 2 in %s", path);
    ck_assert_msg(step_events == steps, "expected %zu step events, got %zu", steps, step_events);
    for (int k = 0; k < 6; k++)
        ck_assert_msg(stage_events[k] == steps, "expected %zu '%s' events, got %zu", steps, stage_names[k],
                      stage_events[k]);
    j_free(doc);
    free(text);
}

// A run that must fail at start-up: exit 2, one stderr line naming --profile
// and the path, nothing on stdout (the simulation never started).
static void expect_startup_error(const char *path, const char *needle) {
    run_result r = run_exe(RUN_BIN, ARGV("boids-run", "--count", "100", "--steps", "5", "--profile", path));
    assert_exit(RUN_BIN, &r, 2);
    size_t len = strlen(r.err);
    ck_assert_msg(len > 0 && strchr(r.err, '\n') == r.err + len - 1, "expected one line on stderr, got: %s", r.err);
    ck_assert_msg(strstr(r.err, "--profile") && strstr(r.err, path) && strstr(r.err, needle),
                  "expected stderr to name --profile, '%s' and '%s', got: %s", path, needle, r.err);
    ck_assert_msg(r.out[0] == '\0', "expected no stdout (no run), got: %s", r.out);
    struct stat st;
    ck_assert_msg(stat(path, &st) != 0, "expected no file %s to be left behind", path);
    run_free(&r);
}

// Checks that a PNG exists and starts with the PNG signature.
static void check_png(const char *path) {
    size_t len = 0;
    char *png = slurp_len(path, &len);
    ck_assert_msg(png != NULL, "expected %s to be written", path);
    ck_assert_msg(len > 1000 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0,
                  "expected %s to be a PNG (signature, > 1000 bytes), got %zu bytes", path, len);
    free(png);
}

// ---- tests ----

START_TEST(csv_of_a_cpu_run) {
    char dir[512], path[600];
    scratch_dir(dir, sizeof dir, "csv");
    snprintf(path, sizeof path, "%s/x.csv", dir);
    unlink(path);
    run_result r = run_exe(RUN_BIN, ARGV("boids-run", "--count", "2000", "--steps", "60", "--profile", path));
    assert_exit(RUN_BIN, &r, 0);
    ck_assert_msg(strstr(r.out, "profile: key ") && strstr(r.out, "median") && strstr(r.out, "p95"),
                  "expected the per-stage summary on stdout, got: %s", r.out);
    check_csv(path, 60, "cpu", (const uint32_t[]){2000, 0});
    assert_dir_holds(dir, ARGV("x.csv"));
    run_free(&r);
    remove_dir(dir);
}
END_TEST

START_TEST(json_of_a_gpu_run) {
    char dir[512], path[600];
    scratch_dir(dir, sizeof dir, "json");
    snprintf(path, sizeof path, "%s/x.json", dir);
    unlink(path);
    run_result r =
        run_exe(RUN_BIN, ARGV("boids-run", "--count", "2000", "--steps", "60", "--backend", "gpu", "--profile", path));
    assert_exit(RUN_BIN, &r, 0);
    check_trace(path, 60, "GPU");
    assert_dir_holds(dir, ARGV("x.json"));
    run_free(&r);
    remove_dir(dir);
}
END_TEST

START_TEST(json_of_a_cpu_run) {
    char dir[512], path[600];
    scratch_dir(dir, sizeof dir, "jsoncpu");
    snprintf(path, sizeof path, "%s/x.json", dir);
    unlink(path);
    run_result r =
        run_exe(RUN_BIN, ARGV("boids-run", "--count", "2000", "--steps", "20", "--quiet", "--profile", path));
    assert_exit(RUN_BIN, &r, 0);
    ck_assert_msg(strncmp(r.out, "state-hash: ", 12) == 0 && strchr(r.out, '\n') == r.out + strlen(r.out) - 1,
                  "expected only the state-hash line on stdout with --quiet, got: %s", r.out);
    check_trace(path, 20, "CPU stages");
    run_free(&r);
    remove_dir(dir);
}
END_TEST

START_TEST(gpu_csv_has_every_step) {
    char dir[512], path[600];
    scratch_dir(dir, sizeof dir, "gpucsv");
    snprintf(path, sizeof path, "%s/g.csv", dir);
    unlink(path);
    run_result r =
        run_exe(RUN_BIN, ARGV("boids-run", "--count", "2000", "--steps", "60", "--backend", "gpu", "--profile", path));
    assert_exit(RUN_BIN, &r, 0);
    check_csv(path, 60, "gpu", (const uint32_t[]){2000, 0});
    run_free(&r);
    remove_dir(dir);
}
END_TEST

START_TEST(missing_directory_fails_at_startup) {
    char dir[512], path[700];
    scratch_dir(dir, sizeof dir, "missing");
    snprintf(path, sizeof path, "%s/no-such-dir/x.csv", dir);
    expect_startup_error(path, "cannot be written");
    snprintf(path, sizeof path, "%s/no-such-dir/x.json", dir);
    expect_startup_error(path, "cannot be written");
    assert_dir_holds(dir, ARGV(NULL));
    remove_dir(dir);
}
END_TEST

START_TEST(unknown_extension_fails_at_startup) {
    char dir[512], path[700];
    scratch_dir(dir, sizeof dir, "ext");
    snprintf(path, sizeof path, "%s/x.txt", dir);
    expect_startup_error(path, "extension");
    snprintf(path, sizeof path, "%s/x", dir);
    expect_startup_error(path, "extension");
    assert_dir_holds(dir, ARGV(NULL));
    remove_dir(dir);
}
END_TEST

START_TEST(directory_path_fails_at_startup) {
    char dir[512], path[700];
    scratch_dir(dir, sizeof dir, "isdir");
    snprintf(path, sizeof path, "%s/d.csv", dir);
    ck_assert_int_eq(mkdir(path, 0755) == 0 || errno == EEXIST, 1);
    run_result r = run_exe(RUN_BIN, ARGV("boids-run", "--count", "100", "--profile", path));
    assert_exit(RUN_BIN, &r, 2);
    ck_assert_msg(strstr(r.err, "--profile") && strstr(r.err, "is a directory"), "expected 'is a directory', got: %s",
                  r.err);
    assert_dir_holds(dir, ARGV("d.csv"));
    rmdir(path);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

START_TEST(bench_profile_and_plots) {
    char dir[512], csv[600], png[600], run_csv[600], run_png[600];
    scratch_dir(dir, sizeof dir, "bench");
    snprintf(csv, sizeof csv, "%s/bench.csv", dir);
    snprintf(png, sizeof png, "%s/bench.png", dir);
    snprintf(run_csv, sizeof run_csv, "%s/run.csv", dir);
    snprintf(run_png, sizeof run_png, "%s/run.png", dir);
    unlink(csv);
    unlink(png);
    unlink(run_csv);
    unlink(run_png);
    run_result r =
        run_exe(BENCH_BIN, ARGV("boids-bench", "--counts", "500,1000,2000", "--steps", "4", "--profile", csv));
    assert_exit(BENCH_BIN, &r, 0);
    ck_assert_msg(strstr(r.err, "profile: steer "), "expected the per-stage summary on stderr, got: %s", r.err);
    check_csv(csv, 12, "cpu", (const uint32_t[]){500, 1000, 2000, 0});
    run_free(&r);

    r = run_exe(PYTHON, ARGV(PYTHON, PLOT_PY, csv, "-o", png));
    assert_exit(PYTHON " " PLOT_PY " (needs python3-matplotlib: tools/deps.sh)", &r, 0);
    check_png(png);
    run_free(&r);

    r = run_exe(RUN_BIN, ARGV("boids-run", "--count", "2000", "--steps", "30", "--profile", run_csv));
    assert_exit(RUN_BIN, &r, 0);
    run_free(&r);
    r = run_exe(PYTHON, ARGV(PYTHON, PLOT_PY, run_csv, "-o", run_png));
    assert_exit(PYTHON " " PLOT_PY, &r, 0);
    check_png(run_png);
    run_free(&r);
    assert_dir_holds(dir, ARGV("bench.csv", "bench.png", "run.csv", "run.png"));
    remove_dir(dir);
}
END_TEST

// SIGINT during boids-bench: the counts done keep their rows, the profile
// holds their steps, exit 130 (the signal comes while the second count
// warms up, so it gets no row).
START_TEST(bench_interrupted_writes_outputs) {
    char dir[512], csv[600];
    scratch_dir(dir, sizeof dir, "bench_sig");
    snprintf(csv, sizeof csv, "%s/sig.csv", dir);
    unlink(csv);
    boids_test_signal when = {.needle = "N=2000000", .in_stderr = true, .delay_s = 0.2, .sig = SIGINT};
    run_result r = boids_test_run_signal(
        BENCH_BIN, ARGV("boids-bench", "--counts", "3000,2000000", "--steps", "12", "--profile", csv), TMP, "bench_sig",
        &when);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 130, "status %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "|     3000 |") && !strstr(r.out, "|  2000000 |"), "stdout: %s", r.out);
    ck_assert_msg(strstr(r.err, "interrupted after 1 of 2 counts") && strstr(r.err, "profile: steer "), "stderr: %s",
                  r.err);
    run_free(&r);
    char *text = slurp(csv);
    int lines = 0;
    for (const char *p = text; (p = strchr(p, '\n')); p++)
        lines++;
    ck_assert_msg(lines == 13, "expected a header and 12 rows in %s, got %d lines", csv, lines);
    free(text);
    unlink(csv);
    remove_dir(dir);
}
END_TEST

START_TEST(json_parser_rejects_bad_documents) {
    static const char *const bad[] = {"",        "{",    "{\"a\":}", "[1,]",    "[01]",       "{\"a\" 1}", "[1] x",
                                      "\"\\x\"", "[.5]", "[1.]",     "{'a':1}", "[\"a\nb\"]", "nul"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[160];
        jval *v = j_parse(bad[i], strlen(bad[i]), err, sizeof err);
        ck_assert_msg(v == NULL, "expected the JSON parser to reject '%s'", bad[i]);
    }
    const char *good = " {\"a\": [1, -2.5e3, true, false, null, \"x\\u0041\\n\"], \"b\": {}} ";
    char err[160];
    jval *v = j_parse(good, strlen(good), err, sizeof err);
    ck_assert_msg(v != NULL, "expected the JSON parser to accept a valid document: %s", err);
    const jval *a = j_get(v, "a");
    ck_assert_msg(a && a->type == J_ARRAY && a->n == 6 && a->items[1]->number == -2500.0 &&
                      strcmp(a->items[5]->string, "xA\n") == 0,
                  "expected the parsed values back");
    j_free(v);
}
END_TEST

// ---- stage shares: boids-bench and the viewer's profile of the same run ----

#define STAGES 7 // key .. bodies: the CSV's columns 3 .. 9

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Each stage's median (ms) over the rows of a profile whose stages are timed
// (the viewer's first rows come before a timer query is back: all zero),
// and its share of the medians' sum.
static void stage_shares(const char *path, double median[STAGES], double share[STAGES]) {
    char *text = slurp_len(path, NULL);
    ck_assert_msg(text != NULL, "expected %s to exist", path);
    size_t cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == '\n';
    double *v = malloc(sizeof *v * cap * STAGES);
    ck_assert_msg(v != NULL, "expected memory for %zu rows", cap);
    size_t rows = 0;
    char *save = NULL, *fields[32];
    strtok_r(text, "\n", &save); // the header (check_csv checks it)
    for (char *line; (line = strtok_r(NULL, "\n", &save));) {
        ck_assert_msg(split_csv(line, fields, 32) == CSV_COLUMNS, "expected %zu fields in each row of %s", CSV_COLUMNS,
                      path);
        double sum = 0.0;
        for (size_t s = 0; s < STAGES; s++)
            sum += v[s * cap + rows] = strtod(fields[3 + s], NULL);
        rows += sum > 0.0;
    }
    ck_assert_msg(rows >= 5, "expected at least 5 timed steps in %s, got %zu", path, rows);
    double total = 0.0;
    for (size_t s = 0; s < STAGES; s++) {
        qsort(v + s * cap, rows, sizeof *v, cmp_double);
        median[s] = rows % 2 ? v[s * cap + rows / 2] : 0.5 * (v[s * cap + rows / 2 - 1] + v[s * cap + rows / 2]);
        total += median[s];
    }
    ck_assert_msg(total > 0.0, "expected stage times in %s", path);
    for (size_t s = 0; s < STAGES; s++)
        share[s] = median[s] / total;
    free(v);
    free(text);
}

static size_t largest(const double share[STAGES]) {
    size_t k = 0;
    for (size_t s = 1; s < STAGES; s++)
        k = share[s] > share[k] ? s : k;
    return k;
}

// The stage times of `path` agree with those of `ref` (the same count and
// world): the same largest stage and each stage's share of the step within
// SHARE_TOLERANCE. Shares, not milliseconds: llvmpipe shares the machine's
// cores with the other suites, so a loaded machine moves every stage's time
// but hardly their ratio. 15 points hold the noise of medians over 20 or so
// steps at 20 k agents (steer is about 80 % of the step there; a stage time
// moved to another stage moves shares by far more).
#define SHARE_TOLERANCE 0.15
static void assert_same_split(const char *what, const char *path, const char *ref_path) {
    static const char *const name[STAGES] = {"key", "count", "scan", "scatter", "steer", "integrate", "bodies"};
    double m[STAGES], sh[STAGES], rm[STAGES], rsh[STAGES];
    stage_shares(path, m, sh);
    stage_shares(ref_path, rm, rsh);
    char text[1024];
    size_t used = 0;
    for (size_t s = 0; s < STAGES; s++)
        used += (size_t)snprintf(text + used, sizeof text - used, " %s %.2f/%.2f ms (%.0f/%.0f %%)", name[s], m[s],
                                 rm[s], 100.0 * sh[s], 100.0 * rsh[s]);
    ck_assert_msg(largest(sh) == largest(rsh), "expected the largest stage of %s to be boids-bench's (%s), got %s:%s",
                  what, name[largest(rsh)], name[largest(sh)], text);
    for (size_t s = 0; s < STAGES; s++)
        ck_assert_msg(fabs(sh[s] - rsh[s]) <= SHARE_TOLERANCE,
                      "expected %s's share of the step within %.0f points of boids-bench's (%s/boids-bench):%s",
                      name[s], 100.0 * SHARE_TOLERANCE, what, text);
}

// The GPU's stage times of one run as boids-bench (headless EGL, no
// framebuffer), boids-bench --render (an off-screen framebuffer drawn each
// step) and the viewer's --profile (a window; the HUD shows the same
// figures) measure them: the same split of the step.
START_TEST(stage_times_agree) {
    char dir[512], bench[600], render[600], view[600];
    scratch_dir(dir, sizeof dir, "shares");
    snprintf(bench, sizeof bench, "%s/bench.csv", dir);
    snprintf(render, sizeof render, "%s/render.csv", dir);
    snprintf(view, sizeof view, "%s/viewer.csv", dir);
    run_result r = run_exe(
        BENCH_BIN, ARGV("boids-bench", "--backend", "gpu", "--counts", "20000", "--steps", "24", "--profile", bench));
    assert_exit(BENCH_BIN, &r, 0);
    run_free(&r);
    check_csv(bench, 24, "gpu", (const uint32_t[]){20000, 0});
    r = run_exe(BENCH_BIN, ARGV("boids-bench", "--backend", "gpu", "--counts", "20000", "--steps", "24", "--render",
                                "640x400", "--profile", render));
    assert_exit(BENCH_BIN, &r, 0);
    run_free(&r);
    const char *args[MAX_ARGS];
    int k = boids_test_xvfb(args, "shares");
    const char *const viewer_args[] = {VIEWER_BIN, "--count", "20000",     "--frames", "30",
                                       "--vsync",  "off",     "--profile", view,       NULL};
    for (size_t i = 0; viewer_args[i]; i++)
        args[k++] = viewer_args[i];
    args[k] = NULL;
    r = run_exe(args[0], args);
    assert_exit(VIEWER_BIN, &r, 0);
    run_free(&r);
    check_csv(view, 30, "gpu", (const uint32_t[]){20000, 0});
    assert_same_split("the viewer", view, bench);
    assert_same_split("boids-bench --render", render, bench);
    remove_dir(dir);
}
END_TEST

// The cases, each in its own TCase; exit 0 when every one passes.
int main(void) {
    const boids_test_case cases[] = {
        {"json_parser", json_parser_rejects_bad_documents},
        {"csv_cpu", csv_of_a_cpu_run},
        {"json_gpu", json_of_a_gpu_run},
        {"json_cpu", json_of_a_cpu_run},
        {"csv_gpu", gpu_csv_has_every_step},
        {"missing_dir", missing_directory_fails_at_startup},
        {"unknown_extension", unknown_extension_fails_at_startup},
        {"directory", directory_path_fails_at_startup},
        {"bench_and_plot", bench_profile_and_plots},
        {"bench_interrupted", bench_interrupted_writes_outputs},
        {"stage_times", stage_times_agree},
    };
    return boids_test_main("profile", cases, sizeof cases / sizeof cases[0], TMP);
}
