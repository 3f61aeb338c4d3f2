// src/core/steer.c: the steer stage. Per agent: gather the neighbourhood
// through the grid (3x3 or 3x3x3 cells, minimum-image offsets; with
// s->index, through the quadtree or over every pair instead) into
// order-independent 64-bit fixed-point sums, evaluate every enabled
// behaviour (each limited to maxforce), and combine them: the weighted sum
// (Nature of Code 5, "Combining Behaviors") or priority (Reynolds 1999).
// GLSL twin: shaders/steer.comp.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/vec3.h>
#include <omp.h>

#include "boids/behaviors.h"
#include "boids/quadtree.h"
#include "grid_internal.h"
#include "threads.h"

// Order-independent neighbourhood sums of one agent.
typedef struct gather {
    int64_t sep[3], ali[3], coh[3], esc[3];
    int32_t view[2]; // the view rule's sides: integer counts
    uint32_t sep_n, ali_n, coh_n, view_n, esc_n;
    uint32_t neighbors, candidates;
    float nearest2;     // smallest d^2 among neighbours, INFINITY if none
    uint32_t prey_slot; // nearest prey (ties: smaller id), UINT32_MAX if none
    float prey_d2;
    uint32_t prey_id;
    uint32_t hunter_slot; // nearest hunter for hide (ties: smaller id), UINT32_MAX if none
    float hunter_d2;
    uint32_t hunter_id;
    float inv_speed, inv_radius;     // scales of the alignment / cohesion terms (inv_radius: 1 / cohesion's radius)
    float ali_r2, coh_r2;            // squared radii of alignment and cohesion
    float sep_cos, ali_cos, coh_cos; // the cones of separation, alignment, cohesion
    bool cones;                      // any of them narrower than all around
    uint32_t dim;
    uint32_t queue_n;   // neighbours that block (queue): a count, the same in any order
    float avoid_t;      // soonest threat's closest-approach time (avoid), INFINITY if none
    uint32_t avoid_id;  // its id (ties: the smaller), UINT32_MAX if none
    float avoid_off[3]; // its predicted offset at avoid_t, times |dv|^2 (boids_avoid_threat)
    float vel[3];       // the agent's own velocity (queue, avoid)
} gather;

// Does the agent see the other (offset dot heading `dot`, d2 = |off|^2)
// through the cone `cos`? -1 or no heading: all around.
static inline bool sees(float cos, bool has_heading, float dot, float d2) {
    return cos <= -1.0f || !has_heading || boids_in_cone(dot, cos, d2);
}

static void fix3(int64_t acc[3], const float v[3], float scale) {
    for (int a = 0; a < 3; a++)
        acc[a] += boids_fix(v[a], scale);
}

// fix3 for terms known to lie in [-1, 1] (offset / radius with d < radius;
// velocity / the largest maxspeed, speeds being limited on entry and every
// step): no saturation or NaN test needed, the same bits as boids_fix.
// In 2D the z terms are all 0, so z is added only in 3D.
static inline void fix3_unit(int64_t acc[3], const float v[3], uint32_t dim) {
    acc[0] += (int64_t)(v[0] * (float)BOIDS_FIX_UNIT);
    acc[1] += (int64_t)(v[1] * (float)BOIDS_FIX_UNIT);
    if (dim == 3)
        acc[2] += (int64_t)(v[2] * (float)BOIDS_FIX_UNIT);
}

static void unfix3(const int64_t acc[3], float scale, float k, float dest[3]) {
    for (int a = 0; a < 3; a++)
        dest[a] = boids_unfix(acc[a], scale) * k;
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
typedef struct flock2d {
    const float (*xy)[2];    // per slot of cur: x, y
    const int64_t (*ali)[2]; // per slot of cur: the alignment term, fixed point
} flock2d;

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

// The slot ranges of the last cell a thread looked at: agents in slot order
// are in cell order, so consecutive agents mostly share their cell, and the
// ranges depend on the cell alone (and the grid, fixed during the stage).
typedef struct cell_ranges {
    bool valid;
    uint32_t c[3], n;
    uint32_t range[BOIDS_GRID_MAX_RANGES][2];
} cell_ranges;

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
// rc: the thread's cell_ranges).
static void gather_neighbors(const boids_sim *s, uint32_t i, const boids_group_params *g, const float heading[3],
                             bool has_heading, const flock2d *f, cell_ranges *rc, gather *acc) {
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

// Candidate ranges of the quadtree shared by the agents of one leaf: the
// leaves (or whole nodes) within the largest reach of the leaf's box.
#define LEAF_RANGES 512

typedef struct leaf_ranges {
    uint32_t n;
    uint32_t range[LEAF_RANGES][2]; // item[first, first + count)
} leaf_ranges;

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
// gather_brute): steer_agent's grid path then compiles as it did before the
// other indexes existed (filter inlined into it), at the same speed.
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

// The offset (minimum image) from pos to the named agent `id` and its
// velocity: an agent through the slot of its id (s->slot_of_id, filled by
// boids_sim_steer) or, in a distributed run, the driver's s->named (see
// core.h); or BOIDS_ID_TARGET, the world's target. The agent's group, or
// UINT32_MAX for the target.
static uint32_t named_agent(const boids_sim *s, const float pos[3], uint32_t id, float off[3], float vel[3]) {
    const boids_world_params *w = &s->p.world;
    const float *at = NULL, *v = NULL;
    uint32_t group = UINT32_MAX;
    if (s->named) {
        for (uint32_t k = 0; k < s->named_count && !at; k++)
            if (s->named[k].id == id) {
                at = s->named[k].pos;
                v = s->named[k].vel;
                group = s->named[k].group;
            }
    } else if (id != BOIDS_ID_TARGET && id < s->n) {
        uint32_t j = s->slot_of_id[id];
        at = s->cur.pos[j];
        v = s->cur.vel[j];
        group = s->cur.group[j];
    }
    if (!at) {
        boids_world_delta(w, pos, w->target_pos, off);
        glm_vec3_copy((float *)w->target_vel, vel);
        return UINT32_MAX;
    }
    boids_world_delta(w, pos, at, off);
    glm_vec3_copy((float *)v, vel);
    return group;
}

// What a behaviour's wrapper reads: agent i (slot of cur; id, group g) of
// s, its neighbourhood's sums, its own maxspeed ms and maxforce mf (its
// ranges' draws or the group's), the offset to the world's target.
typedef struct steer_ctx {
    const boids_sim *s;
    const boids_world_params *w;
    const boids_group_params *g;
    const gather *acc;
    uint32_t i, id;
    const float *pos, *vel;
    float ms, mf;
    float to_target[3]; // minimum image
    float *angles;      // the wander angles (pos.w, vel.w): wander updates them
} steer_ctx;

// The behaviours, one wrapper each with the same arguments: the force
// (already limited to maxforce) into out. behaviors_of calls them in the
// order of shared.h's BOIDS_BEHAVIORS. GLSL twins: steer.comp steer_*.
static void steer_obstacles(const steer_ctx *c, float out[3]) {
    boids_obstacles(c->pos, c->vel, &c->s->p.scene, c->w, c->g->avoid_distance, c->g->body_radius, c->ms, c->mf, out);
}

static void steer_walls(const steer_ctx *c, float out[3]) {
    boids_walls(c->pos, c->vel, c->w, c->ms, c->mf, out);
}

static void steer_escape(const steer_ctx *c, float out[3]) {
    float t[3];
    unfix3(c->acc->esc, BOIDS_FIX_SEP, 1.0f, t);
    boids_escape(t, c->acc->esc_n, c->vel, c->ms, c->mf, out);
}

static void steer_separation(const steer_ctx *c, float out[3]) {
    const gather *acc = c->acc;
    float t[3];
    if (c->g->rules == BOIDS_RULES_TUTORIAL) {
        // Mean offset to the neighbours = sum * separation / count.
        float k = acc->sep_n ? c->g->separation / (float)acc->sep_n : 0.0f;
        unfix3(acc->sep, BOIDS_FIX_UNIT, k, t);
        boids_tutorial_separation(t, acc->sep_n, out);
    } else {
        unfix3(acc->sep, BOIDS_FIX_SEP, 1.0f, t);
        boids_separation(t, acc->sep_n, c->vel, c->ms, c->mf, out);
    }
}

static void steer_flee(const steer_ctx *c, float out[3]) {
    boids_flee(c->to_target, c->vel, c->ms, c->mf, out);
}

static void steer_evade(const steer_ctx *c, float out[3]) {
    boids_evade(c->to_target, c->w->target_vel, c->vel, c->g->predict, c->ms, c->mf, out);
}

// Pursue the nearest prey (none: no force).
static void steer_hunt(const steer_ctx *c, float out[3]) {
    uint32_t j = c->acc->prey_slot;
    glm_vec3_zero(out);
    if (j != UINT32_MAX) {
        float off[3];
        boids_world_delta(c->w, c->pos, c->s->cur.pos[j], off);
        boids_pursue(off, c->s->cur.vel[j], c->vel, c->g->predict, c->ms, c->mf, out);
    }
}

static void steer_pursue(const steer_ctx *c, float out[3]) {
    boids_pursue(c->to_target, c->w->target_vel, c->vel, c->g->predict, c->ms, c->mf, out);
}

static void steer_seek(const steer_ctx *c, float out[3]) {
    boids_seek(c->to_target, c->vel, c->ms, c->mf, out);
}

static void steer_arrive(const steer_ctx *c, float out[3]) {
    boids_arrive(c->to_target, c->vel, c->g->arrive_radius, c->ms, c->mf, out);
}

static void steer_path(const steer_ctx *c, float out[3]) {
    boids_path_follow(c->pos, c->vel, &c->s->p.scene, c->w, c->g->path_predict, c->g->path_ahead, c->ms, c->mf, out);
}

static void steer_flow(const steer_ctx *c, float out[3]) {
    boids_flow(boids_flowfield_lookup(&c->s->p.flow, c->w, c->pos), c->vel, c->ms, c->mf, out);
}

static void steer_view(const steer_ctx *c, float out[3]) {
    boids_view(c->acc->view, c->acc->view_n, c->vel, c->ms, c->mf, out);
}

static void steer_alignment(const steer_ctx *c, float out[3]) {
    const gather *acc = c->acc;
    // Average velocity = sum * max_speed_all / count.
    float k = acc->ali_n ? c->w->max_speed_all / (float)acc->ali_n : 0.0f, t[3];
    unfix3(acc->ali, BOIDS_FIX_UNIT, k, t);
    if (c->g->rules == BOIDS_RULES_TUTORIAL)
        boids_tutorial_alignment(t, acc->ali_n, out);
    else
        boids_alignment(t, acc->ali_n, c->vel, c->ms, c->mf, out);
}

static void steer_cohesion(const steer_ctx *c, float out[3]) {
    const gather *acc = c->acc;
    // Centroid - position = mean offset = sum * cohesion's radius / count.
    float k = acc->coh_n ? boids_cohesion_radius(c->g) / (float)acc->coh_n : 0.0f, t[3];
    unfix3(acc->coh, BOIDS_FIX_UNIT, k, t);
    if (c->g->rules == BOIDS_RULES_TUTORIAL)
        boids_tutorial_cohesion(t, acc->coh_n, out);
    else
        boids_cohesion(t, acc->coh_n, c->vel, c->ms, c->mf, out);
}

// Two draws of (id, step) per step; the angles are updated.
static void steer_wander(const steer_ctx *c, float out[3]) {
    const boids_world_params *w = c->w;
    const boids_group_params *g = c->g;
    float r1 = boids_rng_signed(boids_rng_u32(w->seed_lo, w->seed_hi, c->id, w->step, BOIDS_RNG_WANDER));
    float r2 = boids_rng_signed(boids_rng_u32(w->seed_lo, w->seed_hi, c->id, w->step, BOIDS_RNG_WANDER2));
    boids_wander(c->vel, c->angles, r1, r2, g->wander_distance, g->wander_radius, g->wander_change, w->dim, c->ms,
                 c->mf, out);
}

static void steer_speed(const steer_ctx *c, float out[3]) {
    boids_target_speed(c->vel, c->g->target_speed, c->mf, out);
}

static void steer_queue(const steer_ctx *c, float out[3]) {
    boids_queue(c->acc->queue_n, c->vel, c->mf, out);
}

static void steer_avoid(const steer_ctx *c, float out[3]) {
    boids_avoid(c->acc->avoid_id != UINT32_MAX, c->acc->avoid_off, c->vel, c->mf, out);
}

static void steer_stay(const steer_ctx *c, float out[3]) {
    boids_stay_on_path(c->pos, c->vel, &c->s->p.scene, c->w, c->g->path_predict, c->ms, c->mf, out);
}

// Hide from the nearest hunter (none: has false, zero offset and velocity).
static void steer_hide(const steer_ctx *c, float out[3]) {
    const boids_group_params *g = c->g;
    uint32_t j = c->acc->hunter_slot;
    bool has = j != UINT32_MAX;
    float off[3] = {0, 0, 0}, hv[3] = {0, 0, 0};
    if (has) {
        boids_world_delta(c->w, c->pos, c->s->cur.pos[j], off);
        glm_vec3_copy(c->s->cur.vel[j], hv);
    }
    boids_hide(c->pos, c->vel, has, off, hv, &c->s->p.scene, c->w, g->radius, g->hide_margin, g->predict,
               g->arrive_radius, c->ms, c->mf, out);
}

// Offset pursuit: the agent's place in the formation (or the group's
// leader_offset); the leader itself has no force.
static void steer_offset(const steer_ctx *c, float out[3]) {
    const boids_sim *s = c->s;
    const boids_group_params *g = c->g;
    glm_vec3_zero(out);
    if (c->id == g->leader)
        return;
    float to_leader[3], lv[3], local[3];
    uint32_t leader_group = named_agent(s, c->pos, g->leader, to_leader, lv);
    boids_formation_local(g, c->id, leader_group == s->cur.group[c->i], local);
    boids_offset_pursuit(to_leader, lv, local, c->w->dim, c->vel, g->arrive_radius, c->ms, c->mf, out);
}

// Follow the leader; the leader itself has no force.
static void steer_follow(const steer_ctx *c, float out[3]) {
    const boids_group_params *g = c->g;
    glm_vec3_zero(out);
    if (c->id == g->leader)
        return;
    float off[3], lv[3];
    named_agent(c->s, c->pos, g->leader, off, lv);
    boids_follow_leader(off, lv, c->vel, g->leader_behind, g->leader_sight, g->predict, g->arrive_radius, c->ms, c->mf,
                        out);
}

static void steer_interpose(const steer_ctx *c, float out[3]) {
    float oa[3], va[3], ob[3], vb[3];
    named_agent(c->s, c->pos, c->g->interpose_a, oa, va);
    named_agent(c->s, c->pos, c->g->interpose_b, ob, vb);
    boids_interpose(oa, va, ob, vb, c->vel, c->g->arrive_radius, c->ms, c->mf, out);
}

static void steer_feelers(const steer_ctx *c, float out[3]) {
    boids_feelers(c->pos, c->vel, &c->s->p.scene, c->w->dim, c->g->feeler_length, c->mf, out);
}

// The force of every enabled behaviour (the bits of beh) of agent i, in
// the list's order, with its maxforce mf (the combination's budget too).
// Updates the wander angles.
static void behaviors_of(const boids_sim *s, uint32_t i, uint32_t beh, const gather *acc, float mf,
                         float force[BOIDS_BEHAVIOR_COUNT][3], float angles[2]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    uint32_t id = s->cur.id[i];
    steer_ctx c = {.s = s,
                   .w = w,
                   .g = g,
                   .acc = acc,
                   .i = i,
                   .id = id,
                   .pos = s->cur.pos[i],
                   .vel = s->cur.vel[i],
                   .ms = boids_agent_maxspeed(w, g, id),
                   .mf = mf,
                   .angles = angles};
    boids_world_delta(w, c.pos, w->target_pos, c.to_target);
#define STEER(index, NAME, name, gathers)                                                                              \
    if (beh & BOIDS_BIT(index))                                                                                        \
        steer_##name(&c, force[index]);
    BOIDS_BEHAVIORS(STEER)
#undef STEER
}

// Weighted sum of the enabled forces, or, in priority mode, the first
// weighted force (in index order) longer than the threshold (if none is,
// the weighted sum), or, in truncated mode, Buckland's prioritised truncated
// running sum ("Programming Game AI by Example", AccumulateForce) within
// the budget `maxforce` (the agent's own): in index order, remaining =
// maxforce - |sum|; stop when remaining <= 0; a force shorter than
// remaining is added whole, a longer one scaled to remaining, and it is the
// last (Buckland's next call would find remaining ~ 0; stopping at once
// does not depend on how |sum| rounds).
static void combine(const boids_world_params *w, const boids_group_params *g, uint32_t beh, float maxforce,
                    float force[BOIDS_BEHAVIOR_COUNT][3], float acc[3]) {
    glm_vec3_zero(acc);
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++) {
        if (!(beh & BOIDS_BIT(b)))
            continue;
        float f[3];
        glm_vec3_scale(force[b], boids_weight(g, b), f);
        if (w->combine == BOIDS_COMBINE_PRIORITY && glm_vec3_norm(f) > g->priority_threshold) {
            glm_vec3_copy(f, acc);
            return;
        }
        if (w->combine == BOIDS_COMBINE_TRUNCATED) {
            if (!boids_accumulate_force(acc, f, maxforce))
                return;
            continue;
        }
        glm_vec3_add(acc, f, acc);
    }
}

// The heading rules of agent i (boids-angle-bug.txt): the step's turn in
// radians into out[0] (y, z 0), which integrate adds to the heading. Mean
// directions = the unit-heading sums / count; the most populated area is
// the centre of the densest block of the step's survey (none when it found
// no agent).
static void heading_agent(const boids_sim *s, uint32_t i, const gather *acc, float out[4]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    float align[3], separate[3], to_dense[3] = {0.0f, 0.0f, 0.0f};
    unfix3(acc->ali, BOIDS_FIX_UNIT, acc->ali_n ? 1.0f / (float)acc->ali_n : 0.0f, align);
    unfix3(acc->sep, BOIDS_FIX_UNIT, acc->sep_n ? 1.0f / (float)acc->sep_n : 0.0f, separate);
    if ((g->behaviors & BOIDS_BIT(BOIDS_BI_COHESION)) && s->survey[1] > 0) {
        float target[3];
        boids_survey_target(w, s->survey[0], target);
        boids_world_delta(w, s->cur.pos[i], target, to_dense);
    }
    float heading = boids_heading_angle(s->cur.vel[i]);
    out[0] = boids_heading_rules(heading, g->behaviors, align, separate, to_dense, g->turn * w->dt);
    out[1] = 0.0f;
    out[2] = 0.0f;
}

// The collective-motion models of agent i (src/core/models.c): the new unit
// heading into out, which integrate moves along at the constant speed.
// Vicsek: the unit velocities within r, the agent's own added (the fixed
// point term of its own unit velocity, so the sum stays order-independent).
// Couzin: the zones' sums (separation: repulsion, alignment: orientation,
// cohesion: attraction; unit terms), the turn limit turn * dt per step.
static void model_agent(const boids_sim *s, uint32_t i, const gather *acc, float out[4]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    const float *vel = s->cur.vel[i];
    float u[3], t[3];
    boids_noise_draws(w->seed_lo, w->seed_hi, s->cur.id[i], w->step, u);
    if (g->rules == BOIDS_RULES_VICSEK) {
        int64_t sum[3] = {acc->ali[0], acc->ali[1], acc->ali[2]};
        boids_set_mag(vel, 1.0f, t);
        fix3_unit(sum, t, w->dim);
        float mean[3];
        unfix3(sum, BOIDS_FIX_UNIT, 1.0f, mean);
        boids_vicsek_heading(mean, vel, g->noise, w->dim, u, out);
    } else {
        float rep[3], ori[3], att[3], desired[3];
        unfix3(acc->sep, BOIDS_FIX_UNIT, 1.0f, rep);
        unfix3(acc->ali, BOIDS_FIX_UNIT, 1.0f, ori);
        unfix3(acc->coh, BOIDS_FIX_UNIT, 1.0f, att);
        boids_couzin_desired(rep, acc->sep_n, ori, acc->ali_n, att, acc->coh_n, vel, desired);
        boids_couzin_heading(desired, vel, g->noise, g->turn * w->dt, w->dim, u, out);
    }
}

// Steer one agent (slot i of cur): acceleration into accel[i], the updated
// wander angles into next (pos.w, vel.w), neighbour statistics. The
// neighbourhood comes through `index` (quadtree: lr, the ranges of the
// agent's leaf, or NULL); every index gives the same pairs. Grid only: f,
// the 2D flocking path's scratch, or NULL; rc, the thread's cell_ranges.
static void steer_agent(boids_sim *s, uint32_t i, boids_index index, const leaf_ranges *lr, const flock2d *f,
                        cell_ranges *rc) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    float heading[3];
    boids_set_mag(s->cur.vel[i], 1.0f, heading);
    bool has_heading = glm_vec3_norm2(heading) > 0.0f;

    gather acc = {.nearest2 = INFINITY,
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
    acc.cones = acc.sep_cos > -1.0f || acc.ali_cos > -1.0f || acc.coh_cos > -1.0f;
    float ar = boids_alignment_radius(g), cr = boids_cohesion_radius(g);
    acc.ali_r2 = ar * ar;
    acc.coh_r2 = cr * cr;
    if (index == BOIDS_INDEX_QUADTREE)
        gather_quadtree(s, i, g, heading, has_heading, lr, &acc);
    else if (index == BOIDS_INDEX_BRUTE)
        gather_brute(s, i, g, heading, has_heading, &acc);
    else
        gather_neighbors(s, i, g, heading, has_heading, f && flock2d_group(g) ? f : NULL, rc, &acc);

    float angles[2] = {s->cur.pos[i][3], s->cur.vel[i][3]};
    if (g->rules == BOIDS_RULES_HEADING) {
        heading_agent(s, i, &acc, s->accel[i]);
    } else if (g->rules == BOIDS_RULES_VICSEK || g->rules == BOIDS_RULES_COUZIN) {
        model_agent(s, i, &acc, s->accel[i]);
    } else if (g->rules == BOIDS_RULES_CIRCLES) {
        // The circles model's displacement (integrate moves the agent by it).
        float sum[3];
        unfix3(acc.sep, BOIDS_FIX_UNIT, 1.0f, sum);
        boids_circles_displacement(sum, acc.sep_n, g->repulse, s->accel[i]);
    } else {
        // The walls boundary mode is the stay-within-walls behaviour.
        uint32_t beh = g->behaviors | (w->boundary == BOIDS_BOUNDARY_WALLS ? BOIDS_BIT(BOIDS_BI_WALLS) : 0u);
        float force[BOIDS_BEHAVIOR_COUNT][3];
        // The agent's own maxforce (its range's draw) or the group's, once.
        float mf = boids_agent_maxforce(w, g, s->cur.id[i]);
        behaviors_of(s, i, beh, &acc, mf, force, angles);
        combine(w, g, beh, mf, force, s->accel[i]);
    }
    s->accel[i][3] = 0.0f;
    s->next.pos[i][3] = angles[0];
    s->next.vel[i][3] = angles[1];
    s->neighbors[i] = acc.neighbors;
    s->nearest[i] = acc.neighbors ? sqrtf(acc.nearest2) : 0.0f;
    s->candidates[i] = acc.candidates;
}

// Steer the agents of one quadtree leaf: one query around the leaf's box
// with the largest reach of any group gives candidate ranges for all of them
// (a superset of each one's; the filter decides). Too many ranges to hold:
// each agent queries alone.
static void steer_leaf(boids_sim *s, uint32_t leaf, float reach) {
    const boids_quadtree *t = s->quadtree;
    const boids_qt_node *nd = &t->node[leaf];
    if (nd->count == 0)
        return;
    leaf_ranges lr;
    lr.n = 0;
    bool full = false;
    boids_qt_query q;
    boids_quadtree_query_box(&q, t, &s->p.world, nd->lo, nd->hi, reach);
    uint32_t first, count;
    while (boids_quadtree_query_next(&q, &first, &count)) {
        if (lr.n == LEAF_RANGES) {
            full = true;
            break;
        }
        lr.range[lr.n][0] = first;
        lr.range[lr.n][1] = count;
        lr.n++;
    }
    for (uint32_t k = nd->first; k < nd->first + nd->count; k++)
        steer_agent(s, t->item[k].slot, BOIDS_INDEX_QUADTREE, full ? NULL : &lr, NULL, NULL);
}

// The heading rules' global survey, over the grid of cur (see core.h).
void boids_sim_survey(boids_sim *s) {
    if (!s)
        return;
    s->survey[0] = s->survey[1] = 0;
    if (!boids_params_survey(&s->p))
        return;
    if (s->world_survey) { // a distributed run: the whole world's, from the driver (core.h)
        s->survey[0] = s->world_survey[0];
        s->survey[1] = s->world_survey[1];
    } else {
        s->survey[0] = boids_survey(&s->p.world, s->grid.start, &s->survey[1]);
    }
}

// One agent over every pair (the sequential update's steer; see core.h).
void boids_sim_steer_agent(boids_sim *s, uint32_t slot) {
    if (!s || slot >= s->n)
        return;
    steer_agent(s, slot, BOIDS_INDEX_BRUTE, NULL, NULL, NULL);
}

// The 2D flocking path's scratch for this step (see flock2d): false when
// no group takes the path (or the scratch cannot be allocated; the general
// path gives the same bits).
static bool flock2d_scratch(boids_sim *s, int threads, flock2d *f) {
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

// The steer stage over all agents, in parallel: each agent's result depends
// only on cur, so any schedule gives the same bits. With the quadtree index
// the tree is first rebuilt over cur (serially; its time is part of the
// stage's) and the agents are steered leaf by leaf; if the tree cannot be
// allocated the grid answers instead (same bits).
void boids_sim_steer(boids_sim *s) {
    if (!s)
        return;
    int n = (int)s->n;
    int threads = boids_step_threads(s->threads);
    boids_index index = s->index;
    // Every index builds the survey before any agent reads it, and the slot
    // of every id before an agent looks for a named one.
    boids_sim_survey(s);
    if (boids_params_named(&s->p) && !s->named)
        boids_sim_slots_by_id(s);
    if (index == BOIDS_INDEX_QUADTREE && !boids_sim_build_quadtree(s))
        index = BOIDS_INDEX_GRID;
    if (index == BOIDS_INDEX_QUADTREE) {
        float reach = boids_quadtree_reach(&s->p);
        int leaves = (int)s->quadtree->leaves;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
        for (int l = 0; l < leaves; l++)
            if (!boids_sim_cancel_asked(s))
                steer_leaf(s, s->quadtree->leaf[l], reach);
        s->cancelled = boids_sim_cancel_asked(s);
        return;
    }
    flock2d f;
    bool fast = index == BOIDS_INDEX_GRID && flock2d_scratch(s, threads, &f);
#pragma omp parallel num_threads(threads)
    {
        cell_ranges rc = {.valid = false};
#pragma omp for schedule(dynamic, 512)
        for (int i = 0; i < n; i++)
            if ((!s->owned || s->owned[i]) && // a distributed run's halo: neighbours only (core.h)
                !boids_sim_cancel_asked(s))   // a step cut short: the agents left are skipped
                steer_agent(s, (uint32_t)i, index, NULL, fast ? &f : NULL, &rc);
    }
    // The flag stays set once set: read after the loop, it is set if any agent was skipped.
    s->cancelled = boids_sim_cancel_asked(s);
}
