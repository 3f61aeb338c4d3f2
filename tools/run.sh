#!/usr/bin/env bash
# tools/run.sh [ARGS]: install dependencies, build (Release) into build/, and
# run the viewer `boids` with ARGS (none: its defaults, 200 000 agents on a
# hardware GPU, 20 000 on llvmpipe). Flags of the headless runner (--steps,
# --init, --export-csv, --stats-every, --quiet) or a first argument naming
# an executable (boids-run, boids-bench, boids-validate) run that instead.
# Without a display it says how to run under Xvfb or headless (exit 3).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
"$root/tools/build.sh" >/dev/null
bin="${BUILD_DIR:-$root/build}/bin"
case "${1:-}" in
  boids|boids-run|boids-bench|boids-validate)
    prog=$1
    shift
    exec "$bin/$prog" "$@"
    ;;
esac
for arg in "$@"; do
  case "$arg" in
    --steps|--steps=*|--init|--init=*|--export-csv|--export-csv=*|--stats-every|--stats-every=*|--quiet)
      exec "$bin/boids-run" "$@"
      ;;
  esac
done
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  cat >&2 <<MSG
run.sh: no display (DISPLAY and WAYLAND_DISPLAY are unset): the viewer cannot open a window.
  Under a virtual X server, writing the 300th frame as a PNG:
    xvfb-run -a $bin/boids --frames 300 --screenshot boids.png $*
  Headless, statistics only:
    $bin/boids-run --count 100000 --steps 200
MSG
  exit 3
fi
exec "$bin/boids" "$@"
