// tests/test_engine.c: the engine (boids/engine.h) on both backends: the
// CPU engine is a plain boids_sim, the GPU engine equals it for flocking
// (llvmpipe is bit-exact but for wander), reads by id, set_params' shape
// rule, snapshots continuing bit for bit, copy_state, stages == step,
// gl_buffers on the CPU, BOIDS_FAULT=lost@3. Uses GL (label gpu): no GL 4.5
// context is a failure, never a skip.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "boids/engine.h"
#include "spawn.h"

#define TMP BOIDS_TEST_TMP
#define N 500u

// Flocking of N agents in 2D, finalized.
static boids_params flocking(void) {
    boids_params p;
    boids_params_default(&p, N, 2);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    return p;
}

// An engine of p on backend b (failing the test with the engine's line).
static boids_engine *make(const boids_params *p, boids_backend b) {
    boids_engine *e = NULL;
    char err[4096] = "";
    boids_engine_desc d = {.params = p, .backend = b, .quiet = true};
    boids_result r = boids_engine_create(&e, &d, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "create on the %s: expected ok (a GL 4.5 context is required), got %s: %s",
                  b == BOIDS_BACKEND_GPU ? "gpu" : "cpu", boids_result_str(r), err);
    return e;
}

// The engine's CPU hash equals a plain boids_sim's after the same 20 steps
// of the same params: the engine adds nothing to the CPU step.
START_TEST(cpu_is_the_sim) {
    boids_params p = flocking();
    boids_sim *s = NULL;
    ck_assert(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK);
    for (int i = 0; i < 20; i++)
        boids_sim_step(s);
    boids_engine *e = make(&p, BOIDS_BACKEND_CPU);
    uint64_t done = 0;
    ck_assert(boids_engine_step(e, 20, &done) == BOIDS_OK);
    ck_assert_msg(done == 20, "expected 20 steps done, got %llu", (unsigned long long)done);
    ck_assert_uint_eq(boids_engine_steps(e), 20);
    ck_assert_msg(boids_engine_hash(e) == boids_sim_hash(s), "expected the plain sim's hash %016llx, got %016llx",
                  (unsigned long long)boids_sim_hash(s), (unsigned long long)boids_engine_hash(e));
    boids_engine_gl gl;
    ck_assert_msg(boids_engine_gl_buffers(e, &gl) == BOIDS_ERR_ARGUMENT && gl.pos == 0,
                  "gl_buffers on the CPU: expected BOIDS_ERR_ARGUMENT and zeroed names (no GL buffers)");
    boids_engine_destroy(e);
    boids_sim_destroy(s);
}
END_TEST

// GPU == CPU for flocking after 20 steps (same hash: llvmpipe is bit-exact
// but for wander); read by id gives the same arrays on both.
START_TEST(gpu_equals_cpu) {
    boids_params p = flocking();
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU), *g = make(&p, BOIDS_BACKEND_GPU);
    ck_assert(boids_engine_step(c, 20, NULL) == BOIDS_OK);
    ck_assert(boids_engine_step(g, 20, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(g) == boids_engine_hash(c),
                  "expected the CPU's hash %016llx on the GPU, got %016llx", (unsigned long long)boids_engine_hash(c),
                  (unsigned long long)boids_engine_hash(g));
    static float cp[N][4], gp[N][4];
    static uint32_t cg[N], gg[N];
    ck_assert(boids_engine_read(c, cp, NULL, cg) == BOIDS_OK);
    ck_assert(boids_engine_read(g, gp, NULL, gg) == BOIDS_OK);
    ck_assert_msg(memcmp(cp, gp, sizeof cp) == 0 && memcmp(cg, gg, sizeof cg) == 0,
                  "read by id: expected the same positions and groups on both backends (same bits)");
    boids_engine_gl gl;
    ck_assert_msg(boids_engine_gl_buffers(g, &gl) == BOIDS_OK && gl.pos && gl.vel && gl.id && gl.group,
                  "gl_buffers on the GPU: expected four non-zero buffer names");
    ck_assert(boids_engine_check(g, NULL, 0) == BOIDS_OK);
    boids_engine_destroy(c);
    boids_engine_destroy(g);
}
END_TEST

// set_params refuses another agent count, naming it, and takes new weights.
START_TEST(set_params_shape) {
    boids_params p = flocking();
    boids_engine *e = make(&p, BOIDS_BACKEND_CPU);
    boids_params q = *boids_engine_params(e);
    q.world.count = N + 1;
    char err[512] = "";
    ck_assert_msg(boids_engine_set_params(e, &q, err, sizeof err) == BOIDS_ERR_ARGUMENT,
                  "another count: expected BOIDS_ERR_ARGUMENT (the shape is fixed)");
    ck_assert_msg(strstr(err, "count 501") != NULL, "expected the line to name 'count 501', got '%s'", err);
    q = *boids_engine_params(e);
    q.group[0].maxspeed = 2.5f;
    ck_assert(boids_engine_set_params(e, &q, err, sizeof err) == BOIDS_OK);
    ck_assert_msg(boids_engine_params(e)->group[0].maxspeed == 2.5f, "expected the new maxspeed 2.5 in effect");
    ck_assert(boids_engine_set_behaviors(e, UINT32_MAX, BOIDS_BIT(BOIDS_BI_SEPARATION)) == BOIDS_OK);
    ck_assert_uint_eq(boids_engine_params(e)->group[0].behaviors, BOIDS_BIT(BOIDS_BI_SEPARATION));
    boids_engine_destroy(e);
}
END_TEST

// save at step 10, load, 10 more steps == 20 steps straight, on each backend.
static void round_trip(boids_backend b, const char *path) {
    boids_params p = flocking();
    boids_engine *a = make(&p, b), *ref = make(&p, b);
    ck_assert(boids_engine_step(a, 10, NULL) == BOIDS_OK);
    char err[1200] = "";
    ck_assert_msg(boids_engine_save(a, path, err, sizeof err) == BOIDS_OK, "save: %s", err);
    boids_engine *l = NULL;
    boids_engine_desc d = {.backend = b, .quiet = true};
    ck_assert_msg(boids_engine_load(&l, path, &d, err, sizeof err) == BOIDS_OK, "load: %s", err);
    ck_assert_uint_eq(boids_engine_steps(l), 10);
    ck_assert(boids_engine_step(l, 10, NULL) == BOIDS_OK);
    ck_assert(boids_engine_step(ref, 20, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(l) == boids_engine_hash(ref),
                  "loaded + 10 steps: expected the straight run's hash %016llx, got %016llx",
                  (unsigned long long)boids_engine_hash(ref), (unsigned long long)boids_engine_hash(l));
    boids_engine_destroy(a);
    boids_engine_destroy(ref);
    boids_engine_destroy(l);
}

START_TEST(save_load_cpu) {
    round_trip(BOIDS_BACKEND_CPU, TMP "/engine_cpu.boids");
}
END_TEST

START_TEST(save_load_gpu) {
    round_trip(BOIDS_BACKEND_GPU, TMP "/engine_gpu.boids");
}
END_TEST

// copy_state from CPU to GPU after 7 steps, then 5 steps on each: the same
// hash (the GPU continues the CPU's state bit for bit); and stage by stage
// (grid, steer, integrate, bodies) equals the positions of one step.
START_TEST(copy_state_and_stages) {
    boids_params p = flocking();
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU), *g = make(&p, BOIDS_BACKEND_GPU);
    ck_assert(boids_engine_step(c, 7, NULL) == BOIDS_OK);
    ck_assert(boids_engine_copy_state(g, c) == BOIDS_OK);
    ck_assert_uint_eq(boids_engine_steps(g), 7);
    ck_assert_msg(boids_engine_hash(g) == boids_engine_hash(c), "copy_state: expected the source's hash");
    boids_engine *s = make(&p, BOIDS_BACKEND_CPU);
    ck_assert(boids_engine_copy_state(s, c) == BOIDS_OK);
    static const boids_engine_stage_id stages[] = {BOIDS_ENGINE_STAGE_GRID, BOIDS_ENGINE_STAGE_STEER,
                                                   BOIDS_ENGINE_STAGE_INTEGRATE, BOIDS_ENGINE_STAGE_BODIES};
    for (size_t i = 0; i < 4; i++)
        ck_assert(boids_engine_stage(s, stages[i]) == BOIDS_OK);
    ck_assert(boids_engine_step(c, 1, NULL) == BOIDS_OK);
    ck_assert(boids_engine_step(g, 1, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(s) == boids_engine_hash(c), "the four stages: expected one step's hash");
    ck_assert_msg(boids_engine_hash(g) == boids_engine_hash(c), "GPU after copy_state + 1 step: expected the CPU's");
    static uint32_t id[N];
    ck_assert(boids_engine_read_buffer(g, BOIDS_ENGINE_ID, id, sizeof id) == BOIDS_OK);
    ck_assert_msg(boids_engine_read_buffer(g, BOIDS_ENGINE_ID, id, sizeof id - 4) == BOIDS_ERR_ARGUMENT,
                  "read_buffer of a wrong size: expected BOIDS_ERR_ARGUMENT");
    boids_engine_destroy(c);
    boids_engine_destroy(g);
    boids_engine_destroy(s);
}
END_TEST

// BOIDS_FAULT=lost@3: step 10 returns BOIDS_ERR_GPU_LOST after 3 steps, and
// read leaves the caller's memory as it was (0xAB bytes stay).
START_TEST(fault_lost) {
    setenv("BOIDS_FAULT", "lost@3", 1);
    boids_params p = flocking();
    boids_engine *g = make(&p, BOIDS_BACKEND_GPU);
    uint64_t done = 99;
    boids_result r = boids_engine_step(g, 10, &done);
    ck_assert_msg(r == BOIDS_ERR_GPU_LOST, "expected BOIDS_ERR_GPU_LOST (lost@3), got %s", boids_result_str(r));
    // Step 3 ran (the counter is 3) but the check after it saw the loss, so
    // 2 steps completed healthy.
    ck_assert_msg(boids_engine_steps(g) == 3, "expected the step counter at 3 (lost once 3 steps are done), got %llu",
                  (unsigned long long)boids_engine_steps(g));
    ck_assert_msg(done == 2, "expected 2 steps completed (the 3rd's check fails), got %llu", (unsigned long long)done);
    static float pos[N][4], before[N][4];
    memset(pos, 0xAB, sizeof pos);
    memcpy(before, pos, sizeof pos);
    ck_assert(boids_engine_read(g, pos, NULL, NULL) == BOIDS_ERR_GPU_LOST);
    ck_assert_msg(memcmp(pos, before, sizeof pos) == 0, "read after a loss: expected the caller's memory untouched");
    char line[1024] = "";
    ck_assert(boids_engine_check(g, line, sizeof line) == BOIDS_ERR_GPU_LOST);
    ck_assert_msg(strstr(line, "lost") != NULL, "expected the check's line to say lost, got '%s'", line);
    ck_assert_uint_eq(boids_engine_hash(g), 0);
    boids_engine_destroy(g);
    unsetenv("BOIDS_FAULT");
}
END_TEST

int main(void) {
    const boids_test_case cases[] = {
        {"cpu_is_the_sim", cpu_is_the_sim},
        {"gpu_equals_cpu", gpu_equals_cpu},
        {"set_params_shape", set_params_shape},
        {"save_load_cpu", save_load_cpu},
        {"save_load_gpu", save_load_gpu},
        {"copy_state_and_stages", copy_state_and_stages},
        {"fault_lost", fault_lost},
    };
    return boids_test_main("engine", cases, sizeof cases / sizeof cases[0], TMP);
}
