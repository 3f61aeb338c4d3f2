// tests/test_kernels.c: the GPU kernel variant (boids/core.h boids_kernel:
// morton) gives the same bits as the reference kernel: the state-hash after
// a few steps, and per agent (by id) the last step's accel, neighbours,
// nearest distance and candidates, the grid's counts; in 2D and 3D, wrap
// and walls, tiny counts (1, 2, 255, 257), counts not a multiple of the
// work group (256), clustered flocks (crowded cells), predators and prey
// (groups, ids: hunt, escape) and shipped scenarios. Label gpu: without a
// GL 4.5 context the tests fail, never skip. Also: the CPU backend refuses
// every kernel but the reference (the engine: BOIDS_ERR_ARGUMENT; the
// executables: exit 2).
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "boids/engine.h"

static boids_engine_headless *gl;

static void open_gl(void) {
    char err[512];
    boids_result r = boids_engine_headless_open(&gl, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "no GL 4.5 context (a failure, never a skip): %s", err);
}

static void close_gl(void) {
    boids_engine_headless_close(gl);
    gl = NULL;
}

// What one run leaves: the hash, and by id the last step's outputs.
typedef struct outcome {
    uint64_t hash;
    uint32_t n, cells;
    float (*accel)[4];
    uint32_t *neighbors, *candidates, *count;
    float *nearest;
} outcome;

static void outcome_free(outcome *o) {
    free(o->accel);
    free(o->neighbors);
    free(o->candidates);
    free(o->count);
    free(o->nearest);
}

// Runs `steps` GPU steps of params p (or the scenario) with kernel k.
static outcome run(const boids_params *p, const char *scenario, boids_distribution dist, boids_kernel k,
                   uint64_t steps) {
    boids_engine_desc d = {.params = p,
                           .distribution = dist,
                           .backend = BOIDS_BACKEND_GPU,
                           .headless = gl,
                           .quiet = true,
                           .kernel = k};
    boids_engine *e = NULL;
    char err[2048];
    boids_result r = scenario ? boids_engine_create_scenario(&e, scenario, &d, err, sizeof err)
                              : boids_engine_create(&e, &d, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "kernel %s: %s", boids_kernel_names[k], err);
    ck_assert_int_eq(boids_engine_step(e, steps, NULL), BOIDS_OK);
    ck_assert_int_eq(boids_engine_check(e, err, sizeof err), BOIDS_OK);
    outcome o = {.hash = boids_engine_hash(e)};
    const boids_params *q = boids_engine_params(e);
    uint32_t n = q->world.count, cells = q->world.cells[3];
    o.n = n;
    o.cells = cells;
    float(*acc)[4] = malloc(n * 16);
    uint32_t *id = malloc(n * 4), *nb = malloc(n * 4), *cand = malloc(n * 4);
    float *near = malloc(n * 4);
    o.accel = malloc(n * 16);
    o.neighbors = malloc(n * 4);
    o.candidates = malloc(n * 4);
    o.nearest = malloc(n * 4);
    o.count = malloc((size_t)cells * 4);
    ck_assert(acc && id && nb && cand && near && o.accel && o.neighbors && o.candidates && o.nearest && o.count);
    ck_assert_int_eq(boids_engine_read_buffer(e, BOIDS_ENGINE_ID, id, n * 4), BOIDS_OK);
    ck_assert_int_eq(boids_engine_read_buffer(e, BOIDS_ENGINE_ACCEL, acc, n * 16), BOIDS_OK);
    ck_assert_int_eq(boids_engine_read_buffer(e, BOIDS_ENGINE_NEIGHBORS, nb, n * 4), BOIDS_OK);
    ck_assert_int_eq(boids_engine_read_buffer(e, BOIDS_ENGINE_CANDIDATES, cand, n * 4), BOIDS_OK);
    ck_assert_int_eq(boids_engine_read_buffer(e, BOIDS_ENGINE_NEAREST, near, n * 4), BOIDS_OK);
    ck_assert_int_eq(boids_engine_read_buffer(e, BOIDS_ENGINE_COUNT, o.count, (size_t)cells * 4), BOIDS_OK);
    for (uint32_t s = 0; s < n; s++) {
        ck_assert_uint_lt(id[s], n);
        memcpy(o.accel[id[s]], acc[s], 16);
        o.neighbors[id[s]] = nb[s];
        o.candidates[id[s]] = cand[s];
        o.nearest[id[s]] = near[s];
    }
    free(acc);
    free(id);
    free(nb);
    free(cand);
    free(near);
    boids_engine_destroy(e);
    return o;
}

// Every kernel against the reference on the same run.
static void same_bits(const boids_params *p, const char *scenario, boids_distribution dist, uint64_t steps,
                      const char *what) {
    outcome ref = run(p, scenario, dist, BOIDS_KERNEL_REFERENCE, steps);
    for (int k = BOIDS_KERNEL_REFERENCE + 1; k < BOIDS_KERNEL_KINDS; k++) {
        outcome o = run(p, scenario, dist, (boids_kernel)k, steps);
        const char *name = boids_kernel_names[k];
        ck_assert_uint_eq(o.n, ref.n);
        for (uint32_t i = 0; i < ref.n; i++) {
            ck_assert_msg(memcmp(o.accel[i], ref.accel[i], 16) == 0,
                          "%s, kernel %s: accel of id %u differs (%.9g %.9g / %.9g %.9g; neighbours %u / %u)", what,
                          name, i, (double)o.accel[i][0], (double)o.accel[i][1], (double)ref.accel[i][0],
                          (double)ref.accel[i][1], o.neighbors[i], ref.neighbors[i]);
            ck_assert_msg(o.neighbors[i] == ref.neighbors[i] && o.candidates[i] == ref.candidates[i],
                          "%s, kernel %s: id %u: neighbours %u / %u, candidates %u / %u", what, name, i,
                          o.neighbors[i], ref.neighbors[i], o.candidates[i], ref.candidates[i]);
            ck_assert_msg(memcmp(&o.nearest[i], &ref.nearest[i], 4) == 0, "%s, kernel %s: nearest of id %u", what,
                          name, i);
        }
        ck_assert_msg(memcmp(o.count, ref.count, (size_t)ref.cells * 4) == 0, "%s, kernel %s: cell counts", what,
                      name);
        ck_assert_msg(o.hash == ref.hash, "%s, kernel %s: state-hash %016llx, reference %016llx", what, name,
                      (unsigned long long)o.hash, (unsigned long long)ref.hash);
        outcome_free(&o);
    }
    outcome_free(&ref);
}

static const uint32_t counts[] = {1, 2, 255, 257, 1000, 3001};

START_TEST(same_bits_2d_3d_wrap_walls) {
    uint32_t dim = 2 + (uint32_t)(_i / 2);
    int boundary = _i % 2 ? BOIDS_BOUNDARY_WALLS : BOIDS_BOUNDARY_WRAP;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        boids_params p;
        boids_params_default(&p, counts[c], dim);
        p.world.boundary = (uint32_t)boundary;
        char what[96];
        snprintf(what, sizeof what, "%uD, %s, %u agents", dim, boundary == BOIDS_BOUNDARY_WALLS ? "walls" : "wrap",
                 counts[c]);
        same_bits(&p, NULL, BOIDS_DIST_UNIFORM, 4, what);
    }
}
END_TEST

// Dense clusters: crowded cells and long runs of slots per cell.
START_TEST(same_bits_clustered) {
    uint32_t dim = 2 + (uint32_t)_i;
    boids_params p;
    boids_params_default(&p, 20000, dim);
    same_bits(&p, NULL, BOIDS_DIST_CLUSTERED, 3, dim == 2 ? "2D clustered" : "3D clustered");
}
END_TEST

// Topological neighbourhoods (neighbors_max 7), uniform and clustered: the
// same K, the same bits.
START_TEST(same_bits_topological) {
    uint32_t dim = 2 + (uint32_t)_i;
    boids_params p;
    boids_params_default(&p, 3001, dim);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        p.group[g].neighbors_max = 7;
    same_bits(&p, NULL, BOIDS_DIST_UNIFORM, 3, dim == 2 ? "K=7 2D" : "K=7 3D");
    boids_params_default(&p, 20000, dim);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        p.group[g].neighbors_max = 7;
    same_bits(&p, NULL, BOIDS_DIST_CLUSTERED, 2, dim == 2 ? "K=7 2D clustered" : "K=7 3D clustered");
}
END_TEST

// The finer grid (grid_fine M = _i + 2): every kernel gives the reference
// kernel's bits at M, and the
// reference at M gives M = 1's state, accelerations, neighbours and nearest
// distances (the candidates read differ: other cells). 2D / 3D, wrap,
// walls, a torus of few cells (every cell once), clustered with K = 7.
static void same_as_m1(const boids_params *p, boids_distribution dist, uint64_t steps, uint32_t m, const char *what) {
    outcome one = run(p, NULL, dist, BOIDS_KERNEL_REFERENCE, steps);
    boids_params q = *p;
    q.world.grid_fine = m;
    outcome o = run(&q, NULL, dist, BOIDS_KERNEL_REFERENCE, steps);
    ck_assert_msg(o.hash == one.hash, "%s, M %u: state-hash %016llx, M = 1 %016llx", what, m,
                  (unsigned long long)o.hash, (unsigned long long)one.hash);
    ck_assert_msg(o.cells > one.cells, "%s, M %u: %u cells, M = 1 %u", what, m, o.cells, one.cells);
    for (uint32_t i = 0; i < o.n; i++)
        ck_assert_msg(memcmp(o.accel[i], one.accel[i], 16) == 0 && o.neighbors[i] == one.neighbors[i] &&
                          memcmp(&o.nearest[i], &one.nearest[i], 4) == 0,
                      "%s, M %u: id %u differs from M = 1", what, m, i);
    outcome_free(&o);
    outcome_free(&one);
    char w[160];
    snprintf(w, sizeof w, "%s, M %u", what, m);
    same_bits(&q, NULL, dist, steps, w);
}

START_TEST(same_bits_grid_fine) {
    uint32_t m = 2 + (uint32_t)_i;
    for (uint32_t dim = 2; dim <= 3; dim++) {
        boids_params p;
        boids_params_default(&p, 2000, dim);
        same_as_m1(&p, BOIDS_DIST_UNIFORM, 3, m, dim == 2 ? "2D wrap" : "3D wrap");
        p.world.boundary = BOIDS_BOUNDARY_WALLS;
        same_as_m1(&p, BOIDS_DIST_UNIFORM, 3, m, dim == 2 ? "2D walls" : "3D walls");
        boids_params_default(&p, 600, dim);
        for (uint32_t a = 0; a < dim; a++)
            p.world.size[a] = 2.5f * boids_params_reach(&p);
        same_as_m1(&p, BOIDS_DIST_UNIFORM, 3, m, dim == 2 ? "2D few cells" : "3D few cells");
        boids_params_default(&p, 6000, dim);
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            p.group[g].neighbors_max = 7;
        same_as_m1(&p, BOIDS_DIST_CLUSTERED, 2, m, dim == 2 ? "2D clustered K 7" : "3D clustered K 7");
    }
}
END_TEST

// The early stop of the K-nearest gather on the GPU (gather_rings): K = 1,
// 7, 32 and M = 2..4 on clustered starts, 2D and 3D, give the full scan's
// (M = 1) bits, and at M = 4 read fewer candidates than the whole block.
START_TEST(early_stop_gpu) {
    static const uint32_t ks[] = {1, 7, 32};
    uint32_t dim = 2 + (uint32_t)_i;
    for (size_t kk = 0; kk < 3; kk++) {
        boids_params p;
        boids_params_default(&p, 4000, dim);
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            p.group[g].neighbors_max = ks[kk];
        outcome full = run(&p, NULL, BOIDS_DIST_CLUSTERED, BOIDS_KERNEL_REFERENCE, 3);
        for (uint32_t m = 2; m <= BOIDS_GRID_FINE_MAX; m++) {
            p.world.grid_fine = m;
            outcome o = run(&p, NULL, BOIDS_DIST_CLUSTERED, BOIDS_KERNEL_REFERENCE, 3);
            ck_assert_msg(o.hash == full.hash, "%uD K %u M %u: state-hash %016llx, full scan %016llx", dim, ks[kk], m,
                          (unsigned long long)o.hash, (unsigned long long)full.hash);
            if (m == BOIDS_GRID_FINE_MAX) { // one step from the same start: K's reads against the whole block
                uint64_t read = 0, block = 0;
                boids_params q = p;
                for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
                    q.group[g].neighbors_max = 0;
                outcome all = run(&q, NULL, BOIDS_DIST_CLUSTERED, BOIDS_KERNEL_REFERENCE, 1);
                outcome k1 = run(&p, NULL, BOIDS_DIST_CLUSTERED, BOIDS_KERNEL_REFERENCE, 1);
                for (uint32_t i = 0; i < all.n; i++) {
                    read += k1.candidates[i];
                    block += all.candidates[i];
                }
                ck_assert_msg(read < block, "%uD K %u M 4: %llu candidates read, the whole block %llu", dim, ks[kk],
                              (unsigned long long)read, (unsigned long long)block);
                outcome_free(&all);
                outcome_free(&k1);
            }
            outcome_free(&o);
        }
        outcome_free(&full);
    }
}
END_TEST

// grid_fine auto on the GPU, every kernel: created uniform (M = 1), the
// agents then replaced by a tight cluster; within BOIDS_ENGINE_FINE_EVERY
// steps the engine picks a finer grid (the cell buffers, the scan's sums and
// the Morton ranks made anew) and the state
// stays the reference kernel's at M = 1 step for step.
START_TEST(auto_grid_mid_run) {
    boids_kernel k = (boids_kernel)_i;
    boids_params p;
    boids_params_default(&p, 6000, 2);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        p.group[g].neighbors_max = 7;
    boids_engine *e[2] = {NULL, NULL};
    for (int j = 0; j < 2; j++) {
        p.world.grid_fine = j ? BOIDS_GRID_FINE_AUTO : 0;
        boids_engine_desc d = {.params = &p,
                               .backend = BOIDS_BACKEND_GPU,
                               .headless = gl,
                               .quiet = true,
                               .kernel = j ? k : BOIDS_KERNEL_REFERENCE};
        char err[1024];
        ck_assert_msg(boids_engine_create(&e[j], &d, err, sizeof err) == BOIDS_OK, "%s", err);
    }
    ck_assert_uint_eq(boids_engine_grid_fine(e[1]), 1u);
    uint32_t n = boids_engine_count(e[0]);
    float(*pos)[4] = malloc((size_t)n * 16), (*vel)[4] = malloc((size_t)n * 16);
    uint32_t *grp = malloc((size_t)n * 4);
    ck_assert_int_eq(boids_engine_read(e[0], pos, vel, grp), BOIDS_OK);
    const boids_world_params *w = &boids_engine_params(e[0])->world;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t a = 0; a < 2; a++)
            pos[i][a] = w->min[a] + 0.5f * w->size[a] +
                        3.0f * w->max_radius * ((float)((i * 7919u + a * 104729u) % 1000u) / 1000.0f - 0.5f);
    for (int j = 0; j < 2; j++)
        ck_assert_int_eq(boids_engine_set_agents(e[j], (const float(*)[4])pos, (const float(*)[4])vel, grp), BOIDS_OK);
    for (int j = 0; j < 2; j++)
        ck_assert_int_eq(boids_engine_step(e[j], BOIDS_ENGINE_FINE_EVERY + 3, NULL), BOIDS_OK);
    ck_assert_msg(boids_engine_grid_fine(e[1]) > 1, "kernel %s: auto kept M = 1 in a cluster", boids_kernel_names[k]);
    ck_assert_msg(boids_engine_hash(e[1]) == boids_engine_hash(e[0]), "kernel %s: auto's state differs from M = 1's",
                  boids_kernel_names[k]);
    char err[512];
    for (int j = 0; j < 2; j++) {
        ck_assert_int_eq(boids_engine_check(e[j], err, sizeof err), BOIDS_OK);
        boids_engine_destroy(e[j]);
    }
    free(pos);
    free(vel);
    free(grp);
}
END_TEST

// Shipped scenarios: groups, relations and ids (predators-prey: hunt,
// escape; hide; the heading rules' survey; leaders by id; the Vicsek and
// Couzin models' noise and zones).
START_TEST(same_bits_scenarios) {
    static const char *const names[] = {"predators-prey", "hide",   "angle-bug",  "follow-leader",
                                        "feelers-3d",     "vicsek", "couzin-mill"};
    same_bits(NULL, names[_i], BOIDS_DIST_UNIFORM, 5, names[_i]);
}
END_TEST

// The CPU backend has only the reference kernel.
START_TEST(cpu_refuses_gpu_kernels) {
    for (int k = BOIDS_KERNEL_REFERENCE + 1; k < BOIDS_KERNEL_KINDS; k++) {
        boids_engine_desc d = {.count = 10, .kernel = (boids_kernel)k};
        boids_engine *e = NULL;
        char err[512] = "";
        ck_assert_int_eq(boids_engine_create(&e, &d, err, sizeof err), BOIDS_ERR_ARGUMENT);
        ck_assert_ptr_null(e);
        ck_assert_msg(strstr(err, boids_kernel_names[k]) != NULL, "%s", err);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s/boids-run --count 10 --steps 1 --kernel %s 2>/dev/null >/dev/null", BOIDS_BIN_DIR,
                 boids_kernel_names[k]);
        int rc = system(cmd);
        ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "boids-run --kernel %s on the CPU: status %d",
                      boids_kernel_names[k], rc);
        snprintf(cmd, sizeof cmd, "%s/boids-bench --counts 10 --steps 1 --quiet --kernel %s 2>/dev/null >/dev/null",
                 BOIDS_BIN_DIR, boids_kernel_names[k]);
        rc = system(cmd);
        ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "boids-bench --kernel %s on the CPU: status %d",
                      boids_kernel_names[k], rc);
    }
    boids_engine_desc d = {.count = 10, .kernel = BOIDS_KERNEL_KINDS};
    boids_engine *e = NULL;
    ck_assert_int_eq(boids_engine_create(&e, &d, NULL, 0), BOIDS_ERR_ARGUMENT);
}
END_TEST

// The executables on the GPU: boids-run's state-hash is the reference's for
// every --kernel; boids-validate passes with each.
static void last_line_with(const char *cmd, const char *key, char *out, size_t size) {
    FILE *fp = popen(cmd, "r");
    ck_assert_ptr_nonnull(fp);
    char line[1024];
    out[0] = '\0';
    while (fgets(line, sizeof line, fp))
        if (strstr(line, key))
            snprintf(out, size, "%s", line);
    int rc = pclose(fp);
    ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s: status %d", cmd, rc);
}

START_TEST(executables_take_kernel) {
    char ref[1024], got[1024], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/boids-run --backend gpu --count 1500 --steps 6 --quiet --kernel reference",
             BOIDS_BIN_DIR);
    last_line_with(cmd, "state-hash", ref, sizeof ref);
    ck_assert_msg(ref[0], "no state-hash line");
    for (int k = BOIDS_KERNEL_REFERENCE + 1; k < BOIDS_KERNEL_KINDS; k++) {
        snprintf(cmd, sizeof cmd, "%s/boids-run --backend gpu --count 1500 --steps 6 --quiet --kernel %s",
                 BOIDS_BIN_DIR, boids_kernel_names[k]);
        last_line_with(cmd, "state-hash", got, sizeof got);
        ck_assert_str_eq(got, ref);
        snprintf(cmd, sizeof cmd, "%s/boids-validate --count 600 --steps 3 --quiet --kernel %s 2>&1", BOIDS_BIN_DIR,
                 boids_kernel_names[k]);
        last_line_with(cmd, "", got, sizeof got); // exit 0: passed
        snprintf(cmd, sizeof cmd, "%s/boids-bench --backend gpu --counts 300 --steps 2 --quiet --kernel %s",
                 BOIDS_BIN_DIR, boids_kernel_names[k]);
        last_line_with(cmd, "kernel", got, sizeof got);
        ck_assert_msg(strstr(got, boids_kernel_names[k]), "boids-bench names its kernel: %s", got);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("kernels");
    TCase *bits = tcase_create("same_bits");
    tcase_add_checked_fixture(bits, open_gl, close_gl);
    tcase_add_loop_test(bits, same_bits_2d_3d_wrap_walls, 0, 4);
    tcase_add_loop_test(bits, same_bits_clustered, 0, 2);
    tcase_add_loop_test(bits, same_bits_topological, 0, 2);
    tcase_add_loop_test(bits, same_bits_scenarios, 0, 7);
    tcase_add_loop_test(bits, same_bits_grid_fine, 0, 3);
    tcase_add_loop_test(bits, early_stop_gpu, 0, 2);
    tcase_add_loop_test(bits, auto_grid_mid_run, 0, BOIDS_KERNEL_KINDS);
    suite_add_tcase(s, bits);
    TCase *apps = tcase_create("apps");
    tcase_add_test(apps, cpu_refuses_gpu_kernels);
    tcase_add_test(apps, executables_take_kernel);
    suite_add_tcase(s, apps);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
