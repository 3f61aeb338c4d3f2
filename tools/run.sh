#!/usr/bin/env bash
# tools/run.sh [ARGS]: install dependencies, build (Release) into build/, and
# run the main program with ARGS. Until the viewer exists that is boids-run,
# the headless runner (default: 100 000 agents, 200 steps).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
"$root/tools/build.sh" >/dev/null
if [ $# -eq 0 ]; then
  set -- --count 100000 --steps 200
fi
exec "$root/build/bin/boids-run" "$@"
