// shaders/rounding_probe.comp: are this driver's sqrt and division correctly
// rounded (as the C reference's)? GLSL 4.50 does not ask it. Where they are
// not, the engine compiles every stage with BOIDS_CORRECT_ROUNDING, and
// rounding.glsl's cr_sqrt() and fdiv() nudge each result to the C's
// (src/gpu/gpu_probe.c rounding_exact). Compiled without that define: sqrt and
// fdiv here are the driver's (or shaders/emulate.glsl's).
// Item i of u_count: in = (x, a, b, 0) -> out = (sqrt(x), a / b, 1 / b, 0).
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

layout(std430, binding = BOIDS_SSBO_SCAN_IN) restrict readonly buffer ProbeIn { vec4 probe_in[]; };
layout(std430, binding = BOIDS_SSBO_SCAN_OUT) restrict writeonly buffer ProbeOut { vec4 probe_out[]; };

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    vec4 v = probe_in[i];
    probe_out[i] = vec4(sqrt(v.x), fdiv(v.y, v.z), fdiv(1.0, v.z), 0.0);
}
