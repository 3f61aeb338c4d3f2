// tests/test_bench_programs.c: boids-bench --backend gpu --program-stats on
// the headless EGL context (llvmpipe in CI): the table lists exactly the
// compute programs the run dispatched (per kernel, with and without
// bodies and topological neighbourhoods), each with a binary of a positive
// size and a format; the asm columns are n/a on llvmpipe (its binary holds
// no assembly text) and numbers on NVIDIA. Label gpu: without a GL 4.5
// context boids-bench exits 3 and the suite FAILS (never a skip). Also the
// refusal on the CPU backend (one line, exit 2) and --help.
#include <check.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "spawn.h"

#define BENCH BOIDS_BIN_DIR "/boids-bench"
#define MAX_ROWS 16

// One row of the --program-stats table, as printed.
typedef struct row {
    char name[32], shader[32], bytes[32], format[16], lines[16], temps[16], lmem[256];
} row;

static run_result bench(const char *tag, const char *const *argv) {
    run_result r = boids_test_run(BENCH, argv, TMP, tag);
    ck_assert_msg(r.spawned, "expected boids-bench to start");
    ck_assert_msg(WIFEXITED(r.status), "expected boids-bench to exit, not to end by signal %d; stderr: %s",
                  WIFSIGNALED(r.status) ? WTERMSIG(r.status) : -1, r.err);
    return r;
}

// Whether s is a decimal integer > 0.
static bool positive_integer(const char *s) {
    if (!*s)
        return false;
    for (const char *c = s; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    return strtoull(s, NULL, 10) > 0;
}

// The rows of the --program-stats table of stdout (fails without one).
static int table_rows(const char *out, row rows[MAX_ROWS]) {
    const char *t = strstr(out, "\n| program ");
    ck_assert_msg(t != NULL, "expected the --program-stats table; stdout: %s", out);
    const char *line = strchr(t + 1, '\n'); // the separator
    ck_assert_msg(line && strncmp(line + 1, "|---", 4) == 0, "expected a separator line; stdout: %s", out);
    int n = 0;
    for (line = strchr(line + 1, '\n'); line && line[1] == '|'; line = strchr(line + 1, '\n')) {
        ck_assert_msg(n < MAX_ROWS, "expected at most %d programs; stdout: %s", MAX_ROWS, out);
        row *r = &rows[n];
        int got = sscanf(line + 1, "| %31s | %31s | %31s | %15s | %15s | %15s | %255[^|\n]|", r->name, r->shader,
                         r->bytes, r->format, r->lines, r->temps, r->lmem);
        ck_assert_msg(got == 7, "expected 7 columns in '%.*s'", (int)strcspn(line + 1, "\n"), line + 1);
        size_t k = strlen(r->lmem);
        while (k && r->lmem[k - 1] == ' ')
            r->lmem[--k] = '\0';
        n++;
    }
    return n;
}

// Runs boids-bench --backend gpu --program-stats with `more` flags (1000
// agents, 2 steps) and checks the table: exactly the programs of `want`
// (comma list, in order), each binary a positive size with a format; the
// asm columns by renderer; `idle` (", " between names, as printed; or NULL)
// the built programs it names as not dispatched.
static void expect_programs(const char *tag, const char *const *more, const char *want, const char *idle) {
    const char *argv[32] = {BENCH,  "--backend", "gpu", "--program-stats", "--counts",
                            "1000", "--steps",   "2",   "--quiet"};
    int argc = 9;
    for (int i = 0; more[i]; i++)
        argv[argc++] = more[i];
    argv[argc] = NULL;
    run_result r = bench(tag, argv);
    ck_assert_msg(WEXITSTATUS(r.status) == 0,
                  "%s: expected exit 0 (it needs an OpenGL 4.5 context: a missing one is a failure), got %d; "
                  "stderr: %s",
                  tag, WEXITSTATUS(r.status), r.err);
    row rows[MAX_ROWS];
    int n = table_rows(r.out, rows);
    char head[1024]; // the first line names the renderer
    snprintf(head, sizeof head, "%.*s", (int)strcspn(r.out, "\n"), r.out);
    bool llvmpipe = strstr(head, "llvmpipe") != NULL, nvidia = strstr(head, "NVIDIA") != NULL;
    char names[512] = "";
    for (int i = 0; i < n; i++) {
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "", rows[i].name);
        ck_assert_msg(positive_integer(rows[i].bytes), "%s: %s: expected a binary of a positive size, got '%s'", tag,
                      rows[i].name, rows[i].bytes);
        ck_assert_msg(strncmp(rows[i].format, "0x", 2) == 0 && strtoul(rows[i].format, NULL, 16) != 0,
                      "%s: %s: expected a format enum 0x..., got '%s'", tag, rows[i].name, rows[i].format);
        char file[40];
        snprintf(file, sizeof file, "%s.comp", rows[i].name);
        ck_assert_msg(strcmp(rows[i].shader, file) == 0, "%s: %s: expected shader %s, got %s", tag, rows[i].name, file,
                      rows[i].shader);
        if (llvmpipe) // Mesa's binary: no assembly text
            ck_assert_msg(!strcmp(rows[i].lines, "n/a") && !strcmp(rows[i].temps, "n/a") &&
                              !strcmp(rows[i].lmem, "n/a"),
                          "%s: %s: expected n/a asm columns on llvmpipe, got %s %s %s", tag, rows[i].name,
                          rows[i].lines, rows[i].temps, rows[i].lmem);
        if (nvidia) // the driver's !!NVcp5.0 text
            ck_assert_msg(positive_integer(rows[i].lines) && positive_integer(rows[i].temps) &&
                              strcmp(rows[i].lmem, "n/a") != 0,
                          "%s: %s: expected asm figures on NVIDIA, got %s %s %s", tag, rows[i].name, rows[i].lines,
                          rows[i].temps, rows[i].lmem);
    }
    ck_assert_msg(strcmp(names, want) == 0, "%s: expected the programs %s, got %s; stdout: %s", tag, want, names,
                  r.out);
    const char *said = strstr(r.out, "\nbuilt, not dispatched in this run: ");
    if (idle) {
        ck_assert_msg(said != NULL, "%s: expected the programs not dispatched; stdout: %s", tag, r.out);
        said += strlen("\nbuilt, not dispatched in this run: ");
        char list[256];
        snprintf(list, sizeof list, "%.*s", (int)strcspn(said, "\n"), said);
        ck_assert_msg(strcmp(list, idle) == 0, "%s: expected not dispatched: %s, got %s", tag, idle, list);
    } else {
        ck_assert_msg(said == NULL, "%s: expected every program dispatched; stdout: %s", tag, r.out);
    }
    boids_test_run_free(&r);
}

// The reference kernel: the grid, steer and integrate; survey (no heading
// rules), bodies (none) and scan_add (one scan level at 1000 agents) built, not run.
START_TEST(reference) {
    expect_programs("programs-reference", ARGV("--kernel", "reference"), "key,count,scan,scatter,steer,integrate",
                    "scan_add, survey, bodies");
}
END_TEST

// Bodies: bodies.comp runs.
START_TEST(bodies) {
    expect_programs("programs-bodies", ARGV("--bodies", "snake", "--dim", "3"),
                    "key,count,scan,scatter,steer,integrate,bodies", "scan_add, survey");
}
END_TEST

// Kernel morton: the same programs as the reference (the cells' Morton
// ranks are a buffer, not a program).
START_TEST(morton) {
    expect_programs("programs-morton", ARGV("--kernel", "morton"), "key,count,scan,scatter,steer,integrate",
                    "scan_add, survey, bodies");
}
END_TEST

// Kernel morton with K nearest neighbours and the heading rules: the survey
// runs, the same steer gathers the K.
START_TEST(morton_topological) {
    expect_programs("programs-topo", ARGV("--kernel", "morton", "--neighbors-max", "4", "--rules", "heading"),
                    "key,count,scan,scatter,survey,steer,integrate", "scan_add, bodies");
}
END_TEST

// Without the flag: no table. On the CPU backend: one line naming the
// flag and --backend gpu, exit 2, nothing timed. --help lists it.
START_TEST(refusal_and_help) {
    run_result r =
        bench("programs-none", ARGV(BENCH, "--backend", "gpu", "--counts", "1000", "--steps", "1", "--quiet"));
    ck_assert_msg(WEXITSTATUS(r.status) == 0, "expected exit 0, got %d; stderr: %s", WEXITSTATUS(r.status), r.err);
    ck_assert_msg(!strstr(r.out, "| program "), "expected no --program-stats table without the flag; stdout: %s",
                  r.out);
    boids_test_run_free(&r);
    const char *const *cpu[] = {ARGV(BENCH, "--program-stats", "--counts", "100", "--steps", "1"),
                                ARGV(BENCH, "--backend", "cpu", "--program-stats", "--counts", "100")};
    for (int i = 0; i < 2; i++) {
        r = bench("programs-cpu", cpu[i]);
        ck_assert_msg(WEXITSTATUS(r.status) == 2, "expected exit 2 on the CPU backend, got %d; stderr: %s",
                      WEXITSTATUS(r.status), r.err);
        const char *want = "boids-bench: --program-stats: needs --backend gpu";
        ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0, "expected '%s...'; stderr: %s", want, r.err);
        const char *nl = strchr(r.err, '\n');
        ck_assert_msg(nl && nl[1] == '\0', "expected one line; stderr: %s", r.err);
        ck_assert_msg(strstr(r.err, "the backend is cpu"), "expected the line to name the backend; stderr: %s", r.err);
        ck_assert_msg(!strstr(r.out, "| N "), "expected nothing timed; stdout: %s", r.out);
        boids_test_run_free(&r);
    }
    r = bench("programs-help", ARGV(BENCH, "--help"));
    // The generated help (src/app/cli_help.c): "  --flag ARG" and its description.
    const char *stats = strstr(r.out, "\n  --program-stats ");
    ck_assert_msg(WEXITSTATUS(r.status) == 0 && strstr(r.out, "[--program-stats]") && stats &&
                      strstr(stats, "with --backend gpu"),
                  "expected --help to list --program-stats; stdout: %s", r.out);
    const char *kernel = strstr(r.out, "\n  --kernel NAME ");
    const char *next = kernel ? strstr(kernel + 1, "\n  --") : NULL;
    ck_assert_msg(kernel && next && strstr(kernel, "reference") && strstr(kernel, "reference") < next &&
                      strstr(kernel, "morton") && strstr(kernel, "morton") < next,
                  "expected --help to list --kernel with reference and morton; stdout: %s", r.out);
    boids_test_run_free(&r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("bench_programs");
    boids_test_tcase(s, "reference", reference);
    boids_test_tcase(s, "bodies", bodies);
    boids_test_tcase(s, "morton", morton);
    boids_test_tcase(s, "morton_topological", morton_topological);
    boids_test_tcase(s, "refusal_and_help", refusal_and_help);
    return boids_test_main_suite(s, TMP);
}
