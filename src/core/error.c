// src/core/error.c: the text of every boids_result (X-macro list in boids/error.h).
#include "boids/error.h"

static const char *const result_text[] = {
#define BOIDS_X_TEXT(code, text) text,
    BOIDS_RESULTS(BOIDS_X_TEXT)
#undef BOIDS_X_TEXT
};

// The fixed message of a result code.
const char *boids_result_str(boids_result r) {
    if ((unsigned)r >= (unsigned)BOIDS_RESULT_COUNT)
        return "unknown result";
    return result_text[r];
}
