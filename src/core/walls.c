// src/core/walls.c: stay within walls (Nature of Code 5, exercise 5.3 /
// Reynolds' "containment"). GLSL twin: shaders/behaviors.glsl walls().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// desired starts as "none": only an axis within `offset` of a wall sets its
// component to +-maxspeed (away from the wall), keeping the other components
// of the velocity; then setMag(maxspeed) and steer. With
// BOIDS_WALL_CORNER_BOOK each near axis starts again from the velocity, as
// the chapter's `desired = createVector(...)` per test does: the last axis
// near a wall decides alone.
bool boids_walls(const float pos[3], const float vel[3], const boids_world_params *w, float maxspeed, float maxforce,
                 float dest[3]) {
    float desired[3] = {vel[0], vel[1], vel[2]};
    bool near = false;
    for (int a = 0; a < 3; a++) {
        if (!(w->size[a] > 0.0f))
            continue;
        bool lo = pos[a] < w->min[a] + w->wall_offset;
        bool hi = !lo && pos[a] > w->min[a] + w->size[a] - w->wall_offset;
        if ((lo || hi) && w->wall_corner == BOIDS_WALL_CORNER_BOOK)
            glm_vec3_copy((float *)vel, desired);
        if (lo) {
            desired[a] = maxspeed;
            near = true;
        } else if (hi) {
            desired[a] = -maxspeed;
            near = true;
        }
    }
    if (!near) {
        glm_vec3_zero(dest);
        return false;
    }
    boids_set_mag(desired, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
    return true;
}
