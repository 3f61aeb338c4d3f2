// shaders/density.frag: dense agents, tone-mapped. agents.vert/.frag added
// every agent's colour into a float image (rgb: the sum of colours, a: the
// number of agents on the pixel). A pixel shows the mean colour of its
// agents (their mean heading, with colour by heading: grey where they
// disagree) at a brightness that grows with the logarithm of their number,
// full at u_ref agents: a clump is brighter than a lone agent, and a dense
// flock's inside still shows its structure instead of saturating to white.
uniform sampler2D u_sum; // texture unit BOIDS_TEX_DENSITY (render.c)
BOIDS_UNIFORM_LOC(BOIDS_LOC_DENSITY_REF) uniform float u_ref;      // agents on a pixel drawn at full brightness
BOIDS_UNIFORM_LOC(BOIDS_LOC_DENSITY_ORIGIN) uniform vec2 u_origin; // the viewport's lower left corner, pixels
layout(location = BOIDS_FRAG_COLOR) out vec4 frag_color;

void main() {
    vec4 s = texelFetch(u_sum, ivec2(gl_FragCoord.xy - u_origin), 0);
    if (s.a < 0.5)
        discard;
    float lit = 0.35 + 0.65 * min(log2(1.0 + s.a) / log2(1.0 + max(u_ref, 1.0)), 1.0);
    frag_color = vec4(min(s.rgb / s.a, vec3(1.0)) * lit, 1.0);
}
