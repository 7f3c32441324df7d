"""Smoke tests of the RL-library examples in ``examples/``.

Each test runs its example's command line for a few seconds of training and checks that
learning happened (update steps, changed weights) and that no illegal action was taken
(counted by the envs themselves). A test skips, naming the extra to install, when its
library is missing; CI installs every extra.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from euchre_env.single_seat import SingleSeatEnv

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickled classes look their module up by name
    spec.loader.exec_module(module)
    return module


def readme_snippet(path: Path, tag: str) -> str:
    """The README snippet of an example: its ``# readme-start: tag`` .. ``# readme-end: tag`` regions,
    each stripped of surrounding blank lines, joined by two blank lines."""
    regions = re.findall(rf"^# readme-start: {tag}\n(.*?)^# readme-end: {tag}$", path.read_text(), flags=re.S | re.M)
    return "\n\n\n".join(region.strip("\n") for region in regions) + "\n"


def _skip_without(module: str, extra: str) -> None:
    pytest.importorskip(module, reason=f"the [{extra}] extra is not installed: pip install -e '.[{extra}]'")


def _one_torch_thread(request: pytest.FixtureRequest) -> None:
    """Torch's intra-op threads spin against other jobs on a busy machine: several times slower."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    request.addfinalizer(lambda: torch.set_num_threads(threads))


@pytest.mark.parametrize(("name", "tag", "library"), [("sb3_maskable_ppo", "sb3", "sb3_contrib"),
                                                      ("rllib_multiagent", "rllib", "ray.rllib"),
                                                      ("tianshou_dqn", "tianshou", "tianshou")])
def test_readme_snippets_are_self_contained(name, tag, library):
    """The README shows these regions alone: they must import everything they use, and use it."""
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff (a [dev] tool) checks the snippets for undefined and unused names")
    code = readme_snippet(EXAMPLES / f"{name}.py", tag)
    assert code.startswith(("import ", "from ")) and f"from {library}" in code
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F", "--stdin-filename",
                           f"{name}_readme.py", "-"], input=code, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout


def test_sb3_maskable_ppo(tmp_path, request):
    _skip_without("sb3_contrib", "sb3")
    _one_torch_thread(request)
    sb3 = load_example("sb3_maskable_ppo")
    result = sb3.main(["--timesteps", "256", "--n-steps", "128", "--eval-deals", "6", "--seed", "1",
                       "--out", str(tmp_path)])
    assert result.timesteps == 256 and result.updates > 0 and result.weights_changed
    assert result.illegal_actions == 0
    assert result.evaluation.deals == 6 and result.evaluation.hands == 12  # every deal played twice
    # The saved model as an opponent (a checkpoint): SingleSeatEnv raises if an opponent plays illegally.
    env = SingleSeatEnv("knock", opponents=sb3.MaskablePPOAgent.load(result.model_path), seat=0, episode="game")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert env.state.is_over


def test_tianshou_dqn(tmp_path, monkeypatch, request):
    # numba compiles Tianshou's replay-buffer helpers on first use (~15 s, longer than this run's
    # training); the flag is read when numba is imported, so only for a process without it yet.
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    _skip_without("tianshou", "tianshou")
    _one_torch_thread(request)
    tianshou = load_example("tianshou_dqn")
    result = tianshou.main(["--epochs", "2", "--epoch-steps", "64", "--envs", "2", "--test-episodes", "2",
                            "--seed", "1", "--quiet", "--out", str(tmp_path)])
    assert result.env_steps >= 128 and result.update_steps > 0 and result.weights_changed
    assert result.illegal_actions == 0
    assert result.model_path.exists()


def test_rllib_multiagent(tmp_path, request):
    _skip_without("ray.rllib", "rllib")
    _one_torch_thread(request)
    import ray
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    import euchre_env

    rllib = load_example("rllib_multiagent")
    try:
        result = rllib.main(["--iterations", "1", "--batch", "256", "--seed", "1", "--out", str(tmp_path / "ckpt")])
    finally:
        ray.shutdown()  # building the algorithm starts a local Ray instance: stop its processes
    assert result.env_steps >= 256
    assert set(result.module_steps_trained) == set(result.weights_changed) == {"team_0", "team_1"}
    assert all(n > 0 for n in result.module_steps_trained.values()) and all(result.weights_changed.values())
    assert result.actions_checked == result.env_steps and result.illegal_actions == 0
    # The checkpoint restores a team's module, which only picks legal actions.
    module = RLModule.from_checkpoint(result.checkpoint / "learner_group" / "learner" / "rl_module" / "team_1")
    assert isinstance(module, rllib.MaskedPPOModule)
    env = euchre_env.env(rules="knock")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
    assert obs["action_mask"][int(logits.argmax())] == 1
