"""Ensembles (boids/ensemble.h, docs/ENSEMBLES.md): a plan run on threads
of this process, and its results.csv read as numpy columns."""

from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Union

import numpy as np

from ._convert import _integer
from ._library import _ERR_SIZE, _FORMAT, _MAX_THREADS, _check, _fspath, _lib, _text, ffi


def stat_names() -> List[str]:
    """The statistics' names (boids_engine_stat_name), the columns of an ensemble's results."""
    return [_text(_lib.boids_engine_stat_name(i)) for i in range(_lib.boids_engine_stat_count())]


def _column(values):
    """A results.csv column as a numpy array: float64 when every non-empty
    value is a number (empty: NaN), else str."""
    try:
        return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
    except ValueError:
        return np.array(values, dtype=str)


def read_ensemble(out_dir: Union[str, os.PathLike]) -> Dict[str, np.ndarray]:
    """An ensemble's results.csv as a dict of columns (numpy arrays, in the
    file's order: run, the swept keys, seed, [group,] step, the statistics,
    state_hash, status). Numeric columns are float64 (NaN where empty: a
    failed run's row, a statistic of the whole flock on a group's row);
    state_hash, status, group and any swept key with text values are str."""
    import csv

    path = os.path.join(out_dir, "results.csv")
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    cols = list(zip(*rows)) if rows else [()] * len(header)
    out = {}
    for name, values in zip(header, cols):
        out[name] = np.array(values, dtype=str) if name in ("state_hash", "status", "group") else _column(values)
    return out


def run_ensemble(plan: Union[str, os.PathLike], out_dir: Union[str, os.PathLike], jobs: int = 1, threads: int = 1,
                 resume: bool = False,
                 progress: Optional[Callable[[int, int, int], None]] = None) -> Dict[str, np.ndarray]:
    """Runs an ensemble plan (a plan file's path) as boids-ensemble does on
    one process: `jobs` runs at once on threads (the GPU backend: one after
    another), each engine on `threads` CPU threads; `resume` runs only what
    out_dir lacks: a run whose files do not agree with each other and with
    the plan runs again, and a plan changed since out_dir was started raises
    ValueError (nothing written). `progress(done, failed, total)`, if given,
    is called after each run is written. Returns read_ensemble(out_dir). A
    bad plan raises ValueError naming the file, line and key (before any
    run); a failed run is a row with status 'failed' (its message in
    out_dir/runs/RUN.json). A run the environment stopped (its snapshot not
    written: a full disk; out of memory) raises OSError; it is recorded as
    'interrupted', and resume=True runs it again."""
    err = ffi.new("char[]", _ERR_SIZE * 2)
    out = ffi.new("boids_plan **")
    code = _lib.boids_plan_load(_fspath(plan), out, err, _ERR_SIZE * 2)
    if code == _FORMAT:
        raise ValueError(_text(err))
    _check(code, err)
    p = out[0]
    try:
        desc = ffi.new("boids_ensemble_desc *")
        dir_c = ffi.new("char[]", _fspath(out_dir))
        desc.out_dir = dir_c
        desc.jobs = _integer("jobs", jobs, 1, _MAX_THREADS, f"1..{_MAX_THREADS}")
        desc.threads = _integer("threads", threads, 0, _MAX_THREADS, f"0..{_MAX_THREADS}")
        desc.resume = bool(resume)
        callback = None
        if progress is not None:
            @ffi.callback("void(void *, uint32_t, uint32_t, uint32_t)")
            def callback(_user, done, failed, total):
                progress(done, failed, total)
            desc.progress = callback
        failed = ffi.new("uint32_t *")
        _check(_lib.boids_ensemble_run(p, desc, failed, err, _ERR_SIZE * 2), err)
    finally:
        _lib.boids_plan_free(p)
    return read_ensemble(out_dir)
