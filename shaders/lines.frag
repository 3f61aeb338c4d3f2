// shaders/lines.frag: the colour from lines.vert or hud.vert.
in vec4 v_color;
layout(location = BOIDS_FRAG_COLOR) out vec4 frag_color;

void main() {
    frag_color = v_color;
}
