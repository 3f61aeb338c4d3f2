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
#include "boids/registry.h"
#include "boids/scenario.h"
#include "engine_private.h"

// The options that set the engine's description, not parameters (the
// parameters' are the registry's, boids/registry.h).
static const struct setup_option {
    const char *name;
    const char *const *choices;
} setup_options[] = {
    {"distribution", boids_parse_distribution_names},
    {"index", boids_parse_index_names},
    {"update", boids_parse_update_names},
    {"kernel", boids_kernel_names},
};
#define SETUP_COUNT (sizeof setup_options / sizeof setup_options[0])
enum { SETUP_DISTRIBUTION, SETUP_INDEX, SETUP_UPDATE, SETUP_KERNEL };

// What the options give: the parameters' values, and the set-up's.
typedef struct given {
    boids_param_values values;
    bool setup_set[SETUP_COUNT];
    uint32_t setup[SETUP_COUNT];
} given;

// See boids/engine.h.
uint32_t boids_engine_option_count(void) {
    return (uint32_t)(BOIDS_PARAM_COUNT + SETUP_COUNT); // every parameter has a flag
}

// See boids/engine.h.
const char *boids_engine_option_name(uint32_t i, const char **kind) {
    static const char *const kinds[] = {
        [BOIDS_PK_FLOAT] = "number",    [BOIDS_PK_DEGREES] = "number",      [BOIDS_PK_UINT] = "integer",
        [BOIDS_PK_CHOICE] = "name",     [BOIDS_PK_RANGE] = "range",         [BOIDS_PK_AGENT] = "agent",
        [BOIDS_PK_AGENTS] = "agents",   [BOIDS_PK_BEHAVIORS] = "behaviors", [BOIDS_PK_WEIGHTS] = "weights",
        [BOIDS_PK_EXTENTS] = "extents", [BOIDS_PK_POINT] = "point",         [BOIDS_PK_VECTOR] = "point",
    };
    if (i < BOIDS_PARAM_COUNT) {
        if (kind)
            *kind = i == BOIDS_PARAM_GRID_FINE ? "grid_fine" : kinds[boids_param_table[i].kind];
        return boids_param_table[i].flag;
    }
    i -= BOIDS_PARAM_COUNT;
    if (i < SETUP_COUNT) {
        if (kind)
            *kind = "name";
        return setup_options[i].name;
    }
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

// Parses one option's value into g; BOIDS_ERR_ARGUMENT with err for an
// unknown name, a bad value, or (created) what needs a new simulation.
static boids_result parse_one(const char *name, const char *value, bool created, given *g, char *err, size_t err_size) {
    const char *cannot = "%s: cannot change once the simulation is made (the grid, the world and the agents' set-up "
                         "are fixed then); expected it given when the simulation is made";
    for (size_t k = 0; k < SETUP_COUNT; k++) {
        if (strcmp(name, setup_options[k].name) != 0)
            continue;
        if (created) {
            engine_say(err, err_size, cannot, name);
            return BOIDS_ERR_ARGUMENT;
        }
        int c = boids_parse_pick(value, 0, setup_options[k].choices);
        if (c < 0) {
            char names[160] = "";
            size_t len = 0;
            const char *const *ch = setup_options[k].choices;
            for (size_t i = 0; ch[i] && len < sizeof names; i++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                        i == 0      ? ""
                                        : ch[i + 1] ? ", "
                                                    : " or ",
                                        ch[i]);
            return refuse(err, err_size, BOIDS_ERR_ARGUMENT, name, value, "is not one of the choices", names);
        }
        g->setup_set[k] = true;
        g->setup[k] = (uint32_t)c;
        return BOIDS_OK;
    }
    int id = boids_param_find(name);
    if (id < 0 || strcmp(boids_param_table[id].flag, name) != 0) {
        const char *names[BOIDS_PARAM_COUNT + SETUP_COUNT + 1];
        uint32_t n = 0;
        for (uint32_t j = 0; j < boids_engine_option_count(); j++)
            names[n++] = boids_engine_option_name(j, NULL);
        names[n] = NULL;
        const char *near = boids_parse_nearest(name, names, 2, true);
        char shown[BOIDS_PARSE_SHOWN_MAX + 8];
        engine_say(err, err_size,
                   "option: '%s' is not an option%s%s%s; expected one of boids-run's flags "
                   "(world, boundary, radius, behaviors, ...)",
                   boids_parse_shown(name, shown, sizeof shown), near ? " (did you mean " : "", near ? near : "",
                   near ? "?)" : "");
        return BOIDS_ERR_ARGUMENT;
    }
    if (created && (boids_param_table[id].flags & BOIDS_PF_CREATE)) {
        engine_say(err, err_size, cannot, name);
        return BOIDS_ERR_ARGUMENT;
    }
    char problem[700], expected[700];
    if (boids_param_parse(&g->values, (boids_param_id)id, value, problem, sizeof problem, expected, sizeof expected))
        return refuse(err, err_size, BOIDS_ERR_ARGUMENT, name, value, problem, expected);
    return BOIDS_OK;
}

// Parses every option into g; `created` refuses the create-only ones.
static boids_result parse_all(const boids_engine_option *opt, uint32_t n, bool created, given *g, char *err,
                              size_t err_size) {
    memset(g, 0, sizeof *g);
    for (uint32_t i = 0; i < n; i++) {
        boids_result r = parse_one(opt[i].name ? opt[i].name : "(null)", opt[i].value ? opt[i].value : "", created, g,
                                   err, err_size);
        if (r != BOIDS_OK)
            return r;
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
        d.distribution = (boids_distribution)sc->distribution;
    }
    boids_param_start start = {from_file ? sc : NULL, from_file ? 0 : d.count, from_file ? 0 : d.dim, d.seed != 0,
                               d.seed};
    if ((r = boids_params_from_values(&start, &o.values, false, p, err, err_size)) != BOIDS_OK)
        goto done;
    boids_scenario *kept = malloc(sizeof *kept);
    if (!kept) {
        r = BOIDS_ERR_NOMEM;
        goto done;
    }
    boids_params_kept_scenario(from_file ? sc : NULL, &o.values, p, kept);
    free(sc);
    sc = kept;
    if (o.setup_set[SETUP_DISTRIBUTION])
        d.distribution = (boids_distribution)o.setup[SETUP_DISTRIBUTION];
    if (o.setup_set[SETUP_INDEX])
        d.index = (boids_index)o.setup[SETUP_INDEX];
    if (o.setup_set[SETUP_UPDATE])
        d.update = (boids_update)o.setup[SETUP_UPDATE];
    if (o.setup_set[SETUP_KERNEL])
        d.kernel = (boids_kernel)o.setup[SETUP_KERNEL];
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
    if ((r = boids_param_apply(&o.values, &q, group, false, err, err_size)) != BOIDS_OK)
        return r;
    return engine_set_params_kept_grid(e, &q, "options", err, err_size);
}
