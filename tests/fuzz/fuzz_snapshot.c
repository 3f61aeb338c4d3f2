/* tests/fuzz/fuzz_snapshot.c: libFuzzer target of the snapshot loader
 * (src/core/snapshot.c, boids_snapshot_load). The input is written to a
 * temporary file and loaded; when it loads, the simulation is stepped once
 * and destroyed. A crash, a sanitizer report, or an error that is not one
 * line is a bug (abort).
 *
 * Every chunk carries a CRC-32, which random mutations almost never keep
 * right. So that the fuzzer reaches the decoding behind the CRCs, the CRC of
 * every complete chunk is recomputed before loading when the input's size is
 * even; odd-sized inputs are loaded as they are (the CRC checks themselves).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "boids/core.h"
#include "boids/snapshot.h"

#define CHUNK_HEADER 12u // tag (4) + length (u64)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64]; // the temporary file every input is written to

// Names the temporary file (one per process, removed after each input) and silences stdout.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))
        abort();
    snprintf(path, sizeof path, "/tmp/fuzz_snapshot.%ld.boids", (long)getpid());
    return 0;
}

// Little-endian u64 at b.
static uint64_t get_u64(const uint8_t *b) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

// Rewrites the CRC-32 (of tag + payload, little-endian, after the payload)
// of every complete chunk after the 12-byte magic and version.
static void fix_crcs(uint8_t *b, size_t size) {
    size_t off = BOIDS_SNAPSHOT_MAGIC_SIZE + 4;
    while (size - off >= CHUNK_HEADER && off < size) {
        uint64_t len = get_u64(b + off + 4);
        if (len > size - off - CHUNK_HEADER || size - off - CHUNK_HEADER - len < 4)
            return;
        uLong crc = crc32(0L, b + off, 4);
        crc = crc32(crc, b + off + CHUNK_HEADER, (uInt)len);
        uint8_t *c = b + off + CHUNK_HEADER + len;
        for (int i = 0; i < 4; i++)
            c[i] = (uint8_t)((uint32_t)crc >> (8 * i));
        off += CHUNK_HEADER + (size_t)len + 4;
    }
}

// One input: (CRCs fixed,) written, loaded, stepped once.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *b = malloc(size ? size : 1);
    if (!b)
        abort();
    memcpy(b, data, size);
    if (size % 2 == 0 && size >= BOIDS_SNAPSHOT_MAGIC_SIZE + 4)
        fix_crcs(b, size);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, size, f) != size || fclose(f) != 0)
        abort();
    free(b);

    boids_sim *sim = NULL;
    char err[1024];
    err[0] = '\0';
    if (boids_snapshot_load(path, &sim, NULL, err, sizeof err) == BOIDS_OK) {
        if (!sim)
            abort();
        boids_sim_step(sim);
        boids_sim_destroy(sim);
    } else if (!err[0] || strchr(err, '\n') || sim) {
        fprintf(stderr, "fuzz_snapshot: bad error report: '%s'\n", err);
        abort();
    }
    remove(path);
    return 0;
}
