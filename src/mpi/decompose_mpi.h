/* src/mpi/decompose_mpi.h: one simulation split over MPI ranks (issue 18,
 * first slice; the optional component, BOIDS_MPI). The world's cells (M = 1)
 * are cut into A x B (x C) boxes on an MPI_Cart_create grid (periodic on a
 * torus); each rank owns the agents whose cell is in its box. A step: the
 * halo (the cells one deep around the box; a cell is at least the largest
 * reach) is exchanged axis by axis with MPI_Ineighbor_alltoall (sizes) and
 * MPI_Ineighbor_alltoallv (agents) on the Cartesian communicator (corners
 * arrive through the second axis), the core's grid and steer stages run
 * over own + halo agents, integrate moves the own ones (boids_sim.owned),
 * the halo is dropped and the agents that left the box migrate, axis by axis
 * again. The neighbour sums are fixed point, so the result is the one
 * process's bit for bit. Every wait is a test loop with a time-out
 * (MPI_Abort, exit 3), never a hang. At the end rank 0 hands the final
 * world in id order to a callback (the caller's outputs). The library
 * (src/core, src/engine) never needs MPI.
 *
 * Offers: boids_decomp_parse, boids_decomp_refusal, boids_decomp_check,
 *         boids_decomp_run.
 */
#ifndef BOIDS_MPI_DECOMPOSE_H
#define BOIDS_MPI_DECOMPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "boids/core.h"

// "AxB" or "AxBxC" (each 1..4096) into parts (C = 0 when not given): false
// when it does not parse.
bool boids_decomp_parse(const char *text, uint32_t parts[3]);
// What of p this slice cannot split ("behaviour follow (a named agent)"), or
// NULL: p can run decomposed.
const char *boids_decomp_refusal(const boids_params *p);
// Whether parts fit p's grid (finalized) on `ranks` ranks: 0, or 2 with one
// line in err (a C part in 2D, A*B*C != ranks, a box narrower than a cell,
// or on a torus cut in two a box narrower than two cells: its halo's two
// sides would be the same cells).
int boids_decomp_check(const boids_params *p, uint32_t parts[3], int ranks, char *err, size_t err_size);

typedef struct boids_decomp_options {
    uint32_t parts[3];    // checked by boids_decomp_check (C 1 in 2D)
    uint64_t steps;       // steps to run
    uint64_t stats_every; // a statistics callback every K steps (and at the last)
    int threads;          // OpenMP threads per rank (0: default)
    double timeout_s;     // the longest wait for one exchange (0: 120 s)
    FILE *err;            // where a rank's time-out or abort is told (NULL: stderr)
    // rank 0: the statistics of the whole world after `step` (gathered in id order)
    void (*stats)(void *user, const boids_stats *st, double ms_per_step);
    // rank 0, once after the last step and the last exchange (NULL: none):
    // the final state of the whole world in id order, as the last statistics
    // gathered it: pos and vel with their wander lanes, group, and the last
    // step's neighbour counts (with 0 steps the initial state, counts 0);
    // `step` is the step counter after the run. The arrays live for the call.
    void (*final)(void *user, uint64_t step, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                  const uint32_t *group, const uint32_t *neighbors);
    void *user;
} boids_decomp_options;

typedef struct boids_decomp_result {
    uint64_t hash;                    // boids_state_hash of the final state (rank 0)
    boids_stats stats;                // of the final state (rank 0)
    double ms_per_step;               // wall time per step (rank 0's clock, the steps only)
    double halo_agents;               // mean halo agents per step per rank
    double halo_bytes, migrate_bytes; // bytes sent per step per rank, mean over steps, max over ranks
    uint64_t migrated;                // agents that changed rank, all ranks, all steps
    double wait_share;                // the share of the run a rank spent waiting for the others (the most of any)
} boids_decomp_result;

// Runs o->steps steps of p (finalized) from the n agents in id order (every
// rank passes the same), starting at step `step0`, over MPI_COMM_WORLD
// (initialised by the caller). Returns 0 (out filled on rank 0) or 3 (out of
// memory; an agent that crossed more than one box in a step aborts the job).
int boids_decomp_run(const boids_params *p, uint64_t step0, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                     const uint32_t *group, const boids_decomp_options *o, boids_decomp_result *out);

#endif
