// src/gpu/gpu_probe.c: what the backend asks of the driver before it
// builds anything: the limits (the largest agent count), whether its sqrt
// and division are correctly rounded (rounding_probe.comp against the C's),
// 64-bit integers; and the values of the test hooks (the injected fault,
// the emulated freedoms of other drivers).
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

// The largest agent count the limits allow: a vec4 per agent in one SSBO,
// dispatches within the work-group count limits (two dimensions).
uint32_t boids_gpu_max_agents(void) {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    GLint gx = 0, gy = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &gx);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &gy);
    uint64_t by_block = (uint64_t)block / 16u;
    uint64_t by_groups = (uint64_t)gx * (uint64_t)gy * BOIDS_WORKGROUP_SIZE;
    uint64_t m = by_block < by_groups ? by_block : by_groups;
    if (m > BOIDS_MAX_AGENTS)
        m = BOIDS_MAX_AGENTS;
    return (uint32_t)m;
}

// See gpu_internal.h.
boids_result gpu_parse_fault(const char *name, const char *v, fault_kind *kind, uint64_t *step, char *err,
                             size_t err_size) {
    fault_kind k = FAULT_NONE;
    unsigned long long at = 0;
    if (v && *v) {
        const char *num = NULL;
        if (strcmp(v, "oom") == 0)
            k = FAULT_OOM;
        else if (strncmp(v, "lost@", 5) == 0)
            k = FAULT_LOST, num = v + 5;
        else if (strncmp(v, "error@", 6) == 0)
            k = FAULT_ERROR, num = v + 6;
        bool ok = k != FAULT_NONE;
        if (ok && num) {
            char *end = NULL;
            errno = 0;
            at = *num >= '0' && *num <= '9' ? strtoull(num, &end, 10) : 0;
            ok = end && *end == '\0' && errno == 0 && at >= 1 && at <= MAX_FAULT_STEP;
        }
        if (!ok) {
            if (err && err_size)
                snprintf(err, err_size, "%s: '%s' is not a fault; expected lost@STEP, error@STEP (STEP 1..%llu) or oom",
                         name, v, MAX_FAULT_STEP);
            return BOIDS_ERR_ARGUMENT;
        }
    }
    if (kind)
        *kind = k;
    if (step)
        *step = at;
    return BOIDS_OK;
}

// See boids/gpu.h.
boids_result boids_gpu_fault_parse(const char *name, const char *value, char *err, size_t err_size) {
    return gpu_parse_fault(name, value, NULL, NULL, err, err_size);
}

// See boids/gpu.h.
boids_result boids_gpu_emulate_parse(const char *name, const char *value, char *err, size_t err_size) {
    unsigned flags;
    return gpu_parse_emulate(name, value, &flags, err, err_size);
}

// Runs a probe program (rounding_probe.comp) over n vec4
// inputs into n vec4 outputs, through two scratch buffers.
static void run_probe(boids_gpu *g, GLuint prog, const float (*in)[4], float (*out)[4], int n, const char *label) {
    char in_label[64], out_label[64];
    snprintf(in_label, sizeof in_label, "%s in", label);
    snprintf(out_label, sizeof out_label, "%s out", label);
    GLuint bin = gpu_buffer((size_t)n * 16, in_label), bout = gpu_buffer((size_t)n * 16, out_label);
    glNamedBufferSubData(bin, 0, (GLsizeiptr)n * 16, in);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_IN, bin);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_SSBO_SCAN_OUT, bout);
    gpu_dispatch(g, prog, (uint32_t)n, BOIDS_WORKGROUP_SIZE);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(bout, 0, (GLsizeiptr)n * 16, out);
    glDeleteBuffers(1, &bin);
    glDeleteBuffers(1, &bout);
}

static float probe_float(uint64_t *x, int lo_exp, int span) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    uint32_t bits = (uint32_t)(127 + lo_exp + (int)((*x >> 40) % (uint64_t)span)) << 23 | (uint32_t)(*x & 0x7fffffu);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

// Are this driver's sqrt and division correctly rounded (the C's results)?
// rounding_probe.comp, compiled with `flags` (the emulations, never
// BOIDS_SHADER_CORRECT), on 2^16 inputs of every magnitude the steps meet
// (2^-40..2^40), against sqrtf and / here. Any difference: false. A probe
// that cannot run: false (the correction is then compiled in: the same bits,
// only slower).
static bool rounding_exact(boids_gpu *g, unsigned flags) {
    enum { PROBES = 1 << 16 };
    float(*in)[4] = malloc(PROBES * 16), (*out)[4] = malloc(PROBES * 16);
    GLuint prog = 0;
    char err[512];
    bool exact = false;
    if (in && out &&
        boids_program_compute(g->shader_dir, "rounding_probe.comp", flags, &prog, err, sizeof err) == BOIDS_OK) {
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < PROBES; i++) {
            in[i][0] = probe_float(&x, -40, 80);
            in[i][1] = probe_float(&x, -20, 40) * ((i & 1) ? -1.0f : 1.0f);
            in[i][2] = probe_float(&x, -20, 40) * ((i & 2) ? -1.0f : 1.0f);
            in[i][3] = 0.0f;
        }
        run_probe(g, prog, (const float(*)[4])in, out, PROBES, "rounding probe");
        exact = true;
        for (int i = 0; i < PROBES && exact; i++) {
            float s = sqrtf(in[i][0]), q = in[i][1] / in[i][2], r = 1.0f / in[i][2];
            exact = memcmp(&s, &out[i][0], 4) == 0 && memcmp(&q, &out[i][1], 4) == 0 && memcmp(&r, &out[i][2], 4) == 0;
        }
        glDeleteProgram(prog);
        g->dispatched = 0; // the probe is no program of the run (boids_gpu_program_stats)
    }
    free(in);
    free(out);
    return exact;
}

// See gpu_internal.h; the items: boids/debug.h.
boids_result gpu_parse_emulate(const char *name, const char *v, unsigned *flags, char *err, size_t err_size) {
    static const struct {
        const char *name;
        unsigned flag;
    } items[] = {{"conv-sat", BOIDS_SHADER_EMU_CONV_SAT}, {"conv-wrap", BOIDS_SHADER_EMU_CONV_WRAP},
                 {"ulp-up", BOIDS_SHADER_EMU_ULP_UP},     {"ulp-down", BOIDS_SHADER_EMU_ULP_DOWN},
                 {"div-up", BOIDS_SHADER_EMU_DIV_UP},     {"div-down", BOIDS_SHADER_EMU_DIV_DOWN},
                 {"trig", BOIDS_SHADER_EMU_TRIG}};
    *flags = 0;
    for (const char *p = v ? v : ""; *p;) {
        size_t len = strcspn(p, ",");
        unsigned f = 0;
        for (size_t k = 0; k < sizeof items / sizeof items[0]; k++)
            if (strlen(items[k].name) == len && strncmp(p, items[k].name, len) == 0)
                f = items[k].flag;
        if (!f) {
            snprintf(err, err_size,
                     "%s: '%s' is not a list of emulations; expected conv-sat or conv-wrap, ulp-up or "
                     "ulp-down, div-up or div-down, trig, separated by commas",
                     name, v);
            return BOIDS_ERR_ARGUMENT;
        }
        *flags |= f;
        p += len + (p[len] == ',');
    }
    static const unsigned pairs[] = {BOIDS_SHADER_EMU_CONV_SAT | BOIDS_SHADER_EMU_CONV_WRAP,
                                     BOIDS_SHADER_EMU_ULP_UP | BOIDS_SHADER_EMU_ULP_DOWN,
                                     BOIDS_SHADER_EMU_DIV_UP | BOIDS_SHADER_EMU_DIV_DOWN};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if ((*flags & pairs[k]) == pairs[k]) {
            snprintf(err, err_size,
                     "%s: '%s' names both ways of one item; expected one of conv-sat, conv-wrap, "
                     "one of ulp-up, ulp-down and one of div-up, div-down",
                     name, v);
            return BOIDS_ERR_ARGUMENT;
        }
    return BOIDS_OK;
}

// See gpu_internal.h.
void gpu_shader_flags(boids_gpu *g, unsigned emulate, const boids_debug *debug) {
    // 64-bit integers in the shaders only where the driver says so; else
    // the sums in uint pairs, GLSL 4.50 core (the same bits; the hook
    // no_int64 forces them, for tests).
    bool int64 = GLAD_GL_ARB_gpu_shader_int64 && !debug->no_int64;
    g->shader_flags = (int64 ? BOIDS_SHADER_INT64 : 0u) | emulate;
    // sqrt and division corrected to the C's where the driver's differ (the
    // hook correct_rounding decides instead of the probe).
    bool exact = debug->correct_rounding == BOIDS_DEBUG_ROUNDING_AUTO
                     ? rounding_exact(g, g->shader_flags)
                     : debug->correct_rounding == BOIDS_DEBUG_ROUNDING_OFF;
    g->shader_flags |= exact ? 0u : BOIDS_SHADER_CORRECT;
}
