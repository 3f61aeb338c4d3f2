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

// --behaviors LIST|all|none.
static int parse_behaviors(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --weights name=value,...
static int parse_weights(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --world WxH[xD] (count against --dim is checked after all flags).
static int parse_world(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --origin X,Y[,Z].
static int parse_origin(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --counts N,N,...
static int parse_counts(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --profile FILE.csv|FILE.json.
static int parse_profile(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --maxspeed-range LO,HI and --maxforce-range LO,HI.
// Width and height in pixels, each 1..BOIDS_CLI_MAX_WINDOW.
static int parse_render(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
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

static int parse_range(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --leader ID|target and --interpose A,B.
static int parse_agents(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
// --render WxH.
static int parse_render(const parse_ctx *c, boids_options *o, uint32_t *origin_n);

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
// The names of --bodies: every body style (boids_body_style_name).
static const char *body_at(size_t i) {
    return i < BOIDS_BODY_STYLES ? boids_body_style_name((uint32_t)i) : NULL;
}

#define H(sec, text) .section = CLI_SEC_##sec, .help = text

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
    CUSTOM("world", BOIDS_CLI_WORLD, "WxH[xD]", parse_world, NO_GIVEN,
           H(WORLD, "world extents (default: sized for about 20 neighbours per agent)")),
    CUSTOM("origin", BOIDS_CLI_ORIGIN, "X,Y[,Z]", parse_origin, NO_GIVEN,
           H(WORLD, "the world's lower corner (default 0,0[,0])")),
    CHOICE("boundary", BOIDS_CLI_BOUNDARY, "MODE", CLI_CHOICE, boids_parse_boundary_names, boundary, NULL,
           "is not a boundary mode", GIVEN(boundary_set),
           H(WORLD, "the world's edges: %N (default wrap; margin: the chapter's sketch, borders() with plain "
                    "distances)")),
    FLOAT("margin", BOIDS_CLI_MARGIN, "R", BOIDS_PARSE_POSITIVE, margin,
          "a margin > 0 (boundary margin: the boid size r of the chapter's sketch, default 3)", GIVEN(margin_set),
          H(WORLD, "boundary margin's margin, the sketch's boid size r (default 3)")),
    CHOICE("wall-corner", BOIDS_CLI_WALL_CORNER, "RULE", CLI_CHOICE, boids_parse_wall_corner_names, wall_corner,
           "(book: the chapter's rule, the last near axis decides)", "is not a wall-corner rule",
           GIVEN(wall_corner_set),
           H(WORLD, "staying within walls at a corner: %N (default both: away from every near wall; book: the "
                    "chapter's, the last near axis decides)")),
    FLOAT("dt", BOIDS_CLI_DT, "T", BOIDS_PARSE_POSITIVE, dt, "a time step > 0", GIVEN(dt_set),
          H(WORLD, "time step (default 1)")),
    CHOICE("grid-fine", BOIDS_CLI_GRID_FINE, "M", CLI_CHOICE, boids_parse_grid_fine_names, grid_fine,
           "(cells of reach / M, blocks of c-M..c+M; auto: chosen from the density)", "is not a grid fine factor",
           GIVEN(grid_fine_set),
           H(WORLD, "the finer grid, M = %N: cells of reach / M, each search over the c-M..c+M block (default 1; "
                    "auto: M from the measured density); the same neighbours, the same bits")),
    // Agents.
    CUSTOM("behaviors", BOIDS_CLI_BEHAVIORS, "LIST", parse_behaviors, GIVEN(behaviors_set), .name_at = behavior_at,
           H(AGENTS, "a comma list of behaviours or sets: %N (default flocking = separation, alignment, cohesion)")),
    CUSTOM("weights", BOIDS_CLI_WEIGHTS, "NAME=W,...", parse_weights, NO_GIVEN, .name_at = weight_at,
           H(AGENTS, "the weight of each named behaviour (default 1; separation 1.5), NAME one of %N")),
    FLOAT("radius", BOIDS_CLI_RADIUS, "R", BOIDS_PARSE_POSITIVE, radius, "a perception radius > 0", GIVEN(radius_set),
          H(AGENTS, "perception radius (default 50)")),
    FLOAT("separation", BOIDS_CLI_SEPARATION, "R", BOIDS_PARSE_POSITIVE, separation, "a desired separation > 0",
          GIVEN(separation_set), H(AGENTS, "desired separation (default 25)")),
    FLOAT("fov", BOIDS_CLI_FOV, "DEGREES", BOIDS_PARSE_POSITIVE | BOIDS_PARSE_DEGREES, fov_deg,
          "a field of view in degrees, 0 < fov <= 360", GIVEN(fov_set),
          H(AGENTS, "field of view, 0 < fov <= 360 (default 360)")),
    FLOAT("alignment-radius", BOIDS_CLI_ALIGNMENT_RADIUS, "R", BOIDS_PARSE_POSITIVE, alignment_radius,
          "an alignment radius > 0", GIVEN(alignment_radius_set),
          H(AGENTS, "alignment's own radius (OpenSteer's per-rule neighbourhoods; default --radius)")),
    FLOAT("cohesion-radius", BOIDS_CLI_COHESION_RADIUS, "R", BOIDS_PARSE_POSITIVE, cohesion_radius,
          "a cohesion radius > 0", GIVEN(cohesion_radius_set), H(AGENTS, "cohesion's own radius (default --radius)")),
    FLOAT("separation-fov", BOIDS_CLI_SEPARATION_FOV, "DEGREES", BOIDS_PARSE_POSITIVE | BOIDS_PARSE_DEGREES,
          separation_fov_deg, "separation's field of view in degrees, 0 < fov <= 360", GIVEN(separation_fov_set),
          H(AGENTS, "separation's own field of view (default --fov)")),
    FLOAT("alignment-fov", BOIDS_CLI_ALIGNMENT_FOV, "DEGREES", BOIDS_PARSE_POSITIVE | BOIDS_PARSE_DEGREES,
          alignment_fov_deg, "alignment's field of view in degrees, 0 < fov <= 360", GIVEN(alignment_fov_set),
          H(AGENTS, "alignment's own field of view (default --fov)")),
    FLOAT("cohesion-fov", BOIDS_CLI_COHESION_FOV, "DEGREES", BOIDS_PARSE_POSITIVE | BOIDS_PARSE_DEGREES,
          cohesion_fov_deg, "cohesion's field of view in degrees, 0 < fov <= 360", GIVEN(cohesion_fov_set),
          H(AGENTS, "cohesion's own field of view (default --fov)")),
    UINT("neighbors-max", BOIDS_CLI_NEIGHBORS_MAX, "K", 0, BOIDS_MAX_NEIGHBORS_K, neighbors_max,
         " (the nearest K neighbours; 0 = every neighbour)", GIVEN(neighbors_max_set),
         H(AGENTS, "topological neighbourhoods (Ballerini et al. 2008), 0..32: each agent heeds only its K nearest "
                   "accepted neighbours (ties: the smaller id); 0 (default) = every neighbour")),
    FLOAT("maxspeed", BOIDS_CLI_MAXSPEED, "V", BOIDS_PARSE_POSITIVE, maxspeed, "a maximum speed > 0",
          GIVEN(maxspeed_set), H(AGENTS, "maximum speed (default 3)")),
    FLOAT("maxforce", BOIDS_CLI_MAXFORCE, "F", BOIDS_PARSE_POSITIVE, maxforce, "a maximum steering force > 0",
          GIVEN(maxforce_set), H(AGENTS, "maximum steering force (default 0.05)")),
    CUSTOM("maxspeed-range", BOIDS_CLI_MAXSPEED_RANGE, "LO,HI", parse_range, GIVEN(maxspeed_range_set),
           H(AGENTS, "each agent's own maxspeed, uniform in LO..HI (seeded by its id; replaces --maxspeed)")),
    CUSTOM("maxforce-range", BOIDS_CLI_MAXFORCE_RANGE, "LO,HI", parse_range, GIVEN(maxforce_range_set),
           H(AGENTS, "each agent's own maxforce, uniform in LO..HI")),
    CHOICE("combine", BOIDS_CLI_COMBINE, "MODE", CLI_CHOICE, boids_parse_combine_names, combine, NULL,
           "is not a combination mode", GIVEN(combine_set),
           H(AGENTS, "how the forces add up: %N (default sum; priority: the first force above the threshold; "
                     "truncated: Buckland's running sum in priority order until maxforce is spent)")),
    // Named agents and paths.
    CUSTOM("leader", BOIDS_CLI_LEADER, "ID|target", parse_agents, GIVEN(leader_set),
           H(NAMED, "every group's leader of offset and follow: an agent id or target (default target)")),
    CHOICE("formation", BOIDS_CLI_FORMATION, "SHAPE", CLI_CHOICE, boids_parse_formation_names, formation, NULL,
           "is not a formation", GIVEN(formation_set),
           H(NAMED, "offset's places from each member's rank: %N (none: leader_offset)")),
    CUSTOM("interpose", BOIDS_CLI_INTERPOSE, "A,B", parse_agents, GIVEN(interpose_set),
           H(NAMED, "the two agents interpose goes between: ids or target (default 0,target)")),
    CHOICE("path-outside", BOIDS_CLI_PATH_OUTSIDE, "RULE", CLI_CHOICE, boids_parse_path_outside_names, path_outside,
           NULL, "is not a rule outside a path segment", GIVEN(path_outside_set),
           H(NAMED, "a path's normal point outside a segment: %N (default clamp: the nearer end; end: the "
                    "segment's end point, as the book's Example 5.8)")),
    CHOICE("path-line", BOIDS_CLI_PATH_LINE, "KIND", CLI_CHOICE, boids_parse_path_line_names, path_line, NULL,
           "is not a kind of path line", GIVEN(path_line_set),
           H(NAMED, "a path's lines: %N (default segment; infinite: through a segment's two points, unclamped, as "
                    "the book's 5.5 / 5.6)")),
    // Rule sets and models.
    CHOICE("rules", BOIDS_CLI_RULES, "NAME", CLI_CHOICE, boids_parse_rules_names, rules, NULL, "is not a rule set",
           GIVEN(rules_set), H(RULES, "every group's rule set: %N (default chapter)")),
    FLOAT("eta", BOIDS_CLI_ETA, "RADIANS", 0, eta, "Vicsek's noise width in radians, 0..2 pi (rules vicsek)",
          GIVEN(eta_set), H(RULES, "Vicsek's noise width, 0..2 pi (rules vicsek)")),
    FLOAT("sigma", BOIDS_CLI_SIGMA, "RADIANS", 0, sigma,
          "Couzin's angular noise deviation in radians, 0..pi (rules couzin)", GIVEN(sigma_set),
          H(RULES, "Couzin's angular noise deviation, 0..pi (rules couzin)")),
    FLOAT("turn", BOIDS_CLI_TURN, "RADIANS", 0, turn,
          "the turn per time unit in radians, 0..pi (rules heading: per rule; couzin: the most)", GIVEN(turn_set),
          H(RULES, "the turn per time unit, 0..pi (rules heading: per rule; couzin: the most)")),
    // Bodies.
    CHOICE("bodies", BOIDS_CLI_BODIES, "STYLE", CLI_CHOICE, NULL, body_style, NULL, "is not a body style",
           .pick = boids_body_style_index, .name_at = body_at, GIVEN(body_style_set),
           H(BODIES, "a procedural body trailing every agent: %N (default none; distance and angle constraints, "
                     "after integrate)")),
    UINT("joints", BOIDS_CLI_JOINTS, "J", BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS, joints, " (joints per body)", NO_GIVEN,
         H(BODIES, "joints per body, 2..32 (default 12)")),
    FLOAT("body-length", BOIDS_CLI_BODY_LENGTH, "L", BOIDS_PARSE_POSITIVE, body_length,
          "a body length > 0 (world units, head to tail)", GIVEN(body_length_set),
          H(BODIES, "a body's length head to tail (default 1.2 x the separation)")),
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
    PATH("export-frames", BOIDS_CLI_EXPORT_FRAMES, "DIR", export_frames, "an existing directory for the PNG frames",
         "is an empty path", H(WINDOW, "with --replay: write every frame as DIR/frame-00000.png and exit")),
    PATH("video", BOIDS_CLI_VIDEO, "FILE.mp4", video, "a path of an MP4 file to write", "is an empty path",
         H(WINDOW, "write the frames drawn (HUD too) as an H.264 video through the ffmpeg program, one video frame "
                   "per drawn frame (the time follows frames, not the clock); with --frames K or --keys it is "
                   "scriptable")),
    UINT("video-fps", BOIDS_CLI_VIDEO_FPS, "N", 1, 240, video_fps, " (video frames per second)", NO_GIVEN,
         H(WINDOW, "with --video: frames per second of the video, 1..240 (default 30)")),
    // Always accepted.
    SWITCH("help", 0, NO_GIVEN, H(OTHER, "print this help and exit")),
    SWITCH("version", 0, NO_GIVEN, H(OTHER, "print the version and exit")),
    SWITCH("list-flags", 0, NO_GIVEN, .section = CLI_SEC_OTHER), // hidden: for tests (cli.h)
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

// Checks and stores the value of one flag (see cli_internal.h).
int cli_flag_value(const parse_ctx *c, const cli_flag *f, boids_options *o, uint32_t *origin_n) {
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
            return cli_bad(c, f->expected, "%s", f->problem);
        if (k < 0) { // the names from the table the value was looked up in
            char names[256];
            cli_flag_names(f, NULL, names, sizeof names);
            snprintf(expected, sizeof expected, "%s%s%s", names, f->expected ? " " : "",
                     f->expected ? f->expected : "");
            return cli_bad(c, expected, "%s", f->problem);
        }
        if (f->kind == CLI_NAME)
            memcpy(base + f->field, &f->choices[k], sizeof f->choices[k]);
        else
            store_uint(base + f->field, f->size, (uint64_t)k + f->lo);
        break;
    case CLI_CUSTOM:
        if (f->parse(c, o, origin_n))
            return 2;
        break;
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

// The accepted flag nearest to `name` (see cli_internal.h).
const char *cli_flag_suggest(const boids_cli_spec *spec, const char *name) {
    const char *names[sizeof cli_flags / sizeof cli_flags[0] + 1];
    size_t n = 0;
    for (size_t i = 0; i < cli_flag_count; i++)
        if (!cli_flags[i].bit || (spec->flags & cli_flags[i].bit))
            names[n++] = cli_flags[i].name;
    names[n] = NULL;
    return boids_parse_nearest(name, names, strlen(name) <= 4 ? 1 : 2, true);
}

// The comma list of every behaviour name, for messages.
static void behavior_list(char *buf, size_t size) {
    boids_behaviors_text((uint32_t)((1ull << BOIDS_BEHAVIOR_COUNT) - 1u), ", ", buf, size);
}

static int parse_behaviors(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
    char names[512], expected[700], problem[TEXT_MAX + 64];
    if (boids_parse_behaviors(c->value, 0, &o->behaviors, problem, sizeof problem))
        return 0;
    behavior_list(names, sizeof names);
    snprintf(expected, sizeof expected, "a comma list of %s, flocking, or all, none", names);
    return cli_bad(c, expected, "%s", problem);
}

static int parse_weights(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
    char names[512], expected[700];
    behavior_list(names, sizeof names);
    snprintf(expected, sizeof expected, "name=value,... with a finite number for each of %s", names);
    size_t n = strlen(c->value);
    char *store = malloc(n + 1);
    char **pieces = malloc((n + 2) * sizeof *pieces);
    int rc = 0;
    if (!store || !pieces) {
        rc = cli_bad(c, NULL, "cannot be parsed: out of memory");
        goto done;
    }
    uint32_t count = boids_parse_split(c->value, ",", store, pieces, (uint32_t)(n + 1));
    float w[BOIDS_BEHAVIOR_COUNT];
    bool set[BOIDS_BEHAVIOR_COUNT] = {false};
    for (uint32_t i = 0; i < count; i++) {
        char text[TEXT_MAX], vtext[TEXT_MAX];
        char *eq = strchr(pieces[i], '=');
        if (!eq) {
            rc = cli_bad(c, expected, "has '%s' without '=value'", boids_parse_shown(pieces[i], text, sizeof text));
            goto done;
        }
        *eq = '\0';
        int index = boids_behavior_index(pieces[i]);
        if (index < 0 || (uint32_t)index >= BOIDS_BEHAVIOR_COUNT) {
            rc = cli_bad(c, expected, "names an unknown behaviour '%s'",
                         boids_parse_shown(pieces[i], text, sizeof text));
            goto done;
        }
        float v = 0.0f;
        const char *problem = boids_parse_float(eq + 1, 0, &v);
        if (problem) {
            rc = cli_bad(c, expected, "gives %s the weight '%s', which is %s",
                         boids_parse_shown(pieces[i], text, sizeof text),
                         boids_parse_shown(eq + 1, vtext, sizeof vtext), problem);
            goto done;
        }
        w[index] = v;
        set[index] = true;
    }
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++) {
        if (set[i]) {
            o->weights[i] = w[i];
            o->weight_set[i] = true;
        }
    }
done:
    free(store);
    free(pieces);
    return rc;
}

// Splits a value of 2 or 3 numbers (extents or coordinates) and parses each
// with parse_flags into v; `axis` names them in messages, `what` is the
// plural noun ("extents"). Returns the count, or 0 with the error printed.
static uint32_t parse_triple(const parse_ctx *c, const char *separators, unsigned parse_flags, const char *expected,
                             const char *const axis[3], const char *article, const char *what, float v[3]) {
    char store[256];
    char *pieces[3];
    if (strlen(c->value) >= sizeof store) {
        cli_bad(c, expected, "is too long");
        return 0;
    }
    uint32_t n = boids_parse_split(c->value, separators, store, pieces, 3);
    if (n < 2 || n > 3) {
        cli_bad(c, expected, "has %s %.*s", n < 2 ? "one" : "more than three", (int)strlen(what) - (n < 2), what);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *problem = boids_parse_float(pieces[i], parse_flags, &v[i]);
        char text[TEXT_MAX];
        if (problem) {
            cli_bad(c, expected, "has %s %s '%s' that is %s", article, axis[i],
                    boids_parse_shown(pieces[i], text, sizeof text), problem);
            return 0;
        }
    }
    return n;
}

static int parse_world(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
    static const char *const axis[3] = {"width", "height", "depth"};
    float v[3] = {0.0f, 0.0f, 0.0f};
    uint32_t n = parse_triple(c, "xX", BOIDS_PARSE_POSITIVE,
                              "WxH (2D) or WxHxD (3D) with every extent a positive number", axis, "a", "extents", v);
    if (!n)
        return 2;
    for (uint32_t i = 0; i < 3; i++)
        o->world[i] = i < n ? v[i] : 0.0;
    o->world_n = n;
    o->world_set = true;
    o->world_arg = c->value;
    return 0;
}

static int parse_origin(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    static const char *const axis[3] = {"x", "y", "z"};
    float v[3] = {0.0f, 0.0f, 0.0f};
    uint32_t n = parse_triple(c, ",", 0, "X,Y (2D) or X,Y,Z (3D), finite numbers", axis, "an", "coordinates", v);
    if (!n)
        return 2;
    for (uint32_t i = 0; i < 3; i++)
        o->origin[i] = v[i];
    o->origin_set = true;
    o->origin_arg = c->value;
    *origin_n = n;
    return 0;
}

// Each agent's own value is drawn from LO..HI (boids_agent_range).
static int parse_agents(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
    bool two = strcmp(c->flag, "--interpose") == 0;
    uint32_t ids[2] = {0, 0};
    const char *p = boids_parse_agents(c->value, two ? 2u : 1u, ids);
    if (p)
        return cli_bad(
            c, two ? "A,B: each an agent id below the count, or target" : "an agent id below the count, or target",
            "is %s", p);
    if (two) {
        o->interpose[0] = ids[0];
        o->interpose[1] = ids[1];
    } else {
        o->leader = ids[0];
    }
    return 0;
}

static int parse_range(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
    bool speed = strcmp(c->flag, "--maxspeed-range") == 0;
    const char *expected = "LO,HI with 0 < LO <= HI (finite numbers)";
    char store[256];
    char *pieces[3];
    if (strlen(c->value) >= sizeof store)
        return cli_bad(c, expected, "is too long");
    uint32_t n = boids_parse_split(c->value, ",", store, pieces, 3);
    if (n != 2)
        return cli_bad(c, expected, "has %s", n < 2 ? "one number" : "more than two numbers");
    float v[2];
    for (uint32_t i = 0; i < 2; i++) {
        const char *problem = boids_parse_float(pieces[i], BOIDS_PARSE_POSITIVE, &v[i]);
        char text[TEXT_MAX];
        if (problem)
            return cli_bad(c, expected, "has a %s '%s' that is %s", i ? "HI" : "LO",
                           boids_parse_shown(pieces[i], text, sizeof text), problem);
    }
    if (!(v[0] <= v[1]))
        return cli_bad(c, expected, "has a LO above its HI");
    float *dst = speed ? o->maxspeed_range : o->maxforce_range;
    dst[0] = v[0];
    dst[1] = v[1];
    return 0;
}

static int parse_counts(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
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

static int parse_profile(const parse_ctx *c, boids_options *o, uint32_t *origin_n) {
    (void)origin_n;
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
