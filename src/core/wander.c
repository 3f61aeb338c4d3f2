// src/core/wander.c: Reynolds' wander (Nature of Code 5, "Wander"): a circle
// projected ahead along the velocity; a point on it moves by a small random
// angle each step; seek that point. 3D: a point on a sphere (two angles).
// GLSL twin: shaders/behaviors.glsl wander().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// angles = {theta, phi} are advanced by change * rnd and wrapped.
void boids_wander(const float vel[3], float angles[2], float rnd_theta, float rnd_phi, float distance, float radius,
                  float change, uint32_t dim, float maxspeed, float maxforce, float dest[3]) {
    float theta = boids_angle_wrap(angles[0] + change * rnd_theta);
    float phi = angles[1];
    float heading[3];
    boids_set_mag(vel, 1.0f, heading);
    if (glm_vec3_norm2(heading) == 0.0f) {
        heading[0] = 1.0f;
        heading[1] = heading[2] = 0.0f;
    }
    float to_target[3];
    if (dim == 2) {
        // Circle centre at distance along the heading; the point at theta
        // relative to the heading (the chapter adds the heading angle).
        float c = boids_cosf(theta), s = boids_sinf(theta);
        to_target[0] = heading[0] * distance + radius * (heading[0] * c - heading[1] * s);
        to_target[1] = heading[1] * distance + radius * (heading[0] * s + heading[1] * c);
        to_target[2] = 0.0f;
    } else {
        phi = boids_angle_wrap(phi + change * rnd_phi);
        float cp = boids_cosf(phi);
        to_target[0] = heading[0] * distance + radius * cp * boids_cosf(theta);
        to_target[1] = heading[1] * distance + radius * cp * boids_sinf(theta);
        to_target[2] = heading[2] * distance + radius * boids_sinf(phi);
    }
    angles[0] = theta;
    angles[1] = phi;
    boids_seek(to_target, vel, maxspeed, maxforce, dest);
}
