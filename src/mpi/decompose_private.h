/* src/mpi/decompose_private.h: what the files of the decomposed run share
 * (decompose_mpi.h is the public side). Private to src/mpi/decompose_*.c.
 * The files and who calls whom (never back up the list):
 *   decompose_mpi.c      the run: set-up, the first cuts, the loop, the end;
 *                        MPI started and the ranks' agreement for the caller
 *   decompose_step.c     one step: the world's inputs, the steer, bodies,
 *                        the exchanges that follow it
 *   decompose_gather.c   rank 0's gathers: statistics, hash, outputs, figures
 *   decompose_exchange.c halo, migration, re-cuts, the neighbours
 *   decompose_boxes.c    the flags parsed and checked, the cuts, the boxes
 *   decompose_wait.c     every wait with its time-out, the roll call, aborts
 *
 * Offers: agent_rec, stat_rec, box, decomp, gathered, world_view,
 *         decomp_loop and the decomp_* functions of each file.
 */
#ifndef BOIDS_MPI_DECOMPOSE_PRIVATE_H
#define BOIDS_MPI_DECOMPOSE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "boids/behaviors.h"
#include "boids/engine.h"
#include "decompose_mpi.h"

// One agent on the wire: the state a neighbour's steer reads, and what the
// owner integrates from (the wander lanes are pos.w and vel.w). With bodies
// its joints follow it on a migration (rows of float[4] after the record;
// a halo copy carries them too, unread: one record size for every exchange).
typedef struct agent_rec {
    float pos[4], vel[4];
    uint32_t id, group;
} agent_rec;

// One agent as gathered for the statistics: the state and its last steer's outputs.
typedef struct stat_rec {
    agent_rec a;
    uint32_t neighbors, candidates;
    float nearest;
} stat_rec;

// A box of cells: [lo, hi) per axis (a 2D world's z is [0, 1)).
typedef struct box {
    uint32_t lo[3], hi[3];
} box;

// One rank's side of the decomposition: its box, its neighbours, the
// buffers of the exchanges and the figures of the run.
typedef struct decomp {
    MPI_Comm cart;  // the A x B x C ranks (MPI_Cart_create, no reorder): a rank's coordinates
    MPI_Comm ping;  // a duplicate of cart for the time-out's roll call (decomp_wait_for)
    MPI_Comm graph; // the neighbours (boxes within the halo's reach): the exchanges' neighbourhood collectives
    MPI_Datatype rec_type, full_type, stat_type; // halo records, migration records, gathered ones
    int rank, size, ndims;
    uint32_t parts[3], coord[3];
    uint32_t depth; // the halo's cells per side: the grid's factor M (a cell is at least reach / M)
    bool wrap;      // the grid is a torus: the halo crosses the world's edges
    bool periodic;  // neighbours across the world's edges (a torus, or margin's jumps across the world)
    // The cuts (see cuts_of, decompose_boxes.c): per axis the first cell of
    // each part, then the axis's cells; x once, y per slab of x, z per
    // column of x and y.
    uint32_t *cut;
    int *rank_of;      // the rank of box (i, j, k) at (i * B + j) * C + k
    box me;            // this rank's box
    int nnb;           // neighbours: nb[k] (increasing ranks), their boxes nb_box[k]
    int *nb, *nb_slot; // nb_slot[rank]: its k, or -1 for a rank that is not a neighbour
    box *nb_box;
    int *sc, *rc, *sd, *rd; // counts and displacements per neighbour (or per rank: the re-cut)
    double timeout_s;
    FILE *err;
    const boids_world_params *w;
    size_t full_bytes; // a migration's record: agent_rec, rows joints
    bool full;         // the exchange under way moves agents (full records), not a halo's copies
    uint32_t rows;     // joints per agent (bodies; 0: none)
    uint8_t *send, *recv;
    size_t send_cap, recv_cap; // in records
    uint32_t (*pair)[2];       // the halo's (slot, neighbour) pairs
    size_t pair_cap;
    uint8_t *owned;
    uint32_t owned_cap;
    float (*joints)[4]; // rows per own slot (the slots 0..n of the own agents)
    float (*joints_tmp)[4];
    uint32_t joints_cap;
    uint32_t (*by_id)[2]; // bodies: (id, slot before the step) of the own agents
    size_t by_id_cap;
    uint64_t halo_bytes, migrate_bytes, halo_agents, migrated, recut_bytes;
    uint32_t recuts;       // the boxes cut anew (a rebalance or a new grid)
    double imbalance;      // the most work of a rank over the mean, at the last check
    uint64_t work;         // the candidate pairs the own agents examined in the last step
    double wait_s;         // seconds in decomp_wait_for (the exchanges, the gathers)
    uint32_t gpu_capacity; // agents the GPU backend holds (o->gpu)
    uint32_t gpu_opened;   // GPU engines made (1, more when a step's agents outgrew one)
    uint32_t strays;       // steps whose agents went beyond the neighbours' boxes (all redistributed)
} decomp;

// Every rank's own agents (slots 0..s->n of cur, with their last steer's
// outputs) to rank 0 in id order: the statistics and the hash of the world.
typedef struct gathered {
    uint32_t n;
    stat_rec *all, *mine, *sorted;
    int *counts, *displs;
    uint32_t *cell_count, *group;
    size_t cell_cap; // cell_count's cells (the grid may change: grid_fine auto)
    size_t mine_cap; // mine's records (this rank's own agents)
    float (*pos)[4], (*vel)[4];
} gathered;

// What a rank's steer needs of the whole world at a step, beyond the halo
// (boids_sim.world_survey and named, core.h): the heading rules' survey and
// the named agents' states.
#define NAMED_MAX (3 * BOIDS_MAX_GROUPS) // a leader and the two of interpose per group
typedef struct world_view {
    uint32_t survey[2];
    boids_named_agent named[NAMED_MAX];
} world_view;

// The run's loop (decompose_step.c): what the steps share beyond the
// decomposition.
typedef struct decomp_loop {
    decomp *d;
    boids_sim *s;
    gathered *g;
    const boids_decomp_options *o;
    boids_decomp_result *out;
    uint32_t n;        // the world's agents
    bool fine_auto;    // grid_fine auto: the factor decided every BOIDS_ENGINE_FINE_EVERY steps
    bool by_counts;    // boxes cut by the work per cell (else even)
    boids_engine *gpu; // the rank's GPU backend (o->gpu), else NULL
    world_view view;   // the survey and named agents of each step (world_inputs)
    uint64_t hash;     // the state-hash of the last gather (rank 0)
    double interval;   // the clock at the last statistics
    uint64_t interval_steps, done_steps;
    int stopping; // the signal of an interruption the ranks agreed on: this step is the last
    // Tests (decompose-kill, decompose-stop): rank kill_rank (-1: none)
    // raises kill_signal before step kill_step.
    int kill_rank, kill_signal;
    uint64_t kill_step;
    // Tests (nan=ID@STEP): agent nan_id's x made NaN after step nan_step (0: never).
    uint32_t nan_id;
    uint64_t nan_step;
} decomp_loop;

// decompose_wait.c
// Waits for r with the time-out (a roll call names the silent ranks, one line, MPI_Abort 3).
void decomp_wait_for(decomp *d, MPI_Request *r, const char *what);
// One line naming this rank and msg on d->err, then MPI_Abort 3.
void decomp_fatal(const decomp *d, const char *msg);
// b with room for `need` items of `size` bytes (*cap items); out of memory is decomp_fatal.
void *decomp_grow(const decomp *d, void *b, size_t *cap, size_t need, size_t size);

// decompose_boxes.c
// The cell coordinates of pos in the world's grid.
void decomp_coords_of(const decomp *d, const float pos[4], uint32_t c[3]);
// The words of the cuts of `parts` (d->cut's size).
size_t decomp_cut_words(const uint32_t parts[3]);
// The box (i, j, k) of the cuts.
box decomp_box_at(const decomp *d, uint32_t i, uint32_t j, uint32_t k);
// The rank owning cell c.
int decomp_owner_of(const decomp *d, const uint32_t c[3]);
bool decomp_in_box(const box *b, const uint32_t c[3]);
// Does the halo of box b (d->depth cells around it) hold cell c?
bool decomp_in_halo_of(const decomp *d, const box *b, const uint32_t c[3], bool wrap);
// Do two parts of axis a come within d->depth cells of each other?
bool decomp_parts_near(const decomp *d, int a, uint32_t alo, uint32_t ahi, uint32_t blo, uint32_t bhi, bool wrap);
// Even cuts.
void decomp_cut_even(decomp *d);
// The work of each cell of the world's grid from its agents' counts (tmp: scratch of the cells).
void decomp_cell_work(const decomp *d, const uint32_t *count, uint64_t *work, uint64_t *tmp);
// The index of cell (x, y, z) of a grid of `cells`.
size_t decomp_cell_index(const uint32_t *cells, uint32_t x, uint32_t y, uint32_t z);
// Cuts by the work per cell (pre: scratch of the longest axis + 1).
void decomp_cut_counts(decomp *d, const uint64_t *work, uint64_t *pre);
// The most work of any box of the cuts.
uint64_t decomp_most_in_a_box(const decomp *d, const uint64_t *work);

// decompose_exchange.c
// The displacements of n counts laid end to end; their total.
size_t decomp_displace(const int *count, int *displ, int n);
// Room for `need` slots in the driver's per-slot arrays (owned flags, joints).
void decomp_grow_slots(decomp *d, uint32_t need);
// Slot i of s as a record.
void decomp_agent_of(const boids_sim *s, uint32_t i, agent_rec *r);
// Slot i to slot k < i (the steer's outputs and joints too).
void decomp_move_slot(decomp *d, boids_sim *s, uint32_t i, uint32_t k);
// This rank's box, its neighbours and their graph communicator, from the cuts.
void decomp_set_neighbours(decomp *d);
// The halo's copies after the own agents of s.
void decomp_halo(decomp *d, boids_sim *s);
// The agents that left the box to their neighbouring owners; the count of those beyond them.
uint32_t decomp_migrate(decomp *d, boids_sim *s);
// Every own agent to its owner over all ranks.
void decomp_redistribute(decomp *d, boids_sim *s);
// New boxes (by counts or even), the agents moved to them: false when only_better kept the old.
bool decomp_recut(decomp *d, boids_sim *s, bool by_counts, bool only_better);
// The most work of a rank's last step over the mean (1: even).
double decomp_imbalance(decomp *d);
// grid_fine auto's decision for the world, and a new grid with new boxes when it changes.
void decomp_auto_grid(decomp *d, boids_sim *s, uint64_t sq, uint32_t world_n, bool by_counts);

// decompose_gather.c
// The own agents to rank 0 in id order: the world's statistics and hash
// (cell_max UINT32_MAX: no step yet, the initial state's histogram).
void decomp_gather(decomp *d, boids_sim *s, gathered *g, uint32_t cell_max, boids_stats *st, uint64_t *hash);
// After the last step: the run's figures and boxes into L->out and the
// final state to o->final (rank 0); 0, or 3 out of memory.
int decomp_finish(decomp_loop *L, double elapsed);

// decompose_step.c
// The rank's GPU backend of room for `capacity` agents (a failure aborts the job).
boids_engine *decomp_open_gpu(decomp *d, const boids_sim *s, const boids_decomp_options *o, uint32_t capacity);
// Step k of the run (1..o->steps): false when the run ends with it (cut
// short, or the last step of an interruption).
bool decomp_step(decomp_loop *L, uint64_t k);

#endif
