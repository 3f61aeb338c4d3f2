// src/gl/gl_util.h: the GL utility layer shared by the compute backend
// (src/gpu) and the drawing (src/render); not public API. Needs a current GL
// 4.5 context whose functions glad has loaded.
//
// Offers: boids_program_compute / _graphics (programs built from shaders/,
// embedded or from --shader-dir, with logs that name the file),
// boids_program_compute_start / _build_ready / _build_finish (a build the
// driver may do in its own threads), boids_program_parallel,
// boids_gl_debug_enable / _disable (the debug-output callback).
#ifndef BOIDS_GL_UTIL_H
#define BOIDS_GL_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include <glad/gl.h>

#include "boids/error.h"
#include "program_source.h" // BOIDS_SHADER_INT64

// Link a compute program of `stage` (e.g. "steer.comp") after the shared
// prelude (shared.h, common.glsl, ..., behaviors.glsl, models.glsl,
// grid.glsl: program_source.c); flags:
// program_source.h's BOIDS_SHADER_INT64 (only where the context has
// GL_ARB_gpu_shader_int64). On failure err gets "FILE:LINE: message" lines
// of the info log, joined by "; ".
boids_result boids_program_compute(const char *shader_dir, const char *stage, unsigned flags, GLuint *out, char *err,
                                   size_t err_size);

// A compute program being built: boids_program_compute_start hands the
// driver the sources and asks for the link without waiting for it, so a
// driver that compiles in its own threads (GL_KHR_parallel_shader_compile,
// enabled by boids_program_parallel) does so while the caller goes on;
// boids_program_build_ready says, without blocking, whether _finish would
// wait; _finish waits if it must and checks the logs (the shader is then
// deleted; on failure the program too).
typedef struct boids_program_build {
    GLuint shader, program;
    const char *stage;
    size_t count;                              // source strings
    const char *names[BOIDS_SHADER_MAX_PARTS]; // their file names (static strings), for the log
} boids_program_build;
boids_result boids_program_compute_start(const char *shader_dir, const char *stage, unsigned flags, const char *defines,
                                         boids_program_build *b, char *err, size_t err_size);
bool boids_program_build_ready(const boids_program_build *b);
boids_result boids_program_build_finish(boids_program_build *b, GLuint *out, char *err, size_t err_size);

// Asks the driver for its own compiler threads (GL_KHR_parallel_shader_compile
// or the ARB's); false where it offers neither (builds then finish within
// glLinkProgram or at the first query).
bool boids_program_parallel(void);

// Link a drawing program of a vertex and a fragment shader (e.g.
// "agents.vert", "agents.frag"), each after "#version 450 core", BOIDS_GLSL,
// BOIDS_STAGE_<FILE> (AGENTS_VERT) and shared.h; errors as above. On a
// context below 4.5 (boids_gl41) "#version 410 core" and BOIDS_GL41
// (program_source.h BOIDS_SHADER_GL41).
boids_result boids_program_graphics(const char *shader_dir, const char *vert, const char *frag, GLuint *out, char *err,
                                    size_t err_size);

// Is the current context below OpenGL 4.5 (the viewer's GL 4.1 core on
// --backend cpu)? Then drawing uses only GL 4.1: no storage buffers,
// explicit uniform locations, DSA or memory barriers.
bool boids_gl41(void);

// A drawing program's uniform: its BOIDS_LOC_* (shared.h) and GLSL name.
typedef struct boids_uniform {
    int loc;
    const char *name;
} boids_uniform;
// map[u.loc] = glGetUniformLocation(program, u.name) for each of the n
// uniforms (-1 where the program has none of that name); every other entry
// of map (map_size of them) -1. On 4.5 a found location equals its
// BOIDS_LOC_* (layout(location)); on 4.1 it is the driver's.
void boids_program_uniforms(GLuint program, const boids_uniform *u, size_t n, GLint *map, size_t map_size);

// A debug label on a GL object where the context has them (4.3 or
// GL_KHR_debug); nothing elsewhere (macOS's 4.1).
void boids_gl_label(GLenum identifier, GLuint name, const char *label);

// Does the context offer debug output (4.3 or GL_KHR_debug)?
bool boids_gl_debug_available(void);

// Turns debug output on and routes it to callback(…, user): synchronous (the
// callback runs inside the GL call that caused the message, so it can say
// which) unless `synchronous` is false (benchmark timing: the driver may then
// call it from its own thread).
void boids_gl_debug_enable(GLDEBUGPROC callback, const void *user, bool synchronous);

// Removes the debug-output callback (the context's messages go nowhere).
void boids_gl_debug_disable(void);

#endif
