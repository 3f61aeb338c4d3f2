// tests/test_help.c: every executable's --help against the parser's own
// tables. Each program prints, with the hidden --list-flags, every flag its
// parser accepts and every name each flag's value may be, read from the
// flag table and the name tables the parser uses (src/app/cli_help.c); the
// test asserts that --help lists each flag as an entry and each name as a
// word, and that --help and --version exit 0 with nothing on stderr, for
// every executable (the viewer without a display).
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "spawn.h"

// Every executable (boids-shader-source: the portability tests' tool).
static const char *const programs[] = {"boids",          "boids-run",      "boids-bench",
                                       "boids-validate", "boids-ensemble", "boids-shader-source"};
#define PROGRAMS (sizeof programs / sizeof programs[0])

// Runs BIN_DIR/prog with one argument; asserts exit 0 and an empty stderr.
static run_result run_ok(const char *prog, const char *arg) {
    char bin[512];
    snprintf(bin, sizeof bin, "%s/%s", BOIDS_BIN_DIR, prog);
    run_result r = boids_test_run(bin, ARGV(prog, arg), TMP, "help");
    ck_assert_msg(r.spawned, "could not start %s (build it first)", bin);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
                  "%s %s: expected exit status 0, got %d (signal %d); stderr: %s", prog, arg,
                  WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, WIFSIGNALED(r.status) ? WTERMSIG(r.status) : 0,
                  r.err);
    ck_assert_msg(r.err[0] == '\0', "%s %s: expected nothing on stderr, got: %s", prog, arg, r.err);
    return r;
}

// Is c part of a word (a name or a flag)?
static bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// Does text hold `word` as a whole word?
static bool has_word(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !word_char(p[-1])) && !word_char(p[n]))
            return true;
    return false;
}

// Does help hold an entry of flag: a line "  --flag" followed by its argument or description?
static bool has_entry(const char *help, const char *flag) {
    char line[128];
    snprintf(line, sizeof line, "\n  %s", flag);
    size_t n = strlen(line);
    for (const char *p = strstr(help, line); p; p = strstr(p + 1, line))
        if (p[n] == ' ' || p[n] == '\n')
            return true;
    return false;
}

START_TEST(help_and_version_exit_0) {
    // The viewer prints its help before it looks for a display.
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    const char *prog = programs[_i];
    run_result r = run_ok(prog, "--help");
    char usage[64];
    snprintf(usage, sizeof usage, "usage: %s ", prog);
    ck_assert_msg(strncmp(r.out, usage, strlen(usage)) == 0, "%s --help: expected it to start '%s', got: %.200s", prog,
                  usage, r.out);
    boids_test_run_free(&r);
    r = run_ok(prog, "-h");
    ck_assert_msg(strncmp(r.out, usage, strlen(usage)) == 0, "%s -h: expected the help, got: %.200s", prog, r.out);
    boids_test_run_free(&r);
    r = run_ok(prog, "--version");
    char version[64];
    snprintf(version, sizeof version, "%s ", prog);
    ck_assert_msg(strncmp(r.out, version, strlen(version)) == 0 && strchr(r.out, '\n') == r.out + strlen(r.out) - 1,
                  "%s --version: expected one line '%s VERSION', got: %s", prog, prog, r.out);
    boids_test_run_free(&r);
}
END_TEST

START_TEST(help_lists_every_flag_and_name) {
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    const char *prog = programs[_i];
    run_result help = run_ok(prog, "--help");
    run_result list = run_ok(prog, "--list-flags");
    unsigned flags = 0, names = 0;
    bool saw_help = false, saw_version = false;
    for (char *line = strtok(list.out, "\n"); line; line = strtok(NULL, "\n")) {
        char *save = NULL, *flag = strtok_r(line, " ", &save);
        ck_assert_msg(flag && strncmp(flag, "--", 2) == 0, "%s --list-flags: a line without a flag: '%s'", prog, line);
        ck_assert_msg(has_entry(help.out, flag), "%s --help: no entry for %s, which its parser accepts", prog, flag);
        saw_help = saw_help || strcmp(flag, "--help") == 0;
        saw_version = saw_version || strcmp(flag, "--version") == 0;
        flags++;
        for (char *name = strtok_r(NULL, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
            ck_assert_msg(has_word(help.out, name), "%s --help: %s accepts '%s', which the help does not name", prog,
                          flag, name);
            names++;
        }
    }
    ck_assert_msg(saw_help && saw_version, "%s --list-flags: expected --help and --version among the flags", prog);
    printf("%s: %u flags and %u names of the parser's tables in --help\n", prog, flags, names);
    boids_test_run_free(&help);
    boids_test_run_free(&list);
}
END_TEST

// The names of the tables reach every program that takes their flag: the
// ones the user report found missing.
START_TEST(help_lists_the_reported_ones) {
    unsetenv("DISPLAY");
    static const struct {
        const char *prog, *word;
    } want[] = {
        {"boids-run", "--kernel"},    {"boids-run", "--eta"},       {"boids-run", "--sigma"},
        {"boids-run", "--turn"},      {"boids-run", "vicsek"},      {"boids-run", "couzin"},
        {"boids-run", "circles"},     {"boids", "--eta"},           {"boids", "couzin"},
        {"boids-bench", "--sigma"},   {"boids-validate", "--turn"}, {"boids-run", "--decompose"},
        {"boids-run", "--rebalance"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        run_result r = run_ok(want[i].prog, "--help");
        ck_assert_msg(has_word(r.out, want[i].word), "%s --help: expected '%s'", want[i].prog, want[i].word);
        boids_test_run_free(&r);
    }
    // boids-run runs either backend: its help says so.
    run_result r = run_ok("boids-run", "--help");
    ck_assert_msg(!strstr(r.out, "Runs the CPU reference"), "boids-run --help: still says it runs the CPU reference");
    boids_test_run_free(&r);
}
END_TEST

int main(void) {
    mkdir(TMP, 0755);
    Suite *s = suite_create("help");
    TCase *tc = tcase_create("help");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, help_and_version_exit_0, 0, PROGRAMS);
    tcase_add_loop_test(tc, help_lists_every_flag_and_name, 0, PROGRAMS);
    tcase_add_test(tc, help_lists_the_reported_ones);
    suite_add_tcase(s, tc);
    return boids_test_run_suite(s);
}
