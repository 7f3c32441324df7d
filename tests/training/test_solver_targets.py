"""Solver-supervised targets: double-dummy card values on the true deal, recorded in rollouts and
regressed by an auxiliary head of the actor."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, tiny  # noqa: E402

from euchre_env.agents.neural.checkpoint import load_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import PolicyNet  # noqa: E402
from euchre_env.game.actions import PLAY, action_table  # noqa: E402
from euchre_env.game.engine import GameState, team_margin  # noqa: E402
from euchre_env.game.phases import Phase  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.game.seats import team_of  # noqa: E402
from euchre_env.training.ppo import ppo_update  # noqa: E402
from euchre_env.training.solver_targets import SolverTargets  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402

torch.set_num_threads(1)




def _minimax(state: GameState, team: int) -> float:
    """The hand's point margin for ``team`` under perfect play of every open hand, by playing every line
    on the engine (only the engine's own rules: follow suit, trick winners, scoring)."""
    if state.hand_over:
        return team_margin(state.hand_result["points"], team)
    values = []
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        values.append(_minimax(child, team))
    return max(values) if team_of(state.current) == team else min(values)


def _late_play_states(rules: Rules, count: int, cards_left: int, seed: int):
    """Play states with at most ``cards_left`` cards in the hand of the seat to play, from random games."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = GameState(rules, rng)
        while not state.hand_over:
            legal = state.legal_actions()
            if (state.phase == Phase.PLAY and len(legal) > 1 and len(state.hands[state.current]) <= cards_left
                    and rng.random() < 0.5):
                found.append(state.clone())
                break
            state.apply(int(rng.choice(legal)))
    return found


@pytest.mark.parametrize("preset", ["knock", "classic", "bid", "multiplayer"])
def test_values_equal_perfect_play_on_the_engine(preset):
    """Each legal card's value equals the engine's minimax over every line of play from that card."""
    rules = Rules.preset(preset)
    targets = SolverTargets(rules)
    for state in _late_play_states(rules, 12, 3, seed=5):
        values = targets.values(state)
        team = team_of(state.current)
        assert set(values) == set(state.legal_actions())
        for a, points in values.items():
            child = state.clone()
            child.apply(a)
            assert points == _minimax(child, team), (preset, a)


def test_no_values_outside_the_play_phase():
    rules = Rules.preset("knock")
    state = GameState(rules, np.random.default_rng(0))
    assert state.phase != Phase.PLAY and SolverTargets(rules).values(state) == {}


def test_rollouts_label_play_decisions_only_and_leave_the_rest_unchanged(tmp_path):
    """With solver targets every learner play decision (fraction 1) has a value on each legal card and on
    nothing else, calls have none, and the observations, actions and rewards are those of the same run
    without targets."""
    plain = Trainer(tiny("pretrain.teacher=''"), str(tmp_path / "plain"), log=QUIET)
    solved = Trainer(tiny("pretrain.teacher=''", "ppo.solver_coef=1", "ppo.solver_fraction=1"),
                     str(tmp_path / "solved"), log=QUIET)
    a = plain.selfplay.collect(600, 3, 0)
    b = solved.selfplay.collect(600, 3, 0)
    assert a.solver_target is None
    for field in ("obs", "mask", "action", "reward", "next_index"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    has = ~np.isnan(b.solver_target)
    assert not (has & ~b.mask).any()  # targets only on legal actions
    is_play = np.array([act.kind == PLAY for act in action_table(Rules.preset("knock")).actions])
    labelled = has.any(1)
    plays = ~(b.mask & ~is_play).any(1)  # decisions whose legal actions are all cards to play
    assert labelled.sum() > 100 and np.array_equal(labelled, plays)
    assert np.array_equal(has[labelled], b.mask[labelled])  # knock reneges are masked: every legal card
    fewer = Trainer(tiny("pretrain.teacher=''", "ppo.solver_coef=1", "ppo.solver_fraction=0.3"),
                    str(tmp_path / "fewer"), log=QUIET).selfplay.collect(600, 3, 0)
    share = (~np.isnan(fewer.solver_target)).any(1).sum() / labelled.sum()
    assert 0.15 < share < 0.45


def test_the_solver_head_learns_the_targets(tmp_path):
    trainer = Trainer(tiny("pretrain.teacher=''", "ppo.solver_coef=1", "ppo.solver_fraction=1", "ppo.epochs=1",
                           "ppo.lr=3e-3"), str(tmp_path / "run"), log=QUIET)
    rollout = trainer.selfplay.collect(1000, 3, 0)
    generator = torch.Generator().manual_seed(0)
    losses = [ppo_update(trainer.model, trainer.optimizer, rollout, trainer.config.ppo, generator)["solver_loss"]
              for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0]


def test_a_run_with_solver_targets_resumes_exactly(tmp_path):
    overrides = ("ppo.solver_coef=0.5", "ppo.solver_fraction=1", "ppo.critic_lr=1e-3")
    Trainer(tiny(*overrides), str(tmp_path / "full"), log=QUIET).train()
    Trainer(tiny(*overrides), str(tmp_path / "split"), log=QUIET).train(stop_at_update=2)
    Trainer(tiny(*overrides), str(tmp_path / "split"), resume=True, log=QUIET).train()
    a = load_checkpoint(str(tmp_path / "full" / "checkpoints" / "latest.pt"))
    b = load_checkpoint(str(tmp_path / "split" / "checkpoints" / "latest.pt"))
    for part in ("actor", "critic", "solver_head"):
        assert all(torch.equal(a[part][k], b[part][k]) for k in a[part]), part
    # what plays holds no solver head: the play payload is the actor's
    from euchre_env.agents.neural.agent import NeuralAgent

    agent = NeuralAgent(str(tmp_path / "full" / "checkpoints" / "latest.pt"))
    assert isinstance(agent.model, PolicyNet) and not any("solver" in name for name in agent.model.state_dict())
