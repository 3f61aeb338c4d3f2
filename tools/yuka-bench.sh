#!/usr/bin/env bash
# tools/yuka-bench.sh: boids' CPU reference against Yuka (the npm game-AI
# library) on the same flocking work, in one run. See --help.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: tools/yuka-bench.sh [--counts N,N,...] [--steps S] [--repeats R] [--yuka-budget SEC]
                           [--yuka-version V] [--bench PATH] [--seed X] [--out FILE]

Installs yuka from npm into a scratch folder (mktemp -d, removed at exit) and
runs its flocking -- Vehicle with SeparationBehavior (weight 1.5),
AlignmentBehavior (1) and CohesionBehavior (1), neighborhoodRadius 50,
maxSpeed 3, maxForce 0.05, mass 1, delta 1, updated by an EntityManager whose
spatialIndex is a CellSpacePartitioning with cells of boids' grid -- in a 2D
world of boids-bench's default size (about 20 neighbours per agent, wrapped),
and boids-bench --backend cpu --threads 1 on the same counts, R rounds of
both per count (a shared machine is noisy; Yuka's rounds within a budget).
Both run on one core (taskset -c 0 when there is taskset), 2 warm-up steps,
then S timed steps. Prints a Markdown table: N, Yuka ms/step (median of its
steps, then of its runs; the range), boids ms/step (the same), the ratio
of the medians (the range of each round's ratio), and each side's mean
neighbours and candidates per agent (the same work). Progress on stderr.

  --counts N,...      agent counts (default 10000,100000)
  --steps S           timed steps per count (default 10, as boids-bench)
  --repeats R         runs of each side per count, alternating (default 5)
  --yuka-budget SEC   Yuka's time per count (default 150): its timed steps are
                      cut to fit SEC seconds, estimated from its last warm-up
                      step (the table says when fewer than S were run), and it
                      runs again only while the next run is expected to fit
  --yuka-version V    the npm version of yuka (default: the latest)
  --bench PATH        boids-bench (default build/bin/boids-bench; tools/build.sh)
  --seed X            seed of Yuka's initial agents (default 1)
  --out FILE          also write the table to FILE
  -h, --help          this text
Exit: 0 done, 2 bad arguments, 3 node/npm missing, the install failed, or a
benchmark failed.
EOF
}

root=$(cd "$(dirname "$0")/.." && pwd)
counts=10000,100000
steps=10
repeats=5
budget=150
version=latest
bench=$root/build/bin/boids-bench
seed=1
out=

bad() {
  echo "yuka-bench: $*" >&2
  exit 2
}
need_value() { [ $# -ge 2 ] || bad "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --counts) need_value "$@"; counts=$2; shift 2 ;;
    --steps) need_value "$@"; steps=$2; shift 2 ;;
    --repeats) need_value "$@"; repeats=$2; shift 2 ;;
    --yuka-budget) need_value "$@"; budget=$2; shift 2 ;;
    --yuka-version) need_value "$@"; version=$2; shift 2 ;;
    --bench) need_value "$@"; bench=$2; shift 2 ;;
    --seed) need_value "$@"; seed=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    *) bad "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $counts =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || bad "--counts '$counts' is not a list of positive integers"
[[ $steps =~ ^[1-9][0-9]*$ ]] || bad "--steps '$steps' is not a positive integer"
[[ $repeats =~ ^[1-9][0-9]*$ ]] || bad "--repeats '$repeats' is not a positive integer"
[[ $budget =~ ^[1-9][0-9]*$ ]] || bad "--yuka-budget '$budget' is not a positive integer (seconds)"
[[ $seed =~ ^[0-9]+$ ]] || bad "--seed '$seed' is not a non-negative integer"
[[ $version =~ ^[A-Za-z0-9.^~*-]+$ ]] || bad "--yuka-version '$version' is not a version"
IFS=, read -r -a ns <<<"$counts"
for n in "${ns[@]}"; do [ "$n" -ge 8 ] || bad "--counts: $n is below 8 agents"; done

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "yuka-bench: $tool not found (apt-get install nodejs npm)" >&2; exit 3; }
done
[ -x "$bench" ] || { echo "yuka-bench: $bench not built; run tools/build.sh first" >&2; exit 3; }
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/yuka-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
echo "yuka-bench: installing yuka@$version into $scratch ..." >&2
(cd "$scratch" && npm init -y >/dev/null 2>&1 &&
  npm install --no-audit --no-fund --loglevel=error "yuka@$version" >"$scratch/npm.log" 2>&1) || {
  echo "yuka-bench: npm install yuka@$version failed: $(tail -n 3 "$scratch/npm.log" 2>/dev/null | tr '\n' ' ')" >&2
  exit 3
}
yver=$(node -p "require('$scratch/node_modules/yuka/package.json').version") || {
  echo "yuka-bench: yuka did not install into $scratch" >&2
  exit 3
}

# The Yuka side: one JSON line per count on stdout, progress on stderr.
cat >"$scratch/flock.js" <<'EOF'
'use strict';
const YUKA = require('yuka');
const [n, steps, budget, seed, side, cells] = process.argv.slice(2).map(Number);

// mulberry32: a small seeded generator for the initial agents.
let s = seed >>> 0;
function rand() {
  s = (s + 0x6d2b79f5) >>> 0;
  let t = s;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

// boids-bench's world: a square of `side`, wrapped (here centred on the
// origin, as Yuka's partition is). The wrap is the boundary; Yuka's query
// does not look across it, so agents near the edges see fewer neighbours
// (the neighbour counts printed show by how much).
const half = side / 2;
class Boid extends YUKA.Vehicle {
  update(delta) {
    super.update(delta);
    const p = this.position;
    if (p.x < -half) p.x += side; else if (p.x >= half) p.x -= side;
    if (p.y < -half) p.y += side; else if (p.y >= half) p.y -= side;
    return this;
  }
}

// Cells of boids' grid (side / cells, >= the radius) plus one empty ring of
// cells around the world: EntityManager keeps the cell index of an entity in
// a Map read as `get(entity) || -1`, so an entity in cell 0 is added to it
// again at every step; with the ring, cell 0 is never occupied.
const cell = side / cells;
const em = new YUKA.EntityManager();
em.spatialIndex = new YUKA.CellSpacePartitioning(side + 2 * cell, side + 2 * cell, 1, cells + 2, cells + 2, 1);
const boids = [];
for (let i = 0; i < n; i++) {
  const b = new Boid();
  b.maxSpeed = 3;
  b.maxForce = 0.05;
  b.mass = 1;
  b.updateNeighborhood = true;
  b.neighborhoodRadius = 50;
  b.position.set(-half + rand() * side, -half + rand() * side, 0);
  const speed = 3 * (0.5 + 0.5 * rand()), theta = 2 * Math.PI * rand();
  b.velocity.set(speed * Math.cos(theta), speed * Math.sin(theta), 0);
  b.lookAt(new YUKA.Vector3().copy(b.position).add(b.velocity)); // heading = velocity
  const sep = new YUKA.SeparationBehavior(), ali = new YUKA.AlignmentBehavior(), coh = new YUKA.CohesionBehavior();
  sep.weight = 1.5;
  ali.weight = 1;
  coh.weight = 1;
  b.steering.add(sep).add(ali).add(coh);
  em.add(b);
  boids.push(b);
}
// Put every agent in its cell once, as EntityManager would after a step.
for (const b of boids) em._indexMap.set(b, em.spatialIndex.updateEntity(b, -1));

const now = () => Number(process.hrtime.bigint()) / 1e6;
const neighbours = () => boids.reduce((a, b) => a + b.neighbors.length, 0) / n;
const say = (m) => process.stderr.write(`yuka-bench: yuka N=${n}: ${m}\n`);
let last = 0;
for (let k = 0; k < 2; k++) {
  const t0 = now();
  em.update(1);
  last = now() - t0;
  say(`warm-up step ${k + 1}/2: ${last.toFixed(1)} ms`);
}
const timed = Math.max(1, Math.min(steps, Math.floor((budget * 1e3) / last)));
if (timed < steps) say(`${timed} timed steps (not ${steps}) to fit --yuka-budget ${budget} s`);
const ms = [];
let neigh = 0;
for (let k = 0; k < timed; k++) {
  const t0 = now();
  em.update(1);
  ms.push(now() - t0);
  neigh += neighbours();
  if (k === timed - 1 || (k + 1) % 5 === 0) say(`step ${k + 1}/${timed}: ${ms[k].toFixed(1)} ms`);
}
// Candidates per agent: one more, untimed step with the query counted.
const query = em.spatialIndex.query.bind(em.spatialIndex);
let cand = 0;
em.spatialIndex.query = (p, r, out) => {
  const res = query(p, r, out);
  cand += res.length - 1; // less the agent itself, as boids counts
  return res;
};
em.update(1);
ms.sort((a, b) => a - b);
const m = ms.length % 2 ? ms[ms.length >> 1] : 0.5 * (ms[ms.length / 2 - 1] + ms[ms.length / 2]);
console.log(JSON.stringify({ n, steps: timed, ms: m, neigh: neigh / timed, cand: cand / n }));
EOF

# The world of boids-bench's default (src/core/params.c boids_params_auto_world:
# ceil(sqrt(N pi r^2 / 20)), r = 50) and its grid (cells of >= r a side).
world_side() { awk -v n="$1" 'BEGIN { s = sqrt(n * 3.14159265358979323846 * 2500 / 20); if (s < 200) s = 200; printf "%d", (s == int(s)) ? s : int(s) + 1 }'; }
grid_cells() { awk -v s="$1" 'BEGIN { printf "%d", int(s / 50) }'; }

# The median, the lowest and the highest of a list of numbers.
stats() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'; }

# Per count, R rounds of one Yuka run (while its time at this count stays
# within --yuka-budget) and one boids-bench run, alternating, so that both
# sides see the same load on a shared machine.
declare -A yruns ysteps yneigh ycand bruns bneigh bcand ratios
version_line=
for n in "${ns[@]}"; do
  side=$(world_side "$n")
  cells=$(grid_cells "$side")
  echo "yuka-bench: N=$n: world $side, ${cells}x$cells cells of $(awk -v s="$side" -v c="$cells" 'BEGIN { printf "%.4g", s / c }')" >&2
  spent=0 y='' yk=0
  for r in $(seq 1 "$repeats"); do
    if [ "$yk" -eq 0 ] || [ $((spent * (yk + 1) / yk)) -le "$budget" ]; then
      echo "yuka-bench: yuka N=$n (run $r/$repeats) ..." >&2
      t0=$SECONDS
      line=$("${pin[@]}" node --max-old-space-size=8192 "$scratch/flock.js" "$n" "$steps" "$budget" "$seed" "$side" "$cells") || {
        echo "yuka-bench: the Yuka run at N=$n failed" >&2
        exit 3
      }
      spent=$((spent + SECONDS - t0)) yk=$((yk + 1))
      read -r y "ysteps[$n]" "yneigh[$n]" "ycand[$n]" < <(node -e 'const r = JSON.parse(process.argv[1]); console.log(r.ms, r.steps, r.neigh, r.cand)' "$line")
      yruns[$n]="${yruns[$n]:-} $y"
    fi
    echo "yuka-bench: boids-bench --backend cpu --threads 1 --counts $n --steps $steps (run $r/$repeats) ..." >&2
    bout=$("${pin[@]}" "$bench" --backend cpu --threads 1 --counts "$n" --steps "$steps" --quiet) || {
      echo "yuka-bench: boids-bench failed" >&2
      exit 3
    }
    version_line=$(head -n1 <<<"$bout")
    # Columns: N, key, count, scan, scatter, steer, integrate, bodies, total, neigh/ag, cand/s, ...
    row=$(grep -E "^\| +$n \|" <<<"$bout") || { echo "yuka-bench: no boids-bench row for N=$n" >&2; exit 3; }
    IFS='|' read -r _ _ _ _ _ _ steer _ _ total neigh cands _ <<<"$row"
    bruns[$n]="${bruns[$n]:-} ${total// /}"
    bneigh[$n]=${neigh// /}
    bcand[$n]=$(awk -v c="$cands" -v s="$steer" -v n="$n" 'BEGIN { printf "%.1f", c * s * 1e-3 / n }')
    ratios[$n]="${ratios[$n]:-} $(awk -v y="$y" -v b="${total// /}" 'BEGIN { print y / b }')" # with Yuka's last run
  done
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
{
  echo "Yuka $yver (node $(node --version)) against $(awk '{print $1, $2}' <<<"$version_line" | tr -d :) --backend cpu --threads 1; 2D, uniform, ~20 neighbours, $steps timed steps after 2 warm-up (Yuka: fewer where marked *), one core${pin:+ (taskset -c 0)}; medians of each side's runs, alternating; $cpu, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d)"
  echo
  echo "| N | Yuka ms/step (runs) | boids ms/step, 1 thread (runs) | ratio (range of pairs) | neighbours/agent Yuka / boids | candidates/agent Yuka / boids |"
  echo "|---|---|---|---|---|---|"
  for n in "${ns[@]}"; do
    read -r ymed ylo yhi < <(stats "${yruns[$n]}")
    read -r bmed blo bhi < <(stats "${bruns[$n]}")
    read -r _ rlo rhi < <(stats "${ratios[$n]}")
    yk=$(wc -w <<<"${yruns[$n]}") bk=$(wc -w <<<"${bruns[$n]}")
    mark=
    [ "${ysteps[$n]}" -lt "$steps" ] && mark=", ${ysteps[$n]} steps*"
    awk -v n="$n" -v y="$ymed" -v ylo="$ylo" -v yhi="$yhi" -v yk="$yk" -v b="$bmed" -v blo="$blo" -v bhi="$bhi" -v bk="$bk" \
      -v rlo="$rlo" -v rhi="$rhi" -v yn="${yneigh[$n]}" -v bn="${bneigh[$n]}" -v yc="${ycand[$n]}" -v bc="${bcand[$n]}" -v mark="$mark" \
      'BEGIN { printf "| %d | %.1f (%d: %.1f-%.1f%s) | %.2f (%d: %.2f-%.2f) | **%.0fx** (%.0f-%.0fx) | %.1f / %.1f | %.1f / %.1f |\n",
               n, y, yk, ylo, yhi, mark, b, bk, blo, bhi, y / b, rlo, rhi, yn, bn, yc, bc }'
  done
} | if [ -n "$out" ]; then tee "$out"; else cat; fi
