// src/core/obstacles.c: obstacle avoidance for circles/spheres (Reynolds
// 1999, "Obstacle Avoidance"): a corridor ahead of the agent; the nearest
// obstacle it intersects makes the agent steer laterally away from it.
// GLSL twin: shaders/behaviors.glsl obstacles().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Any unit vector perpendicular to the unit vector h (left turn in 2D).
static void perpendicular(const float h[3], float dest[3]) {
    float up[3] = {0.0f, 0.0f, 1.0f};
    if (fabsf(h[2]) > 0.9f) {
        up[1] = 1.0f;
        up[2] = 0.0f;
    }
    glm_vec3_cross(up, (float *)h, dest); // 2D: (-hy, hx, 0)
    glm_vec3_normalize(dest);
}

// The nearest threatening obstacle (smallest distance along the heading) sets
// desired = maxspeed away from its centre across the heading. An agent inside
// an obstacle flees its centre.
void boids_obstacles(const float pos[3], const float vel[3], const boids_scene *scene, const boids_world_params *w,
                     float lookahead, float body_radius, float maxspeed, float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    float heading[3];
    boids_set_mag(vel, 1.0f, heading);
    if (glm_vec3_norm2(heading) == 0.0f)
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
        float along = glm_vec3_dot(off, heading);
        if (along <= 0.0f || along > lookahead + reach)
            continue;
        float lateral[3];
        for (int a = 0; a < 3; a++)
            lateral[a] = off[a] - heading[a] * along;
        if (glm_vec3_norm2(lateral) >= reach * reach)
            continue;
        if (along < nearest) {
            nearest = along;
            glm_vec3_copy(lateral, lateral_best);
        }
    }
    if (inside || nearest == INFINITY)
        return;
    float desired[3];
    if (glm_vec3_norm2(lateral_best) == 0.0f)
        perpendicular(heading, desired); // dead ahead: turn left
    else
        glm_vec3_negate_to(lateral_best, desired);
    boids_set_mag(desired, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
