// src/core/queue.c: queueing (Reynolds' queue at a doorway, "Steering
// Behaviors For Autonomous Characters", 1999): brake while a slower
// neighbour is close ahead, so a crowd files through a gap instead of
// piling into it. GLSL twins: shaders/behaviors.glsl queue_blocks(), queue().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Does the neighbour at `off` (d2 = |off|^2 > 0, minimum image) moving at
// vj block the agent (unit heading, velocity vel)? Within `distance`,
// ahead (off . heading > 0) within the cone cos BOIDS_QUEUE_COS, and slower
// (|vj|^2 < |vel|^2). Decided on squares, as every in-range test here.
bool boids_queue_blocks(const float off[3], float d2, const float heading[3], bool has_heading, const float vel[3],
                        const float vj[3], float distance) {
    if (!has_heading || !(d2 < distance * distance))
        return false;
    float along = glm_vec3_dot((float *)off, (float *)heading);
    if (!(along > 0.0f) || !boids_in_cone(along, BOIDS_QUEUE_COS, d2))
        return false;
    return glm_vec3_norm2((float *)vj) < glm_vec3_norm2((float *)vel);
}

// The brake: -vel limited to maxforce when any neighbour blocks (blocked,
// a count: the same for any visiting order), else zero. Bevilacqua's queue
// ("Understanding Steering Behaviors: Queue", Envato Tuts+ 2013) brakes with
// -velocity too (plus 0.8 of the other forces, and a hard 0.3 speed cut
// when very close); here the brake is a force as every other, at most
// maxforce, and the weight scales it.
void boids_queue(uint32_t blocked, const float vel[3], float maxforce, float dest[3]) {
    if (blocked == 0) {
        glm_vec3_zero(dest);
        return;
    }
    glm_vec3_negate_to((float *)vel, dest);
    boids_limit(dest, maxforce);
}
