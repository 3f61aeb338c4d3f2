// src/core/walls.c: stay within walls (Nature of Code 5, exercise 5.3 /
// Reynolds' "containment"). GLSL twin: shaders/behaviors.glsl walls().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// desired starts as "none": only an axis within `offset` of a wall sets its
// component to +-maxspeed (away from the wall), keeping the other components
// of the velocity; then setMag(maxspeed) and steer.
bool boids_walls(const float pos[3], const float vel[3], const boids_world_params *w, float maxspeed, float maxforce,
                 float dest[3]) {
    float desired[3] = {vel[0], vel[1], vel[2]};
    bool near = false;
    for (int a = 0; a < 3; a++) {
        if (!(w->size[a] > 0.0f))
            continue;
        if (pos[a] < w->min[a] + w->wall_offset) {
            desired[a] = maxspeed;
            near = true;
        } else if (pos[a] > w->min[a] + w->size[a] - w->wall_offset) {
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
