// src/gpu/gpu.c: the compute backend's handle (boids/gpu.h): create in
// phases (the limits, the programs, debug output, the buffers: SoA vec4,
// double-buffered, state A/B bound as cur/next by rebinding), destroy, and
// what changes the GPU's copy of the run: uploads, parameters, the grid,
// the bodies, the agent count. The files below it (gpu_internal.h lists
// them) hold the pipeline, the steer programs, the probes, the read-backs
// and the fault check. Faults: once a loss is seen the backend makes no
// more GL calls: every entry point that needs the context returns,
// downloads fail with BOIDS_ERR_GPU_LOST.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

// The test hooks of d (boids/debug.h): the fault to inject, the emulations'
// shader flags; BOIDS_ERR_ARGUMENT with err naming the field for a bad value.
static boids_result read_hooks(const boids_debug *debug, fault_kind *fault, uint64_t *fault_step, unsigned *emulate,
                               char *err, size_t err_size) {
    if (gpu_parse_fault("debug.fault", debug->fault, fault, fault_step, err, err_size) != BOIDS_OK ||
        gpu_parse_emulate("debug.emulate", debug->emulate, emulate, err, err_size) != BOIDS_OK)
        return BOIDS_ERR_ARGUMENT;
    if ((unsigned)debug->correct_rounding > BOIDS_DEBUG_ROUNDING_OFF) {
        snprintf(err, err_size,
                 "debug.correct_rounding: %d is not a setting; expected BOIDS_DEBUG_ROUNDING_AUTO (0), _ON (1) or "
                 "_OFF (2)",
                 (int)debug->correct_rounding);
        return BOIDS_ERR_ARGUMENT;
    }
    return BOIDS_OK;
}

// The limits of this context for d: the agents (a vec4 each in one storage
// buffer), the grid's cells and the bodies' joints; BOIDS_ERR_GL when the
// GL 4.5 entry points cannot be loaded. err says which limit and the most
// that fits.
static boids_result check_limits(const boids_gpu_desc *d, char *err, size_t err_size) {
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
    if (!gpu_joints_fit(boids_params_joint_rows(d->params), n, err, err_size))
        return BOIDS_ERR_GPU_LIMIT;
    return BOIDS_OK;
}

// A new backend of d's params (no GL objects yet) with its shader flags
// (the rounding probe runs here), kernel and fault; NULL with err and *r
// when out of memory or for a kernel that is none.
static boids_gpu *backend_new(const boids_gpu_desc *d, unsigned emulate, fault_kind fault, uint64_t fault_step,
                              boids_result *r, char *err, size_t err_size) {
    boids_gpu *g = calloc(1, sizeof(*g));
    if (!g) {
        *r = BOIDS_ERR_NOMEM;
        return NULL;
    }
    g->p = *d->params;
    g->p.flow.vec = NULL;
    g->p.flow.dims[3] = 0;
    g->n = d->params->world.count;
    g->capacity = g->n;
    g->cells = d->params->world.cells[3];
    g->quiet = d->quiet;
    g->shader_dir = d->shader_dir;
    gpu_shader_flags(g, emulate, &d->debug);
    g->kernel = d->kernel;
    g->kernel_flags = gpu_kernel_flags(d->kernel);
    if ((unsigned)d->kernel >= BOIDS_KERNEL_KINDS) {
        snprintf(err, err_size, "kernel: %d is not a GPU kernel", (int)d->kernel);
        free(g);
        *r = BOIDS_ERR_ARGUMENT;
        return NULL;
    }
    g->fault = fault;
    g->fault_step = fault_step;
    g->reset = GL_NO_ERROR;
    return g;
}

// Every stage's program but the steer, then the steer of the first
// parameters (a shader error shows here, as for every other stage).
// Background builds where the driver really builds in its own threads -
// the first build is still in flight right after it started (a driver may
// offer the extension and build within the calls: Mesa) - and then the
// general steer starts building too, to step while later specs build.
static boids_result build_programs(boids_gpu *g, const boids_gpu_desc *d, char *err, size_t err_size) {
    unsigned flags = g->shader_flags | g->kernel_flags;
    for (size_t s = 0; s < STAGE_N; s++) {
        if (s == STAGE_STEER) // specialised below
            continue;
        boids_result r = boids_program_compute(d->shader_dir, gpu_stage_file[s], flags, &g->prog[s], err, err_size);
        if (r != BOIDS_OK)
            return r;
    }
    boids_result r = boids_program_compute(d->shader_dir, "scan_add.comp", flags, &g->prog_scan_add, err, err_size);
    if (r == BOIDS_OK)
        r = boids_program_compute(d->shader_dir, "survey.comp", flags, &g->prog_survey, err, err_size);
    if (r != BOIDS_OK)
        return r;
    boids_steer_spec spec;
    boids_steer_spec_of(&g->p.world, g->p.group, &spec);
    bool parallel = d->background_builds && boids_program_parallel();
    g->steer_general_only = d->debug.steer_general;
    r = gpu_steer_build(g, &spec, parallel, err, err_size);
    if (r == BOIDS_OK && parallel) {
        steer_variant *v = &g->steer[0];
        g->background = !boids_program_build_ready(&v->build);
        r = boids_program_build_finish(&v->build, &v->prog, err, err_size); // the first step needs it
        if (r != BOIDS_OK)
            g->steer_n = 0;
    }
    if (r == BOIDS_OK && g->background)
        r = boids_program_compute_start(d->shader_dir, STEER_SHADER, flags, NULL, &g->steer_general_build, err,
                                        err_size);
    return r;
}

// The state (A and B) and the per-agent buffers for n agents, and the
// grid's; false when out of host memory.
static bool agent_buffers(boids_gpu *g, uint32_t n) {
    for (int s = 0; s < 2; s++) {
        g->state[s].pos = gpu_buffer((size_t)n * 16, s ? "state B pos" : "state A pos");
        g->state[s].vel = gpu_buffer((size_t)n * 16, s ? "state B vel" : "state A vel");
        g->state[s].id = gpu_buffer((size_t)n * 4, s ? "state B id" : "state A id");
        g->state[s].group = gpu_buffer((size_t)n * 4, s ? "state B group" : "state A group");
    }
    g->key = gpu_buffer((size_t)n * 4, "key");
    g->accel = gpu_buffer((size_t)n * 16, "accel");
    g->neighbors = gpu_buffer((size_t)n * 4, "neighbors");
    g->nearest = gpu_buffer((size_t)n * 4, "nearest");
    g->candidates = gpu_buffer((size_t)n * 4, "candidates");
    g->slot_of = gpu_buffer((size_t)n * 4, "slot of id");
    g->record = gpu_buffer(g->p.world.dim == 2 ? (size_t)n * 16 : 16, "cell records");
    g->survey = gpu_buffer(16, "survey");
    const GLuint zero = 0;
    glClearNamedBufferData(g->survey, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    return gpu_grid_buffers(g);
}

// The parameters' buffers (the flow field only when a group follows it, as
// the CPU), the joints of `rows` rows, the world uploaded, the timer queries.
static void param_buffers(boids_gpu *g, uint32_t rows) {
    g->world_gpu = g->p.world;
    bool flow = false;
    for (uint32_t i = 0; i < g->p.world.group_count; i++)
        flow = flow || (g->p.group[i].behaviors & BOIDS_BIT(BOIDS_BI_FLOW));
    if (flow && boids_flowfield_build(&g->p.flow, &g->p.world) == BOIDS_OK) {
        g->flow = gpu_buffer((size_t)g->p.flow.dims[3] * 16, "flow field");
        glNamedBufferSubData(g->flow, 0, (GLsizeiptr)g->p.flow.dims[3] * 16, g->p.flow.vec);
    } else {
        g->flow = gpu_buffer(16, "flow field (none)");
        g->world_gpu.flow_dims[3] = 0;
    }
    glCreateBuffers(1, &g->ubo_world);
    glNamedBufferData(g->ubo_world, sizeof(boids_world_params), NULL, GL_DYNAMIC_DRAW);
    glObjectLabel(GL_BUFFER, g->ubo_world, -1, "world params");
    g->ubo_groups = gpu_buffer(sizeof(g->p.group), "group params");
    glNamedBufferSubData(g->ubo_groups, 0, sizeof(g->p.group), g->p.group);
    g->ubo_scene = gpu_buffer(sizeof(g->p.scene), "scene");
    glNamedBufferSubData(g->ubo_scene, 0, sizeof(g->p.scene), &g->p.scene);
    g->ubo_bodies = gpu_buffer(sizeof(g->p.body), "body params");
    glNamedBufferSubData(g->ubo_bodies, 0, sizeof(g->p.body), g->p.body);
    g->joint_rows = rows;
    if (rows)
        g->joints = gpu_buffer((size_t)rows * g->n * 16, "joints");
    gpu_upload_world(g);
    glCreateQueries(GL_TIMESTAMP, TIMER_RING * (STAGE_N + 1), &g->timers[0][0]);
}

// Whether the GL errors since the last drain say out of memory (or the
// injected fault oom says so); the errors are drained.
static bool out_of_memory(const boids_gpu *g) {
    bool oom = g->fault == FAULT_OOM; // the injected oom: as if the driver said so
    for (GLenum e; (e = glGetError()) != GL_NO_ERROR;)
        oom = oom || e == GL_OUT_OF_MEMORY;
    return oom;
}

// See boids/gpu.h. The phases: the test hooks, the limits, the backend and its
// programs, debug output (before any allocation, so an out-of-memory is
// seen too), the buffers.
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
    unsigned emulate = 0;
    boids_result r = read_hooks(&d->debug, &fault, &fault_step, &emulate, err, err_size);
    if (r == BOIDS_OK)
        r = check_limits(d, err, err_size);
    if (r != BOIDS_OK)
        return r;
    boids_gpu *g = backend_new(d, emulate, fault, fault_step, &r, err, err_size);
    if (!g)
        return r;
    if ((r = build_programs(g, d, err, err_size)) != BOIDS_OK) {
        boids_gpu_destroy(g);
        return r;
    }
    // Compile errors were reported with the file; GL errors from here on.
    gpu_errors_attach(g, d->timing, d->quiet, d->silent_errors);
    while (glGetError() != GL_NO_ERROR) {
    }
    GLint strategy = 0;
    glGetIntegerv(GL_RESET_NOTIFICATION_STRATEGY, &strategy);
    g->robust = strategy == GL_LOSE_CONTEXT_ON_RESET;
    if (!agent_buffers(g, g->n)) {
        boids_gpu_destroy(g);
        return BOIDS_ERR_NOMEM;
    }
    param_buffers(g, boids_params_joint_rows(d->params));
    if (out_of_memory(g)) {
        snprintf(err, err_size, "--count: '%u' agents: the GPU is out of memory for their buffers", g->n);
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
    gpu_errors_detach(g);          // out of the list the callback reads
    if (g->reset != GL_NO_ERROR) { // lost: no GL calls (the context's destruction frees its objects)
        gpu_errors_release(g);
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
    gpu_errors_release(g);
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
        g->flow = gpu_buffer((size_t)g->p.flow.dims[3] * 16, "flow field");
        glNamedBufferSubData(g->flow, 0, (GLsizeiptr)g->p.flow.dims[3] * 16, g->p.flow.vec);
        g->world_gpu.flow_dims[3] = g->p.flow.dims[3];
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_FLOW, g->flow);
    }
    uint32_t flow_total = g->world_gpu.flow_dims[3];
    g->world_gpu = p->world;
    g->world_gpu.flow_dims[3] = flow_total;
    glNamedBufferSubData(g->ubo_groups, 0, sizeof(g->p.group), g->p.group);
    glNamedBufferSubData(g->ubo_scene, 0, sizeof(g->p.scene), &g->p.scene);
    gpu_upload_world(g);
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
    if (!gpu_grid_buffers(g)) {
        snprintf(err, err_size, "the grid of %u cells: out of host memory for kernel %s's ranks", cells,
                 boids_kernel_names[g->kernel]);
        return BOIDS_ERR_NOMEM;
    }
    gpu_upload_world(g);
    // Built over cur at once, so start, the counts and the slots agree for
    // any read before the next step (which builds it again).
    boids_gpu_build_grid(g);
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
    gpu_upload_world(g);
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
        gpu_bodies_pass(g, true);
}

// New body types: checked, the buffer grown (or dropped), every body laid straight.
boids_result boids_gpu_set_bodies(boids_gpu *g, const boids_body_params body[BOIDS_MAX_GROUPS], char *err,
                                  size_t err_size) {
    if (!g || !body) {
        if (err && err_size)
            snprintf(err, err_size,
                     "boids_gpu_set_bodies: %s is NULL; expected a GPU backend and BOIDS_MAX_GROUPS bodies",
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
        if (!gpu_joints_fit(rows, g->n, err, err_size))
            return BOIDS_ERR_GPU_LIMIT;
        glDeleteBuffers(1, &g->joints);
        g->joints = 0;
        g->joint_rows = 0;
        if (rows) {
            while (glGetError() != GL_NO_ERROR) {
            }
            g->joints = gpu_buffer((size_t)rows * g->n * 16, "joints");
            if (out_of_memory(g)) {
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
    gpu_bodies_pass(g, true);
    return BOIDS_OK;
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
