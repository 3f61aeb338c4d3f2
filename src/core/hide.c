// src/core/hide.c: hide (Buckland, "Programming Game AI by Example",
// Hide): from a hunter, go to the spot behind the nearest obstacle, on the
// far side of it from the hunter at its radius plus a margin; evade the
// hunter when no obstacle is near. GLSL twins: shaders/behaviors.glsl
// hiding_spot(), hide().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Buckland's GetHidingPosition, relative to the agent: centre +
// normalise(centre - hunter) * (radius + margin). A hunter at the centre
// gives no direction: the centre itself.
void boids_hiding_spot(const float to_centre[3], float radius, const float to_hunter[3], float margin, float dest[3]) {
    float away[3], out[3];
    glm_vec3_sub((float *)to_centre, (float *)to_hunter, away);
    boids_set_mag(away, radius + margin, out);
    glm_vec3_add((float *)to_centre, out, dest);
}

// The nearest obstacle (squared distance to its centre, minimum image; ties:
// the earlier one, strict <) whose centre lies within the perception
// radius: arrive at its hiding spot from the hunter; none: evade the hunter
// (its offset and velocity). No hunter: no force.
void boids_hide(const float pos[3], const float vel[3], bool has_hunter, const float to_hunter[3],
                const float hunter_vel[3], const boids_scene *scene, const boids_world_params *w, float radius,
                float margin, float predict, float arrive_radius, float maxspeed, float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    if (!has_hunter)
        return;
    float best = radius * radius, centre[3] = {0, 0, 0}, ob_radius = 0.0f;
    bool found = false;
    for (uint32_t i = 0; i < scene->obstacle_count; i++) {
        const float *ob = scene->obstacle[i];
        float off[3];
        boids_world_delta(w, pos, ob, off);
        float d2 = glm_vec3_norm2(off);
        if (d2 < best) {
            best = d2;
            glm_vec3_copy(off, centre);
            ob_radius = ob[3];
            found = true;
        }
    }
    if (!found) {
        boids_evade(to_hunter, hunter_vel, vel, predict, maxspeed, maxforce, dest);
        return;
    }
    float spot[3];
    boids_hiding_spot(centre, ob_radius, to_hunter, margin, spot);
    boids_arrive(spot, vel, arrive_radius, maxspeed, maxforce, dest);
}
