/* boids/error.h: result codes of every library call.
 * Offers: boids_result (X-macro list of code + message), boids_result_str.
 * There is no logger callback: a call that can fail returns a boids_result
 * and, where it takes one, writes a one-line message naming what was wrong
 * into the caller's buffer (char *err, size_t err_size). */
#ifndef BOIDS_ERROR_H
#define BOIDS_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_RESULTS(X)                                                    \
    X(BOIDS_OK, "ok")                                                       \
    X(BOIDS_ERR_NOMEM, "out of memory")                                     \
    X(BOIDS_ERR_ARGUMENT, "invalid argument")                               \
    X(BOIDS_ERR_COUNT, "agent count out of range")                          \
    X(BOIDS_ERR_WORLD, "world extent must be positive and finite")          \
    X(BOIDS_ERR_RADIUS, "radius must be positive and finite")               \
    X(BOIDS_ERR_CELL, "interaction radius does not fit the world")          \
    X(BOIDS_ERR_PARAM, "parameter out of range")                            \
    X(BOIDS_ERR_PATH, "path needs 2 to 32 points and a positive radius")    \
    X(BOIDS_ERR_IO, "file could not be read or written")                    \
    X(BOIDS_ERR_FORMAT, "malformed file")                                   \
    X(BOIDS_ERR_GL, "no usable OpenGL 4.5 core context")                    \
    X(BOIDS_ERR_SHADER, "a shader failed to compile or link")               \
    X(BOIDS_ERR_GPU_LIMIT, "the GPU cannot hold this many agents")         \
    X(BOIDS_ERR_BODY, "bad arguments for a body")                          \
    X(BOIDS_ERR_GPU_LOST, "the OpenGL context was lost")                    \
    X(BOIDS_ERR_GL_ERRORS, "OpenGL reported errors")                         \
    X(BOIDS_ERR_NONFINITE, "the state is not finite")

typedef enum boids_result {
#define BOIDS_X_ENUM(code, text) code,
    BOIDS_RESULTS(BOIDS_X_ENUM)
#undef BOIDS_X_ENUM
    BOIDS_RESULT_COUNT
} boids_result;

// The fixed message of a result code.
const char *boids_result_str(boids_result r);

#ifdef __cplusplus
}
#endif

#endif
