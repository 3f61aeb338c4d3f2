// tests/test_grid_fine.c: the finer grid (world.grid_fine, --grid-fine,
// [world] grid_fine: flocks that crowd) on the CPU reference:
// finalize's cells (n = floor(extent M / reach), capped, M = 1 today's grid)
// and its refusals; the grid's neighbours equal brute force for every M (2D,
// 3D, wrap, walls, bounce, a torus of few cells); the state-hash does not
// move with M; the K-nearest gather's early stop (rings of the block) gives
// the full scan's bits for K = 1, 7, 32 and M = 1..4 on clustered starts
// while reading fewer candidates; auto picks M from the density (and again
// mid-run) without moving a bit; snapshots and the scenario writer keep M
// (M = 1 byte-identical to a world without the option). The GPU kernels'
// twins: tests/test_kernels.c (same_bits_grid_fine, early_stop_gpu).
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/engine.h"
#include "boids/parse.h"
#include "boids/scenario.h"

#define TMP BOIDS_TEST_TMP

// Default params of n agents in dim, boundary b, finalized with factor word w.
static boids_params params_with(uint32_t n, uint32_t dim, uint32_t b, uint32_t word) {
    boids_params p;
    boids_params_default(&p, n, dim);
    p.world.boundary = b;
    p.world.grid_fine = word;
    char what[256] = "";
    ck_assert_msg(boids_params_finalize(&p, what, sizeof what) == BOIDS_OK, "finalize: %s", what);
    return p;
}

// finalize: n = floor(extent M / reach) per axis (capped at 4096 / 256), so
// cells of at least reach / M; M = 1 (and 0, and 1 given) is today's grid.
START_TEST(finalize_cells) {
    for (uint32_t dim = 2; dim <= 3; dim++) {
        boids_params base = params_with(5000, dim, BOIDS_BOUNDARY_WRAP, 0);
        boids_params one = params_with(5000, dim, BOIDS_BOUNDARY_WRAP, 1);
        ck_assert_msg(memcmp(&base.world, &one.world, sizeof base.world) == 0, "M = 1 is the world without it");
        ck_assert_uint_eq(one.world.grid_fine, 0u); // canonical: M = 1 alone is 0
        float reach = base.world.max_radius;
        for (uint32_t m = 1; m <= BOIDS_GRID_FINE_MAX; m++) {
            boids_params p = params_with(5000, dim, BOIDS_BOUNDARY_WRAP, m);
            ck_assert_uint_eq(boids_world_grid_fine(&p.world), m);
            for (uint32_t a = 0; a < dim; a++) {
                double want = floor((double)p.world.size[a] * m / reach);
                ck_assert_msg(p.world.cells[a] == (uint32_t)want,
                              "M %u axis %u: %u cells, expected floor(%g * %u / %g)", m, a, p.world.cells[a],
                              (double)p.world.size[a], m, (double)reach);
                ck_assert_msg((double)p.world.cell[a] * m >= (double)reach * (1.0 - 1e-6), "M cells cover the reach");
            }
        }
    }
    // The cap: a huge 2D world keeps 4096 cells per axis at every M.
    boids_params p;
    boids_params_default(&p, 100, 2);
    p.world.size[0] = p.world.size[1] = 1e6f;
    p.world.grid_fine = 4;
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
    ck_assert_uint_eq(p.world.cells[0], 4096u);
    ck_assert_uint_eq(p.world.cells[3], 4096u * 4096u);
}
END_TEST

// Bad words, and the heading rules' survey with an explicit M > 1.
START_TEST(finalize_refuses) {
    const uint32_t bad[] = {5, 0xFF, 0x200, BOIDS_GRID_FINE_AUTO | 5, 0x80000000u};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        boids_params p;
        boids_params_default(&p, 100, 2);
        p.world.grid_fine = bad[k];
        char what[256] = "";
        ck_assert_int_eq(boids_params_finalize(&p, what, sizeof what), BOIDS_ERR_PARAM);
        ck_assert_msg(strstr(what, "grid fine factor") && strstr(what, "1..4, or auto"), "%s", what);
    }
    boids_params p;
    boids_params_default(&p, 100, 2);
    p.group[0].rules = BOIDS_RULES_HEADING;
    p.group[0].behaviors = BOIDS_B_FLOCKING;
    ck_assert(boids_params_survey(&p));
    p.world.grid_fine = 2;
    char what[256] = "";
    ck_assert_int_eq(boids_params_finalize(&p, what, sizeof what), BOIDS_ERR_PARAM);
    ck_assert_msg(strstr(what, "survey"), "%s", what);
    p.world.grid_fine = BOIDS_GRID_FINE_AUTO | 3; // auto: kept at 1
    ck_assert_int_eq(boids_params_finalize(&p, what, sizeof what), BOIDS_OK);
    ck_assert_uint_eq(boids_world_grid_fine(&p.world), 1u);
    ck_assert_uint_eq(p.world.grid_fine, BOIDS_GRID_FINE_AUTO);
    ck_assert_uint_eq(boids_grid_fine_choose(&p, 1000.0), 1u);
}
END_TEST

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

// The grid's neighbours of every agent are brute force's, for every M:
// _i picks the world (2D/3D x wrap/walls/bounce, uniform/clustered, and a
// torus of 2 cells at M = 1, 2M or fewer beyond).
START_TEST(neighbors_every_m) {
    uint32_t dim = 2 + (uint32_t)(_i % 2);
    uint32_t boundary = (uint32_t)(_i / 2) % 3;
    bool small = _i >= 6;
    for (uint32_t m = 1; m <= BOIDS_GRID_FINE_MAX; m++) {
        boids_params p;
        boids_params_default(&p, 700, dim);
        p.world.boundary = boundary;
        p.world.grid_fine = m;
        if (small) // 2.2 reaches a side: 2 cells at M = 1, 8 (<= 2M + 1) at M = 4
            for (uint32_t a = 0; a < dim; a++)
                p.world.size[a] = 2.2f * boids_params_reach(&p);
        boids_sim *s = NULL;
        ck_assert_int_eq(boids_sim_create(&s, &p, _i % 4 < 2 ? BOIDS_DIST_CLUSTERED : BOIDS_DIST_UNIFORM), BOIDS_OK);
        s->threads = 1;
        boids_sim_build_grid(s);
        uint32_t *a = malloc(s->n * 4), *b = malloc(s->n * 4);
        float r = s->p.world.max_radius;
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t na = boids_grid_neighbors(s, i, r, a, s->n), nb = boids_brute_neighbors(s, i, r, b, s->n);
            ck_assert_msg(na == nb, "world %d, M %u, slot %u: %u neighbours through the grid, %u by brute force", _i, m,
                          i, na, nb);
            qsort(a, na, 4, cmp_u32);
            qsort(b, nb, 4, cmp_u32);
            ck_assert_msg(memcmp(a, b, (size_t)na * 4) == 0, "world %d, M %u, slot %u: other neighbours", _i, m, i);
        }
        free(a);
        free(b);
        boids_sim_destroy(s);
    }
}
END_TEST

// A CPU engine of p (distribution dist) after `steps` steps: its hash, the
// candidates of the last step, its cells and M.
typedef struct outcome {
    uint64_t hash, candidates;
    uint32_t cells, fine;
} outcome;

static outcome run(const boids_params *p, boids_distribution dist, uint64_t steps) {
    boids_engine_desc d = {.params = p, .distribution = dist, .threads = 2};
    boids_engine *e = NULL;
    char err[1024];
    ck_assert_msg(boids_engine_create(&e, &d, err, sizeof err) == BOIDS_OK, "%s", err);
    ck_assert_int_eq(boids_engine_step(e, steps, NULL), BOIDS_OK);
    boids_stats st;
    ck_assert_int_eq(boids_engine_stats(e, &st), BOIDS_OK);
    outcome o = {.hash = boids_engine_hash(e),
                 .candidates = st.candidate_pairs,
                 .cells = boids_engine_cells(e),
                 .fine = boids_engine_grid_fine(e)};
    boids_engine_destroy(e);
    return o;
}

// The state-hash is the same for every M: 2D / 3D, wrap / walls, every
// behaviour but the named ones, a torus of few cells, clustered.
START_TEST(hash_every_m) {
    uint32_t dim = 2 + (uint32_t)(_i % 2);
    boids_params p;
    boids_params_default(&p, 1500, dim);
    boids_distribution dist = BOIDS_DIST_UNIFORM;
    switch (_i / 2) {
    case 0:
        break;
    case 1:
        p.world.boundary = BOIDS_BOUNDARY_WALLS;
        break;
    case 2:
        for (uint32_t a = 0; a < dim; a++)
            p.world.size[a] = 2.5f * boids_params_reach(&p);
        break;
    case 3:
        dist = BOIDS_DIST_CLUSTERED;
        break;
    default:
        p.world.boundary = BOIDS_BOUNDARY_BOUNCE;
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            p.group[g].behaviors |= BOIDS_BIT(BOIDS_BI_WANDER) | BOIDS_BIT(BOIDS_BI_VIEW) | BOIDS_BIT(BOIDS_BI_SEEK);
    }
    outcome ref = run(&p, dist, 8);
    for (uint32_t m = 2; m <= BOIDS_GRID_FINE_MAX; m++) {
        p.world.grid_fine = m;
        outcome o = run(&p, dist, 8);
        ck_assert_msg(o.hash == ref.hash, "case %d, M %u: state-hash %016llx, at M = 1 %016llx", _i, m,
                      (unsigned long long)o.hash, (unsigned long long)ref.hash);
        ck_assert_uint_eq(o.fine, m);
        ck_assert_msg(o.cells > ref.cells, "case %d, M %u: %u cells, at M = 1 %u (the grid is finer)", _i, m, o.cells,
                      ref.cells);
    }
}
END_TEST

// With K set, the ring-by-ring gather stops early: the same bits as the
// full scan (M = 1, where the bound after ring 0 is 0) for K = 1, 7, 32
// and M = 2..4 on clustered starts, 2D and 3D, wrap and walls; and at M = 4
// it reads fewer candidates than the whole block (the K = 0 run's count).
START_TEST(early_stop) {
    static const uint32_t ks[] = {1, 7, 32};
    uint32_t dim = 2 + (uint32_t)(_i % 2);
    for (size_t kk = 0; kk < 3; kk++) {
        boids_params p;
        boids_params_default(&p, 4000, dim);
        p.world.boundary = _i >= 2 ? BOIDS_BOUNDARY_WALLS : BOIDS_BOUNDARY_WRAP;
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            p.group[g].neighbors_max = ks[kk];
        outcome full = run(&p, BOIDS_DIST_CLUSTERED, 5);
        for (uint32_t m = 2; m <= BOIDS_GRID_FINE_MAX; m++) {
            p.world.grid_fine = m;
            outcome o = run(&p, BOIDS_DIST_CLUSTERED, 5);
            ck_assert_msg(o.hash == full.hash, "%uD K %u M %u: state-hash %016llx, full scan %016llx", dim, ks[kk], m,
                          (unsigned long long)o.hash, (unsigned long long)full.hash);
        }
        // The first step starts from the same state for K and K = 0: the
        // candidates the K gather read against the whole block's.
        p.world.grid_fine = BOIDS_GRID_FINE_MAX;
        outcome k1 = run(&p, BOIDS_DIST_CLUSTERED, 1);
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            p.group[g].neighbors_max = 0;
        outcome all = run(&p, BOIDS_DIST_CLUSTERED, 1);
        ck_assert_msg(k1.candidates < all.candidates, "%uD K %u M 4: %llu candidates read, the whole block %llu", dim,
                      ks[kk], (unsigned long long)k1.candidates, (unsigned long long)all.candidates);
    }
}
END_TEST

// auto: a clustered flock with K picks a finer grid, a uniform one without
// K today's; the bits are M = 1's; a change of density mid-run (the agents
// replaced by a tight cluster) is followed within BOIDS_ENGINE_FINE_EVERY steps.
START_TEST(auto_picks) {
    boids_params p;
    boids_params_default(&p, 20000, 2);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        p.group[g].neighbors_max = 7;
    outcome one = run(&p, BOIDS_DIST_CLUSTERED, 3);
    p.world.grid_fine = BOIDS_GRID_FINE_AUTO;
    outcome au = run(&p, BOIDS_DIST_CLUSTERED, 3);
    ck_assert_msg(au.fine > 1, "clustered, K 7: auto kept M = %u", au.fine);
    ck_assert_uint_eq(au.hash, one.hash);
    boids_params u;
    boids_params_default(&u, 20000, 2);
    u.world.grid_fine = BOIDS_GRID_FINE_AUTO;
    ck_assert_uint_eq(run(&u, BOIDS_DIST_UNIFORM, 1).fine, 1u);

    // Mid-run: uniform (M = 1) at create, then every agent within a few radii.
    boids_engine_desc d = {.params = &p, .threads = 2};
    boids_engine *e = NULL, *f = NULL;
    ck_assert_int_eq(boids_engine_create(&e, &d, NULL, 0), BOIDS_OK);
    p.world.grid_fine = 0;
    ck_assert_int_eq(boids_engine_create(&f, &d, NULL, 0), BOIDS_OK);
    ck_assert_uint_eq(boids_engine_grid_fine(e), 1u);
    uint32_t n = boids_engine_count(e);
    float(*pos)[4] = malloc((size_t)n * 16), (*vel)[4] = malloc((size_t)n * 16);
    uint32_t *grp = malloc((size_t)n * 4);
    ck_assert_int_eq(boids_engine_read(e, pos, vel, grp), BOIDS_OK);
    const boids_world_params *w = &boids_engine_params(e)->world;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t a = 0; a < 2; a++)
            pos[i][a] = w->min[a] + 0.5f * w->size[a] +
                        4.0f * w->max_radius * ((float)((i * 7919u + a * 104729u) % 1000u) / 1000.0f - 0.5f);
    // Made with those agents, auto measures them (not the ones create drew first).
    boids_params pa = p;
    pa.world.grid_fine = BOIDS_GRID_FINE_AUTO;
    boids_engine_desc dc = {
        .params = &pa, .threads = 2, .pos = (const float(*)[4])pos, .vel = (const float(*)[4])vel, .group = grp};
    boids_engine *c = NULL;
    ck_assert_int_eq(boids_engine_create(&c, &dc, NULL, 0), BOIDS_OK);
    ck_assert_msg(boids_engine_grid_fine(c) > 1, "auto on a cluster given at create: M = %u",
                  boids_engine_grid_fine(c));
    boids_engine_destroy(c);
    ck_assert_int_eq(boids_engine_set_agents(e, (const float(*)[4])pos, (const float(*)[4])vel, grp), BOIDS_OK);
    ck_assert_int_eq(boids_engine_set_agents(f, (const float(*)[4])pos, (const float(*)[4])vel, grp), BOIDS_OK);
    // Saved now (auto, still M = 1) and loaded: the loaded engine measures the
    // saved cluster at once.
    ck_assert_uint_eq(boids_engine_grid_fine(e), 1u);
    ck_assert_int_eq(boids_engine_save(e, TMP "/grid-fine-auto.boids", NULL, 0), BOIDS_OK);
    boids_engine *l = NULL;
    ck_assert_int_eq(boids_engine_load(&l, TMP "/grid-fine-auto.boids", NULL, NULL, 0), BOIDS_OK);
    ck_assert_msg(boids_engine_grid_fine(l) > 1, "auto on a loaded cluster: M = %u", boids_engine_grid_fine(l));
    boids_engine_destroy(l);
    remove(TMP "/grid-fine-auto.boids");
    ck_assert_int_eq(boids_engine_step(e, BOIDS_ENGINE_FINE_EVERY, NULL), BOIDS_OK);
    ck_assert_int_eq(boids_engine_step(f, BOIDS_ENGINE_FINE_EVERY, NULL), BOIDS_OK);
    ck_assert_msg(boids_engine_grid_fine(e) > 1, "auto after the cluster: M = %u", boids_engine_grid_fine(e));
    ck_assert_uint_eq(boids_engine_hash(e), boids_engine_hash(f));
    ck_assert_int_eq(boids_engine_step(e, 5, NULL), BOIDS_OK); // the new grid steps on
    ck_assert_int_eq(boids_engine_step(f, 5, NULL), BOIDS_OK);
    ck_assert_uint_eq(boids_engine_hash(e), boids_engine_hash(f));
    // The engine's own params (new cells) go back in, and so do the caller's older ones.
    ck_assert_int_eq(boids_engine_set_params(e, boids_engine_params(e), NULL, 0), BOIDS_OK);
    boids_params old = p;
    old.world.grid_fine = BOIDS_GRID_FINE_AUTO;
    ck_assert_int_eq(boids_params_finalize(&old, NULL, 0), BOIDS_OK);
    ck_assert_int_eq(boids_engine_set_params(e, &old, NULL, 0), BOIDS_OK);
    free(pos);
    free(vel);
    free(grp);
    boids_engine_destroy(e);
    boids_engine_destroy(f);
}
END_TEST

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

// Snapshots: M = 1 given is byte for byte the snapshot without it; M = 3 and
// auto are kept, and the loaded run continues with the same bits.
START_TEST(snapshot_keeps_m) {
    const uint32_t words[] = {0, 1, 3, BOIDS_GRID_FINE_AUTO};
    char path[4][256];
    for (int k = 0; k < 4; k++) {
        boids_params p;
        boids_params_default(&p, 800, 2);
        p.world.grid_fine = words[k];
        boids_engine_desc d = {.params = &p, .threads = 1};
        boids_engine *e = NULL;
        char err[1024];
        ck_assert_int_eq(boids_engine_create(&e, &d, err, sizeof err), BOIDS_OK);
        ck_assert_int_eq(boids_engine_step(e, 3, NULL), BOIDS_OK);
        snprintf(path[k], sizeof path[k], TMP "/grid-fine-%d.boids", k);
        ck_assert_msg(boids_engine_save(e, path[k], err, sizeof err) == BOIDS_OK, "%s", err);
        ck_assert_int_eq(boids_engine_step(e, 4, NULL), BOIDS_OK);
        uint64_t want = boids_engine_hash(e);
        boids_engine_destroy(e);
        boids_engine *l = NULL;
        ck_assert_msg(boids_engine_load(&l, path[k], NULL, err, sizeof err) == BOIDS_OK, "%s", err);
        ck_assert_uint_eq(boids_engine_params(l)->world.grid_fine, words[k] == 1 ? 0u : words[k]);
        ck_assert_int_eq(boids_engine_step(l, 4, NULL), BOIDS_OK);
        ck_assert_uint_eq(boids_engine_hash(l), want);
        boids_engine_destroy(l);
    }
    size_t n0, n1;
    unsigned char *a = slurp(path[0], &n0), *b = slurp(path[1], &n1);
    ck_assert_msg(n0 == n1 && memcmp(a, b, n0) == 0, "--grid-fine 1 writes the snapshot of today's grid");
    free(a);
    free(b);
    for (int k = 0; k < 4; k++)
        remove(path[k]);
}
END_TEST

// The scenario writer: grid_fine = 3 / auto read, written and read back;
// today's grid writes no key.
START_TEST(scenario_round_trip) {
    const char *given[] = {"", "grid_fine = 3\n", "grid_fine = auto\n", "grid_fine = 1\n"};
    const uint32_t words[] = {0, 3, BOIDS_GRID_FINE_AUTO, 0};
    const char *texts[] = {NULL, "grid_fine = 3", "grid_fine = auto", NULL};
    for (int k = 0; k < 4; k++) {
        boids_scenario *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        char src[128], err[1024], *text = NULL;
        size_t len = 0;
        snprintf(src, sizeof src, "[world]\ncount = 300\n%s", given[k]);
        ck_assert_msg(boids_scenario_load_string(src, "fine.ini", a, err, sizeof err) == BOIDS_OK, "load: %s", err);
        ck_assert_uint_eq(a->params.world.grid_fine, words[k]);
        FILE *f = open_memstream(&text, &len);
        ck_assert(f && boids_scenario_write(a, f));
        fclose(f);
        if (texts[k])
            ck_assert_msg(strstr(text, texts[k]), "expected '%s' in the written scenario", texts[k]);
        else
            ck_assert_msg(!strstr(text, "grid_fine"), "today's grid writes no grid_fine");
        ck_assert_msg(boids_scenario_load_string(text, "written.ini", b, err, sizeof err) == BOIDS_OK, "reload: %s",
                      err);
        ck_assert_uint_eq(b->params.world.grid_fine, words[k]);
        free(text);
        free(a);
        free(b);
    }
    ck_assert_str_eq(boids_parse_grid_fine_text(BOIDS_GRID_FINE_AUTO | 4), "auto");
    ck_assert_str_eq(boids_parse_grid_fine_text(0), "1");
    ck_assert_uint_eq(boids_parse_grid_fine_word(0), 0u);
    ck_assert_uint_eq(boids_parse_grid_fine_word(2), 3u);
}
END_TEST

// The rule: occupancy from a grid's counts (sum count^2 / N, to reach^d),
// and the pick grows with the density and K (2D: 1 for the uniform ~6
// agents per reach cell, > 1 for a clustered 140 with K = 7).
START_TEST(choose_rule) {
    boids_params p = params_with(1000, 2, BOIDS_BOUNDARY_WRAP, 0);
    uint32_t cells = p.world.cells[3];
    uint32_t *start = calloc((size_t)cells + 1, 4);
    for (uint32_t c = 1; c <= cells; c++) // every agent in cell 0
        start[c] = 1000;
    double occ = boids_grid_occupancy(&p.world, start, 1000);
    double want = 1000.0 * p.world.max_radius * p.world.max_radius / (p.world.cell[0] * p.world.cell[1]);
    ck_assert_msg(fabs(occ - want) < 1e-9 * want, "occupancy %g, expected %g", occ, want);
    free(start);
    ck_assert_uint_eq(boids_grid_fine_choose(&p, 6.4), 1u);
    ck_assert_uint_eq(boids_grid_fine_choose(&p, 0.0), 1u);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        p.group[g].neighbors_max = 7;
    ck_assert_uint_eq(boids_grid_fine_choose(&p, 6.4), 1u);
    ck_assert_uint_gt(boids_grid_fine_choose(&p, 140.0), 1u);
}
END_TEST

int main(void) {
    Suite *s = suite_create("grid_fine");
    TCase *t = tcase_create("grid_fine");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, finalize_cells);
    tcase_add_test(t, finalize_refuses);
    tcase_add_loop_test(t, neighbors_every_m, 0, 8);
    tcase_add_loop_test(t, hash_every_m, 0, 10);
    tcase_add_loop_test(t, early_stop, 0, 4);
    tcase_add_test(t, auto_picks);
    tcase_add_test(t, snapshot_keeps_m);
    tcase_add_test(t, scenario_round_trip);
    tcase_add_test(t, choose_rule);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
