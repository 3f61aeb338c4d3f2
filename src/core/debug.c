// src/core/debug.c: BOIDS_DEBUG, the one environment variable through which
// tests reach hooks of the library and the programs (boids/core.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/core.h"

// See boids/core.h. Items are separated by ';' (a value may hold commas, as
// an emulation list does); the last item of a name wins.
bool boids_debug_value(const char *name, char *out, size_t out_size) {
    const char *s = getenv("BOIDS_DEBUG");
    size_t n = strlen(name);
    bool found = false;
    while (s && *s) {
        const char *end = strchr(s, ';');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len >= n && strncmp(s, name, n) == 0 && (len == n || s[n] == '=')) {
            const char *v = len == n ? s + len : s + n + 1;
            size_t vlen = (size_t)(s + len - v);
            if (out && out_size) {
                if (vlen >= out_size)
                    vlen = out_size - 1;
                memcpy(out, v, vlen);
                out[vlen] = '\0';
            }
            found = true;
        }
        s = end ? end + 1 : NULL;
    }
    return found;
}

// Every item a part of the library or a program reads (docs/ARCHITECTURE.md,
// Debug hooks).
static const char *const known[] = {"fault",
                                    "emulate",
                                    "correct-rounding",
                                    "steer-general",
                                    "no-int64",
                                    "progress-after",
                                    "ensemble-kill-after",
                                    "ensemble-fail-rank",
                                    "ensemble-enospc",
                                    "decompose-kill",
                                    "decompose-stop",
                                    "decompose-timeout",
                                    "decompose-gpu-capacity",
                                    "nan",
                                    NULL};

// See boids/core.h.
bool boids_debug_unknown(char *out, size_t out_size) {
    const char *s = getenv("BOIDS_DEBUG");
    while (s && *s) {
        size_t len = strcspn(s, ";"), name = strcspn(s, ";=");
        bool found = name == 0; // an empty item ("a;;b") is nothing
        for (size_t k = 0; known[k] && !found; k++)
            found = strlen(known[k]) == name && strncmp(s, known[k], name) == 0;
        if (!found) {
            if (out && out_size)
                snprintf(out, out_size, "%.*s", (int)(name < out_size ? name : out_size - 1), s);
            return true;
        }
        s += len + (s[len] == ';');
    }
    return false;
}

// See boids/core.h.
const char *boids_debug_names(size_t i) {
    return i < sizeof known / sizeof known[0] ? known[i] : NULL;
}
