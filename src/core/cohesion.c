// src/core/cohesion.c: cohesion (Nature of Code 5, flocking: cohere()): seek
// the average position of the neighbours. GLSL twin: cohesion().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// mean_offset = centroid - position (minimum image); seek it; none: no force.
void boids_cohesion(const float mean_offset[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                    float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0)
        return;
    boids_seek(mean_offset, vel, maxspeed, maxforce, dest);
}
