#!/usr/bin/env bash
# tests/test_install.sh BUILD_DIR SOURCE_DIR (ctest: test_install, label
# install): installs the built library and programs into a scratch prefix,
# moves the prefix (nothing may point back into the build), and builds
# examples/c there as an outside project would: with pkg-config (the
# one-line command, run through LD_LIBRARY_PATH; as C++ with g++; --static
# with libboids.a; the Makefile, run through its rpath) and with
# find_package (boids::boids through the build tree's rpath,
# boids::boids_static linked statically). engine_stats' state-hash must
# equal boids-run's, on the CPU and on the GPU (llvmpipe through headless
# EGL in CI: no OpenGL 4.5 context is a failure, never a skip). The
# installed programs run from outside the tree and find the installed
# scenarios and plans. Any error fails the test; each step says what it does.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work="$build/tests/tmp/install"
count=400
steps=40
rm -rf "$work"
mkdir -p "$work"

step() { echo "== $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

step "install into a scratch prefix, then move it: $work/prefix"
cmake --install "$build" --prefix "$work/staged" >"$work/install.log"
mv "$work/staged" "$work/prefix"
prefix="$work/prefix"
for f in lib/libboids.so lib/libboids.a lib/pkgconfig/boids.pc lib/cmake/boids/boidsConfig.cmake \
  lib/cmake/boids/boidsConfigVersion.cmake include/boids/engine.h include/boids/shared.h include/boids/behaviors.h \
  bin/boids-run bin/boids-bench bin/boids-validate bin/boids-ensemble bin/boids share/boids/plans/tiny.ini \
  share/boids/scenarios/flocking.ini; do
  [[ -e "$prefix/$f" ]] || fail "$f is not installed"
done
step "the man pages and bash completions: installed, the page of the program's own --man-page"
for program in boids-run boids-bench boids-validate boids-ensemble boids; do
  page="$prefix/share/man/man1/$program.1"
  completion="$prefix/share/bash-completion/completions/$program"
  [[ -s "$page" ]] || fail "share/man/man1/$program.1 is not installed"
  [[ -s "$completion" ]] || fail "share/bash-completion/completions/$program is not installed"
  cmp -s "$page" <(env -u DISPLAY "$prefix/bin/$program" --man-page) || fail "$program.1 is not $program --man-page"
  grep -q "^complete -F _${program//-/_} $program\$" "$completion" || fail "$completion does not complete $program"
  MANPATH="$prefix/share/man" man -w "$program" >/dev/null 2>&1 || fail "man -w $program: not found under MANPATH"
done
[[ ! -e "$prefix/include/boids/render.h" ]] || fail "render.h is installed (it needs glad)"
soname=$(readelf -d "$prefix/lib/libboids.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" == libboids.so.0 ]] || fail "soname '$soname', expected libboids.so.0"
! grep -rq "$build" "$prefix/lib/pkgconfig" "$prefix/lib/cmake" || fail "the package files name the build tree"

step "the shared library exports boids_* only, and the archive defines boids_* only"
leaked=$(nm -D --defined-only "$prefix/lib/libboids.so" | awk '{print $3}' | grep -v '^boids_' || true)
[[ -z "$leaked" ]] || fail "exported beside boids_*: $(echo "$leaked" | head -5 | tr '\n' ' ')"
leaked=$(nm --defined-only -g "$prefix/lib/libboids.a" | awk 'NF == 3 {print $3}' | grep -v '^boids_' || true)
[[ -z "$leaked" ]] || fail "libboids.a defines beside boids_*: $(echo "$leaked" | head -5 | tr '\n' ' ')"

step "each installed header compiles on its own"
for h in "$prefix"/include/boids/*.h; do
  echo "#include <boids/$(basename "$h")>" | cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$prefix/include" \
    -x c -c - -o /dev/null || fail "boids/$(basename "$h") does not compile alone"
  echo "#include <boids/$(basename "$h")>" | g++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$prefix/include" \
    -x c++ -c - -o /dev/null || fail "boids/$(basename "$h") does not compile alone as C++"
done
# A shared-library user needs no header of the library's private
# dependencies (pkg-config's Cflags name none of them).
! grep -lE '#include *[<"](stb|ini\.h|zlib|zstd)' "$prefix"/include/boids/*.h ||
  fail "an installed header includes a private dependency's header"

# The state-hash line of `boids-run --count N --steps S --quiet` on a backend.
run_hash() { "$build/bin/boids-run" --count $count --steps $steps --backend "$1" --quiet | sed -n 's/^state-hash: //p'; }
# Runs an engine_stats binary (with any env before it) on a backend and
# checks its hash against boids-run's.
check_stats() {
  local backend=$1
  shift
  echo "\$ $* --count $count --steps $steps --backend $backend"
  local out
  out=$("$@" --count $count --steps $steps --backend "$backend") || fail "$* --backend $backend: exit $?"
  printf '  %s\n' "${out//$'\n'/$'\n'  }"
  local got=${out##*state-hash: }
  local want=${hashes[$backend]}
  [[ "$got" == "$want" ]] || fail "--backend $backend: state-hash $got, boids-run's $want"
}
declare -A hashes=([cpu]=$(run_hash cpu) [gpu]=$(run_hash gpu))
[[ -n "${hashes[cpu]}" && -n "${hashes[gpu]}" ]] || fail "boids-run printed no state-hash"
echo "boids-run state-hash: cpu ${hashes[cpu]}, gpu ${hashes[gpu]}"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
step "pkg-config: the public include folder only, no private requirements"
read -r -a cflags < <(pkg-config --cflags boids)
[[ ${#cflags[@]} -eq 1 && "${cflags[0]}" == -I* && "$(realpath "${cflags[0]#-I}")" == "$(realpath "$prefix/include")" ]] ||
  fail "pkg-config --cflags boids: '${cflags[*]}', expected -I of $prefix/include alone"
[[ -z "$(pkg-config --print-requires-private boids)" ]] ||
  fail "boids.pc has Requires.private: $(pkg-config --print-requires-private boids)"
echo "pkg-config --cflags boids: ${cflags[*]}"

step "pkg-config: the one-line command, run with LD_LIBRARY_PATH"
mkdir -p "$work/pkg-config"
# shellcheck disable=SC2046 # pkg-config's words are meant to split
(cd "$src/examples/c" && cc -std=c11 -Wall -Wextra -Wpedantic -Werror engine_stats.c \
  $(pkg-config --cflags --libs boids) -o "$work/pkg-config/engine_stats")
for backend in cpu gpu; do
  check_stats $backend env LD_LIBRARY_PATH="$prefix/lib" "$work/pkg-config/engine_stats"
done

step "C++: engine_stats.c compiled by g++ against the installed headers (extern \"C\"), run with LD_LIBRARY_PATH"
# {0} initialises the desc in C; g++ -Wextra would name each member it leaves zero.
# shellcheck disable=SC2046 # pkg-config's words are meant to split
(cd "$src/examples/c" && g++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers \
  -x c++ engine_stats.c -x none $(pkg-config --cflags --libs boids) -o "$work/pkg-config/engine_stats_cxx")
check_stats cpu env LD_LIBRARY_PATH="$prefix/lib" "$work/pkg-config/engine_stats_cxx"

step "pkg-config --static: libboids.a (docs/API.md's line)"
# shellcheck disable=SC2046 # pkg-config's words are meant to split
(cd "$src/examples/c" && cc -std=c11 -Wall -Wextra -Wpedantic -Werror engine_stats.c $(pkg-config --cflags boids) \
  $(pkg-config --static --libs boids | sed 's/-lboids /-l:libboids.a /') -o "$work/pkg-config/engine_stats_static")
! readelf -d "$work/pkg-config/engine_stats_static" | grep -q 'libboids' || fail "engine_stats_static needs libboids.so"
check_stats gpu "$work/pkg-config/engine_stats_static"

step "pkg-config: examples/c/Makefile, run through its rpath"
cp "$src"/examples/c/{Makefile,engine_stats.c,steering.c} "$work/pkg-config/"
make -s -C "$work/pkg-config" clean all CFLAGS="-O2 -Wall -Wextra -Wpedantic -Werror"
check_stats cpu "$work/pkg-config/engine_stats"
"$work/pkg-config/steering" >"$work/steering.txt"
# The arriver's distance (last column) at step 0 and at the end.
read -r first last < <(awk '$1 ~ /^[0-9]+$/ {d[n++] = $NF} END {print d[0], d[n-1]}' "$work/steering.txt")
awk -v a="$first" -v b="$last" 'BEGIN {exit !(b < a / 10)}' || fail "steering: arrive went from $first to $last"
echo "steering: the arriver's distance $first -> $last"

step "find_package(boids): examples/c/CMakeLists.txt with CMAKE_PREFIX_PATH"
cmake -S "$src/examples/c" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" \
  >"$work/cmake.log"
cmake --build "$work/cmake" >>"$work/cmake.log" || { cat "$work/cmake.log"; fail "the examples do not build"; }
! readelf -d "$work/cmake/engine_stats_static" | grep -q 'libboids' || fail "engine_stats_static needs libboids.so"
readelf -d "$work/cmake/engine_stats" | grep -q 'libboids.so.0' || fail "engine_stats does not link libboids.so.0"
for backend in cpu gpu; do
  check_stats $backend "$work/cmake/engine_stats"
  check_stats $backend "$work/cmake/engine_stats_static"
done
"$work/cmake/steering" 20 >/dev/null
step "the installed library finds the installed scenarios (moved prefix, no BOIDS_SCENARIOS)"
# A name only the installed folder has: the source tree's cannot answer it.
cp "$src/scenarios/predators-prey.ini" "$prefix/share/boids/scenarios/installed-only.ini"
[[ -e "$prefix/share/boids/scenarios/flowfield-rings.png" ]] || fail "flowfield-image's picture is not installed"
want=$("$build/bin/boids-run" --scenario "$src/scenarios/predators-prey.ini" --steps 20 --quiet | sed -n 's/^state-hash: //p')
mkdir -p "$prefix/bin" && cp "$work/pkg-config/engine_stats_static" "$prefix/bin/" # libboids.a: the bindir rule
for program in "env -u BOIDS_SCENARIOS LD_LIBRARY_PATH=$prefix/lib $work/pkg-config/engine_stats" \
  "env -u BOIDS_SCENARIOS $prefix/bin/engine_stats_static"; do
  echo "\$ $program --scenario installed-only --steps 20"
  # shellcheck disable=SC2086 # the program's words are meant to split
  out=$($program --scenario installed-only --steps 20) || fail "$program --scenario installed-only: exit $?"
  [[ "${out##*state-hash: }" == "$want" ]] || fail "--scenario installed-only: state-hash ${out##*state-hash: }, boids-run's $want"
  # shellcheck disable=SC2086
  $program --scenario flowfield-image --steps 2 >/dev/null || fail "$program --scenario flowfield-image (its picture)"
done
echo "installed-only: state-hash $want, as boids-run --scenario predators-prey.ini"

step "the installed programs, run from outside the tree: versions, the installed scenarios and plans"
mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
for program in boids-run boids-bench boids-validate boids-ensemble boids; do
  got=$("$prefix/bin/$program" --version) || fail "$program --version: exit $?"
  [[ "$got" == "$program $(sed -n 's/^#define BOIDS_VERSION "\(.*\)"$/\1/p' "$prefix/include/boids/core.h")"* ]] ||
    fail "$program --version: '$got'"
  echo "$got"
done
# Found beside the program (bin/../share/boids/scenarios), before the
# source tree's folder compiled into it.
listed=$(env -u BOIDS_SCENARIOS "$prefix/bin/boids-run" --list-scenarios | sed -n '1s/^scenarios in \(.*\) (use .*/\1/p')
[[ -n "$listed" && "$(realpath "$listed")" == "$(realpath "$prefix/share/boids/scenarios")" ]] ||
  fail "boids-run --list-scenarios: the folder '$listed', expected $prefix/share/boids/scenarios"
out=$(env -u BOIDS_SCENARIOS "$prefix/bin/boids-run" --scenario installed-only --steps 20 --quiet) ||
  fail "boids-run --scenario installed-only: exit $?"
got=$(sed -n 's/^state-hash: //p' <<<"$out")
[[ "$got" == "$want" ]] || fail "installed boids-run --scenario installed-only: state-hash $got, expected $want"
env -u BOIDS_SCENARIOS "$prefix/bin/boids-run" --scenario flowfield-image --steps 2 --quiet >/dev/null ||
  fail "installed boids-run --scenario flowfield-image (its picture)"
env -u BOIDS_SCENARIOS OMP_WAIT_POLICY=passive "$prefix/bin/boids-ensemble" "$prefix/share/boids/plans/tiny.ini" \
  --out "$work/elsewhere/tiny" >"$work/ensemble.log" 2>&1 || { cat "$work/ensemble.log"; fail "installed boids-ensemble tiny.ini"; }
[[ -s "$work/elsewhere/tiny/results.csv" ]] || fail "installed boids-ensemble wrote no results.csv"
echo "installed boids-run: $listed; --scenario installed-only state-hash $got; boids-ensemble tiny.ini: results.csv"
cd "$build"

echo "PASS: installed, built with pkg-config (C and C++) and find_package, hashes equal boids-run's, scenarios found, the installed programs run"
