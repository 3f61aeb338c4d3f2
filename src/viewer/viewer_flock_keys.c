// src/viewer/viewer_flock_keys.c: the handlers of the flock's keys (the table
// in viewer_key_table.c binds them) above its mode (viewer_flock_mode.c):
// boundary, rules, pause and step, reset, overlays, bodies, profile and
// snapshots; the behaviours and the parameters of [ ] - = are
// viewer_flock.c's. Each change is printed on stdout, so scripts (--keys)
// and tests can follow it.
#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "boids/parse.h"
#include "viewer_flock.h"

// See viewer.h: the next of wrap, walls, bounce, margin (BOIDS_BOUNDARY_* order).
void viewer_flock_boundary(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_flock *f = v->flock;
    boids_params before = f->p;
    f->p.world.boundary = (f->p.world.boundary + 1) % (BOIDS_BOUNDARY_MARGIN + 1);
    if (viewer_flock_refinalize(f, &before)) {
        printf("boundary: %s\n", boids_parse_boundary_names[f->p.world.boundary]);
        fflush(stdout);
    }
}

// See viewer.h.
void viewer_flock_rules(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_flock *f = v->flock;
    boids_params before = f->p;
    // The next rule set the groups' behaviours allow (heading: flocking
    // only, 2D; circles: separation alone); the refused ones are said.
    for (uint32_t k = 1; k < BOIDS_RULES_COUNT; k++) {
        uint32_t r = (before.group[0].rules + k) % BOIDS_RULES_COUNT;
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            f->p.group[g].rules = r;
        if (viewer_flock_refinalize(f, &before)) {
            printf("rules: %s\n", boids_parse_rules_names[r]);
            fflush(stdout);
            return;
        }
    }
}

// See viewer.h.
void viewer_flock_pause(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->flock->paused = !v->flock->paused;
    printf("%s\n", v->flock->paused ? "paused" : "running");
    fflush(stdout);
}

// See viewer.h: paused, with one step to come.
void viewer_flock_step(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->flock->paused = true;
    v->flock->step_once = true;
}

// See viewer.h: a new simulation (same seed), or --load's snapshot again.
void viewer_flock_reset(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    if (viewer_flock_new_sim(v) != BOIDS_OK) {
        if (!v->o->load) { // a snapshot that went missing keeps the flock running
            fprintf(stderr, "%s: reset failed: out of memory\n", PROG);
            v->quit = true;
        }
    } else if (v->o->load) {
        printf("reset: %s (step %llu)\n", v->o->load, (unsigned long long)boids_engine_steps(v->flock->e));
    } else {
        printf("reset: seed %llu\n", (unsigned long long)v->o->seed);
    }
    fflush(stdout);
}

// See viewer.h: the overlay arg (OVERLAY_*) on or off.
void viewer_flock_overlay(viewer *v, int key, int arg) {
    (void)key;
    static const char *const names[OVERLAYS] = {"grid", "neighbors", "vectors", "flow", "path", "follows"};
    bool *flag = &v->flock->show[arg];
    *flag = !*flag;
    printf("overlay: %s %s\n", names[arg], *flag ? "on" : "off");
    fflush(stdout);
}

// See viewer.h: every group's body style to the next of none, chain, snake,
// fish (length --body-length or 1.2 x the separation). A rejected change
// (on the HUD and stdout) keeps the style.
void viewer_flock_bodies(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    const boids_options *o = v->o;
    viewer_flock *f = v->flock;
    uint32_t style = (f->body_style + 1) % BOIDS_BODY_STYLES;
    boids_body_params body[BOIDS_MAX_GROUPS];
    char what[256] = "";
    boids_result r = BOIDS_OK;
    uint32_t joints = o->values.set[BOIDS_PARAM_JOINTS] ? o->values.v[BOIDS_PARAM_JOINTS].u[0]
                                                        : (uint32_t)boids_param_table[BOIDS_PARAM_JOINTS].def;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS && r == BOIDS_OK; g++) {
        float length = o->values.set[BOIDS_PARAM_BODY_LENGTH] ? o->values.v[BOIDS_PARAM_BODY_LENGTH].f[0]
                                                              : 1.2f * f->p.group[g].separation;
        r = boids_body_make(&body[g], style, joints, length, what, sizeof what);
    }
    if (r == BOIDS_OK) { // the parameters of now with the new bodies, laid straight
        boids_params q = f->p;
        memcpy(q.body, body, sizeof body);
        r = boids_engine_set_params(f->e, &q, what, sizeof what);
    }
    if (r != BOIDS_OK) {
        snprintf(f->body_error, sizeof f->body_error, "bodies %s rejected: %s", boids_body_style_name(style), what);
        printf("rejected: %s\n", f->body_error);
        fflush(stdout);
        return;
    }
    f->body_error[0] = '\0';
    f->body_style = style;
    memcpy(f->p.body, body, sizeof body);
    memcpy(f->p_create.body, body, sizeof body);
    f->params_dirty = true;
    printf("bodies: %s\n", boids_body_style_name(style));
    fflush(stdout);
}

// See viewer.h: a profile recording starts, or stops and is written.
void viewer_flock_profile(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    if (v->profile)
        viewer_profile_stop(v);
    else
        viewer_profile_start(v, v->flock->use_gpu ? "gpu" : "cpu");
}

// See viewer.h: a snapshot to --save's FILE, else boids-NNNN.boids.
void viewer_flock_save(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    char path[64];
    viewer_free_name(path, sizeof path, "boids-%04llu.boids", &v->flock->saves);
    viewer_flock_save_state(v, v->o->save ? v->o->save : path);
}
