// tests/test_ensemble.c: the ensemble runner (boids/ensemble.h):
// plan parsing and every bad plan (a table: file, line, key named), the
// expansion (cross, zip, list, linear, log, random draws), scenario
// overrides, the statistics table, a failing run inside an ensemble,
// --jobs 1 == --jobs 2 byte for byte, and boids-ensemble's exit statuses.
// The MPI and kill/resume checks: tests/test_ensemble.sh.
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>

#include "boids/ensemble.h"
#include "boids/scenario.h"
#include "spawn.h"

#define ENSEMBLE_BIN BOIDS_BIN_DIR "/boids-ensemble"

static boids_plan *load_ok(const char *text) {
    boids_plan *p = NULL;
    char err[1600] = "";
    boids_result r = boids_plan_load_string(text, "t.ini", &p, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "plan refused: %s", err);
    return p;
}

// ---- parsing and expansion -----------------------------------------------------------

START_TEST(plan_parse) {
    boids_plan *p = load_ok("[plan]\nscenario = flocking\nsteps = 30\nbackend = cpu\nseeds = 3..5\n"
                            "[log]\nevery = 10\ngroups = yes\nsnapshot = false\n");
    ck_assert_uint_eq(p->steps, 30);
    ck_assert_uint_eq(p->n_seeds, 3);
    ck_assert_uint_eq(p->seeds[0], 3);
    ck_assert_uint_eq(p->seeds[2], 5);
    ck_assert_uint_eq(p->every, 10);
    ck_assert(p->groups);
    ck_assert(!p->snapshot);
    ck_assert_uint_eq(boids_plan_runs(p), 3); // no sweep: one combination x 3 seeds
    ck_assert(strstr(p->scenario, "scenarios/flocking.ini") != NULL);
    boids_plan_free(p);
    p = load_ok("[plan]\nscenario = flocking\nsteps = 1\nseeds = 7, 1, 9\n");
    ck_assert_uint_eq(p->n_seeds, 3);
    ck_assert_uint_eq(boids_plan_run_seed(p, 0), 7);
    ck_assert_uint_eq(boids_plan_run_seed(p, 2), 9);
    boids_plan_free(p);
}
END_TEST

// A run's settings hash (plan.csv, the run's log): the same for the same
// plan whatever its comments and line order, another for another run, and
// another for any change a run's files would show (steps, a value, [log]).
START_TEST(plan_run_hash) {
    const char *base = "[plan]\nscenario = flocking\nsteps = 30\nseeds = 1..2\n[sweep]\nworld.count = 10 | 20\n";
    boids_plan *p = load_ok(base);
    boids_plan *same = load_ok("# a comment\n[sweep]\nworld.count = 10 | 20\n[plan]\nseeds = 1..2\nsteps = 30\n"
                               "scenario = flocking\n");
    ck_assert_uint_eq(boids_plan_runs(p), 4);
    for (uint32_t r = 0; r < 4; r++) {
        ck_assert_uint_eq(boids_plan_run_hash(p, r), boids_plan_run_hash(same, r));
        for (uint32_t q = r + 1; q < 4; q++)
            ck_assert_uint_ne(boids_plan_run_hash(p, r), boids_plan_run_hash(p, q));
    }
    ck_assert_uint_eq(boids_plan_run_hash(p, 4), 0);
    const char *changed[] = {
        "[plan]\nscenario = flocking\nsteps = 31\nseeds = 1..2\n[sweep]\nworld.count = 10 | 20\n",
        "[plan]\nscenario = flocking\nsteps = 30\nseeds = 1..2\n[sweep]\nworld.count = 11 | 20\n",
        "[plan]\nscenario = flocking\nsteps = 30\nseeds = 1..2\n[sweep]\nworld.count = 10 | 20\n[log]\nevery = 5\n",
        "[plan]\nscenario = flocking\nsteps = 30\nseeds = 1..2\n[sweep]\nworld.count = 10 | 20\n[log]\ngroups = 1\n",
        "[plan]\nscenario = flocking-fov\nsteps = 30\nseeds = 1..2\n[sweep]\nworld.count = 10 | 20\n",
    };
    for (size_t k = 0; k < sizeof changed / sizeof changed[0]; k++) {
        boids_plan *q = load_ok(changed[k]);
        ck_assert_msg(boids_plan_run_hash(q, 0) != boids_plan_run_hash(p, 0), "plan %zu: the same hash", k);
        boids_plan_free(q);
    }
    boids_plan_free(same);
    boids_plan_free(p);
}
END_TEST

START_TEST(plan_cross_zip) {
    // Cross: the last key fastest, seeds fastest of all.
    boids_plan *p = load_ok("[plan]\nscenario = flocking\nsteps = 1\nseeds = 1..2\n[sweep]\n"
                            "group.boids.weight.alignment = 0.5 | 1 | 2\nworld.count = 10 | 20\n");
    ck_assert_uint_eq(boids_plan_runs(p), 3 * 2 * 2);
    ck_assert_str_eq(boids_plan_run_value(p, 0, 0), "0.5");
    ck_assert_str_eq(boids_plan_run_value(p, 0, 1), "10");
    ck_assert_uint_eq(boids_plan_run_seed(p, 1), 2);
    ck_assert_str_eq(boids_plan_run_value(p, 1, 1), "10"); // run 1: the same combination, seed 2
    ck_assert_str_eq(boids_plan_run_value(p, 2, 1), "20");
    ck_assert_str_eq(boids_plan_run_value(p, 4, 0), "1");
    ck_assert_str_eq(boids_plan_run_value(p, 11, 0), "2");
    ck_assert_str_eq(boids_plan_run_value(p, 11, 1), "20");
    ck_assert_ptr_null(boids_plan_run_value(p, 12, 0));
    char header[1024];
    boids_plan_csv_header(p, header, sizeof header);
    ck_assert(strncmp(header, "run,group.boids.weight.alignment,world.count,seed,step,polarisation,", 68) == 0);
    ck_assert(strstr(header, ",state_hash,status") != NULL);
    boids_plan_free(p);
    // Zip: side by side.
    p = load_ok("[plan]\nscenario = flocking\nsteps = 1\ncombine = zip\n[sweep]\n"
                "group.boids.weight.alignment = linear(0, 1, 3)\nworld.count = 10 | 20 | 30\n");
    ck_assert_uint_eq(boids_plan_runs(p), 3);
    ck_assert_str_eq(boids_plan_run_value(p, 1, 0), "0.5");
    ck_assert_str_eq(boids_plan_run_value(p, 1, 1), "20");
    ck_assert_str_eq(boids_plan_run_value(p, 2, 0), "1");
    ck_assert_str_eq(boids_plan_run_value(p, 2, 1), "30");
    boids_plan_free(p);
}
END_TEST

START_TEST(plan_ranges) {
    boids_plan *p = load_ok("[plan]\nscenario = flocking\nsteps = 1\n[sweep]\n"
                            "group.boids.radius = linear(10, 50, 5)\ngroup.boids.maxspeed = log(0.01, 100, 5)\n");
    const char *lin[] = {"10", "20", "30", "40", "50"}, *lg[] = {"0.01", "0.1", "1", "10", "100"};
    for (uint32_t i = 0; i < 5; i++) {
        ck_assert_str_eq(p->param[0].values[i], lin[i]);
        // log: 10^(-2 + i) up to the last digit of %.9g (exp/log round)
        ck_assert_msg(fabs(atof(p->param[1].values[i]) / atof(lg[i]) - 1) < 1e-8, "log value %u: %s", i,
                      p->param[1].values[i]);
    }
    ck_assert_str_eq(p->param[1].values[4], "100"); // the end is exact
    ck_assert_uint_eq(p->param[0].kind, BOIDS_SWEEP_LINEAR);
    ck_assert_uint_eq(p->param[1].kind, BOIDS_SWEEP_LOG);
    boids_plan_free(p);
}
END_TEST

START_TEST(plan_random) {
    const char *text = "[plan]\nscenario = flocking\nsteps = 1\nseed = %d\ncombine = zip\n[sweep]\n"
                       "group.boids.radius = uniform(20, 60, 200)\ngroup.boids.maxspeed = loguniform(0.1, 10, 200)\n"
                       "group.boids.maxforce = normal(0.5, 0.1, 200)\n";
    char buf[512];
    snprintf(buf, sizeof buf, text, 42);
    boids_plan *a = load_ok(buf), *b = load_ok(buf);
    snprintf(buf, sizeof buf, text, 43);
    boids_plan *c = load_ok(buf);
    bool differs = false;
    double sum = 0, sq = 0, below1 = 0;
    for (uint32_t i = 0; i < 200; i++) {
        double u = atof(a->param[0].values[i]), l = atof(a->param[1].values[i]);
        ck_assert_msg(u >= 20 && u <= 60, "uniform draw %u = %g outside [20, 60]", i, u);
        ck_assert_msg(l >= 0.1 && l <= 10, "loguniform draw %u = %g outside [0.1, 10]", i, l);
        below1 += l < 1;
        ck_assert_str_eq(a->param[0].values[i], b->param[0].values[i]); // the same plan seed, the same draws
        differs = differs || strcmp(a->param[0].values[i], c->param[0].values[i]) != 0;
    }
    ck_assert_msg(differs, "another plan seed must give other draws");
    // loguniform: half the draws below the geometric middle 1 (binomial 200, 1/2: 100 +- 3 sigma ~ 21)
    ck_assert_msg(below1 > 79 && below1 < 121, "loguniform draws below 1: %g of 200", below1);
    for (uint32_t i = 0; i < 200; i++) {
        double v = atof(a->param[2].values[i]);
        sum += v;
        sq += v * v;
    }
    double mean = sum / 200, sd = sqrt(sq / 200 - mean * mean);
    // mean 0.5 +- 4 standard errors (0.1 / sqrt(200) = 0.0071); sd 0.1 +- 20 % (its standard error is 5 %)
    ck_assert_msg(fabs(mean - 0.5) < 0.028, "normal mean %g, expected 0.5", mean);
    ck_assert_msg(fabs(sd - 0.1) < 0.02, "normal sd %g, expected 0.1", sd);
    boids_plan_free(a);
    boids_plan_free(b);
    boids_plan_free(c);
}
END_TEST

// Every bad plan: refused before any run, the file, line and key named.
static const struct {
    const char *text, *expect;
} bad_plans[] = {
    {"[plan]\nsteps = 10\n", "t.ini:0: [plan] scenario: is missing"},
    {"[plan]\nscenario = flocking\n", "t.ini:0: [plan] steps: is missing"},
    {"[plan]\nscenario = flocking\nsteps = 0\n", "t.ini:3: [plan] steps: '0' is too small"},
    {"[plan]\nscenario = flocking\nsteps = ten\n", "t.ini:3: [plan] steps: 'ten' is not an integer"},
    {"[plan]\nscenario = no-such-scenario\nsteps = 1\n",
     "t.ini:2: [plan] scenario: 'no-such-scenario' names no scenario"},
    {"[plan]\nscenario = missing/file.ini\nsteps = 1\n", "t.ini:2: [plan] scenario: 'missing/file.ini' is refused"},
    {"[plan]\nscenario = flocking\nsteps = 1\nbackend = tpu\n", "t.ini:4: [plan] backend: 'tpu' is not a backend"},
    {"[plan]\nscenario = flocking\nsteps = 1\nseeds = 5..2\n", "t.ini:4: [plan] seeds: '5..2' is an empty range"},
    {"[plan]\nscenario = flocking\nsteps = 1\nseeds = 1, x\n", "t.ini:4: [plan] seeds: 'x' is not an integer"},
    {"[plan]\nscenario = flocking\nsteps = 1\nseeds = 0..200000\n", "t.ini:4: [plan] seeds: '0..200000' is too many"},
    {"[plan]\nscenario = flocking\nsteps = 1\ncombine = mix\n", "t.ini:4: [plan] combine: 'mix' is not a way"},
    {"[plan]\nscenario = flocking\nsteps = 1\nseed = -1\n", "t.ini:4: [plan] seed: '-1' is negative"},
    {"[plan]\nscenario = flocking\nstep = 1\n",
     "t.ini:3: [plan] step: is not a key of [plan]; expected (did you mean 'steps'?)"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[logs]\nevery = 1\n", "t.ini:5: 'logs' is not a section"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[log]\nevery = -1\n", "t.ini:5: [log] every: '-1' is negative"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[log]\ngroups = maybe\n",
     "t.ini:5: [log] groups: 'maybe' is not a yes/no"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[log]\nformat = json\n", "t.ini:5: [log] format: is not a key of [log]"},
    {"[plan]\nscenario = flocking\nsteps = 1\nno equals sign\n", "t.ini:4: the line is not a section"},
    // [sweep]: the spec
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.count = lin(1, 2, 3)\n",
     "t.ini:5: [sweep] world.count: 'lin(1, 2, 3)' names no sweep 'lin'; expected (did you mean 'linear'?)"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.count = linear(1, 2)\n",
     "t.ini:5: [sweep] world.count: 'linear(1, 2)' has 2 arguments, not 3"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.count = linear(1, 2, 0)\n",
     "t.ini:5: [sweep] world.count: 'linear(1, 2, 0)' has a count argument that is too small"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.count = linear(a, 2, 3)\n",
     "t.ini:5: [sweep] world.count: 'linear(a, 2, 3)' has a first argument that is not a number"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.count = linear(1, 2, 3\n",
     "t.ini:5: [sweep] world.count: 'linear(1, 2, 3' does not end with ')'"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\ngroup.boids.radius = log(0, 2, 3)\n",
     "t.ini:5: [sweep] group.boids.radius: 'log(0, 2, 3)' has an end <= 0"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\ngroup.boids.radius = uniform(5, 2, 3)\n",
     "t.ini:5: [sweep] group.boids.radius: 'uniform(5, 2, 3)' has LO > HI"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\ngroup.boids.radius = normal(5, -2, 3)\n",
     "t.ini:5: [sweep] group.boids.radius: 'normal(5, -2, 3)' has a negative standard deviation"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.count = 1 | | 3\n",
     "t.ini:5: [sweep] world.count: '1 | | 3' has an empty value (item 2)"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.count = 1\nworld.count = 2\n",
     "t.ini:6: [sweep] world.count: is given twice (first on line 5)"},
    {"[plan]\nscenario = flocking\nsteps = 1\ncombine = zip\n[sweep]\nworld.count = 1 | 2\ngroup.boids.radius = 5\n",
     "t.ini:7: [sweep] group.boids.radius: has 1 values, world.count 2"},
    // [sweep]: the key, checked by the scenario's own parser
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nworld.cuont = 1 | 2\n",
     "t.ini:5: [world] cuont: is not a key of [world]; expected one of (did you mean 'count'?)"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\ngroup.fish.radius = 1 | 2\n",
     "t.ini:5: 'group.fish.radius' names an unknown group 'fish'"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\ngroup.boids.weight.nope = 1\n",
     "t.ini:5: [group.boids] weight.nope: "},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nobstacle.radius = 1\n",
     "t.ini:5: 'obstacle.radius' names a section that cannot be overridden ([obstacle])"},
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\ncount = 1\n", "t.ini:5: 'count' is not a key of a scenario"},
    // A relation's groups are known only after the scenario's last line: the
    // message still names the plan (fuzz_plan found it naming the scenario).
    {"[plan]\nscenario = flocking\nsteps = 1\n[sweep]\nrelation.a.boids = flock\n",
     "t.ini:5: [relation] a.boids: names an unknown group 'a'"},
};

START_TEST(plan_bad) {
    boids_plan *p = NULL;
    char err[1600] = "";
    boids_result r = boids_plan_load_string(bad_plans[_i].text, "t.ini", &p, err, sizeof err);
    ck_assert_msg(r == BOIDS_ERR_FORMAT, "case %d: expected refusal, got %d (%s)", _i, r, err);
    ck_assert_ptr_null(p);
    ck_assert_msg(strstr(err, bad_plans[_i].expect) != NULL, "case %d: message '%s' lacks '%s'", _i, err,
                  bad_plans[_i].expect);
    ck_assert_msg(strchr(err, '\n') == NULL, "case %d: one line: '%s'", _i, err);
}
END_TEST

// ---- scenario overrides and the statistics table ------------------------------------------

START_TEST(overrides) {
    char path[512];
    ck_assert(boids_scenario_find("flocking", path, sizeof path));
    boids_scenario sc;
    char err[1200];
    bool key = true;
    boids_scenario_override ov[] = {{"world.count", "77", "p.ini", 3},
                                    {"group.*.weight.alignment", "2.5", "p.ini", 4},
                                    {"group.boids.radius", "40", "p.ini", 5}};
    ck_assert_int_eq(boids_scenario_load_with(path, ov, 3, &sc, err, sizeof err, &key), BOIDS_OK);
    ck_assert_uint_eq(sc.params.world.count, 77);
    ck_assert_float_eq(sc.params.group[0].radius, 40.0f);
    ck_assert_float_eq(boids_weight(&sc.params.group[0], (uint32_t)boids_behavior_index("alignment")), 2.5f);
    ck_assert(!key);
    // A value the key refuses: not a key problem, named by the override's source and line.
    boids_scenario_override bad = {"group.boids.maxspeed", "-1", "p.ini", 9};
    ck_assert_int_eq(boids_scenario_load_with(path, &bad, 1, &sc, err, sizeof err, &key), BOIDS_ERR_FORMAT);
    ck_assert_msg(strncmp(err, "p.ini:9: [group.boids] maxspeed: '-1'", 37) == 0, "%s", err);
    ck_assert(!key);
    // An unknown key is.
    boids_scenario_override unk = {"world.colour", "1", "p.ini", 2};
    ck_assert_int_eq(boids_scenario_load_with(path, &unk, 1, &sc, err, sizeof err, &key), BOIDS_ERR_FORMAT);
    ck_assert(key);
    // A check of the whole (a radius wider than the world) is the scenario file's.
    boids_scenario_override wide = {"group.boids.radius", "1e6", "p.ini", 2};
    ck_assert_int_eq(boids_scenario_load_with(path, &wide, 1, &sc, err, sizeof err, &key), BOIDS_ERR_FORMAT);
    ck_assert(!key);
    ck_assert_msg(strstr(err, "flocking.ini:0:") != NULL, "%s", err);
}
END_TEST

START_TEST(stat_table) {
    uint32_t n = boids_engine_stat_count();
    ck_assert_uint_gt(n, 4);
    ck_assert_uint_le(n, BOIDS_ENGINE_STATS_MAX);
    ck_assert_uint_eq(n + 1, boids_stats_field_count); // every field but "step": none cut off
    ck_assert_ptr_null(boids_engine_stat_name(n));
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < i; j++)
            ck_assert_str_ne(boids_engine_stat_name(i), boids_engine_stat_name(j));
    boids_engine *e;
    char err[600];
    boids_engine_desc d = {.count = 50, .threads = 1};
    ck_assert_int_eq(boids_engine_create(&e, &d, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_engine_step(e, 3, NULL), BOIDS_OK);
    double all[BOIDS_ENGINE_STATS_MAX], g0[BOIDS_ENGINE_STATS_MAX];
    ck_assert_int_eq(boids_engine_stat_values(e, UINT32_MAX, all), BOIDS_OK);
    ck_assert_int_eq(boids_engine_stat_values(e, 0, g0), BOIDS_OK);
    ck_assert_int_eq(boids_engine_stat_values(e, 1, g0 + 0), BOIDS_ERR_ARGUMENT); // one group only
    ck_assert_int_eq(boids_engine_stat_values(e, 0, g0), BOIDS_OK);
    boids_stats st;
    ck_assert_int_eq(boids_engine_stats(e, &st), BOIDS_OK);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = boids_engine_stat_name(i);
        ck_assert_msg(isfinite(all[i]), "%s not finite", name);
        if (strcmp(name, "polarisation") == 0)
            ck_assert(all[i] == st.polarisation);
        if (strcmp(name, "neighbor_pairs") == 0)
            ck_assert(all[i] == (double)st.neighbor_pairs);
        // One group holding every agent: the group's figures are the flock's
        // (sums in id order, not slot order: equal to rounding).
        if (boids_engine_stat_grouped(i))
            ck_assert_msg(fabs(g0[i] - all[i]) <= 1e-12 * fabs(all[i]) + 1e-12, "%s: group %.17g, all %.17g", name,
                          g0[i], all[i]);
        else
            ck_assert_msg(isnan(g0[i]), "%s is not grouped: NaN for a group", name);
    }
    boids_engine_destroy(e);
}
END_TEST

// ---- whole ensembles in this process ----------------------------------------------------

static void write_plan(const char *path, const char *text) {
    boids_test_write(path, text, strlen(text));
}

static const char tiny_plan[] = "[plan]\nscenario = flocking\nsteps = 12\nseeds = 1..2\n"
                                "[sweep]\ngroup.boids.weight.alignment = 0 | 1.5\nworld.count = 24 | 0\n"
                                "[log]\nevery = 5\ngroups = true\nsnapshot = true\n";

static void compare_dirs(const char *a, const char *b) {
    const char *files[] = {"results.csv", "plan.csv", NULL};
    for (int i = 0; files[i]; i++) {
        char pa[600], pb[600];
        snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
        size_t na, nb;
        char *x = boids_test_slurp_len(pa, &na), *y = boids_test_slurp_len(pb, &nb);
        ck_assert_msg(x && y && na == nb && memcmp(x, y, na) == 0, "%s differs from %s", pa, pb);
        free(x);
        free(y);
    }
    char ra[600], rb[600];
    snprintf(ra, sizeof ra, "%s/runs", a);
    snprintf(rb, sizeof rb, "%s/runs", b);
    DIR *d = opendir(ra);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    int compared = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || strstr(de->d_name, ".time.json"))
            continue;
        char pa[900], pb[900];
        snprintf(pa, sizeof pa, "%s/%s", ra, de->d_name);
        snprintf(pb, sizeof pb, "%s/%s", rb, de->d_name);
        size_t na, nb;
        char *x = boids_test_slurp_len(pa, &na), *y = boids_test_slurp_len(pb, &nb);
        ck_assert_msg(x && y && na == nb && memcmp(x, y, na) == 0, "%s differs from %s", pa, pb);
        free(x);
        free(y);
        compared++;
    }
    closedir(d);
    ck_assert_int_gt(compared, 8);
}

START_TEST(ensemble_failing_run_and_jobs) {
    mkdir(TMP "/ens", 0777);
    write_plan(TMP "/ens/tiny.ini", tiny_plan);
    char err[1600];
    boids_plan *p = NULL;
    ck_assert_int_eq(boids_plan_load(TMP "/ens/tiny.ini", &p, err, sizeof err), BOIDS_OK);
    ck_assert_uint_eq(boids_plan_runs(p), 8);
    system("rm -rf " TMP "/ens/j1 " TMP "/ens/j2");
    uint32_t failed = 99;
    boids_ensemble_desc d1 = {.out_dir = TMP "/ens/j1", .jobs = 1};
    ck_assert_msg(boids_ensemble_run(p, &d1, &failed, err, sizeof err) == BOIDS_OK, "%s", err);
    ck_assert_uint_eq(failed, 4); // world.count = 0 for half the runs: failed, and the ensemble went on
    boids_ensemble_desc d2 = {.out_dir = TMP "/ens/j2", .jobs = 2};
    ck_assert_msg(boids_ensemble_run(p, &d2, &failed, err, sizeof err) == BOIDS_OK, "%s", err);
    ck_assert_uint_eq(failed, 4);
    compare_dirs(TMP "/ens/j1", TMP "/ens/j2");
    // The failed run's log names the plan, the line and the key.
    char *json = boids_test_slurp(TMP "/ens/j1/runs/000003.json");
    ck_assert_msg(strstr(json, "\"status\": \"failed\"") != NULL, "%s", json);
    ck_assert_msg(strstr(json, "tiny.ini:7: [world] count: '0' is too small") != NULL, "%s", json);
    ck_assert_msg(strstr(json, "\"state_hash\": null") != NULL, "%s", json);
    free(json);
    // An ok run: its hash in the log and on the final rows of the CSV; rows at steps 0, 5, 10, 12 (x2 groups).
    json = boids_test_slurp(TMP "/ens/j1/runs/000000.json");
    char *h = strstr(json, "\"state_hash\": \"");
    ck_assert_ptr_nonnull(h);
    char hash[17];
    memcpy(hash, h + 15, 16);
    hash[16] = '\0';
    free(json);
    char *csv = boids_test_slurp(TMP "/ens/j1/runs/000000.csv");
    int rows = 0, with_hash = 0;
    for (char *l = csv; *l; l = strchr(l, '\n') + 1) {
        rows++;
        char *end = strchr(l, '\n');
        *end = '\0';
        if (strstr(l, hash))
            with_hash++;
        ck_assert_msg(strncmp(l, "0,0,24,1,", 9) == 0, "row '%s'", l);
        *end = '\n';
    }
    ck_assert_int_eq(rows, 8);
    ck_assert_int_eq(with_hash, 2); // the final step's rows (all, boids)
    free(csv);
    // results.csv: header + every run's rows in run order; a failed run is one row.
    csv = boids_test_slurp(TMP "/ens/j1/results.csv");
    ck_assert(strncmp(csv, "run,group.boids.weight.alignment,world.count,seed,group,step,", 61) == 0);
    ck_assert_msg(strstr(csv, "\n2,0,0,1,,,") != NULL && strstr(csv, ",failed\n") != NULL, "%s", csv);
    free(csv);
    // The snapshot of an ok run loads as an engine with the same hash.
    boids_engine *e;
    boids_engine_desc ed = {.threads = 1};
    ck_assert_int_eq(boids_engine_load(&e, TMP "/ens/j1/runs/000000.boids", &ed, err, sizeof err), BOIDS_OK);
    char mine[17];
    snprintf(mine, sizeof mine, "%016llx", (unsigned long long)boids_engine_hash(e));
    ck_assert_str_eq(mine, hash);
    boids_engine_destroy(e);
    // The same folder again: refused without --resume; with it, nothing is left to run.
    ck_assert_int_eq(boids_ensemble_run(p, &d1, &failed, err, sizeof err), BOIDS_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "--resume") != NULL, "%s", err);
    d1.resume = true;
    ck_assert_int_eq(boids_ensemble_run(p, &d1, &failed, err, sizeof err), BOIDS_OK);
    ck_assert_uint_eq(failed, 4);
    boids_plan_free(p);
    // Another plan into the folder: refused.
    write_plan(TMP "/ens/other.ini", "[plan]\nscenario = flocking\nsteps = 12\nseeds = 1..3\n");
    ck_assert_int_eq(boids_plan_load(TMP "/ens/other.ini", &p, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_ensemble_run(p, &d1, &failed, err, sizeof err), BOIDS_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "the plan changed") != NULL && strstr(err, "restore it") != NULL, "%s", err);
    boids_plan_free(p);
}
END_TEST

// boids-ensemble's statuses: a bad plan or flag is exit 2 with one line, before any run.
START_TEST(cli_statuses) {
    mkdir(TMP "/ens", 0777);
    write_plan(TMP "/ens/bad.ini", "[plan]\nscenario = flocking\nsteps = 5\n[sweep]\nworld.cuont = 1 | 2\n");
    system("rm -rf " TMP "/ens/bad.out");
    run_result r = boids_test_run(ENSEMBLE_BIN, ARGV(ENSEMBLE_BIN, TMP "/ens/bad.ini", "--out", TMP "/ens/bad.out"),
                                  TMP, "ens-bad");
    ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2);
    ck_assert_msg(strstr(r.err, "bad.ini:5: [world] cuont: is not a key of [world]") != NULL, "%s", r.err);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "one line: %s", r.err);
    struct stat st;
    ck_assert_msg(stat(TMP "/ens/bad.out", &st) != 0, "nothing made before the plan is checked");
    boids_test_run_free(&r);
    const char *const *bad_flags[] = {
        ARGV(ENSEMBLE_BIN),
        ARGV(ENSEMBLE_BIN, TMP "/ens/bad.ini", "--jobs", "x"),
        ARGV(ENSEMBLE_BIN, TMP "/ens/bad.ini", "--threads", "0"),
        ARGV(ENSEMBLE_BIN, TMP "/ens/bad.ini", "--frobnicate"),
        ARGV(ENSEMBLE_BIN, TMP "/ens/bad.ini", TMP "/ens/bad.ini"),
        ARGV(ENSEMBLE_BIN, TMP "/ens/no-such-plan.ini"),
    };
    for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++) {
        r = boids_test_run(ENSEMBLE_BIN, bad_flags[i], TMP, "ens-flag");
        ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "case %zu: status %d", i, r.status);
        ck_assert_msg(strncmp(r.err, "boids-ensemble: ", 16) == 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "case %zu: one line: %s", i, r.err);
        boids_test_run_free(&r);
    }
    r = boids_test_run(ENSEMBLE_BIN, ARGV(ENSEMBLE_BIN, "--help"), TMP, "ens-help");
    ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && strstr(r.out, "--resume") != NULL);
    boids_test_run_free(&r);
}
END_TEST

// ---- the shipped plans (plans/*.ini) -------------------------------------------------

// Every shipped plan, its runs and how many of its combinations are bad on
// purpose (tiny.ini's radius = 0): a plan added to plans/ must be added here.
static const struct {
    const char *file;
    uint32_t runs, bad_combinations;
} shipped_plans[] = {
    {"couzin-2002.ini", 31 * 4, 0},
    {"flocking-alignment.ini", 9 * 4, 0},
    {"tiny.ini", 6 * 2, 3},
    {"vicsek-fig2a.ini", 4 * 11 * 3, 0},
};

// Each shipped plan loads, expands to its runs, and every combination of
// its values (the first seed) makes a scenario and a CPU engine (so a value
// that the models refuse, such as a radius wider than the world, is caught
// here, not an hour into the run). Nothing is stepped.
START_TEST(shipped_plans_expand) {
    DIR *d = opendir(BOIDS_PLAN_DIR);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    int listed = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0)
            continue;
        int k = -1;
        for (int i = 0; i < (int)(sizeof shipped_plans / sizeof shipped_plans[0]); i++)
            if (strcmp(shipped_plans[i].file, de->d_name) == 0)
                k = i;
        ck_assert_msg(k >= 0, "plans/%s is not in tests/test_ensemble.c's shipped_plans", de->d_name);
        listed++;
        char path[1024], err[1600] = "";
        snprintf(path, sizeof path, "%s/%s", BOIDS_PLAN_DIR, de->d_name);
        boids_plan *p = NULL;
        ck_assert_msg(boids_plan_load(path, &p, err, sizeof err) == BOIDS_OK, "%s: %s", path, err);
        ck_assert_msg(boids_plan_runs(p) == shipped_plans[k].runs, "%s: %u runs, expected %u", path, boids_plan_runs(p),
                      shipped_plans[k].runs);
        uint32_t bad = 0;
        for (uint32_t r = 0; r < boids_plan_runs(p); r += p->n_seeds) {
            boids_scenario_override ov[BOIDS_PLAN_MAX_PARAMS];
            for (uint32_t q = 0; q < p->n_params; q++)
                ov[q] = (boids_scenario_override){p->param[q].key, boids_plan_run_value(p, r, q), p->name,
                                                  p->param[q].line};
            boids_scenario *sc = malloc(sizeof *sc);
            ck_assert_ptr_nonnull(sc);
            boids_result res = boids_scenario_load_with(p->scenario, ov, p->n_params, sc, err, sizeof err, NULL);
            if (res == BOIDS_OK) {
                boids_engine *e = NULL;
                boids_engine_desc ed = {.scenario = sc,
                                        .backend = BOIDS_BACKEND_CPU,
                                        .threads = 1,
                                        .quiet = true,
                                        .silent_errors = true,
                                        .seed = boids_plan_run_seed(p, r)};
                res = boids_engine_create(&e, &ed, err, sizeof err);
                if (res == BOIDS_OK)
                    boids_engine_destroy(e);
            }
            if (res != BOIDS_OK && shipped_plans[k].bad_combinations == 0)
                ck_abort_msg("%s: run %u: %s", path, r, err);
            bad += res != BOIDS_OK;
            free(sc);
        }
        ck_assert_msg(bad == shipped_plans[k].bad_combinations, "%s: %u bad combinations, expected %u", path, bad,
                      shipped_plans[k].bad_combinations);
        boids_plan_free(p);
    }
    closedir(d);
    ck_assert_int_eq(listed, (int)(sizeof shipped_plans / sizeof shipped_plans[0]));
}
END_TEST

// NULL for the plan, the output and the folders: BOIDS_ERR_ARGUMENT with
// err naming the function, or a neutral value (0 runs, no value, an empty
// header, not done); none crashes.
START_TEST(null_arguments) {
    char err[256] = "";
    boids_plan *p = (boids_plan *)err;
    ck_assert(boids_plan_load(NULL, &p, err, sizeof err) == BOIDS_ERR_ARGUMENT && p == NULL);
    ck_assert_msg(strstr(err, "boids_plan_load") && strstr(err, "NULL"), "got '%s'", err);
    ck_assert(boids_plan_load(BOIDS_PLAN_DIR "/tiny.ini", NULL, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    ck_assert(boids_plan_load_string(NULL, "t.ini", &p, err, sizeof err) == BOIDS_ERR_ARGUMENT && p == NULL);
    ck_assert(boids_plan_load_string("[plan]\n", "t.ini", NULL, NULL, 0) == BOIDS_ERR_ARGUMENT);
    boids_plan_free(NULL);
    ck_assert(boids_plan_runs(NULL) == 0 && boids_plan_run_seed(NULL, 0) == 0 && !boids_plan_run_value(NULL, 0, 0));
    char header[64] = "x";
    boids_plan_csv_header(NULL, header, sizeof header);
    ck_assert_str_eq(header, "");
    ck_assert(boids_ensemble_run_one(NULL, 0, NULL, NULL) == BOIDS_ERR_ARGUMENT);
    boids_run_output o;
    ck_assert(boids_ensemble_run_one(NULL, 0, NULL, &o) == BOIDS_ERR_ARGUMENT);
    boids_ensemble_output_free(NULL);
    ck_assert(boids_ensemble_prepare(NULL, TMP "/null", false, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "boids_ensemble_prepare"), "got '%s'", err);
    bool failed = true;
    ck_assert(!boids_ensemble_run_done(NULL, TMP "/null", 0, &failed) && !failed);
    ck_assert(boids_plan_run_hash(NULL, 0) == 0);
    ck_assert(boids_ensemble_write_run(TMP "/null", NULL, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    uint32_t nfailed = 7;
    ck_assert(boids_ensemble_assemble(NULL, TMP "/null", &nfailed, err, sizeof err) == BOIDS_ERR_ARGUMENT &&
              nfailed == 0);
    nfailed = 7;
    ck_assert(boids_ensemble_run(NULL, NULL, &nfailed, NULL, 0) == BOIDS_ERR_ARGUMENT && nfailed == 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ensemble");
    TCase *tc = tcase_create("plan");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, plan_parse);
    tcase_add_test(tc, plan_run_hash);
    tcase_add_test(tc, plan_cross_zip);
    tcase_add_test(tc, plan_ranges);
    tcase_add_test(tc, plan_random);
    tcase_add_loop_test(tc, plan_bad, 0, (int)(sizeof bad_plans / sizeof bad_plans[0]));
    tcase_add_test(tc, overrides);
    tcase_add_test(tc, stat_table);
    tcase_add_test(tc, shipped_plans_expand);
    tcase_add_test(tc, null_arguments);
    suite_add_tcase(s, tc);
    TCase *runs = tcase_create("runs");
    tcase_set_timeout(runs, 300);
    tcase_add_test(runs, ensemble_failing_run_and_jobs);
    tcase_add_test(runs, cli_statuses);
    suite_add_tcase(s, runs);
    return boids_test_main_suite(s, TMP);
}
