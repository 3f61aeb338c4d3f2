#!/usr/bin/env bash
# tests/test_steer_spec.sh BUILD: the steer programs specialised to a run
# (BOIDS_SPEC_* defines: only the behaviours, rule sets, dimension,
# boundary, combine mode, relations, K and grid factor the run uses) give
# the same bits as the general steer (every behaviour, the parameters decide
# at run time; BOIDS_DEBUG=steer-general steps with it alone), over runs that
# between them reach every behaviour, rule set, boundary, combine mode,
# relations, K nearest and a finer grid; and the specialised program is
# smaller (boids-bench --program-stats: a flocking run's steer against
# --behaviors all's). Label gpu: llvmpipe through headless EGL; no GL 4.5
# context fails.
set -uo pipefail
bin=$1/bin
# shellcheck source=tests/checks.sh
. "$(dirname "$0")/checks.sh"
runs=(
  "--count 3000 --steps 30"
  "--count 3000 --steps 30 --dim 3"
  "--count 2000 --steps 20 --behaviors all"
  "--count 2000 --steps 20 --behaviors all --dim 3 --boundary walls"
  "--count 2000 --steps 20 --behaviors all --combine priority --boundary bounce"
  "--count 2000 --steps 20 --behaviors all --combine truncated --boundary margin"
  "--scenario predators-prey --steps 40"
  "--count 3000 --steps 30 --neighbors-max 7 --grid-fine 2"
  "--count 3000 --steps 30 --neighbors-max 7 --dim 3"
  "--scenario circles --count 3000 --steps 30"
  "--count 3000 --steps 30 --rules tutorial"
  "--count 3000 --steps 30 --rules heading"
  "--count 3000 --steps 30 --rules vicsek --behaviors alignment"
  "--count 3000 --steps 30 --rules couzin --dim 3"
  "--count 3000 --steps 30 --kernel morton --neighbors-max 4"
)
for args in "${runs[@]}"; do
  # shellcheck disable=SC2086 # args holds several words
  spec=$(hash_of $args --backend gpu)
  # shellcheck disable=SC2086
  general=$(BOIDS_DEBUG=steer-general hash_of $args --backend gpu)
  if [[ $spec != state-hash:* ]]; then
    bad "$args: no state-hash from the specialised run ($spec)"
  elif [[ $spec == "$general" ]]; then
    ok "$args: specialised = general ($spec)"
  else
    bad "$args: specialised '$spec', general '$general'"
  fi
done
# The program of a flocking run against every behaviour's, and the general's.
steer_bytes() { # steer_bytes ROW ARGS...: the binary bytes of that row of --program-stats
  local row=$1
  shift
  "$bin/boids-bench" --backend gpu --counts 1000 --steps 2 --program-stats "$@" 2>&1 |
    awk -F'|' -v row="$row" '{ gsub(/ /, "", $2); gsub(/ /, "", $4) } $2 == row { print $4 }'
}
flock=$(steer_bytes steer)
all=$(steer_bytes steer --behaviors all)
general=$(BOIDS_DEBUG=steer-general steer_bytes steer_general)
if [[ -z $flock || -z $all || -z $general ]]; then
  bad "--program-stats gave no steer rows (flocking '$flock', all '$all', general '$general')"
elif ((flock < all && all <= general)); then
  ok "steer program bytes: flocking $flock < all behaviours $all <= general $general"
else
  bad "steer program bytes: flocking $flock, all behaviours $all, general $general (expected increasing)"
fi
line=$("$bin/boids-bench" --backend gpu --counts 1000 --steps 2 --program-stats 2>&1 | grep '^steer: ')
if [[ $line == "steer: specialised to 2D wrap, rules chapter, separation,alignment,cohesion,"* ]]; then
  ok "--program-stats names the spec: $line"
else
  bad "--program-stats' spec line: '$line'"
fi
echo "steer spec: $passed passed, $failed failed"
((failed == 0))
