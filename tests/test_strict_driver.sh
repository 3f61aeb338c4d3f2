#!/usr/bin/env bash
# tests/test_strict_driver.sh BUILD SOURCE: the strict-driver run. Mesa's
# llvmpipe computes conversions, square roots and divisions exactly as the
# C reference does; GLSL 4.50 lets other drivers (an NVIDIA H200 among them)
# convert an out-of-range float to an integer through 32 bits and round
# sqrt, inversesqrt and division a few ULP off. $BOIDS_EMULATE assembles
# shaders/emulate.glsl in front of every compute shader to do exactly that
# on llvmpipe (conv-sat, conv-wrap, ulp-up, ulp-down), and under each:
#   1. boids-validate passes (every behaviour, rule set, bodies);
#   2. the GPU's state-hash equals the CPU reference's (flocking 2D and 3D,
#      predators-prey, Circles): the shaders correct the driver's roundings to the
#      C's, so the bits survive every emulation;
#   3. the emulation bites: a copy of the shaders with int64_t(float) back in
#      the fixed point fails validation under conv-sat, and one without the
#      correction of sqrt and division gives another state-hash under
#      ulp-up (so a pass above is the shaders' doing, not a dead emulation);
#   4. the rounding probe turns the correction on where it is needed only
#      (and forced on, it keeps an exact driver's bits);
#   5. a bad BOIDS_EMULATE is refused (exit 2, a message naming it).
# Label gpu: llvmpipe through headless EGL; no GL 4.5 context fails.
set -uo pipefail
build=$1
src=$2
bin=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/checks.sh
. "$(dirname "$0")/checks.sh"
emulations="conv-sat conv-wrap ulp-up ulp-down"
for e in $emulations; do
  if out=$(BOIDS_EMULATE=$e "$bin/boids-validate" --count 10000 --steps 2 --quiet 2>&1); then
    ok "boids-validate under $e: $(echo "$out" | tail -1)"
  else
    bad "boids-validate under $e:"
    echo "$out" | grep -E 'FAIL|error' | head -20
  fi
done
runs=("--count 3000 --steps 40" "--count 3000 --steps 40 --dim 3" "--scenario predators-prey --steps 60"
  "--scenario circles --count 5000 --steps 60")
for args in "${runs[@]}"; do
  # shellcheck disable=SC2086 # args holds several words
  cpu=$(hash_of $args --backend cpu)
  if [[ $cpu != state-hash:* ]]; then
    bad "boids-run $args --backend cpu: no state-hash ($cpu)"
    continue
  fi
  for e in "" $emulations; do
    # shellcheck disable=SC2086
    gpu=$(BOIDS_EMULATE=$e hash_of $args --backend gpu)
    if [[ $gpu == "$cpu" ]]; then
      ok "$args, emulation '${e:-none}': GPU $gpu = CPU"
    else
      bad "$args, emulation '${e:-none}': GPU '$gpu', CPU '$cpu'"
    fi
  done
done
# 3. The emulations bite. The fixed point with the conversion an H200
# mis-converted (int64_t of a float past 2^31):
cp -r "$src/shaders" "$tmp/conv"
sed -i 's/fix64 m = int64_t(packUint2x32(fix_trunc_mag(abs(v))));/fix64 m = int64_t(abs(v));/' "$tmp/conv/behaviors.glsl"
if ! grep -q 'fix64 m = int64_t(abs(v));' "$tmp/conv/behaviors.glsl"; then
  bad "the fixed point's conversion line was not found in behaviors.glsl (update this test)"
elif BOIDS_EMULATE=conv-sat "$bin/boids-validate" --count 10000 --steps 2 --quiet --shader-dir "$tmp/conv" >"$tmp/conv.out" 2>&1; then
  bad "int64_t(float) under conv-sat passed validation: the emulation does nothing"
else
  ok "int64_t(float) under conv-sat fails validation ($(grep -c FAIL "$tmp/conv.out") checks), as on the H200"
fi
# Square root and division without their correction (the loops never run):
cp -r "$src/shaders" "$tmp/ulp"
sed -i 's/for (int k = 0; k < 4; k++)/for (int k = 0; k < 0; k++)/' "$tmp/ulp/rounding.glsl"
if [[ $(grep -c 'k < 0; k++' "$tmp/ulp/rounding.glsl") -ne 2 ]]; then
  bad "the sqrt and division corrections were not found in rounding.glsl (update this test)"
else
  cpu=$(hash_of --count 3000 --steps 40 --backend cpu)
  gpu=$(BOIDS_EMULATE=ulp-up hash_of --count 3000 --steps 40 --backend gpu --shader-dir "$tmp/ulp")
  if [[ $gpu != state-hash:* ]]; then
    bad "the uncorrected run gave no state-hash ($gpu)"
  elif [[ $gpu == "$cpu" ]]; then
    bad "uncorrected sqrt and division under ulp-up keep the CPU's state-hash: the emulation does nothing"
  else
    ok "uncorrected sqrt and division under ulp-up: GPU $gpu, CPU $cpu (differ, as expected)"
  fi
fi
# The probe (rounding_probe.comp) decides the correction: off where the
# driver rounds as the C (llvmpipe), on under ulp-up; forced on
# (BOIDS_CORRECT_ROUNDING=1) it keeps the bits of a driver that needs none.
plain=$("$bin/boids-validate" --count 100 --steps 1 2>&1 | sed -n 2p)
up=$(BOIDS_EMULATE=ulp-up "$bin/boids-validate" --count 100 --steps 1 2>&1 | sed -n 2p)
if [[ $plain == *"are the C's"* && $up == *"corrected in the shaders"* ]]; then
  ok "the rounding probe: llvmpipe '$plain'; ulp-up '$up'"
else
  bad "the rounding probe: llvmpipe '$plain'; ulp-up '$up'"
fi
cpu=$(hash_of --count 3000 --steps 40 --backend cpu)
gpu=$(BOIDS_CORRECT_ROUNDING=1 hash_of --count 3000 --steps 40 --backend gpu)
if [[ $gpu == "$cpu" && $cpu == state-hash:* ]]; then
  ok "BOIDS_CORRECT_ROUNDING=1 on llvmpipe: GPU $gpu = CPU"
else
  bad "BOIDS_CORRECT_ROUNDING=1 on llvmpipe: GPU '$gpu', CPU '$cpu'"
fi
# 5. A bad value.
msg=$(BOIDS_EMULATE=conv-sat,sqrt "$bin/boids-validate" --count 100 --steps 1 2>&1)
rc=$?
if [[ $rc -eq 2 && $msg == *"BOIDS_EMULATE: 'conv-sat,sqrt'"* ]]; then
  ok "BOIDS_EMULATE=conv-sat,sqrt refused, exit 2"
else
  bad "BOIDS_EMULATE=conv-sat,sqrt: exit $rc, '$msg'"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
