// shaders/bodies.comp: the bodies stage (procedural-animation-chains.txt).
// C twin: src/core/sim.c boids_sim_bodies(); the chain functions below are
// the twins of src/core/bodies.c (same names without boids_), walking one
// agent's joints in the buffer instead of a C array; the per-value parts
// they call (distance_constraint, constrain_angle, ...) are bodies.glsl's,
// assembled before this file.
// One invocation per agent id, after integrate (as the C loop): the body of
// agent id (joint j at joints[j * N + id], so neighbouring invocations touch
// neighbouring joints) follows its head cur_pos[slot_of[id]].
// u_init = 1 lays every body straight behind its agent instead
// (boids_sim_reset_bodies).
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

layout(location = BOIDS_LOC_BODIES_INIT) uniform uint u_init;

// Joint j of agent id in the joints buffer (shared.h BOIDS_SSBO_JOINTS).
uint joint_index(uint j, uint id) { return j * world.count + id; }

// C twin: include/boids/core.h boids_body_length().
float body_length(boids_body_params b, uint i) { return b.segment[i >> 2u][i & 3u]; }

// C twin: src/core/bodies.c boids_chain_resolve(). Chain.resolve(from):
// toward joint 0, then toward the last joint (each walk carries its anchor,
// the joint just placed, in registers: one read and one write per joint).
void chain_resolve(uint id, boids_body_params b, uint n, uint from, bool min_only) {
    if (from >= n)
        return;
    vec3 anchor = joints[joint_index(from, id)].xyz;
    for (uint i = from; i > 0u; i--) { // anchor i, target i - 1, distances[i - 1]
        uint t = joint_index(i - 1u, id);
        anchor = distance_constraint(anchor, joints[t].xyz, body_length(b, i - 1u), min_only);
        joints[t].xyz = anchor;
    }
    anchor = joints[joint_index(from, id)].xyz;
    for (uint i = from; i + 1u < n; i++) { // anchor i, target i + 1, distances[i]
        uint t = joint_index(i + 1u, id);
        anchor = distance_constraint(anchor, joints[t].xyz, body_length(b, i), min_only);
        joints[t].xyz = anchor;
    }
}

// C twin: src/core/bodies.c boids_snake_angles(). Snake.resolve's angles.
void snake_angles(uint id, uint n, float facing) {
    uint k0 = joint_index(0u, id);
    joints[k0].w = facing;
    vec4 prev = joints[k0];
    for (uint i = 1u; i < n; i++) {
        uint k = joint_index(i, id);
        vec4 q = joints[k];
        vec3 d = world_delta(q.xyz, prev.xyz);
        q.w = (d.x == 0.0 && d.y == 0.0) ? prev.w : atan2f(d.y, d.x);
        joints[k].w = q.w;
        prev = q;
    }
}

// C twin: src/core/bodies.c boids_snake_resolve(). Snake2.resolve in 2D; on
// directions (constrain_direction) in 3D.
void snake_resolve(uint id, boids_body_params b, uint n, float facing, vec3 facing_dir, float angle_limit,
                   bool min_only) {
    uint k0 = joint_index(0u, id);
    if (world.dim == 2u) {
        joints[k0].w = facing;
        vec4 prev = joints[k0];
        for (uint i = 1u; i < n; i++) {
            uint k = joint_index(i, id);
            vec3 d = world_delta(joints[k].xyz, prev.xyz);
            float curr = (d.x == 0.0 && d.y == 0.0) ? prev.w : atan2f(d.y, d.x);
            float ang = constrain_angle(curr, prev.w, angle_limit);
            float len = body_length(b, i - 1u);
            if (min_only)
                len = min(len, norm3(d));
            precise float x = prev.x - cosf(ang) * len;
            precise float y = prev.y - sinf(ang) * len;
            prev = vec4(x, y, prev.z, ang);
            joints[k] = prev;
        }
        return;
    }
    float cos_lim = cosf(angle_limit), sin_lim = sinf(angle_limit);
    vec3 ref = facing_dir;
    bool have_ref = norm2(ref) > 0.0;
    joints[k0].w = 0.0;
    vec3 prev = joints[k0].xyz;
    for (uint i = 1u; i < n; i++) {
        uint k = joint_index(i, id);
        vec3 d = world_delta(joints[k].xyz, prev); // toward the previous joint
        float dist = norm3(d);
        vec3 u;
        if (dist > 0.0)
            u = d * fdiv(1.0, dist);
        else if (have_ref)
            u = ref;
        else
            u = vec3(1.0, 0.0, 0.0);
        if (have_ref)
            u = constrain_direction(u, ref, cos_lim, sin_lim);
        float len = min_only ? min(body_length(b, i - 1u), dist) : body_length(b, i - 1u);
        precise vec3 p = prev - u * len;
        joints[k] = vec4(p, 0.0);
        prev = p;
        ref = u;
        have_ref = true;
    }
}

// C twin: src/core/bodies.c heading_of() (static). Unit heading of vel (0 if
// still) and, when moving, its 2D angle.
vec3 heading_of(vec3 vel, inout float angle) {
    vec3 v = vec3(vel.x, vel.y, world.dim == 2u ? 0.0 : vel.z);
    float m = norm3(v);
    if (!(m > 0.0))
        return vec3(0.0);
    angle = atan2f(v.y, v.x);
    return v * fdiv(1.0, m);
}

// C twin: src/core/bodies.c boids_body_straight(). A body straight behind the agent.
void body_straight(uint id, boids_body_params b, vec3 head, vec3 vel) {
    float angle = 0.0;
    vec3 dir = heading_of(vel, angle);
    if (norm2(dir) == 0.0)
        dir.x = 1.0;
    float facing = world.dim == 2u ? angle : 0.0;
    vec3 prev = head;
    joints[joint_index(0u, id)] = vec4(head, facing);
    for (uint i = 1u; i < b.joints; i++) {
        precise vec3 p = prev - dir * body_length(b, i - 1u);
        joints[joint_index(i, id)] = vec4(p, facing);
        prev = p;
    }
}

// C twin: src/core/bodies.c boids_body_follow(). Joint 0 = the head, then
// CHAIN: resolve(0) and the angles; SNAKE / FISH: snake_resolve.
void body_follow(uint id, boids_body_params b, vec3 head, vec3 vel) {
    uint k0 = joint_index(0u, id);
    float facing = joints[k0].w; // a still agent keeps its facing
    vec3 dir = heading_of(vel, facing);
    if (world.dim != 2u)
        facing = 0.0;
    joints[k0].xyz = head;
    if (b.style == BOIDS_BODY_CHAIN) {
        chain_resolve(id, b, b.joints, 0u, b.min_only != 0u);
        if (world.dim == 2u) {
            snake_angles(id, b.joints, facing);
        } else {
            for (uint i = 0u; i < b.joints; i++)
                joints[joint_index(i, id)].w = 0.0;
        }
        return;
    }
    snake_resolve(id, b, b.joints, facing, dir, b.angle_limit, b.min_only != 0u);
}

void main() {
    uint id = global_index();
    if (id >= u_count)
        return;
    uint i = slot_of[id];
    uint g = cur_group[i];
    if (body[g].style == BOIDS_BODY_NONE)
        return;
    if (u_init != 0u)
        body_straight(id, body[g], cur_pos[i].xyz, cur_vel[i].xyz);
    else
        body_follow(id, body[g], cur_pos[i].xyz, cur_vel[i].xyz);
}
