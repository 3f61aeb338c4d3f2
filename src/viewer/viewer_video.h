// src/viewer/viewer_video.h: the viewer's --video FILE.mp4 (viewer_video.c):
// the frames drawn, through an ffmpeg process, as an H.264 video.
//
// Offers: viewer_video_check, viewer_video_frame, viewer_video_finish.
#ifndef BOIDS_VIEWER_VIDEO_H
#define BOIDS_VIEWER_VIDEO_H

#include "viewer.h"

// Before any window: --video's path and --video-fps (2, said in one line),
// ffmpeg on PATH (3, said with how to install it); 0 and v->video set up
// when --video is given.
int viewer_video_check(viewer *v);
// A frame drawn into the default framebuffer (before the swap) to ffmpeg;
// the first starts ffmpeg. Returns 0 or 3 (said; v->quit set).
int viewer_video_frame(viewer *v, int fb_w, int fb_h);
// After the loop: ends ffmpeg; with rc 0 and ffmpeg's success the file is
// renamed into place and "video: FILE: N frames at F fps (W x H)" printed,
// else no file is left. Returns rc, or 3 when the video failed. Frees v->video.
int viewer_video_finish(viewer *v, int rc);

#endif
