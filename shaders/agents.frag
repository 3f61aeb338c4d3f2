// shaders/agents.frag: the agent's colour from agents.vert.
in vec3 v_color;
layout(location = BOIDS_FRAG_COLOR) out vec4 frag_color;

void main() {
    frag_color = vec4(v_color, 1.0);
}
