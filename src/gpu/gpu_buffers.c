// src/gpu/gpu_buffers.c: the backend's buffers: labelled allocation, the
// grid's cell buffers (counts, starts, the scan's levels, kernel morton's
// ranks of the cells) and whether the bodies' joints fit the GPU's limits.
#include <stdio.h>
#include <stdlib.h>

#include "gpu_internal.h"

// See gpu_internal.h.
GLuint gpu_buffer(size_t bytes, const char *label) {
    GLuint b;
    glCreateBuffers(1, &b);
    glNamedBufferData(b, (GLsizeiptr)(bytes ? bytes : 16), NULL, GL_DYNAMIC_DRAW);
    glObjectLabel(GL_BUFFER, b, -1, label);
    return b;
}

// See gpu_internal.h.
bool gpu_joints_fit(uint32_t rows, uint32_t n, char *err, size_t err_size) {
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

// See gpu_internal.h.
unsigned gpu_kernel_flags(boids_kernel k) {
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

// See gpu_internal.h.
bool gpu_grid_buffers(boids_gpu *g) {
    uint32_t cells = g->cells;
    g->count = gpu_buffer(((size_t)cells + 1) * 4, "count");
    g->start = gpu_buffer(((size_t)cells + 1) * 4, "start");
    if (g->kernel_flags & BOIDS_SHADER_MORTON) {
        g->rank_of = morton_ranks(g->p.world.cells);
        g->cell_of_rank = malloc(((size_t)cells + 1) * 4);
        if (!g->rank_of || !g->cell_of_rank)
            return false;
        for (uint32_t c = 0; c < cells; c++)
            g->cell_of_rank[g->rank_of[c]] = c;
        g->cell_rank = gpu_buffer((size_t)cells * 4, "cell rank (Morton)");
        glNamedBufferSubData(g->cell_rank, 0, (GLsizeiptr)cells * 4, g->rank_of);
    } else {
        g->cell_rank = gpu_buffer(16, "cell rank (none)");
    }
    // Scan levels: cells + 1 elements (the extra 0 makes start[cells] = N),
    // then one sum per block, until a single block remains.
    g->scan_levels = 0;
    g->scan_n[0] = cells + 1;
    while (g->scan_levels < MAX_SCAN_LEVELS) {
        uint32_t blocks = (g->scan_n[g->scan_levels] + BOIDS_SCAN_BLOCK - 1) / BOIDS_SCAN_BLOCK;
        g->scan_sums[g->scan_levels] = gpu_buffer((size_t)blocks * 4, "scan sums");
        g->scan_n[++g->scan_levels] = blocks;
        if (blocks <= 1)
            break;
    }
    return true;
}
