// src/app/viewer_flock.c: the viewer's flock mode: each frame one step of
// the simulation - the compute shaders (--backend gpu, default) or the C
// reference, uploaded (--backend cpu) - then the agents, bodies, scene and
// overlays, and the HUD; --save / --save-every / --load, and the fault check
// after every frame. Its keys are in viewer_flock_keys.c.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer_flock.h"
#include "boids/snapshot.h"

#define COUNT_HARDWARE 200000u
#define COUNT_SOFTWARE 20000u

static const char *boundary_name(uint32_t b) {
    static const char *const names[3] = {"wrap", "walls", "bounce"};
    return b < 3 ? names[b] : "?";
}

// See viewer_flock.h.
boids_result viewer_flock_new_sim(viewer *v) {
    viewer_flock *f = v->flock;
    if (v->o->load) { // --load: back to the snapshot (with the parameters of now)
        boids_sim *s = NULL;
        char err[1200];
        boids_result r = boids_snapshot_load(v->o->load, &s, NULL, err, sizeof err);
        if (r != BOIDS_OK) {
            fprintf(stderr, "%s: reset: --load: %s\n", PROG, err);
            return r;
        }
        // The file may have been replaced since: only a snapshot of the same
        // shape (count, dimension, groups, grid, joint rows) can take over.
        const boids_world_params *a = &s->p.world, *b = &f->sim->p.world;
        if (s->n != f->sim->n || a->dim != b->dim || a->group_count != b->group_count ||
            memcmp(a->cells, b->cells, sizeof a->cells) != 0 ||
            (s->joints ? s->joint_rows : 0u) != (f->sim->joints ? f->sim->joint_rows : 0u)) {
            fprintf(stderr, "%s: reset: --load: %s: now holds another simulation (%u agents, %uD); kept running\n",
                    PROG, v->o->load, s->n, a->dim);
            boids_sim_destroy(s);
            return BOIDS_ERR_ARGUMENT;
        }
        boids_sim_destroy(f->sim);
        f->sim = s;
    } else {
        boids_sim_destroy(f->sim);
        f->sim = NULL;
        boids_result r = boids_sim_create(&f->sim, &f->p_create, f->dist);
        if (r != BOIDS_OK)
            return r;
    }
    f->sim->threads = v->o->threads;
    f->params_dirty = true;
    f->bodies_dirty = true;
    if (f->gpu) {
        boids_gpu_upload(f->gpu, f->sim);
        // The GPU's joint rows may differ from the new simulation's: lay them out anew.
        char err[256];
        if (boids_params_joint_rows(&f->p) && boids_gpu_set_bodies(f->gpu, f->p.body, err, sizeof err) != BOIDS_OK)
            snprintf(f->body_error, sizeof f->body_error, "reset: %s", err);
    }
    return BOIDS_OK;
}

// The parameters of now into the CPU simulation (groups, scene, world but
// its step; the grid and the flow field stay).
static void sync_params(viewer_flock *f) {
    boids_sim *s = f->sim;
    uint32_t step = s->p.world.step;
    memcpy(s->p.group, f->p.group, sizeof s->p.group);
    s->p.scene = f->p.scene;
    s->p.world = f->p.world;
    s->p.world.step = step;
}

// See viewer_flock.h (GPU: read back into the CPU simulation, with the
// parameters and bodies of now).
int viewer_flock_save_state(viewer *v, const char *path) {
    viewer_flock *f = v->flock;
    boids_sim *s = f->sim;
    char err[1200];
    if (f->gpu) {
        uint32_t rows = boids_params_joint_rows(&f->p);
        if (rows != (s->joints ? s->joint_rows : 0u) || memcmp(s->p.body, f->p.body, sizeof s->p.body) != 0) {
            boids_result r = boids_sim_set_bodies(s, f->p.body); // K changed them on the GPU only
            if (r != BOIDS_OK) {
                fprintf(stderr, "%s: --save: %s: not saved: the bodies: %s\n", PROG, path, boids_result_str(r));
                return EXIT_ENVIRONMENT;
            }
        }
        // Only a read-back the check trusts before and after (a fault in
        // between may leave s partly overwritten): else check_fault stops.
        if (boids_gpu_check(f->gpu, NULL, 0) != BOIDS_OK || boids_gpu_download(f->gpu, s) != BOIDS_OK ||
            boids_gpu_check(f->gpu, NULL, 0) != BOIDS_OK) {
            f->state_untrusted = true;
            return 0; // check_fault says it, in its one line
        }
    }
    sync_params(f);
    if (boids_snapshot_save(s, f->scen, path, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: --save: %s\n", PROG, err);
        return EXIT_ENVIRONMENT;
    }
    printf("saved: %s (step %llu)\n", path, (unsigned long long)s->step);
    fflush(stdout);
    if (v->o->save && strcmp(path, v->o->save) == 0)
        f->saved_ok = (int64_t)s->step;
    return 0;
}

// After each frame: a lost context or a GL error of the GPU backend
// (boids_gpu_check), or a lost context of the CPU backend's window, stops the
// viewer with ONE line naming the fault and what --save holds: on the CPU
// backend the simulation is intact and is saved; the GPU's state cannot be
// read any more, so --save keeps the last --save-every / W snapshot. Returns
// 0, or 3 with f->faulted and v->quit set.
static int check_fault(viewer *v) {
    viewer_flock *f = v->flock;
    char what[1024];
    uint64_t step = f->gpu ? boids_gpu_steps(f->gpu) : f->sim->step;
    if (f->gpu) {
        if (boids_gpu_check(f->gpu, what, sizeof what) == BOIDS_OK)
            return 0;
    } else {
        GLenum st = glGetGraphicsResetStatus();
        if (st == GL_NO_ERROR)
            return 0;
        snprintf(what, sizeof what, "the OpenGL context was lost (%s reset) at step %llu",
                 st == GL_GUILTY_CONTEXT_RESET     ? "guilty"
                 : st == GL_INNOCENT_CONTEXT_RESET ? "innocent"
                                                   : "unknown",
                 (unsigned long long)step);
    }
    char line[2048];
    int n = snprintf(line, sizeof line, "%s: --backend %s: %s; stopped", PROG, f->gpu ? "gpu" : "cpu", what);
    const char *save = v->o->save;
    if (save && !f->gpu && !f->state_untrusted) {
        char err[1200];
        sync_params(f);
        if (boids_snapshot_save(f->sim, f->scen, save, err, sizeof err) == BOIDS_OK)
            snprintf(line + n, sizeof line - (size_t)n, "; --save %s holds step %llu", save,
                     (unsigned long long)f->sim->step);
        else
            snprintf(line + n, sizeof line - (size_t)n, "; --save: %s", err);
    } else if (save && f->saved_ok >= 0) {
        snprintf(line + n, sizeof line - (size_t)n, "; --save %s holds step %lld (the last snapshot before the fault)",
                 save, (long long)f->saved_ok);
    } else if (save) {
        snprintf(line + n, sizeof line - (size_t)n,
                 "; --save %s not written (the GPU's state cannot be read after the fault; --save-every K keeps "
                 "one every K steps)",
                 save);
    }
    fflush(stdout);
    fprintf(stderr, "%s\n", line);
    f->faulted = v->quit = true;
    return EXIT_ENVIRONMENT;
}

// The mouse as the target of seek/flee/arrive/pursue/evade (its velocity
// per time unit for the predictions).
static void update_target(viewer *v) {
    viewer_flock *f = v->flock;
    float nx, ny, aspect, t[3];
    if (!v->have_cursor || !viewer_cursor_ndc(v, v->cursor_x, v->cursor_y, &nx, &ny, &aspect))
        return;
    boids_camera_unproject(&v->cam, aspect, nx, ny, t);
    memcpy(f->cursor_world, t, sizeof t);
    boids_world_params *w = &f->p.world;
    for (int a = 0; a < 3; a++) {
        if (a >= (int)w->dim) {
            t[a] = w->min[a];
        } else {
            float lo = w->min[a], hi = w->min[a] + w->size[a];
            t[a] = t[a] < lo ? lo : (t[a] > hi ? hi : t[a]);
        }
    }
    if (memcmp(t, f->last_target, sizeof t) == 0)
        return;
    for (int a = 0; a < 3; a++) {
        w->target_vel[a] = (t[a] - w->target_pos[a]) / (w->dt > 0.0f ? w->dt : 1.0f);
        w->target_pos[a] = t[a];
    }
    memcpy(f->last_target, t, sizeof t);
    f->params_dirty = true;
}

// --backend gpu unless --backend cpu; BOIDS_FAULT checked; --load read
// before any window (a bad file is one line, exit 2).
static int flock_prepare(viewer *v) {
    const boids_options *o = v->o;
    viewer_flock *f = v->flock = calloc(1, sizeof *v->flock);
    if (!f || !(f->scen = malloc(sizeof *f->scen))) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    f->use_gpu = !(o->flags_given & BOIDS_CLI_BACKEND) || strcmp(o->backend, "gpu") == 0;
    char err[1200];
    if (f->use_gpu && boids_gpu_fault_parse(getenv("BOIDS_FAULT"), err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return EXIT_INPUT;
    }
    if (o->load) {
        boids_result r = boids_snapshot_load(o->load, &f->sim, f->scen, err, sizeof err);
        if (r != BOIDS_OK) {
            fprintf(stderr, "%s: --load: %s\n", PROG, err);
            return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
        }
    }
    f->dist = (boids_distribution)o->distribution;
    return 0;
}

// Is the renderer a software one (llvmpipe, softpipe, SwiftShader)?
static bool software_renderer(const char *r) {
    return strstr(r, "llvmpipe") || strstr(r, "softpipe") || strstr(r, "SwiftShader") || strstr(r, "Software");
}

// The parameters, the simulation (and the GPU's), the render, the camera,
// the first lines on stdout.
static int flock_init(viewer *v) {
    const boids_options *o = v->o;
    viewer_flock *f = v->flock;
    char err[4096];
    bool software = software_renderer(v->renderer);
    uint32_t count = o->count_set ? o->count : (f->use_gpu && !software ? COUNT_HARDWARE : COUNT_SOFTWARE);
    if (o->load) { // the snapshot's simulation, parameters and scenario (loaded before the window)
        f->sim->threads = o->threads;
        f->p = f->sim->p;
        f->p.flow.vec = NULL; // the sim's own
        count = f->sim->n;
        // The saved target stays until the mouse moves it.
        memcpy(f->last_target, f->p.world.target_pos, sizeof f->last_target);
    } else if (boids_options_params(o, count, &f->p, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        return EXIT_INPUT;
    } else {
        boids_options_scenario(o, &f->p, f->scen);
    }
    // Simulations are created with the flow field on, so that the 9 key
    // has a field to follow; the behaviours asked for are set right after.
    f->p_create = f->p;
    f->p_create.group[0].behaviors |= BOIDS_BIT(BOIDS_BI_FLOW);
    if (!o->load && viewer_flock_new_sim(v) != BOIDS_OK) {
        boids_cli_error(PROG, "--count", NULL, NULL, "cannot create a simulation of %u agents: out of memory", count);
        return EXIT_ENVIRONMENT;
    }
    f->saved_step = f->sim->step;
    f->saved_ok = -1;
    if (f->use_gpu) {
        boids_gpu_desc gd = {.params = &f->p_create,
                             .load = boids_window_loader(v->win),
                             .shader_dir = o->shader_dir,
                             .silent_errors = true}; // check_fault prints the first
        boids_result r = boids_gpu_create(&f->gpu, &gd, err, sizeof err);
        if (r != BOIDS_OK) {
            fprintf(stderr, "%s: %s%s\n", PROG, err,
                    r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER ? "" : "; try --backend cpu");
            return r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER ? EXIT_INPUT : EXIT_ENVIRONMENT;
        }
        boids_gpu_upload(f->gpu, f->sim); // agents, joints and step
    }
    f->params_dirty = true;
    f->body_style = o->body_style_set ? o->body_style : f->p.body[0].style;
    int rc = viewer_render_create(v, f->use_gpu ? 0 : count, f->use_gpu);
    if (rc)
        return rc;
    boids_render_set_palette(v->render, (const float(*)[4])f->scen->color, f->scen->color_set);
    int fb_w, fb_h;
    glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
    boids_camera_fit(&v->cam, &f->p.world, fb_h > 0 ? (float)fb_w / (float)fb_h : 1.0f);
    const boids_world_params *w = &f->p.world;
    char world[96];
    if (w->dim == 3)
        snprintf(world, sizeof world, "%gx%gx%g", (double)w->size[0], (double)w->size[1], (double)w->size[2]);
    else
        snprintf(world, sizeof world, "%gx%g", (double)w->size[0], (double)w->size[1]);
    const char *why = o->load                   ? " (from --load)"
                      : o->count_set            ? ""
                      : f->use_gpu && !software ? " (default for a hardware GPU)"
                      : f->use_gpu              ? " (default for a software renderer)"
                                                : " (default for the CPU backend)";
    printf("boids %s: %u agents%s, %uD, world %s, boundary %s, seed %llu, backend %s, renderer '%s', "
           "OpenGL %s, %s\n",
           BOIDS_VERSION, count, why, w->dim, world, boundary_name(w->boundary),
           (unsigned long long)((uint64_t)w->seed_hi << 32 | w->seed_lo), f->use_gpu ? "gpu" : "cpu", v->renderer,
           v->gl_version, boids_window_describe(v->win));
    viewer_flock_print_behaviors(v);
    if (o->profile && (rc = viewer_profile_start(v, f->use_gpu ? "gpu" : "cpu")) != 0)
        return rc;
    return 0;
}

// The schedule, the mouse target and changed parameters, then one step
// (unless paused) and a --save-every snapshot when due.
static int flock_frame(viewer *v) {
    const boids_options *o = v->o;
    viewer_flock *f = v->flock;
    const boids_scenario *sc = f->scen;
    int rc = 0;
    if (boids_scenario_is_dynamic(sc) && (!f->paused || f->step_once)) {
        // The scenario's circling target and varying weights at this step.
        boids_scenario_at_step(sc, f->gpu ? boids_gpu_steps(f->gpu) : f->sim->step, &f->p);
        f->params_dirty = true;
    }
    if (sc->target_mode != BOIDS_TARGET_CIRCLE)
        update_target(v);
    if (f->params_dirty) { // groups, scene, world; the grid and the flow field stay
        f->params_dirty = false;
        if (f->gpu)
            boids_gpu_set_params(f->gpu, &f->p);
        else
            sync_params(f);
    }
    if (!f->paused || f->step_once) {
        double t0 = viewer_now();
        if (f->gpu) {
            boids_gpu_step(f->gpu);
        } else {
            boids_sim_step(f->sim);
            boids_render_upload(v->render, f->sim);
            f->bodies_dirty = true;
        }
        f->step_ms = (viewer_now() - t0) * 1e3;
        f->step_once = false;
        uint64_t steps = f->gpu ? boids_gpu_steps(f->gpu) : f->sim->step;
        // A save due in the frame of a fault is left to check_fault (save_state checks too).
        if (o->save && o->save_every && steps % o->save_every == 0 && steps != f->saved_step) {
            f->saved_step = steps;
            if (viewer_flock_save_state(v, o->save)) { // one line, then stop as boids-run does
                rc = EXIT_ENVIRONMENT;
                v->quit = f->save_failed = true;
            }
        }
    }
    if (!f->gpu && f->bodies_dirty) {
        boids_render_upload_bodies(v->render, f->sim);
        f->bodies_dirty = false;
    }
    return rc;
}

// The G, F, N and V overlays. They read the GPU state back (debug views,
// off by default: the normal frame has no readback).
// `under`: the heat map, drawn before the agents; else the line overlays.
static void draw_overlays(viewer *v, const float view_proj[16], bool under) {
    viewer_flock *f = v->flock;
    bool *show = f->show;
    if (under ? !show[OVERLAY_GRID] : !(show[OVERLAY_FLOW] || show[OVERLAY_NEIGHBORS] || show[OVERLAY_VECTORS]))
        return;
    const boids_world_params *w = &f->p.world;
    uint32_t n = w->count, cells = w->cells[3];
    if (!f->overlay) {
        f->overlay_cap = (size_t)cells * 6 + 262144;
        f->overlay = malloc(f->overlay_cap * sizeof *f->overlay);
        if (f->gpu) {
            f->read_pos = malloc((size_t)n * 16 + 16);
            f->read_vel = malloc((size_t)n * 16 + 16);
            f->read_count = malloc((size_t)cells * 4 + 4);
        }
        if (!f->overlay || (f->gpu && (!f->read_pos || !f->read_vel || !f->read_count))) {
            fprintf(stderr, "%s: out of memory for the overlays\n", PROG);
            memset(show, 0, sizeof f->show[0] * OVERLAY_PATH);
            return;
        }
    }
    size_t m = 0;
    if (under) {
        const uint32_t *counts = f->sim->grid.count;
        if (f->gpu && boids_gpu_read(f->gpu, BOIDS_GPU_COUNT, f->read_count, (size_t)cells * 4) == BOIDS_OK)
            counts = f->read_count;
        m = boids_overlay_grid(counts, w, f->overlay, 0, f->overlay_cap);
        boids_render_triangles(v->render, view_proj, f->overlay, m);
        return;
    }
    if (show[OVERLAY_FLOW])
        m = boids_overlay_flow(&f->sim->p.flow, w, f->overlay, m, f->overlay_cap);
    if (show[OVERLAY_NEIGHBORS] || show[OVERLAY_VECTORS]) {
        const float(*pos)[4] = (const float(*)[4])f->sim->cur.pos, (*vel)[4] = (const float(*)[4])f->sim->cur.vel;
        if (f->gpu) {
            boids_gpu_read(f->gpu, BOIDS_GPU_POS, f->read_pos, (size_t)n * 16);
            boids_gpu_read(f->gpu, BOIDS_GPU_VEL, f->read_vel, (size_t)n * 16);
            pos = (const float(*)[4])f->read_pos;
            vel = (const float(*)[4])f->read_vel;
        }
        boids_params q = f->p;
        q.flow = f->sim->p.flow; // read only
        const float *point = v->have_cursor ? f->cursor_world : w->target_pos;
        uint32_t picked;
        m = boids_overlay_agent(&q, n, pos, vel, point, show[OVERLAY_NEIGHBORS], show[OVERLAY_VECTORS], f->overlay, m,
                                f->overlay_cap, &picked);
    }
    boids_render_lines(v->render, view_proj, f->overlay, m);
}

// The HUD: frame and stage times, the flock, the behaviours, the parameter of [ ].
static void flock_hud(viewer *v, int fb_w, int fb_h) {
    viewer_flock *f = v->flock;
    boids_stage_ms ms;
    if (f->gpu)
        boids_gpu_stage_ms(f->gpu, &ms);
    else
        ms = f->sim->ms;
    const char *name;
    float value = viewer_flock_tunable(v, &name);
    char behaviors[400], hud[2048];
    boids_behaviors_text(f->p.group[0].behaviors, ",", behaviors, sizeof behaviors);
    uint64_t step = f->gpu ? boids_gpu_steps(f->gpu) : f->sim->step;
    snprintf(hud, sizeof hud,
             "FPS %.1f   frame %.2f ms   sim %.2f ms   step %llu%s\n"
             "sim ms  key %.2f  count %.2f  scan %.2f  scatter %.2f  steer %.2f  integrate %.2f  bodies %.2f\n"
             "%u agents  %uD  backend %s  boundary %s  colour %s  bodies %s%s%s\n"
             "%s\n"
             "behaviours: %s\n"
             "[ ] %s = %g   (H: help)",
             v->fps, v->frame_ms, f->step_ms, (unsigned long long)step, f->paused ? "  PAUSED" : "", ms.key, ms.count,
             ms.scan, ms.scatter, ms.steer, ms.integrate, ms.bodies, f->p.world.count, f->p.world.dim,
             f->gpu ? "gpu" : "cpu", boundary_name(f->p.world.boundary), boids_color_mode_name(v->color),
             boids_body_style_name(f->body_style), f->body_error[0] ? "  " : "", f->body_error, v->renderer, behaviors,
             name, (double)value);
    viewer_hud(v, fb_w, fb_h, hud);
}

// One frame's picture: the heat map, the agents and their bodies, the scene,
// the line overlays, the HUD, the help and the profile graph.
static void flock_draw(viewer *v, int fb_w, int fb_h) {
    viewer_flock *f = v->flock;
    float vp[16];
    viewer_draw_begin(v, fb_w, fb_h, NULL, vp);
    viewer_buffers b = {0};
    if (f->gpu) {
        boids_gpu_state_buffers(f->gpu, &b.pos, &b.vel, &b.group, &b.neighbors);
        b.joints = boids_gpu_joint_buffer(f->gpu, &b.rows);
        b.id = boids_gpu_id_buffer(f->gpu);
    } else {
        boids_render_own_buffers(v->render, &b.pos, &b.vel, &b.group, &b.neighbors);
        boids_render_own_body_buffers(v->render, &b.joints, &b.id, &b.rows);
    }
    draw_overlays(v, vp, true);
    viewer_draw_agents(v, fb_h, vp, &f->p, &b, f->show[OVERLAY_PATH]);
    draw_overlays(v, vp, false);
    flock_hud(v, fb_w, fb_h);
    viewer_help(v, fb_w, fb_h);
    viewer_profile_graph(v, fb_w, fb_h);
}

// After the swap: the fault check.
static int flock_after(viewer *v) {
    return check_fault(v);
}

// A profile row's stage times: the GPU's timer queries or the reference's clocks.
static void flock_profile_row(viewer *v, boids_profile_row *row) {
    viewer_flock *f = v->flock;
    boids_stage_ms ms;
    if (f->gpu)
        boids_gpu_stage_ms(f->gpu, &ms);
    else
        ms = f->sim->ms;
    const double stage[7] = {ms.key, ms.count, ms.scan, ms.scatter, ms.steer, ms.integrate, ms.bodies};
    memcpy(row->stage_ms, stage, sizeof stage);
    row->agents = f->p.world.count;
    row->behaviors = f->p.group[0].behaviors;
}

// --save at exit, a fault that came with its read-back, the last line.
static int flock_finish(viewer *v, int rc) {
    viewer_flock *f = v->flock;
    const boids_options *o = v->o;
    if (f->faulted)
        return rc; // its line is printed; nothing more can be read from the GPU
    if (o->save && !f->save_failed && viewer_flock_save_state(v, o->save))
        rc = EXIT_ENVIRONMENT;
    if (check_fault(v))
        return EXIT_ENVIRONMENT;
    uint32_t errors = f->gpu ? boids_gpu_debug_errors(f->gpu) : v->gl_errors;
    printf("frames: %llu, steps %llu, last frame %dx%d, gl-errors %u\n", (unsigned long long)v->frame,
           (unsigned long long)(f->gpu ? boids_gpu_steps(f->gpu) : f->sim->step), v->drawn_w, v->drawn_h, errors);
    return viewer_gl_errors(errors, rc);
}

// Frees the flock's simulations and scratch.
static void flock_destroy(viewer *v) {
    viewer_flock *f = v->flock;
    if (!f)
        return;
    boids_gpu_destroy(f->gpu);
    boids_sim_destroy(f->sim);
    free(f->overlay);
    free(f->read_pos);
    free(f->read_vel);
    free(f->read_count);
    free(f->scen);
    free(f);
    v->flock = NULL;
}

const viewer_mode viewer_flock_mode = {
    .name = "flock",
    .bit = VIEWER_FLOCK,
    .help_more = "mouse: target of seek/flee/arrive/pursue/evade\ndrag: pan (2D) / rotate (3D)   wheel: zoom",
    .prepare = flock_prepare,
    .init = flock_init,
    .frame = flock_frame,
    .draw = flock_draw,
    .after = flock_after,
    .profile_row = flock_profile_row,
    .finish = flock_finish,
    .destroy = flock_destroy,
};
