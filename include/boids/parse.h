/* boids/parse.h: the one value parser of the command line (src/app/cli.c)
 * and the scenario files (src/core/scenario.c). Each function checks a
 * whole string and returns NULL when it is good, else the problem as a short
 * phrase ("not an integer", "too large") that the caller words into its own
 * message ("'VALUE' is PROBLEM; expected ..."). No allocation, no output.
 *
 * Offers:
 *   BOIDS_PARSE_*              caller context (hex, blanks trimmed, ranges)
 *   boids_parse_uint           an integer lo..hi, decimal (or 0x hex)
 *   boids_parse_float          a finite decimal number that fits a float
 *   boids_parse_split          comma lists, WxH[xD], X,Y[,Z] into pieces
 *   boids_parse_pick           one of a NULL-terminated list of names
 *   boids_parse_edit_distance, boids_parse_nearest, boids_parse_hint, boids_parse_behavior_hint   "did you mean"
 *   boids_parse_behaviors      LIST|all|none (names and 'flocking') to bits
 *   boids_parse_agents         named agents: ids or 'target'
 *   boids_parse_shown          a value as messages show it (escaped, cut)
 *   boids_parse_boundary_names, boids_parse_distribution_names, boids_parse_wall_corner_names,
 *   boids_parse_path_outside_names, boids_parse_path_line_names, boids_parse_rules_names,
 *   boids_parse_combine_names, boids_parse_index_names, boids_parse_update_names,
 *   boids_parse_glyph_names
 */
#ifndef BOIDS_PARSE_H
#define BOIDS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_PARSE_HEX 1u      // integers: 0x hex accepted too
#define BOIDS_PARSE_TRIM 2u     // blanks around the value (and each list item) ignored; "" is "empty"
#define BOIDS_PARSE_POSITIVE 4u // floats: > 0, a normal float ("negative", "zero", "too small (below 1.2e-38)")
#define BOIDS_PARSE_DEGREES 8u  // floats: with POSITIVE, at most 360 ("more than 360")

#define BOIDS_PARSE_SHOWN_MAX 96 // longer values are cut in messages

// " (did you mean 'NAME'?)" for the name of the NULL-terminated `names`
// nearest to `given` (boids_parse_nearest: 1 edit for 4 characters or
// fewer, else 2; prefixes count), into buf; "" when none is near.
const char *boids_parse_hint(const char *given, const char *const *names, char *buf, size_t size);
// An unsigned integer in [lo, hi]: digits only (a leading '-' is
// "negative"), decimal, or 0x hex with BOIDS_PARSE_HEX. Problems: "empty"
// (TRIM only), "not an integer", "negative", "too large", "too small".
const char *boids_parse_uint(const char *s, unsigned flags, uint64_t lo, uint64_t hi, uint64_t *out);
// A finite decimal number (no hex floats) that fits a float. Problems:
// "empty" (TRIM only), "not a number", "not a decimal number", "too large",
// "not a finite number"; with POSITIVE also "too small" (underflow),
// "negative", "zero"; with DEGREES "more than 360".
const char *boids_parse_float(const char *s, unsigned flags, float *out);
// Splits s at any of `separators` (empty pieces kept) into store, which must
// hold strlen(s) + 1 bytes; the first `max` pieces go to pieces. Returns the
// number of pieces, which may exceed max.
uint32_t boids_parse_split(const char *s, const char *separators, char *store, char **pieces, uint32_t max);
// The index of s in the NULL-terminated names (blanks around s ignored with
// TRIM), or -1.
int boids_parse_pick(const char *s, unsigned flags, const char *const *names);
// Edit distance with adjacent transpositions (optimal string alignment);
// SIZE_MAX when a string is longer than 63 characters.
size_t boids_parse_edit_distance(const char *a, const char *b);
// The first of the NULL-terminated names nearest to `given`, or NULL when
// even that is more than max_distance edits away. With prefixes, a name that
// `given` (2 characters or more) begins counts as 1 edit away.
const char *boids_parse_nearest(const char *given, const char *const *names, size_t max_distance, bool prefixes);
// " (did you mean 'NAME'?)" for the behaviour name nearest to `given` (with
// sets: also flocking, all and none) into buf, "" when none is near (a typo
// or a prefix); returns buf.
const char *boids_parse_behavior_hint(const char *given, bool sets, char *buf, size_t size);
// A behaviour list: "all", "none", or a comma list of behaviour names and
// "flocking" (boids_behavior_index). false with the problem in `problem`:
// "has an empty name", "mixes 'all' with other names", "names an unknown
// behaviour 'NAME'" (NAME as boids_parse_shown writes it).
bool boids_parse_behaviors(const char *s, unsigned flags, uint32_t *bits, char *problem, size_t problem_size);
// `n` (1 or 2) named agents, comma-separated: each an agent id
// 0..16777215 or "target" (BOIDS_ID_TARGET, the world's target) into ids.
// Problems: "is not one name" / "is not two names", and boids_parse_uint's.
const char *boids_parse_agents(const char *s, uint32_t n, uint32_t ids[2]);
// BOIDS_FORMATION_* by name ("none", "line", "column", "v", "ring"), NULL-terminated.
extern const char *const boids_parse_formation_names[];
// value with control characters escaped (\n, \t, \xHH) and cut after
// BOIDS_PARSE_SHOWN_MAX characters ("..."), so a message stays one line.
const char *boids_parse_shown(const char *value, char *buf, size_t size);

// BOIDS_BOUNDARY_*, BOIDS_DIST_* and BOIDS_WALL_CORNER_* by name, NULL-terminated.
extern const char *const boids_parse_boundary_names[];
extern const char *const boids_parse_distribution_names[];
extern const char *const boids_parse_wall_corner_names[];
// --grid-fine / [world] grid_fine: "1" .. "4" (k 0..3: M = k + 1) and "auto"
// (k = BOIDS_PARSE_GRID_FINE_AUTO); boids_parse_grid_fine_word turns k into
// a world.grid_fine word (auto starts at M = 1), _text a word back into its name.
#define BOIDS_PARSE_GRID_FINE_AUTO 4
extern const char *const boids_parse_grid_fine_names[];
uint32_t boids_parse_grid_fine_word(int k);
const char *boids_parse_grid_fine_text(uint32_t word);
// [path] outside / --path-outside: "clamp" (0), "end" (1, BOIDS_PATH_OUTSIDE_END);
// [path] line / --path-line: "segment" (0), "infinite" (1, BOIDS_PATH_LINE_INFINITE).
extern const char *const boids_parse_path_outside_names[];
extern const char *const boids_parse_path_line_names[];
// [group] glyph: "default", "arrow", "wedge", "dot" (index = BOIDS_GLYPH_*), NULL-terminated.
extern const char *const boids_parse_glyph_names[];
// "chapter", "tutorial", "heading" (index = BOIDS_RULES_*), NULL-terminated.
extern const char *const boids_parse_rules_names[];
// "sum", "priority", "truncated": index = BOIDS_COMBINE_*.
extern const char *const boids_parse_combine_names[];
// "grid", "quadtree", "brute": the CPU backend's neighbour indexes (index = BOIDS_INDEX_*).
extern const char *const boids_parse_index_names[];
// "parallel", "sequential": the CPU backend's update orders (index = BOIDS_UPDATE_*).
extern const char *const boids_parse_update_names[];

#ifdef __cplusplus
}
#endif

#endif
