// src/core/world.c: world geometry: wrapping (the minimum-image delta is inline in
// boids/behaviors.h).
// GLSL twins: world_delta(), world_wrap().
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids/behaviors.h"
#include "threads.h"

// Position into [min, min + size) on each axis with extent (torus). Handles
// any distance outside, not just one world width.
void boids_world_wrap(const boids_world_params *w, float pos[3]) {
    for (int a = 0; a < 3; a++) {
        float size = w->size[a];
        if (!(size > 0.0f))
            continue;
        float lo = w->min[a], hi = w->min[a] + size;
        float p = pos[a];
        if (p < lo || p >= hi) {
            float x = p - lo;
            x -= size * floorf(x / size);
            p = lo + x;
            // Rounding can land exactly on hi (or a hair below lo).
            if (p >= hi || p < lo)
                p = lo;
        }
        pos[a] = p;
    }
}

// See boids/behaviors.h.
const char *boids_agent_check(const boids_params *p, uint32_t id, const float pos[4], const float vel[4],
                              uint32_t group, char *why, size_t why_size) {
    for (int k = 0; k < 4; k++)
        if (!isfinite(pos[k]) || !isfinite(vel[k])) {
            snprintf(why, why_size, "has a NaN or infinite position or velocity");
            return why;
        }
    // Every step leaves agents inside the world (a wrapped coordinate may
    // round onto its upper edge; margin's band beyond it), z at the floor in 2D.
    const boids_world_params *wp = &p->world;
    float r = boids_world_overhang(wp);
    for (uint32_t ax = 0; ax < 3; ax++) {
        float lo = wp->min[ax], hi = wp->min[ax] + wp->size[ax];
        if (ax < wp->dim) {
            lo -= r;
            hi += r;
        }
        bool inside = ax < wp->dim ? (pos[ax] >= lo && pos[ax] <= hi) : (pos[ax] == lo && vel[ax] == 0.0f);
        if (!inside) {
            snprintf(why, why_size, "is outside the world on axis %c (%g; the world is %g..%g)", "xyz"[ax],
                     (double)pos[ax], (double)lo, (double)hi);
            return why;
        }
    }
    // Every step limits speeds to the agent's maxspeed (its range's draw or
    // the group's; the fixed-point alignment sums rely on it); a little
    // rounding above it is fine.
    double speed2 = (double)vel[0] * vel[0] + (double)vel[1] * vel[1] + (double)vel[2] * vel[2];
    double own = boids_agent_maxspeed(wp, &p->group[group < BOIDS_MAX_GROUPS ? group : 0], id);
    double limit = 1.001 * own;
    if (!(speed2 <= limit * limit)) {
        snprintf(why, why_size, "is faster (%g) than its maxspeed (%g)", sqrt(speed2), own);
        return why;
    }
    return NULL;
}

// Whether x, y and z of every row are finite: the exponent bits of each
// (all ones: an infinity or a NaN) or-ed together.
static bool rows_finite(const float (*v)[4], uint32_t n, int threads) {
    unsigned bad = 0;
#pragma omp parallel for reduction(| : bad) schedule(static) num_threads(threads) if (n >= 65536u)
    for (int i = 0; i < (int)n; i++)
        for (int a = 0; a < 3; a++) {
            uint32_t b;
            memcpy(&b, &v[i][a], sizeof b);
            bad |= (b & 0x7f800000u) == 0x7f800000u;
        }
    return bad == 0;
}

// See boids/behaviors.h.
uint32_t boids_first_nonfinite(const float (*pos)[4], const float (*vel)[4], const uint32_t *ids, uint32_t n,
                               int threads) {
    int t = boids_step_threads(threads);
    if (rows_finite(pos, n, t) && rows_finite(vel, n, t))
        return UINT32_MAX;
    uint32_t row = UINT32_MAX, id = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = ids ? ids[i] : i;
        bool bad = false;
        for (int a = 0; a < 3; a++)
            bad = bad || !isfinite(pos[i][a]) || !isfinite(vel[i][a]);
        if (bad && k < id)
            row = i, id = k;
    }
    return row;
}
