// tests/spawn.h: running the real executables from a Check test
// (posix_spawn, no shell), with stdout and stderr captured through files.
#ifndef BOIDS_TEST_SPAWN_H
#define BOIDS_TEST_SPAWN_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "check_run.h"

// The suites that run the executables are built with the directory of the
// executables and a scratch directory (tests/CMakeLists.txt).
#ifndef BOIDS_BIN_DIR
#error "BOIDS_BIN_DIR must name the directory of the executables"
#endif
#ifndef BOIDS_TEST_TMP
#error "BOIDS_TEST_TMP must name a scratch directory"
#endif
#define RUN_BIN BOIDS_BIN_DIR "/boids-run"
#define TMP BOIDS_TEST_TMP

// What one run left behind.
typedef struct run_result {
    bool spawned; // posix_spawn succeeded
    int status;   // wait status
    char *out;    // stdout, NUL-terminated
    char *err;    // stderr, NUL-terminated
} run_result;

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

// A whole file as a NUL-terminated malloc'd string, NULL if missing;
// *len_out (if given) receives its length.
char *boids_test_slurp_len(const char *path, size_t *len_out);
// The same, "" if missing.
char *boids_test_slurp(const char *path);
// Writes n bytes of data to path (created or truncated); fails the test if
// it cannot.
void boids_test_write(const char *path, const void *data, size_t n);
// Runs `bin` with argv (argv[0] included, NULL-terminated, at most 64), stdin
// from /dev/null; waits. Captures go through files in tmp_dir named by tag.
run_result boids_test_run(const char *bin, const char *const *argv, const char *tmp_dir, const char *tag);
void boids_test_run_free(run_result *r);
// The same with the environment env (NULL-terminated) instead of the test's.
run_result boids_test_run_env(const char *bin, const char *const *argv, const char *tmp_dir, const char *tag,
                              char *const *env);

// Starts bin with argv (NULL-terminated) and the environment env, stdin
// from /dev/null, stdout and stderr into the files out_path and err_path
// (made or truncated); does not wait. posix_spawn's result (0: *pid runs).
int boids_test_start(const char *bin, const char *const *argv, const char *out_path, const char *err_path,
                     char *const *env, pid_t *pid);

// The 16 hex digits of the "state-hash: H" line of a run's stdout into
// hash (NUL-terminated); fails the test when there is none.
void boids_test_state_hash(const run_result *r, char hash[17]);
// The little-endian uint64 at p (the snapshot and recording formats).
uint64_t boids_test_le64(const unsigned char *p);

// A display for a viewer run: when xvfb-run is on PATH its arguments (a
// virtual X server of its own, 1280x1024x24, and an authority file
// TMP/tag.xauth) go into argv[0..5] and the count, 6, is returned; else 0,
// and $DISPLAY must be set (the test fails otherwise: never a skip).
int boids_test_xvfb(const char **argv, const char *tag);

// When boids_test_run_signal sends its signal: once `needle` has appeared
// `times` times (0: once) in the run's stdout (stderr when in_stderr), at
// most 60 s after the start, and `delay_s` more.
typedef struct boids_test_signal {
    const char *needle;
    int times;
    bool in_stderr;
    double delay_s;
    int sig;
} boids_test_signal;
// Runs `bin` as boids_test_run does, sends the signal at `when`, waits.
run_result boids_test_run_signal(const char *bin, const char *const *argv, const char *tmp_dir, const char *tag,
                                 const boids_test_signal *when);

// A suite of cases, each in its own TCase (and so its own process and timeout).
typedef struct boids_test_case {
    const char *name;
    const TTest *test;
} boids_test_case;
// Creates tmp_dir (scratch files of the cases), runs the suite `name` of the
// n cases; the exit status (0 when every case passes, 1 otherwise).
int boids_test_main(const char *name, const boids_test_case *cases, size_t n, const char *tmp_dir);
// The same for a suite made by the caller (loop tests, several cases per TCase).
int boids_test_main_suite(Suite *s, const char *tmp_dir);

#endif
