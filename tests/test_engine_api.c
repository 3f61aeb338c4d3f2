// tests/test_engine_api.c: the engine's calls for bindings on the CPU
// backend: create_options equals create with the same params changed by
// hand (and boids-run's flag names and errors), set_options' refusals, the
// neighbour graph against a brute-force loop (wrap and walls) and the next
// step's neighbour counts, and stepping in a child forked after OpenMP
// threads ran (no hang, the parent's hash). No GL (label core).
#define _POSIX_C_SOURCE 200809L // fork, pipe, waitpid, nanosleep
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boids/behaviors.h"
#include "boids/engine.h"

#define N 400u

// An engine of the options on the CPU (seed 5, N agents, 2D), failing the test with its line.
static boids_engine *make_options(const boids_engine_option *opt, uint32_t n, int threads) {
    boids_engine *e = NULL;
    char err[1024] = "";
    boids_engine_desc d = {.count = N, .dim = 2, .seed = 5, .threads = threads};
    boids_result r = boids_engine_create_options(&e, NULL, &d, opt, n, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "create_options: expected ok, got %s: %s", boids_result_str(r), err);
    return e;
}

// The options give the params boids-run's flags give, set here by hand:
// the same hash after 8 steps.
START_TEST(options_equal_params_by_hand) {
    boids_engine_option opt[] = {{"world", "400x300"},
                                 {"boundary", "walls"},
                                 {"radius", "60"},
                                 {"behaviors", "separation,alignment"},
                                 {"weights", "alignment=2"}};
    boids_engine *a = make_options(opt, 5, 0);
    boids_params p;
    boids_params_default(&p, N, 2);
    p.world.seed_lo = 5;
    p.world.boundary = BOIDS_BOUNDARY_WALLS;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        p.group[g].radius = 60.0f;
        p.group[g].behaviors = BOIDS_BIT(BOIDS_BI_SEPARATION) | BOIDS_BIT(BOIDS_BI_ALIGNMENT);
        *boids_weight_ref(&p.group[g], BOIDS_BI_ALIGNMENT) = 2.0f;
    }
    p.world.size[0] = 400.0f;
    p.world.size[1] = 300.0f;
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    boids_engine *b = NULL;
    boids_engine_desc d = {.params = &p};
    ck_assert(boids_engine_create(&b, &d, NULL, 0) == BOIDS_OK);
    ck_assert(boids_engine_step(a, 8, NULL) == BOIDS_OK && boids_engine_step(b, 8, NULL) == BOIDS_OK);
    ck_assert_msg(boids_engine_hash(a) == boids_engine_hash(b),
                  "hash: expected the by-hand params' %016llx, got %016llx", (unsigned long long)boids_engine_hash(b),
                  (unsigned long long)boids_engine_hash(a));
    boids_engine_destroy(a);
    boids_engine_destroy(b);
}
END_TEST

// A bad value names the option, the value and what is allowed; an unknown
// option suggests the nearest; set_options refuses what needs a new engine.
START_TEST(options_errors) {
    boids_engine *e = NULL;
    char err[1024] = "";
    boids_engine_desc d = {.count = N};
    boids_engine_option bad[] = {{"radius", "-1"}};
    ck_assert(boids_engine_create_options(&e, NULL, &d, bad, 1, err, sizeof err) == BOIDS_ERR_ARGUMENT && !e);
    ck_assert_msg(strcmp(err, "radius: '-1' is negative; expected a perception radius > 0") == 0, "err: %s", err);
    boids_engine_option typo[] = {{"boundry", "walls"}};
    ck_assert(boids_engine_create_options(&e, NULL, &d, typo, 1, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "'boundry'") && strstr(err, "boundary"), "err: %s", err);
    e = make_options(NULL, 0, 0);
    uint64_t before = boids_engine_hash(e);
    boids_engine_option world[] = {{"world", "900x900"}};
    ck_assert(boids_engine_set_options(e, UINT32_MAX, world, 1, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    ck_assert_msg(strncmp(err, "world: cannot change once the simulation is made", 48) == 0, "err: %s", err);
    boids_engine_option wide[] = {{"alignment-radius", "100"}};
    ck_assert(boids_engine_set_options(e, UINT32_MAX, wide, 1, err, sizeof err) == BOIDS_ERR_RADIUS);
    boids_engine_option walls[] = {{"boundary", "walls"}, {"fov", "270"}};
    ck_assert_msg(boids_engine_set_options(e, UINT32_MAX, walls, 2, err, sizeof err) == BOIDS_OK, "err: %s", err);
    ck_assert(boids_engine_params(e)->world.boundary == BOIDS_BOUNDARY_WALLS);
    ck_assert(boids_engine_hash(e) == before); // the agents stay
    boids_engine_destroy(e);
    ck_assert_str_eq(boids_version(NULL, NULL, NULL), BOIDS_VERSION);
}
END_TEST

// The graph equals a brute-force loop over every pair (minimum image on the
// torus), rows sorted by id; one step later BOIDS_ENGINE_NEIGHBORS holds
// each row's length. _i: 0 wrap, 1 walls.
START_TEST(neighbor_graph_brute_force) {
    boids_engine_option opt[] = {{"world", "300x200"}, {"radius", "30"}, {"boundary", _i ? "walls" : "wrap"}};
    boids_engine *e = make_options(opt, 3, 0);
    ck_assert(boids_engine_step(e, 7, NULL) == BOIDS_OK);
    boids_neighbor_graph g;
    char err[256] = "";
    ck_assert_msg(boids_engine_neighbor_graph(e, true, &g, err, sizeof err) == BOIDS_OK, "graph: %s", err);
    ck_assert_uint_eq(g.count, N);
    float(*pos)[4] = malloc(N * sizeof *pos);
    ck_assert(pos && boids_engine_read(e, pos, NULL, NULL) == BOIDS_OK);
    const boids_world_params *w = &boids_engine_params(e)->world;
    uint32_t seam = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint64_t k = g.indptr[i];
        for (uint32_t j = 0; j < N; j++) {
            float d[3];
            boids_world_delta(w, pos[i], pos[j], d);
            float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (!(d2 > 0.0f && d2 < 30.0f * 30.0f))
                continue;
            ck_assert_msg(k < g.indptr[i + 1] && g.indices[k] == j, "row %u: expected neighbour %u next", i, j);
            ck_assert_msg(fabsf(g.distances[k] - sqrtf(d2)) <= 1e-6f * sqrtf(d2), "row %u: distance to %u", i, j);
            seam += fabsf(pos[j][0] - pos[i][0]) > 30.0f || fabsf(pos[j][1] - pos[i][1]) > 30.0f;
            k++;
        }
        ck_assert_msg(k == g.indptr[i + 1], "row %u: %llu entries beyond brute force's", i,
                      (unsigned long long)(g.indptr[i + 1] - k));
    }
    ck_assert_msg(_i || seam > 0, "wrap: expected pairs across the seam, got none");
    // The next step steers from this state: its neighbour counts are the rows' lengths.
    ck_assert(boids_engine_step(e, 1, NULL) == BOIDS_OK);
    uint32_t *ids = malloc(N * sizeof *ids), *nb = malloc(N * sizeof *nb);
    ck_assert(boids_engine_read_buffer(e, BOIDS_ENGINE_ID, ids, N * sizeof *ids) == BOIDS_OK);
    ck_assert(boids_engine_read_buffer(e, BOIDS_ENGINE_NEIGHBORS, nb, N * sizeof *nb) == BOIDS_OK);
    for (uint32_t s = 0; s < N; s++)
        ck_assert_msg(nb[s] == g.indptr[ids[s] + 1] - g.indptr[ids[s]], "agent %u: expected %llu neighbours, got %u",
                      ids[s], (unsigned long long)(g.indptr[ids[s] + 1] - g.indptr[ids[s]]), nb[s]);
    boids_neighbor_graph_free(&g);
    ck_assert(g.indptr == NULL && g.edges == 0);
    free(ids);
    free(nb);
    free(pos);
    boids_engine_destroy(e);
}
END_TEST

// The hash of a fresh engine of N agents after 12 steps on `threads` threads.
static uint64_t hash_after(int threads) {
    boids_engine *e = make_options(NULL, 0, threads);
    ck_assert(boids_engine_step(e, 12, NULL) == BOIDS_OK);
    uint64_t h = boids_engine_hash(e);
    boids_engine_destroy(e);
    return h;
}

// A child forked after the parent stepped on 2 OpenMP threads steps (on
// one thread: libgomp's pool does not survive fork) to the parent's hash;
// a child still running after 60 s has hung.
START_TEST(step_after_fork) {
    uint64_t want = hash_after(2);
    int fd[2];
    ck_assert(pipe(fd) == 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        uint64_t h = hash_after(2);
        _exit(write(fd[1], &h, sizeof h) == (ssize_t)sizeof h ? 0 : 1);
    }
    int status = 0;
    pid_t done = 0;
    for (int tick = 0; tick < 600 && (done = waitpid(pid, &status, WNOHANG)) == 0; tick++)
        nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        ck_abort_msg("the forked child hung stepping after OpenMP (expected it to step on one thread)");
    }
    uint64_t got = 0;
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0 && read(fd[0], &got, sizeof got) == sizeof got);
    ck_assert_msg(got == want, "child hash: expected the parent's %016llx, got %016llx", (unsigned long long)want,
                  (unsigned long long)got);
    close(fd[0]);
    close(fd[1]);
}
END_TEST

int main(void) {
    Suite *s = suite_create("engine_api");
    TCase *tc = tcase_create("cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, options_equal_params_by_hand);
    tcase_add_test(tc, options_errors);
    tcase_add_loop_test(tc, neighbor_graph_brute_force, 0, 2);
    tcase_add_test(tc, step_after_fork);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
