// src/mpi/decompose_mpi.c: one simulation over MPI ranks by boxes of cells
// (see decompose_mpi.h and docs/ARCHITECTURE.md, "Domain decomposition"):
// MPI started for the caller and the ranks' agreement on its checks, then
// the run: the rank's simulation, the communicators, the first cuts and the
// own agents, the steps (decompose_step.c), the figures and the outputs
// (decompose_gather.c).
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decompose_private.h"

// See decompose_mpi.h.
void boids_decomp_init(int *argc, char ***argv, int *rank, int *ranks) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, ranks);
}

// See decompose_mpi.h.
void boids_decomp_finalize(void) {
    MPI_Finalize();
}

// See decompose_mpi.h.
void boids_decomp_abort(int status) {
    MPI_Abort(MPI_COMM_WORLD, status);
}

// See decompose_mpi.h. A test loop with 100 µs naps, as every wait of the run.
int boids_decomp_agree(int rc, double timeout_s, FILE *err) {
    int worst = rc;
    MPI_Request r;
    MPI_Iallreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
    for (double t0 = MPI_Wtime();;) {
        int done = 0;
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (done)
            return worst;
        if (MPI_Wtime() - t0 > timeout_s) {
            fprintf(err ? err : stderr, "boids-run: --decompose: the ranks did not agree on the run within %.0f s\n",
                    timeout_s);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

// The rank's simulation: p's world and groups, no agents yet (its own and
// the halo's are set every step, ids of the whole world); d's view of its
// world. Out of memory on a rank before the ranks' first exchange: the job
// ends at once (MPI_Abort, exit 3), so no other rank waits in a collective.
static boids_sim *open_sim(decomp *d, const boids_params *p, uint64_t step0, const boids_decomp_options *o) {
    boids_params local = *p;
    local.world.count = 0;
    boids_sim *s = NULL;
    if (boids_sim_create(&s, &local, BOIDS_DIST_UNIFORM) != BOIDS_OK)
        decomp_fatal(d, "out of memory for the rank's simulation");
    boids_flowfield flow = s->p.flow;
    s->p = *p;
    s->p.flow = flow;
    s->threads = o->threads;
    s->step = step0;
    d->w = &s->p.world;
    d->ndims = (int)d->w->dim;
    d->wrap = d->w->boundary == BOIDS_BOUNDARY_WRAP;
    d->periodic = d->wrap || d->w->boundary == BOIDS_BOUNDARY_MARGIN;
    d->depth = boids_world_grid_fine(d->w);
    d->rows = boids_params_joint_rows(p);
    d->full_bytes = sizeof(agent_rec) + d->rows * sizeof(float[4]);
    return s;
}

// The communicators (the ranks' grid, its duplicate for the roll call), this
// rank's coordinates and the records' types.
static void open_comms(decomp *d, const boids_decomp_options *o) {
    int dims[3], periods[3], coords[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        d->parts[a] = a < d->ndims ? o->parts[a] : 1;
        dims[a] = (int)d->parts[a];
        periods[a] = d->periodic;
    }
    MPI_Cart_create(MPI_COMM_WORLD, d->ndims, dims, periods, 0, &d->cart);
    MPI_Comm_rank(d->cart, &d->rank);
    MPI_Comm_dup(d->cart, &d->ping);
    MPI_Cart_coords(d->cart, d->rank, d->ndims, coords);
    for (int a = 0; a < 3; a++)
        d->coord[a] = a < d->ndims ? (uint32_t)coords[a] : 0;
    MPI_Type_contiguous((int)sizeof(agent_rec), MPI_BYTE, &d->rec_type);
    MPI_Type_commit(&d->rec_type);
    MPI_Type_contiguous((int)d->full_bytes, MPI_BYTE, &d->full_type);
    MPI_Type_commit(&d->full_type);
    MPI_Type_contiguous((int)sizeof(stat_rec), MPI_BYTE, &d->stat_type);
    MPI_Type_commit(&d->stat_type);
}

// The tables of the boxes and the neighbours, and rank 0's room for the
// gathers of the world's n agents; the rank of every box.
static void open_tables(decomp *d, gathered *g) {
    size_t R = (size_t)d->size;
    d->cut = malloc(decomp_cut_words(d->parts) * sizeof *d->cut);
    d->rank_of = malloc(R * sizeof *d->rank_of);
    d->nb = malloc(R * sizeof *d->nb);
    d->nb_slot = malloc(R * sizeof *d->nb_slot);
    d->nb_box = malloc(R * sizeof *d->nb_box);
    d->sc = malloc(4 * R * sizeof *d->sc);
    size_t gn = d->rank == 0 ? (g->n ? g->n : 1) : 1;
    g->all = malloc(gn * sizeof(*g->all));
    g->sorted = malloc(gn * sizeof(*g->sorted));
    g->pos = malloc(gn * sizeof(*g->pos));
    g->vel = malloc(gn * sizeof(*g->vel));
    g->group = malloc(gn * sizeof(*g->group));
    g->counts = malloc(R * sizeof(int));
    g->displs = malloc(R * sizeof(int));
    if (!d->cut || !d->rank_of || !d->nb || !d->nb_slot || !d->nb_box || !d->sc || !g->all || !g->sorted || !g->pos ||
        !g->vel || !g->group || !g->counts || !g->displs)
        decomp_fatal(d, "out of memory for the decomposition");
    d->rc = d->sc + R;
    d->sd = d->rc + R;
    d->rd = d->sd + R;
    for (uint32_t i = 0; i < d->parts[0]; i++)
        for (uint32_t j = 0; j < d->parts[1]; j++)
            for (uint32_t k = 0; k < d->parts[2]; k++) {
                int at[3] = {(int)i, (int)j, (int)k};
                MPI_Cart_rank(d->cart, at, &d->rank_of[((size_t)i * d->parts[1] + j) * d->parts[2] + k]);
            }
}

// The first cuts: every rank holds the whole world, so each cuts alike from
// its own counts (no exchange).
static void first_cuts(decomp *d, uint32_t n, const float (*pos)[4], bool by_counts) {
    if (!by_counts) {
        decomp_cut_even(d);
        return;
    }
    uint32_t *count = calloc(d->w->cells[3], sizeof *count);
    uint64_t *work = malloc((size_t)d->w->cells[3] * 2 * sizeof *work);
    uint64_t *pre = malloc(((size_t)d->w->cells[0] + d->w->cells[1] + d->w->cells[2] + 1) * sizeof *pre);
    if (!count || !work || !pre)
        decomp_fatal(d, "out of memory for the first cuts");
    for (uint32_t id = 0; id < n; id++)
        count[boids_grid_cell_of(d->w, pos[id])]++;
    decomp_cell_work(d, count, work, work + d->w->cells[3]);
    decomp_cut_counts(d, work, pre);
    free(count);
    free(work);
    free(pre);
}

// The own agents of the initial state (and their joints: given, or laid
// straight) into the slots of s.
static void take_own(decomp *d, boids_sim *s, const boids_params *p, uint32_t n, const float (*pos)[4],
                     const float (*vel)[4], const uint32_t *group, const float (*joints)[4]) {
    uint32_t own = 0;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t c[3];
        decomp_coords_of(d, pos[id], c);
        own += decomp_owner_of(d, c) == d->rank;
    }
    if (boids_sim_reserve(s, own + 1) != BOIDS_OK)
        decomp_fatal(d, "out of memory for the own agents");
    decomp_grow_slots(d, own + 1);
    s->n = 0;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t c[3];
        decomp_coords_of(d, pos[id], c);
        if (decomp_owner_of(d, c) != d->rank)
            continue;
        uint32_t i = s->n++;
        memcpy(s->cur.pos[i], pos[id], sizeof(float[4]));
        memcpy(s->cur.vel[i], vel[id], sizeof(float[4]));
        s->cur.id[i] = id;
        s->cur.group[i] = group[id];
        s->neighbors[i] = 0;
        s->candidates[i] = 0;
        s->nearest[i] = 0.0f;
        float(*chain)[4] = d->rows ? d->joints + (size_t)i * d->rows : NULL;
        if (d->rows)
            memset(chain, 0, d->rows * sizeof(float[4]));
        for (uint32_t j = 0; j < d->rows && joints; j++)
            memcpy(chain[j], joints[(size_t)j * n + id], sizeof(float[4]));
        if (d->rows && !joints && p->body[group[id]].style != BOIDS_BODY_NONE)
            boids_body_straight(d->w, &p->body[group[id]], pos[id], vel[id], chain);
    }
}

// Tests, through BOIDS_DEBUG (boids_debug_value): decompose-kill=RANK@STEP
// kills that rank (SIGKILL) before that step of the run,
// decompose-stop=RANK@STEP stops it (SIGSTOP, a rank stuck): the others must
// not hang; nan=ID@STEP makes agent ID's x NaN after that step (on the CPU);
// decompose-timeout=S shortens the time-out;
// decompose-gpu-capacity=K starts the GPU backend with room for K agents (a
// step with more opens a larger one). Returns K, or 0.
static uint64_t debug_hooks(decomp *d, decomp_loop *L) {
    char v[64];
    unsigned long long step = 0;
    L->kill_rank = -1;
    L->kill_signal = SIGKILL;
    bool stop = boids_debug_value("decompose-stop", v, sizeof v);
    if ((stop || boids_debug_value("decompose-kill", v, sizeof v)) && sscanf(v, "%d@%llu", &L->kill_rank, &step) == 2) {
        L->kill_signal = stop ? SIGSTOP : SIGKILL;
        L->kill_step = step;
    } else
        L->kill_rank = -1;
    unsigned id = 0;
    L->nan_step = 0; // the engine checked the value when it was made
    if (boids_debug_value("nan", v, sizeof v) && sscanf(v, "%u@%llu", &id, &step) == 2) {
        L->nan_id = id;
        L->nan_step = step;
    }
    if (boids_debug_value("decompose-timeout", v, sizeof v) && atof(v) > 0)
        d->timeout_s = atof(v);
    return boids_debug_value("decompose-gpu-capacity", v, sizeof v) && atol(v) > 0 ? (uint64_t)atol(v) : 0;
}

// Everything the run holds, freed.
static void close_run(decomp *d, gathered *g, boids_sim *s) {
    free(d->send);
    free(d->recv);
    free(d->owned);
    free(d->pair);
    free(d->joints);
    free(d->joints_tmp);
    free(d->by_id);
    free(d->cut);
    free(d->rank_of);
    free(d->nb);
    free(d->nb_slot);
    free(d->nb_box);
    free(d->sc);
    free(g->mine);
    free(g->all);
    free(g->sorted);
    free(g->pos);
    free(g->vel);
    free(g->group);
    free(g->cell_count);
    free(g->counts);
    free(g->displs);
    MPI_Type_free(&d->rec_type);
    MPI_Type_free(&d->full_type);
    MPI_Type_free(&d->stat_type);
    if (d->graph != MPI_COMM_NULL)
        MPI_Comm_free(&d->graph);
    MPI_Comm_free(&d->ping);
    MPI_Comm_free(&d->cart);
    boids_sim_destroy(s);
}

// See decompose_mpi.h.
int boids_decomp_run(const boids_params *p, uint64_t step0, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                     const uint32_t *group, const boids_decomp_options *o, boids_decomp_result *out) {
    memset(out, 0, sizeof *out);
    decomp d = {.timeout_s = o->timeout_s > 0 ? o->timeout_s : 120.0,
                .err = o->err ? o->err : stderr,
                .cart = MPI_COMM_NULL,
                .graph = MPI_COMM_NULL};
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    boids_sim *s = open_sim(&d, p, step0, o);
    open_comms(&d, o);
    gathered g = {.n = n};
    open_tables(&d, &g);
    bool by_counts = o->imbalance > 0;
    first_cuts(&d, n, pos, by_counts);
    take_own(&d, s, p, n, pos, vel, group, o->joints);
    decomp_loop L = {.d = &d,
                     .s = s,
                     .g = &g,
                     .o = o,
                     .out = out,
                     .n = n,
                     .fine_auto = (d.w->grid_fine & BOIDS_GRID_FINE_AUTO) != 0,
                     .by_counts = by_counts};
    if (o->steps == 0)
        decomp_gather(&d, s, &g, UINT32_MAX, &out->stats, &L.hash);
    MPI_Request br;
    MPI_Ibarrier(d.cart, &br);
    decomp_wait_for(&d, &br, "the start");
    decomp_set_neighbours(&d);
    uint64_t capacity = debug_hooks(&d, &L);
    if (o->gpu) {
        uint64_t want = capacity ? capacity : 2 * (uint64_t)s->n + 1024;
        L.gpu = decomp_open_gpu(&d, s, o, (uint32_t)(want < n ? want : n));
        d.gpu_opened = 1;
    }
    double start = MPI_Wtime();
    L.interval = start;
    for (uint64_t k = 1; k <= o->steps; k++)
        if (!decomp_step(&L, k))
            break;
    double elapsed = MPI_Wtime() - start;
    boids_engine_destroy(L.gpu);
    int rc = decomp_finish(&L, elapsed);
    close_run(&d, &g, s);
    return rc;
}
