#!/usr/bin/env bash
# tests/test_glslang.sh TOOL: the portability check. Every shader the backend
# compiles, assembled by the backend's own code (TOOL: boids-shader-source,
# tests/shader_source.c), through the Khronos reference compiler
# glslangValidator (Debian's glslang-tools): desktop GLSL as the #version
# line says (450 core; the drawing shaders also as 410 core, the viewer on GL
# 4.1), each compute stage with and without
# GL_ARB_gpu_shader_int64, each drawing program's shaders linked together.
# Mesa accepts some GLSL that other drivers reject; glslang holds to the
# specification. A missing glslangValidator is a failure, never a skip.
set -uo pipefail
tool=$1
if ! command -v glslangValidator >/dev/null 2>&1; then
  echo "FAIL: glslangValidator not found: run tools/deps.sh (installs Debian's glslang-tools)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$tool" "$tmp" >"$tmp/checks"; then
  echo "FAIL: $tool could not assemble the shaders" >&2
  exit 1
fi
failed=0
checks=0
while read -r kind a b; do
  case $kind in
    comp | vert | frag) args=(-l -S "$kind" "$tmp/$a") what="$a" ;;
    link) args=(-l "$tmp/$a" "$tmp/$b") what="$a + $b" ;;
    *) echo "FAIL: unknown check '$kind'" >&2; exit 1 ;;
  esac
  checks=$((checks + 1))
  if ! out=$(glslangValidator "${args[@]}" 2>&1); then
    echo "FAIL: glslangValidator rejects $what (as the backend assembles it, in $tmp):" >&2
    echo "$out" | grep -v "^$tmp/" >&2
    failed=$((failed + 1))
  fi
  # The int64 variant alone may name an extension; the others are core.
  if [[ $kind != link && $a != *.int64.comp ]] && grep -q '^[[:space:]]*#[[:space:]]*extension' "$tmp/$a"; then
    echo "FAIL: $a enables an extension: GLSL 4.50 core only (an extension needs a run-time check and a fallback)" >&2
    failed=$((failed + 1))
  fi
done <"$tmp/checks"
if [[ $checks -eq 0 ]]; then
  echo "FAIL: no shader checked" >&2
  exit 1
fi
if [[ $failed -ne 0 ]]; then
  trap - EXIT
  echo "$failed of $checks checks failed ($(glslangValidator --version | head -1)); sources kept in $tmp" >&2
  exit 1
fi
echo "glslang: $checks checks passed ($(glslangValidator --version | head -1))"
