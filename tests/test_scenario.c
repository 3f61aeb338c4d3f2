// tests/test_scenario.c: the scenario loader (src/core/scenario.c,
// docs/SCENARIOS.md): every section applied, each bad-file case with its
// message (file, line, key, what is allowed, the nearest name), nothing
// partially applied, the time-dependent parts, and through boids-run: exit
// status 2 with one line, flags overriding the file, and --dump-scenario
// loading back to the same run (same state-hash).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "boids/core.h"
#include "boids/scenario.h"
#include "spawn.h"

static boids_scenario sc;
static char err[1024];

// Loads text, asserting success.
static void load_ok(const char *text) {
    err[0] = '\0';
    boids_result r = boids_scenario_load_string(text, "t.ini", &sc, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "expected the scenario to load, got: %s", err);
}

// Loads text, asserting BOIDS_ERR_FORMAT, sc untouched, and every needle in the one-line message.
static void load_bad(const char *text, const char *const *needles) {
    boids_scenario_default(&sc);
    sc.params.world.count = 4242; // a marker: a bad file must not touch it
    boids_scenario keep = sc;
    err[0] = '\0';
    boids_result r = boids_scenario_load_string(text, "t.ini", &sc, err, sizeof err);
    ck_assert_msg(r == BOIDS_ERR_FORMAT, "expected a format error for:\n%s", text);
    ck_assert_msg(memcmp(&keep, &sc, sizeof sc) == 0, "a bad file changed the scenario (%s)", err);
    ck_assert_msg(!strchr(err, '\n'), "expected one line, got: %s", err);
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(err, needles[i]), "expected '%s' in: %s", needles[i], err);
}

START_TEST(every_section_applied) {
    load_ok("# comment\n"
            "[scenario]\ntitle = Two species\nexample = predators and prey\n"
            "[world]\ndim = 2\ncount = 3000\nsize = 800x600\norigin = -400, -300\nboundary = walls\ndt = 0.5\n"
            "seed = 0x100000002\ncombine = priority\nwall_offset = 30\ndistribution = clustered\n"
            "[group.prey]\nshare = 9\nbehaviors = flocking, escape ; inline comment\nweight.escape = 3\n"
            "fov = 270\nmaxspeed = 2.5\ncolor = #ff8000\nbody = fish\njoints = 10\nbody_length = 40\n"
            "[group.wolves]\nshare = 1\nbehaviors = hunt\nmaxspeed = 3\nvary.hunt = 0.5, 1.5, 200\n"
            "glyph = dot\nglyph_size = 3.5\n"
            "[relation]\nprey.wolves = flee\nwolves.prey = pursue\nwolves.wolves = ignore\n"
            "[obstacle]\ncenter = 10, 20\nradius = 5\n[obstacle]\ncenter = -30, 40\nradius = 6\n"
            "[path]\npoint = -300, 0\npoint = 0, 100\npoint = 300, 0\nradius = 15\nclosed = true\n"
            "[flowfield]\nkind = swirl\nresolution = 25\nnoise_scale = 0.02\nseed = 9\n"
            "[target]\nmode = circle\ncenter = 10, 10\nradius = 100\nperiod = 400\n");
    const boids_params *p = &sc.params;
    ck_assert_str_eq(sc.title, "Two species");
    ck_assert_uint_eq(p->world.count, 3000);
    ck_assert_float_eq(p->world.size[0], 800.0f);
    ck_assert_float_eq(p->world.min[1], -300.0f);
    ck_assert_uint_eq(p->world.boundary, BOIDS_BOUNDARY_WALLS);
    ck_assert_float_eq(p->world.dt, 0.5f);
    ck_assert_uint_eq(p->world.seed_lo, 2);
    ck_assert_uint_eq(p->world.seed_hi, 1);
    ck_assert_uint_eq(p->world.combine, BOIDS_COMBINE_PRIORITY);
    ck_assert_uint_eq(sc.distribution, BOIDS_DIST_CLUSTERED);
    ck_assert_uint_eq(p->world.group_count, 2);
    ck_assert_str_eq(sc.group_name[1], "wolves");
    ck_assert_float_eq(p->group_share[0], 9.0f);
    ck_assert_uint_eq(p->group[0].behaviors, BOIDS_B_FLOCKING | BOIDS_BIT(BOIDS_BI_ESCAPE));
    ck_assert_float_eq(p->group[0].weight[BOIDS_BI_ESCAPE >> 2][BOIDS_BI_ESCAPE & 3], 3.0f);
    ck_assert_float_eq_tol(p->group[0].fov_cos, cosf(135.0f * BOIDS_PI / 180.0f), 1e-6f);
    ck_assert_float_eq_tol(sc.color[0][1], 128.0f / 255.0f, 1e-6f);
    ck_assert_uint_eq(p->body[0].style, BOIDS_BODY_FISH);
    ck_assert_uint_eq(p->body[0].joints, 10);
    ck_assert_uint_eq(sc.glyph[0], BOIDS_GLYPH_DEFAULT);
    ck_assert_float_eq(sc.glyph_size[0], 0.0f);
    ck_assert_uint_eq(sc.glyph[1], BOIDS_GLYPH_DOT);
    ck_assert_float_eq(sc.glyph_size[1], 3.5f);
    ck_assert_uint_eq((p->group[0].relations >> 2) & 3u, BOIDS_REL_FLEE);
    ck_assert_uint_eq(p->group[1].relations & 3u, BOIDS_REL_PURSUE);
    ck_assert_uint_eq((p->group[1].relations >> 2) & 3u, BOIDS_REL_IGNORE);
    ck_assert_uint_eq(p->scene.obstacle_count, 2);
    ck_assert_float_eq(p->scene.obstacle[1][0], -30.0f);
    ck_assert_float_eq(p->scene.obstacle[1][3], 6.0f);
    ck_assert_uint_eq(p->scene.path_count, 3);
    ck_assert_uint_eq(p->scene.path_flags, BOIDS_PATH_CLOSED);
    ck_assert_float_eq(p->scene.path_radius, 15.0f);
    ck_assert_uint_eq(p->flow.kind, BOIDS_FLOW_SWIRL);
    ck_assert_uint_eq(p->flow.noise_seed, 9);
    ck_assert_int_eq(sc.target_mode, BOIDS_TARGET_CIRCLE);
    ck_assert(boids_scenario_is_dynamic(&sc));
    // Time: the target a quarter turn on, the hunt weight at its top.
    boids_params q = sc.params;
    boids_scenario_at_step(&sc, 100, &q);
    ck_assert_float_eq_tol(q.world.target_pos[0], 10.0f, 1e-3f);
    ck_assert_float_eq_tol(q.world.target_pos[1], 110.0f, 1e-3f);
    ck_assert_float_lt(q.world.target_vel[0], 0.0f);
    boids_scenario_at_step(&sc, 50, &q);
    ck_assert_float_eq_tol(q.group[1].weight[BOIDS_BI_HUNT >> 2][BOIDS_BI_HUNT & 3], 1.5f, 1e-5f);
    // The prey are 90 % of the agents.
    boids_sim *s;
    ck_assert_int_eq(boids_sim_create(&s, &sc.params, BOIDS_DIST_UNIFORM), BOIDS_OK);
    uint32_t prey = 0;
    for (uint32_t i = 0; i < s->n; i++)
        prey += s->cur.group[i] == 0;
    ck_assert_uint_eq(prey, 2700);
    boids_sim_destroy(s);
}
END_TEST

START_TEST(defaults_and_3d) {
    load_ok("");
    ck_assert_uint_eq(sc.params.world.group_count, 1);
    ck_assert_uint_eq(sc.params.world.count, 1000);
    ck_assert_str_eq(sc.group_name[0], "default");
    load_ok("[world]\nsize = 300x300x300\n[target]\nposition = 1, 2, 3\n");
    ck_assert_uint_eq(sc.params.world.dim, 3);
    ck_assert_float_eq(sc.params.world.target_pos[2], 3.0f);
}
END_TEST

START_TEST(bad_files) {
    load_bad("[wrld]\ncount = 5\n", ARGV("t.ini:1:", "'wrld' is not a section", "did you mean 'world'"));
    load_bad("[world]\ncont = 5\n", ARGV("t.ini:2:", "[world] cont", "did you mean 'count'"));
    load_bad("[group.a]\nmaxsped = 2\n", ARGV("t.ini:2:", "[group.a] maxsped", "did you mean 'maxspeed'"));
    load_bad("[world]\n\nsize = 10x\n", ARGV("t.ini:3:", "[world] size: '10x'", "WIDTHxHEIGHT"));
    load_bad("[group.a]\nmaxspeed = fast\n", ARGV("t.ini:2:", "maxspeed: 'fast' is not a number", "1e-6..1e9"));
    load_bad("[group.a]\nmaxforce = -1\n", ARGV("t.ini:2:", "maxforce: '-1' is negative", "a maximum steering force > 0"));
    load_bad("[group.a]\nmaxspeed = inf\n", ARGV("maxspeed: 'inf' is not a finite number"));
    load_bad("[world]\ncount = 0\n", ARGV("count: '0' is too small", "1..16777216"));
    load_bad("[world]\ndim = 4\n", ARGV("dim: '4'", "2 or 3"));
    load_bad("[group.a]\nfov = 400\n", ARGV("fov: '400' is more than 360", "0 < fov <= 360"));
    load_bad("[group.a]\nwander_change = 4\n", ARGV("wander_change: '4' is too large"));
    load_bad("[group.a]\nbehaviors = seek, flok\n", ARGV("unknown behaviour 'flok'", "cohesion"));
    load_bad("[group.a]\nweight.sepration = 2\n", ARGV("unknown behaviour 'sepration'"));
    load_bad("[path]\npoint = 1, 2\n", ARGV("[path]", "fewer than 2 points"));
    load_bad("[path]\npoint = 1\n", ARGV("point: '1' has too few numbers"));
    load_bad("[group.a]\n[relation]\na.b = flee\n", ARGV("t.ini:3:", "[relation] a.b", "unknown group 'b'", "a"));
    load_bad("[relation]\nab = flee\n", ARGV("is not GROUP.OTHER"));
    load_bad("[group.a]\n[relation]\na.a = love\n", ARGV("'love' is not a relation", "flock, ignore, flee or pursue"));
    load_bad("[obstacle]\ncenter = 1, 2\n", ARGV("[obstacle] has no radius"));
    load_bad("[world]\nboundary = torus\n", ARGV("'torus' is not a boundary mode", "wrap, walls, bounce or margin"));
    load_bad("just words\n", ARGV("t.ini:1:", "not a section, a key = value or a comment"));
    load_bad("[group.a b]\nshare = 1\n", ARGV("is not a group section"));
    load_bad("[group.a]\nbody = eel\n", ARGV("'eel' is not a body style"));
    load_bad("[group.a]\njoints = 40\n", ARGV("joints: '40' is too large", "2..32"));
    load_bad("[group.a]\ncolor = red\n", ARGV("'red' is not a colour", "#rrggbb"));
    load_bad("[world]\ncount = 5\ncount = 6\n", ARGV("t.ini:3:", "[world] count: is given twice (first on line 2)"));
    load_bad("[group.a]\nmaxspeed = 2\n[world]\n[group.a]\nmaxforce = 1\n",
             ARGV("t.ini:4:", "'[group.a]' is given twice (first on line 1)"));
    load_bad("[group.a]\nglyph = star\n", ARGV("t.ini:2:", "'star' is not a glyph", "default, arrow, wedge or dot"));
    load_bad("[group.a]\nglyph_size = 17\n", ARGV("glyph_size: '17' is too large"));
    load_bad("[group.a]\nglyph_size = -1\n", ARGV("glyph_size: '-1'"));
    load_bad("[flowfield]\nimage = /nonexistent.png\n", ARGV("is not a file"));
    load_bad("[world]\nsize = 100x100\n[group.a]\nradius = 80\n", ARGV("rejected", "radius"));
    load_bad("[world]\ndim = 2\nsize = 10x10x10\n", ARGV("size", "3 extents"));
    char long_line[400];
    memset(long_line, 'x', sizeof long_line);
    memcpy(long_line, "[world]\ntitle = ", 16);
    long_line[sizeof long_line - 2] = '\n';
    long_line[sizeof long_line - 1] = '\0';
    load_bad(long_line, ARGV("t.ini:2:", "too long", "198"));
    // A title or example whose written "example = TEXT" line would not load
    // back (fuzz_scenario's regression-long-example.ini); 188 characters fit.
    char text[300];
    snprintf(text, sizeof text, "[scenario]\nexample=%0189d\n", 0);
    load_bad(text, ARGV("t.ini:2:", "[scenario] example", "is 189 characters long", "at most 188"));
    snprintf(text, sizeof text, "[scenario]\ntitle=%0188d\n", 0);
    load_ok(text);
    ck_assert_uint_eq(strlen(sc.title), 188);
    load_bad("[world]\ndt = 0x1p-1\n", ARGV("dt: '0x1p-1' is not a decimal number"));
    load_bad("[flowfield]\nkind = image\n", ARGV("t.ini:2:", "needs an image"));
    // A target placed at the origin stays there (it is not "unset").
    load_ok("[world]\norigin = -50, -50\nsize = 100x100\n[target]\nposition = 0, 0\n");
    boids_params q = sc.params;
    ck_assert_int_eq(boids_params_finalize(&q, NULL, 0), BOIDS_OK);
    ck_assert_float_eq(q.world.target_pos[0], 0.0f);
    // A group the file names after its relation is fine (resolved at the end).
    load_ok("[relation]\na.b = flee\n[group.a]\n[group.b]\n");
}
END_TEST

START_TEST(missing_file) {
    boids_result r = boids_scenario_load("/nonexistent/x.ini", &sc, err, sizeof err);
    ck_assert_int_eq(r, BOIDS_ERR_IO);
    ck_assert_msg(strstr(err, "/nonexistent/x.ini") && strstr(err, "cannot be opened"), "got: %s", err);
    r = boids_scenario_load("/tmp", &sc, err, sizeof err);
    ck_assert_int_eq(r, BOIDS_ERR_IO);
    ck_assert_msg(strstr(err, "is a directory"), "got: %s", err);
}
END_TEST

// ---- through boids-run -------------------------------------------------------------

// The last line's state hash of a successful run.
static unsigned long long run_hash(const char *const *argv) {
    run_result r = boids_test_run(RUN_BIN, argv, TMP, "scenario");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "boids-run failed: %s", r.err);
    char hash[17];
    boids_test_state_hash(&r, hash);
    unsigned long long v = strtoull(hash, NULL, 16);
    boids_test_run_free(&r);
    return v;
}

static const char scenario_text[] =
    "[world]\ncount = 1500\nseed = 5\n"
    "[group.fish]\nshare = 4\nbehaviors = flocking, escape, wander\nbody = snake\njoints = 6\nfov = 300\n"
    "[group.shark]\nshare = 1\nbehaviors = hunt, separation\nmaxspeed = 3.3\nvary.hunt = 0.2, 1.8, 40\n"
    "glyph = wedge\nglyph_size = 2.5\n"
    "[relation]\nfish.shark = flee\nshark.fish = pursue\n"
    "[target]\nmode = circle\nperiod = 90\n";

START_TEST(run_dump_roundtrip) {
    mkdir(TMP, 0755);
    const char *path = TMP "/round.ini", *dump = TMP "/round-dump.ini";
    boids_test_write(path, scenario_text, strlen(scenario_text));
    unsigned long long a = run_hash(ARGV("boids-run", "--scenario", path, "--steps", "40", "--quiet"));
    // The dump loads back to the same run.
    run_result r = boids_test_run(RUN_BIN, ARGV("boids-run", "--scenario", path, "--dump-scenario"), TMP, "dump");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "dump failed: %s", r.err);
    ck_assert_msg(strstr(r.out, "glyph = wedge\nglyph_size = 2.5\n"), "the glyph keys are missing from the dump: %s",
                  r.out);
    boids_test_write(dump, r.out, strlen(r.out));
    boids_test_run_free(&r);
    unsigned long long b = run_hash(ARGV("boids-run", "--scenario", dump, "--steps", "40", "--quiet"));
    ck_assert_msg(a == b, "the dumped scenario runs differently: %016llx vs %016llx", a, b);
    // Flags override the file: another seed, another run; the dump of the
    // overridden run carries the flags.
    unsigned long long c = run_hash(ARGV("boids-run", "--scenario", path, "--steps", "40", "--quiet", "--seed", "6"));
    ck_assert_msg(c != a, "--seed did not override the file");
    r = boids_test_run(RUN_BIN,
                       ARGV("boids-run", "--scenario", path, "--dump-scenario", "--seed", "6", "--count", "700",
                            "--maxforce", "0.07", "--fov", "250"),
                       TMP, "dump");
    boids_test_write(dump, r.out, strlen(r.out));
    ck_assert_msg(strstr(r.out, "seed = 6\n") && strstr(r.out, "count = 700\n") && strstr(r.out, "maxforce = 0.07"),
                  "flags missing from the dump: %s", r.out);
    boids_test_run_free(&r);
    unsigned long long d = run_hash(ARGV("boids-run", "--scenario", path, "--steps", "30", "--quiet", "--seed", "6",
                                         "--count", "700", "--maxforce", "0.07", "--fov", "250"));
    unsigned long long e = run_hash(ARGV("boids-run", "--scenario", dump, "--steps", "30", "--quiet"));
    ck_assert_msg(d == e, "the dump of an overridden run runs differently: %016llx vs %016llx", d, e);
    // Without a file too: the dump of plain flags.
    r = boids_test_run(RUN_BIN, ARGV("boids-run", "--count", "800", "--dump-scenario", "--behaviors", "all"), TMP,
                       "dump");
    boids_test_write(dump, r.out, strlen(r.out));
    boids_test_run_free(&r);
    unsigned long long f =
        run_hash(ARGV("boids-run", "--count", "800", "--steps", "20", "--quiet", "--behaviors", "all"));
    unsigned long long g = run_hash(ARGV("boids-run", "--scenario", dump, "--steps", "20", "--quiet"));
    ck_assert_msg(f == g, "the dump of flags alone runs differently: %016llx vs %016llx", f, g);
}
END_TEST

START_TEST(path_options) {
    // [path] outside = clamp | end and line = segment | infinite: bits of
    // scene.path_flags beside closed; the defaults leave them clear.
    load_ok("[path]\npoint = 0, 0\npoint = 100, 0\n");
    ck_assert_uint_eq(sc.params.scene.path_flags, 0u);
    load_ok("[path]\npoint = 0, 0\npoint = 100, 0\noutside = end\nclosed = true\n");
    ck_assert_uint_eq(sc.params.scene.path_flags, BOIDS_PATH_OUTSIDE_END | BOIDS_PATH_CLOSED);
    load_ok("[path]\npoint = 0, 0\npoint = 100, 0\nline = infinite\noutside = clamp\n");
    ck_assert_uint_eq(sc.params.scene.path_flags, BOIDS_PATH_LINE_INFINITE);
    load_ok("[path]\npoint = 0, 0\npoint = 100, 0\nline = segment\nclosed = true\n");
    ck_assert_uint_eq(sc.params.scene.path_flags, BOIDS_PATH_CLOSED);
    // A key twice is refused, not silently the later one (point alone repeats).
    load_bad("[path]\npoint = 0, 0\npoint = 100, 0\noutside = end\noutside = clamp\n",
             ARGV("t.ini:5:", "[path] outside: is given twice (first on line 4)"));
    load_bad("[path]\npoint = 0, 0\npoint = 100, 0\noutside = start\n",
             ARGV("t.ini:4:", "[path] outside: 'start'", "clamp or end"));
    load_bad("[path]\nline = ray\n", ARGV("t.ini:2:", "[path] line: 'ray'", "segment or infinite"));
    load_bad("[path]\noutsid = end\n", ARGV("t.ini:2:", "did you mean 'outside'"));
    // The flags set them over the file; --dump-scenario writes them and
    // loads back to the same run.
    mkdir(TMP, 0755);
    const char *dump = TMP "/path-dump.ini";
    run_result r = boids_test_run(RUN_BIN,
                                  ARGV("boids-run", "--scenario", "path-segments", "--dump-scenario", "--path-outside",
                                       "end", "--path-line", "infinite"),
                                  TMP, "dump");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "dump failed: %s", r.err);
    ck_assert_msg(strstr(r.out, "\noutside = end\n") && strstr(r.out, "\nline = infinite\n"),
                  "expected 'outside = end' and 'line = infinite' in the dump: %s", r.out);
    boids_test_write(dump, r.out, strlen(r.out));
    boids_test_run_free(&r);
    unsigned long long a = run_hash(ARGV("boids-run", "--scenario", "path-segments", "--count", "300", "--steps", "20",
                                         "--quiet", "--path-outside", "end", "--path-line", "infinite"));
    unsigned long long b =
        run_hash(ARGV("boids-run", "--scenario", dump, "--count", "300", "--steps", "20", "--quiet"));
    ck_assert_msg(a == b, "the dump with the path options runs differently: %016llx vs %016llx", a, b);
    // Each option changes the run of path-segments (agents outside its
    // segments and off its lines exist); the file says outside = end (the
    // book's 5.8), and its line is the default segment.
    unsigned long long base =
        run_hash(ARGV("boids-run", "--scenario", "path-segments", "--count", "300", "--steps", "20", "--quiet"));
    unsigned long long clamp = run_hash(ARGV("boids-run", "--scenario", "path-segments", "--count", "300", "--steps",
                                             "20", "--quiet", "--path-outside", "clamp"));
    unsigned long long line = run_hash(ARGV("boids-run", "--scenario", "path-segments", "--count", "300", "--steps",
                                            "20", "--quiet", "--path-line", "infinite"));
    unsigned long long same = run_hash(ARGV("boids-run", "--scenario", "path-segments", "--count", "300", "--steps",
                                            "20", "--quiet", "--path-outside", "end", "--path-line", "segment"));
    ck_assert_msg(clamp != base && line != base && clamp != line && same == base,
                  "state hashes: the file's %016llx, clamp %016llx, infinite %016llx, end+segment %016llx (expected "
                  "the last equal to the file's, the others different)",
                  base, clamp, line, same);
    // A snapshot keeps them: 10 steps, saved, 10 more from the file equal 20
    // with the flags.
    const char *snap = TMP "/path-options.boids";
    unlink(snap);
    run_hash(ARGV("boids-run", "--scenario", "path-segments", "--count", "300", "--steps", "10", "--quiet",
                  "--path-outside", "end", "--path-line", "infinite", "--save", snap));
    unsigned long long loaded = run_hash(ARGV("boids-run", "--load", snap, "--steps", "10", "--quiet"));
    ck_assert_msg(loaded == a, "10 + 10 steps through a snapshot: %016llx, 20 steps with the flags: %016llx", loaded,
                  a);
    unlink(snap);
    r = boids_test_run(RUN_BIN,
                       ARGV("boids-run", "--scenario", "path-simple", "--path-line", "segment", "--dump-scenario"), TMP,
                       "dump");
    ck_assert_msg(strstr(r.out, "\noutside = clamp\n") && strstr(r.out, "\nline = segment\n"),
                  "expected the defaults 'outside = clamp' and 'line = segment' in the dump: %s", r.out);
    boids_test_run_free(&r);
}
END_TEST

START_TEST(run_bad_file_exits_2) {
    mkdir(TMP, 0755);
    const char *path = TMP "/bad.ini";
    static const char bad[] = "[world]\ncount = 100\n[group.a]\nradius = -5\n";
    boids_test_write(path, bad, sizeof bad - 1);
    run_result r = boids_test_run(RUN_BIN, ARGV("boids-run", "--scenario", path, "--steps", "1"), TMP, "bad");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "expected exit 2: %s", r.err);
    size_t len = strlen(r.err);
    ck_assert_msg(len > 0 && strchr(r.err, '\n') == r.err + len - 1, "expected one line: %s", r.err);
    ck_assert_msg(strstr(r.err, "bad.ini:4:") && strstr(r.err, "radius: '-5'"), "got: %s", r.err);
    ck_assert_msg(r.out[0] == '\0', "nothing on stdout: %s", r.out);
    boids_test_run_free(&r);
    // Each kind of bad file through the executable: exit 2, one line, the line number.
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"[wrld]\n", "bad.ini:1:"},
        {"[world]\ncont = 3\n", "did you mean 'count'"},
        {"[group.a]\nmaxspeed = fast\n", "bad.ini:2:"},
        {"[group.a]\nfov = 720\n", "0 < fov <= 360"},
        {"[path]\npoint = 1, 2\n", "fewer than 2 points"},
        {"[group.a]\n[relation]\na.zz = flee\n", "unknown group 'zz'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        boids_test_write(path, cases[k].text, strlen(cases[k].text));
        run_result q = boids_test_run(RUN_BIN, ARGV("boids-run", "--scenario", path, "--steps", "1"), TMP, "bad");
        size_t n = strlen(q.err);
        ck_assert_msg(WIFEXITED(q.status) && WEXITSTATUS(q.status) == 2 && n > 0 &&
                          strchr(q.err, '\n') == q.err + n - 1 && strstr(q.err, cases[k].needle),
                      "case %zu: expected exit 2 and one line with '%s', got status %d: %s", k, cases[k].needle,
                      q.status, q.err);
        boids_test_run_free(&q);
    }
    r = boids_test_run(RUN_BIN, ARGV("boids-run", "--scenario", "no-such-scenario", "--steps", "1"), TMP, "bad");
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "expected exit 2: %s", r.err);
    ck_assert_msg(strstr(r.err, "no-such-scenario") && strstr(r.err, "--list-scenarios"), "got: %s", r.err);
    boids_test_run_free(&r);
}
END_TEST

// Texts that start with ';' load back as they were written: the file's
// "title =;x" holds ";x", which written as "title = ;x" would read as an
// empty title (inih: a ';' after whitespace starts an inline comment).
// Found by fuzz_scenario; the input is in its corpus.
START_TEST(text_starting_with_semicolon) {
    boids_scenario *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ck_assert(a && b);
    char err[512] = "", *text = NULL;
    size_t len = 0;
    ck_assert_msg(boids_scenario_load_string("[scenario]\ntitle =;semi title\nexample =;semi example\n", "semi.ini", a,
                                             err, sizeof err) == BOIDS_OK,
                  "load: %s", err);
    ck_assert_str_eq(a->title, ";semi title");
    FILE *f = open_memstream(&text, &len);
    ck_assert(f && boids_scenario_write(a, f));
    fclose(f);
    ck_assert_msg(boids_scenario_load_string(text, "written.ini", b, err, sizeof err) == BOIDS_OK, "reload: %s", err);
    ck_assert_msg(strcmp(b->title, ";semi title") == 0 && strcmp(b->example, ";semi example") == 0,
                  "expected the texts back, got title '%s', example '%s' from:\n%s", b->title, b->example, text);
    free(text);
    free(a);
    free(b);
}
END_TEST

// NULL for a path, text, scenario or stream: BOIDS_ERR_ARGUMENT with err
// naming the function, false, or nothing done; none crashes.
START_TEST(null_arguments) {
    char err[256] = "", out[64];
    boids_scenario *sc = malloc(sizeof *sc);
    ck_assert(sc != NULL);
    ck_assert(boids_scenario_load(NULL, sc, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "boids_scenario_load") && strstr(err, "NULL"), "got '%s'", err);
    ck_assert(boids_scenario_load("x.ini", NULL, NULL, 0) == BOIDS_ERR_ARGUMENT);
    bool key = true;
    ck_assert(boids_scenario_load_with(NULL, NULL, 0, sc, err, sizeof err, &key) == BOIDS_ERR_ARGUMENT && !key);
    ck_assert(boids_scenario_load_with("x.ini", NULL, 2, sc, NULL, 0, NULL) == BOIDS_ERR_ARGUMENT);
    ck_assert(boids_scenario_load_string(NULL, "t.ini", sc, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    ck_assert(boids_scenario_load_string("[world]\n", "t.ini", NULL, NULL, 0) == BOIDS_ERR_ARGUMENT);
    ck_assert_msg(boids_scenario_load_string("[world]\ncount = 10\n", NULL, sc, err, sizeof err) == BOIDS_OK,
                  "a NULL name: expected the text loaded, got '%s'", err);
    boids_scenario_default(NULL);
    ck_assert(!boids_scenario_write(NULL, stdout) && !boids_scenario_write(sc, NULL));
    ck_assert(!boids_scenario_is_dynamic(NULL) && !boids_scenario_target_scheduled(NULL));
    boids_scenario_at_step(NULL, 1, &sc->params);
    boids_scenario_size_world(NULL, &sc->params);
    ck_assert(!boids_scenario_find(NULL, out, sizeof out) && !boids_scenario_find("flocking", NULL, 0));
    ck_assert(boids_scenario_list(NULL) == -1);
    free(sc);
}
END_TEST

static Suite *scenario_suite(void) {
    Suite *s = suite_create("scenario");
    TCase *c = tcase_create("loader");
    tcase_add_test(c, every_section_applied);
    tcase_add_test(c, defaults_and_3d);
    tcase_add_test(c, bad_files);
    tcase_add_test(c, missing_file);
    tcase_add_test(c, text_starting_with_semicolon);
    tcase_add_test(c, null_arguments);
    suite_add_tcase(s, c);
    TCase *run = tcase_create("boids-run");
    tcase_set_timeout(run, 300);
    tcase_add_test(run, run_dump_roundtrip);
    tcase_add_test(run, run_bad_file_exits_2);
    tcase_add_test(run, path_options);
    suite_add_tcase(s, run);
    return s;
}

int main(void) {
    return boids_test_run_suite(scenario_suite());
}
