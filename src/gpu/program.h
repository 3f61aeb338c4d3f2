// src/gpu/program.h: compute (and drawing) programs built from shaders/ (embedded or from
// --shader-dir), with logs that name the file (not public API).
#ifndef BOIDS_GPU_PROGRAM_H
#define BOIDS_GPU_PROGRAM_H

#include <stddef.h>

#include <glad/gl.h>

#include "boids/error.h"

// Link a compute program of `stage` (e.g. "steer.comp") after the shared
// prelude (shared.h, common.glsl, behaviors.glsl, grid.glsl). On failure
// err gets "FILE:LINE: message" lines of the info log, joined by "; ".
boids_result boids_program_compute(const char *shader_dir, const char *stage, GLuint *out, char *err,
                                   size_t err_size);

// Link a drawing program of a vertex and a fragment shader (e.g.
// "agents.vert", "agents.frag"), each after "#version 450 core", BOIDS_GLSL,
// BOIDS_STAGE_<FILE> (AGENTS_VERT) and shared.h; errors as above.
boids_result boids_program_graphics(const char *shader_dir, const char *vert, const char *frag, GLuint *out,
                                    char *err, size_t err_size);

#endif
