/* boids/quadtree.h: the quadtree (octree in 3D) neighbour index of the CPU
 * reference (src/core/quadtree.c; Nature of Code 5, "Spatial Subdivisions",
 * the exercise after the bin lattice). Selected with boids_sim.index =
 * BOIDS_INDEX_QUADTREE (`--index quadtree`); the steer stage builds it over
 * s->cur at the start of every step and queries it read-only in parallel.
 *
 * Offers:
 *   boids_quadtree            the tree: nodes over a permuted copy of the agents' positions
 *   boids_quadtree_build      (re)build over the slots of a state (buffers reused)
 *   boids_quadtree_query_*    iterate the leaves that may hold agents within a radius
 *                             of a point (_begin) or of a box (_box), then _next
 *   boids_quadtree_reach      the largest interaction radius of any group
 *   boids_sim_build_quadtree  build s->quadtree over s->cur (allocated on first use)
 *   boids_quadtree_neighbors  neighbour sets through the tree, for tests
 */
#ifndef BOIDS_QUADTREE_H
#define BOIDS_QUADTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

// A node holding more than this many agents is split (unless it is at the
// depth limit or all its agents share one position).
#ifndef BOIDS_QT_BUCKET
#define BOIDS_QT_BUCKET 16
#endif
// Nor when it is narrower than this fraction of the largest reach on every
// axis (boids_sim_build_quadtree): smaller leaves hardly cut the candidates
// of a query, they only add nodes to walk.
#ifndef BOIDS_QT_MIN_SIZE
#define BOIDS_QT_MIN_SIZE 0.5f
#endif
// The depth limit: below 2^-24 of the root box, float positions run out.
#define BOIDS_QT_MAX_DEPTH 24
// Query stack: each level pushes at most 2^dim - 1 siblings.
#define BOIDS_QT_STACK (BOIDS_QT_MAX_DEPTH * 7 + 8)

// One agent in the tree: a copy of its position (the same bits as in the
// state) and its slot. Leaves read these contiguously.
typedef struct boids_qt_item {
    float pos[3];
    uint32_t slot;
} boids_qt_item;

// One node: the tight bounding box of its agents and their range
// item[first, first + count). Children are consecutive nodes
// [child, child + nchild) (only the non-empty ones); a leaf has nchild 0.
typedef struct boids_qt_node {
    float lo[3], hi[3];
    uint32_t first, count;
    uint32_t child, nchild;
} boids_qt_node;

typedef struct boids_quadtree {
    uint32_t dim;        // 2: quadtree (x, y), 3: octree
    float min_size;      // nodes narrower than this on every axis are not split
    uint32_t n;          // agents indexed
    boids_qt_item *item; // the n agents, each node's contiguous
    uint32_t item_cap;   // allocated items
    boids_qt_node *node; // node 0 is the root
    uint32_t nodes;      // nodes in use
    uint32_t node_cap;   // allocated nodes (grown, never shrunk; also the leaf array's)
    uint32_t *leaf;      // the leaves' node indices
    uint32_t leaves;     // leaves in use
    uint32_t depth;      // the deepest node of the last build
} boids_quadtree;

// The leaves a query visits, one at a time (the tree must not change while
// an iterator is live; any number of iterators may read one tree at once).
typedef struct boids_qt_query {
    const boids_quadtree *t;
    float lo[3], hi[3]; // the query box (a point: lo == hi)
    float r2;           // radius^2
    bool wrap;          // also test the images of the box shifted by -size and +size
    float size[3];      // world extent (wrap)
    float slack[3];     // per-axis allowance for rounding in the wrapped gaps
    uint32_t top;       // stack height
    uint32_t stack[BOIDS_QT_STACK];
} boids_qt_query;

// (Re)build t over the n positions pos (slots 0..n-1) of a world of
// dimension dim. Buffers grow as needed and are kept for the next build; if
// growing fails the tree stays correct with larger leaves. False only when
// the item array itself cannot be allocated (then t indexes nothing).
bool boids_quadtree_build(boids_quadtree *t, const float (*pos)[4], uint32_t n, uint32_t dim, float min_size);
// Free the buffers (t itself is the caller's).
void boids_quadtree_free(boids_quadtree *t);

// True when no agent within r of any point of the box [lo, hi] can be across
// a seam: not a torus, or on every axis the box is more than 2r inside the
// world. Then every offset shorter than r is the plain difference
// (boids_world_delta subtracts nothing from an offset shorter than half the
// extent, and a wrapped one would be longer than 2r): the steer stage skips
// the wrap tests, a query the images.
static inline bool boids_qt_box_interior(const boids_world_params *w, const float lo[3], const float hi[3], float r) {
    if (w->boundary != BOIDS_BOUNDARY_WRAP)
        return true;
    for (uint32_t a = 0; a < w->dim; a++)
        if (!(lo[a] - w->min[a] > 2.0f * r && (w->min[a] + w->size[a]) - hi[a] > 2.0f * r))
            return false;
    return true;
}

// Start a query for every agent j with |minimum-image offset(p, j)| < radius
// (w: boundary and extent). Every such agent lies in some leaf the iterator
// returns; leaves may also hold agents farther away (filter them).
void boids_quadtree_query_begin(boids_qt_query *q, const boids_quadtree *t, const boids_world_params *w,
                                const float p[3], float radius);
// The same around every point of the box [lo, hi] at once: every agent
// within radius of any point of it (the agents of one leaf share a query).
void boids_quadtree_query_box(boids_qt_query *q, const boids_quadtree *t, const boids_world_params *w,
                              const float lo[3], const float hi[3], float radius);
// The next leaf: its range item[*first, *first + *count). False when done.
bool boids_quadtree_query_next(boids_qt_query *q, uint32_t *first, uint32_t *count);

// The largest interaction radius of any group (boids_group_reach).
float boids_quadtree_reach(const boids_params *p);
// Build s->quadtree over s->cur (allocating it on first use), with
// min_size BOIDS_QT_MIN_SIZE x the largest reach. The steer
// stage calls it when s->index is BOIDS_INDEX_QUADTREE; tests call it
// before boids_quadtree_neighbors. False when out of memory.
bool boids_sim_build_quadtree(boids_sim *s);
// All agents j != slot (slots of cur) with 0 < |delta|^2 < radius^2, found
// through s->quadtree (built for the current cur; any radius). Returns the
// count; writes at most cap slots into out. As boids_grid_neighbors.
uint32_t boids_quadtree_neighbors(const boids_sim *s, uint32_t slot, float radius, uint32_t *out, uint32_t cap);

#ifdef __cplusplus
}
#endif

#endif
