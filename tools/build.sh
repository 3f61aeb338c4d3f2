#!/usr/bin/env bash
# tools/build.sh: configure and build into build/ (Release unless BUILD_TYPE is set).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
