"""The belief head (agents/neural/belief.py): its targets are the true places of the cards the seat cannot see,
its input is the actor's alone (hidden cards change the targets, never the beliefs), it learns, it resumes
bit-exact, and a checkpoint carries it to ``NeuralAgent.card_beliefs``."""

from __future__ import annotations

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from test_train_oracle import KINDS, KNOCK, encode, hidden_swaps, mid_hand  # noqa: E402
from tiny_run import QUIET, tiny  # noqa: E402

from euchre_env.agents.neural.agent import NeuralAgent  # noqa: E402
from euchre_env.agents.neural.checkpoint import CheckpointError, load_checkpoint, save_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import ActorCritic  # noqa: E402
from euchre_env.game.actions import action_table  # noqa: E402
from euchre_env.game.seats import CARD_PLACES, card_place  # noqa: E402
from euchre_env.training.oracle import Oracle  # noqa: E402
from euchre_env.training.ppo import ppo_update  # noqa: E402
from euchre_env.training.selfplay import SelfPlay  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402
from euchre_env.views.infostate import information_state  # noqa: E402
from euchre_env.views.structured import StructuredObserver  # noqa: E402

torch.set_num_threads(1)
N = KNOCK.deck_spec.num_ids


def belief_collector() -> SelfPlay:
    """A one-game structured collector whose model has a belief head, its weights seeded."""
    oracle = Oracle(KNOCK, KINDS)
    torch.manual_seed(0)
    model = ActorCritic(StructuredObserver(KNOCK).size, len(action_table(KNOCK)), [16], critic_extra=oracle.size,
                        belief_cards=N)
    return SelfPlay(KNOCK, model, 1, {"self": 1}, {}, 1.0, observation="structured", oracle=oracle)


def true_places(state) -> tuple[np.ndarray, np.ndarray]:
    """``(share [N, 4], hidden [N])`` in absolute card ids, read from the state by hand."""
    seat, share = state.current, np.zeros((N, len(CARD_PLACES)), np.float32)
    for s, hand in enumerate(state.hands):
        if s != seat:
            for c in hand:
                share[c, card_place(s, seat)] += 1
    for c in [*state.kitty, *([] if state.discarded is None else [state.discarded])]:
        share[c, 3] += 1
    return share, share.sum(1) > 0


def places(sp: SelfPlay, state):
    """The oracle's targets for the seat to act, in the frame of its observation, and that frame."""
    obs, mask, frame = encode(sp, state)
    extra = sp.oracle.encode(state, state.current, frame, "self", np.zeros(sp.oracle.size, np.float32))
    share, hidden = sp.oracle.card_places(extra[None])
    return obs, mask, frame, share[0], hidden[0]


def test_the_targets_are_the_true_places_of_the_unseen_cards():
    """The oracle's targets, in the canonical frame, read through ``card_to_canonical`` (as ``card_beliefs``
    reads the head) are every unseen card's true place; cards held or played are not targets."""
    sp = belief_collector()
    for seed in range(6):
        state = mid_hand(seed)
        _, _, frame, share, hidden = places(sp, state)
        want_share, want_hidden = true_places(state)
        assert np.array_equal(hidden[frame.card_to_canonical], want_hidden)
        assert np.array_equal(share[frame.card_to_canonical], want_share)
        assert not hidden[frame.card_to_canonical][state.hands[state.current]].any()
        played = [c for _, _, cards in state.tricks for c in cards]
        assert played and not hidden[frame.card_to_canonical][played].any()


def test_hidden_cards_change_the_targets_never_the_beliefs():
    """Two deals the seat cannot tell apart (two other hands trade a card; a hand trades one with the kitty): the
    actor's input and the belief head's output are the same, the targets are not."""
    sp = belief_collector()
    for seed in range(5):
        state = mid_hand(seed)
        obs, mask, _, share, _ = places(sp, state)
        beliefs = sp.model.heads(torch.from_numpy(obs), torch.from_numpy(mask))[2]
        for other in hidden_swaps(state):
            obs2, mask2, _, share2, _ = places(sp, other)
            assert np.array_equal(obs2, obs) and np.array_equal(mask2, mask)
            assert torch.equal(sp.model.heads(torch.from_numpy(obs2), torch.from_numpy(mask2))[2], beliefs)
            assert not np.array_equal(share2, share)


def test_the_belief_head_learns_where_the_cards_are(tmp_path):
    trainer = Trainer(tiny("pretrain.teacher=''", "ppo.belief_coef=1", "ppo.epochs=1", "ppo.lr=3e-3",
                           "ppo.critic_lr=3e-3"), str(tmp_path / "run"), log=QUIET)
    rollout = trainer.selfplay.collect(1000, 3, 0)
    generator = torch.Generator().manual_seed(0)
    losses = [ppo_update(trainer.model, trainer.optimizer, rollout, trainer.config.ppo, generator,
                         trainer.oracle)["belief_loss"] for _ in range(40)]
    assert losses[0] == pytest.approx(np.log(len(CARD_PLACES)), abs=0.05)  # a fresh head: near-uniform
    assert losses[-1] < 0.85 * losses[0]  # 1.38 -> 1.11 (the tiny network, one rollout fitted 40 times)


def test_a_run_with_a_belief_head_resumes_exactly_and_its_checkpoint_carries_the_head(tmp_path):
    overrides = ("ppo.belief_coef=0.5", "ppo.critic_lr=1e-3")
    Trainer(tiny(*overrides), str(tmp_path / "full"), log=QUIET).train()
    Trainer(tiny(*overrides), str(tmp_path / "split"), log=QUIET).train(stop_at_update=2)
    Trainer(tiny(*overrides), str(tmp_path / "split"), resume=True, log=QUIET).train()
    path = str(tmp_path / "full" / "checkpoints" / "latest.pt")
    a, b = load_checkpoint(path), load_checkpoint(str(tmp_path / "split" / "checkpoints" / "latest.pt"))
    for part in ("actor", "critic", "belief"):
        assert all(torch.equal(a[part][k], b[part][k]) for k in a[part]), part
    agent = NeuralAgent(path)
    state = mid_hand(3)
    beliefs = agent.card_beliefs(information_state(state, state.current))
    assert beliefs.shape == (N, len(CARD_PLACES)) and np.allclose(beliefs.sum(1), 1.0)


def test_a_network_without_a_head_and_a_damaged_head_are_one_line(tmp_path):
    trainer = Trainer(tiny("pretrain.teacher=''"), str(tmp_path / "run"), log=QUIET)
    path = str(tmp_path / "plain.pt")
    save_checkpoint(trainer.play_payload(), path)
    state = mid_hand(1)
    with pytest.raises(ValueError, match="has no belief head"):
        NeuralAgent(path).card_beliefs(information_state(state, state.current))
    payload = trainer.play_payload()
    payload["belief"] = {"hidden.weight": torch.zeros(8, 32), "hidden.bias": torch.zeros(8),
                         "out.weight": torch.zeros(7, 8), "out.bias": torch.zeros(7)}
    save_checkpoint(payload, path)
    with pytest.raises(CheckpointError, match=re.escape("its belief head does not fit the network")):
        NeuralAgent(path)
    with pytest.raises(ValueError, match=re.escape("ppo.belief_coef needs model.critic: oracle")):
        tiny("ppo.belief_coef=1", "model.critic=seat")


def test_the_published_knock_belief_is_knock_150m_with_a_head():
    """``knock_belief.pt`` plays as ``knock_150m.pt`` (the same actor, weight for weight) and carries a head."""
    import os

    root = os.path.join(os.path.dirname(__file__), "..", "..", "checkpoints")
    plain, belief = (load_checkpoint(os.path.join(root, name)) for name in ("knock_150m.pt", "knock_belief.pt"))
    assert plain["actor"].keys() == belief["actor"].keys()
    assert all(torch.equal(plain["actor"][k], belief["actor"][k]) for k in plain["actor"])
    assert "belief" not in plain and NeuralAgent(os.path.join(root, "knock_belief.pt")).belief is not None


def test_model_init_takes_the_checkpoints_head_and_an_expert_phase_searches_with_it(tmp_path):
    """A run with a head started from a checkpoint with one (``model.init``) starts from that head too; its expert
    phases give the search's network a copy of the run's head, so the call and anchored searches draw their
    worlds from it."""
    from euchre_env.training import expert
    from euchre_env.training.selfplay import SELF

    overrides = ("ppo.belief_coef=0.5", "ppo.critic_lr=1e-3", "pretrain.teacher=''")
    source = Trainer(tiny(*overrides), str(tmp_path / "source"), log=QUIET)
    with torch.no_grad():
        source.model.belief_head.out.bias.fill_(0.25)  # not a fresh head's weights
    path = str(tmp_path / "with_head.pt")
    save_checkpoint(source.play_payload(), path)
    lines: list[str] = []
    run = Trainer(tiny(*overrides, f"model.init={path}", "expert.every=1", "expert.search=calls",
                       "expert.worlds=2", "expert.decisions=2"), str(tmp_path / "run"), log=lines.append)
    want = source.model.belief_head.state_dict()
    assert all(torch.equal(run.model.belief_head.state_dict()[k], want[k]) for k in want)
    assert any(line.startswith(f"the actor starts from {path}, its belief head too") for line in lines)
    seen = []
    real = expert.search_class(run.config.expert.search)

    def spy(network, **kwargs):
        seen.append(network.belief)
        return real(network, **kwargs)

    expert.label_decisions(run.selfplay_for({SELF: 1.0}, {}), run.model.actor, run.rules, run.config, spy, 0,
                           belief=run.model.belief_head)
    run.close()
    source.close()
    assert seen[0] is not None and seen[0] is not run.model.belief_head  # a frozen copy
    assert all(torch.equal(seen[0].state_dict()[k], want[k]) for k in want)
    plain = Trainer(tiny("pretrain.teacher=''", f"model.init={path}"), str(tmp_path / "plain"), log=QUIET)
    assert plain.model.belief_head is None  # no belief_coef: the checkpoint's head is not wanted
    plain.close()


def test_model_init_with_a_head_of_another_width_is_one_line(tmp_path):
    from euchre_env.agents.neural.belief import BeliefHead

    overrides = ("ppo.belief_coef=0.5", "ppo.critic_lr=1e-3", "pretrain.teacher=''")
    source = Trainer(tiny(*overrides), str(tmp_path / "source"), log=QUIET)
    payload = source.play_payload()
    source.close()
    payload["belief"] = BeliefHead(int(payload["hidden"][-1]), N, width=8).state_dict()
    path = str(tmp_path / "narrow.pt")
    save_checkpoint(payload, path)
    with pytest.raises(ValueError) as err:
        Trainer(tiny(*overrides, f"model.init={path}"), str(tmp_path / "run"), log=QUIET)
    assert str(err.value) == f"config model.init {path!r}: its belief head has 8 hidden units, this run's 256"
