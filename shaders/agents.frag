// shaders/agents.frag: the agent's colour from agents.vert; alpha is the
// weight of an additive blend where agents are dense (render.c).
in vec4 v_color;
layout(location = BOIDS_FRAG_COLOR) out vec4 frag_color;

void main() {
    frag_color = v_color;
}
