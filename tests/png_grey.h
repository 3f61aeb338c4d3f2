// tests/png_grey.h: a grey PNG written by the tests that need a flow-field
// image of their own (to replace, damage or delete after a run saved it):
// 8-bit greyscale, one IDAT of stored (uncompressed) deflate blocks, so no
// library is needed; the CRC-32 and Adler-32 are computed here.
#ifndef BOIDS_TEST_PNG_GREY_H
#define BOIDS_TEST_PNG_GREY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// CRC-32 (ISO 3309, PNG's) of n bytes, continuing crc (start with 0).
static inline uint32_t png_grey_crc(uint32_t crc, const unsigned char *b, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= b[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static inline void png_grey_be32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

// One chunk: length, type, data, CRC of type + data.
static inline void png_grey_chunk(FILE *f, const char type[4], const unsigned char *data, size_t n) {
    unsigned char b[4];
    png_grey_be32(b, (uint32_t)n);
    fwrite(b, 1, 4, f);
    fwrite(type, 1, 4, f);
    if (n)
        fwrite(data, 1, n, f);
    png_grey_be32(b, png_grey_crc(png_grey_crc(0, (const unsigned char *)type, 4), data, n));
    fwrite(b, 1, 4, f);
}

// Writes a w x h grey PNG whose pixel (x, y) is px(x, y, seed) & 255 to
// path; false when it cannot be written.
static inline bool png_grey_write(const char *path, uint32_t w, uint32_t h, uint32_t seed) {
    size_t raw_n = (size_t)h * (w + 1); // a filter byte (0) before each row
    unsigned char *raw = malloc(raw_n);
    size_t blocks = raw_n / 65535 + 1;
    unsigned char *z = malloc(raw_n + blocks * 5 + 6);
    FILE *f = fopen(path, "wb");
    if (!raw || !z || !f) {
        free(raw);
        free(z);
        if (f)
            fclose(f);
        return false;
    }
    for (uint32_t y = 0; y < h; y++) {
        raw[(size_t)y * (w + 1)] = 0;
        for (uint32_t x = 0; x < w; x++)
            raw[(size_t)y * (w + 1) + 1 + x] = (unsigned char)((x * 37u + y * 101u + seed * 59u + x * y) & 255u);
    }
    size_t n = 0;
    z[n++] = 0x78; // zlib: deflate, 32K window, no dictionary
    z[n++] = 0x01;
    uint32_t a = 1, b = 0; // Adler-32
    for (size_t off = 0; off < raw_n || off == 0;) {
        size_t len = raw_n - off < 65535 ? raw_n - off : 65535;
        z[n++] = off + len == raw_n ? 1 : 0; // BFINAL, stored
        z[n++] = (unsigned char)len;
        z[n++] = (unsigned char)(len >> 8);
        z[n++] = (unsigned char)~len;
        z[n++] = (unsigned char)(~len >> 8);
        memcpy(z + n, raw + off, len);
        n += len;
        for (size_t i = off; i < off + len; i++) {
            a = (a + raw[i]) % 65521u;
            b = (b + a) % 65521u;
        }
        off += len;
        if (off == raw_n)
            break;
    }
    png_grey_be32(z + n, (b << 16) | a);
    n += 4;
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char ihdr[13] = {0};
    png_grey_be32(ihdr, w);
    png_grey_be32(ihdr + 4, h);
    ihdr[8] = 8; // bit depth; colour type 0 (grey), deflate, filter 0, no interlace
    fwrite(sig, 1, 8, f);
    png_grey_chunk(f, "IHDR", ihdr, 13);
    png_grey_chunk(f, "IDAT", z, n);
    png_grey_chunk(f, "IEND", NULL, 0);
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    free(raw);
    free(z);
    return ok;
}

#endif
