// shaders/scan.comp: stage 3, exclusive prefix sum of one level. Each work
// group scans BOIDS_SCAN_BLOCK elements in shared memory (up-sweep /
// down-sweep, Blelloch 1990) and writes its total to scan_sums; the host
// scans the totals with the next level and adds them back with
// scan_add.comp. C twin: boids_sim_build_grid (scan loop).
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

layout(std430, binding = BOIDS_SSBO_SCAN_IN) buffer ScanIn { uint scan_in[]; };
layout(std430, binding = BOIDS_SSBO_SCAN_OUT) buffer ScanOut { uint scan_out[]; };
layout(std430, binding = BOIDS_SSBO_SCAN_SUMS) buffer ScanSums { uint scan_sums[]; };

shared uint tile[BOIDS_SCAN_BLOCK];

void main() {
    uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Groups past the last block (a dispatch split over y rounds up) do
    // nothing; the test is uniform over the group, so no barrier is skipped
    // by only some of its invocations.
    if (block >= (u_count + BOIDS_SCAN_BLOCK - 1u) / BOIDS_SCAN_BLOCK)
        return;
    uint base = block * BOIDS_SCAN_BLOCK, t = gl_LocalInvocationID.x;
    uint a = base + 2u * t, b = a + 1u;
    tile[2u * t] = a < u_count ? scan_in[a] : 0u;
    tile[2u * t + 1u] = b < u_count ? scan_in[b] : 0u;
    // Up-sweep: partial sums in a balanced tree.
    uint offset = 1u;
    for (uint d = BOIDS_SCAN_BLOCK >> 1; d > 0u; d >>= 1) {
        barrier();
        if (t < d) {
            uint ai = offset * (2u * t + 1u) - 1u, bi = offset * (2u * t + 2u) - 1u;
            tile[bi] += tile[ai];
        }
        offset <<= 1;
    }
    if (t == 0u) {
        scan_sums[block] = tile[BOIDS_SCAN_BLOCK - 1u];
        tile[BOIDS_SCAN_BLOCK - 1u] = 0u;
    }
    // Down-sweep: exclusive prefix sums.
    for (uint d = 1u; d < BOIDS_SCAN_BLOCK; d <<= 1) {
        offset >>= 1;
        barrier();
        if (t < d) {
            uint ai = offset * (2u * t + 1u) - 1u, bi = offset * (2u * t + 2u) - 1u;
            uint v = tile[ai];
            tile[ai] = tile[bi];
            tile[bi] += v;
        }
    }
    barrier();
    if (a < u_count)
        scan_out[a] = tile[2u * t];
    if (b < u_count)
        scan_out[b] = tile[2u * t + 1u];
}
