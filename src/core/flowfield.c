// src/core/flowfield.c: flow-field following (Nature of Code 5, "Flow
// Fields"): a grid of unit vectors over the world, from Perlin noise
// (stb_perlin), a swirl around the centre, or uniform. The field is built
// here and uploaded as-is to the GPU. GLSL twins: flow_lookup(), flow().
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <cglm/vec3.h>
#include <stb_perlin.h>

// stb_image for the image field (PNG only); its warnings are not ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wconversion"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_NO_STDIO_FAILURE_STRINGS
#include <stb_image.h>
#pragma GCC diagnostic pop

#include "boids/behaviors.h"
#include "boids/input.h"

// A grey image (one byte per pixel) for BOIDS_FLOW_IMAGE.
typedef struct grey_image {
    unsigned char *px;
    int w, h;
} grey_image;

// Whether the PNG open at f is one a field takes, by its header (a huge one
// is never decoded); else the problem in why. f is left at its start.
static bool image_fits(FILE *f, int *w, int *h, char *why, size_t why_size) {
    int comp = 0;
    bool png = stbi_info_from_file(f, w, h, &comp) && *w >= 1 && *h >= 1;
    if (!png)
        snprintf(why, why_size, "is not a PNG image");
    else if ((uint64_t)*w * (uint64_t)*h > BOIDS_FLOW_IMAGE_PIXELS_MAX)
        snprintf(why, why_size, "is %d x %d pixels, over the %u (4096 x 4096) a flow-field image may have", *w, *h,
                 BOIDS_FLOW_IMAGE_PIXELS_MAX);
    return png && (uint64_t)*w * (uint64_t)*h <= BOIDS_FLOW_IMAGE_PIXELS_MAX;
}

// The image at path decoded to grey (*img; free its px): opened once by the
// inputs' rule (a regular file: a FIFO or device is refused, never read),
// its header checked, then decoded from the same open file (at most 16 MB
// of grey). BOIDS_ERR_IO with the problem in why.
static boids_result read_image(const char *path, grey_image *img, char *why, size_t why_size) {
    img->px = NULL;
    FILE *f = boids_input_open(path, 0, 0, "a flow-field image", why, why_size);
    if (!f)
        return BOIDS_ERR_IO;
    int w = 0, h = 0, comp = 0;
    if (!image_fits(f, &w, &h, why, why_size)) {
        fclose(f);
        return BOIDS_ERR_IO;
    }
    img->px = stbi_load_from_file(f, &img->w, &img->h, &comp, 1);
    fclose(f);
    if (!img->px || img->w != w || img->h != h) {
        stbi_image_free(img->px);
        img->px = NULL;
        snprintf(why, why_size, "is a damaged or truncated PNG image");
        return BOIDS_ERR_IO;
    }
    return BOIDS_OK;
}

// FNV-1a over the width, height and grey pixels (never 0: 0 means "not read").
static uint64_t image_hash(const grey_image *img) {
    unsigned char head[8];
    for (int k = 0; k < 4; k++) {
        head[k] = (unsigned char)((uint32_t)img->w >> (8 * k));
        head[4 + k] = (unsigned char)((uint32_t)img->h >> (8 * k));
    }
    uint64_t h = boids_fnv1a(BOIDS_FNV1A_BASIS, head, sizeof head);
    h = boids_fnv1a(h, img->px, (size_t)img->w * (size_t)img->h);
    return h ? h : 1u;
}

// One cell's vector for the kind of field, at the cell centre c.
static void field_vector(const boids_flowfield *f, const boids_world_params *w, const grey_image *img, const float c[3],
                         float out[3]) {
    if (f->kind == BOIDS_FLOW_IMAGE) {
        // The exercise's field from an image: the pixel under the cell
        // (the picture stretched over the world, its top row at the top),
        // brightness 0..1 -> angle 0..2pi, in the xy plane.
        float u = (c[0] - w->min[0]) / w->size[0], v = (c[1] - w->min[1]) / w->size[1];
        int x = (int)floorf(u * (float)img->w), y = (int)floorf((1.0f - v) * (float)img->h);
        x = x < 0 ? 0 : (x >= img->w ? img->w - 1 : x);
        y = y < 0 ? 0 : (y >= img->h ? img->h - 1 : y);
        float theta = (float)img->px[(size_t)y * (size_t)img->w + (size_t)x] / 255.0f * BOIDS_TWO_PI;
        out[0] = cosf(theta);
        out[1] = sinf(theta);
        out[2] = 0.0f;
    } else if (f->kind == BOIDS_FLOW_NOISE) {
        // Chapter: angle = noise * 2pi. stb_perlin returns about [-1, 1].
        float x = c[0] * f->noise_scale, y = c[1] * f->noise_scale, z = c[2] * f->noise_scale;
        float theta = stb_perlin_noise3_seed(x, y, z, 0, 0, 0, (int)f->noise_seed) * BOIDS_TWO_PI;
        if (w->dim == 2) {
            out[0] = cosf(theta);
            out[1] = sinf(theta);
            out[2] = 0.0f;
        } else {
            // A second, offset sample for the elevation, in [-pi/2, pi/2].
            float phi = stb_perlin_noise3_seed(x + 31.7f, y + 17.3f, z + 5.1f, 0, 0, 0, (int)f->noise_seed);
            phi *= 0.5f * BOIDS_PI;
            out[0] = cosf(phi) * cosf(theta);
            out[1] = cosf(phi) * sinf(theta);
            out[2] = sinf(phi);
        }
    } else if (f->kind == BOIDS_FLOW_SWIRL) {
        // Tangent of a circle around the world centre (about the z axis).
        float dx = c[0] - (w->min[0] + 0.5f * w->size[0]);
        float dy = c[1] - (w->min[1] + 0.5f * w->size[1]);
        float t[3] = {-dy, dx, 0.0f};
        if (t[0] == 0.0f && t[1] == 0.0f)
            t[0] = 1.0f;
        boids_set_mag(t, 1.0f, out);
    } else {
        boids_set_mag(f->direction, 1.0f, out);
        if (glm_vec3_norm2(out) == 0.0f)
            out[0] = 1.0f;
    }
}

// Fill f->dims (ceil(size / resolution) per axis, 1 layer in 2D) and f->vec.
boids_result boids_flowfield_build(boids_flowfield *f, const boids_world_params *w) {
    if (!(f->resolution > 0.0f) || !isfinite(f->resolution))
        return BOIDS_ERR_PARAM;
    double total = 1.0;
    for (int a = 0; a < 3; a++) {
        double n = (a == 2 && w->dim == 2) ? 1.0 : ceil((double)w->size[a] / f->resolution);
        if (n < 1.0)
            n = 1.0;
        if (n > 65536.0)
            return BOIDS_ERR_PARAM;
        f->dims[a] = (uint32_t)n;
        total *= n;
    }
    if (total > 16777216.0)
        return BOIDS_ERR_PARAM;
    f->dims[3] = (uint32_t)total;
    grey_image img = {0};
    if (f->kind == BOIDS_FLOW_IMAGE) {
        char why[256];
        boids_result r = read_image(f->image, &img, why, sizeof why);
        if (r != BOIDS_OK)
            return r;
        f->image_hash = image_hash(&img);
    }
    free(f->vec);
    f->vec = malloc(sizeof(*f->vec) * f->dims[3]);
    if (!f->vec) {
        stbi_image_free(img.px);
        return BOIDS_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < f->dims[2]; k++)
        for (uint32_t j = 0; j < f->dims[1]; j++)
            for (uint32_t i = 0; i < f->dims[0]; i++) {
                float c[3] = {w->min[0] + ((float)i + 0.5f) * f->resolution,
                              w->min[1] + ((float)j + 0.5f) * f->resolution,
                              w->dim == 2 ? 0.0f : w->min[2] + ((float)k + 0.5f) * f->resolution};
                float *v = f->vec[(k * f->dims[1] + j) * f->dims[0] + i];
                field_vector(f, w, &img, c, v);
                v[3] = 0.0f;
            }
    stbi_image_free(img.px);
    return BOIDS_OK;
}

// See boids/core.h.
boids_result boids_flowfield_check_image(const char *path, char *why, size_t why_size) {
    // Decoded once: a truncated or damaged PNG is found here, not when a
    // run builds its field.
    grey_image img = {0};
    boids_result r = read_image(path, &img, why, why_size);
    stbi_image_free(img.px);
    return r == BOIDS_OK ? BOIDS_OK : BOIDS_ERR_FORMAT;
}

// See boids/core.h.
boids_result boids_flowfield_image_hash(const char *path, uint64_t *hash, char *why, size_t why_size) {
    grey_image img = {0};
    boids_result r = read_image(path, &img, why, why_size);
    if (r == BOIDS_OK)
        *hash = image_hash(&img);
    stbi_image_free(img.px);
    return r;
}

// Release the field's vectors.
void boids_flowfield_free(boids_flowfield *f) {
    free(f->vec);
    f->vec = NULL;
}

// Column/row/layer of a coordinate, clamped to the grid (chapter: constrain).
static uint32_t flow_index(float p, float lo, float inv, uint32_t n) {
    float x = floorf((p - lo) * inv);
    if (!(x >= 0.0f))
        return 0;
    if (x >= (float)n)
        return n - 1;
    return (uint32_t)x;
}

// lookup(position): the vector of the cell under the position, clamped.
// A field that was never built reads as zero everywhere.
const float *boids_flowfield_lookup(const boids_flowfield *f, const boids_world_params *w, const float pos[3]) {
    static const float none[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (!f->vec)
        return none;
    float inv = 1.0f / f->resolution;
    uint32_t i = flow_index(pos[0], w->min[0], inv, f->dims[0]);
    uint32_t j = flow_index(pos[1], w->min[1], inv, f->dims[1]);
    uint32_t k = flow_index(pos[2], w->min[2], inv, f->dims[2]);
    return f->vec[(k * f->dims[1] + j) * f->dims[0] + i];
}

// desired = lookup * maxspeed; steer.
void boids_flow(const float field[3], const float vel[3], float maxspeed, float maxforce, float dest[3]) {
    float desired[3];
    glm_vec3_scale((float *)field, maxspeed, desired);
    boids_steer_from_desired(desired, vel, maxforce, dest);
}
