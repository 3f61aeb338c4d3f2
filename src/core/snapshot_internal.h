// src/core/snapshot_internal.h: the parameter chunks of a .boids snapshot
// (snapshot_params.c), which the snapshot's writer and reader (snapshot.c)
// frame, check and order. Not public API.
#ifndef BOIDS_SNAPSHOT_INTERNAL_H
#define BOIDS_SNAPSHOT_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "boids/snapshot.h"

// PARM: the world's first 48 words, each group's first 36, the scene up to
// its walls, the flow field (12 words and its image path), the bodies and
// the group shares.
#define WORLD_PARM_BYTES 192u
#define GROUP_PARM_BYTES 144u
#define SCENE_PARM_BYTES 1040u
#define FLOW_WORDS 12u // kind, resolution, noise_scale, noise_seed, direction[4], dims[4]
#define FLOW_IMAGE_BYTES sizeof(((boids_flowfield *)0)->image)
#define PARM_BYTES                                                                                                     \
    (WORLD_PARM_BYTES + BOIDS_MAX_GROUPS * GROUP_PARM_BYTES + SCENE_PARM_BYTES + FLOW_WORDS * 4u + FLOW_IMAGE_BYTES +  \
     BOIDS_MAX_GROUPS * sizeof(boids_body_params) + BOIDS_MAX_GROUPS * 4u)

// Are the n floats at f all finite?
static inline bool all_finite(const float *f, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(f[i]))
            return false;
    return true;
}

// The name of the first params field that is not finite, or NULL.
const char *snapshot_params_nonfinite(const boids_params *p);
// The PARM payload of p (PARM_BYTES), and p from one (the flow field's vec
// is NULL).
void snapshot_encode_params(const boids_params *p, unsigned char *b);
void snapshot_decode_params(const unsigned char *b, boids_params *p);

// An optional chunk after PARM: rows of the params that are written only
// when they are not their defaults, so a file without them keeps the bytes
// of the version before them.
typedef struct snapshot_param_chunk {
    char tag[5];
    size_t bytes;     // the payload's length
    const char *what; // what the payload holds, for a message on a wrong length
    // Whether p's rows differ from their defaults (then the chunk is written).
    bool (*present)(const boids_params *p);
    void (*encode)(const boids_params *p, unsigned char *b);
    // p's rows from a payload: a problem, or NULL (the values' ranges are
    // checked with the params by finalize).
    const char *(*decode)(const unsigned char *b, boids_params *p);
    // The rows' defaults, set before the chunk is looked for (NULL: PARM's
    // decode left them 0, their default).
    void (*reset)(boids_params *p);
} snapshot_param_chunk;

// The largest payload of an optional parameter chunk.
#define SNAPSHOT_PARAM_CHUNK_MAX_BYTES 1024u
// The optional parameter chunks, in file order.
#define SNAPSHOT_PARAM_CHUNK_COUNT 8u
extern const snapshot_param_chunk snapshot_param_chunks[SNAPSHOT_PARAM_CHUNK_COUNT];

#endif
