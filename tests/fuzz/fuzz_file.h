/* tests/fuzz/fuzz_file.h: what the file-loader fuzz targets share. Each
 * input is copied (so its CRCs can be repaired), written to one temporary
 * file per process and loaded from there; errors must be one non-empty line.
 * The byte helpers and CRC are the formats' own (src/core/bytes.h).
 */
#ifndef BOIDS_FUZZ_FILE_H
#define BOIDS_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"

static char fuzz_path[64]; // the temporary file every input is written to

// Names the temporary file ("/tmp/NAME.PID.EXT") and silences stdout.
static inline void fuzz_file_init(const char *name, const char *ext) {
    if (!freopen("/dev/null", "w", stdout))
        abort();
    snprintf(fuzz_path, sizeof fuzz_path, "/tmp/%s.%ld.%s", name, (long)getpid(), ext);
}

// Writes the input to the temporary file; with an even size `repair` first
// rewrites its CRCs in a copy (odd sizes keep the CRC checks fuzzed).
static inline void fuzz_file_write(const uint8_t *data, size_t size, void (*repair)(uint8_t *b, size_t size)) {
    uint8_t *b = malloc(size ? size : 1);
    if (!b)
        abort();
    memcpy(b, data, size);
    if (size % 2 == 0)
        repair(b, size);
    FILE *f = fopen(fuzz_path, "wb");
    if (!f || fwrite(b, 1, size, f) != size || fclose(f) != 0)
        abort();
    free(b);
}

// An error message must be one non-empty line.
static inline void fuzz_check_message(const char *who, const char *err) {
    if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "%s: bad error report: '%s'\n", who, err);
        abort();
    }
}

#endif
