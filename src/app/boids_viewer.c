// src/app/boids_viewer.c: boids, the viewer. A GLFW window (OpenGL 4.5
// core); each frame one step of the simulation - the compute shaders
// (--backend gpu, default) or the C reference, uploaded (--backend cpu) -
// then one instanced draw of every agent straight from the state buffers,
// world lines and the HUD. Keys toggle behaviours and change parameters;
// the enabled set is printed on stdout whenever it changes ("behaviors:
// ..."), so scripts (--keys) and tests can follow it. Bodies (--bodies,
// the K key) trail the agents; --demo chain|snake shows the notebook's demos
// instead of a flock (viewer_demo.c); --replay FILE plays a recording of
// boids-run --record (boids/record.h) instead of simulating.
// Exit status: 0 done, 2 bad arguments, 3 environment (no display, no
// OpenGL 4.5, GL errors, a screenshot that cannot be written).
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "cli.h"
#include "profile.h"
#include "viewer_demo.h"
#include "boids/gpu.h"
#include "boids/platform.h"
#include "boids/record.h"
#include "boids/snapshot.h"
#include "boids/render.h"

#define PROG "boids"
#define EXIT_INPUT 2
#define EXIT_ENVIRONMENT 3
#define COUNT_HARDWARE 200000u
#define COUNT_SOFTWARE 20000u
#define MAX_SCRIPT 256
#define MAX_LINES 4096

static const char usage[] =
    "usage: boids [options]\n"
    "Opens a window and runs the flock: the OpenGL compute shaders (default) or the\n"
    "C reference, drawn each frame straight from the simulation's buffers.\n"
    "\n"
    "  --count N             agents, 1..16777216 (default 200000 on a hardware GPU,\n"
    "                        20000 on a software renderer such as llvmpipe or with --backend cpu)\n"
    "  --dim 2|3             dimensions (default 2)\n"
    "  --seed X              random seed (default 1)\n"
    "  --backend gpu|cpu     compute shaders (default), or the C reference uploaded each frame\n"
    "  --boundary MODE       wrap, walls or bounce (default wrap)\n"
    "  --behaviors LIST      comma list of behaviours, 'flocking', 'all' or 'none' (default flocking)\n"
    "  --world, --origin, --weights, --radius, --separation, --fov, --maxspeed,\n"
    "  --maxforce, --dt      as for boids-run\n"
    "  --scenario FILE|NAME  a scenario file or a shipped one (--list-scenarios lists them);\n"
    "                        its colours, target (mouse or circling) and varying weights apply\n"
    "  --bodies STYLE        bodies trailing the agents: none (default), chain, snake, fish\n"
    "  --joints J            joints per body, 2..32 (default 12); --body-length L as for boids-run\n"
    "  --demo chain|snake    no flock: the notebook's demos (procedural-animation-chains), a chain\n"
    "                        whose joints the mouse drags (400x400) or a snake whose head follows\n"
    "                        the mouse (600x600); the window is the canvas unless --width/--height\n"
    "  --width W --height H  window size (default 1280x800)\n"
    "  --vsync on|off        wait for the display's refresh (default on)\n"
    "  --frames K            exit after K frames\n"
    "  --screenshot FILE.png write the last frame as a PNG\n"
    "  --profile FILE        record a frame-time profile (.csv or .json) from the start; T stops\n"
    "                        and writes it (without --profile, T records to boids-profile.csv)\n"
    "  --keys SCRIPT         key presses to replay: a comma list of [FRAME:]KEY, where KEY\n"
    "                        is one of 0-9, a-z, space, '.', comma, esc, f1, '[', ']', '-', '=',\n"
    "                        left, right, up, down, home, end, or\n"
    "                        WxH to resize the window (0x0: minimise), mouse=X,Y to move the\n"
    "                        mouse (world coordinates; with --demo the canvas' pixels, y down),\n"
    "                        press / release for the left button; an item without a\n"
    "                        FRAME comes one frame after the previous one (first: frame 1)\n"
    "  --save FILE.boids     write the whole state (boids/snapshot.h) at exit, and with W;\n"
    "                        --save-every K also every K steps\n"
    "  --load FILE.boids     start from a snapshot of boids-run, boids-validate or the viewer\n"
    "                        (--save); R goes back to it. Flags that set up the simulation\n"
    "                        cannot be given with it\n"
    "  --replay FILE         no simulation: play a recording of boids-run --record; --frame N\n"
    "                        starts at frame N, --export-frames DIR writes every frame as\n"
    "                        DIR/frame-00000.png and exits, --export-csv FILE writes frame N\n"
    "                        as CSV; keys: Space play/pause, Right/Left (. ,) one frame,\n"
    "                        Up/Down 10 frames, Home/End, E the frame as CSV\n"
    "  --shader-dir DIR      load the shaders from DIR instead of the built-in copies\n"
    "  --threads N           OpenMP threads of the CPU backend\n"
    "  --help, --version\n";

static const char usage_keys[] =
    "\n"
    "Keys: 1 separation, 2 alignment, 3 cohesion, 4 seek, 5 flee, 6 arrive, 7 pursue+evade,\n"
    "8 wander, 9 flow field, 0 path following, O obstacles (toggles); B boundary mode;\n"
    "Space pause, '.' single step, R reset (same seed); [ ] select a parameter, - = change it;\n"
    "C colour mode (group, heading, speed, neighbours); G grid occupancy heat map; N neighbour\n"
    "lines and perception radius of the agent under the cursor, V its steering vector per\n"
    "behaviour; F flow-field arrows; P path; K body style (none, chain, snake, fish);\n"
    "S screenshot; T start/stop a profile recording; W write a snapshot (--save's FILE, else\n"
    "boids-NNNN.boids); H or F1 help; Esc quit.\n"
    "Mouse: the cursor is the target of seek, flee, arrive, pursue and evade; drag pans\n"
    "(2D) or rotates (3D); the wheel zooms.\n"
    "Without a display: run it under a virtual X server (xvfb-run -a boids ...) or use\n"
    "boids-run for a headless run.\n"
    "Exit status: 0 done, 2 bad arguments, 3 no display, no OpenGL 4.5, GL errors or a failed write.\n";

static const char help_text[] = "keys\n"
                                "1  separation      2  alignment     3  cohesion\n"
                                "4  seek            5  flee          6  arrive\n"
                                "7  pursue + evade  8  wander        9  flow field\n"
                                "0  path following  O  obstacles     B  boundary mode\n"
                                "Space  pause       .  single step   R  reset (same seed)\n"
                                "[ ]  select parameter               - =  change it\n"
                                "C  colour mode     S  screenshot    H / F1  this help\n"
                                "G  grid heat map   N  neighbours    V  steering vectors\n"
                                "F  flow arrows     P  path          T  profile on/off\n"
                                "K  bodies (none, chain, snake, fish)   W  snapshot\n"
                                "Esc  quit\n"
                                "mouse: target of seek/flee/arrive/pursue/evade\n"
                                "drag: pan (2D) / rotate (3D)   wheel: zoom";

// A scripted key press (or resize, or mouse event) at a frame.
#define SCRIPT_RESIZE -1
#define SCRIPT_MOUSE -2   // move to (x, y)
#define SCRIPT_PRESS -3   // left button down
#define SCRIPT_RELEASE -4 // left button up
typedef struct script_event {
    uint64_t frame;
    int key;           // GLFW key, or SCRIPT_*
    int width, height; // resize
    float x, y;        // mouse
} script_event;

// Parameters the [ ] - = keys change (all groups alike).
typedef struct tunable {
    const char *name;
    int behavior;  // weight of this behaviour index, or -1
    size_t offset; // else this float of boids_group_params
} tunable;
static const tunable tunables[] = {
    {"maxspeed", -1, offsetof(boids_group_params, maxspeed)},
    {"maxforce", -1, offsetof(boids_group_params, maxforce)},
    {"separation distance", -1, offsetof(boids_group_params, separation)},
    {"separation weight", BOIDS_BI_SEPARATION, 0},
    {"alignment weight", BOIDS_BI_ALIGNMENT, 0},
    {"cohesion weight", BOIDS_BI_COHESION, 0},
    {"seek weight", BOIDS_BI_SEEK, 0},
    {"flee weight", BOIDS_BI_FLEE, 0},
    {"arrive weight", BOIDS_BI_ARRIVE, 0},
    {"wander weight", BOIDS_BI_WANDER, 0},
    {"flow weight", BOIDS_BI_FLOW, 0},
    {"path weight", BOIDS_BI_PATH, 0},
    {"obstacles weight", BOIDS_BI_OBSTACLES, 0},
};
#define TUNABLE_COUNT (sizeof tunables / sizeof tunables[0])

#define GRAPH_FRAMES 240

typedef struct viewer {
    const boids_options *o;
    boids_window *win;
    GLFWwindow *w;
    boids_params p;        // the parameters now (keys change them)
    boids_params p_create; // what simulations are created from: flow enabled, so the field exists
    boids_distribution dist;
    boids_scenario *scen; // in effect (the options' or the loaded snapshot's): schedule, colours, names
    uint64_t saves;       // W presses without --save (boids-NNNN.boids)
    uint64_t saved_step;  // the step of the last --save-every snapshot
    int64_t saved_ok;     // the step --save's file holds from this run (-1: none yet)
    bool faulted;         // a GL fault stopped the viewer (its line is printed)
    bool state_untrusted; // sim holds a read-back the fault check did not trust: never saved
    bool save_failed;     // a --save-every write failed (said once; no save at exit)
    boids_sim *sim;
    boids_gpu *gpu;
    boids_render *render;
    boids_camera cam;
    boids_color_mode mode;
    char renderer[256], gl_version[128];
    bool paused, step_once, help, quit, params_dirty, dragging, forced_zero;
    bool show_grid, show_neighbors, show_vectors, show_flow, show_path; // G N V F P
    boids_line_vertex *overlay;                                         // scratch of the overlays, overlay_cap vertices
    size_t overlay_cap;
    float (*read_pos)[4], (*read_vel)[4]; // GPU state read back for N / V (debug only)
    uint32_t *read_count;                 // GPU grid counts read back for G
    int selected;
    double cursor_x, cursor_y;
    float last_target[3], cursor_world[3];
    bool have_target;
    uint64_t frame, shots;
    uint32_t gl_errors;   // CPU backend (the GPU backend counts its own)
    uint32_t body_style;  // BOIDS_BODY_* of every group (the K key)
    bool bodies_dirty;    // CPU backend: joints to upload though no step ran
    char body_error[512]; // the last rejected K, shown on the HUD
    viewer_demo *demo;    // --demo: the notebook's demo instead of a flock
    // --replay: the recording instead of a simulation; sim holds its frame.
    boids_recording *rec;
    uint32_t rep_frame, rep_loaded; // the frame shown, the one in sim (UINT32_MAX: none)
    uint64_t rep_step;              // the step of rep_loaded
    bool rep_playing, rep_failed;
    uint64_t rep_csvs; // E presses
    double fps, frame_ms, step_ms, draw_ms;
    // Frame-time profile: --profile FILE records from the start, T starts and
    // stops a recording (to --profile's FILE, else boids-profile.csv); while
    // it records, a graph of the last GRAPH_FRAMES frames is drawn.
    boids_profile *profile;
    double profile_t0;
    float graph[GRAPH_FRAMES][6]; // stage ms of the newest frames, a ring
    uint32_t graph_n, graph_head;
} viewer;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *boundary_name(uint32_t b) {
    static const char *const names[3] = {"wrap", "walls", "bounce"};
    return b < 3 ? names[b] : "?";
}

// The enabled set on stdout (tests and scripts read it).
static void print_behaviors(const viewer *v) {
    char text[400];
    boids_behaviors_text(v->p.group[0].behaviors, ",", text, sizeof text);
    printf("behaviors: %s\n", text);
    fflush(stdout);
}

// The GLFW key of a script name, or -1.
static int key_of_name(const char *s) {
    if (s[0] && !s[1]) {
        char c = s[0];
        if (c >= '0' && c <= '9')
            return GLFW_KEY_0 + (c - '0');
        if (c >= 'a' && c <= 'z')
            return GLFW_KEY_A + (c - 'a');
        if (c >= 'A' && c <= 'Z')
            return GLFW_KEY_A + (c - 'A');
        switch (c) {
        case '.':
            return GLFW_KEY_PERIOD;
        case ',':
            return GLFW_KEY_COMMA;
        case '[':
            return GLFW_KEY_LEFT_BRACKET;
        case ']':
            return GLFW_KEY_RIGHT_BRACKET;
        case '-':
            return GLFW_KEY_MINUS;
        case '=':
            return GLFW_KEY_EQUAL;
        case ' ':
            return GLFW_KEY_SPACE;
        default:
            return -1;
        }
    }
    if (strcmp(s, "space") == 0)
        return GLFW_KEY_SPACE;
    if (strcmp(s, "esc") == 0 || strcmp(s, "escape") == 0)
        return GLFW_KEY_ESCAPE;
    if (strcmp(s, "f1") == 0 || strcmp(s, "F1") == 0)
        return GLFW_KEY_F1;
    if (strcmp(s, "period") == 0)
        return GLFW_KEY_PERIOD;
    if (strcmp(s, "comma") == 0)
        return GLFW_KEY_COMMA;
    static const struct {
        const char *name;
        int key;
    } named[] = {{"left", GLFW_KEY_LEFT}, {"right", GLFW_KEY_RIGHT}, {"up", GLFW_KEY_UP},
                 {"down", GLFW_KEY_DOWN}, {"home", GLFW_KEY_HOME},   {"end", GLFW_KEY_END}};
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
        if (strcmp(s, named[k].name) == 0)
            return named[k].key;
    return -1;
}

// Parses --keys into events; returns 0 or 2 (error printed).
static int parse_script(const char *script, script_event *ev, size_t *n_out) {
    const char *expected = "a comma list of [FRAME:]KEY (KEY: 0-9, a-z, space, '.', comma, esc, f1, [, ], -, =, "
                           "left, right, up, down, home, end, WxH, mouse=X,Y, press or release)";
    size_t n = 0;
    uint64_t frame = 0;
    const char *p = script;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        // mouse=X,Y holds a comma of its own.
        const char *mouse = strstr(p, "mouse=");
        if (end && mouse && mouse < end) {
            end = strchr(end + 1, ',');
            len = end ? (size_t)(end - p) : strlen(p);
        }
        char item[64];
        if (len == 0 || len >= sizeof item) {
            boids_cli_error(PROG, "--keys", script, expected, "has an %s item", len ? "overlong" : "empty");
            return EXIT_INPUT;
        }
        if (n == MAX_SCRIPT) {
            boids_cli_error(PROG, "--keys", script, expected, "has more than %d items", MAX_SCRIPT);
            return EXIT_INPUT;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *name = item, *colon = strchr(item, ':');
        if (colon) {
            *colon = '\0';
            char *e;
            unsigned long long f = strtoull(item, &e, 10);
            if (!item[0] || *e || f == 0 || f < frame) {
                boids_cli_error(PROG, "--keys", script, expected,
                                "has the frame '%s', which is not a frame number >= 1 and >= the previous one", item);
                return EXIT_INPUT;
            }
            frame = f;
            name = colon + 1;
        } else {
            frame++;
        }
        script_event e = {.frame = frame, .key = key_of_name(name)};
        int w = 0, h = 0;
        char tail = 0;
        if (e.key < 0 && sscanf(name, "%dx%d%c", &w, &h, &tail) == 2 && w >= 0 && h >= 0 && w <= 16384 && h <= 16384 &&
            ((w == 0) == (h == 0))) {
            e.key = SCRIPT_RESIZE;
            e.width = w;
            e.height = h;
        } else if (e.key < 0 && strncmp(name, "mouse=", 6) == 0) {
            if (sscanf(name + 6, "%f,%f%c", &e.x, &e.y, &tail) != 2 || !isfinite(e.x) || !isfinite(e.y)) {
                boids_cli_error(PROG, "--keys", script, expected,
                                "has the mouse item '%s', which is not mouse=X,Y with two numbers", name);
                return EXIT_INPUT;
            }
            e.key = SCRIPT_MOUSE;
        } else if (e.key < 0 && (strcmp(name, "press") == 0 || strcmp(name, "release") == 0)) {
            e.key = name[0] == 'p' ? SCRIPT_PRESS : SCRIPT_RELEASE;
        } else if (e.key < 0) {
            boids_cli_error(PROG, "--keys", script, expected, "names an unknown key '%s'", name);
            return EXIT_INPUT;
        }
        ev[n++] = e;
        p += len + (end ? 1 : 0);
    }
    *n_out = n;
    return 0;
}

// Enables or disables behaviours of every group.
static void set_behaviors(viewer *v, uint32_t bits, bool on) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        v->p.group[g].behaviors = on ? (v->p.group[g].behaviors | bits) : (v->p.group[g].behaviors & ~bits);
    v->params_dirty = true;
    print_behaviors(v);
}

// Re-derives the parameters after a change; keeps the old ones (and says
// why) if the change would need another grid.
static bool refinalize(viewer *v, const boids_params *before) {
    char what[256] = "";
    boids_params q = v->p;
    boids_result r = boids_params_finalize(&q, what, sizeof what);
    if (r != BOIDS_OK || memcmp(q.world.cells, before->world.cells, sizeof q.world.cells) != 0) {
        printf("rejected: %s\n", r != BOIDS_OK ? what : "the change needs another grid (restart with the flag)");
        fflush(stdout);
        v->p = *before;
        return false;
    }
    v->p.world = q.world;
    v->params_dirty = true;
    return true;
}

// A new simulation from the same seed, with the current parameters.
static boids_result reset(viewer *v) {
    if (v->o->load) { // --load: back to the snapshot (with the parameters of now)
        boids_sim *s = NULL;
        char err[1200];
        boids_result r = boids_snapshot_load(v->o->load, &s, NULL, err, sizeof err);
        if (r != BOIDS_OK) {
            fprintf(stderr, "%s: reset: --load: %s\n", PROG, err);
            return r;
        }
        // The file may have been replaced since: only a snapshot of the same
        // shape (count, dimension, groups, grid, joint rows) can take over.
        const boids_world_params *a = &s->p.world, *b = &v->sim->p.world;
        if (s->n != v->sim->n || a->dim != b->dim || a->group_count != b->group_count ||
            memcmp(a->cells, b->cells, sizeof a->cells) != 0 ||
            (s->joints ? s->joint_rows : 0u) != (v->sim->joints ? v->sim->joint_rows : 0u)) {
            fprintf(stderr, "%s: reset: --load: %s: now holds another simulation (%u agents, %uD); kept running\n",
                    PROG, v->o->load, s->n, a->dim);
            boids_sim_destroy(s);
            return BOIDS_ERR_ARGUMENT;
        }
        boids_sim_destroy(v->sim);
        v->sim = s;
    } else {
        boids_sim_destroy(v->sim);
        v->sim = NULL;
        boids_result r = boids_sim_create(&v->sim, &v->p_create, v->dist);
        if (r != BOIDS_OK)
            return r;
    }
    v->sim->threads = v->o->threads;
    v->params_dirty = true;
    v->bodies_dirty = true;
    if (v->gpu) {
        boids_gpu_upload(v->gpu, v->sim);
        // The GPU's joint rows may differ from the new simulation's: lay them out anew.
        char err[256];
        if (boids_params_joint_rows(&v->p) && boids_gpu_set_bodies(v->gpu, v->p.body, err, sizeof err) != BOIDS_OK)
            snprintf(v->body_error, sizeof v->body_error, "reset: %s", err);
    }
    return BOIDS_OK;
}

// The K key: every group's body style to the next of none, chain, snake,
// fish (length --body-length or 1.2 x the separation). A rejected change
// (on the HUD and stdout) keeps the style.
static void cycle_bodies(viewer *v) {
    const boids_options *o = v->o;
    uint32_t style = (v->body_style + 1) % BOIDS_BODY_STYLES;
    boids_body_params body[BOIDS_MAX_GROUPS];
    char what[256] = "";
    boids_result r = BOIDS_OK;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS && r == BOIDS_OK; g++) {
        float length = o->body_length_set ? o->body_length : 1.2f * v->p.group[g].separation;
        r = boids_body_make(&body[g], style, o->joints, length, what, sizeof what);
    }
    if (r == BOIDS_OK && v->gpu) {
        r = boids_gpu_set_bodies(v->gpu, body, what, sizeof what);
    } else if (r == BOIDS_OK) {
        r = boids_sim_set_bodies(v->sim, body);
        if (r != BOIDS_OK)
            snprintf(what, sizeof what, "%s", boids_result_str(r));
    }
    if (r != BOIDS_OK) {
        snprintf(v->body_error, sizeof v->body_error, "bodies %s rejected: %s", boids_body_style_name(style), what);
        printf("rejected: %s\n", v->body_error);
        fflush(stdout);
        return;
    }
    v->body_error[0] = '\0';
    v->body_style = style;
    memcpy(v->p.body, body, sizeof body);
    memcpy(v->p_create.body, body, sizeof body);
    v->params_dirty = true;
    v->bodies_dirty = true;
    printf("bodies: %s\n", boids_body_style_name(style));
    fflush(stdout);
}

static void save_key(viewer *v);

// The first name of `pattern` (with one %llu) from *counter on that names no
// existing file; *counter moves past it. A key never writes over a file.
static void free_name(char *out, size_t size, const char *pattern, uint64_t *counter) {
    do
        snprintf(out, size, pattern, (unsigned long long)(*counter)++);
    while (access(out, F_OK) == 0 && *counter < 100000);
}

// Writes the framebuffer as boids-NNNN.png (the S key).
static void screenshot_key(viewer *v) {
    int w, h;
    glfwGetFramebufferSize(v->w, &w, &h);
    char path[64], err[512];
    free_name(path, sizeof path, "boids-%04llu.png", &v->shots);
    if (boids_render_screenshot(path, w, h, err, sizeof err) == BOIDS_OK)
        printf("screenshot: %s (%dx%d)\n", path, w, h);
    else
        fprintf(stderr, "%s: %s\n", PROG, err);
    fflush(stdout);
}

// Start recording a profile (T, or --profile at start-up). Returns 0 or the
// exit status of a bad path (reported in one line).
static int profile_start(viewer *v) {
    const char *path = v->o->profile ? v->o->profile : "boids-profile.csv";
    int rc = boids_profile_open(&v->profile, PROG, path, v->gpu ? "gpu" : "cpu",
                                BOIDS_PROFILE_SIM_STAGES | (1u << BOIDS_PROFILE_BODIES) | (1u << BOIDS_PROFILE_DRAW));
    if (rc)
        return rc;
    v->profile_t0 = now_seconds();
    v->graph_n = v->graph_head = 0;
    printf("profile: recording to %s\n", path);
    fflush(stdout);
    return 0;
}

// Stop recording: write the file, print the summary.
static int profile_stop(viewer *v) {
    int rc = boids_profile_write(v->profile);
    if (rc == 0)
        boids_profile_summary(v->profile, stdout);
    boids_profile_destroy(v->profile);
    v->profile = NULL;
    fflush(stdout);
    return rc;
}

// One frame into the profile and the graph: the newest stage times the GPU's
// timer queries have delivered (a few frames late, never waited for), or
// the CPU reference's own.
static void profile_frame(viewer *v) {
    if (!v->profile)
        return;
    boids_stage_ms ms;
    if (v->gpu)
        boids_gpu_stage_ms(v->gpu, &ms);
    else
        ms = v->sim->ms;
    boids_profile_row row = {
        .step = v->frame,
        .time_ms = (now_seconds() - v->profile_t0) * 1e3,
        .frame_ms = v->frame_ms,
        .stage_ms = {ms.key, ms.count, ms.scan, ms.scatter, ms.steer, ms.integrate, ms.bodies, v->draw_ms},
        .agents = v->p.world.count,
        .behaviors = v->p.group[0].behaviors};
    boids_profile_add(v->profile, &row);
    float *g = v->graph[v->graph_head];
    const double *stage = &ms.key;
    for (int k = 0; k < 6; k++)
        g[k] = (float)stage[k];
    v->graph_head = (v->graph_head + 1) % GRAPH_FRAMES;
    if (v->graph_n < GRAPH_FRAMES)
        v->graph_n++;
}

// The frame-time graph (while recording): the last GRAPH_FRAMES frames as
// bars stacked by stage, bottom left, scaled to the tallest.
static void draw_graph(viewer *v, int fb_w, int fb_h) {
    if (!v->profile || v->graph_n == 0)
        return;
    static const float colors[6][4] = {{0.35f, 0.55f, 0.85f, 0.9f}, {0.95f, 0.6f, 0.2f, 0.9f},
                                       {0.85f, 0.3f, 0.3f, 0.9f},   {0.45f, 0.75f, 0.75f, 0.9f},
                                       {0.35f, 0.7f, 0.35f, 0.9f},  {0.95f, 0.8f, 0.3f, 0.9f}};
    static const float panel[4] = {0.0f, 0.0f, 0.0f, 0.55f}, text[4] = {0.92f, 0.94f, 0.96f, 1.0f};
    float scale = fb_h >= 700 ? 2.0f : 1.0f, bar = scale, height = 60.0f * scale;
    float x0 = 8.0f * scale, y0 = (float)fb_h - 8.0f * scale; // bottom of the bars
    float tallest = 0.0f;
    for (uint32_t i = 0; i < v->graph_n; i++) {
        float sum = 0.0f;
        for (int k = 0; k < 6; k++)
            sum += v->graph[i][k];
        tallest = fmaxf(tallest, sum);
    }
    if (!(tallest > 0.0f))
        tallest = 1.0f;
    boids_render_rect(v->render, fb_w, fb_h, x0 - 4.0f * scale, y0 - height - 18.0f * scale,
                      GRAPH_FRAMES * bar + 8.0f * scale, height + 22.0f * scale, panel);
    char label[96];
    snprintf(label, sizeof label, "recording: stage ms, tallest %.2f ms (T stops)", (double)tallest);
    boids_render_text(v->render, fb_w, fb_h, x0, y0 - height - 14.0f * scale, scale, label, text);
    for (uint32_t i = 0; i < v->graph_n; i++) {
        const float *g = v->graph[(v->graph_head + GRAPH_FRAMES - v->graph_n + i) % GRAPH_FRAMES];
        float y = y0;
        for (int k = 0; k < 6; k++) {
            float h = g[k] / tallest * height;
            if (h <= 0.0f)
                continue;
            boids_render_rect(v->render, fb_w, fb_h, x0 + (float)i * bar, y - h, bar, h, colors[k]);
            y -= h;
        }
    }
}

// A key in the demo: R starts it again, S screenshot, H help, Esc quits.
static void demo_key(viewer *v, int key) {
    if (key == GLFW_KEY_ESCAPE) {
        v->quit = true;
    } else if (key == GLFW_KEY_S) {
        screenshot_key(v);
    } else if (key == GLFW_KEY_H || key == GLFW_KEY_F1) {
        v->help = !v->help;
    } else if (key == GLFW_KEY_R) {
        viewer_demo_init(v->demo, v->demo->snake ? "snake" : "chain");
        printf("reset: demo %s\n", v->o->demo);
        fflush(stdout);
    }
}

// The keys a flock and a replay share: C colour mode, S screenshot, Esc quit.
static void shared_key(viewer *v, int key) {
    switch (key) {
    case GLFW_KEY_C:
        v->mode = (boids_color_mode)((v->mode + 1) % BOIDS_COLOR_MODES);
        printf("color: %s\n", boids_color_mode_name(v->mode));
        fflush(stdout);
        break;
    case GLFW_KEY_S:
        screenshot_key(v);
        break;
    case GLFW_KEY_ESCAPE:
        v->quit = true;
        break;
    default:
        break;
    }
}

// --replay: writes the frame shown as CSV (boids_csv_write of the sim that
// holds it) to path; returns 0 or the exit status (error printed).
static int replay_csv(viewer *v, const char *path) {
    if (boids_csv_write(path, v->sim) != BOIDS_OK) {
        boids_cli_error(PROG, "--export-csv", path, NULL, "could not be written: %s", strerror(errno));
        return EXIT_ENVIRONMENT;
    }
    printf("exported: %s (frame %u, step %llu, %u agents)\n", path, v->rep_loaded, (unsigned long long)v->rep_step,
           v->sim->n);
    fflush(stdout);
    return 0;
}

// --replay: a key press (frames, play/pause, CSV; S, C and Esc as usual; the
// HUD lists the keys).
static void replay_key(viewer *v, int key) {
    uint32_t last = boids_recording_get_info(v->rec)->frames - 1;
    int64_t to = v->rep_frame;
    switch (key) {
    case GLFW_KEY_SPACE:
        v->rep_playing = !v->rep_playing;
        if (v->rep_playing && v->rep_frame == last)
            to = 0; // play again from the start
        break;
    case GLFW_KEY_RIGHT:
    case GLFW_KEY_PERIOD:
        to++;
        v->rep_playing = false;
        break;
    case GLFW_KEY_LEFT:
    case GLFW_KEY_COMMA:
        to--;
        v->rep_playing = false;
        break;
    case GLFW_KEY_UP:
        to += 10;
        break;
    case GLFW_KEY_DOWN:
        to -= 10;
        break;
    case GLFW_KEY_HOME:
        to = 0;
        break;
    case GLFW_KEY_END:
        to = last;
        break;
    case GLFW_KEY_E: {
        char path[64];
        free_name(path, sizeof path, "boids-frame-%04llu.csv", &v->rep_csvs);
        replay_csv(v, path);
        break;
    }
    default:
        shared_key(v, key);
        break;
    }
    v->rep_frame = (uint32_t)(to < 0 ? 0 : to > last ? last : to);
}

// --replay: loads frame rep_frame into the sim and the render's buffers if
// it is not there yet; a read error (the file changed) ends the replay.
static void replay_load(viewer *v) {
    if (v->rep_loaded == v->rep_frame)
        return;
    char err[512];
    boids_sim *s = v->sim;
    if (boids_recording_frame(v->rec, v->rep_frame, &v->rep_step, s->cur.pos, s->cur.vel, err, sizeof err) !=
        BOIDS_OK) {
        fprintf(stderr, "%s: --replay: %s\n", PROG, err);
        v->rep_failed = v->quit = true;
        return;
    }
    s->step = v->rep_step;
    v->rep_loaded = v->rep_frame;
    boids_render_upload(v->render, s);
    printf("frame: %u step %llu\n", v->rep_frame, (unsigned long long)v->rep_step);
    fflush(stdout);
}

// One key press, from the keyboard or the script.
static void press(viewer *v, int key) {
    if (v->demo) {
        demo_key(v, key);
        return;
    }
    if (v->rec) {
        replay_key(v, key);
        return;
    }
    static const uint32_t digit_bits[10] = {
        BOIDS_BIT(BOIDS_BI_PATH),      BOIDS_BIT(BOIDS_BI_SEPARATION),
        BOIDS_BIT(BOIDS_BI_ALIGNMENT), BOIDS_BIT(BOIDS_BI_COHESION),
        BOIDS_BIT(BOIDS_BI_SEEK),      BOIDS_BIT(BOIDS_BI_FLEE),
        BOIDS_BIT(BOIDS_BI_ARRIVE),    BOIDS_BIT(BOIDS_BI_PURSUE) | BOIDS_BIT(BOIDS_BI_EVADE),
        BOIDS_BIT(BOIDS_BI_WANDER),    BOIDS_BIT(BOIDS_BI_FLOW),
    };
    uint32_t bits = 0;
    if (key >= GLFW_KEY_0 && key <= GLFW_KEY_9)
        bits = digit_bits[key - GLFW_KEY_0];
    else if (key == GLFW_KEY_O)
        bits = BOIDS_BIT(BOIDS_BI_OBSTACLES);
    if (bits) {
        // A pair (pursue + evade) goes off if either is on.
        set_behaviors(v, bits, !(v->p.group[0].behaviors & bits));
        return;
    }
    boids_params before = v->p;
    switch (key) {
    case GLFW_KEY_B:
        v->p.world.boundary = (v->p.world.boundary + 1) % 3;
        if (refinalize(v, &before)) {
            printf("boundary: %s\n", boundary_name(v->p.world.boundary));
            fflush(stdout);
        }
        break;
    case GLFW_KEY_SPACE:
        v->paused = !v->paused;
        printf("%s\n", v->paused ? "paused" : "running");
        fflush(stdout);
        break;
    case GLFW_KEY_PERIOD:
        v->paused = true;
        v->step_once = true;
        break;
    case GLFW_KEY_R:
        if (reset(v) != BOIDS_OK) {
            if (!v->o->load) { // a snapshot that went missing keeps the flock running
                fprintf(stderr, "%s: reset failed: out of memory\n", PROG);
                v->quit = true;
            }
        } else if (v->o->load) {
            printf("reset: %s (step %llu)\n", v->o->load, (unsigned long long)v->sim->step);
        } else {
            printf("reset: seed %llu\n", (unsigned long long)v->o->seed);
        }
        fflush(stdout);
        break;
    case GLFW_KEY_W:
        save_key(v);
        break;
    case GLFW_KEY_H:
    case GLFW_KEY_F1:
        v->help = !v->help;
        break;
    case GLFW_KEY_K:
        cycle_bodies(v);
        break;
    case GLFW_KEY_T:
        if (v->profile)
            profile_stop(v);
        else
            profile_start(v);
        break;
    case GLFW_KEY_G:
    case GLFW_KEY_N:
    case GLFW_KEY_V:
    case GLFW_KEY_F:
    case GLFW_KEY_P: {
        bool *flag = key == GLFW_KEY_G   ? &v->show_grid
                     : key == GLFW_KEY_N ? &v->show_neighbors
                     : key == GLFW_KEY_V ? &v->show_vectors
                     : key == GLFW_KEY_F ? &v->show_flow
                                         : &v->show_path;
        static const char *const names[] = {"grid", "neighbors", "vectors", "flow", "path"};
        int k = key == GLFW_KEY_G ? 0 : key == GLFW_KEY_N ? 1 : key == GLFW_KEY_V ? 2 : key == GLFW_KEY_F ? 3 : 4;
        *flag = !*flag;
        printf("overlay: %s %s\n", names[k], *flag ? "on" : "off");
        fflush(stdout);
        break;
    }
    case GLFW_KEY_LEFT_BRACKET:
    case GLFW_KEY_RIGHT_BRACKET:
        v->selected = (v->selected + (key == GLFW_KEY_LEFT_BRACKET ? (int)TUNABLE_COUNT - 1 : 1)) % (int)TUNABLE_COUNT;
        break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_EQUAL: {
        const tunable *t = &tunables[v->selected];
        float k = key == GLFW_KEY_EQUAL ? 1.1f : 1.0f / 1.1f;
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
            boids_group_params *gp = &v->p.group[g];
            float *f =
                t->behavior >= 0 ? &gp->weight[t->behavior >> 2][t->behavior & 3] : (float *)((char *)gp + t->offset);
            *f = *f == 0.0f && k > 1.0f ? 0.1f : *f * k;
        }
        if (refinalize(v, &before)) {
            const boids_group_params *gp = &v->p.group[0];
            float f = t->behavior >= 0 ? gp->weight[t->behavior >> 2][t->behavior & 3]
                                       : *(const float *)((const char *)gp + t->offset);
            printf("param: %s = %g\n", t->name, (double)f);
            fflush(stdout);
        }
        break;
    }
    default:
        shared_key(v, key);
        break;
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    (void)mods;
    viewer *v = glfwGetWindowUserPointer(w);
    bool repeatable = key == GLFW_KEY_MINUS || key == GLFW_KEY_EQUAL || key == GLFW_KEY_PERIOD ||
                      key == GLFW_KEY_COMMA || key == GLFW_KEY_LEFT || key == GLFW_KEY_RIGHT || key == GLFW_KEY_UP ||
                      key == GLFW_KEY_DOWN;
    if (action == GLFW_PRESS || (action == GLFW_REPEAT && repeatable))
        press(v, key);
}

// Cursor position in NDC of the framebuffer's window.
static bool cursor_ndc(const viewer *v, double x, double y, float *nx, float *ny, float *aspect) {
    int ww, wh;
    glfwGetWindowSize(v->w, &ww, &wh);
    if (ww <= 0 || wh <= 0)
        return false;
    *nx = (float)(x / ww * 2.0 - 1.0);
    *ny = (float)(1.0 - y / wh * 2.0);
    *aspect = (float)ww / (float)wh;
    return true;
}

// The demo's mouse from the cursor at window (x, y): the canvas pixel under it.
static void demo_cursor(viewer *v, double x, double y) {
    float nx, ny, aspect, p[3];
    if (!cursor_ndc(v, x, y, &nx, &ny, &aspect))
        return;
    boids_camera_unproject(&v->cam, aspect, nx, ny, p);
    v->demo->mouse[0] = p[0];
    v->demo->mouse[1] = v->demo->canvas[1] - p[1];
    v->demo->have_mouse = true;
}

// The cursor moved to window (x, y): drag pans (2D) or rotates (3D); the
// point under it is the target.
static void cursor_moved(viewer *v, double x, double y) {
    if (v->demo) {
        demo_cursor(v, x, y);
        return;
    }
    float nx, ny, aspect, px, py;
    if (v->dragging && cursor_ndc(v, v->cursor_x, v->cursor_y, &px, &py, &aspect) &&
        cursor_ndc(v, x, y, &nx, &ny, &aspect)) {
        if (v->cam.dim == 3)
            boids_camera_orbit(&v->cam, (float)(x - v->cursor_x), (float)(y - v->cursor_y));
        else
            boids_camera_pan(&v->cam, aspect, nx - px, ny - py);
    }
    v->cursor_x = x;
    v->cursor_y = y;
    v->have_target = true;
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    cursor_moved(glfwGetWindowUserPointer(w), x, y);
}

// A scripted mouse move (--keys mouse=X,Y): the demo's canvas pixel, else
// the world point (x, y) (3D: at the centre's z), as if the
// cursor had moved over it.
static void script_mouse(viewer *v, float x, float y) {
    if (v->demo) {
        v->demo->mouse[0] = x;
        v->demo->mouse[1] = y;
        v->demo->have_mouse = true;
        return;
    }
    int ww, wh;
    glfwGetWindowSize(v->w, &ww, &wh);
    if (ww <= 0 || wh <= 0)
        return;
    float m[16], z = v->cam.center[2];
    boids_camera_matrix(&v->cam, (float)ww / (float)wh, m);
    float cx = m[0] * x + m[4] * y + m[8] * z + m[12], cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    float cw = m[3] * x + m[7] * y + m[11] * z + m[15];
    if (!(cw > 0.0f))
        return;
    cursor_moved(v, (cx / cw + 1.0) * 0.5 * ww, (1.0 - cy / cw) * 0.5 * wh);
}

// The left (or right) button: drag to pan / rotate; in the chain demo
// pressing grabs the joint under the mouse.
static void button(viewer *v, bool down) {
    if (!v->demo) {
        v->dragging = down;
        return;
    }
    if (!down) {
        viewer_demo_release(v->demo);
        return;
    }
    int joint = viewer_demo_press(v->demo);
    if (joint >= 0) {
        printf("demo: dragging joint %d\n", joint);
        fflush(stdout);
    }
}

static void on_button(GLFWwindow *w, int b, int action, int mods) {
    (void)mods;
    viewer *v = glfwGetWindowUserPointer(w);
    if (b == GLFW_MOUSE_BUTTON_LEFT || b == GLFW_MOUSE_BUTTON_RIGHT)
        button(v, action == GLFW_PRESS);
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    viewer *v = glfwGetWindowUserPointer(w);
    float nx, ny, aspect;
    if (cursor_ndc(v, v->cursor_x, v->cursor_y, &nx, &ny, &aspect))
        boids_camera_zoom(&v->cam, aspect, powf(0.88f, (float)dy), nx, ny);
}

// GL debug output of the CPU backend (the GPU backend installs its own).
static void GLAPIENTRY debug_message(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                     const GLchar *message, const void *user) {
    (void)source;
    (void)id;
    (void)length;
    (void)severity;
    viewer *v = (viewer *)user;
    if (type == GL_DEBUG_TYPE_ERROR) {
        v->gl_errors++;
        fprintf(stderr, "GL error: %s\n", message);
    }
}

// The mouse as the target of seek/flee/arrive/pursue/evade (its velocity
// per time unit for the predictions).
static void update_target(viewer *v) {
    float nx, ny, aspect, t[3];
    if (!v->have_target || !cursor_ndc(v, v->cursor_x, v->cursor_y, &nx, &ny, &aspect))
        return;
    boids_camera_unproject(&v->cam, aspect, nx, ny, t);
    memcpy(v->cursor_world, t, sizeof t);
    boids_world_params *w = &v->p.world;
    for (int a = 0; a < 3; a++) {
        if (a >= (int)w->dim) {
            t[a] = w->min[a];
        } else {
            float lo = w->min[a], hi = w->min[a] + w->size[a];
            t[a] = t[a] < lo ? lo : (t[a] > hi ? hi : t[a]);
        }
    }
    if (memcmp(t, v->last_target, sizeof t) == 0)
        return;
    for (int a = 0; a < 3; a++) {
        w->target_vel[a] = (t[a] - w->target_pos[a]) / (w->dt > 0.0f ? w->dt : 1.0f);
        w->target_pos[a] = t[a];
    }
    memcpy(v->last_target, t, sizeof t);
    v->params_dirty = true;
}

// The parameters of now into the CPU simulation (groups, scene, world but
// its step; the grid and the flow field stay).
static void sync_params(viewer *v) {
    boids_sim *s = v->sim;
    uint32_t step = s->p.world.step;
    memcpy(s->p.group, v->p.group, sizeof s->p.group);
    s->p.scene = v->p.scene;
    s->p.world = v->p.world;
    s->p.world.step = step;
}

// Writes the state of now to path (GPU: read back into the CPU simulation,
// with the parameters and bodies of now): 0, or 3 with one line printed.
static int save_state(viewer *v, const char *path) {
    boids_sim *s = v->sim;
    char err[1200];
    if (v->gpu) {
        uint32_t rows = boids_params_joint_rows(&v->p);
        if (rows != (s->joints ? s->joint_rows : 0u) || memcmp(s->p.body, v->p.body, sizeof s->p.body) != 0) {
            boids_result r = boids_sim_set_bodies(s, v->p.body); // K changed them on the GPU only
            if (r != BOIDS_OK) {
                fprintf(stderr, "%s: --save: %s: not saved: the bodies: %s\n", PROG, path, boids_result_str(r));
                return EXIT_ENVIRONMENT;
            }
        }
        // Only a read-back the check trusts before and after (a fault in
        // between may leave s partly overwritten): else check_fault stops.
        if (boids_gpu_check(v->gpu, NULL, 0) != BOIDS_OK || boids_gpu_download(v->gpu, s) != BOIDS_OK ||
            boids_gpu_check(v->gpu, NULL, 0) != BOIDS_OK) {
            v->state_untrusted = true;
            return 0; // check_fault says it, in its one line
        }
    }
    sync_params(v);
    if (boids_snapshot_save(s, v->scen, path, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: --save: %s\n", PROG, err);
        return EXIT_ENVIRONMENT;
    }
    printf("saved: %s (step %llu)\n", path, (unsigned long long)s->step);
    fflush(stdout);
    if (v->o->save && strcmp(path, v->o->save) == 0)
        v->saved_ok = (int64_t)s->step;
    return 0;
}

// After each frame: a lost context or a GL error of the GPU backend
// (boids_gpu_check), or a lost context of the CPU backend's window, stops the
// viewer with ONE line naming the fault and what --save holds: on the CPU
// backend the simulation is intact and is saved; the GPU's state cannot be
// read any more, so --save keeps the last --save-every / W snapshot. Returns
// 0, or 3 with v->faulted and v->quit set.
static int check_fault(viewer *v) {
    char what[1024];
    uint64_t step = v->gpu ? boids_gpu_steps(v->gpu) : v->sim->step;
    if (v->gpu) {
        if (boids_gpu_check(v->gpu, what, sizeof what) == BOIDS_OK)
            return 0;
    } else {
        GLenum st = glGetGraphicsResetStatus();
        if (st == GL_NO_ERROR)
            return 0;
        snprintf(what, sizeof what, "the OpenGL context was lost (%s reset) at step %llu",
                 st == GL_GUILTY_CONTEXT_RESET ? "guilty" : st == GL_INNOCENT_CONTEXT_RESET ? "innocent" : "unknown",
                 (unsigned long long)step);
    }
    char line[2048];
    int n = snprintf(line, sizeof line, "%s: --backend %s: %s; stopped", PROG, v->gpu ? "gpu" : "cpu", what);
    const char *save = v->o->save;
    if (save && !v->gpu && !v->state_untrusted) {
        char err[1200];
        sync_params(v);
        if (boids_snapshot_save(v->sim, v->scen, save, err, sizeof err) == BOIDS_OK)
            snprintf(line + n, sizeof line - (size_t)n, "; --save %s holds step %llu", save,
                     (unsigned long long)v->sim->step);
        else
            snprintf(line + n, sizeof line - (size_t)n, "; --save: %s", err);
    } else if (save && v->saved_ok >= 0) {
        snprintf(line + n, sizeof line - (size_t)n, "; --save %s holds step %lld (the last snapshot before the fault)",
                 save, (long long)v->saved_ok);
    } else if (save) {
        snprintf(line + n, sizeof line - (size_t)n,
                 "; --save %s not written (the GPU's state cannot be read after the fault; --save-every K keeps "
                 "one every K steps)",
                 save);
    }
    fflush(stdout);
    fprintf(stderr, "%s\n", line);
    v->faulted = v->quit = true;
    return EXIT_ENVIRONMENT;
}

// The W key: a snapshot to --save's FILE, else boids-NNNN.boids.
static void save_key(viewer *v) {
    char path[64];
    free_name(path, sizeof path, "boids-%04llu.boids", &v->saves);
    save_state(v, v->o->save ? v->o->save : path);
}

// Hands changed parameters to the simulation (groups, scene, world; the
// grid and the flow field stay).
static void apply_params(viewer *v) {
    if (!v->params_dirty)
        return;
    v->params_dirty = false;
    if (v->gpu)
        boids_gpu_set_params(v->gpu, &v->p);
    else
        sync_params(v);
}

// Appends a line segment.
static void seg(boids_line_vertex *l, size_t *n, const float a[3], const float b[3], const float c[4]) {
    if (*n + 2 > MAX_LINES)
        return;
    memcpy(l[*n].pos, a, 12);
    memcpy(l[*n].color, c, 16);
    memcpy(l[*n + 1].pos, b, 12);
    memcpy(l[*n + 1].color, c, 16);
    *n += 2;
}

// A circle of radius r around c in the plane of axes (i, j).
static void circle(boids_line_vertex *l, size_t *n, const float c[3], float r, int i, int j, const float col[4]) {
    for (int k = 0; k < 48; k++) {
        float a0 = (float)k / 48.0f * BOIDS_TWO_PI, a1 = (float)(k + 1) / 48.0f * BOIDS_TWO_PI;
        float p[3] = {c[0], c[1], c[2]}, q[3] = {c[0], c[1], c[2]};
        p[i] += r * cosf(a0);
        p[j] += r * sinf(a0);
        q[i] += r * cosf(a1);
        q[j] += r * sinf(a1);
        seg(l, n, p, q, col);
    }
}

// World box, path, obstacles and target as lines.
static size_t scene_lines(const viewer *v, boids_line_vertex *l) {
    static const float box[4] = {0.5f, 0.55f, 0.65f, 0.7f}, path[4] = {0.4f, 0.9f, 0.5f, 0.8f},
                       obst[4] = {1.0f, 0.45f, 0.35f, 0.9f}, target[4] = {1.0f, 1.0f, 1.0f, 0.9f};
    const boids_world_params *w = &v->p.world;
    const boids_scene *sc = &v->p.scene;
    uint32_t beh = v->p.group[0].behaviors;
    size_t n = 0;
    float lo[3] = {w->min[0], w->min[1], w->min[2]};
    float hi[3] = {w->min[0] + w->size[0], w->min[1] + w->size[1], w->min[2] + w->size[2]};
    for (int e = 0; e < 12; e++) { // the 12 edges of the box (4 in 2D)
        int axis = e / 4, b0 = e & 1, b1 = (e >> 1) & 1;
        if (w->dim == 2 && (axis == 2 || b1))
            continue;
        int u = (axis + 1) % 3, t = (axis + 2) % 3;
        float a[3], b[3];
        a[axis] = lo[axis];
        b[axis] = hi[axis];
        a[u] = b[u] = b0 ? hi[u] : lo[u];
        a[t] = b[t] = b1 ? hi[t] : lo[t];
        if (w->dim == 2) {
            a[2] = b[2] = 0.0f;
            if (axis == 1) // y edges of the rectangle: x at lo or hi
                a[0] = b[0] = b0 ? hi[0] : lo[0];
        }
        seg(l, &n, a, b, box);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_PATH)) || v->show_path) {
        uint32_t m = sc->path_count;
        for (uint32_t k = 0; k + 1 < m + (sc->path_closed ? 1u : 0u); k++)
            seg(l, &n, sc->path[k], sc->path[(k + 1) % m], path);
    }
    if (beh & BOIDS_BIT(BOIDS_BI_OBSTACLES)) {
        for (uint32_t k = 0; k < sc->obstacle_count; k++) {
            circle(l, &n, sc->obstacle[k], sc->obstacle[k][3], 0, 1, obst);
            if (w->dim == 3) {
                circle(l, &n, sc->obstacle[k], sc->obstacle[k][3], 0, 2, obst);
                circle(l, &n, sc->obstacle[k], sc->obstacle[k][3], 1, 2, obst);
            }
        }
    }
    uint32_t targeted = BOIDS_BIT(BOIDS_BI_SEEK) | BOIDS_BIT(BOIDS_BI_FLEE) | BOIDS_BIT(BOIDS_BI_ARRIVE) |
                        BOIDS_BIT(BOIDS_BI_PURSUE) | BOIDS_BIT(BOIDS_BI_EVADE);
    if (beh & targeted) {
        float r = 0.015f * (w->size[0] > w->size[1] ? w->size[0] : w->size[1]);
        for (int a = 0; a < (int)w->dim; a++) {
            float p[3] = {w->target_pos[0], w->target_pos[1], w->dim == 3 ? w->target_pos[2] : 0.0f}, q[3];
            memcpy(q, p, sizeof q);
            p[a] -= r;
            q[a] += r;
            seg(l, &n, p, q, target);
        }
    }
    return n;
}

// The HUD and the help overlay.
static void draw_hud(viewer *v, int fb_w, int fb_h) {
    static const float panel[4] = {0.0f, 0.0f, 0.0f, 0.55f}, text[4] = {0.92f, 0.94f, 0.96f, 1.0f};
    if (v->rec) { // --replay: the frame, its step, the keys
        const boids_recording_info *in = boids_recording_get_info(v->rec);
        char hud[1024];
        snprintf(hud, sizeof hud,
                 "replay %s   frame %u/%u   step %llu%s\n"
                 "%u agents  %uD  every %llu steps  colour %s%s\n"
                 "Space play/pause  Right/Left one frame  Up/Down 10  Home/End  E csv  Esc quit",
                 v->o->replay, v->rep_loaded + 1, in->frames, (unsigned long long)v->rep_step,
                 v->rep_playing ? "  PLAYING" : "  PAUSED", in->count, in->dim, (unsigned long long)in->every,
                 boids_color_mode_name(v->mode), in->truncated ? "  (truncated file)" : "");
        float scale = fb_h >= 700 ? 2.0f : 1.0f, w, h;
        boids_render_text_size(hud, scale, &w, &h);
        boids_render_rect(v->render, fb_w, fb_h, 0.0f, 0.0f, w + 16.0f * scale, h + 10.0f * scale, panel);
        boids_render_text(v->render, fb_w, fb_h, 8.0f * scale, 6.0f * scale, scale, hud, text);
        return;
    }
    boids_stage_ms ms;
    if (v->gpu)
        boids_gpu_stage_ms(v->gpu, &ms);
    else
        ms = v->sim->ms;
    const boids_group_params *gp = &v->p.group[0];
    const tunable *t = &tunables[v->selected];
    float value = t->behavior >= 0 ? gp->weight[t->behavior >> 2][t->behavior & 3]
                                   : *(const float *)((const char *)gp + t->offset);
    char behaviors[400], hud[2048];
    boids_behaviors_text(gp->behaviors, ",", behaviors, sizeof behaviors);
    uint64_t step = v->gpu ? boids_gpu_steps(v->gpu) : v->sim->step;
    snprintf(hud, sizeof hud,
             "FPS %.1f   frame %.2f ms   sim %.2f ms   step %llu%s\n"
             "sim ms  key %.2f  count %.2f  scan %.2f  scatter %.2f  steer %.2f  integrate %.2f  bodies %.2f\n"
             "%u agents  %uD  backend %s  boundary %s  colour %s  bodies %s%s%s\n"
             "%s\n"
             "behaviours: %s\n"
             "[ ] %s = %g   (H: help)",
             v->fps, v->frame_ms, v->step_ms, (unsigned long long)step, v->paused ? "  PAUSED" : "", ms.key, ms.count,
             ms.scan, ms.scatter, ms.steer, ms.integrate, ms.bodies, v->p.world.count, v->p.world.dim,
             v->gpu ? "gpu" : "cpu", boundary_name(v->p.world.boundary), boids_color_mode_name(v->mode),
             boids_body_style_name(v->body_style), v->body_error[0] ? "  " : "", v->body_error, v->renderer, behaviors,
             t->name, (double)value);
    float scale = fb_h >= 700 ? 2.0f : 1.0f, w, h;
    boids_render_text_size(hud, scale, &w, &h);
    boids_render_rect(v->render, fb_w, fb_h, 0.0f, 0.0f, w + 16.0f * scale, h + 10.0f * scale, panel);
    boids_render_text(v->render, fb_w, fb_h, 8.0f * scale, 6.0f * scale, scale, hud, text);
    if (v->help) {
        boids_render_text_size(help_text, scale, &w, &h);
        float x = 0.5f * ((float)fb_w - w), y = 0.5f * ((float)fb_h - h);
        boids_render_rect(v->render, fb_w, fb_h, x - 12.0f * scale, y - 10.0f * scale, w + 24.0f * scale,
                          h + 20.0f * scale, panel);
        boids_render_text(v->render, fb_w, fb_h, x, y, scale, help_text, text);
    }
}

// The G, F, N and V overlays. They read the GPU state back (debug views,
// off by default: the normal frame has no readback).
// `under`: the heat map, drawn before the agents; else the line overlays.
static void draw_overlays(viewer *v, const float view_proj[16], bool under) {
    if (under ? !v->show_grid : !(v->show_flow || v->show_neighbors || v->show_vectors))
        return;
    const boids_world_params *w = &v->p.world;
    uint32_t n = w->count, cells = w->cells[3];
    if (!v->overlay) {
        v->overlay_cap = (size_t)cells * 6 + 262144;
        v->overlay = malloc(v->overlay_cap * sizeof *v->overlay);
        if (v->gpu) {
            v->read_pos = malloc((size_t)n * 16 + 16);
            v->read_vel = malloc((size_t)n * 16 + 16);
            v->read_count = malloc((size_t)cells * 4 + 4);
        }
        if (!v->overlay || (v->gpu && (!v->read_pos || !v->read_vel || !v->read_count))) {
            fprintf(stderr, "%s: out of memory for the overlays\n", PROG);
            v->show_grid = v->show_flow = v->show_neighbors = v->show_vectors = false;
            return;
        }
    }
    size_t m = 0;
    if (under) {
        const uint32_t *counts = v->sim->grid.count;
        if (v->gpu && boids_gpu_read(v->gpu, BOIDS_GPU_COUNT, v->read_count, (size_t)cells * 4) == BOIDS_OK)
            counts = v->read_count;
        m = boids_overlay_grid(counts, w, v->overlay, 0, v->overlay_cap);
        boids_render_triangles(v->render, view_proj, v->overlay, m);
        return;
    }
    if (v->show_flow)
        m = boids_overlay_flow(&v->sim->p.flow, w, v->overlay, m, v->overlay_cap);
    if (v->show_neighbors || v->show_vectors) {
        const float(*pos)[4] = (const float(*)[4])v->sim->cur.pos, (*vel)[4] = (const float(*)[4])v->sim->cur.vel;
        if (v->gpu) {
            boids_gpu_read(v->gpu, BOIDS_GPU_POS, v->read_pos, (size_t)n * 16);
            boids_gpu_read(v->gpu, BOIDS_GPU_VEL, v->read_vel, (size_t)n * 16);
            pos = (const float(*)[4])v->read_pos;
            vel = (const float(*)[4])v->read_vel;
        }
        boids_params q = v->p;
        q.flow = v->sim->p.flow; // read only
        const float *point = v->have_target ? v->cursor_world : w->target_pos;
        uint32_t picked;
        m = boids_overlay_agent(&q, n, pos, vel, point, v->show_neighbors, v->show_vectors, v->overlay, m,
                                v->overlay_cap, &picked);
    }
    boids_render_lines(v->render, view_proj, v->overlay, m);
}

// One frame's drawing into a w x h framebuffer.
static void draw(viewer *v, int fb_w, int fb_h) {
    static boids_line_vertex lines[MAX_LINES];
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.05f, 0.06f, 0.08f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    float aspect = (float)fb_w / (float)fb_h;
    boids_agents_draw d = {
        .count = v->p.world.count, .dim = v->p.world.dim, .mode = v->mode, .maxspeed = v->p.group[0].maxspeed};
    boids_camera_matrix(&v->cam, aspect, d.view_proj);
    // About 5 pixels long whatever the zoom, never below 3 world units.
    float world_per_px = v->cam.dim == 3 ? 2.0f * v->cam.distance * tanf(0.5f * v->cam.fov_y) / (float)fb_h
                                         : 2.0f * v->cam.half_height / (float)fb_h;
    d.size = fmaxf(3.0f, 5.0f * world_per_px);
    if (v->gpu)
        boids_gpu_state_buffers(v->gpu, &d.pos, &d.vel, &d.group, &d.neighbors);
    else
        boids_render_own_buffers(v->render, &d.pos, &d.vel, &d.group, &d.neighbors);
    draw_overlays(v, d.view_proj, true);
    if (d.dim == 3)
        glEnable(GL_DEPTH_TEST);
    boids_bodies_draw b = {.count = d.count, .dim = d.dim, .body = v->p.body, .group = d.group};
    memcpy(b.view_proj, d.view_proj, sizeof b.view_proj);
    boids_camera_eye(&v->cam, b.eye);
    if (v->gpu) {
        b.joints = boids_gpu_joint_buffer(v->gpu, &b.rows);
        b.id = boids_gpu_id_buffer(v->gpu);
    } else {
        boids_render_own_body_buffers(v->render, &b.joints, &b.id, &b.rows);
    }
    boids_render_bodies(v->render, &b); // under the agents
    boids_render_agents(v->render, &d);
    b.eyes = true; // the eyes on the heads, over the agents
    boids_render_bodies(v->render, &b);
    glDisable(GL_DEPTH_TEST);
    boids_render_lines(v->render, d.view_proj, lines, scene_lines(v, lines));
    draw_overlays(v, d.view_proj, false);
    draw_hud(v, fb_w, fb_h);
    draw_graph(v, fb_w, fb_h);
}

// Applies the script's events of this frame.
static void run_script(viewer *v, const script_event *ev, size_t n, size_t *next) {
    for (; *next < n && ev[*next].frame <= v->frame; (*next)++) {
        const script_event *e = &ev[*next];
        if (e->key >= 0) {
            press(v, e->key);
        } else if (e->key == SCRIPT_MOUSE) {
            script_mouse(v, e->x, e->y);
        } else if (e->key == SCRIPT_PRESS || e->key == SCRIPT_RELEASE) {
            button(v, e->key == SCRIPT_PRESS);
        } else if (e->width == 0) {
            // A minimised window has a 0x0 framebuffer; without a window
            // manager (Xvfb) iconifying may do nothing, so the frames until
            // the next resize are treated as 0x0 either way.
            glfwIconifyWindow(v->w);
            v->forced_zero = true;
            printf("resize: 0x0\n");
        } else {
            if (v->forced_zero)
                glfwRestoreWindow(v->w);
            v->forced_zero = false;
            glfwSetWindowSize(v->w, e->width, e->height);
            printf("resize: %dx%d\n", e->width, e->height);
        }
        fflush(stdout);
    }
}

// One frame of the demo into a w x h framebuffer: its background, its
// triangles and lines, a line of text (and the help).
static void draw_demo(viewer *v, int fb_w, int fb_h) {
    static boids_line_vertex tris[16384], lines[4096];
    static const float panel[4] = {0.0f, 0.0f, 0.0f, 0.55f}, text[4] = {0.92f, 0.94f, 0.96f, 1.0f};
    const viewer_demo *d = v->demo;
    float bg[3], m[16];
    viewer_demo_background(d, bg);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(bg[0], bg[1], bg[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    boids_camera_matrix(&v->cam, (float)fb_w / (float)fb_h, m);
    boids_render_triangles(v->render, m, tris, viewer_demo_triangles(d, tris, 0, sizeof tris / sizeof tris[0]));
    boids_render_lines(v->render, m, lines, viewer_demo_lines(d, lines, 0, sizeof lines / sizeof lines[0]));
    const char *line = d->snake ? "demo snake: the head follows the mouse   R restart  H help  Esc quit"
                                : "demo chain: drag a joint with the mouse   R restart  H help  Esc quit";
    const char *help = "procedural-animation-chains\n"
                       "chain: press within 10 px of a joint and drag it;\n"
                       "the others keep their distances (Chain.resolve)\n"
                       "snake: the head eases toward the mouse, every joint\n"
                       "within pi/8 of the one before (Snake2)\n"
                       "R restart  S screenshot  H help  Esc quit";
    float w, h;
    boids_render_text_size(v->help ? help : line, 1.0f, &w, &h);
    boids_render_rect(v->render, fb_w, fb_h, 0.0f, 0.0f, w + 12.0f, h + 8.0f, panel);
    boids_render_text(v->render, fb_w, fb_h, 6.0f, 5.0f, 1.0f, v->help ? help : line, text);
}

// After a frame is drawn: the --screenshot of the last frame, then the
// swap. A frame without pixels (minimised) is not drawn; as the last frame
// of --screenshot it is an error. Returns nonzero when the screenshot failed.
static int present_frame(viewer *v, const boids_options *o, int fb_w, int fb_h, bool last_frame) {
    char err[512];
    int rc = 0;
    if (fb_w > 0 && fb_h > 0) {
        if (last_frame && o->screenshot) {
            if (boids_render_screenshot(o->screenshot, fb_w, fb_h, err, sizeof err) != BOIDS_OK) {
                fprintf(stderr, "%s: %s\n", PROG, err);
                rc = EXIT_ENVIRONMENT;
            } else {
                printf("screenshot: %s (%dx%d)\n", o->screenshot, fb_w, fb_h);
            }
        }
        glfwSwapBuffers(v->w);
    } else if (last_frame && o->screenshot) {
        fprintf(stderr, "%s: --screenshot: '%s' not written: the last frame had no pixels (minimised)\n", PROG,
                o->screenshot);
        rc = EXIT_ENVIRONMENT;
    } else if (!o->frames) {
        glfwWaitEventsTimeout(0.02); // minimised: keep polling, gently
    }
    return rc;
}

// --demo: the notebook's demo instead of a flock (CPU only, no
// simulation): each frame the script, p5's draw() and the picture. The
// camera shows the canvas. Returns the exit status.
static int run_demo(viewer *v, const script_event *script, size_t n_script) {
    const boids_options *o = v->o;
    static viewer_demo demo;
    viewer_demo_init(&demo, o->demo);
    v->demo = &demo;
    char err[4096];
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(debug_message, v);
    boids_render_desc rd = {.shader_dir = o->shader_dir};
    boids_result r = boids_render_create(&v->render, &rd, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return r == BOIDS_ERR_SHADER ? EXIT_INPUT : EXIT_ENVIRONMENT;
    }
    int fb_w, fb_h, drawn_w = 0, drawn_h = 0, rc = 0;
    glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
    float aspect = fb_h > 0 ? (float)fb_w / (float)fb_h : 1.0f;
    boids_world_params canvas = {.dim = 2, .size = {demo.canvas[0], demo.canvas[1], 0.0f}};
    boids_camera_fit(&v->cam, &canvas, aspect);
    v->cam.half_height = 0.5f * fmaxf(demo.canvas[1], demo.canvas[0] / aspect); // the canvas, no margin
    glfwSetWindowUserPointer(v->w, v);
    glfwSetKeyCallback(v->w, on_key);
    glfwSetCursorPosCallback(v->w, on_cursor);
    glfwSetMouseButtonCallback(v->w, on_button);
    glfwSetScrollCallback(v->w, on_scroll);
    printf("boids %s: demo %s, %u joints, canvas %gx%g, renderer '%s', OpenGL %s\n", BOIDS_VERSION, o->demo, demo.n,
           (double)demo.canvas[0], (double)demo.canvas[1], v->renderer, v->gl_version);
    fflush(stdout);
    size_t next_event = 0;
    while (!v->quit && !glfwWindowShouldClose(v->w)) {
        v->frame++;
        glfwPollEvents();
        run_script(v, script, n_script, &next_event);
        viewer_demo_frame(&demo);
        glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
        if (v->forced_zero)
            fb_w = fb_h = 0;
        bool last_frame = o->frames && v->frame >= o->frames;
        if (fb_w > 0 && fb_h > 0) {
            draw_demo(v, fb_w, fb_h);
            drawn_w = fb_w;
            drawn_h = fb_h;
        }
        if (present_frame(v, o, fb_w, fb_h, last_frame))
            rc = EXIT_ENVIRONMENT;
        if (last_frame)
            break;
    }
    printf("demo: head %.1f,%.1f\n", (double)demo.joints[0][0], (double)demo.joints[0][1]);
    printf("frames: %llu, steps 0, last frame %dx%d, gl-errors %u\n", (unsigned long long)v->frame, drawn_w, drawn_h,
           v->gl_errors);
    if (v->gl_errors) {
        boids_cli_error(PROG, NULL, NULL, NULL, "OpenGL reported %u errors", v->gl_errors);
        rc = EXIT_ENVIRONMENT;
    }
    return rc;
}

// --replay: the recording instead of a simulation. A sim of the recording's
// size and world holds the frame shown (its parameters are the defaults:
// only the drawing uses them) and goes to the render's own buffers; each
// frame the script, the keys, then the picture; playing advances one
// recorded frame per drawn frame. --export-frames writes every frame from
// --frame on as a PNG and exits. Returns the exit status.
static int run_replay(viewer *v, const script_event *script, size_t n_script) {
    const boids_options *o = v->o;
    const boids_recording_info *in = boids_recording_get_info(v->rec);
    char err[4096];
    boids_params p;
    boids_params_default(&p, in->count, in->dim);
    p.world.group_count = in->group_count;
    for (uint32_t g = 0; g < in->group_count; g++) {
        p.group[g] = p.group[0];
        p.group_share[g] = 1.0f;
    }
    for (int a = 0; a < 3; a++) {
        p.world.min[a] = in->min[a];
        p.world.size[a] = in->size[a];
    }
    char what[256] = "";
    boids_result r = boids_params_finalize(&p, what, sizeof what);
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, "--replay", o->replay, NULL, "cannot be shown: %s (%s)", boids_result_str(r), what);
        return EXIT_INPUT;
    }
    if ((r = boids_sim_create(&v->sim, &p, BOIDS_DIST_UNIFORM)) != BOIDS_OK) {
        boids_cli_error(PROG, "--replay", o->replay, NULL, "cannot be shown: %s", boids_result_str(r));
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    v->p = v->sim->p;
    for (uint32_t i = 0; i < in->count; i++) { // id order in every slot
        v->sim->cur.id[i] = i;
        v->sim->cur.group[i] = in->group[i];
    }
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(debug_message, v);
    boids_render_desc rd = {.shader_dir = o->shader_dir, .own_count = in->count};
    if ((r = boids_render_create(&v->render, &rd, err, sizeof err)) != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return r == BOIDS_ERR_SHADER ? EXIT_INPUT : EXIT_ENVIRONMENT;
    }
    int fb_w, fb_h, drawn_w = 0, drawn_h = 0, rc = 0;
    glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
    boids_camera_fit(&v->cam, &v->p.world, fb_h > 0 ? (float)fb_w / (float)fb_h : 1.0f);
    glfwSetWindowUserPointer(v->w, v);
    glfwSetKeyCallback(v->w, on_key);
    glfwSetCursorPosCallback(v->w, on_cursor);
    glfwSetMouseButtonCallback(v->w, on_button);
    glfwSetScrollCallback(v->w, on_scroll);
    printf("boids %s: replay %s, %u frames (every %llu steps), %u agents, %uD, renderer '%s', OpenGL %s\n",
           BOIDS_VERSION, o->replay, in->frames, (unsigned long long)in->every, in->count, in->dim, v->renderer,
           v->gl_version);
    if (in->truncated)
        fprintf(stderr, "%s: --replay: warning: %s: %s; the %u frames before it are shown\n", PROG, o->replay, in->note,
                in->frames);
    fflush(stdout);
    v->rep_loaded = UINT32_MAX;
    v->rep_frame = o->frame;
    v->rep_playing = !o->export_frames;
    uint32_t exported = 0;
    bool csv_done = false;
    size_t next_event = 0;
    while (!v->quit && !glfwWindowShouldClose(v->w)) {
        v->frame++;
        glfwPollEvents();
        run_script(v, script, n_script, &next_event);
        if (o->export_frames)
            v->rep_frame = o->frame + exported;
        replay_load(v);
        if (v->rep_failed) {
            rc = EXIT_INPUT;
            break;
        }
        if (o->export_csv && !csv_done) { // --export-csv: the --frame of the recording
            csv_done = true;
            if ((rc = replay_csv(v, o->export_csv)))
                break;
        }
        glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
        if (v->forced_zero)
            fb_w = fb_h = 0;
        bool last_frame = (o->frames && v->frame >= o->frames) || (o->export_frames && v->rep_frame + 1 >= in->frames);
        if (fb_w > 0 && fb_h > 0) {
            draw(v, fb_w, fb_h);
            drawn_w = fb_w;
            drawn_h = fb_h;
        }
        if (o->export_frames) {
            char path[4096];
            snprintf(path, sizeof path, "%s/frame-%05u.png", o->export_frames, v->rep_frame);
            if (fb_w <= 0 || fb_h <= 0) {
                boids_cli_error(PROG, "--export-frames", o->export_frames, NULL,
                                "frame %u not written: the window has no pixels (minimised)", v->rep_frame);
                rc = EXIT_ENVIRONMENT;
                break;
            }
            if (boids_render_screenshot(path, fb_w, fb_h, err, sizeof err) != BOIDS_OK) {
                fprintf(stderr, "%s: --export-frames: %s\n", PROG, err);
                rc = EXIT_ENVIRONMENT;
                break;
            }
            exported++;
        }
        if (present_frame(v, o, fb_w, fb_h, last_frame))
            rc = EXIT_ENVIRONMENT;
        if (v->rep_playing) { // the next recorded frame; the last one pauses
            if (v->rep_frame + 1 < in->frames)
                v->rep_frame++;
            else
                v->rep_playing = false;
        }
        if (last_frame)
            break;
    }
    if (o->export_frames && !rc)
        printf("exported: %s (%u frames)\n", o->export_frames, exported);
    printf("frames: %llu, replayed frame %u of %u (step %llu), last frame %dx%d, gl-errors %u\n",
           (unsigned long long)v->frame, v->rep_loaded, in->frames, (unsigned long long)v->rep_step, drawn_w, drawn_h,
           v->gl_errors);
    if (v->gl_errors) {
        boids_cli_error(PROG, NULL, NULL, NULL, "OpenGL reported %u errors", v->gl_errors);
        rc = EXIT_ENVIRONMENT;
    }
    return rc;
}

// --replay: opens and checks the recording and the replay's outputs before
// any window (a bad file is one line, exit 2). Returns 0 or the exit status.
static int replay_open(const boids_options *o, boids_recording **rec) {
    const uint64_t only_flow = BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_COUNT | BOIDS_CLI_COUNTS | BOIDS_CLI_DISTRIBUTION |
                               BOIDS_CLI_BACKEND | BOIDS_CLI_DEMO | BOIDS_CLI_PROFILE | BOIDS_CLI_LOAD |
                               BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY;
    if (o->flags_given & only_flow) {
        boids_cli_error(PROG, "--replay", o->replay, "the viewer's own options (--width, --frames, --keys, ...)",
                        "plays a recording: flags that set up a simulation cannot be given with it");
        return EXIT_INPUT;
    }
    char err[1024];
    if (boids_recording_open(o->replay, rec, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: --replay: %s\n", PROG, err);
        return EXIT_INPUT;
    }
    const boids_recording_info *in = boids_recording_get_info(*rec);
    if (in->frames == 0) {
        boids_cli_error(PROG, "--replay", o->replay, NULL, "holds no complete frame%s%s", in->truncated ? ": " : "",
                        in->note);
        return EXIT_INPUT;
    }
    if (o->frame >= in->frames) {
        char given[32], expected[64];
        snprintf(given, sizeof given, "%u", o->frame);
        snprintf(expected, sizeof expected, "a frame 0..%u of '%s'", in->frames - 1, o->replay);
        boids_cli_error(PROG, "--frame", given, expected, "is past the recording's last frame");
        return EXIT_INPUT;
    }
    struct stat st;
    if (o->export_frames &&
        (stat(o->export_frames, &st) != 0 || !S_ISDIR(st.st_mode) || access(o->export_frames, W_OK) != 0)) {
        boids_cli_error(PROG, "--export-frames", o->export_frames, "an existing, writable directory", "is not one");
        return EXIT_INPUT;
    }
    int checked;
    if (o->export_csv && (checked = boids_cli_check_output(PROG, "--export-csv", o->export_csv,
                                                           "a file path in an existing, writable directory")))
        return checked;
    return 0;
}

// Is the renderer a software one (llvmpipe, softpipe, SwiftShader)?
static bool software_renderer(const char *r) {
    return strstr(r, "llvmpipe") || strstr(r, "softpipe") || strstr(r, "SwiftShader") || strstr(r, "Software");
}

static int run(const boids_options *o) {
    static script_event script[MAX_SCRIPT];
    size_t n_script = 0, next_event = 0;
    if (o->keys && parse_script(o->keys, script, &n_script))
        return EXIT_INPUT;
    int checked;
    if (o->screenshot && (checked = boids_cli_check_output(PROG, "--screenshot", o->screenshot,
                                                           "a PNG file path in an existing, writable directory")))
        return checked;
    if (o->export_csv && !o->replay) {
        boids_cli_error(PROG, "--export-csv", o->export_csv, "--replay FILE with it",
                        "needs --replay (the viewer exports a recorded frame)");
        return EXIT_INPUT;
    }
    if (o->demo && (o->flags_given & (BOIDS_CLI_LOAD | BOIDS_CLI_SAVE))) {
        boids_cli_error(PROG, "--demo", o->demo, "--demo without --load and --save",
                        "has no flock to load or save");
        return EXIT_INPUT;
    }
    if (o->save && (checked = boids_cli_check_output(PROG, "--save", o->save,
                                                     "a file path in an existing, writable directory")))
        return checked;
    boids_recording *rec = NULL;
    if (o->replay && (checked = replay_open(o, &rec))) {
        boids_recording_close(rec);
        return checked;
    }
    bool use_gpu = !o->replay && (!(o->flags_given & BOIDS_CLI_BACKEND) || strcmp(o->backend, "gpu") == 0);
    char fault_err[512];
    if (use_gpu && !o->demo && boids_gpu_fault_parse(getenv("BOIDS_FAULT"), fault_err, sizeof fault_err) != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, fault_err);
        boids_recording_close(rec);
        return EXIT_INPUT;
    }
    viewer *v = calloc(1, sizeof *v);
    if (!v) {
        boids_recording_close(rec);
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    v->rec = rec;
    v->o = o;
    if (!(v->scen = malloc(sizeof *v->scen))) {
        boids_recording_close(rec);
        free(v);
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    if (o->load) { // before any window: a bad file is one line, exit 2
        char lerr[1200];
        boids_result r = boids_snapshot_load(o->load, &v->sim, v->scen, lerr, sizeof lerr);
        if (r != BOIDS_OK) {
            fprintf(stderr, "%s: --load: %s\n", PROG, lerr);
            free(v->scen);
            free(v);
            return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
        }
    }
    v->dist = (boids_distribution)o->distribution;
    int rc = 0;
    char err[4096];
    bool no_display = false;
    boids_window_desc wd = {.title = "boids", .width = (int)o->width, .height = (int)o->height, .vsync = o->vsync};
    if (o->demo) { // the window is the notebook's canvas unless sized
        int side = strcmp(o->demo, "snake") == 0 ? 600 : 400;
        if (!(o->flags_given & BOIDS_CLI_WIDTH))
            wd.width = side;
        if (!(o->flags_given & BOIDS_CLI_HEIGHT))
            wd.height = side;
    }
    if (boids_window_create(&v->win, &wd, &no_display, err, sizeof err) != BOIDS_OK) {
        if (no_display)
            fprintf(stderr,
                    "%s: %s; expected a display (DISPLAY or WAYLAND_DISPLAY): run it under a virtual X server, "
                    "xvfb-run -a boids ..., or headless with boids-run --count N --steps S\n",
                    PROG, err);
        else
            fprintf(stderr,
                    "%s: %s; expected OpenGL 4.5 core: the viewer draws with it on both backends (--backend cpu "
                    "too), so neither works here: use boids-run --backend cpu for a headless run%s\n",
                    PROG, err, strstr(err, "llvmpipe") ? "" : ", or Mesa's llvmpipe (LIBGL_ALWAYS_SOFTWARE=1)");
        boids_recording_close(v->rec);
        boids_sim_destroy(v->sim);
        free(v->scen);
        free(v);
        return EXIT_ENVIRONMENT;
    }
    v->w = boids_window_glfw(v->win);
    int version = gladLoadGL((GLADloadfunc)boids_window_loader(v->win));
    snprintf(v->renderer, sizeof v->renderer, "%s", version ? (const char *)glGetString(GL_RENDERER) : "?");
    snprintf(v->gl_version, sizeof v->gl_version, "%s", version ? (const char *)glGetString(GL_VERSION) : "?");
    if (!version || GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 45) {
        fprintf(stderr,
                "%s: no OpenGL 4.5 core context: found OpenGL '%s' on '%s'; expected 4.5 core (both backends "
                "draw with it): use boids-run --backend cpu for a headless run\n",
                PROG, v->gl_version, v->renderer);
        rc = EXIT_ENVIRONMENT;
        goto done;
    }
    if (o->demo) {
        rc = run_demo(v, script, n_script);
        goto done;
    }
    if (v->rec) {
        rc = run_replay(v, script, n_script);
        goto done;
    }
    bool software = software_renderer(v->renderer);
    uint32_t count = o->count_set ? o->count : (use_gpu && !software ? COUNT_HARDWARE : COUNT_SOFTWARE);
    if (o->load) { // the snapshot's simulation, parameters and scenario (loaded above)
        v->sim->threads = o->threads;
        v->p = v->sim->p;
        v->p.flow.vec = NULL; // the sim's own
        count = v->sim->n;
        // The saved target stays until the mouse moves it.
        memcpy(v->last_target, v->p.world.target_pos, sizeof v->last_target);
    } else if (boids_options_params(o, count, &v->p, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        rc = EXIT_INPUT;
        goto done;
    } else {
        boids_options_scenario(o, &v->p, v->scen);
    }
    // Simulations are created with the flow field on, so that the 9 key
    // has a field to follow; the behaviours asked for are set right after.
    v->p_create = v->p;
    v->p_create.group[0].behaviors |= BOIDS_BIT(BOIDS_BI_FLOW);
    if (!o->load && reset(v) != BOIDS_OK) {
        boids_cli_error(PROG, "--count", NULL, NULL, "cannot create a simulation of %u agents: out of memory", count);
        rc = EXIT_ENVIRONMENT;
        goto done;
    }
    v->saved_step = v->sim->step;
    v->saved_ok = -1;
    if (use_gpu) {
        boids_gpu_desc gd = {.params = &v->p_create,
                             .load = boids_window_loader(v->win),
                             .shader_dir = o->shader_dir,
                             .silent_errors = true}; // check_fault prints the first
        boids_result r = boids_gpu_create(&v->gpu, &gd, err, sizeof err);
        if (r != BOIDS_OK) {
            fprintf(stderr, "%s: %s%s\n", PROG, err,
                    r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER ? "" : "; try --backend cpu");
            rc = r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER ? EXIT_INPUT : EXIT_ENVIRONMENT;
            goto done;
        }
        boids_gpu_upload(v->gpu, v->sim); // agents, joints and step
    } else {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(debug_message, v);
    }
    v->params_dirty = true;
    v->body_style = o->body_style_set ? o->body_style : v->p.body[0].style;
    boids_render_desc rd = {.shader_dir = o->shader_dir, .own_count = use_gpu ? 0 : count};
    boids_result r = boids_render_create(&v->render, &rd, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        rc = r == BOIDS_ERR_SHADER ? EXIT_INPUT : EXIT_ENVIRONMENT;
        goto done;
    }
    boids_render_set_palette(v->render, (const float(*)[4])v->scen->color, v->scen->color_set);
    int fb_w, fb_h;
    glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
    boids_camera_fit(&v->cam, &v->p.world, fb_h > 0 ? (float)fb_w / (float)fb_h : 1.0f);
    glfwSetWindowUserPointer(v->w, v);
    glfwSetKeyCallback(v->w, on_key);
    glfwSetCursorPosCallback(v->w, on_cursor);
    glfwSetMouseButtonCallback(v->w, on_button);
    glfwSetScrollCallback(v->w, on_scroll);

    const boids_world_params *w = &v->p.world;
    char world[96];
    if (w->dim == 3)
        snprintf(world, sizeof world, "%gx%gx%g", (double)w->size[0], (double)w->size[1], (double)w->size[2]);
    else
        snprintf(world, sizeof world, "%gx%g", (double)w->size[0], (double)w->size[1]);
    const char *why = o->load                ? " (from --load)"
                      : o->count_set           ? ""
                      : use_gpu && !software ? " (default for a hardware GPU)"
                      : use_gpu              ? " (default for a software renderer)"
                                             : " (default for the CPU backend)";
    printf("boids %s: %u agents%s, %uD, world %s, boundary %s, seed %llu, backend %s, renderer '%s', "
           "OpenGL %s, %s\n",
           BOIDS_VERSION, count, why, w->dim, world, boundary_name(w->boundary),
           (unsigned long long)((uint64_t)w->seed_hi << 32 | w->seed_lo), use_gpu ? "gpu" : "cpu", v->renderer,
           v->gl_version, boids_window_describe(v->win));
    print_behaviors(v);
    if (o->profile && (rc = profile_start(v)) != 0)
        goto done;

    double last = now_seconds(), fps_start = last;
    uint64_t fps_frames = 0;
    int drawn_w = 0, drawn_h = 0;
    while (!v->quit && !glfwWindowShouldClose(v->w)) {
        v->frame++;
        glfwPollEvents();
        run_script(v, script, n_script, &next_event);
        const boids_scenario *sc = v->scen;
        if (boids_scenario_is_dynamic(sc) && (!v->paused || v->step_once)) {
            // The scenario's circling target and varying weights at this step.
            boids_scenario_at_step(sc, v->gpu ? boids_gpu_steps(v->gpu) : v->sim->step, &v->p);
            v->params_dirty = true;
        }
        if (sc->target_mode != BOIDS_TARGET_CIRCLE)
            update_target(v);
        apply_params(v);
        if (!v->paused || v->step_once) {
            double t0 = now_seconds();
            if (v->gpu) {
                boids_gpu_step(v->gpu);
            } else {
                boids_sim_step(v->sim);
                boids_render_upload(v->render, v->sim);
                v->bodies_dirty = true;
            }
            v->step_ms = (now_seconds() - t0) * 1e3;
            v->step_once = false;
            uint64_t steps = v->gpu ? boids_gpu_steps(v->gpu) : v->sim->step;
            // A save due in the frame of a fault is left to check_fault (save_state checks too).
            if (o->save && o->save_every && steps % o->save_every == 0 && steps != v->saved_step) {
                v->saved_step = steps;
                if (save_state(v, o->save)) { // one line, then stop as boids-run does
                    rc = EXIT_ENVIRONMENT;
                    v->quit = v->save_failed = true;
                }
            }
        }
        if (!v->gpu && v->bodies_dirty) {
            boids_render_upload_bodies(v->render, v->sim);
            v->bodies_dirty = false;
        }
        glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
        if (v->forced_zero)
            fb_w = fb_h = 0;
        bool last_frame = o->frames && v->frame >= o->frames;
        if (fb_w > 0 && fb_h > 0) {
            double d0 = now_seconds();
            draw(v, fb_w, fb_h);
            v->draw_ms = (now_seconds() - d0) * 1e3;
            drawn_w = fb_w;
            drawn_h = fb_h;
        }
        if (present_frame(v, o, fb_w, fb_h, last_frame))
            rc = EXIT_ENVIRONMENT;
        if (check_fault(v))
            rc = EXIT_ENVIRONMENT;
        double t = now_seconds();
        v->frame_ms = (t - last) * 1e3;
        last = t;
        profile_frame(v);
        fps_frames++;
        if (t - fps_start >= 0.5 || v->fps == 0.0) {
            v->fps = (double)fps_frames / (t - fps_start);
            fps_start = t;
            fps_frames = 0;
        }
        if (last_frame || v->faulted)
            break;
    }
    if (v->profile && profile_stop(v) != 0)
        rc = EXIT_ENVIRONMENT;
    if (v->faulted)
        goto done; // its line is printed; nothing more can be read from the GPU
    if (o->save && !v->save_failed && save_state(v, o->save))
        rc = EXIT_ENVIRONMENT;
    if (check_fault(v)) { // one that came with the last read-back
        rc = EXIT_ENVIRONMENT;
        goto done;
    }
    uint32_t errors = v->gpu ? boids_gpu_debug_errors(v->gpu) : v->gl_errors;
    printf("frames: %llu, steps %llu, last frame %dx%d, gl-errors %u\n", (unsigned long long)v->frame,
           (unsigned long long)(v->gpu ? boids_gpu_steps(v->gpu) : v->sim->step), drawn_w, drawn_h, errors);
    if (errors) {
        boids_cli_error(PROG, NULL, NULL, NULL, "OpenGL reported %u errors", errors);
        rc = EXIT_ENVIRONMENT;
    }
done:
    boids_render_destroy(v->render);
    boids_gpu_destroy(v->gpu);
    boids_sim_destroy(v->sim);
    free(v->overlay);
    free(v->read_pos);
    free(v->read_vel);
    free(v->read_count);
    free(v->scen);
    if (v->win && (v->demo || (!v->gpu && !use_gpu)))
        glDebugMessageCallback(NULL, NULL);
    boids_recording_close(v->rec);
    boids_window_destroy(v->win);
    free(v);
    if (fflush(stdout) != 0)
        rc = EXIT_ENVIRONMENT;
    return rc;
}

// boids: parse, run, exit 0 / 2 / 3.
int main(int argc, char **argv) {
    static const boids_cli_spec spec = {
        .prog = PROG,
        .usage = usage,
        .usage_more = usage_keys,
        .flags = BOIDS_CLI_COUNT | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_BACKEND | BOIDS_CLI_SHADER_DIR | BOIDS_CLI_THREADS |
                 BOIDS_CLI_DISTRIBUTION | BOIDS_CLI_WIDTH | BOIDS_CLI_HEIGHT | BOIDS_CLI_VSYNC | BOIDS_CLI_FRAMES |
                 BOIDS_CLI_SCREENSHOT | BOIDS_CLI_KEYS | BOIDS_CLI_PROFILE | BOIDS_CLI_DEMO | BOIDS_CLI_REPLAY |
                 BOIDS_CLI_EXPORT_FRAMES | BOIDS_CLI_FRAME | BOIDS_CLI_EXPORT_CSV | BOIDS_CLI_SAVE |
                 BOIDS_CLI_SAVE_EVERY | BOIDS_CLI_LOAD,
    };
    boids_options o;
    int r = boids_cli_parse(argc, argv, &spec, &o);
    if (r == 1)
        return fflush(stdout) == 0 ? 0 : EXIT_ENVIRONMENT;
    if (r != 0)
        return EXIT_INPUT;
    r = run(&o);
    boids_options_free(&o);
    return r;
}
