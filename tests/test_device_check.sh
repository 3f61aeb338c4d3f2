#!/usr/bin/env bash
# tests/test_device_check.sh BUILD_DIR SOURCE_DIR: tools/device-check.sh (the
# check on a machine with a GPU) here, on llvmpipe: bash -n of it and of
# tools/device-pack.sh, its dry run (every command listed, none run); its
# failures against stand-in programs (a validation that fails, one that runs
# past its time, a state-hash row that differs, a run killed by a signal:
# each a FAIL line with its reason, exit status 1; about 12 s); then its
# small mode (SCALE=small, BUDGET_S 220, under ctest's 300 s with the rest)
# on BUILD_DIR/bin: 20-50 s here with Mesa's shader cache warm, 1-2 minutes
# cold, 3 minutes cold on two cores kept busy besides (as tools/test.sh's
# other suites do). Its caps are 4 times the device's (CAP_SCALE): llvmpipe
# compiles every program on the CPU, and with a cold cache on a loaded
# machine the kernels' validation ran past its 20 s and the default set-up's
# past its 40 s, time-outs counted as failed validations. The Markdown must hold every section, every
# boids-validate run must pass (none skipped or timed out), the state-hash
# table must have its eight rows with both hashes, the same, marked equal
# (the GPU gives the CPU's bits), and the figures must have run (the last
# ones may be skipped for the budget; none may time out).
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

# The dry run: 35 commands, the budget untouched, exit 0.
DRY_RUN=1 OUT=$tmp/dry BIN_DIR=$build/bin bash "$script" >"$tmp/dry.stdout" 2>&1 || fail "the dry run exits $?"
n=$(grep -c '^(dry run: not run' "$tmp/dry/device-check.md")
[ "$n" = 35 ] || fail "the dry run lists $n commands, not 35"

# Its failures, against stand-ins for the three programs (BUDGET_S 14, so
# the kernels' validation is cut at what is left of it and the rest is
# skipped): boids-validate fails its default set-up (exit 1, its FAIL lines,
# a first line that is no reason) and runs on with --kernel morton; boids-run
# gives the GPU a different hash for predators-prey and is killed by SIGSEGV
# for Vicsek on the GPU.
fake=$tmp/fake-bin
mkdir -p "$fake"
cat >"$fake/boids-validate" <<'STANDIN'
#!/usr/bin/env bash
echo "boids-validate 0.1.0: 100 agents, 2D, stand-in"
case " $* " in
  *" --kernel morton "*) exec sleep 60 ;;
  *" --kernel "* | *" --scenario "*) echo "  PASS  a check"; echo "boids-validate: all checks passed (0 checks failed)" ;;
  *)
    echo "  PASS  a check"
    echo "  FAIL  separation   force: 3 of 100 differ"
    echo "  FAIL  cohesion     force: 1 of 100 differ"
    echo "boids-validate: FAILED (2 checks failed)"
    exit 1
    ;;
esac
STANDIN
cat >"$fake/boids-run" <<'STANDIN'
#!/usr/bin/env bash
echo "boids-run: stand-in"
case " $* " in
  *" predators-prey "*" gpu "*) echo "state-hash: 00000000000000ff" ;;
  *" vicsek "*" gpu "*) echo "about to crash"; kill -SEGV $$ ;;
  *) echo "state-hash: 0123456789abcdef" ;;
esac
STANDIN
printf '#!/usr/bin/env bash\necho "boids-bench: stand-in"\n' >"$fake/boids-bench"
chmod +x "$fake"/boids-*
f=$tmp/fake
SCALE=small BUDGET_S=14 OUT=$f BIN_DIR=$fake bash "$script" >"$tmp/fake.stdout" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "against the stand-ins: exit $rc, not 1"
# expect WHAT FILE PATTERN: FILE has a line matching the extended PATTERN.
expect() {
  grep -qE -- "$3" "$2" || fail "against the stand-ins, $1: no line /$3/ in $(basename "$2")"
}
for file in "$tmp/fake.stdout" "$f/device-check.md"; do
  expect "the failed validation" "$file" \
    '^ *FAIL validate-default: exit 1: boids-validate: FAILED \(2 checks failed\); first: FAIL separation'
  expect "the timed-out validation" "$file" \
    '^ *FAIL validate-kernel-morton: timed out after [0-9]+ s \(cap [0-9]+ s: what was left of the 14 s budget\)$'
  expect "the killed run" "$file" '^ *FAIL hash-5-gpu: killed by signal SEGV \(rc 139, after [0-9]+ s\): about to crash$'
done
expect "the differing row" "$f/device-check.md" \
  "^ *FAIL state-hash row 'predators-prey': DIFFERENT \(CPU 0123456789abcdef, GPU 00000000000000ff\)$"
expect "the summary" "$f/device-check.md" \
  "^Summary: validations 6 passed, 2 failed, 1 skipped \(failed: validate-default, validate-kernel-morton\) \(skipped: validate-large\); state-hash rows equal 6 of 8, DIFFERENT: 'predators-prey', not compared: 'Vicsek';"
# shellcheck disable=SC2016 # backquotes of Markdown, not of the shell
expect "the rows" "$f/device-check.md" '^\| predators-prey \| `[^`]+` \| 0123456789abcdef \| 00000000000000ff \| DIFFERENT \|$'
expect "the rows" "$f/device-check.md" '^\| Vicsek \| .* \| 0123456789abcdef \| – \| not compared \(gpu: rc 139\) \|$'
expect "the status file" "$f/status.tsv" $'^validate-default\tvalidate\t1\t[0-9.]+\t[0-9]+\tFAIL\texit 1: '
# A FAIL line never gives the program's first line (its header) for a reason.
if grep -E '^ *FAIL [^ ]+: .*(stand-in|0\.1\.0)' "$tmp/fake.stdout" "$f/device-check.md"; then
  fail "against the stand-ins: a FAIL line gives the program's header"
fi

# The small mode, for real (llvmpipe unless BOIDS_EGL_DEVICE says otherwise).
out=$tmp/small
SCALE=small BUDGET_S=${BUDGET_S:-220} OUT=$out BIN_DIR=$build/bin bash "$script" >"$tmp/small.stdout" 2>&1
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
# why ID: ID's rc and the reason of its FAIL line (the script's status.tsv).
why() {
  awk -F'\t' -v id="$1" '$1 == id { print $3 ($7 == "" ? "" : ": " $7) }' "$out/status.tsv"
}
# Every boids-validate run: its rc 0 and its last line "all checks passed".
nv=0
for log in "$out"/logs/validate-*.log; do
  nv=$((nv + 1))
  id=$(basename "$log" .log)
  tail -n 1 "$log" | grep -q '^boids-validate: all checks passed' || fail "$id: rc $(why "$id")"
done
[ "$nv" = 9 ] || fail "$nv boids-validate logs, not 9"
grep -q '^Summary: validations 9 passed, 0 failed, 0 skipped; state-hash rows equal 8 of 8;' "$md" ||
  fail "the summary: $(grep '^Summary' "$md")"
# No command timed out (a figure skipped for the budget did not run).
while IFS= read -r line; do fail "$line"; done < <(grep -E '^ *FAIL [^ ]+: timed out after' "$md")
# The state-hash table: eight rows, a 16-digit hash in both columns, the
# same one, marked equal.
# shellcheck disable=SC2016 # backquotes of Markdown, not of the shell
rows=$(grep -cE '^\| [^|]+ \| `[^`]+` \| ([0-9a-f]{16}) \| \1 \| equal \|$' "$md")
# shellcheck disable=SC2016
[ "$rows" = 8 ] || fail "$rows rows of the state-hash table with one hash twice, marked equal, not 8: $(grep -E '^\| [^|]+ \| `' "$md" | grep -v ' equal |$' | tr '\n' ' ')"
# The figures: the first one ran; each of them gave its table or, on a slow
# or loaded machine (a cold shader cache: about 2 minutes in all on 2 cores),
# was skipped for the budget (program-stats may be refused by a boids-bench
# without the flag).
grep -q '^| ' "$out/logs/bench-2d-reference.log" || fail "bench-2d-reference gave no table"
for id in bench-2d-reference bench-2d-morton bench-3d bench-clustered-k7 bench-circles bench-render; do
  grep -q -e '^| ' -e '^skipped: ' "$out/logs/$id.log" || fail "$id: gave no table: rc $(why "$id")"
done
for id in program-stats program-stats-all program-stats-general; do
  grep -q -e '^steer: ' -e '^skipped: ' "$out/logs/$id.log" || fail "$id: no steer line: rc $(why "$id")"
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
