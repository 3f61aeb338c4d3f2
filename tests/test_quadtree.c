// tests/test_quadtree.c: the quadtree (octree in 3D) neighbour index of
// src/core/quadtree.c, the exercise of Nature of Code 5 "Spatial
// Subdivisions". The tree must find exactly the neighbour sets the grid and
// the O(N^2) search find, on the layouts of tests/test_grid.c and on the
// quadtree's own degenerate case (many agents at one point); and a whole step
// through --index quadtree or brute must give the same bits as the grid.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "boids/behaviors.h"
#include "boids/core.h"
#include "layouts.h"
#include "boids/quadtree.h"

// ck_assert_msg records the location of every check that passes (in fork
// mode a write to the runner), which costs more than the simulation inside
// hot loops; EXPECT calls into Check only when the condition fails.
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

static const char *const BOUNDARY_NAME[3] = {"wrap", "walls", "bounce"};
static const char *const INDEX_NAME[3] = {"grid", "quadtree", "brute"};
static const float ORIGIN[3] = {0.0f, 0.0f, 0.0f};

// ---- helpers (as tests/test_grid.c) -------------------------------------------


// ---- checks ----------------------------------------------------------------------

// The tree's invariants: the items are a permutation of the slots with the
// positions of cur, every node's agents lie in its box, children partition
// their parent's range, every leaf is listed once, and a leaf holds more
// than the bucket only when it is narrower than min_size on every axis (or
// at the depth limit).
static void check_tree(const boids_sim *s, const char *name) {
    const boids_quadtree *t = s->quadtree;
    EXPECT(t && t->n == s->n, "%s: the tree indexes %u agents, the state has %u", name, t ? t->n : 0u, s->n);
    uint8_t *seen = calloc(s->n + 1, 1), *leaf_seen = calloc(t->nodes + 1, 1);
    EXPECT(seen && leaf_seen, "out of memory");
    for (uint32_t k = 0; k < t->n; k++) {
        uint32_t j = t->item[k].slot;
        EXPECT(j < s->n && !seen[j], "%s: item %u names slot %u twice or out of range", name, k, j);
        seen[j] = 1;
        EXPECT(memcmp(t->item[k].pos, s->cur.pos[j], sizeof(float[3])) == 0,
               "%s: item %u's position is not slot %u's (the filter needs the same bits)", name, k, j);
    }
    EXPECT(t->depth <= BOIDS_QT_MAX_DEPTH, "%s: depth %u beyond the limit %u", name, t->depth, BOIDS_QT_MAX_DEPTH);
    uint32_t leaves = 0;
    for (uint32_t i = 0; i < t->nodes; i++) {
        const boids_qt_node *nd = &t->node[i];
        EXPECT(nd->first + nd->count <= t->n, "%s: node %u range past the items", name, i);
        for (uint32_t k = nd->first; k < nd->first + nd->count; k++)
            for (uint32_t a = 0; a < t->dim; a++) {
                float x = t->item[k].pos[a];
                EXPECT(x >= nd->lo[a] && x <= nd->hi[a],
                       "%s: node %u: item %u coordinate %u = %.9g outside [%.9g, %.9g]", name, i, k, a, (double)x,
                       (double)nd->lo[a], (double)nd->hi[a]);
            }
        if (nd->nchild == 0) {
            leaves++;
            bool small = true;
            for (uint32_t a = 0; a < t->dim; a++)
                small = small && !(nd->hi[a] - nd->lo[a] >= t->min_size && nd->hi[a] > nd->lo[a]);
            EXPECT(nd->count <= BOIDS_QT_BUCKET || small || t->depth == BOIDS_QT_MAX_DEPTH,
                   "%s: leaf %u holds %u agents (bucket %u) and is not small", name, i, nd->count, BOIDS_QT_BUCKET);
            continue;
        }
        EXPECT(nd->child > i && nd->child + nd->nchild <= t->nodes && nd->nchild <= (1u << t->dim),
               "%s: node %u: children [%u, +%u) out of order or range", name, i, nd->child, nd->nchild);
        uint32_t at = nd->first;
        for (uint32_t c = 0; c < nd->nchild; c++) {
            const boids_qt_node *ch = &t->node[nd->child + c];
            EXPECT(ch->first == at && ch->count > 0, "%s: node %u child %u does not continue its parent's range", name,
                   i, c);
            at += ch->count;
        }
        EXPECT(at == nd->first + nd->count, "%s: node %u: children cover %u of %u agents", name, i, at - nd->first,
               nd->count);
    }
    EXPECT(leaves == t->leaves, "%s: %u leaves in the nodes, %u listed", name, leaves, t->leaves);
    for (uint32_t l = 0; l < t->leaves; l++) {
        uint32_t i = t->leaf[l];
        EXPECT(i < t->nodes && t->node[i].nchild == 0 && !leaf_seen[i], "%s: leaf list entry %u (node %u) bad", name, l,
               i);
        leaf_seen[i] = 1;
    }
    free(seen);
    free(leaf_seen);
}

// Ids of the slots in a[0, n), sorted.
static void to_sorted_ids(const boids_sim *s, uint32_t *a, uint32_t n) {
    for (uint32_t k = 0; k < n; k++)
        a[k] = s->cur.id[a[k]];
    qsort(a, n, sizeof(uint32_t), cmp_u32);
}

// For every agent the id set found through the quadtree equals the O(N^2)
// set, and (radius within a cell) the grid's, with the given radius.
static void check_sets(boids_sim *s, float radius, bool grid_too, const char *name) {
    uint32_t n = s->n, m = n ? n : 1;
    uint32_t *a = malloc(sizeof(uint32_t) * m), *b = malloc(sizeof(uint32_t) * m), *c = malloc(sizeof(uint32_t) * m);
    EXPECT(a && b && c, "out of memory for the neighbour lists");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nq = boids_quadtree_neighbors(s, i, radius, a, n);
        uint32_t nb = boids_brute_neighbors(s, i, radius, b, n);
        to_sorted_ids(s, a, nq);
        to_sorted_ids(s, b, nb);
        if (nq != nb || memcmp(a, b, nq * sizeof(uint32_t)) != 0) {
            // The first id present in one set only.
            uint32_t miss = UINT32_MAX, ka = 0, kb = 0;
            while (ka < nq || kb < nb) {
                if (kb >= nb || (ka < nq && a[ka] < b[kb])) {
                    miss = a[ka];
                    break;
                }
                if (ka >= nq || b[kb] < a[ka]) {
                    miss = b[kb];
                    break;
                }
                ka++;
                kb++;
            }
            const float *p = s->cur.pos[i];
            ck_abort_msg("%s: agent id %u at (%.9g, %.9g, %.9g), radius %g: quadtree found %u neighbours, brute force "
                         "%u (expected the same set); first difference id %u",
                         name, s->cur.id[i], (double)p[0], (double)p[1], (double)p[2], (double)radius, nq, nb, miss);
        }
        if (grid_too) {
            uint32_t ng = boids_grid_neighbors(s, i, radius, c, n);
            to_sorted_ids(s, c, ng);
            EXPECT(ng == nb && memcmp(c, b, ng * sizeof(uint32_t)) == 0,
                   "%s: agent id %u, radius %g: grid %u neighbours, brute force %u (expected the same set)", name,
                   s->cur.id[i], (double)radius, ng, nb);
        }
    }
    free(a);
    free(b);
    free(c);
}

// Rebuild the tree over cur, check it, and compare the neighbour sets at
// the radius, 0.37 of it (any radius within the cell: grid too) and 1.7 of
// it (the tree takes any radius: brute force only).
static void check_all(boids_sim *s, const char *name) {
    EXPECT(boids_sim_build_quadtree(s), "%s: boids_sim_build_quadtree ran out of memory", name);
    check_tree(s, name);
    float r = s->p.group[0].radius;
    check_sets(s, r, true, name);
    check_sets(s, 0.37f * r, true, name);
    check_sets(s, 1.7f * r, false, name);
}

// Some steps (cur is then in the previous step's cell order), then the checks.
static void check_after_steps(boids_sim *s, int steps, const char *name) {
    for (int k = 0; k < steps; k++)
        boids_sim_step(s);
    boids_sim_build_grid(s);
    check_all(s, name);
}

// ---- neighbour sets on the layouts of test_grid.c ---------------------------------

START_TEST(uniform_2d_3d) {
    // Every boundary mode, 2D and 3D, after creation and after steps (the
    // steps themselves run with the quadtree index).
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b++) {
            boids_params p;
            boids_params_default(&p, 1000, dim);
            p.world.boundary = b;
            p.world.seed_lo = 1 + b;
            char name[96];
            snprintf(name, sizeof(name), "uniform %uD %s", dim, BOUNDARY_NAME[b]);
            boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
            s->index = BOIDS_INDEX_QUADTREE;
            check_all(s, name);
            check_after_steps(s, 3, name);
            boids_sim_destroy(s);
        }
}
END_TEST

START_TEST(clustered) {
    // Dense clumps: where the tree is deep and the grid's cells crowded.
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b += 2) {
            boids_params p;
            boids_params_default(&p, 1500, dim);
            p.world.boundary = b;
            p.world.seed_lo = 7;
            char name[96];
            snprintf(name, sizeof(name), "clustered %uD %s", dim, BOUNDARY_NAME[b]);
            boids_sim *s = create(&p, BOIDS_DIST_CLUSTERED);
            check_all(s, name);
            EXPECT(s->quadtree->depth >= 3, "%s: a clustered layout should make the tree deep (depth %u)", name,
                   s->quadtree->depth);
            s->index = BOIDS_INDEX_QUADTREE;
            check_after_steps(s, 2, name);
            boids_sim_destroy(s);
        }
}
END_TEST

START_TEST(all_in_one_cell) {
    // Every agent in the last cell of the grid, beside the seams.
    for (uint32_t b = 0; b < 3; b++)
        for (uint32_t dim = 2; dim <= 3; dim++) {
            float size[3] = {500.0f, 500.0f, dim == 3 ? 500.0f : 0.0f};
            boids_params p;
            world_params(&p, 600, dim, b, ORIGIN, size, 50.0f);
            boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
            float(*pos)[4] = calloc(s->n, sizeof(*pos));
            uint32_t st = 99 + b;
            for (uint32_t i = 0; i < s->n; i++)
                for (uint32_t a = 0; a < dim; a++)
                    pos[i][a] = 450.0f + 49.99f * lcg_unit(&st);
            place(s, pos, 5);
            char name[96];
            snprintf(name, sizeof(name), "one cell %uD %s", dim, BOUNDARY_NAME[b]);
            check_all(s, name);
            free(pos);
            boids_sim_destroy(s);
        }
}
END_TEST

static void seam_world(uint32_t dim, uint32_t b, const float min[3], const float size[3], float r, uint32_t n,
                       const char *what) {
    boids_params p;
    world_params(&p, n, dim, b, min, size, r);
    boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
    const boids_world_params *w = &s->p.world;
    float(*pos)[4] = seam_positions(w, b, r, n);
    place(s, pos, 3);
    char name[160];
    snprintf(name, sizeof(name), "%s %uD %s min (%g,%g,%g) size (%g,%g,%g)", what, dim, BOUNDARY_NAME[b],
             (double)min[0], (double)min[1], (double)min[2], (double)size[0], (double)size[1], (double)size[2]);
    check_all(s, name);
    free(pos);
    boids_sim_destroy(s);
}

START_TEST(seams_and_corners) {
    // Cell size == radius exactly (1000 / 50) is the grid's tight case;
    // corners are where a torus query needs the images on two or three axes.
    float size2[3] = {1000.0f, 1000.0f, 0.0f}, size3[3] = {400.0f, 400.0f, 400.0f};
    for (uint32_t b = 0; b < 3; b++) {
        seam_world(2, b, ORIGIN, size2, 50.0f, 1500, "seams");
        seam_world(3, b, ORIGIN, size3, 50.0f, 1500, "seams");
    }
}
END_TEST

START_TEST(negative_origin) {
    // World corners below zero, odd sizes, few cells per axis.
    float min2[3] = {-1000.0f, -1000.0f, 0.0f}, size2[3] = {2000.0f, 2000.0f, 0.0f};
    float min3[3] = {-1000.0f, -250.0f, -333.25f}, size3[3] = {600.0f, 500.0f, 450.0f};
    float minf[3] = {-1234.5f, -77.125f, 0.0f}, sizef[3] = {987.6f, 411.3f, 0.0f};
    float sizes[3] = {150.0f, 100.0f, 120.0f}; // 3 and 2 cells: every cell a neighbour cell
    for (uint32_t b = 0; b < 3; b++) {
        seam_world(2, b, min2, size2, 50.0f, 1000, "negative origin");
        seam_world(3, b, min3, size3, 50.0f, 1000, "negative origin");
        seam_world(2, b, minf, sizef, 50.0f, 1000, "negative origin, odd size");
        seam_world(3, b, minf, sizes, 50.0f, 300, "few cells");
    }
}
END_TEST

START_TEST(tiny_counts) {
    // N = 0, 1 and 2 (2 coincident agents: d = 0 is not a neighbour).
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b++)
            for (uint32_t n = 0; n <= 2; n++) {
                boids_params p;
                boids_params_default(&p, n, dim);
                p.world.boundary = b;
                boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
                s->index = BOIDS_INDEX_QUADTREE;
                char name[64];
                snprintf(name, sizeof(name), "N = %u %uD %s", n, dim, BOUNDARY_NAME[b]);
                check_all(s, name);
                check_after_steps(s, 3, name);
                if (n == 2) {
                    float pos[2][4] = {{10, 20, 30, 0}, {10, 20, 30, 0}};
                    place(s, pos, 1);
                    EXPECT(boids_sim_build_quadtree(s), "%s: build failed", name);
                    uint32_t out[2];
                    EXPECT(boids_quadtree_neighbors(s, 0, 50.0f, out, 2) == 0,
                           "%s: coincident agents are not neighbours (chapter: d > 0)", name);
                    check_all(s, name);
                }
                boids_sim_destroy(s);
            }
}
END_TEST

START_TEST(many_at_one_point) {
    // The quadtree's degenerate case: hundreds of agents at exactly one
    // position (no split separates them), a crowd one ULP apart (the box
    // centre rounds onto an end), and a few others around; also with the
    // whole step through the tree.
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b++) {
            float size[3] = {600.0f, 600.0f, dim == 3 ? 600.0f : 0.0f};
            boids_params p;
            world_params(&p, 900, dim, b, ORIGIN, size, 50.0f);
            boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
            float(*pos)[4] = calloc(s->n, sizeof(*pos));
            uint32_t st = 31 + b + dim;
            for (uint32_t i = 0; i < s->n; i++)
                for (uint32_t a = 0; a < dim; a++) {
                    if (i < 400)
                        pos[i][a] = 123.25f; // one point
                    else if (i < 700)
                        pos[i][a] = (i & (1u << a)) ? nextafterf(300.0f, INFINITY) : 300.0f; // one ULP apart
                    else if (i < 800)
                        pos[i][a] = 0.0f; // a corner (on a torus: beside the far seams)
                    else
                        pos[i][a] = 600.0f * lcg_unit(&st);
                }
            place(s, pos, 9);
            char name[64];
            snprintf(name, sizeof(name), "one point %uD %s", dim, BOUNDARY_NAME[b]);
            check_all(s, name);
            uint32_t out[8];
            uint32_t slot0 = boids_sim_slots_by_id(s)[0];
            uint32_t got = boids_quadtree_neighbors(s, slot0, 50.0f, out, 8);
            EXPECT(got == boids_brute_neighbors(s, slot0, 50.0f, out, 8),
                   "%s: the count must not depend on cap (%u found)", name, got);
            s->index = BOIDS_INDEX_QUADTREE;
            check_after_steps(s, 2, name);
            free(pos);
            boids_sim_destroy(s);
        }
}
END_TEST

// ---- whole steps: the three indexes give the same bits ---------------------------

// Every behaviour on, three groups (flock, flee, pursue relations), a
// 240-degree field of view: every branch of the per-pair gather.
static void busy_params(boids_params *p, uint32_t n, uint32_t dim, uint32_t boundary, uint32_t seed) {
    boids_params_default(p, n, dim);
    p->world.boundary = boundary;
    p->world.seed_lo = seed;
    p->world.seed_hi = seed ^ 0x5a5a5a5au;
    p->world.group_count = 3;
    p->group[0].relations = BOIDS_REL_FLEE << (2 * 2);
    p->group[1].relations = BOIDS_REL_FLEE << (2 * 2);
    p->group[2].relations = (BOIDS_REL_PURSUE << 0) | (BOIDS_REL_PURSUE << 2) | (BOIDS_REL_IGNORE << 4);
    p->group[1].maxspeed = 2.5f;
    p->group[2].maxspeed = 3.5f;
    p->group[2].radius = 60.0f;
    for (uint32_t g = 0; g < 3; g++)
        p->group[g].behaviors = (1u << BOIDS_BEHAVIOR_COUNT) - 1u;
    p->group[1].fov_cos = -0.5f;
}

// The per-slot outputs of two simulations over the same state agree bit for
// bit (slots agree too: the grid orders both); candidates may differ.
static void expect_same_outputs(const boids_sim *a, const boids_sim *b, const char *name, int step) {
    EXPECT(a->n == b->n, "%s: agent counts differ", name);
    for (uint32_t i = 0; i < a->n; i++) {
        EXPECT(a->cur.id[i] == b->cur.id[i], "%s step %d: slot %u holds id %u and %u", name, step, i, a->cur.id[i],
               b->cur.id[i]);
        EXPECT(a->neighbors[i] == b->neighbors[i], "%s step %d: id %u has %u neighbours vs %u", name, step,
               a->cur.id[i], a->neighbors[i], b->neighbors[i]);
        EXPECT(memcmp(&a->nearest[i], &b->nearest[i], sizeof(float)) == 0, "%s step %d: id %u nearest %.9g vs %.9g",
               name, step, a->cur.id[i], (double)a->nearest[i], (double)b->nearest[i]);
        EXPECT(memcmp(a->accel[i], b->accel[i], sizeof(float[4])) == 0,
               "%s step %d: id %u acceleration (%.9g, %.9g, %.9g) vs (%.9g, %.9g, %.9g)", name, step, a->cur.id[i],
               (double)a->accel[i][0], (double)a->accel[i][1], (double)a->accel[i][2], (double)b->accel[i][0],
               (double)b->accel[i][1], (double)b->accel[i][2]);
    }
}

// Three simulations of p, one per index, stepped together: after every step
// the same state hash and the same per-agent outputs.
static void same_bits(const boids_params *p, boids_distribution dist, int steps, const char *name) {
    boids_sim *s[3];
    for (int k = 0; k < 3; k++) {
        s[k] = create(p, dist);
        s[k]->index = (boids_index)k;
    }
    uint64_t cand[3] = {0, 0, 0};
    for (int t = 1; t <= steps; t++) {
        for (int k = 0; k < 3; k++) {
            boids_sim_step(s[k]);
            for (uint32_t i = 0; i < s[k]->n; i++)
                cand[k] += s[k]->candidates[i];
        }
        uint64_t h = boids_sim_hash(s[0]);
        for (int k = 1; k < 3; k++) {
            EXPECT(boids_sim_hash(s[k]) == h, "%s: after step %d the %s index gives hash %016llx, the grid %016llx",
                   name, t, INDEX_NAME[k], (unsigned long long)boids_sim_hash(s[k]), (unsigned long long)h);
            expect_same_outputs(s[0], s[k], name, t);
        }
    }
    if (p->world.count > 200)
        EXPECT(cand[1] < cand[2], "%s: the quadtree examined %llu pairs, brute force %llu: expected fewer", name,
               (unsigned long long)cand[1], (unsigned long long)cand[2]);
    for (int k = 0; k < 3; k++)
        boids_sim_destroy(s[k]);
}

START_TEST(same_state_three_indexes) {
    // 2D and 3D, wrap and walls (bounce too in 2D), uniform and clustered,
    // the default flock and every behaviour.
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b++) {
            if (dim == 3 && b == BOIDS_BOUNDARY_BOUNCE)
                continue;
            char name[96];
            boids_params p;
            boids_params_default(&p, 1200, dim);
            p.world.boundary = b;
            snprintf(name, sizeof(name), "flock %uD %s", dim, BOUNDARY_NAME[b]);
            same_bits(&p, BOIDS_DIST_UNIFORM, 4, name);
            snprintf(name, sizeof(name), "clustered flock %uD %s", dim, BOUNDARY_NAME[b]);
            same_bits(&p, BOIDS_DIST_CLUSTERED, 3, name);
            busy_params(&p, 900, dim, b, 3 + b);
            snprintf(name, sizeof(name), "every behaviour %uD %s", dim, BOUNDARY_NAME[b]);
            same_bits(&p, BOIDS_DIST_UNIFORM, 4, name);
        }
    for (uint32_t n = 0; n <= 2; n++) {
        boids_params p;
        boids_params_default(&p, n, 2);
        same_bits(&p, BOIDS_DIST_UNIFORM, 2, "tiny");
    }
}
END_TEST

START_TEST(threads_same_bits) {
    // The quadtree's steer (tree built serially, leaves steered in parallel)
    // gives the same bits on 1 and 2 threads, and the same as the grid.
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t dist = 0; dist < 2; dist++) {
            boids_params p;
            busy_params(&p, 3000, dim, BOIDS_BOUNDARY_WRAP, 11 + dim);
            boids_sim *one = create(&p, (boids_distribution)dist), *two = create(&p, (boids_distribution)dist);
            boids_sim *grid = create(&p, (boids_distribution)dist);
            one->index = two->index = BOIDS_INDEX_QUADTREE;
            two->threads = 2;
            char name[64];
            snprintf(name, sizeof(name), "threads %uD %s", dim, dist ? "clustered" : "uniform");
            for (int t = 1; t <= 5; t++) {
                boids_sim_step(one);
                boids_sim_step(two);
                boids_sim_step(grid);
                EXPECT(boids_sim_hash(one) == boids_sim_hash(two), "%s: step %d: 1 and 2 threads differ", name, t);
                EXPECT(boids_sim_hash(one) == boids_sim_hash(grid), "%s: step %d: quadtree and grid differ", name, t);
                expect_same_outputs(one, two, name, t);
                EXPECT(memcmp(one->candidates, two->candidates, sizeof(uint32_t) * one->n) == 0,
                       "%s: step %d: the candidate counts depend on the thread count", name, t);
            }
            boids_sim_destroy(one);
            boids_sim_destroy(two);
            boids_sim_destroy(grid);
        }
}
END_TEST

static Suite *quadtree_suite(void) {
    Suite *s = suite_create("quadtree");
    TCase *nb = tcase_create("neighbors");
    tcase_set_timeout(nb, 300);
    tcase_add_test(nb, uniform_2d_3d);
    tcase_add_test(nb, clustered);
    tcase_add_test(nb, all_in_one_cell);
    tcase_add_test(nb, seams_and_corners);
    tcase_add_test(nb, negative_origin);
    tcase_add_test(nb, tiny_counts);
    tcase_add_test(nb, many_at_one_point);
    suite_add_tcase(s, nb);
    TCase *step = tcase_create("step");
    tcase_set_timeout(step, 300);
    tcase_add_test(step, same_state_three_indexes);
    tcase_add_test(step, threads_same_bits);
    suite_add_tcase(s, step);
    return s;
}

// Run the suite; exit status 0 when every test passes.
int main(void) {
    SRunner *sr = srunner_create(quadtree_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
