"""Perfect Information Monte Carlo: sample hidden worlds, solve each one open, average.

``PIMCAgent(seed, worlds=N)`` reads only the seat's ``InfoState``. At every decision it
draws ``N`` worlds consistent with what the seat knows (:mod:`euchre_env.agents.search.worlds`, uniform, no
inference from calls) and scores each legal action in each world; it plays the action of
best average. Scores are the hand's point difference for the seat's team under the rules'
scoring (:func:`euchre_env.agents.search.double_dummy.hand_value`), so march and euchre thresholds count;
ties are broken towards more tricks for the seat's team, then towards the lower action id.
The game score (how close a team is to the target) is not taken into account.

Play: each legal card is valued by the double-dummy solver (:mod:`euchre_env.agents.search.double_dummy`)
in each world.

Solver: its compiled twin (:mod:`euchre_env.agents.search.double_dummy_compiled`, the same values, so the same
actions) wherever it applies (one copy of each card) and its C extension is built (by ``pip install``;
:func:`~euchre_env.agents.search.double_dummy_compiled.solver_for`); the Python solver otherwise (the double deck,
depth-limited, or a package installed without a C compiler).

Other decisions (order / name / alone, defend alone, the dealer's discard, the joker's
suit, Bid Euchre's bids, trump naming and give): in each world the hand is rebuilt as a
``GameState`` (the world's deal, then the public calls replayed, the dealer's discard
drawn from the world's pile where it is hidden), the candidate is applied, and the
calling decisions still to come -- of every seat, the agent's own included -- are taken
by a fixed, fast heuristic (:func:`rollout_action`): the trump count of
:mod:`euchre_env.agents.rule_based.heuristics` decides ordering, naming, going or defending alone
(never defends alone) and bidding; the dealer discards and the bidder gives the weakest
card (:func:`~euchre_env.agents.rule_based.heuristics.weakest_card`). Once play starts, the world is
solved double-dummy (turn-up family: only whether the makers reach half / all the
tricks, by null-window searches, since the points change only there). This is the
approximation of the other seats' (dealer's,
defenders', bidders') calling: they follow the heuristic, not a best response, and see
only their own hand.

Bid Euchre with the double deck (12-card hands): an exact solve is too slow in Python, so
the agent uses at most ``DOUBLE_DECK_WORLDS`` worlds and a search limited to
``DOUBLE_DECK_DEPTH`` tricks (two for play, one for the calling rollouts) scored by the
same trump count beyond it (``max_tricks`` of :class:`euchre_env.agents.search.double_dummy.DoubleDummy`).

Reproducible: the generator of each decision is seeded from the agent's seed and the
information state's content, so the same seed and ``InfoState`` give the same action.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.agents.base import ranked_values, require_information_state
from euchre_env.agents.rule_based.heuristics import trump_count, weakest_card
from euchre_env.agents.search.double_dummy import DoubleDummy, hand_value
from euchre_env.agents.search.double_dummy_compiled import CompiledDoubleDummy, solver_for
from euchre_env.agents.search.worlds import WorldSampler, decision_rng, world_deal
from euchre_env.game.actions import BID, HELP, MOON, NAME, ORDER, PASS, action_table
from euchre_env.game.cards import NUM_SUITS
from euchre_env.game.engine import GameState, scoring_thresholds
from euchre_env.game.phases import Phase
from euchre_env.game.seats import partner_of, team_of
from euchre_env.views.infostate import InfoState

DOUBLE_DECK_WORLDS = 8
DOUBLE_DECK_DEPTH = 2
ORDER_STRENGTH = 7.0  # rollout heuristic: order / name trump at this trump count
ALONE_STRENGTH = 11.0  # ... and go alone at this one
TIE = 0.01  # weight of the seat's team's tricks, to break ties of points


# ----------------------------------------------------------------------------- rollout policy
def rollout_action(state: GameState) -> int:
    """The fast heuristic's action for a calling decision of ``state`` (see the module docstring)."""
    t = state.table
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    seat = state.current
    hand = state.hands[seat]
    deck = state.deck
    phase = state.phase
    acts = [t.actions[a] for a in legal]

    def pick(kind: str, arg: Any = None, alone: bool = False) -> int | None:
        for a, act in zip(legal, acts):
            if act.kind == kind and (arg is None or act.arg == arg) and act.alone == alone:
                return a
        return None

    if phase == Phase.CALL1:
        trump = state.upcard_suit
        cards = list(hand)
        if seat == state.dealer:
            cards.append(state.upcard)
            cards.remove(weakest_card(deck, cards, trump))
        s = trump_count(deck, cards, trump)
        if seat == partner_of(state.dealer):
            s += 1.0  # the partner's up-card
        choice = None
        if s >= ALONE_STRENGTH:
            choice = pick(ORDER, alone=True)
        if choice is None and s >= ORDER_STRENGTH:
            choice = pick(ORDER) or pick(ORDER, alone=True)
        return choice if choice is not None else (pick(PASS) if pick(PASS) is not None else legal[-1])
    if phase == Phase.CALL2:
        suits = [s for s in range(NUM_SUITS) if s != state.upcard_suit]
        best = max(suits, key=lambda s: (trump_count(deck, hand, s), -s))
        s = trump_count(deck, hand, best)
        must = pick(PASS) is None
        if s >= ALONE_STRENGTH and pick(NAME, best, alone=True) is not None:
            return pick(NAME, best, alone=True)
        if s >= ORDER_STRENGTH or must:
            return pick(NAME, best)
        return pick(PASS)
    if phase in (Phase.JOKER_SUIT, Phase.NAME_TRUMP):
        return max(legal, key=lambda a: (trump_count(deck, hand, t.actions[a].arg), -a))
    if phase == Phase.DISCARD:
        return t.discard_base + weakest_card(deck, hand, state.trump if state.trump >= 0 else 0)
    if phase == Phase.GIVE:
        return t.give_base + weakest_card(deck, hand, state.trump)
    if phase == Phase.DEFEND:
        return pick(PASS)
    if phase == Phase.AUCTION:
        est = max(trump_count(deck, hand, s) for s in range(NUM_SUITS)) / 2.2
        bids = [(t.bid_rank(act.arg), a) for a, act in zip(legal, acts) if act.kind == BID]
        plain = [(r, a) for r, a in bids if r <= est and t.actions[a].arg not in (HELP, MOON)]
        if plain:
            return max(plain)[1]
        if pick(PASS) is not None:
            return pick(PASS)
        return min(bids)[1]
    if phase == Phase.GIVE_BACK:  # the help partner holds no trump to give back: any card, the lowest id
        return legal[0]
    raise RuntimeError(f"rollout_action has no rule for phase {phase.name}")


def _score(rules: Any, made: float, maker_team: int, me: int, hand: Any) -> float:
    """What the makers taking ``made`` tricks is worth to team ``me``: the hand's point difference,
    plus ``TIE`` per trick of its own to break ties. ``hand`` (an InfoState or GameState) gives
    the contract and who went alone."""
    mine = made if me == maker_team else rules.tricks_per_hand - made
    return hand_value(rules, made, maker_team, me, hand.contract, hand.maker_alone,
                      hand.defender_alone >= 0) + TIE * mine


# ----------------------------------------------------------------------------- the agent
class PIMCAgent:
    """Perfect Information Monte Carlo over ``worlds`` sampled worlds (see the module docstring)."""

    name = "pimc"
    needs_observation = False

    def __init__(self, seed: int | None = None, worlds: int = 50, name: str | None = None) -> None:
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"PIMCAgent: worlds must be an integer of at least 1, got {worlds!r}")
        self.worlds = worlds
        if name is not None:
            self.name = name
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed
        self._solvers: dict[tuple[Any, int], DoubleDummy | CompiledDoubleDummy] = {}

    # ------------------------------------------------------------------ helpers
    def _rng(self, info: InfoState) -> np.random.Generator:
        return decision_rng(self.seed, info, exchange=True)

    def _solver(self, deck: Any, trump: int) -> DoubleDummy | CompiledDoubleDummy:
        """The solver of ``deck`` and ``trump`` (:func:`~euchre_env.agents.search.double_dummy_compiled.solver_for`:
        the compiled one where it applies and is built)."""
        solver = self._solvers[(deck, trump)] = solver_for(deck, trump, self._solvers.get((deck, trump)))
        return solver

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        totals, _ = self._totals(info)
        return max(totals, key=lambda a: (totals[a], -a))

    def explain(self, observation: Any, info: dict[str, Any]) -> tuple[int, str]:
        """``(action, why)``: the action :meth:`act` picks and the average values it compared."""
        totals, n = self._totals(info)
        action = max(totals, key=lambda a: (totals[a], -a))
        if n == 0:
            return action, "the only legal action"
        rules = require_information_state(info, "PIMCAgent").rules
        shown = ranked_values({a: t / n for a, t in totals.items()}, rules)
        return action, f"average hand margin for your team over {n} sampled deals: {shown}"

    def _totals(self, info: dict[str, Any]) -> tuple[dict[int, float], int]:
        """Each legal action's value summed over the sampled deals, and their number (0: one legal action,
        nothing sampled)."""
        state = require_information_state(info, "PIMCAgent")
        legal = list(state.legal_actions)
        if not legal and info.get("action_mask") is not None:
            legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
        if not legal:
            raise ValueError("PIMCAgent.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return {legal[0]: 0.0}, 0
        rng = self._rng(state)
        double = state.rules.double_deck
        n = min(self.worlds, DOUBLE_DECK_WORLDS) if double else self.worlds
        sampler = WorldSampler(state)
        worlds = [sampler.sample(rng) for _ in range(n)]
        if state.phase == Phase.PLAY:
            return self._play_values(state, legal, worlds, DOUBLE_DECK_DEPTH if double else None), n
        if state.phase == Phase.GIVE_BACK:
            return self._give_back_values(state, legal, worlds, DOUBLE_DECK_DEPTH if double else None), n
        return self._call_values(state, legal, worlds, rng, 1 if double else None), n

    def _play_values(self, info: InfoState, legal: list[int], worlds, depth: int | None) -> dict[int, float]:
        """Values of the cards that follow suit: under ``renege="penalize"`` the mask also allows reneges,
        which the solver (playing by the rules) never values, so PIMC never reneges."""
        rules = info.rules
        play_base = action_table(rules).play_base
        maker_team = team_of(info.maker)
        me = team_of(info.seat)
        solver = self._solver(rules.deck_spec, info.trump)
        totals = dict.fromkeys(info.honest_plays(legal, play_base), 0.0)
        for world in worlds:
            values = solver.card_values(world.hands, info.seat, maker_team, trick=info.trick, out=info.out,
                                        max_tricks=depth)
            for a in totals:
                made = info.tricks_won[maker_team] + values[a - play_base]
                totals[a] += _score(rules, made, maker_team, me, info)
        return totals

    def _give_back_values(self, info: InfoState, legal: list[int], worlds, depth: int | None) -> dict[int, float]:
        """Help without a trump to give back: each candidate card joins the bidder, who then plays the
        hand from the first lead with this seat sitting out; solved double-dummy in every world."""
        rules = info.rules
        give_base = action_table(rules).give_base
        maker_team = team_of(info.bidder)
        me = team_of(info.seat)
        out = [s == info.seat for s in range(len(info.out))]
        solver = self._solver(rules.deck_spec, info.trump)
        totals = dict.fromkeys(legal, 0.0)
        for world in worlds:
            for a in legal:
                hands = [list(h) for h in world.hands]
                hands[info.seat].remove(a - give_base)
                hands[info.bidder].append(a - give_base)
                made = solver.value(hands, info.bidder, maker_team, out, depth)
                totals[a] += _score(rules, made, maker_team, me, info)
        return totals

    def _call_values(self, info: InfoState, legal: list[int], worlds, rng, depth: int | None) -> dict[int, float]:
        """Each calling candidate's value summed over the worlds, each world's hand replayed to this decision."""
        bases = []
        for world in worlds:
            deal, discard = world_deal(info, world, rng)
            bases.append(self._replay(info, deal, discard))
        return self._values_from(info, legal, bases, depth)

    def _values_from(self, info: InfoState, legal: list[int], bases: list[GameState], depth: int | None
                     ) -> dict[int, float]:
        """Each calling candidate's value summed over ``bases`` (hands at this decision, every card known): the
        candidate applied, the calls still to come taken by :func:`rollout_action`, then solved double-dummy."""
        rules = info.rules
        me = team_of(info.seat)
        totals = dict.fromkeys(legal, 0.0)
        thresholds = scoring_thresholds(rules)
        for base in bases:
            cache: dict[tuple, float] = {}
            for a in legal:
                state = base.clone()
                state.apply(a)
                while not state.hand_over and state.phase != Phase.PLAY:
                    state.apply(rollout_action(state))
                if state.hand_over:  # thrown in (all passed, ace no face): no points
                    continue
                maker_team = team_of(state.maker)
                key = (state.trump, maker_team, tuple(map(tuple, state.hands)), state.current, tuple(state.out))
                made = cache.get(key)
                if made is None:
                    solver = self._solver(rules.deck_spec, state.trump)
                    if rules.is_bid:
                        made = solver.value(state.hands, state.current, maker_team, state.out, depth)
                    else:  # only euchre / made / march matter: two null-window searches
                        made = solver.value_at_thresholds(state.hands, state.current, maker_team, thresholds,
                                                          state.out)
                    cache[key] = made
                totals[a] += _score(rules, made, maker_team, me, state)
        return totals

    @staticmethod
    def _replay(info: InfoState, deal: dict[str, Any], discard: int | None) -> GameState:
        """The world's hand brought to the decision point: the deal, the calls, the hidden discard."""
        state = GameState(info.rules, 0, deal=deal, scores=list(info.scores))
        t = state.table

        def flush() -> None:
            while info.discard_due(state.phase, state.current):
                state.apply(t.discard_base + discard)

        for _, text in info.calls:
            flush()
            state.apply(t.from_str(text))
        flush()
        if state.phase != info.phase or state.current != info.seat:
            raise RuntimeError(f"PIMCAgent: replay reached {state.phase.name}/{state.current}, "
                               f"expected {info.phase.name}/{info.seat}")
        return state

