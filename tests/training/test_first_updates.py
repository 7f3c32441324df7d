"""The trainer's first updates, recorded: a refactor of training/ must give the same runs.

The figures below were recorded on the trainer as it was before it was split into parts (issue 56), from seeded
runs: the tiny config's behaviour cloning and first PPO updates (its league, snapshots and periodic evaluation), a
run with an expert phase after every update, and the first update of the published knock config (shortened where
it would take minutes: its cloning, its rollout). Every random stream of a run is seeded from (seed, update), so a
changed draw order, loss or schedule moves these figures far past the tolerance, which only absorbs the last bits
that another CPU's float kernels may round differently. The published configs must also load to the same values
(a hash of each config's resolved dict).
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, tiny  # noqa: E402

from euchre_env.training.config import load_config  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "configs")
# TensorBoard tags that are timings, not results
TIMED = ("time/", "per_second", "seconds")

CONFIG_HASHES = {
    "bid.yaml": "62bffeaadd485373",
    "classic.yaml": "503c101693c5b575",
    "knock.yaml": "ae0b064ae4551299",
    "knock_belief.yaml": "7d2744b7167dbf04",
    "knock_expert.yaml": "4c4de281d27ea5f1",
    "knock_scratch.yaml": "89530ff47bab1380",
    "multiplayer.yaml": "be607acc4fcf19b8",
    "tiny.yaml": "7c72fb3da602339d",
}

RUNS = {
    # the tiny config: behaviour cloning of rules, then 2 PPO updates (snapshots, an evaluation at update 2)
    "cloning and ppo": ((), 2),
    # an expert phase before each update (labels of a 2-world search, then the distillation), no cloning
    "expert": (("pretrain.teacher=''", "expert.every=1", "expert.decisions=12", "expert.worlds=2", "expert.epochs=2",
                "expert.minibatch_size=4", "expert.lr=1e-3", "eval.every=0"), 2),
}
KNOCK = ("pretrain.decisions=500", "pretrain.epochs=1", "ppo.rollout_decisions=2048", "ppo.num_games=32",
         "ppo.matmul_precision=float32", "run.torch_threads=1", "run.max_minutes=0", "eval.every=0",
         "eval.select_last=0")

RECORDED: dict[str, dict[str, float]] = {
    "cloning and ppo": {
        "charts/decisions@1": 1075.0, "charts/decisions@2": 2137.0, "charts/hands@1": 110.0, "charts/hands@2": 224.0,
        "charts/learning_rate@1": 0.0003000000142492354, "charts/learning_rate@2": 0.00019249999604653567,
        "charts/train_margin_vs_past@2": -0.2142857164144516, "charts/train_margin_vs_random@1": 0.1428571492433548,
        "charts/train_margin_vs_random@2": 0.5333333611488342, "charts/train_margin_vs_rules@1": -1.3157894611358643,
        "charts/train_margin_vs_rules@2": -1.076923131942749, "eval/margin_high_vs_random@2": 1.269484043121338,
        "eval/margin_high_vs_rules@2": -0.7199358940124512, "eval/margin_low_vs_random@2": 0.3805159628391266,
        "eval/margin_low_vs_rules@2": -1.3800641298294067, "eval/margin_vs_random@2": 0.824999988079071,
        "eval/margin_vs_rules@2": -1.0499999523162842, "losses/approx_kl@1": 6.914304321981035e-06,
        "losses/approx_kl@2": 1.963655904546613e-06, "losses/clipfrac@1": 0.0, "losses/clipfrac@2": 0.0,
        "losses/entropy@1": 1.1274951696395874, "losses/entropy@2": 1.1402639150619507,
        "losses/explained_variance@1": -0.22681646049022675, "losses/explained_variance@2": 0.02857796661555767,
        "losses/policy_loss@1": -0.000808127224445343, "losses/policy_loss@2": -0.00015034520765766501,
        "losses/value_loss@1": 0.09337382018566132, "losses/value_loss@2": 0.07646650820970535,
        "pretrain/accuracy@0": 0.39845260977745056, "pretrain/decisions@0": 517.0, "pretrain/epochs@0": 1.0,
        "pretrain/policy_loss@0": 1.1393646001815796, "pretrain/value_loss@0": 0.1100374236702919, "update": 2,
        "decisions": 2137, "hands": 224, "actor.sum": 1.107490541969696, "actor.abs_sum": 1048.9316584245166,
        "critic.sum": -6.426102726903991, "critic.abs_sum": 1135.5284166292458,
    },
    "expert": {
        "charts/decisions@1": 1070.0, "charts/decisions@2": 2140.0, "charts/hands@1": 112.0, "charts/hands@2": 229.0,
        "charts/learning_rate@1": 0.0003000000142492354, "charts/learning_rate@2": 0.00019299999985378236,
        "charts/train_margin_vs_past@2": -0.03333333507180214, "charts/train_margin_vs_random@1": 0.3571428656578064,
        "charts/train_margin_vs_random@2": 0.7857142686843872, "charts/train_margin_vs_rules@1": -1.3529411554336548,
        "charts/train_margin_vs_rules@2": -0.9285714030265808, "expert/agreement_after@0": 1.0,
        "expert/agreement_after@1": 0.8333333134651184, "expert/anchor_kl@0": 0.00015319153317250311,
        "expert/anchor_kl@1": 0.0005913516506552696, "expert/decisions_played@0": 205.0,
        "expert/decisions_played@1": 189.0, "expert/disagreement@0": 0.5, "expert/disagreement@1": 0.1666666716337204,
        "expert/distill_loss@0": 0.31148117780685425, "expert/distill_loss@1": 0.29246005415916443,
        "expert/epochs@0": 2.0, "expert/epochs@1": 2.0, "expert/hands@0": 16.0, "expert/hands@1": 16.0,
        "expert/kl_after@0": 0.2976323068141937, "expert/kl_after@1": 0.27855420112609863,
        "expert/kl_before@0": 0.33126160502433777, "expert/kl_before@1": 0.3116939663887024,
        "expert/labelled@0": 12.0, "expert/labelled@1": 12.0, "losses/approx_kl@1": 9.34933723328868e-06,
        "losses/approx_kl@2": 4.714951501227915e-06, "losses/clipfrac@1": 0.0, "losses/clipfrac@2": 0.0,
        "losses/entropy@1": 1.1431082487106323, "losses/entropy@2": 1.1285643577575684,
        "losses/explained_variance@1": -0.29611295461654663, "losses/explained_variance@2": -0.24746759235858917,
        "losses/policy_loss@1": -0.0008451371686533093, "losses/policy_loss@2": -0.0005233522388152778,
        "losses/value_loss@1": 0.10387945920228958, "losses/value_loss@2": 0.09713684022426605, "update": 2,
        "decisions": 2140, "hands": 229, "actor.sum": 2.5575452166800687, "actor.abs_sum": 1053.6984761755107,
        "critic.sum": -6.757211666817966, "critic.abs_sum": 1135.5722956071095,
    },
    "knock": {
        "charts/critic_learning_rate@1": 0.0010000000474974513, "charts/decisions@1": 2198.0, "charts/hands@1": 216.0,
        "charts/learning_rate@1": 0.00019999999494757503, "charts/train_margin_vs_random@1": -0.2857142984867096,
        "charts/train_margin_vs_rules@1": -1.0307692289352417, "losses/approx_kl@1": 6.034822581568733e-05,
        "losses/clipfrac@1": 0.0, "losses/entropy@1": 1.1245981454849243,
        "losses/explained_variance@1": -0.21185486018657684, "losses/policy_loss@1": -0.002444780897349119,
        "losses/value_loss@1": 0.325458288192749, "pretrain/accuracy@0": 0.4252873659133911,
        "pretrain/decisions@0": 522.0, "pretrain/epochs@0": 1.0, "pretrain/policy_loss@0": 1.1169781684875488,
        "pretrain/value_loss@0": 0.0964706540107727, "update": 1, "decisions": 2198, "hands": 216,
        "actor.sum": -7.292086953778892, "actor.abs_sum": 12998.245528722155, "critic.sum": -16.449546139600102,
        "critic.abs_sum": 13688.133867655428,
    },
}


def config_hash(name: str) -> str:
    resolved = load_config(os.path.join(CONFIGS, name)).to_dict()
    return hashlib.sha256(json.dumps(resolved, sort_keys=True).encode()).hexdigest()[:16]


def figures(trainer: Trainer) -> dict[str, float]:
    """A run's results: every scalar it logged that is not a timing (tag@step), its counters and the sums of its
    weights."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    found: dict[str, float] = {}
    events = EventAccumulator(trainer.run_dir).Reload()
    for tag in sorted(events.Tags()["scalars"]):
        if not any(t in tag for t in TIMED):
            for event in events.Scalars(tag):
                found[f"{tag}@{event.step}"] = event.value
    found.update(update=trainer.update, decisions=trainer.decisions, hands=trainer.hands)
    for part in ("actor", "critic"):
        weights = torch.cat([p.detach().flatten() for p in getattr(trainer.model, part).parameters()]).double()
        found[f"{part}.sum"] = float(weights.sum())
        found[f"{part}.abs_sum"] = float(weights.abs().sum())
    return found


def assert_recorded(name: str, found: dict[str, float]) -> None:
    expected = RECORDED[name]
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert found[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key


@pytest.mark.parametrize("name", sorted(CONFIG_HASHES))
def test_the_published_configs_load_to_the_same_values(name):
    assert config_hash(name) == CONFIG_HASHES[name]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_tiny_runs_first_updates_are_as_recorded(tmp_path, name):
    overrides, updates = RUNS[name]
    trainer = Trainer(tiny(*overrides), str(tmp_path / "run"), log=QUIET)
    trainer.train(stop_at_update=updates)
    assert_recorded(name, figures(trainer))


def test_the_knock_configs_first_update_is_as_recorded(tmp_path):
    trainer = Trainer(load_config(os.path.join(CONFIGS, "knock.yaml"), list(KNOCK)), str(tmp_path / "run"),
                      log=QUIET)
    try:
        trainer.train(stop_at_update=1)
    finally:
        torch.set_num_threads(1)
    assert_recorded("knock", figures(trainer))
