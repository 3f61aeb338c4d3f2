// shaders/agents.vert: one agent's glyph, read straight from the simulation's
// state buffers (no copy): 3 vertices (2D: a triangle) or 12 (3D: a
// four-faced arrow, lit by a directional light from its face normals and
// faded towards the background with distance) per agent, shaped and sized by
// its group's glyph; or, where agents are dense, one point each, their
// colours summed into a float image for density.frag. Coloured by
// group, heading, speed or neighbour count. Drawn by src/render/render.c
// boids_render_agents.
// Agent i's state: the storage buffers (4.5), or on GL 4.1 the same
// buffers as buffer textures (BOIDS_TEX_* units, set by render.c).
#ifdef BOIDS_GL41
uniform samplerBuffer u_tex_pos;
uniform samplerBuffer u_tex_vel;
uniform usamplerBuffer u_tex_group;
uniform usamplerBuffer u_tex_neighbors;
#define AGENT_POS(i) texelFetch(u_tex_pos, int(i))
#define AGENT_VEL(i) texelFetch(u_tex_vel, int(i))
#define AGENT_GROUP(i) texelFetch(u_tex_group, int(i)).x
#define AGENT_NEIGHBORS(i) texelFetch(u_tex_neighbors, int(i)).x
#else
layout(std430, binding = BOIDS_SSBO_CUR_POS) readonly buffer AgentPos { vec4 agent_pos[]; };
layout(std430, binding = BOIDS_SSBO_CUR_VEL) readonly buffer AgentVel { vec4 agent_vel[]; };
layout(std430, binding = BOIDS_SSBO_CUR_GROUP) readonly buffer AgentGroup { uint agent_group[]; };
layout(std430, binding = BOIDS_SSBO_NEIGHBORS) readonly buffer AgentNeighbors { uint agent_neighbors[]; };
#define AGENT_POS(i) agent_pos[i]
#define AGENT_VEL(i) agent_vel[i]
#define AGENT_GROUP(i) agent_group[i]
#define AGENT_NEIGHBORS(i) agent_neighbors[i]
#endif

BOIDS_UNIFORM_LOC(BOIDS_LOC_VIEW_PROJ) uniform mat4 u_view_proj;
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_SIZE) uniform float u_size;         // agent length in world units
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_MODE) uniform uint u_mode;          // BOIDS_COLOR_BY_*
BOIDS_UNIFORM_LOC(BOIDS_LOC_DIM) uniform uint u_dim;                  // 2 or 3
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_MAXSPEED) uniform float u_maxspeed; // speed colour scale
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_POINTS) uniform uint u_points;      // 1: one point per agent
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_DENSE) uniform uint u_dense;        // 1: colours summed (density.frag)
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_PX) uniform float u_px;             // agent length in pixels
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_EYE) uniform vec4 u_eye;            // camera position, w: fog start
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_FOG) uniform vec4 u_fog;            // background rgb, a: fog reach (0: none)
// Per group: x the length factor, y BOIDS_GLYPH_* (never DEFAULT: render.c resolves it).
BOIDS_UNIFORM_LOC(BOIDS_LOC_AGENT_GLYPH) uniform vec2 u_glyph[BOIDS_MAX_GROUPS];

out vec4 v_color;

// The group colours (src/render/render.c: built in, or a scenario's).
BOIDS_UNIFORM_LOC(BOIDS_LOC_PALETTE) uniform vec3 u_palette[BOIDS_MAX_GROUPS];

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

// How far behind the agent, and how far aside, the back corners of an
// arrow or a wedge lie (agent lengths; shared.h).
float glyph_back(uint shape) {
    return shape == BOIDS_GLYPH_WEDGE ? BOIDS_GLYPH_WEDGE_BACK : BOIDS_GLYPH_ARROW_BACK;
}
float glyph_half(uint shape) {
    return shape == BOIDS_GLYPH_WEDGE ? BOIDS_GLYPH_WEDGE_HALF : BOIDS_GLYPH_ARROW_HALF;
}

// Corner k (0: the tip, 1..3: around the back) of the 3D glyph `shape`
// along f, with side and up across it (offsets in agent lengths).
vec3 corner3(uint shape, uint k, vec3 f, vec3 side, vec3 up) {
    if (shape == BOIDS_GLYPH_DOT) { // a small tetrahedron, the same whatever the heading
        const vec3 t[4] = vec3[4](vec3(0.0, 0.0, 0.5), vec3(0.47, 0.0, -0.17), vec3(-0.24, 0.41, -0.17),
                                  vec3(-0.24, -0.41, -0.17));
        return t[k];
    }
    if (k == 0u)
        return f;
    // Around the heading at 0, 120 and 240 degrees.
    const vec2 around[3] = vec2[3](vec2(1.0, 0.0), vec2(-0.5, 0.86602540378), vec2(-0.5, -0.86602540378));
    vec2 cs = around[k - 1u];
    return -glyph_back(shape) * f + glyph_half(shape) * (cs.x * up + cs.y * side);
}

void main() {
    // Agent i, vertex vid: one plain draw of `per` vertices per agent (a GPU
    // batches those better than tiny instances), or one instance per agent
    // where the vertex count would overflow.
    uint per = u_points == 1u ? 1u : u_dim == 3u ? 12u : 3u;
    uint vid = uint(gl_VertexID) % per;
    uint i = uint(gl_InstanceID) + uint(gl_VertexID) / per;
    uint g = AGENT_GROUP(i) & (BOIDS_MAX_GROUPS - 1u);
    vec2 glyph = u_glyph[g];
    uint shape = uint(glyph.y + 0.5);
    vec3 p = AGENT_POS(i).xyz;
    vec3 v = AGENT_VEL(i).xyz;
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
    float len = u_size * glyph.x;
    float shade = 1.0;
    if (u_points == 1u) {
        gl_Position = u_view_proj * vec4(p, 1.0);
        gl_PointSize = clamp(u_px * glyph.x, 1.0, 64.0);
    } else if (u_dim == 2u) {
        // Tip ahead, two corners behind (arrow, wedge), or a triangle around the agent (dot).
        uint k = vid;
        vec3 offset;
        if (shape == BOIDS_GLYPH_DOT)
            offset = 0.5 * vec3(cos(2.09439510239 * float(k) + 1.5707963), sin(2.09439510239 * float(k) + 1.5707963), 0.0);
        else
            offset = k == 0u ? f : (-glyph_back(shape) * f + (k == 1u ? 1.0 : -1.0) * glyph_half(shape) * side);
        gl_Position = u_view_proj * vec4(p + offset * len, 1.0);
        // The tip a little brighter: the heading reads at a glance.
        shade = k == 0u ? 1.25 : 0.8;
    } else {
        // Four faces: tip with each pair of back corners, and the back.
        uint face = vid / 3u, k = vid % 3u;
        const uint faces[12] = uint[12](0u, 1u, 2u, 0u, 2u, 3u, 0u, 3u, 1u, 1u, 3u, 2u);
        vec3 a = corner3(shape, faces[face * 3u], f, side, up);
        vec3 b = corner3(shape, faces[face * 3u + 1u], f, side, up);
        vec3 c = corner3(shape, faces[face * 3u + 2u], f, side, up);
        vec3 n = normalize(cross(b - a, c - a));
        // Outward whatever the winding: away from the glyph's middle, the mean
        // of its four corners (the back three's offsets aside cancel; the
        // dot's tetrahedron is centred on the agent).
        vec3 mid = shape == BOIDS_GLYPH_DOT ? vec3(0.0) : 0.25 * (1.0 - 3.0 * glyph_back(shape)) * f;
        if (dot(n, (a + b + c) / 3.0 - mid) < 0.0)
            n = -n;
        vec3 corner = k == 0u ? a : k == 1u ? b : c;
        gl_Position = u_view_proj * vec4(p + corner * len, 1.0);
        // Lambert under a light from above (+z) and a little aside, plus ambient.
        const vec3 light = normalize(vec3(0.35, 0.25, 0.9));
        shade = 0.3 + 1.0 * max(dot(n, light), 0.0);
    }

    vec3 c;
    if (u_mode == BOIDS_COLOR_BY_HEADING)
        c = hue(atan(f.y, f.x) / 6.28318530718 + 0.5) * (u_dim == 3u ? 0.75 + 0.25 * f.z : 1.0);
    else if (u_mode == BOIDS_COLOR_BY_SPEED)
        c = ramp(speed / max(u_maxspeed, 1e-6));
    else if (u_mode == BOIDS_COLOR_BY_NEIGHBORS)
        c = ramp(float(AGENT_NEIGHBORS(i)) / 40.0);
    else
        c = u_palette[g];
    c = min(c * shade, vec3(1.0));
    // Depth cue (3D): towards the background with distance (blended: dimmer).
    if (u_dim == 3u && u_fog.a > 0.0) {
        float t = 0.6 * clamp((distance(p, u_eye.xyz) - u_eye.w) / u_fog.a, 0.0, 1.0);
        c = u_dense == 1u ? c * (1.0 - t) : mix(c, u_fog.rgb, t);
    }
    v_color = vec4(c, 1.0);
}
