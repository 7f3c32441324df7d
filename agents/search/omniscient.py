"""``omniscient``: a ceiling, not a player. It sees every hand and plays double-dummy.

    euchre eval omniscient pimc:50 --hands 2000 --seed 46103     # the most any agent could take from PIMC-50

``OmniscientAgent`` is PIMC (:mod:`euchre_env.agents.search.pimc`) with one world, the true one. Every card play
is the double-dummy best of the real hands; every calling decision applies each candidate to the real hand, lets
:func:`~euchre_env.agents.search.pimc.rollout_action` take the calls still to come, and solves the hand
double-dummy from the first lead. Its share of the points against an agent bounds what any fair agent can reach
against that agent (issue 46's diagnosis, docs/agents.md): a fair agent sees only its own cards.

It is the one agent that breaks the protocol's rule that a seat sees what it may see, and it says so: it sets
``sees_every_hand = True``, and :func:`euchre_env.views.decision.ask_agent` then adds the true game
(``info["game_state"]``, a copy) to its inputs; no other agent is given it. It is not a sound best response
either: the other seats' later calls are taken by the rollout heuristic, not by the agents it plays, and
double-dummy play assumes every seat plays perfectly with open cards. Bid Euchre's double deck is solved to
the depth PIMC uses there (``DOUBLE_DECK_DEPTH``).
"""

from __future__ import annotations

from typing import Any

from euchre_env.agents.base import require_information_state
from euchre_env.agents.search.pimc import DOUBLE_DECK_DEPTH, PIMCAgent
from euchre_env.agents.search.worlds import World
from euchre_env.game.phases import Phase


class OmniscientAgent(PIMCAgent):
    """Double-dummy play and calls on the true deal (see the module docstring)."""

    name = "omniscient"
    sees_every_hand = True  # ask_agent adds info["game_state"], the true game

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(seed, worlds=1, name=name)

    def _totals(self, info: dict[str, Any]) -> tuple[dict[int, float], int]:
        """Each legal action's value in the true deal, and 1 (0: one legal action, nothing solved)."""
        state = info.get("game_state") if isinstance(info, dict) else None
        if state is None:
            raise ValueError("OmniscientAgent needs info['game_state'], the true game: ask it through "
                             "euchre_env.views.decision.ask_agent (the evaluation, the envs' opponents)")
        seen = require_information_state(info, "OmniscientAgent")
        legal = list(seen.legal_actions)
        if not legal:
            raise ValueError("OmniscientAgent.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return {legal[0]: 0.0}, 0
        depth = DOUBLE_DECK_DEPTH if seen.rules.double_deck else None
        truth = World(hands=tuple(tuple(h) for h in state.hands), pile=())
        if seen.phase == Phase.PLAY:
            return self._play_values(seen, legal, [truth], depth), 1
        if seen.phase == Phase.GIVE_BACK:
            return self._give_back_values(seen, legal, [truth], depth), 1
        return self._values_from(seen, legal, [state.clone()], 1 if seen.rules.double_deck else None), 1
