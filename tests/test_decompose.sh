#!/usr/bin/env bash
# tests/test_decompose.sh BUILD [MPIRUN]: boids-run --decompose.
# The state-hash after 200 steps of runs split into boxes over
# R = 1 (an MPI singleton, no mpirun), 2, 3 and 4 ranks (--oversubscribe)
# and several decompositions of the same run equals the one process's, in 2D
# and 3D, on every boundary mode, with many behaviours and several groups,
# named agents (offset, follow, interpose; the leaders change rank during the
# runs), the heading rules' survey and scheduled scenarios; with boxes cut
# by the agents' counts and cut anew mid-run (and for a new grid of
# grid_fine auto: then the final statistics too); the exchange really
# happens (halo agents and migrations counted); --save and --export-csv
# write on rank 0 what one process writes (a snapshot but its slot order,
# bodies' joints included; the CSV byte for byte), a snapshot written by R
# ranks continues on any R' with the one process's state-hash, a failed
# write is one line and exit 3 with the old file kept; every bad input is
# one line on rank 0 and exit 2, and writes nothing. Every run is bounded
# by timeout.
set -euo pipefail
build=$1 mpirun=${2:-mpirun}
bin=$build/bin/boids-run
tmp=$build/tests/tmp/decompose
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
mpi() { timeout 60 "$mpirun" --allow-run-as-root --oversubscribe -n "$@"; }
hash_of() { timeout 60 "$bin" "$@" --quiet | tail -1; }
# same "ARGS" R:DECOMP...: each decomposition's state-hash is the plain run's
# ($extra: more flags of the decomposed runs only, as --backend gpu).
same() {
  local args=$1 ref got r dec
  shift
  # shellcheck disable=SC2086 # args holds several words
  ref=$(hash_of $args)
  [[ $ref == state-hash:* ]] || fail "the plain run of '$args': $ref"
  for rd in "$@"; do
    r=${rd%%:*} dec=${rd#*:}
    if [ "$r" = 1 ]; then
      # shellcheck disable=SC2086
      got=$(timeout 60 "$bin" $args ${extra:-} --quiet --decompose "$dec" | tail -1)
    else
      # shellcheck disable=SC2086
      got=$(mpi "$r" "$bin" $args ${extra:-} --quiet --threads 1 --decompose "$dec" | tail -1)
    fi
    [ "$got" = "$ref" ] || fail "'$args' on $r ranks as $dec: '$got', one process: '$ref'"
  done
  echo "ok: $args ($*)"
}

same "--count 1000 --steps 200" 1:1x1 2:2x1 3:1x3 4:1x4 4:4x1 4:2x2
same "--dim 3 --count 800 --steps 200" 4:2x2x1 4:1x1x4 3:3x1x1 2:1x2x1
same "--count 700 --steps 200 --boundary walls --behaviors separation,alignment,cohesion,wander,seek,stay,speed,view" \
  2:1x2 4:2x2
same "--count 600 --steps 200 --scenario predators-prey" 3:3x1 4:2x2
same "--dim 3 --count 800 --steps 200 --boundary bounce --behaviors flocking,wander,arrive" 4:2x1x2
same "--count 600 --steps 200 --boundary margin" 4:2x2
same "--count 500 --steps 200 --scenario avoid" 4:2x2
same "--count 500 --steps 200 --scenario flowfield-noise" 3:1x3
# The K nearest (ties: the smaller id) are found in the same c-1..c+1 block.
same "--dim 3 --count 1000 --steps 200 --neighbors-max 5 --boundary walls" 4:2x1x2
# Named agents: the rank that owns each hands its state to all before the
# steer. Each leader below changes rank at least once in its runs (id 7 twice
# on 4x1, interpose's 5 four times on 1x1x4).
same "--count 600 --steps 200 --behaviors flocking,follow --leader 7" 2:2x1 4:4x1 3:1x3
same "--steps 200 --scenario follow-leader" 2:2x1 4:1x4
same "--steps 200 --scenario formations" 4:2x2 3:3x1
same "--dim 3 --count 800 --steps 200 --behaviors separation,offset --leader 3 --formation v" 4:2x1x2 2:1x2x1
same "--dim 3 --count 800 --steps 200 --boundary walls --behaviors flocking,wander,interpose --interpose 5,9" \
  4:1x1x4 3:3x1x1
# (walls; an agent and the circling target: a schedule too)
same "--steps 200 --scenario interpose" 2:1x2 4:2x2
# The heading rules' survey (2D only): each rank's densest block of its own
# cells, the ranks' best the world's.
same "--count 500 --steps 200 --scenario angle-bug" 2:2x1 3:3x1 4:2x2
same "--count 500 --steps 200 --scenario angle-bug --boundary walls" 4:4x1 2:1x2
# Scheduled scenarios: the target and the weights of each step on every rank.
same "--count 200 --steps 200 --scenario pursue-evade" 2:2x1 4:2x2
same "--count 600 --steps 200 --scenario flocking-varying" 3:1x3 4:2x2
same "--dim 3 --count 800 --steps 200 --scenario pursue-circle" 4:2x1x2 2:1x1x2

# A torus of 2 or 3 cells along x cut in two: every agent goes once to each
# rank whose halo holds its cell, however thin the boxes.
same "--count 500 --steps 200 --world 120x600" 2:2x1
same "--count 500 --steps 200 --world 150x600" 2:2x1 3:3x1
# The finer grid: boxes of fine cells, a halo M cells deep.
same "--count 1500 --steps 200 --grid-fine 3" 4:2x2 3:1x3
same "--dim 3 --count 1000 --steps 200 --grid-fine 2 --boundary walls --bodies chain" 4:2x1x2

# full "ARGS" R DECOMP REBALANCE: the final statistics (but ms/step), the
# pairs and the state-hash equal the plain run's; the boxes were cut anew
# (by counts, or for a new grid) at least once mid-run.
full() {
  local args=$1 r=$2 dec=$3 rb=$4 plain got line cuts
  # shellcheck disable=SC2086
  plain=$(timeout 120 "$bin" $args | grep -E '^(pairs|final|state-hash)' | sed 's/ms\/step.*//')
  # shellcheck disable=SC2086
  got=$(mpi "$r" "$bin" $args ${extra:-} --threads 1 --decompose "$dec" --rebalance "$rb")
  line=$(grep '^balance:' <<<"$got") || fail "'$args' as $dec: no balance line: $got"
  cuts=$(sed 's/.* cut anew \([0-9]*\) times.*/\1/' <<<"$line")
  [ "$cuts" -ge 1 ] || fail "'$args' as $dec --rebalance $rb: the boxes were never cut anew: $line"
  [ "$(grep -E '^(pairs|final|state-hash)' <<<"$got" | sed 's/ms\/step.*//')" = "$plain" ] \
    || fail "'$args' as $dec --rebalance $rb: $(grep -E '^(final|state-hash)' <<<"$got") / one process: $plain"
  echo "ok: $args on $r ranks as $dec --rebalance $rb: $line"
}
# A clustered start that spreads: cut by counts, then anew in the middle.
full "--scenario flocking --count 1500 --steps 200" 4 2x2 50
full "--scenario flocking --count 1500 --steps 200" 3 1x3 20:1.0
full "--scenario predators-prey --count 1200 --steps 200 --boundary walls" 4 4x1 25:1.0
full "--dim 3 --scenario flocking --count 2000 --steps 200 --boundary bounce" 4 2x1x2 40:1.0
# grid_fine auto: the factor changes mid-run (the boxes are cut on the new grid).
full "--scenario flocking --count 1500 --steps 300 --grid-fine auto" 4 2x2 off
full "--scenario flocking --count 1500 --steps 200 --grid-fine auto" 2 2x1 10:1.0

# The GPU backend on every rank (llvmpipe here, an EGL context per rank):
# each step's own and halo agents stepped on the rank's GPU and read back;
# the GPU is the CPU reference bit for bit, so the state-hash is the one
# CPU process's, whatever the kernel.
extra="--backend gpu" same "--count 1000 --steps 200" 1:1x1 2:2x1 4:2x2
extra="--backend gpu" same "--dim 3 --count 800 --steps 200 --boundary walls" 4:2x1x2 3:1x3x1
extra="--backend gpu --kernel morton" same "--count 600 --steps 200 --scenario predators-prey --boundary bounce" 3:3x1
extra="--backend gpu --kernel morton" same "--count 1000 --steps 200 --grid-fine 2 --boundary margin" 2:1x2
extra="--backend gpu --kernel morton" same "--count 600 --steps 200 --scenario flocking-varying" 2:2x1
extra="--backend gpu" full "--scenario flocking --count 1500 --steps 200 --grid-fine auto --stats-every 25" 2 2x1 10:1.0
# A rank whose agents outgrow its GPU engine opens a larger one (room for
# 100 agents at first here).
got=$(BOIDS_DEBUG=decompose-gpu-capacity=100 timeout 120 "$mpirun" --allow-run-as-root --oversubscribe \
  -x BOIDS_DEBUG -n 2 "$bin" --count 1500 --steps 100 --scenario flocking --threads 1 \
  --backend gpu --decompose 2x1 --rebalance 20:1.0)
ref=$(hash_of --count 1500 --steps 100 --scenario flocking)
grep -q '^gpu: .*rank 0 opened [2-9] GPU engines' <<<"$got" || fail "no larger GPU engine: $(grep '^gpu' <<<"$got")"
[ "$(tail -1 <<<"$got")" = "$ref" ] || fail "GPU engines grown: $(tail -1 <<<"$got"), one process: $ref"
echo "ok: $(grep '^gpu:' <<<"$got")"

# Faster than the halo's reach (dt 20: an agent crosses narrow boxes in a
# step): the agents beyond the neighbouring boxes go to their owners over
# all ranks, the state-hash is the one process's.
args="--count 2000 --steps 100 --dt 20 --scenario flocking"
# shellcheck disable=SC2086
ref=$(hash_of $args)
# shellcheck disable=SC2086
got=$(mpi 4 "$bin" $args --threads 1 --decompose 4x1)
grep -q '^strays: in [1-9][0-9]* steps' <<<"$got" || fail "dt 20 on 4x1: no strays line: $(tail -3 <<<"$got")"
[ "$(tail -1 <<<"$got")" = "$ref" ] || fail "dt 20 on 4x1: $(tail -1 <<<"$got"), one process: $ref"
echo "ok: $(grep '^strays:' <<<"$got" | cut -c1-60)... ($ref)"
# --rebalance 0: cut by the work once, never again.
got=$(mpi 2 "$bin" --scenario flocking --count 1000 --steps 60 --threads 1 --decompose 2x1 --rebalance 0:1.0)
grep -q '^balance: boxes cut by the work per cell at the start (--rebalance 0), cut anew 0 times' <<<"$got" \
  || fail "--rebalance 0: $(grep '^balance' <<<"$got")"
echo "ok: --rebalance 0 cuts once"

# interrupted COUNT [FLAGS...]: SIGTERM to one rank alone, after 3 s of a
# long run: every rank stops after the same step, exit 143, rank 0 writes
# the outputs, which are a plain run's of that many steps (the neighbour
# counts too: on the GPU, off a statistics step, the last step's are read
# back all the same).
interrupted() {
  local count=$1 job rank1 rc=0 steps
  shift
  rm -f "$tmp/int.csv"
  timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -n 2 "$bin" --count "$count" --steps 100000 "$@" \
    --threads 1 --decompose 2x1 --export-csv "$tmp/int.csv" >"$tmp/int.out" 2>"$tmp/int.err" &
  job=$!
  sleep 3
  # The ranks' command lines start with the binary (mpirun's and timeout's with their own names).
  rank1=$(pgrep -f -- "^$bin --count $count --steps 100000 .*--export-csv $tmp/int.csv" | sort -n | tail -1)
  [ -n "$rank1" ] || fail "SIGTERM to rank 1 ($*): no rank found"
  kill -TERM "$rank1"
  wait "$job" || rc=$?
  [ "$rc" = 143 ] || fail "SIGTERM to rank 1 ($*): status $rc, expected 143: $(head -3 "$tmp/int.err")"
  steps=$(sed -n 's/^boids-run: interrupted after \([0-9]*\) steps.*/\1/p' "$tmp/int.err")
  [ -n "$steps" ] || fail "SIGTERM to rank 1 ($*): no interrupted line: $(head -3 "$tmp/int.err")"
  timeout 120 "$bin" --count "$count" --steps "$steps" --threads 1 --quiet --export-csv "$tmp/int-plain.csv" >/dev/null
  cmp "$tmp/int-plain.csv" "$tmp/int.csv" || fail "interrupted after $steps steps ($*): the CSV is not the plain run's"
  echo "ok: SIGTERM to rank 1 ($*): every rank stopped after step $steps (status 143), the CSV a plain run's"
}
interrupted 20000
interrupted 5000 --backend gpu --stats-every 1000

# SIGTERM inside a step far too long to wait for (2 million agents, some
# 10 000 neighbours each: over a minute a step on two cores): every rank cuts
# its steer short and the ranks agree to undo the step. The job ends within
# 30 s of the signal, says so, and its state is the initial one, as a plain
# run cut short in its first step leaves it (the same hash, the same CSV:
# neighbour counts zero).
cut_flags=(--count 2000000 --world 1000x1000 --steps 3 --threads 1)
cut() { # cut TAG COMMAND...: runs it, SIGTERM to its boids-run processes 4 s on; the seconds it took after it
  local tag=$1 job t0 rc=0
  shift
  timeout 300 "$@" --export-csv "$tmp/cut-$tag.csv" >"$tmp/cut-$tag.out" 2>"$tmp/cut-$tag.err" &
  job=$!
  sleep 4
  t0=$(date +%s)
  pkill -TERM -f -- "^$bin ${cut_flags[*]}.*--export-csv $tmp/cut-$tag.csv" || fail "cut $tag: no boids-run found"
  wait "$job" || rc=$?
  [ "$rc" = 143 ] || fail "cut $tag: status $rc, expected 143: $(head -3 "$tmp/cut-$tag.err")"
  [ $(($(date +%s) - t0)) -lt 30 ] || fail "cut $tag: $(($(date +%s) - t0)) s after the signal"
  grep -q '^boids-run: interrupted after 0 steps .*the next one was cut short' "$tmp/cut-$tag.err" \
    || fail "cut $tag: no cut-short line: $(head -3 "$tmp/cut-$tag.err")"
}
cut plain "$bin" "${cut_flags[@]}"
cut ranks "$mpirun" --allow-run-as-root --oversubscribe -n 2 "$bin" "${cut_flags[@]}" --decompose 2x1
[ "$(grep state-hash "$tmp/cut-plain.out")" = "$(grep state-hash "$tmp/cut-ranks.out")" ] \
  || fail "cut: $(grep state-hash "$tmp/cut-ranks.out") over 2 ranks, $(grep state-hash "$tmp/cut-plain.out") in one process"
cmp "$tmp/cut-plain.csv" "$tmp/cut-ranks.csv" || fail "cut: the CSV over 2 ranks is not the plain run's"
echo "ok: SIGTERM inside a long step: cut short on every rank, the initial state kept ($(grep state-hash "$tmp/cut-ranks.out"))"

# The boxes where a run ended ('box R:' lines, the cells and the world's
# extent of each rank's box: they tile the grid) and tools/plot_decompose.py's
# picture of them over the exported agents; a bad input is one line, exit 2.
mpi 4 "$bin" --scenario flocking --count 1500 --steps 50 --threads 1 --decompose 2x2 \
  --export-csv "$tmp/boxes.csv" >"$tmp/boxes.txt"
[ "$(grep -c '^box [0-3]: cells x ' "$tmp/boxes.txt")" = 4 ] || fail "no 4 box lines: $(cat "$tmp/boxes.txt")"
cells=$(awk '/^box / { split($5, x, /\.\./); split($7, y, /\.\./); s += (x[2] - x[1]) * (y[2] - y[1]) }
  END { print s }' "$tmp/boxes.txt")
total=$(sed -n 's/^box 0: .* of \([0-9]*\)x\([0-9]*\)x1;.*/\1 \2/p' "$tmp/boxes.txt" | awk '{ print $1 * $2 }')
[ "$cells" = "$total" ] || fail "the boxes hold $cells cells of $total"
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  rm -f "$tmp/boxes.png"
  # Every text drawn inside the figure (tests/plot_text_inside.py), a long --title wrapped.
  /usr/bin/python3 "$(dirname "$0")/plot_text_inside.py" "$(dirname "$0")/../tools/plot_decompose.py" \
    "$tmp/boxes.txt" "$tmp/boxes.csv" --out "$tmp/boxes.png" \
    --title "$(printf '4 boxes over 1500 agents, a title longer than the figure is wide %.0s' 1 2 3)" \
    || fail "plot_decompose.py"
  [ -s "$tmp/boxes.png" ] || fail "plot_decompose.py wrote no picture"
  rc=0
  /usr/bin/python3 "$(dirname "$0")/../tools/plot_decompose.py" "$tmp/boxes.csv" "$tmp/boxes.csv" \
    --out "$tmp/x.png" 2>"$tmp/plot.err" || rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/plot.err")" = 1 ] || fail "plot of no box lines: status $rc: $(cat "$tmp/plot.err")"
  echo "ok: 4 boxes tile the $total cells; plot_decompose.py drew them"
else
  fail "/usr/bin/python3 with matplotlib (python3-matplotlib, tools/deps.sh) is needed for plot_decompose.py"
fi

# From a snapshot (--load): the step counter and the state of a saved run.
timeout 60 "$bin" --count 800 --steps 100 --behaviors flocking,wander --save "$tmp/half.boids" --quiet >/dev/null
same "--load $tmp/half.boids --steps 100" 2:2x1 4:2x2
# A scheduled scenario's snapshot: its weights from the loaded step on.
timeout 60 "$bin" --scenario flocking-varying --count 600 --steps 100 --save "$tmp/varying.boids" --quiet >/dev/null
same "--load $tmp/varying.boids --steps 100" 2:2x1 3:1x3

# ordr FILE: the byte range of a snapshot's ORDR chunk, payload and CRC ("START END",
# END exclusive), walking the chunks (tag, u64 length, payload, CRC) from offset 12.
ordr() {
  local off=12 size tag len
  size=$(stat -c %s "$1")
  while [ "$off" -lt "$size" ]; do
    tag=$(dd if="$1" bs=1 skip="$off" count=4 status=none)
    len=$(od -An -tu8 -j $((off + 4)) -N8 "$1" | tr -d ' ')
    [ "$tag" = ORDR ] && { echo "$((off + 12)) $((off + 16 + len))"; return; }
    off=$((off + 16 + len))
  done
  fail "$1: no ORDR chunk"
}
# same_but_order PLAIN DECOMPOSED: the two snapshots hold the same bytes but
# for the ORDR chunk's payload and CRC. That chunk is the slot order of cur:
# a plain run's is the history of its grid's stable sorts, which no rank
# has; a decomposed run's is the cell order of the final state (the
# engine's set_state builds its grid). Nothing a step computes depends on
# it (the loads below continue with the one process's state-hash).
same_but_order() {
  local a b
  read -r a b < <(ordr "$1")
  [ "$(stat -c %s "$1")" = "$(stat -c %s "$2")" ] || fail "$1 and $2 differ in size"
  [ "$(ordr "$2")" = "$a $b" ] || fail "$1 and $2: ORDR at $a..$b and at $(ordr "$2")"
  cmp -n "$a" "$1" "$2" >/dev/null || fail "$1 and $2 differ before ORDR: $(cmp -n "$a" "$1" "$2")"
  cmp -i "$b" "$1" "$2" >/dev/null || fail "$1 and $2 differ after ORDR: $(cmp -i "$b" "$1" "$2")"
}

# outputs "ARGS" R:DECOMP...: --save and --export-csv of each decomposition
# (rank 0 writes the gathered state) against the plain run's files; the
# snapshot is the same bytes whatever the ranks. $extra: more flags of the
# decomposed runs only.
outputs() {
  local args=$1 ref r dec got
  shift
  # shellcheck disable=SC2086 # args holds several words
  ref=$(timeout 60 "$bin" $args --quiet --save "$tmp/plain.boids" --export-csv "$tmp/plain.csv")
  rm -f "$tmp/first.boids"
  for rd in "$@"; do
    r=${rd%%:*} dec=${rd#*:}
    rm -f "$tmp/dec.boids" "$tmp/dec.csv"
    # shellcheck disable=SC2086
    got=$(mpi "$r" "$bin" $args ${extra:-} --quiet --threads 1 --decompose "$dec" --save "$tmp/dec.boids" \
      --export-csv "$tmp/dec.csv")
    [ "$got" = "$ref" ] || fail "'$args' with outputs on $r ranks as $dec: '$got', one process: '$ref'"
    cmp "$tmp/plain.csv" "$tmp/dec.csv" || fail "'$args' on $r ranks as $dec: the CSV differs"
    same_but_order "$tmp/plain.boids" "$tmp/dec.boids"
    [ -e "$tmp/first.boids" ] || cp "$tmp/dec.boids" "$tmp/first.boids"
    cmp "$tmp/first.boids" "$tmp/dec.boids" || fail "'$args': the snapshots of $1 and $rd differ"
  done
  echo "ok: --save and --export-csv of $args ($*)"
}
outputs "--count 1000 --steps 200" 2:2x1 4:2x2
outputs "--dim 3 --count 800 --steps 200 --boundary walls --scenario predators-prey" 4:2x1x2
# Bodies: the joints migrate with their agents (and are cut anew with them):
# the snapshot's joints are the one process's bits.
extra="--rebalance 20:1.0" outputs "--count 800 --steps 200 --bodies fish" 3:3x1 4:2x2
outputs "--dim 3 --count 600 --steps 200 --bodies chain --grid-fine 2 --boundary bounce" 4:1x2x2

# Written by R ranks, continued on any R': 2x2 writes step 100, one process
# (plain and 1x1), 2 and 3 ranks continue it to 200; 3 ranks write step 150
# of it, 4 ranks and one process continue that: every state-hash is the
# plain 200 steps'.
args="--count 800 --behaviors flocking,wander"
# shellcheck disable=SC2086
ref=$(hash_of $args --steps 200)
# shellcheck disable=SC2086
mpi 4 "$bin" $args --steps 100 --quiet --threads 1 --decompose 2x2 --save "$tmp/half4.boids" >/dev/null
same_but_order "$tmp/half.boids" "$tmp/half4.boids"
got=$(hash_of --load "$tmp/half4.boids" --steps 100)
[ "$got" = "$ref" ] || fail "written by 4 ranks, continued by one process: '$got', expected '$ref'"
got=$(timeout 60 "$bin" --load "$tmp/half4.boids" --steps 100 --quiet --decompose 1x1 | tail -1)
[ "$got" = "$ref" ] || fail "written by 4 ranks, continued as 1x1: '$got', expected '$ref'"
for rd in 2:2x1 3:1x3; do
  got=$(mpi "${rd%%:*}" "$bin" --load "$tmp/half4.boids" --steps 100 --quiet --threads 1 --decompose "${rd#*:}")
  [ "$got" = "$ref" ] || fail "written by 4 ranks, continued on ${rd%%:*} as ${rd#*:}: '$got', expected '$ref'"
done
mpi 3 "$bin" --load "$tmp/half4.boids" --steps 50 --quiet --threads 1 --decompose 3x1 --save "$tmp/three.boids" \
  >/dev/null
got=$(mpi 4 "$bin" --load "$tmp/three.boids" --steps 50 --quiet --threads 1 --decompose 4x1)
[ "$got" = "$ref" ] || fail "written by 3 ranks at step 150, continued on 4: '$got', expected '$ref'"
got=$(hash_of --load "$tmp/three.boids" --steps 50)
[ "$got" = "$ref" ] || fail "written by 3 ranks at step 150, continued by one process: '$got', expected '$ref'"
echo "ok: a snapshot of 4 ranks continues on 1, 1x1, 2 and 3; one of 3 on 4 and 1 ($ref)"

# A write that fails on rank 0 (files over 8 KiB refused to rank 0 alone:
# EFBIG, SIGXFSZ ignored): one line naming the flag, exit 3, no state-hash,
# the other ranks end (no hang), the old files kept, no temporary file left.
# shellcheck disable=SC2016 # the script's own expansions
printf '%s\n' '#!/usr/bin/env bash' "trap '' XFSZ" \
  'if [ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ]; then ulimit -f 8; fi' 'exec "$@"' >"$tmp/limit.sh"
chmod +x "$tmp/limit.sh"
mkdir -p "$tmp/keep"
for flag in --save --export-csv; do
  echo old >"$tmp/keep/old.boids" && echo old >"$tmp/keep/old.csv"
  out=$tmp/keep/old.boids
  [ $flag = --save ] || out=$tmp/keep/old.csv
  rc=0
  mpi 2 "$tmp/limit.sh" "$bin" --count 1000 --steps 20 --threads 1 --decompose 2x1 $flag "$out" \
    >"$tmp/write.out" 2>"$tmp/write.err" || rc=$?
  [ $rc = 3 ] || fail "a failed $flag: status $rc, expected 3: $(cat "$tmp/write.err")"
  [ "$(grep -c '^boids-run:' "$tmp/write.err")" = 1 ] || fail "a failed $flag: not one line: $(cat "$tmp/write.err")"
  grep '^boids-run:' "$tmp/write.err" | grep -q -- "$flag: .*File too large" \
    || fail "a failed $flag: $(grep '^boids-run:' "$tmp/write.err")"
  ! grep -q state-hash "$tmp/write.out" || fail "a failed $flag printed a state-hash"
  [ "$(cat "$tmp/keep/old.boids") $(cat "$tmp/keep/old.csv")" = "old old" ] || fail "a failed $flag changed a file"
  [ "$(find "$tmp/keep" -type f | wc -l)" = 2 ] || fail "a failed $flag left a file: $(ls -a "$tmp/keep")"
  echo "ok: a failed write: $(grep '^boids-run:' "$tmp/write.err") (status $rc)"
done

# The exchange is real: halo agents every step and agents that change rank.
mpi 2 "$bin" --count 1000 --steps 200 --threads 1 --decompose 2x1 >"$tmp/verbose.out"
line=$(grep '^exchange' "$tmp/verbose.out") || fail "no exchange line: $(cat "$tmp/verbose.out")"
halo=$(sed 's/.*halo agents \([0-9.]*\),.*/\1/' <<<"$line")
moved=$(sed 's/.*agents migrated \([0-9]*\) in all.*/\1/' <<<"$line")
awk -v h="$halo" -v m="$moved" 'BEGIN { exit !(h > 10 && m > 10) }' || fail "too little exchanged: $line"
# The statistics are the world's: the final line as one process prints it (but its ms/step).
timeout 60 "$bin" --count 1000 --steps 200 >"$tmp/plain.out"
[ "$(grep '^final:' "$tmp/plain.out" | sed 's/ms\/step.*//')" = "$(grep '^final:' "$tmp/verbose.out" | sed 's/ms\/step.*//')" ] \
  || fail "final statistics differ: $(grep '^final:' "$tmp/plain.out") / $(grep '^final:' "$tmp/verbose.out")"
echo "ok: exchange and statistics ($line)"

# A rank that dies mid-run (SIGKILL at step 50): the job ends, no hang, no state-hash.
rc=0
BOIDS_DEBUG=decompose-kill=1@50 timeout 60 "$mpirun" --allow-run-as-root --oversubscribe -x BOIDS_DEBUG -n 2 \
  "$bin" --count 1000 --steps 400 --threads 1 --decompose 2x1 >"$tmp/killed.out" 2>"$tmp/killed.err" || rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "a killed rank: status $rc (124: a hang)"
! grep -q state-hash "$tmp/killed.out" || fail "a killed rank's job printed a state-hash"
echo "ok: a rank killed at step 50 ends the job (status $rc)"
# A state that is not finite (BOIDS_DEBUG plants a NaN in agent 7 after step 30): the job ends with
# exit 3 and one line naming the step, the agent and its behaviours; no output, no state-hash.
rc=0
rm -f "$tmp/nan.csv"
BOIDS_DEBUG=nan=7@30 timeout 60 "$mpirun" --allow-run-as-root --oversubscribe -x BOIDS_DEBUG -n 2 \
  "$bin" --count 1000 --steps 100 --threads 1 --decompose 2x1 --export-csv "$tmp/nan.csv" \
  >"$tmp/nan.out" 2>"$tmp/nan.err" || rc=$?
[ $rc = 3 ] || fail "a non-finite state: status $rc, expected 3: $(head -3 "$tmp/nan.err")"
grep -q '^boids-run: --decompose: rank [01]: the state is not finite after step 30: agent 7 of group 0 (behaviours separation, alignment, cohesion) has position nan,' "$tmp/nan.err" \
  || fail "a non-finite state: no line naming step 30 and agent 7: $(head -3 "$tmp/nan.err")"
! grep -q state-hash "$tmp/nan.out" && [ ! -e "$tmp/nan.csv" ] || fail "a non-finite state: an output was written"
echo "ok: a non-finite state ends the job: $(grep '^boids-run:' "$tmp/nan.err")"
# A rank stuck (SIGSTOP at step 50): rank 0's wait gives up after the time-out (3 s here), a roll call
# names the rank that does not answer, one line, abort.
rc=0
BOIDS_DEBUG='decompose-stop=1@50;decompose-timeout=3' timeout 60 "$mpirun" --allow-run-as-root \
  --oversubscribe -x BOIDS_DEBUG -n 2 "$bin" --count 1000 --steps 400 --threads 1 \
  --decompose 2x1 >"$tmp/stuck.out" 2>"$tmp/stuck.err" || rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "a stuck rank: status $rc (124: a hang)"
grep -q '^boids-run: --decompose: rank 0 waited 3 s for the .*; rank 1 does not answer (stopped, lost, or busy beyond --timeout): the run ends$' "$tmp/stuck.err" \
  || fail "a stuck rank: no time-out line naming rank 1: $(head -5 "$tmp/stuck.err")"
echo "ok: a stuck rank: $(grep '^boids-run:' "$tmp/stuck.err") (status $rc)"
# Four ranks, rank 2 stopped, the time-out given by --timeout: every rank that times out names rank 2 alone.
rc=0
BOIDS_DEBUG=decompose-stop=2@30 timeout 60 "$mpirun" --allow-run-as-root --oversubscribe \
  -x BOIDS_DEBUG -n 4 "$bin" --count 2000 --steps 400 --threads 1 \
  --decompose 2x2 --timeout 3 >"$tmp/stuck4.out" 2>"$tmp/stuck4.err" || rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "a stuck rank of 4: status $rc (124: a hang)"
grep -q '; rank 2 does not answer' "$tmp/stuck4.err" || fail "a stuck rank of 4: rank 2 not named: $(head -5 "$tmp/stuck4.err")"
! grep '^boids-run: --decompose: rank' "$tmp/stuck4.err" | grep -v -q '; rank 2 does not answer' \
  || fail "a stuck rank of 4: another rank named: $(grep '^boids-run:' "$tmp/stuck4.err")"
echo "ok: a stuck rank of 4 (--timeout 3): $(grep '^boids-run:' "$tmp/stuck4.err" | head -1) (status $rc)"

# bad CMD... -- WORD: exit 2, one line on stderr naming --decompose (or --rebalance), holding WORD.
bad() {
  local word=${*: -1} rc=0
  set -- "${@:1:$(($# - 2))}"
  "$@" >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
  [ $rc = 2 ] || fail "'$*': status $rc, expected 2: $(cat "$tmp/bad.err")"
  [ "$(grep -c '^boids-run:' "$tmp/bad.err")" = 1 ] || fail "'$*': not one line on stderr: $(cat "$tmp/bad.err")"
  grep '^boids-run:' "$tmp/bad.err" | grep -q -E -- "--(decompose|rebalance)" \
    || fail "'$*' does not name --decompose or --rebalance: $(cat "$tmp/bad.err")"
  grep -q -- "$word" "$tmp/bad.err" || fail "'$*' does not say '$word': $(cat "$tmp/bad.err")"
  echo "ok: bad $* -> $(grep '^boids-run:' "$tmp/bad.err")"
}
run1() { timeout 60 "$bin" --count 500 --steps 5 "$@"; }
bad run1 --decompose 2y2 -- "does not parse"
bad run1 --decompose 0x1 -- "does not parse"
bad run1 --decompose 2x -- "does not parse"
bad run1 --decompose -- "needs a value"
bad run1 --decompose 1x1x1 -- "third part in a 2D world"
bad run1 --decompose 2x2 -- "4 boxes (2x2x1) for 1 ranks"
bad mpi 2 "$bin" --count 500 --steps 5 --decompose 2x2 -- "for 2 ranks"
bad mpi 3 "$bin" --count 500 --steps 5 --decompose 1x1x3 -- "third part"
# Walls: 3 boxes of a 2-cell axis leave an empty box.
bad mpi 3 "$bin" --count 500 --steps 5 --boundary walls --world 120x600 --decompose 3x1 -- "a box of 0 cells"
# The finer grid does not count: a box holds a cell of M = 1.
bad mpi 3 "$bin" --count 500 --steps 5 --world 120x600 --grid-fine 4 --decompose 3x1 -- "a box of 0 cells"
bad run1 --rebalance 10 -- "has no --decompose"
bad run1 --decompose 1x1 --rebalance -- "needs a value"
bad run1 --decompose 1x1 --rebalance ten -- "does not parse"
bad run1 --decompose 1x1 --rebalance 10:0.5 -- "does not parse"
bad run1 --decompose 1x1 --rebalance 10:x -- "does not parse"
# What this slice refuses.
# What the GPU backend leaves to the CPU's: named agents, the survey, bodies.
bad run1 --decompose 1x1 --backend gpu --behaviors flocking,follow -- "on the GPU backend"
bad run1 --decompose 1x1 --backend gpu --scenario angle-bug -- "survey"
bad run1 --decompose 1x1 --backend gpu --bodies chain -- "--bodies"
bad run1 --decompose 1x1 --index brute -- "--index"
bad run1 --decompose 1x1 --update sequential -- "--update"
bad run1 --decompose 1x1 --record "$tmp/x.rec" -- "--record"
bad run1 --decompose 1x1 --profile "$tmp/x.json" -- "--profile"
bad run1 --decompose 1x1 --save "$tmp/x.boids" --save-every 2 -- "--save-every"
# A refused run with outputs asked for writes none of them.
bad run1 --decompose 1x1 --index quadtree --save "$tmp/x.boids" --export-csv "$tmp/x.csv" -- "--index"
bad mpi 2 "$bin" --count 500 --steps 5 --decompose 2x2 --save "$tmp/x.boids" --export-csv "$tmp/x.csv" -- "for 2 ranks"
[ -z "$(find "$tmp" -maxdepth 1 -name '*x.*')" ] || fail "a refused run wrote an output: $(ls -a "$tmp")"
# An output that cannot be written: rank 0 says so before the first step, every rank ends (exit 2).
rc=0
mpi 2 "$bin" --count 500 --steps 5 --decompose 2x1 --save "$tmp/no-such-dir/x.boids" >"$tmp/bad.out" \
  2>"$tmp/bad.err" || rc=$?
if [ $rc != 2 ] || [ "$(grep -c '^boids-run:' "$tmp/bad.err")" != 1 ] \
  || ! grep -q "^boids-run: --save: .*no-such-dir/x.boids' cannot be written" "$tmp/bad.err"; then
  fail "--save to a missing directory: status $rc: $(cat "$tmp/bad.err")"
fi
echo "ok: an output that cannot be written: $(grep '^boids-run:' "$tmp/bad.err")"
echo "all decompose tests passed"
