"""The self-play trainer: config, masked policy, rollouts, advantages, checkpoints, resume, CLI."""

from __future__ import annotations

import contextlib
import io
import os
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, TINY, tiny  # noqa: E402

from euchre_env.agents.neural.agent import NeuralAgent  # noqa: E402
from euchre_env.agents.neural.checkpoint import CheckpointError, load_checkpoint, model_payload, save_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import ActorCritic, sample_actions  # noqa: E402
from euchre_env.agents.registry import make_agent  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.evaluation import evaluate  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.training.config import load_config  # noqa: E402
from euchre_env.training.ppo import advantages  # noqa: E402
from euchre_env.training.selfplay import Rollout, SelfPlay  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402

torch.set_num_threads(1)  # tiny networks: threads only add overhead, and CI machines are small




@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny run of 3 updates (with its progress bar); and the same run stopped after update 2, then resumed."""
    root = tmp_path_factory.mktemp("runs")
    bar = io.StringIO()
    with contextlib.redirect_stderr(bar):
        full = Trainer(tiny(), str(root / "full"), log=QUIET).train(progress=True)
    full.bar = bar.getvalue()
    Trainer(tiny(), str(root / "split"), log=QUIET).train(stop_at_update=2)
    resumed = Trainer(tiny(), str(root / "split"), resume=True, log=QUIET)
    start = (resumed.update, resumed.decisions, resumed.hands, list(resumed.league.names))
    split = resumed.train()
    return root, full, split, start


# ------------------------------------------------------------------ config
def test_config_overrides_and_errors():
    c = tiny("ppo.lr=1e-3", "model.hidden=[8, 8]", "league.mix={self: 1}")
    assert c.ppo.lr == 1e-3 and c.model.hidden == [8, 8] and c.league.mix == {"self": 1}
    with pytest.raises(ValueError, match=re.escape("unknown config key 'ppo.lrr'")):
        tiny("ppo.lrr=1")
    with pytest.raises(ValueError, match=re.escape("unknown config key 'nosuch'")):
        tiny("nosuch.x=1")
    with pytest.raises(ValueError, match=re.escape("unknown config key 'run.engine'")):  # 0.1's, dropped in 0.2
        tiny("run.engine=vector")
    with pytest.raises(ValueError, match=re.escape("config ppo.epochs must be of type int, got 'many'")):
        tiny("ppo.epochs=many")
    with pytest.raises(ValueError, match="unknown agent spec 'wizard'"):
        tiny("league.mix={wizard: 1}")
    with pytest.raises(ValueError, match="unknown rules option 'trumps'"):
        tiny("rules.options={trumps: 3}")
    with pytest.raises(ValueError, match=re.escape("section.key=value")):
        tiny("ppo.lr")
    with pytest.raises(ValueError, match="cannot read config"):
        load_config("/nonexistent/config.yaml")


def test_config_checks_agent_specs_without_building_agents(monkeypatch):
    from euchre_env.agents import registry

    def no_building(*args, **kwargs):
        raise AssertionError("validate built an agent")

    monkeypatch.setattr(registry, "make_agent", no_building)
    c = tiny("league.mix={self: 1, pimc:3: 1}", "eval.opponents=[rules, pimc:2]")
    assert c.league.mix == {"self": 1, "pimc:3": 1}
    with pytest.raises(ValueError, match=re.escape("no checkpoint file at 'missing.pt'")):
        tiny("final_eval.opponents={missing.pt: 10}")
    with pytest.raises(ValueError, match="worlds must be at least 1"):
        tiny("pretrain.teacher=pimc:0")


def test_every_shipped_config_loads():
    folder = os.path.dirname(TINY)
    names = sorted(f for f in os.listdir(folder) if f.endswith(".yaml"))
    assert {"knock.yaml", "classic.yaml", "multiplayer.yaml", "bid.yaml", "tiny.yaml"} <= set(names)
    for name in names:
        config = load_config(os.path.join(folder, name))
        assert config.make_rules().preset_name == config.rules.preset


# ------------------------------------------------------------------ policy and rollouts
def test_masked_sampling_never_picks_an_illegal_action():
    gen = torch.Generator().manual_seed(0)
    model = ActorCritic(10, 30, [16])
    obs = torch.randn(4000, 10)
    mask = torch.rand(4000, 30, generator=gen) < 0.1
    mask[torch.arange(4000), torch.randint(30, (4000,), generator=gen)] = True  # at least one legal
    actions, log_probs = sample_actions(model.masked_logits(obs, mask), gen)
    assert mask[torch.arange(4000), actions].all()
    assert torch.isfinite(log_probs).all() and (log_probs <= 0).all()
    greedy, _ = sample_actions(model.masked_logits(obs, mask), greedy=True)
    assert mask[torch.arange(4000), greedy].all()


@pytest.mark.parametrize("preset", ["knock", "multiplayer", "bid"])
def test_rollout_is_legal_and_rewards_end_each_seat_hand(preset):
    rules = Rules.preset(preset)
    from euchre_env.game.actions import action_table
    from euchre_env.views.observation import Observer

    model = ActorCritic(Observer(rules).size, len(action_table(rules)), [16])
    scripted = {"rules": make_agent("rules"), "random": make_agent("random")}
    sp = SelfPlay(rules, model, 8, {"self": 1, "rules": 1, "random": 1}, scripted, reward_scale=1.0)
    r = sp.collect(400, seed=3, update=0)
    n = len(r)
    assert n >= 400 and r.hands > 0 and r.forced > 0
    assert r.mask[np.arange(n), r.action].all()  # every recorded action was legal
    assert (r.mask.sum(1) >= 2).all()  # forced moves are not recorded
    later = r.next_index[r.next_index >= 0]
    assert (later > np.flatnonzero(r.next_index >= 0)).all() and len(set(later)) == len(later)
    assert (r.reward[r.next_index >= 0] == 0).all()  # only a seat's last decision of a hand is rewarded
    if preset == "knock":  # a knock hand always scores for one side: no zero margins
        assert (r.reward[r.next_index < 0] != 0).all()
    with torch.no_grad():  # the values are the critic's of the recorded decisions (one pass after the collection)
        values = model.value(torch.from_numpy(r.obs), torch.from_numpy(r.extra)).numpy()
    np.testing.assert_allclose(r.value, values, rtol=0, atol=1e-6)
    assert r.value.std() > 0
    again = sp.collect(400, seed=3, update=0)
    assert np.array_equal(again.action, r.action) and np.array_equal(again.obs, r.obs)


def test_the_vector_collectors_random_opponent_draws_uniformly_among_the_legal_actions():
    from euchre_env.agents.random_agent import uniform_legal

    mask = np.zeros((30_000, 9), bool)
    mask[:, [1, 4, 7]] = True
    mask[::2, 4] = False  # half the rows have two legal actions
    picks = uniform_legal(mask, np.random.default_rng(0))
    assert mask[np.arange(len(mask)), picks].all()
    assert np.allclose(np.bincount(picks[1::2], minlength=9)[[1, 4, 7]] / 15_000, 1 / 3, atol=0.015)
    assert np.allclose(np.bincount(picks[::2], minlength=9)[[1, 7]] / 15_000, 1 / 2, atol=0.015)
    rules = Rules.preset("knock")
    from euchre_env.game.actions import action_table
    from euchre_env.views.observation import Observer

    model = ActorCritic(Observer(rules).size, len(action_table(rules)), [16])
    sp = SelfPlay(rules, model, 8, {"random": 1}, {"random": make_agent("random")}, reward_scale=1.0)
    r = sp.collect(300, seed=2, update=0)
    assert sp._batched == {"random"}  # drawn from the batch's masks, no reference game kept in step
    assert len(r.margins["random"]) == r.hands and r.mask[np.arange(len(r)), r.action].all()


def test_an_illegal_league_agent_is_named():
    from euchre_env.game.errors import IllegalActionError

    class Cheater:
        name = "cheater"
        needs_observation = False

        def reset(self, seed=None):
            pass

        def act(self, observation, info):
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    rules = Rules.preset("knock")
    from euchre_env.game.actions import action_table
    from euchre_env.views.observation import Observer

    model = ActorCritic(Observer(rules).size, len(action_table(rules)), [8])
    sp = SelfPlay(rules, model, 2, {"cheater": 1}, {"cheater": Cheater()}, reward_scale=1.0)
    with pytest.raises(IllegalActionError, match=r"agent 'cheater' at seat \d chose the illegal action"):
        sp.collect(50, seed=0, update=0)


def test_advantages_follow_each_seat_sequence():
    # Two interleaved sequences: 0 -> 2 -> 3 (reward 1 at the end) and 1 (reward -2).
    r = Rollout(obs=np.zeros((4, 1), np.float32), mask=np.ones((4, 2), bool), action=np.zeros(4, np.int64),
                log_prob=np.zeros(4, np.float32), value=np.array([0.5, 0.1, 0.2, 0.4], np.float32),
                reward=np.array([0, -2, 0, 1], np.float32), next_index=np.array([2, -1, 3, -1]),
                extra=np.zeros((4, 0), np.float32))
    adv, ret = advantages(r, gamma=1.0, lam=0.5)
    d3 = 1 - 0.4
    d2 = 0.4 - 0.2
    d0 = 0.2 - 0.5
    expected = [d0 + 0.5 * (d2 + 0.5 * d3), -2 - 0.1, d2 + 0.5 * d3, d3]
    assert np.allclose(adv, expected)
    assert np.allclose(ret, adv + r.value)
    _, ret1 = advantages(r, gamma=1.0, lam=1.0)
    assert np.allclose(ret1, [1, -2, 1, 1])  # lambda = 1: the Monte Carlo return of the hand


@pytest.mark.parametrize("gamma, lam", [(1.0, 0.95), (0.99, 0.9), (0.7, 0.3)])
def test_advantages_are_the_plain_loops_to_the_bit(gamma, lam):
    """The compiled GAE against the loop it replaced, on random interleaved sequences."""
    rng = np.random.default_rng(3)
    n = 2000
    value, reward = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    nxt = np.arange(n) + rng.integers(1, 40, n)
    nxt[(nxt >= n) | (rng.random(n) < 0.2)] = -1
    expected = np.zeros(n, np.float32)
    for i in range(n - 1, -1, -1):
        j = nxt[i]
        if j >= 0:
            expected[i] = reward[i] + gamma * value[j] - value[i] + gamma * lam * expected[j]
        else:
            expected[i] = reward[i] - value[i]
    r = Rollout(obs=np.zeros((n, 1), np.float32), mask=np.ones((n, 2), bool), action=np.zeros(n, np.int64),
                log_prob=np.zeros(n, np.float32), value=value, reward=reward, next_index=nxt,
                extra=np.zeros((n, 0), np.float32))
    adv, ret = advantages(r, gamma, lam)
    assert adv.dtype == np.float32 and np.array_equal(adv, expected)
    assert np.array_equal(ret, expected + value)


def test_behaviour_cloning_learns_the_teacher():
    from euchre_env.game.actions import action_table
    from euchre_env.training.config import PretrainConfig
    from euchre_env.training.imitation import clone
    from euchre_env.views.observation import Observer

    rules = Rules.preset("knock")
    torch.manual_seed(0)
    model = ActorCritic(Observer(rules).size, len(action_table(rules)), [64])
    sp = SelfPlay(rules, model, 16, {"self": 1}, {}, reward_scale=0.25)
    demos = sp.collect(3000, seed=5, update=0, teacher=make_agent("rules"))
    assert (demos.log_prob == 0).all() and demos.mask[np.arange(len(demos)), demos.action].all()

    def accuracy() -> float:
        with torch.no_grad():
            logits = model.masked_logits(torch.from_numpy(demos.obs), torch.from_numpy(demos.mask))
        return (logits.argmax(-1).numpy() == demos.action).mean()

    before = accuracy()
    stats = clone(model, demos, PretrainConfig(teacher="rules", epochs=15, minibatch_size=256),
                  torch.Generator().manual_seed(0))
    assert before < 0.6 < accuracy() and stats["accuracy"] > 0.6


def test_behaviour_cloning_shows_its_progress(tmp_path, monkeypatch, capsys):
    """Demonstrations and cloning epochs each get a bar (drawn here at once: no delay)."""
    import functools

    from euchre_env.evaluation import progress
    from euchre_env.training import imitation
    from euchre_env.training.interrupt import InterruptGuard

    monkeypatch.setattr(imitation, "progress_bar", functools.partial(progress.progress_bar, delay=0.0))
    trainer = Trainer(tiny(), str(tmp_path / "bc"), log=QUIET)
    trainer.progress = True
    cloning = next(phase for phase in trainer.phases if isinstance(phase, imitation.BehaviourCloning))
    cloning.run(trainer, InterruptGuard(QUIET))
    trainer.writer.close()
    err = capsys.readouterr().err
    lines = [line for part in err.splitlines() for line in part.split("\r") if line.strip()]
    assert any(line.startswith("demonstrations of rules 100%|") and "decisions" in line for line in lines), err
    assert any(line.startswith("behaviour cloning 100%|") and "epoch 1/1, accuracy" in line for line in lines), err


# ------------------------------------------------------------------ training, checkpoints, resume
def test_tiny_run_writes_checkpoints_and_logs(trained):
    root, full, _, _ = trained
    ckpts = root / "full" / "checkpoints"
    assert full.updates == 3 and full.decisions >= 3000
    for name in ("latest.pt", "best.pt"):
        data = load_checkpoint(str(ckpts / name), Rules.preset("knock"))
        assert data["counters"]["update"] in (2, 3) and data["config"]["run"]["seed"] == 7
    # max_snapshots 2: the dropped snapshot's file is deleted once latest.pt no longer names it
    latest = load_checkpoint(str(ckpts / "latest.pt"))
    assert latest["league"] == ["update_000001", "update_000003"]  # league.keep: spread keeps the oldest
    assert sorted(os.listdir(ckpts / "league")) == ["update_000001.pt", "update_000003.pt"]
    assert (root / "full" / "config.yaml").exists()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(root / "full")).Reload()
    tags = set(events.Tags()["scalars"])
    for tag in ("losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl", "losses/clipfrac",
                "losses/explained_variance", "charts/learning_rate", "charts/decisions_per_second",
                "eval/margin_vs_random", "eval/margin_vs_rules", "pretrain/accuracy", "pretrain/value_loss"):
        assert tag in tags, tag
    assert len(events.Scalars("losses/policy_loss")) == 3
    # the progress bar: the decision budget, the last update with its train margins, the best evaluation
    last = full.bar.rstrip("\n").split("\r")[-1]
    assert last.startswith("training 100%|") and "3.00k/3.00k decisions" in last, full.bar
    assert "update 3, train margin" in last and "best " in last and full.bar.endswith("\n")


def test_resume_continues_exactly(trained):
    root, full, split, start = trained
    assert start[0] == 2 and start[3] == ["update_000001", "update_000002"]
    assert split.updates == full.updates == 3 and split.decisions == full.decisions
    a = load_checkpoint(str(root / "full" / "checkpoints" / "latest.pt"))
    b = load_checkpoint(str(root / "split" / "checkpoints" / "latest.pt"))
    for key in ("update", "decisions", "hands", "best_margin"):
        assert a["counters"][key] == b["counters"][key], key
    for part in ("actor", "critic"):  # the actor's weights and the critic's
        assert all(torch.equal(a[part][k], b[part][k]) for k in a[part]), part
    assert a["league"] == b["league"]
    # the resumed run, too, keeps only the snapshot files its latest.pt names
    league = sorted(os.listdir(root / "split" / "checkpoints" / "league"))
    assert league == [name + ".pt" for name in b["league"]]


def test_resume_refuses_a_changed_config(trained):
    root = trained[0]
    with pytest.raises(ValueError, match=r"ppo.lr \(0.0003 -> 0.1\)"):
        Trainer(tiny("ppo.lr=0.1"), str(root / "full"), resume=True, log=QUIET)
    with pytest.raises(ValueError, match="already holds a run"):
        Trainer(tiny(), str(root / "full"), log=QUIET)


def test_neural_agent_plays_legal_games(trained):
    path = str(trained[0] / "full" / "checkpoints" / "latest.pt")
    agent = make_agent(path, seed=0)
    assert isinstance(agent, NeuralAgent) and agent.name == path
    result = evaluate(path, "random", "knock", n=10, seed=0, workers=1)  # raises on any illegal action
    assert result.hands == 20
    sampled = evaluate(lambda seed: NeuralAgent(path, seed=seed, greedy=False), "rules", "knock", n=5, seed=0,
                       workers=1)
    assert sampled.hands == 10
    with pytest.raises(CheckpointError, match="trained for other rules: stick_the_dealer=True there, False here"):
        evaluate(path, "random", "classic", n=1, seed=0, workers=1)


def test_damaged_and_foreign_checkpoints_fail_clearly(trained, tmp_path):
    good = trained[0] / "full" / "checkpoints" / "latest.pt"
    data = good.read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(str(truncated))
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {"w": torch.zeros(2)}}, foreign)
    with pytest.raises(CheckpointError, match="not a euchre-env checkpoint"):
        load_checkpoint(str(foreign))
    code = tmp_path / "code.pt"
    torch.save({"format": "euchre-env-checkpoint", "payload": Rules.preset("knock")}, code)  # a pickled object
    with pytest.raises(CheckpointError, match="holding more than plain data"):
        load_checkpoint(str(code))
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        load_checkpoint(str(tmp_path / "missing.pt"))
    payload = torch.load(good, weights_only=True)
    payload["fingerprint"] = "0" * 16
    tampered = tmp_path / "tampered.pt"
    torch.save(payload, tampered)
    with pytest.raises(CheckpointError, match="another observation layout"):
        load_checkpoint(str(tampered))
    with pytest.raises(CheckpointError, match="trained for other rules"):
        load_checkpoint(str(good), Rules.preset("bid"))


def test_an_interrupted_write_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "latest.pt"
    model = ActorCritic(663, 40, [4])
    save_checkpoint(model_payload(model.actor, Rules.preset("knock")), str(path))
    before = path.read_bytes()

    def dies_halfway(obj, f):
        f.write(b"PK\x03\x04 partial")
        raise KeyboardInterrupt  # the run is killed in the middle of the write

    monkeypatch.setattr(torch, "save", dies_halfway)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint({"format": "x"}, str(path))
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["latest.pt"]


def test_cli_train_end_to_end(tmp_path, capsys):
    argv = ["train", "--config", TINY, "--runs-dir", str(tmp_path), "--run-name", "cli", "--no-progress",
            "--set", "run.total_decisions=1000", "eval.every=0"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Trained 1 updates" in out and "| A | B | deals |" in out and "| random | 10 | 20 |" in out
    assert (tmp_path / "cli" / "final_eval" / "rules" / "eval.json").exists()
    assert (tmp_path / "cli" / "curves.png").stat().st_size > 0
    # resume with a longer budget trains one more update from the run's own config
    assert main(["train", "--runs-dir", str(tmp_path), "--run-name", "cli", "--resume", "--no-progress",
                 "--no-final-eval", "--set", "run.total_decisions=2000"]) == 0
    assert "Trained 2 updates" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["train", "--config", TINY, "--set", "ppo.nope=1"], "unknown config key 'ppo.nope'"),
    (["train", "--config", "/nonexistent.yaml"], "cannot read config"),
    (["train", "--resume", "--run-name", "never-ran"], "no run to resume"),
    (["eval", "missing.pt", "random"], "no checkpoint file at 'missing.pt'"),
    (["eval", os.path.join(os.path.dirname(__file__), "..", "fixtures", "knock_absolute_v1.pt"), "random",
      "--preset", "classic"],
     "trained for other rules: stick_the_dealer=True there, False here"),
])
def test_cli_train_errors_are_one_line(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--runs-dir", str(tmp_path)] if argv[0] == "train" else argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_the_dense_layers_multiply_in_bfloat16_only_inside_matmul_precision():
    from euchre_env.agents.neural.network import DenseLinear, matmul_precision

    torch.manual_seed(0)
    model = ActorCritic(40, 9, [64, 64], critic_extra=5)
    assert sum(isinstance(m, DenseLinear) for m in model.modules()) == 4  # the hidden and output products
    x, extra = torch.rand(256, 40), torch.rand(256, 5)
    mask = torch.ones(256, 9, dtype=torch.bool)
    exact = model(x, mask, extra)
    with matmul_precision(model, "bfloat16"):
        low = model(x, mask, extra)
        (low[0].sum() + low[1].sum()).backward()
    assert low[0].dtype == torch.float32 and not torch.equal(low[0], exact[0])  # rounded on the way ...
    assert torch.allclose(low[0], exact[0], atol=0.02) and torch.allclose(low[1], exact[1], atol=0.05)  # ... a little
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())
    again = model(x, mask, extra)  # float32 again after the block
    assert torch.equal(again[0], exact[0]) and torch.equal(again[1], exact[1])
    assert set(model.state_dict()) == set(ActorCritic(40, 9, [64, 64], critic_extra=5).state_dict())
    bad = matmul_precision(model, "fp16")
    with pytest.raises(ValueError, match=r"matmul precision must be one of \['float32', 'bfloat16'\], got 'fp16'"):
        bad.__enter__()


def test_a_ppo_update_in_bfloat16_learns_as_in_float32():
    from euchre_env.game.actions import action_table
    from euchre_env.training.config import PPOConfig
    from euchre_env.training.ppo import ppo_update
    from euchre_env.views.observation import Observer

    rules = Rules.preset("knock")
    scripted = {"rules": make_agent("rules")}
    rollouts = {}
    for precision in ("float32", "bfloat16"):
        torch.manual_seed(0)
        model = ActorCritic(Observer(rules).size, len(action_table(rules)), [32])
        sp = SelfPlay(rules, model, 8, {"self": 1, "rules": 1}, scripted, reward_scale=0.25)
        rollout = sp.collect(600, seed=2, update=0)
        optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
        cfg = PPOConfig(minibatch_size=256, matmul_precision=precision)
        rollouts[precision] = ppo_update(model, optimizer, rollout, cfg, torch.Generator().manual_seed(0))
    f32, b16 = rollouts["float32"], rollouts["bfloat16"]
    assert all(np.isfinite(v) for v in b16.values())
    assert abs(b16["policy_loss"] - f32["policy_loss"]) < 0.01 and abs(b16["value_loss"] / f32["value_loss"] - 1) < 0.05
    assert b16["approx_kl"] < 0.01


def test_the_config_refuses_an_unknown_matmul_precision():
    with pytest.raises(ValueError, match=r"config ppo\.matmul_precision must be one of 'float32', 'bfloat16'"):
        load_config(None, ["ppo.matmul_precision=float16"])
