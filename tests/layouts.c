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
void world_params(boids_params *p, uint32_t n, uint32_t dim, uint32_t boundary, const float min[3],
                         const float size[3], float r) {
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
