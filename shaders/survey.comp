// shaders/survey.comp: the heading rules' global survey (the angle-bug
// post's third rule: "survey all the boids on the canvas, figure out where
// the highest population of boids is"). C twin: src/core/rules.c
// boids_survey().
// One work group: each invocation walks the cells i, i + 256, ... and keeps
// the one whose block (the cell and its neighbours, as the steer stage's
// 3x3(x3), wrapped on a torus, cut at walls, each cell once) holds the most
// agents (counts from the scan: cell_start[c + 1] - cell_start[c]); then a
// reduction in shared memory. Most agents first, ties to the lowest cell
// index: a total order, so the answer is the C loop's whatever the order.
// Writes survey[0] = that cell, survey[1] = its block's agents.
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

shared uint best_cell[BOIDS_WORKGROUP_SIZE];
shared uint best_n[BOIDS_WORKGROUP_SIZE];

// The agents of the block around cell c.
uint block_count(uint cell) {
    uvec3 c = uvec3(cell % world.cells.x, (cell / world.cells.x) % world.cells.y, cell / (world.cells.x * world.cells.y));
    bool wrap = WORLD_BOUNDARY == BOIDS_BOUNDARY_WRAP;
    // The survey's blocks are 3x3 of reach-wide cells: finalize keeps M = 1
    // (grid_fine() is 1) whenever a group needs the survey.
    axis_span ax = axis_block(c.x, world.cells.x, wrap, 1u);
    axis_span ay = axis_block(c.y, world.cells.y, wrap, 1u);
    axis_span az = axis_block(c.z, world.cells.z, wrap, 1u);
    uint n = 0u;
    for (uint k = 0u; k < az.k; k++)
        for (uint j = 0u; j < ay.k; j++)
            for (uint i = 0u; i < ax.k; i++) {
                uint q = (axis_cell(az, k) * world.cells.y + axis_cell(ay, j)) * world.cells.x + axis_cell(ax, i);
                uint r = grid_rank(q); // kernel morton: counts in Morton order
                n += cell_start[r + 1u] - cell_start[r];
            }
    return n;
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint bc = 0u, bn = 0u;
    for (uint cell = lid; cell < world.cells.w; cell += BOIDS_WORKGROUP_SIZE) {
        uint n = block_count(cell);
        if (n > bn) { // cells ascend per invocation: a tie keeps the lower
            bn = n;
            bc = cell;
        }
    }
    best_cell[lid] = bc;
    best_n[lid] = bn;
    barrier();
    for (uint half_size = BOIDS_WORKGROUP_SIZE / 2u; half_size > 0u; half_size /= 2u) {
        if (lid < half_size) {
            uint oc = best_cell[lid + half_size], on = best_n[lid + half_size];
            if (on > best_n[lid] || (on == best_n[lid] && oc < best_cell[lid])) {
                best_n[lid] = on;
                best_cell[lid] = oc;
            }
        }
        barrier();
    }
    if (lid == 0u) {
        survey[0] = best_cell[0];
        survey[1] = best_n[0];
    }
}
