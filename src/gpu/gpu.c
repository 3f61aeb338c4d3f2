// src/gpu/gpu.c: the compute backend. Buffers (SoA vec4, double-buffered:
// state A/B bound as cur/next by rebinding), programs, the pipeline of
// dispatches with memory barriers, timer queries in a ring (read a few steps
// late, never stalling), explicit readback. C twin of the pipeline:
// src/core/sim.c boids_sim_step.
// Faults: boids_gpu_check (reset status, GL errors seen by the debug
// callback) and the BOIDS_FAULT injection for tests (see boids/gpu.h). Once a
// loss is seen the backend makes no more GL calls: every entry point that
// needs the context returns, downloads fail with BOIDS_ERR_GPU_LOST.
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/gpu.h"
#include "gl_util.h"
#include "steer_spec.h"

enum { STAGE_KEY, STAGE_COUNT, STAGE_SCAN, STAGE_SCATTER, STAGE_STEER, STAGE_INTEGRATE, STAGE_BODIES, STAGE_N };
static const char *const stage_file[] = {"key.comp",   "count.comp",     "scan.comp",  "scatter.comp",
                                         "steer.comp", "integrate.comp", "bodies.comp"};
// The compute programs, in pipeline order: boids_gpu_program_stats' rows
// and the bits of boids_gpu.dispatched; prog_stage: the stage of g->prog
// each is (-1: a program of its own field).
enum {
    PROG_KEY,
    PROG_COUNT,
    PROG_SCAN,
    PROG_SCAN_ADD,
    PROG_SCATTER,
    PROG_SURVEY,
    PROG_STEER,
    PROG_STEER_GENERAL,
    PROG_INTEGRATE,
    PROG_BODIES,
    PROG_N
};
// "steer": the specialised steer program of the last dispatch;
// "steer_general": the general one (every behaviour), where it was built.
static const char *const prog_name[PROG_N] = {"key",    "count", "scan",          "scan_add",  "scatter",
                                              "survey", "steer", "steer_general", "integrate", "bodies"};
static const char *const prog_shader[PROG_N] = {"key.comp",       "count.comp",  "scan.comp",  "scan_add.comp",
                                                "scatter.comp",   "survey.comp", "steer.comp", "steer.comp",
                                                "integrate.comp", "bodies.comp"};
static const int prog_stage[PROG_N] = {STAGE_KEY, STAGE_COUNT, STAGE_SCAN,      -1,          STAGE_SCATTER, -1,
                                       -1,        STAGE_STEER, STAGE_INTEGRATE, STAGE_BODIES};
// Steer programs kept at once (the least recently used makes way).
#define STEER_CACHE 32
#define TIMER_RING 4
#define MAX_SCAN_LEVELS 4
#define MAX_FAULT_STEP 1000000000ull

// BOIDS_FAULT: what is injected.
typedef enum fault_kind { FAULT_NONE, FAULT_LOST, FAULT_ERROR, FAULT_OOM } fault_kind;

// A steer program specialised to a spec (steer_spec.h): built, or being
// built in the background (build.program != 0).
typedef struct steer_variant {
    boids_steer_spec spec;
    GLuint prog;               // 0 while building
    boids_program_build build; // the build in flight
    uint64_t used;             // the backend's steer_uses when last dispatched (least recent goes first)
} steer_variant;

typedef struct state_buffers {
    GLuint pos, vel, id, group;
} state_buffers;

struct boids_gpu {
    boids_params p;
    boids_world_params world_gpu; // as uploaded (flow_dims[3] = 0 without a field)
    uint32_t n, cells;
    uint32_t capacity; // the agents the buffers hold (n at create; boids_gpu_set_count moves n below it)
    state_buffers state[2];
    int cur; // index of the state bound as cur
    GLuint key, count, start, accel, neighbors, nearest, candidates, flow, slot_of;
    GLuint record; // 2D: vec4[n], cur's slots packed (pos.xy, vel.xy) by scatter for steer; 3D: 16 bytes, unused
    GLuint survey; // uint[4]: the heading rules' survey (survey.comp)
    // The kernel variant (boids/core.h): its shader flags (BOIDS_SHADER_MORTON);
    // kernel morton: the rank of each row-major cell in Morton order
    // (cell_rank, also on the host: rank_of).
    boids_kernel kernel;
    unsigned kernel_flags;
    GLuint cell_rank;
    uint32_t *rank_of, *cell_of_rank;
    bool grid_built; // scatter ran since the last upload (start and the slots agree)
    GLuint scan_sums[MAX_SCAN_LEVELS];
    uint32_t scan_levels, scan_n[MAX_SCAN_LEVELS + 1];
    GLuint ubo_world, ubo_groups, ubo_scene, ubo_bodies;
    GLuint joints; // vec4[joint_rows * n] (0: no bodies)
    uint32_t joint_rows;
    GLuint prog[STAGE_N], prog_scan_add, prog_survey;
    // Steer programs specialised to the run (steer_spec.h), one per spec met;
    // prog[STAGE_STEER] is the general steer (every behaviour, the
    // parameters decide), built only for background builds (the viewer:
    // it steps while a new spec builds) or after a specialised build failed.
    steer_variant steer[STEER_CACHE];
    uint32_t steer_n;
    uint64_t steer_uses;
    GLuint steer_last; // the steer program of the last dispatch
    bool background;   // boids_gpu_desc.background_builds, and the driver compiles in its own threads
    boids_program_build steer_general_build; // the general steer's build in flight
    uint32_t steer_built;                    // specialised programs built (cache misses)
    uint64_t steer_general_steps;            // steps stepped by the general steer while a specialised one was building
    char steer_error[256];                   // a specialised build's failure (boids_gpu_check reports it)
    bool steer_general_only;                 // $BOIDS_STEER_GENERAL=1 (tests): every step with the general steer
    uint32_t dispatched;                     // bit PROG_*: the program ran at least once (boids_gpu_program_stats)
    GLuint timers[TIMER_RING][STAGE_N + 1];
    uint64_t step, timed_steps;
    boids_stage_ms last_ms;
    uint32_t errors_at_create;       // gl_errors_seen when this backend was made
    bool alive;                      // counted in backends_alive (the callback is installed)
    uint64_t timer_step[TIMER_RING]; // step whose queries a ring slot holds, +1 (0: never issued)
    bool quiet;
    const char *shader_dir; // as given at create (the rounding probe loads from it too)
    unsigned shader_flags; // BOIDS_SHADER_INT64 where the context has GL_ARB_gpu_shader_int64 (and not $BOIDS_NO_INT64)
    // Faults.
    fault_kind fault;          // BOIDS_FAULT
    uint64_t fault_step;       // its STEP
    bool in_step;              // inside boids_gpu_step (for the step an error is blamed on)
    bool robust;               // GL_RESET_NOTIFICATION_STRATEGY is GL_LOSE_CONTEXT_ON_RESET
    GLenum reset;              // GL_NO_ERROR, or the reset status once a loss was seen: no GL calls from then on
    uint64_t reset_step;       // steps done when the loss was seen
    char first_error[256];     // the first GL debug error message since create (one line)
    uint64_t first_error_step; // the step it was blamed on
    bool first_error_in_step;  // seen inside that step (else after it)
    struct boids_gpu *next_alive;
};

// GL debug output: errors are counted (tests assert zero) and printed. The
// callback belongs to the context, which several backends may share, so
// the count is the process's and each backend reports the errors since it
// was created; the callback stays installed while any backend lives.
static uint32_t gl_errors_seen;
// With asynchronous debug output (benchmark timing) the driver may call the
// callback from its own thread: the count, the first messages and the list
// of backends are only touched under this lock.
static pthread_mutex_t errors_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t backends_alive;
static bool gl_quiet;
static bool gl_silent_errors; // errors are counted and kept, not printed (boids_gpu_check says them)
static boids_gpu *alive_list; // backends with the callback installed, for their first error's text

// Keep the first error message (one line, newlines folded) in every living
// backend that has none yet.
static void keep_first_error(const char *message) {
    for (boids_gpu *g = alive_list; g; g = g->next_alive) {
        if (g->first_error[0])
            continue;
        snprintf(g->first_error, sizeof g->first_error, "%s", message ? message : "(no message)");
        for (char *c = g->first_error; *c; c++)
            if (*c == '\n' || *c == '\r' || *c == '\t')
                *c = ' ';
        size_t len = strlen(g->first_error);
        while (len > 0 && g->first_error[len - 1] == ' ')
            g->first_error[--len] = '\0';
        g->first_error_step = g->step + (g->in_step ? 1u : 0u);
        g->first_error_in_step = g->in_step;
    }
}

static void GLAPIENTRY debug_message(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                     const GLchar *message, const void *user) {
    (void)source;
    (void)id;
    (void)length;
    (void)user;
    if (type == GL_DEBUG_TYPE_ERROR) {
        pthread_mutex_lock(&errors_lock);
        gl_errors_seen++;
        keep_first_error(message);
        pthread_mutex_unlock(&errors_lock);
        if (!gl_silent_errors)
            fprintf(stderr, "GL error: %s\n", message);
    } else if (!gl_quiet && severity == GL_DEBUG_SEVERITY_HIGH) {
        fprintf(stderr, "GL: %s\n", message);
    }
}

static GLuint buffer(size_t bytes, const char *label) {
    GLuint b;
    glCreateBuffers(1, &b);
    glNamedBufferData(b, (GLsizeiptr)(bytes ? bytes : 16), NULL, GL_DYNAMIC_DRAW);
    glObjectLabel(GL_BUFFER, b, -1, label);
    return b;
}

// The largest agent count the limits allow: a vec4 per agent in one SSBO,
// dispatches within the work-group count limits (two dimensions).
uint32_t boids_gpu_max_agents(void) {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    GLint gx = 0, gy = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &gx);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &gy);
    uint64_t by_block = (uint64_t)block / 16u;
    uint64_t by_groups = (uint64_t)gx * (uint64_t)gy * BOIDS_WORKGROUP_SIZE;
    uint64_t m = by_block < by_groups ? by_block : by_groups;
    if (m > BOIDS_MAX_AGENTS)
        m = BOIDS_MAX_AGENTS;
    return (uint32_t)m;
}

// Program PROG_* k of g (0: not built).
static GLuint program_of(const boids_gpu *g, int k) {
    if (prog_stage[k] >= 0)
        return g->prog[prog_stage[k]];
    if (k == PROG_STEER)
        return g->steer_last ? g->steer_last : g->steer_n ? g->steer[0].prog : 0;
    return k == PROG_SCAN_ADD ? g->prog_scan_add : g->prog_survey;
}

// Marks prog as run in g->dispatched (a program not of the table: nothing).
static void mark_dispatched(boids_gpu *g, GLuint prog) {
    for (int k = 0; k < PROG_N; k++)
        if (prog && program_of(g, k) == prog)
            g->dispatched |= 1u << k;
}

// Work groups for n items, split over x and y beyond 65535 groups.
static void dispatch(boids_gpu *g, GLuint prog, uint32_t n, uint32_t per_group) {
    glUseProgram(prog);
    glUniform1ui(BOIDS_LOC_COUNT, n);
    uint32_t groups = (n + per_group - 1) / per_group;
    if (groups == 0)
        return;
    mark_dispatched(g, prog);
    // Split over y only as much as needed, so few groups are past the end.
    uint32_t gy = (groups + 65534u) / 65535u;
    uint32_t gx = (groups + gy - 1) / gy;
    glDispatchCompute(gx, gy, 1);
}

static void barrier(void) {
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT | GL_UNIFORM_BARRIER_BIT);
}

static void bind_state(boids_gpu *g) {
    const state_buffers *c = &g->state[g->cur], *x = &g->state[1 - g->cur];
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_CUR_POS, c->pos);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_CUR_VEL, c->vel);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_CUR_ID, c->id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_CUR_GROUP, c->group);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_NEXT_POS, x->pos);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_NEXT_VEL, x->vel);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_NEXT_ID, x->id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_NEXT_GROUP, x->group);
}

static void bind_all(boids_gpu *g) {
    bind_state(g);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_KEY, g->key);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_COUNT, g->count);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_START, g->start);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_ACCEL, g->accel);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_NEIGHBORS, g->neighbors);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_NEAREST, g->nearest);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_CANDIDATES, g->candidates);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_FLOW, g->flow);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SLOT_OF, g->slot_of);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_RECORD, g->record);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SURVEY, g->survey);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_CELL_RANK, g->cell_rank);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_UBO_WORLD, g->ubo_world);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_UBO_GROUPS, g->ubo_groups);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_UBO_SCENE, g->ubo_scene);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_UBO_BODIES, g->ubo_bodies);
    if (g->joints)
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_JOINTS, g->joints);
}

static void bodies_pass(boids_gpu *g, bool init);

static void upload_world(boids_gpu *g) {
    g->world_gpu.step = (uint32_t)g->step;
    glNamedBufferSubData(g->ubo_world, 0, sizeof(g->world_gpu), &g->world_gpu);
}

// BOIDS_FAULT's value (NULL or empty: no fault) into kind and step (either
// may be NULL); BOIDS_ERR_ARGUMENT with one line in err for a bad value.
static boids_result parse_fault(const char *v, fault_kind *kind, uint64_t *step, char *err, size_t err_size) {
    fault_kind k = FAULT_NONE;
    unsigned long long at = 0;
    if (v && *v) {
        const char *num = NULL;
        if (strcmp(v, "oom") == 0)
            k = FAULT_OOM;
        else if (strncmp(v, "lost@", 5) == 0)
            k = FAULT_LOST, num = v + 5;
        else if (strncmp(v, "error@", 6) == 0)
            k = FAULT_ERROR, num = v + 6;
        bool ok = k != FAULT_NONE;
        if (ok && num) {
            char *end = NULL;
            errno = 0;
            at = *num >= '0' && *num <= '9' ? strtoull(num, &end, 10) : 0;
            ok = end && *end == '\0' && errno == 0 && at >= 1 && at <= MAX_FAULT_STEP;
        }
        if (!ok) {
            if (err && err_size)
                snprintf(err, err_size,
                         "BOIDS_FAULT: '%s' is not a fault; expected lost@STEP, error@STEP (STEP 1..%llu) or oom", v,
                         MAX_FAULT_STEP);
            return BOIDS_ERR_ARGUMENT;
        }
    }
    if (kind)
        *kind = k;
    if (step)
        *step = at;
    return BOIDS_OK;
}

// Whether the context is lost: the reset status (kept once seen: a driver
// reports a reset once, then GL_NO_ERROR again), or BOIDS_FAULT=lost@STEP
// once STEP steps are done. No GL call after a loss.
static bool gpu_lost(boids_gpu *g) {
    if (g->reset != GL_NO_ERROR)
        return true;
    GLenum status = glGetGraphicsResetStatus();
    if (status == GL_NO_ERROR && g->fault == FAULT_LOST && g->step >= g->fault_step)
        status = GL_UNKNOWN_CONTEXT_RESET;
    if (status != GL_NO_ERROR) {
        g->reset = status;
        g->reset_step = g->step;
    }
    return status != GL_NO_ERROR;
}

// Whether rows * n joints (16 bytes each) fit one storage buffer; if not, a
// line in err naming the largest joint count (and agent count) that would.
static bool joints_fit(uint32_t rows, uint32_t n, char *err, size_t err_size) {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    if ((uint64_t)rows * n * 16u <= (uint64_t)block)
        return true;
    uint64_t max_rows = n ? (uint64_t)block / ((uint64_t)n * 16u) : 0;
    uint64_t max_n = rows ? (uint64_t)block / ((uint64_t)rows * 16u) : 0;
    snprintf(err, err_size,
             "--joints: '%u' joints for %u agents do not fit one GPU buffer (GL_MAX_SHADER_STORAGE_BLOCK_SIZE %lld "
             "bytes, 16 per joint); expected at most %llu joints, or at most %llu agents",
             rows, n, (long long)block, (unsigned long long)max_rows, (unsigned long long)max_n);
    return false;
}

// The shader flags of a kernel.
static unsigned kernel_flags(boids_kernel k) {
    switch (k) {
    case BOIDS_KERNEL_MORTON:
        return BOIDS_SHADER_MORTON;
    default:
        return 0u;
    }
}

// Spread the low 21 bits of v to every third bit (Morton interleave).
static uint64_t spread3(uint64_t v) {
    v &= 0x1fffffu;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

typedef struct morton_cell {
    uint64_t code;
    uint32_t cell;
} morton_cell;

static int morton_less(const void *a, const void *b) {
    const morton_cell *x = a, *y = b;
    return x->code < y->code ? -1 : x->code > y->code;
}

// rank[cell] = the place of each row-major cell in Morton (Z) order of its
// coordinates (x lowest): the cells of every aligned 2^k block are
// consecutive, so the rows of a 3x3(x3) block sit close. NULL without memory.
static uint32_t *morton_ranks(const uint32_t cells[4]) {
    uint32_t total = cells[3];
    morton_cell *m = malloc(((size_t)total + 1) * sizeof *m);
    uint32_t *rank = malloc(((size_t)total + 1) * 4);
    if (!m || !rank) {
        free(m);
        free(rank);
        return NULL;
    }
    for (uint32_t c = 0; c < total; c++) {
        uint64_t x = c % cells[0], y = (c / cells[0]) % cells[1], z = c / ((uint64_t)cells[0] * cells[1]);
        m[c].code = spread3(x) | spread3(y) << 1 | spread3(z) << 2;
        m[c].cell = c;
    }
    qsort(m, total, sizeof *m, morton_less);
    for (uint32_t r = 0; r < total; r++)
        rank[m[r].cell] = r;
    free(m);
    return rank;
}

// See boids/gpu.h.
boids_kernel boids_gpu_kernel(const boids_gpu *g) {
    if (!g)
        return BOIDS_KERNEL_REFERENCE;
    return g->kernel;
}

// See boids/gpu.h.
boids_result boids_gpu_fault_parse(const char *value, char *err, size_t err_size) {
    return parse_fault(value, NULL, NULL, err, err_size);
}

static bool grid_buffers(boids_gpu *g);

// Runs a probe program (rounding_probe.comp) over n vec4
// inputs into n vec4 outputs, through two scratch buffers.
static void run_probe(boids_gpu *g, GLuint prog, const float (*in)[4], float (*out)[4], int n, const char *label) {
    char in_label[64], out_label[64];
    snprintf(in_label, sizeof in_label, "%s in", label);
    snprintf(out_label, sizeof out_label, "%s out", label);
    GLuint bin = buffer((size_t)n * 16, in_label), bout = buffer((size_t)n * 16, out_label);
    glNamedBufferSubData(bin, 0, (GLsizeiptr)n * 16, in);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_IN, bin);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_OUT, bout);
    dispatch(g, prog, (uint32_t)n, BOIDS_WORKGROUP_SIZE);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(bout, 0, (GLsizeiptr)n * 16, out);
    glDeleteBuffers(1, &bin);
    glDeleteBuffers(1, &bout);
}

static float probe_float(uint64_t *x, int lo_exp, int span) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    uint32_t bits = (uint32_t)(127 + lo_exp + (int)((*x >> 40) % (uint64_t)span)) << 23 | (uint32_t)(*x & 0x7fffffu);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

// Are this driver's sqrt and division correctly rounded (the C's results)?
// rounding_probe.comp, compiled with `flags` (the emulations, never
// BOIDS_SHADER_CORRECT), on 2^16 inputs of every magnitude the steps meet
// (2^-40..2^40), against sqrtf and / here. Any difference: false. A probe
// that cannot run: false (the correction is then compiled in: the same bits,
// only slower).
static bool rounding_exact(boids_gpu *g, unsigned flags) {
    enum { PROBES = 1 << 16 };
    float(*in)[4] = malloc(PROBES * 16), (*out)[4] = malloc(PROBES * 16);
    GLuint prog = 0;
    char err[512];
    bool exact = false;
    if (in && out &&
        boids_program_compute(g->shader_dir, "rounding_probe.comp", flags, &prog, err, sizeof err) == BOIDS_OK) {
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < PROBES; i++) {
            in[i][0] = probe_float(&x, -40, 80);
            in[i][1] = probe_float(&x, -20, 40) * ((i & 1) ? -1.0f : 1.0f);
            in[i][2] = probe_float(&x, -20, 40) * ((i & 2) ? -1.0f : 1.0f);
            in[i][3] = 0.0f;
        }
        run_probe(g, prog, (const float(*)[4])in, out, PROBES, "rounding probe");
        exact = true;
        for (int i = 0; i < PROBES && exact; i++) {
            float s = sqrtf(in[i][0]), q = in[i][1] / in[i][2], r = 1.0f / in[i][2];
            exact = memcmp(&s, &out[i][0], 4) == 0 && memcmp(&q, &out[i][1], 4) == 0 && memcmp(&r, &out[i][2], 4) == 0;
        }
        glDeleteProgram(prog);
        g->dispatched = 0; // the probe is no program of the run (boids_gpu_program_stats)
    }
    free(in);
    free(out);
    return exact;
}

// $BOIDS_EMULATE (test-only): a comma-separated list of what GLSL 4.50 lets
// a driver do differently, emulated in every compute shader
// (shaders/emulate.glsl): conv-sat | conv-wrap (out-of-range float ->
// integer through 32 bits), ulp-up | ulp-down (sqrt, inversesqrt and fdiv's
// division 2 ULP off), div-up | div-down (every float division 2 ULP off:
// needs --shader-dir on a copy rewritten by tests/div_rewrite.py), trig (sin,
// cos, tan, asin, acos, atan, log, log2, exp, exp2, pow a few ULP off).
// Unset or empty: none.
static boids_result parse_emulate(const char *v, unsigned *flags, char *err, size_t err_size) {
    static const struct {
        const char *name;
        unsigned flag;
    } items[] = {{"conv-sat", BOIDS_SHADER_EMU_CONV_SAT}, {"conv-wrap", BOIDS_SHADER_EMU_CONV_WRAP},
                 {"ulp-up", BOIDS_SHADER_EMU_ULP_UP},     {"ulp-down", BOIDS_SHADER_EMU_ULP_DOWN},
                 {"div-up", BOIDS_SHADER_EMU_DIV_UP},     {"div-down", BOIDS_SHADER_EMU_DIV_DOWN},
                 {"trig", BOIDS_SHADER_EMU_TRIG}};
    *flags = 0;
    for (const char *p = v ? v : ""; *p;) {
        size_t len = strcspn(p, ",");
        unsigned f = 0;
        for (size_t k = 0; k < sizeof items / sizeof items[0]; k++)
            if (strlen(items[k].name) == len && strncmp(p, items[k].name, len) == 0)
                f = items[k].flag;
        if (!f) {
            snprintf(err, err_size,
                     "BOIDS_EMULATE: '%s' is not a list of emulations; expected conv-sat or conv-wrap, ulp-up or "
                     "ulp-down, div-up or div-down, trig, separated by commas",
                     v);
            return BOIDS_ERR_ARGUMENT;
        }
        *flags |= f;
        p += len + (p[len] == ',');
    }
    static const unsigned pairs[] = {BOIDS_SHADER_EMU_CONV_SAT | BOIDS_SHADER_EMU_CONV_WRAP,
                                     BOIDS_SHADER_EMU_ULP_UP | BOIDS_SHADER_EMU_ULP_DOWN,
                                     BOIDS_SHADER_EMU_DIV_UP | BOIDS_SHADER_EMU_DIV_DOWN};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if ((*flags & pairs[k]) == pairs[k]) {
            snprintf(err, err_size,
                     "BOIDS_EMULATE: '%s' names both ways of one item; expected one of conv-sat, conv-wrap, "
                     "one of ulp-up, ulp-down and one of div-up, div-down",
                     v);
            return BOIDS_ERR_ARGUMENT;
        }
    return BOIDS_OK;
}

// See boids/gpu.h.
// ---- steer programs specialised to the run ----------------------------------

// Keeps the first failed build's message for boids_gpu_check.
static void steer_fail(boids_gpu *g, const char *err) {
    if (!g->steer_error[0])
        snprintf(g->steer_error, sizeof g->steer_error, "%s", err);
}

// Gives v's place in the cache to the last entry (v holds no program).
static void steer_drop(boids_gpu *g, steer_variant *v) {
    *v = g->steer[--g->steer_n];
    memset(&g->steer[g->steer_n], 0, sizeof g->steer[0]);
}

// The cached variant of spec, or NULL.
static steer_variant *steer_find(boids_gpu *g, const boids_steer_spec *spec) {
    for (uint32_t k = 0; k < g->steer_n; k++)
        if (boids_steer_spec_equal(&g->steer[k].spec, spec))
            return &g->steer[k];
    return NULL;
}

// A free place in the cache: a new one, or the least recently used built
// one's (deleted). NULL when every place holds a build in flight.
static steer_variant *steer_place(boids_gpu *g) {
    if (g->steer_n < STEER_CACHE)
        return &g->steer[g->steer_n++];
    steer_variant *old = NULL;
    for (uint32_t k = 0; k < g->steer_n; k++)
        if (g->steer[k].prog && (!old || g->steer[k].used < old->used))
            old = &g->steer[k];
    if (old) {
        if (g->steer_last == old->prog)
            g->steer_last = 0;
        glDeleteProgram(old->prog);
        memset(old, 0, sizeof *old);
    }
    return old;
}

// Builds the steer program of spec into the cache: in the background
// (`background`, where the driver compiles in its own threads: the build is
// left in flight) or now. A failure: err, and the spec holds no place.
static boids_result steer_variant_build(boids_gpu *g, const boids_steer_spec *spec, bool background, char *err,
                                        size_t err_size) {
    if (steer_find(g, spec))
        return BOIDS_OK;
    steer_variant *v = steer_place(g);
    if (!v)
        return BOIDS_OK; // every place building: this spec waits for a later call
    char defines[1024];
    if (!boids_steer_spec_defines(spec, defines, sizeof defines)) {
        snprintf(err, err_size, "steer.comp: the spec's defines exceed %zu bytes", sizeof defines);
        g->steer_n--;
        return BOIDS_ERR_SHADER;
    }
    v->spec = *spec;
    boids_result r = boids_program_compute_start(g->shader_dir, stage_file[STAGE_STEER],
                                                 g->shader_flags | g->kernel_flags, defines, &v->build, err, err_size);
    if (r == BOIDS_OK && !background)
        r = boids_program_build_finish(&v->build, &v->prog, err, err_size);
    if (r != BOIDS_OK) {
        steer_drop(g, v);
        return r;
    }
    g->steer_built++;
    return BOIDS_OK;
}

// The general steer (every behaviour), built now if it is not.
static GLuint steer_general(boids_gpu *g) {
    char err[512] = "";
    boids_result r = BOIDS_OK;
    if (!g->prog[STAGE_STEER] && g->steer_general_build.program)
        r = boids_program_build_finish(&g->steer_general_build, &g->prog[STAGE_STEER], err, sizeof err);
    else if (!g->prog[STAGE_STEER])
        r = boids_program_compute(g->shader_dir, stage_file[STAGE_STEER], g->shader_flags | g->kernel_flags,
                                  &g->prog[STAGE_STEER], err, sizeof err);
    if (r != BOIDS_OK)
        steer_fail(g, err);
    return g->prog[STAGE_STEER];
}

// The steer program for the current parameters: the spec's, built now if
// it is new (or, with background builds, started; the general steer steps
// until it is ready - the same bits). A failed build leaves its error for
// boids_gpu_check and the general steer stepping.
static GLuint steer_program(boids_gpu *g) {
    if (g->steer_general_only)
        return steer_general(g);
    boids_steer_spec spec;
    boids_steer_spec_of(&g->world_gpu, g->p.group, &spec);
    steer_variant *v = steer_find(g, &spec);
    char err[512] = "";
    if (!v) {
        boids_result r = steer_variant_build(g, &spec, g->background, err, sizeof err);
        if (r != BOIDS_OK) {
            steer_fail(g, err);
            return steer_general(g);
        }
        v = steer_find(g, &spec);
        if (!v) // the cache is full of builds in flight
            return steer_general(g);
    }
    if (!v->prog && v->build.program) {
        // Building: ready, or no general steer to step with yet, finishes it.
        bool general = g->prog[STAGE_STEER] ||
                       (g->steer_general_build.program && boids_program_build_ready(&g->steer_general_build));
        if (boids_program_build_ready(&v->build) || !general) {
            boids_result r = boids_program_build_finish(&v->build, &v->prog, err, sizeof err);
            if (r != BOIDS_OK) {
                steer_fail(g, err);
                steer_drop(g, v);
                return steer_general(g);
            }
        } else {
            g->steer_general_steps++;
            return steer_general(g);
        }
    }
    v->used = ++g->steer_uses;
    return v->prog;
}

// See boids/gpu.h.
void boids_gpu_prepare(boids_gpu *g, const boids_group_params group[BOIDS_MAX_GROUPS]) {
    if (!g || !group)
        return;
    if (gpu_lost(g) || !g->background)
        return;
    boids_steer_spec spec;
    boids_steer_spec_of(&g->world_gpu, group, &spec);
    char err[512] = "";
    if (steer_variant_build(g, &spec, true, err, sizeof err) != BOIDS_OK)
        steer_fail(g, err);
}

// See boids/gpu.h.
void boids_gpu_steer_info(const boids_gpu *g, boids_steer_info *out) {
    if (!out)
        return;
    if (!g) {
        memset(out, 0, sizeof *out);
        return;
    }
    memset(out, 0, sizeof *out);
    out->built = g->steer_built;
    out->general_steps = g->steer_general_steps;
    out->background = g->background;
    for (uint32_t k = 0; k < g->steer_n; k++)
        if (g->steer[k].prog && g->steer[k].prog == g->steer_last)
            boids_steer_spec_name(&g->steer[k].spec, out->spec, sizeof out->spec);
}

boids_result boids_gpu_create(boids_gpu **out, const boids_gpu_desc *d, char *err, size_t err_size) {
    if (!out || !d) {
        if (out)
            *out = NULL;
        if (err && err_size)
            snprintf(err, err_size, "boids_gpu_create: %s is NULL; expected where to put the backend and its desc",
                     out ? "desc" : "out");
        return BOIDS_ERR_ARGUMENT;
    }
    *out = NULL;
    fault_kind fault = FAULT_NONE;
    uint64_t fault_step = 0;
    if (parse_fault(getenv("BOIDS_FAULT"), &fault, &fault_step, err, err_size) != BOIDS_OK)
        return BOIDS_ERR_ARGUMENT;
    unsigned emulate = 0;
    if (parse_emulate(getenv("BOIDS_EMULATE"), &emulate, err, err_size) != BOIDS_OK)
        return BOIDS_ERR_ARGUMENT;
    if (!gladLoadGL((GLADloadfunc)d->load)) {
        snprintf(err, err_size, "the OpenGL 4.5 entry points could not be loaded");
        return BOIDS_ERR_GL;
    }
    uint32_t n = d->params->world.count, cells = d->params->world.cells[3];
    uint32_t max = boids_gpu_max_agents();
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    if (n > max) {
        snprintf(err, err_size,
                 "--count: '%u' agents do not fit this GPU (GL_MAX_SHADER_STORAGE_BLOCK_SIZE %lld bytes, 16 per "
                 "agent); expected at most %u",
                 n, (long long)block, max);
        return BOIDS_ERR_GPU_LIMIT;
    }
    if ((uint64_t)(cells + 1) * 4u > (uint64_t)block) {
        snprintf(err, err_size, "the grid of %u cells does not fit one GPU buffer (%lld bytes)", cells,
                 (long long)block);
        return BOIDS_ERR_GPU_LIMIT;
    }
    uint32_t rows = boids_params_joint_rows(d->params);
    if (!joints_fit(rows, n, err, err_size))
        return BOIDS_ERR_GPU_LIMIT;
    boids_gpu *g = calloc(1, sizeof(*g));
    if (!g)
        return BOIDS_ERR_NOMEM;
    g->p = *d->params;
    g->p.flow.vec = NULL;
    g->p.flow.dims[3] = 0;
    g->n = n;
    g->capacity = n;
    g->cells = cells;
    g->quiet = d->quiet;
    g->shader_dir = d->shader_dir;
    // 64-bit integers in the shaders only where the driver says so; else
    // the sums in uint pairs, GLSL 4.50 core (the same bits; BOIDS_NO_INT64=1
    // forces them, for tests).
    const char *no_int64 = getenv("BOIDS_NO_INT64");
    bool want_int64 = !no_int64 || !*no_int64 || strcmp(no_int64, "0") == 0;
    g->shader_flags = (GLAD_GL_ARB_gpu_shader_int64 && want_int64 ? BOIDS_SHADER_INT64 : 0u) | emulate;
    // sqrt and division corrected to the C's where the driver's differ
    // ($BOIDS_CORRECT_ROUNDING=1 or 0 decides instead of the probe).
    const char *correct = getenv("BOIDS_CORRECT_ROUNDING");
    bool exact = correct && *correct ? strcmp(correct, "0") == 0 : rounding_exact(g, g->shader_flags);
    g->shader_flags |= exact ? 0u : BOIDS_SHADER_CORRECT;
    g->kernel = d->kernel;
    g->kernel_flags = kernel_flags(d->kernel);
    if ((unsigned)d->kernel >= BOIDS_KERNEL_KINDS) {
        snprintf(err, err_size, "kernel: %d is not a GPU kernel", (int)d->kernel);
        free(g);
        return BOIDS_ERR_ARGUMENT;
    }
    g->fault = fault;
    g->fault_step = fault_step;
    g->reset = GL_NO_ERROR;
    for (size_t s = 0; s < STAGE_N; s++) {
        if (s == STAGE_STEER) // specialised below
            continue;
        boids_result r = boids_program_compute(d->shader_dir, stage_file[s], g->shader_flags | g->kernel_flags,
                                               &g->prog[s], err, err_size);
        if (r != BOIDS_OK) {
            boids_gpu_destroy(g);
            return r;
        }
    }
    boids_result r = boids_program_compute(d->shader_dir, "scan_add.comp", g->shader_flags | g->kernel_flags,
                                           &g->prog_scan_add, err, err_size);
    if (r == BOIDS_OK)
        r = boids_program_compute(d->shader_dir, "survey.comp", g->shader_flags | g->kernel_flags, &g->prog_survey, err,
                                  err_size);
    // The steer of the first parameters (a shader error shows here, as for
    // every other stage). Background builds where the driver really builds
    // in its own threads - the first build is still in flight right after
    // it started (a driver may offer the extension and build within the
    // calls: Mesa) - and then the general steer starts building too, to
    // step while later specs build.
    if (r == BOIDS_OK) {
        boids_steer_spec spec;
        boids_steer_spec_of(&g->p.world, g->p.group, &spec);
        bool parallel = d->background_builds && boids_program_parallel();
        const char *general = getenv("BOIDS_STEER_GENERAL");
        g->steer_general_only = general && strcmp(general, "1") == 0;
        r = steer_variant_build(g, &spec, parallel, err, err_size);
        if (r == BOIDS_OK && parallel) {
            steer_variant *v = &g->steer[0];
            g->background = !boids_program_build_ready(&v->build);
            r = boids_program_build_finish(&v->build, &v->prog, err, err_size); // the first step needs it
            if (r != BOIDS_OK)
                g->steer_n = 0;
        }
        if (r == BOIDS_OK && g->background)
            r = boids_program_compute_start(d->shader_dir, stage_file[STAGE_STEER], g->shader_flags | g->kernel_flags,
                                            NULL, &g->steer_general_build, err, err_size);
    }
    if (r != BOIDS_OK) {
        boids_gpu_destroy(g);
        return r;
    }

    // Debug output from here on (compile errors were reported with the file),
    // before any allocation, so an out-of-memory is seen too.
    boids_gl_debug_enable(debug_message, NULL, !d->timing);
    gl_quiet = d->quiet;
    gl_silent_errors = d->silent_errors;
    backends_alive++;
    g->alive = true;
    pthread_mutex_lock(&errors_lock);
    g->next_alive = alive_list;
    alive_list = g;
    g->errors_at_create = gl_errors_seen;
    pthread_mutex_unlock(&errors_lock);
    while (glGetError() != GL_NO_ERROR) {
    }
    GLint strategy = 0;
    glGetIntegerv(GL_RESET_NOTIFICATION_STRATEGY, &strategy);
    g->robust = strategy == GL_LOSE_CONTEXT_ON_RESET;

    for (int s = 0; s < 2; s++) {
        g->state[s].pos = buffer((size_t)n * 16, s ? "state B pos" : "state A pos");
        g->state[s].vel = buffer((size_t)n * 16, s ? "state B vel" : "state A vel");
        g->state[s].id = buffer((size_t)n * 4, s ? "state B id" : "state A id");
        g->state[s].group = buffer((size_t)n * 4, s ? "state B group" : "state A group");
    }
    g->key = buffer((size_t)n * 4, "key");
    g->accel = buffer((size_t)n * 16, "accel");
    g->neighbors = buffer((size_t)n * 4, "neighbors");
    g->nearest = buffer((size_t)n * 4, "nearest");
    g->candidates = buffer((size_t)n * 4, "candidates");
    g->slot_of = buffer((size_t)n * 4, "slot of id");
    g->record = buffer(d->params->world.dim == 2 ? (size_t)n * 16 : 16, "cell records");
    g->survey = buffer(16, "survey");
    const GLuint zero = 0;
    glClearNamedBufferData(g->survey, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    if (!grid_buffers(g)) {
        boids_gpu_destroy(g);
        return BOIDS_ERR_NOMEM;
    }

    // Parameters; the flow field only when a group follows it (as the CPU).
    g->world_gpu = g->p.world;
    bool flow = false;
    for (uint32_t i = 0; i < g->p.world.group_count; i++)
        flow = flow || (g->p.group[i].behaviors & BOIDS_BIT(BOIDS_BI_FLOW));
    if (flow && boids_flowfield_build(&g->p.flow, &g->p.world) == BOIDS_OK) {
        g->flow = buffer((size_t)g->p.flow.dims[3] * 16, "flow field");
        glNamedBufferSubData(g->flow, 0, (GLsizeiptr)g->p.flow.dims[3] * 16, g->p.flow.vec);
    } else {
        g->flow = buffer(16, "flow field (none)");
        g->world_gpu.flow_dims[3] = 0;
    }
    glCreateBuffers(1, &g->ubo_world);
    glNamedBufferData(g->ubo_world, sizeof(boids_world_params), NULL, GL_DYNAMIC_DRAW);
    glObjectLabel(GL_BUFFER, g->ubo_world, -1, "world params");
    g->ubo_groups = buffer(sizeof(g->p.group), "group params");
    glNamedBufferSubData(g->ubo_groups, 0, sizeof(g->p.group), g->p.group);
    g->ubo_scene = buffer(sizeof(g->p.scene), "scene");
    glNamedBufferSubData(g->ubo_scene, 0, sizeof(g->p.scene), &g->p.scene);
    g->ubo_bodies = buffer(sizeof(g->p.body), "body params");
    glNamedBufferSubData(g->ubo_bodies, 0, sizeof(g->p.body), g->p.body);
    g->joint_rows = rows;
    if (rows)
        g->joints = buffer((size_t)rows * n * 16, "joints");
    upload_world(g);
    glCreateQueries(GL_TIMESTAMP, TIMER_RING * (STAGE_N + 1), &g->timers[0][0]);
    bool oom = g->fault == FAULT_OOM; // BOIDS_FAULT=oom: as if the driver said so
    for (GLenum e; (e = glGetError()) != GL_NO_ERROR;)
        oom = oom || e == GL_OUT_OF_MEMORY;
    if (oom) {
        snprintf(err, err_size, "--count: '%u' agents: the GPU is out of memory for their buffers", n);
        boids_gpu_destroy(g);
        return BOIDS_ERR_NOMEM;
    }
    *out = g;
    return BOIDS_OK;
}

// Release every GL object.
void boids_gpu_destroy(boids_gpu *g) {
    if (!g)
        return;
    if (g->alive) { // out of the list the callback reads
        pthread_mutex_lock(&errors_lock);
        for (boids_gpu **p = &alive_list; *p; p = &(*p)->next_alive)
            if (*p == g) {
                *p = g->next_alive;
                break;
            }
        pthread_mutex_unlock(&errors_lock);
    }
    if (g->reset != GL_NO_ERROR) { // lost: no GL calls (the context's destruction frees its objects)
        if (g->alive)
            backends_alive--;
        boids_flowfield_free(&g->p.flow);
        free(g->rank_of);
        free(g->cell_of_rank);
        free(g);
        return;
    }
    for (int s = 0; s < 2; s++) {
        GLuint b[] = {g->state[s].pos, g->state[s].vel, g->state[s].id, g->state[s].group};
        glDeleteBuffers(4, b);
    }
    GLuint b[] = {g->key,        g->count,   g->start,     g->accel,      g->neighbors, g->nearest,
                  g->candidates, g->flow,    g->ubo_world, g->ubo_groups, g->ubo_scene, g->ubo_bodies,
                  g->joints,     g->slot_of, g->survey,    g->cell_rank,  g->record};
    glDeleteBuffers((GLsizei)(sizeof(b) / sizeof(b[0])), b);
    glDeleteBuffers(MAX_SCAN_LEVELS, g->scan_sums);
    for (size_t s = 0; s < STAGE_N; s++)
        glDeleteProgram(g->prog[s]);
    for (uint32_t k = 0; k < g->steer_n; k++) {
        glDeleteProgram(g->steer[k].prog);
        if (g->steer[k].build.program) {
            glDeleteShader(g->steer[k].build.shader);
            glDeleteProgram(g->steer[k].build.program);
        }
    }
    if (g->steer_general_build.program) {
        glDeleteShader(g->steer_general_build.shader);
        glDeleteProgram(g->steer_general_build.program);
    }
    glDeleteProgram(g->prog_scan_add);
    glDeleteProgram(g->prog_survey);
    if (g->timers[0][0])
        glDeleteQueries(TIMER_RING * (STAGE_N + 1), &g->timers[0][0]);
    if (g->alive && --backends_alive == 0)
        boids_gl_debug_disable();
    boids_flowfield_free(&g->p.flow);
    free(g->rank_of);
    free(g->cell_of_rank);
    free(g);
}

// New group / scene / target parameters for the same agents and grid (the
// validation switches behaviours on one at a time this way).
void boids_gpu_set_params(boids_gpu *g, const boids_params *p) {
    if (!g || !p)
        return;
    if (gpu_lost(g))
        return;
    memcpy(g->p.group, p->group, sizeof(g->p.group));
    g->p.scene = p->scene;
    // A group that starts following the flow field gets it built now.
    bool flow = false;
    for (uint32_t i = 0; i < g->p.world.group_count; i++)
        flow = flow || (g->p.group[i].behaviors & BOIDS_BIT(BOIDS_BI_FLOW));
    if (flow && !g->p.flow.vec && g->p.flow.dims[3] == 0 &&
        boids_flowfield_build(&g->p.flow, &g->p.world) == BOIDS_OK) {
        glDeleteBuffers(1, &g->flow);
        g->flow = buffer((size_t)g->p.flow.dims[3] * 16, "flow field");
        glNamedBufferSubData(g->flow, 0, (GLsizeiptr)g->p.flow.dims[3] * 16, g->p.flow.vec);
        g->world_gpu.flow_dims[3] = g->p.flow.dims[3];
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_FLOW, g->flow);
    }
    uint32_t flow_total = g->world_gpu.flow_dims[3];
    g->world_gpu = p->world;
    g->world_gpu.flow_dims[3] = flow_total;
    glNamedBufferSubData(g->ubo_groups, 0, sizeof(g->p.group), g->p.group);
    glNamedBufferSubData(g->ubo_scene, 0, sizeof(g->p.scene), &g->p.scene);
    upload_world(g);
}

// The buffers of the grid's cells (count, start, the scan's sums, kernel
// morton's ranks) for g->cells cells: false when out of host memory.
static bool grid_buffers(boids_gpu *g) {
    uint32_t cells = g->cells;
    g->count = buffer(((size_t)cells + 1) * 4, "count");
    g->start = buffer(((size_t)cells + 1) * 4, "start");
    if (g->kernel_flags & BOIDS_SHADER_MORTON) {
        g->rank_of = morton_ranks(g->p.world.cells);
        g->cell_of_rank = malloc(((size_t)cells + 1) * 4);
        if (!g->rank_of || !g->cell_of_rank)
            return false;
        for (uint32_t c = 0; c < cells; c++)
            g->cell_of_rank[g->rank_of[c]] = c;
        g->cell_rank = buffer((size_t)cells * 4, "cell rank (Morton)");
        glNamedBufferSubData(g->cell_rank, 0, (GLsizeiptr)cells * 4, g->rank_of);
    } else {
        g->cell_rank = buffer(16, "cell rank (none)");
    }
    // Scan levels: cells + 1 elements (the extra 0 makes start[cells] = N),
    // then one sum per block, until a single block remains.
    g->scan_levels = 0;
    g->scan_n[0] = cells + 1;
    while (g->scan_levels < MAX_SCAN_LEVELS) {
        uint32_t blocks = (g->scan_n[g->scan_levels] + BOIDS_SCAN_BLOCK - 1) / BOIDS_SCAN_BLOCK;
        g->scan_sums[g->scan_levels] = buffer((size_t)blocks * 4, "scan sums");
        g->scan_n[++g->scan_levels] = blocks;
        if (blocks <= 1)
            break;
    }
    return true;
}

// See boids/gpu.h.
boids_result boids_gpu_set_grid(boids_gpu *g, const boids_params *p, char *err, size_t err_size) {
    if (!g || !p) {
        if (err && err_size)
            snprintf(err, err_size, "boids_gpu_set_grid: %s is NULL; expected a GPU backend and its new params",
                     g ? "params" : "the backend");
        return BOIDS_ERR_ARGUMENT;
    }
    if (gpu_lost(g))
        return BOIDS_ERR_GPU_LOST;
    uint32_t cells = p->world.cells[3];
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    if ((uint64_t)(cells + 1) * 4u > (uint64_t)block) {
        snprintf(err, err_size, "the grid of %u cells does not fit one GPU buffer (%lld bytes)", cells,
                 (long long)block);
        return BOIDS_ERR_GPU_LIMIT;
    }
    GLuint old[] = {g->count, g->start, g->cell_rank};
    glDeleteBuffers(3, old);
    glDeleteBuffers((GLsizei)g->scan_levels, g->scan_sums);
    memset(g->scan_sums, 0, sizeof g->scan_sums);
    free(g->rank_of);
    free(g->cell_of_rank);
    g->rank_of = g->cell_of_rank = NULL;
    boids_world_params *w[2] = {&g->p.world, &g->world_gpu};
    for (int k = 0; k < 2; k++) {
        memcpy(w[k]->cells, p->world.cells, sizeof w[k]->cells);
        memcpy(w[k]->cell, p->world.cell, sizeof w[k]->cell);
        memcpy(w[k]->inv_cell, p->world.inv_cell, sizeof w[k]->inv_cell);
        w[k]->grid_fine = p->world.grid_fine;
    }
    g->cells = cells;
    if (!grid_buffers(g)) {
        snprintf(err, err_size, "the grid of %u cells: out of host memory for kernel %s's ranks", cells,
                 boids_kernel_names[g->kernel]);
        return BOIDS_ERR_NOMEM;
    }
    upload_world(g);
    // Built over cur at once, so start, the counts and the slots agree for
    // any read before the next step (which builds it again).
    boids_gpu_build_grid(g);
    return BOIDS_OK;
}

// See boids/gpu.h.
boids_result boids_gpu_grid_occupancy(boids_gpu *g, double *out) {
    if (!out)
        return BOIDS_ERR_ARGUMENT;
    if (!g) {
        *out = 0.0;
        return BOIDS_ERR_ARGUMENT;
    }
    *out = 0.0;
    if (!g->grid_built)
        return BOIDS_ERR_ARGUMENT;
    if (gpu_lost(g))
        return BOIDS_ERR_GPU_LOST;
    uint32_t *start = malloc(((size_t)g->cells + 1) * 4);
    if (!start)
        return BOIDS_ERR_NOMEM;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(g->start, 0, ((GLsizeiptr)g->cells + 1) * 4, start); // any cell order (Morton too)
    *out = boids_grid_occupancy(&g->world_gpu, start, g->n);
    free(start);
    return BOIDS_OK;
}

// Copy the CPU state (slot order as it is) and the step counter.
void boids_gpu_upload_agents(boids_gpu *g, const boids_sim *s) {
    if (!g || !s)
        return;
    if (gpu_lost(g))
        return;
    state_buffers *c = &g->state[g->cur];
    g->grid_built = false;
    glNamedBufferSubData(c->pos, 0, (GLsizeiptr)g->n * 16, s->cur.pos);
    glNamedBufferSubData(c->vel, 0, (GLsizeiptr)g->n * 16, s->cur.vel);
    glNamedBufferSubData(c->id, 0, (GLsizeiptr)g->n * 4, s->cur.id);
    glNamedBufferSubData(c->group, 0, (GLsizeiptr)g->n * 4, s->cur.group);
    g->step = s->step;
    upload_world(g);
    // The slot of each id, as the scatter stage leaves it.
    uint32_t *slot = malloc(((size_t)g->n + 1) * 4);
    if (slot) {
        memset(slot, 0xff, ((size_t)g->n + 1) * 4); // an id not held (a decomposed rank's): no slot
        for (uint32_t i = 0; i < g->n; i++)
            if (s->cur.id[i] < g->n)
                slot[s->cur.id[i]] = i;
        glNamedBufferSubData(g->slot_of, 0, (GLsizeiptr)g->n * 4, slot);
        free(slot);
    }
}

// The state, and the bodies (copied, or laid straight when the CPU has none of the same rows).
void boids_gpu_upload(boids_gpu *g, const boids_sim *s) {
    if (!g || !s)
        return;
    boids_gpu_upload_agents(g, s);
    if (!g->joints || g->reset != GL_NO_ERROR)
        return;
    if (s->joints && s->joint_rows == g->joint_rows)
        glNamedBufferSubData(g->joints, 0, (GLsizeiptr)g->joint_rows * g->n * 16, s->joints);
    else
        bodies_pass(g, true);
}

// The bodies dispatch (init: lay them straight) over the current state.
static void bodies_pass(boids_gpu *g, bool init) {
    if (!g->joints)
        return;
    bind_all(g);
    glUseProgram(g->prog[STAGE_BODIES]);
    glUniform1ui(BOIDS_LOC_BODIES_INIT, init ? 1u : 0u);
    dispatch(g, g->prog[STAGE_BODIES], g->n, BOIDS_WORKGROUP_SIZE);
    barrier();
}

static void timestamp(boids_gpu *g, int k) {
    glQueryCounter(g->timers[g->step % TIMER_RING][k], GL_TIMESTAMP);
    if (k == STAGE_N)
        g->timer_step[g->step % TIMER_RING] = g->step + 1;
}

// Multi-level exclusive scan of count (cells + 1) into start.
static void scan(boids_gpu *g) {
    for (uint32_t l = 0; l < g->scan_levels; l++) {
        GLuint in = l == 0 ? g->count : g->scan_sums[l - 1];
        GLuint out = l == 0 ? g->start : g->scan_sums[l - 1];
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_IN, in);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_OUT, out);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_SUMS, g->scan_sums[l]);
        dispatch(g, g->prog[STAGE_SCAN], g->scan_n[l], BOIDS_SCAN_BLOCK);
        barrier();
    }
    // Add each level's scanned block sums back, top-down.
    for (uint32_t l = g->scan_levels; l-- > 1;) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_OUT, l == 1 ? g->start : g->scan_sums[l - 2]);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_SUMS, g->scan_sums[l - 1]);
        dispatch(g, g->prog_scan_add, g->scan_n[l - 1], BOIDS_WORKGROUP_SIZE);
        barrier();
    }
}

// key -> count -> scan -> scatter (cur -> next), swap.
void boids_gpu_build_grid(boids_gpu *g) {
    if (!g)
        return;
    const GLuint zero = 0;
    if (g->reset != GL_NO_ERROR) // lost: no GL calls
        return;
    bind_all(g);
    timestamp(g, 0);
    dispatch(g, g->prog[STAGE_KEY], g->n, BOIDS_WORKGROUP_SIZE);
    glClearNamedBufferData(g->count, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    barrier();
    timestamp(g, 1);
    dispatch(g, g->prog[STAGE_COUNT], g->n, BOIDS_WORKGROUP_SIZE);
    barrier();
    timestamp(g, 2);
    scan(g);
    glClearNamedBufferData(g->count, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    barrier();
    timestamp(g, 3);
    dispatch(g, g->prog[STAGE_SCATTER], g->n, BOIDS_WORKGROUP_SIZE);
    barrier();
    g->cur = 1 - g->cur;
    bind_state(g);
    g->grid_built = true;
}

// cur -> accel, next.w (wander angles), neighbour outputs.
void boids_gpu_steer(boids_gpu *g) {
    if (!g)
        return;
    if (g->reset != GL_NO_ERROR)
        return;
    bind_all(g);
    timestamp(g, 4);
    // The heading rules' global survey of the grid's counts, one work group
    // (part of the steer stage's time, as in C).
    if (boids_params_survey(&g->p)) {
        glUseProgram(g->prog_survey);
        glUniform1ui(BOIDS_LOC_COUNT, g->cells);
        glDispatchCompute(1, 1, 1);
        mark_dispatched(g, g->prog_survey);
        barrier();
    }
    GLuint steer = steer_program(g);
    g->steer_last = steer;
    glProgramUniform1ui(steer, BOIDS_LOC_AGENTS, g->n);
    dispatch(g, steer, g->n, BOIDS_WORKGROUP_SIZE);
    barrier();
}

// cur + accel -> next, swap.
void boids_gpu_integrate(boids_gpu *g) {
    if (!g)
        return;
    if (g->reset != GL_NO_ERROR)
        return;
    timestamp(g, 5);
    dispatch(g, g->prog[STAGE_INTEGRATE], g->n, BOIDS_WORKGROUP_SIZE);
    barrier();
    g->cur = 1 - g->cur;
    bind_state(g);
}

// The bodies stage alone (the step times it between timestamps).
void boids_gpu_bodies(boids_gpu *g) {
    if (!g)
        return;
    if (g->reset != GL_NO_ERROR)
        return;
    bodies_pass(g, false);
}

// Read the stage times of the step whose queries are in ring slot k.
static void read_timers(boids_gpu *g, uint64_t k) {
    if (g->timer_step[k % TIMER_RING] != k + 1)
        return; // that step's queries were never issued (e.g. after an upload)
    GLuint *q = g->timers[k % TIMER_RING];
    GLint ready = 0;
    glGetQueryObjectiv(q[STAGE_N], GL_QUERY_RESULT_AVAILABLE, &ready);
    if (!ready)
        return;
    GLuint64 t[STAGE_N + 1];
    for (int k = 0; k <= STAGE_N; k++) {
        glGetQueryObjectui64v(q[k], GL_QUERY_RESULT, &t[k]);
        // Never before the previous boundary (a driver may order them
        // loosely): the stages then sum to the step's span exactly.
        if (k > 0 && t[k] < t[k - 1])
            t[k] = t[k - 1];
    }
    double *ms = &g->last_ms.key;
    for (int k = 0; k < STAGE_N; k++)
        ms[k] = (double)(t[k + 1] - t[k]) * 1e-6;
    g->last_ms.step = (double)(t[STAGE_N] - t[0]) * 1e-6;
    g->timed_steps++;
}

// Collect the stage times of a step TIMER_RING - 1 steps ago if ready
// (never waits: a step's queries are only read once they are available).
static void collect_timers(boids_gpu *g) {
    if (g->step + 1 < TIMER_RING)
        return;
    read_timers(g, g->step + 1 - TIMER_RING);
}

// Wait for the GPU and take the stage times of the last step (benchmarks:
// outside the step, never inside it).
void boids_gpu_finish(boids_gpu *g) {
    if (!g)
        return;
    if (gpu_lost(g))
        return;
    glFinish();
    if (g->step > 0)
        read_timers(g, g->step - 1);
}

// One step of the pipeline; no readback.
void boids_gpu_step(boids_gpu *g) {
    if (!g)
        return;
    if (gpu_lost(g))
        return;
    g->in_step = true;
    upload_world(g);
    boids_gpu_build_grid(g);
    if (g->fault == FAULT_ERROR && g->step + 1 == g->fault_step) // BOIDS_FAULT=error@STEP: a real invalid call
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0xFFFFFFFFu, g->key);
    boids_gpu_steer(g);
    boids_gpu_integrate(g);
    timestamp(g, STAGE_BODIES);
    boids_gpu_bodies(g);
    timestamp(g, STAGE_N);
    collect_timers(g);
    g->step++;
    g->in_step = false;
}

static size_t buffer_info(boids_gpu *g, boids_gpu_buffer which, GLuint *b) {
    const state_buffers *c = &g->state[g->cur];
    size_t n = g->n, cells = (size_t)g->cells + 1;
    // clang-format off
    switch (which) {
    case BOIDS_GPU_POS: *b = c->pos; return n * 16;
    case BOIDS_GPU_VEL: *b = c->vel; return n * 16;
    case BOIDS_GPU_ID: *b = c->id; return n * 4;
    case BOIDS_GPU_GROUP: *b = c->group; return n * 4;
    case BOIDS_GPU_KEY: *b = g->key; return n * 4;
    case BOIDS_GPU_COUNT: *b = g->count; return (cells - 1) * 4;
    case BOIDS_GPU_START: *b = g->start; return cells * 4;
    case BOIDS_GPU_ACCEL: *b = g->accel; return n * 16;
    case BOIDS_GPU_NEIGHBORS: *b = g->neighbors; return n * 4;
    case BOIDS_GPU_NEAREST: *b = g->nearest; return n * 4;
    case BOIDS_GPU_CANDIDATES: *b = g->candidates; return n * 4;
    }
    // clang-format on
    *b = 0;
    return 0;
}

static boids_result grid_counts(boids_gpu *g, uint32_t *count, uint32_t *start);

// Kernel morton: where each slot of the GPU's (Morton) cell order goes in
// row-major cell order (to[n]), and the row-major start (start[cells + 1]).
static boids_result row_major_slots(boids_gpu *g, uint32_t *to, uint32_t *start) {
    uint32_t *sm = malloc(((size_t)g->cells + 1) * 4);
    if (!sm)
        return BOIDS_ERR_NOMEM;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(g->start, 0, ((GLsizeiptr)g->cells + 1) * 4, sm);
    for (uint32_t k = 0; k < g->n; k++)
        to[k] = k;
    uint32_t at = 0;
    for (uint32_t c = 0; c < g->cells; c++) {
        uint32_t r = g->rank_of[c];
        start[c] = at;
        for (uint32_t k = sm[r]; k < sm[r + 1] && k < g->n; k++)
            to[k] = at++;
    }
    start[g->cells] = at;
    free(sm);
    return BOIDS_OK;
}

// Kernel morton: a buffer as the reference kernel lays it out (slots in
// row-major cell order once a grid is built, keys as row-major cells).
static boids_result read_row_major(boids_gpu *g, boids_gpu_buffer which, GLuint b, void *dst, size_t size) {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (which == BOIDS_GPU_KEY || !g->grid_built) { // KEY: in the slot order of the state the grid was built from
        if (size)
            glGetNamedBufferSubData(b, 0, (GLsizeiptr)size, dst);
        if (which == BOIDS_GPU_KEY)
            for (uint32_t k = 0; k < g->n; k++) {
                uint32_t *key = dst;
                key[k] = key[k] < g->cells ? g->cell_of_rank[key[k]] : key[k];
            }
        return BOIDS_OK;
    }
    uint32_t *to = malloc(((size_t)g->n + 1) * 4), *start = malloc(((size_t)g->cells + 1) * 4);
    unsigned char *tmp = malloc(size ? size : 1);
    boids_result r = to && start && tmp ? row_major_slots(g, to, start) : BOIDS_ERR_NOMEM;
    if (r == BOIDS_OK && which == BOIDS_GPU_START) {
        memcpy(dst, start, size);
    } else if (r == BOIDS_OK) {
        size_t elem = g->n ? size / g->n : 0;
        if (size)
            glGetNamedBufferSubData(b, 0, (GLsizeiptr)size, tmp);
        for (uint32_t k = 0; k < g->n; k++)
            memcpy((unsigned char *)dst + (size_t)to[k] * elem, tmp + (size_t)k * elem, elem);
    }
    free(to);
    free(start);
    free(tmp);
    return r;
}

// Read a buffer back (glGetNamedBufferSubData waits for the GPU).
boids_result boids_gpu_read(boids_gpu *g, boids_gpu_buffer which, void *dst, size_t bytes) {
    if (!g || (!dst && bytes))
        return BOIDS_ERR_ARGUMENT;
    GLuint b;
    size_t size = buffer_info(g, which, &b);
    if (!b || bytes != size)
        return BOIDS_ERR_ARGUMENT;
    if (gpu_lost(g))
        return BOIDS_ERR_GPU_LOST;
    if (g->rank_of && which != BOIDS_GPU_COUNT)
        return read_row_major(g, which, b, dst, size);
    if (which == BOIDS_GPU_COUNT && g->kernel != BOIDS_KERNEL_REFERENCE) {
        // Kernel morton: the counts are by rank. The grid's, by row-major
        // cell, from start.
        uint32_t *start = malloc(((size_t)g->cells + 1) * 4);
        boids_result r = start ? grid_counts(g, dst, start) : BOIDS_ERR_NOMEM;
        free(start);
        return r;
    }
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (size)
        glGetNamedBufferSubData(b, 0, (GLsizeiptr)size, dst);
    return BOIDS_OK;
}

// The state in id order.
boids_result boids_gpu_read_state(boids_gpu *g, float (*pos)[4], float (*vel)[4], uint32_t *group) {
    if (!g)
        return BOIDS_ERR_ARGUMENT;
    if (gpu_lost(g))
        return BOIDS_ERR_GPU_LOST;
    size_t n = g->n ? g->n : 1;
    // Only the buffers asked for (and the ids that put them in id order).
    float(*p)[4] = pos ? malloc(n * 16) : NULL, (*v)[4] = vel ? malloc(n * 16) : NULL;
    uint32_t *id = malloc(n * 4), *gr = group ? malloc(n * 4) : NULL;
    boids_result r = (p || !pos) && (v || !vel) && id && (gr || !group) ? BOIDS_OK : BOIDS_ERR_NOMEM;
    // Every read, or none of the destination: a loss between two reads, or
    // an error the debug output reported during them, writes nothing.
    if (r == BOIDS_OK && pos)
        r = boids_gpu_read(g, BOIDS_GPU_POS, p, (size_t)g->n * 16);
    if (r == BOIDS_OK && vel)
        r = boids_gpu_read(g, BOIDS_GPU_VEL, v, (size_t)g->n * 16);
    if (r == BOIDS_OK)
        r = boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)g->n * 4);
    if (r == BOIDS_OK && group)
        r = boids_gpu_read(g, BOIDS_GPU_GROUP, gr, (size_t)g->n * 4);
    if (r == BOIDS_OK)
        r = boids_gpu_check(g, NULL, 0);
    if (r == BOIDS_OK) {
        for (uint32_t i = 0; i < g->n; i++) {
            uint32_t k = id[i] < g->n ? id[i] : 0;
            if (pos)
                memcpy(pos[k], p[i], 16);
            if (vel)
                memcpy(vel[k], v[i], 16);
            if (group)
                group[k] = gr[i];
        }
    }
    free(p);
    free(v);
    free(id);
    free(gr);
    return r;
}

// boids_state_hash of the GPU state in id order.
uint64_t boids_gpu_hash(boids_gpu *g) {
    if (!g)
        return 0;
    size_t n = g->n ? g->n : 1;
    float(*p)[4] = malloc(n * 16), (*v)[4] = malloc(n * 16);
    uint32_t *gr = malloc(n * 4);
    uint64_t h = 0;
    if (p && v && gr && boids_gpu_read_state(g, p, v, gr) == BOIDS_OK) {
        h = boids_state_hash(g->n, (const float(*)[4])p, (const float(*)[4])v, gr);
    }
    free(p);
    free(v);
    free(gr);
    return h;
}

// The last grid's counts by row-major cell (count[cells]) from its start
// (start[cells + 1], by key: kernel morton by rank), which the steps keep.
static boids_result grid_counts(boids_gpu *g, uint32_t *count, uint32_t *start) {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(g->start, 0, ((GLsizeiptr)g->cells + 1) * 4, start);
    for (uint32_t c = 0; c < g->cells; c++) {
        uint32_t k = g->rank_of ? g->rank_of[c] : c;
        count[c] = start[k + 1] - start[k];
    }
    return BOIDS_OK;
}

// The GPU state and per-agent outputs into a CPU simulation of the same
// params, so its statistics, hash and CSV export describe the GPU run.
// Every kernel gives the reference's layout: slots in row-major cell order.
// The state and the candidates into s, and with `outputs` the other
// per-slot outputs and the grid's cells (boids_gpu_download: everything;
// boids_gpu_download_state: what a decomposed rank needs every step).
static boids_result download(boids_gpu *g, boids_sim *s, bool outputs) {
    if (gpu_lost(g)) // s is left as it was
        return BOIDS_ERR_GPU_LOST;
    size_t n = g->n;
    struct {
        boids_gpu_buffer which;
        void *dst;
        size_t bytes;
    } reads[] = {
        {BOIDS_GPU_POS, s->cur.pos, n * 16},
        {BOIDS_GPU_VEL, s->cur.vel, n * 16},
        {BOIDS_GPU_ID, s->cur.id, n * 4},
        {BOIDS_GPU_GROUP, s->cur.group, n * 4},
        {BOIDS_GPU_CANDIDATES, s->candidates, n * 4},
        {BOIDS_GPU_NEIGHBORS, s->neighbors, n * 4}, // outputs from here on
        {BOIDS_GPU_NEAREST, s->nearest, n * 4},
        {BOIDS_GPU_COUNT, s->grid.count, (size_t)g->cells * 4},
        {BOIDS_GPU_START, s->grid.start, ((size_t)g->cells + 1) * 4},
    };
    // A loss between two reads: BOIDS_ERR_GPU_LOST, s partly overwritten.
    size_t reading = outputs ? sizeof reads / sizeof reads[0] : 5;
    for (size_t k = 0; k < reading; k++)
        if (boids_gpu_read(g, reads[k].which, reads[k].dst, reads[k].bytes) != BOIDS_OK)
            return BOIDS_ERR_GPU_LOST;
    // (kernel morton: boids_gpu_read gives the slots in row-major cell order)
    if (outputs && s->joints && s->joint_rows == g->joint_rows &&
        boids_gpu_read_joints(g, s->joints, (size_t)g->joint_rows * n * 16) != BOIDS_OK)
        return BOIDS_ERR_GPU_LOST;
    s->step = g->step;
    s->p.world.step = (uint32_t)g->step;
    if (outputs)
        boids_gpu_stage_ms(g, &s->ms);
    return BOIDS_OK;
}

// See boids/gpu.h.
boids_result boids_gpu_download(boids_gpu *g, boids_sim *s) {
    if (!g || !s)
        return BOIDS_ERR_ARGUMENT;
    return download(g, s, true);
}

// See boids/gpu.h.
boids_result boids_gpu_download_state(boids_gpu *g, boids_sim *s) {
    if (!g || !s)
        return BOIDS_ERR_ARGUMENT;
    return download(g, s, false);
}

// The newest completed stage times.
void boids_gpu_stage_ms(boids_gpu *g, boids_stage_ms *out) {
    if (!out)
        return;
    if (!g) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = g->last_ms;
}

// The GL names of the current state's buffers (for drawing straight from them).
void boids_gpu_state_buffers(const boids_gpu *g, uint32_t *pos, uint32_t *vel, uint32_t *group, uint32_t *neighbors) {
    if (!g || !pos || !vel || !group || !neighbors) {
        if (pos)
            *pos = 0;
        if (vel)
            *vel = 0;
        if (group)
            *group = 0;
        if (neighbors)
            *neighbors = 0;
        return;
    }
    const state_buffers *c = &g->state[g->cur];
    *pos = c->pos;
    *vel = c->vel;
    *group = c->group;
    *neighbors = g->neighbors;
}

uint32_t boids_gpu_debug_errors(const boids_gpu *g) {
    if (!g)
        return 0;
    pthread_mutex_lock(&errors_lock);
    uint32_t n = gl_errors_seen - g->errors_at_create;
    pthread_mutex_unlock(&errors_lock);
    return n;
}

// See boids/gpu.h.
bool boids_gpu_robust(const boids_gpu *g) {
    if (!g)
        return false;
    return g->robust;
}

// The words for a reset status.
static const char *reset_name(GLenum status) {
    switch (status) {
    case GL_GUILTY_CONTEXT_RESET:
        return "guilty reset: this program's GPU work caused it";
    case GL_INNOCENT_CONTEXT_RESET:
        return "innocent reset: caused outside this program";
    default:
        return "unknown reset";
    }
}

// See boids/gpu.h: the reset status first (a lost context's error count
// means nothing), then the debug callback's error count.
boids_result boids_gpu_check(boids_gpu *g, char *err, size_t err_size) {
    if (!g) {
        if (err && err_size)
            snprintf(err, err_size, "boids_gpu_check: the backend is NULL; expected one from boids_gpu_create");
        return BOIDS_ERR_ARGUMENT;
    }
    char scratch[8];
    if (!err || !err_size)
        err = scratch, err_size = sizeof scratch;
    err[0] = '\0';
    if (gpu_lost(g)) {
        snprintf(err, err_size, "the OpenGL context was lost (%s) at step %llu", reset_name(g->reset),
                 (unsigned long long)g->reset_step);
        return BOIDS_ERR_GPU_LOST;
    }
    pthread_mutex_lock(&errors_lock); // a consistent count and first message
    uint32_t errors = gl_errors_seen - g->errors_at_create;
    char first[sizeof g->first_error];
    memcpy(first, g->first_error, sizeof first);
    uint64_t first_step = g->first_error_step;
    bool first_in_step = g->first_error_in_step;
    pthread_mutex_unlock(&errors_lock);
    if (g->steer_error[0]) {
        snprintf(err, err_size, "a specialised steer program failed to build (the general one stepped): %s",
                 g->steer_error);
        return BOIDS_ERR_SHADER;
    }
    if (errors) {
        int len = snprintf(err, err_size, "%u OpenGL error%s reported", errors, errors == 1 ? " was" : "s were");
        if (first[0] && len >= 0 && (size_t)len < err_size)
            snprintf(err + len, err_size - (size_t)len, " %s step %llu, the first: %s", first_in_step ? "at" : "after",
                     (unsigned long long)first_step, first);
        else if (len >= 0 && (size_t)len < err_size)
            snprintf(err + len, err_size - (size_t)len, " by step %llu", (unsigned long long)g->step);
        return BOIDS_ERR_GL_ERRORS;
    }
    return BOIDS_OK;
}
uint64_t boids_gpu_steps(const boids_gpu *g) {
    if (!g)
        return 0;
    return g->step;
}
uint32_t boids_gpu_count(const boids_gpu *g) {
    if (!g)
        return 0;
    return g->n;
}
uint32_t boids_gpu_capacity(const boids_gpu *g) {
    if (!g)
        return 0;
    return g->capacity;
}

// See boids/gpu.h.
boids_result boids_gpu_set_count(boids_gpu *g, uint32_t n) {
    if (!g)
        return BOIDS_ERR_ARGUMENT;
    if (n > g->capacity)
        return BOIDS_ERR_ARGUMENT;
    if (gpu_lost(g))
        return BOIDS_ERR_GPU_LOST;
    g->n = n;
    g->grid_built = false;
    return BOIDS_OK;
}
bool boids_gpu_corrects_rounding(const boids_gpu *g) {
    if (!g)
        return false;
    return (g->shader_flags & BOIDS_SHADER_CORRECT) != 0;
}
bool boids_gpu_int64(const boids_gpu *g) {
    if (!g)
        return false;
    return (g->shader_flags & BOIDS_SHADER_INT64) != 0;
}

// See boids/gpu.h.
uint32_t boids_gpu_id_buffer(const boids_gpu *g) {
    if (!g)
        return 0;
    return g->state[g->cur].id;
}

uint32_t boids_gpu_joint_buffer(const boids_gpu *g, uint32_t *rows) {
    if (!g) {
        if (rows)
            *rows = 0;
        return 0;
    }
    if (rows)
        *rows = g->joint_rows;
    return g->joints;
}

// New body types: checked, the buffer grown (or dropped), every body laid straight.
boids_result boids_gpu_set_bodies(boids_gpu *g, const boids_body_params body[BOIDS_MAX_GROUPS], char *err,
                                  size_t err_size) {
    if (!g || !body) {
        if (err && err_size)
            snprintf(err, err_size, "boids_gpu_set_bodies: %s is NULL; expected a GPU backend and BOIDS_MAX_GROUPS bodies",
                     g ? "body" : "the backend");
        return BOIDS_ERR_ARGUMENT;
    }
    boids_params p = g->p;
    memcpy(p.body, body, sizeof(p.body));
    char what[200];
    for (uint32_t i = 0; i < p.world.group_count; i++)
        if (boids_body_check(&p.body[i], what, sizeof what) != BOIDS_OK) {
            snprintf(err, err_size, "body of group %u: %s", i, what);
            return BOIDS_ERR_BODY;
        }
    if (gpu_lost(g)) {
        snprintf(err, err_size, "the OpenGL context was lost");
        return BOIDS_ERR_GPU_LOST;
    }
    uint32_t rows = boids_params_joint_rows(&p);
    if (rows > g->joint_rows || rows == 0) {
        if (!joints_fit(rows, g->n, err, err_size))
            return BOIDS_ERR_GPU_LIMIT;
        glDeleteBuffers(1, &g->joints);
        g->joints = 0;
        g->joint_rows = 0;
        if (rows) {
            while (glGetError() != GL_NO_ERROR) {
            }
            g->joints = buffer((size_t)rows * g->n * 16, "joints");
            bool oom = g->fault == FAULT_OOM; // BOIDS_FAULT=oom: as if the driver said so
            for (GLenum e; (e = glGetError()) != GL_NO_ERROR;)
                oom = oom || e == GL_OUT_OF_MEMORY;
            if (oom) {
                glDeleteBuffers(1, &g->joints);
                g->joints = 0;
                snprintf(err, err_size, "the GPU is out of memory for %u joints of %u agents", rows, g->n);
                return BOIDS_ERR_NOMEM;
            }
            g->joint_rows = rows;
        }
    }
    memcpy(g->p.body, body, sizeof(g->p.body));
    glNamedBufferSubData(g->ubo_bodies, 0, sizeof(g->p.body), g->p.body);
    bodies_pass(g, true);
    return BOIDS_OK;
}

boids_result boids_gpu_read_joints(boids_gpu *g, float (*joints)[4], size_t bytes) {
    if (!g || (!joints && bytes))
        return BOIDS_ERR_ARGUMENT;
    size_t size = (size_t)g->joint_rows * g->n * 16;
    if (!g->joints || bytes != size)
        return BOIDS_ERR_ARGUMENT;
    if (gpu_lost(g))
        return BOIDS_ERR_GPU_LOST;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(g->joints, 0, (GLsizeiptr)size, joints);
    return BOIDS_OK;
}

// See boids/gpu.h. Each program's binary is read, parsed and freed.
boids_result boids_gpu_program_stats(boids_gpu *g, boids_program_stats out[BOIDS_PROGRAMS_MAX], uint32_t *n) {
    if (!n)
        return BOIDS_ERR_ARGUMENT;
    if (!g || !out) {
        *n = 0;
        return BOIDS_ERR_ARGUMENT;
    }
    *n = 0;
    if (gpu_lost(g))
        return BOIDS_ERR_GPU_LOST;
    for (int k = 0; k < PROG_N; k++) {
        GLuint prog = program_of(g, k);
        if (!prog)
            continue;
        boids_program_stats *s = &out[(*n)++];
        memset(s, 0, sizeof *s);
        s->name = prog_name[k];
        s->shader = prog_shader[k];
        s->dispatched = (g->dispatched >> k) & 1u;
        GLint length = 0;
        glGetProgramiv(prog, GL_PROGRAM_BINARY_LENGTH, &length);
        if (length <= 0) // the driver keeps no binary (GL_NUM_PROGRAM_BINARY_FORMATS 0)
            continue;
        void *binary = malloc((size_t)length);
        if (!binary)
            return BOIDS_ERR_NOMEM;
        GLsizei got = 0;
        GLenum format = 0;
        glGetProgramBinary(prog, length, &got, &format, binary);
        s->binary_bytes = got > 0 ? (uint64_t)got : 0u;
        s->format = got > 0 ? (uint32_t)format : 0u;
        boids_result r = boids_gpu_asm_parse(binary, s->binary_bytes, &s->text);
        free(binary);
        if (r != BOIDS_OK)
            return r;
    }
    return BOIDS_OK;
}
