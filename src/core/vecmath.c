// src/core/vecmath.c: p5.Vector-style helpers and the fixed point of the
// neighbour sums. GLSL twins: shaders/behaviors.glsl limit(), set_mag(),
// steer_from_desired(). (fix/unfix: inline in boids/behaviors.h.)
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// v.limit(max): scale down to length max if longer.
// (A vector too long to square in float is first scaled by 2^-64.)
void boids_limit(float v[3], float max) {
    float m2 = glm_vec3_norm2(v);
    if (isinf(m2)) {
        glm_vec3_scale(v, 5.421010862e-20f, v);
        m2 = glm_vec3_norm2(v);
    }
    if (m2 > max * max)
        glm_vec3_scale(v, max / sqrtf(m2), v);
}

// See boids/behaviors.h. An agent at rest stays at rest (it has no heading
// to speed up along).
void boids_raise(float v[3], float min) {
    if (!(min > 0.0f))
        return;
    float m2 = glm_vec3_norm2(v);
    if (m2 > 0.0f && m2 < min * min)
        glm_vec3_scale(v, min / sqrtf(m2), v);
}

// v.setMag(m); the zero vector stays zero (as p5's normalize()).
void boids_set_mag(const float v[3], float m, float dest[3]) {
    glm_vec3_scale_as((float *)v, m, dest);
}

// Reynolds' steering formula: steer = desired - velocity, limit(maxforce).
void boids_steer_from_desired(const float desired[3], const float vel[3], float maxforce, float dest[3]) {
    glm_vec3_sub((float *)desired, (float *)vel, dest);
    boids_limit(dest, maxforce);
}
