#!/usr/bin/env bash
# tools/device-check.sh: the GPU check of a session that has a device machine
# (see the device tool's README). One short, prepared run: headless EGL on the
# device platform (BOIDS_EGL_DEVICE=hardware), the CPU-vs-GPU validation at
# 1 M agents, and the benchmark sweep 10 k -> 10 M (2D and 3D, uniform and
# clustered) for every GPU kernel, FLAME GPU 2's Circles workload, a
# clustered flock with K = 7 at --grid-fine 1 and auto, the compute
# programs as the driver compiled them (--program-stats), and the
# viewer's frame time at 1 M agents off-screen (boids-bench --render: the
# viewer's draw into a framebuffer object of the headless context, 1920x1080;
# target >= 144 frames/s on an H200). One Markdown file, $OUT/device-check.md
# (or ./device-out/), to paste into docs/BENCHMARKS.md.
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
md="$out/device-check.md"
# One Markdown file to paste into docs/BENCHMARKS.md: every section's raw
# boids-bench table, headed by what ran. The whole script stays within 8
# minutes (BUDGET_S, 470 s): each command's time-out is its own cap or what is
# left of the budget, whichever is less, and a command with under 5 s left is
# skipped with a line saying so (the commands end well before their caps on
# a GPU machine; the caps add up to 630 s).
budget=${BUDGET_S:-470}
start=$(date +%s)
# capped CAP CMD...: CMD under timeout min(CAP, what is left of the budget).
capped() {
  local cap=$1 left
  shift
  left=$((budget - ($(date +%s) - start)))
  if [ "$left" -lt "$cap" ]; then cap=$left; fi
  if [ "$cap" -lt 5 ]; then
    echo "skipped: the script's $budget s are spent"
    return 124
  fi
  timeout "$cap" "$@"
}
{
  echo "# tools/device-check.sh, $(date -u +%Y-%m-%d)"
  echo
  echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"
  echo
  echo "## Validation, 1 M agents, 50 steps, all behaviours"
  echo '```'
  capped 100 "$bin/boids-validate" --count 1000000 --steps 50 --behaviors all 2>&1 | tail -25
  echo "rc=$?"
  echo '```'
  # The sweep 10 k -> 10 M for every kernel, 2D / 3D, uniform / clustered.
  for kernel in reference morton tiled fused all morton-fused; do
    for args in "--dim 2" "--dim 3" "--dim 2 --distribution clustered" "--dim 3 --distribution clustered"; do
      echo
      echo "## boids-bench --kernel $kernel $args"
      # shellcheck disable=SC2086
      capped 16 "$bin/boids-bench" --backend gpu --kernel "$kernel" --steps 10 --quiet \
        --counts 10000,100000,1000000,10000000 $args 2>&1
      echo "rc=$?"
    done
  done
  # A peer's workload: FLAME GPU 2's Circles (1 M agents, 200 steps; their
  # H100 PCIe: 2.12 ms/step), every kernel.
  for kernel in reference morton tiled fused all morton-fused; do
    echo
    echo "## boids-bench --workload circles --kernel $kernel"
    capped 12 "$bin/boids-bench" --backend gpu --kernel "$kernel" --workload circles --counts 1000000 \
      --steps 200 --quiet 2>&1
    echo "rc=$?"
  done
  # Flocks that crowd: a clustered 1 M flock with K = 7, today's grid against
  # --grid-fine auto (the finer grid and the K-nearest early stop).
  for fine in 1 auto; do
    echo
    echo "## boids-bench --distribution clustered --neighbors-max 7 --grid-fine $fine, 1 M agents"
    capped 12 "$bin/boids-bench" --backend gpu --distribution clustered --neighbors-max 7 --grid-fine "$fine" \
      --counts 1000000 --steps 10 --quiet 2>&1
    echo "rc=$?"
  done
  # The compute programs as the driver compiled them (--program-stats: the
  # binaries' sizes and, on NVIDIA, the assembly's lines, vec4 temporaries
  # and local memory), the reference kernel and the tiled one with K = 7
  # (its per-agent steer_topo).
  for args in "--kernel reference" "--kernel tiled --neighbors-max 7"; do
    echo
    echo "## boids-bench --program-stats $args, 100 k agents"
    # shellcheck disable=SC2086
    capped 10 "$bin/boids-bench" --backend gpu --program-stats --counts 100000 --steps 2 --quiet $args 2>&1
    echo "rc=$?"
  done
  # The viewer's frame at 1 M agents, off-screen: each of 100 steps, the
  # engine step, the viewer's draw into a 1920x1080 framebuffer object,
  # glFinish (target on an H200: >= 144 frames/s). The last frame as a PNG.
  echo
  echo "## boids-bench --render 1920x1080 (the viewer's frame off-screen), 1 M agents, 100 steps"
  capped 30 "$bin/boids-bench" --backend gpu --render 1920x1080 --counts 1000000 --steps 100 --quiet \
    --screenshot "$out/render-1m.png" 2>&1
  echo "rc=$?"
} | tee "$md"
