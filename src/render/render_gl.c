// src/render/render_gl.c: the GL calls the render's files share (see
// render_internal.h), below render.c, bodies.c and upload.c: buffers made
// and written, the simulation's state bound for the drawing shaders (a
// storage buffer on 4.5, a buffer texture on 4.1), samplers, and a drawing
// program bound with its common uniforms.
#include <glad/gl.h>

#include "gl_util.h"
#include "render_internal.h"

// See render_internal.h.
void boids_render_buffer_storage(GLuint buffer, size_t bytes) {
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)bytes, NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
}

// See render_internal.h.
void boids_render_buffer_write(GLuint buffer, size_t bytes, const void *data) {
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, 0, (GLsizeiptr)bytes, data);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
}

// See render_internal.h.
GLuint boids_render_buffer(size_t bytes, const char *label) {
    GLuint b;
    glGenBuffers(1, &b);
    boids_render_buffer_storage(b, bytes ? bytes : 16);
    boids_gl_label(GL_BUFFER, b, label);
    return b;
}

// See render_internal.h.
void boids_render_bind_state(const boids_render *r, int unit, GLuint binding, GLenum format, GLuint buffer) {
    if (!r->gl41) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buffer);
        return;
    }
    glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
    glBindTexture(GL_TEXTURE_BUFFER, r->tex[unit]);
    glTexBuffer(GL_TEXTURE_BUFFER, format, buffer);
    glActiveTexture(GL_TEXTURE0);
}

// See render_internal.h.
void boids_render_samplers(GLuint program, const boids_uniform *units, size_t n) {
    glUseProgram(program);
    for (size_t i = 0; i < n; i++)
        glUniform1i(glGetUniformLocation(program, units[i].name), units[i].loc);
    glUseProgram(0);
}

// See render_internal.h.
void boids_render_use(const boids_render *r, GLuint program, const GLint *loc, const float *view_proj, uint32_t dim) {
    if (!r->gl41) // GL 4.1 has no compute writes to wait for (nor glMemoryBarrier)
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(program);
    glUniformMatrix4fv(loc[BOIDS_LOC_VIEW_PROJ], 1, GL_FALSE, view_proj);
    glUniform1ui(loc[BOIDS_LOC_DIM], dim);
    glUniform3fv(loc[BOIDS_LOC_PALETTE], BOIDS_MAX_GROUPS, &r->palette[0][0]);
}
