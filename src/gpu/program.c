// src/gpu/program.c: building compute programs. The sources of one program
// are passed as separate strings - the #version line, shared.h, common.glsl,
// behaviors.glsl, grid.glsl, the stage - each opening with "#line 1 N", so
// the driver's log says which string (file) and line; the log is rewritten
// with the file names before it is shown.
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

typedef struct boids_shader_file {
    const char *name;
    const char *text;
} boids_shader_file;
extern const boids_shader_file boids_shader_files[]; // shaders_embedded.c

static const char *const prelude[] = {"shared.h", "common.glsl", "behaviors.glsl", "grid.glsl"};
#define PRELUDE_COUNT (sizeof(prelude) / sizeof(prelude[0]))
#define MAX_PARTS (PRELUDE_COUNT + 2)

static const char version_fmt[] = "#version 450 core\n"
                                  "#extension GL_ARB_gpu_shader_int64 : require\n"
                                  "#define BOIDS_GLSL 1\n"
                                  "#define BOIDS_STAGE_%s 1\n";

// The text of a shader file: from dir if given (malloc'd), else embedded
// (*owned = NULL).
static const char *shader_text(const char *dir, const char *name, char **owned, char *err, size_t err_size) {
    *owned = NULL;
    if (!dir) {
        for (const boids_shader_file *f = boids_shader_files; f->name; f++)
            if (strcmp(f->name, name) == 0)
                return f->text;
        snprintf(err, err_size, "shader %s is not built into this executable", name);
        return NULL;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, err_size, "--shader-dir: '%s' cannot be read (%s); expected a directory with the files of shaders/",
                 path, strerror(errno));
        return NULL;
    }
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (!text || fread(text, 1, (size_t)size, fp) != (size_t)size) {
        free(text);
        fclose(fp);
        snprintf(err, err_size, "--shader-dir: '%s' could not be read", path);
        return NULL;
    }
    text[size] = '\0';
    fclose(fp);
    *owned = text;
    return text;
}

// The info log with each "N:" source-string prefix (Mesa: "0:12(3): error")
// replaced by the file name, newlines turned into "; ", into err.
static void named_log(const char *log, const char *const *names, size_t count, char *err, size_t err_size) {
    size_t used = strlen(err);
    bool first = true;
    for (const char *p = log; *p && used + 1 < err_size;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char *end;
        long n = strtol(p, &end, 10);
        const char *rest = p;
        const char *name = NULL;
        char line_no[24] = "";
        if (end != p && n >= 0 && (size_t)n < count) {
            if (*end == ':') { // Mesa: "N:LINE(COL): error ..."
                name = names[n];
                rest = end + 1;
            } else if (*end == '(') { // NVIDIA: "N(LINE) : error ..."
                char *close;
                long line = strtol(end + 1, &close, 10);
                if (*close == ')') {
                    name = names[n];
                    snprintf(line_no, sizeof(line_no), "%ld:", line);
                    rest = close + 1;
                    while (*rest == ' ' || *rest == ':')
                        rest++;
                }
            }
        }
        if (len == 0) {
            p += eol ? 1 : 0;
            continue;
        }
        int w = snprintf(err + used, err_size - used, "%s%s%s%s%s%.*s", first ? "" : "; ", name ? name : "",
                         name ? ":" : "", line_no, line_no[0] ? " " : "", (int)(len - (size_t)(rest - p)), rest);
        if (w < 0)
            break;
        first = false;
        used += (size_t)w < err_size - used ? (size_t)w : err_size - used - 1;
        p += len + (eol ? 1 : 0);
    }
}

// See program.h.
boids_result boids_program_compute(const char *shader_dir, const char *stage, GLuint *out, char *err,
                                   size_t err_size) {
    // "#define BOIDS_STAGE_STEER 1" for steer.comp: which blocks common.glsl declares.
    char version[256], upper[64];
    size_t k = 0;
    for (; stage[k] && stage[k] != '.' && k + 1 < sizeof(upper); k++)
        upper[k] = (char)toupper((unsigned char)stage[k]);
    upper[k] = '\0';
    snprintf(version, sizeof(version), version_fmt, upper);
    const char *names[MAX_PARTS] = {"(version)"};
    const char *texts[MAX_PARTS] = {version};
    char *owned[MAX_PARTS] = {NULL};
    char *with_line[MAX_PARTS] = {NULL};
    size_t count = 1;
    boids_result r = BOIDS_OK;
    for (size_t i = 0; i <= PRELUDE_COUNT && r == BOIDS_OK; i++) {
        const char *name = i < PRELUDE_COUNT ? prelude[i] : stage;
        const char *text = shader_text(shader_dir, name, &owned[count], err, err_size);
        if (!text) {
            r = BOIDS_ERR_SHADER;
            break;
        }
        // "#line 1 N": line numbers and the source-string number of this file.
        size_t len = strlen(text) + 32;
        with_line[count] = malloc(len);
        if (!with_line[count]) {
            r = BOIDS_ERR_NOMEM;
            break;
        }
        snprintf(with_line[count], len, "#line 1 %zu\n%s\n", count, text);
        names[count] = name;
        texts[count] = with_line[count];
        count++;
    }
    GLuint sh = 0, prog = 0;
    if (r == BOIDS_OK) {
        sh = glCreateShader(GL_COMPUTE_SHADER);
        glShaderSource(sh, (GLsizei)count, texts, NULL);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[8192] = "";
            glGetShaderInfoLog(sh, sizeof(log), NULL, log);
            snprintf(err, err_size, "shader %s failed to compile: ", stage);
            named_log(log, names, count, err, err_size);
            r = BOIDS_ERR_SHADER;
        }
    }
    if (r == BOIDS_OK) {
        prog = glCreateProgram();
        glAttachShader(prog, sh);
        glLinkProgram(prog);
        GLint ok = 0;
        glGetProgramiv(prog, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[8192] = "";
            glGetProgramInfoLog(prog, sizeof(log), NULL, log);
            snprintf(err, err_size, "shader %s failed to link: ", stage);
            named_log(log, names, count, err, err_size);
            glDeleteProgram(prog);
            prog = 0;
            r = BOIDS_ERR_SHADER;
        } else {
            glObjectLabel(GL_PROGRAM, prog, -1, stage);
        }
    }
    if (sh)
        glDeleteShader(sh);
    for (size_t i = 0; i < MAX_PARTS; i++) {
        free(owned[i]);
        free(with_line[i]);
    }
    *out = prog;
    return r;
}

// One vertex or fragment shader of a drawing program: the version line,
// shared.h and the file, each its own string with "#line 1 N" (as compute).
static GLuint graphics_shader(const char *shader_dir, GLenum type, const char *file, char *err, size_t err_size,
                              boids_result *r) {
    char version[256], upper[64];
    size_t k = 0;
    for (; file[k] && k + 1 < sizeof(upper); k++)
        upper[k] = file[k] == '.' ? '_' : (char)toupper((unsigned char)file[k]);
    upper[k] = '\0';
    snprintf(version, sizeof(version), "#version 450 core\n#define BOIDS_GLSL 1\n#define BOIDS_STAGE_%s 1\n", upper);
    const char *names[3] = {"(version)", "shared.h", file};
    const char *texts[3] = {version, NULL, NULL};
    char *owned[3] = {NULL}, *with_line[3] = {NULL};
    GLuint sh = 0;
    *r = BOIDS_OK;
    for (size_t i = 1; i < 3 && *r == BOIDS_OK; i++) {
        const char *text = shader_text(shader_dir, names[i], &owned[i], err, err_size);
        if (!text) {
            *r = BOIDS_ERR_SHADER;
            break;
        }
        size_t len = strlen(text) + 32;
        if (!(with_line[i] = malloc(len))) {
            *r = BOIDS_ERR_NOMEM;
            break;
        }
        snprintf(with_line[i], len, "#line 1 %zu\n%s\n", i, text);
        texts[i] = with_line[i];
    }
    if (*r == BOIDS_OK) {
        sh = glCreateShader(type);
        glShaderSource(sh, 3, texts, NULL);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[8192] = "";
            glGetShaderInfoLog(sh, sizeof(log), NULL, log);
            snprintf(err, err_size, "shader %s failed to compile: ", file);
            named_log(log, names, 3, err, err_size);
            glDeleteShader(sh);
            sh = 0;
            *r = BOIDS_ERR_SHADER;
        }
    }
    for (size_t i = 0; i < 3; i++) {
        free(owned[i]);
        free(with_line[i]);
    }
    return sh;
}

// See program.h.
boids_result boids_program_graphics(const char *shader_dir, const char *vert, const char *frag, GLuint *out,
                                    char *err, size_t err_size) {
    *out = 0;
    boids_result r;
    GLuint vs = graphics_shader(shader_dir, GL_VERTEX_SHADER, vert, err, err_size, &r);
    if (!vs)
        return r;
    GLuint fs = graphics_shader(shader_dir, GL_FRAGMENT_SHADER, frag, err, err_size, &r);
    if (!fs) {
        glDeleteShader(vs);
        return r;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[8192] = "";
        glGetProgramInfoLog(prog, sizeof(log), NULL, log);
        snprintf(err, err_size, "shaders %s + %s failed to link: %s", vert, frag, log);
        for (char *c = err; *c; c++)
            if (*c == '\n')
                *c = ' ';
        glDeleteProgram(prog);
        return BOIDS_ERR_SHADER;
    }
    char label[128];
    snprintf(label, sizeof(label), "%s + %s", vert, frag);
    glObjectLabel(GL_PROGRAM, prog, -1, label);
    *out = prog;
    return BOIDS_OK;
}
