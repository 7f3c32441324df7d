"""``omniscient``: the true deal reaches this agent alone, its card play is the double-dummy best of the real hands,
and it takes more than rules and PIMC on the same deals."""

from __future__ import annotations

import pytest

from euchre_env.agents.registry import make_agent
from euchre_env.agents.search.double_dummy import DoubleDummy
from euchre_env.agents.search.omniscient import OmniscientAgent
from euchre_env.evaluation.duplicate import hand_deal
from euchre_env.evaluation.evaluate import evaluate
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import team_of
from euchre_env.views.decision import ask_agent, decision_inputs
from euchre_env.views.infostate import information_state


class Recorder:
    """Plays the first legal action and keeps what it was shown."""

    def __init__(self, sees_every_hand: bool) -> None:
        self.sees_every_hand = sees_every_hand
        self.infos: list[dict] = []

    def act(self, observation, info):
        self.infos.append(info)
        return int(info["information_state"].legal_actions[0])


def test_only_an_agent_that_declares_it_is_shown_the_true_game():
    rules = Rules.preset("knock")
    state = GameState(rules, deal=hand_deal(rules, 3, 0))
    fair, cheat = Recorder(False), Recorder(True)
    ask_agent(fair, state, None)
    ask_agent(cheat, state, None)
    assert "game_state" not in fair.infos[0]
    shown = cheat.infos[0]["game_state"]
    assert shown is not state and shown.hands == state.hands  # a copy: the agent cannot change the game


def test_without_the_true_game_it_refuses_in_one_line():
    rules = Rules.preset("knock")
    observation, info = decision_inputs(GameState(rules, deal=hand_deal(rules, 3, 0)), None, False)
    with pytest.raises(ValueError, match="needs info\\['game_state'\\]") as exc:
        make_agent("omniscient", seed=1).act(observation, info)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("preset", ["knock", "classic"])
def test_its_card_play_is_the_double_dummy_best_of_the_real_hands(preset):
    rules = Rules.preset(preset)
    agent = OmniscientAgent(seed=2)
    checked = 0
    for d in range(6):
        state = GameState(rules, deal=hand_deal(rules, 40 + d, d % 4))
        while not state.hand_over:
            action = ask_agent(agent, state, None)
            legal = state.legal_actions()
            if state.phase == Phase.PLAY and len(legal) > 1:
                solver = DoubleDummy(rules.deck_spec, state.trump)
                trick = information_state(state, state.current).trick  # (seat, card) pairs
                values = solver.card_values(state.hands, state.current, team_of(state.maker), trick=trick,
                                            out=state.out)
                mine = team_of(state.current) == team_of(state.maker)
                best = max(values.values()) if mine else min(values.values())
                assert values[action - state.table.play_base] == best
                checked += 1
            state.apply(action)
    assert checked > 20


def test_it_takes_more_than_rules_and_pimc_on_the_same_deals():
    against_rules = evaluate("omniscient", "rules", "knock", n=16, seed=11, workers=1)
    against_pimc = evaluate("omniscient", "pimc:4", "knock", n=16, seed=11, workers=1)
    assert against_rules.margin > 0.3 and against_pimc.margin > 0.1
