#!/usr/bin/env bash
# tools/test.sh: install dependencies, build, run the tests, one line per
# suite as it finishes. Non-zero exit on any failure. Extra arguments go to
# ctest (e.g. -L core, -R grid).
#
# tools/test.sh: every suite but the long sweeps (label long), in parallel
# on every core: about 5 minutes on 2 cores, 10 beside another test run,
# the build included; it ends with its wall time and five slowest suites.
# tools/test.sh --long: every suite, the long sweeps too (what CI runs).
#
# tools/test.sh --sanitize [ctest args]: the same build with AddressSanitizer
# and UndefinedBehaviorSanitizer (build-asan/, RelWithDebInfo), then the core
# suites (leak checking on) and the gpu suites on llvmpipe (leak checking off:
# Mesa's JIT allocations have no symbols to suppress them by); any report
# stops the test that made it (halt_on_error) and fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
# With Open MPI installed (deps.sh installs it) the MPI component is
# required, not detected: a broken detection fails here instead of quietly
# leaving out the tests labelled mpi (mpirun -n 1/2/4 of boids-ensemble).
if command -v mpicc >/dev/null 2>&1; then
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DBOIDS_MPI=ON"
fi
jobs=$(nproc)
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  BUILD_DIR="$root/build-asan" BUILD_TYPE=RelWithDebInfo C_FLAGS="$flags" \
    LINK_FLAGS="-fsanitize=address,undefined" "$root/tools/build.sh"
  cd "$root/build-asan"
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 ctest --output-on-failure --timeout 1800 -L core "$@"
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 ctest --output-on-failure --timeout 1800 -L gpu "$@"
  exit 0
fi
select=(-LE long)
if [[ "${1:-}" == "--long" ]]; then
  shift
  select=()
fi
echo "test.sh: building (build/)"
start=$(date +%s)
"$root/tools/build.sh"
cd "$root/build"
suites=$(ctest -N "${select[@]}" "$@" | sed -n 's/^Total Tests: //p')
if [[ ${#select[@]} -gt 0 ]]; then
  echo "test.sh: built in $(($(date +%s) - start)) s; running $suites suites on $jobs cores (the long sweeps too: tools/test.sh --long)"
else
  echo "test.sh: built in $(($(date +%s) - start)) s; running $suites suites on $jobs cores, the long sweeps included"
fi
# The five slowest suites of this run, from ctest's lines "k/n Test #i: NAME
# .... Passed T sec" (said whether the run passed or not).
slowest() {
  awk '/ Test +#[0-9]+: / { for (i = 1; i <= NF; i++) if ($i ~ /^#[0-9]+:$/) name = $(i + 1);
                            if ($NF == "sec") print $(NF - 1), name }' "$1" |
    sort -rn | head -5 | awk '{ printf "%s%s %.0f s", (NR > 1 ? ", " : ""), $2, $1 } END { if (NR) print "" }'
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
ctest --output-on-failure --timeout 1200 -j"$jobs" "${select[@]}" "$@" 2>&1 | tee "$log" || rc=$?
took=$(($(date +%s) - start))
echo "test.sh: slowest suites: $(slowest "$log")"
if [[ $rc -ne 0 ]]; then
  echo "test.sh: FAILED (ctest exit $rc) after $took s, the build included; the failures are listed above" >&2
  exit "$rc"
fi
echo "test.sh: all $suites suites passed in $took s ($((took / 60)) min $((took % 60)) s, the build included)"
