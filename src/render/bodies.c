// src/render/bodies.c: procedural bodies (procedural-animation-chains.txt)
// as instanced draws of shaders/bodies.vert, one instance per agent slot,
// reading the joints straight from the simulation's buffer (GPU backend) or
// the render's own copy (CPU backend); and the filled snake outline as a
// vertex list for the viewer's demo.
#include <string.h>

#include <glad/gl.h>

#include "boids/render.h"
#include "gl_util.h"
#include "render_internal.h"

// bodies.vert's uniforms by BOIDS_LOC_* (shared.h).
static const boids_uniform bodies_uniforms[] = {
    {BOIDS_LOC_VIEW_PROJ, "u_view_proj"}, {BOIDS_LOC_DIM, "u_dim"},        {BOIDS_LOC_PALETTE, "u_palette"},
    {BOIDS_LOC_BODY_STYLE, "u_style"},    {BOIDS_LOC_BODY_PART, "u_part"}, {BOIDS_LOC_BODY_COUNT, "u_count"},
    {BOIDS_LOC_BODY_EYE, "u_eye"},
};
// GL 4.1: its buffer textures and their units.
static const boids_uniform bodies_samplers[] = {
    {BOIDS_TEX_ID, "u_tex_id"}, {BOIDS_TEX_GROUP, "u_tex_group"}, {BOIDS_TEX_JOINTS, "u_tex_joints"}};

// See render_internal.h.
boids_result boids_render_bodies_init(boids_render *r, const char *shader_dir, char *err, size_t err_size) {
    boids_result res = boids_program_graphics(shader_dir, "bodies.vert", "bodies.frag", &r->prog_bodies, err, err_size);
    if (res != BOIDS_OK)
        return res;
    boids_program_uniforms(r->prog_bodies, bodies_uniforms, sizeof bodies_uniforms / sizeof bodies_uniforms[0],
                           r->loc_bodies, RENDER_LOCS);
    if (r->gl41) { // no binding qualifiers: the block's binding and the samplers' units set here
        glUniformBlockBinding(r->prog_bodies, glGetUniformBlockIndex(r->prog_bodies, "Bodies"), BOIDS_UBO_BODIES);
        boids_render_samplers(r->prog_bodies, bodies_samplers, sizeof bodies_samplers / sizeof bodies_samplers[0]);
    }
    r->ubo_bodies = boids_render_buffer(sizeof(boids_body_params) * BOIDS_MAX_GROUPS, "render bodies");
    return BOIDS_OK;
}

// See render_internal.h.
void boids_render_bodies_free(boids_render *r) {
    glDeleteProgram(r->prog_bodies);
    GLuint bufs[] = {r->ubo_bodies, r->own_id, r->own_joints};
    glDeleteBuffers(3, bufs);
}

// See boids/render.h.
void boids_render_own_body_buffers(const boids_render *r, uint32_t *joints, uint32_t *id, uint32_t *rows) {
    *joints = r->own_joints;
    *id = r->own_id;
    *rows = r->own_rows;
}

// One instanced draw of a part of every body of `style`, `vertices` per instance.
static void draw_part(const boids_render *r, const boids_bodies_draw *d, uint32_t style, uint32_t part, GLenum mode,
                      uint32_t vertices) {
    glUniform1ui(r->loc_bodies[BOIDS_LOC_BODY_STYLE], style);
    glUniform1ui(r->loc_bodies[BOIDS_LOC_BODY_PART], part);
    glDrawArraysInstanced(mode, 0, (GLsizei)vertices, (GLsizei)d->count);
}

// See boids/render.h: per style present, the most joints of its groups sets
// the vertices per instance; shorter bodies repeat their last point.
void boids_render_bodies(boids_render *r, const boids_bodies_draw *d) {
    if (!d->count || !d->rows || !d->joints)
        return;
    uint32_t most[BOIDS_BODY_STYLES] = {0};
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_body_params *b = &d->body[g];
        if (b->style < BOIDS_BODY_STYLES && b->joints <= d->rows && b->joints > most[b->style])
            most[b->style] = b->joints;
    }
    if (!most[BOIDS_BODY_CHAIN] && !most[BOIDS_BODY_SNAKE] && !most[BOIDS_BODY_FISH])
        return;
    if (d->eyes && (d->dim != 2 || (!most[BOIDS_BODY_SNAKE] && !most[BOIDS_BODY_FISH])))
        return;
    // after the joints' compute writes
    boids_render_use(r, r->prog_bodies, r->loc_bodies, d->view_proj, d->dim);
    boids_render_buffer_write(r->ubo_bodies, sizeof(boids_body_params) * BOIDS_MAX_GROUPS, d->body);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_UBO_BODIES, r->ubo_bodies);
    boids_render_bind_state(r, BOIDS_TEX_ID, BOIDS_SSBO_CUR_ID, GL_R32UI, d->id);
    boids_render_bind_state(r, BOIDS_TEX_GROUP, BOIDS_SSBO_CUR_GROUP, GL_R32UI, d->group);
    boids_render_bind_state(r, BOIDS_TEX_JOINTS, BOIDS_SSBO_JOINTS, GL_RGBA32F, d->joints);
    glUniform1ui(r->loc_bodies[BOIDS_LOC_BODY_COUNT], d->count);
    glUniform3f(r->loc_bodies[BOIDS_LOC_BODY_EYE], d->eye[0], d->eye[1], d->eye[2]);
    glBindVertexArray(r->vao_empty);
    // Outlines on the fills they border: the same depth passes. 2D: the
    // depth of each agent id orders whole bodies (bodies.vert).
    GLboolean depth = glIsEnabled(GL_DEPTH_TEST);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    for (uint32_t style = BOIDS_BODY_CHAIN; style < BOIDS_BODY_STYLES; style++) {
        uint32_t j = most[style];
        if (!j)
            continue;
        if (d->eyes) {
            if (style != BOIDS_BODY_CHAIN)
                draw_part(r, d, style, BOIDS_BODY_PART_EYES, GL_TRIANGLES, 12);
        } else if (style == BOIDS_BODY_CHAIN) {
            draw_part(r, d, style, BOIDS_BODY_PART_LINKS, GL_LINE_STRIP, j);
            draw_part(r, d, style, BOIDS_BODY_PART_DOTS, GL_TRIANGLES, 6 * j);
        } else {
            draw_part(r, d, style, BOIDS_BODY_PART_FILL, GL_TRIANGLE_STRIP, 2 * j + 6);
            draw_part(r, d, style, BOIDS_BODY_PART_OUTLINE, GL_LINE_STRIP, 2 * j + 7);
        }
    }
    glDepthFunc(GL_LESS);
    if (!depth)
        glDisable(GL_DEPTH_TEST);
}

// Appends the triangle a b c (points of the outline) at height z.
static size_t tri(const float (*o)[2], uint32_t a, uint32_t b, uint32_t c, float z, const float rgba[4],
                  boids_line_vertex *v, size_t m, size_t cap) {
    if (m + 3 > cap)
        return m;
    const uint32_t k[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        v[m + (size_t)i] = (boids_line_vertex){{o[k[i]][0], o[k[i]][1], z}, {rgba[0], rgba[1], rgba[2], rgba[3]}};
    }
    return m + 3;
}

// See boids/render.h. Outline indices (boids_snake_outline): 0 tail pi,
// 1 tail 5pi/6, 2 + i the left point of joint n-1-i, n+2..n+4 the head
// (pi/6, 0, -pi/6), n+5+i the right point of joint i, 2n+5 tail -5pi/6.
size_t boids_body_fill_triangles(const float (*outline)[2], uint32_t n, float z, const float rgba[4],
                                 boids_line_vertex *v, size_t m, size_t cap) {
    if (n < 2)
        return m;
    uint32_t head_l = n + 2, tip = n + 3, head_r = n + 4;
    // Left point of joint i: 2 + (n - 1 - i); right point: n + 5 + i.
#define LEFT(i) (2u + (n - 1u - (i)))
#define RIGHT(i) (n + 5u + (i))
    m = tri(outline, head_l, tip, head_r, z, rgba, v, m, cap);
    m = tri(outline, head_l, head_r, LEFT(0), z, rgba, v, m, cap);
    m = tri(outline, LEFT(0), head_r, RIGHT(0), z, rgba, v, m, cap);
    for (uint32_t i = 0; i + 1 < n; i++) {
        m = tri(outline, LEFT(i), RIGHT(i), LEFT(i + 1), z, rgba, v, m, cap);
        m = tri(outline, LEFT(i + 1), RIGHT(i), RIGHT(i + 1), z, rgba, v, m, cap);
    }
    m = tri(outline, LEFT(n - 1), RIGHT(n - 1), 1, z, rgba, v, m, cap);
    m = tri(outline, 1, RIGHT(n - 1), 2 * n + 5, z, rgba, v, m, cap);
    m = tri(outline, 1, 2 * n + 5, 0, z, rgba, v, m, cap);
#undef LEFT
#undef RIGHT
    return m;
}
