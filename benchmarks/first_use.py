"""First use: how long each entry point takes in a new process, and how long the compiled code takes to build.

    python benchmarks/first_use.py                  # every path, twice each, in new processes
    python benchmarks/first_use.py --paths readme vector
    python benchmarks/first_use.py --build          # the CPU time to build each extension from nothing

Since 0.3 nothing compiles at run time (docs/compiling.md): the extensions are built when the package is installed,
so a first run and a later one differ only by what the operating system has cached of the files. Each path runs
in a new process with an empty ``HOME``, from the start of the process (the import included) to its first result
and to its end. ``--build`` compiles each C extension of ``setup.py`` with the compiler and flags setuptools uses,
from nothing, and reports the compiler's CPU time (user + system, its child processes) and the wall time.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

PY = sys.executable
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each path prints one JSON line: {"first_s": seconds from the start of the process to its first result, ...}
PATHS = {
    "readme": ("the README's AEC loop: first move, and 3 whole games", """
import time; t0 = time.perf_counter()
import numpy as np
import euchre_env
env = euchre_env.env(rules="knock")
rng = np.random.default_rng(0)
first = None
for game in range(3):
    env.reset(seed=game)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        first = first or time.perf_counter() - t0
print(json.dumps({"first_s": first, "total_s": time.perf_counter() - t0}))
"""),
    "vector": ("`VectorEuchre(\"knock\", num_envs=4096, observation=\"structured\")`: first step, then 100 steps", """
import time; t0 = time.perf_counter()
from euchre_env import VectorEuchre
venv = VectorEuchre("knock", num_envs=4096, seed=0, observation="structured")
obs, mask, seat = venv.reset()
venv.step(venv.sample_legal())
first = time.perf_counter() - t0
for _ in range(100):
    venv.step(venv.sample_legal())
print(json.dumps({"first_s": first, "total_s": time.perf_counter() - t0}))
"""),
    "single_seat_vector": ("`SingleSeatVectorEnv(\"knock\", num_envs=4096, opponents=\"rules\")`: first step, then "
                           "100 steps", """
import time; t0 = time.perf_counter()
import numpy as np
from euchre_env import SingleSeatVectorEnv
envs = SingleSeatVectorEnv("knock", num_envs=4096, opponents="rules", seed=0)
obs, infos = envs.reset(seed=0)
obs, reward, terminated, truncated, infos = envs.step(infos["action_mask"].argmax(1))
first = time.perf_counter() - t0
for _ in range(100):
    obs, reward, terminated, truncated, infos = envs.step(infos["action_mask"].argmax(1))
print(json.dumps({"first_s": first, "total_s": time.perf_counter() - t0}))
"""),
    "gym_make_vec": ("`gymnasium.make_vec(\"euchre/SingleSeat-v0\", num_envs=64, opponents=\"rules\")`: first "
                     "reset, then 100 steps", """
import time; t0 = time.perf_counter()
import gymnasium, numpy as np
import euchre_env
envs = gymnasium.make_vec("euchre/SingleSeat-v0", num_envs=64, rules="knock", opponents="rules")
obs, infos = envs.reset(seed=0)
first = time.perf_counter() - t0
for _ in range(100):
    obs, reward, terminated, truncated, infos = envs.step(infos["action_mask"].argmax(1))
print(json.dumps({"first_s": first, "total_s": time.perf_counter() - t0}))
"""),
    "eval": ("`euchre eval knock.pt rules --hands 1000`: the whole command", None),
    "demo": ("`make demo` (`python -m euchre_env.play.demo`): its first line, and the whole game", None),
}


def run_path(name: str, home: str) -> dict:
    env = {**os.environ, "HOME": home}
    env.pop("EUCHRE_ENV_ENGINE", None)
    start = time.perf_counter()
    if name == "eval":
        out = subprocess.run([PY, "-m", "euchre_env.cli", "eval", "knock.pt", "rules", "--hands", "1000"], env=env,
                             capture_output=True, text=True, check=True)
        total = time.perf_counter() - start
        return {"first_s": total, "total_s": total, "stderr": out.stderr.strip()[-300:]}
    if name == "demo":
        proc = subprocess.Popen([PY, "-m", "euchre_env.play.demo", "--rules", "knock", "--seed", "7"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        proc.stdout.readline()
        first = time.perf_counter() - start
        _, err = proc.communicate()
        return {"first_s": first, "total_s": time.perf_counter() - start, "stderr": err.strip()[-300:]}
    code = "import json\n" + PATHS[name][1]
    out = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["stderr"] = out.stderr.strip()[-300:]
    return result


def first_use(paths: list[str]) -> None:
    print("| path | first run: first result | first run: whole | second run: first result | second run: whole |")
    print("|---|---:|---:|---:|---:|")
    for name in paths:
        with tempfile.TemporaryDirectory(prefix="home-") as home:
            runs = [run_path(name, home) for _ in range(2)]
        print(f"| {PATHS[name][0]} | {runs[0]['first_s']:.2f} s | {runs[0]['total_s']:.1f} s "
              f"| {runs[1]['first_s']:.2f} s | {runs[1]['total_s']:.1f} s |", flush=True)
        for i, r in enumerate(runs):
            if r.get("stderr"):
                print(f"  <!-- {name} run {i + 1} stderr: {r['stderr'][-200:]!r} -->", flush=True)


def extensions() -> dict[str, str]:
    """setup.py's ``EXTENSIONS`` (module -> C file), read from its text: running it would build."""
    tree = ast.parse(Path(ROOT, "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXTENSIONS":
            return ast.literal_eval(node.value)
    raise RuntimeError("setup.py declares no EXTENSIONS")


def _sources(path: str, folders: list[str], seen: set[str] | None = None) -> set[str]:
    """``path`` and every file of ``folders`` it includes with ``#include "..."``, recursively."""
    seen = set() if seen is None else seen
    seen.add(path)
    for name in re.findall(r'^#include "([^"]+)"', Path(path).read_text(), re.M):
        for folder in (os.path.dirname(path), *folders):
            found = os.path.join(folder, name)
            if os.path.exists(found):
                if found not in seen:
                    _sources(found, folders, seen)
                break
    return seen


def build_times() -> None:
    """Each extension compiled and linked from nothing, as setuptools does it (its CFLAGS, setup.py's flags)."""
    cc = shlex.split(sysconfig.get_config_var("CC"))
    cflags = shlex.split(sysconfig.get_config_var("CFLAGS") or "") + shlex.split(sysconfig.get_config_var("CCSHARED"))
    ldshared = shlex.split(sysconfig.get_config_var("LDSHARED"))
    flags = ["-O2", "-std=c99", "-Wall", "-Wno-unused-function", "-fno-strict-aliasing"]
    include = sysconfig.get_paths()["include"]
    engine = os.path.join(ROOT, "euchre_env", "compiled", "c")
    print("| extension | lines of C (the file and the headers it includes) | compile + link CPU | wall |")
    print("|---|---:|---:|---:|")
    total_cpu = total_wall = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in extensions().items():
            source = os.path.join(ROOT, source)
            folder = os.path.dirname(source)
            lines = sum(len(Path(f).read_text().splitlines()) for f in _sources(source, [folder, engine]))
            obj, lib = os.path.join(tmp, name + ".o"), os.path.join(tmp, name + ".so")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([*cc, *cflags, *flags, f"-I{engine}", f"-I{folder}", f"-I{include}", "-c", source,
                            "-o", obj], check=True)
            subprocess.run([*ldshared, obj, "-o", lib], check=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            total_cpu, total_wall = total_cpu + cpu, total_wall + wall
            print(f"| `{name}` | {lines:,} | {cpu:.2f} s | {wall:.2f} s |", flush=True)
    print(f"| **all** | | **{total_cpu:.2f} s** | **{total_wall:.2f} s** |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    parser.add_argument("--build", action="store_true", help="the build time of each extension instead")
    args = parser.parse_args()
    if args.build:
        build_times()
    else:
        first_use(args.paths)


if __name__ == "__main__":
    main()
