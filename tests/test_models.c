// tests/test_models.c: the collective-motion models (src/core/models.c,
// rule sets vicsek and couzin; docs/MODELS.md) and the milling statistic
// (src/core/stats.c): single steps of a few agents worked by hand, with the
// noise draws taken from the RNG here; Vicsek's eta = 0 in a fully connected
// group; Couzin's repulsion precedence, blind angle and turn limit; m_r and
// the polarisation of rings and lines; the statistics' name table.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "check_run.h"
#include "layouts.h"
#include "boids/behaviors.h"
#include "boids/core.h"
#include "boids/parse.h"
#include "boids/scenario.h"

#define PI 3.14159265358979323846

// A world of side `side` (wrap) from 0, n agents of one group under rule set
// `rules`; the perception radius r (also Vicsek's r), dt 1.
static void model_params(boids_params *p, uint32_t n, uint32_t dim, uint32_t rules, float side, float r) {
    boids_params_default(p, n, dim);
    p->world.boundary = BOIDS_BOUNDARY_WRAP;
    for (uint32_t a = 0; a < 3; a++) {
        p->world.min[a] = 0.0f;
        p->world.size[a] = a < dim ? side : 0.0f;
    }
    p->world.dt = 1.0f;
    boids_group_params *g = &p->group[0];
    g->rules = rules;
    g->radius = r;
    g->maxspeed = 0.5f;
    if (rules == BOIDS_RULES_VICSEK) {
        g->behaviors = BOIDS_BIT(BOIDS_BI_ALIGNMENT);
    } else {
        g->behaviors = BOIDS_B_FLOCKING;
        g->separation = 1.0f;
        g->alignment_radius = 3.0f;
        g->cohesion_radius = 8.0f;
        g->turn = BOIDS_PI; // no turn limit (turn dt >= pi)
    }
}

// A simulation of p with the agents pos / vel (id order; group 0 each).
static boids_sim *with_agents(const boids_params *p, uint32_t n, const float (*pos)[4], const float (*vel)[4]) {
    boids_sim *s = create(p, BOIDS_DIST_UNIFORM);
    ck_assert_uint_eq(s->n, n);
    uint32_t grp[32] = {0};
    ck_assert_int_eq(boids_sim_set_agents(s, pos, vel, grp), BOIDS_OK);
    return s;
}

// The velocity of agent id in s.
static const float *vel_of(const boids_sim *s, uint32_t id) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->cur.id[i] == id)
            return s->cur.vel[i];
    ck_abort_msg("no agent %u", id);
    return NULL;
}

static const float *pos_of(const boids_sim *s, uint32_t id) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->cur.id[i] == id)
            return s->cur.pos[i];
    ck_abort_msg("no agent %u", id);
    return NULL;
}

static void expect_vec(const float *got, double x, double y, double z, double tol, const char *what) {
    ck_assert_msg(fabs(got[0] - x) <= tol && fabs(got[1] - y) <= tol && fabs(got[2] - z) <= tol,
                  "%s: (%.7g, %.7g, %.7g), expected (%.7g, %.7g, %.7g)", what, (double)got[0], (double)got[1],
                  (double)got[2], x, y, z);
}

// ---- Vicsek ----

// Three agents in 2D, r = 1, eta = 1, v0 = 0.5: A (id 0) at (5, 5) heading
// east, B (id 1) at (5.5, 5) heading north are each other's neighbours; C
// (id 2) at (8, 8) heading west is alone. Step 0's draws u0 of each id (the
// stream BOIDS_RNG_NOISE, seed 1) give the new headings:
//   A, B: atan2(1, 1) + eta (u0 - 1/2) = pi/4 + (u0 - 0.5) (the sum of the
//         unit velocities (1, 0) + (0, 1), each its own included);
//   C:    pi + (u0 - 0.5) (only its own velocity);
// velocities 0.5 (cos h, sin h), positions + velocity x dt (dt = 1).
START_TEST(vicsek_by_hand_2d) {
    boids_params p;
    model_params(&p, 3, 2, BOIDS_RULES_VICSEK, 10.0f, 1.0f);
    p.group[0].noise = 1.0f;
    const float pos[3][4] = {{5, 5, 0, 0}, {5.5f, 5, 0, 0}, {8, 8, 0, 0}};
    const float vel[3][4] = {{0.5f, 0, 0, 0}, {0, 0.5f, 0, 0}, {-0.5f, 0, 0, 0}};
    boids_sim *s = with_agents(&p, 3, pos, vel);
    boids_sim_step(s);
    const double base[3] = {PI / 4, PI / 4, PI};
    for (uint32_t id = 0; id < 3; id++) {
        float u[3];
        boids_noise_draws(p.world.seed_lo, p.world.seed_hi, id, 0, u);
        ck_assert_msg(u[0] >= 0.0f && u[0] < 1.0f, "draw %g outside [0, 1)", (double)u[0]);
        double h = base[id] + (u[0] - 0.5);
        char what[64];
        snprintf(what, sizeof what, "agent %u's velocity (u0 %.6f)", id, (double)u[0]);
        expect_vec(vel_of(s, id), 0.5 * cos(h), 0.5 * sin(h), 0.0, 2e-6, what);
        snprintf(what, sizeof what, "agent %u's position", id);
        expect_vec(pos_of(s, id), pos[id][0] + 0.5 * cos(h), pos[id][1] + 0.5 * sin(h), 0.0, 4e-6, what);
    }
    boids_sim_destroy(s);
}
END_TEST

// 3D, one agent heading +x alone, eta = 1.2: its new heading makes with +x
// the angle whose cosine is 1 - u0 (1 - cos(eta / 2)) (a uniform cap), u0 its
// draw at step 0; the speed stays v0.
START_TEST(vicsek_cap_3d) {
    boids_params p;
    model_params(&p, 1, 3, BOIDS_RULES_VICSEK, 10.0f, 1.0f);
    p.group[0].noise = 1.2f;
    const float pos[1][4] = {{5, 5, 5, 0}}, vel[1][4] = {{0.5f, 0, 0, 0}};
    for (uint32_t seed = 1; seed <= 20; seed++) {
        boids_params q = p;
        q.world.seed_lo = seed;
        boids_sim *s = with_agents(&q, 1, pos, vel);
        boids_sim_step(s);
        float u[3];
        boids_noise_draws(seed, q.world.seed_hi, 0, 0, u);
        const float *v = vel_of(s, 0);
        double speed = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        double c = 1.0 - u[0] * (1.0 - cos(0.6));
        ck_assert_msg(fabs(speed - 0.5) < 1e-6, "seed %u: speed %g, expected v0 0.5", seed, speed);
        ck_assert_msg(fabs(v[0] / speed - c) < 2e-6, "seed %u: cos of the turn %g, expected 1 - u0 (1 - cos 0.6) = %g",
                      seed, v[0] / speed, c);
        boids_sim_destroy(s);
    }
}
END_TEST

// eta = 0 in a group where everyone sees everyone (r 50, 24 agents within a
// 10 x 10 square): after one step every heading is the direction of the
// sum of all the unit velocities, so the polarisation is 1 and the mean
// direction that of the start; with no noise and equal speeds nothing then
// changes (the group stays connected, the polarisation stays 1).
START_TEST(vicsek_no_noise_conserves) {
    boids_params p;
    model_params(&p, 24, 2, BOIDS_RULES_VICSEK, 400.0f, 50.0f);
    p.group[0].noise = 0.0f;
    float pos[24][4], vel[24][4];
    uint32_t r = 7;
    double sx = 0, sy = 0;
    for (uint32_t i = 0; i < 24; i++) {
        pos[i][0] = 100.0f + 10.0f * lcg_unit(&r);
        pos[i][1] = 100.0f + 10.0f * lcg_unit(&r);
        pos[i][2] = pos[i][3] = 0.0f;
        float a = BOIDS_TWO_PI * lcg_unit(&r);
        vel[i][0] = 0.5f * cosf(a);
        vel[i][1] = 0.5f * sinf(a);
        vel[i][2] = vel[i][3] = 0.0f;
        sx += cos(a), sy += sin(a);
    }
    double want = atan2(sy, sx);
    boids_sim *s = with_agents(&p, 24, (const float(*)[4])pos, (const float(*)[4])vel);
    for (int k = 1; k <= 60; k++) {
        boids_sim_step(s);
        boids_stats st;
        boids_sim_stats(s, &st);
        ck_assert_msg(fabs(st.polarisation - 1.0) < 1e-6, "step %d: polarisation %.9f, expected 1", k, st.polarisation);
        for (uint32_t i = 0; i < s->n; i++) {
            double h = atan2(s->cur.vel[i][1], s->cur.vel[i][0]);
            ck_assert_msg(fabs(boids_angle_diff((float)h, (float)want)) < 1e-5,
                          "step %d: heading %.7f, expected the start's mean direction %.7f", k, h, want);
        }
    }
    boids_sim_destroy(s);
}
END_TEST

// ---- Couzin ----

// 3D, sigma 0 (no noise), no turn limit, r_r 1, r_o 3, r_a 8, all around.
// Agent 0 at (10, 10, 10) heading +x; agent 1 at 0.5 to its left (+y, the
// zone of repulsion), agent 2 at 2 ahead (+x, orientation) heading +z,
// agent 3 at 5 to its right (-y, attraction). Repulsion takes precedence:
// agent 0 heads away from agent 1, -y, whatever 2 and 3 ask. Without agent
// 1: (d_o + d_a) / 2 = ((0, 0, 1) + (0, -1, 0)) / 2, normalised:
// (0, -1, 1) / sqrt 2.
START_TEST(couzin_precedence) {
    boids_params p;
    model_params(&p, 4, 3, BOIDS_RULES_COUZIN, 40.0f, 2.0f);
    const float pos[4][4] = {{10, 10, 10, 0}, {10, 10.5f, 10, 0}, {12, 10, 10, 0}, {10, 5, 10, 0}};
    const float vel[4][4] = {{0.5f, 0, 0, 0}, {0.5f, 0, 0, 0}, {0, 0, 0.5f, 0}, {0.5f, 0, 0, 0}};
    boids_sim *s = with_agents(&p, 4, pos, vel);
    boids_sim_step(s);
    expect_vec(vel_of(s, 0), 0.0, -0.5, 0.0, 1e-6, "repulsion first: agent 0");
    boids_sim_destroy(s);
    // Agent 1 moved out of reach (far away): orientation and attraction.
    float pos2[4][4];
    memcpy(pos2, pos, sizeof pos2);
    pos2[1][0] = 30.0f;
    pos2[1][1] = 30.0f;
    s = with_agents(&p, 4, (const float(*)[4])pos2, vel);
    boids_sim_step(s);
    double k = 0.5 / sqrt(2.0);
    expect_vec(vel_of(s, 0), 0.0, -k, k, 1e-6, "orientation and attraction averaged: agent 0");
    boids_sim_destroy(s);
}
END_TEST

// The blind angle: agent 0 heading +x, a neighbour in its zone of
// repulsion behind it, 160 degrees off its heading. Field of perception
// 360: it turns away from it, to (cos 20, -sin 20, 0) degrees. 270 (the
// paper's: a blind 90 degrees behind, the cone's half-angle 135): unseen,
// no neighbour at all, the heading kept (+x).
START_TEST(couzin_blind_angle) {
    double a = 160.0 * PI / 180.0;
    const float pos[2][4] = {{10, 10, 10, 0}, {10.0f + 0.5f * (float)cos(a), 10.0f + 0.5f * (float)sin(a), 10, 0}};
    const float vel[2][4] = {{0.5f, 0, 0, 0}, {0, 0, 0.5f, 0}};
    for (int blind = 0; blind < 2; blind++) {
        boids_params p;
        model_params(&p, 2, 3, BOIDS_RULES_COUZIN, 40.0f, 2.0f);
        p.group[0].fov_cos = blind ? boids_fov_cos(270.0f) : -1.0f;
        boids_sim *s = with_agents(&p, 2, pos, vel);
        boids_sim_step(s);
        if (blind)
            expect_vec(vel_of(s, 0), 0.5, 0.0, 0.0, 1e-6, "fov 270: the neighbour behind is unseen");
        else
            expect_vec(vel_of(s, 0), 0.5 * cos(PI / 9), -0.5 * sin(PI / 9), 0.0, 2e-6,
                       "fov 360: away from the neighbour behind");
        boids_sim_destroy(s);
    }
}
END_TEST

// The turn limit: agent 0 heading +x wants -y (a neighbour at 0.5 to its
// left, in the zone of repulsion), turn 0.7 rad per time unit, dt 0.1: it
// turns by 0.07 rad toward -y, to 0.5 (cos 0.07, -sin 0.07, 0); in 2D the
// same. With the paper's Gaussian noise (sigma 0.3) in 2D the desired
// angle is -pi/2 + sigma g, g = sqrt(-2 ln(1 - u0)) cos(2 pi u1) from the
// agent's draws; still more than 0.07 away, so the turn is 0.07 clockwise.
START_TEST(couzin_turn_limit) {
    for (uint32_t dim = 2; dim <= 3; dim++) {
        boids_params p;
        model_params(&p, 2, dim, BOIDS_RULES_COUZIN, 40.0f, 2.0f);
        p.world.dt = 0.1f;
        p.group[0].turn = 0.7f;
        float z = dim == 3 ? 10.0f : 0.0f;
        const float pos[2][4] = {{10, 10, z, 0}, {10, 10.5f, z, 0}};
        const float vel[2][4] = {{0.5f, 0, 0, 0}, {0.5f, 0, 0, 0}};
        boids_sim *s = with_agents(&p, 2, pos, vel);
        boids_sim_step(s);
        expect_vec(vel_of(s, 0), 0.5 * cos(0.07), -0.5 * sin(0.07), 0.0, 2e-6, "turned by at most 0.07 rad");
        boids_sim_destroy(s);
    }
    // 2D, one agent alone heading at 0.3 rad, sigma 0.3, no turn limit:
    // 0.3 + 0.3 g exactly (by the draws of id 0 at step 0).
    boids_params p;
    model_params(&p, 1, 2, BOIDS_RULES_COUZIN, 40.0f, 2.0f);
    p.group[0].noise = 0.3f;
    const float pos[1][4] = {{10, 10, 0, 0}}, vel[1][4] = {{0.5f * cosf(0.3f), 0.5f * sinf(0.3f), 0, 0}};
    boids_sim *s = with_agents(&p, 1, pos, vel);
    boids_sim_step(s);
    float u[3];
    boids_noise_draws(p.world.seed_lo, p.world.seed_hi, 0, 0, u);
    double g = sqrt(-2.0 * log(1.0 - u[0])) * cos(2.0 * PI * u[1]);
    double h = 0.3 + 0.3 * g;
    expect_vec(vel_of(s, 0), 0.5 * cos(h), 0.5 * sin(h), 0.0, 4e-6, "2D Gaussian noise of one draw");
    boids_sim_destroy(s);
}
END_TEST

// Runs are reproducible: the same seed, the same hash after 50 steps, on 1
// and 2 threads and through every neighbour index (grid, quadtree, every
// pair: the fixed-point sums), for both models; another seed another hash.
START_TEST(models_reproducible) {
    for (uint32_t rules = BOIDS_RULES_VICSEK; rules <= BOIDS_RULES_COUZIN; rules++) {
        uint64_t h[5];
        for (int k = 0; k < 5; k++) {
            boids_params p;
            model_params(&p, 400, rules == BOIDS_RULES_VICSEK ? 2 : 3, rules, 20.0f, 1.0f);
            p.group[0].noise = 0.4f;
            p.world.seed_lo = k == 2 ? 2 : 1;
            boids_sim *s = NULL;
            char what[256];
            ck_assert_msg(boids_params_finalize(&p, what, sizeof what) == BOIDS_OK, "%s", what);
            ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_CLUSTERED), BOIDS_OK);
            s->threads = k == 1 ? 2 : 1;
            s->index = k == 3 ? BOIDS_INDEX_QUADTREE : k == 4 ? BOIDS_INDEX_BRUTE : BOIDS_INDEX_GRID;
            for (int t = 0; t < 50; t++)
                boids_sim_step(s);
            h[k] = boids_sim_hash(s);
            boids_sim_destroy(s);
        }
        ck_assert_msg(h[0] == h[1], "%s: 1 and 2 threads differ", boids_parse_rules_names[rules]);
        ck_assert_msg(h[0] == h[3] && h[0] == h[4], "%s: the quadtree or every pair differs from the grid",
                      boids_parse_rules_names[rules]);
        ck_assert_msg(h[0] != h[2], "%s: seeds 1 and 2 give the same state", boids_parse_rules_names[rules]);
    }
}
END_TEST

// ---- statistics ----

// 12 agents on a ring of radius 20 moving counter-clockwise along it:
// every r_ic x v_i is +z, m_r = 1, polarisation 0 (the velocities cancel).
// Centred at (50, 50) and, across the torus's seam, at (0, 0) (the circular
// mean finds it there; a plain mean would not). Moving clockwise: still 1;
// all moving +x: m_r = |sum -r_y| / N = 0 (a symmetric ring), polarisation 1.
START_TEST(milling_by_hand) {
    const float centres[2][2] = {{50, 50}, {0, 0}};
    for (int c = 0; c < 2; c++)
        for (int mode = 0; mode < 3; mode++) {
            boids_params p;
            model_params(&p, 12, 2, BOIDS_RULES_VICSEK, 100.0f, 1.0f);
            float pos[12][4], vel[12][4];
            for (int i = 0; i < 12; i++) {
                float a = BOIDS_TWO_PI * (float)i / 12.0f;
                pos[i][0] = centres[c][0] + 20.0f * cosf(a);
                pos[i][1] = centres[c][1] + 20.0f * sinf(a);
                for (int k = 0; k < 2; k++)
                    pos[i][k] = pos[i][k] < 0.0f ? pos[i][k] + 100.0f : pos[i][k];
                float sgn = mode == 1 ? -1.0f : 1.0f;
                vel[i][0] = mode == 2 ? 1.0f : -sgn * sinf(a);
                vel[i][1] = mode == 2 ? 0.0f : sgn * cosf(a);
                pos[i][2] = pos[i][3] = vel[i][2] = vel[i][3] = 0.0f;
            }
            boids_sim *s = with_agents(&p, 12, (const float(*)[4])pos, (const float(*)[4])vel);
            boids_stats st;
            boids_sim_stats(s, &st);
            double want_m = mode == 2 ? 0.0 : 1.0, want_p = mode == 2 ? 1.0 : 0.0;
            ck_assert_msg(fabs(st.milling - want_m) < 1e-6, "ring at (%g, %g), mode %d: milling %.9f, expected %g",
                          (double)centres[c][0], (double)centres[c][1], mode, st.milling, want_m);
            ck_assert_msg(fabs(st.polarisation - want_p) < 1e-6, "ring mode %d: polarisation %.9f, expected %g", mode,
                          st.polarisation, want_p);
            float centre[3];
            boids_stats_centre(&s->p.world, s->n, (const float(*)[4])s->cur.pos, s->cur.group, BOIDS_STATS_ALL, centre);
            for (int k = 0; k < 2; k++) {
                float d = fabsf(centre[k] - centres[c][k]);
                d = fminf(d, 100.0f - d);
                ck_assert_msg(d < 1e-3f, "ring centre axis %d: %g, expected %g", k, (double)centre[k],
                              (double)centres[c][k]);
            }
            int f = boids_stats_field_index("milling");
            ck_assert_msg(f >= 0 && boids_stats_value(&st, (uint32_t)f) == st.milling,
                          "the name table's milling is the field");
            boids_sim_destroy(s);
        }
    // Two agents with opposite headings: polarisation 0 (the name table too).
    boids_params p;
    model_params(&p, 2, 2, BOIDS_RULES_VICSEK, 100.0f, 1.0f);
    const float pos[2][4] = {{10, 10, 0, 0}, {60, 60, 0, 0}}, vel[2][4] = {{1, 0, 0, 0}, {-1, 0, 0, 0}};
    boids_sim *s = with_agents(&p, 2, pos, vel);
    boids_stats st;
    boids_sim_stats(s, &st);
    int f = boids_stats_field_index("polarisation");
    ck_assert_msg(f >= 0 && fabs(boids_stats_value(&st, (uint32_t)f)) < 1e-12, "opposite pair: polarisation %g",
                  st.polarisation);
    ck_assert_int_eq(boids_stats_field_index("no-such-statistic"), -1);
    ck_assert_msg(isnan(boids_stats_value(&st, boids_stats_field_count)), "a field past the table is NaN");
    boids_sim_destroy(s);
}
END_TEST

// Positions far outside the world or not finite (a state a step would
// refuse; the statistics are public and may be asked of any arrays): the
// centre's and the milling's fixed-point sums saturate each agent at 64
// worlds (a NaN counts 0) instead of overflowing int64 (UBSan's signed
// overflow; the centre was then ~1e11 away). One agent at x = 1e30 and
// one at 5 in a walls world 100 wide: x's fractions 64 and 0.05, the centre
// 100 (64 + 0.05) / 2 = 3202.5; a NaN and 5: 100 (0 + 0.05) / 2 = 2.5.
START_TEST(stats_saturate) {
    boids_params p;
    model_params(&p, 2, 2, BOIDS_RULES_VICSEK, 100.0f, 1.0f);
    p.world.boundary = BOIDS_BOUNDARY_WALLS;
    const float far[2] = {1e30f, NAN}, want[2] = {3202.5f, 2.5f};
    const uint32_t group[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        const float pos[2][4] = {{far[k], 50, 0, 0}, {5, 50, 0, 0}}, vel[2][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}};
        float centre[3];
        boids_stats_centre(&p.world, 2, pos, group, BOIDS_STATS_ALL, centre);
        ck_assert_msg(fabsf(centre[0] - want[k]) < 1e-3f, "x %g and 5: centre x %g, expected %g", (double)far[k],
                      (double)centre[0], (double)want[k]);
        double m = boids_stats_milling(&p.world, 2, pos, vel, group, BOIDS_STATS_ALL);
        ck_assert_msg(isfinite(m) && m >= 0.0 && m <= 1.0, "x %g and 5: milling %g, expected 0..1", (double)far[k], m);
    }
}
END_TEST

// Bad parameters of the models are refused with their name and range.
START_TEST(models_params_refused) {
    static const struct {
        uint32_t rules;
        const char *field;
        float value;
        const char *needle;
    } cases[] = {
        {BOIDS_RULES_VICSEK, "noise", -0.1f, "eta -0.1 of group 0 (allowed: 0..2 pi radians)"},
        {BOIDS_RULES_VICSEK, "noise", 7.0f, "eta 7 of group 0 (allowed: 0..2 pi radians)"},
        {BOIDS_RULES_COUZIN, "noise", 3.5f, "sigma 3.5 of group 0 (allowed: 0..pi radians)"},
        {BOIDS_RULES_COUZIN, "noise", NAN, "sigma nan of group 0"},
        {BOIDS_RULES_CHAPTER, "noise", 0.5f, "only the rule sets vicsek (eta) and couzin (sigma) have noise"},
        {BOIDS_RULES_VICSEK, "behaviors", 0.0f, "rules vicsek of group 0 with behaviours"},
        {BOIDS_RULES_COUZIN, "behaviors", 0.0f, "rules couzin of group 0 with seek"},
        {BOIDS_RULES_COUZIN, "zones", 0.0f, "allowed: separation <= alignment radius <= cohesion radius"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        boids_params p;
        model_params(&p, 10, 3, cases[k].rules == BOIDS_RULES_CHAPTER ? BOIDS_RULES_VICSEK : cases[k].rules, 20.0f,
                     1.0f);
        boids_group_params *g = &p.group[0];
        if (cases[k].rules == BOIDS_RULES_CHAPTER) {
            g->rules = BOIDS_RULES_CHAPTER;
            g->behaviors = BOIDS_B_FLOCKING;
        }
        if (strcmp(cases[k].field, "noise") == 0)
            g->noise = cases[k].value;
        else if (strcmp(cases[k].field, "behaviors") == 0)
            g->behaviors =
                cases[k].rules == BOIDS_RULES_VICSEK ? BOIDS_B_FLOCKING : BOIDS_B_FLOCKING | BOIDS_BIT(BOIDS_BI_SEEK);
        else
            g->alignment_radius = 0.5f; // below r_r = 1
        char what[256] = "";
        ck_assert_int_eq(boids_params_finalize(&p, what, sizeof what), BOIDS_ERR_PARAM);
        ck_assert_msg(strstr(what, cases[k].needle), "case %zu: '%s' lacks '%s'", k, what, cases[k].needle);
    }
}
END_TEST

static Suite *models_suite(void) {
    Suite *s = suite_create("models");
    TCase *v = tcase_create("vicsek");
    tcase_add_test(v, vicsek_by_hand_2d);
    tcase_add_test(v, vicsek_cap_3d);
    tcase_add_test(v, vicsek_no_noise_conserves);
    suite_add_tcase(s, v);
    TCase *c = tcase_create("couzin");
    tcase_add_test(c, couzin_precedence);
    tcase_add_test(c, couzin_blind_angle);
    tcase_add_test(c, couzin_turn_limit);
    suite_add_tcase(s, c);
    TCase *both = tcase_create("both");
    tcase_set_timeout(both, 120);
    tcase_add_test(both, models_reproducible);
    tcase_add_test(both, models_params_refused);
    suite_add_tcase(s, both);
    TCase *st = tcase_create("stats");
    tcase_add_test(st, milling_by_hand);
    tcase_add_test(st, stats_saturate);
    suite_add_tcase(s, st);
    return s;
}

int main(void) {
    return boids_test_run_suite(models_suite());
}
