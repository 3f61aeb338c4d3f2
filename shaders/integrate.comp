// shaders/integrate.comp: the integrate stage. C twin: src/core/sim.c
// boids_sim_integrate() (the per-agent step is models.glsl integrate(),
// twin of src/core/integrate.c boids_integrate()).
// One invocation per agent slot i of cur: semi-implicit Euler with the
// steer stage's accel[i] -> the xyz lanes of next_pos[i] / next_vel[i] (the
// w lanes, the wander angles, were written by steer.comp and are kept), and
// id / group copied. The host swaps cur and next afterwards.
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    uint g = cur_group[i];
    // The agent's own maxspeed (its range's draw) or the group's.
    boids_group_params gp = group[g];
    gp.maxspeed = agent_maxspeed(gp, cur_id[i]);
    vec3 p, v;
    integrate(gp, cur_pos[i].xyz, cur_vel[i].xyz, accel[i].xyz, p, v);
    next_pos[i].xyz = p;
    next_vel[i].xyz = v;
    next_id[i] = cur_id[i];
    next_group[i] = g;
}
