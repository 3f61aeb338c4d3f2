// tests/test_bad_inputs.c: the bad-input matrix. Every executable
// (boids, boids-run, boids-bench, boids-validate, boids-ensemble) with a list of wrong
// invocations and corrupted input files: each must exit with status 2 (bad
// input) or 3 (environment), print exactly one line on stderr, never die by
// a signal, and leave an existing output file it was pointed at untouched.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "png_grey.h"
#include "spawn.h"

#define MAX_WORDS 24

// Wrong flags and values; each is tried on every executable (a flag a
// program does not take is wrong there too).
static const char *const flag_cases[][6] = {
    {"--no-such-flag", NULL},
    {"--count", NULL},
    {"--count", "0", NULL},
    {"--count", "-5", NULL},
    {"--count", "12abc", NULL},
    {"--count", "99999999999999999999", NULL},
    {"--count", "1e99", NULL},
    {"--steps", "0", NULL},
    {"--dim", "4", NULL},
    {"--world", "0x0", NULL},
    {"--world", "10xnanx", NULL},
    {"--origin", "1,2,3,4", NULL},
    {"--seed", "-1", NULL},
    {"--boundary", "moebius", NULL},
    {"--behaviors", "seek,nope", NULL},
    {"--weights", "seek=fast", NULL},
    {"--radius", "nan", NULL},
    {"--separation", "-3", NULL},
    {"--fov", "0", NULL},
    {"--maxspeed", "inf", NULL},
    {"--maxforce", "", NULL},
    {"--dt", "1e40", NULL},
    {"--backend", "tpu", NULL},
    {"--threads", "-1", NULL},
    {"--bodies", "eel", NULL},
    {"--joints", "99", NULL},
    {"--body-length", "-1", NULL},
    {"--index", "tree", NULL},
    {"--kernel", "tiled", NULL}, // removed kernels: not GPU kernels any more
    {"--kernel", "morton-fused", "--backend", "gpu", NULL},
    {"--boundary", "margin", "--margin", "0", NULL},
    {"--margin", "-3", NULL},
    {"--margin", "1e30", NULL}, // above the largest finalize accepts (1e9)
    {"--update", "random", NULL},
    {"--update", "sequential", "--backend", "gpu", NULL},
    {"--scenario", TMP "/bad-inputs/margin.ini", NULL},
    {"--path-outside", "start", NULL},
    {"--path-line", "ray", NULL},
    {"--combine", "greedy", NULL},
    {"--alignment-radius", "0", NULL},
    {"--cohesion-radius", "nan", NULL},
    {"--separation-fov", "400", NULL},
    {"--alignment-fov", "-10", NULL},
    {"--cohesion-fov", "0", NULL},
    {"--neighbors-max", "33", NULL},
    {"--neighbors-max", "-1", NULL},
    {"--neighbors-max", "x", NULL},
    {"--scenario", TMP "/bad-inputs/neighbors-max.ini", NULL},
    {"--grid-fine", "0", NULL},
    {"--grid-fine", "5", NULL},
    {"--grid-fine", "2.5", NULL},
    {"--grid-fine", "fine", NULL},
    {"--grid-fine", "", NULL},
    {"--grid-fine", "2", "--scenario", "angle-bug", NULL}, // the heading rules' survey: 1 or auto only
    {"--scenario", TMP "/bad-inputs/grid-fine.ini", NULL},
    {"--scenario", TMP "/bad-inputs/grid-fine-survey.ini", NULL},
    {"--scenario", TMP "/bad-inputs/nbhd-fov.ini", NULL},
    {"--scenario", TMP "/bad-inputs/nbhd-radius.ini", NULL},
    {"--scenario", TMP "/bad-inputs/combine.ini", NULL},
    // A flow-field image that is missing, a FIFO (never read) or damaged.
    {"--scenario", TMP "/bad-inputs/field-missing.ini", NULL},
    {"--scenario", TMP "/bad-inputs/field-fifo.ini", NULL},
    {"--scenario", TMP "/bad-inputs/field-damaged.ini", NULL},
    // Inputs that are not files: refused at once, never read without end.
    {"--init", "/dev/zero", NULL},
    {"--load", "/dev/zero", NULL},
    {"--scenario", "/dev/urandom", NULL},
    {"--scenario", "/proc/self/mem", NULL}, // a read error (EIO) is not a short file
    {"--init", "/proc/self/mem", NULL},
    {"--scenario", "flocking", "--record-every", "5", NULL}, // refused after the scenario is loaded (no leak)
    {"--replay", "/dev/zero", NULL},
    // Two outputs on one path, an output on an input: refused before the run.
    {"--save", TMP "/bad-inputs/same.out", "--export-csv", TMP "/bad-inputs/same.out", NULL},
    {"--record", TMP "/bad-inputs/same.out", "--save", TMP "/bad-inputs/same.out", NULL},
    {"--screenshot", TMP "/bad-inputs/same.png", "--save", TMP "/bad-inputs/same.png", NULL},
    {"--scenario", "/nonexistent/x.ini", NULL},
    {"--scenario", TMP "/bad-inputs", NULL}, // a directory
    {"--scenario", TMP "/bad-inputs/garbage.ini", NULL},
    {"--scenario", TMP "/bad-inputs/unknown.ini", NULL},
    {"--scenario", TMP "/bad-inputs/range.ini", NULL},
    {"--scenario", TMP "/bad-inputs/binary.ini", NULL},
    {"--scenario", TMP "/bad-inputs/relation.ini", NULL},
    {"--leader", "x", NULL},
    {"--leader", "-1", NULL},
    {"--leader", "50", "--behaviors", "offset", NULL}, // id >= the count 50 with its behaviour on
    {"--leader", "1,2", NULL},
    {"--formation", "blah", NULL},
    {"--interpose", "1", NULL},
    {"--interpose", "1,2,3", NULL},
    {"--interpose", "0,50", "--behaviors", "interpose", NULL},
    {"--scenario", TMP "/bad-inputs/leader-id.ini", NULL},
    {"--scenario", TMP "/bad-inputs/leader-name.ini", NULL},
    {"--scenario", TMP "/bad-inputs/interpose-one.ini", NULL},
    {"--scenario", TMP "/bad-inputs/interpose-id.ini", NULL},
    {"--scenario", TMP "/bad-inputs/formation.ini", NULL},
    {"--scenario", TMP "/bad-inputs/formation-spacing.ini", NULL},
    {"--scenario", TMP "/bad-inputs/leader-behind.ini", NULL},
    {"--scenario", TMP "/bad-inputs/leader-sight.ini", NULL},
    {"--scenario", TMP "/bad-inputs/feeler-length.ini", NULL},
    {"--scenario", TMP "/bad-inputs/leader-offset.ini", NULL},
    {"--scenario", TMP "/bad-inputs/wall-one-key.ini", NULL},
    {"--scenario", TMP "/bad-inputs/wall-mixed.ini", NULL},
    {"--scenario", TMP "/bad-inputs/wall-zero-normal.ini", NULL},
    {"--scenario", TMP "/bad-inputs/wall-3d-segment.ini", NULL},
    {"--scenario", TMP "/bad-inputs/wall-unknown-key.ini", NULL},
    {"--scenario", TMP "/bad-inputs/walls-17.ini", NULL},
    {"--scenario", TMP "/bad-inputs/target-speed.ini", NULL},
    {"--scenario", TMP "/bad-inputs/queue.ini", NULL},
    {"--scenario", TMP "/bad-inputs/avoid.ini", NULL},
    {"--scenario", TMP "/bad-inputs/hide-margin.ini", NULL},
    // The collective-motion models: their noise, rule sets and zones.
    {"--rules", "couzin", "--eta", "7", NULL}, // eta above 2 pi (one word with sigma)
    {"--rules", "couzin", "--eta", "-0.5", NULL},
    {"--rules", "couzin", "--sigma", "4", NULL}, // sigma above pi
    {"--rules", "couzin", "--sigma", "nan", NULL},
    {"--eta", "0.5", NULL},                     // noise with the chapter's rules
    {"--rules", "vicsek", NULL},                // the flocking behaviours: Vicsek is alignment alone
    {"--rules", "couzin", "--turn", "4", NULL}, // a turn above pi per time unit
    {"--rules", "ising", NULL},
    {"--eta", "x", NULL},
    {"--scenario", TMP "/bad-inputs/vicsek-eta.ini", NULL},
    {"--scenario", TMP "/bad-inputs/couzin-sigma.ini", NULL},
    {"--scenario", TMP "/bad-inputs/couzin-zones.ini", NULL},
    {"--scenario", TMP "/bad-inputs/couzin-behaviors.ini", NULL},
    {"--scenario", TMP "/bad-inputs/vicsek-sigma.ini", NULL}, // sigma is Couzin's noise
    {"--scenario", TMP "/bad-inputs/chapter-eta.ini", NULL},
    // Values whose runs turned every agent into NaN (the ranges that keep a
    // state finite), and a world so far from 0 that no step moves an agent.
    {"--maxspeed", "1.2e-38", "--behaviors", "offset", NULL},
    {"--maxspeed", "1e-7", "--behaviors", "interpose", NULL},
    {"--dt", "1.2e-38", "--scenario", "pursue-circle", NULL},
    {"--maxforce", "1e37", "--behaviors", "avoid", NULL},
    {"--maxspeed-range", "1e-7,2", NULL},
    {"--predict", "3.4e38", "--behaviors", "pursue", NULL},
    {"--origin", "1e8,1e8", "--world", "1000x1000", NULL},
    {"--dt", "1e-6", NULL}, // a step of 3e-6 below the spacing at the automatic world's far corner
    {"--scenario", TMP "/bad-inputs/nan-dt.ini", NULL},
    {"--scenario", TMP "/bad-inputs/nan-maxspeed.ini", NULL},
    {"--scenario", TMP "/bad-inputs/nan-predict.ini", NULL},
    {"--scenario", TMP "/bad-inputs/nan-noise-scale.ini", NULL},
    {"--scenario", TMP "/bad-inputs/nan-noise-far.ini", NULL},
    {"--scenario", TMP "/bad-inputs/nan-resolution.ini", NULL},
    {"--scenario", TMP "/bad-inputs/far-origin.ini", NULL},
    {"--count", "10", "positional", NULL},
    {"-x", NULL},
    {"--count=", NULL},
    {"--quiet=yes", NULL},
};

static void make_inputs(void) {
    mkdir(TMP, 0755);
    mkdir(TMP "/bad-inputs", 0755);
    static const char binary[] = "\x00\x01\xff\xfe[world]\x00\ncount = \x80\x81\n";
    static const struct {
        const char *name, *text;
    } files[] = {
        {"garbage.ini", "this is not an ini file\n"},
        {"unknown.ini", "[world]\ncount = 10\n[grup.a]\n"},
        {"range.ini", "[group.a]\nmaxspeed = -1\n"},
        {"relation.ini", "[group.a]\n[relation]\na.b = flee\n"},
        {"nbhd-fov.ini", "[group.a]\nalignment_fov = 361\n"},
        {"nbhd-radius.ini", "[group.a]\ncohesion_radius = 0\n"},
        {"neighbors-max.ini", "[group.a]\nneighbors_max = 33\n"},
        {"grid-fine.ini", "[world]\ngrid_fine = 8\n"},
        {"grid-fine-survey.ini",
         "[world]\ngrid_fine = 3\n[group.a]\nrules = heading\nbehaviors = separation,alignment,cohesion\n"},
        {"combine.ini", "[world]\ncombine = greedy\n"},
        {"field-missing.ini", "[group.a]\nbehaviors = flow\n[flowfield]\nkind = image\nimage = field-missing.png\n"},
        {"field-fifo.ini", "[group.a]\nbehaviors = flow\n[flowfield]\nkind = image\nimage = field.fifo\n"},
        {"field-damaged.ini", "[group.a]\nbehaviors = flow\n[flowfield]\nkind = image\nimage = field-damaged.png\n"},
        {"field-good.ini", "[group.a]\nbehaviors = flow\n[flowfield]\nkind = image\nimage = field-good.png\n"},
        {"field-damaged.png", "\x89PNG\r\n\x1a\nIHDR"},
        {"margin.ini", "[world]\nboundary = margin\nmargin = 0\n"},
        {"target-speed.ini", "[group.a]\nbehaviors = speed\ntarget_speed = -1\n"},
        {"queue.ini", "[group.a]\nbehaviors = queue\nqueue_distance = -1\n"},
        {"avoid.ini", "[group.a]\nbehaviors = avoid\navoid_horizon = nan\n"},
        {"hide-margin.ini", "[group.a]\nbehaviors = hide\nhide_margin = -1\n"},
        {"vicsek-eta.ini", "[group.a]\nrules = vicsek\nbehaviors = alignment\neta = 6.5\n"},
        {"couzin-sigma.ini", "[group.a]\nrules = couzin\nsigma = -0.1\n"},
        {"couzin-zones.ini", "[group.a]\nrules = couzin\nseparation = 5\nalignment_radius = 3\ncohesion_radius = 9\n"},
        {"vicsek-sigma.ini", "[group.a]\nrules = vicsek\nbehaviors = alignment\nsigma = 0.1\n"},
        {"chapter-eta.ini", "[group.a]\neta = 0.1\n"},
        {"couzin-behaviors.ini", "[group.a]\nrules = couzin\nbehaviors = flocking, seek\n"},
        {"leader-id.ini", "[group.a]\nbehaviors = offset\nleader = 99\n"}, // the runs have 50 agents
        {"leader-name.ini", "[group.a]\nleader = chief\n"},
        {"interpose-one.ini", "[group.a]\nbehaviors = interpose\ninterpose = 1\n"},
        {"interpose-id.ini", "[group.a]\nbehaviors = interpose\ninterpose = target, 50\n"},
        {"formation.ini", "[group.a]\nformation = wedge\n"},
        {"formation-spacing.ini", "[group.a]\nformation_spacing = -1\n"},
        {"leader-behind.ini", "[group.a]\nleader_behind = -2\n"},
        {"leader-sight.ini", "[group.a]\nleader_sight = -3\n"},
        {"feeler-length.ini", "[group.a]\nfeeler_length = -4\n"},
        {"leader-offset.ini", "[group.a]\nleader_offset = behind, 0\n"},
        {"wall-one-key.ini", "[wall]\nfrom = 10, 20\n"},
        {"wall-mixed.ini", "[wall]\nfrom = 10, 20\nnormal = 0, 1\n"},
        {"wall-zero-normal.ini", "[wall]\npoint = 10, 20\nnormal = 0, 0\n"},
        {"wall-3d-segment.ini", "[world]\ndim = 3\n[wall]\nfrom = 1, 2, 3\nto = 4, 5, 6\n"},
        {"wall-unknown-key.ini", "[wall]\nstart = 1, 2\n"},
        {"nan-dt.ini", "[world]\ndt = 1.2e-38\n"},
        {"nan-maxspeed.ini", "[group.a]\nbehaviors = offset\nmaxspeed = 1.2e-38\n"},
        {"nan-predict.ini", "[group.a]\nbehaviors = pursue\npredict = 3.4e38\n"},
        {"nan-noise-scale.ini", "[group.a]\nbehaviors = flow\n[flowfield]\nkind = noise\nnoise_scale = 1e7\n"},
        {"nan-noise-far.ini", // each key in range, their product beyond the noise's
         "[world]\nsize = 640x360\n[group.a]\nbehaviors = flow\n[flowfield]\nkind = noise\nnoise_scale = 1e5\n"},
        {"nan-resolution.ini", "[group.a]\nbehaviors = flow\n[flowfield]\nkind = noise\nresolution = 1e12\n"},
        {"far-origin.ini", "[world]\nsize = 1000x1000\norigin = 1e8, 1e8\n"},
        {"empty.csv", ""},
        {"header.csv", "id,group,x,y\n0,0,1,2\n"},
        {"number.csv", "id,group,px,py,vx,vy\n0,0,1,abc,0,0\n"},
        {"nan.csv", "id,group,px,py,vx,vy\n0,0,nan,1,0,0\n"},
        {"dup.csv", "id,group,px,py,vx,vy\n0,0,1,1,0,0\n0,0,2,2,0,0\n"},
        {"gap.csv", "id,group,px,py,vx,vy\n0,0,1,1,0,0\n2,0,2,2,0,0\n"},
        {"short.csv", "id,group,px,py,vx,vy\n0,0,1,1,0\n"},
        {"group.csv", "id,group,px,py,vx,vy\n0,9,1,1,0,0\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/bad-inputs/%s", TMP, files[i].name);
        boids_test_write(path, files[i].text, strlen(files[i].text));
    }
    boids_test_write(TMP "/bad-inputs/binary.ini", binary, sizeof binary - 1);
    unlink(TMP "/bad-inputs/field.fifo");
    ck_assert_int_eq(mkfifo(TMP "/bad-inputs/field.fifo", 0600), 0);
    unlink(TMP "/bad-inputs/field-good.png");
    ck_assert(png_grey_write(TMP "/bad-inputs/field-good.png", 32, 24, 1));
    // One wall more than BOIDS_MAX_WALLS (16).
    char walls[17 * 48] = "";
    for (int k = 0; k < 17; k++)
        snprintf(walls + strlen(walls), sizeof walls - strlen(walls), "[wall]\nfrom = 0, %d\nto = 10, %d\n", k, k);
    boids_test_write(TMP "/bad-inputs/walls-17.ini", walls, strlen(walls));
    // Existing outputs the refused runs are pointed at.
    boids_test_write(TMP "/bad-inputs/keep.csv", "precious\n", 9);
    boids_test_write(TMP "/bad-inputs/keep.png", "precious\n", 9);
    boids_test_write(TMP "/bad-inputs/keep.boids", "precious\n", 9);
    static const char plan[] = "[plan]\nscenario = flocking\nsteps = 2\n";
    boids_test_write(TMP "/bad-inputs/ok-plan.ini", plan, sizeof plan - 1);
}

typedef struct program {
    const char *name;        // argv[0]
    const char *const *base; // arguments every case starts with
    const char *keep_flag;   // an output flag pointed at keep.out (it must stay as it is)
} program;

static const char *const run_base[] = {"--count", "50", "--steps", "2", NULL};
static const char *const bench_base[] = {"--counts", "50", "--steps", "1", NULL};
static const char *const validate_base[] = {"--count", "50", "--steps", "1", NULL};
static const char *const viewer_base[] = {"--count", "50", "--frames", "1", NULL};
// A good plan: every case's flags must be refused before a run starts (no folder made).
static const char *const ensemble_base[] = {TMP "/bad-inputs/ok-plan.ini", "--out", TMP "/bad-inputs/ens.out", NULL};

static const program programs[] = {
    {"boids-run", run_base, "--export-csv"}, {"boids-bench", bench_base, "--profile"},
    {"boids-validate", validate_base, NULL}, {"boids", viewer_base, "--screenshot"},
    {"boids-ensemble", ensemble_base, NULL},
};

static uint32_t tried;

// Runs prog with base + keep flag + case words; asserts the contract.
static void expect_refused(const program *prog, const char *const *words, const char *what) {
    const char *argv[MAX_WORDS + 2];
    size_t n = 0;
    argv[n++] = prog->name;
    for (size_t i = 0; prog->base[i]; i++)
        argv[n++] = prog->base[i];
    if (prog->keep_flag) {
        argv[n++] = prog->keep_flag;
        argv[n++] =
            strcmp(prog->keep_flag, "--screenshot") == 0 ? TMP "/bad-inputs/keep.png" : TMP "/bad-inputs/keep.csv";
    }
    for (size_t i = 0; words[i] && n < MAX_WORDS; i++)
        argv[n++] = words[i];
    argv[n] = NULL;
    char bin[512];
    snprintf(bin, sizeof bin, "%s/%s", BOIDS_BIN_DIR, prog->name);
    run_result r = boids_test_run(bin, argv, TMP, "bad-inputs");
    tried++;
    ck_assert_msg(r.spawned, "could not start %s", bin);
    ck_assert_msg(!WIFSIGNALED(r.status), "%s %s: killed by signal %d; stderr: %s", prog->name, what,
                  WIFSIGNALED(r.status) ? WTERMSIG(r.status) : 0, r.err);
    int code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
    ck_assert_msg(code == 2 || code == 3, "%s %s: exit status %d (expected 2 or 3); stderr: %s", prog->name, what, code,
                  r.err);
    size_t len = strlen(r.err);
    ck_assert_msg(len > 1 && r.err[len - 1] == '\n' && strchr(r.err, '\n') == r.err + len - 1,
                  "%s %s: expected exactly one line on stderr, got: '%s'", prog->name, what, r.err);
    ck_assert_msg(strncmp(r.err, prog->name, strlen(prog->name)) == 0, "%s %s: the line does not name the program: %s",
                  prog->name, what, r.err);
    boids_test_run_free(&r);
}

// The existing files the runs were pointed at are as they were.
static void expect_untouched(void) {
    static const char *const kept[] = {TMP "/bad-inputs/keep.csv", TMP "/bad-inputs/keep.png",
                                       TMP "/bad-inputs/keep.boids"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        char *text = boids_test_slurp(kept[i]);
        ck_assert_msg(strcmp(text, "precious\n") == 0, "a refused run changed %s", kept[i]);
        free(text);
    }
}

START_TEST(flags_on_every_executable) {
    make_inputs();
    // Without a display: the viewer reaches its display check only with good flags.
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    size_t cases = sizeof flag_cases / sizeof flag_cases[0];
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++)
        for (size_t k = 0; k < cases; k++) {
            char what[160];
            snprintf(what, sizeof what, "%s %s", flag_cases[k][0], flag_cases[k][1] ? flag_cases[k][1] : "");
            expect_refused(&programs[p], flag_cases[k], what);
        }
    expect_untouched();
    struct stat st;
    ck_assert_msg(stat(TMP "/bad-inputs/ens.out", &st) != 0, "boids-ensemble made its folder before refusing a flag");
    printf("bad inputs: %u invocations refused properly\n", tried);
}
END_TEST

// The per-rule neighbourhood, combination and kernel inputs: the one line
// names the flag or key, the value and what is allowed.
START_TEST(neighborhood_and_combine_messages) {
    make_inputs();
    static const struct {
        const char *words[5];
        const char *named, *value, *allowed;
    } cases[] = {
        {{"--combine", "greedy"}, "--combine", "greedy", "sum, priority or truncated"},
        {{"--kernel", "tiled", "--backend", "gpu"}, "--kernel", "tiled", "reference or morton"}, // removed kernels
        {{"--kernel", "fused"}, "--kernel", "fused", "reference or morton"},
        {{"--kernel", "all", "--backend", "gpu"}, "--kernel", "all", "reference or morton"},
        {{"--alignment-radius", "0"}, "--alignment-radius", "'0'", "> 0"},
        {{"--cohesion-radius", "-2"}, "--cohesion-radius", "-2", "> 0"},
        {{"--world", "200x200", "--cohesion-radius", "150"}, "--cohesion-radius", "150", "<= 100"},
        {{"--separation-fov", "400"}, "--separation-fov", "400", "0 < fov <= 360"},
        {{"--alignment-fov", "x"}, "--alignment-fov", "'x'", "0 < fov <= 360"},
        {{"--cohesion-fov", "0"}, "--cohesion-fov", "'0'", "0 < fov <= 360"},
        {{"--scenario", TMP "/bad-inputs/nbhd-fov.ini"}, "alignment_fov", "361", "0 < fov <= 360"},
        {{"--scenario", TMP "/bad-inputs/nbhd-radius.ini"}, "cohesion_radius", "0", "> 0"},
        {{"--scenario", TMP "/bad-inputs/combine.ini"}, "combine", "greedy", "sum, priority or truncated"},
        // One noise word, two names: each model's flag only.
        {{"--rules", "couzin", "--eta", "0.5"}, "--eta", "0.5", "--sigma RADIANS for rules couzin"},
        {{"--scenario", "vicsek", "--sigma", "0.25"}, "--sigma", "0.25", "--eta RADIANS for rules vicsek"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[12] = {"boids-run", "--count", "50", "--steps", "1"};
        for (size_t k = 0; k < 4 && cases[i].words[k]; k++)
            argv[5 + k] = cases[i].words[k];
        run_result r = boids_test_run(BOIDS_BIN_DIR "/boids-run", argv, TMP, "bad-inputs");
        ck_assert_msg(r.spawned, "could not start boids-run");
        int code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
        ck_assert_msg(code == 2, "%s %s: exit %d (expected 2, bad input); stderr: %s", cases[i].words[0],
                      cases[i].words[1], code, r.err);
        size_t len = strlen(r.err);
        ck_assert_msg(len > 1 && strchr(r.err, '\n') == r.err + len - 1, "%s %s: expected one line, got '%s'",
                      cases[i].words[0], cases[i].words[1], r.err);
        ck_assert_msg(strstr(r.err, cases[i].named) && strstr(r.err, cases[i].value) && strstr(r.err, cases[i].allowed),
                      "%s %s: the line '%s' should name %s, the value %s and what is allowed (%s)", cases[i].words[0],
                      cases[i].words[1], r.err, cases[i].named, cases[i].value, cases[i].allowed);
        boids_test_run_free(&r);
    }
}
END_TEST

// The named agents, formations and walls: exit 2 and one line
// that names the flag or key and the value (or the section's problem).
START_TEST(leader_and_wall_messages) {
    make_inputs();
    static const struct {
        const char *words[5];
        const char *named, *value;
    } cases[] = {
        {{"--leader", "x"}, "--leader", "'x'"},
        {{"--leader", "50", "--behaviors", "offset"}, "leader", "50"},
        {{"--leader", "50", "--behaviors", "follow"}, "leader", "50"},
        {{"--formation", "blah"}, "--formation", "'blah'"},
        {{"--interpose", "1"}, "--interpose", "'1'"},
        {{"--interpose", "0,50", "--behaviors", "interpose"}, "interpose B", "50"},
        {{"--interpose", "50,target", "--behaviors", "interpose"}, "interpose A", "50"},
        {{"--scenario", TMP "/bad-inputs/leader-id.ini"}, "leader", "99"},
        {{"--scenario", TMP "/bad-inputs/leader-name.ini"}, "leader", "'chief'"},
        {{"--scenario", TMP "/bad-inputs/interpose-one.ini"}, "interpose", "'1'"},
        {{"--scenario", TMP "/bad-inputs/interpose-id.ini"}, "interpose B", "50"},
        {{"--scenario", TMP "/bad-inputs/formation.ini"}, "formation", "'wedge'"},
        {{"--scenario", TMP "/bad-inputs/formation-spacing.ini"}, "formation_spacing", "'-1'"},
        {{"--scenario", TMP "/bad-inputs/leader-behind.ini"}, "leader_behind", "'-2'"},
        {{"--scenario", TMP "/bad-inputs/leader-sight.ini"}, "leader_sight", "'-3'"},
        {{"--scenario", TMP "/bad-inputs/feeler-length.ini"}, "feeler_length", "'-4'"},
        {{"--scenario", TMP "/bad-inputs/leader-offset.ini"}, "leader_offset", "'behind, 0'"},
        {{"--scenario", TMP "/bad-inputs/wall-one-key.ini"}, "[wall]", "one key of its two"},
        {{"--scenario", TMP "/bad-inputs/wall-mixed.ini"}, "[wall]", "keys of both kinds"},
        {{"--scenario", TMP "/bad-inputs/wall-zero-normal.ini"}, "[wall] normal", "'0, 0'"},
        {{"--scenario", TMP "/bad-inputs/wall-3d-segment.ini"}, "wall 1", "a segment in 3D"},
        {{"--scenario", TMP "/bad-inputs/wall-unknown-key.ini"}, "[wall] start", "not a key of [wall]"},
        {{"--scenario", TMP "/bad-inputs/walls-17.ini"}, "[wall]", "at most 16 walls"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[12] = {"boids-run", "--count", "50", "--steps", "1"};
        for (size_t k = 0; k < 4 && cases[i].words[k]; k++)
            argv[5 + k] = cases[i].words[k];
        run_result r = boids_test_run(BOIDS_BIN_DIR "/boids-run", argv, TMP, "bad-inputs");
        ck_assert_msg(r.spawned, "could not start boids-run");
        int code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
        ck_assert_msg(code == 2, "%s %s: exit %d (expected 2, bad input); stderr: %s", cases[i].words[0],
                      cases[i].words[1], code, r.err);
        size_t len = strlen(r.err);
        ck_assert_msg(len > 1 && strchr(r.err, '\n') == r.err + len - 1, "%s %s: expected one line, got '%s'",
                      cases[i].words[0], cases[i].words[1], r.err);
        ck_assert_msg(strstr(r.err, cases[i].named) && strstr(r.err, cases[i].value),
                      "%s %s: the line '%s' should name %s and %s", cases[i].words[0], cases[i].words[1], r.err,
                      cases[i].named, cases[i].value);
        boids_test_run_free(&r);
    }
    // The same ids are good below the count (the runs above fail for the id alone).
    const char *ok[] = {
        "boids-run", "--count",     "50",   "--steps",     "1",        "--quiet",     "--leader",
        "49",        "--formation", "ring", "--interpose", "0,target", "--behaviors", "offset,follow,interpose",
        NULL};
    run_result r = boids_test_run(BOIDS_BIN_DIR "/boids-run", ok, TMP, "bad-inputs");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "leader 49 of 50 refused: %s", r.err);
    boids_test_run_free(&r);
}
END_TEST

START_TEST(files_and_outputs) {
    make_inputs();
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    const program *run = &programs[0];
    static const char *const csv[] = {"empty.csv", "header.csv", "number.csv", "nan.csv",
                                      "dup.csv",   "gap.csv",    "short.csv",  "group.csv"};
    program init_run = {"boids-run", (const char *const[]){"--steps", "2", NULL}, "--export-csv"};
    for (size_t i = 0; i < sizeof csv / sizeof csv[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/bad-inputs/%s", TMP, csv[i]);
        expect_refused(&init_run, (const char *const[]){"--init", path, NULL}, csv[i]);
    }
    expect_refused(&init_run, (const char *const[]){"--init", "/nonexistent.csv", NULL}, "missing csv");
    // Outputs that cannot be written are refused before the run.
    static const char *const outputs[][3] = {
        {"--export-csv", "/nonexistent-dir/x.csv", NULL},
        {"--export-csv", TMP "/bad-inputs", NULL},
        {"--profile", "/nonexistent-dir/x.csv", NULL},
        {"--profile", TMP "/bad-inputs/x.txt", NULL},
        {"--export-csv", "/proc/self/mem", NULL},                 // no file can be made in /proc/self
        {"--save", "/proc/1/root/nonexistent-dir/x.boids", NULL}, // a /proc path resolved before the run
        {"--save", "/dev/fd/1000", NULL},                         // a descriptor not open
        {"--export-csv", "/dev/stdin", NULL},                     // open for reading only
    };
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        program plain = {"boids-run", run_base, NULL};
        expect_refused(&plain, outputs[i], outputs[i][1]);
    }
    // The viewer's own flags.
    program viewer = {"boids", viewer_base, NULL};
    static const char *const viewer_cases[][3] = {
        {"--width", "0", NULL},       {"--height", "99999", NULL}, {"--vsync", "maybe", NULL},
        {"--keys", "", NULL},         {"--keys", "5:nokey", NULL}, {"--keys", "mouse=1", NULL},
        {"--demo", "worm", NULL},     {"--frames", "0", NULL},     {"--screenshot", "/nonexistent-dir/x.png", NULL},
        {"--profile", "x.bmp", NULL}, {"--count", "20", NULL}, // good flags, no display: 3
    };
    for (size_t i = 0; i < sizeof viewer_cases / sizeof viewer_cases[0]; i++)
        expect_refused(&viewer, viewer_cases[i], viewer_cases[i][0]);
    program bench = {"boids-bench", bench_base, NULL};
    static const char *const bench_cases[][3] = {{"--counts", "0", NULL},
                                                 {"--counts", "10,,20", NULL},
                                                 {"--counts", "abc", NULL},
                                                 {"--distribution", "gauss", NULL}};
    for (size_t i = 0; i < sizeof bench_cases / sizeof bench_cases[0]; i++)
        expect_refused(&bench, bench_cases[i], bench_cases[i][0]);
    // Snapshots: a good one from boids-run, then damaged copies for --load.
    run_result made = boids_test_run(BOIDS_BIN_DIR "/boids-run",
                                     (const char *const[]){"boids-run", "--count", "60", "--steps", "3", "--quiet",
                                                           "--save", TMP "/bad-inputs/good.boids", NULL},
                                     TMP, "bad-inputs");
    ck_assert_msg(made.spawned && WIFEXITED(made.status) && WEXITSTATUS(made.status) == 0, "--save failed: %s",
                  made.err);
    boids_test_run_free(&made);
    size_t len = 0;
    char *good = boids_test_slurp_len(TMP "/bad-inputs/good.boids", &len);
    ck_assert_msg(good && len > 64, "no snapshot written");
    static const char *const damages[] = {"truncated", "half", "magic", "crlf",
                                          "flipped",   "tail", "empty", "future version"};
    for (size_t d = 0; d < sizeof damages / sizeof damages[0]; d++) {
        char *copy = malloc(len + 8);
        memcpy(copy, good, len);
        size_t n = len;
        switch (d) {
        case 0:
            n = len - 3;
            break;
        case 1:
            n = len / 2;
            break;
        case 2:
            copy[1] = 'X';
            break;
        case 3:
            memmove(copy + 5, copy + 6, len - 6), n = len - 1;
            break; // "\r\n" -> "\n"
        case 4:
            copy[len / 3] ^= 0x40;
            break;
        case 5:
            memcpy(copy + len, "junk", 4), n = len + 4;
            break;
        case 7:
            copy[8] = 4; // format version 4 (this program writes 3)
            break;
        default:
            n = 0;
            break;
        }
        boids_test_write(TMP "/bad-inputs/bad.boids", copy, n);
        free(copy);
        // Every program that loads snapshots; --save points at a file that must stay.
        static const char *const loaders[] = {"boids-run", "boids-validate", "boids"};
        static const char *const steps_base[] = {"--steps", "2", NULL}, *const frames_base[] = {"--frames", "1", NULL};
        for (size_t l = 0; l < 3; l++) {
            program load = {loaders[l], l == 2 ? frames_base : steps_base, NULL};
            expect_refused(&load,
                           (const char *const[]){"--load", TMP "/bad-inputs/bad.boids", "--save",
                                                 TMP "/bad-inputs/keep.boids", NULL},
                           damages[d]);
        }
    }
    free(good);
    // A snapshot of a run whose flow-field image then changes, goes missing,
    // is damaged or becomes a FIFO: every loader refuses it, naming the image.
    made = boids_test_run(BOIDS_BIN_DIR "/boids-run",
                          (const char *const[]){"boids-run", "--scenario", TMP "/bad-inputs/field-good.ini", "--steps",
                                                "2", "--quiet", "--save", TMP "/bad-inputs/field.boids", NULL},
                          TMP, "bad-inputs");
    ck_assert_msg(made.spawned && WIFEXITED(made.status) && WEXITSTATUS(made.status) == 0, "--save failed: %s",
                  made.err);
    boids_test_run_free(&made);
    static const char *const image_damages[] = {"image changed", "image missing", "image damaged", "image a FIFO"};
    for (size_t d = 0; d < sizeof image_damages / sizeof image_damages[0]; d++) {
        const char *png = TMP "/bad-inputs/field-good.png";
        unlink(png);
        if (d == 0)
            ck_assert(png_grey_write(png, 32, 24, 2));
        else if (d == 2)
            boids_test_write(png, "\x89PNG\r\n\x1a\nIHDR", 12);
        else if (d == 3)
            ck_assert_int_eq(mkfifo(png, 0600), 0);
        static const char *const loaders[] = {"boids-run", "boids-validate", "boids"};
        static const char *const steps_base[] = {"--steps", "2", NULL}, *const frames_base[] = {"--frames", "1", NULL};
        for (size_t l = 0; l < 3; l++) {
            program load = {loaders[l], l == 2 ? frames_base : steps_base, NULL};
            expect_refused(&load,
                           (const char *const[]){"--load", TMP "/bad-inputs/field.boids", "--save",
                                                 TMP "/bad-inputs/keep.boids", NULL},
                           image_damages[d]);
        }
    }
    // Recordings: a good one, then damaged copies for the viewer's --replay.
    made = boids_test_run(BOIDS_BIN_DIR "/boids-run",
                          (const char *const[]){"boids-run", "--count", "60", "--steps", "4", "--quiet", "--record",
                                                TMP "/bad-inputs/good.rec", NULL},
                          TMP, "bad-inputs");
    ck_assert_msg(made.spawned && WIFEXITED(made.status) && WEXITSTATUS(made.status) == 0, "--record failed: %s",
                  made.err);
    boids_test_run_free(&made);
    good = boids_test_slurp_len(TMP "/bad-inputs/good.rec", &len);
    ck_assert_msg(good && len > 96, "no recording written");
    static const char *const rec_damages[] = {"magic", "version", "header crc", "half header", "empty"};
    for (size_t d = 0; d < sizeof rec_damages / sizeof rec_damages[0]; d++) {
        char *copy = malloc(len);
        memcpy(copy, good, len);
        size_t n = len;
        switch (d) {
        case 0:
            copy[2] = 'Z';
            break;
        case 1:
            copy[8] = 99;
            break;
        case 2:
            copy[20] ^= 0x11;
            break;
        case 3:
            n = 30;
            break;
        default:
            n = 0;
            break;
        }
        boids_test_write(TMP "/bad-inputs/bad.rec", copy, n);
        free(copy);
        program replay = {"boids", (const char *const[]){"--frames", "1", NULL}, "--screenshot"};
        expect_refused(&replay, (const char *const[]){"--replay", TMP "/bad-inputs/bad.rec", NULL}, rec_damages[d]);
    }
    free(good);
    // --export-frames DIR is made if missing, one level: a missing parent or a file there is refused.
    program frames = {"boids", (const char *const[]){"--replay", TMP "/bad-inputs/good.rec", NULL}, NULL};
    expect_refused(&frames, (const char *const[]){"--export-frames", TMP "/bad-inputs/no-such-dir/frames", NULL},
                   "--export-frames under a missing folder");
    expect_refused(&frames, (const char *const[]){"--export-frames", TMP "/bad-inputs/good.rec", NULL},
                   "--export-frames a file");
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
        if (strcmp(programs[p].name, "boids-bench") == 0)
            continue; // the bench saves nothing (--save is an unknown flag there: in flag_cases' spirit)
        program save = {programs[p].name, programs[p].base, NULL};
        expect_refused(&save, (const char *const[]){"--save", "/nonexistent-dir/x.boids", NULL}, "--save bad dir");
        expect_refused(&save, (const char *const[]){"--save", TMP "/bad-inputs", NULL}, "--save a directory");
        expect_refused(&save, (const char *const[]){"--save-every", "0", "--save", TMP "/bad-inputs/s.boids", NULL},
                       "--save-every 0");
        // Parameters cannot be given with --load (the snapshot holds them).
        program load = {programs[p].name, (const char *const[]){NULL}, NULL};
        expect_refused(&load,
                       (const char *const[]){"--load", TMP "/bad-inputs/good.boids", "--seed", "3", "--save",
                                             TMP "/bad-inputs/keep.boids", NULL},
                       "--load with --seed");
    }
    (void)run;
    expect_untouched();
    printf("bad inputs: %u invocations with files and outputs refused properly\n", tried);
}
END_TEST

static Suite *bad_inputs_suite(void) {
    Suite *s = suite_create("bad_inputs");
    TCase *c = tcase_create("matrix");
    tcase_set_timeout(c, 600);
    tcase_add_test(c, flags_on_every_executable);
    tcase_add_test(c, files_and_outputs);
    tcase_add_test(c, neighborhood_and_combine_messages);
    tcase_add_test(c, leader_and_wall_messages);
    suite_add_tcase(s, c);
    return s;
}

int main(void) {
    return boids_test_run_suite(bad_inputs_suite());
}
