// src/core/rng.c: counter-based random numbers, hash(seed, id, step, stream):
// no state, identical bits in C and GLSL (shaders/behaviors.glsl: hash(), rng_u32()).
#include "boids/behaviors.h"

// lowbias32 integer hash (constants in shaders/shared.h).
uint32_t boids_hash(uint32_t x) {
    x ^= x >> 16;
    x *= BOIDS_HASH_M1;
    x ^= x >> 15;
    x *= BOIDS_HASH_M2;
    x ^= x >> 16;
    return x;
}

// One 32-bit draw for (seed, id, step, stream); each input is folded in
// through the hash so neighbouring counters give unrelated values.
uint32_t boids_rng_u32(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, uint32_t step, uint32_t stream) {
    uint32_t h = boids_hash(seed_lo ^ BOIDS_HASH_GOLDEN);
    h = boids_hash(h ^ seed_hi);
    h = boids_hash(h ^ id);
    h = boids_hash(h ^ step);
    h = boids_hash(h ^ (stream * BOIDS_HASH_GOLDEN));
    return h;
}

// [0, 1) from the top 24 bits: exact in float.
float boids_rng_unit(uint32_t bits) {
    return (float)(bits >> 8) * (1.0f / 16777216.0f);
}

// [-1, 1).
float boids_rng_signed(uint32_t bits) {
    return boids_rng_unit(bits) * 2.0f - 1.0f;
}

// An agent's own value of a per-agent range: lo + (hi - lo) u with u in
// [0, 1) drawn from (seed, id, 0, stream), so it depends on the run's seed
// and the agent's id only (not its slot, the step or the thread count);
// lo <= 0 (no range): `value`, the group's. GLSL twin: behaviors.glsl agent_range().
float boids_agent_range(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, float lo, float hi, float value,
                        uint32_t stream) {
    if (!(lo > 0.0f))
        return value;
    float u = boids_rng_unit(boids_rng_u32(seed_lo, seed_hi, id, 0u, stream));
    return lo + (hi - lo) * u;
}

// The maxspeed of agent `id` of group g (its range's draw, or the group's).
float boids_agent_maxspeed(const boids_world_params *w, const boids_group_params *g, uint32_t id) {
    return boids_agent_range(w->seed_lo, w->seed_hi, id, g->maxspeed_lo, g->maxspeed_hi, g->maxspeed,
                             BOIDS_RNG_MAXSPEED);
}

// The maxforce of agent `id` of group g.
float boids_agent_maxforce(const boids_world_params *w, const boids_group_params *g, uint32_t id) {
    return boids_agent_range(w->seed_lo, w->seed_hi, id, g->maxforce_lo, g->maxforce_hi, g->maxforce,
                             BOIDS_RNG_MAXFORCE);
}
