#!/usr/bin/python3
"""tools/plot_profile.py: plot a frame-time profile written by --profile FILE.csv.

usage: /usr/bin/python3 tools/plot_profile.py FILE.csv -o FILE.png
       python3 tools/plot_profile.py FILE.csv --exponent

Top: the time of each stage stacked over the recorded steps (frames), with
the CPU frame time as a line. For a boids-bench profile (rows with more than
one agent count) a second panel shows each count's median ms/step against
the agent count N on log-log axes with the least-squares exponent b of
ms = a * N^b: the same points and fit as boids-bench's "fitted exponent of
ms/step vs N" (fit_exponent in src/app/boids_bench.c): a step's time is the
host's (frame_ms) on the CPU and the sum of its stages on the GPU, a count's
point the median over its steps, the fit over the points above 0.
--exponent prints that line alone, as boids-bench does (no matplotlib).

Needs Debian's python3-matplotlib and python3-numpy (tools/deps.sh); run it
with /usr/bin/python3 (another python3 earlier on PATH may not see them).
Exit status: 0 written, 2 bad arguments or input, 3 matplotlib missing or a
write failure.
"""
import argparse
import csv
import math
import os
import statistics
import sys

STAGES = ["key", "count", "scan", "scatter", "steer", "integrate", "bodies", "draw"]
COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f"]


def fail(code, msg):
    print(f"plot_profile.py: {msg}", file=sys.stderr)
    sys.exit(code)


def read_profile(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            need = ["step", "frame_ms", "agents"] + [s + "_ms" for s in STAGES]
            missing = [c for c in need if c not in (reader.fieldnames or [])]
            if missing:
                fail(2, f"{path}: not a --profile CSV: missing columns {', '.join(missing)}")
            rows = []
            for line, r in enumerate(reader, start=2):
                try:
                    rows.append({
                        "step": int(r["step"]),
                        "frame_ms": float(r["frame_ms"]),
                        "agents": int(r["agents"]),
                        "backend": r.get("backend", ""),
                        "stages": [float(r[s + "_ms"]) for s in STAGES],
                    })
                except (TypeError, ValueError) as e:
                    fail(2, f"{path}: line {line}: {e}")
    except OSError as e:
        fail(2, f"{path}: cannot be read: {e.strerror}")
    if not rows:
        fail(2, f"{path}: no rows")
    return rows


def step_ms(row):
    """A step's time as boids-bench's total: the sum of the stages on the GPU
    (their timer queries), the host's time of the step on the CPU."""
    return sum(row["stages"]) if row["backend"] == "gpu" else row["frame_ms"]


def fit_exponent(rows):
    """boids-bench's fit (fit_exponent in src/app/boids_bench.c): per agent
    count the median of step_ms over its rows, then the least-squares slope b
    and intercept log a of log(ms) against log(N) over the counts whose median
    is above 0. Returns (b, log_a, counts, medians); b is None unless two
    counts differ."""
    counts = sorted(set(r["agents"] for r in rows))
    medians = [statistics.median(step_ms(r) for r in rows if r["agents"] == n) for n in counts]
    pts = [(math.log(n), math.log(m)) for n, m in zip(counts, medians) if m > 0 and math.isfinite(m)]
    k = len(pts)
    sx = sum(x for x, _ in pts)
    sy = sum(y for _, y in pts)
    sxx = sum(x * x for x, _ in pts)
    sxy = sum(x * y for x, y in pts)
    den = k * sxx - sx * sx
    if len(set(x for x, _ in pts)) < 2 or den == 0:
        return None, None, counts, medians
    b = (k * sxy - sx * sy) / den
    return b, (sy - b * sx) / k, counts, medians


def main():
    ap = argparse.ArgumentParser(description="Plot a boids --profile CSV.")
    ap.add_argument("csv", help="a profile written by --profile FILE.csv")
    ap.add_argument("-o", "--output", help="the PNG to write")
    ap.add_argument("--exponent", action="store_true",
                    help="print boids-bench's fitted exponent of ms/step vs N for the profile and exit")
    args = ap.parse_args()
    if not args.output and not args.exponent:
        fail(2, "-o FILE.png or --exponent is required")
    rows = read_profile(args.csv)
    if args.exponent:
        b = fit_exponent(rows)[0]
        if b is None:
            print("fitted exponent of ms/step vs N: none (it needs two different counts and times above 0)")
        else:
            print(f"fitted exponent of ms/step vs N: {b:.3f} (1.000 = linear)")
        return 0
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError as e:
        fail(3, f"needs python3-matplotlib and python3-numpy (tools/deps.sh; run with /usr/bin/python3): {e}")

    stage_ms = np.array([r["stages"] for r in rows])  # rows x stages
    present = [i for i in range(len(STAGES)) if np.any(stage_ms[:, i] > 0)]
    frame = np.array([r["frame_ms"] for r in rows])
    agents = np.array([r["agents"] for r in rows])
    counts = sorted(set(agents.tolist()))
    sweep = len(counts) >= 2
    backend = rows[0]["backend"] or "?"

    fig, axes = plt.subplots(2 if sweep else 1, 1, figsize=(11, 8.5 if sweep else 5), squeeze=False)
    ax = axes[0][0]
    x = np.arange(1, len(rows) + 1)
    ax.stackplot(x, [stage_ms[:, i] for i in present], labels=[STAGES[i] for i in present],
                 colors=[COLORS[i] for i in present], step=None)
    ax.plot(x, frame, color="black", linewidth=0.8, label="frame (CPU)")
    if sweep:  # mark where each agent count starts
        for n in counts:
            first = int(np.argmax(agents == n))
            ax.axvline(first + 1, color="grey", linewidth=0.5, linestyle=":")
            ax.text(first + 1, ax.get_ylim()[1] * 0.98, f" N={n}", va="top", fontsize=7, color="grey")
    ax.set_xlabel("recorded step (frame)")
    ax.set_ylabel("ms")
    ax.set_title(f"{os.path.basename(args.csv)}: stage times ({backend}), stacked")
    ax.set_xlim(1, max(len(rows), 2))
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, borderaxespad=0)
    ax.grid(True, alpha=0.3)

    if sweep:
        ax2 = axes[1][0]
        b, log_a, _, med = fit_exponent(rows)  # boids-bench's points and fit
        med = np.array(med)
        ns = np.array(counts, dtype=float)
        ok = med > 0
        ax2.loglog(ns[ok], med[ok], "o-", color="#4e79a7", label="median ms/step (boids-bench's total)")
        if b is not None:
            fit_n = np.geomspace(ns[ok].min(), ns[ok].max(), 50)
            ax2.loglog(fit_n, np.exp(log_a) * fit_n ** b, "--", color="#e15759",
                       label=f"fit ms = {np.exp(log_a):.3g} N^{b:.3f}")
            ax2.set_title(f"ms/step vs N: fitted exponent {b:.3f} (1 = linear)")
        ax2.set_xlabel("agents N")
        ax2.set_ylabel("ms/step")
        ax2.grid(True, which="both", alpha=0.3)
        ax2.legend(fontsize=8)

    fig.tight_layout()
    out_dir = os.path.dirname(os.path.abspath(args.output))
    tmp = os.path.join(out_dir, f".{os.path.basename(args.output)}.tmp.{os.getpid()}.png")
    try:
        fig.savefig(tmp, dpi=100, format="png")
        os.replace(tmp, args.output)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        fail(3, f"{args.output}: cannot be written: {e.strerror}")
    print(f"plot_profile.py: wrote {args.output} ({len(rows)} rows, {len(counts)} agent count"
          f"{'' if len(counts) == 1 else 's'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
