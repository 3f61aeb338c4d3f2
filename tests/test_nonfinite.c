// tests/test_nonfinite.c: a state that is not finite is an error, not a
// run that ends well with NaN. BOIDS_DEBUG nan=ID@STEP plants a NaN in one
// agent after one step (no value still allowed makes one: the ranges keep a
// state finite); boids-run then exits 3 with one line naming the step, the
// agent, its group and the group's behaviours, writes no --export-csv or
// --save (an existing file stays as it was) and keeps a recording of the
// frames before it, every one finite. The CPU checks every step; the GPU
// at its read-backs (the statistics, a recording's frames, the end). Suite
// `nonfinite` (label core) and `nonfinite_gpu` (label gpu: llvmpipe through
// EGL in CI).
#include <check.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boids/record.h"
#include "spawn.h"

// Runs boids-run with BOIDS_DEBUG set to `hook` (NULL: unset).
static run_result run_hooked(const char *hook, const char *tag, const char *const *argv) {
    if (hook)
        setenv("BOIDS_DEBUG", hook, 1);
    else
        unsetenv("BOIDS_DEBUG");
    run_result r = boids_test_run(RUN_BIN, argv, TMP, tag);
    unsetenv("BOIDS_DEBUG");
    ck_assert_msg(r.spawned && WIFEXITED(r.status), "%s: expected boids-run to start and exit; stderr: %s", tag,
                  r.err);
    return r;
}

// Exit status `code`, exactly one line on stderr, holding every needle.
static void expect_line(const run_result *r, int code, const char *const *needles) {
    ck_assert_msg(WEXITSTATUS(r->status) == code, "expected exit %d, got %d; stderr: %s", code,
                  WEXITSTATUS(r->status), r->err);
    const char *nl = strchr(r->err, '\n');
    ck_assert_msg(nl && nl[1] == '\0', "expected one line on stderr: %s", r->err);
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(r->err, needles[i]), "expected '%s' in: %s", needles[i], r->err);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

// The outputs of a run stopped by a NaN planted in agent 7 after step 3:
// an existing --export-csv file untouched, no --save, no temporary left,
// a recording (when made) of steps 0..last, all finite.
static void expect_outputs(uint64_t last_frame) {
    char *kept = boids_test_slurp(TMP "/keep.csv");
    ck_assert_msg(strcmp(kept, "precious\n") == 0, "the existing --export-csv file changed: %s", kept);
    free(kept);
    ck_assert_msg(!exists(TMP "/never.boids"), "--save was written from a state that is not finite");
    FILE *ls = popen("ls -A '" TMP "' | grep -c '^\\.' || true", "r"); // the writers' temporaries are dot files
    int hidden = -1;
    ck_assert(ls && fscanf(ls, "%d", &hidden) == 1);
    pclose(ls);
    ck_assert_msg(hidden == 0, "%d temporary files left in %s", hidden, TMP);
    if (last_frame == UINT64_MAX)
        return;
    char err[512];
    boids_recording *rec = NULL;
    ck_assert_msg(boids_recording_open(TMP "/run.rec", &rec, err, sizeof err) == BOIDS_OK,
                  "the recording does not load (its reader refuses NaN): %s", err);
    const boids_recording_info *info = boids_recording_get_info(rec);
    ck_assert_msg(info->frames == last_frame + 1 && !info->truncated, "expected frames of steps 0..%llu, got %u",
                  (unsigned long long)last_frame, info->frames);
    uint64_t step = 0;
    ck_assert(boids_recording_frame(rec, info->frames - 1, &step, NULL, NULL, err, sizeof err) == BOIDS_OK);
    ck_assert_msg(step == last_frame, "the last frame is of step %llu, expected %llu", (unsigned long long)step,
                  (unsigned long long)last_frame);
    boids_recording_close(rec);
}

// A fresh scratch state: keep.csv holds "precious", nothing else.
static void fresh(void) {
    unlink(TMP "/never.boids");
    unlink(TMP "/run.rec");
    boids_test_write(TMP "/keep.csv", "precious\n", 9);
}

// The CPU: found after the step that made it, named by agent and group.
START_TEST(cpu_stops_at_the_step) {
    fresh();
    run_result r = run_hooked("nan=7@3", "cpu",
                              ARGV(RUN_BIN, "--count", "50", "--steps", "10", "--stats-every", "5", "--export-csv",
                                   TMP "/keep.csv", "--save", TMP "/never.boids", "--record", TMP "/run.rec"));
    expect_line(&r, 3,
                ARGV("boids-run: the state is not finite after step 3: agent 7 of group 0 (behaviours separation, "
                     "alignment, cohesion) has position (nan, ",
                     "--export-csv " TMP "/keep.csv not written", "--save " TMP "/never.boids not written",
                     "--record " TMP "/run.rec holds 3 frames (to step 2, before the problem)"));
    ck_assert_msg(!strstr(r.out, "state-hash:"), "a state-hash was printed as if the run ended well: %s", r.out);
    boids_test_run_free(&r);
    expect_outputs(2);
    // --save-every's snapshot of an earlier, finite step stays, and says so.
    fresh();
    r = run_hooked("nan=0@5", "cpu-save-every",
                   ARGV(RUN_BIN, "--count", "50", "--steps", "10", "--save", TMP "/never.boids", "--save-every", "2",
                        "--quiet"));
    expect_line(&r, 3, ARGV("after step 5: agent 0 of group 0", "--save " TMP "/never.boids holds step 4 (from "
                                                                "--save-every)"));
    boids_test_run_free(&r);
    ck_assert_msg(exists(TMP "/never.boids"), "--save-every's snapshot of step 4 is gone");
    unlink(TMP "/never.boids");
    // The hook itself: an agent the run lacks is a bad input.
    r = run_hooked("nan=50@3", "bad-hook", ARGV(RUN_BIN, "--count", "50", "--steps", "2", "--quiet"));
    ck_assert_msg(WEXITSTATUS(r.status) == 2 && strstr(r.err, "BOIDS_DEBUG nan: '50@3' is not a planted NaN"),
                  "BOIDS_DEBUG nan=50@3 with 50 agents: exit %d; %s", WEXITSTATUS(r.status), r.err);
    boids_test_run_free(&r);
    // Without the hook the same run ends well.
    fresh();
    r = run_hooked(NULL, "clean", ARGV(RUN_BIN, "--count", "50", "--steps", "10", "--quiet"));
    ck_assert_msg(WEXITSTATUS(r.status) == 0 && r.err[0] == '\0', "a clean run: exit %d; %s", WEXITSTATUS(r.status),
                  r.err);
    boids_test_run_free(&r);
}
END_TEST

// The GPU: no read-back is added to a step; the statistics' read-back at
// step 5 finds the NaN planted after step 3 (a recording's every frame is
// a read-back: there after step 3 itself).
START_TEST(gpu_stops_at_a_read_back) {
    fresh();
    run_result r = run_hooked("nan=7@3", "gpu",
                              ARGV(RUN_BIN, "--backend", "gpu", "--count", "50", "--steps", "10", "--stats-every", "5",
                                   "--export-csv", TMP "/keep.csv", "--save", TMP "/never.boids"));
    expect_line(&r, 3,
                ARGV("boids-run: the state is not finite at step 5 (read back from the GPU", "agent 7 of group 0",
                     "--export-csv " TMP "/keep.csv not written", "--save " TMP "/never.boids not written"));
    boids_test_run_free(&r);
    expect_outputs(UINT64_MAX);
    fresh();
    r = run_hooked("nan=7@3", "gpu-record",
                   ARGV(RUN_BIN, "--backend", "gpu", "--count", "50", "--steps", "10", "--stats-every", "5",
                        "--export-csv", TMP "/keep.csv", "--record", TMP "/run.rec"));
    expect_line(&r, 3, ARGV("not finite at step 3 (read back from the GPU", "agent 7 of group 0",
                            "--record " TMP "/run.rec holds 3 frames (to step 2, before the problem)"));
    boids_test_run_free(&r);
    expect_outputs(2);
}
END_TEST

// The far origin's refusal names --origin, the spacing and the origins allowed.
START_TEST(far_origin_refused) {
    run_result r = run_hooked(NULL, "far",
                              ARGV(RUN_BIN, "--count", "500", "--origin", "1e8,1e8", "--world", "1000x1000", "--steps",
                                   "50"));
    expect_line(&r, 2,
                ARGV("boids-run: --origin: '1e8,1e8' is rejected", "are 8 apart, above a step of maxspeed 3 x dt 1 = 3",
                     "agents would not move", "an origin from -3.35544e+07 to 3.35534e+07"));
    boids_test_run_free(&r);
    static const char far[] = "[world]\nsize = 1000x1000\norigin = 1e8, 1e8\n";
    boids_test_write(TMP "/far.ini", far, sizeof far - 1);
    r = run_hooked(NULL, "far-ini", ARGV(RUN_BIN, "--scenario", TMP "/far.ini", "--steps", "5"));
    expect_line(&r, 2, ARGV("--scenario", "agents would not move", "an origin from -3.35544e+07"));
    boids_test_run_free(&r);
    // The largest origin named is allowed, and its agents move.
    r = run_hooked(NULL, "near", ARGV(RUN_BIN, "--count", "500", "--origin", "3.3e7,3.3e7", "--world", "1000x1000",
                                      "--steps", "5", "--quiet"));
    ck_assert_msg(WEXITSTATUS(r.status) == 0, "origin 3.3e7: exit %d; %s", WEXITSTATUS(r.status), r.err);
    boids_test_run_free(&r);
}
END_TEST

// Runs the cases of the suite CK_RUN_SUITE names (both without it).
int main(void) {
    Suite *core = suite_create("nonfinite");
    boids_test_tcase(core, "cpu_stops_at_the_step", cpu_stops_at_the_step);
    boids_test_tcase(core, "far_origin_refused", far_origin_refused);
    Suite *gpu = suite_create("nonfinite_gpu");
    boids_test_tcase(gpu, "gpu_stops_at_a_read_back", gpu_stops_at_a_read_back);
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
