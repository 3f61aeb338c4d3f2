// src/render/render.c: agents (one instanced draw from the state buffers,
// shaders/agents.vert), world-space lines (lines.vert), HUD quads (hud.vert,
// stb_easy_font) and the screenshot (stb_image_write); the bodies are in
// bodies.c, the GL helpers both use in render_gl.c.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "boids/atomic.h"
#include "boids/render.h"
#include "gl_util.h"
#include "render_internal.h"

// stb's single-file headers: their unused statics and casts are not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_easy_font.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#define HUD_MAX_QUADS 20000 // characters * segments in one text call

static const char *const color_names[BOIDS_COLOR_MODES] = {"group", "heading", "speed", "neighbours"};

const char *boids_color_mode_name(boids_color_mode m) {
    return m < BOIDS_COLOR_MODES ? color_names[m] : "?";
}

// Each drawing program's uniforms by BOIDS_LOC_* (shared.h).
static const boids_uniform agents_uniforms[] = {
    {BOIDS_LOC_VIEW_PROJ, "u_view_proj"}, {BOIDS_LOC_DIM, "u_dim"},           {BOIDS_LOC_PALETTE, "u_palette"},
    {BOIDS_LOC_AGENT_SIZE, "u_size"},     {BOIDS_LOC_AGENT_MODE, "u_mode"},   {BOIDS_LOC_AGENT_MAXSPEED, "u_maxspeed"},
    {BOIDS_LOC_AGENT_POINTS, "u_points"}, {BOIDS_LOC_AGENT_DENSE, "u_dense"}, {BOIDS_LOC_AGENT_PX, "u_px"},
    {BOIDS_LOC_AGENT_EYE, "u_eye"},       {BOIDS_LOC_AGENT_FOG, "u_fog"},     {BOIDS_LOC_AGENT_GLYPH, "u_glyph"},
};
static const boids_uniform lines_uniforms[] = {{BOIDS_LOC_VIEW_PROJ, "u_view_proj"}};
static const boids_uniform hud_uniforms[] = {{BOIDS_LOC_HUD_FRAMEBUFFER, "u_framebuffer"}};
static const boids_uniform density_uniforms[] = {{BOIDS_LOC_DENSITY_REF, "u_ref"},
                                                 {BOIDS_LOC_DENSITY_ORIGIN, "u_origin"}};
static const boids_uniform density_samplers[] = {{BOIDS_TEX_DENSITY, "u_sum"}};
// GL 4.1: agents.vert's buffer textures and their units.
static const boids_uniform agents_samplers[] = {{BOIDS_TEX_POS, "u_tex_pos"},
                                                {BOIDS_TEX_VEL, "u_tex_vel"},
                                                {BOIDS_TEX_GROUP, "u_tex_group"},
                                                {BOIDS_TEX_NEIGHBORS, "u_tex_neighbors"}};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

// A vertex array of a position (n floats) and an RGBA colour, from vbo
// (bind-to-edit: GL 4.1 has no DSA).
static GLuint attrib_vao(GLuint vbo, int n, size_t stride) {
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(BOIDS_ATTR_POS);
    glEnableVertexAttribArray(BOIDS_ATTR_COLOR);
    glVertexAttribPointer(BOIDS_ATTR_POS, n, GL_FLOAT, GL_FALSE, (GLsizei)stride, (const void *)0);
    glVertexAttribPointer(BOIDS_ATTR_COLOR, 4, GL_FLOAT, GL_FALSE, (GLsizei)stride,
                          (const void *)(sizeof(float) * (size_t)n));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return vao;
}

// See boids/render.h.
boids_result boids_render_create(boids_render **out, const boids_render_desc *d, char *err, size_t err_size) {
    *out = NULL;
    bool gl41 = boids_gl41();
    GLint vertex_blocks = 0, texels = 0;
    if (gl41)
        glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
    else
        glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_blocks);
    if (gl41 && (uint64_t)d->own_count > (uint64_t)texels) {
        snprintf(err, err_size,
                 "this OpenGL 4.1's buffer textures hold %d texels (GL_MAX_TEXTURE_BUFFER_SIZE); the viewer draws "
                 "one per agent, %u agents",
                 texels, d->own_count);
        return BOIDS_ERR_GL;
    }
    if (!gl41 && vertex_blocks < 4) {
        snprintf(err, err_size,
                 "this OpenGL gives vertex shaders %d storage blocks (GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS); the "
                 "viewer draws agents from 4",
                 vertex_blocks);
        return BOIDS_ERR_GL;
    }
    boids_render *r = calloc(1, sizeof *r);
    if (!r)
        return BOIDS_ERR_NOMEM;
    r->gl41 = gl41;
    r->hud = malloc(sizeof(hud_vertex) * HUD_MAX_QUADS * 6);
    r->quads = malloc((size_t)HUD_MAX_QUADS * 64);
    if (!r->hud || !r->quads) {
        boids_render_destroy(r);
        return BOIDS_ERR_NOMEM;
    }
    boids_result res =
        boids_program_graphics(d->shader_dir, "agents.vert", "agents.frag", &r->prog_agents, err, err_size);
    if (res == BOIDS_OK)
        res = boids_program_graphics(d->shader_dir, "lines.vert", "lines.frag", &r->prog_lines, err, err_size);
    if (res == BOIDS_OK)
        res = boids_program_graphics(d->shader_dir, "hud.vert", "lines.frag", &r->prog_hud, err, err_size);
    if (res == BOIDS_OK)
        res = boids_program_graphics(d->shader_dir, "density.vert", "density.frag", &r->prog_density, err, err_size);
    if (res == BOIDS_OK)
        res = boids_render_bodies_init(r, d->shader_dir, err, err_size);
    if (res != BOIDS_OK) {
        boids_render_destroy(r);
        return res;
    }
    boids_program_uniforms(r->prog_agents, agents_uniforms, COUNT(agents_uniforms), r->loc_agents, RENDER_LOCS);
    boids_program_uniforms(r->prog_lines, lines_uniforms, COUNT(lines_uniforms), r->loc_lines, RENDER_LOCS);
    boids_program_uniforms(r->prog_hud, hud_uniforms, COUNT(hud_uniforms), r->loc_hud, RENDER_LOCS);
    boids_program_uniforms(r->prog_density, density_uniforms, COUNT(density_uniforms), r->loc_density, RENDER_LOCS);
    boids_render_samplers(r->prog_density, density_samplers, COUNT(density_samplers));
    if (gl41) {
        glGenTextures(6, r->tex);
        boids_render_samplers(r->prog_agents, agents_samplers, COUNT(agents_samplers));
    }
    glGenVertexArrays(1, &r->vao_empty);
    r->lines_cap = 64 * sizeof(boids_line_vertex);
    r->vbo_lines = boids_render_buffer(r->lines_cap, "lines");
    r->vao_lines = attrib_vao(r->vbo_lines, 3, sizeof(boids_line_vertex));
    r->hud_cap = 1024 * sizeof(hud_vertex);
    r->vbo_hud = boids_render_buffer(r->hud_cap, "hud");
    r->vao_hud = attrib_vao(r->vbo_hud, 2, sizeof(hud_vertex));
    r->own_count = d->own_count;
    boids_render_set_palette(r, NULL, NULL);
    if (d->own_count) {
        static const char *const labels[4] = {"render pos", "render vel", "render group", "render neighbors"};
        static const size_t sizes[4] = {16, 16, 4, 4};
        for (int k = 0; k < 4; k++)
            r->own[k] = boids_render_buffer((size_t)d->own_count * sizes[k], labels[k]);
        r->own_id = boids_render_buffer((size_t)d->own_count * 4, "render id");
    }
    *out = r;
    return BOIDS_OK;
}

// See boids/render.h.
// The group colours: distinguishable on the dark background (NULL), or the
// given ones (rgba, alpha unused) where `use` is true.
void boids_render_set_palette(boids_render *r, const float (*rgba)[4], const bool *use) {
    static const float builtin[8][3] = {{0.95f, 0.85f, 0.35f}, {0.35f, 0.75f, 1.0f}, {1.0f, 0.4f, 0.35f},
                                        {0.45f, 0.95f, 0.5f},  {0.85f, 0.5f, 1.0f},  {1.0f, 0.65f, 0.2f},
                                        {0.4f, 1.0f, 0.95f},   {0.95f, 0.95f, 0.95f}};
    for (int g = 0; g < 8; g++)
        for (int k = 0; k < 3; k++)
            r->palette[g][k] = rgba && use && use[g] ? rgba[g][k] : builtin[g][k];
}

// See boids/render.h.
void boids_render_set_glyphs(boids_render *r, const uint32_t *shape, const float *size) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        r->glyph_shape[g] = shape && shape[g] < BOIDS_GLYPH_COUNT ? shape[g] : BOIDS_GLYPH_DEFAULT;
        r->glyph_size[g] = size && size[g] > 0.0f ? size[g] : 0.0f;
    }
}

void boids_render_destroy(boids_render *r) {
    if (!r)
        return;
    glDeleteProgram(r->prog_agents);
    glDeleteProgram(r->prog_lines);
    glDeleteProgram(r->prog_hud);
    glDeleteProgram(r->prog_density);
    glDeleteFramebuffers(1, &r->density_fbo);
    glDeleteTextures(1, &r->density_tex);
    GLuint vaos[] = {r->vao_empty, r->vao_lines, r->vao_hud};
    glDeleteVertexArrays(3, vaos);
    GLuint bufs[] = {r->vbo_lines, r->vbo_hud};
    glDeleteBuffers(2, bufs);
    if (r->own[0])
        glDeleteBuffers(4, r->own);
    if (r->tex[0])
        glDeleteTextures(6, r->tex);
    boids_render_bodies_free(r);
    free(r->hud);
    free(r->quads);
    free(r);
}

// See boids/render.h.
void boids_render_own_buffers(const boids_render *r, uint32_t *pos, uint32_t *vel, uint32_t *group,
                              uint32_t *neighbors) {
    *pos = r->own[0];
    *vel = r->own[1];
    *group = r->own[2];
    *neighbors = r->own[3];
}

// The float image dense agents are summed into, as large as the viewport
// (made again when that changes); false where it cannot be made. GL 3.0
// calls only (no DSA): the viewer's GL 4.1 path draws with it too.
static bool density_target(boids_render *r, int w, int h) {
    if (r->density_fbo && r->density_w == w && r->density_h == h)
        return true;
    glDeleteFramebuffers(1, &r->density_fbo);
    glDeleteTextures(1, &r->density_tex);
    GLint texture = 0, framebuffer = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
    glGenTextures(1, &r->density_tex);
    glBindTexture(GL_TEXTURE_2D, r->density_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, w, h, 0, GL_RGBA, GL_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glGenFramebuffers(1, &r->density_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->density_fbo);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->density_tex, 0);
    bool complete = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)framebuffer);
    glBindTexture(GL_TEXTURE_2D, (GLuint)texture);
    r->density_w = w;
    r->density_h = h;
    return complete;
}

// See boids/render.h: 3 vertices (2D) or 12 (3D) per agent, or one point
// where they are dense, made up in the vertex shader from gl_VertexID; no
// vertex buffers. One plain draw of them all (tiny instances batch poorly
// on GPUs), or one instance per agent where the vertex count passes
// GLsizei's range. Dense: their colours added into a float image (no depth
// test; alpha counts them), then tone-mapped over the frame by
// density.frag, so a pixel's brightness follows the agents on it.
void boids_render_agents(boids_render *r, const boids_agents_draw *d) {
    if (!d->count)
        return;
    const GLint *loc = r->loc_agents;
    boids_render_use(r, r->prog_agents, loc, d->view_proj, d->dim);
    boids_render_bind_state(r, BOIDS_TEX_POS, BOIDS_SSBO_CUR_POS, GL_RGBA32F, d->pos);
    boids_render_bind_state(r, BOIDS_TEX_VEL, BOIDS_SSBO_CUR_VEL, GL_RGBA32F, d->vel);
    boids_render_bind_state(r, BOIDS_TEX_GROUP, BOIDS_SSBO_CUR_GROUP, GL_R32UI, d->group);
    boids_render_bind_state(r, BOIDS_TEX_NEIGHBORS, BOIDS_SSBO_NEIGHBORS, GL_R32UI, d->neighbors);
    glUniform1f(loc[BOIDS_LOC_AGENT_SIZE], d->size);
    glUniform1ui(loc[BOIDS_LOC_AGENT_MODE], (GLuint)d->mode);
    glUniform1f(loc[BOIDS_LOC_AGENT_MAXSPEED], d->maxspeed);
    glUniform1ui(loc[BOIDS_LOC_AGENT_POINTS], d->points ? 1u : 0u);
    glUniform1f(loc[BOIDS_LOC_AGENT_PX], d->px > 0.0f ? d->px : 1.0f);
    glUniform4f(loc[BOIDS_LOC_AGENT_EYE], d->eye[0], d->eye[1], d->eye[2], d->fog_near);
    glUniform4f(loc[BOIDS_LOC_AGENT_FOG], d->background[0], d->background[1], d->background[2], d->fog_reach);
    float glyph[BOIDS_MAX_GROUPS][2];
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        bool hunts = (d->hunters >> g) & 1u;
        glyph[g][0] = r->glyph_size[g] > 0.0f ? r->glyph_size[g] : hunts ? 2.0f : 1.0f;
        uint32_t shape = r->glyph_shape[g] ? r->glyph_shape[g] : hunts ? BOIDS_GLYPH_WEDGE : BOIDS_GLYPH_ARROW;
        glyph[g][1] = (float)shape;
    }
    glUniform2fv(loc[BOIDS_LOC_AGENT_GLYPH], BOIDS_MAX_GROUPS, &glyph[0][0]);
    glBindVertexArray(r->vao_empty);
    // Only a dense draw asks GL for the state it redirects and restores (a
    // query can wait for a driver's own thread): the viewport, the target,
    // the depth test.
    GLint viewport[4] = {0, 0, 0, 0}, framebuffer = 0;
    GLboolean depth = GL_FALSE;
    if (d->dense) {
        glGetIntegerv(GL_VIEWPORT, viewport);
        glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
        depth = glIsEnabled(GL_DEPTH_TEST);
    }
    bool dense = d->dense && viewport[2] > 0 && viewport[3] > 0 && density_target(r, viewport[2], viewport[3]);
    glUniform1ui(loc[BOIDS_LOC_AGENT_DENSE], dense ? 1u : 0u);
    if (dense) {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->density_fbo);
        glViewport(0, 0, viewport[2], viewport[3]);
        static const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        glClearBufferfv(GL_COLOR, 0, zero);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE);
        glDisable(GL_DEPTH_TEST);
    }
    if (d->points)
        glEnable(GL_PROGRAM_POINT_SIZE);
    GLenum prim = d->points ? GL_POINTS : GL_TRIANGLES;
    uint64_t per = d->points ? 1 : d->dim == 3 ? 12 : 3;
    if ((uint64_t)d->count * per <= INT32_MAX)
        glDrawArrays(prim, 0, (GLsizei)((uint64_t)d->count * per));
    else
        glDrawArraysInstanced(prim, 0, (GLsizei)per, (GLsizei)d->count);
    if (d->points)
        glDisable(GL_PROGRAM_POINT_SIZE);
    if (dense) {
        glDisable(GL_BLEND);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)framebuffer);
        glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
        glUseProgram(r->prog_density);
        glUniform1f(r->loc_density[BOIDS_LOC_DENSITY_REF], d->density_ref);
        glUniform2f(r->loc_density[BOIDS_LOC_DENSITY_ORIGIN], (float)viewport[0], (float)viewport[1]);
        glActiveTexture(GL_TEXTURE0 + BOIDS_TEX_DENSITY);
        glBindTexture(GL_TEXTURE_2D, r->density_tex);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glBindTexture(GL_TEXTURE_2D, 0);
        glActiveTexture(GL_TEXTURE0);
        if (depth)
            glEnable(GL_DEPTH_TEST);
    }
}

// Grows a vertex buffer to hold `bytes` (doubling: no reallocation per frame).
static void ensure(GLuint vbo, size_t *cap, size_t bytes) {
    if (bytes <= *cap)
        return;
    while (*cap < bytes)
        *cap *= 2;
    boids_render_buffer_storage(vbo, *cap);
}

// World-space primitives of the lines program.
static void draw_world(boids_render *r, GLenum mode, const float view_proj[16], const boids_line_vertex *v, size_t n) {
    if (!n)
        return;
    ensure(r->vbo_lines, &r->lines_cap, n * sizeof *v);
    boids_render_buffer_write(r->vbo_lines, n * sizeof *v, v);
    glUseProgram(r->prog_lines);
    glUniformMatrix4fv(r->loc_lines[BOIDS_LOC_VIEW_PROJ], 1, GL_FALSE, view_proj);
    glBindVertexArray(r->vao_lines);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDrawArrays(mode, 0, (GLsizei)n);
    glDisable(GL_BLEND);
}

// See boids/render.h.
void boids_render_lines(boids_render *r, const float view_proj[16], const boids_line_vertex *v, size_t n) {
    draw_world(r, GL_LINES, view_proj, v, n);
}

// See boids/render.h.
void boids_render_triangles(boids_render *r, const float view_proj[16], const boids_line_vertex *v, size_t n) {
    draw_world(r, GL_TRIANGLES, view_proj, v, n);
}

// Draws n HUD vertices (triangles) in pixels, blended.
static void draw_hud(boids_render *r, int fb_w, int fb_h, const hud_vertex *v, size_t n) {
    if (!n)
        return;
    ensure(r->vbo_hud, &r->hud_cap, n * sizeof *v);
    boids_render_buffer_write(r->vbo_hud, n * sizeof *v, v);
    glUseProgram(r->prog_hud);
    glUniform2f(r->loc_hud[BOIDS_LOC_HUD_FRAMEBUFFER], (float)fb_w, (float)fb_h);
    glBindVertexArray(r->vao_hud);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_DEPTH_TEST);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)n);
    glDisable(GL_BLEND);
}

// Two triangles of the quad a b c d (in order around it) into v.
static void quad(hud_vertex *v, float p[4][2], const float rgba[4]) {
    static const int order[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; k++) {
        memcpy(v[k].pos, p[order[k]], sizeof v[k].pos);
        memcpy(v[k].color, rgba, sizeof v[k].color);
    }
}

// See boids/render.h.
void boids_render_rect(boids_render *r, int fb_w, int fb_h, float x, float y, float w, float h, const float rgba[4]) {
    hud_vertex v[6];
    float p[4][2] = {{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}};
    quad(v, p, rgba);
    draw_hud(r, fb_w, fb_h, v, 6);
}

// See boids/render.h: stb_easy_font's quads (x, y, z, rgba8 per vertex),
// scaled about (x, y), as triangles.
void boids_render_text(boids_render *r, int fb_w, int fb_h, float x, float y, float scale, const char *text,
                       const float rgba[4]) {
    unsigned char c[4] = {255, 255, 255, 255};
    int quads = stb_easy_font_print(0.0f, 0.0f, (char *)text, c, r->quads, HUD_MAX_QUADS * 64);
    size_t n = 0;
    for (int q = 0; q < quads; q++) {
        const float *src = (const float *)(r->quads + (size_t)q * 64);
        float p[4][2];
        for (int k = 0; k < 4; k++) {
            p[k][0] = x + src[k * 4 + 0] * scale;
            p[k][1] = y + src[k * 4 + 1] * scale;
        }
        quad(r->hud + n, p, rgba);
        n += 6;
    }
    draw_hud(r, fb_w, fb_h, r->hud, n);
}

// See boids/render.h.
void boids_render_text_size(const char *text, float scale, float *w, float *h) {
    *w = (float)stb_easy_font_width((char *)text) * scale;
    *h = (float)stb_easy_font_height((char *)text) * scale;
}

// A frame's pixels (RGB, GL's bottom-up rows) on their way into a PNG.
typedef struct screenshot_png {
    const unsigned char *px;
    int w, h;
} screenshot_png;

// stb_image_write's output callback: appends the bytes to the FILE.
static void png_bytes(void *f, void *data, int size) {
    fwrite(data, 1, (size_t)size, f);
}

// Encodes the frame as a PNG into f (a boids_atomic_fill).
static bool fill_png(FILE *f, void *ctx) {
    const screenshot_png *png = ctx;
    // GL rows run bottom-up, a PNG's top-down.
    stbi_flip_vertically_on_write(1);
    return stbi_write_png_to_func(png_bytes, f, png->w, png->h, 3, png->px, png->w * 3) != 0 && !ferror(f);
}

// See boids/render.h.
boids_result boids_render_screenshot(const char *path, int w, int h, char *err, size_t err_size) {
    if (w <= 0 || h <= 0) {
        snprintf(err, err_size, "--screenshot: '%s' not written: the window has no pixels (%dx%d)", path, w, h);
        return BOIDS_ERR_IO;
    }
    unsigned char *px = malloc((size_t)w * (size_t)h * 3);
    if (!px) {
        snprintf(err, err_size, "--screenshot: '%s' not written: out of memory", path);
        return BOIDS_ERR_NOMEM;
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px);
    screenshot_png png = {px, w, h};
    boids_result r = boids_atomic_write(path, fill_png, &png);
    free(px);
    if (r == BOIDS_ERR_NOMEM) {
        snprintf(err, err_size, "--screenshot: '%s' not written: out of memory", path);
        return BOIDS_ERR_NOMEM;
    }
    if (r != BOIDS_OK) {
        snprintf(err, err_size, "--screenshot: '%s' could not be written", path);
        return BOIDS_ERR_IO;
    }
    return BOIDS_OK;
}
