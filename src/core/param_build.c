// src/core/param_build.c: a simulation's parameters from a scenario (or the
// defaults) and values given by name: the one path from options to
// parameters of boids-run, the viewer, boids-bench, boids-validate, the
// ensembles and the Python package (boids/registry.h).
#include <stdio.h>

#include "boids/registry.h"
#include "boids/scenario.h"

// See boids/registry.h.
boids_result boids_params_from_values(const boids_param_start *s, const boids_param_values *v, bool flag_style,
                                      boids_params *p, char *err, size_t err_size) {
    const boids_scenario *sc = s->scenario;
    uint32_t dim = s->dim ? s->dim : sc ? sc->params.world.dim : 2;
    uint32_t count = s->count ? s->count : sc ? sc->params.world.count : 1000;
    bool world = v->set[BOIDS_PARAM_WORLD], origin = v->set[BOIDS_PARAM_ORIGIN];
    bool auto_world = !world;
    if (sc) {
        // The file's world unless a value says otherwise; a changed dimension
        // or count without a file size is sized anew.
        *p = sc->params;
        p->flow.vec = NULL;
        auto_world = !world && (!sc->size_set || dim != sc->params.world.dim);
        if (dim != sc->params.world.dim)
            for (int i = 0; i < 3; i++)
                p->world.min[i] = 0.0f;
        p->world.dim = dim;
        p->world.count = count;
    } else {
        boids_params_default(p, count, dim);
    }
    boids_result r = boids_param_apply(v, p, UINT32_MAX, flag_style, err, err_size);
    if (r != BOIDS_OK)
        return r;
    if (s->seed_set) {
        p->world.seed_lo = (uint32_t)(s->seed & 0xffffffffu);
        p->world.seed_hi = (uint32_t)(s->seed >> 32);
    }
    if (world) {
        const boids_param_value *e = &v->v[BOIDS_PARAM_WORLD];
        if (e->n != dim) {
            snprintf(err, err_size, "%sworld: %u extents for a %uD simulation; expected %s", flag_style ? "--" : "",
                     e->n, dim, dim == 3 ? "WxHxD" : "WxH");
            return BOIDS_ERR_WORLD;
        }
        for (uint32_t i = 0; i < 3; i++)
            p->world.size[i] = i < dim ? e->f[i] : 0.0f;
    } else if (auto_world && sc) {
        boids_scenario_size_world(sc, p);
    } else if (auto_world) {
        boids_params_auto_world(p, 20.0);
    }
    if (world || origin)
        for (uint32_t i = 0; i < 3; i++)
            p->world.min[i] = origin && i < dim ? v->v[BOIDS_PARAM_ORIGIN].f[i] : 0.0f;
    // A target the file did not place follows the world's centre.
    if (sc && (world || origin || auto_world) && !sc->target_position_set)
        for (uint32_t i = 0; i < 3; i++)
            p->world.target_pos[i] = i < dim ? p->world.min[i] + 0.5f * p->world.size[i] : 0.0f;
    return BOIDS_OK;
}

// See boids/registry.h.
void boids_params_kept_scenario(const boids_scenario *sc, const boids_param_values *v, const boids_params *p,
                                boids_scenario *out) {
    if (sc)
        *out = *sc;
    else
        boids_scenario_default(out);
    out->params = *p;
    out->params.flow.vec = NULL;
    bool fov = v->set[BOIDS_PARAM_FOV], bodies = v->set[BOIDS_PARAM_BODIES];
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        if (fov)
            out->fov_deg[g] = v->v[BOIDS_PARAM_FOV].f[0];
        else if (!sc)
            out->fov_deg[g] = 0.0f; // from the cosine
        if (bodies)
            out->body_length[g] =
                v->set[BOIDS_PARAM_BODY_LENGTH] ? v->v[BOIDS_PARAM_BODY_LENGTH].f[0] : 1.2f * p->group[g].separation;
    }
    // A circle the file did not place follows the (possibly resized) world;
    // so does the start of a line target.
    const boids_world_params *w = &p->world;
    for (int a = 0; a < 3; a++) {
        float centre = a < (int)w->dim ? w->min[a] + 0.5f * w->size[a] : 0.0f;
        if (!out->target_center_set)
            out->target_center[a] = centre;
        if (!out->target_position_set)
            out->target_start[a] = centre;
    }
    if (!out->target_radius_set)
        out->target_radius = boids_scenario_default_target_radius(w);
}
