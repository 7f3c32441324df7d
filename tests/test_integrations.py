"""Smoke tests of the RL-library examples in ``examples/``.

Each test runs its example's command line for a few seconds of training and checks that
learning happened (update steps, changed weights) and that no illegal action was taken
(counted by the envs themselves). A test skips, naming the extra to install, when its
library is missing; CI installs every extra.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from euchre_env.envs.single_seat import SingleSeatEnv

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


class _Stub(ModuleType):
    """A stand-in for a library module: every name in it is a fresh class (bases, decorators, constants)."""

    def __getattr__(self, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(name, (), {})
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of the given top-level packages (and their submodules) give stubs."""

    def __init__(self, roots: set[str]) -> None:
        self.roots = roots
        self.made: list[str] = []

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.roots:
            return importlib.util.spec_from_loader(name, self, is_package=True)
        return None

    def create_module(self, spec):
        self.made.append(spec.name)
        return _Stub(spec.name)

    def exec_module(self, module):
        pass


HEAVY = {"torch", "sb3_contrib", "stable_baselines3", "tianshou", "ray"}


@pytest.fixture
def light_example(monkeypatch):
    """Load an example with its RL libraries stubbed (those not imported yet): the argument checks need
    none of them, and importing them costs seconds."""
    finder = _StubFinder({root for root in HEAVY if root not in sys.modules})
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    loaded: list[str] = []

    def load(name: str) -> ModuleType:
        loaded.append(name)
        return load_example(name)

    yield load
    for name in finder.made + loaded:  # the smoke tests load the real libraries and examples afresh
        sys.modules.pop(name, None)


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
    assert result.illegal_actions == 0 and result.num_envs == 64  # SB3VecEnv: the rules agent has a compiled twin
    assert result.evaluation.deals == 6 and result.evaluation.hands == 12  # every deal played twice
    # The saved model as an opponent (a checkpoint): SingleSeatEnv raises if an opponent plays illegally.
    env = SingleSeatEnv("knock", opponents=sb3.MaskablePPOAgent.load(result.model_path), seat=0, episode="game")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert env.state.is_over


def test_cleanrl_ppo_vector(tmp_path, request):
    _one_torch_thread(request)
    cleanrl = load_example("cleanrl_ppo_vector")
    result = cleanrl.main(["--minutes", "0.02", "--num-envs", "16", "--num-steps", "8", "--minibatch-size", "64",
                           "--clone-decisions", "256",
                           "--eval-deals", "6", "--out", str(tmp_path)])
    assert result.updates > 0 and result.decisions == 128 * result.updates and result.weights_changed
    report = json.loads(result.evaluation.read_text())  # euchre eval's, on the saved checkpoint
    assert (report["deals"], report["hands"], report["agent_a"]) == (6, 12, str(result.checkpoint))
    # The checkpoint is the project's: it plays in SingleSeatEnv (which raises on an illegal action).
    env = SingleSeatEnv("knock", opponents=str(result.checkpoint), seat=0, episode="game")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))


def test_torchrl_ppo(tmp_path, request):
    _skip_without("torchrl", "torchrl")
    _one_torch_thread(request)
    example = load_example("torchrl_ppo")
    result = example.main(["--minutes", "0.02", "--num-envs", "16", "--num-steps", "8", "--minibatch-size", "64",
                           "--clone-decisions", "256", "--eval-deals", "6", "--out", str(tmp_path)])
    assert result.updates > 0 and result.decisions == 128 * result.updates and result.weights_changed
    report = json.loads(result.evaluation.read_text())  # euchre eval's, on the saved checkpoint
    assert (report["deals"], report["hands"], report["agent_a"]) == (6, 12, str(result.checkpoint))


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--opponent", "nosuch"], "argument --opponent: unknown agent spec 'nosuch'"),
    (["--opponent", "pimc:5"], "'pimc:5' has no compiled twin"),
    (["--num-envs", "0"], "argument --num-envs: expected a positive int, got '0'"),
    (["--entropy-coeff", "x"], "argument --entropy-coeff: expected a float, got 'x'"),
])
def test_torchrl_ppo_arguments_are_checked_in_one_line(capsys, argv, fragment):
    _skip_without("torchrl", "torchrl")  # the example imports torchrl at its top: no stubs (they would stay cached)
    with pytest.raises(SystemExit) as exc:
        load_example("torchrl_ppo").main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err, err


def test_tianshou_dqn(tmp_path, request):
    # numba compiles Tianshou's replay-buffer helpers on first use (~15 s, once: cached). The JIT cannot be
    # switched off for them: the env's own core is compiled by numba in this process already.
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


# ------------------------------------------------------------------------------ the examples' arguments
@pytest.mark.parametrize(("name", "argv", "fragment"), [
    ("sb3_maskable_ppo", ["--opponent", "nosuch"], "argument --opponent: unknown agent spec 'nosuch'"),
    ("sb3_maskable_ppo", ["--opponent", "gone.zip"], "no model file at 'gone.zip'"),
    ("sb3_maskable_ppo", ["--eval-opponent", "pimc:0"], "worlds must be at least 1"),
    ("sb3_maskable_ppo", ["--rules", "nope"], "argument --rules: invalid choice: 'nope' (choose from 'knock'"),
    ("sb3_maskable_ppo", ["--timesteps", "-5"], "argument --timesteps: expected a positive integer, got '-5'"),
    ("sb3_maskable_ppo", ["--eval-deals", "x"], "expected a non-negative integer"),
    ("sb3_maskable_ppo", ["--num-envs", "0"], "argument --num-envs: expected a positive integer, got '0'"),
    ("sb3_maskable_ppo", ["--n-steps", "100"], "argument --n-steps: 100 is not a multiple of --num-envs 64"),
    ("tianshou_dqn", ["--opponent", "nosuch"], "argument --opponent: unknown agent spec 'nosuch'"),
    ("tianshou_dqn", ["--rules", "nope"], "argument --rules: invalid choice: 'nope'"),
    ("tianshou_dqn", ["--epochs", "0"], "argument --epochs: expected a positive integer, got '0'"),
    ("tianshou_dqn", ["--envs", "-1"], "argument --envs: expected a positive integer"),
    ("cleanrl_ppo_vector", ["--opponent", "nosuch"], "argument --opponent: unknown agent spec 'nosuch'"),
    ("cleanrl_ppo_vector", ["--opponent", "pimc:5"], "'pimc:5' has no compiled twin"),
    ("cleanrl_ppo_vector", ["--num-envs", "0"], "argument --num-envs: expected a positive int, got '0'"),
    ("cleanrl_ppo_vector", ["--ent-coef", "x"], "argument --ent-coef: expected a float, got 'x'"),
    ("cleanrl_ppo_vector", ["--anneal-lr", "maybe"], "argument --anneal-lr: expected true or false"),
    ("rllib_multiagent", ["--rules", "nope"], "argument --rules: invalid choice: 'nope'"),
    ("rllib_multiagent", ["--batch", "-5"], "argument --batch: expected a positive integer, got '-5'"),
    ("rllib_multiagent", ["--seed", "-1"], "argument --seed: expected a non-negative integer"),
])
def test_example_arguments_are_checked_in_one_line(light_example, capsys, name, argv, fragment):
    example = light_example(name)
    with pytest.raises(SystemExit) as exc:
        example.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err and "Traceback" not in err, err
    assert fragment in err


def test_example_arguments_parse(light_example, tmp_path):
    model = tmp_path / "model.zip"
    model.write_bytes(b"")
    sb3 = light_example("sb3_maskable_ppo").parse_args(["--opponent", str(model), "--timesteps", "256",
                                                         "--eval-deals", "0", "--rules", "bid"])
    assert (sb3.opponent, sb3.timesteps, sb3.eval_deals, sb3.rules) == (str(model), 256, 0, "bid")
    defaults = light_example("sb3_maskable_ppo").parse_args([])
    assert (defaults.opponent, defaults.n_steps, defaults.num_envs) == ("rules", 1024, 64)
    tianshou = light_example("tianshou_dqn").parse_args(["--opponent", "pimc:3", "--epochs", "2"])
    assert (tianshou.opponent, tianshou.epochs, tianshou.envs) == ("pimc:3", 2, 4)
    rllib = light_example("rllib_multiagent").parse_args(["--iterations", "1", "--rules", "classic"])
    assert (rllib.iterations, rllib.batch, rllib.rules) == (1, 4000, "classic")
