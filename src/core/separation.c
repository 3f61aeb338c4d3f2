// src/core/separation.c: separation (Nature of Code 5, Example 5.9 and the
// flocking example). GLSL twins: shaders/behaviors.glsl separation_term(),
// separation().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// (position - other), normalised and divided by d (closer = stronger); made
// dimensionless by the separation radius for the fixed-point sum. d below
// radius * BOIDS_SEP_MIN_FRACTION counts as that distance.
void boids_separation_term(const float offset[3], float d, float sep_radius, float dest[3]) {
    float dmin = sep_radius * (float)BOIDS_SEP_MIN_FRACTION;
    float de = d > dmin ? d : dmin;
    float k = -sep_radius / (d * de); // -offset/d (unit away) * sep_radius/de
    glm_vec3_scale((float *)offset, k, dest);
}

// Chapter: steer.div(count); if (steer.mag() > 0) { setMag(maxspeed);
// sub(velocity); limit(maxforce) } — no neighbours (or a zero sum): no force.
void boids_separation(const float sum[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                      float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0 || glm_vec3_norm2((float *)sum) == 0.0f)
        return;
    float desired[3];
    boids_set_mag(sum, maxspeed, desired); // the division by count does not change the direction
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
