// src/core/steer_internal.h: what the files of the steer stage share (not
// public API). steer.c, the stage over every agent, steers one agent in two
// steps: steer_gather.c gathers its neighbourhood into the sums of struct
// gather, then steer_behaviors.c turns them into its acceleration. Those
// two call neither each other nor steer.c.
#ifndef BOIDS_STEER_INTERNAL_H
#define BOIDS_STEER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "boids/behaviors.h"
#include "boids/core.h"
#include "grid_internal.h"

// Order-independent neighbourhood sums of one agent.
typedef struct gather {
    int64_t sep[3], ali[3], coh[3], esc[3];
    int32_t view[2]; // the view rule's sides: integer counts
    uint32_t sep_n, ali_n, coh_n, view_n, esc_n;
    uint32_t neighbors, candidates;
    float nearest2;     // smallest d^2 among neighbours, INFINITY if none
    uint32_t prey_slot; // nearest prey (ties: smaller id), UINT32_MAX if none
    float prey_d2;
    uint32_t prey_id;
    uint32_t hunter_slot; // nearest hunter for hide (ties: smaller id), UINT32_MAX if none
    float hunter_d2;
    uint32_t hunter_id;
    float inv_speed, inv_radius;     // scales of the alignment / cohesion terms (inv_radius: 1 / cohesion's radius)
    float ali_r2, coh_r2;            // squared radii of alignment and cohesion
    float sep_cos, ali_cos, coh_cos; // the cones of separation, alignment, cohesion
    bool cones;                      // any of them narrower than all around
    uint32_t dim;
    uint32_t queue_n;   // neighbours that block (queue): a count, the same in any order
    float avoid_t;      // soonest threat's closest-approach time (avoid), INFINITY if none
    uint32_t avoid_id;  // its id (ties: the smaller), UINT32_MAX if none
    float avoid_off[3]; // its predicted offset at avoid_t, times |dv|^2 (boids_avoid_threat)
    float vel[3];       // the agent's own velocity (queue, avoid)
} gather;

// fix3 (steer_gather.c) for terms known to lie in [-1, 1] (offset / radius
// with d < radius; velocity / the largest maxspeed, speeds being limited on
// entry and every step): no saturation or NaN test needed, the same bits as
// boids_fix. In 2D the z terms are all 0, so z is added only in 3D.
static inline void fix3_unit(int64_t acc[3], const float v[3], uint32_t dim) {
    acc[0] += (int64_t)(v[0] * (float)BOIDS_FIX_UNIT);
    acc[1] += (int64_t)(v[1] * (float)BOIDS_FIX_UNIT);
    if (dim == 3)
        acc[2] += (int64_t)(v[2] * (float)BOIDS_FIX_UNIT);
}

// The 2D flocking path's scratch of a step (see the path in steer_gather.c).
typedef struct flock2d {
    const float (*xy)[2];    // per slot of cur: x, y
    const int64_t (*ali)[2]; // per slot of cur: the alignment term, fixed point
} flock2d;

// The slot ranges of the last cell a thread looked at: agents in slot order
// are in cell order, so consecutive agents mostly share their cell, and the
// ranges depend on the cell alone (and the grid, fixed during the stage).
typedef struct cell_ranges {
    bool valid;
    uint32_t c[3], n;
    uint32_t range[BOIDS_GRID_MAX_RANGES][2];
} cell_ranges;

// Candidate ranges of the quadtree shared by the agents of one leaf: the
// leaves (or whole nodes) within the largest reach of the leaf's box.
#define LEAF_RANGES 512

typedef struct leaf_ranges {
    uint32_t n;
    uint32_t range[LEAF_RANGES][2]; // item[first, first + count)
} leaf_ranges;

// ---- steer_gather.c ----

// The neighbourhood of agent i (slot of cur) into acc, from the empty one:
// through `index` (quadtree: lr, the ranges of the agent's leaf, or NULL);
// every index gives the same pairs. Grid only: f, the 2D flocking path's
// scratch, or NULL; rc, the thread's cell_ranges.
void steer_gather(const boids_sim *s, uint32_t i, boids_index index, const leaf_ranges *lr, const flock2d *f,
                  cell_ranges *rc, gather *acc);
// The 2D flocking path's scratch for this step into f (see flock2d): false
// when no group takes the path (or the scratch cannot be allocated; the
// general path gives the same bits).
bool steer_gather_scratch(boids_sim *s, int threads, flock2d *f);

// ---- steer_behaviors.c ----

// The behaviours of agent i from its neighbourhood's sums acc: accel[i],
// the updated wander angles into next (pos.w, vel.w), neighbour statistics.
void steer_finish(boids_sim *s, uint32_t i, const gather *acc);

#endif
