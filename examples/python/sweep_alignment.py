#!/usr/bin/python3
"""Sweeps the alignment weight and plots the flock's final polarisation.

For each weight in WEIGHTS a fresh flock of COUNT agents (2D, CPU, seeds 1
and 2, the chapter's flocking) gets ``set(weights={"alignment": w})``, runs
STEPS steps, and its polarisation (|mean unit velocity|, 0 = disordered, 1 =
all one heading) is read from ``stats()``.  The plot goes to a PNG
(matplotlib, Agg: no display needed; default docs/images/sweep-alignment.png,
COUNT 2000 and STEPS 200, about half a minute on two cores).  From the
source tree's root, after tools/build.sh:

    PYTHONPATH=python /usr/bin/python3 examples/python/sweep_alignment.py [OUT.png [COUNT STEPS]]

Debian's /usr/bin/python3, which sees Debian's numpy, cffi and matplotlib
(tools/deps.sh), not the first python3 on PATH (a pyenv or conda one may
lack them).  With the package installed as README.md says, its venv's
interpreter runs it too, without PYTHONPATH: ~/.venv/boids/bin/python.
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import boids  # noqa: E402

WEIGHTS = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
COUNT = 2000
STEPS = 200


def polarisation(weight, count, steps, seeds=(1, 2)):
    """Mean final polarisation over a few seeds for one alignment weight."""
    values = []
    for seed in seeds:
        with boids.Simulation(count=count, dim=2, backend="cpu", seed=seed) as sim:
            sim.set(weights={"alignment": weight})
            sim.step(steps)
            values.append(sim.stats().polarisation)
    return sum(values) / len(values)


def main(out="docs/images/sweep-alignment.png", count=COUNT, steps=STEPS):
    """Runs the sweep, prints one line per weight and writes the plot to out."""
    try:
        count, steps = int(count), int(steps)
    except ValueError:
        sys.exit(f"sweep_alignment.py: COUNT '{count}' and STEPS '{steps}': expected integers")
    results = []
    for w in WEIGHTS:
        p = polarisation(w, count, steps)
        results.append(p)
        print(f"alignment {w:5.2f}: polarisation {p:.3f}")
    fig, ax = plt.subplots(figsize=(5, 3.5), dpi=100)
    ax.plot(WEIGHTS, results, "o-")
    ax.set_xlabel("alignment weight")
    ax.set_ylabel(f"polarisation after {steps} steps")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{count} boids, 2D, CPU (mean of 2 seeds)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) not in (1, 2, 4):
        sys.exit("usage: sweep_alignment.py [OUT.png [COUNT STEPS]]")
    main(*sys.argv[1:])
