// shaders/density.vert: one triangle over the whole viewport, for
// density.frag (src/render/render.c boids_render_agents, dense agents).
void main() {
    vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
