// src/viewer/viewer_flock_mode.c: the viewer's flock mode: each frame one step of
// the simulation through the engine (boids/engine.h) - the compute shaders
// on the window's context (--backend gpu, default), drawn straight from
// their buffers, or the C reference (--backend cpu), read through the
// engine into the render's own buffers - then the agents, bodies, scene and
// overlays, and the HUD; --save / --save-every / --load, and the fault
// check after every frame. Its parameters and the keys that change them
// directly are in viewer_flock.c, its other keys in viewer_flock_keys.c.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "boids/parse.h"
#include "viewer_flock.h"

#define COUNT_HARDWARE 200000u
#define COUNT_SOFTWARE 20000u

static const char *boundary_name(uint32_t b) {
    return b <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[b] : "?";
}

// See viewer_flock.h: a CPU engine made from p_create (or loaded from the
// file) whose state is copied into the flock's, step counter too.
boids_result viewer_flock_new_sim(viewer *v) {
    viewer_flock *f = v->flock;
    const boids_options *o = v->o;
    boids_engine *src = NULL;
    char err[1200];
    boids_result r;
    if (o->load) { // --load: back to the snapshot (with the parameters of now)
        boids_engine_desc d = {.threads = o->threads};
        if ((r = boids_engine_load(&src, o->load, &d, err, sizeof err)) != BOIDS_OK) {
            fprintf(stderr, "%s: reset: --load: %s\n", PROG, err);
            return r;
        }
    } else {
        boids_engine_desc d = {.params = &f->p_create, .distribution = f->dist, .threads = o->threads};
        if ((r = boids_engine_create(&src, &d, err, sizeof err)) != BOIDS_OK)
            return r;
    }
    // The file may have been replaced since: only a snapshot of the same
    // shape (count, dimension, world, groups, grid, joint rows) can take over,
    // which copy_state checks.
    r = boids_engine_copy_state(f->e, src);
    if (r == BOIDS_ERR_ARGUMENT && o->load) {
        fprintf(stderr, "%s: reset: --load: %s: now holds another simulation (%u agents, %uD); kept running\n", PROG,
                o->load, boids_engine_count(src), boids_engine_dim(src));
        boids_engine_destroy(src);
        return r;
    }
    boids_engine_destroy(src);
    f->params_dirty = true;
    return r;
}

// See viewer_flock.h: nothing is written while a fault stands (its check
// says so), so --save keeps the last snapshot taken before it.
int viewer_flock_save_state(viewer *v, const char *path) {
    viewer_flock *f = v->flock;
    char err[1200];
    if (boids_engine_check(f->e, NULL, 0) != BOIDS_OK)
        return 0; // check_fault says it, in its one line
    if (boids_engine_save(f->e, path, err, sizeof err) != BOIDS_OK) {
        if (boids_engine_check(f->e, NULL, 0) != BOIDS_OK)
            return 0; // a fault during the read-back: nothing written
        fprintf(stderr, "%s: --save: %s\n", PROG, err);
        return EXIT_ENVIRONMENT;
    }
    uint64_t step = boids_engine_steps(f->e);
    printf("saved: %s (step %llu)\n", path, (unsigned long long)step);
    fflush(stdout);
    if (v->o->save && strcmp(path, v->o->save) == 0)
        f->saved_ok = (int64_t)step;
    return 0;
}

// After each frame: a fault of the engine (the GPU's lost context or GL
// error) or a lost context of the window stops the viewer with ONE line
// naming the fault and what --save holds: on the CPU backend the simulation
// is intact and is saved; the GPU's state cannot be read any more, so --save
// keeps the last --save-every / W snapshot. Returns 0, or 3 with f->faulted
// and v->quit set.
static int check_fault(viewer *v) {
    viewer_flock *f = v->flock;
    char what[1024];
    uint64_t step = boids_engine_steps(f->e);
    if (boids_engine_check(f->e, what, sizeof what) == BOIDS_OK) {
        // GL 4.1 has no reset query (glad loads glGetGraphicsResetStatus from 4.5)
        GLenum st = v->gl41 ? GL_NO_ERROR : glGetGraphicsResetStatus();
        if (st == GL_NO_ERROR)
            return 0;
        snprintf(what, sizeof what, "the OpenGL context was lost (%s reset) at step %llu",
                 st == GL_GUILTY_CONTEXT_RESET     ? "guilty"
                 : st == GL_INNOCENT_CONTEXT_RESET ? "innocent"
                                                   : "unknown",
                 (unsigned long long)step);
    }
    char line[2048];
    int n = snprintf(line, sizeof line, "%s: --backend %s: %s; stopped", PROG, f->use_gpu ? "gpu" : "cpu", what);
    const char *save = v->o->save;
    if (save && !f->use_gpu) {
        char err[1200];
        if (boids_engine_save(f->e, save, err, sizeof err) == BOIDS_OK)
            snprintf(line + n, sizeof line - (size_t)n, "; --save %s holds step %llu", save, (unsigned long long)step);
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

// The world point under the mouse (N / V pick the agent nearest it), also
// when the scenario moves the target; false without a cursor.
static bool update_cursor_world(viewer *v) {
    float nx, ny, aspect;
    if (!v->have_cursor || !viewer_cursor_ndc(v, v->cursor_x, v->cursor_y, &nx, &ny, &aspect))
        return false;
    boids_camera_unproject(&v->cam, aspect, nx, ny, v->flock->cursor_world);
    return true;
}

// The mouse as the target of seek/flee/arrive/pursue/evade (its velocity
// per time unit for the predictions).
static void update_target(viewer *v) {
    viewer_flock *f = v->flock;
    float t[3];
    if (!update_cursor_world(v))
        return;
    if (f->target_taken && f->target_cursor[0] == v->cursor_x && f->target_cursor[1] == v->cursor_y)
        return; // the cursor has not moved (viewer_flock.h)
    f->target_taken = true;
    f->target_cursor[0] = v->cursor_x;
    f->target_cursor[1] = v->cursor_y;
    memcpy(t, f->cursor_world, sizeof t);
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

// --backend gpu unless --backend cpu; BOIDS_DEBUG's hooks checked; --load read
// before any window (a bad file is one line, exit 2).
static int flock_prepare(viewer *v) {
    const boids_options *o = v->o;
    viewer_flock *f = v->flock = calloc(1, sizeof *v->flock);
    if (!f || !(f->scen = malloc(sizeof *f->scen))) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    f->use_gpu = !(o->flags_given & BOIDS_CLI_BACKEND) || strcmp(o->backend, "gpu") == 0;
    v->wants_gpu = f->use_gpu;
    v->gpu_by_default = !(o->flags_given & BOIDS_CLI_BACKEND);
    char err[1200];
    if (f->use_gpu && boids_engine_fault_env(err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return EXIT_INPUT;
    }
    if (o->load) { // on the CPU until the window's context exists
        boids_engine_desc d = {.threads = o->threads};
        boids_result r = boids_engine_load(&f->loaded, o->load, &d, err, sizeof err);
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

// The engine: from p_create (and --load's state copied in), on the
// window's context for the GPU backend; 0 or the exit status (said).
static int create_engine(viewer *v, uint32_t count) {
    const boids_options *o = v->o;
    viewer_flock *f = v->flock;
    char err[4096];
    // A snapshot keeps its update order: a sequential run continues so, on the CPU.
    boids_update update = f->loaded ? boids_engine_update(f->loaded) : BOIDS_UPDATE_PARALLEL;
    if (update != BOIDS_UPDATE_PARALLEL && f->use_gpu) {
        boids_cli_error(PROG, "--load", o->load, "--backend cpu (the GPU has only the parallel update)",
                        "holds a sequential run (--update sequential), which the GPU cannot continue");
        return EXIT_INPUT;
    }
    boids_engine_desc d = {.params = &f->p_create,
                           .update = update,
                           .scenario = f->scen,
                           .distribution = f->dist,
                           .backend = f->use_gpu ? BOIDS_BACKEND_GPU : BOIDS_BACKEND_CPU,
                           .threads = o->threads,
                           .gl_load = f->use_gpu ? boids_window_loader(v->win) : NULL,
                           .shader_dir = o->shader_dir,
                           .silent_errors = true, // check_fault prints the first
                           // a key press steps with the general steer while its own builds
                           .background_builds = true};
    boids_result r = boids_engine_create(&f->e, &d, err, sizeof err);
    if (r == BOIDS_ERR_NOMEM) {
        boids_cli_error(PROG, "--count", NULL, NULL, "cannot create a simulation of %u agents: out of memory", count);
        return EXIT_ENVIRONMENT;
    }
    bool input = r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT;
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s%s\n", PROG, err, input ? "" : "; try --backend cpu");
        return input ? EXIT_INPUT : EXIT_ENVIRONMENT;
    }
    if (f->loaded) { // the snapshot's agents, bodies and step
        r = boids_engine_copy_state(f->e, f->loaded);
        boids_engine_destroy(f->loaded);
        f->loaded = NULL;
        if (r != BOIDS_OK) {
            boids_cli_error(PROG, "--load", o->load, NULL, "cannot be run: %s", boids_result_str(r));
            return EXIT_ENVIRONMENT;
        }
    }
    // Scratch of the CPU backend's picture (and of N / V on both).
    size_t n = count ? count : 1;
    f->read_pos = malloc(n * 16);
    f->read_vel = malloc(n * 16);
    f->read_group = malloc(n * 4);
    f->read_neighbors = malloc(n * 4);
    f->read_id = malloc(n * 4);
    if (!f->read_pos || !f->read_vel || !f->read_group || !f->read_neighbors || !f->read_id) {
        boids_cli_error(PROG, "--count", NULL, NULL, "cannot create a simulation of %u agents: out of memory", count);
        return EXIT_ENVIRONMENT;
    }
    return 0;
}

// The parameters, the engine, the render, the camera, the first lines on stdout.
static int flock_init(viewer *v) {
    const boids_options *o = v->o;
    viewer_flock *f = v->flock;
    char err[4096];
    if (v->gl41) // no compute shaders: the CPU backend (open_window said so, or refused --backend gpu)
        f->use_gpu = false;
    bool software = software_renderer(v->renderer);
    uint32_t count = o->count_set ? o->count : (f->use_gpu && !software ? COUNT_HARDWARE : COUNT_SOFTWARE);
    if (f->loaded) { // the snapshot's parameters and scenario (loaded before the window)
        f->p = *boids_engine_params(f->loaded);
        f->p.flow.vec = NULL; // the engine's own
        *f->scen = *boids_engine_scenario(f->loaded);
        count = f->p.world.count;
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
    // Only for the rule sets that take forces (chapter, tutorial): heading
    // boids and Couzin's allow only the three flocking ones, circles
    // separation alone, Vicsek's alignment alone.
    f->p_create = f->p;
    if (f->p_create.group[0].rules == BOIDS_RULES_CHAPTER || f->p_create.group[0].rules == BOIDS_RULES_TUTORIAL)
        f->p_create.group[0].behaviors |= BOIDS_BIT(BOIDS_BI_FLOW);
    int rc = create_engine(v, count);
    if (rc)
        return rc;
    f->saved_step = boids_engine_steps(f->e);
    f->saved_ok = -1;
    f->params_dirty = true;
    f->body_style = o->values.set[BOIDS_PARAM_BODIES] ? o->values.v[BOIDS_PARAM_BODIES].u[0] : f->p.body[0].style;
    if ((rc = viewer_render_create(v, f->use_gpu ? 0 : count, f->use_gpu)))
        return rc;
    boids_render_set_palette(v->render, (const float(*)[4])f->scen->color, f->scen->color_set);
    boids_render_set_glyphs(v->render, f->scen->glyph, f->scen->glyph_size);
    v->color = boids_render_default_color(count);
    viewer_camera_world(v, &f->p.world);
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

// The CPU backend's state (slot order) and bodies, read through the engine,
// into the render's own buffers.
static void upload_state(viewer *v) {
    viewer_flock *f = v->flock;
    boids_engine *e = f->e;
    uint32_t n = boids_engine_count(e), rows = boids_params_joint_rows(boids_engine_params(e));
    boids_engine_read_buffer(e, BOIDS_ENGINE_POS, f->read_pos, (size_t)n * 16);
    boids_engine_read_buffer(e, BOIDS_ENGINE_VEL, f->read_vel, (size_t)n * 16);
    boids_engine_read_buffer(e, BOIDS_ENGINE_GROUP, f->read_group, (size_t)n * 4);
    boids_engine_read_buffer(e, BOIDS_ENGINE_NEIGHBORS, f->read_neighbors, (size_t)n * 4);
    boids_engine_read_buffer(e, BOIDS_ENGINE_ID, f->read_id, (size_t)n * 4);
    boids_render_upload_agents(v->render, n, (const float(*)[4])f->read_pos, (const float(*)[4])f->read_vel,
                               f->read_group, f->read_neighbors);
    size_t bytes = (size_t)rows * n * 16;
    if (bytes > f->joints_cap) {
        free(f->read_joints);
        f->read_joints = malloc(bytes);
        f->joints_cap = f->read_joints ? bytes : 0;
    }
    bool joints = bytes && f->read_joints && boids_engine_read_joints(e, f->read_joints, bytes) == BOIDS_OK;
    boids_render_upload_joints(v->render, n, f->read_id, joints ? (const float(*)[4])f->read_joints : NULL,
                               joints ? rows : 0);
}

// The schedule, the mouse target and changed parameters, then one step
// (unless paused) and a --save-every snapshot when due.
static int flock_frame(viewer *v) {
    const boids_options *o = v->o;
    viewer_flock *f = v->flock;
    const boids_scenario *sc = f->scen;
    int rc = 0;
    if (boids_scenario_is_dynamic(sc) && (!f->paused || f->step_once))
        // The scenario's circling target and varying weights at this step,
        // for the HUD and the scene only: the engine's step applies them
        // itself (pushing them here too would upload the parameters twice
        // a frame).
        boids_scenario_at_step(sc, boids_engine_steps(f->e), &f->p);
    if (!boids_scenario_target_scheduled(sc))
        update_target(v);
    else
        update_cursor_world(v);
    if (f->params_dirty) { // groups, scene, world; the grid and the flow field stay
        f->params_dirty = false;
        boids_engine_set_params(f->e, &f->p, NULL, 0); // a fault: check_fault says it
        viewer_flock_prepare(v);
    }
    if (!f->paused || f->step_once) {
        double t0 = viewer_now();
        boids_engine_step(f->e, 1, NULL);
        f->step_ms = (viewer_now() - t0) * 1e3;
        f->step_once = false;
        uint64_t steps = boids_engine_steps(f->e);
        // A save due in the frame of a fault is left to check_fault (save_state checks too).
        if (o->save && o->save_every && steps % o->save_every == 0 && steps != f->saved_step) {
            f->saved_step = steps;
            if (viewer_flock_save_state(v, o->save)) { // one line, then stop as boids-run does
                rc = EXIT_ENVIRONMENT;
                v->quit = f->save_failed = true;
            }
        }
    }
    if (!f->use_gpu)
        upload_state(v);
    return rc;
}

// Pair tests the L overlay may spend a frame (hunters x agents).
#define FOLLOWS_BUDGET 20000000u

// The G, F, N, V and L overlays, from the state read through the engine
// (debug views, off by default: the GPU's normal frame has no read-back).
// `under`: the heat map, drawn before the agents; else the line overlays.
static void draw_overlays(viewer *v, const float view_proj[16], bool under) {
    viewer_flock *f = v->flock;
    bool *show = f->show;
    if (under ? !show[OVERLAY_GRID]
              : !(show[OVERLAY_FLOW] || show[OVERLAY_NEIGHBORS] || show[OVERLAY_VECTORS] || show[OVERLAY_FOLLOWS]))
        return;
    const boids_world_params *w = &f->p.world;
    // The engine's grid (with --grid-fine auto its pick of the moment).
    const boids_world_params *gw = &boids_engine_params(f->e)->world;
    uint32_t n = w->count, cells = gw->cells[3];
    if (f->overlay && f->overlay_cells != cells) {
        free(f->overlay);
        free(f->read_count);
        f->overlay = NULL;
        f->read_count = NULL;
    }
    if (!f->overlay) {
        f->overlay_cells = cells;
        f->overlay_cap = (size_t)cells * 6 + 262144;
        f->overlay = malloc(f->overlay_cap * sizeof *f->overlay);
        f->read_count = malloc((size_t)cells * 4 + 4);
        if (!f->overlay || !f->read_count) {
            fprintf(stderr, "%s: out of memory for the overlays\n", PROG);
            memset(show, 0, sizeof f->show[0] * OVERLAY_PATH);
            show[OVERLAY_FOLLOWS] = false;
            free(f->overlay);
            f->overlay = NULL;
            return;
        }
    }
    size_t m = 0;
    if (under) {
        if (boids_engine_read_buffer(f->e, BOIDS_ENGINE_COUNT, f->read_count, (size_t)cells * 4) == BOIDS_OK)
            m = boids_overlay_grid(f->read_count, gw, f->overlay, 0, f->overlay_cap);
        boids_render_triangles(v->render, view_proj, f->overlay, m);
        return;
    }
    const boids_flowfield *flow = &boids_engine_params(f->e)->flow; // read only
    if (show[OVERLAY_FLOW])
        m = boids_overlay_flow(flow, w, f->overlay, m, f->overlay_cap);
    // The agents' positions, groups and ids, read back once for the overlays
    // that need them (N, V: velocities too; L).
    bool agent = show[OVERLAY_NEIGHBORS] || show[OVERLAY_VECTORS];
    bool read = (agent || show[OVERLAY_FOLLOWS]) &&
                boids_engine_read_buffer(f->e, BOIDS_ENGINE_POS, f->read_pos, (size_t)n * 16) == BOIDS_OK &&
                boids_engine_read_buffer(f->e, BOIDS_ENGINE_GROUP, f->read_group, (size_t)n * 4) == BOIDS_OK &&
                boids_engine_read_buffer(f->e, BOIDS_ENGINE_ID, f->read_id, (size_t)n * 4) == BOIDS_OK;
    if (read && agent && boids_engine_read_buffer(f->e, BOIDS_ENGINE_VEL, f->read_vel, (size_t)n * 16) == BOIDS_OK) {
        boids_params q = f->p;
        q.flow = *flow;
        const float *point = v->have_cursor ? f->cursor_world : w->target_pos;
        uint32_t picked;
        m = boids_overlay_agent(&q, n, (const float(*)[4])f->read_pos, (const float(*)[4])f->read_vel, f->read_id,
                                f->read_group, point, show[OVERLAY_NEIGHBORS], show[OVERLAY_VECTORS], f->overlay, m,
                                f->overlay_cap, &picked);
    }
    // Who follows whom: the hunters' prey, the members' leaders, the guards' pairs.
    if (read && show[OVERLAY_FOLLOWS])
        m = boids_overlay_follows(&f->p, n, (const float(*)[4])f->read_pos, f->read_group, f->read_id, FOLLOWS_BUDGET,
                                  f->overlay, m, f->overlay_cap);
    boids_render_lines(v->render, view_proj, f->overlay, m);
}

// The HUD's text: the frame's times, the stage times of one step beside
// that step's own time (GPU: timer queries of a step a few frames back; CPU:
// the reference's clocks), the flock, the behaviours, the parameter of [ ].
static void flock_hud_text(viewer *v, char *hud, size_t size) {
    viewer_flock *f = v->flock;
    boids_stage_ms ms;
    boids_engine_stage_ms(f->e, false, &ms);
    const char *name;
    float value = viewer_flock_tunable(v, &name);
    char behaviors[400], stages[256];
    boids_behaviors_text(f->p.group[0].behaviors, ",", behaviors, sizeof behaviors);
    if (f->use_gpu && ms.step == 0.0) // no timer query of a step has come back yet (a few frames)
        snprintf(stages, sizeof stages, "GPU step: the stage times come a few frames after the first step");
    else
        snprintf(stages, sizeof stages,
                 "%s step %.2f ms = key %.2f count %.2f scan %.2f scatter %.2f steer %.2f integrate %.2f bodies %.2f",
                 f->use_gpu ? "GPU" : "CPU", ms.step, ms.key, ms.count, ms.scan, ms.scatter, ms.steer, ms.integrate,
                 ms.bodies);
    snprintf(hud, size,
             "FPS %.1f   frame %.2f ms   step call %.2f ms (CPU wall)   step %llu%s\n"
             "%s\n"
             "%u agents  %uD  backend %s  boundary %s  colour %s  bodies %s%s%s\n"
             "%s\n"
             "behaviours: %s\n"
             "[ ] %s = %g   (H: help, I: hide panels)",
             v->fps, v->frame_ms, f->step_ms, (unsigned long long)boids_engine_steps(f->e), f->paused ? "  PAUSED" : "",
             stages, f->p.world.count, f->p.world.dim, f->use_gpu ? "gpu" : "cpu",
             boundary_name(f->p.world.boundary), boids_color_mode_name(v->color), boids_body_style_name(f->body_style),
             f->body_error[0] ? "  " : "", f->body_error, v->renderer, behaviors, name, (double)value);
}

// One frame's picture: the layout (the HUD's text and the menu's size
// first, so that the camera frames the world in what they leave), the heat
// map, the agents and their bodies (from the GPU's buffers, or the render's
// own the CPU's state went to), the scene, the line overlays, the HUD, the
// behaviour menu, the profile graph and the help.
static void flock_draw(viewer *v, int fb_w, int fb_h) {
    viewer_flock *f = v->flock;
    static char hud[2048];
    flock_hud_text(v, hud, sizeof hud);
    float menu_w, menu_h;
    viewer_menu_size(v, fb_h, &menu_w, &menu_h);
    viewer_layout_frame(v, fb_w, fb_h, hud, menu_w, menu_h);
    float vp[16];
    viewer_draw_begin(v, fb_w, fb_h, NULL, vp);
    boids_engine_gl b = {0};
    if (boids_engine_gl_buffers(f->e, &b) != BOIDS_OK) { // the CPU backend
        boids_render_own_buffers(v->render, &b.pos, &b.vel, &b.group, &b.neighbors);
        boids_render_own_body_buffers(v->render, &b.joints, &b.id, &b.joint_rows);
    }
    draw_overlays(v, vp, true);
    viewer_draw_agents(v, fb_h, vp, &f->p, &b, f->show[OVERLAY_PATH]);
    draw_overlays(v, vp, false);
    viewer_hud(v, fb_w, fb_h);
    viewer_menu_draw(v, fb_w, fb_h);
    viewer_profile_graph(v, fb_w, fb_h);
    viewer_help(v, fb_w, fb_h); // last: while shown it lies over everything
}

// After the swap: the fault check.
static int flock_after(viewer *v) {
    return check_fault(v);
}

// A profile row's stage times: the GPU's timer queries or the reference's clocks.
static void flock_profile_row(viewer *v, boids_profile_row *row) {
    viewer_flock *f = v->flock;
    boids_stage_ms ms;
    boids_engine_stage_ms(f->e, false, &ms);
    const double stage[7] = {ms.key, ms.count, ms.scan, ms.scatter, ms.steer, ms.integrate, ms.bodies};
    memcpy(row->stage_ms, stage, sizeof stage);
    row->agents = f->p.world.count;
    row->behaviors = f->p.group[0].behaviors;
}

// --save at exit, a fault that came with its read-back, the last line. GL
// errors: the viewer's count (the GPU backend's are faults, said above).
static int flock_finish(viewer *v, int rc) {
    viewer_flock *f = v->flock;
    const boids_options *o = v->o;
    if (f->faulted)
        return rc; // its line is printed; nothing more can be read from the GPU
    if (o->save && !f->save_failed && viewer_flock_save_state(v, o->save))
        rc = EXIT_ENVIRONMENT;
    if (check_fault(v))
        return EXIT_ENVIRONMENT;
    printf("frames: %llu, steps %llu, last frame %dx%d, gl-errors %u\n", (unsigned long long)v->frame,
           (unsigned long long)boids_engine_steps(f->e), v->drawn_w, v->drawn_h, v->gl_errors);
    return viewer_gl_errors(v->gl_errors, rc);
}

// Frees the flock's engines and scratch.
static void flock_destroy(viewer *v) {
    viewer_flock *f = v->flock;
    if (!f)
        return;
    boids_engine_destroy(f->e);
    boids_engine_destroy(f->loaded);
    free(f->overlay);
    free(f->read_pos);
    free(f->read_vel);
    free(f->read_joints);
    free(f->read_group);
    free(f->read_neighbors);
    free(f->read_id);
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
