// src/core/scenario_scene.c: the scene's sections of a scenario file:
// [obstacle], [wall], [path], [flowfield] and [target] (scenario_internal.h).
#define _GNU_SOURCE // realpath
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boids/input.h"
#include "boids/parse.h"
#include "boids/registry.h"
#include "scenario_internal.h"

// The keys of [obstacle], a bit each.
enum { OBSTACLE_CENTER = 1, OBSTACLE_RADIUS = 2 };

// Closes the obstacle being read (both keys given?).
bool scenario_close_obstacle(parse_ctx *c) {
    if (c->obstacle.section < 0)
        return true;
    if (c->obstacle.keys != (OBSTACLE_CENTER | OBSTACLE_RADIUS)) {
        scenario_fail(c, c->obstacle.line, "obstacle", NULL, NULL, "both center = x, y[, z] and radius = R",
                      "has no %s", (c->obstacle.keys & OBSTACLE_CENTER) ? "radius" : "center");
        return false;
    }
    c->obstacle.section = -1;
    return true;
}

// At the first key of a repeated section's item: closes the item before
// (close), then opens this one as item *count (zeroed rows `rows` of
// `row_bytes`), at most max. false on an error (said).
static bool scenario_open_item(parse_ctx *c, section_item *it, bool (*close)(parse_ctx *), uint32_t *count,
                               uint32_t max, const char *sec, void *rows, size_t row_bytes) {
    if (it->section == c->section_index)
        return true;
    if (!close(c))
        return false;
    if (*count == max) {
        char e[64];
        snprintf(e, sizeof e, "at most %u %ss", max, sec);
        scenario_fail(c, c->line, sec, NULL, NULL, e, "is one %s too many", sec);
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
bool scenario_close_wall(parse_ctx *c) {
    if (c->wall.section < 0)
        return true;
    unsigned k = c->wall.keys;
    if (k != (WALL_FROM | WALL_TO) && k != (WALL_POINT | WALL_NORMAL)) {
        scenario_fail(c, c->wall.line, "wall", NULL, NULL,
                      "from = x, y and to = x, y (a segment), or point and normal (a plane)", "has %s",
                      (k & (WALL_FROM | WALL_TO)) && (k & (WALL_POINT | WALL_NORMAL)) ? "keys of both kinds"
                                                                                      : "one key of its two");
        return false;
    }
    c->wall.section = -1;
    return true;
}

int scenario_wall_key(parse_ctx *c, const char *key, const char *value) {
    boids_scene *s = &c->sc.params.scene;
    if (!scenario_open_item(c, &c->wall, scenario_close_wall, &s->wall_count, BOIDS_MAX_WALLS, "wall", s->wall,
                            sizeof(float[2][4])))
        return 0;
    static const char *const keys[] = {"from", "to", "point", "normal", NULL};
    int k = boids_parse_pick(key, 0, keys);
    if (k < 0) {
        char e[200];
        scenario_expected_names(keys, key, e, sizeof e);
        scenario_fail(c, c->line, "wall", key, NULL, e, "is not a key of [wall]");
        return 0;
    }
    float *row = s->wall[2 * (s->wall_count - 1) + (k & 1)];
    float v[3];
    if (!scenario_vector_key(c, "wall", key, value, v, NULL))
        return 0;
    for (int a = 0; a < 3; a++)
        if (!(fabsf(v[a]) <= BOIDS_MAX_EXTENT)) {
            scenario_fail(c, c->line, "wall", key, value, "x, y[, z], each -1e9..1e9", "is out of range");
            return 0;
        }
    if (k == 3 && v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f) {
        scenario_fail(c, c->line, "wall", key, value, "a normal that is not 0, 0, 0", "is the zero vector");
        return 0;
    }
    memcpy(row, v, sizeof v);
    c->wall.keys |= 1u << k;
    s->wall[2 * (s->wall_count - 1)][3] = k < 2 ? BOIDS_WALL_SEGMENT : BOIDS_WALL_PLANE;
    return 1;
}

int scenario_obstacle_key(parse_ctx *c, const char *key, const char *value) {
    boids_scene *s = &c->sc.params.scene;
    if (!scenario_open_item(c, &c->obstacle, scenario_close_obstacle, &s->obstacle_count, BOIDS_MAX_OBSTACLES,
                            "obstacle", s->obstacle, sizeof(float[4])))
        return 0;
    float *o = s->obstacle[s->obstacle_count - 1];
    if (strcmp(key, "center") == 0) {
        c->obstacle.keys |= OBSTACLE_CENTER;
        return scenario_vector_key(c, "obstacle", key, value, o, NULL);
    }
    if (strcmp(key, "radius") == 0) {
        c->obstacle.keys |= OBSTACLE_RADIUS;
        return scenario_float_key(c, "obstacle", key, value, 0.0f, true, 3.4e38f, &o[3]);
    }
    static const char *const keys[] = {"center", "radius", NULL};
    char e[200];
    scenario_expected_names(keys, key, e, sizeof e);
    scenario_fail(c, c->line, "obstacle", key, NULL, e, "is not a key of [obstacle]");
    return 0;
}

int scenario_path_key(parse_ctx *c, const char *key, const char *value) {
    boids_scene *s = &c->sc.params.scene;
    if (!c->path_line)
        c->path_line = c->line;
    if (strcmp(key, "point") == 0) {
        if (s->path_count == BOIDS_MAX_PATH_POINTS) {
            scenario_fail(c, c->line, "path", key, value, "at most 32 points", "is one point too many");
            return 0;
        }
        s->path_count++;
        return scenario_vector_key(c, "path", key, value, s->path[s->path_count - 1], NULL);
    }
    if (strcmp(key, "radius") == 0)
        return scenario_float_key(c, "path", key, value, 0.0f, true, 3.4e38f, &s->path_radius);
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
            scenario_fail(c, c->line, "path", key, value, flags[k].expected, "%s", flags[k].problem);
            return 0;
        }
        s->path_flags = b == 1 ? s->path_flags | flags[k].bit : s->path_flags & ~flags[k].bit;
        return 1;
    }
    static const char *const keys[] = {"point", "radius", "closed", "outside", "line", NULL};
    char e[200];
    scenario_expected_names(keys, key, e, sizeof e);
    scenario_fail(c, c->line, "path", key, NULL, e, "is not a key of [path]");
    return 0;
}

// A path relative to the scenario file's directory (absolute paths as they are).
static void scenario_relative_to(const char *file, const char *rel, char *out, size_t size) {
    const char *slash = strrchr(file, '/');
    if (rel[0] == '/' || !slash)
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%.*s/%s", (int)(slash - file), file, rel);
}

int scenario_flow_key(parse_ctx *c, const char *key, const char *value) {
    boids_flowfield *f = &c->sc.params.flow;
    if (!c->flow_line)
        c->flow_line = c->line;
    if (strcmp(key, "kind") == 0) {
        static const char *const names[] = {"noise", "swirl", "uniform", "image", NULL};
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, names);
        if (k < 0) {
            scenario_fail(c, c->line, "flowfield", key, value, "noise, swirl, uniform or image",
                          "is not a flow-field kind");
            return 0;
        }
        f->kind = (uint32_t)k;
        return 1;
    }
    if (strcmp(key, "image") == 0) {
        char t[400];
        scenario_trim(value, t, sizeof t);
        char rel[sizeof f->image];
        scenario_relative_to(c->name, t, rel, sizeof rel);
        struct stat st;
        if (!t[0] || stat(rel, &st) != 0 || !S_ISREG(st.st_mode)) {
            scenario_fail(c, c->line, "flowfield", key, value, "a PNG file (relative to the scenario file)",
                          "is not a file");
            return 0;
        }
        char why[256];
        if (boids_flowfield_check_image(rel, why, sizeof why) != BOIDS_OK) {
            scenario_fail(c, c->line, "flowfield", key, value, "a PNG file (relative to the scenario file)", "%s", why);
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
        return scenario_float_key(c, "flowfield", key, value, 0.0f, true, BOIDS_MAX_EXTENT, &f->resolution);
    if (strcmp(key, "noise_scale") == 0) // (finalize: times the farthest cell, at most BOIDS_FLOW_NOISE_MAX)
        return scenario_float_key(c, "flowfield", key, value, 0.0f, true, BOIDS_FLOW_NOISE_SCALE_MAX,
                                  &f->noise_scale);
    if (strcmp(key, "seed") == 0) {
        uint64_t u;
        const char *p = boids_parse_uint(value, BOIDS_PARSE_TRIM, 0, 255, &u);
        if (p) {
            scenario_fail(c, c->line, "flowfield", key, value, "an integer 0..255", "is %s", p);
            return 0;
        }
        f->noise_seed = (uint32_t)u;
        return 1;
    }
    if (strcmp(key, "direction") == 0)
        return scenario_vector_key(c, "flowfield", key, value, f->direction, NULL);
    static const char *const keys[] = {"kind", "image", "resolution", "noise_scale", "seed", "direction", NULL};
    char e[200];
    scenario_expected_names(keys, key, e, sizeof e);
    scenario_fail(c, c->line, "flowfield", key, NULL, e, "is not a key of [flowfield]");
    return 0;
}

int scenario_target_key(parse_ctx *c, const char *key, const char *value) {
    boids_scenario *sc = &c->sc;
    if (strcmp(key, "mode") == 0) {
        static const char *const names[] = {"fixed", "mouse", "circle", "line", NULL};
        int k = boids_parse_pick(value, BOIDS_PARSE_TRIM, names);
        if (k < 0) {
            scenario_fail(c, c->line, "target", key, value, "fixed, mouse, circle or line", "is not a target mode");
            return 0;
        }
        sc->target_mode = (boids_target_mode)k;
        return 1;
    }
    if (strcmp(key, "position") == 0) {
        c->sc.target_position_set = true;
        return scenario_vector_key(c, "target", key, value, sc->params.world.target_pos, NULL);
    }
    if (strcmp(key, "center") == 0) {
        c->sc.target_center_set = true;
        return scenario_vector_key(c, "target", key, value, sc->target_center, NULL);
    }
    if (strcmp(key, "radius") == 0) {
        c->sc.target_radius_set = true;
        return scenario_float_key(c, "target", key, value, 0.0f, true, BOIDS_SCENARIO_MAX_RADIUS, &sc->target_radius);
    }
    if (strcmp(key, "period") == 0)
        return scenario_float_key(c, "target", key, value, BOIDS_SCENARIO_MIN_PERIOD, false, BOIDS_SCENARIO_MAX_PERIOD,
                                  &sc->target_period);
    if (strcmp(key, "velocity") == 0) {
        float v[3] = {0, 0, 0};
        if (!scenario_vector_key(c, "target", key, value, v, NULL))
            return 0;
        for (int a = 0; a < 3; a++)
            if (!(fabsf(v[a]) <= BOIDS_SCENARIO_MAX_TARGET_SPEED)) {
                scenario_fail(c, c->line, "target", key, value, "VX, VY[, VZ] in units per step, each -1e7..1e7",
                              "is out of range");
                return 0;
            }
        memcpy(sc->target_velocity, v, sizeof v);
        return 1;
    }
    static const char *const keys[] = {"mode", "position", "center", "radius", "period", "velocity", NULL};
    char e[200];
    scenario_expected_names(keys, key, e, sizeof e);
    scenario_fail(c, c->line, "target", key, NULL, e, "is not a key of [target]");
    return 0;
}
