/* boids/render.h: drawing (src/render). Agents as one instanced draw whose
 * vertex shader reads the simulation's state buffers (boids_engine_gl_buffers,
 * or the render's own buffers filled from caller arrays), world-space
 * lines, HUD text (stb_easy_font), screenshots (stb_image_write), and the
 * cameras (pure math, no GL). No simulation logic. Needs a current GL 4.5
 * context whose functions glad has loaded.
 *
 * Offers: boids_render_create / _destroy, boids_render_upload_agents /
 * _joints (the CPU backend's and a replay's state), boids_render_own_buffers,
 * boids_render_agents, boids_render_bodies (and boids_render_own_body_buffers,
 * boids_body_fill_triangles), boids_render_lines,
 * boids_render_triangles, boids_render_rect, boids_render_text,
 * boids_render_text_size, boids_overlay_flow / _grid / _agent / _follows and
 * boids_lines_segment / _ring / _scene (vertex lists),
 * boids_render_screenshot; boids_camera and boids_camera_fit / _fit_region / _matrix /
 * _zoom / _pan / _orbit / _unproject / _eye.
 */
#ifndef BOIDS_RENDER_H
#define BOIDS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct boids_render boids_render;

// Agent colour modes (the `C` key cycles them); the values are agents.vert's
// u_mode, defined once in shared.h (BOIDS_COLOR_BY_*).
typedef enum boids_color_mode {
    BOIDS_COLOR_GROUP = BOIDS_COLOR_BY_GROUP,
    BOIDS_COLOR_HEADING = BOIDS_COLOR_BY_HEADING,
    BOIDS_COLOR_SPEED = BOIDS_COLOR_BY_SPEED,
    BOIDS_COLOR_NEIGHBORS = BOIDS_COLOR_BY_NEIGHBORS,
    BOIDS_COLOR_MODES = BOIDS_COLOR_BY_COUNT
} boids_color_mode;
const char *boids_color_mode_name(boids_color_mode m);
// The colour mode a view of `count` agents starts in: heading from
// BOIDS_COLOR_HEADING_FROM agents on (a dense flock's structure shows in its
// headings; one group's colour is a flat carpet), else group.
#define BOIDS_COLOR_HEADING_FROM 100000u
boids_color_mode boids_render_default_color(uint32_t count);

typedef struct boids_render_desc {
    const char *shader_dir; // NULL: the shaders built into the executable
    uint32_t own_count;     // agents of the render's own buffers (CPU backend); 0: none
} boids_render_desc;

boids_result boids_render_create(boids_render **out, const boids_render_desc *d, char *err, size_t err_size);
// The colours of groups 0..7 (rgba; alpha unused) where use[g]; the built-in
// palette elsewhere, and everywhere with NULL (the default).
void boids_render_set_palette(boids_render *r, const float (*rgba)[4], const bool *use);
// The glyph of each group (shapes BOIDS_GLYPH_*, sizes as factors of the
// agent length; NULL, or BOIDS_GLYPH_DEFAULT and size 0 per group: the
// default, chosen at each draw from the groups that hunt: a wedge twice as
// long for them, an arrow of the agent length for the others).
void boids_render_set_glyphs(boids_render *r, const uint32_t *shape, const float *size);
void boids_render_destroy(boids_render *r);
// GL names of the own buffers (pos, vel, group, neighbours).
void boids_render_own_buffers(const boids_render *r, uint32_t *pos, uint32_t *vel, uint32_t *group,
                              uint32_t *neighbors);

// The state (pos, vel, group, neighbours) of n agents in slot order from
// caller arrays into the own buffers (any may be NULL: left as it was), e.g.
// boids_engine_read_buffer's (src/render/upload.c).
void boids_render_upload_agents(boids_render *r, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                                const uint32_t *group, const uint32_t *neighbors);
// The agent id of each slot and the joints by id (rows * n vec4; NULL or
// rows 0: no bodies) into the own buffers (the joints' grown as needed).
void boids_render_upload_joints(boids_render *r, uint32_t n, const uint32_t *id, const float (*joints)[4],
                                uint32_t rows);

typedef struct boids_agents_draw {
    uint32_t pos, vel, group, neighbors; // GL buffers: vec4[N], vec4[N], uint[N], uint[N]
    uint32_t count;
    uint32_t dim;
    float view_proj[16]; // column-major
    float size;          // agent length in world units
    float maxspeed;      // scale of the speed colours
    boids_color_mode mode;
    // How dense agents are drawn (boids_agents_scale): the length in pixels
    // (the points' size), one point per agent instead of a glyph, and
    // whether their colours are summed into a float image and tone-mapped
    // (shaders/density.frag: the mean colour of a pixel's agents, brighter
    // with their number, full at density_ref agents) instead of drawn opaque.
    float px;
    bool points;
    bool dense;
    float density_ref;
    uint32_t hunters;    // bit g: group g hunts (default glyphs: larger wedges)
    float eye[3];        // 3D: the camera's position (light and fog)
    float fog_near;      // 3D: agents farther from the eye than this fade towards the background,
    float fog_reach;     // reaching 60 % of the way this much farther (0: no fog)
    float background[3]; // the colour they fade to (the clear colour)
} boids_agents_draw;
// One draw of every agent.
void boids_render_agents(boids_render *r, const boids_agents_draw *d);

// How to draw `count` agents in a world of `world_size` (x, y used; the
// view's projection of a 3D world) seen at `world_per_px` world units per
// pixel, no smaller than `smallest` world units where that keeps them at
// least `full` pixels long: the length (size, world units; px, pixels),
// points, dense and density_ref of boids_agents_draw. Agents are `full`
// pixels long until the mean cover of a pixel by glyphs passes
// BOIDS_AGENTS_COVER, then shorter so it stays there, down to one pixel,
// where a glyph becomes a point. Past BOIDS_AGENTS_COVER agents are drawn
// dense (summed and tone-mapped, full brightness at 8 times the mean cover,
// at least 4 agents on a pixel: a clump brighter than a lone agent). No GL.
#define BOIDS_AGENTS_COVER 0.25f
typedef struct boids_agents_look {
    float size, px;
    bool points;
    bool dense;
    float density_ref;
} boids_agents_look;
void boids_agents_scale(uint32_t count, const float world_size[3], float world_per_px, float smallest, float full,
                        boids_agents_look *out);

// Procedural bodies (procedural-animation-chains.txt; src/render/bodies.c,
// shaders/bodies.vert): instanced draws, one instance per agent slot, whose
// vertex shader reads id[slot], group[slot] and joints[j * count + id]
// straight from the buffers (no copy on the GPU backend) and builds the
// geometry from gl_VertexID. SNAKE and FISH: the filled outline of getShape
// (a triangle strip of 2J + 6 vertices), a darker outline and two eyes on the
// head (2D); CHAIN: lines between the joints and a dot at each. 3D: ribbons
// facing the camera, no eyes. Colours: the groups' palette of agents.vert.
typedef struct boids_bodies_draw {
    uint32_t joints;               // GL buffer vec4[rows * count]: joint j of agent id at [j * count + id]
    uint32_t rows;                 // joint rows of that buffer (0: nothing to draw)
    uint32_t id, group;            // GL buffers uint[count]: the agent id and the group of each slot
    uint32_t count;                // agents
    uint32_t dim;                  // 2 or 3
    float view_proj[16];           // column-major
    float eye[3];                  // 3D: the camera's position (boids_camera_eye)
    const boids_body_params *body; // [BOIDS_MAX_GROUPS]: the groups' body types
    bool eyes;                     // false: fills, outlines and chains; true: only the eyes (drawn over the agents)
} boids_bodies_draw;
// Every body whose group has a style, one draw per part and style (under the agents).
void boids_render_bodies(boids_render *r, const boids_bodies_draw *d);
// GL names of the own joints and id buffers and the joint rows last uploaded.
void boids_render_own_body_buffers(const boids_render *r, uint32_t *joints, uint32_t *id, uint32_t *rows);

// A line vertex: world position, colour.
typedef struct boids_line_vertex {
    float pos[3];
    float color[4];
} boids_line_vertex;
// GL_LINES of n vertices (pairs) in world space.
void boids_render_lines(boids_render *r, const float view_proj[16], const boids_line_vertex *v, size_t n);
// GL_TRIANGLES of n vertices in world space, blended (the heat map).
void boids_render_triangles(boids_render *r, const float view_proj[16], const boids_line_vertex *v, size_t n);

// The closed outline of a snake (boids_snake_outline's 2n + 6 points, in
// its order) filled as GL_TRIANGLES: the head tip, the quads between each
// joint's left and right points, the tail; at height z, appended to
// v[m..cap) (what does not fit is left out). Returns the new count.
size_t boids_body_fill_triangles(const float (*outline)[2], uint32_t n, float z, const float rgba[4],
                                 boids_line_vertex *v, size_t m, size_t cap);

// Debug overlays as vertex lists (no GL): each appends to v[n..cap) and
// returns the new count (what does not fit is left out).
// F: flow-field arrows (GL_LINES).
size_t boids_overlay_flow(const boids_flowfield *f, const boids_world_params *w, boids_line_vertex *v, size_t n,
                          size_t cap);
// G: grid occupancy per cell (counts[cells]) as GL_TRIANGLES (3D: per xy column, on the floor).
size_t boids_overlay_grid(const uint32_t *counts, const boids_world_params *w, boids_line_vertex *v, size_t n,
                          size_t cap);
// N / V: the agent (of count, any slot order; ids and group: the agent of
// each slot and its group, whose parameters apply) nearest `point`, into *picked:
// lines to its neighbours within the perception radius and the radius
// circles (neighbors), its steering force per enabled behaviour, maxforce
// drawn as long as the radius (vectors). GL_LINES.
size_t boids_overlay_agent(const boids_params *p, uint32_t count, const float (*pos)[4], const float (*vel)[4],
                           const uint32_t *ids, const uint32_t *group, const float point[3], bool neighbors,
                           bool vectors, boids_line_vertex *v, size_t n, size_t cap, uint32_t *picked);
// L: who follows whom (pos, group and id of count agents in any slot order):
// magenta, from each agent whose group hunts (BOIDS_BI_HUNT with a
// BOIDS_REL_PURSUE group) to the prey it chases, the nearest within its
// radius (every agent against every other, so it stops once `budget` pair
// tests are spent: hunters are few); yellow, from each member of a group
// with offset or follow to its leader (an agent or the target); light
// green, from each agent with interpose to the two it keeps apart.
size_t boids_overlay_follows(const boids_params *p, uint32_t count, const float (*pos)[4], const uint32_t *group,
                             const uint32_t *id, uint64_t budget, boids_line_vertex *v, size_t n, size_t cap);

// Line lists (src/render/lines.c, no GL): each appends GL_LINES to
// v[n..cap) and returns the new count (what does not fit is left out).
// The segment a-b.
size_t boids_lines_segment(boids_line_vertex *v, size_t n, size_t cap, const float a[3], const float b[3],
                           const float rgba[4]);
// A circle of radius r around c in the xy plane (3D: and in xz and yz).
size_t boids_lines_ring(boids_line_vertex *v, size_t n, size_t cap, const float c[3], float r, uint32_t dim,
                        const float rgba[4]);
// The scene of p: the world box; the path while path following is on or
// `path` is true; the obstacles while avoidance is on; a cross at the target
// while a targeted behaviour (seek, flee, arrive, pursue, evade) is on.
size_t boids_lines_scene(const boids_params *p, bool path, boids_line_vertex *v, size_t n, size_t cap);

// A filled rectangle in pixels (origin top left), blended.
void boids_render_rect(boids_render *r, int fb_w, int fb_h, float x, float y, float w, float h, const float rgba[4]);
// Text in pixels at (x, y) (top left), stb_easy_font scaled by `scale`; '\n' starts a line.
void boids_render_text(boids_render *r, int fb_w, int fb_h, float x, float y, float scale, const char *text,
                       const float rgba[4]);
// Width and height in pixels of text at `scale`.
void boids_render_text_size(const char *text, float scale, float *w, float *h);
// The framebuffer (w x h, bottom-left origin) as a PNG, rows flipped to
// top-down. Returns BOIDS_ERR_IO with a line in err when it cannot be written.
boids_result boids_render_screenshot(const char *path, int w, int h, char *err, size_t err_size);

// Cameras. 2D: orthographic, `center` and `half_height` (world units); 3D:
// perspective orbit around `center` at `distance`, `yaw`/`pitch` radians.
// `region`: the part of the window the view fills, in the window's NDC
// (x0, y0, x1, y1; y up), so that panels over the window's edges leave the
// world alone; all 0 is the whole window. The matrix maps the view into it
// (a clip-space scale and offset), and zoom, pan and unproject take the
// window's NDC and aspect as before.
typedef struct boids_camera {
    uint32_t dim;
    float center[3];
    float half_height;
    float distance, yaw, pitch, fov_y;
    float world_min[3], world_size[3];
    float region[4];
} boids_camera;
// A camera that shows the whole world of w in a window of `aspect` (w / h):
// 2D, the world's rectangle with a 4 % margin; 3D, its bounding sphere
// inside both fields of view (in view from any orbit angle).
void boids_camera_fit(boids_camera *c, const boids_world_params *w, float aspect);
// A camera that frames the world in `region` of the window (NDC, as
// boids_camera.region; NULL: the whole window): 2D as boids_camera_fit;
// 3D, the world box's eight corners inside both the vertical and the
// horizontal field of view from the starting orbit angles, with a 4 %
// margin (tighter than the sphere: the box fills the region along one axis).
void boids_camera_fit_region(boids_camera *c, const boids_world_params *w, float aspect, const float region[4]);
// The view-projection matrix (column-major) for a framebuffer aspect (w / h).
void boids_camera_matrix(const boids_camera *c, float aspect, float out[16]);
// Zoom by `factor` (< 1 in), keeping the world point under the cursor
// (normalised device coordinates ndc_x, ndc_y) in place (2D).
void boids_camera_zoom(boids_camera *c, float aspect, float factor, float ndc_x, float ndc_y);
// Pan by a cursor move in NDC (2D).
void boids_camera_pan(boids_camera *c, float aspect, float dndc_x, float dndc_y);
// Rotate by a cursor move in pixels (3D).
void boids_camera_orbit(boids_camera *c, float dx, float dy);
// The world point under the cursor (NDC): 2D the plane z = 0; 3D the plane
// through the camera's centre facing the camera.
void boids_camera_unproject(const boids_camera *c, float aspect, float ndc_x, float ndc_y, float out[3]);
// The 3D camera's position (2D: the centre, one unit in front of the plane, +z).
void boids_camera_eye(const boids_camera *c, float out[3]);

#ifdef __cplusplus
}
#endif

#endif
