#!/usr/bin/python3
"""tools/plot_decompose.py: one PNG of a decomposed run's boxes over its
agents (2D), with Debian's /usr/bin/python3 and python3-matplotlib:

    mpirun -n 4 build/bin/boids-run ... --decompose 2x2 --export-csv end.csv > run.txt
    tools/plot_decompose.py run.txt end.csv --out boxes.png

run.txt is boids-run's output (its 'box R: ...' lines, the boxes where the
run ended, by rank; printed for up to 64 ranks); end.csv the agents it
exported at the same step. Each agent is a dot in the colour of the rank
that owns it (the box holding its position), each box an outline with its
rank and its share of the agents. --title sets the title. Exit 2 with one
line for a missing or unreadable input.
"""
import argparse
import csv
import re
import sys

from plot_title import fit_title

BOX = re.compile(
    r"^box (\d+): cells x (\d+)\.\.(\d+) y (\d+)\.\.(\d+) z (\d+)\.\.(\d+) of (\d+)x(\d+)x(\d+); "
    r"world x (\S+)\.\.(\S+) y (\S+)\.\.(\S+) z (\S+)\.\.(\S+)$")


def fail(msg):
    print(f"plot_decompose.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read_boxes(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"{path}: cannot be read: {e.strerror}; expected boids-run --decompose's output")
    boxes = []
    for line in lines:
        m = BOX.match(line)
        if m:
            g = m.groups()
            boxes.append((int(g[0]), float(g[10]), float(g[11]), float(g[12]), float(g[13])))
    if not boxes:
        fail(f"{path}: no 'box R: ...' lines; expected the output of boids-run --decompose "
             "(not --quiet, at most 64 ranks)")
    return sorted(boxes)


def read_agents(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: cannot be read: {e.strerror}; expected boids-run's --export-csv")
    if not rows or "px" not in rows[0] or "py" not in rows[0]:
        fail(f"{path}: no px, py columns; expected boids-run's --export-csv")
    return [float(r["px"]) for r in rows], [float(r["py"]) for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="boids-run --decompose's output (its box lines)")
    ap.add_argument("csv", help="the agents, boids-run --export-csv of the same run")
    ap.add_argument("--out", required=True, help="the PNG to write")
    ap.add_argument("--title", default="", help="the picture's title")
    a = ap.parse_args()
    boxes = read_boxes(a.run)
    xs, ys = read_agents(a.csv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    def owner(x, y):
        for r, x0, x1, y0, y1 in boxes:
            if x0 <= x < x1 and y0 <= y < y1:
                return r
        # On the world's far edge (the last cell holds it): the nearest box.
        return min(boxes, key=lambda b: max(b[1] - x, x - b[2], 0) + max(b[3] - y, y - b[4], 0))[0]

    own = [owner(x, y) for x, y in zip(xs, ys)]
    colours = plt.get_cmap("tab10" if len(boxes) <= 10 else "tab20")
    fig, ax = plt.subplots(figsize=(7, 7), dpi=100)
    ax.scatter(xs, ys, s=0.5, c=[colours(r % colours.N) for r in own], linewidths=0, rasterized=True)
    n = len(xs)
    for r, x0, x1, y0, y1 in boxes:
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, lw=1.5, ec="black"))
        share = own.count(r) / n if n else 0.0
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, f"rank {r}\n{100 * share:.0f} %", ha="center", va="center",
                fontsize=9, bbox=dict(fc="white", alpha=0.7, lw=0))
    ax.set_xlim(min(b[1] for b in boxes), max(b[2] for b in boxes))
    ax.set_ylim(min(b[3] for b in boxes), max(b[4] for b in boxes))
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    fit_title(fig, ax, a.title or f"{len(boxes)} boxes, {n} agents")
    try:
        fig.savefig(a.out)
    except OSError as e:
        fail(f"--out {a.out}: cannot be written: {e.strerror}")


if __name__ == "__main__":
    main()
