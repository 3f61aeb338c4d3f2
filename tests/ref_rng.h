// tests/ref_rng.h: the counter-based RNG written out from its definition
// (docs/ARCHITECTURE.md, "RNG"; the constants of shaders/shared.h), not by
// calling the library's, for tests that check the library's draws by hand.
#ifndef BOIDS_TESTS_REF_RNG_H
#define BOIDS_TESTS_REF_RNG_H

#include <stdint.h>

// lowbias32: BOIDS_HASH_M1 / M2 are 0x7feb352d, 0x846ca68b.
static inline uint32_t ref_hash(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// rng_u32(seed, id, step, stream): seed lo, seed hi, id, step and
// stream x golden folded through the hash in turn.
static inline uint32_t ref_rng_u32(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, uint32_t step, uint32_t stream) {
    uint32_t h = ref_hash(seed_lo ^ 0x9e3779b9u);
    h = ref_hash(h ^ seed_hi);
    h = ref_hash(h ^ id);
    h = ref_hash(h ^ step);
    return ref_hash(h ^ (stream * 0x9e3779b9u));
}

#endif
