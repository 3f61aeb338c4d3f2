// src/gl/gl_util.h: the GL utility layer shared by the compute backend
// (src/gpu) and the drawing (src/render); not public API. Needs a current GL
// 4.5 context whose functions glad has loaded.
//
// Offers: boids_program_compute / _graphics (programs built from shaders/,
// embedded or from --shader-dir, with logs that name the file),
// boids_gl_debug_enable / _disable (the debug-output callback).
#ifndef BOIDS_GL_UTIL_H
#define BOIDS_GL_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include <glad/gl.h>

#include "boids/error.h"
#include "program_source.h" // BOIDS_SHADER_INT64

// Link a compute program of `stage` (e.g. "steer.comp") after the shared
// prelude (shared.h, common.glsl, behaviors.glsl, grid.glsl); flags:
// program_source.h's BOIDS_SHADER_INT64 (only where the context has
// GL_ARB_gpu_shader_int64). On failure err gets "FILE:LINE: message" lines
// of the info log, joined by "; ".
boids_result boids_program_compute(const char *shader_dir, const char *stage, unsigned flags, GLuint *out, char *err,
                                   size_t err_size);

// Link a drawing program of a vertex and a fragment shader (e.g.
// "agents.vert", "agents.frag"), each after "#version 450 core", BOIDS_GLSL,
// BOIDS_STAGE_<FILE> (AGENTS_VERT) and shared.h; errors as above.
boids_result boids_program_graphics(const char *shader_dir, const char *vert, const char *frag, GLuint *out, char *err,
                                    size_t err_size);

// Turns debug output on and routes it to callback(…, user): synchronous (the
// callback runs inside the GL call that caused the message, so it can say
// which) unless `synchronous` is false (benchmark timing: the driver may then
// call it from its own thread).
void boids_gl_debug_enable(GLDEBUGPROC callback, const void *user, bool synchronous);

// Removes the debug-output callback (the context's messages go nowhere).
void boids_gl_debug_disable(void);

#endif
