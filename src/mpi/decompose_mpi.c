// src/mpi/decompose_mpi.c: one simulation over MPI ranks by boxes of cells
// (see decompose_mpi.h and docs/ARCHITECTURE.md, "Domain decomposition").
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "decompose_mpi.h"

// One agent on the wire: the state a neighbour's steer reads, and what the
// owner integrates from (the wander lanes are pos.w and vel.w).
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

typedef struct decomp {
    MPI_Comm cart;
    MPI_Datatype rec_type, stat_type;
    int rank, size, ndims;
    uint32_t parts[3], coord[3], lo[3], hi[3];
    bool wrap;     // the grid is a torus: the halo crosses the world's edges
    bool periodic; // the Cartesian grid is periodic (a torus, or margin's jumps across the world)
    double timeout_s;
    FILE *err;
    const boids_world_params *w;
    agent_rec *send, *recv;
    size_t send_cap, recv_cap;
    uint8_t *owned;
    uint32_t owned_cap;
    uint64_t halo_bytes, migrate_bytes, halo_agents, migrated;
    double wait_s; // seconds in wait_for (the exchanges, the gathers)
} decomp;

// See decompose_mpi.h.
bool boids_decomp_parse(const char *text, uint32_t parts[3]) {
    parts[0] = parts[1] = parts[2] = 0;
    const char *c = text;
    for (int a = 0; a < 3; a++) {
        if (*c < '0' || *c > '9')
            return false;
        unsigned long v = 0;
        while (*c >= '0' && *c <= '9' && v <= 4096)
            v = v * 10 + (unsigned long)(*c++ - '0');
        if (v < 1 || v > 4096)
            return false;
        parts[a] = (uint32_t)v;
        if (*c == '\0')
            return a >= 1;
        if (*c != 'x')
            return false;
        c++;
    }
    return false;
}

// See decompose_mpi.h.
const char *boids_decomp_refusal(const boids_params *p) {
    if (boids_params_named(p))
        return "behaviour offset, follow or interpose (a named agent, anywhere in the world)";
    if (boids_params_survey(p))
        return "rules heading with cohesion (the global survey of the densest block)";
    if (boids_params_joint_rows(p) > 0)
        return "--bodies (joints indexed by id over the whole world)";
    if (boids_world_grid_fine(&p->world) != 1 || (p->world.grid_fine & BOIDS_GRID_FINE_AUTO))
        return "--grid-fine (the halo is one cell of M = 1)";
    return NULL;
}

// The cells of box k of `parts` along an axis of `cells`: [lo, hi).
static uint32_t box_lo(uint32_t cells, uint32_t parts, uint32_t k) {
    return (uint32_t)((uint64_t)cells * k / parts);
}

// See decompose_mpi.h.
int boids_decomp_check(const boids_params *p, uint32_t parts[3], int ranks, char *err, size_t err_size) {
    const boids_world_params *w = &p->world;
    if (w->dim == 2 && parts[2] != 0) {
        snprintf(err, err_size, "--decompose: '%ux%ux%u' has a third part in a 2D world; expected AxB", parts[0],
                 parts[1], parts[2]);
        return 2;
    }
    if (parts[2] == 0)
        parts[2] = 1;
    uint64_t product = (uint64_t)parts[0] * parts[1] * parts[2];
    if (product != (uint64_t)ranks) {
        snprintf(err, err_size, "--decompose: %u boxes (%ux%ux%u) for %d ranks; expected A*B*C = the ranks of mpirun",
                 (unsigned)product, parts[0], parts[1], parts[2], ranks);
        return 2;
    }
    bool wrap = w->boundary == BOIDS_BOUNDARY_WRAP;
    for (uint32_t a = 0; a < w->dim; a++) {
        uint32_t cells = w->cells[a], least = wrap && parts[a] == 2 ? 2 : 1;
        for (uint32_t k = 0; k < parts[a]; k++)
            if (box_lo(cells, parts[a], k + 1) - box_lo(cells, parts[a], k) < least) {
                snprintf(err, err_size,
                         "--decompose: %u boxes along axis %c of %u cells leave a box of %u cells; expected at "
                         "least %u cells each (%s)",
                         parts[a], "xyz"[a], cells, box_lo(cells, parts[a], k + 1) - box_lo(cells, parts[a], k), least,
                         least == 2 ? "on a torus cut in two, the halo's two sides must be other cells"
                                    : "the halo is one cell deep");
                return 2;
            }
    }
    return 0;
}

// Waits for r, giving up after the time-out (a rank lost or stuck): one
// line and MPI_Abort, never a hang.
static void wait_for(decomp *d, MPI_Request *r, const char *what) {
    double t0 = MPI_Wtime();
    for (unsigned spin = 0;; spin++) {
        int done = 0;
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done) {
            d->wait_s += MPI_Wtime() - t0;
            return;
        }
        if (MPI_Wtime() - t0 > d->timeout_s) {
            fprintf(d->err, "boids-run: --decompose: rank %d waited %.0f s for %s; a rank is lost or stuck\n", d->rank,
                    d->timeout_s, what);
            fflush(d->err);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (spin > 1000) { // a loaded machine: leave the cores to the other ranks
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
}

static void fatal(const decomp *d, const char *msg) {
    fprintf(d->err, "boids-run: --decompose: rank %d: %s\n", d->rank, msg);
    fflush(d->err);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static bool grow_buf(agent_rec **b, size_t *cap, size_t need) {
    if (need <= *cap)
        return true;
    size_t c = need + need / 2 + 64;
    agent_rec *n = realloc(*b, c * sizeof(*n));
    if (!n)
        return false;
    *b = n;
    *cap = c;
    return true;
}

static void rec_of(const boids_sim *s, uint32_t i, agent_rec *r) {
    memcpy(r->pos, s->cur.pos[i], sizeof r->pos);
    memcpy(r->vel, s->cur.vel[i], sizeof r->vel);
    r->id = s->cur.id[i];
    r->group = s->cur.group[i];
}

static void rec_to(boids_sim *s, uint32_t i, const agent_rec *r) {
    memcpy(s->cur.pos[i], r->pos, sizeof r->pos);
    memcpy(s->cur.vel[i], r->vel, sizeof r->vel);
    s->cur.id[i] = r->id;
    s->cur.group[i] = r->group;
}

static void coords_of(const decomp *d, const float pos[4], uint32_t c[3]) {
    const boids_world_params *w = d->w;
    uint32_t k = boids_grid_cell_of(w, pos);
    c[0] = k % w->cells[0];
    c[1] = k / w->cells[0] % w->cells[1];
    c[2] = k / (w->cells[0] * w->cells[1]);
}

// The box along axis a holding cell coordinate c.
static uint32_t part_of(const decomp *d, uint32_t a, uint32_t c) {
    uint32_t cells = d->w->cells[a], parts = d->parts[a];
    uint32_t k = (uint32_t)((uint64_t)c * parts / cells);
    while (k + 1 < parts && box_lo(cells, parts, k + 1) <= c)
        k++;
    while (k > 0 && box_lo(cells, parts, k) > c)
        k--;
    return k;
}

// One exchange with the two neighbours along axis a: the agents of the
// send buffer, `count[0]` for the lower neighbour then `count[1]` for the
// upper, sizes first (MPI_Ineighbor_alltoall), then the agents
// (MPI_Ineighbor_alltoallv) into d->recv. Returns how many arrived.
static uint32_t exchange(decomp *d, uint32_t a, const int count[2], uint64_t *bytes, const char *what) {
    int nb = 2 * d->ndims;
    int sc[6] = {0}, rc[6] = {0}, sd[6] = {0}, rd[6] = {0};
    sc[2 * a] = count[0];
    sc[2 * a + 1] = count[1];
    MPI_Request r;
    MPI_Ineighbor_alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, d->cart, &r);
    wait_for(d, &r, what);
    size_t total = 0;
    for (int k = 0; k < nb; k++) {
        rd[k] = (int)total;
        total += (size_t)rc[k];
    }
    sd[2 * a + 1] = count[0];
    if (!grow_buf(&d->recv, &d->recv_cap, total))
        fatal(d, "out of memory for the agents received");
    MPI_Ineighbor_alltoallv(d->send, sc, sd, d->rec_type, d->recv, rc, rd, d->rec_type, d->cart, &r);
    wait_for(d, &r, what);
    *bytes += (uint64_t)nb * sizeof(int) + (uint64_t)(count[0] + count[1]) * sizeof(agent_rec);
    return (uint32_t)total;
}

// The halo: after it, slots n_own.. of cur hold copies of the agents of the
// cells one deep around the box (corners through the later axes).
static void halo(decomp *d, boids_sim *s) {
    for (uint32_t a = 0; a < (uint32_t)d->ndims; a++) {
        if (d->parts[a] == 1) // the whole axis is here: the grid wraps it itself
            continue;
        bool lower = d->wrap || d->coord[a] > 0, upper = d->wrap || d->coord[a] + 1 < d->parts[a];
        // The lower side's agents first, then the upper side's (a box one
        // cell wide sends its agents both ways).
        int count[2] = {0, 0};
        if (!grow_buf(&d->send, &d->send_cap, 2 * (size_t)s->n))
            fatal(d, "out of memory for the halo");
        for (int side = 0; side < 2; side++) {
            if (side == 0 ? !lower : !upper)
                continue;
            uint32_t edge = side == 0 ? d->lo[a] : d->hi[a] - 1;
            for (uint32_t i = 0; i < s->n; i++) {
                uint32_t c[3];
                coords_of(d, s->cur.pos[i], c);
                if (c[a] != edge)
                    continue;
                rec_of(s, i, &d->send[count[0] + count[1]]);
                count[side]++;
            }
        }
        uint32_t got = exchange(d, a, count, &d->halo_bytes, "the halo");
        if (boids_sim_reserve(s, s->n + got) != BOIDS_OK)
            fatal(d, "out of memory for the halo");
        for (uint32_t k = 0; k < got; k++)
            rec_to(s, s->n + k, &d->recv[k]);
        s->n += got;
    }
}

// The agents that left the box go to the neighbour box they entered, axis by
// axis (a diagonal move crosses two exchanges).
static void migrate(decomp *d, boids_sim *s) {
    for (uint32_t a = 0; a < (uint32_t)d->ndims; a++) {
        if (d->parts[a] == 1)
            continue;
        uint32_t p = d->parts[a], me = d->coord[a];
        uint32_t down = d->periodic ? (me + p - 1) % p : me - 1, up = d->periodic ? (me + 1) % p : me + 1;
        if (!grow_buf(&d->send, &d->send_cap, s->n))
            fatal(d, "out of memory for the migration");
        int count[2] = {0, 0};
        // The lower neighbour's first: count them, then place both lists.
        uint8_t *dir = d->owned; // scratch: 0 stays, 1 down, 2 up
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t c[3];
            coords_of(d, s->cur.pos[i], c);
            uint32_t k = part_of(d, a, c[a]);
            dir[i] = 0;
            if (k == me)
                continue;
            if (k == up)
                dir[i] = 2;
            else if (k == down && (d->periodic || me > 0))
                dir[i] = 1;
            else {
                char msg[200];
                snprintf(msg, sizeof msg, "agent %u crossed more than one box along axis %c in one step (box %u to %u)",
                         s->cur.id[i], "xyz"[a], me, k);
                fatal(d, msg);
            }
            count[dir[i] - 1]++;
        }
        int at[2] = {0, count[0]};
        uint32_t kept = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            if (dir[i]) {
                rec_of(s, i, &d->send[at[dir[i] - 1]++]);
                continue;
            }
            if (kept != i) {
                agent_rec r;
                rec_of(s, i, &r);
                rec_to(s, kept, &r);
            }
            kept++;
        }
        d->migrated += (uint64_t)(count[0] + count[1]);
        uint32_t got = exchange(d, a, count, &d->migrate_bytes, "the migration");
        s->n = kept;
        if (boids_sim_reserve(s, s->n + got) != BOIDS_OK)
            fatal(d, "out of memory for the migration");
        for (uint32_t k = 0; k < got; k++)
            rec_to(s, s->n + k, &d->recv[k]);
        s->n += got;
        if (s->n > d->owned_cap) {
            uint8_t *o = realloc(d->owned, s->n + (size_t)s->n / 2 + 64);
            if (!o)
                fatal(d, "out of memory");
            d->owned = o;
            d->owned_cap = s->n + s->n / 2 + 64;
        }
    }
}

static bool in_box(const decomp *d, const uint32_t c[3]) {
    for (int a = 0; a < d->ndims; a++)
        if (c[a] < d->lo[a] || c[a] >= d->hi[a])
            return false;
    return true;
}

// The statistics of the whole world from id-order arrays, as boids_sim_stats
// computes them over slots (the sums in id order here).
static void world_stats(const boids_world_params *w, uint32_t n, const stat_rec *r, uint32_t *cell_count,
                        float (*pos)[4], float (*vel)[4], uint32_t *group, boids_stats *out) {
    boids_stats_sums t = {0};
    memset(cell_count, 0, w->cells[3] * sizeof(*cell_count));
    for (uint32_t id = 0; id < n; id++) {
        memcpy(pos[id], r[id].a.pos, sizeof(float[4]));
        memcpy(vel[id], r[id].a.vel, sizeof(float[4]));
        group[id] = r[id].a.group;
        boids_stats_add(&t, r[id].a.vel, r[id].neighbors, r[id].candidates, r[id].nearest);
        cell_count[boids_grid_cell_of(w, r[id].a.pos)]++;
    }
    boids_stats_finish(&t, out);
    uint32_t mx = 0;
    for (uint32_t c = 0; c < w->cells[3]; c++)
        mx = cell_count[c] > mx ? cell_count[c] : mx;
    out->cell_max = mx;
    out->cell_mean = w->cells[3] ? (double)n / w->cells[3] : 0.0;
    out->milling = boids_stats_milling(w, n, (const float(*)[4])pos, (const float(*)[4])vel, group, BOIDS_STATS_ALL);
}

// Every rank's own agents (slots 0..s->n of cur, with their last steer's
// outputs) to rank 0 in id order: the statistics and the hash of the world.
typedef struct gathered {
    uint32_t n;
    stat_rec *all, *mine, *sorted;
    int *counts, *displs;
    uint32_t *cell_count, *group;
    float (*pos)[4], (*vel)[4];
} gathered;

static void gather(decomp *d, boids_sim *s, gathered *g, uint32_t cell_max, boids_stats *st, uint64_t *hash) {
    for (uint32_t i = 0; i < s->n; i++) {
        rec_of(s, i, &g->mine[i].a);
        g->mine[i].neighbors = s->neighbors[i];
        g->mine[i].candidates = s->candidates[i];
        g->mine[i].nearest = s->nearest[i];
    }
    int mine = (int)s->n;
    MPI_Request r;
    MPI_Igather(&mine, 1, MPI_INT, g->counts, 1, MPI_INT, 0, d->cart, &r);
    wait_for(d, &r, "the gather's sizes");
    if (d->rank == 0) {
        uint64_t total = 0;
        for (int k = 0; k < d->size; k++) {
            g->displs[k] = (int)total;
            total += (uint64_t)g->counts[k];
        }
        if (total != g->n) {
            char msg[160];
            snprintf(msg, sizeof msg, "%llu agents gathered, %u expected (agents lost or doubled)",
                     (unsigned long long)total, g->n);
            fatal(d, msg);
        }
    }
    MPI_Igatherv(g->mine, mine, d->stat_type, g->all, g->counts, g->displs, d->stat_type, 0, d->cart, &r);
    wait_for(d, &r, "the gather");
    uint32_t most = 0; // the fullest cell of the step's grid (before integrate), as one process counts it
    MPI_Ireduce(&cell_max, &most, 1, MPI_UINT32_T, MPI_MAX, 0, d->cart, &r);
    wait_for(d, &r, "the gather");
    if (d->rank != 0)
        return;
    memset(g->sorted, 0xff, (size_t)g->n * sizeof(*g->sorted));
    for (uint32_t k = 0; k < g->n; k++) {
        uint32_t id = g->all[k].a.id;
        if (id >= g->n || g->sorted[id].a.id != UINT32_MAX) {
            char msg[120];
            snprintf(msg, sizeof msg, "agent id %u gathered twice or out of range", id);
            fatal(d, msg);
        }
        g->sorted[id] = g->all[k];
    }
    memset(st, 0, sizeof *st);
    st->step = s->step;
    world_stats(d->w, g->n, g->sorted, g->cell_count, g->pos, g->vel, g->group, st);
    if (cell_max != UINT32_MAX)
        st->cell_max = most;
    *hash = boids_state_hash(g->n, (const float(*)[4])g->pos, (const float(*)[4])g->vel, g->group);
}

// See decompose_mpi.h.
int boids_decomp_run(const boids_params *p, uint64_t step0, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                     const uint32_t *group, const boids_decomp_options *o, boids_decomp_result *out) {
    memset(out, 0, sizeof *out);
    decomp d = {.timeout_s = o->timeout_s > 0 ? o->timeout_s : 120.0, .err = o->err ? o->err : stderr};
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    // The rank's simulation: p's world and groups, no agents yet (its own
    // and the halo's are set every step, ids of the whole world).
    boids_params local = *p;
    local.world.count = 0;
    boids_sim *s = NULL;
    if (boids_sim_create(&s, &local, BOIDS_DIST_UNIFORM) != BOIDS_OK)
        return 3;
    boids_flowfield flow = s->p.flow;
    s->p = *p;
    s->p.flow = flow;
    s->threads = o->threads;
    s->step = step0;
    d.w = &s->p.world;
    d.ndims = (int)d.w->dim;
    d.wrap = d.w->boundary == BOIDS_BOUNDARY_WRAP;
    d.periodic = d.wrap || d.w->boundary == BOIDS_BOUNDARY_MARGIN;
    int dims[3], periods[3], coords[3];
    for (int a = 0; a < 3; a++) {
        d.parts[a] = a < d.ndims ? o->parts[a] : 1;
        dims[a] = (int)d.parts[a];
        periods[a] = d.periodic;
    }
    MPI_Cart_create(MPI_COMM_WORLD, d.ndims, dims, periods, 0, &d.cart);
    MPI_Comm_rank(d.cart, &d.rank);
    MPI_Cart_coords(d.cart, d.rank, d.ndims, coords);
    for (int a = 0; a < 3; a++) {
        d.coord[a] = a < d.ndims ? (uint32_t)coords[a] : 0;
        d.lo[a] = a < d.ndims ? box_lo(d.w->cells[a], d.parts[a], d.coord[a]) : 0;
        d.hi[a] = a < d.ndims ? box_lo(d.w->cells[a], d.parts[a], d.coord[a] + 1) : 1;
    }
    MPI_Type_contiguous((int)sizeof(agent_rec), MPI_BYTE, &d.rec_type);
    MPI_Type_commit(&d.rec_type);
    MPI_Type_contiguous((int)sizeof(stat_rec), MPI_BYTE, &d.stat_type);
    MPI_Type_commit(&d.stat_type);
    int rc = 0;
    // The own agents of the initial state.
    uint32_t own = 0;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t c[3];
        coords_of(&d, pos[id], c);
        own += in_box(&d, c);
    }
    gathered g = {.n = n};
    if (boids_sim_reserve(s, own + 1) != BOIDS_OK) {
        rc = 3;
        goto done;
    }
    s->n = 0;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t c[3];
        coords_of(&d, pos[id], c);
        if (!in_box(&d, c))
            continue;
        memcpy(s->cur.pos[s->n], pos[id], sizeof(float[4]));
        memcpy(s->cur.vel[s->n], vel[id], sizeof(float[4]));
        s->cur.id[s->n] = id;
        s->cur.group[s->n] = group[id];
        s->neighbors[s->n] = 0;
        s->candidates[s->n] = 0;
        s->nearest[s->n] = 0.0f;
        s->n++;
    }
    d.owned_cap = own + own / 2 + 64;
    d.owned = malloc(d.owned_cap);
    size_t gn = d.rank == 0 ? (n ? n : 1) : 1;
    g.mine = malloc((size_t)(n ? n : 1) * sizeof(*g.mine)); // at most the world (a rank could hold it all)
    g.all = malloc(gn * sizeof(*g.all));
    g.sorted = malloc(gn * sizeof(*g.sorted));
    g.pos = malloc(gn * sizeof(*g.pos));
    g.vel = malloc(gn * sizeof(*g.vel));
    g.group = malloc(gn * sizeof(*g.group));
    g.cell_count = malloc((d.rank == 0 ? d.w->cells[3] : 1) * sizeof(*g.cell_count));
    g.counts = malloc((size_t)d.size * sizeof(int));
    g.displs = malloc((size_t)d.size * sizeof(int));
    if (!d.owned || !g.mine || !g.all || !g.sorted || !g.pos || !g.vel || !g.group || !g.cell_count || !g.counts ||
        !g.displs) {
        rc = 3;
        goto done;
    }
    uint64_t hash = 0;
    if (o->steps == 0)
        gather(&d, s, &g, UINT32_MAX, &out->stats, &hash);
    MPI_Request br;
    MPI_Ibarrier(d.cart, &br);
    wait_for(&d, &br, "the start");
    // Tests: BOIDS_DECOMPOSE_KILL=RANK:STEP kills that rank (SIGKILL) before
    // that step of the run, BOIDS_DECOMPOSE_STOP=RANK:STEP stops it (SIGSTOP,
    // a rank stuck): the others must not hang; BOIDS_DECOMPOSE_TIMEOUT=S
    // shortens the time-out.
    int kill_rank = -1, kill_signal = SIGKILL;
    unsigned long long kill_step = 0;
    const char *kill = getenv("BOIDS_DECOMPOSE_KILL"), *stop = getenv("BOIDS_DECOMPOSE_STOP");
    if (stop) {
        kill = stop;
        kill_signal = SIGSTOP;
    }
    if (kill && sscanf(kill, "%d:%llu", &kill_rank, &kill_step) != 2)
        kill_rank = -1;
    const char *limit = getenv("BOIDS_DECOMPOSE_TIMEOUT");
    if (limit && atof(limit) > 0)
        d.timeout_s = atof(limit);
    double start = MPI_Wtime(), interval = start;
    uint64_t interval_steps = 0;
    for (uint64_t k = 1; k <= o->steps; k++) {
        if (d.rank == kill_rank && k == kill_step)
            raise(kill_signal);
        uint32_t n_own = s->n;
        halo(&d, s);
        d.halo_agents += s->n - n_own;
        s->p.world.step = (uint32_t)s->step;
        boids_sim_build_grid(s);
        if (s->n > d.owned_cap) {
            uint8_t *ow = realloc(d.owned, s->n + (size_t)s->n / 2 + 64);
            if (!ow)
                fatal(&d, "out of memory");
            d.owned = ow;
            d.owned_cap = s->n + s->n / 2 + 64;
        }
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t c[3];
            coords_of(&d, s->cur.pos[i], c);
            d.owned[i] = in_box(&d, c);
        }
        bool stats = k % o->stats_every == 0 || k == o->steps;
        uint32_t cell_max = 0;
        for (uint32_t c = 0; stats && c < d.w->cells[3]; c++) { // the own cells of this step's grid
            uint32_t cc[3] = {c % d.w->cells[0], c / d.w->cells[0] % d.w->cells[1],
                              c / (d.w->cells[0] * d.w->cells[1])};
            if (in_box(&d, cc) && s->grid.count[c] > cell_max)
                cell_max = s->grid.count[c];
        }
        s->owned = d.owned;
        boids_sim_steer(s);
        boids_sim_integrate(s);
        s->owned = NULL;
        // Drop the halo: the own agents (and their steer outputs) to the front.
        uint32_t kept = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            if (!d.owned[i])
                continue;
            if (kept != i) {
                agent_rec r;
                rec_of(s, i, &r);
                rec_to(s, kept, &r);
                s->neighbors[kept] = s->neighbors[i];
                s->candidates[kept] = s->candidates[i];
                s->nearest[kept] = s->nearest[i];
            }
            kept++;
        }
        s->n = kept;
        s->step++;
        interval_steps++;
        if (stats) {
            double t = MPI_Wtime();
            gather(&d, s, &g, cell_max, &out->stats, &hash);
            if (d.rank == 0 && o->stats)
                o->stats(o->user, &out->stats, (t - interval) * 1e3 / (double)interval_steps);
            interval = MPI_Wtime();
            interval_steps = 0;
        }
        migrate(&d, s);
    }
    double elapsed = MPI_Wtime() - start;
    // The exchange figures of every rank: the largest bytes, the mean halo.
    double mine[3] = {(double)d.halo_bytes, (double)d.migrate_bytes, d.wait_s / (elapsed > 0 ? elapsed : 1)}, most[3];
    double sums[2] = {(double)d.halo_agents, (double)d.migrated}, total[2];
    MPI_Request rr[2];
    MPI_Ireduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, 0, d.cart, &rr[0]);
    wait_for(&d, &rr[0], "the figures");
    MPI_Ireduce(sums, total, 2, MPI_DOUBLE, MPI_SUM, 0, d.cart, &rr[1]);
    wait_for(&d, &rr[1], "the figures");
    if (d.rank == 0) {
        double steps = o->steps ? (double)o->steps : 1.0;
        out->hash = hash;
        out->ms_per_step = elapsed * 1e3 / steps;
        out->halo_bytes = most[0] / steps;
        out->migrate_bytes = most[1] / steps;
        out->halo_agents = total[0] / steps / d.size;
        out->migrated = (uint64_t)total[1];
        out->wait_share = most[2];
        // The final state to the caller (the outputs): the last gather's id-order arrays.
        uint32_t *neighbors = o->final ? malloc((size_t)(n ? n : 1) * sizeof *neighbors) : NULL;
        if (o->final && !neighbors)
            rc = 3;
        else if (o->final) {
            for (uint32_t id = 0; id < n; id++)
                neighbors[id] = g.sorted[id].neighbors;
            o->final(o->user, s->step, n, (const float(*)[4])g.pos, (const float(*)[4])g.vel, g.group, neighbors);
        }
        free(neighbors);
    }
done:
    free(d.send);
    free(d.recv);
    free(d.owned);
    free(g.mine);
    free(g.all);
    free(g.sorted);
    free(g.pos);
    free(g.vel);
    free(g.group);
    free(g.cell_count);
    free(g.counts);
    free(g.displs);
    MPI_Type_free(&d.rec_type);
    MPI_Type_free(&d.stat_type);
    MPI_Comm_free(&d.cart);
    boids_sim_destroy(s);
    return rc;
}
