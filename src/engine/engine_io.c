// src/engine/engine_io.c: the engine's read-backs and outputs
// (boids/engine.h): the state by id and the stage buffers, copies between
// engines, statistics and the hash, snapshots, CSV and recordings. On the
// GPU every read goes through the fault rule (engine_fault.c): checked
// before, trusted only if the check after it passes.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/snapshot.h"
#include "engine_private.h"

// Why a read-back failed, for a message: the fault's line, or the result's text
// (out of memory for the mirror's bodies).
static const char *readback_why(const boids_engine *e, boids_result r) {
    return e->fault == r && e->fault_line[0] ? e->fault_line : boids_result_str(r);
}

// The state to write from: read back while healthy; after a fault the last
// trusted read-back if any, else the fault.
static boids_result state_to_write(boids_engine *e) {
    boids_result r = engine_readback(e);
    if (r != BOIDS_OK && e->fault == r && e->trusted)
        return BOIDS_OK;
    return r;
}

// See boids/engine.h.
boids_result boids_engine_read(boids_engine *e, float (*pos)[4], float (*vel)[4], uint32_t *group) {
    if (!e)
        return BOIDS_ERR_ARGUMENT;
    uint32_t n = e->sim->n;
    if (!e->gpu) {
        const uint32_t *slot = boids_sim_slots_by_id(e->sim);
        for (uint32_t i = 0; i < n; i++) {
            if (pos)
                memcpy(pos[i], e->sim->cur.pos[slot[i]], 16);
            if (vel)
                memcpy(vel[i], e->sim->cur.vel[slot[i]], 16);
            if (group)
                group[i] = e->sim->cur.group[slot[i]];
        }
        return BOIDS_OK;
    }
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK)
        return r;
    // The caller's arrays are written only if the check after the reads
    // passes (boids_gpu_read_state checks); a fault is kept here too. A
    // state read back whole is checked finite as every read-back is (the
    // arrays then hold it, for a look at what went wrong).
    r = boids_gpu_read_state(e->gpu, pos, vel, group);
    boids_result h = engine_healthy(e);
    if (r == BOIDS_OK && h == BOIDS_OK && pos && vel && group)
        h = engine_check_finite(e, (const float(*)[4])pos, (const float(*)[4])vel, NULL, group, n, "at");
    return r != BOIDS_OK ? r : h;
}

// See boids/engine.h.
boids_result boids_engine_read_joints(boids_engine *e, float (*joints)[4], size_t bytes) {
    if (!e)
        return BOIDS_ERR_ARGUMENT;
    size_t need = (size_t)boids_params_joint_rows(&e->sim->p) * e->sim->n * 16;
    if (bytes != need || (need && !joints))
        return BOIDS_ERR_ARGUMENT;
    if (!e->gpu) {
        if (need)
            memcpy(joints, e->sim->joints, need);
        return BOIDS_OK;
    }
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK || !need)
        return r;
    float(*tmp)[4] = malloc(need);
    r = tmp ? boids_gpu_read_joints(e->gpu, tmp, need) : BOIDS_ERR_NOMEM;
    if (r == BOIDS_OK)
        r = engine_healthy(e);
    if (r == BOIDS_OK)
        memcpy(joints, tmp, need);
    free(tmp);
    return r;
}

// The mirror's state onto the GPU (nothing on the CPU): whole, then
// trusted, or the agents only (joints false: the GPU keeps its joints, the
// mirror's are no longer its, so it is not trusted); the check after it.
static boids_result upload(boids_engine *e, bool joints) {
    if (!e->gpu)
        return BOIDS_OK;
    if (joints)
        boids_gpu_upload(e->gpu, e->sim);
    else
        boids_gpu_upload_agents(e->gpu, e->sim);
    e->trusted = joints;
    return engine_healthy(e);
}

// See boids/engine.h.
boids_result boids_engine_set_agents(boids_engine *e, const float (*pos)[4], const float (*vel)[4],
                                     const uint32_t *group) {
    if (!e || !pos || !vel || !group) // boids_sim_set_agents reads all three
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK && r != BOIDS_ERR_NONFINITE) // new agents replace a state that was not finite
        return r;
    boids_sim *s = e->sim;
    if (e->gpu) { // the mirror at the GPU's step and bodies, then uploaded whole
        s->step = boids_gpu_steps(e->gpu);
        s->p.world.step = (uint32_t)s->step;
        if (e->bodies_stale && (r = boids_sim_set_bodies(s, s->p.body)) != BOIDS_OK)
            return r;
        e->bodies_stale = false;
    }
    if ((r = boids_sim_set_agents(s, pos, vel, group)) != BOIDS_OK)
        return r;
    engine_clear_nonfinite(e);
    return upload(e, true);
}

// See boids/engine.h. The state copied bit for bit (boids_sim_set_state):
// a step's limit and boundary applied again could move a coordinate that
// rounded onto the world's edge.
boids_result boids_engine_set_state(boids_engine *e, uint64_t step, const float (*pos)[4], const float (*vel)[4],
                                    const uint32_t *group, const float (*joints)[4]) {
    if (!e || !pos || !vel || !group)
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK && r != BOIDS_ERR_NONFINITE) // a new state replaces one that was not finite
        return r;
    if (e->gpu && e->bodies_stale && (r = boids_sim_set_bodies(e->sim, e->sim->p.body)) != BOIDS_OK)
        return r;
    e->bodies_stale = false;
    if ((r = boids_sim_set_state(e->sim, step, pos, vel, group, joints)) != BOIDS_OK)
        return r;
    engine_clear_nonfinite(e);
    return upload(e, true); // the GPU takes the step counter with the state (and the joints)
}

// The agents, the joints (if joints) and step counter of src into dst (same shape).
static void copy_sim(boids_sim *dst, const boids_sim *src, bool joints) {
    size_t n = src->n;
    memcpy(dst->cur.pos, src->cur.pos, n * 16);
    memcpy(dst->cur.vel, src->cur.vel, n * 16);
    memcpy(dst->cur.id, src->cur.id, n * 4);
    memcpy(dst->cur.group, src->cur.group, n * 4);
    if (joints && dst->joints && src->joints && dst->joint_rows == src->joint_rows)
        memcpy(dst->joints, src->joints, (size_t)src->joint_rows * n * 16);
    dst->step = src->step;
    dst->p.world.step = (uint32_t)src->step; // the stages run at the step counter, as a step does
}

// copy_state (joints true) and copy_agents (false): src read back, its
// state into dst's sim, uploaded whole (joints) or the agents only.
static boids_result copy_engine(boids_engine *dst, boids_engine *src, bool joints) {
    if (!dst || !src)
        return BOIDS_ERR_ARGUMENT;
    if (engine_shape_differs(&dst->sim->p, &src->sim->p, NULL, 0) ||
        boids_params_joint_rows(&dst->sim->p) != boids_params_joint_rows(&src->sim->p))
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_readback(src);
    if (r == BOIDS_OK)
        r = engine_healthy(dst);
    if (r != BOIDS_OK)
        return r;
    if (joints && dst->gpu && dst->bodies_stale && (r = boids_sim_set_bodies(dst->sim, dst->sim->p.body)) != BOIDS_OK)
        return r;
    dst->bodies_stale = dst->bodies_stale && !joints;
    copy_sim(dst->sim, src->sim, joints);
    if ((r = upload(dst, joints)) != BOIDS_OK)
        return r;
    if (dst->sim->p.world.grid_fine & BOIDS_GRID_FINE_AUTO) { // auto: M for the state it now holds
        boids_sim_build_grid(dst->sim);
        r = engine_auto_grid(dst, NULL, 0);
    }
    return r;
}

// See boids/engine.h.
boids_result boids_engine_copy_state(boids_engine *dst, boids_engine *src) {
    return copy_engine(dst, src, true);
}

// See boids/engine.h.
boids_result boids_engine_copy_agents(boids_engine *dst, boids_engine *src) {
    return copy_engine(dst, src, false);
}

// See boids/engine.h.
boids_result boids_engine_reset_bodies(boids_engine *e) {
    if (!e)
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_readback(e);
    if (r != BOIDS_OK)
        return r;
    boids_sim_reset_bodies(e->sim);
    return upload(e, true);
}

// The CPU buffer of `which` and its size.
static void *cpu_buffer(boids_sim *s, boids_engine_buffer which, size_t *bytes) {
    size_t n = s->n, cells = s->grid.cells;
    // clang-format off
    switch (which) {
    case BOIDS_ENGINE_POS: *bytes = n * 16; return s->cur.pos;
    case BOIDS_ENGINE_VEL: *bytes = n * 16; return s->cur.vel;
    case BOIDS_ENGINE_ID: *bytes = n * 4; return s->cur.id;
    case BOIDS_ENGINE_GROUP: *bytes = n * 4; return s->cur.group;
    case BOIDS_ENGINE_KEY: *bytes = n * 4; return s->grid.key;
    case BOIDS_ENGINE_COUNT: *bytes = cells * 4; return s->grid.count;
    case BOIDS_ENGINE_START: *bytes = (cells + 1) * 4; return s->grid.start;
    case BOIDS_ENGINE_ACCEL: *bytes = n * 16; return s->accel;
    case BOIDS_ENGINE_NEIGHBORS: *bytes = n * 4; return s->neighbors;
    case BOIDS_ENGINE_NEAREST: *bytes = n * 4; return s->nearest;
    case BOIDS_ENGINE_CANDIDATES: *bytes = n * 4; return s->candidates;
    }
    // clang-format on
    *bytes = 0;
    return NULL;
}

// boids_gpu_buffer lists the same buffers in the same order (the cast below).
_Static_assert((int)BOIDS_ENGINE_POS == (int)BOIDS_GPU_POS && (int)BOIDS_ENGINE_VEL == (int)BOIDS_GPU_VEL &&
                   (int)BOIDS_ENGINE_ID == (int)BOIDS_GPU_ID && (int)BOIDS_ENGINE_GROUP == (int)BOIDS_GPU_GROUP &&
                   (int)BOIDS_ENGINE_KEY == (int)BOIDS_GPU_KEY && (int)BOIDS_ENGINE_COUNT == (int)BOIDS_GPU_COUNT &&
                   (int)BOIDS_ENGINE_START == (int)BOIDS_GPU_START && (int)BOIDS_ENGINE_ACCEL == (int)BOIDS_GPU_ACCEL &&
                   (int)BOIDS_ENGINE_NEIGHBORS == (int)BOIDS_GPU_NEIGHBORS &&
                   (int)BOIDS_ENGINE_NEAREST == (int)BOIDS_GPU_NEAREST &&
                   (int)BOIDS_ENGINE_CANDIDATES == (int)BOIDS_GPU_CANDIDATES,
               "boids_engine_buffer and boids_gpu_buffer list the buffers in the same order");

// See boids/engine.h.
boids_result boids_engine_read_buffer(boids_engine *e, boids_engine_buffer which, void *dst, size_t bytes) {
    if (!e)
        return BOIDS_ERR_ARGUMENT;
    size_t size = 0;
    const void *src = cpu_buffer(e->sim, which, &size);
    if (!src || bytes != size || (size && !dst))
        return BOIDS_ERR_ARGUMENT;
    if (!e->gpu) {
        memcpy(dst, src, size);
        return BOIDS_OK;
    }
    boids_result r = engine_healthy(e);
    if (r != BOIDS_OK || !size)
        return r;
    void *tmp = malloc(size);
    r = tmp ? boids_gpu_read(e->gpu, (boids_gpu_buffer)which, tmp, size) : BOIDS_ERR_NOMEM;
    if (r == BOIDS_OK)
        r = engine_healthy(e);
    if (r == BOIDS_OK)
        memcpy(dst, tmp, size);
    free(tmp);
    return r;
}

// See boids/engine.h.
boids_result boids_engine_stats(boids_engine *e, boids_stats *out) {
    if (!e || !out)
        return BOIDS_ERR_ARGUMENT;
    boids_result r = engine_readback(e);
    if (r != BOIDS_OK)
        return r;
    boids_sim_stats(e->sim, out);
    return BOIDS_OK;
}

// See boids/engine.h.
uint64_t boids_engine_hash(boids_engine *e) {
    if (!e)
        return 0;
    if (!e->gpu)
        return boids_sim_hash(e->sim);
    if (engine_healthy(e) != BOIDS_OK)
        return 0;
    uint64_t h = boids_gpu_hash(e->gpu);
    return engine_healthy(e) == BOIDS_OK ? h : 0;
}

// See boids/engine.h.
bool boids_engine_last_good(const boids_engine *e, uint64_t *step) {
    if (step)
        *step = e ? e->sim->step : 0;
    return e && e->trusted;
}

// See boids/engine.h.
const char *boids_engine_error(const boids_engine *e) {
    return e ? e->error : "";
}

// See boids/engine.h.
boids_result boids_engine_save(boids_engine *e, const char *path, char *err, size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_save", err, err_size) ||
        engine_null(path, "boids_engine_save", "path", "the file to write", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_result r = state_to_write(e);
    if (r != BOIDS_OK) {
        engine_say(err, err_size, "%s: not written: %s", path, readback_why(e, r));
        return r;
    }
    return boids_snapshot_save(e->sim, e->scen, path, err, err_size);
}

// See boids/engine.h.
boids_result boids_engine_write_csv(boids_engine *e, const char *path, char *err, size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_write_csv", err, err_size) ||
        engine_null(path, "boids_engine_write_csv", "path", "the file to write", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_result r = state_to_write(e);
    if (r != BOIDS_OK) {
        engine_say(err, err_size, "%s: not written: %s", path, readback_why(e, r));
        return r;
    }
    errno = 0;
    r = boids_csv_write(path, e->sim);
    if (r != BOIDS_OK) {
        int saved = errno;
        engine_say(err, err_size, "%s", saved ? strerror(saved) : "write error");
        errno = saved; // for callers that word it themselves
    }
    return r;
}

// See boids/engine.h.
boids_result boids_engine_record_open(boids_engine *e, const char *path, uint64_t every, char *err, size_t err_size) {
    if (ENGINE_NULL(e, "boids_engine_record_open", err, err_size) ||
        engine_null(path, "boids_engine_record_open", "path", "the recording's file", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    if (e->rec || every == 0) {
        engine_say(err, err_size, "%s: %s", path,
                   e->rec ? "a recording is already open" : "every 0; expected 1 or more");
        return BOIDS_ERR_ARGUMENT;
    }
    boids_result r = engine_readback(e);
    if (r != BOIDS_OK) {
        engine_say(err, err_size, "%s: not opened: %s", path, readback_why(e, r));
        return r;
    }
    if ((r = boids_record_open(path, e->sim, every, &e->rec, err, err_size)) != BOIDS_OK)
        return r;
    e->rec_every = every;
    e->rec_last_step = 0; // a previous recording's is not this one's
    // The state of now as the first frame.
    if ((r = engine_record_due(e)) == BOIDS_OK)
        return r;
    if (e->fault != BOIDS_OK) { // left open, no frames
        engine_say(err, err_size, "%s: no first frame: %s", path, e->fault_line);
        return r;
    }
    engine_say(err, err_size, "%s", e->error);
    boids_record_close(e->rec, NULL, 0);
    e->rec = NULL;
    return r;
}

// See boids/engine.h.
boids_result boids_engine_record_close(boids_engine *e, uint32_t *frames, uint64_t *last_step, char *err,
                                       size_t err_size) {
    if (frames)
        *frames = e && e->rec ? boids_record_frames(e->rec) : 0;
    if (last_step)
        *last_step = e ? e->rec_last_step : 0;
    if (ENGINE_NULL(e, "boids_engine_record_close", err, err_size))
        return BOIDS_ERR_ARGUMENT;
    boids_result r = boids_record_close(e->rec, err, err_size);
    e->rec = NULL;
    return r;
}
