// tests/test_cli.c: the command-line interface, through the real boids-run.
// Each case spawns the executable (posix_spawn, no shell), captures stdout
// and stderr into files under BOIDS_TEST_TMP, and checks the exit status and
// the one-line error message (DESIGN.md "Errors": name what was wrong and what
// is allowed; exit 2 for bad input). No run may end by a signal.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include "spawn.h"

#define MAX_ARGS 64

// Runs boids-run with args (NULL-terminated, without argv[0]); waits for it.
static run_result run_boids(const char *const *args) {
    const char *argv[MAX_ARGS + 2];
    size_t n = 0;
    argv[n++] = "boids-run";
    for (; args[n - 1] && n <= MAX_ARGS; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    return boids_test_run(RUN_BIN, argv, TMP, "run");
}

#define run_free boids_test_run_free
#define slurp boids_test_slurp

// Asserts that the run started, did not end by a signal, and exited with `code`.
static void assert_exit(const run_result *r, int code) {
    ck_assert_msg(r->spawned, "expected to start %s (build the boids-run target first)", RUN_BIN);
    ck_assert_msg(!WIFSIGNALED(r->status), "expected exit status %d, got signal %d; stderr: %s", code,
                  WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0, r->err);
    ck_assert_msg(WIFEXITED(r->status) && WEXITSTATUS(r->status) == code, "expected exit status %d, got %d; stderr: %s",
                  code, WEXITSTATUS(r->status), r->err);
}

// Asserts the error contract: exit 2, nothing on stdout, exactly one line on
// stderr starting "boids-run: ", containing every needle.
static void expect_error_code(const char *const *args, int code, const char *const *needles) {
    run_result r = run_boids(args);
    assert_exit(&r, code);
    ck_assert_msg(r.out[0] == '\0', "expected no stdout on error, got: %s", r.out);
    size_t len = strlen(r.err);
    ck_assert_msg(len > 0 && r.err[len - 1] == '\n' && strchr(r.err, '\n') == r.err + len - 1,
                  "expected exactly one line on stderr, got: %s", r.err);
    ck_assert_msg(strncmp(r.err, "boids-run: ", 11) == 0, "expected stderr to start with 'boids-run: ', got: %s",
                  r.err);
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(r.err, needles[i]) != NULL, "expected stderr to contain \"%s\", got: %s", needles[i],
                      r.err);
    run_free(&r);
}

// expect_error_code with exit status 2 (bad input).
static void expect_error(const char *const *args, const char *const *needles) {
    expect_error_code(args, 2, needles);
}

// The value of the last line "state-hash: H" (16 hex digits), asserted present.
static unsigned long long last_hash(const run_result *r) {
    size_t len = strlen(r->out);
    ck_assert_msg(len > 0 && r->out[len - 1] == '\n', "expected stdout to end with a newline, got: %s", r->out);
    const char *last = r->out + len - 1;
    while (last > r->out && last[-1] != '\n')
        last--;
    ck_assert_msg(strncmp(last, "state-hash: ", 12) == 0, "expected the last line to be 'state-hash: H', got: %s",
                  last);
    const char *hex = last + 12;
    for (int i = 0; i < 16; i++)
        ck_assert_msg(strchr("0123456789abcdef", hex[i]) && hex[i], "expected 16 lowercase hex digits, got: %s", last);
    ck_assert_msg(hex[16] == '\n', "expected exactly 16 hex digits, got: %s", last);
    return strtoull(hex, NULL, 16);
}

// Runs args, expects exit 0 and returns the state hash.
static unsigned long long hash_of(const char *const *args) {
    run_result r = run_boids(args);
    assert_exit(&r, 0);
    unsigned long long h = last_hash(&r);
    run_free(&r);
    return h;
}

// Writes text to TMP/name; returns the path (static buffer per call site use).
static const char *write_tmp(const char *name, const char *text, char *path, size_t size) {
    snprintf(path, size, "%s/%s", TMP, name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "expected to create %s: %s", path, strerror(errno));
    fputs(text, f);
    ck_assert_msg(fclose(f) == 0, "expected to write %s", path);
    return path;
}

// Lines in a file (counting a last line without newline).
static size_t line_count(const char *path) {
    char *text = slurp(path);
    size_t n = 0, len = strlen(text);
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    if (len && text[len - 1] != '\n')
        n++;
    free(text);
    return n;
}

// ---- counts ----
START_TEST(count_zero_rejected) {
    expect_error(ARGV("--count", "0"), ARGV("--count: '0'", "too small", "expected an integer 1..16777216"));
}
END_TEST

START_TEST(count_negative_rejected) {
    expect_error(ARGV("--count", "-5"), ARGV("--count: '-5' is negative", "expected an integer 1..16777216"));
}
END_TEST

START_TEST(count_huge_rejected) {
    expect_error(ARGV("--count", "99999999999"), ARGV("--count: '99999999999' is too large", "1..16777216"));
    expect_error(ARGV("--count", "16777217"), ARGV("--count: '16777217' is too large"));
}
END_TEST

START_TEST(count_not_a_number_rejected) {
    expect_error(ARGV("--count", "abc"), ARGV("--count: 'abc' is not an integer", "expected"));
}
END_TEST

START_TEST(count_trailing_junk_rejected) {
    expect_error(ARGV("--count", "1e3x"), ARGV("--count: '1e3x' is not an integer"));
    expect_error(ARGV("--count", "12abc"), ARGV("--count: '12abc' is not an integer"));
}
END_TEST

START_TEST(count_nan_and_inf_rejected) {
    expect_error(ARGV("--count", "nan"), ARGV("--count: 'nan' is not an integer"));
    expect_error(ARGV("--count", "inf"), ARGV("--count: 'inf' is not an integer"));
}
END_TEST

START_TEST(count_required_without_init) {
    expect_error(ARGV("--steps", "5"), ARGV("--count: is required", "--init FILE.csv"));
}
END_TEST

// ---- steps, seed ----
START_TEST(steps_zero_rejected) {
    expect_error(ARGV("--count", "10", "--steps", "0"), ARGV("--steps: '0' is too small", "1..1000000000"));
}
END_TEST

START_TEST(steps_too_many_rejected) {
    expect_error(ARGV("--count", "10", "--steps", "1000000001"), ARGV("--steps: '1000000001' is too large"));
}
END_TEST

START_TEST(seed_above_2_64_rejected) {
    expect_error(ARGV("--count", "10", "--seed", "18446744073709551616"),
                 ARGV("--seed: '18446744073709551616' is too large", "0..18446744073709551615"));
}
END_TEST

// ---- flags ----
START_TEST(unknown_flag_suggests_nearest) {
    expect_error(ARGV("--cuont", "10"), ARGV("--cuont", "is not an option", "did you mean --count?"));
    expect_error(ARGV("--count", "10", "--step", "5"), ARGV("--step", "did you mean --steps?"));
}
END_TEST

// A value near one of its flag's names (a typo, a prefix) gets the name: shipped
// scenarios, rule sets, behaviours (in lists and weights), the flag table's own
// names; a far one gets none.
START_TEST(unknown_name_suggests_nearest) {
    expect_error(ARGV("--scenario", "predator-prey"),
                 ARGV("--scenario: 'predator-prey' is not a shipped scenario", "did you mean 'predators-prey'?"));
    expect_error(ARGV("--count", "10", "--rules", "vicsec"),
                 ARGV("--rules: 'vicsec' is not a rule set", "did you mean 'vicsek'?"));
    expect_error(ARGV("--count", "10", "--behaviors", "alignment,seperation"),
                 ARGV("unknown behaviour 'seperation' (did you mean 'separation'?)"));
    expect_error(ARGV("--count", "10", "--behaviors", "flock"), ARGV("did you mean 'flocking'?"));
    expect_error(ARGV("--count", "10", "--weights", "cohesoin=2"), ARGV("did you mean 'cohesion'?"));
    expect_error(ARGV("--count", "10", "--backend", "gpx"), ARGV("did you mean 'gpu'?"));
    expect_error(ARGV("--count", "10", "--index", "quad"), ARGV("did you mean 'quadtree'?"));
    run_result r = run_boids(ARGV("--count", "10", "--rules", "zzzzzz"));
    assert_exit(&r, 2);
    ck_assert_msg(strstr(r.err, "did you mean") == NULL, "expected no suggestion for a far name, got: %s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(unknown_flag_without_near_match) {
    run_result r = run_boids(ARGV("--count", "10", "--frobnicate", "3"));
    assert_exit(&r, 2);
    ck_assert_msg(strstr(r.err, "--frobnicate: is not an option") != NULL,
                  "expected '--frobnicate: is not an option', got: %s", r.err);
    ck_assert_msg(strstr(r.err, "did you mean") == NULL, "expected no suggestion for a far name, got: %s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(flag_of_another_program_rejected) {
    expect_error(ARGV("--count", "10", "--counts", "5,6"), ARGV("--counts", "is not an option of boids-run"));
}
END_TEST

START_TEST(missing_value_rejected) {
    expect_error(ARGV("--count"), ARGV("--count: needs a value", "expected --count N"));
    expect_error(ARGV("--count", "--steps", "5"), ARGV("--count: needs a value"));
}
END_TEST

START_TEST(positional_argument_rejected) {
    expect_error(ARGV("--count", "10", "extra"), ARGV("'extra' is not an option"));
}
END_TEST

START_TEST(quiet_with_value_rejected) {
    expect_error(ARGV("--count", "10", "--quiet=yes"), ARGV("--quiet: takes no value"));
}
END_TEST

// ---- dimension and world ----
START_TEST(dim_4_rejected) {
    expect_error(ARGV("--count", "10", "--dim", "4"), ARGV("--dim: '4' is not a dimension", "expected 2 or 3"));
}
END_TEST

START_TEST(world_zero_extent_rejected) {
    expect_error(ARGV("--count", "10", "--world", "0x100"), ARGV("--world: '0x100'", "width '0' that is zero"));
}
END_TEST

START_TEST(world_negative_extent_rejected) {
    expect_error(ARGV("--count", "10", "--world", "-5x10"), ARGV("--world: '-5x10'", "negative"));
}
END_TEST

START_TEST(world_not_a_number_rejected) {
    expect_error(ARGV("--count", "10", "--world", "100xabc"), ARGV("--world: '100xabc'", "'abc'", "not a number"));
    expect_error(ARGV("--count", "10", "--world", "100"), ARGV("--world: '100' has one extent", "WxH"));
}
END_TEST

START_TEST(world_3d_with_dim_2_rejected) {
    const char *const *needles = ARGV("--world: '100x100x100' has 3 extents but the run is 2D", "expected WxH");
    expect_error(ARGV("--count", "10", "--world", "100x100x100", "--dim", "2"), needles);
    expect_error(ARGV("--count", "10", "--dim", "2", "--world", "100x100x100"), needles);
}
END_TEST

START_TEST(world_2d_with_dim_3_rejected) {
    expect_error(ARGV("--count", "10", "--world", "100x100", "--dim", "3"),
                 ARGV("--world: '100x100' has 2 extents but the run is 3D", "WxHxD"));
}
END_TEST

START_TEST(origin_wrong_components_rejected) {
    expect_error(ARGV("--count", "10", "--origin", "1,2,3"), ARGV("--origin: '1,2,3' has 3 coordinates", "X,Y"));
}
END_TEST

START_TEST(radius_too_big_for_world_rejected) {
    expect_error(ARGV("--count", "10", "--world", "100x100", "--radius", "60"),
                 ARGV("--radius: '60' does not fit the world 100x100", "radius <= "));
}
END_TEST

START_TEST(world_too_small_for_default_radius_rejected) {
    expect_error(ARGV("--count", "10", "--world", "40x40"),
                 ARGV("--world: '40x40' is too small", "interaction radius 50", "at least 100x100"));
}
END_TEST

START_TEST(boundary_unknown_rejected) {
    expect_error(ARGV("--count", "10", "--boundary", "sideways"),
                 ARGV("--boundary: 'sideways' is not a boundary mode", "wrap, walls, bounce or margin"));
}
END_TEST

// ---- behaviours and weights ----
START_TEST(behaviors_unknown_rejected) {
    expect_error(ARGV("--count", "10", "--behaviors", "separation,bogus"),
                 ARGV("--behaviors: 'separation,bogus'", "unknown behaviour 'bogus'", "separation", "cohesion",
                      "wander", "all, none"));
}
END_TEST

START_TEST(weights_not_a_number_rejected) {
    expect_error(ARGV("--count", "10", "--weights", "separation=abc"),
                 ARGV("--weights: 'separation=abc'", "'abc'", "not a number"));
}
END_TEST

START_TEST(weights_unknown_behavior_rejected) {
    expect_error(ARGV("--count", "10", "--weights", "unknown=1"),
                 ARGV("--weights: 'unknown=1'", "unknown behaviour 'unknown'", "alignment"));
}
END_TEST

// ---- numbers ----
START_TEST(radius_zero_rejected) {
    expect_error(ARGV("--count", "10", "--radius", "0"), ARGV("--radius: '0' is zero", "> 0"));
}
END_TEST

START_TEST(radius_negative_rejected) {
    expect_error(ARGV("--count", "10", "--radius", "-1"), ARGV("--radius: '-1' is negative", "> 0"));
}
END_TEST

START_TEST(radius_nan_rejected) {
    expect_error(ARGV("--count", "10", "--radius", "nan"), ARGV("--radius: 'nan' is not a finite number"));
}
END_TEST

START_TEST(separation_zero_rejected) {
    expect_error(ARGV("--count", "10", "--separation", "0"), ARGV("--separation: '0' is zero", "> 0"));
}
END_TEST

START_TEST(fov_zero_rejected) {
    expect_error(ARGV("--count", "10", "--fov", "0"), ARGV("--fov: '0' is zero", "0 < fov <= 360"));
}
END_TEST

START_TEST(fov_400_rejected) {
    expect_error(ARGV("--count", "10", "--fov", "400"), ARGV("--fov: '400' is more than 360", "0 < fov <= 360"));
}
END_TEST

START_TEST(maxspeed_zero_rejected) {
    expect_error(ARGV("--count", "10", "--maxspeed", "0"), ARGV("--maxspeed: '0' is zero", "1e-6..1e9"));
}
END_TEST

START_TEST(maxforce_negative_rejected) {
    expect_error(ARGV("--count", "10", "--maxforce", "-0.1"), ARGV("--maxforce: '-0.1' is negative"));
}
END_TEST

START_TEST(dt_inf_rejected) {
    expect_error(ARGV("--count", "10", "--dt", "inf"), ARGV("--dt: 'inf' is not a finite number", "1e-6..1000"));
}
END_TEST

START_TEST(dt_junk_rejected) {
    expect_error(ARGV("--count", "10", "--dt", "0.5s"), ARGV("--dt: '0.5s' is not a number"));
}
END_TEST

START_TEST(backend_unknown_rejected) {
    expect_error(ARGV("--count", "10", "--backend", "vulkan"),
                 ARGV("--backend: 'vulkan' is not a backend", "expected cpu or gpu"));
}
END_TEST

// ---- CSV input ----
START_TEST(bodies_bad_input_rejected) {
    expect_error(ARGV("--count", "10", "--bodies", "eel"),
                 ARGV("--bodies: 'eel' is not a body style", "none, chain, snake or fish"));
    expect_error(ARGV("--count", "10", "--bodies", "snake", "--joints", "1"), ARGV("--joints: '1'", "2..32"));
    expect_error(ARGV("--count", "10", "--bodies", "snake", "--joints", "33"), ARGV("--joints: '33'", "2..32"));
    expect_error(ARGV("--count", "10", "--bodies", "fish", "--body-length", "0"), ARGV("--body-length: '0' is zero"));
    expect_error(ARGV("--count", "10", "--bodies", "fish", "--body-length", "nan"),
                 ARGV("--body-length: 'nan' is not a finite number"));
    // Longer than half the wrapped world: the seam would be ambiguous.
    expect_error(ARGV("--count", "100", "--world", "200x200", "--bodies", "snake", "--body-length", "150"),
                 ARGV("--body-length", "150 long", "< 100"));
    // The demo is the viewer's.
    expect_error(ARGV("--count", "10", "--demo", "snake"), ARGV("--demo"));
}
END_TEST

START_TEST(bodies_run_and_hash) {
    // Bodies follow the agents without changing them: the same state hash.
    run_result a = run_boids(ARGV("--count", "500", "--steps", "20", "--quiet"));
    run_result b = run_boids(ARGV("--count", "500", "--steps", "20", "--quiet", "--bodies", "snake", "--joints", "32"));
    assert_exit(&a, 0);
    assert_exit(&b, 0);
    ck_assert_uint_eq(last_hash(&a), last_hash(&b));
    run_free(&a);
    run_free(&b);
}
END_TEST

START_TEST(csv_bad_number_names_line_and_column) {
    char path[512];
    write_tmp("bad-number.csv",
              "id,group,px,py,pz,vx,vy,vz\n0,0,1,2,0,0.5,0,0\n1,0,3,4,0,0,0.5,0\n"
              "2,0,abc,4,0,0,0.5,0\n",
              path, sizeof path);
    expect_error(ARGV("--init", path),
                 ARGV("--init: '", "bad-number.csv'", "line 4, column 3 (px): 'abc' is not a number"));
}
END_TEST

START_TEST(csv_missing_column_rejected) {
    char path[512];
    write_tmp("missing-column.csv", "id,group,px,py,vx,vy\n0,0,1,2,0.5,0\n1,0,3,4,0\n", path, sizeof path);
    expect_error(ARGV("--init", path), ARGV("line 3: 5 columns", "expected 6"));
}
END_TEST

START_TEST(csv_duplicate_id_rejected) {
    char path[512];
    write_tmp("duplicate-id.csv", "id,group,px,py,vx,vy\n0,0,1,2,0.5,0\n1,0,3,4,0,1\n1,0,5,6,1,0\n", path, sizeof path);
    expect_error(ARGV("--init", path), ARGV("line 4, column 1 (id): '1' is a duplicate of line 3"));
}
END_TEST

START_TEST(csv_missing_id_rejected) {
    char path[512];
    write_tmp("missing-id.csv", "id,group,px,py,vx,vy\n0,0,1,2,0.5,0\n2,0,3,4,0,1\n", path, sizeof path);
    expect_error(ARGV("--init", path), ARGV("line 3, column 1 (id): '2' is out of range"));
}
END_TEST

START_TEST(csv_wrong_header_rejected) {
    char path[512];
    write_tmp("wrong-header.csv", "id,grp,x,y,vx,vy\n0,0,1,2,0.5,0\n", path, sizeof path);
    expect_error(ARGV("--init", path), ARGV("line 1: 'id,grp,x,y,vx,vy' is not the header", "id,group,px,py"));
}
END_TEST

START_TEST(csv_empty_file_rejected) {
    char path[512];
    write_tmp("empty.csv", "", path, sizeof path);
    expect_error(ARGV("--init", path), ARGV("empty.csv'", "empty file"));
}
END_TEST

START_TEST(csv_nonexistent_file_named) {
    expect_error(ARGV("--init", TMP "/no-such-file.csv"),
                 ARGV("--init: '" TMP "/no-such-file.csv' cannot be opened", "No such file"));
}
END_TEST

START_TEST(csv_bad_group_rejected) {
    char path[512];
    write_tmp("bad-group.csv", "id,group,px,py,vx,vy\n0,8,1,2,0.5,0\n", path, sizeof path);
    expect_error(ARGV("--init", path), ARGV("line 2, column 2 (group): '8'", "0..7"));
}
END_TEST

// A group the parameters lack (one group without a scenario) is refused,
// naming the agent, not given the defaults' parameters; with a scenario of
// three groups the same file runs.
START_TEST(csv_group_beyond_groups_rejected) {
    char path[512];
    write_tmp("group-two.csv", "id,group,px,py,vx,vy\n0,0,1,2,0.5,0\n1,2,3,4,0,1\n", path, sizeof path);
    expect_error(ARGV("--init", path), ARGV("--init: '", "agent 1 is in group 2", "groups 0..0"));
    run_result r = run_boids(ARGV("--init", path, "--scenario", "predators-prey", "--count", "2", "--steps", "1"));
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "three groups: status %d, stderr: %s",
                  r.status, r.err);
    boids_test_run_free(&r);
}
END_TEST

START_TEST(csv_2d_file_in_3d_run_rejected) {
    char path[512];
    write_tmp("flat.csv", "id,group,px,py,vx,vy\n0,0,1,2,0.5,0\n", path, sizeof path);
    expect_error(ARGV("--init", path, "--dim", "3"), ARGV("2D header in a 3D run"));
}
END_TEST

START_TEST(csv_count_mismatch_rejected) {
    char path[512];
    write_tmp("two.csv", "id,group,px,py,vx,vy\n0,0,1,2,0.5,0\n1,0,3,4,0,1\n", path, sizeof path);
    expect_error(ARGV("--init", path, "--count", "5"), ARGV("--count: '5' does not match the 2 agents", "--count 2"));
}
END_TEST

// The count of an init file is the file's: a scenario without a count key
// takes it (it used to fail blaming --count '1000', a flag never given);
// one with a count names itself and both counts; --count overrides it.
START_TEST(csv_count_with_scenario) {
    char csv[512], bare[512], counted[512];
    write_tmp("two-sc.csv", "id,group,px,py,vx,vy\n0,0,1,2,0.5,0\n1,0,3,4,0,1\n", csv, sizeof csv);
    write_tmp("bare.ini", "[world]\nsize = 640x240\n", bare, sizeof bare);
    write_tmp("counted.ini", "[world]\ncount = 7\nsize = 640x240\n", counted, sizeof counted);
    run_result r = run_boids(ARGV("--scenario", bare, "--init", csv, "--steps", "3", "--quiet"));
    assert_exit(&r, 0);
    ck_assert_msg(r.err[0] == '\0', "stderr: %s", r.err);
    last_hash(&r);
    run_free(&r);
    char said[600];
    snprintf(said, sizeof said, "--scenario '%s' says count = 7", counted);
    expect_error(ARGV("--scenario", counted, "--init", csv),
                 ARGV("--init: '" TMP "/two-sc.csv' holds 2 agents", said, "a CSV of 7 agents, or --count 2"));
    r = run_boids(ARGV("--scenario", counted, "--init", csv, "--count", "2", "--steps", "3", "--quiet"));
    assert_exit(&r, 0);
    run_free(&r);
    expect_error(ARGV("--scenario", counted, "--init", csv, "--count", "7"),
                 ARGV("--count: '7' does not match the 2 agents", "--count 2"));
}
END_TEST

// ---- CSV output ----
START_TEST(export_to_missing_directory_fails_at_start) {
    const char *path = TMP "/no-such-dir/out.csv";
    expect_error(ARGV("--count", "200", "--steps", "1000000", "--export-csv", path),
                 ARGV("--export-csv: '" TMP "/no-such-dir/out.csv' cannot be written", "no-such-dir"));
    struct stat st;
    ck_assert_msg(stat(path, &st) != 0, "expected no file at %s", path);
}
END_TEST

START_TEST(export_to_directory_rejected) {
    expect_error(ARGV("--count", "20", "--export-csv", TMP), ARGV("--export-csv", "is a directory"));
}
END_TEST

// ---- odd input never crashes ----
START_TEST(odd_arguments_never_crash) {
    static char longarg[5000];
    memset(longarg, '9', sizeof longarg - 1);
    const char *const *cases[] = {
        ARGV(""),
        ARGV("-"),
        ARGV("--"),
        ARGV("--="),
        ARGV("--count="),
        ARGV("--count", ""),
        ARGV("--count", "10", "--world", "x"),
        ARGV("--count", "10", "--world", "xxx"),
        ARGV("--count", "10", "--world", "1x2x3x4"),
        ARGV("--count", "10", "--weights", ",,,"),
        ARGV("--count", "10", "--weights", "="),
        ARGV("--count", "10", "--behaviors", ","),
        ARGV("--count", "10", "--behaviors", ""),
        ARGV("--count", "10", "--origin", ",,"),
        ARGV("--count", longarg),
        ARGV("--count", "10", "--world", longarg),
        ARGV(longarg),
        ARGV("--count", "10", "--radius", "1e999"),
        ARGV("--count", "10", "--radius", "1e-999"),
        ARGV("--count", "10", "--radius", "0x10"),
        ARGV("--count", " 10"),
        ARGV("--count", "+10"),
        ARGV("--count", "10", "--seed", "-1"),
        ARGV("--count", "10", "--seed", "0x"),
        ARGV("--count", "10", "--fov", "-0"),
        ARGV("--count", "10", "--threads", "-2"),
        ARGV("--count", "10", "--world", "1e30x1e30"),
        ARGV("--count", "10", "--stats-every", "0"),
        ARGV("--count", "1\n0"),
        ARGV("--count", "10", "--init", ""),
        ARGV("--count", "10", "--export-csv", ""),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_boids(cases[i]);
        assert_exit(&r, 2);
        size_t len = strlen(r.err);
        ck_assert_msg(len > 0 && strchr(r.err, '\n') == r.err + len - 1,
                      "case %zu: expected one line on stderr, got: %s", i, r.err);
        run_free(&r);
    }
}
END_TEST

// ---- runs that work ----
START_TEST(help_prints_usage) {
    run_result r = run_boids(ARGV("--help"));
    assert_exit(&r, 0);
    ck_assert_msg(strstr(r.out, "usage: boids-run") != NULL, "expected 'usage: boids-run' on stdout, got: %s", r.out);
    ck_assert_msg(strstr(r.out, "--count") && strstr(r.out, "--export-csv"), "expected the flags listed: %s", r.out);
    ck_assert_msg(r.err[0] == '\0', "expected nothing on stderr, got: %s", r.err);
    run_free(&r);
    r = run_boids(ARGV("--count", "bogus", "-h"));
    assert_exit(&r, 0);
    ck_assert_msg(strstr(r.out, "usage: boids-run") != NULL, "expected -h to win over a bad flag: %s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(version_prints_version) {
    run_result r = run_boids(ARGV("--version"));
    assert_exit(&r, 0);
    unsigned a, b, c;
    char nl = 0;
    ck_assert_msg(sscanf(r.out, "boids-run %u.%u.%u%c", &a, &b, &c, &nl) == 4 && nl == '\n',
                  "expected 'boids-run MAJOR.MINOR.PATCH', got: %s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(small_run_ends_with_state_hash) {
    run_result r = run_boids(ARGV("--count", "200", "--steps", "20"));
    assert_exit(&r, 0);
    last_hash(&r);
    ck_assert_msg(r.err[0] == '\0', "expected nothing on stderr, got: %s", r.err);
    ck_assert_msg(strncmp(r.out, "boids-run ", 10) == 0 && strstr(r.out, "200 agents"),
                  "expected a header line naming 200 agents, got: %s", r.out);
    ck_assert_msg(strstr(r.out, "\nstep 20 ") != NULL, "expected a statistics line for step 20, got: %s", r.out);
    ck_assert_msg(!strstr(r.out, "nan") && !strstr(r.out, "inf"), "expected finite statistics, got: %s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(stats_every_sets_line_count) {
    run_result r = run_boids(ARGV("--count", "100", "--steps", "20", "--stats-every", "5"));
    assert_exit(&r, 0);
    size_t lines = 0;
    for (const char *p = r.out; (p = strstr(p, "\nstep ")) != NULL; p++)
        lines++;
    ck_assert_msg(lines == 4, "expected 4 statistics lines (steps 5, 10, 15, 20), got %zu: %s", lines, r.out);
    run_free(&r);
}
END_TEST

START_TEST(quiet_prints_only_hash) {
    run_result r = run_boids(ARGV("--count", "100", "--steps", "5", "--quiet"));
    assert_exit(&r, 0);
    last_hash(&r);
    ck_assert_msg(strchr(r.out, '\n') == r.out + strlen(r.out) - 1, "expected one line with --quiet, got: %s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(same_seed_same_hash) {
    unsigned long long a = hash_of(ARGV("--count", "200", "--steps", "20", "--seed", "7"));
    unsigned long long b = hash_of(ARGV("--count", "200", "--steps", "20", "--seed", "7"));
    ck_assert_msg(a == b, "expected identical hashes for identical runs, got %016llx and %016llx", a, b);
}
END_TEST

START_TEST(different_seed_different_hash) {
    unsigned long long a = hash_of(ARGV("--count", "200", "--steps", "20", "--seed", "1"));
    unsigned long long b = hash_of(ARGV("--count", "200", "--steps", "20", "--seed", "2"));
    ck_assert_msg(a != b, "expected different hashes for seeds 1 and 2, got %016llx for both", a);
}
END_TEST

START_TEST(seed_hex_equals_decimal) {
    unsigned long long a = hash_of(ARGV("--count", "100", "--steps", "5", "--seed", "0x1f"));
    unsigned long long b = hash_of(ARGV("--count", "100", "--steps", "5", "--seed", "31"));
    ck_assert_msg(a == b, "expected --seed 0x1f and --seed 31 to agree, got %016llx and %016llx", a, b);
    hash_of(ARGV("--count", "10", "--steps", "1", "--seed", "18446744073709551615"));
}
END_TEST

START_TEST(threads_do_not_change_hash) {
    unsigned long long a = hash_of(ARGV("--count", "2000", "--steps", "20", "--threads", "1"));
    unsigned long long b = hash_of(ARGV("--count", "2000", "--steps", "20", "--threads", "2"));
    unsigned long long c = hash_of(ARGV("--count", "2000", "--steps", "20", "--threads", "3"));
    ck_assert_msg(a == b && b == c, "expected one hash for 1, 2, 3 threads, got %016llx %016llx %016llx", a, b, c);
}
END_TEST

START_TEST(flag_order_does_not_matter) {
    unsigned long long a = hash_of(ARGV("--dim", "3", "--world", "300x300x300", "--count", "300", "--steps", "5"));
    unsigned long long b = hash_of(ARGV("--count", "300", "--world", "300x300x300", "--steps", "5", "--dim", "3"));
    unsigned long long c = hash_of(ARGV("--count=300", "--world=300x300x300", "--steps=5", "--dim=3"));
    ck_assert_msg(a == b && b == c,
                  "expected one hash for any flag order and --flag=value, got %016llx %016llx %016llx", a, b, c);
}
END_TEST

START_TEST(every_boundary_and_dimension_runs) {
    const char *const boundaries[] = {"wrap", "walls", "bounce", "margin"};
    for (int b = 0; b < 4; b++) {
        hash_of(ARGV("--count", "300", "--steps", "10", "--boundary", boundaries[b]));
        hash_of(ARGV("--count", "300", "--steps", "10", "--boundary", boundaries[b], "--dim", "3"));
    }
}
END_TEST

START_TEST(all_flags_accepted) {
    run_result r = run_boids(
        ARGV("--count", "300", "--steps", "10", "--seed", "5", "--world", "400x300", "--origin", "-200,-150",
             "--boundary", "walls", "--behaviors", "separation,alignment,cohesion,wander", "--weights",
             "separation=2,wander=0.5", "--radius", "40", "--separation", "20", "--fov", "270", "--maxspeed", "4",
             "--maxforce", "0.1", "--dt", "0.5", "--backend", "cpu", "--stats-every", "3", "--threads", "2"));
    assert_exit(&r, 0);
    last_hash(&r);
    ck_assert_msg(strstr(r.out, "world 400x300 at -200,-150") != NULL, "expected the world in the header, got: %s",
                  r.out);
    ck_assert_msg(strstr(r.out, "behaviors separation,alignment,cohesion,wander") != NULL,
                  "expected the behaviours in the header, got: %s", r.out);
    ck_assert_msg(!strstr(r.out, "nan") && !strstr(r.out, "inf"), "expected finite statistics, got: %s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(behaviors_all_and_none_run) {
    hash_of(ARGV("--count", "300", "--steps", "10", "--behaviors", "all"));
    hash_of(ARGV("--count", "300", "--steps", "10", "--behaviors", "all", "--dim", "3"));
    hash_of(ARGV("--count", "300", "--steps", "10", "--behaviors", "none"));
}
END_TEST

START_TEST(export_then_init_round_trip) {
    const char *a = TMP "/round-a.csv", *b = TMP "/round-b.csv";
    unlink(a);
    unlink(b);
    unsigned long long h10 = hash_of(ARGV("--count", "300", "--steps", "10", "--export-csv", a));
    ck_assert_msg(line_count(a) == 301, "expected 301 lines (header + 300 agents) in %s, got %zu", a, line_count(a));
    char *text = slurp(a);
    ck_assert_msg(strncmp(text, "id,group,px,py,pz,vx,vy,vz,neighbors\n0,", 39) == 0,
                  "expected the header id,group,px,py,pz,vx,vy,vz,neighbors then id 0, got: %.80s", text);
    free(text);
    unsigned long long hb = hash_of(ARGV("--init", a, "--steps", "10", "--export-csv", b));
    ck_assert_msg(line_count(b) == 301, "expected 301 lines in %s, got %zu", b, line_count(b));
    // Flocking has no random draws, so continuing from an exact snapshot
    // (%.9g round-trips floats) is the same as not stopping.
    unsigned long long h20 = hash_of(ARGV("--count", "300", "--steps", "20"));
    ck_assert_msg(hb == h20, "expected 10 steps from the 10-step snapshot to match a 20-step run: %016llx vs %016llx",
                  hb, h20);
    ck_assert_msg(h10 != h20, "expected the state to change between steps 10 and 20");
    // Nothing but the two snapshots: no temporary files left behind.
    DIR *d = opendir(TMP);
    ck_assert_msg(d != NULL, "expected to list %s", TMP);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        ck_assert_msg(strstr(e->d_name, ".tmp") == NULL, "expected no temporary file left, found %s", e->d_name);
    closedir(d);
}
END_TEST

// A snapshot continued in place: --load and --save on one file (read whole
// before the run, replaced atomically after it) gives the uninterrupted
// run's state-hash; an output written during the run (--record) on the
// loaded file is refused, naming both flags.
START_TEST(load_and_save_in_place) {
    const char *snap = TMP "/in-place.boids";
    unsigned long long whole = hash_of(ARGV("--count", "300", "--steps", "30", "--seed", "5"));
    hash_of(ARGV("--count", "300", "--steps", "12", "--seed", "5", "--save", snap));
    unsigned long long continued = hash_of(ARGV("--load", snap, "--steps", "18", "--save", snap));
    ck_assert_msg(continued == whole, "--load X --save X: hash %016llx, the uninterrupted run's %016llx", continued,
                  whole);
    expect_error(ARGV("--load", snap, "--steps", "1", "--record", snap),
                 ARGV("--record:", "is also the file of --load (one would be lost)"));
}
END_TEST

START_TEST(csv_2d_without_z_loads) {
    char path[512];
    // Rows out of id order, CRLF, blank line, no final newline: all allowed.
    write_tmp("flat-ok.csv", "id,group,px,py,vx,vy\r\n2,0,10,20,1,0\r\n0,0,30,40,0,1\r\n\r\n1,0,50,60,-1,0", path,
              sizeof path);
    run_result r = run_boids(ARGV("--init", path, "--steps", "3"));
    assert_exit(&r, 0);
    last_hash(&r);
    ck_assert_msg(strstr(r.out, " 3 agents") != NULL, "expected 3 agents from the file, got: %s", r.out);
    run_free(&r);
    hash_of(ARGV("--init", path, "--steps", "3", "--count", "3"));
}
END_TEST

// The cases, each in its own TCase; exit 0 when every one passes.
int main(void) {
    const boids_test_case cases[] = {
#define CASE(t) {#t, t}
        CASE(count_zero_rejected),
        CASE(count_negative_rejected),
        CASE(count_huge_rejected),
        CASE(count_not_a_number_rejected),
        CASE(count_trailing_junk_rejected),
        CASE(count_nan_and_inf_rejected),
        CASE(count_required_without_init),
        CASE(steps_zero_rejected),
        CASE(steps_too_many_rejected),
        CASE(seed_above_2_64_rejected),
        CASE(unknown_flag_suggests_nearest),
        CASE(unknown_name_suggests_nearest),
        CASE(unknown_flag_without_near_match),
        CASE(flag_of_another_program_rejected),
        CASE(missing_value_rejected),
        CASE(positional_argument_rejected),
        CASE(quiet_with_value_rejected),
        CASE(dim_4_rejected),
        CASE(world_zero_extent_rejected),
        CASE(world_negative_extent_rejected),
        CASE(world_not_a_number_rejected),
        CASE(world_3d_with_dim_2_rejected),
        CASE(world_2d_with_dim_3_rejected),
        CASE(origin_wrong_components_rejected),
        CASE(radius_too_big_for_world_rejected),
        CASE(world_too_small_for_default_radius_rejected),
        CASE(boundary_unknown_rejected),
        CASE(behaviors_unknown_rejected),
        CASE(weights_not_a_number_rejected),
        CASE(weights_unknown_behavior_rejected),
        CASE(radius_zero_rejected),
        CASE(radius_negative_rejected),
        CASE(radius_nan_rejected),
        CASE(separation_zero_rejected),
        CASE(fov_zero_rejected),
        CASE(fov_400_rejected),
        CASE(maxspeed_zero_rejected),
        CASE(maxforce_negative_rejected),
        CASE(dt_inf_rejected),
        CASE(dt_junk_rejected),
        CASE(backend_unknown_rejected),
        CASE(bodies_bad_input_rejected),
        CASE(bodies_run_and_hash),
        CASE(csv_bad_number_names_line_and_column),
        CASE(csv_missing_column_rejected),
        CASE(csv_duplicate_id_rejected),
        CASE(csv_missing_id_rejected),
        CASE(csv_wrong_header_rejected),
        CASE(csv_empty_file_rejected),
        CASE(csv_nonexistent_file_named),
        CASE(csv_bad_group_rejected),
        CASE(csv_group_beyond_groups_rejected),
        CASE(csv_2d_file_in_3d_run_rejected),
        CASE(csv_count_mismatch_rejected),
        CASE(csv_count_with_scenario),
        CASE(export_to_missing_directory_fails_at_start),
        CASE(export_to_directory_rejected),
        CASE(odd_arguments_never_crash),
        CASE(help_prints_usage),
        CASE(version_prints_version),
        CASE(small_run_ends_with_state_hash),
        CASE(stats_every_sets_line_count),
        CASE(quiet_prints_only_hash),
        CASE(same_seed_same_hash),
        CASE(different_seed_different_hash),
        CASE(seed_hex_equals_decimal),
        CASE(threads_do_not_change_hash),
        CASE(flag_order_does_not_matter),
        CASE(every_boundary_and_dimension_runs),
        CASE(all_flags_accepted),
        CASE(behaviors_all_and_none_run),
        CASE(export_then_init_round_trip),
        CASE(load_and_save_in_place),
        CASE(csv_2d_without_z_loads),
#undef CASE
    };
    return boids_test_main("cli", cases, sizeof cases / sizeof cases[0], TMP);
}
