"""``euchre compile``: check that the package's compiled code is built and loads, a line per extension.

Since 0.3 the compiled twins are C extensions built when the package is installed (``pip install``, with the
platform's C compiler; docs/compiling.md), so there is nothing left to compile at run time and no cache to fill.
The command stays for the scripts and Dockerfiles that call it: it loads each extension, says what it holds, and
exits 1 with one line saying how to build them if one is missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from euchre_env.compiled import native

COMMANDS = {"compile": "check that the compiled code (built at install) is there and loads"}


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("compile", help=COMMANDS["compile"], description=__doc__.split("\n\n")[0])
    p.add_argument("--force", action="store_true", help="ignored: kept for scripts written for 0.2, which "
                   "compiled at run time")


def run_compile(args: argparse.Namespace) -> int:
    missing = []
    for name, what in native.EXTENSIONS.items():
        start = time.perf_counter()
        try:
            native.extension(name)
        except native.NotBuiltError:
            missing.append(name)
            sys.stderr.write(f"  euchre_env.{name}: NOT BUILT ({what})\n")
            continue
        sys.stderr.write(f"  euchre_env.{name}: loaded in {1000 * (time.perf_counter() - start):.0f} ms ({what})\n")
    if missing:
        sys.stderr.write(f"euchre compile: {len(missing)} of {len(native.EXTENSIONS)} extensions not built: "
                         f"{native.BUILD_HINT}\n")
        return 1
    sys.stderr.write("euchre compile: every extension is built (at install time); nothing compiles at run time\n")
    return 0
