#!/usr/bin/env bash
# tools/gallery.sh [OUT_DIR]: the pictures at the top of README.md, made
# again from the shipped scenarios and flags: the viewer under Xvfb
# (xvfb-run, llvmpipe unless a GPU is there) takes each screenshot, and
# boids-bench's ms/step against N is plotted with matplotlib (Debian's
# /usr/bin/python3). OUT_DIR defaults to docs/images. Build first
# (tools/build.sh). Takes 3 to 7 minutes on two cores (5 measured with
# other work on them, 7 beside another job), most of it the million's run.
# With ffmpeg, also a short clip OUT_DIR/flock.mp4 (--video; not committed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/bin
out=${1:-$root/docs/images}
for exe in boids boids-bench; do
  [ -x "$bin/$exe" ] || { echo "gallery: $bin/$exe not built; run tools/build.sh first" >&2; exit 3; }
done
command -v xvfb-run >/dev/null || { echo "gallery: xvfb-run not found (package xvfb; tools/deps.sh installs it)" >&2; exit 3; }
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# shot NAME ARGS...: one screenshot of the viewer, 800x500, as OUT/NAME.png.
shot() {
  local name=$1
  shift
  echo "gallery: $name.png: boids $*"
  (cd "$scratch" && xvfb-run -a -f "$scratch/xauth" -s "-screen 0 1280x1024x24" \
    "$bin/boids" --width 800 --height 500 --vsync off --screenshot "$out/$name.png" "$@" >/dev/null)
}

# A million agents after 300 steps of the chapter's flocking from a uniform
# start (boids-run, about 4 minutes on two cores; the viewer loads the snapshot),
# drawn dense: coloured by heading, brighter where more agents are.
echo "gallery: million.png: boids-run --count 1000000 --steps 300, then boids --load"
"$bin/boids-run" --count 1000000 --steps 300 --stats-every 300 --save "$scratch/million.boids" >/dev/null
shot million --backend cpu --load "$scratch/million.boids" --frames 1
# A large 2D flock coloured by heading (C: group -> heading).
shot flock-heading --count 12000 --frames 240 --keys "1:c"
# Predators and prey (Exercise 5.16): two flocks escape the hunters.
shot predators-prey --scenario predators-prey --frames 300
# A 3D flock with fish bodies.
shot fish-3d --dim 3 --count 800 --bodies fish --frames 200
# The grid's occupancy heat map and the neighbour lines of the agent under the cursor.
shot grid-neighbours --count 3000 --world 1600x1000 --frames 120 --keys "1:g,2:mouse=800,500,3:n"
# The frame-time profile (T) and its graph of the last frames.
shot profile-graph --count 8000 --frames 200 --keys "1:t"
# The crowd path (Exercise 5.13): 120 vehicles in lanes around a closed path (P shows it).
shot crowd-path --scenario path-following --frames 400
# The angle-bug post's heading boids, their own rules, gathering into one flock.
shot heading-boids --scenario angle-bug --frames 500
# Formations (offset pursuit): a line, a column, a V and a ring following their leaders.
shot formations --scenario formations --frames 600
# Feelers: wanderers turning away from wall segments.
shot feelers --scenario feelers --frames 400

# A 5 s clip (150 frames at 30 fps, 640x400, ~1.5 MB): the 3D fish flock
# through ffmpeg (--video). Not committed (.gitignore): it is made here, in
# OUT_DIR, for sharing; skipped where ffmpeg is missing.
if command -v ffmpeg >/dev/null; then
  echo "gallery: flock.mp4: boids --video (150 frames at 30 fps)"
  (cd "$scratch" && xvfb-run -a -f "$scratch/xauth" -s "-screen 0 1280x1024x24" \
    "$bin/boids" --width 640 --height 400 --vsync off --dim 3 --count 800 --bodies fish \
    --frames 150 --video "$out/flock.mp4" --video-fps 30 >/dev/null)
else
  echo "gallery: flock.mp4 skipped: ffmpeg not found (apt-get install ffmpeg, or tools/deps.sh)"
fi

# ms/step against N, CPU reference (2 threads) and the GPU backend.
echo "gallery: bench.png: boids-bench --counts 1000..300000 on the CPU and the GPU"
counts=1000,3000,10000,30000,100000,300000
"$bin/boids-bench" --backend cpu --counts "$counts" --steps 10 2>/dev/null >"$scratch/cpu.md"
"$bin/boids-bench" --backend gpu --counts "$counts" --steps 10 2>/dev/null >"$scratch/gpu.md"
/usr/bin/python3 - "$scratch/cpu.md" "$scratch/gpu.md" "$out/bench.png" <<'EOF'
import re
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

def rows(path):
    """(N, total ms/step) of each table row of a boids-bench report, and its first line."""
    text = open(path).read().splitlines()
    out = []
    for line in text:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 8 and cells[0].isdigit():
            out.append((int(cells[0]), float(cells[8])))
    return out, text[0] if text else ""

fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
for path, label in ((sys.argv[1], "CPU reference"), (sys.argv[2], "GPU backend")):
    data, head = rows(path)
    where = re.search(r"threads?, (.*?)(?: \(EGL.*)?$", head)  # the CPU's model or the GL renderer
    if data:
        ax.loglog([n for n, _ in data], [t for _, t in data], "o-",
                  label=f"{label}: {where.group(1)}" if where else label)
ax.set_xlabel("agents N")
ax.set_ylabel("ms per step (median)")
ax.set_title("boids-bench: flocking, 2D, ~20 neighbours per agent", fontsize=10)
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[3])
EOF
ls -l "$out"/*.png "$out"/*.mp4 2>/dev/null || true
