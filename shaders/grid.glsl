// shaders/grid.glsl: the uniform grid's cell of a position and the distinct
// neighbour cells of an axis. C twin: src/core/grid.c (axis_coord,
// boids_grid_coords, boids_grid_cell_of, axis_cells).

// floor((p - min) * inv_cell) in integers, then wrapped (torus) or clamped
// explicitly: never a negative % or a negative float -> uint conversion.
// 32-bit integers (the C's are 64-bit; the clamp to +-1e9 makes them equal).
uint grid_axis_coord(float p, float lo, float inv, uint n, bool wrap) {
    // precise: the same operations in key, steer, survey and integrate (a
    // driver may otherwise fold them differently in each program, and an
    // agent on a cell's edge would be keyed into one cell and sought in
    // another)
    precise float d = p - lo;
    precise float f = floor(d * inv);
    if (isnan(f) || !(f > -1e9))
        f = -1e9;
    if (f > 1e9)
        f = 1e9;
    int i = int(f); // |f| <= 1e9 < 2^31
    if (wrap) { // the C's i + m ((-i) / m + 1), then % m: the non-negative residue
        if (i < 0)
            return n - 1u - uint(-(i + 1)) % n;
        return uint(i) % n;
    }
    if (i < 0)
        return 0u;
    if (uint(i) >= n)
        return n - 1u;
    return uint(i);
}

uvec3 grid_coords(vec3 pos) {
    bool wrap = WORLD_BOUNDARY == BOIDS_BOUNDARY_WRAP;
    uvec3 c = uvec3(0u);
    for (int a = 0; a < 3; a++)
        c[a] = world.cells[a] > 1u ? grid_axis_coord(pos[a], world.min[a], world.inv_cell[a], world.cells[a], wrap) : 0u;
    return c;
}

uint grid_cell_of(vec3 pos) {
    uvec3 c = grid_coords(pos);
    return (c.z * world.cells.y + c.y) * world.cells.x + c.x;
}

// Where a (row-major) cell's count and start are: its rank in Morton order
// (kernel morton), else the cell itself.
uint grid_rank(uint cell) {
#if defined(BOIDS_HAS_CELL_RANK)
    return cell_rank[cell];
#else
    return cell;
#endif
}

// The key of a position: the index of its cell's count and start.
uint grid_key_of(vec3 pos) { return grid_rank(grid_cell_of(pos)); }

// C twin: src/core/core.h boids_world_grid_fine().
// The finer grid's factor M (world.grid_fine's low bits; 0 is 1).
uint grid_fine() {
#if defined(BOIDS_SPEC_FINE)
    return BOIDS_SPEC_FINE; // a specialised steer program (common.glsl)
#else
    uint m = world.grid_fine & BOIDS_GRID_FINE_MASK;
    return m != 0u ? m : 1u;
#endif
}

// C twin: src/core/grid.c axis_cells().
// The distinct cells c-M..c+M of one axis, ascending (wrapped on a torus,
// with at most 2M + 1 cells each cell once; dropped at a wall); returns how many.
uint grid_axis_cells(uint c, uint n, bool wrap, uint m, out uint cells[BOIDS_GRID_AXIS_MAX]) {
    for (int i = 0; i < BOIDS_GRID_AXIS_MAX; i++)
        cells[i] = 0u;
    if (c >= m && c + m < n) { // away from both ends: the same in every mode
        for (uint i = 0u; i <= 2u * m; i++)
            cells[i] = c - m + i;
        return 2u * m + 1u;
    }
    if (wrap && n <= 2u * m + 1u) {
        for (uint i = 0u; i < n; i++)
            cells[i] = i;
        return n;
    }
    uint k = 0u;
    if (wrap) {
        // Across the seam: (c + d) mod n for d = -m..m (all distinct),
        // sorted ascending so consecutive cells merge into one run.
        for (uint d = 0u; d <= 2u * m; d++) {
            uint v = (c + n - m + d) % n, q = k++;
            for (; q > 0u && cells[q - 1u] > v; q--)
                cells[q] = cells[q - 1u];
            cells[q] = v;
        }
        return k;
    }
    for (uint i = c >= m ? c - m : 0u; i <= c + m && i < n; i++)
        cells[k++] = i;
    return k;
}

// C twin: src/core/grid.c boids_grid_axis_rings().
// The block's cells of one axis by ring: c first, then c-1, c+1, c-2, c+2,
// ... each with its distance in cells (on a torus with at most 2M + 1 cells
// every cell once, at its shorter distance; at a wall those past the end
// dropped); returns how many.
uint grid_axis_rings(uint c, uint n, bool wrap, uint m, out uint cell[BOIDS_GRID_AXIS_MAX],
                     out uint ring[BOIDS_GRID_AXIS_MAX]) {
    for (int i = 0; i < BOIDS_GRID_AXIS_MAX; i++) {
        cell[i] = 0u;
        ring[i] = 0u;
    }
    if (n <= 1u)
        return 1u;
    bool whole = wrap && n <= 2u * m + 1u;
    uint k = 0u;
    for (uint d = 0u; d <= m; d++)
        for (uint side = 0u; side < (d != 0u ? 2u : 1u); side++) {
            int i = side != 0u ? int(c) + int(d) : int(c) - int(d);
            if (wrap) {
                i = int(uint(i + int(n * (m + 1u))) % n); // non-negative first: GLSL's % of a negative is undefined
                bool seen = false;
                for (uint q = 0u; whole && q < k; q++)
                    seen = seen || cell[q] == uint(i);
                if (seen)
                    continue;
            } else if (i < 0 || i >= int(n)) {
                continue;
            }
            cell[k] = uint(i);
            ring[k] = d;
            k++;
        }
    return k;
}
