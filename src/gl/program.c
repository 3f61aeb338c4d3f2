// src/gl/program.c: building compute and drawing programs (gl_util.h). The sources of one program
// are passed as separate strings - the #version line, shared.h, common.glsl,
// ..., behaviors.glsl, models.glsl, grid.glsl, the stage - each opening with
// "#line 1 N", so the driver's log says which string (file) and line; the log is rewritten
// with the file names before it is shown. The strings come from
// program_source.c, which assembles them without GL (the portability check
// compiles the same text with glslangValidator).
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_util.h"
#include "program_source.h"

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

// Compile one shader of `type` from the sources of `file` (program_source.h:
// the version line and the files, each its own string opening with "#line
// 1 N"); 0 and r set on failure.
static GLuint compile_file(const char *shader_dir, GLenum type, const char *file, unsigned flags, char *err,
                           size_t err_size, boids_result *r) {
    boids_shader_source src;
    *r = boids_shader_source_build(&src, shader_dir, file, flags, err, err_size);
    if (*r != BOIDS_OK)
        return 0;
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, (GLsizei)src.count, src.texts, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[8192] = "";
        glGetShaderInfoLog(sh, sizeof(log), NULL, log);
        snprintf(err, err_size, "shader %s failed to compile: ", file);
        named_log(log, src.names, src.count, err, err_size);
        glDeleteShader(sh);
        sh = 0;
        *r = BOIDS_ERR_SHADER;
    }
    boids_shader_source_free(&src);
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
    boids_gl_label(GL_PROGRAM, prog, label);
    *out = prog;
    return BOIDS_OK;
}

// See gl_util.h.
boids_result boids_program_compute_start(const char *shader_dir, const char *stage, unsigned flags, const char *defines,
                                         boids_program_build *b, char *err, size_t err_size) {
    memset(b, 0, sizeof *b);
    boids_shader_source src;
    boids_result r = boids_shader_source_build_with(&src, shader_dir, stage, flags, defines, err, err_size);
    if (r != BOIDS_OK)
        return r;
    b->stage = stage;
    b->count = src.count;
    for (size_t i = 0; i < src.count; i++)
        b->names[i] = src.names[i];
    b->shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(b->shader, (GLsizei)src.count, src.texts, NULL);
    boids_shader_source_free(&src);
    glCompileShader(b->shader);
    b->program = glCreateProgram();
    glAttachShader(b->program, b->shader);
    glLinkProgram(b->program);
    return BOIDS_OK;
}

// See gl_util.h.
bool boids_program_build_ready(const boids_program_build *b) {
    if (!GLAD_GL_KHR_parallel_shader_compile && !GLAD_GL_ARB_parallel_shader_compile)
        return true; // no way to ask: the next query finishes it
    GLint done = GL_TRUE;
    glGetProgramiv(b->program, GL_COMPLETION_STATUS_KHR, &done); // the ARB's enum has the same value
    return done == GL_TRUE;
}

// See gl_util.h.
boids_result boids_program_build_finish(boids_program_build *b, GLuint *out, char *err, size_t err_size) {
    *out = 0;
    GLint ok = 0;
    glGetShaderiv(b->shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[8192] = "";
        glGetShaderInfoLog(b->shader, sizeof(log), NULL, log);
        snprintf(err, err_size, "shader %s failed to compile: ", b->stage);
        named_log(log, b->names, b->count, err, err_size);
    }
    glDeleteShader(b->shader);
    if (ok) {
        glGetProgramiv(b->program, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[8192] = "";
            glGetProgramInfoLog(b->program, sizeof(log), NULL, log);
            snprintf(err, err_size, "shader %s failed to link: ", b->stage);
            const char *none[1] = {NULL};
            named_log(log, none, 0, err, err_size);
        }
    }
    if (!ok) {
        glDeleteProgram(b->program);
        memset(b, 0, sizeof *b);
        return BOIDS_ERR_SHADER;
    }
    glObjectLabel(GL_PROGRAM, b->program, -1, b->stage);
    *out = b->program;
    memset(b, 0, sizeof *b);
    return BOIDS_OK;
}

// See gl_util.h.
bool boids_program_parallel(void) {
    if (GLAD_GL_KHR_parallel_shader_compile)
        glMaxShaderCompilerThreadsKHR(0xFFFFFFFFu); // as many as the driver likes
    else if (GLAD_GL_ARB_parallel_shader_compile)
        glMaxShaderCompilerThreadsARB(0xFFFFFFFFu);
    else
        return false;
    return true;
}

// See gl_util.h.
boids_result boids_program_compute(const char *shader_dir, const char *stage, unsigned flags, GLuint *out, char *err,
                                   size_t err_size) {
    *out = 0;
    boids_program_build b;
    boids_result r = boids_program_compute_start(shader_dir, stage, flags, NULL, &b, err, err_size);
    if (r != BOIDS_OK)
        return r;
    return boids_program_build_finish(&b, out, err, err_size);
}

// See gl_util.h. Vertex and fragment shaders get the version line and
// shared.h before their file.
boids_result boids_program_graphics(const char *shader_dir, const char *vert, const char *frag, GLuint *out, char *err,
                                    size_t err_size) {
    *out = 0;
    boids_result r;
    char label[128];
    GLuint sh[2];
    const char *files[2] = {vert, frag};
    unsigned flags = boids_gl41() ? BOIDS_SHADER_GL41 : 0u;
    for (int i = 0; i < 2; i++) {
        sh[i] = compile_file(shader_dir, i ? GL_FRAGMENT_SHADER : GL_VERTEX_SHADER, files[i], flags, err, err_size, &r);
        if (!sh[i]) {
            if (i)
                glDeleteShader(sh[0]);
            return r;
        }
    }
    snprintf(label, sizeof(label), "%s + %s", vert, frag);
    return link_program(sh, 2, label, out, err, err_size);
}

// See gl_util.h.
bool boids_gl41(void) {
    return !GLAD_GL_VERSION_4_5;
}

// See gl_util.h.
void boids_program_uniforms(GLuint program, const boids_uniform *u, size_t n, GLint *map, size_t map_size) {
    for (size_t i = 0; i < map_size; i++)
        map[i] = -1;
    for (size_t i = 0; i < n; i++)
        if (u[i].loc >= 0 && (size_t)u[i].loc < map_size)
            map[u[i].loc] = glGetUniformLocation(program, u[i].name);
}

// See gl_util.h.
bool boids_gl_debug_available(void) {
    return GLAD_GL_VERSION_4_3 || GLAD_GL_KHR_debug;
}

// See gl_util.h.
void boids_gl_label(GLenum identifier, GLuint name, const char *label) {
    if (boids_gl_debug_available())
        glObjectLabel(identifier, name, -1, label);
}
