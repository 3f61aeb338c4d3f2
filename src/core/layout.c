// src/core/layout.c: the std140/std430 layout of the structs shared with
// GLSL (shaders/shared.h), checked at compile time. The GPU suite compares
// the same offsets with the driver's GL_OFFSET / GL_ARRAY_STRIDE.
#include <stddef.h>

#include "boids/core.h"

_Static_assert((BOIDS_MAX_GROUPS & (BOIDS_MAX_GROUPS - 1u)) == 0, "the shaders mask a group with BOIDS_MAX_GROUPS - 1");
_Static_assert(sizeof(float[4]) == 16, "vec4 mirror is 16 bytes");
// The behaviour list's index column counts 0, 1, 2, ... (each BOIDS_BI_* is
// its position in the list: the priority order and the bit of the masks).
#define POSITION(index, NAME, name, gathers) POSITION_##NAME,
enum { BOIDS_BEHAVIORS(POSITION) POSITION_COUNT };
#undef POSITION
#define SAME_POSITION(index, NAME, name, gathers)                                                                      \
    _Static_assert(BOIDS_BI_##NAME == (int)POSITION_##NAME, "index of " #name " is its place in BOIDS_BEHAVIORS");
BOIDS_BEHAVIORS(SAME_POSITION)
#undef SAME_POSITION
_Static_assert(BOIDS_BEHAVIOR_COUNT == POSITION_COUNT && BOIDS_BEHAVIOR_COUNT <= BOIDS_BEHAVIOR_MAX, "behaviour count");
_Static_assert(offsetof(boids_group_params, maxspeed) == 0, "group.maxspeed");
_Static_assert(offsetof(boids_group_params, fov_cos) == 16, "group.fov_cos");
_Static_assert(offsetof(boids_group_params, arrive_radius) == 32, "group.arrive_radius");
_Static_assert(offsetof(boids_group_params, path_predict) == 48, "group.path_predict");
_Static_assert(offsetof(boids_group_params, weight) == 64, "group.weight is vec4[4] at 64");
_Static_assert(offsetof(boids_group_params, behaviors) == 128, "group.behaviors");
_Static_assert(offsetof(boids_group_params, body_radius) == 140, "group.body_radius");
_Static_assert(offsetof(boids_group_params, maxspeed_lo) == 144, "group.maxspeed_lo");
_Static_assert(offsetof(boids_group_params, maxforce_hi) == 156, "group.maxforce_hi");
_Static_assert(offsetof(boids_group_params, rules) == 160, "group.rules");
_Static_assert(offsetof(boids_group_params, turn) == 164, "group.turn");
_Static_assert(offsetof(boids_group_params, alignment_radius) == 176, "group.alignment_radius");
_Static_assert(offsetof(boids_group_params, alignment_fov_cos) == 188, "group.alignment_fov_cos");
_Static_assert(offsetof(boids_group_params, cohesion_fov_cos) == 192, "group.cohesion_fov_cos");
_Static_assert(offsetof(boids_group_params, own_cones) == 196, "group.own_cones");
_Static_assert(offsetof(boids_group_params, weight_more) == 208, "group.weight_more");
_Static_assert(sizeof(((boids_group_params *)0)->weight) == BOIDS_WEIGHT_FIRST * sizeof(float),
               "weight[] holds the first BOIDS_WEIGHT_FIRST behaviours");
_Static_assert(offsetof(boids_group_params, target_speed) == 272, "group.target_speed");
_Static_assert(offsetof(boids_group_params, queue_distance) == 276, "group.queue_distance");
_Static_assert(offsetof(boids_group_params, avoid_horizon) == 280, "group.avoid_horizon");
_Static_assert(offsetof(boids_group_params, hide_margin) == 284, "group.hide_margin");
_Static_assert(offsetof(boids_group_params, leader_offset) == 288, "group.leader_offset");
_Static_assert(offsetof(boids_group_params, leader) == 304, "group.leader");
_Static_assert(offsetof(boids_group_params, leader_sight) == 320, "group.leader_sight");
_Static_assert(offsetof(boids_group_params, feeler_length) == 332, "group.feeler_length");
_Static_assert(offsetof(boids_group_params, rank_base) == 336, "group.rank_base");
_Static_assert(sizeof(boids_group_params) == 352, "group params: 22 vec4");

_Static_assert(offsetof(boids_world_params, min) == 0, "world.min");
_Static_assert(offsetof(boids_world_params, cells) == 64, "world.cells");
_Static_assert(offsetof(boids_world_params, flow_dims) == 128, "world.flow_dims");
_Static_assert(offsetof(boids_world_params, count) == 144, "world.count");
_Static_assert(offsetof(boids_world_params, group_count) == 160, "world.group_count");
_Static_assert(offsetof(boids_world_params, dt) == 176, "world.dt");
_Static_assert(offsetof(boids_world_params, wall_corner) == 192, "world.wall_corner");
_Static_assert(sizeof(boids_world_params) == 208, "world params: 13 vec4");

_Static_assert(offsetof(boids_scene, obstacle) == 16 * BOIDS_MAX_PATH_POINTS, "scene.obstacle");
_Static_assert(offsetof(boids_scene, path_count) == 16 * (BOIDS_MAX_PATH_POINTS + BOIDS_MAX_OBSTACLES),
               "scene.path_count");
_Static_assert(offsetof(boids_scene, wall) == 16 * (BOIDS_MAX_PATH_POINTS + BOIDS_MAX_OBSTACLES + 1), "scene.wall");
_Static_assert(sizeof(boids_scene) == 16 * (BOIDS_MAX_PATH_POINTS + BOIDS_MAX_OBSTACLES + 2 + 2 * BOIDS_MAX_WALLS),
               "scene size");

_Static_assert(offsetof(boids_body_params, width) == 128, "body.width");
_Static_assert(offsetof(boids_body_params, style) == 256, "body.style");
_Static_assert(offsetof(boids_body_params, min_only) == 268, "body.min_only");
_Static_assert(sizeof(boids_body_params) == 272, "body params: 17 vec4");
