// tests/probe.h: probe shaders of the GPU suites. A probe is a compute
// program built from some of shaders/' files and a main() of the test's:
// it reads n uvec4 (or vec4) items from binding 0 and writes n uvec4 to
// binding 1, 64 invocations a group; the test compares them with the C's
// bits. Needs a current GL 4.5 context and BOIDS_SHADER_DIR.
#ifndef BOIDS_TEST_PROBE_H
#define BOIDS_TEST_PROBE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <glad/gl.h>

// A float's bits and back, and a xorshift64 generator of test inputs (the
// probes compare bits, never values).
static inline float probe_bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint32_t probe_float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline uint64_t probe_rng(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

// A file of the source tree's shaders/ (malloc'd).
static inline char *probe_shader_file(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", BOIDS_SHADER_DIR, name);
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    ck_assert(t && fread(t, 1, (size_t)n, fp) == (size_t)n);
    t[n] = '\0';
    fclose(fp);
    return t;
}

// Compiles the probe of the `count` source strings (failing the test, with
// the driver's log and `what`, if it does not compile or link), runs it over
// n items (n a multiple of 64) of buffer bin into bout, and reads the n
// results into out.
static inline void probe_run(const char *const *texts, int count, GLuint bin, GLuint bout, int n, uint32_t (*out)[4],
                             const char *what) {
    GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(sh, count, texts, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    char log[4096] = "";
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    glGetShaderInfoLog(sh, sizeof log, NULL, log);
    ck_assert_msg(ok, "%s does not compile: %s", what, log);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, sh);
    glLinkProgram(prog);
    glDeleteShader(sh);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    ck_assert_msg(ok, "%s does not link", what);
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bin);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, bout);
    glDispatchCompute((GLuint)n / 64, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    memset(out, 0, (size_t)n * 16);
    glGetNamedBufferSubData(bout, 0, (GLsizeiptr)n * 16, out);
    glDeleteProgram(prog);
}

#endif
