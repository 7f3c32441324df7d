"""Build euchre_core (the C twin of the one-game kernels) with the system cc at -O2; print the compile's CPU time.

    .venv/bin/python experiments/c_core/build.py [--opt -O2]

Regenerates layout.h from euchre_env.compiled.layout first (gen_layout.py), then compiles euchre_core.c into
experiments/c_core/euchre_core<EXT_SUFFIX>, importable with that folder on sys.path."""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import sysconfig
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def build(opt: str = "-O2", quiet: bool = False) -> dict[str, float]:
    import gen_layout

    gen_layout.main()
    out = os.path.join(HERE, "euchre_core" + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = ["cc", opt, "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers",
           "-Wno-cast-function-type", "-fPIC", "-shared", "-I", sysconfig.get_paths()["include"], "-I", HERE,
           os.path.join(HERE, "euchre_core.c"), "-o", out]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if not quiet:
        print(" ".join(cmd))
        print(f"built {out}: compile CPU {cpu:.3f} s (user {after.ru_utime - before.ru_utime:.3f}, "
              f"sys {after.ru_stime - before.ru_stime:.3f}), wall {wall:.3f} s")
    return {"cpu_s": cpu, "wall_s": wall, "path": out}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--opt", default="-O2")
    build(parser.parse_args().opt)
