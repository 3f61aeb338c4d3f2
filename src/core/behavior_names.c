// src/core/behavior_names.c: the behaviours' names (boids/core.h), from the
// one behaviour list of shaders/shared.h (BOIDS_BEHAVIORS): by index, by
// name, and a mask as text. Below the parser and the parameters, which both
// name behaviours.
#include <stdio.h>
#include <string.h>

#include "boids/core.h"

// The user's names of the behaviours (shared.h BOIDS_BEHAVIORS).
#define BEHAVIOR_NAME(index, NAME, name, gathers) [index] = #name,
static const char *const behavior_names[BOIDS_BEHAVIOR_COUNT] = {BOIDS_BEHAVIORS(BEHAVIOR_NAME)};
#undef BEHAVIOR_NAME

// Name -> behaviour index, or -1.
int boids_behavior_index(const char *name) {
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
        if (strcmp(name, behavior_names[i]) == 0)
            return (int)i;
    return -1;
}

// Behaviour index -> name ("?" when out of range).
const char *boids_behavior_name(uint32_t index) {
    return index < BOIDS_BEHAVIOR_COUNT ? behavior_names[index] : "?";
}

// "separation,alignment,cohesion" of a behaviour mask with `sep` between
// the names ("none" if empty), cut short if buf is too small.
void boids_behaviors_text(uint32_t bits, const char *sep, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++) {
        if (!(bits & BOIDS_BIT(i)))
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? sep : "", behavior_names[i]);
        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
    }
    if (!len)
        snprintf(buf, size, "none");
}

