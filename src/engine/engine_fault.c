// src/engine/engine_fault.c: the fault rule every file of the engine goes
// through (engine_private.h): after each GPU step and around every
// read-back boids_gpu_check runs, the first fault is kept, and a read-back
// is trusted only when the check after it passes; and the error-line
// helpers. Calls no other file of the engine.
#include <stdarg.h>
#include <stdio.h>

#include "engine_private.h"

// Copies printf-style text into err (NULL or size 0: nothing).
void engine_say(char *err, size_t size, const char *fmt, ...) {
    if (!err || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

// See engine_private.h.
bool engine_null(const void *ptr, const char *fn, const char *what, const char *expected, char *err, size_t err_size) {
    if (ptr)
        return false;
    engine_say(err, err_size, "%s: %s is NULL; expected %s", fn, what, expected);
    return true;
}

// The GPU step counter, or the CPU's.
uint64_t engine_steps_of(const boids_engine *e) {
    return e->gpu ? boids_gpu_steps(e->gpu) : e->sim->step;
}

// BOIDS_OK while healthy (always on the CPU); the first fault is kept.
boids_result engine_healthy(boids_engine *e) {
    if (!e->gpu)
        return BOIDS_OK;
    if (e->fault == BOIDS_OK)
        e->fault = boids_gpu_check(e->gpu, e->fault_line, sizeof e->fault_line);
    return e->fault;
}

// The GPU state into the mirror (nothing on the CPU): only while healthy,
// and trusted only if the check after the download passes (a fault during
// it leaves the mirror untrusted: nothing is written from it any more).
boids_result engine_readback(boids_engine *e) {
    boids_result r = engine_healthy(e);
    if (!e->gpu || r != BOIDS_OK)
        return r;
    if (e->bodies_stale) { // the mirror's bodies as the GPU's, so its joints are read too
        r = boids_sim_set_bodies(e->sim, e->sim->p.body);
        if (r != BOIDS_OK)
            return r;
        e->bodies_stale = false;
    }
    boids_gpu_download(e->gpu, e->sim); // a loss part way leaves the mirror partly overwritten
    e->trusted = (r = engine_healthy(e)) == BOIDS_OK;
    return r;
}
