/* boids/atomic.h: files written whole or not at all (src/core/atomic.c), for
 * CSV, snapshots, profiles, screenshots and every later output.
 *
 * Offers: boids_atomic_fill (the caller's writer), boids_atomic_write,
 * boids_atomic_write_own,
 * boids_atomic_target, boids_atomic_refusal, boids_atomic_dir_of,
 * boids_atomic_sweep, boids_atomic_descriptor, boids_atomic_in_place,
 * boids_atomic_stream, boids_atomic_set_cancel.
 *
 * boids_atomic_write writes to a new temporary file in the target's
 * directory (".NAME.tmp.PID.N", NAME cut to 200 bytes so the name stays
 * within 255; mode 0666 less the umask, as fopen would create the target),
 * then fflush, fsync, close, rename over the target and fsync of the
 * directory (best effort: the rename itself made durable). On any failure
 * the temporary file is removed and an existing target is left as it was.
 * Readers see the old file or the new one, never a part. Before it starts,
 * the temporaries of the same target left by processes that no longer exist
 * (killed mid-write) are removed.
 *
 * The target: a symbolic link is followed to its final target, which is
 * written atomically beside it (the link stays a link). A character device
 * (/dev/null, /dev/stdout, a terminal) or a FIFO is written in place, with
 * no temporary and no rename, and so is a name of one of the process's own
 * descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N): the
 * descriptor is written at its offset, so stdout redirected to a file keeps
 * its inode and the other lines, and a regular file opened without O_APPEND
 * ends where the content ends. Every other path under /proc
 * (/proc/self/cwd/NAME, /proc/PID/root/...) is an ordinary path: a regular
 * file there is replaced whole, atomically, like any other. A write in
 * place waits for its reader with poll and fails with EINTR when the flag
 * of boids_atomic_set_cancel rises meanwhile (a stalled pipe never holds a
 * signal off). A FIFO must have a reader when the write
 * starts (else BOIDS_ERR_IO, errno ENXIO: never a hang). A block device, a
 * socket or a directory is refused (BOIDS_ERR_IO; errno EINVAL or EISDIR);
 * boids_atomic_refusal says why before a run. A file-size
 * limit (ulimit -f) fails the write with EFBIG instead of killing the
 * process (SIGXFSZ is ignored from the first write on). */
#ifndef BOIDS_ATOMIC_H
#define BOIDS_ATOMIC_H

#include <signal.h>
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
// The same for a file the program names itself in its own folder (an
// ensemble's runs and results, the viewer's numbered snapshots): nothing
// at that name is followed or written in place; a symbolic link, a FIFO or
// a device there is replaced by the new file (rename over the name itself),
// so a link planted there cannot send the write elsewhere. A directory
// there is refused (BOIDS_ERR_IO, EISDIR).
boids_result boids_atomic_write_own(const char *path, boids_atomic_fill fill, void *ctx);

// The file a write to path replaces: path, or for a symbolic link its final
// target (relative links resolved against their own directory; a dangling
// link's target path), malloc'd; NULL with errno (ELOOP, ENOMEM) on failure.
char *boids_atomic_target(const char *path);

// Whether boids_atomic_write writes path in place (a character device or a
// FIFO, through links; a name of one of the process's own descriptors, see
// boids_atomic_descriptor), with no temporary and no rename.
bool boids_atomic_in_place(const char *path);
// The descriptor that path names when it is a name of one of the process's
// own descriptors (/dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N of this process),
// open or not; -1 for any other path.
int boids_atomic_descriptor(const char *path);
// A write-only stdio stream on fd (which it closes) whose writes to a pipe,
// FIFO, socket or character device wait for room with poll and fail with
// EINTR when the flag of boids_atomic_set_cancel rises while they wait;
// NULL with errno on failure (fd then stays open).
FILE *boids_atomic_stream(int fd);
// The flag (a signal handler's, process-wide; NULL: none) whose rise ends
// writes in place that wait for their reader (see above). A flag already up
// when such a write starts does not end it.
void boids_atomic_set_cancel(const volatile sig_atomic_t *flag);

// Why path cannot be written by boids_atomic_write ("is a directory", "is a
// block device (a disk): not overwritten", "is a socket"), a static string;
// NULL when it can (a new file included; a FIFO too: whether it has a
// reader cannot be asked without disturbing that reader). Follows symbolic
// links.
const char *boids_atomic_refusal(const char *path);

// The directory part of path ("." without a slash, "/" for "/x"),
// malloc'd (the caller frees it); NULL when out of memory.
char *boids_atomic_dir_of(const char *path);
// Removes every temporary in dir (".NAME.tmp.PID.N", any NAME) that a
// process no longer running left there (killed mid-write); a live
// writer's stay. boids_atomic_write does this for its own target's.
void boids_atomic_sweep(const char *dir);

#ifdef __cplusplus
}
#endif

#endif
