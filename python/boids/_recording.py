"""Recordings (.boidsrec of boids-run --record) read frame by frame."""

from __future__ import annotations

import dataclasses
import operator
import os
import threading
from typing import Iterator, Union

import numpy as np

from ._closable import _Closable
from ._library import _ERR_SIZE, _check, _fspath, _lib, _text, ffi


@dataclasses.dataclass(frozen=True)
class Frame:
    """One recorded frame: its step and (N, dim) float32 positions and
    velocities by agent id (copies, the caller's)."""

    step: int
    positions: np.ndarray
    velocities: np.ndarray


class Recording(_Closable):
    """A recording (.boidsrec of ``boids-run --record``) opened for reading.

    ``for frame in Recording(path): frame.step, frame.positions`` iterates
    the complete frames in order; ``len(rec)``, ``rec[i]``, ``count``,
    ``dim``, ``every``, ``groups`` ((N,) uint32), ``truncated`` and ``note``
    describe it.  The file is checked whole when opened (header, every
    frame's CRC and values): OSError with the reader's line for a missing or
    damaged file.  A context manager; ``close()`` frees it, after which
    every use raises ValueError.  Not thread-safe beyond its lock.
    """

    def __init__(self, path: Union[str, os.PathLike]) -> None:
        """Opens and checks path; OSError ("FILE: problem") if it cannot."""
        self._r = None
        self._lock = threading.RLock()
        out = ffi.new("boids_recording **")
        err = ffi.new("char[]", _ERR_SIZE)
        _check(_lib.boids_recording_open(_fspath(path), out, err, _ERR_SIZE), err)
        self._r = out[0]
        info = _lib.boids_recording_get_info(self._r)
        self.count = int(info.count)
        self.dim = int(info.dim)
        self.every = int(info.every)
        self.truncated = bool(info.truncated)
        self.note = _text(info.note)
        self._frames = int(info.frames)
        self.groups = np.frombuffer(ffi.buffer(info.group, 4 * self.count), dtype=np.uint32).copy() \
            if self.count else np.empty(0, dtype=np.uint32)

    _handle_attr = "_r"
    _copy_instead = "open the file again with another Recording"

    def _destroy(self, reader):
        """Frees the reader."""
        _lib.boids_recording_close(reader)

    def __len__(self) -> int:
        """The number of complete frames; ValueError once closed."""
        if self._r is None:
            raise ValueError("boids: operation on a closed Recording")
        return self._frames

    def __getitem__(self, i: int) -> "Frame":
        """Frame i (negative from the end) as a Frame; IndexError past the end."""
        try:
            i = operator.index(i)
        except TypeError:
            raise TypeError(f"Recording indices are integers, not {type(i).__name__}") from None
        if i < 0:
            i += self._frames
        if not 0 <= i < self._frames:
            raise IndexError(f"frame {i} of a recording of {self._frames}")
        with self._lock:
            if self._r is None:
                raise ValueError("boids: operation on a closed Recording")
            pos = np.empty((self.count, 4), dtype=np.float32)
            vel = np.empty((self.count, 4), dtype=np.float32)
            step = ffi.new("uint64_t *")
            err = ffi.new("char[]", _ERR_SIZE)
            code = _lib.boids_recording_frame(
                self._r, i, step, ffi.cast("float (*)[4]", ffi.from_buffer(pos, require_writable=True)),
                ffi.cast("float (*)[4]", ffi.from_buffer(vel, require_writable=True)), err, _ERR_SIZE)
            _check(code, err)
        return Frame(int(step[0]), np.ascontiguousarray(pos[:, :self.dim]),
                     np.ascontiguousarray(vel[:, :self.dim]))

    def __iter__(self) -> Iterator["Frame"]:
        """The frames in order."""
        for i in range(self._frames):
            yield self[i]

    def __repr__(self):
        """Agents, dimension, frames and the recording interval."""
        state = "closed" if self._r is None else f"{self._frames} frames"
        return f"<boids.Recording {self.count} agents {self.dim}D every {self.every}, {state}>"
