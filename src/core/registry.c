// src/core/registry.c: the parameter registry's table, and what every
// caller that sets parameters by name shares: the lookup, the parse of one
// value and its checks, and the one function that applies the given values
// to parameters (boids/registry.h).
#include "boids/registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/parse.h"
#include "boids/scenario.h"

const char *const boids_param_body_names[] = {"none", "chain", "snake", "fish", NULL};

const boids_param_info boids_param_table[BOIDS_PARAM_COUNT] = {
#define ROW(ID, name, flag, key, kind, where, field, lo, hi, def, flags, aux, choices, metavar, section, expected,     \
            help)                                                                                                      \
    {name, flag, key, kind, where, field, lo, hi, def, flags, aux, choices, metavar, section, expected, help},
    BOIDS_PARAM_LIST(ROW)
#undef ROW
};

// Whether a and b are the same name, '-' and '_' alike.
static bool same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
            return false;
    return *a == *b;
}

// See boids/registry.h.
int boids_param_find(const char *name) {
    for (int i = 0; name && i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *p = &boids_param_table[i];
        if (same_name(name, p->name) || same_name(name, p->flag) || (p->key && same_name(name, p->key)))
            return i;
    }
    return -1;
}

#define SHOWN (BOIDS_PARSE_SHOWN_MAX + 8)

// Two or three numbers of `text` split at `separators` into v (checked
// with parse_flags, |each| <= hi when hi > 0): their count, or 0 with the
// problem ("has a width '-3' that is negative") in problem.
static uint32_t numbers(const char *text, const char *separators, unsigned parse_flags, uint32_t lo_n, uint32_t hi_n,
                        double hi, const char *const axis[3], const char *article, const char *what, float *v,
                        char *problem, size_t problem_size) {
    char store[256], shown[SHOWN];
    char *pieces[3];
    if (strlen(text) >= sizeof store) {
        snprintf(problem, problem_size, "is too long");
        return 0;
    }
    uint32_t n = boids_parse_split(text, separators, store, pieces, 3);
    if (n < lo_n || n > hi_n) {
        if (hi_n == 2)
            snprintf(problem, problem_size, "has %s", n < 2 ? "one number" : "more than two numbers");
        else
            snprintf(problem, problem_size, "has %s %.*s", n < 2 ? "one" : "more than three",
                     (int)strlen(what) - (n < 2), what);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *p = boids_parse_float(pieces[i], parse_flags, &v[i]);
        if (!p && hi > 0.0 && !(fabs((double)v[i]) <= hi))
            p = "out of range";
        if (p) {
            snprintf(problem, problem_size, "has %s %s '%s' that is %s", article, axis[i],
                     boids_parse_shown(pieces[i], shown, sizeof shown), p);
            return 0;
        }
    }
    return n;
}

// "a, b or c" of a NULL-terminated name list.
static void names_text(const char *const *names, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; names[i] && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
}

// The comma list of every behaviour name.
static void behavior_names(char *buf, size_t size) {
    boids_behaviors_text((uint32_t)((1ull << BOIDS_BEHAVIOR_COUNT) - 1u), ", ", buf, size);
}

// WEIGHTS: NAME=W,... into values.
static const char *parse_weights(boids_param_values *values, const char *text, char *problem, size_t problem_size) {
    size_t n = strlen(text);
    char *store = malloc(n + 1);
    char **pieces = malloc((n + 2) * sizeof *pieces);
    const char *bad = NULL;
    float w[BOIDS_BEHAVIOR_COUNT];
    bool set[BOIDS_BEHAVIOR_COUNT] = {false};
    if (!store || !pieces) {
        snprintf(problem, problem_size, "cannot be parsed: out of memory");
        bad = problem;
        goto done;
    }
    uint32_t count = boids_parse_split(text, ",", store, pieces, (uint32_t)(n + 1));
    for (uint32_t i = 0; i < count && !bad; i++) {
        char shown[SHOWN], vshown[SHOWN];
        char *eq = strchr(pieces[i], '=');
        if (!eq) {
            snprintf(problem, problem_size, "has '%s' without '=value'",
                     boids_parse_shown(pieces[i], shown, sizeof shown));
            bad = problem;
            break;
        }
        *eq = '\0';
        int b = boids_behavior_index(pieces[i]);
        float v = 0.0f;
        const char *p = NULL;
        char hint[96];
        if (b < 0 || (uint32_t)b >= BOIDS_BEHAVIOR_COUNT)
            snprintf(problem, problem_size, "names an unknown behaviour '%s'%s",
                     boids_parse_shown(pieces[i], shown, sizeof shown),
                     boids_parse_behavior_hint(pieces[i], false, hint, sizeof hint)),
                bad = problem;
        else if ((p = boids_parse_float(eq + 1, 0, &v)) || !(fabsf(v) <= BOIDS_MAX_WEIGHT))
            snprintf(problem, problem_size, "gives %s the weight '%s', which is %s",
                     boids_parse_shown(pieces[i], shown, sizeof shown),
                     boids_parse_shown(eq + 1, vshown, sizeof vshown), p ? p : "out of range"),
                bad = problem;
        else
            w[b] = v, set[b] = true;
    }
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT && !bad; i++)
        if (set[i])
            values->weight[i] = w[i], values->weight_set[i] = true;
done:
    free(store);
    free(pieces);
    return bad;
}

// See boids/registry.h. The bounds compared as floats, as the value is
// kept (1e-6 is below the double 1e-6).
const char *boids_param_out_of_range(const boids_param_info *in, float x) {
    if (!isfinite(x))
        return "not a finite number";
    bool strict = (in->flags & BOIDS_PF_STRICT) != 0;
    if (strict ? !(x > (float)in->lo) : !(x >= (float)in->lo))
        return x < 0.0f ? "negative" : x == 0.0f ? "zero" : "too small";
    if (in->hi < 3e38 && x > (float)in->hi)
        return "too large";
    return NULL;
}

// FLOAT and DEGREES: one number in the parameter's range.
static const char *parse_float(const boids_param_info *in, const char *text, unsigned trim, float *out, char *problem,
                               size_t problem_size) {
    bool positive = (in->flags & BOIDS_PF_STRICT) && in->lo == 0.0;
    unsigned flags = trim | (in->kind == BOIDS_PK_DEGREES ? BOIDS_PARSE_POSITIVE | BOIDS_PARSE_DEGREES
                             : positive                   ? BOIDS_PARSE_POSITIVE
                                                          : 0u);
    const char *p = boids_parse_float(text, flags, out);
    if (!p && *out < (float)in->lo)
        p = *out < 0.0f ? "negative" : *out == 0.0f ? "zero" : "too small";
    if (!p && in->kind == BOIDS_PK_FLOAT && (double)*out > in->hi)
        p = "too large";
    if (p)
        snprintf(problem, problem_size, "is %s", p);
    return p ? problem : NULL;
}

// See boids/registry.h.
const char *boids_param_read(boids_param_id id, const char *text, unsigned trim, boids_param_value *out, char *problem,
                             size_t problem_size, char *expected, size_t expected_size) {
    const boids_param_info *in = &boids_param_table[id];
    boids_param_value v = {{0.0f, 0.0f, 0.0f}, {0, 0}, 0};
    const char *bad = NULL, *p;
    uint64_t u = 0;
    int k;
    char names[600];
    snprintf(expected, expected_size, "%s", in->expected);
    switch (in->kind) {
    case BOIDS_PK_FLOAT:
    case BOIDS_PK_DEGREES:
        bad = parse_float(in, text, trim, &v.f[0], problem, problem_size);
        break;
    case BOIDS_PK_UINT:
        snprintf(expected, expected_size, "an integer %.0f..%.0f (%s)", in->lo, in->hi, in->expected);
        if ((p = boids_parse_uint(text, trim, (uint64_t)in->lo, (uint64_t)in->hi, &u)))
            snprintf(problem, problem_size, "is %s", p), bad = problem;
        v.u[0] = (uint32_t)u;
        break;
    case BOIDS_PK_CHOICE:
        if ((k = boids_parse_pick(text, trim, in->choices)) < 0) {
            // A typo or a prefix of a name: the name (rule sets, boundaries, ...).
            const char *near = boids_parse_nearest(text, in->choices, strlen(text) <= 4 ? 1 : 2, true);
            names_text(in->choices, expected, expected_size);
            snprintf(problem, problem_size, "%s%s%s%s", in->expected, near ? " (did you mean '" : "", near ? near : "",
                     near ? "'?)" : "");
            bad = problem;
        }
        v.u[0] = (uint32_t)(k < 0 ? 0 : k);
        break;
    case BOIDS_PK_RANGE: {
        static const char *const axis[3] = {"LO", "HI", ""};
        snprintf(expected, expected_size, "%s (finite numbers)", in->expected);
        if (!numbers(text, ",", trim | BOIDS_PARSE_POSITIVE, 2, 2, 0.0, axis, "a", "numbers", v.f, problem,
                     problem_size))
            bad = problem;
        else if (!(v.f[0] <= v.f[1]))
            snprintf(problem, problem_size, "has a LO above its HI"), bad = problem;
        for (int k = 0; k < 2 && !bad; k++) // each end in the row's range
            if ((p = boids_param_out_of_range(in, v.f[k])))
                snprintf(problem, problem_size, "has a %s '%g' that is %s", axis[k], (double)v.f[k], p), bad = problem;
        break;
    }
    case BOIDS_PK_AGENT:
    case BOIDS_PK_AGENTS:
        if ((p = boids_parse_agents(text, in->kind == BOIDS_PK_AGENTS ? 2u : 1u, v.u)))
            snprintf(problem, problem_size, "is %s", p), bad = problem;
        break;
    case BOIDS_PK_BEHAVIORS:
        behavior_names(names, sizeof names);
        snprintf(expected, expected_size, "a comma list of %s, flocking, or all, none", names);
        if (!boids_parse_behaviors(text, trim, &v.u[0], problem, problem_size))
            bad = problem;
        break;
    case BOIDS_PK_WEIGHTS: // (boids_param_parse's)
        snprintf(problem, problem_size, "is a list of weights");
        return problem;
    case BOIDS_PK_EXTENTS: {
        static const char *const axis[3] = {"width", "height", "depth"};
        snprintf(expected, expected_size, "WxH (2D) or WxHxD (3D) with every extent a positive number up to 1e9");
        if (!(v.n = numbers(text, "xX", trim | BOIDS_PARSE_POSITIVE, 2, 3, in->hi, axis, "a", "extents", v.f, problem,
                            problem_size)))
            bad = problem;
        break;
    }
    case BOIDS_PK_POINT:
    case BOIDS_PK_VECTOR: {
        static const char *const axis[3] = {"x", "y", "z"};
        if (!(v.n = numbers(text, ",", trim, 2, 3, in->hi, axis, "an", "coordinates", v.f, problem, problem_size)))
            bad = problem;
        break;
    }
    }
    if (!bad)
        *out = v;
    return bad;
}

// See boids/registry.h.
const char *boids_param_parse(boids_param_values *values, boids_param_id id, const char *text, char *problem,
                              size_t problem_size, char *expected, size_t expected_size) {
    const char *bad;
    if (boids_param_table[id].kind == BOIDS_PK_WEIGHTS) {
        char names[600];
        behavior_names(names, sizeof names);
        snprintf(expected, expected_size, "name=value,... with a number -1e6..1e6 for each of %s", names);
        bad = parse_weights(values, text, problem, problem_size);
    } else {
        bad = boids_param_read(id, text, 0, &values->v[id], problem, problem_size, expected, expected_size);
    }
    if (!bad)
        values->set[id] = true;
    return bad;
}

// See boids/scenario.h: cos(half the field of view) of degrees in (0, 360]; 360 (all around) is -1.
float boids_fov_cos(float degrees) {
    return degrees >= 360.0f ? -1.0f : (float)cos((double)degrees * 0.5 * 3.14159265358979323846 / 180.0);
}

// The value of a FLOAT, UINT, CHOICE, AGENT(S), BEHAVIORS or DEGREES
// parameter into its field of the struct at base.
static void put_field(const boids_param_info *in, const boids_param_value *v, char *base) {
    float f;
    switch (in->kind) {
    case BOIDS_PK_FLOAT:
        memcpy(base + in->field, &v->f[0], sizeof(float));
        break;
    case BOIDS_PK_DEGREES:
        f = boids_fov_cos(v->f[0]);
        memcpy(base + in->field, &f, sizeof f);
        if (in->flags & BOIDS_PF_CONE) {
            boids_group_params *g = (boids_group_params *)base;
            g->own_cones |= in->aux;
        }
        break;
    case BOIDS_PK_RANGE:
        memcpy(base + in->field, v->f, 2 * sizeof(float));
        break;
    case BOIDS_PK_VECTOR:
        memcpy(base + in->field, v->f, 3 * sizeof(float));
        break;
    case BOIDS_PK_AGENTS:
        memcpy(base + in->field, v->u, 2 * sizeof(uint32_t));
        break;
    default: // UINT, CHOICE, AGENT, BEHAVIORS
        memcpy(base + in->field, &v->u[0], sizeof(uint32_t));
        break;
    }
}

// An eta for a group of rules couzin, or a sigma for one of rules vicsek:
// the noise word would be set under the other model's name.
static boids_result check_noise(const boids_param_values *values, const boids_params *p, uint32_t group,
                                bool flag_style, char *err, size_t err_size) {
    bool eta = values->set[BOIDS_PARAM_ETA], sigma = values->set[BOIDS_PARAM_SIGMA];
    for (uint32_t gi = 0; gi < p->world.group_count && gi < BOIDS_MAX_GROUPS; gi++) {
        if (group < BOIDS_MAX_GROUPS && gi != group)
            continue;
        uint32_t rules = p->group[gi].rules;
        bool eta_wrong = eta && rules == BOIDS_RULES_COUZIN;
        if (!eta_wrong && !(sigma && rules == BOIDS_RULES_VICSEK))
            continue;
        float v = values->v[eta_wrong ? BOIDS_PARAM_ETA : BOIDS_PARAM_SIGMA].f[0];
        if (flag_style)
            snprintf(err, err_size, "--%s: '%g' %s; expected %s", eta_wrong ? "eta" : "sigma", (double)v,
                     eta_wrong ? "is Vicsek's noise, and a group follows rules couzin"
                               : "is Couzin's noise, and a group follows rules vicsek",
                     eta_wrong ? "--sigma RADIANS for rules couzin" : "--eta RADIANS for rules vicsek");
        else
            snprintf(err, err_size, "%s: %g is %s noise, and group %u follows rules %s; expected %s",
                     eta_wrong ? "eta" : "sigma", (double)v, eta_wrong ? "Vicsek's" : "Couzin's", gi,
                     eta_wrong ? "couzin" : "vicsek", eta_wrong ? "sigma for rules couzin" : "eta for rules vicsek");
        return BOIDS_ERR_PARAM;
    }
    return BOIDS_OK;
}

// The bodies of every group (or `group`) from --bodies, --joints and
// --body-length (a length of 1.2 x the group's separation by default).
static boids_result make_bodies(const boids_param_values *values, boids_params *p, uint32_t group, bool flag_style,
                                char *err, size_t err_size) {
    if (!values->set[BOIDS_PARAM_BODIES])
        return BOIDS_OK;
    uint32_t joints = values->set[BOIDS_PARAM_JOINTS] ? values->v[BOIDS_PARAM_JOINTS].u[0]
                                                      : (uint32_t)boids_param_table[BOIDS_PARAM_JOINTS].def;
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS; gi++) {
        if (group < BOIDS_MAX_GROUPS && gi != group)
            continue;
        float length = values->set[BOIDS_PARAM_BODY_LENGTH] ? values->v[BOIDS_PARAM_BODY_LENGTH].f[0]
                                                            : 1.2f * p->group[gi].separation;
        char what[160];
        if (boids_body_make(&p->body[gi], values->v[BOIDS_PARAM_BODIES].u[0], joints, length, what, sizeof what) !=
            BOIDS_OK) {
            if (flag_style)
                snprintf(err, err_size, "--body-length: %s; expected a body length > 0", what);
            else
                snprintf(err, err_size, "body-length: %g is refused: %s; expected a body length > 0", (double)length,
                         what);
            return BOIDS_ERR_BODY;
        }
    }
    return BOIDS_OK;
}

// See boids/registry.h.
void boids_param_put(boids_param_id id, const boids_param_value *v, boids_params *p, uint32_t group) {
    const boids_param_info *in = &boids_param_table[id];
    if (in->where == BOIDS_PW_WORLD) {
        if (id == BOIDS_PARAM_GRID_FINE) // a name's index: the word of finalize
            p->world.grid_fine = boids_parse_grid_fine_word((int)v->u[0]);
        else
            put_field(in, v, (char *)&p->world);
    } else if (in->where == BOIDS_PW_PATH) {
        uint32_t *flags = &p->scene.path_flags;
        *flags = v->u[0] ? *flags | in->aux : *flags & ~in->aux;
    } else if (in->where == BOIDS_PW_GROUP && in->kind != BOIDS_PK_WEIGHTS) {
        for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS; gi++)
            if (group >= BOIDS_MAX_GROUPS || gi == group)
                put_field(in, v, (char *)&p->group[gi]);
    }
}

// See boids/registry.h.
boids_result boids_param_apply(const boids_param_values *values, boids_params *p, uint32_t group, bool flag_style,
                               char *err, size_t err_size) {
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++)
        if (values->set[i])
            boids_param_put((boids_param_id)i, &values->v[i], p, group);
    for (uint32_t gi = 0; gi < BOIDS_MAX_GROUPS; gi++)
        for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++)
            if (values->weight_set[b] && (group >= BOIDS_MAX_GROUPS || gi == group))
                *boids_weight_ref(&p->group[gi], b) = values->weight[b];
    boids_result r = check_noise(values, p, group, flag_style, err, err_size);
    if (r == BOIDS_OK)
        r = make_bodies(values, p, group, flag_style, err, err_size);
    return r;
}

// See boids/core.h: FLOAT parameters of a group by name, and the weights.
float *boids_group_value(boids_group_params *g, const char *name) {
    if (strncmp(name, "weight.", 7) == 0) {
        int b = boids_behavior_index(name + 7);
        return b < 0 ? NULL : boids_weight_ref(g, (uint32_t)b);
    }
    int i = boids_param_find(name);
    if (i < 0 || boids_param_table[i].where != BOIDS_PW_GROUP || boids_param_table[i].kind != BOIDS_PK_FLOAT)
        return NULL;
    return (float *)((char *)g + boids_param_table[i].field);
}
