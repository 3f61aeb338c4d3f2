#!/usr/bin/env bash
# tests/test_python_install.sh BUILD_DIR SOURCE_DIR (ctest: test_python_install,
# label python): README.md's one command for a user, read from README.md
# and run as written -- a virtual environment of Debian's /usr/bin/python3
# that sees Debian's packages, `pip install --no-build-isolation ./python`
# (offline) -- with HOME a scratch folder (its ~/.venv/boids), from a copy
# of python/ and scenarios/ beside the build (the source tree stays clean),
# and a `python3` and `pip` first on PATH that are not Debian's (they fail
# when called, as a pyenv 3.11 without wheel does); pip of a Python without
# wheel gets one line naming /usr/bin/python3 first. Then, from another
# folder with no PYTHONPATH, BOIDS_LIBRARY or BOIDS_SCENARIOS: the package
# imported is the installed one with its bundled libboids.so and scenarios,
# and its hashes equal boids-run's on the CPU and the GPU (llvmpipe through
# headless EGL in CI: no OpenGL 4.5 context is a failure, never a skip).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work="$build/tests/tmp/python-install"
rm -rf "$work"
mkdir -p "$work/tree" "$work/elsewhere" "$work/home" "$work/fakebin"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

line=$(grep -E '^/usr/bin/python3 -m venv .*pip install' "$src/README.md" || true)
[ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || fail "README.md has no single pip install line: '$line'"
cp -r "$src/python" "$src/scenarios" "$work/tree/"
rm -rf "$work/tree/python/build" "$work/tree/python"/*.egg-info
ln -s "$build" "$work/tree/build" # setup.py bundles ../build/lib/libboids.so.0, as in a clone
for p in python3 pip; do
  printf '#!/bin/sh\necho "%s: a fake first on PATH, not Debian'"'"'s" >&2\nexit 1\n' "$p" >"$work/fakebin/$p"
  chmod +x "$work/fakebin/$p"
done
echo "== README.md: $line"
(cd "$work/tree" && env -u BOIDS_LIBRARY HOME="$work/home" PATH="$work/fakebin:$PATH" bash -euo pipefail -c "$line") \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; fail "README.md's install line"; }
venv="$work/home/.venv/boids"
[ -x "$venv/bin/python" ] || fail "no $venv/bin/python after README.md's line"

# A Python that cannot build a wheel (a venv of Debian's python3 without its
# packages: no wheel, as a pyenv 3.11 has none): setup.py says in one line,
# before pip's own failure, which Python to use and README.md's line.
/usr/bin/python3 -m venv "$work/bare" || fail "a venv without Debian's packages"
rc=0
(cd "$work/tree" && env -u BOIDS_LIBRARY "$work/bare/bin/pip" install --no-build-isolation --no-index ./python) \
  >"$work/bare.log" 2>&1 || rc=$?
said=$(grep -F "boids: this Python ($work/bare/bin/python" "$work/bare.log" || true)
[ "$rc" != 0 ] && [ "$(printf '%s\n' "$said" | grep -c .)" = 1 ] && [[ $said == *"lacks wheel"* ]] &&
  [[ $said == *"use Debian's /usr/bin/python3"* ]] && [[ $said == *": $line" ]] ||
  fail "pip of a Python without wheel: status $rc, expected one line naming /usr/bin/python3 and README.md's line:
$(cat "$work/bare.log")"
echo "== without wheel: ${said#"${said%%boids:*}"}"

hash_of() { "$build/bin/boids-run" "$@" --quiet | sed -n 's/^state-hash: //p'; }
want_scenario=$(hash_of --scenario predators-prey --steps 25)
want_cpu=$(hash_of --count 800 --steps 30 --seed 7 --backend cpu)
want_gpu=$(hash_of --count 800 --steps 30 --seed 7 --backend gpu)
shipped=$(find "$src/scenarios" -maxdepth 1 -name '*.ini' | wc -l)

cd "$work/elsewhere"
env -u PYTHONPATH -u BOIDS_LIBRARY -u BOIDS_SCENARIOS "$venv/bin/python" - "$venv" "$shipped" \
  "$want_scenario" "$want_cpu" "$want_gpu" <<'PY' || fail "the installed package"
import os
import sys

import boids

venv, shipped, want_scenario, want_cpu, want_gpu = sys.argv[1:]
here = os.path.dirname(boids.__file__)
assert here.startswith(venv), f"imported {boids.__file__}, not the installed package"
assert os.path.exists(os.path.join(here, "libboids.so")), "no bundled libboids.so"
names = boids.scenarios()
assert len(names) == int(shipped) and "predators-prey" in names, f"scenarios: {names}"
with boids.Simulation(scenario="predators-prey") as sim:
    sim.step(25)
    assert f"{sim.state_hash:016x}" == want_scenario, "scenario hash"
with boids.Simulation(scenario="flowfield-image") as sim:  # its picture is bundled too
    sim.step(2)
for backend, want in (("cpu", want_cpu), ("gpu", want_gpu)):
    with boids.Simulation(count=800, seed=7, backend=backend) as sim:
        sim.step(30)
        assert f"{sim.state_hash:016x}" == want, f"{backend} hash"
print(f"installed at {here}: {len(names)} scenarios; hashes equal boids-run's (cpu {want_cpu}, gpu {want_gpu})")
PY
echo "PASS: pip-installed package works from another folder"
