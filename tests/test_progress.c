// tests/test_progress.c: the progress line of boids-run, boids-bench and
// boids-validate (src/app/progress.h). Under a pseudo-terminal (forkpty) it
// shows, with the step, the total and the rate, and never shares a line with
// other output; it is erased at the end and on SIGINT. Without a terminal
// (posix_spawn into files, as every other suite runs them) and with --quiet
// there is none. BOIDS_DEBUG=progress-after=0 lowers the 2 s delay so the
// runs stay short. Suite `progress` (label core) and `progress_gpu` (boids-validate,
// label gpu: no GL 4.5 context is a failure, never a skip); CK_RUN_SUITE
// picks one.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

#define BENCH_BIN BOIDS_BIN_DIR "/boids-bench"
#define VALIDATE_BIN BOIDS_BIN_DIR "/boids-validate"

// What a run under a pseudo-terminal wrote to it, and how it ended.
typedef struct pty_result {
    int status;
    char *text; // NUL-terminated (the terminal turns "\n" into "\r\n")
} pty_result;

// How to run under the terminal.
typedef struct pty_opts {
    const char *after;     // BOIDS_DEBUG's progress-after for the child (NULL: unset, the real 2 s)
    const char *stdout_to; // stdout into this file instead of the terminal (NULL: the terminal)
    int sig;               // sent once the text holds `needle` (0: none)
    const char *needle;
} pty_opts;

// The last 1500 characters of text (Check's messages are limited in size).
static const char *tail(const char *text) {
    size_t n = strlen(text);
    return n > 1500 ? text + n - 1500 : text;
}

// Appends the bytes read from fd to *buf (grown); false at the end (EIO
// once the child and its terminal are gone).
static bool read_some(int fd, char **buf, size_t *len, size_t *cap) {
    if (*cap - *len < 4097) {
        *cap = *cap * 2 + 8192;
        *buf = realloc(*buf, *cap);
        ck_assert_msg(*buf != NULL, "expected realloc to succeed");
    }
    ssize_t n = read(fd, *buf + *len, 4096);
    if (n < 0 && errno == EINTR)
        return true;
    if (n <= 0)
        return false;
    *len += (size_t)n;
    (*buf)[*len] = '\0';
    return true;
}

// Runs bin with argv on a new pseudo-terminal of 200 columns (stdin, stderr
// and, unless o->stdout_to, stdout), reading everything it writes until it
// exits (at most 60 s: then it is killed and the test fails).
static pty_result run_pty(const char *bin, const char *const *argv, const pty_opts *o) {
    struct winsize ws = {.ws_row = 50, .ws_col = 200};
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, &ws);
    ck_assert_msg(pid >= 0, "expected forkpty to succeed: %s", strerror(errno));
    if (pid == 0) {
        char hook[64];
        snprintf(hook, sizeof hook, "progress-after=%s", o->after ? o->after : "");
        if (o->after)
            setenv("BOIDS_DEBUG", hook, 1);
        else
            unsetenv("BOIDS_DEBUG");
        if (o->stdout_to) {
            int fd = open(o->stdout_to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
                _exit(126);
            close(fd);
        }
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    ck_assert_msg(buf != NULL, "expected malloc to succeed");
    buf[0] = '\0';
    bool signalled = o->sig == 0;
    time_t deadline = time(NULL) + 60;
    for (;;) {
        struct pollfd p = {.fd = master, .events = POLLIN};
        int k = poll(&p, 1, 100);
        if (time(NULL) > deadline) {
            kill(pid, SIGKILL);
            ck_abort_msg("%s did not end within 60 s; it wrote: %s", bin, tail(buf));
        }
        if (k > 0 && !read_some(master, &buf, &len, &cap))
            break;
        if (!signalled && strstr(buf, o->needle)) {
            kill(pid, o->sig);
            signalled = true;
        }
    }
    close(master);
    pty_result r = {0, buf};
    while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
    }
    return r;
}

// Asserts that the run exited with `code` (not by a signal).
static void assert_exit(const char *what, int status, int code, const char *text) {
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == code, "%s: expected exit %d, got status 0x%x; output: %s",
                  what, code, status, tail(text));
}

// Asserts the progress lines of `label` in text: at least one, each "LABEL:
// step D/TOTAL (P%)  R steps/s  M:SS left" with 1 <= D <= TOTAL, and no
// line of the terminal (between "\r" or "\n") holds a progress line and
// anything else but the spaces that pad it over a longer previous one.
static void assert_progress(const char *text, const char *label, unsigned long long total) {
    char head[160];
    snprintf(head, sizeof head, "%s: step ", label);
    int lines = 0;
    for (const char *p = text; (p = strstr(p, head)); p += strlen(head)) {
        unsigned long long d = 0, t = 0, pct = 0;
        double rate = 0;
        char left[16] = "";
        int got = sscanf(p + strlen(head), "%llu/%llu (%llu%%)  %lf steps/s  %15s left", &d, &t, &pct, &rate, left);
        ck_assert_msg(got == 5 && d >= 1 && d <= total && t == total && rate > 0 && strchr(left, ':'),
                      "expected '%sD/%llu (P%%)  R steps/s  M:SS left', got: %.120s", head, total, p);
        ck_assert_msg(p == text || p[-1] == '\r', "expected the progress line at the start of a line: %.160s",
                      p > text + 80 ? p - 80 : text);
        // A shorter text than the one before is padded with spaces over the
        // rest of it (then "\r" and the text again): only spaces may follow.
        size_t seg = strcspn(p, "\r\n");
        const char *end = strstr(p, " left");
        ck_assert_msg(end && (size_t)(end - p) + 5 <= seg && strspn(end + 5, " ") == seg - (size_t)(end - p) - 5,
                      "expected nothing but padding after 'left' on the progress line, got: %.*s", (int)seg, p);
        lines++;
    }
    ck_assert_msg(lines >= 1, "expected a progress line '%s...' on the terminal, got: %s", head, tail(text));
}

// Asserts that the text ends with the last progress line of `label` erased:
// "\r", as many spaces as it had characters, "\r", then only `then`.
static void assert_erased(const char *text, const char *label, const char *then) {
    char head[160];
    snprintf(head, sizeof head, "%s: step ", label);
    const char *last = NULL;
    for (const char *p = text; (p = strstr(p, head)); p++)
        last = p;
    ck_assert_msg(last != NULL, "expected a progress line, got: %s", tail(text));
    size_t n = strcspn(last, "\r");
    const char *q = last + n;
    ck_assert_msg(q[0] == '\r', "expected the line to be erased, got: %s", tail(last));
    for (size_t i = 1; i <= n; i++)
        ck_assert_msg(q[i] == ' ', "expected %zu spaces over the line, got: %s", n, q);
    ck_assert_msg(q[n + 1] == '\r' && strcmp(q + n + 2, then) == 0, "expected '\\r%s' after the spaces, got: %s", then,
                  q + n + 1);
}

// boids-run under a terminal with stdout in a file: the terminal receives
// progress lines only, erased at the end; stdout is the usual output.
START_TEST(run_shows_progress_on_a_terminal) {
    pty_opts o = {.after = "0", .stdout_to = TMP "/progress_run.out"};
    pty_result r = run_pty(RUN_BIN, ARGV("boids-run", "--count", "4000", "--steps", "300", "--stats-every", "100"), &o);
    assert_exit("boids-run", r.status, 0, r.text);
    assert_progress(r.text, "boids-run", 300);
    ck_assert_msg(!strchr(r.text, '\n'), "expected no newline on stderr, got: %s", tail(r.text));
    assert_erased(r.text, "boids-run", "");
    char *out = boids_test_slurp(TMP "/progress_run.out");
    ck_assert_msg(strstr(out, "state-hash: ") && !strstr(out, "steps/s"), "stdout: %s", out);
    free(out);
    free(r.text);
}
END_TEST

// boids-run with stdout on the same terminal: every statistics line starts
// after the progress line was erased (never on the same terminal line).
START_TEST(run_progress_never_shares_a_line) {
    pty_opts o = {.after = "0"};
    pty_result r = run_pty(RUN_BIN, ARGV("boids-run", "--count", "4000", "--steps", "300", "--stats-every", "20"), &o);
    assert_exit("boids-run", r.status, 0, r.text);
    assert_progress(r.text, "boids-run", 300);
    for (const char *p = r.text; (p = strstr(p, "  polarisation ")); p++) {
        const char *start = p;
        while (start > r.text && start[-1] != '\r' && start[-1] != '\n')
            start--;
        ck_assert_msg(strncmp(start, "step ", 5) == 0 || strncmp(start, "final: step ", 12) == 0,
                      "expected a statistics line at the start of a terminal line, got: %.*s", (int)(p - start + 15),
                      start);
    }
    ck_assert_msg(strstr(r.text, "\r\nstate-hash: "), "expected the last line, got: %s", tail(r.text));
    free(r.text);
}
END_TEST

// A run shorter than the real 2 s shows nothing, and --quiet nothing at all.
START_TEST(run_short_or_quiet_shows_none) {
    pty_opts real = {.stdout_to = TMP "/progress_short.out"};
    pty_result r = run_pty(RUN_BIN, ARGV("boids-run", "--count", "200", "--steps", "20"), &real);
    assert_exit("boids-run (short)", r.status, 0, r.text);
    ck_assert_msg(r.text[0] == '\0', "expected nothing on the terminal for a short run, got: %s", tail(r.text));
    free(r.text);
    pty_opts now = {.after = "0", .stdout_to = TMP "/progress_quiet.out"};
    r = run_pty(RUN_BIN, ARGV("boids-run", "--count", "4000", "--steps", "100", "--quiet"), &now);
    assert_exit("boids-run --quiet", r.status, 0, r.text);
    ck_assert_msg(r.text[0] == '\0', "expected nothing on the terminal with --quiet, got: %s", tail(r.text));
    free(r.text);
}
END_TEST

// SIGINT erases the line before the interruption's own line.
START_TEST(run_interrupt_erases_the_line) {
    pty_opts o = {.after = "0", .stdout_to = TMP "/progress_sig.out", .sig = SIGINT, .needle = "steps/s"};
    pty_result r = run_pty(RUN_BIN, ARGV("boids-run", "--count", "4000", "--steps", "1000000000"), &o);
    assert_exit("boids-run (SIGINT)", r.status, 130, r.text);
    const char *line = strstr(r.text, "boids-run: interrupted after ");
    ck_assert_msg(line != NULL, "expected the interruption's line, got: %s", tail(r.text));
    char tail[300];
    snprintf(tail, sizeof tail, "%s", line);
    *strchr(tail, '\r') = '\0'; // up to the end of that line
    strcat(tail, "\r\n");
    assert_erased(r.text, "boids-run", tail);
    free(r.text);
}
END_TEST

// Without a terminal (posix_spawn into files, progress-after=0 all the
// same): exit 0, no progress line ("steps/s") on stderr, which starts
// with `starts` (exactly `starts` when `holds` is NULL) and holds `holds`.
static void assert_plain(const char *bin, const char *const *argv, const char *starts, const char *holds) {
    setenv("BOIDS_DEBUG", "progress-after=0", 1); // the test's own environment otherwise (EGL, OpenMP)
    run_result r = boids_test_run(bin, argv, TMP, "progress_plain");
    unsetenv("BOIDS_DEBUG");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: status 0x%x, stderr: %s",
                  argv[0], r.status, r.err);
    ck_assert_msg(!strstr(r.err, "steps/s") && !strchr(r.err, '\r'),
                  "%s: expected no progress line without a terminal, got: %s", argv[0], r.err);
    if (holds)
        ck_assert_msg(strncmp(r.err, starts, strlen(starts)) == 0 && strstr(r.err, holds),
                      "%s: expected stderr to start with [%s] and hold [%s], got: [%s]", argv[0], starts, holds, r.err);
    else
        ck_assert_msg(strcmp(r.err, starts) == 0, "%s: expected stderr [%s], got: [%s]", argv[0], starts, r.err);
    boids_test_run_free(&r);
}

// Without a terminal (files, as in every other suite): no progress at all,
// stderr empty for boids-run; the same with --quiet.
START_TEST(run_no_terminal_no_progress) {
    assert_plain(RUN_BIN, ARGV("boids-run", "--count", "4000", "--steps", "100"), "", NULL);
    assert_plain(RUN_BIN, ARGV("boids-run", "--count", "4000", "--steps", "100", "--quiet"), "", NULL);
}
END_TEST

// boids-bench: one updating line per count (which count, its warm-up and
// its timed steps) instead of the plain line per count, erased before each
// row; without a terminal that one line per count and nothing with "\r",
// and with --quiet nothing.
START_TEST(bench_progress) {
    pty_opts o = {.after = "0", .stdout_to = TMP "/progress_bench.out"};
    pty_result r = run_pty(BENCH_BIN, ARGV("boids-bench", "--counts", "3000,6000", "--steps", "30"), &o);
    assert_exit("boids-bench", r.status, 0, r.text);
    assert_progress(r.text, "boids-bench: N=3000 (1/2)", 30);
    assert_progress(r.text, "boids-bench: N=6000 (2/2)", 30);
    ck_assert_msg(!strchr(r.text, '\n') && !strstr(r.text, "warming up"), "expected only the progress line: %s",
                  r.text);
    assert_erased(r.text, "boids-bench: N=6000 (2/2)", "");
    free(r.text);
    assert_plain(BENCH_BIN, ARGV("boids-bench", "--counts", "3000", "--steps", "5"),
                 "boids-bench: N=3000: ", "warming up...\n");
    assert_plain(BENCH_BIN, ARGV("boids-bench", "--counts", "3000", "--steps", "5", "--quiet"), "", NULL);
}
END_TEST

// boids-validate: the S steps of horizon 3 as one updating line, erased
// before the report goes on (stdout on the same terminal); without a
// terminal, and with --quiet, nothing on stderr.
START_TEST(validate_progress) {
    pty_opts o = {.after = "0"};
    pty_result r = run_pty(VALIDATE_BIN, ARGV("boids-validate", "--count", "2000", "--steps", "60"), &o);
    assert_exit("boids-validate", r.status, 0, r.text);
    assert_progress(r.text, "boids-validate", 60);
    const char *p = strstr(r.text, "boids-validate: step ");
    ck_assert_msg(p && p[-1] == '\r' && p[-2] == '\n', "expected the line after the horizon's title: %s", tail(r.text));
    const char *next = strstr(p, "  PASS  polarisation");
    ck_assert_msg(next && next[-1] == '\r' && next[-2] == ' ', "expected the report after the erased line: %s",
                  tail(p));
    free(r.text);
    assert_plain(VALIDATE_BIN, ARGV("boids-validate", "--count", "2000", "--steps", "60"), "", NULL);
    assert_plain(VALIDATE_BIN, ARGV("boids-validate", "--count", "2000", "--steps", "60", "--quiet"), "", NULL);
}
END_TEST

// boids-ensemble on a terminal: the line counts runs and failures
// ("boids-ensemble: runs 3/12 (25%), 1 failed  ... left"), is erased before
// the summary line; off a terminal: plain lines, no carriage return.
START_TEST(ensemble_progress) {
    static const char plan[] = "[plan]\nscenario = flocking\nsteps = 40\nseeds = 1..4\n[sweep]\n"
                               "world.count = 60\ngroup.boids.radius = 50 | 0 | 40\n";
    boids_test_write(TMP "/progress_plan.ini", plan, sizeof plan - 1);
    system("rm -rf " TMP "/progress_ens " TMP "/progress_ens2");
    const char *bin = BOIDS_BIN_DIR "/boids-ensemble";
    pty_opts o = {.after = "0"};
    pty_result r = run_pty(bin, ARGV("boids-ensemble", TMP "/progress_plan.ini", "--out", TMP "/progress_ens"), &o);
    assert_exit("boids-ensemble", r.status, 0, r.text);
    const char *line = strstr(r.text, "\rboids-ensemble: runs ");
    ck_assert_msg(line != NULL, "expected the progress line counting runs: %s", tail(r.text));
    ck_assert_msg(strstr(r.text, " failed  ") != NULL && strstr(r.text, " runs/s  ") != NULL,
                  "expected failures and a rate on the line: %s", tail(r.text));
    const char *sum = strstr(r.text, "boids-ensemble: 12 runs (4 failed)");
    ck_assert_msg(sum && sum > r.text && sum[-1] == '\r', "expected the summary after the erased line: %s",
                  tail(r.text));
    free(r.text);
    assert_plain(bin, ARGV("boids-ensemble", TMP "/progress_plan.ini", "--out", TMP "/progress_ens2"),
                 "boids-ensemble: 12/12 runs done, 4 failed", "boids-ensemble: 12 runs (4 failed) in ");
}
END_TEST

// The percentages of the terminal's lines "boids-ensemble: runs D/TOTAL
// (P%)..." with D < TOTAL (runs still to end) that say a time left: how many
// distinct ones. Counted per finished run, they are D * 100 / TOTAL only.
static int shares_while_runs_go_on(const char *text, unsigned total) {
    static const char head[] = "\rboids-ensemble: runs ";
    bool seen[101] = {false};
    int distinct = 0;
    for (const char *p = text; (p = strstr(p, head)); p += strlen(head)) {
        unsigned done = 0, of = 0, pct = 101;
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p + 1, "\r\n"), p + 1);
        if (sscanf(line + strlen(head) - 1, "%u/%u (%u%%)", &done, &of, &pct) == 3 && of == total && done < total &&
            pct <= 100 && strstr(line, " left") && !seen[pct]) {
            seen[pct] = true;
            distinct++;
        }
    }
    return distinct;
}

// boids-ensemble's line moves while its first runs are in flight: the
// percentage and the time left follow the steps done within runs (one job on
// the calling thread, and two on worker threads), not only finished runs.
START_TEST(ensemble_progress_within_runs) {
    static const char plan[] = "[plan]\nscenario = vicsek\nsteps = 1000\nseeds = 1..2\n[sweep]\n"
                               "world.count = 2500\n[log]\nevery = 1000\n";
    boids_test_write(TMP "/progress_long.ini", plan, sizeof plan - 1);
    const char *jobs[] = {"1", "2"};
    for (int j = 0; j < 2; j++) {
        system("rm -rf " TMP "/progress_long");
        pty_opts o = {.after = "0"};
        pty_result r = run_pty(
            BOIDS_BIN_DIR "/boids-ensemble",
            ARGV("boids-ensemble", TMP "/progress_long.ini", "--out", TMP "/progress_long", "--jobs", jobs[j]), &o);
        assert_exit("boids-ensemble", r.status, 0, r.text);
        int n = shares_while_runs_go_on(r.text, 2);
        ck_assert_msg(n >= 2,
                      "--jobs %s: expected the line to move within runs (2 or more percentages with a time left "
                      "before the last run ends), got %d: %s",
                      jobs[j], n, tail(r.text));
        free(r.text);
    }
}
END_TEST

// Runs the cases of the suite CK_RUN_SUITE names (both without it).
int main(void) {
    Suite *core = suite_create("progress");
    boids_test_tcase(core, "run_terminal", run_shows_progress_on_a_terminal);
    boids_test_tcase(core, "run_shared_terminal", run_progress_never_shares_a_line);
    boids_test_tcase(core, "run_short_or_quiet", run_short_or_quiet_shows_none);
    boids_test_tcase(core, "run_interrupt", run_interrupt_erases_the_line);
    boids_test_tcase(core, "run_no_terminal", run_no_terminal_no_progress);
    boids_test_tcase(core, "bench", bench_progress);
    boids_test_tcase(core, "ensemble", ensemble_progress);
    boids_test_tcase(core, "ensemble_within_runs", ensemble_progress_within_runs);
    Suite *gpu = suite_create("progress_gpu");
    boids_test_tcase(gpu, "validate", validate_progress);
    if (mkdir(TMP, 0755) != 0 && errno != EEXIST) {
        perror(TMP);
        return 1;
    }
    SRunner *sr = srunner_create(core);
    srunner_add_suite(sr, gpu);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
