/* boids/registry.h: the parameter registry. One line per parameter a user
 * sets by name: where it lives (the world's or every group's parameters,
 * which field), its kind of value, its range and default, its boids-run
 * flag and Python keyword, its scenario key, whether a running simulation
 * may change it, its --help line. Everything that reads or writes a
 * parameter by name is generated from this list:
 *   boids-run's, the viewer's and boids-bench's parameter flags and their
 *   --help (src/app/cli_flags.c), the engine's options (the Python keywords
 *   and boids.options(), boids_engine_create_options / _set_options), the
 *   scenario reader's and writer's group and world keys, boids_group_value,
 *   the viewer's tunables, and the one function that turns given values
 *   into parameters (boids_param_apply), used by every program and Python.
 * Adding a parameter: one line here, the field in shaders/shared.h, the
 * behaviour that uses it (C and GLSL), a test (docs/ARCHITECTURE.md). */
#ifndef BOIDS_REGISTRY_H
#define BOIDS_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "boids/core.h"

#ifdef __cplusplus
extern "C" {
#endif

// What a value is (and what its text looks like).
typedef enum boids_param_kind {
    BOIDS_PK_FLOAT,     // a number lo..hi into the float field
    BOIDS_PK_DEGREES,   // an angle in degrees, 0 < a <= 360: cos(a / 2) into the field (aux: its BOIDS_CONE_* bit)
    BOIDS_PK_UINT,      // an integer lo..hi into the uint field
    BOIDS_PK_CHOICE,    // a name of `choices`: its index into the uint field (aux: a path flag bit, see PATH)
    BOIDS_PK_RANGE,     // LO,HI with 0 < LO <= HI: two floats from the field on
    BOIDS_PK_AGENT,     // an agent id or "target" into the uint field
    BOIDS_PK_AGENTS,    // A,B: two of them into the field and the next
    BOIDS_PK_BEHAVIORS, // a comma list of behaviour names or sets into the mask
    BOIDS_PK_WEIGHTS,   // NAME=W,...: the weights of the named behaviours
    BOIDS_PK_EXTENTS,   // WxH or WxHxD, each > 0
    BOIDS_PK_POINT,     // X,Y or X,Y,Z
    BOIDS_PK_VECTOR,    // x, y[, z] of finite numbers, |each| <= hi, into three floats
} boids_param_kind;

// Where a value goes.
typedef enum boids_param_where {
    BOIDS_PW_GROUP, // boids_group_params at `field`, of every group (or the one named)
    BOIDS_PW_WORLD, // boids_world_params at `field`
    BOIDS_PW_PATH,  // a bit (aux) of scene.path_flags: the choice's second name sets it
    BOIDS_PW_BODY,  // the bodies (boids_body_make from the style, joints and length)
    BOIDS_PW_SHAPE, // the world's extents and origin: set by the caller with the dimension
} boids_param_where;

// The sections of --help a parameter is listed in.
typedef enum boids_param_section {
    BOIDS_PS_WORLD,
    BOIDS_PS_AGENTS,
    BOIDS_PS_STEERING,
    BOIDS_PS_NAMED,
    BOIDS_PS_RULES,
    BOIDS_PS_BODIES,
} boids_param_section;

// Flags of a parameter.
#define BOIDS_PF_STRICT 1u   // the range's lo is excluded (> lo)
#define BOIDS_PF_CREATE 2u   // needs a new simulation (the grid, the world or the agents' set-up)
#define BOIDS_PF_TUNE 4u     // the viewer's [ ] - = keys step it (with the behaviours' weights)
#define BOIDS_PF_NO_KEY 16u  // no scenario key of its own (written and read by the scenario's own rules)
#define BOIDS_PF_CONE 32u    // DEGREES: sets its own cone (aux) in own_cones
#define BOIDS_PF_REACH 64u   // part of the interaction radius (the grid's cells): a bad one is BOIDS_ERR_RADIUS
#define BOIDS_PF_UNSET0 128u // 0 means unset (another value stands in): allowed besides the range

/* Ranges that keep a state finite in float (FLT_MAX 3.4e38). A time step
 * and a speed of at least BOIDS_MIN_RATE: a look-ahead of distance / speed
 * (offset pursuit, interpose) stays below about 1e15 time units, and a
 * target's velocity of distance / dt below 1e16. Speeds and forces at most
 * BOIDS_MAX_RATE, look-ahead times at most BOIDS_MAX_LOOKAHEAD: a velocity
 * times a look-ahead, and the squares and weighted sums of forces, stay far
 * below FLT_MAX. */
#define BOIDS_MIN_RATE 1e-6
#define BOIDS_MAX_RATE 1e9
#define BOIDS_MAX_LOOKAHEAD 1e6
/* The flow field's noise (a scenario's [flowfield], not rows here, but the
 * same rule in its reader and in finalize): noise_scale at most
 * BOIDS_FLOW_NOISE_SCALE_MAX, a resolution at most BOIDS_MAX_EXTENT, and
 * noise_scale times the farthest cell centre's coordinate at most
 * BOIDS_FLOW_NOISE_MAX (2^24, where floats still hold whole units; Perlin
 * noise takes the integer part, and beyond 2^31 it has none: NaN). */
#define BOIDS_FLOW_NOISE_SCALE_MAX 1e6f
#define BOIDS_FLOW_NOISE_MAX 16777216.0

#define BOIDS_PG_FIELD(f) offsetof(boids_group_params, f)
#define BOIDS_PW_FIELD(f) offsetof(boids_world_params, f)

/* X(ID, name, flag, key, kind, where, field, lo, hi, default, flags, aux,
 *   choices, metavar, section, expected, help)
 * name: the Python keyword and boids_group_value's name; flag: boids-run's
 *   flag without "--"; key: the scenario key ([world] or [group.NAME]; NULL:
 *   none); where, field: BOIDS_PW_* and the offset in its struct;
 * lo, hi: the accepted range (FLOAT, UINT; VECTOR: |each| <= hi); default:
 *   FLOAT's and UINT's default; flags: BOIDS_PF_*;
 * aux: DEGREES with BOIDS_PF_CONE: its BOIDS_CONE_* bit; PATH: its
 *   BOIDS_PATH_* bit; FLOAT: the behaviour bits that use it (a written
 *   scenario lists it when one is on, or when it is not the default);
 * choices: CHOICE's NULL-terminated names; metavar: the value in --help;
 * expected: what a message says is allowed (CHOICE: the problem, "is not
 *   a ..."); help: the --help line ("%N": the names the value may be). */
#define BOIDS_PARAM_LIST(X)                                                                                            \
    /* The world. */                                                                                                  \
    X(WORLD, "world", "world", "size", BOIDS_PK_EXTENTS, BOIDS_PW_SHAPE, 0, 0, 1e9, 0,                                \
      BOIDS_PF_CREATE|BOIDS_PF_NO_KEY, 0, NULL, "WxH[xD]", BOIDS_PS_WORLD,                                            \
      "WxH (2D) or WxHxD (3D), every extent > 0",                                                                     \
      "world extents (default: sized for about 20 neighbours per agent)")                                             \
    X(ORIGIN, "origin", "origin", "origin", BOIDS_PK_POINT, BOIDS_PW_SHAPE, 0, 0, 0, 0,                               \
      BOIDS_PF_CREATE|BOIDS_PF_NO_KEY, 0, NULL, "X,Y[,Z]", BOIDS_PS_WORLD,                                            \
      "X,Y (2D) or X,Y,Z (3D), finite numbers", "the world's lower corner (default 0,0[,0])")                         \
    X(BOUNDARY, "boundary", "boundary", "boundary", BOIDS_PK_CHOICE, BOIDS_PW_WORLD, BOIDS_PW_FIELD(boundary), 0,     \
      0, 0, 0, 0, boids_parse_boundary_names, "MODE", BOIDS_PS_WORLD, "is not a boundary mode",                       \
      "the world's edges: %N (default wrap; margin: the chapter's sketch, borders() with plain distances)")           \
    X(MARGIN, "margin", "margin", "margin", BOIDS_PK_FLOAT, BOIDS_PW_WORLD, BOIDS_PW_FIELD(margin), 0, 1e9, 0,        \
      BOIDS_PF_STRICT|BOIDS_PF_UNSET0, 0, NULL, "R", BOIDS_PS_WORLD,                                                  \
      "a margin > 0 (boundary margin: the boid size r of the chapter's sketch, default 3)",                           \
      "boundary margin's margin, the sketch's boid size r (default 3)")                                               \
    X(WALL_CORNER, "wall_corner", "wall-corner", "wall_corner", BOIDS_PK_CHOICE, BOIDS_PW_WORLD,                      \
      BOIDS_PW_FIELD(wall_corner), 0, 0, 0, 0, 0, boids_parse_wall_corner_names, "RULE", BOIDS_PS_WORLD,              \
      "is not a wall-corner rule",                                                                                    \
      "staying within walls at a corner: %N (default both: away from every near wall; book: the "                     \
      "chapter's, the last near axis decides)")                                                                       \
    X(WALL_OFFSET, "wall_offset", "wall-offset", "wall_offset", BOIDS_PK_FLOAT, BOIDS_PW_WORLD,                       \
      BOIDS_PW_FIELD(wall_offset), 0, BOIDS_MAX_EXTENT, 25, 0, 0, NULL, "D", BOIDS_PS_WORLD, "a distance 0..1e9",     \
      "boundary walls: steer back within D of an edge (default 25)")                                                  \
    X(DT, "dt", "dt", "dt", BOIDS_PK_FLOAT, BOIDS_PW_WORLD, BOIDS_PW_FIELD(dt), BOIDS_MIN_RATE, 1000, 1, 0, 0, NULL,  \
      "T", BOIDS_PS_WORLD, "a time step 1e-6..1000", "time step, 1e-6..1000 (default 1)")                             \
    X(GRID_FINE, "grid_fine", "grid-fine", "grid_fine", BOIDS_PK_CHOICE, BOIDS_PW_WORLD,                              \
      BOIDS_PW_FIELD(grid_fine), 0, 0, 0, BOIDS_PF_CREATE, 0, boids_parse_grid_fine_names, "M", BOIDS_PS_WORLD,       \
      "is not a grid fine factor",                                                                                    \
      "the finer grid, M = %N: cells of reach / M, each search over the c-M..c+M block (default 1; auto: "            \
      "M from the measured density); the same neighbours, the same bits")                                             \
    /* Every group: behaviours, neighbourhoods, limits. */                                                            \
    X(BEHAVIORS, "behaviors", "behaviors", "behaviors", BOIDS_PK_BEHAVIORS, BOIDS_PW_GROUP,                           \
      BOIDS_PG_FIELD(behaviors), 0, 0, 0, 0, 0, NULL, "LIST", BOIDS_PS_AGENTS,                                        \
      "a comma list of behaviour names, flocking, or all, none",                                                      \
      "a comma list of behaviours or sets: %N (default flocking = separation, alignment, cohesion)")                  \
    X(WEIGHTS, "weights", "weights", NULL, BOIDS_PK_WEIGHTS, BOIDS_PW_GROUP, BOIDS_PG_FIELD(weight), -1e6, 1e6, 0,    \
      BOIDS_PF_NO_KEY, 0, NULL, "NAME=W,...", BOIDS_PS_AGENTS,                                                        \
      "name=value,... with a finite number for each named behaviour",                                                 \
      "the weight of each named behaviour (default 1; separation 1.5), NAME one of %N")                               \
    X(COMBINE, "combine", "combine", "combine", BOIDS_PK_CHOICE, BOIDS_PW_WORLD, BOIDS_PW_FIELD(combine), 0, 0, 0,    \
      0, 0, boids_parse_combine_names, "MODE", BOIDS_PS_AGENTS, "is not a combination mode",                          \
      "how the forces add up: %N (default sum; priority: the first force above the threshold; truncated: "            \
      "Buckland's running sum in priority order until maxforce is spent)")                                            \
    X(MAXSPEED, "maxspeed", "maxspeed", "maxspeed", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(maxspeed),         \
      BOIDS_MIN_RATE, BOIDS_MAX_RATE, 3, BOIDS_PF_TUNE, 0, NULL, "V", BOIDS_PS_AGENTS, "a maximum speed 1e-6..1e9",   \
      "maximum speed, 1e-6..1e9 (default 3)")                                                                         \
    X(MAXFORCE, "maxforce", "maxforce", "maxforce", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(maxforce), 0,      \
      BOIDS_MAX_RATE, 0.05, BOIDS_PF_STRICT|BOIDS_PF_TUNE, 0, NULL, "F", BOIDS_PS_AGENTS,                             \
      "a maximum steering force > 0 and <= 1e9", "maximum steering force, up to 1e9 (default 0.05)")                  \
    X(MIN_SPEED, "min_speed", "min-speed", "min_speed", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(min_speed), 0, \
      BOIDS_MAX_RATE, 0, BOIDS_PF_UNSET0, 0, NULL, "V", BOIDS_PS_AGENTS, "a speed 0..maxspeed (0: none)",             \
      "the least speed: a slower agent is sped up to it after the force, rules chapter (default 0: none)")            \
    X(MAXSPEED_RANGE, "maxspeed_range", "maxspeed-range", "maxspeed_range", BOIDS_PK_RANGE, BOIDS_PW_GROUP,           \
      BOIDS_PG_FIELD(maxspeed_lo), BOIDS_MIN_RATE, BOIDS_MAX_RATE, 0, 0, 0, NULL, "LO,HI", BOIDS_PS_AGENTS,           \
      "LO,HI with 1e-6 <= LO <= HI <= 1e9",                                                                           \
      "each agent's own maxspeed, uniform in LO..HI (seeded by its id; replaces --maxspeed)")                         \
    X(MAXFORCE_RANGE, "maxforce_range", "maxforce-range", "maxforce_range", BOIDS_PK_RANGE, BOIDS_PW_GROUP,           \
      BOIDS_PG_FIELD(maxforce_lo), 0, BOIDS_MAX_RATE, 0, BOIDS_PF_STRICT, 0, NULL, "LO,HI", BOIDS_PS_AGENTS,          \
      "LO,HI with 0 < LO <= HI <= 1e9", "each agent's own maxforce, uniform in LO..HI")                               \
    X(RADIUS, "radius", "radius", "radius", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(radius), 0, 3.4e38, 50,    \
      BOIDS_PF_STRICT|BOIDS_PF_REACH, 0, NULL, "R", BOIDS_PS_AGENTS, "a perception radius > 0",                       \
      "perception radius (default 50)")                                                                               \
    X(SEPARATION, "separation", "separation", "separation", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                           \
      BOIDS_PG_FIELD(separation), 0, 3.4e38, 25, BOIDS_PF_STRICT|BOIDS_PF_TUNE|BOIDS_PF_REACH, 0, NULL, "R",          \
      BOIDS_PS_AGENTS, "a desired separation > 0", "desired separation (default 25)")                                 \
    X(FOV, "fov", "fov", "fov", BOIDS_PK_DEGREES, BOIDS_PW_GROUP, BOIDS_PG_FIELD(fov_cos), 0, 360, 360, 0, 0,         \
      NULL, "DEGREES", BOIDS_PS_AGENTS, "a field of view in degrees, 0 < fov <= 360",                                 \
      "field of view, 0 < fov <= 360 (default 360)")                                                                  \
    X(ALIGNMENT_RADIUS, "alignment_radius", "alignment-radius", "alignment_radius", BOIDS_PK_FLOAT,                   \
      BOIDS_PW_GROUP, BOIDS_PG_FIELD(alignment_radius), 0, 3.4e38, 0,                                                 \
      BOIDS_PF_STRICT|BOIDS_PF_REACH|BOIDS_PF_UNSET0, 0, NULL, "R", BOIDS_PS_AGENTS, "an alignment radius > 0",       \
      "alignment's own radius (OpenSteer's per-rule neighbourhoods; default --radius)")                               \
    X(COHESION_RADIUS, "cohesion_radius", "cohesion-radius", "cohesion_radius", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,       \
      BOIDS_PG_FIELD(cohesion_radius), 0, 3.4e38, 0, BOIDS_PF_STRICT|BOIDS_PF_REACH|BOIDS_PF_UNSET0, 0, NULL, "R",    \
      BOIDS_PS_AGENTS, "a cohesion radius > 0", "cohesion's own radius (default --radius)")                           \
    X(SEPARATION_FOV, "separation_fov", "separation-fov", "separation_fov", BOIDS_PK_DEGREES, BOIDS_PW_GROUP,         \
      BOIDS_PG_FIELD(separation_fov_cos), 0, 360, 0, BOIDS_PF_CONE, BOIDS_CONE_SEPARATION, NULL, "DEGREES",           \
      BOIDS_PS_AGENTS, "separation's field of view in degrees, 0 < fov <= 360",                                       \
      "separation's own field of view (default --fov)")                                                               \
    X(ALIGNMENT_FOV, "alignment_fov", "alignment-fov", "alignment_fov", BOIDS_PK_DEGREES, BOIDS_PW_GROUP,             \
      BOIDS_PG_FIELD(alignment_fov_cos), 0, 360, 0, BOIDS_PF_CONE, BOIDS_CONE_ALIGNMENT, NULL, "DEGREES",             \
      BOIDS_PS_AGENTS, "alignment's field of view in degrees, 0 < fov <= 360",                                        \
      "alignment's own field of view (default --fov)")                                                                \
    X(COHESION_FOV, "cohesion_fov", "cohesion-fov", "cohesion_fov", BOIDS_PK_DEGREES, BOIDS_PW_GROUP,                 \
      BOIDS_PG_FIELD(cohesion_fov_cos), 0, 360, 0, BOIDS_PF_CONE, BOIDS_CONE_COHESION, NULL, "DEGREES",               \
      BOIDS_PS_AGENTS, "cohesion's field of view in degrees, 0 < fov <= 360",                                         \
      "cohesion's own field of view (default --fov)")                                                                 \
    X(NEIGHBORS_MAX, "neighbors_max", "neighbors-max", "neighbors_max", BOIDS_PK_UINT, BOIDS_PW_GROUP,                \
      BOIDS_PG_FIELD(neighbors_max), 0, BOIDS_MAX_NEIGHBORS_K, 0, 0, 0, NULL, "K", BOIDS_PS_AGENTS,                   \
      "the nearest K neighbours; 0 = every neighbour",                                                                \
      "topological neighbourhoods (Ballerini et al. 2008), 0..32: each agent heeds only its K nearest "               \
      "accepted neighbours (ties: the smaller id); 0 (default) = every neighbour")                                    \
    X(VIEW_RADIUS, "view_radius", "view-radius", "view_radius", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                       \
      BOIDS_PG_FIELD(view_radius), 0, 3.4e38, 50, BOIDS_PF_STRICT|BOIDS_PF_REACH, 0, NULL, "R", BOIDS_PS_AGENTS,      \
      "a view radius > 0", "view (Flake's fourth rule): how far ahead a neighbour blocks the view (default 50)")      \
    X(VIEW_FOV, "view_fov", "view-fov", "view_fov", BOIDS_PK_DEGREES, BOIDS_PW_GROUP, BOIDS_PG_FIELD(view_cos), 0,    \
      360, 60, 0, 0, NULL, "DEGREES", BOIDS_PS_AGENTS, "the view's cone in degrees, 0 < fov <= 360",                  \
      "view: the cone ahead that a neighbour blocks (default 60)")                                                    \
    X(MAX_TURN, "max_turn", "max-turn", "max_turn", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(max_turn), 0,      \
      3.4e38, 0, 0, 0, NULL, "RADIANS", BOIDS_PS_AGENTS, "a turn rate >= 0 (0: no limit)",                            \
      "the most a heading turns per time unit, radians (default 0: no limit)")                                        \
    X(BODY_RADIUS, "body_radius", "body-radius", "body_radius", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                       \
      BOIDS_PG_FIELD(body_radius), 0, 3.4e38, 3, 0, 0, NULL, "R", BOIDS_PS_AGENTS, "a size >= 0",                     \
      "an agent's size for obstacle clearance (default 3)")                                                           \
    X(PRIORITY_THRESHOLD, "priority_threshold", "priority-threshold", "priority_threshold", BOIDS_PK_FLOAT,           \
      BOIDS_PW_GROUP, BOIDS_PG_FIELD(priority_threshold), 0, 3.4e38, 0.005, 0, 0, NULL, "F", BOIDS_PS_AGENTS,         \
      "a force >= 0", "combine priority: a force above this wins (default 0.005)")                                    \
    /* Every group: the steering behaviours' own parameters. */                                                       \
    X(PREDICT, "predict", "predict", "predict", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(predict), 0,           \
      BOIDS_MAX_LOOKAHEAD, 10, 0, 0, NULL, "T", BOIDS_PS_STEERING, "a time 0..1e6",                                   \
      "pursue, evade, hunt, escape: the look-ahead in time units, 0..1e6 (default 10)")                               \
    X(ARRIVE_RADIUS, "arrive_radius", "arrive-radius", "arrive_radius", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,               \
      BOIDS_PG_FIELD(arrive_radius), 0, 3.4e38, 100, 0, 0, NULL, "R", BOIDS_PS_STEERING, "a distance >= 0",           \
      "arrive: the slowing radius (default 100)")                                                                     \
    X(WANDER_DISTANCE, "wander_distance", "wander-distance", "wander_distance", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,       \
      BOIDS_PG_FIELD(wander_distance), 0, 3.4e38, 80, 0, 0, NULL, "D", BOIDS_PS_STEERING, "a distance >= 0",          \
      "wander: the circle's centre this far ahead (default 80)")                                                      \
    X(WANDER_RADIUS, "wander_radius", "wander-radius", "wander_radius", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,               \
      BOIDS_PG_FIELD(wander_radius), 0, 3.4e38, 25, 0, 0, NULL, "R", BOIDS_PS_STEERING, "a radius >= 0",              \
      "wander: the circle's radius (default 25)")                                                                     \
    X(WANDER_CHANGE, "wander_change", "wander-change", "wander_change", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,               \
      BOIDS_PG_FIELD(wander_change), 0, BOIDS_PI, 0.3, 0, 0, NULL, "RADIANS", BOIDS_PS_STEERING,                      \
      "an angle 0..pi radians", "wander: the most the angle changes per step (default 0.3)")                          \
    X(PATH_PREDICT, "path_predict", "path-predict", "path_predict", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                   \
      BOIDS_PG_FIELD(path_predict), 0, 3.4e38, 25, 0, 0, NULL, "D", BOIDS_PS_STEERING, "a distance >= 0",             \
      "path: the future position this far ahead (default 25)")                                                        \
    X(PATH_AHEAD, "path_ahead", "path-ahead", "path_ahead", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                           \
      BOIDS_PG_FIELD(path_ahead), 0, 3.4e38, 10, 0, 0, NULL, "D", BOIDS_PS_STEERING, "a distance >= 0",               \
      "path: the target this far along the path from the normal point (default 10)")                                  \
    X(AVOID_DISTANCE, "avoid_distance", "avoid-distance", "avoid_distance", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,           \
      BOIDS_PG_FIELD(avoid_distance), 0, 3.4e38, 50, 0, 0, NULL, "D", BOIDS_PS_STEERING, "a distance >= 0",           \
      "obstacles: the look-ahead (default 50)")                                                                       \
    X(TARGET_SPEED, "target_speed", "target-speed", "target_speed", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                   \
      BOIDS_PG_FIELD(target_speed), 0, 3.4e38, BOIDS_TARGET_SPEED_DEFAULT, 0, BOIDS_BIT(BOIDS_BI_SPEED), NULL,        \
      "V", BOIDS_PS_STEERING, "a speed >= 0", "speed: the wanted speed (default 1.5)")                                \
    X(QUEUE_DISTANCE, "queue_distance", "queue-distance", "queue_distance", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,           \
      BOIDS_PG_FIELD(queue_distance), 0, 3.4e38, BOIDS_QUEUE_DISTANCE_DEFAULT, 0, BOIDS_BIT(BOIDS_BI_QUEUE), NULL,    \
      "D", BOIDS_PS_STEERING, "a distance >= 0", "queue: how close \"close ahead\" is (default 10)")                  \
    X(AVOID_HORIZON, "avoid_horizon", "avoid-horizon", "avoid_horizon", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,               \
      BOIDS_PG_FIELD(avoid_horizon), 0, 3.4e38, BOIDS_AVOID_HORIZON_DEFAULT, 0, BOIDS_BIT(BOIDS_BI_AVOID), NULL,      \
      "T", BOIDS_PS_STEERING, "a time >= 0", "avoid: the time horizon of a threat (default 30)")                      \
    X(HIDE_MARGIN, "hide_margin", "hide-margin", "hide_margin", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                       \
      BOIDS_PG_FIELD(hide_margin), 0, 3.4e38, BOIDS_HIDE_MARGIN_DEFAULT, 0, BOIDS_BIT(BOIDS_BI_HIDE), NULL, "D",      \
      BOIDS_PS_STEERING, "a distance >= 0", "hide: the spot's distance behind an obstacle's edge (default 10)")       \
    X(FEELER_LENGTH, "feeler_length", "feeler-length", "feeler_length", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,               \
      BOIDS_PG_FIELD(feeler_length), 0, BOIDS_MAX_EXTENT, BOIDS_FEELER_LENGTH_DEFAULT, 0,                             \
      BOIDS_BIT(BOIDS_BI_FEELERS), NULL, "L", BOIDS_PS_STEERING, "a length 0..1e9",                                   \
      "feelers: the feeler ahead; the two at 45 degrees are half (default 40)")                                       \
    /* Named agents and paths. */                                                                                     \
    X(LEADER, "leader", "leader", "leader", BOIDS_PK_AGENT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(leader), 0, 0, 0, 0, 0,    \
      NULL, "ID|target", BOIDS_PS_NAMED, "an agent id below the count, or target",                                    \
      "every group's leader of offset and follow: an agent id or target (default target)")                            \
    X(FORMATION, "formation", "formation", "formation", BOIDS_PK_CHOICE, BOIDS_PW_GROUP,                              \
      BOIDS_PG_FIELD(formation), 0, 0, 0, 0, 0, boids_parse_formation_names, "SHAPE", BOIDS_PS_NAMED,                 \
      "is not a formation", "offset's places from each member's rank: %N (none: leader_offset)")                      \
    X(FORMATION_SPACING, "formation_spacing", "formation-spacing", "formation_spacing", BOIDS_PK_FLOAT,               \
      BOIDS_PW_GROUP, BOIDS_PG_FIELD(formation_spacing), 0, BOIDS_MAX_EXTENT, BOIDS_FORMATION_SPACING_DEFAULT, 0,     \
      0, NULL, "S", BOIDS_PS_NAMED, "a spacing 0..1e9", "formations: the members this far apart (default 15)")        \
    X(LEADER_OFFSET, "leader_offset", "leader-offset", "leader_offset", BOIDS_PK_VECTOR, BOIDS_PW_GROUP,              \
      BOIDS_PG_FIELD(leader_offset), 0, BOIDS_MAX_EXTENT, 0, 0, 0, NULL, "X,Y[,Z]", BOIDS_PS_NAMED,                   \
      "AHEAD, LEFT[, UP] in the leader's frame, each -1e9..1e9",                                                      \
      "offset with formation none: the place in the leader's frame, ahead, left, up (default -20,0,0)")               \
    X(LEADER_BEHIND, "leader_behind", "leader-behind", "leader_behind", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,               \
      BOIDS_PG_FIELD(leader_behind), 0, BOIDS_MAX_EXTENT, BOIDS_LEADER_BEHIND_DEFAULT, 0, 0, NULL, "D",               \
      BOIDS_PS_NAMED, "a distance 0..1e9", "follow: the point this far behind the leader (default 20)")               \
    X(LEADER_SIGHT, "leader_sight", "leader-sight", "leader_sight", BOIDS_PK_FLOAT, BOIDS_PW_GROUP,                   \
      BOIDS_PG_FIELD(leader_sight), 0, BOIDS_MAX_EXTENT, BOIDS_LEADER_SIGHT_DEFAULT, 0, 0, NULL, "D",                 \
      BOIDS_PS_NAMED, "a distance 0..1e9",                                                                            \
      "follow: this near the leader or its point ahead, out of its way (default 15)")                                 \
    X(INTERPOSE, "interpose", "interpose", "interpose", BOIDS_PK_AGENTS, BOIDS_PW_GROUP,                              \
      BOIDS_PG_FIELD(interpose_a), 0, 0, 0, 0, 0, NULL, "A,B", BOIDS_PS_NAMED,                                        \
      "A,B: each an agent id below the count, or target",                                                             \
      "the two agents interpose goes between: ids or target (default 0,target)")                                      \
    X(PATH_OUTSIDE, "path_outside", "path-outside", NULL, BOIDS_PK_CHOICE, BOIDS_PW_PATH, 0, 0, 0, 0,                 \
      BOIDS_PF_NO_KEY, BOIDS_PATH_OUTSIDE_END, boids_parse_path_outside_names, "RULE", BOIDS_PS_NAMED,                \
      "is not a rule outside a path segment",                                                                         \
      "a path's normal point outside a segment: %N (default clamp: the nearer end; end: the segment's "               \
      "end point, as the book's Example 5.8)")                                                                        \
    X(PATH_LINE, "path_line", "path-line", NULL, BOIDS_PK_CHOICE, BOIDS_PW_PATH, 0, 0, 0, 0, BOIDS_PF_NO_KEY,         \
      BOIDS_PATH_LINE_INFINITE, boids_parse_path_line_names, "KIND", BOIDS_PS_NAMED, "is not a kind of path line",    \
      "a path's lines: %N (default segment; infinite: through a segment's two points, unclamped, as the "             \
      "book's 5.5 / 5.6)")                                                                                            \
    /* Rule sets and models. */                                                                                       \
    X(RULES, "rules", "rules", "rules", BOIDS_PK_CHOICE, BOIDS_PW_GROUP, BOIDS_PG_FIELD(rules), 0, 0, 0, 0, 0,        \
      boids_parse_rules_names, "NAME", BOIDS_PS_RULES, "is not a rule set",                                           \
      "every group's rule set: %N (default chapter)")                                                                 \
    X(ETA, "eta", "eta", "eta", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(noise), 0, BOIDS_TWO_PI, 0, 0, 0,      \
      NULL, "RADIANS", BOIDS_PS_RULES, "Vicsek's noise width in radians, 0..2 pi (rules vicsek)",                     \
      "Vicsek's noise width, 0..2 pi (rules vicsek)")                                                                 \
    X(SIGMA, "sigma", "sigma", "sigma", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(noise), 0, BOIDS_PI, 0, 0,     \
      0, NULL, "RADIANS", BOIDS_PS_RULES, "Couzin's angular noise deviation in radians, 0..pi (rules couzin)",        \
      "Couzin's angular noise deviation, 0..pi (rules couzin)")                                                       \
    X(TURN, "turn", "turn", "turn", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(turn), 0, BOIDS_PI,                \
      BOIDS_TURN_DEFAULT, 0, 0, NULL, "RADIANS", BOIDS_PS_RULES,                                                      \
      "the turn per time unit in radians, 0..pi (rules heading: per rule; couzin: the most)",                         \
      "the turn per time unit, 0..pi (rules heading: per rule; couzin: the most)")                                    \
    X(REPULSE, "repulse", "repulse", "repulse", BOIDS_PK_FLOAT, BOIDS_PW_GROUP, BOIDS_PG_FIELD(repulse), 0,           \
      BOIDS_MAX_EXTENT, 0, BOIDS_PF_UNSET0, 0, NULL, "K", BOIDS_PS_RULES, "a factor 0..1e9 (0: the default 0.05)",    \
      "rules circles: the repulsion factor (default 0.05)")                                                           \
    /* Bodies. */                                                                                                     \
    X(BODIES, "bodies", "bodies", "body", BOIDS_PK_CHOICE, BOIDS_PW_BODY, 0, 0, 0, 0, BOIDS_PF_CREATE, 0,             \
      boids_param_body_names, "STYLE", BOIDS_PS_BODIES, "is not a body style",                                        \
      "a procedural body trailing every agent: %N (default none; distance and angle constraints, after "              \
      "integrate)")                                                                                                   \
    X(JOINTS, "joints", "joints", "joints", BOIDS_PK_UINT, BOIDS_PW_BODY, 0, BOIDS_MIN_JOINTS, BOIDS_MAX_JOINTS,      \
      12, BOIDS_PF_CREATE, 0, NULL, "J", BOIDS_PS_BODIES, "joints per body", "joints per body, 2..32 (default 12)")   \
    X(BODY_LENGTH, "body_length", "body-length", "body_length", BOIDS_PK_FLOAT, BOIDS_PW_BODY, 0, 0, 3.4e38, 0,       \
      BOIDS_PF_STRICT|BOIDS_PF_CREATE|BOIDS_PF_UNSET0, 0, NULL, "L", BOIDS_PS_BODIES,                                 \
      "a body length > 0 (world units, head to tail)",                                                                \
      "a body's length head to tail (default 1.2 x the separation)")

// BOIDS_PARAM_<ID>: a parameter's index in boids_param_table.
typedef enum boids_param_id {
#define BOIDS_PARAM_ENUM(ID, ...) BOIDS_PARAM_##ID,
    BOIDS_PARAM_LIST(BOIDS_PARAM_ENUM)
#undef BOIDS_PARAM_ENUM
    BOIDS_PARAM_COUNT
} boids_param_id;

// One parameter (the columns of BOIDS_PARAM_LIST).
typedef struct boids_param_info {
    const char *name, *flag, *key;
    boids_param_kind kind;
    boids_param_where where;
    size_t field;
    double lo, hi, def;
    uint32_t flags, aux;
    const char *const *choices;
    const char *metavar;
    boids_param_section section;
    const char *expected, *help;
} boids_param_info;

// The body styles' names, for BODIES (boids_body_style_name's).
extern const char *const boids_param_body_names[];
// Every parameter, in BOIDS_PARAM_LIST's order.
extern const boids_param_info boids_param_table[BOIDS_PARAM_COUNT];
// The parameter of a name, flag or scenario key (any spelling of the
// three), or -1.
int boids_param_find(const char *name);

// Values given by name (flags, keywords, a plan's settings), each parsed and
// checked, not yet applied.
typedef struct boids_param_value {
    float f[3];    // FLOAT, DEGREES (degrees), RANGE, EXTENTS, POINT, VECTOR
    uint32_t u[2]; // UINT, CHOICE, AGENT, AGENTS, BEHAVIORS
    uint32_t n;    // EXTENTS, POINT, VECTOR: how many numbers
} boids_param_value;
typedef struct boids_param_values {
    bool set[BOIDS_PARAM_COUNT];
    boids_param_value v[BOIDS_PARAM_COUNT];
    bool weight_set[BOIDS_BEHAVIOR_COUNT]; // WEIGHTS, per behaviour
    float weight[BOIDS_BEHAVIOR_COUNT];
} boids_param_values;

// Whether x is outside the range of a FLOAT or RANGE row (lo, hi, STRICT;
// not UNSET0's 0): NULL when inside, else the problem ("not a finite
// number", "negative", "zero", "too small", "too large"). The one rule of
// the flags, the scenario keys, the engine's options and finalize.
const char *boids_param_out_of_range(const boids_param_info *in, float x);
// Reads `text` as the value of parameter id (not WEIGHTS) into *out; trim:
// 0, or BOIDS_PARSE_TRIM for blanks around the value and its items (a
// scenario's). NULL when it is good; else the problem, with what is allowed
// in expected.
const char *boids_param_read(boids_param_id id, const char *text, unsigned trim, boids_param_value *out, char *problem,
                             size_t problem_size, char *expected, size_t expected_size);
// Parses `text` as parameter id into values. NULL when it is good; else the
// problem ("is negative", "names an unknown behaviour 'x'"), with what is
// allowed in expected (expected_size bytes).
const char *boids_param_parse(boids_param_values *values, boids_param_id id, const char *text, char *problem,
                              size_t problem_size, char *expected, size_t expected_size);
// One parameter's value into p: the world's field, the path's flag, or the
// field of every group (group >= BOIDS_MAX_GROUPS) or of one. (WEIGHTS,
// BODY and SHAPE parameters are not put this way: see boids_param_apply.)
void boids_param_put(boids_param_id id, const boids_param_value *v, boids_params *p, uint32_t group);
// The given values into p: the world's, the path's, and the groups' (every
// group, or only `group` when it is below BOIDS_MAX_GROUPS), then the bodies
// from their style, joints and length. The world's extents and origin are
// the caller's (they go with the dimension and the automatic world).
// BOIDS_ERR_PARAM (eta or sigma for the other model's group) or
// BOIDS_ERR_BODY with the problem in err; flag_style: names in messages as
// flags ("--eta") rather than names ("eta").
boids_result boids_param_apply(const boids_param_values *values, boids_params *p, uint32_t group, bool flag_style,
                               char *err, size_t err_size);


// Where a simulation starts: a scenario or the defaults, its count and
// dimension (0: the scenario's, else 1000 and 2), and the seed.
typedef struct boids_param_start {
    const struct boids_scenario *scenario; // NULL: the defaults
    uint32_t count, dim;
    bool seed_set; // false: the scenario's or the default seed
    uint64_t seed;
} boids_param_start;
// The parameters of a simulation (not yet finalized) from where it starts
// and the given values: the scenario's or the default parameters, the
// values applied (boids_param_apply), the seed, then the world: the given
// extents (their count must be the dimension: BOIDS_ERR_WORLD), else the
// scenario's size, else one sized for about 20 neighbours per agent; the
// given origin; a target the scenario did not place at the world's centre.
boids_result boids_params_from_values(const boids_param_start *s, const boids_param_values *v, bool flag_style,
                                      boids_params *p, char *err, size_t err_size);
// The scenario kept beside the parameters p (written by --dump-scenario
// and the snapshots): sc's (or the default one) with p, the given field of
// view in degrees, the bodies' length, and the target's circle and line
// start where sc did not place them.
void boids_params_kept_scenario(const struct boids_scenario *sc, const boids_param_values *v, const boids_params *p,
                                struct boids_scenario *out);

#ifdef __cplusplus
}
#endif

#endif
