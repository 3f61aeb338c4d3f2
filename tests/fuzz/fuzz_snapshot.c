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
#include <stddef.h>
#include <stdint.h>

#include "boids/core.h"
#include "boids/snapshot.h"
#include "fuzz_file.h"

#define CHUNK_HEADER 12u // tag (4) + length (u64)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Names the temporary file (one per process, removed after each input) and silences stdout.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_file_init("fuzz_snapshot", "boids");
    return 0;
}

// Rewrites the CRC-32 (of tag + payload, little-endian, after the payload)
// of every complete chunk after the 12-byte magic and version.
static void fix_crcs(uint8_t *b, size_t size) {
    size_t off = BOIDS_SNAPSHOT_MAGIC_SIZE + 4;
    if (size < off)
        return;
    while (size - off >= CHUNK_HEADER && off < size) {
        uint64_t len = get_u64(b + off + 4);
        if (len > size - off - CHUNK_HEADER || size - off - CHUNK_HEADER - len < 4)
            return;
        uLong crc = crc_bytes(crc32(0L, b + off, 4), b + off + CHUNK_HEADER, (size_t)len);
        put_u32(b + off + CHUNK_HEADER + len, (uint32_t)crc);
        off += CHUNK_HEADER + (size_t)len + 4;
    }
}

// One input: (CRCs fixed,) written, loaded, stepped once.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_file_write(data, size, fix_crcs);

    boids_sim *sim = NULL;
    char err[1024];
    err[0] = '\0';
    if (boids_snapshot_load(fuzz_path, &sim, NULL, err, sizeof err) == BOIDS_OK) {
        if (!sim)
            abort();
        boids_sim_step(sim);
        boids_sim_destroy(sim);
    } else {
        fuzz_check_message("fuzz_snapshot", err);
        if (sim)
            abort(); // a failed load hands nothing out
    }
    remove(fuzz_path);
    return 0;
}
