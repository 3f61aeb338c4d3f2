/* tests/fuzz/fuzz_record.c: libFuzzer target of the recording reader
 * (src/core/record.c, boids_recording_open / _frame). The input is written
 * to a temporary file and opened; when it opens, every frame is read. A
 * crash, a sanitizer report, or an error that is not one line is a bug
 * (abort). Seeds: small recordings made with boids-run --record.
 *
 * The header and every block carry a CRC-32, which random mutations almost
 * never keep right. So that the fuzzer reaches the checks and the decoding
 * behind the CRCs, they are recomputed before opening when the input's size
 * is even (fix_crcs); odd-sized inputs are opened as they are (the CRC checks
 * themselves). What each CRC covers (src/core/record.c):
 *   header  bytes 0..59 (magic + version .. world size), stored at 60
 *   block   its 28 header bytes (tag, step, raw size, compressed size) and
 *           its compressed bytes (the zstd frame), stored at +28
 * There is no trailer or on-disk index (the reader's index is in memory).
 * The zstd frames carry no checksum of their own (the writer leaves zstd's
 * checksum flag off), so there is nothing else to fix.
 */
#include <stddef.h>
#include <stdint.h>

#include "boids/record.h"
#include "fuzz_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Names the temporary file (one per process) and silences stdout.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_file_init("fuzz_record", "rec");
    return 0;
}

// Rewrites the header's CRC (when the header is complete) and that of every
// complete block after it, following the blocks' compressed sizes as the
// reader does; stops at the first block the file ends inside (the reader
// calls that truncation, without checking a CRC). The tags and sizes are
// left as they are: the reader's checks of them stay fuzzed.
static void fix_crcs(uint8_t *b, size_t size) {
    const size_t fields = BOIDS_RECORD_HEADER_SIZE - 4; // magic + fields, before the CRC
    if (size < BOIDS_RECORD_HEADER_SIZE)
        return;
    put_u32(b + fields, (uint32_t)crc_bytes(0L, b, fields));
    size_t off = BOIDS_RECORD_HEADER_SIZE;
    while (size - off >= BOIDS_RECORD_BLOCK_SIZE) {
        uint64_t comp = get_u64(b + off + 20);
        if (comp > size - off - BOIDS_RECORD_BLOCK_SIZE)
            return;
        uLong crc = crc_bytes(crc_bytes(0L, b + off, 28), b + off + BOIDS_RECORD_BLOCK_SIZE, (size_t)comp);
        put_u32(b + off + 28, (uint32_t)crc);
        off += BOIDS_RECORD_BLOCK_SIZE + (size_t)comp;
    }
}

// One input: (CRCs fixed,) written, opened, every frame read.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_file_write(data, size, fix_crcs);
    boids_recording *r = NULL;
    char err[512] = "";
    if (boids_recording_open(fuzz_path, &r, err, sizeof err) != BOIDS_OK) {
        fuzz_check_message("fuzz_record", err);
        if (r)
            abort(); // a failed open hands nothing out
        unlink(fuzz_path);
        return 0;
    }
    const boids_recording_info *info = boids_recording_get_info(r);
    if (info->truncated != (info->note[0] != '\0') || strchr(info->note, '\n'))
        abort(); // truncation comes with a one-line note, and only then
    size_t n = info->count ? info->count : 1;
    float(*pos)[4] = malloc(n * sizeof *pos), (*vel)[4] = malloc(n * sizeof *vel);
    if (!pos || !vel)
        abort();
    // Every frame was checked by the open and the file is unchanged: each
    // must read back, steps strictly increasing.
    uint64_t last = 0;
    for (uint32_t i = 0; i < info->frames; i++) {
        uint64_t step = 0;
        err[0] = '\0';
        if (boids_recording_frame(r, i, &step, pos, vel, err, sizeof err) != BOIDS_OK) {
            fuzz_check_message("fuzz_record", err);
            fprintf(stderr, "fuzz_record: frame %u of %u passed the open but not the read: %s\n", i, info->frames, err);
            abort();
        }
        if (i > 0 && step <= last)
            abort();
        last = step;
    }
    free(pos);
    free(vel);
    boids_recording_close(r);
    unlink(fuzz_path);
    return 0;
}
