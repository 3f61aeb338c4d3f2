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
// along its segment. Otherwise no force.
void boids_path_follow(const float pos[3], const float vel[3], const boids_scene *scene, float predict, float ahead,
                       float maxspeed, float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    uint32_t n = scene->path_count;
    if (n < 2)
        return;
    float future[3], step[3];
    boids_set_mag(vel, predict, step);
    glm_vec3_add((float *)pos, step, future);
    uint32_t segments = scene->path_closed ? n : n - 1;
    float best = INFINITY, target[3] = {0, 0, 0};
    for (uint32_t i = 0; i < segments; i++) {
        const float *a = scene->path[i];
        const float *b = scene->path[(i + 1) % n];
        float normal[3], dir[3];
        boids_normal_point(future, a, b, normal);
        float d = glm_vec3_distance(future, normal);
        if (d < best) {
            best = d;
            glm_vec3_sub((float *)b, (float *)a, dir);
            boids_set_mag(dir, ahead, dir);
            glm_vec3_add(normal, dir, target);
        }
    }
    if (best > scene->path_radius) {
        float to_target[3];
        glm_vec3_sub(target, (float *)pos, to_target);
        boids_seek(to_target, vel, maxspeed, maxforce, dest);
    }
}
