// src/gpu/steer_spec.h: what a steer program is specialised to (the run's
// constants), its key in the backend's program cache, and the defines that
// make it (shaders/common.glsl BOIDS_SPEC_*). No GL. Not public API.
//
// Offers: boids_steer_spec, boids_steer_spec_of, boids_steer_spec_defines,
// boids_steer_spec_equal.
#ifndef BOIDS_STEER_SPEC_H
#define BOIDS_STEER_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boids/core.h"

// The run's constants a steer program is compiled for. Every field is a
// superset of what the groups use (behaviours and rule sets as bit masks),
// so the program computes exactly what the general one does for them.
typedef struct boids_steer_spec {
    uint32_t behaviors; // bits BOIDS_BI_* some group has (and walls under the walls boundary)
    uint32_t rules;     // bits BOIDS_RULES_* some group follows
    uint32_t dim;       // 2 or 3
    uint32_t boundary;  // BOIDS_BOUNDARY_*
    uint32_t combine;   // BOIDS_COMBINE_*
    uint32_t relations; // 1: some group has relations (0: all flock together)
    uint32_t topk;      // the largest neighbors_max of the groups (0: none keeps K nearest)
    uint32_t fine;      // the grid's factor M
} boids_steer_spec;

// The spec of the groups `group` (world->group_count of them) in `world`.
void boids_steer_spec_of(const boids_world_params *world, const boids_group_params *group, boids_steer_spec *out);

// The "#define BOIDS_SPEC_* ...\n" lines of the spec into buf (NUL-terminated;
// false when size is too small).
bool boids_steer_spec_defines(const boids_steer_spec *s, char *buf, size_t size);

// One short line naming the spec ("2D wrap sum chapter: separation, alignment, cohesion").
void boids_steer_spec_name(const boids_steer_spec *s, char *buf, size_t size);

bool boids_steer_spec_equal(const boids_steer_spec *a, const boids_steer_spec *b);

#endif
