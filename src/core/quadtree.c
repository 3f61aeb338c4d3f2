// src/core/quadtree.c: the quadtree (octree in 3D) neighbour index, the
// exercise of Nature of Code 5 "Spatial Subdivisions": where the bin
// lattice has fixed cells, the tree splits a region only where it is
// crowded, so a clustered flock gets small leaves and empty space none.
//
// The tree is rebuilt every step over the agents of s->cur: a node is the
// tight bounding box of its agents and a contiguous range of one array of
// (position, slot) items, so a leaf's agents are read as one stream;
// a node with more than BOIDS_QT_BUCKET agents is split at the centre of its
// box into 2^dim children (the array range partitioned in place, empty
// children dropped) down to a minimum size or BOIDS_QT_MAX_DEPTH. Nodes live
// in one array that grows when needed and is reused: no allocation per node
// or per step once it is large enough.
//
// Queries (all agents within r of a point, or of any point of a box: the
// steer stage asks once per leaf) are read-only, so they run in parallel.
// On a torus a node is tested against the images of the query shifted by
// -size, 0, +size on each axis (the minimum image of any offset is one of
// them). CPU reference only: the GPU keeps the grid.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/quadtree.h"

// Grow the node array so that `extra` more nodes fit. False if that fails
// (the caller then leaves the node a leaf: larger, still correct).
static bool reserve_nodes(boids_quadtree *t, uint32_t extra) {
    if (t->nodes + extra <= t->node_cap)
        return true;
    size_t cap = t->node_cap ? 2 * (size_t)t->node_cap : 64;
    while (cap < (size_t)t->nodes + extra)
        cap *= 2;
    if (cap > UINT32_MAX)
        return false;
    boids_qt_node *node = realloc(t->node, cap * sizeof(*node));
    if (!node)
        return false;
    t->node = node;
    uint32_t *leaf = realloc(t->leaf, cap * sizeof(*leaf)); // leaves <= nodes
    if (!leaf)
        return false;
    t->leaf = leaf;
    t->node_cap = (uint32_t)cap;
    return true;
}

// The tight bounding box of the agents item[first, first + count) on the
// tree's axes (unbounded on the others: z in 2D never prunes anything). NaN
// coordinates fail both comparisons and are ignored; such agents are never
// anyone's neighbour (d^2 is NaN).
static void bounds(const boids_quadtree *t, uint32_t first, uint32_t count, float lo[3], float hi[3]) {
    float l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t k = first; k < first + count; k++) {
        const float *p = t->item[k].pos;
        for (uint32_t a = 0; a < 3; a++) {
            l[a] = p[a] < l[a] ? p[a] : l[a];
            h[a] = p[a] > h[a] ? p[a] : h[a];
        }
    }
    for (uint32_t a = 0; a < 3; a++) {
        lo[a] = a < t->dim ? l[a] : -INFINITY;
        hi[a] = a < t->dim ? h[a] : INFINITY;
    }
}

// Partition item[lo, hi) in place: agents with coordinate a below `mid`
// first. Returns how many those are. Every item is swapped with the end of
// the lower part and the end advances by the comparison (Lomuto's scheme,
// branch-free: the split of a crowd is unpredictable, a branch would miss).
static uint32_t partition(boids_qt_item *item, uint32_t lo, uint32_t hi, uint32_t a, float mid) {
    uint32_t i = lo;
    for (uint32_t j = lo; j < hi; j++) {
        boids_qt_item tmp = item[j];
        item[j] = item[i];
        item[i] = tmp;
        i += (uint32_t)(tmp.pos[a] < mid);
    }
    return i - lo;
}

// Build the subtree of node `index` (its range and box already set) at
// `depth`: split it when crowded, then recurse into the children. The node
// array may move while children are added, so nodes are named by index.
static void build_node(boids_quadtree *t, uint32_t index, uint32_t depth) {
    boids_qt_node *nd = &t->node[index];
    nd->child = 0;
    nd->nchild = 0;
    if (depth > t->depth)
        t->depth = depth;
    // Small: narrower than min_size on every axis (or all agents at one
    // position, which no split can separate).
    bool small = true;
    for (uint32_t a = 0; a < t->dim; a++)
        small = small && !(nd->hi[a] - nd->lo[a] >= t->min_size && nd->hi[a] > nd->lo[a]);
    if (nd->count <= BOIDS_QT_BUCKET || depth >= BOIDS_QT_MAX_DEPTH || small) {
        t->leaf[t->leaves++] = index;
        return;
    }
    // The 2^dim octants of the box centre, code bit a = upper half on axis
    // a: octant c is item[cut[c], cut[c + 1]). Axis dim-1 splits the whole
    // range first, then each half is split on the next axis down.
    float mid[3];
    for (uint32_t a = 0; a < t->dim; a++)
        mid[a] = nd->lo[a] + 0.5f * (nd->hi[a] - nd->lo[a]);
    uint32_t octants = 1u << t->dim, cut[9];
    cut[0] = nd->first;
    cut[octants] = nd->first + nd->count;
    for (uint32_t a = t->dim; a-- > 0;) {
        uint32_t span = 2u << a;
        for (uint32_t c = 0; c < octants; c += span)
            cut[c + span / 2] = cut[c] + partition(t->item, cut[c], cut[c + span], a, mid[a]);
    }
    uint32_t children = 0;
    for (uint32_t c = 0; c < octants; c++)
        children += cut[c + 1] > cut[c];
    if (!reserve_nodes(t, children)) {
        t->leaf[t->leaves++] = index;
        return;
    }
    nd = &t->node[index]; // the array may have moved
    uint32_t child = t->nodes;
    for (uint32_t c = 0; c < octants; c++) {
        if (cut[c + 1] == cut[c])
            continue;
        boids_qt_node *ch = &t->node[t->nodes++];
        ch->first = cut[c];
        ch->count = cut[c + 1] - cut[c];
        bounds(t, ch->first, ch->count, ch->lo, ch->hi);
    }
    // One child with the parent's own box: the centre did not separate
    // anything (coordinates a ULP apart). Stay a leaf.
    if (children == 1 && memcmp(t->node[child].lo, nd->lo, sizeof(nd->lo)) == 0 &&
        memcmp(t->node[child].hi, nd->hi, sizeof(nd->hi)) == 0) {
        t->nodes = child;
        t->leaf[t->leaves++] = index;
        return;
    }
    nd->child = child;
    nd->nchild = children;
    for (uint32_t k = 0; k < children; k++)
        build_node(t, child + k, depth + 1);
}

// (Re)build the tree over slots 0..n-1 of pos.
bool boids_quadtree_build(boids_quadtree *t, const float (*pos)[4], uint32_t n, uint32_t dim, float min_size) {
    if (!t || (!pos && n))
        return false;
    t->dim = dim == 3 ? 3 : 2;
    t->min_size = min_size > 0.0f ? min_size : 0.0f;
    t->n = 0;
    t->nodes = 0;
    t->leaves = 0;
    t->depth = 0;
    if (n > t->item_cap) {
        boids_qt_item *item = realloc(t->item, (size_t)n * sizeof(*item));
        if (!item)
            return false;
        t->item = item;
        t->item_cap = n;
    }
    if (!reserve_nodes(t, 1))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        memcpy(t->item[i].pos, pos[i], sizeof(t->item[i].pos));
        t->item[i].slot = i;
    }
    t->n = n;
    boids_qt_node *root = &t->node[t->nodes++];
    root->first = 0;
    root->count = n;
    bounds(t, 0, n, root->lo, root->hi);
    build_node(t, 0, 0);
    return true;
}

// Free the tree's buffers.
void boids_quadtree_free(boids_quadtree *t) {
    if (!t)
        return;
    free(t->item);
    free(t->node);
    free(t->leaf);
    memset(t, 0, sizeof(*t));
}

// Distance between the intervals [qlo, qhi] and [lo, hi] (0 if they meet).
// Each difference rounds monotonically, so for any x in [lo, hi] and p in
// [qlo, qhi] the computed |x - p| is at least the computed gap.
static inline float interval_gap(float qlo, float qhi, float lo, float hi) {
    if (qhi < lo)
        return lo - qhi;
    if (qlo > hi)
        return qlo - hi;
    return 0.0f;
}

// Squared distance from the query box (or its nearest image on a torus) to
// the node's box, never more than the squared offset of any agent in it as
// the steer stage computes it: the same operations in the same order
// (x^2 + y^2 + z^2; in 2D the z gap is 0 and adds nothing), each rounding
// monotone.
static inline float box_gap2(const boids_qt_query *q, const boids_qt_node *nd) {
    float g[3];
    for (uint32_t a = 0; a < 3; a++)
        g[a] = interval_gap(q->lo[a], q->hi[a], nd->lo[a], nd->hi[a]);
    if (q->wrap)
        for (uint32_t a = 0; a < 3; a++) {
            if (!(q->size[a] > 0.0f))
                continue;
            float below = interval_gap(q->lo[a] - q->size[a], q->hi[a] - q->size[a], nd->lo[a], nd->hi[a]);
            float above = interval_gap(q->lo[a] + q->size[a], q->hi[a] + q->size[a], nd->lo[a], nd->hi[a]);
            float m = below < above ? below : above;
            m = m < g[a] ? m : g[a];
            g[a] = m > q->slack[a] ? m - q->slack[a] : 0.0f;
        }
    return g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
}

// True when the whole node box lies within the radius of every point of the
// query box (plain differences): then the node's range is handed out at once
// instead of leaf by leaf. Only a shortcut: the caller filters every agent.
static bool box_inside(const boids_qt_query *q, const boids_qt_node *nd) {
    if (q->wrap)
        return false;
    float far2 = 0.0f;
    for (uint32_t a = 0; a < q->t->dim; a++) {
        float to_lo = fabsf(q->hi[a] - nd->lo[a]), to_hi = fabsf(nd->hi[a] - q->lo[a]);
        float f = to_lo > to_hi ? to_lo : to_hi;
        far2 += f * f;
    }
    return far2 < q->r2;
}

// Start a query around the box [lo, hi] with the given radius.
void boids_quadtree_query_box(boids_qt_query *q, const boids_quadtree *t, const boids_world_params *w,
                              const float lo[3], const float hi[3], float radius) {
    q->t = t;
    q->r2 = radius * radius;
    q->wrap = !boids_qt_box_interior(w, lo, hi, radius);
    q->top = 0;
    for (uint32_t a = 0; a < 3; a++) {
        q->lo[a] = lo[a];
        q->hi[a] = hi[a];
        q->size[a] = w->size[a];
        q->slack[a] = 0.0f;
    }
    if (t->n == 0)
        return;
    if (q->wrap) {
        // The wrapped offset (two roundings) and the gap to an image of the
        // box (two more) may differ by a few ULP of the largest coordinate:
        // the gaps are shrunk by 8 ULP of it, so the test stays conservative.
        const boids_qt_node *root = &t->node[0];
        for (uint32_t a = 0; a < t->dim; a++) {
            float m = fabsf(root->lo[a]);
            float c[3] = {fabsf(root->hi[a]), fabsf(lo[a]), fabsf(hi[a])};
            for (int k = 0; k < 3; k++)
                m = c[k] > m ? c[k] : m;
            q->slack[a] = (m + 2.0f * w->size[a]) * 0x1p-20f;
        }
    }
    if (box_gap2(q, &t->node[0]) < q->r2)
        q->stack[q->top++] = 0;
}

// Start a query around the point p.
void boids_quadtree_query_begin(boids_qt_query *q, const boids_quadtree *t, const boids_world_params *w,
                                const float p[3], float radius) {
    boids_quadtree_query_box(q, t, w, p, p, radius);
}

// The next range of candidates: a leaf (or a node inside the ball) whose box
// comes within the radius. Depth-first; only nodes that pass the box test
// are pushed, so the stack holds at most 2^dim - 1 siblings per level
// (BOIDS_QT_STACK).
bool boids_quadtree_query_next(boids_qt_query *q, uint32_t *first, uint32_t *count) {
    const boids_quadtree *t = q->t;
    while (q->top > 0) {
        const boids_qt_node *nd = &t->node[q->stack[--q->top]];
        if (nd->nchild == 0 || box_inside(q, nd)) {
            *first = nd->first;
            *count = nd->count;
            return true;
        }
        for (uint32_t k = nd->nchild; k-- > 0;)
            if (box_gap2(q, &t->node[nd->child + k]) < q->r2)
                q->stack[q->top++] = nd->child + k;
    }
    return false;
}

// The largest reach of any group.
float boids_quadtree_reach(const boids_params *p) {
    if (!p)
        return 0.0f;
    float reach = 0.0f;
    for (uint32_t g = 0; g < p->world.group_count; g++) {
        float r = boids_group_reach(&p->group[g]);
        reach = r > reach ? r : reach;
    }
    return reach;
}

// Build s->quadtree over s->cur, allocating the tree on first use; nodes
// are not split below BOIDS_QT_MIN_SIZE of the largest reach.
bool boids_sim_build_quadtree(boids_sim *s) {
    if (!s)
        return false;
    if (!s->quadtree && !(s->quadtree = calloc(1, sizeof(*s->quadtree))))
        return false;
    return boids_quadtree_build(s->quadtree, (const float(*)[4])s->cur.pos, s->n, s->p.world.dim,
                                BOIDS_QT_MIN_SIZE * boids_quadtree_reach(&s->p));
}

// Neighbours of `slot` through the tree: every j != slot with
// 0 < |delta|^2 < radius^2 (minimum image), as boids_brute_neighbors.
uint32_t boids_quadtree_neighbors(const boids_sim *s, uint32_t slot, float radius, uint32_t *out, uint32_t cap) {
    if (!s || (!out && cap))
        return 0;
    const boids_quadtree *t = s->quadtree;
    if (!t || t->n != s->n)
        return 0;
    const float *p = s->cur.pos[slot];
    float r2 = radius * radius;
    boids_qt_query q;
    boids_quadtree_query_begin(&q, t, &s->p.world, p, radius);
    uint32_t first, count, found = 0;
    while (boids_quadtree_query_next(&q, &first, &count))
        for (uint32_t k = first; k < first + count; k++) {
            uint32_t j = t->item[k].slot;
            if (j == slot)
                continue;
            float d[3];
            boids_world_delta(&s->p.world, p, t->item[k].pos, d);
            float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (!(d2 > 0.0f && d2 < r2))
                continue;
            if (found < cap)
                out[found] = j;
            found++;
        }
    return found;
}
