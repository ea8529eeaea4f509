"""Build of the Python package (metadata in pyproject.toml).

The package's C library is built by the project's own CMake (target
profdbpy: python/profdb/_native.c with the CLI's sources and the loader,
report and SQL-function libraries), so it always compiles exactly what the
CLI compiles; it is installed as profdb/_clib*.so and driven through
ctypes (no Python C API: it does not depend on the interpreter's build).
The report's query files (queries/) are installed as profdb/queries.
Build folders go to build-python/ (the top-level build/ is CMake's).

    pip install --no-build-isolation --no-index .
"""
import os
import re
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(profdb VERSION ([0-9.]+)", f.read()).group(1)


class CMakeLibrary(build_ext):
    """Builds libprofdbpy.so with CMake; installs it as profdb/_clib*.so (a library
    for ctypes, never imported as a module)."""

    def build_extension(self, ext):
        build = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DBUILD_TESTING=OFF"])
        subprocess.check_call(["cmake", "--build", build, "--target", "profdbpy", "-j",
                               str(os.cpu_count() or 2)])
        out = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.join(build, "libprofdbpy.so"), out)


class WithQueries(build_py):
    """Also installs queries/ (*.sql, *.list) as profdb/queries."""

    def run(self):
        super().run()
        src = os.path.join(ROOT, "queries")
        dst = os.path.join(self.build_lib, "profdb", "queries")
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst, ignore=lambda d, names: [
            n for n in names if os.path.isfile(os.path.join(d, n))
            and not n.endswith((".sql", ".list"))])


setup(
    version=version(),
    ext_modules=[Extension("profdb._clib", sources=[])],
    cmdclass={"build_ext": CMakeLibrary, "build_py": WithQueries},
    options={"build": {"build_base": "build-python"}},
    zip_safe=False,
)
