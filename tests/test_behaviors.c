// tests/test_behaviors.c: every steering behaviour of src/core against values
// worked out by hand from the formulas in SEEDS.md (The Nature of Code,
// chapter 5; Reynolds 1999; boids-angle-bug.txt), one test case per
// behaviour (DESIGN.md: names match across C, GLSL and tests). Each assertion
// says what it expects and where the number comes from.
//
// The last test case transcribes the chapter's flocking Boid (p5.js, in
// double precision like JavaScript numbers) and compares it with boids_sim.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_run.h"
#include "layouts.h"
#include "ref_rng.h"
#include "boids/behaviors.h"
#include "boids/core.h"
#include "boids/scenario.h"

// ck_assert_msg records the location of every check that passes (in fork
// mode a write to the runner), which costs more than the simulation inside
// hot loops; EXPECT calls into Check only when the condition fails.
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

#define PI 3.14159265358979323846
#define FEPS 1.1920928955078125e-07 // 2^-23, float's ULP at 1

// ---- helpers ---------------------------------------------------------------

// got == (ex, ey, ez) within tol on every axis; `why` says where the value comes from.
static void expect_vec3(const char *what, const float got[3], double ex, double ey, double ez, double tol,
                        const char *why) {
    const double e[3] = {ex, ey, ez};
    for (int a = 0; a < 3; a++)
        EXPECT(fabs((double)got[a] - e[a]) <= tol, "%s: %c = %.9g, expected %.9g (+-%g): %s", what, "xyz"[a],
               (double)got[a], e[a], tol, why);
}

static void expect_zero(const char *what, const float got[3], const char *why) {
    for (int a = 0; a < 3; a++)
        EXPECT(got[a] == 0.0f, "%s: %c = %.9g, expected exactly 0: %s", what, "xyz"[a], (double)got[a], why);
}

static double norm3(const float v[3]) {
    return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

// A hand-placed agent for the small simulations.
typedef struct agent {
    float x, y, z, vx, vy, vz;
    uint32_t group;
} agent;

// A 2D (or 3D) torus [-500, 500) per axis with the origin in the middle, one
// group, the chapter's defaults, the given behaviours.
static void small_world(boids_params *p, uint32_t dim, uint32_t behaviors) {
    boids_params_default(p, 1, dim);
    for (uint32_t a = 0; a < 3; a++) {
        p->world.min[a] = a < dim ? -500.0f : 0.0f;
        p->world.size[a] = a < dim ? 1000.0f : 0.0f;
    }
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        p->group[g].behaviors = behaviors;
}

// boids_sim_create + boids_sim_set_agents with agents in id order.
static boids_sim *sim_with(boids_params *p, const agent *ag, uint32_t n) {
    p->world.count = n;
    boids_sim *s = create(p, BOIDS_DIST_UNIFORM); // on one thread: tiny sims
    float(*pos)[4] = calloc(n ? n : 1, sizeof(*pos)), (*vel)[4] = calloc(n ? n : 1, sizeof(*vel));
    uint32_t *group = calloc(n ? n : 1, sizeof(*group));
    EXPECT(pos && vel && group, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        pos[i][0] = ag[i].x;
        pos[i][1] = ag[i].y;
        pos[i][2] = ag[i].z;
        vel[i][0] = ag[i].vx;
        vel[i][1] = ag[i].vy;
        vel[i][2] = ag[i].vz;
        group[i] = ag[i].group;
    }
    boids_result r = boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, group);
    EXPECT(r == BOIDS_OK, "boids_sim_set_agents: %s", boids_result_str(r));
    free(pos);
    free(vel);
    free(group);
    return s;
}

// The steer output of agent `id` (accel is in slot order; the grid reorders slots).
static const float *accel_of(boids_sim *s, uint32_t id) {
    return s->accel[boids_sim_slots_by_id(s)[id]];
}
static const float *pos_of(boids_sim *s, uint32_t id) {
    return s->cur.pos[boids_sim_slots_by_id(s)[id]];
}
static const float *vel_of(boids_sim *s, uint32_t id) {
    return s->cur.vel[boids_sim_slots_by_id(s)[id]];
}

static float weight_of(const boids_group_params *g, uint32_t b) {
    return boids_weight(g, b);
}

// ---- seek / flee -------------------------------------------------------------

START_TEST(seek_by_hand) {
    float f[3];
    // From rest toward +x: desired = setMag((10,0,0), 3) = (3,0,0); steer =
    // desired - 0 = (3,0,0), limited to maxforce: exactly 0.05 along +x.
    boids_seek((float[3]){10, 0, 0}, (float[3]){0, 0, 0}, 3.0f, 0.05f, f);
    expect_vec3("seek from rest", f, 0.05, 0, 0, 0.05 * FEPS, "desired (3,0,0) - v 0 limited to maxforce 0.05");
    EXPECT(f[1] == 0.0f && f[2] == 0.0f, "seek from rest toward +x: no y/z component, got (%g, %g)", (double)f[1],
           (double)f[2]);
    // Unlimited (maxforce 100): target (3,4), |.| = 5 = maxspeed, v (1,0):
    // steer = (3,4) - (1,0) = (2,4).
    boids_seek((float[3]){3, 4, 0}, (float[3]){1, 0, 0}, 5.0f, 100.0f, f);
    expect_vec3("seek (3,4) from v (1,0)", f, 2, 4, 0, 8 * FEPS, "setMag((3,4),5) - (1,0) = (2,4)");
    // Braking case, limited: target +y, v = (0,-3): steer = (0,3)-(0,-3) = (0,6) -> (0, 0.05).
    boids_seek((float[3]){0, 10, 0}, (float[3]){0, -3, 0}, 3.0f, 0.05f, f);
    expect_vec3("seek against v", f, 0, 0.05, 0, 0.05 * FEPS, "(0,6) limited to 0.05");
    // 3D: target (1,2,2), |.| = 3, maxspeed 6: desired (2,4,4).
    boids_seek((float[3]){1, 2, 2}, (float[3]){0, 0, 0}, 6.0f, 100.0f, f);
    expect_vec3("seek 3D", f, 2, 4, 4, 8 * FEPS, "setMag((1,2,2), 6) = (2,4,4)");
    // Already at the target: setMag(0) stays 0, the steer brakes: -v.
    boids_seek((float[3]){0, 0, 0}, (float[3]){0.5f, 1, 0}, 3.0f, 100.0f, f);
    expect_vec3("seek at the target", f, -0.5, -1, 0, 0, "desired 0 (p5: zero vector normalises to zero) - v");
}
END_TEST

START_TEST(seek_in_sim) {
    // The same through the pipeline: one agent at rest at the origin, target
    // (100,0): accel = weight 1 * (0.05, 0); after integrate v = a, p = a.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_SEEK));
    p.world.target_pos[0] = 100.0f;
    agent a[1] = {{0, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 1);
    boids_sim_steer(s);
    expect_vec3("sim seek accel", accel_of(s, 0), 0.05, 0, 0, 0.05 * FEPS, "seek from rest: maxforce along +x");
    boids_sim_integrate(s);
    expect_vec3("sim seek vel", vel_of(s, 0), 0.05, 0, 0, 0.05 * FEPS, "v = 0 + a dt (dt 1)");
    expect_vec3("sim seek pos", pos_of(s, 0), 0.05, 0, 0, 0.05 * FEPS, "p = 0 + v dt");
    boids_sim_destroy(s);
}
END_TEST

START_TEST(flee_by_hand) {
    float f[3], g[3];
    // Flee (3,4) from rest, maxspeed 5: desired = -(3,4).
    boids_flee((float[3]){3, 4, 0}, (float[3]){0, 0, 0}, 5.0f, 100.0f, f);
    expect_vec3("flee (3,4)", f, -3, -4, 0, 8 * FEPS, "desired -setMag((3,4),5) = (-3,-4)");
    boids_flee((float[3]){10, 0, 0}, (float[3]){0, 0, 0}, 3.0f, 0.05f, f);
    expect_vec3("flee from rest", f, -0.05, 0, 0, 0.05 * FEPS, "opposite of seek: maxforce along -x");
    // flee(t, v) = -(seek(t, -v)) exactly: desired is negated, and so is the
    // steer (limit is symmetric). Over a spread of inputs.
    for (int i = 0; i < 200; i++) {
        float t[3] = {(float)(i % 7) - 3.0f, (float)(i % 11) - 5.0f, (float)(i % 3) - 1.0f};
        float v[3] = {0.25f * (float)(i % 5) - 0.5f, 0.125f * (float)(i % 9) - 0.5f, 0.0f};
        float nv[3] = {-v[0], -v[1], -v[2]};
        boids_flee(t, v, 3.0f, (i & 1) ? 0.05f : 100.0f, f);
        boids_seek(t, nv, 3.0f, (i & 1) ? 0.05f : 100.0f, g);
        for (int a = 0; a < 3; a++)
            EXPECT(f[a] == -g[a], "flee(t,v) must be -seek(t,-v) (opposite desired velocity), axis %c: %g vs %g",
                   "xyz"[a], (double)f[a], (double)-g[a]);
    }
    // In the sim: at rest, target (100,0): (-0.05, 0).
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_FLEE));
    p.world.target_pos[0] = 100.0f;
    agent a[1] = {{0, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 1);
    boids_sim_steer(s);
    expect_vec3("sim flee", accel_of(s, 0), -0.05, 0, 0, 0.05 * FEPS, "flee from rest: maxforce along -x");
    boids_sim_destroy(s);
}
END_TEST

// ---- arrive ----------------------------------------------------------------

START_TEST(arrive_by_hand) {
    float f[3];
    // Half the slowing radius (d = 50 of r = 100): map(50, 0, 100, 0, 4) = 2,
    // along (0.6, 0.8): from rest with a large maxforce the force is (1.2, 1.6).
    boids_arrive((float[3]){30, 40, 0}, (float[3]){0, 0, 0}, 100.0f, 4.0f, 100.0f, f);
    expect_vec3("arrive at r/2", f, 1.2, 1.6, 0, 8 * FEPS, "desired speed 0.5 * maxspeed = 2 along (0.6,0.8)");
    EXPECT(fabs(norm3(f) - 2.0) < 8 * FEPS,
           "arrive at half the slowing radius: |force| = %g, expected half "
           "maxspeed 2",
           norm3(f));
    // Quarter: speed 1 along +x, minus v (0.5,0,0).
    boids_arrive((float[3]){25, 0, 0}, (float[3]){0.5f, 0, 0}, 100.0f, 4.0f, 100.0f, f);
    expect_vec3("arrive at r/4", f, 0.5, 0, 0, 8 * FEPS, "map(25,0,100,0,4) = 1, minus v 0.5");
    // Outside the radius: full maxspeed; at the edge the ramp reaches maxspeed.
    boids_arrive((float[3]){0, 200, 0}, (float[3]){0, 0, 0}, 100.0f, 4.0f, 100.0f, f);
    expect_vec3("arrive outside", f, 0, 4, 0, 8 * FEPS, "d 200 > r: desired speed = maxspeed 4");
    boids_arrive((float[3]){100, 0, 0}, (float[3]){0, 0, 0}, 100.0f, 4.0f, 100.0f, f);
    expect_vec3("arrive at r", f, 4, 0, 0, 8 * FEPS, "d = r: map gives maxspeed (continuous ramp)");
    // At the target: desired 0, the force brakes.
    boids_arrive((float[3]){0, 0, 0}, (float[3]){1, 2, 0}, 100.0f, 4.0f, 100.0f, f);
    expect_vec3("arrive at target", f, -1, -2, 0, 0, "desired 0 - v (1,2)");
    // Limited: the same r/2 case with the chapter's maxforce 0.05.
    boids_arrive((float[3]){30, 40, 0}, (float[3]){0, 0, 0}, 100.0f, 4.0f, 0.05f, f);
    expect_vec3("arrive limited", f, 0.03, 0.04, 0, 0.05 * 4 * FEPS, "(1.2,1.6) limited to 0.05");
    // In the sim: arrive_radius 100, target (50, 0), maxforce 100: (1.5, 0).
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_ARRIVE));
    p.world.target_pos[0] = 50.0f;
    p.group[0].maxforce = 100.0f;
    agent a[1] = {{0, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 1);
    EXPECT(s->p.group[0].arrive_radius == 100.0f, "default arrive_radius 100, got %g",
           (double)s->p.group[0].arrive_radius);
    boids_sim_steer(s);
    expect_vec3("sim arrive", accel_of(s, 0), 1.5, 0, 0, 8 * FEPS, "d 50 of r 100: half maxspeed 3");
    boids_sim_destroy(s);
}
END_TEST

// ---- pursue / evade -----------------------------------------------------------

START_TEST(pursue_by_hand) {
    float f[3], g[3];
    const double r2 = sqrt(2.0);
    // Target at (10,0) moving (0,1), predict 10: aim at (10,0)+(0,1)*10 = (10,10);
    // maxspeed 2 from rest: (sqrt2, sqrt2).
    boids_pursue((float[3]){10, 0, 0}, (float[3]){0, 1, 0}, (float[3]){0, 0, 0}, 10.0f, 2.0f, 100.0f, f);
    expect_vec3("pursue", f, r2, r2, 0, 8 * FEPS, "seek target + v * predict = (10,10) at maxspeed 2");
    // predict 0 is plain seek.
    boids_pursue((float[3]){3, -7, 1}, (float[3]){5, 5, 5}, (float[3]){0.5f, 0, 0}, 0.0f, 3.0f, 0.05f, f);
    boids_seek((float[3]){3, -7, 1}, (float[3]){0.5f, 0, 0}, 3.0f, 0.05f, g);
    for (int a = 0; a < 3; a++)
        EXPECT(f[a] == g[a], "pursue with predict 0 must equal seek, axis %c: %g vs %g", "xyz"[a], (double)f[a],
               (double)g[a]);
    // In the sim: world target (10,0) moving (0,1), predict 10, maxspeed 3.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_PURSUE));
    p.world.target_pos[0] = 10.0f;
    p.world.target_vel[1] = 1.0f;
    p.group[0].maxforce = 100.0f;
    agent a[1] = {{0, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 1);
    EXPECT(s->p.group[0].predict == 10.0f, "default predict 10, got %g", (double)s->p.group[0].predict);
    boids_sim_steer(s);
    expect_vec3("sim pursue", accel_of(s, 0), 3 / r2, 3 / r2, 0, 8 * FEPS, "seek (10,10) at maxspeed 3");
    boids_sim_destroy(s);
}
END_TEST

START_TEST(evade_by_hand) {
    float f[3], g[3];
    const double r2 = sqrt(2.0);
    boids_evade((float[3]){10, 0, 0}, (float[3]){0, 1, 0}, (float[3]){0, 0, 0}, 10.0f, 2.0f, 100.0f, f);
    expect_vec3("evade", f, -r2, -r2, 0, 8 * FEPS, "flee target + v * predict = (10,10) at maxspeed 2");
    // evade = flee of the predicted point, bit for bit.
    boids_evade((float[3]){-4, 2, 0}, (float[3]){1, -1, 0}, (float[3]){0.3f, 0.2f, 0}, 5.0f, 3.0f, 0.05f, f);
    boids_flee((float[3]){1, -3, 0}, (float[3]){0.3f, 0.2f, 0}, 3.0f, 0.05f, g);
    for (int a = 0; a < 3; a++)
        EXPECT(f[a] == g[a], "evade must flee (-4,2)+(1,-1)*5 = (1,-3), axis %c: %g vs %g", "xyz"[a], (double)f[a],
               (double)g[a]);
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_EVADE));
    p.world.target_pos[0] = 10.0f;
    p.world.target_vel[1] = 1.0f;
    p.group[0].maxforce = 100.0f;
    agent a[1] = {{0, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 1);
    boids_sim_steer(s);
    expect_vec3("sim evade", accel_of(s, 0), -3 / r2, -3 / r2, 0, 8 * FEPS, "flee (10,10) at maxspeed 3");
    boids_sim_destroy(s);
}
END_TEST

// ---- wander -------------------------------------------------------------------

START_TEST(wander_by_hand) {
    float f[3];
    // 2D, heading +x (v = (2,0)), theta 0 + change 0.3 * rnd 1 = 0.3; the
    // point: centre (80,0) + 25 (cos 0.3, sin 0.3) relative to the heading.
    float ang[2] = {0.0f, 0.0f};
    boids_wander((float[3]){2, 0, 0}, ang, 1.0f, 0.0f, 80.0f, 25.0f, 0.3f, 2, 3.0f, 100.0f, f);
    EXPECT(fabs(ang[0] - 0.3) < FEPS, "wander theta: 0 + 0.3 * 1 = 0.3, got %g", (double)ang[0]);
    double tx = 80 + 25 * cos(0.3), ty = 25 * sin(0.3), tl = sqrt(tx * tx + ty * ty);
    expect_vec3("wander 2D", f, 3 * tx / tl - 2, 3 * ty / tl, 0, 16 * FEPS,
                "seek (80 + 25 cos .3, 25 sin .3) at maxspeed 3, minus v (2,0)");
    // Heading +y: the circle point rotates with the heading: (0,80) + 25 (cos(pi/2+.3), sin(pi/2+.3)).
    ang[0] = 0.0f;
    boids_wander((float[3]){0, 2, 0}, ang, 1.0f, 0.0f, 80.0f, 25.0f, 0.3f, 2, 3.0f, 100.0f, f);
    tx = -25 * sin(0.3);
    ty = 80 + 25 * cos(0.3);
    tl = sqrt(tx * tx + ty * ty);
    expect_vec3("wander 2D heading +y", f, 3 * tx / tl, 3 * ty / tl - 2, 0, 16 * FEPS,
                "point at theta relative to the heading (chapter adds the heading angle)");
    // 3D: theta 0.5 - 0.3 = 0.2, phi 0.2 + 0.15 = 0.35; point on the sphere
    // of radius 25 around heading * 80 (heading +x).
    float a3[2] = {0.5f, 0.2f};
    boids_wander((float[3]){1, 0, 0}, a3, -1.0f, 0.5f, 80.0f, 25.0f, 0.3f, 3, 3.0f, 100.0f, f);
    EXPECT(fabs(a3[0] - 0.2) < 4 * FEPS && fabs(a3[1] - 0.35) < 4 * FEPS,
           "3D wander angles: theta 0.5 + 0.3*(-1) = 0.2, phi 0.2 + 0.3*0.5 = 0.35; got %g, %g", (double)a3[0],
           (double)a3[1]);
    double px = 80 + 25 * cos(0.35) * cos(0.2), py = 25 * cos(0.35) * sin(0.2), pz = 25 * sin(0.35);
    double pl = sqrt(px * px + py * py + pz * pz);
    expect_vec3("wander 3D", f, 3 * px / pl - 1, 3 * py / pl, 3 * pz / pl, 16 * FEPS,
                "seek 80 ahead + 25 (cos phi cos theta, cos phi sin theta, sin phi)");
    // The angle moves by at most `change` per step and the force is limited.
    uint32_t seed = 12345;
    for (int i = 0; i < 4000; i++) {
        float r1 = boids_rng_signed(boids_rng_u32(seed, 0, (uint32_t)i, 0, BOIDS_RNG_WANDER));
        float r2 = boids_rng_signed(boids_rng_u32(seed, 0, (uint32_t)i, 0, BOIDS_RNG_WANDER2));
        float start = (float)(i % 629) * 0.01f - 3.14f, ph = start * 0.5f;
        float an[2] = {start, ph};
        float v[3] = {cosf(start * 3.0f), sinf(start * 3.0f), (i & 1) ? 0.3f : 0.0f};
        uint32_t dim = (i & 1) ? 3 : 2;
        boids_wander(v, an, r1, r2, 80.0f, 25.0f, 0.3f, dim, 3.0f, 0.05f, f);
        double d = fabs((double)boids_angle_diff(an[0], start));
        EXPECT(d <= 0.3 + 1e-6, "wander changed theta by %g > change 0.3 (from %g, rnd %g)", d, (double)start,
               (double)r1);
        EXPECT(an[0] > -PI - 1e-6 && an[0] <= PI + 1e-6, "wander theta %g outside (-pi, pi]", (double)an[0]);
        if (dim == 3)
            EXPECT(fabs((double)boids_angle_diff(an[1], ph)) <= 0.3 + 1e-6, "wander changed phi by > 0.3");
        EXPECT(norm3(f) <= 0.05 * (1 + 4 * FEPS), "wander force %g exceeds maxforce 0.05", norm3(f));
    }
}
END_TEST

START_TEST(wander_in_sim) {
    // In the pipeline the angles live in pos.w (theta) and vel.w (phi); per
    // step theta' = wrap(theta + change * rng_signed(hash(seed, id, step,
    // WANDER))) exactly.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_WANDER));
    p.world.seed_lo = 77;
    p.world.seed_hi = 5;
    agent a[3] = {{0, 0, 0, 1, 0, 0, 0}, {100, 0, 0, 0, 1, 0, 0}, {0, 100, 0, -1, -1, 0, 0}};
    boids_sim *s = sim_with(&p, a, 3);
    float theta[3] = {0, 0, 0};
    for (uint32_t step = 0; step < 30; step++) {
        boids_sim_step(s);
        for (uint32_t id = 0; id < 3; id++) {
            float r1 = boids_rng_signed(boids_rng_u32(77, 5, id, step, BOIDS_RNG_WANDER));
            float want = boids_angle_wrap(theta[id] + s->p.group[0].wander_change * r1);
            float got = pos_of(s, id)[3];
            EXPECT(got == want, "step %u id %u: wander theta %.9g, expected wrap(%.9g + 0.3 * %.9g) = %.9g", step, id,
                   (double)got, (double)theta[id], (double)r1, (double)want);
            EXPECT(norm3(s->accel[boids_sim_slots_by_id(s)[id]]) <= 0.05 * (1 + 4 * FEPS),
                   "wander accel above maxforce 0.05 * weight 1");
            theta[id] = got;
        }
    }
    boids_sim_destroy(s);
}
END_TEST

// ---- walls ------------------------------------------------------------------------

static void walls_world(boids_world_params *w, uint32_t dim) {
    memset(w, 0, sizeof(*w));
    w->dim = dim;
    w->boundary = BOIDS_BOUNDARY_WALLS;
    for (uint32_t a = 0; a < dim; a++)
        w->size[a] = 100.0f;
    w->wall_offset = 10.0f;
}

START_TEST(walls_by_hand) {
    boids_world_params w;
    walls_world(&w, 2);
    float f[3];
    const double k = 3.0 / sqrt(13.0); // setMag((3,2), 3) = (3,2) * 3/sqrt(13)
    // Far from every wall: NO force (desired starts as "none"; a zero desired
    // velocity would brake).
    EXPECT(!boids_walls((float[3]){50, 50, 0}, (float[3]){1, 1, 0}, &w, 3.0f, 0.05f, f),
           "walls in the middle must report no force");
    expect_zero("walls middle", f, "farther than offset 10 from every wall");
    EXPECT(!boids_walls((float[3]){10.5f, 89.5f, 0}, (float[3]){-2, 2, 0}, &w, 3.0f, 0.05f, f),
           "(10.5, 89.5) is outside both offset bands: no force");
    expect_zero("walls just inside the offsets", f, "10.5 and 89.5 are outside [0,10) and (90,100]");
    // Left wall (x 5 < 10), v (-1,2): desired (maxspeed, vy) = (3,2) -> setMag 3.
    EXPECT(boids_walls((float[3]){5, 50, 0}, (float[3]){-1, 2, 0}, &w, 3.0f, 100.0f, f), "x 5 < offset 10: near");
    expect_vec3("left wall", f, 3 * k + 1, 2 * k - 2, 0, 16 * FEPS, "desired (3, vy 2) setMag 3, minus v (-1,2)");
    // Right wall: desired (-3, vy).
    EXPECT(boids_walls((float[3]){95, 50, 0}, (float[3]){1, 2, 0}, &w, 3.0f, 100.0f, f), "x 95 > 90: near");
    expect_vec3("right wall", f, -3 * k - 1, 2 * k - 2, 0, 16 * FEPS, "desired (-3, vy 2) setMag 3, minus v (1,2)");
    // Bottom wall: desired (vx, 3).
    EXPECT(boids_walls((float[3]){50, 5, 0}, (float[3]){2, -1, 0}, &w, 3.0f, 100.0f, f), "y 5 < 10: near");
    expect_vec3("bottom wall", f, 2 * k - 2, 3 * k + 1, 0, 16 * FEPS, "desired (vx 2, 3) setMag 3, minus v (2,-1)");
    // Top wall: desired (vx, -3).
    EXPECT(boids_walls((float[3]){50, 95, 0}, (float[3]){2, 1, 0}, &w, 3.0f, 100.0f, f), "y 95 > 90: near");
    expect_vec3("top wall", f, 2 * k - 2, -3 * k - 1, 0, 16 * FEPS, "desired (vx 2, -3) setMag 3, minus v (2,1)");
    // Corner: both components set: (3,3) -> 3/sqrt2 each.
    EXPECT(boids_walls((float[3]){5, 5, 0}, (float[3]){0, 0, 0}, &w, 3.0f, 100.0f, f), "corner: near");
    expect_vec3("corner", f, 3 / sqrt(2.0), 3 / sqrt(2.0), 0, 16 * FEPS, "desired (3,3) setMag 3");
    // Limited by maxforce.
    EXPECT(boids_walls((float[3]){5, 50, 0}, (float[3]){-1, 0, 0}, &w, 3.0f, 0.05f, f), "x 5: near");
    expect_vec3("left wall limited", f, 0.05, 0, 0, 0.05 * FEPS, "desired (3,0) - (-1,0) = (4,0) limited to 0.05");
    // 3D: the z walls too: near the top z face, desired (vx, vy, -3).
    walls_world(&w, 3);
    EXPECT(boids_walls((float[3]){50, 50, 95}, (float[3]){1, 0, 1}, &w, 3.0f, 100.0f, f), "z 95 > 90: near");
    const double k3 = 3.0 / sqrt(10.0);
    expect_vec3("z wall", f, k3 - 1, 0, -3 * k3 - 1, 16 * FEPS, "desired (vx 1, vy 0, -3) setMag 3, minus v (1,0,1)");
    EXPECT(!boids_walls((float[3]){50, 50, 50}, (float[3]){1, 0, 1}, &w, 3.0f, 100.0f, f), "3D centre: no wall near");
    expect_zero("3D middle", f, "far from all six faces");
}
END_TEST

// wall_corner = book, the chapter's stay-within-walls: the x test sets
// desired = (+-maxspeed, vy), then the y test REPLACES it with (vx,
// +-maxspeed), so in a corner only the y wall counts; one wall alone is as
// the default rule.
START_TEST(walls_book_corner_by_hand) {
    boids_world_params w;
    walls_world(&w, 2);
    w.wall_corner = BOIDS_WALL_CORNER_BOOK;
    float f[3];
    // Corner (5, 5), v (2, -1): the book's desired (vx 2, 3), setMag 3.
    const double k = 3.0 / sqrt(13.0);
    EXPECT(boids_walls((float[3]){5, 5, 0}, (float[3]){2, -1, 0}, &w, 3.0f, 100.0f, f), "book corner: near");
    expect_vec3("book corner", f, 2 * k - 2, 3 * k + 1, 0, 16 * FEPS, "desired (vx 2, 3): the y test replaced x's");
    // Top-right corner (95, 95), v (1, 2): desired (vx 1, -3).
    const double k2 = 3.0 / sqrt(10.0);
    EXPECT(boids_walls((float[3]){95, 95, 0}, (float[3]){1, 2, 0}, &w, 3.0f, 100.0f, f), "book corner 2: near");
    expect_vec3("book top-right", f, k2 - 1, -3 * k2 - 2, 0, 16 * FEPS, "desired (vx 1, -3), minus v (1,2)");
    // The default rule at the same corner steers off both: (3, -3) / sqrt2 * ... -> (3/sqrt2 - 1, ...).
    w.wall_corner = BOIDS_WALL_CORNER_BOTH;
    EXPECT(boids_walls((float[3]){95, 95, 0}, (float[3]){1, 2, 0}, &w, 3.0f, 100.0f, f), "both corner: near");
    expect_vec3("both top-right", f, -3 / sqrt(2.0) - 1, -3 / sqrt(2.0) - 2, 0, 16 * FEPS, "desired (-3,-3) setMag 3");
    // One wall alone: the book's rule equals the default.
    w.wall_corner = BOIDS_WALL_CORNER_BOOK;
    EXPECT(boids_walls((float[3]){5, 50, 0}, (float[3]){-1, 2, 0}, &w, 3.0f, 100.0f, f), "book left wall: near");
    expect_vec3("book left wall", f, 3 * k + 1, 2 * k - 2, 0, 16 * FEPS, "desired (3, vy 2) as the default");
    // 3D corner of x, y and z: z, the last axis, decides: desired (vx, vy, 3).
    walls_world(&w, 3);
    w.wall_corner = BOIDS_WALL_CORNER_BOOK;
    const double k3 = 3.0 / sqrt(11.0);
    EXPECT(boids_walls((float[3]){5, 5, 5}, (float[3]){1, 1, -3}, &w, 3.0f, 100.0f, f), "book 3D corner: near");
    expect_vec3("book 3D corner", f, k3 - 1, k3 - 1, 3 * k3 + 3, 16 * FEPS, "desired (1, 1, 3) setMag 3");
}
END_TEST

START_TEST(walls_in_sim) {
    // The walls boundary mode turns the behaviour on by itself: an agent in
    // the middle keeps its velocity (accel exactly 0), one heading into the
    // left wall is pushed back along +x with maxforce * weight.
    boids_params p;
    small_world(&p, 2, 0);
    p.world.boundary = BOIDS_BOUNDARY_WALLS;
    agent a[2] = {{0, 0, 0, 1, 1, 0, 0}, {-495, 0, 0, -1, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_zero("sim walls middle", accel_of(s, 0), "no force far from the walls (never a brake)");
    float wgt = weight_of(&s->p.group[0], BOIDS_BI_WALLS);
    expect_vec3("sim walls left", accel_of(s, 1), 0.05 * wgt, 0, 0, 0.05 * FEPS * 2,
                "desired (3,0) - (-1,0) = (4,0) limited to 0.05");
    boids_sim_step(s);
    expect_vec3("sim walls middle after a step", vel_of(s, 0), 1, 1, 0, 0, "velocity unchanged by the walls");
    boids_sim_destroy(s);
}
END_TEST

// ---- target speed ----------------------------------------------------------------

// OpenSteer's steerForTargetSpeed: forward * clamp(target - |v|, -mf, mf).
START_TEST(speed_by_hand) {
    float f[3];
    // |v| = 5 above 1.5: brake by maxforce 0.05 along -v: (3,4)/5 * -0.05.
    boids_target_speed((float[3]){3, 4, 0}, 1.5f, 0.05f, f);
    expect_vec3("speed brake", f, -0.03, -0.04, 0, 0.05 * FEPS, "error -3.5 clamped to -0.05, along (0.6, 0.8)");
    // |v| = 1 below 1.5, budget 1: the whole error 0.5 along v.
    boids_target_speed((float[3]){0.6f, 0.8f, 0}, 1.5f, 1.0f, f);
    expect_vec3("speed accelerate", f, 0.3, 0.4, 0, 4 * FEPS, "error +0.5 within maxforce 1, along (0.6, 0.8)");
    // At the target speed: no force; at rest: no heading, no force.
    boids_target_speed((float[3]){1.5f, 0, 0}, 1.5f, 0.05f, f);
    expect_zero("speed at target", f, "error 0");
    boids_target_speed((float[3]){0, 0, 0}, 1.5f, 0.05f, f);
    expect_zero("speed at rest", f, "no heading to speed up along");
    // A target of 0 brakes; 3D.
    boids_target_speed((float[3]){0, 0, 2}, 0.0f, 0.1f, f);
    expect_vec3("speed 3D brake", f, 0, 0, -0.1, 0.1 * FEPS, "error -2 clamped to -0.1 along +z");
    // Never turns: the force is parallel to the velocity.
    boids_target_speed((float[3]){-2, 1, 0.5f}, 4.0f, 0.3f, f);
    double cross = (double)f[0] * 1 - (double)f[1] * -2;
    EXPECT(fabs(cross) < 1e-7 && f[0] < 0 && f[1] > 0, "speed: along v (-2, 1, .5), got (%g, %g, %g)", (double)f[0],
           (double)f[1], (double)f[2]);
}
END_TEST

// In a simulation alone: every agent's speed goes to the target at
// maxforce per step and stays there; headings do not change.
START_TEST(speed_in_sim) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_SPEED));
    p.group[0].target_speed = 2.0f;
    agent a[3] = {{0, 0, 0, 3, 0, 0, 0}, {100, 0, 0, 0, -0.5f, 0, 0}, {-200, 50, 0, 0.6f, 0.8f, 0, 0}};
    boids_sim *s = sim_with(&p, a, 3);
    const float start[3][2] = {{1, 0}, {0, -1}, {0.6f, 0.8f}};
    for (int k = 0; k < 60; k++)
        boids_sim_step(s);
    for (uint32_t id = 0; id < 3; id++) {
        const float *v = vel_of(s, id);
        double speed = sqrt((double)v[0] * v[0] + (double)v[1] * v[1]);
        EXPECT(fabs(speed - 2.0) < 1e-5, "agent %u: speed %.9g after 60 steps, expected the target 2", id, speed);
        EXPECT(fabs(v[0] / speed - start[id][0]) < 1e-5 && fabs(v[1] / speed - start[id][1]) < 1e-5,
               "agent %u: heading (%g, %g) changed from (%g, %g)", id, v[0] / speed, v[1] / speed, start[id][0],
               start[id][1]);
    }
    boids_sim_destroy(s);
}
END_TEST

// ---- queueing ------------------------------------------------------------------

// Reynolds' queue: blocked by a neighbour within distance, ahead within the
// cone cos 0.7 and slower; the brake is -v limited to maxforce.
START_TEST(queue_by_hand) {
    const float h[3] = {1, 0, 0}, v[3] = {2, 0, 0}, slow[3] = {1, 0, 0};
    EXPECT(boids_queue_blocks((float[3]){5, 0, 0}, 25, h, true, v, slow, 10), "5 ahead, slower: blocks");
    EXPECT(!boids_queue_blocks((float[3]){-5, 0, 0}, 25, h, true, v, slow, 10), "5 behind: dot(off, h) = -5 < 0");
    EXPECT(!boids_queue_blocks((float[3]){3, 4, 0}, 25, h, true, v, slow, 10), "cos 3/5 = 0.6 < 0.7: outside");
    EXPECT(boids_queue_blocks((float[3]){4, 3, 0}, 25, h, true, v, slow, 10), "cos 4/5 = 0.8 > 0.7: inside");
    EXPECT(!boids_queue_blocks((float[3]){5, 0, 0}, 25, h, true, v, (float[3]){3, 0, 0}, 10), "faster: |3| > |2|");
    EXPECT(!boids_queue_blocks((float[3]){5, 0, 0}, 25, h, true, v, (float[3]){0, 2, 0}, 10), "as fast: |2| = |2|");
    EXPECT(!boids_queue_blocks((float[3]){10, 0, 0}, 100, h, true, v, slow, 10), "d 10 is not below distance 10");
    EXPECT(!boids_queue_blocks((float[3]){5, 0, 0}, 25, (float[3]){0, 0, 0}, false, (float[3]){0, 0, 0}, slow, 10),
           "no heading: nothing is ahead");
    EXPECT(boids_queue_blocks((float[3]){0, 0, 5}, 25, (float[3]){0, 0, 1}, true, (float[3]){0, 0, 2}, slow, 10),
           "3D: 5 ahead along +z, slower");
    float f[3];
    boids_queue(0, (float[3]){3, 4, 0}, 0.05f, f);
    expect_zero("queue unblocked", f, "no neighbour blocks: the zero vector");
    boids_queue(1, (float[3]){3, 4, 0}, 0.05f, f);
    expect_vec3("queue brake", f, -0.03, -0.04, 0, 0.05 * FEPS, "-(3,4) limited to 0.05: -(0.6, 0.8) * 0.05");
    boids_queue(2, (float[3]){0.01f, 0, 0}, 0.05f, f);
    expect_vec3("queue slow brake", f, -0.01, 0, 0, FEPS * 0.01, "-(0.01, 0) is within maxforce: whole");
}
END_TEST

// In a simulation: the follower of a slower agent brakes, the leader (the
// follower behind it) does not; across the torus seam too; a coincident
// agent (d = 0) is skipped as in every neighbour rule.
START_TEST(queue_in_sim) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_QUEUE));
    agent a[6] = {{0, 0, 0, 2, 0, 0, 0},      {5, 0, 0, 1, 0, 0, 0},    {497, 100, 0, 2, 0, 0, 0},
                  {-498, 100, 0, 1, 0, 0, 0}, {0, -200, 0, 2, 0, 0, 0}, {0, -200, 0, 0.5f, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 6);
    boids_sim_steer(s);
    float wgt = weight_of(&s->p.group[0], BOIDS_BI_QUEUE);
    expect_vec3("sim queue follower", accel_of(s, 0), -0.05 * wgt, 0, 0, 0.05 * FEPS * 2,
                "slower agent 5 ahead: -(2,0) limited to 0.05");
    expect_zero("sim queue leader", accel_of(s, 1), "the other is behind (and faster)");
    expect_vec3("sim queue seam", accel_of(s, 2), -0.05 * wgt, 0, 0, 0.05 * FEPS * 2,
                "x 497 -> -498 is +5 across the wrap (world 1000)");
    expect_zero("sim queue seam leader", accel_of(s, 3), "its follower is 5 behind across the wrap");
    expect_zero("sim queue coincident", accel_of(s, 4), "d = 0: skipped");
    expect_zero("sim queue coincident other", accel_of(s, 5), "d = 0: skipped");
    boids_sim_destroy(s);
}
END_TEST

// ---- unaligned collision avoidance ---------------------------------------------

// OpenSteer's predictNearestApproachTime and the side-step, by hand.
START_TEST(avoid_by_hand) {
    const float v[3] = {1, 0, 0};
    float t = -1, q[3] = {0, 0, 0};
    // Self at 0 moving (1,0), other at (10,-8) moving (0,1): dv = (-1,1),
    // |dv|^2 = 2, t = -((10)(-1) + (-8)(1)) / 2 = 9, q = (10-9, -8+9) = (1,1).
    EXPECT(boids_avoid_threat((float[3]){10, -8, 0}, v, (float[3]){0, 1, 0}, 30, 6, &t, q), "crossing: a threat");
    EXPECT(t == 9.0f, "t %g, expected 18 / 2 = 9", (double)t);
    expect_vec3("avoid predicted", q, 2, 2, 0, 0, "((10,-8) + 9 (-1,1)) |dv|^2 = (1,1) 2 = (10,-8) 2 + (-1,1) 18");
    EXPECT(!boids_avoid_threat((float[3]){10, -8, 0}, v, (float[3]){0, 1, 0}, 9, 6, &t, q),
           "horizon 9: t = 9 is not below it");
    EXPECT(boids_avoid_threat((float[3]){10, -8, 0}, v, (float[3]){0, 1, 0}, 9.5f, 6, &t, q), "horizon 9.5: t 9");
    EXPECT(!boids_avoid_threat((float[3]){10, -8, 0}, v, (float[3]){0, 1, 0}, 30, 1, &t, q),
           "|q|^2 = 2 is not below danger 1^2");
    EXPECT(!boids_avoid_threat((float[3]){10, 0, 0}, v, (float[3]){2, 0, 0}, 30, 6, &t, q),
           "moving apart: t = -10 / 1 < 0");
    EXPECT(!boids_avoid_threat((float[3]){3, 0, 0}, v, v, 30, 6, &t, q), "same velocity: |dv| = 0, no approach");
    // The order of threats: sooner t, then the smaller id.
    EXPECT(boids_avoid_sooner(5, 3, 6, 1), "t 5 before t 6");
    EXPECT(!boids_avoid_sooner(5, 3, 5, 2), "t tie: id 2 before 3");
    EXPECT(boids_avoid_sooner(5, 2, 5, 3), "t tie: id 2 before 3");
    EXPECT(boids_avoid_sooner(1e30f, 7, INFINITY, UINT32_MAX), "any threat before none");
    // The side-step: -q without its part along the heading, set to maxforce.
    float f[3];
    boids_avoid(false, (float[3]){1, 1, 0}, (float[3]){1, 0, 0}, 0.05f, f);
    expect_zero("avoid no threat", f, "no threat: the zero vector");
    boids_avoid(true, (float[3]){1, 1, 0}, (float[3]){2, 0, 0}, 0.05f, f);
    expect_vec3("avoid side-step", f, 0, -0.05, 0, 0.05 * FEPS, "-(1,1) less its part along v = (2,0): (0,-1) * 0.05");
    boids_avoid(true, (float[3]){3, 4, 0}, (float[3]){0, 0, 0}, 0.05f, f);
    expect_vec3("avoid at rest", f, -0.03, -0.04, 0, 0.05 * FEPS, "at rest: all of -(3,4), setMag 0.05");
    boids_avoid(true, (float[3]){2, 0, 0}, (float[3]){1, 0, 0}, 0.05f, f);
    expect_zero("avoid dead ahead", f, "-(2,0) is all along the heading: no side");
    boids_avoid(true, (float[3]){0, 1, 2}, (float[3]){0, 0, 3}, 0.1f, f);
    expect_vec3("avoid 3D", f, 0, -0.1, 0, 0.1 * FEPS, "-(0,1,2) less its z part: (0,-1,0) * 0.1");
}
END_TEST

// Avoidance of agent 0 (at x0 moving (1,0)) with others (ids in order).
static void avoid_sim(const agent *a, uint32_t n, double ex, double ey, const char *why) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_AVOID));
    boids_sim *s = sim_with(&p, a, n);
    boids_sim_steer(s);
    float wgt = weight_of(&s->p.group[0], BOIDS_BI_AVOID);
    expect_vec3(why, accel_of(s, 0), ex * wgt, ey * wgt, 0, 0.05 * FEPS * 2, why);
    boids_sim_destroy(s);
}

// In a simulation (radius 50, body_radius 3: danger 6, horizon 30): the
// soonest threat wins, ties to the smaller id; the torus seam; coincident
// agents skipped.
START_TEST(avoid_in_sim) {
    // B (id 1) at (10,-8) moving (0,1): t 9, q (1,1): step to -y.
    agent one[2] = {{0, 0, 0, 1, 0, 0, 0}, {10, -8, 0, 0, 1, 0, 0}};
    avoid_sim(one, 2, 0, -0.05, "crossing from the right: side-step to -y");
    // The other's view: off (-10,8), v (0,1), vj (1,0): t 9, q (-1,-1) -> +x.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_AVOID));
    boids_sim *s = sim_with(&p, one, 2);
    boids_sim_steer(s);
    expect_vec3("sim avoid other", accel_of(s, 1), 0.05, 0, 0, 0.05 * FEPS * 2, "-(-1,-1) less its y part: +x");
    boids_sim_destroy(s);
    // A later threat C at (20,-21) moving (0,1): t 20.5, q (-0.5,-0.5) (+y);
    // the sooner B wins.
    agent two[3] = {{0, 0, 0, 1, 0, 0, 0}, {20, -21, 0, 0, 1, 0, 0}, {10, -8, 0, 0, 1, 0, 0}};
    avoid_sim(two, 3, 0, -0.05, "t 9 before t 20.5: B's side-step (-y)");
    // A tie at t 9: B at (10,-8) moving (0,1) (q (1,1): -y) and C at (10,8)
    // moving (0,-1) (q (1,-1): +y): the smaller id wins.
    agent tie_b[3] = {{0, 0, 0, 1, 0, 0, 0}, {10, -8, 0, 0, 1, 0, 0}, {10, 8, 0, 0, -1, 0, 0}};
    avoid_sim(tie_b, 3, 0, -0.05, "tie t 9: id 1 (B) wins, -y");
    agent tie_c[3] = {{0, 0, 0, 1, 0, 0, 0}, {10, 8, 0, 0, -1, 0, 0}, {10, -8, 0, 0, 1, 0, 0}};
    avoid_sim(tie_c, 3, 0, 0.05, "tie t 9: id 1 (C) wins, +y");
    // Across the seam: x 495 -> -495 is +10 (world 1000).
    agent seam[2] = {{495, 0, 0, 1, 0, 0, 0}, {-495, -8, 0, 0, 1, 0, 0}};
    avoid_sim(seam, 2, 0, -0.05, "across the wrap: the same crossing");
    // Coincident (d = 0): skipped; nothing else near.
    agent same[2] = {{0, 0, 0, 1, 0, 0, 0}, {0, 0, 0, 0, 1, 0, 0}};
    avoid_sim(same, 2, 0, 0, "d = 0: skipped, no threat");
    // Beyond the perception radius 50: no threat (t 45, q (5,5)... not looked at).
    agent far[2] = {{0, 0, 0, 1, 0, 0, 0}, {50, -40, 0, 0, 1, 0, 0}};
    avoid_sim(far, 2, 0, 0, "d = 64 > radius 50: not a neighbour");
}
END_TEST

// ---- stay on path ----------------------------------------------------------------

static void path_scene(boids_scene *sc, uint32_t n, const float (*pts)[2], bool closed);

// OpenSteer's steerToStayOnPath: predict path_predict ahead; within the
// path's radius of the nearest normal point no force, outside seek the
// normal point itself (path following would seek a point 10 further on).
START_TEST(stay_by_hand) {
    boids_world_params plain_world;
    memset(&plain_world, 0, sizeof(plain_world));
    plain_world.boundary = BOIDS_BOUNDARY_BOUNCE;
    boids_scene sc;
    float f[3];
    const float seg[2][2] = {{0, 0}, {100, 0}};
    path_scene(&sc, 2, seg, false);
    // Inside: future (50,10)+(25,0) = (75,10), normal (75,0) at 10 < 20.
    boids_stay_on_path((float[3]){50, 10, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    expect_zero("stay inside", f, "future point 10 from the path, radius 20");
    // Exactly on the radius (20 = 20, not > 20): no force, as following's test.
    boids_stay_on_path((float[3]){50, 20, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    expect_zero("stay on the radius", f, "d^2 400 is not > r^2 400");
    // Outside: future (75,30), normal (75,0) at 30 > 20: seek (75,0), to
    // target (25,-30) from (50,30); following would seek (85,0) instead.
    boids_stay_on_path((float[3]){50, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    double l = sqrt(25.0 * 25 + 30 * 30);
    expect_vec3("stay outside", f, 3 * 25 / l - 1, -3 * 30 / l, 0, 16 * FEPS,
                "seek the normal point (75,0): setMag((25,-30),3) - v (1,0)");
    // Past the end: future (115,30) -> the end point (100,0) at 33.5; to
    // target (10,-30) from (90,30).
    boids_stay_on_path((float[3]){90, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    l = sqrt(10.0 * 10 + 30 * 30);
    expect_vec3("stay past the end", f, 3 * 10 / l - 1, -3 * 30 / l, 0, 16 * FEPS, "normal point clamped to (100,0)");
    // Two segments: future (130,65), segment 2 (100,0)-(100,100) gives
    // (100,65) at 30 (segment 1: (100,0) at 71.6); to target (-30,25) from (130,40).
    const float two[3][2] = {{0, 0}, {100, 0}, {100, 100}};
    path_scene(&sc, 3, two, false);
    boids_stay_on_path((float[3]){130, 40, 0}, (float[3]){0, 2, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    l = sqrt(30.0 * 30 + 25 * 25);
    expect_vec3("stay two segments", f, -3 * 30 / l, 3 * 25 / l - 2, 0, 16 * FEPS, "seek (100,65) on segment 2");
    // The tie rule: future (150,-50) is 70.7 from (100,0) on both segments;
    // both give the shared corner (100,0) itself, so either wins the same.
    boids_stay_on_path((float[3]){150, -75, 0}, (float[3]){0, 2, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    l = sqrt(50.0 * 50 + 75 * 75);
    expect_vec3("stay at a corner", f, -3 * 50 / l, 3 * 75 / l - 2, 0, 16 * FEPS,
                "the corner (100,0), the same bits from both segments");
    // The zero vector: no heading, the future position is the agent's own.
    boids_stay_on_path((float[3]){50, 30, 0}, (float[3]){0, 0, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    expect_vec3("stay at rest", f, 0, -3, 0, 16 * FEPS,
                "no heading: future = the position (50,30); nearest (50,0) on segment 1 at 30 (segment 2: 50)");
    // Fewer than two points: no path, no force.
    sc.path_count = 1;
    boids_stay_on_path((float[3]){50, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 3.0f, 100.0f, f);
    expect_zero("stay one-point path", f, "a path needs a segment");
}
END_TEST

// Across the seam of the [-500,500)^2 torus (path_across_seam's set-up),
// in a simulation: the agent at (490,40) heading +x predicts (-485,40)
// through the seam, 40.3 from the path's end (-480,0): it seeks (-480,0),
// whose minimum-image offset is (30,-40); the one at (490,0) is 5 from the
// end: no force.
static boids_sim *seam_path_steered(uint32_t behavior);

START_TEST(stay_across_seam) {
    boids_sim *s = seam_path_steered(BOIDS_BI_STAY);
    expect_zero("stay across the seam, inside", accel_of(s, 0),
                "future (-485,0) on the torus, 5 from the path end (-480,0) < radius 20");
    expect_vec3("stay across the seam, outside", accel_of(s, 1), 3 * 0.6 - 1, -3 * 0.8, 0, 16 * FEPS,
                "seek (-480,0) through the seam: offset (30,-40), setMag 3 - v (1,0)");
    boids_sim_destroy(s);
}
END_TEST

// In a simulation alone, with its weight 1 and the chapter's maxforce: an
// agent released 60 outside a straight path comes within its radius and
// stays there, wherever it then drifts along the path.
START_TEST(stay_in_sim) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_STAY));
    const float line[2][2] = {{-400, 0}, {400, 0}};
    path_scene(&p.scene, 2, line, false);
    agent a[2] = {{0, 60, 0, 0.5f, 0, 0, 0}, {-100, -70, 0, 0, -1, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    for (int k = 0; k < 400; k++)
        boids_sim_step(s);
    for (uint32_t id = 0; id < 2; id++) {
        const float *q = pos_of(s, id);
        EXPECT(fabs(q[1]) < 20.0f + 3.0f * 25.0f, "agent %u: y %g after 400 steps, expected near the path (|y| < 95)",
               id, (double)q[1]);
    }
    boids_sim_destroy(s);
}
END_TEST

// ---- hide ------------------------------------------------------------------------

// A scene of `n` circles {x, y, radius}.
static void hide_scene(boids_scene *sc, uint32_t n, const float (*ob)[3]) {
    memset(sc, 0, sizeof(*sc));
    sc->path_radius = 20.0f; // no path; finalize wants a radius
    sc->obstacle_count = n;
    for (uint32_t i = 0; i < n; i++) {
        sc->obstacle[i][0] = ob[i][0];
        sc->obstacle[i][1] = ob[i][1];
        sc->obstacle[i][3] = ob[i][2];
    }
}

// Buckland's Hide: spot = centre + normalise(centre - hunter) * (radius +
// margin); arrive there (slowing radius 1e-6: plain seek at maxspeed 3);
// no obstacle within the radius 50: evade; no hunter: zero.
START_TEST(hide_by_hand) {
    boids_world_params plain_world;
    memset(&plain_world, 0, sizeof(plain_world));
    plain_world.boundary = BOIDS_BOUNDARY_BOUNCE;
    float spot[3], f[3];
    // Centre (30,0) radius 10, hunter (-20,0), margin 10: spot (30,0) + (1,0) * 20 = (50,0).
    boids_hiding_spot((float[3]){30, 0, 0}, 10.0f, (float[3]){-20, 0, 0}, 10.0f, spot);
    expect_vec3("hiding spot", spot, 50, 0, 0, 0, "centre (30,0) + (1,0) (10 + 10)");
    // Diagonal: centre (0,40) radius 5, hunter (-30,0): away (30,40)/50, spot (0,40) + (0.6,0.8) * 15 = (9,52).
    boids_hiding_spot((float[3]){0, 40, 0}, 5.0f, (float[3]){-30, 0, 0}, 10.0f, spot);
    expect_vec3("hiding spot diagonal", spot, 9, 52, 0, 64 * FEPS, "(0,40) + (0.6,0.8) * 15");
    // A hunter at the centre: no direction, the centre.
    boids_hiding_spot((float[3]){0, 40, 0}, 5.0f, (float[3]){0, 40, 0}, 10.0f, spot);
    expect_vec3("hiding spot, hunter at the centre", spot, 0, 40, 0, 0, "no direction away");

    // Two obstacles: (30,0) r 10 at 30 and (0,-45) r 20 at 45, both within
    // 50: the nearer (30,0); hunter (-20,0): spot (50,0); seek from rest: (3,0) - 0.
    boids_scene sc;
    const float two[2][3] = {{0, -45, 20}, {30, 0, 10}};
    hide_scene(&sc, 2, two);
    boids_hide((float[3]){0, 0, 0}, (float[3]){0, 0, 0}, true, (float[3]){-20, 0, 0}, (float[3]){0, 0, 0}, &sc,
               &plain_world, 50.0f, 10.0f, 10.0f, 1e-6f, 3.0f, 100.0f, f);
    expect_vec3("hide behind the nearest", f, 3, 0, 0, 16 * FEPS, "obstacle (30,0), spot (50,0), desired (3,0)");
    // From an agent at (100,100) (offsets relative to it), the same world:
    // the obstacles are at 130.0 and 145 beyond 50: evade the hunter at
    // offset (-20,0) moving (1,0), predict 10: flee (-10,0): desired (3,0), minus v (0,1).
    boids_hide((float[3]){100, 100, 0}, (float[3]){0, 1, 0}, true, (float[3]){-20, 0, 0}, (float[3]){1, 0, 0}, &sc,
               &plain_world, 50.0f, 10.0f, 10.0f, 1e-6f, 3.0f, 100.0f, f);
    expect_vec3("hide, no obstacle near: evade", f, 3, -1, 0, 16 * FEPS, "flee the predicted (-10,0)");
    // Equal distances (both at 30): the earlier obstacle, (0,30); hunter
    // (0,-10): spot (0,30) + (0,1) 20 = (0,50).
    const float tie[2][3] = {{0, 30, 10}, {30, 0, 10}};
    hide_scene(&sc, 2, tie);
    boids_hide((float[3]){0, 0, 0}, (float[3]){0, 0, 0}, true, (float[3]){0, -10, 0}, (float[3]){0, 0, 0}, &sc,
               &plain_world, 50.0f, 10.0f, 10.0f, 1e-6f, 3.0f, 100.0f, f);
    expect_vec3("hide, a tie", f, 0, 3, 0, 16 * FEPS, "the earlier obstacle (0,30): spot (0,50)");
    // No hunter: no force.
    boids_hide((float[3]){0, 0, 0}, (float[3]){1, 0, 0}, false, (float[3]){0, 0, 0}, (float[3]){0, 0, 0}, &sc,
               &plain_world, 50.0f, 10.0f, 10.0f, 1e-6f, 3.0f, 100.0f, f);
    expect_zero("hide, no hunter", f, "nothing to hide from");
}
END_TEST

// In simulations on the [-500,500)^2 torus: prey (group 0) flees group 1.
// The hunter is found through the grid (nearest within the radius 50,
// ties to the smaller id), across the seam, and the obstacle too.
START_TEST(hide_in_sim) {
    boids_params p;
    small_world(&p, 2, 0);
    p.world.group_count = 2;
    p.group[0].behaviors = BOIDS_BIT(BOIDS_BI_HIDE);
    p.group[0].relations = BOIDS_REL_FLEE << BOIDS_REL_BITS;
    p.group[0].maxforce = 100.0f;
    p.group[0].arrive_radius = 1e-6f; // arrive = seek at maxspeed 3
    p.group[1].behaviors = 0;
    // Prey 0 at (490,0) at rest; hunter 1 at (-490,0) (20 away through the
    // seam), hunter 2 at (440,0) (50 away: outside the radius). Obstacle at
    // (-470,0) r 10 (40 away through the seam): spot (-470,0) + (1,0) 20 =
    // (-450,0), offset (60,0): desired (3,0).
    const float ob[1][3] = {{-470, 0, 10}};
    hide_scene(&p.scene, 1, ob);
    agent a[4] = {{490, 0, 0, 0, 0, 0, 0}, {-490, 0, 0, 0, 0, 0, 1}, {440, 0, 0, 0, 0, 0, 1}, {0, 300, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 4);
    boids_sim_steer(s);
    expect_vec3("hide across the seam", accel_of(s, 0), 3, 0, 0, 16 * FEPS,
                "hunter (-490,0) and obstacle (-470,0) through the seam: spot (-450,0), offset (60,0)");
    expect_zero("hide, no hunter in range", accel_of(s, 3), "no hunter within 50");
    boids_sim_destroy(s);
    // Two hunters at the same distance 20, (0,20) id 1 and (0,-20) id 2: the
    // smaller id; obstacle (30,0) r 10: spot (30,0) + (30,-20)/|.| * 20.
    const float ob2[1][3] = {{30, 0, 10}};
    hide_scene(&p.scene, 1, ob2);
    agent b[3] = {{0, 0, 0, 0, 0, 0, 0}, {0, 20, 0, 0, 0, 0, 1}, {0, -20, 0, 0, 0, 0, 1}};
    s = sim_with(&p, b, 3);
    boids_sim_steer(s);
    double l = sqrt(30.0 * 30 + 20 * 20), sx = 30 + 30 / l * 20, sy = -20 / l * 20, m = sqrt(sx * sx + sy * sy);
    expect_vec3("hide, hunters tied", accel_of(s, 0), 3 * sx / m, 3 * sy / m, 0, 64 * FEPS,
                "the hunter of smaller id 1 at (0,20): the spot below-right of the obstacle");
    boids_sim_destroy(s);
}
END_TEST

// ---- offset pursuit and formations ----------------------------------------------

// The leader's frame: ahead = the heading (x at rest); 2D: side = ahead a
// quarter turn left, up = z; 3D: side = z x ahead normalised (y when ahead
// is along z), up = ahead x side.
static void expect_frame(const char *what, const float lv[3], uint32_t dim, const double ex[9], const char *why) {
    float a[3], s[3], u[3];
    boids_leader_frame(lv, dim, a, s, u);
    char name[96];
    snprintf(name, sizeof name, "%s ahead", what);
    expect_vec3(name, a, ex[0], ex[1], ex[2], 4 * FEPS, why);
    snprintf(name, sizeof name, "%s side", what);
    expect_vec3(name, s, ex[3], ex[4], ex[5], 4 * FEPS, why);
    snprintf(name, sizeof name, "%s up", what);
    expect_vec3(name, u, ex[6], ex[7], ex[8], 4 * FEPS, why);
}

START_TEST(offset_frame_by_hand) {
    expect_frame("2D (3,4)", (float[3]){3, 4, 0}, 2, (const double[9]){0.6, 0.8, 0, -0.8, 0.6, 0, 0, 0, 1},
                 "ahead (3,4)/5; side (-0.8,0.6): (-ahead.y, ahead.x); up z");
    expect_frame("2D at rest", (float[3]){0, 0, 0}, 2, (const double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1},
                 "no heading: ahead x, side y");
    // z x (0,0.6,0.8) = (0*0.8 - 1*0.6, 1*0 - 0*0.8, 0) = (-0.6,0,0) -> side (-1,0,0);
    // up = (0,0.6,0.8) x (-1,0,0) = (0.6*0 - 0.8*0, 0.8*-1 - 0*0, 0*0 - 0.6*-1) = (0,-0.8,0.6).
    expect_frame("3D (0,3,4)", (float[3]){0, 3, 4}, 3, (const double[9]){0, 0.6, 0.8, -1, 0, 0, 0, -0.8, 0.6},
                 "side = z x ahead normalised, up = ahead x side");
    // Along z: z x z = 0 -> side y; up = z x y = (0*0 - 1*1, 1*0 - 0*0, 0) = (-1,0,0).
    expect_frame("3D along z", (float[3]){0, 0, 5}, 3, (const double[9]){0, 0, 1, 0, 1, 0, -1, 0, 0},
                 "ahead along z: side y, up = z x y = -x");
    // Horizontal heading x: z x x = y, x x y = z: the 2D frame.
    expect_frame("3D along x", (float[3]){2, 0, 0}, 3, (const double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1},
                 "z x x = y, x x y = z");
    expect_frame("3D at rest", (float[3]){0, 0, 0}, 3, (const double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1},
                 "no heading: x, then side y and up z");
}
END_TEST

START_TEST(formation_place_by_hand) {
    float d[3];
    const float off[3] = {-20, 5, 1};
    // j = k / 2 + 1, side + for even k, - for odd; spacing 15.
    static const struct {
        uint32_t formation, slot, members;
        double x, y;
        const char *why;
    } cases[] = {
        {BOIDS_FORMATION_LINE, 0, 6, 0, 15, "line k 0: j 1, left: (0, 15)"},
        {BOIDS_FORMATION_LINE, 1, 6, 0, -15, "line k 1: j 1, right: (0, -15)"},
        {BOIDS_FORMATION_LINE, 2, 6, 0, 30, "line k 2: j 2, left: (0, 30)"},
        {BOIDS_FORMATION_LINE, 5, 6, 0, -45, "line k 5: j 3, right: (0, -45)"},
        {BOIDS_FORMATION_COLUMN, 0, 6, -15, 0, "column k 0: (-(0 + 1) 15, 0)"},
        {BOIDS_FORMATION_COLUMN, 2, 6, -45, 0, "column k 2: (-(2 + 1) 15, 0)"},
        {BOIDS_FORMATION_V, 0, 6, -15, 15, "V k 0: j 1: (-15, 15)"},
        {BOIDS_FORMATION_V, 1, 6, -15, -15, "V k 1: j 1: (-15, -15)"},
        {BOIDS_FORMATION_V, 4, 6, -45, 45, "V k 4: j 3: (-45, 45)"},
        // Ring: R = max(s, m s / 2 pi); 4 members: 60 / 2 pi = 9.55 < 15: R 15.
        {BOIDS_FORMATION_RING, 0, 4, 15, 0, "ring of 4, k 0: R 15 at angle 0"},
        {BOIDS_FORMATION_RING, 1, 4, 0, 15, "ring of 4, k 1: R 15 at 2 pi / 4"},
        {BOIDS_FORMATION_RING, 2, 4, -15, 0, "ring of 4, k 2: R 15 at pi"},
        // 12 members: R = 12 * 15 / 2 pi = 90 / pi = 28.6479; k 3 at 2 pi 3 / 12 = pi / 2.
        {BOIDS_FORMATION_RING, 3, 12, 0, 90 / PI, "ring of 12, k 3: R 90 / pi at pi / 2"},
        {BOIDS_FORMATION_RING, 8, 12, -90 / PI * 0.5, -90 / PI * 0.86602540378443865,
         "ring of 12, k 8: at 4 pi / 3 (cos -1/2, sin -sqrt 3 / 2)"},
        // No members (a group of the leader alone): m taken as 1, R = max(15, 15 / 2 pi) = 15.
        {BOIDS_FORMATION_RING, 0, 0, 15, 0, "ring of 0: m 1, R 15 at angle 0"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        boids_formation_place(cases[k].formation, cases[k].slot, cases[k].members, 15.0f, off, d);
        expect_vec3(cases[k].why, d, cases[k].x, cases[k].y, 0, 16 * 90 * FEPS, cases[k].why);
    }
    boids_formation_place(BOIDS_FORMATION_NONE, 3, 6, 15.0f, off, d);
    expect_vec3("no formation", d, -20, 5, 1, 0, "NONE: leader_offset itself for every member");
    boids_formation_place(BOIDS_FORMATION_LINE, 0, 6, 0.0f, off, d);
    expect_zero("line of spacing 0", d, "spacing 0: every place on the leader");

    // Ranks: ids 1, 4, 7, ... (base 1, stride 3, 10 of them).
    boids_group_params g;
    memset(&g, 0, sizeof g);
    g.rank_base = 1;
    g.rank_stride = 3;
    g.rank_count = 10;
    uint32_t m = 0;
    EXPECT(boids_formation_member(&g, 7, UINT32_MAX, &m) == 2 && m == 10,
           "id 7: rank (7 - 1) / 3 = 2 of 10 (the leader not of the group): got %u of %u",
           boids_formation_member(&g, 7, UINT32_MAX, &m), m);
    EXPECT(boids_formation_member(&g, 7, 1, &m) == 1 && m == 9,
           "id 7 with the leader at rank 1 (id 4): rank 2 - 1 = 1 of 10 - 1 = 9");
    EXPECT(boids_formation_member(&g, 1, 1, &m) == 0 && m == 9, "id 1 (rank 0, before the leader): 0 of 9");
    EXPECT(boids_formation_member(&g, 0, UINT32_MAX, &m) == 0, "an id below the base: rank 0");
    g.rank_stride = 0;
    g.rank_base = 0;
    EXPECT(boids_formation_member(&g, 5, UINT32_MAX, &m) == 5, "stride 0 is taken as 1: rank 5");
    g.rank_count = 0;
    EXPECT(boids_formation_member(&g, 0, 0, &m) == 0 && m == 0, "an empty group with its leader: 0 members, not -1");
}
END_TEST

// Offset pursuit: place = to_leader + ahead x + side y + up z; t = |place| /
// (maxspeed + |leader_vel|); arrive at place + leader_vel t (slowing radius
// 1e-6: seek at maxspeed 3 unless at the place itself).
START_TEST(offset_by_hand) {
    float f[3];
    // A stationary leader at (100,0), offset (-20,0,0) (frame x): place
    // (80,0), no motion to predict: seek (3,0) from rest.
    boids_offset_pursuit((float[3]){100, 0, 0}, (float[3]){0, 0, 0}, (float[3]){-20, 0, 0}, 2, (float[3]){0, 0, 0},
                         1e-6f, 3.0f, 100.0f, f);
    expect_vec3("offset, stationary leader", f, 3, 0, 0, 4 * FEPS, "place (100,0) + (-20,0) = (80,0): desired (3,0)");
    // Leader at (0,40) moving (0,2): ahead (0,1), side (-1,0); local
    // (-20,10,0): place = (0,40) + (0,-20) + (-10,0) = (-10,20); t =
    // sqrt(500) / (3 + 2); target (-10, 20 + 2 t); desired 3 target / |target|.
    boids_offset_pursuit((float[3]){0, 40, 0}, (float[3]){0, 2, 0}, (float[3]){-20, 10, 0}, 2, (float[3]){0, 0, 0},
                         1e-6f, 3.0f, 100.0f, f);
    {
        double t = sqrt(500.0) / 5.0, tx = -10, ty = 20 + 2 * t, m = sqrt(tx * tx + ty * ty);
        expect_vec3("offset, moving leader", f, 3 * tx / m, 3 * ty / m, 0, 16 * FEPS,
                    "place (-10,20) predicted t = sqrt 500 / 5 ahead: (-10, 28.944)");
    }
    // Agent on its place, the leader at rest: target 0, arrive's speed 0:
    // steer = -vel = (-1,0); from rest exactly zero.
    boids_offset_pursuit((float[3]){20, 0, 0}, (float[3]){0, 0, 0}, (float[3]){-20, 0, 0}, 2, (float[3]){1, 0, 0},
                         1e-6f, 3.0f, 100.0f, f);
    expect_vec3("offset, on its place", f, -1, 0, 0, 0, "target 0: desired 0, steer -vel");
    boids_offset_pursuit((float[3]){20, 0, 0}, (float[3]){0, 0, 0}, (float[3]){-20, 0, 0}, 2, (float[3]){0, 0, 0},
                         1e-6f, 3.0f, 100.0f, f);
    expect_zero("offset, on its place at rest", f, "the zero vector: nothing to do");
    // Coincident with the leader (to_leader 0), leader moving (1,0): place
    // (-20,0); t = 20 / (3 + 1) = 5; target (-20 + 5, 0) = (-15,0): desired
    // (-3,0) - vel (1,0) = (-4,0), limited to 0.05.
    boids_offset_pursuit((float[3]){0, 0, 0}, (float[3]){1, 0, 0}, (float[3]){-20, 0, 0}, 2, (float[3]){1, 0, 0}, 1e-6f,
                         3.0f, 0.05f, f);
    expect_vec3("offset, coincident with the leader", f, -0.05, 0, 0, 0.05 * FEPS, "(-4,0) limited to 0.05");
    // 3D: leader at (10,0,50) moving (0,0,4): ahead z, side y, up -x;
    // local (-10,5,2): place = (10,0,50) + (0,0,-10) + (0,5,0) + (-2,0,0) =
    // (8,5,40); t = sqrt(1689) / 7; target (8, 5, 40 + 4 t).
    boids_offset_pursuit((float[3]){10, 0, 50}, (float[3]){0, 0, 4}, (float[3]){-10, 5, 2}, 3, (float[3]){0, 0, 0},
                         1e-6f, 3.0f, 100.0f, f);
    {
        double t = sqrt(1689.0) / 7.0, tz = 40 + 4 * t, m = sqrt(64 + 25 + tz * tz);
        expect_vec3("offset 3D", f, 3 * 8 / m, 3 * 5 / m, 3 * tz / m, 16 * FEPS,
                    "place (8,5,40) in the frame (z, y, -x), predicted 4 t along z");
    }
    // 2D has no up: local (0,0,7) with a leader at rest at (30,40): place
    // (30,40), not (30,40,7): desired 3 (30,40) / 50 = (1.8,2.4,0).
    boids_offset_pursuit((float[3]){30, 40, 0}, (float[3]){0, 0, 0}, (float[3]){0, 0, 7}, 2, (float[3]){0, 0, 0}, 1e-6f,
                         3.0f, 100.0f, f);
    expect_vec3("offset 2D ignores up", f, 1.8, 2.4, 0, 16 * FEPS,
                "a 2D agent cannot reach z 7: the place stays on the plane (its xy steering unchanged)");
}
END_TEST

// A 2D world of `n` agents, behaviours `beh` for group 0 (maxforce 100,
// slowing radius 1e-6: arrive = seek at maxspeed 3).
static void named_world(boids_params *p, uint32_t beh) {
    small_world(p, 2, beh);
    p->group[0].maxforce = 100.0f;
    p->group[0].arrive_radius = 1e-6f;
}

// A leader named by id across the seam: agent 0 at (495,0) moving (2,0),
// formation line, spacing 15. Member id 1 (rank 1, after the leader's rank
// 0: slot 0, place (0,15) in the frame (x, y)) at (-495,0): to_leader =
// 495 - (-495) = 990 -> -10 (the minimum image); place (-10,15); t =
// sqrt(325) / 5; target (-10 + 2 t, 15). Id 2 (slot 1, place (0,-15)) at
// (0,300): to_leader (495,-300) (no wrap), place (495,-315).
START_TEST(offset_in_sim) {
    boids_params p;
    named_world(&p, BOIDS_BIT(BOIDS_BI_OFFSET));
    p.group[0].leader = 0;
    p.group[0].formation = BOIDS_FORMATION_LINE;
    agent a[3] = {{495, 0, 0, 2, 0, 0, 0}, {-495, 0, 0, 0, 0, 0, 0}, {0, 300, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 3);
    boids_sim_steer(s);
    double wgt = weight_of(&s->p.group[0], BOIDS_BI_OFFSET);
    expect_zero("offset: the leader", accel_of(s, 0), "the leader has no place of its own");
    double t = sqrt(325.0) / 5.0, tx = -10 + 2 * t, m = sqrt(tx * tx + 225);
    expect_vec3("offset across the seam", accel_of(s, 1), wgt * 3 * tx / m, wgt * 3 * 15 / m, 0, 16 * FEPS,
                "leader 10 ahead through the seam (not 990 behind): place (-10,15)");
    t = sqrt(495.0 * 495 + 315 * 315) / 5.0;
    tx = 495 + 2 * t;
    m = sqrt(tx * tx + 315.0 * 315);
    expect_vec3("offset, second slot", accel_of(s, 2), wgt * 3 * tx / m, wgt * -3 * 315 / m, 0, 16 * FEPS,
                "slot 1 of the line: (0,-15) right of the leader");
    boids_sim_destroy(s);
    // The leader named as the target (the default): every agent pursues
    // the place behind the world's target, put at (100,0) at rest: agent
    // 0 at (0,0): place (100,0) + (-20,0) = (80,0): desired (3,0).
    named_world(&p, BOIDS_BIT(BOIDS_BI_OFFSET));
    agent b[2] = {{0, 0, 0, 0, 0, 0, 0}, {80, 0, 0, 0, 0, 0, 0}};
    s = sim_with(&p, b, 2);
    s->p.world.target_pos[0] = 100.0f;
    s->p.world.target_pos[1] = 0.0f;
    s->p.world.target_vel[0] = s->p.world.target_vel[1] = 0.0f;
    boids_sim_steer(s);
    wgt = weight_of(&s->p.group[0], BOIDS_BI_OFFSET);
    expect_vec3("offset behind the target", accel_of(s, 0), 3 * wgt, 0, 0, 16 * FEPS, "place (80,0): desired (3,0)");
    expect_zero("offset on the target's place", accel_of(s, 1), "agent 1 at rest on (80,0): target 0, desired 0");
    boids_sim_destroy(s);
}
END_TEST

// The leader's place of member id (agent) in the leader's frame, as the world sees it.
static void place_of(boids_sim *s, uint32_t leader, const float local[3], float out[3]) {
    float a[3], sd[3], u[3];
    const float *lp = pos_of(s, leader);
    boids_leader_frame(vel_of(s, leader), 2, a, sd, u);
    for (int k = 0; k < 3; k++)
        out[k] = lp[k] + a[k] * local[0] + sd[k] * local[1];
}

// A V of 6 members behind leader id 3 (one group, ids 0..6: ranks 0..6,
// the leader's rank 3 skipped: ids 0, 1, 2, 4, 5, 6 take slots 0..5). The
// leader moves straight on at (1.5,0) (its own offset force is zero); the
// members start scattered, at rest, and close in on their places: each
// ends within 4 of its place (the arrive lag at slowing radius 10, leader
// speed v 1.5, maxspeed 3: L = v r (3 + v) / (3 (3 + 2 v)) = 3.75 behind),
// having started more than 60 away.
START_TEST(offset_formation_in_sim) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_OFFSET));
    p.group[0].leader = 3;
    p.group[0].formation = BOIDS_FORMATION_V;
    p.group[0].maxforce = 0.5f;
    p.group[0].arrive_radius = 10.0f;
    agent a[7] = {{-300, 100, 0, 0, 0, 0, 0}, {-200, -150, 0, 0, 0, 0, 0}, {-100, 200, 0, 0, 0, 0, 0},
                  {0, 0, 0, 1.5f, 0, 0, 0},   {50, -120, 0, 0, 0, 0, 0},   {-250, -50, 0, 0, 0, 0, 0},
                  {100, 150, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 7);
    const uint32_t slot_of[7] = {0, 1, 2, 0, 3, 4, 5};
    double before[7];
    for (uint32_t id = 0; id < 7; id++) {
        if (id == 3)
            continue;
        float local[3], at[3], d[3];
        boids_formation_place(BOIDS_FORMATION_V, slot_of[id], 6, 15.0f, p.group[0].leader_offset, local);
        place_of(s, 3, local, at);
        boids_world_delta(&s->p.world, pos_of(s, id), at, d);
        before[id] = norm3(d);
        EXPECT(before[id] > 60.0, "member %u starts %g from its place (expected > 60)", id, before[id]);
    }
    for (int k = 0; k < 600; k++)
        boids_sim_step(s);
    expect_vec3("the leader goes straight on", vel_of(s, 3), 1.5, 0, 0, 0, "no force on the leader");
    for (uint32_t id = 0; id < 7; id++) {
        if (id == 3)
            continue;
        float local[3], at[3], d[3];
        boids_formation_place(BOIDS_FORMATION_V, slot_of[id], 6, 15.0f, p.group[0].leader_offset, local);
        place_of(s, 3, local, at);
        boids_world_delta(&s->p.world, pos_of(s, id), at, d);
        EXPECT(norm3(d) < 4.0,
               "member %u (slot %u, V place (%g,%g)) is %g from its place after 600 steps "
               "(started %g away; expected < 4: the arrive lag 3.75)",
               id, slot_of[id], (double)local[0], (double)local[1], norm3(d), before[id]);
    }
    boids_sim_destroy(s);
}
END_TEST

// ---- leader following ------------------------------------------------------------

// Reynolds: arrive at back = to_leader - behind * heading; within sight of
// the leader or of front = to_leader + behind * heading, add evade (flee
// the leader's position predicted 10 ahead); the sum limited to maxforce.
// Behind 20, sight 15, slowing radius 1e-6 (seek at 3), maxforce 100.
START_TEST(follow_by_hand) {
    float f[3];
#define FOLLOW(to, lv, vel, mf) boids_follow_leader(to, lv, vel, 20.0f, 15.0f, 10.0f, 1e-6f, 3.0f, mf, f)
    // Leader 100 ahead moving (2,0): back (80,0), front (120,0), both far:
    // seek (3,0) - vel (0,1).
    FOLLOW(((float[3]){100, 0, 0}), ((float[3]){2, 0, 0}), ((float[3]){0, 1, 0}), 100.0f);
    expect_vec3("follow, behind point", f, 3, -1, 0, 4 * FEPS, "back (80,0): desired (3,0) minus vel (0,1)");
    // In the leader's way: to_leader (-10,-5), heading (1,0): back
    // (-30,-5), front (10,-5): |front|^2 = 125 <= 225: evade. Evade flees
    // (-10,-5) + (2,0) 10 = (10,-5). Sum of 3 (-30,-5)/sqrt 925 and -3 (10,-5)/sqrt 125.
    FOLLOW(((float[3]){-10, -5, 0}), ((float[3]){2, 0, 0}), ((float[3]){0, 0, 0}), 100.0f);
    {
        double bx = 3 * -30 / sqrt(925.0), by = 3 * -5 / sqrt(925.0), ex = -3 * 10 / sqrt(125.0),
               ey = -3 * -5 / sqrt(125.0);
        expect_vec3("follow, out of the way ahead", f, bx + ex, by + ey, 0, 16 * FEPS,
                    "front (10,-5) within sight 15: arrive behind plus evade");
    }
    // The same limited to maxforce 0.05: |sum| > 0.05, scaled down to 0.05.
    FOLLOW(((float[3]){-10, -5, 0}), ((float[3]){2, 0, 0}), ((float[3]){0, 0, 0}), 0.05f);
    {
        double bx = -0.05 * 30 / sqrt(925.0), by = -0.05 * 5 / sqrt(925.0), ex = -0.05 * 10 / sqrt(125.0),
               ey = 0.05 * 5 / sqrt(125.0), sx = bx + ex, sy = by + ey, m = sqrt(sx * sx + sy * sy);
        expect_vec3("follow, the sum limited", f, 0.05 * sx / m, 0.05 * sy / m, 0, 0.05 * 4 * FEPS,
                    "each part limited to 0.05, their sum limited to 0.05");
    }
    // Within sight of the leader itself: to_leader (12,0), heading (0,1):
    // front (12,20) |23.3| > 15, |to_leader| 12 <= 15: evade. Arrive 3
    // (12,-20)/sqrt 544, flee 3 (12,20)/sqrt 544: x cancels, y -6 20/sqrt 544.
    FOLLOW(((float[3]){12, 0, 0}), ((float[3]){0, 2, 0}), ((float[3]){0, 0, 0}), 100.0f);
    expect_vec3("follow, near the leader", f, 0, -6 * 20 / sqrt(544.0), 0, 16 * FEPS,
                "to_leader 12 within sight: arrive at (12,-20) plus flee (12,20)");
    // Just out of sight: to_leader (16,0): |front| 25.6 and 16 > 15: arrive only.
    FOLLOW(((float[3]){16, 0, 0}), ((float[3]){0, 2, 0}), ((float[3]){0, 0, 0}), 100.0f);
    expect_vec3("follow, out of sight", f, 3 * 16 / sqrt(656.0), -3 * 20 / sqrt(656.0), 0, 16 * FEPS,
                "16 > 15: no evade; back (16,-20)");
    // A stationary leader: no heading, back = front = to_leader. Far (50): seek (30,40).
    FOLLOW(((float[3]){30, 40, 0}), ((float[3]){0, 0, 0}), ((float[3]){0, 0, 0}), 100.0f);
    expect_vec3("follow a stationary leader", f, 1.8, 2.4, 0, 4 * FEPS, "the leader itself: 3 (30,40)/50");
    // Near (10 <= 15): arrive 3 (6,8)/10 and flee -3 (6,8)/10 cancel exactly.
    FOLLOW(((float[3]){6, 8, 0}), ((float[3]){0, 0, 0}), ((float[3]){0, 0, 0}), 100.0f);
    expect_zero("follow a stationary leader, near", f, "seek and flee of the same point cancel: the zero vector");
    // Coincident with a moving leader (2,0): back (-20,0): seek (-3,0);
    // |to_leader| 0 <= 15: flee (0,0) + (2,0) 10 = (20,0): (-3,0); sum
    // (-6,0) limited to 0.05.
    FOLLOW(((float[3]){0, 0, 0}), ((float[3]){2, 0, 0}), ((float[3]){0, 0, 0}), 0.05f);
    expect_vec3("follow, coincident with the leader", f, -0.05, 0, 0, 0.05 * FEPS, "(-6,0) limited to 0.05");
    // Coincident with a stationary leader, at rest: every offset 0: the zero vector.
    FOLLOW(((float[3]){0, 0, 0}), ((float[3]){0, 0, 0}), ((float[3]){0, 0, 0}), 100.0f);
    expect_zero("follow, coincident and at rest", f, "no direction anywhere: zero");
    // 3D: leader (0,0,50) moving (0,0,4): back (0,0,30): seek (0,0,3).
    FOLLOW(((float[3]){0, 0, 50}), ((float[3]){0, 0, 4}), ((float[3]){0, 0, 0}), 100.0f);
    expect_vec3("follow 3D", f, 0, 0, 3, 4 * FEPS, "back = (0,0,50) - 20 (0,0,1)");
#undef FOLLOW
}
END_TEST

// Leader id 0 at (495,0) moving (2,0); follower id 1 at (-460,10):
// to_leader = (495 - (-460), -10) = (955,-10) -> (-45,-10) through the seam;
// back (-65,-10): seek 3 (-65,-10)/|.|. (Without the wrap: (+3, ...).) Id 2
// at (470,0) is 25 behind: back (5,0) (|front| 45 > 15, 25 > 15): seek (3,0)
// minus its vel (2,0) = (1,0).
START_TEST(follow_in_sim) {
    boids_params p;
    named_world(&p, BOIDS_BIT(BOIDS_BI_FOLLOW));
    p.group[0].leader = 0;
    agent a[3] = {{495, 0, 0, 2, 0, 0, 0}, {-460, 10, 0, 0, 0, 0, 0}, {470, 0, 0, 2, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 3);
    boids_sim_steer(s);
    double wgt = weight_of(&s->p.group[0], BOIDS_BI_FOLLOW), m = sqrt(65.0 * 65 + 100);
    expect_zero("follow: the leader", accel_of(s, 0), "the leader does not follow itself");
    expect_vec3("follow across the seam", accel_of(s, 1), wgt * -3 * 65 / m, wgt * -3 * 10 / m, 0, 16 * FEPS,
                "the leader 45 back through the seam, not 955 ahead");
    expect_vec3("follow, 25 behind", accel_of(s, 2), wgt * 1, 0, 0, 16 * FEPS, "back (5,0): (3,0) - (2,0)");
    boids_sim_destroy(s);
}
END_TEST

// ---- interpose -----------------------------------------------------------------

// Buckland: mid = (a + b) / 2; t = |mid| / maxspeed; arrive at ((a + va t)
// + (b + vb t)) / 2 (slowing radius 1e-6: seek at 3; maxforce 100).
START_TEST(interpose_by_hand) {
    float f[3];
#define INTERPOSE(a, va, b, vb, vel) boids_interpose(a, va, b, vb, vel, 1e-6f, 3.0f, 100.0f, f)
    // A pair at rest at (10,0) and (30,0): mid (20,0): seek (3,0).
    INTERPOSE(((float[3]){10, 0, 0}), ((float[3]){0, 0, 0}), ((float[3]){30, 0, 0}), ((float[3]){0, 0, 0}),
              ((float[3]){0, 0, 0}));
    expect_vec3("interpose at rest", f, 3, 0, 0, 4 * FEPS, "mid (20,0)");
    // Moving: a (-20,30) v (2,0), b (20,30) v (0,-1): mid (0,30), t = 30 /
    // 3 = 10; a -> (0,30), b -> (20,20): mid (10,25): 3 (10,25)/sqrt 725.
    INTERPOSE(((float[3]){-20, 30, 0}), ((float[3]){2, 0, 0}), ((float[3]){20, 30, 0}), ((float[3]){0, -1, 0}),
              ((float[3]){0, 0, 0}));
    expect_vec3("interpose a moving pair", f, 30 / sqrt(725.0), 75 / sqrt(725.0), 0, 16 * FEPS,
                "the midpoint predicted 10 ahead: (10,25)");
    // The agent already on the midpoint: t 0, target 0: arrive's speed 0,
    // steer -vel; at rest the zero vector.
    INTERPOSE(((float[3]){-2, 0, 0}), ((float[3]){5, 0, 0}), ((float[3]){2, 0, 0}), ((float[3]){0, 5, 0}),
              ((float[3]){1, 1, 0}));
    expect_vec3("interpose on the midpoint", f, -1, -1, 0, 0, "t = 0 ignores their velocities: desired 0 - vel");
    INTERPOSE(((float[3]){-2, 0, 0}), ((float[3]){5, 0, 0}), ((float[3]){2, 0, 0}), ((float[3]){0, 5, 0}),
              ((float[3]){0, 0, 0}));
    expect_zero("interpose on the midpoint at rest", f, "the zero vector");
    // Coincident agents: a and b both on the guard: mid 0, t 0: zero.
    INTERPOSE(((float[3]){0, 0, 0}), ((float[3]){1, 0, 0}), ((float[3]){0, 0, 0}), ((float[3]){3, 0, 0}),
              ((float[3]){0, 0, 0}));
    expect_zero("interpose, all coincident", f, "mid 0 and t 0: nowhere to go");
    // a and b coincident at (30,40), moving apart (1,0) and (-1,0): mid
    // (30,40), t 50 / 3: they meet again at the same midpoint: seek (1.8,2.4).
    INTERPOSE(((float[3]){30, 40, 0}), ((float[3]){1, 0, 0}), ((float[3]){30, 40, 0}), ((float[3]){-1, 0, 0}),
              ((float[3]){0, 0, 0}));
    expect_vec3("interpose, the pair coincident", f, 1.8, 2.4, 0, 16 * FEPS, "opposite motions cancel at the midpoint");
    // 3D: a (0,0,30) at rest, b (0,40,30) moving (0,0,3): mid (0,20,30), t
    // = sqrt(1300) / 3, b -> (0,40,30 + sqrt 1300): mid (0,20,30 + sqrt(1300) / 2).
    INTERPOSE(((float[3]){0, 0, 30}), ((float[3]){0, 0, 0}), ((float[3]){0, 40, 30}), ((float[3]){0, 0, 3}),
              ((float[3]){0, 0, 0}));
    {
        double z = 30 + sqrt(1300.0) / 2, m = sqrt(400 + z * z);
        expect_vec3("interpose 3D", f, 0, 60 / m, 3 * z / m, 16 * FEPS, "b predicted sqrt 1300 up");
    }
#undef INTERPOSE
}
END_TEST

// Guards (group 1) between agent 0 and agent 1, or agent 0 and the target.
START_TEST(interpose_in_sim) {
    boids_params p;
    named_world(&p, 0);
    p.world.group_count = 2;
    p.group[1].behaviors = BOIDS_BIT(BOIDS_BI_INTERPOSE);
    p.group[1].maxforce = 100.0f;
    p.group[1].arrive_radius = 1e-6f;
    p.group[1].interpose_a = 0;
    p.group[1].interpose_b = 1;
    // a (id 0) at (490,0) moving (1,0), b (id 1) at (-470,0) at rest; guard
    // id 2 at (-490,40): to_a = (980,-40) -> (-20,-40), to_b (20,-40): mid
    // (0,-40), t 40 / 3; a -> (-20 + 40 / 3, -40): mid (20 / 3, -40) / 1...
    // = ((-20 + 40/3) + 20) / 2 = 20 / 3, y -40: seek 3 (20/3, -40)/|.|.
    agent a[3] = {{490, 0, 0, 1, 0, 0, 0}, {-470, 0, 0, 0, 0, 0, 0}, {-490, 40, 0, 0, 0, 0, 1}};
    boids_sim *s = sim_with(&p, a, 3);
    boids_sim_steer(s);
    double wgt = weight_of(&s->p.group[1], BOIDS_BI_INTERPOSE), x = 20.0 / 3, m = sqrt(x * x + 1600);
    expect_vec3("interpose across the seam", accel_of(s, 2), wgt * 3 * x / m, wgt * -3 * 40 / m, 0, 16 * FEPS,
                "a 20 left through the seam, b 20 right: the predicted midpoint (6.67,-40)");
    expect_zero("interpose: the pair", accel_of(s, 0), "group 0 has no behaviour");
    boids_sim_destroy(s);
    // Agent 0 and the target: a (id 0) at (470,0) at rest, the target at
    // (-490,0) at rest, guard (id 1) at (480,0): to_a (-10,0), to_target
    // (-970 -> 30, 0): mid (10,0): seek (3,0) (without the wrap: (-3,0)).
    p.group[1].interpose_b = BOIDS_ID_TARGET;
    agent b[2] = {{470, 0, 0, 0, 0, 0, 0}, {480, 0, 0, 0, 0, 0, 1}};
    s = sim_with(&p, b, 2);
    s->p.world.target_pos[0] = -490.0f;
    s->p.world.target_pos[1] = 0.0f;
    s->p.world.target_vel[0] = s->p.world.target_vel[1] = 0.0f;
    boids_sim_steer(s);
    expect_vec3("interpose agent and target across the seam", accel_of(s, 1), wgt * 3, 0, 0, 16 * FEPS,
                "the target 30 right through the seam, a 10 left: mid (10,0)");
    boids_sim_destroy(s);
}
END_TEST

// ---- wall avoidance with feelers --------------------------------------------------

// Wall k of sc: a segment from (ax,ay) to (bx,by), or a plane through a with normal b.
static void add_wall(boids_scene *sc, bool plane, const float a[3], const float b[3]) {
    uint32_t k = sc->wall_count++;
    memcpy(sc->wall[2 * k], a, 3 * sizeof(float));
    memcpy(sc->wall[2 * k + 1], b, 3 * sizeof(float));
    sc->wall[2 * k][3] = plane ? BOIDS_WALL_PLANE : BOIDS_WALL_SEGMENT;
    sc->wall[2 * k + 1][3] = 0.0f;
}

// Buckland's feelers at length 40: ahead 40, the two at +-45 degrees
// (h +- s) 0.70710678 * 20 (length 20, reaching 14.142 along each axis);
// each feeler's nearest crossing at t pushes along the wall's normal (on
// the agent's side) by (1 - t) |feeler|; maxforce 100.
START_TEST(feelers_by_hand) {
    boids_scene sc;
    float f[3], t, n[3];
    const float o[3] = {0, 0, 0}, east[3] = {2, 0, 0};
    const double d45 = 0.70710678f * 0.5f * 40.0f; // 14.1421 (float as feelers.c)
    // The hit itself: feeler (0,0) -> (40,0), segment (30,-50)-(30,50): e =
    // (0,100), w = (30,-50), den = 40 * 100 = 4000, t = (30 * 100 - 0) /
    // 4000 = 0.75, u = (0 - (-50) 40) / 4000 = 0.5; normal (-100,0) -> (-1,0).
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){30, -50, 0}, (float[3]){30, 50, 0});
    EXPECT(boids_feeler_hit(o, (float[3]){40, 0, 0}, sc.wall[0], sc.wall[1], &t, n) && t == 0.75f,
           "feeler (40,0) crosses x = 30 at t 0.75 (got %g)", (double)t);
    expect_vec3("segment normal", n, -1, 0, 0, 0, "(-ey, ex) = (-100,0) faces the agent already");
    // The same wall seen from beyond it (agent at (60,0), feeler (-40,0)): the normal flips to (1,0).
    EXPECT(boids_feeler_hit((float[3]){60, 0, 0}, (float[3]){-40, 0, 0}, sc.wall[0], sc.wall[1], &t, n) && t == 0.75f,
           "feeler from (60,0) back crosses at t 0.75");
    expect_vec3("segment normal from the other side", n, 1, 0, 0, 0, "w . (-100,0) = -30 * -100 > 0: flipped");
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_vec3("feelers, a wall ahead", f, -10, 0, 0, 4 * FEPS,
                "only the ahead feeler reaches x 30: (1 - 0.75) 40 = 10 along (-1,0)");
    // Limited to maxforce 0.05.
    boids_feelers(o, east, &sc, 2, 40.0f, 0.05f, f);
    expect_vec3("feelers limited", f, -0.05, 0, 0, 0.05 * FEPS, "(-10,0) limited to 0.05");

    // A wall at x 10 meets all three: ahead t 10/40, depth 30; each side
    // t = 10 / 14.142, depth (1 - t) 20; their sum along -x.
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){10, -50, 0}, (float[3]){10, 50, 0});
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_vec3("feelers, three hits", f, -(30 + 2 * (1 - 10 / d45) * 20), 0, 0, 64 * FEPS,
                "30 + 2 (1 - 0.7071) 20 = 41.716 along -x");

    // The left feeler alone: segment (0,8)-(20,8), heading (1,0): ahead is
    // parallel (den 0), right goes down; left (14.142,14.142) crosses y 8
    // at t = 8 / 14.142 = 0.5657, x 8: depth (1 - t) 20 = 8.686 along the
    // normal (0,20) flipped toward the agent (w . n = 8 * 20 > 0): (0,-1).
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){0, 8, 0}, (float[3]){20, 8, 0});
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_vec3("feelers, left at 45 degrees", f, 0, -(1 - 8 / d45) * 20, 0, 64 * FEPS,
                "the +45 feeler: (1 - 0.5657) 20 = 8.686 to the right");
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){0, -8, 0}, (float[3]){20, -8, 0});
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_vec3("feelers, right at 45 degrees", f, 0, (1 - 8 / d45) * 20, 0, 64 * FEPS,
                "the -45 feeler: 8.686 to the left");

    // A parallel wall out of the side feelers' reach (y 15 > 14.142): no hit.
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){-50, 15, 0}, (float[3]){50, 15, 0});
    EXPECT(!boids_feeler_hit(o, (float[3]){40, 0, 0}, sc.wall[0], sc.wall[1], &t, n),
           "a feeler parallel to the wall: den = 0, no crossing");
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_zero("feelers, parallel wall", f, "the side feelers end at y 14.142 < 15");
    // A wall behind the agent (x -10): t = -10 / 40 < 0: no hit.
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){-10, -50, 0}, (float[3]){-10, 50, 0});
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_zero("feelers, wall behind", f, "every feeler points away from x -10");
    // A segment that ends before the feeler's path: (30,5)-(30,50): u < 0.
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){30, 5, 0}, (float[3]){30, 50, 0});
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_zero("feelers, past a segment's end", f, "the line x 30 is crossed at y 0, outside 5..50");

    // No velocity: no heading, no force (the wall of x 10 right there).
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){10, -50, 0}, (float[3]){10, 50, 0});
    boids_feelers(o, o, &sc, 2, 40.0f, 100.0f, f);
    expect_zero("feelers at rest", f, "no heading: the zero vector");
    // No walls: zero.
    memset(&sc, 0, sizeof sc);
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_zero("feelers, no walls", f, "nothing to feel");

    // The nearer of two walls: x 30 (first) and x 20: the ahead feeler's
    // nearest crossing t 0.5: depth 20, not 10 (nor 10 + 20).
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){30, -50, 0}, (float[3]){30, 50, 0});
    add_wall(&sc, false, (float[3]){20, -50, 0}, (float[3]){20, 50, 0});
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_vec3("feelers, the nearer of two", f, -20, 0, 0, 4 * FEPS, "x 20 at t 0.5: (1 - 0.5) 40");
    // A tie (both crossed at t 0.75): the earlier wall. Wall 0 from (20,-10)
    // to (40,10) (through (30,0); e (20,20), den 40 * 20 = 800, t = (20 *
    // 20 + 10 * 20) / 800 = 0.75; normal (-20,20)/|.|, w . n = -600 < 0:
    // kept); wall 1 at x 30. The side feelers miss wall 0 (left: parallel;
    // right: crosses at x 15 > 14.142) and x 30.
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, false, (float[3]){20, -10, 0}, (float[3]){40, 10, 0});
    add_wall(&sc, false, (float[3]){30, -50, 0}, (float[3]){30, 50, 0});
    boids_feelers(o, east, &sc, 2, 40.0f, 100.0f, f);
    expect_vec3("feelers, a tie", f, -10 * sqrt(0.5), 10 * sqrt(0.5), 0, 16 * FEPS,
                "the earlier (diagonal) wall's normal (-1,1)/sqrt 2, depth 10");

    // Planes. 2D: the line through (0,30) with normal (0,1), heading (0,1):
    // the agent's signed distance sp = (0 - 30) = -30, the tip's -30 + 40 =
    // 10: t = -30 / (-30 - 10) = 0.75, normal -(0,1): depth 10 along (0,-1).
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, true, (float[3]){0, 30, 0}, (float[3]){0, 1, 0});
    boids_feelers(o, (float[3]){0, 2, 0}, &sc, 2, 40.0f, 100.0f, f);
    expect_vec3("feelers, a line in 2D", f, 0, -10, 0, 4 * FEPS, "(1 - 0.75) 40 back along (0,-1)");
    // 3D: the plane x = 30 with normal (5,0,0) (any length), heading (1,0,0):
    // side = z x x = y; sp -30, tip 10: t 0.75; the side feelers end at x 14.142.
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, true, (float[3]){30, 0, 0}, (float[3]){5, 0, 0});
    boids_feelers((float[3]){0, 0, 0}, (float[3]){1, 0, 0}, &sc, 3, 40.0f, 100.0f, f);
    expect_vec3("feelers, a plane in 3D", f, -10, 0, 0, 4 * FEPS, "normal (5,0,0) -> (1,0,0), flipped to the agent");
    // 3D, tilted: agent (0,0,20) heading (0,0,3), plane z = 50 seen from
    // below with normal (0,0,-2): sp = (20 - 50) * -1 = 30, the tip 30 - 40
    // = -10: t = 30 / 40 = 0.75; normal stays (0,0,-1) (sp > 0); the side
    // feelers (0, +-14.142, 14.142) stay below (30 - 14.142 > 0).
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, true, (float[3]){0, 0, 50}, (float[3]){0, 0, -2});
    boids_feelers((float[3]){0, 0, 20}, (float[3]){0, 0, 3}, &sc, 3, 40.0f, 100.0f, f);
    expect_vec3("feelers, a plane above", f, 0, 0, -10, 4 * FEPS, "10 back along (0,0,-1)");
    // A plane behind (x = -10): sp 10 and the tip 50 on the same side: no hit.
    memset(&sc, 0, sizeof sc);
    add_wall(&sc, true, (float[3]){-10, 0, 0}, (float[3]){1, 0, 0});
    boids_feelers((float[3]){0, 0, 0}, (float[3]){1, 0, 0}, &sc, 3, 40.0f, 100.0f, f);
    expect_zero("feelers, a plane behind", f, "the tips stay on the agent's side");
    // On the plane itself (sp 0): no side to push toward: no hit.
    EXPECT(!boids_feeler_hit((float[3]){-10, 5, 0}, (float[3]){40, 0, 0}, sc.wall[0], sc.wall[1], &t, n),
           "an agent on the plane: sp = 0, no crossing");
}
END_TEST

// Walls in a simulation: agent 0 at (0,0) moving (2,0) sees the segment at
// x 30 (t 0.75: (-10,0) times the weight); agent 1 at (490,0) moving (2,0)
// does not see the wall at x -490 20 ahead through the seam (walls are not
// wrapped, shared.h); agent 2 at rest beside the wall: nothing.
START_TEST(feelers_in_sim) {
    boids_params p;
    named_world(&p, BOIDS_BIT(BOIDS_BI_FEELERS));
    add_wall(&p.scene, false, (float[3]){30, -50, 0}, (float[3]){30, 50, 0});
    add_wall(&p.scene, false, (float[3]){-490, -50, 0}, (float[3]){-490, 50, 0});
    agent a[3] = {{0, 0, 0, 2, 0, 0, 0}, {490, 0, 0, 2, 0, 0, 0}, {25, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 3);
    boids_sim_steer(s);
    double wgt = weight_of(&s->p.group[0], BOIDS_BI_FEELERS);
    expect_vec3("feelers in a sim", accel_of(s, 0), -10 * wgt, 0, 0, 16 * FEPS, "the ahead feeler 0.75 to x 30");
    expect_zero("feelers at the seam", accel_of(s, 1), "x -490 is 980 behind: walls do not wrap");
    expect_zero("feelers, at rest by a wall", accel_of(s, 2), "no heading");
    boids_sim_destroy(s);
}
END_TEST

// ---- flow field ---------------------------------------------------------------

START_TEST(flow_by_hand) {
    float f[3];
    // Uniform field +x, from rest: desired = (1,0,0)*3, limited: maxforce along +x.
    boids_flow((float[3]){1, 0, 0}, (float[3]){0, 0, 0}, 3.0f, 0.05f, f);
    expect_vec3("flow +x from rest", f, 0.05, 0, 0, 0.05 * FEPS, "desired lookup * maxspeed = (3,0,0), limited");
    boids_flow((float[3]){0, 1, 0}, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("flow +y", f, -1, 3, 0, 4 * FEPS, "(0,3) - (1,0)");

    // Fields over the world [-100,100)^2 at resolution 20: 10 x 10 cells.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_FLOW));
    for (int a = 0; a < 2; a++) {
        p.world.min[a] = -100.0f;
        p.world.size[a] = 200.0f;
    }
    EXPECT(boids_params_finalize(&p, NULL, 0) == BOIDS_OK, "the [-100,100)^2 world is valid");
    boids_flowfield fl = p.flow;
    fl.vec = NULL;
    fl.resolution = 20.0f;
    fl.kind = BOIDS_FLOW_UNIFORM;
    fl.direction[0] = 0.0f;
    fl.direction[1] = 2.0f;
    EXPECT(boids_flowfield_build(&fl, &p.world) == BOIDS_OK, "uniform field, resolution 20: built");
    EXPECT(fl.dims[0] == 10 && fl.dims[1] == 10 && fl.dims[2] == 1 && fl.dims[3] == 100,
           "200 / 20 = 10 columns and rows, 1 layer in 2D; got %u x %u x %u = %u", fl.dims[0], fl.dims[1], fl.dims[2],
           fl.dims[3]);
    for (uint32_t c = 0; c < fl.dims[3]; c++)
        expect_vec3("uniform field", fl.vec[c], 0, 1, 0, 0, "direction (0,2,0) normalised");
    // Swirl: the tangent (-dy, dx) around the centre (0,0); cell (0,0) centre
    // (-90,-90): (90,-90)/|.|.
    fl.kind = BOIDS_FLOW_SWIRL;
    EXPECT(boids_flowfield_build(&fl, &p.world) == BOIDS_OK, "swirl field: built");
    expect_vec3("swirl cell (0,0)", fl.vec[0], sqrt(0.5), -sqrt(0.5), 0, 4 * FEPS, "(-dy, dx) at (-90,-90)");
    expect_vec3("swirl cell (9,4)", fl.vec[4 * 10 + 9], 10 / sqrt(8200.0), 90 / sqrt(8200.0), 0, 4 * FEPS,
                "cell centre (90,-10): (-dy, dx) = (10, 90), normalised");
    // Noise: unit vectors in the plane.
    fl.kind = BOIDS_FLOW_NOISE;
    EXPECT(boids_flowfield_build(&fl, &p.world) == BOIDS_OK, "noise field: built");
    for (uint32_t c = 0; c < fl.dims[3]; c++) {
        EXPECT(fabs(norm3(fl.vec[c]) - 1.0) < 4 * FEPS && fl.vec[c][2] == 0.0f,
               "noise field cell %u: (cos, sin) of noise * 2pi must be a unit vector in the plane, got |v| = %g", c,
               norm3(fl.vec[c]));
    }
    // lookup(): the cell under the position; outside the grid it clamps
    // (chapter: constrain(column, 0, cols-1)).
    const boids_world_params *w = &p.world;
    EXPECT(boids_flowfield_lookup(&fl, w, (float[3]){-35, -15, 0}) == fl.vec[4 * 10 + 3],
           "(-35,-15): column floor(65/20) = 3, row floor(85/20) = 4");
    EXPECT(boids_flowfield_lookup(&fl, w, (float[3]){-1000, -1000, 0}) == fl.vec[0],
           "far below the grid: clamps to cell (0,0)");
    EXPECT(boids_flowfield_lookup(&fl, w, (float[3]){1000, 1000, 0}) == fl.vec[99],
           "far above: clamps to cell (9,9) = 99");
    EXPECT(boids_flowfield_lookup(&fl, w, (float[3]){-1000, 55, 0}) == fl.vec[70],
           "x clamps to column 0, y 55 is row floor(155/20) = 7");
    EXPECT(boids_flowfield_lookup(&fl, w, (float[3]){55, 1e9f, 0}) == fl.vec[97], "column 7, y clamps to row 9");
    EXPECT(boids_flowfield_lookup(&fl, w, (float[3]){100, 99.999f, 0}) == fl.vec[99],
           "x = max: the last column (clamped), row 9");
    EXPECT(boids_flowfield_lookup(&fl, w, (float[3]){NAN, -100, 0}) == fl.vec[0],
           "NaN clamps to column 0 (never an out-of-range index)");
    boids_flowfield_free(&fl);
    EXPECT(fl.vec == NULL, "boids_flowfield_free leaves vec NULL");
}
END_TEST

START_TEST(flow_in_sim) {
    // Uniform field +x through the pipeline: from rest, accel = maxforce along +x.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_FLOW));
    p.flow.kind = BOIDS_FLOW_UNIFORM;
    p.flow.direction[0] = 1.0f;
    agent a[2] = {{-480, 300, 0, 0, 0, 0, 0}, {250, -250, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    for (uint32_t id = 0; id < 2; id++)
        expect_vec3("sim flow", accel_of(s, id), 0.05, 0, 0, 0.05 * FEPS, "uniform +x field from rest: maxforce +x");
    boids_sim_destroy(s);
}
END_TEST

// ---- path following ----------------------------------------------------------------

static void path_scene(boids_scene *sc, uint32_t n, const float (*pts)[2], bool closed) {
    memset(sc, 0, sizeof(*sc));
    sc->path_count = n;
    sc->path_flags = closed ? BOIDS_PATH_CLOSED : 0u;
    sc->path_radius = 20.0f;
    for (uint32_t i = 0; i < n; i++) {
        sc->path[i][0] = pts[i][0];
        sc->path[i][1] = pts[i][1];
    }
}

START_TEST(path_by_hand) {
    // A world without wrap: minimum-image offsets are plain differences.
    boids_world_params plain_world;
    memset(&plain_world, 0, sizeof(plain_world));
    plain_world.boundary = BOIDS_BOUNDARY_BOUNCE;
    boids_scene sc;
    float f[3], q[3];
    const float seg[2][2] = {{0, 0}, {100, 0}};
    path_scene(&sc, 2, seg, false);
    // Normal point: scalar projection, clamped to the segment.
    boids_normal_point((float[3]){30, 40, 0}, sc.path[0], sc.path[1], 0u, q);
    expect_vec3("normal point", q, 30, 0, 0, 100 * FEPS, "projection of (30,40) on (0,0)-(100,0)");
    boids_normal_point((float[3]){150, 5, 0}, sc.path[0], sc.path[1], 0u, q);
    expect_vec3("normal point past b", q, 100, 0, 0, 0, "clamped to the end point b");
    boids_normal_point((float[3]){-20, 5, 0}, sc.path[0], sc.path[1], 0u, q);
    expect_vec3("normal point before a", q, 0, 0, 0, 0, "clamped to the start point a");
    boids_normal_point((float[3]){7, 8, 9}, (float[3]){1, 1, 1}, (float[3]){1, 1, 1}, 0u, q);
    expect_vec3("degenerate segment", q, 1, 1, 1, 0, "a == b: the point a");

    // Inside the radius: future (50,10)+(25,0) = (75,10), normal (75,0), 10 < 20: no force.
    boids_path_follow((float[3]){50, 10, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 10.0f, 3.0f, 100.0f, f);
    expect_zero("path inside", f, "future point within the path radius 20");
    // Outside: future (75,30), normal (75,0) at 30 > 20: seek (75,0) + 10
    // along the segment = (85,0); to target (35,-30).
    boids_path_follow((float[3]){50, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 10.0f, 3.0f, 100.0f, f);
    double l = sqrt(35.0 * 35 + 30 * 30);
    expect_vec3("path outside", f, 3 * 35 / l - 1, -3 * 30 / l, 0, 16 * FEPS,
                "seek (85,0): setMag((35,-30),3) - v (1,0)");
    // Normal point past the end: future (115,30) -> end (100,0), distance
    // 33.5 > 20; target (100,0) + 10 along = (110,0); to target (20,-30).
    boids_path_follow((float[3]){90, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain_world, 25.0f, 10.0f, 3.0f, 100.0f, f);
    l = sqrt(20.0 * 20 + 30 * 30);
    expect_vec3("path past the end", f, 3 * 20 / l - 1, -3 * 30 / l, 0, 16 * FEPS, "normal point clamped to (100,0)");
    // Two segments: the closest normal point wins. Future (130,65): segment 1
    // gives (100,0) at 71.6, segment 2 (100,0)-(100,100) gives (100,65) at 30;
    // target (100,75), to target (-30,35), v (0,2).
    const float two[3][2] = {{0, 0}, {100, 0}, {100, 100}};
    path_scene(&sc, 3, two, false);
    boids_path_follow((float[3]){130, 40, 0}, (float[3]){0, 2, 0}, &sc, &plain_world, 25.0f, 10.0f, 3.0f, 100.0f, f);
    l = sqrt(30.0 * 30 + 35 * 35);
    expect_vec3("path two segments", f, -3 * 30 / l, 3 * 35 / l - 2, 0, 16 * FEPS, "seek (100,75) on segment 2");
    // Closed square: pos (-30,50), v (0,-1): future (-30,25). Closed: the
    // segment (0,100)-(0,0) gives (0,25) at 30; target (0,15) (ahead along
    // that segment, i.e. -y); to target (30,-35). Open: (0,0) on segment 1 at
    // 39.05 is closest; target (10,0); to target (40,-50).
    const float sq[4][2] = {{0, 0}, {100, 0}, {100, 100}, {0, 100}};
    path_scene(&sc, 4, sq, true);
    boids_path_follow((float[3]){-30, 50, 0}, (float[3]){0, -1, 0}, &sc, &plain_world, 25.0f, 10.0f, 3.0f, 100.0f, f);
    l = sqrt(30.0 * 30 + 35 * 35);
    expect_vec3("closed path", f, 3 * 30 / l, -3 * 35 / l + 1, 0, 16 * FEPS, "closing segment (0,100)-(0,0)");
    sc.path_flags &= ~BOIDS_PATH_CLOSED;
    boids_path_follow((float[3]){-30, 50, 0}, (float[3]){0, -1, 0}, &sc, &plain_world, 25.0f, 10.0f, 3.0f, 100.0f, f);
    l = sqrt(40.0 * 40 + 50 * 50);
    expect_vec3("open path", f, 3 * 40 / l, -3 * 50 / l + 1, 0, 16 * FEPS, "segment 1 end (0,0), target (10,0)");
    // Fewer than two points: no path, no force.
    sc.path_count = 1;
    boids_path_follow((float[3]){-30, 50, 0}, (float[3]){0, -1, 0}, &sc, &plain_world, 25.0f, 10.0f, 3.0f, 100.0f, f);
    expect_zero("one-point path", f, "a path needs a segment");
    // In the sim, with the scene given: agent outside the radius of (−200,0)-(200,0).
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_PATH));
    const float line[2][2] = {{-200, 0}, {200, 0}};
    path_scene(&p.scene, 2, line, false);
    p.group[0].maxforce = 100.0f;
    agent a[2] = {{0, 30, 0, 1, 0, 0, 0}, {0, 10, 0, 1, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    l = sqrt(35.0 * 35 + 30 * 30);
    expect_vec3("sim path outside", accel_of(s, 0), 3 * 35 / l - 1, -3 * 30 / l, 0, 16 * FEPS,
                "future (25,30), normal (25,0), target (35,0)");
    expect_zero("sim path inside", accel_of(s, 1), "future (25,10) within 20 of the path");
    boids_sim_destroy(s);
}
END_TEST

// The path (-480,0)-(-400,0) just across the seam of the [-500,500)^2
// torus from two agents at (490,0) and (490,40) heading +x (maxforce 100),
// with `behavior` alone; one steer stage done.
static boids_sim *seam_path_steered(uint32_t behavior) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(behavior));
    const float line[2][2] = {{-480, 0}, {-400, 0}};
    path_scene(&p.scene, 2, line, false);
    p.group[0].maxforce = 100.0f;
    agent a[2] = {{490, 0, 0, 1, 0, 0, 0}, {490, 40, 0, 1, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    return s;
}

START_TEST(path_across_seam) {
    // On a torus every offset is a minimum image (DESIGN.md step 5;
    // behaviors.h: "every behaviour is torus-correct"). World [-500,500)^2,
    // path (-480,0)-(-400,0) just across the seam from an agent at x = 490
    // heading +x: its future position 490 + 25 = 515 is -485 on the torus,
    // 5 from the path's end point: inside the radius 20, no force.
    boids_sim *s = seam_path_steered(BOIDS_BI_PATH);
    expect_zero("path across the seam, inside", accel_of(s, 0),
                "future (515,0) = (-485,0) on the torus, 5 from the path end (-480,0) < radius 20");
    // Outside the radius across the seam: future (-485,40), normal point
    // (-480,0) at 40.3 > 20, target (-470,0), whose minimum-image offset from
    // (490,40) is (40,-40): desired 3 (1,-1)/sqrt2, minus v (1,0).
    const double h = 3 / sqrt(2.0);
    expect_vec3("path across the seam, outside", accel_of(s, 1), h - 1, -h, 0, 16 * FEPS,
                "seek (-470,0) through the seam: offset (40,-40), not back across the world");
    boids_sim_destroy(s);
}
END_TEST

// A 640 x 240 torus from the origin: the book's canvas, wrapped (the world
// of the shipped path-simple and path-segments scenarios).
static void torus_640x240(boids_world_params *w) {
    memset(w, 0, sizeof(*w));
    w->boundary = BOIDS_BOUNDARY_WRAP;
    w->size[0] = 640.0f;
    w->size[1] = 240.0f;
}

// The path force of one agent with the chapter's look-ahead (predict 25,
// ahead 10), maxspeed 3 and a maxforce that never limits (100): the force is
// setMag(target - pos, 3) - v, easy to write down.
static void path_force(const float pos[3], const float vel[3], const boids_scene *sc, const boids_world_params *w,
                       float f[3]) {
    boids_path_follow(pos, vel, sc, w, 25.0f, 10.0f, 3.0f, 100.0f, f);
}

// setMag((tx, ty), 3) - (vx, vy): the expected seek force by hand.
static void expect_seek(const char *what, const float f[3], double tx, double ty, double vx, double vy,
                        const char *why) {
    double l = sqrt(tx * tx + ty * ty);
    expect_vec3(what, f, 3 * tx / l - vx, 3 * ty / l - vy, 0, 16 * FEPS, why);
}

START_TEST(path_normal_point_rules) {
    float q[3];
    const float a[3] = {0, 0, 0}, b[3] = {100, 0, 0};
    const uint32_t end = BOIDS_PATH_OUTSIDE_END, line = BOIDS_PATH_LINE_INFINITE;
    // Inside the segment every rule gives the projection.
    const uint32_t rules[4] = {0u, end, line, end | line};
    for (int r = 0; r < 4; r++) {
        boids_normal_point((float[3]){30, 40, 0}, a, b, rules[r], q);
        expect_vec3("normal point inside", q, 30, 0, 0, 100 * FEPS, "projection of (30,40) on (0,0)-(100,0)");
    }
    // Before the start (t = -0.2): clamp -> a; end -> b (Example 5.8); the
    // infinite line -> (-20, 0) (Examples 5.5/5.6), also with end set.
    boids_normal_point((float[3]){-20, 5, 0}, a, b, 0u, q);
    expect_vec3("before the start, clamp", q, 0, 0, 0, 0, "the start point a");
    boids_normal_point((float[3]){-20, 5, 0}, a, b, end, q);
    expect_vec3("before the start, end", q, 100, 0, 0, 0, "the book's 5.8: outside the segment, its end b");
    boids_normal_point((float[3]){-20, 5, 0}, a, b, line, q);
    expect_vec3("before the start, infinite", q, -20, 0, 0, 0, "the line through a and b, t = -0.2");
    boids_normal_point((float[3]){-20, 5, 0}, a, b, end | line, q);
    expect_vec3("before the start, infinite and end", q, -20, 0, 0, 0, "the infinite line has no outside");
    // Past the end (t = 1.5): clamp and end -> b; infinite -> (150, 0).
    boids_normal_point((float[3]){150, 5, 0}, a, b, 0u, q);
    expect_vec3("past the end, clamp", q, 100, 0, 0, 0, "the end point b");
    boids_normal_point((float[3]){150, 5, 0}, a, b, end, q);
    expect_vec3("past the end, end", q, 100, 0, 0, 0, "the end point b");
    boids_normal_point((float[3]){150, 5, 0}, a, b, line, q);
    expect_vec3("past the end, infinite", q, 150, 0, 0, 0, "t = 1.5 on the line");
    // A clamped normal point is the vertex itself, bit for bit: with
    // a = 100.7f, b = 5.1f, a + (b - a) * 1 rounds to 5.09999847f, not b.
    const float ra[3] = {100.7f, 0.3f, 0}, rb[3] = {5.1f, 0.7f, 0};
    boids_normal_point((float[3]){-20, 3, 0}, ra, rb, 0u, q);
    EXPECT(memcmp(q, rb, sizeof q) == 0, "past the end: (%.9g, %.9g), expected b = (%.9g, %.9g) bit for bit",
           (double)q[0], (double)q[1], (double)rb[0], (double)rb[1]);
    boids_normal_point((float[3]){130, 0, 0}, ra, rb, 0u, q);
    EXPECT(memcmp(q, ra, sizeof q) == 0, "before the start: (%.9g, %.9g), expected a = (%.9g, %.9g) bit for bit",
           (double)q[0], (double)q[1], (double)ra[0], (double)ra[1]);
    boids_normal_point((float[3]){130, 0, 0}, ra, rb, end, q);
    EXPECT(memcmp(q, rb, sizeof q) == 0, "end rule before the start: expected b bit for bit, got (%.9g, %.9g)",
           (double)q[0], (double)q[1]);
}
END_TEST

START_TEST(path_shifts_by_hand) {
    boids_world_params w;
    torus_640x240(&w);
    int32_t k[2];
    // path-simple's segment (0,80)-(640,160) from an agent at (600,100),
    // future 25 ahead in x: relative a = -600, b = 40, f = 25. x: k from
    // ceil((25 - 40) / 640 - 0.5) = 0 to floor((25 + 600) / 640 + 0.5) = 1.
    boids_path_shifts(&w, 0, 25.0f, -600.0f, 40.0f, k);
    EXPECT(k[0] == 0 && k[1] == 1, "x shifts %d..%d, expected 0..1", k[0], k[1]);
    // y: a = -20, b = 60, f = 0: ceil(-60/240 - 0.5) = 0 .. floor(20/240 + 0.5) = 0.
    boids_path_shifts(&w, 1, 0.0f, -20.0f, 60.0f, k);
    EXPECT(k[0] == 0 && k[1] == 0, "y shifts %d..%d, expected 0..0", k[0], k[1]);
    // The segment across the seam (400..900) from x = 100: a = 300, b = 800,
    // f = 25: ceil(-775/640 - 0.5) = -1 .. floor(-275/640 + 0.5) = 0.
    boids_path_shifts(&w, 0, 25.0f, 300.0f, 800.0f, k);
    EXPECT(k[0] == -1 && k[1] == 0, "seam shifts %d..%d, expected -1..0", k[0], k[1]);
    // Exactly half a world beyond the end (f = b + 320): both images count.
    boids_path_shifts(&w, 0, 330.0f, 0.0f, 10.0f, k);
    EXPECT(k[0] == 0 && k[1] == 1, "half a world beyond: %d..%d, expected 0..1 (a tie, both tried)", k[0], k[1]);
    // No extent (z in 2D), no wrap: 0 only.
    boids_path_shifts(&w, 2, 5.0f, -900.0f, 900.0f, k);
    EXPECT(k[0] == 0 && k[1] == 0, "z in 2D: %d..%d, expected 0..0", k[0], k[1]);
    w.boundary = BOIDS_BOUNDARY_WALLS;
    boids_path_shifts(&w, 0, 25.0f, -600.0f, 40.0f, k);
    EXPECT(k[0] == 0 && k[1] == 0, "walls: %d..%d, expected 0..0", k[0], k[1]);
    // A point far outside the world: at most BOIDS_PATH_MAX_SHIFT worlds.
    w.boundary = BOIDS_BOUNDARY_WRAP;
    boids_path_shifts(&w, 0, 0.0f, -1e9f, -1e9f + 10.0f, k);
    EXPECT(k[0] == BOIDS_PATH_MAX_SHIFT && k[1] == BOIDS_PATH_MAX_SHIFT, "far away: %d..%d, expected %d..%d", k[0],
           k[1], BOIDS_PATH_MAX_SHIFT, BOIDS_PATH_MAX_SHIFT);
}
END_TEST

START_TEST(path_long_segments) {
    // Segments longer than half the world: the image of a segment is the
    // one whose normal point is nearest, not the one of its start point.
    boids_world_params w;
    torus_640x240(&w);
    boids_scene sc;
    float f[3];
    // Along x: (0,80)-(600,80); agent (500,120) heading +x: future
    // (525,120), normal (525,80) at 40 > 20, target (535,80): to (35,-40).
    // (The start's nearest image, (640,80), would give (650,80) instead.)
    const float x_seg[2][2] = {{0, 80}, {600, 80}};
    path_scene(&sc, 2, x_seg, false);
    path_force((float[3]){500, 120, 0}, (float[3]){1, 0, 0}, &sc, &w, f);
    expect_seek("long along x", f, 35, -40, 1, 0, "seek (535,80) on the segment itself");
    // Along y (world 240): (100,0)-(100,200); agent (140,150) heading +y:
    // future (140,175), normal (100,175) at 40, target (100,185): to (-40,35).
    const float y_seg[2][2] = {{100, 0}, {100, 200}};
    path_scene(&sc, 2, y_seg, false);
    path_force((float[3]){140, 150, 0}, (float[3]){0, 1, 0}, &sc, &w, f);
    expect_seek("long along y", f, -40, 35, 0, 1, "seek (100,185), not the start's image (100,240)");
    // Across the seam: (400,80)-(900,80) runs through x = 640; agent (100,120)
    // heading +x: future (125,120) lies on the image shifted by -640
    // (-240..260): normal (125,80), target (135,80): to (35,-40).
    const float seam_seg[2][2] = {{400, 80}, {900, 80}};
    path_scene(&sc, 2, seam_seg, false);
    path_force((float[3]){100, 120, 0}, (float[3]){1, 0, 0}, &sc, &w, f);
    expect_seek("across the seam", f, 35, -40, 1, 0, "the image (-240,80)-(260,80), normal (125,80)");
    // path-simple: (0,80)-(640,160); agent (600,150) heading +x: future
    // (625,150), t = 405600 / 416000 = 0.975, normal (624,158) at sqrt(65)
    // = 8.06 < 20: on the path, no force (the start's image (640,80) put it
    // 71.6 away and pulled it there).
    const float simple[2][2] = {{0, 80}, {640, 160}};
    path_scene(&sc, 2, simple, false);
    path_force((float[3]){600, 150, 0}, (float[3]){1, 0, 0}, &sc, &w, f);
    expect_zero("path-simple near the right edge", f, "future (625,150) is 8.06 from (624,158) on the segment");
}
END_TEST

// The nearest point to f over the images k = -3..3 of every segment, in
// double, clamped: the rule of boids_path_follow by brute force. Returns the
// squared distance; *seg the segment (the first of equals within 1e-9).
static double nearest_by_brute_force(const double f[2], const boids_scene *sc, const boids_world_params *w,
                                     uint32_t *seg) {
    double best = INFINITY;
    uint32_t n = sc->path_count, segments = (sc->path_flags & BOIDS_PATH_CLOSED) ? n : n - 1;
    for (uint32_t i = 0; i < segments; i++)
        for (int kx = -3; kx <= 3; kx++)
            for (int ky = -3; ky <= 3; ky++) {
                const float *pa = sc->path[i], *pb = sc->path[(i + 1) % n];
                double a[2] = {pa[0] + kx * (double)w->size[0], pa[1] + ky * (double)w->size[1]};
                double ab[2] = {(double)pb[0] - pa[0], (double)pb[1] - pa[1]};
                double t = ((f[0] - a[0]) * ab[0] + (f[1] - a[1]) * ab[1]) / (ab[0] * ab[0] + ab[1] * ab[1]);
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                double dx = f[0] - (a[0] + ab[0] * t), dy = f[1] - (a[1] + ab[1] * t), d = dx * dx + dy * dy;
                if (d < best - 1e-9) {
                    best = d;
                    *seg = i;
                }
            }
    return best;
}

START_TEST(path_images_brute_force) {
    // Agents on a grid over the whole 640 x 240 torus, 8 headings each,
    // on path-simple's segment and on path-segments' five (one of them,
    // (140,40)-(280,190), longer than half the world in y): whether the
    // force is zero (inside the radius) agrees with the brute-force nearest
    // image everywhere but within 1e-3 of the radius.
    boids_world_params w;
    torus_640x240(&w);
    const float simple[2][2] = {{0, 80}, {640, 160}};
    const float five[6][2] = {{0, 120}, {140, 40}, {280, 190}, {420, 60}, {540, 180}, {640, 120}};
    boids_scene sc[2];
    path_scene(&sc[0], 2, simple, false);
    path_scene(&sc[1], 6, five, false);
    uint32_t compared = 0, off_path = 0;
    for (int s = 0; s < 2; s++)
        for (int gx = 0; gx < 64; gx++)
            for (int gy = 0; gy < 24; gy++)
                for (int h = 0; h < 8; h++) {
                    float pos[3] = {5.0f + 10.0f * (float)gx, 5.0f + 10.0f * (float)gy, 0};
                    float vel[3] = {2.0f * cosf((float)h * 0.785398163f), 2.0f * sinf((float)h * 0.785398163f), 0};
                    float f[3];
                    path_force(pos, vel, &sc[s], &w, f);
                    double fut[2] = {pos[0] + 12.5 * vel[0], pos[1] + 12.5 * vel[1]};
                    uint32_t seg = 0;
                    double d = sqrt(nearest_by_brute_force(fut, &sc[s], &w, &seg));
                    if (fabs(d - 20.0) < 1e-3)
                        continue;
                    compared++;
                    bool pulled = f[0] != 0.0f || f[1] != 0.0f;
                    off_path += pulled;
                    EXPECT(pulled == (d > 20.0),
                           "path %d, agent (%g,%g) heading %d: force (%g,%g), but the nearest image is %.4g away "
                           "(radius 20)",
                           s, (double)pos[0], (double)pos[1], h, (double)f[0], (double)f[1], d);
                }
    EXPECT(compared > 20000 && off_path > 5000 && off_path < compared - 2000,
           "%u agents compared, %u off the path: expected both on and off the path", compared, off_path);
}
END_TEST

START_TEST(path_corner_tie) {
    // A future position past one segment's end and before the next one's
    // start: both give the corner, at bit-equal distances; the earlier
    // segment wins (the book's 5.8 loop: strict <) and sets the direction.
    boids_world_params plain;
    memset(&plain, 0, sizeof(plain));
    plain.boundary = BOIDS_BOUNDARY_BOUNCE;
    boids_scene sc;
    float f[3], qa[3], qb[3];
    // Awkward coordinates, so that a + (b - a) would round off the corner.
    const float bend[3][2] = {{100.7f, 0.3f}, {5.1f, 0.7f}, {5.1f, 100.7f}};
    path_scene(&sc, 3, bend, false);
    // Agent (-30.9, -29.3) heading -x: future (-55.9, -29.3): past the end
    // of segment 0 (which runs -x) and before the start of segment 1 (+y).
    const float pos[3] = {-30.9f, -29.3f, 0}, vel[3] = {-1, 0, 0};
    float future[3], a0[3], b0[3], c0[3];
    boids_set_mag(vel, 25.0f, future);
    for (int i = 0; i < 3; i++) {
        a0[i] = sc.path[0][i] - pos[i];
        b0[i] = sc.path[1][i] - pos[i];
        c0[i] = sc.path[2][i] - pos[i];
    }
    boids_normal_point(future, a0, b0, 0u, qa);
    boids_normal_point(future, b0, c0, 0u, qb);
    EXPECT(memcmp(qa, qb, sizeof qa) == 0 && memcmp(qa, b0, sizeof qa) == 0,
           "both segments give the corner bit for bit: (%.9g, %.9g) and (%.9g, %.9g)", (double)qa[0], (double)qa[1],
           (double)qb[0], (double)qb[1]);
    // Segment 0's direction (-95.6, 0.4) / |.| * 10 from the corner (5.1, 0.7):
    // target = corner + that, to target from pos. Segment 1's would be (5.1, 10.7).
    double l0 = sqrt(95.6 * 95.6 + 0.4 * 0.4);
    double tx = 5.1 - 95.6 * 10 / l0 - (-30.9), ty = 0.7 + 0.4 * 10 / l0 - (-29.3);
    path_force(pos, vel, &sc, &plain, f);
    expect_seek("corner tie", f, tx, ty, -1, 0, "segment 0 keeps the corner: target 10 along (-95.6, 0.4)");
    // The same corner across the seam of the 640 x 240 torus: path
    // (500,100)-(620,100)-(620,200), agent (5,60) heading +x: future (30,60) =
    // (670,60), past the end of segment 0 and before segment 1, both at the
    // corner's image (620 - 640, 100) = (-20,100), i.e. (-25,40) from the
    // agent. Segment 0 wins: target (-15,40) from it (segment 1: (-25,50)).
    boids_world_params w;
    torus_640x240(&w);
    const float seam_bend[3][2] = {{500, 100}, {620, 100}, {620, 200}};
    path_scene(&sc, 3, seam_bend, false);
    path_force((float[3]){5, 60, 0}, (float[3]){1, 0, 0}, &sc, &w, f);
    expect_seek("corner tie across the seam", f, -15, 40, 1, 0, "segment 0 keeps the corner's image (-20,100)");
    // A closed square: its first and last segments meet at point 0; the
    // first is earlier. Square (0,0),(100,0),(100,100),(0,100); agent
    // (-30,-5) heading -y: future (-30,-30), past the closing segment's end
    // (0,100)->(0,0) and before segment 0's start: segment 0 wins, target
    // (10,0), to target (40,5). (The closing one's: (0,-10), to (30,-5).)
    const float sq[4][2] = {{0, 0}, {100, 0}, {100, 100}, {0, 100}};
    path_scene(&sc, 4, sq, true);
    path_force((float[3]){-30, -5, 0}, (float[3]){0, -1, 0}, &sc, &plain, f);
    expect_seek("closed corner tie", f, 40, 5, 0, -1, "segment 0 is earlier than the closing segment");
}
END_TEST

START_TEST(path_options_by_hand) {
    boids_world_params plain;
    memset(&plain, 0, sizeof(plain));
    plain.boundary = BOIDS_BOUNDARY_BOUNCE;
    boids_scene sc;
    float f[3];
    const float seg[2][2] = {{0, 0}, {100, 0}};
    path_scene(&sc, 2, seg, false);
    // Before the start: agent (-30,30) heading +x, future (-5,30).
    // clamp: normal (0,0) at 30.4, target (10,0), to target (40,-30).
    path_force((float[3]){-30, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_seek("outside = clamp", f, 40, -30, 1, 0, "the nearer end (0,0), target (10,0)");
    // end (Example 5.8): normal = the end (100,0) at 109.2, target (110,0),
    // to target (140,-30).
    sc.path_flags = BOIDS_PATH_OUTSIDE_END;
    path_force((float[3]){-30, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_seek("outside = end", f, 140, -30, 1, 0, "the segment's end (100,0), target (110,0)");
    // line = infinite (Examples 5.5/5.6): normal (-5,0) at 30, target (5,0),
    // to target (35,-30).
    sc.path_flags = BOIDS_PATH_LINE_INFINITE;
    path_force((float[3]){-30, 30, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_seek("line = infinite, before", f, 35, -30, 1, 0, "(-5,0) on the line, target (5,0)");
    // Past the end, 10 from the line: inside the radius on the infinite
    // line (no force); clamped, (100,0) is 75.7 away: target (110,0), to
    // target (-40,-10) from (150,10).
    path_force((float[3]){150, 10, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_zero("line = infinite, past the end", f, "future (175,10) is 10 from the line");
    sc.path_flags = 0u;
    path_force((float[3]){150, 10, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_seek("line = segment, past the end", f, -40, -10, 1, 0, "the end (100,0), target (110,0)");
}
END_TEST

// outside = end on a closed path (the book's Exercise 5.13): an end point
// taken for a projection outside its segment looks ahead along the next
// segment ("If we're at the end we really want the next line segment for
// looking ahead"); on an open path (5.8) and under clamp along its own.
START_TEST(path_end_closed_next_segment) {
    boids_world_params plain;
    memset(&plain, 0, sizeof(plain));
    plain.boundary = BOIDS_BOUNDARY_BOUNCE;
    boids_scene sc;
    float f[3];
    const float square[4][2] = {{0, 0}, {100, 0}, {100, 100}, {0, 100}};
    // Agent (110,-40) heading +x: future (135,-40); every segment's
    // projection is outside it (t = 1.35, -0.4, -0.35, 1.4), the nearest end
    // is segment 0's (100,0) at 53.2 > 20.
    path_scene(&sc, 4, square, true);
    sc.path_flags |= BOIDS_PATH_OUTSIDE_END;
    path_force((float[3]){110, -40, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_seek("closed, outside = end", f, -10, 50, 1, 0, "the end (100,0) + 10 along the next segment: (100,10)");
    sc.path_flags = BOIDS_PATH_OUTSIDE_END;
    path_force((float[3]){110, -40, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_seek("open, outside = end", f, 0, 40, 1, 0, "the end (100,0) + 10 along its own segment: (110,0)");
    sc.path_flags = BOIDS_PATH_CLOSED;
    path_force((float[3]){110, -40, 0}, (float[3]){1, 0, 0}, &sc, &plain, f);
    expect_seek("closed, clamp", f, 0, 40, 1, 0, "(100,0) from segments 0 and 1, the tie keeps segment 0: (110,0)");
    // The crowd path of path-following.ini on the 640 x 240 torus, at its
    // corner (30,30) seen across the seam: agent (20,20) heading -x, future
    // (-5,20); the nearest is segment 0's image (-610,30)-(-30,30), outside
    // (t > 1), its end (-30,30) at 26.9 > 20; the next segment (610,30)-
    // (610,210) points +y: target (-30,40), to target (-50,20) (its own
    // direction, +x, gave (-20,30)).
    boids_world_params w;
    torus_640x240(&w);
    const float crowd[5][2] = {{30, 30}, {610, 30}, {610, 210}, {320, 150}, {30, 210}};
    path_scene(&sc, 5, crowd, true);
    sc.path_flags |= BOIDS_PATH_OUTSIDE_END;
    path_force((float[3]){20, 20, 0}, (float[3]){-1, 0, 0}, &sc, &w, f);
    expect_seek("crowd path across the seam", f, -50, 20, -1, 0, "the end (-30,30) + 10 along (610,30)-(610,210)");
}
END_TEST

// ---- obstacles --------------------------------------------------------------

static void obstacle_scene(boids_scene *sc, uint32_t n, const float (*ob)[4]) {
    memset(sc, 0, sizeof(*sc));
    sc->obstacle_count = n;
    sc->path_radius = 20.0f;
    for (uint32_t i = 0; i < n; i++)
        memcpy(sc->obstacle[i], ob[i], sizeof(float[4]));
}

START_TEST(obstacles_by_hand) {
    boids_params p;
    small_world(&p, 2, 0);
    p.world.min[0] = p.world.min[1] = -1000.0f;
    p.world.size[0] = p.world.size[1] = 2000.0f;
    EXPECT(boids_params_finalize(&p, NULL, 0) == BOIDS_OK, "the [-1000,1000)^2 torus is valid");
    const boids_world_params *w = &p.world;
    boids_scene sc;
    float f[3];
    const float v[3] = {2, 0, 0};
    // Ahead (centre (50,0), radius 10; agent at (0,2) heading +x, lookahead 50,
    // body 3): along 50 <= 50 + 13, lateral offset (0,-2) within 13: desired =
    // maxspeed away from the centre across the heading = (0,3); steer (0,3) - (2,0).
    const float ahead[1][4] = {{50, 0, 0, 10}};
    obstacle_scene(&sc, 1, ahead);
    boids_obstacles((float[3]){0, 2, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_vec3("obstacle ahead", f, -2, 3, 0, 8 * FEPS, "lateral desired (0,3) away from the centre, minus v");
    // The chapter's maxforce: the lateral push, limited.
    boids_obstacles((float[3]){0, 2, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 0.05f, f);
    expect_vec3("obstacle ahead limited", f, -2 * 0.05 / sqrt(13.0), 3 * 0.05 / sqrt(13.0), 0, 0.05 * 4 * FEPS,
                "(-2,3) limited to 0.05");
    // Dead ahead: turn left (heading rotated +90 deg): desired (0,3).
    boids_obstacles((float[3]){0, 0, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_vec3("obstacle dead ahead", f, -2, 3, 0, 8 * FEPS, "no lateral offset: turn left, desired (0,3)");
    // Behind, off to the side, beyond the look-ahead: no force.
    const float behind[1][4] = {{-50, 0, 0, 10}}, side[1][4] = {{30, 40, 0, 10}}, far[1][4] = {{100, 0, 0, 10}};
    obstacle_scene(&sc, 1, behind);
    boids_obstacles((float[3]){0, 2, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_zero("obstacle behind", f, "along the heading < 0");
    obstacle_scene(&sc, 1, side);
    boids_obstacles((float[3]){0, 2, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_zero("obstacle to the side", f, "lateral 38 >= radius 10 + body 3");
    obstacle_scene(&sc, 1, far);
    boids_obstacles((float[3]){0, 2, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_zero("obstacle far ahead", f, "along 100 > lookahead 50 + 13");
    // The nearest of two threatening obstacles decides (in either order):
    // (30,1) r5 says desired (0,-3); (45,-2) r5 says (0,3); nearest is (30,1).
    const float two[2][4] = {{45, -2, 0, 5}, {30, 1, 0, 5}}, two_r[2][4] = {{30, 1, 0, 5}, {45, -2, 0, 5}};
    obstacle_scene(&sc, 2, two);
    boids_obstacles((float[3]){0, 0, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_vec3("nearest obstacle", f, -2, -3, 0, 8 * FEPS, "the obstacle at along 30 wins over 45");
    obstacle_scene(&sc, 2, two_r);
    boids_obstacles((float[3]){0, 0, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_vec3("nearest obstacle, other order", f, -2, -3, 0, 8 * FEPS, "independent of the list order");
    // Inside an obstacle: flee its centre.
    obstacle_scene(&sc, 1, ahead);
    boids_obstacles((float[3]){50, 5, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_vec3("inside obstacle", f, -2, 3, 0, 8 * FEPS, "flee the centre (50,0): desired (0,3), minus v");
    // At rest: no heading, no corridor, no force.
    boids_obstacles((float[3]){0, 2, 0}, (float[3]){0, 0, 0}, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_zero("obstacle, agent at rest", f, "no heading");
    // Across the torus seam: agent at x 990 heading +x, obstacle at -980
    // (minimum image: 30 ahead), centre 1 above: desired (0,-3).
    const float seam[1][4] = {{-980, 1, 0, 10}};
    obstacle_scene(&sc, 1, seam);
    boids_obstacles((float[3]){990, 0, 0}, v, &sc, w, 50.0f, 3.0f, 3.0f, 100.0f, f);
    expect_vec3("obstacle across the seam", f, -2, -3, 0, 8 * FEPS, "minimum-image offset (30,1)");
}
END_TEST

// ---- separation --------------------------------------------------------------

START_TEST(separation_by_hand) {
    float t[3], f[3];
    // Term: (position - other) / d, times the radius: magnitude sep_radius / d, away.
    boids_separation_term((float[3]){3, 4, 0}, 5.0f, 25.0f, t);
    expect_vec3("separation term d 5", t, -3, -4, 0, 4 * FEPS, "-(3,4)/5 * 25/5: magnitude 25/5 = 5, away");
    boids_separation_term((float[3]){10, 0, 0}, 10.0f, 25.0f, t);
    expect_vec3("separation term d 10", t, -2.5, 0, 0, 4 * FEPS, "magnitude 25/10, half that at d 5 (1/d)");
    boids_separation_term((float[3]){0, 0, -20}, 20.0f, 25.0f, t);
    expect_vec3("separation term 3D", t, 0, 0, 1.25, 4 * FEPS, "25/20 along +z");
    // Very close pairs count as at radius * 2^-15: magnitude 2^15.
    boids_separation_term((float[3]){1e-6f, 0, 0}, 1e-6f, 25.0f, t);
    EXPECT(fabs(t[0] + 32768.0) < 32768.0 * 4 * FEPS && t[1] == 0.0f,
           "separation term at d 1e-6: clamped to -2^15 = -32768 (BOIDS_SEP_MIN_FRACTION), got %g", (double)t[0]);
    // Force from the sum: setMag(sum, maxspeed) - v.
    boids_separation((float[3]){-3, -4, 0}, 1, (float[3]){0, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("separation force", f, -1.8, -2.4, 0, 8 * FEPS, "setMag((-3,-4), 3)");
    boids_separation((float[3]){-3, -4, 0}, 1, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("separation force with v", f, -2.8, -2.4, 0, 8 * FEPS, "setMag((-3,-4), 3) - (1,0)");
    boids_separation((float[3]){0, 0, 0}, 2, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_zero("separation zero sum", f, "chapter: if (steer.mag() > 0) ... else no force");
    boids_separation((float[3]){-3, -4, 0}, 0, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_zero("separation no neighbours", f, "count 0");
}
END_TEST

START_TEST(separation_in_sim) {
    // A at the origin at rest; B 5 to the right, C 20 above, D 30 away (beyond
    // the desired separation 25). Chapter sum of diff/d: (-1/5, 0) + (0, -1/20)
    // = (-0.2, -0.05), i.e. direction (-4,-1); desired maxspeed 3 along it;
    // weight 1.5 (the chapter's separation weight).
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_SEPARATION));
    p.group[0].maxforce = 100.0f;
    agent a[4] = {{0, 0, 0, 0, 0, 0, 0}, {5, 0, 0, 0, 0, 0, 0}, {0, 20, 0, 0, 0, 0, 0}, {-30, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 4);
    boids_sim_steer(s);
    const double l = sqrt(17.0), wgt = 1.5;
    EXPECT(weight_of(&s->p.group[0], BOIDS_BI_SEPARATION) == 1.5f, "default separation weight 1.5");
    expect_vec3("sim separation A", accel_of(s, 0), -wgt * 3 * 4 / l, -wgt * 3 / l, 0, 16 * FEPS,
                "1/d weights: (-4,-1)/sqrt17 * 3 * 1.5");
    // D's only neighbour within 25 is none (A is 30 away): no force.
    expect_zero("sim separation D", accel_of(s, 3), "no neighbour closer than 25");
    // With the chapter's maxforce the force is maxforce * weight along the same direction.
    boids_sim_destroy(s);
    p.group[0].maxforce = 0.05f;
    s = sim_with(&p, a, 4);
    boids_sim_steer(s);
    expect_vec3("sim separation A limited", accel_of(s, 0), -0.075 * 4 / l, -0.075 / l, 0, 0.075 * 8 * FEPS,
                "0.05 * 1.5 along (-4,-1)/sqrt17");
    boids_sim_destroy(s);
}
END_TEST

// ---- alignment / cohesion --------------------------------------------------------

START_TEST(alignment_by_hand) {
    float f[3];
    const double h = 3 / sqrt(2.0);
    // Average (1.5,1.5) of (3,0) and (0,3): setMag 3 = (2.1213, 2.1213).
    boids_alignment((float[3]){1.5f, 1.5f, 0}, 2, (float[3]){0, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("alignment", f, h, h, 0, 8 * FEPS, "average velocity setMag(maxspeed)");
    boids_alignment((float[3]){1.5f, 1.5f, 0}, 2, (float[3]){3, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("alignment minus v", f, h - 3, h, 0, 8 * FEPS, "(2.1213,2.1213) - (3,0)");
    boids_alignment((float[3]){1.5f, 1.5f, 0}, 0, (float[3]){3, 0, 0}, 3.0f, 100.0f, f);
    expect_zero("alignment no neighbours", f, "chapter: count 0 returns (0,0)");
    boids_alignment((float[3]){0, 0, 0}, 2, (float[3]){1, 1, 0}, 3.0f, 100.0f, f);
    expect_vec3("alignment zero average", f, -1, -1, 0, 0, "p5: normalize(0) = 0, so the steer is -v");
    // In the sim: A (0,0) v (1,0); B (10,0) v (0,2); C (0,-30) v (2,0); D at
    // 60 (outside the radius 50) v (-3,0). Average of B, C: (1,1).
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_ALIGNMENT));
    p.group[0].maxforce = 100.0f;
    agent a[4] = {{0, 0, 0, 1, 0, 0, 0}, {10, 0, 0, 0, 2, 0, 0}, {0, -30, 0, 2, 0, 0, 0}, {60, 0, 0, -3, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 4);
    boids_sim_steer(s);
    expect_vec3("sim alignment A", accel_of(s, 0), h - 1, h, 0, 16 * FEPS, "setMag((1,1),3) - (1,0); D excluded");
    boids_sim_destroy(s);
    // A neighbour entered far above maxspeed (set_agents accepts any finite
    // velocity and limits it to maxspeed): its direction still counts, +x.
    // (The fixed-point alignment terms assume |v| <= the largest maxspeed.)
    agent b[2] = {{0, 0, 0, 0, 0, 0, 0}, {10, 0, 0, 1e10f, 0, 0, 0}};
    s = sim_with(&p, b, 2);
    expect_vec3("fast neighbour limited on entry", vel_of(s, 1), 3, 0, 0, 3 * FEPS, "(1e10,0) limited to maxspeed 3");
    boids_sim_steer(s);
    expect_vec3("alignment with a fast neighbour", accel_of(s, 0), 3, 0, 0, 16 * FEPS,
                "average velocity along +x: setMag 3 - v 0");
    boids_sim_destroy(s);
}
END_TEST

START_TEST(cohesion_by_hand) {
    float f[3];
    boids_cohesion((float[3]){30, 40, 0}, 2, (float[3]){0, 0, 0}, 5.0f, 100.0f, f);
    expect_vec3("cohesion", f, 3, 4, 0, 8 * FEPS, "seek the centroid: setMag((30,40),5)");
    boids_cohesion((float[3]){30, 40, 0}, 0, (float[3]){1, 0, 0}, 5.0f, 100.0f, f);
    expect_zero("cohesion no neighbours", f, "chapter: count 0 returns (0,0)");
    // In the sim: A (0,0) at rest, B (20,0), C (0,40), D (0,55) outside.
    // Centroid of B, C = (10,20): desired 3 (1,2)/sqrt5.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_COHESION));
    p.group[0].maxforce = 100.0f;
    agent a[4] = {{0, 0, 0, 0, 0, 0, 0}, {20, 0, 0, 0, 0, 0, 0}, {0, 40, 0, 0, 0, 0, 0}, {0, -55, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 4);
    boids_sim_steer(s);
    const double l = sqrt(5.0);
    expect_vec3("sim cohesion A", accel_of(s, 0), 3 / l, 6 / l, 0, 16 * FEPS, "seek centroid (10,20) of B and C");
    boids_sim_destroy(s);
    // Across the torus seam: A at x -495, B at 490 (minimum image: 15 to the
    // left): the centroid is to the left, the force -x.
    agent b[2] = {{-495, 0, 0, 0, 0, 0, 0}, {490, 0, 0, 0, 0, 0, 0}};
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    expect_vec3("sim cohesion across the seam", accel_of(s, 0), -3, 0, 0, 16 * FEPS, "minimum image: B is 15 left");
    expect_vec3("sim cohesion across the seam, B", accel_of(s, 1), 3, 0, 0, 16 * FEPS, "A is 15 to the right of B");
    boids_sim_destroy(s);
}
END_TEST

// ---- view (Flake's fourth rule) -----------------------------------------------

START_TEST(view_by_hand) {
    float f[3], u[3], w[3];
    int32_t t[2];
    boids_view_frame((float[3]){2, 0, 0}, u, w);
    expect_vec3("view frame u", u, 0, 2, 0, 0, "z x (2,0,0) = (0,2,0): the agent's left, unnormalised");
    expect_vec3("view frame w", w, 0, 0, 4, 0, "(2,0,0) x (0,2,0) = (0,0,4): its up");
    boids_view_frame((float[3]){0, 0.3f, 1}, u, w);
    expect_vec3("view frame near z", u, 1, 0, 0, 0, "within 26 deg of z: up = y, y x (0,0.3,1) = (1,0,0)");
    boids_view_term((float[3]){10, 2, 0}, (float[3]){1, 0, 0}, t);
    ck_assert_msg(t[0] == -1 && t[1] == 0,
                  "blocker 2 left of the line of sight: away, to the right (-1, 0); got (%d, %d)", t[0], t[1]);
    boids_view_term((float[3]){10, -1e-30f, 0}, (float[3]){1, 0, 0}, t);
    ck_assert_msg(t[0] == 1 && t[1] == 0, "a hair right of the line of sight: to the left (1, 0); got (%d, %d)", t[0],
                  t[1]);
    boids_view_term((float[3]){10, 0, 0}, (float[3]){1, 0, 0}, t);
    ck_assert_msg(t[0] == 1 && t[1] == 0, "dead ahead: turn left (1, 0); got (%d, %d)", t[0], t[1]);
    boids_view_term((float[3]){1, 0, -3}, (float[3]){1, 0, 0}, t);
    ck_assert_msg(t[0] == 0 && t[1] == 1, "3D, below the line of sight: up (0, 1); got (%d, %d)", t[0], t[1]);
    boids_view((int32_t[2]){-2, 0}, 2, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("view force", f, -1, -3, 0, 8 * FEPS, "setMag(-2 (0,1,0), 3) - (1,0,0)");
    boids_view((int32_t[2]){1, -1}, 2, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("view force 3D", f, -1, 3 * 0.70710678f, -3 * 0.70710678f, 8 * FEPS,
                "setMag((0,1,0) - (0,0,1), 3) - (1,0,0)");
    boids_view((int32_t[2]){0, 0}, 4, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_zero("view balanced", f, "as many blockers on each side: no force, whatever the rounding");
    boids_view((int32_t[2]){0, -2}, 0, (float[3]){1, 0, 0}, 3.0f, 100.0f, f);
    expect_zero("view no blocker", f, "count 0");
    // In the sim: A heading +x; B (10,2) in the +-30 deg cone (cos 0.98 >=
    // 0.866): A moves laterally away, (0,-3) - v. C behind and D (10,8) at
    // cos 0.78 (outside the cone) do not block.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_VIEW));
    p.group[0].maxforce = 100.0f;
    agent a[4] = {{0, 0, 0, 1, 0, 0, 0}, {10, 2, 0, 1, 0, 0, 0}, {-10, 0, 0, 1, 0, 0, 0}, {10, 8.5f, 0, 1, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 4);
    boids_sim_steer(s);
    expect_vec3("sim view A", accel_of(s, 0), -1, -3, 0, 16 * FEPS, "only B blocks: lateral (0,-1) at maxspeed - v");
    boids_sim_destroy(s);
    agent b[2] = {{0, 0, 0, 1, 0, 0, 0}, {-10, 0, 0, 1, 0, 0, 0}};
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    expect_zero("sim view nothing ahead", accel_of(s, 0), "the other boid is behind");
    boids_sim_destroy(s);
}
END_TEST

// ---- escape and hunt (two groups) ----------------------------------------------------

// Group 0 prey (escape, flees group 1), group 1 predators (hunt group 0).
static void predator_prey(boids_params *p) {
    small_world(p, 2, 0);
    p->world.group_count = 2;
    p->group[0].behaviors = BOIDS_BIT(BOIDS_BI_ESCAPE);
    p->group[0].relations = BOIDS_REL_FLEE << (BOIDS_REL_BITS * 1);
    p->group[1].behaviors = BOIDS_BIT(BOIDS_BI_HUNT);
    p->group[1].relations = BOIDS_REL_PURSUE << (BOIDS_REL_BITS * 0);
}

START_TEST(escape_by_hand) {
    float t[3], f[3];
    // Predator 10 ahead moving (1,0), predict 10: predicted offset (20,0);
    // term = away, scaled radius/d = 50/20.
    boids_escape_term((float[3]){10, 0, 0}, (float[3]){1, 0, 0}, 10.0f, 50.0f, t);
    expect_vec3("escape term", t, -2.5, 0, 0, 4 * FEPS, "-(20,0)/20 * 50/20");
    boids_escape_term((float[3]){10, 0, 0}, (float[3]){-1, 0, 0}, 10.0f, 50.0f, t);
    expect_zero("escape term, predicted on top", t, "predicted offset 0: no direction");
    boids_escape((float[3]){-2.5f, 0, 0}, 1, (float[3]){0, 1, 0}, 3.0f, 100.0f, f);
    expect_vec3("escape force", f, -3, -1, 0, 8 * FEPS, "setMag((-2.5,0),3) - (0,1)");
    // Sim: prey at the origin at rest, predator at (20,0) coming at (-1,0):
    // predicted offset (10,0): the prey flees -x with maxforce.
    boids_params p;
    predator_prey(&p);
    agent a[2] = {{0, 0, 0, 0, 0, 0, 0}, {20, 0, 0, -1, 0, 0, 1}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("sim escape", accel_of(s, 0), -0.05, 0, 0, 0.05 * FEPS, "evade predicted (10,0): maxforce along -x");
    boids_sim_destroy(s);
    // Relation IGNORE: the predator is invisible.
    p.group[0].relations = BOIDS_REL_IGNORE << (BOIDS_REL_BITS * 1);
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_zero("sim escape ignored", accel_of(s, 0), "relation IGNORE toward group 1");
    boids_sim_destroy(s);
}
END_TEST

START_TEST(hunt_in_sim) {
    // Predator (group 1) at the origin at rest; prey A (id 1) at (30,0)
    // moving (0,1), prey B (id 2) at (0,-40): the nearest is A; pursue its
    // predicted position (30,0) + (0,1)*10 = (30,10) at maxspeed 3.
    boids_params p;
    predator_prey(&p);
    p.group[0].behaviors = 0;
    p.group[1].maxforce = 100.0f;
    agent a[3] = {{0, 0, 0, 0, 0, 0, 1}, {30, 0, 0, 0, 1, 0, 0}, {0, -40, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 3);
    boids_sim_steer(s);
    const double l = sqrt(1000.0);
    expect_vec3("hunt nearest prey", accel_of(s, 0), 90 / l, 30 / l, 0, 16 * FEPS, "seek (30,10): 3 (30,10)/sqrt1000");
    boids_sim_destroy(s);
    // Ties in distance: the smaller id wins (order independent).
    agent b[3] = {{0, 0, 0, 0, 0, 0, 1}, {-30, 0, 0, 0, 0, 0, 0}, {30, 0, 0, 0, 0, 0, 0}};
    s = sim_with(&p, b, 3);
    boids_sim_steer(s);
    expect_vec3("hunt tie", accel_of(s, 0), -3, 0, 0, 16 * FEPS, "equal distances: prey id 1 at (-30,0)");
    boids_sim_destroy(s);
    // Prey beyond the perception radius 50: no force.
    agent c[2] = {{0, 0, 0, 0, 0, 0, 1}, {60, 0, 0, 0, 0, 0, 0}};
    s = sim_with(&p, c, 2);
    boids_sim_steer(s);
    expect_zero("hunt out of range", accel_of(s, 0), "prey 60 away > radius 50");
    boids_sim_destroy(s);
    // The chase closes in: with the chapter's maxforce the predator (faster,
    // maxspeed 4) gains on a prey that just drifts.
    p.group[1].maxforce = 0.2f;
    p.group[1].maxspeed = 4.0f;
    agent d[2] = {{0, 0, 0, 0, 0, 0, 1}, {40, 0, 0, 1, 0, 0, 0}};
    s = sim_with(&p, d, 2);
    for (int k = 0; k < 60; k++)
        boids_sim_step(s);
    float off[3];
    boids_world_delta(&s->p.world, pos_of(s, 0), pos_of(s, 1), off);
    EXPECT(norm3(off) < 40.0, "after 60 steps the predator should be closer than the initial 40, is %g", norm3(off));
    boids_sim_destroy(s);
}
END_TEST

// ---- angles (boids-angle-bug.txt) -------------------------------------------------

START_TEST(angle_by_hand) {
    // +3.0 -> -3.0: the short way is through pi: diff = -6 + 2pi = 0.2832 > 0.
    float d = boids_angle_diff(-3.0f, 3.0f);
    EXPECT(fabs(d - (2 * PI - 6)) < 1e-6 && d > 0.0f,
           "angle_diff(-3, 3) = %.9g, expected 2pi - 6 = %.9g (positive: turn through pi)", (double)d, 2 * PI - 6);
    d = boids_angle_diff(3.0f, -3.0f);
    EXPECT(fabs(d - (6 - 2 * PI)) < 1e-6, "angle_diff(3, -3) = %.9g, expected 6 - 2pi", (double)d);
    // Wrap into (-pi, pi]: pi stays, -pi becomes pi.
    EXPECT(boids_angle_wrap((float)PI) == (float)PI, "wrap(pi) = pi (upper end included), got %.9g",
           (double)boids_angle_wrap((float)PI));
    EXPECT(boids_angle_wrap((float)-PI) == (float)PI, "wrap(-pi) = pi (lower end excluded), got %.9g",
           (double)boids_angle_wrap((float)-PI));
    EXPECT(fabs(boids_angle_wrap((float)(1.5 * PI)) + 0.5 * PI) < 1e-6, "wrap(3pi/2) = -pi/2");
    EXPECT(fabs(boids_angle_wrap((float)(-1.5 * PI)) - 0.5 * PI) < 1e-6, "wrap(-3pi/2) = pi/2");
    EXPECT(fabs(boids_angle_wrap((float)(0.5 + 20 * PI)) - 0.5) < 2e-5, "wrap(0.5 + 10 turns) = 0.5");
    EXPECT(boids_angle_wrap(0.25f) == 0.25f, "an angle in range is unchanged");
    for (int i = -2000; i <= 2000; i++) {
        float a = (float)i * 0.0137f, b = (float)(i * 7 % 900) * 0.011f - 5.0f;
        float w = boids_angle_wrap(a);
        EXPECT(w > (float)-PI && w <= (float)PI, "wrap(%g) = %g outside (-pi, pi]", (double)a, (double)w);
        EXPECT(fabs(remainder((double)w - a, 2 * PI)) < 1e-5, "wrap(%g) = %g is not a + 2 pi k", (double)a, (double)w);
        float df = boids_angle_diff(a, b);
        EXPECT(df > (float)-PI && df <= (float)PI && fabs(remainder((double)b + df - a, 2 * PI)) < 1e-5,
               "angle_diff(%g, %g) = %g: must be the turn in (-pi, pi] from current to target", (double)a, (double)b,
               (double)df);
    }
    // Averaging directions: +3 and -3 rad average to pi (unit vectors), not
    // 0 (raw angles): alignment of neighbours heading +3 and -3 points -x.
    float sum[3] = {cosf(3.0f) + cosf(-3.0f), sinf(3.0f) + sinf(-3.0f), 0}, f[3];
    for (int a = 0; a < 3; a++)
        sum[a] *= 0.5f;
    boids_alignment(sum, 2, (float[3]){0, 0, 0}, 3.0f, 100.0f, f);
    expect_vec3("average of +3 and -3 rad", f, -3, 0, 0, 8 * FEPS, "mean of unit vectors points along pi");
}
END_TEST

START_TEST(turn_limit_by_hand) {
    // Heading +3.0 turning toward -3.0 with max 0.1 per step: 3.1 (through
    // pi), not 2.9 (through 0).
    float v[3] = {2 * cosf(-3.0f), 2 * sinf(-3.0f), 0};
    const float old[3] = {2 * cosf(3.0f), 2 * sinf(3.0f), 0};
    boids_turn_limit(old, 0.1f, 2, v);
    double h = atan2(v[1], v[0]);
    EXPECT(fabs(h - 3.1) < 1e-5, "turn_limit 3.0 -> -3.0 (max 0.1): heading %.9g, expected 3.1", h);
    EXPECT(fabs(norm3(v) - 2.0) < 4 * FEPS, "turn limit keeps the speed 2, got %g", norm3(v));
    // Second step: from 3.1 the diff is 2pi - 6.1 = 0.183 > 0.1: 3.2, i.e.
    // 3.2 - 2pi = -3.0832 across pi.
    float old2[3] = {v[0], v[1], v[2]};
    float v2[3] = {2 * cosf(-3.0f), 2 * sinf(-3.0f), 0};
    boids_turn_limit(old2, 0.1f, 2, v2);
    h = atan2(v2[1], v2[0]);
    EXPECT(fabs(h - (3.2 - 2 * PI)) < 1e-5, "second step: heading %.9g, expected 3.2 - 2pi = %.9g", h, 3.2 - 2 * PI);
    // Third: from -3.083 to -3.0 is 0.083 <= 0.1: reached, unchanged.
    float old3[3] = {v2[0], v2[1], v2[2]};
    float v3[3] = {2 * cosf(-3.0f), 2 * sinf(-3.0f), 0}, keep[3] = {v3[0], v3[1], v3[2]};
    boids_turn_limit(old3, 0.1f, 2, v3);
    for (int a = 0; a < 3; a++)
        EXPECT(v3[a] == keep[a], "within the limit the velocity is unchanged");
    // The mirror case: -3.0 toward +3.0 goes to -3.1.
    float m[3] = {cosf(3.0f), sinf(3.0f), 0};
    boids_turn_limit((float[3]){cosf(-3.0f), sinf(-3.0f), 0}, 0.1f, 2, m);
    EXPECT(fabs(atan2(m[1], m[0]) + 3.1) < 1e-5, "turn -3.0 -> 3.0: expected -3.1, got %.9g", atan2(m[1], m[0]));
    // No limit (0) and no old heading: unchanged.
    float u[3] = {0, 1, 0};
    boids_turn_limit((float[3]){1, 0, 0}, 0.0f, 2, u);
    expect_vec3("max_turn 0", u, 0, 1, 0, 0, "0 = no turn-rate limit");
    boids_turn_limit((float[3]){0, 0, 0}, 0.1f, 2, u);
    expect_vec3("from rest", u, 0, 1, 0, 0, "no old heading");
    // 3D: +x toward +y (speed 2) by at most 0.1 in their plane.
    float w[3] = {0, 2, 0};
    boids_turn_limit((float[3]){1, 0, 0}, 0.1f, 3, w);
    expect_vec3("3D turn", w, 2 * cos(0.1), 2 * sin(0.1), 0, 8 * FEPS, "rotation by 0.1 in the x-y plane");
    // 3D reversal: the plane with z as "up": +x turns toward +y.
    float r[3] = {-1, 0, 0};
    boids_turn_limit((float[3]){1, 0, 0}, 0.1f, 3, r);
    expect_vec3("3D reversal", r, cos(0.1), sin(0.1), 0, 8 * FEPS, "reversal: up (0,0,1) x (1,0,0) = (0,1,0)");
    // 3D general: the angle to the old heading is exactly the limit.
    float g[3] = {-0.3f, 0.5f, 0.8f};
    const float go[3] = {0.6f, 0.0f, 0.8f};
    boids_turn_limit(go, 0.2f, 3, g);
    double c = ((double)g[0] * go[0] + (double)g[1] * go[1] + (double)g[2] * go[2]) / (norm3(g) * norm3(go));
    EXPECT(fabs(acos(c) - 0.2) < 1e-5, "3D turn angle %g, expected the limit 0.2", acos(c));
}
END_TEST

// ---- locomotion ---------------------------------------------------------------------

START_TEST(integrate_by_hand) {
    boids_params p;
    small_world(&p, 2, 0);
    for (int a = 0; a < 2; a++) {
        p.world.min[a] = 0.0f;
        p.world.size[a] = 100.0f;
    }
    EXPECT(boids_params_finalize(&p, NULL, 0) == BOIDS_OK, "the [0,100)^2 torus is valid");
    boids_world_params *w = &p.world;
    const boids_group_params *g = &p.group[0];
    float po[3], vo[3];
    // Chapter update(): v += a; v.limit(3); p += v.
    boids_integrate(w, g, (float[3]){10, 10, 0}, (float[3]){1, 0, 0}, (float[3]){0, 0.5f, 0}, po, vo);
    expect_vec3("integrate v", vo, 1, 0.5, 0, 0, "v = (1,0) + (0,0.5)");
    expect_vec3("integrate p", po, 11, 10.5, 0, 0, "p = (10,10) + v");
    boids_integrate(w, g, (float[3]){10, 10, 0}, (float[3]){2, 2, 0}, (float[3]){1, 1, 0}, po, vo);
    expect_vec3("integrate limit", vo, 3 / sqrt(2.0), 3 / sqrt(2.0), 0, 8 * FEPS, "(3,3) limited to maxspeed 3");
    expect_vec3("integrate limit p", po, 10 + 3 / sqrt(2.0), 10 + 3 / sqrt(2.0), 0, 16 * 8 * FEPS, "p + limited v");
    // dt 0.5: v = v + a dt, p = p + v dt.
    w->dt = 0.5f;
    boids_integrate(w, g, (float[3]){10, 10, 0}, (float[3]){1, 0, 0}, (float[3]){0, 1, 0}, po, vo);
    expect_vec3("integrate dt", vo, 1, 0.5, 0, 0, "v = (1,0) + (0,1) * 0.5");
    expect_vec3("integrate dt p", po, 10.5, 10.25, 0, 0, "p = (10,10) + v * 0.5");
    w->dt = 1.0f;
    // Leaving the torus: wrapped.
    boids_integrate(w, g, (float[3]){99.5f, 50, 0}, (float[3]){1, 0, 0}, (float[3]){0, 0, 0}, po, vo);
    expect_vec3("integrate wrap", po, 0.5, 50, 0, 0, "100.5 wraps to 0.5");
    // Turn limit inside integrate: max_turn 0.1 / time unit, heading 3.0,
    // an acceleration that would turn it to -3.0: the heading becomes 3.1.
    boids_group_params gt = *g;
    gt.max_turn = 0.1f;
    float v0[3] = {2 * cosf(3.0f), 2 * sinf(3.0f), 0}, vt[3] = {2 * cosf(-3.0f), 2 * sinf(-3.0f), 0};
    float acc[3] = {vt[0] - v0[0], vt[1] - v0[1], 0};
    boids_integrate(w, &gt, (float[3]){50, 50, 0}, v0, acc, po, vo);
    EXPECT(fabs(atan2(vo[1], vo[0]) - 3.1) < 1e-5, "integrate with max_turn 0.1: heading %.9g, expected 3.1",
           atan2(vo[1], vo[0]));
    // A least speed (min_speed 1.5): a slower agent is sped up to it along
    // its heading, a faster one and one at rest are left as they are; 0 is
    // no least speed (the same bits as before it existed).
    boids_group_params gm = *g;
    gm.min_speed = 1.5f;
    boids_integrate(w, &gm, (float[3]){50, 50, 0}, (float[3]){0.3f, 0.4f, 0}, (float[3]){0, 0, 0}, po, vo);
    expect_vec3("integrate min_speed slow", vo, 0.9, 1.2, 0, 1e-6, "(0.3, 0.4) raised to length 1.5 along (0.6, 0.8)");
    boids_integrate(w, &gm, (float[3]){50, 50, 0}, (float[3]){2, 0, 0}, (float[3]){0, 0, 0}, po, vo);
    expect_vec3("integrate min_speed fast", vo, 2, 0, 0, 0, "speed 2 > 1.5: unchanged");
    boids_integrate(w, &gm, (float[3]){50, 50, 0}, (float[3]){0, 0, 0}, (float[3]){0, 0, 0}, po, vo);
    expect_vec3("integrate min_speed rest", vo, 0, 0, 0, 0, "at rest: no heading to speed up along");
    float vr[3] = {0.3f, 0.4f, 0}, vz[3] = {0.3f, 0.4f, 0};
    boids_raise(vz, 0.0f);
    EXPECT(memcmp(vz, vr, sizeof vr) == 0, "boids_raise with min 0 changed the vector");
    // Through the sim with no behaviours: p advances by v every step (dt 1).
    small_world(&p, 2, 0);
    agent a[2] = {{0, 0, 0, 0.5f, 0.25f, 0, 0}, {-10, 20, 0, -1, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    for (int k = 0; k < 10; k++)
        boids_sim_step(s);
    expect_vec3("sim 10 steps", pos_of(s, 0), 5, 2.5, 0, 0, "p + 10 v, no forces");
    expect_vec3("sim 10 steps b", pos_of(s, 1), -20, 20, 0, 0, "p + 10 v, no forces");
    expect_vec3("sim 10 steps v", vel_of(s, 0), 0.5, 0.25, 0, 0, "v unchanged without forces");
    boids_sim_destroy(s);
}
END_TEST

START_TEST(boundary_by_hand) {
    boids_world_params w;
    memset(&w, 0, sizeof(w));
    w.dim = 2;
    w.size[0] = w.size[1] = 100.0f;
    w.min[2] = 7.0f;
    float pp[3], vv[3];
    // Wrap: [0,100)^2.
    w.boundary = BOIDS_BOUNDARY_WRAP;
    memcpy(pp, (float[3]){105, -5, 3}, sizeof(pp));
    memcpy(vv, (float[3]){1, -1, 2}, sizeof(vv));
    boids_boundary(&w, pp, vv);
    expect_vec3("wrap", pp, 5, 95, 7, 0, "105 -> 5, -5 -> 95; 2D: z = min z");
    expect_vec3("wrap v", vv, 1, -1, 0, 0, "velocity kept, z zeroed in 2D");
    memcpy(pp, (float[3]){100, 0, 0}, sizeof(pp));
    boids_boundary(&w, pp, vv);
    expect_vec3("wrap hi", pp, 0, 0, 7, 0, "min + size maps to min ([min, min+size))");
    memcpy(pp, (float[3]){1003, -997, 0}, sizeof(pp));
    boids_boundary(&w, pp, vv);
    expect_vec3("wrap far", pp, 3, 3, 7, 1e-4, "several widths outside: 1003 -> 3, -997 -> 3");
    // Negative origin [-1000, 1000).
    boids_world_params wn = w;
    wn.min[0] = wn.min[1] = -1000.0f;
    wn.size[0] = wn.size[1] = 2000.0f;
    memcpy(pp, (float[3]){1000, -1001, 0}, sizeof(pp));
    boids_boundary(&wn, pp, vv);
    expect_vec3("wrap negative origin", pp, -1000, 999, 7, 0, "1000 -> -1000, -1001 -> 999");
    // Bounce (and walls, as a hard stop): reflect and flip the component.
    for (uint32_t b = BOIDS_BOUNDARY_WALLS; b <= BOIDS_BOUNDARY_BOUNCE; b++) {
        w.boundary = b;
        memcpy(pp, (float[3]){105, 50, 0}, sizeof(pp));
        memcpy(vv, (float[3]){1, 0.5f, 0}, sizeof(vv));
        boids_boundary(&w, pp, vv);
        expect_vec3("bounce hi", pp, 95, 50, 7, 0, "reflected: 100 - 5");
        expect_vec3("bounce hi v", vv, -1, 0.5, 0, 0, "x component flipped inward");
        memcpy(pp, (float[3]){-3, 50, 0}, sizeof(pp));
        memcpy(vv, (float[3]){-2, 1, 0}, sizeof(vv));
        boids_boundary(&w, pp, vv);
        expect_vec3("bounce lo", pp, 3, 50, 7, 0, "reflected: 0 + 3");
        expect_vec3("bounce lo v", vv, 2, 1, 0, 0, "x component flipped inward");
        memcpy(pp, (float[3]){100, 0, 0}, sizeof(pp));
        memcpy(vv, (float[3]){1, -1, 0}, sizeof(vv));
        boids_boundary(&w, pp, vv);
        expect_vec3("on the faces", pp, 100, 0, 7, 0, "walls and bounce keep [min, max] (closed)");
        memcpy(pp, (float[3]){250, 50, 0}, sizeof(pp));
        memcpy(vv, (float[3]){5, 0, 0}, sizeof(vv));
        boids_boundary(&w, pp, vv);
        EXPECT(pp[0] >= 0.0f && pp[0] <= 100.0f && vv[0] < 0.0f,
               "far outside (250): back inside [0,100] (got %g) moving inward (v %g)", (double)pp[0], (double)vv[0]);
    }
    // 3D bounce on z.
    w.dim = 3;
    w.size[2] = 100.0f;
    w.min[2] = 0.0f;
    w.boundary = BOIDS_BOUNDARY_BOUNCE;
    memcpy(pp, (float[3]){50, 50, 102}, sizeof(pp));
    memcpy(vv, (float[3]){0, 0, 3}, sizeof(vv));
    boids_boundary(&w, pp, vv);
    expect_vec3("bounce z", pp, 50, 50, 98, 0, "3D: z reflected too");
    expect_vec3("bounce z v", vv, 0, 0, -3, 0, "z component flipped");
}
END_TEST

// ---- random numbers and fixed point ---------------------------------------------

START_TEST(rng_by_hand) {
    // lowbias32 values worked out from the formula (x ^= x>>16; x *= 0x7feb352d;
    // x ^= x>>15; x *= 0x846ca68b; x ^= x>>16), in 32-bit arithmetic.
    EXPECT(boids_hash(0) == 0u, "lowbias32(0) = 0 (every step maps 0 to 0)");
    EXPECT(boids_hash(1) == 0x688990c0u, "lowbias32(1) = 0x688990c0, got 0x%08x", boids_hash(1));
    EXPECT(boids_hash(2) == 0xd1132181u, "lowbias32(2) = 0xd1132181, got 0x%08x", boids_hash(2));
    EXPECT(boids_hash(0xdeadbeefu) == 0xe628c683u, "lowbias32(0xdeadbeef) = 0xe628c683, got 0x%08x",
           boids_hash(0xdeadbeefu));
    // rng_u32 folds seed, id, step, stream*golden through the hash in turn.
    EXPECT(boids_rng_u32(1, 0, 0, 0, 0) == 0x62181b8du, "rng(1,0,0,0,0) = 0x62181b8d, got 0x%08x",
           boids_rng_u32(1, 0, 0, 0, 0));
    EXPECT(boids_rng_u32(1, 0, 7, 3, 2) == 0xc9f06d77u, "rng(1,0,7,3,2) = 0xc9f06d77, got 0x%08x",
           boids_rng_u32(1, 0, 7, 3, 2));
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t lo = i * 2654435761u, hi = i >> 3, id = i * 7u, st = i % 13u, sm = i % 5u;
        uint32_t h = ref_rng_u32(lo, hi, id, st, sm);
        EXPECT(boids_rng_u32(lo, hi, id, st, sm) == h, "rng_u32 differs from the nested lowbias32 at %u", i);
    }
    // [0,1) from the top 24 bits; [-1,1).
    EXPECT(boids_rng_unit(0u) == 0.0f, "unit(0) = 0");
    EXPECT(boids_rng_unit(0x80000000u) == 0.5f, "unit(2^31) = 0.5");
    EXPECT(boids_rng_unit(0xffffffffu) == 1.0f - 1.0f / 16777216.0f, "unit(max) = 1 - 2^-24 < 1");
    EXPECT(boids_rng_unit(0x000000ffu) == 0.0f, "the low 8 bits are dropped");
    EXPECT(boids_rng_signed(0u) == -1.0f, "signed(0) = -1");
    EXPECT(boids_rng_signed(0x80000000u) == 0.0f, "signed(2^31) = 0");
    EXPECT(boids_rng_signed(0xffffffffu) == 1.0f - 2.0f / 16777216.0f, "signed(max) = 1 - 2^-23 < 1");
    // Statistics over 200000 draws: mean 0.5 (sd of the mean 0.00065), every
    // decile about 10%, the streams and counters decorrelated.
    double sum = 0;
    uint32_t deciles[10] = {0}, same_stream = 0, same_step = 0;
    const uint32_t n = 200000;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = boids_rng_u32(42, 0, i, 0, BOIDS_RNG_WANDER);
        float u = boids_rng_unit(b);
        EXPECT(u >= 0.0f && u < 1.0f, "unit draw %g outside [0,1)", (double)u);
        sum += u;
        deciles[(int)(u * 10.0f)]++;
        same_stream += b == boids_rng_u32(42, 0, i, 0, BOIDS_RNG_WANDER2);
        same_step += b == boids_rng_u32(42, 0, i, 1, BOIDS_RNG_WANDER);
    }
    EXPECT(fabs(sum / n - 0.5) < 0.004, "mean of unit draws %g, expected 0.5 +- 0.004 (6 sd)", sum / n);
    for (int k = 0; k < 10; k++)
        EXPECT(deciles[k] > n / 10 - 1200 && deciles[k] < n / 10 + 1200,
               "decile %d holds %u of %u draws, expected 20000 +- 1200 (~9 sd)", k, deciles[k], n);
    EXPECT(same_stream < 3 && same_step < 3, "different stream / step gave the same 32 bits %u / %u times", same_stream,
           same_step);
}
END_TEST

START_TEST(fixed_point_by_hand) {
    const double U = BOIDS_FIX_UNIT, S = BOIDS_FIX_SEP;
    EXPECT(boids_fix(1.0f, U) == (int64_t)1 << 32, "fix(1, 2^32) = 2^32");
    EXPECT(boids_fix(-1.5f, U) == -((int64_t)3 << 31), "fix(-1.5, 2^32) = -1.5 * 2^32");
    EXPECT(boids_fix(0.5f, S) == (int64_t)1 << 23, "fix(0.5, 2^24) = 2^23");
    // Truncation toward zero (not floor): symmetric for +-.
    EXPECT(boids_fix(1e-10f, U) == 0 && boids_fix(-1e-10f, U) == 0,
           "1e-10 * 2^32 = 0.43: truncated to 0 for both signs");
    EXPECT(boids_fix(-2.75f, 1.0) == -2, "fix(-2.75, 1) = -2 (toward zero), got %lld",
           (long long)boids_fix(-2.75f, 1.0));
    // Saturation at 2^39 (so 2^24 terms cannot overflow 2^63), NaN -> 0.
    const int64_t sat = (int64_t)1 << 39;
    EXPECT(boids_fix(1e30f, U) == sat && boids_fix(-1e30f, U) == -sat, "saturated at +-2^39");
    EXPECT(boids_fix(INFINITY, U) == sat && boids_fix(-INFINITY, U) == -sat, "infinity saturates");
    EXPECT(boids_fix(NAN, U) == 0, "NaN maps to 0");
    EXPECT(boids_fix(32768.0f, S) == sat, "the largest separation term 2^15 * 2^24 = 2^39 just fits");
    // Back: exact for sums that are multiples of the unit.
    EXPECT(boids_unfix((int64_t)1 << 32, U) == 1.0f, "unfix(2^32) = 1");
    EXPECT(boids_unfix(-((int64_t)3 << 31), U) == -1.5f, "unfix(-1.5 * 2^32) = -1.5");
    // Order independence: the same 3000 terms in three orders give the same
    // integer, within 3000 * 2^-32 of the exact (double) sum.
    enum { N = 3000 };
    static float v[N];
    uint32_t st = 7;
    double exact = 0;
    for (int i = 0; i < N; i++) {
        st = st * 1664525u + 1013904223u;
        v[i] = ((float)(st >> 8) / 16777216.0f) * 2.0f - 1.0f;
        v[i] *= (i % 3 == 0) ? 1e-4f : 1.0f;
        exact += v[i];
    }
    int64_t fwd = 0, bwd = 0, stride = 0;
    for (int i = 0; i < N; i++)
        fwd += boids_fix(v[i], U);
    for (int i = N - 1; i >= 0; i--)
        bwd += boids_fix(v[i], U);
    for (int k = 0; k < 7; k++)
        for (int i = k; i < N; i += 7)
            stride += boids_fix(v[i], U);
    EXPECT(fwd == bwd && fwd == stride, "fixed-point sums depend on the order: %lld %lld %lld", (long long)fwd,
           (long long)bwd, (long long)stride);
    EXPECT(fabs((double)fwd / U - exact) <= N / U + fabs(exact) * FEPS,
           "fixed sum %.12g vs exact %.12g: truncation error at most N * 2^-32", (double)fwd / U, exact);
}
END_TEST

// ---- combining behaviours ----------------------------------------------------------

START_TEST(combine_weighted_and_priority) {
    // The chapter's example: seek * 0.5 + separate * 1.5. A at rest at the
    // origin, B 10 to the right (separation pushes A -x by maxforce), target
    // (0,100) (seek pulls +y by maxforce): accel = (-0.075, 0.025).
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_SEEK) | BOIDS_BIT(BOIDS_BI_SEPARATION));
    p.world.target_pos[1] = 100.0f;
    p.group[0].weight[BOIDS_BI_SEEK >> 2][BOIDS_BI_SEEK & 3] = 0.5f;
    agent a[2] = {{0, 0, 0, 0, 0, 0, 0}, {10, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("weighted sum", accel_of(s, 0), -0.075, 0.025, 0, 4 * 0.075 * FEPS,
                "separate (-0.05,0) * 1.5 + seek (0,0.05) * 0.5");
    boids_sim_destroy(s);
    // Priority (Reynolds 1999): behaviours in index order (separation before
    // seek); the first weighted force longer than the threshold wins alone.
    p.world.combine = BOIDS_COMBINE_PRIORITY;
    s = sim_with(&p, a, 2);
    EXPECT(s->p.group[0].priority_threshold == 0.005f, "default threshold 0.005");
    boids_sim_steer(s);
    expect_vec3("priority: separation wins", accel_of(s, 0), -0.075, 0, 0, 4 * 0.075 * FEPS,
                "|separate * 1.5| = 0.075 > 0.005 comes first");
    boids_sim_destroy(s);
    // Nobody near: separation gives 0, seek is the first above the threshold.
    agent b[2] = {{0, 0, 0, 0, 0, 0, 0}, {200, 0, 0, 0, 0, 0, 0}};
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    expect_vec3("priority: seek next", accel_of(s, 0), 0, 0.025, 0, 4 * 0.025 * FEPS,
                "separation 0 < threshold, seek * 0.5 = 0.025 wins");
    boids_sim_destroy(s);
    // A threshold above every force: the weighted sum again.
    p.group[0].priority_threshold = 1.0f;
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("priority: none above", accel_of(s, 0), -0.075, 0.025, 0, 4 * 0.075 * FEPS,
                "no force above 1.0: weighted sum");
    boids_sim_destroy(s);
    // The weight applies before the threshold: separation * 0.05 = 0.0025 <
    // 0.005 does not win, seek (0.025) does.
    p.group[0].priority_threshold = 0.005f;
    p.group[0].weight[BOIDS_BI_SEPARATION >> 2][BOIDS_BI_SEPARATION & 3] = 0.05f;
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("priority: weighted threshold", accel_of(s, 0), 0, 0.025, 0, 4 * 0.025 * FEPS,
                "weighted separation below the threshold, seek wins");
    boids_sim_destroy(s);
}
END_TEST

// Buckland's AccumulateForce, step by step (boids_accumulate_force).
START_TEST(accumulate_by_hand) {
    float t[3] = {0, 0, 0};
    // Budget 1: (0.5, 0, 0) fits whole (0.5 < 1), room is left.
    EXPECT(boids_accumulate_force(t, (float[3]){0.5f, 0, 0}, 1.0f), "0.5 < remaining 1: added, go on");
    expect_vec3("whole", t, 0.5, 0, 0, 0, "|f| 0.5 < remaining 1: total += f");
    // (0, 0.75, 0) does not fit the 0.5 left: truncated to 0.5, the budget is spent.
    EXPECT(!boids_accumulate_force(t, (float[3]){0, 0.75f, 0}, 1.0f), "0.75 >= remaining 0.5: the last one");
    expect_vec3("truncated", t, 0.5, 0.5, 0, 0, "f / |f| * (1 - |(0.5,0,0)|) = (0, 0.5)");
    // Nothing left: remaining = 1 - |(0.5,0.5)| = 0.29 > 0 in Buckland's
    // terms, but a truncated force is the last; a full total stops at once.
    float full[3] = {3, 4, 0};
    EXPECT(!boids_accumulate_force(full, (float[3]){1, 0, 0}, 5.0f), "|total| 5 = maxforce: remaining 0, stop");
    expect_vec3("spent", full, 3, 4, 0, 0, "remaining <= 0 adds nothing");
    // Exactly the budget: |(3,4)| = 5 = remaining is not < remaining, so it is
    // scaled by 5/5 = 1: the same vector, and the budget is spent exactly.
    float e[3] = {0, 0, 0};
    EXPECT(!boids_accumulate_force(e, (float[3]){3, 4, 0}, 5.0f), "|f| = remaining: spends the budget");
    expect_vec3("exact", e, 3, 4, 0, 0, "(3,4) * 5/5");
    EXPECT(norm3(e) == 5.0, "|total| = %.9g, expected the budget 5 exactly", norm3(e));
    // Zero forces: added (nothing), the running sum goes on; a zero budget stops.
    float z[3] = {0, 0, 0};
    EXPECT(boids_accumulate_force(z, (float[3]){0, 0, 0}, 0.05f), "|0| < 0.05: go on");
    expect_zero("zero force", z, "0 + 0");
    EXPECT(!boids_accumulate_force(z, (float[3]){1, 0, 0}, 0.0f), "maxforce 0: remaining 0, stop");
    expect_zero("zero budget", z, "remaining 0 adds nothing");
    // 3D: a long force along (1,2,2)/3 truncated to 0.3 on top of (0,0,0.1).
    float d[3] = {0, 0, 0.1f};
    EXPECT(!boids_accumulate_force(d, (float[3]){3, 6, 6}, 0.4f), "|(3,6,6)| = 9 > remaining 0.3");
    expect_vec3("3D truncated", d, 0.1, 0.2, 0.3, 4 * FEPS, "(0,0,0.1) + (1,2,2)/3 * 0.3");
}
END_TEST

// BOIDS_COMBINE_TRUNCATED in the sim: separation (index 3) before seek (8).
START_TEST(combine_truncated) {
    // A at rest at the origin, B 10 to the right: separation is (-0.05, 0)
    // (maxforce), seek of (0, 100) is (0, 0.05); budget maxforce 0.05.
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_SEEK) | BOIDS_BIT(BOIDS_BI_SEPARATION));
    p.world.target_pos[1] = 100.0f;
    p.world.combine = BOIDS_COMBINE_TRUNCATED;
    agent a[2] = {{0, 0, 0, 0, 0, 0, 0}, {10, 0, 0, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    // Separation * 1.5 = 0.075 >= 0.05: truncated to the whole budget, seek adds nothing.
    expect_vec3("truncated: separation spends it", accel_of(s, 0), -0.05, 0, 0, 2 * 0.05 * FEPS,
                "(-0.075,0) / 0.075 * 0.05; seek after it gets nothing");
    boids_sim_destroy(s);
    // Separation * 0.6 = 0.03 fits; seek * 1 = 0.05 does not fit the 0.02 left.
    p.group[0].weight[BOIDS_BI_SEPARATION >> 2][BOIDS_BI_SEPARATION & 3] = 0.6f;
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("truncated: seek truncated", accel_of(s, 0), -0.03, 0.02, 0, 4 * 0.05 * FEPS,
                "(-0.03,0) whole + (0,0.05) scaled to 0.05 - 0.03 = 0.02");
    boids_sim_destroy(s);
    // Nobody near: separation is zero (added, nothing spent), seek * 0.5 fits whole.
    p.group[0].weight[BOIDS_BI_SEEK >> 2][BOIDS_BI_SEEK & 3] = 0.5f;
    agent b[2] = {{0, 0, 0, 0, 0, 0, 0}, {200, 0, 0, 0, 0, 0, 0}};
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    expect_vec3("truncated: zero separation", accel_of(s, 0), 0, 0.025, 0, 2 * 0.025 * FEPS,
                "0 + (0,0.025): 0.025 < remaining 0.05");
    boids_sim_destroy(s);
    // Every force zero (at the target, nobody near): zero.
    p.world.target_pos[1] = 0.0f;
    p.world.target_pos[0] = 0.0f;
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    expect_zero("truncated: all zero", accel_of(s, 0), "seek of the own position and no neighbour: 0");
    boids_sim_destroy(s);
    // The budget is the agent's own maxforce (a per-agent range): |accel| = it.
    p.world.target_pos[1] = 100.0f;
    p.group[0].weight[BOIDS_BI_SEEK >> 2][BOIDS_BI_SEEK & 3] = 4.0f;
    p.group[0].maxforce_lo = 0.02f;
    p.group[0].maxforce_hi = 0.08f;
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    float mf = boids_agent_maxforce(&s->p.world, &s->p.group[0], 0);
    expect_vec3("truncated: the agent's budget", accel_of(s, 0), 0, mf, 0, 2 * mf * FEPS,
                "seek * 4 = 4 maxforce, truncated to the agent's own maxforce");
    boids_sim_destroy(s);
}
END_TEST

// Per-rule radii (OpenSteer's boids: separation 5, alignment 7.5, cohesion 9).
START_TEST(rule_radius_by_hand) {
    boids_params p;
    small_world(&p, 2, BOIDS_B_FLOCKING);
    boids_group_params *g = &p.group[0];
    g->maxforce = 100.0f;
    g->separation = 5.0f;
    g->alignment_radius = 7.5f;
    g->cohesion_radius = 9.0f;
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++)
        *boids_weight_ref(g, b) = 1.0f;
    // A at the origin moving +x at 1; B at 8 moving +y at 2: inside cohesion's
    // 9, outside alignment's 7.5 and separation's 5. Cohesion alone:
    // setMag((8,0), 3) - (1,0) = (2,0). (With B aligned: + (0,3) - (1,0).)
    agent a[2] = {{0, 0, 0, 1, 0, 0, 0}, {8, 0, 0, 0, 2, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("inside cohesion's radius only", accel_of(s, 0), 2, 0, 0, 16 * FEPS,
                "cohesion (2,0); alignment and separation see nobody");
    EXPECT(s->neighbors[boids_sim_slots_by_id(s)[0]] == 1, "B is within the perception radius 50: 1 neighbour");
    boids_sim_destroy(s);
    // B at 7: inside alignment's radius too: + setMag((0,2), 3) - (1,0).
    a[1].x = 7.0f;
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("inside alignment's and cohesion's", accel_of(s, 0), 1, 3, 0, 16 * FEPS,
                "cohesion (3,0)-(1,0) + alignment (0,3)-(1,0)");
    boids_sim_destroy(s);
    // 0 = the perception radius (the default): B at 8 is aligned with.
    p.group[0].alignment_radius = 0.0f;
    a[1].x = 8.0f;
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("alignment radius 0 = radius 50", accel_of(s, 0), 1, 3, 0, 16 * FEPS,
                "B at 8 < 50 is aligned with again");
    boids_sim_destroy(s);
    // A cohesion radius beyond the perception radius widens the grid's reach:
    // B at 55 (outside radius 50) still pulls A.
    p.group[0].behaviors = BOIDS_BIT(BOIDS_BI_COHESION);
    p.group[0].cohesion_radius = 60.0f;
    EXPECT(boids_group_reach(&p.group[0]) == 60.0f, "reach %g, expected cohesion's 60",
           (double)boids_group_reach(&p.group[0]));
    a[1].x = 55.0f;
    s = sim_with(&p, a, 2);
    EXPECT(s->p.world.cell[0] >= 60.0f, "cell %g, expected >= the largest rule radius 60", (double)s->p.world.cell[0]);
    boids_sim_steer(s);
    expect_vec3("cohesion beyond the perception radius", accel_of(s, 0), 2, 0, 0, 16 * FEPS,
                "B at 55 < cohesion's 60: setMag((55,0),3) - (1,0)");
    EXPECT(s->neighbors[boids_sim_slots_by_id(s)[0]] == 0, "B is beyond the perception radius 50: 0 neighbours");
    boids_sim_destroy(s);
}
END_TEST

// Per-rule cones: one neighbour behind-left, seen by one rule and not another.
START_TEST(rule_cone_by_hand) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_ALIGNMENT) | BOIDS_BIT(BOIDS_BI_COHESION));
    boids_group_params *g = &p.group[0];
    g->maxforce = 100.0f;
    // A at the origin heading +x at 1; B at (-6, 6), 135 degrees off the
    // heading, moving +y at 2. Alignment all around (360), cohesion 180
    // (the half in front): only alignment sees B.
    g->own_cones = BOIDS_CONE_ALIGNMENT | BOIDS_CONE_COHESION;
    g->alignment_fov_cos = boids_fov_cos(360.0f);
    g->cohesion_fov_cos = boids_fov_cos(180.0f);
    agent a[2] = {{0, 0, 0, 1, 0, 0, 0}, {-6, 6, 0, 0, 2, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_vec3("alignment's cone only", accel_of(s, 0), -1, 3, 0, 16 * FEPS,
                "alignment (0,3) - (1,0); B is behind cohesion's 180-degree cone");
    boids_sim_destroy(s);
    // Cohesion 300 degrees (half-angle 150 > 135): B seen by both.
    p.group[0].cohesion_fov_cos = boids_fov_cos(300.0f);
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    const double h = 3 / sqrt(2.0);
    expect_vec3("both cones", accel_of(s, 0), -1 - h - 1, 3 + h, 0, 16 * FEPS,
                "alignment (-1,3) + cohesion setMag((-6,6),3) - (1,0)");
    boids_sim_destroy(s);
    // No cone of their own: the group's fov for both (180: neither sees B).
    p.group[0].own_cones = 0;
    p.group[0].alignment_fov_cos = p.group[0].cohesion_fov_cos = 0.0f;
    p.group[0].fov_cos = boids_fov_cos(180.0f);
    s = sim_with(&p, a, 2);
    boids_sim_steer(s);
    expect_zero("the group's fov", accel_of(s, 0), "fov 180 hides B from both rules");
    boids_sim_destroy(s);
    // Separation's own cone: B at (-3, 0), straight behind, inside the
    // separation 25. fov 360 for all, separation 90: B unseen, no push.
    p.group[0].fov_cos = -1.0f;
    p.group[0].behaviors = BOIDS_BIT(BOIDS_BI_SEPARATION);
    p.group[0].own_cones = BOIDS_CONE_SEPARATION;
    p.group[0].separation_fov_cos = boids_fov_cos(90.0f);
    agent b[2] = {{0, 0, 0, 1, 0, 0, 0}, {-3, 0, 0, 0, 0, 0, 0}};
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    expect_zero("behind separation's cone", accel_of(s, 0), "B straight behind a 90-degree cone");
    boids_sim_destroy(s);
    // B ahead at (3, 0): pushed back (-x), the same as with no cone.
    b[1].x = 3.0f;
    s = sim_with(&p, b, 2);
    boids_sim_steer(s);
    EXPECT(accel_of(s, 0)[0] < 0.0f, "separation ahead: x = %g, expected < 0 (away from B)", (double)accel_of(s, 0)[0]);
    boids_sim_destroy(s);
}
END_TEST

// ---- topological neighbourhoods (neighbors_max K) ---------------------------------

// K = 1: the nearest only; a tie at equal d^2 goes to the smaller id (in
// either slot order); K = 2 of 5: the alignment and cohesion of exactly
// the two nearest (by hand); the neighbour count is K.
START_TEST(topological_by_hand) {
    boids_params p;
    small_world(&p, 2, BOIDS_BIT(BOIDS_BI_ALIGNMENT));
    p.group[0].maxforce = 100.0f;
    p.group[0].neighbors_max = 1;
    // A heading +x at 1; B (id 1) at 10 moving +y at 2, C (id 2) at 20 moving -y.
    agent a[3] = {{0, 0, 0, 1, 0, 0, 0}, {10, 0, 0, 0, 2, 0, 0}, {20, 0, 0, 0, -2, 0, 0}};
    boids_sim *s = sim_with(&p, a, 3);
    boids_sim_steer(s);
    expect_vec3("K=1: the nearest", accel_of(s, 0), -1, 3, 0, 16 * FEPS, "B alone: (0,3) - (1,0)");
    EXPECT(s->neighbors[boids_sim_slots_by_id(s)[0]] == 1, "K=1: 1 neighbour, got %u",
           s->neighbors[boids_sim_slots_by_id(s)[0]]);
    boids_sim_destroy(s);
    // Without K: the mean of +2 and -2 is 0, so nothing but -v.
    p.group[0].neighbors_max = 0;
    s = sim_with(&p, a, 3);
    boids_sim_steer(s);
    EXPECT(s->neighbors[boids_sim_slots_by_id(s)[0]] == 2, "K=0: both neighbours");
    boids_sim_destroy(s);
    // A tie at d^2 = 100: ids 1 and 2 at (+-10, 0); the smaller id wins
    // whichever side (and so whichever cell / slot) it is on.
    p.group[0].neighbors_max = 1;
    for (int side = 0; side < 2; side++) {
        float x1 = side ? -10.0f : 10.0f;
        agent t[3] = {{0, 0, 0, 1, 0, 0, 0}, {x1, 0, 0, 0, 2, 0, 0}, {-x1, 0, 0, 0, -2, 0, 0}};
        s = sim_with(&p, t, 3);
        boids_sim_steer(s);
        expect_vec3("K=1: a tie to the smaller id", accel_of(s, 0), -1, 3, 0, 16 * FEPS,
                    "id 1 (+y) beats id 2 (-y) at the same d^2: (0,3) - (1,0)");
        boids_sim_destroy(s);
    }
    // K = 2 of 5 neighbours (all within the radius 50): ids 1 (d 5) and 2
    // (d 10) are kept; 3, 4, 5 (d 12, 15, 20; pulling and turning
    // elsewhere) are not.
    p.group[0].behaviors = BOIDS_BIT(BOIDS_BI_ALIGNMENT) | BOIDS_BIT(BOIDS_BI_COHESION);
    p.group[0].neighbors_max = 2;
    agent f[6] = {{0, 0, 0, 1, 0, 0, 0},    {3, 4, 0, 0, 2, 0, 0},   {-6, 8, 0, 2, 0, 0, 0},
                  {0, -12, 0, 0, -2, 0, 0}, {15, 0, 0, -2, 0, 0, 0}, {0, -20, 0, -2, -2, 0, 0}};
    s = sim_with(&p, f, 6);
    boids_sim_steer(s);
    // Alignment: mean velocity (1, 1), setMag 3, minus (1, 0). Cohesion:
    // the centroid (-1.5, 6), setMag 3, minus (1, 0).
    const double h = 3 / sqrt(2.0), c = 3 / sqrt(1.5 * 1.5 + 36.0);
    expect_vec3("K=2 of 5", accel_of(s, 0), h - 1 + (-1.5 * c) - 1, h + 6 * c, 0, 32 * FEPS,
                "alignment setMag((1,1),3) - (1,0) + cohesion setMag((-1.5,6),3) - (1,0)");
    EXPECT(s->neighbors[boids_sim_slots_by_id(s)[0]] == 2, "K=2: 2 neighbours, got %u",
           s->neighbors[boids_sim_slots_by_id(s)[0]]);
    EXPECT(s->candidates[boids_sim_slots_by_id(s)[0]] == 6, "K=2: the candidates are still all 6, got %u",
           s->candidates[boids_sim_slots_by_id(s)[0]]);
    boids_sim_destroy(s);
}
END_TEST

// K above every agent's neighbour count changes nothing: the same state
// hash as K = 0 after some steps of a sparse flock (through the general
// path, not the 2D fast path, with K).
START_TEST(topological_sparse_same_hash) {
    for (uint32_t dim = 2; dim <= 3; dim++) {
        uint64_t hash[2];
        uint32_t most = 0;
        for (int k = 0; k < 2; k++) {
            boids_params p;
            boids_params_default(&p, 300, dim);
            for (uint32_t a = 0; a < dim; a++)
                p.world.size[a] = dim == 2 ? 2000.0f : 600.0f;
            for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
                p.group[g].neighbors_max = k ? BOIDS_MAX_NEIGHBORS_K : 0;
            boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
            for (int step = 0; step < 20; step++)
                boids_sim_step(s);
            for (uint32_t i = 0; i < s->n; i++)
                most = s->neighbors[i] > most ? s->neighbors[i] : most;
            hash[k] = boids_sim_hash(s);
            boids_sim_destroy(s);
        }
        EXPECT(most < BOIDS_MAX_NEIGHBORS_K, "%uD: an agent has %u neighbours (the test wants fewer than K)", dim,
               most);
        EXPECT(hash[0] == hash[1], "%uD: K=32 hash %016llx, K=0 %016llx", dim, (unsigned long long)hash[1],
               (unsigned long long)hash[0]);
    }
}
END_TEST

// ---- the chapter's flocking example, to the letter ---------------------------------
//
// A plain transcription of the Nature of Code Boid (Example "Flocking"),
// with p5.Vector's arithmetic in double precision (JavaScript numbers).
// One deliberate difference: Flock.run() in the chapter calls boid.run() in
// list order, each boid moving before the next one looks (in place). The
// sim is double-buffered (DESIGN.md: no stage updates in place; the GPU
// cannot do otherwise), so here every boid's flock() reads the same frame and
// then every boid update()s. borders() is not needed: the flock sits in the
// middle of a 4000-wide torus and never reaches a seam (checked).

typedef struct pv {
    double x, y;
} pv;

static pv pv_add(pv a, pv b) {
    return (pv){a.x + b.x, a.y + b.y};
}
static pv pv_sub(pv a, pv b) {
    return (pv){a.x - b.x, a.y - b.y};
}
static pv pv_mult(pv a, double n) {
    return (pv){a.x * n, a.y * n};
}
static pv pv_div(pv a, double n) {
    return (pv){a.x / n, a.y / n};
}
static double pv_mag(pv a) {
    return sqrt(a.x * a.x + a.y * a.y);
}
static double pv_dist(pv a, pv b) {
    return pv_mag(pv_sub(b, a));
}
// p5: const len = this.mag(); if (len !== 0) this.mult(1 / len);
static pv pv_normalize(pv a) {
    double len = pv_mag(a);
    return len != 0 ? pv_mult(a, 1 / len) : a;
}
// p5: const mSq = this.magSq(); if (mSq > max * max) this.div(Math.sqrt(mSq)).mult(max);
static pv pv_limit(pv a, double max) {
    double m2 = a.x * a.x + a.y * a.y;
    return m2 > max * max ? pv_mult(pv_div(a, sqrt(m2)), max) : a;
}

typedef struct noc_boid {
    pv position, velocity, acceleration;
    double r, maxspeed, maxforce;
} noc_boid;

static void noc_apply_force(noc_boid *b, pv force) {
    b->acceleration = pv_add(b->acceleration, force);
}

static pv noc_seek(const noc_boid *b, pv target) {
    pv desired = pv_sub(target, b->position);
    desired = pv_normalize(desired);
    desired = pv_mult(desired, b->maxspeed);
    pv steer = pv_sub(desired, b->velocity);
    steer = pv_limit(steer, b->maxforce);
    return steer;
}

static pv noc_separate(const noc_boid *b, const noc_boid *boids, int n) {
    double desiredseparation = 25.0;
    pv steer = {0, 0};
    int count = 0;
    for (int i = 0; i < n; i++) {
        double d = pv_dist(b->position, boids[i].position);
        if ((d > 0) && (d < desiredseparation)) {
            pv diff = pv_sub(b->position, boids[i].position);
            diff = pv_normalize(diff);
            diff = pv_div(diff, d);
            steer = pv_add(steer, diff);
            count++;
        }
    }
    if (count > 0)
        steer = pv_div(steer, count);
    if (pv_mag(steer) > 0) {
        steer = pv_normalize(steer);
        steer = pv_mult(steer, b->maxspeed);
        steer = pv_sub(steer, b->velocity);
        steer = pv_limit(steer, b->maxforce);
    }
    return steer;
}

static pv noc_align(const noc_boid *b, const noc_boid *boids, int n) {
    double neighbordist = 50;
    pv sum = {0, 0};
    int count = 0;
    for (int i = 0; i < n; i++) {
        double d = pv_dist(b->position, boids[i].position);
        if ((d > 0) && (d < neighbordist)) {
            sum = pv_add(sum, boids[i].velocity);
            count++;
        }
    }
    if (count > 0) {
        sum = pv_div(sum, count);
        sum = pv_normalize(sum);
        sum = pv_mult(sum, b->maxspeed);
        pv steer = pv_sub(sum, b->velocity);
        steer = pv_limit(steer, b->maxforce);
        return steer;
    }
    return (pv){0, 0};
}

static pv noc_cohesion(const noc_boid *b, const noc_boid *boids, int n) {
    double neighbordist = 50;
    pv sum = {0, 0};
    int count = 0;
    for (int i = 0; i < n; i++) {
        double d = pv_dist(b->position, boids[i].position);
        if ((d > 0) && (d < neighbordist)) {
            sum = pv_add(sum, boids[i].position);
            count++;
        }
    }
    if (count > 0) {
        sum = pv_div(sum, count);
        return noc_seek(b, sum);
    }
    return (pv){0, 0};
}

static void noc_flock(noc_boid *b, const noc_boid *boids, int n) {
    pv sep = noc_separate(b, boids, n);
    pv ali = noc_align(b, boids, n);
    pv coh = noc_cohesion(b, boids, n);
    sep = pv_mult(sep, 1.5);
    ali = pv_mult(ali, 1.0);
    coh = pv_mult(coh, 1.0);
    noc_apply_force(b, sep);
    noc_apply_force(b, ali);
    noc_apply_force(b, coh);
}

static void noc_update(noc_boid *b) {
    b->velocity = pv_add(b->velocity, b->acceleration);
    b->velocity = pv_limit(b->velocity, b->maxspeed);
    b->position = pv_add(b->position, b->velocity);
    b->acceleration = pv_mult(b->acceleration, 0);
}

// Largest |sim - chapter| of position, velocity and acceleration over all boids.
typedef struct flock_diff {
    double pos, vel, acc;
} flock_diff;

static flock_diff compare_flock(boids_sim *s, const noc_boid *boids, const pv *acc, int n) {
    flock_diff d = {0, 0, 0};
    const uint32_t *slot = boids_sim_slots_by_id(s);
    for (int i = 0; i < n; i++) {
        const float *p = s->cur.pos[slot[i]], *v = s->cur.vel[slot[i]], *a = s->accel[slot[i]];
        d.pos = fmax(d.pos, fmax(fabs(p[0] - boids[i].position.x), fabs(p[1] - boids[i].position.y)));
        d.vel = fmax(d.vel, fmax(fabs(v[0] - boids[i].velocity.x), fabs(v[1] - boids[i].velocity.y)));
        d.acc = fmax(d.acc, fmax(fabs(a[0] - acc[i].x), fabs(a[1] - acc[i].y)));
    }
    return d;
}

START_TEST(chapter_flocking) {
    enum { N = 150 };
    static noc_boid boids[N];
    static pv acc[N];
    static float pos[N][4], vel[N][4];
    static uint32_t group[N];
    // 150 boids in a 240 x 240 square around the origin (about 20
    // neighbours each, like the chapter's canvas), velocity random(-1, 1)
    // per component as in the chapter's constructor; float values so both
    // models start from the same numbers.
    uint32_t st = 2024;
    for (int i = 0; i < N; i++) {
        float c[4];
        for (int k = 0; k < 4; k++) {
            st = st * 1664525u + 1013904223u;
            c[k] = (float)(st >> 8) / 16777216.0f;
        }
        pos[i][0] = 240.0f * c[0] - 120.0f;
        pos[i][1] = 240.0f * c[1] - 120.0f;
        vel[i][0] = 2.0f * c[2] - 1.0f;
        vel[i][1] = 2.0f * c[3] - 1.0f;
        boids[i] = (noc_boid){{pos[i][0], pos[i][1]}, {vel[i][0], vel[i][1]}, {0, 0}, 3.0, 3, 0.05};
    }
    // The sim with the default parameters (the chapter's), flocking only.
    boids_params p;
    boids_params_default(&p, N, 2);
    EXPECT(p.group[0].maxspeed == 3.0f && p.group[0].maxforce == 0.05f && p.group[0].radius == 50.0f &&
               p.group[0].separation == 25.0f && p.group[0].behaviors == BOIDS_B_FLOCKING &&
               weight_of(&p.group[0], BOIDS_BI_SEPARATION) == 1.5f &&
               weight_of(&p.group[0], BOIDS_BI_ALIGNMENT) == 1.0f &&
               weight_of(&p.group[0], BOIDS_BI_COHESION) == 1.0f && p.world.dt == 1.0f,
           "boids_params_default must be the chapter's flocking (3, 0.05, 50, 25, 1.5/1/1, dt 1)");
    for (int a = 0; a < 2; a++) {
        p.world.min[a] = -2000.0f;
        p.world.size[a] = 4000.0f;
    }
    boids_sim *s = NULL;
    EXPECT(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK, "the chapter's flock on a 4000 torus: created");
    s->threads = 1;
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, group) == BOIDS_OK,
           "150 boids inside the world: accepted");
    int neighbours = 0;
    for (int step = 1; step <= 20; step++) {
        for (int i = 0; i < N; i++)
            noc_flock(&boids[i], boids, N);
        for (int i = 0; i < N; i++) {
            acc[i] = boids[i].acceleration;
            noc_update(&boids[i]);
        }
        boids_sim_step(s);
        flock_diff d = compare_flock(s, boids, acc, N);
        if (step == 1) {
            boids_stats stt;
            boids_sim_stats(s, &stt);
            neighbours = (int)stt.mean_neighbors;
            // One step: the only differences are float rounding (24 bits:
            // 6e-8 relative; a few ULP through setMag / limit, so ~1e-7 on
            // forces <= 0.175 and on velocities <= 3) and the fixed-point
            // quantisation of the neighbour sums (2^-32 relative units, 2^-24
            // for separation terms >= 1: far smaller). Positions |p| < 128
            // are stored in float: half an ULP, 3.8e-6. Measured: accel 3e-8,
            // vel 5e-8, pos 3.9e-6. Tolerances: 1e-6, 1e-6, 1e-5.
            EXPECT(d.acc <= 1e-6,
                   "1 step: |accel - chapter| = %.3g, expected <= 1e-6 (float rounding of "
                   "forces <= 0.175)",
                   d.acc);
            EXPECT(d.vel <= 1e-6,
                   "1 step: |vel - chapter| = %.3g, expected <= 1e-6 (float rounding of "
                   "|v| <= 3)",
                   d.vel);
            EXPECT(d.pos <= 1e-5,
                   "1 step: |pos - chapter| = %.3g, expected <= 1e-5 (ULP of |p| < 128 is "
                   "7.6e-6)",
                   d.pos);
        }
        if (step == 20) {
            // 20 steps: every step adds up to half a position ULP (20 x 3.8e-6
            // = 7.6e-5) and the velocity differences are integrated; close
            // encounters (separation's 1/d, the radius thresholds) amplify
            // them (chaos). Measured: pos 1.0e-4, vel 1.9e-5. Tolerances ten
            // times that: 1e-3 and 2e-4. A formula difference (a weight, 1/d
            // vs 1/d^2, a radius, the order of limit and add) shows at 1e-3..1
            // already in the first step.
            EXPECT(d.vel <= 2e-4, "20 steps: |vel - chapter| = %.3g, expected <= 2e-4", d.vel);
            EXPECT(d.pos <= 1e-3, "20 steps: |pos - chapter| = %.3g, expected <= 1e-3", d.pos);
        }
    }
    EXPECT(neighbours >= 8, "the test flock should be dense (mean neighbours %d, expected >= 8)", neighbours);
    for (int i = 0; i < N; i++)
        EXPECT(fabs(boids[i].position.x) < 1900 && fabs(boids[i].position.y) < 1900,
               "boid %d reached the torus seam: the comparison assumes no wrap", i);
    boids_sim_destroy(s);
}
END_TEST

// ---- the seeds' own rule sets (src/core/rules.c) ------------------------------------

// The tutorial's steps for agent 0 of `ag`, in double, from its text
// (flocking-tutorial.txt): each rule over the agents within the radius (not
// self) - separation within `sep` - divided by the count and normalised;
// separation's vector negated; velocity + a + c + s, normalised, x speed.
static void tutorial_expected(const agent *ag, int n, double radius, double sep, double speed, double out[2]) {
    double a[2] = {0, 0}, c[2] = {0, 0}, s[2] = {0, 0};
    int na = 0, ns = 0;
    for (int j = 1; j < n; j++) {
        double dx = ag[j].x - ag[0].x, dy = ag[j].y - ag[0].y, d = sqrt(dx * dx + dy * dy);
        if (d < radius) {
            a[0] += ag[j].vx, a[1] += ag[j].vy, c[0] += ag[j].x, c[1] += ag[j].y, na++;
        }
        if (d < sep)
            s[0] += dx, s[1] += dy, ns++;
    }
    double r[2] = {0, 0};
    if (na) {
        double la = hypot(a[0] / na, a[1] / na), cx = c[0] / na - ag[0].x, cy = c[1] / na - ag[0].y;
        double lc = hypot(cx, cy);
        r[0] += a[0] / na / la + cx / lc;
        r[1] += a[1] / na / la + cy / lc;
    }
    if (ns) {
        double sx = -s[0] / ns, sy = -s[1] / ns, ls = hypot(sx, sy);
        r[0] += sx / ls;
        r[1] += sy / ls;
    }
    double vx = ag[0].vx + r[0], vy = ag[0].vy + r[1], l = hypot(vx, vy);
    out[0] = vx / l * speed;
    out[1] = vy / l * speed;
}

// FLAME GPU's Circles (BOIDS_RULES_CIRCLES): a neighbour's term sin(-2 pi d
// / r) x off / d and the displacement repulse x sum / count.
START_TEST(circles_by_hand) {
    float t[3];
    // d = 0.5 of r = 2: sin(-2 pi / 4) = -1, / d = -2: (0.5,0,0) x -2 = (-1,0,0), away.
    boids_circles_term((float[3]){0.5f, 0, 0}, 0.5f, 2.0f, t);
    expect_vec3("circles term at r/4", t, -1, 0, 0, 4 * FEPS, "sin(-pi/2) / 0.5 x (0.5,0,0): unit away");
    // d = 1.5: sin(-3 pi / 2) = +1: (0,1.5,0) / 1.5 = (0,1,0), toward.
    boids_circles_term((float[3]){0, 1.5f, 0}, 1.5f, 2.0f, t);
    expect_vec3("circles term at 3r/4", t, 0, 1, 0, 4 * FEPS, "sin(-3pi/2) = 1: unit toward");
    // d = r / 2: sin(-pi) = 0 (float: |sinf(-pi)| < 1e-7): no force.
    boids_circles_term((float[3]){0, 0, 1}, 1.0f, 2.0f, t);
    expect_vec3("circles term at r/2", t, 0, 0, 0, 1e-6, "sin(-pi) = 0: the balance distance");
    // 3D, d = 0.5 along (0.3, 0.4, 0) x 1: (0.3,0.4,0) x -2 = (-0.6,-0.8,0).
    boids_circles_term((float[3]){0.3f, 0.4f, 0}, 0.5f, 2.0f, t);
    expect_vec3("circles term, a diagonal", t, -0.6, -0.8, 0, 4 * FEPS, "(0.3,0.4,0) / 0.5 x -1");
    // Two terms (-1,0,0) + (0,1,0), count 2, repulse 0.05: (-0.025, 0.025, 0).
    boids_circles_displacement((float[3]){-1, 1, 0}, 2, 0.05f, t);
    expect_vec3("circles displacement", t, -0.025, 0.025, 0, 4 * FEPS, "0.05 x (-1,1,0) / 2");
    boids_circles_displacement((float[3]){-1, 1, 0}, 2, 0.0f, t);
    expect_vec3("circles displacement, default repulse", t, -0.025, 0.025, 0, 4 * FEPS, "repulse 0: 0.05");
    boids_circles_displacement((float[3]){3, 4, 0}, 0, 0.05f, t);
    expect_zero("circles displacement, no neighbours", t, "count 0: the zero vector");
    // The portable sine: exact at the quarter turns, and within 4 ULP of
    // 1 (2^-21) of sin(2 pi t) in double over [0, 1].
    ck_assert_msg(boids_sin_turn(0.0f) == 0.0f && boids_sin_turn(0.5f) == 0.0f && boids_sin_turn(1.0f) == 0.0f,
                  "sin_turn(0), (1/2), (1): 0 exactly (the folds are exact)");
    ck_assert_msg(fabsf(boids_sin_turn(0.25f) - 1.0f) <= FEPS && fabsf(boids_sin_turn(0.75f) + 1.0f) <= FEPS,
                  "sin_turn(1/4) = 1, (3/4) = -1: got %.9g, %.9g", (double)boids_sin_turn(0.25f),
                  (double)boids_sin_turn(0.75f));
    double worst = 0;
    for (int i = 0; i <= 100000; i++) {
        float x = (float)i / 100000.0f;
        worst = fmax(worst, fabs((double)boids_sin_turn(x) - sin(6.283185307179586 * (double)x)));
    }
    ck_assert_msg(worst <= 4.0 * 1.1920929e-7 / 2.0, "sin_turn off sin(2 pi t) by %.3g (allowed 4 ULP of 1)", worst);
}
END_TEST

// Two agents 0.5 apart in 3D under circles (r = 2, repulse 0.05): each has
// the other as its one neighbour, term -1 along the offset, so each moves
// 0.05 away: 0.6 apart after one step, velocities (-+0.05, 0, 0).
START_TEST(circles_in_sim) {
    boids_params p;
    small_world(&p, 3, BOIDS_BIT(BOIDS_BI_SEPARATION));
    p.group[0].rules = BOIDS_RULES_CIRCLES;
    p.group[0].separation = 2.0f;
    p.group[0].radius = 2.0f;
    p.group[0].repulse = 0.05f;
    agent a[2] = {{10, 10, 10, 0, 0, 0, 0}, {10.5f, 10, 10, 0, 0, 0, 0}};
    boids_sim *s = sim_with(&p, a, 2);
    boids_sim_step(s);
    const float *p0 = pos_of(s, 0), *p1 = pos_of(s, 1), *v0 = vel_of(s, 0);
    EXPECT(fabs(p0[0] - 9.95) < 1e-5 && fabs(p1[0] - 10.55) < 1e-5, "x after one step: %g, %g (expected 9.95, 10.55)",
           (double)p0[0], (double)p1[0]);
    EXPECT(fabs(v0[0] + 0.05) < 1e-6 && v0[1] == 0.0f && v0[2] == 0.0f,
           "agent 0's velocity (%g, %g, %g), expected (-0.05, 0, 0)", (double)v0[0], (double)v0[1], (double)v0[2]);
    // Circles is the separation rule alone.
    boids_params q;
    small_world(&q, 3, BOIDS_B_FLOCKING);
    q.group[0].rules = BOIDS_RULES_CIRCLES;
    char what[256];
    EXPECT(boids_params_finalize(&q, what, sizeof what) == BOIDS_ERR_PARAM && strstr(what, "separation alone"),
           "rules circles with flocking: refused (%s)", what);
    boids_sim_destroy(s);
}
END_TEST

START_TEST(tutorial_by_hand) {
    float f[3];
    // Each resultant is a unit vector; the count only scales before the
    // normalisation; no neighbours: the zero vector.
    boids_tutorial_alignment((float[3]){3, 4, 0}, 2, f);
    expect_vec3("tutorial alignment", f, 0.6, 0.8, 0, 2 * FEPS, "normalise((3,4)) = (0.6, 0.8)");
    boids_tutorial_cohesion((float[3]){0, -5, 0}, 1, f);
    expect_vec3("tutorial cohesion", f, 0, -1, 0, 2 * FEPS, "normalise(centroid - position (0,-5))");
    boids_tutorial_separation((float[3]){6, 8, 0}, 3, f);
    expect_vec3("tutorial separation", f, -0.6, -0.8, 0, 2 * FEPS, "normalise(-(6,8)): negated, no 1/d");
    boids_tutorial_alignment((float[3]){3, 4, 0}, 0, f);
    expect_zero("tutorial alignment, no neighbours", f, "the tutorial's zero vector");
    boids_tutorial_separation((float[3]){3, 4, 0}, 0, f);
    expect_zero("tutorial separation, no neighbours", f, "the tutorial's zero vector");
    // velocity (3,0) + resultants (0,3) = (3,3), normalised x 3 = (2.1213, 2.1213).
    boids_tutorial_velocity((float[3]){3, 0, 0}, (float[3]){0, 3, 0}, 1.0f, 3.0f, f);
    expect_vec3("tutorial velocity", f, 3 / sqrt(2.0), 3 / sqrt(2.0), 0, 4 * FEPS, "normalise((3,3)) x 3");
    // Slow or fast before, the speed after is the agent's speed.
    boids_tutorial_velocity((float[3]){0.5f, 0, 0}, (float[3]){0, 0, 0}, 1.0f, 3.0f, f);
    expect_vec3("tutorial velocity, constant speed", f, 3, 0, 0, 4 * FEPS, "(0.5,0) rescaled to speed 3");
    // v + a = 0 keeps the old direction.
    boids_tutorial_velocity((float[3]){0, 2, 0}, (float[3]){0, -2, 0}, 1.0f, 3.0f, f);
    expect_vec3("tutorial velocity, zero sum", f, 0, 3, 0, 4 * FEPS, "(0,0): the old heading (0,1) x 3");

    // A step in a simulation: agent 0 at the origin moving (3,0); B (10,0)
    // and C (0,20) within separation 25, D (-40,0) only within radius 50.
    // By hand: alignment mean ((0,3)+(0,3)+(0,-3))/3 -> (0,1); cohesion
    // centroid - p = (-10, 6.67) -> (-0.832, 0.555); separation -(5,10) ->
    // (-0.447, -0.894); v = (3,0) + sum = (1.721, 0.660) -> x 3/|v| =
    // (2.8009, 1.0747). The chapter's 1/d separation would give -(0.894,
    // 0.447) instead: (2.48, 1.83).
    boids_params p;
    small_world(&p, 2, BOIDS_B_FLOCKING);
    p.group[0].rules = BOIDS_RULES_TUTORIAL;
    p.group[0].radius = 50.0f;
    p.group[0].separation = 25.0f;
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++)
        *boids_weight_ref(&p.group[0], b) = 1.0f;
    agent ag[] = {{0, 0, 0, 3, 0, 0, 0}, {10, 0, 0, 0, 3, 0, 0}, {0, 20, 0, 0, 3, 0, 0}, {-40, 0, 0, 0, -3, 0, 0}};
    boids_sim *sm = sim_with(&p, ag, 4);
    boids_sim_step(sm);
    double ex[2];
    tutorial_expected(ag, 4, 50, 25, 3, ex);
    EXPECT(fabs(ex[0] - 2.8009) < 1e-3 && fabs(ex[1] - 1.0747) < 1e-3, "the transcription gives (%g, %g)", ex[0],
           ex[1]);
    expect_vec3("tutorial step: velocity of agent 0", vel_of(sm, 0), ex[0], ex[1], 0, 1e-5,
                "flocking-tutorial.txt's three rules added to (3,0), rescaled to 3");
    expect_vec3("tutorial step: position of agent 0", pos_of(sm, 0), ex[0], ex[1], 0, 1e-5, "p + v dt, dt 1");
    EXPECT(fabs(norm3(vel_of(sm, 3)) - 3.0) < 1e-5, "tutorial: constant speed 3, agent 3 has %g", norm3(vel_of(sm, 3)));
    boids_sim_destroy(sm);
    // Separation = radius (the tutorial's one neighbourhood): separation is
    // exactly minus cohesion, so only alignment turns agent 0: (3,0) + (0,1)
    // -> (3,1) x 3 / sqrt(10).
    p.group[0].separation = 50.0f;
    sm = sim_with(&p, ag, 4);
    boids_sim_step(sm);
    expect_vec3("tutorial, separation = radius", vel_of(sm, 0), 9 / sqrt(10.0), 3 / sqrt(10.0), 0, 1e-5,
                "cohesion and separation cancel: (3,1) rescaled to 3");
    boids_sim_destroy(sm);
}
END_TEST

START_TEST(heading_by_hand) {
    const float t = 0.1f;
    // The post's bug: from +3.0 toward -3.0 the short way is through pi:
    // increase (+turn), not decrease (its raw comparison +3 > -3 gave -turn).
    float target[3] = {cosf(-3.0f), sinf(-3.0f), 0};
    EXPECT(boids_heading_turn(3.0f, target, t) == t, "heading 3.0 toward -3.0: turn %g, expected +%g (through pi)",
           (double)boids_heading_turn(3.0f, target, t), (double)t);
    float west_back[3] = {cosf(3.0f), sinf(3.0f), 0};
    EXPECT(boids_heading_turn(-3.0f, west_back, t) == -t, "heading -3.0 toward +3.0: expected -%g", (double)t);
    EXPECT(boids_heading_turn(0.0f, (float[3]){0, 1, 0}, t) == t, "east toward south (+pi/2): +turn");
    EXPECT(boids_heading_turn(0.0f, (float[3]){0, -1, 0}, t) == -t, "east toward north (-pi/2): -turn");
    EXPECT(boids_heading_turn(0.0f, (float[3]){0, 0, 0}, t) == 0.0f, "no direction: no turn");
    EXPECT(boids_heading_turn(0.0f, (float[3]){5, 0, 0}, t) == 0.0f, "already on the heading: no turn");
    EXPECT(boids_heading_turn(0.0f, (float[3]){-1, 0, 0}, t) == t, "straight behind: diff pi, in (-pi, pi]: +turn");
    // Averaged as unit vectors, +3 and -3 point west (pi), not east (0):
    // from heading 2.5 that is a turn toward +pi (+turn).
    float avg[3] = {(cosf(3.0f) + cosf(-3.0f)) / 2, (sinf(3.0f) + sinf(-3.0f)) / 2, 0};
    EXPECT(avg[0] < -0.98f && fabsf(avg[1]) < 1e-6f, "mean of headings +3, -3 = (%g, %g), expected ~(-0.99, 0)",
           (double)avg[0], (double)avg[1]);
    EXPECT(boids_heading_turn(2.5f, avg, t) == t, "heading 2.5 toward the mean of +3 and -3 (pi): +turn");
    // The three rules: alignment toward (0,1), separation away from (0,1),
    // cohesion toward (0,-1); heading 0 (east).
    uint32_t all = BOIDS_B_FLOCKING;
    float up[3] = {0, 1, 0}, down[3] = {0, -1, 0};
    EXPECT(boids_heading_rules(0, BOIDS_BIT(BOIDS_BI_ALIGNMENT), up, up, down, t) == t, "alignment alone: +t");
    EXPECT(boids_heading_rules(0, BOIDS_BIT(BOIDS_BI_SEPARATION), up, up, down, t) == -t,
           "separation alone: away from (0,1) = toward (0,-1): -t");
    EXPECT(boids_heading_rules(0, BOIDS_BIT(BOIDS_BI_COHESION), up, up, down, t) == -t, "cohesion alone: -t");
    EXPECT(boids_heading_rules(0, all, up, up, down, t) == -t, "all three: +t - t - t = -t");
    EXPECT(boids_heading_rules(0, 0, up, up, down, t) == 0, "no rule on: no turn");
    // Velocity: heading 0 turned by 0.1 at speed 2.
    float v[3];
    boids_heading_velocity((float[3]){1, 0, 0}, 0.1f, 2.0f, v);
    expect_vec3("heading velocity", v, 2 * cos(0.1), 2 * sin(0.1), 0, 4 * FEPS, "speed 2 at heading 0.1");
    // Across the seam of the angle: heading 3.1 + 0.1 wraps to 3.2 - 2pi.
    boids_heading_velocity((float[3]){cosf(3.1f), sinf(3.1f), 0}, 0.1f, 1.0f, v);
    expect_vec3("heading velocity through pi", v, cos(3.2), sin(3.2), 0, 8 * FEPS, "heading 3.2 = -3.083");
}
END_TEST

// The survey of a 6 x 6 grid as a distributed run's ranks make it (src/mpi):
// four boxes cut at x = y = cut, each surveyed alone (boids_survey_box), the
// best of them (most agents, then the lowest cell) is boids_survey's.
static void survey_split(const boids_world_params *w, const uint32_t *start, uint32_t cell, uint32_t n,
                         const char *what) {
    for (uint32_t cut = 1; cut < 6; cut++) {
        uint64_t best = 0;
        for (uint32_t b = 0; b < 4; b++) {
            uint32_t lo[3] = {b & 1 ? cut : 0, b & 2 ? cut : 0, 0}, hi[3] = {b & 1 ? 6 : cut, b & 2 ? 6 : cut, 1};
            uint32_t k, c = boids_survey_box(w, start, lo, hi, &k);
            uint64_t key = (uint64_t)k << 32 | (UINT32_MAX - c);
            best = key > best ? key : best;
        }
        uint32_t bc = UINT32_MAX - (uint32_t)best, bn = (uint32_t)(best >> 32);
        EXPECT(bc == cell && bn == n, "%s, four boxes cut at %u: cell %u with %u, expected boids_survey's %u with %u",
               what, cut, bc, bn, cell, n);
    }
}

// The survey: a 6 x 6 grid of cells with agents in cells (1,1) and (5,5),
// 3 each, and (2,2), (4,4), 3 each.
START_TEST(survey_by_hand) {
    boids_params p;
    small_world(&p, 2, BOIDS_B_FLOCKING);
    p.group[0].radius = 160.0f; // 1000 / 160 -> 6 cells of 166.7 a side
    p.group[0].separation = 30.0f;
    boids_result r = boids_params_finalize(&p, NULL, 0);
    EXPECT(r == BOIDS_OK && p.world.cells[0] == 6 && p.world.cells[1] == 6, "a 6 x 6 grid (got %u x %u)",
           p.world.cells[0], p.world.cells[1]);
    uint32_t counts[36] = {0}, start[37];
    counts[1 * 6 + 1] = 3;
    counts[5 * 6 + 5] = 3;
    start[0] = 0;
    for (int c = 0; c < 36; c++)
        start[c + 1] = start[c] + counts[c];
    uint32_t n = 0;
    // On the torus only cell (0,0)'s block holds both (1,1) and (5,5): 6.
    uint32_t cell = boids_survey(&p.world, start, &n);
    EXPECT(cell == 0 && n == 6, "torus: densest block at cell %u with %u, expected cell 0 with 6", cell, n);
    counts[2 * 6 + 2] = 3;
    counts[4 * 6 + 4] = 3;
    for (int c = 0; c < 36; c++)
        start[c + 1] = start[c] + counts[c];
    cell = boids_survey(&p.world, start, &n);
    EXPECT(cell == 0 && n == 6,
           "torus, a tie of cells 0, 7, 14, 21, 28 (6 each): cell %u with %u, expected the lowest, 0", cell, n);
    survey_split(&p.world, start, 0, 6, "torus");
    // One box alone: (3..5, 3..5)'s first block of 6 is (3,3)'s ((2,2) and (4,4)).
    const uint32_t lo[3] = {3, 3, 0}, hi[3] = {6, 6, 1};
    cell = boids_survey_box(&p.world, start, lo, hi, &n);
    EXPECT(cell == 21 && n == 6, "torus, the box (3..5, 3..5): cell %u with %u, expected cell 21 (3,3) with 6", cell,
           n);
    // Walls: no wrap, so cell (0,0)'s block holds only (1,1): 3; the first
    // block of 6 is (1,1)'s ((1,1) and (2,2)): cell 7.
    p.world.boundary = BOIDS_BOUNDARY_WALLS;
    cell = boids_survey(&p.world, start, &n);
    EXPECT(cell == 7 && n == 6, "walls: cell %u with %u, expected cell 7 (1,1) with 6", cell, n);
    survey_split(&p.world, start, 7, 6, "walls");
    float c0[3];
    boids_survey_target(&p.world, 21, c0);
    expect_vec3("the centre of cell (3,3)", c0, -500 + 3.5 * 1000 / 6.0, -500 + 3.5 * 1000 / 6.0, 0, 1e-4,
                "min + (3 + 0.5) x cell");
}
END_TEST

// Heading boids in a simulation: A at the origin heading east (speed 2),
// B at (20, 0) heading south (+pi/2 on the canvas), C at (60, 0) heading
// south; radius 100, separation 30, turn 0.05, a 1000 x 1000 torus from
// -500: 10 x 10 cells of 100, all three in cell (5,5), so every block
// around it holds 3 and the lowest, cell (4,4) = 44, centred at (-50,-50),
// wins. For A: alignment toward (0,1): +0.05; separation (B only) away from
// (0,1): -0.05; cohesion toward (-50,-50) (-3pi/4): -0.05.
static void heading_sim(uint32_t behaviors, float heading_a, float heading_b, double expected, const char *why) {
    boids_params p;
    small_world(&p, 2, behaviors);
    p.group[0].rules = BOIDS_RULES_HEADING;
    p.group[0].radius = 100.0f;
    p.group[0].separation = 30.0f;
    p.group[0].maxspeed = 2.0f;
    p.group[0].turn = 0.05f;
    agent ag[] = {{0, 0, 0, 2 * cosf(heading_a), 2 * sinf(heading_a), 0, 0},
                  {20, 0, 0, 2 * cosf(heading_b), 2 * sinf(heading_b), 0, 0},
                  {60, 0, 0, 2 * cosf(heading_b), 2 * sinf(heading_b), 0, 0}};
    boids_sim *sm = sim_with(&p, ag, 3);
    boids_sim_step(sm);
    if (behaviors & BOIDS_BIT(BOIDS_BI_COHESION))
        EXPECT(sm->survey[0] == 44 && sm->survey[1] == 3, "survey: cell %u with %u, expected 44 with 3", sm->survey[0],
               sm->survey[1]);
    const float *v = vel_of(sm, 0);
    double h = atan2(v[1], v[0]);
    double d = remainder(h - expected, 2 * PI);
    EXPECT(fabs(d) < 1e-5, "heading of A after one step %.7g, expected %.7g: %s", h, expected, why);
    EXPECT(fabs(norm3(v) - 2.0) < 1e-5, "constant speed 2, got %g", norm3(v));
    const float *q = pos_of(sm, 0);
    EXPECT(fabs(q[0] - 2 * cos(expected)) < 1e-5 && fabs(q[1] - 2 * sin(expected)) < 1e-5,
           "A moved to (%g, %g), expected 2 (cos, sin) of its new heading", (double)q[0], (double)q[1]);
    boids_sim_destroy(sm);
}

START_TEST(heading_in_sim) {
    double h = PI / 2;
    heading_sim(BOIDS_BIT(BOIDS_BI_ALIGNMENT), 0, (float)h, 0.05, "rule 1 alone: toward south, +0.05");
    heading_sim(BOIDS_BIT(BOIDS_BI_SEPARATION), 0, (float)h, -0.05, "rule 2 alone: away from south, -0.05");
    heading_sim(BOIDS_BIT(BOIDS_BI_COHESION), 0, (float)h, -0.05, "rule 3 alone: toward (-50,-50), -0.05");
    heading_sim(BOIDS_B_FLOCKING, 0, (float)h, -0.05, "all three: +0.05 - 0.05 - 0.05");
    heading_sim(0, 0, (float)h, 0, "no rule: straight on");
    // The post's bug: A heading +3.0, its neighbours -3.0: alignment turns it
    // toward pi (+0.05, to 3.05), not back through 0.
    heading_sim(BOIDS_BIT(BOIDS_BI_ALIGNMENT), 3.0f, -3.0f, 3.05, "heading +3.0 aligning with -3.0 goes through pi");
}
END_TEST

static Suite *behaviors_suite(void) {
    Suite *s = suite_create("behaviors");
    struct {
        const char *name;
        const TTest *tests[8];
    } cases[] = {
        {"seek", {seek_by_hand, seek_in_sim}},
        {"flee", {flee_by_hand}},
        {"arrive", {arrive_by_hand}},
        {"pursue", {pursue_by_hand}},
        {"evade", {evade_by_hand}},
        {"wander", {wander_by_hand, wander_in_sim}},
        {"walls", {walls_by_hand, walls_in_sim, walls_book_corner_by_hand}},
        {"speed", {speed_by_hand, speed_in_sim}},
        {"queue", {queue_by_hand, queue_in_sim}},
        {"avoid", {avoid_by_hand, avoid_in_sim}},
        {"stay", {stay_by_hand, stay_across_seam, stay_in_sim}},
        {"hide", {hide_by_hand, hide_in_sim}},
        {"offset",
         {offset_frame_by_hand, formation_place_by_hand, offset_by_hand, offset_in_sim, offset_formation_in_sim}},
        {"follow", {follow_by_hand, follow_in_sim}},
        {"interpose", {interpose_by_hand, interpose_in_sim}},
        {"feelers", {feelers_by_hand, feelers_in_sim}},
        {"flow", {flow_by_hand, flow_in_sim}},
        {"path",
         {path_by_hand, path_across_seam, path_normal_point_rules, path_shifts_by_hand, path_long_segments,
          path_images_brute_force, path_corner_tie, path_options_by_hand}},
        {"path closed end", {path_end_closed_next_segment}},
        {"obstacles", {obstacles_by_hand}},
        {"separation", {separation_by_hand, separation_in_sim}},
        {"alignment", {alignment_by_hand}},
        {"cohesion", {cohesion_by_hand}},
        {"view", {view_by_hand}},
        {"escape", {escape_by_hand}},
        {"hunt", {hunt_in_sim}},
        {"angle", {angle_by_hand}},
        {"turn_limit", {turn_limit_by_hand}},
        {"tutorial", {tutorial_by_hand}},
        {"circles", {circles_by_hand, circles_in_sim}},
        {"heading", {heading_by_hand, survey_by_hand, heading_in_sim}},
        {"integrate", {integrate_by_hand}},
        {"boundary", {boundary_by_hand}},
        {"rng", {rng_by_hand}},
        {"fixed_point", {fixed_point_by_hand}},
        {"combine", {combine_weighted_and_priority, accumulate_by_hand, combine_truncated}},
        {"rule_neighborhoods", {rule_radius_by_hand, rule_cone_by_hand}},
        {"topological", {topological_by_hand, topological_sparse_same_hash}},
        {"flocking", {chapter_flocking}},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_set_timeout(tc, 120);
        for (int t = 0; t < 8 && cases[c].tests[t]; t++)
            tcase_add_test(tc, cases[c].tests[t]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void) {
    return boids_test_run_suite(behaviors_suite());
}
