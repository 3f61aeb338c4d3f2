// src/core/obstacles.c: obstacle avoidance for circles/spheres (Reynolds
// 1999, "Obstacle Avoidance"): a corridor ahead of the agent; the nearest
// obstacle it intersects makes the agent steer laterally away from it.
// GLSL twin: shaders/behaviors.glsl obstacles().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// The nearest threatening obstacle (smallest distance along the heading) sets
// desired = maxspeed away from its centre across the heading. An agent inside
// an obstacle flees its centre. Distances along the heading are taken times
// |vel| (off . vel) and across it times |vel|^2 (off |vel|^2 - vel (off .
// vel)), every test on squares: products and sums alone, the same bits on
// every driver (a unit heading's square root, one ULP off, turned the side of
// an obstacle nearly dead ahead).
void boids_obstacles(const float pos[3], const float vel[3], const boids_scene *scene, const boids_world_params *w,
                     float lookahead, float body_radius, float maxspeed, float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    float v2 = glm_vec3_norm2((float *)vel);
    if (v2 == 0.0f)
        return;
    float nearest = INFINITY, lateral_best[3] = {0, 0, 0};
    bool inside = false;
    for (uint32_t i = 0; i < scene->obstacle_count; i++) {
        const float *ob = scene->obstacle[i];
        float off[3];
        boids_world_delta(w, pos, ob, off);
        float reach = ob[3] + body_radius;
        float d2 = glm_vec3_norm2(off);
        if (d2 < ob[3] * ob[3]) {
            // Inside: flee the centre, most urgent of all.
            boids_flee(off, vel, maxspeed, maxforce, dest);
            inside = true;
            break;
        }
        float along = glm_vec3_dot(off, (float *)vel);
        float corridor = lookahead + reach;
        if (along <= 0.0f || along * along > corridor * corridor * v2)
            continue;
        float lateral[3];
        for (int a = 0; a < 3; a++)
            lateral[a] = off[a] * v2 - vel[a] * along;
        if (glm_vec3_norm2(lateral) >= reach * reach * v2 * v2)
            continue;
        if (along < nearest) {
            nearest = along;
            glm_vec3_copy(lateral, lateral_best);
        }
    }
    if (inside || nearest == INFINITY)
        return;
    float desired[3], up[3];
    if (glm_vec3_norm2(lateral_best) == 0.0f)
        boids_view_frame(vel, desired, up); // dead ahead: turn left (u = up x vel)
    else
        glm_vec3_negate_to(lateral_best, desired);
    boids_set_mag(desired, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
