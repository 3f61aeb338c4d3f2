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

#include "scenario_internal.h"

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
        scenario_fail(c, c->line, NULL, NULL, section, "[group.NAME] with NAME of letters, digits, _ or - (up to 31)",
                      "is not a group section");
        return -1;
    }
    int g = scenario_group_index(c, name);
    if (g >= 0)
        return g;
    if (c->groups == BOIDS_MAX_GROUPS) {
        scenario_fail(c, c->line, section, NULL, NULL, "at most 8 groups", "is one group too many");
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
                scenario_fail(c, c->line, section, key, NULL, "each key once in a section",
                              "is given twice (first on line %d)", c->keys[k].line);
                return 0;
            }
        if (!repeats && c->n_keys < (int)(sizeof c->keys / sizeof c->keys[0])) {
            snprintf(c->keys[c->n_keys].key, sizeof c->keys[0].key, "%s", key);
            c->keys[c->n_keys++].line = c->line;
        }
    }
    if (strcmp(section, "obstacle") != 0 && c->obstacle.section >= 0 && !scenario_close_obstacle(c))
        return 0;
    if (strcmp(section, "wall") != 0 && c->wall.section >= 0 && !scenario_close_wall(c))
        return 0;
    if (strcmp(section, "scenario") == 0) {
        char *dst = strcmp(key, "title") == 0 ? c->sc.title : strcmp(key, "example") == 0 ? c->sc.example : NULL;
        if (!dst) {
            scenario_fail(c, c->line, section, key, NULL, "title or example", "is not a key of [scenario]");
            return 0;
        }
        // At most what boids_scenario_write's "example = TEXT" line can hold
        // within the reader's 198 characters (a dump must load back).
        char t[400];
        scenario_trim(value, t, sizeof t);
        if (strlen(t) > BOIDS_SCENARIO_TEXT_MAX) {
            scenario_fail(c, c->line, section, key, NULL, "at most 188 characters", "is %zu characters long",
                          strlen(t));
            return 0;
        }
        snprintf(dst, sizeof c->sc.title, "%s", t);
        return 1;
    }
    if (strcmp(section, "world") == 0)
        return scenario_world_key(c, key, value);
    if (strncmp(section, "group.", 6) == 0) {
        int g = register_group(c, section);
        return g < 0 ? 0 : scenario_group_key(c, section, (uint32_t)g, key, value);
    }
    if (strcmp(section, "relation") == 0)
        return scenario_relation_key(c, key, value);
    if (strcmp(section, "obstacle") == 0)
        return scenario_obstacle_key(c, key, value);
    if (strcmp(section, "path") == 0)
        return scenario_path_key(c, key, value);
    if (strcmp(section, "wall") == 0)
        return scenario_wall_key(c, key, value);
    if (strcmp(section, "flowfield") == 0)
        return scenario_flow_key(c, key, value);
    if (strcmp(section, "target") == 0)
        return scenario_target_key(c, key, value);
    char e[300];
    scenario_expected_names(section_names, strncmp(section, "group", 5) == 0 ? "group.NAME" : section, e, sizeof e);
    scenario_fail(c, c->line, NULL, NULL, section, e, "is not a section");
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
        scenario_fail(c, c->line, NULL, NULL, NULL, "lines of at most 198 characters", "the line is too long");
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
            scenario_trim(section, name, sizeof name);
            // A section twice (but the items [obstacle] and [wall]): its keys would mix or override.
            if (strcmp(name, "obstacle") != 0 && strcmp(name, "wall") != 0) {
                for (int k = 0; k < c->n_sections; k++)
                    if (strcmp(c->sections[k].name, name) == 0 && !c->failed) {
                        char what[80];
                        snprintf(what, sizeof what, "[%s]", name);
                        scenario_fail(c, c->line, NULL, NULL, what, "each section once",
                                      "is given twice (first on line %d)", c->sections[k].line);
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
                scenario_expected_names(section_names, strncmp(name, "group", 5) == 0 ? "group.NAME" : name, e,
                                        sizeof e);
                scenario_fail(c, c->line, NULL, NULL, name, e, "is not a section");
            }
        }
    }
    return str;
}

// After the last line: groups, relations, bodies, world, and a finalize check.
static void finish(parse_ctx *c) {
    boids_scenario *sc = &c->sc;
    boids_params *p = &sc->params;
    if (!scenario_close_obstacle(c) || !scenario_close_wall(c))
        return;
    if (c->groups == 0)
        c->groups = 1; // "default", as boids_scenario_default named it
    p->world.group_count = c->groups;
    for (uint32_t k = 0; k < c->n_rel; k++) {
        const relation_entry *e = &c->rel[k];
        int a = scenario_group_index(c, e->a), b = scenario_group_index(c, e->b);
        if (a < 0 || b < 0) {
            char names[300] = "";
            size_t n = 0;
            for (uint32_t g = 0; g < c->groups && n < sizeof names; g++)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", g ? ", " : "", sc->group_name[g]);
            char key[80], expected[400];
            snprintf(key, sizeof key, "%s.%s", e->a, e->b);
            snprintf(expected, sizeof expected, "groups of this file: %s", names);
            c->name = e->source; // an override's problem names the plan and its line
            scenario_fail(c, e->line, "relation", key, NULL, expected, "names an unknown group '%s'",
                          a < 0 ? e->a : e->b);
            return;
        }
        uint32_t shift = BOIDS_REL_BITS * (uint32_t)b;
        p->group[a].relations = (p->group[a].relations & ~(BOIDS_REL_MASK << shift)) | (e->rel << shift);
    }
    if (p->flow.kind == BOIDS_FLOW_IMAGE && !c->image_line) {
        scenario_fail(c, c->flow_line, "flowfield", "kind", "image", "image = FILE.png with kind = image",
                      "needs an image");
        return;
    }
    if (p->scene.path_count == 1) {
        scenario_fail(c, c->path_line, "path", "point", NULL, "2 to 32 points", "a path with fewer than 2 points");
        return;
    }
    // World: dimensions from the size when dim is not given.
    if (c->size_n == 3 && !sc->dim_set)
        p->world.dim = 3;
    if (c->size_n && c->size_n != p->world.dim) {
        scenario_fail(c, c->size_line, "world", "size", NULL,
                      p->world.dim == 2 ? "WIDTHxHEIGHT for dim 2" : "WxHxD for dim 3",
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
            scenario_fail(c, bad_eta ? x->eta_line : x->sigma_line, sec, bad_eta ? "eta" : "sigma", NULL,
                          bad_eta ? "eta with rules = vicsek" : "sigma with rules = couzin",
                          "is given to a group of rules %s",
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
            scenario_fail(c, x->body_line, sec, "body", NULL, "a body that fits (see docs/SCENARIOS.md)", "%s", what);
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
            scenario_fail(c, 0, "target", "position", NULL, expected, "is outside the world on axis %c (%g)", "xyz"[a],
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
        scenario_fail(c, c->extra[gi].body_line, sec, "body", NULL, NULL, "is rejected: %s", what);
    } else if (r != BOIDS_OK) {
        scenario_fail(c, 0, NULL, NULL, NULL, NULL, "the scenario is rejected: %s",
                      what[0] ? what : boids_result_str(r));
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
            scenario_fail(
                c, c->line, NULL, NULL, o->key,
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
            if (!all && scenario_group_index(c, name) < 0) {
                char names[300] = "", expected[340];
                size_t n = 0;
                for (uint32_t g = 0; g < c->groups && n < sizeof names; g++)
                    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", g ? ", " : "", c->sc.group_name[g]);
                snprintf(expected, sizeof expected, "a group of %s (%s) or *", file, names);
                scenario_fail(c, c->line, NULL, NULL, o->key, expected, "names an unknown group '%s'", name);
                c->key_failed = true;
                break;
            }
            for (uint32_t g = 0; g < c->groups && !c->failed; g++) {
                if (!all && strcmp(c->sc.group_name[g], name) != 0)
                    continue;
                char sec[48];
                snprintf(sec, sizeof sec, "group.%s", c->sc.group_name[g]);
                scenario_group_key(c, sec, g, key, o->value);
            }
        } else if (boids_parse_pick(section, 0, sweepable) >= 0) {
            on_key(c, section, key, o->value);
        } else {
            scenario_fail(c, c->line, NULL, NULL, o->key,
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
    // A read error ends fgets as the end of the file would: not a short file.
    if (c->file && ferror(c->file) && !c->failed)
        scenario_fail(c, 0, NULL, NULL, NULL, "a readable scenario file", "cannot be read: %s", strerror(errno));
    if (r > 0 && !c->failed)
        scenario_fail(c, r, NULL, NULL, NULL, "[section] or key = value lines (comments start with # or ;)",
                      "the line is not a section, a key = value or a comment");
    if (r < 0 && !c->failed)
        scenario_fail(c, 0, NULL, NULL, NULL, NULL, "%s", r == -2 ? "out of memory" : "cannot be read");
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
