// src/core/bytes.h: what the file formats (snapshot.c, record.c) share:
// little-endian byte helpers, zlib's CRC-32 over any length, and the
// "PATH: problem" error line. Not public API.
#ifndef BOIDS_CORE_BYTES_H
#define BOIDS_CORE_BYTES_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "boids/error.h"

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

// A 4-byte tag as text for a message: printable ASCII as it is, other bytes
// as \xNN (at most 16 characters and the NUL).
static inline const char *tag_text(const unsigned char *b, char out[17]) {
    size_t k = 0;
    for (int i = 0; i < 4; i++)
        k += (size_t)snprintf(out + k, 17 - k, b[i] >= 0x20 && b[i] < 0x7f ? "%c" : "\\x%02x", b[i]);
    return out;
}

// zlib's crc32 over n bytes (in pieces its uInt holds), continuing crc.
static inline uLong crc_bytes(uLong crc, const unsigned char *b, size_t n) {
    for (size_t done = 0; done < n;) {
        size_t part = n - done < (size_t)1 << 30 ? n - done : (size_t)1 << 30;
        crc = crc32(crc, b + done, (uInt)part);
        done += part;
    }
    return crc;
}

// "PATH: problem" into err; returns r.
static inline boids_result fail(char *err, size_t err_size, const char *path, boids_result r, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline boids_result fail(char *err, size_t err_size, const char *path, boids_result r, const char *fmt, ...) {
    if (err && err_size) {
        int n = snprintf(err, err_size, "%s: ", path);
        if (n >= 0 && (size_t)n < err_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, err_size - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return r;
}

#endif
