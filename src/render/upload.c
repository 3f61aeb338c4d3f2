// src/render/upload.c: the render's own buffers (the CPU backend's agents
// and bodies) filled from caller arrays, e.g. those boids_engine_read_buffer
// and boids_engine_read_joints fill, so a host needs no boids_sim to draw.
#include "render_internal.h"

// See boids/render.h.
void boids_render_upload_agents(boids_render *r, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                                const uint32_t *group, const uint32_t *neighbors) {
    n = n < r->own_count ? n : r->own_count;
    const void *src[4] = {pos, vel, group, neighbors};
    const size_t size[4] = {16, 16, 4, 4};
    for (int k = 0; k < 4; k++)
        if (src[k])
            boids_render_buffer_write(r->own[k], n * size[k], src[k]);
}

// See boids/render.h.
void boids_render_upload_joints(boids_render *r, uint32_t n, const uint32_t *id, const float (*joints)[4],
                                uint32_t rows) {
    if (!r->own_id)
        return;
    uint32_t m = n < r->own_count ? n : r->own_count;
    boids_render_buffer_write(r->own_id, (size_t)m * 4, id);
    r->own_rows = joints && m == n ? rows : 0;
    if (!r->own_rows)
        return;
    size_t bytes = (size_t)r->own_rows * n * 16;
    if (bytes > r->own_joints_cap) {
        glDeleteBuffers(1, &r->own_joints);
        r->own_joints = boids_render_buffer(bytes, "render joints");
        r->own_joints_cap = bytes;
    }
    boids_render_buffer_write(r->own_joints, bytes, joints);
}
