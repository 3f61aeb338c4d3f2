// src/gpu/program.h: compute programs built from shaders/ (embedded or from
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

#endif
