// src/core/speed.c: target speed (OpenSteer's steerForTargetSpeed): speed
// up or slow down along the heading toward a wanted speed, turning nothing.
// GLSL twin: shaders/behaviors.glsl target_speed().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// forward * clamp(target - |v|, -maxforce, maxforce), forward = v / |v|;
// no force without a heading (|v| = 0: no direction to speed up along).
void boids_target_speed(const float vel[3], float target, float maxforce, float dest[3]) {
    float speed = glm_vec3_norm((float *)vel);
    if (!(speed > 0.0f)) {
        glm_vec3_zero(dest);
        return;
    }
    float error = target - speed;
    float push = fminf(fmaxf(error, -maxforce), maxforce);
    glm_vec3_scale((float *)vel, push / speed, dest);
}
