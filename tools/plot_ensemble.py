#!/usr/bin/python3
"""tools/plot_ensemble.py: one PNG of an ensemble's results (boids-ensemble's
OUT/results.csv, docs/ENSEMBLES.md), with Debian's /usr/bin/python3 and
python3-matplotlib:

  a statistic against a swept parameter, at one step (default: the last),
  mean over the seeds with their spread (one standard deviation, and the
  min..max range lighter); one curve per value of --by (another swept key):

    tools/plot_ensemble.py OUT --x group.boids.weight.alignment --y polarisation --out a.png

  or against the steps (--x step), one curve per combination of the swept
  keys (mean and spread over the seeds):

    tools/plot_ensemble.py OUT --x step --y mean_speed --out b.png

With --from-step S (against a parameter) each run's rows at steps >= S are
averaged first (a time average over the steady state of a fluctuating
statistic), then the mean and spread are taken over the seeds:

    tools/plot_ensemble.py OUT --x group.particles.eta --y polarisation --by world.count --from-step 1000 --out c.png

--y may be given more than once: one curve per statistic (and per --by
value), on one axis.

--table FILE writes the plotted points as CSV too (curve, x, mean, sd, min,
max, n: the runs or seeds behind each point).

Failed runs are left out (and counted in the title). With per-group rows
([log] groups = true) the whole flock's rows ("all") are used unless
--group NAME. Exit status 2 for a bad argument or column (one line).
"""
import argparse
import csv
import math
import os
import sys

from plot_title import fit_title


def die(msg):
    print(f"plot_ensemble.py: {msg}", file=sys.stderr)
    sys.exit(2)


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def read(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.csv")
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(f"{path}: cannot be read ({e.strerror}); expected an ensemble's folder or its results.csv")
    if not rows:
        die(f"{path}: has no rows; expected boids-ensemble's results.csv")
    return path, rows


def swept_keys(fields):
    # run, KEY..., seed: the keys between "run" and "seed".
    return fields[1:fields.index("seed")] if "seed" in fields else []


def curve_order(label):
    # "KEY=40" before "KEY=100": by the number after the last '=' when there is one.
    head, _, tail = label.rpartition("=")
    v = number(tail)
    return (head, 0, v, "") if v is not None else (label, 1, 0.0, label)


def stats(values):
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return mean, sd, min(values), max(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="the output folder of boids-ensemble (or its results.csv)")
    ap.add_argument("--x", required=True, help="a swept key (a column of results.csv) or 'step'")
    ap.add_argument("--y", required=True, action="append",
                    help="a statistic (a column of results.csv); again for more curves on the same axis")
    ap.add_argument("--by", help="another swept key: one curve per value (plots against a parameter)")
    ap.add_argument("--step", type=int, help="the step of a plot against a parameter (default: the last)")
    ap.add_argument("--from-step", type=int, metavar="S",
                    help="against a parameter: average each run's rows at steps >= S, then over the seeds")
    ap.add_argument("--group", default="all", help="the group of per-group rows (default: all)")
    ap.add_argument("--logx", action="store_true", help="a logarithmic x axis")
    ap.add_argument("--title", help="the title (default: the plan's folder and what is plotted)")
    ap.add_argument("--out", required=True, help="the PNG to write")
    ap.add_argument("--table", metavar="FILE", help="also write the plotted points as CSV (curve,x,mean,sd,min,max,n)")
    a = ap.parse_args()

    path, rows = read(a.results)
    fields = list(rows[0].keys())
    keys = swept_keys(fields)
    for name, what in ((a.x, "--x"), *((y, "--y") for y in a.y), (a.by, "--by")):
        if name is not None and name not in fields:
            die(f"{what} '{name}' is not a column of {path}; expected one of {', '.join(fields)}")
    if a.x != "step" and a.x not in keys:
        die(f"--x '{a.x}' is not a swept key; expected 'step' or one of {', '.join(keys) or '(none)'}")
    if a.from_step is not None and (a.x == "step" or a.step is not None):
        die(f"--from-step {a.from_step} goes with a plot against a parameter and without --step; "
            "expected --x KEY and no --step")
    if a.by is not None and (a.by not in keys or a.by == a.x):
        die(f"--by '{a.by}' is not another swept key; expected one of {', '.join(k for k in keys if k != a.x)}")
    if "group" in fields:
        groups = sorted({r["group"] for r in rows if r["group"]})
        if a.group not in groups:
            die(f"--group '{a.group}' has no rows; expected one of {', '.join(groups)}")
        rows = [r for r in rows if r["group"] in ("", a.group)]
    failed_runs = {r["run"] for r in rows if r["status"] == "failed"}
    rows = [r for r in rows if r["status"] == "ok"]
    if not rows:
        die(f"{path}: every run failed; nothing to plot")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    varying = [k for k in keys if k != a.x and len({r[k] for r in rows}) > 1]
    curves = {}
    several = len(a.y) > 1
    if a.x == "step":
        # One curve per statistic and combination of the swept keys: (step -> values over seeds).
        for y in a.y:
            for r in rows:
                label = ", ".join(f"{k}={r[k]}" for k in varying) or ("" if several else "runs")
                label = f"{y} {label}".strip() if several else label
                v = number(r[y])
                if v is not None:
                    curves.setdefault(label, {}).setdefault(int(r["step"]), []).append(v)
        xlabel = "step"
    else:
        steps = sorted({int(r["step"]) for r in rows})
        if a.from_step is not None:
            if a.from_step > steps[-1]:
                die(f"--from-step {a.from_step} is past the last step; expected at most {steps[-1]}")
            take = lambda s: s >= a.from_step
            where = f"mean of steps {a.from_step}..{steps[-1]}"
        else:
            step = a.step if a.step is not None else steps[-1]
            if step not in steps:
                die(f"--step {step} has no rows; expected one of {', '.join(map(str, steps))}")
            take = lambda s: s == step
            where = f"step {step}"
        for y in a.y:
            per_run = {}  # (label, x) -> run -> the run's values at the steps taken
            for r in rows:
                if not take(int(r["step"])):
                    continue
                x, v = number(r[a.x]), number(r[y])
                if x is None:
                    die(f"--x '{a.x}' = '{r[a.x]}' is not a number; expected a numeric swept key")
                if v is None:
                    die(f"--y '{y}' = '{r[y]}' at run {r['run']} step {r['step']} is not a number; expected a statistic")
                label = f"{a.by}={r[a.by]}" if a.by else where
                label = f"{y} {label}" if several and a.by else (y if several else label)
                per_run.setdefault((label, x), {}).setdefault(r["run"], []).append(v)
            for (label, x), runs in per_run.items():
                curves.setdefault(label, {})[x] = [sum(v) / len(v) for v in runs.values()]
        xlabel = a.x
    seeds = 0
    table = []
    for label, by_x in sorted(curves.items(), key=lambda kv: curve_order(kv[0])):
        xs = sorted(by_x)
        s = [stats(by_x[x]) for x in xs]
        table += [(label, x, *st, len(by_x[x])) for x, st in zip(xs, s)]
        seeds = max(seeds, max(len(by_x[x]) for x in xs))
        mean = [m for m, _, _, _ in s]
        line, = ax.plot(xs, mean, marker="o" if a.x != "step" else None, ms=4, label=label)
        c = line.get_color()
        ax.fill_between(xs, [m - d for m, d, _, _ in s], [m + d for m, d, _, _ in s], color=c, alpha=0.25, lw=0)
        ax.fill_between(xs, [lo for _, _, lo, _ in s], [hi for _, _, _, hi in s], color=c, alpha=0.08, lw=0)
    if a.logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(", ".join(a.y) + ("" if a.group == "all" else f" (group {a.group})"))
    name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    extra = f", {len(failed_runs)} failed runs left out" if failed_runs else ""
    window = f", each run's mean of steps >= {a.from_step}" if a.from_step is not None else ""
    ax.grid(alpha=0.3)
    if len(curves) <= 12:
        ax.legend(fontsize=7)
    fit_title(fig, ax, a.title or
              f"{name}: {', '.join(a.y)} against {xlabel} (mean ± sd over up to {seeds} seeds{window}{extra})", 9)
    try:
        fig.savefig(a.out)
    except OSError as e:
        die(f"{a.out}: cannot be written ({e.strerror})")
    if a.table:
        try:
            with open(a.table, "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(["curve", "x", "mean", "sd", "min", "max", "n"])
                for label, x, mean, sd, lo, hi, n in table:
                    w.writerow([label, f"{x:.9g}", f"{mean:.6g}", f"{sd:.6g}", f"{lo:.6g}", f"{hi:.6g}", n])
        except OSError as e:
            die(f"{a.table}: cannot be written ({e.strerror})")
    print(f"plot_ensemble.py: {a.out}")


if __name__ == "__main__":
    main()
