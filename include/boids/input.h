/* boids/input.h: opening an input file so that it cannot surprise
 * (src/core/input.c), for CSV, snapshots, recordings, scenarios, plans and
 * flow-field images.
 *
 * Offers: boids_input_open, BOIDS_INPUT_PIPES.
 *
 * The open never blocks (a FIFO with no writer reads as empty instead of
 * hanging the program, and SIGTERM stays honoured); what is opened must be
 * a regular file, or, where the caller allows it, a pipe or FIFO (a user's
 * `--init <(...)`); a character device (/dev/zero, /dev/urandom, a
 * terminal), a block device, a directory or a socket is refused with the
 * reason. A regular file larger than the caller's limit is refused before
 * any byte is read (pipes: the caller bounds what it reads). */
#ifndef BOIDS_INPUT_H
#define BOIDS_INPUT_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// boids_input_open's flags: pipes and FIFOs are accepted too.
#define BOIDS_INPUT_PIPES 1u

// Opens path for reading ("rb"), as above; max_bytes: the largest regular
// file accepted (0: any). NULL on failure with one phrase in why (no path:
// "is a character device (as /dev/zero), not a file", "is 9000000 bytes,
// over the 4194304 a scenario file may have", "cannot be opened: No such
// file or directory"); `what` names the kind of file in it ("a scenario
// file").
FILE *boids_input_open(const char *path, unsigned flags, uint64_t max_bytes, const char *what, char *why,
                       size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
