/* boids/atomic.h: files written whole or not at all (src/core/atomic.c), for
 * CSV, snapshots, profiles, screenshots and every later output.
 *
 * Offers: boids_atomic_fill (the caller's writer), boids_atomic_write,
 * boids_atomic_dir_of.
 *
 * boids_atomic_write writes to a new temporary file in the target's
 * directory (".NAME.tmp.PID.N", mode 0666 less the umask, as fopen would
 * create the target), then fflush, fsync, close, rename over the target and
 * fsync of the directory (best effort: the rename itself made durable). On
 * any failure the temporary file is removed and an existing target is left
 * as it was. Readers see the old file or the new one, never a part. */
#ifndef BOIDS_ATOMIC_H
#define BOIDS_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>

#include "boids/error.h"

#ifdef __cplusplus
extern "C" {
#endif

// Writes the whole content to f; false on a failure (errno telling why where
// the writer knows it). ctx is boids_atomic_write's.
typedef bool (*boids_atomic_fill)(FILE *f, void *ctx);

// Writes path atomically with fill(f, ctx) (see above). Returns BOIDS_OK,
// BOIDS_ERR_NOMEM (the temporary name could not be allocated) or
// BOIDS_ERR_IO, with errno set to the first failure's error (EIO where the
// writer failed without one).
boids_result boids_atomic_write(const char *path, boids_atomic_fill fill, void *ctx);

// The directory part of path ("." without a slash, "/" for "/x"),
// malloc'd (the caller frees it); NULL when out of memory.
char *boids_atomic_dir_of(const char *path);

#ifdef __cplusplus
}
#endif

#endif
