// src/core/path.c: path following (Nature of Code 5, "Path Following",
// Reynolds): a polyline with a radius. GLSL twins: normal_point(),
// path_shifts(), path_nearest(), path_follow(), stay_on_path().
#include <math.h>
#include <stdbool.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// The point of segment a-b that path following takes for p: the scalar
// projection t = (p - a).(b - a) / |b - a|^2 of p onto the line, then by
// flags (BOIDS_PATH_*):
//   default: the closest point of the segment; t <= 0 gives a and t >= 1
//     gives b themselves (not a + ab t, which may round off b), so a vertex
//     shared by two segments is the same bits from both;
//   BOIDS_PATH_OUTSIDE_END: outside the segment (t < 0 or t >= 1) the end
//     point b, as the book's Example 5.8 (which tests x only: its path runs
//     left to right, where that is the same test);
//   BOIDS_PATH_LINE_INFINITE: the point on the infinite line, unclamped
//     (Examples 5.5 and 5.6); it overrides OUTSIDE_END.
// Returns whether OUTSIDE_END took b for a projection outside the segment
// (the default's clamp to b is not "outside").
static bool normal_point_outside(const float p[3], const float a[3], const float b[3], uint32_t flags, float dest[3]) {
    float ap[3], ab[3];
    glm_vec3_sub((float *)p, (float *)a, ap);
    glm_vec3_sub((float *)b, (float *)a, ab);
    float len2 = glm_vec3_norm2(ab);
    float t = len2 > 0.0f ? glm_vec3_dot(ap, ab) / len2 : 0.0f;
    const float *end = NULL;
    bool outside = false;
    if (flags & BOIDS_PATH_LINE_INFINITE)
        end = NULL;
    else if (flags & BOIDS_PATH_OUTSIDE_END) {
        outside = t < 0.0f || t >= 1.0f;
        end = outside ? b : NULL;
    } else if (t <= 0.0f)
        end = a;
    else if (t >= 1.0f)
        end = b;
    for (int i = 0; i < 3; i++)
        dest[i] = end ? end[i] : a[i] + ab[i] * t;
    return outside;
}

void boids_normal_point(const float p[3], const float a[3], const float b[3], uint32_t flags, float dest[3]) {
    normal_point_outside(p, a, b, flags, dest);
}

// The shifts k (in worlds) along axis `axis` of the images of a segment
// (coordinates a, b on that axis, relative to the agent) that can hold the
// normal point nearest to f: an image more than half a world beyond the
// segment's extent is strictly farther than the image one world closer, so
// k runs over the integers with
//   min(a, b) + k size - size / 2 <= f <= max(a, b) + k size + size / 2.
// An axis that does not wrap: k = 0 only. At most BOIDS_PATH_MAX_SHIFT
// worlds either way.
void boids_path_shifts(const boids_world_params *w, uint32_t axis, float f, float a, float b, int32_t k[2]) {
    k[0] = k[1] = 0;
    float size = w->size[axis];
    if (w->boundary != BOIDS_BOUNDARY_WRAP || !(size > 0.0f))
        return;
    float lo = fminf(a, b), hi = fmaxf(a, b);
    float from = ceilf((f - hi) / size - 0.5f), to = floorf((f - lo) / size + 0.5f);
    const float most = (float)BOIDS_PATH_MAX_SHIFT;
    k[0] = (int32_t)fminf(fmaxf(from, -most), most);
    k[1] = (int32_t)fminf(fmaxf(to, -most), most);
}

// Of the normal points of `future` (relative to the agent at pos) on every
// image of every segment, the closest (ties: the earlier segment, strict <,
// as the book's 5.8 loop): its squared distance (INFINITY without a path),
// the point relative to the agent into normal, its segment and whether
// BOIDS_PATH_OUTSIDE_END took the segment's end point. Everything is
// relative to the agent: a path point is (point - pos) + k size, its image
// k worlds away, the same expression in both segments that share the
// point: a corner's two distances are equal bits. Path following and
// staying on the path share it.
static float path_nearest(const float pos[3], const float future[3], const boids_scene *scene,
                          const boids_world_params *w, float normal_best[3], uint32_t *segment, bool *outside_best) {
    uint32_t n = scene->path_count;
    uint32_t flags = scene->path_flags;
    uint32_t segments = (flags & BOIDS_PATH_CLOSED) ? n : n - 1;
    float best = INFINITY;
    for (uint32_t i = 0; i < segments; i++) {
        const float *pa = scene->path[i];
        const float *pb = scene->path[(i + 1) % n];
        float a0[3], b0[3];
        glm_vec3_sub((float *)pa, (float *)pos, a0);
        glm_vec3_sub((float *)pb, (float *)pos, b0);
        int32_t k[3][2];
        for (uint32_t ax = 0; ax < 3; ax++)
            boids_path_shifts(w, ax, future[ax], a0[ax], b0[ax], k[ax]);
        for (int32_t kx = k[0][0]; kx <= k[0][1]; kx++)
            for (int32_t ky = k[1][0]; ky <= k[1][1]; ky++)
                for (int32_t kz = k[2][0]; kz <= k[2][1]; kz++) {
                    float shift[3] = {(float)kx * w->size[0], (float)ky * w->size[1], (float)kz * w->size[2]};
                    float a[3], b[3], normal[3];
                    glm_vec3_add(a0, shift, a);
                    glm_vec3_add(b0, shift, b);
                    bool outside = normal_point_outside(future, a, b, flags, normal);
                    // Squared distances: the same decisions on every GPU (no sqrt).
                    float d = glm_vec3_distance2((float *)future, normal);
                    if (d < best) {
                        best = d;
                        glm_vec3_copy(normal, normal_best);
                        *segment = i;
                        *outside_best = outside;
                    }
                }
    }
    return best;
}

// Predict `predict` ahead; take the nearest normal point (path_nearest); if
// that is farther than the path radius, seek a target `ahead` along its
// segment (BOIDS_PATH_OUTSIDE_END on a closed path: a normal point outside
// its segment, the end point b, looks ahead along the next segment, b to the
// point after it, as the book's Exercise 5.13 "If we're at the end we really
// want the next line segment for looking ahead"; on an open path along its
// own, as the book's 5.8, whose last segment has no next). Otherwise no
// force.
void boids_path_follow(const float pos[3], const float vel[3], const boids_scene *scene, const boids_world_params *w,
                       float predict, float ahead, float maxspeed, float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    uint32_t n = scene->path_count;
    if (n < 2)
        return;
    float future[3], normal[3] = {0, 0, 0};
    boids_set_mag(vel, predict, future);
    uint32_t i = 0;
    bool outside = false;
    float best = path_nearest(pos, future, scene, w, normal, &i, &outside);
    if (!(best > scene->path_radius * scene->path_radius))
        return;
    uint32_t flags = scene->path_flags;
    // The look-ahead of the nearest point's segment (or the next one's).
    uint32_t from = i, to = (i + 1) % n;
    if (outside && (flags & BOIDS_PATH_CLOSED) && (flags & BOIDS_PATH_OUTSIDE_END))
        from = (i + 1) % n, to = (i + 2) % n;
    float ab[3], dir[3], to_target[3];
    glm_vec3_sub((float *)scene->path[to], (float *)scene->path[from], ab);
    boids_set_mag(ab, ahead, dir);
    glm_vec3_add(normal, dir, to_target);
    boids_seek(to_target, vel, maxspeed, maxforce, dest);
}

// Stay on the path (OpenSteer's steerToStayOnPath): predict `predict` ahead
// (as path following); if the nearest normal point (path_nearest: the same
// segments, images and tie rule) lies within the path's radius, no force;
// otherwise seek that point itself, the path's centre line nearest to the
// prediction (not a point further along it, as following does).
void boids_stay_on_path(const float pos[3], const float vel[3], const boids_scene *scene, const boids_world_params *w,
                        float predict, float maxspeed, float maxforce, float dest[3]) {
    glm_vec3_zero(dest);
    if (scene->path_count < 2)
        return;
    float future[3], normal[3] = {0, 0, 0};
    boids_set_mag(vel, predict, future);
    uint32_t i = 0;
    bool outside = false;
    float best = path_nearest(pos, future, scene, w, normal, &i, &outside);
    if (best > scene->path_radius * scene->path_radius)
        boids_seek(normal, vel, maxspeed, maxforce, dest);
}
