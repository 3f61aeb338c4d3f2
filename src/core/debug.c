// src/core/debug.c: BOIDS_DEBUG, the one environment variable through which
// tests reach hooks of the library and the programs (boids/core.h).
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
