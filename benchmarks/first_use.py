"""First use, cold and warm: how long each entry point takes on a machine whose Numba cache is empty, and again once
the kernels are built; and what each build compiles, kernel by kernel.

    python benchmarks/first_use.py                 # every path, cold then warm (about 15 minutes on 2 cores)
    python benchmarks/first_use.py --paths readme eval
    python benchmarks/first_use.py --kernels       # the compile time of each kernel of every build

Each path runs in a new process with a new empty ``NUMBA_CACHE_DIR`` and the default settings (the background
build on), as a user's first run would. The script then waits for the background build to finish (the time until
the kernels are built is reported) and runs the path again in that cache: the warm figure. docs/compiling.md
quotes the results.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

PY = sys.executable

# Each path prints one JSON line: {"first_s": seconds from the start of the process to its first result, ...}
PATHS = {
    "readme": ("the README's AEC loop: first move, and 3 whole games", """
import time; t0 = time.perf_counter()
import numpy as np
import euchre_env
imported = time.perf_counter() - t0
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
print(json.dumps({"import_s": imported, "first_s": first, "total_s": time.perf_counter() - t0,
                  "engine": type(env.unwrapped._core).__name__}))
"""),
    "eval": ("euchre eval rules random --hands 1000", None),
    "demo": ("make demo (python -m euchre_env.play.demo): its first line, and the whole game", None),
    "vector": ("VectorEuchre(knock, 4096 games, structured): first reset and step", """
import time; t0 = time.perf_counter()
import numpy as np
from euchre_env import VectorEuchre
venv = VectorEuchre("knock", num_envs=4096, seed=0, observation="structured")
obs, mask, seat = venv.reset()
venv.step(mask.argmax(1))
print(json.dumps({"first_s": time.perf_counter() - t0, "total_s": time.perf_counter() - t0}))
"""),
    "single_seat_vector": ("SingleSeatVectorEnv(knock, 1024 games, rules): first reset and step", """
import time; t0 = time.perf_counter()
import numpy as np
from euchre_env import SingleSeatVectorEnv
envs = SingleSeatVectorEnv("knock", num_envs=1024, opponents="rules", seed=0)
obs, infos = envs.reset(seed=0)
envs.step(infos["action_mask"].argmax(1))
print(json.dumps({"first_s": time.perf_counter() - t0, "total_s": time.perf_counter() - t0}))
"""),
}


def run_path(name: str, cache: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("EUCHRE_ENV_ENGINE", None)
    env.pop("EUCHRE_ENV_BACKGROUND_BUILD", None)
    start = time.perf_counter()
    if name == "eval":
        out = subprocess.run([PY, "-m", "euchre_env.cli", "eval", "rules", "random", "--hands", "1000"], env=env,
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


def wait_for_builds(cache: str, limit_s: float = 1800) -> float:
    """Seconds until no background build is under way in ``cache`` (its lock files gone)."""
    start = time.perf_counter()
    while glob.glob(os.path.join(cache, "*.building")) and time.perf_counter() - start < limit_s:
        time.sleep(1)
    return time.perf_counter() - start


def first_use(paths: list[str]) -> None:
    print("| path | cold: first result | cold: whole run | background build done after | warm: first result "
          "| warm: whole run |")
    print("|---|---|---|---|---|---|")
    for name in paths:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
            cold = run_path(name, cache)
            built = wait_for_builds(cache)
            warm = run_path(name, cache)
            print(f"| {PATHS[name][0]} | {cold['first_s']:.2f} s | {cold['total_s']:.1f} s | +{built:.0f} s "
                  f"| {warm['first_s']:.2f} s | {warm['total_s']:.1f} s |", flush=True)
            for label, r in (("cold", cold), ("warm", warm)):
                if r.get("stderr"):
                    print(f"  <!-- {name} {label} stderr: {r['stderr'][-200:]!r} -->", flush=True)


_KERNELS = """
import json, sys, time
import numba.core.event as ev
from euchre_env.compiled import builds
from euchre_env.cli.compiling import families

class Times(ev.Listener):
    def __init__(self):
        self.stack, self.top = [], {}
    def on_start(self, event):
        self.stack.append(time.perf_counter())
    def on_end(self, event):
        start = self.stack.pop()
        if not self.stack:  # a kernel its caller compiled is inside its caller's time
            f = event.data["dispatcher"].py_func
            name = f.__module__.removeprefix("euchre_env.") + "." + f.__qualname__
            self.top[name] = self.top.get(name, 0.0) + time.perf_counter() - start

family = [f for f in families() if f.name == sys.argv[1]][0]
times = Times()
ev.register("numba:compile", times)
total = builds.build(family)
print(json.dumps({"total_s": total, "kernels": times.top}))
"""


def kernel_times() -> None:
    from euchre_env.cli.compiling import families

    print("| build | kernel | compile time |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        for family in families():  # in order: a later build reuses the kernels an earlier one compiled
            env = {**os.environ, "NUMBA_CACHE_DIR": cache, "EUCHRE_ENV_ENGINE": "compiled"}
            out = subprocess.run([PY, "-c", _KERNELS, family.name], env=env, capture_output=True, text=True,
                                 check=True)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            for kernel, seconds in sorted(result["kernels"].items(), key=lambda kv: -kv[1]):
                print(f"| {family.name} | `{kernel}` | {seconds:.1f} s |")
            print(f"| {family.name} | **all** (with loading what earlier builds compiled) | "
                  f"**{result['total_s']:.1f} s** |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    parser.add_argument("--kernels", action="store_true", help="the compile time of each kernel instead")
    args = parser.parse_args()
    if args.kernels:
        kernel_times()
    else:
        first_use(args.paths)


if __name__ == "__main__":
    main()
