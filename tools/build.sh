#!/usr/bin/env bash
# tools/build.sh: configure and build into build/ (Release unless BUILD_TYPE
# is set). BUILD_DIR, C_FLAGS and LINK_FLAGS (e.g. sanitizers) and
# CMAKE_ARGS (more -D options) may be set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
args=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}")
if [[ -n "${C_FLAGS:-}" ]]; then args+=("-DCMAKE_C_FLAGS=$C_FLAGS"); fi
if [[ -n "${LINK_FLAGS:-}" ]]; then args+=("-DCMAKE_EXE_LINKER_FLAGS=$LINK_FLAGS"); fi
# shellcheck disable=SC2086 # CMAKE_ARGS holds several words
cmake "${args[@]}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
