"""Copies libboids.so and the shipped scenarios into the package at build
time (see README.md): the library finds a scenarios/ folder beside itself.

The library is $BOIDS_LIBRARY if set, else ../build/lib/libboids.so.0 (the
source tree's tools/build.sh output); neither: the package is built without
it and finds the library at import through BOIDS_LIBRARY or the system
loader path (boids/_library.py).
"""

import importlib.util
import os
import platform
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
INSTALL = ("/usr/bin/python3 -m venv --system-site-packages ~/.venv/boids && "
           "~/.venv/boids/bin/pip install --no-build-isolation ./python")


def check_interpreter():
    """One line, before pip's own "invalid command 'bdist_wheel'", when this
    Python cannot build a wheel: setuptools before 70.1 needs the wheel
    package, which a pyenv or conda python3 often lacks (an isolated build
    gets it from the index; --no-build-isolation offline does not). Debian's
    /usr/bin/python3 has it, with numpy and cffi (tools/deps.sh)."""
    has = {m: importlib.util.find_spec(m) is not None for m in ("wheel", "numpy", "cffi")}
    bdist_wheel = has["wheel"] or importlib.util.find_spec("setuptools.command.bdist_wheel") is not None
    if bdist_wheel:
        return
    lacks = [m for m, ok in has.items() if not ok]
    missing = ", ".join(lacks[:-1]) + " and " + lacks[-1] if len(lacks) > 1 else lacks[0]
    print(f"boids: this Python ({sys.executable}, {platform.python_version()}) cannot build the package: it lacks "
          f"{missing}; use Debian's /usr/bin/python3, which has them (python3-wheel, python3-numpy, python3-cffi: "
          f"tools/deps.sh): {INSTALL}", file=sys.stderr)
    sys.exit(1)


class BuildWithLibrary(build_py):
    """build_py that adds libboids.so next to the package's modules."""

    def run(self):
        """Builds the package, then copies the library into it if one is found."""
        super().run()
        lib = os.environ.get("BOIDS_LIBRARY") or os.path.join(HERE, "..", "build", "lib", "libboids.so.0")
        if os.path.exists(lib):
            target = os.path.join(self.build_lib, "boids", "libboids.so")
            shutil.copyfile(os.path.realpath(lib), target)
            print(f"boids: bundled {os.path.realpath(lib)}")
            scenarios = os.path.join(HERE, "..", "scenarios")
            if os.path.isdir(scenarios):
                target = os.path.join(self.build_lib, "boids", "scenarios")
                os.makedirs(target, exist_ok=True)
                names = [n for n in os.listdir(scenarios) if n.endswith((".ini", ".png"))]  # a flow-field image too
                for name in names:
                    shutil.copyfile(os.path.join(scenarios, name), os.path.join(target, name))
                print(f"boids: bundled {len(names)} scenarios")
        else:
            print("boids: no libboids.so bundled (set BOIDS_LIBRARY at import)")


check_interpreter()
setup(cmdclass={"build_py": BuildWithLibrary})
