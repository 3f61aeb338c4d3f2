#!/usr/bin/env bash
# tests/test_shader_lint.sh TOOL: the portability lint (tests/shader_lint.py)
# over every compute shader as the backend assembles it (TOOL:
# boids-shader-source, each stage with and without GL_ARB_gpu_shader_int64
# and with each kernel's defines): float -> 64-bit conversions, barrier()
# under an invocation-dependent branch or loop, shadowed built-ins,
# GL_ARB_gpu_shader_int64 outside #ifdef BOIDS_INT64. Then the bit-exactness
# lint over the same shaders, read from glslangValidator's AST
# (tests/shader_ast_lint.py): float divisions outside fdiv / cr_sqrt (but by a
# constant power of two), built-ins GLSL leaves imprecise, doubles, adds and
# subtracts of a possible product that are not precise (a driver may fuse
# them into an fma; the C is built with -ffp-contract=off). Each lint runs its
# own self-test first (each hazard in a small shader must be found, its clean
# twin not), so neither can pass by finding nothing.
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
status=0
"$py" "$here/shader_lint.py" "$tmp" || status=1
"$py" "$here/shader_ast_lint.py" --self-test || exit 1
"$py" "$here/shader_ast_lint.py" "$tmp" || status=1
exit $status
