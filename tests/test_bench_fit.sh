#!/usr/bin/env bash
# tests/test_bench_fit.sh BUILD_DIR SOURCE_DIR (ctest: test_bench_fit, label
# profile): one fitted exponent everywhere. boids-bench prints "fitted
# exponent of ms/step vs N" for its counts; tools/plot_profile.py, given the
# --profile CSV of the same run, fits the same points the same way (its
# --exponent prints the line its plot's title shows). The two agree to the
# printed digits on the CPU, on the GPU (llvmpipe through EGL in CI) and with
# bodies from a scenario (a stage the profile must count as the table does).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work="$build/tests/tmp/bench_fit"
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
python=$(command -v /usr/bin/python3 || command -v python3)

check() {
  local name=$1
  shift
  local csv="$work/$name.csv"
  echo "\$ boids-bench $* --profile $csv"
  bench=$(timeout 300 "$build/bin/boids-bench" "$@" --profile "$csv" 2>"$work/$name.err") ||
    fail "boids-bench $*: exit $?: $(tail -3 "$work/$name.err")"
  want=$(grep '^fitted exponent of ms/step vs N: ' <<<"$bench") || fail "boids-bench $*: no fitted exponent line"
  got=$("$python" "$src/tools/plot_profile.py" "$csv" --exponent) || fail "plot_profile.py $csv --exponent: exit $?"
  a=$(sed -n 's/^fitted exponent of ms\/step vs N: \([-0-9.]*\) .*/\1/p' <<<"$want")
  b=$(sed -n 's/^fitted exponent of ms\/step vs N: \([-0-9.]*\) .*/\1/p' <<<"$got")
  [[ -n "$a" && -n "$b" ]] || fail "$name: no exponent to compare: '$want' / '$got'"
  # The CSV keeps 6 decimals of each time: the fits may differ in the last printed digit, no more.
  awk -v a="$a" -v b="$b" 'BEGIN {d = a - b; exit !(d <= 0.0011 && d >= -0.0011)}' ||
    fail "$name: boids-bench says $a, plot_profile.py says $b for the same run"
  echo "  boids-bench: $a, plot_profile.py: $b"
}

check cpu --counts 1000,3000,9000 --steps 5
check gpu --backend gpu --counts 1000,4000,16000 --steps 3
check gpu-bodies --backend gpu --scenario chain --counts 1000,4000 --steps 3
check cpu-bodies --counts 1000,4000 --steps 3 --bodies fish
echo "PASS: boids-bench's fitted exponent and plot_profile.py's agree"
