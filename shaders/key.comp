// shaders/key.comp: stage 1, each agent's cell. C twin: boids_sim_build_grid
// (key loop) in src/core/sim.c. Kernel morton: the cell's rank in Morton
// order (grid_key_of). Kernel fused: also stage 2 (the count, atomicAdd into
// cell_count, cleared by the host), so the count pass is not dispatched.
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    uint k = grid_key_of(cur_pos[i].xyz);
    cell_key[i] = k;
#if defined(BOIDS_KERNEL_FUSED)
    atomicAdd(cell_count[k], 1u);
#endif
}
