"""The trainer's PPO settings: the critic's own learning rate, a league spread over the run, and the
final selection of best.pt on fresh deals."""

from __future__ import annotations

import json
import os
import re

import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, TINY, tiny  # noqa: E402

from euchre_env.agents.neural.checkpoint import load_checkpoint  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.training.ppo import set_learning_rates  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402

torch.set_num_threads(1)


def test_the_critic_learns_at_its_own_rate(tmp_path):
    """With ppo.critic_lr the actor and the critic are two optimizer groups: an actor rate of 1e-12 leaves
    the policy where it was while the critic moves."""
    trainer = Trainer(tiny("ppo.lr=1e-12", "ppo.critic_lr=1e-2", "pretrain.teacher=''", "eval.every=0",
                           "ppo.anneal_lr=false"), str(tmp_path / "run"), log=QUIET)
    assert [g["lr"] for g in trainer.optimizer.param_groups] == [1e-12, 1e-2]
    actor = {k: v.clone() for k, v in trainer.model.actor.state_dict().items()}
    critic = {k: v.clone() for k, v in trainer.model.critic.state_dict().items()}
    trainer.train(stop_at_update=1)
    assert all(torch.allclose(actor[k], v, atol=1e-6) for k, v in trainer.model.actor.state_dict().items())
    assert any((critic[k] - v).abs().max() > 1e-4 for k, v in trainer.model.critic.state_dict().items())


def test_annealing_lowers_both_rates_and_one_group_without_critic_lr(tmp_path):
    trainer = Trainer(tiny("ppo.lr=1e-3", "ppo.critic_lr=4e-3"), str(tmp_path / "two"), log=QUIET)
    set_learning_rates(trainer.optimizer, trainer.config.ppo, trainer.update, 0.5)
    assert [g["lr"] for g in trainer.optimizer.param_groups] == [5e-4, 2e-3]
    shared = Trainer(tiny("ppo.lr=1e-3"), str(tmp_path / "one"), log=QUIET)
    assert len(shared.optimizer.param_groups) == 1
    with pytest.raises(ValueError, match=re.escape("config ppo.critic_lr must be a number from 0 (the critic shares "
                                                   "ppo.lr) to 1, got -1.0")):
        tiny("ppo.critic_lr=-1")


@pytest.mark.parametrize("keep, expected", [("spread", [1, 5, 6]), ("recent", [4, 5, 6])])
def test_the_league_keeps_snapshots_spread_over_the_run(tmp_path, keep, expected):
    """A snapshot every update, three kept: "spread" drops the one nearest its elder neighbour (the oldest
    and the newest stay), "recent" the oldest; files on disk follow the league once latest.pt is saved."""
    trainer = Trainer(tiny("league.snapshot_every=1", "league.max_snapshots=3", f"league.keep={keep}",
                           "run.total_decisions=6000", "eval.every=0", "pretrain.teacher=''"),
                      str(tmp_path / "run"), log=QUIET)
    trainer.train(stop_at_update=6)
    names = [f"update_{u:06d}" for u in expected]
    assert trainer.league.names == names
    assert [name for name, _ in trainer.selfplay.snapshots] == names
    assert sorted(os.listdir(tmp_path / "run" / "checkpoints" / "league")) == [n + ".pt" for n in names]
    with pytest.raises(ValueError, match=re.escape("config league.keep must be one of 'spread', 'recent'")):
        tiny("league.keep=newest")


def test_final_selection_picks_the_best_candidate_on_its_own_deals(tmp_path):
    """Candidates are the last eval.select_last evaluated updates and the final weights; best.pt is the one
    with the best margin on the selection deals, which selection.json lists."""
    run = tmp_path / "run"
    result = Trainer(tiny("eval.every=1", "eval.select_last=2", "eval.select_hands=30"), str(run),
                     log=QUIET).train()
    ckpt = run / "checkpoints"
    assert sorted(os.listdir(ckpt / "candidates")) == ["update_000002.pt", "update_000003.pt"]
    selection = json.loads((ckpt / "selection.json").read_text())
    assert (selection["opponent"], selection["deals"], selection["seed"]) == ("rules", 30, 777)
    best = max(selection["candidates"], key=lambda row: row["margin"])
    assert selection["chosen_update"] == best["update"] and result.best_margin == best["margin"]
    chosen = load_checkpoint(str(ckpt / "candidates" / best["file"]))
    kept = load_checkpoint(str(ckpt / "best.pt"))
    assert kept["counters"]["update"] == best["update"]
    assert all(torch.equal(chosen["actor"][k], kept["actor"][k]) for k in chosen["actor"])


def test_selection_is_checked_before_training():
    with pytest.raises(ValueError, match=re.escape("config eval.select_seed must differ from eval.seed")):
        tiny("eval.select_last=2", "eval.select_seed=12345")
    with pytest.raises(ValueError, match=re.escape("config eval.select_last needs periodic evaluations")):
        tiny("eval.select_last=2", "eval.every=0")
    with pytest.raises(ValueError, match=re.escape("config eval.select_last must be an integer from 0 (no selection) "
                                                   "to 100, got -1")):
        tiny("eval.select_last=-1")


def test_cli_reports_the_selection_margin_beside_the_fresh_one(tmp_path, capsys):
    argv = ["train", "--config", TINY, "--runs-dir", str(tmp_path), "--run-name", "sel", "--no-progress",
            "--set", "eval.every=1", "eval.select_last=1", "eval.select_hands=10"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("best.pt is update"))
    assert "vs rules over 10 deals of seed 777; on 10 fresh deals of seed 2026:" in line
    selection = json.loads((tmp_path / "sel" / "checkpoints" / "selection.json").read_text())
    fresh = selection["fresh"]
    assert fresh["seed"] == 2026 and set(fresh["margins"]) == {"random", "rules"}
    assert f"{fresh['margins']['rules']['margin']:+.3f}" in line


def test_auto_matmul_precision_is_resolved_once_and_kept_in_the_run(tmp_path, monkeypatch):
    import yaml

    from euchre_env.training import train as train_module

    monkeypatch.setattr(train_module, "fastest_precision", lambda: "bfloat16")  # as on a CPU with BF16 products
    said = []
    trainer = Trainer(tiny("ppo.matmul_precision=auto", "eval.every=0"), str(tmp_path / "run"), log=said.append)
    assert trainer.config.ppo.matmul_precision == "bfloat16"
    assert any("ppo.matmul_precision auto: bfloat16" in line for line in said)
    with open(tmp_path / "run" / "config.yaml") as f:
        assert yaml.safe_load(f)["ppo"]["matmul_precision"] == "bfloat16"  # a resume uses what was chosen
    trainer.train(stop_at_update=1)
    assert trainer.update == 1


def test_torch_threads_beyond_the_cores_are_capped_with_a_warning(tmp_path):
    """torch.set_num_threads(100000) kills the process (a segmentation fault): the trainer asks for the cores it
    may use and says so in one line; the config keeps what was asked, so the run resumes on any machine."""
    from euchre_env.training.device import usable_cores

    cores = usable_cores()
    said: list[str] = []
    try:
        trainer = Trainer(tiny("run.torch_threads=100000"), str(tmp_path / "run"), log=said.append)
        assert torch.get_num_threads() == cores
    finally:
        torch.set_num_threads(1)
    assert said[0] == (f"warning: run.torch_threads 100000 is more than the {cores} cores this process may use: "
                       f"using {cores}")
    assert trainer.config.run.torch_threads == 100000
    said.clear()
    Trainer(tiny("run.torch_threads=1"), str(tmp_path / "one"), log=said.append)
    assert torch.get_num_threads() == 1 and not any("torch_threads" in line for line in said)
