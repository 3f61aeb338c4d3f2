// src/app/boids_run.c: boids-run, the headless runner of the CPU reference.
// Parses the shared options, builds the parameters, optionally loads agents
// from a CSV snapshot or the whole state from a .boids snapshot (--load),
// steps, prints a statistics line every K steps and a summary whose last line
// is "state-hash: H" (FNV-1a of the final state); --save writes a .boids
// snapshot at the end (and every K steps with --save-every); --record writes a
// recording (the initial state and every K-th step, boids/record.h). SIGINT / SIGTERM:
// the current step is finished, the requested outputs written, exit 130 / 143.
// GPU faults (boids_gpu_check after every step and around every read-back:
// a lost context, OpenGL errors): stepping stops, the outputs in progress
// are flushed from the last state read back before the fault (never from a
// read-back made after it), one line names the fault, its step and what each
// output holds, exit 3.
// Exit status: 0 ok, 2 bad input (flags, CSV or snapshot content, a bad
// BOIDS_FAULT), 3 environment (memory, writing output, GPU faults).
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "profile.h"
#include "boids/gpu.h"
#include "boids/platform.h"
#include "boids/record.h"
#include "boids/snapshot.h"

#define PROG "boids-run"
#define EXIT_INPUT 2
#define EXIT_ENVIRONMENT 3
#define MAX_TIME_SAMPLES (1u << 20) // per-step times kept for the median

static const char usage[] =
    "usage: boids-run --count N [options]\n"
    "       boids-run --init FILE.csv [options]\n"
    "       boids-run --load FILE.boids [--steps S] [run and output options]\n"
    "Runs the CPU reference simulation without a window and prints statistics.\n"
    "The last line of the output is 'state-hash: H', a hash of the final state\n"
    "(same flags and seed => same hash, for any --threads).\n"
    "\n"
    "  --count N             agents, 1..16777216 (with --init: taken from the file)\n"
    "  --steps S             steps to run, 1..1000000000 (default 100)\n"
    "  --seed X              random seed, decimal or 0x hex, 0..2^64-1 (default 1)\n"
    "  --dim 2|3             dimensions (default 2)\n"
    "  --world WxH[xD]       world extents (default: sized for ~20 neighbours)\n"
    "  --origin X,Y[,Z]      lower corner of the world (default 0,0[,0])\n"
    "  --boundary MODE       wrap, walls or bounce (default wrap)\n"
    "  --behaviors LIST      comma list of behaviours, 'flocking', 'all' or 'none'\n"
    "                        (default flocking = separation,alignment,cohesion)\n"
    "  --weights NAME=W,...  weight of each named behaviour (default 1; separation 1.5)\n"
    "  --radius R            perception radius (default 50)\n"
    "  --separation R        desired separation (default 25)\n"
    "  --fov DEGREES         field of view, 0 < fov <= 360 (default 360)\n"
    "  --maxspeed V          maximum speed (default 3)\n"
    "  --maxforce F          maximum steering force (default 0.05)\n"
    "  --dt T                time step (default 1)\n"
    "  --bodies STYLE        a procedural body trailing every agent: none (default), chain,\n"
    "                        snake or fish (distance and angle constraints, after integrate)\n"
    "  --joints J            joints per body, 2..32 (default 12)\n"
    "  --body-length L       a body's length head to tail (default 1.2 x the separation)\n"
    "  --backend cpu|gpu     the C reference, or the OpenGL 4.5 compute shaders (headless EGL)\n"
    "  --shader-dir DIR      load the GPU shaders from DIR instead of the built-in copies\n"
    "  --init FILE.csv       start from a snapshot: id,group,px,py,pz,vx,vy,vz\n"
    "                        (2D: id,group,px,py,vx,vy; a neighbors column is ignored)\n"
    "  --export-csv FILE.csv write the final state (written to a temporary file, then renamed)\n"
    "  --load FILE.boids     continue a run saved by --save (agents, bodies, parameters,\n"
    "                        seed, step): --steps S more steps, bit for bit as if never\n"
    "                        stopped; flags that set parameters are an error with it\n"
    "  --save FILE.boids     write the whole state at the end (also when interrupted);\n"
    "                        atomically: a temporary file, fsynced, renamed over FILE\n"
    "  --save-every K        with --save: also write it every K steps of this run\n"
    "  --record FILE         a recording for boids --replay (--record-every K: every K steps)\n"
    "  --profile FILE        per-step profile: FILE.csv (one row per step) or FILE.json\n"
    "                        (Chrome trace: Perfetto, chrome://tracing); stage times are the\n"
    "                        GPU's timer queries with --backend gpu (waits after each step)\n"
    "  --stats-every K       a statistics line every K steps (default steps/10)\n"
    "  --threads N           OpenMP threads, 0 = default (results do not depend on it)\n"
    "  --scenario FILE|NAME  a scenario file (docs/SCENARIOS.md) or a shipped one by name; the\n"
    "                        flags given override it (--count, --seed, ... for every group)\n"
    "  --list-scenarios      list the shipped scenarios with their titles\n"
    "  --dump-scenario       print the effective scenario (file + flags) as a file and exit\n"
    "  --index KIND          neighbour search of the CPU backend: grid (default, the bin\n"
    "                        lattice), quadtree (octree in 3D) or brute (every pair)\n"
    "  --quiet               print only the state-hash line\n"
    "  --help, --version\n"
    "\n"
    "Behaviours: obstacles, walls, escape, separation, flee, evade, hunt, pursue,\n"
    "seek, arrive, path, flow, view, alignment, cohesion, wander.\n"
    "SIGINT / SIGTERM (exit 130 / 143), GPU faults (exit 3): --export-csv, --save, --record and\n"
    "--profile are written (after a fault from the last good state).\n"
    "Exit status: 0 done, 2 bad arguments or input file, 3 out of memory, a write or GPU failure.\n";

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
    struct stat st;
    if (stat(path, &st) != 0) {
        boids_cli_error(PROG, "--init", path, expected, "cannot be opened: %s", strerror(errno));
        return EXIT_INPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        boids_cli_error(PROG, "--init", path, expected, "is a directory");
        return EXIT_INPUT;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        boids_cli_error(PROG, "--init", path, expected, "cannot be opened: %s", strerror(errno));
        return EXIT_INPUT;
    }
    fclose(f);
    return 0;
}

// One statistics line (also the "final:" line of the summary).
static void print_stats(const char *label, const boids_stats *st, double ms_per_step) {
    printf("%sstep %llu  polarisation %.4f  speed %.4f  neighbors %.3f  nearest %.4f  cell-max %u  "
           "cell-mean %.3f  ms/step %.3f\n",
           label, (unsigned long long)st->step, st->polarisation, st->mean_speed, st->mean_neighbors, st->mean_nearest,
           st->cell_max, st->cell_mean, ms_per_step);
}

// Is every figure of the statistics finite?
static bool stats_finite(const boids_stats *st) {
    return isfinite(st->polarisation) && isfinite(st->mean_speed) && isfinite(st->mean_neighbors) &&
           isfinite(st->mean_nearest) && isfinite(st->cell_mean);
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
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, "--init", o->init_csv, NULL, "cannot be read: %s (%s)", boids_result_str(r), msg);
        return EXIT_ENVIRONMENT;
    }
    if (o->count_set && o->count != *count) {
        char expected[64], given[16];
        snprintf(expected, sizeof expected, "--count %u or no --count", *count);
        snprintf(given, sizeof given, "%u", o->count);
        boids_cli_error(PROG, "--count", given, expected, "does not match the %u agents in '%s'", *count, o->init_csv);
        return EXIT_INPUT;
    }
    return 0;
}

// The simulation of the flags (and --init's agents); returns 0, -1 when
// --dump-scenario printed the scenario (exit 0), or the exit status (one
// line printed).
static int create_sim(const boids_options *o, uint32_t count, float (*pos)[4], float (*vel)[4], uint32_t *group,
                      boids_sim **out) {
    boids_sim *sim = NULL;
    boids_params params;
    char err[1024];
    if (boids_options_params(o, count, &params, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        return EXIT_INPUT;
    }
    if (o->dump_scenario) {
        boids_scenario *eff = malloc(sizeof *eff);
        if (!eff)
            return EXIT_ENVIRONMENT;
        boids_options_scenario(o, &params, eff);
        int rc = boids_scenario_write(eff, stdout) ? -1 : EXIT_ENVIRONMENT;
        free(eff);
        return rc;
    }
    if (group) { // the snapshot may use more groups than the default one
        uint32_t max_group = 0;
        for (uint32_t i = 0; i < count; i++)
            max_group = group[i] > max_group ? group[i] : max_group;
        if (max_group + 1 > params.world.group_count) {
            params.world.group_count = max_group + 1;
            char what[256] = "";
            boids_result r = boids_params_finalize(&params, what, sizeof what);
            if (r != BOIDS_OK) {
                boids_cli_error(PROG, "--init", o->init_csv, NULL, "needs %u groups, rejected: %s (%s)", max_group + 1,
                                boids_result_str(r), what);
                return EXIT_INPUT;
            }
        }
    }
    boids_result r = boids_sim_create(&sim, &params, (boids_distribution)o->distribution);
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, NULL, NULL, NULL, "cannot create a simulation of %u agents: %s", count,
                        boids_result_str(r));
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    sim->threads = o->threads;
    if (pos && (r = boids_sim_set_agents(sim, (const float(*)[4])pos, (const float(*)[4])vel, group)) != BOIDS_OK) {
        boids_cli_error(PROG, "--init", o->init_csv, NULL, "is rejected by the simulation: %s", boids_result_str(r));
        boids_sim_destroy(sim);
        return EXIT_INPUT;
    }
    *out = sim;
    return 0;
}

// --load: the simulation of the snapshot; returns 0 or the exit status
// (one line printed naming the file: 2 for a missing or bad file, 3 out of memory).
static int load_snapshot(const boids_options *o, boids_sim **sim, boids_scenario *sc) {
    char err[1200];
    boids_result r = boids_snapshot_load(o->load, sim, sc, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: --load: %s\n", PROG, err);
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    return 0;
}

// A GPU fault: once seen, no more steps and no more read-backs.
typedef struct gpu_fault {
    bool hit;
    char line[1024];    // boids_gpu_check's line (names the fault and its step)
    bool sim_untrusted; // sim was overwritten by a read-back the check after it did not trust
} gpu_fault;

// Whether the GPU backend is healthy (always, on the CPU); the first fault is
// kept in f.
static bool gpu_healthy(boids_gpu *gpu, gpu_fault *f) {
    if (!gpu)
        return true;
    if (f->hit)
        return false;
    if (boids_gpu_check(gpu, f->line, sizeof f->line) == BOIDS_OK)
        return true;
    f->hit = true;
    return false;
}

// The GPU state (agents, bodies, outputs, step) into sim; whether sim now
// holds it (always, on the CPU). Only read while the GPU is healthy, and
// trusted only if it still is after the read: a loss or an error during the
// read leaves sim untrusted, and nothing is written from it.
static bool download(boids_gpu *gpu, boids_sim *sim, gpu_fault *f) {
    if (!gpu)
        return true;
    if (!gpu_healthy(gpu, f))
        return false;
    boids_gpu_download(gpu, sim); // a loss part way leaves sim partly overwritten
    if (!gpu_healthy(gpu, f)) {
        f->sim_untrusted = true; // whatever the read-back wrote
        return false;
    }
    return true;
}

// --save: the simulation's current state and the scenario's schedule to the
// snapshot (the GPU's state is read back by the caller); returns 0 or 3 (one line printed; an existing file is
// left as it was).
static int save_snapshot(const boids_options *o, boids_sim *sim, const boids_scenario *sc) {
    char err[1200];
    if (boids_snapshot_save(sim, sc, o->save, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: --save: %s\n", PROG, err);
        return EXIT_ENVIRONMENT;
    }
    return 0;
}

// The GPU backend with the sim's initial state: exit 3 without a GL 4.5
// context, 2 for a count the GPU cannot hold or a bad --shader-dir.
static int open_gpu(const boids_options *o, const boids_sim *sim, boids_gl_context **gl, boids_gpu **gpu) {
    char err[4096];
    if (boids_egl_create(gl, err, sizeof err) != BOIDS_OK) {
        boids_cli_error(PROG, "--backend", "gpu", NULL, "needs OpenGL 4.5: %s", err);
        return EXIT_ENVIRONMENT;
    }
    // GL errors are not printed as they come: a fault is one line (boids_gpu_check's).
    boids_gpu_desc d = {
        .params = &sim->p, .load = boids_gl_loader(*gl), .shader_dir = o->shader_dir, .silent_errors = true};
    boids_result r = boids_gpu_create(gpu, &d, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT ? EXIT_INPUT
                                                                                             : EXIT_ENVIRONMENT;
    }
    boids_gpu_upload(*gpu, sim);
    return 0;
}

// --record: a frame of the current state when its step is due (the first
// call always; the GPU state is read back first, and on a fault no frame is
// written: f says so); returns 0 or the exit status (error printed).
static int record_frame(boids_recorder *rec, boids_sim *sim, boids_gpu *gpu, uint64_t every, gpu_fault *f,
                        uint64_t *last_step) {
    if (!rec)
        return 0;
    uint64_t step = gpu ? boids_gpu_steps(gpu) : sim->step;
    if (boids_record_frames(rec) > 0 && step % every != 0)
        return 0;
    if (!download(gpu, sim, f))
        return 0;
    char err[512];
    if (boids_record_frame(rec, sim, NULL, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: --record: %s\n", PROG, err);
        return EXIT_ENVIRONMENT;
    }
    *last_step = sim->step;
    return 0;
}

// Appends printf-style text to the line buf (cut at its size).
static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

// What boids-run has written so far, for the line after a fault.
typedef struct run_outputs {
    boids_recorder *rec;
    uint64_t rec_last_step;  // step of the last frame recorded
    int64_t saved_step;      // step of the last --save-every snapshot (-1: none)
    boids_profile *profile;
    uint64_t profile_rows;   // steps profiled
    const boids_scenario *scen; // saved with the snapshot
} run_outputs;

// After a GPU fault: no more steps and no read-back. The recording is closed
// with every frame written so far; --save and --export-csv are written from
// sim when it holds a trusted read-back (the last one before the fault),
// else left as they are; --profile gets the steps before the fault. Prints
// ONE line: the fault, its step and what each output now holds (a write
// failure's own reason included); returns 3.
static int flush_after_fault(const boids_options *o, boids_sim *sim, const gpu_fault *f, run_outputs *out) {
    char line[4096];
    snprintf(line, sizeof line, "%s: --backend gpu: %s; stopped", PROG, f->line);
    bool trusted = !f->sim_untrusted;
    if (out->rec) {
        uint32_t frames = boids_record_frames(out->rec);
        char err[512];
        boids_result rr = boids_record_close(out->rec, err, sizeof err);
        out->rec = NULL;
        if (rr != BOIDS_OK)
            append(line, sizeof line, "; --record %s: %s", o->record, err);
        else if (frames == 0)
            append(line, sizeof line, "; --record %s holds no frames", o->record);
        else
            append(line, sizeof line, "; --record %s holds %u frame%s (to step %llu)", o->record, frames,
                   frames == 1 ? "" : "s", (unsigned long long)out->rec_last_step);
    }
    if (o->save) {
        char err[1200];
        if (!trusted && out->saved_step >= 0)
            append(line, sizeof line, "; --save %s holds step %lld (from --save-every; the state read back at the "
                   "fault is not trusted)", o->save, (long long)out->saved_step);
        else if (!trusted)
            append(line, sizeof line, "; --save %s not written (the state read back at the fault is not trusted)",
                   o->save);
        else if (boids_snapshot_save(sim, out->scen, o->save, err, sizeof err) != BOIDS_OK)
            append(line, sizeof line, "; --save: %s", err);
        else
            append(line, sizeof line, "; --save %s holds step %llu (the last good state before the fault)",
                   o->save, (unsigned long long)sim->step);
    }
    if (o->export_csv) {
        if (!trusted)
            append(line, sizeof line, "; --export-csv %s not written (no trusted state)", o->export_csv);
        else if ((errno = 0, boids_csv_write(o->export_csv, sim)) != BOIDS_OK)
            append(line, sizeof line, "; --export-csv %s could not be written: %s", o->export_csv,
                   errno ? strerror(errno) : "write error");
        else
            append(line, sizeof line, "; --export-csv %s holds step %llu", o->export_csv,
                   (unsigned long long)sim->step);
    }
    if (out->profile) {
        char why[256];
        if (boids_profile_write_quiet(out->profile, why, sizeof why) == 0)
            append(line, sizeof line, "; --profile %s holds %llu step%s", o->profile,
                   (unsigned long long)out->profile_rows, out->profile_rows == 1 ? "" : "s");
        else
            append(line, sizeof line, "; --profile %s could not be written: %s", o->profile, why);
    }
    fflush(stdout);
    fprintf(stderr, "%s\n", line);
    return EXIT_ENVIRONMENT;
}

// Runs the simulation described by the options (from --load, --init or the
// flags); returns the exit status (128 + the signal when interrupted).
static int run(const boids_options *o) {
    uint32_t count = o->count;
    float(*pos)[4] = NULL, (*vel)[4] = NULL;
    uint32_t *group = NULL;
    boids_sim *sim = NULL;
    boids_gl_context *gl = NULL;
    boids_gpu *gpu = NULL;
    double *samples = NULL;
    boids_profile *profile = NULL;
    boids_recorder *rec = NULL;
    char rec_err[512];
    int rc = 0;
    // The scenario in effect (the file and flags, or the snapshot's): its
    // schedule is applied every step and saved with --save.
    boids_scenario *scen = malloc(sizeof *scen);
    if (!scen) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    gpu_fault fault = {0};
    uint64_t rec_last_step = 0, profile_rows = 0;
    int64_t saved_step = -1;
    boids_cli_catch_interrupts(); // an interrupted run finishes its step and still writes its outputs
    if (strcmp(o->backend, "gpu") == 0) { // a bad BOIDS_FAULT is a bad argument, with or without GL
        char err[256];
        if (boids_gpu_fault_parse(getenv("BOIDS_FAULT"), err, sizeof err) != BOIDS_OK) {
            fprintf(stderr, "%s: %s\n", PROG, err);
            rc = EXIT_INPUT;
            goto done;
        }
    }
    if (o->load) {
        if ((rc = load_snapshot(o, &sim, scen)))
            goto done;
        count = sim->n;
    } else if (o->init_csv) {
        if ((rc = load_init(o, &count, &pos, &vel, &group)))
            goto done;
    } else if (!o->count_set) {
        boids_cli_error(PROG, "--count", NULL, "--count N (1..16777216) or --init FILE.csv", "is required");
        rc = EXIT_INPUT;
        goto done;
    }
    if (o->export_csv && (rc = boids_cli_check_output(PROG, "--export-csv", o->export_csv,
                                                      "a file path in an existing, writable directory")))
        goto done;
    if (o->save &&
        (rc = boids_cli_check_output(PROG, "--save", o->save, "a file path in an existing, writable directory")))
        goto done;
    if (o->record &&
        (rc = boids_cli_check_output(PROG, "--record", o->record, "a file path in an existing, writable directory")))
        goto done;
    bool bodies = sim ? sim->joints != NULL : o->body_style_set && o->body_style != BOIDS_BODY_NONE;
    if (o->profile && (rc = boids_profile_open(&profile, PROG, o->profile, o->backend,
                                               BOIDS_PROFILE_SIM_STAGES | (bodies ? 1u << BOIDS_PROFILE_BODIES : 0u))))
        goto done;

    if (!sim && (rc = create_sim(o, count, pos, vel, group, &sim))) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    sim->threads = o->threads;
    sim->index = (boids_index)o->index;
    if (!o->load)
        boids_options_scenario(o, &sim->p, scen);
    bool dynamic = boids_scenario_is_dynamic(scen);

    if (strcmp(o->backend, "gpu") == 0 && o->index != BOIDS_INDEX_GRID) {
        boids_cli_error(PROG, "--index", o->index == BOIDS_INDEX_QUADTREE ? "quadtree" : "brute",
                        "grid with --backend gpu (the other indexes are the CPU reference's)",
                        "is not available on the GPU");
        rc = EXIT_INPUT;
        goto done;
    }
    if (strcmp(o->backend, "gpu") == 0 && (rc = open_gpu(o, sim, &gl, &gpu)))
        goto done;

    const boids_world_params *w = &sim->p.world;
    static const char *const modes[3] = {"wrap", "walls", "bounce"};
    if (!o->quiet) {
        char behaviors[400], world[96], origin[96], threads[32];
        boids_behaviors_text(sim->p.group[0].behaviors, ",", behaviors, sizeof behaviors);
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
               BOIDS_VERSION, sim->n, w->dim, world, origin, w->boundary < 3 ? modes[w->boundary] : "?", behaviors,
               (unsigned long long)((uint64_t)w->seed_hi << 32 | w->seed_lo), (unsigned long long)o->steps, threads,
               o->backend, from ? ", from " : "", from ? from : "");
        fflush(stdout);
    }

    if (o->record) {
        if (boids_record_open(o->record, sim, o->record_every, &rec, rec_err, sizeof rec_err) != BOIDS_OK) {
            fprintf(stderr, "%s: --record: %s\n", PROG, rec_err);
            rc = EXIT_ENVIRONMENT;
            goto done;
        }
        if ((rc = record_frame(rec, sim, gpu, o->record_every, &fault, &rec_last_step))) // the initial state
            goto done;
    }
    uint64_t stride = (o->steps + MAX_TIME_SAMPLES - 1) / MAX_TIME_SAMPLES;
    size_t n_samples = 0;
    samples = malloc((size_t)((o->steps + stride - 1) / stride) * sizeof *samples);
    if (!samples) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory for step timings");
        rc = EXIT_ENVIRONMENT;
        goto done;
    }
    boids_stats st;
    bool finite = true;
    double start = now_seconds(), interval_start = start;
    uint64_t interval_steps = 0;
    uint32_t behaviors = 0; // of every group, for the profile
    for (uint32_t gi = 0; gi < sim->p.world.group_count; gi++)
        behaviors |= sim->p.group[gi].behaviors;
    uint64_t steps_done = 0;
    for (uint64_t step = 1; step <= o->steps && !fault.hit; step++) {
        if (boids_cli_interrupted()) {
            fprintf(stderr, "%s: interrupted after %llu steps; writing the outputs\n", PROG,
                    (unsigned long long)steps_done);
            break;
        }
        if (dynamic) { // the scenario's moving target and varying weights at this step
            boids_scenario_at_step(scen, gpu ? boids_gpu_steps(gpu) : sim->step, &sim->p);
            if (gpu)
                boids_gpu_set_params(gpu, &sim->p);
        }
        double t0 = now_seconds();
        boids_stage_ms gm;
        if (gpu) {
            boids_gpu_step(gpu);
            if (profile) { // this step's own timer queries (a wait only when profiling)
                boids_gpu_finish(gpu);
                boids_gpu_stage_ms(gpu, &gm);
            }
            if (!gpu_healthy(gpu, &fault)) // no wait: the reset status and the errors seen
                break;
        } else {
            boids_sim_step(sim);
        }
        double t1 = now_seconds();
        if (profile) {
            const boids_stage_ms *m = gpu ? &gm : &sim->ms;
            boids_profile_row row = {
                .step = step,
                .time_ms = t0 * 1e3,
                .frame_ms = (t1 - t0) * 1e3,
                .stage_ms = {m->key, m->count, m->scan, m->scatter, m->steer, m->integrate, m->bodies},
                .agents = sim->n,
                .behaviors = behaviors};
            boids_profile_add(profile, &row);
            profile_rows++;
        }
        if ((step - 1) % stride == 0)
            samples[n_samples++] = (t1 - t0) * 1e3;
        steps_done = step;
        interval_steps++;
        if (step % o->stats_every == 0 || step == o->steps) {
            if (!download(gpu, sim, &fault)) // statistics of the GPU state: read it back (outside the step)
                break;
            boids_sim_stats(sim, &st);
            finite = finite && stats_finite(&st);
            if (!o->quiet) {
                print_stats("", &st, (t1 - interval_start) * 1e3 / (double)interval_steps);
                fflush(stdout);
            }
            interval_start = now_seconds();
            interval_steps = 0;
        }
        if ((rc = record_frame(rec, sim, gpu, o->record_every, &fault, &rec_last_step)))
            goto done;
        if (o->save && o->save_every && step % o->save_every == 0 && step != o->steps && !fault.hit) {
            if (!download(gpu, sim, &fault))
                break;
            if ((rc = save_snapshot(o, sim, scen)))
                goto done;
            saved_step = (int64_t)sim->step;
        }
    }
    if (gpu && !fault.hit) // the final state (and any error of the last steps)
        download(gpu, sim, &fault);
    if (fault.hit) {
        run_outputs out = {.rec = rec, .rec_last_step = rec_last_step, .saved_step = saved_step,
                           .profile = profile, .profile_rows = profile_rows, .scen = scen};
        rc = flush_after_fault(o, sim, &fault, &out);
        rec = out.rec;
        goto done;
    }
    double total = now_seconds() - start;
    boids_sim_stats(sim, &st);
    if (n_samples == 0) // interrupted before the first step
        samples[n_samples++] = 0.0;
    qsort(samples, n_samples, sizeof *samples, compare_double);
    double median =
        n_samples % 2 ? samples[n_samples / 2] : 0.5 * (samples[n_samples / 2 - 1] + samples[n_samples / 2]);
    if (!finite)
        fprintf(stderr, "%s: warning: some statistics were not finite (nan or inf)\n", PROG);

    if (o->export_csv) {
        if (boids_csv_write(o->export_csv, sim) != BOIDS_OK) {
            boids_cli_error(PROG, "--export-csv", o->export_csv, NULL, "could not be written: %s", strerror(errno));
            rc = EXIT_ENVIRONMENT;
            goto done;
        }
    }
    if (o->save) {
        int src = save_snapshot(o, sim, scen);
        if (src) {
            rc = src;
            goto done;
        }
    }
    if (rec) {
        uint32_t frames = boids_record_frames(rec);
        boids_result rr = boids_record_close(rec, rec_err, sizeof rec_err);
        rec = NULL;
        if (rr != BOIDS_OK) {
            fprintf(stderr, "%s: --record: %s\n", PROG, rec_err);
            rc = EXIT_ENVIRONMENT;
            goto done;
        }
        if (!o->quiet)
            printf("recorded: %s (%u frames, every %llu steps)\n", o->record, frames,
                   (unsigned long long)o->record_every);
    }
    if (profile) {
        int prc = boids_profile_write(profile);
        if (prc) {
            rc = prc;
            goto done;
        }
        boids_profile_summary(profile, o->quiet || boids_cli_interrupted() ? stderr : stdout);
    }
    if (!o->quiet) {
        printf("summary: %llu steps in %.3f s, ms/step median %.4f (min %.4f, max %.4f)\n",
               (unsigned long long)steps_done, total, median, samples[0], samples[n_samples - 1]);
        printf("stages (last step, ms): key %.3f count %.3f scan %.3f scatter %.3f steer %.3f integrate %.3f\n",
               sim->ms.key, sim->ms.count, sim->ms.scan, sim->ms.scatter, sim->ms.steer, sim->ms.integrate);
        printf("pairs (last step): candidates %llu, within radius %llu\n", (unsigned long long)st.candidate_pairs,
               (unsigned long long)st.neighbor_pairs);
        print_stats("final: ", &st, median);
        if (o->export_csv)
            printf("exported: %s (%u agents)\n", o->export_csv, sim->n);
        if (o->save)
            printf("saved: %s (step %llu)\n", o->save, (unsigned long long)sim->step);
    }
    printf("state-hash: %016llx\n", (unsigned long long)boids_sim_hash(sim));
    if (fflush(stdout) != 0 || ferror(stdout)) {
        boids_cli_error(PROG, NULL, NULL, NULL, "cannot write the output: %s", strerror(errno));
        rc = EXIT_ENVIRONMENT;
    }
    if (!rc && boids_cli_interrupted())
        rc = 128 + boids_cli_interrupted();
done:
    if (rec && boids_record_close(rec, rec_err, sizeof rec_err) != BOIDS_OK) // flushed on every exit
        fprintf(stderr, "%s: --record: %s\n", PROG, rec_err);
    boids_gpu_destroy(gpu);
    boids_gl_context_destroy(gl);
    boids_sim_destroy(sim);
    boids_profile_destroy(profile);
    free(samples);
    free(pos);
    free(vel);
    free(group);
    free(scen);
    return rc;
}

// boids-run: parse, run, exit 0 / 2 / 3.
int main(int argc, char **argv) {
    static const boids_cli_spec spec = {
        .prog = PROG,
        .usage = usage,
        .flags = BOIDS_CLI_COUNT | BOIDS_CLI_STEPS | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_BACKEND | BOIDS_CLI_SHADER_DIR |
                 BOIDS_CLI_INIT | BOIDS_CLI_EXPORT_CSV | BOIDS_CLI_STATS_EVERY | BOIDS_CLI_THREADS | BOIDS_CLI_QUIET |
                 BOIDS_CLI_PROFILE | BOIDS_CLI_INDEX | BOIDS_CLI_DUMP_SCENARIO | BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY |
                 BOIDS_CLI_LOAD | BOIDS_CLI_RECORD | BOIDS_CLI_RECORD_EVERY,
    };
    boids_options o;
    int r = boids_cli_parse(argc, argv, &spec, &o);
    if (r == 1)
        return fflush(stdout) == 0 ? 0 : EXIT_ENVIRONMENT;
    if (r != 0)
        return EXIT_INPUT;
    r = run(&o);
    boids_options_free(&o);
    return r;
}
