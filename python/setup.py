"""Copies libboids.so and the shipped scenarios into the package at build
time (see README.md): the library finds a scenarios/ folder beside itself.

The library is $BOIDS_LIBRARY if set, else ../build/lib/libboids.so.0 (the
source tree's tools/build.sh output); neither: the package is built without
it and finds the library at import through BOIDS_LIBRARY or the system
loader path (boids/_library.py).
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


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


setup(cmdclass={"build_py": BuildWithLibrary})
