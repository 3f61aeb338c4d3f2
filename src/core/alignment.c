// src/core/alignment.c: alignment (Nature of Code 5, flocking: align()).
// GLSL twin: shaders/behaviors.glsl alignment().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Average neighbour velocity, normalize * maxspeed, steer; none: no force.
// (A zero average normalises to zero, so the steer is -velocity, as in p5.)
void boids_alignment(const float sum[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                     float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0)
        return;
    float desired[3];
    boids_set_mag(sum, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
