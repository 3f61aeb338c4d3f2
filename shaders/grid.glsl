// shaders/grid.glsl: the uniform grid's cell of a position and the distinct
// neighbour cells of an axis. C twin: src/core/grid.c (axis_coord,
// boids_grid_coords, boids_grid_cell_of, axis_cells).

// floor((p - min) * inv_cell) in integers, then wrapped (torus) or clamped
// explicitly: never a negative % or a negative float -> uint conversion.
// 32-bit integers (the C's are 64-bit; the clamp to +-1e9 makes them equal).
uint grid_axis_coord(float p, float lo, float inv, uint n, bool wrap) {
    float f = floor((p - lo) * inv);
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
    bool wrap = world.boundary == BOIDS_BOUNDARY_WRAP;
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

// The distinct cells c-1, c, c+1 of one axis, ascending; returns how many.
uint grid_axis_cells(uint c, uint n, bool wrap, out uint cells[3]) {
    cells[0] = cells[1] = cells[2] = 0u;
    if (wrap && n <= 3u) {
        for (uint i = 0u; i < n; i++)
            cells[i] = i;
        return n;
    }
    if (wrap) {
        uint lo = c == 0u ? n - 1u : c - 1u, hi = c + 1u == n ? 0u : c + 1u;
        cells[0] = min(lo, min(c, hi));
        cells[2] = max(lo, max(c, hi));
        cells[1] = lo + c + hi - cells[0] - cells[2];
        return 3u;
    }
    uint k = 0u;
    if (c > 0u)
        cells[k++] = c - 1u;
    cells[k++] = c;
    if (c + 1u < n)
        cells[k++] = c + 1u;
    return k;
}
