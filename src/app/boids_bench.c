// src/app/boids_bench.c: boids-bench, the benchmark of the step pipeline.
// For each agent count: median ms/step of every stage (key, count, scan,
// scatter, steer, integrate), candidate pairs and accepted neighbours per
// second of the steer stage, memory, and the fitted exponent of cost vs N.
// --render WxH (GPU backend): each step also draws the viewer's frame
// (flock_draw.h) into a framebuffer object of the headless context; the
// frame's median ms (step + draw + glFinish) and frames/s per count.
// --program-stats (GPU backend): the compute programs the run dispatched,
// as the driver compiled them (boids/program_stats.h), in a second table.
// --rounding-cost (GPU backend): the steer stage with sqrt and division
// corrected to the C's in the shaders and without (the desc's
// debug.correct_rounding on and off: a twin engine of the same world,
// stepped after each step of the timed one), in a table of its own: what
// the correction costs, whichever the driver's probe picked.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include <glad/gl.h>

#include "boids/engine.h"
#include "boids/parse.h"
#include "cli.h"
#include "flock_draw.h"
#include "profile.h"
#include "progress.h"

static const char usage[] = // the usage lines and what it does, before the flags
    "usage: boids-bench [--backend NAME] [--counts N,N,...] [--steps S] [--workload NAME]\n"
    "                   [--render WxH [--screenshot FILE.png]] [--program-stats] [--rounding-cost] [options]\n"
    "\n"
    "Times the step pipeline of the CPU reference (or, with --backend gpu, of the compute shaders, stage by stage "
    "with GPU timer queries) for each agent count (default 10000,100000,1000000) over S steps (default 10, after 2 "
    "warm-up steps) and prints, per count, the median ms/step of each stage, the candidate pairs and accepted "
    "neighbours per second of the steer stage, and the memory of the simulation; then the exponent b of a "
    "least-squares fit ms/step = a N^b (1 = linear) over the counts' median total ms/step (tools/plot_profile.py "
    "fits the same points of a --profile). The world is sized for about 20 neighbours per agent unless --world is "
    "given. Output is a Markdown table for docs/BENCHMARKS.md.\n";
static const char usage_notes[] = // after the flags: one paragraph a line (the help wraps them)
    "\n"
    "SIGINT / SIGTERM: the current step is finished, the rows so far and --profile are written, exit status 130 / "
    "143.\n"
    "Exit status: 0 done, 2 bad arguments, 3 out of memory, no OpenGL 4.5 for --backend gpu, a GPU fault or a "
    "failed write; 130 / 143 after SIGINT / SIGTERM.\n";
static const boids_cli_example examples[] = {
    {"boids-bench --counts 2000,8000,32000 --steps 5",
     "the CPU step's stages at three counts, and the fitted exponent of ms/step vs N"},
    {"boids-bench --counts 2000,8000 --steps 5 --profile bench.csv",
     "also every timed step as CSV (/usr/bin/python3 tools/plot_profile.py bench.csv -o bench.png plots it)"},
    {"boids-bench --backend gpu --counts 100000 --steps 10", "the compute shaders' stages, by GPU timer queries"},
    {"boids-bench --backend gpu --workload circles --counts 100000",
     "FLAME GPU's Circles benchmark, the same work as its published figure"},
    {"boids-bench --backend gpu --counts 20000 --render 960x600 --screenshot s.png",
     "the viewer's frame drawn off-screen each step, the last one as a PNG"},
    {NULL, NULL},
};

// What the flags mean here, where boids-bench differs from the table.
static const boids_cli_help help[] = {
    {.bit = BOIDS_CLI_STEPS, .text = "timed steps per count, 1..1000000000 (default 10, after 2 warm-up steps)"},
    {.bit = BOIDS_CLI_SCENARIO, .text = "the world of a scenario file or a shipped one by name (counts from --counts)"},
    {.bit = BOIDS_CLI_PARAMS,
     .text = "the finer grid, M = %N (as boids-run; auto's pick is printed after the table)",
     .flag = "grid-fine"},
    {.bit = BOIDS_CLI_PROFILE,
     .text = "also record every timed step of every count: FILE.csv (one row per step, with the agent "
             "count) or FILE.json (Chrome trace for Perfetto); a per-stage summary is printed on stderr "
             "at exit"},
    {.bit = BOIDS_CLI_SCREENSHOT, .text = "with --render: the last frame as a PNG (as the viewer's --screenshot)"},
    {.bit = 0, .text = NULL},
};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Median of n values (sorts them).
static double median(double *v, size_t n) {
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The CPU model from /proc/cpuinfo, for the table's caption.
static void cpu_model(char *buf, size_t size) {
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 2;
                c[strcspn(c, "\n")] = 0;
                snprintf(buf, size, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

typedef struct row {
    uint32_t n;
    double ms[8]; // key, count, scan, scatter, steer, integrate, bodies, total
    double cand, neigh;
    double frame_ms;   // --render: the median frame (step + draw + glFinish)
    uint32_t fine;     // the finer grid's M after the timed steps (--grid-fine auto: the engine's pick)
    bool corrected;    // GPU: the timed engine corrects sqrt and division (its probe's pick, or the variable's)
    double twin_steer; // GPU: the median steer of the twin, which does the opposite
} row;

static boids_engine_headless *gl; // --backend gpu: one context for every count
static boids_profile *profile;    // --profile: every timed step of every count

// --render WxH: the framebuffer object the frames are drawn into, and the render.
typedef struct offscreen {
    GLuint fbo, color, depth;
    int w, h;
    boids_render *render;
    boids_scenario scen; // the palette of --scenario's colours
} offscreen;
static offscreen *fb;

// --program-stats: the compute programs of the first count's engine (the
// same programs at every count), each marked dispatched when any count's
// engine ran it (a scan of several levels, scan_add, only at large counts).
static boids_program_stats programs[BOIDS_PROGRAMS_MAX];
static uint32_t n_programs;
static bool programs_taken;
static boids_steer_info steer_info; // the first count's steer programs

// --program-stats after the timed steps of engine e (n agents): the first
// count's programs, or the dispatched marks of a later one. 0, or 3 (said).
static int take_programs(boids_engine *e, uint32_t n) {
    boids_program_stats now[BOIDS_PROGRAMS_MAX];
    uint32_t k = 0;
    boids_result r = boids_engine_program_stats(e, programs_taken ? now : programs, &k);
    if (r != BOIDS_OK) {
        char fault[1024] = "";
        boids_engine_check(e, fault, sizeof fault);
        fprintf(stderr, "boids-bench: --program-stats: N=%u: %s\n", n,
                r == BOIDS_ERR_NOMEM ? "out of memory for a program's binary" : fault);
        return 3;
    }
    if (!programs_taken) {
        n_programs = k;
        boids_engine_steer_info(e, &steer_info);
    }
    for (uint32_t i = 0; programs_taken && i < k && i < n_programs; i++)
        programs[i].dispatched = programs[i].dispatched || now[i].dispatched;
    programs_taken = true;
    return 0;
}

// The framebuffer object of --render (bound) and the render on gl's
// context; 0 or the exit status (one line printed): 2 a size beyond the
// device's limits or a shader of --shader-dir that fails, 3 else.
static int offscreen_open(const boids_options *o) {
    GLint max_rb = 0, max_vp[2] = {0, 0};
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_vp);
    int lim_w = max_rb < max_vp[0] ? max_rb : max_vp[0], lim_h = max_rb < max_vp[1] ? max_rb : max_vp[1];
    if ((int64_t)o->render_w > lim_w || (int64_t)o->render_h > lim_h) {
        char value[48], expected[96];
        snprintf(value, sizeof value, "%ux%u", o->render_w, o->render_h);
        snprintf(expected, sizeof expected, "at most %dx%d on this device", lim_w, lim_h);
        boids_cli_error("boids-bench", "--render", value, expected, "is larger than a framebuffer can be");
        return 2;
    }
    if (!(fb = calloc(1, sizeof *fb))) {
        boids_cli_error("boids-bench", "--render", NULL, NULL, "out of memory");
        return 3;
    }
    fb->w = (int)o->render_w;
    fb->h = (int)o->render_h;
    glCreateRenderbuffers(1, &fb->color);
    glCreateRenderbuffers(1, &fb->depth);
    glNamedRenderbufferStorage(fb->color, GL_RGBA8, fb->w, fb->h);
    glNamedRenderbufferStorage(fb->depth, GL_DEPTH_COMPONENT24, fb->w, fb->h);
    glCreateFramebuffers(1, &fb->fbo);
    glNamedFramebufferRenderbuffer(fb->fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, fb->color);
    glNamedFramebufferRenderbuffer(fb->fbo, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, fb->depth);
    GLenum status = glCheckNamedFramebufferStatus(fb->fbo, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE || glGetError() != GL_NO_ERROR) {
        fprintf(stderr, "boids-bench: --render: %dx%d: the framebuffer object is not complete (status 0x%04x)\n", fb->w,
                fb->h, (unsigned)status);
        return 3;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, fb->fbo);
    char err[4096];
    boids_render_desc rd = {.shader_dir = o->shader_dir};
    boids_result r = boids_render_create(&fb->render, &rd, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "boids-bench: --render: %s\n", err);
        return r == BOIDS_ERR_SHADER ? 2 : 3;
    }
    return 0;
}

// Frees --render's framebuffer and render (before the context closes).
static void offscreen_close(void) {
    if (!fb)
        return;
    boids_render_destroy(fb->render);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fb->fbo);
    glDeleteRenderbuffers(1, &fb->color);
    glDeleteRenderbuffers(1, &fb->depth);
    free(fb);
    fb = NULL;
}

// One frame of engine e as the viewer draws it (boids_viewer.c flock_draw:
// the camera, the agents and bodies from the engine's GL buffers, the
// scene's lines, the HUD panel; not the overlays, menu and help, which are
// off by default), then glFinish. hud: the previous frame's figures.
static void draw_frame(const boids_engine *e, const boids_camera *cam, double fps, double frame_ms,
                       const boids_stage_ms *m) {
    const boids_params *p = boids_engine_params(e);
    float vp[16];
    glBindFramebuffer(GL_FRAMEBUFFER, fb->fbo);
    flock_draw_begin(cam, fb->w, fb->h, NULL, vp);
    boids_engine_gl b = {0};
    boids_engine_gl_buffers(e, &b);
    flock_draw_agents(fb->render, cam, boids_render_default_color(p->world.count), fb->h, vp, p, &b, false);
    char hud[512];
    snprintf(hud, sizeof hud,
             "FPS %.1f   frame %.2f ms   step %llu\n"
             "sim ms  key %.2f  count %.2f  scan %.2f  scatter %.2f  steer %.2f  integrate %.2f  bodies %.2f\n"
             "%u agents  %uD  backend gpu  off-screen %dx%d (boids-bench --render)",
             fps, frame_ms, (unsigned long long)boids_engine_steps(e), m->key, m->count, m->scan, m->scatter, m->steer,
             m->integrate, m->bodies, p->world.count, p->world.dim, fb->w, fb->h);
    flock_draw_hud(fb->render, fb->w, fb->h, hud);
    glFinish();
}

// An engine of n agents on the backend of o (and gl); 0 or the exit status
// (one line printed).
static int make_engine(const boids_options *o, uint32_t n, boids_debug_rounding rounding, boids_engine **e) {
    boids_params p;
    char err[4096];
    if (boids_options_params(o, n, &p, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    boids_engine_desc d = {.params = &p,
                           .distribution = (boids_distribution)o->distribution,
                           .threads = o->threads,
                           .index = gl ? BOIDS_INDEX_GRID : (boids_index)o->index, // the GPU has only the grid
                           .backend = gl ? BOIDS_BACKEND_GPU : BOIDS_BACKEND_CPU,
                           .headless = gl,
                           .shader_dir = o->shader_dir,
                           .timing = true,
                           .silent_errors = true,
                           .kernel = (boids_kernel)o->kernel,
                           .debug = {.correct_rounding = rounding}};
    boids_result r = boids_engine_create(e, &d, err, sizeof(err));
    if (r == BOIDS_OK)
        return 0;
    if (!gl) {
        fprintf(stderr, "boids-bench: --counts: %u agents: %s\n", n, boids_result_str(r));
        return r == BOIDS_ERR_NOMEM ? 3 : 2;
    }
    fprintf(stderr, "boids-bench: %s\n", err);
    return r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT ? 2 : 3;
}

// GPU: the twin of engine e (n agents): the same world with sqrt and
// division corrected where e's are not and the other way round (the desc's
// debug.correct_rounding); 0 or the exit status (one line printed).
static int make_twin(const boids_options *o, uint32_t n, const boids_engine *e, boids_engine **twin) {
    return make_engine(o, n, boids_engine_corrects_rounding(e) ? BOIDS_DEBUG_ROUNDING_OFF : BOIDS_DEBUG_ROUNDING_ON,
                       twin);
}

// Starts the progress line of count `which` (0-based) of o's counts, n
// agents, in `phase` ("" or " warm-up") of `steps` steps; true when it is drawn.
static bool start_progress(const boids_options *o, uint32_t which, uint32_t n, const char *phase, uint64_t steps) {
    char label[96];
    snprintf(label, sizeof label, "boids-bench: N=%u (%u/%u)%s", n, which + 1, o->n_counts, phase);
    return !o->quiet && boids_progress_start(label, steps);
}

// Run count `which` of o's counts, n agents: warm-up, then `steps` timed
// steps; medians per stage. Progress: on a terminal one updating line
// (progress.h), else (unless --quiet) a line per count as it starts.
static int bench_count(const boids_options *o, uint32_t which, uint32_t n, row *r) {
    boids_engine *e = NULL, *twin = NULL;
    int rc = make_engine(o, n, BOIDS_DEBUG_ROUNDING_AUTO, &e);
    if (!rc && gl && o->rounding_cost && (rc = make_twin(o, n, e, &twin)))
        boids_engine_destroy(e);
    if (rc)
        return rc;
    const boids_params *p = boids_engine_params(e);
    bool live = start_progress(o, which, n, " warm-up", 2), plain = !live && !o->quiet;
    if (plain)
        fprintf(stderr, "boids-bench: N=%u: %u cells of %.4g, warming up...\n", n, boids_engine_cells(e),
                (double)p->world.cell[0]);
    boids_stage_ms m = {0}, mt = {0};
    boids_camera cam; // --render: the viewer's camera, fit to the world
    double frame_ms = 0.0;
    if (fb) {
        boids_camera_fit(&cam, &p->world, (float)fb->w / (float)fb->h);
        boids_options_scenario(o, p, &fb->scen);
        boids_render_set_palette(fb->render, (const float(*)[4])fb->scen.color, fb->scen.color_set);
        boids_render_set_glyphs(fb->render, fb->scen.glyph, fb->scen.glyph_size);
    }
    for (int i = 0; i < 2; i++) {
        double t0 = omp_get_wtime();
        boids_engine_step(e, 1, NULL);
        if (fb) {
            draw_frame(e, &cam, frame_ms > 0 ? 1e3 / frame_ms : 0.0, frame_ms, &m);
            frame_ms = (omp_get_wtime() - t0) * 1e3;
        }
        if (gl)
            boids_engine_stage_ms(e, true, &m); // wait for the GPU
        if (twin) {
            boids_engine_step(twin, 1, NULL);
            boids_engine_stage_ms(twin, true, &mt);
        }
        boids_progress_update((uint64_t)i + 1);
    }
    size_t steps = (size_t)o->bench_steps;
    double *t = malloc(sizeof(double) * steps * 10); // the 8 columns, the --render frame, the twin's steer
    if (!t) {
        boids_engine_destroy(e);
        boids_engine_destroy(twin);
        return 3;
    }
    double cand = 0, neigh = 0;
    size_t done = 0; // timed steps (fewer when interrupted)
    if (live)
        start_progress(o, which, n, "", steps);
    for (size_t k = 0; k < steps; k++) {
        if (boids_cli_interrupted())
            break;
        double t0 = omp_get_wtime();
        boids_result sr = boids_engine_step(e, 1, NULL);
        if (sr == BOIDS_OK && fb) { // --render: the frame of this step, then glFinish
            draw_frame(e, &cam, frame_ms > 0 ? 1e3 / frame_ms : 0.0, frame_ms, &m);
            frame_ms = (omp_get_wtime() - t0) * 1e3;
        }
        if (sr == BOIDS_OK) // GPU: outside the step, wait, then read its timer queries
            boids_engine_stage_ms(e, gl != NULL, &m);
        if (sr != BOIDS_OK || boids_engine_check(e, NULL, 0) != BOIDS_OK) // a fault: stop (reported below)
            break;
        double total = (omp_get_wtime() - t0) * 1e3;
        if (profile) {
            uint32_t behaviors = 0;
            for (uint32_t gi = 0; gi < p->world.group_count; gi++)
                behaviors |= p->group[gi].behaviors;
            boids_profile_row pr = {.step = k + 1,
                                    .time_ms = t0 * 1e3,
                                    .frame_ms = total,
                                    .stage_ms = {m.key, m.count, m.scan, m.scatter, m.steer, m.integrate, m.bodies},
                                    .agents = n,
                                    .behaviors = behaviors};
            boids_profile_add(profile, &pr);
        }
        if (gl) // GPU: the step's own time is the sum of its stages, not the host's wait
            total = m.key + m.count + m.scan + m.scatter + m.steer + m.integrate + m.bodies;
        double v[8] = {m.key, m.count, m.scan, m.scatter, m.steer, m.integrate, m.bodies, total};
        for (int j = 0; j < 8; j++)
            t[j * steps + k] = v[j];
        t[8 * steps + k] = frame_ms;
        if (twin) { // after the timed step and its figures (a fault: stop, reported below)
            if (boids_engine_step(twin, 1, NULL) != BOIDS_OK || boids_engine_check(twin, NULL, 0) != BOIDS_OK)
                break;
            boids_engine_stage_ms(twin, true, &mt);
        }
        t[9 * steps + k] = mt.steer;
        done = k + 1;
        // Pair counts: every step on the CPU; on the GPU read back once, after
        // the last step (a readback per step would dominate at 10 M agents).
        bool last = k + 1 == steps || boids_cli_interrupted();
        if (!gl || last) {
            boids_stats st;
            if (boids_engine_stats(e, &st) != BOIDS_OK)
                break;
            double reps = gl ? (double)done : 1.0;
            cand += reps * (double)st.candidate_pairs;
            neigh += reps * (double)st.neighbor_pairs;
        }
        boids_progress_update(done);
    }
    boids_progress_finish();
    char fault[1024];
    if (boids_engine_check(e, fault, sizeof fault) != BOIDS_OK ||
        (twin &&
         boids_engine_check(twin, fault, sizeof fault) != BOIDS_OK)) { // lost, or errors (also of the read-back)
        fprintf(stderr, "boids-bench: --backend gpu: N=%u%s: %s\n", n,
                boids_engine_check(e, NULL, 0) == BOIDS_OK ? " (the twin engine, sqrt and division the other way)" : "",
                fault);
        free(t);
        boids_engine_destroy(e);
        boids_engine_destroy(twin);
        return 3;
    }
    bool twin_ran = twin != NULL;
    boids_engine_destroy(twin); // before --program-stats reads the timed engine's programs
    if (o->program_stats && take_programs(e, n)) {
        free(t);
        boids_engine_destroy(e);
        return 3;
    }
    r->n = n;
    if (done == 0) { // interrupted before its first timed step: no row
        free(t);
        boids_engine_destroy(e);
        return 0;
    }
    r->corrected = boids_engine_corrects_rounding(e);
    r->twin_steer = twin_ran ? median(t + 9 * steps, done) : 0.0;
    for (int j = 0; j < 8; j++)
        r->ms[j] = median(t + j * steps, done);
    r->frame_ms = fb ? median(t + 8 * steps, done) : 0.0;
    r->cand = cand / (double)done;
    r->fine = boids_engine_grid_fine(e);
    r->neigh = neigh / (double)done;
    printf("| %8u | %7.2f | %7.2f | %7.2f | %8.2f | %9.2f | %9.2f | %8.2f | %9.2f | %8.1f | %9.3g | %9.3g | %7.1f |\n",
           n, r->ms[0], r->ms[1], r->ms[2], r->ms[3], r->ms[4], r->ms[5], r->ms[6], r->ms[7], r->neigh / n,
           r->cand / (r->ms[4] * 1e-3), r->neigh / (r->ms[4] * 1e-3), (double)boids_engine_bytes(e) / 1048576.0);
    fflush(stdout);
    free(t);
    boids_engine_destroy(e);
    return 0;
}

// The exponent b of ms/step = a N^b: the least-squares slope of log(ms)
// against log(N) over the rows whose total ms/step (the median over the
// count's timed steps of the step's time: the host's on the CPU, the sum of
// the stages' on the GPU) is above 0; NaN unless two of them differ in N.
// tools/plot_profile.py fits the same points of a --profile CSV the same way
// (its fit_exponent; test_bench_fit compares the two).
static double fit_exponent(const row *r, uint32_t k) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    uint32_t used = 0, first = 0;
    bool distinct = false; // rounding would fit a slope to equal counts
    for (uint32_t i = 0; i < k; i++) {
        if (!(r[i].ms[7] > 0) || !isfinite(r[i].ms[7]))
            continue;
        first = used ? first : r[i].n;
        distinct = distinct || r[i].n != first;
        double x = log((double)r[i].n), y = log(r[i].ms[7]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        used++;
    }
    double den = used * sxx - sx * sx;
    return distinct && den != 0 ? (used * sxy - sx * sy) / den : NAN;
}

// --render, --screenshot and --program-stats against the other flags: 0,
// or 2 with one line.
static int check_gpu_flags(const boids_options *o) {
    if (o->rounding_cost && strcmp(o->backend, "gpu") != 0) {
        boids_cli_error("boids-bench", "--rounding-cost", NULL, "--backend gpu with it",
                        "needs --backend gpu: it times the shaders' correction of sqrt and division, and the "
                        "backend is %s",
                        o->backend);
        return 2;
    }
    if (o->program_stats && strcmp(o->backend, "gpu") != 0) {
        boids_cli_error("boids-bench", "--program-stats", NULL, "--backend gpu with it",
                        "needs --backend gpu: it reads the GPU backend's compute programs, and the backend is %s",
                        o->backend);
        return 2;
    }
    char value[48];
    snprintf(value, sizeof value, "%ux%u", o->render_w, o->render_h);
    if (o->render_w && strcmp(o->backend, "gpu") != 0) {
        boids_cli_error("boids-bench", "--render", value, "--backend gpu with it",
                        "draws the GPU backend's buffers (the viewer's frame): the CPU backend has none");
        return 2;
    }
    if (o->screenshot && !o->render_w) {
        boids_cli_error("boids-bench", "--screenshot", o->screenshot, "--render WxH with it",
                        "needs --render (the PNG is the last off-screen frame)");
        return 2;
    }
    if (o->screenshot && boids_cli_check_output("boids-bench", "--screenshot", o->screenshot,
                                                "a PNG file path in an existing, writable directory"))
        return 2;
    return 0;
}

// Local memory of a program's assembly: "none", or its arrays
// ("lmem0[180], lmem1[4]") and their uses.
static void local_memory(const boids_asm_stats *a, char *buf, size_t size) {
    if (!a->arrays) {
        snprintf(buf, size, "none");
        return;
    }
    size_t k = 0;
    buf[0] = '\0';
    uint32_t listed = a->arrays < BOIDS_ASM_LMEM_MAX ? a->arrays : BOIDS_ASM_LMEM_MAX;
    for (uint32_t i = 0; i < listed && k < size; i++) {
        int w = snprintf(buf + k, size - k, "%s%s[%u]", i ? ", " : "", a->array[i].name, a->array[i].size);
        k += w > 0 ? (size_t)w : 0u;
    }
    if (k < size && a->arrays > listed)
        k += (size_t)snprintf(buf + k, size - k, ", %u more", a->arrays - listed);
    if (k < size)
        snprintf(buf + k, size - k, " (%u uses)", a->array_uses);
}

// --program-stats' table: one row per compute program the run dispatched;
// then the ones built but never run.
static void program_outputs(void) {
    printf("\ncompute programs (--program-stats): the binaries of the programs the run dispatched "
           "(glGetProgramBinary); asm figures where the binary holds the driver's assembly (NVIDIA)\n\n");
    printf("| program    | shader         | binary bytes | format | asm lines | vec4 temps | local memory |\n");
    printf("|------------|----------------|--------------|--------|-----------|------------|--------------|\n");
    for (uint32_t i = 0; i < n_programs; i++) {
        const boids_program_stats *p = &programs[i];
        if (!p->dispatched)
            continue;
        char format[16] = "none", lines[16] = "n/a", temps[16] = "n/a", lmem[512] = "n/a";
        if (p->binary_bytes)
            snprintf(format, sizeof format, "0x%04x", (unsigned)p->format);
        if (p->text.found) {
            snprintf(lines, sizeof lines, "%u", p->text.lines);
            snprintf(temps, sizeof temps, "%u", p->text.temps);
            local_memory(&p->text, lmem, sizeof lmem);
        }
        printf("| %-10s | %-14s | %12llu | %-6s | %9s | %10s | %-12s |\n", p->name, p->shader,
               (unsigned long long)p->binary_bytes, format, lines, temps, lmem);
    }
    bool idle = false;
    for (uint32_t i = 0; i < n_programs; i++)
        if (!programs[i].dispatched) {
            printf("%s%s", idle ? ", " : "\nbuilt, not dispatched in this run: ", programs[i].name);
            idle = true;
        }
    if (idle)
        printf("\n");
    printf("\nsteer: %s%s; %u specialised program%s built\n",
           steer_info.spec[0] ? "specialised to " : "the general program (every behaviour)", steer_info.spec,
           steer_info.built, steer_info.built == 1 ? "" : "s");
}

// --rounding-cost: the steer stage with sqrt and division corrected in the
// shaders and without, per count (the timed engine's and its twin's medians).
static void rounding_outputs(const row *rows, uint32_t measured) {
    printf("\nsteer with sqrt and division corrected to the C's in the shaders (debug.correct_rounding on) and "
           "without (off), median ms; the table above ran with them %s\n\n",
           rows[0].corrected ? "on" : "off");
    printf("| N        | steer off | steer on  | on / off |\n");
    printf("|----------|-----------|-----------|----------|\n");
    for (uint32_t i = 0; i < measured; i++) {
        double on = rows[i].corrected ? rows[i].ms[4] : rows[i].twin_steer,
               off = rows[i].corrected ? rows[i].twin_steer : rows[i].ms[4];
        printf("| %8u | %9.2f | %9.2f | %8.2f |\n", rows[i].n, off, on, off > 0 ? on / off : 0.0);
    }
}

// --render's table: per count the median frame (step + draw + glFinish) and
// frames/s; then --screenshot of the last frame. 0 or 3 (said).
static int render_outputs(const boids_options *o, const row *rows, uint32_t measured) {
    printf("\nframe off-screen (--render %dx%d): engine step + the viewer's draw + glFinish, median of %llu "
           "frames\n\n",
           fb->w, fb->h, (unsigned long long)o->bench_steps);
    printf("| N        | frame ms  | frames/s  | step ms   |\n");
    printf("|----------|-----------|-----------|-----------|\n");
    for (uint32_t i = 0; i < measured; i++)
        printf("| %8u | %9.2f | %9.1f | %9.2f |\n", rows[i].n, rows[i].frame_ms,
               rows[i].frame_ms > 0 ? 1e3 / rows[i].frame_ms : 0.0, rows[i].ms[7]);
    if (!o->screenshot)
        return 0;
    char err[512];
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fb->fbo);
    if (measured == 0) {
        fprintf(stderr, "boids-bench: --screenshot: '%s' not written: no frame was drawn\n", o->screenshot);
        return 3;
    }
    if (boids_render_screenshot(o->screenshot, fb->w, fb->h, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "boids-bench: %s\n", err);
        return 3;
    }
    printf("\nscreenshot: %s (%dx%d)\n", o->screenshot, fb->w, fb->h);
    return 0;
}

// The benchmark of the parsed options; the exit status.
static int run(const boids_options *opt) {
    boids_options o = *opt; // the default counts go in (the caller frees what o points to)
    int rc;
    if (o.n_counts == 0) {
        uint32_t def[] = {10000, 100000, 1000000};
        memcpy(o.counts, def, sizeof(def));
        o.n_counts = 3;
    }
    // Bodies from --bodies, else from the scenario: the profile's stages are the total's.
    bool bodies = o.values.set[BOIDS_PARAM_BODIES] ? o.values.v[BOIDS_PARAM_BODIES].u[0] != BOIDS_BODY_NONE
                                                   : o.scenario && boids_params_joint_rows(&o.scenario->params) > 0;
    if (o.profile && (rc = boids_profile_open(&profile, "boids-bench", o.profile, o.backend,
                                              BOIDS_PROFILE_SIM_STAGES | (bodies ? 1u << BOIDS_PROFILE_BODIES : 0u))))
        return rc;
    char cpu[256];
    cpu_model(cpu, sizeof(cpu));
    if (boids_cli_check_kernel("boids-bench", &o, strcmp(o.backend, "gpu") == 0) || check_gpu_flags(&o)) {
        boids_profile_destroy(profile);
        return 2;
    }
    if (strcmp(o.backend, "gpu") == 0) {
        char err[1024];
        if (boids_engine_fault_env(err, sizeof err) != BOIDS_OK) {
            fprintf(stderr, "boids-bench: %s\n", err);
            boids_profile_destroy(profile);
            return 2;
        }
        if (boids_engine_headless_open(&gl, err, sizeof(err)) != BOIDS_OK) {
            fprintf(stderr, "boids-bench: --backend gpu needs OpenGL 4.5: %s\n", err);
            boids_profile_destroy(profile);
            return 3;
        }
        snprintf(cpu, sizeof(cpu), "%s (%s)", boids_engine_headless_renderer(gl), boids_engine_headless_context(gl));
        if (o.render_w && (rc = offscreen_open(&o))) {
            offscreen_close();
            boids_engine_headless_close(gl);
            boids_profile_destroy(profile);
            return rc;
        }
    }
    int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    char fine[64] = ""; // --grid-fine, when given (the header as before without it)
    bool fine_set = o.values.set[BOIDS_PARAM_GRID_FINE];
    uint32_t fine_k = o.values.v[BOIDS_PARAM_GRID_FINE].u[0];
    if (fine_set)
        snprintf(fine, sizeof fine, ", grid fine %s", boids_parse_grid_fine_names[fine_k]);
    printf("boids-bench %s: backend %s%s%s%s, %uD, %s, index %s, %llu steps (median), %d thread%s, %s\n", BOIDS_VERSION,
           o.backend, o.kernel ? ", kernel " : "", o.kernel ? boids_kernel_names[o.kernel] : "", fine, o.dim,
           o.distribution == BOIDS_DIST_CLUSTERED ? "clustered" : "uniform",
           o.index < BOIDS_INDEX_KINDS ? boids_parse_index_names[o.index] : "?", (unsigned long long)o.bench_steps,
           threads, threads == 1 ? "" : "s", cpu);
    printf("\n| N        | key ms  | count   | scan    | scatter  | steer     | integrate | bodies   | total ms  | "
           "neigh/ag | cand/s    | neigh/s   | MiB     |\n");
    printf("|----------|---------|---------|---------|----------|-----------|-----------|----------|-----------|"
           "----------|-----------|-----------|---------|\n");
    row rows[BOIDS_CLI_MAX_COUNTS];
    boids_cli_catch_interrupts(); // SIGINT / SIGTERM: the rows so far, the profile, exit 130 / 143
    uint32_t measured = 0;
    for (uint32_t i = 0; i < o.n_counts && !boids_cli_interrupted(); i++) {
        rc = bench_count(&o, i, o.counts[i], &rows[i]);
        measured += boids_cli_interrupted() ? 0u : 1u;
        if (rc) {
            offscreen_close();
            boids_engine_headless_close(gl);
            boids_profile_destroy(profile);
            return rc;
        }
    }
    int sig = boids_cli_interrupted();
    if (sig)
        fprintf(stderr,
                "boids-bench: interrupted after %u of %u counts (a last row is the median of the steps it "
                "timed); writing the outputs\n",
                measured, o.n_counts);
    if (fine_set && fine_k == BOIDS_PARSE_GRID_FINE_AUTO && measured) {
        printf("\ngrid fine auto picked:");
        for (uint32_t i = 0; i < measured; i++)
            printf(" M = %u at N = %u%s", rows[i].fine, rows[i].n, i + 1 < measured ? "," : "\n");
    }
    if (measured >= 2) {
        double b = fit_exponent(rows, measured);
        if (isfinite(b))
            printf("\nfitted exponent of ms/step vs N: %.3f (1.000 = linear)\n", b);
        else // every N the same (--counts 1,1,1), or a time of 0: no slope to fit
            printf("\nfitted exponent of ms/step vs N: none (it needs two different counts and times above 0)\n");
    }
    if (gl && o.rounding_cost && measured)
        rounding_outputs(rows, measured);
    if (programs_taken)
        program_outputs();
    rc = fb ? render_outputs(&o, rows, measured) : 0;
    offscreen_close();
    boids_engine_headless_close(gl);
    if (profile && !rc) {
        rc = boids_profile_write(profile);
        if (!rc)
            boids_profile_summary(profile, stderr);
    }
    boids_profile_destroy(profile);
    if (fflush(stdout) != 0)
        rc = 3;
    return rc ? rc : sig ? 128 + sig : 0;
}

// boids-bench: parse, measure every count, exit 0 / 2 / 3.
int main(int argc, char **argv) {
    const boids_cli_spec spec = {
        .prog = "boids-bench",
        .summary = "time the simulation's step, stage by stage, against the agent count",
        .usage = usage,
        .usage_notes = usage_notes,
        .examples = examples,
        .help = help,
        .flags = BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_BACKEND | BOIDS_CLI_COUNTS | BOIDS_CLI_DISTRIBUTION | BOIDS_CLI_STEPS |
                 BOIDS_CLI_THREADS | BOIDS_CLI_QUIET | BOIDS_CLI_SHADER_DIR | BOIDS_CLI_PROFILE | BOIDS_CLI_INDEX |
                 BOIDS_CLI_KERNEL | BOIDS_CLI_WORKLOAD | BOIDS_CLI_RENDER | BOIDS_CLI_SCREENSHOT |
                 BOIDS_CLI_PROGRAM_STATS | BOIDS_CLI_ROUNDING_COST,
    };
    return boids_cli_main(argc, argv, &spec, run);
}
