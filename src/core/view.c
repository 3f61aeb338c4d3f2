// src/core/view.c: Flake's fourth rule, "view" (The Computational Beauty of
// Nature, cited in Nature of Code 5, exercise 5.17): move laterally away from
// any boid that blocks the view. GLSL twins: view_frame(), view_term(), view().
//
// Each blocker is counted on a side of the agent's velocity, as an integer,
// and the agent steers by the counts' balance. The sides come from the signs
// of dot products with a frame built from the velocity by products and sums
// alone (no square root, no division): correctly rounded in C and GLSL
// alike, so every driver counts the same integers. (A sum of unit vectors
// away from each blocker, as this rule once was, cancels exactly when as
// many blockers lie left as right, and its rounding residue, which hangs on
// the last bit of a square root, then decided a full force's direction.)
#include <cglm/vec3.h>

#include "boids/behaviors.h"

// The frame perpendicular to the velocity, unnormalised: u = up x vel (the
// agent's left; up = z, or y when the velocity is within ~26 deg of z),
// w = vel x u (the agent's up; along z in 2D, where no blocker has a z).
void boids_view_frame(const float vel[3], float u[3], float w[3]) {
    float up[3] = {0.0f, 0.0f, 1.0f};
    if (vel[2] * vel[2] > 0.81f * glm_vec3_norm2((float *)vel)) {
        up[1] = 1.0f;
        up[2] = 0.0f;
    }
    glm_vec3_cross(up, (float *)vel, u);
    glm_vec3_cross((float *)vel, u, w);
}

// A blocker's sides, away from it: {-sign(offset . u), -sign(offset . w)};
// dead ahead (both 0): {1, 0}, turn left.
void boids_view_term(const float offset[3], const float vel[3], int32_t dest[2]) {
    float u[3], w[3];
    boids_view_frame(vel, u, w);
    float along_u = glm_vec3_dot((float *)offset, u), along_w = glm_vec3_dot((float *)offset, w);
    dest[0] = (along_u < 0.0f) - (along_u > 0.0f);
    dest[1] = (along_w < 0.0f) - (along_w > 0.0f);
    if (dest[0] == 0 && dest[1] == 0)
        dest[0] = 1;
}

// setMag(sum[0] u/|u| + sum[1] w/|w|, maxspeed) - velocity; no blocker, or
// as many on each side: no force.
void boids_view(const int32_t sum[2], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0 || (sum[0] == 0 && sum[1] == 0))
        return;
    float u[3], w[3], lateral[3], desired[3];
    boids_view_frame(vel, u, w);
    boids_set_mag(u, 1.0f, u);
    boids_set_mag(w, 1.0f, w);
    for (int a = 0; a < 3; a++)
        lateral[a] = (float)sum[0] * u[a] + (float)sum[1] * w[a];
    boids_set_mag(lateral, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
