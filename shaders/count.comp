// shaders/count.comp: stage 2, agents per cell (atomic histogram). C twin:
// boids_sim_build_grid (count loop). cell_count is cleared by the host.
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    atomicAdd(cell_count[cell_key[i]], 1u);
}
