// src/gl/program_source.h: the sources of a shader, assembled exactly as the
// backend hands them to glShaderSource (program.c), without GL: the tool
// boids-shader-source (tools/shader_source.c) writes them out for the
// reference compiler (tests/test_glslang.sh). Not public API.
//
// Offers: boids_shader_source_build / _free, boids_shader_source_text (the
// strings joined, as the driver reads them), boids_shader_file_at (the
// shader files built into the executable).
#ifndef BOIDS_PROGRAM_SOURCE_H
#define BOIDS_PROGRAM_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "boids/error.h"

// The most strings of one shader: the version line, emulate.glsl (only
// under an emulation), shared.h, common.glsl, rounding.glsl, trig.glsl,
// behaviors.glsl, models.glsl, grid.glsl, the stage's own part (bodies.glsl
// for bodies.comp), the stage (program_source.c checks it).
#define BOIDS_SHADER_MAX_PARTS 11

// Variants of a compute shader's defines (the flags of
// boids_shader_source_build; drawing shaders take none).
#define BOIDS_SHADER_INT64 1u // GL_ARB_gpu_shader_int64 enabled, BOIDS_INT64 defined (else 64-bit sums in uint pairs)
// The GPU kernel variant beside the reference (boids/core.h boids_kernel):
// defines BOIDS_KERNEL_MORTON in every compute stage; the same bits as the
// reference. Bits 4 and 8 are left unused, so the flags below keep their values.
#define BOIDS_SHADER_MORTON 2u // cells in Morton (Z) order: BOIDS_KERNEL_MORTON (key = the cell's rank)
// Test-only: what GLSL 4.50 lets a driver do differently, emulated
// (shaders/emulate.glsl, assembled first; the test hook emulate, src/gpu/gpu_probe.c).
#define BOIDS_SHADER_EMU_CONV_SAT 16u   // out-of-range float -> integer through 32 bits, saturating
#define BOIDS_SHADER_EMU_CONV_WRAP 32u  // the same, wrapping modulo 2^32
#define BOIDS_SHADER_EMU_ULP_UP 64u    // sqrt, inversesqrt, division 2 ULP away from zero
#define BOIDS_SHADER_EMU_ULP_DOWN 128u // sqrt, inversesqrt, division 2 ULP toward zero
#define BOIDS_SHADER_EMU_DIV_UP 1024u   // every division (the shaders rewritten by tests/div_rewrite.py) 2 ULP up
#define BOIDS_SHADER_EMU_DIV_DOWN 2048u // the same, toward zero
#define BOIDS_SHADER_EMU_TRIG 4096u     // sin, cos, tan, asin, acos, atan, log, log2, exp, exp2, pow a few ULP off
#define BOIDS_SHADER_EMU_ALL                                                                                           \
    (BOIDS_SHADER_EMU_CONV_SAT | BOIDS_SHADER_EMU_CONV_WRAP | BOIDS_SHADER_EMU_ULP_UP | BOIDS_SHADER_EMU_ULP_DOWN |     \
     BOIDS_SHADER_EMU_DIV_UP | BOIDS_SHADER_EMU_DIV_DOWN | BOIDS_SHADER_EMU_TRIG)
// sqrt and division corrected to the C's (correctly rounded) results: where
// the driver's are not (src/gpu/gpu_probe.c rounding_exact), BOIDS_CORRECT_ROUNDING.
#define BOIDS_SHADER_CORRECT 256u
// Drawing shaders only: "#version 410 core" and BOIDS_GL41 (shared.h's
// BOIDS_UNIFORM_LOC and BOIDS_BINDING empty; agents and bodies read buffer
// textures instead of storage buffers), for a GL 4.1 core context (macOS).
#define BOIDS_SHADER_GL41 512u

// One shader's source strings: texts[0] the version line, then one per file,
// each opening with "#line 1 N" (N its index).
typedef struct boids_shader_source {
    size_t count;
    const char *names[BOIDS_SHADER_MAX_PARTS]; // "(version)", then the file names
    const char *texts[BOIDS_SHADER_MAX_PARTS];
    char version[1536]; // the version line, the defines
    char *owned[BOIDS_SHADER_MAX_PARTS];
} boids_shader_source;

// Assembles the shader of `file` (a compute stage "steer.comp": after the
// prelude shared.h, common.glsl, rounding.glsl, trig.glsl, behaviors.glsl,
// models.glsl, grid.glsl and the stage's own part, if any; a drawing
// shader ".vert" / ".frag": after shared.h), from shader_dir if given, else
// the embedded files. On failure err says which file and *s holds nothing.
boids_result boids_shader_source_build(boids_shader_source *s, const char *shader_dir, const char *file, unsigned flags,
                                       char *err, size_t err_size);
// The same with more "#define ..." lines after the version's (a specialised
// steer program's BOIDS_SPEC_*, src/gpu/steer_spec.h); NULL: none.
boids_result boids_shader_source_build_with(boids_shader_source *s, const char *shader_dir, const char *file,
                                            unsigned flags, const char *defines, char *err, size_t err_size);
void boids_shader_source_free(boids_shader_source *s);

// The strings joined (malloc'd; NULL if out of memory).
char *boids_shader_source_text(const boids_shader_source *s);

// The name of the i-th embedded shader file (sorted by name), NULL past the last.
const char *boids_shader_file_at(size_t i);

#endif
