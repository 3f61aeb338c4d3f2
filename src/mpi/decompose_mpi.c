// src/mpi/decompose_mpi.c: one simulation over MPI ranks by boxes of cells
// (see decompose_mpi.h and docs/ARCHITECTURE.md, "Domain decomposition").
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

typedef struct decomp {
    MPI_Comm cart;  // the A x B x C ranks (MPI_Cart_create, no reorder): a rank's coordinates
    MPI_Comm ping;  // a duplicate of cart for the time-out's roll call (wait_for)
    MPI_Comm graph; // the neighbours (boxes within the halo's reach): the exchanges' neighbourhood collectives
    MPI_Datatype rec_type, full_type, stat_type; // halo records, migration records, gathered ones
    int rank, size, ndims;
    uint32_t parts[3], coord[3];
    uint32_t depth; // the halo's cells per side: the grid's factor M (a cell is at least reach / M)
    bool wrap;      // the grid is a torus: the halo crosses the world's edges
    bool periodic;  // neighbours across the world's edges (a torus, or margin's jumps across the world)
    // The cuts (see cuts_of): per axis the first cell of each part, then the
    // axis's cells; x once, y per slab of x, z per column of x and y.
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
    double wait_s;         // seconds in wait_for (the exchanges, the gathers)
    uint32_t gpu_capacity; // agents the GPU backend holds (o->gpu)
    uint32_t gpu_opened;   // GPU engines made (1, more when a step's agents outgrew one)
    uint32_t strays;       // steps whose agents went beyond the neighbours' boxes (all redistributed)
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
bool boids_decomp_parse_rebalance(const char *text, uint32_t *every, double *threshold) {
    if (strcmp(text, "off") == 0) {
        *every = 0;
        *threshold = 0.0;
        return true;
    }
    char *end = NULL;
    if (*text < '0' || *text > '9')
        return false;
    unsigned long k = strtoul(text, &end, 10);
    if (end == text || k > 1000000000ul)
        return false;
    double t = BOIDS_DECOMP_IMBALANCE_DEFAULT;
    if (*end == ':') {
        const char *v = end + 1;
        if (*v < '0' || *v > '9')
            return false;
        t = strtod(v, &end);
        if (end == v || !(t >= 1.0) || t > 1e6)
            return false;
    }
    if (*end != '\0')
        return false;
    *every = (uint32_t)k;
    *threshold = t;
    return true;
}

// The first cell of part k of `parts` even parts of an axis of `cells`.
static uint32_t even_lo(uint32_t cells, uint32_t parts, uint32_t k) {
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
    // The grid of M = 1 has the fewest cells of any M (grid_fine auto may
    // move to it): every box is at least one of its cells.
    boids_params q = *p;
    q.flow.vec = NULL;
    q.world.grid_fine = 0;
    if (boids_params_finalize(&q, NULL, 0) != BOIDS_OK)
        q.world = *w;
    for (uint32_t a = 0; a < w->dim; a++) {
        uint32_t cells = q.world.cells[a] < w->cells[a] ? q.world.cells[a] : w->cells[a];
        if (parts[a] > cells) {
            snprintf(err, err_size,
                     "--decompose: %u boxes along axis %c of %u cells (of the reach) leave a box of 0 cells; expected "
                     "at most %u boxes along %c",
                     parts[a], "xyz"[a], cells, cells, "xyz"[a]);
            return 2;
        }
    }
    return 0;
}

// The roll call of a rank that timed out (roll_call), on d->ping: its
// own messages, apart from the run's.
enum { TAG_PING = 1, TAG_PONG = 2 };

// Answers the roll calls that came (a rank waiting also answers: the one
// that timed out names only the ranks that do not).
static void answer_roll_calls(decomp *d) {
    for (;;) {
        int came = 0, call;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_PING, d->ping, &came, &st);
        if (!came)
            return;
        MPI_Recv(&call, 1, MPI_INT, st.MPI_SOURCE, TAG_PING, d->ping, MPI_STATUS_IGNORE);
        MPI_Request r;
        MPI_Isend(&d->rank, 1, MPI_INT, st.MPI_SOURCE, TAG_PONG, d->ping, &r);
        MPI_Request_free(&r);
    }
}

// After a time-out: asks every other rank to answer, waits for the answers
// a few seconds (answering the others' calls meanwhile), and writes into
// `silent` the ranks that did not ("1, 3"; empty: every rank answered).
static void roll_call(decomp *d, char *silent, size_t size) {
    int n = d->size, *answer = calloc((size_t)n, sizeof *answer);
    MPI_Request *recv = calloc((size_t)n, sizeof *recv), *send = calloc((size_t)n, sizeof *send);
    silent[0] = '\0';
    if (!answer || !recv || !send) { // (freed by the abort that follows, as the buffers below)
        snprintf(silent, size, "(unknown: out of memory)");
        return;
    }
    for (int k = 0; k < n; k++) {
        recv[k] = send[k] = MPI_REQUEST_NULL;
        if (k == d->rank)
            continue;
        MPI_Irecv(&answer[k], 1, MPI_INT, k, TAG_PONG, d->ping, &recv[k]);
        MPI_Isend(&d->rank, 1, MPI_INT, k, TAG_PING, d->ping, &send[k]);
    }
    double grace = d->timeout_s < 10 ? d->timeout_s : 10, t0 = MPI_Wtime();
    int waiting = n - 1;
    while (waiting > 0 && MPI_Wtime() - t0 < grace) {
        answer_roll_calls(d);
        waiting = 0;
        for (int k = 0; k < n; k++) {
            int done = 1;
            if (recv[k] != MPI_REQUEST_NULL)
                MPI_Test(&recv[k], &done, MPI_STATUS_IGNORE);
            waiting += !done;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    size_t used = 0;
    for (int k = 0; k < n; k++)
        if (recv[k] != MPI_REQUEST_NULL && used < size)
            used += (size_t)snprintf(silent + used, size - used, "%s%d", used ? ", " : "", k);
    // Not freed: a late answer may still land in them before MPI_Abort, which follows.
}

// Waits for r, giving up after the time-out (a rank lost or stuck): a roll
// call names the ranks that do not answer, one line, MPI_Abort; never a hang.
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
            char silent[256];
            roll_call(d, silent, sizeof silent);
            if (silent[0])
                fprintf(d->err,
                        "boids-run: --decompose: rank %d waited %.0f s for %s; rank %s does not answer (stopped, "
                        "lost, or busy beyond --timeout): the run ends\n",
                        d->rank, d->timeout_s, what, silent);
            else
                fprintf(d->err,
                        "boids-run: --decompose: rank %d waited %.0f s for %s; every rank answers, so they wait on "
                        "one another (a fault of boids-run: please report it): the run ends\n",
                        d->rank, d->timeout_s, what);
            fflush(d->err);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (spin > 1000) { // a loaded machine: leave the cores to the other ranks
            answer_roll_calls(d);
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

static void *grow(const decomp *d, void *b, size_t *cap, size_t need, size_t size) {
    if (need <= *cap)
        return b;
    size_t c = need + need / 2 + 64;
    void *n = realloc(b, c * size);
    if (!n)
        fatal(d, "out of memory");
    *cap = c;
    return n;
}

// The displacements of n counts laid end to end (displ[k]: the sum of the
// counts before k); returns their total.
static size_t displace(const int *count, int *displ, int n) {
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
    d->send = grow(d, d->send, &d->send_cap, need, d->full_bytes);
}
static void grow_recv(decomp *d, size_t need) {
    d->recv = grow(d, d->recv, &d->recv_cap, need, d->full_bytes);
}

// Room for `need` slots in the per-slot arrays of the driver (the owned
// flags, the joints).
static void grow_slots(decomp *d, uint32_t need) {
    size_t cap = d->owned_cap;
    d->owned = grow(d, d->owned, &cap, need, 1);
    d->owned_cap = (uint32_t)cap;
    if (d->rows) {
        size_t jc = d->joints_cap, jt = d->joints_cap;
        d->joints = grow(d, d->joints, &jc, need, d->rows * sizeof(float[4]));
        d->joints_tmp = grow(d, d->joints_tmp, &jt, need, d->rows * sizeof(float[4]));
        d->joints_cap = (uint32_t)(jc < jt ? jc : jt);
    }
}

// Slot i of s (and its joints) as record k of buf, and back.
static void agent_of(const boids_sim *s, uint32_t i, agent_rec *r) {
    memcpy(r->pos, s->cur.pos[i], sizeof r->pos);
    memcpy(r->vel, s->cur.vel[i], sizeof r->vel);
    r->id = s->cur.id[i];
    r->group = s->cur.group[i];
}

static void rec_of(const decomp *d, const boids_sim *s, uint32_t i, uint8_t *buf, size_t k) {
    agent_rec r;
    agent_of(s, i, &r);
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
static void move_slot(decomp *d, boids_sim *s, uint32_t i, uint32_t k) {
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

static void coords_of(const decomp *d, const float pos[4], uint32_t c[3]) {
    const boids_world_params *w = d->w;
    uint32_t k = boids_grid_cell_of(w, pos);
    c[0] = k % w->cells[0];
    c[1] = k / w->cells[0] % w->cells[1];
    c[2] = k / (w->cells[0] * w->cells[1]);
}

// The cuts of axis a: parts[a] + 1 cells, the first of each part then the
// axis's cells; of the whole x axis, of slab i's y axis, of column (i, j)'s
// z axis.
static uint32_t *cuts_of(const decomp *d, int a, uint32_t i, uint32_t j) {
    uint32_t A = d->parts[0], B = d->parts[1], C = d->parts[2];
    if (a == 0)
        return d->cut;
    if (a == 1)
        return d->cut + (A + 1) + (size_t)i * (B + 1);
    return d->cut + (A + 1) + (size_t)A * (B + 1) + ((size_t)i * B + j) * (C + 1);
}

static size_t cut_words(const uint32_t parts[3]) {
    return (parts[0] + 1) + (size_t)parts[0] * (parts[1] + 1) + (size_t)parts[0] * parts[1] * (parts[2] + 1);
}

// The part of an axis cut at cut[0..parts] holding cell c.
static uint32_t part_at(const uint32_t *cut, uint32_t parts, uint32_t c) {
    uint32_t lo = 0, hi = parts; // cut[lo] <= c < cut[hi]
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (cut[mid] <= c)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// The box (i, j, k) of the cuts.
static box box_at(const decomp *d, uint32_t i, uint32_t j, uint32_t k) {
    const uint32_t *x = cuts_of(d, 0, 0, 0), *y = cuts_of(d, 1, i, 0), *z = cuts_of(d, 2, i, j);
    return (box){{x[i], y[j], z[k]}, {x[i + 1], y[j + 1], z[k + 1]}};
}

// The rank owning cell c.
static int owner_of(const decomp *d, const uint32_t c[3]) {
    uint32_t i = part_at(cuts_of(d, 0, 0, 0), d->parts[0], c[0]);
    uint32_t j = part_at(cuts_of(d, 1, i, 0), d->parts[1], c[1]);
    uint32_t k = part_at(cuts_of(d, 2, i, j), d->parts[2], c[2]);
    return d->rank_of[((size_t)i * d->parts[1] + j) * d->parts[2] + k];
}

static bool in_box(const box *b, const uint32_t c[3]) {
    for (int a = 0; a < 3; a++)
        if (c[a] < b->lo[a] || c[a] >= b->hi[a])
            return false;
    return true;
}

// Is cell coordinate c of an axis of n cells within `depth` cells of the
// part [lo, hi) (across the axis's ends when `wrap`)?
static bool near_part(uint32_t c, uint32_t lo, uint32_t hi, uint32_t n, uint32_t depth, bool wrap) {
    if (!wrap)
        return (int64_t)c >= (int64_t)lo - depth && (int64_t)c < (int64_t)hi + depth;
    uint64_t span = (uint64_t)(hi - lo) + 2u * depth;
    if (span >= n)
        return true;
    uint64_t start = ((uint64_t)lo + (uint64_t)n * depth - depth) % n; // lo - depth on the circle
    return ((uint64_t)c + n - start) % n < span;
}

// Does the halo of box b (`depth` cells around it) hold cell c?
static bool in_halo_of(const decomp *d, const box *b, const uint32_t c[3], bool wrap) {
    for (int a = 0; a < d->ndims; a++)
        if (!near_part(c[a], b->lo[a], b->hi[a], d->w->cells[a], d->depth, wrap))
            return false;
    return true;
}

// Do the parts [alo, ahi) and [blo, bhi) of an axis come within `depth`
// cells of each other? (Either the start of one is near the other.)
static bool parts_near(const decomp *d, int a, uint32_t alo, uint32_t ahi, uint32_t blo, uint32_t bhi, bool wrap) {
    uint32_t n = d->w->cells[a];
    return near_part(blo, alo, ahi, n, d->depth, wrap) || near_part(alo, blo, bhi, n, d->depth, wrap);
}

// Even cuts: every part of an axis as wide as the others (to a cell).
static void cut_even(decomp *d) {
    for (uint32_t i = 0; i < d->parts[0]; i++)
        for (uint32_t j = 0; j < d->parts[1]; j++)
            for (int a = 0; a < 3; a++) {
                uint32_t *cut = cuts_of(d, a, i, j);
                for (uint32_t k = 0; k <= d->parts[a]; k++)
                    cut[k] = even_lo(d->w->cells[a], d->parts[a], k);
            }
}

// Recursive bisection of the cells [a, b) into `parts` parts of at least one
// cell on the prefix sums pre (agents in cells before each): the cut between
// the lower parts / 2 parts and the rest leaves the share of the agents
// nearest parts / 2 / parts below it (the middle of the cells when there
// are none), then each side is cut alike. cut[0] = a and cut[parts] = b are
// the caller's.
static void bisect(const uint64_t *pre, uint32_t a, uint32_t b, uint32_t parts, uint32_t *cut) {
    if (parts < 2)
        return;
    uint32_t left = parts / 2, lo = a + left, hi = b - (parts - left), x = lo;
    uint64_t total = pre[b] - pre[a];
    if (total == 0) {
        x = a + (uint32_t)((uint64_t)(b - a) * left / parts);
    } else {
        // The first x whose share below reaches left / parts, or the one before it when nearer.
        while (x < hi && (pre[x] - pre[a]) * parts < total * left)
            x++;
        if (x > lo) {
            uint64_t want = total * left, below = (pre[x - 1] - pre[a]) * parts, at = (pre[x] - pre[a]) * parts;
            if (want - below < at - want)
                x--;
        }
    }
    x = x < lo ? lo : x > hi ? hi : x;
    cut[left] = x;
    bisect(pre, a, x, left, cut);
    bisect(pre, x, b, parts - left, cut + left);
}

// The work of each cell of the world's grid from its agents' counts: the
// candidate pairs its agents examine, count x the agents of its search
// block (the cells c-M..c+M per axis, across the edges of a torus, each cell
// once), by a box sum along each axis in turn.
static void cell_work(const decomp *d, const uint32_t *count, uint64_t *work, uint64_t *tmp) {
    const uint32_t *cells = d->w->cells;
    size_t total = cells[3];
    for (size_t c = 0; c < total; c++)
        work[c] = count[c];
    for (int a = 0; a < d->ndims; a++) {
        uint32_t n = cells[a], m = d->depth;
        size_t stride = a == 0 ? 1 : a == 1 ? cells[0] : (size_t)cells[0] * cells[1];
        bool whole = d->wrap && 2 * m + 1 >= n; // the block holds every cell of the axis
        memcpy(tmp, work, total * sizeof *tmp);
        for (size_t c = 0; c < total; c++) {
            uint32_t x = (uint32_t)(c / stride % n);
            size_t base = c - (size_t)x * stride;
            uint64_t sum = 0;
            if (whole) {
                for (uint32_t y = 0; y < n; y++)
                    sum += tmp[base + (size_t)y * stride];
            } else {
                for (int64_t o = -(int64_t)m; o <= (int64_t)m; o++) {
                    int64_t y = (int64_t)x + o;
                    if (d->wrap)
                        y = (y % n + n) % n;
                    else if (y < 0 || y >= n)
                        continue;
                    sum += tmp[base + (size_t)y * stride];
                }
            }
            work[c] = sum;
        }
    }
    for (size_t c = 0; c < total; c++)
        work[c] *= count[c];
}

// The index of cell (x, y, z) of a grid of `cells`.
static size_t cell_index(const uint32_t *cells, uint32_t x, uint32_t y, uint32_t z) {
    return ((size_t)z * cells[1] + y) * cells[0] + x;
}

// The work of the cells of box b (work: per cell of the world's grid).
static uint64_t box_work(const decomp *d, const uint64_t *work, const box *b) {
    uint64_t sum = 0;
    for (uint32_t z = b->lo[2]; z < b->hi[2]; z++)
        for (uint32_t y = b->lo[1]; y < b->hi[1]; y++)
            for (uint32_t x = b->lo[0]; x < b->hi[0]; x++)
                sum += work[cell_index(d->w->cells, x, y, z)];
    return sum;
}

// The cuts along axis a of the box b (whole along a): the prefix sums of
// the work of its slices across a (scratch pre), bisected into the parts.
static void cut_axis(decomp *d, const uint64_t *work, box b, int a, uint32_t *cut, uint64_t *pre) {
    uint32_t n = d->w->cells[a];
    pre[0] = 0;
    for (uint32_t c = 0; c < n; c++) {
        b.lo[a] = c;
        b.hi[a] = c + 1;
        pre[c + 1] = pre[c] + box_work(d, work, &b);
    }
    cut[0] = 0;
    cut[d->parts[a]] = n;
    bisect(pre, 0, n, d->parts[a], cut);
}

// Cuts by the work per cell (cell_work, the world's grid): x by the slabs'
// work, then each slab's y by its own, then each column's z (scratch: the
// prefix sums of the longest axis + 1).
static void cut_counts(decomp *d, const uint64_t *work, uint64_t *pre) {
    const uint32_t *cells = d->w->cells;
    box b = {{0, 0, 0}, {cells[0], cells[1], cells[2]}};
    const uint32_t *x = cuts_of(d, 0, 0, 0);
    cut_axis(d, work, b, 0, cuts_of(d, 0, 0, 0), pre);
    for (uint32_t i = 0; i < d->parts[0]; i++) {
        b.lo[0] = x[i];
        b.hi[0] = x[i + 1];
        const uint32_t *y = cuts_of(d, 1, i, 0);
        cut_axis(d, work, b, 1, cuts_of(d, 1, i, 0), pre);
        for (uint32_t j = 0; j < d->parts[1]; j++) {
            box col = b;
            col.lo[1] = y[j];
            col.hi[1] = y[j + 1];
            cut_axis(d, work, col, 2, cuts_of(d, 2, i, j), pre);
        }
    }
}

// This rank's box and its neighbours from the cuts: the ranks whose box
// comes within the halo's depth of this one (across the world's edges when
// periodic: margin's agents jump there), and the graph communicator of the
// exchanges (sources = destinations = the neighbours, increasing ranks).
static void set_neighbours(decomp *d) {
    d->me = box_at(d, d->coord[0], d->coord[1], d->coord[2]);
    d->nnb = 0;
    for (int q = 0; q < d->size; q++)
        d->nb_slot[q] = -1;
    for (uint32_t i = 0; i < d->parts[0]; i++)
        for (uint32_t j = 0; j < d->parts[1]; j++)
            for (uint32_t k = 0; k < d->parts[2]; k++) {
                int q = d->rank_of[((size_t)i * d->parts[1] + j) * d->parts[2] + k];
                if (q == d->rank)
                    continue;
                box b = box_at(d, i, j, k);
                bool near = true;
                for (int a = 0; a < d->ndims && near; a++)
                    near = parts_near(d, a, d->me.lo[a], d->me.hi[a], b.lo[a], b.hi[a], d->periodic);
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
    wait_for(d, &r, "the new neighbours");
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
    wait_for(d, &r, what);
    size_t sent = displace(d->sc, d->sd, d->nnb), total = displace(d->rc, d->rd, d->nnb);
    grow_recv(d, total);
    MPI_Datatype t = d->full ? d->full_type : d->rec_type;
    MPI_Ineighbor_alltoallv(d->send, d->sc, d->sd, t, d->recv, d->rc, d->rd, t, d->graph, &r);
    wait_for(d, &r, what);
    *bytes += (uint64_t)d->nnb * sizeof(int) + (uint64_t)sent * rec_bytes(d);
    return (uint32_t)total;
}

// The received records after the n slots of s.
static void append(decomp *d, boids_sim *s, uint32_t got, const char *what) {
    uint32_t need = s->n + got;
    if (need > s->capacity && boids_sim_reserve(s, need + need / 4 + 64) != BOIDS_OK) {
        char msg[120];
        snprintf(msg, sizeof msg, "out of memory for %s", what);
        fatal(d, msg);
    }
    grow_slots(d, s->n + got);
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
static void halo(decomp *d, boids_sim *s) {
    d->full = false;
    size_t pairs = 0;
    for (int k = 0; k < d->nnb; k++)
        d->sc[k] = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t c[3];
        coords_of(d, s->cur.pos[i], c);
        if (interior(d, c))
            continue;
        for (int k = 0; k < d->nnb; k++)
            if (in_halo_of(d, &d->nb_box[k], c, d->wrap)) {
                d->pair = grow(d, d->pair, &d->pair_cap, pairs + 1, sizeof(*d->pair));
                d->pair[pairs][0] = i;
                d->pair[pairs++][1] = (uint32_t)k;
                d->sc[k]++;
            }
    }
    grow_send(d, pairs);
    int at[d->nnb > 0 ? d->nnb : 1];
    displace(d->sc, at, d->nnb);
    for (size_t p = 0; p < pairs; p++)
        rec_of(d, s, d->pair[p][0], d->send, (size_t)at[d->pair[p][1]]++);
    append(d, s, exchange(d, &d->halo_bytes, "the halo"), "the halo");
}

// The agents that left the box go to the neighbour that owns their cell now.
// One that went farther than the neighbours' boxes in a step (a speed over
// the halo's reach) stays here for now: the count of them, for the caller's
// agreement (all ranks then redistribute).
static uint32_t migrate(decomp *d, boids_sim *s) {
    d->full = true;
    uint32_t far = 0;
    for (int k = 0; k < d->nnb; k++)
        d->sc[k] = 0;
    d->pair = grow(d, d->pair, &d->pair_cap, s->n, sizeof(*d->pair));
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t c[3];
        coords_of(d, s->cur.pos[i], c);
        d->pair[i][0] = 0; // stays, or the neighbour's k + 1
        if (in_box(&d->me, c))
            continue;
        int q = owner_of(d, c), k = d->nb_slot[q];
        if (k < 0) {
            far++;
            continue;
        }
        d->pair[i][0] = (uint32_t)k + 1;
        d->sc[k]++;
    }
    int at[d->nnb > 0 ? d->nnb : 1];
    size_t sent = displace(d->sc, at, d->nnb);
    grow_send(d, sent);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (d->pair[i][0]) {
            rec_of(d, s, i, d->send, (size_t)at[d->pair[i][0] - 1]++);
            continue;
        }
        if (kept != i)
            move_slot(d, s, i, kept);
        kept++;
    }
    d->migrated += (uint64_t)sent;
    uint32_t got = exchange(d, &d->migrate_bytes, "the migration");
    s->n = kept;
    append(d, s, got, "the migration");
    return far;
}

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

static void gather(decomp *d, boids_sim *s, gathered *g, uint32_t cell_max, boids_stats *st, uint64_t *hash) {
    g->mine = grow(d, g->mine, &g->mine_cap, s->n, sizeof(*g->mine));
    for (uint32_t i = 0; i < s->n; i++) {
        agent_of(s, i, &g->mine[i].a);
        g->mine[i].neighbors = s->neighbors[i];
        g->mine[i].candidates = s->candidates[i];
        g->mine[i].nearest = s->nearest[i];
    }
    int mine = (int)s->n;
    MPI_Request r;
    MPI_Igather(&mine, 1, MPI_INT, g->counts, 1, MPI_INT, 0, d->cart, &r);
    wait_for(d, &r, "the gather's sizes");
    if (d->rank == 0) {
        size_t total = displace(g->counts, g->displs, d->size);
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
    if (cell_max == UINT32_MAX) // no step yet: the initial state's histogram
        g->cell_count = grow(d, g->cell_count, &g->cell_cap, d->w->cells[3], sizeof(*g->cell_count));
    else
        st->cell_max = most;
    world_stats(d->w, g->n, g->sorted, cell_max == UINT32_MAX ? g->cell_count : NULL, g->pos, g->vel, g->group, st);
    *hash = boids_state_hash(g->n, (const float(*)[4])g->pos, (const float(*)[4])g->vel, g->group);
}

// Every own agent to the rank that owns its cell under new cuts (MPI_Ialltoallv
// over all ranks: an agent may go anywhere).
static void redistribute(decomp *d, boids_sim *s) {
    d->full = true;
    for (int q = 0; q < d->size; q++)
        d->sc[q] = 0;
    d->pair = grow(d, d->pair, &d->pair_cap, s->n, sizeof(*d->pair));
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t c[3];
        coords_of(d, s->cur.pos[i], c);
        int q = owner_of(d, c);
        d->pair[i][0] = (uint32_t)q;
        d->sc[q]++;
    }
    MPI_Request r;
    MPI_Ialltoall(d->sc, 1, MPI_INT, d->rc, 1, MPI_INT, d->cart, &r);
    wait_for(d, &r, "the re-cut's sizes");
    size_t sent = displace(d->sc, d->sd, d->size), total = displace(d->rc, d->rd, d->size);
    grow_send(d, sent);
    grow_recv(d, total);
    int at[d->size];
    for (int q = 0; q < d->size; q++)
        at[q] = d->sd[q];
    for (uint32_t i = 0; i < s->n; i++)
        rec_of(d, s, i, d->send, (size_t)at[d->pair[i][0]]++);
    MPI_Ialltoallv(d->send, d->sc, d->sd, d->full_type, d->recv, d->rc, d->rd, d->full_type, d->cart, &r);
    wait_for(d, &r, "the re-cut");
    d->recut_bytes += (uint64_t)d->size * sizeof(int) + (uint64_t)(sent - (size_t)d->sc[d->rank]) * d->full_bytes;
    s->n = 0;
    append(d, s, (uint32_t)total, "the re-cut");
}

// The most work of any box of the cuts (work: the world's cell_work).
static uint64_t most_in_a_box(const decomp *d, const uint64_t *work) {
    uint64_t most = 0;
    for (uint32_t i = 0; i < d->parts[0]; i++)
        for (uint32_t j = 0; j < d->parts[1]; j++)
            for (uint32_t k = 0; k < d->parts[2]; k++) {
                box b = box_at(d, i, j, k);
                uint64_t sum = box_work(d, work, &b);
                most = sum > most ? sum : most;
            }
    return most;
}

// New boxes for the agents where they are now: by their counts per cell
// (the world's, summed over the ranks' own agents) or even; the agents go
// to their new owners and the neighbours are found anew. With `only_better`
// (a rebalance on the same grid) the old boxes stay when the new cuts would
// leave the fullest box no emptier (a clump narrower than a cell cannot be
// split): false, nothing moved.
static bool recut(decomp *d, boids_sim *s, bool by_counts, bool only_better) {
    if (by_counts) {
        uint32_t cells = d->w->cells[3];
        uint32_t *mine = calloc(cells, sizeof *mine), *counts = malloc((size_t)cells * sizeof *counts);
        uint64_t *all = malloc((size_t)cells * 2 * sizeof *all);
        uint64_t *pre = malloc(((size_t)d->w->cells[0] + d->w->cells[1] + d->w->cells[2] + 1) * sizeof *pre);
        if (!mine || !counts || !all || !pre)
            fatal(d, "out of memory for the counts of the re-cut");
        for (uint32_t i = 0; i < s->n; i++)
            mine[boids_grid_cell_of(d->w, s->cur.pos[i])]++;
        MPI_Request r;
        MPI_Iallreduce(mine, counts, (int)cells, MPI_UINT32_T, MPI_SUM, d->cart, &r);
        wait_for(d, &r, "the counts of the re-cut");
        cell_work(d, counts, all, all + cells);
        free(counts);
        size_t words = cut_words(d->parts);
        uint32_t *old = only_better ? malloc(words * sizeof *old) : NULL;
        if (only_better && !old)
            fatal(d, "out of memory for the re-cut");
        uint64_t before = 0;
        if (old) {
            memcpy(old, d->cut, words * sizeof *old);
            before = most_in_a_box(d, all);
        }
        cut_counts(d, all, pre);
        bool keep = old && most_in_a_box(d, all) >= before;
        if (keep)
            memcpy(d->cut, old, words * sizeof *old);
        free(old);
        free(mine);
        free(all);
        free(pre);
        if (keep)
            return false;
    } else {
        cut_even(d);
    }
    redistribute(d, s);
    set_neighbours(d);
    d->recuts++;
    return true;
}

// The work of every rank's last step (d->work: the candidate pairs its own
// agents examined): the most over the mean (1: even).
static double imbalance(decomp *d) {
    uint64_t mine = d->work, *all = malloc((size_t)d->size * sizeof *all);
    if (!all)
        fatal(d, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, d->cart, &r);
    wait_for(d, &r, "the work of the ranks");
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
static void auto_grid(decomp *d, boids_sim *s, uint64_t sq, uint32_t world_n, bool by_counts) {
    uint64_t all = 0;
    MPI_Request r;
    MPI_Iallreduce(&sq, &all, 1, MPI_UINT64_T, MPI_SUM, d->cart, &r);
    wait_for(d, &r, "the grid's occupancy");
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
        fatal(d, msg);
    }
    d->depth = m;
    recut(d, s, by_counts, false);
}

// The own cells of the step's grid: the fullest (the statistics' cell-max,
// as one process counts it) and the sum of count^2 (grid_fine auto's
// occupancy).
static void own_cells(const decomp *d, const boids_sim *s, uint32_t *most, uint64_t *sq) {
    *most = 0;
    *sq = 0;
    for (uint32_t z = d->me.lo[2]; z < d->me.hi[2]; z++)
        for (uint32_t y = d->me.lo[1]; y < d->me.hi[1]; y++)
            for (uint32_t x = d->me.lo[0]; x < d->me.hi[0]; x++) {
                size_t c = cell_index(d->w->cells, x, y, z);
                uint32_t k = s->grid.start[c + 1] - s->grid.start[c];
                *most = k > *most ? k : *most;
                *sq += (uint64_t)k * k;
            }
}

// Whether the steer just run was cut short on any rank (boids_sim.cancel):
// the signal, agreed by all; then every rank undoes the step (no integrate,
// the neighbour outputs zero, as boids_sim_step's cut) and stops.
static int agree_cut(decomp *d, boids_sim *s) {
    int mine = s->cancelled && s->cancel ? (int)*s->cancel : 0, any = 0;
    MPI_Request r;
    MPI_Iallreduce(&mine, &any, 1, MPI_INT, MPI_MAX, d->cart, &r);
    wait_for(d, &r, "the step's cut");
    if (any)
        boids_sim_forget_neighbors(s);
    return any;
}

static int by_id(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

// Before a step: the own agents' ids (slots 0..n) sorted with their slots,
// to be found again by id once the step has sorted the slots (bodies: their
// joints too; the GPU: which slots are own).
static void own_ids(decomp *d, const boids_sim *s) {
    d->by_id = grow(d, d->by_id, &d->by_id_cap, s->n, sizeof(*d->by_id));
    for (uint32_t i = 0; i < s->n; i++) {
        d->by_id[i][0] = s->cur.id[i];
        d->by_id[i][1] = i;
    }
    qsort(d->by_id, s->n, sizeof(*d->by_id), by_id);
}

static void bodies_before(decomp *d, const boids_sim *s) {
    own_ids(d, s);
    memcpy(d->joints_tmp, d->joints, (size_t)s->n * d->rows * sizeof(float[4]));
}

// Bodies, after the step (own slots 0..n, as many agents as before): each
// agent's joints back by its id, then (follow: a whole step, not one cut
// short) its body follows its head (boids_sim_bodies' stage).
static void bodies_after(decomp *d, boids_sim *s, bool follow) {
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t id = s->cur.id[i];
        const uint32_t(*at)[2] = bsearch(&id, d->by_id, s->n, sizeof(*d->by_id), by_id);
        if (!at)
            fatal(d, "an agent's joints were lost in the step");
        float(*chain)[4] = d->joints + (size_t)i * d->rows;
        memcpy(chain, d->joints_tmp + (size_t)(*at)[1] * d->rows, d->rows * sizeof(float[4]));
        const boids_body_params *b = &s->p.body[s->cur.group[i]];
        if (follow && b->style != BOIDS_BODY_NONE)
            boids_body_follow(&s->p.world, b, s->cur.pos[i], s->cur.vel[i], chain);
    }
}

// What a rank's steer needs of the whole world at a step, beyond the halo
// (boids_sim.world_survey and named, core.h): the heading rules' survey and
// the named agents' states.
#define NAMED_MAX (3 * BOIDS_MAX_GROUPS) // a leader and the two of interpose per group
typedef struct world_view {
    uint32_t survey[2];
    boids_named_agent named[NAMED_MAX];
} world_view;

// The densest block of the whole world's grid: each rank surveys its own
// cells (their blocks lie in its box and halo, so its grid counts them as
// one process's does) and the ranks' answers reduce to the one process's
// first best: the most agents, then the lowest cell, as the largest key
// count << 32 | (UINT32_MAX - cell).
static void survey_world(decomp *d, boids_sim *s, world_view *v) {
    uint32_t count, cell = boids_survey_box(d->w, s->grid.start, d->me.lo, d->me.hi, &count);
    uint64_t key = (uint64_t)count << 32 | (UINT32_MAX - cell), best = 0;
    MPI_Request r;
    MPI_Iallreduce(&key, &best, 1, MPI_UINT64_T, MPI_MAX, d->cart, &r);
    wait_for(d, &r, "the survey");
    v->survey[0] = UINT32_MAX - (uint32_t)best;
    v->survey[1] = (uint32_t)(best >> 32);
    s->world_survey = v->survey;
}

// The named agents' states at the start of the step (offset and follow's
// leader, interpose's two; the target is no rank's): the rank owning each
// fills its words, the others leave them 0, and a bitwise OR over the ranks
// hands every rank the owner's bits exactly (a float sum would make -0 +0).
// Words per agent: pos, vel, group, found.
static void resolve_named(decomp *d, boids_sim *s, world_view *v) {
    const uint32_t lead = BOIDS_BIT(BOIDS_BI_OFFSET) | BOIDS_BIT(BOIDS_BI_FOLLOW);
    const uint32_t inter = BOIDS_BIT(BOIDS_BI_INTERPOSE);
    uint32_t ids[NAMED_MAX], m = 0;
    for (uint32_t g = 0; g < s->p.world.group_count && g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *gp = &s->p.group[g];
        const uint32_t want[3] = {gp->behaviors & lead ? gp->leader : BOIDS_ID_TARGET,
                                  gp->behaviors & inter ? gp->interpose_a : BOIDS_ID_TARGET,
                                  gp->behaviors & inter ? gp->interpose_b : BOIDS_ID_TARGET};
        for (int k = 0; k < 3; k++) {
            bool seen = want[k] == BOIDS_ID_TARGET || want[k] >= s->p.world.count;
            for (uint32_t j = 0; j < m && !seen; j++)
                seen = ids[j] == want[k];
            if (!seen)
                ids[m++] = want[k];
        }
    }
    s->named = v->named; // even with none: cur's ids are the world's, not slots
    s->named_count = m;
    if (m == 0)
        return;
    uint32_t mine[NAMED_MAX][10], all[NAMED_MAX][10];
    memset(mine, 0, sizeof mine);
    for (uint32_t i = 0; i < s->n; i++) {
        if (!s->owned[i])
            continue;
        for (uint32_t k = 0; k < m; k++)
            if (s->cur.id[i] == ids[k]) {
                memcpy(&mine[k][0], s->cur.pos[i], sizeof(float[4]));
                memcpy(&mine[k][4], s->cur.vel[i], sizeof(float[4]));
                mine[k][8] = s->cur.group[i];
                mine[k][9] = 1;
            }
    }
    MPI_Request r;
    MPI_Iallreduce(mine, all, (int)(10 * m), MPI_UINT32_T, MPI_BOR, d->cart, &r);
    wait_for(d, &r, "the named agents");
    for (uint32_t k = 0; k < m; k++) {
        if (!all[k][9]) {
            char msg[120];
            snprintf(msg, sizeof msg, "named agent %u is on no rank (agents lost)", ids[k]);
            fatal(d, msg);
        }
        memcpy(v->named[k].pos, &all[k][0], sizeof(float[4]));
        memcpy(v->named[k].vel, &all[k][4], sizeof(float[4]));
        v->named[k].id = ids[k];
        v->named[k].group = all[k][8];
    }
}

// Before a rank's steer, what one process's engine and steer find over the
// whole world: the scenario's schedule at this step (boids_scenario_at_step,
// as the engine applies it before each step), the survey, the named agents.
static void world_inputs(decomp *d, boids_sim *s, const boids_decomp_options *o, world_view *v) {
    if (o->scenario && boids_scenario_is_dynamic(o->scenario))
        boids_scenario_at_step(o->scenario, s->step, &s->p);
    if (boids_params_survey(&s->p))
        survey_world(d, s, v);
    resolve_named(d, s, v);
}

// Bodies: every rank's own joints to rank 0, as the engine holds them
// (joint j of agent id at [j * n + id]); NULL on the other ranks. A record
// (id, then the rows) per own agent, by MPI_Igatherv.
static float (*gather_joints(decomp *d, const boids_sim *s, gathered *g))[4] {
    size_t rec = sizeof(uint32_t) + d->rows * sizeof(float[4]);
    uint8_t *mine = malloc((s->n ? s->n : 1) * rec), *all = NULL;
    float(*joints)[4] = NULL;
    if (!mine)
        fatal(d, "out of memory for the joints");
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
    wait_for(d, &r, "the joints' sizes");
    if (d->rank == 0) {
        int total = 0;
        for (int q = 0; q < d->size; q++) {
            g->displs[q] = total;
            total += g->counts[q];
        }
        all = malloc((size_t)(total ? total : 1) * rec);
        joints = malloc((size_t)d->rows * (g->n ? g->n : 1) * sizeof(float[4]));
        if (!all || !joints || (uint32_t)total != g->n)
            fatal(d, "out of memory for the joints, or agents lost");
    }
    MPI_Igatherv(mine, count, t, all, g->counts, g->displs, t, 0, d->cart, &r);
    wait_for(d, &r, "the joints");
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

// The GPU backend of this rank: an engine of `capacity` agents (the own
// and halo agents of a step, at most; boids_engine_step_agents steps them)
// on s's parameters; a failure (no GL 4.5) aborts the job, exit 3.
static boids_engine *open_gpu(decomp *d, const boids_sim *s, const boids_decomp_options *o, uint32_t capacity) {
    boids_params q = s->p;
    q.flow.vec = NULL;
    q.flow.dims[3] = 0;
    q.world.count = capacity ? capacity : 1;
    boids_engine_desc desc = {.params = &q,
                              .backend = BOIDS_BACKEND_GPU,
                              .shader_dir = o->shader_dir,
                              .kernel = o->kernel,
                              .quiet = o->quiet_gl};
    boids_engine *e = NULL;
    char err[1024] = "", msg[1200];
    if (boids_engine_create(&e, &desc, err, sizeof err) != BOIDS_OK) {
        snprintf(msg, sizeof msg, "the GPU backend of %u agents: %s", q.world.count, err);
        fatal(d, msg);
    }
    d->gpu_capacity = q.world.count;
    return e;
}

// See decompose_mpi.h.
const char *boids_decomp_gpu_refusal(const boids_params *p) {
    if (boids_params_named(p))
        return "behaviour offset, follow or interpose (named agents are resolved on the CPU backend only)";
    if (boids_params_survey(p))
        return "rules heading with cohesion (the survey is resolved on the CPU backend only)";
    if (boids_params_joint_rows(p) > 0)
        return "--bodies (the joints follow on the CPU backend only)";
    return NULL;
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
    // The rank's simulation: p's world and groups, no agents yet (its own
    // and the halo's are set every step, ids of the whole world).
    boids_params local = *p;
    local.world.count = 0;
    boids_sim *s = NULL;
    // Out of memory on a rank before the ranks' first exchange: the job ends
    // at once (MPI_Abort, exit 3), so no other rank waits in a collective.
    if (boids_sim_create(&s, &local, BOIDS_DIST_UNIFORM) != BOIDS_OK)
        fatal(&d, "out of memory for the rank's simulation");
    boids_flowfield flow = s->p.flow;
    s->p = *p;
    s->p.flow = flow;
    s->threads = o->threads;
    s->step = step0;
    d.w = &s->p.world;
    d.ndims = (int)d.w->dim;
    d.wrap = d.w->boundary == BOIDS_BOUNDARY_WRAP;
    d.periodic = d.wrap || d.w->boundary == BOIDS_BOUNDARY_MARGIN;
    d.depth = boids_world_grid_fine(d.w);
    d.rows = boids_params_joint_rows(p);
    d.full_bytes = sizeof(agent_rec) + d.rows * sizeof(float[4]);
    bool fine_auto = (d.w->grid_fine & BOIDS_GRID_FINE_AUTO) != 0, by_counts = o->imbalance > 0;
    int dims[3], periods[3], coords[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        d.parts[a] = a < d.ndims ? o->parts[a] : 1;
        dims[a] = (int)d.parts[a];
        periods[a] = d.periodic;
    }
    MPI_Cart_create(MPI_COMM_WORLD, d.ndims, dims, periods, 0, &d.cart);
    MPI_Comm_rank(d.cart, &d.rank);
    MPI_Comm_dup(d.cart, &d.ping);
    MPI_Cart_coords(d.cart, d.rank, d.ndims, coords);
    for (int a = 0; a < 3; a++)
        d.coord[a] = a < d.ndims ? (uint32_t)coords[a] : 0;
    MPI_Type_contiguous((int)sizeof(agent_rec), MPI_BYTE, &d.rec_type);
    MPI_Type_commit(&d.rec_type);
    MPI_Type_contiguous((int)d.full_bytes, MPI_BYTE, &d.full_type);
    MPI_Type_commit(&d.full_type);
    MPI_Type_contiguous((int)sizeof(stat_rec), MPI_BYTE, &d.stat_type);
    MPI_Type_commit(&d.stat_type);
    int rc = 0;
    size_t R = (size_t)d.size;
    gathered g = {.n = n};
    d.cut = malloc(cut_words(d.parts) * sizeof *d.cut);
    d.rank_of = malloc(R * sizeof *d.rank_of);
    d.nb = malloc(R * sizeof *d.nb);
    d.nb_slot = malloc(R * sizeof *d.nb_slot);
    d.nb_box = malloc(R * sizeof *d.nb_box);
    d.sc = malloc(4 * R * sizeof *d.sc);
    size_t gn = d.rank == 0 ? (n ? n : 1) : 1;
    g.all = malloc(gn * sizeof(*g.all));
    g.sorted = malloc(gn * sizeof(*g.sorted));
    g.pos = malloc(gn * sizeof(*g.pos));
    g.vel = malloc(gn * sizeof(*g.vel));
    g.group = malloc(gn * sizeof(*g.group));
    g.counts = malloc(R * sizeof(int));
    g.displs = malloc(R * sizeof(int));
    if (!d.cut || !d.rank_of || !d.nb || !d.nb_slot || !d.nb_box || !d.sc || !g.all || !g.sorted || !g.pos || !g.vel ||
        !g.group || !g.counts || !g.displs)
        fatal(&d, "out of memory for the decomposition");
    d.rc = d.sc + R;
    d.sd = d.rc + R;
    d.rd = d.sd + R;
    for (uint32_t i = 0; i < d.parts[0]; i++)
        for (uint32_t j = 0; j < d.parts[1]; j++)
            for (uint32_t k = 0; k < d.parts[2]; k++) {
                int at[3] = {(int)i, (int)j, (int)k};
                MPI_Cart_rank(d.cart, at, &d.rank_of[((size_t)i * d.parts[1] + j) * d.parts[2] + k]);
            }
    // The first cuts: every rank holds the whole world, so each cuts alike
    // from its own counts (no exchange).
    if (by_counts) {
        uint32_t *count = calloc(d.w->cells[3], sizeof *count);
        uint64_t *work = malloc((size_t)d.w->cells[3] * 2 * sizeof *work);
        uint64_t *pre = malloc(((size_t)d.w->cells[0] + d.w->cells[1] + d.w->cells[2] + 1) * sizeof *pre);
        if (!count || !work || !pre)
            fatal(&d, "out of memory for the first cuts");
        for (uint32_t id = 0; id < n; id++)
            count[boids_grid_cell_of(d.w, pos[id])]++;
        cell_work(&d, count, work, work + d.w->cells[3]);
        cut_counts(&d, work, pre);
        free(count);
        free(work);
        free(pre);
    } else {
        cut_even(&d);
    }
    // The own agents of the initial state (and their joints).
    uint32_t own = 0;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t c[3];
        coords_of(&d, pos[id], c);
        own += owner_of(&d, c) == d.rank;
    }
    if (boids_sim_reserve(s, own + 1) != BOIDS_OK)
        fatal(&d, "out of memory for the own agents");
    grow_slots(&d, own + 1);
    s->n = 0;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t c[3];
        coords_of(&d, pos[id], c);
        if (owner_of(&d, c) != d.rank)
            continue;
        uint32_t i = s->n++;
        memcpy(s->cur.pos[i], pos[id], sizeof(float[4]));
        memcpy(s->cur.vel[i], vel[id], sizeof(float[4]));
        s->cur.id[i] = id;
        s->cur.group[i] = group[id];
        s->neighbors[i] = 0;
        s->candidates[i] = 0;
        s->nearest[i] = 0.0f;
        float(*chain)[4] = d.rows ? d.joints + (size_t)i * d.rows : NULL;
        if (d.rows)
            memset(chain, 0, d.rows * sizeof(float[4]));
        for (uint32_t j = 0; j < d.rows && o->joints; j++)
            memcpy(chain[j], o->joints[(size_t)j * n + id], sizeof(float[4]));
        if (d.rows && !o->joints && p->body[group[id]].style != BOIDS_BODY_NONE)
            boids_body_straight(d.w, &p->body[group[id]], pos[id], vel[id], chain);
    }
    uint64_t hash = 0;
    if (o->steps == 0)
        gather(&d, s, &g, UINT32_MAX, &out->stats, &hash);
    MPI_Request br;
    MPI_Ibarrier(d.cart, &br);
    wait_for(&d, &br, "the start");
    set_neighbours(&d);
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
    world_view view; // the survey and named agents of each step (world_inputs)
    boids_engine *gpu = NULL;
    if (o->gpu) {
        // Tests: BOIDS_DECOMPOSE_GPU_CAPACITY=K starts the GPU backend with
        // room for K agents (a step with more opens a larger one).
        const char *cap = getenv("BOIDS_DECOMPOSE_GPU_CAPACITY");
        uint64_t want = cap && atol(cap) > 0 ? (uint64_t)atol(cap) : 2 * (uint64_t)s->n + 1024;
        gpu = open_gpu(&d, s, o, (uint32_t)(want < n ? want : n));
        d.gpu_opened = 1;
    }
    double start = MPI_Wtime(), interval = start;
    uint64_t interval_steps = 0, done_steps = 0;
    int stopping = 0; // the signal of an interruption the ranks agreed on: this step is the last
    for (uint64_t k = 1; k <= o->steps; k++) {
        if (d.rank == kill_rank && k == kill_step)
            raise(kill_signal);
        bool last = k == o->steps || stopping;
        bool stats = k % o->stats_every == 0 || last;
        bool fine_due = fine_auto && (s->step + 1) % BOIDS_ENGINE_FINE_EVERY == 0;
        bool check = by_counts && o->rebalance_every && k % o->rebalance_every == 0 && !last;
        uint32_t n_own = s->n;
        if (d.rows)
            bodies_before(&d, s);
        else if (gpu)
            own_ids(&d, s);
        halo(&d, s);
        d.halo_agents += s->n - n_own;
        s->p.world.step = (uint32_t)s->step;
        grow_slots(&d, s->n);
        uint64_t step = s->step;
        if (gpu) {
            // The whole step on this rank's GPU: the schedule first (the
            // parameters go with the agents), then own and halo stepped
            // there and read back in its slot order; the own ones found by id.
            world_inputs(&d, s, o, &view);
            if (s->n > d.gpu_capacity) {
                boids_engine_destroy(gpu);
                uint64_t want = (uint64_t)s->n + s->n / 2;
                gpu = open_gpu(&d, s, o, (uint32_t)(want < n ? want : n));
                d.gpu_opened++;
            }
            char err[512] = "";
            boids_result r = boids_engine_step_agents(gpu, s, stats || fine_due, err, sizeof err);
            if (r != BOIDS_OK) {
                char msg[700];
                snprintf(msg, sizeof msg, "the GPU step %llu: %s%s%s", (unsigned long long)step + 1,
                         boids_result_str(r), err[0] ? ": " : "", err);
                fatal(&d, msg);
            }
            s->step = step; // counted below, as the CPU's
            for (uint32_t i = 0; i < s->n; i++)
                d.owned[i] = bsearch(&s->cur.id[i], d.by_id, n_own, sizeof(*d.by_id), by_id) != NULL;
        } else {
            boids_sim_build_grid(s);
            for (uint32_t i = 0; i < s->n; i++) {
                uint32_t c[3];
                coords_of(&d, s->cur.pos[i], c);
                d.owned[i] = in_box(&d.me, c);
            }
        }
        uint32_t cell_max = 0;
        uint64_t sq = 0;
        if (stats || fine_due)
            own_cells(&d, s, &cell_max, &sq);
        int cut = 0; // the signal that cut this step short on some rank (then on every rank)
        if (!gpu) {
            s->owned = d.owned;
            world_inputs(&d, s, o, &view);
            s->cancel = o->cancel;
            boids_sim_cut_clock(s); // the halo, grid and survey took part of the step: the steer alone counts
            boids_sim_steer(s);
            cut = agree_cut(&d, s);
            s->cancel = NULL;
            if (!cut)
                boids_sim_integrate(s);
            s->owned = NULL;
        }
        // Drop the halo: the own agents (and their steer outputs) to the front.
        uint32_t kept = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            if (!d.owned[i])
                continue;
            if (kept != i)
                move_slot(&d, s, i, kept);
            kept++;
        }
        s->n = kept;
        if (cut) { // the state of the last whole step, as a plain run's cut step leaves it
            if (d.rows)
                bodies_after(&d, s, false);
            if (!stats && !fine_due)
                own_cells(&d, s, &cell_max, &sq);
            gather(&d, s, &g, cell_max, &out->stats, &hash);
            out->interrupted = cut;
            out->cut = true;
            break;
        }
        if (check || last) { // the rank's work, for the balance (its outputs do not migrate)
            d.work = 0;
            for (uint32_t i = 0; i < s->n; i++)
                d.work += s->candidates[i];
        }
        if (d.rows)
            bodies_after(&d, s, true);
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
        uint32_t far = migrate(&d, s);
        // What only the whole job knows, agreed every step: an agent that
        // went beyond the neighbours' boxes (then every agent goes to its
        // owner over all ranks), and an interruption (every rank then makes
        // the next step its last: its statistics and the outputs are of that
        // same step everywhere, as one process's of as many steps).
        int flags[2] = {far > 0, o->interrupted ? o->interrupted() : 0}, any[2] = {0, 0};
        MPI_Request fr;
        MPI_Iallreduce(flags, any, 2, MPI_INT, MPI_MAX, d.cart, &fr);
        wait_for(&d, &fr, "the step's agreement");
        if (any[0]) {
            redistribute(&d, s);
            d.strays++;
        }
        if (fine_due)
            auto_grid(&d, s, sq, n, by_counts);
        if (check) {
            d.imbalance = imbalance(&d);
            if (d.imbalance > o->imbalance)
                recut(&d, s, true, true);
        }
        done_steps = k;
        if (stopping)
            break;
        if (any[1])
            stopping = out->interrupted = any[1];
    }
    double elapsed = MPI_Wtime() - start;
    boids_engine_destroy(gpu);
    d.imbalance = imbalance(&d);
    float(*final_joints)[4] = d.rows && o->final ? gather_joints(&d, s, &g) : NULL;
    // The exchange figures of every rank: the largest bytes, the mean halo.
    double mine[3] = {(double)d.halo_bytes, (double)d.migrate_bytes, d.wait_s / (elapsed > 0 ? elapsed : 1)}, most[3];
    double sums[3] = {(double)d.halo_agents, (double)d.migrated, (double)d.recut_bytes}, total[3];
    MPI_Request rr[2];
    MPI_Ireduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, 0, d.cart, &rr[0]);
    wait_for(&d, &rr[0], "the figures");
    MPI_Ireduce(sums, total, 3, MPI_DOUBLE, MPI_SUM, 0, d.cart, &rr[1]);
    wait_for(&d, &rr[1], "the figures");
    if (d.rank == 0) {
        double steps = done_steps ? (double)done_steps : 1.0;
        out->steps = done_steps;
        out->strays = d.strays;
        out->hash = hash;
        out->ms_per_step = done_steps ? elapsed * 1e3 / steps : 0.0; // (a cut first step: none timed)
        out->halo_bytes = most[0] / steps;
        out->migrate_bytes = most[1] / steps;
        out->halo_agents = total[0] / steps / d.size;
        out->migrated = (uint64_t)total[1];
        out->wait_share = most[2];
        out->recuts = d.recuts;
        out->recut_bytes = (uint64_t)total[2];
        out->imbalance = d.imbalance;
        out->grid_fine = boids_world_grid_fine(d.w);
        // The boxes at the end, by rank: their cells [lo, hi) per axis.
        out->boxes = malloc((size_t)d.size * sizeof *out->boxes);
        for (uint32_t i = 0; out->boxes && i < d.parts[0]; i++)
            for (uint32_t j = 0; j < d.parts[1]; j++)
                for (uint32_t k = 0; k < d.parts[2]; k++) {
                    box b = box_at(&d, i, j, k);
                    uint32_t *to = out->boxes[d.rank_of[((size_t)i * d.parts[1] + j) * d.parts[2] + k]];
                    for (int a = 0; a < 3; a++) {
                        to[2 * a] = b.lo[a];
                        to[2 * a + 1] = b.hi[a];
                    }
                }
        memcpy(out->cells, d.w->cells, sizeof out->cells);
        out->gpu_opened = d.gpu_opened;
        // The final state to the caller (the outputs): the last gather's id-order arrays.
        uint32_t *neighbors = o->final ? malloc((size_t)(n ? n : 1) * sizeof *neighbors) : NULL;
        if (o->final && !neighbors)
            rc = 3;
        else if (o->final) {
            for (uint32_t id = 0; id < n; id++)
                neighbors[id] = g.sorted[id].neighbors;
            o->final(o->user, s->step, n, (const float(*)[4])g.pos, (const float(*)[4])g.vel, g.group, neighbors,
                     (const float(*)[4])final_joints);
        }
        free(neighbors);
        free(final_joints);
    }
    free(d.send);
    free(d.recv);
    free(d.owned);
    free(d.pair);
    free(d.joints);
    free(d.joints_tmp);
    free(d.by_id);
    free(d.cut);
    free(d.rank_of);
    free(d.nb);
    free(d.nb_slot);
    free(d.nb_box);
    free(d.sc);
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
    MPI_Type_free(&d.full_type);
    MPI_Type_free(&d.stat_type);
    if (d.graph != MPI_COMM_NULL)
        MPI_Comm_free(&d.graph);
    MPI_Comm_free(&d.ping);
    MPI_Comm_free(&d.cart);
    boids_sim_destroy(s);
    return rc;
}
