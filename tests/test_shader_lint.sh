#!/usr/bin/env bash
# tests/test_shader_lint.sh TOOL: the portability lint (tests/shader_lint.py)
# over every compute shader as the backend assembles it (TOOL:
# boids-shader-source, each stage with and without GL_ARB_gpu_shader_int64
# and with each kernel's defines): float -> 64-bit conversions, barrier()
# under an invocation-dependent branch or loop, shadowed built-ins,
# GL_ARB_gpu_shader_int64 outside #ifdef BOIDS_INT64. First the lint's own
# self-test (each hazard in a small shader must be found), so it cannot pass
# by finding nothing.
set -uo pipefail
tool=$1
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$here/shader_lint.py" --self-test || exit 1
if ! "$tool" "$tmp" >/dev/null; then
  echo "FAIL: $tool could not assemble the shaders" >&2
  exit 1
fi
"$py" "$here/shader_lint.py" "$tmp"
