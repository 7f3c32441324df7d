"""``model.init`` (a run's actor from a checkpoint) and ``ppo.critic_warmup`` (the critic learns alone first)."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, tiny  # noqa: E402

from euchre_env.agents.neural.checkpoint import (  # noqa: E402
    CheckpointError,
    build_model,
    load_checkpoint,
    model_payload,
    save_checkpoint,
)
from euchre_env.agents.neural.network import PolicyNet  # noqa: E402
from euchre_env.game.actions import action_table  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.training.imitation import BehaviourCloning  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402
from euchre_env.views.structured import make_observer  # noqa: E402

torch.set_num_threads(1)


def _published(path, preset: str = "knock", hidden: tuple[int, ...] = (32,), observation: str = "structured",
               seed: int = 3) -> str:
    """An actor-only checkpoint as the project publishes them, with weights unlike a fresh run's."""
    rules = Rules.preset(preset)
    torch.manual_seed(seed)
    actor = PolicyNet(make_observer(rules, observation).size, len(action_table(rules)), list(hidden))
    with torch.no_grad():
        for p in actor.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    save_checkpoint(model_payload(actor, rules, observation), str(path))
    return str(path)


def _weights(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_run_starts_from_the_checkpoints_actor_without_cloning(tmp_path, monkeypatch):
    path = _published(tmp_path / "published.pt")
    published = _weights(build_model(load_checkpoint(path)))
    fresh = Trainer(tiny(), str(tmp_path / "fresh"), log=QUIET)
    assert not _same(_weights(fresh.model.actor), published)
    trainer = Trainer(tiny(f"model.init={path}"), str(tmp_path / "init"), log=QUIET)
    assert _same(_weights(trainer.model.actor), published)
    assert _same(_weights(trainer.model.critic), _weights(fresh.model.critic))  # the critic starts fresh

    def no_cloning(*args, **kwargs):
        raise AssertionError("model.init replaces the behaviour cloning")

    monkeypatch.setattr(BehaviourCloning, "run", no_cloning)
    result = trainer.train(stop_at_update=1)
    assert result.updates == 1


@pytest.mark.parametrize("critic_lr", ["1e-3", "0"])  # 0: the critic's own group at ppo.lr
def test_the_critic_warms_up_alone_then_the_actor_learns(tmp_path, critic_lr):
    path = _published(tmp_path / "published.pt")
    config = tiny(f"model.init={path}", f"ppo.critic_lr={critic_lr}", "ppo.critic_warmup=2", "eval.every=0",
                  "eval.select_last=0")
    trainer = Trainer(config, str(tmp_path / "warm"), log=QUIET)
    actor, critic = _weights(trainer.model.actor), _weights(trainer.model.critic)
    trainer.train(stop_at_update=2)
    assert _same(_weights(trainer.model.actor), actor)  # held through the warm-up
    assert not _same(_weights(trainer.model.critic), critic)
    resumed = Trainer(config, str(tmp_path / "warm"), resume=True, log=QUIET)
    resumed.train(stop_at_update=3)
    assert not _same(_weights(resumed.model.actor), actor)  # the first update after it moves the actor


@pytest.mark.parametrize("overrides, message", [
    (["ppo.critic_warmup=-1"], "config ppo.critic_warmup must be an integer from 0"),
])
def test_bad_settings_are_one_line(overrides, message):
    with pytest.raises(ValueError, match=message) as error:
        tiny(*overrides)
    assert "\n" not in str(error.value)


def test_a_checkpoint_that_does_not_fit_the_run_is_one_line(tmp_path):
    wide = _published(tmp_path / "wide.pt", hidden=(16, 16))
    with pytest.raises(ValueError, match=r"hidden layers \[16, 16\]; this run's is structured with \[32\]"):
        Trainer(tiny(f"model.init={wide}"), str(tmp_path / "a"), log=QUIET)
    absolute = _published(tmp_path / "absolute.pt", observation="absolute")
    with pytest.raises(ValueError, match="absolute observation"):
        Trainer(tiny(f"model.init={absolute}"), str(tmp_path / "b"), log=QUIET)
    classic = _published(tmp_path / "classic.pt", preset="classic")
    with pytest.raises(CheckpointError) as error:
        Trainer(tiny(f"model.init={classic}"), str(tmp_path / "c"), log=QUIET)
    assert "\n" not in str(error.value)
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match=r"config model.init: .*(damaged|not a euchre-env checkpoint)"):
        Trainer(tiny(f"model.init={damaged}"), str(tmp_path / "d"), log=QUIET)
    with pytest.raises(CheckpointError, match=r"config model.init: no checkpoint file at '.*missing.pt'"):
        Trainer(tiny(f"model.init={tmp_path / 'missing.pt'}"), str(tmp_path / "e"), log=QUIET)
    for run in "abcde":  # refused before the run folder is written
        assert not (tmp_path / run).exists()


def test_a_run_resumes_after_its_init_checkpoint_moved(tmp_path):
    path = _published(tmp_path / "published.pt")
    config = tiny(f"model.init={path}", "eval.every=0", "eval.select_last=0")
    Trainer(config, str(tmp_path / "run"), log=QUIET).train(stop_at_update=1)
    os.remove(path)  # the run holds its own weights now
    resumed = Trainer(tiny(f"model.init={path}", "eval.every=0", "eval.select_last=0"), str(tmp_path / "run"),
                      resume=True, log=QUIET)
    assert resumed.train(stop_at_update=2).updates == 2
