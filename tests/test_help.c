// tests/test_help.c: every executable's --help against the parser's own
// tables. Each program prints, with the hidden --list-flags, every flag its
// parser accepts and every name each flag's value may be, read from the
// flag table and the name tables the parser uses (src/app/cli_help.c); the
// test asserts that --help lists each flag as an entry and each name as a
// word, and that --help and --version exit 0 with nothing on stderr, for
// every executable (the viewer without a display). The help fits 80
// columns through a pipe and the terminal's width on one (a pseudo-terminal
// of 60 columns); each installed program's help ends with 3 to 6 examples
// that its own parser takes (--check-args) and, those of boids-run,
// boids-bench and boids-ensemble on the CPU, that run as written.
#include <check.h>
#include <errno.h>
#include <pty.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

// The longest line of text and its number (1-based) into *line.
static size_t longest_line(const char *text, int *line) {
    size_t longest = 0;
    int k = 1;
    for (const char *p = text; *p; k++) {
        size_t n = strcspn(p, "\r\n");
        if (n > longest) {
            longest = n;
            *line = k;
        }
        p += n;
        p += strspn(p, "\r") + (p[strspn(p, "\r")] == '\n');
    }
    return longest;
}

START_TEST(help_fits_80_columns_through_a_pipe) {
    unsetenv("DISPLAY");
    const char *prog = programs[_i];
    setenv("COLUMNS", "200", 1); // not a terminal: 80 whatever the variable says
    run_result r = run_ok(prog, "--help");
    int line = 0;
    size_t n = longest_line(r.out, &line);
    ck_assert_msg(n <= 80, "%s --help through a pipe: line %d is %zu columns, expected at most 80", prog, line, n);
    boids_test_run_free(&r);
}
END_TEST

// --help of prog on a pseudo-terminal `cols` wide: its text (malloc'd).
static char *help_on_terminal(const char *prog, unsigned short cols) {
    char bin[512];
    snprintf(bin, sizeof bin, "%s/%s", BOIDS_BIN_DIR, prog);
    struct winsize ws = {.ws_row = 50, .ws_col = cols};
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, &ws);
    ck_assert_msg(pid >= 0, "forkpty: %s", strerror(errno));
    if (pid == 0) {
        unsetenv("COLUMNS");
        execl(bin, prog, "--help", (char *)NULL);
        _exit(127);
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap + 1);
    ck_assert(text != NULL);
    for (ssize_t got; len < cap && (got = read(master, text + len, cap - len)) > 0;)
        len += (size_t)got; // EIO once the child has closed its side
    text[len] = '\0';
    close(master);
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s --help on a terminal: exit status %d", prog,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return text;
}

START_TEST(help_fits_the_terminal) {
    unsetenv("DISPLAY");
    const char *prog = programs[_i];
    char *text = help_on_terminal(prog, 60);
    int line = 0;
    size_t n = longest_line(text, &line);
    ck_assert_msg(strstr(text, "usage: ") == text, "%s --help on a terminal: got %.100s", prog, text);
    // Only an example's command stands unbroken (it is to be copied whole).
    const char *examples = strstr(text, "\nExamples:");
    int before = 0;
    if (examples) {
        char *head = strndup(text, (size_t)(examples - text));
        n = longest_line(head, &before);
        free(head);
        line = before;
    }
    ck_assert_msg(n <= 60, "%s --help on a 60-column terminal: line %d is %zu columns", prog, line, n);
    printf("%s --help: at most %zu columns on a 60-column terminal\n", prog, n);
    free(text);
}
END_TEST

// Runs one example's words (split at spaces) as written, or with
// --check-args appended (parse_only); asserts exit 0.
static void run_example(const char *prog, const char *command, bool parse_only) {
    char words[512], bin[512];
    const char *argv[64];
    int argc = 0;
    snprintf(words, sizeof words, "%s", command);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w && argc < 62; w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    if (parse_only)
        argv[argc++] = "--check-args";
    argv[argc] = NULL;
    ck_assert_msg(argc > 0 && strcmp(argv[0], prog) == 0, "%s: the example '%s' does not start with the program", prog,
                  command);
    snprintf(bin, sizeof bin, "%s/%s", BOIDS_BIN_DIR, prog);
    run_result r = boids_test_run(bin, argv, TMP, "example");
    ck_assert_msg(r.spawned, "could not start %s", bin);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
                  "%s --help's example '%s'%s: exit status %d; stderr: %s", prog, command,
                  parse_only ? " (--check-args)" : "", WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, r.err);
    boids_test_run_free(&r);
}

START_TEST(help_examples_run_as_written) {
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    const char *prog = programs[_i];
    if (strcmp(prog, "boids-shader-source") == 0) // the tests' tool, not installed: no examples
        return;
    run_result r = run_ok(prog, "--help");
    const char *at = strstr(r.out, "\nExamples:\n");
    ck_assert_msg(at, "%s --help: no 'Examples:' section", prog);
    // From an empty folder (the source tree's plans/ beside it, for boids-ensemble's).
    char dir[512];
    snprintf(dir, sizeof dir, "%s/examples-%s", TMP, prog);
    mkdir(dir, 0755);
    ck_assert_msg(chdir(dir) == 0, "chdir %s: %s", dir, strerror(errno));
    if (symlink(BOIDS_SOURCE_DIR "/plans", "plans") != 0)
        ck_assert_msg(errno == EEXIST, "symlink plans: %s", strerror(errno));
    int count = 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "  %s", prog);
    for (const char *line = at + 11; *line && line[0] != '\n'; line += strcspn(line, "\n") + 1) {
        size_t n = strcspn(line, "\n");
        if (strncmp(line, "      ", 6) == 0) // what it does
            continue;
        ck_assert_msg(strncmp(line, prefix, strlen(prefix)) == 0 &&
                          (line[strlen(prefix)] == ' ' || line[strlen(prefix)] == '\n'),
                      "%s --help: an example line that is not a command of it: '%.*s'", prog, (int)n, line);
        char command[512];
        snprintf(command, sizeof command, "%.*s", (int)(n - 2), line + 2);
        bool cpu = strcmp(prog, "boids") != 0 && strcmp(prog, "boids-validate") != 0 && !strstr(command, "gpu");
        run_example(prog, command, true);
        if (cpu)
            run_example(prog, command, false);
        printf("%s example %s: %s\n", prog, cpu ? "ran" : "parsed", command);
        count++;
        if (!line[n])
            break;
    }
    ck_assert_msg(count >= 3 && count <= 6, "%s --help: %d examples, expected 3 to 6", prog, count);
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
    tcase_add_loop_test(tc, help_fits_80_columns_through_a_pipe, 0, PROGRAMS);
    tcase_add_loop_test(tc, help_fits_the_terminal, 0, PROGRAMS);
    tcase_add_loop_test(tc, help_examples_run_as_written, 0, PROGRAMS);
    suite_add_tcase(s, tc);
    return boids_test_run_suite(s);
}
