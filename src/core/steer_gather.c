// src/core/steer_gather.c: the steer stage's neighbour gather. Per agent:
// the neighbourhood through the grid (3x3 or 3x3x3 cells, minimum-image
// offsets; with s->index, through the quadtree or over every pair instead)
// into order-independent 64-bit fixed-point sums (struct gather,
// steer_internal.h); with a group's neighbors_max K > 0, of its K nearest.
// It calls no other file of the stage.
// GLSL twin: shaders/steer.comp sees() ... gather_neighbors(), gather_start().
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/vec3.h>
#include <omp.h>

#include "boids/quadtree.h"
#include "steer_internal.h"

// Does the agent see the other (offset dot heading `dot`, d2 = |off|^2)
// through the cone `cos`? -1 or no heading: all around.
static inline bool sees(float cos, bool has_heading, float dot, float d2) {
    return cos <= -1.0f || !has_heading || boids_in_cone(dot, cos, d2);
}

static void fix3(int64_t acc[3], const float v[3], float scale) {
    for (int a = 0; a < 3; a++)
        acc[a] += boids_fix(v[a], scale);
}

// One pair within the agent's interaction radius: agent (heading, group g)
// and other slot j at offset `off` (minimum image), d2 = |off|^2 > 0.
static inline void gather_pair(const boids_sim *s, const boids_group_params *restrict g, const float heading[3],
                               bool has_heading, uint32_t j, const float off[3], float d2, gather *restrict acc) {
    // Every in-range decision compares squared values: a product rounds the
    // same on every GPU, a square root need not (GLSL allows several ULP).
    if (d2 < g->radius * g->radius) {
        acc->neighbors++;
        if (d2 < acc->nearest2)
            acc->nearest2 = d2;
    }
    uint32_t beh = g->behaviors;
    // relations == 0: flock with every group (the common case; no group read).
    uint32_t rel = BOIDS_REL_FLOCK;
    if (g->relations)
        rel = (g->relations >> (BOIDS_REL_BITS * s->cur.group[j])) & BOIDS_REL_MASK;
    const float *vj = s->cur.vel[j];
    float t[3];
    // Queueing and avoidance look at every agent the group sees (any
    // relation but ignore): a crowd files behind, and dodges, anyone.
    if (rel != BOIDS_REL_IGNORE) {
        if ((beh & BOIDS_BIT(BOIDS_BI_QUEUE)) &&
            boids_queue_blocks(off, d2, heading, has_heading, acc->vel, vj, g->queue_distance))
            acc->queue_n++;
        float tc;
        if ((beh & BOIDS_BIT(BOIDS_BI_AVOID)) && d2 < g->radius * g->radius &&
            boids_avoid_threat(off, acc->vel, vj, g->avoid_horizon, 2.0f * g->body_radius, &tc, t)) {
            uint32_t id = s->cur.id[j];
            if (boids_avoid_sooner(tc, id, acc->avoid_t, acc->avoid_id)) {
                acc->avoid_t = tc;
                acc->avoid_id = id;
                glm_vec3_copy(t, acc->avoid_off);
            }
        }
    }
    if (rel == BOIDS_REL_FLOCK) {
        // Each rule's neighbourhood: within its radius and its cone (field
        // of view) around the heading; by default one radius and one cone.
        // (The offset's dot with the heading only matters through a cone.)
        float dot = acc->cones ? glm_vec3_dot((float *)off, (float *)heading) : 0.0f;
        // The sums by rule set: the chapter's 1/d separation terms; the
        // tutorial's plain offsets (/ the separation radius); the heading
        // boids' unit headings (mean directions, never angles).
        if ((beh & BOIDS_BIT(BOIDS_BI_SEPARATION)) && d2 < g->separation * g->separation &&
            sees(acc->sep_cos, has_heading, dot, d2)) {
            if (g->rules == BOIDS_RULES_CHAPTER) {
                boids_separation_term(off, sqrtf(d2), g->separation, t);
                fix3(acc->sep, t, BOIDS_FIX_SEP);
            } else if (g->rules == BOIDS_RULES_TUTORIAL) {
                float is = 1.0f / g->separation;
                float os[3] = {off[0] * is, off[1] * is, off[2] * is};
                fix3_unit(acc->sep, os, acc->dim);
            } else if (g->rules == BOIDS_RULES_CIRCLES) {
                boids_circles_term(off, sqrtf(d2), g->separation, t);
                fix3_unit(acc->sep, t, acc->dim);
            } else if (g->rules == BOIDS_RULES_COUZIN) { // the zone of repulsion: unit offsets
                boids_set_mag(off, 1.0f, t);
                fix3_unit(acc->sep, t, acc->dim);
            } else {
                boids_set_mag(vj, 1.0f, t);
                fix3_unit(acc->sep, t, acc->dim);
            }
            acc->sep_n++;
        }
        // Couzin's zones are shells: orientation from the separation radius
        // out, attraction from the alignment radius out.
        bool couzin = g->rules == BOIDS_RULES_COUZIN;
        if ((beh & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) && d2 < acc->ali_r2 && sees(acc->ali_cos, has_heading, dot, d2) &&
            !(couzin && d2 < g->separation * g->separation)) {
            // Unit headings for the heading, Vicsek and Couzin rules.
            if (g->rules == BOIDS_RULES_HEADING || g->rules == BOIDS_RULES_VICSEK || couzin) {
                boids_set_mag(vj, 1.0f, t);
            } else {
                float iv = acc->inv_speed;
                t[0] = vj[0] * iv, t[1] = vj[1] * iv, t[2] = vj[2] * iv;
            }
            fix3_unit(acc->ali, t, acc->dim);
            acc->ali_n++;
        }
        // The heading rules' cohesion steers to the survey's densest block,
        // not to the neighbours.
        if ((beh & BOIDS_BIT(BOIDS_BI_COHESION)) && g->rules != BOIDS_RULES_HEADING && d2 < acc->coh_r2 &&
            sees(acc->coh_cos, has_heading, dot, d2) && !(couzin && d2 < acc->ali_r2)) {
            if (couzin) { // the zone of attraction: unit offsets
                boids_set_mag(off, 1.0f, t);
                fix3_unit(acc->coh, t, acc->dim);
            } else {
                float ir = acc->inv_radius;
                float os[3] = {off[0] * ir, off[1] * ir, off[2] * ir};
                fix3_unit(acc->coh, os, acc->dim);
            }
            acc->coh_n++;
        }
        if ((beh & BOIDS_BIT(BOIDS_BI_VIEW)) && has_heading && d2 < g->view_radius * g->view_radius &&
            boids_in_cone(glm_vec3_dot((float *)off, (float *)heading), g->view_cos, d2)) {
            int32_t side[2];
            boids_view_term(off, acc->vel, side);
            acc->view[0] += side[0];
            acc->view[1] += side[1];
            acc->view_n++;
        }
    } else if (rel == BOIDS_REL_FLEE) {
        if ((beh & BOIDS_BIT(BOIDS_BI_ESCAPE)) && d2 < g->radius * g->radius) {
            boids_escape_term(off, vj, g->predict, g->radius, t);
            fix3(acc->esc, t, BOIDS_FIX_SEP);
            acc->esc_n++;
        }
        uint32_t id = s->cur.id[j];
        if ((beh & BOIDS_BIT(BOIDS_BI_HIDE)) && d2 < g->radius * g->radius &&
            (d2 < acc->hunter_d2 || (d2 == acc->hunter_d2 && id < acc->hunter_id))) {
            acc->hunter_d2 = d2;
            acc->hunter_id = id;
            acc->hunter_slot = j;
        }
    } else if (rel == BOIDS_REL_PURSUE) {
        uint32_t id = s->cur.id[j];
        if ((beh & BOIDS_BIT(BOIDS_BI_HUNT)) && d2 < g->radius * g->radius &&
            (d2 < acc->prey_d2 || (d2 == acc->prey_d2 && id < acc->prey_id))) {
            acc->prey_d2 = d2;
            acc->prey_id = id;
            acc->prey_slot = j;
        }
    }
}

// Candidates within reach are collected in batches, then gathered: the
// filter loop has no data-dependent branch (the accepted count advances by
// the comparison), so a random accept/reject pattern costs no mispredictions.
#define BATCH 64

// Topological neighbourhoods (group neighbors_max K > 0; Ballerini et al.
// 2008): of the accepted candidates, the K smallest by (d^2, id), ties to
// the smaller id, kept sorted by insertion while filtering; gather_pair runs
// for exactly those at the end. The choice depends on (d^2, id) alone, not
// on the visiting order, so the sums stay order-independent.
typedef struct topk {
    uint32_t k, n; // K, entries held (<= K)
    float d2[BOIDS_MAX_NEIGHBORS_K];
    uint32_t id[BOIDS_MAX_NEIGHBORS_K], slot[BOIDS_MAX_NEIGHBORS_K];
    float off[BOIDS_MAX_NEIGHBORS_K][3];
} topk;

// Does (d2, id) come before entry q of t?
static inline bool topk_before(const topk *t, uint32_t q, float d2, uint32_t id) {
    return d2 < t->d2[q] || (d2 == t->d2[q] && id < t->id[q]);
}

// Offer the accepted candidate slot j (offset off, d2) to t.
static void topk_offer(const boids_sim *s, topk *restrict t, uint32_t j, const float off[3], float d2) {
    uint32_t id = s->cur.id[j];
    uint32_t q = t->n;
    if (q == t->k) { // full: it must beat the last, which drops out
        if (!topk_before(t, q - 1, d2, id))
            return;
        q--;
    } else {
        t->n++;
    }
    for (; q > 0 && topk_before(t, q - 1, d2, id); q--) {
        t->d2[q] = t->d2[q - 1];
        t->id[q] = t->id[q - 1];
        t->slot[q] = t->slot[q - 1];
        memcpy(t->off[q], t->off[q - 1], sizeof(t->off[q]));
    }
    t->d2[q] = d2;
    t->id[q] = id;
    t->slot[q] = j;
    memcpy(t->off[q], off, sizeof(t->off[q]));
}

typedef struct batch {
    uint32_t n;
    uint32_t slot[BATCH + 1]; // +1: the filter writes one past before deciding
    float off[BATCH + 1][3];
    float d2[BATCH + 1];
    topk *top; // group neighbors_max > 0: the selection flush feeds, else NULL
} batch;

// An empty batch for group g (t: the storage of its selection, if any).
static inline void batch_start(batch *b, topk *t, const boids_group_params *g) {
    b->n = 0;
    b->top = NULL;
    if (g->neighbors_max) {
        t->k = g->neighbors_max;
        t->n = 0;
        b->top = t;
    }
}

static inline void flush(const boids_sim *s, const boids_group_params *restrict g, const float heading[3],
                         bool has_heading, batch *restrict b, gather *restrict acc) {
    if (b->top) {
        for (uint32_t k = 0; k < b->n; k++)
            topk_offer(s, b->top, b->slot[k], b->off[k], b->d2[k]);
    } else {
        for (uint32_t k = 0; k < b->n; k++)
            gather_pair(s, g, heading, has_heading, b->slot[k], b->off[k], b->d2[k], acc);
    }
    b->n = 0;
}

// The last flush of a gather: with a selection, gather_pair for its K.
static inline void flush_last(const boids_sim *s, const boids_group_params *restrict g, const float heading[3],
                              bool has_heading, batch *restrict b, gather *restrict acc) {
    flush(s, g, heading, has_heading, b, acc);
    if (b->top) {
        const topk *t = b->top;
        for (uint32_t q = 0; q < t->n; q++)
            gather_pair(s, g, heading, has_heading, t->slot[q], t->off[q], t->d2[q], acc);
    }
}

// Filter the candidates [first, first + n) (n <= BATCH) into the batch:
// those with 0 < d^2 < reach^2 (d > 0 as in the chapter: skips self and
// coincident agents). `plain`: far from the seam, where the minimum image is
// the plain difference (boids_grid_interior) - the same bits without the
// wrap tests. In 2D every z is the same, so the z offset is exactly 0 and
// x^2 + y^2 + 0 is x^2 + y^2.
static inline void filter(const boids_sim *s, uint32_t first, uint32_t n, const float p[3], float reach2, bool plain,
                          batch *b) {
    const boids_world_params *w = &s->p.world;
    float(*other)[4] = s->cur.pos;
    uint32_t k = b->n;
#define BOIDS_FILTER_KEEP(j, d2)                                                                                       \
    b->slot[k] = (j);                                                                                                  \
    b->d2[k] = (d2);                                                                                                   \
    k += (uint32_t)((d2) > 0.0f) & (uint32_t)((d2) < reach2)
    if (plain && w->dim == 2) {
        for (uint32_t j = first; j < first + n; j++) {
            float *off = b->off[k];
            off[0] = other[j][0] - p[0];
            off[1] = other[j][1] - p[1];
            off[2] = 0.0f;
            float d2 = off[0] * off[0] + off[1] * off[1];
            BOIDS_FILTER_KEEP(j, d2);
        }
    } else {
        for (uint32_t j = first; j < first + n; j++) {
            float *off = b->off[k];
            if (plain) {
                off[0] = other[j][0] - p[0];
                off[1] = other[j][1] - p[1];
                off[2] = other[j][2] - p[2];
            } else {
                boids_world_delta(w, p, other[j], off);
            }
            float d2 = off[0] * off[0] + off[1] * off[1] + off[2] * off[2];
            BOIDS_FILTER_KEEP(j, d2);
        }
    }
#undef BOIDS_FILTER_KEEP
    b->n = k;
}

// filter for the n (<= BATCH) candidates item[0, n) of a quadtree leaf
// (copies of the positions of cur, in any order): the same offsets, d^2 and
// test, so the same pairs.
static void filter_items(const boids_sim *s, const boids_qt_item *item, uint32_t n, const float p[3], float reach2,
                         bool plain, batch *b) {
    const boids_world_params *w = &s->p.world;
    uint32_t k = b->n;
#define BOIDS_FILTER_KEEP(j, d2)                                                                                       \
    b->slot[k] = (j);                                                                                                  \
    b->d2[k] = (d2);                                                                                                   \
    k += (uint32_t)((d2) > 0.0f) & (uint32_t)((d2) < reach2)
    if (plain && w->dim == 2) {
        for (uint32_t i = 0; i < n; i++) {
            float *off = b->off[k];
            off[0] = item[i].pos[0] - p[0];
            off[1] = item[i].pos[1] - p[1];
            off[2] = 0.0f;
            float d2 = off[0] * off[0] + off[1] * off[1];
            BOIDS_FILTER_KEEP(item[i].slot, d2);
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            float *off = b->off[k];
            if (plain) {
                off[0] = item[i].pos[0] - p[0];
                off[1] = item[i].pos[1] - p[1];
                off[2] = item[i].pos[2] - p[2];
            } else {
                boids_world_delta(w, p, item[i].pos, off);
            }
            float d2 = off[0] * off[0] + off[1] * off[1] + off[2] * off[2];
            BOIDS_FILTER_KEEP(item[i].slot, d2);
        }
    }
#undef BOIDS_FILTER_KEEP
    b->n = k;
}

// ---- The 2D flocking path ----
// The default world (2D, flocking by the chapter's rules: separation,
// alignment, cohesion, one radius each, no cones, no relations between
// groups) spends nearly all its time filtering and gathering pairs. For
// such a group, away from the seam, gather_flock2d gives the same accepted
// pairs, the same operations on each pair and so the same sums as
// filter + gather_pair; only the machinery around them differs:
//  - The candidates' positions come from a packed x, y copy of cur in cell
//    order (flock2d.xy, built once per step): 8 bytes a candidate instead
//    of 16, and a row of the block is a contiguous run the filter reads in
//    a loop the compiler vectorises. The offset is the same subtraction of
//    the same floats; z is left out: in 2D every z is equal, so the z offset
//    is exactly 0 and x^2 + y^2 + 0 == x^2 + y^2 (as filter's 2D loop).
//  - The alignment term of a neighbour j, (int64)((v_j * inv_speed) * 2^32)
//    per axis, depends on j alone (inv_speed = 1 / the world's largest
//    maxspeed): flock2d.ali holds it, computed once per step per slot by
//    the same expression, and a pair adds it (the same integers).
//  - The z lanes of the sums are not touched: separation's z term is
//    0 * k (0, or NaN if k overflowed), which boids_fix maps to 0;
//    alignment's and cohesion's are skipped in 2D already (fix3_unit).
//  - Accepted candidates are gathered in two loops without data-dependent
//    branches where the default radii make them unpredictable: separation
//    (a quarter of the neighbours) is compacted into its own list first.
// The sums are integers (order-independent) and the nearest distance a
// minimum, so none of this can change a bit. Any other group, an agent near
// the seam (minimum-image offsets) or a world in 3D take the general path.
// (Its scratch: struct flock2d, steer_internal.h.)

// Does group g take the 2D flocking path (in a 2D world)? Only separation,
// alignment and cohesion act on pairs there (escape, hide and hunt need a
// relation), by the chapter's rules, all around, with every neighbour (a
// topological K takes the general path).
static bool flock2d_group(const boids_group_params *g) {
    uint32_t pairwise = BOIDS_BIT(BOIDS_BI_VIEW) | BOIDS_BIT(BOIDS_BI_QUEUE) | BOIDS_BIT(BOIDS_BI_AVOID);
    return g->relations == 0 && g->neighbors_max == 0 && g->rules == BOIDS_RULES_CHAPTER &&
           !(g->behaviors & pairwise) && boids_rule_cone(g, BOIDS_CONE_SEPARATION) <= -1.0f &&
           boids_rule_cone(g, BOIDS_CONE_ALIGNMENT) <= -1.0f && boids_rule_cone(g, BOIDS_CONE_COHESION) <= -1.0f;
}

// The candidates xy[first, first + n) (n <= BATCH) with 0 < d^2 < reach^2
// appended to slot from k on (as filter): the test over the contiguous row
// in one loop the compiler vectorises, then the compaction (the count
// advances by the test, no branch). Returns the new count.
static inline uint32_t flock2d_filter(const float (*restrict xy)[2], uint32_t first, uint32_t n, float px, float py,
                                      float reach2, uint32_t k, uint32_t *restrict slot) {
    const float(*restrict row)[2] = xy + first;
    uint32_t keep[BATCH];
    for (size_t q = 0; q < n; q++) {
        float dx = row[q][0] - px, dy = row[q][1] - py;
        float d2 = dx * dx + dy * dy;
        keep[q] = (uint32_t)(d2 > 0.0f) & (uint32_t)(d2 < reach2);
    }
    for (size_t q = 0; q < n; q++) {
        slot[k] = first + (uint32_t)q;
        k += keep[q];
    }
    return k;
}

// gather_pair for the m accepted candidates `slot` of a flock2d group: the
// offset and d^2 as the filter computed them (the same operations on the
// same floats).
static void flock2d_flush(const flock2d *f, const boids_group_params *g, float px, float py,
                          const uint32_t *restrict slot, uint32_t m, gather *restrict acc) {
    const float(*restrict xy)[2] = f->xy;
    const int64_t(*restrict ali)[2] = f->ali;
    uint32_t beh = g->behaviors;
    // A rule that is off gets the bound 0, which no accepted d^2 (> 0) is below.
    float r2 = g->radius * g->radius;
    float sep2 = (beh & BOIDS_BIT(BOIDS_BI_SEPARATION)) ? g->separation * g->separation : 0.0f;
    float ali_r2 = (beh & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) ? acc->ali_r2 : 0.0f;
    float coh_r2 = (beh & BOIDS_BIT(BOIDS_BI_COHESION)) ? acc->coh_r2 : 0.0f;
    float ir = acc->inv_radius;
    uint32_t neighbors = 0, ali_n = 0, coh_n = 0, sep_n = 0;
    float nearest2 = acc->nearest2, sep_off[BATCH + 1][2], sep_d2[BATCH + 1];
    int64_t ax = 0, ay = 0, cx = 0, cy = 0;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t j = slot[k];
        float ox = xy[j][0] - px, oy = xy[j][1] - py;
        float d2 = ox * ox + oy * oy;
        if (d2 < r2) {
            neighbors++;
            nearest2 = d2 < nearest2 ? d2 : nearest2;
        }
        // Separation (about a quarter of the neighbours by default) is
        // collected here and gathered below: no unpredictable branch.
        sep_off[sep_n][0] = ox;
        sep_off[sep_n][1] = oy;
        sep_d2[sep_n] = d2;
        sep_n += (uint32_t)(d2 < sep2);
        if (d2 < ali_r2) {
            ax += ali[j][0];
            ay += ali[j][1];
            ali_n++;
        }
        if (d2 < coh_r2) {
            cx += (int64_t)((ox * ir) * (float)BOIDS_FIX_UNIT);
            cy += (int64_t)((oy * ir) * (float)BOIDS_FIX_UNIT);
            coh_n++;
        }
    }
    int64_t sx = 0, sy = 0;
    for (uint32_t q = 0; q < sep_n; q++) {
        float off[3] = {sep_off[q][0], sep_off[q][1], 0.0f}, t[3];
        boids_separation_term(off, sqrtf(sep_d2[q]), g->separation, t);
        sx += boids_fix(t[0], BOIDS_FIX_SEP);
        sy += boids_fix(t[1], BOIDS_FIX_SEP);
    }
    acc->neighbors += neighbors;
    acc->nearest2 = nearest2;
    acc->sep[0] += sx, acc->sep[1] += sy, acc->sep_n += sep_n;
    acc->ali[0] += ax, acc->ali[1] += ay, acc->ali_n += ali_n;
    acc->coh[0] += cx, acc->coh[1] += cy, acc->coh_n += coh_n;
}

// gather_neighbors' ranges for a flock2d group, away from the seam.
static void gather_flock2d(const flock2d *f, const float p[3], const boids_group_params *g, float reach2, uint32_t nr,
                           const uint32_t ranges[][2], gather *acc) {
    uint32_t slot[BATCH + 1], m = 0; // +1: the filter writes one past before deciding
    for (uint32_t r = 0; r < nr; r++) {
        acc->candidates += ranges[r][1] - ranges[r][0];
        for (uint32_t j = ranges[r][0]; j < ranges[r][1];) {
            uint32_t n = ranges[r][1] - j;
            if (n > BATCH - m)
                n = BATCH - m;
            m = flock2d_filter(f->xy, j, n, p[0], p[1], reach2, m, slot);
            j += n;
            if (m == BATCH) {
                flock2d_flush(f, g, p[0], p[1], slot, m, acc);
                m = 0;
            }
        }
    }
    flock2d_flush(f, g, p[0], p[1], slot, m, acc);
}

// The distance below which every agent outside rings 0..j of the block must
// lie farther: j cells of the narrowest axis, less a margin for the float
// rounding of d^2 (relative) and of the keys (absolute, from the largest
// coordinate of the world). <= 0: no bound.
static float ring_bound(const boids_world_params *w, uint32_t j) {
    float wmin = INFINITY, e = 0.0f;
    for (uint32_t a = 0; a < w->dim; a++) {
        wmin = fminf(wmin, w->cell[a]);
        e = fmaxf(e, fabsf(w->min[a]) + w->size[a]);
    }
    return (float)j * wmin * (1.0f - BOIDS_EARLY_STOP_REL) - BOIDS_EARLY_STOP_ABS * e;
}

// The K-nearest gather (group neighbors_max K > 0) through the grid, with
// the early stop: the block around cell c visited ring by ring (ring j: the
// cells at Chebyshev distance j, j = 0..M); once K candidates are held and
// the K-th d^2 is below ring_bound(j)^2, no agent of ring j + 1 or beyond
// (each at least j cells of the narrowest width away) can enter the K, so
// the rest are left unread. The K chosen by (d^2, id) are those of the whole
// block: the same bits as a full scan (with M = 1 the bound after ring 0 is
// <= 0: a full scan).
static void gather_rings(const boids_sim *s, const uint32_t c[3], const float p[3], float reach2, bool plain,
                         const boids_group_params *g, const float heading[3], bool has_heading, batch *b, gather *acc) {
    const boids_world_params *w = &s->p.world;
    const uint32_t *start = s->grid.start;
    bool wrap = w->boundary == BOIDS_BOUNDARY_WRAP;
    uint32_t m = boids_world_grid_fine(w);
    uint32_t cell[3][BOIDS_GRID_AXIS_MAX], ring[3][BOIDS_GRID_AXIS_MAX], n[3];
    for (int a = 0; a < 3; a++)
        n[a] = boids_grid_axis_rings(c[a], w->cells[a], wrap, m, cell[a], ring[a]);
    for (uint32_t j = 0; j <= m; j++) {
        for (uint32_t kz = 0; kz < n[2] && ring[2][kz] <= j; kz++)
            for (uint32_t ky = 0; ky < n[1] && ring[1][ky] <= j; ky++) {
                uint32_t row = (cell[2][kz] * w->cells[1] + cell[1][ky]) * w->cells[0];
                bool edge = ring[2][kz] == j || ring[1][ky] == j; // the whole row is in ring j
                for (uint32_t kx = 0; kx < n[0] && ring[0][kx] <= j; kx++) {
                    if (!edge && ring[0][kx] != j)
                        continue;
                    uint32_t first = start[row + cell[0][kx]], last = start[row + cell[0][kx] + 1];
                    acc->candidates += last - first;
                    for (uint32_t q = first; q < last;) {
                        uint32_t k = last - q;
                        if (k > BATCH - b->n)
                            k = BATCH - b->n;
                        filter(s, q, k, p, reach2, plain, b);
                        q += k;
                        if (b->n == BATCH)
                            flush(s, g, heading, has_heading, b, acc);
                    }
                }
            }
        if (j == m)
            break;
        flush(s, g, heading, has_heading, b, acc); // the selection holds every candidate of rings 0..j
        const topk *t = b->top;
        float bound = ring_bound(w, j);
        if (t->n == t->k && bound > 0.0f && t->d2[t->n - 1] < bound * bound)
            break;
    }
    flush_last(s, g, heading, has_heading, b, acc);
}

// Gather over the 3x3(x3) block of cells around the agent (f: the 2D
// flocking path's scratch when the agent's group may take it, else NULL;
// rc: the thread's cell_ranges). Always inlined into steer_gather, the
// grid's one call per agent (GCC's stack-frame growth limit would keep it
// out): no call of its own on the default path.
__attribute__((always_inline)) static inline void gather_neighbors(const boids_sim *s, uint32_t i,
                                                                   const boids_group_params *g, const float heading[3],
                                                                   bool has_heading, const flock2d *f, cell_ranges *rc,
                                                                   gather *acc) {
    const boids_world_params *w = &s->p.world;
    const float p[3] = {s->cur.pos[i][0], s->cur.pos[i][1], s->cur.pos[i][2]};
    uint32_t c[3];
    boids_grid_coords(w, p, c);
    if (!rc->valid || c[0] != rc->c[0] || c[1] != rc->c[1] || c[2] != rc->c[2]) {
        rc->n = boids_grid_ranges(w, s->grid.start, c, rc->range);
        memcpy(rc->c, c, sizeof(c));
        rc->valid = true;
    }
    uint32_t nr = rc->n;
    const uint32_t(*ranges)[2] = (const uint32_t(*)[2])rc->range;
    // The largest radius any of this group's rules looks at.
    float reach = boids_group_reach(g);
    float reach2 = reach * reach;
    bool plain = boids_grid_interior(w, c);
    if (f && plain) {
        gather_flock2d(f, p, g, reach2, nr, ranges, acc);
        return;
    }
    batch b;
    topk t;
    batch_start(&b, &t, g);
    if (b.top) {
        gather_rings(s, c, p, reach2, plain, g, heading, has_heading, &b, acc);
        return;
    }
    for (uint32_t r = 0; r < nr; r++) {
        acc->candidates += ranges[r][1] - ranges[r][0];
        for (uint32_t j = ranges[r][0]; j < ranges[r][1];) {
            uint32_t n = ranges[r][1] - j;
            if (n > BATCH - b.n)
                n = BATCH - b.n;
            filter(s, j, n, p, reach2, plain, &b);
            j += n;
            if (b.n == BATCH)
                flush(s, g, heading, has_heading, &b, acc);
        }
    }
    flush_last(s, g, heading, has_heading, &b, acc);
}

// Filter and gather the quadtree items [first, first + count).
static void gather_items(const boids_sim *s, uint32_t first, uint32_t count, const float p[3], float reach2, bool plain,
                         const boids_group_params *g, const float heading[3], bool has_heading, batch *b, gather *acc) {
    const boids_qt_item *item = s->quadtree->item + first;
    acc->candidates += count;
    for (uint32_t k = 0; k < count;) {
        uint32_t n = count - k;
        if (n > BATCH - b->n)
            n = BATCH - b->n;
        filter_items(s, item + k, n, p, reach2, plain, b);
        k += n;
        if (b->n == BATCH)
            flush(s, g, heading, has_heading, b, acc);
    }
}

// Gather through the quadtree (s->quadtree, built for cur): the ranges of
// the agent's leaf (lr), or, without them, those of a query of its own;
// filtered and gathered exactly as the grid's cells. Not inlined (nor
// gather_brute): steer_gather's grid path then compiles as it did before
// the other indexes existed (filter inlined into it), at the same speed.
__attribute__((noinline)) static void gather_quadtree(const boids_sim *s, uint32_t i, const boids_group_params *g,
                                                      const float heading[3], bool has_heading, const leaf_ranges *lr,
                                                      gather *acc) {
    const float p[3] = {s->cur.pos[i][0], s->cur.pos[i][1], s->cur.pos[i][2]};
    float reach = boids_group_reach(g);
    float reach2 = reach * reach;
    bool plain = boids_qt_box_interior(&s->p.world, p, p, reach);
    batch b;
    topk t;
    batch_start(&b, &t, g);
    if (lr) {
        for (uint32_t r = 0; r < lr->n; r++)
            gather_items(s, lr->range[r][0], lr->range[r][1], p, reach2, plain, g, heading, has_heading, &b, acc);
    } else {
        boids_qt_query q;
        boids_quadtree_query_begin(&q, s->quadtree, &s->p.world, p, reach);
        uint32_t first, count;
        while (boids_quadtree_query_next(&q, &first, &count))
            gather_items(s, first, count, p, reach2, plain, g, heading, has_heading, &b, acc);
    }
    flush_last(s, g, heading, has_heading, &b, acc);
}

// Gather over every agent (O(N) per agent, for tests): minimum-image
// offsets on a torus, plain differences otherwise.
__attribute__((noinline)) static void gather_brute(const boids_sim *s, uint32_t i, const boids_group_params *g,
                                                   const float heading[3], bool has_heading, gather *acc) {
    const float p[3] = {s->cur.pos[i][0], s->cur.pos[i][1], s->cur.pos[i][2]};
    float reach = boids_group_reach(g);
    float reach2 = reach * reach;
    bool plain = s->p.world.boundary != BOIDS_BOUNDARY_WRAP;
    batch b;
    topk t;
    batch_start(&b, &t, g);
    acc->candidates += s->n;
    for (uint32_t j = 0; j < s->n;) {
        uint32_t n = s->n - j;
        if (n > BATCH - b.n)
            n = BATCH - b.n;
        filter(s, j, n, p, reach2, plain, &b);
        j += n;
        if (b.n == BATCH)
            flush(s, g, heading, has_heading, &b, acc);
    }
    flush_last(s, g, heading, has_heading, &b, acc);
}

// The empty neighbourhood of agent i (group g): no sums, no choices, the
// group's radii and cones.
static void gather_start(const boids_sim *s, uint32_t i, const boids_group_params *g, gather *acc) {
    const boids_world_params *w = &s->p.world;
    *acc = (gather){.nearest2 = INFINITY,
                    .prey_slot = UINT32_MAX,
                    .prey_d2 = INFINITY,
                    .prey_id = UINT32_MAX,
                    .hunter_slot = UINT32_MAX,
                    .hunter_d2 = INFINITY,
                    .hunter_id = UINT32_MAX,
                    .inv_speed = 1.0f / w->max_speed_all,
                    .inv_radius = 1.0f / boids_cohesion_radius(g),
                    .sep_cos = boids_rule_cone(g, BOIDS_CONE_SEPARATION),
                    .ali_cos = boids_rule_cone(g, BOIDS_CONE_ALIGNMENT),
                    .coh_cos = boids_rule_cone(g, BOIDS_CONE_COHESION),
                    .dim = w->dim,
                    .avoid_t = INFINITY,
                    .avoid_id = UINT32_MAX,
                    .vel = {s->cur.vel[i][0], s->cur.vel[i][1], s->cur.vel[i][2]}};
    acc->cones = acc->sep_cos > -1.0f || acc->ali_cos > -1.0f || acc->coh_cos > -1.0f;
    float ar = boids_alignment_radius(g), cr = boids_cohesion_radius(g);
    acc->ali_r2 = ar * ar;
    acc->coh_r2 = cr * cr;
}

// See steer_internal.h.
void steer_gather(const boids_sim *s, uint32_t i, boids_index index, const leaf_ranges *lr, const flock2d *f,
                  cell_ranges *rc, gather *acc) {
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    float heading[3];
    boids_set_mag(s->cur.vel[i], 1.0f, heading);
    bool has_heading = glm_vec3_norm2(heading) > 0.0f;
    gather_start(s, i, g, acc);
    if (index == BOIDS_INDEX_QUADTREE)
        gather_quadtree(s, i, g, heading, has_heading, lr, acc);
    else if (index == BOIDS_INDEX_BRUTE)
        gather_brute(s, i, g, heading, has_heading, acc);
    else
        gather_neighbors(s, i, g, heading, has_heading, f && flock2d_group(g) ? f : NULL, rc, acc);
}

// See steer_internal.h.
bool steer_gather_scratch(boids_sim *s, int threads, flock2d *f) {
    const boids_world_params *w = &s->p.world;
    bool any = false;
    for (uint32_t k = 0; k < w->group_count; k++)
        any = any || flock2d_group(&s->p.group[k]);
    if (w->dim != 2 || !any || s->n == 0)
        return false;
    size_t slots = s->capacity > s->n ? s->capacity : s->n; // boids_sim_reserve frees them when it grows
    if (!s->steer_xy)
        s->steer_xy = malloc(slots * sizeof(*s->steer_xy));
    if (!s->steer_ali)
        s->steer_ali = malloc(slots * sizeof(*s->steer_ali));
    if (!s->steer_xy || !s->steer_ali)
        return false;
    // gather_pair's alignment term (fix3_unit of v * inv_speed), per slot.
    float iv = 1.0f / w->max_speed_all;
    int n = (int)s->n;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int j = 0; j < n; j++) {
        const float *pj = s->cur.pos[j], *vj = s->cur.vel[j];
        s->steer_xy[j][0] = pj[0];
        s->steer_xy[j][1] = pj[1];
        float t[2] = {vj[0] * iv, vj[1] * iv};
        s->steer_ali[j][0] = (int64_t)(t[0] * (float)BOIDS_FIX_UNIT);
        s->steer_ali[j][1] = (int64_t)(t[1] * (float)BOIDS_FIX_UNIT);
    }
    f->xy = (const float(*)[2])s->steer_xy;
    f->ali = (const int64_t(*)[2])s->steer_ali;
    return true;
}
