// src/core/bodies.c: procedural bodies (procedural-animation-chains.txt,
// "Procedural Animation 1"): the distance constraint, the chain's
// resolve(from), the snake's facing angles, Snake2's angle constraint with the
// wrapped angle difference, the outline (getShape), and the bodies stage of
// one agent. Body types: the built-in profiles and the notebook's "bad
// arguments" checks. GLSL twins: shaders/bodies.glsl distance_constraint(),
// mod_angle(), angle_diff_mod(), constrain_angle(), constrain_direction();
// shaders/bodies.comp chain_resolve(), snake_angles(), snake_resolve(),
// body_straight(), body_follow().
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// to - from: the minimum image on a torus when a world is given.
static void joint_delta(const boids_world_params *w, const float from[3], const float to[3], float dest[3]) {
    if (w) {
        boids_world_delta(w, from, to, dest);
        return;
    }
    for (int a = 0; a < 3; a++)
        dest[a] = to[a] - from[a];
}

// distanceConstrain(anchor, target, distance, minOnly).
void boids_distance_constraint(const boids_world_params *w, const float anchor[3], float target[3], float distance,
                               bool min_only) {
    float vec[3];
    joint_delta(w, anchor, target, vec); // vecFromSub(target, anchor)
    if (min_only && glm_vec3_norm2(vec) < distance * distance) {
        // Left where it is; on a torus moved to its image beside the anchor.
        if (w && w->boundary == BOIDS_BOUNDARY_WRAP)
            for (int a = 0; a < 3; a++)
                target[a] = anchor[a] + vec[a];
        return;
    }
    boids_set_mag(vec, distance, vec);
    for (int a = 0; a < 3; a++)
        target[a] = anchor[a] + vec[a];
}

// Chain.resolve(fromIndex): toward joint 0, then toward the last joint.
void boids_chain_resolve(const boids_world_params *w, float (*joints)[4], const float *lengths, uint32_t n,
                         uint32_t from, bool min_only) {
    if (from >= n)
        return;
    for (uint32_t i = from; i > 0; i--) // anchor i, target i - 1, distances[i - 1]
        boids_distance_constraint(w, joints[i], joints[i - 1], lengths[i - 1], min_only);
    for (uint32_t i = from; i + 1 < n; i++) // anchor i, target i + 1, distances[i]
        boids_distance_constraint(w, joints[i], joints[i + 1], lengths[i], min_only);
}

// modAngle: the notebook's loops (exact subtractions), after one reduction
// a - 2pi trunc(a / 2pi) for angles far out (the loops would take long
// there; the GLSL twin's operations).
float boids_mod_angle(float a) {
    if (!(fabsf(a) < 64.0f * BOIDS_TWO_PI))
        a = a - BOIDS_TWO_PI * truncf(a / BOIDS_TWO_PI);
    while (a >= BOIDS_TWO_PI)
        a -= BOIDS_TWO_PI;
    while (a < 0.0f)
        a += BOIDS_TWO_PI;
    return a;
}

// angleDiff(a1, a2) = pi - modAngle(a1 - a2 + pi): how far a2 lies
// counter-clockwise of a1, in (-pi, pi].
float boids_angle_diff_mod(float a1, float a2) {
    return BOIDS_PI - boids_mod_angle(a1 - a2 + BOIDS_PI);
}

// constrainAngle(angle, reference, allowedDiff).
float boids_constrain_angle(float angle, float reference, float allowed) {
    float diff = boids_angle_diff_mod(angle, reference);
    if (fabsf(diff) <= allowed)
        return boids_mod_angle(angle);
    if (diff > allowed)
        return boids_mod_angle(reference - allowed);
    return boids_mod_angle(reference + allowed);
}

// Snake.resolve's angle update.
void boids_snake_angles(const boids_world_params *w, float (*joints)[4], uint32_t n, float facing) {
    joints[0][3] = facing;
    for (uint32_t i = 1; i < n; i++) {
        float d[3];
        joint_delta(w, joints[i], joints[i - 1], d); // vecFromSub(joints[i-1], joints[i])
        joints[i][3] = (d[0] == 0.0f && d[1] == 0.0f) ? joints[i - 1][3] : boids_atan2f(d[1], d[0]);
    }
}

// Keep unit u within the cone of half-angle acos(cos_lim) around unit ref:
// on the cone's edge, in the plane of u and ref (3D twin of constrainAngle).
static void constrain_direction(float u[3], const float ref[3], float cos_lim, float sin_lim) {
    float c = glm_vec3_dot(u, (float *)ref);
    if (c >= cos_lim)
        return;
    float perp[3];
    for (int a = 0; a < 3; a++)
        perp[a] = u[a] - ref[a] * c;
    // Once more: for u nearly opposite ref the first difference cancels and
    // keeps a part along ref, which would stretch the segment.
    float c2 = glm_vec3_dot(perp, (float *)ref);
    for (int a = 0; a < 3; a++)
        perp[a] = perp[a] - ref[a] * c2;
    if (glm_vec3_norm2(perp) == 0.0f) {
        // Straight back: bend in the plane with z (or y), as boids_turn_limit.
        float up[3] = {0.0f, 0.0f, 1.0f};
        if (fabsf(ref[2]) > 0.9f) {
            up[1] = 1.0f;
            up[2] = 0.0f;
        }
        glm_vec3_cross(up, (float *)ref, perp);
    }
    glm_vec3_normalize(perp);
    for (int a = 0; a < 3; a++)
        u[a] = ref[a] * cos_lim + perp[a] * sin_lim;
}

// Snake2.resolve(facingAng) in 2D; on directions in 3D.
void boids_snake_resolve(const boids_world_params *w, float (*joints)[4], const float *lengths, uint32_t n,
                         float facing, const float facing_dir[3], float angle_limit, bool min_only, uint32_t dim) {
    if (dim == 2) {
        joints[0][3] = facing;
        for (uint32_t i = 1; i < n; i++) {
            float d[3];
            joint_delta(w, joints[i], joints[i - 1], d);
            float curr = (d[0] == 0.0f && d[1] == 0.0f) ? joints[i - 1][3] : boids_atan2f(d[1], d[0]);
            float ang = boids_constrain_angle(curr, joints[i - 1][3], angle_limit);
            float len = lengths[i - 1];
            if (min_only)
                len = fminf(len, glm_vec3_norm(d));
            joints[i][3] = ang;
            joints[i][0] = joints[i - 1][0] - boids_cosf(ang) * len;
            joints[i][1] = joints[i - 1][1] - boids_sinf(ang) * len;
            joints[i][2] = joints[i - 1][2];
        }
        return;
    }
    float cos_lim = boids_cosf(angle_limit), sin_lim = boids_sinf(angle_limit);
    float ref[3] = {facing_dir[0], facing_dir[1], facing_dir[2]};
    bool have_ref = glm_vec3_norm2(ref) > 0.0f;
    joints[0][3] = 0.0f;
    for (uint32_t i = 1; i < n; i++) {
        float d[3], u[3];
        joint_delta(w, joints[i], joints[i - 1], d); // toward the previous joint
        float dist = glm_vec3_norm(d);
        if (dist > 0.0f)
            glm_vec3_scale(d, 1.0f / dist, u);
        else if (have_ref)
            glm_vec3_copy(ref, u);
        else
            glm_vec3_copy((vec3){1.0f, 0.0f, 0.0f}, u);
        if (have_ref)
            constrain_direction(u, ref, cos_lim, sin_lim);
        float len = min_only ? fminf(lengths[i - 1], dist) : lengths[i - 1];
        for (int a = 0; a < 3; a++)
            joints[i][a] = joints[i - 1][a] - u[a] * len;
        joints[i][3] = 0.0f;
        glm_vec3_copy(u, ref);
        have_ref = true;
    }
}

// getPoint(idx, angOffset, 0).
static void outline_point(const float joint[4], float width, float offset, float out[2]) {
    out[0] = joint[0] + cosf(joint[3] + offset) * (width / 2.0f);
    out[1] = joint[1] + sinf(joint[3] + offset) * (width / 2.0f);
}

// getShape(), in its final order (its pushes and unshifts unrolled).
uint32_t boids_snake_outline(const float (*joints)[4], const float *widths, uint32_t n, float (*out)[2]) {
    const float pi = BOIDS_PI;
    uint32_t k = 0, t = n - 1;
    outline_point(joints[t], widths[t], pi, out[k++]);
    outline_point(joints[t], widths[t], 5.0f * pi / 6.0f, out[k++]);
    for (uint32_t i = n; i-- > 0;)
        outline_point(joints[i], widths[i], pi / 2.0f, out[k++]);
    outline_point(joints[0], widths[0], pi / 6.0f, out[k++]);
    outline_point(joints[0], widths[0], 0.0f, out[k++]);
    outline_point(joints[0], widths[0], -pi / 6.0f, out[k++]);
    for (uint32_t i = 0; i < n; i++)
        outline_point(joints[i], widths[i], -pi / 2.0f, out[k++]);
    outline_point(joints[t], widths[t], -5.0f * pi / 6.0f, out[k++]);
    return k;
}

// Unit heading of vel (zero if still), and its 2D angle.
static void heading_of(const float vel[3], uint32_t dim, float dir[3], float *angle) {
    float v[3] = {vel[0], vel[1], dim == 2 ? 0.0f : vel[2]};
    float m = glm_vec3_norm(v);
    if (m > 0.0f)
        glm_vec3_scale(v, 1.0f / m, dir);
    else
        glm_vec3_zero(dir);
    if (angle && m > 0.0f)
        *angle = boids_atan2f(v[1], v[0]);
}

// A body straight behind the agent.
void boids_body_straight(const boids_world_params *w, const boids_body_params *b, const float head[3],
                         const float vel[3], float (*joints)[4]) {
    float dir[3], angle = 0.0f;
    heading_of(vel, w->dim, dir, &angle);
    if (glm_vec3_norm2(dir) == 0.0f)
        dir[0] = 1.0f;
    float facing = w->dim == 2 ? angle : 0.0f;
    for (int a = 0; a < 3; a++)
        joints[0][a] = head[a];
    joints[0][3] = facing;
    for (uint32_t i = 1; i < b->joints; i++) {
        float len = boids_body_length(b, i - 1);
        for (int a = 0; a < 3; a++)
            joints[i][a] = joints[i - 1][a] - dir[a] * len;
        joints[i][3] = facing;
    }
}

// The bodies stage of one agent.
void boids_body_follow(const boids_world_params *w, const boids_body_params *b, const float head[3], const float vel[3],
                       float (*joints)[4]) {
    float dir[3], facing = joints[0][3]; // a still agent keeps its facing
    heading_of(vel, w->dim, dir, &facing);
    if (w->dim != 2)
        facing = 0.0f;
    for (int a = 0; a < 3; a++)
        joints[0][a] = head[a];
    const float *lengths = &b->segment[0][0];
    if (b->style == BOIDS_BODY_CHAIN) {
        boids_chain_resolve(w, joints, lengths, b->joints, 0, b->min_only != 0);
        if (w->dim == 2) {
            boids_snake_angles(w, joints, b->joints, facing);
        } else {
            for (uint32_t i = 0; i < b->joints; i++)
                joints[i][3] = 0.0f;
        }
        return;
    }
    boids_snake_resolve(w, joints, lengths, b->joints, facing, dir, b->angle_limit, b->min_only != 0, w->dim);
}

// ---- body types -------------------------------------------------------------

static const char *const style_names[BOIDS_BODY_STYLES] = {"none", "chain", "snake", "fish"};

int boids_body_style_index(const char *name) {
    for (uint32_t i = 0; i < BOIDS_BODY_STYLES; i++)
        if (strcmp(name, style_names[i]) == 0)
            return (int)i;
    return -1;
}

const char *boids_body_style_name(uint32_t style) {
    return style < BOIDS_BODY_STYLES ? style_names[style] : "?";
}

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        if (what)                                                                                                      \
            snprintf(what, what_size, __VA_ARGS__);                                                                    \
        return BOIDS_ERR_BODY;                                                                                         \
    } while (0)

// The notebook's constructors' checks, and the ranges of the rest.
boids_result boids_body_check(const boids_body_params *b, char *what, size_t what_size) {
    if (b->style >= BOIDS_BODY_STYLES)
        FAIL("body style %u (allowed: none, chain, snake, fish)", b->style);
    if (b->style == BOIDS_BODY_NONE)
        return BOIDS_OK;
    if (b->joints < BOIDS_MIN_JOINTS || b->joints > BOIDS_MAX_JOINTS)
        FAIL("%u joints (allowed: %u..%u)", b->joints, BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS);
    for (uint32_t i = 0; i + 1 < b->joints; i++) {
        float l = boids_body_length(b, i);
        if (!(isfinite(l) && l > 0.0f))
            FAIL("segment %u length %g (allowed: > 0, finite)", i, (double)l);
    }
    for (uint32_t i = 0; i < b->joints; i++) {
        float wd = boids_body_width(b, i);
        if (!(isfinite(wd) && wd > 0.0f))
            FAIL("width %g at joint %u (allowed: > 0, finite)", (double)wd, i);
    }
    if (!(b->angle_limit > 0.0f && b->angle_limit <= BOIDS_PI))
        FAIL("angle limit %g (allowed: 0 < limit <= pi)", (double)b->angle_limit);
    if (b->min_only > 1u)
        FAIL("min-only flag %u (allowed: 0 or 1)", b->min_only);
    return BOIDS_OK;
}

boids_result boids_body_define(boids_body_params *b, uint32_t style, uint32_t joints, const float *lengths,
                               uint32_t n_lengths, const float *widths, uint32_t n_widths, float angle_limit,
                               bool min_only, char *what, size_t what_size) {
    if (style != BOIDS_BODY_NONE && (joints < BOIDS_MIN_JOINTS || joints > BOIDS_MAX_JOINTS))
        FAIL("%u joints (allowed: %u..%u)", joints, BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS);
    if (style != BOIDS_BODY_NONE && n_lengths + 1 != joints)
        FAIL("%u segment lengths for %u joints (allowed: exactly %u, one per segment)", n_lengths, joints, joints - 1);
    if (style != BOIDS_BODY_NONE && n_widths != joints)
        FAIL("%u widths for %u joints (allowed: exactly %u, one per joint)", n_widths, joints, joints);
    boids_body_params t;
    memset(&t, 0, sizeof t);
    t.style = style;
    t.joints = joints;
    t.angle_limit = angle_limit;
    t.min_only = min_only ? 1u : 0u;
    for (uint32_t i = 0; style != BOIDS_BODY_NONE && i < joints; i++) {
        if (i + 1 < joints)
            t.segment[i >> 2][i & 3] = lengths[i];
        t.width[i >> 2][i & 3] = widths[i];
    }
    boids_result r = boids_body_check(&t, what, what_size);
    if (r == BOIDS_OK)
        *b = t;
    return r;
}

// Width profiles over t = i / (joints - 1), as fractions of the widest point.
static float profile_width(uint32_t style, uint32_t i, uint32_t joints) {
    float t = (float)i / (float)(joints - 1);
    switch (style) {
    case BOIDS_BODY_SNAKE: {
        // The 48-joint notebook snake: 19, 20, then 16 - i/4 (of 20).
        if (i == 0)
            return 0.95f;
        if (i == 1)
            return 1.0f;
        float u = joints > 3 ? (float)(i - 2) / (float)(joints - 3) : 1.0f;
        return 0.775f - 0.5625f * u;
    }
    case BOIDS_BODY_FISH:
        // A rounded head widening to the shoulders, a tapering stalk, a tail fin.
        if (t < 0.25f)
            return 0.55f + 0.45f * sinf(t / 0.25f * (BOIDS_PI / 2.0f));
        if (t < 0.85f)
            return 1.0f - 0.8f * (t - 0.25f) / 0.6f;
        return 0.2f + 0.5f * (t - 0.85f) / 0.15f;
    default:
        return 1.0f;
    }
}

boids_result boids_body_make(boids_body_params *b, uint32_t style, uint32_t joints, float length, char *what,
                             size_t what_size) {
    if (style == BOIDS_BODY_NONE) {
        memset(b, 0, sizeof *b);
        return BOIDS_OK;
    }
    if (style >= BOIDS_BODY_STYLES)
        FAIL("body style %u (allowed: none, chain, snake, fish)", style);
    if (joints < BOIDS_MIN_JOINTS || joints > BOIDS_MAX_JOINTS)
        FAIL("%u joints (allowed: %u..%u)", joints, BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS);
    if (!(isfinite(length) && length > 0.0f))
        FAIL("body length %g (allowed: > 0, finite)", (double)length);
    float lengths[BOIDS_MAX_JOINTS], widths[BOIDS_MAX_JOINTS];
    float segment = length / (float)(joints - 1);
    // Widest point: snake 0.16 of the length, fish 0.3; chain dots half a segment.
    float widest = style == BOIDS_BODY_CHAIN ? 0.5f * segment : length * (style == BOIDS_BODY_FISH ? 0.3f : 0.16f);
    for (uint32_t i = 0; i < joints; i++) {
        lengths[i] = segment;
        widths[i] = widest * profile_width(style, i, joints);
    }
    float limit =
        style == BOIDS_BODY_CHAIN ? BOIDS_PI : (style == BOIDS_BODY_SNAKE ? BOIDS_PI / 8.0f : BOIDS_PI / 10.0f);
    return boids_body_define(b, style, joints, lengths, joints - 1, widths, joints, limit, false, what, what_size);
}

uint32_t boids_params_joint_rows(const boids_params *p) {
    uint32_t rows = 0;
    for (uint32_t g = 0; g < p->world.group_count; g++)
        if (p->body[g].style != BOIDS_BODY_NONE && p->body[g].joints > rows)
            rows = p->body[g].joints;
    return rows;
}
