// src/gpu/gpu_steer.c: the steer programs specialised to the run
// (steer_spec.h), one per spec met, kept in a cache of STEER_CACHE (the
// least recently used makes way); the general steer (every behaviour, the
// parameters decide: the same bits) steps while a spec builds in the
// background or where its build failed.
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"

// Keeps the first failed build's message for boids_gpu_check.
static void steer_fail(boids_gpu *g, const char *err) {
    if (!g->steer_error[0])
        snprintf(g->steer_error, sizeof g->steer_error, "%s", err);
}

// Gives v's place in the cache to the last entry (v holds no program).
static void steer_drop(boids_gpu *g, steer_variant *v) {
    *v = g->steer[--g->steer_n];
    memset(&g->steer[g->steer_n], 0, sizeof g->steer[0]);
}

// The cached variant of spec, or NULL.
static steer_variant *steer_find(boids_gpu *g, const boids_steer_spec *spec) {
    for (uint32_t k = 0; k < g->steer_n; k++)
        if (boids_steer_spec_equal(&g->steer[k].spec, spec))
            return &g->steer[k];
    return NULL;
}

// A free place in the cache: a new one, or the least recently used built
// one's (deleted). NULL when every place holds a build in flight.
static steer_variant *steer_place(boids_gpu *g) {
    if (g->steer_n < STEER_CACHE)
        return &g->steer[g->steer_n++];
    steer_variant *old = NULL;
    for (uint32_t k = 0; k < g->steer_n; k++)
        if (g->steer[k].prog && (!old || g->steer[k].used < old->used))
            old = &g->steer[k];
    if (old) {
        if (g->steer_last == old->prog)
            g->steer_last = 0;
        glDeleteProgram(old->prog);
        memset(old, 0, sizeof *old);
    }
    return old;
}

// See gpu_internal.h: `background` where the driver compiles in its own
// threads.
boids_result gpu_steer_build(boids_gpu *g, const boids_steer_spec *spec, bool background, char *err, size_t err_size) {
    if (steer_find(g, spec))
        return BOIDS_OK;
    steer_variant *v = steer_place(g);
    if (!v)
        return BOIDS_OK; // every place building: this spec waits for a later call
    char defines[1024];
    if (!boids_steer_spec_defines(spec, defines, sizeof defines)) {
        snprintf(err, err_size, "steer.comp: the spec's defines exceed %zu bytes", sizeof defines);
        g->steer_n--;
        return BOIDS_ERR_SHADER;
    }
    v->spec = *spec;
    boids_result r = boids_program_compute_start(g->shader_dir, STEER_SHADER, g->shader_flags | g->kernel_flags,
                                                 defines, &v->build, err, err_size);
    if (r == BOIDS_OK && !background)
        r = boids_program_build_finish(&v->build, &v->prog, err, err_size);
    if (r != BOIDS_OK) {
        steer_drop(g, v);
        return r;
    }
    g->steer_built++;
    return BOIDS_OK;
}

// The general steer (every behaviour), built now if it is not.
static GLuint steer_general(boids_gpu *g) {
    char err[512] = "";
    boids_result r = BOIDS_OK;
    if (!g->prog[STAGE_STEER] && g->steer_general_build.program)
        r = boids_program_build_finish(&g->steer_general_build, &g->prog[STAGE_STEER], err, sizeof err);
    else if (!g->prog[STAGE_STEER])
        r = boids_program_compute(g->shader_dir, STEER_SHADER, g->shader_flags | g->kernel_flags, &g->prog[STAGE_STEER],
                                  err, sizeof err);
    if (r != BOIDS_OK)
        steer_fail(g, err);
    return g->prog[STAGE_STEER];
}

// The steer program for the current parameters: the spec's, built now if
// it is new (or, with background builds, started; the general steer steps
// until it is ready - the same bits). A failed build leaves its error for
// boids_gpu_check and the general steer stepping.
GLuint gpu_steer_program(boids_gpu *g) {
    if (g->steer_general_only)
        return steer_general(g);
    boids_steer_spec spec;
    boids_steer_spec_of(&g->world_gpu, g->p.group, &spec);
    steer_variant *v = steer_find(g, &spec);
    char err[512] = "";
    if (!v) {
        boids_result r = gpu_steer_build(g, &spec, g->background, err, sizeof err);
        if (r != BOIDS_OK) {
            steer_fail(g, err);
            return steer_general(g);
        }
        v = steer_find(g, &spec);
        if (!v) // the cache is full of builds in flight
            return steer_general(g);
    }
    if (!v->prog && v->build.program) {
        // Building: ready, or no general steer to step with yet, finishes it.
        bool general = g->prog[STAGE_STEER] ||
                       (g->steer_general_build.program && boids_program_build_ready(&g->steer_general_build));
        if (boids_program_build_ready(&v->build) || !general) {
            boids_result r = boids_program_build_finish(&v->build, &v->prog, err, sizeof err);
            if (r != BOIDS_OK) {
                steer_fail(g, err);
                steer_drop(g, v);
                return steer_general(g);
            }
        } else {
            g->steer_general_steps++;
            return steer_general(g);
        }
    }
    v->used = ++g->steer_uses;
    return v->prog;
}

// See boids/gpu.h.
void boids_gpu_prepare(boids_gpu *g, const boids_group_params group[BOIDS_MAX_GROUPS]) {
    if (!g || !group)
        return;
    if (gpu_lost(g) || !g->background)
        return;
    boids_steer_spec spec;
    boids_steer_spec_of(&g->world_gpu, group, &spec);
    char err[512] = "";
    if (gpu_steer_build(g, &spec, true, err, sizeof err) != BOIDS_OK)
        steer_fail(g, err);
}

// See boids/gpu.h.
void boids_gpu_steer_info(const boids_gpu *g, boids_steer_info *out) {
    if (!out)
        return;
    if (!g) {
        memset(out, 0, sizeof *out);
        return;
    }
    memset(out, 0, sizeof *out);
    out->built = g->steer_built;
    out->general_steps = g->steer_general_steps;
    out->background = g->background;
    for (uint32_t k = 0; k < g->steer_n; k++)
        if (g->steer[k].prog && g->steer[k].prog == g->steer_last)
            boids_steer_spec_name(&g->steer[k].spec, out->spec, sizeof out->spec);
}
