// src/app/boids_validate.c: boids-validate, the CPU-vs-GPU validation. One
// initial state goes into both backends; the report compares them on the
// three horizons of DESIGN.md ("Determinism and parity") and the exit status
// is 0 only if every check holds.
//   1. exact: cells, counts, starts, sum == N, ids per cell, neighbour counts
//      (pairs within a few ULP of the radius are listed, not failed);
//   2. one step: each behaviour alone, all together, each rule set and
//      model: every force, velocity, position, wander angle and joint bit
//      for bit (nothing in the shaders is left to the driver's rounding);
//   3. S steps: statistics within stated bounds, invariants, and the two
//      states' state-hashes equal;
//   4. the bodies stage alone from the same heads, bit for bit.
// A GPU fault (boids_engine_check: the context lost, OpenGL errors) is checked
// before each comparison reads the GPU: one line, exit 3.
// This file: the options and the set-up, above the horizons
// (validate_horizons.c) and the report's helpers both use
// (validate_report.c).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/parse.h"
#include "progress.h"
#include "validate.h"

static const char usage[] = // the usage lines and what it does, before the flags
    "usage: boids-validate [--count N] [--steps S] [--behaviors LIST] [--kernel NAME] [options]\n"
    "       boids-validate --scenario FILE.ini|NAME [options]\n"
    "       boids-validate --load FILE.boids [--steps S] [--save FILE.boids]\n"
    "\n"
    "Runs the same initial state on the CPU reference and on the GPU compute shaders (headless EGL) and compares "
    "them: exactly (grid cells, counts, starts, ids per cell, neighbour counts), after one step per behaviour, "
    "rule set and model (every force, velocity, position and joint bit for bit), and after S steps (statistics, "
    "invariants, equal state-hashes); then the bodies stage alone from the same heads, bit for bit after 1 and "
    "min(S, 100) steps (without --bodies: a snake, a chain and a fish, one per group; --joints, --body-length).\n"
    "Defaults: 100000 agents, 100 steps, behaviours all.\n";
static const char usage_notes[] = // after the flags: one paragraph a line (the help wraps them)
    "\n"
    "SIGINT / SIGTERM stop the S steps (the statistics compare the steps done, --save is written) and exit 130 / "
    "143.\n"
    "Exit status 0 when every check holds, 1 when one fails, 2 for bad arguments, 3 without OpenGL 4.5 or on a "
    "GPU fault (the OpenGL context lost, OpenGL errors).\n";
static const boids_cli_example examples[] = {
    {"boids-validate --count 10000 --steps 20", "every check at 10000 agents and 20 steps"},
    {"boids-validate --scenario predators-prey --kernel morton",
     "a shipped scenario's world, the GPU side on the Morton-ordered kernel"},
    {"boids-validate --behaviors flocking,wander --count 5000 --steps 50",
     "only separation, alignment, cohesion and wander, 50 steps"},
    {NULL, NULL},
};

// What the flags mean here, where boids-validate differs from the table.
static const boids_cli_help help[] = {
    {.bit = BOIDS_CLI_COUNT, .text = "agents, 1..16777216 (default 100000)"},
    {.bit = BOIDS_CLI_PARAMS, .text = "a comma list of behaviours or sets: %N (default all)", .flag = "behaviors"},
    {.bit = BOIDS_CLI_SCENARIO,
     .text = "validate a scenario's world (a file or a shipped one by name) instead of the three-group "
             "set-up"},
    {.bit = BOIDS_CLI_LOAD, .text = "start from a .boids snapshot (its parameters, agents and bodies) instead"},
    {.bit = BOIDS_CLI_SAVE,
     .text = "write the CPU reference's state after the S steps (boids-run --load continues it)"},
    {.bit = BOIDS_CLI_KERNEL,
     .text = "the GPU side's compute kernel (the same bits for each): %N (default reference: one steer "
             "invocation per agent, row-major cells; morton: the agents in the Morton / Z order of their "
             "cells)"},
    {.bit = BOIDS_CLI_QUIET,
     .text = "no progress line of the S steps on stderr (on a terminal: one updating line, from 2 s on)"},
    {.bit = 0, .text = NULL},
};

// The parameters from the options (without a scenario: every behaviour,
// three groups of which the third hunts the others, three bodies) and the
// scenario in effect; 0 or the exit status (one line printed).
static int setup_params(boids_options *o, uint32_t n, boids_params *p, boids_scenario *scen) {
    bool own_setup = o->scenario == NULL;
    if (!o->values.set[BOIDS_PARAM_BEHAVIORS] && own_setup) {
        o->values.v[BOIDS_PARAM_BEHAVIORS].u[0] = (1u << BOIDS_BEHAVIOR_COUNT) - 1u;
        o->values.set[BOIDS_PARAM_BEHAVIORS] = true;
    }
    char err[4096];
    if (boids_options_params(o, n, p, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    // Bodies: without --bodies, a snake, a chain and a fish (one per group).
    const boids_param_values *v = &o->values;
    if (!v->set[BOIDS_PARAM_BODIES] && own_setup) {
        static const uint32_t styles[3] = {BOIDS_BODY_SNAKE, BOIDS_BODY_CHAIN, BOIDS_BODY_FISH};
        uint32_t joints = v->set[BOIDS_PARAM_JOINTS] ? v->v[BOIDS_PARAM_JOINTS].u[0]
                                                     : (uint32_t)boids_param_table[BOIDS_PARAM_JOINTS].def;
        for (uint32_t k = 0; k < 3; k++) {
            float length =
                v->set[BOIDS_PARAM_BODY_LENGTH] ? v->v[BOIDS_PARAM_BODY_LENGTH].f[0] : 1.2f * p->group[k].separation;
            if (boids_body_make(&p->body[k], styles[k], joints, length, err, sizeof err) != BOIDS_OK) {
                fprintf(stderr, "%s: --body-length: %s\n", PROG, err);
                return 2;
            }
        }
    }
    // Three groups so the relations are exercised too: 0 and 1 are prey
    // (flock together, flee group 2), 2 are predators (pursue 0 and 1).
    if (own_setup) {
        p->world.group_count = 3;
        for (uint32_t k = 0; k < 2; k++)
            p->group[k].relations = BOIDS_REL_FLEE << (BOIDS_REL_BITS * 2);
        p->group[2].relations = (BOIDS_REL_PURSUE << 0) | (BOIDS_REL_PURSUE << BOIDS_REL_BITS);
        p->group[2].maxspeed *= 1.2f;
        p->group[2].radius *= 1.2f;
    }
    if (boids_params_finalize(p, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s: the three-group set-up does not fit: %s\n", PROG, err);
        return 2;
    }
    boids_options_scenario(o, p, scen);
    return 0;
}

// A group's parameters under rule set r for the one-step check (it had
// rules `was`): the noise kept where it means the same (else Vicsek's eta 1,
// Couzin's sigma 0.2; none for the other rule sets), Vicsek's alignment
// alone, and Couzin's zones nested (r_o at least r_r, r_a at least r_o).
static void models_setup(boids_group_params *g, uint32_t was, uint32_t r) {
    if (r != was)
        g->noise = r == BOIDS_RULES_VICSEK ? 1.0f : r == BOIDS_RULES_COUZIN ? 0.2f : 0.0f;
    if (r == BOIDS_RULES_VICSEK)
        g->behaviors = BOIDS_BIT(BOIDS_BI_ALIGNMENT);
    if (r == BOIDS_RULES_COUZIN) {
        g->alignment_radius = fmaxf(boids_alignment_radius(g), g->separation);
        g->cohesion_radius = fmaxf(boids_cohesion_radius(g), g->alignment_radius);
    }
}

// The set-up, the four horizons, the verdict; the exit status (0 / 1 / 2 / 3).
static int run(const boids_options *opt) {
    boids_options o = *opt; // setup_params sets defaults in it (the caller frees what o points to)
    uint32_t n = o.count_set ? o.count : 100000;
    uint64_t steps = o.steps_set ? o.steps : 100;
    boids_cli_catch_interrupts(); // SIGINT / SIGTERM: the S steps stop, --save is written, exit 130 / 143
    boids_params p;
    char err[4096];
    boids_engine *s = NULL, *initial = NULL, *g = NULL; // the CPU reference, the initial state, the GPU
    boids_engine_headless *gl = NULL;
    static boids_scenario scen_in_effect; // the options' or the snapshot's (saved with --save)
    boids_scenario *scen = &scen_in_effect;
    int code = 0; // the exit status of an early stop (one line printed)
    if (boids_engine_fault_env(err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        code = 2;
        goto out;
    }
    if ((code = boids_cli_check_files(PROG, &o)))
        goto out;
    if (o.save && (code = boids_cli_check_output(PROG, "--save", o.save,
                                                 "a file path in an existing, writable "
                                                 "directory")))
        goto out;
    boids_engine_desc d = {.distribution = (boids_distribution)o.distribution, .threads = o.threads};
    if (o.load) { // the snapshot's state is the initial one
        boids_result lr = boids_engine_load(&initial, o.load, &d, err, sizeof err);
        if (lr != BOIDS_OK) {
            fprintf(stderr, "%s: --load: %s\n", PROG, err);
            code = lr == BOIDS_ERR_NOMEM ? 3 : 2;
            goto out;
        }
        if (boids_engine_update(initial) != BOIDS_UPDATE_PARALLEL) { // the GPU has only the parallel update
            fprintf(stderr,
                    "%s: --load: %s holds a sequential run (--update sequential), which the GPU cannot continue; "
                    "expected a snapshot of a parallel run\n",
                    PROG, o.load);
            code = 2;
            goto out;
        }
        p = *boids_engine_params(initial);
        p.flow.vec = NULL; // the engines build their own
        n = boids_engine_count(initial);
        *scen = *boids_engine_scenario(initial);
    } else if ((code = setup_params(&o, n, &p, scen)) != 0) {
        goto out;
    }
    d.params = &p; // the initial state has no schedule: its warm-up steps are plain steps
    if ((!initial && boids_engine_create(&initial, &d, NULL, 0) != BOIDS_OK) ||
        (d.scenario = scen, boids_engine_create(&s, &d, NULL, 0)) != BOIDS_OK) {
        fprintf(stderr, "%s: out of memory for %u agents\n", PROG, n);
        code = 3;
        goto out;
    }
    if (boids_engine_headless_open(&gl, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s: needs OpenGL 4.5: %s\n", PROG, err);
        code = 3;
        goto out;
    }
    d.backend = BOIDS_BACKEND_GPU;
    d.kernel = (boids_kernel)o.kernel;
    d.headless = gl;
    d.shader_dir = o.shader_dir;
    d.silent_errors = true;
    boids_result r = boids_engine_create(&g, &d, err, sizeof(err));
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        code = r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT ? 2 : 3;
        goto out;
    }
    printf("boids-validate %s: %u agents, %uD, %s, seed %llu, on %s\n", BOIDS_VERSION, n, p.world.dim,
           boids_engine_renderer(g), (unsigned long long)((uint64_t)p.world.seed_hi << 32 | p.world.seed_lo),
           boids_engine_context(g));
    printf("sqrt and division: %s\n", boids_engine_corrects_rounding(g)
                                          ? "this driver's differ from the C's: corrected in the shaders"
                                          : "this driver's are the C's (correctly rounded)");
    // A few CPU steps first, so agents have neighbours, headings and wander
    // state (a loaded snapshot has them).
    if (!o.load)
        boids_engine_step(initial, 3, NULL);
    boids_engine_copy_state(s, initial);
    boids_engine_copy_state(g, s);
    validate_exact(s, g);

    printf("2. one step, each behaviour alone and all together, bit for bit\n");
    uint32_t compared = 0, vacuous = 0;
    for (uint32_t b = 0; b <= BOIDS_BEHAVIOR_COUNT; b++)
        if (b == BOIDS_BEHAVIOR_COUNT || (p.group[0].behaviors & BOIDS_BIT(b))) {
            bool any = validate_one_step(s, g, &p, initial, b, NULL);
            compared += any;
            vacuous += !any;
        }
    // The seeds' rule sets and the collective-motion models, every group
    // under each (their flocking behaviours; all three where a group has
    // none of them; see models_setup).
    for (uint32_t r = BOIDS_RULES_TUTORIAL; r < BOIDS_RULES_COUNT; r++) {
        char label[32], what[256];
        snprintf(label, sizeof label, "rules %s", boids_parse_rules_names[r]);
        boids_params q = p;
        for (uint32_t k = 0; k < q.world.group_count; k++) {
            q.group[k].rules = r;
            q.group[k].behaviors &= BOIDS_B_FLOCKING;
            if (!q.group[k].behaviors)
                q.group[k].behaviors = BOIDS_B_FLOCKING;
            if (r == BOIDS_RULES_CIRCLES) // the separation rule alone
                q.group[k].behaviors = BOIDS_BIT(BOIDS_BI_SEPARATION);
            models_setup(&q.group[k], p.group[k].rules, r);
        }
        boids_params f = q;
        if (boids_params_finalize(&f, what, sizeof what) != BOIDS_OK) {
            printf("  n/a   %-12s not in this set-up: %s\n", label, what);
            continue;
        }
        bool any = validate_one_step(s, g, &q, initial, BOIDS_BEHAVIOR_COUNT, label);
        compared += any;
        vacuous += !any;
    }
    printf("  (%u compared, %u with no force anywhere)\n", compared, vacuous);
    // Back to every enabled behaviour, from the same state, for the long run.
    validate_set_both(s, g, &p);
    boids_engine_copy_state(s, initial);
    validate_saving sv = {.path = o.save, .every = o.save_every};
    if ((code = validate_many_steps(s, g, steps, &sv, o.quiet)))
        goto out; // a --save-every write failed (said in one line)
    int sig = boids_cli_interrupted();
    int save_rc = o.save ? validate_save_reference(s, o.save) : 0; // the CPU reference after the S steps
    if (sig) {
        fprintf(stderr, "%s: interrupted at step %llu of %llu: the report above is incomplete\n", PROG,
                (unsigned long long)(boids_engine_steps(s) - boids_engine_steps(initial)), (unsigned long long)steps);
        save_rc = save_rc ? save_rc : 128 + sig;
    } else if (boids_params_joint_rows(&p) > 0) {
        validate_bodies(s, g, initial, steps < 100 ? (uint32_t)steps : 100u);
    }

    validate_exit_on_fault(g);
    int failures = validate_failures();
    printf("%s: %s (%d check%s failed)\n", PROG,
           sig        ? "INTERRUPTED"
           : failures ? "FAILED"
                      : "all checks passed",
           failures, failures == 1 ? "" : "s");
    code = save_rc ? save_rc : failures ? 1 : 0;
out:
    boids_engine_destroy(g);
    boids_engine_headless_close(gl);
    boids_engine_destroy(s);
    boids_engine_destroy(initial);
    return code;
}

// boids-validate: parse, validate, exit 0 / 1 / 2 / 3.
int main(int argc, char **argv) {
    const boids_cli_spec spec = {
        .prog = PROG,
        .summary = "check the GPU compute shaders against the CPU reference",
        .usage = usage,
        .usage_notes = usage_notes,
        .examples = examples,
        .help = help,
        .flags = BOIDS_CLI_COUNT | BOIDS_CLI_STEPS | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_SHADER_DIR | BOIDS_CLI_THREADS |
                 BOIDS_CLI_LOAD | BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY | BOIDS_CLI_QUIET | BOIDS_CLI_KERNEL,
    };
    return boids_cli_main(argc, argv, &spec, run);
}
