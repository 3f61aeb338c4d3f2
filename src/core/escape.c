// src/core/escape.c: escape from predators (group relation BOIDS_REL_FLEE):
// evade (Nature of Code 5, exercise 5.2) every predator in the perception
// radius, the nearer ones more strongly. GLSL twins: escape_term(), escape().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Away from the predator's predicted position (offset + v * predict),
// scaled to 1/d and made dimensionless by the radius, as separation.
void boids_escape_term(const float offset[3], const float other_vel[3], float predict, float radius, float dest[3]) {
    float q[3];
    for (int a = 0; a < 3; a++)
        q[a] = offset[a] + other_vel[a] * predict;
    float d = glm_vec3_norm(q);
    if (d == 0.0f) {
        glm_vec3_zero(dest);
        return;
    }
    boids_separation_term(q, d, radius, dest);
}

// setMag(sum, maxspeed) - velocity; no predator: no force.
void boids_escape(const float sum[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                  float dest[3]) {
    boids_separation(sum, count, vel, maxspeed, maxforce, dest);
}
