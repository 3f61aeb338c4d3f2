// src/viewer/viewer_demo.c: the notebook's chain and Snake2 demos (see
// viewer_demo.h): setup, mouse handling and the vertex lists of their
// drawChain / drawSnake.
#include <math.h>
#include <string.h>

#include "boids/behaviors.h"
#include "viewer_demo.h"

#define CIRCLE_SEGMENTS 24

static const float black[4] = {0.0f, 0.0f, 0.0f, 1.0f}, white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
static const float red[4] = {244.0f / 255.0f, 10.0f / 255.0f, 10.0f / 255.0f, 1.0f};

// See viewer_demo.h.
void viewer_demo_init(viewer_demo *d, const char *name) {
    memset(d, 0, sizeof *d);
    d->from = -1;
    d->snake = strcmp(name, "snake") == 0;
    if (!d->snake) {
        // 7 joints from (50,200) to (350,200), 50 apart, on a 400x400 canvas.
        d->n = 7;
        d->canvas[0] = d->canvas[1] = 400.0f;
        for (uint32_t i = 0; i < d->n; i++) {
            d->joints[i][0] = 50.0f + 50.0f * (float)i;
            d->joints[i][1] = 200.0f;
            d->widths[i] = 20.0f;
            if (i + 1 < d->n)
                d->lengths[i] = 50.0f;
        }
        return;
    }
    // The last demo: 48 joints from x = 100, 16 apart, facing pi, on 600x600.
    d->n = 48;
    d->canvas[0] = d->canvas[1] = 600.0f;
    for (uint32_t i = 0; i < d->n; i++) {
        d->joints[i][0] = 100.0f + 16.0f * (float)i;
        d->joints[i][1] = 300.0f;
        d->joints[i][3] = BOIDS_PI;
        d->widths[i] = i == 0 ? 19.0f : (i == 1 ? 20.0f : 16.0f - (float)i / 4.0f);
        if (i + 1 < d->n)
            d->lengths[i] = 16.0f;
    }
}

// See viewer_demo.h.
int viewer_demo_press(viewer_demo *d) {
    const float *m = d->mouse;
    if (d->snake || !(m[0] > 0.0f && m[0] < d->canvas[0] && m[1] > 0.0f && m[1] < d->canvas[1]))
        return -1;
    for (uint32_t i = 0; i < d->n; i++) {
        float dx = d->joints[i][0] - m[0], dy = d->joints[i][1] - m[1];
        if (dx * dx + dy * dy < 100.0f) {
            d->from = (int)i;
            return d->from;
        }
    }
    return -1;
}

// See viewer_demo.h.
void viewer_demo_release(viewer_demo *d) {
    d->from = -1;
}

// See viewer_demo.h.
void viewer_demo_frame(viewer_demo *d) {
    const float *m = d->mouse;
    if (!d->snake) {
        if (d->from >= 0) {
            d->joints[d->from][0] = m[0];
            d->joints[d->from][1] = m[1];
            boids_chain_resolve(NULL, d->joints, d->lengths, d->n, (uint32_t)d->from, false);
        }
    } else if (d->have_mouse && m[0] > 0.0f && m[0] < d->canvas[0] && m[1] > 0.0f && m[1] < d->canvas[1] &&
               (fabsf(d->pmouse[0] - m[0]) > 1.0f || fabsf(d->pmouse[1] - m[1]) > 1.0f)) {
        float *head = d->joints[0];
        float facing = atan2f(m[1] - head[1], m[0] - head[0]);
        head[0] += (m[0] - head[0]) * 0.8f;
        head[1] += (m[1] - head[1]) * 0.8f;
        const float dir[3] = {cosf(facing), sinf(facing), 0.0f};
        boids_snake_resolve(NULL, d->joints, d->lengths, d->n, facing, dir, BOIDS_PI / 8.0f, false, 2);
    }
    d->pmouse[0] = m[0];
    d->pmouse[1] = m[1];
}

// See viewer_demo.h.
void viewer_demo_background(const viewer_demo *d, float rgb[3]) {
    if (d->snake) {
        rgb[0] = 77.0f / 255.0f;
        rgb[1] = 112.0f / 255.0f;
        rgb[2] = 87.0f / 255.0f;
    } else {
        rgb[0] = rgb[1] = rgb[2] = 1.0f;
    }
}

// A canvas point as a world vertex (y flipped: the world's y is up).
static boids_line_vertex vertex(const viewer_demo *d, float x, float y, const float c[4]) {
    return (boids_line_vertex){{x, d->canvas[1] - y, 0.0f}, {c[0], c[1], c[2], c[3]}};
}

// A filled circle of diameter `size` at canvas (x, y) as triangles.
static size_t disc(const viewer_demo *d, float x, float y, float size, const float c[4], boids_line_vertex *v, size_t m,
                   size_t cap) {
    float r = 0.5f * size;
    for (int k = 0; k < CIRCLE_SEGMENTS && m + 3 <= cap; k++) {
        float a0 = BOIDS_TWO_PI * (float)k / CIRCLE_SEGMENTS, a1 = BOIDS_TWO_PI * (float)(k + 1) / CIRCLE_SEGMENTS;
        v[m++] = vertex(d, x, y, c);
        v[m++] = vertex(d, x + r * cosf(a0), y + r * sinf(a0), c);
        v[m++] = vertex(d, x + r * cosf(a1), y + r * sinf(a1), c);
    }
    return m;
}

// The canvas segment a - b as a GL_LINES pair.
static size_t line(const viewer_demo *d, const float a[2], const float b[2], const float c[4], boids_line_vertex *v,
                   size_t m, size_t cap) {
    if (m + 2 > cap)
        return m;
    v[m++] = vertex(d, a[0], a[1], c);
    v[m++] = vertex(d, b[0], b[1], c);
    return m;
}

// The centre of eye `side` (-1, +1): the head + (cos, sin)(angle0 + side pi/2) * (width0 / 2 - 5).
static void eye_centre(const viewer_demo *d, float side, float out[2]) {
    float a = d->joints[0][3] + side * 0.5f * BOIDS_PI, r = 0.5f * d->widths[0] - 5.0f;
    out[0] = d->joints[0][0] + cosf(a) * r;
    out[1] = d->joints[0][1] + sinf(a) * r;
}

// See viewer_demo.h.
size_t viewer_demo_triangles(const viewer_demo *d, boids_line_vertex *v, size_t m, size_t cap) {
    if (!d->snake) {
        for (uint32_t i = 0; i < d->n; i++)
            m = disc(d, d->joints[i][0], d->joints[i][1], 20.0f, black, v, m, cap);
        return m;
    }
    float outline[2 * DEMO_MAX_JOINTS + 6][2];
    uint32_t k = boids_snake_outline((const float(*)[4])d->joints, d->widths, d->n, outline);
    for (uint32_t i = 0; i < k; i++)
        outline[i][1] = d->canvas[1] - outline[i][1];
    m = boids_body_fill_triangles((const float(*)[2])outline, d->n, 0.0f, red, v, m, cap);
    for (int s = -1; s <= 1; s += 2) {
        float c[2];
        eye_centre(d, (float)s, c);
        m = disc(d, c[0], c[1], 8.0f, white, v, m, cap);
    }
    return m;
}

// See viewer_demo.h.
size_t viewer_demo_lines(const viewer_demo *d, boids_line_vertex *v, size_t m, size_t cap) {
    if (!d->snake) {
        for (uint32_t i = 0; i + 1 < d->n; i++)
            m = line(d, d->joints[i], d->joints[i + 1], black, v, m, cap);
        return m;
    }
    float outline[2 * DEMO_MAX_JOINTS + 6][2];
    uint32_t k = boids_snake_outline((const float(*)[4])d->joints, d->widths, d->n, outline);
    for (uint32_t i = 0; i < k; i++)
        m = line(d, outline[i], outline[(i + 1) % k], black, v, m, cap);
    // The eyes' strokes (p5's default black stroke of the white circles).
    for (int s = -1; s <= 1; s += 2) {
        float c[2];
        eye_centre(d, (float)s, c);
        for (int j = 0; j < CIRCLE_SEGMENTS; j++) {
            float a0 = BOIDS_TWO_PI * (float)j / CIRCLE_SEGMENTS, a1 = BOIDS_TWO_PI * (float)(j + 1) / CIRCLE_SEGMENTS;
            float p[2] = {c[0] + 4.0f * cosf(a0), c[1] + 4.0f * sinf(a0)};
            float q[2] = {c[0] + 4.0f * cosf(a1), c[1] + 4.0f * sinf(a1)};
            m = line(d, p, q, black, v, m, cap);
        }
    }
    return m;
}
