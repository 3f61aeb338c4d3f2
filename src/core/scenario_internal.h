// src/core/scenario_internal.h: what the files of the scenario reader share
// (scenario.c: the file's walk, the checks at its end and the loaders;
// scenario_keys.c: the values and the keys of [world], [group.NAME] and
// [relation]; scenario_scene.c: [obstacle], [wall], [path], [flowfield],
// [target]). Not public: boids/scenario.h is.
#ifndef BOIDS_CORE_SCENARIO_INTERNAL_H
#define BOIDS_CORE_SCENARIO_INTERNAL_H

#include <stdio.h>

#include "boids/scenario.h"

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

// Records the first error: "NAME:LINE: [SECTION] KEY: 'VALUE' PROBLEM; expected EXPECTED".
void scenario_fail(parse_ctx *c, int line, const char *section, const char *key, const char *value,
                   const char *expected, const char *problem_fmt, ...) __attribute__((format(printf, 7, 8)));
// "a, b or c" of names, with "did you mean" the nearest to `given`.
void scenario_expected_names(const char *const *names, const char *given, char *buf, size_t size);
// s without blanks around it, in buf.
const char *scenario_trim(const char *s, char *buf, size_t size);
// lo..hi numbers "x, y[, z]" into out (*n of them); NULL or the problem.
const char *scenario_parse_vector(const char *s, uint32_t lo, uint32_t hi, float *out, uint32_t *n);
// "behaviour names: ..., or flocking, all, none".
const char *scenario_behavior_list(char *buf, size_t size);
// A float key >= lo (> lo when strict), <= hi, into *f; 1, or 0 with the error recorded.
int scenario_float_key(parse_ctx *c, const char *sec, const char *key, const char *value, float lo, bool strict,
                       float hi, float *f);
// A vector of 2 or 3 numbers into v[3] (z = 0 when 2); 1, or 0.
int scenario_vector_key(parse_ctx *c, const char *sec, const char *key, const char *value, float v[3], uint32_t *count);
// The group of a name, or -1.
int scenario_group_index(parse_ctx *c, const char *name);
// The keys of the sections: 1 when good, 0 with the error recorded.
int scenario_world_key(parse_ctx *c, const char *key, const char *value);
int scenario_group_key(parse_ctx *c, const char *sec, uint32_t gi, const char *key, const char *value);
int scenario_relation_key(parse_ctx *c, const char *key, const char *value);
int scenario_obstacle_key(parse_ctx *c, const char *key, const char *value);
int scenario_wall_key(parse_ctx *c, const char *key, const char *value);
int scenario_path_key(parse_ctx *c, const char *key, const char *value);
int scenario_flow_key(parse_ctx *c, const char *key, const char *value);
int scenario_target_key(parse_ctx *c, const char *key, const char *value);
// The [obstacle] or [wall] being read, checked and closed; false on an error.
bool scenario_close_obstacle(parse_ctx *c);
bool scenario_close_wall(parse_ctx *c);

#endif
