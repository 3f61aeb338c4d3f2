// src/gpu/steer_spec.c: the run's constants a steer program is compiled for
// (steer_spec.h). The backend keeps one program per spec (src/gpu/gpu_steer.c):
// a flocking run's steer holds the flocking rules, not all 25 behaviours,
// every rule set, relations and the K-nearest selection.
#include "steer_spec.h"

#include <stdio.h>
#include <string.h>

#include "boids/parse.h"

// The shader's default (common.glsl) is the largest K there is.
_Static_assert(BOIDS_MAX_NEIGHBORS_K == 32, "common.glsl: BOIDS_SPEC_TOPK's default is BOIDS_MAX_NEIGHBORS_K");

// See steer_spec.h.
void boids_steer_spec_of(const boids_world_params *world, const boids_group_params *group, boids_steer_spec *out) {
    memset(out, 0, sizeof *out);
    for (uint32_t k = 0; k < world->group_count && k < BOIDS_MAX_GROUPS; k++) {
        const boids_group_params *g = &group[k];
        out->behaviors |= g->behaviors;
        out->rules |= g->rules < 32 ? BOIDS_BIT(g->rules) : 0u;
        out->relations |= g->relations != 0 ? 1u : 0u;
        if (g->neighbors_max > out->topk)
            out->topk = g->neighbors_max;
    }
    // The walls boundary is the stay-within-walls behaviour (steer.comp).
    if (world->boundary == BOIDS_BOUNDARY_WALLS)
        out->behaviors |= BOIDS_BIT(BOIDS_BI_WALLS);
    out->dim = world->dim;
    out->boundary = world->boundary;
    out->combine = world->combine;
    out->fine = boids_world_grid_fine(world);
}

// See steer_spec.h.
bool boids_steer_spec_defines(const boids_steer_spec *s, char *buf, size_t size) {
    int n =
        snprintf(buf, size,
                 "#define BOIDS_SPEC_BEHAVIORS 0x%08Xu\n#define BOIDS_SPEC_RULES 0x%Xu\n#define BOIDS_SPEC_DIM %uu\n"
                 "#define BOIDS_SPEC_BOUNDARY %uu\n#define BOIDS_SPEC_COMBINE %uu\n#define BOIDS_SPEC_RELATIONS %u\n"
                 "#define BOIDS_SPEC_TOPK %u\n#define BOIDS_SPEC_FINE %uu\n",
                 s->behaviors, s->rules, s->dim, s->boundary, s->combine, s->relations, s->topk, s->fine);
    return n > 0 && (size_t)n < size;
}

// See steer_spec.h.
void boids_steer_spec_name(const boids_steer_spec *s, char *buf, size_t size) {
    char behaviors[512], rules[128] = "";
    boids_behaviors_text(s->behaviors, ",", behaviors, sizeof behaviors);
    for (uint32_t r = 0; r < BOIDS_RULES_COUNT; r++)
        if (s->rules & BOIDS_BIT(r)) {
            size_t len = strlen(rules);
            snprintf(rules + len, sizeof rules - len, "%s%s", len ? "," : "", boids_parse_rules_names[r]);
        }
    const char *boundary = s->boundary <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[s->boundary] : "?";
    snprintf(buf, size, "%uD %s, rules %s, %s%s, K %u, M %u", s->dim, boundary, rules, behaviors,
             s->relations ? ", relations" : "", s->topk, s->fine);
}

// See steer_spec.h.
bool boids_steer_spec_equal(const boids_steer_spec *a, const boids_steer_spec *b) {
    return memcmp(a, b, sizeof *a) == 0;
}
