// src/core/scenario_write.c: a scenario as a file (boids_scenario_write:
// --dump-scenario, the ensembles' records), every value written out so it
// loads back to the same parameters.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/parse.h"
#include "boids/registry.h"
#include "boids/scenario.h"

// ---- writing --------------------------------------------------------------------------

// "x, y[, z]" of the first dim components.
static void vec_text(const float *v, uint32_t dim, char *buf, size_t size) {
    if (dim == 2)
        snprintf(buf, size, "%.9g, %.9g", (double)v[0], (double)v[1]);
    else
        snprintf(buf, size, "%.9g, %.9g, %.9g", (double)v[0], (double)v[1], (double)v[2]);
}

// A named agent's text: its id or "target".
static void named_text(uint32_t id, char *buf, size_t size) {
    if (id == BOIDS_ID_TARGET)
        snprintf(buf, size, "target");
    else
        snprintf(buf, size, "%u", id);
}

// Degrees of a field-of-view cosine (cos of half the angle; -1: 360).
static double fov_degrees(float c) {
    return c <= -1.0f ? 360.0 : 2.0 * acos((double)c) * 180.0 / 3.14159265358979323846;
}

// "KEY = TEXT", or "KEY =TEXT" when TEXT starts with ';': inih reads a ';'
// after whitespace as an inline comment, so the space would lose the value
// on loading it back (a file's "title =;x" holds ";x").
static void put_text(FILE *f, const char *key, const char *text) {
    fprintf(f, "%s =%s%s\n", key, text[0] == ';' ? "" : " ", text);
}


// The number of a registry parameter's names, or "?" out of range.
static const char *name_of(const char *const *names, uint32_t k) {
    for (uint32_t i = 0; names[i]; i++)
        if (i == k)
            return names[i];
    return "?";
}

// The line "KEY = VALUE" of registry parameter id in the struct at base
// (the world's or group gi's), when it holds what the reader would not give
// back without it: the 0 of a number whose 0 means unset (another value
// stands in),
// a cone that is not the group's own, an unset range, the noise word of the
// other model are left out.
static void write_param(FILE *f, const boids_scenario *sc, uint32_t gi, int id, const char *base) {
    const boids_param_info *in = &boids_param_table[id];
    float x[3];
    uint32_t u[2];
    char a[32], b[32];
    memcpy(x, base + in->field,
           in->kind == BOIDS_PK_FLOAT || in->kind == BOIDS_PK_DEGREES ? sizeof(float)
           : in->kind == BOIDS_PK_RANGE                               ? 2 * sizeof(float)
           : in->kind == BOIDS_PK_VECTOR                              ? 3 * sizeof(float)
                                                                      : 0);
    memcpy(u, base + in->field,
           in->kind == BOIDS_PK_AGENTS ? 2 * sizeof(uint32_t)
           : in->kind == BOIDS_PK_UINT || in->kind == BOIDS_PK_CHOICE || in->kind == BOIDS_PK_AGENT ? sizeof(uint32_t)
                                                                                                    : 0);
    const boids_group_params *g = &sc->params.group[gi < BOIDS_MAX_GROUPS ? gi : 0];
    switch (in->kind) {
    case BOIDS_PK_FLOAT:
        if ((in->flags & BOIDS_PF_UNSET0) && x[0] == 0.0f)
            return;
        if ((id == BOIDS_PARAM_ETA || id == BOIDS_PARAM_SIGMA) &&
            (x[0] == 0.0f || (id == BOIDS_PARAM_SIGMA) != (g->rules == BOIDS_RULES_COUZIN)))
            return;
        fprintf(f, "%s = %.9g\n", in->key, (double)x[0]);
        break;
    case BOIDS_PK_DEGREES:
        if ((in->flags & BOIDS_PF_CONE) && !(g->own_cones & in->aux))
            return;
        if (id == BOIDS_PARAM_FOV && sc->fov_deg[gi] > 0.0f)
            fprintf(f, "%s = %.9g\n", in->key, (double)sc->fov_deg[gi]);
        else if (id == BOIDS_PARAM_VIEW_FOV && sc->view_fov_deg[gi] > 0.0f)
            fprintf(f, "%s = %.9g\n", in->key, (double)sc->view_fov_deg[gi]);
        else
            fprintf(f, "%s = %.9g\n", in->key, fov_degrees(x[0]));
        break;
    case BOIDS_PK_RANGE:
        if (x[0] > 0.0f)
            fprintf(f, "%s = %.9g, %.9g\n", in->key, (double)x[0], (double)x[1]);
        break;
    case BOIDS_PK_VECTOR:
        fprintf(f, "%s = %.9g, %.9g, %.9g\n", in->key, (double)x[0], (double)x[1], (double)x[2]);
        break;
    case BOIDS_PK_UINT:
        fprintf(f, "%s = %u\n", in->key, u[0]);
        break;
    case BOIDS_PK_CHOICE:
        if (id == BOIDS_PARAM_GRID_FINE) {
            if (u[0]) // unset: the plain grid
                fprintf(f, "%s = %s\n", in->key, boids_parse_grid_fine_text(u[0]));
        } else {
            fprintf(f, "%s = %s\n", in->key, name_of(in->choices, u[0]));
        }
        break;
    case BOIDS_PK_AGENT:
    case BOIDS_PK_AGENTS:
        named_text(u[0], a, sizeof a);
        named_text(u[1], b, sizeof b);
        fprintf(f, in->kind == BOIDS_PK_AGENTS ? "%s = %s, %s\n" : "%s = %s\n", in->key, a, b);
        break;
    default: // behaviours, weights, bodies and the world's shape: written by the caller
        break;
    }
}

// Every registry parameter of `where` with a scenario key, in the
// registry's order.
static void write_params(FILE *f, const boids_scenario *sc, uint32_t gi, boids_param_where where, const char *base) {
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++)
        if (boids_param_table[i].where == where && boids_param_table[i].key &&
            boids_param_table[i].kind != BOIDS_PK_BEHAVIORS)
            write_param(f, sc, gi, i, base);
}

bool boids_scenario_write(const boids_scenario *sc, FILE *f) {
    if (!sc || !f)
        return false;
    const boids_params *p = &sc->params;
    const boids_world_params *w = &p->world;
    char v[200];
    static const char *const flows[] = {"noise", "swirl", "uniform", "image"};
    static const char *const targets[] = {"fixed", "mouse", "circle", "line"};
    fprintf(f, "# The effective scenario (boids-run --dump-scenario): every value written out.\n");
    fputs("[scenario]\n", f);
    put_text(f, "title", sc->title[0] ? sc->title : "(untitled)");
    put_text(f, "example", sc->example[0] ? sc->example : "(none)");
    fputs("\n", f);
    fprintf(f, "[world]\ndim = %u\ncount = %u\n", w->dim, w->count);
    fprintf(f, w->dim == 2 ? "size = %.9gx%.9g\n" : "size = %.9gx%.9gx%.9g\n", (double)w->size[0], (double)w->size[1],
            (double)w->size[2]);
    vec_text(w->min, w->dim, v, sizeof v);
    fprintf(f, "origin = %s\nseed = %llu\n", v,
            (unsigned long long)w->seed_lo | ((unsigned long long)w->seed_hi << 32));
    write_params(f, sc, BOIDS_MAX_GROUPS, BOIDS_PW_WORLD, (const char *)w);
    fprintf(f, "distribution = %s\n", sc->distribution == BOIDS_DIST_CLUSTERED ? "clustered" : "uniform");
    if (sc->density > 0.0f)
        fprintf(f, "density = %.9g\n", (double)sc->density);
    for (uint32_t gi = 0; gi < w->group_count; gi++) {
        const boids_group_params *g = &p->group[gi];
        // (Every behaviour with ", " is longer than the reader's 198-character lines.)
        char beh[300];
        boids_behaviors_text(g->behaviors, ", ", beh, sizeof beh);
        if (strlen(beh) > 180)
            boids_behaviors_text(g->behaviors, ",", beh, sizeof beh);
        fprintf(f, "\n[group.%s]\n", sc->group_name[gi][0] ? sc->group_name[gi] : "default");
        if (p->group_share[gi] > 0.0f)
            fprintf(f, "share = %.9g\n", (double)p->group_share[gi]);
        fprintf(f, "behaviors = %s\n", beh);
        for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++)
            fprintf(f, "weight.%s = %.9g\n", boids_behavior_name(b), (double)boids_weight(g, b));
        for (uint32_t k = 0; k < sc->vary_count; k++)
            if (sc->vary[k].group == gi)
                fprintf(f, "vary.%s = %.9g, %.9g, %.9g\n", boids_behavior_name(sc->vary[k].behavior),
                        (double)sc->vary[k].lo, (double)sc->vary[k].hi, (double)sc->vary[k].period);
        write_params(f, sc, gi, BOIDS_PW_GROUP, (const char *)g);
        if (p->body[gi].style != BOIDS_BODY_NONE)
            fprintf(f, "body = %s\njoints = %u\nbody_length = %.9g\n", boids_body_style_name(p->body[gi].style),
                    p->body[gi].joints, (double)sc->body_length[gi]);
        if (sc->glyph[gi] != BOIDS_GLYPH_DEFAULT && sc->glyph[gi] < BOIDS_GLYPH_COUNT)
            fprintf(f, "glyph = %s\n", boids_parse_glyph_names[sc->glyph[gi]]);
        if (sc->glyph_size[gi] > 0.0f)
            fprintf(f, "glyph_size = %.9g\n", (double)sc->glyph_size[gi]);
        if (sc->color_set[gi])
            fprintf(f, "color = #%02x%02x%02x\n", (unsigned)lroundf(sc->color[gi][0] * 255.0f),
                    (unsigned)lroundf(sc->color[gi][1] * 255.0f), (unsigned)lroundf(sc->color[gi][2] * 255.0f));
    }
    static const char *const rels[] = {"flock", "ignore", "flee", "pursue"};
    bool any = false;
    for (uint32_t a = 0; a < w->group_count; a++)
        for (uint32_t b = 0; b < w->group_count; b++) {
            uint32_t r = (p->group[a].relations >> (BOIDS_REL_BITS * b)) & BOIDS_REL_MASK;
            if (r == BOIDS_REL_FLOCK)
                continue;
            if (!any)
                fprintf(f, "\n[relation]\n");
            any = true;
            fprintf(f, "%s.%s = %s\n", sc->group_name[a], sc->group_name[b], rels[r]);
        }
    for (uint32_t k = 0; k < p->scene.wall_count && k < BOIDS_MAX_WALLS; k++) {
        const float *a = p->scene.wall[2 * k], *b = p->scene.wall[2 * k + 1];
        bool seg = a[3] == BOIDS_WALL_SEGMENT;
        char v2[200];
        vec_text(a, w->dim, v, sizeof v);
        vec_text(b, w->dim, v2, sizeof v2);
        fprintf(f, "\n[wall]\n%s = %s\n%s = %s\n", seg ? "from" : "point", v, seg ? "to" : "normal", v2);
    }
    for (uint32_t k = 0; k < p->scene.obstacle_count; k++) {
        vec_text(p->scene.obstacle[k], w->dim, v, sizeof v);
        fprintf(f, "\n[obstacle]\ncenter = %s\nradius = %.9g\n", v, (double)p->scene.obstacle[k][3]);
    }
    if (p->scene.path_count >= 2) {
        fprintf(f, "\n[path]\n");
        for (uint32_t k = 0; k < p->scene.path_count; k++) {
            vec_text(p->scene.path[k], w->dim, v, sizeof v);
            fprintf(f, "point = %s\n", v);
        }
        uint32_t pf = p->scene.path_flags;
        fprintf(f, "radius = %.9g\nclosed = %s\noutside = %s\nline = %s\n", (double)p->scene.path_radius,
                (pf & BOIDS_PATH_CLOSED) ? "true" : "false",
                boids_parse_path_outside_names[(pf & BOIDS_PATH_OUTSIDE_END) ? 1 : 0],
                boids_parse_path_line_names[(pf & BOIDS_PATH_LINE_INFINITE) ? 1 : 0]);
    }
    vec_text(p->flow.direction, w->dim, v, sizeof v);
    fprintf(f, "\n[flowfield]\nkind = %s\n", p->flow.kind <= BOIDS_FLOW_IMAGE ? flows[p->flow.kind] : "noise");
    if (p->flow.kind == BOIDS_FLOW_IMAGE)
        put_text(f, "image", p->flow.image);
    fprintf(f, "resolution = %.9g\nnoise_scale = %.9g\nseed = %u\ndirection = %s\n", (double)p->flow.resolution,
            (double)p->flow.noise_scale, p->flow.noise_seed, v);
    // A line target's position is where it starts (the schedule moves it).
    vec_text(sc->target_mode == BOIDS_TARGET_LINE ? sc->target_start : w->target_pos, w->dim, v, sizeof v);
    fprintf(f, "\n[target]\nmode = %s\nposition = %s\n", targets[sc->target_mode], v);
    vec_text(sc->target_center, w->dim, v, sizeof v);
    fprintf(f, "center = %s\nradius = %.9g\nperiod = %.9g\n", v, (double)sc->target_radius, (double)sc->target_period);
    vec_text(sc->target_velocity, w->dim, v, sizeof v);
    fprintf(f, "velocity = %s\n", v);
    return fflush(f) == 0 && !ferror(f);
}
