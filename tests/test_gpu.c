// tests/test_gpu.c: the GPU compute backend (src/gpu) against the CPU
// reference, on whatever GL 4.5 context EGL gives (llvmpipe in CI). No
// context is a FAILURE, never a skip. Every test asserts zero GL errors.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>

#include <glad/gl.h>

#include "check_run.h"
#include "probe.h"
#include "gl_context.h"
#include "boids/behaviors.h"
#include "boids/parse.h"
#include "boids/core.h"
#include "boids/gpu.h"
#include "boids/platform.h"
#include "boids/scenario.h"

// Check only when a condition fails (a passing ck_assert costs a write).
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

static boids_gl_context *ctx;
static int run_cmd(const char *cmd, char *last, size_t size);

// A GL 4.5 context for the test; failing to get one fails the test.
static void open_context(void) {
    ctx = boids_test_gl_open();
}

static void close_context(void) {
    boids_gl_context_destroy(ctx);
    ctx = NULL;
}

static boids_gpu *gpu_for(const boids_params *p, const char *shader_dir) {
    boids_gpu_desc d = {.params = p, .load = boids_gl_loader(ctx), .shader_dir = shader_dir, .quiet = true};
    boids_gpu *g = NULL;
    char err[2048];
    boids_result r = boids_gpu_create(&g, &d, err, sizeof(err));
    ck_assert_msg(r == BOIDS_OK, "boids_gpu_create: %s", err);
    return g;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

// ---- layout: shared.h's structs as the driver lays them out -------------------

static GLint offset_of(GLuint prog, const char *name) {
    GLuint idx = glGetProgramResourceIndex(prog, GL_UNIFORM, name);
    ck_assert_msg(idx != GL_INVALID_INDEX, "uniform %s not found in the layout probe", name);
    GLenum prop = GL_OFFSET;
    GLint v = -1;
    glGetProgramResourceiv(prog, GL_UNIFORM, idx, 1, &prop, 1, NULL, &v);
    return v;
}

static const char probe_src[] =
    "#version 450 core\n#define BOIDS_GLSL 1\n"
    "#include_shared\n"
    "layout(local_size_x = 1) in;\n"
    "layout(std140, binding = 0) uniform World { boids_world_params world; };\n"
    "layout(std140, binding = 1) uniform Groups { boids_group_params group[BOIDS_MAX_GROUPS]; };\n"
    "layout(std140, binding = 2) uniform Scene { boids_scene scene; };\n"
    "layout(std140, binding = 3) uniform Bodies { boids_body_params body[BOIDS_MAX_GROUPS]; };\n"
    "layout(std430, binding = 0) buffer Out { float o[]; };\n"
    "void main() { o[0] = world.dt + world.min.x + float(world.cells.w + world.count + world.seed_hi) + "
    "world.max_radius + group[1].maxspeed + group[1].weight[3].w + float(group[1].behaviors) + "
    "group[1].body_radius + float(group[1].rules) + group[1].turn + group[1].noise + "
    "group[1].alignment_radius + group[1].alignment_fov_cos + group[1].cohesion_fov_cos + "
    "float(group[1].own_cones) + group[1].min_speed + "
    "scene.path[1].x + scene.obstacle[1].w + float(scene.obstacle_count) + "
    "scene.path_radius + float(scene.path_flags) + world.target_vel.x + world.flow_inv_cell.x + "
    "float(world.flow_dims.w) + body[1].segment[7].w "
    "+ "
    "body[1].width[7].w + float(body[1].style + body[1].joints + body[1].min_only) + body[1].angle_limit; }\n";

START_TEST(layout_matches_driver) {
    open_context();
    gladLoadGL((GLADloadfunc)boids_gl_loader(ctx));
    // The shared header, inlined where the probe says so.
    FILE *f = fopen(BOIDS_SHADER_DIR "/shared.h", "rb");
    ck_assert_msg(f != NULL, "shaders/shared.h not found at %s", BOIDS_SHADER_DIR);
    static char shared[65536];
    size_t n = fread(shared, 1, sizeof(shared) - 1, f);
    fclose(f);
    shared[n] = 0;
    const char *marker = strstr(probe_src, "#include_shared\n");
    const char *parts[3] = {NULL, shared, marker + strlen("#include_shared\n")};
    char head[sizeof(probe_src)];
    memcpy(head, probe_src, (size_t)(marker - probe_src));
    head[marker - probe_src] = '\0';
    parts[0] = head;
    GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(sh, 3, parts, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    char log[4096] = "";
    glGetShaderInfoLog(sh, sizeof(log), NULL, log);
    ck_assert_msg(ok, "layout probe failed to compile: %s", log);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, sh);
    glLinkProgram(prog);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    ck_assert_msg(ok, "layout probe failed to link");
    struct {
        const char *name;
        size_t c_offset;
    } world[] = {
        {"world.min", offsetof(boids_world_params, min)},
        {"world.cells", offsetof(boids_world_params, cells)},
        {"world.target_vel", offsetof(boids_world_params, target_vel)},
        {"world.flow_inv_cell", offsetof(boids_world_params, flow_inv_cell)},
        {"world.flow_dims", offsetof(boids_world_params, flow_dims)},
        {"world.count", offsetof(boids_world_params, count)},
        {"world.seed_hi", offsetof(boids_world_params, seed_hi)},
        {"world.dt", offsetof(boids_world_params, dt)},
        {"world.max_radius", offsetof(boids_world_params, max_radius)},
        {"scene.path[0]", offsetof(boids_scene, path)},
        {"scene.obstacle[0]", offsetof(boids_scene, obstacle)},
        {"scene.obstacle_count", offsetof(boids_scene, obstacle_count)},
        {"scene.path_radius", offsetof(boids_scene, path_radius)},
        {"scene.path_flags", offsetof(boids_scene, path_flags)},
    };
    for (size_t i = 0; i < sizeof(world) / sizeof(world[0]); i++) {
        GLint off = offset_of(prog, world[i].name);
        ck_assert_msg(off == (GLint)world[i].c_offset, "%s: GL_OFFSET %d, C offsetof %zu (expected equal)",
                      world[i].name, off, world[i].c_offset);
    }
    // Group array: member offsets inside one element, and the element stride.
    GLint g0 = offset_of(prog, "group[0].maxspeed"), g1 = offset_of(prog, "group[1].maxspeed");
    ck_assert_msg(g1 - g0 == (GLint)sizeof(boids_group_params),
                  "group[] stride %d in GL, sizeof(boids_group_params) %zu in C", g1 - g0, sizeof(boids_group_params));
    GLint w = offset_of(prog, "group[1].weight[0]") - g1, b = offset_of(prog, "group[1].behaviors") - g1,
          br = offset_of(prog, "group[1].body_radius") - g1;
    ck_assert_msg(w == (GLint)offsetof(boids_group_params, weight), "group.weight at %d, C %zu", w,
                  offsetof(boids_group_params, weight));
    ck_assert_msg(b == (GLint)offsetof(boids_group_params, behaviors), "group.behaviors at %d, C %zu", b,
                  offsetof(boids_group_params, behaviors));
    ck_assert_msg(br == (GLint)offsetof(boids_group_params, body_radius), "group.body_radius at %d, C %zu", br,
                  offsetof(boids_group_params, body_radius));
    GLint ru = offset_of(prog, "group[1].rules") - g1, tu = offset_of(prog, "group[1].turn") - g1,
          sp = offset_of(prog, "group[1].noise") - g1;
    ck_assert_msg(ru == (GLint)offsetof(boids_group_params, rules), "group.rules at %d, C %zu", ru,
                  offsetof(boids_group_params, rules));
    ck_assert_msg(tu == (GLint)offsetof(boids_group_params, turn), "group.turn at %d, C %zu", tu,
                  offsetof(boids_group_params, turn));
    ck_assert_msg(sp == (GLint)offsetof(boids_group_params, noise), "group.noise at %d, C %zu", sp,
                  offsetof(boids_group_params, noise));
    // The per-rule neighbourhood rows at the end.
    struct {
        const char *name;
        size_t c_offset;
    } nbhd[] = {
        {"group[1].alignment_radius", offsetof(boids_group_params, alignment_radius)},
        {"group[1].alignment_fov_cos", offsetof(boids_group_params, alignment_fov_cos)},
        {"group[1].cohesion_fov_cos", offsetof(boids_group_params, cohesion_fov_cos)},
        {"group[1].own_cones", offsetof(boids_group_params, own_cones)},
        {"group[1].min_speed", offsetof(boids_group_params, min_speed)},
    };
    for (size_t i = 0; i < sizeof(nbhd) / sizeof(nbhd[0]); i++) {
        GLint off = offset_of(prog, nbhd[i].name) - g1;
        ck_assert_msg(off == (GLint)nbhd[i].c_offset, "%s: GL_OFFSET %d, C offsetof %zu (expected equal)", nbhd[i].name,
                      off, nbhd[i].c_offset);
    }
    // Body params: stride and members (segment and width are vec4[8]: C float[8][4]).
    GLint b0 = offset_of(prog, "body[0].segment[0]"), b1 = offset_of(prog, "body[1].segment[0]");
    ck_assert_msg(b1 - b0 == (GLint)sizeof(boids_body_params), "body[] stride %d in GL, sizeof(boids_body_params) %zu",
                  b1 - b0, sizeof(boids_body_params));
    struct {
        const char *name;
        size_t c_offset;
    } body[] = {
        {"body[1].width[0]", offsetof(boids_body_params, width)},
        {"body[1].style", offsetof(boids_body_params, style)},
        {"body[1].joints", offsetof(boids_body_params, joints)},
        {"body[1].angle_limit", offsetof(boids_body_params, angle_limit)},
        {"body[1].min_only", offsetof(boids_body_params, min_only)},
    };
    for (size_t i = 0; i < sizeof(body) / sizeof(body[0]); i++) {
        GLint off = offset_of(prog, body[i].name) - b1;
        ck_assert_msg(off == (GLint)body[i].c_offset, "%s: GL_OFFSET %d, C offsetof %zu (expected equal)", body[i].name,
                      off, body[i].c_offset);
    }
    GLuint widx = glGetProgramResourceIndex(prog, GL_UNIFORM, "group[1].weight[0]");
    GLenum prop = GL_ARRAY_STRIDE;
    GLint stride = 0;
    glGetProgramResourceiv(prog, GL_UNIFORM, widx, 1, &prop, 1, NULL, &stride);
    ck_assert_msg(stride == 16, "group.weight[] GL_ARRAY_STRIDE %d (expected 16: C float[4][4])", stride);
    glDeleteProgram(prog);
    glDeleteShader(sh);
    close_context();
}
END_TEST

// ---- the grid: exact parity ---------------------------------------------------------

typedef struct layout_case {
    const char *name;
    uint32_t n, dim, boundary;
    boids_distribution dist;
    float min, size;
} layout_case;

static const layout_case grid_cases[] = {
    {"N=0", 0, 2, BOIDS_BOUNDARY_WRAP, BOIDS_DIST_UNIFORM, 0, 400},
    {"N=1", 1, 2, BOIDS_BOUNDARY_WRAP, BOIDS_DIST_UNIFORM, 0, 400},
    {"N=workgroup-1", BOIDS_WORKGROUP_SIZE - 1, 2, BOIDS_BOUNDARY_WRAP, BOIDS_DIST_UNIFORM, -300, 700},
    {"N=workgroup+1 3D walls", BOIDS_WORKGROUP_SIZE + 1, 3, BOIDS_BOUNDARY_WALLS, BOIDS_DIST_UNIFORM, -200, 333},
    {"N=5000 clustered bounce", 5000, 2, BOIDS_BOUNDARY_BOUNCE, BOIDS_DIST_CLUSTERED, 10, 1210},
    {"N=65536 3D wrap", 65536, 3, BOIDS_BOUNDARY_WRAP, BOIDS_DIST_UNIFORM, -1000, 1777},
    {"N=262144 2D wrap (many cells, 3 scan levels)", 262144, 2, BOIDS_BOUNDARY_WRAP, BOIDS_DIST_UNIFORM, -5000, 60000},
    // 4096 x 4096 cells: the scan's add pass needs 65 537 work groups, more
    // than one dispatch dimension holds, so it takes the second one.
    {"N=1000 in 4096x4096 cells (2D dispatch)", 1000, 2, BOIDS_BOUNDARY_WRAP, BOIDS_DIST_UNIFORM, 0, 204800},
};

static void params_for(const layout_case *c, boids_params *p) {
    boids_params_default(p, c->n, c->dim);
    p->world.boundary = c->boundary;
    for (uint32_t a = 0; a < c->dim; a++) {
        p->world.min[a] = c->min;
        p->world.size[a] = c->size;
    }
    char what[256];
    boids_result r = boids_params_finalize(p, what, sizeof(what));
    ck_assert_msg(r == BOIDS_OK, "%s: params: %s", c->name, what);
}

START_TEST(grid_exact) {
    open_context();
    const layout_case *c = &grid_cases[_i];
    boids_params p;
    params_for(c, &p);
    boids_sim *s;
    ck_assert_int_eq(boids_sim_create(&s, &p, c->dist), BOIDS_OK);
    boids_gpu *g = gpu_for(&s->p, NULL); // the embedded shaders
    boids_gpu_upload(g, s);
    uint32_t n = s->n, cells = s->grid.cells;
    // The CPU grid of the same state (slot order as uploaded).
    boids_sim_build_grid(s);
    boids_gpu_build_grid(g);
    uint32_t *key = malloc((n + 1) * 4), *count = malloc((size_t)(cells + 1) * 4),
             *start = malloc((size_t)(cells + 1) * 4);
    uint32_t *id = malloc((n + 1) * 4);
    ck_assert_int_eq(boids_gpu_read(g, BOIDS_GPU_KEY, key, (size_t)n * 4), BOIDS_OK);
    ck_assert_int_eq(boids_gpu_read(g, BOIDS_GPU_COUNT, count, (size_t)cells * 4), BOIDS_OK);
    ck_assert_int_eq(boids_gpu_read(g, BOIDS_GPU_START, start, (size_t)(cells + 1) * 4), BOIDS_OK);
    ck_assert_int_eq(boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4), BOIDS_OK);
    for (uint32_t i = 0; i < n; i++)
        EXPECT(key[i] == s->grid.key[i], "%s: slot %u: GPU cell %u, CPU cell %u (exact)", c->name, i, key[i],
               s->grid.key[i]);
    uint64_t sum = 0;
    for (uint32_t k = 0; k < cells; k++) {
        EXPECT(count[k] == s->grid.count[k], "%s: cell %u: GPU count %u, CPU %u", c->name, k, count[k],
               s->grid.count[k]);
        EXPECT(start[k] == s->grid.start[k], "%s: cell %u: GPU start %u, CPU %u", c->name, k, start[k],
               s->grid.start[k]);
        sum += count[k];
    }
    EXPECT(start[cells] == n && sum == n, "%s: start[cells] %u, sum(count) %llu, expected N = %u", c->name,
           start[cells], (unsigned long long)sum, n);
    // The set of ids in each cell (the order inside a cell is the atomics').
    for (uint32_t k = 0; k < cells; k++) {
        uint32_t a = start[k], m = count[k];
        if (m < 2) {
            EXPECT(m == 0 || id[a] == s->cur.id[a], "%s: cell %u holds id %u on the GPU, %u on the CPU", c->name, k,
                   id[a], s->cur.id[a]);
            continue;
        }
        uint32_t *x = malloc(m * 4), *y = malloc(m * 4);
        memcpy(x, id + a, m * 4);
        memcpy(y, s->cur.id + a, m * 4);
        qsort(x, m, 4, cmp_u32);
        qsort(y, m, 4, cmp_u32);
        EXPECT(memcmp(x, y, m * 4) == 0, "%s: cell %u: the GPU and CPU hold different ids", c->name, k);
        free(x);
        free(y);
    }
    ck_assert_msg(boids_gpu_debug_errors(g) == 0, "%s: %u GL errors", c->name, boids_gpu_debug_errors(g));
    free(key);
    free(count);
    free(start);
    free(id);
    boids_gpu_destroy(g);
    boids_sim_destroy(s);
    close_context();
}
END_TEST

// ---- hand-placed agents on cell seams, world edges and corners ------------------------

START_TEST(seams_and_corners) {
    open_context();
    // World [-100, 200)^2 (and ^3), radius 50: 6 cells a side. Agents on
    // every cell boundary, a hair either side of it, and on the corners.
    static const float coords[] = {-100.0f, -99.9999f, -50.0f, -50.0001f, 0.0f, -0.0001f, 0.0001f, 49.9999f, 50.0f,
                                   100.0f, 150.0f, 199.9999f, 199.99f,
                                   // Outside, within margin's band (3): kept there, in the edge cells.
                                   -102.5f, 201.0f};
    const uint32_t nc = sizeof(coords) / sizeof(coords[0]);
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t boundary = 0; boundary <= BOIDS_BOUNDARY_MARGIN; boundary++) {
            uint32_t n = dim == 2 ? nc * nc : nc * nc * 4;
            boids_params p;
            boids_params_default(&p, n, dim);
            p.world.boundary = boundary;
            for (uint32_t a = 0; a < dim; a++) {
                p.world.min[a] = -100.0f;
                p.world.size[a] = 300.0f;
            }
            ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
            boids_sim *s;
            ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
            s->threads = 1;
            float(*pos)[4] = calloc(n, 16), (*vel)[4] = calloc(n, 16);
            uint32_t *grp = calloc(n, 4);
            for (uint32_t i = 0; i < n; i++) {
                pos[i][0] = coords[i % nc];
                pos[i][1] = coords[(i / nc) % nc];
                pos[i][2] = dim == 3 ? coords[(i / (nc * nc)) * 3 % nc] : 0.0f;
                vel[i][0] = 1.0f + 0.01f * (float)(i % 7);
                vel[i][1] = 0.5f - 0.02f * (float)(i % 5);
                vel[i][2] = dim == 3 ? 0.3f : 0.0f;
            }
            ck_assert_int_eq(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp), BOIDS_OK);
            boids_gpu *g = gpu_for(&s->p, NULL);
            boids_gpu_upload(g, s);
            boids_sim_build_grid(s);
            boids_gpu_build_grid(g);
            uint32_t cells = s->grid.cells;
            uint32_t *count = malloc((size_t)cells * 4), *nb = malloc((size_t)n * 4), *id = malloc((size_t)n * 4);
            boids_gpu_read(g, BOIDS_GPU_COUNT, count, (size_t)cells * 4);
            for (uint32_t k = 0; k < cells; k++)
                EXPECT(count[k] == s->grid.count[k], "%uD boundary %u: cell %u holds %u on the GPU, %u on the CPU", dim,
                       boundary, k, count[k], s->grid.count[k]);
            boids_sim_steer(s);
            boids_gpu_steer(g);
            boids_gpu_read(g, BOIDS_GPU_NEIGHBORS, nb, (size_t)n * 4);
            boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4);
            uint32_t *by_id = malloc((size_t)n * 4);
            for (uint32_t i = 0; i < n; i++)
                by_id[id[i]] = nb[i];
            for (uint32_t i = 0; i < n; i++)
                EXPECT(by_id[s->cur.id[i]] == s->neighbors[i],
                       "%uD boundary %u: agent %u has %u neighbours on the GPU, "
                       "%u on the CPU",
                       dim, boundary, s->cur.id[i], by_id[s->cur.id[i]], s->neighbors[i]);
            ck_assert_msg(boids_gpu_debug_errors(g) == 0, "GL errors");
            free(pos);
            free(vel);
            free(grp);
            free(count);
            free(nb);
            free(id);
            free(by_id);
            boids_gpu_destroy(g);
            boids_sim_destroy(s);
        }
    close_context();
}
END_TEST

// ---- shader errors name the file ------------------------------------------------------

START_TEST(broken_shader_names_file) {
    open_context();
    // A copy of shaders/ with a syntax error in scatter.comp.
    char dir[] = BOIDS_TEST_TMP "/broken_shaders";
    mkdir(BOIDS_TEST_TMP, 0755);
    mkdir(dir, 0755);
    const char *files[] = {"shared.h",      "common.glsl",  "rounding.glsl", "trig.glsl",     "behaviors.glsl",
                           "models.glsl",   "grid.glsl",    "key.comp",      "count.comp",    "scan.comp",
                           "scan_add.comp", "scatter.comp", "steer.comp",    "integrate.comp"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char from[512], to[512], buf[1 << 16];
        snprintf(from, sizeof(from), "%s/%s", BOIDS_SHADER_DIR, files[i]);
        snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
        FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
        ck_assert_msg(in && out, "copying %s", files[i]);
        size_t k;
        while ((k = fread(buf, 1, sizeof(buf), in)) > 0)
            fwrite(buf, 1, k, out);
        // The error sits in behaviors.glsl, a file of the shared prelude
        // whose name appears only if the log's source numbers are mapped.
        if (strcmp(files[i], "behaviors.glsl") == 0)
            fputs("\nthis is not glsl;\n", out);
        fclose(in);
        fclose(out);
    }
    boids_params p;
    boids_params_default(&p, 100, 2);
    boids_params_finalize(&p, NULL, 0);
    boids_gpu_desc d = {.params = &p, .load = boids_gl_loader(ctx), .shader_dir = dir, .quiet = true};
    boids_gpu *g = NULL;
    char err[4096] = "";
    boids_result r = boids_gpu_create(&g, &d, err, sizeof(err));
    ck_assert_msg(r == BOIDS_ERR_SHADER, "a broken behaviors.glsl must fail with BOIDS_ERR_SHADER, got %d", r);
    ck_assert_msg(g == NULL, "no backend on failure");
    ck_assert_msg(strstr(err, "behaviors.glsl:") != NULL, "the error names the file and line: %s", err);
    // The same through an executable's --shader-dir: exit 2, one line.
    char cmd[1024], last[4096];
    snprintf(cmd, sizeof(cmd), BOIDS_BIN_DIR "/boids-run --count 100 --steps 1 --backend gpu --shader-dir %s 2>&1",
             dir);
    int rc = run_cmd(cmd, last, sizeof(last));
    ck_assert_msg(rc == 2 && strstr(last, "behaviors.glsl:"), "boids-run --shader-dir with a broken file: exit %d, %s",
                  rc, last);
    ck_assert_msg(strchr(err, '\n') == NULL, "the error is one line: %s", err);
    // A missing directory names the path.
    d.shader_dir = BOIDS_TEST_TMP "/no_such_dir";
    r = boids_gpu_create(&g, &d, err, sizeof(err));
    ck_assert_msg(r == BOIDS_ERR_SHADER && strstr(err, "no_such_dir"), "missing --shader-dir: %s", err);
    close_context();
}
END_TEST

// ---- limits ------------------------------------------------------------------------

START_TEST(too_many_agents_refused) {
    open_context();
    gladLoadGL((GLADloadfunc)boids_gl_loader(ctx));
    uint32_t max = boids_gpu_max_agents();
    ck_assert_msg(max > 0 && max <= BOIDS_MAX_AGENTS, "max agents %u", max);
    // max + 1 agents are refused naming max: by the GPU backend when the GPU
    // is the limit, else (a GPU that holds BOIDS_MAX_AGENTS, which a large
    // one does) already by the core's range check, whose bound is then max.
    boids_params p;
    boids_params_default(&p, max + 1, 2);
    char err[1024], want[32];
    snprintf(want, sizeof(want), "%u", max);
    boids_result r = boids_params_finalize(&p, err, sizeof(err));
    if (max < BOIDS_MAX_AGENTS) {
        ck_assert_msg(r == BOIDS_OK, "%u agents are within the core's range 0..%u: %s", max + 1, BOIDS_MAX_AGENTS, err);
        boids_gpu_desc d = {.params = &p, .load = boids_gl_loader(ctx), .quiet = true};
        boids_gpu *g = NULL;
        r = boids_gpu_create(&g, &d, err, sizeof(err));
        ck_assert_msg(r == BOIDS_ERR_GPU_LIMIT && strstr(err, want), "%u agents: expected a refusal naming %u: %s",
                      max + 1, max, err);
    } else {
        ck_assert_msg(r == BOIDS_ERR_COUNT && strstr(err, want),
                      "%u agents (the GPU holds BOIDS_MAX_AGENTS = %u): expected the core's refusal naming %u: %s",
                      max + 1, BOIDS_MAX_AGENTS, max, err);
    }
    close_context();
}
END_TEST

// ---- one step: each behaviour alone and all together, several groups -------------

// Three groups: 0 and 1 prey (flock together, flee 2), 2 predators (pursue 0,
// 1); 0 and 1 with per-agent ranges, 2 without.
static void three_groups(boids_params *p, uint32_t behaviors) {
    p->world.group_count = 3;
    for (uint32_t k = 0; k < 3; k++)
        p->group[k].behaviors = behaviors;
    p->group[0].relations = p->group[1].relations = BOIDS_REL_FLEE << (BOIDS_REL_BITS * 2);
    p->group[2].relations = BOIDS_REL_PURSUE | (BOIDS_REL_PURSUE << BOIDS_REL_BITS);
    p->group[2].maxspeed = 3.6f;
    p->group[2].min_speed = 1.0f; // a least speed (integrate), with the predators
    p->group[0].max_turn = 0.3f;
    p->group[1].fov_cos = -0.5f;
    // Per-agent ranges (each agent's own draw, by id) in groups 0 and 1; the
    // fastest agent stays at 3.6, the tolerances' scale.
    p->group[0].maxforce_lo = 0.02f;
    p->group[0].maxforce_hi = 0.12f;
    p->group[1].maxspeed_lo = 2.0f;
    p->group[1].maxspeed_hi = 3.5f;
    p->group[1].maxforce_lo = 0.03f;
    p->group[1].maxforce_hi = 0.08f;
}

typedef struct step_case {
    const char *name;
    uint32_t n, dim, boundary;
    float min, size;
} step_case;

// The default params of case c's world: its count and dimension, boundary,
// and a cube (square) of side c->size from c->min on every axis.
static void case_world(const step_case *c, boids_params *p) {
    boids_params_default(p, c->n, c->dim);
    p->world.boundary = c->boundary;
    for (uint32_t a = 0; a < c->dim; a++) {
        p->world.min[a] = c->min;
        p->world.size[a] = c->size;
    }
}

static const step_case step_cases[] = {
    {"N=1 2D wrap", 1, 2, BOIDS_BOUNDARY_WRAP, 0, 400},
    {"N=255 2D walls", BOIDS_WORKGROUP_SIZE - 1, 2, BOIDS_BOUNDARY_WALLS, -100, 500},
    {"N=257 3D bounce", BOIDS_WORKGROUP_SIZE + 1, 3, BOIDS_BOUNDARY_BOUNCE, -150, 300},
    {"N=3000 2D wrap, 3 cells a side (seam)", 3000, 2, BOIDS_BOUNDARY_WRAP, -200, 330},
    {"N=4000 3D wrap", 4000, 3, BOIDS_BOUNDARY_WRAP, 0, 420},
    {"N=65536 2D wrap", 65536, 2, BOIDS_BOUNDARY_WRAP, -3000, 5700},
    // The chapter's sketch's edges: plain distances, clamped cells.
    {"N=300 2D margin", 300, 2, BOIDS_BOUNDARY_MARGIN, 0, 360},
    {"N=3000 3D margin", 3000, 3, BOIDS_BOUNDARY_MARGIN, -150, 330},
};

// Max over agents of |gpu - cpu| / (atol + rtol |cpu|), componentwise, by id.
static double worst_ratio(const float (*cpu)[4], const float (*gpu)[4], uint32_t n, float atol, float rtol,
                          uint32_t *worst_id) {
    double worst = 0;
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            double r = fabs((double)gpu[i][a] - cpu[i][a]) / (atol + rtol * fabs(cpu[i][a]));
            if (r > worst) {
                worst = r;
                *worst_id = i;
            }
        }
    return worst;
}

// The steer output of both backends by id, for one behaviour set; tweak
// (or NULL) changes the params after three_groups.
static void steer_both_with(const step_case *c, uint32_t behaviors, void (*tweak)(boids_params *), float (*cpu)[4],
                            float (*gpu)[4]);
// The named agents and walls of the steering library's behaviours: a leader (agent 7
// where there are 8)
// whom every group follows in a V (offset; follow), interpose between agent
// 3 and the target, and walls: in 2D a box at 20%..80% of the world and a
// diagonal segment; in 3D three planes (x, y and a slanted one).
static void named_and_walls(boids_params *p) {
    const boids_world_params *w = &p->world;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        p->group[g].leader = 7 % w->count; // (the tiny worlds: agent 0)
        p->group[g].formation = BOIDS_FORMATION_V;
        p->group[g].interpose_a = 3 % w->count;
        p->group[g].interpose_b = BOIDS_ID_TARGET;
    }
    boids_scene *sc = &p->scene;
    float lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = w->min[a] + 0.2f * w->size[a];
        hi[a] = w->min[a] + 0.8f * w->size[a];
    }
    if (w->dim == 2) {
        const float seg[5][4] = {{lo[0], lo[1], hi[0], lo[1]},
                                 {hi[0], lo[1], hi[0], hi[1]},
                                 {hi[0], hi[1], lo[0], hi[1]},
                                 {lo[0], hi[1], lo[0], lo[1]},
                                 {lo[0], lo[1], hi[0], hi[1]}};
        for (uint32_t k = 0; k < 5; k++) {
            float *a = sc->wall[2 * k], *b = sc->wall[2 * k + 1];
            a[0] = seg[k][0], a[1] = seg[k][1], a[2] = 0.0f, a[3] = BOIDS_WALL_SEGMENT;
            b[0] = seg[k][2], b[1] = seg[k][3], b[2] = 0.0f, b[3] = 0.0f;
        }
        sc->wall_count = 5;
    } else {
        const float plane[3][6] = {{lo[0], 0, 0, 1, 0, 0}, {0, hi[1], 0, 0, -1, 0}, {lo[0], lo[1], lo[2], 1, 1, 1}};
        for (uint32_t k = 0; k < 3; k++) {
            float *a = sc->wall[2 * k], *b = sc->wall[2 * k + 1];
            for (int i = 0; i < 3; i++) {
                a[i] = plane[k][i];
                b[i] = plane[k][3 + i];
            }
            a[3] = BOIDS_WALL_PLANE;
            b[3] = 0.0f;
        }
        sc->wall_count = 3;
    }
}

static void steer_both(const step_case *c, uint32_t behaviors, float (*cpu)[4], float (*gpu)[4]) {
    steer_both_with(c, behaviors, named_and_walls, cpu, gpu);
}

static void steer_both_with(const step_case *c, uint32_t behaviors, void (*tweak)(boids_params *), float (*cpu)[4],
                            float (*gpu)[4]) {
    boids_params p;
    case_world(c, &p);
    three_groups(&p, behaviors);
    if (tweak)
        tweak(&p);
    char what[256];
    ck_assert_msg(boids_params_finalize(&p, what, sizeof(what)) == BOIDS_OK, "%s: %s", c->name, what);
    boids_sim *s;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    s->threads = 1;
    for (int k = 0; k < 2; k++) // headings, neighbours and wander state
        boids_sim_step(s);
    boids_gpu *g = gpu_for(&s->p, NULL);
    boids_gpu_upload(g, s);
    s->p.world.step = (uint32_t)s->step;
    boids_sim_build_grid(s);
    boids_sim_steer(s);
    boids_gpu_build_grid(g);
    boids_gpu_steer(g);
    uint32_t n = s->n;
    float(*acc)[4] = malloc((size_t)(n + 1) * 16);
    uint32_t *id = malloc((size_t)(n + 1) * 4);
    boids_gpu_read(g, BOIDS_GPU_ACCEL, acc, (size_t)n * 16);
    boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(gpu[id[i]], acc[i], 16);
        memcpy(cpu[s->cur.id[i]], s->accel[i], 16);
    }
    ck_assert_msg(boids_gpu_debug_errors(g) == 0, "%s: %u GL errors", c->name, boids_gpu_debug_errors(g));
    free(acc);
    free(id);
    boids_gpu_destroy(g);
    boids_sim_destroy(s);
}

// Tolerances were every operation rounded as GLSL 4.50 lets a driver
// (boids/tolerance.h): a few ULP on values of size maxspeed (3.6), atol
// 64 * 2^-23 * 3.6. Sine, cosine, atan2 and log are the C's own float
// operations in the shaders (trig.glsl), so wander, the rule sets and the
// models need no wider bound. (boids-validate and test_pinned check bits.)
#define ATOL_ARITH (BOIDS_TOL_ARITH * 3.6f)
#define RTOL BOIDS_TOL_REL

START_TEST(steer_each_behavior) {
    open_context();
    const step_case *c = &step_cases[_i];
    uint32_t n = c->n;
    float(*cpu)[4] = malloc((size_t)(n + 1) * 16), (*gpu)[4] = malloc((size_t)(n + 1) * 16);
    for (uint32_t b = 0; b <= BOIDS_BEHAVIOR_COUNT; b++) {
        uint32_t bits = b < BOIDS_BEHAVIOR_COUNT ? BOIDS_BIT(b) : (1u << BOIDS_BEHAVIOR_COUNT) - 1u;
        steer_both(c, bits, cpu, gpu);
        uint32_t worst_id = 0;
        float atol = ATOL_ARITH;
        double r = worst_ratio((const float(*)[4])cpu, (const float(*)[4])gpu, n, atol, RTOL, &worst_id);
        // With thousands of agents every behaviour acts on some of them: a
        // force of zero everywhere would compare nothing.
        double largest = 0;
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++)
                largest = fmax(largest, fabs(cpu[i][a]));
        EXPECT(n < 3000 || largest > 0, "%s, %s: no agent feels this behaviour (nothing compared)", c->name,
               b < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name(b) : "all");
        EXPECT(r <= 1.0, "%s, %s: agent %u: cpu (%g, %g, %g) gpu (%g, %g, %g), %.2f of the tolerance", c->name,
               b < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name(b) : "all", worst_id, (double)cpu[worst_id][0],
               (double)cpu[worst_id][1], (double)cpu[worst_id][2], (double)gpu[worst_id][0], (double)gpu[worst_id][1],
               (double)gpu[worst_id][2], r);
    }
    free(cpu);
    free(gpu);
    close_context();
}
END_TEST

// ---- combination modes and per-rule neighbourhoods: one step, both backends -------

// Buckland's truncated running sum.
static void truncated(boids_params *p) {
    p->world.combine = BOIDS_COMBINE_TRUNCATED;
}

// Topological neighbourhoods: K 7, 1 and every neighbour by group.
static void topological(boids_params *p) {
    p->group[0].neighbors_max = 7;
    p->group[1].neighbors_max = 1;
    p->group[2].neighbors_max = 0;
}

// Per-rule radii and cones, different in each group (group 2 inherits).
static void neighborhoods(boids_params *p) {
    boids_group_params *g = p->group;
    g[0].separation = 20.0f;
    g[0].alignment_radius = 35.0f;
    g[0].cohesion_radius = 60.0f; // beyond the radius 50: a wider grid
    g[0].own_cones = BOIDS_CONE_ALIGNMENT | BOIDS_CONE_COHESION;
    g[0].alignment_fov_cos = boids_fov_cos(270.0f);
    g[0].cohesion_fov_cos = boids_fov_cos(200.0f);
    g[1].alignment_radius = 40.0f;
    g[1].own_cones = BOIDS_CONES;
    g[1].separation_fov_cos = boids_fov_cos(300.0f);
    g[1].alignment_fov_cos = boids_fov_cos(180.0f);
    g[1].cohesion_fov_cos = boids_fov_cos(90.0f);
}

START_TEST(combine_and_neighborhood_parity) {
    open_context();
    const step_case *c = &step_cases[_i];
    uint32_t n = c->n;
    float(*cpu)[4] = malloc((size_t)(n + 1) * 16), (*gpu)[4] = malloc((size_t)(n + 1) * 16);
    const uint32_t no_wander = ((1u << BOIDS_BEHAVIOR_COUNT) - 1u) & ~BOIDS_BIT(BOIDS_BI_WANDER);
    const struct {
        const char *name;
        uint32_t behaviors;
        void (*tweak)(boids_params *);
    } runs[] = {
        {"truncated, flocking", BOIDS_B_FLOCKING, truncated},
        {"truncated, all but wander", no_wander, truncated},
        {"per-rule radii and cones, flocking", BOIDS_B_FLOCKING, neighborhoods},
        {"topological K=7/1/0, flocking", BOIDS_B_FLOCKING, topological},
        {"topological K=7/1/0, all but wander", no_wander, topological},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        steer_both_with(c, runs[k].behaviors, runs[k].tweak, cpu, gpu);
        uint32_t worst_id = 0;
        double r = worst_ratio((const float(*)[4])cpu, (const float(*)[4])gpu, n, ATOL_ARITH, RTOL, &worst_id);
        double largest = 0;
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++)
                largest = fmax(largest, fabs(cpu[i][a]));
        EXPECT(n < 3000 || largest > 0, "%s, %s: every force is zero (nothing compared)", c->name, runs[k].name);
        EXPECT(r <= 1.0, "%s, %s: agent %u: cpu (%g, %g, %g) gpu (%g, %g, %g), %.2f of the tolerance", c->name,
               runs[k].name, worst_id, (double)cpu[worst_id][0], (double)cpu[worst_id][1], (double)cpu[worst_id][2],
               (double)gpu[worst_id][0], (double)gpu[worst_id][1], (double)gpu[worst_id][2], r);
    }
    free(cpu);
    free(gpu);
    close_context();
}
END_TEST

START_TEST(validate_combine_and_neighborhoods) {
    // boids-validate's horizons with the truncated running sum and with
    // OpenSteer's per-rule neighbourhoods (the shipped scenario).
    static const char *const runs[] = {
        "--combine truncated",
        "--scenario opensteer-boids",
        "--scenario opensteer-boids --combine truncated",
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char cmd[512], out[4096];
        snprintf(cmd, sizeof cmd, BOIDS_BIN_DIR "/boids-validate %s --count 2000 --steps 10 2>/dev/null", runs[i]);
        int rc = run_cmd(cmd, out, sizeof out);
        ck_assert_msg(rc == 0 && strstr(out, "all checks passed"), "boids-validate %s: exit %d, '%s'", runs[i], rc,
                      out);
    }
}
END_TEST

// ---- path following: the twins on hand-placed agents and on crowds --------------

// One group that only follows the path (weight 1, maxspeed 3, a maxforce
// that never limits, predict 25, ahead 10) in the book's 640 x 240 canvas.
static void path_params(boids_params *p, uint32_t n, uint32_t boundary, const float (*pts)[2], uint32_t npts,
                        uint32_t flags) {
    boids_params_default(p, n, 2);
    p->world.boundary = boundary;
    p->world.size[0] = 640.0f;
    p->world.size[1] = 240.0f;
    p->world.min[0] = p->world.min[1] = 0.0f;
    boids_group_params *g = &p->group[0];
    g->behaviors = BOIDS_BIT(BOIDS_BI_PATH);
    g->weight[BOIDS_BI_PATH >> 2][BOIDS_BI_PATH & 3] = 1.0f;
    g->maxspeed = 3.0f;
    g->maxforce = 100.0f;
    g->path_predict = 25.0f;
    g->path_ahead = 10.0f;
    p->scene.path_count = npts;
    p->scene.path_flags = flags;
    p->scene.path_radius = 20.0f;
    for (uint32_t i = 0; i < npts; i++) {
        p->scene.path[i][0] = pts[i][0];
        p->scene.path[i][1] = pts[i][1];
        p->scene.path[i][2] = 0.0f;
    }
}

// The steer output (by id) of the CPU and the GPU for the agents of s.
static void path_steer_both(boids_sim *s, float (*cpu)[4], float (*gpu)[4]) {
    boids_gpu *g = gpu_for(&s->p, NULL);
    boids_gpu_upload(g, s);
    boids_sim_build_grid(s);
    boids_sim_steer(s);
    boids_gpu_build_grid(g);
    boids_gpu_steer(g);
    uint32_t n = s->n;
    float(*acc)[4] = malloc((size_t)n * 16);
    uint32_t *id = malloc((size_t)n * 4);
    boids_gpu_read(g, BOIDS_GPU_ACCEL, acc, (size_t)n * 16);
    boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(gpu[id[i]], acc[i], 16);
        memcpy(cpu[s->cur.id[i]], s->accel[i], 16);
    }
    EXPECT(boids_gpu_debug_errors(g) == 0, "path: %u GL errors", boids_gpu_debug_errors(g));
    free(acc);
    free(id);
    boids_gpu_destroy(g);
}

START_TEST(path_twins_by_hand) {
    // The cases of tests/test_behaviors.c (path): segments longer than half
    // the world along x, along y and across the seam, the corner ties (the
    // earlier segment keeps the corner), and each option, one agent each.
    // Expected: seek toward `to` (setMag(to, 3) - v), or no force.
    open_context();
    gladLoadGL((GLADloadfunc)boids_gl_loader(ctx));
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    bool llvmpipe = renderer && strstr(renderer, "llvmpipe");
    double l0 = sqrt(95.6 * 95.6 + 0.4 * 0.4); // segment 0 of the bend: (300.7,100.3) -> (205.1,100.7)
    static const struct {
        const char *name;
        uint32_t boundary, npts, flags;
        float pts[3][2];
        float agent[4]; // x, y, vx, vy
        bool force;
        double to[2];
    } cases[] = {
        {"long along x", BOIDS_BOUNDARY_WRAP, 2, 0, {{0, 80}, {600, 80}}, {500, 120, 1, 0}, true, {35, -40}},
        {"long along y", BOIDS_BOUNDARY_WRAP, 2, 0, {{100, 0}, {100, 200}}, {140, 150, 0, 1}, true, {-40, 35}},
        {"across the seam", BOIDS_BOUNDARY_WRAP, 2, 0, {{400, 80}, {900, 80}}, {100, 120, 1, 0}, true, {35, -40}},
        {"path-simple", BOIDS_BOUNDARY_WRAP, 2, 0, {{0, 80}, {640, 160}}, {600, 150, 1, 0}, false, {0, 0}},
        {"corner tie across the seam",
         BOIDS_BOUNDARY_WRAP,
         3,
         0,
         {{500, 100}, {620, 100}, {620, 200}},
         {5, 60, 1, 0},
         true,
         {-15, 40}},
        {"corner tie",
         BOIDS_BOUNDARY_BOUNCE,
         3,
         0,
         {{300.7f, 100.3f}, {205.1f, 100.7f}, {205.1f, 200.7f}},
         {169.1f, 70.7f, -1, 0},
         true,
         {0, 0}}, // `to` filled in below
        {"outside = clamp", BOIDS_BOUNDARY_BOUNCE, 2, 0, {{100, 100}, {200, 100}}, {70, 130, 1, 0}, true, {40, -30}},
        {"outside = end",
         BOIDS_BOUNDARY_BOUNCE,
         2,
         BOIDS_PATH_OUTSIDE_END,
         {{100, 100}, {200, 100}},
         {70, 130, 1, 0},
         true,
         {140, -30}},
        {"line = infinite",
         BOIDS_BOUNDARY_BOUNCE,
         2,
         BOIDS_PATH_LINE_INFINITE,
         {{100, 100}, {200, 100}},
         {70, 130, 1, 0},
         true,
         {35, -30}},
        {"line = infinite, past the end",
         BOIDS_BOUNDARY_BOUNCE,
         2,
         BOIDS_PATH_LINE_INFINITE,
         {{100, 100}, {200, 100}},
         {250, 110, 1, 0},
         false,
         {0, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        boids_params p;
        path_params(&p, 1, cases[c].boundary, cases[c].pts, cases[c].npts, cases[c].flags);
        ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
        boids_sim *s;
        ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
        s->threads = 1;
        float pos[1][4] = {{cases[c].agent[0], cases[c].agent[1], 0, 0}};
        float vel[1][4] = {{cases[c].agent[2], cases[c].agent[3], 0, 0}};
        uint32_t group[1] = {0};
        ck_assert_int_eq(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, group), BOIDS_OK);
        float cpu[1][4], gpu[1][4];
        path_steer_both(s, cpu, gpu);
        double to[2] = {cases[c].to[0], cases[c].to[1]};
        if (c == 5) { // the corner (205.1,100.7) plus 10 along segment 0, from the agent
            to[0] = 205.1 - 95.6 * 10 / l0 - 169.1;
            to[1] = 100.7 + 0.4 * 10 / l0 - 70.7;
        }
        double l = sqrt(to[0] * to[0] + to[1] * to[1]);
        double ex = cases[c].force ? 3 * to[0] / l - cases[c].agent[2] : 0;
        double ey = cases[c].force ? 3 * to[1] / l - cases[c].agent[3] : 0;
        for (int a = 0; a < 2; a++) {
            double e = a ? ey : ex;
            EXPECT(fabs(gpu[0][a] - e) <= 1e-4 && fabs(cpu[0][a] - e) <= 1e-4,
                   "%s: %c: gpu %.9g cpu %.9g, expected %.9g (by hand)", cases[c].name, "xy"[a], (double)gpu[0][a],
                   (double)cpu[0][a], e);
            EXPECT(fabsf(gpu[0][a] - cpu[0][a]) <= ATOL_ARITH + RTOL * fabsf(cpu[0][a]),
                   "%s: %c: gpu %.9g cpu %.9g beyond the tolerance", cases[c].name, "xy"[a], (double)gpu[0][a],
                   (double)cpu[0][a]);
            // llvmpipe rounds as the C reference: the same bits (the tie included).
            EXPECT(!llvmpipe || memcmp(&gpu[0][a], &cpu[0][a], 4) == 0, "%s: %c: gpu %a cpu %a on llvmpipe",
                   cases[c].name, "xy"[a], (double)gpu[0][a], (double)cpu[0][a]);
        }
        boids_sim_destroy(s);
    }
    close_context();
}
END_TEST

START_TEST(path_twins_crowd) {
    // 3000 agents on path-simple's segment and on path-segments' five, each
    // rule: the GPU within the one-step tolerance of the CPU, and both on and
    // off the path (something is compared).
    open_context();
    static const float simple[2][2] = {{0, 80}, {640, 160}};
    static const float five[6][2] = {{0, 120}, {140, 40}, {280, 190}, {420, 60}, {540, 180}, {640, 120}};
    const uint32_t rules[3] = {0u, BOIDS_PATH_OUTSIDE_END, BOIDS_PATH_LINE_INFINITE};
    uint32_t n = 3000;
    float(*cpu)[4] = malloc((size_t)n * 16), (*gpu)[4] = malloc((size_t)n * 16);
    for (int shape = 0; shape < 2; shape++)
        for (int r = 0; r < 3; r++) {
            boids_params p;
            path_params(&p, n, BOIDS_BOUNDARY_WRAP, shape ? five : simple, shape ? 6 : 2, rules[r]);
            ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
            boids_sim *s;
            ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
            s->threads = 1;
            path_steer_both(s, cpu, gpu);
            uint32_t worst = 0, pulled = 0;
            double ratio = worst_ratio((const float(*)[4])cpu, (const float(*)[4])gpu, n, ATOL_ARITH, RTOL, &worst);
            for (uint32_t i = 0; i < n; i++)
                pulled += cpu[i][0] != 0.0f || cpu[i][1] != 0.0f;
            EXPECT(ratio <= 1.0, "path %d, rule %u: agent %u: cpu (%g, %g) gpu (%g, %g), %.2f of the tolerance", shape,
                   rules[r], worst, (double)cpu[worst][0], (double)cpu[worst][1], (double)gpu[worst][0],
                   (double)gpu[worst][1], ratio);
            EXPECT(pulled > 100 && pulled < n - 100, "path %d, rule %u: %u of %u agents pulled (expected some of each)",
                   shape, rules[r], pulled, n);
            boids_sim_destroy(s);
        }
    free(cpu);
    free(gpu);
    close_context();
}
END_TEST

// ---- whole steps: parity after one, determinism after many ---------------------------

START_TEST(step_parity_and_determinism) {
    open_context();
    const step_case *c = &step_cases[_i];
    boids_params p;
    case_world(c, &p);
    three_groups(&p, (1u << BOIDS_BEHAVIOR_COUNT) - 1u);
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
    boids_sim *s;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    s->threads = 1;
    boids_gpu *a = gpu_for(&s->p, NULL), *b = gpu_for(&s->p, NULL);
    boids_gpu_upload(a, s);
    boids_gpu_upload(b, s);
    uint32_t n = s->n;
    // One step: positions and velocities by id.
    boids_sim_step(s);
    boids_gpu_step(a);
    float(*gp)[4] = malloc((size_t)(n + 1) * 16), (*gv)[4] = malloc((size_t)(n + 1) * 16);
    float(*cp)[4] = malloc((size_t)(n + 1) * 16), (*cv)[4] = malloc((size_t)(n + 1) * 16);
    uint32_t *gg = malloc((size_t)(n + 1) * 4);
    boids_gpu_read_state(a, gp, gv, gg);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(cp[s->cur.id[i]], s->cur.pos[i], 16);
        memcpy(cv[s->cur.id[i]], s->cur.vel[i], 16);
    }
    uint32_t worst_id = 0;
    double rv = worst_ratio((const float(*)[4])cv, (const float(*)[4])gv, n, ATOL_ARITH, RTOL, &worst_id);
    EXPECT(rv <= 1.0, "%s: velocity of agent %u after one step: %.2f of the tolerance", c->name, worst_id, rv);
    // Positions: p + v dt, so the velocity's error times dt, plus one rounding
    // of p (2^-23 of the world extent), compared through the minimum image.
    float patol = ATOL_ARITH * p.world.dt + c->size * 2.4e-7f;
    for (uint32_t i = 0; i < n; i++) {
        float d[3];
        boids_world_delta(&s->p.world, cp[i], gp[i], d);
        for (int k = 0; k < 3; k++)
            EXPECT(fabsf(d[k]) <= patol, "%s: position of agent %u differs by %g on axis %d (tolerance %g)", c->name, i,
                   (double)d[k], k, (double)patol);
    }
    // Many steps: two GPU runs give the same bits, whatever the atomics did.
    for (int k = 0; k < 30; k++) {
        boids_gpu_step(a);
        boids_gpu_step(b);
    }
    boids_gpu_step(b);
    // The timer queries of a step a few steps back have been read.
    boids_stage_ms ms;
    boids_gpu_stage_ms(a, &ms);
    EXPECT(ms.steer > 0 && ms.key >= 0 && ms.integrate > 0,
           "%s: GPU stage times steer %g integrate %g ms (expected > 0)", c->name, ms.steer, ms.integrate);
    uint64_t ha = boids_gpu_hash(a), hb = boids_gpu_hash(b);
    EXPECT(ha == hb, "%s: two GPU runs of the same state differ after 31 steps: %016llx vs %016llx", c->name,
           (unsigned long long)ha, (unsigned long long)hb);
    EXPECT(boids_gpu_debug_errors(a) == 0 && boids_gpu_debug_errors(b) == 0, "%s: GL errors", c->name);
    free(gp);
    free(gv);
    free(cp);
    free(cv);
    free(gg);
    boids_gpu_destroy(a);
    boids_gpu_destroy(b);
    boids_sim_destroy(s);
    close_context();
}
END_TEST

// ---- the seeds' rule sets: one step on both, every case ------------------------------

// Three flocking groups under one rule set (tutorial; heading in 2D, with its
// global survey; circles; Vicsek's and Couzin's models with their noise): the
// steer output (the tutorial's summed resultants; the heading boids' turn, a
// multiple of `turn`; the models' new unit heading), then the velocities and
// positions after integrate, by id.
START_TEST(rules_step_parity) {
    open_context();
    const step_case *c = &step_cases[_i];
    for (uint32_t rules = BOIDS_RULES_TUTORIAL; rules < BOIDS_RULES_COUNT; rules++) {
        if (rules == BOIDS_RULES_HEADING && c->dim != 2)
            continue;
        boids_params p;
        case_world(c, &p);
        // (Circles, FLAME GPU's benchmark model, is the separation rule
        // alone; Vicsek's model the alignment of headings alone.)
        three_groups(&p, rules == BOIDS_RULES_CIRCLES  ? BOIDS_BIT(BOIDS_BI_SEPARATION)
                         : rules == BOIDS_RULES_VICSEK ? BOIDS_BIT(BOIDS_BI_ALIGNMENT)
                                                       : BOIDS_B_FLOCKING);
        for (uint32_t g = 0; g < 3; g++)
            p.group[g].rules = rules;
        p.group[1].separation = 12.0f; // the tutorial's separation and cohesion apart
        // The models' noise (from the RNG, per id and step: the same draws on
        // both), three strengths; Couzin's zones nested (r_r 25 / 12 / 25,
        // r_o 30, r_a 50: the perception radius), its turn limit 0.5 rad a
        // step, group 1's blind angle (fov_cos -0.5) as its cone.
        const float eta[3] = {0.5f, 2.0f, 6.0f}, sigma[3] = {0.05f, 0.3f, 1.0f};
        for (uint32_t g = 0; rules >= BOIDS_RULES_VICSEK && g < 3; g++) {
            p.group[g].noise = rules == BOIDS_RULES_VICSEK ? eta[g] : sigma[g];
            p.group[g].alignment_radius = 30.0f;
            p.group[g].turn = 0.5f;
        }
        char what[256];
        ck_assert_msg(boids_params_finalize(&p, what, sizeof(what)) == BOIDS_OK, "%s: %s", c->name, what);
        boids_sim *s;
        ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_CLUSTERED), BOIDS_OK);
        s->threads = 1;
        for (int k = 0; k < 2; k++)
            boids_sim_step(s);
        boids_gpu *g = gpu_for(&s->p, NULL);
        boids_gpu_upload(g, s);
        s->p.world.step = (uint32_t)s->step;
        boids_sim_build_grid(s);
        boids_sim_steer(s);
        boids_gpu_build_grid(g);
        boids_gpu_steer(g);
        uint32_t n = s->n;
        float(*acc)[4] = malloc((size_t)(n + 1) * 16), (*ca)[4] = malloc((size_t)(n + 1) * 16);
        float(*ga)[4] = malloc((size_t)(n + 1) * 16);
        uint32_t *id = malloc((size_t)(n + 1) * 4);
        boids_gpu_read(g, BOIDS_GPU_ACCEL, acc, (size_t)n * 16);
        boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4);
        double largest = 0;
        for (uint32_t i = 0; i < n; i++) {
            memcpy(ga[id[i]], acc[i], 16);
            memcpy(ca[s->cur.id[i]], s->accel[i], 16);
            largest = fmax(largest, fabs(s->accel[i][0]));
        }
        const char *name = boids_parse_rules_names[rules];
        uint32_t worst_id = 0;
        float atol = ATOL_ARITH;
        double r = worst_ratio((const float(*)[4])ca, (const float(*)[4])ga, n, atol, RTOL, &worst_id);
        EXPECT(n < 3000 || largest > 0, "%s, rules %s: no agent turns or steers (nothing compared)", c->name, name);
        EXPECT(r <= 1.0, "%s, rules %s: steer of agent %u: cpu (%g, %g, %g) gpu (%g, %g, %g), %.2f of the tolerance",
               c->name, name, worst_id, (double)ca[worst_id][0], (double)ca[worst_id][1], (double)ca[worst_id][2],
               (double)ga[worst_id][0], (double)ga[worst_id][1], (double)ga[worst_id][2], r);
        boids_sim_integrate(s);
        boids_gpu_integrate(g);
        float(*gp)[4] = malloc((size_t)(n + 1) * 16), (*gv)[4] = malloc((size_t)(n + 1) * 16);
        float(*cp)[4] = malloc((size_t)(n + 1) * 16), (*cv)[4] = malloc((size_t)(n + 1) * 16);
        boids_gpu_read_state(g, gp, gv, id);
        for (uint32_t i = 0; i < n; i++) {
            memcpy(cp[s->cur.id[i]], s->cur.pos[i], 16);
            memcpy(cv[s->cur.id[i]], s->cur.vel[i], 16);
        }
        double rv = worst_ratio((const float(*)[4])cv, (const float(*)[4])gv, n, ATOL_ARITH, RTOL, &worst_id);
        EXPECT(rv <= 1.0, "%s, rules %s: velocity of agent %u after one step: %.2f of the tolerance", c->name, name,
               worst_id, rv);
        float patol = ATOL_ARITH * p.world.dt + c->size * 2.4e-7f;
        for (uint32_t i = 0; i < n; i++) {
            float d[3];
            boids_world_delta(&s->p.world, cp[i], gp[i], d);
            for (int k = 0; k < 3; k++)
                EXPECT(fabsf(d[k]) <= patol, "%s, rules %s: position of agent %u differs by %g (tolerance %g)", c->name,
                       name, i, (double)d[k], (double)patol);
        }
        EXPECT(boids_gpu_debug_errors(g) == 0, "%s, rules %s: GL errors", c->name, name);
        void *arrays[] = {acc, ca, ga, id, gp, gv, cp, cv};
        for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
            free(arrays[k]);
        boids_gpu_destroy(g);
        boids_sim_destroy(s);
    }
    close_context();
}
END_TEST

// ---- bodies: the bodies stage against the reference ---------------------------------

// Three groups with a snake, a min-only chain and a fish, flocking and
// wandering on a small torus (bodies cross the seam).
static boids_sim *bodies_sim(uint32_t n, uint32_t dim) {
    boids_params p;
    boids_params_default(&p, n, dim);
    three_groups(&p, BOIDS_B_FLOCKING | BOIDS_BIT(BOIDS_BI_WANDER));
    static const uint32_t styles[3] = {BOIDS_BODY_SNAKE, BOIDS_BODY_CHAIN, BOIDS_BODY_FISH};
    for (uint32_t g = 0; g < 3; g++)
        ck_assert_int_eq(boids_body_make(&p.body[g], styles[g], g == 1 ? 9 : 16, 36.0f, NULL, 0), BOIDS_OK);
    p.body[1].min_only = 1;
    boids_sim *s = NULL;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    s->threads = 1;
    return s;
}

// Every joint of the GPU within boids_tol_joint of the CPU's after `steps`
// runs of the bodies stage; returns the bodies straddling the world's edge.
static uint32_t expect_joints(const boids_sim *s, boids_gpu *g, uint32_t steps, const char *when) {
    size_t total = (size_t)s->joint_rows * s->n;
    float(*gj)[4] = malloc(total * 16);
    ck_assert_int_eq(boids_gpu_read_joints(g, gj, total * 16), BOIDS_OK);
    const boids_world_params *w = &s->p.world;
    uint32_t straddling = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t id = s->cur.id[i];
        const boids_body_params *b = &s->p.body[s->cur.group[i]];
        float reach = 0.0f;
        bool outside = false;
        for (uint32_t j = 0; j < b->joints; j++) {
            size_t k = (size_t)j * s->n + id;
            reach += j ? boids_body_length(b, j - 1) : 0.0f;
            for (uint32_t a = 0; a < w->dim; a++) {
                float c = s->joints[k][a], tol = boids_tol_joint(c, j, reach, steps);
                EXPECT(fabsf(gj[k][a] - c) <= tol, "%s: agent %u joint %u axis %u: gpu %.7g cpu %.7g (tolerance %.3g)",
                       when, id, j, a, (double)gj[k][a], (double)c, (double)tol);
                outside = outside || c < w->min[a] || c >= w->min[a] + w->size[a];
            }
        }
        straddling += outside;
    }
    free(gj);
    return straddling;
}

START_TEST(bodies_parity) {
    // The bodies stage alone from the same heads: each step the CPU steps and
    // its agents are uploaded; joints after 1 and 100 steps, 2D and 3D.
    open_context();
    uint32_t dim = (uint32_t)_i + 2;
    boids_sim *s = bodies_sim(dim == 2 ? 3000 : 4000, dim);
    boids_gpu *g = gpu_for(&s->p, NULL);
    boids_gpu_upload(g, s);
    uint32_t rows = 0;
    ck_assert_uint_ne(boids_gpu_joint_buffer(g, &rows), 0);
    ck_assert_uint_eq(rows, 16);
    uint32_t straddling = 0;
    for (uint32_t k = 1; k <= 100; k++) {
        boids_sim_step(s);
        boids_gpu_upload_agents(g, s);
        boids_gpu_bodies(g);
        if (k == 1 || k % 25 == 0) {
            char when[64];
            snprintf(when, sizeof when, "%uD after %u steps", dim, k);
            straddling += expect_joints(s, g, k, when);
        }
    }
    ck_assert_msg(straddling > 0, "%uD: no body crossed the seam (the test needs some that do)", dim);
    ck_assert_uint_eq(boids_gpu_debug_errors(g), 0);
    boids_gpu_destroy(g);
    boids_sim_destroy(s);
    close_context();
}
END_TEST

START_TEST(bodies_in_the_step) {
    // A whole GPU step includes the bodies: from the same state, joints
    // within one step's tolerance plus the heads' own; laid out straight by
    // set_bodies like the CPU; two GPU runs give the same bits.
    open_context();
    boids_sim *s = bodies_sim(2000, 2);
    boids_gpu *a = gpu_for(&s->p, NULL), *b = gpu_for(&s->p, NULL);
    boids_gpu_upload(a, s);
    boids_gpu_upload(b, s);
    boids_sim_step(s);
    boids_gpu_step(a);
    size_t total = (size_t)s->joint_rows * s->n;
    float(*ja)[4] = malloc(total * 16), (*jb)[4] = malloc(total * 16);
    ck_assert_int_eq(boids_gpu_read_joints(a, ja, total * 16), BOIDS_OK);
    float head_tol = ATOL_ARITH + s->p.world.size[0] * 2.4e-7f;
    for (size_t k = 0; k < total; k++)
        for (int ax = 0; ax < 2; ax++)
            EXPECT(fabsf(ja[k][ax] - s->joints[k][ax]) <= head_tol + boids_tol_joint(s->joints[k][ax], BOIDS_MAX_JOINTS,
                                                                                     36.0f, 1),
                   "joint %zu after a whole step: gpu %.7g cpu %.7g", k, (double)ja[k][ax], (double)s->joints[k][ax]);
    // New types: 24-joint snakes everywhere (the buffer grows), straight.
    boids_body_params body[BOIDS_MAX_GROUPS];
    memcpy(body, s->p.body, sizeof body);
    for (uint32_t g = 0; g < 3; g++)
        ck_assert_int_eq(boids_body_make(&body[g], BOIDS_BODY_SNAKE, 24, 40.0f, NULL, 0), BOIDS_OK);
    char err[256];
    boids_gpu_upload(a, s);
    ck_assert_int_eq(boids_gpu_set_bodies(a, body, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_sim_set_bodies(s, body), BOIDS_OK);
    expect_joints(s, a, 1, "straight after set_bodies");
    body[0].angle_limit = 0.0f;
    ck_assert_int_eq(boids_gpu_set_bodies(a, body, err, sizeof err), BOIDS_ERR_BODY);
    ck_assert_msg(strstr(err, "angle limit"), "set_bodies said '%s'", err);
    // Determinism of whole steps with bodies.
    boids_gpu_upload(a, s);
    ck_assert_int_eq(boids_gpu_set_bodies(b, s->p.body, err, sizeof err), BOIDS_OK);
    boids_gpu_upload(b, s);
    for (int k = 0; k < 12; k++) {
        boids_gpu_step(a);
        boids_gpu_step(b);
    }
    total = (size_t)s->joint_rows * s->n;
    ja = realloc(ja, total * 16);
    jb = realloc(jb, total * 16);
    ck_assert_int_eq(boids_gpu_read_joints(a, ja, total * 16), BOIDS_OK);
    ck_assert_int_eq(boids_gpu_read_joints(b, jb, total * 16), BOIDS_OK);
    ck_assert_msg(memcmp(ja, jb, total * 16) == 0, "two GPU runs give different joints after 12 steps");
    boids_stage_ms ms;
    boids_gpu_finish(a);
    boids_gpu_stage_ms(a, &ms);
    ck_assert_msg(ms.bodies > 0, "the bodies stage has a timer (%g ms)", ms.bodies);
    ck_assert_uint_eq(boids_gpu_debug_errors(a) + boids_gpu_debug_errors(b), 0);
    free(ja);
    free(jb);
    boids_gpu_destroy(a);
    boids_gpu_destroy(b);
    boids_sim_destroy(s);
    close_context();
}
END_TEST

// The stage times and the step they belong to: the same step on the same
// clock, so the stages shown beside the step never sum to more than it,
// both as read a few steps late (the viewer's HUD) and after a wait.
START_TEST(stage_times_nest_in_the_step) {
    open_context();
    boids_sim *s = bodies_sim(3000, 2);
    boids_gpu *a = gpu_for(&s->p, NULL);
    boids_gpu_upload(a, s);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 10; k++)
            boids_gpu_step(a);
        if (round == 1)
            boids_gpu_finish(a);
        boids_stage_ms ms;
        boids_gpu_stage_ms(a, &ms);
        const double st[7] = {ms.key, ms.count, ms.scan, ms.scatter, ms.steer, ms.integrate, ms.bodies};
        double sum = 0.0;
        for (int k = 0; k < 7; k++) {
            EXPECT(st[k] >= 0.0, "round %d: stage %d took %g ms (expected >= 0)", round, k, st[k]);
            sum += st[k];
        }
        EXPECT(ms.step > 0.0, "round %d: the step's GPU span is %g ms (expected > 0: first to last timestamp)", round,
               ms.step);
        EXPECT(sum <= ms.step * (1.0 + 1e-9) + 1e-9,
               "round %d: the stages sum to %.6f ms, more than their step's %.6f ms (expected <= : same step, same "
               "clock)",
               round, sum, ms.step);
    }
    ck_assert_uint_eq(boids_gpu_debug_errors(a), 0);
    boids_gpu_destroy(a);
    boids_sim_destroy(s);
    close_context();
}
END_TEST

// ---- the executables ----------------------------------------------------------------

// Run a command line; its exit status and the last line it printed.
static int run_cmd(const char *cmd, char *last, size_t size) {
    FILE *f = popen(cmd, "r");
    ck_assert_msg(f != NULL, "popen %s", cmd);
    char line[4096];
    last[0] = 0;
    while (fgets(line, sizeof(line), f))
        snprintf(last, size, "%s", line);
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

START_TEST(executables_on_gpu) {
    char last[4096];
    int rc = run_cmd(BOIDS_BIN_DIR "/boids-run --count 3000 --steps 20 --backend gpu --quiet 2>&1", last, sizeof(last));
    ck_assert_msg(rc == 0 && strncmp(last, "state-hash: ", 12) == 0, "boids-run --backend gpu: exit %d, '%s'", rc,
                  last);
    char first[4096];
    snprintf(first, sizeof(first), "%s", last);
    rc = run_cmd(BOIDS_BIN_DIR "/boids-run --count 3000 --steps 20 --backend gpu --quiet 2>&1", last, sizeof(last));
    ck_assert_msg(rc == 0 && strcmp(first, last) == 0, "two GPU runs, same seed: '%s' vs '%s'", first, last);
    rc = run_cmd(BOIDS_BIN_DIR "/boids-validate --count 4000 --steps 30 2>/dev/null", last, sizeof(last));
    ck_assert_msg(rc == 0 && strstr(last, "all checks passed"), "boids-validate: exit %d, '%s'", rc, last);
    rc = run_cmd(BOIDS_BIN_DIR "/boids-validate --count 3000 --steps 10 --dim 3 --boundary bounce 2>/dev/null", last,
                 sizeof(last));
    ck_assert_msg(rc == 0 && strstr(last, "all checks passed"), "boids-validate 3D bounce: exit %d, '%s'", rc, last);
    // The flow-field example's per-agent ranges, every horizon, all 21
    // behaviours. Seed 1 has a snake (id 1662) whose segment points within
    // 2e-5 rad of straight back at step 10 of the bodies horizon, where the
    // angle limit clamps to the side of a difference's sign: the same bits
    // on both backends there too.
    rc = run_cmd(BOIDS_BIN_DIR "/boids-validate --count 3000 --steps 10 --behaviors all --maxspeed-range 2,5 "
                               "--maxforce-range 0.1,0.5 2>/dev/null",
                 last, sizeof(last));
    ck_assert_msg(rc == 0 && strstr(last, "all checks passed"), "boids-validate with ranges: exit %d, '%s'", rc, last);
}
END_TEST

// A driver that offers less than 4.5 (Mesa told to cap its version): exit
// status 3 and one line naming the renderer and the version found.
START_TEST(no_gl45_exits_3) {
    char last[4096];
    int rc = run_cmd("MESA_GL_VERSION_OVERRIDE=4.1 " BOIDS_BIN_DIR
                     "/boids-run --count 100 --steps 2 --backend gpu 2>&1 >/dev/null",
                     last, sizeof(last));
    ck_assert_msg(rc == 3, "without GL 4.5: exit %d (expected 3): %s", rc, last);
    ck_assert_msg(strstr(last, "4.5") && strstr(last, "found renderer") && strstr(last, "4.1"),
                  "the message names the renderer and the version found: %s", last);
    rc = run_cmd("MESA_GL_VERSION_OVERRIDE=4.1 " BOIDS_BIN_DIR "/boids-validate --count 100 --steps 2 2>&1", last,
                 sizeof(last));
    ck_assert_msg(rc == 3, "boids-validate without GL 4.5: exit %d (expected 3): %s", rc, last);
}
END_TEST

START_TEST(validate_paths) {
    // boids-validate's one-step horizon compares path following alone and
    // all together: the shipped path scenarios (segments longer than half
    // the world in x and in y) with each rule of the options.
    static const char *const runs[] = {
        "--scenario path-simple",
        "--scenario path-simple --path-line infinite",
        "--scenario path-segments",
        "--scenario path-segments --path-outside end",
        "--scenario path-following --path-outside end --path-line segment",
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char cmd[512], out[4096];
        snprintf(cmd, sizeof cmd,
                 BOIDS_BIN_DIR "/boids-validate %s --count 2000 --steps 10 2>/dev/null | grep -c 'PASS  path '",
                 runs[i]);
        int rc = run_cmd(cmd, out, sizeof out);
        ck_assert_msg(rc == 0 && atoi(out) == 3,
                      "boids-validate %s: %s path checks passed (expected 3: force, velocity, position)", runs[i], out);
        snprintf(cmd, sizeof cmd, BOIDS_BIN_DIR "/boids-validate %s --count 2000 --steps 10 2>/dev/null", runs[i]);
        rc = run_cmd(cmd, out, sizeof out);
        ck_assert_msg(rc == 0 && strstr(out, "all checks passed"), "boids-validate %s: exit %d, '%s'", runs[i], rc,
                      out);
    }
}
END_TEST

START_TEST(count_over_gpu_limit_exits_2) {
    open_context();
    gladLoadGL((GLADloadfunc)boids_gl_loader(ctx));
    uint32_t max = boids_gpu_max_agents();
    close_context();
    // max + 1 is refused naming max either way: by the GPU limit, or (a GPU
    // that holds BOIDS_MAX_AGENTS, which a large one does) by --count's own
    // range, whose upper bound is then max.
    const char *why = max < BOIDS_MAX_AGENTS ? "do not fit this GPU" : "is too large";
    char cmd[512], last[4096];
    snprintf(cmd, sizeof(cmd), BOIDS_BIN_DIR "/boids-run --count %u --steps 1 --backend gpu 2>&1 >/dev/null", max + 1);
    int rc = run_cmd(cmd, last, sizeof(last));
    char want[32];
    snprintf(want, sizeof(want), "%u", max);
    ck_assert_msg(rc == 2 && strstr(last, want) && strstr(last, "--count") && strstr(last, why),
                  "--count %u over the limit %u: exit %d (expected 2), '%s' (expected '%s' and the largest count %u)",
                  max + 1, max, rc, last, why, max);
}
END_TEST

// The GL error count is not vacuous: a deliberate error is seen by every
// backend living on the context, also after one of them is gone.
START_TEST(debug_errors_counted) {
    open_context();
    boids_params p;
    boids_params_default(&p, 300, 2);
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
    boids_gpu *a = gpu_for(&p, NULL), *b = gpu_for(&p, NULL);
    ck_assert_msg(boids_gpu_debug_errors(a) == 0 && boids_gpu_debug_errors(b) == 0, "no errors yet");
    fprintf(stderr, "(the next GL error is deliberate)\n");
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 100000, 0); // GL_INVALID_VALUE
    ck_assert_msg(boids_gpu_debug_errors(a) == 1 && boids_gpu_debug_errors(b) == 1,
                  "one deliberate error: a counts %u, b counts %u (expected 1 each)", boids_gpu_debug_errors(a),
                  boids_gpu_debug_errors(b));
    boids_gpu_destroy(b);
    fprintf(stderr, "(and this one)\n");
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 100000, 0);
    ck_assert_msg(boids_gpu_debug_errors(a) == 2, "after b is destroyed a still counts: %u (expected 2)",
                  boids_gpu_debug_errors(a));
    boids_gpu_destroy(a);
    close_context();
}
END_TEST

// ---- 64-bit sums without GL_ARB_gpu_shader_int64 (GLSL 4.50 core) -------------------

// behaviors.glsl's fixed point (fix_trunc, fix_add, fix_float: the
// section between its "---- fixed point" and "---- single-agent" rules)
// through a probe shader, native int64 and uint pairs, against C's int64_t:
// truncation of floats of every magnitude to 2^39 and both signs, the carry
// of a sum, and int64 -> float rounding (ties to even, a sticky bit far below
// the top 32 bits, every bit length). Every conversion is portable by
// construction: the same bits also where the driver converts an
// out-of-range float to an integer through 32 bits, saturating or wrapping
// (shaders/emulate.glsl), as an NVIDIA H200 did with int64_t(float); a
// quarter of the inputs lie in +-[2^30, 2^39], where such a driver differs.
START_TEST(fixed_point_without_int64) {
    open_context();
    char *shared = probe_shader_file("shared.h"), *beh = probe_shader_file("behaviors.glsl"), *emu = probe_shader_file("emulate.glsl");
    char *division = probe_shader_file("rounding.glsl");
    char *from = strstr(beh, "// ---- fixed point"), *to = from ? strstr(from, "// ---- single-agent") : NULL;
    ck_assert_msg(from && to, "behaviors.glsl: the fixed-point section's rules not found");
    *to = '\0';
    enum { N = 1 << 14 };
    uint32_t(*in)[4] = malloc(N * 16), (*out)[4] = malloc(N * 16);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    static const float special[] = {0.0f,
                                    -0.0f,
                                    0.5f,
                                    -0.99f,
                                    1.0f,
                                    -1.0f,
                                    4294967040.0f,
                                    4294967296.0f,
                                    -4294967296.0f,
                                    549755813888.0f,
                                    -549755813888.0f,
                                    2147483648.0f,
                                    -2147483648.0f,
                                    16777217.0f,
                                    8388608.5f};
    for (int i = 0; i < N; i++) {
        float v[2];
        for (int k = 0; k < 2; k++) {
            uint64_t r = probe_rng(&x);
            if (r % 16 == 0) {
                v[k] = special[(r >> 8) % (sizeof special / sizeof special[0])];
            } else if (r % 4 == 1) { // +-[2^30, 2^39]: beyond 32 bits
                uint32_t e = (uint32_t)(127 + 30 + (r >> 8) % 9), m = (uint32_t)(r >> 16) & 0x7fffffu;
                v[k] = probe_bits_float((uint32_t)(r & 2) << 30 | e << 23 | m);
            } else { // sign, exponent -4..38, mantissa: |v| < 2^39
                uint32_t e = (uint32_t)(127 - 4 + (r >> 8) % 43), m = (uint32_t)(r >> 16) & 0x7fffffu;
                v[k] = probe_bits_float((uint32_t)(r & 1) << 31 | e << 23 | m);
            }
        }
        uint64_t r = probe_rng(&x), z;
        switch (i % 4) {
        case 0: // any bit length
            z = probe_rng(&x) >> (r % 64);
            break;
        case 1: // a tie between two floats: 25 significant bits
            z = ((1ull << 24) + 1 + 2 * ((r >> 8) % 4)) << (r % 38);
            break;
        case 2: // a tie but for one low bit (the sticky bit)
            z = (((1ull << 24) + 1 + 2 * ((r >> 8) % 4)) << (8 + r % 30)) + 1;
            break;
        default: // near 2^32 and 2^63
            z = (r & 2 ? (1ull << 32) : (1ull << 62)) + (r >> 16) % 512 - 256;
        }
        if (r & (1ull << 63))
            z = (uint64_t)(-(int64_t)z);
        in[i][0] = probe_float_bits(v[0]);
        in[i][1] = probe_float_bits(v[1]);
        in[i][2] = (uint32_t)z;
        in[i][3] = (uint32_t)(z >> 32);
    }
    static const char probe[] =
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer In { uvec4 inp[]; };\n"
        "layout(std430, binding = 1) writeonly buffer Out { uvec4 outp[]; };\n"
        "#ifdef BOIDS_INT64\n"
        "fix64 from_pair(uvec2 p) { return int64_t(packUint2x32(p)); }\n"
        "uvec2 to_pair(fix64 s) { return unpackUint2x32(uint64_t(s)); }\n"
        "#else\n"
        "fix64 from_pair(uvec2 p) { return p; }\n"
        "uvec2 to_pair(fix64 s) { return s; }\n"
        "#endif\n"
        "void main() {\n"
        "    uvec4 c = inp[gl_GlobalInvocationID.x];\n"
        "    fix64 s = fix_add(fix_trunc(uintBitsToFloat(c.x)), fix_trunc(uintBitsToFloat(c.y)));\n"
        "    outp[gl_GlobalInvocationID.x] = uvec4(to_pair(s), floatBitsToUint(fix_float(from_pair(c.zw))),\n"
        "                                          floatBitsToUint(fix_float(s)));\n"
        "}\n";
    GLuint bin, bout;
    glCreateBuffers(1, &bin);
    glCreateBuffers(1, &bout);
    glNamedBufferData(bin, N * 16, in, GL_STATIC_DRAW);
    glNamedBufferData(bout, N * 16, NULL, GL_DYNAMIC_READ);
    static const char *const emulations[] = {"", "#define BOIDS_EMULATE_CONV_SAT 1\n",
                                             "#define BOIDS_EMULATE_CONV_WRAP 1\n"};
    for (int variant = 0; variant < 6; variant++) {
        int native = variant % 2, emulation = variant / 2;
        if (native && !GLAD_GL_ARB_gpu_shader_int64)
            continue;
        char version[256];
        snprintf(version, sizeof version, "#version 450 core\n%s#define BOIDS_GLSL 1\n%s",
                 native ? "#extension GL_ARB_gpu_shader_int64 : require\n#define BOIDS_INT64 1\n" : "",
                 emulations[emulation]);
        const char *texts[] = {version, emulation ? emu : "", shared, "\n", division, from, probe};
        char what[64];
        snprintf(what, sizeof what, "fixed-point probe (%s, emulation %d)", native ? "int64" : "uint pairs", emulation);
        probe_run(texts, 7, bin, bout, N, out, what);
        for (int i = 0; i < N; i++) {
            float v0 = probe_bits_float(in[i][0]), v1 = probe_bits_float(in[i][1]);
            int64_t sum = (int64_t)v0 + (int64_t)v1;
            int64_t z = (int64_t)((uint64_t)in[i][3] << 32 | in[i][2]);
            uint64_t got = (uint64_t)out[i][1] << 32 | out[i][0];
            EXPECT(got == (uint64_t)sum, "%s (emulation %d): trunc(%a) + trunc(%a): %016llx, C %016llx",
                   native ? "int64" : "pairs", emulation, (double)v0, (double)v1, (unsigned long long)got,
                   (unsigned long long)sum);
            EXPECT(out[i][2] == probe_float_bits((float)z), "%s: float(%lld) = %a, C %a", native ? "int64" : "pairs",
                   (long long)z, (double)probe_bits_float(out[i][2]), (double)(float)z);
            EXPECT(out[i][3] == probe_float_bits((float)sum), "%s: float(%lld) = %a, C %a", native ? "int64" : "pairs",
                   (long long)sum, (double)probe_bits_float(out[i][3]), (double)(float)sum);
        }
    }
    glDeleteBuffers(1, &bin);
    glDeleteBuffers(1, &bout);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    free(in);
    free(out);
    free(shared);
    free(beh);
    free(emu);
    free(division);
    close_context();
}
END_TEST

// ---- square root and division as C rounds them, on any driver -------------------

// Inputs of cr_sqrt (x) and fdiv (a, b): item i of kind i % 8. `e` a biased
// exponent, `m` 23 mantissa bits.
static uint32_t fl(uint32_t sign, uint32_t e, uint32_t m) {
    return sign << 31 | e << 23 | (m & 0x7fffffu);
}

static void rounding_inputs(uint32_t (*in)[4], int n) {
    uint64_t x = 0x2545f4914f6cdd1dull;
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                       0x00000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x3f800000u,
                                       0xbf800000u, 0x3fffffffu, 0x00400000u, 0x80800000u};
    const uint32_t ns = (uint32_t)(sizeof special / sizeof special[0]);
    for (int i = 0; i < n; i++) {
        uint64_t r = probe_rng(&x), s = probe_rng(&x);
        uint32_t m1 = (uint32_t)r & 0x7fffffu, m2 = (uint32_t)(r >> 23) & 0x7fffffu, sa = (uint32_t)(r >> 62) & 1,
                 sb = (uint32_t)(r >> 63);
        uint32_t xs, a, b;
        switch (i % 8) {
        case 0: { // random normals; the quotient's exponent uniform over the normal range
            xs = fl(0, 1 + (uint32_t)(s % 254), m1);
            int qe = (int)((s >> 8) % 254) - 126, lo = qe > 0 ? 1 + qe : 1, hi = qe < 0 ? 254 + qe : 254;
            int ea = lo + (int)((s >> 16) % (uint64_t)(hi - lo + 1));
            a = fl(sa, (uint32_t)ea, m1);
            b = fl(sb, (uint32_t)(ea - qe), m2);
            break;
        }
        case 1: { // near powers of two: x and a / b within 8 ULP of 2^k, either side
            int d = (int)(s % 17) - 8;
            uint32_t e = 2 + (uint32_t)((s >> 8) % 252);
            xs = (e << 23) + (uint32_t)d;
            b = fl(sb, 64 + (uint32_t)((s >> 16) % 128), m2);
            int qe = (int)((s >> 24) % 120) - 60;
            a = (uint32_t)((int32_t)(b & 0x7fffffffu) + qe * (1 << 23) + d) | sa << 31;
            break;
        }
        case 2: { // exact: squares of 12-bit integers, products of 12-bit significands
            uint32_t y = 1 + (uint32_t)(s % 4095), z = 1 + (uint32_t)((s >> 12) % 4095);
            int k = (int)((s >> 24) % 100) - 50;
            xs = probe_float_bits(ldexpf((float)(y * y), 2 * k));
            b = probe_float_bits(ldexpf((float)z, k / 2)) | sb << 31;
            a = probe_float_bits(probe_bits_float(b & 0x7fffffffu) * ldexpf((float)y, (int)((s >> 40) % 60) - 30)) | sa << 31;
            break;
        }
        case 3: { // ties-looking: the exact value next to a midpoint between two floats
            uint64_t mid = (1ull << 24) | (uint64_t)(m1 << 1) | 1; // 25 bits, odd: a midpoint
            int k = (int)(s % 200) - 100;
            double root = ldexp((double)mid, k / 2 - 24);
            xs = probe_float_bits((float)(root * root)) + (uint32_t)((s >> 8) % 3) - 1u; // its square, +-1 ULP
            b = fl(sb, 100 + (uint32_t)((s >> 16) % 60), m2);
            double p = ldexp((double)mid, -24) * (double)probe_bits_float(b & 0x7fffffffu);
            a = (probe_float_bits((float)ldexp(p, (int)((s >> 24) % 80) - 40)) + (uint32_t)((s >> 32) % 3) - 1u) | sa << 31;
            break;
        }
        case 4: { // the overflow edge: quotients in [2^126, 2^129), FLT_MAX +- a few ULP
            xs = fl(0, 250 + (uint32_t)(s % 5), m1);
            if (s & 0x100) {
                a = fl(sa, 254 - (uint32_t)((s >> 9) % 2), m1);
                b = fl(sb, 126 + (uint32_t)((s >> 10) % 2), m2);
            } else {
                a = (0x7f7fffffu - (uint32_t)((s >> 9) % 6)) | sa << 31;
                b = (0x3f800000u - (uint32_t)((s >> 12) % 6) + (uint32_t)((s >> 16) % 3)) | sb << 31;
            }
            break;
        }
        case 5: { // the underflow edge: quotients in [2^-128, 2^-124), x near FLT_MIN
            xs = fl(0, 1 + (uint32_t)(s % 4), (s & 0x8) ? m1 : (uint32_t)((s >> 4) % 8));
            uint32_t eb = 128 + (uint32_t)((s >> 8) % 126);
            int qe = (int)((s >> 16) % 4) - 3; // a / b's exponent: -128 .. -125
            a = fl(sa, (uint32_t)((int)eb + qe - 124), m1);
            b = fl(sb, eb, m2);
            break;
        }
        case 6: { // far exponents, and the operands of the special cases
            xs = special[s % ns];
            if (s & 0x10000) {
                a = special[(s >> 8) % ns];
                b = (s & 0x20000) ? special[(s >> 20) % ns] : fl(sb, 1 + (uint32_t)((s >> 24) % 254), m2);
            } else {
                a = fl(sa, (s & 0x40000) ? 1 + (uint32_t)((s >> 8) % 20) : 234 + (uint32_t)((s >> 8) % 20), m1);
                b = fl(sb, (s & 0x80000) ? 1 + (uint32_t)((s >> 24) % 20) : 234 + (uint32_t)((s >> 24) % 20), m2);
            }
            break;
        }
        default: { // extreme significands: 1.0 and 2 - 2^-23, either operand, +-2 ULP
            uint32_t pick = (uint32_t)(s % 4);
            uint32_t mx = pick & 1 ? 0x7fffffu - (uint32_t)((s >> 4) % 3) : (uint32_t)((s >> 4) % 3);
            uint32_t my = pick & 2 ? 0x7fffffu - (uint32_t)((s >> 8) % 3) : (uint32_t)((s >> 8) % 3);
            xs = fl(0, 1 + (uint32_t)((s >> 12) % 254), mx);
            uint32_t ea = 64 + (uint32_t)((s >> 20) % 128), eb = 64 + (uint32_t)((s >> 28) % 128);
            a = fl(sa, ea, mx);
            b = fl(sb, eb, my);
        }
        }
        in[i][0] = xs;
        in[i][1] = a;
        in[i][2] = b;
        in[i][3] = 0;
    }
}

// Where the shaders promise C's bits (rounding.glsl): every x but a
// subnormal one (a driver may flush it: sqrt(-0) for a negative one); every
// a / b but where an operand is subnormal or the quotient of normal ones
// lies below 2^-126 (the driver's result there).
static bool subnormal(float v) {
    return v != 0.0f && fabsf(v) < FLT_MIN;
}
static bool sqrt_promised(float x) {
    return !subnormal(x);
}
static bool div_promised(float a, float b) {
    if (subnormal(a) || subnormal(b))
        return false;
    if (!isfinite(a) || !isfinite(b) || a == 0.0f || b == 0.0f)
        return true;
    return fabs((double)a / (double)b) >= (double)FLT_MIN; // exact enough: no such quotient is that near 2^-126
}
static bool same_float(uint32_t got, float want) {
    return isnan(want) ? isnan(probe_bits_float(got)) : got == probe_float_bits(want);
}

// rounding.glsl (cr_sqrt, fdiv) through a probe shader: in[i] = (x, a, b,
// 0) -> out[i] = (sqrt(x), a / b, 0, 0) as bits; `defines` before
// emulate.glsl (assembled when `emulated`), shared.h and rounding.glsl.
static void rounding_run(GLuint bin, GLuint bout, const char *defines, bool emulated, uint32_t (*out)[4], int n) {
    static const char probe[] =
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer In { uvec4 inp[]; };\n"
        "layout(std430, binding = 1) writeonly buffer Out { uvec4 outp[]; };\n"
        "void main() {\n"
        "    uvec4 c = inp[gl_GlobalInvocationID.x];\n"
        "    float r = sqrt(uintBitsToFloat(c.x)), q = fdiv(uintBitsToFloat(c.y), "
        "uintBitsToFloat(c.z));\n"
        "    outp[gl_GlobalInvocationID.x] = uvec4(floatBitsToUint(r), floatBitsToUint(q), 0u, 0u);\n"
        "}\n";
    char *shared = probe_shader_file("shared.h"), *emu = probe_shader_file("emulate.glsl"),
         *rounding = probe_shader_file("rounding.glsl");
    const char *texts[] = {
        "#version 450 core\n#define BOIDS_GLSL 1\n", defines, emulated ? emu : "", shared, "\n", rounding, probe};
    char what[256];
    snprintf(what, sizeof what, "rounding probe (%s)", defines);
    probe_run(texts, 7, bin, bout, n, out, what);
    free(shared);
    free(emu);
    free(rounding);
}

// rounding.glsl's cr_sqrt and fdiv with BOIDS_CORRECT_ROUNDING against C's
// sqrtf and / (correctly rounded binary32), bit for bit, on 2^16 inputs (x
// and a, b of every exponent, near powers of two, at the overflow and
// underflow edges, exact roots and quotients, values next to a midpoint,
// special operands): on the driver as it is, and with the driver's sqrt,
// inversesqrt and quotient 1 to 4 ULP off, up or down (shaders/emulate.glsl
// on llvmpipe), which the correction must undo. Outside the corrected range
// the result must be the driver's (the same program without the
// correction), and without the correction the emulation must be seen (most
// results differ from C's), so the pass is not vacuous.
START_TEST(rounding_corrected_on_any_driver) {
    open_context();
    enum { N = 1 << 16 };
    uint32_t(*in)[4] = malloc(N * 16), (*out)[4] = malloc(N * 16), (*plain)[4] = malloc(N * 16);
    ck_assert(in && out && plain);
    rounding_inputs(in, N);
    int promised_sqrt = 0, promised_div = 0;
    for (int i = 0; i < N; i++) {
        promised_sqrt += sqrt_promised(probe_bits_float(in[i][0]));
        promised_div += div_promised(probe_bits_float(in[i][1]), probe_bits_float(in[i][2]));
    }
    ck_assert_msg(promised_sqrt > N * 7 / 8 && promised_div > N * 3 / 4 && promised_div < N - N / 32,
                  "inputs in and out of range: %d roots, %d quotients of %d", promised_sqrt, promised_div, N);
    GLuint bin, bout;
    glCreateBuffers(1, &bin);
    glCreateBuffers(1, &bout);
    glNamedBufferData(bin, N * 16, in, GL_STATIC_DRAW);
    glNamedBufferData(bout, N * 16, NULL, GL_DYNAMIC_READ);
    // Emulation v: 0 none; 1..4 ulp-up by v ULP; 5..8 ulp-down by v - 4.
    for (int v = 0; v < 9; v++) {
        int ulps = v == 0 ? 0 : (v - 1) % 4 + 1;
        const char *dir = v == 0 ? "none" : v <= 4 ? "up" : "down";
        char emulation[128] = "";
        if (ulps)
            snprintf(emulation, sizeof emulation, "#define BOIDS_EMULATE_ULP_%s 1\n#define BOIDS_EMULATE_ULP %d\n",
                     v <= 4 ? "UP" : "DOWN", ulps);
        char corrected[192];
        snprintf(corrected, sizeof corrected, "#define BOIDS_CORRECT_ROUNDING 1\n%s", emulation);
        rounding_run(bin, bout, emulation, ulps > 0, plain, N);
        rounding_run(bin, bout, corrected, ulps > 0, out, N);
        int bad_sqrt = 0, bad_div = 0, moved_sqrt = 0, moved_div = 0, kept_sqrt = 0, kept_div = 0;
        char first[512] = "";
        for (int i = 0; i < N; i++) {
            float x = probe_bits_float(in[i][0]), a = probe_bits_float(in[i][1]), b = probe_bits_float(in[i][2]);
            float want_r = sqrtf(x), want_q = a / b;
            if (!sqrt_promised(x))
                kept_sqrt += out[i][0] == plain[i][0];
            else if (!same_float(out[i][0], want_r) && bad_sqrt++ == 0 && !first[0])
                snprintf(first, sizeof first, "sqrt(%a) = %a, C %a (input %d)", (double)x,
                         (double)probe_bits_float(out[i][0]), (double)want_r, i);
            if (!div_promised(a, b))
                kept_div += out[i][1] == plain[i][1];
            else if (!same_float(out[i][1], want_q) && bad_div++ == 0 && !first[0])
                snprintf(first, sizeof first, "%a / %a = %a, C %a (input %d)", (double)a, (double)b,
                         (double)probe_bits_float(out[i][1]), (double)want_q, i);
            moved_sqrt += sqrt_promised(x) && !same_float(plain[i][0], want_r);
            moved_div += div_promised(a, b) && !same_float(plain[i][1], want_q);
        }
        ck_assert_msg(bad_sqrt == 0 && bad_div == 0,
                      "corrected, emulation %s %d ULP: %d of %d roots and %d of %d quotients differ from C; first: %s",
                      dir, ulps, bad_sqrt, promised_sqrt, bad_div, promised_div, first);
        ck_assert_msg(kept_sqrt == N - promised_sqrt && kept_div == N - promised_div,
                      "emulation %s %d ULP: outside the corrected range %d of %d roots and %d of %d quotients are "
                      "not the driver's",
                      dir, ulps, N - promised_sqrt - kept_sqrt, N - promised_sqrt, N - promised_div - kept_div,
                      N - promised_div);
        if (ulps) // every finite non-zero result moved: all but 0, infinity and NaN differ
            ck_assert_msg(moved_sqrt > promised_sqrt * 3 / 4 && moved_div > promised_div * 3 / 4,
                          "uncorrected under %s %d ULP only %d of %d roots and %d of %d quotients differ from C: the "
                          "emulation does nothing?",
                          dir, ulps, moved_sqrt, promised_sqrt, moved_div, promised_div);
    }
    glDeleteBuffers(1, &bin);
    glDeleteBuffers(1, &bout);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    free(in);
    free(out);
    free(plain);
    close_context();
}
END_TEST

// The whole step with the sums in uint pairs (debug.no_int64, as on a
// driver without GL_ARB_gpu_shader_int64) gives the native int64 run's
// bits: steer's output after one step, the state after 31.
START_TEST(step_without_int64) {
    open_context();
    const step_case *c = &step_cases[_i];
    boids_params p;
    case_world(c, &p);
    three_groups(&p, (1u << BOIDS_BEHAVIOR_COUNT) - 1u);
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
    boids_sim *s;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
    boids_gpu *a = gpu_for(&s->p, NULL);
    boids_gpu_desc d = {.params = &s->p, .load = boids_gl_loader(ctx), .quiet = true, .debug = {.no_int64 = true}};
    boids_gpu *b = NULL;
    char err[2048];
    ck_assert_msg(boids_gpu_create(&b, &d, err, sizeof err) == BOIDS_OK, "boids_gpu_create (no int64): %s", err);
    ck_assert_msg(boids_gpu_int64(a) == (GLAD_GL_ARB_gpu_shader_int64 != 0),
                  "int64 in the shaders: %d, the context's GL_ARB_gpu_shader_int64: %d", boids_gpu_int64(a),
                  GLAD_GL_ARB_gpu_shader_int64);
    ck_assert_msg(!boids_gpu_int64(b), "debug.no_int64: expected the shaders without int64");
    boids_gpu_upload(a, s);
    boids_gpu_upload(b, s);
    size_t bytes = (size_t)(s->n + 1) * 16;
    float(*pa)[4] = malloc(bytes), (*pb)[4] = malloc(bytes), (*va)[4] = malloc(bytes), (*vb)[4] = malloc(bytes);
    uint32_t *ga = malloc(bytes), *gb = malloc(bytes);
    boids_gpu_step(a);
    boids_gpu_step(b);
    ck_assert_int_eq(boids_gpu_read_state(a, pa, va, ga), BOIDS_OK);
    ck_assert_int_eq(boids_gpu_read_state(b, pb, vb, gb), BOIDS_OK);
    EXPECT(memcmp(pa, pb, (size_t)s->n * 16) == 0 && memcmp(va, vb, (size_t)s->n * 16) == 0,
           "%s: one step differs between int64 and uint pairs", c->name);
    for (int k = 0; k < 30; k++) {
        boids_gpu_step(a);
        boids_gpu_step(b);
    }
    uint64_t ha = boids_gpu_hash(a), hb = boids_gpu_hash(b);
    EXPECT(ha == hb, "%s: after 31 steps int64 %016llx, uint pairs %016llx", c->name, (unsigned long long)ha,
           (unsigned long long)hb);
    EXPECT(boids_gpu_debug_errors(a) == 0 && boids_gpu_debug_errors(b) == 0, "%s: GL errors", c->name);
    free(pa);
    free(pb);
    free(va);
    free(vb);
    free(ga);
    free(gb);
    boids_gpu_destroy(a);
    boids_gpu_destroy(b);
    boids_sim_destroy(s);
    close_context();
}
END_TEST

// Every boids_gpu_* function given a NULL backend: BOIDS_ERR_ARGUMENT (err
// naming the function where one is taken), 0 / false, or nothing done with
// its out-pointers zeroed; none touches GL, so no context is needed.
START_TEST(null_handles) {
    const boids_result A = BOIDS_ERR_ARGUMENT;
    boids_gpu *g = NULL, *made = (boids_gpu *)&g;
    char err[256] = "";
    ck_assert(boids_gpu_create(&made, NULL, err, sizeof err) == A && made == NULL);
    ck_assert_msg(strstr(err, "boids_gpu_create") && strstr(err, "NULL"), "got '%s'", err);
    ck_assert(boids_gpu_create(NULL, NULL, NULL, 0) == A);
    boids_gpu_destroy(g);
    boids_params p;
    boids_params_default(&p, 10, 2);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    boids_gpu_prepare(g, p.group);
    boids_steer_info info;
    memset(&info, 0xAB, sizeof info);
    boids_gpu_steer_info(g, &info);
    ck_assert(info.built == 0 && info.general_steps == 0);
    ck_assert(boids_gpu_kernel(g) == BOIDS_KERNEL_REFERENCE);
    boids_gpu_set_params(g, &p);
    ck_assert(boids_gpu_set_grid(g, &p, err, sizeof err) == A);
    ck_assert_msg(strstr(err, "boids_gpu_set_grid"), "got '%s'", err);
    double occ = 7.0;
    ck_assert(boids_gpu_grid_occupancy(g, &occ) == A && occ == 0.0);
    boids_gpu_upload(g, NULL);
    boids_gpu_upload_agents(g, NULL);
    boids_gpu_step(g);
    boids_gpu_build_grid(g);
    boids_gpu_steer(g);
    boids_gpu_integrate(g);
    boids_gpu_bodies(g);
    boids_gpu_finish(g);
    uint32_t word = 7;
    ck_assert(boids_gpu_read(g, BOIDS_GPU_ID, &word, 4) == A);
    ck_assert(boids_gpu_read_state(g, NULL, NULL, NULL) == A);
    ck_assert(boids_gpu_download(g, NULL) == A && boids_gpu_download_state(g, NULL) == A);
    ck_assert(boids_gpu_hash(g) == 0);
    boids_stage_ms ms;
    memset(&ms, 0xAB, sizeof ms);
    boids_gpu_stage_ms(g, &ms);
    ck_assert(ms.key == 0.0 && ms.bodies == 0.0);
    uint32_t a = 7, b = 7, c = 7, d = 7, rows = 7;
    boids_gpu_state_buffers(g, &a, &b, &c, &d);
    ck_assert(a == 0 && b == 0 && c == 0 && d == 0);
    ck_assert(boids_gpu_id_buffer(g) == 0 && boids_gpu_joint_buffer(g, &rows) == 0 && rows == 0);
    ck_assert(boids_gpu_set_bodies(g, p.body, err, sizeof err) == A);
    ck_assert_msg(strstr(err, "boids_gpu_set_bodies"), "got '%s'", err);
    float joint[1][4];
    ck_assert(boids_gpu_read_joints(g, joint, sizeof joint) == A);
    ck_assert(boids_gpu_debug_errors(g) == 0);
    ck_assert(boids_gpu_check(g, err, sizeof err) == A);
    ck_assert_msg(strstr(err, "boids_gpu_check"), "got '%s'", err);
    ck_assert(!boids_gpu_robust(g) && !boids_gpu_int64(g) && !boids_gpu_corrects_rounding(g));
    static boids_program_stats ps[BOIDS_PROGRAMS_MAX];
    uint32_t n = 7;
    ck_assert(boids_gpu_program_stats(g, ps, &n) == A && n == 0);
    ck_assert(boids_gpu_steps(g) == 0 && boids_gpu_count(g) == 0 && boids_gpu_capacity(g) == 0);
    ck_assert(boids_gpu_set_count(g, 1) == A);
    // The context layer too.
    ck_assert(boids_egl_create(NULL, NULL, 0) == A);
    boids_gl_context_destroy(NULL);
    ck_assert(strcmp(boids_gl_context_describe(NULL), "") == 0 && !boids_gl_context_robust(NULL));
}
END_TEST

Suite *gpu_suite(void);
Suite *gpu_suite(void) {
    Suite *s = suite_create("gpu");
    boids_test_tcase(s, "layout", layout_matches_driver);
    TCase *grid = tcase_create("grid");
    tcase_set_timeout(grid, 600);
    tcase_add_loop_test(grid, grid_exact, 0, (int)(sizeof(grid_cases) / sizeof(grid_cases[0])));
    tcase_add_test(grid, seams_and_corners);
    suite_add_tcase(s, grid);
    TCase *steer = tcase_create("steer");
    tcase_set_timeout(steer, 900);
    tcase_add_loop_test(steer, steer_each_behavior, 0, (int)(sizeof(step_cases) / sizeof(step_cases[0])));
    tcase_add_loop_test(steer, step_parity_and_determinism, 0, (int)(sizeof(step_cases) / sizeof(step_cases[0])));
    tcase_add_test(steer, path_twins_by_hand);
    tcase_add_test(steer, path_twins_crowd);
    tcase_add_loop_test(steer, rules_step_parity, 0, (int)(sizeof(step_cases) / sizeof(step_cases[0])));
    tcase_add_loop_test(steer, combine_and_neighborhood_parity, 0, (int)(sizeof(step_cases) / sizeof(step_cases[0])));
    tcase_add_test(steer, fixed_point_without_int64);
    tcase_add_test(steer, rounding_corrected_on_any_driver);
    tcase_add_loop_test(steer, step_without_int64, 0, (int)(sizeof(step_cases) / sizeof(step_cases[0])));
    suite_add_tcase(s, steer);
    TCase *bodies = tcase_create("bodies");
    tcase_set_timeout(bodies, 600);
    tcase_add_loop_test(bodies, bodies_parity, 0, 2);
    tcase_add_test(bodies, bodies_in_the_step);
    tcase_add_test(bodies, stage_times_nest_in_the_step);
    suite_add_tcase(s, bodies);
    TCase *apps = tcase_create("executables");
    tcase_set_timeout(apps, 900);
    tcase_add_test(apps, executables_on_gpu);
    tcase_add_test(apps, validate_paths);
    tcase_add_test(apps, validate_combine_and_neighborhoods);
    tcase_add_test(apps, count_over_gpu_limit_exits_2);
    tcase_add_test(apps, no_gl45_exits_3);
    suite_add_tcase(s, apps);
    TCase *errors = tcase_create("errors");
    tcase_set_timeout(errors, 120);
    tcase_add_test(errors, broken_shader_names_file);
    tcase_add_test(errors, too_many_agents_refused);
    tcase_add_test(errors, debug_errors_counted);
    tcase_add_test(errors, null_handles);
    suite_add_tcase(s, errors);
    return s;
}

int main(void) {
    return boids_test_run_suite(gpu_suite());
}
