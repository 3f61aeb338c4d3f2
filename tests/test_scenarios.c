// tests/test_scenarios.c: every shipped scenario (scenarios/*.ini, found at
// run time, so a new file is covered without touching this test) loads,
// and runs 100 steps on the CPU reference and on the GPU backend with the
// invariants holding: positions finite and inside the world, speeds within
// maxspeed, body joints finite, no GL errors. The agent count is capped so
// the whole suite stays within about a minute on llvmpipe; nothing else is
// scaled (a world the file sizes keeps its size). No GL context is a
// FAILURE, never a skip.
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <check.h>

#include "check_run.h"
#include "gl_context.h"
#include "boids/behaviors.h"
#include "boids/core.h"
#include "boids/gpu.h"
#include "boids/platform.h"
#include "boids/scenario.h"

// Check only when a condition fails (a passing ck_assert costs a write).
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

#define MIN_SCENARIOS 25  // the shipped examples: fewer files means some went missing
#define MAX_SCENARIOS 128
#define COUNT_CAP 3000u  // agents per run (llvmpipe: ~2.5 us per agent-step of flocking)
#define STEPS 100u

static char scenario_file[MAX_SCENARIOS][256]; // file names in scenarios/, sorted
static int scenario_count;
static boids_gl_context *ctx;

// Sorts file names (qsort).
static int cmp_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

// Fills scenario_file with the *.ini files of BOIDS_SCENARIO_DIR, sorted;
// returns how many (-1 if the directory cannot be read).
static int find_scenarios(void) {
    DIR *d = opendir(BOIDS_SCENARIO_DIR);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAX_SCENARIOS) {
        size_t len = strlen(e->d_name);
        if (len > 4 && len < sizeof(scenario_file[0]) && strcmp(e->d_name + len - 4, ".ini") == 0)
            snprintf(scenario_file[n++], sizeof(scenario_file[0]), "%s", e->d_name);
    }
    closedir(d);
    qsort(scenario_file, (size_t)n, sizeof(scenario_file[0]), cmp_name);
    return n;
}

// A GL 4.5 context for the test; failing to get one fails the test.
static void open_context(void) {
    ctx = boids_test_gl_open();
}

// Destroys the test's GL context.
static void close_context(void) {
    boids_gl_context_destroy(ctx);
    ctx = NULL;
}

// Seconds on a monotonic clock.
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// The invariants of a state after the run, `who` naming the backend in
// messages: every position finite and inside the world (a few ULP of
// slack), every velocity finite and no faster than its group's maxspeed,
// every joint of every body finite.
static void expect_invariants(const boids_sim *s, const char *name, const char *who) {
    const boids_world_params *w = &s->p.world;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t g = s->cur.group[i], id = s->cur.id[i];
        EXPECT(g < w->group_count, "%s (%s): agent %u in group %u of %u", name, who, id, g, w->group_count);
        EXPECT(id < s->n, "%s (%s): slot %u holds id %u of %u agents", name, who, i, id, s->n);
        double speed2 = 0.0;
        for (uint32_t a = 0; a < w->dim; a++) {
            float x = s->cur.pos[i][a], v = s->cur.vel[i][a];
            // margin's band beyond the edges (boids_world_overhang) is in the world
            double lo = (double)w->min[a] - boids_world_overhang(w),
                   hi = (double)w->min[a] + w->size[a] + boids_world_overhang(w);
            double slack = 1e-5 * (fabs(lo) + w->size[a]);
            EXPECT(isfinite(x) && isfinite(v), "%s (%s): agent %u axis %c: position %g velocity %g", name, who, id,
                   "xyz"[a], (double)x, (double)v);
            EXPECT(x >= lo - slack && x <= hi + slack, "%s (%s): agent %u axis %c at %.9g, outside the world %g..%g",
                   name, who, id, "xyz"[a], (double)x, lo, hi);
            speed2 += (double)v * v;
        }
        double maxspeed = boids_agent_maxspeed(w, &s->p.group[g], id); // the group's, or the agent's own in a range
        EXPECT(sqrt(speed2) <= maxspeed * (1.0 + 1e-4), "%s (%s): agent %u (group %u) speed %.9g > maxspeed %g", name,
               who, id, g, sqrt(speed2), maxspeed);
        const boids_body_params *b = &s->p.body[g];
        if (!s->joints || b->style == BOIDS_BODY_NONE)
            continue;
        EXPECT(b->joints <= s->joint_rows, "%s (%s): group %u has %u joints, %u rows allocated", name, who, g,
               b->joints, s->joint_rows);
        for (uint32_t j = 0; j < b->joints; j++)
            for (uint32_t a = 0; a < w->dim; a++) {
                float c = s->joints[(size_t)j * s->n + id][a];
                EXPECT(isfinite(c), "%s (%s): agent %u joint %u axis %c is %g", name, who, id, j, "xyz"[a], (double)c);
            }
    }
}

START_TEST(enough_scenarios) {
    // Every shipped example has its file: at least MIN_SCENARIOS.
    ck_assert_msg(scenario_count >= 0, "cannot read the scenario directory %s", BOIDS_SCENARIO_DIR);
    ck_assert_msg(scenario_count >= MIN_SCENARIOS, "%d scenario files in %s (expected at least %d)", scenario_count,
                  BOIDS_SCENARIO_DIR, MIN_SCENARIOS);
}
END_TEST

START_TEST(scenario_runs) {
    // Scenario number _i: load, cap the count, 100 steps on the CPU, then
    // the same start for 100 steps on the GPU; invariants after each.
    const char *name = scenario_file[_i];
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/%s", BOIDS_SCENARIO_DIR, name);
    double t0 = now_s();

    // The file: its first line opens the comment block naming the example.
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: cannot open", path);
    int first = fgetc(f);
    fclose(f);
    EXPECT(first == '#' || first == ';', "%s: does not start with a comment block naming its example", name);

    static boids_scenario sc;
    boids_result r = boids_scenario_load(path, &sc, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "%s: boids_scenario_load failed (%d): %s", name, (int)r, err);
    EXPECT(sc.title[0] != '\0' && sc.example[0] != '\0', "%s: [scenario] needs a title and an example", name);

    boids_params p = sc.params;
    uint32_t file_count = p.world.count;
    if (p.world.count > COUNT_CAP) {
        p.world.count = COUNT_CAP;
        if (!sc.size_set) { // an automatic world: sized again for the capped count
            float origin[3] = {p.world.min[0], p.world.min[1], p.world.min[2]};
            boids_params_auto_world(&p, 20.0);
            if (sc.origin_set)
                memcpy(p.world.min, origin, sizeof origin);
        }
    }
    char what[256] = "";
    r = boids_params_finalize(&p, what, sizeof what);
    ck_assert_msg(r == BOIDS_OK, "%s: boids_params_finalize failed (%d): %s", name, (int)r, what);
    bool dynamic = boids_scenario_is_dynamic(&sc);

    // CPU: from the seed, 100 steps, the time-dependent parts before each.
    boids_sim *s = NULL;
    r = boids_sim_create(&s, &p, (boids_distribution)sc.distribution);
    ck_assert_msg(r == BOIDS_OK, "%s: boids_sim_create failed (%d)", name, (int)r);
    boids_sim *start = NULL; // the same start for the GPU
    ck_assert_int_eq(boids_sim_create(&start, &p, (boids_distribution)sc.distribution), BOIDS_OK);
    uint64_t h0 = boids_sim_hash(start);
    for (uint32_t k = 0; k < STEPS; k++) {
        if (dynamic)
            boids_scenario_at_step(&sc, s->step, &s->p);
        boids_sim_step(s);
    }
    ck_assert_uint_eq(s->step, STEPS);
    EXPECT(boids_sim_hash(s) != h0, "%s: the CPU state did not change in %u steps", name, STEPS);
    expect_invariants(s, name, "cpu");
    double t_cpu = now_s();

    // GPU: the same start and parameters.
    open_context();
    boids_gpu_desc d = {.params = &p, .load = boids_gl_loader(ctx), .shader_dir = NULL, .quiet = true};
    boids_gpu *g = NULL;
    char gerr[2048];
    r = boids_gpu_create(&g, &d, gerr, sizeof gerr);
    ck_assert_msg(r == BOIDS_OK, "%s: boids_gpu_create: %s", name, gerr);
    boids_gpu_upload(g, start);
    boids_params gp = p;
    for (uint32_t k = 0; k < STEPS; k++) {
        if (dynamic) {
            boids_scenario_at_step(&sc, boids_gpu_steps(g), &gp);
            boids_gpu_set_params(g, &gp);
        }
        boids_gpu_step(g);
    }
    boids_gpu_download(g, start);
    ck_assert_uint_eq(boids_gpu_steps(g), STEPS);
    EXPECT(boids_gpu_count(g) == p.world.count, "%s: the GPU holds %u agents, expected %u", name, boids_gpu_count(g),
           p.world.count);
    EXPECT(boids_sim_hash(start) != h0, "%s: the GPU state did not change in %u steps", name, STEPS);
    expect_invariants(start, name, "gpu");
    uint32_t errors = boids_gpu_debug_errors(g);
    EXPECT(errors == 0, "%s: %u GL errors on the GPU run", name, errors);
    boids_gpu_destroy(g);
    close_context();
    double t_end = now_s();

    printf("%-26s %7u agents (file: %u)%s  cpu %.2f s  gpu %.2f s  %s\n", name, p.world.count, file_count,
           dynamic ? ", dynamic" : "", t_cpu - t0, t_end - t_cpu, sc.title);
    fflush(stdout);
    boids_sim_destroy(s);
    boids_sim_destroy(start);
}
END_TEST

Suite *scenarios_suite(void);
// The suite: the file count, then one loop iteration per scenario file.
Suite *scenarios_suite(void) {
    Suite *s = suite_create("scenarios");
    boids_test_tcase(s, "files", enough_scenarios);
    TCase *runs = tcase_create("runs");
    tcase_set_timeout(runs, 300);
    tcase_add_loop_test(runs, scenario_runs, 0, scenario_count > 0 ? scenario_count : 0);
    suite_add_tcase(s, runs);
    return s;
}

int main(void) {
    scenario_count = find_scenarios();
    printf("%d scenario files in %s\n", scenario_count, BOIDS_SCENARIO_DIR);
    fflush(stdout);
    return boids_test_run_suite(scenarios_suite());
}
