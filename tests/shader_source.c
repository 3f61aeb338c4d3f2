// tests/shader_source.c: boids-shader-source OUTDIR [SHADER_DIR] writes the
// source of every shader the backend compiles, assembled by the backend's
// own function (src/gl/program_source.h; no GL context), into OUTDIR, and
// prints one line per check for tests/test_glslang.sh:
//   comp FILE        a compute stage (every embedded *.comp), once with
//                    GL_ARB_gpu_shader_int64 (NAME.int64.comp) and once
//                    without (NAME.comp: GLSL 4.50 core, no extension), and
//                    with the GPU kernel variant's defines, no extension
//                    (NAME.morton.comp), and with the correction of sqrt
//                    and division (NAME.corrected.comp: BOIDS_CORRECT_ROUNDING,
//                    as on a driver whose own are not correctly rounded,
//                    src/gpu/gpu_probe.c); steer.comp also specialised as
//                    the backend specialises it (src/gpu/steer_spec.h): to
//                    a 2D flocking run (steer.spec-flocking.comp) and to a
//                    3D run of every behaviour with relations, K nearest
//                    and a finer grid (steer.spec-all.comp)
//   vert FILE / frag FILE   every embedded *.vert, *.frag, once as on GL 4.5
//                    and once as on GL 4.1 core (NAME.gl41.vert: "#version
//                    410 core", BOIDS_GL41; the viewer's --backend cpu)
//   link VERT FRAG   the drawing programs src/render links, on 4.5 and 4.1
// Exit 0, 1 with a message on stderr, or 2 for bad arguments (one line).
// --help and --version: the shared command line (src/app/cli.h).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boids/core.h"
#include "cli.h"
#include "program_source.h"
#include "steer_spec.h"

// The drawing programs of src/render/render.c and bodies.c.
static const char *const drawing[][2] = {
    {"agents.vert", "agents.frag"},
    {"lines.vert", "lines.frag"},
    {"hud.vert", "lines.frag"},
    {"bodies.vert", "bodies.frag"},
    {"density.vert", "density.frag"},
};

static bool ends_with(const char *s, const char *end) {
    size_t n = strlen(s), k = strlen(end);
    return n >= k && strcmp(s + n - k, end) == 0;
}

// Writes the source of `file` (flags, more defines) as OUTDIR/out_name; false on failure.
static bool write_source_with(const char *outdir, const char *shader_dir, const char *file, unsigned flags,
                              const char *defines, const char *out_name) {
    boids_shader_source src;
    char err[1024];
    if (boids_shader_source_build_with(&src, shader_dir, file, flags, defines, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "boids-shader-source: %s\n", err);
        return false;
    }
    char *text = boids_shader_source_text(&src);
    boids_shader_source_free(&src);
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", outdir, out_name);
    FILE *fp = text ? fopen(path, "wb") : NULL;
    bool ok = fp && fputs(text, fp) >= 0;
    if (fp && fclose(fp) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "boids-shader-source: cannot write %s\n", path);
    free(text);
    return ok;
}

// Writes the source of `file` (flags) as OUTDIR/out_name; false on failure.
static bool write_source(const char *outdir, const char *shader_dir, const char *file, unsigned flags,
                         const char *out_name) {
    return write_source_with(outdir, shader_dir, file, flags, NULL, out_name);
}

// The specialised steer of p's spec as OUTDIR/out_name (printed as a check).
static bool write_spec(const char *outdir, const char *shader_dir, const boids_params *p, const char *out_name) {
    boids_steer_spec spec;
    boids_steer_spec_of(&p->world, p->group, &spec);
    char defines[1024];
    if (!boids_steer_spec_defines(&spec, defines, sizeof defines) ||
        !write_source_with(outdir, shader_dir, "steer.comp", 0, defines, out_name))
        return false;
    printf("comp %s\n", out_name);
    return true;
}

static const char usage[] = // the usage lines and what it does, before the flags
    "usage: boids-shader-source OUTDIR [SHADER_DIR]\n"
    "Writes the source of every shader the GPU backend compiles, assembled by the backend's own function (no GL "
    "context), into OUTDIR (made if missing), and prints one line per check for tests/test_glslang.sh: comp FILE, "
    "vert FILE, frag FILE, link VERT FRAG.\n"
    "SHADER_DIR: read the shader files from there instead of the built-in copies.\n"
    "Exit status: 0 done, 1 a shader not written, 2 bad arguments.\n";

// Writes every shader's source into o's OUTDIR; returns the exit status.
static int run(const boids_options *o) {
    const char *outdir = o->operand[0], *shader_dir = o->operand[1];
    if (mkdir(outdir, 0755) != 0 && errno != EEXIST) { // made if missing (its parent must exist)
        fprintf(stderr, "boids-shader-source: cannot create %s: %s\n", outdir, strerror(errno));
        return 1;
    }
    size_t compute = 0;
    for (size_t i = 0; boids_shader_file_at(i); i++) {
        const char *f = boids_shader_file_at(i);
        if (ends_with(f, ".comp")) {
            char name[256];
            snprintf(name, sizeof(name), "%.*s.int64.comp", (int)(strlen(f) - 5), f);
            if (!write_source(outdir, shader_dir, f, 0, f) ||
                !write_source(outdir, shader_dir, f, BOIDS_SHADER_INT64, name))
                return 1;
            printf("comp %s\ncomp %s\n", f, name);
            // The other variants' defines, without the extension: the kernel variant (boids/core.h
            // boids_kernel) and the rounding correction, whose code only this variant compiles.
            static const struct {
                const char *name;
                unsigned flags;
            } variants[] = {{"morton", BOIDS_SHADER_MORTON}, {"corrected", BOIDS_SHADER_CORRECT}};
            for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++) {
                snprintf(name, sizeof(name), "%.*s.%s.comp", (int)(strlen(f) - 5), f, variants[k].name);
                if (!write_source(outdir, shader_dir, f, variants[k].flags, name))
                    return 1;
                printf("comp %s\n", name);
            }
            compute++;
        } else if (ends_with(f, ".vert") || ends_with(f, ".frag")) {
            char name[256];
            snprintf(name, sizeof(name), "%.*s.gl41%s", (int)(strlen(f) - 5), f, f + strlen(f) - 5);
            if (!write_source(outdir, shader_dir, f, 0, f) ||
                !write_source(outdir, shader_dir, f, BOIDS_SHADER_GL41, name))
                return 1;
            printf("%s %s\n%s %s\n", ends_with(f, ".vert") ? "vert" : "frag", f,
                   ends_with(f, ".vert") ? "vert" : "frag", name);
        }
    }
    // The specialised steer programs (src/gpu/steer_spec.h).
    boids_params p;
    char what[256];
    boids_params_default(&p, 1000, 2);
    if (boids_params_finalize(&p, what, sizeof what) != BOIDS_OK ||
        !write_spec(outdir, shader_dir, &p, "steer.spec-flocking.comp"))
        return 1;
    boids_params_default(&p, 1000, 3);
    p.world.boundary = BOIDS_BOUNDARY_WALLS;
    p.world.grid_fine = 2;
    p.group[0].behaviors = 0x1FFFFFFu; // every behaviour
    p.group[0].neighbors_max = 7;
    p.group[0].relations = BOIDS_REL_FLEE; // toward group 0 (the spec only asks: any)
    boids_steer_spec spec;
    boids_steer_spec_of(&p.world, p.group, &spec);
    if (spec.topk != 7 || !spec.relations || !write_spec(outdir, shader_dir, &p, "steer.spec-all.comp"))
        return 1;
    if (compute == 0) {
        fprintf(stderr, "boids-shader-source: no compute shader is built in\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof(drawing) / sizeof(drawing[0]); i++) {
        const char *v = drawing[i][0], *f = drawing[i][1];
        printf("link %s %s\n", v, f);
        printf("link %.*s.gl41.vert %.*s.gl41.frag\n", (int)(strlen(v) - 5), v, (int)(strlen(f) - 5), f);
    }
    return 0;
}

// boids-shader-source: parse (the shared command line: --help, --version), write, exit 0 / 1 / 2.
int main(int argc, char **argv) {
    static const boids_cli_spec spec = {
        .prog = "boids-shader-source",
        .usage = usage,
        .operands = "OUTDIR [SHADER_DIR]",
        .operands_min = 1,
        .operands_max = 2,
    };
    return boids_cli_main(argc, argv, &spec, run);
}
