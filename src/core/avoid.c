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
// decided on squares. On a threat: *t and the predicted offset at t.
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
    float tc = num / den;
    float q[3] = {off[0] + dv[0] * tc, off[1] + dv[1] * tc, off[2] + dv[2] * tc};
    if (!(glm_vec3_norm2(q) < danger * danger))
        return false;
    *t = tc;
    glm_vec3_copy(q, predicted);
    return true;
}

// The soonest threat wins, ties to the smaller id: a strict order on
// (t, id), so the minimum is the same for any visiting order.
bool boids_avoid_sooner(float t, uint32_t id, float best_t, uint32_t best_id) {
    return t < best_t || (t == best_t && id < best_id);
}

// The side-step: the part of -predicted perpendicular to the unit heading
// (all of it without a heading), set to maxforce; zero without a threat or
// when that part is zero (a dead-ahead threat meeting exactly head on: no
// side to prefer; separation handles it).
void boids_avoid(bool threat, const float predicted[3], const float heading[3], bool has_heading, float maxforce,
                 float dest[3]) {
    glm_vec3_zero(dest);
    if (!threat)
        return;
    float away[3];
    glm_vec3_negate_to((float *)predicted, away);
    if (has_heading) {
        float along = glm_vec3_dot(away, (float *)heading);
        away[0] -= heading[0] * along;
        away[1] -= heading[1] * along;
        away[2] -= heading[2] * along;
    }
    boids_set_mag(away, maxforce, dest);
}
