"""Python values as the library takes them: integers through
operator.index, real numbers, sequences of numbers and per-agent arrays,
each refused with a TypeError / ValueError that names the argument."""

from __future__ import annotations

import operator
from typing import Any, List

import numpy as np


def _integer(name: str, value: Any, lo: int, hi: int, expected: str) -> int:
    """value as an int through operator.index (int, numpy integers, ...):
    TypeError naming `name` for another type, ValueError outside lo..hi."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not an integer; expected {expected}") \
            from None
    if not lo <= v <= hi:
        raise ValueError(f"{name}: {v} is out of range; expected {expected}")
    return v


def _number(name: str, value: Any) -> float:
    """value as a float: a real number (int, float, numpy scalars), not a
    bool or str (TypeError naming `name`)."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a number")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a number") from None


def _numbers(name: str, value: Any, lo: int, hi: int) -> List[str]:
    """A sequence of lo..hi numbers as their texts (TypeError / ValueError naming `name`)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a sequence of {lo} to {hi} numbers")
    if not lo <= len(value) <= hi:
        raise ValueError(f"{name}: {value!r} has {len(value)} numbers; expected {lo} to {hi}")
    return [repr(_number(name, v)) for v in value]


def _agents(count, name, array, dtype, width):
    """`array` (a numpy array, a list, ...) as a C-contiguous (count, width)
    copy of dtype for the engine.

    Accepts (count, 2..4) real numbers (integers converted) for positions /
    velocities (missing lanes are 0) and (count,) integers for groups;
    another shape or kind is a ValueError naming it.
    """
    try:
        a = np.asarray(array)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: not an array ({exc})") from None
    if width is None:
        if a.shape == (count,) and a.dtype == np.bool_:
            a = a.astype(np.uint32)
        if a.shape != (count,) or not (np.issubdtype(a.dtype, np.integer) or (count == 0 and a.dtype == float)):
            raise ValueError(f"{name}: expected an integer array of shape ({count},), "
                             f"got {a.dtype} {a.shape}")
        if count and (a.min() < 0 or a.max() > 0xFFFFFFFF):
            raise ValueError(f"{name}: groups must be in 0..2^32-1")
        return np.ascontiguousarray(a, dtype=np.uint32)
    real = np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)
    if a.ndim != 2 or a.shape[0] != count or not 2 <= a.shape[1] <= width or not real:
        raise ValueError(f"{name}: expected a real-number array of shape ({count}, 2..{width}), "
                         f"got {a.dtype} {a.shape}")
    out = np.zeros((count, width), dtype=np.float32)
    out[:, :a.shape[1]] = a
    return out
