#!/usr/bin/env bash
# tools/device-check.sh: the GPU check on a machine with a real GPU
# (an NVIDIA GPU, headless EGL on the device platform). One short run,
# prioritised and bounded: at most BUDGET_S seconds in all (default 360), each
# command under `timeout` of min(its own cap, what is left of the budget), a
# command with under 5 s left skipped with a line saying so. In this order:
#   1. parity: boids-validate (CPU reference vs compute shaders) on its
#      three-group set-up at 100 k and on five scenarios; the CPU and GPU
#      state-hashes of eight boids-run runs side by side, each row marked
#      equal or DIFFERENT (the GPU path gives the CPU's bits on every driver:
#      a DIFFERENT row is a failure); boids-validate for every --kernel at
#      100 k, 2 steps; boids-validate at 1 M with every behaviour (the
#      costliest, last of the parity checks);
#   2. boids-bench --program-stats (the compiled programs' statistics: the
#      steer specialised to 2D flocking, to every behaviour, and the general
#      steer);
#   3. figures: boids-bench --backend gpu 2D 1 M and 10 M (reference kernel),
#      the steer with sqrt and division corrected and not (--rounding-cost) at 1 M,
#      the morton kernel at 1 M, 3D 1 M, 2D clustered with K = 7 and
#      --grid-fine auto at 1 M, FLAME GPU 2's Circles (1 M, 200 steps), the
#      viewer's frame off-screen (1920x1080, 1 M agents).
# One Markdown file, $OUT/device-check.md (OUT defaults to ./device-out):
# device, driver, date and commit; every command with its raw output and rc
# in a fenced block (boids-validate's PASS lines are counted, not listed: the
# whole output is in $OUT/logs/); the failures, each on a line
# "FAIL ID: REASON" (REASON "timed out after N s (cap C s)", "exit R: the
# program's last error line", "killed by signal S: ..."), also printed as the
# commands run; a summary line at the end naming what failed. One line per
# command in $OUT/status.tsv (id, kind, rc, seconds, cap, verdict pass, FAIL,
# skipped or dry, reason). Exit status 0 when every validation passed and
# every state-hash row is equal, 1 otherwise (a figure's failure is listed
# and named in the summary, but the status is parity's).
#
# Prepare here, once (the machine there is bare: no Debian libraries, no MPI,
# no network):
#   tools/device-pack.sh      # builds build-dev/ without MPI and fills .dev/
#                             # (bin/, lib/ with this Debian's libraries,
#                             # scenarios/); both folders git-ignored
# Then run with the device tool: carry [".dev"], the command
#   bash tools/device-check.sh
# and timeout_s 400 (the budget is 360 s; 400 leaves room for one rerun in a
# 15-minute lease). Nothing to install there.
#
# The environment there (each one overridable by setting it):
#   LD_LIBRARY_PATH=$PWD/.dev/lib:/usr/local/nvidia/lib64 (prepended)
#   BOIDS_SCENARIOS=$PWD/.dev/scenarios
#   BOIDS_EGL_DEVICE=hardware (when an NVIDIA driver is there; set it empty
#     for the default order, hardware then software)
#   __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
#     (when that file exists)
# Without .dev/bin it uses build/bin (BIN_DIR overrides both).
#
# Knobs: BUDGET_S (360); OUT; SCALE=full (default) or small (tiny sizes, for
# llvmpipe here: tests/test_device_check.sh); CAP_SCALE, the factor on every
# command's own cap (1 in full; 4 in small, where llvmpipe compiles each
# program on the CPU, the shader cache may be cold and the test shares two
# cores with other suites: the caps are for the device, the budget bounds
# the whole); DRY_RUN=1 (list the commands, run nothing); the sizes below by
# name (N_VALIDATE, STEPS_VALIDATE, ...).
set -uo pipefail

out=${OUT:-./device-out}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
md=$out/device-check.md
logs=$out/logs
mkdir -p "$logs"
budget=${BUDGET_S:-360}
dry=${DRY_RUN:-0}
scale=${SCALE:-full}
start=$(date +%s)

# ---- sizes: full (the device) or small (llvmpipe on a laptop) ----
case "$scale" in
  full)
    : "${N_VALIDATE:=100000}" "${STEPS_VALIDATE:=100}" "${STEPS_PREDATORS:=200}" "${STEPS_SCENARIO:=100}"
    : "${N_HASH:=100000}" "${STEPS_HASH:=200}" "${N_KERNEL:=100000}" "${STEPS_KERNEL:=2}"
    # Couzin's mill at the scenario's density (100 in 36^3), wander with
    # about 20 neighbours in reach (radius 50): their own worlds are for a
    # hundred agents and for one.
    : "${N_COUZIN:=1000}" "${WORLD_COUZIN:=78x78x78}" "${WORLD_WANDER:=10000x4000}"
    : "${N_LARGE:=1000000}" "${STEPS_LARGE:=50}"
    : "${COUNTS_BENCH:=1000000,10000000}" "${N_BENCH:=1000000}" "${STEPS_BENCH:=10}"
    : "${N_CIRCLES:=1000000}" "${STEPS_CIRCLES:=200}"
    : "${N_RENDER:=1000000}" "${STEPS_RENDER:=100}" "${RENDER_SIZE:=1920x1080}"
    : "${CAP_SCALE:=1}"
    ;;
  small)
    : "${N_VALIDATE:=2000}" "${STEPS_VALIDATE:=10}" "${STEPS_PREDATORS:=20}" "${STEPS_SCENARIO:=20}"
    : "${N_HASH:=2000}" "${STEPS_HASH:=20}" "${N_KERNEL:=2000}" "${STEPS_KERNEL:=2}"
    : "${N_COUZIN:=100}" "${WORLD_COUZIN:=36x36x36}" "${WORLD_WANDER:=1400x560}"
    : "${N_LARGE:=5000}" "${STEPS_LARGE:=5}"
    : "${COUNTS_BENCH:=2000,8000}" "${N_BENCH:=2000}" "${STEPS_BENCH:=2}"
    : "${N_CIRCLES:=2000}" "${STEPS_CIRCLES:=5}"
    : "${N_RENDER:=2000}" "${STEPS_RENDER:=5}" "${RENDER_SIZE:=320x200}"
    : "${CAP_SCALE:=4}"
    ;;
  *)
    echo "device-check: SCALE is full or small, not '$scale'" >&2
    exit 2
    ;;
esac
if ! [[ "$CAP_SCALE" =~ ^[1-9][0-9]*$ ]]; then
  echo "device-check: CAP_SCALE is a whole number from 1, not '$CAP_SCALE'" >&2
  exit 2
fi

# ---- binaries and environment ----
dev=$root/.dev
if [ -n "${BIN_DIR:-}" ]; then
  bin=$BIN_DIR
elif [ -x "$dev/bin/boids-validate" ]; then
  bin=$dev/bin
  export LD_LIBRARY_PATH=$dev/lib:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  bin=$root/build/bin
fi
if [ -z "${BOIDS_SCENARIOS:-}" ]; then
  if [ "$bin" = "$dev/bin" ] && [ -d "$dev/scenarios" ]; then
    export BOIDS_SCENARIOS=$dev/scenarios
  else
    export BOIDS_SCENARIOS=$root/scenarios
  fi
fi
nvidia_json=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES+set}" ] && [ -f "$nvidia_json" ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia_json
fi
if [ -z "${BOIDS_EGL_DEVICE+set}" ] && { [ -f "$nvidia_json" ] || command -v nvidia-smi >/dev/null 2>&1; }; then
  export BOIDS_EGL_DEVICE=hardware
fi

# ---- helpers ----
# human N: 10000000 -> "10 M", 100000 -> "100 k", 1500 -> "1500".
human() {
  local n=$1
  if [ $((n % 1000000)) -eq 0 ]; then echo "$((n / 1000000)) M"
  elif [ $((n % 1000)) -eq 0 ]; then echo "$((n / 1000)) k"
  else echo "$n"; fi
}
elapsed() { echo $(($(date +%s) - start)); }
# show CMD...: the command as typed (the binary by its name), a word quoted
# only where the shell would need it.
show() {
  local s a
  s=$(basename "$1")
  shift
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./,:=+@%-]+$ ]]; then s+=" $a"; else s+=" $(printf '%q' "$a")"; fi
  done
  echo "$s"
}
grace=3
linebuf=()
if command -v stdbuf >/dev/null 2>&1; then linebuf=(stdbuf -oL -eL); fi
validations_pass=0 validations_fail=0 validations_skip=0 timed_out=0 skipped=0 ran=0
failed_validations=() skipped_validations=() failed_others=() failure_lines=()
last_rc=
status=$out/status.tsv
printf 'id\tkind\trc\tseconds\tcap\tverdict\treason\n' >"$status"
# one_line TEXT: TEXT on one line of at most 240 characters, no tabs.
one_line() {
  local t=${1//$'\t'/ }
  t=${t//$'\r'/}
  if [ "${#t}" -gt 240 ]; then t="${t:0:237}..."; fi
  echo "$t"
}
# reason LOG RC SECONDS CAP BUDGET_CUT PROG: why a command that did not exit 0
# failed, in one line: timed out (rc 124, or 137 at its cap: timeout's KILL
# after its TERM), killed by a signal (the log's last line), or its exit
# status and the program's last error line (its last line that begins
# "PROG: ", else the log's last line). A boids-validate that exits 1 also
# names its first failing check.
reason() {
  local log=$1 rc=$2 secs=$3 cap=$4 cut=$5 prog=$6 line first capnote="cap ${4} s"
  if [ "$cut" = 1 ]; then capnote+=": what was left of the ${budget} s budget"; fi
  if [ "$rc" = 124 ] || { [ "$rc" = 137 ] && [ "$secs" -ge "$cap" ]; }; then
    echo "timed out after ${secs} s (${capnote})"
    return
  fi
  if [ "$rc" -gt 128 ] 2>/dev/null; then
    line=$(grep -a -v '^[[:space:]]*$' "$log" | tail -n 1)
    one_line "killed by signal $(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))) (rc $rc, after ${secs} s): ${line:-no output}"
    return
  fi
  line=$(grep -a "^$prog: " "$log" | tail -n 1)
  [ -n "$line" ] || line=$(grep -a -v '^[[:space:]]*$' "$log" | tail -n 1)
  if [ "$prog" = boids-validate ] && [ "$rc" = 1 ]; then
    first=$(grep -a -m 1 -E '^[[:space:]]*FAIL' "$log" | sed -E 's/^[[:space:]]+//; s/[[:space:]]+/ /g')
    if [ -n "$first" ]; then line+="; first: $first"; fi
  fi
  one_line "exit $rc: ${line:-no output}"
}
# run ID CAP KIND TITLE CMD...: a level-3 section TITLE in the Markdown, the
# command, its raw output in a fenced block ending with its rc and seconds
# (and, when it failed, "FAIL: REASON"). CMD runs under timeout min(CAP x
# CAP_SCALE, what is left of the budget), or is skipped with a line saying
# so when under 5 s are left. KIND validate: the PASS lines are counted, not
# listed, and the result counts in the summary. The whole output is in
# $logs/ID.log; a line in $status; last_rc is the rc (or "skipped").
run() {
  local id=$1 cap=$(($2 * CAP_SCALE)) kind=$3 title=$4 left t0 t1 ms rc log npass note="" cut=0 verdict why="" prog a
  shift 4
  log=$logs/$id.log
  # The program, for its error lines: the first word that is not env or a
  # VAR=value.
  prog=
  for a in "$@"; do
    case "$a" in env | *=*) ;; *) prog=$(basename "$a") && break ;; esac
  done
  # What is left, less the grace of timeout's KILL after its TERM.
  left=$((budget - $(elapsed) - grace))
  if [ "$left" -lt 0 ]; then left=0; fi
  if [ "$left" -lt "$cap" ]; then cap=$left cut=1; fi
  {
    echo
    echo "### $title"
    echo
    echo "\`$(show "$@")\`"
    echo
    echo '```text'
  } >>"$md"
  if [ "$dry" = 1 ]; then
    echo "(dry run: not run; its time-out would be ${cap} s)" | tee "$log" >>"$md"
    rc=dry ms=0 verdict=dry
  elif [ "$cap" -lt 5 ]; then
    why="skipped: ${left} s left of the ${budget} s budget"
    echo "$why" | tee "$log" >>"$md"
    rc=skipped ms=0 verdict=skipped
    skipped=$((skipped + 1))
  else
    t0=$(date +%s%N)
    # (The braces take the shell's "Killed" line; stdbuf keeps a killed
    # command's lines so far.)
    { timeout -k "$grace" "$cap" "${linebuf[@]}" "$@" >"$log" 2>&1; } 2>/dev/null
    rc=$?
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    ran=$((ran + 1))
    if [ "$kind" = validate ]; then
      npass=$(grep -c '^  PASS ' "$log")
      grep -v '^  PASS ' "$log" >>"$md"
      echo "($npass PASS lines not listed: logs/$id.log)" >>"$md"
    else
      cat "$log" >>"$md"
    fi
    if [ "$rc" = 0 ]; then
      verdict=pass
    else
      verdict=FAIL
      why=$(reason "$log" "$rc" $((ms / 1000)) "$cap" "$cut" "$prog")
      case "$why" in "timed out"*) timed_out=$((timed_out + 1)) ;; esac
      note=$'\n'"FAIL: $why"
      failure_lines+=("FAIL $id: $why")
      if [ "$kind" != validate ]; then failed_others+=("$id"); fi
    fi
  fi
  printf 'rc=%s (%d.%03d s)%s\n```\n' "$rc" $((ms / 1000)) $((ms % 1000)) "$note" >>"$md"
  if [ "$kind" = validate ]; then
    case "$rc" in
      0) validations_pass=$((validations_pass + 1)) ;;
      skipped)
        validations_skip=$((validations_skip + 1))
        skipped_validations+=("$id")
        ;;
      dry) ;;
      *)
        validations_fail=$((validations_fail + 1))
        failed_validations+=("$id")
        ;;
    esac
  fi
  printf '%s\t%s\t%s\t%d.%03d\t%s\t%s\t%s\n' "$id" "$kind" "$rc" $((ms / 1000)) $((ms % 1000)) "$cap" "$verdict" "$why" >>"$status"
  printf '[%3d s] %-26s rc=%s\n' "$(elapsed)" "$id" "$rc"
  if [ "$verdict" = FAIL ]; then echo "FAIL $id: $why"; fi
  last_rc=$rc
}

# ---- header ----
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
device=${device:-"no nvidia-smi (device in the GL renderer line of the summary)"}
# The commit: git's where it is there (the device's copy of the tree may have
# no .git), and the one .dev/'s binaries were built from (device-pack.sh).
built=""
if [ "$bin" = "$dev/bin" ] && [ -f "$dev/COMMIT" ]; then
  built=" (built from $(head -1 "$dev/COMMIT" | cut -c1-12)$(sed -n '2s/^/ /p' "$dev/COMMIT"))"
fi
if commit=$(git rev-parse --short HEAD 2>/dev/null); then
  if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit+=" (with uncommitted changes)"; fi
else
  commit="unknown (no git here)"
fi
{
  echo "# tools/device-check.sh: ${device}, $(date -u '+%Y-%m-%d %H:%M UTC'), commit ${commit}"
  echo
  echo "Binaries: ${bin#"$root"/}${built}; BOIDS_EGL_DEVICE=${BOIDS_EGL_DEVICE-(unset)}; SCALE=${scale}; budget ${budget} s$([ "$dry" = 1 ] && echo "; dry run: nothing was run")."
} >"$md"
echo "device-check: $md (budget ${budget} s, SCALE=${scale}, binaries in $bin)"

v=$bin/boids-validate
r=$bin/boids-run
b=$bin/boids-bench

# ---- parity ----
echo -e "\n## 1. Parity: the GPU against the CPU reference" >>"$md"
run validate-default 40 validate "boids-validate: its three-group set-up, every behaviour, $(human "$N_VALIDATE") agents, $STEPS_VALIDATE steps" \
  "$v" --count "$N_VALIDATE" --steps "$STEPS_VALIDATE"
# The GL renderer and context, from boids-validate's first line.
gl_line=
if [ "$last_rc" != dry ] && [ "$last_rc" != skipped ]; then
  gl_line=$(sed -n '1{s/^boids-validate [^:]*: [0-9]* agents, [23]D, //;s/, seed [0-9]*//;p}' "$logs/validate-default.log" 2>/dev/null)
fi
run validate-predators-prey 30 validate "boids-validate: scenario predators-prey, $STEPS_PREDATORS steps" \
  "$v" --scenario predators-prey --steps "$STEPS_PREDATORS"
for s in formations feelers path-following couzin-mill; do
  run "validate-$s" 20 validate "boids-validate: scenario $s, $STEPS_SCENARIO steps" \
    "$v" --scenario "$s" --steps "$STEPS_SCENARIO"
done

# State-hashes: the last line of boids-run is 'state-hash: H'. The GPU path
# gives the CPU's bits on every driver, so each row is equal or a failure:
# DIFFERENT (both hashes, not the same), or not compared (a run that failed,
# timed out or was skipped: its FAIL line says why).
echo -e "\n## 2. State-hashes, CPU and GPU (boids-run)" >>"$md"
hash_names=("flocking 2D" "flocking 3D" "predators-prey" "circles" "all behaviours, snake bodies"
            "Vicsek" "Couzin mill" "wander")
hash_args=("--count $N_HASH --steps $STEPS_HASH --dim 2"
           "--count $N_HASH --steps $STEPS_HASH --dim 3"
           "--scenario predators-prey --steps $STEPS_HASH"
           "--scenario circles --count $N_HASH --steps $STEPS_HASH"
           "--count $N_HASH --steps $STEPS_HASH --behaviors all --bodies snake"
           "--scenario vicsek --count $N_HASH --steps $STEPS_HASH"
           "--scenario couzin-mill --count $N_COUZIN --world $WORLD_COUZIN --steps $STEPS_HASH"
           "--scenario wander --count $N_HASH --world $WORLD_WANDER --steps $STEPS_HASH")
table=() hashes_equal=0 hashes_different=() hashes_missing=()
for i in "${!hash_names[@]}"; do
  read -ra args <<<"${hash_args[$i]}"
  h=() why=()
  for backend in cpu gpu; do
    id="hash-$i-$backend"
    run "$id" 25 hash "boids-run --backend $backend: ${hash_names[$i]}" "$r" "${args[@]}" --backend "$backend"
    hv=
    if [ "$last_rc" = 0 ]; then
      hv=$(tail -n 1 "$logs/$id.log" | sed -n 's/^state-hash: \([0-9a-f]\{16\}\)$/\1/p')
    fi
    h+=("$hv")
    if [ -n "$hv" ]; then
      why+=("")
    elif [ "$last_rc" = 0 ]; then
      why+=("$backend: no state-hash line")
      failure_lines+=("FAIL $id: exit 0 but its last line is not 'state-hash: H'")
      echo "${failure_lines[-1]}"
    else
      why+=("$backend: rc $last_rc")
    fi
  done
  if [ -n "${h[0]}" ] && [ -n "${h[1]}" ]; then
    if [ "${h[0]}" = "${h[1]}" ]; then
      mark=equal hashes_equal=$((hashes_equal + 1))
    else
      mark=DIFFERENT
      hashes_different+=("'${hash_names[$i]}'")
      failure_lines+=("FAIL state-hash row '${hash_names[$i]}': DIFFERENT (CPU ${h[0]}, GPU ${h[1]})")
      echo "${failure_lines[-1]}"
    fi
  elif [ "$dry" = 1 ]; then
    mark="(dry run)"
  else
    w=""
    for x in "${why[@]}"; do
      if [ -n "$x" ]; then w+="${w:+; }$x"; fi
    done
    mark="not compared ($w)"
    hashes_missing+=("'${hash_names[$i]}'")
  fi
  table+=("| ${hash_names[$i]} | \`${hash_args[$i]}\` | ${h[0]:-–} | ${h[1]:-–} | $mark |")
done
{
  echo
  echo "### State-hashes side by side"
  echo
  echo "Every row must be equal: the GPU path gives the CPU reference's bits on every driver."
  echo
  echo "| run | boids-run flags | CPU | GPU | CPU = GPU |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${table[@]}"
} >>"$md"

echo -e "\n## 3. Parity of every GPU kernel (boids-validate --kernel)" >>"$md"
for k in reference morton; do
  run "validate-kernel-$k" 20 validate "boids-validate --kernel $k: $(human "$N_KERNEL") agents, $STEPS_KERNEL steps" \
    "$v" --kernel "$k" --count "$N_KERNEL" --steps "$STEPS_KERNEL"
done

echo -e "\n## 4. Parity at scale: every behaviour" >>"$md"
run validate-large 120 validate "boids-validate: $(human "$N_LARGE") agents, $STEPS_LARGE steps, every behaviour" \
  "$v" --count "$N_LARGE" --steps "$STEPS_LARGE" --behaviors all

# ---- the compiled programs ----
echo -e "\n## 5. The compiled programs (boids-bench --program-stats)" >>"$md"
run program-stats 20 bench "boids-bench --program-stats (2D flocking: its specialised steer)" \
  "$b" --backend gpu --program-stats --counts 1000 --steps 2 --quiet
run program-stats-all 20 bench "boids-bench --program-stats --behaviors all (every behaviour's specialised steer)" \
  "$b" --backend gpu --program-stats --counts 1000 --steps 2 --quiet --behaviors all
run program-stats-general 20 bench "The general steer (BOIDS_DEBUG=steer-general: every behaviour, rule set, relation, K)" \
  env BOIDS_DEBUG=steer-general "$b" --backend gpu --program-stats --counts 1000 --steps 2 --quiet

# ---- figures ----
echo -e "\n## 6. Figures (boids-bench --backend gpu)" >>"$md"
run bench-2d-reference 75 bench "2D, reference kernel, $COUNTS_BENCH agents" \
  "$b" --backend gpu --kernel reference --dim 2 --counts "$COUNTS_BENCH" --steps "$STEPS_BENCH" --quiet
# What correcting sqrt and division to the C's costs this driver (the steer
# with the correction on and off, side by side).
run bench-rounding-cost 30 bench "2D, the steer with sqrt and division corrected and not, $(human "$N_BENCH") agents" \
  "$b" --backend gpu --rounding-cost --dim 2 --counts "$N_BENCH" --steps "$STEPS_BENCH" --quiet
for k in morton; do
  run "bench-2d-$k" 15 bench "2D, kernel $k, $(human "$N_BENCH") agents" \
    "$b" --backend gpu --kernel "$k" --dim 2 --counts "$N_BENCH" --steps "$STEPS_BENCH" --quiet
done
run bench-3d 20 bench "3D, reference kernel, $(human "$N_BENCH") agents" \
  "$b" --backend gpu --dim 3 --counts "$N_BENCH" --steps "$STEPS_BENCH" --quiet
run bench-clustered-k7 30 bench "2D clustered, K = 7 nearest, --grid-fine auto, $(human "$N_BENCH") agents" \
  "$b" --backend gpu --distribution clustered --neighbors-max 7 --grid-fine auto --counts "$N_BENCH" \
  --steps "$STEPS_BENCH" --quiet
# FLAME GPU 2's Circles (their H100 PCIe: 2.12 ms/step at 1 M agents, 200 steps).
run bench-circles 40 bench "FLAME GPU 2's Circles, $(human "$N_CIRCLES") agents, $STEPS_CIRCLES steps" \
  "$b" --backend gpu --workload circles --counts "$N_CIRCLES" --steps "$STEPS_CIRCLES" --quiet
# The viewer's frame off-screen: each step, the engine's step, the viewer's
# draw into a framebuffer object, glFinish (target on an H200: >= 144 frames/s).
shot=render-$(human "$N_RENDER" | tr -d ' ' | tr 'MK' 'mk').png
run bench-render 40 bench "The viewer's frame off-screen, $RENDER_SIZE, $(human "$N_RENDER") agents, $STEPS_RENDER steps" \
  "$b" --backend gpu --render "$RENDER_SIZE" --counts "$N_RENDER" --steps "$STEPS_RENDER" --quiet \
  --screenshot "$out/$shot"

# ---- summary ----
# list NAME...: the names joined by ", ".
list() {
  local s="" x
  for x in "$@"; do s+="${s:+, }$x"; done
  echo "$s"
}
summary="Summary: validations ${validations_pass} passed, ${validations_fail} failed, ${validations_skip} skipped"
if [ "${#failed_validations[@]}" -gt 0 ]; then summary+=" (failed: $(list "${failed_validations[@]}"))"; fi
if [ "${#skipped_validations[@]}" -gt 0 ]; then summary+=" (skipped: $(list "${skipped_validations[@]}"))"; fi
summary+="; state-hash rows equal ${hashes_equal} of ${#hash_names[@]}"
if [ "${#hashes_different[@]}" -gt 0 ]; then summary+=", DIFFERENT: $(list "${hashes_different[@]}")"; fi
if [ "${#hashes_missing[@]}" -gt 0 ]; then summary+=", not compared: $(list "${hashes_missing[@]}")"; fi
summary+="; ${ran} commands run, ${timed_out} timed out, ${skipped} skipped"
if [ "${#failed_others[@]}" -gt 0 ]; then summary+=", failed besides validations: $(list "${failed_others[@]}")"; fi
summary+="; $(elapsed) s of ${budget} s."
{
  echo
  echo "## Failures"
  echo
  if [ "${#failure_lines[@]}" -gt 0 ]; then
    printf '    %s\n' "${failure_lines[@]}"
  else
    echo "None."
  fi
  echo
  echo "## Summary"
  echo
  echo "GL renderer: ${gl_line:-unknown (boids-validate gave no first line)}"
  echo
  echo "$summary"
} >>"$md"
echo "$summary"
if [ "$dry" = 1 ]; then exit 0; fi
[ "$validations_fail" -eq 0 ] && [ "$validations_skip" -eq 0 ] && [ "$hashes_equal" -eq "${#hash_names[@]}" ]
