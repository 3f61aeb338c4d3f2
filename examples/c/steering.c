/* steering: the pure behaviours of boids/behaviors.h in a loop of our own,
 * on agents of our own (no engine, no simulation). Three agents head for a
 * target (The Nature of Code 5.2 and 5.4; Reynolds 1999): two seek it, one
 * arrives. Every tenth step prints each one's distance to the target. All
 * three close in; the seekers reach it at full speed, overshoot and swing
 * back, while the arriver slows inside its radius and stays on it.
 *
 *   steering [STEPS]   (default 150) */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <boids/behaviors.h>

#define AGENTS 3

typedef struct agent {
    const char *name;
    bool arrives; // else seeks
    float pos[3], vel[3];
} agent;

static const float target[3] = {0.0f, 0.0f, 0.0f};
static const float maxspeed = 2.0f, maxforce = 0.1f;
static const float slow_radius = 50.0f; // arrive slows down inside it

// Length of a 3-vector.
static float length(const float v[3]) {
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

// One step of one agent: the force of its behaviour toward the target, then
// the chapter's Euler step (velocity += force, limited to maxspeed;
// position += velocity).
static void update(agent *a) {
    float to_target[3], force[3];
    for (int k = 0; k < 3; k++)
        to_target[k] = target[k] - a->pos[k];
    if (a->arrives)
        boids_arrive(to_target, a->vel, slow_radius, maxspeed, maxforce, force);
    else
        boids_seek(to_target, a->vel, maxspeed, maxforce, force);
    for (int k = 0; k < 3; k++)
        a->vel[k] += force[k];
    boids_limit(a->vel, maxspeed);
    for (int k = 0; k < 3; k++)
        a->pos[k] += a->vel[k];
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 150;
    agent agents[AGENTS] = {
        {"seek", false, {-150.0f, 0.0f, 0.0f}, {0.0f, 2.0f, 0.0f}},
        {"seek", false, {0.0f, 120.0f, 0.0f}, {1.0f, 0.0f, 0.0f}},
        {"arrive", true, {-150.0f, 0.0f, 0.0f}, {0.0f, 2.0f, 0.0f}},
    };
    printf("step");
    for (int i = 0; i < AGENTS; i++)
        printf("  %8s", agents[i].name);
    printf("   (distance to the target)\n");
    for (int step = 0; step <= steps; step++) {
        if (step % 10 == 0) {
            printf("%4d", step);
            for (int i = 0; i < AGENTS; i++)
                printf("  %8.2f", (double)length(agents[i].pos));
            printf("\n");
        }
        for (int i = 0; i < AGENTS; i++)
            update(&agents[i]);
    }
    return 0;
}
