"""The trainer's observation kinds and oracle critic: the frames of self-play, what the critic sees
that the actor does not, that no critic reaches what is saved for play, and resuming a run of checkpoint version 1."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, TINY, tiny  # noqa: E402

from euchre_env.agents.neural.agent import NeuralAgent  # noqa: E402
from euchre_env.agents.neural.checkpoint import build_model, load_checkpoint, save_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import ActorCritic, PolicyNet  # noqa: E402
from euchre_env.agents.registry import make_agent  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.game.actions import action_table  # noqa: E402
from euchre_env.game.engine import GameState  # noqa: E402
from euchre_env.game.phases import Phase  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.training.config import load_config  # noqa: E402
from euchre_env.training.oracle import Oracle  # noqa: E402
from euchre_env.training.selfplay import SelfPlay  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402
from euchre_env.views.observation import Observer  # noqa: E402
from euchre_env.views.structured import Frame, StructuredObserver, suit_frames  # noqa: E402

torch.set_num_threads(1)

KNOCK = Rules.preset("knock")
KINDS = ["self", "past", "rules", "random"]



def test_defaults_and_one_line_errors():
    assert (tiny().model.observation, tiny().model.critic) == ("structured", "oracle")
    assert (load_config().model.observation, load_config().model.critic) == ("structured", "oracle")
    with pytest.raises(ValueError, match=re.escape("config model.observation must be one of 'absolute', "
                                                   "'structured', got 'raw'")):
        tiny("model.observation=raw")
    with pytest.raises(ValueError, match=re.escape("config model.critic must be one of 'oracle', 'seat', got 'x'")):
        tiny("model.critic=x")


def mid_hand(seed: int) -> GameState:
    """A knock game at a PLAY decision after the first trick, every hand still holding cards."""
    rng = np.random.default_rng(seed)
    state = GameState(KNOCK, rng)
    while not (state.phase == Phase.PLAY and len(state.tricks) == 1 and not state.out[state.current]):
        state.apply(int(rng.choice(state.legal_actions())))
        if state.hand_over:
            state.next_hand()
    return state


def hidden_swaps(state: GameState) -> list[GameState]:
    """Copies of ``state`` that the seat to act cannot tell from it: two other hands trade a card, and
    another hand trades one with the undealt kitty."""
    seat = state.current
    a, b = [s for s in range(4) if s != seat and state.hands[s]][:2]
    trade, kitty = state.clone(), state.clone()
    trade.hands[a][0], trade.hands[b][0] = state.hands[b][0], state.hands[a][0]
    kitty.hands[a][0], kitty.kitty[0] = state.kitty[0], state.hands[a][0]
    for other in (trade, kitty):
        other.hands = [sorted(h) for h in other.hands]
        other._legal = None
    return [trade, kitty]


def collector(observation: str) -> SelfPlay:
    """A one-game collector with the oracle critic, its model's weights seeded."""
    oracle = Oracle(KNOCK, KINDS)
    size = StructuredObserver(KNOCK).size if observation == "structured" else Observer(KNOCK).size
    torch.manual_seed(0)
    model = ActorCritic(size, len(action_table(KNOCK)), [16], critic_extra=oracle.size)
    return SelfPlay(KNOCK, model, 1, {"self": 1}, {}, 1.0, observation=observation, oracle=oracle)


def encode(sp: SelfPlay, state: GameState) -> tuple[np.ndarray, np.ndarray, Frame]:
    """The network's input for the seat to act (the collector's encoder) and its mask, both in the frame of
    that observation, and the frame."""
    obs, mask = np.zeros((1, sp.encoder.size), np.float32), np.zeros((1, sp.num_actions), bool)
    if isinstance(sp.encoder, StructuredObserver):
        frame = sp.encoder.encode_with_frame(state, state.current, obs[0])[1]
    else:
        sp.encoder.encode(state, state.current, obs[0])
        frame = Frame(KNOCK, (0, 1, 2, 3))  # the absolute observation's: the identity
    mask[0, frame.action_to_canonical[state.legal_actions()]] = True
    return obs, mask, frame


@pytest.mark.parametrize("observation", ["absolute", "structured"])
def test_hidden_cards_change_the_oracle_features_never_the_actor(observation):
    sp = collector(observation)
    model, oracle = sp.model, sp.oracle

    def inputs(state: GameState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obs, mask, frame = encode(sp, state)
        extra = oracle.encode(state, state.current, frame, "rules", np.zeros((1, oracle.size), np.float32)[0])
        return obs, mask, extra[None]

    for seed in range(5):
        state = mid_hand(seed)
        obs, mask, extra = inputs(state)
        logits = model.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask))
        value = model.value(torch.from_numpy(obs), torch.from_numpy(extra))
        for other in hidden_swaps(state):
            obs2, mask2, extra2 = inputs(other)
            assert np.array_equal(obs2, obs) and np.array_equal(mask2, mask)  # the actor's whole input
            assert torch.equal(model.masked_logits(torch.from_numpy(obs2), torch.from_numpy(mask2)), logits)
            assert not np.array_equal(extra2, extra)
            assert not torch.equal(model.value(torch.from_numpy(obs2), torch.from_numpy(extra2)), value)


def test_oracle_layout_counts_every_card_once():
    sp = collector("structured")
    oracle = sp.oracle
    n = KNOCK.deck_spec.num_ids
    assert list(oracle.layout) == ["hands", "kitty", "discard", "opponent"]
    assert oracle.size == 4 * n + n + n + len(KINDS)
    state = mid_hand(0)
    frame = encode(sp, state)[2]
    x = oracle.encode(state, state.current, frame, "past", np.zeros(oracle.size, np.float32))
    hands = x[:4 * n].reshape(4, n)
    assert [int(h.sum()) for h in hands] == [len(state.hands[(state.current + r) % 4]) for r in range(4)]
    own = frame.card_to_canonical[state.hands[state.current]]
    assert set(np.flatnonzero(hands[0])) == set(own)  # the seat's own hand, in the observation's frame
    assert x[4 * n:5 * n].sum() == len(state.kitty) and x[6 * n:].tolist() == [0, 1, 0, 0]


def test_structured_selfplay_records_what_the_network_saw():
    """Masks and actions are in each seat's canonical frame; the engine got the absolute ids (an illegal id
    would raise); a teacher's absolute choice is recorded in the frame."""
    oracle = Oracle(KNOCK, KINDS)
    size = StructuredObserver(KNOCK).size
    model = ActorCritic(size, len(action_table(KNOCK)), [16], critic_extra=oracle.size)
    scripted = {"rules": make_agent("rules"), "random": make_agent("random")}
    sp = SelfPlay(KNOCK, model, 8, {"self": 1, "past": 1, "rules": 1, "random": 1}, scripted, 1.0,
                  observation="structured", oracle=oracle)
    sp.snapshots.append(("update_000001", PolicyNet(size, len(action_table(KNOCK)), [16]).eval()))
    r = sp.collect(400, seed=1, update=0)
    assert r.obs.shape[1] == size and r.extra.shape == (len(r), oracle.size)
    assert r.mask[np.arange(len(r)), r.action].all() and (r.mask.sum(1) >= 2).all()
    assert (r.extra[:, -len(KINDS):].sum(1) == 1).all() and r.extra[:, -3].any()  # played the snapshot too

    seen = []

    class Teacher:
        name = "teacher"
        needs_observation = False

        def reset(self, seed=None):
            pass

        def act(self, observation, info):
            seen.append((observation["action_mask"].astype(bool), int(np.flatnonzero(observation["action_mask"])[-1])))
            return seen[-1][1]

    demos = sp.collect(300, seed=2, update=0, teacher=Teacher())
    assert len(seen) == len(demos)
    moved = 0
    for (absolute, choice), mask, action in zip(seen, demos.mask, demos.action):
        frames = [f for f in suit_frames(KNOCK) if np.array_equal(f.canonical_mask(absolute), mask)]
        assert any(f.to_canonical_action(choice) == action for f in frames)
        moved += action != choice
    assert moved > len(demos) // 4  # the frames are not the identity: the mapping was exercised


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("oracle")
    trainer = Trainer(tiny("run.total_decisions=2000", "eval.every=0"), str(root / "run"), log=QUIET)
    trainer.train()
    return trainer


def test_nothing_saved_for_play_holds_a_critic(run):
    ckpts = os.path.join(run.run_dir, "checkpoints")
    play = run.play_payload()
    assert "critic" not in play and play["observation"] == "structured"
    assert set(play["actor"]) == set(run.model.actor.state_dict())
    snapshot = os.path.join(ckpts, "league", run.league.names[-1] + ".pt")
    data = load_checkpoint(snapshot)
    assert "critic" not in data and "optimizer" not in data
    net = build_model(data, snapshot)
    assert isinstance(net, PolicyNet) and net.obs_size == StructuredObserver(KNOCK).size
    latest = load_checkpoint(os.path.join(ckpts, "latest.pt"))
    critic_in = run.model.critic.input_size
    assert critic_in == net.obs_size + run.oracle.size and latest["critic"]["0.weight"].shape[1] == critic_in
    agent = NeuralAgent(os.path.join(ckpts, "latest.pt"))
    assert not any(isinstance(m, ActorCritic) or m is run.model.critic for m in vars(agent).values())
    assert all(p.shape[-1] != critic_in for p in agent.model.state_dict().values())  # no critic-sized layer


def drop_key(run_dir: str, section: str, key: str) -> None:
    """Take ``section.key`` out of a run's config.yaml and latest.pt, as if the run predated the key."""
    import yaml

    path = os.path.join(run_dir, "config.yaml")
    with open(path) as f:
        config = yaml.safe_load(f)
    del config[section][key]
    with open(path, "w") as f:
        yaml.safe_dump(config, f)
    latest = os.path.join(run_dir, "checkpoints", "latest.pt")
    data = torch.load(latest, weights_only=True)
    del data["config"][section][key]
    save_checkpoint(data, latest)


def test_a_saved_config_takes_todays_default_for_a_key_it_lacks(tmp_path, capsys):
    old = ["--set", "model.observation=absolute", "model.critic=seat", "eval.every=0"]
    assert main(["train", "--config", TINY, *old, "run.total_decisions=1000", "--runs-dir", str(tmp_path),
                 "--run-name", "old", "--no-progress", "--no-final-eval"]) == 0
    drop_key(str(tmp_path / "old"), "ppo", "critic_lr")
    saved = load_config(str(tmp_path / "old" / "config.yaml"))
    assert (saved.model.observation, saved.model.critic, saved.ppo.critic_lr) == ("absolute", "seat", 0.0)
    assert main(["train", "--runs-dir", str(tmp_path), "--run-name", "old", "--resume", "--no-progress",
                 "--no-final-eval", "--set", "run.total_decisions=2000"]) == 0
    assert "Trained 2 updates" in capsys.readouterr().out
    # today's defaults on that run are a change of config, named
    with pytest.raises(ValueError, match=re.escape("model.observation ('absolute' -> 'structured')")):
        Trainer(tiny("eval.every=0"), str(tmp_path / "old"), resume=True, log=QUIET)
    # a run saved by 0.1 names run.engine, a key 0.2 dropped: one line names it
    import yaml

    path = tmp_path / "old" / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["run"]["engine"] = "vector"
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(SystemExit) as exc:
        main(["train", "--runs-dir", str(tmp_path), "--run-name", "old", "--resume", "--no-progress"])
    assert exc.value.code == 2 and "unknown config key 'run.engine'" in capsys.readouterr().err


@pytest.mark.parametrize("observation", ["absolute", "structured"])
@pytest.mark.parametrize("preset", ["knock", "bid"])
def test_batched_oracle_features_equal_the_engine_ones(preset, observation):
    """What the vector collector gives the critic is Oracle.encode of the true game, decision by decision."""
    from euchre_env.envs.vector import VectorEuchre
    from euchre_env.views.structured import Frame, make_observer

    rules = Rules.preset(preset, **({"joker": True} if preset == "bid" else {}))
    oracle = Oracle(rules, KINDS)
    encoder = make_observer(rules, observation)
    venv = VectorEuchre(rules, num_envs=6, seed=4, observation=observation, episode="hand")
    _, mask, seat = venv.reset()
    refs = [GameState(rules, deal=venv.current_deal(g)) for g in range(6)]
    rng = np.random.default_rng(0)
    for _ in range(120):
        hands, kitty, discard = venv.hidden_cards()
        batch = oracle.encode_batch(hands, kitty, discard, seat, venv.card_frames(), ["rules"] * 6,
                                    np.zeros((6, oracle.size), np.float32))
        some = np.array([4, 1])  # the rows of some games only: what the collector asks for
        for whole, part in zip((hands, kitty, discard, venv.card_frames()), (*venv.hidden_cards(some),
                                                                            venv.card_frames(some))):
            np.testing.assert_array_equal(whole[some], part)
        actions = np.zeros(6, np.int64)
        for g, ref in enumerate(refs):
            if observation == "structured":
                frame = encoder.encode_with_frame(ref, ref.current_player)[1]
            else:
                frame = Frame(rules, (0, 1, 2, 3))  # the absolute observation's: the identity
            want = oracle.encode(ref, ref.current_player, frame, "rules", np.zeros(oracle.size, np.float32))
            np.testing.assert_array_equal(batch[g], want)
            actions[g] = rng.choice(np.flatnonzero(mask[g]))
            ref.apply(frame.to_absolute_action(int(actions[g])))
        _, mask, seat, _, done, _ = venv.step(actions)
        for g in np.flatnonzero(done):
            refs[g] = GameState(rules, deal=venv.current_deal(g))
