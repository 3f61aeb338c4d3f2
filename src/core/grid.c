// src/core/grid.c: the uniform grid (Reynolds' bin-lattice, Nature of Code 5
// "Spatial Subdivisions") built by counting sort: key -> count -> exclusive
// scan -> scatter into cell order. GLSL twins: shaders/key.comp,
// count.comp, scan.comp, scatter.comp.
#include <math.h>
#include <string.h>

#include "boids/behaviors.h"
#include "grid_internal.h"

// One axis: floor((p - min) / cell) in integers, then wrapped (torus) or
// clamped (walls, bounce) explicitly, never through a negative % or a
// negative float -> unsigned conversion.
static uint32_t axis_coord(float p, float lo, float inv, uint32_t n, bool wrap) {
    float f = floorf((p - lo) * inv);
    if (!(f > -1e9f)) // NaN or hugely negative
        f = -1e9f;
    if (f > 1e9f)
        f = 1e9f;
    int64_t i = (int64_t)f;
    if (wrap) {
        int64_t m = (int64_t)n;
        if (i >= 0 && i < m) // inside the world (nearly always): i % m is i, no division
            return (uint32_t)i;
        if (i < 0)
            i += m * ((-i) / m + 1); // now non-negative
        return (uint32_t)(i % m);
    }
    if (i < 0)
        return 0;
    if (i >= (int64_t)n)
        return n - 1;
    return (uint32_t)i;
}

// Integer cell coordinates of a position.
void boids_grid_coords(const boids_world_params *w, const float pos[3], uint32_t c[3]) {
    bool wrap = w->boundary == BOIDS_BOUNDARY_WRAP;
    for (int a = 0; a < 3; a++)
        c[a] = w->cells[a] > 1 ? axis_coord(pos[a], w->min[a], w->inv_cell[a], w->cells[a], wrap) : 0;
}

// The linear cell index (x fastest) of a position: the sort key.
uint32_t boids_grid_cell_of(const boids_world_params *w, const float pos[4]) {
    uint32_t c[3];
    boids_grid_coords(w, pos, c);
    return (c[2] * w->cells[1] + c[1]) * w->cells[0] + c[0];
}

// The distinct cells c-M..c+M on one axis in ascending order (M the grid's
// fine factor, 1: c-1, c, c+1): wrapped on a torus (with at most 2M + 1
// cells each cell once), dropped at a wall. Returns how many (<= 2M + 1).
static uint32_t axis_cells(uint32_t c, uint32_t n, bool wrap, uint32_t m, uint32_t out[BOIDS_GRID_AXIS_MAX]) {
    if (c >= m && c + m < n) { // away from both ends: the same in every mode
        for (uint32_t i = 0; i <= 2 * m; i++)
            out[i] = c - m + i;
        return 2 * m + 1;
    }
    if (wrap && n <= 2 * m + 1) {
        for (uint32_t i = 0; i < n; i++)
            out[i] = i;
        return n;
    }
    uint32_t k = 0;
    if (wrap) {
        // Across the seam: (c + d) mod n for d = -m..m (n > 2m + 1: all
        // distinct), sorted ascending so consecutive cells merge into one run.
        for (uint32_t d = 0; d <= 2 * m; d++) {
            uint32_t v = (uint32_t)(((int64_t)c - m + d + n) % n), q = k++;
            for (; q > 0 && out[q - 1] > v; q--)
                out[q] = out[q - 1];
            out[q] = v;
        }
        return k;
    }
    for (uint32_t i = c >= m ? c - m : 0; i <= c + m && i < n; i++)
        out[k++] = i;
    return k;
}

// Slot ranges of the block of (2M+1)^2 (2D) or (2M+1)^3 (3D) cells around c:
// per (z, y) row, runs of consecutive x cells are one contiguous slot range
// in cell order.
uint32_t boids_grid_ranges(const boids_world_params *w, const uint32_t *start, const uint32_t c[3],
                           uint32_t ranges[BOIDS_GRID_MAX_RANGES][2]) {
    bool wrap = w->boundary == BOIDS_BOUNDARY_WRAP;
    uint32_t m = boids_world_grid_fine(w);
    uint32_t xs[BOIDS_GRID_AXIS_MAX], ys[BOIDS_GRID_AXIS_MAX], zs[BOIDS_GRID_AXIS_MAX];
    uint32_t nx = axis_cells(c[0], w->cells[0], wrap, m, xs);
    uint32_t ny = axis_cells(c[1], w->cells[1], wrap, m, ys);
    uint32_t nz = axis_cells(c[2], w->cells[2], wrap, m, zs);
    uint32_t count = 0;
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t j = 0; j < ny; j++) {
            uint32_t row = (zs[k] * w->cells[1] + ys[j]) * w->cells[0];
            uint32_t i = 0;
            while (i < nx) {
                uint32_t first = xs[i];
                while (i + 1 < nx && xs[i + 1] == xs[i] + 1)
                    i++;
                uint32_t a = start[row + first], b = start[row + xs[i] + 1];
                if (b > a) {
                    ranges[count][0] = a;
                    ranges[count][1] = b;
                    count++;
                }
                i++;
            }
        }
    return count;
}

// The block's cells on one axis by ring (see grid_internal.h): the cell c
// first, then c-1, c+1, c-2, c+2, ... each with its distance in cells (on a
// torus with at most 2M + 1 cells: every cell once, at its distance the
// shorter way round); at a wall the cells past the end are dropped.
uint32_t boids_grid_axis_rings(uint32_t c, uint32_t n, bool wrap, uint32_t m, uint32_t cell[BOIDS_GRID_AXIS_MAX],
                               uint32_t ring[BOIDS_GRID_AXIS_MAX]) {
    uint32_t k = 0;
    if (n <= 1) {
        cell[0] = 0;
        ring[0] = 0;
        return 1;
    }
    bool whole = wrap && n <= 2 * m + 1;
    for (uint32_t d = 0; d <= m; d++)
        for (int side = 0; side < (d ? 2 : 1); side++) {
            int64_t i = side ? (int64_t)c + d : (int64_t)c - d;
            if (wrap) {
                i = ((i % (int64_t)n) + n) % (int64_t)n;
                if (whole) { // each cell once: at its first (shortest) distance
                    bool seen = false;
                    for (uint32_t q = 0; q < k; q++)
                        seen = seen || cell[q] == (uint32_t)i;
                    if (seen)
                        continue;
                }
            } else if (i < 0 || i >= (int64_t)n) {
                continue;
            }
            cell[k] = (uint32_t)i;
            ring[k] = d;
            k++;
        }
    return k;
}

// See boids/core.h.
double boids_grid_occupancy(const boids_world_params *w, const uint32_t *start, uint32_t n) {
    if (n == 0)
        return 0.0;
    double sq = 0.0;
    for (uint32_t c = 0; c < w->cells[3]; c++) {
        double k = (double)(start[c + 1] - start[c]);
        sq += k * k;
    }
    return boids_grid_occupancy_sum(w, sq, n);
}

// See boids/core.h.
double boids_grid_occupancy_sum(const boids_world_params *w, double sq, uint32_t n) {
    if (n == 0)
        return 0.0;
    double vol = 1.0, reach = 1.0;
    for (uint32_t a = 0; a < w->dim; a++) {
        vol *= (double)w->cell[a];
        reach *= (double)w->max_radius;
    }
    return sq / n * (reach / vol);
}

// 1 if j is a neighbour of slot (j != slot, 0 < |delta|^2 < r2), written to
// out[found] while there is room; else 0.
static uint32_t keep_pair(const boids_sim *s, uint32_t slot, uint32_t j, float r2, uint32_t *out, uint32_t cap,
                          uint32_t found) {
    if (j == slot)
        return 0;
    float d[3];
    boids_world_delta(&s->p.world, s->cur.pos[slot], s->cur.pos[j], d);
    float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (!(d2 > 0.0f && d2 < r2))
        return 0;
    if (found < cap)
        out[found] = j;
    return 1;
}

// Neighbours of `slot` through the grid: every j != slot with
// 0 < |delta|^2 < radius^2 (radius <= the cell size).
uint32_t boids_grid_neighbors(const boids_sim *s, uint32_t slot, float radius, uint32_t *out, uint32_t cap) {
    const boids_world_params *w = &s->p.world;
    uint32_t c[3], ranges[BOIDS_GRID_MAX_RANGES][2];
    boids_grid_coords(w, s->cur.pos[slot], c);
    uint32_t nr = boids_grid_ranges(w, s->grid.start, c, ranges), found = 0;
    float r2 = radius * radius;
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t j = ranges[r][0]; j < ranges[r][1]; j++) {
            found += keep_pair(s, slot, j, r2, out, cap, found);
        }
    return found;
}

// The O(N^2) reference of the neighbour search (tests only).
uint32_t boids_brute_neighbors(const boids_sim *s, uint32_t slot, float radius, uint32_t *out, uint32_t cap) {
    float r2 = radius * radius;
    uint32_t found = 0;
    for (uint32_t j = 0; j < s->n; j++) {
        found += keep_pair(s, slot, j, r2, out, cap, found);
    }
    return found;
}

// See boids/core.h (the GPU kernels; --kernel's names).
const char *const boids_kernel_names[BOIDS_KERNEL_KINDS + 1] = {"reference", "morton", NULL};
