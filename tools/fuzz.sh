#!/usr/bin/env bash
# tools/fuzz.sh [SECONDS]: builds the libFuzzer targets of tests/fuzz with
# clang (build-fuzz/: the project configured with CC=clang -DBOIDS_FUZZ=ON,
# every library compiled with -fsanitize=fuzzer-no-link,address,undefined)
# and runs each target for SECONDS (default 60) on a scratch copy of its seed
# corpus tests/fuzz/corpus/NAME (build-fuzz/corpus/NAME: the repository is
# not modified), with the dictionary tests/fuzz/NAME.dict where there is one.
# Non-zero exit if any target crashes, leaks, times out or trips a
# sanitizer; the input that did is saved under build-fuzz/crashes/NAME/ and
# its path printed. Reproduce one with: build-fuzz/bin/fuzz_NAME FILE
#
# Environment: FUZZ_JOBS (build jobs, default the number of cores),
# FUZZ_TARGETS (names to run, default every built one: cli scenario
# [snapshot] record plan).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: SECONDS: '$seconds' is not a positive integer; usage: tools/fuzz.sh [SECONDS]" >&2
  exit 2
fi
"$root/tools/deps.sh"

build="$root/build-fuzz"
sanitizers="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# clang may warn on things gcc does not: outside tests/fuzz those stay
# warnings here (BOIDS_WERROR=OFF; they are listed below) instead of stopping
# the fuzz build; tests/fuzz itself is compiled with -Werror.
CC=clang cmake -S "$root" -B "$build" -DBOIDS_FUZZ=ON -DBOIDS_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$sanitizers -g" >/dev/null

targets=()
for t in ${FUZZ_TARGETS:-cli scenario snapshot record plan}; do
  if [[ -f "$root/tests/fuzz/fuzz_$t.c" ]]; then targets+=("$t"); fi
done
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "fuzz: no targets (FUZZ_TARGETS='${FUZZ_TARGETS:-}'); expected names of tests/fuzz/fuzz_NAME.c" >&2
  exit 2
fi
if ! cmake --build "$build" -j "${FUZZ_JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}" >"$build/build.log" 2>&1; then
  tail -30 "$build/build.log" >&2
  echo "fuzz: the build failed (log: $build/build.log)" >&2
  exit 1
fi
grep -E 'warning:' "$build/build.log" | sort -u | sed 's/^/fuzz: build: /' || true

# The longest input each target is given (bytes): command lines are short,
# scenario files a few KiB, snapshots larger.
max_len() {
  case "$1" in
    cli) echo 1024 ;;
    scenario) echo 8192 ;;
    snapshot) echo 16384 ;;
    record) echo 16384 ;;
    plan) echo 4096 ;;
    *) echo 65536 ;;
  esac
}

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export OMP_NUM_THREADS=1 # a loaded snapshot is stepped: one thread, no oversubscription
failed=()
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t" crashes="$build/crashes/$t"
  rm -rf "$crashes" # only this run's inputs (earlier ones were printed then)
  mkdir -p "$corpus" "$crashes"
  if [[ -d "$root/tests/fuzz/corpus/$t" ]]; then cp -r "$root/tests/fuzz/corpus/$t/." "$corpus/"; fi
  log="$build/fuzz_$t.log"
  dict=()
  if [[ -f "$root/tests/fuzz/$t.dict" ]]; then dict=(-dict="$root/tests/fuzz/$t.dict"); fi
  echo "fuzz: fuzz_$t for ${seconds}s (corpus $corpus, log $log)"
  # -close_fd_mask=2: the program's own stderr (one-line errors) is silenced;
  # libFuzzer and the sanitizers keep reporting on a copy of it.
  if "$build/bin/fuzz_$t" -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
      -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$corpus" >"$log" 2>&1; then
    grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | sed "s/^/fuzz: fuzz_$t: /" || true
  else
    failed+=("$t")
    grep -E 'ERROR|SUMMARY|runtime error|fuzz_[a-z]+:' "$log" | head -5 | sed "s/^/fuzz: fuzz_$t: /" || true
    for f in "$crashes"/*; do
      if [[ -f "$f" ]]; then echo "fuzz: fuzz_$t: input saved: $f (reproduce: $build/bin/fuzz_$t $f)"; fi
    done
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: FAILED: ${failed[*]} (logs: $build/fuzz_NAME.log)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds}s without a crash"
