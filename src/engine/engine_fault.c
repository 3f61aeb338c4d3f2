// src/engine/engine_fault.c: the fault rule every file of the engine goes
// through (engine_private.h): after each GPU step and around every
// read-back boids_gpu_check runs, the first fault is kept, and a read-back
// is trusted only when the check after it passes; a state that is not
// finite (after each CPU step, at each GPU read-back) is a fault of its own;
// and the error-line helpers. Calls no other file of the engine.
#include <stdarg.h>
#include <stdio.h>

#include "boids/behaviors.h"
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

// BOIDS_OK while healthy (on the CPU: while the state is finite); the
// first fault is kept.
boids_result engine_healthy(boids_engine *e) {
    if (e->fault != BOIDS_OK || !e->gpu)
        return e->fault;
    e->fault = boids_gpu_check(e->gpu, e->fault_line, sizeof e->fault_line);
    return e->fault;
}

// "(x, y)" or "(x, y, z)" of a row.
static void row_text(const float v[4], uint32_t dim, char *buf, size_t size) {
    if (dim == 3)
        snprintf(buf, size, "(%g, %g, %g)", (double)v[0], (double)v[1], (double)v[2]);
    else
        snprintf(buf, size, "(%g, %g)", (double)v[0], (double)v[1]);
}

// See engine_private.h.
boids_result engine_check_finite(boids_engine *e, const float (*pos)[4], const float (*vel)[4], const uint32_t *ids,
                                 const uint32_t *group, uint32_t n, const char *where) {
    uint32_t row = boids_first_nonfinite(pos, vel, ids, n, e->sim->threads);
    if (row == UINT32_MAX)
        return BOIDS_OK;
    uint32_t id = ids ? ids[row] : row;
    const boids_params *p = &e->sim->p;
    uint32_t g = group[row];
    char behaviors[400] = "?", av[16 * 3 + 8], ap[16 * 3 + 8];
    if (g < BOIDS_MAX_GROUPS)
        boids_behaviors_text(p->group[g].behaviors, ", ", behaviors, sizeof behaviors);
    row_text(pos[row], p->world.dim, ap, sizeof ap);
    row_text(vel[row], p->world.dim, av, sizeof av);
    engine_say(e->fault_line, sizeof e->fault_line,
               "the state is not finite %s step %llu%s: agent %u of group %u (behaviours %s) has position %s and "
               "velocity %s",
               where, (unsigned long long)engine_steps_of(e),
               e->gpu ? " (read back from the GPU, whose steps are checked at its read-backs)" : "", id, g, behaviors,
               ap, av);
    e->fault = BOIDS_ERR_NONFINITE;
    e->trusted = false;
    return e->fault;
}

// See engine_private.h.
void engine_clear_nonfinite(boids_engine *e) {
    if (e->fault == BOIDS_ERR_NONFINITE) {
        e->fault = BOIDS_OK;
        e->fault_line[0] = '\0';
    }
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
    if (r == BOIDS_OK)
        r = engine_check_finite(e, (const float(*)[4])e->sim->cur.pos, (const float(*)[4])e->sim->cur.vel,
                                e->sim->cur.id, e->sim->cur.group, e->sim->n, "at");
    return r;
}
