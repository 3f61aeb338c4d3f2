#!/usr/bin/env bash
# tests/test_device_check.sh BUILD_DIR SOURCE_DIR: tools/device-check.sh (the
# device machine's check) here, on llvmpipe: bash -n of it and of
# tools/device-pack.sh, its dry run (every command listed, none run), then
# its small mode (SCALE=small, BUDGET_S 150) on BUILD_DIR/bin: 20-50 s here
# with Mesa's shader cache warm, about 2 minutes cold. The Markdown must hold
# every section, every boids-validate run must pass (none skipped or timed
# out), the state-hash table must have its five rows with both hashes, and
# the figures must have run (the last ones may be skipped for the budget).
set -uo pipefail
build=$1 src=$2
# The script line-buffers through stdbuf (an LD_PRELOAD): under the
# sanitizer build (tools/test.sh --sanitize) ASan must not insist on coming
# first in the library list.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
script=$src/tools/device-check.sh
tmp=$build/tests/tmp/device-check
rm -rf "$tmp"
mkdir -p "$tmp"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

bash -n "$script" || fail "bash -n tools/device-check.sh"
bash -n "$src/tools/device-pack.sh" || fail "bash -n tools/device-pack.sh"

# The dry run: 28 commands, the budget untouched, exit 0.
DRY_RUN=1 OUT=$tmp/dry BIN_DIR=$build/bin bash "$script" >"$tmp/dry.stdout" 2>&1 || fail "the dry run exits $?"
n=$(grep -c '^(dry run: not run' "$tmp/dry/device-check.md")
[ "$n" = 28 ] || fail "the dry run lists $n commands, not 28"

# The small mode, for real (llvmpipe unless BOIDS_EGL_DEVICE says otherwise).
out=$tmp/small
SCALE=small BUDGET_S=${BUDGET_S:-150} OUT=$out BIN_DIR=$build/bin bash "$script" >"$tmp/small.stdout" 2>&1
rc=$?
cat "$tmp/small.stdout"
md=$out/device-check.md
if [ ! -f "$md" ]; then
  fail "no $md"
  exit 1
fi
[ "$rc" = 0 ] || fail "tools/device-check.sh exits $rc (0: every validation passed)"
head -1 "$md" | grep -q '^# tools/device-check.sh: .*, commit ' || fail "the header line: $(head -1 "$md")"
for h in "## 1. Parity" "## 2. State-hashes" "### State-hashes side by side" "## 3. Parity of every GPU kernel" \
  "## 4. Parity at scale" "## 5. The compiled programs" "## 6. Figures" "## Summary"; do
  awk -v h="$h" 'index($0, h) == 1 { f = 1 } END { exit !f }' "$md" || fail "no section '$h'"
done
# Every boids-validate run: its rc 0 and its last line "all checks passed".
nv=0
for log in "$out"/logs/validate-*.log; do
  nv=$((nv + 1))
  tail -n 1 "$log" | grep -q '^boids-validate: all checks passed' ||
    fail "$(basename "$log" .log): $(grep -E '^  FAIL|^boids-validate|^skipped' "$log" | tr '\n' ' ')"
done
[ "$nv" = 9 ] || fail "$nv boids-validate logs, not 9"
grep -q '^Summary: validations 9 passed, 0 failed, 0 skipped;' "$md" || fail "the summary: $(grep '^Summary' "$md")"
grep -q 'timed out after' "$md" && fail "a command timed out"
# The state-hash table: five rows, a 16-digit hash in both columns.
# shellcheck disable=SC2016 # backquotes of Markdown, not of the shell
rows=$(grep -cE '^\| [^|]+ \| `[^`]+` \| [0-9a-f]{16} \| [0-9a-f]{16} \| (yes|no) \|$' "$md")
[ "$rows" = 5 ] || fail "$rows rows of the state-hash table with both hashes, not 5"
# The figures: the first one ran; each of them gave its table or, on a slow
# or loaded machine (a cold shader cache: about 2 minutes in all on 2 cores),
# was skipped for the budget (program-stats may be refused by a boids-bench
# without the flag).
grep -q '^| ' "$out/logs/bench-2d-reference.log" || fail "bench-2d-reference gave no table"
for id in bench-2d-reference bench-2d-morton bench-3d bench-clustered-k7 bench-circles bench-render; do
  grep -q -e '^| ' -e '^skipped: ' "$out/logs/$id.log" || fail "$id: $(head -3 "$out/logs/$id.log")"
done
for id in program-stats program-stats-all program-stats-general; do
  grep -q -e '^steer: ' -e '^skipped: ' "$out/logs/$id.log" || fail "$id: no steer line ($(tail -2 "$out/logs/$id.log"))"
done
grep -q '^steer: the general program' "$out/logs/program-stats-general.log" ||
  grep -q '^skipped: ' "$out/logs/program-stats-general.log" || fail "program-stats-general did not run the general steer"
if grep -q '^| ' "$out/logs/bench-render.log"; then
  [ -s "$out/render-2k.png" ] || fail "no screenshot $out/render-2k.png"
fi

if [ "$failures" -gt 0 ]; then
  echo "test_device_check: $failures failures (the Markdown: $md)"
  exit 1
fi
echo "test_device_check: passed"
