// src/engine/engine.c: one simulation behind one handle (boids/engine.h).
// The CPU backend is a boids_sim; the GPU backend is a boids_gpu (on a
// headless EGL context of its own, a shared one, or the caller's) plus a
// boids_sim mirror that holds the last state read back, from which
// snapshots, CSV, recordings and statistics are made (engine_io.c). The
// CPU/GPU forks of every executable live here; the fault rule they follow
// is engine_fault.c's, the test hooks' filling engine_debug.c's.
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "boids/behaviors.h"
#include "boids/snapshot.h"
#include "engine_private.h"

// Headless EGL contexts this library has open (engines' own and
// boids_engine_headless ones): at most one. Opening a second would make it
// current, so every GL call of the engines on the first would run on the
// second (on its objects of the same names), and destroying either
// terminates the EGL display the other is on.
static unsigned egl_open;

// Refuses a second headless context (see egl_open) with err saying why.
static boids_result egl_available(char *err, size_t err_size) {
    if (egl_open == 0)
        return BOIDS_OK;
    engine_say(err, err_size,
               "gpu: a headless context of the engine is open already (an engine's own or a "
               "boids_engine_headless); expected one at a time: share one boids_engine_headless between GPU engines");
    return BOIDS_ERR_ARGUMENT;
}

// The parameters of desc, finalized, and the distribution.
static boids_result desc_params(const boids_engine_desc *d, boids_params *p, boids_distribution *dist, char *err,
                                size_t err_size) {
    if (d->params) {
        *p = *d->params;
        *dist = d->distribution;
    } else if (d->scenario) {
        *p = d->scenario->params;
        *dist = (boids_distribution)d->scenario->distribution;
    } else {
        boids_params_default(p, d->count ? d->count : 1000, d->dim ? d->dim : 2);
        *dist = d->distribution;
    }
    p->flow.vec = NULL; // the sim builds and owns its own
    if (d->seed) {
        p->world.seed_lo = (uint32_t)d->seed;
        p->world.seed_hi = (uint32_t)(d->seed >> 32);
    }
    char what[256] = "";
    boids_result r = boids_params_finalize(p, what, sizeof what);
    if (r != BOIDS_OK)
        engine_say(err, err_size, "params: %s (%s)", boids_result_str(r), what);
    return r;
}

// The GPU backend over the mirror's state: a context (the caller's or a
// headless one), the programs and buffers, the upload.
static boids_result open_gpu(boids_engine *e, const boids_engine_desc *d, char *err, size_t err_size) {
    char none[1]; // boids_egl_create and the program builder write err unconditionally; the header allows NULL
    if (!err || !err_size) {
        err = none;
        err_size = sizeof none;
    }
    boids_debug hooks; // checked before any GL
    engine_debug_text hooks_text;
    boids_result r = engine_debug(&d->debug, &hooks, &hooks_text, err, err_size);
    if (r != BOIDS_OK)
        return r;
    boids_gl_loadfn load = d->gl_load;
    if (!load && d->headless) {
        load = boids_gl_loader(d->headless->gl);
    } else if (!load) {
        r = egl_available(err, err_size);
        if (r == BOIDS_OK)
            r = boids_egl_create(&e->gl, err, err_size);
        if (r != BOIDS_OK)
            return r;
        egl_open++;
        load = boids_gl_loader(e->gl);
    }
    boids_gpu_desc gd = {.params = &e->sim->p,
                         .load = load,
                         .shader_dir = d->shader_dir,
                         .quiet = d->quiet,
                         .timing = d->timing,
                         .silent_errors = d->silent_errors,
                         .kernel = d->kernel,
                         .background_builds = d->background_builds,
                         .debug = hooks};
    r = boids_gpu_create(&e->gpu, &gd, err, err_size);
    if (r != BOIDS_OK)
        return r;
    boids_gpu_upload(e->gpu, e->sim);
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    snprintf(e->renderer, sizeof e->renderer, "%s", renderer ? renderer : "?");
    if (e->gl || (!d->gl_load && d->headless))
        snprintf(e->context, sizeof e->context, "%s", boids_gl_context_describe(e->gl ? e->gl : d->headless->gl));
    else
        snprintf(e->context, sizeof e->context, "the caller's context, %s",
                 boids_gpu_robust(e->gpu) ? "robust" : "not robust");
    snprintf(e->describe, sizeof e->describe, "gpu: %s (%s)", e->renderer, e->context);
    return BOIDS_OK;
}

// See engine_private.h.
boids_result engine_auto_grid(boids_engine *e, char *err, size_t err_size) {
    boids_sim *s = e->sim;
    if (!(s->p.world.grid_fine & BOIDS_GRID_FINE_AUTO))
        return BOIDS_OK;
    double occ = 0.0;
    if (e->gpu) {
        if (boids_gpu_grid_occupancy(e->gpu, &occ) != BOIDS_OK)
            occ = boids_grid_occupancy(&s->p.world, s->grid.start, s->n); // none built yet: the mirror's (the upload's)
    } else {
        occ = boids_grid_occupancy(&s->p.world, s->grid.start, s->n);
    }
    uint32_t m = boids_grid_fine_choose(&s->p, occ);
    if (m == boids_world_grid_fine(&s->p.world))
        return BOIDS_OK;
    boids_params q = s->p;
    q.flow.vec = NULL;
    q.world.grid_fine = boids_grid_fine_word(m, true);
    char what[256] = "";
    boids_result r = boids_params_finalize(&q, what, sizeof what);
    if (r != BOIDS_OK) {
        engine_say(err, err_size, "grid fine: M %u refused: %s", m, what);
        return r;
    }
    if (e->gpu && (r = boids_gpu_set_grid(e->gpu, &q, err, err_size)) != BOIDS_OK)
        return r;
    if ((r = boids_sim_set_grid(s, &q)) != BOIDS_OK) {
        engine_say(err, err_size, "grid fine: the grid of %u cells: %s", q.world.cells[3], boids_result_str(r));
        return r;
    }
    // The scenario's copy follows (its schedule writes the world back each step).
    boids_world_params *sw = &e->scen->params.world;
    memcpy(sw->cells, q.world.cells, sizeof sw->cells);
    memcpy(sw->cell, q.world.cell, sizeof sw->cell);
    memcpy(sw->inv_cell, q.world.inv_cell, sizeof sw->inv_cell);
    sw->grid_fine = q.world.grid_fine;
    e->fine_changes++;
    return BOIDS_OK;
}

// The rest of create and load once e->sim and e->scen hold what to simulate.
static boids_result finish(boids_engine *e, const boids_engine_desc *d, char *err, size_t err_size) {
    // The update order: desc's, or where desc has the default (parallel)
    // the sim's (a loaded snapshot's: a sequential run continues so).
    boids_update saved = e->sim->update;
    boids_result hr = engine_nan_hook(e, err, err_size);
    if (hr != BOIDS_OK)
        return hr;
    e->backend = d->backend;
    e->sim->threads = d->threads;
    e->sim->index = d->index;
    e->sim->update = d->update != BOIDS_UPDATE_PARALLEL ? d->update : saved;
    e->trusted = true;
    e->dynamic = boids_scenario_is_dynamic(e->scen);
    if (d->backend == BOIDS_BACKEND_GPU && d->index != BOIDS_INDEX_GRID) {
        engine_say(err, err_size, "index: %s is not available on the GPU; expected grid",
                   d->index == BOIDS_INDEX_QUADTREE ? "quadtree" : "brute");
        return BOIDS_ERR_ARGUMENT;
    }
    if (d->update != BOIDS_UPDATE_PARALLEL && d->update != BOIDS_UPDATE_SEQUENTIAL) {
        engine_say(err, err_size, "update: %d is not an update order; expected parallel (0) or sequential (1)",
                   (int)d->update);
        return BOIDS_ERR_ARGUMENT;
    }
    if (d->backend == BOIDS_BACKEND_GPU && e->sim->update != BOIDS_UPDATE_PARALLEL) {
        engine_say(err, err_size,
                   "update: sequential%s is not available on the GPU (every agent steers from the same state); "
                   "expected parallel",
                   d->update == BOIDS_UPDATE_PARALLEL ? " (the snapshot's: the run was saved so)" : "");
        return BOIDS_ERR_ARGUMENT;
    }
    if ((unsigned)d->kernel >= BOIDS_KERNEL_KINDS) {
        engine_say(err, err_size, "kernel: %d is not a kernel; expected reference (0) to morton (%d)", (int)d->kernel,
                   BOIDS_KERNEL_KINDS - 1);
        return BOIDS_ERR_ARGUMENT;
    }
    if (d->backend != BOIDS_BACKEND_GPU && d->kernel != BOIDS_KERNEL_REFERENCE) {
        engine_say(err, err_size, "kernel: %s is a GPU kernel; the CPU backend has only reference",
                   boids_kernel_names[d->kernel]);
        return BOIDS_ERR_ARGUMENT;
    }
    // grid_fine auto measures the grid of the state it starts from (a loaded
    // snapshot's or the caller's agents, not the ones create drew first).
    if (e->sim->p.world.grid_fine & BOIDS_GRID_FINE_AUTO)
        boids_sim_build_grid(e->sim);
    if (d->backend == BOIDS_BACKEND_GPU) {
        boids_result r = open_gpu(e, d, err, err_size);
        return r == BOIDS_OK ? engine_auto_grid(e, err, err_size) : r;
    }
    boids_result r = engine_auto_grid(e, err, err_size);
    if (r != BOIDS_OK)
        return r;
    int threads = d->threads > 0 ? d->threads : omp_get_max_threads();
    snprintf(e->describe, sizeof e->describe, "cpu (%d thread%s)", threads, threads == 1 ? "" : "s");
    snprintf(e->context, sizeof e->context, "none");
    return BOIDS_OK;
}

// A new, empty engine with its scenario allocated.
static boids_engine *engine_new(void) {
    boids_engine *e = calloc(1, sizeof *e);
    if (e && !(e->scen = malloc(sizeof *e->scen))) {
        free(e);
        e = NULL;
    }
    return e;
}

// Why boids_sim_create(p) failed with r: an image flow field's picture that
// cannot be read (BOIDS_ERR_IO) is named with the reason, else r.
static void say_not_created(const boids_params *p, boids_result r, char *err, size_t err_size) {
    char why[300];
    uint64_t hash;
    if (r == BOIDS_ERR_IO && p->flow.kind == BOIDS_FLOW_IMAGE &&
        boids_flowfield_image_hash(p->flow.image, &hash, why, sizeof why) != BOIDS_OK)
        engine_say(err, err_size, "the flow-field image '%s' %s; expected a PNG file", p->flow.image, why);
    else
        engine_say(err, err_size, "cannot create a simulation of %u agents: %s", p->world.count, boids_result_str(r));
}

// The initial agents of a desc, held to boids-run --init's rules (a state a
// step leaves): a group the parameters have, inside the world, no faster
// than the agent's maxspeed; nothing is moved or slowed down without a word.
static boids_result check_initial_agents(const boids_params *p, const boids_engine_desc *d, char *err,
                                         size_t err_size) {
    for (uint32_t i = 0; i < p->world.count; i++) {
        char why[200];
        if (d->group[i] >= p->world.group_count) {
            engine_say(err, err_size,
                       "agents: agent %u is in group %u, and the parameters have %u group%s (0..%u); expected "
                       "the groups of the scenario or options",
                       i, d->group[i], p->world.group_count, p->world.group_count == 1 ? "" : "s",
                       p->world.group_count - 1);
            return BOIDS_ERR_ARGUMENT;
        }
        if (boids_agent_check(p, i, d->pos[i], d->vel[i], d->group[i], why, sizeof why)) {
            engine_say(err, err_size,
                       "agents: agent %u %s; expected agents inside the world and no faster than their maxspeed", i,
                       why);
            return BOIDS_ERR_ARGUMENT;
        }
    }
    return BOIDS_OK;
}

// See boids/engine.h.
boids_result boids_engine_create(boids_engine **out, const boids_engine_desc *desc, char *err, size_t err_size) {
    if (engine_null(out, "boids_engine_create", "out", "where to put the engine", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    *out = NULL;
    static const boids_engine_desc zero = {0};
    const boids_engine_desc *d = desc ? desc : &zero;
    if (d->backend != BOIDS_BACKEND_CPU && d->backend != BOIDS_BACKEND_GPU) {
        engine_say(err, err_size, "backend: %d is not a backend; expected cpu (0) or gpu (1)", (int)d->backend);
        return BOIDS_ERR_ARGUMENT;
    }
    boids_engine *e = engine_new();
    if (!e)
        return BOIDS_ERR_NOMEM;
    boids_params p;
    boids_distribution dist;
    boids_result r = desc_params(d, &p, &dist, err, err_size);
    if (r == BOIDS_OK && (r = boids_sim_create(&e->sim, &p, dist)) != BOIDS_OK)
        say_not_created(&p, r, err, err_size);
    if (r == BOIDS_OK && (!d->pos != !d->vel || !d->pos != !d->group)) {
        engine_say(err, err_size, "agents: pos, vel and group are given %s, %s, %s; expected all three or none",
                   d->pos ? "yes" : "no", d->vel ? "yes" : "no", d->group ? "yes" : "no");
        r = BOIDS_ERR_ARGUMENT;
    }
    if (r == BOIDS_OK && d->pos)
        r = check_initial_agents(&e->sim->p, d, err, err_size);
    if (r == BOIDS_OK && d->pos && (r = boids_sim_set_agents(e->sim, d->pos, d->vel, d->group)) != BOIDS_OK)
        engine_say(err, err_size, "agents: rejected by the simulation: %s", boids_result_str(r));
    if (r == BOIDS_OK) {
        if (d->scenario)
            *e->scen = *d->scenario;
        else
            boids_scenario_default(e->scen);
        e->scen->params = e->sim->p;
        e->scen->params.flow.vec = NULL;
        r = finish(e, d, err, err_size);
    }
    if (r != BOIDS_OK) {
        boids_engine_destroy(e);
        return r;
    }
    *out = e;
    return BOIDS_OK;
}

// See boids/engine.h.
boids_result boids_engine_create_scenario(boids_engine **out, const char *name_or_path, const boids_engine_desc *desc,
                                          char *err, size_t err_size) {
    if (engine_null(out, "boids_engine_create_scenario", "out", "where to put the engine", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    *out = NULL;
    char path[1024];
    if (!name_or_path || !boids_scenario_find(name_or_path, path, sizeof path)) {
        engine_say(err, err_size,
                   "scenario: '%s' is not a file and no scenarios directory was found; expected a scenario file "
                   "(.ini) or a shipped scenario's name (set BOIDS_SCENARIOS to their directory)",
                   name_or_path ? name_or_path : "(null)");
        return BOIDS_ERR_IO;
    }
    boids_scenario *sc = malloc(sizeof *sc);
    if (!sc)
        return BOIDS_ERR_NOMEM;
    boids_result r = boids_scenario_load(path, sc, err, err_size);
    if (r == BOIDS_OK) {
        static const boids_engine_desc zero = {0};
        boids_engine_desc d = desc ? *desc : zero;
        d.scenario = sc;
        d.params = NULL;
        r = boids_engine_create(out, &d, err, err_size);
    }
    free(sc);
    return r;
}

// See boids/engine.h.
boids_result boids_engine_load(boids_engine **out, const char *path, const boids_engine_desc *desc, char *err,
                               size_t err_size) {
    if (engine_null(out, "boids_engine_load", "out", "where to put the engine", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    *out = NULL;
    if (engine_null(path, "boids_engine_load", "path", "a .boids snapshot file", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    static const boids_engine_desc zero = {0};
    boids_engine *e = engine_new();
    if (!e)
        return BOIDS_ERR_NOMEM;
    boids_result r = boids_snapshot_load(path, &e->sim, e->scen, err, err_size);
    if (r == BOIDS_OK)
        r = finish(e, desc ? desc : &zero, err, err_size);
    if (r != BOIDS_OK) {
        boids_engine_destroy(e);
        return r;
    }
    *out = e;
    return BOIDS_OK;
}

// See boids/engine.h.
void boids_engine_destroy(boids_engine *e) {
    if (!e)
        return;
    boids_record_close(e->rec, NULL, 0);
    boids_gpu_destroy(e->gpu);
    if (e->gl) {
        boids_gl_context_destroy(e->gl);
        egl_open--;
    }
    boids_sim_destroy(e->sim);
    free(e->scen);
    free(e);
}

// What a scenario's schedule sets before a step (the target, the varying
// weights), kept to be put back when the step is cut short: the params
// are then those of the last whole step, as a snapshot of it holds them.
typedef struct schedule_kept {
    float target_pos[4], target_vel[4];
    float weight[BOIDS_SCENARIO_MAX_VARY];
} schedule_kept;

static void schedule_keep(const boids_engine *e, schedule_kept *k) {
    memcpy(k->target_pos, e->sim->p.world.target_pos, sizeof k->target_pos);
    memcpy(k->target_vel, e->sim->p.world.target_vel, sizeof k->target_vel);
    for (uint32_t i = 0; i < e->scen->vary_count; i++) {
        const boids_vary *v = &e->scen->vary[i];
        k->weight[i] = *boids_weight_ref(&e->sim->p.group[v->group], v->behavior);
    }
}

static void schedule_restore(boids_engine *e, const schedule_kept *k) {
    memcpy(e->sim->p.world.target_pos, k->target_pos, sizeof k->target_pos);
    memcpy(e->sim->p.world.target_vel, k->target_vel, sizeof k->target_vel);
    for (uint32_t i = 0; i < e->scen->vary_count; i++) {
        const boids_vary *v = &e->scen->vary[i];
        *boids_weight_ref(&e->sim->p.group[v->group], v->behavior) = k->weight[i];
    }
}

// See engine_private.h: a fault on the read-back: no frame, the fault
// returned.
boids_result engine_record_due(boids_engine *e) {
    if (!e->rec || (boids_record_frames(e->rec) > 0 && engine_steps_of(e) % e->rec_every != 0))
        return BOIDS_OK;
    boids_result r = engine_readback(e);
    if (r != BOIDS_OK)
        return r;
    bool written = false;
    if ((r = boids_record_frame(e->rec, e->sim, &written, e->error, sizeof e->error)) != BOIDS_OK)
        return r;
    if (written)
        e->rec_last_step = e->sim->step;
    return BOIDS_OK;
}

// See boids/engine.h.
boids_result boids_engine_step(boids_engine *e, uint64_t n, uint64_t *done) {
    if (done)
        *done = 0;
    if (!e)
        return BOIDS_ERR_ARGUMENT;
    uint64_t k = 0;
    boids_result r = engine_healthy(e);
    for (; k < n && r == BOIDS_OK; k++) {
        if (e->cancel && *e->cancel)
            break;
        schedule_kept kept;
        memset(&kept, 0, sizeof kept);
        if (e->dynamic) { // the scenario's moving target and varying weights at this step
            if (e->cancel && !e->gpu)
                schedule_keep(e, &kept);
            boids_scenario_at_step(e->scen, engine_steps_of(e), &e->sim->p);
            if (e->gpu)
                boids_gpu_set_params(e->gpu, &e->sim->p);
        }
        if (e->gpu) {
            boids_gpu_step(e->gpu);
            if ((r = engine_healthy(e)) != BOIDS_OK) // no wait: the reset status and the errors seen
                break;
        } else {
            e->sim->cancel = e->cancel;
            boids_sim_step(e->sim);
            e->sim->cancel = NULL; // (the stages, boids_engine_stage, are never cut)
            if (e->sim->cancelled) {
                if (e->dynamic)
                    schedule_restore(e, &kept);
                break;
            }
        }
        if (r == BOIDS_OK) // BOIDS_DEBUG nan=ID@STEP
            r = engine_nan_plant(e);
        if (r == BOIDS_OK && !e->gpu) // the GPU's state: at its read-backs (engine_readback)
            r = engine_check_finite(e, (const float(*)[4])e->sim->cur.pos, (const float(*)[4])e->sim->cur.vel,
                                    e->sim->cur.id, e->sim->cur.group, e->sim->n, "after");
        if (r == BOIDS_OK && engine_steps_of(e) % BOIDS_ENGINE_FINE_EVERY == 0)
            r = engine_auto_grid(e, e->error, sizeof e->error);
        if (r == BOIDS_OK)
            r = engine_record_due(e);
    }
    if (done)
        *done = k;
    return r;
}

// See boids/engine.h.
void boids_engine_set_cancel(boids_engine *e, const volatile sig_atomic_t *flag) {
    if (e)
        e->cancel = flag;
}

// See boids/engine.h.
bool boids_engine_cut_short(const boids_engine *e) {
    return e && !e->gpu && e->sim->cancelled;
}

// See boids/engine.h.
boids_result boids_engine_step_agents(boids_engine *e, boids_sim *s, bool outputs, char *err, size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_step_agents", err, err_size) ||
        engine_null(s, "boids_engine_step_agents", "the simulation", "the agents to step", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    if (!e->gpu) {
        engine_say(err, err_size, "step_agents: a CPU engine; expected one of the GPU backend");
        return BOIDS_ERR_ARGUMENT;
    }
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK)
        return r;
    if (s->n > boids_gpu_capacity(e->gpu)) {
        engine_say(err, err_size, "step_agents: %u agents; the engine's GPU holds at most %u", s->n,
                   boids_gpu_capacity(e->gpu));
        return BOIDS_ERR_ARGUMENT;
    }
    // s's parameters (a schedule's target and weights, a new grid of
    // grid_fine auto) with the engine's count: the buffers' rows.
    boids_params q = s->p;
    q.flow = e->sim->p.flow;
    q.world.count = e->sim->p.world.count;
    if (memcmp(q.world.cells, e->sim->p.world.cells, sizeof q.world.cells) != 0) {
        if ((r = boids_gpu_set_grid(e->gpu, &q, err, err_size)) != BOIDS_OK)
            return r;
        if ((r = boids_sim_set_grid(e->sim, &q)) != BOIDS_OK) { // the mirror's grid too (sized for the new cells)
            engine_say(err, err_size, "step_agents: the grid of %u cells: %s", q.world.cells[3], boids_result_str(r));
            return r;
        }
    }
    boids_gpu_set_params(e->gpu, &q);
    if ((r = boids_gpu_set_count(e->gpu, s->n)) != BOIDS_OK)
        return r;
    boids_gpu_upload_agents(e->gpu, s);
    boids_gpu_build_grid(e->gpu);
    boids_gpu_steer(e->gpu);
    boids_gpu_integrate(e->gpu);
    if ((r = engine_healthy(e)) != BOIDS_OK)
        return r;
    r = outputs ? boids_gpu_download(e->gpu, s) : boids_gpu_download_state(e->gpu, s);
    if (r == BOIDS_OK)
        r = engine_healthy(e);
    e->trusted = false; // the engine's own agents are gone
    return r;
}

// See boids/engine.h.
const boids_params *boids_engine_params(const boids_engine *e) {
    return e ? &e->sim->p : NULL;
}

// Names what differs in shape between a and b into err; false if nothing.
bool engine_shape_differs(const boids_params *a, const boids_params *b, char *err, size_t err_size) {
    const boids_world_params *x = &a->world, *y = &b->world;
    if (x->count != y->count)
        engine_say(err, err_size, "params: count %u differs from the engine's %u; expected the same", y->count,
                   x->count);
    else if (x->dim != y->dim)
        engine_say(err, err_size, "params: dim %u differs from the engine's %u; expected the same", y->dim, x->dim);
    else if (x->group_count != y->group_count)
        engine_say(err, err_size, "params: group_count %u differs from the engine's %u; expected the same",
                   y->group_count, x->group_count);
    else if (memcmp(x->min, y->min, sizeof x->min) || memcmp(x->size, y->size, sizeof x->size))
        engine_say(err, err_size,
                   "params: the world (%gx%gx%g at %g,%g,%g) differs from the engine's; expected the same",
                   (double)y->size[0], (double)y->size[1], (double)y->size[2], (double)y->min[0], (double)y->min[1],
                   (double)y->min[2]);
    else if (memcmp(x->cells, y->cells, sizeof x->cells) &&
             !((x->grid_fine & BOIDS_GRID_FINE_AUTO) &&
               (y->grid_fine & BOIDS_GRID_FINE_AUTO))) // auto: each its own pick
        engine_say(err, err_size,
                   "params: the grid (%ux%ux%u cells) differs from the engine's (%ux%ux%u); expected the same",
                   y->cells[0], y->cells[1], y->cells[2], x->cells[0], x->cells[1], x->cells[2]);
    else
        return false;
    return true;
}

// See boids/engine.h.
boids_result boids_engine_set_params(boids_engine *e, const boids_params *p, char *err, size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_set_params", err, err_size) ||
        engine_null(p, "boids_engine_set_params", "params", "the new parameters", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_params q = *p;
    // grid_fine auto on both sides: the grid is the engine's pick (the
    // caller's copy may predate the last one).
    const boids_world_params *ew = &e->sim->p.world;
    if ((ew->grid_fine & BOIDS_GRID_FINE_AUTO) && (q.world.grid_fine & BOIDS_GRID_FINE_AUTO)) {
        memcpy(q.world.cells, ew->cells, sizeof q.world.cells);
        memcpy(q.world.cell, ew->cell, sizeof q.world.cell);
        memcpy(q.world.inv_cell, ew->inv_cell, sizeof q.world.inv_cell);
        q.world.grid_fine = ew->grid_fine;
    }
    if (engine_shape_differs(&e->sim->p, &q, err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK) {
        engine_say(err, err_size, "%s", e->fault_line);
        return r;
    }
    boids_sim *s = e->sim;
    if (memcmp(s->p.body, q.body, sizeof q.body) != 0) { // new body types: every body laid straight
        if (e->gpu) {
            if ((r = boids_gpu_set_bodies(e->gpu, q.body, err, err_size)) != BOIDS_OK)
                return r;
            memcpy(s->p.body, q.body, sizeof q.body);
            e->bodies_stale = true;
        } else if ((r = boids_sim_set_bodies(s, q.body)) != BOIDS_OK) {
            engine_say(err, err_size, "params: the bodies: %s", boids_result_str(r));
            return r;
        }
    }
    uint32_t step = s->p.world.step; // groups, scene, world but its step; the grid and the flow field stay
    memcpy(s->p.group, q.group, sizeof s->p.group);
    s->p.scene = q.scene;
    s->p.world = q.world;
    s->p.world.step = step;
    if (e->gpu)
        boids_gpu_set_params(e->gpu, &s->p);
    return BOIDS_OK;
}

// See boids/engine.h.
boids_result boids_engine_set_behaviors(boids_engine *e, uint32_t group, uint32_t behaviors, char *err,
                                        size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_set_behaviors", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_params p = e->sim->p;
    uint32_t groups = p.world.group_count;
    if (group != UINT32_MAX && group >= groups) {
        engine_say(err, err_size, "group: %u is not a group of the engine; expected 0..%u or UINT32_MAX", group,
                   groups - 1);
        return BOIDS_ERR_ARGUMENT;
    }
    if (behaviors >> BOIDS_BEHAVIOR_COUNT) {
        engine_say(err, err_size,
                   "behaviors: 0x%x has bits of no behaviour (0x%x); expected bits of 0x%x (BOIDS_BIT of BOIDS_BI_*)",
                   behaviors, behaviors & ~((1u << BOIDS_BEHAVIOR_COUNT) - 1u), (1u << BOIDS_BEHAVIOR_COUNT) - 1u);
        return BOIDS_ERR_PARAM;
    }
    for (uint32_t g = 0; g < groups; g++)
        if (group == UINT32_MAX || g == group)
            p.group[g].behaviors = behaviors;
    // What finalize refuses (a group's rules with a behaviour they lack, a
    // leader that is no agent), a snapshot's load would refuse too: checked
    // on a copy, as set_group_value does; the engine's params go on as they are.
    boids_params f = p;
    f.flow.vec = NULL;
    char what[256] = "";
    boids_result r = boids_params_finalize(&f, what, sizeof what);
    if (r != BOIDS_OK) {
        char names[256];
        boids_behaviors_text(behaviors, ",", names, sizeof names);
        engine_say(err, err_size, "behaviors: 0x%x (%s) is refused: %s", behaviors, names[0] ? names : "none", what);
        return r;
    }
    return boids_engine_set_params(e, &p, err, err_size);
}

// See engine_private.h.
boids_result engine_set_params_kept_grid(boids_engine *e, const boids_params *q, const char *what, char *err,
                                         size_t err_size) {
    // Everything else finalize checks (a maxspeed against the world, a radius
    // against a wrapped extent), on a copy; the grid stays the engine's.
    boids_params f = *q;
    f.flow.vec = NULL;
    char why[256] = "";
    boids_result r = boids_params_finalize(&f, why, sizeof why);
    if (r != BOIDS_OK) {
        engine_say(err, err_size, "%s is refused: %s", what, why[0] ? why : boids_result_str(r));
        return r;
    }
    // The grid's cells are reach / M wide (the finer grid): its searches see M of them.
    float fine = (float)boids_world_grid_fine(&q->world);
    for (uint32_t a = 0; a < f.world.dim; a++)
        if (f.world.max_radius > q->world.cell[a] * fine) {
            engine_say(err, err_size,
                       "%s makes an interaction radius of %g, wider than the engine's grid cells (%g on axis %c); "
                       "expected a radius <= %g (the grid is fixed when the engine is made: give it then)",
                       what, (double)f.world.max_radius, (double)(q->world.cell[a] * fine), "xyz"[a],
                       (double)(q->world.cell[a] * fine));
            return BOIDS_ERR_RADIUS;
        }
    memcpy(f.world.cells, q->world.cells, sizeof f.world.cells);
    memcpy(f.world.cell, q->world.cell, sizeof f.world.cell);
    memcpy(f.world.inv_cell, q->world.inv_cell, sizeof f.world.inv_cell);
    f.flow = q->flow;
    return boids_engine_set_params(e, &f, err, err_size);
}

// See boids/engine.h.
boids_result boids_engine_set_group_value(boids_engine *e, uint32_t group, const char *name, float value, char *err,
                                          size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_set_group_value", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_params q = e->sim->p;
    uint32_t groups = q.world.group_count;
    if (!name) {
        engine_say(err, err_size,
                   "value: no name; expected maxspeed, maxforce, radius, separation or weight.BEHAVIOUR");
        return BOIDS_ERR_ARGUMENT;
    }
    if (group != UINT32_MAX && group >= groups) {
        engine_say(err, err_size, "group: %u is not a group of the engine; expected 0..%u", group, groups - 1);
        return BOIDS_ERR_ARGUMENT;
    }
    // The scenario parser's ranges: lengths and limits > 0, weights -1e6..1e6.
    bool weight = strncmp(name, "weight.", 7) == 0;
    if (!boids_group_value(&q.group[0], name)) {
        if (weight)
            engine_say(err, err_size, "%s: names an unknown behaviour '%s'; expected weight.BEHAVIOUR of a known one",
                       name, name + 7);
        else
            engine_say(err, err_size,
                       "value: '%s' is not a settable value; expected maxspeed, maxforce, radius, separation or "
                       "weight.BEHAVIOUR",
                       name);
        return BOIDS_ERR_ARGUMENT;
    }
    if (weight && !(fabsf(value) <= BOIDS_MAX_WEIGHT)) {
        engine_say(err, err_size, "%s: %g is out of range; expected a weight -1e6..1e6", name, (double)value);
        return BOIDS_ERR_PARAM;
    }
    if (!weight && (!(value > 0.0f) || !isfinite(value))) {
        engine_say(err, err_size, "%s: %g is %s; expected a number > 0", name, (double)value,
                   value == 0.0f ? "zero or too small" : "not allowed");
        return BOIDS_ERR_PARAM;
    }
    for (uint32_t g = 0; g < groups; g++)
        if (group == UINT32_MAX || g == group)
            *boids_group_value(&q.group[g], name) = value;
    char what[160];
    snprintf(what, sizeof what, "%s: %g", name, (double)value);
    return engine_set_params_kept_grid(e, &q, what, err, err_size);
}

// See boids/engine.h.
boids_result boids_engine_behaviors(const boids_engine *e, uint32_t group, uint32_t *out) {
    if (!e || !out || group >= e->sim->p.world.group_count)
        return BOIDS_ERR_ARGUMENT;
    *out = e->sim->p.group[group].behaviors;
    return BOIDS_OK;
}

// See boids/engine.h.
const boids_scenario *boids_engine_scenario(const boids_engine *e) {
    return e ? e->scen : NULL;
}

// See boids/engine.h.
boids_result boids_engine_set_scenario(boids_engine *e, const boids_scenario *sc, char *err, size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_set_scenario", err, err_size) ||
        engine_null(sc, "boids_engine_set_scenario", "the scenario", "one from boids_scenario_load or _default", err,
                    err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_result r = boids_engine_set_params(e, &sc->params, err, err_size);
    if (r != BOIDS_OK)
        return r;
    *e->scen = *sc;
    e->scen->params.flow.vec = NULL;
    e->dynamic = boids_scenario_is_dynamic(e->scen);
    return BOIDS_OK;
}

// See boids/engine.h.
boids_result boids_engine_stage(boids_engine *e, boids_engine_stage_id stage) {
    if (!e)
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK)
        return r;
    boids_sim *s = e->sim;
    boids_gpu *g = e->gpu;
    switch (stage) {
    case BOIDS_ENGINE_STAGE_GRID:
        g ? boids_gpu_build_grid(g) : boids_sim_build_grid(s);
        break;
    case BOIDS_ENGINE_STAGE_STEER:
        g ? boids_gpu_steer(g) : boids_sim_steer(s);
        break;
    case BOIDS_ENGINE_STAGE_INTEGRATE:
        g ? boids_gpu_integrate(g) : boids_sim_integrate(s);
        break;
    case BOIDS_ENGINE_STAGE_BODIES:
        g ? boids_gpu_bodies(g) : boids_sim_bodies(s);
        break;
    default:
        return BOIDS_ERR_ARGUMENT;
    }
    return engine_healthy(e);
}

// See boids/engine.h.
void boids_engine_stage_ms(boids_engine *e, bool wait, boids_stage_ms *out) {
    if (!out)
        return;
    if (!e) {
        memset(out, 0, sizeof *out);
        return;
    }
    if (!e->gpu) { // the reference times each stage on its own: the step is their sum
        *out = e->sim->ms;
        out->step = out->key + out->count + out->scan + out->scatter + out->steer + out->integrate + out->bodies;
        return;
    }
    if (wait)
        boids_gpu_finish(e->gpu);
    boids_gpu_stage_ms(e->gpu, out);
}

// See boids/engine.h.
boids_result boids_engine_check(boids_engine *e, char *err, size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_check", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK)
        engine_say(err, err_size, "%s", e->fault_line);
    return r;
}

// See boids/engine.h.
boids_result boids_engine_gl_buffers(const boids_engine *e, boids_engine_gl *out) {
    if (!out)
        return BOIDS_ERR_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!e || !e->gpu)
        return BOIDS_ERR_ARGUMENT;
    boids_gpu_state_buffers(e->gpu, &out->pos, &out->vel, &out->group, &out->neighbors);
    out->id = boids_gpu_id_buffer(e->gpu);
    out->joints = boids_gpu_joint_buffer(e->gpu, &out->joint_rows);
    return BOIDS_OK;
}

// See boids/engine.h.
bool boids_engine_corrects_rounding(const boids_engine *e) {
    return e && e->gpu && boids_gpu_corrects_rounding(e->gpu);
}

// See boids/engine.h.
void boids_engine_prepare(boids_engine *e, const boids_group_params group[BOIDS_MAX_GROUPS]) {
    if (e && e->gpu && group)
        boids_gpu_prepare(e->gpu, group);
}

// See boids/engine.h.
void boids_engine_steer_info(const boids_engine *e, boids_steer_info *out) {
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (e && e->gpu)
        boids_gpu_steer_info(e->gpu, out);
}

// See boids/engine.h. The reads are checked like any other GL call.
boids_result boids_engine_program_stats(boids_engine *e, boids_program_stats out[BOIDS_PROGRAMS_MAX], uint32_t *n) {
    if (!n)
        return BOIDS_ERR_ARGUMENT;
    *n = 0;
    if (!e || !out || !e->gpu)
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_healthy(e);
    if (r == BOIDS_OK)
        r = boids_gpu_program_stats(e->gpu, out, n);
    if (r == BOIDS_OK)
        r = engine_healthy(e);
    if (r != BOIDS_OK)
        *n = 0;
    return r;
}

// See boids/engine.h.
uint32_t boids_engine_count(const boids_engine *e) {
    return e ? e->sim->n : 0;
}

// See boids/engine.h.
uint32_t boids_engine_dim(const boids_engine *e) {
    return e ? e->sim->p.world.dim : 0;
}

// See boids/engine.h.
uint64_t boids_engine_steps(const boids_engine *e) {
    return e ? engine_steps_of(e) : 0;
}

// See boids/engine.h.
boids_update boids_engine_update(const boids_engine *e) {
    return e && e->sim ? e->sim->update : BOIDS_UPDATE_PARALLEL;
}

// See boids/engine.h.
boids_backend boids_engine_backend(const boids_engine *e) {
    return e ? e->backend : BOIDS_BACKEND_CPU;
}

// See boids/engine.h.
const char *boids_engine_describe(const boids_engine *e) {
    return e ? e->describe : "";
}

// See boids/engine.h.
const char *boids_engine_context(const boids_engine *e) {
    return e ? e->context : "";
}

// See boids/engine.h.
const char *boids_engine_renderer(const boids_engine *e) {
    return e ? e->renderer : "";
}

// See boids/engine.h.
uint32_t boids_engine_cells(const boids_engine *e) {
    return e ? e->sim->grid.cells : 0;
}

// See boids/engine.h.
uint32_t boids_engine_grid_fine(const boids_engine *e) {
    return e ? boids_world_grid_fine(&e->sim->p.world) : 0;
}

// See boids/engine.h.
uint64_t boids_engine_bytes(const boids_engine *e) {
    if (!e)
        return 0;
    uint64_t per_agent = 2 * (16 + 16 + 4 + 4) + 16 + 5 * 4 + 16 * (uint64_t)e->sim->joint_rows;
    // The CPU steer's 2D flocking scratch (x, y and the alignment terms), once a steer has built it.
    per_agent += (e->sim->steer_xy ? 8 : 0) + (e->sim->steer_ali ? 16 : 0);
    return per_agent * e->sim->n + 12 * (uint64_t)e->sim->grid.cells;
}

// See boids/engine.h.
boids_result boids_engine_headless_open(boids_engine_headless **out, char *err, size_t err_size) {
    if (engine_null(out, "boids_engine_headless_open", "out", "where to put the context", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    *out = NULL;
    char none[1]; // boids_egl_create writes err unconditionally
    if (!err || !err_size) {
        err = none;
        err_size = sizeof none;
    }
    boids_result r = egl_available(err, err_size);
    if (r != BOIDS_OK)
        return r;
    boids_engine_headless *h = calloc(1, sizeof *h);
    if (!h)
        return BOIDS_ERR_NOMEM;
    if ((r = boids_egl_create(&h->gl, err, err_size)) != BOIDS_OK) {
        free(h);
        return r;
    }
    egl_open++;
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    snprintf(h->renderer, sizeof h->renderer, "%s", renderer ? renderer : "?");
    *out = h;
    return BOIDS_OK;
}

// See boids/engine.h.
void boids_engine_headless_close(boids_engine_headless *h) {
    if (!h)
        return;
    boids_gl_context_destroy(h->gl);
    egl_open--;
    free(h);
}

// See boids/engine.h.
const char *boids_engine_headless_renderer(const boids_engine_headless *h) {
    return h ? h->renderer : "";
}

// See boids/engine.h.
const char *boids_engine_headless_context(const boids_engine_headless *h) {
    return h ? boids_gl_context_describe(h->gl) : "";
}
