// shaders/lines.vert: world-space lines (world box, path, obstacles, target),
// a position and a colour per vertex. Drawn by boids_render_lines.
layout(location = BOIDS_ATTR_POS) in vec3 a_pos;
layout(location = BOIDS_ATTR_COLOR) in vec4 a_color;
BOIDS_UNIFORM_LOC(BOIDS_LOC_VIEW_PROJ) uniform mat4 u_view_proj;

out vec4 v_color;

void main() {
    gl_Position = u_view_proj * vec4(a_pos, 1.0);
    v_color = a_color;
}
