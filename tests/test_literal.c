// tests/test_literal.c: the chapter's flocking sketch reproduced literally
// ("the book, literally"): the margin boundary (the sketch's
// borders()) and the sequential update (its run() loop) by hand, and one
// step of 300 boids against a transcription of Example 5.11 from the book's
// text (seeds/nature-of-code-ch5-autonomous-agents.txt): the Boid's
// separate(), align(), cohesion(), seek(), update() and borders(), the
// Flock's run() calling boid.run() for each boid in turn, in double
// precision like JavaScript numbers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_run.h"
#include "boids/behaviors.h"
#include "boids/core.h"

// EXPECT calls into Check only when the condition fails (cheap in loops).
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

// The sketch's canvas (Example 5.11: createCanvas(640, 360)) as a margin world.
static void canvas_params(boids_params *p, uint32_t n) {
    boids_params_default(p, n, 2);
    p->world.boundary = BOIDS_BOUNDARY_MARGIN;
    p->world.min[0] = p->world.min[1] = 0.0f;
    p->world.size[0] = 640.0f;
    p->world.size[1] = 360.0f;
}

// A simulation of p (one thread) with the agents pos, vel (id order), group 0.
static boids_sim *sim_of(const boids_params *p, const float (*pos)[4], const float (*vel)[4]) {
    char what[256] = "";
    boids_params q = *p;
    EXPECT(boids_params_finalize(&q, what, sizeof what) == BOIDS_OK, "params rejected: %s", what);
    boids_sim *s = NULL;
    EXPECT(boids_sim_create(&s, &q, BOIDS_DIST_UNIFORM) == BOIDS_OK, "sim not created");
    s->threads = 1;
    uint32_t *group = calloc(q.world.count ? q.world.count : 1, sizeof *group);
    EXPECT(boids_sim_set_agents(s, pos, vel, group) == BOIDS_OK, "agents rejected");
    free(group);
    return s;
}

static const float *pos_of(boids_sim *s, uint32_t id) {
    return s->cur.pos[boids_sim_slots_by_id(s)[id]];
}
static const float *vel_of(boids_sim *s, uint32_t id) {
    return s->cur.vel[boids_sim_slots_by_id(s)[id]];
}

// ---- borders() by hand -------------------------------------------------------------

// boids_boundary of (x, y[, z]) in w, expected (ex, ey[, ez]) exactly.
static void expect_border(const boids_world_params *w, float x, float y, float z, float ex, float ey, float ez,
                          const char *why) {
    float p[3] = {x, y, z}, v[3] = {1.5f, -2.0f, w->dim == 3 ? 0.5f : 0.0f};
    boids_boundary(w, p, v);
    EXPECT(p[0] == ex && p[1] == ey && p[2] == ez, "(%g, %g, %g) -> (%g, %g, %g), expected (%g, %g, %g): %s", (double)x,
           (double)y, (double)z, (double)p[0], (double)p[1], (double)p[2], (double)ex, (double)ey, (double)ez, why);
    EXPECT(v[0] == 1.5f && v[1] == -2.0f && v[2] == (w->dim == 3 ? 0.5f : 0.0f),
           "(%g, %g): the velocity changed to (%g, %g, %g); borders() keeps it", (double)x, (double)y, (double)v[0],
           (double)v[1], (double)v[2]);
}

START_TEST(margin_by_hand) {
    boids_params p;
    canvas_params(&p, 1);
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
    const boids_world_params *w = &p.world;
    // The sketch: if (x < -r) x = width + r; if (y < -r) y = height + r;
    // if (x > width + r) x = -r; if (y > height + r) y = -r; r = 3.
    expect_border(w, -3.5f, 100, 0, 643, 100, 0, "x < -3: x = width + r = 643 (the overshoot 0.5 lost)");
    expect_border(w, 643.25f, 100, 0, -3, 100, 0, "x > 643: x = -r");
    expect_border(w, 10, -100, 0, 10, 363, 0, "y < -3 by far: y = height + r = 363");
    expect_border(w, 10, 363.5f, 0, 10, -3, 0, "y > 363: y = -r");
    expect_border(w, -4, 364, 0, 643, -3, 0, "both axes at once (a corner)");
    expect_border(w, -3, 363, 0, -3, 363, 0, "exactly r beyond: inside the margin (strict <, >), kept");
    expect_border(w, -2.5f, 362, 0, -2.5f, 362, 0, "within the margin band: kept, off the canvas");
    expect_border(w, 320, 180, 0, 320, 180, 0, "inside: kept");
    // A margin of its own (world.margin) and an origin that is not 0.
    boids_params q;
    canvas_params(&q, 1);
    q.world.margin = 10.0f;
    q.world.min[0] = -100.0f;
    ck_assert_int_eq(boids_params_finalize(&q, NULL, 0), BOIDS_OK);
    expect_border(&q.world, -109, 5, 0, -109, 5, 0, "min - 9 with r = 10: kept");
    expect_border(&q.world, -110.5f, 5, 0, 550, 5, 0, "min - 10.5: min + 640 + 10");
    expect_border(&q.world, 551, 371, 0, -110, -10, 0, "beyond both far edges: min - r on each");
    // 3D: the z axis too.
    boids_params d;
    boids_params_default(&d, 1, 3);
    d.world.boundary = BOIDS_BOUNDARY_MARGIN;
    for (int a = 0; a < 3; a++) {
        d.world.min[a] = 0.0f;
        d.world.size[a] = 200.0f;
    }
    ck_assert_int_eq(boids_params_finalize(&d, NULL, 0), BOIDS_OK);
    expect_border(&d.world, 50, 50, -3.25f, 50, 50, 203, "3D: z < -3: z = depth + r");
    expect_border(&d.world, 50, 50, 204, 50, 50, -3, "3D: z > 203: z = -r");
}
END_TEST

START_TEST(margin_distances_and_cells) {
    boids_params p;
    canvas_params(&p, 1);
    ck_assert_int_eq(boids_params_finalize(&p, NULL, 0), BOIDS_OK);
    const boids_world_params *w = &p.world;
    // Plain differences: across the canvas, not the short way round.
    float d[3];
    boids_world_delta(w, (float[3]){1, 359, 0}, (float[3]){639, 1, 0}, d);
    EXPECT(d[0] == 638 && d[1] == -358, "delta (1,359) -> (639,1) = (%g, %g), expected (638, -358): no minimum image",
           (double)d[0], (double)d[1]);
    // Off-canvas positions (the margin band) fall in the edge cells.
    uint32_t c0 = boids_grid_cell_of(w, (float[4]){-2.9f, -2.9f, 0, 0});
    uint32_t c1 = boids_grid_cell_of(w, (float[4]){642.9f, 362.9f, 0, 0});
    EXPECT(c0 == 0, "(-2.9, -2.9) is in cell %u, expected 0 (clamped)", c0);
    EXPECT(c1 == w->cells[3] - 1, "(642.9, 362.9) is in cell %u, expected the last, %u (clamped)", c1, w->cells[3] - 1);
    // Two agents in the margin band on either side of the canvas are not
    // neighbours (640 apart); two at the same edge, one off it, are.
    float pos[4][4] = {{-2, 100, 0, 0}, {642, 100, 0, 0}, {-2.5f, 200, 0, 0}, {20, 200, 0, 0}};
    float vel[4][4] = {{0, 1, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0}};
    canvas_params(&p, 4);
    boids_sim *s = sim_of(&p, (const float(*)[4])pos, (const float(*)[4])vel);
    boids_sim_step(s);
    const uint32_t *slot = boids_sim_slots_by_id(s);
    EXPECT(s->neighbors[slot[0]] == 0 && s->neighbors[slot[1]] == 0,
           "agents at x = -2 and 642 have %u and %u neighbours, expected 0 (640 apart, no wrap)", s->neighbors[slot[0]],
           s->neighbors[slot[1]]);
    EXPECT(s->neighbors[slot[2]] == 1 && s->neighbors[slot[3]] == 1,
           "agents at x = -2.5 and 20 have %u and %u neighbours, expected 1 each (22.5 apart)", s->neighbors[slot[2]],
           s->neighbors[slot[3]]);
    boids_sim_destroy(s);
}
END_TEST

// ---- the sequential update by hand -------------------------------------------------

// Cohesion only: agent A at (100, 100) moving (3, 0), agent B at rest 52 to
// its right (beyond the radius 50). In parallel neither sees the other. In
// sequence with A first, A moves to (103, 100), then B, now 49 away, seeks
// it: desired (-49, 0) set to maxspeed 3, minus v = 0, limited to maxforce
// 0.05: (-0.05, 0), so B moves to (151.95, 100). With B first, B sees nobody.
START_TEST(sequential_by_hand) {
    boids_params p;
    canvas_params(&p, 2);
    p.group[0].behaviors = BOIDS_BIT(BOIDS_BI_COHESION);
    for (int order = 0; order < 3; order++) {
        bool a_first = order != 1, sequential = order < 2;
        uint32_t a = a_first ? 0 : 1, b = 1 - a;
        float pos[2][4], vel[2][4];
        memcpy(pos[a], (float[4]){100, 100, 0, 0}, 16);
        memcpy(vel[a], (float[4]){3, 0, 0, 0}, 16);
        memcpy(pos[b], (float[4]){152, 100, 0, 0}, 16);
        memcpy(vel[b], (float[4]){0, 0, 0, 0}, 16);
        boids_sim *s = sim_of(&p, (const float(*)[4])pos, (const float(*)[4])vel);
        s->update = sequential ? BOIDS_UPDATE_SEQUENTIAL : BOIDS_UPDATE_PARALLEL;
        boids_sim_step(s);
        const float *pa = pos_of(s, a), *pb = pos_of(s, b), *vb = vel_of(s, b);
        const char *name = order == 0 ? "sequential, A first" : order == 1 ? "sequential, B first" : "parallel";
        EXPECT(pa[0] == 103.0f && pa[1] == 100.0f, "%s: A at (%g, %g), expected (103, 100): nobody within 50", name,
               (double)pa[0], (double)pa[1]);
        float want_v = order == 0 ? -0.05f : 0.0f;
        EXPECT(fabsf(vb[0] - want_v) <= 1e-7f && vb[1] == 0.0f && fabsf(pb[0] - (152.0f + want_v)) <= 2e-5f,
               "%s: B has v (%g, %g) at x %g, expected v (%g, 0) at %g (%s)", name, (double)vb[0], (double)vb[1],
               (double)pb[0], (double)want_v, (double)(152.0f + want_v),
               order == 0 ? "A moved to 49 away before B looked" : "B looked before A moved");
        boids_sim_destroy(s);
    }
}
END_TEST

// ---- Example 5.11, transcribed from the book's text ------------------------------------
//
// p5.Vector in double precision: setMag(n) is normalize() then mult(n);
// normalize() leaves the zero vector; limit(max) rescales when magSq > max^2.

typedef struct vec {
    double x, y;
} vec;

static vec v_add(vec a, vec b) {
    return (vec){a.x + b.x, a.y + b.y};
}
static vec v_sub(vec a, vec b) {
    return (vec){a.x - b.x, a.y - b.y};
}
static vec v_mult(vec a, double n) {
    return (vec){a.x * n, a.y * n};
}
static vec v_div(vec a, double n) {
    return (vec){a.x / n, a.y / n};
}
static double v_mag(vec a) {
    return sqrt(a.x * a.x + a.y * a.y);
}
static vec v_normalize(vec a) {
    double len = v_mag(a);
    return len != 0 ? v_mult(a, 1 / len) : a;
}
static vec v_set_mag(vec a, double n) {
    return v_mult(v_normalize(a), n);
}
static vec v_limit(vec a, double max) {
    double m2 = a.x * a.x + a.y * a.y;
    return m2 > max * max ? v_mult(v_div(a, sqrt(m2)), max) : a;
}

// The Boid of Example 5.11: r = 3, maxspeed = 3, maxforce = 0.05.
typedef struct book_boid {
    vec position, velocity, acceleration;
    double r, maxspeed, maxforce;
} book_boid;

static const double WIDTH = 640, HEIGHT = 360;

// seek(target): desired = target - position, setMag(maxspeed); steer = desired - velocity, limit(maxforce).
static vec book_seek(const book_boid *b, vec target) {
    vec desired = v_set_mag(v_sub(target, b->position), b->maxspeed);
    return v_limit(v_sub(desired, b->velocity), b->maxforce);
}

// separate(): within 25, sum of (position - other) setMag(1 / d); the sum
// setMag(maxspeed) - velocity, limit(maxforce). "this !== other": the test's
// boids never coincide, so d > 0 for every other.
static vec book_separate(const book_boid *b, const book_boid *boids, int n) {
    double desiredseparation = 25;
    vec sum = {0, 0};
    int count = 0;
    for (int i = 0; i < n; i++) {
        double d = v_mag(v_sub(b->position, boids[i].position));
        if (&boids[i] != b && d < desiredseparation) {
            sum = v_add(sum, v_set_mag(v_sub(b->position, boids[i].position), 1 / d));
            count++;
        }
    }
    if (count > 0) {
        sum = v_set_mag(sum, b->maxspeed);
        return v_limit(v_sub(sum, b->velocity), b->maxforce);
    }
    return (vec){0, 0};
}

// align(): within 50, the sum of velocities setMag(maxspeed) - velocity, limit(maxforce).
static vec book_align(const book_boid *b, const book_boid *boids, int n) {
    double neighborDistance = 50;
    vec sum = {0, 0};
    int count = 0;
    for (int i = 0; i < n; i++) {
        double d = v_mag(v_sub(b->position, boids[i].position));
        if (&boids[i] != b && d < neighborDistance) {
            sum = v_add(sum, boids[i].velocity);
            count++;
        }
    }
    if (count > 0) {
        sum = v_set_mag(sum, b->maxspeed);
        return v_limit(v_sub(sum, b->velocity), b->maxforce);
    }
    return (vec){0, 0};
}

// cohesion(): within 50, seek the average position.
static vec book_cohesion(const book_boid *b, const book_boid *boids, int n) {
    double neighborDistance = 50;
    vec sum = {0, 0};
    int count = 0;
    for (int i = 0; i < n; i++) {
        double d = v_mag(v_sub(b->position, boids[i].position));
        if (&boids[i] != b && d < neighborDistance) {
            sum = v_add(sum, boids[i].position);
            count++;
        }
    }
    if (count > 0)
        return book_seek(b, v_div(sum, count));
    return (vec){0, 0};
}

// run(boids): flock(boids) (separation x 1.5, alignment x 1, cohesion x 1
// applied as forces), update(), borders(). Returns the acceleration.
static vec book_run(book_boid *b, const book_boid *boids, int n) {
    vec sep = v_mult(book_separate(b, boids, n), 1.5);
    vec ali = v_mult(book_align(b, boids, n), 1.0);
    vec coh = v_mult(book_cohesion(b, boids, n), 1.0);
    b->acceleration = v_add(v_add(v_add(b->acceleration, sep), ali), coh);
    vec acc = b->acceleration;
    // update()
    b->velocity = v_limit(v_add(b->velocity, b->acceleration), b->maxspeed);
    b->position = v_add(b->position, b->velocity);
    b->acceleration = v_mult(b->acceleration, 0);
    // borders()
    if (b->position.x < -b->r)
        b->position.x = WIDTH + b->r;
    if (b->position.y < -b->r)
        b->position.y = HEIGHT + b->r;
    if (b->position.x > WIDTH + b->r)
        b->position.x = -b->r;
    if (b->position.y > HEIGHT + b->r)
        b->position.y = -b->r;
    return acc;
}

enum { BOOK_N = 300 };

// 300 boids: uniform on the canvas at speeds 1..3 in every direction, the
// first 40 placed by the edges (in the margin band or just inside) heading
// out, so borders() acts; float values so both models start alike.
static void book_start(float pos[BOOK_N][4], float vel[BOOK_N][4]) {
    uint32_t st = 515;
    for (int i = 0; i < BOOK_N; i++) {
        double u[4];
        for (int k = 0; k < 4; k++) {
            st = st * 1664525u + 1013904223u;
            u[k] = (double)(st >> 8) / 16777216.0;
        }
        double theta = 6.283185307179586 * u[2], speed = 1 + 2 * u[3];
        double x = WIDTH * u[0], y = HEIGHT * u[1];
        if (i < 40) {
            // Edge i % 4 (left, right, top, bottom), 0.2 .. 3 px from the
            // margin's line r = 3 beyond it, heading out at 2.5 .. 3.
            double in = 0.2 + 2.8 * u[3], out = 2.5 + 0.5 * u[2];
            double sideways = (u[2] - 0.5) * 2;
            switch (i % 4) {
            case 0:
                x = -3 + in, theta = atan2(sideways, -out);
                break;
            case 1:
                x = WIDTH + 3 - in, theta = atan2(sideways, out);
                break;
            case 2:
                y = -3 + in, theta = atan2(-out, sideways);
                break;
            default:
                y = HEIGHT + 3 - in, theta = atan2(out, sideways);
                break;
            }
            speed = 2.9;
        }
        pos[i][0] = (float)x;
        pos[i][1] = (float)y;
        vel[i][0] = (float)(speed * cos(theta));
        vel[i][1] = (float)(speed * sin(theta));
        pos[i][2] = pos[i][3] = vel[i][2] = vel[i][3] = 0.0f;
    }
}

// Largest |sim - book| of position, velocity and acceleration by id.
typedef struct book_diff {
    double pos, vel, acc;
} book_diff;

static book_diff book_compare(boids_sim *s, const book_boid *boids, const vec *acc) {
    book_diff d = {0, 0, 0};
    const uint32_t *slot = boids_sim_slots_by_id(s);
    for (int i = 0; i < BOOK_N; i++) {
        const float *p = s->cur.pos[slot[i]], *v = s->cur.vel[slot[i]], *a = s->accel[slot[i]];
        d.pos = fmax(d.pos, fmax(fabs(p[0] - boids[i].position.x), fabs(p[1] - boids[i].position.y)));
        d.vel = fmax(d.vel, fmax(fabs(v[0] - boids[i].velocity.x), fabs(v[1] - boids[i].velocity.y)));
        d.acc = fmax(d.acc, fmax(fabs(a[0] - acc[i].x), fabs(a[1] - acc[i].y)));
    }
    return d;
}

// One step of the book's Flock.run() against boids_sim_step with
// --update sequential --boundary margin and the chapter's parameters.
static book_diff book_step(boids_update update, uint32_t boundary, int *snapped, double *mean_neighbors) {
    static float pos[BOOK_N][4], vel[BOOK_N][4];
    static book_boid boids[BOOK_N];
    static vec acc[BOOK_N];
    book_start(pos, vel);
    for (int i = 0; i < BOOK_N; i++)
        boids[i] = (book_boid){{pos[i][0], pos[i][1]}, {vel[i][0], vel[i][1]}, {0, 0}, 3.0, 3.0, 0.05};
    // Flock.run(): for (let boid of this.boids) boid.run(this.boids).
    *snapped = 0;
    for (int i = 0; i < BOOK_N; i++) {
        vec before = v_add(boids[i].position, boids[i].velocity); // where update() takes it, give or take 0.2
        acc[i] = book_run(&boids[i], boids, BOOK_N);
        *snapped += fabs(boids[i].position.x - before.x) > 10 || fabs(boids[i].position.y - before.y) > 10;
    }
    boids_params p;
    canvas_params(&p, BOOK_N);
    p.world.boundary = boundary;
    const boids_group_params *g = &p.group[0];
    EXPECT(g->maxspeed == 3.0f && g->maxforce == 0.05f && g->radius == 50.0f && g->separation == 25.0f &&
               g->behaviors == BOIDS_B_FLOCKING &&
               g->weight[BOIDS_BI_SEPARATION >> 2][BOIDS_BI_SEPARATION & 3] == 1.5f &&
               g->weight[BOIDS_BI_ALIGNMENT >> 2][BOIDS_BI_ALIGNMENT & 3] == 1.0f &&
               g->weight[BOIDS_BI_COHESION >> 2][BOIDS_BI_COHESION & 3] == 1.0f && p.world.dt == 1.0f &&
               p.world.margin == 0.0f,
           "the defaults must be Example 5.11's (3, 0.05, 50, 25, 1.5/1/1, dt 1, margin 0 = r 3)");
    boids_sim *s = sim_of(&p, (const float(*)[4])pos, (const float(*)[4])vel);
    s->update = update;
    boids_sim_step(s);
    boids_stats st;
    boids_sim_stats(s, &st);
    *mean_neighbors = st.mean_neighbors;
    book_diff d = book_compare(s, boids, acc);
    boids_sim_destroy(s);
    return d;
}

START_TEST(book_example_5_11) {
    int snapped = 0;
    double neighbors = 0;
    book_diff d = book_step(BOIDS_UPDATE_SEQUENTIAL, BOIDS_BOUNDARY_MARGIN, &snapped, &neighbors);
    printf("Example 5.11, 300 boids, one step, sequential + margin: max |dpos| %.3g, |dvel| %.3g, |dacc| %.3g "
           "(%d boids through borders(), %.1f neighbours each)\n",
           d.pos, d.vel, d.acc, snapped, neighbors);
    EXPECT(snapped >= 10, "only %d boids crossed a margin: the test should exercise borders()", snapped);
    EXPECT(neighbors >= 5, "mean neighbours %.1f: the flock should be dense enough to steer", neighbors);
    // Float rounding: forces <= 0.175 and velocities <= 3 to a few ULP (and
    // the fixed-point neighbour sums' 2^-32 units), and, as each boid sees
    // those before it where they moved, their float positions (half an ULP,
    // up to 3.05e-5 at 512..1024) where the book has doubles: separation's
    // 1/d turns that into a few 1e-7 for a pair a few px apart. Measured:
    // accel 6.7e-7, vel 7.3e-7, pos 2.9e-5. Tolerances: 2e-6, 2e-6 and 4e-5
    // (half an ULP of |p| < 644 plus the velocity's error). A formula or
    // order difference shows at 1e-4 .. 1 (below).
    EXPECT(d.acc <= 2e-6, "|accel - book| = %.3g, expected <= 2e-6 (float rounding of forces <= 0.175)", d.acc);
    EXPECT(d.vel <= 2e-6, "|vel - book| = %.3g, expected <= 2e-6 (float rounding of |v| <= 3)", d.vel);
    EXPECT(d.pos <= 4e-5, "|pos - book| = %.3g, expected <= 4e-5 (half an ULP of |p| < 644, 3.05e-5)", d.pos);
    // Either option alone is not the sketch: the parallel update differs in
    // the forces (the neighbours have not moved yet), the torus at the edges.
    book_diff par = book_step(BOIDS_UPDATE_PARALLEL, BOIDS_BOUNDARY_MARGIN, &snapped, &neighbors);
    book_diff wrap = book_step(BOIDS_UPDATE_SEQUENTIAL, BOIDS_BOUNDARY_WRAP, &snapped, &neighbors);
    printf("  parallel + margin: |dacc| %.3g; sequential + wrap: |dpos| %.3g\n", par.acc, wrap.pos);
    EXPECT(par.acc > 1e-4, "the parallel update matches the sketch's forces to %.3g: the test cannot tell the orders",
           par.acc);
    EXPECT(wrap.pos > 1, "the torus matches the sketch's positions to %.3g: the test cannot tell the edges", wrap.pos);
}
END_TEST

int main(void) {
    Suite *s = suite_create("literal");
    boids_test_tcase(s, "margin", margin_by_hand);
    boids_test_tcase(s, "margin_geometry", margin_distances_and_cells);
    boids_test_tcase(s, "sequential", sequential_by_hand);
    boids_test_tcase(s, "book_example_5_11", book_example_5_11);
    return boids_test_run_suite(s);
}
