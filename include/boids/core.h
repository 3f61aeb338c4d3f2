/* boids/core.h: the CPU reference simulation (src/core). No GL.
 *
 * Offers:
 *   BOIDS_VERSION, boids_version   the headers' and the library's version
 *   boids_params        everything that defines a run (world, groups, scene, flow field)
 *   boids_params_default, boids_params_finalize (derive grid & scales, validate)
 *   boids_state         SoA agent buffers (pos/vel vec4, id, group)
 *   boids_grid          counting-sort uniform grid (key, count, scan, scatter)
 *   boids_sim           a simulation: double-buffered state, grid, per-agent outputs
 *   boids_sim_create / _destroy / _step / _stats / _hash
 *   boids_flowfield     a grid of unit vectors (noise / swirl / uniform)
 *   bodies              boids_body_make / _define / _check (a group's body type),
 *                       boids_sim_set_bodies, boids_sim_bodies (the bodies stage)
 *
 * Every behaviour is a pure function in boids/behaviors.h.
 */
#ifndef BOIDS_CORE_H
#define BOIDS_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <signal.h>

#include "boids/shared.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

// The version of these headers (CMakeLists.txt's project version; test_engine
// checks they agree); boids_version gives the library's at run time.
#define BOIDS_VERSION "0.1.0"
#define BOIDS_VERSION_MAJOR 0
#define BOIDS_VERSION_MINOR 1
#define BOIDS_VERSION_PATCH 0
// The version of the library in use ("0.1.0"), which may differ from the
// BOIDS_VERSION a program was compiled with (another libboids.so.0 found at
// run time); *major, *minor and *patch (each may be NULL) get its numbers.
const char *boids_version(int *major, int *minor, int *patch);

// BOIDS_DEBUG: hooks for tests, never needed by a user. Items separated by
// ';', each `name` or `name=value` (docs/ARCHITECTURE.md lists the names).
// True when `name` is present; its value (empty for a bare name) is copied
// into out (out_size bytes, cut to fit; out may be NULL).
bool boids_debug_value(const char *name, char *out, size_t out_size);
// True when BOIDS_DEBUG holds an item whose name nothing reads (a typo);
// its name into out. boids_debug_names(i) lists the names (NULL past the
// last).
bool boids_debug_unknown(char *out, size_t out_size);
const char *boids_debug_names(size_t i);

// A flow field: one unit vector per cell of a grid laid over the world.
typedef struct boids_flowfield {
    uint32_t kind;        // BOIDS_FLOW_*
    float resolution;     // cell width (chapter: 10-20 px)
    float noise_scale;    // Perlin frequency per world unit
    uint32_t noise_seed;  // stb_perlin wrap seed (0-255)
    float direction[4];   // BOIDS_FLOW_UNIFORM: the direction
    uint32_t dims[4];     // columns, rows, layers, total (set by build)
    float (*vec)[4];      // dims[3] unit vectors, x fastest
    char image[512];      // BOIDS_FLOW_IMAGE: the PNG, stretched over the world (top row = top of the world)
    // BOIDS_FLOW_IMAGE: the content hash of the image the field was built
    // from (boids_flowfield_image_hash; set by build, 0: not read yet). A
    // snapshot keeps it, and its loader refuses an image that changed.
    uint64_t image_hash;
} boids_flowfield;

typedef struct boids_params {
    boids_world_params world;
    boids_group_params group[BOIDS_MAX_GROUPS];
    boids_scene scene;
    boids_flowfield flow;   // vec is owned by the boids_sim once created
    boids_body_params body[BOIDS_MAX_GROUPS]; // style NONE: no body
    float group_share[BOIDS_MAX_GROUPS];      // relative shares of the agents; all 0: group = id mod groups
} boids_params;

// Agents as structure of arrays; slot order, not id order.
typedef struct boids_state {
    float (*pos)[4];    // xyz position, w = wander angle theta
    float (*vel)[4];    // xyz velocity, w = wander elevation phi (3D)
    uint32_t *id;       // stable id, 0..count-1
    uint32_t *group;    // 0..group_count-1
} boids_state;

// Uniform grid built by counting sort.
typedef struct boids_grid {
    uint32_t cells;     // total cells
    uint32_t *key;      // per slot: cell index
    uint32_t *count;    // per cell
    uint32_t *start;    // per cell + 1: exclusive prefix sum, start[cells] == N
    uint32_t *fill;     // scatter cursor per cell
} boids_grid;

// One step's stage times in ms, and `step`, the whole step's span on the
// same clock (GPU: its first to its last timestamp; CPU: the stages' sum),
// so the stages always sum to at most `step`.
typedef struct boids_stage_ms {
    double key, count, scan, scatter, steer, integrate, bodies;
    double step;
} boids_stage_ms;

typedef struct boids_stats {
    uint64_t step;
    double polarisation;       // |mean unit velocity| in [0,1]
    double mean_speed;
    double mean_neighbors;     // agents within the perception radius
    double mean_nearest;       // mean distance to the nearest neighbour (agents with one)
    uint32_t cell_max;         // most agents in one cell
    double cell_mean;          // agents per cell
    uint64_t candidate_pairs;  // pairs examined in the last step
    uint64_t neighbor_pairs;   // pairs within the perception radius
    // Couzin et al. 2002's group angular momentum m_r = |sum r_ic x v_i| / N
    // in [0, 1] (r_ic: unit vector from the centre, circular mean on a
    // wrapped axis; v_i: unit velocity): 1 = a mill, ~0 = a parallel group.
    double milling;
} boids_stats;

// The statistics by name (boids-run's line, logs, the ensemble runner): name,
// what it is, its offset in boids_stats and its type; boids_stats_value reads
// one as a double, boids_stats_field_index finds one by name (-1: none).
// `grouped`: also a figure of one group's agents (boids_engine_stat_values);
// the grid's figures are of the whole world only.
typedef enum boids_stats_kind { BOIDS_STATS_DOUBLE, BOIDS_STATS_U32, BOIDS_STATS_U64 } boids_stats_kind;
typedef struct boids_stats_field {
    const char *name;
    const char *what;
    size_t offset;
    boids_stats_kind kind;
    bool grouped;
} boids_stats_field;
extern const boids_stats_field boids_stats_fields[];
extern const uint32_t boids_stats_field_count;
double boids_stats_value(const boids_stats *st, uint32_t field);
int boids_stats_field_index(const char *name);

// The neighbour search of the CPU steer stage: the uniform grid (the bin
// lattice; the GPU's), a quadtree (octree in 3D) built over the agents each
// step, or every pair (O(N^2), for tests). All give the same neighbour sets
// and, as the sums are order-independent, the same bits.
typedef enum boids_index { BOIDS_INDEX_GRID, BOIDS_INDEX_QUADTREE, BOIDS_INDEX_BRUTE, BOIDS_INDEX_KINDS } boids_index;

// The update order of a CPU step. PARALLEL (default): every agent steers
// from the same state (double buffered, what the GPU computes). SEQUENTIAL:
// the chapter's sketch (Example 5.11's run() loop): in id order each agent
// steers from the current state of all others and moves at once, in place,
// before the next one looks; its neighbours are found over every pair
// (O(N^2), as in the sketch), whatever the index.
typedef enum boids_update { BOIDS_UPDATE_PARALLEL, BOIDS_UPDATE_SEQUENTIAL, BOIDS_UPDATE_KINDS } boids_update;

// The GPU backend's kernel variants, both the same bits as the reference:
// REFERENCE (per-agent steer, row-major cells, a pass per stage), MORTON
// (agents stored in the Morton / Z order of their cells). The CPU backend
// has only the reference. Names: boids_kernel_names (NULL-terminated, in
// this order).
typedef enum boids_kernel { BOIDS_KERNEL_REFERENCE, BOIDS_KERNEL_MORTON, BOIDS_KERNEL_KINDS } boids_kernel;
extern const char *const boids_kernel_names[BOIDS_KERNEL_KINDS + 1];

// A named agent (offset, follow, interpose) as a distributed run's driver
// supplies it to boids_sim.named: its state at the start of the step, read
// from the rank that owns it (the wander lanes come along, unused).
typedef struct boids_named_agent {
    float pos[4], vel[4];
    uint32_t id, group;
} boids_named_agent;

typedef struct boids_sim {
    boids_params p;
    uint32_t n;
    boids_state cur;        // read by a step (cell order after scatter)
    boids_state next;       // written by a step
    boids_grid grid;
    float (*accel)[4];      // steer output per slot
    uint32_t *neighbors;    // per slot of cur: agents within radius in the last step
    float *nearest;         // per slot of cur: nearest neighbour distance (0 if none)
    uint32_t *candidates;   // per slot: pairs examined
    uint32_t *slot_of_id;   // scratch for id-order output
    uint32_t survey[2];     // heading rules: the densest block's cell and its agents (boids_survey), this step
    float (*joints)[4];     // bodies: joint j of agent id at [j * n + id] (shared.h BOIDS_SSBO_JOINTS); NULL: none
    uint32_t joint_rows;    // joints allocated per agent (the most of any group with a body)
    uint64_t step;
    int threads;            // OpenMP threads (<= 0: runtime default)
    boids_index index;      // neighbour search of the steer stage (default: the grid)
    boids_update update;    // update order of boids_sim_step (default: parallel)
    struct boids_quadtree *quadtree; // the quadtree index (boids/quadtree.h); NULL until a steer needs it
    boids_stage_ms ms;      // last step's stage times
    // Steer scratch of the 2D flocking path (steer_gather.c), per slot of cur, built
    // at the start of each grid steer: the positions' x, y and the alignment
    // terms in fixed point. NULL until a steer needs them.
    float (*steer_xy)[2];
    int64_t (*steer_ali)[2];
    // Distributed runs (src/mpi, --decompose): the slots allocated (the
    // per-slot arrays hold this many; boids_sim_reserve grows them) and, when
    // not NULL, a flag per slot of cur: the steer and integrate stages handle
    // only the flagged slots (the rank's own agents; the halo's are read as
    // neighbours only). NULL (always, in one process): every slot.
    uint32_t capacity;
    const uint8_t *owned;
    // Distributed runs, what only the whole world knows, supplied by the
    // driver before each steer (NULL, always, in one process: the core finds
    // it over cur itself, and nothing here changes its bits):
    // - world_survey: the heading rules' survey of the whole world's grid,
    //   {the densest block's cell, its agents} as boids_survey gives them;
    //   boids_sim_survey copies it instead of surveying cur.
    // - named (named_count of them): the named agents' states; the steer
    //   reads a named id there instead of through slot_of_id (whose ids are
    //   the world's, not the slots'), and one not there is the world's
    //   target. Set it (even with count 0) whenever cur holds ids >= n.
    const uint32_t *world_survey;
    const boids_named_agent *named;
    uint32_t named_count;
    // A step cut short (boids-run's SIGTERM at millions of agents): when
    // `cancel` is not NULL and *cancel becomes non-zero (a signal handler's
    // flag; it must stay set) once the step has run BOIDS_CUT_AFTER_S
    // (omp_get_wtime() past cut_at, which boids_sim_step sets at its start;
    // a caller of boids_sim_steer alone sets it with boids_sim_cut_clock), a
    // short step finishes whole, and a long one stops after the grid or
    // inside the steer (boids_sim_steer skips the agents left) and sets
    // `cancelled`: cur then holds the state of the last whole step (in
    // another slot order), the step counter is not advanced, and the
    // neighbour outputs (neighbors, nearest, candidates), which the cut step
    // had begun to rewrite, are zero. The sequential update is not cut.
    const volatile sig_atomic_t *cancel;
    double cut_at;
    bool cancelled;
} boids_sim;

// How long a step runs before a cancel cuts it (shorter ones finish whole,
// so a run of ordinary size stops with every output of its last step).
#define BOIDS_CUT_AFTER_S 0.5

// The default heading-rules turn (boids_group_params.turn), radians per time unit.
#define BOIDS_TURN_DEFAULT 0.05f
#define BOIDS_TARGET_SPEED_DEFAULT 1.5f // behaviour speed: half the chapter's maxspeed
#define BOIDS_QUEUE_DISTANCE_DEFAULT 10.0f // behaviour queue: "close ahead", a little over 3 body sizes r
#define BOIDS_AVOID_HORIZON_DEFAULT 30.0f  // behaviour avoid: threats within 30 time units (steps at dt 1)
#define BOIDS_HIDE_MARGIN_DEFAULT 10.0f // behaviour hide: the spot's distance behind an obstacle's edge
#define BOIDS_LEADER_OFFSET_DEFAULT -20.0f    // behaviour offset: leader_offset (-20, 0, 0), 20 behind the leader
#define BOIDS_FORMATION_SPACING_DEFAULT 15.0f // formations: members 15 apart
#define BOIDS_LEADER_BEHIND_DEFAULT 20.0f     // behaviour follow: the point 20 behind the leader
#define BOIDS_LEADER_SIGHT_DEFAULT 15.0f      // behaviour follow: out of the way within 15
#define BOIDS_FEELER_LENGTH_DEFAULT 40.0f     // behaviour feelers: the feeler ahead

// Defaults: the chapter's flocking (maxspeed 3, maxforce 0.05, radius 50,
// separation 25, weights 1.5/1/1), one group, wrap, 2D, dt 1, a world sized
// for about 20 neighbours per agent at `count` agents.
void boids_params_default(boids_params *p, uint32_t count, uint32_t dim);
// Sizes the world for `neighbors` expected agents within the radius.
void boids_params_auto_world(boids_params *p, double neighbors);
// Sizes a square (cube) world for `density` agents per unit area (volume):
// side (count / density)^(1 / dim), rounded up, never below 4 radii.
void boids_params_density_world(boids_params *p, double density);
// The largest world extent and |origin| finalize accepts, on every axis.
#define BOIDS_MAX_EXTENT 1e9f
// The largest |weight| finalize accepts (scenario files and snapshots too).
#define BOIDS_MAX_WEIGHT 1e6f
// Derive the grid, scales and limits; check every value. On error `what`
// (if non-NULL) receives a short description of the offending value.
boids_result boids_params_finalize(boids_params *p, char *what, size_t what_size);

// The largest interaction radius of a group (radius; separation, view,
// alignment and cohesion radii when those behaviours are enabled): the
// grid's cells are at least this.
float boids_group_reach(const boids_group_params *g);
// The radius alignment / cohesion look at: its own, or (0) the perception
// radius. The cone of a rule (BOIDS_CONE_*): its own cosine, or fov_cos.
float boids_alignment_radius(const boids_group_params *g);
float boids_cohesion_radius(const boids_group_params *g);
float boids_rule_cone(const boids_group_params *g, uint32_t cone);
// The float of g that `name` names: a group parameter of kind FLOAT in the
// registry (boids/registry.h: "maxspeed", "radius", "eta" / "sigma", both
// the noise word, ...; its flag spelling too) or "weight.BEHAVIOUR" (a name
// of boids_behavior_index); NULL for any other name. What the viewer's - =
// keys and boids_engine_set_group_value change.
float *boids_group_value(boids_group_params *g, const char *name);
// Does any group of p need the heading rules' global survey (rules heading
// with cohesion on)?
bool boids_params_survey(const boids_params *p);
// Does any group of p steer by a named agent (offset, follow, interpose)?
// The steer stage then needs the slot of every id.
bool boids_params_named(const boids_params *p);
// The largest boids_group_reach of the world's groups (group_count of them).
float boids_params_reach(const boids_params *p);
// The cell rule of finalize: the largest interaction radius (reach) that fits
// p's world, half its smallest extent on a torus (so the minimum image is
// unique), INFINITY for walls and bounce. Finalize fails with BOIDS_ERR_CELL
// when boids_params_reach exceeds it.
float boids_params_max_radius(const boids_params *p);
// The finer grid's factor M of a world (world.grid_fine's low bits; 0 is 1):
// cells at least reach / M wide, neighbour searches over c-M..c+M per axis.
static inline uint32_t boids_world_grid_fine(const boids_world_params *w) {
    uint32_t m = w->grid_fine & BOIDS_GRID_FINE_MASK;
    return m ? m : 1u;
}
// The grid_fine word of a world that asks for M (1..4) or, with `automatic`,
// for the engine's choice starting at M: the canonical form finalize keeps
// (M = 1 without auto is 0, as older worlds).
static inline uint32_t boids_grid_fine_word(uint32_t m, bool automatic) {
    return (automatic ? BOIDS_GRID_FINE_AUTO : 0u) | (m <= 1u ? 0u : m);
}
// Auto's rule (see docs/ARCHITECTURE.md, the grid): the factor M (1..4) of
// the least modelled steer + grid cost for p's world (finalized) whose agents
// have, on average, `occupancy` agents in a reach-wide cube around them
// (boids_grid_occupancy); 1 when a group needs the survey.
uint32_t boids_grid_fine_choose(const boids_params *p, double occupancy);
// The mean occupancy of an agent's own cell, sum over cells of count^2 / n,
// from a grid's starts (start[cells + 1], any cell order), scaled from the
// cell's volume to reach^dim (the agents an agent has within a reach-wide
// cube, at a density uniform on that scale); 0 without agents.
double boids_grid_occupancy(const boids_world_params *w, const uint32_t *start, uint32_t n);
// The same from the sum over cells of count^2 (exact in a double below
// 2^53; a decomposed run adds its ranks' own cells).
double boids_grid_occupancy_sum(const boids_world_params *w, double sq, uint32_t n);

// Bodies (procedural-animation-chains.txt). A body type of `style` with
// `joints` joints and total length `length`: the built-in profiles (chain:
// equal segments, dots of 0.5 segment; snake: the notebook's tapering widths,
// angle limit pi/8; fish: a wide front, a thin stalk and a tail fin, pi/10).
// NONE gives an empty type. Errors as boids_body_define.
boids_result boids_body_make(boids_body_params *b, uint32_t style, uint32_t joints, float length, char *what,
                             size_t what_size);
// A body type from explicit arrays, validated as the notebook's constructors
// do ("bad arguments"): joints in 2..32, n_lengths == joints - 1, n_widths ==
// joints, every length and width positive and finite, angle_limit in (0, pi].
boids_result boids_body_define(boids_body_params *b, uint32_t style, uint32_t joints, const float *lengths,
                               uint32_t n_lengths, const float *widths, uint32_t n_widths, float angle_limit,
                               bool min_only, char *what, size_t what_size);
// The same checks of a filled-in type (finalize runs it on every group).
boids_result boids_body_check(const boids_body_params *b, char *what, size_t what_size);
// Segment i's length and joint i's width.
static inline float boids_body_length(const boids_body_params *b, uint32_t i) { return b->segment[i >> 2][i & 3]; }
static inline float boids_body_width(const boids_body_params *b, uint32_t i) { return b->width[i >> 2][i & 3]; }
// The weight of behaviour b (< BOIDS_BEHAVIOR_MAX) of a group: weight[] of
// the first 16, weight_more[] of the rest (shared.h); the one place that
// knows the split.
static inline float *boids_weight_ref(boids_group_params *g, uint32_t b) {
    uint32_t m = b - BOIDS_WEIGHT_FIRST;
    return b < BOIDS_WEIGHT_FIRST ? &g->weight[b >> 2][b & 3] : &g->weight_more[m >> 2][m & 3];
}
static inline float boids_weight(const boids_group_params *g, uint32_t b) {
    return *boids_weight_ref((boids_group_params *)g, b);
}
// "none", "chain", "snake", "fish" <-> BOIDS_BODY_*; -1 if unknown.
int boids_body_style_index(const char *name);
const char *boids_body_style_name(uint32_t style);
// Joints per agent the bodies of p need (0: no group has a body).
uint32_t boids_params_joint_rows(const boids_params *p);

// The group of agent id at the start: id mod group_count, or, with shares,
// the group whose part of 0..count (cumulative shares, normalised) holds
// id + 1/2. Never decreases with the id when there are shares.
uint32_t boids_params_group_of(const boids_params *p, uint32_t id);
// The derived rank rows of the groups (rank_base, rank_stride, rank_count;
// shared.h) from the count, the group count and the shares: finalize and a
// loaded snapshot call it.
void boids_params_ranks(boids_params *p);

// Behaviour name <-> index ("separation" -> BOIDS_BI_SEPARATION); -1 if unknown.
int boids_behavior_index(const char *name);
const char *boids_behavior_name(uint32_t index);
// "separation,alignment,cohesion" of a behaviour mask (names joined by
// sep), "none" if empty.
void boids_behaviors_text(uint32_t bits, const char *sep, char *buf, size_t size);

// Flow field: fill f->dims and f->vec for the world in p (and, for an image
// field, f->image_hash). BOIDS_ERR_IO: the image of an image field cannot
// be read (boids_flowfield_image_hash says why).
boids_result boids_flowfield_build(boids_flowfield *f, const boids_world_params *w);
void boids_flowfield_free(boids_flowfield *f);
// The largest flow-field image: 16777216 pixels (4096 x 4096).
#define BOIDS_FLOW_IMAGE_PIXELS_MAX 16777216u
// Can path be a flow-field image? A regular file (boids_input_open: no
// device, no FIFO) that is a PNG of at most BOIDS_FLOW_IMAGE_PIXELS_MAX
// pixels, by its header (nothing decoded). BOIDS_OK, or BOIDS_ERR_FORMAT
// with one phrase in why ("is not a PNG image", "is 20000 x 20000 pixels,
// over the 16777216 (4096 x 4096) a flow-field image may have").
boids_result boids_flowfield_check_image(const char *path, char *why, size_t why_size);
// The image at path read as a field reads it (a regular file by
// boids_input_open's rule, never a FIFO or device; a PNG of at most
// BOIDS_FLOW_IMAGE_PIXELS_MAX pixels, decoded whole to grey) and *hash, the
// FNV-1a hash of its width, height and grey pixels (never 0): what decides
// the field, so the same picture saved again hashes the same. BOIDS_OK, or
// BOIDS_ERR_IO with one phrase in why ("cannot be opened: No such file or
// directory", "is a FIFO ...", "is a damaged or truncated PNG image").
boids_result boids_flowfield_image_hash(const char *path, uint64_t *hash, char *why, size_t why_size);

// FNV-1a 64 of `size` bytes, continuing from h (BOIDS_FNV1A_BASIS to begin):
// the one byte-wise hash of the state-hash, the ensemble's plan and CSV
// hashes and a flow-field image's.
#define BOIDS_FNV1A_BASIS 0xcbf29ce484222325ull
static inline uint64_t boids_fnv1a(uint64_t h, const void *data, size_t size) {
    const unsigned char *b = (const unsigned char *)data;
    for (size_t i = 0; i < size; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
// Simulation. create copies p (finalized) and initialises agents from the
// seed: uniform positions (or clustered), random directions. The flow field
// is built if any group enables it (an image field whose image cannot be
// read: BOIDS_ERR_IO, boids_flowfield_image_hash says why). A NULL simulation (or params, bodies,
// out) is BOIDS_ERR_ARGUMENT from the boids_sim_* functions that return a
// boids_result; the others do nothing or return 0 / NULL (stats: zeros).
typedef enum boids_distribution { BOIDS_DIST_UNIFORM, BOIDS_DIST_CLUSTERED } boids_distribution;
boids_result boids_sim_create(boids_sim **out, const boids_params *p, boids_distribution dist);
void boids_sim_destroy(boids_sim *s);
// Replace the agents (id order: pos[i], vel[i], group[i] for id i).
boids_result boids_sim_set_agents(boids_sim *s, const float (*pos)[4], const float (*vel)[4], const uint32_t *group);
// Replace the agents with a state that steps left exactly as given (id
// order; pos and vel with their wander lanes, nothing limited or wrapped),
// the step counter `step` (the world's step, the last step taken, step - 1;
// step 0 leaves it), the per-agent outputs 0, the bodies' joints (joint j of
// agent id at [j * n + id]) or, NULL, laid straight. BOIDS_ERR_PARAM (nothing
// changed): a group out of range, a value that is not finite.
boids_result boids_sim_set_state(boids_sim *s, uint64_t step, const float (*pos)[4], const float (*vel)[4],
                                 const uint32_t *group, const float (*joints)[4]);
// Grows the per-slot arrays (cur, next, accel, the neighbour outputs, the
// grid's keys; not the joints) to hold `capacity` agents; s->n is unchanged.
// A distributed run's rank sets s->n and cur itself (its own agents and the
// halo's, ids of the whole world). BOIDS_ERR_NOMEM keeps what was there.
boids_result boids_sim_reserve(boids_sim *s, uint32_t capacity);
// One step: key, count, scan, scatter, steer, integrate, bodies (with
// s->update SEQUENTIAL: key .. scatter, then each agent in id order steers
// and moves in place, then bodies). s->cancel may cut it short: see
// boids_sim; s->cancelled says whether it was.
void boids_sim_step(boids_sim *s);
// Zero neighbour outputs (neighbors, nearest, candidates) for every slot: a
// step cut short had begun to rewrite them, in another slot order.
void boids_sim_forget_neighbors(boids_sim *s);
// Starts the clock of a cut (boids_sim.cut_at = now + BOIDS_CUT_AFTER_S).
void boids_sim_cut_clock(boids_sim *s);
// Whether cut_at is past (omp_get_wtime()).
bool boids_sim_cut_due(const boids_sim *s);
// Whether s->cancel asks the step in progress to stop now.
static inline bool boids_sim_cancel_asked(const boids_sim *s) {
    return s->cancel && *s->cancel && boids_sim_cut_due(s);
}
// The grid of p's world (finalized; the same world but another grid_fine:
// cells, cell, inv_cell, grid_fine) in place of s's, built over cur (the
// engine's auto grid). BOIDS_ERR_NOMEM keeps the old grid.
boids_result boids_sim_set_grid(boids_sim *s, const boids_params *p);
// The pipeline's stages, for benches and tests (boids_sim_step calls them in order).
void boids_sim_build_grid(boids_sim *s);    // key, count, scan, scatter: cur -> next, swap
void boids_sim_steer(boids_sim *s);         // cur -> accel, next.w lanes
// Steer one agent (slot of cur) over every pair of cur as it is now: accel,
// next.w lanes and its neighbour statistics, as boids_sim_steer writes them
// (the survey of the heading rules must be current: boids_sim_survey).
void boids_sim_steer_agent(boids_sim *s, uint32_t slot);
// The heading rules' global survey over the grid of cur (a no-op unless a group needs it).
void boids_sim_survey(boids_sim *s);
void boids_sim_integrate(boids_sim *s);     // cur + accel -> next, swap
void boids_sim_bodies(boids_sim *s);        // every body follows its agent's head (no-op without bodies)
// New body types (checked; the joints allocated anew when more are needed):
// every body is laid out straight behind its agent. BOIDS_ERR_NOMEM keeps the old ones.
boids_result boids_sim_set_bodies(boids_sim *s, const boids_body_params body[BOIDS_MAX_GROUPS]);
// Lays every body straight behind its agent (joint 0 at the head).
void boids_sim_reset_bodies(boids_sim *s);
void boids_sim_stats(const boids_sim *s, boids_stats *out);
// The running sums of boids_stats' per-agent figures, an agent at a time in
// the caller's order: boids_sim_stats (slots), a group's (the engine, ids) and
// a decomposed world's (src/mpi, ids) add them alike. Zero-initialise.
typedef struct boids_stats_sums {
    double ux, uy, uz, speed, neighbors, nearest;
    uint64_t agents, with_neighbors, candidates, pairs;
} boids_stats_sums;
void boids_stats_add(boids_stats_sums *t, const float vel[4], uint32_t neighbors, uint32_t candidates, float nearest);
// polarisation, mean_speed, mean_neighbors, mean_nearest, candidate_pairs and
// neighbor_pairs of out from t.
void boids_stats_finish(const boids_stats_sums *t, boids_stats *out);
// The centre of the n agents (or of those of group `only`; BOIDS_STATS_ALL:
// all) at pos: the circular mean on each wrapped axis, the mean elsewhere.
#define BOIDS_STATS_ALL 0xffffffffu
void boids_stats_centre(const boids_world_params *w, uint32_t n, const float (*pos)[4], const uint32_t *group,
                        uint32_t only, float centre[3]);
// Couzin 2002's m_r of those agents about that centre (0 for none).
double boids_stats_milling(const boids_world_params *w, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                           const uint32_t *group, uint32_t only);
// FNV-1a 64 of (id, group, pos, vel) in id order.
uint64_t boids_sim_hash(boids_sim *s);
// The same hash of id-indexed arrays (agent id = index).
uint64_t boids_state_hash(uint32_t n, const float (*pos)[4], const float (*vel)[4], const uint32_t *group);
// Slot of each id in s->cur (fills s->slot_of_id).
const uint32_t *boids_sim_slots_by_id(boids_sim *s);

// Grid (s->grid over s->cur): the cell of a position.
uint32_t boids_grid_cell_of(const boids_world_params *w, const float pos[4]);
// All agents j != i (by slot in cur) with 0 < |delta| < radius, found through
// the grid (grid must be built for cur) or brute force. Returns the count; writes
// at most `cap` slots into out.
uint32_t boids_grid_neighbors(const boids_sim *s, uint32_t slot, float radius, uint32_t *out, uint32_t cap);
uint32_t boids_brute_neighbors(const boids_sim *s, uint32_t slot, float radius, uint32_t *out, uint32_t cap);

// CSV snapshot I/O (header id,group,px,py,pz,vx,vy,vz[,neighbors]).
// On error, msg receives "line L, column C: problem".
boids_result boids_csv_read(const char *path, uint32_t dim, uint32_t *count, float (**pos)[4],
                            float (**vel)[4], uint32_t **group, char *msg, size_t msg_size);
boids_result boids_csv_write(const char *path, boids_sim *s);
// The same format from n agents in id-order arrays (neighbors NULL: 0),
// written atomically as boids_csv_write; errno tells what failed.
boids_result boids_csv_write_agents(const char *path, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                                    const uint32_t *group, const uint32_t *neighbors);

#ifdef __cplusplus
}
#endif

#endif
