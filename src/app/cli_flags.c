/* src/app/cli_flags.c: the flag table of the command line (see cli.h) and
 * the values it reads. One row per flag says what the value is, where it
 * goes, what its errors say, and its argument, section and description in
 * --help; the parser (cli.c), --help and --list-flags (cli_help.c), the
 * suggestions for unknown flags and the checks across flags all read this
 * one table. A flag's accepted names are its name table's (`choices` or
 * `name_at`), for the parser, the errors and the help alike. The values are
 * checked by the library's parser (boids/parse.h). */
#include "cli_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "boids/parse.h"

#define TEXT_MAX (BOIDS_PARSE_SHOWN_MAX + 8) // a value shown in a problem text (cut short as before)

// --counts N,N,...
static int parse_counts(const parse_ctx *c, boids_options *o);
// --profile FILE.csv|FILE.json.
static int parse_profile(const parse_ctx *c, boids_options *o);
// Width and height in pixels, each 1..BOIDS_CLI_MAX_WINDOW.
static int parse_render(const parse_ctx *c, boids_options *o) {
    char expected[96], store[256];
    char *pieces[3];
    snprintf(expected, sizeof expected, "WxH in pixels, each an integer 1..%u (e.g. 1920x1080)", BOIDS_CLI_MAX_WINDOW);
    if (strlen(c->value) >= sizeof store)
        return cli_bad(c, expected, "is too long");
    uint32_t n = boids_parse_split(c->value, "xX", store, pieces, 3);
    if (n != 2)
        return cli_bad(c, expected, "has %s", n < 2 ? "one number" : "more than two numbers");
    uint64_t v[2];
    for (uint32_t i = 0; i < 2; i++) {
        const char *problem = boids_parse_uint(pieces[i], 0, 1, BOIDS_CLI_MAX_WINDOW, &v[i]);
        char text[TEXT_MAX];
        if (problem)
            return cli_bad(c, expected, "has a %s '%s' that is %s", i ? "height" : "width",
                           boids_parse_shown(pieces[i], text, sizeof text), problem);
    }
    o->render_w = (uint32_t)v[0];
    o->render_h = (uint32_t)v[1];
    return 0;
}

// --render WxH.
static int parse_render(const parse_ctx *c, boids_options *o);

static const char *const dims[] = {"2", "3", NULL};
static const char *const backends[] = {"cpu", "gpu", NULL};
static const char *const vsyncs[] = {"off", "on", NULL};
static const char *const demos[] = {"chain", "snake", NULL};
// --workload: a peer's published benchmark, each a shipped scenario of the same name.
const char *const boids_cli_workloads[] = {"circles", NULL};

// Where a value goes: its field's offset and size in boids_options.
#define FIELD(m) .field = offsetof(boids_options, m), .size = sizeof(((boids_options *)0)->m)
#define GIVEN(m) .given = offsetof(boids_options, m)
#define NO_GIVEN .given = 0 // (the macros below want one more initializer)
#define UINT(n, b, meta, l, h, m, exp, ...)                                                                            \
    { .name = n, .bit = b, .metavar = meta, .kind = CLI_UINT, .lo = l, .hi = h, FIELD(m), .expected = exp, __VA_ARGS__ }
#define FLOAT(n, b, meta, flags, m, exp, ...)                                                                          \
    {                                                                                                                  \
        .name = n, .bit = b, .metavar = meta, .kind = CLI_FLOAT, .parse_flags = flags, FIELD(m), .expected = exp,      \
        __VA_ARGS__                                                                                                    \
    }
#define PATH(n, b, meta, m, exp, prob, ...)                                                                            \
    { .name = n, .bit = b, .metavar = meta, .kind = CLI_PATH, FIELD(m), .expected = exp, .problem = prob, __VA_ARGS__ }
#define CHOICE(n, b, meta, k, names, m, exp, prob, ...)                                                                \
    {                                                                                                                  \
        .name = n, .bit = b, .metavar = meta, .kind = k, .choices = names, FIELD(m), .expected = exp, .problem = prob, \
        __VA_ARGS__                                                                                                    \
    }
#define CUSTOM(n, b, meta, fn, ...)                                                                                    \
    { .name = n, .bit = b, .metavar = meta, .kind = CLI_CUSTOM, .parse = fn, __VA_ARGS__ }
#define SWITCH(n, b, ...)                                                                                              \
    { .name = n, .bit = b, .kind = CLI_SWITCH, __VA_ARGS__ }

// offset 0 (prog) is never a value's field: 0 means "none" in the table.
_Static_assert(offsetof(boids_options, prog) == 0, "boids_options.prog first");

// The names of --behaviors: every behaviour (boids_behavior_name), then the
// words boids_parse_behaviors takes for sets.
static const char *const behavior_sets[] = {"flocking", "all", "none", NULL};
static const char *behavior_at(size_t i) {
    return i < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name((uint32_t)i) : behavior_sets[i - BOIDS_BEHAVIOR_COUNT];
}
// The names of --weights: every behaviour.
static const char *weight_at(size_t i) {
    return i < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name((uint32_t)i) : NULL;
}

#define H(sec, text) .section = CLI_SEC_##sec, .help = text

// A parameter's row: its flag, metavar, section and help from the registry.
#define PARAM_SECTION(s)                                                                                               \
    ((s) == BOIDS_PS_WORLD      ? CLI_SEC_WORLD                                                                        \
     : (s) == BOIDS_PS_AGENTS   ? CLI_SEC_AGENTS                                                                       \
     : (s) == BOIDS_PS_STEERING ? CLI_SEC_STEERING                                                                     \
     : (s) == BOIDS_PS_NAMED    ? CLI_SEC_NAMED                                                                        \
     : (s) == BOIDS_PS_RULES    ? CLI_SEC_RULES                                                                        \
                                : CLI_SEC_BODIES)
#define PARAM_ROW(ID, name_, flag_, key_, kind_, where_, field_, lo_, hi_, def_, flags_, aux_, choices_, metavar_,     \
                  section_, expected_, help_)                                                                          \
    {.name = flag_,                                                                                                    \
     .bit = BOIDS_CLI_PARAMS,                                                                                          \
     .metavar = metavar_,                                                                                              \
     .kind = CLI_PARAM,                                                                                                \
     .param = BOIDS_PARAM_##ID,                                                                                        \
     .choices = choices_,                                                                                              \
     .section = PARAM_SECTION(section_),                                                                               \
     .help = help_,                                                                                                    \
     .name_at = (kind_) == BOIDS_PK_BEHAVIORS ? behavior_at                                                            \
                : (kind_) == BOIDS_PK_WEIGHTS ? weight_at                                                              \
                                              : NULL},

const cli_flag cli_flags[] = {
    // Run.
    UINT("count", BOIDS_CLI_COUNT, "N", 1, BOIDS_MAX_AGENTS, count, " (agents)", GIVEN(count_set),
         H(RUN, "agents, 1..16777216")),
    CUSTOM("counts", BOIDS_CLI_COUNTS, "N,N,...", parse_counts, NO_GIVEN,
           H(RUN, "agent counts to time, a comma list (default 10000,100000,1000000)")),
    UINT("steps", BOIDS_CLI_STEPS, "S", 1, BOIDS_CLI_MAX_STEPS, steps, "", GIVEN(steps_set),
         .also = offsetof(boids_options, bench_steps), H(RUN, "steps to run, 1..1000000000 (default 100)")),
    UINT("seed", BOIDS_CLI_SEED, "X", 0, UINT64_MAX, seed, ", decimal or 0x hex", .parse_flags = BOIDS_PARSE_HEX,
         H(RUN, "random seed, decimal or 0x hex, 0..2^64-1 (default 1)")),
    CHOICE("distribution", BOIDS_CLI_DISTRIBUTION, "KIND", CLI_CHOICE, boids_parse_distribution_names, distribution,
           NULL, "is not a distribution", NO_GIVEN, H(RUN, "where the agents start: %N (default uniform)")),
    PATH("init", BOIDS_CLI_INIT, "FILE.csv", init_csv, "a CSV file with the header id,group,px,py,pz,vx,vy,vz",
         "is an empty path",
         H(RUN, "start from a CSV snapshot: id,group,px,py,pz,vx,vy,vz (2D: id,group,px,py,vx,vy; a neighbors "
                "column is ignored)")),
    PATH("load", BOIDS_CLI_LOAD, "FILE.boids", load, "a .boids snapshot written by --save", "is an empty path",
         H(RUN, "start from a .boids snapshot of --save (agents, bodies, parameters, seed, step), bit for bit as if "
                "never stopped; flags that set up the simulation are an error with it")),
    PATH("scenario", BOIDS_CLI_SCENARIO, "FILE.ini|NAME", scenario_arg,
         "a scenario file (.ini) or a name of --list-scenarios", "is empty",
         H(RUN, "a scenario file (docs/SCENARIOS.md) or a shipped one by name; the flags given override it (for "
                "every group)")),
    SWITCH("list-scenarios", BOIDS_CLI_LIST_SCENARIOS, NO_GIVEN, // acted on after parsing
           H(RUN, "list the shipped scenarios with their titles")),
    SWITCH("dump-scenario", BOIDS_CLI_DUMP_SCENARIO, FIELD(dump_scenario),
           H(RUN, "print the effective scenario (file + flags) as a scenario file and exit")),
    CHOICE("workload", BOIDS_CLI_WORKLOAD, "NAME", CLI_CHOICE, boids_cli_workloads, workload,
           "(FLAME GPU's Circles benchmark: scenarios/circles.ini)", "is not a workload", GIVEN(workload_set),
           H(RUN, "a peer's published benchmark on the same work, its shipped scenario: %N (FLAME GPU 2's Circles: "
                  "3D, one agent per unit volume, radius 2, its repulsion; their figure: 1 M agents, 200 steps)")),
    // World.
    CHOICE("dim", BOIDS_CLI_DIM, "2|3", CLI_CHOICE, dims, dim, NULL, "is not a dimension", .lo = 2, GIVEN(dim_set),
           H(WORLD, "dimensions: %N (default 2)")),
    // The parameters (boids/registry.h), every one a row.
    BOIDS_PARAM_LIST(PARAM_ROW)
    // Backend.
    CHOICE("backend", BOIDS_CLI_BACKEND, "NAME", CLI_NAME, backends, backend, NULL, "is not a backend", NO_GIVEN,
           H(BACKEND, "%N: the C reference (default) or the OpenGL 4.5 compute shaders (headless EGL)")),
    CHOICE("kernel", BOIDS_CLI_KERNEL, "NAME", CLI_CHOICE, boids_kernel_names, kernel,
           "(GPU kernel variants: the same bits)", "is not a GPU kernel", NO_GIVEN,
           H(BACKEND, "with --backend gpu, the compute kernel (the same bits for each): %N (default reference: one "
                      "steer invocation per agent, row-major cells; morton: the agents in the Morton / Z order of "
                      "their cells)")),
    CHOICE("index", BOIDS_CLI_INDEX, "KIND", CLI_CHOICE, boids_parse_index_names, index, NULL,
           "is not a neighbour index", NO_GIVEN,
           H(BACKEND, "neighbour search of the CPU backend: %N (default grid, the bin lattice; quadtree: an octree "
                      "in 3D; brute: every pair)")),
    CHOICE("update", BOIDS_CLI_UPDATE, "ORDER", CLI_CHOICE, boids_parse_update_names, update,
           "(sequential: the chapter's sketch, each boid moves before the next looks)", "is not an update order",
           NO_GIVEN,
           H(BACKEND, "%N (default parallel: every agent from the same state; sequential: the chapter's sketch, in "
                      "id order each agent moves before the next looks; CPU backend only, every pair)")),
    UINT("threads", BOIDS_CLI_THREADS, "N", 0, BOIDS_CLI_MAX_THREADS, threads, " (0 = the OpenMP default)", NO_GIVEN,
         H(BACKEND, "OpenMP threads, 0 = the default (results do not depend on it)")),
    UINT("threads", BOIDS_CLI_RUN_THREADS, "T", 1, BOIDS_CLI_MAX_THREADS, threads, " (CPU threads of each run)",
         NO_GIVEN, H(BACKEND, "CPU threads of each run's engine (default 1)")),
    PATH("shader-dir", BOIDS_CLI_SHADER_DIR, "DIR", shader_dir, "a directory holding the files of shaders/",
         "is an empty path", H(BACKEND, "load the GPU shaders from DIR instead of the built-in copies")),
    PATH("decompose", BOIDS_CLI_DECOMPOSE, "AxB[xC]", decompose, "AxB or AxBxC (boxes per axis, A*B*C = the ranks)",
         "is empty",
         H(BACKEND, "under mpirun -n A*B*C (built with MPI): one run split into boxes of cells, one per rank, the "
                    "same state-hash as one process (either backend; rank 0 writes --save and --export-csv; no "
                    "--save-every, --record, --profile)")),
    PATH("rebalance", BOIDS_CLI_REBALANCE, "K[:T]|off", rebalance, "K or K:T (steps between checks, imbalance), or off",
         "is empty",
         H(BACKEND, "with --decompose: boxes cut by the work of the agents (the candidate pairs of their cells), "
                    "cut anew every K steps when a rank's step examined over T times the mean (default 50:1.1); "
                    "off: even boxes")),
    UINT("jobs", BOIDS_CLI_JOBS, "N", 0, BOIDS_CLI_MAX_THREADS, jobs, " (runs at once)", NO_GIVEN,
         H(BACKEND, "runs at once on this process, each on its own thread (default 1; the GPU backend: 1; under "
                    "MPI: rank 0's own, 0 = dispatch only)")),
    UINT("timeout", BOIDS_CLI_TIMEOUT, "S", 1, 86400u * 30u, timeout, " (seconds)", GIVEN(timeout_set),
         H(BACKEND, "MPI: the longest wait for a rank's message, seconds (default 3600; boids-run --decompose: "
                    "120, then the ranks that do not answer are named)")),
    // Outputs.
    PATH("export-csv", BOIDS_CLI_EXPORT_CSV, "FILE.csv", export_csv, "a path of a CSV file to write",
         "is an empty path", H(OUTPUTS, "write the final state as CSV (a temporary file, then renamed)")),
    PATH("save", BOIDS_CLI_SAVE, "FILE.boids", save, "a path of a .boids snapshot to write", "is an empty path",
         H(OUTPUTS, "write the whole state at the end (also when interrupted), atomically: a temporary file, "
                    "fsynced, renamed over FILE")),
    UINT("save-every", BOIDS_CLI_SAVE_EVERY, "K", 1, BOIDS_CLI_MAX_STEPS, save_every, " (steps between snapshots)",
         NO_GIVEN, H(OUTPUTS, "with --save: also write it every K steps")),
    PATH("record", BOIDS_CLI_RECORD, "FILE", record, "a path of a recording to write", "is an empty path",
         H(OUTPUTS, "a recording of the run for boids --replay")),
    UINT("record-every", BOIDS_CLI_RECORD_EVERY, "K", 1, BOIDS_CLI_MAX_STEPS, record_every,
         " (steps between recorded frames)", NO_GIVEN, H(OUTPUTS, "with --record: a frame every K steps (default 1)")),
    CUSTOM("profile", BOIDS_CLI_PROFILE, "FILE.csv|FILE.json", parse_profile, NO_GIVEN,
           H(OUTPUTS, "a per-step profile: FILE.csv (one row per step) or FILE.json (Chrome trace: Perfetto, "
                      "chrome://tracing); stage times are the GPU's timer queries with --backend gpu")),
    UINT("stats-every", BOIDS_CLI_STATS_EVERY, "K", 1, BOIDS_CLI_MAX_STEPS, stats_every,
         " (steps between statistics lines)", GIVEN(stats_every_set),
         H(OUTPUTS, "a statistics line every K steps (default steps/10)")),
    PATH("out", BOIDS_CLI_OUT, "DIR", out_dir, "a folder for the results", "is an empty path",
         H(OUTPUTS, "the output folder (default: the plan's name without .ini and with .out, in the working "
                    "directory)")),
    SWITCH("resume", BOIDS_CLI_RESUME, FIELD(resume),
           H(OUTPUTS, "run only the runs DIR lacks (after a killed job), then write results.csv")),
    CUSTOM("render", BOIDS_CLI_RENDER, "WxH", parse_render, NO_GIVEN,
           H(OUTPUTS, "with --backend gpu: after every step (warm-up too) draw the viewer's frame (its camera, "
                      "agents, bodies, scene lines and a HUD panel) into an off-screen framebuffer of W x H pixels, "
                      "then glFinish; a second table gives per count the median frame ms (step + draw) and "
                      "frames/s")),
    PATH("screenshot", BOIDS_CLI_SCREENSHOT, "FILE.png", screenshot, "a path of a PNG file to write",
         "is an empty path", H(OUTPUTS, "write the last frame as a PNG")),
    SWITCH("program-stats", BOIDS_CLI_PROGRAM_STATS, FIELD(program_stats),
           H(OUTPUTS, "with --backend gpu: after the table, one row per compute program the run dispatched: its "
                      "binary's bytes and format (glGetProgramBinary) and, where the driver puts its assembly in "
                      "the binary (NVIDIA), its lines, vec4 temporaries (registers) and local-memory arrays")),
    SWITCH("rounding-cost", BOIDS_CLI_ROUNDING_COST, FIELD(rounding_cost),
           H(OUTPUTS, "with --backend gpu: a second engine of the same world with sqrt and division corrected to "
                      "the C's in the shaders where the first's are not, and the other way round, stepped after "
                      "each timed step; a table gives per count the steer's median both ways and their ratio (what "
                      "the correction costs on this driver; each count takes twice as long)")),
    SWITCH("quiet", BOIDS_CLI_QUIET, FIELD(quiet),
           H(OUTPUTS, "no progress line on stderr (on a terminal: one updating line, from 2 s on)")),
    // Window.
    UINT("width", BOIDS_CLI_WIDTH, "W", 1, BOIDS_CLI_MAX_WINDOW, width, " (pixels)", NO_GIVEN,
         H(WINDOW, "window width in pixels (default 1280)")),
    UINT("height", BOIDS_CLI_HEIGHT, "H", 1, BOIDS_CLI_MAX_WINDOW, height, " (pixels)", NO_GIVEN,
         H(WINDOW, "window height in pixels (default 800)")),
    CHOICE("vsync", BOIDS_CLI_VSYNC, "on|off", CLI_CHOICE, vsyncs, vsync, "on or off", "is not a vsync setting",
           NO_GIVEN, H(WINDOW, "wait for the display's refresh: %N (default on)")),
    UINT("frames", BOIDS_CLI_FRAMES, "K", 1, BOIDS_CLI_MAX_STEPS, frames, " (frames before exiting)", NO_GIVEN,
         H(WINDOW, "exit after K frames")),
    PATH("keys", BOIDS_CLI_KEYS, "SCRIPT", keys, "a comma list of [FRAME:]KEY (see --help)", "is empty",
         H(WINDOW, "key presses to replay: a comma list of [FRAME:]KEY (below)")),
    CHOICE("demo", BOIDS_CLI_DEMO, "NAME", CLI_NAME, demos, demo, NULL, "is not a demo", NO_GIVEN,
           H(WINDOW, "no flock: the notebook's demos (procedural-animation-chains), %N: a chain whose joints the "
                     "mouse drags (400x400) or a snake whose head follows the mouse (600x600); the window is the "
                     "canvas unless --width/--height")),
    PATH("replay", BOIDS_CLI_REPLAY, "FILE", replay, "a recording written by boids-run --record", "is an empty path",
         H(WINDOW, "no simulation: play a recording of boids-run --record")),
    UINT("frame", BOIDS_CLI_FRAME, "N", 0, UINT32_MAX - 1, frame, " (a frame of the recording)", NO_GIVEN,
         H(WINDOW, "with --replay: start at frame N (default 0, the first)")),
    PATH("export-frames", BOIDS_CLI_EXPORT_FRAMES, "DIR", export_frames, "a directory for the PNG frames",
         "is an empty path",
         H(WINDOW, "with --replay: write every frame as DIR/frame-00000.png and exit (DIR is made if missing; its "
                   "parent must exist)")),
    PATH("video", BOIDS_CLI_VIDEO, "FILE.mp4", video, "a path of an MP4 file to write", "is an empty path",
         H(WINDOW, "write the frames drawn (HUD too) as an H.264 video through the ffmpeg program, one video frame "
                   "per drawn frame (the time follows frames, not the clock); with --frames K or --keys it is "
                   "scriptable")),
    UINT("video-fps", BOIDS_CLI_VIDEO_FPS, "N", 1, 240, video_fps, " (video frames per second)", NO_GIVEN,
         H(WINDOW, "with --video: frames per second of the video, 1..240 (default 30)")),
    // Always accepted.
    SWITCH("help", 0, NO_GIVEN, H(OTHER, "print this help and exit")),
    SWITCH("version", 0, NO_GIVEN, H(OTHER, "print the version and exit")),
    // Hidden (cli.h): for the tests and the build.
    SWITCH("list-flags", 0, NO_GIVEN, .section = CLI_SEC_OTHER),
    SWITCH("man-page", 0, NO_GIVEN, .section = CLI_SEC_OTHER),
    SWITCH("bash-completion", 0, NO_GIVEN, .section = CLI_SEC_OTHER),
    SWITCH("check-args", 0, FIELD(check_args), .section = CLI_SEC_OTHER),
};
const size_t cli_flag_count = sizeof cli_flags / sizeof cli_flags[0];

// Stores v into the integer or bool of `size` bytes at dest.
static void store_uint(void *dest, size_t size, uint64_t v) {
    if (size == sizeof(uint64_t)) {
        memcpy(dest, &v, sizeof v);
    } else if (size == sizeof(uint32_t)) {
        uint32_t u = (uint32_t)v;
        memcpy(dest, &u, sizeof u);
    } else {
        bool b = v != 0;
        memcpy(dest, &b, sizeof b);
    }
}

// " (did you mean 'NAME'?)" for the name of f nearest to value (a typo or
// a prefix), into buf; "" when none is near.
static const char *nearest_name(const cli_flag *f, const char *value, char *buf, size_t size) {
    const char *names[64];
    size_t n = 0;
    while (n + 1 < sizeof names / sizeof names[0] && (names[n] = cli_flag_name(f, n)))
        n++;
    names[n] = NULL;
    return boids_parse_hint(value, names, buf, size);
}

// Checks and stores the value of one flag (see cli_internal.h).
int cli_flag_value(const parse_ctx *c, const cli_flag *f, boids_options *o) {
    char *base = (char *)o, expected[400];
    const char *problem = NULL;
    uint64_t u = 0;
    float v = 0.0f;
    int k;
    bool yes = true;
    switch (f->kind) {
    case CLI_SWITCH:
        if (f->field)
            memcpy(base + f->field, &yes, sizeof yes);
        break;
    case CLI_UINT:
        snprintf(expected, sizeof expected, "an integer %llu..%llu%s", (unsigned long long)f->lo,
                 (unsigned long long)f->hi, f->expected);
        if ((problem = boids_parse_uint(c->value, f->parse_flags, f->lo, f->hi, &u)))
            return cli_bad(c, expected, "is %s", problem);
        store_uint(base + f->field, f->size, u);
        if (f->also)
            store_uint(base + f->also, f->size, u);
        break;
    case CLI_FLOAT:
        if ((problem = boids_parse_float(c->value, f->parse_flags, &v)))
            return cli_bad(c, f->expected, "is %s", problem);
        memcpy(base + f->field, &v, sizeof v);
        break;
    case CLI_PATH:
        if (!c->value[0])
            return cli_bad(c, f->expected, "%s", f->problem);
        memcpy(base + f->field, &c->value, sizeof c->value);
        break;
    case CLI_CHOICE:
    case CLI_NAME:
        k = f->pick ? f->pick(c->value) : boids_parse_pick(c->value, 0, f->choices);
        if (k < 0 && f->expected && f->expected[0] != '(')
            return cli_bad(c, f->expected, "%s%s", f->problem, nearest_name(f, c->value, expected, sizeof expected));
        if (k < 0) { // the names from the table the value was looked up in
            char names[256], near[128];
            cli_flag_names(f, NULL, names, sizeof names);
            snprintf(expected, sizeof expected, "%s%s%s", names, f->expected ? " " : "",
                     f->expected ? f->expected : "");
            return cli_bad(c, expected, "%s%s", f->problem, nearest_name(f, c->value, near, sizeof near));
        }
        if (f->kind == CLI_NAME)
            memcpy(base + f->field, &f->choices[k], sizeof f->choices[k]);
        else
            store_uint(base + f->field, f->size, (uint64_t)k + f->lo);
        break;
    case CLI_CUSTOM:
        if (f->parse(c, o))
            return 2;
        break;
    case CLI_PARAM: {
        char problem[700];
        if (boids_param_parse(&o->values, f->param, c->value, problem, sizeof problem, expected, sizeof expected))
            return cli_bad(c, expected, "%s", problem);
        if (f->param == BOIDS_PARAM_WORLD)
            o->world_arg = c->value;
        if (f->param == BOIDS_PARAM_ORIGIN)
            o->origin_arg = c->value;
        break;
    }
    }
    if (f->given)
        memcpy(base + f->given, &yes, sizeof yes);
    return 0;
}

// See cli_internal.h.
const char *cli_flag_name(const cli_flag *f, size_t i) {
    if (f->name_at)
        return f->name_at(i);
    if (!f->choices)
        return NULL;
    for (size_t k = 0; k < i; k++) // a NULL-terminated table: never past its end
        if (!f->choices[k])
            return NULL;
    return f->choices[i];
}

// See cli_internal.h.
void cli_flag_names(const cli_flag *f, const char *sep, char *buf, size_t size) {
    size_t n = 0, len = 0;
    while (cli_flag_name(f, n))
        n++;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len + 1 < size; i++) {
        const char *between = i == 0 ? "" : sep ? sep : i + 1 == n ? " or " : ", ";
        int w = snprintf(buf + len, size - len, "%s%s", between, cli_flag_name(f, i));
        if (w < 0)
            break;
        len = len + (size_t)w < size ? len + (size_t)w : size - 1;
    }
}

// The accepted flag nearest to `name` (see cli_internal.h).
const char *cli_flag_suggest(const boids_cli_spec *spec, const char *name) {
    const char *names[sizeof cli_flags / sizeof cli_flags[0] + 1];
    size_t n = 0;
    for (size_t i = 0; i < cli_flag_count; i++) // the hidden ones are never suggested
        if (cli_flag_accepted(spec, &cli_flags[i]) && (cli_flags[i].bit || cli_flag_shown(&cli_flags[i])))
            names[n++] = cli_flags[i].name;
    names[n] = NULL;
    return boids_parse_nearest(name, names, strlen(name) <= 4 ? 1 : 2, true);
}

static int parse_counts(const parse_ctx *c, boids_options *o) {
    char expected[128];
    snprintf(expected, sizeof expected, "a comma list of at most %u integers 1..%u", BOIDS_CLI_MAX_COUNTS,
             BOIDS_MAX_AGENTS);
    size_t n = strlen(c->value);
    char *store = malloc(n + 1);
    char *pieces[BOIDS_CLI_MAX_COUNTS];
    if (!store)
        return cli_bad(c, NULL, "cannot be parsed: out of memory");
    uint32_t count = boids_parse_split(c->value, ",", store, pieces, BOIDS_CLI_MAX_COUNTS);
    int rc = 0;
    if (count > BOIDS_CLI_MAX_COUNTS) {
        rc = cli_bad(c, expected, "has more than %u counts", BOIDS_CLI_MAX_COUNTS);
    } else {
        for (uint32_t i = 0; i < count && rc == 0; i++) {
            uint64_t v = 0;
            const char *problem = boids_parse_uint(pieces[i], 0, 1, BOIDS_MAX_AGENTS, &v);
            if (problem) {
                char text[TEXT_MAX];
                rc = cli_bad(c, expected, "has a count '%s' that is %s",
                             boids_parse_shown(pieces[i], text, sizeof text), problem);
            } else {
                o->counts[i] = (uint32_t)v;
            }
        }
        if (rc == 0)
            o->n_counts = count;
    }
    free(store);
    return rc;
}

static int parse_profile(const parse_ctx *c, boids_options *o) {
    const char *expected = "a path ending in .csv or .json";
    if (!c->value[0])
        return cli_bad(c, expected, "is an empty path");
    const char *dot = strrchr(c->value, '.');
    if (!dot || strchr(dot, '/') || dot == c->value || dot[-1] == '/' ||
        (strcasecmp(dot, ".csv") != 0 && strcasecmp(dot, ".json") != 0))
        return cli_bad(c, expected, "has an unknown extension");
    o->profile = c->value;
    return 0;
}

// See cli_internal.h.
bool cli_flag_accepted(const boids_cli_spec *spec, const cli_flag *f) {
    return !f->bit || (spec->flags & f->bit);
}

// See cli_internal.h.
bool cli_flag_shown(const cli_flag *f) {
    return f->help != NULL;
}

// See cli_internal.h.
const cli_flag *cli_section_next(const boids_cli_spec *spec, int s, size_t *k) {
    for (; *k < cli_flag_count; (*k)++) {
        const cli_flag *f = &cli_flags[*k];
        if ((int)f->section == s && cli_flag_shown(f) && cli_flag_accepted(spec, f)) {
            (*k)++;
            return f;
        }
    }
    return NULL;
}
