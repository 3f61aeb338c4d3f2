// src/gl/program_source.c: the sources of a shader as program.c hands them
// to the driver (program_source.h). No GL: the same function serves the
// backend and the portability check (tools/shader_source.c).
#include "program_source.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct boids_shader_file {
    const char *name;
    const char *text;
} boids_shader_file;
extern const boids_shader_file boids_shader_files[]; // shaders_embedded.c

// Every compute stage's files before its own, in this order.
static const char *const prelude[] = {"shared.h",       "common.glsl", "rounding.glsl", "trig.glsl",
                                      "behaviors.glsl", "models.glsl", "grid.glsl"};
#define PRELUDE_COUNT (sizeof(prelude) / sizeof(prelude[0]))
// The files one compute stage alone reads, between the prelude and the stage.
static const struct { const char *stage, *part; } stage_parts[] = {{"bodies.comp", "bodies.glsl"}};
#define STAGE_PARTS_COUNT (sizeof(stage_parts) / sizeof(stage_parts[0]))
_Static_assert(PRELUDE_COUNT + 4 <= BOIDS_SHADER_MAX_PARTS,
               "version, emulate.glsl, the prelude, a stage's own part and the stage");

// See program_source.h.
const char *boids_shader_file_at(size_t i) {
    for (size_t k = 0; boids_shader_files[k].name; k++)
        if (k == i)
            return boids_shader_files[k].name;
    return NULL;
}

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

// The version line and the defines of `file`: "#define
// BOIDS_STAGE_STEER_COMP 1"-style name of a file (upper case, '.' as '_');
// compute stages get the name without the extension (BOIDS_STAGE_STEER:
// which blocks common.glsl declares) and, with BOIDS_SHADER_INT64, the
// extension and BOIDS_INT64; drawing shaders with BOIDS_SHADER_GL41 get
// "#version 410 core" and BOIDS_GL41.
static void version_lines(const char *file, bool compute, unsigned flags, char *version, size_t size) {
    char upper[64];
    size_t k = 0;
    for (; file[k] && k + 1 < sizeof(upper); k++)
        upper[k] = file[k] == '.' ? '_' : (char)toupper((unsigned char)file[k]);
    upper[k] = '\0';
    char *dot = strrchr(upper, '_');
    if (compute && dot)
        *dot = '\0';
    bool int64 = compute && (flags & BOIDS_SHADER_INT64);
    unsigned emu = compute ? flags : 0u;
    bool gl41 = !compute && (flags & BOIDS_SHADER_GL41);
    snprintf(version, size, "#version %s core\n%s%s#define BOIDS_GLSL 1\n#define BOIDS_STAGE_%s 1\n%s%s%s%s%s%s%s%s%s",
             gl41 ? "410" : "450", gl41 ? "#define BOIDS_GL41 1\n" : "",
             int64 ? "#extension GL_ARB_gpu_shader_int64 : require\n#define BOIDS_INT64 1\n" : "", upper,
             compute && (flags & BOIDS_SHADER_MORTON) ? "#define BOIDS_KERNEL_MORTON 1\n" : "",
             (emu & BOIDS_SHADER_EMU_CONV_SAT) ? "#define BOIDS_EMULATE_CONV_SAT 1\n" : "",
             (emu & BOIDS_SHADER_EMU_CONV_WRAP) ? "#define BOIDS_EMULATE_CONV_WRAP 1\n" : "",
             (emu & BOIDS_SHADER_EMU_ULP_UP) ? "#define BOIDS_EMULATE_ULP_UP 1\n" : "",
             (emu & BOIDS_SHADER_EMU_ULP_DOWN) ? "#define BOIDS_EMULATE_ULP_DOWN 1\n" : "",
             (emu & BOIDS_SHADER_EMU_DIV_UP) ? "#define BOIDS_EMULATE_DIV_UP 1\n" : "",
             (emu & BOIDS_SHADER_EMU_DIV_DOWN) ? "#define BOIDS_EMULATE_DIV_DOWN 1\n" : "",
             (emu & BOIDS_SHADER_EMU_TRIG) ? "#define BOIDS_EMULATE_TRIG 1\n" : "",
             (emu & BOIDS_SHADER_CORRECT) ? "#define BOIDS_CORRECT_ROUNDING 1\n" : "");
}

// See program_source.h.
boids_result boids_shader_source_build(boids_shader_source *s, const char *shader_dir, const char *file, unsigned flags,
                                       char *err, size_t err_size) {
    return boids_shader_source_build_with(s, shader_dir, file, flags, NULL, err, err_size);
}

// See program_source.h.
boids_result boids_shader_source_build_with(boids_shader_source *s, const char *shader_dir, const char *file,
                                            unsigned flags, const char *defines, char *err, size_t err_size) {
    memset(s, 0, sizeof(*s));
    size_t len = strlen(file);
    bool compute = len > 5 && strcmp(file + len - 5, ".comp") == 0;
    const char *files[PRELUDE_COUNT + 3];
    size_t nfiles = 0;
    if (compute && (flags & BOIDS_SHADER_EMU_ALL))
        files[nfiles++] = "emulate.glsl";
    if (compute) {
        for (size_t i = 0; i < PRELUDE_COUNT; i++)
            files[nfiles++] = prelude[i];
        for (size_t i = 0; i < STAGE_PARTS_COUNT; i++)
            if (strcmp(stage_parts[i].stage, file) == 0) {
                files[nfiles++] = stage_parts[i].part; // one at most: files[] has room for one
                break;
            }
    } else
        files[nfiles++] = "shared.h";
    files[nfiles++] = file;
    version_lines(file, compute, flags, s->version, sizeof(s->version));
    if (defines) {
        size_t used = strlen(s->version);
        if (used + strlen(defines) + 1 > sizeof(s->version)) {
            snprintf(err, err_size, "shader %s: %zu bytes of defines (at most %zu)", file, strlen(defines),
                     sizeof(s->version) - used - 1);
            return BOIDS_ERR_SHADER;
        }
        memcpy(s->version + used, defines, strlen(defines) + 1);
    }
    s->names[0] = "(version)";
    s->texts[0] = s->version;
    s->count = 1;
    for (size_t i = 0; i < nfiles; i++) {
        char *owned;
        const char *text = shader_text(shader_dir, files[i], &owned, err, err_size);
        if (!text) {
            boids_shader_source_free(s);
            return BOIDS_ERR_SHADER;
        }
        size_t size = strlen(text) + 32;
        char *with_line = malloc(size);
        if (!with_line) {
            free(owned);
            boids_shader_source_free(s);
            snprintf(err, err_size, "out of memory assembling shader %s", file);
            return BOIDS_ERR_NOMEM;
        }
        snprintf(with_line, size, "#line 1 %zu\n%s\n", s->count, text);
        free(owned);
        s->names[s->count] = files[i];
        s->texts[s->count] = with_line;
        s->owned[s->count] = with_line;
        s->count++;
    }
    return BOIDS_OK;
}

// See program_source.h.
void boids_shader_source_free(boids_shader_source *s) {
    for (size_t i = 0; i < BOIDS_SHADER_MAX_PARTS; i++)
        free(s->owned[i]);
    memset(s, 0, sizeof(*s));
}

// See program_source.h.
char *boids_shader_source_text(const boids_shader_source *s) {
    size_t len = 1;
    for (size_t i = 0; i < s->count; i++)
        len += strlen(s->texts[i]);
    char *out = malloc(len);
    if (!out)
        return NULL;
    char *p = out;
    for (size_t i = 0; i < s->count; i++) {
        size_t n = strlen(s->texts[i]);
        memcpy(p, s->texts[i], n);
        p += n;
    }
    *p = '\0';
    return out;
}
