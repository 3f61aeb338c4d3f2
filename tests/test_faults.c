// tests/test_faults.c: GPU faults (label gpu; llvmpipe through EGL in CI).
// The robust context request and boids_gpu_check in process (healthy, and
// under each injected fault, boids_gpu_desc.debug.fault), then boids-run,
// boids-bench and boids-validate as child processes under
// BOIDS_DEBUG=fault=lost@N, error@N and oom: exit 3, one line
// on stderr naming the fault and its step, the recording readable with the
// frames written before the fault, the snapshot the state of the last
// read-back before it (the same bits as a healthy run of that many steps), a
// pre-existing output replaced only by a good file, or left untouched; a bad
// fault is exit 2. No GL 4.5 context is a failure, never a skip.
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <glad/gl.h>

#include "boids/gpu.h"
#include "boids/platform.h"
#include "boids/record.h"
#include "boids/snapshot.h"
#include "gl_context.h"
#include "spawn.h"

#define BENCH_BIN BOIDS_BIN_DIR "/boids-bench"
#define VALIDATE_BIN BOIDS_BIN_DIR "/boids-validate"
#define AGENTS "400"

// ---- helpers ------------------------------------------------------------------

// The fault to inject (NULL: none): the backends made here take it as
// debug.fault (gpu_for), the children as BOIDS_DEBUG=fault=VALUE. Check runs
// each test in its own process, so this never leaks into another test.
static const char *fault_hook;
static void set_fault(const char *value) {
    fault_hook = value;
    char item[256];
    snprintf(item, sizeof item, "fault=%s", value ? value : "");
    if (value)
        ck_assert_int_eq(setenv("BOIDS_DEBUG", item, 1), 0);
    else
        ck_assert_int_eq(unsetenv("BOIDS_DEBUG"), 0);
}

// The exit status of a run that exited (fails the test if it was killed).
static int exit_status(const run_result *r) {
    ck_assert_msg(r->spawned, "the executable could not be started");
    ck_assert_msg(WIFEXITED(r->status), "killed by signal %d; stderr: %s", WTERMSIG(r->status), r->err);
    return WEXITSTATUS(r->status);
}

// stderr is exactly one line (one newline, at the end, nothing before it empty).
static void assert_one_line(const char *text) {
    size_t len = strlen(text);
    const char *nl = strchr(text, '\n');
    ck_assert_msg(len > 1 && nl == text + len - 1, "expected exactly one line on stderr, got: [%s]", text);
}

// The file holds exactly `content`.
static void assert_file_is(const char *path, const char *content) {
    size_t len = 0;
    char *text = boids_test_slurp_len(path, &len);
    ck_assert_msg(text != NULL, "%s is gone (it was there before the run)", path);
    ck_assert_msg(len == strlen(content) && memcmp(text, content, len) == 0, "%s was changed: [%.60s]", path, text);
    free(text);
}

// The state-hash of a healthy GPU run of `steps` steps (same flags as the
// faulted runs below).
static void healthy_hash(const char *steps, char hash[17]) {
    set_fault(NULL);
    run_result r = boids_test_run(RUN_BIN,
                                  ARGV("boids-run", "--backend", "gpu", "--count", AGENTS, "--behaviors",
                                       "flocking,wander", "--steps", steps, "--quiet"),
                                  TMP, "faults_ref");
    ck_assert_msg(exit_status(&r) == 0, "healthy run of %s steps failed: %s", steps, r.err);
    boids_test_state_hash(&r, hash);
    boids_test_run_free(&r);
}

// Loads a snapshot (fails the test on error).
static boids_sim *load_snapshot(const char *path) {
    char err[512] = "";
    boids_sim *s = NULL;
    ck_assert_msg(boids_snapshot_load(path, &s, NULL, err, sizeof err) == BOIDS_OK, "%s does not load: %s", path, err);
    return s;
}

// Opens a recording: its frame count and the step of each frame (up to max).
static uint32_t recording_steps(const char *path, uint64_t *steps, uint32_t max) {
    char err[512] = "";
    boids_recording *rec = NULL;
    ck_assert_msg(boids_recording_open(path, &rec, err, sizeof err) == BOIDS_OK, "%s does not open: %s", path, err);
    const boids_recording_info *info = boids_recording_get_info(rec);
    ck_assert_msg(!info->truncated, "%s is truncated: %s", path, info->note);
    uint32_t frames = info->frames;
    for (uint32_t i = 0; i < frames && i < max; i++)
        ck_assert_msg(boids_recording_frame(rec, i, &steps[i], NULL, NULL, err, sizeof err) == BOIDS_OK,
                      "frame %u: %s", i, err);
    boids_recording_close(rec);
    return frames;
}

// The positions of frame i of a recording equal the snapshot's, id by id
// (both were written from one read-back).
static void assert_frame_is_snapshot(const char *rec_path, uint32_t i, const boids_sim *s) {
    char err[512] = "";
    boids_recording *rec = NULL;
    ck_assert(boids_recording_open(rec_path, &rec, err, sizeof err) == BOIDS_OK);
    float(*pos)[4] = calloc(s->n, 16);
    uint64_t step = 0;
    ck_assert_ptr_nonnull(pos);
    ck_assert(boids_recording_frame(rec, i, &step, pos, NULL, err, sizeof err) == BOIDS_OK);
    ck_assert_uint_eq(step, s->step);
    for (uint32_t k = 0; k < s->n; k++) {
        uint32_t id = s->cur.id[k];
        ck_assert_uint_lt(id, s->n);
        for (uint32_t a = 0; a < s->p.world.dim; a++)
            ck_assert_msg(pos[id][a] == s->cur.pos[k][a], "agent %u axis %u: frame %g, snapshot %g", id, a,
                          (double)pos[id][a], (double)s->cur.pos[k][a]);
    }
    free(pos);
    boids_recording_close(rec);
}

static boids_gl_context *ctx;

// The test's GL context (fails the test without one).
static void open_context(void) {
    ctx = boids_test_gl_open();
}

// A small simulation and its GPU twin (silent errors: the check names
// them) with set_fault's fault.
static boids_gpu *gpu_for(boids_sim **sim, boids_result *created, char *err, size_t err_size) {
    boids_params p;
    boids_params_default(&p, 300, 2);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    ck_assert(boids_sim_create(sim, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK);
    boids_gpu_desc d = {.params = &(*sim)->p,
                        .load = boids_gl_loader(ctx),
                        .quiet = true,
                        .silent_errors = true,
                        .debug = {.fault = fault_hook}};
    boids_gpu *g = NULL;
    *created = boids_gpu_create(&g, &d, err, err_size);
    if (g)
        boids_gpu_upload(g, *sim);
    return g;
}

// With the fault `fault` (NULL: none): a context, the small simulation
// and its GPU twin (created, or the test fails).
static boids_gpu *start_gpu(const char *fault, boids_sim **sim) {
    set_fault(fault);
    open_context();
    boids_result created;
    char err[1024] = "";
    boids_gpu *g = gpu_for(sim, &created, err, sizeof err);
    ck_assert_msg(created == BOIDS_OK, "create: %s", err);
    return g;
}

// ---- in process ---------------------------------------------------------------

// The context asks for robustness; whatever llvmpipe grants, describe, the
// robust flag and the context's own GL state agree.
START_TEST(test_robust_context) {
    set_fault(NULL);
    open_context();
    const char *desc = boids_gl_context_describe(ctx);
    bool robust = boids_gl_context_robust(ctx);
    ck_assert_msg(strstr(desc, robust ? ", robust (" : ", not robust ("), "describe '%s' vs robust %d", desc, robust);
    ck_assert_int_eq(gladLoadGL((GLADloadfunc)boids_gl_loader(ctx)) != 0, 1);
    GLint strategy = 0, flags = 0;
    glGetIntegerv(GL_RESET_NOTIFICATION_STRATEGY, &strategy);
    glGetIntegerv(GL_CONTEXT_FLAGS, &flags);
    // Granted notification is what GL reports (GL 4.5 section 22.2, context flags and strategy).
    ck_assert_msg((strategy == GL_LOSE_CONTEXT_ON_RESET) == robust, "strategy 0x%x, describe '%s'", strategy, desc);
    if (strstr(desc, "robust access"))
        ck_assert_msg(flags & GL_CONTEXT_FLAG_ROBUST_ACCESS_BIT, "robust access claimed, flags 0x%x", flags);
    ck_assert_int_eq(glGetGraphicsResetStatus(), GL_NO_ERROR);
    boids_sim *s = NULL;
    boids_result created;
    char err[1024] = "x";
    boids_gpu *g = gpu_for(&s, &created, err, sizeof err);
    ck_assert_msg(created == BOIDS_OK, "create: %s", err);
    ck_assert_int_eq(boids_gpu_robust(g), robust);
    boids_gpu_destroy(g);
    boids_sim_destroy(s);
    boids_gl_context_destroy(ctx);
}
END_TEST

// A healthy run: the check is OK after every step and leaves err empty; the
// download works and the error count stays 0.
START_TEST(test_check_healthy) {
    boids_sim *s = NULL;
    char err[1024] = "";
    boids_gpu *g = start_gpu(NULL, &s);
    for (int k = 1; k <= 20; k++) {
        boids_gpu_step(g);
        snprintf(err, sizeof err, "stale");
        ck_assert_msg(boids_gpu_check(g, err, sizeof err) == BOIDS_OK, "step %d: %s", k, err);
        ck_assert_str_eq(err, "");
    }
    ck_assert_int_eq(boids_gpu_download(g, s), BOIDS_OK);
    ck_assert_uint_eq(s->step, 20);
    ck_assert_uint_eq(boids_gpu_debug_errors(g), 0);
    ck_assert_int_eq(boids_gpu_check(g, NULL, 0), BOIDS_OK);
    boids_gpu_destroy(g);
    boids_sim_destroy(s);
    boids_gl_context_destroy(ctx);
}
END_TEST

// lost@3: healthy for 2 steps, lost after the 3rd; from then on steps do
// nothing, downloads fail and leave the sim as it was, the hash is 0.
START_TEST(test_check_lost) {
    boids_sim *s = NULL;
    char err[1024] = "";
    boids_gpu *g = start_gpu("lost@3", &s);
    for (int k = 1; k <= 2; k++) {
        boids_gpu_step(g);
        ck_assert_msg(boids_gpu_check(g, err, sizeof err) == BOIDS_OK, "step %d: %s", k, err);
    }
    ck_assert_int_eq(boids_gpu_download(g, s), BOIDS_OK);
    ck_assert_uint_eq(s->step, 2);
    uint64_t before = boids_sim_hash(s);
    boids_gpu_step(g);
    ck_assert_int_eq(boids_gpu_check(g, err, sizeof err), BOIDS_ERR_GPU_LOST);
    ck_assert_str_eq(err, "the OpenGL context was lost (unknown reset) at step 3");
    boids_gpu_step(g); // nothing happens
    ck_assert_uint_eq(boids_gpu_steps(g), 3);
    ck_assert_int_eq(boids_gpu_download(g, s), BOIDS_ERR_GPU_LOST);
    ck_assert_uint_eq(s->step, 2);
    ck_assert_uint_eq(boids_sim_hash(s), before);
    float(*pos)[4] = malloc((size_t)s->n * 16);
    ck_assert_ptr_nonnull(pos);
    pos[0][0] = -7.0f;
    ck_assert_int_eq(boids_gpu_read(g, BOIDS_GPU_POS, pos, (size_t)s->n * 16), BOIDS_ERR_GPU_LOST);
    ck_assert_int_eq(boids_gpu_read_state(g, pos, NULL, NULL), BOIDS_ERR_GPU_LOST);
    ck_assert(pos[0][0] == -7.0f); // untouched
    free(pos);
    ck_assert_uint_eq(boids_gpu_hash(g), 0);
    ck_assert_int_eq(boids_gpu_check(g, err, sizeof err), BOIDS_ERR_GPU_LOST); // it stays lost
    boids_gpu_destroy(g);
    boids_sim_destroy(s);
    boids_gl_context_destroy(ctx);
}
END_TEST

// error@2: a real invalid call inside step 2, counted by the debug callback
// and named by the check with the driver's message.
START_TEST(test_check_error) {
    boids_sim *s = NULL;
    char err[1024] = "";
    boids_gpu *g = start_gpu("error@2", &s);
    boids_gpu_step(g);
    ck_assert_msg(boids_gpu_check(g, err, sizeof err) == BOIDS_OK, "step 1: %s", err);
    boids_gpu_step(g);
    ck_assert_int_eq(boids_gpu_check(g, err, sizeof err), BOIDS_ERR_GL_ERRORS);
    ck_assert_uint_eq(boids_gpu_debug_errors(g), 1);
    ck_assert_msg(strncmp(err, "1 OpenGL error was reported at step 2, the first: ", 50) == 0, "%s", err);
    ck_assert_msg(strstr(err, "glBindBufferBase"), "the driver's message names the call: %s", err);
    ck_assert_ptr_null(strchr(err, '\n'));
    boids_gpu_destroy(g);
    boids_sim_destroy(s);
    boids_gl_context_destroy(ctx);
}
END_TEST

// oom: create fails through the out-of-memory path; a bad value is refused.
START_TEST(test_check_oom_and_bad) {
    set_fault("oom");
    open_context();
    boids_sim *s = NULL;
    boids_result created;
    char err[1024] = "";
    boids_gpu *g = gpu_for(&s, &created, err, sizeof err);
    ck_assert_ptr_null(g);
    ck_assert_int_eq(created, BOIDS_ERR_NOMEM);
    ck_assert_str_eq(err, "--count: '300' agents: the GPU is out of memory for their buffers");
    boids_sim_destroy(s);
    set_fault("lost@zero");
    g = gpu_for(&s, &created, err, sizeof err);
    ck_assert_ptr_null(g);
    ck_assert_int_eq(created, BOIDS_ERR_ARGUMENT);
    ck_assert_str_eq(err, "debug.fault: 'lost@zero' is not a fault; expected lost@STEP, error@STEP (STEP "
                          "1..1000000000) or oom");
    boids_sim_destroy(s);
    boids_gl_context_destroy(ctx);
    static const char *const good[] = {"", "oom", "lost@1", "error@1", "lost@1000000000", "error@37"};
    static const char *const bad[] = {"lost",     "lost@",     "lost@0",   "lost@-1",    "lost@+3",
                                      "lost@ 3",  "lost@3x",   "error@1000000001", "oom@3",  "LOST@3",
                                      "lost@3 ",  "error",     "reset@3",  "lost@99999999999999999999"};
    ck_assert_int_eq(boids_gpu_fault_parse("fault", NULL, err, sizeof err), BOIDS_OK);
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(boids_gpu_fault_parse("fault", good[i], err, sizeof err) == BOIDS_OK, "'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        ck_assert_msg(boids_gpu_fault_parse("BOIDS_DEBUG fault", bad[i], err, sizeof err) == BOIDS_ERR_ARGUMENT,
                      "'%s' accepted", bad[i]);
        ck_assert_msg(strncmp(err, "BOIDS_DEBUG fault: '", 20) == 0 && strstr(err, bad[i]) && strstr(err, "lost@STEP"),
                      "%s", err);
    }
}
END_TEST

// ---- boids-run ----------------------------------------------------------------

// lost@N with --record (every step) and --save --save-every 5 over a
// pre-existing file that is not a snapshot: exit 3, one line; the recording
// holds steps 0..N-1, the snapshot step N-1, the same bits as a healthy run of
// N-1 steps and as the recording's last frame; no state-hash on stdout.
START_TEST(test_run_lost) {
    static const int at[] = {1, 7, 12};
    for (size_t c = 0; c < sizeof at / sizeof *at; c++) {
        int n = at[c];
        char fault[32], expect[1024], prev[16], ref[17];
        snprintf(prev, sizeof prev, "%d", n - 1);
        if (n > 1)
            healthy_hash(prev, ref);
        static const char old[] = "precious: not a snapshot\n";
        boids_test_write(TMP "/faults_lost.boids", old, sizeof old - 1);
        snprintf(fault, sizeof fault, "lost@%d", n);
        set_fault(fault);
        run_result r = boids_test_run(RUN_BIN,
                                      ARGV("boids-run", "--backend", "gpu", "--count", AGENTS, "--behaviors",
                                           "flocking,wander", "--steps", "30", "--quiet", "--record",
                                           TMP "/faults_lost.brec", "--save", TMP "/faults_lost.boids", "--save-every",
                                           "5"),
                                      TMP, "faults_lost");
        ck_assert_msg(exit_status(&r) == 3, "%s: exit %d, stderr: %s", fault, exit_status(&r), r.err);
        assert_one_line(r.err);
        snprintf(expect, sizeof expect,
                 "boids-run: --backend gpu: the OpenGL context was lost (unknown reset) at step %d; stopped; "
                 "--record " TMP "/faults_lost.brec holds %d frame%s (to step %d); --save " TMP
                 "/faults_lost.boids holds step %d (the last good state before the fault)\n",
                 n, n, n == 1 ? "" : "s", n - 1, n - 1);
        ck_assert_str_eq(r.err, expect);
        ck_assert_ptr_null(strstr(r.out, "state-hash"));
        uint64_t steps[64];
        uint32_t frames = recording_steps(TMP "/faults_lost.brec", steps, 64);
        ck_assert_uint_eq(frames, (uint32_t)n); // steps 0..N-1, one frame each
        for (uint32_t i = 0; i < frames; i++)
            ck_assert_uint_eq(steps[i], i);
        boids_sim *s = load_snapshot(TMP "/faults_lost.boids");
        ck_assert_uint_eq(s->step, (uint64_t)(n - 1));
        ck_assert_uint_eq(s->n, 400);
        if (n > 1) {
            char got[17];
            snprintf(got, sizeof got, "%016llx", (unsigned long long)boids_sim_hash(s));
            ck_assert_str_eq(got, ref);
        }
        assert_frame_is_snapshot(TMP "/faults_lost.brec", frames - 1, s);
        boids_sim_destroy(s);
        boids_test_run_free(&r);
    }
}
END_TEST

// error@N with --record-every 3, --save-every 4, --export-csv and --profile
// over a good older snapshot: the one line names the error, its step and the
// driver's message; every output holds the last read-back before step N
// (the largest k < N with k % 3 == 0 or k % 4 == 0: the only read-backs).
START_TEST(test_run_error) {
    static const int at[] = {2, 11};
    for (size_t c = 0; c < sizeof at / sizeof *at; c++) {
        int n = at[c], last = 0;
        for (int k = 1; k < n; k++)
            if (k % 3 == 0 || k % 4 == 0)
                last = k;
        int frames_expected = 1 + (n - 1) / 3;
        int rec_last = (n - 1) / 3 * 3;
        char fault[32], lastsz[16], ref[17];
        snprintf(lastsz, sizeof lastsz, "%d", last);
        if (last > 0)
            healthy_hash(lastsz, ref);
        set_fault(NULL); // a good, older snapshot at the --save path
        run_result old = boids_test_run(RUN_BIN,
                                        ARGV("boids-run", "--backend", "gpu", "--count", "50", "--steps", "1",
                                             "--quiet", "--save", TMP "/faults_err.boids"),
                                        TMP, "faults_old");
        ck_assert_msg(exit_status(&old) == 0, "%s", old.err);
        boids_test_run_free(&old);
        snprintf(fault, sizeof fault, "error@%d", n);
        set_fault(fault);
        run_result r = boids_test_run(
            RUN_BIN,
            ARGV("boids-run", "--backend", "gpu", "--count", AGENTS, "--behaviors", "flocking,wander", "--steps", "30",
                 "--stats-every", "1000", "--record", TMP "/faults_err.brec", "--record-every", "3", "--save",
                 TMP "/faults_err.boids", "--save-every", "4", "--export-csv", TMP "/faults_err.csv", "--profile",
                 TMP "/faults_err_profile.csv"),
            TMP, "faults_err");
        ck_assert_msg(exit_status(&r) == 3, "%s: exit %d, stderr: %s", fault, exit_status(&r), r.err);
        assert_one_line(r.err);
        char head[256], tail[1024];
        snprintf(head, sizeof head, "boids-run: --backend gpu: 1 OpenGL error was reported at step %d, the first: ", n);
        ck_assert_msg(strncmp(r.err, head, strlen(head)) == 0, "%s", r.err);
        ck_assert_msg(strstr(r.err, "glBindBufferBase"), "%s", r.err);
        snprintf(tail, sizeof tail,
                 "; stopped; --record " TMP "/faults_err.brec holds %d frame%s (to step %d); --save " TMP
                 "/faults_err.boids holds step %d (the last good state before the fault); --export-csv " TMP
                 "/faults_err.csv holds step %d; --profile " TMP "/faults_err_profile.csv holds %d step%s\n",
                 frames_expected, frames_expected == 1 ? "" : "s", rec_last, last, last, n - 1, n == 2 ? "" : "s");
        ck_assert_msg(strstr(r.err, tail), "expected the outputs' line to end with [%s], got [%s]", tail, r.err);
        ck_assert_ptr_null(strstr(r.out, "state-hash"));
        uint64_t steps[64];
        uint32_t frames = recording_steps(TMP "/faults_err.brec", steps, 64);
        ck_assert_uint_eq(frames, (uint32_t)frames_expected);
        for (uint32_t i = 0; i < frames; i++)
            ck_assert_uint_eq(steps[i], 3 * i);
        boids_sim *s = load_snapshot(TMP "/faults_err.boids");
        ck_assert_uint_eq(s->step, (uint64_t)last);
        ck_assert_uint_eq(s->n, 400);
        if (last > 0) {
            char got[17];
            snprintf(got, sizeof got, "%016llx", (unsigned long long)boids_sim_hash(s));
            ck_assert_str_eq(got, ref);
        }
        boids_sim_destroy(s);
        // The CSV: a header and one row per agent; the profile: a header and one row per step before N.
        char *csv = boids_test_slurp(TMP "/faults_err.csv"), *prof = boids_test_slurp(TMP "/faults_err_profile.csv");
        int csv_lines = 0, prof_lines = 0;
        for (const char *p = csv; *p; p++)
            csv_lines += *p == '\n';
        for (const char *p = prof; *p; p++)
            prof_lines += *p == '\n';
        ck_assert_int_eq(csv_lines, 1 + 400);
        ck_assert_int_eq(prof_lines, 1 + (n - 1));
        free(csv);
        free(prof);
        boids_test_run_free(&r);
    }
}
END_TEST

// oom: exit 3 with the out-of-memory line; every pre-existing output as it was.
START_TEST(test_run_oom) {
    static const char *const content = "precious: left alone\n";
    boids_test_write(TMP "/faults_oom.boids", content, strlen(content));
    boids_test_write(TMP "/faults_oom.brec", content, strlen(content));
    boids_test_write(TMP "/faults_oom.csv", content, strlen(content));
    boids_test_write(TMP "/faults_oom_profile.csv", content, strlen(content));
    set_fault("oom");
    run_result r = boids_test_run(RUN_BIN,
                                  ARGV("boids-run", "--backend", "gpu", "--count", AGENTS, "--steps", "10", "--record",
                                       TMP "/faults_oom.brec", "--save", TMP "/faults_oom.boids", "--export-csv",
                                       TMP "/faults_oom.csv", "--profile", TMP "/faults_oom_profile.csv"),
                                  TMP, "faults_oom");
    ck_assert_msg(exit_status(&r) == 3, "exit %d, stderr: %s", exit_status(&r), r.err);
    assert_one_line(r.err);
    ck_assert_str_eq(r.err, "boids-run: --count: '" AGENTS "' agents: the GPU is out of memory for their buffers\n");
    assert_file_is(TMP "/faults_oom.boids", content);
    assert_file_is(TMP "/faults_oom.brec", content);
    assert_file_is(TMP "/faults_oom.csv", content);
    assert_file_is(TMP "/faults_oom_profile.csv", content);
    boids_test_run_free(&r);
}
END_TEST

// A bad fault in BOIDS_DEBUG: exit 2 and one line naming the item, the
// value and the allowed forms, for each GPU executable; the CPU backend
// ignores it.
START_TEST(test_run_bad_fault) {
    static const char *const bad[] = {"lost", "lost@0", "error@x", "oom@1", "nonsense"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        set_fault(bad[i]);
        char expect[256];
        snprintf(expect, sizeof expect,
                 "boids-run: BOIDS_DEBUG fault: '%s' is not a fault; expected lost@STEP, error@STEP (STEP "
                 "1..1000000000) "
                 "or oom\n",
                 bad[i]);
        run_result r = boids_test_run(
            RUN_BIN, ARGV("boids-run", "--backend", "gpu", "--count", AGENTS, "--steps", "5", "--quiet"), TMP,
            "faults_bad");
        ck_assert_msg(exit_status(&r) == 2, "%s: exit %d, stderr: %s", bad[i], exit_status(&r), r.err);
        ck_assert_str_eq(r.err, expect);
        boids_test_run_free(&r);
    }
    set_fault("nonsense");
    run_result b = boids_test_run(BENCH_BIN,
                                  ARGV("boids-bench", "--backend", "gpu", "--counts", "100", "--steps", "2"), TMP,
                                  "faults_bad_bench");
    ck_assert_msg(exit_status(&b) == 2, "boids-bench: exit %d, stderr: %s", exit_status(&b), b.err);
    ck_assert_msg(strstr(b.err, "boids-bench: BOIDS_DEBUG fault: 'nonsense'"), "%s", b.err);
    boids_test_run_free(&b);
    run_result v = boids_test_run(VALIDATE_BIN, ARGV("boids-validate", "--count", "100", "--steps", "2"), TMP,
                                  "faults_bad_validate");
    ck_assert_msg(exit_status(&v) == 2, "boids-validate: exit %d, stderr: %s", exit_status(&v), v.err);
    ck_assert_msg(strstr(v.err, "boids-validate: BOIDS_DEBUG fault: 'nonsense'"), "%s", v.err);
    boids_test_run_free(&v);
    run_result c = boids_test_run(
        RUN_BIN, ARGV("boids-run", "--backend", "cpu", "--count", AGENTS, "--steps", "5", "--quiet"), TMP,
        "faults_bad_cpu");
    ck_assert_msg(exit_status(&c) == 0, "cpu: exit %d, stderr: %s", exit_status(&c), c.err);
    boids_test_run_free(&c);
}
END_TEST

// Without a fault the same outputs make a clean run: exit 0, nothing on
// stderr, every frame recorded (so the faulted runs' counts mean something).
START_TEST(test_run_healthy) {
    set_fault(NULL);
    run_result r = boids_test_run(RUN_BIN,
                                  ARGV("boids-run", "--backend", "gpu", "--count", AGENTS, "--behaviors",
                                       "flocking,wander", "--steps", "12", "--quiet", "--record",
                                       TMP "/faults_ok.brec", "--save", TMP "/faults_ok.boids", "--save-every", "5"),
                                  TMP, "faults_ok");
    ck_assert_msg(exit_status(&r) == 0, "exit %d, stderr: %s", exit_status(&r), r.err);
    ck_assert_str_eq(r.err, "");
    uint64_t steps[64];
    ck_assert_uint_eq(recording_steps(TMP "/faults_ok.brec", steps, 64), 13);
    boids_sim *s = load_snapshot(TMP "/faults_ok.boids");
    ck_assert_uint_eq(s->step, 12);
    boids_sim_destroy(s);
    boids_test_run_free(&r);
}
END_TEST

// boids-bench and boids-validate: a fault is one line (bench's progress
// lines end in \r) naming it and its step, exit 3.
START_TEST(test_bench_validate) {
    static const char *const faults[] = {"lost@4", "error@4"};
    static const char *const what[] = {"the OpenGL context was lost (unknown reset) at step 4",
                                       "1 OpenGL error was reported at step 4, the first: "};
    for (int k = 0; k < 2; k++) {
        set_fault(faults[k]);
        run_result b = boids_test_run(BENCH_BIN,
                                      ARGV("boids-bench", "--backend", "gpu", "--counts", "300", "--steps", "6"), TMP,
                                      "faults_bench");
        ck_assert_msg(exit_status(&b) == 3, "%s: boids-bench exit %d, stderr: %s", faults[k], exit_status(&b), b.err);
        char expect[200];
        snprintf(expect, sizeof expect, "\nboids-bench: --backend gpu: N=300: %s", what[k]);
        const char *line = strstr(b.err, expect);
        ck_assert_msg(line, "%s: expected [%s] in [%s]", faults[k], expect + 1, b.err);
        assert_one_line(line + 1); // the last line, and the only one after the progress
        boids_test_run_free(&b);
        run_result v = boids_test_run(VALIDATE_BIN, ARGV("boids-validate", "--count", "300", "--steps", "6"), TMP,
                                      "faults_validate");
        ck_assert_msg(exit_status(&v) == 3, "%s: boids-validate exit %d, stderr: %s", faults[k], exit_status(&v),
                      v.err);
        snprintf(expect, sizeof expect, "boids-validate: %s", what[k]);
        line = strstr(v.err, expect);
        ck_assert_msg(line, "%s: expected [%s] in [%s]", faults[k], expect, v.err);
        assert_one_line(line);
        boids_test_run_free(&v);
    }
}
END_TEST

static Suite *faults_suite(void) {
    Suite *s = suite_create("faults");
    TCase *lib = tcase_create("check");
    tcase_add_test(lib, test_robust_context);
    tcase_add_test(lib, test_check_healthy);
    tcase_add_test(lib, test_check_lost);
    tcase_add_test(lib, test_check_error);
    tcase_add_test(lib, test_check_oom_and_bad);
    suite_add_tcase(s, lib);
    TCase *run = tcase_create("executables");
    tcase_add_test(run, test_run_lost);
    tcase_add_test(run, test_run_error);
    tcase_add_test(run, test_run_oom);
    tcase_add_test(run, test_run_bad_fault);
    tcase_add_test(run, test_run_healthy);
    tcase_add_test(run, test_bench_validate);
    suite_add_tcase(s, run);
    return s;
}

int main(void) {
    if (mkdir(TMP, 0755) != 0 && errno != EEXIST) {
        perror(TMP);
        return 1;
    }
    return boids_test_run_suite(faults_suite());
}
