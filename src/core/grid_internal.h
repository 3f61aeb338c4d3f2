// src/core/grid_internal.h: the neighbour-cell walk shared by the steer
// stage and the neighbour queries (not public API).
#ifndef BOIDS_GRID_INTERNAL_H
#define BOIDS_GRID_INTERNAL_H

#include "boids/core.h"

// At most 9 rows (3x3 in 3D) of at most 2 runs of consecutive cells.
#define BOIDS_GRID_MAX_RANGES 18

// Integer cell coordinates of a position, wrapped (torus) or clamped.
void boids_grid_coords(const boids_world_params *w, const float pos[3], uint32_t c[3]);
// Slot ranges [r][0], [r][1]) of cur (cell order) covering every distinct cell
// of the 3x3(x3) block around cell c; no cell appears twice.
uint32_t boids_grid_ranges(const boids_world_params *w, const uint32_t *start, const uint32_t c[3],
                           uint32_t ranges[BOIDS_GRID_MAX_RANGES][2]);

// True when no offset to an agent of the 3x3(x3) block around cell c can
// need the minimum-image correction: not a torus, or on every axis with
// extent c is at least one cell from the seam and there are >= 4 cells
// (then |delta| < 2 cells <= size/2, so boids_world_delta subtracts nothing).
static inline bool boids_grid_interior(const boids_world_params *w, const uint32_t c[3]) {
    if (w->boundary != BOIDS_BOUNDARY_WRAP)
        return true;
    for (uint32_t a = 0; a < w->dim; a++)
        if (w->cells[a] < 4 || c[a] == 0 || c[a] + 1 >= w->cells[a])
            return false;
    return true;
}

#endif
