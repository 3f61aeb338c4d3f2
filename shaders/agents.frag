// shaders/agents.frag: the agent's colour from agents.vert (alpha 1: where
// agents are dense, render.c adds them up, alpha counting the agents).
in vec4 v_color;
layout(location = BOIDS_FRAG_COLOR) out vec4 frag_color;

void main() {
    frag_color = v_color;
}
