// src/core/grid_internal.h: the neighbour-cell walk shared by the steer
// stage and the neighbour queries (not public API).
#ifndef BOIDS_GRID_INTERNAL_H
#define BOIDS_GRID_INTERNAL_H

#include "boids/core.h"

// The most cells on one axis of a block (c-M..c+M, M <= BOIDS_GRID_FINE_MAX):
// BOIDS_GRID_AXIS_MAX (shared.h).
_Static_assert(BOIDS_GRID_AXIS_MAX == 2 * BOIDS_GRID_FINE_MAX + 1, "a block's axis: c-M..c+M");
// At most (2M+1)^2 rows (3D) of at most 2 runs of consecutive cells.
#define BOIDS_GRID_MAX_RANGES (2 * BOIDS_GRID_AXIS_MAX * BOIDS_GRID_AXIS_MAX)

// Integer cell coordinates of a position, wrapped (torus) or clamped.
void boids_grid_coords(const boids_world_params *w, const float pos[3], uint32_t c[3]);
// Slot ranges [r][0], [r][1]) of cur (cell order) covering every distinct cell
// of the block c-M..c+M per axis around cell c (M = boids_world_grid_fine);
// no cell appears twice.
uint32_t boids_grid_ranges(const boids_world_params *w, const uint32_t *start, const uint32_t c[3],
                           uint32_t ranges[BOIDS_GRID_MAX_RANGES][2]);
// The block's cells of one axis (c of n cells, factor m) in rings: cell[k]
// at ring[k] cells from c (0, then 1, 1, 2, 2, ...: non-decreasing); every
// cell of the block once. The K-nearest search visits the block ring by ring
// (Chebyshev distance = the largest axis ring) to stop early.
uint32_t boids_grid_axis_rings(uint32_t c, uint32_t n, bool wrap, uint32_t m, uint32_t cell[BOIDS_GRID_AXIS_MAX],
                               uint32_t ring[BOIDS_GRID_AXIS_MAX]);

// True when no offset to an agent of the block c-M..c+M around cell c can
// need the minimum-image correction: not a torus, or on every axis with
// extent c is at least M cells from the seam and there are >= 2M + 2 cells
// (then |delta| < M + 1 cells <= size/2, so boids_world_delta subtracts
// nothing).
static inline bool boids_grid_interior(const boids_world_params *w, const uint32_t c[3]) {
    if (w->boundary != BOIDS_BOUNDARY_WRAP)
        return true;
    uint32_t m = boids_world_grid_fine(w);
    for (uint32_t a = 0; a < w->dim; a++)
        if (w->cells[a] < 2 * m + 2 || c[a] < m || c[a] + m >= w->cells[a])
            return false;
    return true;
}

#endif
