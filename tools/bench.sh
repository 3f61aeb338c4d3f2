#!/usr/bin/env bash
# tools/bench.sh [OUT.md]: the benchmark sweep of docs/BENCHMARKS.md, in one
# run: the CPU reference at 10^4, 10^5, 10^6 agents on 1 and 2 threads (2D
# uniform), then clustered and 3D on 2 threads. Prints Markdown (and writes
# it to OUT.md if given). Build first (tools/build.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/build/bin/boids-bench
[ -x "$bench" ] || { echo "bench: $bench not built; run tools/build.sh first" >&2; exit 3; }
out=${1:-/dev/null}
steps=${BENCH_STEPS:-20}
{
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%Y-%m-%d)"
  echo
  for args in "--threads 1" "--threads 2" "--threads 2 --distribution clustered" "--threads 2 --dim 3"; do
    # shellcheck disable=SC2086
    "$bench" --steps "$steps" $args 2>/dev/null
    echo
  done
} | tee "$out"
