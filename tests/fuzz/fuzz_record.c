/* tests/fuzz/fuzz_record.c: libFuzzer target of the recording reader
 * (src/core/record.c, boids_recording_open / _frame). The input is written
 * to a temporary file and opened; when it opens, every frame is read. A
 * crash, a sanitizer report, or an error that is not one line is a bug
 * (abort). Seeds: small recordings made with boids-run --record.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boids/record.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64]; // the temporary file every input is written to

// Names the temporary file (one per process) and silences stdout.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))
        abort();
    snprintf(path, sizeof path, "/tmp/fuzz_record.%ld.rec", (long)getpid());
    return 0;
}

// An error message must be one non-empty line.
static void check_message(const char *err) {
    if (!err[0] || strchr(err, '\n'))
        abort();
}

// One input: written, opened, every frame read.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    boids_recording *r = NULL;
    char err[512] = "";
    if (boids_recording_open(path, &r, err, sizeof err) != BOIDS_OK) {
        check_message(err);
        unlink(path);
        return 0;
    }
    const boids_recording_info *info = boids_recording_get_info(r);
    size_t n = info->count ? info->count : 1;
    float(*pos)[4] = malloc(n * sizeof *pos), (*vel)[4] = malloc(n * sizeof *vel);
    if (!pos || !vel)
        abort();
    for (uint32_t i = 0; i < info->frames; i++) {
        uint64_t step = 0;
        err[0] = '\0';
        if (boids_recording_frame(r, i, &step, pos, vel, err, sizeof err) != BOIDS_OK)
            check_message(err);
    }
    free(pos);
    free(vel);
    boids_recording_close(r);
    unlink(path);
    return 0;
}
