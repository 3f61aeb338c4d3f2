/* src/mpi/decompose_mpi.h: one simulation split over MPI ranks (the
 * optional component, BOIDS_MPI). The world's cells are cut into
 * A x B (x C) boxes, one per rank of an MPI_Cart_create grid: x into A slabs,
 * each slab's y into B, each column's z into C, by recursive bisection of
 * the work per cell (its agents x the agents of its search block: the
 * candidate pairs; or evenly), and cut anew every K steps when the busiest
 * rank's last step examined more than a threshold times the mean. Each
 * rank owns the agents whose cell is in its box. A step: every own agent in
 * the halo of another box (the cells M deep around it; a cell is at least
 * reach / M) is sent straight to that box's rank, sizes then agents by
 * MPI_Ineighbor_alltoall(v) on a graph communicator of the boxes within
 * reach (MPI_Dist_graph_create_adjacent); the core's grid and steer stages
 * run over own + halo agents, integrate moves the own ones
 * (boids_sim.owned), the halo is dropped, bodies follow their heads, and the
 * agents that left the box migrate to their new owner the same way. Before
 * each steer, what only the whole world knows reaches every rank: the
 * scenario's schedule at the step, the heading rules' survey (each rank's
 * best block of its own cells, reduced) and the named agents' states (from
 * the ranks that own them). The neighbour sums are fixed point, so the
 * result is the one process's bit for bit, whatever the cuts. Every wait is a test
 * loop with a time-out (MPI_Abort, exit 3), never a hang. At the end rank 0
 * hands the final world in id order to a callback (the caller's outputs).
 * The library (src/core, src/engine) never needs MPI, and neither does the
 * caller: MPI is started, agreed on and ended through the functions below.
 * The run's files: decompose_private.h.
 *
 * Offers: boids_decomp_init, boids_decomp_agree, boids_decomp_abort,
 *         boids_decomp_finalize, boids_decomp_parse,
 *         boids_decomp_parse_rebalance, boids_decomp_gpu_refusal,
 *         boids_decomp_check, boids_decomp_run.
 */
#ifndef BOIDS_MPI_DECOMPOSE_H
#define BOIDS_MPI_DECOMPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "boids/core.h"
#include "boids/scenario.h"

// MPI started (by mpirun, or alone as a singleton of one rank): this
// process's rank and the ranks of the job.
void boids_decomp_init(int *argc, char ***argv, int *rank, int *ranks);
// Every rank's status rc (0, or an exit status) agreed: the largest, on
// every rank. A rank that does not come within timeout_s seconds is one
// line on err (NULL: stderr) and MPI_Abort 3.
int boids_decomp_agree(int rc, double timeout_s, FILE *err);
// The whole job ended at once with `status` (no rank is left in a collective).
void boids_decomp_abort(int status);
// MPI ended (after the run, on every rank).
void boids_decomp_finalize(void);

// "AxB" or "AxBxC" (each 1..4096) into parts (C = 0 when not given): false
// when it does not parse.
bool boids_decomp_parse(const char *text, uint32_t parts[3]);
// "K" or "K:T" (K steps between checks, 0: the first cuts only; T >= 1 the
// most work of a rank over the mean that starts a re-cut, default
// BOIDS_DECOMP_IMBALANCE_DEFAULT) or "off" (even boxes, never cut anew:
// every = 0, threshold = 0): false when it does not parse.
#define BOIDS_DECOMP_REBALANCE_DEFAULT 50u
#define BOIDS_DECOMP_IMBALANCE_DEFAULT 1.1
bool boids_decomp_parse_rebalance(const char *text, uint32_t *every, double *threshold);
// What of p the GPU backend on every rank cannot split (named agents, the
// survey, bodies: the CPU backend's), or NULL.
const char *boids_decomp_gpu_refusal(const boids_params *p);
// Whether parts fit p's grid (finalized) on `ranks` ranks: 0, or 2 with one
// line in err (a C part in 2D, A*B*C != ranks, more boxes along an axis
// than the cells of the reach: every box holds at least one cell of any M).
int boids_decomp_check(const boids_params *p, uint32_t parts[3], int ranks, char *err, size_t err_size);

typedef struct boids_decomp_options {
    uint32_t parts[3]; // checked by boids_decomp_check (C 1 in 2D)
    // Load balance: with `imbalance` (>= 1) the first cuts by the work per
    // cell and every `rebalance_every` steps (0: never) a check of the
    // ranks' work (the candidate pairs their own agents examined in the
    // step), cut anew when the most over the mean exceeds `imbalance`;
    // imbalance 0: even boxes, never cut anew.
    uint32_t rebalance_every;
    double imbalance;
    // Polled every step on every rank (NULL: never): a signal number when
    // the run is to stop (SIGINT, SIGTERM), 0 to go on. The ranks agree on
    // it: all stop after the same step, rank 0 gets that step's statistics
    // and the final callback, and the result says so.
    int (*interrupted)(void);
    // The flag behind `interrupted` (NULL: none): on the CPU it cuts a
    // rank's steer short (boids_sim.cancel); the ranks then agree to undo
    // the step everywhere and stop, so a long step stops within a fraction
    // of a second. The outputs are then of the last whole step, its
    // neighbour outputs zero.
    const volatile sig_atomic_t *cancel;
    // Bodies: the joints of the initial state, joint j of agent id at
    // [j * n + id] (boids_engine_read_joints); NULL: laid straight.
    const float (*joints)[4];
    // The GPU backend on every rank (boids_engine_step_agents: each step's
    // own and halo agents uploaded, stepped and read back), with these
    // shaders (NULL: built in) and kernel; boids_decomp_gpu_refusal first.
    bool gpu;
    const char *shader_dir;
    boids_kernel kernel;
    bool quiet_gl;        // no GL debug messages on stderr
    uint64_t steps;       // steps to run
    uint64_t stats_every; // a statistics callback every K steps (and at the last)
    int threads;          // OpenMP threads per rank (0: default)
    double timeout_s;     // the longest wait for one exchange (0: 120 s)
    FILE *err;            // where a rank's time-out or abort is told (NULL: stderr)
    // The run's scenario (NULL: none): its schedule (a moving target, varying
    // weights) is applied at each step on every rank, as the engine does.
    const boids_scenario *scenario;
    // rank 0: the statistics of the whole world after `step` (gathered in id order)
    void (*stats)(void *user, const boids_stats *st, double ms_per_step);
    // rank 0, once after the last step and the last exchange (NULL: none):
    // the final state of the whole world in id order, as the last statistics
    // gathered it: pos and vel with their wander lanes, group, and the last
    // step's neighbour counts (with 0 steps the initial state, counts 0);
    // `step` is the step counter after the run. The arrays live for the call.
    // With bodies, `joints` are theirs (joint j of agent id at [j * n + id],
    // boids_params_joint_rows of p rows); NULL without.
    void (*final)(void *user, uint64_t step, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                  const uint32_t *group, const uint32_t *neighbors, const float (*joints)[4]);
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
    uint32_t recuts;                  // the boxes cut anew (a rebalance, a new grid of grid_fine auto)
    uint64_t recut_bytes;             // bytes sent by the re-cuts, all ranks
    double imbalance;                 // the most work of a rank over the mean, in the last step
    uint32_t grid_fine;               // the grid's factor M at the end
    uint32_t gpu_opened;              // rank 0's GPU engines (o->gpu: 1, more when its agents outgrew one)
    uint64_t steps;                   // the steps run (fewer than asked when interrupted)
    int interrupted;                  // the signal that stopped the run early, or 0
    bool cut;                         // the step after `steps` was begun and cut short (boids_decomp_options.cancel)
    uint32_t strays;                  // steps with an agent beyond the neighbours' boxes (sent over all ranks)
    // Rank 0: the boxes at the end by rank, cells [lo, hi) of x, y, z (the
    // grid of `cells`: x, y, z, total); malloc'd (NULL if it failed), the
    // caller frees it.
    uint32_t (*boxes)[6];
    uint32_t cells[4];
} boids_decomp_result;

// Runs o->steps steps of p (finalized) from the n agents in id order (every
// rank passes the same), starting at step `step0`, over MPI_COMM_WORLD
// (initialised by the caller). Returns 0 (out filled on rank 0) or 3 (out of
// memory; an agent that moved beyond its box's halo in one step aborts the job).
int boids_decomp_run(const boids_params *p, uint64_t step0, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                     const uint32_t *group, const boids_decomp_options *o, boids_decomp_result *out);

#endif
