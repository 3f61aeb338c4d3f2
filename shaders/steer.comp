// shaders/steer.comp: the steer stage. C twins: src/core/steer.c (the stage),
// steer_gather.c (the neighbourhood's sums), steer_behaviors.c (the
// behaviours and their combination).
// One invocation per agent slot i of cur: gather the neighbourhood through
// the grid (3x3 or 3x3x3 cells, minimum-image offsets) into
// order-independent 64-bit fixed-point sums, evaluate every enabled
// behaviour (each limited to maxforce), and combine them: the weighted sum
// (Nature of Code 5, "Combining Behaviors") or priority (Reynolds 1999).
// Writes accel[i], the wander angles into next_pos[i].w / next_vel[i].w
// (the xyz lanes of next belong to integrate.comp), neighbors[i],
// nearest[i], candidates[i].
//
// Against the C loop: the cells are visited in another order (C filters
// candidates in batches of 64: a CPU optimisation); the set of pairs and
// every operation on a pair are the same, and the sums are integers (every
// choice by (d^2, id)), so the visiting order does not matter.
// The C "plain difference far from the seam" is the same bits as
// world_delta, which is used for every pair here.
//
// Kernel variant (a define; the same pairs and the same operations on each,
// so the same bits): BOIDS_KERNEL_MORTON (cells in Morton order: each cell's
// slots found through grid_rank, one cell at a time).
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

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
    if (BOIDS_ON(g.behaviors, BOIDS_BI_SEPARATION))
        r = max(r, g.separation);
    if (BOIDS_ON(g.behaviors, BOIDS_BI_VIEW))
        r = max(r, g.view_radius);
    if (BOIDS_ON(g.behaviors, BOIDS_BI_ALIGNMENT))
        r = max(r, alignment_radius(g));
    if (BOIDS_ON(g.behaviors, BOIDS_BI_COHESION))
        r = max(r, cohesion_radius(g));
    if (BOIDS_ON(g.behaviors, BOIDS_BI_QUEUE))
        r = max(r, g.queue_distance);
    return r;
}

// C twin: src/core/steer_gather.c sees().
// Does the agent see the other (offset . heading = along, C: dot; d2 = |off|^2)
// through the cone `c`? -1 or no heading: all around.
bool sees(float c, bool has_heading, float along, float d2) {
    return c <= -1.0 || !has_heading || in_cone(along, c, d2);
}

// C twin: src/core/steer_internal.h struct gather.
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

// C twin: src/core/steer_gather.c fix3().
void fix3(inout fix64x3 acc, vec3 v, float scale) {
    acc.x = fix_add(acc.x, fix(v.x, scale));
    acc.y = fix_add(acc.y, fix(v.y, scale));
    acc.z = fix_add(acc.z, fix(v.z, scale));
}

// C twin: src/core/steer_internal.h fix3_unit().
// fix3 for terms known to lie in [-1, 1] (offset / radius with d < radius;
// velocity / the largest maxspeed): no saturation or NaN test, the same bits
// as fix. In 2D the z terms are all 0, so z is added only in 3D.
void fix3_unit(inout fix64x3 acc, vec3 v, uint dim) {
    acc.x = fix_add(acc.x, fix_trunc(v.x * BOIDS_FIX_UNIT));
    acc.y = fix_add(acc.y, fix_trunc(v.y * BOIDS_FIX_UNIT));
    if (dim == 3u)
        acc.z = fix_add(acc.z, fix_trunc(v.z * BOIDS_FIX_UNIT));
}

// C twin: src/core/steer_behaviors.c unfix3().
vec3 unfix3(fix64x3 acc, float scale, float k) {
    return vec3(unfix(acc.x, scale) * k, unfix(acc.y, scale) * k, unfix(acc.z, scale) * k);
}

// C twin: src/core/steer_gather.c gather_pair().
// One pair within the agent's interaction radius: agent (heading, group g)
// and other slot j at offset `off` (minimum image), d2 = |off|^2 > 0, with
// velocity vj (2D: from its record; 3D: read here, only for the pairs in range).
void gather_pair(boids_group_params g, vec3 heading, bool has_heading, uint j, vec3 off, float d2, vec3 vj,
                 inout gather acc) {
    if (WORLD_DIM != 2u)
        vj = cur_vel[j].xyz;
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
    if (BOIDS_SPEC_RELATIONS != 0 && g.relations != 0u)
        rel = (g.relations >> (BOIDS_REL_BITS * cur_group[j])) & BOIDS_REL_MASK;
    vec3 t;
    // Queueing and avoidance look at every agent the group sees (any
    // relation but ignore): a crowd files behind, and dodges, anyone.
    if (rel != BOIDS_REL_IGNORE) {
        if (BOIDS_ON(beh, BOIDS_BI_QUEUE) &&
            queue_blocks(off, d2, heading, has_heading, acc.vel, vj, g.queue_distance))
            acc.queue_n++;
        float tc;
        if (BOIDS_ON(beh, BOIDS_BI_AVOID) && d2 < g.radius * g.radius &&
            avoid_threat(off, acc.vel, vj, g.avoid_horizon, 2.0 * g.body_radius, tc, t)) {
            uint id = cur_id[j];
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
        if (BOIDS_ON(beh, BOIDS_BI_SEPARATION) && d2 < g.separation * g.separation &&
            sees(acc.sep_cos, has_heading, along, d2)) {
            if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_CHAPTER)) {
                t = separation_term(off, sqrt(d2), g.separation);
                fix3(acc.sep, t, BOIDS_FIX_SEP);
            } else if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_TUTORIAL)) {
                float is = fdiv(1.0, g.separation);
                vec3 os = vec3(off.x * is, off.y * is, off.z * is);
                fix3_unit(acc.sep, os, acc.dim);
            } else if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_CIRCLES)) {
                t = circles_term(off, sqrt(d2), g.separation);
                fix3_unit(acc.sep, t, acc.dim);
            } else if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_COUZIN)) { // the zone of repulsion: unit offsets
                t = set_mag(off, 1.0);
                fix3_unit(acc.sep, t, acc.dim);
            } else if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_HEADING) || BOIDS_RULES_ARE(g.rules, BOIDS_RULES_VICSEK)) {
                t = set_mag(vj, 1.0);
                fix3_unit(acc.sep, t, acc.dim);
            }
            acc.sep_n++;
        }
        // Couzin's zones are shells: orientation from the separation radius
        // out, attraction from the alignment radius out.
        bool couzin = BOIDS_RULES_ARE(g.rules, BOIDS_RULES_COUZIN);
        if (BOIDS_ON(beh, BOIDS_BI_ALIGNMENT) && d2 < acc.ali_r2 && sees(acc.ali_cos, has_heading, along, d2) &&
            !(couzin && d2 < g.separation * g.separation)) {
            // Unit headings for the heading, Vicsek and Couzin rules.
            if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_HEADING) || BOIDS_RULES_ARE(g.rules, BOIDS_RULES_VICSEK) || couzin) {
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
        if (BOIDS_ON(beh, BOIDS_BI_COHESION) && !BOIDS_RULES_ARE(g.rules, BOIDS_RULES_HEADING) && d2 < acc.coh_r2 &&
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
        if (BOIDS_ON(beh, BOIDS_BI_VIEW) && has_heading && d2 < g.view_radius * g.view_radius &&
            in_cone(dot3(off, heading), g.view_cos, d2)) {
            acc.view += view_term(off, acc.vel);
            acc.view_n++;
        }
    } else if (rel == BOIDS_REL_FLEE) {
        if (BOIDS_ON(beh, BOIDS_BI_ESCAPE) && d2 < g.radius * g.radius) {
            t = escape_term(off, vj, g.predict, g.radius);
            fix3(acc.esc, t, BOIDS_FIX_SEP);
            acc.esc_n++;
        }
        uint id = cur_id[j];
        if (BOIDS_ON(beh, BOIDS_BI_HIDE) && d2 < g.radius * g.radius &&
            (d2 < acc.hunter_d2 || (d2 == acc.hunter_d2 && id < acc.hunter_id))) {
            acc.hunter_d2 = d2;
            acc.hunter_id = id;
            acc.hunter_slot = j;
        }
    } else if (rel == BOIDS_REL_PURSUE) {
        uint id = cur_id[j];
        if (BOIDS_ON(beh, BOIDS_BI_HUNT) && d2 < g.radius * g.radius &&
            (d2 < acc.prey_d2 || (d2 == acc.prey_d2 && id < acc.prey_id))) {
            acc.prey_d2 = d2;
            acc.prey_id = id;
            acc.prey_slot = j;
        }
    }
}

// The slots of the cells x0..x1 (consecutive, x0 <= x1) of a row.
uvec2 row_slots(uint row, uint x0, uint x1) {
#if defined(BOIDS_KERNEL_MORTON)
    // (morton: called for one cell at a time)
    uint r = grid_rank(row + x0);
    return uvec2(cell_start[r], cell_start[r + 1u]);
#else
    return uvec2(cell_start[row + x0], cell_start[row + x1 + 1u]);
#endif
}

// Candidate slot j: the offset to it and its d^2 (precise: every driver the
// same bits) first, before anything else touches the pair; in 2D its packed
// record also gives its velocity vj (one load; 3D: gather_pair reads it).
// In 2D every z is the same: the z offset and velocity are 0.
float candidate(vec3 p, uint j, out vec3 off, out vec3 vj) {
    vec3 pj;
    if (WORLD_DIM == 2u) {
        vec4 r = cell_record[j];
        pj = vec3(r.xy, p.z);
        vj = vec3(r.zw, 0.0);
    } else {
        pj = cur_pos[j].xyz;
        vj = vec3(0.0);
    }
    off = world_delta(p, pj);
    precise float d2 = off.x * off.x + off.y * off.y + off.z * off.z;
    return d2;
}

#if BOIDS_SPEC_TOPK > 0
#define TOPK_N uint(BOIDS_SPEC_TOPK)
// C twin: src/core/steer_gather.c struct topk, topk_offer().
// Topological neighbourhoods (group neighbors_max K > 0): of the accepted
// candidates, the K smallest by (d^2, id), ties to the smaller id. Two
// sweeps of the same cells: the first finds the K-th (d^2, id), the second
// gathers every candidate at or below it - the same K as the C's sorted
// list, chosen by (d^2, id) alone. The selection is a sorted row of
// BOIDS_SPEC_TOPK (the largest K of the run's groups) kept in registers: a
// candidate passes down the row, each place keeping the smaller (constant
// indices only, so no local memory).
// (The sizes are the plain constant: a constructor there, such as uint(),
// may be an emulation's function call, which no array size can be.)
float tk_d2[BOIDS_SPEC_TOPK];
uint tk_id[BOIDS_SPEC_TOPK];

// (d2, id) before (e2, eid).
bool topk_before(float d2, uint id, float e2, uint eid) { return d2 < e2 || (d2 == e2 && id < eid); }

void topk_offer(float d2, uint id) {
    if (!topk_before(d2, id, tk_d2[TOPK_N - 1u], tk_id[TOPK_N - 1u]))
        return;
    for (uint q = 0u; q < TOPK_N; q++) {
        bool take = topk_before(d2, id, tk_d2[q], tk_id[q]);
        float e2 = tk_d2[q];
        uint eid = tk_id[q];
        tk_d2[q] = take ? d2 : e2;
        tk_id[q] = take ? id : eid;
        d2 = take ? e2 : d2;
        id = take ? eid : id;
    }
}

// The row's place kmax - 1 (the K-th held: infinity and BOIDS_NONE while
// fewer are held), found with constant indices only.
void topk_kth(uint kmax, out float kd2, out uint kid) {
    kd2 = BOIDS_INFINITY;
    kid = BOIDS_NONE;
    for (uint q = 0u; q < TOPK_N; q++) {
        kd2 = q + 1u == kmax ? tk_d2[q] : kd2;
        kid = q + 1u == kmax ? tk_id[q] : kid;
    }
}

// C twin: src/core/steer_gather.c ring_bound().
// The distance below which every agent outside rings 0..j of the block lies
// farther: j cells of the narrowest axis, less the rounding margins. <= 0: none.
float ring_bound(uint j) {
    float wmin = BOIDS_INFINITY, e = 0.0;
    for (uint a = 0u; a < WORLD_DIM; a++) {
        wmin = min(wmin, world.cell[a]);
        e = max(e, abs(world.min[a]) + world.size[a]);
    }
    precise float b = float(j) * wmin * (1.0 - BOIDS_EARLY_STOP_REL) - BOIDS_EARLY_STOP_ABS * e;
    return b;
}

// C twin: src/core/steer_gather.c gather_rings().
// The K-nearest gather with the early stop: the block around the agent ring
// by ring (Chebyshev distance j = 0..M); once K are held and the K-th d^2 is
// below ring_bound(j)^2 the rest cannot enter the K (the same K, the same
// bits). Sweep `select`: offer every candidate to the row, and return the
// last ring read; else gather those at or below the K-th (kd2, kid) in
// rings 0..last.
uint sweep_rings(bool select, axis_span ax, axis_span ay, axis_span az, uint last, vec3 p, float reach2, uint kmax,
                 float kd2, uint kid, boids_group_params g, vec3 heading, bool has_heading, inout gather acc) {
    for (uint j = 0u; j <= last; j++) {
        for (uint qz = 0u; qz < az.k; qz++) {
            uint z = axis_cell(az, qz), rz = axis_ring(az, z);
            for (uint qy = 0u; qy < ay.k && rz <= j; qy++) {
                uint y = axis_cell(ay, qy), ry = axis_ring(ay, y);
                uint row = (z * world.cells.y + y) * world.cells.x;
                bool edge = rz == j || ry == j; // the whole row is in ring j
                for (uint qx = 0u; qx < ax.k && ry <= j; qx++) {
                    uint x = axis_cell(ax, qx), rx = axis_ring(ax, x);
                    if (rx > j || (!edge && rx != j))
                        continue;
                    uint r = grid_rank(row + x);
                    uint first = cell_start[r], end = cell_start[r + 1u];
                    if (select)
                        acc.candidates += end - first;
                    for (uint q = first; q < end; q++) {
                        vec3 off, vq;
                        float d2 = candidate(p, q, off, vq);
                        if (!(d2 > 0.0 && d2 < reach2))
                            continue;
                        uint id = cur_id[q];
                        if (select)
                            topk_offer(d2, id);
                        else if (!topk_before(kd2, kid, d2, id))
                            gather_pair(g, heading, has_heading, q, off, d2, vq, acc);
                    }
                }
            }
        }
        if (j == last)
            return j;
        if (select) {
            float kth;
            uint kth_id;
            topk_kth(kmax, kth, kth_id);
            float bound = ring_bound(j);
            if (kth < BOIDS_INFINITY && bound > 0.0 && kth < bound * bound)
                return j;
        }
    }
    return last;
}

void gather_rings(axis_span ax, axis_span ay, axis_span az, vec3 p, float reach2, uint kmax, boids_group_params g,
                  vec3 heading, bool has_heading, inout gather acc) {
    for (uint q = 0u; q < TOPK_N; q++) {
        tk_d2[q] = BOIDS_INFINITY;
        tk_id[q] = BOIDS_NONE;
    }
    uint last = sweep_rings(true, ax, ay, az, grid_fine(), p, reach2, kmax, 0.0, 0u, g, heading, has_heading, acc);
    // The K-th (d^2, id) held; fewer than K: every candidate (infinity).
    float kd2;
    uint kid;
    topk_kth(kmax, kd2, kid);
    sweep_rings(false, ax, ay, az, last, p, reach2, kmax, kd2, kid, g, heading, has_heading, acc);
}
#endif

// C twin: src/core/steer_gather.c gather_neighbors() (with filter() and
// boids_grid_ranges() of src/core/grid.c; no batches, a CPU device).
// Gather over the block of cells c-M..c+M per axis around the agent (3x3
// or 3x3x3 at M = 1): every slot j of those cells with 0 < d^2 < reach^2
// (d > 0 as in the chapter: skips self and coincident agents); a group with
// neighbors_max K > 0 through gather_rings. candidates counts every slot of
// the cells read. A row's cells in x are one run of slots, or two where the
// block crosses the seam of a torus (kernel morton: a run per cell).
void gather_neighbors(uint i, boids_group_params g, vec3 heading, bool has_heading, inout gather acc) {
    vec3 p = cur_pos[i].xyz;
    uvec3 c = grid_coords(p);
    bool wrap = WORLD_BOUNDARY == BOIDS_BOUNDARY_WRAP;
    float reach = group_reach(cur_group[i]);
    float reach2 = reach * reach;
    uint m = grid_fine();
    axis_span ax = axis_block(c.x, world.cells.x, wrap, m);
    axis_span ay = axis_block(c.y, world.cells.y, wrap, m);
    axis_span az = WORLD_DIM == 2u ? axis_block(0u, 1u, wrap, m) : axis_block(c.z, world.cells.z, wrap, m);
#if BOIDS_SPEC_TOPK > 0
    uint kmax = g.neighbors_max;
    if (kmax != 0u) {
        gather_rings(ax, ay, az, p, reach2, kmax, g, heading, has_heading, acc);
        return;
    }
#endif
    // The row's runs: [s, s + k) up to the seam, then [0, s + k - n).
    uint x_end = ax.s + ax.k;
    uint run0 = min(x_end, ax.n), run1 = x_end > ax.n ? x_end - ax.n : 0u;
    for (uint qz = 0u; qz < az.k; qz++)
        for (uint qy = 0u; qy < ay.k; qy++) {
            uint row = (axis_cell(az, qz) * world.cells.y + axis_cell(ay, qy)) * world.cells.x;
#if defined(BOIDS_KERNEL_MORTON)
            for (uint qx = 0u; qx < ax.k; qx++) {
                uint x = axis_cell(ax, qx);
                uvec2 slots = row_slots(row, x, x);
#else
            for (uint run = 0u; run < (run1 != 0u ? 2u : 1u); run++) {
                uvec2 slots = run == 0u ? row_slots(row, ax.s, run0 - 1u) : row_slots(row, 0u, run1 - 1u);
#endif
                acc.candidates += slots.y - slots.x;
                for (uint j = slots.x; j < slots.y; j++) {
                    vec3 off, vj;
                    float d2 = candidate(p, j, off, vj);
                    if (d2 > 0.0 && d2 < reach2)
                        gather_pair(g, heading, has_heading, j, off, d2, vj, acc);
                }
            }
        }
}

// C twin: src/core/steer_behaviors.c combine(), one iteration of its loop
// (behaviour b, enabled). behaviors_of() calls it right after each enabled
// behaviour, in index order, which is the order of combine()'s loop, so
// `acc` ends the same; the 16 forces then need no dynamically indexed
// array. Weighted sum, or in priority mode the first weighted force (in
// index order) longer than the threshold (`chosen`: later behaviours add
// nothing; if none is, the weighted sum), or in truncated mode Buckland's
// running sum within the budget maxforce (`chosen` once it is spent).
void combine_one(boids_group_params g, uint b, vec3 force, float maxforce, inout vec3 acc, inout bool chosen) {
    if (chosen)
        return;
    vec3 f = force * weight_of(g, b);
    if (WORLD_COMBINE == BOIDS_COMBINE_PRIORITY && norm3(f) > g.priority_threshold) {
        acc = f;
        chosen = true;
        return;
    }
    if (WORLD_COMBINE == BOIDS_COMBINE_TRUNCATED) {
        chosen = !accumulate_force(acc, f, maxforce);
        return;
    }
    precise vec3 s = acc + f;
    acc = s;
}

// The agents of this step (an id at or above it names the target).
layout(location = BOIDS_LOC_AGENTS) uniform uint u_agents;

// C twin: src/core/steer_behaviors.c named_agent() (off, vel out).
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

// C twin: src/core/steer_behaviors.c steer_ctx.
// What a behaviour's wrapper reads: agent i (slot of cur; id, group g), its
// neighbourhood's sums, its own maxspeed ms and maxforce mf (its ranges'
// draws or the group's), the offset to the world's target.
struct steer_ctx {
    uint i, id;
    boids_group_params g;
    gather acc;
    vec3 pos, vel;
    float ms, mf;
    vec3 to_target; // minimum image
    vec2 angles;    // the wander angles (pos.w, vel.w): steer_wander updates them
};

// C twin: src/core/steer_behaviors.c steer_obstacles() ... steer_feelers().
// The behaviours, one wrapper each with the same argument: the force
// (already limited to maxforce). behaviors_of calls them in the order of
// shared.h's BOIDS_BEHAVIORS.
vec3 steer_obstacles(inout steer_ctx c) {
    return obstacles(c.pos, c.vel, c.g.avoid_distance, c.g.body_radius, c.ms, c.mf);
}

vec3 steer_walls(inout steer_ctx c) {
    vec3 f;
    walls(c.pos, c.vel, c.ms, c.mf, f);
    return f;
}

vec3 steer_escape(inout steer_ctx c) {
    vec3 t = unfix3(c.acc.esc, BOIDS_FIX_SEP, 1.0);
    return escape(t, c.acc.esc_n, c.vel, c.ms, c.mf);
}

vec3 steer_separation(inout steer_ctx c) {
    if (BOIDS_RULES_ARE(c.g.rules, BOIDS_RULES_TUTORIAL)) {
        // Mean offset to the neighbours = sum * separation / count.
        float k = c.acc.sep_n != 0u ? fdiv(c.g.separation, float(c.acc.sep_n)) : 0.0;
        vec3 t = unfix3(c.acc.sep, BOIDS_FIX_UNIT, k);
        return tutorial_separation(t, c.acc.sep_n);
    }
    vec3 t = unfix3(c.acc.sep, BOIDS_FIX_SEP, 1.0);
    return separation(t, c.acc.sep_n, c.vel, c.ms, c.mf);
}

vec3 steer_flee(inout steer_ctx c) { return flee(c.to_target, c.vel, c.ms, c.mf); }

vec3 steer_evade(inout steer_ctx c) {
    return evade(c.to_target, world.target_vel.xyz, c.vel, c.g.predict, c.ms, c.mf);
}

// Pursue the nearest prey (none: no force).
vec3 steer_hunt(inout steer_ctx c) {
    uint j = c.acc.prey_slot;
    if (j == BOIDS_NONE)
        return vec3(0.0);
    vec3 off = world_delta(c.pos, cur_pos[j].xyz);
    return pursue(off, cur_vel[j].xyz, c.vel, c.g.predict, c.ms, c.mf);
}

vec3 steer_pursue(inout steer_ctx c) {
    return pursue(c.to_target, world.target_vel.xyz, c.vel, c.g.predict, c.ms, c.mf);
}

vec3 steer_seek(inout steer_ctx c) { return seek(c.to_target, c.vel, c.ms, c.mf); }

vec3 steer_arrive(inout steer_ctx c) { return arrive(c.to_target, c.vel, c.g.arrive_radius, c.ms, c.mf); }

vec3 steer_path(inout steer_ctx c) {
    return path_follow(c.pos, c.vel, c.g.path_predict, c.g.path_ahead, c.ms, c.mf);
}

vec3 steer_flow(inout steer_ctx c) { return flow(flow_lookup(c.pos), c.vel, c.ms, c.mf); }

vec3 steer_view(inout steer_ctx c) { return view(c.acc.view, c.acc.view_n, c.vel, c.ms, c.mf); }

vec3 steer_alignment(inout steer_ctx c) {
    // Average velocity = sum * max_speed_all / count.
    float k = c.acc.ali_n != 0u ? fdiv(world.max_speed_all, float(c.acc.ali_n)) : 0.0;
    vec3 t = unfix3(c.acc.ali, BOIDS_FIX_UNIT, k);
    if (BOIDS_RULES_ARE(c.g.rules, BOIDS_RULES_TUTORIAL))
        return tutorial_alignment(t, c.acc.ali_n);
    return alignment(t, c.acc.ali_n, c.vel, c.ms, c.mf);
}

vec3 steer_cohesion(inout steer_ctx c) {
    // Centroid - position = mean offset = sum * cohesion's radius / count.
    float k = c.acc.coh_n != 0u ? fdiv(cohesion_radius(c.g), float(c.acc.coh_n)) : 0.0;
    vec3 t = unfix3(c.acc.coh, BOIDS_FIX_UNIT, k);
    if (BOIDS_RULES_ARE(c.g.rules, BOIDS_RULES_TUTORIAL))
        return tutorial_cohesion(t, c.acc.coh_n);
    return cohesion(t, c.acc.coh_n, c.vel, c.ms, c.mf);
}

// Two draws of (id, step) per step; the angles are updated.
vec3 steer_wander(inout steer_ctx c) {
    uint counter = world.step; // C: step
    float r1 = rng_signed(rng_u32(world.seed_lo, world.seed_hi, c.id, counter, BOIDS_RNG_WANDER));
    float r2 = rng_signed(rng_u32(world.seed_lo, world.seed_hi, c.id, counter, BOIDS_RNG_WANDER2));
    return wander(c.vel, c.angles, r1, r2, c.g.wander_distance, c.g.wander_radius, c.g.wander_change, WORLD_DIM, c.ms,
                  c.mf);
}

vec3 steer_speed(inout steer_ctx c) { return target_speed(c.vel, c.g.target_speed, c.mf); }

vec3 steer_queue(inout steer_ctx c) { return queue(c.acc.queue_n, c.vel, c.mf); }

vec3 steer_avoid(inout steer_ctx c) { return avoid(c.acc.avoid_id != BOIDS_NONE, c.acc.avoid_off, c.vel, c.mf); }

vec3 steer_stay(inout steer_ctx c) { return stay_on_path(c.pos, c.vel, c.g.path_predict, c.ms, c.mf); }

// Hide from the nearest hunter (none: has false, zero offset and velocity).
vec3 steer_hide(inout steer_ctx c) {
    uint j = c.acc.hunter_slot;
    bool has = j != BOIDS_NONE;
    vec3 off = vec3(0.0), hv = vec3(0.0);
    if (has) {
        off = world_delta(c.pos, cur_pos[j].xyz);
        hv = cur_vel[j].xyz;
    }
    return hide(c.pos, c.vel, has, off, hv, c.g.radius, c.g.hide_margin, c.g.predict, c.g.arrive_radius, c.ms, c.mf);
}

// Offset pursuit: the agent's place in the formation (or the group's
// leader_offset); the leader itself has no force.
vec3 steer_offset(inout steer_ctx c) {
    if (c.id == c.g.leader)
        return vec3(0.0);
    vec3 to_leader, lv;
    uint j = named_agent(c.pos, c.g.leader, to_leader, lv);
    vec3 local = formation_local(c.g, c.id, j != BOIDS_NONE && cur_group[j] == cur_group[c.i]);
    return offset_pursuit(to_leader, lv, local, WORLD_DIM, c.vel, c.g.arrive_radius, c.ms, c.mf);
}

// Follow the leader; the leader itself has no force.
vec3 steer_follow(inout steer_ctx c) {
    if (c.id == c.g.leader)
        return vec3(0.0);
    vec3 off, lv;
    named_agent(c.pos, c.g.leader, off, lv);
    return follow_leader(off, lv, c.vel, c.g.leader_behind, c.g.leader_sight, c.g.predict, c.g.arrive_radius, c.ms,
                         c.mf);
}

vec3 steer_interpose(inout steer_ctx c) {
    vec3 oa, va, ob, vb;
    named_agent(c.pos, c.g.interpose_a, oa, va);
    named_agent(c.pos, c.g.interpose_b, ob, vb);
    return interpose(oa, va, ob, vb, c.vel, c.g.arrive_radius, c.ms, c.mf);
}

vec3 steer_feelers(inout steer_ctx c) { return feelers(c.pos, c.vel, WORLD_DIM, c.g.feeler_length, c.mf); }

// C twin: src/core/steer_behaviors.c behaviors_of() followed by combine().
// The force of every enabled behaviour (the bits of beh) of agent i, in the
// list's order, combined as it comes (combine_one); updates the wander
// angles. Every enabled behaviour is evaluated, also after a priority
// winner, as in C (wander's angles).
vec3 behaviors_of(uint i, uint beh, gather acc, inout vec2 angles) {
    steer_ctx c;
    c.i = i;
    c.id = cur_id[i];
    c.g = group[cur_group[i]];
    c.acc = acc;
    c.pos = cur_pos[i].xyz;
    c.vel = cur_vel[i].xyz;
    c.ms = agent_maxspeed(c.g, c.id);
    c.mf = agent_maxforce(c.g, c.id);
    c.to_target = world_delta(c.pos, world.target_pos.xyz);
    c.angles = angles;
    vec3 sum = vec3(0.0); // C: combine()'s acc
    bool chosen = false;
#define STEER(i, NAME, name, gathers) if (BOIDS_ON(beh, i)) combine_one(c.g, i, steer_##name(c), c.mf, sum, chosen);
    BOIDS_BEHAVIORS(STEER)
#undef STEER
    angles = c.angles;
    return sum;
}

// C twin: src/core/steer_behaviors.c heading_agent().
// The heading rules of agent i (boids-angle-bug.txt): the step's turn in
// radians (accel.x; integrate adds it to the heading). Mean directions =
// the unit-heading sums / count; the most populated area is the centre of
// the densest block of this step's survey (survey.comp; none when empty).
vec3 heading_agent(uint i, gather acc) {
    boids_group_params g = group[cur_group[i]];
    vec3 align = unfix3(acc.ali, BOIDS_FIX_UNIT, acc.ali_n != 0u ? fdiv(1.0, float(acc.ali_n)) : 0.0);
    vec3 separate = unfix3(acc.sep, BOIDS_FIX_UNIT, acc.sep_n != 0u ? fdiv(1.0, float(acc.sep_n)) : 0.0);
    vec3 to_dense = vec3(0.0);
    if (BOIDS_ON(g.behaviors, BOIDS_BI_COHESION) && survey[1] > 0u)
        to_dense = world_delta(cur_pos[i].xyz, survey_target(survey[0]));
    float heading = heading_angle(cur_vel[i].xyz);
    return vec3(heading_rules(heading, g.behaviors, align, separate, to_dense, g.turn * world.dt), 0.0, 0.0);
}

// C twin: src/core/steer_behaviors.c model_agent().
// The collective-motion models of agent i (models.glsl, C: models.c): the
// new unit heading (accel; integrate moves along it at the constant speed).
// Vicsek: the unit velocities within r plus the agent's own (its fixed-point
// term); Couzin: the zones' sums, the turn limit turn * dt per step.
vec3 model_agent(uint i, gather acc) {
    boids_group_params g = group[cur_group[i]];
    vec3 vel = cur_vel[i].xyz;
    vec3 u = noise_draws(cur_id[i], world.step);
    if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_VICSEK)) {
        fix64x3 sum = acc.ali;
        fix3_unit(sum, set_mag(vel, 1.0), WORLD_DIM);
        return vicsek_heading(unfix3(sum, BOIDS_FIX_UNIT, 1.0), vel, g.noise, WORLD_DIM, u);
    }
    vec3 desired = couzin_desired(unfix3(acc.sep, BOIDS_FIX_UNIT, 1.0), acc.sep_n, unfix3(acc.ali, BOIDS_FIX_UNIT, 1.0),
                                  acc.ali_n, unfix3(acc.coh, BOIDS_FIX_UNIT, 1.0), acc.coh_n, vel);
    return couzin_heading(desired, vel, g.noise, g.turn * world.dt, WORLD_DIM, u);
}

// C twin: src/core/steer_gather.c gather_start().
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
    acc.dim = WORLD_DIM;
    acc.queue_n = 0u;
    acc.avoid_t = BOIDS_INFINITY;
    acc.avoid_id = BOIDS_NONE;
    acc.avoid_off = vec3(0.0);
    acc.vel = vel;
    return acc;
}

// C twin: src/core/steer_behaviors.c steer_finish().
// The behaviours of agent i from its sums: accel[i], the wander angles into
// next (pos.w, vel.w), neighbour statistics.
void steer_finish(uint i, boids_group_params g, vec3 heading, bool has_heading, gather acc) {
    vec2 angles = vec2(cur_pos[i].w, cur_vel[i].w);
    vec3 a;
    if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_HEADING)) {
        a = heading_agent(i, acc);
    } else if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_VICSEK) || BOIDS_RULES_ARE(g.rules, BOIDS_RULES_COUZIN)) {
        a = model_agent(i, acc);
    } else if (BOIDS_RULES_ARE(g.rules, BOIDS_RULES_CIRCLES)) {
        // The circles model's displacement (integrate moves the agent by it).
        a = circles_displacement(unfix3(acc.sep, BOIDS_FIX_UNIT, 1.0), acc.sep_n, g.repulse);
    } else {
        // The walls boundary mode is the stay-within-walls behaviour.
        uint beh = g.behaviors | (WORLD_BOUNDARY == BOIDS_BOUNDARY_WALLS ? BOIDS_BIT(BOIDS_BI_WALLS) : 0u);
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
