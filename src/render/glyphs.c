// src/render/glyphs.c: how agents are drawn at a scale (their length on
// screen, points, the weight of additive blending) and the colour mode a view
// starts in. Pure functions, no GL (boids/render.h).
#include <math.h>

#include "boids/render.h"

// See boids/render.h.
boids_color_mode boids_render_default_color(uint32_t count) {
    return count >= BOIDS_COLOR_HEADING_FROM ? BOIDS_COLOR_HEADING : BOIDS_COLOR_GROUP;
}

// See boids/render.h. An arrow of length L pixels covers ARROW_AREA L^2
// pixels (agents.vert: tip at +1, back corners BACK behind, HALF aside: 0.72);
// the world covers area / world_per_px^2 pixels, so the mean cover of a
// pixel at L is count * ARROW_AREA L^2 / that.
#define ARROW_AREA (BOIDS_GLYPH_ARROW_HALF * (1.0 + BOIDS_GLYPH_ARROW_BACK))
void boids_agents_scale(uint32_t count, const float world_size[3], float world_per_px, float smallest, float full,
                        boids_agents_look *out) {
    const float point = 2.0f; // pixels: below it a glyph is drawn as a point
    out->size = fmaxf(smallest, full * world_per_px);
    out->px = out->size / world_per_px;
    out->points = false;
    out->dense = false;
    out->density_ref = 1.0f;
    double world_px = (double)world_size[0] * (double)world_size[1] / ((double)world_per_px * world_per_px);
    if (!(world_px > 0.0) || !isfinite(world_px) || count == 0)
        return;
    double cover = (double)count * ARROW_AREA * (double)out->px * out->px / world_px;
    if (cover <= BOIDS_AGENTS_COVER)
        return;
    // Dense: as long as keeps the cover at BOIDS_AGENTS_COVER, at least a pixel.
    float px = (float)fmax(1.0, out->px * sqrt(BOIDS_AGENTS_COVER / cover));
    cover = (double)count * ARROW_AREA * (double)px * px / world_px;
    out->px = px;
    out->size = px * world_per_px;
    out->points = px < point;
    if (out->points)
        cover = (double)count * (double)px * px / world_px; // a point covers px^2
    out->dense = true;
    out->density_ref = (float)fmax(4.0, 8.0 * cover);
}
