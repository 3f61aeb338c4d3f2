// shaders/key.comp: stage 1, each agent's cell. C twin: boids_sim_build_grid
// (key loop) in src/core/sim.c.
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    cell_key[i] = grid_cell_of(cur_pos[i].xyz);
}
