// src/core/leader.c: behaviours that steer by another agent, named by id
// (the group's leader, or the world's target): offset pursuit with its
// formations (Buckland, "Programming Game AI by Example", OffsetPursuit),
// leader following (Reynolds 1999; the point behind the leader, out of its
// way ahead) and interpose (Buckland, Interpose). GLSL twins:
// shaders/behaviors.glsl leader_frame(), formation_place(),
// formation_member(), formation_local(), offset_pursuit(), follow_leader(), interpose().
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// The leader's frame: ahead = its heading (x when it stands still); in 2D
// side = ahead turned a quarter to the left and up = z; in 3D side = z cross
// ahead, normalised (y when ahead is along z), and up = ahead cross side.
void boids_leader_frame(const float leader_vel[3], uint32_t dim, float ahead[3], float side[3], float up[3]) {
    boids_set_mag(leader_vel, 1.0f, ahead);
    if (glm_vec3_norm2(ahead) == 0.0f) {
        ahead[0] = 1.0f;
        ahead[1] = ahead[2] = 0.0f;
    }
    if (dim == 2) {
        side[0] = -ahead[1];
        side[1] = ahead[0];
        side[2] = 0.0f;
        up[0] = up[1] = 0.0f;
        up[2] = 1.0f;
        return;
    }
    float z[3] = {0.0f, 0.0f, 1.0f}, s[3];
    glm_vec3_cross(z, ahead, s);
    if (glm_vec3_norm2(s) == 0.0f) {
        s[0] = 0.0f;
        s[1] = 1.0f;
        s[2] = 0.0f;
    }
    boids_set_mag(s, 1.0f, side);
    glm_vec3_cross(ahead, side, up);
}

// Member `slot` of `members` in formation `formation` (BOIDS_FORMATION_*,
// shared.h) with spacing s, in the leader's frame (x ahead, y left, z up);
// NONE: `offset` itself.
void boids_formation_place(uint32_t formation, uint32_t slot, uint32_t members, float spacing, const float offset[3],
                           float dest[3]) {
    float j = (float)(slot / 2u + 1u), side = (slot & 1u) ? -1.0f : 1.0f;
    dest[0] = dest[1] = dest[2] = 0.0f;
    switch (formation) {
    case BOIDS_FORMATION_LINE:
        dest[1] = side * j * spacing;
        break;
    case BOIDS_FORMATION_COLUMN:
        dest[0] = -(float)(slot + 1u) * spacing;
        break;
    case BOIDS_FORMATION_V:
        dest[0] = -j * spacing;
        dest[1] = side * j * spacing;
        break;
    case BOIDS_FORMATION_RING: {
        float m = (float)(members > 0u ? members : 1u);
        float r = fmaxf(spacing, m * spacing / BOIDS_TWO_PI);
        float a = BOIDS_TWO_PI * (float)slot / m;
        dest[0] = r * boids_cosf(a);
        dest[1] = r * boids_sinf(a);
        break;
    }
    default:
        glm_vec3_copy((float *)offset, dest);
    }
}

// The place of agent `id` of group g in its formation: its rank in the group
// ((id - rank_base) / rank_stride), one less after the leader's when the
// leader is of the same group (leader_rank, or UINT32_MAX), so the members
// fill the places 0..members-1; *members: the group's agents but the leader.
uint32_t boids_formation_member(const boids_group_params *g, uint32_t id, uint32_t leader_rank, uint32_t *members) {
    uint32_t stride = g->rank_stride ? g->rank_stride : 1u;
    uint32_t rank = id >= g->rank_base ? (id - g->rank_base) / stride : 0u;
    uint32_t m = g->rank_count;
    if (leader_rank != UINT32_MAX) {
        m = m > 0u ? m - 1u : 0u;
        if (rank > leader_rank)
            rank--;
    }
    *members = m;
    return rank;
}

// Agent id's place in its group's formation, in the leader's frame: its
// rank (after the leader's, one less when the leader is of the same group),
// the formation's place of it, or leader_offset.
void boids_formation_local(const boids_group_params *g, uint32_t id, bool leader_in_group, float local[3]) {
    uint32_t leader_rank = UINT32_MAX, members;
    if (leader_in_group)
        leader_rank = boids_formation_member(g, g->leader, UINT32_MAX, &members);
    uint32_t slot = boids_formation_member(g, id, leader_rank, &members);
    boids_formation_place(g->formation, slot, members, g->formation_spacing, g->leader_offset, local);
}

// Offset pursuit: the place `local` in the leader's frame, relative to the
// agent (to_leader + ahead x + side y + up z; in 2D without up: a 2D agent
// cannot reach z, and a z in its force would only slow it); look ahead the time to get
// there at the agent's top speed plus the leader's, t = |to place| /
// (maxspeed + |leader_vel|), and arrive at the place the leader will have
// moved it to, to place + leader_vel t.
void boids_offset_pursuit(const float to_leader[3], const float leader_vel[3], const float local[3], uint32_t dim,
                          const float vel[3], float arrive_radius, float maxspeed, float maxforce, float dest[3]) {
    float ahead[3], side[3], up[3], place[3];
    boids_leader_frame(leader_vel, dim, ahead, side, up);
    float z = dim == 2 ? 0.0f : local[2];
    for (int a = 0; a < 3; a++)
        place[a] = to_leader[a] + ahead[a] * local[0] + side[a] * local[1] + up[a] * z;
    float t = glm_vec3_norm(place) / (maxspeed + glm_vec3_norm((float *)leader_vel));
    float target[3];
    for (int a = 0; a < 3; a++)
        target[a] = place[a] + leader_vel[a] * t;
    boids_arrive(target, vel, arrive_radius, maxspeed, maxforce, dest);
}

// Leader following: arrive at the point `behind` behind the leader (along
// its heading; the leader itself when it stands still); when the agent is
// within `sight` of the leader or of the point as far ahead of it, also
// evade the leader (out of its way). The sum limited to maxforce.
void boids_follow_leader(const float to_leader[3], const float leader_vel[3], const float vel[3], float behind,
                         float sight, float predict, float arrive_radius, float maxspeed, float maxforce,
                         float dest[3]) {
    float h[3], back[3], front[3];
    boids_set_mag(leader_vel, behind, h);
    for (int a = 0; a < 3; a++) {
        back[a] = to_leader[a] - h[a];
        front[a] = to_leader[a] + h[a];
    }
    boids_arrive(back, vel, arrive_radius, maxspeed, maxforce, dest);
    float s2 = sight * sight;
    if (glm_vec3_norm2(front) <= s2 || glm_vec3_norm2((float *)to_leader) <= s2) {
        float away[3];
        boids_evade(to_leader, leader_vel, vel, predict, maxspeed, maxforce, away);
        glm_vec3_add(dest, away, dest);
        boids_limit(dest, maxforce);
    }
}

// Interpose: the midpoint of a and b (relative to the agent) now; the time
// to reach it at maxspeed, t = |mid| / maxspeed; arrive at the midpoint of
// where a and b will be then (each + its velocity t).
void boids_interpose(const float to_a[3], const float va[3], const float to_b[3], const float vb[3], const float vel[3],
                     float arrive_radius, float maxspeed, float maxforce, float dest[3]) {
    float mid[3];
    for (int a = 0; a < 3; a++)
        mid[a] = (to_a[a] + to_b[a]) * 0.5f;
    float t = glm_vec3_norm(mid) / maxspeed;
    for (int a = 0; a < 3; a++) {
        float pa = to_a[a] + va[a] * t, pb = to_b[a] + vb[a] * t;
        mid[a] = (pa + pb) * 0.5f;
    }
    boids_arrive(mid, vel, arrive_radius, maxspeed, maxforce, dest);
}
