// src/gpu/gpu_pipeline.c: the pipeline of a step as dispatches with memory
// barriers (key, count, scan, scatter, steer, integrate, bodies; C twin:
// src/core/sim.c boids_sim_step), the buffers bound to the shared.h
// bindings, and timer queries in a ring (read a few steps late, never
// stalling). No readback inside a step.
#include "gpu_internal.h"

const char *const gpu_stage_file[STAGE_N] = {"key.comp",   "count.comp",     "scan.comp",  "scatter.comp",
                                             STEER_SHADER, "integrate.comp", "bodies.comp"};
// The stage of g->prog each PROG_* is (-1: a program of its own field).
static const int prog_stage[PROG_N] = {STAGE_KEY, STAGE_COUNT, STAGE_SCAN,      -1,          STAGE_SCATTER, -1,
                                       -1,        STAGE_STEER, STAGE_INTEGRATE, STAGE_BODIES};

// See gpu_internal.h.
GLuint gpu_program_of(const boids_gpu *g, int k) {
    if (prog_stage[k] >= 0)
        return g->prog[prog_stage[k]];
    if (k == PROG_STEER)
        return g->steer_last ? g->steer_last : g->steer_n ? g->steer[0].prog : 0;
    return k == PROG_SCAN_ADD ? g->prog_scan_add : g->prog_survey;
}

// Marks prog as run in g->dispatched (a program not of the table: nothing).
static void mark_dispatched(boids_gpu *g, GLuint prog) {
    for (int k = 0; k < PROG_N; k++)
        if (prog && gpu_program_of(g, k) == prog)
            g->dispatched |= 1u << k;
}

// See gpu_internal.h.
void gpu_dispatch(boids_gpu *g, GLuint prog, uint32_t n, uint32_t per_group) {
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

// See gpu_internal.h.
void gpu_bind_all(boids_gpu *g) {
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

// See gpu_internal.h.
void gpu_upload_world(boids_gpu *g) {
    g->world_gpu.step = (uint32_t)g->step;
    glNamedBufferSubData(g->ubo_world, 0, sizeof(g->world_gpu), &g->world_gpu);
}

// See gpu_internal.h.
void gpu_bodies_pass(boids_gpu *g, bool init) {
    if (!g->joints)
        return;
    gpu_bind_all(g);
    glUseProgram(g->prog[STAGE_BODIES]);
    glUniform1ui(BOIDS_LOC_BODIES_INIT, init ? 1u : 0u);
    gpu_dispatch(g, g->prog[STAGE_BODIES], g->n, BOIDS_WORKGROUP_SIZE);
    barrier();
}

// Stage boundary k of the step (0: the step's start; k: the end of stage
// k - 1; STAGE_N: the step's end): its timestamp, then the barrier that
// orders the next stage after the one before. The query goes before the
// barrier because a driver may resolve it only when it next flushes:
// llvmpipe runs a dispatch at once, outside its binned commands, and takes a
// timestamp when it flushes them (a memory barrier flushes and waits), or at
// the call when no framebuffer is bound. A query issued before a dispatch
// then took that dispatch's end, and each stage showed the next one's time
// whenever a window or framebuffer was bound (the viewer's scatter held the
// steer). On hardware the timestamp is written once the commands before it
// are done, before or after the barrier alike.
static void boundary(boids_gpu *g, int k) {
    uint64_t slot = g->step % TIMER_RING;
    if (k == 0)
        g->timer_step[slot] = 0; // being rewritten: not a step's until its end
    glQueryCounter(g->timers[slot][k], GL_TIMESTAMP);
    if (k == STAGE_N)
        g->timer_step[slot] = g->step + 1;
    barrier();
}

// Multi-level exclusive scan of count (cells + 1) into start.
static void scan(boids_gpu *g) {
    for (uint32_t l = 0; l < g->scan_levels; l++) {
        GLuint in = l == 0 ? g->count : g->scan_sums[l - 1];
        GLuint out = l == 0 ? g->start : g->scan_sums[l - 1];
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_IN, in);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_OUT, out);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_SUMS, g->scan_sums[l]);
        gpu_dispatch(g, g->prog[STAGE_SCAN], g->scan_n[l], BOIDS_SCAN_BLOCK);
        barrier();
    }
    // Add each level's scanned block sums back, top-down.
    for (uint32_t l = g->scan_levels; l-- > 1;) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_OUT, l == 1 ? g->start : g->scan_sums[l - 2]);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_SUMS, g->scan_sums[l - 1]);
        gpu_dispatch(g, g->prog_scan_add, g->scan_n[l - 1], BOIDS_WORKGROUP_SIZE);
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
    gpu_bind_all(g);
    boundary(g, STAGE_KEY);
    gpu_dispatch(g, g->prog[STAGE_KEY], g->n, BOIDS_WORKGROUP_SIZE);
    glClearNamedBufferData(g->count, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    boundary(g, STAGE_COUNT);
    gpu_dispatch(g, g->prog[STAGE_COUNT], g->n, BOIDS_WORKGROUP_SIZE);
    boundary(g, STAGE_SCAN);
    scan(g);
    glClearNamedBufferData(g->count, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    boundary(g, STAGE_SCATTER);
    gpu_dispatch(g, g->prog[STAGE_SCATTER], g->n, BOIDS_WORKGROUP_SIZE);
    boundary(g, STAGE_STEER);
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
    gpu_bind_all(g);
    // The heading rules' global survey of the grid's counts, one work group
    // (part of the steer stage's time, as in C).
    if (boids_params_survey(&g->p)) {
        glUseProgram(g->prog_survey);
        glUniform1ui(BOIDS_LOC_COUNT, g->cells);
        glDispatchCompute(1, 1, 1);
        mark_dispatched(g, g->prog_survey);
        barrier();
    }
    GLuint steer = gpu_steer_program(g);
    g->steer_last = steer;
    glProgramUniform1ui(steer, BOIDS_LOC_AGENTS, g->n);
    gpu_dispatch(g, steer, g->n, BOIDS_WORKGROUP_SIZE);
    boundary(g, STAGE_INTEGRATE);
}

// cur + accel -> next, swap.
void boids_gpu_integrate(boids_gpu *g) {
    if (!g)
        return;
    if (g->reset != GL_NO_ERROR)
        return;
    gpu_dispatch(g, g->prog[STAGE_INTEGRATE], g->n, BOIDS_WORKGROUP_SIZE);
    boundary(g, STAGE_BODIES);
    g->cur = 1 - g->cur;
    bind_state(g);
}

// The bodies stage alone (the step times it between timestamps).
void boids_gpu_bodies(boids_gpu *g) {
    if (!g)
        return;
    if (g->reset != GL_NO_ERROR)
        return;
    gpu_bodies_pass(g, false);
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
    // No bodies: their stage (the last) spans a barrier and no work; it is 0
    // in every program's times and outside the step's span.
    if (!g->joint_rows)
        t[STAGE_N] = t[STAGE_N - 1];
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
    gpu_upload_world(g);
    boids_gpu_build_grid(g);
    if (g->fault == FAULT_ERROR && g->step + 1 == g->fault_step) // the injected error@STEP: a real invalid call
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0xFFFFFFFFu, g->key);
    boids_gpu_steer(g);
    boids_gpu_integrate(g);
    boids_gpu_bodies(g);
    boundary(g, STAGE_N);
    collect_timers(g);
    g->step++;
    g->in_step = false;
}
