"""Time limits (``run.max_minutes``, ``euchre exploit --minutes``) bound the behaviour cloning too, and a run that
they end before its first PPO update still writes its final evaluation, curve and summary (issue 44)."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import TINY  # noqa: E402

from euchre_env.agents.neural.checkpoint import load_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import ActorCritic  # noqa: E402
from euchre_env.agents.registry import make_agent  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.game.actions import action_table  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.training.config import PretrainConfig  # noqa: E402
from euchre_env.training.curves import eval_curves  # noqa: E402
from euchre_env.training.imitation import clone  # noqa: E402
from euchre_env.training.selfplay import SelfPlay  # noqa: E402
from euchre_env.views.observation import Observer  # noqa: E402

torch.set_num_threads(1)  # tiny networks: threads only add overhead

# A limit far below the time of one lockstep step of the demonstrations (60 microseconds): a run under it is
# past its limit at the first check, so that where it stops does not depend on the machine's speed.
INSTANT = "1e-6"


def _after(calls: int):
    """A ``stop`` that answers true from its ``calls + 1``-th question on (a time limit, without a clock)."""
    asked = 0

    def stop() -> bool:
        nonlocal asked
        asked += 1
        return asked > calls
    return stop


@pytest.fixture(scope="module")
def demos():
    rules = Rules.preset("knock")
    torch.manual_seed(0)
    model = ActorCritic(Observer(rules).size, len(action_table(rules)), [32])
    return model, SelfPlay(rules, model, 8, {"self": 1}, {}, reward_scale=0.25)


def test_a_stopped_demonstration_finishes_its_hands_and_keeps_what_it_recorded(demos):
    _, play = demos
    full = play.collect(2000, seed=5, update=0, teacher=make_agent("rules"), stream=1)
    cut = play.collect(2000, seed=5, update=0, teacher=make_agent("rules"), stream=1, stop=_after(0))
    assert len(full) >= 2000 and 0 < len(cut) <= play.num_games * play.per_hand
    assert cut.hands == play.num_games  # each game finished the hand it was in, and started no other
    assert np.count_nonzero(cut.reward) > 0  # the finished hands' results are recorded


def test_cloning_stops_between_minibatches_and_says_how_far_it_got(demos):
    model, play = demos
    data = play.collect(1000, seed=5, update=0, teacher=make_agent("rules"), stream=1)
    cfg = PretrainConfig(teacher="rules", epochs=4, minibatch_size=len(data) // 4 + 1)  # 4 minibatches an epoch
    before = {k: v.clone() for k, v in model.state_dict().items()}
    untouched = clone(model, data, cfg, torch.Generator().manual_seed(0), stop=_after(0))
    assert untouched == {"epochs": 0.0}  # stopped before its first minibatch: nothing learned, nothing to report
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    stats = clone(model, data, cfg, torch.Generator().manual_seed(0), stop=_after(6))
    assert stats["epochs"] == 1.5 and 0 <= stats["accuracy"] <= 1  # 6 of the 16 minibatches ran
    assert not all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_a_probe_whose_time_ends_in_the_cloning_still_writes_its_results(tmp_path, capsys):
    """The documented ``euchre exploit rules --minutes 2`` on a slow machine: the time runs out during the
    behaviour cloning, no PPO update is made, and the probe still evaluates, plots and writes exploit.json."""
    argv = ["exploit", "random", "--config", TINY, "--minutes", INSTANT, "--deals", "12", "--seed", "31",
            "--runs-dir", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "The exploiter wins" in out
    assert "behaviour cloning of 'rules': cut short by the time limit at " in err
    assert "reached during behaviour cloning; training ended " in err and "after 0 PPO updates" in err
    run = tmp_path / "exploit-random"
    summary = json.loads((run / "exploit.json").read_text())
    assert summary["updates"] == 0 and summary["decisions"] == 0
    assert summary["time_limit"]["reached_during"] == "behaviour cloning"
    assert summary["time_limit"]["minutes"] == float(INSTANT) and summary["time_limit"]["over_seconds"] > 0
    assert [point[0] for point in summary["curve"]] == [0.0]  # the evaluation of the final (cloned) weights
    assert summary["final"]["deals"] == 12
    assert (run / "final_eval" / "random" / "eval.json").exists() and (run / "curves.png").stat().st_size > 0


def test_a_train_run_ended_at_update_0_writes_everything_and_resumes_without_cloning_again(tmp_path, capsys):
    argv = ["train", "--config", TINY, "--runs-dir", str(tmp_path), "--run-name", "cut", "--no-progress",
            "--set", f"run.max_minutes={INSTANT}"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Trained 0 updates, 0 decisions" in out
    assert "time limit of 1e-06 min reached during behaviour cloning" in err
    run = tmp_path / "cut"
    assert (run / "final_eval" / "rules" / "eval.json").exists() and (run / "curves.png").stat().st_size > 0
    assert list(eval_curves(str(run))) == ["random", "rules"]
    latest = load_checkpoint(str(run / "checkpoints" / "latest.pt"))
    assert latest["counters"]["update"] == 0 and latest["counters"]["cloned"]
    # more time: the run goes on from its cloned weights to its PPO updates, without cloning again
    assert main(["train", "--runs-dir", str(tmp_path), "--run-name", "cut", "--resume", "--no-progress",
                 "--no-final-eval", "--set", "run.max_minutes=0", "run.total_decisions=1000"]) == 0
    out, err = capsys.readouterr()
    assert "Trained 1 updates" in out and "behaviour cloning" not in err and "time limit" not in err


# ------------------------------------------------------------------ the CleanRL example (issue 44: minutes of silence)
def _cleanrl():
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "cleanrl_ppo_vector.py"
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_vector", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["cleanrl_ppo_vector"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_cleanrl_example_speaks_before_it_builds_its_envs(monkeypatch, capsys):
    cleanrl = _cleanrl()

    def building(*args, **kwargs):  # what may compile the engine's kernels for minutes: stop the run here
        raise RuntimeError("building the envs")

    monkeypatch.setattr(cleanrl, "SingleSeatVectorEnv", building)
    with pytest.raises(RuntimeError, match="building the envs"):
        cleanrl.main(["--minutes", "3", "--num-envs", "16"])
    assert capsys.readouterr().out == ("cleanrl_ppo_vector: 3 min of training on knock against rules, 16 games at "
                                       "once; starting the envs\n")


def test_the_cleanrl_examples_cloning_says_what_it_does_and_stops_at_the_deadline(capsys):
    cleanrl = _cleanrl()
    cfg = cleanrl.parse_config(["--num-envs", "16", "--clone-decisions", "320", "--hidden", "32"])
    envs = cleanrl.SingleSeatVectorEnv(cfg.preset, num_envs=16, learner="team", opponents=cfg.opponent,
                                       observation="structured", seed=cfg.seed)
    agent = cleanrl.Agent(envs.single_observation_space.shape[0], envs.single_action_space.n, cfg.hidden)
    before = [p.detach().clone() for p in agent.actor.parameters()]
    cleanrl.clone_rules(envs, agent, cfg, deadline=0.0)  # the time is up from the start
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "cloning the rule-based agent: 320 decisions of its play, then 5 epochs"
    assert lines[1].startswith("cloning: recorded 16 decisions in ")  # one step: something to measure
    assert lines[2].startswith("cloning: epoch 1/5, time is up, ") and len(lines) == 4
    assert all(torch.equal(a, b) for a, b in zip(before, agent.actor.parameters()))  # no minibatch ran
