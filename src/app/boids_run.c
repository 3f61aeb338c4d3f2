// src/app/boids_run.c: boids-run, the headless runner (the CPU reference or the GPU backend).
// Parses the shared options, builds the parameters, optionally loads agents
// from a CSV snapshot or the whole state from a .boids snapshot (--load),
// steps, prints a statistics line every K steps and a summary whose last line
// is "state-hash: H" (FNV-1a of the final state); --save writes a .boids
// snapshot at the end (and every K steps with --save-every); --record writes a
// recording (the initial state and every K-th step, boids/record.h). SIGINT / SIGTERM:
// the current step is finished, the requested outputs written, exit 130 / 143.
// GPU faults (the engine's check after every step and around every read-back:
// a lost context, OpenGL errors): stepping stops, the outputs in progress
// are flushed from the last state read back before the fault (never from a
// read-back made after it), one line names the fault, its step and what each
// output holds, exit 3.
// Exit status: 0 ok, 2 bad input (flags, CSV or snapshot content, a bad
// BOIDS_DEBUG hook), 3 environment (memory, writing output, GPU faults).
// This file: the set-up and the run loop; the outputs' writes and their
// flush after a fault are run_outputs.c's, --decompose is
// run_decompose.c's.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boids/behaviors.h"
#include "boids/input.h"
#include "boids/parse.h"
#include "progress.h"
#include "run_outputs.h"
#ifdef BOIDS_HAVE_MPI
#include "run_decompose.h"
#endif

#define MAX_TIME_SAMPLES (1u << 20) // per-step times kept for the median

static const char usage[] = // the usage lines and what it does, before the flags
    "usage: boids-run --count N [options]\n"
    "       boids-run --init FILE.csv [options]\n"
    "       boids-run --load FILE.boids [--steps S] [run and output options]\n"
    "       mpirun -n A*B*C boids-run [options] --decompose AxB[xC]\n"
    "Runs the simulation without a window, on the CPU reference (default) or on the OpenGL 4.5 compute shaders "
    "(--backend gpu, headless EGL), and prints statistics. The last line of the output is 'state-hash: H', a hash "
    "of the final state (same flags and seed => same hash, for any --threads).\n";
static const char usage_notes[] = // after the flags: one paragraph a line (the help wraps them)
    "\n"
    "The flags set every group; a scenario file sets each group's own (the same keys).\n"
    "SIGINT / SIGTERM (exit 130 / 143), GPU faults (exit 3): --export-csv, --save, --record and --profile are "
    "written (after a fault from the last good state).\n"
    "On a terminal, stderr shows one updating progress line (step, steps/s, time left) from 2 s on.\n"
    "Exit status: 0 done, 2 bad arguments or input file, 3 out of memory, a write or GPU failure; 130 / 143 after "
    "SIGINT / SIGTERM.\n";
static const boids_cli_example examples[] = {
    {"boids-run --count 2000 --steps 200", "200 steps of 2000 agents on the CPU: statistics and the state-hash"},
    {"boids-run --scenario predators-prey --steps 300 --record flock.rec",
     "a shipped scenario, recorded for the viewer (boids --replay flock.rec)"},
    {"boids-run --scenario vicsek --eta 0.5 --export-csv final.csv",
     "Vicsek's model (a shipped scenario) with noise 0.5, the final state as CSV"},
    {"boids-run --count 5000 --steps 100 --save run.boids", "100 steps, the whole state saved at the end"},
    {"boids-run --load run.boids --steps 100", "100 more steps from the snapshot, bit for bit as if never stopped"},
    {"boids-run --count 20000 --backend gpu --quiet", "the same on the GPU's compute shaders: the state-hash only"},
    {NULL, NULL},
};

// What the flags mean here, where boids-run differs from the table.
static const boids_cli_help help[] = {
    {.bit = BOIDS_CLI_COUNT, .text = "agents, 1..16777216 (with --init: taken from the file)"},
    {.bit = BOIDS_CLI_QUIET, .text = "print only the state-hash line (and no progress line)"},
    {.bit = BOIDS_CLI_RECORD, .text = "a recording of the run for boids --replay (--record-every K: every K steps)"},
    {.bit = 0, .text = NULL},
};

// SIGINT / SIGTERM: stop stepping after the current step, write the outputs.

// Seconds on a monotonic clock.
static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// qsort order of doubles.
static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Checks that --init names a readable file (not a directory): a missing
// input is a bad argument (exit 2), unlike a read error later (exit 3).
static int check_readable(const char *path) {
    const char *expected = "a readable CSV file";
    char why[256];
    FILE *f = boids_input_open(path, BOIDS_INPUT_PIPES, 0, "a CSV file", why, sizeof why);
    if (!f) {
        boids_cli_error(PROG, "--init", path, expected, "%s", why);
        return EXIT_INPUT;
    }
    fclose(f);
    return 0;
}

// Is every figure of the statistics finite?
static bool stats_finite(const boids_stats *st) {
    return isfinite(st->polarisation) && isfinite(st->milling) && isfinite(st->mean_speed) &&
           isfinite(st->mean_neighbors) && isfinite(st->mean_nearest) && isfinite(st->cell_mean);
}

// Loads --init into id-order arrays; returns 0 or the exit status (error printed).
static int load_init(const boids_options *o, uint32_t *count, float (**pos)[4], float (**vel)[4], uint32_t **group) {
    int rc = check_readable(o->init_csv);
    if (rc)
        return rc;
    char msg[512];
    boids_result r = boids_csv_read(o->init_csv, o->dim, count, pos, vel, group, msg, sizeof msg);
    if (r == BOIDS_ERR_FORMAT || r == BOIDS_ERR_ARGUMENT) {
        char line[1024], described[600];
        snprintf(described, sizeof described, "%s%s", strncmp(msg, "line ", 5) == 0 ? "at " : "", msg);
        boids_cli_format_described(line, sizeof line, PROG, "--init", o->init_csv,
                                   "a CSV with the header id,group,px,py,pz,vx,vy,vz and ids 0..N-1 once each",
                                   described);
        fprintf(stderr, "%s\n", line);
        return EXIT_INPUT;
    }
    if (r != BOIDS_OK) { // a file that cannot be read is the input's fault; memory the machine's
        boids_cli_error(PROG, "--init", o->init_csv, NULL, "cannot be read: %s (%s)", boids_result_str(r), msg);
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    // The count of an init file is the file's; a conflict names where the
    // other count came from: --count, or the scenario file's count key (a
    // scenario without one has no count of its own).
    if ((o->flags_given & BOIDS_CLI_COUNT) && o->count != *count) {
        char expected[64], given[16];
        snprintf(expected, sizeof expected, "--count %u or no --count", *count);
        snprintf(given, sizeof given, "%u", o->count);
        boids_cli_error(PROG, "--count", given, expected, "does not match the %u agents in '%s'", *count, o->init_csv);
        return EXIT_INPUT;
    }
    if (!(o->flags_given & BOIDS_CLI_COUNT) && o->scenario && o->scenario->count_set && o->count != *count) {
        char expected[96];
        snprintf(expected, sizeof expected, "a CSV of %u agents, or --count %u to override the scenario", o->count,
                 *count);
        boids_cli_error(PROG, "--init", o->init_csv, expected, "holds %u agents but --scenario '%s' says count = %u",
                        *count, o->scenario_arg, o->count);
        return EXIT_INPUT;
    }
    return 0;
}

// The engine of the flags (and --init's agents) on the CPU; returns 0, -1
// when --dump-scenario printed the scenario (exit 0), or the exit status
// (one line printed).
static int create_engine(const boids_options *o, uint32_t count, float (*pos)[4], float (*vel)[4], uint32_t *group,
                         boids_engine **out) {
    boids_params params;
    char err[1024];
    if (boids_options_params(o, count, &params, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        return EXIT_INPUT;
    }
    int effects = boids_cli_check_effects(PROG, o, &params, strcmp(o->backend, "gpu") == 0);
    if (effects)
        return effects;
    if (o->dump_scenario) {
        boids_scenario *eff = malloc(sizeof *eff);
        if (!eff)
            return EXIT_ENVIRONMENT;
        boids_options_scenario(o, &params, eff);
        int rc = boids_scenario_write(eff, stdout) ? -1 : EXIT_ENVIRONMENT;
        free(eff);
        return rc;
    }
    // The groups' parameters come from the scenario and the flags: a row of
    // a group they do not have is refused (not given the defaults' group).
    for (uint32_t i = 0; group && i < count; i++)
        if (group[i] >= params.world.group_count) {
            char expected[160];
            snprintf(expected, sizeof expected, "groups 0..%u (the groups of --scenario or the flags)",
                     params.world.group_count - 1);
            boids_cli_error(PROG, "--init", o->init_csv, expected, "agent %u is in group %u", i, group[i]);
            return EXIT_INPUT;
        }
    // --init's rows are held to the rules a snapshot's agents are (a state a
    // step leaves): nothing is moved or slowed down without a word.
    for (uint32_t i = 0; pos && vel && group && i < count; i++) {
        char why[200];
        if (boids_agent_check(&params, i, pos[i], vel[i], group[i], why, sizeof why)) {
            boids_cli_error(PROG, "--init", o->init_csv,
                            "agents inside the world and no faster than their maxspeed (as a snapshot's)",
                            "agent %u %s", i, why);
            return EXIT_INPUT;
        }
    }
    boids_engine_desc d = {.params = &params,
                           .distribution = (boids_distribution)o->distribution,
                           .threads = o->threads,
                           .index = (boids_index)o->index,
                           .update = (boids_update)o->update};
    err[0] = '\0';
    boids_result r = boids_engine_create(out, &d, err, sizeof err);
    if (r == BOIDS_ERR_IO) { // the flow field's image cannot be read: err names it
        boids_cli_error(PROG, NULL, NULL, NULL, "%s", err);
        return EXIT_INPUT;
    }
    if (r != BOIDS_OK && r != BOIDS_ERR_NOMEM && err[0]) { // the engine's line says what (a bad BOIDS_DEBUG hook)
        boids_cli_error(PROG, NULL, NULL, NULL, "%s", err);
        return EXIT_INPUT;
    }
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, NULL, NULL, NULL, "cannot create a simulation of %u agents: %s", count,
                        boids_result_str(r));
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    if (pos && (r = boids_engine_set_agents(*out, (const float(*)[4])pos, (const float(*)[4])vel, group)) != BOIDS_OK) {
        boids_cli_error(PROG, "--init", o->init_csv, NULL, "is rejected by the simulation: %s", boids_result_str(r));
        boids_engine_destroy(*out);
        *out = NULL;
        return EXIT_INPUT;
    }
    // The scenario in effect (the file and flags): its schedule is applied
    // every step and saved with --save.
    boids_scenario *scen = malloc(sizeof *scen);
    if (!scen)
        return EXIT_ENVIRONMENT;
    boids_options_scenario(o, boids_engine_params(*out), scen);
    r = boids_engine_set_scenario(*out, scen, err, sizeof err);
    free(scen);
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, NULL, NULL, NULL, "%s", err);
        return EXIT_INPUT;
    }
    return 0;
}

// --load: the engine of the snapshot on the CPU; returns 0 or the exit status
// (one line printed naming the file: 2 for a missing or bad file, 3 out of memory).
static int load_snapshot(const boids_options *o, boids_engine **e) {
    char err[1200];
    boids_engine_desc d = {.threads = o->threads, .index = (boids_index)o->index, .update = (boids_update)o->update};
    boids_result r = boids_engine_load(e, o->load, &d, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: --load: %s\n", PROG, err);
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    return 0;
}

// The CPU engine moved onto the GPU backend (its parameters, scenario and
// state): exit 3 without a GL 4.5 context, 2 for a count the GPU cannot
// hold or a bad --shader-dir.
static int open_gpu(const boids_options *o, boids_engine **e) {
    char err[4096];
    // GL errors are not printed as they come: a fault is one line (boids_engine_check's).
    boids_engine_desc d = {.params = boids_engine_params(*e),
                           .scenario = boids_engine_scenario(*e),
                           .backend = BOIDS_BACKEND_GPU,
                           .threads = o->threads,
                           .shader_dir = o->shader_dir,
                           .silent_errors = true,
                           .kernel = (boids_kernel)o->kernel};
    boids_engine *gpu = NULL;
    boids_result r = boids_engine_create(&gpu, &d, err, sizeof err);
    if (r == BOIDS_ERR_GL) {
        boids_cli_error(PROG, "--backend", "gpu", NULL, "needs OpenGL 4.5: %s", err);
        return EXIT_ENVIRONMENT;
    }
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT ? EXIT_INPUT
                                                                                            : EXIT_ENVIRONMENT;
    }
    if ((r = boids_engine_copy_state(gpu, *e)) != BOIDS_OK) {
        boids_cli_error(PROG, "--backend", "gpu", NULL, "cannot take the initial state: %s", boids_result_str(r));
        boids_engine_destroy(gpu);
        return EXIT_ENVIRONMENT;
    }
    boids_engine_destroy(*e);
    *e = gpu;
    return 0;
}

// SIGINT / SIGTERM seen: the run stops here and writes its outputs.
static void say_interrupted(const boids_engine *e, uint64_t steps_done) {
    boids_progress_finish();
    fprintf(stderr, "%s: interrupted after %llu steps%s; writing the outputs\n", PROG, (unsigned long long)steps_done,
            boids_engine_cut_short(e) ? " (the next one was cut short: the neighbour figures are zero)" : "");
}

// A run between its phases: the initial agents of --init, the engine, the
// outputs and the step timings.
typedef struct run_state {
    const boids_options *o;
    bool gpu; // --backend gpu
    uint32_t count;
    float (*pos)[4], (*vel)[4]; // --init's agents, in id order
    uint32_t *group;
    boids_engine *e;
    run_outputs out;
    bool faulted;    // a GPU fault at a frame's read-back
    double *samples; // ms of every stride-th step, for the median
    size_t n_samples;
    uint64_t steps_done;
    bool finite;  // every statistics line so far
    double start; // of the first step (s)
} run_state;

// The flags that need what this build or backend lacks: 0 or the exit
// status (one line printed).
static int check_build(const boids_options *o, bool gpu) {
    if (boids_cli_check_kernel(PROG, o, gpu))
        return 2;
#ifdef BOIDS_HAVE_MPI
    int rc;
    if (o->decompose && (rc = decompose_check(o)))
        return rc;
#else
    if (o->decompose) {
        boids_cli_error(PROG, "--decompose", o->decompose, "a boids-run built with MPI (libopenmpi-dev, BOIDS_MPI=ON)",
                        "needs MPI, and this boids-run is built without it");
        return EXIT_INPUT;
    }
#endif
    return 0;
}

// A signal during the set-up (reading the initial state, making up to 16 M
// agents, moving them to the GPU), before anything is written: the program
// ends at once, exit 128 + the signal, with one line (write and _exit are
// what a handler may call). The run's own handling takes over after it.
static void on_setup_signal(int sig) {
    static const char line[] = PROG ": interrupted during the set-up; nothing was written\n";
    ssize_t w = write(STDERR_FILENO, line, sizeof line - 1);
    (void)w;
    _exit(128 + sig);
}

static void catch_setup_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_setup_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

// The set-up: the initial state (--load, --init or the flags), the
// outputs' paths and --profile, the CPU engine; returns 0, -1 when there
// is nothing to run (--dump-scenario: exit 0) or the exit status.
static int set_up(run_state *rs) {
    const boids_options *o = rs->o;
    int rc;
    if (rs->gpu) { // a bad BOIDS_DEBUG hook is a bad argument, with or without GL
        char err[256];
        if (boids_engine_fault_env(err, sizeof err) != BOIDS_OK) {
            fprintf(stderr, "%s: %s\n", PROG, err);
            return EXIT_INPUT;
        }
    }
    if (o->load) {
        if ((rc = load_snapshot(o, &rs->e)))
            return rc;
        rs->count = boids_engine_count(rs->e);
    } else if (o->init_csv) {
        if ((rc = load_init(o, &rs->count, &rs->pos, &rs->vel, &rs->group)))
            return rc;
    } else if (!o->count_set) {
        boids_cli_error(PROG, "--count", NULL, "--count N (1..16777216) or --init FILE.csv", "is required");
        return EXIT_INPUT;
    }
    // Decomposed: rank 0 alone writes, and checks them before the ranks agree (run_decomposed).
    if (!o->decompose && (rc = run_check_outputs(o)))
        return rc;
    bool bodies = rs->e ? boids_params_joint_rows(boids_engine_params(rs->e)) > 0
                        : o->values.set[BOIDS_PARAM_BODIES] && o->values.v[BOIDS_PARAM_BODIES].u[0] != BOIDS_BODY_NONE;
    if (o->profile && (rc = boids_profile_open(&rs->out.profile, PROG, o->profile, o->backend,
                                               BOIDS_PROFILE_SIM_STAGES | (bodies ? 1u << BOIDS_PROFILE_BODIES : 0u))))
        return rc;
    if (!rs->e)
        return create_engine(o, rs->count, rs->pos, rs->vel, rs->group, &rs->e);
    return 0;
}

// The engine made ready to step: a signal cuts a long CPU step short, and
// with --backend gpu the state moves to the GPU (its index and update
// checked first); 0 or the exit status.
static int open_backend(run_state *rs) {
    const boids_options *o = rs->o;
    boids_engine_set_cancel(rs->e, boids_cli_interrupt_flag());
    if (rs->gpu && o->index != BOIDS_INDEX_GRID) {
        boids_cli_error(PROG, "--index", o->index == BOIDS_INDEX_QUADTREE ? "quadtree" : "brute",
                        "grid with --backend gpu (the other indexes are the CPU reference's)",
                        "is not available on the GPU");
        return EXIT_INPUT;
    }
    if (rs->gpu && o->update != BOIDS_UPDATE_PARALLEL) {
        boids_cli_error(PROG, "--update", "sequential",
                        "parallel with --backend gpu (sequential is the CPU reference's, as the chapter's sketch)",
                        "is not available on the GPU");
        return EXIT_INPUT;
    }
    // A snapshot keeps its update order: a sequential run continues so.
    if (o->load && boids_engine_update(rs->e) != BOIDS_UPDATE_PARALLEL &&
        (rs->gpu || (o->flags_given & BOIDS_CLI_UPDATE))) {
        boids_cli_error(PROG, rs->gpu ? "--backend" : "--update", rs->gpu ? "gpu" : "parallel",
                        rs->gpu ? "--backend cpu (the GPU has only the parallel update)" : "no --update",
                        "cannot continue %s: it holds a sequential run (--update sequential), continued so", o->load);
        return EXIT_INPUT;
    }
    if (rs->gpu)
        return open_gpu(o, &rs->e);
    return 0;
}

// The first line: version, agents, world, behaviours, seed, steps, threads,
// backend and where the state came from.
static void print_banner(const boids_options *o, const boids_params *p, uint32_t count) {
    const boids_world_params *w = &p->world;
    char behaviors[400], world[96], origin[96], threads[32];
    boids_behaviors_text(p->group[0].behaviors, ",", behaviors, sizeof behaviors);
    if (w->dim == 3) {
        snprintf(world, sizeof world, "%gx%gx%g", (double)w->size[0], (double)w->size[1], (double)w->size[2]);
        snprintf(origin, sizeof origin, "%g,%g,%g", (double)w->min[0], (double)w->min[1], (double)w->min[2]);
    } else {
        snprintf(world, sizeof world, "%gx%g", (double)w->size[0], (double)w->size[1]);
        snprintf(origin, sizeof origin, "%g,%g", (double)w->min[0], (double)w->min[1]);
    }
    if (o->threads > 0)
        snprintf(threads, sizeof threads, "%d", o->threads);
    else
        snprintf(threads, sizeof threads, "default");
    const char *from = o->load ? o->load : o->init_csv;
    printf("boids-run %s: %u agents, %uD, world %s at %s, boundary %s, behaviors %s, seed %llu, steps %llu, "
           "threads %s, backend %s%s%s\n",
           BOIDS_VERSION, count, w->dim, world, origin,
           w->boundary <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[w->boundary] : "?", behaviors,
           (unsigned long long)((uint64_t)w->seed_hi << 32 | w->seed_lo), (unsigned long long)o->steps, threads,
           o->backend, from ? ", from " : "", from ? from : "");
    fflush(stdout);
}

// --record opened with the initial state as the first frame (a fault on its
// read-back: no frame, and no step is run); 0 or the exit status.
static int open_record(run_state *rs) {
    char rec_err[512];
    boids_result r = boids_engine_record_open(rs->e, rs->o->record, rs->o->record_every, rec_err, sizeof rec_err);
    rs->faulted = r != BOIDS_OK && boids_engine_check(rs->e, NULL, 0) != BOIDS_OK;
    if (r != BOIDS_OK && !rs->faulted) { // during a signal: a stalled reader's write given up
        fprintf(stderr, "%s: --record: %s\n", PROG, rec_err);
        return boids_cli_interrupted() ? 128 + boids_cli_interrupted() : EXIT_ENVIRONMENT;
    }
    rs->out.recording = true;
    return 0;
}

// The steps: each timed (and profiled), the statistics every --stats-every
// steps, --save-every's snapshots; stops early on a signal or a fault.
// Returns 0 (the end of the run follows) or the exit status.
static int step_loop(run_state *rs) {
    const boids_options *o = rs->o;
    boids_engine *e = rs->e;
    const boids_params *p = boids_engine_params(e);
    int rc = 0;
    uint64_t stride = (o->steps + MAX_TIME_SAMPLES - 1) / MAX_TIME_SAMPLES;
    rs->samples = malloc((size_t)((o->steps + stride - 1) / stride) * sizeof *rs->samples);
    if (!rs->samples) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory for step timings");
        return EXIT_ENVIRONMENT;
    }
    boids_stats st;
    rs->start = now_seconds();
    double interval_start = rs->start;
    uint64_t interval_steps = 0;
    uint32_t behaviors = 0; // of every group, for the profile
    for (uint32_t gi = 0; gi < p->world.group_count; gi++)
        behaviors |= p->group[gi].behaviors;
    if (!o->quiet) // a terminal's progress line (progress.h); erased before every other line
        boids_progress_start(PROG, o->steps);
    for (uint64_t step = 1; step <= o->steps && !rs->faulted; step++) {
        if (boids_cli_interrupted()) {
            say_interrupted(e, rs->steps_done);
            break;
        }
        double t0 = now_seconds();
        uint64_t did = 0;
        boids_result sr = boids_engine_step(e, 1, &did); // the schedule, the step, the fault check, a due frame
        if (did == 0 && sr == BOIDS_OK && boids_cli_interrupted()) { // the step was cut short
            say_interrupted(e, rs->steps_done);
            break;
        }
        if (did == 0) // a fault in the step
            break;
        rs->faulted = sr != BOIDS_OK && boids_engine_check(e, NULL, 0) != BOIDS_OK; // at the frame's read-back
        bool rec_failed = sr != BOIDS_OK && !rs->faulted;
        boids_stage_ms m;
        if (rs->out.profile) // this step's own timer queries on the GPU (a wait only when profiling)
            boids_engine_stage_ms(e, true, &m);
        double t1 = now_seconds();
        if (rs->out.profile) {
            boids_profile_row row = {.step = step,
                                     .time_ms = t0 * 1e3,
                                     .frame_ms = (t1 - t0) * 1e3,
                                     .stage_ms = {m.key, m.count, m.scan, m.scatter, m.steer, m.integrate, m.bodies},
                                     .agents = rs->count,
                                     .behaviors = behaviors};
            boids_profile_add(rs->out.profile, &row);
            rs->out.profile_rows++;
        }
        if ((step - 1) % stride == 0)
            rs->samples[rs->n_samples++] = (t1 - t0) * 1e3;
        rs->steps_done = step;
        interval_steps++;
        boids_progress_update(step);
        if (step % o->stats_every == 0 || step == o->steps) {
            boids_progress_clear();
            if (boids_engine_stats(e, &st) != BOIDS_OK) // of the GPU state: read back (outside the step)
                break;
            rs->finite = rs->finite && stats_finite(&st);
            if (!o->quiet) {
                run_print_stats("", &st, (t1 - interval_start) * 1e3 / (double)interval_steps);
                fflush(stdout);
            }
            interval_start = now_seconds();
            interval_steps = 0;
        }
        if (rec_failed) { // during a signal: a stalled reader's write given up, 128 + the signal
            boids_progress_finish();
            fprintf(stderr, "%s: --record: %s\n", PROG, boids_engine_error(e));
            return boids_cli_interrupted() ? 128 + boids_cli_interrupted() : EXIT_ENVIRONMENT;
        }
        if (o->save && o->save_every && step % o->save_every == 0 && step != o->steps && !rs->faulted) {
            if (boids_engine_check(e, NULL, 0) != BOIDS_OK || (rc = run_save(o, e)) < 0) {
                rc = 0;
                break;
            }
            if (rc)
                return rc;
            rs->out.saved_step = (int64_t)boids_engine_steps(e);
        }
    }
    boids_progress_finish();
    return 0;
}

// The end: the final state (the outputs flushed after a fault), the
// outputs written, the summary and the state-hash line; returns the exit
// status (128 + the signal when interrupted).
static int finish(run_state *rs) {
    const boids_options *o = rs->o;
    boids_engine *e = rs->e;
    double *samples = rs->samples;
    size_t n_samples = rs->n_samples;
    int rc;
    boids_stats st;
    // The final state (and any error of the last steps).
    if (boids_engine_stats(e, &st) != BOIDS_OK)
        return run_flush_after_fault(o, e, &rs->out);
    double total = now_seconds() - rs->start;
    if (n_samples == 0) // interrupted before the first step
        samples[n_samples++] = 0.0;
    qsort(samples, n_samples, sizeof *samples, compare_double);
    double median =
        n_samples % 2 ? samples[n_samples / 2] : 0.5 * (samples[n_samples / 2 - 1] + samples[n_samples / 2]);
    if (!rs->finite)
        fprintf(stderr, "%s: warning: some statistics were not finite (nan or inf)\n", PROG);

    if ((rc = run_write_outputs(o, e, &rs->out)))
        return rc;
    if (!o->quiet) {
        boids_stage_ms ms;
        boids_engine_stage_ms(e, false, &ms);
        printf("summary: %llu steps in %.3f s, ms/step median %.4f (min %.4f, max %.4f)\n",
               (unsigned long long)rs->steps_done, total, median, samples[0], samples[n_samples - 1]);
        printf("stages (last step, ms): key %.3f count %.3f scan %.3f scatter %.3f steer %.3f integrate %.3f\n", ms.key,
               ms.count, ms.scan, ms.scatter, ms.steer, ms.integrate);
        printf("pairs (last step): candidates %llu, within radius %llu\n", (unsigned long long)st.candidate_pairs,
               (unsigned long long)st.neighbor_pairs);
        run_print_stats("final: ", &st, median);
        if (o->export_csv)
            printf("exported: %s (%u agents)\n", o->export_csv, rs->count);
        if (o->save)
            printf("saved: %s (step %llu)\n", o->save, (unsigned long long)boids_engine_steps(e));
    }
    printf("state-hash: %016llx\n", (unsigned long long)boids_engine_hash(e));
    if (fflush(stdout) != 0 || ferror(stdout)) {
        boids_cli_error(PROG, NULL, NULL, NULL, "cannot write the output: %s", strerror(errno));
        rc = EXIT_ENVIRONMENT;
    }
    if (!rc && boids_cli_interrupted())
        rc = 128 + boids_cli_interrupted();
    return rc;
}

// Runs the simulation described by the options (from --load, --init or the
// flags); returns the exit status (128 + the signal when interrupted).
static int run(const boids_options *o) {
    run_state rs = {.o = o, .gpu = strcmp(o->backend, "gpu") == 0, .count = o->count, .finite = true};
    rs.out.saved_step = -1;
    int rc = check_build(o, rs.gpu);
    if (rc)
        return rc;
    catch_setup_signals();
    if ((rc = set_up(&rs))) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
#ifdef BOIDS_HAVE_MPI
    if (o->decompose) {
        boids_cli_catch_interrupts();
        rc = decompose_run(o, rs.e);
        goto done;
    }
#endif
    if ((rc = open_backend(&rs)))
        goto done;
    boids_cli_catch_interrupts(); // from here an interrupted run finishes its step and still writes its outputs
    if (!o->quiet)
        print_banner(o, boids_engine_params(rs.e), rs.count);
    if (o->record && (rc = open_record(&rs)))
        goto done;
    if ((rc = step_loop(&rs)))
        goto done;
    rc = finish(&rs);
done:
    run_close_record(rs.e, &rs.out); // flushed on every exit
    boids_engine_destroy(rs.e);
    boids_profile_destroy(rs.out.profile);
    free(rs.pos);
    free(rs.vel);
    free(rs.group);
    free(rs.samples);
    return rc;
}

// boids-run: parse, run, exit 0 / 2 / 3 (under --decompose through MPI: decompose_main).
int main(int argc, char **argv) {
    static const boids_cli_spec spec = {
        .prog = PROG,
        .summary = "run the flocking simulation without a window",
        .usage = usage,
        .usage_notes = usage_notes,
        .examples = examples,
        .help = help,
        .flags = BOIDS_CLI_COUNT | BOIDS_CLI_STEPS | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_BACKEND | BOIDS_CLI_SHADER_DIR |
                 BOIDS_CLI_INIT | BOIDS_CLI_EXPORT_CSV | BOIDS_CLI_STATS_EVERY | BOIDS_CLI_THREADS | BOIDS_CLI_QUIET |
                 BOIDS_CLI_PROFILE | BOIDS_CLI_INDEX | BOIDS_CLI_UPDATE | BOIDS_CLI_KERNEL | BOIDS_CLI_DUMP_SCENARIO |
                 BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY | BOIDS_CLI_LOAD | BOIDS_CLI_RECORD | BOIDS_CLI_RECORD_EVERY |
                 BOIDS_CLI_DECOMPOSE | BOIDS_CLI_REBALANCE | BOIDS_CLI_TIMEOUT,
    };
#ifdef BOIDS_HAVE_MPI
    // The flag table parses --decompose; MPI must start before anything prints.
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--decompose", 11) == 0 && (argv[i][11] == '\0' || argv[i][11] == '='))
            return decompose_main(argc, argv, &spec, run);
#endif
    return boids_cli_main(argc, argv, &spec, run);
}
