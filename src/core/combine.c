// src/core/combine.c: one step of Buckland's prioritised truncated running
// sum ("Programming Game AI by Example", ch. 3, AccumulateForce).
// GLSL twin: shaders/behaviors.glsl accumulate_force().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// remaining = maxforce - |total|; none left: false (stop). A force shorter
// than remaining is added whole (true: go on); a longer one is added
// normalised * remaining, and false: it spent the budget.
bool boids_accumulate_force(float total[3], const float force[3], float maxforce) {
    float remaining = maxforce - glm_vec3_norm(total);
    if (!(remaining > 0.0f))
        return false;
    float mag = glm_vec3_norm((float *)force);
    if (mag < remaining) {
        glm_vec3_add(total, (float *)force, total);
        return true;
    }
    float k = remaining / mag;
    for (int a = 0; a < 3; a++)
        total[a] += force[a] * k;
    return false;
}
