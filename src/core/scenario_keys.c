// src/core/scenario_keys.c: the values of a scenario file and the keys of
// [world], [group.NAME] and [relation] (scenario_internal.h). The keys that
// are parameters come from the parameter registry (boids/registry.h): their
// names, kinds, ranges and fields; the others (the world's shape, seed and
// count, a group's share, colour, glyph and varying weights) are the
// scenario's own.
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/parse.h"
#include "boids/registry.h"
#include "scenario_internal.h"

// Records the first error: "NAME:LINE: [SECTION] KEY: 'VALUE' PROBLEM; expected EXPECTED".
void scenario_fail(parse_ctx *c, int line, const char *section, const char *key, const char *value,
                   const char *expected, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void scenario_fail(parse_ctx *c, int line, const char *section, const char *key, const char *value,
                   const char *expected, const char *fmt, ...) {
    if (c->failed)
        return;
    c->failed = true;
    // A key itself is wrong (the ensemble runner's swept keys: boids_scenario_load_with).
    c->key_failed = strncmp(fmt, "is not a key", 12) == 0 || strncmp(fmt, "names an unknown", 16) == 0;
    char problem[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    size_t n = (size_t)snprintf(c->err, sizeof c->err, "%s:%d: ", c->name, line);
    if (section && n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "[%s] ", section);
    if (key && n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "%s: ", key);
    if (value && n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "'%.80s' ", value);
    if (n < sizeof c->err)
        n += (size_t)snprintf(c->err + n, sizeof c->err - n, "%s", problem);
    if (expected && n < sizeof c->err)
        snprintf(c->err + n, sizeof c->err - n, "; expected %s", expected);
}

// "one of (did you mean 'x'?): a, b, c" of a NULL-terminated list of names
// (the suggestion first: a long list may be cut short).
void scenario_expected_names(const char *const *names, const char *given, char *buf, size_t size) {
    const char *best = boids_parse_nearest(given, names, 3, false);
    size_t n = (size_t)snprintf(buf, size, "one of");
    if (best && n < size)
        n += (size_t)snprintf(buf + n, size - n, " (did you mean '%s'?)", best);
    for (size_t i = 0; names[i]; i++)
        if (n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s %s", i ? "," : ":", names[i]);
}

// ---- values -------------------------------------------------------------------

// Trims blanks at both ends into buf.
const char *scenario_trim(const char *s, char *buf, size_t size) {
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

// A comma list of lo..hi (at most 3) floats into out; *n gets the count.
const char *scenario_parse_vector(const char *s, uint32_t lo, uint32_t hi, float *out, uint32_t *n) {
    char t[200], store[200];
    char *pieces[3];
    scenario_trim(s, t, sizeof t);
    uint32_t k = t[0] ? boids_parse_split(t, ",", store, pieces, hi) : 0;
    for (uint32_t i = 0; i < k && i < hi; i++) {
        const char *p = boids_parse_float(pieces[i], BOIDS_PARSE_TRIM, &out[i]);
        if (p)
            return strcmp(p, "empty") == 0 ? "has an empty number" : "has a part that is not a finite number";
    }
    if (k > hi)
        return "has too many numbers";
    if (k < lo)
        return "has too few numbers";
    *n = k;
    return NULL;
}

// ---- sections -----------------------------------------------------------------------

// "behaviour names: obstacles, ..., or flocking, all, none" from the
// names themselves (so a behaviour added later is listed).
const char *scenario_behavior_list(char *buf, size_t size) {
    char names[400];
    boids_behaviors_text((uint32_t)((1ull << BOIDS_BEHAVIOR_COUNT) - 1u), ", ", names, sizeof names);
    snprintf(buf, size, "behaviour names: %s, or flocking, all, none", names);
    return buf;
}

// Sets *f from a float value >= lo (strictly > lo when strict), reporting errors.
int scenario_float_key(parse_ctx *c, const char *sec, const char *key, const char *value, float lo, bool strict,
                       float hi, float *f) {
    float v = 0.0f;
    // > 0: a normal float, as the flags' (a subnormal is "too small").
    unsigned positive = strict && lo == 0.0f ? BOIDS_PARSE_POSITIVE : 0u;
    const char *p = boids_parse_float(value, BOIDS_PARSE_TRIM | positive, &v);
    char expected[96];
    if (hi < 3e38f)
        snprintf(expected, sizeof expected, "a number %s %g and <= %g", strict ? ">" : ">=", (double)lo, (double)hi);
    else
        snprintf(expected, sizeof expected, "a number %s %g", strict ? ">" : ">=", (double)lo);
    if (!p && (strict ? !(v > lo) : !(v >= lo)))
        p = strict && v == lo ? "zero or too small" : "too small";
    if (!p && v > hi)
        p = "too large";
    if (p) {
        scenario_fail(c, c->line, sec, key, value, expected, "is %s", p);
        return 0;
    }
    *f = v;
    return 1;
}

// A vector of 2 or 3 numbers into v[3] (z = 0 when 2).
int scenario_vector_key(parse_ctx *c, const char *sec, const char *key, const char *value, float v[3],
                        uint32_t *count) {
    uint32_t n = 0;
    float t[3] = {0, 0, 0};
    const char *p = scenario_parse_vector(value, 2, 3, t, &n);
    if (p) {
        scenario_fail(c, c->line, sec, key, value, "x, y or x, y, z (finite numbers)", "%s", p);
        return 0;
    }
    memcpy(v, t, sizeof t);
    if (count)
        *count = n;
    return 1;
}

// The scenario's own keys beside the registry's (boids/registry.h).
static const char *const group_own_keys[] = {"share", "weight.BEHAVIOUR", "vary.BEHAVIOUR", "color",
                                             "glyph", "glyph_size"};
static const char *const world_own_keys[] = {"dim", "count", "seed", "distribution", "density"};

// The keys of a section ([group.NAME]: the groups' and bodies' parameters;
// [world]: the world's), NULL-terminated, for suggestions.
static void section_keys(bool group, const char **keys, size_t max) {
    size_t n = 0;
    const char *const *own = group ? group_own_keys : world_own_keys;
    size_t own_n =
        group ? sizeof group_own_keys / sizeof *group_own_keys : sizeof world_own_keys / sizeof *world_own_keys;
    for (size_t k = 0; k < own_n && n + 1 < max; k++)
        keys[n++] = own[k];
    for (int i = 0; i < BOIDS_PARAM_COUNT && n + 1 < max; i++) {
        const boids_param_info *in = &boids_param_table[i];
        bool of_group = in->where == BOIDS_PW_GROUP || in->where == BOIDS_PW_BODY;
        bool of_world = in->where == BOIDS_PW_WORLD || in->where == BOIDS_PW_SHAPE;
        if (in->key && (group ? of_group : of_world))
            keys[n++] = in->key;
    }
    keys[n] = NULL;
}

// The registry's parameter whose scenario key is `key` in a group's section
// (group) or the world's, or -1.
static int param_of_key(const char *key, bool group) {
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        bool of_group = in->where == BOIDS_PW_GROUP || in->where == BOIDS_PW_BODY;
        if (in->key && strcmp(in->key, key) == 0 && (group ? of_group : in->where == BOIDS_PW_WORLD))
            return i;
    }
    return -1;
}

// A value of parameter id as a scenario writes it (blanks around the value
// and its items allowed) into v: 1, or 0 with the error recorded.
static int param_value(parse_ctx *c, const char *sec, const char *key, int id, const char *value,
                       boids_param_value *v) {
    char problem[600], expected[700];
    if (boids_param_read((boids_param_id)id, value, BOIDS_PARSE_TRIM, v, problem, sizeof problem, expected,
                         sizeof expected)) {
        scenario_fail(c, c->line, sec, key, value, expected, "%s", problem);
        return 0;
    }
    return 1;
}

int scenario_world_key(parse_ctx *c, const char *key, const char *value) {
    boids_world_params *w = &c->sc.params.world;
    const char *sec = "world";
    uint64_t u;
    const char *p;
    int id = param_of_key(key, false);
    if (id >= 0) {
        boids_param_value v = {{0.0f, 0.0f, 0.0f}, {0, 0}, 0};
        if (!param_value(c, sec, key, id, value, &v))
            return 0;
        boids_param_put((boids_param_id)id, &v, &c->sc.params, BOIDS_MAX_GROUPS);
        return 1;
    }
    if (strcmp(key, "dim") == 0) {
        if ((p = boids_parse_uint(value, BOIDS_PARSE_TRIM, 2, 3, &u))) {
            scenario_fail(c, c->line, sec, key, value, "2 or 3", "is %s", strncmp(p, "too", 3) == 0 ? "not 2 or 3" : p);
            return 0;
        }
        w->dim = (uint32_t)u;
        c->sc.dim_set = true;
        c->dim_line = c->line;
    } else if (strcmp(key, "count") == 0) {
        if ((p = boids_parse_uint(value, BOIDS_PARSE_TRIM, 1, BOIDS_MAX_AGENTS, &u))) {
            scenario_fail(c, c->line, sec, key, value, "an integer 1..16777216", "is %s", p);
            return 0;
        }
        w->count = (uint32_t)u;
        c->sc.count_set = true;
    } else if (strcmp(key, "size") == 0) {
        char t[128], store[128];
        char *pieces[3];
        scenario_trim(value, t, sizeof t);
        uint32_t n = boids_parse_split(t, "x", store, pieces, 3);
        float s[3] = {0, 0, 0};
        bool ok = n >= 2 && n <= 3;
        for (uint32_t i = 0; i < n && ok; i++)
            ok = !boids_parse_float(pieces[i], BOIDS_PARSE_TRIM, &s[i]) && s[i] > 0.0f && s[i] <= 1e9f;
        if (!ok) {
            scenario_fail(c, c->line, sec, key, value, "WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH, positive numbers up to 1e9",
                          "is not a world size");
            return 0;
        }
        memcpy(c->size, s, sizeof s);
        c->size_n = n;
        c->size_line = c->line;
        c->sc.size_set = true;
    } else if (strcmp(key, "origin") == 0) {
        if (!scenario_vector_key(c, sec, key, value, c->origin, NULL))
            return 0;
        c->sc.origin_set = true;
    } else if (strcmp(key, "density") == 0) {
        return scenario_float_key(c, sec, key, value, 0.0f, true, BOIDS_MAX_EXTENT, &c->sc.density);
    } else if (strcmp(key, "seed") == 0) {
        if ((p = boids_parse_uint(value, BOIDS_PARSE_TRIM | BOIDS_PARSE_HEX, 0, UINT64_MAX, &u))) {
            scenario_fail(c, c->line, sec, key, value, "an integer 0..18446744073709551615, decimal or 0x hex", "is %s",
                          p);
            return 0;
        }
        w->seed_lo = (uint32_t)(u & 0xffffffffu);
        w->seed_hi = (uint32_t)(u >> 32);
    } else if (strcmp(key, "distribution") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_distribution_names);
        if (k < 0) {
            scenario_fail(c, c->line, sec, key, value, "uniform or clustered", "is not a distribution");
            return 0;
        }
        c->sc.distribution = (uint32_t)k;
    } else {
        char e[900];
        const char *world_keys[BOIDS_PARAM_COUNT + 8], *group_keys[BOIDS_PARAM_COUNT + 8];
        section_keys(false, world_keys, sizeof world_keys / sizeof *world_keys);
        section_keys(true, group_keys, sizeof group_keys / sizeof *group_keys);
        scenario_expected_names(world_keys, key, e, sizeof e);
        if (!strstr(e, "did you mean"))
            for (size_t k = 0; group_keys[k]; k++)
                if (boids_parse_edit_distance(key, group_keys[k]) <= 2) {
                    size_t n = strlen(e);
                    snprintf(e + n, sizeof e - n, " ('%s' is a key of [group.NAME])", group_keys[k]);
                    break;
                }
        scenario_fail(c, c->line, sec, key, NULL, e, "is not a key of [world]");
        return 0;
    }
    return 1;
}

// The group of a name, created on its first section (at most 8).
int scenario_group_index(parse_ctx *c, const char *name) {
    for (uint32_t g = 0; g < c->groups; g++)
        if (strcmp(c->sc.group_name[g], name) == 0)
            return (int)g;
    return -1;
}

// A "#rrggbb" colour into rgba.
static bool scenario_parse_color(const char *s, float out[4]) {
    char t[16];
    scenario_trim(s, t, sizeof t);
    if (strlen(t) != 7 || t[0] != '#')
        return false;
    for (int i = 1; i < 7; i++)
        if (!isxdigit((unsigned char)t[i]))
            return false;
    unsigned long v = strtoul(t + 1, NULL, 16);
    out[0] = (float)((v >> 16) & 255u) / 255.0f;
    out[1] = (float)((v >> 8) & 255u) / 255.0f;
    out[2] = (float)(v & 255u) / 255.0f;
    out[3] = 1.0f;
    return true;
}

// A body key of a group (body, joints, body_length): kept until the end,
// where the bodies are made from all three.
static void body_key(parse_ctx *c, uint32_t gi, int id, const boids_param_value *v) {
    group_extra *x = &c->extra[gi];
    if (id == BOIDS_PARAM_BODIES) {
        x->style = v->u[0];
        x->body_line = c->line;
    } else if (id == BOIDS_PARAM_JOINTS) {
        x->joints = v->u[0];
    } else {
        x->length = v->f[0];
        x->length_set = true;
    }
}

// A registry parameter of group gi (boids/registry.h): the field, and what
// the end of the file needs of it (the degrees a writer gives back, the
// noise word's line, the bodies).
static int group_param_key(parse_ctx *c, const char *sec, uint32_t gi, int id, const char *value) {
    const boids_param_info *in = &boids_param_table[id];
    boids_param_value v = {{0.0f, 0.0f, 0.0f}, {0, 0}, 0};
    if (!param_value(c, sec, in->key, id, value, &v))
        return 0;
    if (in->where == BOIDS_PW_BODY) {
        body_key(c, gi, id, &v);
        return 1;
    }
    boids_param_put((boids_param_id)id, &v, &c->sc.params, gi);
    if (id == BOIDS_PARAM_FOV)
        c->sc.fov_deg[gi] = v.f[0];
    else if (id == BOIDS_PARAM_VIEW_FOV)
        c->sc.view_fov_deg[gi] = v.f[0];
    else if (id == BOIDS_PARAM_ETA)
        c->extra[gi].eta_line = c->line;
    else if (id == BOIDS_PARAM_SIGMA)
        c->extra[gi].sigma_line = c->line;
    return 1;
}

int scenario_group_key(parse_ctx *c, const char *sec, uint32_t gi, const char *key, const char *value) {
    boids_group_params *g = &c->sc.params.group[gi];
    int id = param_of_key(key, true);
    if (id >= 0)
        return group_param_key(c, sec, gi, id, value);
    if (strcmp(key, "share") == 0)
        return scenario_float_key(c, sec, key, value, 0.0f, true, 1e9f, &c->sc.params.group_share[gi]);
    if (strncmp(key, "weight.", 7) == 0 || strncmp(key, "vary.", 5) == 0) {
        bool vary = key[0] == 'v';
        const char *name = key + (vary ? 5 : 7);
        int b = boids_behavior_index(name);
        if (b < 0) {
            char e[460];
            scenario_fail(c, c->line, sec, key, NULL, scenario_behavior_list(e, sizeof e),
                          "names an unknown behaviour '%s'", name);
            return 0;
        }
        if (!vary) {
            float wgt;
            const char *p = boids_parse_float(value, BOIDS_PARSE_TRIM, &wgt);
            if (!p && !(fabsf(wgt) <= BOIDS_MAX_WEIGHT))
                p = "out of range";
            if (p) {
                scenario_fail(c, c->line, sec, key, value, "a weight -1e6..1e6", "is %s", p);
                return 0;
            }
            *boids_weight_ref(g, b) = wgt;
            return 1;
        }
        float v[3];
        uint32_t n = 0;
        const char *p = scenario_parse_vector(value, 3, 3, v, &n);
        if (!p && !(fabsf(v[0]) <= BOIDS_MAX_WEIGHT && fabsf(v[1]) <= BOIDS_MAX_WEIGHT &&
                    v[2] >= BOIDS_SCENARIO_MIN_PERIOD && v[2] <= BOIDS_SCENARIO_MAX_PERIOD))
            p = "is out of range";
        if (!p && c->sc.vary_count == BOIDS_SCENARIO_MAX_VARY)
            p = "is one varying weight too many (at most 32)";
        if (p) {
            scenario_fail(c, c->line, sec, key, value, "MIN, MAX, PERIOD (weights -1e6..1e6, a period of 1..1e9 steps)",
                          "%s", p);
            return 0;
        }
        boids_vary *vr = &c->sc.vary[c->sc.vary_count++];
        vr->group = gi;
        vr->behavior = (uint32_t)b;
        vr->lo = v[0];
        vr->hi = v[1];
        vr->period = v[2];
        return 1;
    }
    if (strcmp(key, "glyph") == 0) {
        int s = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_glyph_names);
        if (s < 0) {
            scenario_fail(c, c->line, sec, key, value, "default, arrow, wedge or dot", "is not a glyph");
            return 0;
        }
        c->sc.glyph[gi] = (uint32_t)s;
        return 1;
    }
    if (strcmp(key, "glyph_size") == 0) // a factor of the drawn agent length; 0: the default
        return scenario_float_key(c, sec, key, value, 0.0f, false, BOIDS_GLYPH_SIZE_MAX, &c->sc.glyph_size[gi]);
    if (strcmp(key, "color") == 0) {
        if (!scenario_parse_color(value, c->sc.color[gi])) {
            scenario_fail(c, c->line, sec, key, value, "#rrggbb (hexadecimal)", "is not a colour");
            return 0;
        }
        c->sc.color_set[gi] = true;
        return 1;
    }
    char e[900];
    const char *group_keys[BOIDS_PARAM_COUNT + 8];
    section_keys(true, group_keys, sizeof group_keys / sizeof *group_keys);
    scenario_expected_names(group_keys, key, e, sizeof e);
    scenario_fail(c, c->line, sec, key, NULL, e, "is not a key of a group");
    return 0;
}

int scenario_relation_key(parse_ctx *c, const char *key, const char *value) {
    static const char *const names[] = {"flock", "ignore", "flee", "pursue", NULL};
    const char *dot = strchr(key, '.');
    if (!dot || dot == key || !dot[1] || strchr(dot + 1, '.') || (size_t)(dot - key) >= BOIDS_SCENARIO_NAME ||
        strlen(dot + 1) >= BOIDS_SCENARIO_NAME) {
        scenario_fail(c, c->line, "relation", key, NULL, "GROUP.OTHER = flock|ignore|flee|pursue",
                      "is not GROUP.OTHER");
        return 0;
    }
    int r = boids_parse_pick(value, BOIDS_PARSE_TRIM, names);
    if (r < 0) {
        scenario_fail(c, c->line, "relation", key, value, "flock, ignore, flee or pursue", "is not a relation");
        return 0;
    }
    if (c->n_rel == MAX_RELATIONS) {
        scenario_fail(c, c->line, "relation", key, NULL, "at most 64 relations", "is one relation too many");
        return 0;
    }
    relation_entry *e = &c->rel[c->n_rel++];
    memcpy(e->a, key, (size_t)(dot - key));
    e->a[dot - key] = '\0';
    snprintf(e->b, sizeof e->b, "%s", dot + 1);
    e->rel = (uint32_t)r;
    e->line = c->line;
    e->source = c->name;
    return 1;
}
