// src/core/snapshot_params.c: the parameter chunks of a .boids snapshot
// (snapshot_internal.h; the byte layout in docs/ARCHITECTURE.md, "Snapshots
// (.boids)"): PARM, and the optional chunks after it that hold the rows
// added since version 2 (WOPT, RANG, RULE, NBHD, MORE, LEAD, WALL, FIMG), each
// written only when its rows are not their defaults. The shared.h structs
// are encoded word by word in little-endian order (every member is a 4-byte
// float or uint32, no padding: checked below), never as raw memory.
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bytes.h"
#include "snapshot_internal.h"

// The shared.h structs hold only 4-byte words (floats and uint32) with no
// padding, so word-by-word encoding covers every byte.
_Static_assert(sizeof(boids_world_params) == 208, "boids_world_params: 52 words");
// The world's first 48 words are PARM's; the options row after them
// (wall_corner, ...) goes into the WOPT chunk, written only when one is not
// its default 0, so a snapshot without options is byte for byte version 2's.
#define WOPT_BYTES 16u
_Static_assert(offsetof(boids_world_params, wall_corner) == WORLD_PARM_BYTES, "the options follow the PARM words");
_Static_assert(sizeof(boids_world_params) == WORLD_PARM_BYTES + WOPT_BYTES, "WOPT: the rest of the world");
_Static_assert(sizeof(boids_group_params) == 352, "boids_group_params: 88 words");
// PARM holds each group's first 36 words; the per-agent ranges (the last 4)
// go into the RANG chunk, written only when a group has one, so a snapshot
// of a run without ranges is what version 2 wrote (the pinned hashes).
_Static_assert(offsetof(boids_group_params, maxspeed_lo) == GROUP_PARM_BYTES, "the ranges follow the PARM words");
// The rules row (rules, turn, repulse, noise) after the ranges goes into the RULE
// chunk, written only when a group has other than the chapter's rules and
// the default turn; without it every group reads as that default.
_Static_assert(offsetof(boids_group_params, rules) == GROUP_PARM_BYTES + 16u, "the rules row follows the ranges");
#define RULE_BYTES (BOIDS_MAX_GROUPS * 16u)
// The two per-rule neighbourhood rows (alignment and cohesion radii, the
// three cones, own_cones, neighbors_max, 1 spare) after the rules row go
// into the NBHD chunk, written only when a group has one of its own (or a
// topological K); without it every group has the one radius and field of
// view of before and every neighbour (all 0).
_Static_assert(offsetof(boids_group_params, alignment_radius) == GROUP_PARM_BYTES + 32u, "NBHD follows the rules row");
#define NBHD_BYTES (BOIDS_MAX_GROUPS * 32u)
// The rows of the behaviours after the first 16 (their weights, then their
// parameters: target_speed, queue_distance, avoid_horizon, hide_margin) go into the MORE chunk, written only
// when a group's differ from the defaults (boids_params_default's); without
// it every group has those defaults.
#define MORE_OFFSET (GROUP_PARM_BYTES + 64u)
_Static_assert(offsetof(boids_group_params, weight_more) == MORE_OFFSET, "MORE follows NBHD");
#define MORE_GROUP_BYTES 80u
#define MORE_BYTES (BOIDS_MAX_GROUPS * MORE_GROUP_BYTES)
// The leader rows after MORE (leader_offset, leader, formation, spacing,
// leader_behind, leader_sight, interpose_a, _b, feeler_length: 12 words) go
// into the LEAD chunk, written only when a group's differ from the
// defaults; the derived rank row after them is never saved (finalize makes
// it from the count and the groups).
#define LEAD_OFFSET (MORE_OFFSET + MORE_GROUP_BYTES)
_Static_assert(offsetof(boids_group_params, leader_offset) == LEAD_OFFSET, "LEAD follows MORE");
#define LEAD_GROUP_BYTES 48u
_Static_assert(offsetof(boids_group_params, rank_base) == LEAD_OFFSET + LEAD_GROUP_BYTES, "the ranks follow LEAD");
#define LEAD_BYTES (BOIDS_MAX_GROUPS * LEAD_GROUP_BYTES)
// PARM holds the scene up to its walls; the walls (and their count row) go
// into the WALL chunk, written only when there is one.
_Static_assert(offsetof(boids_scene, wall) == SCENE_PARM_BYTES, "the walls follow PARM's scene");
#define WALL_BYTES (sizeof(boids_scene) - SCENE_PARM_BYTES)
_Static_assert(sizeof(boids_body_params) == 272, "boids_body_params: 68 words");
_Static_assert(sizeof(float) == 4 && sizeof(uint32_t) == 4, "4-byte words");

#define RANG_BYTES (BOIDS_MAX_GROUPS * 16u) // per group: maxspeed_lo, _hi, maxforce_lo, _hi (f32)

// Encodes `bytes` (a multiple of 4) of a words-only struct at b + *off.
static void put_words(unsigned char *b, size_t *off, const void *src, size_t bytes) {
    const unsigned char *s = src;
    for (size_t i = 0; i < bytes; i += 4) {
        uint32_t v;
        memcpy(&v, s + i, 4);
        put_u32(b + *off, v);
        *off += 4;
    }
}

// Decodes `bytes` (a multiple of 4) of a words-only struct from b + *off.
static void get_words(const unsigned char *b, size_t *off, void *dst, size_t bytes) {
    unsigned char *d = dst;
    for (size_t i = 0; i < bytes; i += 4) {
        uint32_t v = get_u32(b + *off);
        memcpy(d + i, &v, 4);
        *off += 4;
    }
}

// The name of the first params field that is not finite, or NULL.
const char *snapshot_params_nonfinite(const boids_params *p) {
    const boids_world_params *w = &p->world;
    if (!all_finite(w->min, 4) || !all_finite(w->size, 4) || !all_finite(w->cell, 4) || !all_finite(w->inv_cell, 4) ||
        !all_finite(w->target_pos, 4) || !all_finite(w->target_vel, 4) || !all_finite(w->flow_inv_cell, 4) ||
        !isfinite(w->dt) || !isfinite(w->wall_offset) || !isfinite(w->max_speed_all) || !isfinite(w->max_radius))
        return "world";
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        if (!all_finite(&q->maxspeed, 16) || !all_finite(&q->weight[0][0], 16) || !isfinite(q->max_turn) ||
            !isfinite(q->body_radius) || !all_finite(&q->maxspeed_lo, 4) || !isfinite(q->turn) ||
            !all_finite(&q->weight_more[0][0], 16) || !isfinite(q->target_speed) || !isfinite(q->queue_distance) ||
            !isfinite(q->avoid_horizon) || !isfinite(q->hide_margin) || !all_finite(q->leader_offset, 4) ||
            !isfinite(q->formation_spacing) || !isfinite(q->leader_behind) || !isfinite(q->leader_sight) ||
            !isfinite(q->feeler_length))
            return "group";
        const boids_body_params *b = &p->body[g];
        if (!all_finite(&b->segment[0][0], 32) || !all_finite(&b->width[0][0], 32) || !isfinite(b->angle_limit))
            return "body";
    }
    if (!all_finite(&p->scene.path[0][0], 4 * BOIDS_MAX_PATH_POINTS) ||
        !all_finite(&p->scene.obstacle[0][0], 4 * BOIDS_MAX_OBSTACLES) || !isfinite(p->scene.path_radius) ||
        !all_finite(&p->scene.wall[0][0], 8 * BOIDS_MAX_WALLS))
        return "scene";
    if (!isfinite(p->flow.resolution) || !isfinite(p->flow.noise_scale) || !all_finite(p->flow.direction, 4))
        return "flow field";
    if (!all_finite(p->group_share, BOIDS_MAX_GROUPS))
        return "group share";
    return NULL;
}

// The PARM payload of p (PARM_BYTES).
void snapshot_encode_params(const boids_params *p, unsigned char *b) {
    size_t off = 0;
    put_words(b, &off, &p->world, WORLD_PARM_BYTES);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        put_words(b, &off, &p->group[g], GROUP_PARM_BYTES);
    put_words(b, &off, &p->scene, SCENE_PARM_BYTES);
    put_u32(b + off, p->flow.kind);
    put_f32(b + off + 4, p->flow.resolution);
    put_f32(b + off + 8, p->flow.noise_scale);
    put_u32(b + off + 12, p->flow.noise_seed);
    off += 16;
    put_words(b, &off, p->flow.direction, sizeof p->flow.direction);
    put_words(b, &off, p->flow.dims, sizeof p->flow.dims);
    memset(b + off, 0, FLOW_IMAGE_BYTES);
    memcpy(b + off, p->flow.image, strnlen(p->flow.image, FLOW_IMAGE_BYTES - 1));
    off += FLOW_IMAGE_BYTES;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        put_words(b, &off, &p->body[g], sizeof p->body[g]);
    put_words(b, &off, p->group_share, sizeof p->group_share);
}

// p from a PARM payload (the flow field's vec is NULL).
void snapshot_decode_params(const unsigned char *b, boids_params *p) {
    memset(p, 0, sizeof *p);
    size_t off = 0;
    get_words(b, &off, &p->world, WORLD_PARM_BYTES);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        get_words(b, &off, &p->group[g], GROUP_PARM_BYTES);
    get_words(b, &off, &p->scene, SCENE_PARM_BYTES);
    p->flow.kind = get_u32(b + off);
    p->flow.resolution = get_f32(b + off + 4);
    p->flow.noise_scale = get_f32(b + off + 8);
    p->flow.noise_seed = get_u32(b + off + 12);
    off += 16;
    get_words(b, &off, p->flow.direction, sizeof p->flow.direction);
    get_words(b, &off, p->flow.dims, sizeof p->flow.dims);
    memcpy(p->flow.image, b + off, FLOW_IMAGE_BYTES);
    off += FLOW_IMAGE_BYTES;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        get_words(b, &off, &p->body[g], sizeof p->body[g]);
    get_words(b, &off, p->group_share, sizeof p->group_share);
    p->flow.vec = NULL;
}

// Whether any of the world's options is not its default (then the WOPT
// chunk is written); its payload, and back (a problem, or NULL).
static bool has_world_options(const boids_params *p) {
    const boids_world_params *w = &p->world;
    return w->wall_corner || w->margin != 0.0f || w->grid_fine || w->reserved2;
}

static void encode_world_options(const boids_params *p, unsigned char *b) {
    size_t off = 0;
    put_words(b, &off, (const unsigned char *)&p->world + WORLD_PARM_BYTES, WOPT_BYTES); // from wall_corner on
}

static const char *decode_world_options(const unsigned char *b, boids_params *p) {
    size_t off = 0;
    get_words(b, &off, (unsigned char *)&p->world + WORLD_PARM_BYTES, WOPT_BYTES); // from wall_corner on
    if (p->world.wall_corner > BOIDS_WALL_CORNER_BOOK)
        return "a wall-corner rule that is not both (0) or book (1)";
    // The margin's word: 0 (the default, 3) or a margin finalize accepts.
    if (!(p->world.margin == 0.0f || (p->world.margin > 0.0f && p->world.margin <= BOIDS_MAX_EXTENT)))
        return "a margin that is not 0 (the default) or in (0, 1e9]";
    // The finer grid's word (finalize's canonical form: M = 1 alone is 0, so a
    // world of today's grid writes no WOPT for it and keeps its bytes).
    uint32_t fine = p->world.grid_fine;
    if ((fine & ~(BOIDS_GRID_FINE_MASK | BOIDS_GRID_FINE_AUTO)) ||
        (fine & BOIDS_GRID_FINE_MASK) > BOIDS_GRID_FINE_MAX || fine == 1u)
        return "a grid fine factor that is not 0 (today's grid), 2..4, or auto (0x100) with 0..4";
    if (p->world.reserved2)
        return "reserved words that are not 0";
    if (!has_world_options(p))
        return "no option (it is written only for one)";
    return NULL;
}

// Whether any group has other than the chapter's rules and the default turn,
// a repulse or a noise (then the RULE chunk is written: rules, turn, repulse,
// noise per group; the noise word was a spare 0 before the Vicsek and Couzin
// rule sets, so older files read the same); its payload, and back into p's
// groups (a problem, or NULL; the ranges are checked with the params).
static bool has_rules(const boids_params *p) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        if (q->rules != BOIDS_RULES_CHAPTER || q->turn != BOIDS_TURN_DEFAULT || q->repulse != 0.0f || q->noise != 0.0f)
            return true;
    }
    return false;
}

static void encode_rules(const boids_params *p, unsigned char *b) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        put_words(b, &off, &p->group[g].rules, 16);
}

static const char *decode_rules(const unsigned char *b, boids_params *p) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        get_words(b, &off, &p->group[g].rules, 16);
    if (!has_rules(p))
        return "only the default rules (it is written only for others)";
    return NULL;
}

// The default rules row of every group (a file without RULE).
static void default_rules(boids_params *p) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        p->group[g].rules = BOIDS_RULES_CHAPTER;
        p->group[g].turn = BOIDS_TURN_DEFAULT;
    }
}

// Whether any group has a per-rule radius or cone or a neighbors_max (then the NBHD chunk is
// written); its payload, and back into p's groups (a problem, or NULL).
static bool has_neighborhoods(const boids_params *p) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        unsigned char zero[32] = {0};
        if (memcmp(&q->alignment_radius, zero, sizeof zero) != 0)
            return true;
    }
    return false;
}

static void encode_neighborhoods(const boids_params *p, unsigned char *b) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        put_words(b, &off, &p->group[g].alignment_radius, 32);
}

static const char *decode_neighborhoods(const unsigned char *b, boids_params *p) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        get_words(b, &off, &p->group[g].alignment_radius, 32);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        if (!(q->alignment_radius == 0.0f || (isfinite(q->alignment_radius) && q->alignment_radius > 0.0f)) ||
            !(q->cohesion_radius == 0.0f || (isfinite(q->cohesion_radius) && q->cohesion_radius > 0.0f)))
            return "a radius that is not 0 or positive and finite";
        if (q->own_cones & ~BOIDS_CONES)
            return "own-cone bits other than separation (1), alignment (2), cohesion (4)";
        const float cone[3] = {q->separation_fov_cos, q->alignment_fov_cos, q->cohesion_fov_cos};
        for (uint32_t k = 0; k < 3; k++)
            if ((q->own_cones & (1u << k)) ? !(cone[k] >= -1.0f && cone[k] <= 1.0f) : cone[k] != 0.0f)
                return "a cone cosine outside -1..1, or not 0 without its bit";
        if (q->neighbors_max > BOIDS_MAX_NEIGHBORS_K)
            return "a neighbors_max above BOIDS_MAX_NEIGHBORS_K (32)";
        if (!(isfinite(q->min_speed) && q->min_speed >= 0.0f))
            return "a min_speed that is not 0 or positive and finite";
    }
    if (!has_neighborhoods(p))
        return "only the default neighbourhoods (it is written only for others)";
    return NULL;
}

// The default rows of the later behaviours (boids_params_default's groups
// are all alike): MORE_GROUP_BYTES of its group 0 from weight_more on.
// Per thread: engines save and load from several at once (an ensemble's
// jobs), and a shared copy being made by one thread read as zeros by
// another wrote a LEAD or MORE chunk of defaults now and then.
static const unsigned char *default_more(void) {
    static _Thread_local boids_params d;
    static _Thread_local bool made;
    if (!made) {
        boids_params_default(&d, 1, 2);
        made = true;
    }
    return (const unsigned char *)&d.group[0].weight_more;
}

// The rows of every group from byte `at` of boids_group_params, `bytes`
// each, that the MORE and LEAD chunks hold (written only when a group's
// differ from boids_params_default's: default_rows()).
static const unsigned char *default_rows(size_t at) {
    return default_more() + (at - MORE_OFFSET);
}

static bool rows_differ(const boids_params *p, size_t at, size_t bytes) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        if (memcmp((const unsigned char *)&p->group[g] + at, default_rows(at), bytes) != 0)
            return true;
    return false;
}

static void encode_rows(const boids_params *p, size_t at, size_t bytes, unsigned char *b) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        put_words(b, &off, (const unsigned char *)&p->group[g] + at, bytes);
}

static void decode_rows(const unsigned char *b, size_t at, size_t bytes, boids_params *p) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        get_words(b, &off, (unsigned char *)&p->group[g] + at, bytes);
}

// The defaults of those rows in every group (a file without the chunk).
static void reset_rows(boids_params *p, size_t at, size_t bytes) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        memcpy((unsigned char *)&p->group[g] + at, default_rows(at), bytes);
}

// MORE: the later behaviours' weights and parameters; back from a payload
// (a problem, or NULL; the values' ranges are checked with the params).
static bool has_more(const boids_params *p) {
    return rows_differ(p, MORE_OFFSET, MORE_GROUP_BYTES);
}

static void encode_more(const boids_params *p, unsigned char *b) {
    encode_rows(p, MORE_OFFSET, MORE_GROUP_BYTES, b);
}

static void reset_more(boids_params *p) {
    reset_rows(p, MORE_OFFSET, MORE_GROUP_BYTES);
}

static const char *decode_more(const unsigned char *b, boids_params *p) {
    decode_rows(b, MORE_OFFSET, MORE_GROUP_BYTES, p);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        if (!all_finite(&q->weight_more[0][0], 16) || !isfinite(q->target_speed) || !isfinite(q->queue_distance) ||
            !isfinite(q->avoid_horizon) || !isfinite(q->hide_margin))
            return "a weight or parameter that is not finite";
        if (q->queue_distance < 0.0f || q->avoid_horizon < 0.0f || q->hide_margin < 0.0f)
            return "a queue distance, avoid horizon or hide margin below 0";
    }
    if (!has_more(p))
        return "only the defaults (it is written only for others)";
    return NULL;
}

// LEAD: the leader rows (named agents, formation, feelers); the ranges are
// checked with the params by finalize.
static bool has_lead(const boids_params *p) {
    return rows_differ(p, LEAD_OFFSET, LEAD_GROUP_BYTES);
}

static void encode_lead(const boids_params *p, unsigned char *b) {
    encode_rows(p, LEAD_OFFSET, LEAD_GROUP_BYTES, b);
}

static void reset_lead(boids_params *p) {
    reset_rows(p, LEAD_OFFSET, LEAD_GROUP_BYTES);
}

static const char *decode_lead(const unsigned char *b, boids_params *p) {
    decode_rows(b, LEAD_OFFSET, LEAD_GROUP_BYTES, p);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        if (!all_finite(q->leader_offset, 4) || !isfinite(q->formation_spacing) || !isfinite(q->leader_behind) ||
            !isfinite(q->leader_sight) || !isfinite(q->feeler_length))
            return "a parameter that is not finite";
    }
    if (!has_lead(p))
        return "only the defaults (it is written only for others)";
    return NULL;
}

// The WALL chunk: the scene's walls and their count row (written when there is a wall).
static bool has_walls(const boids_params *p) {
    return p->scene.wall_count > 0;
}

static void encode_walls(const boids_params *p, unsigned char *b) {
    size_t off = 0;
    put_words(b, &off, p->scene.wall, WALL_BYTES);
}

static const char *decode_walls(const unsigned char *b, boids_params *p) {
    size_t off = 0;
    get_words(b, &off, p->scene.wall, WALL_BYTES);
    if (p->scene.wall_count == 0)
        return "no wall (it is written only for one)";
    return NULL; // the count, kinds and values are checked with the params by finalize
}

// Whether any group has a per-agent range (then the RANG chunk is written).
static bool has_ranges(const boids_params *p) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *q = &p->group[g];
        if (q->maxspeed_lo != 0.0f || q->maxspeed_hi != 0.0f || q->maxforce_lo != 0.0f || q->maxforce_hi != 0.0f)
            return true;
    }
    return false;
}

// The RANG payload (RANG_BYTES) of p, and back into p's groups.
static void encode_ranges(const boids_params *p, unsigned char *b) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        put_words(b, &off, &p->group[g].maxspeed_lo, 16);
}

static const char *decode_ranges(const unsigned char *b, boids_params *p) {
    size_t off = 0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        get_words(b, &off, &p->group[g].maxspeed_lo, 16);
    if (!has_ranges(p))
        return "no range (it is written only for one)";
    return NULL; // the ranges are checked with the params by finalize
}

// FIMG: the content hash of a flow-field image (boids_flowfield_image_hash),
// written when the field was built from one (kind image); a loader refuses
// an image at the saved path whose pixels are not those any more. Without
// it (other kinds, a field never built, older files) nothing is checked.
#define FIMG_BYTES 8u

static bool has_image_hash(const boids_params *p) {
    return p->flow.kind == BOIDS_FLOW_IMAGE && p->flow.image_hash != 0;
}

static void encode_image_hash(const boids_params *p, unsigned char *b) {
    put_u64(b, p->flow.image_hash);
}

static const char *decode_image_hash(const unsigned char *b, boids_params *p) {
    p->flow.image_hash = get_u64(b);
    if (!has_image_hash(p))
        return "a hash that is 0 or no image field (it is written only for an image that was read)";
    return NULL;
}

_Static_assert(WOPT_BYTES <= SNAPSHOT_PARAM_CHUNK_MAX_BYTES && RANG_BYTES <= SNAPSHOT_PARAM_CHUNK_MAX_BYTES &&
                   RULE_BYTES <= SNAPSHOT_PARAM_CHUNK_MAX_BYTES && NBHD_BYTES <= SNAPSHOT_PARAM_CHUNK_MAX_BYTES &&
                   MORE_BYTES <= SNAPSHOT_PARAM_CHUNK_MAX_BYTES && LEAD_BYTES <= SNAPSHOT_PARAM_CHUNK_MAX_BYTES &&
                   WALL_BYTES <= SNAPSHOT_PARAM_CHUNK_MAX_BYTES,
               "every optional parameter chunk fits the writer's buffer");

// In the order of the file (none before version 3): a reader sets each
// one's defaults, then decodes it when it is the next chunk.
const snapshot_param_chunk snapshot_param_chunks[SNAPSHOT_PARAM_CHUNK_COUNT] = {
    {"WOPT", WOPT_BYTES, "4 words: the world's options", has_world_options, encode_world_options, decode_world_options,
     NULL},
    {"RANG", RANG_BYTES, "4 floats per group: the per-agent ranges", has_ranges, encode_ranges, decode_ranges, NULL},
    {"RULE", RULE_BYTES, "4 words per group: rules, turn, repulse, noise", has_rules, encode_rules, decode_rules,
     default_rules},
    {"NBHD", NBHD_BYTES, "8 words per group: the per-rule radii and cones", has_neighborhoods, encode_neighborhoods,
     decode_neighborhoods, NULL},
    {"MORE", MORE_BYTES, "20 words per group: weights 16..31, target speed, queue distance, avoid horizon, hide margin",
     has_more, encode_more, decode_more, reset_more},
    {"LEAD", LEAD_BYTES,
     "12 words per group: leader offset, leader, formation, spacing, behind, sight, interpose a, b, feeler length",
     has_lead, encode_lead, decode_lead, reset_lead},
    {"WALL", WALL_BYTES, "the scene's walls: 2 rows each, then the count row", has_walls, encode_walls, decode_walls,
     NULL},
    {"FIMG", FIMG_BYTES, "a u64: the flow-field image's content hash", has_image_hash, encode_image_hash,
     decode_image_hash, NULL},
};
