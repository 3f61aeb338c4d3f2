// shaders/agents.vert: 3 (2D) or 6 (3D) vertices per agent, read straight from the
// simulation's state buffers (no copy): a triangle along the velocity (2D),
// two crossed triangles (a small arrow, 3D), coloured by group, heading,
// speed or neighbour count. Drawn by src/render/render.c boids_render_agents.
layout(std430, binding = BOIDS_SSBO_CUR_POS) readonly buffer AgentPos { vec4 agent_pos[]; };
layout(std430, binding = BOIDS_SSBO_CUR_VEL) readonly buffer AgentVel { vec4 agent_vel[]; };
layout(std430, binding = BOIDS_SSBO_CUR_GROUP) readonly buffer AgentGroup { uint agent_group[]; };
layout(std430, binding = BOIDS_SSBO_NEIGHBORS) readonly buffer AgentNeighbors { uint agent_neighbors[]; };

layout(location = BOIDS_LOC_VIEW_PROJ) uniform mat4 u_view_proj;
layout(location = BOIDS_LOC_AGENT_SIZE) uniform float u_size;         // agent length in world units
layout(location = BOIDS_LOC_AGENT_MODE) uniform uint u_mode;          // BOIDS_COLOR_BY_*
layout(location = BOIDS_LOC_DIM) uniform uint u_dim;                  // 2 or 3
layout(location = BOIDS_LOC_AGENT_MAXSPEED) uniform float u_maxspeed; // speed colour scale

out vec3 v_color;

// The group colours (src/render/render.c: built in, or a scenario's).
layout(location = BOIDS_LOC_PALETTE) uniform vec3 u_palette[BOIDS_MAX_GROUPS];

vec3 hue(float h) {
    vec3 k = clamp(abs(fract(h + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
    return mix(vec3(1.0), k, 0.85);
}

// Dark blue -> cyan -> yellow -> white for t in [0, 1].
vec3 ramp(float t) {
    t = clamp(t, 0.0, 1.0);
    vec3 a = mix(vec3(0.15, 0.2, 0.8), vec3(0.2, 0.9, 0.9), smoothstep(0.0, 0.4, t));
    vec3 b = mix(a, vec3(1.0, 0.9, 0.2), smoothstep(0.35, 0.75, t));
    return mix(b, vec3(1.0), smoothstep(0.75, 1.0, t));
}

void main() {
    // Agent i, corner vid: one plain draw of 3 (6) vertices per agent (a GPU
    // batches those better than 3-vertex instances), or one instance per
    // agent where the vertex count would overflow.
    uint per = u_dim == 3u ? 6u : 3u;
    uint vid = uint(gl_VertexID) % per;
    uint i = uint(gl_InstanceID) + uint(gl_VertexID) / per;
    vec3 p = agent_pos[i].xyz;
    vec3 v = agent_vel[i].xyz;
    float speed = length(v);
    vec3 f = speed > 1e-6 ? v / speed : vec3(1.0, 0.0, 0.0);
    vec3 side, up;
    if (u_dim == 2u) {
        side = vec3(-f.y, f.x, 0.0);
        up = side;
    } else {
        vec3 ref = abs(f.z) < 0.9 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
        side = normalize(cross(f, ref));
        up = cross(side, f);
    }
    // Tip ahead, two corners behind; the second triangle (3D) is turned 90 degrees.
    uint k = vid % 3u;
    vec3 across = vid < 3u ? side : up;
    vec3 offset = k == 0u ? f : (-0.6 * f + (k == 1u ? 0.45 : -0.45) * across);
    gl_Position = u_view_proj * vec4(p + offset * u_size, 1.0);

    vec3 c;
    if (u_mode == BOIDS_COLOR_BY_HEADING)
        c = hue(atan(f.y, f.x) / 6.28318530718 + 0.5) * (u_dim == 3u ? 0.75 + 0.25 * f.z : 1.0);
    else if (u_mode == BOIDS_COLOR_BY_SPEED)
        c = ramp(speed / max(u_maxspeed, 1e-6));
    else if (u_mode == BOIDS_COLOR_BY_NEIGHBORS)
        c = ramp(float(agent_neighbors[i]) / 40.0);
    else
        c = u_palette[agent_group[i] & (BOIDS_MAX_GROUPS - 1u)];
    // The tip a little brighter: the heading reads at a glance.
    v_color = k == 0u ? min(c * 1.25, vec3(1.0)) : c * 0.8;
}
