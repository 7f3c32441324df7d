"""The core package's smoke test, run by tests/test_min_versions.py in a fresh virtual environment that holds the
package (installed from this tree, not editable) and its core dependencies alone, at the lowest versions
pyproject.toml allows (constraints-min.txt) and at the newest the index offers.

    python tests/min_versions_smoke.py README.md

It imports ``euchre_env``, runs the README's first example (the AEC loop) and PettingZoo's ``api_test``, checks
``SingleSeatEnv`` with Gymnasium's ``check_env`` and plays it, and steps both vector envs: what a user of the core
does first. It prints the versions it ran on; any failure is an exception (exit status 1).
"""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test


def readme_loop(readme: Path) -> str:
    """The README's first ```python block: the AEC loop every user starts from."""
    return re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S)[0]


def main(readme: Path) -> None:
    import euchre_env

    print("python", sys.version.split()[0], "numpy", np.__version__, "gymnasium", gymnasium.__version__,
          "pettingzoo", version("pettingzoo"), "euchre_env from", Path(euchre_env.__file__).parent)
    exec(compile(readme_loop(readme), "README loop", "exec"), {"__name__": "readme"})
    api_test(euchre_env.env(rules="classic"), num_cycles=20)
    if hasattr(pettingzoo, "make"):  # PettingZoo's registry: 1.27 on (euchre_env registers the AEC env there)
        pettingzoo.make("aec", "euchre/euchre_v0", rules="bid").reset(seed=0)

    single = gymnasium.make("euchre/SingleSeat-v0", rules="knock", opponents="rules")
    check_env(single.unwrapped, skip_render_check=True)
    obs, info = single.reset(seed=1)
    steps = 0
    for _ in range(200):
        obs, _reward, terminated, truncated, info = single.step(single.action_space.sample())
        steps += 1
        if terminated or truncated:
            obs, info = single.reset()
    assert obs["action_mask"].dtype == np.int8 and info["action_mask"].any()

    venv = euchre_env.VectorEuchre("classic", num_envs=16, seed=2)
    venv.reset()
    hands = 0
    for _ in range(300):
        *_, info = venv.step(venv.sample_legal())
        hands += int(info["hand_over"].sum())
    assert hands > 0

    envs = gymnasium.make_vec("euchre/SingleSeat-v0", num_envs=16, rules="knock", opponents="rules")
    obs, infos = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    total = 0.0
    for _ in range(100):
        actions = [rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]]
        obs, rewards, terminated, truncated, infos = envs.step(np.array(actions))
        total += float(np.abs(rewards).sum())
    assert obs.shape == envs.observation_space.shape and total > 0
    print(f"ok: README loop, api_test, check_env, {steps} SingleSeatEnv steps, VectorEuchre {hands} hands, "
          f"SingleSeatVectorEnv {envs.num_envs} games x 100 steps")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "README.md")
