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

// The cells c-M..c+M of one axis (n cells), computed, not listed: the
// cells (s + q) mod n for q < k (on a torus with at most 2M + 1 cells every
// cell once, s = 0; at a wall those past the end dropped). The same cells
// as grid_axis_cells (C: axis_cells), in another order: the sums are
// integers and every choice is by (d^2, id), so the order does not matter.
struct axis_span {
    uint s, k, n, c;
};

axis_span axis_block(uint c, uint n, bool wrap, uint m) {
    axis_span a;
    a.n = n;
    a.c = c;
    if (wrap && n <= 2u * m + 1u) {
        a.s = 0u;
        a.k = n;
    } else if (wrap) {
        a.s = c >= m ? c - m : c + n - m;
        a.k = 2u * m + 1u;
    } else {
        a.s = c >= m ? c - m : 0u;
        a.k = min(c + m, n - 1u) - a.s + 1u;
    }
    return a;
}

// The q-th cell of the span (s + q < 2n: one subtraction, no %).
uint axis_cell(axis_span a, uint q) {
    uint x = a.s + q;
    return x >= a.n ? x - a.n : x;
}

// C twin: src/core/grid.c boids_grid_axis_rings() (the ring of a cell).
// The ring of cell x: its distance in cells from c (on a torus the shorter way).
uint axis_ring(axis_span a, uint x) {
    uint d = x >= a.c ? x - a.c : a.c - x;
    return WORLD_BOUNDARY == BOIDS_BOUNDARY_WRAP ? min(d, a.n - d) : d;
}
