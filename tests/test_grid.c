// tests/test_grid.c: the uniform grid of src/core/grid.c (Reynolds'
// bin-lattice, Nature of Code 5 "Spatial Subdivisions"; DESIGN.md steps 1-4).
// The grid must find exactly the neighbours an O(N^2) search finds, for every
// world shape, boundary mode and agent layout, and its counting sort must
// keep its invariants (DESIGN.md, "Validation ... exact").
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "boids/behaviors.h"
#include "boids/core.h"
#include "layouts.h"

// ck_assert_msg records the location of every check that passes (in fork
// mode a write to the runner), which costs more than the simulation inside
// hot loops; EXPECT calls into Check only when the condition fails.
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

// ---- helpers ------------------------------------------------------------


// Exact horizon of DESIGN.md: for every agent, the id set found through the
// grid equals the id set of the O(N^2) search, with the given radius.
static void check_neighbors(const boids_sim *s, float radius, const char *name) {
    uint32_t n = s->n;
    uint32_t *a = malloc(sizeof(uint32_t) * (n ? n : 1)), *b = malloc(sizeof(uint32_t) * (n ? n : 1));
    EXPECT(a && b, "out of memory for the neighbour lists");
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t na = boids_grid_neighbors(s, i, radius, a, n);
        uint32_t nb = boids_brute_neighbors(s, i, radius, b, n);
        EXPECT(na <= n && nb <= n, "%s: neighbour count beyond N", name);
        for (uint32_t k = 0; k < na; k++)
            a[k] = s->cur.id[a[k]];
        for (uint32_t k = 0; k < nb; k++)
            b[k] = s->cur.id[b[k]];
        qsort(a, na, sizeof(uint32_t), cmp_u32);
        qsort(b, nb, sizeof(uint32_t), cmp_u32);
        if (na != nb || memcmp(a, b, na * sizeof(uint32_t)) != 0) {
            // Name the first id present in one set only, with both cells.
            uint32_t miss = UINT32_MAX, ka = 0, kb = 0;
            while (ka < na || kb < nb) {
                if (kb >= nb || (ka < na && a[ka] < b[kb])) {
                    miss = a[ka];
                    break;
                }
                if (ka >= na || b[kb] < a[ka]) {
                    miss = b[kb];
                    break;
                }
                ka++;
                kb++;
            }
            uint32_t js = 0;
            for (uint32_t j = 0; j < n; j++)
                if (s->cur.id[j] == miss)
                    js = j;
            const float *p = s->cur.pos[i], *q = s->cur.pos[js];
            float d[3];
            boids_world_delta(&s->p.world, p, q, d);
            ck_abort_msg("%s: agent id %u at (%.9g, %.9g, %.9g) cell %u: grid found %u neighbours, brute force %u "
                         "(expected equal sets); first difference id %u at (%.9g, %.9g, %.9g) cell %u, |d| = %.9g, "
                         "radius %g",
                         name, s->cur.id[i], (double)p[0], (double)p[1], (double)p[2],
                         boids_grid_cell_of(&s->p.world, p), na, nb, miss, (double)q[0], (double)q[1], (double)q[2],
                         boids_grid_cell_of(&s->p.world, q),
                         sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]), (double)radius);
        }
        total += nb;
    }
    free(a);
    free(b);
    (void)total;
}

// The steer stage's neighbour count (same 3x3(x3) walk, d = sqrt(d2) < r)
// equals the brute-force count, except for pairs whose squared distance is
// within a few ULP of r^2 (DESIGN.md: reported separately, not failed).
static void check_steer_counts(boids_sim *s, const char *name) {
    boids_sim_steer(s);
    const boids_world_params *w = &s->p.world;
    float r = s->p.group[0].radius, r2 = r * r;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t strict = 0, edge = 0;
        for (uint32_t j = 0; j < s->n; j++) {
            if (j == i)
                continue;
            float d[3];
            boids_world_delta(w, s->cur.pos[i], s->cur.pos[j], d);
            float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (d2 > 0.0f && d2 < r2)
                strict++;
            if (fabsf(d2 - r2) <= 4.0f * r2 * 1.1920929e-7f)
                edge++;
        }
        uint32_t got = s->neighbors[i];
        uint32_t diff = got > strict ? got - strict : strict - got;
        EXPECT(diff <= edge,
               "%s: steer counted %u neighbours of id %u, brute force %u (%u pairs within 4 ULP of r^2 may "
               "differ)",
               name, got, s->cur.id[i], strict, edge);
    }
}

// Counting-sort invariants (DESIGN.md steps 2-4): sum(count) == N, start is
// the exclusive scan with start[cells] == N, each slot lies in the range of
// the cell of its own position (so a cell's agents are contiguous), and
// the ids are a permutation of 0..N-1.
static void check_sort(boids_sim *s, const char *name) {
    const boids_grid *g = &s->grid;
    uint32_t n = s->n, cells = s->p.world.cells[3];
    EXPECT(g->cells == cells, "%s: grid.cells %u, expected world.cells[3] %u", name, g->cells, cells);
    EXPECT(cells == s->p.world.cells[0] * s->p.world.cells[1] * s->p.world.cells[2], "%s: cells[3] %u != cells x*y*z",
           name, cells);
    uint64_t sum = 0;
    for (uint32_t c = 0; c < cells; c++) {
        EXPECT(g->start[c] == sum, "%s: start[%u] = %u, expected the exclusive scan %llu", name, c, g->start[c],
               (unsigned long long)sum);
        sum += g->count[c];
    }
    EXPECT(sum == n, "%s: sum(count) = %llu, expected N = %u", name, (unsigned long long)sum, n);
    EXPECT(g->start[cells] == n, "%s: start[cells] = %u, expected N = %u", name, g->start[cells], n);
    uint32_t cell = 0;
    for (uint32_t i = 0; i < n; i++) {
        while (g->start[cell + 1] <= i)
            cell++;
        uint32_t k = boids_grid_cell_of(&s->p.world, s->cur.pos[i]);
        EXPECT(k == cell, "%s: slot %u (id %u) lies in the range of cell %u but its position is in cell %u", name, i,
               s->cur.id[i], cell, k);
        EXPECT(k < cells, "%s: cell %u out of range (%u cells)", name, k, cells);
    }
    uint8_t *seen = calloc(n ? n : 1, 1);
    EXPECT(seen, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        EXPECT(s->cur.id[i] < n && !seen[s->cur.id[i]], "%s: id %u repeated or out of 0..%u", name, s->cur.id[i],
               n - 1);
        seen[s->cur.id[i]] = 1;
    }
    free(seen);
    // The keys of the last build are those of the slots before the scatter;
    // rebuilding an already sorted state is the identity (the counting sort
    // is stable), and then key[i] is the cell of slot i.
    uint32_t *ids = malloc(sizeof(uint32_t) * (n ? n : 1));
    EXPECT(ids, "out of memory");
    memcpy(ids, s->cur.id, sizeof(uint32_t) * n);
    boids_sim_build_grid(s);
    for (uint32_t i = 0; i < n; i++) {
        EXPECT(s->cur.id[i] == ids[i],
               "%s: rebuilding a sorted grid moved slot %u (id %u -> %u); the "
               "counting sort must be stable",
               name, i, ids[i], s->cur.id[i]);
        uint32_t k = boids_grid_cell_of(&s->p.world, s->cur.pos[i]);
        EXPECT(g->key[i] == k, "%s: key[%u] = %u, expected boids_grid_cell_of = %u", name, i, g->key[i], k);
        EXPECT(i == 0 || g->key[i - 1] <= g->key[i], "%s: keys not ascending at slot %u", name, i);
    }
    free(ids);
}

static void check_all(boids_sim *s, const char *name) {
    check_sort(s, name);
    float r = s->p.group[0].radius;
    check_neighbors(s, r, name);
    check_neighbors(s, 0.37f * r, name); // any radius <= the cell works
    check_steer_counts(s, name);
}

// One step of the pipeline, then the same checks (the state is now in the
// previous step's cell order, not id order).
static void check_after_steps(boids_sim *s, int steps, const char *name) {
    for (int k = 0; k < steps; k++)
        boids_sim_step(s);
    boids_sim_build_grid(s);
    check_all(s, name);
}

static const float ORIGIN[3] = {0.0f, 0.0f, 0.0f};
static const char *const BOUNDARY_NAME[3] = {"wrap", "walls", "bounce"};

// ---- layouts -----------------------------------------------------------------

START_TEST(uniform_2d_3d) {
    // Uniform layout of boids_sim_create in the default (auto-sized) worlds,
    // every boundary mode, 2D and 3D, several seeds.
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b++)
            for (uint32_t seed = 1 + b; seed <= 1 + b; seed++) {
                boids_params p;
                boids_params_default(&p, 1000, dim);
                p.world.boundary = b;
                p.world.seed_lo = seed;
                char name[96];
                snprintf(name, sizeof(name), "uniform %uD %s seed %u", dim, BOUNDARY_NAME[b], seed);
                boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
                check_all(s, name);
                check_after_steps(s, 3, name);
                boids_sim_destroy(s);
            }
}
END_TEST

START_TEST(clustered) {
    // BOIDS_DIST_CLUSTERED: dense clumps, many agents per cell.
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b += 2) {
            boids_params p;
            boids_params_default(&p, 1500, dim);
            p.world.boundary = b;
            p.world.seed_lo = 7;
            char name[96];
            snprintf(name, sizeof(name), "clustered %uD %s", dim, BOUNDARY_NAME[b]);
            boids_sim *s = create(&p, BOIDS_DIST_CLUSTERED);
            uint32_t mx = 0;
            for (uint32_t c = 0; c < s->grid.cells; c++)
                mx = s->grid.count[c] > mx ? s->grid.count[c] : mx;
            EXPECT(mx > 3u * (s->n / s->grid.cells + 1), "%s: the clustered layout should crowd cells (max %u)", name,
                   mx);
            check_all(s, name);
            check_after_steps(s, 2, name);
            boids_sim_destroy(s);
        }
}
END_TEST

START_TEST(all_in_one_cell) {
    // Every agent in one cell (the bin lattice's worst case); the cell is in
    // a corner of the world so that its wrapped neighbours are across seams.
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
                    pos[i][a] = 450.0f + 49.99f * lcg_unit(&st); // cell 9 of 10 on each axis
            place(s, pos, 5);
            char name[96];
            snprintf(name, sizeof(name), "one cell %uD %s", dim, BOUNDARY_NAME[b]);
            uint32_t last = s->grid.cells - 1;
            EXPECT(s->grid.count[last] == s->n, "%s: all %u agents expected in the last cell, found %u", name, s->n,
                   s->grid.count[last]);
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
    snprintf(name, sizeof(name), "%s %uD %s min (%g,%g,%g) size (%g,%g,%g) r %g cells %ux%ux%u", what, dim,
             BOUNDARY_NAME[b], (double)min[0], (double)min[1], (double)min[2], (double)size[0], (double)size[1],
             (double)size[2], (double)r, w->cells[0], w->cells[1], w->cells[2]);
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t a = 0; a < dim; a++) {
            float x = s->cur.pos[i][a], lo = w->min[a], hi = w->min[a] + w->size[a];
            if (b == BOIDS_BOUNDARY_WRAP)
                EXPECT(x >= lo && x < hi, "%s: set_agents left %g outside [%g, %g)", name, (double)x, (double)lo,
                       (double)hi);
            else
                EXPECT(x >= lo && x <= hi, "%s: set_agents left %g outside [%g, %g]", name, (double)x, (double)lo,
                       (double)hi);
        }
    check_all(s, name);
    free(pos);
    boids_sim_destroy(s);
}

START_TEST(seams_and_corners) {
    // Cell size == radius exactly (1000 / 50 = 20 cells) is the tight case.
    float size2[3] = {1000.0f, 1000.0f, 0.0f}, size3[3] = {400.0f, 400.0f, 400.0f};
    for (uint32_t b = 0; b < 3; b++) {
        seam_world(2, b, ORIGIN, size2, 50.0f, 2000, "seams");
        seam_world(3, b, ORIGIN, size3, 50.0f, 2000, "seams");
    }
}
END_TEST

START_TEST(negative_origin) {
    // World corners below zero: keys must never go through a negative % or a
    // negative float -> unsigned conversion (DESIGN.md step 1).
    float min2[3] = {-1000.0f, -1000.0f, 0.0f}, size2[3] = {2000.0f, 2000.0f, 0.0f};
    float min3[3] = {-1000.0f, -250.0f, -333.25f}, size3[3] = {600.0f, 500.0f, 450.0f};
    float minf[3] = {-1234.5f, -77.125f, 0.0f}, sizef[3] = {987.6f, 411.3f, 0.0f};
    for (uint32_t b = 0; b < 3; b++) {
        seam_world(2, b, min2, size2, 50.0f, 1500, "negative origin");
        seam_world(3, b, min3, size3, 50.0f, 1500, "negative origin");
        seam_world(2, b, minf, sizef, 50.0f, 1500, "negative origin, odd size");
    }
    // And the uniform layout with a negative origin, stepped.
    boids_params p;
    world_params(&p, 1500, 2, BOIDS_BOUNDARY_WRAP, min2, size2, 50.0f);
    boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
    check_all(s, "negative origin uniform");
    check_after_steps(s, 5, "negative origin uniform, 5 steps");
    boids_sim_destroy(s);
}
END_TEST

START_TEST(sizes_not_multiple_of_cell) {
    // 537 / 50: 10 cells of 53.7; 3D 263 / 40: 6 cells of 43.83.
    float size2[3] = {537.0f, 321.7f, 0.0f}, size3[3] = {263.0f, 199.9f, 171.1f};
    for (uint32_t b = 0; b < 3; b++) {
        seam_world(2, b, ORIGIN, size2, 50.0f, 1200, "odd size");
        seam_world(3, b, ORIGIN, size3, 40.0f, 1200, "odd size");
    }
}
END_TEST

START_TEST(few_cells_per_axis) {
    // 1 cell (walls / bounce only: a torus needs radius <= half the extent),
    // 2 and 3 cells (wrapped: every cell is a neighbour cell, each visited
    // once), 4 cells (wrapped: the 3 neighbour cells are distinct).
    const float extents[] = {70.0f, 100.0f, 149.0f, 150.0f, 199.0f, 200.0f};
    const size_t ne = sizeof(extents) / sizeof(extents[0]);
    for (uint32_t b = 0; b < 3; b++)
        for (size_t e = 0; e < ne; e++)
            for (uint32_t dim = 2; dim <= 3; dim++) {
                float x = extents[e];
                if (b == BOIDS_BOUNDARY_WRAP && x < 100.0f)
                    continue;
                // Mixed: the other axes have a different cell count (y: 2 cells
                // ahead in the list; z: 2 cells on a torus, else 1).
                float y = extents[(e + 2) % ne];
                float size[3] = {x, b == BOIDS_BOUNDARY_WRAP && y < 100.0f ? 100.0f : y,
                                 dim == 3 ? (b == BOIDS_BOUNDARY_WRAP ? 120.0f : 60.0f) : 0.0f};
                seam_world(dim, b, ORIGIN, size, 50.0f, 300, "few cells");
                boids_params p;
                world_params(&p, 200, dim, b, ORIGIN, size, 50.0f);
                boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
                uint32_t want = (uint32_t)floorf(x / 50.0f);
                EXPECT(s->p.world.cells[0] == (want ? want : 1),
                       "extent %g, radius 50: expected floor(extent / radius) = %u cells on x, got %u", (double)x,
                       want ? want : 1, s->p.world.cells[0]);
                check_all(s, "few cells uniform");
                check_after_steps(s, 2, "few cells uniform, stepped");
                boids_sim_destroy(s);
            }
}
END_TEST

START_TEST(tiny_counts) {
    // N = 0 and 1 (and 2 coincident agents: d = 0 is not a neighbour).
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b++)
            for (uint32_t n = 0; n <= 2; n++) {
                boids_params p;
                boids_params_default(&p, n, dim);
                p.world.boundary = b;
                boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
                char name[64];
                snprintf(name, sizeof(name), "N = %u %uD %s", n, dim, BOUNDARY_NAME[b]);
                check_all(s, name);
                check_after_steps(s, 3, name);
                if (n == 2) {
                    float pos[2][4] = {{10, 20, 30, 0}, {10, 20, 30, 0}};
                    place(s, pos, 1);
                    uint32_t out[2];
                    EXPECT(boids_grid_neighbors(s, 0, 50.0f, out, 2) == 0,
                           "%s: coincident agents are not neighbours (chapter: d > 0)", name);
                    check_all(s, name);
                }
                boids_sim_destroy(s);
            }
}
END_TEST

START_TEST(cell_of_by_hand) {
    // boids_grid_cell_of against hand-computed keys: world min (-100, -50),
    // size 500 x 300, radius 50: 10 x 6 cells of exactly 50.
    boids_params p;
    float min[3] = {-100.0f, -50.0f, 0.0f}, size[3] = {500.0f, 300.0f, 0.0f};
    for (uint32_t b = 0; b < 3; b++) {
        world_params(&p, 0, 2, b, min, size, 50.0f);
        char what[128];
        EXPECT(boids_params_finalize(&p, what, sizeof(what)) == BOIDS_OK,
               "min (-100,-50), 500 x 300, radius 50 is a valid world: %s", what);
        const boids_world_params *w = &p.world;
        EXPECT(w->cells[0] == 10 && w->cells[1] == 6 && w->cells[2] == 1 && w->cells[3] == 60,
               "expected 10 x 6 x 1 = 60 cells (500/50, 300/50), got %u x %u x %u = %u", w->cells[0], w->cells[1],
               w->cells[2], w->cells[3]);
        float p0[4] = {-100.0f, -50.0f, 0, 0}; // the corner: cell (0,0) = 0
        float p1[4] = {-49.0f, -50.0f, 0, 0};  // x: floor(51/50) = 1
        float p2[4] = {399.0f, 249.0f, 0, 0};  // last cell (9,5) = 5*10+9 = 59
        float p3[4] = {24.0f, 101.0f, 0, 0};   // (floor(124/50)=2, floor(151/50)=3) = 32
        EXPECT(boids_grid_cell_of(w, p0) == 0, "corner: cell 0, got %u", boids_grid_cell_of(w, p0));
        EXPECT(boids_grid_cell_of(w, p1) == 1, "x = -49: cell 1, got %u", boids_grid_cell_of(w, p1));
        EXPECT(boids_grid_cell_of(w, p2) == 59, "last cell 59, got %u", boids_grid_cell_of(w, p2));
        EXPECT(boids_grid_cell_of(w, p3) == 32, "(24,101): cell 3*10+2 = 32, got %u", boids_grid_cell_of(w, p3));
        // Outside the box: a torus wraps the cell, walls clamp it.
        float q0[4] = {-101.0f, -50.0f, 0, 0};           // one unit left of min x
        float q1[4] = {400.0f, 250.0f, 0, 0};            // exactly min + size
        float q2[4] = {-2600.0f, 260.0f, 0, 0};          // 50 cells left (-2600+100 = -2500), 1 row over
        uint32_t e0 = b == BOIDS_BOUNDARY_WRAP ? 9 : 0;  // wrap: -1 -> 9
        uint32_t e1 = b == BOIDS_BOUNDARY_WRAP ? 0 : 59; // wrap: (10,6) -> (0,0)
        uint32_t e2 = b == BOIDS_BOUNDARY_WRAP ? 0 * 10 + 0 : 5 * 10 + 0; // wrap: (-50 mod 10, 6 mod 6)
        EXPECT(boids_grid_cell_of(w, q0) == e0, "%s: x = min - 1: expected cell %u, got %u", BOUNDARY_NAME[b], e0,
               boids_grid_cell_of(w, q0));
        EXPECT(boids_grid_cell_of(w, q1) == e1, "%s: min + size: expected cell %u, got %u", BOUNDARY_NAME[b], e1,
               boids_grid_cell_of(w, q1));
        EXPECT(boids_grid_cell_of(w, q2) == e2, "%s: 50 cells left: expected cell %u, got %u", BOUNDARY_NAME[b], e2,
               boids_grid_cell_of(w, q2));
        float qn[4] = {NAN, 0.0f, 0, 0};
        EXPECT(boids_grid_cell_of(w, qn) < w->cells[3],
               "%s: a NaN coordinate must still give a cell in "
               "range, got %u",
               BOUNDARY_NAME[b], boids_grid_cell_of(w, qn));
    }
}
END_TEST

START_TEST(counting_sort) {
    // Invariants over seeds and the counts 0, 1, workgroup-1, workgroup+1 and
    // a large one, 2D and 3D, after creation and after steps.
    const uint32_t counts[] = {0, 1, BOIDS_WORKGROUP_SIZE - 1, BOIDS_WORKGROUP_SIZE + 1, 20000};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
        for (uint32_t dim = 2; dim <= 3; dim++)
            for (uint32_t seed = 1; seed <= (counts[c] > 1000 ? 1u : 3u); seed++) {
                boids_params p;
                boids_params_default(&p, counts[c], dim);
                p.world.seed_lo = seed;
                p.world.seed_hi = seed * 17u;
                p.world.boundary = seed - 1; // wrap, walls, bounce
                boids_sim *s = create(&p, seed == 2 ? BOIDS_DIST_CLUSTERED : BOIDS_DIST_UNIFORM);
                char name[96];
                snprintf(name, sizeof(name), "sort N %u %uD seed %u", counts[c], dim, seed);
                check_sort(s, name);
                boids_sim_step(s);
                boids_sim_step(s);
                // After the steps cur is in the previous cell order: sort it again.
                boids_sim_build_grid(s);
                check_sort(s, name);
                if (counts[c] <= 300) {
                    check_neighbors(s, s->p.group[0].radius, name);
                }
                boids_sim_destroy(s);
            }
}
END_TEST

START_TEST(large_world_many_agents) {
    // 20000 agents, 2D torus at the default density (~20 neighbours):
    // grid == brute force for a sample of agents (the brute force is
    // O(N) per agent), and the pair count the steer stage examined is far
    // below N^2 (the point of the bin lattice).
    boids_params p;
    boids_params_default(&p, 20000, 2);
    boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
    uint32_t *a = malloc(sizeof(uint32_t) * s->n), *b = malloc(sizeof(uint32_t) * s->n);
    float r = s->p.group[0].radius;
    for (uint32_t i = 0; i < s->n; i += 37) {
        uint32_t na = boids_grid_neighbors(s, i, r, a, s->n), nb = boids_brute_neighbors(s, i, r, b, s->n);
        for (uint32_t k = 0; k < na; k++)
            a[k] = s->cur.id[a[k]];
        for (uint32_t k = 0; k < nb; k++)
            b[k] = s->cur.id[b[k]];
        qsort(a, na, sizeof(uint32_t), cmp_u32);
        qsort(b, nb, sizeof(uint32_t), cmp_u32);
        EXPECT(na == nb && memcmp(a, b, na * sizeof(uint32_t)) == 0,
               "slot %u: grid %u neighbours vs brute force %u (expected the same set)", i, na, nb);
    }
    boids_sim_step(s);
    boids_stats st;
    boids_sim_stats(s, &st);
    EXPECT(st.candidate_pairs < (uint64_t)s->n * s->n / 50,
           "candidate pairs %llu: the 3x3 cells should examine << N^2 = %llu pairs",
           (unsigned long long)st.candidate_pairs, (unsigned long long)s->n * s->n);
    // ~20 expected neighbours (boids_params_default sizes the world for 20).
    EXPECT(st.mean_neighbors > 15.0 && st.mean_neighbors < 25.0,
           "mean neighbours %g, expected about 20 (world sized by boids_params_auto_world)", st.mean_neighbors);
    free(a);
    free(b);
    boids_sim_destroy(s);
}
END_TEST

static Suite *grid_suite(void) {
    Suite *s = suite_create("grid");
    TCase *nb = tcase_create("neighbors");
    tcase_set_timeout(nb, 300);
    tcase_add_test(nb, uniform_2d_3d);
    tcase_add_test(nb, clustered);
    tcase_add_test(nb, all_in_one_cell);
    tcase_add_test(nb, seams_and_corners);
    tcase_add_test(nb, negative_origin);
    tcase_add_test(nb, sizes_not_multiple_of_cell);
    tcase_add_test(nb, few_cells_per_axis);
    tcase_add_test(nb, tiny_counts);
    tcase_add_test(nb, large_world_many_agents);
    suite_add_tcase(s, nb);
    TCase *key = tcase_create("key");
    tcase_set_timeout(key, 60);
    tcase_add_test(key, cell_of_by_hand);
    suite_add_tcase(s, key);
    TCase *sort = tcase_create("counting_sort");
    tcase_set_timeout(sort, 300);
    tcase_add_test(sort, counting_sort);
    suite_add_tcase(s, sort);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(grid_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
