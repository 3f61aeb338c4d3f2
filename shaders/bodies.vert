// shaders/bodies.vert: procedural bodies (procedural-animation-chains.txt),
// one instance per agent slot, read straight from the buffers: the slot's id
// and group, then joint j of that id at joints[j * u_count + id] (xyz, w =
// the facing angle in 2D). gl_VertexID picks the point of the part drawn
// (u_part); instances whose group's style is not u_style, and vertices past
// the group's own joints, are put outside the clip volume (nothing drawn).
// Drawn by src/render/bodies.c boids_render_bodies.
// The slot's id and group and the joints: storage buffers (4.5), or on GL
// 4.1 the same buffers as buffer textures (BOIDS_TEX_* units, set by
// bodies.c, as the block's binding).
#ifdef BOIDS_GL41
uniform usamplerBuffer u_tex_id;
uniform usamplerBuffer u_tex_group;
uniform samplerBuffer u_tex_joints;
#define AGENT_ID(i) texelFetch(u_tex_id, int(i)).x
#define AGENT_GROUP(i) texelFetch(u_tex_group, int(i)).x
#define JOINT(i) texelFetch(u_tex_joints, int(i))
#else
layout(std430, binding = BOIDS_SSBO_CUR_ID) readonly buffer AgentId { uint agent_id[]; };
layout(std430, binding = BOIDS_SSBO_CUR_GROUP) readonly buffer AgentGroup { uint agent_group[]; };
layout(std430, binding = BOIDS_SSBO_JOINTS) readonly buffer Joints { vec4 joint[]; };
#define AGENT_ID(i) agent_id[i]
#define AGENT_GROUP(i) agent_group[i]
#define JOINT(i) joint[i]
#endif
layout(std140 BOIDS_BINDING(BOIDS_UBO_BODIES)) uniform Bodies { boids_body_params body[BOIDS_MAX_GROUPS]; };

BOIDS_UNIFORM_LOC(BOIDS_LOC_VIEW_PROJ) uniform mat4 u_view_proj;
BOIDS_UNIFORM_LOC(BOIDS_LOC_BODY_STYLE) uniform uint u_style; // BOIDS_BODY_* of this draw
BOIDS_UNIFORM_LOC(BOIDS_LOC_BODY_PART) uniform uint u_part;   // BOIDS_BODY_PART_* (shared.h)
BOIDS_UNIFORM_LOC(BOIDS_LOC_DIM) uniform uint u_dim;          // 2 or 3
BOIDS_UNIFORM_LOC(BOIDS_LOC_BODY_COUNT) uniform uint u_count; // agents (the joints' row length)
BOIDS_UNIFORM_LOC(BOIDS_LOC_BODY_EYE) uniform vec3 u_eye;     // 3D: the camera's position

out vec4 v_color;
out vec2 v_local;     // quads: the corner in [-1, 1]^2
flat out uint v_disc; // 0 flat colour, 1 a disc, 2 an eye (white disc, dark pupil)

// The group colours (src/render/render.c: built in, or a scenario's).
BOIDS_UNIFORM_LOC(BOIDS_LOC_PALETTE) uniform vec3 u_palette[BOIDS_MAX_GROUPS];
// Corners of a quad as two triangles.
const vec2 corner[6] = vec2[6](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, -1.0), vec2(1.0, 1.0),
                               vec2(-1.0, 1.0));

// This instance's agent: its id, group and the group's joints.
struct agent {
    uint id, group, joints;
};

vec4 joint_at(agent a, uint j) {
    return JOINT(j * u_count + a.id);
}

float width_at(agent a, uint j) {
    return body[a.group].width[j >> 2u][j & 3u];
}

// The body's forward direction and its sideways (+pi/2) at joint j: 2D from
// the facing angle; 3D along the segment toward the head, the side across
// the view (a ribbon facing the camera).
void frame_at(agent a, uint j, out vec3 p, out vec3 fwd, out vec3 side) {
    vec4 q = joint_at(a, j);
    p = q.xyz;
    if (u_dim == 2u) {
        fwd = vec3(cos(q.w), sin(q.w), 0.0);
        side = vec3(-fwd.y, fwd.x, 0.0);
        return;
    }
    vec3 d = j == 0u ? (a.joints > 1u ? p - joint_at(a, 1u).xyz : vec3(0.0)) : joint_at(a, j - 1u).xyz - p;
    fwd = dot(d, d) > 1e-12 ? normalize(d) : vec3(1.0, 0.0, 0.0);
    vec3 s = cross(fwd, normalize(p - u_eye));
    side = dot(s, s) > 1e-12 ? normalize(s) : normalize(cross(fwd, abs(fwd.z) < 0.9 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0)));
}

// C twin: src/core/bodies.c outline_point() (static). getShape's getPoint(j,
// angle, 0): joint j + (cos, sin)(facing + angle) * width / 2.
vec3 outline_point(agent a, uint j, float angle) {
    vec3 p, fwd, side;
    frame_at(a, j, p, fwd, side);
    return p + (cos(angle) * fwd + sin(angle) * side) * (0.5 * width_at(a, j));
}

// C twin: src/core/bodies.c boids_snake_outline(), its k-th point: getShape's
// order (2J + 6 points, from the tail's pi).
vec3 snake_outline(agent a, uint k) {
    uint n = a.joints, t = n - 1u;
    if (k == 0u)
        return outline_point(a, t, BOIDS_PI);
    if (k == 1u)
        return outline_point(a, t, 5.0 * BOIDS_PI / 6.0);
    if (k < n + 2u)
        return outline_point(a, t - (k - 2u), 0.5 * BOIDS_PI);
    if (k < n + 5u)
        return outline_point(a, 0u, (1.0 - float(k - n - 2u)) * BOIDS_PI / 6.0);
    if (k < 2u * n + 5u)
        return outline_point(a, k - n - 5u, -0.5 * BOIDS_PI);
    return outline_point(a, t, -5.0 * BOIDS_PI / 6.0);
}

// The k-th vertex of the filled strip: tip, head +-pi/6, left/right per joint, tail +-5pi/6, pi.
vec3 fill_point(agent a, uint k) {
    uint n = a.joints;
    if (k < 3u)
        return outline_point(a, 0u, k == 0u ? 0.0 : (k == 1u ? BOIDS_PI / 6.0 : -BOIDS_PI / 6.0));
    if (k < 2u * n + 3u)
        return outline_point(a, (k - 3u) >> 1u, ((k & 1u) == 1u ? 0.5 : -0.5) * BOIDS_PI);
    if (k == 2u * n + 3u)
        return outline_point(a, n - 1u, 5.0 * BOIDS_PI / 6.0);
    if (k == 2u * n + 4u)
        return outline_point(a, n - 1u, -5.0 * BOIDS_PI / 6.0);
    return outline_point(a, n - 1u, BOIDS_PI);
}

// A camera-facing quad corner around c of half size r.
vec3 billboard(vec3 c, float r, vec2 at) {
    vec3 right = vec3(1.0, 0.0, 0.0), up = vec3(0.0, 1.0, 0.0);
    if (u_dim == 3u) {
        vec3 view = normalize(c - u_eye);
        vec3 x = cross(view, vec3(0.0, 0.0, 1.0));
        right = dot(x, x) > 1e-12 ? normalize(x) : vec3(1.0, 0.0, 0.0);
        up = cross(right, view);
    }
    return c + (at.x * right + at.y * up) * r;
}

void main() {
    uint slot = uint(gl_InstanceID);
    agent a;
    a.group = AGENT_GROUP(slot) & (BOIDS_MAX_GROUPS - 1u);
    a.id = AGENT_ID(slot);
    a.joints = body[a.group].joints;
    uint k = uint(gl_VertexID);
    v_local = vec2(0.0);
    v_disc = 0u;
    bool skip = body[a.group].style != u_style || a.joints < BOIDS_MIN_JOINTS || a.joints > BOIDS_MAX_JOINTS;
    vec3 c = u_palette[a.group];
    vec3 p = vec3(0.0);
    if (!skip) {
        uint n = a.joints;
        if (u_part == BOIDS_BODY_PART_FILL) {
            p = fill_point(a, min(k, 2u * n + 5u));
            v_color = vec4(c * 0.55, 1.0);
        } else if (u_part == BOIDS_BODY_PART_OUTLINE) {
            p = snake_outline(a, min(k, 2u * n + 6u) % (2u * n + 6u));
            v_color = vec4(c * 0.25, 1.0);
        } else if (u_part == BOIDS_BODY_PART_EYES) {
            // The notebook's eyes: at +-pi/2, (width0 / 2 - 5) out of 19, 8 across.
            skip = u_dim != 2u;
            vec3 q, fwd, side;
            frame_at(a, 0u, q, fwd, side);
            float w0 = width_at(a, 0u);
            vec3 centre = q + side * ((k < 6u ? 1.0 : -1.0) * w0 * (4.5 / 19.0));
            v_local = corner[k % 6u];
            p = billboard(centre, w0 * (4.0 / 19.0), v_local);
            v_color = vec4(1.0);
            v_disc = 2u;
        } else if (u_part == BOIDS_BODY_PART_LINKS) {
            p = joint_at(a, min(k, n - 1u)).xyz;
            v_color = vec4(c * 0.6, 1.0);
        } else {
            uint j = k / 6u;
            skip = j >= n;
            v_local = corner[k % 6u];
            p = billboard(joint_at(a, min(j, n - 1u)).xyz, 0.5 * width_at(a, min(j, n - 1u)), v_local);
            v_color = vec4(c * 0.8, 1.0);
            v_disc = 1u;
        }
    }
    gl_Position = skip ? vec4(2.0, 2.0, 2.0, 1.0) : u_view_proj * vec4(p, 1.0);
    // 2D: a depth per agent id (stable while slots move), so that each body
    // lies wholly over or under another, its outline and eyes with it.
    if (u_dim == 2u && !skip)
        gl_Position.z = 1.0 - 2.0 * (float(a.id) + 0.5) / float(max(u_count, 1u));
}
