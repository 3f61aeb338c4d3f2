// src/mpi/decompose_exchange.c: the decomposed run's exchanges of agents
// (decompose_private.h): the halo, the migration to a neighbouring box, the
// redistribution over all ranks (strays, re-cuts), the neighbours and their
// graph communicator, the load balance's check and the new grid of
// grid_fine auto.
#include <stdlib.h>
#include <string.h>

#include "decompose_private.h"

// The displacements of n counts laid end to end (displ[k]: the sum of the
// counts before k); returns their total.
size_t decomp_displace(const int *count, int *displ, int n) {
    size_t total = 0;
    for (int k = 0; k < n; k++) {
        displ[k] = (int)total;
        total += (size_t)count[k];
    }
    return total;
}

// The bytes of one record of the exchange under way: a halo's copy is the
// state a neighbour's steer reads (agent_rec); an agent that moves to
// another rank takes its joints with it (its last step's outputs are
// gathered before it moves).
static size_t rec_bytes(const decomp *d) {
    return d->full ? d->full_bytes : sizeof(agent_rec);
}

// Room for `need` records in the send (or receive) buffer (of either kind).
static void grow_send(decomp *d, size_t need) {
    d->send = decomp_grow(d, d->send, &d->send_cap, need, d->full_bytes);
}

static void grow_recv(decomp *d, size_t need) {
    d->recv = decomp_grow(d, d->recv, &d->recv_cap, need, d->full_bytes);
}

// Room for `need` slots in the per-slot arrays of the driver (the owned
// flags, the joints).
void decomp_grow_slots(decomp *d, uint32_t need) {
    size_t cap = d->owned_cap;
    d->owned = decomp_grow(d, d->owned, &cap, need, 1);
    d->owned_cap = (uint32_t)cap;
    if (d->rows) {
        size_t jc = d->joints_cap, jt = d->joints_cap;
        d->joints = decomp_grow(d, d->joints, &jc, need, d->rows * sizeof(float[4]));
        d->joints_tmp = decomp_grow(d, d->joints_tmp, &jt, need, d->rows * sizeof(float[4]));
        d->joints_cap = (uint32_t)(jc < jt ? jc : jt);
    }
}

// Slot i of s (and its joints) as record k of buf, and back.
void decomp_agent_of(const boids_sim *s, uint32_t i, agent_rec *r) {
    memcpy(r->pos, s->cur.pos[i], sizeof r->pos);
    memcpy(r->vel, s->cur.vel[i], sizeof r->vel);
    r->id = s->cur.id[i];
    r->group = s->cur.group[i];
}

static void rec_of(const decomp *d, const boids_sim *s, uint32_t i, uint8_t *buf, size_t k) {
    agent_rec r;
    decomp_agent_of(s, i, &r);
    uint8_t *at = buf + k * rec_bytes(d);
    memcpy(at, &r, sizeof r);
    if (!d->full)
        return;
    if (d->rows)
        memcpy(at + sizeof r, d->joints[(size_t)i * d->rows], d->rows * sizeof(float[4]));
}

static void rec_to(decomp *d, boids_sim *s, uint32_t i, const uint8_t *buf, size_t k) {
    agent_rec r;
    const uint8_t *at = buf + k * rec_bytes(d);
    memcpy(&r, at, sizeof r);
    memcpy(s->cur.pos[i], r.pos, sizeof r.pos);
    memcpy(s->cur.vel[i], r.vel, sizeof r.vel);
    s->cur.id[i] = r.id;
    s->cur.group[i] = r.group;
    s->neighbors[i] = s->candidates[i] = 0;
    s->nearest[i] = 0.0f;
    if (!d->full)
        return;
    if (d->rows)
        memcpy(d->joints[(size_t)i * d->rows], at + sizeof r, d->rows * sizeof(float[4]));
}

// Slot i to slot k < i (the compaction of the own agents; the steer's outputs too).
void decomp_move_slot(decomp *d, boids_sim *s, uint32_t i, uint32_t k) {
    memcpy(s->cur.pos[k], s->cur.pos[i], sizeof(float[4]));
    memcpy(s->cur.vel[k], s->cur.vel[i], sizeof(float[4]));
    s->cur.id[k] = s->cur.id[i];
    s->cur.group[k] = s->cur.group[i];
    s->neighbors[k] = s->neighbors[i];
    s->candidates[k] = s->candidates[i];
    s->nearest[k] = s->nearest[i];
    if (d->rows)
        memmove(d->joints[(size_t)k * d->rows], d->joints[(size_t)i * d->rows], d->rows * sizeof(float[4]));
}

// This rank's box and its neighbours from the cuts: the ranks whose box
// comes within the halo's depth of this one (across the world's edges when
// periodic: margin's agents jump there), and the graph communicator of the
// exchanges (sources = destinations = the neighbours, increasing ranks).
void decomp_set_neighbours(decomp *d) {
    d->me = decomp_box_at(d, d->coord[0], d->coord[1], d->coord[2]);
    d->nnb = 0;
    for (int q = 0; q < d->size; q++)
        d->nb_slot[q] = -1;
    for (uint32_t i = 0; i < d->parts[0]; i++)
        for (uint32_t j = 0; j < d->parts[1]; j++)
            for (uint32_t k = 0; k < d->parts[2]; k++) {
                int q = d->rank_of[((size_t)i * d->parts[1] + j) * d->parts[2] + k];
                if (q == d->rank)
                    continue;
                box b = decomp_box_at(d, i, j, k);
                bool near = true;
                for (int a = 0; a < d->ndims && near; a++)
                    near = decomp_parts_near(d, a, d->me.lo[a], d->me.hi[a], b.lo[a], b.hi[a], d->periodic);
                if (near) {
                    d->nb[d->nnb] = q;
                    d->nb_box[d->nnb++] = b;
                }
            }
    // Increasing ranks (the boxes were met in coordinate order).
    for (int a = 1; a < d->nnb; a++)
        for (int b = a; b > 0 && d->nb[b - 1] > d->nb[b]; b--) {
            int t = d->nb[b];
            d->nb[b] = d->nb[b - 1];
            d->nb[b - 1] = t;
            box tb = d->nb_box[b];
            d->nb_box[b] = d->nb_box[b - 1];
            d->nb_box[b - 1] = tb;
        }
    for (int k = 0; k < d->nnb; k++)
        d->nb_slot[d->nb[k]] = k;
    // Every rank here before the blocking calls (a rank lost or stuck is a
    // time-out, not a hang).
    MPI_Request r;
    MPI_Ibarrier(d->cart, &r);
    decomp_wait_for(d, &r, "the new neighbours");
    if (d->graph != MPI_COMM_NULL)
        MPI_Comm_free(&d->graph);
    // Equal weights (MPI_UNWEIGHTED is a pointer the compiler takes for an empty array).
    for (int k = 0; k < d->nnb; k++)
        d->rd[k] = 1;
    MPI_Dist_graph_create_adjacent(d->cart, d->nnb, d->nb, d->rd, d->nnb, d->nb, d->rd, MPI_INFO_NULL, 0, &d->graph);
}

// One exchange with the neighbours: d->sc[k] records of the send buffer
// (packed by neighbour, in nb order) to neighbour k, sizes first
// (MPI_Ineighbor_alltoall), then the agents (MPI_Ineighbor_alltoallv) into
// d->recv. Returns how many arrived.
static uint32_t exchange(decomp *d, uint64_t *bytes, const char *what) {
    MPI_Request r;
    MPI_Ineighbor_alltoall(d->sc, 1, MPI_INT, d->rc, 1, MPI_INT, d->graph, &r);
    decomp_wait_for(d, &r, what);
    size_t sent = decomp_displace(d->sc, d->sd, d->nnb), total = decomp_displace(d->rc, d->rd, d->nnb);
    grow_recv(d, total);
    MPI_Datatype t = d->full ? d->full_type : d->rec_type;
    MPI_Ineighbor_alltoallv(d->send, d->sc, d->sd, t, d->recv, d->rc, d->rd, t, d->graph, &r);
    decomp_wait_for(d, &r, what);
    *bytes += (uint64_t)d->nnb * sizeof(int) + (uint64_t)sent * rec_bytes(d);
    return (uint32_t)total;
}

// The received records after the n slots of s.
static void append(decomp *d, boids_sim *s, uint32_t got, const char *what) {
    uint32_t need = s->n + got;
    if (need > s->capacity && boids_sim_reserve(s, need + need / 4 + 64) != BOIDS_OK) {
        char msg[120];
        snprintf(msg, sizeof msg, "out of memory for %s", what);
        decomp_fatal(d, msg);
    }
    decomp_grow_slots(d, s->n + got);
    for (uint32_t k = 0; k < got; k++)
        rec_to(d, s, s->n + k, d->recv, k);
    s->n += got;
}

// Is own cell c deeper in the box than the halo (no neighbour's halo holds it)?
static bool interior(const decomp *d, const uint32_t c[3]) {
    for (int a = 0; a < d->ndims; a++)
        if (d->parts[a] > 1 && (c[a] < d->me.lo[a] + d->depth || c[a] + d->depth >= d->me.hi[a]))
            return false;
    return true;
}

// The halo: after it, slots n_own.. of cur hold copies of the agents of the
// cells `depth` deep around the box, each sent once by its owner straight
// to every rank whose halo holds its cell (corners too).
void decomp_halo(decomp *d, boids_sim *s) {
    d->full = false;
    size_t pairs = 0;
    for (int k = 0; k < d->nnb; k++)
        d->sc[k] = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t c[3];
        decomp_coords_of(d, s->cur.pos[i], c);
        if (interior(d, c))
            continue;
        for (int k = 0; k < d->nnb; k++)
            if (decomp_in_halo_of(d, &d->nb_box[k], c, d->wrap)) {
                d->pair = decomp_grow(d, d->pair, &d->pair_cap, pairs + 1, sizeof(*d->pair));
                d->pair[pairs][0] = i;
                d->pair[pairs++][1] = (uint32_t)k;
                d->sc[k]++;
            }
    }
    grow_send(d, pairs);
    int at[d->nnb > 0 ? d->nnb : 1];
    decomp_displace(d->sc, at, d->nnb);
    for (size_t p = 0; p < pairs; p++)
        rec_of(d, s, d->pair[p][0], d->send, (size_t)at[d->pair[p][1]]++);
    append(d, s, exchange(d, &d->halo_bytes, "the halo"), "the halo");
}

// The agents that left the box go to the neighbour that owns their cell now.
// One that went farther than the neighbours' boxes in a step (a speed over
// the halo's reach) stays here for now: the count of them, for the caller's
// agreement (all ranks then redistribute).
uint32_t decomp_migrate(decomp *d, boids_sim *s) {
    d->full = true;
    uint32_t far = 0;
    for (int k = 0; k < d->nnb; k++)
        d->sc[k] = 0;
    d->pair = decomp_grow(d, d->pair, &d->pair_cap, s->n, sizeof(*d->pair));
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t c[3];
        decomp_coords_of(d, s->cur.pos[i], c);
        d->pair[i][0] = 0; // stays, or the neighbour's k + 1
        if (decomp_in_box(&d->me, c))
            continue;
        int q = decomp_owner_of(d, c), k = d->nb_slot[q];
        if (k < 0) {
            far++;
            continue;
        }
        d->pair[i][0] = (uint32_t)k + 1;
        d->sc[k]++;
    }
    int at[d->nnb > 0 ? d->nnb : 1];
    size_t sent = decomp_displace(d->sc, at, d->nnb);
    grow_send(d, sent);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (d->pair[i][0]) {
            rec_of(d, s, i, d->send, (size_t)at[d->pair[i][0] - 1]++);
            continue;
        }
        if (kept != i)
            decomp_move_slot(d, s, i, kept);
        kept++;
    }
    d->migrated += (uint64_t)sent;
    uint32_t got = exchange(d, &d->migrate_bytes, "the migration");
    s->n = kept;
    append(d, s, got, "the migration");
    return far;
}

// Every own agent to the rank that owns its cell under new cuts (MPI_Ialltoallv
// over all ranks: an agent may go anywhere).
void decomp_redistribute(decomp *d, boids_sim *s) {
    d->full = true;
    for (int q = 0; q < d->size; q++)
        d->sc[q] = 0;
    d->pair = decomp_grow(d, d->pair, &d->pair_cap, s->n, sizeof(*d->pair));
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t c[3];
        decomp_coords_of(d, s->cur.pos[i], c);
        int q = decomp_owner_of(d, c);
        d->pair[i][0] = (uint32_t)q;
        d->sc[q]++;
    }
    MPI_Request r;
    MPI_Ialltoall(d->sc, 1, MPI_INT, d->rc, 1, MPI_INT, d->cart, &r);
    decomp_wait_for(d, &r, "the re-cut's sizes");
    size_t sent = decomp_displace(d->sc, d->sd, d->size), total = decomp_displace(d->rc, d->rd, d->size);
    grow_send(d, sent);
    grow_recv(d, total);
    int at[d->size];
    for (int q = 0; q < d->size; q++)
        at[q] = d->sd[q];
    for (uint32_t i = 0; i < s->n; i++)
        rec_of(d, s, i, d->send, (size_t)at[d->pair[i][0]]++);
    MPI_Ialltoallv(d->send, d->sc, d->sd, d->full_type, d->recv, d->rc, d->rd, d->full_type, d->cart, &r);
    decomp_wait_for(d, &r, "the re-cut");
    d->recut_bytes += (uint64_t)d->size * sizeof(int) + (uint64_t)(sent - (size_t)d->sc[d->rank]) * d->full_bytes;
    s->n = 0;
    append(d, s, (uint32_t)total, "the re-cut");
}

// New boxes for the agents where they are now: by their counts per cell
// (the world's, summed over the ranks' own agents) or even; the agents go
// to their new owners and the neighbours are found anew. With `only_better`
// (a rebalance on the same grid) the old boxes stay when the new cuts would
// leave the fullest box no emptier (a clump narrower than a cell cannot be
// split): false, nothing moved.
bool decomp_recut(decomp *d, boids_sim *s, bool by_counts, bool only_better) {
    if (by_counts) {
        uint32_t cells = d->w->cells[3];
        uint32_t *mine = calloc(cells, sizeof *mine), *counts = malloc((size_t)cells * sizeof *counts);
        uint64_t *all = malloc((size_t)cells * 2 * sizeof *all);
        uint64_t *pre = malloc(((size_t)d->w->cells[0] + d->w->cells[1] + d->w->cells[2] + 1) * sizeof *pre);
        if (!mine || !counts || !all || !pre)
            decomp_fatal(d, "out of memory for the counts of the re-cut");
        for (uint32_t i = 0; i < s->n; i++)
            mine[boids_grid_cell_of(d->w, s->cur.pos[i])]++;
        MPI_Request r;
        MPI_Iallreduce(mine, counts, (int)cells, MPI_UINT32_T, MPI_SUM, d->cart, &r);
        decomp_wait_for(d, &r, "the counts of the re-cut");
        decomp_cell_work(d, counts, all, all + cells);
        free(counts);
        size_t words = decomp_cut_words(d->parts);
        uint32_t *old = only_better ? malloc(words * sizeof *old) : NULL;
        if (only_better && !old)
            decomp_fatal(d, "out of memory for the re-cut");
        uint64_t before = 0;
        if (old) {
            memcpy(old, d->cut, words * sizeof *old);
            before = decomp_most_in_a_box(d, all);
        }
        decomp_cut_counts(d, all, pre);
        bool keep = old && decomp_most_in_a_box(d, all) >= before;
        if (keep)
            memcpy(d->cut, old, words * sizeof *old);
        free(old);
        free(mine);
        free(all);
        free(pre);
        if (keep)
            return false;
    } else {
        decomp_cut_even(d);
    }
    decomp_redistribute(d, s);
    decomp_set_neighbours(d);
    d->recuts++;
    return true;
}

// The work of every rank's last step (d->work: the candidate pairs its own
// agents examined): the most over the mean (1: even).
double decomp_imbalance(decomp *d) {
    uint64_t mine = d->work, *all = malloc((size_t)d->size * sizeof *all);
    if (!all)
        decomp_fatal(d, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, d->cart, &r);
    decomp_wait_for(d, &r, "the work of the ranks");
    uint64_t sum = 0, most = 0;
    for (int q = 0; q < d->size; q++) {
        sum += all[q];
        most = all[q] > most ? all[q] : most;
    }
    free(all);
    return sum ? (double)most * d->size / (double)sum : 1.0;
}

// grid_fine auto, as the engine does it every BOIDS_ENGINE_FINE_EVERY steps
// (boids_engine_step): the world's sum of count^2 over the cells of the
// step's grid (each rank its own cells), the factor of the least modelled
// cost, and when it changes the new grid and new boxes on it (the halo is M
// cells deep). `sq`: this rank's sum.
void decomp_auto_grid(decomp *d, boids_sim *s, uint64_t sq, uint32_t world_n, bool by_counts) {
    uint64_t all = 0;
    MPI_Request r;
    MPI_Iallreduce(&sq, &all, 1, MPI_UINT64_T, MPI_SUM, d->cart, &r);
    decomp_wait_for(d, &r, "the grid's occupancy");
    double occ = boids_grid_occupancy_sum(d->w, (double)all, world_n);
    uint32_t m = boids_grid_fine_choose(&s->p, occ);
    if (m == boids_world_grid_fine(d->w))
        return;
    boids_params q = s->p;
    q.flow.vec = NULL;
    q.world.grid_fine = boids_grid_fine_word(m, true);
    char what[256] = "";
    if (boids_params_finalize(&q, what, sizeof what) != BOIDS_OK || boids_sim_set_grid(s, &q) != BOIDS_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "grid fine: M %u refused: %s", m, what[0] ? what : "out of memory");
        decomp_fatal(d, msg);
    }
    d->depth = m;
    decomp_recut(d, s, by_counts, false);
}
