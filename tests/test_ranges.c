// tests/test_ranges.c: per-agent parameter ranges (maxspeed_range,
// maxforce_range: the flow-field example's random(2, 5) and random(0.1, 0.5))
// and the line target (the pursuit exercise: a target crossing the world at
// constant velocity, bouncing at the edges). By hand from their formulas, in
// the simulation (every use of an agent's maxspeed / maxforce), through
// scenario files, snapshots and boids-run. GPU parity: tests/test_gpu.c
// (three_groups gives two of its groups ranges).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>

#include "ref_rng.h"
#include "boids/behaviors.h"
#include "boids/core.h"
#include "boids/scenario.h"
#include "boids/snapshot.h"
#include "spawn.h"

static char err[1024];

// ---- the draw, by hand ----------------------------------------------------------

// hash(seed, id, step = 0, stream): the fold of docs/ARCHITECTURE.md (RNG).
static uint32_t draw_bits(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, uint32_t stream) {
    return ref_rng_u32(seed_lo, seed_hi, id, 0u, stream);
}

START_TEST(value_by_hand) {
    // Streams of their own: 5 (maxspeed) and 6 (maxforce).
    ck_assert_uint_eq(BOIDS_RNG_MAXSPEED, 5u);
    ck_assert_uint_eq(BOIDS_RNG_MAXFORCE, 6u);
    const uint32_t seeds[][2] = {{1, 0}, {7, 0x12345u}, {0xffffffffu, 0xffffffffu}};
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++)
        for (uint32_t id = 0; id < 2000; id += 37) {
            uint32_t bits = draw_bits(seeds[k][0], seeds[k][1], id, 5u);
            float u = (float)(bits >> 8) / 16777216.0f; // the top 24 bits: exact
            float want = 2.0f + (5.0f - 2.0f) * u;
            float got = boids_agent_range(seeds[k][0], seeds[k][1], id, 2.0f, 5.0f, 3.0f, BOIDS_RNG_MAXSPEED);
            ck_assert_msg(got == want, "seed %u/%u id %u: expected 2 + 3 u = %.9g (u = %.9g), got %.9g", seeds[k][0],
                          seeds[k][1], id, (double)want, (double)u, (double)got);
            // Through the group: maxspeed and maxforce draw from their own streams.
            boids_world_params w = {.seed_lo = seeds[k][0], .seed_hi = seeds[k][1]};
            boids_group_params g = {.maxspeed = 3.0f, .maxforce = 0.05f};
            g.maxspeed_lo = 2.0f, g.maxspeed_hi = 5.0f, g.maxforce_lo = 0.1f, g.maxforce_hi = 0.5f;
            ck_assert(boids_agent_maxspeed(&w, &g, id) == want);
            float uf = (float)(draw_bits(seeds[k][0], seeds[k][1], id, 6u) >> 8) / 16777216.0f;
            ck_assert(boids_agent_maxforce(&w, &g, id) == 0.1f + (0.5f - 0.1f) * uf);
            // No range: the group's value, bit for bit.
            g.maxspeed_lo = g.maxspeed_hi = 0.0f;
            ck_assert(boids_agent_maxspeed(&w, &g, id) == 3.0f);
        }
    // A range of one value: that value for every agent.
    ck_assert(boids_agent_range(1, 0, 99, 4.0f, 4.0f, 3.0f, BOIDS_RNG_MAXSPEED) == 4.0f);
}
END_TEST

// ---- in the simulation ----------------------------------------------------------------

// The flow-field example's vehicles: maxspeed 2..5, maxforce 0.1..0.5, seeking the centre.
static void ranged_params(boids_params *p, uint32_t n) {
    boids_params_default(p, n, 2);
    for (uint32_t a = 0; a < 2; a++)
        p->world.size[a] = 2000.0f;
    p->group[0].behaviors = BOIDS_BIT(BOIDS_BI_SEEK);
    p->group[0].maxspeed_lo = 2.0f;
    p->group[0].maxspeed_hi = 5.0f;
    p->group[0].maxforce_lo = 0.1f;
    p->group[0].maxforce_hi = 0.5f;
    ck_assert_int_eq(boids_params_finalize(p, err, sizeof err), BOIDS_OK);
}

START_TEST(range_respected_and_mean) {
    const uint32_t n = 20000;
    boids_params p;
    ranged_params(&p, n);
    // The fastest agent may go 5: the alignment scale and the half-world check use it.
    ck_assert_float_eq(p.world.max_speed_all, 5.0f);
    double sum_s = 0, sum_f = 0, min_s = 1e9, max_s = 0, min_f = 1e9, max_f = 0;
    for (uint32_t id = 0; id < n; id++) {
        double s = boids_agent_maxspeed(&p.world, &p.group[0], id), f = boids_agent_maxforce(&p.world, &p.group[0], id);
        ck_assert_msg(s >= 2.0 && s < 5.0 && f >= 0.1f && f < 0.5f, "agent %u: maxspeed %g, maxforce %g", id, s, f);
        sum_s += s, sum_f += f;
        min_s = fmin(min_s, s), max_s = fmax(max_s, s), min_f = fmin(min_f, f), max_f = fmax(max_f, f);
    }
    // Uniform: mean (lo + hi) / 2 within 4 standard errors ((hi - lo) / sqrt(12 n)).
    ck_assert_msg(fabs(sum_s / n - 3.5) < 4 * 3.0 / sqrt(12.0 * n), "mean maxspeed %g, expected 3.5", sum_s / n);
    ck_assert_msg(fabs(sum_f / n - 0.3) < 4 * 0.4 / sqrt(12.0 * n), "mean maxforce %g, expected 0.3", sum_f / n);
    ck_assert(min_s < 2.01 && max_s > 4.99 && min_f < 0.102 && max_f > 0.498);

    boids_sim *s;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    // Initial speeds: 50-100 % of the agent's own maxspeed.
    for (uint32_t i = 0; i < s->n; i++) {
        float own = boids_agent_maxspeed(&s->p.world, &s->p.group[0], s->cur.id[i]);
        float v = sqrtf(s->cur.vel[i][0] * s->cur.vel[i][0] + s->cur.vel[i][1] * s->cur.vel[i][1]);
        ck_assert_msg(v >= 0.5f * own * 0.9999f && v <= own * 1.0001f, "agent %u starts at %g, its maxspeed %g",
                      s->cur.id[i], (double)v, (double)own);
    }
    // Steer: each agent's seek force is limited by its own maxforce, and
    // reaches it (they start far from the target); integrate: its speed by
    // its own maxspeed, which it reaches after enough steps of seeking.
    uint32_t above_group = 0;
    for (int k = 0; k < 60; k++) {
        boids_sim_build_grid(s);
        boids_sim_steer(s);
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t id = s->cur.id[i];
            float own = boids_agent_maxforce(&s->p.world, &s->p.group[0], id);
            float a = sqrtf(s->accel[i][0] * s->accel[i][0] + s->accel[i][1] * s->accel[i][1]);
            ck_assert_msg(a <= own * 1.0001f, "step %d agent %u: force %g above its maxforce %g", k, id, (double)a,
                          (double)own);
            if (k == 0 && a > 0.06f)
                above_group++; // the group's maxforce is 0.05
        }
        boids_sim_integrate(s);
        s->step++;
        s->p.world.step = (uint32_t)s->step;
    }
    ck_assert_msg(above_group > n / 2, "only %u agents steer harder than the group's maxforce 0.05", above_group);
    uint32_t at_own = 0, faster_than_group = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        float own = boids_agent_maxspeed(&s->p.world, &s->p.group[0], s->cur.id[i]);
        float v = sqrtf(s->cur.vel[i][0] * s->cur.vel[i][0] + s->cur.vel[i][1] * s->cur.vel[i][1]);
        ck_assert_msg(v <= own * 1.0001f, "agent %u at %g, above its maxspeed %g", s->cur.id[i], (double)v,
                      (double)own);
        at_own += v >= own * 0.999f;
        faster_than_group += v > 3.01f;
    }
    ck_assert_msg(at_own > n * 9 / 10, "only %u of %u agents reached their own maxspeed", at_own, n);
    ck_assert_msg(faster_than_group > n / 4, "only %u agents faster than the group's maxspeed 3", faster_than_group);
    boids_sim_destroy(s);
}
END_TEST

// The draw depends on the id, never the slot or the thread count; set_agents
// clamps to the agent's own maxspeed.
START_TEST(threads_slots_and_set_agents) {
    boids_params p;
    ranged_params(&p, 3000);
    p.group[0].behaviors = BOIDS_B_FLOCKING | BOIDS_BIT(BOIDS_BI_SEEK) | BOIDS_BIT(BOIDS_BI_WANDER);
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
    uint64_t h[2];
    for (int t = 0; t < 2; t++) {
        boids_sim *s;
        ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
        s->threads = t ? 4 : 1;
        for (int k = 0; k < 20; k++)
            boids_sim_step(s);
        h[t] = boids_sim_hash(s);
        boids_sim_destroy(s);
    }
    ck_assert_msg(h[0] == h[1], "1 and 4 threads differ: %016llx vs %016llx", (unsigned long long)h[0],
                  (unsigned long long)h[1]);
    // set_agents: every agent given speed 10 is limited to its own maxspeed.
    boids_sim *s;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    uint32_t n = s->n;
    float(*pos)[4] = calloc(n, 16), (*vel)[4] = calloc(n, 16);
    uint32_t *grp = calloc(n, 4);
    for (uint32_t id = 0; id < n; id++) {
        pos[id][0] = (float)(id % 1000) * 2.0f;
        pos[id][1] = (float)(id / 1000) * 100.0f;
        vel[id][0] = 10.0f;
    }
    ck_assert_int_eq(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp), BOIDS_OK);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = s->cur.id[i];
        float own = boids_agent_maxspeed(&s->p.world, &s->p.group[0], id);
        ck_assert_msg(fabsf(s->cur.vel[i][0] - own) <= own * 1e-6f, "agent %u: speed %g, its maxspeed %g", id,
                      (double)s->cur.vel[i][0], (double)own);
    }
    free(pos);
    free(vel);
    free(grp);
    boids_sim_destroy(s);
}
END_TEST

START_TEST(finalize_checks_ranges) {
    const struct {
        float lo, hi;
    } bad[] = {{0.0f, 2.0f}, {-1.0f, 2.0f}, {3.0f, 2.0f}, {NAN, 2.0f}, {1.0f, INFINITY}, {1.0f, NAN}};
    for (int which = 0; which < 2; which++)
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            boids_params p;
            boids_params_default(&p, 100, 2);
            float *r = which ? &p.group[0].maxforce_lo : &p.group[0].maxspeed_lo;
            r[0] = bad[k].lo;
            r[1] = bad[k].hi;
            char what[256] = "";
            ck_assert_int_eq(boids_params_finalize(&p, what, sizeof what), BOIDS_ERR_PARAM);
            ck_assert_msg(strstr(what, which ? "maxforce range" : "maxspeed range") && strstr(what, "0 < lo <= hi"),
                          "expected the range named in: %s", what);
        }
    // A range too fast for the world is refused as a maxspeed would be.
    boids_params p;
    boids_params_default(&p, 100, 2);
    p.group[0].maxspeed_lo = 1.0f;
    p.group[0].maxspeed_hi = 0.6f * p.world.size[0];
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_ERR_PARAM);
}
END_TEST

// ---- scenario keys ---------------------------------------------------------------------

static boids_scenario sc;

static void load_ok(const char *text) {
    err[0] = '\0';
    ck_assert_msg(boids_scenario_load_string(text, "t.ini", &sc, err, sizeof err) == BOIDS_OK,
                  "expected the scenario to load, got: %s", err);
}

static void load_bad(const char *text, const char *const *needles) {
    err[0] = '\0';
    ck_assert_msg(boids_scenario_load_string(text, "t.ini", &sc, err, sizeof err) == BOIDS_ERR_FORMAT,
                  "expected a format error for:\n%s", text);
    ck_assert_msg(!strchr(err, '\n'), "expected one line, got: %s", err);
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(err, needles[i]), "expected '%s' in: %s", needles[i], err);
}

START_TEST(scenario_range_keys) {
    load_ok("[group.a]\nmaxspeed_range = 2, 5\nmaxforce_range = 0.1, 0.5\n[group.b]\n");
    const boids_group_params *g = &sc.params.group[0];
    ck_assert(g->maxspeed_lo == 2.0f && g->maxspeed_hi == 5.0f && g->maxforce_lo == 0.1f && g->maxforce_hi == 0.5f);
    ck_assert(sc.params.group[1].maxspeed_lo == 0.0f && sc.params.group[1].maxforce_hi == 0.0f);
    load_bad("[group.a]\nmaxspeed_range = 5, 2\n",
             ARGV("t.ini:2:", "[group.a] maxspeed_range: '5, 2'", "LO above its HI", "LO <= HI <= 1e9"));
    load_bad("[group.a]\nmaxforce_range = 0, 2\n", ARGV("t.ini:2:", "maxforce_range: '0, 2'", "a LO '0' that is zero"));
    load_bad("[group.a]\nmaxspeed_range = 2\n", ARGV("maxspeed_range: '2'", "has one number", "LO,HI"));
    load_bad("[group.a]\nmaxspeed_range = 2, 3, 4\n", ARGV("more than two numbers"));
    load_bad("[group.a]\nmaxspeed_range = 2, inf\n", ARGV("not a finite number"));
    load_bad("[group.a]\nmaxspeed_rang = 2, 3\n", ARGV("did you mean 'maxspeed_range'"));
}
END_TEST

// ---- the line target ----------------------------------------------------------------------

// A per-step bounce on one axis (the pursuit exercise's checkEdges, with the
// position mirrored back inside): what the closed form must equal.
static void bounce_step(double lo, double hi, double *p, double *v) {
    *p += *v;
    if (*p > hi) {
        *p = hi - (*p - hi);
        *v = -*v;
    } else if (*p < lo) {
        *p = lo + (lo - *p);
        *v = -*v;
    }
}

START_TEST(line_target_by_hand) {
    // World 0..100 x 0..50, from (90, 10) at (4, -3) per step.
    load_ok("[world]\nsize = 100x50\nboundary = bounce\n[group.a]\nbehaviors = pursue\n"
            "[target]\nmode = line\nposition = 90, 10\nvelocity = 4, -3\n");
    ck_assert_int_eq(sc.target_mode, BOIDS_TARGET_LINE);
    ck_assert(boids_scenario_is_dynamic(&sc) && boids_scenario_target_scheduled(&sc));
    boids_params q = sc.params;
    const struct {
        uint64_t step;
        float x, y, vx, vy;
    } want[] = {
        {0, 90, 10, 4, -3},    {1, 94, 7, 4, -3}, {2, 98, 4, 4, -3}, {3, 98, 1, -4, -3}, // x bounced at 100
        {4, 94, 2, -4, 3},                                                               // y bounced at 0
        {1000, 90, 10, 4, -3}, // x: 90 + 4000 = 20 periods of 200; y: 10 - 3000 = -30 periods of 100
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        boids_scenario_at_step(&sc, want[k].step, &q);
        ck_assert_msg(q.world.target_pos[0] == want[k].x && q.world.target_pos[1] == want[k].y &&
                          q.world.target_vel[0] == want[k].vx && q.world.target_vel[1] == want[k].vy,
                      "step %llu: expected (%g, %g) moving (%g, %g), got (%g, %g) moving (%g, %g)",
                      (unsigned long long)want[k].step, (double)want[k].x, (double)want[k].y, (double)want[k].vx,
                      (double)want[k].vy, (double)q.world.target_pos[0], (double)q.world.target_pos[1],
                      (double)q.world.target_vel[0], (double)q.world.target_vel[1]);
        ck_assert(q.world.target_pos[2] == 0.0f && q.world.target_vel[2] == 0.0f);
    }
    // Every step of 2000 equals the per-step bounce, also where the target
    // lands exactly on an edge (5 per step from 90 reaches 100; 2.5 from 10
    // reaches 50 and 0), in 3D with dt = 0.5 (the velocity per time unit is
    // twice that per step).
    load_ok("[world]\nsize = 100x50x20\nboundary = bounce\ndt = 0.5\n"
            "[target]\nmode = line\nposition = 90, 10, 0\nvelocity = 5, 2.5, -1.25\n");
    q = sc.params;
    double p[3] = {90, 10, 0}, v[3] = {5, 2.5, -1.25}, hi[3] = {100, 50, 20};
    for (uint64_t step = 0; step <= 2000; step++) {
        boids_scenario_at_step(&sc, step, &q);
        for (int a = 0; a < 3; a++)
            ck_assert_msg(q.world.target_pos[a] == (float)p[a] && q.world.target_vel[a] == (float)(v[a] / 0.5),
                          "step %llu axis %d: per-step bounce (%g moving %g), closed form (%g moving %g per time)",
                          (unsigned long long)step, a, p[a], v[a], (double)q.world.target_pos[a],
                          (double)q.world.target_vel[a]);
        for (int a = 0; a < 3; a++)
            bounce_step(0.0, hi[a], &p[a], &v[a]);
    }
    // A world with an origin: the edges are min and min + size.
    double pos, vel;
    boids_target_line_axis(-50.0, 100.0, 40.0, 15.0, 1, &pos, &vel);
    ck_assert(pos == 45.0 && vel == -15.0);
    // Bad values.
    load_bad("[world]\nsize = 100x50\nboundary = bounce\n[target]\nmode = line\nposition = 120, 10\n",
             ARGV("[target] position", "outside the world on axis x", "inside the world (x in 0..100)"));
    load_bad("[target]\nmode = line\nvelocity = 1e8, 0\n", ARGV("[target] velocity: '1e8, 0'", "-1e7..1e7"));
    load_bad("[target]\nmode = lien\n", ARGV("'lien' is not a target mode", "fixed, mouse, circle or line"));
    load_bad("[target]\nvelocty = 1, 0\n", ARGV("did you mean 'velocity'"));
}
END_TEST

// ---- snapshots ------------------------------------------------------------------------------

// A host step as the engine takes it: the schedule at this step, then the step.
static void host_step(const boids_scenario *s_sc, boids_sim *s) {
    boids_scenario_at_step(s_sc, s->step, &s->p);
    boids_sim_step(s);
}

START_TEST(save_load_continues) {
    mkdir(TMP, 0755);
    load_ok("[world]\nsize = 600x400\ncount = 800\nseed = 11\n"
            "[group.vehicles]\nbehaviors = pursue, separation, wander\nmaxspeed_range = 2, 5\n"
            "maxforce_range = 0.1, 0.5\n[group.plain]\nbehaviors = flocking, seek\n"
            "[target]\nmode = line\nposition = 100, 300\nvelocity = 3.5, -2.25\n");
    boids_params p = sc.params;
    ck_assert_int_eq(boids_params_finalize(&p, err, sizeof err), BOIDS_OK);
    boids_sim *a, *b;
    ck_assert_int_eq(boids_sim_create(&a, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    for (int k = 0; k < 70; k++) // the target crosses x = 600 at step ~143: past a bounce by the end
        host_step(&sc, a);
    const char *path = TMP "/ranges.boids";
    ck_assert_msg(boids_snapshot_save(a, &sc, path, err, sizeof err) == BOIDS_OK, "save: %s", err);
    boids_scenario *got = malloc(sizeof *got);
    ck_assert_msg(boids_snapshot_load(path, &b, got, err, sizeof err) == BOIDS_OK, "load: %s", err);
    ck_assert_int_eq(got->target_mode, BOIDS_TARGET_LINE);
    ck_assert(memcmp(got->target_start, sc.target_start, sizeof sc.target_start) == 0);
    ck_assert(memcmp(got->target_velocity, sc.target_velocity, sizeof sc.target_velocity) == 0);
    ck_assert(b->p.group[0].maxspeed_lo == 2.0f && b->p.group[0].maxforce_hi == 0.5f);
    for (int k = 0; k < 130; k++) {
        host_step(&sc, a);
        host_step(got, b);
    }
    ck_assert(memcmp(a->p.world.target_pos, b->p.world.target_pos, 16) == 0);
    ck_assert_msg(a->p.world.target_vel[0] < 0.0f, "the target has not bounced off x = 600 (velocity %g)",
                  (double)a->p.world.target_vel[0]);
    uint64_t ha = boids_sim_hash(a), hb = boids_sim_hash(b);
    ck_assert_msg(ha == hb, "continued after load: %016llx, uninterrupted: %016llx", (unsigned long long)hb,
                  (unsigned long long)ha);
    boids_sim_destroy(a);
    boids_sim_destroy(b);
    free(got);
}
END_TEST

// ---- boids-run ---------------------------------------------------------------------------------

static void run_ok(const char *const *argv, char hash[17]) {
    run_result r = boids_test_run(RUN_BIN, argv, TMP, "ranges");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "boids-run failed: %s", r.err);
    boids_test_state_hash(&r, hash);
    boids_test_run_free(&r);
}

static void run_bad(const char *const *argv, const char *const *needles) {
    run_result r = boids_test_run(RUN_BIN, argv, TMP, "ranges-bad");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "expected exit 2, stderr: %s", r.err);
    size_t len = strlen(r.err);
    ck_assert_msg(len > 0 && !memchr(r.err, '\n', len - 1), "expected one line, got: %s", r.err);
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(r.err, needles[i]), "expected '%s' in: %s", needles[i], r.err);
    boids_test_run_free(&r);
}

START_TEST(run_flags_dump_and_load) {
    mkdir(TMP, 0755);
    char plain[17], ranged[17], again[17];
    run_ok(ARGV("boids-run", "--count", "1500", "--steps", "30", "--quiet"), plain);
    run_ok(ARGV("boids-run", "--count", "1500", "--steps", "30", "--quiet", "--maxspeed-range", "2,5",
                "--maxforce-range", "0.1,0.5"),
           ranged);
    ck_assert_msg(strcmp(plain, ranged) != 0, "the ranges changed nothing (%s)", plain);
    // The dump carries them (for every group) and runs the same.
    run_result r = boids_test_run(RUN_BIN,
                                  ARGV("boids-run", "--count", "1500", "--dump-scenario", "--maxspeed-range", "2,5",
                                       "--maxforce-range", "0.1,0.5"),
                                  TMP, "ranges-dump");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "dump: %s", r.err);
    ck_assert_msg(strstr(r.out, "maxspeed_range = 2, 5\n") && strstr(r.out, "maxforce_range = 0.100000001, 0.5\n"),
                  "ranges missing from the dump: %s", r.out);
    const char *dump = TMP "/ranges-dump.ini";
    boids_test_write(dump, r.out, strlen(r.out));
    boids_test_run_free(&r);
    run_ok(ARGV("boids-run", "--scenario", dump, "--steps", "30", "--quiet"), again);
    ck_assert_str_eq(again, ranged);
    // A line target and ranges in a file: 40 steps, or 25 saved and 15 loaded.
    const char *ini = TMP "/ranges-line.ini", *snap = TMP "/ranges-line.boids";
    const char text[] = "[world]\ncount = 900\nsize = 500x300\n[group.v]\nbehaviors = pursue, separation\n"
                        "maxspeed_range = 2, 4\n[target]\nmode = line\nposition = 50, 150\nvelocity = 9, 6\n";
    boids_test_write(ini, text, strlen(text));
    char whole[17], part[17], rest[17];
    run_ok(ARGV("boids-run", "--scenario", ini, "--steps", "40", "--quiet"), whole);
    run_ok(ARGV("boids-run", "--scenario", ini, "--steps", "25", "--quiet", "--save", snap), part);
    run_ok(ARGV("boids-run", "--load", snap, "--steps", "15", "--quiet"), rest);
    ck_assert_msg(strcmp(whole, rest) == 0, "40 steps: %s; 25 + 15 through --save/--load: %s", whole, rest);
    // The dump of a line target writes its start and velocity; it runs the same.
    r = boids_test_run(RUN_BIN, ARGV("boids-run", "--scenario", ini, "--dump-scenario"), TMP, "ranges-dump");
    ck_assert_msg(strstr(r.out, "mode = line\nposition = 50, 150\n") && strstr(r.out, "velocity = 9, 6\n"),
                  "the line target missing from the dump: %s", r.out);
    boids_test_write(dump, r.out, strlen(r.out));
    boids_test_run_free(&r);
    run_ok(ARGV("boids-run", "--scenario", dump, "--steps", "40", "--quiet"), again);
    ck_assert_str_eq(again, whole);
    // Bad values: one line naming the flag, the value and what is allowed.
    run_bad(ARGV("boids-run", "--count", "10", "--maxspeed-range", "5,2"),
            ARGV("--maxspeed-range", "'5,2'", "LO above its HI", "LO <= HI <= 1e9"));
    run_bad(ARGV("boids-run", "--count", "10", "--maxforce-range", "0,1"), ARGV("--maxforce-range", "'0,1'", "LO"));
    run_bad(ARGV("boids-run", "--count", "10", "--maxforce-range", "1"), ARGV("--maxforce-range", "one number"));
    run_bad(ARGV("boids-run", "--count", "10", "--maxspeed-range", "1,inf"), ARGV("--maxspeed-range", "HI 'inf'"));
}
END_TEST

static Suite *ranges_suite(void) {
    Suite *s = suite_create("ranges");
    TCase *c = tcase_create("ranges");
    tcase_add_test(c, value_by_hand);
    tcase_add_test(c, range_respected_and_mean);
    tcase_add_test(c, threads_slots_and_set_agents);
    tcase_add_test(c, finalize_checks_ranges);
    tcase_add_test(c, scenario_range_keys);
    suite_add_tcase(s, c);
    TCase *t = tcase_create("line target");
    tcase_add_test(t, line_target_by_hand);
    tcase_add_test(t, save_load_continues);
    suite_add_tcase(s, t);
    TCase *run = tcase_create("boids-run");
    tcase_set_timeout(run, 300);
    tcase_add_test(run, run_flags_dump_and_load);
    suite_add_tcase(s, run);
    return s;
}

int main(void) {
    return boids_test_run_suite(ranges_suite());
}
