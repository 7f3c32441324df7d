"""A fresh process takes the fast path at once, whatever its caches: the five ways 0.2's run-time compile stranded a
user (issue 53), each checked here on the paths a user meets first (the README's AEC loop, ``VectorEuchre``,
``SingleSeatVectorEnv`` against ``rules``, a batched ``evaluate``), run in a new process:

1. no writable cache folder (``HOME=/nonexistent``, a read-only ``NUMBA_CACHE_DIR``): 0.2 crashed at import;
2. a prebuilt cache mounted read-only, which 0.2 ignored while saying it was built;
3. two environments sharing one cache folder, where 0.2 compiled again in the foreground;
4. a background build killed, whose lock 0.2 left behind;
5. a notice promising minutes, then silence.

Since 0.3 the compiled code is built when the package is installed: a process reads no cache and writes none
(2 and 3 cannot arise: the cache folder stays empty, and the package's tree unchanged), starts no process (4: a
process that tries fails this test), and has nothing to announce (5: stderr stays empty).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import euchre_env

SCRIPT = r"""
import os, subprocess

def refuse(*args, **kwargs):
    raise AssertionError("a first use started a process")

subprocess.Popen.__init__ = refuse
os.fork = refuse
os.posix_spawn = refuse

import numpy as np
import euchre_env
from euchre_env.envs.single_seat_vector import SingleSeatVectorEnv
from euchre_env.envs.vector import VectorEuchre
from euchre_env.evaluation.evaluate import evaluate

env = euchre_env.env(rules="knock")  # the README's loop, one game
rng = np.random.default_rng(0)
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        env.step(None)
        continue
    legal = np.flatnonzero(obs["action_mask"])
    env.step(int(legal[rng.integers(len(legal))]))
assert type(env.unwrapped._core).__name__ == "CompiledGame", type(env.unwrapped._core)

venv = VectorEuchre("knock", num_envs=64, seed=0)
obs, mask, seat = venv.reset()
for _ in range(30):
    obs, mask, seat, *_ = venv.step(venv.sample_legal())

envs = SingleSeatVectorEnv("knock", num_envs=64, opponents="rules", seed=0)
obs, infos = envs.reset(seed=0)
for _ in range(30):
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
    obs, reward, terminated, truncated, infos = envs.step(actions)

result = evaluate("rules", "random", n=40, seed=1, workers=1)
assert result.deals == 40, result
print("first use ok")
"""


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if "__pycache__" not in p.parts}


def test_a_fresh_process_reads_and_writes_no_cache_starts_no_process_and_says_nothing(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    package = Path(euchre_env.__file__).parent
    before = _files(package)
    env = {**os.environ, "HOME": "/nonexistent", "NUMBA_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1",
           "EUCHRE_ENV_ENGINE": "auto"}
    run = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "first use ok"
    assert run.stderr == ""
    assert list(cache.iterdir()) == []
    assert _files(package) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]
