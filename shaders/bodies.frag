// shaders/bodies.frag: the colour from bodies.vert; quads marked as discs are
// cut round, eyes are white with a dark pupil.
in vec4 v_color;
in vec2 v_local;
flat in uint v_disc;
layout(location = BOIDS_FRAG_COLOR) out vec4 frag_color;

void main() {
    if (v_disc != 0u) {
        float r2 = dot(v_local, v_local);
        if (r2 > 1.0)
            discard;
        if (v_disc == 2u && r2 < 0.3) {
            frag_color = vec4(0.05, 0.05, 0.08, 1.0);
            return;
        }
    }
    frag_color = v_color;
}
