// src/core/seek.c: seek and flee (Nature of Code 5, "Steering Forces").
// GLSL twins: shaders/behaviors.glsl seek(), flee().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// desired = setMag(target - position, maxspeed); steer = desired - velocity.
void boids_seek(const float to_target[3], const float vel[3], float maxspeed, float maxforce, float dest[3]) {
    float desired[3];
    boids_set_mag(to_target, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}

// The opposite desired velocity: away from the target at maxspeed.
void boids_flee(const float to_target[3], const float vel[3], float maxspeed, float maxforce, float dest[3]) {
    float desired[3];
    boids_set_mag(to_target, -maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
