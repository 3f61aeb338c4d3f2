// tests/test_bodies.c: procedural bodies (src/core/bodies.c,
// procedural-animation-chains.txt): the distance constraint and its min-only
// mode, Chain.resolve from any joint, the wrapped angle difference and
// Snake2's angle constraint (also across the +-pi seam and in 3D), the
// outline of a straight snake by hand, the "bad arguments" checks, and the
// bodies stage of a simulation (joint 0 at the head, segment lengths, the
// torus seam, thread independence).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_run.h"
#include "boids/behaviors.h"
#include "boids/core.h"

// Check's ck_assert_msg costs a runner write per passing call; EXPECT only on failure.
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

#define PI_F BOIDS_PI
#define REL_TOL 1e-5f // the bound on a resolved segment's length

// ---- helpers ------------------------------------------------------------------

static uint32_t rng_state = 12345u;
// Uniform in [lo, hi) from a small LCG (tests only; reproducible).
static float uniform(float lo, float hi) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

static float seg_length(const boids_world_params *w, const float a[4], const float b[4]) {
    float d[3];
    if (w)
        boids_world_delta(w, a, b, d);
    else
        for (int k = 0; k < 3; k++)
            d[k] = b[k] - a[k];
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

// The notebook's first chain: 7 joints from (50, 200), 50 apart.
static void notebook_chain(float (*j)[4], float *lengths) {
    for (int i = 0; i < 7; i++) {
        j[i][0] = 50.0f + 50.0f * (float)i;
        j[i][1] = 200.0f;
        j[i][2] = j[i][3] = 0.0f;
        if (i < 6)
            lengths[i] = 50.0f;
    }
}

static boids_world_params torus(float size) {
    boids_world_params w;
    memset(&w, 0, sizeof w);
    w.dim = 2;
    w.boundary = BOIDS_BOUNDARY_WRAP;
    w.size[0] = w.size[1] = size;
    return w;
}

// ---- distance constraint ----------------------------------------------------------

START_TEST(distance_constraint) {
    float anchor[3] = {0.0f, 0.0f, 0.0f}, t[3] = {3.0f, 4.0f, 0.0f};
    boids_distance_constraint(NULL, anchor, t, 10.0f, false);
    ck_assert_float_eq_tol(t[0], 6.0f, 1e-6f);
    ck_assert_float_eq_tol(t[1], 8.0f, 1e-6f);
    // Pushed out as well as pulled in.
    float far[3] = {30.0f, 40.0f, 0.0f};
    boids_distance_constraint(NULL, anchor, far, 10.0f, false);
    ck_assert_float_eq_tol(far[0], 6.0f, 1e-6f);
    ck_assert_float_eq_tol(far[1], 8.0f, 1e-6f);
    // 3D: onto the sphere.
    float a3[3] = {1.0f, 2.0f, 3.0f}, t3[3] = {1.0f, 2.0f, 13.0f};
    boids_distance_constraint(NULL, a3, t3, 2.5f, false);
    ck_assert_float_eq_tol(t3[2], 5.5f, 1e-6f);
    ck_assert_float_eq(t3[0], 1.0f);
}
END_TEST

START_TEST(distance_constraint_min_only) {
    float anchor[3] = {0.0f, 0.0f, 0.0f};
    float near[3] = {3.0f, 4.0f, 0.0f};
    boids_distance_constraint(NULL, anchor, near, 10.0f, true);
    ck_assert_float_eq(near[0], 3.0f); // closer than 10: left exactly where it was
    ck_assert_float_eq(near[1], 4.0f);
    float far[3] = {30.0f, 40.0f, 0.0f};
    boids_distance_constraint(NULL, anchor, far, 10.0f, true);
    ck_assert_float_eq_tol(far[0], 6.0f, 1e-6f);
    ck_assert_float_eq_tol(far[1], 8.0f, 1e-6f);
}
END_TEST

START_TEST(distance_constraint_torus) {
    // Anchor just right of the seam, target just left of it: the body's
    // joint goes beside the anchor (x = -4), not across the world.
    boids_world_params w = torus(100.0f);
    float anchor[3] = {1.0f, 50.0f, 0.0f}, t[3] = {99.0f, 50.0f, 0.0f};
    boids_distance_constraint(&w, anchor, t, 5.0f, false);
    ck_assert_float_eq_tol(t[0], -4.0f, 1e-5f);
    ck_assert_float_eq_tol(t[1], 50.0f, 1e-5f);
    float m[3] = {99.0f, 50.0f, 0.0f};
    boids_distance_constraint(&w, anchor, m, 5.0f, true);
    ck_assert_float_eq_tol(m[0], -1.0f, 1e-5f); // min-only: short, kept, but its image beside the anchor
}
END_TEST

// ---- chains -----------------------------------------------------------------------

START_TEST(chain_resolve_lengths) {
    // Random chains, random lengths, resolved from every joint: every segment
    // has its length within 1e-5 relative.
    float j[BOIDS_MAX_JOINTS][4], lengths[BOIDS_MAX_JOINTS];
    for (int trial = 0; trial < 200; trial++) {
        uint32_t n = 2 + (uint32_t)trial % 31;
        for (uint32_t i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++)
                j[i][k] = uniform(-300.0f, 300.0f) * (k == 2 && trial % 2 ? 0.0f : 1.0f);
            j[i][3] = 0.0f;
            lengths[i] = uniform(1.0f, 60.0f);
        }
        uint32_t from = (uint32_t)trial % n;
        boids_chain_resolve(NULL, j, lengths, n, from, false);
        for (uint32_t i = 0; i + 1 < n; i++) {
            float d = seg_length(NULL, j[i], j[i + 1]);
            EXPECT(fabsf(d - lengths[i]) <= REL_TOL * lengths[i],
                   "trial %d (n %u, from %u): segment %u is %.9g long, expected %.9g within 1e-5 relative", trial, n,
                   from, i, (double)d, (double)lengths[i]);
        }
    }
}
END_TEST

START_TEST(chain_resolve_min_only) {
    float j[BOIDS_MAX_JOINTS][4], before[BOIDS_MAX_JOINTS][4], lengths[BOIDS_MAX_JOINTS];
    int kept = 0, pulled = 0;
    for (int trial = 0; trial < 100; trial++) {
        uint32_t n = 16;
        for (uint32_t i = 0; i < n; i++) {
            j[i][0] = uniform(-100.0f, 100.0f);
            j[i][1] = uniform(-100.0f, 100.0f);
            j[i][2] = j[i][3] = 0.0f;
            lengths[i] = uniform(5.0f, 120.0f);
        }
        memcpy(before, j, sizeof j);
        boids_chain_resolve(NULL, j, lengths, n, 0, true);
        for (uint32_t i = 0; i + 1 < n; i++) {
            float d = seg_length(NULL, j[i], j[i + 1]);
            EXPECT(d <= lengths[i] * (1.0f + REL_TOL), "trial %d: min-only segment %u is %.9g, longer than %.9g", trial,
                   i, (double)d, (double)lengths[i]);
            if (d < lengths[i] * (1.0f - REL_TOL))
                kept++;
            else
                pulled++;
        }
        // Joint 0 is the anchor of the walk: it never moves.
        EXPECT(j[0][0] == before[0][0] && j[0][1] == before[0][1], "trial %d: joint 0 moved", trial);
    }
    ck_assert_msg(kept > 100 && pulled > 100, "both cases exercised: %d short segments kept, %d pulled", kept, pulled);
}
END_TEST

START_TEST(chain_drag_middle) {
    // The notebook's drag: joint 3 to the mouse, resolve(3): both halves follow.
    float j[7][4], before[7][4], lengths[6];
    notebook_chain(j, lengths);
    memcpy(before, j, sizeof j);
    j[3][0] = 210.0f;
    j[3][1] = 320.0f;
    boids_chain_resolve(NULL, j, lengths, 7, 3, false);
    ck_assert_float_eq(j[3][0], 210.0f);
    ck_assert_float_eq(j[3][1], 320.0f);
    for (int i = 0; i < 7; i++)
        if (i != 3)
            ck_assert_msg(j[i][1] > before[i][1] + 1.0f, "joint %d stayed at y %g: both halves must follow the drag", i,
                          (double)j[i][1]);
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq_tol(seg_length(NULL, j[i], j[i + 1]), 50.0f, 50.0f * REL_TOL);
    // Joints nearer the dragged one moved more (the chain hangs from it).
    ck_assert_float_gt(j[2][1] - before[2][1], j[0][1] - before[0][1]);
    ck_assert_float_gt(j[4][1] - before[4][1], j[6][1] - before[6][1]);
    // Dragging the last joint pulls the whole chain after it.
    notebook_chain(j, lengths);
    j[6][0] = 600.0f;
    boids_chain_resolve(NULL, j, lengths, 7, 6, false);
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq_tol(j[i][0], 600.0f - 50.0f * (float)(6 - i), 1e-3f);
}
END_TEST

// ---- angles -------------------------------------------------------------------------

START_TEST(mod_angle_and_diff) {
    ck_assert_float_eq_tol(boids_mod_angle(-0.5f), 2.0f * PI_F - 0.5f, 1e-6f);
    ck_assert_float_eq_tol(boids_mod_angle(7.0f), 7.0f - 2.0f * PI_F, 1e-6f);
    ck_assert_float_eq(boids_mod_angle(0.0f), 0.0f);
    float big = boids_mod_angle(1e6f);
    ck_assert(big >= 0.0f && big < 2.0f * PI_F);
    // angleDiff(a1, a2): how far a2 is counter-clockwise of a1, the short way.
    ck_assert_float_eq_tol(boids_angle_diff_mod(0.1f, 0.3f), 0.2f, 1e-6f);
    ck_assert_float_eq_tol(boids_angle_diff_mod(3.0f, -3.0f), 2.0f * PI_F - 6.0f, 1e-5f); // through pi: +0.283
    ck_assert_float_eq_tol(boids_angle_diff_mod(-3.0f, 3.0f), 6.0f - 2.0f * PI_F, 1e-5f);
    float d = boids_angle_diff_mod(0.0f, PI_F);
    ck_assert(d > -PI_F && d <= PI_F);
}
END_TEST

START_TEST(constrain_angle_seam) {
    // Within the limit across 0 / 2pi: kept (as modAngle).
    ck_assert_float_eq_tol(boids_constrain_angle(0.1f, 2.0f * PI_F - 0.1f, 0.3f), 0.1f, 1e-6f);
    // Beyond it: clamped to reference + limit, on the short side.
    ck_assert_float_eq_tol(boids_constrain_angle(0.5f, 2.0f * PI_F - 0.1f, 0.3f), 0.2f, 1e-5f);
    ck_assert_float_eq_tol(boids_constrain_angle(2.0f * PI_F - 0.5f, 0.1f, 0.3f), 2.0f * PI_F - 0.2f, 1e-5f);
    // Across +-pi: 3.0 vs -3.0 differ by 0.283 (within 0.3), not 6.
    ck_assert_float_eq_tol(boids_constrain_angle(-3.0f, 3.0f, 0.3f), 2.0f * PI_F - 3.0f, 1e-5f);
    ck_assert_float_eq_tol(boids_constrain_angle(-2.8f, 3.0f, 0.3f), 3.3f, 1e-5f);
}
END_TEST

// Largest wrapped difference between consecutive joint angles (w lanes).
static float max_bend(const float (*j)[4], uint32_t n) {
    float worst = 0.0f;
    for (uint32_t i = 1; i < n; i++)
        worst = fmaxf(worst, fabsf(boids_angle_diff_mod(j[i][3], j[i - 1][3])));
    return worst;
}

START_TEST(snake_angle_limit) {
    // Random joints, random facings (many near +-pi): after Snake2.resolve
    // every joint's angle is within the limit of its predecessor's, each
    // joint lies `length` behind the previous one along its own angle.
    float j[BOIDS_MAX_JOINTS][4], lengths[BOIDS_MAX_JOINTS];
    const float limit = PI_F / 8.0f;
    for (int trial = 0; trial < 300; trial++) {
        uint32_t n = 2 + (uint32_t)trial % 31;
        for (uint32_t i = 0; i < n; i++) {
            j[i][0] = uniform(-200.0f, 200.0f);
            j[i][1] = uniform(-200.0f, 200.0f);
            j[i][2] = j[i][3] = 0.0f;
            lengths[i] = 16.0f;
        }
        float facing = trial % 3 == 0 ? uniform(PI_F - 0.2f, PI_F + 0.2f) : uniform(-PI_F, PI_F);
        if (trial % 3 == 0)
            facing = boids_angle_wrap(facing); // near the seam, on either side
        float none[3] = {0.0f, 0.0f, 0.0f};
        boids_snake_resolve(NULL, j, lengths, n, facing, none, limit, false, 2);
        ck_assert_float_eq(j[0][3], facing);
        float bend = max_bend((const float(*)[4])j, n);
        EXPECT(bend <= limit + 1e-5f, "trial %d: a joint bends %.7g from its predecessor, more than pi/8", trial,
               (double)bend);
        for (uint32_t i = 1; i < n; i++) {
            float d = seg_length(NULL, j[i - 1], j[i]);
            EXPECT(fabsf(d - 16.0f) <= 16.0f * REL_TOL, "trial %d: segment %u is %.9g", trial, i - 1, (double)d);
            float back = atan2f(j[i - 1][1] - j[i][1], j[i - 1][0] - j[i][0]);
            EXPECT(fabsf(boids_angle_diff_mod(back, j[i][3])) <= 1e-4f, "trial %d: joint %u off its angle", trial, i);
        }
    }
}
END_TEST

START_TEST(snake_angle_limit_3d) {
    float j[BOIDS_MAX_JOINTS][4], lengths[BOIDS_MAX_JOINTS];
    const float limit = PI_F / 8.0f, cos_lim = cosf(limit);
    for (int trial = 0; trial < 200; trial++) {
        uint32_t n = 2 + (uint32_t)trial % 31;
        for (uint32_t i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++)
                j[i][k] = uniform(-100.0f, 100.0f);
            j[i][3] = 0.0f;
            lengths[i] = 8.0f;
        }
        float f[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
        float m = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        for (int k = 0; k < 3; k++)
            f[k] /= m;
        if (trial == 0) // straight back from the facing: the degenerate bend
            for (uint32_t i = 0; i < n; i++)
                for (int k = 0; k < 3; k++)
                    j[i][k] = f[k] * 8.0f * (float)i;
        boids_snake_resolve(NULL, j, lengths, n, 0.0f, f, limit, false, 3);
        float prev[3] = {f[0], f[1], f[2]};
        for (uint32_t i = 1; i < n; i++) {
            float u[3];
            for (int k = 0; k < 3; k++)
                u[k] = (j[i - 1][k] - j[i][k]) / 8.0f;
            float len = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            EXPECT(fabsf(len - 1.0f) <= 4.0f * REL_TOL, "trial %d: segment %u is %.9g long", trial, i - 1,
                   (double)(len * 8.0f));
            float c = (u[0] * prev[0] + u[1] * prev[1] + u[2] * prev[2]) / len;
            EXPECT(c >= cos_lim - 1e-5f, "trial %d: joint %u bends acos(%.7g), more than pi/8", trial, i, (double)c);
            for (int k = 0; k < 3; k++)
                prev[k] = u[k] / len;
        }
    }
}
END_TEST

START_TEST(snake_angles_headings) {
    // Snake.resolve's angle update: joint i's angle = heading of joint i-1 - joint i.
    float j[3][4] = {{0, 0, 0, 0}, {-10, 0, 0, 0}, {-10, -10, 0, 0}};
    boids_snake_angles(NULL, j, 3, 1.0f);
    ck_assert_float_eq(j[0][3], 1.0f);
    ck_assert_float_eq_tol(j[1][3], 0.0f, 1e-7f);
    ck_assert_float_eq_tol(j[2][3], PI_F / 2.0f, 1e-6f);
}
END_TEST

// ---- outline ------------------------------------------------------------------------

START_TEST(outline_straight_snake) {
    // Head at the origin facing +x, joints 10 apart toward -x, widths 4, 6, 2.
    float j[3][4] = {{0, 0, 0, 0}, {-10, 0, 0, 0}, {-20, 0, 0, 0}};
    float widths[3] = {4.0f, 6.0f, 2.0f};
    float out[12][2];
    uint32_t k = boids_snake_outline((const float(*)[4])j, widths, 3, out);
    ck_assert_uint_eq(k, 2 * 3 + 6);
    const float c30 = 0.8660254f;
    const float expect[12][2] = {
        {-21.0f, 0.0f},        // tail, pi
        {-20.0f - c30, 0.5f},  // tail, 5pi/6
        {-20.0f, 1.0f},        // left of joint 2
        {-10.0f, 3.0f},        // left of joint 1
        {0.0f, 2.0f},          // left of the head
        {2.0f * c30, 1.0f},    // head, pi/6
        {2.0f, 0.0f},          // head, 0 (the nose)
        {2.0f * c30, -1.0f},   // head, -pi/6
        {0.0f, -2.0f},         // right of the head
        {-10.0f, -3.0f},       // right of joint 1
        {-20.0f, -1.0f},       // right of joint 2
        {-20.0f - c30, -0.5f}, // tail, -5pi/6
    };
    for (int i = 0; i < 12; i++) {
        ck_assert_msg(fabsf(out[i][0] - expect[i][0]) < 1e-5f && fabsf(out[i][1] - expect[i][1]) < 1e-5f,
                      "outline point %d is (%g, %g), expected (%g, %g)", i, (double)out[i][0], (double)out[i][1],
                      (double)expect[i][0], (double)expect[i][1]);
    }
    // The notebook's 48-joint snake has 102 points.
    float big[48][4] = {{0}};
    float bw[48], pts[102][2];
    for (int i = 0; i < 48; i++) {
        big[i][0] = 100.0f + 16.0f * (float)i;
        bw[i] = i == 0 ? 19.0f : (i == 1 ? 20.0f : 16.0f - (float)i / 4.0f);
    }
    ck_assert_uint_eq(boids_snake_outline((const float(*)[4])big, bw, 48, pts), 102);
}
END_TEST

// ---- body types ---------------------------------------------------------------------

START_TEST(bad_arguments) {
    boids_body_params b, keep;
    ck_assert_int_eq(boids_body_make(&keep, BOIDS_BODY_SNAKE, 7, 60.0f, NULL, 0), BOIDS_OK);
    b = keep;
    float lengths[40], widths[40];
    for (int i = 0; i < 40; i++)
        lengths[i] = widths[i] = 5.0f;
    char what[200];
    struct {
        uint32_t joints, n_lengths, n_widths;
        float length0, width0, limit;
        const char *needle;
    } cases[] = {
        {7, 5, 7, 5.0f, 5.0f, 1.0f, "5 segment lengths for 7 joints"},
        {7, 7, 7, 5.0f, 5.0f, 1.0f, "7 segment lengths"},
        {7, 6, 6, 5.0f, 5.0f, 1.0f, "6 widths for 7 joints"},
        {7, 6, 7, 0.0f, 5.0f, 1.0f, "segment 0 length 0"},
        {7, 6, 7, -1.0f, 5.0f, 1.0f, "segment 0 length -1"},
        {7, 6, 7, NAN, 5.0f, 1.0f, "segment 0 length nan"},
        {7, 6, 7, 5.0f, 0.0f, 1.0f, "width 0 at joint 0"},
        {7, 6, 7, 5.0f, -2.0f, 1.0f, "width -2 at joint 0"},
        {7, 6, 7, 5.0f, 5.0f, 0.0f, "angle limit 0"},
        {7, 6, 7, 5.0f, 5.0f, 3.2f, "angle limit 3.2"},
        {7, 6, 7, 5.0f, 5.0f, NAN, "angle limit nan"},
        {1, 0, 1, 5.0f, 5.0f, 1.0f, "1 joints (allowed: 2..32)"},
        {33, 32, 33, 5.0f, 5.0f, 1.0f, "33 joints (allowed: 2..32)"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lengths[0] = cases[c].length0;
        widths[0] = cases[c].width0;
        what[0] = '\0';
        boids_result r = boids_body_define(&b, BOIDS_BODY_SNAKE, cases[c].joints, lengths, cases[c].n_lengths, widths,
                                           cases[c].n_widths, cases[c].limit, false, what, sizeof what);
        ck_assert_msg(r == BOIDS_ERR_BODY, "case %zu accepted", c);
        ck_assert_msg(strstr(what, cases[c].needle), "case %zu: message '%s' does not say '%s'", c, what,
                      cases[c].needle);
        ck_assert_msg(memcmp(&b, &keep, sizeof b) == 0, "case %zu: a rejected body changed the output", c);
    }
    // pi itself is allowed (no bend limit).
    lengths[0] = widths[0] = 5.0f;
    ck_assert_int_eq(boids_body_define(&b, BOIDS_BODY_CHAIN, 7, lengths, 6, widths, 7, PI_F, true, what, sizeof what),
                     BOIDS_OK);
    ck_assert_uint_eq(b.min_only, 1);
    ck_assert_float_eq(boids_body_length(&b, 5), 5.0f);
    // make: every built-in profile for every joint count is valid.
    for (uint32_t style = BOIDS_BODY_CHAIN; style < BOIDS_BODY_STYLES; style++)
        for (uint32_t n = BOIDS_MIN_JOINTS; n <= BOIDS_MAX_JOINTS; n++) {
            ck_assert_int_eq(boids_body_make(&b, style, n, 30.0f, what, sizeof what), BOIDS_OK);
            float total = 0.0f;
            for (uint32_t i = 0; i + 1 < n; i++)
                total += boids_body_length(&b, i);
            ck_assert_float_eq_tol(total, 30.0f, 1e-3f);
        }
    ck_assert_int_eq(boids_body_make(&b, BOIDS_BODY_FISH, 12, 0.0f, what, sizeof what), BOIDS_ERR_BODY);
    ck_assert_int_eq(boids_body_style_index("fish"), (int)BOIDS_BODY_FISH);
    ck_assert_int_eq(boids_body_style_index("eel"), -1);
    ck_assert_str_eq(boids_body_style_name(BOIDS_BODY_CHAIN), "chain");
    // finalize rejects a bad body, and a body too long for the torus.
    boids_params p;
    boids_params_default(&p, 1000, 2);
    ck_assert_int_eq(boids_body_make(&p.body[0], BOIDS_BODY_SNAKE, 12, 30.0f, NULL, 0), BOIDS_OK);
    boids_params q = p;
    q.body[0].angle_limit = 4.0f;
    ck_assert_int_eq(boids_params_finalize(&q, what, sizeof what), BOIDS_ERR_BODY);
    ck_assert_msg(strstr(what, "group 0") && strstr(what, "angle limit"), "finalize said '%s'", what);
    q = p;
    ck_assert_int_eq(boids_body_make(&q.body[0], BOIDS_BODY_SNAKE, 12, q.world.size[0], NULL, 0), BOIDS_OK);
    ck_assert_int_eq(boids_params_finalize(&q, what, sizeof what), BOIDS_ERR_BODY);
    ck_assert_msg(strstr(what, "long"), "finalize said '%s'", what);
}
END_TEST

// ---- the bodies stage of a simulation ----------------------------------------------

static boids_sim *body_sim(uint32_t count, uint32_t dim, uint32_t style, uint32_t joints, uint32_t behaviors) {
    boids_params p;
    boids_params_default(&p, count, dim);
    p.world.group_count = 2;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        p.group[g].behaviors = behaviors;
        boids_body_make(&p.body[g], style, joints, 40.0f, NULL, 0);
    }
    // Group 1 with the other style pairing, so mixed groups are exercised.
    boids_body_make(&p.body[1], style == BOIDS_BODY_CHAIN ? BOIDS_BODY_FISH : BOIDS_BODY_CHAIN, joints / 2 + 2, 30.0f,
                    NULL, 0);
    boids_sim *s = NULL;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    s->threads = 1;
    return s;
}

// Checks every body of s: joint 0 at its agent, segment lengths (minimum
// image), the angle limit in 2D. Returns how many bodies cross the seam.
static uint32_t check_bodies(boids_sim *s, const char *when) {
    const boids_world_params *w = &s->p.world;
    const uint32_t *slot = boids_sim_slots_by_id(s);
    uint32_t crossing = 0;
    for (uint32_t id = 0; id < s->n; id++) {
        uint32_t i = slot[id];
        const boids_body_params *b = &s->p.body[s->cur.group[i]];
        float chain[BOIDS_MAX_JOINTS][4];
        for (uint32_t k = 0; k < b->joints; k++)
            memcpy(chain[k], s->joints[(size_t)k * s->n + id], sizeof(float[4]));
        for (int a = 0; a < 3; a++)
            EXPECT(chain[0][a] == s->cur.pos[i][a], "%s: agent %u: joint 0 is not at the head", when, id);
        bool outside = false;
        for (uint32_t k = 1; k < b->joints; k++) {
            float len = boids_body_length(b, k - 1);
            float d = seg_length(NULL, chain[k - 1], chain[k]); // raw: the body is whole, never across the world
            float ulp = 0.0f;
            for (int a = 0; a < 3; a++)
                ulp = fmaxf(ulp, fabsf(chain[k][a]));
            float tol = REL_TOL * len + 8.0f * ulp * 1.1920929e-7f;
            EXPECT(fabsf(d - len) <= tol, "%s: agent %u segment %u is %.9g long, expected %.9g (tolerance %.3g)", when,
                   id, k - 1, (double)d, (double)len, (double)tol);
            for (uint32_t a = 0; a < w->dim; a++)
                outside = outside || chain[k][a] < w->min[a] || chain[k][a] >= w->min[a] + w->size[a];
        }
        if (w->dim == 2 && b->style != BOIDS_BODY_CHAIN) {
            float bend = max_bend((const float(*)[4])chain, b->joints);
            EXPECT(bend <= b->angle_limit + 1e-5f, "%s: agent %u bends %.7g > limit %.7g", when, id, (double)bend,
                   (double)b->angle_limit);
        }
        crossing += outside;
    }
    return crossing;
}

START_TEST(sim_bodies_follow) {
    static const uint32_t styles[] = {BOIDS_BODY_SNAKE, BOIDS_BODY_CHAIN, BOIDS_BODY_FISH};
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (size_t st = 0; st < 3; st++) {
            uint32_t behaviors = BOIDS_B_FLOCKING | BOIDS_BIT(BOIDS_BI_WANDER);
            boids_sim *s = body_sim(dim == 2 ? 2000 : 3000, dim, styles[st], 16, behaviors);
            char when[64];
            snprintf(when, sizeof when, "%uD %s at start", dim, boids_body_style_name(styles[st]));
            check_bodies(s, when);
            uint32_t crossing = 0;
            for (int step = 0; step < 60; step++) {
                boids_sim_step(s);
                if (step % 20 == 19) {
                    snprintf(when, sizeof when, "%uD %s step %d", dim, boids_body_style_name(styles[st]), step + 1);
                    crossing += check_bodies(s, when);
                }
            }
            // The torus seam was crossed by some bodies (the minimum image was exercised).
            ck_assert_msg(crossing > 0, "%uD %s: no body crossed the seam", dim, boids_body_style_name(styles[st]));
            boids_sim_destroy(s);
        }
}
END_TEST

START_TEST(sim_bodies_threads_identical) {
    boids_sim *a = body_sim(3000, 2, BOIDS_BODY_SNAKE, 12, BOIDS_B_FLOCKING | BOIDS_BIT(BOIDS_BI_WANDER));
    boids_sim *b = body_sim(3000, 2, BOIDS_BODY_SNAKE, 12, BOIDS_B_FLOCKING | BOIDS_BIT(BOIDS_BI_WANDER));
    b->threads = 2;
    for (int i = 0; i < 20; i++) {
        boids_sim_step(a);
        boids_sim_step(b);
    }
    ck_assert_uint_eq(a->joint_rows, 12);
    ck_assert_msg(memcmp(a->joints, b->joints, (size_t)a->joint_rows * a->n * sizeof(float[4])) == 0,
                  "joints differ between 1 and 2 threads");
    boids_sim_destroy(a);
    boids_sim_destroy(b);
}
END_TEST

START_TEST(sim_set_bodies) {
    boids_sim *s = body_sim(500, 2, BOIDS_BODY_NONE, 12, BOIDS_B_FLOCKING);
    // Group 1 had a chain: 8 rows.
    ck_assert_uint_eq(s->joint_rows, 8);
    boids_body_params body[BOIDS_MAX_GROUPS];
    memcpy(body, s->p.body, sizeof body);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        ck_assert_int_eq(boids_body_make(&body[g], BOIDS_BODY_SNAKE, 24, 40.0f, NULL, 0), BOIDS_OK);
    ck_assert_int_eq(boids_sim_set_bodies(s, body), BOIDS_OK);
    ck_assert_uint_eq(s->joint_rows, 24);
    check_bodies(s, "after set_bodies");
    // Laid out straight: every joint angle is the head's facing.
    uint32_t id = s->cur.id[0];
    for (uint32_t k = 1; k < 24; k++)
        ck_assert_float_eq(s->joints[(size_t)k * s->n + id][3], s->joints[id][3]);
    boids_sim_step(s);
    check_bodies(s, "a step after set_bodies");
    body[0].joints = 40; // invalid: rejected, nothing changed
    ck_assert_int_eq(boids_sim_set_bodies(s, body), BOIDS_ERR_BODY);
    ck_assert_uint_eq(s->p.body[0].joints, 24);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        boids_body_make(&body[g], BOIDS_BODY_NONE, 0, 0.0f, NULL, 0);
    ck_assert_int_eq(boids_sim_set_bodies(s, body), BOIDS_OK);
    ck_assert_ptr_null(s->joints);
    boids_sim_step(s); // no bodies: the stage does nothing
    boids_sim_destroy(s);
}
END_TEST

static Suite *bodies_suite(void) {
    Suite *s = suite_create("bodies");
    TCase *c = tcase_create("constraints");
    tcase_add_test(c, distance_constraint);
    tcase_add_test(c, distance_constraint_min_only);
    tcase_add_test(c, distance_constraint_torus);
    tcase_add_test(c, chain_resolve_lengths);
    tcase_add_test(c, chain_resolve_min_only);
    tcase_add_test(c, chain_drag_middle);
    tcase_add_test(c, mod_angle_and_diff);
    tcase_add_test(c, constrain_angle_seam);
    tcase_add_test(c, snake_angle_limit);
    tcase_add_test(c, snake_angle_limit_3d);
    tcase_add_test(c, snake_angles_headings);
    tcase_add_test(c, outline_straight_snake);
    tcase_add_test(c, bad_arguments);
    suite_add_tcase(s, c);
    TCase *sim = tcase_create("sim");
    tcase_add_test(sim, sim_bodies_follow);
    tcase_add_test(sim, sim_bodies_threads_identical);
    tcase_add_test(sim, sim_set_bodies);
    suite_add_tcase(s, sim);
    return s;
}

int main(void) {
    return boids_test_run_suite(bodies_suite());
}
