/* src/app/cli_params.c: options to simulation parameters (see cli.h): the
 * scenario's or the default params with every flag applied, finalized, and
 * the library's errors turned into the one-line format, naming the flag. */
#include "cli_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/parse.h"


// Was the parameter's flag given?
#define GIVEN(o, id) ((o)->values.set[BOIDS_PARAM_##id])

// Does the interaction radius of base fit its world by the library's rule
// (boids_params_max_radius) once the radius parameter `which` of every group
// is `value` (-1: radii unchanged) and the extents `size` (NULL:
// unchanged, else each within BOIDS_MAX_EXTENT)? Every other check of
// boids_params_finalize passed already.
static bool fits(const boids_params *base, int which, float value, const float *size) {
    boids_params q = *base;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS && which >= 0; g++)
        memcpy((char *)&q.group[g] + boids_param_table[which].field, &value, sizeof value);
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
static bool largest_fit(const boids_params *base, int which, float value, char *buf, size_t size) {
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
        if (fits(base, -1, 0.0f, trial))
            break;
        if (hi > 1e12)
            return false;
    }
    for (int i = 0; i < 80 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        for (int a = 0; a < 3; a++)
            trial[a] = (float)(s[a] * mid);
        if (fits(base, -1, 0.0f, trial))
            hi = mid;
        else
            lo = mid;
    }
    for (int a = 0; a < 3; a++)
        trial[a] = (float)ceil(s[a] * hi);
    if (!fits(base, -1, 0.0f, trial))
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
    int largest = BOIDS_PARAM_VIEW_RADIUS;
    float rmax = g->view_radius;
    float ar = boids_alignment_radius(g), cr = boids_cohesion_radius(g);
    if (g->radius >= g->separation && g->radius >= g->view_radius)
        largest = BOIDS_PARAM_RADIUS, rmax = g->radius;
    else if (g->separation >= g->view_radius)
        largest = BOIDS_PARAM_SEPARATION, rmax = g->separation;
    // A per-rule radius of its own, larger than the others.
    if ((g->behaviors & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) && g->alignment_radius > 0.0f && ar > rmax)
        largest = BOIDS_PARAM_ALIGNMENT_RADIUS, rmax = ar;
    if ((g->behaviors & BOIDS_BIT(BOIDS_BI_COHESION)) && g->cohesion_radius > 0.0f && cr > rmax)
        largest = BOIDS_PARAM_COHESION_RADIUS, rmax = cr;
    const char *name = boids_param_table[largest].flag;
    char world[96], min_world[96] = "", bound[32] = "", value[32], expected[300], problem[300];
    extents_text(base->world.dim, base->world.size, world, sizeof world);
    bool have_world = smallest_world(base, min_world, sizeof min_world);
    bool have_bound = largest_fit(base, largest, rmax, bound, sizeof bound);
    snprintf(value, sizeof value, "%g", (double)rmax);
    char for_bound[96] = "", for_world[160] = "";
    if (have_bound)
        snprintf(for_bound, sizeof for_bound, "a %s <= %s for this world", name, bound);
    if (have_world)
        snprintf(for_world, sizeof for_world, "%sa --world of at least %s", have_bound ? ", or " : "", min_world);
    snprintf(expected, sizeof expected, "%s%s", for_bound, for_world);
    if (!expected[0])
        snprintf(expected, sizeof expected, "a smaller radius or a larger --world");
    if (o->values.set[largest] || !GIVEN(o, WORLD)) {
        char flag[48];
        snprintf(flag, sizeof flag, "--%s", name);
        boids_cli_format(err, err_size, o->prog, flag, value, expected, "does not fit the %sworld %s (%s)",
                         GIVEN(o, WORLD) ? "" : "automatic ", world, mode);
        return;
    }
    snprintf(problem, sizeof problem,
             "the interaction radius %g (the largest of radius %g, separation %g, view radius %g, alignment %g, "
             "cohesion %g; %s)",
             (double)rmax, (double)g->radius, (double)g->separation, (double)g->view_radius, (double)ar, (double)cr,
             mode);
    if (GIVEN(o, WORLD))
        boids_cli_format(err, err_size, o->prog, "--world", o->world_arg, expected, "is too small for %s", problem);
    else
        boids_cli_format(err, err_size, o->prog, NULL, NULL, expected, "the automatic world %s is too small for %s",
                         world, problem);
}

// The registry parameter whose name begins finalize's description ("dt 0
// (allowed: ...)", "min_speed 5 of group 0 ..."), or -1.
static int param_named(const char *what) {
    char name[48];
    size_t n = strcspn(what, " ");
    if (n == 0 || n >= sizeof name)
        return -1;
    memcpy(name, what, n);
    name[n] = '\0';
    int id = boids_param_find(name);
    return id >= 0 && strcmp(boids_param_table[id].name, name) == 0 ? id : -1;
}

// Explains any other error of boids_params_finalize. Its description reads
// "WHAT (allowed: RANGE)": WHAT becomes the problem, RANGE the expectation,
// and the flag is guessed from the result code and WHAT.
static void explain_finalize(const boids_options *o, boids_result r, const char *what, char *err, size_t err_size) {
    char body[256], value[32] = "", flag_text[64];
    snprintf(body, sizeof body, "%s", what[0] ? what : boids_result_str(r));
    const char *flag = NULL, *shown = NULL;
    int id;
    if (r == BOIDS_ERR_WORLD && (GIVEN(o, WORLD) || GIVEN(o, ORIGIN))) {
        // The far origin's rule names the origin first (the world's extent only adds to it).
        bool origin = GIVEN(o, ORIGIN) && (!GIVEN(o, WORLD) || strncmp(body, "origin ", 7) == 0);
        flag = origin ? "--origin" : "--world";
        shown = origin ? o->origin_arg : o->world_arg;
    } else if (r == BOIDS_ERR_WORLD && strncmp(body, "origin ", 7) == 0 && (GIVEN(o, DT) || GIVEN(o, MAXSPEED))) {
        // The far corner's spacing above a step that the flags made short.
        id = GIVEN(o, DT) ? BOIDS_PARAM_DT : BOIDS_PARAM_MAXSPEED;
        snprintf(flag_text, sizeof flag_text, "--%s", boids_param_table[id].flag);
        snprintf(value, sizeof value, "%g", (double)o->values.v[id].f[0]);
        flag = flag_text;
        shown = value;
    } else if (r == BOIDS_ERR_COUNT) {
        flag = "--count";
    } else if ((id = param_named(body)) >= 0 && o->values.set[id]) {
        // "NAME VALUE of group ...": the registry parameter's flag, as given.
        snprintf(flag_text, sizeof flag_text, "--%s", boids_param_table[id].flag);
        flag = flag_text;
        if (boids_param_table[id].kind == BOIDS_PK_FLOAT) {
            snprintf(value, sizeof value, "%g", (double)o->values.v[id].f[0]);
            shown = value;
        }
    } else if (r == BOIDS_ERR_PATH) {
        flag = "--behaviors";
    } else if (r == BOIDS_ERR_BODY) {
        flag = GIVEN(o, BODY_LENGTH) ? "--body-length" : "--bodies";
        shown = GIVEN(o, BODY_LENGTH) ? NULL : boids_body_style_name(o->values.v[BOIDS_PARAM_BODIES].u[0]);
    }
    char described[300];
    snprintf(described, sizeof described, "%s: %s", shown ? "is rejected" : "rejected", body);
    boids_cli_format_described(err, err_size, o->prog, flag, shown, "values accepted by --help", described);
}

// Builds finalized parameters from the options (see cli.h).
boids_result boids_options_params(const boids_options *o, uint32_t count, boids_params *p, char *err, size_t err_size) {
    if (err_size)
        err[0] = '\0';
    // Every flag's seed when no file gives one, else the file's unless --seed.
    boids_param_start start = {o->scenario, count, o->dim, !o->scenario || (o->flags_given & BOIDS_CLI_SEED), o->seed};
    boids_result r = boids_params_from_values(&start, &o->values, true, p, err, err_size);
    if (r != BOIDS_OK) {
        char message[600]; // "--FLAG: 'VALUE' PROBLEM; expected ALLOWED"
        snprintf(message, sizeof message, "%s", err);
        snprintf(err, err_size, "%s: %s", o->prog, message);
        return r;
    }
    boids_params base = *p;
    char what[256] = "";
    r = boids_params_finalize(p, what, sizeof what);
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
    boids_params_kept_scenario(o->scenario, &o->values, p, out);
    if (!o->scenario)
        out->distribution = o->distribution;
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
    if (GIVEN(o, MARGIN) && p->world.boundary != BOIDS_BOUNDARY_MARGIN)
        fprintf(stderr, "%s: warning: --margin has no effect: the boundary is %s (it sets --boundary margin's band)\n",
                prog, boids_parse_boundary_names[p->world.boundary]);
    if (GIVEN(o, JOINTS) && !bodies)
        fprintf(stderr,
                "%s: warning: --joints has no effect: no group has a body (add --bodies chain, snake or fish)\n", prog);
    if (GIVEN(o, GRID_FINE) && o->index != BOIDS_INDEX_GRID)
        fprintf(stderr, "%s: warning: --grid-fine has no effect with --index %s (it refines the grid's cells)\n", prog,
                boids_parse_index_names[o->index < BOIDS_INDEX_KINDS ? o->index : 0]);
    if (GIVEN(o, MAXSPEED) && GIVEN(o, MAXSPEED_RANGE))
        fprintf(stderr, "%s: warning: --maxspeed has no effect: --maxspeed-range gives each agent its own\n", prog);
    if (GIVEN(o, MAXFORCE) && GIVEN(o, MAXFORCE_RANGE))
        fprintf(stderr, "%s: warning: --maxforce has no effect: --maxforce-range gives each agent its own\n", prog);
    return 0;
}
