/* boids/scenario.h: scenario files (docs/SCENARIOS.md): an INI file read
 * with libinih into simulation parameters plus what only a host uses
 * (group names and colours, the target's motion, weights varying over
 * time), written back by boids_scenario_write. No GL.
 *
 * Offers: boids_scenario, boids_scenario_load (all or nothing, errors as
 * "FILE:LINE: [section] key: problem; expected ..."), boids_scenario_write,
 * boids_scenario_at_step (the time-dependent parts into params),
 * boids_scenario_find / _list (the shipped scenarios/ directory).
 */
#ifndef BOIDS_SCENARIO_H
#define BOIDS_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_SCENARIO_MAX_VARY 32
#define BOIDS_SCENARIO_NAME 32
#define BOIDS_SCENARIO_TEXT_MAX 188 // title and example: "example = TEXT" fits a 198-character line
// Ranges of the time-dependent parts, checked by the parser and by a
// snapshot's SCEN chunk alike: the circling target's radius, the periods (in
// steps) of the circle and of varying weights (whose MIN and MAX are weights,
// |w| <= BOIDS_MAX_WEIGHT), and the line target's speed per axis (units per step).
#define BOIDS_SCENARIO_MAX_RADIUS 1e7f
#define BOIDS_SCENARIO_MIN_PERIOD 1.0f
#define BOIDS_SCENARIO_MAX_PERIOD 1e9f
#define BOIDS_SCENARIO_MAX_TARGET_SPEED 1e7f
// [group] glyph_size: the largest factor of the drawn agent length.
#define BOIDS_GLYPH_SIZE_MAX 16.0f

// The target's motion: fixed at its position, following the viewer's mouse,
// circling (center, radius, period) or crossing the world in a line
// (position + step * velocity, reflected off the world's edges).
typedef enum boids_target_mode {
    BOIDS_TARGET_FIXED,
    BOIDS_TARGET_MOUSE,
    BOIDS_TARGET_CIRCLE,
    BOIDS_TARGET_LINE
} boids_target_mode;

// A weight that follows a sine between lo and hi over `period` steps.
typedef struct boids_vary {
    uint32_t group, behavior;
    float lo, hi, period;
} boids_vary;

typedef struct boids_scenario {
    char path[512];                // the file it was read from ("" if built in memory)
    char title[200], example[200]; // [scenario]
    boids_params params;           // everything of the simulation (not finalized)
    uint32_t distribution;         // BOIDS_DIST_*
    char group_name[BOIDS_MAX_GROUPS][BOIDS_SCENARIO_NAME];
    float color[BOIDS_MAX_GROUPS][4]; // rgba 0..1
    bool color_set[BOIDS_MAX_GROUPS];
    // How the viewer draws each group's agents: BOIDS_GLYPH_* and a length
    // factor (DEFAULT and 0: the renderer's choice, larger wedges for hunters).
    uint32_t glyph[BOIDS_MAX_GROUPS];
    float glyph_size[BOIDS_MAX_GROUPS];
    float body_length[BOIDS_MAX_GROUPS]; // the length each group's body was made with (written back)
    boids_target_mode target_mode;
    float target_center[3], target_radius, target_period; // circle
    float target_start[3], target_velocity[3];            // line: position at step 0, units per step
    boids_vary vary[BOIDS_SCENARIO_MAX_VARY];
    uint32_t vary_count;
    // Which keys the file gave (flags override them; the rest is automatic).
    bool count_set, dim_set, size_set, origin_set;
    // [world] density: agents per unit of area (2D) or volume (3D) that sizes
    // a world the file does not size, for any count; 0: about 20 neighbours
    // within the reach (boids_params_auto_world).
    float density;
    bool target_position_set, target_center_set, target_radius_set;
    // Fields of view in degrees as given (written back exactly; 0: from the cosine).
    float fov_deg[BOIDS_MAX_GROUPS], view_fov_deg[BOIDS_MAX_GROUPS];
} boids_scenario;

// The defaults of a scenario without a file (one group "default", the
// chapter's flocking, params of boids_params_default for 1000 agents in 2D).
void boids_scenario_default(boids_scenario *sc);
// Reads `path` into *out. On error *out is unchanged and err holds one line
// "PATH:LINE: [SECTION] KEY: PROBLEM; expected ALLOWED" (LINE 0: the file
// as a whole). BOIDS_ERR_IO: cannot be read; BOIDS_ERR_FORMAT: bad content.
boids_result boids_scenario_load(const char *path, boids_scenario *out, char *err, size_t err_size);
// One override of a scenario key (the ensemble runner's parameters):
// "SECTION.KEY" as a file's section would hold KEY: world.KEY,
// group.NAME.KEY (a group of the file; group.*.KEY: every group),
// target.KEY, flowfield.KEY, relation.A.B. source and line (the plan file)
// are named in its messages.
typedef struct boids_scenario_override {
    const char *key, *value;
    const char *source; // NULL: "override"
    int line;
} boids_scenario_override;
// Reads `path` as boids_scenario_load does with the n overrides applied
// after the file's last key, in order, by the same handler (so a value is
// checked as in a file) before the whole is checked. An override's problem
// is "SOURCE:LINE: [SECTION] KEY: ..."; *key_problem (if non-NULL) is true
// when the problem is an override's key itself (an unknown section, group
// or key, or [scenario] / [obstacle] / [wall] / [path], which cannot be
// overridden), false for a value or a check of the whole.
boids_result boids_scenario_load_with(const char *path, const boids_scenario_override *ov, uint32_t n,
                                      boids_scenario *out, char *err, size_t err_size, bool *key_problem);
// The same from a string (tests); `name` stands for the path in messages.
boids_result boids_scenario_load_string(const char *text, const char *name, boids_scenario *out, char *err,
                                        size_t err_size);
// Writes every value of sc (params as they are) as a scenario file that
// loads back to the same params. Returns false on a write error.
bool boids_scenario_write(const boids_scenario *sc, FILE *f);
// The time-dependent parts at `step`: the circling or line target (position
// and velocity) and the varying weights, into p (same groups as sc). The line
// target is computed from the step (in double), not advanced: the same at any
// step for every host, after a reload too.
void boids_scenario_at_step(const boids_scenario *sc, uint64_t step, boids_params *p);
/* The circle target's radius unless given: a quarter of the world's smaller
 * side of x and y, at most BOIDS_SCENARIO_MAX_RADIUS (so that a written
 * scenario or snapshot loads back whatever the world's size). */
float boids_scenario_default_target_radius(const boids_world_params *w);
// A world the file does not size, for p's count and dimension: at the
// file's density, else for about 20 neighbours (boids_params_auto_world).
void boids_scenario_size_world(const boids_scenario *sc, boids_params *p);
// Whether anything changes with the step (hosts then call at_step each step).
bool boids_scenario_is_dynamic(const boids_scenario *sc);
// Whether the schedule moves the target (circle, line): the viewer's mouse does not.
bool boids_scenario_target_scheduled(const boids_scenario *sc);
// The line target on one axis [lo, lo + size] at `step`: start + step *
// velocity, mirrored back inside at each edge with the velocity negated (as
// a per-step bounce would give); size <= 0: start, velocity 0.
void boids_target_line_axis(double lo, double size, double start, double velocity, uint64_t step, double *pos,
                            double *vel);

// cos(half the field of view) of degrees in (0, 360] (360: -1, all around),
// as the groups' fov_cos / view_cos hold it; --fov uses it too.
float boids_fov_cos(float degrees);

// The shipped scenarios' directory, the first that exists of:
// $BOIDS_SCENARIOS; the installed PREFIX/share/boids/scenarios, found from
// the folder of the installed libboids.so (or of a program in PREFIX/bin
// linked with libboids.a), so a moved prefix still finds it, or a folder
// scenarios/ beside the library (the Python package's bundle); the source
// tree's scenarios/ (compiled in). NULL if none.
const char *boids_scenario_dir(void);
// `arg` as a file: itself if it names a file (contains '/' or ends in .ini),
// else DIR/arg.ini of boids_scenario_dir. Writes into out; false if none.
bool boids_scenario_find(const char *arg, char *out, size_t out_size);
// Prints "NAME  TITLE" for every scenario of the directory, sorted; the count.
int boids_scenario_list(FILE *f);

#ifdef __cplusplus
}
#endif

#endif
