// src/core/path.c: path following (Nature of Code 5, "Path Following",
// Reynolds): a polyline with a radius. GLSL twins: normal_point(), path_follow().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// Scalar projection of p onto a-b, clamped to the segment (the chapter uses
// the end point when the normal falls outside it).
void boids_normal_point(const float p[3], const float a[3], const float b[3], float dest[3]) {
    float ap[3], ab[3];
    glm_vec3_sub((float *)p, (float *)a, ap);
    glm_vec3_sub((float *)b, (float *)a, ab);
    float len2 = glm_vec3_norm2(ab);
    float t = len2 > 0.0f ? glm_vec3_dot(ap, ab) / len2 : 0.0f;
    if (t < 0.0f)
        t = 0.0f;
    if (t > 1.0f)
        t = 1.0f;
    for (int i = 0; i < 3; i++)
        dest[i] = a[i] + ab[i] * t;
}

// Predict `predict` ahead; of the normal points on all segments keep the
// closest; if that is farther than the path radius, seek a target `ahead`
// along its segment. Otherwise no force. Torus-correct: each segment is
// taken at its image nearest the future position (its start point by
// minimum image, its direction as is), so a path across the seam works.
void boids_path_follow(const float pos[3], const float vel[3], const boids_scene *scene,
                       const boids_world_params *w, float predict, float ahead, float maxspeed, float maxforce,
                       float dest[3]) {
    glm_vec3_zero(dest);
    uint32_t n = scene->path_count;
    if (n < 2)
        return;
    // Everything relative to the agent's position.
    float future[3];
    boids_set_mag(vel, predict, future);
    uint32_t segments = scene->path_closed ? n : n - 1;
    float best = INFINITY, to_target[3] = {0, 0, 0};
    for (uint32_t i = 0; i < segments; i++) {
        const float *pa = scene->path[i];
        const float *pb = scene->path[(i + 1) % n];
        float a[3], b[3], ab[3], rel[3], normal[3], dir[3];
        glm_vec3_sub((float *)pb, (float *)pa, ab);
        // a relative to the agent, at the image nearest the future position.
        boids_world_delta(w, pos, pa, rel);
        float near[3];
        boids_world_delta(w, future, rel, near);
        glm_vec3_add(future, near, a);
        glm_vec3_add(a, ab, b);
        boids_normal_point(future, a, b, normal);
        // Squared distances: the same decisions on every GPU (no sqrt).
        float d = glm_vec3_distance2(future, normal);
        if (d < best) {
            best = d;
            boids_set_mag(ab, ahead, dir);
            glm_vec3_add(normal, dir, to_target);
        }
    }
    if (best > scene->path_radius * scene->path_radius)
        boids_seek(to_target, vel, maxspeed, maxforce, dest);
}
