"""Expert iteration (training/expert.py): the config section, the labels, the distillation, and that a run with
phases resumes exactly however it was cut (before a phase, during its labels, after it)."""

from __future__ import annotations

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, tiny  # noqa: E402

from euchre_env.agents.neural.checkpoint import load_checkpoint  # noqa: E402
from euchre_env.training import checkpoints, expert  # noqa: E402
from euchre_env.training.config import ExpertConfig  # noqa: E402
from euchre_env.training.selfplay import SELF, SelfPlay  # noqa: E402
from euchre_env.training.train import Trainer, TrainingInterrupted  # noqa: E402

torch.set_num_threads(1)

# A phase after every update (0, 1 and 2 of the tiny run's 3), a dozen labels of a 2-world search each; latest.pt
# only at the end, at stop_at_update or on Ctrl-C, so that a split run resumes from the cut itself.
EXPERT = ["expert.every=1", "expert.decisions=12", "expert.worlds=2", "expert.epochs=2", "expert.minibatch_size=4",
          "expert.lr=1e-3", "run.checkpoint_every=10", "eval.every=0"]


def config(*overrides: str):
    return tiny(*EXPERT, *overrides)


def state(path) -> tuple[dict, dict]:
    """A checkpoint's actor and critic weights (keys prefixed) and its counters."""
    data = load_checkpoint(str(path))
    return {f"{part}.{k}": v for part in ("actor", "critic") for k, v in data[part].items()}, data["counters"]


def interrupt_collect(monkeypatch, update: int, phase: bool) -> None:
    """A Ctrl-C in the collection after ``update`` updates: the expert phase's labels (``phase``) or PPO's rollout."""
    real = SelfPlay.collect

    def collect(self, budget, seed, done, *args, **kwargs):
        teacher = kwargs.get("teacher")
        if done == update and (isinstance(teacher, expert.SearchLabeller) if phase else teacher is None):
            raise KeyboardInterrupt
        return real(self, budget, seed, done, *args, **kwargs)

    monkeypatch.setattr(SelfPlay, "collect", collect)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    root = tmp_path_factory.mktemp("expert")
    lines: list[str] = []
    result = Trainer(config(), str(root / "straight"), log=lines.append).train()
    return root, result, lines


def _assert_same_run(root, name: str) -> None:
    (a, ca), (b, cb) = state(root / "straight" / "checkpoints" / "latest.pt"), state(root / name / "checkpoints" /
                                                                                      "latest.pt")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    for key in ("update", "decisions", "hands", "expert_update", "expert_labels"):
        assert ca[key] == cb[key], key


def test_a_straight_run_makes_a_phase_after_every_update(straight):
    root, result, lines = straight
    assert result.updates == 3
    phases = [line for line in lines if line.startswith("expert phase after update")]
    assert [p.split(" (")[0] for p in phases] == [f"expert phase after update {u}" for u in (0, 1, 2)]
    assert all("12 decisions labelled of" in p for p in phases), phases
    counters = load_checkpoint(str(root / "straight" / "checkpoints" / "latest.pt"))["counters"]
    assert (counters["expert_update"], counters["expert_labels"]) == (2, 36)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(root / "straight")).Reload()
    for tag in ("expert/labelled", "expert/disagreement", "expert/agreement_after", "expert/distill_loss",
                "expert/kl_before", "expert/kl_after", "expert/anchor_kl", "expert/seconds", "expert/label_seconds"):
        assert [e.step for e in events.Scalars(tag)] == [0, 1, 2], tag
    assert [e.value for e in events.Scalars("expert/labelled")] == [12, 12, 12]


def test_stopped_before_a_phase_then_resumed_is_the_same_run(straight):
    root = straight[0]
    Trainer(config(), str(root / "stopped"), log=QUIET).train(stop_at_update=2)  # the phase after 2 not yet run
    assert state(root / "stopped" / "checkpoints" / "latest.pt")[1]["expert_update"] == 1
    Trainer(config(), str(root / "stopped"), resume=True, log=QUIET).train()
    _assert_same_run(root, "stopped")


@pytest.mark.parametrize("phase, saved_phase", [(True, 1), (False, 2)], ids=["during-labels", "after-phase"])
def test_ctrl_c_during_or_after_a_phase_then_resumed_is_the_same_run(straight, monkeypatch, phase, saved_phase):
    root, name = straight[0], f"cut-{phase}"
    with monkeypatch.context() as m:
        interrupt_collect(m, 2, phase)
        with pytest.raises(TrainingInterrupted) as stop:
            Trainer(config(), str(root / name), log=QUIET).train()
    assert stop.value.saved_update == 2
    # cut in its labels, the phase after update 2 is redone on resume; cut after it, it is not
    assert state(root / name / "checkpoints" / "latest.pt")[1]["expert_update"] == saved_phase
    lines: list[str] = []
    Trainer(config(), str(root / name), resume=True, log=lines.append).train()
    assert sum(line.startswith("expert phase after update 2") for line in lines) == (saved_phase == 1)
    _assert_same_run(root, name)


def test_distillation_moves_the_policy_toward_the_labels(tmp_path):
    trainer = Trainer(config(), str(tmp_path / "run"), log=QUIET)
    labels = expert.label_decisions(trainer.selfplay_for({SELF: 1.0}, {}), trainer.model.actor, trainer.rules,
                                    trainer.config, expert.search_class(trainer.config.expert.search), 0)
    trainer.close()
    assert len(labels) == 12 and len(labels.mask) > 12
    # every label is a legal action of its decision, its policy one-hot there
    assert labels.mask[labels.rows, labels.search_action].all()
    assert np.array_equal(labels.policy.argmax(1), labels.search_action) and np.allclose(labels.policy.sum(1), 1)
    # Labels the network mostly disagrees with (a legal action other than its own where there is one), so that
    # there is agreement to gain: the distillation must gain it and bring the policy toward the targets.
    rng = np.random.default_rng(0)
    for i, (row, mine) in enumerate(zip(labels.rows, labels.network_action)):
        other = [a for a in np.flatnonzero(labels.mask[row]) if a != mine]
        labels.search_action[i] = rng.choice(other) if other else mine
    labels.policy[:] = 0
    labels.policy[np.arange(len(labels)), labels.search_action] = 1
    cfg = ExpertConfig(every=1, coef=3.0, epochs=30, minibatch_size=4, lr=3e-3)
    stats = expert.distill(trainer.model.actor, labels, cfg, 0.5, torch.Generator().manual_seed(0))
    assert stats["disagreement"] > 0.5
    assert stats["agreement_after"] > 1 - stats["disagreement"] + 0.25, stats
    assert stats["kl_after"] < stats["kl_before"] / 2, stats
    # the anchor: the unlabelled decisions moved a small part of the way the labelled ones had to go
    assert stats["anchor_kl"] < stats["kl_before"] / 10, stats


@pytest.mark.parametrize("search", ["search", "calls"])
def test_only_the_decisions_searched_are_labelled(tmp_path, search):
    """The call search labels calling decisions only (its card plays are the network's, unsearched); the guided
    search labels both. (Forced moves never reach the labeller: the collector records decisions with a choice.)"""
    from euchre_env.game.actions import action_table

    trainer = Trainer(config(f"expert.search={search}", "expert.fraction=0.05"), str(tmp_path / "run"), log=QUIET)
    labels = expert.label_decisions(trainer.selfplay_for({SELF: 1.0}, {}), trainer.model.actor, trainer.rules,
                                    trainer.config, expert.search_class(trainer.config.expert.search), 0)
    trainer.close()
    assert len(labels) == 12 and (labels.mask.sum(1) > 1).all()
    plays = labels.search_action >= action_table(trainer.rules).play_base
    assert not plays.any() if search == "calls" else plays.any()


class _StubSearch:
    """A search that prefers the last legal action, with values rising along the legal actions."""

    def __init__(self, network, worlds: int, seed: int) -> None:
        self.network = network

    def search(self, info):
        legal = sorted(info.legal_actions)
        return legal[-1], {a: float(i) for i, a in enumerate(legal)}


def test_a_soft_search_policy_is_the_softmax_of_its_values(tmp_path):
    trainer = Trainer(config("expert.temperature=1.0"), str(tmp_path / "run"), log=QUIET)
    labels = expert.label_decisions(trainer.selfplay_for({SELF: 1.0}, {}), trainer.model.actor, trainer.rules,
                                    trainer.config, _StubSearch, 0)
    trainer.close()
    policy, mask = labels.policy, labels.mask[labels.rows]
    assert np.allclose(policy.sum(1), 1, atol=1e-6) and (policy[~mask] == 0).all() and (policy[mask] > 0).all()
    for p, m in zip(policy, mask):  # values 0, 1, ..., k-1 at temperature 1: probabilities e^i / sum
        v = np.sort(p[m])
        assert np.allclose(v, np.exp(np.arange(m.sum())) / np.exp(np.arange(m.sum())).sum(), atol=1e-6)


@pytest.mark.parametrize("worlds, expected", [(0, "its own default"), (3, 3)])
def test_expert_worlds_zero_leaves_the_search_its_own_default(tmp_path, worlds, expected):
    """The call search was measured on 256 worlds, the anchored one on 32: ``expert.worlds: 0`` passes none."""
    made = []

    class Recording(_StubSearch):
        def __init__(self, network, seed: int, worlds="its own default") -> None:
            made.append(worlds)
            super().__init__(network, worlds, seed)

    trainer = Trainer(config(f"expert.worlds={worlds}", "expert.decisions=2"), str(tmp_path / "run"), log=QUIET)
    expert.label_decisions(trainer.selfplay_for({SELF: 1.0}, {}), trainer.model.actor, trainer.rules, trainer.config,
                           Recording, 0)
    trainer.close()
    assert made == [expected]


def test_a_run_without_phases_keeps_its_checkpoint_as_it_was(tmp_path):
    trainer = Trainer(tiny(), str(tmp_path / "run"), log=QUIET)
    trainer.close()
    assert trainer.config.expert.every == 0
    assert not any(isinstance(phase, expert.ExpertIteration) for phase in trainer.phases)
    assert set(checkpoints.payload(trainer)["counters"]) == {"update", "decisions", "hands", "seconds",
                                                             "best_margin", "cloned"}


@pytest.mark.parametrize("item, message", [
    ("expert.evry=1", "unknown config key 'expert.evry'; known here: every, decisions, fraction, search, worlds, "
                      "temperature, coef, epochs, minibatch_size, lr"),
    ("expert.search=mcts", "config expert.search must be one of 'search', 'anchored', 'calls', got 'mcts'"),
    ("expert.coef=0", "config expert.coef must be a number above 0 and at most 100, got 0.0"),
    ("expert.worlds=1025",
     "config expert.worlds must be an integer from 0 (the search's own default) to 1024, got 1025"),
    ("expert.every=many", "config expert.every must be of type int, got 'many'"),
])
def test_a_bad_expert_value_is_one_line(item, message):
    with pytest.raises(ValueError) as info:
        tiny(item)
    assert str(info.value) == message


def test_phases_refuse_bid_euchre_and_a_missing_search_in_one_line(monkeypatch):
    with pytest.raises(ValueError, match=re.escape("config expert.every: the searches do not cover Bid Euchre")):
        tiny("rules.preset=bid", "expert.every=5")
    monkeypatch.setitem(expert.EXPERT_SEARCHES, "anchored", ("euchre_env.agents.search.nosuch", "NoSuchAgent"))
    with pytest.raises(ValueError) as info:
        expert.search_class("anchored")
    assert str(info.value).startswith("config expert.search 'anchored' needs euchre_env.agents.search.nosuch."
                                      "NoSuchAgent, which this installation lacks") and "\n" not in str(info.value)
