/* boids/snapshot.h: the whole state of a CPU simulation in one binary file
 * (.boids), saved atomically and loaded with every size checked before any
 * allocation. The byte layout is documented in docs/ARCHITECTURE.md
 * ("Snapshots (.boids)"); in short:
 *
 *   magic    8 bytes  89 42 44 53 0D 0A 1A 0A  ("\x89BDS\r\n\x1a\n", PNG's
 *                     line-ending trap: a CRLF<->LF or 7-bit conversion breaks it)
 *   version  u32      BOIDS_SNAPSHOT_VERSION (a newer one is rejected)
 *   chunks   tag (4 ASCII bytes), length (u64), payload, CRC-32 (u32, zlib's
 *            crc32 of tag + payload); in this order: HEAD PARM [WOPT]
 *            [RANG] [RULE] [NBHD] [MORE] [LEAD] [WALL] [FIMG] [UPDT] AGNT
 *            ORDR [JNTS] [SCEN [LINE] [GLYP]] END. SCEN
 *            (version 2) holds what a host keeps of a scenario besides the
 *            params: the target's motion, the varying weights, the title,
 *            group names and colours. Version 3: WOPT, the world's options
 *            row (wall_corner; only when one is not 0), RANG, the groups'
 *            per-agent ranges (only when a group has one), RULE, the groups'
 *            rule sets and heading turns (only when a group has other than
 *            the chapter's rules and the default turn), and LINE, the line
 *            target's start and velocity (only with that target), so a run
 *            that uses none of them writes the chunks version 2 wrote.
 *            FIMG: the content hash of an image flow field's picture (a
 *            load refuses an image that changed); UPDT: a sequential
 *            update order (the loaded sim steps so).
 * Every integer and float is little-endian (IEEE 754 binary32 floats).
 *
 * Offers:
 *   boids_snapshot_save   a sim -> FILE (temporary file, fsync, rename)
 *   boids_snapshot_load   FILE -> a new sim whose next step continues exactly
 *                         as the saved one's would have
 * Errors: BOIDS_ERR_IO (cannot open, read or write), BOIDS_ERR_FORMAT (not a
 * snapshot, damaged, or values out of range), BOIDS_ERR_ARGUMENT (save: a
 * state the loader would reject, e.g. a NaN, is not written), BOIDS_ERR_NOMEM;
 * err receives one line "FILE: problem" (no newline).
 */
#ifndef BOIDS_SNAPSHOT_H
#define BOIDS_SNAPSHOT_H

#include <stddef.h>

#include "core.h"
#include "scenario.h"

// The largest step a snapshot may hold (2^53: exact in a double).
#define BOIDS_SNAPSHOT_MAX_STEP (1ull << 53)

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_SNAPSHOT_MAGIC "\211BDS\r\n\032\n" // 89 42 44 53 0D 0A 1A 0A
#define BOIDS_SNAPSHOT_MAGIC_SIZE 8u
#define BOIDS_SNAPSHOT_VERSION 3u // reads 1 (no SCEN), 2 (no options, ranges, rules, line target) and 3

// Writes the state of s (agents, slot order, bodies, params, seed, step) and,
// when sc is not NULL, the host parts of its scenario (SCEN: target motion,
// varying weights, title, names, colours; sc's params are not used) to path:
// a temporary file in the same directory, flushed and fsynced, then renamed
// over path. On failure the temporary file is removed and an existing file
// at path is left as it was.
boids_result boids_snapshot_save(const boids_sim *s, const boids_scenario *sc, const char *path, char *err,
                                 size_t err_size);

// Reads path into a new simulation (*out; NULL on error). Its threads and
// neighbour index are the defaults (they do not change the results); its
// update order is the saved one. An image flow field's picture must be
// readable at its path and, with FIMG, the one the run used (else
// BOIDS_ERR_IO or _FORMAT naming the image). When
// sc is not NULL it receives the saved scenario parts over
// boids_scenario_default (without a SCEN chunk: a fixed target, no varying
// weights, groups named default, group1, ...) and the sim's params; a host
// that calls boids_scenario_at_step(sc, step, ...) each step, as the saved
// run did, continues it exactly.
boids_result boids_snapshot_load(const char *path, boids_sim **out, boids_scenario *sc, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
