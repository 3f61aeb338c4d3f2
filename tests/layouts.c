// tests/layouts.c: see layouts.h.
#include <math.h>
#include <stdlib.h>

#include <check.h>

#include "layouts.h"

// Check only when a condition fails (a passing ck_assert costs a write).
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

// A small deterministic generator for hand-placed layouts (splitmix-like).
uint32_t lcg_next(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    uint32_t x = *s;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return x;
}

float lcg_unit(uint32_t *s) {
    return (float)(lcg_next(s) >> 8) * (1.0f / 16777216.0f);
}

int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

// Parameters for a one-group world: radius r is the perception radius and
// the largest interaction radius (separation r/2, view r), so the grid's
// cells are at least r wide.
void world_params(boids_params *p, uint32_t n, uint32_t dim, uint32_t boundary, const float min[3], const float size[3],
                  float r) {
    boids_params_default(p, n, dim);
    p->world.boundary = boundary;
    for (int a = 0; a < 3; a++) {
        p->world.min[a] = min[a];
        p->world.size[a] = size[a];
    }
    p->group[0].radius = r;
    p->group[0].separation = 0.5f * r;
    p->group[0].view_radius = r;
}

boids_sim *create(const boids_params *p, boids_distribution dist) {
    boids_sim *s = NULL;
    char what[256] = "";
    boids_params q = *p;
    boids_result r = boids_params_finalize(&q, what, sizeof(what));
    EXPECT(r == BOIDS_OK, "finalize of the test world failed: %s (%s)", boids_result_str(r), what);
    r = boids_sim_create(&s, p, dist);
    EXPECT(r == BOIDS_OK && s, "boids_sim_create: %s", boids_result_str(r));
    // One thread: the suites run side by side on small CI machines, where
    // spinning OpenMP workers oversubscribe the cores (the thread count does
    // not change results: tests/test_sim.c checks that).
    s->threads = 1;
    return s;
}

// Replace the agents of s by the positions pos (id order); velocities from
// the seed (only positions matter to the grid).
void place(boids_sim *s, float (*pos)[4], uint32_t seed) {
    uint32_t n = s->n, st = seed;
    float(*vel)[4] = calloc(n ? n : 1, sizeof(*vel));
    uint32_t *group = calloc(n ? n : 1, sizeof(*group));
    EXPECT(vel && group, "out of memory for the test agents");
    for (uint32_t i = 0; i < n; i++) {
        float t = 6.2831853f * lcg_unit(&st);
        vel[i][0] = cosf(t);
        vel[i][1] = sinf(t);
        vel[i][2] = s->p.world.dim == 3 ? lcg_unit(&st) - 0.5f : 0.0f;
    }
    boids_result r = boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, group);
    EXPECT(r == BOIDS_OK, "set_agents: %s", boids_result_str(r));
    free(vel);
    free(group);
}

// Coordinates on and around every seam of one axis: lo + k * cell for
// k = 0..cells, moved by -3..+3 ULP, plus the seams shifted by the radius.
static uint32_t seam_coords(const boids_world_params *w, uint32_t a, float r, float *out, uint32_t cap) {
    uint32_t k = 0;
    for (uint32_t c = 0; c <= w->cells[a]; c++) {
        float base[2] = {w->min[a] + (float)c * w->cell[a], w->min[a] + (float)c * w->cell[a] + r};
        for (int b = 0; b < 2; b++)
            for (int u = -3; u <= 3; u++) {
                float x = base[b];
                for (int t = 0; t < (u < 0 ? -u : u); t++)
                    x = nextafterf(x, u < 0 ? -INFINITY : INFINITY);
                if (k < cap)
                    out[k++] = x;
            }
    }
    return k;
}

// See layouts.h.
float (*seam_positions(const boids_world_params *w, uint32_t b, float r, uint32_t n))[4] {
    uint32_t dim = w->dim;
    static float coord[3][4200];
    uint32_t nc[3] = {1, 1, 1};
    for (uint32_t a = 0; a < dim; a++)
        nc[a] = seam_coords(w, a, r, coord[a], 4200);
    if (dim == 2)
        coord[2][0] = w->min[2];
    float(*pos)[4] = calloc(n ? n : 1, sizeof(*pos));
    EXPECT(pos != NULL, "out of memory for the test agents");
    uint32_t st = 1234u + b * 7u + dim;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t a = 0; a < 3; a++) {
            uint32_t pick = lcg_next(&st) % nc[a];
            pos[i][a] = coord[a][pick];
            if (a < dim && i % 5 == 4) // some in the open, so seam agents meet off-seam ones too
                pos[i][a] = w->min[a] + w->size[a] * lcg_unit(&st);
        }
    // The corners themselves: min, min+size (wrap: = min; walls: the far
    // face), and a ULP inside each.
    for (uint32_t i = 0; i < n && i < 64; i++)
        for (uint32_t a = 0; a < dim; a++) {
            float lo = w->min[a], hi = w->min[a] + w->size[a];
            float choice[4] = {lo, nextafterf(lo, INFINITY), nextafterf(hi, -INFINITY), hi};
            pos[i][a] = choice[(i >> (2 * a)) & 3];
        }
    return pos;
}
