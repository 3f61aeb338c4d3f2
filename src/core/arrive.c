// src/core/arrive.c: arrive (Nature of Code 5, "Arrive"): inside the slowing
// radius the desired speed is map(d, 0, r, 0, maxspeed).
// GLSL twin: shaders/behaviors.glsl arrive().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Seek with a linear ramp of the desired speed near the target.
void boids_arrive(const float to_target[3], const float vel[3], float slow_radius, float maxspeed, float maxforce,
                  float dest[3]) {
    float d = glm_vec3_norm((float *)to_target);
    float speed = maxspeed;
    if (d < slow_radius)
        speed = d / slow_radius * maxspeed;
    float desired[3];
    boids_set_mag(to_target, speed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
