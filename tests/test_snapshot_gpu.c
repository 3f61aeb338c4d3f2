// tests/test_snapshot_gpu.c: resuming a GPU run from a .boids snapshot
// continues bit for bit (label gpu; llvmpipe through EGL in CI, where the GPU
// is deterministic run to run). boids-run --backend gpu: 20 steps == 10
// steps + --save, then --load + 10 steps: the same state-hash, the same
// agents and the same bodies (joints are read back from the GPU for --save).
// boids-validate --load / --save: checks from a snapshot; its --save is boids-run's.
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "boids/snapshot.h"
#include "spawn.h"

#define VALIDATE_BIN BOIDS_BIN_DIR "/boids-validate"

// Runs boids-run (exit 0 expected); returns its state-hash line's value.
static void run_hash(const char *const *argv, char hash[17]) {
    run_result r = boids_test_run(RUN_BIN, argv, TMP, "snap_gpu");
    ck_assert(r.spawned);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "exit status %d, stderr: %s", r.status, r.err);
    boids_test_state_hash(&r, hash);
    boids_test_run_free(&r);
}

// Loads a snapshot; fails the test on error.
static boids_sim *load_ok(const char *path) {
    char err[512] = "";
    boids_sim *s = NULL;
    ck_assert_msg(boids_snapshot_load(path, &s, NULL, err, sizeof err) == BOIDS_OK, "load: %s", err);
    return s;
}

// GPU 20 steps == GPU 10 + save + load + 10 (2D snakes, 3D fish).
START_TEST(test_gpu_resume) {
    static const char *const dims[2] = {"2", "3"}, *const bodies[2] = {"snake", "fish"};
    for (int k = 0; k < 2; k++) {
        char a[17], c[17];
        run_hash(ARGV("boids-run", "--backend", "gpu", "--count", "1500", "--dim", dims[k], "--bodies", bodies[k],
                      "--behaviors", "flocking,wander", "--steps", "20", "--quiet", "--save", TMP "/snap_gpu_a.boids"),
                 a);
        run_hash(ARGV("boids-run", "--backend", "gpu", "--count", "1500", "--dim", dims[k], "--bodies", bodies[k],
                      "--behaviors", "flocking,wander", "--steps", "10", "--quiet", "--save", TMP "/snap_gpu_b.boids"),
                 c);
        run_hash(ARGV("boids-run", "--backend", "gpu", "--load", TMP "/snap_gpu_b.boids", "--steps", "10", "--quiet",
                      "--save", TMP "/snap_gpu_c.boids"),
                 c);
        ck_assert_str_eq(a, c);
        boids_sim *sa = load_ok(TMP "/snap_gpu_a.boids"), *sc = load_ok(TMP "/snap_gpu_c.boids");
        ck_assert_uint_eq(sa->step, 20);
        ck_assert_uint_eq(sc->step, 20);
        ck_assert_uint_eq(boids_sim_hash(sa), boids_sim_hash(sc));
        ck_assert_uint_eq(sa->joint_rows, sc->joint_rows);
        ck_assert_uint_gt(sa->joint_rows, 0);
        // Joints are indexed by id: compare every used row.
        for (size_t i = 0; i < (size_t)sa->joint_rows * sa->n; i++)
            ck_assert_msg(memcmp(sa->joints[i], sc->joints[i], 16) == 0, "joint entry %zu differs", i);
        boids_sim_destroy(sa);
        boids_sim_destroy(sc);
    }
}
END_TEST

// Reads a whole file; fails the test if it cannot.
static char *slurp_n(const char *path, size_t *n) {
    char *b = boids_test_slurp_len(path, n);
    ck_assert_msg(b != NULL, "cannot read %s", path);
    return b;
}

// boids-validate --load FILE --steps S --save OUT: the checks pass from the
// snapshot's state and OUT, the CPU reference after S steps, is byte for
// byte what boids-run --load FILE --steps S --save writes. Bad --load /
// --save: exit 2 with one line.
START_TEST(test_validate_load_save) {
    // A static set-up with bodies, and a dynamic scenario (varying weights:
    // validate applies the schedule each step as boids-run does).
    const char *const *const makes[2] = {
        ARGV("boids-run", "--count", "1200", "--bodies", "chain", "--behaviors", "flocking,wander,seek", "--steps", "4",
             "--quiet", "--save", TMP "/val_in.boids"),
        ARGV("boids-run", "--scenario", "flocking-varying", "--count", "800", "--steps", "4", "--quiet", "--save",
             TMP "/val_in.boids"),
    };
    static const char *const counts[2] = {"1200 agents", "800 agents"};
    for (int k = 0; k < 2; k++) {
        char h[17];
        run_hash(makes[k], h);
        run_result v = boids_test_run(VALIDATE_BIN,
                                      ARGV("boids-validate", "--load", TMP "/val_in.boids", "--steps", "12", "--save",
                                           TMP "/val_out.boids", "--save-every", "5"),
                                      TMP, "val_load");
        ck_assert(v.spawned);
        ck_assert_msg(WIFEXITED(v.status) && WEXITSTATUS(v.status) == 0, "exit %d; stdout: %s; stderr: %s", v.status,
                      v.out, v.err);
        ck_assert_msg(strstr(v.out, counts[k]) && strstr(v.out, "all checks passed") &&
                          strstr(v.out, "saved: " TMP "/val_out.boids (the CPU reference at step 16)"),
                      "stdout: %s", v.out);
        ck_assert_msg(k == 0 || strstr(v.out, "with the scenario's schedule"), "stdout: %s", v.out);
        ck_assert_msg(strstr(v.out, "saved: " TMP "/val_out.boids (the CPU reference at step 9)\n") &&
                          strstr(v.out, "saved: " TMP "/val_out.boids (the CPU reference at step 14)\n"),
                      "--save-every 5: stdout: %s", v.out);
        boids_test_run_free(&v);
        run_hash(ARGV("boids-run", "--load", TMP "/val_in.boids", "--steps", "12", "--quiet", "--save",
                      TMP "/val_run.boids"),
                 h);
        size_t na, nb;
        char *a = slurp_n(TMP "/val_out.boids", &na), *b = slurp_n(TMP "/val_run.boids", &nb);
        ck_assert_uint_eq(na, nb);
        ck_assert_msg(memcmp(a, b, na) == 0, "case %d: boids-validate --save differs from boids-run --save", k);
        free(a);
        free(b);
    }

    static const char *const bad_args[][6] = {
        {"boids-validate", "--load", TMP "/val_missing.boids", NULL},
        {"boids-validate", "--load", TMP "/val_in.boids", "--count", "10", NULL},
        {"boids-validate", "--save", TMP "/no_such_dir/x.boids", NULL},
    };
    static const char *const want[] = {"boids-validate: --load: " TMP "/val_missing.boids: cannot be opened",
                                       "boids-validate: --count: ", "boids-validate: --save: "};
    for (int k = 0; k < 3; k++) {
        run_result r = boids_test_run(VALIDATE_BIN, bad_args[k], TMP, "val_bad");
        ck_assert(r.spawned);
        ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "case %d: exit %d, stderr: %s", k, r.status,
                      r.err);
        ck_assert_msg(strstr(r.err, want[k]) && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "case %d: stderr: %s", k, r.err);
        boids_test_run_free(&r);
    }
}
END_TEST

// SIGTERM during boids-validate's S steps (a while after their title shows
// on stdout): they stop, --save holds the CPU reference at the step the
// line on stderr names, the report says INTERRUPTED, exit 143.
START_TEST(test_validate_interrupted) {
    boids_test_signal when = {.needle = "3. 1000000 steps", .delay_s = 0.5, .sig = SIGTERM};
    run_result r = boids_test_run_signal(VALIDATE_BIN,
                                         ARGV("boids-validate", "--count", "3000", "--steps", "1000000", "--save",
                                              TMP "/val_sig.boids"),
                                         TMP, "val_sig", &when);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 143, "status %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "boids-validate: INTERRUPTED") && strstr(r.err, "interrupted at step "),
                  "stdout: %s; stderr: %s", r.out, r.err);
    unsigned long long reached = 0;
    const char *at = strstr(r.err, "interrupted at step ");
    ck_assert_msg(at && sscanf(at, "interrupted at step %llu of 1000000", &reached) == 1, "stderr: %s", r.err);
    boids_test_run_free(&r);
    boids_sim *s = load_ok(TMP "/val_sig.boids");
    ck_assert_uint_eq(s->step, 3 + reached); // the warm-up steps and those of the S reached
    ck_assert_uint_gt(reached, 0);
    ck_assert_uint_lt(reached, 1000000);
    boids_sim_destroy(s);
}
END_TEST

// Runs the cases; exit 0 when they pass.
int main(void) {
    if (mkdir(TMP, 0755) != 0 && errno != EEXIST) {
        perror(TMP);
        return 1;
    }
    Suite *s = suite_create("snapshot_gpu");
    TCase *tc = tcase_create("gpu_resume");
    tcase_add_test(tc, test_gpu_resume);
    suite_add_tcase(s, tc);
    TCase *tv = tcase_create("validate_load_save");
    tcase_add_test(tv, test_validate_load_save);
    tcase_add_test(tv, test_validate_interrupted);
    suite_add_tcase(s, tv);
    return boids_test_run_suite(s);
}
