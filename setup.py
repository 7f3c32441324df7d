"""The compiled twins, built when the package is installed: C99, the Python C API and nothing else.

pyproject.toml holds the package's metadata; this file only declares the C extensions, which setuptools cannot
declare there with the options below. Each is built by ``pip install`` (``make test`` runs that) with the
platform's C compiler in a few seconds (docs/compiling.md). The engine's header (``euchre_env/compiled/c``) is
shared by every extension that steps games: each compiles its own copy of the rules it calls.
"""

import os
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NO_COMPILER = ("euchre-env: no C compiler found ({tried}): the package's compiled twins are C, built at install; "
               "install one (Debian/Ubuntu: apt-get install gcc; macOS: xcode-select --install; Windows: the Build "
               "Tools for Visual Studio) and run pip install again")

# Each extension: its module and its one C file (setuptools takes "/" paths on every platform). A plain literal:
# benchmarks/first_use.py --build reads it without running this file.
EXTENSIONS = {
    "euchre_env.compiled._core": "euchre_env/compiled/c/core.c",
    "euchre_env.agents.rule_based._twin": "agents/rule_based/c/twin.c",
    "euchre_env.agents.search._double_dummy": "agents/search/c/double_dummy.c",
    "euchre_env.agents.neural._kernels": "agents/neural/c/kernels.c",
}
ENGINE = "euchre_env/compiled/c"  # the engine's headers, on every extension's include path
if sys.platform == "win32":
    FLAGS = ["/O2"]
else:
    # -O2 and C99, which any compiler of the last twenty years takes.
    FLAGS = ["-O2", "-std=c99", "-Wall", "-Wno-unused-function", "-fno-strict-aliasing"]


def extension(name: str, source: str) -> Extension:
    """The extension ``name`` from its one C file ``source``, with the engine's headers on its include path."""
    folder = os.path.dirname(source)
    headers = sorted(f"{d}/{f}" for d in {folder, ENGINE} for f in os.listdir(d) if f.endswith((".h", ".inc")))
    return Extension(name, [source], include_dirs=[ENGINE, folder], depends=headers, extra_compile_args=FLAGS)


class BuildWithCompiler(build_ext):
    """setuptools' build_ext, saying first in one line when there is no C compiler to build with (rather than one
    compile error per file)."""

    def build_extensions(self) -> None:
        command = getattr(self.compiler, "compiler_so", None)  # unix compilers: the command line, CC first
        if command and shutil.which(command[0]) is None:
            sys.exit(NO_COMPILER.format(tried=command[0]))
        super().build_extensions()


setup(ext_modules=[extension(name, source) for name, source in EXTENSIONS.items()],
      cmdclass={"build_ext": BuildWithCompiler})
