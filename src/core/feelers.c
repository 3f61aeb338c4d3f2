// src/core/feelers.c: wall avoidance with feelers (Buckland, "Programming
// Game AI by Example", WallAvoidance): three feelers from the agent, one
// ahead at full length and two at +-45 degrees at half length; each feeler
// that crosses a wall (the nearest crossing along it) pushes out along the
// wall's normal, on the agent's side, by how far the feeler's tip is past
// the crossing. The scene's walls: segments (2D) or planes (2D: lines).
// GLSL twins: shaders/behaviors.glsl feeler_hit(), feelers().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Does the feeler from p to tip (relative to the agent's position p, so tip
// is an offset) cross wall k? Then *t (0..1 along the feeler, the crossing)
// and the wall's unit normal on the agent's side. Segments: the crossing of
// the two segments in x, y (parallel ones never cross); planes: the tip on
// the far side of the plane or on it, the agent not on it.
bool boids_feeler_hit(const float p[3], const float tip[3], const float wa[4], const float wb[4], float *t,
                      float normal[3]) {
    if (wa[3] == BOIDS_WALL_PLANE) {
        float rel[3] = {p[0] - wa[0], p[1] - wa[1], p[2] - wa[2]};
        float n[3];
        boids_set_mag(wb, 1.0f, n);
        float sp = glm_vec3_dot(rel, n);               // the agent's signed distance
        float st = sp + glm_vec3_dot((float *)tip, n); // the tip's
        if (sp == 0.0f || (sp > 0.0f ? st > 0.0f : st < 0.0f))
            return false;
        *t = sp / (sp - st);
        float k = sp > 0.0f ? 1.0f : -1.0f;
        glm_vec3_scale(n, k, normal);
        return true;
    }
    // Segment a + u (b - a), u in [0, 1], and feeler p + t tip, t in [0, 1]:
    // with e = b - a, w = a - p, den = tip x e (2D cross),
    // t = (w x e) / den, u = (w x tip) / den.
    float ex = wb[0] - wa[0], ey = wb[1] - wa[1];
    float wx = wa[0] - p[0], wy = wa[1] - p[1];
    float den = tip[0] * ey - tip[1] * ex;
    if (den == 0.0f)
        return false;
    float tn = wx * ey - wy * ex, un = wx * tip[1] - wy * tip[0];
    float tt = tn / den, uu = un / den;
    if (!(tt >= 0.0f && tt <= 1.0f && uu >= 0.0f && uu <= 1.0f))
        return false;
    *t = tt;
    // The normal (-ey, ex) turned toward the agent: w . n > 0 means the
    // wall lies along n from the agent, so flip it.
    float nn[3] = {-ey, ex, 0.0f};
    if (wx * nn[0] + wy * nn[1] > 0.0f) {
        nn[0] = -nn[0];
        nn[1] = -nn[1];
    }
    boids_set_mag(nn, 1.0f, normal);
    return true;
}

// The three feelers (heading h, side s of the leader frame of the agent's
// own velocity: ahead length, (h +- s) / sqrt 2 at half length); for each,
// the nearest crossing (smallest t; ties: the earlier wall) adds normal *
// (1 - t) |feeler|. The sum limited to maxforce; no heading: no force.
void boids_feelers(const float pos[3], const float vel[3], const boids_scene *scene, uint32_t dim, float length,
                   float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    if (glm_vec3_norm2((float *)vel) == 0.0f || scene->wall_count == 0)
        return;
    float h[3], s[3], u[3];
    boids_leader_frame(vel, dim, h, s, u);
    const float diag = BOIDS_FEELER_DIAG * length; // half length at 45 degrees
    float feeler[3][3];
    for (int a = 0; a < 3; a++) {
        feeler[0][a] = h[a] * length;
        feeler[1][a] = h[a] * diag + s[a] * diag;
        feeler[2][a] = h[a] * diag - s[a] * diag;
    }
    for (int f = 0; f < 3; f++) {
        float best = INFINITY, normal[3] = {0, 0, 0};
        for (uint32_t k = 0; k < scene->wall_count && k < BOIDS_MAX_WALLS; k++) {
            float t, n[3];
            if (boids_feeler_hit(pos, feeler[f], scene->wall[2 * k], scene->wall[2 * k + 1], &t, n) && t < best) {
                best = t;
                glm_vec3_copy(n, normal);
            }
        }
        if (best == INFINITY)
            continue;
        float depth = (1.0f - best) * glm_vec3_norm(feeler[f]);
        for (int a = 0; a < 3; a++)
            dest[a] += normal[a] * depth;
    }
    boids_limit(dest, maxforce);
}
