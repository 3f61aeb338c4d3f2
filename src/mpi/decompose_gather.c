// src/mpi/decompose_gather.c: what the decomposed run gathers to rank 0
// (decompose_private.h): the own agents in id order for the statistics and
// the state-hash, the bodies' joints for the outputs, and at the end the
// run's figures, its boxes and the final state handed to the caller.
#include <stdlib.h>
#include <string.h>

#include "decompose_private.h"

// The statistics of the whole world from id-order arrays, as boids_sim_stats
// computes them over slots (the sums in id order here).
// cell_count: NULL when the caller has the cell max (the ranks' own cells
// of the step's grid); else the histogram's scratch (the initial state).
static void world_stats(const boids_world_params *w, uint32_t n, const stat_rec *r, uint32_t *cell_count,
                        float (*pos)[4], float (*vel)[4], uint32_t *group, boids_stats *out) {
    boids_stats_sums t = {0};
    for (uint32_t id = 0; id < n; id++) {
        memcpy(pos[id], r[id].a.pos, sizeof(float[4]));
        memcpy(vel[id], r[id].a.vel, sizeof(float[4]));
        group[id] = r[id].a.group;
        boids_stats_add(&t, r[id].a.vel, r[id].neighbors, r[id].candidates, r[id].nearest);
    }
    boids_stats_finish(&t, out);
    if (cell_count) {
        memset(cell_count, 0, w->cells[3] * sizeof(*cell_count));
        for (uint32_t id = 0; id < n; id++)
            cell_count[boids_grid_cell_of(w, r[id].a.pos)]++;
        for (uint32_t c = 0; c < w->cells[3]; c++)
            out->cell_max = cell_count[c] > out->cell_max ? cell_count[c] : out->cell_max;
    }
    out->cell_mean = w->cells[3] ? (double)n / w->cells[3] : 0.0;
    out->milling = boids_stats_milling(w, n, (const float(*)[4])pos, (const float(*)[4])vel, group, BOIDS_STATS_ALL);
}

void decomp_gather(decomp *d, boids_sim *s, gathered *g, uint32_t cell_max, boids_stats *st, uint64_t *hash) {
    g->mine = decomp_grow(d, g->mine, &g->mine_cap, s->n, sizeof(*g->mine));
    for (uint32_t i = 0; i < s->n; i++) {
        decomp_agent_of(s, i, &g->mine[i].a);
        g->mine[i].neighbors = s->neighbors[i];
        g->mine[i].candidates = s->candidates[i];
        g->mine[i].nearest = s->nearest[i];
    }
    int mine = (int)s->n;
    MPI_Request r;
    MPI_Igather(&mine, 1, MPI_INT, g->counts, 1, MPI_INT, 0, d->cart, &r);
    decomp_wait_for(d, &r, "the gather's sizes");
    if (d->rank == 0) {
        size_t total = decomp_displace(g->counts, g->displs, d->size);
        if (total != g->n) {
            char msg[160];
            snprintf(msg, sizeof msg, "%llu agents gathered, %u expected (agents lost or doubled)",
                     (unsigned long long)total, g->n);
            decomp_fatal(d, msg);
        }
    }
    MPI_Igatherv(g->mine, mine, d->stat_type, g->all, g->counts, g->displs, d->stat_type, 0, d->cart, &r);
    decomp_wait_for(d, &r, "the gather");
    uint32_t most = 0; // the fullest cell of the step's grid (before integrate), as one process counts it
    MPI_Ireduce(&cell_max, &most, 1, MPI_UINT32_T, MPI_MAX, 0, d->cart, &r);
    decomp_wait_for(d, &r, "the gather");
    if (d->rank != 0)
        return;
    memset(g->sorted, 0xff, (size_t)g->n * sizeof(*g->sorted));
    for (uint32_t k = 0; k < g->n; k++) {
        uint32_t id = g->all[k].a.id;
        if (id >= g->n || g->sorted[id].a.id != UINT32_MAX) {
            char msg[120];
            snprintf(msg, sizeof msg, "agent id %u gathered twice or out of range", id);
            decomp_fatal(d, msg);
        }
        g->sorted[id] = g->all[k];
    }
    memset(st, 0, sizeof *st);
    st->step = s->step;
    if (cell_max == UINT32_MAX) // no step yet: the initial state's histogram
        g->cell_count = decomp_grow(d, g->cell_count, &g->cell_cap, d->w->cells[3], sizeof(*g->cell_count));
    else
        st->cell_max = most;
    world_stats(d->w, g->n, g->sorted, cell_max == UINT32_MAX ? g->cell_count : NULL, g->pos, g->vel, g->group, st);
    *hash = boids_state_hash(g->n, (const float(*)[4])g->pos, (const float(*)[4])g->vel, g->group);
}

// Bodies: every rank's own joints to rank 0, as the engine holds them
// (joint j of agent id at [j * n + id]); NULL on the other ranks. A record
// (id, then the rows) per own agent, by MPI_Igatherv.
static float (*gather_joints(decomp *d, const boids_sim *s, gathered *g))[4] {
    size_t rec = sizeof(uint32_t) + d->rows * sizeof(float[4]);
    uint8_t *mine = malloc((s->n ? s->n : 1) * rec), *all = NULL;
    float(*joints)[4] = NULL;
    if (!mine)
        decomp_fatal(d, "out of memory for the joints");
    for (uint32_t i = 0; i < s->n; i++) {
        memcpy(mine + i * rec, &s->cur.id[i], sizeof(uint32_t));
        memcpy(mine + i * rec + sizeof(uint32_t), d->joints[(size_t)i * d->rows], d->rows * sizeof(float[4]));
    }
    MPI_Datatype t;
    MPI_Type_contiguous((int)rec, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    int count = (int)s->n;
    MPI_Request r;
    MPI_Igather(&count, 1, MPI_INT, g->counts, 1, MPI_INT, 0, d->cart, &r);
    decomp_wait_for(d, &r, "the joints' sizes");
    if (d->rank == 0) {
        int total = 0;
        for (int q = 0; q < d->size; q++) {
            g->displs[q] = total;
            total += g->counts[q];
        }
        all = malloc((size_t)(total ? total : 1) * rec);
        joints = malloc((size_t)d->rows * (g->n ? g->n : 1) * sizeof(float[4]));
        if (!all || !joints || (uint32_t)total != g->n)
            decomp_fatal(d, "out of memory for the joints, or agents lost");
    }
    MPI_Igatherv(mine, count, t, all, g->counts, g->displs, t, 0, d->cart, &r);
    decomp_wait_for(d, &r, "the joints");
    for (uint32_t k = 0; d->rank == 0 && k < g->n; k++) {
        uint32_t id;
        memcpy(&id, all + k * rec, sizeof id);
        for (uint32_t j = 0; j < d->rows; j++)
            memcpy(joints[(size_t)j * g->n + id], all + k * rec + sizeof(uint32_t) + j * sizeof(float[4]),
                   sizeof(float[4]));
    }
    MPI_Type_free(&t);
    free(mine);
    free(all);
    return joints;
}

// The boxes at the end, by rank: their cells [lo, hi) per axis (NULL when
// out of memory; the caller frees them).
static uint32_t (*boxes_by_rank(const decomp *d))[6] {
    uint32_t(*boxes)[6] = malloc((size_t)d->size * sizeof *boxes);
    for (uint32_t i = 0; boxes && i < d->parts[0]; i++)
        for (uint32_t j = 0; j < d->parts[1]; j++)
            for (uint32_t k = 0; k < d->parts[2]; k++) {
                box b = decomp_box_at(d, i, j, k);
                uint32_t *to = boxes[d->rank_of[((size_t)i * d->parts[1] + j) * d->parts[2] + k]];
                for (int a = 0; a < 3; a++) {
                    to[2 * a] = b.lo[a];
                    to[2 * a + 1] = b.hi[a];
                }
            }
    return boxes;
}

// Rank 0: the final state to the caller (the outputs), the last gather's
// id-order arrays with the last step's neighbour counts: 0, or 3 out of memory.
static int hand_final(decomp_loop *L, float (*joints)[4]) {
    const boids_decomp_options *o = L->o;
    uint32_t n = L->n;
    if (!o->final)
        return 0;
    uint32_t *neighbors = malloc((size_t)(n ? n : 1) * sizeof *neighbors);
    if (!neighbors)
        return 3;
    for (uint32_t id = 0; id < n; id++)
        neighbors[id] = L->g->sorted[id].neighbors;
    o->final(o->user, L->s->step, n, (const float(*)[4])L->g->pos, (const float(*)[4])L->g->vel, L->g->group, neighbors,
             (const float(*)[4])joints);
    free(neighbors);
    return 0;
}

// See decompose_private.h. The exchange figures of every rank: the largest
// bytes, the mean halo.
int decomp_finish(decomp_loop *L, double elapsed) {
    decomp *d = L->d;
    boids_decomp_result *out = L->out;
    d->imbalance = decomp_imbalance(d);
    float(*final_joints)[4] = d->rows && L->o->final ? gather_joints(d, L->s, L->g) : NULL;
    double mine[3] = {(double)d->halo_bytes, (double)d->migrate_bytes, d->wait_s / (elapsed > 0 ? elapsed : 1)},
           most[3];
    double sums[3] = {(double)d->halo_agents, (double)d->migrated, (double)d->recut_bytes}, total[3];
    MPI_Request rr[2];
    MPI_Ireduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, 0, d->cart, &rr[0]);
    decomp_wait_for(d, &rr[0], "the figures");
    MPI_Ireduce(sums, total, 3, MPI_DOUBLE, MPI_SUM, 0, d->cart, &rr[1]);
    decomp_wait_for(d, &rr[1], "the figures");
    if (d->rank != 0)
        return 0;
    uint64_t done_steps = L->done_steps;
    double steps = done_steps ? (double)done_steps : 1.0;
    out->steps = done_steps;
    out->strays = d->strays;
    out->hash = L->hash;
    out->ms_per_step = done_steps ? elapsed * 1e3 / steps : 0.0; // (a cut first step: none timed)
    out->halo_bytes = most[0] / steps;
    out->migrate_bytes = most[1] / steps;
    out->halo_agents = total[0] / steps / d->size;
    out->migrated = (uint64_t)total[1];
    out->wait_share = most[2];
    out->recuts = d->recuts;
    out->recut_bytes = (uint64_t)total[2];
    out->imbalance = d->imbalance;
    out->grid_fine = boids_world_grid_fine(d->w);
    out->boxes = boxes_by_rank(d);
    memcpy(out->cells, d->w->cells, sizeof out->cells);
    out->gpu_opened = d->gpu_opened;
    int rc = hand_final(L, final_joints);
    free(final_joints);
    return rc;
}
