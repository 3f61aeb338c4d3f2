"""The one headless GL context that every GPU Simulation of the process
shares, and the making of an engine on it (or on the CPU)."""

from __future__ import annotations

import threading

from ._library import _ERR_SIZE, _check, _lib, ffi


class _SharedContext:
    """The one headless GL context of the library that every GPU Simulation
    of the process shares (the engine allows one open at a time, current on
    the thread that opened it): opened by the first GPU Simulation, closed
    after the last one is destroyed, on one thread. If that thread has ended
    with Simulations still open, the context went with it: the next GPU
    Simulation closes it and opens a new one on its own thread, and those
    orphans (an older ``generation``) refuse every use."""

    def __init__(self):
        """No context yet."""
        self._lock = threading.Lock()
        self._handle = None
        self._thread = None  # the threading.Thread that opened it
        self._users = 0
        self.generation = 0

    def acquire(self):
        """(context, generation) for one more GPU Simulation on this thread
        (opened on the first); RuntimeError if it lives on another, running
        thread or cannot open."""
        with self._lock:
            if self._handle is not None and not self._thread.is_alive():
                # Its thread ended: nothing can use it again. Closing it from
                # here is safe (EGL releases a dead thread's context).
                _lib.boids_engine_headless_close(self._handle)
                self._handle, self._thread, self._users = None, None, 0
                self.generation += 1
            if self._handle is not None and self._thread is not threading.current_thread():
                raise RuntimeError("gpu: the GPU Simulations of this process live on another thread "
                                   "(their GL context is current there); make this one on that thread")
            if self._handle is None:
                out = ffi.new("boids_engine_headless **")
                err = ffi.new("char[]", _ERR_SIZE)
                _check(_lib.boids_engine_headless_open(out, err, _ERR_SIZE), err)
                self._handle, self._thread = out[0], threading.current_thread()
            self._users += 1
            return self._handle, self.generation

    def release(self, generation):
        """One GPU Simulation of `generation` fewer (its engine destroyed);
        closes the context after the last."""
        with self._lock:
            if generation != self.generation:
                return
            self._users -= 1
            if self._users == 0 and self._handle is not None:
                _lib.boids_engine_headless_close(self._handle)
                self._handle = None
                self._thread = None


_context = _SharedContext()


def _make(desc, create):
    """(engine, generation) from create(out, err) (boids_engine_create or a
    sibling) for desc, a GPU one on the shared context (generation: the
    context's; None on the CPU); raises the engine's error."""
    gpu = desc.backend == 1
    generation = None
    if gpu:
        desc.headless, generation = _context.acquire()
    out = ffi.new("boids_engine **")
    err = ffi.new("char[]", _ERR_SIZE)
    try:
        _check(create(out, err), err)
    except BaseException:
        if gpu:
            _context.release(generation)
        raise
    return out[0], generation
