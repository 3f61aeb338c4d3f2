// shaders/key.comp: stage 1, each agent's cell. C twin: boids_sim_build_grid
// (key loop) in src/core/sim.c. Kernel morton: the cell's rank in Morton
// order (grid_key_of).
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    uint k = grid_key_of(cur_pos[i].xyz);
    cell_key[i] = k;
}
