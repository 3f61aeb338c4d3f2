// src/core/avoid.c: unaligned collision avoidance (OpenSteer's
// steerToAvoidNeighbors, Reynolds 1999): predict each neighbour's closest
// approach, and side-step the soonest threat within a time horizon.
// GLSL twins: shaders/behaviors.glsl avoid_threat(), avoid_sooner(), avoid().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// One neighbour at `off` (other - self, minimum image) moving at vj, the
// agent at vel: dp = off, dv = vj - vel, the time of closest approach
// t = -dp . dv / |dv|^2 (OpenSteer predictNearestApproachTime). A threat
// when 0 < t < horizon (decided on products: num > 0, num < horizon |dv|^2)
// and the predicted separation |dp + dv t| is below `danger` (the caller's
// 2 x body_radius, OpenSteer's collisionDangerThreshold = radius() * 2),
// decided on squares. On a threat: *t and the predicted offset at t times
// |dv|^2 (off |dv|^2 + dv num: products and sums alone, so its direction,
// which is all avoid() uses, is the same bits on every driver; through t =
// num / den it would carry the division's rounding, which a near miss, the
// two terms cancelling, magnifies into the force's direction).
bool boids_avoid_threat(const float off[3], const float vel[3], const float vj[3], float horizon, float danger,
                        float *t, float predicted[3]) {
    float dv[3];
    glm_vec3_sub((float *)vj, (float *)vel, dv);
    float den = glm_vec3_norm2(dv);
    if (!(den > 0.0f)) // same velocity: the offset never changes
        return false;
    float num = -glm_vec3_dot((float *)off, dv);
    if (!(num > 0.0f) || !(num < horizon * den))
        return false;
    float q[3] = {off[0] * den + dv[0] * num, off[1] * den + dv[1] * num, off[2] * den + dv[2] * num};
    float reach = danger * den;
    if (!(glm_vec3_norm2(q) < reach * reach))
        return false;
    *t = num / den;
    glm_vec3_copy(q, predicted);
    return true;
}

// The soonest threat wins, ties to the smaller id: a strict order on
// (t, id), so the minimum is the same for any visiting order.
bool boids_avoid_sooner(float t, uint32_t id, float best_t, uint32_t best_id) {
    return t < best_t || (t == best_t && id < best_id);
}

// The side-step: the part of -predicted perpendicular to the velocity (all
// of it when standing still), set to maxforce; zero without a threat or when
// that part is zero (a dead-ahead threat meeting exactly head on: no side to
// prefer; separation handles it). The part is taken times |vel|^2, away
// |vel|^2 - vel (away . vel): products and sums alone (a unit heading's
// square root would turn the last bit of a nearly head-on threat's side).
void boids_avoid(bool threat, const float predicted[3], const float vel[3], float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    if (!threat)
        return;
    float away[3];
    glm_vec3_negate_to((float *)predicted, away);
    float v2 = glm_vec3_norm2((float *)vel);
    if (v2 > 0.0f) {
        float along = glm_vec3_dot(away, (float *)vel);
        for (int a = 0; a < 3; a++)
            away[a] = away[a] * v2 - vel[a] * along;
    }
    boids_set_mag(away, maxforce, dest);
}
