/* shaders/shared.h: everything the C reference and the GLSL compute shaders
 * share, written once. Read by C as "boids/shared.h" (include/boids/core.h;
 * CMake copies this file into an include folder of its own) and by GLSL (the
 * loader, src/gl/program.c, prepends "#define BOIDS_GLSL 1" and this file).
 * Only the common subset of the two preprocessors and type syntaxes is used:
 * scalars, vec4-sized members, 'u'-suffixed unsigned literals. Struct
 * layouts are valid std140 and std430 (every vec4 member at a 16-byte
 * offset, arrays only of vec4); the C side checks sizes and offsets with
 * _Static_assert in src/core/layout.c.
 *
 * Offers: limits, behaviour indices and bits (bit order = priority order),
 * group relations, boundary and combination modes, fixed-point scales of the
 * order-independent neighbour sums, RNG streams and hash constants, GPU
 * bindings and uniform locations, body parts and agent colour modes of the
 * drawing shaders, and the structs boids_group_params, boids_world_params, boids_scene,
 * boids_body_params.
 */
#ifndef BOIDS_SHARED_H
#define BOIDS_SHARED_H

#ifdef BOIDS_GLSL
#define BOIDS_INFINITY uintBitsToFloat(0x7f800000u) /* C: INFINITY (GLSL has no literal for it) */
#define BOIDS_VEC4(name) vec4 name
#define BOIDS_UVEC4(name) uvec4 name
#define BOIDS_UINT uint
#define BOIDS_STRUCT(name) struct name
#else
#include <stdint.h>
#define BOIDS_VEC4(name) float name[4]
#define BOIDS_UVEC4(name) uint32_t name[4]
#define BOIDS_UINT uint32_t
#define BOIDS_STRUCT(name) typedef struct name name; struct name
#endif

/* ---- constants (the 'f' suffix is valid in both languages) ---------------- */
#define BOIDS_PI 3.14159265358979323846f
#define BOIDS_TWO_PI 6.28318530717958647692f

/* ---- limits ------------------------------------------------------------ */
#define BOIDS_WORKGROUP_SIZE 256u
#define BOIDS_MAX_NEIGHBORS_K 32u /* the largest neighbors_max (the gathers' fixed arrays) */
#define BOIDS_MAX_GROUPS 8u /* a power of two: the vertex shaders mask a group with it - 1 */
#define BOIDS_MAX_PATH_POINTS 32u
#define BOIDS_MAX_OBSTACLES 32u
#define BOIDS_MAX_WALLS 16u
#define BOIDS_WALL_SEGMENT 0.0f /* the kind of a wall, in its first row's w */
#define BOIDS_WALL_PLANE 1.0f
/* The feelers behaviour's side feelers: half the length at 45 degrees, so
 * each of their heading and side components is cos 45 / 2 of feeler_length. */
#define BOIDS_FEELER_DIAG (0.70710678f * 0.5f)
#define BOIDS_MIN_JOINTS 2u
#define BOIDS_MAX_JOINTS 32u
/* Bounded so that the 64-bit fixed-point neighbour sums cannot overflow:
 * every contribution is saturated to 2^39 units and an agent never counts
 * itself, so at most 2^24 - 1 of them are added: < 2^63 (see BOIDS_FIX_*). */
#define BOIDS_MAX_AGENTS 16777216u

/* ---- behaviours ---------------------------------------------------------
 * The one list of the behaviours, X(index, NAME, name, gathers) each, in
 * index order, which is the priority order of BOIDS_COMBINE_PRIORITY (first
 * = most urgent, as in Reynolds 1999 / OpenSteer: avoid collisions before
 * steering for goals). It gives BOIDS_BI_NAME = index (C: an enum; GLSL: a
 * const uint), BOIDS_BEHAVIOR_COUNT, the user's names (boids_behavior_name:
 * scenario files, --behaviors, the menu), BOIDS_B_NEIGHBOR_MASK (gathers 1u:
 * the behaviour reads the neighbour gather), and the steer stage's call of
 * steer_name for each enabled behaviour, in this order
 * (src/core/steer_behaviors.c, shaders/steer.comp). BOIDS_BEHAVIORS_n is the
 * list from index n on: one line each, as GLSL 4.10 (the drawing shaders on
 * GL 4.1) has no line continuation. The less obvious ones:
 *   escape     evade agents of groups this group flees from
 *   hunt       pursue the nearest agent of a prey group
 *   view       Flake's fourth rule
 *   speed      target speed: accelerate or brake toward target_speed (OpenSteer)
 *   queue      brake behind a slower neighbour close ahead (Reynolds' doorway queue)
 *   avoid      unaligned collision avoidance (OpenSteer steerToAvoidNeighbors)
 *   stay       stay on path / containment: seek the path only when outside its radius (OpenSteer)
 *   hide       hide behind the nearest obstacle from the nearest hunter (Buckland)
 *   offset     offset pursuit of the leader: a formation place or leader_offset (Buckland)
 *   follow     leader following: arrive behind the leader, out of its way ahead (Reynolds)
 *   interpose  the midpoint of two agents (or an agent and the target), predicted (Buckland)
 *   feelers    wall avoidance with three feelers against the scene's walls (Buckland)
 * The weight of behaviour i is weight[i >> 2][i & 3] for i < 16 and
 * weight_more[(i - 16) >> 2][(i - 16) & 3] after (C: boids_weight /
 * boids_weight_ref, GLSL: weight_of). */
#define BOIDS_BEHAVIORS(X) X(0u, OBSTACLES, obstacles, 0u) X(1u, WALLS, walls, 0u) BOIDS_BEHAVIORS_2(X)
#define BOIDS_BEHAVIORS_2(X) X(2u, ESCAPE, escape, 1u) X(3u, SEPARATION, separation, 1u) BOIDS_BEHAVIORS_4(X)
#define BOIDS_BEHAVIORS_4(X) X(4u, FLEE, flee, 0u) X(5u, EVADE, evade, 0u) X(6u, HUNT, hunt, 1u) BOIDS_BEHAVIORS_7(X)
#define BOIDS_BEHAVIORS_7(X) X(7u, PURSUE, pursue, 0u) X(8u, SEEK, seek, 0u) BOIDS_BEHAVIORS_9(X)
#define BOIDS_BEHAVIORS_9(X) X(9u, ARRIVE, arrive, 0u) X(10u, PATH, path, 0u) BOIDS_BEHAVIORS_11(X)
#define BOIDS_BEHAVIORS_11(X) X(11u, FLOW, flow, 0u) X(12u, VIEW, view, 1u) BOIDS_BEHAVIORS_13(X)
#define BOIDS_BEHAVIORS_13(X) X(13u, ALIGNMENT, alignment, 1u) X(14u, COHESION, cohesion, 1u) BOIDS_BEHAVIORS_15(X)
#define BOIDS_BEHAVIORS_15(X) X(15u, WANDER, wander, 0u) X(16u, SPEED, speed, 0u) BOIDS_BEHAVIORS_17(X)
#define BOIDS_BEHAVIORS_17(X) X(17u, QUEUE, queue, 1u) X(18u, AVOID, avoid, 1u) BOIDS_BEHAVIORS_19(X)
#define BOIDS_BEHAVIORS_19(X) X(19u, STAY, stay, 0u) X(20u, HIDE, hide, 1u) BOIDS_BEHAVIORS_21(X)
#define BOIDS_BEHAVIORS_21(X) X(21u, OFFSET, offset, 0u) X(22u, FOLLOW, follow, 0u) BOIDS_BEHAVIORS_23(X)
#define BOIDS_BEHAVIORS_23(X) X(23u, INTERPOSE, interpose, 0u) X(24u, FEELERS, feelers, 0u)
#ifdef BOIDS_GLSL
/* (The pasted name comes from a macro of its own: glslang loses a `##` that
 * follows `uint` once an emulation makes uint() a function-like macro.) */
#define BOIDS_BI_NAME(NAME) BOIDS_BI_##NAME
#define BOIDS_BI_CONST(index, NAME, name, gathers) const uint BOIDS_BI_NAME(NAME) = index;
BOIDS_BEHAVIORS(BOIDS_BI_CONST)
#else
#define BOIDS_BI_ENUM(index, NAME, name, gathers) BOIDS_BI_##NAME = index,
enum boids_behavior_index { BOIDS_BEHAVIORS(BOIDS_BI_ENUM) };
#endif
#define BOIDS_BI_COUNT_ONE(index, NAME, name, gathers) +1u
#define BOIDS_BEHAVIOR_COUNT (0u BOIDS_BEHAVIORS(BOIDS_BI_COUNT_ONE))
#define BOIDS_BEHAVIOR_MAX 32u /* the bits of a behaviours mask; weight (16) + weight_more (16) */
#define BOIDS_WEIGHT_FIRST 16u /* behaviours whose weights are in weight[]; the rest in weight_more[] */
#define BOIDS_BIT(index) (1u << (index))
#define BOIDS_B_FLOCKING (BOIDS_BIT(BOIDS_BI_SEPARATION) | BOIDS_BIT(BOIDS_BI_ALIGNMENT) | BOIDS_BIT(BOIDS_BI_COHESION))
/* The behaviours that read the neighbour gather. */
#define BOIDS_BI_GATHER_BIT(index, NAME, name, gathers) | ((gathers) << (index))
#define BOIDS_B_NEIGHBOR_MASK (0u BOIDS_BEHAVIORS(BOIDS_BI_GATHER_BIT))
/* Queueing's cone: a neighbour is "ahead" within acos(0.7) ~ 45.6 degrees of the heading. */
#define BOIDS_QUEUE_COS 0.7f

/* ---- named agents (boids_group_params.leader, interpose_a, interpose_b) ---
 * An agent id (< count), or the world's target (target_pos, target_vel),
 * which moves as the scenario's [target] says. */
#define BOIDS_ID_TARGET 0xffffffffu
/* Formations (boids_group_params.formation): the place of member k (its rank
 * in its group, the leader left out) in the leader's frame (x ahead along
 * its heading, y to its left, z = x cross y), spacing s:
 * NONE: leader_offset for every member; LINE: abreast, j = k / 2 + 1 to the
 * left (even k) or right (odd k), (0, +-j s, 0); COLUMN: single file,
 * (-(k + 1) s, 0, 0); V: the wings, (-j s, +-j s, 0); RING: m members round
 * the leader at R = max(s, m s / 2 pi), angle 2 pi k / m. */
#define BOIDS_FORMATION_NONE 0u
#define BOIDS_FORMATION_LINE 1u
#define BOIDS_FORMATION_COLUMN 2u
#define BOIDS_FORMATION_V 3u
#define BOIDS_FORMATION_RING 4u
#define BOIDS_FORMATION_COUNT 5u

/* ---- group relations: 2 bits per other group in boids_group_params.relations */
#define BOIDS_REL_FLOCK 0u   /* counts as a flockmate (separation, alignment, cohesion, view) */
#define BOIDS_REL_IGNORE 1u  /* invisible */
#define BOIDS_REL_FLEE 2u    /* a predator: escape from it */
#define BOIDS_REL_PURSUE 3u  /* prey: hunt it */
#define BOIDS_REL_BITS 2u
#define BOIDS_REL_MASK 3u

/* ---- world modes --------------------------------------------------------- */
#define BOIDS_BOUNDARY_WRAP 0u
#define BOIDS_BOUNDARY_WALLS 1u
#define BOIDS_BOUNDARY_BOUNCE 2u
/* The chapter's flocking sketch (Example 5.11, borders()): a boid more than
 * world.margin beyond an edge reappears at the opposite margin, keeping its
 * velocity and losing its overshoot; distances are plain (no minimum image). */
#define BOIDS_BOUNDARY_MARGIN 3u
/* The margin of BOIDS_BOUNDARY_MARGIN when world.margin is 0: the sketch's
 * boid size r = 3. */
#define BOIDS_MARGIN_DEFAULT 3.0f
#define BOIDS_COMBINE_SUM 0u
#define BOIDS_COMBINE_PRIORITY 1u
/* Buckland's prioritised truncated running sum ("Programming Game AI by
 * Example", AccumulateForce): the weighted forces in index order, while the
 * magnitudes added stay within maxforce; the one that does not fit is
 * truncated to what is left, and the rest add nothing. */
#define BOIDS_COMBINE_TRUNCATED 2u

/* Stay within walls near a corner (world.wall_corner): BOTH steers away
 * from every wall within wall_offset (default); BOOK is the chapter's code,
 * where each axis's test replaces the desired velocity, so the last axis
 * near a wall decides (in a 2D corner only the y wall counts). */
#define BOIDS_WALL_CORNER_BOTH 0u
#define BOIDS_WALL_CORNER_BOOK 1u

/* The finer grid (world.grid_fine): cells at least reach / M wide, each
 * neighbour search visiting the block of cells c-M..c+M per axis. The low
 * bits hold M (BOIDS_GRID_FINE_MASK; 0 is 1, today's grid, so older worlds
 * and files keep their bytes); BOIDS_GRID_FINE_AUTO: M is the engine's
 * choice from the measured density (the low bits its current pick). The
 * set of neighbours is the same for every M (the distance test decides). */
#define BOIDS_GRID_FINE_MAX 4u
#define BOIDS_GRID_FINE_MASK 0xFFu
#define BOIDS_GRID_FINE_AUTO 0x100u
#define BOIDS_GRID_AXIS_MAX 9 /* cells of one axis of a block: 2 BOIDS_GRID_FINE_MAX + 1 */
/* The K-nearest search's early stop: after ring j (Chebyshev distance j
 * cells) it stops once the K-th d^2 is below ((j w_min)(1 - REL) - ABS E)^2,
 * E the largest |coordinate| of the world (float rounding of the keys). */
#define BOIDS_EARLY_STOP_REL 1e-4f
#define BOIDS_EARLY_STOP_ABS 1e-6f
/* ---- path options: bits of boids_scene.path_flags (docs/SCENARIOS.md [path]) */
#define BOIDS_PATH_CLOSED 1u        /* the last point joins the first */
#define BOIDS_PATH_OUTSIDE_END 2u   /* outside a segment: its end point (Example 5.8), not the nearer end */
#define BOIDS_PATH_LINE_INFINITE 4u /* the line through a segment's points, unclamped (Examples 5.5, 5.6) */
#define BOIDS_PATH_FLAGS 7u         /* every bit above */
/* On a torus the images of a segment are shifted by k worlds along each
 * wrapped axis; at most this many either way (points far outside the world). */
#define BOIDS_PATH_MAX_SHIFT 4
/* ---- rule sets of a group (boids_group_params.rules) ----------------------
 * CHAPTER: The Nature of Code's steering forces (the default). TUTORIAL: the
 * flocking tutorial's normalised resultants added to the velocity, which is
 * then rescaled to maxspeed (seeds/flocking-tutorial.txt). HEADING: the
 * angle-bug post's boids, which turn their heading by a fixed angle per rule
 * at a constant speed (seeds/boids-angle-bug.txt; 2D only). CIRCLES: FLAME
 * GPU's "Circles" benchmark model: each agent moves by the mean over its
 * neighbours within the separation radius r of repulse * sin(-2 pi d / r)
 * along the unit offset to them (pushed away nearer than r / 2, pulled
 * closer beyond), a displacement, no velocity of its own (the separation
 * behaviour alone; boids-bench --workload circles). */
#define BOIDS_RULES_CHAPTER 0u
#define BOIDS_RULES_TUTORIAL 1u
#define BOIDS_RULES_HEADING 2u
#define BOIDS_RULES_CIRCLES 3u
/* VICSEK: Vicsek et al. 1995 (PRL 75, 1226): at the constant speed maxspeed
 * (v0), each step the heading becomes the direction of the sum of the unit
 * velocities within the alignment radius r (the agent's own included),
 * turned by a uniform noise of width `noise` (eta): 2D, an angle in
 * [-eta/2, eta/2); 3D, a direction uniform on the cap of half-angle eta/2
 * around it (the alignment behaviour alone). COUZIN: Couzin et al. 2002
 * (J. Theor. Biol. 218, 1): zones of repulsion (d < separation radius r_r),
 * orientation (r_r <= d < alignment radius r_o) and attraction (r_o <= d <
 * cohesion radius r_a), repulsion taking precedence, seen through the cones
 * (the blind angle); the desired direction turned by a spherically wrapped
 * Gaussian of standard deviation `noise` (sigma), then the heading turns
 * toward it by at most turn * dt, at the constant speed maxspeed. Both:
 * the steer stage writes the new unit heading into accel (src/core/models.c,
 * docs/MODELS.md). */
#define BOIDS_RULES_VICSEK 4u
#define BOIDS_RULES_COUZIN 5u
#define BOIDS_RULES_COUNT 6u
/* BOIDS_RULES_CIRCLES' repulsion factor when boids_group_params.repulse is 0 (FLAME GPU's benchmark: 0.05). */
#define BOIDS_REPULSE_DEFAULT 0.05f
/* sin(2 pi t) on [0, 1/4] as t P(t^2): its Taylor series to degree 13
 * (truncation below 1e-9 there), evaluated by Horner with the same float
 * operations in C (boids_sin_turn) and GLSL (sin_turn): the Circles force is
 * then the same bits on every driver, where GLSL's sin() has no stated
 * precision. */
#define BOIDS_SIN_T1 6.283185307179586f
#define BOIDS_SIN_T3 -41.341702240399755f
#define BOIDS_SIN_T5 81.60524927607504f
#define BOIDS_SIN_T7 -76.70585975306136f
#define BOIDS_SIN_T9 42.058693944897634f
#define BOIDS_SIN_T11 -15.094642576822984f
#define BOIDS_SIN_T13 3.8199525848482803f

/* ---- sine, cosine, arctangent and logarithm as C and GLSL both compute them
 * (src/core/trig.c boids_sinf ..., shaders/trig.glsl sinf ...): GLSL states
 * no precision for its sin, cos, atan and log, so the state never depends on
 * the driver's. Each function is the same float operations in both languages
 * (every add, subtract and multiply correctly rounded in both, no
 * contraction: C -ffp-contract=off, GLSL precise; quotients through the
 * correctly rounded fdiv). Polynomials: least-squares fits on Chebyshev points
 * reweighted toward minimax, rounded to float. Accuracy against libm in
 * docs/VALIDATION.md. */
/* Reduction by quadrants: a - k pi/2 with pi/2 = P1 + P2 + P3 (P1 and P2 of 8
 * significant bits, so k P1 and k P2 are exact for |k| < 2^16). */
#define BOIDS_TRIG_MAX 65536.0f /* |a| beyond (or NaN, infinity): taken as 0 */
#define BOIDS_TWO_OVER_PI 0.636619747f
#define BOIDS_PIO2_1 1.5703125f
#define BOIDS_PIO2_2 0.000484466553f
#define BOIDS_PIO2_3 -6.39757843e-07f
/* sin r = r + r^3 (S1 + S2 r^2 + S3 r^4), cos r = 1 - r^2/2 + r^4 (C1 + C2 r^2
 * + C3 r^4) on |r| <= pi/4. */
#define BOIDS_SIN_S1 -0.166666567f
#define BOIDS_SIN_S2 0.00833229534f
#define BOIDS_SIN_S3 -0.000195322267f
#define BOIDS_COS_C1 0.0416666493f
#define BOIDS_COS_C2 -0.00138875365f
#define BOIDS_COS_C3 2.44567327e-05f
/* atan t = t + t^3 (A1 + A2 t^2 + A3 t^4 + A4 t^6) on |t| <= tan(pi/8);
 * beyond, atan(n / d) = pi/4 + atan((n - d) / (n + d)). Multiples of pi as a
 * float and the rest. */
#define BOIDS_TAN_PI_8 0.414213568f
#define BOIDS_ATAN_A1 -0.333330601f
#define BOIDS_ATAN_A2 0.199818447f
#define BOIDS_ATAN_A3 -0.139217541f
#define BOIDS_ATAN_A4 0.0819353908f
#define BOIDS_PIO4_HI 0.785398185f
#define BOIDS_PIO4_LO -2.18556941e-08f
#define BOIDS_PIO2_HI 1.57079637f
#define BOIDS_PIO2_LO -4.37113883e-08f
#define BOIDS_PI_HI 3.14159274f
#define BOIDS_PI_LO -8.74227766e-08f
/* log x = e ln 2 + log m, m in [sqrt(1/2), sqrt 2), f = m - 1: log m = f -
 * f^2/2 + f^3 (L1 + L2 f + ... + L7 f^6); ln 2 = LN2_HI (9 bits: e LN2_HI
 * exact) + LN2_LO. */
#define BOIDS_SQRT2 1.41421354f
#define BOIDS_LOG_L1 0.333333313f
#define BOIDS_LOG_L2 -0.250047117f
#define BOIDS_LOG_L3 0.199835375f
#define BOIDS_LOG_L4 -0.164918363f
#define BOIDS_LOG_L5 0.146341056f
#define BOIDS_LOG_L6 -0.148067534f
#define BOIDS_LOG_L7 0.101324342f
#define BOIDS_LN2_HI 0.693359375f
#define BOIDS_LN2_LO -0.000212194442f

/* ---- flow field kinds (the field itself is built on the CPU) -------------- */
#define BOIDS_FLOW_NOISE 0u
#define BOIDS_FLOW_SWIRL 1u
#define BOIDS_FLOW_UNIFORM 2u
#define BOIDS_FLOW_IMAGE 3u   /* brightness of a PNG: angle = brightness * 2 pi */

/* ---- procedural bodies (procedural-animation-chains.txt) -----------------
 * Styles: how a group's body is built and drawn. CHAIN: the notebook's first
 * chain (distance constraints only, dots and lines); SNAKE: Snake2 (angle
 * constraint, tapering outline, eyes); FISH: the same with a wider front. */
#define BOIDS_BODY_NONE 0u
#define BOIDS_BODY_CHAIN 1u
#define BOIDS_BODY_SNAKE 2u
#define BOIDS_BODY_FISH 3u
#define BOIDS_BODY_STYLES 4u
/* Parts of a drawn body (bodies.vert u_part, src/render/bodies.c): primitive
 * and vertices per instance for J joints. */
#define BOIDS_BODY_PART_FILL 0u    /* GL_TRIANGLE_STRIP, 2J + 6: tip, head +-pi/6, left/right per joint, tail */
#define BOIDS_BODY_PART_OUTLINE 1u /* GL_LINE_STRIP, 2J + 7: getShape's order, closed */
#define BOIDS_BODY_PART_EYES 2u    /* GL_TRIANGLES, 12: two quads on the head */
#define BOIDS_BODY_PART_LINKS 3u   /* GL_LINE_STRIP, J: joint to joint */
#define BOIDS_BODY_PART_DOTS 4u    /* GL_TRIANGLES, 6J: a quad at each joint */

/* ---- fixed point of the neighbour sums ------------------------------------
 * Each pair's contribution is made dimensionless (offset / radius, velocity /
 * the largest maxspeed, unit vectors) and converted to a 64-bit integer by
 * truncation of value * scale. Integer addition is associative, so the sums do
 * not depend on the order of agents within a cell (DESIGN.md, Determinism). */
#define BOIDS_FIX_UNIT 4294967296.0   /* 2^32, for values of magnitude <= ~1 */
#define BOIDS_FIX_SEP 16777216.0      /* 2^24, for separation / escape (<= 2^15) */
#define BOIDS_FIX_SATURATE 549755813888.0 /* 2^39: |value * scale| is clamped here */
/* Separation weights by 1/d; pairs closer than radius * this count as if at
 * that distance, so one contribution stays <= 2^15 (within the fixed range). */
#define BOIDS_SEP_MIN_FRACTION 0.000030517578125 /* 2^-15 */

/* ---- counter-based RNG: hash(seed, id, step, stream) --------------------- */
#define BOIDS_RNG_POSITION 0u
#define BOIDS_RNG_VELOCITY 1u
#define BOIDS_RNG_WANDER 2u
#define BOIDS_RNG_WANDER2 3u
#define BOIDS_RNG_CLUSTER 4u
/* Per-agent parameter ranges (boids_group_params maxspeed_lo..maxforce_hi):
 * drawn once per agent id (counter 0), so no per-agent buffer holds them. */
#define BOIDS_RNG_MAXSPEED 5u
#define BOIDS_RNG_MAXFORCE 6u
/* The noise of the Vicsek and Couzin rule sets, per agent id and step: the
 * angle (u1), and a point uniform on the sphere (u2, u3; 2D: u2 the sign /
 * Box-Muller phase) whose tangent part gives the direction of the turn. */
#define BOIDS_RNG_NOISE 7u
#define BOIDS_RNG_NOISE2 8u
#define BOIDS_RNG_NOISE3 9u
/* lowbias32 (C. Wellons' integer hash prospector): well-mixed, two multiplies. */
#define BOIDS_HASH_M1 0x7feb352du
#define BOIDS_HASH_M2 0x846ca68bu
#define BOIDS_HASH_GOLDEN 0x9e3779b9u

/* ---- GPU bindings --------------------------------------------------------
 * Uniform blocks: the world, the groups (boids_group_params[MAX_GROUPS]) and
 * the scene. Shader storage: state A/B is bound as "cur" / "next" by
 * rebinding (double buffering: read cur, write next, swap). */
#define BOIDS_UBO_WORLD 0
#define BOIDS_UBO_GROUPS 1
#define BOIDS_UBO_SCENE 2
#define BOIDS_UBO_BODIES 3
#define BOIDS_SSBO_CUR_POS 0     /* vec4[N]: xyz, w = wander theta */
#define BOIDS_SSBO_CUR_VEL 1     /* vec4[N]: xyz, w = wander phi */
#define BOIDS_SSBO_CUR_ID 2      /* uint[N] */
#define BOIDS_SSBO_CUR_GROUP 3   /* uint[N] */
#define BOIDS_SSBO_NEXT_POS 4
#define BOIDS_SSBO_NEXT_VEL 5
#define BOIDS_SSBO_NEXT_ID 6
#define BOIDS_SSBO_NEXT_GROUP 7
#define BOIDS_SSBO_KEY 8         /* uint[N]: cell of each slot of cur */
#define BOIDS_SSBO_COUNT 9       /* uint[cells]: histogram, then scatter cursor */
#define BOIDS_SSBO_START 10      /* uint[cells + 1]: exclusive scan */
#define BOIDS_SSBO_ACCEL 11      /* vec4[N]: steer output */
#define BOIDS_SSBO_NEIGHBORS 12  /* uint[N] */
#define BOIDS_SSBO_NEAREST 13    /* float[N] */
#define BOIDS_SSBO_CANDIDATES 14 /* uint[N] */
#define BOIDS_SSBO_FLOW 15       /* vec4[flow cells] */
#define BOIDS_SSBO_SCAN_IN 16    /* multi-level scan: this level's input */
#define BOIDS_SSBO_SCAN_OUT 17   /* this level's output */
#define BOIDS_SSBO_SCAN_SUMS 18  /* one sum per block, scanned by the next level */
/* Bodies, indexed by agent id (stable; slots move every step), joint-major:
 * joint j of agent id at [j * N + id]; xyz position, w = facing angle (2D). */
#define BOIDS_SSBO_JOINTS 19
#define BOIDS_SSBO_SLOT_OF 20    /* uint[N]: slot of each id in cur (written by scatter) */
/* uint[4]: the heading rules' global survey (survey.comp): the densest
 * block's centre cell, the agents in that block, 2 spare. */
#define BOIDS_SSBO_SURVEY 21
/* uint[cells]: the rank of each (row-major) cell in Morton order (kernel
 * morton: the key, count and start of a cell are at its rank). */
#define BOIDS_SSBO_CELL_RANK 22
/* vec4[N] (2D; 3D: unused): the agents of cur in cell order as one packed
 * record per slot, (pos.xy, vel.xy), written by scatter: all the steer
 * stage's neighbour loop reads of a candidate, in one 16-byte load. */
#define BOIDS_SSBO_RECORD 23
/* Each scan work group handles 2 * BOIDS_WORKGROUP_SIZE elements. */
#define BOIDS_SCAN_BLOCK (2u * BOIDS_WORKGROUP_SIZE)

/* ---- uniform locations ----------------------------------------------------
 * "layout(location = BOIDS_LOC_*) uniform" in GLSL, the glUniform* location
 * in C (src/gpu/gpu_pipeline.c, src/render). Plain int literals: a location is an
 * int in both languages. Compute stages: */
#define BOIDS_LOC_COUNT 0       /* common.glsl u_count: items a dispatch covers */
#define BOIDS_LOC_BODIES_INIT 1 /* bodies.comp u_init: 1 lays bodies straight */
#define BOIDS_LOC_AGENTS 2      /* steer.comp u_agents: the agents this step (an id at or above it: the target) */
/* Drawing programs; the shared ones mean the same in every program: */
#define BOIDS_LOC_VIEW_PROJ 0       /* mat4 (agents, bodies, lines) */
#define BOIDS_LOC_DIM 3             /* uint 2 or 3 (agents, bodies) */
#define BOIDS_LOC_PALETTE 8         /* vec3[BOIDS_MAX_GROUPS]: group colours (agents, bodies) */
#define BOIDS_LOC_AGENT_SIZE 1      /* agents.vert: float agent length in world units */
#define BOIDS_LOC_AGENT_MODE 2      /* agents.vert: uint BOIDS_COLOR_BY_* */
#define BOIDS_LOC_AGENT_MAXSPEED 4  /* agents.vert: float speed colour scale */
#define BOIDS_LOC_AGENT_POINTS 5    /* agents.vert: uint 1: one point per agent (dense), 0: glyphs */
#define BOIDS_LOC_AGENT_DENSE 6     /* agents.vert: uint 1: colours summed for density.frag, 0: opaque */
#define BOIDS_LOC_AGENT_PX 7        /* agents.vert: float agent length in pixels (the points' size) */
#define BOIDS_LOC_AGENT_EYE 16      /* agents.vert: vec4 the camera's position (3D light and fog), w: fog start */
#define BOIDS_LOC_AGENT_FOG 17      /* agents.vert: vec4 background rgb, a: fog reach (0: none) */
#define BOIDS_LOC_AGENT_GLYPH 18    /* agents.vert: vec2[BOIDS_MAX_GROUPS] size factor, BOIDS_GLYPH_* */
#define BOIDS_LOC_BODY_STYLE 1      /* bodies.vert: uint BOIDS_BODY_* of this draw */
#define BOIDS_LOC_BODY_PART 2       /* bodies.vert: uint BOIDS_BODY_PART_* */
#define BOIDS_LOC_BODY_COUNT 4      /* bodies.vert: uint agents (the joints' row length) */
#define BOIDS_LOC_BODY_EYE 5        /* bodies.vert: vec3 the camera's position (3D) */
#define BOIDS_LOC_HUD_FRAMEBUFFER 0 /* hud.vert: vec2 width, height in pixels */
#define BOIDS_LOC_DENSITY_REF 0     /* density.frag: float agents on a pixel at full brightness */
#define BOIDS_LOC_DENSITY_ORIGIN 1  /* density.frag: vec2 the viewport's lower left corner */
/* Vertex attributes of the lines and the HUD (render.c's attrib_vao), and
 * the fragment shaders' one colour output: */
/* GL 4.1 core (macOS; BOIDS_GL41, the viewer's --backend cpu): no explicit
 * uniform locations and no binding qualifiers, so BOIDS_UNIFORM_LOC(n) and
 * BOIDS_BINDING(n) are empty there; C finds each uniform by name
 * (glGetUniformLocation: on 4.5 the same location), and sets the binding of
 * a block and the unit of a sampler itself. Without storage buffers the
 * drawing shaders read the state through buffer textures, on these units: */
#define BOIDS_TEX_POS 0       /* samplerBuffer (RGBA32F): agents' pos */
#define BOIDS_TEX_VEL 1       /* samplerBuffer (RGBA32F): agents' vel */
#define BOIDS_TEX_GROUP 2     /* usamplerBuffer (R32UI): agents' group */
#define BOIDS_TEX_NEIGHBORS 3 /* usamplerBuffer (R32UI): agents' neighbour counts */
#define BOIDS_TEX_ID 4        /* usamplerBuffer (R32UI): bodies.vert, the slot's id */
#define BOIDS_TEX_JOINTS 5    /* samplerBuffer (RGBA32F): bodies.vert, the joints */
#define BOIDS_TEX_DENSITY 6   /* sampler2D (RGBA32F): density.frag, the dense agents' sums (4.5 too) */
#ifdef BOIDS_GLSL
#ifdef BOIDS_GL41
#define BOIDS_UNIFORM_LOC(n)
#define BOIDS_BINDING(n)
#else
#define BOIDS_UNIFORM_LOC(n) layout(location = n)
#define BOIDS_BINDING(n) , binding = n
#endif
#endif
#define BOIDS_ATTR_POS 0   /* lines.vert vec3, hud.vert vec2 */
#define BOIDS_ATTR_COLOR 1 /* vec4 RGBA */
#define BOIDS_FRAG_COLOR 0 /* out vec4 frag_color */

/* ---- agent colour modes (agents.vert u_mode; boids/render.h boids_color_mode) */
#define BOIDS_COLOR_BY_GROUP 0u     /* the group's palette colour */
#define BOIDS_COLOR_BY_HEADING 1u   /* hue of the heading */
#define BOIDS_COLOR_BY_SPEED 2u     /* ramp of speed / maxspeed */
#define BOIDS_COLOR_BY_NEIGHBORS 3u /* ramp of the neighbour count / 40 */
#define BOIDS_COLOR_BY_COUNT 4u

/* ---- agent glyphs (agents.vert u_glyph[g].y; scenario [group] glyph) -------
 * DEFAULT: ARROW, or WEDGE for a group that hunts (boids_render_set_glyphs). */
#define BOIDS_GLYPH_DEFAULT 0u /* chosen by the renderer */
#define BOIDS_GLYPH_ARROW 1u   /* a slender triangle along the heading (3D: a four-faced arrow) */
#define BOIDS_GLYPH_WEDGE 2u   /* a broad, blunt triangle (3D: a broad arrow) */
#define BOIDS_GLYPH_DOT 3u     /* a small shape centred on the agent, no heading */
#define BOIDS_GLYPH_COUNT 4u
/* Their shapes in agent lengths (agents.vert draws them; glyphs.c sizes
 * them by the arrow's area, BOIDS_GLYPH_ARROW_HALF * (1 + _BACK) = 0.72):
 * the tip at +1 along the heading, the back corners BACK behind the agent
 * and HALF to each side (3D: around the heading). */
#define BOIDS_GLYPH_ARROW_BACK 0.6
#define BOIDS_GLYPH_ARROW_HALF 0.45
#define BOIDS_GLYPH_WEDGE_BACK 0.5
#define BOIDS_GLYPH_WEDGE_HALF 0.75

/* ---- per-rule view cones: bits of boids_group_params.own_cones ------------
 * A set bit: the rule sees through its own cone (separation_fov_cos, ...);
 * a clear one: through the group's fov_cos (so 0, every bit clear, is the
 * single field of view of before). */
#define BOIDS_CONE_SEPARATION 1u
#define BOIDS_CONE_ALIGNMENT 2u
#define BOIDS_CONE_COHESION 4u
#define BOIDS_CONES 7u /* every bit above */

/* ---- parameters of one group (species); 352 bytes --------------------------- */
BOIDS_STRUCT(boids_group_params) {
    float maxspeed;        /* chapter: 3 */
    float maxforce;        /* chapter: 0.05 */
    float radius;          /* perception radius of alignment, cohesion, escape, hunt (chapter: 50) */
    float separation;      /* desired separation (chapter: 25) */

    float fov_cos;         /* cos(half field of view) of separation/alignment/cohesion; -1 = all around */
    float view_radius;     /* Flake's view rule: how far ahead a boid can be blocked */
    float view_cos;        /* cos(half angle) of the view cone */
    float predict;         /* pursue/evade/hunt/escape look-ahead, in time units */

    float arrive_radius;   /* slowing radius of arrive */
    float wander_distance; /* circle centre ahead along the velocity */
    float wander_radius;
    float wander_change;   /* max change of the wander angle per step, radians */

    float path_predict;    /* future position ahead for path following (chapter: 25) */
    float path_ahead;      /* target this far along the path from the normal point */
    float avoid_distance;  /* obstacle look-ahead */
    float priority_threshold; /* BOIDS_COMBINE_PRIORITY: a force above this wins */

    BOIDS_VEC4(weight[4]); /* weight[i >> 2][i & 3] of behaviour index i */

    BOIDS_UINT behaviors;  /* BOIDS_BIT(index) of each enabled behaviour */
    BOIDS_UINT relations;  /* 2 bits per group g at bit 2g: BOIDS_REL_* toward g */
    float max_turn;        /* radians per time unit; 0 = no turn-rate limit */
    float body_radius;     /* agent size for obstacle clearance */

    /* Per-agent ranges (Nature of Code 5, flow-field example: random(2, 5)):
     * lo > 0 gives each agent lo + (hi - lo) u, u in [0, 1) drawn from
     * (seed, agent id, 0, BOIDS_RNG_MAXSPEED / _MAXFORCE), in place of the
     * group's value; 0, 0: every agent has the group's value. */
    float maxspeed_lo;
    float maxspeed_hi;
    float maxforce_lo;
    float maxforce_hi;
    BOIDS_UINT rules;        /* BOIDS_RULES_*: which rule set the group follows */
    float turn;              /* BOIDS_RULES_HEADING: radians each rule turns the heading per time unit */
    float repulse;           /* BOIDS_RULES_CIRCLES: the repulsion factor; 0 = BOIDS_REPULSE_DEFAULT */
    float noise; /* BOIDS_RULES_VICSEK: eta (radians, 0..2 pi); BOIDS_RULES_COUZIN: sigma (radians, 0..pi); else 0 */

    /* Per-rule neighbourhoods (OpenSteer's boids: separation, alignment and
     * cohesion with radii 5 / 7.5 / 9 and three cones). Separation's radius
     * is `separation`. A radius of 0 is the perception `radius`; a cone is
     * the group's fov_cos unless its BOIDS_CONE_* bit is set in own_cones.
     * All 0 (the default): one radius and one field of view, as before. */
    float alignment_radius;   /* 0 = radius */
    float cohesion_radius;    /* 0 = radius */
    float separation_fov_cos; /* with BOIDS_CONE_SEPARATION; else 0 */
    float alignment_fov_cos;  /* with BOIDS_CONE_ALIGNMENT; else 0 */

    float cohesion_fov_cos;  /* with BOIDS_CONE_COHESION; else 0 */
    BOIDS_UINT own_cones;    /* BOIDS_CONE_* */
    /* Topological neighbourhoods (Ballerini et al. 2008: starlings heed
     * about 7): of the candidates the gather accepts, only the K smallest by
     * (d^2, id) (ties: the smaller id) are gathered; 0 = every neighbour. */
    BOIDS_UINT neighbors_max; /* K, 0..BOIDS_MAX_NEIGHBORS_K (0, the default: all) */
    float min_speed;          /* the least speed of the chapter's rules (0, the default: none) */

    /* The behaviours after the first 16 (the steering library's):
     * their weights, then their parameters. */
    BOIDS_VEC4(weight_more[4]); /* behaviour 16 + i: weight_more[i >> 2][i & 3] */
    float target_speed;         /* BOIDS_BI_SPEED: the wanted speed (default 1.5) */
    float queue_distance;       /* BOIDS_BI_QUEUE: how close "close ahead" is (default 10) */
    float avoid_horizon;        /* BOIDS_BI_AVOID: the time horizon of a threat (default 30) */
    float hide_margin;          /* BOIDS_BI_HIDE: the hiding spot's distance behind an obstacle's edge (default 10) */

    /* Leaders and named agents (offset, follow, interpose), feelers. */
    BOIDS_VEC4(leader_offset); /* BOIDS_FORMATION_NONE: xyz place in the leader's frame (default -20, 0, 0); w 0 */
    BOIDS_UINT leader;         /* the leader's id or BOIDS_ID_TARGET (the default) */
    BOIDS_UINT formation;      /* BOIDS_FORMATION_* (default NONE) */
    float formation_spacing;   /* s of the formations (default 15) */
    float leader_behind;       /* BOIDS_BI_FOLLOW: the point this far behind the leader (default 20) */
    float leader_sight;        /* BOIDS_BI_FOLLOW: this near the leader or its point ahead: evade it (default 15) */
    BOIDS_UINT interpose_a;    /* BOIDS_BI_INTERPOSE: an agent id or BOIDS_ID_TARGET (default 0) */
    BOIDS_UINT interpose_b;    /* (default BOIDS_ID_TARGET) */
    float feeler_length;       /* BOIDS_BI_FEELERS: the feeler ahead; the two at +-45 degrees are half (default 40) */
    /* Derived by boids_params_finalize from the count and the groups (not
     * parameters): the rank of agent id in its group is (id - rank_base) /
     * rank_stride, of rank_count agents. */
    BOIDS_UINT rank_base;
    BOIDS_UINT rank_stride;
    BOIDS_UINT rank_count;
    BOIDS_UINT rank_spare; /* 0 */
};

/* ---- parameters of the whole world; 208 bytes ----------------------------------- */
BOIDS_STRUCT(boids_world_params) {
    BOIDS_VEC4(min);        /* xyz lower corner (any sign) */
    BOIDS_VEC4(size);       /* xyz extent; z = 0 in 2D */
    BOIDS_VEC4(cell);       /* xyz cell width (size / cells, >= interaction radius) */
    BOIDS_VEC4(inv_cell);   /* 1 / cell */
    BOIDS_UVEC4(cells);     /* cells per axis, w = total */
    BOIDS_VEC4(target_pos); /* seek / flee / arrive / pursue / evade target */
    BOIDS_VEC4(target_vel); /* its velocity (for pursue / evade prediction) */
    BOIDS_VEC4(flow_inv_cell); /* 1 / flow-field resolution */
    BOIDS_UVEC4(flow_dims); /* flow field columns, rows, layers, total */

    BOIDS_UINT count;       /* agents */
    BOIDS_UINT dim;         /* 2 or 3 */
    BOIDS_UINT boundary;    /* BOIDS_BOUNDARY_* */
    BOIDS_UINT combine;     /* BOIDS_COMBINE_* */

    BOIDS_UINT group_count;
    BOIDS_UINT step;        /* step number (RNG counter) */
    BOIDS_UINT seed_lo;
    BOIDS_UINT seed_hi;

    float dt;
    float wall_offset;      /* stay-within-walls distance d */
    float max_speed_all;    /* largest maxspeed of any group: alignment fixed-point scale */
    float max_radius;       /* largest interaction radius: the grid's minimum cell */

    BOIDS_UINT wall_corner; /* BOIDS_WALL_CORNER_* */
    float margin;           /* BOIDS_BOUNDARY_MARGIN's margin; 0 = BOIDS_MARGIN_DEFAULT */
    BOIDS_UINT grid_fine;   /* the finer grid: M in the low bits (0 = 1), BOIDS_GRID_FINE_AUTO */
    BOIDS_UINT reserved2;
};

/* ---- the scene: path and obstacles ---------------------------------------- */
BOIDS_STRUCT(boids_scene) {
    BOIDS_VEC4(path[BOIDS_MAX_PATH_POINTS]);     /* xyz points */
    BOIDS_VEC4(obstacle[BOIDS_MAX_OBSTACLES]);   /* xyz centre, w radius */
    BOIDS_UINT path_count;
    BOIDS_UINT path_flags;                       /* BOIDS_PATH_* */
    float path_radius;                           /* chapter: 20 */
    BOIDS_UINT obstacle_count;
    /* Walls of the feelers behaviour, two rows each: a segment (2D) from
     * wall[2k].xy to wall[2k + 1].xy, w = BOIDS_WALL_SEGMENT; or a plane
     * (2D: a line) through wall[2k].xyz with normal wall[2k + 1].xyz (any
     * length > 0), w = BOIDS_WALL_PLANE. Not wrapped on a torus. */
    BOIDS_VEC4(wall[2u * BOIDS_MAX_WALLS]);
    BOIDS_UINT wall_count;
    BOIDS_UINT wall_spare0; /* 0 */
    BOIDS_UINT wall_spare1;
    BOIDS_UINT wall_spare2;
};

/* ---- one group's body type; 272 bytes ----------------------------------------
 * Joint 0 is the agent's head; segment i joins joint i and i + 1. */
BOIDS_STRUCT(boids_body_params) {
    BOIDS_VEC4(segment[8]); /* segment i's length: segment[i >> 2][i & 3], joints - 1 used */
    BOIDS_VEC4(width[8]);   /* body width at joint i: width[i >> 2][i & 3] */
    BOIDS_UINT style;       /* BOIDS_BODY_* */
    BOIDS_UINT joints;      /* BOIDS_MIN_JOINTS..BOIDS_MAX_JOINTS; unused when style is NONE */
    float angle_limit;      /* (0, pi]: most a joint's angle may differ from the previous one's */
    BOIDS_UINT min_only;    /* 1: segments only pull (never push) toward their length */
};

#endif /* BOIDS_SHARED_H */
