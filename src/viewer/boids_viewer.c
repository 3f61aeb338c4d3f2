// src/viewer/boids_viewer.c: boids, the viewer. A GLFW window (OpenGL 4.5
// core) and ONE frame loop that runs one mode (viewer.h): the flock
// (viewer_flock.c: each frame one step of the simulation, drawn straight
// from its buffers), a recording (--replay FILE of boids-run --record,
// viewer_replay.c) or the notebook's demos (--demo chain|snake,
// viewer_demo_mode.c). Here, at the top of the viewer's layers: the
// options, the window, the loop with the script (--keys), the swap and
// --screenshot, the GLFW callbacks. What the parts share: viewer.c; the key
// table: viewer_key_table.c, its dispatch: viewer_keys.c. The enabled set is
// printed on stdout whenever it changes ("behaviors: ..."), so scripts and
// tests can follow it.
// Exit status: 0 done, 2 bad arguments, 3 environment (no display, no
// OpenGL 4.5, GL errors, a screenshot that cannot be written, --video
// without ffmpeg or ffmpeg failing: viewer_video.c).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "gl_util.h"
#include "viewer.h"
#include "viewer_video.h"

static const char usage[] = // the usage lines and what it does, before the flags
    "usage: boids [options]\n"
    "       boids --replay FILE [--frame N] [--export-frames DIR]\n"
    "       boids --demo NAME\n"
    "       boids [--replay FILE] --video FILE.mp4 [--video-fps N] [--frames K]\n"
    "Opens a window and runs the flock: the OpenGL compute shaders (default) or the C reference, drawn each frame "
    "straight from the simulation's buffers.\n";

// What the flags mean here, where the viewer differs from the table.
static const boids_cli_help help[] = {
    {.bit = BOIDS_CLI_COUNT,
     .text = "agents, 1..16777216 (default 200000 on a hardware GPU, 20000 on a software renderer such as "
             "llvmpipe or with --backend cpu)"},
    {.bit = BOIDS_CLI_BACKEND, .text = "%N: the C reference uploaded each frame, or the compute shaders (default)"},
    {.bit = BOIDS_CLI_SCENARIO,
     .text = "a scenario file or a shipped one by name; its colours, target (mouse or circling) and "
             "varying weights apply"},
    {.bit = BOIDS_CLI_THREADS, .text = "OpenMP threads of the CPU backend, 0 = the default"},
    {.bit = BOIDS_CLI_PROFILE,
     .text = "record a frame-time profile (.csv or .json) from the start; T stops and writes it "
             "(without --profile, T records to boids-profile.csv)"},
    {.bit = BOIDS_CLI_SAVE, .text = "write the whole state (boids/snapshot.h) at exit, and with W"},
    {.bit = BOIDS_CLI_LOAD,
     .text = "start from a snapshot of boids-run, boids-validate or the viewer (--save); R goes back to "
             "it. Flags that set up the simulation cannot be given with it"},
    {.bit = BOIDS_CLI_EXPORT_CSV, .text = "with --replay: write frame N as CSV and exit"},
    {.bit = BOIDS_CLI_KEYS, .text = "key presses to replay: a comma list of [FRAME:]KEY (the names are below)"},
    {.bit = 0, .text = NULL},
};

static const char usage_tail[] = // one paragraph a line (the help wraps them)
    "\n"
    "Mouse: the cursor is the target of seek, flee, arrive, pursue and evade; drag pans (2D) or rotates (3D); the "
    "wheel zooms.\n"
    "Without a display: run it under a virtual X server (xvfb-run -a boids ...) or use boids-run for a headless "
    "run.\n"
    "Exit status: 0 done, 2 bad arguments, 3 no display, no OpenGL 4.5, GL errors, a failed write, or --video "
    "without the ffmpeg program or with ffmpeg failing.\n";
static const boids_cli_example examples[] = {
    {"boids", "the flock in a window, on the GPU's compute shaders (H lists the keys)"},
    {"boids --scenario couzin-mill --backend cpu --count 5000", "a shipped scenario on the CPU reference"},
    {"boids --count 5000 --frames 120 --screenshot flock.png --vsync off",
     "120 frames, then the last one as a PNG, and exit"},
    {"boids --replay flock.rec", "play a recording of boids-run --record (Space pauses, the arrows step)"},
    {"boids --replay flock.rec --export-frames frames", "every frame of the recording as frames/frame-00000.png"},
    {NULL, NULL},
};

static void on_cursor(GLFWwindow *w, double x, double y) {
    viewer_cursor(glfwGetWindowUserPointer(w), x, y);
}

static void on_button(GLFWwindow *w, int b, int action, int mods) {
    (void)mods;
    if (b == GLFW_MOUSE_BUTTON_LEFT || b == GLFW_MOUSE_BUTTON_RIGHT)
        viewer_button(glfwGetWindowUserPointer(w), action == GLFW_PRESS);
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    viewer *v = glfwGetWindowUserPointer(w);
    float nx, ny, aspect;
    if (viewer_cursor_ndc(v, v->cursor_x, v->cursor_y, &nx, &ny, &aspect)) {
        boids_camera_zoom(&v->cam, aspect, powf(0.88f, (float)dy), nx, ny);
        v->cam_moved = true;
    }
}

// After a frame is drawn: the --screenshot of the last frame, then the
// swap. A frame without pixels (minimised) is not drawn; as the last frame
// of --screenshot it is an error. Returns nonzero when the screenshot failed.
static int present_frame(viewer *v, int fb_w, int fb_h, bool last_frame) {
    const boids_options *o = v->o;
    char err[512];
    int rc = 0;
    if (fb_w > 0 && fb_h > 0) {
        if (v->video && viewer_video_frame(v, fb_w, fb_h))
            rc = EXIT_ENVIRONMENT;
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

// The frame loop of every mode: events and the script, the mode's frame,
// its picture, the swap (and --screenshot), the mode's after; the frame
// times and the profile. Returns the exit status.
static int loop(viewer *v) {
    const boids_options *o = v->o;
    const viewer_mode *m = v->mode;
    double last = viewer_now(), fps_start = last;
    uint64_t fps_frames = 0;
    int rc = 0, r;
    while (!v->quit && !glfwWindowShouldClose(v->w)) {
        v->frame++;
        glfwPollEvents();
        viewer_keys_script_run(v);
        if (m->frame && (r = m->frame(v)))
            rc = r;
        if (v->stop)
            break;
        int fb_w, fb_h;
        glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
        if (v->forced_zero)
            fb_w = fb_h = 0;
        bool last_frame = (o->frames && v->frame >= o->frames) || v->last_frame;
        if (fb_w > 0 && fb_h > 0) {
            double d0 = viewer_now();
            m->draw(v, fb_w, fb_h);
            v->draw_ms = (viewer_now() - d0) * 1e3;
            v->drawn_w = fb_w;
            v->drawn_h = fb_h;
        }
        if (m->drawn && (r = m->drawn(v, fb_w, fb_h)))
            rc = r;
        if (v->stop)
            break;
        if (present_frame(v, fb_w, fb_h, last_frame))
            rc = EXIT_ENVIRONMENT;
        if (m->after && (r = m->after(v)))
            rc = r;
        double t = viewer_now();
        v->frame_ms = (t - last) * 1e3;
        last = t;
        viewer_profile_frame(v);
        fps_frames++;
        if (t - fps_start >= 0.5 || v->fps == 0.0) {
            v->fps = (double)fps_frames / (t - fps_start);
            fps_start = t;
            fps_frames = 0;
        }
        if (last_frame || v->stop)
            break;
    }
    if (v->profile && viewer_profile_stop(v) != 0)
        rc = EXIT_ENVIRONMENT;
    return m->finish ? m->finish(v, rc) : rc;
}

// The flags every mode checks before any window, in this order; 0 or 2.
static int check_options(viewer *v) {
    const boids_options *o = v->o;
    if (o->keys && viewer_keys_script_parse(v, o->keys))
        return EXIT_INPUT;
    int checked = boids_cli_check_files(PROG, o);
    if (checked)
        return checked;
    if (o->screenshot && (checked = boids_cli_check_output(PROG, "--screenshot", o->screenshot,
                                                           "a PNG file path in an existing, writable directory")))
        return checked;
    if (o->export_csv && !o->replay) {
        boids_cli_error(PROG, "--export-csv", o->export_csv, "--replay FILE with it",
                        "needs --replay (the viewer exports a recorded frame)");
        return EXIT_INPUT;
    }
    if (o->demo && (o->flags_given & (BOIDS_CLI_LOAD | BOIDS_CLI_SAVE))) {
        boids_cli_error(PROG, "--demo", o->demo, "--demo without --load and --save", "has no flock to load or save");
        return EXIT_INPUT;
    }
    if (o->save &&
        (checked = boids_cli_check_output(PROG, "--save", o->save, "a file path in an existing, writable directory")))
        return checked;
    return viewer_video_check(v); // last: 3 (no ffmpeg) after every 2
}

// The window with a GL 4.5 core context, glad loaded; or a 4.1 core one
// (v->gl41) where the flock runs on the CPU backend (--backend cpu; the
// default GPU backend falls back to it with a one-line notice), or for a
// replay or demo. 0 or 3 (said in one line).
static int open_window(viewer *v) {
    char err[4096];
    bool no_display = false;
    boids_window_desc wd = {.title = "boids", .width = v->width, .height = v->height, .vsync = v->o->vsync};
    if (boids_window_create(&v->win, &wd, &no_display, err, sizeof err) != BOIDS_OK) {
        if (no_display)
            fprintf(stderr,
                    "%s: %s; expected a display (DISPLAY or WAYLAND_DISPLAY): run it under a virtual X server, "
                    "xvfb-run -a boids ..., or headless with boids-run --count N --steps S\n",
                    PROG, err);
        else
            fprintf(stderr,
                    "%s: %s; expected OpenGL 4.5 core (4.1 core with --backend cpu), so neither backend works "
                    "here: use boids-run --backend cpu for a headless run%s\n",
                    PROG, err, strstr(err, "llvmpipe") ? "" : ", or Mesa's llvmpipe (LIBGL_ALWAYS_SOFTWARE=1)");
        return EXIT_ENVIRONMENT;
    }
    v->w = boids_window_glfw(v->win);
    int version = gladLoadGL((GLADloadfunc)boids_window_loader(v->win));
    snprintf(v->renderer, sizeof v->renderer, "%s", version ? (const char *)glGetString(GL_RENDERER) : "?");
    snprintf(v->gl_version, sizeof v->gl_version, "%s", version ? (const char *)glGetString(GL_VERSION) : "?");
    int found = version ? GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) : 0;
    if (found < 41) {
        fprintf(stderr,
                "%s: no OpenGL 4.1 core context: found OpenGL '%s' on '%s'; expected 4.5 core (4.1 core with "
                "--backend cpu): use boids-run --backend cpu for a headless run\n",
                PROG, v->gl_version, v->renderer);
        return EXIT_ENVIRONMENT;
    }
    v->gl41 = found < 45;
    if (v->gl41 && v->wants_gpu && !v->gpu_by_default) {
        fprintf(stderr,
                "%s: --backend gpu: found OpenGL '%s' on '%s'; the GPU backend needs OpenGL 4.5 (compute shaders): "
                "use --backend cpu, which draws with 4.1\n",
                PROG, v->gl_version, v->renderer);
        return EXIT_ENVIRONMENT;
    }
    if (v->gl41 && v->wants_gpu) // the default backend: a notice, and the CPU
        fprintf(stderr,
                "%s: found OpenGL '%s' (the GPU backend needs 4.5): running on the CPU backend, as --backend cpu\n",
                PROG, v->gl_version);
    return 0;
}

// The options checked, the mode prepared, the window, the mode's init, the
// loop; everything freed. Returns the exit status.
static int run(const boids_options *o) {
    viewer *v = calloc(1, sizeof *v);
    if (!v) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    v->o = o;
    v->keys = viewer_keys;
    v->key_count = viewer_key_count;
    v->mode = o->replay ? &viewer_replay_mode : o->demo ? &viewer_demo_mode : &viewer_flock_mode;
    v->width = (int)o->width;
    v->height = (int)o->height;
    int rc = check_options(v);
    if (!rc && v->mode->prepare)
        rc = v->mode->prepare(v);
    if (!rc)
        rc = open_window(v);
    if (!rc) {
        glfwSetWindowUserPointer(v->w, v);
        rc = v->mode->init ? v->mode->init(v) : 0;
    }
    if (!rc) {
        glfwSetKeyCallback(v->w, viewer_keys_on_glfw);
        glfwSetCursorPosCallback(v->w, on_cursor);
        glfwSetMouseButtonCallback(v->w, on_button);
        glfwSetScrollCallback(v->w, on_scroll);
        rc = loop(v);
    }
    rc = viewer_video_finish(v, rc);
    boids_render_destroy(v->render);
    if (v->mode->destroy)
        v->mode->destroy(v);
    if (v->debug_installed)
        boids_gl_debug_disable();
    boids_window_destroy(v->win);
    free(v);
    if (fflush(stdout) != 0)
        rc = EXIT_ENVIRONMENT;
    return rc;
}

// boids: parse, run, exit 0 / 2 / 3.
int main(int argc, char **argv) {
    static char usage_keys[8192];
    viewer_keys_usage(viewer_keys, viewer_key_count, usage_keys, sizeof usage_keys, usage_tail);
    static const boids_cli_spec spec = {
        .prog = PROG,
        .summary = "the flock in a window: steering behaviours on the GPU or the CPU",
        .usage = usage,
        .usage_more = usage_keys,
        .examples = examples,
        .help = help,
        .flags = BOIDS_CLI_COUNT | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_BACKEND | BOIDS_CLI_SHADER_DIR | BOIDS_CLI_THREADS |
                 BOIDS_CLI_DISTRIBUTION | BOIDS_CLI_WIDTH | BOIDS_CLI_HEIGHT | BOIDS_CLI_VSYNC | BOIDS_CLI_FRAMES |
                 BOIDS_CLI_SCREENSHOT | BOIDS_CLI_KEYS | BOIDS_CLI_PROFILE | BOIDS_CLI_DEMO | BOIDS_CLI_REPLAY |
                 BOIDS_CLI_EXPORT_FRAMES | BOIDS_CLI_FRAME | BOIDS_CLI_EXPORT_CSV | BOIDS_CLI_SAVE |
                 BOIDS_CLI_SAVE_EVERY | BOIDS_CLI_LOAD | BOIDS_CLI_VIDEO | BOIDS_CLI_VIDEO_FPS,
    };
    return boids_cli_main(argc, argv, &spec, run);
}
