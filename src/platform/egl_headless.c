// src/platform/egl_headless.c: a headless OpenGL 4.5 core debug context
// through EGL, with no surface. Device platform first (choose hardware, or
// llvmpipe's EGL_MESA_device_software), surfaceless platform as a fallback.
// EGL is loaded by glad's loader: before a display exists it gets the client
// extensions (eglGetPlatformDisplayEXT) but not the EGL 1.5 core functions,
// so it is loaded again with the display after eglInitialize.
// Robustness: the 4.5 context is asked for with robust buffer access and
// lose-context-on-reset notification (EGL 1.5 core attributes, or
// EGL_KHR_create_context's flags on older EGL), then with the
// notification alone, then plainly; c->robust says which was granted (the
// GPU backend's boids_gpu_check reads glGetGraphicsResetStatus, which only
// reports resets on a context with notification).
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/egl.h>
#include <glad/gl.h>

#include "boids/platform.h"

struct boids_gl_context {
    EGLDisplay display;
    EGLContext context;
    bool robust; // created with lose-context-on-reset notification
    char describe[224];
};

// EGL_KHR_create_context (EGL 1.4): desktop GL's debug and robust-access
// flags and its reset strategy (EGL_EXT_create_context_robustness is for
// OpenGL ES only). Not in the generated glad headers.
#define KHR_CONTEXT_FLAGS 0x30FC
#define KHR_CONTEXT_OPENGL_DEBUG_BIT 0x0001
#define KHR_CONTEXT_OPENGL_ROBUST_ACCESS_BIT 0x0004
#define KHR_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY 0x31BD

// How robust a context is asked to be (tried in this order).
enum robustness { ROBUST_ACCESS_AND_RESET, ROBUST_RESET_ONLY, ROBUST_NONE };

#define MAX_DEVICES 16

static bool has_ext(const char *list, const char *name) {
    if (!list)
        return false;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

// The devices to try, in order, into order[]: the one BOIDS_EGL_DEVICE names
// (software, hardware or an index), else every hardware device, then the
// software one. Returns how many, or -1 with err set for a bad choice.
static int device_order(EGLDeviceEXT *devices, int n, int *order, char *err, size_t err_size) {
    const char *want = getenv("BOIDS_EGL_DEVICE");
    int software = -1, k = 0;
    bool want_sw = want && strcmp(want, "software") == 0, want_hw = want && strcmp(want, "hardware") == 0;
    if (want && *want && !want_sw && !want_hw) {
        char *end;
        long i = strtol(want, &end, 10);
        if (*end || i < 0 || i >= n) {
            snprintf(err, err_size,
                     "BOIDS_EGL_DEVICE: '%s' is not a device; expected software, hardware or an index 0..%d", want,
                     n - 1);
            return -1;
        }
        order[0] = (int)i;
        return 1;
    }
    for (int i = 0; i < n; i++) {
        const char *ext = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
        if (has_ext(ext, "EGL_MESA_device_software")) {
            if (software < 0)
                software = i;
        } else if (!want_sw) {
            order[k++] = i;
        }
    }
    if (software >= 0 && !want_hw)
        order[k++] = software;
    if (k == 0 && want && *want) {
        snprintf(err, err_size, "BOIDS_EGL_DEVICE: '%s': no such EGL device among the %d found; expected %s", want, n,
                 want_sw ? "hardware or an index" : "software or an index");
        return -1;
    }
    return k;
}

// Create a context of the given version (0 = whatever the driver offers).
// khr: debug and robustness through EGL_KHR_create_context's flags (EGL
// older than 1.5) rather than EGL 1.5's attributes.
static EGLContext make_context_robust(EGLDisplay d, EGLConfig cfg, int major, int minor, enum robustness rob,
                                      bool khr) {
    EGLint attr[16] = {EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION, minor,
                       EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT};
    int k = 6;
    if (khr) {
        attr[k++] = KHR_CONTEXT_FLAGS;
        attr[k++] =
            KHR_CONTEXT_OPENGL_DEBUG_BIT | (rob == ROBUST_ACCESS_AND_RESET ? KHR_CONTEXT_OPENGL_ROBUST_ACCESS_BIT : 0);
    } else {
        attr[k++] = EGL_CONTEXT_OPENGL_DEBUG;
        attr[k++] = EGL_TRUE;
        if (rob == ROBUST_ACCESS_AND_RESET) {
            attr[k++] = EGL_CONTEXT_OPENGL_ROBUST_ACCESS;
            attr[k++] = EGL_TRUE;
        }
    }
    if (rob != ROBUST_NONE) {
        attr[k++] =
            khr ? KHR_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY : EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY;
        attr[k++] = EGL_LOSE_CONTEXT_ON_RESET;
    }
    attr[k] = EGL_NONE;
    return eglCreateContext(d, cfg, EGL_NO_CONTEXT, major ? attr : (EGLint[]){EGL_NONE});
}

static EGLContext make_context(EGLDisplay d, EGLConfig cfg, int major, int minor) {
    return make_context_robust(d, cfg, major, minor, ROBUST_NONE, false);
}

// A GL 4.5 core debug context, as robust as the display grants (see the top
// of the file); *rob receives what was granted. A refused robust request
// leaves an EGL error behind, which is cleared before the next try.
static EGLContext make_robust_45(EGLDisplay d, EGLConfig cfg, EGLint egl_major, EGLint egl_minor,
                                 enum robustness *rob) {
    bool core15 = egl_major > 1 || (egl_major == 1 && egl_minor >= 5);
    bool khr = !core15 && has_ext(eglQueryString(d, EGL_EXTENSIONS), "EGL_KHR_create_context");
    for (int r = core15 || khr ? ROBUST_ACCESS_AND_RESET : ROBUST_NONE; r <= ROBUST_NONE; r++) {
        EGLContext ctx = make_context_robust(d, cfg, 4, 5, (enum robustness)r, khr);
        if (ctx != EGL_NO_CONTEXT || r == ROBUST_NONE) {
            *rob = (enum robustness)r;
            return ctx;
        }
        eglGetError();
    }
    *rob = ROBUST_NONE;
    return EGL_NO_CONTEXT;
}

// What a context of any version reports, for the error message.
static void describe_fallback(EGLDisplay d, EGLConfig cfg, char *buf, size_t size) {
    snprintf(buf, size, "no OpenGL context at all");
    EGLContext any = make_context(d, cfg, 0, 0);
    if (any == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, any))
        return;
    if (gladLoadGL((GLADloadfunc)eglGetProcAddress)) {
        const char *r = (const char *)glGetString(GL_RENDERER), *v = (const char *)glGetString(GL_VERSION);
        snprintf(buf, size, "renderer '%s', OpenGL %s", r ? r : "?", v ? v : "?");
    }
    eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(d, any);
}

// Initialise display d and make a current GL 4.5 core debug context on it
// (c->display, c->context). On failure the display is terminated and err
// says what was found.
static boids_result try_display(boids_gl_context *c, EGLDisplay d, char *err, size_t err_size) {
    EGLint major = 0, minor = 0;
    if (d == EGL_NO_DISPLAY || !eglInitialize(d, &major, &minor)) {
        snprintf(err, err_size, "EGL: %s could not be initialised (error 0x%x)", c->describe, eglGetError());
        return BOIDS_ERR_GL;
    }
    // Now the EGL 1.5 core entry points of this display.
    gladLoaderLoadEGL(d);
    EGLConfig cfg = NULL;
    EGLint n = 0;
    // Device displays have no window configs (NVIDIA): ask for pbuffer ones;
    // without any, a context needs no config where EGL_KHR_no_config_context is.
    const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    eglBindAPI(EGL_OPENGL_API);
    if (!eglChooseConfig(d, cfg_attr, &cfg, 1, &n) || n < 1) {
        if (!has_ext(eglQueryString(d, EGL_EXTENSIONS), "EGL_KHR_no_config_context")) {
            snprintf(err, err_size, "%s: no OpenGL-capable EGL config and no EGL_KHR_no_config_context", c->describe);
            eglTerminate(d);
            return BOIDS_ERR_GL;
        }
        cfg = EGL_NO_CONFIG_KHR;
    }
    enum robustness rob = ROBUST_NONE;
    EGLContext ctx = make_robust_45(d, cfg, major, minor, &rob);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        char found[256];
        EGLint e = eglGetError();
        if (ctx != EGL_NO_CONTEXT)
            eglDestroyContext(d, ctx);
        describe_fallback(d, cfg, found, sizeof(found));
        snprintf(err, err_size, "%s: no OpenGL 4.5 core context (EGL %d.%d, error 0x%x); found %s", c->describe,
                 major, minor, e, found);
        eglTerminate(d);
        return BOIDS_ERR_GL;
    }
    if (!gladLoadGL((GLADloadfunc)eglGetProcAddress)) {
        snprintf(err, err_size, "%s: the OpenGL 4.5 entry points could not be loaded", c->describe);
        eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(d, ctx);
        eglTerminate(d);
        return BOIDS_ERR_GL;
    }
    c->display = d;
    c->context = ctx;
    c->robust = rob != ROBUST_NONE;
    size_t len = strlen(c->describe);
    snprintf(c->describe + len, sizeof(c->describe) - len, ", %s",
             rob == ROBUST_ACCESS_AND_RESET ? "robust (robust access, lose context on reset)"
             : rob == ROBUST_RESET_ONLY     ? "robust (lose context on reset)"
                                            : "not robust (no reset notification)");
    return BOIDS_OK;
}

// See boids/platform.h. Every candidate device is tried in turn (a driver
// that cannot serve one GPU does not hide the next), then the surfaceless
// platform unless BOIDS_EGL_DEVICE asked for a device.
boids_result boids_egl_create(boids_gl_context **out, char *err, size_t err_size) {
    char scratch[1024]; // the reasons below are built in err: a caller's NULL gets one
    if (!err || !err_size) {
        err = scratch;
        err_size = sizeof scratch;
    }
    if (!out) {
        snprintf(err, err_size, "boids_egl_create: out is NULL; expected where to put the context");
        return BOIDS_ERR_ARGUMENT;
    }
    *out = NULL;
    err[0] = '\0';
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
        snprintf(err, err_size, "EGL: libEGL.so.1 could not be loaded; install libegl1 and Mesa's libegl-mesa0");
        return BOIDS_ERR_GL;
    }
    boids_gl_context *c = calloc(1, sizeof(*c));
    if (!c)
        return BOIDS_ERR_NOMEM;
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    const char *want = getenv("BOIDS_EGL_DEVICE");
    bool chosen = want && *want;
    if (has_ext(client, "EGL_EXT_platform_device") && eglQueryDevicesEXT && eglGetPlatformDisplayEXT) {
        EGLDeviceEXT devices[MAX_DEVICES];
        EGLint n = 0;
        if (eglQueryDevicesEXT(MAX_DEVICES, devices, &n) && n > 0) {
            int order[MAX_DEVICES];
            int k = device_order(devices, n, order, err, err_size);
            if (k < 0) {
                free(c);
                return BOIDS_ERR_GL;
            }
            for (int i = 0; i < k; i++) {
                const char *ext = eglQueryDeviceStringEXT(devices[order[i]], EGL_EXTENSIONS);
                snprintf(c->describe, sizeof(c->describe), "EGL device %d of %d%s", order[i], (int)n,
                         has_ext(ext, "EGL_MESA_device_software") ? " (software)" : "");
                EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[order[i]], NULL);
                if (try_display(c, d, err, err_size) == BOIDS_OK) {
                    *out = c;
                    return BOIDS_OK;
                }
            }
        }
    }
    if (!chosen && has_ext(client, "EGL_MESA_platform_surfaceless") && eglGetPlatformDisplayEXT) {
        char device_err[1024];
        snprintf(device_err, sizeof(device_err), "%s", err);
        snprintf(c->describe, sizeof(c->describe), "EGL surfaceless platform");
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (try_display(c, d, err, err_size) == BOIDS_OK) {
            *out = c;
            return BOIDS_OK;
        }
        if (device_err[0]) // the device's reason says more than the fallback's
            snprintf(err, err_size, "%s", device_err);
    }
    if (!err[0])
        snprintf(err, err_size,
                 "EGL: neither EGL_EXT_platform_device nor EGL_MESA_platform_surfaceless is available "
                 "(client extensions: %s); install Mesa's libegl-mesa0",
                 client ? client : "none");
    free(c);
    return BOIDS_ERR_GL;
}

// Release the context and the display.
void boids_gl_context_destroy(boids_gl_context *c) {
    if (!c)
        return;
    eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(c->display, c->context);
    eglTerminate(c->display);
    free(c);
}

// eglGetProcAddress, as the loader of this context's GL functions.
boids_gl_loadfn boids_gl_loader(const boids_gl_context *c) {
    (void)c;
    return (boids_gl_loadfn)eglGetProcAddress;
}

// How the context was made.
const char *boids_gl_context_describe(const boids_gl_context *c) {
    return c ? c->describe : "";
}

// Whether the context reports resets (see the top of the file).
bool boids_gl_context_robust(const boids_gl_context *c) {
    return c && c->robust;
}
