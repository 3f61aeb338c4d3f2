#!/usr/bin/env bash
# tools/deps.sh: install every Debian package the build, the tests and the
# tools need. Idempotent: installs only what is missing, and says what.
set -euo pipefail

packages=(
  build-essential cmake pkg-config           # compiler, build
  libcglm-dev libstb-dev                     # maths, Perlin noise / PNG / HUD text
  check libsubunit-dev                       # the test framework
  libglfw3-dev libegl-dev libgl-dev          # window and headless GL contexts
  libgl1-mesa-dri libegl-mesa0               # Mesa: llvmpipe runs the compute shaders in CI
  python3-glad                               # glad, generated at build time
  xvfb xauth                                 # a display for viewer tests and screenshots
  python3-matplotlib python3-numpy           # tools/plot_profile.py (run with /usr/bin/python3)
  python3-cffi python3-pytest                # the Python package (python/boids) and its tests
  python3-venv python3-pip python3-setuptools python3-wheel  # README.md's offline pip install (tests/test_python_install.sh)
  libinih-dev                                # scenario files (INI)
  zlib1g-dev                                 # CRC-32 of .boids snapshots (crc32)
  libzstd-dev                                # zstd-compressed frames of recordings (--record)
  clang libclang-rt-dev libomp-dev           # tools/fuzz.sh: libFuzzer, ASan/UBSan, OpenMP with clang
  glslang-tools                              # glslangValidator: the shaders checked against GLSL 4.50 core (test shaders_glslang)
  openmpi-bin libopenmpi-dev                 # boids-ensemble under mpirun (the optional MPI component; tests labelled mpi)
  ffmpeg                                     # the viewer's --video FILE.mp4 (frames piped to ffmpeg; also ffprobe for test_viewer)
  man-db groff-base                          # test_man: the generated man pages rendered (man -l, groff)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "deps: missing packages (${missing[*]}) and no root or sudo to install them;" >&2
  echo "deps: ask an administrator to run: apt-get install ${missing[*]}" >&2
  exit 3
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps: apt-get not found: this script needs a Debian-based system; install: ${missing[*]}" >&2
  exit 3
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq || { echo "deps: apt-get update failed (no network to the package mirror?)" >&2; exit 3; }
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
  || { echo "deps: apt-get install ${missing[*]} failed" >&2; exit 3; }
echo "deps: installed ${missing[*]}"
