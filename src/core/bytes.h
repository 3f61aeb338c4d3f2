// src/core/bytes.h: little-endian byte helpers and a zlib CRC-32 over any
// length, shared by the file formats (snapshot.c, record.c). Not public API.
#ifndef BOIDS_CORE_BYTES_H
#define BOIDS_CORE_BYTES_H

#include <stdint.h>
#include <string.h>

// Stores v little-endian at b.
static inline void put_u32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

// Stores v little-endian at b.
static inline void put_u64(unsigned char *b, uint64_t v) {
    put_u32(b, (uint32_t)v);
    put_u32(b + 4, (uint32_t)(v >> 32));
}

// Stores the bits of f little-endian at b.
static inline void put_f32(unsigned char *b, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(b, v);
}

// The little-endian uint32 at b.
static inline uint32_t get_u32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

// The little-endian uint64 at b.
static inline uint64_t get_u64(const unsigned char *b) {
    return (uint64_t)get_u32(b) | (uint64_t)get_u32(b + 4) << 32;
}

// The float whose bits are the little-endian uint32 at b.
static inline float get_f32(const unsigned char *b) {
    uint32_t v = get_u32(b);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

#endif
