#!/usr/bin/env bash
# tools/device-pack.sh: prepare the git-ignored folder .dev/ that
# tools/device-check.sh uses on a bare machine with an NVIDIA GPU (no Debian
# libraries there, no MPI, no network):
#   1. build without MPI into build-dev/ (tools/build.sh; BUILD_DIR overrides);
#   2. .dev/bin/     boids-bench, boids-run, boids-validate;
#      .dev/lib/     this Debian's copies of the libraries they load (the ones
#                    ldd names, glvnd's loaders libEGL/libOpenGL/libGL/libGLX/
#                    libGLdispatch, which pick NVIDIA's EGL there, and whatever
#                    those need), resolved with readlink -f, under their soname;
#      .dev/scenarios/  a copy of scenarios/;
#      .dev/COMMIT   the commit the binaries were built from;
#   3. .dev/ and build-dev/ into .gitignore unless git ignores them already;
#   4. prints the carry list and the command for the device tool.
# Usage: tools/device-pack.sh [--no-build]   (--no-build: pack BUILD_DIR's binaries as they are)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build-dev}
dev=.dev
build_it=1
case "${1:-}" in
  --no-build) build_it=0 ;;
  "") ;;
  *) echo "usage: tools/device-pack.sh [--no-build]" >&2; exit 2 ;;
esac

if [ "$build_it" = 1 ]; then
  BUILD_DIR=$build CMAKE_ARGS="${CMAKE_ARGS:-} -DBOIDS_MPI=OFF" tools/build.sh
fi
bins=(boids-bench boids-run boids-validate)
for b in "${bins[@]}"; do
  [ -x "$build/bin/$b" ] || { echo "device-pack: $build/bin/$b is missing (build first, or drop --no-build)" >&2; exit 1; }
done

rm -rf "$dev"
mkdir -p "$dev/bin" "$dev/lib"
for b in "${bins[@]}"; do cp "$build/bin/$b" "$dev/bin/"; done
cp -r scenarios "$dev/scenarios"
{
  git rev-parse HEAD
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then echo "(with uncommitted changes)"; fi
} >"$dev/COMMIT"

# The libraries: glvnd's loaders (dlopened by the binaries, so ldd does not
# name them) and everything ldd names for the binaries and for them, except
# the C library's own (the machine there has a libc).
libdir=/usr/lib/x86_64-linux-gnu
wanted=(libinih.so.1 libstb.so.0 libzstd.so.1 libgomp.so.1 libz.so.1
        libEGL.so.1 libGLdispatch.so.0 libOpenGL.so.0 libGL.so.1 libGLX.so.0)
is_libc() {
  case "$1" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | \
      libresolv.so.* | libutil.so.*) return 0 ;;
  esac
  return 1
}
declare -A path_of=()
for so in "${wanted[@]}"; do
  [ -e "$libdir/$so" ] || { echo "device-pack: $libdir/$so is missing (tools/deps.sh installs it)" >&2; exit 1; }
  path_of[$so]=$libdir/$so
done
# ldd's "soname => path" lines of the binaries and of the libraries so far,
# until nothing new appears.
scan=("${bins[@]/#/$build/bin/}" "${wanted[@]/#/$libdir/}")
while [ ${#scan[@]} -gt 0 ]; do
  next=()
  for f in "${scan[@]}"; do
    while read -r so arrow path _; do
      [ "$arrow" = "=>" ] || continue
      is_libc "$so" && continue
      if [ "$path" = "not" ]; then echo "device-pack: $f needs $so, which is not found here" >&2; exit 1; fi
      if [ -z "${path_of[$so]:-}" ]; then
        path_of[$so]=$path
        next+=("$path")
      fi
    done < <(ldd "$f")
  done
  scan=("${next[@]}")
done
for so in $(printf '%s\n' "${!path_of[@]}" | sort); do
  cp "$(readlink -f "${path_of[$so]}")" "$dev/lib/$so"
done

# Git must not carry them as untracked files: ignore both folders.
for d in "$dev" "$build"; do
  case "$d" in /*) continue ;; esac # outside the tree: nothing to ignore
  if ! git check-ignore -q "$d/" 2>/dev/null; then
    echo "/${d#./}/" >>.gitignore
    echo "device-pack: added /${d#./}/ to .gitignore"
  fi
done

kib=$(du -sk "$dev" | cut -f1)
echo "device-pack: $dev/ holds $((kib / 1024)) MiB: bin/ (${bins[*]}), lib/ ($(cd "$dev/lib" && echo *)), scenarios/; built from $(head -1 "$dev/COMMIT")"
if [ "$kib" -gt $((60 * 1024)) ]; then
  echo "device-pack: $dev/ is over 60 MiB; the device tool carries 64 MiB at most" >&2
  exit 1
fi
echo
echo "carry:   [\".dev\"]"
echo "command: bash tools/device-check.sh"
echo "timeout: 400 s (the script stops itself within BUDGET_S, default 360 s)"
