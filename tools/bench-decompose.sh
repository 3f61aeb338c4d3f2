#!/usr/bin/env bash
# tools/bench-decompose.sh [BUILD]: the figures of docs/BENCHMARKS.md's
# decomposition section: boids-run --decompose on 1 and 2 ranks
# against the plain run, strong scaling (the same world on 1 and 2 ranks),
# weak scaling (twice the agents and the world on 2 ranks), 3D, the load
# balance of a flock gathered in a corner (even boxes against boxes cut by
# the counts)
# and the GPU backend on every rank. One Markdown table on stdout, a row per
# run: ms/step (rank 0's wall time per step, exchanges and gathers
# included), the halo agents and bytes each rank sends per step, the waiting
# share, the imbalance at the end and the state-hash (every row of a group
# must show the same). TRIES (default 3) runs of each, the median shown.
# Needs a boids-run built with MPI; as root mpirun gets --allow-run-as-root.
set -euo pipefail
build=${1:-build}
bin=$build/bin/boids-run
tries=${TRIES:-3}
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
export OMP_WAIT_POLICY=passive
# row LABEL RANKS ARGS...: TRIES runs; the median ms/step and the last run's figures.
row() {
  local label=$1 ranks=$2 out ms=() line hash halo bytes wait imb
  shift 2
  for ((t = 0; t < tries; t++)); do
    if [ "$ranks" = 0 ]; then
      out=$(timeout 900 "$bin" "$@" --threads 1)
      ms+=("$(sed -n 's/^summary: .*ms\/step median \([0-9.]*\).*/\1/p' <<<"$out")")
    else
      out=$(timeout 900 "${mpi[@]}" -n "$ranks" "$bin" "$@" --threads 1)
      ms+=("$(sed -n 's/^summary: .*ms\/step mean \([0-9.]*\).*/\1/p' <<<"$out")")
    fi
  done
  hash=$(tail -1 <<<"$out" | sed 's/state-hash: //')
  line=$(grep '^exchange' <<<"$out" || true)
  halo=$(sed -n 's/.*halo agents \([0-9.]*\),.*/\1/p' <<<"$line")
  bytes=$(sed -n 's/.*halo bytes \([0-9]*\), migration bytes \([0-9]*\);.*/\1 + \2/p' <<<"$line")
  wait=$(sed -n 's/.*waiting \([0-9.]*%\).*/\1/p' <<<"$line")
  imb=$(sed -n 's/.*imbalance at the end \([0-9.]*\).*/\1/p' <<<"$out")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "${ranks/#0/1 (plain)}" \
    "$(printf '%s\n' "${ms[@]}" | sort -g | sed -n "$(((tries + 1) / 2))p")" "${halo:--}" "${bytes:--}" \
    "${wait:--}" "${imb:--}" "${hash:0:16}"
}
echo "| run | ranks | ms/step (median of $tries) | halo agents / step / rank | bytes sent / step / rank (halo + migration, most of any rank) | waiting | imbalance | state-hash |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
s="--count 200000 --steps 50 --stats-every 50"
row "2D 200 k, strong" 0 $s
row "2D 200 k, strong" 1 $s --decompose 1x1
row "2D 200 k, strong" 2 $s --decompose 2x1
row "2D 200 k, strong" 2 $s --decompose 1x2
row "2D 200 k, strong" 4 $s --decompose 2x2
row "2D weak: 100 k per rank" 0 --count 100000 --steps 50 --stats-every 50
row "2D weak: 100 k per rank" 2 $s --decompose 2x1
s3="--dim 3 --count 200000 --steps 30 --stats-every 30"
row "3D 200 k" 0 $s3
row "3D 200 k" 2 $s3 --decompose 2x1x1
# A flock gathered in a corner: 100 k agents in the 200 k world, three in
# four of them in its lower-left sixteenth (awk's seeded rand: the same file
# every run), 2 ranks: even boxes leave one rank 7/8 of the agents.
init=$(mktemp --suffix=.csv)
trap 'rm -f "$init"' EXIT
awk -v n=100000 -v side=8863 'BEGIN {
  srand(7); print "id,group,px,py,vx,vy"
  for (i = 0; i < n; i++) {
    s = i % 4 == 3 ? side : side / 4; a = rand() * 6.2831853
    printf "%d,0,%.3f,%.3f,%.4f,%.4f\n", i, rand() * s, rand() * s, 2 * cos(a), 2 * sin(a)
  }
}' >"$init"
c="--init $init --world 8863x8863 --steps 40 --stats-every 40"
row "cornered 100 k" 0 $c
row "cornered 100 k, even boxes" 2 $c --decompose 2x1 --rebalance off
row "cornered 100 k, cut by counts" 2 $c --decompose 2x1
g="--count 100000 --steps 30 --stats-every 30 --backend gpu"
row "GPU (llvmpipe) 100 k" 0 $g
row "GPU (llvmpipe) 100 k" 2 $g --decompose 2x1
