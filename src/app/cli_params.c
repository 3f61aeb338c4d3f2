/* src/app/cli_params.c: options to simulation parameters (see cli.h): the
 * scenario's or the default params with every flag applied, finalized, and
 * the library's errors turned into the one-line format, naming the flag. */
#include "cli_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/parse.h"

enum radius_flag { FLAG_RADIUS, FLAG_SEPARATION, FLAG_ALIGNMENT, FLAG_COHESION, FLAG_NONE };

// Does the interaction radius of base fit its world by the library's rule
// (boids_params_max_radius) once the radius or separation of every group is
// `value` (FLAG_NONE: radii unchanged) and the extents `size` (NULL:
// unchanged, else each within BOIDS_MAX_EXTENT)? Every other check of
// boids_params_finalize passed already.
static bool fits(const boids_params *base, enum radius_flag which, float value, const float *size) {
    boids_params q = *base;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        if (which == FLAG_RADIUS)
            q.group[g].radius = value;
        else if (which == FLAG_SEPARATION)
            q.group[g].separation = value;
        else if (which == FLAG_ALIGNMENT)
            q.group[g].alignment_radius = value;
        else if (which == FLAG_COHESION)
            q.group[g].cohesion_radius = value;
    }
    for (uint32_t a = 0; size && a < q.world.dim; a++)
        if (!(size[a] <= BOIDS_MAX_EXTENT))
            return false;
    if (size)
        memcpy(q.world.size, size, 3 * sizeof(float));
    return boids_params_reach(&q) <= boids_params_max_radius(&q);
}

// "100x100" or "100x100x100" of extents.
static void extents_text(uint32_t dim, const float *size, char *buf, size_t buf_size) {
    if (dim == 3)
        snprintf(buf, buf_size, "%gx%gx%g", (double)size[0], (double)size[1], (double)size[2]);
    else
        snprintf(buf, buf_size, "%gx%g", (double)size[0], (double)size[1]);
}

// The largest value of the flag below `value` (which does not fit) that
// fits the world, printed as briefly as possible; false if none does down to
// a millionth of it (another radius binds).
static bool largest_fit(const boids_params *base, enum radius_flag which, float value, char *buf, size_t size) {
    if (!fits(base, which, value * 1e-6f, NULL))
        return false;
    float limit = boids_params_max_radius(base);
    float bound = limit < value ? limit : nextafterf(value, 0.0f);
    // The shortest printed bound that still fits (%g could round up past it).
    for (int digits = 3; digits <= 9; digits++) {
        snprintf(buf, size, "%.*g", digits, (double)bound);
        if (strtof(buf, NULL) <= limit)
            break;
    }
    return true;
}

// The smallest world of the same proportions that fits, with whole-number
// extents where possible; false if none does.
static bool smallest_world(const boids_params *base, char *buf, size_t size) {
    const float *s = base->world.size;
    float trial[3];
    double lo = 1.0, hi = 2.0;
    for (;; hi *= 2.0) {
        for (int a = 0; a < 3; a++)
            trial[a] = (float)(s[a] * hi);
        if (fits(base, FLAG_NONE, 0.0f, trial))
            break;
        if (hi > 1e12)
            return false;
    }
    for (int i = 0; i < 80 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        for (int a = 0; a < 3; a++)
            trial[a] = (float)(s[a] * mid);
        if (fits(base, FLAG_NONE, 0.0f, trial))
            hi = mid;
        else
            lo = mid;
    }
    for (int a = 0; a < 3; a++)
        trial[a] = (float)ceil(s[a] * hi);
    if (!fits(base, FLAG_NONE, 0.0f, trial))
        for (int a = 0; a < 3; a++)
            trial[a] = (float)(s[a] * hi);
    extents_text(base->world.dim, trial, buf, size);
    return true;
}

// Explains BOIDS_ERR_CELL: which radius does not fit which world, the largest
// radius and the smallest world that would (both by the library's rule,
// boids_params_max_radius).
static void explain_cell(const boids_options *o, const boids_params *base, char *err, size_t err_size) {
    const boids_group_params *g = &base->group[0];
    const char *mode =
        base->world.boundary <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[base->world.boundary] : "?";
    enum radius_flag largest = FLAG_NONE; // the view radius, which has no flag
    float rmax = g->view_radius;
    float ar = boids_alignment_radius(g), cr = boids_cohesion_radius(g);
    if (g->radius >= g->separation && g->radius >= g->view_radius)
        largest = FLAG_RADIUS, rmax = g->radius;
    else if (g->separation >= g->view_radius)
        largest = FLAG_SEPARATION, rmax = g->separation;
    // A per-rule radius of its own, larger than the others.
    if ((g->behaviors & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) && g->alignment_radius > 0.0f && ar > rmax)
        largest = FLAG_ALIGNMENT, rmax = ar;
    if ((g->behaviors & BOIDS_BIT(BOIDS_BI_COHESION)) && g->cohesion_radius > 0.0f && cr > rmax)
        largest = FLAG_COHESION, rmax = cr;
    static const char *const names[] = {"radius", "separation", "alignment-radius", "cohesion-radius", "view radius"};
    const char *name = names[largest];
    char world[96], min_world[96] = "", bound[32] = "", value[32], expected[300], problem[300];
    extents_text(base->world.dim, base->world.size, world, sizeof world);
    bool have_world = smallest_world(base, min_world, sizeof min_world);
    bool have_bound = largest != FLAG_NONE && largest_fit(base, largest, rmax, bound, sizeof bound);
    snprintf(value, sizeof value, "%g", (double)rmax);
    char for_bound[96] = "", for_world[160] = "";
    if (have_bound)
        snprintf(for_bound, sizeof for_bound, "a %s <= %s for this world", name, bound);
    if (have_world)
        snprintf(for_world, sizeof for_world, "%sa --world of at least %s", have_bound ? ", or " : "", min_world);
    snprintf(expected, sizeof expected, "%s%s", for_bound, for_world);
    if (!expected[0])
        snprintf(expected, sizeof expected, "a smaller radius or a larger --world");
    bool flag_given = largest == FLAG_RADIUS       ? o->radius_set
                      : largest == FLAG_SEPARATION ? o->separation_set
                      : largest == FLAG_ALIGNMENT  ? o->alignment_radius_set
                                                   : largest == FLAG_COHESION && o->cohesion_radius_set;
    if (largest != FLAG_NONE && (flag_given || !o->world_set)) {
        char flag[24];
        snprintf(flag, sizeof flag, "--%s", name);
        boids_cli_format(err, err_size, o->prog, flag, value, expected, "does not fit the %sworld %s (%s)",
                         o->world_set ? "" : "automatic ", world, mode);
        return;
    }
    snprintf(problem, sizeof problem,
             "the interaction radius %g (the largest of radius %g, separation %g, view radius %g, alignment %g, "
             "cohesion %g; %s)",
             (double)rmax, (double)g->radius, (double)g->separation, (double)g->view_radius, (double)ar, (double)cr,
             mode);
    if (o->world_set)
        boids_cli_format(err, err_size, o->prog, "--world", o->world_arg, expected, "is too small for %s", problem);
    else
        boids_cli_format(err, err_size, o->prog, NULL, NULL, expected, "the automatic world %s is too small for %s",
                         world, problem);
}

// Explains any other error of boids_params_finalize. Its description reads
// "WHAT (allowed: RANGE)": WHAT becomes the problem, RANGE the expectation,
// and the flag is guessed from the result code and WHAT.
static void explain_finalize(const boids_options *o, boids_result r, const char *what, char *err, size_t err_size) {
    char body[256], value[32] = "";
    snprintf(body, sizeof body, "%s", what[0] ? what : boids_result_str(r));
    const char *flag = NULL, *shown = NULL;
    if (r == BOIDS_ERR_WORLD && (o->world_set || o->origin_set)) {
        flag = o->world_set ? "--world" : "--origin";
        shown = o->world_set ? o->world_arg : o->origin_arg;
    } else if (r == BOIDS_ERR_COUNT) {
        flag = "--count";
    } else if (strncmp(body, "dt ", 3) == 0 && o->dt_set) {
        flag = "--dt";
        snprintf(value, sizeof value, "%g", (double)o->dt);
        shown = value;
    } else if (r == BOIDS_ERR_PATH) {
        flag = "--behaviors";
    } else if (r == BOIDS_ERR_BODY) {
        flag = o->body_length_set ? "--body-length" : "--bodies";
        shown = o->body_length_set ? NULL : boids_body_style_name(o->body_style);
    }
    char described[300];
    snprintf(described, sizeof described, "%s: %s", shown ? "is rejected" : "rejected", body);
    boids_cli_format_described(err, err_size, o->prog, flag, shown, "values accepted by --help", described);
}

// Builds finalized parameters from the options (see cli.h).
boids_result boids_options_params(const boids_options *o, uint32_t count, boids_params *p, char *err, size_t err_size) {
    if (err_size)
        err[0] = '\0';
    const boids_scenario *sc = o->scenario;
    bool auto_world = !o->world_set;
    if (sc) {
        // The file's world unless a flag says otherwise; a changed dimension
        // or count without a file size is sized anew.
        *p = sc->params;
        p->flow.vec = NULL;
        auto_world = !o->world_set && (!sc->size_set || o->dim != sc->params.world.dim);
        p->world.dim = o->dim;
        p->world.count = count;
        if (o->dim != sc->params.world.dim)
            for (int i = 0; i < 3; i++)
                p->world.min[i] = 0.0f;
    } else {
        boids_params_default(p, count, o->dim);
    }
    if (o->boundary_set)
        p->world.boundary = o->boundary;
    if (o->wall_corner_set)
        p->world.wall_corner = o->wall_corner;
    if (o->margin_set)
        p->world.margin = o->margin;
    if (o->grid_fine_set)
        p->world.grid_fine = boids_parse_grid_fine_word((int)o->grid_fine);
    if (o->dt_set)
        p->world.dt = o->dt;
    if (o->combine_set)
        p->world.combine = o->combine;
    if (o->path_outside_set)
        p->scene.path_flags = o->path_outside ? p->scene.path_flags | BOIDS_PATH_OUTSIDE_END
                                              : p->scene.path_flags & ~BOIDS_PATH_OUTSIDE_END;
    if (o->path_line_set)
        p->scene.path_flags = o->path_line ? p->scene.path_flags | BOIDS_PATH_LINE_INFINITE
                                           : p->scene.path_flags & ~BOIDS_PATH_LINE_INFINITE;
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS; gi++) {
        boids_group_params *g = &p->group[gi];
        if (o->radius_set)
            g->radius = o->radius;
        if (o->separation_set)
            g->separation = o->separation;
        if (o->fov_set)
            g->fov_cos = boids_fov_cos(o->fov_deg);
        if (o->alignment_radius_set)
            g->alignment_radius = o->alignment_radius;
        if (o->cohesion_radius_set)
            g->cohesion_radius = o->cohesion_radius;
        if (o->separation_fov_set) {
            g->separation_fov_cos = boids_fov_cos(o->separation_fov_deg);
            g->own_cones |= BOIDS_CONE_SEPARATION;
        }
        if (o->alignment_fov_set) {
            g->alignment_fov_cos = boids_fov_cos(o->alignment_fov_deg);
            g->own_cones |= BOIDS_CONE_ALIGNMENT;
        }
        if (o->cohesion_fov_set) {
            g->cohesion_fov_cos = boids_fov_cos(o->cohesion_fov_deg);
            g->own_cones |= BOIDS_CONE_COHESION;
        }
        if (o->neighbors_max_set)
            g->neighbors_max = o->neighbors_max;
        // One noise word per group: eta for vicsek, sigma for couzin.
        if (o->eta_set)
            g->noise = o->eta;
        if (o->sigma_set)
            g->noise = o->sigma;
        if (o->turn_set)
            g->turn = o->turn;
        if (o->maxspeed_set)
            g->maxspeed = o->maxspeed;
        if (o->maxforce_set)
            g->maxforce = o->maxforce;
        if (o->maxspeed_range_set) {
            g->maxspeed_lo = o->maxspeed_range[0];
            g->maxspeed_hi = o->maxspeed_range[1];
        }
        if (o->maxforce_range_set) {
            g->maxforce_lo = o->maxforce_range[0];
            g->maxforce_hi = o->maxforce_range[1];
        }
        if (o->behaviors_set)
            g->behaviors = o->behaviors;
        if (o->rules_set)
            g->rules = o->rules;
        if (o->leader_set)
            g->leader = o->leader;
        if (o->formation_set)
            g->formation = o->formation;
        if (o->interpose_set) {
            g->interpose_a = o->interpose[0];
            g->interpose_b = o->interpose[1];
        }
        for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
            if (o->weight_set[i])
                *boids_weight_ref(g, i) = o->weights[i];
    }
    // --eta is Vicsek's noise, --sigma Couzin's: one word of the group, so the
    // other model's flag would set it under the wrong name.
    for (uint32_t gi = 0; gi < p->world.group_count && gi < BOIDS_MAX_GROUPS; gi++) {
        uint32_t rules = p->group[gi].rules;
        bool eta_wrong = o->eta_set && rules == BOIDS_RULES_COUZIN;
        if (eta_wrong || (o->sigma_set && rules == BOIDS_RULES_VICSEK)) {
            char value[32];
            snprintf(value, sizeof value, "%g", eta_wrong ? o->eta : o->sigma);
            boids_cli_format_described(err, err_size, o->prog, eta_wrong ? "--eta" : "--sigma", value,
                                       eta_wrong ? "--sigma RADIANS for rules couzin"
                                                 : "--eta RADIANS for rules vicsek",
                                       eta_wrong ? "is Vicsek's noise, and a group follows rules couzin"
                                                 : "is Couzin's noise, and a group follows rules vicsek");
            return BOIDS_ERR_PARAM;
        }
    }
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS && o->body_style_set; gi++) {
        float length = o->body_length_set ? o->body_length : 1.2f * p->group[gi].separation;
        char what[160];
        if (boids_body_make(&p->body[gi], o->body_style, o->joints, length, what, sizeof what) != BOIDS_OK) {
            boids_cli_format_described(err, err_size, o->prog, "--body-length", NULL, "a body length > 0", what);
            return BOIDS_ERR_BODY;
        }
    }
    if (!sc || (o->flags_given & BOIDS_CLI_SEED)) {
        p->world.seed_lo = (uint32_t)(o->seed & 0xffffffffu);
        p->world.seed_hi = (uint32_t)(o->seed >> 32);
    }
    if (o->world_set) {
        for (int i = 0; i < 3; i++)
            p->world.size[i] = i < (int)o->dim ? (float)o->world[i] : 0.0f;
    } else if (auto_world && sc) {
        boids_scenario_size_world(sc, p);
    } else if (auto_world) {
        boids_params_auto_world(p, 20.0);
    }
    if (o->world_set || o->origin_set)
        for (int i = 0; i < 3; i++)
            p->world.min[i] = i < (int)o->dim ? (float)o->origin[i] : 0.0f;
    if (sc && (o->world_set || o->origin_set || auto_world)) {
        // A target the file did not place follows the world's centre.
        for (int i = 0; i < 3; i++) {
            float centre = i < (int)o->dim ? p->world.min[i] + 0.5f * p->world.size[i] : 0.0f;
            if (!sc->target_position_set)
                p->world.target_pos[i] = centre;
        }
    }

    boids_params base = *p;
    char what[256] = "";
    boids_result r = boids_params_finalize(p, what, sizeof what);
    if (r == BOIDS_OK)
        return r;
    if (r == BOIDS_ERR_CELL)
        explain_cell(o, &base, err, err_size);
    else
        explain_finalize(o, r, what, err, err_size);
    return r;
}

// See cli.h: the loaded scenario (or the defaults) with the effective params.
void boids_options_scenario(const boids_options *o, const boids_params *p, boids_scenario *out) {
    if (o->scenario)
        *out = *o->scenario;
    else
        boids_scenario_default(out);
    out->params = *p;
    out->params.flow.vec = NULL;
    if (!o->scenario)
        out->distribution = o->distribution;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        if (o->fov_set)
            out->fov_deg[g] = o->fov_deg;
        if (o->body_style_set)
            out->body_length[g] = o->body_length_set ? o->body_length : 1.2f * p->group[g].separation;
    }
    if (!o->scenario)
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            if (!o->fov_set)
                out->fov_deg[g] = 0.0f; // from the cosine
    // A circle the file did not place follows the (possibly resized) world.
    const boids_world_params *w = &p->world;
    for (int a = 0; a < 3; a++) {
        if (!out->target_center_set)
            out->target_center[a] = a < (int)w->dim ? w->min[a] + 0.5f * w->size[a] : 0.0f;
        // So does the start of a line target.
        if (!out->target_position_set)
            out->target_start[a] = a < (int)w->dim ? w->min[a] + 0.5f * w->size[a] : 0.0f;
    }
    if (!out->target_radius_set)
        out->target_radius = boids_scenario_default_target_radius(w);
}

// See cli.h.
int boids_cli_check_effects(const char *prog, const boids_options *o, const boids_params *p, bool shaders_used) {
    // Outputs that a run which runs nothing would never write: an error.
    if (o->dump_scenario) {
        const struct {
            const char *flag, *path;
        } out[] = {
            {"--save", o->save}, {"--export-csv", o->export_csv}, {"--record", o->record}, {"--profile", o->profile}};
        for (size_t k = 0; k < sizeof out / sizeof out[0]; k++)
            if (out[k].path) {
                boids_cli_error(prog, out[k].flag, out[k].path, "--dump-scenario alone (or the run without it)",
                                "would never be written: --dump-scenario prints the scenario and runs nothing");
                return 2;
            }
    }
    // Flags the run ignores: a warning each, the run goes on.
    bool bodies = false;
    for (uint32_t g = 0; g < p->world.group_count && g < BOIDS_MAX_GROUPS; g++)
        bodies = bodies || p->body[g].style != BOIDS_BODY_NONE;
    if (o->timeout_set && !o->decompose) // (boids-run's; the ensemble's --timeout is its own)
        fprintf(stderr, "%s: warning: --timeout has no effect without --decompose (it bounds the ranks' waits)\n",
                prog);
    if (o->shader_dir && !shaders_used)
        fprintf(stderr,
                "%s: warning: --shader-dir has no effect with --backend cpu (the C reference runs no shaders)\n", prog);
    if (o->margin_set && p->world.boundary != BOIDS_BOUNDARY_MARGIN)
        fprintf(stderr, "%s: warning: --margin has no effect: the boundary is %s (it sets --boundary margin's band)\n",
                prog, boids_parse_boundary_names[p->world.boundary]);
    if ((o->flags_given & BOIDS_CLI_JOINTS) && !bodies)
        fprintf(stderr,
                "%s: warning: --joints has no effect: no group has a body (add --bodies chain, snake or fish)\n", prog);
    if (o->grid_fine_set && o->index != BOIDS_INDEX_GRID)
        fprintf(stderr, "%s: warning: --grid-fine has no effect with --index %s (it refines the grid's cells)\n", prog,
                boids_parse_index_names[o->index < BOIDS_INDEX_KINDS ? o->index : 0]);
    if (o->maxspeed_set && o->maxspeed_range_set)
        fprintf(stderr, "%s: warning: --maxspeed has no effect: --maxspeed-range gives each agent its own\n", prog);
    if (o->maxforce_set && o->maxforce_range_set)
        fprintf(stderr, "%s: warning: --maxforce has no effect: --maxforce-range gives each agent its own\n", prog);
    return 0;
}
