// shaders/hud.vert: HUD quads (stb_easy_font text, panels) in pixels, origin
// at the top left of the framebuffer. Drawn by boids_render_text / _rect.
layout(location = BOIDS_ATTR_POS) in vec2 a_pos;
layout(location = BOIDS_ATTR_COLOR) in vec4 a_color;
BOIDS_UNIFORM_LOC(BOIDS_LOC_HUD_FRAMEBUFFER) uniform vec2 u_framebuffer; // width, height in pixels

out vec4 v_color;

void main() {
    gl_Position = vec4(a_pos.x / u_framebuffer.x * 2.0 - 1.0, 1.0 - a_pos.y / u_framebuffer.y * 2.0, 0.0, 1.0);
    v_color = a_color;
}
