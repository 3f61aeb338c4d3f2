// src/render/lines.c: world-space line lists (no GL): a segment, a ring and
// the scene of the viewer (world box, path, obstacles, walls, target). The debug
// overlays (overlays.c) build on the segment and the ring too.
#include <math.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/render.h"

// See boids/render.h.
size_t boids_lines_segment(boids_line_vertex *v, size_t n, size_t cap, const float a[3], const float b[3],
                           const float rgba[4]) {
    if (n + 2 > cap)
        return n;
    memcpy(v[n].pos, a, 12);
    memcpy(v[n].color, rgba, 16);
    memcpy(v[n + 1].pos, b, 12);
    memcpy(v[n + 1].color, rgba, 16);
    return n + 2;
}

// See boids/render.h: 48 segments per circle, in the planes xy, xz, yz.
size_t boids_lines_ring(boids_line_vertex *v, size_t n, size_t cap, const float c[3], float r, uint32_t dim,
                        const float rgba[4]) {
    static const int planes[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (uint32_t pl = 0; pl < (dim == 3 ? 3u : 1u); pl++)
        for (int k = 0; k < 48; k++) {
            float a0 = (float)k / 48.0f * BOIDS_TWO_PI, a1 = (float)(k + 1) / 48.0f * BOIDS_TWO_PI;
            float p[3] = {c[0], c[1], c[2]}, q[3] = {c[0], c[1], c[2]};
            p[planes[pl][0]] += r * cosf(a0);
            p[planes[pl][1]] += r * sinf(a0);
            q[planes[pl][0]] += r * cosf(a1);
            q[planes[pl][1]] += r * sinf(a1);
            n = boids_lines_segment(v, n, cap, p, q, rgba);
        }
    return n;
}

// The 12 edges of the world box (4 in 2D, at z = 0).
static size_t box(const boids_world_params *w, boids_line_vertex *v, size_t n, size_t cap, const float rgba[4]) {
    float lo[3] = {w->min[0], w->min[1], w->min[2]};
    float hi[3] = {w->min[0] + w->size[0], w->min[1] + w->size[1], w->min[2] + w->size[2]};
    for (int e = 0; e < 12; e++) {
        int axis = e / 4, b0 = e & 1, b1 = (e >> 1) & 1;
        if (w->dim == 2 && (axis == 2 || b1))
            continue;
        int u = (axis + 1) % 3, t = (axis + 2) % 3;
        float a[3], b[3];
        a[axis] = lo[axis];
        b[axis] = hi[axis];
        a[u] = b[u] = b0 ? hi[u] : lo[u];
        a[t] = b[t] = b1 ? hi[t] : lo[t];
        if (w->dim == 2) {
            a[2] = b[2] = 0.0f;
            if (axis == 1) // y edges of the rectangle: x at lo or hi
                a[0] = b[0] = b0 ? hi[0] : lo[0];
        }
        n = boids_lines_segment(v, n, cap, a, b, rgba);
    }
    return n;
}

// Wall k of the scene: a segment as it is; a plane of 2D (a line) clipped
// to the world's rectangle; a plane of 3D as a square of half the world's
// larger side round its point, with its normal a tenth as long.
static size_t wall_lines(const boids_world_params *w, const float wa[4], const float wb[4], boids_line_vertex *v,
                         size_t n, size_t cap, const float rgba[4]) {
    if (wa[3] == BOIDS_WALL_SEGMENT)
        return boids_lines_segment(v, n, cap, wa, wb, rgba);
    float big = fmaxf(w->size[0], fmaxf(w->size[1], w->size[2]));
    if (w->dim == 2) {
        float d[2] = {-wb[1], wb[0]}, t0 = -INFINITY, t1 = INFINITY;
        for (int a = 0; a < 2; a++) { // Liang-Barsky against [min, min + size]
            float lo = w->min[a], hi = w->min[a] + w->size[a];
            if (d[a] == 0.0f) {
                if (wa[a] < lo || wa[a] > hi)
                    return n;
                continue;
            }
            float ta = (lo - wa[a]) / d[a], tb = (hi - wa[a]) / d[a];
            t0 = fmaxf(t0, fminf(ta, tb));
            t1 = fminf(t1, fmaxf(ta, tb));
        }
        if (!(t0 <= t1))
            return n;
        float a[3] = {wa[0] + d[0] * t0, wa[1] + d[1] * t0, 0.0f}, b[3] = {wa[0] + d[0] * t1, wa[1] + d[1] * t1, 0.0f};
        return boids_lines_segment(v, n, cap, a, b, rgba);
    }
    float nrm[3], s[3], u[3], up[3];
    boids_set_mag(wb, 1.0f, nrm);
    boids_leader_frame(nrm, 3, up, s, u); // two directions across the normal
    float h = 0.25f * big, c[4][3];
    for (int k = 0; k < 4; k++) {
        float ks = (k == 0 || k == 3) ? -h : h, ku = k < 2 ? -h : h;
        for (int a = 0; a < 3; a++)
            c[k][a] = wa[a] + s[a] * ks + u[a] * ku;
    }
    const int order[5] = {0, 1, 2, 3, 0};
    for (int k = 0; k < 4; k++)
        n = boids_lines_segment(v, n, cap, c[order[k]], c[order[k + 1]], rgba);
    float tip[3] = {wa[0] + nrm[0] * 0.4f * h, wa[1] + nrm[1] * 0.4f * h, wa[2] + nrm[2] * 0.4f * h};
    return boids_lines_segment(v, n, cap, wa, tip, rgba);
}

// See boids/render.h.
size_t boids_lines_scene(const boids_params *p, bool path, boids_line_vertex *v, size_t n, size_t cap) {
    static const float box_col[4] = {0.5f, 0.55f, 0.65f, 0.7f}, path_col[4] = {0.4f, 0.9f, 0.5f, 0.8f},
                       obst_col[4] = {1.0f, 0.45f, 0.35f, 0.9f}, target_col[4] = {1.0f, 1.0f, 1.0f, 0.9f};
    const boids_world_params *w = &p->world;
    const boids_scene *sc = &p->scene;
    uint32_t beh = p->group[0].behaviors;
    n = box(w, v, n, cap, box_col);
    if ((beh & BOIDS_BIT(BOIDS_BI_PATH)) || path) {
        uint32_t m = sc->path_count;
        for (uint32_t k = 0; k + 1 < m + ((sc->path_flags & BOIDS_PATH_CLOSED) ? 1u : 0u); k++)
            n = boids_lines_segment(v, n, cap, sc->path[k], sc->path[(k + 1) % m], path_col);
    }
    if (beh & BOIDS_BIT(BOIDS_BI_OBSTACLES))
        for (uint32_t k = 0; k < sc->obstacle_count; k++)
            n = boids_lines_ring(v, n, cap, sc->obstacle[k], sc->obstacle[k][3], w->dim, obst_col);
    static const float wall_col[4] = {0.95f, 0.85f, 0.45f, 0.95f};
    for (uint32_t k = 0; k < sc->wall_count && k < BOIDS_MAX_WALLS; k++) // walls are given, never defaults: always
        n = wall_lines(w, sc->wall[2 * k], sc->wall[2 * k + 1], v, n, cap, wall_col);
    uint32_t targeted = BOIDS_BIT(BOIDS_BI_SEEK) | BOIDS_BIT(BOIDS_BI_FLEE) | BOIDS_BIT(BOIDS_BI_ARRIVE) |
                        BOIDS_BIT(BOIDS_BI_PURSUE) | BOIDS_BIT(BOIDS_BI_EVADE);
    bool show_target = beh & targeted;
    // Any group that steers by the target as a named agent (its leader, or
    // one of the two it interposes between).
    for (uint32_t g = 0; g < p->world.group_count && g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        bool leads = q->behaviors & (BOIDS_BIT(BOIDS_BI_OFFSET) | BOIDS_BIT(BOIDS_BI_FOLLOW));
        bool inter = q->behaviors & BOIDS_BIT(BOIDS_BI_INTERPOSE);
        show_target = show_target || (leads && q->leader == BOIDS_ID_TARGET) ||
                      (inter && (q->interpose_a == BOIDS_ID_TARGET || q->interpose_b == BOIDS_ID_TARGET));
    }
    if (show_target) { // a cross of 1.5 % of the world's larger side
        float r = 0.015f * (w->size[0] > w->size[1] ? w->size[0] : w->size[1]);
        for (int a = 0; a < (int)w->dim; a++) {
            float s[3] = {w->target_pos[0], w->target_pos[1], w->dim == 3 ? w->target_pos[2] : 0.0f}, e[3];
            memcpy(e, s, sizeof e);
            s[a] -= r;
            e[a] += r;
            n = boids_lines_segment(v, n, cap, s, e, target_col);
        }
    }
    return n;
}
