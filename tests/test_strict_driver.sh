#!/usr/bin/env bash
# tests/test_strict_driver.sh BUILD SOURCE [checks|runs]: the strict-driver
# run (checks: items 1, 3, 4, 5 below; runs: item 2; both without). Mesa's
# llvmpipe computes conversions, square roots and divisions exactly as the
# C reference does; GLSL 4.50 lets other drivers (an NVIDIA H200 among them)
# convert an out-of-range float to an integer through 32 bits and round
# sqrt, inversesqrt and division a few ULP off (any `a / b`, or as
# a * (1 / b)), and leaves sin, cos, atan, log... without any precision.
# BOIDS_DEBUG=emulate=... assembles shaders/emulate.glsl in front of every compute
# shader to do exactly that on llvmpipe (conv-sat, conv-wrap, ulp-up,
# ulp-down, div-up, div-down, trig; div-* on a copy of the shaders whose
# every division tests/div_rewrite.py made an emu_div() call, which the GPU
# runs load with --shader-dir), and under each:
#   1. boids-validate passes (every behaviour, rule set, bodies);
#   2. the GPU's state-hash equals the CPU reference's, and so do the bodies'
#      joints (--save's JNTS chunk; the state-hash leaves bodies out):
#      flocking 2D and 3D, predators-prey, Circles under every emulation;
#      wander, angle-bug, the tutorial's rules, Vicsek, Couzin's mill and
#      parallel group, chain, snake and fish bodies, 3D with every
#      behaviour under none, ulp-down, div-up and trig. The shaders correct
#      the driver's roundings to the C's and call no trig or log built-in,
#      so the bits survive every emulation;
#   3. the emulation bites: a copy of the shaders with int64_t(float) back in
#      the fixed point fails validation under conv-sat, one without the
#      correction of sqrt and division gives another state-hash under
#      ulp-up, the division rewrite (which must compile, glslangValidator
#      included) gives another under div-up with the correction off
#      (correct-rounding=off: fdiv's own quotient is then the emulated
#      driver's), and a copy whose sinf calls the driver's sin moves
#      wander's state-hash under trig (so a pass above is the shaders'
#      doing, not a dead emulation);
#   4. the rounding probe turns the correction on where it is needed only
#      (and forced on, it keeps an exact driver's bits);
#   5. a bad emulation list is refused (exit 2, a message naming it).
# Label gpu: llvmpipe through headless EGL; no GL 4.5 context fails.
set -uo pipefail
build=$1
src=$2
part=${3:-all}
bin=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/checks.sh
. "$(dirname "$0")/checks.sh"
emulations="conv-sat conv-wrap ulp-up ulp-down div-up div-down trig"
# Every division of the shaders an emu_div() call, for div-up and div-down
# (the rewrite fails, and says where, if a `/` it cannot reach is left).
if out=$(/usr/bin/python3 "$src/tests/div_rewrite.py" "$src/shaders" "$tmp/div" 2>&1); then
  ok "the division rewrite: $out"
else
  bad "the division rewrite failed: $out"
fi
shader_dir_of() { # shader_dir_of EMULATION: the --shader-dir option it runs with
  case $1 in div-*) echo "--shader-dir $tmp/div" ;; esac
}
# glslang_under DIR DEFINES LABEL: every compute shader of the shaders in
# DIR, as the backend assembles it (tests/shader_source.c), with DIR's
# emulate.glsl put in front under the #defines DEFINES (BOIDS_EMULATE_ items,
# space-separated), through the reference compiler: Mesa accepts some GLSL
# that others reject (a function call in an array's size once a
# constructor is an emulation's macro, say).
glslang_under() {
  glslang_runs=$((${glslang_runs:-0} + 1))
  local dir=$1 defs=$2 label=$3 out=$tmp/glsl-$glslang_runs n=0 f
  local rejected=()
  mkdir -p "$out"
  if ! "$bin/boids-shader-source" "$out" "$dir" >/dev/null 2>"$out.err"; then
    bad "boids-shader-source could not assemble $label: $(head -3 "$out.err")"
    return
  fi
  for f in "$out"/*.comp; do
    awk -v emu="$dir/emulate.glsl" -v defs="$defs" '!done && $0 == "#line 1 1" {
        k = split(defs, d, " ")
        for (i = 1; i <= k; i++) print "#define BOIDS_EMULATE_" d[i] " 1"
        print "#line 1 0"
        while ((getline l < emu) > 0) print l
        done = 1
      } { print }' "$f" >"$f.emu"
    n=$((n + 1))
    glslangValidator -l -S comp "$f.emu" >"$f.log" 2>&1 || rejected+=("$(basename "$f"): $(grep -m1 ERROR "$f.log")")
  done
  if [[ $n -gt 0 && ${#rejected[@]} -eq 0 ]]; then
    ok "glslangValidator accepts $label under $defs ($n compute sources)"
  else
    bad "glslangValidator rejects $label under $defs ($n checked): ${rejected[*]:0:3}"
  fi
}
if [[ $part == runs ]]; then
  : # the checks' part
elif ! command -v glslangValidator >/dev/null 2>&1; then
  bad "glslangValidator not found: run tools/deps.sh (installs Debian's glslang-tools)"
else
  glslang_under "$tmp/div" "DIV_UP TRIG" "the rewritten copy"
  for defs in CONV_SAT CONV_WRAP ULP_UP; do
    glslang_under "$src/shaders" "$defs" "the shaders"
  done
fi
for e in $emulations; do
  [[ $part == runs ]] && break
  # shellcheck disable=SC2046 # the option and its directory, two words
  if out=$(BOIDS_DEBUG="emulate=$e" "$bin/boids-validate" --count 10000 --steps 2 --quiet $(shader_dir_of "$e") 2>&1); then
    ok "boids-validate under $e: $(echo "$out" | tail -1)"
  else
    bad "boids-validate under $e:"
    echo "$out" | grep -E 'FAIL|error' | head -20
  fi
done
# The state-hash and a digest of the bodies' joints: the JNTS chunk of
# --save's snapshot (tag, 64-bit length, data, CRC per chunk after a 12-byte
# header), "none" without bodies.
state_of() {
  rm -f "$tmp/state.boids"
  local h
  h=$("$bin/boids-run" "$@" --quiet --save "$tmp/state.boids" 2>&1 | tail -1)
  [[ $h == state-hash:* ]] || { echo "$h"; return; }
  echo "$h, joints $(/usr/bin/python3 -c '
import hashlib, struct, sys
d = open(sys.argv[1], "rb").read()
i = 12
while i + 12 <= len(d):
    n = struct.unpack_from("<Q", d, i + 4)[0]
    if d[i:i + 4] == b"JNTS":
        sys.exit(print(hashlib.sha1(d[i + 12:i + 12 + n]).hexdigest()[:16]))
    i += 16 + n
print("none")' "$tmp/state.boids" 2>&1)"
}
# Under every emulation: flocks, predators-prey, Circles. Then short runs
# (a few thousand agents, tens of steps) that reach every rule set, wander,
# the turn limits and the bodies, under no emulation and one of each pair
# (sqrt, division, trig: what they could meet), to keep within the timeout.
runs=("--count 3000 --steps 40" "--count 3000 --steps 40 --dim 3" "--scenario predators-prey --steps 60"
  "--scenario circles --count 5000 --steps 60")
more_runs=("--behaviors wander --count 3000 --steps 30" "--scenario angle-bug --count 2000 --steps 30"
  "--scenario flocking-tutorial --count 2000 --steps 30" "--scenario vicsek --count 2000 --steps 30"
  "--scenario couzin-mill --count 1000 --steps 20" "--scenario couzin-parallel --count 1000 --steps 20"
  "--count 2000 --steps 30 --bodies chain" "--count 2000 --steps 30 --bodies snake"
  "--count 2000 --steps 30 --bodies fish" "--count 2000 --steps 20 --dim 3 --behaviors all")
for args in "${runs[@]}" "${more_runs[@]}"; do
  [[ $part == checks ]] && break
  list=$emulations
  [[ " ${runs[*]} " == *" $args "* ]] || list="ulp-down div-up trig"
  # shellcheck disable=SC2086 # args holds several words
  cpu=$(state_of $args --backend cpu)
  if [[ $cpu != state-hash:* ]]; then
    bad "boids-run $args --backend cpu: no state-hash ($cpu)"
    continue
  fi
  for e in "" $list; do
    # shellcheck disable=SC2086,SC2046
    gpu=$(BOIDS_DEBUG="emulate=$e" state_of $args --backend gpu $(shader_dir_of "$e"))
    if [[ $gpu == "$cpu" ]]; then
      ok "$args, emulation '${e:-none}': GPU $gpu = CPU"
    else
      bad "$args, emulation '${e:-none}': GPU '$gpu', CPU '$cpu'"
    fi
  done
done
if [[ $part == runs ]]; then
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
fi
# 3. The emulations bite. The fixed point with the conversion an H200
# mis-converted (int64_t of a float past 2^31):
cp -r "$src/shaders" "$tmp/conv"
sed -i 's/fix64 m = int64_t(packUint2x32(fix_trunc_mag(abs(v))));/fix64 m = int64_t(abs(v));/' "$tmp/conv/behaviors.glsl"
if ! grep -q 'fix64 m = int64_t(abs(v));' "$tmp/conv/behaviors.glsl"; then
  bad "the fixed point's conversion line was not found in behaviors.glsl (update this test)"
elif BOIDS_DEBUG=emulate=conv-sat "$bin/boids-validate" --count 10000 --steps 2 --quiet --shader-dir "$tmp/conv" >"$tmp/conv.out" 2>&1; then
  bad "int64_t(float) under conv-sat passed validation: the emulation does nothing"
else
  ok "int64_t(float) under conv-sat fails validation ($(grep -c FAIL "$tmp/conv.out") checks), as on the H200"
fi
# Square root and division without their correction (its block in each
# function compiled out, the driver's result returned):
cp -r "$src/shaders" "$tmp/ulp"
sed -i 's/^#ifdef BOIDS_CORRECT_ROUNDING$/#if 0/' "$tmp/ulp/rounding.glsl"
if [[ $(grep -c '^#if 0$' "$tmp/ulp/rounding.glsl") -ne 2 ]]; then
  bad "the sqrt and division corrections were not found in rounding.glsl (update this test)"
else
  cpu=$(hash_of --count 3000 --steps 40 --backend cpu)
  gpu=$(BOIDS_DEBUG=emulate=ulp-up hash_of --count 3000 --steps 40 --backend gpu --shader-dir "$tmp/ulp")
  if [[ $gpu != state-hash:* ]]; then
    bad "the uncorrected run gave no state-hash ($gpu)"
  elif [[ $gpu == "$cpu" ]]; then
    bad "uncorrected sqrt and division under ulp-up keep the CPU's state-hash: the emulation does nothing"
  else
    ok "uncorrected sqrt and division under ulp-up: GPU $gpu, CPU $cpu (differ, as expected)"
  fi
fi
# The division rewrite reaches divisions: fdiv()'s own quotient is one
# (rounding.glsl), so with the correction off (correct-rounding=off)
# div-up on the rewritten copy moves the state-hash.
cpu=$(hash_of --count 3000 --steps 40 --backend cpu)
gpu=$(BOIDS_DEBUG="emulate=div-up;correct-rounding=off" hash_of --count 3000 --steps 40 --backend gpu --shader-dir "$tmp/div")
if [[ $gpu != state-hash:* ]]; then
  bad "the rewritten copy under div-up, uncorrected, gave no state-hash ($gpu)"
elif [[ $gpu == "$cpu" ]]; then
  bad "the rewritten copy under div-up, uncorrected, keeps the CPU's state-hash: the division emulation does nothing"
else
  ok "the rewritten copy under div-up, uncorrected: GPU $gpu, CPU $cpu (differ, as expected)"
fi
# The trig item reaches the built-ins: with the driver's sin back in
# trig.glsl's sinf (a copy), wander's GPU state-hash moves under trig.
cp -r "$src/shaders" "$tmp/trig"
sed -i 's/^float sinf(float a) {$/float sinf(float a) { return sin(a); \/\/ the driver'"'"'s, for the test/' "$tmp/trig/trig.glsl"
if ! grep -q 'return sin(a); // the driver' "$tmp/trig/trig.glsl"; then
  bad "sinf was not found in trig.glsl (update this test)"
else
  args=(--behaviors wander --count 3000 --steps 30 --backend gpu --shader-dir "$tmp/trig")
  plain=$(hash_of "${args[@]}")
  trig=$(BOIDS_DEBUG=emulate=trig hash_of "${args[@]}")
  if [[ $plain != state-hash:* || $trig != state-hash:* ]]; then
    bad "wander with the driver's sin gave no state-hash: '$plain', under trig '$trig'"
  elif [[ $plain == "$trig" ]]; then
    bad "wander with the driver's sin keeps its state-hash under trig: the trig emulation does nothing"
  else
    ok "wander with the driver's sin: $plain, under trig $trig (differ, as expected)"
  fi
fi
# The probe (rounding_probe.comp) decides the correction: off where the
# driver rounds as the C (llvmpipe), on under ulp-up; forced on
# (correct-rounding=on) it keeps the bits of a driver that needs none.
plain=$("$bin/boids-validate" --count 100 --steps 1 2>&1 | sed -n 2p)
up=$(BOIDS_DEBUG=emulate=ulp-up "$bin/boids-validate" --count 100 --steps 1 2>&1 | sed -n 2p)
if [[ $plain == *"are the C's"* && $up == *"corrected in the shaders"* ]]; then
  ok "the rounding probe: llvmpipe '$plain'; ulp-up '$up'"
else
  bad "the rounding probe: llvmpipe '$plain'; ulp-up '$up'"
fi
cpu=$(hash_of --count 3000 --steps 40 --backend cpu)
gpu=$(BOIDS_DEBUG=correct-rounding=on hash_of --count 3000 --steps 40 --backend gpu)
if [[ $gpu == "$cpu" && $cpu == state-hash:* ]]; then
  ok "correct-rounding=on on llvmpipe: GPU $gpu = CPU"
else
  bad "correct-rounding=on on llvmpipe: GPU '$gpu', CPU '$cpu'"
fi
# 5. A bad value.
msg=$(BOIDS_DEBUG=emulate=conv-sat,sqrt "$bin/boids-validate" --count 100 --steps 1 2>&1)
rc=$?
if [[ $rc -eq 2 && $msg == *"BOIDS_DEBUG emulate: 'conv-sat,sqrt'"* ]]; then
  ok "emulate=conv-sat,sqrt refused, exit 2"
else
  bad "emulate=conv-sat,sqrt: exit $rc, '$msg'"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
