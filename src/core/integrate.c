// src/core/integrate.c: locomotion (Nature of Code 5, "Vehicles and
// Steering": velocity += acceleration; limit(maxspeed); position +=
// velocity), with a fixed dt, an optional turn-rate limit along the shortest
// signed angle (boids-angle-bug.txt), and the boundary modes.
// GLSL twins: shaders/models.glsl turn_limit(), boundary(), integrate().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Rotate the new velocity back toward the old heading so that the heading
// turns by at most max_angle. 2D: angles, differenced by boids_angle_diff
// (never raw angles). 3D: rotation in the plane of the two headings.
void boids_turn_limit(const float old_vel[3], float max_angle, uint32_t dim, float vel[3]) {
    float speed = glm_vec3_norm(vel);
    float old_speed = glm_vec3_norm((float *)old_vel);
    // No limit, or one of pi or more (no turn is longer than pi).
    if (!(max_angle > 0.0f) || max_angle >= BOIDS_PI || speed == 0.0f || old_speed == 0.0f)
        return;
    if (dim == 2) {
        float from = boids_atan2f(old_vel[1], old_vel[0]);
        float to = boids_atan2f(vel[1], vel[0]);
        float diff = boids_angle_diff(to, from);
        if (fabsf(diff) <= max_angle)
            return;
        float a = from + (diff > 0.0f ? max_angle : -max_angle);
        vel[0] = speed * boids_cosf(a);
        vel[1] = speed * boids_sinf(a);
        return;
    }
    float u[3], v[3];
    glm_vec3_scale((float *)old_vel, 1.0f / old_speed, u);
    glm_vec3_scale(vel, 1.0f / speed, v);
    float c = glm_vec3_dot(u, v);
    c = c > 1.0f ? 1.0f : (c < -1.0f ? -1.0f : c);
    if (c >= boids_cosf(max_angle)) // the same test as acos(c) <= max_angle for max_angle in (0, pi]
        return;
    // Unit vector in the turning plane, perpendicular to u.
    float w[3];
    for (int a = 0; a < 3; a++)
        w[a] = v[a] - u[a] * c;
    if (glm_vec3_norm2(w) == 0.0f) {
        // Reversal: any perpendicular plane is shortest; use the one with z (or y).
        float up[3] = {0.0f, 0.0f, 1.0f};
        if (fabsf(u[2]) > 0.9f) {
            up[1] = 1.0f;
            up[2] = 0.0f;
        }
        glm_vec3_cross(up, u, w);
    }
    glm_vec3_normalize(w);
    float cm = boids_cosf(max_angle), sm = boids_sinf(max_angle);
    for (int a = 0; a < 3; a++)
        vel[a] = speed * (u[a] * cm + w[a] * sm);
}

// Reflect a coordinate that left [lo, hi] back inside and flip the velocity
// component; a coordinate far outside is clamped.
static void bounce_axis(float lo, float hi, float *p, float *v) {
    if (*p < lo) {
        *p = lo + (lo - *p);
        *v = fabsf(*v);
    } else if (*p > hi) {
        *p = hi - (*p - hi);
        *v = -fabsf(*v);
    }
    if (*p < lo)
        *p = lo;
    if (*p > hi)
        *p = hi;
}

// The sketch's borders() on one axis (Nature of Code 5, Example 5.11): more
// than r beyond an edge, the boid reappears r beyond the opposite edge; the
// overshoot is lost and the velocity kept.
static void margin_axis(float lo, float hi, float r, float *p) {
    if (*p < lo - r)
        *p = hi + r;
    else if (*p > hi + r)
        *p = lo - r;
}

// Boundary mode after the move. walls: the stay-within-walls force does the
// steering (steer stage); leaving the box anyway bounces, as a hard stop.
// margin: the sketch's borders() with r = world.margin (0: the sketch's 3).
void boids_boundary(const boids_world_params *w, float pos[3], float vel[3]) {
    if (w->boundary == BOIDS_BOUNDARY_WRAP) {
        boids_world_wrap(w, pos);
    } else if (w->boundary == BOIDS_BOUNDARY_MARGIN) {
        float r = boids_world_overhang(w);
        for (int a = 0; a < 3; a++)
            if (w->size[a] > 0.0f)
                margin_axis(w->min[a], w->min[a] + w->size[a], r, &pos[a]);
    } else {
        for (int a = 0; a < 3; a++)
            if (w->size[a] > 0.0f)
                bounce_axis(w->min[a], w->min[a] + w->size[a], &pos[a], &vel[a]);
    }
    if (w->dim == 2) {
        pos[2] = w->min[2];
        vel[2] = 0.0f;
    }
}

// Semi-implicit Euler with fixed dt: v += a dt; v.limit(maxspeed); raised to
// min_speed (0: not); turn limit; p += v dt; boundary. With dt = 1 this is the chapter's update() exactly.
// The seeds' rule sets move otherwise (src/core/rules.c): tutorial: v = (v +
// a dt) normalised x maxspeed, then the turn limit; heading: acc[0] is the
// step's turn, the heading turns by it at the constant speed maxspeed;
// circles: acc is the step's displacement per time unit, v = acc; vicsek
// and couzin: acc is the new unit heading, v = maxspeed acc.
void boids_integrate(const boids_world_params *w, const boids_group_params *g, const float pos[3],
                     const float vel[3], const float acc[3], float pos_out[3], float vel_out[3]) {
    float v[3], p[3];
    if (g->rules == BOIDS_RULES_HEADING) {
        boids_heading_velocity(vel, acc[0], g->maxspeed, v);
    } else if (g->rules == BOIDS_RULES_VICSEK || g->rules == BOIDS_RULES_COUZIN) {
        glm_vec3_scale((float *)acc, g->maxspeed, v); // the new unit heading (src/core/models.c), at v0
    } else if (g->rules == BOIDS_RULES_CIRCLES) {     // the displacement is the velocity (at most maxspeed)
        glm_vec3_copy((float *)acc, v);
        boids_limit(v, g->maxspeed);
    } else if (g->rules == BOIDS_RULES_TUTORIAL) {
        boids_tutorial_velocity(vel, acc, w->dt, g->maxspeed, v);
        boids_turn_limit(vel, g->max_turn * w->dt, w->dim, v);
    } else {
        for (int a = 0; a < 3; a++)
            v[a] = vel[a] + acc[a] * w->dt;
        boids_limit(v, g->maxspeed);
        boids_raise(v, g->min_speed);
        boids_turn_limit(vel, g->max_turn * w->dt, w->dim, v);
    }
    for (int a = 0; a < 3; a++)
        p[a] = pos[a] + v[a] * w->dt;
    boids_boundary(w, p, v);
    glm_vec3_copy(p, pos_out);
    glm_vec3_copy(v, vel_out);
}
