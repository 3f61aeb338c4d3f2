#!/usr/bin/env bash
# tests/test_decompose.sh BUILD [MPIRUN]: boids-run --decompose (issue 18).
# The state-hash after 200 steps of runs split into boxes over
# R = 1 (an MPI singleton, no mpirun), 2, 3 and 4 ranks (--oversubscribe)
# and several decompositions of the same run equals the one process's, in 2D
# and 3D, on every boundary mode, with many behaviours and several groups,
# named agents (offset, follow, interpose; the leaders change rank during the
# runs), the heading rules' survey and scheduled scenarios; with boxes cut
# by the agents' counts and cut anew mid-run (and for a new grid of
# grid_fine auto: then the final statistics too); the exchange really
# happens (halo agents and migrations counted); every
# bad input is one line on rank 0 and exit 2. Every run is bounded by timeout.
set -euo pipefail
build=$1 mpirun=${2:-mpirun}
bin=$build/bin/boids-run
tmp=$build/tests/tmp/decompose
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
mpi() { timeout 60 "$mpirun" --allow-run-as-root --oversubscribe -n "$@"; }
hash_of() { timeout 60 "$bin" "$@" --quiet | tail -1; }
# same "ARGS" R:DECOMP...: each decomposition's state-hash is the plain run's.
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
      got=$(timeout 60 "$bin" $args --quiet --decompose "$dec" | tail -1)
    else
      # shellcheck disable=SC2086
      got=$(mpi "$r" "$bin" $args --quiet --threads 1 --decompose "$dec" | tail -1)
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
  got=$(mpi "$r" "$bin" $args --threads 1 --decompose "$dec" --rebalance "$rb")
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

# From a snapshot (--load): the step counter and the state of a saved run.
timeout 60 "$bin" --count 800 --steps 100 --behaviors flocking,wander --save "$tmp/half.boids" --quiet >/dev/null
same "--load $tmp/half.boids --steps 100" 2:2x1 4:2x2
# A scheduled scenario's snapshot: its weights from the loaded step on.
timeout 60 "$bin" --scenario flocking-varying --count 600 --steps 100 --save "$tmp/varying.boids" --quiet >/dev/null
same "--load $tmp/varying.boids --steps 100" 2:2x1 3:1x3

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
BOIDS_DECOMPOSE_KILL=1:50 timeout 60 "$mpirun" --allow-run-as-root --oversubscribe -x BOIDS_DECOMPOSE_KILL -n 2 \
  "$bin" --count 1000 --steps 400 --threads 1 --decompose 2x1 >"$tmp/killed.out" 2>"$tmp/killed.err" || rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "a killed rank: status $rc (124: a hang)"
! grep -q state-hash "$tmp/killed.out" || fail "a killed rank's job printed a state-hash"
echo "ok: a rank killed at step 50 ends the job (status $rc)"
# A rank stuck (SIGSTOP at step 50): rank 0's wait gives up after the time-out (3 s here), one line, abort.
rc=0
BOIDS_DECOMPOSE_STOP=1:50 BOIDS_DECOMPOSE_TIMEOUT=3 timeout 60 "$mpirun" --allow-run-as-root --oversubscribe \
  -x BOIDS_DECOMPOSE_STOP -x BOIDS_DECOMPOSE_TIMEOUT -n 2 "$bin" --count 1000 --steps 400 --threads 1 \
  --decompose 2x1 >"$tmp/stuck.out" 2>"$tmp/stuck.err" || rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "a stuck rank: status $rc (124: a hang)"
grep -q '^boids-run: --decompose: rank 0 waited 3 s for the .*; a rank is lost or stuck$' "$tmp/stuck.err" \
  || fail "a stuck rank: no time-out line: $(head -5 "$tmp/stuck.err")"
echo "ok: a stuck rank: $(grep '^boids-run:' "$tmp/stuck.err") (status $rc)"

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
bad run1 --decompose 1x1 --backend gpu -- "--backend gpu"
bad run1 --decompose 1x1 --index brute -- "--index"
bad run1 --decompose 1x1 --update sequential -- "--update"
bad run1 --decompose 1x1 --save "$tmp/x.boids" -- "--save"
bad run1 --decompose 1x1 --export-csv "$tmp/x.csv" -- "--export-csv"
[ ! -e "$tmp/x.boids" ] && [ ! -e "$tmp/x.csv" ] || fail "a refused run wrote an output"
echo "all decompose tests passed"
