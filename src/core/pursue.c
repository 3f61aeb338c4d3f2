// src/core/pursue.c: pursue and evade (Nature of Code 5, exercise 5.2):
// seek / flee the target's predicted position, target + velocity * predict.
// GLSL twins: shaders/behaviors.glsl pursue(), evade().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Offset to where the target will be `predict` time units from now.
static void predicted(const float to_target[3], const float target_vel[3], float predict, float dest[3]) {
    for (int a = 0; a < 3; a++)
        dest[a] = to_target[a] + target_vel[a] * predict;
}

// Seek the predicted position.
void boids_pursue(const float to_target[3], const float target_vel[3], const float vel[3], float predict,
                  float maxspeed, float maxforce, float dest[3]) {
    float p[3];
    predicted(to_target, target_vel, predict, p);
    boids_seek(p, vel, maxspeed, maxforce, dest);
}

// Flee the predicted position.
void boids_evade(const float to_target[3], const float target_vel[3], const float vel[3], float predict,
                 float maxspeed, float maxforce, float dest[3]) {
    float p[3];
    predicted(to_target, target_vel, predict, p);
    boids_flee(p, vel, maxspeed, maxforce, dest);
}
