"""OpenSpiel's bots as our agents: the ``openspiel:`` specs, the world replay they search from, and play through
the evaluation and SingleSeatEnv."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'euchre-env[openspiel]')")

from euchre_env import SingleSeatEnv
from euchre_env.agents.registry import check_spec, make_agent
from euchre_env.agents.search.openspiel_bots import OpenSpielAgent, sample_replayed_world, save_mccfr_policy
from euchre_env.agents.search.worlds import WorldSampler
from euchre_env.evaluation.evaluate import evaluate
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.openspiel import game_for_rules, information_string
from euchre_env.play.terminal import play_in_terminal
from euchre_env.views.infostate import information_state


@pytest.mark.parametrize(("spec", "message"), [
    ("openspiel:cfr:10", "agent spec 'openspiel:cfr:10': write openspiel:ismcts:N, openspiel:mcts:N or "
                         "openspiel:mccfr:PATH"),
    ("openspiel:ismcts:0", "agent spec 'openspiel:ismcts:0': simulations must be an integer of at least 1"),
    ("openspiel:mcts:x", "agent spec 'openspiel:mcts:x': simulations must be an integer of at least 1"),
    ("openspiel:mccfr:/no/such/policy.npz", "agent spec 'openspiel:mccfr:/no/such/policy.npz': no MCCFR policy"),
])
def test_bad_openspiel_specs_are_one_line(spec: str, message: str) -> None:
    for call in (check_spec, make_agent):
        with pytest.raises(ValueError) as err:
            call(spec)
        assert str(err.value).startswith(message) and "\n" not in str(err.value)


@pytest.mark.parametrize(("preset", "options"), [
    ("knock", {}), ("multiplayer", {"joker": True}), ("bid", {}), ("bid", {"joker": True}),
    ("bid", {"double_deck": True}),
])
def test_replayed_worlds_share_the_seats_information_state(preset: str, options: dict) -> None:
    """A world drawn from a seat's view, replayed through the engine, reaches the same decision with the same
    information state (string and tensor) as the true game: what IS-MCTS searches from is consistent."""
    rules = Rules.preset(preset, **options)
    game = game_for_rules(rules)
    observer_true, observer_world = game.make_py_observer(), game.make_py_observer()
    rng, nrng = random.Random(2), np.random.default_rng(2)
    checked = 0
    for seed in range(6):
        truth = GameState(rules, seed)
        while not truth.hand_over:
            seat = truth.current
            info = information_state(truth, seat)
            world = sample_replayed_world(info, WorldSampler(info), nrng)
            assert information_string(world, seat) == information_string(truth, seat)
            assert world.legal_actions() == truth.legal_actions()
            for engine, obs in ((truth, observer_true), (world, observer_world)):
                state = game.new_initial_state()
                state.set_engine(engine.clone())
                obs.set_from(state, seat)
            np.testing.assert_array_equal(observer_true.tensor, observer_world.tensor)
            checked += 1
            truth.apply(rng.choice(truth.legal_actions()))
    assert checked > 100


def test_ismcts_plays_in_the_evaluation_and_single_seat_env() -> None:
    result = evaluate("openspiel:ismcts:20", "rules", rules="classic", n=2, seed=0, workers=1)
    assert result.deals == 2 and result.hands == 4 and result.agent_a == "openspiel:ismcts:20"
    env = SingleSeatEnv("knock", opponents="openspiel:mcts:10")
    _, info = env.reset(seed=3)
    done, steps = False, 0
    while not done:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done, steps = term or trunc, steps + 1
    assert steps >= 1


def test_openspiel_bots_sit_at_a_human_table() -> None:
    """``euchre play`` takes the specs too: a person, an MCTS partner and IS-MCTS opponents play a hand."""
    out = io.StringIO()
    table = play_in_terminal(Rules.preset("classic"), seat=0, partner="openspiel:mcts:5",
                             opponents="openspiel:ismcts:5", seed=4, hands=1, input=io.StringIO("1\n" * 50),
                             output=out)
    text = out.getvalue()
    assert table.state.hand_over and "hand 1 over:" in text and "Traceback" not in text
    assert "openspiel:ismcts:5" in text and "openspiel:mcts:5" in text  # the seats are named by their specs


def test_ismcts_is_seeded() -> None:
    rules = Rules.preset("knock")
    truth = GameState(rules, 11)
    info = {"information_state": information_state(truth, truth.current)}
    a = make_agent("openspiel:ismcts:30", seed=1).act(None, info)
    b = make_agent("openspiel:ismcts:30", seed=1).act(None, info)
    assert a == b and a in truth.legal_actions()


def test_mccfr_policy_file_is_followed(tmp_path) -> None:
    """A saved policy's information state is played by its probabilities; an unknown one uniformly."""
    rules = Rules.preset("knock")
    truth = GameState(rules, 4)
    seat = truth.current
    key = information_string(truth, seat)
    legal = truth.legal_actions()
    probs = [0.0] * len(legal)
    probs[-1] = 1.0  # always the last legal action (order alone)
    path = tmp_path / "policy.npz"
    save_mccfr_policy(str(path), rules, {key: probs})
    agent = make_agent(f"openspiel:mccfr:{path}", seed=0)
    assert isinstance(agent, OpenSpielAgent)
    info = {"information_state": information_state(truth, seat)}
    assert {agent.act(None, info) for _ in range(5)} == {legal[-1]}
    agent.check_rules(rules)
    with pytest.raises(ValueError, match="trained on knock rules"):
        agent.check_rules(Rules.preset("classic"))


def test_resampler_for_ismcts_run_directly() -> None:
    """OpenSpiel's ISMCTSBot on the game itself, with our resampler: it searches and picks a legal action."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from euchre_env.agents.search.openspiel_bots import resampler

    game = pyspiel.load_game("python_euchre_classic")
    state = game.new_initial_state()
    rng = random.Random(4)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 30, random_state=rs)
    bot.set_resampler(resampler(np.random.default_rng(0)))
    assert bot.step(state) in state.legal_actions()
