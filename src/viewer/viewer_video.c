// src/viewer/viewer_video.c: --video FILE.mp4, the frames the viewer draws as
// an H.264 video. Each drawn frame (HUD too) is read back from the default
// framebuffer after drawing, before the swap (glReadPixels, RGB, bottom row
// first), and written to the stdin of an `ffmpeg` process as raw video;
// ffmpeg flips it (-vf vflip), pads an odd width or height by a pixel
// (yuv420p wants even sizes) and encodes it with libx264. The video's time
// follows frames (--video-fps, default 30), not the clock, so a slow
// software renderer makes the same file as a fast GPU.
// ffmpeg writes a temporary name beside FILE; only a run that ends well
// (exit 0, ffmpeg's too) renames it to FILE, so a failed run never leaves a
// file that looks finished. Exit status: 2 a bad path (before the window),
// 3 no ffmpeg on PATH (before the window) or ffmpeg failing (a write to its
// pipe fails: SIGPIPE is ignored, the write's error is reported).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glad/gl.h>

#include "viewer.h"
#include "viewer_video.h"

#define DEFAULT_FPS 30u
#define INSTALL_HINT "install it with apt-get install ffmpeg (or tools/deps.sh)"

extern char **environ;

struct viewer_video {
    char *tmp;         // ffmpeg's output, renamed to --video's FILE at a good end
    pid_t pid;         // ffmpeg; 0 before the first frame
    int fd;            // its stdin; -1 when closed
    int w, h;          // the first frame's size: every frame of the video has it
    unsigned char *px; // one frame, w * h * 3
    uint64_t frames;
    bool failed;
};

// Whether `name` is an executable file in a directory of PATH.
static bool on_path(const char *name) {
    const char *path = getenv("PATH");
    if (!path || !*path)
        return false;
    char dir[4096];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n < sizeof dir - strlen(name) - 2) {
            snprintf(dir, sizeof dir, "%.*s/%s", (int)n, n ? p : ".", name);
            struct stat st;
            if (stat(dir, &st) == 0 && S_ISREG(st.st_mode) && access(dir, X_OK) == 0)
                return true;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return false;
}

// See viewer_video.h.
int viewer_video_check(viewer *v) {
    const boids_options *o = v->o;
    if (!o->video) {
        if (o->flags_given & BOIDS_CLI_VIDEO_FPS) {
            char text[16];
            snprintf(text, sizeof text, "%u", o->video_fps);
            boids_cli_error(PROG, "--video-fps", text, "--video FILE.mp4 with it", "sets the frame rate of --video");
            return EXIT_INPUT;
        }
        return 0;
    }
    int checked = boids_cli_check_output(PROG, "--video", o->video,
                                         "a video file path (FILE.mp4) in an existing, writable directory");
    if (checked)
        return checked;
    if (!on_path("ffmpeg")) {
        boids_cli_error(PROG, "--video", o->video, NULL,
                        "needs the ffmpeg program, which is not on PATH: " INSTALL_HINT);
        return EXIT_ENVIRONMENT;
    }
    struct viewer_video *vv = calloc(1, sizeof *vv);
    size_t size = strlen(o->video) + 64;
    char *tmp = vv ? malloc(size) : NULL;
    if (!tmp) {
        free(vv);
        boids_cli_error(PROG, "--video", o->video, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    // Beside FILE (the same file system, so the rename is atomic), with
    // FILE's ending, as ffmpeg picks the container from it.
    const char *slash = strrchr(o->video, '/');
    const char *base = slash ? slash + 1 : o->video;
    snprintf(tmp, size, "%.*s.boids-video-%ld-%s", (int)(base - o->video), o->video, (long)getpid(), base);
    vv->tmp = tmp;
    vv->fd = -1;
    v->video = vv;
    return 0;
}

// ffmpeg with its stdin on a new pipe, for frames of w x h; false on failure (said).
static bool start(viewer *v, struct viewer_video *vv, int w, int h) {
    char size[32], fps[16], filter[64];
    snprintf(size, sizeof size, "%dx%d", w, h);
    snprintf(fps, sizeof fps, "%u", v->o->video_fps ? v->o->video_fps : DEFAULT_FPS);
    if (w % 2 || h % 2)
        snprintf(filter, sizeof filter, "vflip,pad=%d:%d", w + w % 2, h + h % 2);
    else
        snprintf(filter, sizeof filter, "vflip");
    const char *argv[] = {"ffmpeg",    "-hide_banner", "-loglevel", "error",   "-nostdin", "-f",
                          "rawvideo",  "-pix_fmt",     "rgb24",     "-s",      size,       "-framerate",
                          fps,         "-i",           "pipe:0",    "-an",     "-vf",      filter,
                          "-c:v",      "libx264",      "-pix_fmt",  "yuv420p", "-preset",  "veryfast",
                          "-movflags", "+faststart",   "-y",        vv->tmp,   NULL};
    int fds[2];
    if (pipe(fds) != 0) {
        boids_cli_error(PROG, "--video", v->o->video, NULL, "cannot start ffmpeg: pipe: %s", strerror(errno));
        return false;
    }
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    int err = posix_spawnp(&vv->pid, "ffmpeg", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    if (err) {
        close(fds[1]);
        vv->pid = 0;
        boids_cli_error(PROG, "--video", v->o->video, NULL, "cannot start ffmpeg: %s; " INSTALL_HINT, strerror(err));
        return false;
    }
    vv->fd = fds[1];
    vv->w = w;
    vv->h = h;
    return true;
}

// Writes n bytes to ffmpeg; false on a failed write (a broken pipe: ffmpeg ended).
static bool write_all(int fd, const unsigned char *p, size_t n) {
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

// See viewer_video.h.
int viewer_video_frame(viewer *v, int fb_w, int fb_h) {
    struct viewer_video *vv = v->video;
    if (!vv || vv->failed || fb_w <= 0 || fb_h <= 0)
        return 0;
    if (!vv->pid) {
        // A write to a pipe whose reader ended must be an error, not a signal.
        signal(SIGPIPE, SIG_IGN);
        vv->px = malloc((size_t)fb_w * (size_t)fb_h * 3);
        if (!vv->px || !start(v, vv, fb_w, fb_h)) {
            if (!vv->px)
                boids_cli_error(PROG, "--video", v->o->video, NULL, "out of memory");
            vv->failed = true;
            v->quit = true;
            return EXIT_ENVIRONMENT;
        }
    }
    // The video keeps the first frame's size: after a resize, the lower left
    // part that fits (the rest black).
    int w = fb_w < vv->w ? fb_w : vv->w, h = fb_h < vv->h ? fb_h : vv->h;
    if (w != vv->w || h != vv->h)
        memset(vv->px, 0, (size_t)vv->w * (size_t)vv->h * 3);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, vv->w);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, vv->px);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    if (!write_all(vv->fd, vv->px, (size_t)vv->w * (size_t)vv->h * 3)) {
        boids_cli_error(PROG, "--video", v->o->video, NULL,
                        "not written: ffmpeg stopped taking frames after %llu (%s); see its message above",
                        (unsigned long long)vv->frames, strerror(errno));
        vv->failed = true;
        v->quit = true;
        return EXIT_ENVIRONMENT;
    }
    vv->frames++;
    return 0;
}

// See viewer_video.h.
int viewer_video_finish(viewer *v, int rc) {
    struct viewer_video *vv = v->video;
    if (!vv)
        return rc;
    const char *file = v->o->video;
    int status = 0;
    if (vv->fd >= 0)
        close(vv->fd);
    if (vv->pid) {
        while (waitpid(vv->pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    bool ffmpeg_ok = vv->pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (rc == 0 && !vv->failed && vv->pid && !ffmpeg_ok) {
        boids_cli_error(PROG, "--video", file, NULL, "not written: ffmpeg failed (%s %d); see its message above",
                        WIFEXITED(status) ? "exit status" : "signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        rc = EXIT_ENVIRONMENT;
    } else if (rc == 0 && !vv->pid) {
        boids_cli_error(PROG, "--video", file, NULL, "not written: no frame was drawn (the window had no pixels)");
        rc = EXIT_ENVIRONMENT;
    }
    if (vv->failed && rc == 0)
        rc = EXIT_ENVIRONMENT;
    if (rc == 0 && rename(vv->tmp, file) != 0) {
        boids_cli_error(PROG, "--video", file, NULL, "not written: rename from '%s': %s", vv->tmp, strerror(errno));
        rc = EXIT_ENVIRONMENT;
    }
    if (rc == 0)
        printf("video: %s: %llu frames at %u fps (%d x %d)\n", file, (unsigned long long)vv->frames,
               v->o->video_fps ? v->o->video_fps : DEFAULT_FPS, vv->w + vv->w % 2, vv->h + vv->h % 2);
    else
        unlink(vv->tmp); // a failed run leaves no file, not a broken one
    free(vv->px);
    free(vv->tmp);
    free(vv);
    v->video = NULL;
    return rc;
}
