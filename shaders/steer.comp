// shaders/steer.comp: the steer stage. C twin: src/core/steer.c.
// One invocation per agent slot i of cur: gather the neighbourhood through
// the grid (3x3 or 3x3x3 cells, minimum-image offsets) into
// order-independent 64-bit fixed-point sums, evaluate every enabled
// behaviour (each limited to maxforce), and combine them: the weighted sum
// (Nature of Code 5, "Combining Behaviors") or priority (Reynolds 1999).
// Writes accel[i], the wander angles into next_pos[i].w / next_vel[i].w
// (the xyz lanes of next belong to integrate.comp), neighbors[i],
// nearest[i], candidates[i].
//
// Against the C loop: the cells are visited one by one (C merges runs of x
// cells into one slot range and filters candidates in batches of 64: CPU
// optimisations); the set of pairs and every operation on a pair are the
// same, and the sums are integers, so the visiting order does not matter.
// The C "plain difference far from the seam" is the same bits as
// world_delta, which is used for every pair here.
//
// Kernel variant (a define; the same pairs and the same operations on each,
// so the same bits): BOIDS_KERNEL_MORTON (cells in Morton order: each cell's
// slots found through grid_rank, one cell at a time).
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

// The other agent of a pair, read from the buffers where needed.
#define PAIR_ARGS
#define OTHER_VEL(j) cur_vel[j].xyz
#define OTHER_GROUP(j) cur_group[j]
#define OTHER_ID(j) cur_id[j]

// C twin: src/core/params.c boids_alignment_radius(), boids_cohesion_radius().
// A rule's own radius, or (0) the perception radius.
float alignment_radius(boids_group_params g) { return g.alignment_radius > 0.0 ? g.alignment_radius : g.radius; }
float cohesion_radius(boids_group_params g) { return g.cohesion_radius > 0.0 ? g.cohesion_radius : g.radius; }

// C twin: src/core/params.c boids_rule_cone().
// A rule's cone (BOIDS_CONE_*): its own cosine, or the group's fov_cos.
float rule_cone(boids_group_params g, uint cone) {
    if ((g.own_cones & cone) == 0u)
        return g.fov_cos;
    return cone == BOIDS_CONE_SEPARATION ? g.separation_fov_cos
         : cone == BOIDS_CONE_ALIGNMENT  ? g.alignment_fov_cos
                                         : g.cohesion_fov_cos;
}

// C twin: src/core/params.c boids_group_reach() (by group index here).
// The largest radius the group's rules look at: the perception radius
// (escape, hunt, avoid and the neighbour statistics), and queue's distance
// and the separation, view, alignment and cohesion radii when those
// behaviours are on.
float group_reach(uint gi) {
    boids_group_params g = group[gi];
    float r = g.radius;
    if ((g.behaviors & BOIDS_BIT(BOIDS_BI_SEPARATION)) != 0u)
        r = max(r, g.separation);
    if ((g.behaviors & BOIDS_BIT(BOIDS_BI_VIEW)) != 0u)
        r = max(r, g.view_radius);
    if ((g.behaviors & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) != 0u)
        r = max(r, alignment_radius(g));
    if ((g.behaviors & BOIDS_BIT(BOIDS_BI_COHESION)) != 0u)
        r = max(r, cohesion_radius(g));
    if ((g.behaviors & BOIDS_BIT(BOIDS_BI_QUEUE)) != 0u)
        r = max(r, g.queue_distance);
    return r;
}

// C twin: src/core/steer.c sees().
// Does the agent see the other (offset . heading = along, C: dot; d2 = |off|^2)
// through the cone `c`? -1 or no heading: all around.
bool sees(float c, bool has_heading, float along, float d2) {
    return c <= -1.0 || !has_heading || in_cone(along, c, d2);
}

// C twin: src/core/steer.c struct gather.
// Order-independent neighbourhood sums of one agent.
struct gather {
    fix64x3 sep, ali, coh, esc; // behaviors.glsl: int64 or uint pairs
    ivec2 view;                 // the view rule's sides: integer counts
    uint sep_n, ali_n, coh_n, view_n, esc_n;
    uint neighbors, candidates;
    float nearest2;      // smallest d^2 among neighbours, infinity if none
    uint prey_slot;      // nearest prey (ties: smaller id), BOIDS_NONE if none
    float prey_d2;
    uint prey_id;
    uint hunter_slot;    // nearest hunter for hide (ties: smaller id), BOIDS_NONE if none
    float hunter_d2;
    uint hunter_id;
    float inv_speed, inv_radius; // scales of the alignment / cohesion terms (inv_radius: 1 / cohesion's radius)
    float ali_r2, coh_r2;        // squared radii of alignment and cohesion
    float sep_cos, ali_cos, coh_cos; // the cones of separation, alignment, cohesion
    uint dim;
    uint queue_n;   // neighbours that block (queue): a count, the same in any order
    float avoid_t;  // soonest threat's closest-approach time (avoid), infinity if none
    uint avoid_id;  // its id (ties: the smaller), BOIDS_NONE if none
    vec3 avoid_off; // its predicted offset at avoid_t
    vec3 vel;       // the agent's own velocity (queue, avoid)
};

// C twin: src/core/steer.c fix3().
void fix3(inout fix64x3 acc, vec3 v, float scale) {
    acc.x = fix_add(acc.x, fix(v.x, scale));
    acc.y = fix_add(acc.y, fix(v.y, scale));
    acc.z = fix_add(acc.z, fix(v.z, scale));
}

// C twin: src/core/steer.c fix3_unit().
// fix3 for terms known to lie in [-1, 1] (offset / radius with d < radius;
// velocity / the largest maxspeed): no saturation or NaN test, the same bits
// as fix. In 2D the z terms are all 0, so z is added only in 3D.
void fix3_unit(inout fix64x3 acc, vec3 v, uint dim) {
    acc.x = fix_add(acc.x, fix_trunc(v.x * BOIDS_FIX_UNIT));
    acc.y = fix_add(acc.y, fix_trunc(v.y * BOIDS_FIX_UNIT));
    if (dim == 3u)
        acc.z = fix_add(acc.z, fix_trunc(v.z * BOIDS_FIX_UNIT));
}

// C twin: src/core/steer.c unfix3().
vec3 unfix3(fix64x3 acc, float scale, float k) {
    return vec3(unfix(acc.x, scale) * k, unfix(acc.y, scale) * k, unfix(acc.z, scale) * k);
}

// C twin: src/core/steer.c gather_pair().
// One pair within the agent's interaction radius: agent (heading, group g)
// and other slot j at offset `off` (minimum image), d2 = |off|^2 > 0.
void gather_pair(boids_group_params g, vec3 heading, bool has_heading, uint j, vec3 off, float d2,
                 inout gather acc PAIR_ARGS) {
    // Every in-range decision compares squared values (as the C): a
    // product rounds the same everywhere, a sqrt need not.
    if (d2 < g.radius * g.radius) {
        acc.neighbors++;
        if (d2 < acc.nearest2)
            acc.nearest2 = d2;
    }
    uint beh = g.behaviors;
    // relations == 0: flock with every group (the common case; no group read).
    uint rel = BOIDS_REL_FLOCK;
    if (g.relations != 0u)
        rel = (g.relations >> (BOIDS_REL_BITS * OTHER_GROUP(j))) & BOIDS_REL_MASK;
    vec3 vj = OTHER_VEL(j);
    vec3 t;
    // Queueing and avoidance look at every agent the group sees (any
    // relation but ignore): a crowd files behind, and dodges, anyone.
    if (rel != BOIDS_REL_IGNORE) {
        if ((beh & BOIDS_BIT(BOIDS_BI_QUEUE)) != 0u &&
            queue_blocks(off, d2, heading, has_heading, acc.vel, vj, g.queue_distance))
            acc.queue_n++;
        float tc;
        if ((beh & BOIDS_BIT(BOIDS_BI_AVOID)) != 0u && d2 < g.radius * g.radius &&
            avoid_threat(off, acc.vel, vj, g.avoid_horizon, 2.0 * g.body_radius, tc, t)) {
            uint id = OTHER_ID(j);
            if (avoid_sooner(tc, id, acc.avoid_t, acc.avoid_id)) {
                acc.avoid_t = tc;
                acc.avoid_id = id;
                acc.avoid_off = t;
            }
        }
    }
    if (rel == BOIDS_REL_FLOCK) {
        // Each rule's neighbourhood: within its radius and its cone (field
        // of view) around the heading; by default one radius and one cone.
        float along = dot3(off, heading); // C: dot (a built-in's name in GLSL)
        // The sums by rule set: the chapter's 1/d separation terms; the
        // tutorial's plain offsets (/ the separation radius); the heading
        // boids' unit headings (mean directions, never angles).
        if ((beh & BOIDS_BIT(BOIDS_BI_SEPARATION)) != 0u && d2 < g.separation * g.separation &&
            sees(acc.sep_cos, has_heading, along, d2)) {
            if (g.rules == BOIDS_RULES_CHAPTER) {
                t = separation_term(off, sqrt(d2), g.separation);
                fix3(acc.sep, t, BOIDS_FIX_SEP);
            } else if (g.rules == BOIDS_RULES_TUTORIAL) {
                float is = fdiv(1.0, g.separation);
                vec3 os = vec3(off.x * is, off.y * is, off.z * is);
                fix3_unit(acc.sep, os, acc.dim);
            } else if (g.rules == BOIDS_RULES_CIRCLES) {
                t = circles_term(off, sqrt(d2), g.separation);
                fix3_unit(acc.sep, t, acc.dim);
            } else if (g.rules == BOIDS_RULES_COUZIN) { // the zone of repulsion: unit offsets
                t = set_mag(off, 1.0);
                fix3_unit(acc.sep, t, acc.dim);
            } else {
                t = set_mag(vj, 1.0);
                fix3_unit(acc.sep, t, acc.dim);
            }
            acc.sep_n++;
        }
        // Couzin's zones are shells: orientation from the separation radius
        // out, attraction from the alignment radius out.
        bool couzin = g.rules == BOIDS_RULES_COUZIN;
        if ((beh & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) != 0u && d2 < acc.ali_r2 && sees(acc.ali_cos, has_heading, along, d2) &&
            !(couzin && d2 < g.separation * g.separation)) {
            // Unit headings for the heading, Vicsek and Couzin rules.
            if (g.rules == BOIDS_RULES_HEADING || g.rules == BOIDS_RULES_VICSEK || couzin) {
                t = set_mag(vj, 1.0);
            } else {
                float iv = acc.inv_speed;
                t = vec3(vj.x * iv, vj.y * iv, vj.z * iv);
            }
            fix3_unit(acc.ali, t, acc.dim);
            acc.ali_n++;
        }
        // The heading rules' cohesion steers to the survey's densest block,
        // not to the neighbours.
        if ((beh & BOIDS_BIT(BOIDS_BI_COHESION)) != 0u && g.rules != BOIDS_RULES_HEADING && d2 < acc.coh_r2 &&
            sees(acc.coh_cos, has_heading, along, d2) && !(couzin && d2 < acc.ali_r2)) {
            if (couzin) { // the zone of attraction: unit offsets
                t = set_mag(off, 1.0);
                fix3_unit(acc.coh, t, acc.dim);
            } else {
                float ir = acc.inv_radius;
                vec3 os = vec3(off.x * ir, off.y * ir, off.z * ir);
                fix3_unit(acc.coh, os, acc.dim);
            }
            acc.coh_n++;
        }
        if ((beh & BOIDS_BIT(BOIDS_BI_VIEW)) != 0u && has_heading && d2 < g.view_radius * g.view_radius &&
            in_cone(dot3(off, heading), g.view_cos, d2)) {
            acc.view += view_term(off, acc.vel);
            acc.view_n++;
        }
    } else if (rel == BOIDS_REL_FLEE) {
        if ((beh & BOIDS_BIT(BOIDS_BI_ESCAPE)) != 0u && d2 < g.radius * g.radius) {
            t = escape_term(off, vj, g.predict, g.radius);
            fix3(acc.esc, t, BOIDS_FIX_SEP);
            acc.esc_n++;
        }
        uint id = OTHER_ID(j);
        if ((beh & BOIDS_BIT(BOIDS_BI_HIDE)) != 0u && d2 < g.radius * g.radius &&
            (d2 < acc.hunter_d2 || (d2 == acc.hunter_d2 && id < acc.hunter_id))) {
            acc.hunter_d2 = d2;
            acc.hunter_id = id;
            acc.hunter_slot = j;
        }
    } else if (rel == BOIDS_REL_PURSUE) {
        uint id = OTHER_ID(j);
        if ((beh & BOIDS_BIT(BOIDS_BI_HUNT)) != 0u && d2 < g.radius * g.radius &&
            (d2 < acc.prey_d2 || (d2 == acc.prey_d2 && id < acc.prey_id))) {
            acc.prey_d2 = d2;
            acc.prey_id = id;
            acc.prey_slot = j;
        }
    }
}

// C twin: src/core/steer.c struct topk, topk_offer().
// Topological neighbourhoods (group neighbors_max K > 0): of the accepted
// candidates, the K smallest by (d^2, id), ties to the smaller id, kept
// sorted by insertion (per invocation); gather_pair runs for exactly those
// at the end (topk_gather). The choice depends on (d^2, id) alone, not on
// the visiting order: every kernel picks the same K.
float tk_d2[BOIDS_MAX_NEIGHBORS_K];
uint tk_id[BOIDS_MAX_NEIGHBORS_K];
uint tk_slot[BOIDS_MAX_NEIGHBORS_K];
uint tk_n;

bool topk_before(uint q, float d2, uint id) { return d2 < tk_d2[q] || (d2 == tk_d2[q] && id < tk_id[q]); }

void topk_offer(uint k, uint j, float d2, uint id) {
    uint q = tk_n;
    if (q == k) { // full: it must beat the last, which drops out
        if (!topk_before(q - 1u, d2, id))
            return;
        q--;
    } else {
        tk_n++;
    }
    for (; q > 0u && topk_before(q - 1u, d2, id); q--) {
        tk_d2[q] = tk_d2[q - 1u];
        tk_id[q] = tk_id[q - 1u];
        tk_slot[q] = tk_slot[q - 1u];
    }
    tk_d2[q] = d2;
    tk_id[q] = id;
    tk_slot[q] = j;
}

// gather_pair for the kept K (the offset recomputed as the filter did: the
// same bits).
void topk_gather(vec3 p, boids_group_params g, vec3 heading, bool has_heading, inout gather acc) {
    for (uint q = 0u; q < tk_n; q++) {
        uint j = tk_slot[q];
        gather_pair(g, heading, has_heading, j, world_delta(p, cur_pos[j].xyz), tk_d2[q], acc);
    }
}

// C twin: src/core/steer.c ring_bound().
// The distance below which every agent outside rings 0..j of the block lies
// farther: j cells of the narrowest axis, less the rounding margins. <= 0: none.
float ring_bound(uint j) {
    float wmin = BOIDS_INFINITY, e = 0.0;
    for (uint a = 0u; a < world.dim; a++) {
        wmin = min(wmin, world.cell[a]);
        e = max(e, abs(world.min[a]) + world.size[a]);
    }
    return float(j) * wmin * (1.0 - BOIDS_EARLY_STOP_REL) - BOIDS_EARLY_STOP_ABS * e;
}

// C twin: src/core/steer.c gather_rings().
// The K-nearest gather with the early stop: the block around cell c ring by
// ring (Chebyshev distance j = 0..M); once K are held and the K-th d^2 is
// below ring_bound(j)^2 the rest cannot enter the K (the same K, the same bits).
void gather_rings(uvec3 c, vec3 p, float reach2, uint kmax, boids_group_params g, vec3 heading, bool has_heading,
                  inout gather acc) {
    bool wrap = world.boundary == BOIDS_BOUNDARY_WRAP;
    uint m = grid_fine();
    uint cx[BOIDS_GRID_AXIS_MAX], cy[BOIDS_GRID_AXIS_MAX], cz[BOIDS_GRID_AXIS_MAX];
    uint rx[BOIDS_GRID_AXIS_MAX], ry[BOIDS_GRID_AXIS_MAX], rz[BOIDS_GRID_AXIS_MAX];
    uint nx = grid_axis_rings(c.x, world.cells.x, wrap, m, cx, rx);
    uint ny = grid_axis_rings(c.y, world.cells.y, wrap, m, cy, ry);
    uint nz = grid_axis_rings(c.z, world.cells.z, wrap, m, cz, rz);
    for (uint j = 0u; j <= m; j++) {
        for (uint kz = 0u; kz < nz && rz[kz] <= j; kz++)
            for (uint ky = 0u; ky < ny && ry[ky] <= j; ky++) {
                uint row = (cz[kz] * world.cells.y + cy[ky]) * world.cells.x;
                bool edge = rz[kz] == j || ry[ky] == j; // the whole row is in ring j
                for (uint kx = 0u; kx < nx && rx[kx] <= j; kx++) {
                    if (!edge && rx[kx] != j)
                        continue;
                    uint r = grid_rank(row + cx[kx]);
                    uint first = cell_start[r], last = cell_start[r + 1u];
                    acc.candidates += last - first;
                    for (uint q = first; q < last; q++) {
                        vec3 off = world_delta(p, cur_pos[q].xyz);
                        precise float d2 = off.x * off.x + off.y * off.y + off.z * off.z;
                        if (d2 > 0.0 && d2 < reach2)
                            topk_offer(kmax, q, d2, cur_id[q]);
                    }
                }
            }
        if (j == m)
            break;
        float bound = ring_bound(j);
        if (tk_n == kmax && bound > 0.0 && tk_d2[tk_n - 1u] < bound * bound)
            break;
    }
    topk_gather(p, g, heading, has_heading, acc);
}

// C twin: src/core/steer.c gather_neighbors() (with filter() and
// boids_grid_ranges() of src/core/grid.c; no batches, a CPU device).
// Gather over the block of cells c-M..c+M per axis around the agent (3x3
// or 3x3x3 at M = 1): every slot j of those cells with 0 < d^2 < reach^2
// (d > 0 as in the chapter: skips self and coincident agents); a group with
// neighbors_max K > 0 through gather_rings. candidates counts every slot of
// the cells read.
void gather_neighbors(uint i, boids_group_params g, vec3 heading, bool has_heading, inout gather acc) {
    vec3 p = cur_pos[i].xyz;
    uvec3 c = grid_coords(p);
    bool wrap = world.boundary == BOIDS_BOUNDARY_WRAP;
    float reach = group_reach(cur_group[i]);
    float reach2 = reach * reach;
    uint kmax = g.neighbors_max;
    tk_n = 0u;
    if (kmax != 0u) {
        gather_rings(c, p, reach2, kmax, g, heading, has_heading, acc);
        return;
    }
    uint m = grid_fine();
    uint xs[BOIDS_GRID_AXIS_MAX], ys[BOIDS_GRID_AXIS_MAX], zs[BOIDS_GRID_AXIS_MAX];
    uint nx = grid_axis_cells(c.x, world.cells.x, wrap, m, xs);
    uint ny = grid_axis_cells(c.y, world.cells.y, wrap, m, ys);
    uint nz = grid_axis_cells(c.z, world.cells.z, wrap, m, zs);
    for (uint k = 0u; k < nz; k++)
        for (uint jy = 0u; jy < ny; jy++) {
            uint row = (zs[k] * world.cells.y + ys[jy]) * world.cells.x;
#if defined(BOIDS_KERNEL_MORTON)
            // Cells in Morton order: a run of slots per run of consecutive
            // ranks (x cells 2k, 2k + 1 are neighbours in Morton order).
            for (uint ix = 0u; ix < nx; ix++) {
                uint r = grid_rank(row + xs[ix]), r1 = r;
                while (ix + 1u < nx && grid_rank(row + xs[ix + 1u]) == r1 + 1u) {
                    ix++;
                    r1++;
                }
                uint first = cell_start[r], last = cell_start[r1 + 1u];
                acc.candidates += last - first;
                for (uint j = first; j < last; j++) {
                    vec3 off = world_delta(p, cur_pos[j].xyz);
                    precise float d2 = off.x * off.x + off.y * off.y + off.z * off.z;
                    if (d2 > 0.0 && d2 < reach2)
                        gather_pair(g, heading, has_heading, j, off, d2, acc);
                }
            }
#else
            // Consecutive x cells are one contiguous run of slots (as
            // boids_grid_ranges): one loop per run, not per cell.
            for (uint ix = 0u; ix < nx; ix++) {
                uint first_x = xs[ix];
                while (ix + 1u < nx && xs[ix + 1u] == xs[ix] + 1u)
                    ix++;
                uint first = cell_start[row + first_x], last = cell_start[row + xs[ix] + 1u];
                acc.candidates += last - first;
                for (uint j = first; j < last; j++) {
                    vec3 off = world_delta(p, cur_pos[j].xyz);
                    precise float d2 = off.x * off.x + off.y * off.y + off.z * off.z;
                    if (d2 > 0.0 && d2 < reach2)
                        gather_pair(g, heading, has_heading, j, off, d2, acc);
                }
            }
#endif
        }
}

// C twin: src/core/steer.c combine(), one iteration of its loop (behaviour
// b, enabled). behaviors_of() calls it right after each enabled behaviour,
// in index order, which is the order of combine()'s loop, so `acc` ends the
// same; the 16 forces then need no dynamically indexed array. Weighted sum,
// or in priority mode the first weighted force (in index order) longer than
// the threshold (`chosen`: later behaviours add nothing; if none is, the
// weighted sum), or in truncated mode Buckland's running sum within the
// budget maxforce (`chosen` once it is spent).
void combine_one(boids_group_params g, uint b, vec3 force, float maxforce, inout vec3 acc, inout bool chosen) {
    if (chosen)
        return;
    vec3 f = force * weight_of(g, b);
    if (world.combine == BOIDS_COMBINE_PRIORITY && norm3(f) > g.priority_threshold) {
        acc = f;
        chosen = true;
        return;
    }
    if (world.combine == BOIDS_COMBINE_TRUNCATED) {
        chosen = !accumulate_force(acc, f, maxforce);
        return;
    }
    precise vec3 s = acc + f;
    acc = s;
}

// The agents of this step (an id at or above it names the target).
layout(location = BOIDS_LOC_AGENTS) uniform uint u_agents;

// C twin: src/core/steer.c named_agent() (off, vel out).
// The offset from pos to the named agent `id` and its velocity: an agent
// through slot_of[id] (written by scatter for this step's cur), or
// BOIDS_ID_TARGET, the world's target. Its slot, or BOIDS_NONE for the target.
uint named_agent(vec3 pos, uint id, out vec3 off, out vec3 vel) {
    if (id == BOIDS_ID_TARGET || id >= u_agents) {
        off = world_delta(pos, world.target_pos.xyz);
        vel = world.target_vel.xyz;
        return BOIDS_NONE;
    }
    uint j = slot_of[id];
    off = world_delta(pos, cur_pos[j].xyz);
    vel = cur_vel[j].xyz;
    return j;
}

// C twin: src/core/steer.c offset_of().
// Offset pursuit of agent i: its place in the formation (or the group's
// leader_offset); the leader itself has no force.
vec3 offset_of(uint i, boids_group_params g, float ms, float mf) {
    uint id = cur_id[i];
    if (id == g.leader)
        return vec3(0.0);
    vec3 to_leader, lv;
    uint j = named_agent(cur_pos[i].xyz, g.leader, to_leader, lv);
    vec3 local = formation_local(g, id, j != BOIDS_NONE && cur_group[j] == cur_group[i]);
    return offset_pursuit(to_leader, lv, local, world.dim, cur_vel[i].xyz, g.arrive_radius, ms, mf);
}

// C twin: src/core/steer.c behaviors_of() followed by combine().
// The force of every enabled behaviour of agent i (each already limited to
// maxforce), combined; updates the wander angles. Every enabled behaviour
// is evaluated, also after a priority winner, as in C (wander's angles).
vec3 behaviors_of(uint i, uint beh, gather acc, inout vec2 angles) {
    boids_group_params g = group[cur_group[i]];
    vec3 pos = cur_pos[i].xyz, vel = cur_vel[i].xyz;
    // The agent's own maxspeed / maxforce (its ranges' draws) or the group's.
    uint id = cur_id[i];
    float ms = agent_maxspeed(g, id), mf = agent_maxforce(g, id);
    vec3 to_target = world_delta(pos, world.target_pos.xyz);
    vec3 t, f;
    vec3 sum = vec3(0.0); // C: combine()'s acc
    bool chosen = false;

    if ((beh & BOIDS_BIT(BOIDS_BI_OBSTACLES)) != 0u) {
        f = obstacles(pos, vel, g.avoid_distance, g.body_radius, ms, mf);
        combine_one(g, BOIDS_BI_OBSTACLES, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_WALLS)) != 0u) {
        walls(pos, vel, ms, mf, f);
        combine_one(g, BOIDS_BI_WALLS, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_ESCAPE)) != 0u) {
        t = unfix3(acc.esc, BOIDS_FIX_SEP, 1.0);
        f = escape(t, acc.esc_n, vel, ms, mf);
        combine_one(g, BOIDS_BI_ESCAPE, f, mf, sum, chosen);
    }
    bool tutorial = g.rules == BOIDS_RULES_TUTORIAL;
    if ((beh & BOIDS_BIT(BOIDS_BI_SEPARATION)) != 0u) {
        if (tutorial) {
            // Mean offset to the neighbours = sum * separation / count.
            float k = acc.sep_n != 0u ? fdiv(g.separation, float(acc.sep_n)) : 0.0;
            t = unfix3(acc.sep, BOIDS_FIX_UNIT, k);
            f = tutorial_separation(t, acc.sep_n);
        } else {
            t = unfix3(acc.sep, BOIDS_FIX_SEP, 1.0);
            f = separation(t, acc.sep_n, vel, ms, mf);
        }
        combine_one(g, BOIDS_BI_SEPARATION, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_FLEE)) != 0u) {
        f = flee(to_target, vel, ms, mf);
        combine_one(g, BOIDS_BI_FLEE, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_EVADE)) != 0u) {
        f = evade(to_target, world.target_vel.xyz, vel, g.predict, ms, mf);
        combine_one(g, BOIDS_BI_EVADE, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_HUNT)) != 0u) {
        f = vec3(0.0);
        if (acc.prey_slot != BOIDS_NONE) {
            vec3 off = world_delta(pos, cur_pos[acc.prey_slot].xyz);
            f = pursue(off, cur_vel[acc.prey_slot].xyz, vel, g.predict, ms, mf);
        }
        combine_one(g, BOIDS_BI_HUNT, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_PURSUE)) != 0u) {
        f = pursue(to_target, world.target_vel.xyz, vel, g.predict, ms, mf);
        combine_one(g, BOIDS_BI_PURSUE, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_SEEK)) != 0u) {
        f = seek(to_target, vel, ms, mf);
        combine_one(g, BOIDS_BI_SEEK, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_ARRIVE)) != 0u) {
        f = arrive(to_target, vel, g.arrive_radius, ms, mf);
        combine_one(g, BOIDS_BI_ARRIVE, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_PATH)) != 0u) {
        f = path_follow(pos, vel, g.path_predict, g.path_ahead, ms, mf);
        combine_one(g, BOIDS_BI_PATH, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_FLOW)) != 0u) {
        f = flow(flow_lookup(pos), vel, ms, mf);
        combine_one(g, BOIDS_BI_FLOW, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_VIEW)) != 0u) {
        f = view(acc.view, acc.view_n, vel, ms, mf);
        combine_one(g, BOIDS_BI_VIEW, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) != 0u) {
        // Average velocity = sum * max_speed_all / count.
        float k = acc.ali_n != 0u ? fdiv(world.max_speed_all, float(acc.ali_n)) : 0.0;
        t = unfix3(acc.ali, BOIDS_FIX_UNIT, k);
        f = tutorial ? tutorial_alignment(t, acc.ali_n) : alignment(t, acc.ali_n, vel, ms, mf);
        combine_one(g, BOIDS_BI_ALIGNMENT, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_COHESION)) != 0u) {
        // Centroid - position = mean offset = sum * cohesion's radius / count.
        float k = acc.coh_n != 0u ? fdiv(cohesion_radius(g), float(acc.coh_n)) : 0.0;
        t = unfix3(acc.coh, BOIDS_FIX_UNIT, k);
        f = tutorial ? tutorial_cohesion(t, acc.coh_n) : cohesion(t, acc.coh_n, vel, ms, mf);
        combine_one(g, BOIDS_BI_COHESION, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_WANDER)) != 0u) {
        uint counter = world.step; // C: step
        float r1 = rng_signed(rng_u32(world.seed_lo, world.seed_hi, id, counter, BOIDS_RNG_WANDER));
        float r2 = rng_signed(rng_u32(world.seed_lo, world.seed_hi, id, counter, BOIDS_RNG_WANDER2));
        f = wander(vel, angles, r1, r2, g.wander_distance, g.wander_radius, g.wander_change, world.dim, ms, mf);
        combine_one(g, BOIDS_BI_WANDER, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_SPEED)) != 0u) {
        f = target_speed(vel, g.target_speed, mf);
        combine_one(g, BOIDS_BI_SPEED, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_QUEUE)) != 0u) {
        f = queue(acc.queue_n, vel, mf);
        combine_one(g, BOIDS_BI_QUEUE, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_AVOID)) != 0u) {
        f = avoid(acc.avoid_id != BOIDS_NONE, acc.avoid_off, vel, mf);
        combine_one(g, BOIDS_BI_AVOID, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_STAY)) != 0u) {
        f = stay_on_path(pos, vel, g.path_predict, ms, mf);
        combine_one(g, BOIDS_BI_STAY, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_HIDE)) != 0u) {
        bool has = acc.hunter_slot != BOIDS_NONE;
        vec3 off = vec3(0.0), hv = vec3(0.0);
        if (has) {
            off = world_delta(pos, cur_pos[acc.hunter_slot].xyz);
            hv = cur_vel[acc.hunter_slot].xyz;
        }
        f = hide(pos, vel, has, off, hv, g.radius, g.hide_margin, g.predict, g.arrive_radius, ms, mf);
        combine_one(g, BOIDS_BI_HIDE, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_OFFSET)) != 0u) {
        f = offset_of(i, g, ms, mf);
        combine_one(g, BOIDS_BI_OFFSET, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_FOLLOW)) != 0u) {
        f = vec3(0.0);
        if (id != g.leader) {
            vec3 off, lv;
            named_agent(pos, g.leader, off, lv);
            f = follow_leader(off, lv, vel, g.leader_behind, g.leader_sight, g.predict, g.arrive_radius, ms, mf);
        }
        combine_one(g, BOIDS_BI_FOLLOW, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_INTERPOSE)) != 0u) {
        vec3 oa, va, ob, vb;
        named_agent(pos, g.interpose_a, oa, va);
        named_agent(pos, g.interpose_b, ob, vb);
        f = interpose(oa, va, ob, vb, vel, g.arrive_radius, ms, mf);
        combine_one(g, BOIDS_BI_INTERPOSE, f, mf, sum, chosen);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_FEELERS)) != 0u) {
        f = feelers(pos, vel, world.dim, g.feeler_length, mf);
        combine_one(g, BOIDS_BI_FEELERS, f, mf, sum, chosen);
    }
    return sum;
}

// C twin: src/core/steer.c heading_agent().
// The heading rules of agent i (boids-angle-bug.txt): the step's turn in
// radians (accel.x; integrate adds it to the heading). Mean directions =
// the unit-heading sums / count; the most populated area is the centre of
// the densest block of this step's survey (survey.comp; none when empty).
vec3 heading_agent(uint i, gather acc) {
    boids_group_params g = group[cur_group[i]];
    vec3 align = unfix3(acc.ali, BOIDS_FIX_UNIT, acc.ali_n != 0u ? fdiv(1.0, float(acc.ali_n)) : 0.0);
    vec3 separate = unfix3(acc.sep, BOIDS_FIX_UNIT, acc.sep_n != 0u ? fdiv(1.0, float(acc.sep_n)) : 0.0);
    vec3 to_dense = vec3(0.0);
    if ((g.behaviors & BOIDS_BIT(BOIDS_BI_COHESION)) != 0u && survey[1] > 0u)
        to_dense = world_delta(cur_pos[i].xyz, survey_target(survey[0]));
    float heading = heading_angle(cur_vel[i].xyz);
    return vec3(heading_rules(heading, g.behaviors, align, separate, to_dense, g.turn * world.dt), 0.0, 0.0);
}

// C twin: src/core/steer.c model_agent().
// The collective-motion models of agent i (behaviors.glsl, C: models.c): the
// new unit heading (accel; integrate moves along it at the constant speed).
// Vicsek: the unit velocities within r plus the agent's own (its fixed-point
// term); Couzin: the zones' sums, the turn limit turn * dt per step.
vec3 model_agent(uint i, gather acc) {
    boids_group_params g = group[cur_group[i]];
    vec3 vel = cur_vel[i].xyz;
    vec3 u = noise_draws(cur_id[i], world.step);
    if (g.rules == BOIDS_RULES_VICSEK) {
        fix64x3 sum = acc.ali;
        fix3_unit(sum, set_mag(vel, 1.0), world.dim);
        return vicsek_heading(unfix3(sum, BOIDS_FIX_UNIT, 1.0), vel, g.noise, world.dim, u);
    }
    vec3 desired = couzin_desired(unfix3(acc.sep, BOIDS_FIX_UNIT, 1.0), acc.sep_n, unfix3(acc.ali, BOIDS_FIX_UNIT, 1.0),
                                  acc.ali_n, unfix3(acc.coh, BOIDS_FIX_UNIT, 1.0), acc.coh_n, vel);
    return couzin_heading(desired, vel, g.noise, g.turn * world.dt, world.dim, u);
}

// C twin: src/core/steer.c steer_agent() (the sums' start).
// The empty neighbourhood of an agent of group g with velocity vel.
gather gather_start(boids_group_params g, vec3 vel) {
    gather acc;
    acc.sep = fix3_zero();
    acc.ali = fix3_zero();
    acc.coh = fix3_zero();
    acc.view = ivec2(0);
    acc.esc = fix3_zero();
    acc.sep_n = 0u;
    acc.ali_n = 0u;
    acc.coh_n = 0u;
    acc.view_n = 0u;
    acc.esc_n = 0u;
    acc.neighbors = 0u;
    acc.candidates = 0u;
    acc.nearest2 = BOIDS_INFINITY;
    acc.prey_slot = BOIDS_NONE;
    acc.prey_d2 = BOIDS_INFINITY;
    acc.prey_id = BOIDS_NONE;
    acc.hunter_slot = BOIDS_NONE;
    acc.hunter_d2 = BOIDS_INFINITY;
    acc.hunter_id = BOIDS_NONE;
    acc.inv_speed = fdiv(1.0, world.max_speed_all);
    acc.inv_radius = fdiv(1.0, cohesion_radius(g));
    float ar = alignment_radius(g), cr = cohesion_radius(g);
    acc.ali_r2 = ar * ar;
    acc.coh_r2 = cr * cr;
    acc.sep_cos = rule_cone(g, BOIDS_CONE_SEPARATION);
    acc.ali_cos = rule_cone(g, BOIDS_CONE_ALIGNMENT);
    acc.coh_cos = rule_cone(g, BOIDS_CONE_COHESION);
    acc.dim = world.dim;
    acc.queue_n = 0u;
    acc.avoid_t = BOIDS_INFINITY;
    acc.avoid_id = BOIDS_NONE;
    acc.avoid_off = vec3(0.0);
    acc.vel = vel;
    return acc;
}

// C twin: src/core/steer.c steer_agent() (after the gather).
// The behaviours of agent i from its sums: accel[i], the wander angles into
// next (pos.w, vel.w), neighbour statistics.
void steer_finish(uint i, boids_group_params g, vec3 heading, bool has_heading, gather acc) {
    vec2 angles = vec2(cur_pos[i].w, cur_vel[i].w);
    vec3 a;
    if (g.rules == BOIDS_RULES_HEADING) {
        a = heading_agent(i, acc);
    } else if (g.rules == BOIDS_RULES_VICSEK || g.rules == BOIDS_RULES_COUZIN) {
        a = model_agent(i, acc);
    } else if (g.rules == BOIDS_RULES_CIRCLES) {
        // The circles model's displacement (integrate moves the agent by it).
        a = circles_displacement(unfix3(acc.sep, BOIDS_FIX_UNIT, 1.0), acc.sep_n, g.repulse);
    } else {
        // The walls boundary mode is the stay-within-walls behaviour.
        uint beh = g.behaviors | (world.boundary == BOIDS_BOUNDARY_WALLS ? BOIDS_BIT(BOIDS_BI_WALLS) : 0u);
        a = behaviors_of(i, beh, acc, angles);
    }
    accel[i] = vec4(a, 0.0);
    next_pos[i].w = angles.x;
    next_vel[i].w = angles.y;
    neighbors[i] = acc.neighbors;
    nearest[i] = acc.neighbors != 0u ? sqrt(acc.nearest2) : 0.0;
    candidates[i] = acc.candidates;
}

// C twin: src/core/steer.c steer_agent().
// Steer one agent (slot i of cur): acceleration into accel[i], the updated
// wander angles into next (pos.w, vel.w), neighbour statistics.
void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    boids_group_params g = group[cur_group[i]];
    vec3 heading = set_mag(cur_vel[i].xyz, 1.0);
    bool has_heading = norm2(heading) > 0.0;
    gather acc = gather_start(g, cur_vel[i].xyz);
    gather_neighbors(i, g, heading, has_heading, acc);
    steer_finish(i, g, heading, has_heading, acc);
}
