// src/viewer/viewer_keys.c: what is made of the viewer's one key table
// (viewer_key_table.c, handed in through v->keys): the key list of --help
// (viewer_keys_usage), the labels of the help overlay (viewer_hud.c) and the
// dispatch of a press; the names of keys for labels and for --keys scripts,
// which are parsed and replayed here.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer.h"

// Keys by name: the script's names (aliases without a label) and the labels.
static const struct {
    int key;
    const char *name, *label;
} named[] = {
    {GLFW_KEY_SPACE, "space", "Space"}, {GLFW_KEY_ESCAPE, "esc", "Esc"},    {GLFW_KEY_ESCAPE, "escape", NULL},
    {GLFW_KEY_F1, "f1", "F1"},          {GLFW_KEY_F1, "F1", NULL},          {GLFW_KEY_F2, "f2", "F2"},
    {GLFW_KEY_F2, "F2", NULL},          {GLFW_KEY_PERIOD, "period", "."},   {GLFW_KEY_COMMA, "comma", ","},
    {GLFW_KEY_LEFT, "left", "Left"},    {GLFW_KEY_RIGHT, "right", "Right"}, {GLFW_KEY_UP, "up", "Up"},
    {GLFW_KEY_DOWN, "down", "Down"},    {GLFW_KEY_HOME, "home", "Home"},    {GLFW_KEY_END, "end", "End"},
    {GLFW_KEY_LEFT_BRACKET, "[", "["},  {GLFW_KEY_RIGHT_BRACKET, "]", "]"}, {GLFW_KEY_MINUS, "-", "-"},
    {GLFW_KEY_EQUAL, "=", "="},         {GLFW_KEY_PERIOD, ".", NULL},       {GLFW_KEY_COMMA, ",", NULL},
    {GLFW_KEY_SPACE, " ", NULL},        {GLFW_KEY_ENTER, "enter", "Enter"}, {GLFW_KEY_TAB, "tab", "Tab"},
    {GLFW_KEY_ENTER, "return", NULL},
};
#define NAMED (sizeof named / sizeof named[0])

// The GLFW key of a script name (0-9, a-z, A-Z or a name above), or -1.
static int key_of_name(const char *s) {
    if (s[0] && !s[1]) {
        char c = s[0];
        if (c >= '0' && c <= '9')
            return GLFW_KEY_0 + (c - '0');
        if (c >= 'a' && c <= 'z')
            return GLFW_KEY_A + (c - 'a');
        if (c >= 'A' && c <= 'Z')
            return GLFW_KEY_A + (c - 'A');
    }
    for (size_t k = 0; k < NAMED; k++)
        if (strcmp(s, named[k].name) == 0)
            return named[k].key;
    return -1;
}

// The label of one key: "1", "O", "Space", "[".
static const char *key_label(int key, char buf[2]) {
    if ((key >= GLFW_KEY_0 && key <= GLFW_KEY_9) || (key >= GLFW_KEY_A && key <= GLFW_KEY_Z)) {
        buf[0] = (char)key; // GLFW's printable keys are their ASCII (upper case) codes
        buf[1] = '\0';
        return buf;
    }
    for (size_t k = 0; k < NAMED; k++)
        if (named[k].key == key && named[k].label)
            return named[k].label;
    return "?";
}

// See viewer.h.
void viewer_keys_label(const viewer_key *k, char *out, size_t size) {
    char a[2], b[2];
    if (k->keys[1])
        snprintf(out, size, "%s %s", key_label(k->keys[0], a), key_label(k->keys[1], b));
    else
        snprintf(out, size, "%s", key_label(k->keys[0], a));
}

// See viewer.h: one line per entry, "  LABEL   text", under a heading per mode.
void viewer_keys_usage(const viewer_key *keys, size_t key_count, char *out, size_t size, const char *tail) {
    static const struct {
        uint32_t bit;
        const char *heading;
    } modes[] = {{VIEWER_FLOCK, "Keys (H or F1 lists them in the window):"},
                 {VIEWER_REPLAY, "Keys with --replay:"},
                 {VIEWER_DEMO, "Keys with --demo:"}};
    size_t n = 0;
    // --keys: every name key_of_name takes (the named table's, but the space itself).
    n += (size_t)snprintf(out + n, n < size ? size - n : 0,
                          "\n--keys SCRIPT: a comma list of [FRAME:]KEY; an item without a FRAME comes one frame "
                          "after the previous one (first: frame 1).\nKEY: 0-9, a-z");
    for (size_t k = 0; k < NAMED; k++) // one paragraph a line: the help wraps it
        if (strcmp(named[k].name, " ") != 0)
            n += (size_t)snprintf(out + n, n < size ? size - n : 0, ", %s", named[k].name);
    n += (size_t)snprintf(out + n, n < size ? size - n : 0,
                          "; or WxH to resize the window (0x0: minimise), mouse=X,Y to move the mouse (world "
                          "coordinates; with --demo the canvas' pixels, y down), press / release for the left "
                          "button.\n");
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        n += (size_t)snprintf(out + n, n < size ? size - n : 0, "\n%s\n", modes[m].heading);
        for (size_t i = 0; i < key_count; i++) {
            if (!(keys[i].modes & modes[m].bit))
                continue;
            char label[32];
            viewer_keys_label(&keys[i], label, sizeof label);
            n += (size_t)snprintf(out + n, n < size ? size - n : 0, "  %-10s  %s\n", label, keys[i].text);
        }
    }
    snprintf(out + n, n < size ? size - n : 0, "%s", tail);
}

// The entry of the mode's keys that has `key`, or NULL.
static const viewer_key *entry_of(const viewer *v, int key) {
    for (size_t i = 0; i < v->key_count; i++) {
        const viewer_key *k = &v->keys[i];
        if ((k->modes & v->mode->bit) && (k->keys[0] == key || (k->keys[1] && k->keys[1] == key)))
            return k;
    }
    return NULL;
}

// See viewer.h.
void viewer_keys_press(viewer *v, int key) {
    const viewer_key *k = entry_of(v, key);
    if (k)
        k->fn(v, key, k->arg);
}

// See viewer.h: a press, or a repeat of a key that repeats.
void viewer_keys_on_glfw(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    (void)mods;
    viewer *v = glfwGetWindowUserPointer(w);
    const viewer_key *k = entry_of(v, key);
    if (k && (action == GLFW_PRESS || (action == GLFW_REPEAT && k->repeat)))
        k->fn(v, key, k->arg);
}

// See viewer.h.
int viewer_keys_script_parse(viewer *v, const char *script) {
    const char *expected = "a comma list of [FRAME:]KEY (KEY: 0-9, a-z, space, '.', comma, esc, f1, [, ], -, =, "
                           "left, right, up, down, home, end, enter, tab, WxH, mouse=X,Y, press or release)";
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
        if (n == VIEWER_MAX_SCRIPT) {
            boids_cli_error(PROG, "--keys", script, expected, "has more than %d items", VIEWER_MAX_SCRIPT);
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
        viewer_script_event e = {.frame = frame, .key = key_of_name(name)};
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
        v->script[n++] = e;
        p += len + (end ? 1 : 0);
    }
    v->script_n = n;
    return 0;
}

// See viewer.h.
void viewer_keys_script_run(viewer *v) {
    for (; v->script_next < v->script_n && v->script[v->script_next].frame <= v->frame; v->script_next++) {
        const viewer_script_event *e = &v->script[v->script_next];
        if (e->key >= 0) {
            viewer_keys_press(v, e->key);
        } else if (e->key == SCRIPT_MOUSE) {
            viewer_mouse(v, e->x, e->y);
        } else if (e->key == SCRIPT_PRESS || e->key == SCRIPT_RELEASE) {
            viewer_button(v, e->key == SCRIPT_PRESS);
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
