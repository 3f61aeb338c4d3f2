// src/render/render_internal.h: the render's state, shared by render.c
// (agents, lines, HUD), bodies.c (procedural bodies) and upload.c, and the
// GL helpers of render_gl.c below them. Not public API.
#ifndef BOIDS_RENDER_INTERNAL_H
#define BOIDS_RENDER_INTERNAL_H

#include <glad/gl.h>

#include "boids/render.h"
#include "gl_util.h"

typedef struct hud_vertex {
    float pos[2];
    float color[4];
} hud_vertex;

#define RENDER_LOCS 32 // above every BOIDS_LOC_* of the drawing programs (shared.h)

struct boids_render {
    float palette[BOIDS_MAX_GROUPS][3];     // group colours, BOIDS_LOC_PALETTE of agents.vert and bodies.vert
    uint32_t glyph_shape[BOIDS_MAX_GROUPS]; // BOIDS_GLYPH_* (DEFAULT: from the groups that hunt, at each draw)
    float glyph_size[BOIDS_MAX_GROUPS];     // length factors (0: default)
    GLuint prog_agents, prog_lines, prog_hud, prog_bodies, prog_density;
    GLuint density_fbo, density_tex; // dense agents' sums (RGBA32F), density_w x density_h
    int density_w, density_h;
    GLuint vao_empty, vao_lines, vao_hud;
    GLuint vbo_lines, vbo_hud;
    size_t lines_cap, hud_cap; // bytes
    GLuint own[4];             // pos, vel, group, neighbours (CPU backend)
    uint32_t own_count;
    GLuint own_id, own_joints; // the CPU backend's ids (uint[N]) and joints (vec4[rows * N])
    size_t own_joints_cap;     // bytes of own_joints
    uint32_t own_rows;         // joint rows uploaded (0: no bodies)
    GLuint ubo_bodies;         // boids_body_params[BOIDS_MAX_GROUPS] at BOIDS_UBO_BODIES
    hud_vertex *hud;           // scratch: HUD_MAX_QUADS * 6
    char *quads;               // scratch for stb_easy_font: HUD_MAX_QUADS * 64 bytes
    bool gl41;                 // a GL 4.1 context (boids_gl41): buffer textures, no storage buffers
    // Each program's uniforms by BOIDS_LOC_* (boids_program_uniforms): the
    // explicit locations on 4.5, the driver's on 4.1.
    GLint loc_agents[RENDER_LOCS], loc_lines[RENDER_LOCS], loc_hud[RENDER_LOCS], loc_bodies[RENDER_LOCS],
        loc_density[RENDER_LOCS];
    GLuint tex[6]; // GL 4.1: the buffer textures at units BOIDS_TEX_* (0 on 4.5)
};

// render_gl.c. Before a draw from the simulation's storage buffers: waits for the compute
// writes to be visible to vertex fetches, then binds `program` with its
// view-projection, dimension and palette uniforms (agents.vert, bodies.vert).
// loc: the program's uniforms (loc_agents, loc_bodies).
void boids_render_use(const boids_render *r, GLuint program, const GLint *loc, const float *view_proj, uint32_t dim);
// A GL buffer of `bytes` (at least 16), GL_DYNAMIC_DRAW, labelled.
GLuint boids_render_buffer(size_t bytes, const char *label);
// Bind-to-edit (GL 4.1 has no DSA), through GL_COPY_WRITE_BUFFER so that no
// binding a draw reads changes: the store of `buffer` re-made with `bytes`
// (contents undefined), or its first `bytes` replaced by data.
void boids_render_buffer_storage(GLuint buffer, size_t bytes);
void boids_render_buffer_write(GLuint buffer, size_t bytes, const void *data);
// One state buffer for the drawing shaders (AGENT_POS(i) and its kin): on
// 4.5 the storage buffer at `binding` (BOIDS_SSBO_*, no copy); on GL 4.1 the
// buffer texture of `unit` (BOIDS_TEX_*), texels of `format` (GL_RGBA32F,
// GL_R32UI), for texelFetch.
void boids_render_bind_state(const boids_render *r, int unit, GLuint binding, GLenum format, GLuint buffer);
// GL 4.1: the program's sampler uniforms pointed at their units (n pairs).
void boids_render_samplers(GLuint program, const boids_uniform *units, size_t n);
// bodies.c. Builds the bodies program and its uniform buffer (render.c's create calls it).
boids_result boids_render_bodies_init(boids_render *r, const char *shader_dir, char *err, size_t err_size);
// Deletes what boids_render_bodies_init and boids_render_upload_joints made.
void boids_render_bodies_free(boids_render *r);

#endif
