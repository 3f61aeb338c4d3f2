// src/gpu/gpu_read.c: explicit read-back (glGetNamedBufferSubData waits
// for the GPU; never inside a step): a buffer (kernel morton's in the
// reference's layout), the state in id order, its hash, the download into
// a CPU sim, the stage times, the GL names the viewer draws from, and the
// compute programs' binaries. After a loss every read returns
// BOIDS_ERR_GPU_LOST and leaves its destination as it was.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

// Each PROG_*'s name ("steer": the specialised steer program of the last
// dispatch; "steer_general": the general one, where it was built) and file.
static const char *const prog_name[PROG_N] = {"key",    "count", "scan",          "scan_add",  "scatter",
                                              "survey", "steer", "steer_general", "integrate", "bodies"};
static const char *const prog_shader[PROG_N] = {"key.comp",       "count.comp",  "scan.comp",  "scan_add.comp",
                                                "scatter.comp",   "survey.comp", STEER_SHADER, STEER_SHADER,
                                                "integrate.comp", "bodies.comp"};

// The GL name of `which` (the current state's for pos, vel, id, group) into
// *b and its size in bytes (0 and *b 0: no such buffer).
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
        GLuint prog = gpu_program_of(g, k);
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

// See boids/gpu.h.
boids_kernel boids_gpu_kernel(const boids_gpu *g) {
    if (!g)
        return BOIDS_KERNEL_REFERENCE;
    return g->kernel;
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
