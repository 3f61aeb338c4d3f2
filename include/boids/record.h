/* boids/record.h: recordings (.boidsrec): a compact log of the agents'
 * positions and velocities every K steps, each frame zstd-compressed with
 * its own CRC-32, for replay in the viewer (boids --replay). The byte layout
 * is documented in docs/ARCHITECTURE.md ("Recordings"); in short:
 *
 *   magic    8 bytes  89 42 52 43 0D 0A 1A 0A  ("\x89BRC\r\n\x1a\n": a
 *                     CRLF<->LF or 7-bit conversion breaks it)
 *   header   56 bytes: version u32, count u32, dim u32, components u32 (2 or
 *            3 floats per vector), group_count u32, every u64, world min
 *            3 f32, world size 3 f32, CRC-32 of magic + those 52 bytes (u32)
 *   blocks   tag (4 ASCII), step u64, raw size u64, compressed size u64,
 *            CRC-32 (u32, of the 28 bytes before it + the compressed bytes),
 *            then the zstd frame. First one "GRPS" (one byte per agent, its
 *            group, in id order), then one "FRAM" per recorded step: all
 *            positions then all velocities, `components` f32 each, id order.
 * Every integer and float is little-endian.
 *
 * Durability: the header and group block are written first and each frame
 * is appended and flushed as it is recorded, so a recording is valid after
 * any completed frame, even if the process dies (no trailer, nothing is
 * rewritten); close fsyncs a regular file (a pipe, FIFO or device is
 * written through boids_atomic_stream: it waits for its reader with poll,
 * and gives up when a signal's flag rises). An interrupted write leaves a truncated last
 * frame, which the reader reports and skips. (Unlike snapshots this is not
 * a temporary file renamed at the end: a recording in progress must be
 * readable.)
 *
 * Errors: BOIDS_ERR_IO, BOIDS_ERR_FORMAT, BOIDS_ERR_ARGUMENT, BOIDS_ERR_NOMEM;
 * err receives one line "FILE: problem" (no newline).
 */
#ifndef BOIDS_RECORD_H
#define BOIDS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_RECORD_MAGIC "\211BRC\r\n\032\n" // 89 42 52 43 0D 0A 1A 0A
#define BOIDS_RECORD_MAGIC_SIZE 8u
#define BOIDS_RECORD_VERSION 1u
#define BOIDS_RECORD_HEADER_SIZE 64u // magic + 52 bytes of fields + CRC
#define BOIDS_RECORD_BLOCK_SIZE 32u  // a block's header

// ---- writing ----

typedef struct boids_recorder boids_recorder;

// Creates (or overwrites) path and writes the header and the groups of s's
// agents; frames are recorded on steps that are multiples of every (>= 1).
boids_result boids_record_open(const char *path, const boids_sim *s, uint64_t every, boids_recorder **out, char *err,
                               size_t err_size);

// Appends the state of s as a frame if s->step is a multiple of every (and
// not already recorded); flushes it to the file. *written (may be NULL) says
// whether a frame was written.
boids_result boids_record_frame(boids_recorder *rec, const boids_sim *s, bool *written, char *err, size_t err_size);

// The number of frames written so far.
uint32_t boids_record_frames(const boids_recorder *rec);

// Flushes, fsyncs and closes the file, frees rec (NULL is fine).
boids_result boids_record_close(boids_recorder *rec, char *err, size_t err_size);

// ---- reading ----

typedef struct boids_recording boids_recording;

// What a recording holds (valid while it is open).
typedef struct boids_recording_info {
    uint32_t count, dim, components, group_count;
    uint64_t every;
    float min[3], size[3];
    const uint32_t *group; // count entries, id order
    uint32_t frames;       // complete, checked frames
    bool truncated;        // the file ends inside a frame (skipped)
    char note[256];        // why it is truncated ("" if not)
} boids_recording_info;

// Opens and checks path: header, sizes (before allocating), every frame's
// CRC, decompressed size and values (finite). A truncated last frame is not
// an error: info->truncated and note say so.
boids_result boids_recording_open(const char *path, boids_recording **out, char *err, size_t err_size);

// The header and frame count of r.
const boids_recording_info *boids_recording_get_info(const boids_recording *r);

// Frame i (< frames): its step, and each agent's position and velocity in id
// order (xyz; z = world min and vz = 0 in 2D; w = 0). pos/vel may be NULL.
boids_result boids_recording_frame(boids_recording *r, uint32_t i, uint64_t *step, float (*pos)[4], float (*vel)[4],
                                   char *err, size_t err_size);

// Closes r (NULL is fine).
void boids_recording_close(boids_recording *r);

#ifdef __cplusplus
}
#endif

#endif
