// src/render/camera.c: the viewer's cameras, pure math (cglm): a 2D
// orthographic view (zoom at the cursor, pan) and a 3D orbit camera, each
// framing the world in a region of the window (boids_camera.region).
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

// The region's scale and offset in the window's NDC (the whole window: 1, 0).
static void region_of(const boids_camera *c, float *sx, float *sy, float *ox, float *oy) {
    const float *r = c->region;
    if (r[2] > r[0] && r[3] > r[1]) {
        *sx = 0.5f * (r[2] - r[0]);
        *sy = 0.5f * (r[3] - r[1]);
        *ox = 0.5f * (r[0] + r[2]);
        *oy = 0.5f * (r[1] + r[3]);
    } else {
        *sx = *sy = 1.0f;
        *ox = *oy = 0.0f;
    }
}

// A point and aspect of the window into the region's own NDC and aspect.
static void to_region(const boids_camera *c, float *aspect, float *ndc_x, float *ndc_y) {
    float sx, sy, ox, oy;
    region_of(c, &sx, &sy, &ox, &oy);
    if (*aspect <= 0.0f)
        *aspect = 1.0f;
    *aspect *= sx / sy;
    *ndc_x = (*ndc_x - ox) / sx;
    *ndc_y = (*ndc_y - oy) / sy;
}

// The margin round the fitted world: it fills 1 / FIT_MARGIN of the view.
#define FIT_MARGIN 1.04f

// The 3D distance at which the world box's corners all lie inside both
// fields of view (half-angle tangents tx, ty) with the margin: a corner at
// (x, y) across the view and z towards the eye, seen from distance d, is
// inside when |x| <= (d - z) tx / FIT_MARGIN, i.e. d >= z + |x| FIT_MARGIN / tx.
static float fit_distance(const boids_camera *c, float tx, float ty) {
    float cp = cosf(c->pitch), back[3] = {cp * cosf(c->yaw), cp * sinf(c->yaw), sinf(c->pitch)};
    vec3 fwd = {-back[0], -back[1], -back[2]}, up = {0.0f, 0.0f, 1.0f}, right, upv;
    glm_vec3_cross(fwd, up, right);
    glm_vec3_normalize(right);
    glm_vec3_cross(right, fwd, upv);
    float d = 0.0f, r = 0.0f;
    for (int k = 0; k < 8; k++) {
        vec3 p;
        for (int a = 0; a < 3; a++)
            p[a] = (k >> a & 1 ? 0.5f : -0.5f) * c->world_size[a];
        float x = fabsf(glm_vec3_dot(p, right)), y = fabsf(glm_vec3_dot(p, upv));
        float z = p[0] * back[0] + p[1] * back[1] + p[2] * back[2];
        d = fmaxf(d, z + FIT_MARGIN * fmaxf(x / tx, y / ty));
        r = fmaxf(r, glm_vec3_norm(p));
    }
    return fmaxf(d, 1.1f * r); // every corner well in front of the near plane
}

// See boids/render.h.
void boids_camera_fit_region(boids_camera *c, const boids_world_params *w, float aspect, const float region[4]) {
    memset(c, 0, sizeof *c);
    c->dim = w->dim;
    if (region)
        memcpy(c->region, region, sizeof c->region);
    float nx = 0.0f, ny = 0.0f;
    to_region(c, &aspect, &nx, &ny);
    for (int a = 0; a < 3; a++) {
        c->world_min[a] = w->min[a];
        c->world_size[a] = w->size[a];
        c->center[a] = w->min[a] + 0.5f * w->size[a];
    }
    float hx = 0.5f * w->size[0] / aspect, hy = 0.5f * w->size[1];
    c->half_height = FIT_MARGIN * (hx > hy ? hx : hy);
    c->fov_y = 0.9f; // ~52 degrees
    c->yaw = -2.2f;
    c->pitch = 0.5f;
    float ty = tanf(0.5f * c->fov_y);
    c->distance = fit_distance(c, ty * aspect, ty);
}

// See boids/render.h: the world's bounding sphere (with a 5 % margin)
// inside the narrower of the two fields of view, so that it stays in view
// from any orbit angle.
void boids_camera_fit(boids_camera *c, const boids_world_params *w, float aspect) {
    boids_camera_fit_region(c, w, aspect, NULL);
    if (aspect <= 0.0f)
        aspect = 1.0f;
    float r = 0.5f * sqrtf(w->size[0] * w->size[0] + w->size[1] * w->size[1] + w->size[2] * w->size[2]);
    float half = 0.5f * c->fov_y;
    if (aspect < 1.0f) // the horizontal field is the narrower
        half = atanf(tanf(half) * aspect);
    c->distance = 1.05f * r / sinf(half);
}

// See boids/render.h.
void boids_camera_matrix(const boids_camera *c, float aspect, float out[16]) {
    mat4 m;
    float nx = 0.0f, ny = 0.0f, sx, sy, ox, oy;
    to_region(c, &aspect, &nx, &ny);
    region_of(c, &sx, &sy, &ox, &oy);
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
    // Into the region: clip x' = sx x + ox w, y' = sy y + oy w (column-major).
    for (int col = 0; col < 4; col++) {
        m[col][0] = sx * m[col][0] + ox * m[col][3];
        m[col][1] = sy * m[col][1] + oy * m[col][3];
    }
    memcpy(out, m, sizeof(float) * 16);
}

// See boids/render.h.
void boids_camera_zoom(boids_camera *c, float aspect, float factor, float ndc_x, float ndc_y) {
    to_region(c, &aspect, &ndc_x, &ndc_y);
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
    float sx, sy, ox, oy;
    region_of(c, &sx, &sy, &ox, &oy);
    aspect = (aspect > 0.0f ? aspect : 1.0f) * sx / sy;
    dndc_x /= sx;
    dndc_y /= sy;
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
        to_region(c, &aspect, &ndc_x, &ndc_y);
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
