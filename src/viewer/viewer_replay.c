// src/viewer/viewer_replay.c: the viewer's --replay mode: a recording of
// boids-run --record (boids/record.h) instead of a simulation. Arrays of the
// recording's size hold the frame shown, in id order, and go to the render's
// own buffers; parameters of the recording's world (the defaults otherwise:
// only the drawing uses them) draw it. Playing advances one recorded frame
// per drawn frame.
// --export-frames writes every frame from --frame on as a PNG and exits;
// --export-csv writes --frame as CSV.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer.h"
#include "boids/record.h"

typedef struct viewer_replay {
    boids_recording *rec;
    boids_params p;             // the recording's world, for the drawing
    float (*pos)[4], (*vel)[4]; // the frame shown, in id order
    uint32_t *neighbors;        // zeros: a recording has no neighbour counts
    uint32_t frame, loaded;     // the frame shown, the one in pos/vel (UINT32_MAX: none)
    uint64_t step;              // the step of `loaded`
    bool playing, csv_done;
    uint64_t csvs;     // E presses
    uint32_t exported; // --export-frames: frames written
} viewer_replay;

// Writes the frame shown as CSV (boids_csv_write_agents; neighbours 0) to
// path; returns 0 or the exit status (error printed).
static int write_csv(viewer_replay *r, const char *path) {
    const boids_recording_info *in = boids_recording_get_info(r->rec);
    if (boids_csv_write_agents(path, in->count, (const float(*)[4])r->pos, (const float(*)[4])r->vel, in->group,
                               NULL) != BOIDS_OK) {
        boids_cli_error(PROG, "--export-csv", path, NULL, "could not be written: %s", strerror(errno));
        return EXIT_ENVIRONMENT;
    }
    printf("exported: %s (frame %u, step %llu, %u agents)\n", path, r->loaded, (unsigned long long)r->step, in->count);
    fflush(stdout);
    return 0;
}

// --export-frames DIR: a writable directory, made if missing (one level,
// as mkdir does: its parent must exist) so that `--export-frames out/` runs
// as written; a file there, a missing parent or a place that cannot be
// written is one line (false).
static bool frames_dir(const char *dir) {
    static const char expected[] = "a writable directory, or a new one in an existing directory";
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT || mkdir(dir, 0777) != 0) {
            boids_cli_error(PROG, "--export-frames", dir, expected, "cannot be made: %s", strerror(errno));
            return false;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        boids_cli_error(PROG, "--export-frames", dir, expected, "is not a directory");
        return false;
    } else if (access(dir, W_OK) != 0) {
        boids_cli_error(PROG, "--export-frames", dir, expected, "cannot be written: %s", strerror(errno));
        return false;
    }
    return true;
}

// The frame shown moves to `to`, within the recording.
static void go(viewer_replay *r, int64_t to) {
    int64_t last = (int64_t)boids_recording_get_info(r->rec)->frames - 1;
    r->frame = (uint32_t)(to < 0 ? 0 : to > last ? last : to);
}

// See viewer.h: play or pause; play at the last frame starts again.
void viewer_replay_play(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_replay *r = v->replay;
    r->playing = !r->playing;
    if (r->playing && r->frame + 1 == boids_recording_get_info(r->rec)->frames)
        go(r, 0);
}

// See viewer.h: arg frames on (or back), paused.
void viewer_replay_step(viewer *v, int key, int arg) {
    (void)key;
    go(v->replay, (int64_t)v->replay->frame + arg);
    v->replay->playing = false;
}

// See viewer.h: arg frames on (or back), playing or not.
void viewer_replay_go(viewer *v, int key, int arg) {
    (void)key;
    go(v->replay, (int64_t)v->replay->frame + arg);
}

// See viewer.h: the frame as boids-frame-NNNN.csv.
void viewer_replay_csv(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    char path[64];
    viewer_free_name(path, sizeof path, "boids-frame-%04llu.csv", &v->replay->csvs);
    write_csv(v->replay, path);
}

// Opens and checks the recording and the replay's outputs before any window
// (a bad file is one line, exit 2).
static int replay_prepare(viewer *v) {
    const boids_options *o = v->o;
    const boids_cli_bits only_flow = BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_COUNT | BOIDS_CLI_COUNTS | BOIDS_CLI_DISTRIBUTION |
                               BOIDS_CLI_BACKEND | BOIDS_CLI_DEMO | BOIDS_CLI_PROFILE | BOIDS_CLI_LOAD |
                               BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY;
    viewer_replay *r = v->replay = calloc(1, sizeof *v->replay);
    if (!r) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    if (o->flags_given & only_flow) {
        boids_cli_error(PROG, "--replay", o->replay, "the viewer's own options (--width, --frames, --keys, ...)",
                        "plays a recording: flags that set up a simulation cannot be given with it");
        return EXIT_INPUT;
    }
    char err[1024];
    if (boids_recording_open(o->replay, &r->rec, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: --replay: %s\n", PROG, err);
        return EXIT_INPUT;
    }
    const boids_recording_info *in = boids_recording_get_info(r->rec);
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
    if (o->export_frames && !frames_dir(o->export_frames))
        return EXIT_INPUT;
    if (o->export_csv)
        return boids_cli_check_output(PROG, "--export-csv", o->export_csv,
                                      "a file path in an existing, writable directory");
    return 0;
}

// The arrays that hold the frames, the render, the camera, the first line.
static int replay_init(viewer *v) {
    const boids_options *o = v->o;
    viewer_replay *rp = v->replay;
    const boids_recording_info *in = boids_recording_get_info(rp->rec);
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
    rp->p = p;
    rp->pos = malloc(((size_t)in->count + 1) * sizeof *rp->pos);
    rp->vel = malloc(((size_t)in->count + 1) * sizeof *rp->vel);
    rp->neighbors = calloc((size_t)in->count + 1, sizeof *rp->neighbors);
    if (!rp->pos || !rp->vel || !rp->neighbors) {
        boids_cli_error(PROG, "--replay", o->replay, NULL, "cannot be shown: %s", boids_result_str(BOIDS_ERR_NOMEM));
        return EXIT_ENVIRONMENT;
    }
    int rc = viewer_render_create(v, in->count, false);
    if (rc)
        return rc;
    viewer_camera_world(v, &rp->p.world);
    printf("boids %s: replay %s, %u frames (every %llu steps), %u agents, %uD, renderer '%s', OpenGL %s\n",
           BOIDS_VERSION, o->replay, in->frames, (unsigned long long)in->every, in->count, in->dim, v->renderer,
           v->gl_version);
    if (in->truncated)
        fprintf(stderr, "%s: --replay: warning: %s: %s; the %u frames before it are shown\n", PROG, o->replay, in->note,
                in->frames);
    fflush(stdout);
    rp->loaded = UINT32_MAX;
    rp->frame = o->frame;
    rp->playing = !o->export_frames;
    return 0;
}

// The frame to show into the arrays and the render's buffers if it is not
// there yet (a read error, the file changed, ends the replay); --export-csv
// once; with --export-frames the last frame ends the run.
static int replay_frame(viewer *v) {
    const boids_options *o = v->o;
    viewer_replay *r = v->replay;
    const boids_recording_info *in = boids_recording_get_info(r->rec);
    if (o->export_frames)
        r->frame = o->frame + r->exported;
    if (r->loaded != r->frame) {
        char err[512];
        if (boids_recording_frame(r->rec, r->frame, &r->step, r->pos, r->vel, err, sizeof err) != BOIDS_OK) {
            fprintf(stderr, "%s: --replay: %s\n", PROG, err);
            v->stop = true;
            return EXIT_INPUT;
        }
        r->loaded = r->frame;
        boids_render_upload_agents(v->render, in->count, (const float(*)[4])r->pos, (const float(*)[4])r->vel,
                                   in->group, r->neighbors);
        printf("frame: %u step %llu\n", r->frame, (unsigned long long)r->step);
        fflush(stdout);
    }
    if (o->export_csv && !r->csv_done) { // --export-csv: the --frame of the recording
        r->csv_done = true;
        int rc = write_csv(r, o->export_csv);
        if (rc) {
            v->stop = true;
            return rc;
        }
    }
    v->last_frame = o->export_frames && r->frame + 1 >= in->frames;
    return 0;
}

// The agents of the frame and the HUD: the frame, its step.
static void replay_draw(viewer *v, int fb_w, int fb_h) {
    viewer_replay *r = v->replay;
    const boids_recording_info *in = boids_recording_get_info(r->rec);
    char hud[1024];
    snprintf(hud, sizeof hud,
             "replay %s   frame %u/%u   step %llu%s\n"
             "%u agents  %uD  every %llu steps  colour %s%s   (H: help, I: hide panels)",
             v->o->replay, r->loaded + 1, in->frames, (unsigned long long)r->step,
             r->playing ? "  PLAYING" : "  PAUSED", in->count, in->dim, (unsigned long long)in->every,
             boids_color_mode_name(v->color), in->truncated ? "  (truncated file)" : "");
    viewer_layout_frame(v, fb_w, fb_h, hud, 0.0f, 0.0f); // the world under the HUD
    float vp[16];
    viewer_draw_begin(v, fb_w, fb_h, NULL, vp);
    boids_engine_gl b = {0};
    boids_render_own_buffers(v->render, &b.pos, &b.vel, &b.group, &b.neighbors);
    boids_render_own_body_buffers(v->render, &b.joints, &b.id, &b.joint_rows);
    viewer_draw_agents(v, fb_h, vp, &r->p, &b, false);
    viewer_hud(v, fb_w, fb_h);
    viewer_help(v, fb_w, fb_h);
}

// --export-frames: the frame drawn as DIR/frame-NNNNN.png.
static int replay_drawn(viewer *v, int fb_w, int fb_h) {
    const boids_options *o = v->o;
    viewer_replay *r = v->replay;
    if (!o->export_frames)
        return 0;
    char path[4096], err[4096];
    snprintf(path, sizeof path, "%s/frame-%05u.png", o->export_frames, r->frame);
    v->stop = true;
    if (fb_w <= 0 || fb_h <= 0) {
        boids_cli_error(PROG, "--export-frames", o->export_frames, NULL,
                        "frame %u not written: the window has no pixels (minimised)", r->frame);
        return EXIT_ENVIRONMENT;
    }
    if (boids_render_screenshot(path, fb_w, fb_h, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: --export-frames: %s\n", PROG, err);
        return EXIT_ENVIRONMENT;
    }
    v->stop = false;
    r->exported++;
    return 0;
}

// After the swap: playing, the next recorded frame; the last one pauses.
static int replay_after(viewer *v) {
    viewer_replay *r = v->replay;
    if (r->playing) {
        if (r->frame + 1 < boids_recording_get_info(r->rec)->frames)
            r->frame++;
        else
            r->playing = false;
    }
    return 0;
}

// The last lines.
static int replay_finish(viewer *v, int rc) {
    viewer_replay *r = v->replay;
    const boids_recording_info *in = boids_recording_get_info(r->rec);
    if (v->o->export_frames && !rc)
        printf("exported: %s (%u frames)\n", v->o->export_frames, r->exported);
    printf("frames: %llu, replayed frame %u of %u (step %llu), last frame %dx%d, gl-errors %u\n",
           (unsigned long long)v->frame, r->loaded, in->frames, (unsigned long long)r->step, v->drawn_w, v->drawn_h,
           v->gl_errors);
    return viewer_gl_errors(v->gl_errors, rc);
}

// Closes the recording, frees the arrays.
static void replay_destroy(viewer *v) {
    if (!v->replay)
        return;
    free(v->replay->pos);
    free(v->replay->vel);
    free(v->replay->neighbors);
    boids_recording_close(v->replay->rec);
    free(v->replay);
    v->replay = NULL;
}

const viewer_mode viewer_replay_mode = {
    .name = "replay",
    .bit = VIEWER_REPLAY,
    .help_more = "drag: pan (2D) / rotate (3D)   wheel: zoom",
    .prepare = replay_prepare,
    .init = replay_init,
    .frame = replay_frame,
    .draw = replay_draw,
    .drawn = replay_drawn,
    .after = replay_after,
    .finish = replay_finish,
    .destroy = replay_destroy,
};
