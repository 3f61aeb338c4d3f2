// shaders/scan_add.comp: adds each block's scanned total (the next level's
// exclusive scan of the block sums) to the elements of that block.
layout(local_size_x = BOIDS_WORKGROUP_SIZE) in;

layout(std430, binding = BOIDS_SSBO_SCAN_OUT) buffer ScanOut { uint scan_out[]; };
layout(std430, binding = BOIDS_SSBO_SCAN_SUMS) buffer ScanSums { uint scan_sums[]; };

void main() {
    uint i = global_index();
    if (i >= u_count)
        return;
    scan_out[i] += scan_sums[i / BOIDS_SCAN_BLOCK];
}
