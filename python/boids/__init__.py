"""Python bindings of the boids engine (include/boids/engine.h).

The bindings are cffi in ABI mode: no compiler is needed, the shared library
``libboids.so`` is opened at import.  It is looked for, in this order:

1. ``$BOIDS_LIBRARY`` (a path to the file; an error if it cannot be opened),
2. next to this package (``boids/libboids.so*``, put there by an install),
3. the source tree's build (``build/lib/libboids.so`` beside ``python/``),
4. the system loader path (``libboids.so.0``, e.g. after ``cmake --install``).

Arrays handed out (``positions``, ``velocities``, ``groups``, ``ids``) are
numpy copies made by one ``boids_engine_read`` each: they are the caller's,
stay valid for ever and do not change when the simulation steps.

``Simulation(...)`` takes boids-run's flags as keywords (``world=(800, 600),
boundary="walls", radius=60, behaviors=[...]``: ``options()`` lists them)
with boids-run's state-hash for the same flags; ``sim.neighbor_graph(distances=True)``
is the neighbour graph of the current state as CSR arrays.  A process
forked from one that stepped a simulation (``multiprocessing``'s default
``fork``) steps on one thread, with the same results.

Errors: ``TypeError`` for an argument of the wrong type (integers are
whatever ``operator.index`` takes, numpy's included), ``ValueError`` for bad
values or arrays (the engine's message, naming the keyword),
``RuntimeError`` for OpenGL / device problems, ``OSError`` for files,
``MemoryError`` when the engine runs out of memory; every method of a closed
simulation raises ``ValueError("... closed")``.

>>> import boids
>>> with boids.Simulation(count=100, seed=1) as sim:
...     sim.step(2)
...     sim.steps, sim.count, sim.positions.dtype
(2, 100, dtype('float32'))
"""

# The package's modules, by role:
#   _library     libboids.so opened through cffi, its C declarations, errors as exceptions
#   _convert     Python values (integers, numbers, arrays) as the library takes them
#   _options     the keywords that are boids-run flags (the library's list) and their value texts
#   _closable    close() / with / finalizer of an object holding a C handle
#   _context     the headless GL context the GPU Simulations share; engines made on it
#   _simulation  Simulation and Stats
#   _recording   Recording and Frame
#   _ensemble    run_ensemble, read_ensemble, stat_names

from ._ensemble import read_ensemble, run_ensemble, stat_names
from ._library import __version__, behaviors, library_path, scenarios
from ._options import options
# Kept as names of the package, as they were before it had modules: the
# cffi declarations and handle (tests compare _CDEF with the headers) and
# the keyword table.
from ._library import _CDEF, _lib, ffi  # noqa: F401
from ._options import _OPTIONS  # noqa: F401
from ._recording import Frame, Recording
from ._simulation import Simulation, Stats


__all__ = ["Simulation", "Stats", "Recording", "Frame", "scenarios", "behaviors", "library_path",
           "run_ensemble", "read_ensemble", "stat_names", "options", "__version__"]
