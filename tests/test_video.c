// tests/test_video.c: the viewer's --video FILE.mp4 (src/viewer/viewer_video.c),
// through the real executable under Xvfb (xvfb-run) with llvmpipe, as
// test_viewer does. The file is read back with ffprobe (Debian's ffmpeg
// package, tools/deps.sh): its codec, size and frame count. Without ffmpeg
// the cases that encode FAIL (never a skip); the missing-ffmpeg case runs
// the viewer with a PATH that holds no ffmpeg.
#include <check.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "viewer_run.h"

extern char **environ;

// Runs boids with args under `xvfb-run -a` (else on $DISPLAY) in the test's
// environment, or with env instead (and no display) when env is given.
#define run_viewer(name, args, env) boids_test_viewer_env(name, args, env, (env) == NULL)

// ffprobe's "codec,width,height,frames" of the first video stream of path (counted by decoding).
static void probe(const char *path, char *out, size_t size) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
             "stream=codec_name,width,height,nb_read_frames -of csv=p=0 '%s'",
             path);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "expected ffprobe to start (package ffmpeg, tools/deps.sh)");
    out[0] = '\0';
    if (!fgets(out, (int)size, p))
        out[0] = '\0';
    int status = pclose(p);
    ck_assert_msg(status == 0, "expected ffprobe to read %s (exit %d; is ffmpeg installed? tools/deps.sh)", path,
                  status);
    out[strcspn(out, "\n")] = '\0';
}

// The files in TMP whose names hold `part` (the temporary names of --video).
static int leftovers(const char *part) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c -- '%s'", TMP, part);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    int n = 0;
    if (fscanf(p, "%d", &n) != 1)
        n = -1;
    pclose(p);
    return n;
}

// Runs the viewer (tag, argv) and expects exit 0, the closing line `line`
// on stdout and ffprobe's "codec,width,height,frames" of file to be `want`
// (what: the reason, for the message).
static void expect_video(const char *tag, const char *const *argv, const char *file, const char *line, const char *want,
                         const char *what) {
    run_result r = run_viewer(tag, argv, NULL);
    ck_assert_msg(WEXITSTATUS(r.status) == 0, "expected exit 0, got %d; stderr: %s", WEXITSTATUS(r.status), r.err);
    ck_assert_msg(strstr(r.out, line), "expected '%s' on stdout: %s", line, r.out);
    boids_test_run_free(&r);
    char got[256];
    probe(file, got, sizeof got);
    ck_assert_msg(strcmp(got, want) == 0, "expected %s (%s); ffprobe: %s", want, what, got);
}

// 10 frames of 64x48 at --video-fps 12: an H.264 file of exactly 10 frames
// of 64x48 (what the viewer drew), and the closing line.
START_TEST(video_frames_written) {
    const char *file = TMP "/flock.mp4";
    unlink(file);
    expect_video("video",
                 ARGV("--count", "300", "--backend", "cpu", "--width", "64", "--height", "48", "--vsync", "off",
                      "--frames", "10", "--video", file, "--video-fps", "12"),
                 file, "video: " TMP "/flock.mp4: 10 frames at 12 fps (64 x 48)\n", "h264,64,48,10",
                 "h264, 64x48, 10 frames as written");
    ck_assert_int_eq(leftovers(".boids-video-"), 0);
}
END_TEST

// An odd size is padded to even (yuv420p): 65x47 -> 66x48; default 30 fps.
START_TEST(video_odd_size_padded) {
    const char *file = TMP "/odd.mp4";
    unlink(file);
    expect_video("video_odd",
                 ARGV("--count", "100", "--backend", "cpu", "--width", "65", "--height", "47", "--vsync", "off",
                      "--frames", "4", "--video", file),
                 file, "video: " TMP "/odd.mp4: 4 frames at 30 fps (66 x 48)\n", "h264,66,48,4",
                 "65x47 padded to 66x48, 4 frames");
}
END_TEST

// --replay of a 4-frame recording (boids-run --record) with --video: the
// frames drawn, 6 of them (--frames counts viewer frames).
START_TEST(video_of_replay) {
    const char *rec = TMP "/video.rec", *file = TMP "/replay.mp4";
    const char *const *argv = ARGV(BOIDS_BIN_DIR "/boids-run", "--count", "300", "--steps", "6", "--quiet", "--record",
                                   rec, "--record-every", "2");
    run_result b = boids_test_run(argv[0], argv, TMP, "video_record");
    ck_assert_msg(WIFEXITED(b.status) && WEXITSTATUS(b.status) == 0, "boids-run --record failed: %s", b.err);
    boids_test_run_free(&b);
    unlink(file);
    expect_video("video_replay",
                 ARGV("--replay", rec, "--width", "80", "--height", "60", "--vsync", "off", "--frames", "6", "--keys",
                      "space", "--video", file),
                 file, "video: " TMP "/replay.mp4: 6 frames at 30 fps (80 x 60)\n", "h264,80,60,6", "80x60, 6 frames");
}
END_TEST

// No ffmpeg on PATH: exit 3 before any window (no display needed), one line
// naming ffmpeg and how to install it; no file.
START_TEST(video_no_ffmpeg_exit_3) {
    const char *file = TMP "/none.mp4";
    unlink(file);
    char *env[] = {"PATH=" TMP "/no-such-dir", NULL};
    run_result r = run_viewer("video_no_ffmpeg", ARGV("--frames", "2", "--video", file), env);
    ck_assert_msg(WEXITSTATUS(r.status) == 3, "expected exit 3 (environment), got %d; stderr: %s",
                  WEXITSTATUS(r.status), r.err);
    ck_assert_msg(strstr(r.err, "boids: --video: '" TMP "/none.mp4' needs the ffmpeg program") &&
                      strstr(r.err, "apt-get install ffmpeg"),
                  "stderr: %s", r.err);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "expected one line; stderr: %s", r.err);
    ck_assert_msg(access(file, F_OK) != 0, "expected no %s", file);
    boids_test_run_free(&r);
}
END_TEST

// Bad values: exit 2 before any window, one line naming the flag and value.
START_TEST(video_bad_input_exit_2) {
    char *env[] = {"PATH=/usr/bin:/bin", NULL};
    struct {
        const char *const *args, *line;
    } cases[] = {
        {ARGV("--video", TMP "/x.mp4", "--video-fps", "0"), "boids: --video-fps: '0' is too small; expected an "
                                                            "integer 1..240"},
        {ARGV("--video", TMP "/x.mp4", "--video-fps", "241"), "boids: --video-fps: '241'"},
        {ARGV("--video", TMP), "boids: --video: '" TMP "' is a directory"},
        {ARGV("--video", TMP "/no-such-dir/x.mp4"), "boids: --video: '" TMP "/no-such-dir/x.mp4' cannot be written"},
        {ARGV("--video-fps", "10"), "boids: --video-fps: '10' sets the frame rate of --video"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_viewer("video_bad", cases[i].args, env);
        ck_assert_msg(WEXITSTATUS(r.status) == 2, "case %zu: expected exit 2, got %d; stderr: %s", i,
                      WEXITSTATUS(r.status), r.err);
        ck_assert_msg(strstr(r.err, cases[i].line), "case %zu: expected '%s'; stderr: %s", i, cases[i].line, r.err);
        boids_test_run_free(&r);
    }
}
END_TEST

// ffmpeg failing mid-run (a stand-in that reads a little, then exits 1):
// exit 3, one line of ours, no crash (SIGPIPE ignored), and no file left.
START_TEST(video_ffmpeg_fails_exit_3) {
    const char *dir = TMP "/fake-ffmpeg", *file = TMP "/broken.mp4";
    mkdir(dir, 0755);
    const char script[] = "#!/bin/sh\nhead -c 100 >/dev/null\necho 'fake ffmpeg: gave up' >&2\nexit 1\n";
    boids_test_write(TMP "/fake-ffmpeg/ffmpeg", script, sizeof script - 1);
    chmod(TMP "/fake-ffmpeg/ffmpeg", 0755);
    unlink(file);
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "/usr/bin:/bin");
    char path[4096];
    snprintf(path, sizeof path, "%s:%s", dir, saved);
    setenv("PATH", path, 1);
    run_result r = run_viewer("video_fails",
                              ARGV("--count", "100", "--backend", "cpu", "--width", "64", "--height", "48", "--vsync",
                                   "off", "--frames", "30", "--video", file),
                              NULL);
    setenv("PATH", saved, 1);
    free(saved);
    ck_assert_msg(WEXITSTATUS(r.status) == 3, "expected exit 3, got %d; stderr: %s", WEXITSTATUS(r.status), r.err);
    ck_assert_msg(strstr(r.err, "boids: --video: '" TMP "/broken.mp4' not written: ffmpeg"), "stderr: %s", r.err);
    ck_assert_msg(access(file, F_OK) != 0, "expected no %s after a failed run", file);
    ck_assert_int_eq(leftovers(".boids-video-"), 0);
    boids_test_run_free(&r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("video");
    TCase *tc = tcase_create("video");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, video_frames_written);
    tcase_add_test(tc, video_odd_size_padded);
    tcase_add_test(tc, video_of_replay);
    tcase_add_test(tc, video_no_ffmpeg_exit_3);
    tcase_add_test(tc, video_bad_input_exit_2);
    tcase_add_test(tc, video_ffmpeg_fails_exit_3);
    suite_add_tcase(s, tc);
    return boids_test_main_suite(s, TMP);
}
