#!/usr/bin/env bash
# tools/test.sh: install dependencies, build, run every test. Non-zero exit on
# any failure. Extra arguments go to ctest (e.g. -L core, -R grid).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
"$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure --timeout 1200 "$@"
