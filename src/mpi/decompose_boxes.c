// src/mpi/decompose_boxes.c: the boxes of the decomposed run
// (decompose_private.h): --decompose and --rebalance parsed, the run
// checked, the cuts (even, or by recursive bisection of the work per cell),
// which rank owns a cell, which boxes come within the halo's reach. No MPI
// call: every rank computes the same from the same cuts.
#include <stdlib.h>
#include <string.h>

#include "decompose_private.h"

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

void decomp_coords_of(const decomp *d, const float pos[4], uint32_t c[3]) {
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

size_t decomp_cut_words(const uint32_t parts[3]) {
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
box decomp_box_at(const decomp *d, uint32_t i, uint32_t j, uint32_t k) {
    const uint32_t *x = cuts_of(d, 0, 0, 0), *y = cuts_of(d, 1, i, 0), *z = cuts_of(d, 2, i, j);
    return (box){{x[i], y[j], z[k]}, {x[i + 1], y[j + 1], z[k + 1]}};
}

// The rank owning cell c.
int decomp_owner_of(const decomp *d, const uint32_t c[3]) {
    uint32_t i = part_at(cuts_of(d, 0, 0, 0), d->parts[0], c[0]);
    uint32_t j = part_at(cuts_of(d, 1, i, 0), d->parts[1], c[1]);
    uint32_t k = part_at(cuts_of(d, 2, i, j), d->parts[2], c[2]);
    return d->rank_of[((size_t)i * d->parts[1] + j) * d->parts[2] + k];
}

bool decomp_in_box(const box *b, const uint32_t c[3]) {
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
bool decomp_in_halo_of(const decomp *d, const box *b, const uint32_t c[3], bool wrap) {
    for (int a = 0; a < d->ndims; a++)
        if (!near_part(c[a], b->lo[a], b->hi[a], d->w->cells[a], d->depth, wrap))
            return false;
    return true;
}

// Do the parts [alo, ahi) and [blo, bhi) of an axis come within `depth`
// cells of each other? (Either the start of one is near the other.)
bool decomp_parts_near(const decomp *d, int a, uint32_t alo, uint32_t ahi, uint32_t blo, uint32_t bhi, bool wrap) {
    uint32_t n = d->w->cells[a];
    return near_part(blo, alo, ahi, n, d->depth, wrap) || near_part(alo, blo, bhi, n, d->depth, wrap);
}

// Even cuts: every part of an axis as wide as the others (to a cell).
void decomp_cut_even(decomp *d) {
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
void decomp_cell_work(const decomp *d, const uint32_t *count, uint64_t *work, uint64_t *tmp) {
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
size_t decomp_cell_index(const uint32_t *cells, uint32_t x, uint32_t y, uint32_t z) {
    return ((size_t)z * cells[1] + y) * cells[0] + x;
}

// The work of the cells of box b (work: per cell of the world's grid).
static uint64_t box_work(const decomp *d, const uint64_t *work, const box *b) {
    uint64_t sum = 0;
    for (uint32_t z = b->lo[2]; z < b->hi[2]; z++)
        for (uint32_t y = b->lo[1]; y < b->hi[1]; y++)
            for (uint32_t x = b->lo[0]; x < b->hi[0]; x++)
                sum += work[decomp_cell_index(d->w->cells, x, y, z)];
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
void decomp_cut_counts(decomp *d, const uint64_t *work, uint64_t *pre) {
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

// The most work of any box of the cuts (work: the world's cell_work).
uint64_t decomp_most_in_a_box(const decomp *d, const uint64_t *work) {
    uint64_t most = 0;
    for (uint32_t i = 0; i < d->parts[0]; i++)
        for (uint32_t j = 0; j < d->parts[1]; j++)
            for (uint32_t k = 0; k < d->parts[2]; k++) {
                box b = decomp_box_at(d, i, j, k);
                uint64_t sum = box_work(d, work, &b);
                most = sum > most ? sum : most;
            }
    return most;
}
