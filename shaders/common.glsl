// shaders/common.glsl: the declarations every compute shader of the
// pipeline shares (after shared.h): parameters as uniform blocks, the state
// and grid as shader storage, the global invocation index. The assembly
// (src/gl/program_source.c) concatenates: #version + extensions, "#define
// BOIDS_GLSL 1", shared.h, common.glsl, rounding.glsl, trig.glsl,
// behaviors.glsl, models.glsl, grid.glsl, the stage's .comp (bodies.comp:
// bodies.glsl before it), each as its own source string with #line so logs
// name the right file.

layout(std140, binding = BOIDS_UBO_WORLD) uniform World { boids_world_params world; };
layout(std140, binding = BOIDS_UBO_GROUPS) uniform Groups { boids_group_params group[BOIDS_MAX_GROUPS]; };
layout(std140, binding = BOIDS_UBO_SCENE) uniform Scene { boids_scene scene; };

// A steer program specialised to the run (src/gpu/steer_spec.c): the
// loader defines the run's constants, BOIDS_SPEC_*, and what no group uses
// folds away (its registers with it). Undefined (every other program, and
// the general steer): the parameters decide at run time. Either way the
// same operations on the same values: the same bits.
#if !defined(BOIDS_SPEC_BEHAVIORS)
#define BOIDS_SPEC_BEHAVIORS 0xFFFFFFFFu // behaviours some group has (bits BOIDS_BI_*)
#endif
#if !defined(BOIDS_SPEC_RULES)
#define BOIDS_SPEC_RULES 0xFFFFFFFFu // rule sets some group follows (bits BOIDS_RULES_*)
#endif
#if !defined(BOIDS_SPEC_RELATIONS)
#define BOIDS_SPEC_RELATIONS 1 // some group has relations (0: every group flocks with every group)
#endif
#if !defined(BOIDS_SPEC_TOPK)
#define BOIDS_SPEC_TOPK 32 // the largest neighbors_max K (0: no group keeps K nearest; 32: BOIDS_MAX_NEIGHBORS_K)
#endif
#if defined(BOIDS_SPEC_DIM)
#define WORLD_DIM BOIDS_SPEC_DIM
#else
#define WORLD_DIM world.dim
#endif
#if defined(BOIDS_SPEC_BOUNDARY)
#define WORLD_BOUNDARY BOIDS_SPEC_BOUNDARY
#else
#define WORLD_BOUNDARY world.boundary
#endif
#if defined(BOIDS_SPEC_COMBINE)
#define WORLD_COMBINE BOIDS_SPEC_COMBINE
#else
#define WORLD_COMBINE world.combine
#endif
// Behaviour b on in the bits beh (a group's), or rule set r the group's
// rules: the constant test first, so a specialised program drops the rest.
#define BOIDS_ON(beh, b) ((BOIDS_SPEC_BEHAVIORS & BOIDS_BIT(b)) != 0u && ((beh) & BOIDS_BIT(b)) != 0u)
#define BOIDS_RULES_ARE(rules, r) ((BOIDS_SPEC_RULES & BOIDS_BIT(r)) != 0u && (rules) == (r))

// Storage blocks: each stage declares only those it uses (drivers count
// declared blocks against GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, 16 on
// llvmpipe). The loader defines BOIDS_STAGE_<NAME> from the stage's file name.
#if defined(BOIDS_STAGE_KEY) || defined(BOIDS_STAGE_SCATTER) || defined(BOIDS_STAGE_STEER) || defined(BOIDS_STAGE_INTEGRATE)
layout(std430, binding = BOIDS_SSBO_CUR_POS) restrict buffer CurPos { vec4 cur_pos[]; };
#endif
#if defined(BOIDS_STAGE_SCATTER) || defined(BOIDS_STAGE_STEER) || defined(BOIDS_STAGE_INTEGRATE)
layout(std430, binding = BOIDS_SSBO_CUR_VEL) restrict buffer CurVel { vec4 cur_vel[]; };
layout(std430, binding = BOIDS_SSBO_CUR_ID) restrict buffer CurId { uint cur_id[]; };
layout(std430, binding = BOIDS_SSBO_CUR_GROUP) restrict buffer CurGroup { uint cur_group[]; };
layout(std430, binding = BOIDS_SSBO_NEXT_POS) restrict buffer NextPos { vec4 next_pos[]; };
layout(std430, binding = BOIDS_SSBO_NEXT_VEL) restrict buffer NextVel { vec4 next_vel[]; };
#endif
#if defined(BOIDS_STAGE_SCATTER) || defined(BOIDS_STAGE_INTEGRATE)
layout(std430, binding = BOIDS_SSBO_NEXT_ID) restrict buffer NextId { uint next_id[]; };
layout(std430, binding = BOIDS_SSBO_NEXT_GROUP) restrict buffer NextGroup { uint next_group[]; };
#endif
#if defined(BOIDS_STAGE_KEY) || defined(BOIDS_STAGE_COUNT) || defined(BOIDS_STAGE_SCATTER)
layout(std430, binding = BOIDS_SSBO_KEY) restrict buffer Key { uint cell_key[]; };
layout(std430, binding = BOIDS_SSBO_COUNT) restrict buffer Count { uint cell_count[]; };
#endif
#if defined(BOIDS_KERNEL_MORTON) && (defined(BOIDS_STAGE_KEY) || defined(BOIDS_STAGE_STEER) || defined(BOIDS_STAGE_SURVEY))
// Kernel morton: the rank of each row-major cell in Morton order (grid_rank).
layout(std430, binding = BOIDS_SSBO_CELL_RANK) restrict readonly buffer CellRank { uint cell_rank[]; };
#define BOIDS_HAS_CELL_RANK 1
#endif
#if defined(BOIDS_STAGE_SCATTER) || defined(BOIDS_STAGE_STEER) || defined(BOIDS_STAGE_SURVEY)
layout(std430, binding = BOIDS_SSBO_START) restrict buffer Start { uint cell_start[]; };
#endif
#if defined(BOIDS_STAGE_SCATTER) || defined(BOIDS_STAGE_STEER)
// 2D: the packed records of cur's slots (scatter writes, steer reads).
layout(std430, binding = BOIDS_SSBO_RECORD) restrict buffer Record { vec4 cell_record[]; };
#endif
#if defined(BOIDS_STAGE_STEER) || defined(BOIDS_STAGE_SURVEY)
// The heading rules' survey: [0] the densest block's cell, [1] its agents.
layout(std430, binding = BOIDS_SSBO_SURVEY) restrict buffer Survey { uint survey[]; };
#endif
#if defined(BOIDS_STAGE_STEER) || defined(BOIDS_STAGE_INTEGRATE)
layout(std430, binding = BOIDS_SSBO_ACCEL) restrict buffer Accel { vec4 accel[]; };
#endif
#if defined(BOIDS_STAGE_STEER)
layout(std430, binding = BOIDS_SSBO_NEIGHBORS) restrict buffer Neighbors { uint neighbors[]; };
layout(std430, binding = BOIDS_SSBO_NEAREST) restrict buffer Nearest { float nearest[]; };
layout(std430, binding = BOIDS_SSBO_CANDIDATES) restrict buffer Candidates { uint candidates[]; };
#endif
#if defined(BOIDS_STAGE_SCATTER) || defined(BOIDS_STAGE_STEER) || defined(BOIDS_STAGE_BODIES)
// The slot in cur of every id (scatter writes it; steer finds named agents, bodies walks by id).
layout(std430, binding = BOIDS_SSBO_SLOT_OF) restrict buffer SlotOf { uint slot_of[]; };
#endif
#if defined(BOIDS_STAGE_BODIES)
layout(std430, binding = BOIDS_SSBO_CUR_POS) restrict readonly buffer CurPos { vec4 cur_pos[]; };
layout(std430, binding = BOIDS_SSBO_CUR_VEL) restrict readonly buffer CurVel { vec4 cur_vel[]; };
layout(std430, binding = BOIDS_SSBO_CUR_GROUP) restrict readonly buffer CurGroup { uint cur_group[]; };
layout(std140, binding = BOIDS_UBO_BODIES) uniform Bodies { boids_body_params body[BOIDS_MAX_GROUPS]; };
layout(std430, binding = BOIDS_SSBO_JOINTS) restrict buffer Joints { vec4 joints[]; };
#endif
// The flow field: read by flow_lookup() in behaviors.glsl, so every stage.
layout(std430, binding = BOIDS_SSBO_FLOW) restrict readonly buffer Flow { vec4 flow_field[]; };

// The number of items a dispatch covers (agents, cells or scan elements);
// set by the host with glUniform1ui before each dispatch.
layout(location = BOIDS_LOC_COUNT) uniform uint u_count;

// Index of this invocation over a 1D or 2D grid of work groups of
// BOIDS_WORKGROUP_SIZE (every stage uses that size; dispatches
// of more than 65535 groups use y as well). Threads at or past u_count do
// nothing.
uint global_index() {
    uint group_index = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return group_index * BOIDS_WORKGROUP_SIZE + gl_LocalInvocationID.x;
}
