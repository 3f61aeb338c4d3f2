// tests/test_engine.c: the engine (boids/engine.h) on both backends: the
// CPU engine is a plain boids_sim, the GPU engine equals it for flocking
// (llvmpipe is bit-exact but for wander), reads by id, set_params' shape
// rule, snapshots continuing bit for bit, copy_state, stages == step,
// copy_agents and reset_bodies, one headless context for two engines and
// the sizes (cells, bytes), gl_buffers on the CPU, the injected fault lost@3
// and the test hooks filled from BOIDS_DEBUG. Uses GL (label gpu): no GL 4.5
// context is a failure, never a skip.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/engine.h"
#include "boids/record.h"
#include "spawn.h"

#define N 500u

// Flocking of N agents in 2D, finalized.
static boids_params flocking(void) {
    boids_params p;
    boids_params_default(&p, N, 2);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    return p;
}

// An engine of p on backend b, on the headless context h (NULL: the GPU
// engine's own), failing the test with the engine's line.
static boids_engine *make_on(const boids_params *p, boids_backend b, boids_engine_headless *h) {
    boids_engine *e = NULL;
    char err[4096] = "";
    boids_engine_desc d = {.params = p, .backend = b, .headless = h, .quiet = true};
    boids_result r = boids_engine_create(&e, &d, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "create on the %s: expected ok (a GL 4.5 context is required), got %s: %s",
                  b == BOIDS_BACKEND_GPU ? "gpu" : "cpu", boids_result_str(r), err);
    return e;
}

// An engine of p on backend b (the GPU one on a context of its own).
static boids_engine *make(const boids_params *p, boids_backend b) {
    return make_on(p, b, NULL);
}

// A headless context for several GPU engines at once (the library holds
// one at a time), failing the test with its line.
static boids_engine_headless *headless(void) {
    boids_engine_headless *h = NULL;
    char err[4096] = "";
    ck_assert_msg(boids_engine_headless_open(&h, err, sizeof err) == BOIDS_OK, "headless_open: expected ok: %s", err);
    return h;
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

// The update order through the desc: sequential on the CPU is the sim's
// sequential step (same hash); the GPU and an unknown order are refused
// with a line naming the field (before any context is made).
START_TEST(update_order) {
    boids_params p = flocking();
    boids_sim *s = NULL;
    ck_assert(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK);
    s->update = BOIDS_UPDATE_SEQUENTIAL;
    for (int i = 0; i < 3; i++)
        boids_sim_step(s);
    char err[4096] = "";
    boids_engine *e = NULL;
    boids_engine_desc d = {.params = &p, .update = BOIDS_UPDATE_SEQUENTIAL};
    ck_assert_msg(boids_engine_create(&e, &d, err, sizeof err) == BOIDS_OK, "sequential on the CPU: %s", err);
    ck_assert(boids_engine_step(e, 3, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(e) == boids_sim_hash(s), "sequential: expected the sim's hash %016llx, got %016llx",
                  (unsigned long long)boids_sim_hash(s), (unsigned long long)boids_engine_hash(e));
    boids_engine_destroy(e);
    boids_sim_destroy(s);
    d.backend = BOIDS_BACKEND_GPU;
    ck_assert_msg(boids_engine_create(&e, &d, err, sizeof err) == BOIDS_ERR_ARGUMENT && e == NULL &&
                      strstr(err, "update: sequential is not available on the GPU"),
                  "sequential on the GPU: expected BOIDS_ERR_ARGUMENT naming update, got: %s", err);
    d.backend = BOIDS_BACKEND_CPU;
    d.update = (boids_update)7;
    ck_assert_msg(boids_engine_create(&e, &d, err, sizeof err) == BOIDS_ERR_ARGUMENT && e == NULL &&
                      strstr(err, "update: 7 is not an update order"),
                  "update 7: expected BOIDS_ERR_ARGUMENT naming update, got: %s", err);
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
    ck_assert(boids_engine_set_behaviors(e, UINT32_MAX, BOIDS_BIT(BOIDS_BI_SEPARATION), err, sizeof err) == BOIDS_OK);
    ck_assert_uint_eq(boids_engine_params(e)->group[0].behaviors, BOIDS_BIT(BOIDS_BI_SEPARATION));
    boids_engine_destroy(e);
}
END_TEST

// set_group_value: a good maxspeed and weight take effect (in every group
// or one); a bad value, name or group is refused naming it, nothing changed.
START_TEST(set_group_value) {
    boids_params p = flocking();
    boids_engine *e = make(&p, BOIDS_BACKEND_CPU);
    char err[512] = "";
    ck_assert_msg(boids_engine_set_group_value(e, UINT32_MAX, "maxspeed", 2.5f, err, sizeof err) == BOIDS_OK,
                  "maxspeed 2.5: expected ok, got '%s'", err);
    ck_assert(boids_engine_params(e)->group[0].maxspeed == 2.5f);
    ck_assert(boids_engine_params(e)->world.max_speed_all == 2.5f);
    int a = boids_behavior_index("alignment");
    ck_assert(boids_engine_set_group_value(e, 0, "weight.alignment", 2.0f, err, sizeof err) == BOIDS_OK);
    ck_assert(boids_weight(&boids_engine_params(e)->group[0], (uint32_t)a) == 2.0f);
    ck_assert(boids_engine_set_group_value(e, 0, "separation", 10.0f, err, sizeof err) == BOIDS_OK);
    ck_assert(boids_engine_params(e)->group[0].separation == 10.0f);

    boids_params before = *boids_engine_params(e);
    ck_assert_int_eq(boids_engine_set_group_value(e, UINT32_MAX, "maxspeed", -1.0f, err, sizeof err), BOIDS_ERR_PARAM);
    ck_assert_msg(strstr(err, "maxspeed") && strstr(err, "-1") && strstr(err, "> 0"),
                  "expected the line to name maxspeed, -1 and '> 0', got '%s'", err);
    ck_assert_int_eq(boids_engine_set_group_value(e, 0, "weight.alignment", 2e6f, err, sizeof err), BOIDS_ERR_PARAM);
    ck_assert_msg(strstr(err, "-1e6..1e6") != NULL, "expected the weight range, got '%s'", err);
    ck_assert_int_eq(boids_engine_set_group_value(e, 0, "weight.nosuch", 1.0f, err, sizeof err), BOIDS_ERR_ARGUMENT);
    ck_assert_int_eq(boids_engine_set_group_value(e, 0, "colour", 1.0f, err, sizeof err), BOIDS_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "colour") != NULL, "expected the line to name 'colour', got '%s'", err);
    ck_assert_int_eq(boids_engine_set_group_value(e, 7, "maxspeed", 1.0f, err, sizeof err), BOIDS_ERR_ARGUMENT);
    float cell = boids_engine_params(e)->world.cell[0];
    ck_assert_int_eq(boids_engine_set_group_value(e, 0, "radius", 2.0f * cell, err, sizeof err), BOIDS_ERR_RADIUS);
    ck_assert_msg(strstr(err, "radius") && strstr(err, "grid"), "expected radius and the grid named, got '%s'", err);
    ck_assert_msg(memcmp(&before.group, &boids_engine_params(e)->group, sizeof before.group) == 0,
                  "expected nothing changed by refused values");
    boids_engine_destroy(e);
}
END_TEST

// create_scenario: a shipped name makes the flock desc.scenario makes; a
// name that is no file is BOIDS_ERR_IO naming it.
START_TEST(create_scenario) {
    char path[1024], err[1024] = "";
    ck_assert_msg(boids_scenario_find("predators-prey", path, sizeof path), "expected the shipped scenarios");
    boids_scenario *sc = malloc(sizeof *sc);
    ck_assert(sc && boids_scenario_load(path, sc, err, sizeof err) == BOIDS_OK);
    boids_engine_desc d = {.scenario = sc, .quiet = true};
    boids_engine *a = NULL, *b = NULL;
    ck_assert(boids_engine_create(&a, &d, err, sizeof err) == BOIDS_OK);
    boids_engine_desc plain = {.quiet = true};
    ck_assert_msg(boids_engine_create_scenario(&b, "predators-prey", &plain, err, sizeof err) == BOIDS_OK,
                  "create_scenario: expected ok, got '%s'", err);
    ck_assert_uint_eq(boids_engine_count(a), boids_engine_count(b));
    ck_assert(boids_engine_step(a, 5, NULL) == BOIDS_OK && boids_engine_step(b, 5, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(a) == boids_engine_hash(b), "expected the same flock as desc.scenario's");
    boids_engine_destroy(a);
    boids_engine_destroy(b);
    free(sc);
    ck_assert_int_eq(boids_engine_create_scenario(&b, "/nonexistent/none.ini", NULL, err, sizeof err), BOIDS_ERR_IO);
    ck_assert_msg(strstr(err, "/nonexistent/none.ini") != NULL, "expected the path named, got '%s'", err);
    ck_assert(b == NULL);
}
END_TEST

// save at step 10, load, 10 more steps == 20 steps straight, on each
// backend; the three GPU engines share one headless context (each of its
// own would run every engine's GL calls on the newest context).
static void round_trip(boids_backend b, const char *path) {
    boids_params p = flocking();
    boids_engine_headless *h = b == BOIDS_BACKEND_GPU ? headless() : NULL;
    boids_engine *a = make_on(&p, b, h), *ref = make_on(&p, b, h);
    ck_assert(boids_engine_step(a, 10, NULL) == BOIDS_OK);
    char err[1200] = "";
    ck_assert_msg(boids_engine_save(a, path, err, sizeof err) == BOIDS_OK, "save: %s", err);
    boids_engine *l = NULL;
    boids_engine_desc d = {.backend = b, .headless = h, .quiet = true};
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
    boids_engine_headless_close(h);
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

// A snake of 6 joints in every group of flocking(): bodies to follow.
static boids_params with_bodies(void) {
    boids_params p = flocking();
    char err[256] = "";
    ck_assert_msg(boids_body_make(&p.body[0], BOIDS_BODY_SNAKE, 6, 1.0f, err, sizeof err) == BOIDS_OK, "%s", err);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    ck_assert_uint_eq(boids_params_joint_rows(&p), 6);
    return p;
}

// The joints of e (rows 6) into a new array, freed by the caller.
static float (*joints_of(boids_engine *e))[4] {
    size_t bytes = (size_t)6 * N * 16;
    float(*j)[4] = malloc(bytes);
    ck_assert(boids_engine_read_joints(e, j, bytes) == BOIDS_OK);
    return j;
}

// copy_agents on either backend: dst's agents become src's (the same hash)
// and its joints stay as they were; reset_bodies lays the bodies straight
// as set_agents does (the same joints as a fresh engine given the agents),
// on the GPU through the CPU's layout (bit for bit).
START_TEST(copy_agents_and_reset_bodies) {
    boids_params p = with_bodies();
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU);
    ck_assert(boids_engine_step(c, 5, NULL) == BOIDS_OK);
    for (int b = 0; b < 2; b++) {
        boids_engine *d = make(&p, b ? BOIDS_BACKEND_GPU : BOIDS_BACKEND_CPU);
        float(*before)[4] = joints_of(d);
        ck_assert(boids_engine_copy_agents(d, c) == BOIDS_OK);
        ck_assert_uint_eq(boids_engine_steps(d), 5);
        ck_assert_msg(boids_engine_hash(d) == boids_engine_hash(c), "copy_agents (%s): expected the source's hash",
                      b ? "gpu" : "cpu");
        float(*after)[4] = joints_of(d);
        ck_assert_msg(memcmp(before, after, (size_t)6 * N * 16) == 0, "copy_agents (%s): expected dst's joints kept",
                      b ? "gpu" : "cpu");
        free(before);
        free(after);
        boids_engine_destroy(d);
    }
    static float pos[N][4], vel[N][4];
    static uint32_t group[N];
    ck_assert(boids_engine_read(c, pos, vel, group) == BOIDS_OK);
    boids_engine *fresh = make(&p, BOIDS_BACKEND_CPU), *g = make(&p, BOIDS_BACKEND_GPU);
    ck_assert(boids_engine_set_agents(fresh, (const float(*)[4])pos, (const float(*)[4])vel, group) == BOIDS_OK);
    ck_assert(boids_engine_copy_state(g, c) == BOIDS_OK);
    ck_assert(boids_engine_reset_bodies(c) == BOIDS_OK);
    ck_assert(boids_engine_reset_bodies(g) == BOIDS_OK);
    float(*want)[4] = joints_of(fresh), (*cpu)[4] = joints_of(c), (*gpu)[4] = joints_of(g);
    ck_assert_msg(memcmp(want, cpu, (size_t)6 * N * 16) == 0,
                  "reset_bodies (cpu): expected set_agents' straight bodies");
    ck_assert_msg(memcmp(want, gpu, (size_t)6 * N * 16) == 0, "reset_bodies (gpu): expected the CPU's straight bodies");
    float(*arrays[])[4] = {want, cpu, gpu};
    boids_engine *engines[] = {fresh, g, c};
    for (int k = 0; k < 3; k++) {
        free(arrays[k]);
        boids_engine_destroy(engines[k]);
    }
}
END_TEST

// set_state on either backend: a CPU engine's state after 30 steps, given
// with its step counter, is that engine (the hash, the counter, the world's
// step of the last step taken, 29; 10 more steps the same hash); a speed
// above maxspeed is kept as given (set_agents would limit it); NULL arrays,
// a group out of range or a NaN are refused and change nothing.
START_TEST(set_state) {
    boids_params p = flocking();
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU);
    ck_assert(boids_engine_step(c, 30, NULL) == BOIDS_OK);
    static float pos[N][4], vel[N][4], fast[N][4], back[N][4];
    static uint32_t group[N];
    ck_assert(boids_engine_read(c, pos, vel, group) == BOIDS_OK);
    uint64_t at30 = boids_engine_hash(c);
    ck_assert(boids_engine_step(c, 10, NULL) == BOIDS_OK);
    uint64_t at40 = boids_engine_hash(c);
    boids_engine_destroy(c);
    const float(*cp)[4] = (const float(*)[4])pos, (*cv)[4] = (const float(*)[4])vel;
    memcpy(fast, vel, sizeof fast); // agent 3 twice as fast as its group's maxspeed allows
    for (int a = 0; a < 3; a++)
        fast[3][a] = 2.0f * p.group[0].maxspeed;
    for (int b = 0; b < 2; b++) {
        const char *name = b ? "gpu" : "cpu";
        boids_engine *d = make(&p, b ? BOIDS_BACKEND_GPU : BOIDS_BACKEND_CPU);
        uint64_t fresh = boids_engine_hash(d);
        ck_assert_int_eq(boids_engine_set_state(d, 30, NULL, cv, group, NULL), BOIDS_ERR_ARGUMENT);
        group[7] = 99;
        ck_assert_int_eq(boids_engine_set_state(d, 30, cp, cv, group, NULL), BOIDS_ERR_PARAM);
        group[7] = 0;
        float keep = pos[9][3];
        pos[9][3] = NAN;
        ck_assert_int_eq(boids_engine_set_state(d, 30, cp, cv, group, NULL), BOIDS_ERR_PARAM);
        pos[9][3] = keep;
        ck_assert_msg(boids_engine_hash(d) == fresh && boids_engine_steps(d) == 0,
                      "refused set_state (%s): expected the engine as it was", name);
        ck_assert(boids_engine_set_state(d, 30, cp, cv, group, NULL) == BOIDS_OK);
        ck_assert_uint_eq(boids_engine_steps(d), 30);
        ck_assert_uint_eq(boids_engine_params(d)->world.step, 29);
        ck_assert_msg(boids_engine_hash(d) == at30, "set_state (%s): expected the source's hash", name);
        ck_assert(boids_engine_step(d, 10, NULL) == BOIDS_OK);
        ck_assert_msg(boids_engine_hash(d) == at40,
                      "set_state (%s) + 10 steps: expected the source's hash %016llx, got %016llx", name,
                      (unsigned long long)at40, (unsigned long long)boids_engine_hash(d));
        ck_assert(boids_engine_set_state(d, 30, cp, (const float(*)[4])fast, group, NULL) == BOIDS_OK);
        ck_assert(boids_engine_read(d, NULL, back, NULL) == BOIDS_OK);
        ck_assert_msg(memcmp(back, fast, sizeof fast) == 0, "set_state (%s): expected the velocities as given", name);
        boids_engine_destroy(d);
    }
}
END_TEST

// set_state with joints on either backend: a CPU engine with bodies after
// 30 steps, given with its joints, has them (read back bit for bit) and 10
// more steps give the source's joints; NULL joints lay them straight (as a
// fresh engine given the agents); a NaN joint is refused, nothing changed.
START_TEST(set_state_joints) {
    boids_params p = with_bodies();
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU);
    ck_assert(boids_engine_step(c, 30, NULL) == BOIDS_OK);
    static float pos[N][4], vel[N][4];
    static uint32_t group[N];
    ck_assert(boids_engine_read(c, pos, vel, group) == BOIDS_OK);
    float(*at30)[4] = joints_of(c);
    ck_assert(boids_engine_step(c, 10, NULL) == BOIDS_OK);
    float(*at40)[4] = joints_of(c);
    boids_engine_destroy(c);
    const float(*cp)[4] = (const float(*)[4])pos, (*cv)[4] = (const float(*)[4])vel;
    for (int b = 0; b < 2; b++) {
        const char *name = b ? "gpu" : "cpu";
        boids_engine *d = make(&p, b ? BOIDS_BACKEND_GPU : BOIDS_BACKEND_CPU);
        float(*fresh)[4] = joints_of(d);
        float keep = at30[17][1];
        at30[17][1] = NAN;
        ck_assert_int_eq(boids_engine_set_state(d, 30, cp, cv, group, (const float(*)[4])at30), BOIDS_ERR_PARAM);
        at30[17][1] = keep;
        float(*same)[4] = joints_of(d);
        ck_assert_msg(memcmp(same, fresh, (size_t)6 * N * 16) == 0, "refused set_state (%s): joints changed", name);
        ck_assert(boids_engine_set_state(d, 30, cp, cv, group, (const float(*)[4])at30) == BOIDS_OK);
        float(*back)[4] = joints_of(d);
        ck_assert_msg(memcmp(back, at30, (size_t)6 * N * 16) == 0, "set_state (%s): expected the joints as given",
                      name);
        if (!b) { // the CPU's bodies stage is the reference: 10 more steps follow the source
            ck_assert(boids_engine_step(d, 10, NULL) == BOIDS_OK);
            float(*later)[4] = joints_of(d);
            ck_assert_msg(memcmp(later, at40, (size_t)6 * N * 16) == 0, "set_state (cpu) + 10 steps: joints differ");
            free(later);
        }
        ck_assert(boids_engine_set_state(d, 30, cp, cv, group, NULL) == BOIDS_OK);
        float(*straight)[4] = joints_of(d);
        ck_assert_msg(memcmp(straight, at30, (size_t)6 * N * 16) != 0,
                      "set_state (%s) without joints: expected "
                      "them laid straight, not the source's",
                      name);
        free(fresh);
        free(same);
        free(back);
        free(straight);
        boids_engine_destroy(d);
    }
    free(at30);
    free(at40);
}
END_TEST

// One headless context for two GPU engines in turn: each names its renderer
// and context (the headless one's words); the CPU names none. cells is the
// length of BOIDS_ENGINE_COUNT (whose counts sum to N), and bytes follows
// the layout, 116 per agent + 12 per cell without bodies, 16 per joint more.
START_TEST(headless_and_sizes) {
    boids_engine_headless *h = NULL;
    char err[4096] = "";
    ck_assert_msg(boids_engine_headless_open(&h, err, sizeof err) == BOIDS_OK, "headless_open: expected ok: %s", err);
    ck_assert_msg(boids_engine_headless_renderer(h)[0] != '\0', "expected a renderer's name");
    boids_params p = flocking();
    for (int k = 0; k < 2; k++) {
        boids_engine *g = NULL;
        boids_engine_desc d = {.params = &p, .backend = BOIDS_BACKEND_GPU, .headless = h, .quiet = true};
        ck_assert_msg(boids_engine_create(&g, &d, err, sizeof err) == BOIDS_OK, "engine %d on the headless: %s", k,
                      err);
        ck_assert_str_eq(boids_engine_renderer(g), boids_engine_headless_renderer(h));
        ck_assert_str_eq(boids_engine_context(g), boids_engine_headless_context(h));
        ck_assert(strstr(boids_engine_describe(g), boids_engine_renderer(g)) != NULL);
        ck_assert(boids_engine_step(g, 2, NULL) == BOIDS_OK);
        ck_assert_uint_eq(boids_engine_bytes(g), 116ull * N + 12ull * boids_engine_cells(g));
        boids_engine_destroy(g);
    }
    boids_engine_headless_close(h);
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU);
    ck_assert_str_eq(boids_engine_renderer(c), "");
    ck_assert(boids_engine_step(c, 1, NULL) == BOIDS_OK);
    uint32_t cells = boids_engine_cells(c);
    ck_assert_uint_gt(cells, 0);
    uint32_t *count = malloc((size_t)cells * 4 + 4);
    ck_assert(boids_engine_read_buffer(c, BOIDS_ENGINE_COUNT, count, (size_t)cells * 4) == BOIDS_OK);
    ck_assert(boids_engine_read_buffer(c, BOIDS_ENGINE_COUNT, count, (size_t)cells * 4 + 4) == BOIDS_ERR_ARGUMENT);
    uint64_t sum = 0;
    for (uint32_t k = 0; k < cells; k++)
        sum += count[k];
    ck_assert_msg(sum == N, "the counts of the %u cells: expected N = %u in all, got %llu", cells, N,
                  (unsigned long long)sum);
    free(count);
    // 24 more per agent: the steer's 2D flocking scratch (flocking() is 2D).
    ck_assert_uint_eq(boids_engine_bytes(c), 140ull * N + 12ull * cells);
    boids_engine_destroy(c);
    boids_params q = with_bodies();
    boids_engine *b = make(&q, BOIDS_BACKEND_CPU);
    ck_assert_uint_eq(boids_engine_bytes(b), (116ull + 16 * 6) * N + 12ull * boids_engine_cells(b));
    boids_engine_destroy(b);
}
END_TEST

// One headless context of the library at a time: while a GPU engine of its
// own context lives, a second one and headless_open are BOIDS_ERR_ARGUMENT
// naming the rule; two engines on one shared context keep their own state
// (3 and 5 steps give the CPU's hashes of 3 and 5 steps, not one of them).
START_TEST(one_headless_at_a_time) {
    boids_params p = flocking();
    boids_engine *own = make(&p, BOIDS_BACKEND_GPU), *second = NULL;
    boids_engine_desc d = {.params = &p, .backend = BOIDS_BACKEND_GPU, .quiet = true};
    char err[4096] = "";
    ck_assert_msg(boids_engine_create(&second, &d, err, sizeof err) == BOIDS_ERR_ARGUMENT && second == NULL,
                  "a second engine of its own context: expected BOIDS_ERR_ARGUMENT and no engine");
    ck_assert_msg(strstr(err, "one at a time") != NULL, "expected the line to state the rule, got '%s'", err);
    boids_engine_headless *h = NULL;
    ck_assert_msg(boids_engine_headless_open(&h, err, sizeof err) == BOIDS_ERR_ARGUMENT && h == NULL,
                  "headless_open beside an engine's own context: expected BOIDS_ERR_ARGUMENT and no context");
    boids_engine_destroy(own);
    h = headless(); // the engine's own context is closed: one may be opened again
    boids_engine *g3 = make_on(&p, BOIDS_BACKEND_GPU, h), *g5 = make_on(&p, BOIDS_BACKEND_GPU, h);
    boids_engine *c3 = make(&p, BOIDS_BACKEND_CPU), *c5 = make(&p, BOIDS_BACKEND_CPU);
    ck_assert(boids_engine_step(g3, 3, NULL) == BOIDS_OK && boids_engine_step(c3, 3, NULL) == BOIDS_OK);
    ck_assert(boids_engine_step(g5, 5, NULL) == BOIDS_OK && boids_engine_step(c5, 5, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(g3) == boids_engine_hash(c3) && boids_engine_hash(g5) == boids_engine_hash(c5),
                  "two engines on one context: expected the CPU's hashes of 3 and 5 steps (each its own buffers)");
    ck_assert_msg(boids_engine_hash(c3) != boids_engine_hash(c5), "3 and 5 steps: expected different states");
    boids_engine *engines[] = {g3, g5, c3, c5};
    for (int k = 0; k < 4; k++)
        boids_engine_destroy(engines[k]);
    boids_engine_headless_close(h);
}
END_TEST

// set_behaviors: one group's mask changes only that group's; UINT32_MAX
// sets every group's; a group past group_count is BOIDS_ERR_ARGUMENT and
// changes nothing.
START_TEST(set_behaviors_one_and_all) {
    char err[512] = "";
    boids_params p = flocking();
    p.world.group_count = 3;
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    boids_engine *e = make(&p, BOIDS_BACKEND_CPU);
    uint32_t before[3];
    for (int g = 0; g < 3; g++)
        before[g] = boids_engine_params(e)->group[g].behaviors;
    const uint32_t sep = BOIDS_BIT(BOIDS_BI_SEPARATION), wander = BOIDS_BIT(BOIDS_BI_WANDER);
    ck_assert(boids_engine_set_behaviors(e, 1, sep, err, sizeof err) == BOIDS_OK);
    const boids_params *q = boids_engine_params(e);
    ck_assert_msg(q->group[1].behaviors == sep && q->group[0].behaviors == before[0] &&
                      q->group[2].behaviors == before[2],
                  "group 1 only: expected group 1 = separation, groups 0 and 2 as before");
    ck_assert_msg(boids_engine_set_behaviors(e, 3, wander, err, sizeof err) == BOIDS_ERR_ARGUMENT,
                  "group 3 of 3: expected BOIDS_ERR_ARGUMENT");
    ck_assert_msg(q->group[1].behaviors == sep && q->group[0].behaviors == before[0],
                  "a refused group: expected nothing changed");
    ck_assert(boids_engine_set_behaviors(e, UINT32_MAX, wander, err, sizeof err) == BOIDS_OK);
    for (int g = 0; g < 3; g++)
        ck_assert_msg(q->group[g].behaviors == wander, "UINT32_MAX: expected group %d = wander", g);
    uint32_t mask = 7;
    ck_assert_msg(boids_engine_behaviors(e, 2, &mask) == BOIDS_OK && mask == wander,
                  "boids_engine_behaviors(group 2): expected wander, got %08x", mask);
    mask = 7;
    ck_assert_msg(boids_engine_behaviors(e, 3, &mask) == BOIDS_ERR_ARGUMENT && mask == 7,
                  "boids_engine_behaviors(group 3 of 3): expected BOIDS_ERR_ARGUMENT, *out untouched");
    boids_engine_destroy(e);
}
END_TEST

// desc.seed replaces the defaults' seed (1): seed 1 is the zero desc's
// flock, another seed (with high bits) another, the same as params with
// that seed.
START_TEST(desc_seed) {
    boids_engine *a, *b, *c, *d;
    boids_params p;
    boids_params_default(&p, 300, 2);
    p.world.seed_lo = 0x89abcdefu;
    p.world.seed_hi = 0x1234u;
    ck_assert(boids_engine_create(&a, &(boids_engine_desc){.count = 300}, NULL, 0) == BOIDS_OK);
    ck_assert(boids_engine_create(&b, &(boids_engine_desc){.count = 300, .seed = 1}, NULL, 0) == BOIDS_OK);
    ck_assert(boids_engine_create(&c, &(boids_engine_desc){.count = 300, .seed = 0x123489abcdefull}, NULL, 0) ==
              BOIDS_OK);
    ck_assert(boids_engine_create(&d, &(boids_engine_desc){.params = &p}, NULL, 0) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(a) == boids_engine_hash(b), "seed 1: expected the default flock");
    ck_assert_msg(boids_engine_hash(c) != boids_engine_hash(a), "seed 0x123489abcdef: expected another flock");
    ck_assert_msg(boids_engine_hash(c) == boids_engine_hash(d), "desc.seed: expected params' seed's flock");
    boids_engine_destroy(a);
    boids_engine_destroy(b);
    boids_engine_destroy(c);
    boids_engine_destroy(d);
}
END_TEST

// A recording through the engine: opened at step 3 with every 5, it holds
// the state of now (step 3) and then steps 5, 10, 15 of 12 more steps: 4
// frames, the last at 15, and the file reads back with those 4 frames. A
// second open while one is open and every 0 are BOIDS_ERR_ARGUMENT.
START_TEST(record_frames) {
    boids_params p = flocking();
    boids_engine *e = make(&p, BOIDS_BACKEND_CPU);
    ck_assert(boids_engine_step(e, 3, NULL) == BOIDS_OK);
    char err[1200] = "";
    const char *path = TMP "/engine.boidsrec";
    ck_assert_msg(boids_engine_record_open(e, path, 0, err, sizeof err) == BOIDS_ERR_ARGUMENT,
                  "every 0: expected BOIDS_ERR_ARGUMENT");
    ck_assert_msg(boids_engine_record_open(e, path, 5, err, sizeof err) == BOIDS_OK, "record_open: %s", err);
    ck_assert_msg(boids_engine_record_open(e, path, 5, err, sizeof err) == BOIDS_ERR_ARGUMENT,
                  "a second open: expected BOIDS_ERR_ARGUMENT (one recording at a time)");
    uint64_t done = 0;
    ck_assert(boids_engine_step(e, 12, &done) == BOIDS_OK && done == 12);
    uint32_t frames = 0;
    uint64_t last = 0;
    ck_assert_msg(boids_engine_record_close(e, &frames, &last, err, sizeof err) == BOIDS_OK, "close: %s", err);
    ck_assert_msg(frames == 4 && last == 15, "expected 4 frames (steps 3, 5, 10, 15), the last at 15; got %u at %llu",
                  frames, (unsigned long long)last);
    boids_recording *r = NULL;
    ck_assert_msg(boids_recording_open(path, &r, err, sizeof err) == BOIDS_OK, "reading it back: %s", err);
    ck_assert_msg(boids_recording_get_info(r)->frames == 4 && boids_recording_get_info(r)->count == N,
                  "the file: expected 4 frames of N agents");
    boids_recording_close(r);
    ck_assert_msg(boids_engine_record_close(e, &frames, NULL, err, sizeof err) == BOIDS_OK && frames == 0,
                  "closing with nothing open: expected ok and 0 frames");
    boids_engine_destroy(e);
}
END_TEST

// load of a damaged snapshot (one byte of a valid one flipped, inside its
// chunks) fails with a line that names the file, and no engine.
START_TEST(load_damaged_names_the_file) {
    boids_params p = flocking();
    boids_engine *e = make(&p, BOIDS_BACKEND_CPU);
    const char *path = TMP "/engine_damaged.boids";
    char err[1200] = "";
    ck_assert_msg(boids_engine_save(e, path, err, sizeof err) == BOIDS_OK, "save: %s", err);
    boids_engine_destroy(e);
    FILE *f = fopen(path, "r+b");
    ck_assert(f != NULL);
    ck_assert(fseek(f, 200, SEEK_SET) == 0);
    int c = fgetc(f);
    ck_assert(c != EOF && fseek(f, 200, SEEK_SET) == 0);
    fputc(c ^ 0x5A, f);
    fclose(f);
    boids_engine *l = NULL;
    boids_result r = boids_engine_load(&l, path, NULL, err, sizeof err);
    ck_assert_msg(r != BOIDS_OK && l == NULL, "a flipped byte: expected an error and no engine, got %s",
                  boids_result_str(r));
    ck_assert_msg(strstr(err, path) == err, "expected the line to begin with the file's name '%s', got '%s'", path,
                  err);
}
END_TEST

// NULL where the header allows it: destroy and headless_close of NULL do
// nothing, and err may be NULL (a GPU create writes no line then, and a
// refused CPU create still returns the error and no engine).
START_TEST(null_arguments) {
    boids_engine_destroy(NULL);
    boids_engine_headless_close(NULL);
    boids_params p = flocking();
    boids_engine *g = NULL, *bad = NULL;
    boids_engine_desc d = {.params = &p, .backend = BOIDS_BACKEND_GPU, .quiet = true};
    ck_assert_msg(boids_engine_create(&g, &d, NULL, 0) == BOIDS_OK && g != NULL,
                  "a GPU engine with err NULL: expected ok (a GL 4.5 context is required)");
    ck_assert(boids_engine_check(g, NULL, 0) == BOIDS_OK);
    boids_engine_destroy(g);
    static float pos[N][4];
    boids_engine_desc half = {.params = &p, .pos = (const float(*)[4])pos};
    char err[256] = "";
    ck_assert_msg(boids_engine_create(&bad, &half, err, sizeof err) == BOIDS_ERR_ARGUMENT && bad == NULL,
                  "pos without vel and group: expected BOIDS_ERR_ARGUMENT (all three or none), got '%s'", err);
    p.world.count = 0xFFFFFFFFu; // above BOIDS_MAX_AGENTS: finalize refuses it
    boids_engine_desc c = {.params = &p};
    boids_result r = boids_engine_create(&bad, &c, NULL, 0);
    ck_assert_msg(r != BOIDS_OK && bad == NULL, "count 2^32-1 with err NULL: expected an error and no engine, got %s",
                  boids_result_str(r));
}
END_TEST

// Whether err names the function and says NULL (ENGINE_NULL's line).
static void says_null(const char *err, const char *fn) {
    ck_assert_msg(strstr(err, fn) && strstr(err, "NULL"), "%s(NULL): expected err naming %s and NULL, got '%s'", fn, fn,
                  err);
}

// Every function of boids/engine.h that takes a handle, given NULL for it:
// BOIDS_ERR_ARGUMENT (err naming the function where one is taken) or the
// header's neutral value; none crashes. NULL out-pointers likewise.
START_TEST(null_handles) {
    const boids_result A = BOIDS_ERR_ARGUMENT;
    char err[512];
    boids_engine *out = (boids_engine *)&err; // must become NULL where an error sets *out
    err[0] = '\0';
    ck_assert(boids_engine_create(NULL, NULL, err, sizeof err) == A);
    says_null(err, "boids_engine_create");
    ck_assert(boids_engine_create_scenario(NULL, "flocking", NULL, err, sizeof err) == A);
    says_null(err, "boids_engine_create_scenario");
    ck_assert(boids_engine_load(NULL, TMP "/x.boids", NULL, err, sizeof err) == A);
    ck_assert(boids_engine_load(&out, NULL, NULL, err, sizeof err) == A && out == NULL);
    says_null(err, "boids_engine_load");
    ck_assert(boids_engine_headless_open(NULL, err, sizeof err) == A);
    says_null(err, "boids_engine_headless_open");
    ck_assert(strcmp(boids_engine_headless_renderer(NULL), "") == 0);
    ck_assert(strcmp(boids_engine_headless_context(NULL), "") == 0);
    boids_engine_destroy(NULL);
    boids_engine_headless_close(NULL);

    boids_engine *e = NULL;
    uint64_t done = 7;
    ck_assert(boids_engine_step(e, 3, &done) == A && done == 0);
    boids_params p = flocking();
    boids_sim *s = NULL;
    ck_assert(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK);
    ck_assert(boids_engine_step_agents(e, s, false, err, sizeof err) == A);
    says_null(err, "boids_engine_step_agents");
    ck_assert(boids_engine_params(e) == NULL);
    ck_assert(boids_engine_set_params(e, &p, err, sizeof err) == A);
    says_null(err, "boids_engine_set_params");
    ck_assert(boids_engine_set_behaviors(e, 0, BOIDS_B_FLOCKING, err, sizeof err) == A);
    ck_assert(boids_engine_set_group_value(e, 0, "maxspeed", 2.0f, err, sizeof err) == A);
    says_null(err, "boids_engine_set_group_value");
    uint32_t mask = 7;
    ck_assert(boids_engine_behaviors(e, 0, &mask) == A && mask == 7);
    ck_assert(boids_engine_scenario(e) == NULL);
    boids_scenario *sc = malloc(sizeof *sc);
    ck_assert(sc != NULL);
    boids_scenario_default(sc);
    ck_assert(boids_engine_set_scenario(e, sc, err, sizeof err) == A);
    says_null(err, "boids_engine_set_scenario");
    static float pos[N][4], vel[N][4];
    static uint32_t group[N];
    ck_assert(boids_engine_read(e, pos, vel, group) == A);
    ck_assert(boids_engine_read_joints(e, pos, 0) == A);
    ck_assert(boids_engine_set_agents(e, (const float(*)[4])pos, (const float(*)[4])vel, group) == A);
    ck_assert(boids_engine_set_state(e, 0, (const float(*)[4])pos, (const float(*)[4])vel, group, NULL) == A);
    ck_assert(boids_engine_copy_state(e, e) == A);
    ck_assert(boids_engine_copy_agents(e, e) == A);
    ck_assert(boids_engine_reset_bodies(e) == A);
    ck_assert(boids_engine_read_buffer(e, BOIDS_ENGINE_POS, pos, sizeof pos) == A);
    ck_assert(boids_engine_stage(e, BOIDS_ENGINE_STAGE_GRID) == A);
    boids_stage_ms ms;
    memset(&ms, 0xAB, sizeof ms);
    boids_engine_stage_ms(e, true, &ms);
    ck_assert_msg(ms.key == 0.0 && ms.steer == 0.0 && ms.bodies == 0.0, "stage_ms(NULL): expected zeros");
    boids_stats st;
    ck_assert(boids_engine_stats(e, &st) == A);
    double values[BOIDS_ENGINE_STATS_MAX];
    ck_assert(boids_engine_stat_values(e, UINT32_MAX, values) == A);
    ck_assert(boids_engine_hash(e) == 0);
    ck_assert(boids_engine_check(e, err, sizeof err) == A);
    says_null(err, "boids_engine_check");
    ck_assert(boids_engine_save(e, TMP "/null.boids", err, sizeof err) == A);
    says_null(err, "boids_engine_save");
    ck_assert(boids_engine_write_csv(e, TMP "/null.csv", err, sizeof err) == A);
    says_null(err, "boids_engine_write_csv");
    uint64_t step = 7;
    ck_assert(!boids_engine_last_good(e, &step) && step == 0);
    ck_assert(boids_engine_record_open(e, TMP "/null.boidsrec", 1, err, sizeof err) == A);
    says_null(err, "boids_engine_record_open");
    uint32_t frames = 7;
    ck_assert(boids_engine_record_close(e, &frames, &step, err, sizeof err) == A && frames == 0 && step == 0);
    says_null(err, "boids_engine_record_close");
    ck_assert(strcmp(boids_engine_error(e), "") == 0);
    boids_engine_gl gl;
    memset(&gl, 0xAB, sizeof gl);
    ck_assert(boids_engine_gl_buffers(e, &gl) == A && gl.pos == 0 && gl.joint_rows == 0);
    ck_assert(!boids_engine_corrects_rounding(e));
    boids_engine_prepare(e, p.group);
    boids_steer_info info;
    memset(&info, 0xAB, sizeof info);
    boids_engine_steer_info(e, &info);
    boids_steer_info zero;
    memset(&zero, 0, sizeof zero);
    ck_assert_msg(memcmp(&info, &zero, sizeof info) == 0, "steer_info(NULL): expected zeros");
    static boids_program_stats ps[BOIDS_PROGRAMS_MAX];
    uint32_t rows = 7;
    ck_assert(boids_engine_program_stats(e, ps, &rows) == A && rows == 0);
    ck_assert(boids_engine_count(e) == 0 && boids_engine_dim(e) == 0 && boids_engine_steps(e) == 0);
    ck_assert(boids_engine_backend(e) == BOIDS_BACKEND_CPU);
    ck_assert(strcmp(boids_engine_describe(e), "") == 0 && strcmp(boids_engine_renderer(e), "") == 0 &&
              strcmp(boids_engine_context(e), "") == 0);
    ck_assert(boids_engine_cells(e) == 0 && boids_engine_grid_fine(e) == 0 && boids_engine_bytes(e) == 0);

    // A real engine with NULL for the other pointers it needs.
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU);
    uint64_t before = boids_engine_hash(c);
    ck_assert(boids_engine_set_params(c, NULL, err, sizeof err) == A);
    ck_assert(boids_engine_set_scenario(c, NULL, err, sizeof err) == A);
    ck_assert(boids_engine_behaviors(c, 0, NULL) == A);
    ck_assert(boids_engine_copy_state(c, NULL) == A && boids_engine_copy_state(NULL, c) == A);
    ck_assert(boids_engine_stats(c, NULL) == A);
    ck_assert(boids_engine_stat_values(c, UINT32_MAX, NULL) == A);
    ck_assert(boids_engine_read_buffer(c, BOIDS_ENGINE_POS, NULL, N * 16) == A);
    ck_assert(boids_engine_save(c, NULL, err, sizeof err) == A);
    says_null(err, "boids_engine_save");
    ck_assert(boids_engine_gl_buffers(c, NULL) == A);
    ck_assert(boids_engine_program_stats(c, ps, NULL) == A);
    boids_engine_stage_ms(c, false, NULL);
    boids_engine_steer_info(c, NULL);
    boids_engine_prepare(c, NULL);
    ck_assert_msg(boids_engine_hash(c) == before, "refused calls: expected the state unchanged");
    boids_engine_destroy(c);
    boids_sim_destroy(s);
    free(sc);
}
END_TEST

// set_behaviors is checked as a snapshot's load checks the mask: every bit
// set (0xffffffff, past BOIDS_BEHAVIOR_COUNT) is BOIDS_ERR_PARAM with the
// line in err and nothing changed; a group past the count is
// BOIDS_ERR_ARGUMENT; a mask the rules refuse (heading boids with wander)
// is finalize's error; an accepted mask saves a snapshot that loads.
START_TEST(set_behaviors_checked) {
    char err[512] = "";
    boids_params p = flocking();
    boids_engine *e = make(&p, BOIDS_BACKEND_CPU);
    const uint32_t before = boids_engine_params(e)->group[0].behaviors;
    ck_assert_msg(boids_engine_set_behaviors(e, UINT32_MAX, 0xffffffffu, err, sizeof err) == BOIDS_ERR_PARAM,
                  "mask 0xffffffff: expected BOIDS_ERR_PARAM (bits %u.. name no behaviour)", BOIDS_BEHAVIOR_COUNT);
    ck_assert_msg(boids_engine_params(e)->group[0].behaviors == before, "a refused mask: expected nothing changed");
    const char *line = err;
    ck_assert_msg(strstr(line, "behaviors") && strstr(line, "0xffffffff") && strstr(line, "expected"),
                  "expected a line naming behaviors, the value and what is allowed, got '%s'", line);
    ck_assert_msg(boids_engine_set_behaviors(e, 1, BOIDS_B_FLOCKING, err, sizeof err) == BOIDS_ERR_ARGUMENT,
                  "group 1 of 1: expected BOIDS_ERR_ARGUMENT");
    ck_assert_msg(strstr(err, "group: 1"), "expected 'group: 1 ...', got '%s'", err);
    boids_engine_destroy(e);

    boids_params h = flocking();
    h.group[0].rules = BOIDS_RULES_HEADING;
    ck_assert(boids_params_finalize(&h, NULL, 0) == BOIDS_OK);
    e = make(&h, BOIDS_BACKEND_CPU);
    const uint32_t wander = BOIDS_BIT(BOIDS_BI_WANDER);
    ck_assert_msg(boids_engine_set_behaviors(e, 0, BOIDS_B_FLOCKING | wander, err, sizeof err) == BOIDS_ERR_PARAM,
                  "heading rules with wander: expected BOIDS_ERR_PARAM (finalize: separation, alignment, cohesion)");
    ck_assert_msg(strstr(err, "heading"), "expected finalize's heading line, got '%s'", err);
    ck_assert(boids_engine_set_behaviors(e, 0, BOIDS_BIT(BOIDS_BI_SEPARATION), err, sizeof err) == BOIDS_OK);
    const char *path = TMP "/engine_behaviors.boids";
    ck_assert_msg(boids_engine_save(e, path, err, sizeof err) == BOIDS_OK, "save: %s", err);
    boids_engine *l = NULL;
    ck_assert_msg(boids_engine_load(&l, path, NULL, err, sizeof err) == BOIDS_OK, "an accepted mask's snapshot: %s",
                  err);
    ck_assert(boids_engine_params(l)->group[0].behaviors == BOIDS_BIT(BOIDS_BI_SEPARATION));
    boids_engine_destroy(l);
    boids_engine_destroy(e);
}
END_TEST

// boids_version: the library's version string is the headers' BOIDS_VERSION
// and CMakeLists.txt's project version, its numbers the macros'.
START_TEST(version) {
    int major = -1, minor = -1, patch = -1;
    const char *v = boids_version(&major, &minor, &patch);
    ck_assert_msg(v && strcmp(v, BOIDS_VERSION) == 0, "boids_version: '%s', BOIDS_VERSION '%s'", v, BOIDS_VERSION);
    ck_assert_msg(strcmp(v, BOIDS_PROJECT_VERSION) == 0, "boids_version: '%s', the project's (CMakeLists.txt) '%s'", v,
                  BOIDS_PROJECT_VERSION);
    ck_assert(major == BOIDS_VERSION_MAJOR && minor == BOIDS_VERSION_MINOR && patch == BOIDS_VERSION_PATCH);
    char joined[64];
    snprintf(joined, sizeof joined, "%d.%d.%d", major, minor, patch);
    ck_assert_msg(strcmp(joined, v) == 0, "numbers %s, string %s", joined, v);
    ck_assert(boids_version(NULL, NULL, NULL) == v);
}
END_TEST

// desc.debug.fault lost@3: step 10 returns BOIDS_ERR_GPU_LOST after 3
// steps, and read leaves the caller's memory as it was (0xAB bytes stay).
START_TEST(fault_lost) {
    boids_params p = flocking();
    boids_engine *g = NULL;
    char err[4096] = "";
    boids_engine_desc d = {.params = &p, .backend = BOIDS_BACKEND_GPU, .quiet = true, .debug = {.fault = "lost@3"}};
    ck_assert_msg(boids_engine_create(&g, &d, err, sizeof err) == BOIDS_OK, "create: %s", err);
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
}
END_TEST

// Saves after a fault (BOIDS_DEBUG=fault=lost@3, which the engine takes as
// desc.debug.fault): with a trusted read-back (the
// save at step 2) the last good state is written, step 2; with none (after
// copy_agents the mirror's joints are not the GPU's, so it is not trusted)
// the save is refused, "FILE: not written: <the loss>", and no file made.
START_TEST(save_after_a_fault) {
    setenv("BOIDS_DEBUG", "fault=lost@3", 1);
    boids_params p = flocking();
    boids_engine *g = make(&p, BOIDS_BACKEND_GPU);
    char err[1200] = "";
    const char *good = TMP "/engine_fault_good.boids", *none = TMP "/engine_fault_none.boids";
    remove(none);
    ck_assert(boids_engine_step(g, 2, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_save(g, good, err, sizeof err) == BOIDS_OK, "save at step 2: %s", err);
    ck_assert(boids_engine_step(g, 5, NULL) == BOIDS_ERR_GPU_LOST);
    uint64_t step = 0;
    ck_assert_msg(boids_engine_last_good(g, &step) && step == 2,
                  "after the loss: expected the read-back of step 2 as the last good state, got %llu",
                  (unsigned long long)step);
    ck_assert_msg(boids_engine_save(g, good, err, sizeof err) == BOIDS_OK, "save of the last good state: %s", err);
    boids_engine *l = NULL;
    ck_assert_msg(boids_engine_load(&l, good, NULL, err, sizeof err) == BOIDS_OK, "load: %s", err);
    ck_assert_msg(boids_engine_steps(l) == 2, "the saved state: expected step 2 (the last good), got %llu",
                  (unsigned long long)boids_engine_steps(l));
    boids_engine_destroy(l);
    boids_engine_destroy(g);
    g = make(&p, BOIDS_BACKEND_GPU);
    boids_engine *c = make(&p, BOIDS_BACKEND_CPU);
    ck_assert(boids_engine_copy_agents(g, c) == BOIDS_OK);
    ck_assert(boids_engine_step(g, 10, NULL) == BOIDS_ERR_GPU_LOST);
    ck_assert_msg(!boids_engine_last_good(g, NULL), "after copy_agents and the loss: expected no trusted state");
    ck_assert_msg(boids_engine_save(g, none, err, sizeof err) == BOIDS_ERR_GPU_LOST,
                  "save with no trusted state: expected the fault BOIDS_ERR_GPU_LOST");
    ck_assert_msg(strstr(err, "not written") && strstr(err, "lost"),
                  "expected 'FILE: not written: <the loss>', got '%s'", err);
    FILE *f = fopen(none, "rb");
    ck_assert_msg(f == NULL, "a refused save: expected no file %s", none);
    boids_engine_destroy(c);
    boids_engine_destroy(g);
    unsetenv("BOIDS_DEBUG");
}
END_TEST

// The test hooks: a field the desc leaves zero takes BOIDS_DEBUG's item, a
// field it sets wins; a bad value is BOIDS_ERR_ARGUMENT before any GL, its
// line naming the input (BOIDS_DEBUG's item or the desc's field), the value
// and what is allowed; boids_engine_fault_env checks BOIDS_DEBUG alone.
START_TEST(debug_hooks) {
    boids_params p = flocking();
    char err[4096] = "";
    boids_engine *e = NULL;
    setenv("BOIDS_DEBUG", "correct-rounding=on;no-int64", 1);
    e = make(&p, BOIDS_BACKEND_GPU);
    ck_assert_msg(boids_engine_corrects_rounding(e), "correct-rounding=on: expected the correction compiled in");
    boids_engine_destroy(e);
    boids_engine_desc d = {.params = &p,
                           .backend = BOIDS_BACKEND_GPU,
                           .quiet = true,
                           .debug = {.correct_rounding = BOIDS_DEBUG_ROUNDING_OFF}};
    ck_assert_msg(boids_engine_create(&e, &d, err, sizeof err) == BOIDS_OK, "create: %s", err);
    ck_assert_msg(!boids_engine_corrects_rounding(e), "desc OFF over BOIDS_DEBUG's on: expected no correction");
    boids_engine_destroy(e);
    static const struct {
        const char *env, *fault, *line;
    } bad[] = {
        {"fault=lost@zero", NULL,
         "BOIDS_DEBUG fault: 'lost@zero' is not a fault; expected lost@STEP, error@STEP (STEP 1..1000000000) or oom"},
        {"emulate=conv-sat,sqrt", NULL, "BOIDS_DEBUG emulate: 'conv-sat,sqrt' is not a list of emulations; expected"},
        {"correct-rounding=1", NULL, "BOIDS_DEBUG correct-rounding: '1' is not a setting; expected auto, on or off"},
        {"steer-general=yes", NULL,
         "BOIDS_DEBUG steer-general: 'yes' is not a switch; expected the bare name, on, off"},
        {NULL, "oops", "debug.fault: 'oops' is not a fault; expected lost@STEP, error@STEP"},
        // A typo of a hook's name is refused, not ignored.
        {"no-int64;fualt=lost@3", NULL, "BOIDS_DEBUG: 'fualt' is not a hook; expected items of fault, emulate"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        if (bad[k].env)
            setenv("BOIDS_DEBUG", bad[k].env, 1);
        else
            unsetenv("BOIDS_DEBUG");
        boids_engine_desc b = {
            .params = &p, .backend = BOIDS_BACKEND_GPU, .quiet = true, .debug = {.fault = bad[k].fault}};
        e = NULL;
        err[0] = '\0';
        ck_assert_int_eq(boids_engine_create(&e, &b, err, sizeof err), BOIDS_ERR_ARGUMENT);
        ck_assert_ptr_null(e);
        ck_assert_msg(strncmp(err, bad[k].line, strlen(bad[k].line)) == 0, "expected '%s...', got '%s'", bad[k].line,
                      err);
        err[0] = '\0';
        boids_result r = boids_engine_fault_env(err, sizeof err);
        ck_assert_msg(bad[k].env ? r == BOIDS_ERR_ARGUMENT && strncmp(err, bad[k].line, strlen(bad[k].line)) == 0
                                 : r == BOIDS_OK,
                      "fault_env: %s, '%s'", boids_result_str(r), err);
    }
    unsetenv("BOIDS_DEBUG");
}
END_TEST

int main(void) {
    const boids_test_case cases[] = {
        {"cpu_is_the_sim", cpu_is_the_sim},
        {"update_order", update_order},
        {"gpu_equals_cpu", gpu_equals_cpu},
        {"set_params_shape", set_params_shape},
        {"set_group_value", set_group_value},
        {"create_scenario", create_scenario},
        {"save_load_cpu", save_load_cpu},
        {"save_load_gpu", save_load_gpu},
        {"copy_state_and_stages", copy_state_and_stages},
        {"copy_agents_and_reset_bodies", copy_agents_and_reset_bodies},
        {"set_state", set_state},
        {"set_state_joints", set_state_joints},
        {"headless_and_sizes", headless_and_sizes},
        {"one_headless_at_a_time", one_headless_at_a_time},
        {"set_behaviors_one_and_all", set_behaviors_one_and_all},
        {"desc_seed", desc_seed},
        {"record_frames", record_frames},
        {"load_damaged_names_the_file", load_damaged_names_the_file},
        {"null_arguments", null_arguments},
        {"null_handles", null_handles},
        {"set_behaviors_checked", set_behaviors_checked},
        {"version", version},
        {"fault_lost", fault_lost},
        {"save_after_a_fault", save_after_a_fault},
        {"debug_hooks", debug_hooks},
    };
    return boids_test_main("engine", cases, sizeof cases / sizeof cases[0], TMP);
}
