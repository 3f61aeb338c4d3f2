/* src/engine/engine_options.c: engines made and changed by boids-run's flag
 * names and values as text (boids_engine_create_options, _set_options), so
 * a caller without boids_params (the Python package) sets the world, the
 * radius, the boundary or the behaviours before the grid is built. The
 * values go through the library's parser (boids/parse.h) and are applied in
 * the order boids-run applies its flags (src/app/cli_params.c), so the same
 * flags give the same parameters and the same state-hash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/engine.h"
#include "boids/parse.h"
#include "engine_private.h"

// What the options give, each with whether it was given.
typedef struct given {
    bool world, origin, boundary, margin, wall_corner, behaviors, radius, separation, fov, alignment_radius,
        cohesion_radius, separation_fov, alignment_fov, cohesion_fov, neighbors_max, eta, sigma, turn, grid_fine,
        maxspeed, maxforce, maxspeed_range, maxforce_range, rules, leader, formation, interpose, combine, dt, bodies,
        joints, body_length, path_outside, path_line, distribution, index, update, kernel;
    bool weight_set[BOIDS_BEHAVIOR_COUNT];
    float world_v[3], origin_v[3];
    uint32_t world_n, origin_n;
    uint32_t boundary_v, wall_corner_v, behaviors_v, neighbors_max_v, rules_v, formation_v, combine_v, grid_fine_v;
    uint32_t leader_v, interpose_v[2], body_style_v, joints_v, path_outside_v, path_line_v;
    uint32_t distribution_v, index_v, update_v, kernel_v;
    float margin_v, radius_v, separation_v, fov_v, alignment_radius_v, cohesion_radius_v, separation_fov_v,
        alignment_fov_v, cohesion_fov_v, eta_v, sigma_v, turn_v, maxspeed_v, maxforce_v, dt_v, body_length_v;
    float maxspeed_range_v[2], maxforce_range_v[2];
    float weights[BOIDS_BEHAVIOR_COUNT];
} given;

// The kinds of option values.
enum kind { K_FLOAT, K_POSITIVE, K_DEGREES, K_UINT, K_CHOICE, K_TRIPLE, K_RANGE, K_CUSTOM };

static const char *const body_names[] = {"none", "chain", "snake", "fish", NULL};

// One option: its flag name, where its value goes, whether set_options may
// change it after creation, and the words of its "expected" (a choice: its names).
typedef struct option {
    const char *name;
    enum kind kind;
    size_t given, value; // offsets in `given`
    const char *const *choices;
    uint64_t lo, hi;  // K_UINT
    bool create_only; // needs a new simulation (the grid, the world's shape, the backend's set-up)
    const char *expected;
} option;

#define AT(g, v) offsetof(given, g), offsetof(given, v)
static const option options[] = {
    {"world", K_TRIPLE, AT(world, world_v), NULL, 0, 0, true, "WxH (2D) or WxHxD (3D), every extent > 0"},
    {"origin", K_TRIPLE, AT(origin, origin_v), NULL, 0, 0, true, "X,Y (2D) or X,Y,Z (3D), finite numbers"},
    {"boundary", K_CHOICE, AT(boundary, boundary_v), boids_parse_boundary_names, 0, 0, false, NULL},
    {"margin", K_POSITIVE, AT(margin, margin_v), NULL, 0, 0, false, "a boundary margin > 0"},
    {"wall-corner", K_CHOICE, AT(wall_corner, wall_corner_v), boids_parse_wall_corner_names, 0, 0, false, NULL},
    {"behaviors", K_CUSTOM, AT(behaviors, behaviors_v), NULL, 0, 0, false,
     "a comma list of behaviour names, flocking, or all, none"},
    {"weights", K_CUSTOM, AT(weight_set, weights), NULL, 0, 0, false,
     "name=value,... with a finite number for each named behaviour"},
    {"radius", K_POSITIVE, AT(radius, radius_v), NULL, 0, 0, false, "a perception radius > 0"},
    {"separation", K_POSITIVE, AT(separation, separation_v), NULL, 0, 0, false, "a desired separation > 0"},
    {"fov", K_DEGREES, AT(fov, fov_v), NULL, 0, 0, false, "a field of view in degrees, 0 < fov <= 360"},
    {"alignment-radius", K_POSITIVE, AT(alignment_radius, alignment_radius_v), NULL, 0, 0, false,
     "an alignment radius > 0"},
    {"cohesion-radius", K_POSITIVE, AT(cohesion_radius, cohesion_radius_v), NULL, 0, 0, false, "a cohesion radius > 0"},
    {"separation-fov", K_DEGREES, AT(separation_fov, separation_fov_v), NULL, 0, 0, false,
     "separation's field of view in degrees, 0 < fov <= 360"},
    {"alignment-fov", K_DEGREES, AT(alignment_fov, alignment_fov_v), NULL, 0, 0, false,
     "alignment's field of view in degrees, 0 < fov <= 360"},
    {"cohesion-fov", K_DEGREES, AT(cohesion_fov, cohesion_fov_v), NULL, 0, 0, false,
     "cohesion's field of view in degrees, 0 < fov <= 360"},
    {"neighbors-max", K_UINT, AT(neighbors_max, neighbors_max_v), NULL, 0, BOIDS_MAX_NEIGHBORS_K, false,
     "the nearest K neighbours (0 = every neighbour)"},
    {"eta", K_FLOAT, AT(eta, eta_v), NULL, 0, 0, false, "Vicsek's noise width in radians, 0..2 pi"},
    {"sigma", K_FLOAT, AT(sigma, sigma_v), NULL, 0, 0, false, "Couzin's angular noise in radians, 0..pi"},
    {"turn", K_FLOAT, AT(turn, turn_v), NULL, 0, 0, false, "the turn per time unit in radians, 0..pi"},
    {"grid-fine", K_CHOICE, AT(grid_fine, grid_fine_v), boids_parse_grid_fine_names, 0, 0, true, NULL},
    {"maxspeed", K_POSITIVE, AT(maxspeed, maxspeed_v), NULL, 0, 0, false, "a maximum speed > 0"},
    {"maxforce", K_POSITIVE, AT(maxforce, maxforce_v), NULL, 0, 0, false, "a maximum steering force > 0"},
    {"maxspeed-range", K_RANGE, AT(maxspeed_range, maxspeed_range_v), NULL, 0, 0, false, "LO,HI with 0 < LO <= HI"},
    {"maxforce-range", K_RANGE, AT(maxforce_range, maxforce_range_v), NULL, 0, 0, false, "LO,HI with 0 < LO <= HI"},
    {"rules", K_CHOICE, AT(rules, rules_v), boids_parse_rules_names, 0, 0, false, NULL},
    {"leader", K_CUSTOM, AT(leader, leader_v), NULL, 0, 0, false, "an agent id below the count, or target"},
    {"formation", K_CHOICE, AT(formation, formation_v), boids_parse_formation_names, 0, 0, false, NULL},
    {"interpose", K_CUSTOM, AT(interpose, interpose_v), NULL, 0, 0, false,
     "A,B: each an agent id below the count, or target"},
    {"combine", K_CHOICE, AT(combine, combine_v), boids_parse_combine_names, 0, 0, false, NULL},
    {"dt", K_POSITIVE, AT(dt, dt_v), NULL, 0, 0, false, "a time step > 0"},
    {"bodies", K_CHOICE, AT(bodies, body_style_v), body_names, 0, 0, true, NULL},
    {"joints", K_UINT, AT(joints, joints_v), NULL, BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS, true, "joints per body"},
    {"body-length", K_POSITIVE, AT(body_length, body_length_v), NULL, 0, 0, true, "a body length > 0 (head to tail)"},
    {"path-outside", K_CHOICE, AT(path_outside, path_outside_v), boids_parse_path_outside_names, 0, 0, false, NULL},
    {"path-line", K_CHOICE, AT(path_line, path_line_v), boids_parse_path_line_names, 0, 0, false, NULL},
    {"distribution", K_CHOICE, AT(distribution, distribution_v), boids_parse_distribution_names, 0, 0, true, NULL},
    {"index", K_CHOICE, AT(index, index_v), boids_parse_index_names, 0, 0, true, NULL},
    {"update", K_CHOICE, AT(update, update_v), boids_parse_update_names, 0, 0, true, NULL},
    {"kernel", K_CHOICE, AT(kernel, kernel_v), boids_kernel_names, 0, 0, true, NULL},
};
#define OPTION_COUNT (sizeof options / sizeof options[0])

// The option of a flag name, or NULL.
static const option *find_option(const char *name) {
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (strcmp(options[i].name, name) == 0)
            return &options[i];
    return NULL;
}

// Writes "NAME: 'VALUE' PROBLEM; expected EXPECTED" into err and returns r.
static boids_result refuse(char *err, size_t err_size, boids_result r, const char *name, const char *value,
                           const char *problem, const char *expected) {
    char shown[BOIDS_PARSE_SHOWN_MAX + 8];
    engine_say(err, err_size, "%s: '%s' %s; expected %s", name, boids_parse_shown(value, shown, sizeof shown), problem,
               expected);
    return r;
}

// Parses "A,B" / "AxB[xC]" numbers into v (n of them); false with the
// problem ("has a number '-3' that is negative") in `problem`.
static bool parse_numbers(const char *value, const char *separators, unsigned flags, uint32_t lo, uint32_t hi, float *v,
                          uint32_t *n, char *problem, size_t problem_size) {
    char store[256], shown[BOIDS_PARSE_SHOWN_MAX + 8];
    char *pieces[3];
    if (strlen(value) >= sizeof store) {
        snprintf(problem, problem_size, "is too long");
        return false;
    }
    uint32_t k = boids_parse_split(value, separators, store, pieces, 3);
    if (k < lo || k > hi) {
        snprintf(problem, problem_size, "has %u numbers", k);
        return false;
    }
    for (uint32_t i = 0; i < k; i++) {
        const char *p = boids_parse_float(pieces[i], flags, &v[i]);
        if (p) {
            snprintf(problem, problem_size, "has a number '%s' that is %s",
                     boids_parse_shown(pieces[i], shown, sizeof shown), p);
            return false;
        }
    }
    *n = k;
    return true;
}

// Parses one option's value into g; BOIDS_ERR_ARGUMENT with err on a bad one.
static boids_result parse_option(const option *o, const char *value, given *g, char *err, size_t err_size) {
    char *base = (char *)g, problem[160];
    const char *p = NULL;
    float f = 0.0f;
    uint64_t u = 0;
    uint32_t n = 0;
    int k;
    switch (o->kind) {
    case K_FLOAT:
    case K_POSITIVE:
    case K_DEGREES:
        p = boids_parse_float(value,
                              o->kind == K_FLOAT      ? 0u
                              : o->kind == K_POSITIVE ? BOIDS_PARSE_POSITIVE
                                                      : BOIDS_PARSE_POSITIVE | BOIDS_PARSE_DEGREES,
                              &f);
        if (!p)
            memcpy(base + o->value, &f, sizeof f);
        break;
    case K_UINT:
        p = boids_parse_uint(value, 0, o->lo, o->hi, &u);
        if (p) {
            snprintf(problem, sizeof problem, "is %s", p);
            char expected[160];
            snprintf(expected, sizeof expected, "an integer %llu..%llu (%s)", (unsigned long long)o->lo,
                     (unsigned long long)o->hi, o->expected);
            return refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value, problem, expected);
        }
        n = (uint32_t)u;
        memcpy(base + o->value, &n, sizeof n);
        break;
    case K_CHOICE:
        if ((k = boids_parse_pick(value, 0, o->choices)) < 0) {
            // The names the parser picks from, listed from its own table ("a, b or c").
            char names[160] = "";
            size_t len = 0;
            for (size_t i = 0; o->choices[i] && len < sizeof names; i++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                        i == 0              ? ""
                                        : o->choices[i + 1] ? ", "
                                                            : " or ",
                                        o->choices[i]);
            return refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value, "is not one of the choices", names);
        }
        n = (uint32_t)k;
        memcpy(base + o->value, &n, sizeof n);
        break;
    case K_TRIPLE: {
        float *v = (float *)(base + o->value);
        bool world = o->value == offsetof(given, world_v);
        if (!parse_numbers(value, world ? "xX" : ",", world ? BOIDS_PARSE_POSITIVE : 0u, 2, 3, v, &n, problem,
                           sizeof problem))
            return refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value, problem, o->expected);
        if (world)
            g->world_n = n;
        else
            g->origin_n = n;
        break;
    }
    case K_RANGE: {
        float *v = (float *)(base + o->value);
        bool ok = parse_numbers(value, ",", BOIDS_PARSE_POSITIVE, 2, 2, v, &n, problem, sizeof problem);
        if (ok && !(v[0] <= v[1]))
            ok = false, snprintf(problem, sizeof problem, "has a LO above its HI");
        if (!ok)
            return refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value, problem, o->expected);
        break;
    }
    case K_CUSTOM:
        if (o->value == offsetof(given, behaviors_v)) {
            if (!boids_parse_behaviors(value, 0, &g->behaviors_v, problem, sizeof problem))
                return refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value, problem, o->expected);
        } else if (o->value == offsetof(given, weights)) {
            size_t len = strlen(value);
            char *store = malloc(len + 1);
            char **pieces = malloc((len + 2) * sizeof *pieces);
            boids_result r = BOIDS_OK;
            if (!store || !pieces) {
                r = BOIDS_ERR_NOMEM;
            } else {
                uint32_t count = boids_parse_split(value, ",", store, pieces, (uint32_t)(len + 1));
                for (uint32_t i = 0; i < count && r == BOIDS_OK; i++) {
                    char *eq = strchr(pieces[i], '=');
                    int b = -1;
                    if (eq) {
                        *eq = '\0';
                        b = boids_behavior_index(pieces[i]);
                    }
                    if (!eq || b < 0 || (uint32_t)b >= BOIDS_BEHAVIOR_COUNT || boids_parse_float(eq + 1, 0, &f))
                        r = refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value,
                                   !eq     ? "has a name without '=value'"
                                   : b < 0 ? "names an unknown behaviour"
                                           : "has a weight that is not a finite number",
                                   o->expected);
                    else
                        g->weights[b] = f, g->weight_set[b] = true;
                }
            }
            free(store);
            free(pieces);
            return r;
        } else {
            bool two = o->value == offsetof(given, interpose_v);
            uint32_t ids[2] = {0, 0};
            if ((p = boids_parse_agents(value, two ? 2u : 1u, ids))) {
                snprintf(problem, sizeof problem, "is %s", p);
                return refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value, problem, o->expected);
            }
            memcpy(base + o->value, ids, two ? sizeof ids : sizeof ids[0]);
        }
        break;
    }
    if (p) {
        snprintf(problem, sizeof problem, "is %s", p);
        return refuse(err, err_size, BOIDS_ERR_ARGUMENT, o->name, value, problem, o->expected);
    }
    bool yes = true;
    if (o->given != offsetof(given, weight_set))
        memcpy(base + o->given, &yes, sizeof yes);
    return BOIDS_OK;
}

// Parses every option into g; `created` refuses the create-only ones.
static boids_result parse_all(const boids_engine_option *opt, uint32_t n, bool created, given *g, char *err,
                              size_t err_size) {
    memset(g, 0, sizeof *g);
    g->joints_v = 12; // boids-run's --joints default
    for (uint32_t i = 0; i < n; i++) {
        const char *name = opt[i].name ? opt[i].name : "(null)";
        const char *value = opt[i].value ? opt[i].value : "";
        const option *o = find_option(name);
        if (!o) {
            const char *names[OPTION_COUNT + 1];
            for (size_t j = 0; j < OPTION_COUNT; j++)
                names[j] = options[j].name;
            names[OPTION_COUNT] = NULL;
            const char *near = boids_parse_nearest(name, names, 2, true);
            char shown[BOIDS_PARSE_SHOWN_MAX + 8];
            engine_say(err, err_size,
                       "option: '%s' is not an option%s%s%s; expected one of boids-run's flags "
                       "(world, boundary, radius, behaviors, ...)",
                       boids_parse_shown(name, shown, sizeof shown), near ? " (did you mean " : "", near ? near : "",
                       near ? "?)" : "");
            return BOIDS_ERR_ARGUMENT;
        }
        if (created && o->create_only) {
            engine_say(err, err_size,
                       "%s: cannot change once the simulation is made (the grid, the world and the agents' set-up "
                       "are fixed then); expected it given when the simulation is made",
                       o->name);
            return BOIDS_ERR_ARGUMENT;
        }
        boids_result r = parse_option(o, value, g, err, err_size);
        if (r != BOIDS_OK)
            return r;
    }
    return BOIDS_OK;
}

// The options' group values into group g of p (boids-run's order).
static void apply_group(const given *o, boids_group_params *g) {
    if (o->radius)
        g->radius = o->radius_v;
    if (o->separation)
        g->separation = o->separation_v;
    if (o->fov)
        g->fov_cos = boids_fov_cos(o->fov_v);
    if (o->alignment_radius)
        g->alignment_radius = o->alignment_radius_v;
    if (o->cohesion_radius)
        g->cohesion_radius = o->cohesion_radius_v;
    if (o->separation_fov) {
        g->separation_fov_cos = boids_fov_cos(o->separation_fov_v);
        g->own_cones |= BOIDS_CONE_SEPARATION;
    }
    if (o->alignment_fov) {
        g->alignment_fov_cos = boids_fov_cos(o->alignment_fov_v);
        g->own_cones |= BOIDS_CONE_ALIGNMENT;
    }
    if (o->cohesion_fov) {
        g->cohesion_fov_cos = boids_fov_cos(o->cohesion_fov_v);
        g->own_cones |= BOIDS_CONE_COHESION;
    }
    if (o->neighbors_max)
        g->neighbors_max = o->neighbors_max_v;
    if (o->eta)
        g->noise = o->eta_v;
    if (o->sigma)
        g->noise = o->sigma_v;
    if (o->turn)
        g->turn = o->turn_v;
    if (o->maxspeed)
        g->maxspeed = o->maxspeed_v;
    if (o->maxforce)
        g->maxforce = o->maxforce_v;
    if (o->maxspeed_range) {
        g->maxspeed_lo = o->maxspeed_range_v[0];
        g->maxspeed_hi = o->maxspeed_range_v[1];
    }
    if (o->maxforce_range) {
        g->maxforce_lo = o->maxforce_range_v[0];
        g->maxforce_hi = o->maxforce_range_v[1];
    }
    if (o->behaviors)
        g->behaviors = o->behaviors_v;
    if (o->rules)
        g->rules = o->rules_v;
    if (o->leader)
        g->leader = o->leader_v;
    if (o->formation)
        g->formation = o->formation_v;
    if (o->interpose) {
        g->interpose_a = o->interpose_v[0];
        g->interpose_b = o->interpose_v[1];
    }
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
        if (o->weight_set[i])
            *boids_weight_ref(g, i) = o->weights[i];
}

// The options' world values and group values (every group, or `group`) into
// p; an eta or sigma of the other model's group is refused as boids-run does.
static boids_result apply(const given *o, boids_params *p, uint32_t group, char *err, size_t err_size) {
    boids_world_params *w = &p->world;
    if (o->boundary)
        w->boundary = o->boundary_v;
    if (o->wall_corner)
        w->wall_corner = o->wall_corner_v;
    if (o->margin)
        w->margin = o->margin_v;
    if (o->grid_fine)
        w->grid_fine = boids_parse_grid_fine_word((int)o->grid_fine_v);
    if (o->dt)
        w->dt = o->dt_v;
    if (o->combine)
        w->combine = o->combine_v;
    if (o->path_outside)
        p->scene.path_flags = o->path_outside_v ? p->scene.path_flags | BOIDS_PATH_OUTSIDE_END
                                                : p->scene.path_flags & ~BOIDS_PATH_OUTSIDE_END;
    if (o->path_line)
        p->scene.path_flags = o->path_line_v ? p->scene.path_flags | BOIDS_PATH_LINE_INFINITE
                                             : p->scene.path_flags & ~BOIDS_PATH_LINE_INFINITE;
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS; gi++)
        if (group == UINT32_MAX || gi == group)
            apply_group(o, &p->group[gi]);
    for (uint32_t gi = 0; gi < w->group_count && gi < BOIDS_MAX_GROUPS; gi++) {
        if (group != UINT32_MAX && gi != group)
            continue;
        uint32_t rules = p->group[gi].rules;
        bool eta_wrong = o->eta && rules == BOIDS_RULES_COUZIN;
        if (eta_wrong || (o->sigma && rules == BOIDS_RULES_VICSEK)) {
            engine_say(err, err_size, "%s: %g is %s noise, and group %u follows rules %s; expected %s",
                       eta_wrong ? "eta" : "sigma", (double)(eta_wrong ? o->eta_v : o->sigma_v),
                       eta_wrong ? "Vicsek's" : "Couzin's", gi, eta_wrong ? "couzin" : "vicsek",
                       eta_wrong ? "sigma for rules couzin" : "eta for rules vicsek");
            return BOIDS_ERR_PARAM;
        }
    }
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS && o->bodies; gi++) {
        float length = o->body_length ? o->body_length_v : 1.2f * p->group[gi].separation;
        char what[160];
        if (boids_body_make(&p->body[gi], o->body_style_v, o->joints_v, length, what, sizeof what) != BOIDS_OK) {
            engine_say(err, err_size, "body-length: %g is refused: %s; expected a body length > 0", (double)length,
                       what);
            return BOIDS_ERR_BODY;
        }
    }
    return BOIDS_OK;
}

// See boids/engine.h.
boids_result boids_engine_create_options(boids_engine **out, const char *scenario, const boids_engine_desc *desc,
                                         const boids_engine_option *opt, uint32_t n, char *err, size_t err_size) {
    *out = NULL;
    static const boids_engine_desc zero = {0};
    boids_engine_desc d = desc ? *desc : zero;
    if (n && !opt) {
        engine_say(err, err_size, "options: NULL with %u options; expected an array of %u", n, n);
        return BOIDS_ERR_ARGUMENT;
    }
    given o;
    boids_result r = parse_all(opt, n, false, &o, err, err_size);
    if (r != BOIDS_OK)
        return r;
    boids_scenario *sc = malloc(sizeof *sc);
    boids_params *p = malloc(sizeof *p);
    if (!sc || !p) {
        free(sc);
        free(p);
        return BOIDS_ERR_NOMEM;
    }
    bool from_file = scenario != NULL;
    char path[1024];
    if (from_file) {
        if (!boids_scenario_find(scenario, path, sizeof path)) {
            engine_say(err, err_size,
                       "scenario: '%s' is not a file and no scenarios directory was found; expected a scenario file "
                       "(.ini) or a shipped scenario's name (set BOIDS_SCENARIOS to their directory)",
                       scenario);
            r = BOIDS_ERR_IO;
        } else {
            r = boids_scenario_load(path, sc, err, err_size);
        }
        if (r != BOIDS_OK)
            goto done;
        *p = sc->params;
        d.distribution = (boids_distribution)sc->distribution;
    } else {
        boids_scenario_default(sc);
        boids_params_default(p, d.count ? d.count : 1000, d.dim ? d.dim : 2);
    }
    p->flow.vec = NULL;
    if ((r = apply(&o, p, UINT32_MAX, err, err_size)) != BOIDS_OK)
        goto done;
    if (d.seed) {
        p->world.seed_lo = (uint32_t)d.seed;
        p->world.seed_hi = (uint32_t)(d.seed >> 32);
    }
    uint32_t dim = p->world.dim;
    if (o.world) {
        if (o.world_n != dim) {
            engine_say(err, err_size, "world: %u extents for a %uD simulation; expected %s", o.world_n, dim,
                       dim == 3 ? "WxHxD" : "WxH");
            r = BOIDS_ERR_WORLD;
            goto done;
        }
        for (uint32_t i = 0; i < 3; i++)
            p->world.size[i] = i < dim ? o.world_v[i] : 0.0f;
    } else if (from_file && !sc->size_set) {
        boids_scenario_size_world(sc, p);
    } else if (!from_file) {
        boids_params_auto_world(p, 20.0);
    }
    if (o.world || o.origin)
        for (uint32_t i = 0; i < 3; i++)
            p->world.min[i] = o.origin && i < dim ? o.origin_v[i] : 0.0f;
    if (from_file && (o.world || o.origin || !sc->size_set))
        for (int i = 0; i < 3; i++)
            if (!sc->target_position_set)
                p->world.target_pos[i] = i < (int)dim ? p->world.min[i] + 0.5f * p->world.size[i] : 0.0f;
    // The scenario kept with the params (as boids-run's boids_options_scenario).
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        if (o.fov)
            sc->fov_deg[g] = o.fov_v;
        else if (!from_file)
            sc->fov_deg[g] = 0.0f; // from the cosine
        if (o.bodies)
            sc->body_length[g] = o.body_length ? o.body_length_v : 1.2f * p->group[g].separation;
    }
    const boids_world_params *w = &p->world;
    for (int a = 0; a < 3; a++) {
        if (!sc->target_center_set)
            sc->target_center[a] = a < (int)w->dim ? w->min[a] + 0.5f * w->size[a] : 0.0f;
        if (!sc->target_position_set)
            sc->target_start[a] = a < (int)w->dim ? w->min[a] + 0.5f * w->size[a] : 0.0f;
    }
    if (!sc->target_radius_set)
        sc->target_radius = boids_scenario_default_target_radius(w);
    if (o.distribution)
        d.distribution = (boids_distribution)o.distribution_v;
    if (o.index)
        d.index = (boids_index)o.index_v;
    if (o.update)
        d.update = (boids_update)o.update_v;
    if (o.kernel)
        d.kernel = (boids_kernel)o.kernel_v;
    sc->params = *p;
    d.scenario = sc;
    d.params = p;
    r = boids_engine_create(out, &d, err, err_size);
done:
    free(sc);
    free(p);
    return r;
}

// See boids/engine.h.
boids_result boids_engine_set_options(boids_engine *e, uint32_t group, const boids_engine_option *opt, uint32_t n,
                                      char *err, size_t err_size) {
    if (!e || (n && !opt)) {
        engine_say(err, err_size, "options: %s; expected an engine and an array of %u options",
                   e ? "NULL options" : "NULL engine", n);
        return BOIDS_ERR_ARGUMENT;
    }
    const boids_params *now = boids_engine_params(e);
    if (group != UINT32_MAX && group >= now->world.group_count) {
        engine_say(err, err_size, "group: %u is not a group of the engine; expected 0..%u", group,
                   now->world.group_count - 1);
        return BOIDS_ERR_ARGUMENT;
    }
    given o;
    boids_result r = parse_all(opt, n, true, &o, err, err_size);
    if (r != BOIDS_OK)
        return r;
    boids_params q = *now;
    if ((r = apply(&o, &q, group, err, err_size)) != BOIDS_OK)
        return r;
    return engine_set_params_kept_grid(e, &q, "options", err, err_size);
}
