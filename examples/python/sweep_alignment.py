#!/usr/bin/python3
"""Sweeps the alignment weight and plots the flock's final polarisation.

For each weight in WEIGHTS a fresh flock of COUNT agents (2D, CPU, seed 1,
the chapter's flocking) gets ``set(weights={"alignment": w})``, runs STEPS
steps, and its polarisation (|mean unit velocity|, 0 = disordered, 1 =
all one heading) is read from ``stats()``.  The plot goes to a PNG
(matplotlib, Agg: no display needed).

    PYTHONPATH=python python3 examples/python/sweep_alignment.py [OUT.png]

(with the package installed, or BOIDS_LIBRARY naming libboids.so).
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import boids  # noqa: E402

WEIGHTS = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
COUNT = 2000
STEPS = 200


def polarisation(weight, seeds=(1, 2)):
    """Mean final polarisation over a few seeds for one alignment weight."""
    values = []
    for seed in seeds:
        with boids.Simulation(count=COUNT, dim=2, backend="cpu", seed=seed) as sim:
            sim.set(weights={"alignment": weight})
            sim.step(STEPS)
            values.append(sim.stats().polarisation)
    return sum(values) / len(values)


def main(out="docs/images/sweep-alignment.png"):
    """Runs the sweep, prints one line per weight and writes the plot to out."""
    results = []
    for w in WEIGHTS:
        p = polarisation(w)
        results.append(p)
        print(f"alignment {w:5.2f}: polarisation {p:.3f}")
    fig, ax = plt.subplots(figsize=(5, 3.5), dpi=100)
    ax.plot(WEIGHTS, results, "o-")
    ax.set_xlabel("alignment weight")
    ax.set_ylabel(f"polarisation after {STEPS} steps")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{COUNT} boids, 2D, CPU (mean of 2 seeds)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
