/* boids/program_stats.h: what the GL driver reveals of the GPU backend's
 * compute programs (boids-bench --program-stats): the size and format of
 * each program's binary (glGetProgramBinary) and, where the driver puts its
 * own assembly in the binary as text (NVIDIA: "!!NVcp5.0 ... END"), that
 * text's length, vec4 temporaries and local-memory arrays: the registers
 * and the spills that decide how many threads a GPU keeps in flight.
 * Shared by boids/gpu.h and boids/engine.h; no GL here.
 *
 * Offers: boids_asm_stats, boids_program_stats, boids_gpu_asm_parse (the
 * text's figures from a binary, pure: tests feed it synthetic text).
 */
#ifndef BOIDS_PROGRAM_STATS_H
#define BOIDS_PROGRAM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_ASM_LMEM_MAX 8  // local-memory arrays listed by name (more are counted)
#define BOIDS_ASM_NAME_MAX 32 // an array's name, NUL included (longer ones are cut)
#define BOIDS_PROGRAMS_MAX 16 // programs of one backend (boids_gpu_program_stats)

// One local-memory array: a TEMP declaration of an array ("TEMP lmem0[180];"),
// size in vec4 elements (0: "[]" or no number).
typedef struct boids_asm_array {
    char name[BOIDS_ASM_NAME_MAX];
    uint32_t size;
} boids_asm_array;

// The figures of a driver's assembly text in a program binary.
typedef struct boids_asm_stats {
    bool found;                                // the binary holds "!!NVcp" text; else every figure is 0
    char profile[16];                          // its first word, "!!NVcp5.0" (cut to 15 characters)
    uint32_t lines;                            // lines of the text (up to its first NUL or the binary's end)
    uint32_t temps;                            // distinct names of TEMP declarations (TEMP, LONG TEMP, INT TEMP ...),
                                               // arrays not included
    uint32_t arrays;                           // TEMP arrays declared: local memory
    boids_asm_array array[BOIDS_ASM_LMEM_MAX]; // the first min(arrays, BOIDS_ASM_LMEM_MAX) of them
    uint32_t array_uses;                       // the arrays' names as words outside their declarations and comments
} boids_asm_stats;

// One compute program of the GPU backend.
typedef struct boids_program_stats {
    const char *name;      // "key", "count", "scan", "scan_add", "scatter", "survey", "steer", "integrate",
                           // "bodies" (static strings)
    const char *shader;    // its file in shaders/ ("steer.comp")
    bool dispatched;       // the backend ran it at least once since it was made
    uint64_t binary_bytes; // GL_PROGRAM_BINARY_LENGTH (0: the driver gives no binary)
    uint32_t format;       // the binary's format enum from glGetProgramBinary (0: none)
    boids_asm_stats text;  // boids_gpu_asm_parse of the binary
} boids_program_stats;

// What the GPU backend's steer programs did: programs specialised to a
// set of parameters built (each once), steps the general steer (every
// behaviour) stepped while one was building in the background, whether
// background builds are on, and the spec of the last dispatch's program
// (one line; "" when the general steer ran it).
typedef struct boids_steer_info {
    uint32_t built;
    uint64_t general_steps;
    bool background;
    char spec[320];
} boids_steer_info;

// The figures of the assembly text in binary[0..bytes): from the first
// "!!NVcp" anywhere in it up to the first NUL after it or the end. No such
// text: out->found false and every figure 0 (BOIDS_OK). BOIDS_ERR_NOMEM when
// the distinct names cannot be counted (out then as for no text).
boids_result boids_gpu_asm_parse(const void *binary, size_t bytes, boids_asm_stats *out);

#ifdef __cplusplus
}
#endif

#endif
