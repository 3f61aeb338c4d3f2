// tests/layouts.h: helpers of the neighbour-index suite (test_index.c; and
// create for test_sim.c and test_behaviors.c): a small deterministic
// generator, one-group worlds, simulations on one thread, hand-placed agents.
#ifndef BOIDS_TEST_LAYOUTS_H
#define BOIDS_TEST_LAYOUTS_H

#include <stdint.h>

#include "boids/core.h"

// A small deterministic generator for hand-placed layouts, and [0, 1) from it.
uint32_t lcg_next(uint32_t *s);
float lcg_unit(uint32_t *s);
// qsort comparison of uint32_t.
int cmp_u32(const void *a, const void *b);
// Parameters for a one-group world: radius r is the perception radius and
// the largest interaction radius (separation r/2, view r).
void world_params(boids_params *p, uint32_t n, uint32_t dim, uint32_t boundary, const float min[3], const float size[3],
                  float r);
// A simulation of p on one thread (finalize checked first).
boids_sim *create(const boids_params *p, boids_distribution dist);
// Replace the agents of s by the positions pos (id order); velocities from the seed.
void place(boids_sim *s, float (*pos)[4], uint32_t seed);

// n positions (id order, malloc'd) on and around every cell seam of w, at
// its corners and edges, and one radius r (+-3 ULP) from a seam, so pairs
// straddle three cells; every fifth coordinate anywhere in the world.
// b: the boundary mode (part of the generator's seed).
float (*seam_positions(const boids_world_params *w, uint32_t b, float r, uint32_t n))[4];

#endif
