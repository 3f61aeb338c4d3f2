// src/core/view.c: Flake's fourth rule, "view" (The Computational Beauty of
// Nature, cited in Nature of Code 5, exercise 5.17): move laterally away from
// any boid that blocks the view. GLSL twins: view_term(), view().
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Unit vector from the blocker's line of sight outward, perpendicular to the
// heading; a blocker dead ahead: the heading turned left (+90 deg about z,
// or about y when heading along z).
void boids_view_term(const float offset[3], const float heading[3], float dest[3]) {
    float along = glm_vec3_dot((float *)offset, (float *)heading);
    float lateral[3];
    for (int a = 0; a < 3; a++)
        lateral[a] = -(offset[a] - heading[a] * along);
    if (glm_vec3_norm2(lateral) > 0.0f) {
        boids_set_mag(lateral, 1.0f, dest);
        return;
    }
    float up[3] = {0.0f, 0.0f, 1.0f};
    if (heading[2] > 0.9f || heading[2] < -0.9f) {
        up[1] = 1.0f;
        up[2] = 0.0f;
    }
    glm_vec3_cross(up, (float *)heading, dest);
    boids_set_mag(dest, 1.0f, dest);
}

// setMag(sum, maxspeed) - velocity; no blocker: no force.
void boids_view(const float sum[3], uint32_t count, const float vel[3], float maxspeed, float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0 || glm_vec3_norm2((float *)sum) == 0.0f)
        return;
    float desired[3];
    boids_set_mag(sum, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
