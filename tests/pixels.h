// tests/pixels.h: what a pixel of the viewer's pictures is, for the suites
// that read screenshots.
#ifndef BOIDS_TEST_PIXELS_H
#define BOIDS_TEST_PIXELS_H

#include <stdbool.h>

// A pixel of group 0's colour (palette[0] = 0.95, 0.85, 0.35: yellow) at
// any brightness: lit or in shadow (3D faces), fogged with depth, or
// tone-mapped where agents are dense. Unlike the background (0.05, 0.06,
// 0.08), the HUD's white text and the grey world box: red well above blue,
// green near red.
static inline bool boids_test_yellow_pixel(const unsigned char *p) {
    return p[0] > 40 && p[0] > p[2] + 25 && p[1] * 10 > p[0] * 7 && p[1] <= p[0] + 10;
}

#endif
