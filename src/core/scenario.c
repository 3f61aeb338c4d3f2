// src/core/scenario.c: scenario files (docs/SCENARIOS.md). libinih splits
// the file into (section, key, value); each value is checked completely
// here and applied to a scenario being built, which replaces the caller's
// only when the whole file is good. Line numbers and repeated sections are
// followed through the line reader handed to inih (Debian builds it
// without INI_HANDLER_LINENO and without new-section calls).
#define _GNU_SOURCE // realpath, dladdr
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>

#include "boids/behaviors.h"
#include "boids/input.h"
#include "boids/parse.h"
#include "boids/scenario.h"

#ifndef BOIDS_SCENARIO_DIR
#define BOIDS_SCENARIO_DIR "scenarios"
#endif
// The installed scenarios relative to the folder of the installed library
// (libdir) and of a program linked with it statically (bindir).
#ifndef BOIDS_SCENARIO_FROM_LIB
#define BOIDS_SCENARIO_FROM_LIB "../share/boids/scenarios"
#endif
#ifndef BOIDS_SCENARIO_FROM_BIN
#define BOIDS_SCENARIO_FROM_BIN "../share/boids/scenarios"
#endif

#define MAX_RELATIONS 64

// A relation as read, resolved once every group is known.
typedef struct relation_entry {
    char a[BOIDS_SCENARIO_NAME], b[BOIDS_SCENARIO_NAME];
    uint32_t rel;
    int line;
    const char *source; // the file's or an override's name (messages), as c->name when read
} relation_entry;

// Per-group settings applied at the end (they need other keys first).
typedef struct group_extra {
    uint32_t style, joints;
    float length;
    bool length_set;
    int body_line;
    // The noise word's key (eta or sigma) and its line, 0 if none: it must
    // be the name of the group's rule set's noise.
    int eta_line, sigma_line;
} group_extra;

// The item of a repeated section ([obstacle], [wall]) being read: its
// section_index (-1: none open), its first line, the keys given (a bit each).
typedef struct section_item {
    int section;
    int line;
    unsigned keys;
} section_item;

typedef struct parse_ctx {
    const char *name; // the path shown in messages
    FILE *file;       // or the string at text
    const char *text;
    int line;          // line just handed to inih
    int section_index; // count of "[...]" lines so far
    bool failed;
    char err[1024];
    boids_scenario sc;
    uint32_t groups;
    group_extra extra[BOIDS_MAX_GROUPS];
    relation_entry rel[MAX_RELATIONS];
    uint32_t n_rel;
    section_item obstacle, wall; // the [obstacle] / [wall] being read
    int path_line, size_line, dim_line, image_line, flow_line;
    uint32_t size_n;
    float size[3], origin[3];
    // Overrides applied after the file's last key (boids_scenario_load_with).
    const boids_scenario_override *ov;
    uint32_t n_ov;
    bool key_failed; // the first error is about a key itself (unknown), not a value
    // The file's own keys (not the overrides): each section once (but
    // [obstacle] and [wall], one item each), each key once in its section
    // (but [path] point): the later would silently win.
    bool reading_file;
    struct {
        char name[64];
        int line;
    } sections[64];
    int n_sections;
    int keys_of; // section_index the keys below belong to
    struct {
        char key[48];
        int line;
    } keys[64];
    int n_keys;
} parse_ctx;

// ---- messages ---------------------------------------------------------------

// Records the first error: "NAME:LINE: [SECTION] KEY: 'VALUE' PROBLEM; expected EXPECTED".
static void fail(parse_ctx *c, int line, const char *section, const char *key, const char *value, const char *expected,
                 const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void fail(parse_ctx *c, int line, const char *section, const char *key, const char *value, const char *expected,
                 const char *fmt, ...) {
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
static void expected_names(const char *const *names, const char *given, char *buf, size_t size) {
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
static const char *trim(const char *s, char *buf, size_t size) {
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
static const char *parse_vector(const char *s, uint32_t lo, uint32_t hi, float *out, uint32_t *n) {
    char t[200], store[200];
    char *pieces[3];
    trim(s, t, sizeof t);
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
static const char *behavior_list(char *buf, size_t size) {
    char names[400];
    boids_behaviors_text((uint32_t)((1ull << BOIDS_BEHAVIOR_COUNT) - 1u), ", ", names, sizeof names);
    snprintf(buf, size, "behaviour names: %s, or flocking, all, none", names);
    return buf;
}

// Sets *f from a float value >= lo (strictly > lo when strict), reporting errors.
static int float_key(parse_ctx *c, const char *sec, const char *key, const char *value, float lo, bool strict, float hi,
                     float *f) {
    float v = 0.0f;
    const char *p = boids_parse_float(value, BOIDS_PARSE_TRIM, &v);
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
        fail(c, c->line, sec, key, value, expected, "is %s", p);
        return 0;
    }
    *f = v;
    return 1;
}

// A vector of 2 or 3 numbers into v[3] (z = 0 when 2).
static int vector_key(parse_ctx *c, const char *sec, const char *key, const char *value, float v[3], uint32_t *count) {
    uint32_t n = 0;
    float t[3] = {0, 0, 0};
    const char *p = parse_vector(value, 2, 3, t, &n);
    if (p) {
        fail(c, c->line, sec, key, value, "x, y or x, y, z (finite numbers)", "%s", p);
        return 0;
    }
    memcpy(v, t, sizeof t);
    if (count)
        *count = n;
    return 1;
}

static const char *const group_keys[] = {"share",
                                         "behaviors",
                                         "weight.BEHAVIOUR",
                                         "vary.BEHAVIOUR",
                                         "maxspeed",
                                         "maxforce",
                                         "maxspeed_range",
                                         "maxforce_range",
                                         "radius",
                                         "separation",
                                         "fov",
                                         "alignment_radius",
                                         "cohesion_radius",
                                         "separation_fov",
                                         "alignment_fov",
                                         "cohesion_fov",
                                         "neighbors_max",
                                         "view_radius",
                                         "view_fov",
                                         "predict",
                                         "arrive_radius",
                                         "wander_distance",
                                         "wander_radius",
                                         "wander_change",
                                         "path_predict",
                                         "path_ahead",
                                         "avoid_distance",
                                         "priority_threshold",
                                         "max_turn",
                                         "body_radius",
                                         "rules",
                                         "turn",
                                         "repulse",
                                         "eta",
                                         "sigma",
                                         "target_speed",
                                         "queue_distance",
                                         "avoid_horizon",
                                         "hide_margin",
                                         "leader",
                                         "formation",
                                         "formation_spacing",
                                         "leader_offset",
                                         "leader_behind",
                                         "leader_sight",
                                         "interpose",
                                         "feeler_length",
                                         "body",
                                         "joints",
                                         "body_length",
                                         "color",
                                         "glyph",
                                         "glyph_size",
                                         NULL};

static const char *const world_keys[] = {"dim",          "count",  "size",    "origin",      "boundary",
                                         "dt",           "seed",   "combine", "wall_offset", "wall_corner",
                                         "distribution", "margin", "density", "grid_fine",   NULL};

static int world_key(parse_ctx *c, const char *key, const char *value) {
    boids_world_params *w = &c->sc.params.world;
    const char *sec = "world";
    uint64_t u;
    const char *p;
    if (strcmp(key, "dim") == 0) {
        if ((p = boids_parse_uint(value, BOIDS_PARSE_TRIM, 2, 3, &u))) {
            fail(c, c->line, sec, key, value, "2 or 3", "is %s", strncmp(p, "too", 3) == 0 ? "not 2 or 3" : p);
            return 0;
        }
        w->dim = (uint32_t)u;
        c->sc.dim_set = true;
        c->dim_line = c->line;
    } else if (strcmp(key, "count") == 0) {
        if ((p = boids_parse_uint(value, BOIDS_PARSE_TRIM, 1, BOIDS_MAX_AGENTS, &u))) {
            fail(c, c->line, sec, key, value, "an integer 1..16777216", "is %s", p);
            return 0;
        }
        w->count = (uint32_t)u;
        c->sc.count_set = true;
    } else if (strcmp(key, "size") == 0) {
        char t[128], store[128];
        char *pieces[3];
        trim(value, t, sizeof t);
        uint32_t n = boids_parse_split(t, "x", store, pieces, 3);
        float s[3] = {0, 0, 0};
        bool ok = n >= 2 && n <= 3;
        for (uint32_t i = 0; i < n && ok; i++)
            ok = !boids_parse_float(pieces[i], BOIDS_PARSE_TRIM, &s[i]) && s[i] > 0.0f && s[i] <= 1e9f;
        if (!ok) {
            fail(c, c->line, sec, key, value, "WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH, positive numbers up to 1e9",
                 "is not a world size");
            return 0;
        }
        memcpy(c->size, s, sizeof s);
        c->size_n = n;
        c->size_line = c->line;
        c->sc.size_set = true;
    } else if (strcmp(key, "origin") == 0) {
        if (!vector_key(c, sec, key, value, c->origin, NULL))
            return 0;
        c->sc.origin_set = true;
    } else if (strcmp(key, "boundary") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_boundary_names);
        if (k < 0) {
            fail(c, c->line, sec, key, value, "wrap, walls, bounce or margin", "is not a boundary mode");
            return 0;
        }
        w->boundary = (uint32_t)k;
    } else if (strcmp(key, "dt") == 0) {
        return float_key(c, sec, key, value, 0.0f, true, 1000.0f, &w->dt);
    } else if (strcmp(key, "density") == 0) {
        return float_key(c, sec, key, value, 0.0f, true, BOIDS_MAX_EXTENT, &c->sc.density);
    } else if (strcmp(key, "margin") == 0) {
        // boundary = margin's r (the sketch's boid size); unset: 3.
        return float_key(c, sec, key, value, 0.0f, true, BOIDS_MAX_EXTENT, &w->margin);
    } else if (strcmp(key, "seed") == 0) {
        if ((p = boids_parse_uint(value, BOIDS_PARSE_TRIM | BOIDS_PARSE_HEX, 0, UINT64_MAX, &u))) {
            fail(c, c->line, sec, key, value, "an integer 0..18446744073709551615, decimal or 0x hex", "is %s", p);
            return 0;
        }
        w->seed_lo = (uint32_t)(u & 0xffffffffu);
        w->seed_hi = (uint32_t)(u >> 32);
    } else if (strcmp(key, "combine") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_combine_names);
        if (k < 0) {
            fail(c, c->line, sec, key, value, "sum, priority or truncated", "is not a combination mode");
            return 0;
        }
        w->combine = (uint32_t)k;
    } else if (strcmp(key, "wall_offset") == 0) {
        return float_key(c, sec, key, value, 0.0f, false, 3.4e38f, &w->wall_offset);
    } else if (strcmp(key, "wall_corner") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_wall_corner_names);
        if (k < 0) {
            fail(c, c->line, sec, key, value,
                 "both (steer away from every near wall) or book (the chapter's: the last near axis decides)",
                 "is not a wall-corner rule");
            return 0;
        }
        w->wall_corner = (uint32_t)k;
    } else if (strcmp(key, "grid_fine") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_grid_fine_names);
        if (k < 0) {
            fail(c, c->line, sec, key, value, "1, 2, 3, 4 (cells of reach / M) or auto (chosen from the density)",
                 "is not a grid fine factor");
            return 0;
        }
        w->grid_fine = boids_parse_grid_fine_word(k);
    } else if (strcmp(key, "distribution") == 0) {
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_distribution_names);
        if (k < 0) {
            fail(c, c->line, sec, key, value, "uniform or clustered", "is not a distribution");
            return 0;
        }
        c->sc.distribution = (uint32_t)k;
    } else {
        char e[400];
        expected_names(world_keys, key, e, sizeof e);
        if (!strstr(e, "did you mean"))
            for (size_t k = 0; group_keys[k]; k++)
                if (boids_parse_edit_distance(key, group_keys[k]) <= 2) {
                    size_t n = strlen(e);
                    snprintf(e + n, sizeof e - n, " ('%s' is a key of [group.NAME])", group_keys[k]);
                    break;
                }
        fail(c, c->line, sec, key, NULL, e, "is not a key of [world]");
        return 0;
    }
    return 1;
}

// The group of a name, created on its first section (at most 8).
static int group_index(parse_ctx *c, const char *name) {
    for (uint32_t g = 0; g < c->groups; g++)
        if (strcmp(c->sc.group_name[g], name) == 0)
            return (int)g;
    return -1;
}

// A "#rrggbb" colour into rgba.
static bool parse_color(const char *s, float out[4]) {
    char t[16];
    trim(s, t, sizeof t);
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

static int group_key(parse_ctx *c, const char *sec, uint32_t gi, const char *key, const char *value) {
    boids_group_params *g = &c->sc.params.group[gi];
    group_extra *x = &c->extra[gi];
    // Plain non-negative parameters: name, field, strictly positive.
    struct {
        const char *name;
        float *field;
        bool strict;
        float hi;
    } plain[] = {
        {"maxspeed", &g->maxspeed, true, 3.4e38f},
        {"maxforce", &g->maxforce, true, 3.4e38f},
        {"radius", &g->radius, true, 3.4e38f},
        {"separation", &g->separation, true, 3.4e38f},
        {"view_radius", &g->view_radius, true, 3.4e38f},
        {"alignment_radius", &g->alignment_radius, true, 3.4e38f},
        {"cohesion_radius", &g->cohesion_radius, true, 3.4e38f},
        {"predict", &g->predict, false, 3.4e38f},
        {"arrive_radius", &g->arrive_radius, false, 3.4e38f},
        {"wander_distance", &g->wander_distance, false, 3.4e38f},
        {"wander_radius", &g->wander_radius, false, 3.4e38f},
        {"wander_change", &g->wander_change, false, BOIDS_PI},
        {"path_predict", &g->path_predict, false, 3.4e38f},
        {"path_ahead", &g->path_ahead, false, 3.4e38f},
        {"avoid_distance", &g->avoid_distance, false, 3.4e38f},
        {"priority_threshold", &g->priority_threshold, false, 3.4e38f},
        {"max_turn", &g->max_turn, false, 3.4e38f},
        {"body_radius", &g->body_radius, false, 3.4e38f},
        {"turn", &g->turn, false, BOIDS_PI},
        {"repulse", &g->repulse, false, BOIDS_MAX_EXTENT},
        // The noise of the collective-motion models, one word: Vicsek's eta
        // (rules vicsek), Couzin's sigma (rules couzin); radians.
        {"eta", &g->noise, false, BOIDS_TWO_PI},
        {"sigma", &g->noise, false, BOIDS_PI},
        {"target_speed", &g->target_speed, false, 3.4e38f},
        {"queue_distance", &g->queue_distance, false, 3.4e38f},
        {"avoid_horizon", &g->avoid_horizon, false, 3.4e38f},
        {"hide_margin", &g->hide_margin, false, 3.4e38f},
        {"formation_spacing", &g->formation_spacing, false, BOIDS_MAX_EXTENT},
        {"leader_behind", &g->leader_behind, false, BOIDS_MAX_EXTENT},
        {"leader_sight", &g->leader_sight, false, BOIDS_MAX_EXTENT},
        {"feeler_length", &g->feeler_length, false, BOIDS_MAX_EXTENT},
        {"share", &c->sc.params.group_share[gi], true, 1e9f},
        {"body_length", &x->length, true, 3.4e38f},
    };
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++)
        if (strcmp(key, plain[k].name) == 0) {
            if (plain[k].field == &x->length)
                x->length_set = true;
            if (strcmp(key, "eta") == 0)
                x->eta_line = c->line;
            if (strcmp(key, "sigma") == 0)
                x->sigma_line = c->line;
            return float_key(c, sec, key, value, 0.0f, plain[k].strict, plain[k].hi, plain[k].field);
        }
    if (strcmp(key, "maxspeed_range") == 0 || strcmp(key, "maxforce_range") == 0) {
        float v[3];
        uint32_t n = 0;
        const char *p = parse_vector(value, 2, 2, v, &n);
        if (!p && !(v[0] > 0.0f))
            p = "has a LO that is not > 0";
        else if (!p && !(v[0] <= v[1]))
            p = "has a LO above its HI";
        if (p) {
            fail(c, c->line, sec, key, value, "LO, HI with 0 < LO <= HI (finite numbers)", "%s", p);
            return 0;
        }
        float *dst = strcmp(key, "maxspeed_range") == 0 ? &g->maxspeed_lo : &g->maxforce_lo;
        dst[0] = v[0];
        dst[1] = v[1];
        return 1;
    }
    if (strcmp(key, "fov") == 0 || strcmp(key, "view_fov") == 0) {
        float deg;
        const char *p = boids_parse_float(value, BOIDS_PARSE_TRIM, &deg);
        if (!p && !(deg > 0.0f && deg <= 360.0f))
            p = "out of range";
        if (p) {
            fail(c, c->line, sec, key, value, "degrees, 0 < fov <= 360", "is %s", p);
            return 0;
        }
        (key[0] == 'f' ? c->sc.fov_deg : c->sc.view_fov_deg)[gi] = deg;
        *(key[0] == 'f' ? &g->fov_cos : &g->view_cos) = boids_fov_cos(deg);
        return 1;
    }
    // A rule's own cone: separation_fov, alignment_fov, cohesion_fov.
    static const struct {
        const char *name;
        uint32_t bit;
    } cones[] = {{"separation_fov", BOIDS_CONE_SEPARATION},
                 {"alignment_fov", BOIDS_CONE_ALIGNMENT},
                 {"cohesion_fov", BOIDS_CONE_COHESION}};
    for (size_t k = 0; k < sizeof cones / sizeof cones[0]; k++) {
        if (strcmp(key, cones[k].name) != 0)
            continue;
        float deg;
        const char *p = boids_parse_float(value, BOIDS_PARSE_TRIM, &deg);
        if (!p && !(deg > 0.0f && deg <= 360.0f))
            p = "out of range";
        if (p) {
            fail(c, c->line, sec, key, value, "degrees, 0 < fov <= 360", "is %s", p);
            return 0;
        }
        float *dst = cones[k].bit == BOIDS_CONE_SEPARATION  ? &g->separation_fov_cos
                     : cones[k].bit == BOIDS_CONE_ALIGNMENT ? &g->alignment_fov_cos
                                                            : &g->cohesion_fov_cos;
        *dst = boids_fov_cos(deg);
        g->own_cones |= cones[k].bit;
        return 1;
    }
    // Named agents: an id (below the world's count, checked with the
    // params) or "target"; interpose names two.
    if (strcmp(key, "leader") == 0 || strcmp(key, "interpose") == 0) {
        bool two = key[0] == 'i';
        uint32_t ids[2] = {0, 0};
        const char *p = boids_parse_agents(value, two ? 2u : 1u, ids);
        if (p) {
            fail(c, c->line, sec, key, value,
                 two ? "A, B: each an agent id 0..16777215 or target" : "an agent id 0..16777215 or target", "is %s",
                 p);
            return 0;
        }
        if (two) {
            g->interpose_a = ids[0];
            g->interpose_b = ids[1];
        } else {
            g->leader = ids[0];
        }
        return 1;
    }
    // The keys that name one of a list: the index into a uint of the group.
    static const struct {
        const char *key;
        const char *const *names;
        size_t field;
        const char *expected, *problem;
    } picks[] = {{"formation", boids_parse_formation_names, offsetof(boids_group_params, formation),
                  "none, line, column, v or ring", "is not a formation"},
                 {"rules", boids_parse_rules_names, offsetof(boids_group_params, rules),
                  "chapter, tutorial, heading, circles, vicsek or couzin", "is not a rule set"}};
    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) {
        if (strcmp(key, picks[k].key) != 0)
            continue;
        int i = boids_parse_pick(value, BOIDS_PARSE_TRIM, picks[k].names);
        if (i < 0) {
            fail(c, c->line, sec, key, value, picks[k].expected, "%s", picks[k].problem);
            return 0;
        }
        uint32_t u = (uint32_t)i;
        memcpy((char *)g + picks[k].field, &u, sizeof u);
        return 1;
    }
    if (strcmp(key, "leader_offset") == 0) {
        float v[3] = {0, 0, 0};
        uint32_t n = 0;
        const char *p = parse_vector(value, 2, 3, v, &n);
        for (uint32_t a = 0; !p && a < 3; a++)
            if (!(fabsf(v[a]) <= BOIDS_MAX_EXTENT))
                p = "is out of range";
        if (p) {
            fail(c, c->line, sec, key, value, "AHEAD, LEFT[, UP] in the leader's frame, each -1e9..1e9", "%s", p);
            return 0;
        }
        memcpy(g->leader_offset, v, sizeof v);
        return 1;
    }
    if (strcmp(key, "behaviors") == 0) {
        char problem[200];
        if (!boids_parse_behaviors(value, BOIDS_PARSE_TRIM, &g->behaviors, problem, sizeof problem)) {
            char e[460];
            fail(c, c->line, sec, key, value, behavior_list(e, sizeof e), "%s", problem);
            return 0;
        }
        return 1;
    }
    if (strncmp(key, "weight.", 7) == 0 || strncmp(key, "vary.", 5) == 0) {
        bool vary = key[0] == 'v';
        const char *name = key + (vary ? 5 : 7);
        int b = boids_behavior_index(name);
        if (b < 0) {
            char e[460];
            fail(c, c->line, sec, key, NULL, behavior_list(e, sizeof e), "names an unknown behaviour '%s'", name);
            return 0;
        }
        if (!vary) {
            float wgt;
            const char *p = boids_parse_float(value, BOIDS_PARSE_TRIM, &wgt);
            if (!p && !(fabsf(wgt) <= BOIDS_MAX_WEIGHT))
                p = "out of range";
            if (p) {
                fail(c, c->line, sec, key, value, "a weight -1e6..1e6", "is %s", p);
                return 0;
            }
            *boids_weight_ref(g, b) = wgt;
            return 1;
        }
        float v[3];
        uint32_t n = 0;
        const char *p = parse_vector(value, 3, 3, v, &n);
        if (!p && !(fabsf(v[0]) <= BOIDS_MAX_WEIGHT && fabsf(v[1]) <= BOIDS_MAX_WEIGHT &&
                    v[2] >= BOIDS_SCENARIO_MIN_PERIOD && v[2] <= BOIDS_SCENARIO_MAX_PERIOD))
            p = "is out of range";
        if (!p && c->sc.vary_count == BOIDS_SCENARIO_MAX_VARY)
            p = "is one varying weight too many (at most 32)";
        if (p) {
            fail(c, c->line, sec, key, value, "MIN, MAX, PERIOD (weights -1e6..1e6, a period of 1..1e9 steps)", "%s",
                 p);
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
    if (strcmp(key, "body") == 0) {
        char t[32];
        int s = boids_body_style_index(trim(value, t, sizeof t));
        if (s < 0) {
            fail(c, c->line, sec, key, value, "none, chain, snake or fish", "is not a body style");
            return 0;
        }
        x->style = (uint32_t)s;
        x->body_line = c->line;
        return 1;
    }
    if (strcmp(key, "neighbors_max") == 0) { // topological neighbourhood: the K nearest (0 = every neighbour)
        uint64_t u;
        const char *p = boids_parse_uint(value, BOIDS_PARSE_TRIM, 0, BOIDS_MAX_NEIGHBORS_K, &u);
        if (p) {
            fail(c, c->line, sec, key, value, "an integer 0..32 (0 = every neighbour)", "is %s", p);
            return 0;
        }
        g->neighbors_max = (uint32_t)u;
        return 1;
    }
    if (strcmp(key, "joints") == 0) {
        uint64_t u;
        const char *p = boids_parse_uint(value, BOIDS_PARSE_TRIM, BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS, &u);
        if (p) {
            fail(c, c->line, sec, key, value, "an integer 2..32", "is %s", p);
            return 0;
        }
        x->joints = (uint32_t)u;
        return 1;
    }
    if (strcmp(key, "glyph") == 0) {
        int s = boids_parse_pick(value, BOIDS_PARSE_TRIM, boids_parse_glyph_names);
        if (s < 0) {
            fail(c, c->line, sec, key, value, "default, arrow, wedge or dot", "is not a glyph");
            return 0;
        }
        c->sc.glyph[gi] = (uint32_t)s;
        return 1;
    }
    if (strcmp(key, "glyph_size") == 0) // a factor of the drawn agent length; 0: the default
        return float_key(c, sec, key, value, 0.0f, false, BOIDS_GLYPH_SIZE_MAX, &c->sc.glyph_size[gi]);
    if (strcmp(key, "color") == 0) {
        if (!parse_color(value, c->sc.color[gi])) {
            fail(c, c->line, sec, key, value, "#rrggbb (hexadecimal)", "is not a colour");
            return 0;
        }
        c->sc.color_set[gi] = true;
        return 1;
    }
    char e[900];
    expected_names(group_keys, key, e, sizeof e);
    fail(c, c->line, sec, key, NULL, e, "is not a key of a group");
    return 0;
}

static int relation_key(parse_ctx *c, const char *key, const char *value) {
    static const char *const names[] = {"flock", "ignore", "flee", "pursue", NULL};
    const char *dot = strchr(key, '.');
    if (!dot || dot == key || !dot[1] || strchr(dot + 1, '.') || (size_t)(dot - key) >= BOIDS_SCENARIO_NAME ||
        strlen(dot + 1) >= BOIDS_SCENARIO_NAME) {
        fail(c, c->line, "relation", key, NULL, "GROUP.OTHER = flock|ignore|flee|pursue", "is not GROUP.OTHER");
        return 0;
    }
    int r = boids_parse_pick(value, BOIDS_PARSE_TRIM, names);
    if (r < 0) {
        fail(c, c->line, "relation", key, value, "flock, ignore, flee or pursue", "is not a relation");
        return 0;
    }
    if (c->n_rel == MAX_RELATIONS) {
        fail(c, c->line, "relation", key, NULL, "at most 64 relations", "is one relation too many");
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

// The keys of [obstacle], a bit each.
enum { OBSTACLE_CENTER = 1, OBSTACLE_RADIUS = 2 };

// Closes the obstacle being read (both keys given?).
static bool close_obstacle(parse_ctx *c) {
    if (c->obstacle.section < 0)
        return true;
    if (c->obstacle.keys != (OBSTACLE_CENTER | OBSTACLE_RADIUS)) {
        fail(c, c->obstacle.line, "obstacle", NULL, NULL, "both center = x, y[, z] and radius = R", "has no %s",
             (c->obstacle.keys & OBSTACLE_CENTER) ? "radius" : "center");
        return false;
    }
    c->obstacle.section = -1;
    return true;
}

// At the first key of a repeated section's item: closes the item before
// (close), then opens this one as item *count (zeroed rows `rows` of
// `row_bytes`), at most max. false on an error (said).
static bool open_item(parse_ctx *c, section_item *it, bool (*close)(parse_ctx *), uint32_t *count, uint32_t max,
                      const char *sec, void *rows, size_t row_bytes) {
    if (it->section == c->section_index)
        return true;
    if (!close(c))
        return false;
    if (*count == max) {
        char e[64];
        snprintf(e, sizeof e, "at most %u %ss", max, sec);
        fail(c, c->line, sec, NULL, NULL, e, "is one %s too many", sec);
        return false;
    }
    it->section = c->section_index;
    it->keys = 0;
    it->line = c->line;
    memset((char *)rows + (size_t)*count * row_bytes, 0, row_bytes);
    (*count)++;
    return true;
}

// [wall]: a segment (from, to; 2D) or a plane (point, normal; a line in 2D).
enum { WALL_FROM = 1, WALL_TO = 2, WALL_POINT = 4, WALL_NORMAL = 8 };

// Closes the wall being read (both keys of one kind given?).
static bool close_wall(parse_ctx *c) {
    if (c->wall.section < 0)
        return true;
    unsigned k = c->wall.keys;
    if (k != (WALL_FROM | WALL_TO) && k != (WALL_POINT | WALL_NORMAL)) {
        fail(c, c->wall.line, "wall", NULL, NULL,
             "from = x, y and to = x, y (a segment), or point and normal (a plane)", "has %s",
             (k & (WALL_FROM | WALL_TO)) && (k & (WALL_POINT | WALL_NORMAL)) ? "keys of both kinds"
                                                                             : "one key of its two");
        return false;
    }
    c->wall.section = -1;
    return true;
}

static int wall_key(parse_ctx *c, const char *key, const char *value) {
    boids_scene *s = &c->sc.params.scene;
    if (!open_item(c, &c->wall, close_wall, &s->wall_count, BOIDS_MAX_WALLS, "wall", s->wall, sizeof(float[2][4])))
        return 0;
    static const char *const keys[] = {"from", "to", "point", "normal", NULL};
    int k = boids_parse_pick(key, 0, keys);
    if (k < 0) {
        char e[200];
        expected_names(keys, key, e, sizeof e);
        fail(c, c->line, "wall", key, NULL, e, "is not a key of [wall]");
        return 0;
    }
    float *row = s->wall[2 * (s->wall_count - 1) + (k & 1)];
    float v[3];
    if (!vector_key(c, "wall", key, value, v, NULL))
        return 0;
    for (int a = 0; a < 3; a++)
        if (!(fabsf(v[a]) <= BOIDS_MAX_EXTENT)) {
            fail(c, c->line, "wall", key, value, "x, y[, z], each -1e9..1e9", "is out of range");
            return 0;
        }
    if (k == 3 && v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f) {
        fail(c, c->line, "wall", key, value, "a normal that is not 0, 0, 0", "is the zero vector");
        return 0;
    }
    memcpy(row, v, sizeof v);
    c->wall.keys |= 1u << k;
    s->wall[2 * (s->wall_count - 1)][3] = k < 2 ? BOIDS_WALL_SEGMENT : BOIDS_WALL_PLANE;
    return 1;
}

static int obstacle_key(parse_ctx *c, const char *key, const char *value) {
    boids_scene *s = &c->sc.params.scene;
    if (!open_item(c, &c->obstacle, close_obstacle, &s->obstacle_count, BOIDS_MAX_OBSTACLES, "obstacle", s->obstacle,
                   sizeof(float[4])))
        return 0;
    float *o = s->obstacle[s->obstacle_count - 1];
    if (strcmp(key, "center") == 0) {
        c->obstacle.keys |= OBSTACLE_CENTER;
        return vector_key(c, "obstacle", key, value, o, NULL);
    }
    if (strcmp(key, "radius") == 0) {
        c->obstacle.keys |= OBSTACLE_RADIUS;
        return float_key(c, "obstacle", key, value, 0.0f, true, 3.4e38f, &o[3]);
    }
    static const char *const keys[] = {"center", "radius", NULL};
    char e[200];
    expected_names(keys, key, e, sizeof e);
    fail(c, c->line, "obstacle", key, NULL, e, "is not a key of [obstacle]");
    return 0;
}

static int path_key(parse_ctx *c, const char *key, const char *value) {
    boids_scene *s = &c->sc.params.scene;
    if (!c->path_line)
        c->path_line = c->line;
    if (strcmp(key, "point") == 0) {
        if (s->path_count == BOIDS_MAX_PATH_POINTS) {
            fail(c, c->line, "path", key, value, "at most 32 points", "is one point too many");
            return 0;
        }
        s->path_count++;
        return vector_key(c, "path", key, value, s->path[s->path_count - 1], NULL);
    }
    if (strcmp(key, "radius") == 0)
        return float_key(c, "path", key, value, 0.0f, true, 3.4e38f, &s->path_radius);
    // The keys that are one bit of path_flags: the second name sets it.
    static const char *const booleans[] = {"false", "true", NULL};
    static const struct {
        const char *key;
        const char *const *names;
        const char *expected, *problem;
        uint32_t bit;
    } flags[] = {
        {"closed", booleans, "true or false", "is not a boolean", BOIDS_PATH_CLOSED},
        {"outside", boids_parse_path_outside_names, "clamp or end", "is not a rule outside a segment",
         BOIDS_PATH_OUTSIDE_END},
        {"line", boids_parse_path_line_names, "segment or infinite", "is not a kind of line", BOIDS_PATH_LINE_INFINITE},
    };
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        if (strcmp(key, flags[k].key) != 0)
            continue;
        int b = boids_parse_pick(value, BOIDS_PARSE_TRIM, flags[k].names);
        if (b < 0) {
            fail(c, c->line, "path", key, value, flags[k].expected, "%s", flags[k].problem);
            return 0;
        }
        s->path_flags = b == 1 ? s->path_flags | flags[k].bit : s->path_flags & ~flags[k].bit;
        return 1;
    }
    static const char *const keys[] = {"point", "radius", "closed", "outside", "line", NULL};
    char e[200];
    expected_names(keys, key, e, sizeof e);
    fail(c, c->line, "path", key, NULL, e, "is not a key of [path]");
    return 0;
}

// A path relative to the scenario file's directory (absolute paths as they are).
static void relative_to(const char *file, const char *rel, char *out, size_t size) {
    const char *slash = strrchr(file, '/');
    if (rel[0] == '/' || !slash)
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%.*s/%s", (int)(slash - file), file, rel);
}

static int flow_key(parse_ctx *c, const char *key, const char *value) {
    boids_flowfield *f = &c->sc.params.flow;
    if (!c->flow_line)
        c->flow_line = c->line;
    if (strcmp(key, "kind") == 0) {
        static const char *const names[] = {"noise", "swirl", "uniform", "image", NULL};
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, names);
        if (k < 0) {
            fail(c, c->line, "flowfield", key, value, "noise, swirl, uniform or image", "is not a flow-field kind");
            return 0;
        }
        f->kind = (uint32_t)k;
        return 1;
    }
    if (strcmp(key, "image") == 0) {
        char t[400];
        trim(value, t, sizeof t);
        char rel[sizeof f->image];
        relative_to(c->name, t, rel, sizeof rel);
        struct stat st;
        if (!t[0] || stat(rel, &st) != 0 || !S_ISREG(st.st_mode)) {
            fail(c, c->line, "flowfield", key, value, "a PNG file (relative to the scenario file)", "is not a file");
            return 0;
        }
        char why[256];
        if (boids_flowfield_check_image(rel, why, sizeof why) != BOIDS_OK) {
            fail(c, c->line, "flowfield", key, value, "a PNG file (relative to the scenario file)", "%s", why);
            return 0;
        }
        // Kept absolute, so a dump written elsewhere still finds it.
        char *abs = realpath(rel, NULL);
        snprintf(f->image, sizeof f->image, "%.500s", abs ? abs : rel);
        free(abs);
        c->image_line = c->line;
        return 1;
    }
    if (strcmp(key, "resolution") == 0)
        return float_key(c, "flowfield", key, value, 0.0f, true, 3.4e38f, &f->resolution);
    if (strcmp(key, "noise_scale") == 0)
        return float_key(c, "flowfield", key, value, 0.0f, true, 3.4e38f, &f->noise_scale);
    if (strcmp(key, "seed") == 0) {
        uint64_t u;
        const char *p = boids_parse_uint(value, BOIDS_PARSE_TRIM, 0, 255, &u);
        if (p) {
            fail(c, c->line, "flowfield", key, value, "an integer 0..255", "is %s", p);
            return 0;
        }
        f->noise_seed = (uint32_t)u;
        return 1;
    }
    if (strcmp(key, "direction") == 0)
        return vector_key(c, "flowfield", key, value, f->direction, NULL);
    static const char *const keys[] = {"kind", "image", "resolution", "noise_scale", "seed", "direction", NULL};
    char e[200];
    expected_names(keys, key, e, sizeof e);
    fail(c, c->line, "flowfield", key, NULL, e, "is not a key of [flowfield]");
    return 0;
}

static int target_key(parse_ctx *c, const char *key, const char *value) {
    boids_scenario *sc = &c->sc;
    if (strcmp(key, "mode") == 0) {
        static const char *const names[] = {"fixed", "mouse", "circle", "line", NULL};
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, names);
        if (k < 0) {
            fail(c, c->line, "target", key, value, "fixed, mouse, circle or line", "is not a target mode");
            return 0;
        }
        sc->target_mode = (boids_target_mode)k;
        return 1;
    }
    if (strcmp(key, "position") == 0) {
        c->sc.target_position_set = true;
        return vector_key(c, "target", key, value, sc->params.world.target_pos, NULL);
    }
    if (strcmp(key, "center") == 0) {
        c->sc.target_center_set = true;
        return vector_key(c, "target", key, value, sc->target_center, NULL);
    }
    if (strcmp(key, "radius") == 0) {
        c->sc.target_radius_set = true;
        return float_key(c, "target", key, value, 0.0f, true, BOIDS_SCENARIO_MAX_RADIUS, &sc->target_radius);
    }
    if (strcmp(key, "period") == 0)
        return float_key(c, "target", key, value, BOIDS_SCENARIO_MIN_PERIOD, false, BOIDS_SCENARIO_MAX_PERIOD,
                         &sc->target_period);
    if (strcmp(key, "velocity") == 0) {
        float v[3] = {0, 0, 0};
        if (!vector_key(c, "target", key, value, v, NULL))
            return 0;
        for (int a = 0; a < 3; a++)
            if (!(fabsf(v[a]) <= BOIDS_SCENARIO_MAX_TARGET_SPEED)) {
                fail(c, c->line, "target", key, value, "VX, VY[, VZ] in units per step, each -1e7..1e7",
                     "is out of range");
                return 0;
            }
        memcpy(sc->target_velocity, v, sizeof v);
        return 1;
    }
    static const char *const keys[] = {"mode", "position", "center", "radius", "period", "velocity", NULL};
    char e[200];
    expected_names(keys, key, e, sizeof e);
    fail(c, c->line, "target", key, NULL, e, "is not a key of [target]");
    return 0;
}

static const char *const section_names[] = {"scenario", "world", "group.NAME", "relation", "obstacle",
                                            "path",     "wall",  "flowfield",  "target",   NULL};

// The group of a "group.NAME" section, created on first sight; -1 (and the
// error recorded) for a bad name or a ninth group.
static int register_group(parse_ctx *c, const char *section) {
    const char *name = section + 6;
    bool ok = name[0] && strlen(name) < BOIDS_SCENARIO_NAME;
    for (const char *p = name; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_' || *p == '-';
    if (!ok) {
        fail(c, c->line, NULL, NULL, section, "[group.NAME] with NAME of letters, digits, _ or - (up to 31)",
             "is not a group section");
        return -1;
    }
    int g = group_index(c, name);
    if (g >= 0)
        return g;
    if (c->groups == BOIDS_MAX_GROUPS) {
        fail(c, c->line, section, NULL, NULL, "at most 8 groups", "is one group too many");
        return -1;
    }
    g = (int)c->groups++;
    snprintf(c->sc.group_name[g], BOIDS_SCENARIO_NAME, "%s", name);
    return g;
}

// inih's callback: one key of one section.
static int on_key(void *user, const char *section, const char *key, const char *value) {
    parse_ctx *c = user;
    if (c->failed)
        return 0;
    if (c->reading_file) { // a key twice in one section
        if (c->keys_of != c->section_index) {
            c->keys_of = c->section_index;
            c->n_keys = 0;
        }
        bool repeats = strcmp(section, "path") == 0 && strcmp(key, "point") == 0;
        for (int k = 0; k < c->n_keys && !repeats; k++)
            if (strcmp(c->keys[k].key, key) == 0) {
                fail(c, c->line, section, key, NULL, "each key once in a section", "is given twice (first on line %d)",
                     c->keys[k].line);
                return 0;
            }
        if (!repeats && c->n_keys < (int)(sizeof c->keys / sizeof c->keys[0])) {
            snprintf(c->keys[c->n_keys].key, sizeof c->keys[0].key, "%s", key);
            c->keys[c->n_keys++].line = c->line;
        }
    }
    if (strcmp(section, "obstacle") != 0 && c->obstacle.section >= 0 && !close_obstacle(c))
        return 0;
    if (strcmp(section, "wall") != 0 && c->wall.section >= 0 && !close_wall(c))
        return 0;
    if (strcmp(section, "scenario") == 0) {
        char *dst = strcmp(key, "title") == 0 ? c->sc.title : strcmp(key, "example") == 0 ? c->sc.example : NULL;
        if (!dst) {
            fail(c, c->line, section, key, NULL, "title or example", "is not a key of [scenario]");
            return 0;
        }
        // At most what boids_scenario_write's "example = TEXT" line can hold
        // within the reader's 198 characters (a dump must load back).
        char t[400];
        trim(value, t, sizeof t);
        if (strlen(t) > BOIDS_SCENARIO_TEXT_MAX) {
            fail(c, c->line, section, key, NULL, "at most 188 characters", "is %zu characters long", strlen(t));
            return 0;
        }
        snprintf(dst, sizeof c->sc.title, "%s", t);
        return 1;
    }
    if (strcmp(section, "world") == 0)
        return world_key(c, key, value);
    if (strncmp(section, "group.", 6) == 0) {
        int g = register_group(c, section);
        return g < 0 ? 0 : group_key(c, section, (uint32_t)g, key, value);
    }
    if (strcmp(section, "relation") == 0)
        return relation_key(c, key, value);
    if (strcmp(section, "obstacle") == 0)
        return obstacle_key(c, key, value);
    if (strcmp(section, "path") == 0)
        return path_key(c, key, value);
    if (strcmp(section, "wall") == 0)
        return wall_key(c, key, value);
    if (strcmp(section, "flowfield") == 0)
        return flow_key(c, key, value);
    if (strcmp(section, "target") == 0)
        return target_key(c, key, value);
    char e[300];
    expected_names(section_names, strncmp(section, "group", 5) == 0 ? "group.NAME" : section, e, sizeof e);
    fail(c, c->line, NULL, NULL, section, e, "is not a section");
    return 0;
}

// inih's line reader: counts lines, notes section headers, refuses long lines.
static char *read_line(char *str, int num, void *stream) {
    parse_ctx *c = stream;
    char *got = NULL;
    if (c->file) {
        got = fgets(str, num, c->file);
    } else if (*c->text) {
        size_t n = strcspn(c->text, "\n");
        size_t take = n + (c->text[n] == '\n');
        if (take > (size_t)num - 1)
            take = (size_t)num - 1;
        memcpy(str, c->text, take);
        str[take] = '\0';
        c->text += take;
        got = str;
    }
    if (!got)
        return NULL;
    size_t len = strlen(str);
    bool whole = len > 0 && str[len - 1] == '\n';
    bool at_end = c->file ? feof(c->file) != 0 : *c->text == '\0';
    if (!whole && !at_end) {
        c->line++;
        fail(c, c->line, NULL, NULL, NULL, "lines of at most 198 characters", "the line is too long");
        // Swallow the rest of the line.
        if (c->file) {
            int ch;
            while ((ch = fgetc(c->file)) != EOF && ch != '\n') {
            }
        } else {
            c->text += strcspn(c->text, "\n");
            if (*c->text)
                c->text++;
        }
        str[0] = '\n';
        str[1] = '\0';
        return str;
    }
    c->line++;
    const char *p = str;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '[') {
        c->section_index++;
        // A group exists from its header on, keys or not (inih reports keys only).
        // Sections are checked at their header (inih reports keys only, so an
        // empty section would pass unseen); a group exists from its header on.
        const char *end = strchr(p, ']');
        if (end) {
            char section[64], name[64];
            snprintf(section, sizeof section, "%.*s", (int)(end - p - 1), p + 1);
            trim(section, name, sizeof name);
            // A section twice (but the items [obstacle] and [wall]): its keys would mix or override.
            if (strcmp(name, "obstacle") != 0 && strcmp(name, "wall") != 0) {
                for (int k = 0; k < c->n_sections; k++)
                    if (strcmp(c->sections[k].name, name) == 0 && !c->failed) {
                        char what[80];
                        snprintf(what, sizeof what, "[%s]", name);
                        fail(c, c->line, NULL, NULL, what, "each section once", "is given twice (first on line %d)",
                             c->sections[k].line);
                    }
                if (c->n_sections < (int)(sizeof c->sections / sizeof c->sections[0])) {
                    snprintf(c->sections[c->n_sections].name, sizeof c->sections[0].name, "%s", name);
                    c->sections[c->n_sections++].line = c->line;
                }
            }
            if (strncmp(name, "group.", 6) == 0) {
                register_group(c, name);
            } else if (boids_parse_pick(name, BOIDS_PARSE_TRIM, section_names) < 0 || strcmp(name, "group.NAME") == 0) {
                char e[300];
                expected_names(section_names, strncmp(name, "group", 5) == 0 ? "group.NAME" : name, e, sizeof e);
                fail(c, c->line, NULL, NULL, name, e, "is not a section");
            }
        }
    }
    return str;
}

// After the last line: groups, relations, bodies, world, and a finalize check.
static void finish(parse_ctx *c) {
    boids_scenario *sc = &c->sc;
    boids_params *p = &sc->params;
    if (!close_obstacle(c) || !close_wall(c))
        return;
    if (c->groups == 0)
        c->groups = 1; // "default", as boids_scenario_default named it
    p->world.group_count = c->groups;
    for (uint32_t k = 0; k < c->n_rel; k++) {
        const relation_entry *e = &c->rel[k];
        int a = group_index(c, e->a), b = group_index(c, e->b);
        if (a < 0 || b < 0) {
            char names[300] = "";
            size_t n = 0;
            for (uint32_t g = 0; g < c->groups && n < sizeof names; g++)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", g ? ", " : "", sc->group_name[g]);
            char key[80], expected[400];
            snprintf(key, sizeof key, "%s.%s", e->a, e->b);
            snprintf(expected, sizeof expected, "groups of this file: %s", names);
            c->name = e->source; // an override's problem names the plan and its line
            fail(c, e->line, "relation", key, NULL, expected, "names an unknown group '%s'", a < 0 ? e->a : e->b);
            return;
        }
        uint32_t shift = BOIDS_REL_BITS * (uint32_t)b;
        p->group[a].relations = (p->group[a].relations & ~(BOIDS_REL_MASK << shift)) | (e->rel << shift);
    }
    if (p->flow.kind == BOIDS_FLOW_IMAGE && !c->image_line) {
        fail(c, c->flow_line, "flowfield", "kind", "image", "image = FILE.png with kind = image", "needs an image");
        return;
    }
    if (p->scene.path_count == 1) {
        fail(c, c->path_line, "path", "point", NULL, "2 to 32 points", "a path with fewer than 2 points");
        return;
    }
    // World: dimensions from the size when dim is not given.
    if (c->size_n == 3 && !sc->dim_set)
        p->world.dim = 3;
    if (c->size_n && c->size_n != p->world.dim) {
        fail(c, c->size_line, "world", "size", NULL, p->world.dim == 2 ? "WIDTHxHEIGHT for dim 2" : "WxHxD for dim 3",
             "has %u extents, the world %u dimensions", c->size_n, p->world.dim);
        return;
    }
    for (uint32_t a = 0; a < 3; a++) {
        if (sc->size_set)
            p->world.size[a] = a < p->world.dim ? c->size[a] : 0.0f;
        if (sc->origin_set)
            p->world.min[a] = a < p->world.dim ? c->origin[a] : 0.0f;
    }
    if (!sc->size_set)
        boids_scenario_size_world(sc, p);
    // The noise word by its rule set's name: eta is Vicsek's, sigma Couzin's.
    for (uint32_t g = 0; g < c->groups; g++) {
        const group_extra *x = &c->extra[g];
        uint32_t rules = p->group[g].rules;
        bool bad_eta = x->eta_line && rules != BOIDS_RULES_VICSEK,
             bad_sigma = x->sigma_line && rules != BOIDS_RULES_COUZIN;
        if (bad_eta || bad_sigma) {
            char sec[48];
            snprintf(sec, sizeof sec, "group.%s", sc->group_name[g]);
            fail(c, bad_eta ? x->eta_line : x->sigma_line, sec, bad_eta ? "eta" : "sigma", NULL,
                 bad_eta ? "eta with rules = vicsek" : "sigma with rules = couzin", "is given to a group of rules %s",
                 rules < BOIDS_RULES_COUNT ? boids_parse_rules_names[rules] : "?");
            return;
        }
    }
    // Bodies.
    for (uint32_t g = 0; g < c->groups; g++) {
        group_extra *x = &c->extra[g];
        if (x->style == BOIDS_BODY_NONE)
            continue;
        float length = x->length_set ? x->length : 1.2f * p->group[g].separation;
        char what[200];
        if (boids_body_make(&p->body[g], x->style, x->joints, length, what, sizeof what) != BOIDS_OK) {
            char sec[48];
            snprintf(sec, sizeof sec, "group.%s", sc->group_name[g]);
            fail(c, x->body_line, sec, "body", NULL, "a body that fits (see docs/SCENARIOS.md)", "%s", what);
            return;
        }
        sc->body_length[g] = length;
    }
    // The target: the world's centre unless given; the circle's defaults.
    float centre[3];
    for (uint32_t a = 0; a < 3; a++)
        centre[a] = p->world.min[a] + 0.5f * p->world.size[a];
    if (!c->sc.target_position_set)
        memcpy(p->world.target_pos, centre, sizeof centre);
    if (!c->sc.target_center_set)
        memcpy(sc->target_center, centre, sizeof centre);
    if (!c->sc.target_radius_set)
        sc->target_radius = boids_scenario_default_target_radius(&p->world);
    if (p->world.dim == 2) {
        p->world.target_pos[2] = sc->target_center[2] = sc->target_velocity[2] = 0.0f;
        for (uint32_t k = 0; k < p->scene.obstacle_count; k++)
            p->scene.obstacle[k][2] = 0.0f;
        for (uint32_t k = 0; k < p->scene.path_count; k++)
            p->scene.path[k][2] = 0.0f;
    }
    // The line target starts at the position, inside the world.
    memcpy(sc->target_start, p->world.target_pos, sizeof sc->target_start);
    for (uint32_t a = 0; sc->target_mode == BOIDS_TARGET_LINE && a < p->world.dim; a++) {
        float lo = p->world.min[a], hi = p->world.min[a] + p->world.size[a], at = sc->target_start[a];
        if (!(at >= lo && at <= hi)) {
            char expected[120];
            snprintf(expected, sizeof expected, "a position inside the world (%c in %g..%g) for mode = line", "xyz"[a],
                     (double)lo, (double)hi);
            fail(c, 0, "target", "position", NULL, expected, "is outside the world on axis %c (%g)", "xyz"[a],
                 (double)at);
            return;
        }
    }
    boids_scenario_at_step(sc, 0, p);
    // Everything the library checks (radius against the world, bodies, ...).
    boids_params q = *p;
    char what[300] = "";
    boids_result r = boids_params_finalize(&q, what, sizeof what);
    unsigned gi = 0;
    if (r == BOIDS_ERR_BODY && sscanf(what, "body of group %u", &gi) == 1 && gi < c->groups && c->extra[gi].body_line) {
        char sec[48];
        snprintf(sec, sizeof sec, "group.%s", sc->group_name[gi]);
        fail(c, c->extra[gi].body_line, sec, "body", NULL, NULL, "is rejected: %s", what);
    } else if (r != BOIDS_OK) {
        fail(c, 0, NULL, NULL, NULL, NULL, "the scenario is rejected: %s", what[0] ? what : boids_result_str(r));
    }
}

// The defaults (see scenario.h).
void boids_scenario_default(boids_scenario *sc) {
    if (!sc)
        return;
    memset(sc, 0, sizeof *sc);
    boids_params_default(&sc->params, 1000, 2);
    snprintf(sc->group_name[0], BOIDS_SCENARIO_NAME, "default");
    // Fields of view by their degrees (360 and Flake's 60), so they write back exactly.
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        sc->fov_deg[g] = 360.0f;
        sc->view_fov_deg[g] = 60.0f;
        sc->params.group[g].view_cos = boids_fov_cos(60.0f);
    }
    sc->target_mode = BOIDS_TARGET_FIXED;
    sc->target_period = 600.0f;
}

// The overrides of c, each as a key of its section after the file's last
// line: the same handler, so a value is checked exactly as in a file. A
// problem names the override's source and line; the file's name comes back
// for finish (whose checks are of the whole scenario).
static void apply_overrides(parse_ctx *c) {
    const char *file = c->name;
    for (uint32_t k = 0; k < c->n_ov && !c->failed; k++) {
        const boids_scenario_override *o = &c->ov[k];
        c->name = o->source ? o->source : "override";
        c->line = o->line;
        char section[64], key[64];
        const char *dot = strchr(o->key, '.');
        bool group = strncmp(o->key, "group.", 6) == 0;
        if (group && dot)
            dot = strchr(dot + 1, '.');
        if (!dot || (size_t)(dot - o->key) >= sizeof section || strlen(dot + 1) >= sizeof key || !dot[1]) {
            fail(c, c->line, NULL, NULL, o->key,
                 "SECTION.KEY: world.KEY, group.NAME.KEY, group.*.KEY, target.KEY, flowfield.KEY or relation.A.B",
                 "is not a key of a scenario");
            c->key_failed = true;
            break;
        }
        snprintf(section, sizeof section, "%.*s", (int)(dot - o->key), o->key);
        snprintf(key, sizeof key, "%s", dot + 1);
        static const char *const sweepable[] = {"world", "target", "flowfield", "relation", NULL};
        if (group) {
            const char *name = section + 6;
            bool all = strcmp(name, "*") == 0;
            if (c->groups == 0)
                c->groups = 1; // a file without [group.NAME] has the one group "default" (as finish names it)
            if (!all && group_index(c, name) < 0) {
                char names[300] = "", expected[340];
                size_t n = 0;
                for (uint32_t g = 0; g < c->groups && n < sizeof names; g++)
                    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", g ? ", " : "", c->sc.group_name[g]);
                snprintf(expected, sizeof expected, "a group of %s (%s) or *", file, names);
                fail(c, c->line, NULL, NULL, o->key, expected, "names an unknown group '%s'", name);
                c->key_failed = true;
                break;
            }
            for (uint32_t g = 0; g < c->groups && !c->failed; g++) {
                if (!all && strcmp(c->sc.group_name[g], name) != 0)
                    continue;
                char sec[48];
                snprintf(sec, sizeof sec, "group.%s", c->sc.group_name[g]);
                group_key(c, sec, g, key, o->value);
            }
        } else if (boids_parse_pick(section, 0, sweepable) >= 0) {
            on_key(c, section, key, o->value);
        } else {
            fail(c, c->line, NULL, NULL, o->key,
                 "world.KEY, group.NAME.KEY, group.*.KEY, target.KEY, flowfield.KEY or relation.A.B",
                 "names a section that cannot be overridden ([%s])", section);
            c->key_failed = true;
        }
    }
    c->name = file;
}

// Parses from the file or string set in c.
static boids_result parse(parse_ctx *c, boids_scenario *out, char *err, size_t err_size) {
    boids_scenario_default(&c->sc);
    snprintf(c->sc.path, sizeof c->sc.path, "%s", c->name);
    c->obstacle.section = -1;
    c->wall.section = -1;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        c->extra[g].joints = 12;
    c->reading_file = true;
    c->keys_of = -1;
    int r = ini_parse_stream(read_line, c, on_key, c);
    c->reading_file = false;
    if (r > 0 && !c->failed)
        fail(c, r, NULL, NULL, NULL, "[section] or key = value lines (comments start with # or ;)",
             "the line is not a section, a key = value or a comment");
    if (r < 0 && !c->failed)
        fail(c, 0, NULL, NULL, NULL, NULL, "%s", r == -2 ? "out of memory" : "cannot be read");
    if (!c->failed)
        apply_overrides(c);
    if (!c->failed)
        finish(c);
    if (c->failed) {
        snprintf(err, err_size, "%s", c->err);
        return r == -2 ? BOIDS_ERR_NOMEM : BOIDS_ERR_FORMAT;
    }
    *out = c->sc;
    return BOIDS_OK;
}

// The largest scenario file (the longest shipped is under 4 KB; paths and
// walls of a few thousand points fit): a larger one, or a pipe that gives
// more, is refused, not read on for ever.
#define SCENARIO_BYTES_MAX (4u << 20)

// A scenario file opened to parse (boids_input_open: regular files and
// pipes, never blocking on a FIFO, no devices); a pipe's text is first
// copied, up to SCENARIO_BYTES_MAX, into an anonymous temporary file. NULL
// with the reason in why.
static FILE *open_scenario_file(const char *path, char *why, size_t why_size) {
    FILE *f = boids_input_open(path, BOIDS_INPUT_PIPES, SCENARIO_BYTES_MAX, "a scenario file", why, why_size);
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || S_ISREG(st.st_mode))
        return f;
    FILE *copy = tmpfile();
    char buf[65536];
    size_t got, total = 0;
    while (copy && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        total += got;
        if (total > SCENARIO_BYTES_MAX || fwrite(buf, 1, got, copy) != got) {
            snprintf(why, why_size, "gives more than the %u bytes a scenario file may have", SCENARIO_BYTES_MAX);
            fclose(copy);
            copy = NULL;
        }
    }
    if (!copy && !why[0])
        snprintf(why, why_size, "cannot be copied: %s", strerror(errno));
    fclose(f);
    if (copy)
        rewind(copy);
    return copy;
}

boids_result boids_scenario_load(const char *path, boids_scenario *out, char *err, size_t err_size) {
    if (!path || !out) {
        snprintf(err, err_size, "boids_scenario_load: %s is NULL; expected a scenario file and a scenario to fill",
                 path ? "out" : "path");
        return BOIDS_ERR_ARGUMENT;
    }
    parse_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return BOIDS_ERR_NOMEM;
    c->name = path;
    char why[256];
    c->file = open_scenario_file(path, why, sizeof why);
    if (!c->file) {
        snprintf(err, err_size, "%s: %s; expected a scenario file (.ini) or the name of one of --list-scenarios", path,
                 why);
        free(c);
        return BOIDS_ERR_IO;
    }
    boids_result r = parse(c, out, err, err_size);
    fclose(c->file);
    free(c);
    return r;
}

boids_result boids_scenario_load_with(const char *path, const boids_scenario_override *ov, uint32_t n,
                                      boids_scenario *out, char *err, size_t err_size, bool *key_problem) {
    if (key_problem)
        *key_problem = false;
    if (!path || !out || (n && !ov)) {
        snprintf(err, err_size,
                 "boids_scenario_load_with: %s is NULL; expected a scenario file, a scenario to fill and %u overrides",
                 !path  ? "path"
                 : !out ? "out"
                        : "ov",
                 n);
        return BOIDS_ERR_ARGUMENT;
    }
    parse_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return BOIDS_ERR_NOMEM;
    c->name = path;
    c->ov = ov;
    c->n_ov = n;
    char why[256];
    c->file = open_scenario_file(path, why, sizeof why);
    if (!c->file) {
        snprintf(err, err_size, "%s: %s; expected a scenario file (.ini) or the name of one of --list-scenarios", path,
                 why);
        free(c);
        return BOIDS_ERR_IO;
    }
    boids_result r = parse(c, out, err, err_size);
    if (key_problem)
        *key_problem = r != BOIDS_OK && c->key_failed;
    fclose(c->file);
    free(c);
    return r;
}

boids_result boids_scenario_load_string(const char *text, const char *name, boids_scenario *out, char *err,
                                        size_t err_size) {
    if (!text || !out) {
        snprintf(err, err_size,
                 "boids_scenario_load_string: %s is NULL; expected a scenario's text and a scenario to fill",
                 text ? "out" : "text");
        return BOIDS_ERR_ARGUMENT;
    }
    parse_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return BOIDS_ERR_NOMEM;
    c->name = name ? name : "(text)";
    c->text = text;
    boids_result r = parse(c, out, err, err_size);
    free(c);
    return r;
}

// ---- time -------------------------------------------------------------------------

bool boids_scenario_is_dynamic(const boids_scenario *sc) {
    return sc && (boids_scenario_target_scheduled(sc) || sc->vary_count > 0);
}

bool boids_scenario_target_scheduled(const boids_scenario *sc) {
    return sc && (sc->target_mode == BOIDS_TARGET_CIRCLE || sc->target_mode == BOIDS_TARGET_LINE);
}

// See boids/scenario.h. The unfolded coordinate x = start - lo + step * v
// folds onto [0, size] with period 2 size (a reflection at each edge); the
// velocity is the fold's slope times v, and at an edge itself the slope of
// the side it arrived from (a per-step bounce mirrors only once past the edge).
void boids_target_line_axis(double lo, double size, double start, double velocity, uint64_t step, double *pos,
                            double *vel) {
    if (!(size > 0.0)) {
        *pos = start;
        *vel = 0.0;
        return;
    }
    double period = 2.0 * size, x = (start - lo) + (double)step * velocity;
    double t = fmod(x, period);
    if (t < 0.0)
        t += period;
    double sign;
    if (step == 0)
        sign = 1.0; // the velocity as given
    else if (t == 0.0)
        sign = velocity > 0.0 ? -1.0 : 1.0;
    else if (t == size)
        sign = velocity > 0.0 ? 1.0 : -1.0;
    else
        sign = t < size ? 1.0 : -1.0;
    *pos = lo + (t <= size ? t : period - t);
    *vel = sign * velocity;
}

// The circling target and the varying weights at `step`.
void boids_scenario_size_world(const boids_scenario *sc, boids_params *p) {
    if (!sc || !p)
        return;
    if (sc->density > 0.0f)
        boids_params_density_world(p, sc->density);
    else
        boids_params_auto_world(p, 20.0);
}

float boids_scenario_default_target_radius(const boids_world_params *w) {
    return fminf(0.25f * fminf(w->size[0], w->size[1]), BOIDS_SCENARIO_MAX_RADIUS);
}

void boids_scenario_at_step(const boids_scenario *sc, uint64_t step, boids_params *p) {
    if (!sc || !p)
        return;
    double t = (double)step;
    if (sc->target_mode == BOIDS_TARGET_CIRCLE) {
        double w = 2.0 * 3.14159265358979323846 / (double)sc->target_period, a = w * fmod(t, sc->target_period);
        double r = sc->target_radius, dt = p->world.dt;
        p->world.target_pos[0] = sc->target_center[0] + (float)(r * cos(a));
        p->world.target_pos[1] = sc->target_center[1] + (float)(r * sin(a));
        p->world.target_pos[2] = sc->target_center[2];
        p->world.target_vel[0] = (float)(-r * w * sin(a) / dt);
        p->world.target_vel[1] = (float)(r * w * cos(a) / dt);
        p->world.target_vel[2] = 0.0f;
    } else if (sc->target_mode == BOIDS_TARGET_LINE) {
        const boids_world_params *w = &p->world;
        for (uint32_t a = 0; a < 3; a++) {
            double pos, vel;
            boids_target_line_axis(w->min[a], a < w->dim ? w->size[a] : 0.0, sc->target_start[a],
                                   a < w->dim ? sc->target_velocity[a] : 0.0, step, &pos, &vel);
            p->world.target_pos[a] = (float)pos;
            p->world.target_vel[a] = (float)(vel / w->dt); // per time unit, as the circle's
        }
    }
    for (uint32_t k = 0; k < sc->vary_count; k++) {
        const boids_vary *v = &sc->vary[k];
        double mid = 0.5 * ((double)v->lo + v->hi), amp = 0.5 * ((double)v->hi - v->lo);
        double a = 2.0 * 3.14159265358979323846 * fmod(t, v->period) / v->period;
        *boids_weight_ref(&p->group[v->group], v->behavior) = (float)(mid + amp * sin(a));
    }
}

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

// The keys of the leader rows that differ from the defaults, or whose
// behaviour is on (the written file says what the run used).
static void write_leader_keys(FILE *f, const boids_group_params *g) {
    const uint32_t lead = BOIDS_BIT(BOIDS_BI_OFFSET) | BOIDS_BIT(BOIDS_BI_FOLLOW);
    bool on = g->behaviors & lead;
    char a[32], b[32];
    if (g->leader != BOIDS_ID_TARGET || on) {
        named_text(g->leader, a, sizeof a);
        fprintf(f, "leader = %s\n", a);
    }
    if (g->formation != BOIDS_FORMATION_NONE || (g->behaviors & BOIDS_BIT(BOIDS_BI_OFFSET)))
        fprintf(f, "formation = %s\nformation_spacing = %.9g\n",
                g->formation < BOIDS_FORMATION_COUNT ? boids_parse_formation_names[g->formation] : "none",
                (double)g->formation_spacing);
    else if (g->formation_spacing != BOIDS_FORMATION_SPACING_DEFAULT)
        fprintf(f, "formation_spacing = %.9g\n", (double)g->formation_spacing);
    if (g->leader_offset[0] != BOIDS_LEADER_OFFSET_DEFAULT || g->leader_offset[1] != 0.0f ||
        g->leader_offset[2] != 0.0f || (g->behaviors & BOIDS_BIT(BOIDS_BI_OFFSET)))
        fprintf(f, "leader_offset = %.9g, %.9g, %.9g\n", (double)g->leader_offset[0], (double)g->leader_offset[1],
                (double)g->leader_offset[2]);
    if (g->leader_behind != BOIDS_LEADER_BEHIND_DEFAULT || g->leader_sight != BOIDS_LEADER_SIGHT_DEFAULT ||
        (g->behaviors & BOIDS_BIT(BOIDS_BI_FOLLOW)))
        fprintf(f, "leader_behind = %.9g\nleader_sight = %.9g\n", (double)g->leader_behind, (double)g->leader_sight);
    if (g->interpose_a != 0 || g->interpose_b != BOIDS_ID_TARGET || (g->behaviors & BOIDS_BIT(BOIDS_BI_INTERPOSE))) {
        named_text(g->interpose_a, a, sizeof a);
        named_text(g->interpose_b, b, sizeof b);
        fprintf(f, "interpose = %s, %s\n", a, b);
    }
    if (g->feeler_length != BOIDS_FEELER_LENGTH_DEFAULT || (g->behaviors & BOIDS_BIT(BOIDS_BI_FEELERS)))
        fprintf(f, "feeler_length = %.9g\n", (double)g->feeler_length);
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

// cos(half the field of view) of degrees in (0, 360]; 360 (all around) is -1.
float boids_fov_cos(float degrees) {
    return degrees >= 360.0f ? -1.0f : (float)cos((double)degrees * 0.5 * 3.14159265358979323846 / 180.0);
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
    fprintf(f, "origin = %s\nboundary = %s\ndt = %.9g\nseed = %llu\ncombine = %s\nwall_offset = %.9g\n", v,
            w->boundary <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[w->boundary] : "wrap", (double)w->dt,
            (unsigned long long)w->seed_lo | ((unsigned long long)w->seed_hi << 32),
            w->combine <= BOIDS_COMBINE_TRUNCATED ? boids_parse_combine_names[w->combine] : "sum",
            (double)w->wall_offset);
    fprintf(f, "wall_corner = %s\n", boids_parse_wall_corner_names[w->wall_corner == BOIDS_WALL_CORNER_BOOK]);
    if (w->margin != 0.0f) // unset: the default 3, written as before
        fprintf(f, "margin = %.9g\n", (double)w->margin);
    if (w->grid_fine) // unset: today's grid, written as before
        fprintf(f, "grid_fine = %s\n", boids_parse_grid_fine_text(w->grid_fine));
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
        double fov = sc->fov_deg[gi] > 0.0f ? sc->fov_deg[gi] : fov_degrees(g->fov_cos);
        double view_fov = sc->view_fov_deg[gi] > 0.0f ? sc->view_fov_deg[gi] : fov_degrees(g->view_cos);
        fprintf(f,
                "maxspeed = %.9g\nmaxforce = %.9g\nradius = %.9g\nseparation = %.9g\nfov = %.9g\nview_radius = "
                "%.9g\nview_fov = %.9g\npredict = %.9g\narrive_radius = %.9g\nwander_distance = %.9g\n"
                "wander_radius = %.9g\nwander_change = %.9g\npath_predict = %.9g\npath_ahead = %.9g\n"
                "avoid_distance = %.9g\npriority_threshold = %.9g\nmax_turn = %.9g\nbody_radius = %.9g\n",
                (double)g->maxspeed, (double)g->maxforce, (double)g->radius, (double)g->separation, fov,
                (double)g->view_radius, view_fov, (double)g->predict, (double)g->arrive_radius,
                (double)g->wander_distance, (double)g->wander_radius, (double)g->wander_change, (double)g->path_predict,
                (double)g->path_ahead, (double)g->avoid_distance, (double)g->priority_threshold, (double)g->max_turn,
                (double)g->body_radius);
        if (g->maxspeed_lo > 0.0f)
            fprintf(f, "maxspeed_range = %.9g, %.9g\n", (double)g->maxspeed_lo, (double)g->maxspeed_hi);
        if (g->maxforce_lo > 0.0f)
            fprintf(f, "maxforce_range = %.9g, %.9g\n", (double)g->maxforce_lo, (double)g->maxforce_hi);
        if (g->alignment_radius > 0.0f)
            fprintf(f, "alignment_radius = %.9g\n", (double)g->alignment_radius);
        if (g->cohesion_radius > 0.0f)
            fprintf(f, "cohesion_radius = %.9g\n", (double)g->cohesion_radius);
        if (g->own_cones & BOIDS_CONE_SEPARATION)
            fprintf(f, "separation_fov = %.9g\n", fov_degrees(g->separation_fov_cos));
        if (g->own_cones & BOIDS_CONE_ALIGNMENT)
            fprintf(f, "alignment_fov = %.9g\n", fov_degrees(g->alignment_fov_cos));
        if (g->own_cones & BOIDS_CONE_COHESION)
            fprintf(f, "cohesion_fov = %.9g\n", fov_degrees(g->cohesion_fov_cos));
        if (g->neighbors_max)
            fprintf(f, "neighbors_max = %u\n", g->neighbors_max);
        if (g->target_speed != BOIDS_TARGET_SPEED_DEFAULT || (g->behaviors & BOIDS_BIT(BOIDS_BI_SPEED)))
            fprintf(f, "target_speed = %.9g\n", (double)g->target_speed);
        if (g->queue_distance != BOIDS_QUEUE_DISTANCE_DEFAULT || (g->behaviors & BOIDS_BIT(BOIDS_BI_QUEUE)))
            fprintf(f, "queue_distance = %.9g\n", (double)g->queue_distance);
        if (g->avoid_horizon != BOIDS_AVOID_HORIZON_DEFAULT || (g->behaviors & BOIDS_BIT(BOIDS_BI_AVOID)))
            fprintf(f, "avoid_horizon = %.9g\n", (double)g->avoid_horizon);
        if (g->hide_margin != BOIDS_HIDE_MARGIN_DEFAULT || (g->behaviors & BOIDS_BIT(BOIDS_BI_HIDE)))
            fprintf(f, "hide_margin = %.9g\n", (double)g->hide_margin);
        write_leader_keys(f, g);
        if (g->repulse != 0.0f || g->rules == BOIDS_RULES_CIRCLES)
            fprintf(f, "repulse = %.9g\n", (double)(g->repulse != 0.0f ? g->repulse : BOIDS_REPULSE_DEFAULT));
        if (g->rules != BOIDS_RULES_CHAPTER || g->turn != BOIDS_TURN_DEFAULT)
            fprintf(f, "rules = %s\nturn = %.9g\n",
                    g->rules < BOIDS_RULES_COUNT ? boids_parse_rules_names[g->rules] : "chapter", (double)g->turn);
        if (g->noise != 0.0f)
            fprintf(f, "%s = %.9g\n", g->rules == BOIDS_RULES_COUZIN ? "sigma" : "eta", (double)g->noise);
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

// ---- the shipped directory ---------------------------------------------------------------

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// The installed scenarios beside the file this code was loaded from, found
// wherever the prefix was moved: FOLDER/BOIDS_SCENARIO_FROM_LIB or _FROM_BIN,
// or FOLDER/scenarios (a bundle beside the library: the Python package's), where FOLDER is
// that of libboids.so (dladdr) or of the program (/proc/self/exe: a program
// with libboids.a in it, which dladdr names only by its argv[0]). NULL if
// none exists (the build tree).
static const char *installed_dir(void) {
    static char dir[4096]; // its address names the file too (dladdr)
    Dl_info info;
    const char *objects[] = {dladdr(dir, &info) && info.dli_fname ? info.dli_fname : NULL, "/proc/self/exe"};
    const char *rel[] = {BOIDS_SCENARIO_FROM_LIB, BOIDS_SCENARIO_FROM_BIN, "scenarios"};
    for (int o = 0; o < 2; o++) {
        char folder[4096];
        if (!objects[o] || !strchr(objects[o], '/') || !realpath(objects[o], folder))
            continue;
        *strrchr(folder, '/') = '\0';
        for (int i = 0; i < (o == 0 ? 3 : 2); i++) { // a bundle beside the library only
            int n = snprintf(dir, sizeof dir, "%s/%s", folder, rel[i]);
            if (n > 0 && (size_t)n < sizeof dir && is_dir(dir))
                return dir;
        }
    }
    return NULL;
}

const char *boids_scenario_dir(void) {
    const char *env = getenv("BOIDS_SCENARIOS");
    if (env && env[0] && is_dir(env))
        return env;
    const char *installed = installed_dir();
    if (installed)
        return installed;
    if (is_dir(BOIDS_SCENARIO_DIR))
        return BOIDS_SCENARIO_DIR;
    return NULL;
}

bool boids_scenario_find(const char *arg, char *out, size_t out_size) {
    if (!arg || !out || !out_size)
        return false;
    size_t n = strlen(arg);
    if (strchr(arg, '/') || (n > 4 && strcmp(arg + n - 4, ".ini") == 0)) {
        snprintf(out, out_size, "%s", arg);
        return true;
    }
    const char *dir = boids_scenario_dir();
    if (!dir)
        return false;
    snprintf(out, out_size, "%s/%s.ini", dir, arg);
    return true;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int boids_scenario_list(FILE *f) {
    if (!f)
        return -1;
    const char *dir = boids_scenario_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return -1;
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".ini") == 0)
            names[n++] = strndup(e->d_name, len - 4);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    for (int i = 0; i < n; i++) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
        boids_scenario *sc = malloc(sizeof *sc);
        if (sc && boids_scenario_load(path, sc, err, sizeof err) == BOIDS_OK)
            fprintf(f, "%-28s %s\n", names[i], sc->title);
        else
            fprintf(f, "%-28s (does not load: %s)\n", names[i], sc ? err : "out of memory");
        free(sc);
        free(names[i]);
    }
    return n;
}
