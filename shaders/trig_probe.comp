// shaders/trig_probe.comp: measures this GPU's sin, cos and atan (whose
// precision desktop GLSL leaves to the driver), for tolerances that follow
// the device instead of the worst case (src/gpu/gpu.c boids_gpu_trig_error).
// Item i of u_count: in = (angle, y, x, 0) -> out = (sin, cos, atan(y, x), 0).
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

layout(std430, binding = BOIDS_SSBO_SCAN_IN) restrict readonly buffer ProbeIn { vec4 probe_in[]; };
layout(std430, binding = BOIDS_SSBO_SCAN_OUT) restrict writeonly buffer ProbeOut { vec4 probe_out[]; };

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    vec4 v = probe_in[i];
    probe_out[i] = vec4(sin(v.x), cos(v.x), atan(v.y, v.z), 0.0);
}
