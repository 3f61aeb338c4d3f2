// shaders/scatter.comp: stage 4, agents into cell order: slot = start of the
// cell + an atomic cursor (cell_count, cleared by the host). The order within
// a cell depends on the atomics; nothing downstream depends on it (the
// neighbour sums are fixed point, outputs are compared by id). C twin:
// boids_sim_build_grid (scatter loop). Also records the slot of each id
// (C: boids_sim_slots_by_id), which integrate keeps.
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    uint k = cell_key[i];
    uint slot = cell_start[k] + atomicAdd(cell_count[k], 1u);
    next_pos[slot] = cur_pos[i];
    next_vel[slot] = cur_vel[i];
    next_id[slot] = cur_id[i];
    next_group[slot] = cur_group[i];
    // 2D: the slot's packed record (position and velocity: what the steer
    // stage's neighbour loop reads of it).
    if (WORLD_DIM == 2u)
        cell_record[slot] = vec4(cur_pos[i].xy, cur_vel[i].xy);
    // The bodies stage walks agents by id. (A decomposed run's rank holds
    // ids of the whole world, past the buffer's end: they have no row here.)
    if (cur_id[i] < uint(slot_of.length()))
        slot_of[cur_id[i]] = slot;
}
