// src/render/camera.c: the viewer's cameras, pure math (cglm): a 2D
// orthographic view (zoom at the cursor, pan) and a 3D orbit camera.
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "boids/render.h"

// The eye of the 3D orbit camera.
static void eye_of(const boids_camera *c, vec3 eye) {
    float cp = cosf(c->pitch);
    eye[0] = c->center[0] + c->distance * cp * cosf(c->yaw);
    eye[1] = c->center[1] + c->distance * cp * sinf(c->yaw);
    eye[2] = c->center[2] + c->distance * sinf(c->pitch);
}

// See boids/render.h.
void boids_camera_fit(boids_camera *c, const boids_world_params *w, float aspect) {
    memset(c, 0, sizeof *c);
    c->dim = w->dim;
    for (int a = 0; a < 3; a++) {
        c->world_min[a] = w->min[a];
        c->world_size[a] = w->size[a];
        c->center[a] = w->min[a] + 0.5f * w->size[a];
    }
    float hx = 0.5f * w->size[0] / (aspect > 0.0f ? aspect : 1.0f), hy = 0.5f * w->size[1];
    c->half_height = 1.04f * (hx > hy ? hx : hy);
    c->fov_y = 0.9f; // ~52 degrees
    float r = 0.5f * sqrtf(w->size[0] * w->size[0] + w->size[1] * w->size[1] + w->size[2] * w->size[2]);
    c->distance = 1.05f * r / sinf(0.5f * c->fov_y);
    c->yaw = -2.2f;
    c->pitch = 0.5f;
}

// See boids/render.h.
void boids_camera_matrix(const boids_camera *c, float aspect, float out[16]) {
    mat4 m;
    if (aspect <= 0.0f)
        aspect = 1.0f;
    if (c->dim == 3) {
        vec3 eye, center = {c->center[0], c->center[1], c->center[2]}, up = {0.0f, 0.0f, 1.0f};
        eye_of(c, eye);
        mat4 view, proj;
        glm_lookat(eye, center, up, view);
        glm_perspective(c->fov_y, aspect, c->distance * 0.01f, c->distance * 4.0f, proj);
        glm_mat4_mul(proj, view, m);
    } else {
        float hw = c->half_height * aspect;
        glm_ortho(c->center[0] - hw, c->center[0] + hw, c->center[1] - c->half_height, c->center[1] + c->half_height,
                  -1.0f, 1.0f, m);
    }
    memcpy(out, m, sizeof(float) * 16);
}

// See boids/render.h.
void boids_camera_zoom(boids_camera *c, float aspect, float factor, float ndc_x, float ndc_y) {
    if (c->dim == 3) {
        c->distance *= factor;
        return;
    }
    float wx = c->center[0] + ndc_x * c->half_height * aspect, wy = c->center[1] + ndc_y * c->half_height;
    c->half_height *= factor;
    c->center[0] = wx - ndc_x * c->half_height * aspect;
    c->center[1] = wy - ndc_y * c->half_height;
}

// See boids/render.h.
void boids_camera_pan(boids_camera *c, float aspect, float dndc_x, float dndc_y) {
    c->center[0] -= dndc_x * c->half_height * aspect;
    c->center[1] -= dndc_y * c->half_height;
}

// See boids/render.h: about 0.3 degrees per pixel; pitch kept off the poles.
void boids_camera_orbit(boids_camera *c, float dx, float dy) {
    c->yaw -= dx * 0.006f;
    c->pitch += dy * 0.006f;
    if (c->pitch > 1.5f)
        c->pitch = 1.5f;
    if (c->pitch < -1.5f)
        c->pitch = -1.5f;
}

// See boids/render.h.
void boids_camera_unproject(const boids_camera *c, float aspect, float ndc_x, float ndc_y, float out[3]) {
    if (c->dim != 3) {
        out[0] = c->center[0] + ndc_x * c->half_height * aspect;
        out[1] = c->center[1] + ndc_y * c->half_height;
        out[2] = 0.0f;
        return;
    }
    mat4 m, inv;
    boids_camera_matrix(c, aspect, (float *)m);
    glm_mat4_inv(m, inv);
    vec4 a = {ndc_x, ndc_y, -1.0f, 1.0f}, b = {ndc_x, ndc_y, 1.0f, 1.0f}, pa, pb;
    glm_mat4_mulv(inv, a, pa);
    glm_mat4_mulv(inv, b, pb);
    vec3 p0, p1, dir, eye, n, center = {c->center[0], c->center[1], c->center[2]}, diff;
    glm_vec3_scale(pa, 1.0f / pa[3], p0);
    glm_vec3_scale(pb, 1.0f / pb[3], p1);
    glm_vec3_sub(p1, p0, dir);
    eye_of(c, eye);
    glm_vec3_sub(eye, center, n);
    float denom = glm_vec3_dot(dir, n);
    glm_vec3_sub(center, p0, diff);
    float t = fabsf(denom) > 1e-12f ? glm_vec3_dot(diff, n) / denom : 0.0f;
    for (int k = 0; k < 3; k++)
        out[k] = p0[k] + t * dir[k];
}

// See boids/render.h.
void boids_camera_eye(const boids_camera *c, float out[3]) {
    if (c->dim == 3) {
        eye_of(c, out);
        return;
    }
    out[0] = c->center[0];
    out[1] = c->center[1];
    out[2] = c->center[2] + 1.0f;
}
