// src/gl/program.c: building compute and drawing programs (gl_util.h). The sources of one program
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

#include "gl_util.h"

typedef struct boids_shader_file {
    const char *name;
    const char *text;
} boids_shader_file;
extern const boids_shader_file boids_shader_files[]; // shaders_embedded.c

static const char *const prelude[] = {"shared.h", "common.glsl", "behaviors.glsl", "grid.glsl"};
#define PRELUDE_COUNT (sizeof(prelude) / sizeof(prelude[0]))
#define MAX_PARTS (PRELUDE_COUNT + 2)

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
        snprintf(err, err_size,
                 "--shader-dir: '%s' cannot be read (%s); expected a directory with the files of shaders/", path,
                 strerror(errno));
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
    if (!err || !err_size)
        return;
    size_t used = strlen(err);
    bool first = true;
    for (const char *p = log; *p && used + 1 < err_size;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char *end = (char *)p;
        long n = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1; // never past this line's end
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

// "#define BOIDS_STAGE_STEER_COMP 1"-style name of a file: upper case, '.'
// as '_'; compute stages also get the name without the extension
// (BOIDS_STAGE_STEER: which blocks common.glsl declares).
static void stage_macros(const char *file, bool compute, char *version, size_t size) {
    char upper[64];
    size_t k = 0;
    for (; file[k] && k + 1 < sizeof(upper); k++)
        upper[k] = file[k] == '.' ? '_' : (char)toupper((unsigned char)file[k]);
    upper[k] = '\0';
    char *dot = strrchr(upper, '_');
    if (compute && dot)
        *dot = '\0';
    snprintf(version, size, "#version 450 core\n%s#define BOIDS_GLSL 1\n#define BOIDS_STAGE_%s 1\n",
             compute ? "#extension GL_ARB_gpu_shader_int64 : require\n" : "", upper);
}

// Compile one shader of `type` from the version line and the files, each
// its own source string opening with "#line 1 N"; 0 and r set on failure.
static GLuint compile_files(const char *shader_dir, GLenum type, const char *version, const char *const *files,
                            size_t nfiles, char *err, size_t err_size, boids_result *r) {
    const char *names[MAX_PARTS] = {"(version)"};
    const char *texts[MAX_PARTS] = {version};
    char *owned[MAX_PARTS] = {NULL}, *with_line[MAX_PARTS] = {NULL};
    size_t count = 1;
    GLuint sh = 0;
    *r = BOIDS_OK;
    for (size_t i = 0; i < nfiles && count < MAX_PARTS; i++) {
        const char *text = shader_text(shader_dir, files[i], &owned[count], err, err_size);
        if (!text) {
            *r = BOIDS_ERR_SHADER;
            break;
        }
        size_t len = strlen(text) + 32;
        if (!(with_line[count] = malloc(len))) {
            *r = BOIDS_ERR_NOMEM;
            break;
        }
        snprintf(with_line[count], len, "#line 1 %zu\n%s\n", count, text);
        names[count] = files[i];
        texts[count] = with_line[count];
        count++;
    }
    if (*r == BOIDS_OK) {
        sh = glCreateShader(type);
        glShaderSource(sh, (GLsizei)count, texts, NULL);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[8192] = "";
            glGetShaderInfoLog(sh, sizeof(log), NULL, log);
            snprintf(err, err_size, "shader %s failed to compile: ", files[nfiles - 1]);
            named_log(log, names, count, err, err_size);
            glDeleteShader(sh);
            sh = 0;
            *r = BOIDS_ERR_SHADER;
        }
    }
    for (size_t i = 0; i < MAX_PARTS; i++) {
        free(owned[i]);
        free(with_line[i]);
    }
    return sh;
}

// Link the shaders (deleted afterwards) into a program labelled `label`.
static boids_result link_program(const GLuint *shaders, size_t n, const char *label, GLuint *out, char *err,
                                 size_t err_size) {
    GLuint prog = glCreateProgram();
    for (size_t i = 0; i < n; i++)
        glAttachShader(prog, shaders[i]);
    glLinkProgram(prog);
    for (size_t i = 0; i < n; i++)
        glDeleteShader(shaders[i]);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[8192] = "";
        glGetProgramInfoLog(prog, sizeof(log), NULL, log);
        snprintf(err, err_size, "shader %s failed to link: ", label);
        const char *none[1] = {NULL};
        named_log(log, none, 0, err, err_size);
        glDeleteProgram(prog);
        return BOIDS_ERR_SHADER;
    }
    glObjectLabel(GL_PROGRAM, prog, -1, label);
    *out = prog;
    return BOIDS_OK;
}

// See gl_util.h.
boids_result boids_program_compute(const char *shader_dir, const char *stage, GLuint *out, char *err, size_t err_size) {
    *out = 0;
    char version[256];
    stage_macros(stage, true, version, sizeof(version));
    const char *files[PRELUDE_COUNT + 1];
    for (size_t i = 0; i < PRELUDE_COUNT; i++)
        files[i] = prelude[i];
    files[PRELUDE_COUNT] = stage;
    boids_result r;
    GLuint sh = compile_files(shader_dir, GL_COMPUTE_SHADER, version, files, PRELUDE_COUNT + 1, err, err_size, &r);
    if (!sh)
        return r;
    return link_program(&sh, 1, stage, out, err, err_size);
}

// See gl_util.h. Vertex and fragment shaders get the version line and
// shared.h before their file.
boids_result boids_program_graphics(const char *shader_dir, const char *vert, const char *frag, GLuint *out, char *err,
                                    size_t err_size) {
    *out = 0;
    boids_result r;
    char version[256], label[128];
    GLuint sh[2];
    const char *files[2][2] = {{"shared.h", vert}, {"shared.h", frag}};
    for (int i = 0; i < 2; i++) {
        stage_macros(files[i][1], false, version, sizeof(version));
        sh[i] = compile_files(shader_dir, i ? GL_FRAGMENT_SHADER : GL_VERTEX_SHADER, version, files[i], 2, err,
                              err_size, &r);
        if (!sh[i]) {
            if (i)
                glDeleteShader(sh[0]);
            return r;
        }
    }
    snprintf(label, sizeof(label), "%s + %s", vert, frag);
    return link_program(sh, 2, label, out, err, err_size);
}
