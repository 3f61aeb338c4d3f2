#!/usr/bin/env bash
# tools/device-check.sh: the GPU check of a session that has a device machine
# (see the device tool's README). One short, prepared run: headless EGL on the
# device platform (BOIDS_EGL_DEVICE=hardware), the CPU-vs-GPU validation at
# 1 M agents, and the benchmark sweep 10 k -> 10 M (2D and 3D, uniform and
# clustered). Results go to $OUT (or ./device-out).
#
# Prepare here, once (the machine there is bare):
#   tools/build.sh                       # build/bin/* are carried (x86-64)
#   echo /.gl/ >> .git/info/exclude; mkdir -p .gl /tmp/amd64/partial
#   o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#   apt-get $o update
#   (cd .gl && apt-get $o download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 \
#        libcglm0 libstb0 libgomp1 libsubunit0)
# Then run with carry [".gl", "build/bin"] and the command
#   bash tools/device-check.sh
set -uo pipefail
out=${OUT:-./device-out}
mkdir -p "$out"
if ls .gl/*.deb >/dev/null 2>&1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
export BOIDS_EGL_DEVICE=${BOIDS_EGL_DEVICE:-hardware}
bin=build/bin
{
  echo "== device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"
  echo "== validation, 1 M agents, 50 steps, all behaviours"
  timeout 240 "$bin/boids-validate" --count 1000000 --steps 50 --behaviors all 2>&1
  echo "rc=$?"
  for args in "--dim 2" "--dim 3" "--dim 2 --distribution clustered" "--dim 3 --distribution clustered"; do
    echo "== bench $args"
    # shellcheck disable=SC2086
    timeout 120 "$bin/boids-bench" --backend gpu --steps 20 --counts 10000,100000,1000000,10000000 $args 2>&1
    echo "rc=$?"
  done
} | tee "$out/device-check.txt"
