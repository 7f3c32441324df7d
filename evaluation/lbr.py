"""Local best response (LBR): how much a frozen agent concedes to a searcher that models it, with no training.

    euchre exploit rules --method lbr --deals 300            (docs/exploit.md#local-best-response-no-training)

The probe of Lisý and Bowling (2017), adapted to two teams. The frozen agent holds one team, both seats (it
partners itself); :class:`LBRAgent` holds the other, both seats, each instance reading only its own seat's
``InfoState``. At each of its decisions with more than one legal action:

1. **Worlds.** ``worlds`` deals consistent with what the seat knows, drawn uniformly
   (:class:`~euchre_env.agents.search.worlds.WorldSampler`, as PIMC draws them).
2. **Posterior.** Each world's hand is replayed on a ``GameState`` (the deal, the calls, the dealer's discard,
   the cards played), and at every decision the frozen agent made, a copy of the frozen agent is asked in that
   world: the world's weight is the product of the probabilities it gives the moves that were seen
   (:func:`policy_probability`: the uniform choice for ``random``, the softmax for a sampling network, else
   1 where the agent's own choice is the move seen and 0 elsewhere), each floored at ``floor`` of the uniform
   choice. The floor keeps a world alive where the copy decides otherwise than the agent at the table did
   (PIMC's worlds depend on its seed). The partner's moves weigh nothing: the partner is the probe, whose
   choices are not modelled. With a deterministic agent and no floor this is the exact posterior over the
   worlds drawn (``tests/evaluation/test_lbr.py`` checks it against brute-force enumeration).
3. **Rollouts.** In every weighted world (or, where ``rollouts`` is fewer, in that many drawn by weight:
   systematic resampling spends them on the likely worlds) each legal action is applied and the hand played
   out: the frozen agent (or ``rollout_frozen``, a cheaper stand-in: say so where it is used) in its seats,
   the default policy in the probe's, each seat from its own view of the world.
4. **Choice.** The action of best mean hand margin, where it beats the default policy's own choice by more than
   ``confidence`` standard errors of the paired difference; else the default's choice (``confidence=0``: plain
   argmax, LBR as published, which follows the noise of a few rollout worlds: see :meth:`LBRAgent._choose`).

The default policy is the frozen agent itself (``default=None``; its stand-in in the rollouts), so the probe
is the agent plus the one-decision deviations its own model says pay: a margin of zero means no such deviation
was found, whatever the agent's strength. A fixed default (``default="rules"``, LBR's "call" policy in spirit)
measures something else: the default's own margin against the agent plus what the deviations add (against an
agent stronger than the default it can lose). The probe is one decision deep: it bounds what a searcher that knows
the agent's policy wins, not the exploitability itself.

The report is a duplicate match of the probe against the agent (:func:`exploitability`, the evaluation's
statistics): the probe's points minus the agent's per hand, with a 95% interval over the duplicate pairs.
Cost: ``worlds`` replays (each asking the frozen agent at each of its decisions) and ``rollouts`` x legal actions
hands played out, per decision, one by one on the reference engine: against ``rules`` 1.6 s a deal (two
workers on a busy 2-core machine), against a network about ten times that, against PIMC-50 every frozen
decision is a search (``rollout_frozen="pimc:10"`` in the rollouts). Single hands only, and not Bid Euchre (the
help exchange moves hidden cards, which the world replay does not model): refused in one line. Reproducible:
each decision's generator is seeded from the agent's seed and the information state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from euchre_env.agents.base import ranked_values, require_information_state
from euchre_env.agents.random_agent import RandomAgent
from euchre_env.agents.registry import build_for_rules
from euchre_env.agents.search.worlds import World, WorldSampler, decision_rng, paired_gains, resample, world_deal
from euchre_env.evaluation.evaluate import evaluate
from euchre_env.evaluation.results import MatchResult
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.game.scoring import hand_reward
from euchre_env.game.seats import team_of
from euchre_env.views.decision import ask_agent, decision_inputs
from euchre_env.views.infostate import InfoState

DEFAULT_WORLDS = 32  # posterior sample per decision
DEFAULT_ROLLOUTS = 32  # of those, the worlds each legal action is played out in (all 32: no resampling)
DEFAULT_CONFIDENCE = 2.0  # leave the default policy's choice only for an action better by this many standard errors
FLOOR = 0.05  # each frozen move's probability is at least this share of the uniform choice among its legal ones
NO_BID_EUCHRE = ("LBRAgent: Bid Euchre is not covered (the help exchange moves hidden cards, which the world replay "
                 "does not model)")


def policy_probability(agent: Any, state: GameState, action: int) -> float:
    """The probability that ``agent`` plays ``action`` for the seat to act in ``state``: its policy where the
    probe knows it (uniform random play; a network's ``action_probabilities``, the softmax it samples from or 1 at
    its greedy choice), else 1 or 0 by the agent's own choice (a deterministic agent: rules, a search with its
    seeded generator)."""
    if isinstance(agent, RandomAgent):
        legal = state.legal_actions()
        return 1.0 / len(legal) if action in legal else 0.0
    own = getattr(agent, "action_probabilities", None)
    if callable(own):
        _, info = decision_inputs(state, None, False)
        return float(own(info["information_state"])[action])
    return float(ask_agent(agent, state, None) == action)


class LBRAgent:
    """The local best response to ``frozen`` (an agent spec) for one seat; see the module docstring."""

    name = "lbr"
    needs_observation = False

    def __init__(self, frozen: str, worlds: int = DEFAULT_WORLDS, rollouts: int = DEFAULT_ROLLOUTS,
                 default: str | None = None, rollout_frozen: str | None = None, floor: float = FLOOR,
                 confidence: float = DEFAULT_CONFIDENCE, rules: Rules | None = None, seed: int | None = None,
                 name: str | None = None) -> None:
        for what, value in (("worlds", worlds), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"LBRAgent: {what} must be an integer of at least 1, got {value!r}")
        if not 0.0 <= floor <= 1.0:
            raise ValueError(f"LBRAgent: floor must be between 0 and 1, got {floor!r}")
        if rules is not None and rules.is_bid:
            raise ValueError(NO_BID_EUCHRE)
        self.frozen_spec, self.worlds, self.rollouts, self.floor = frozen, worlds, rollouts, float(floor)
        self.confidence = float(confidence)
        # The posterior asks its own copy of the frozen agent; the rollouts theirs (or a cheaper stand-in).
        self._frozen = build_for_rules(frozen, rules)
        self._rollout_frozen = build_for_rules(rollout_frozen or frozen, rules)
        # The default policy: at the decision (the guard's baseline) and in the probe's seats of the rollouts.
        self._default = self._frozen if default is None else build_for_rules(default, rules)
        self._rollout_default = self._rollout_frozen if default is None else self._default
        if name is not None:
            self.name = name
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed
        base = 0 if seed is None else int(seed)
        for k, agent in enumerate((self._frozen, self._rollout_frozen, self._default)):
            agent.reset(base * 3 + k)  # a random frozen agent's rollouts: one stream per deal and seat

    def check_rules(self, rules: Rules) -> None:
        """Raise unless every agent the probe runs plays ``rules`` (and they are not Bid Euchre)."""
        if rules.is_bid:
            raise ValueError(NO_BID_EUCHRE)
        for agent in (self._frozen, self._rollout_frozen, self._default):
            check = getattr(agent, "check_rules", None)
            if check is not None:
                check(rules)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        action, _, _ = self.search(require_information_state(info, "LBRAgent"))
        return action

    def explain(self, observation: Any, info: dict[str, Any]) -> tuple[int, str]:
        """``(action, why)``: the action :meth:`act` picks, the mean margins it compared and the posterior's
        effective number of worlds."""
        state = require_information_state(info, "LBRAgent")
        action, values, ess = self.search(state)
        if values is None:
            return action, "the only legal action"
        return action, (f"mean hand margin over {self.rollouts} posterior worlds (effective {ess:.1f}): "
                        f"{ranked_values(values, state.rules)}")

    # ------------------------------------------------------------------ the search
    def _rng(self, info: InfoState) -> np.random.Generator:
        return decision_rng(self.seed, info)

    def search(self, info: InfoState) -> tuple[int, dict[int, float] | None, float]:
        """The action :meth:`act` plays at ``info``, each legal action's mean margin for the seat's team over
        the rollout worlds (None: one legal action) and the posterior's effective number of worlds."""
        legal = list(info.legal_actions)
        if not legal:
            raise ValueError("LBRAgent.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return legal[0], None, 0.0
        rng = self._rng(info)
        bases, weights = self.posterior(info, rng=rng)
        ess = 1.0 / float(weights @ weights)
        if len(bases) > self.rollouts:
            picks, share = resample(weights, self.rollouts, rng), np.full(self.rollouts, 1.0 / self.rollouts)
        else:
            picks, share = np.arange(len(bases)), weights
        margins = np.array([[self._rollout(bases[i], a, info.seat) for a in legal] for i in picks])
        values = {a: float(v) for a, v in zip(legal, share @ margins)}
        return self._choose(legal, margins, share, bases[0]), values, ess

    def _choose(self, legal: list[int], margins: np.ndarray, share: np.ndarray, base: GameState) -> int:
        """The action of best mean margin, where it beats the default policy's own choice by more than
        ``confidence`` standard errors of the paired difference (the same worlds for every action); else the
        default's choice. Plain argmax over a few worlds follows the noise (the winner's curse): against ``rules``
        it deviated from the rules' call at 38% of the first-round calls, for an apparent gain of 0.29 points, and
        won nothing (+0.003 [-0.082, +0.089] over 300 deals)."""
        if self.confidence <= 0:
            return max(legal, key=lambda a: (float(share @ margins[:, legal.index(a)]), -a))
        mine = ask_agent(self._default, base, None)  # the seat's own view is the same in every world
        mean, se = paired_gains(margins, share, legal.index(mine))
        better = (mean > 0) & (mean > self.confidence * se)
        return legal[int(np.argmax(np.where(better, mean, -np.inf)))] if better.any() else mine

    def posterior(self, info: InfoState, worlds: list[World] | None = None, rng: np.random.Generator | None = None
                  ) -> tuple[list[GameState], np.ndarray]:
        """The worlds at ``info``'s decision (each a ``GameState`` of the hand replayed there) and their posterior
        weights (summing to 1). ``worlds``: these worlds instead of ``self.worlds`` drawn uniformly (a test
        enumerates them all); one in which the moves seen are illegal gets no state and is left out."""
        rng = rng if rng is not None else self._rng(info)
        if worlds is None:
            sampler = WorldSampler(info)
            worlds = [sampler.sample(rng) for _ in range(self.worlds)]
        bases, logs = [], []
        for world in worlds:
            deal, discard = world_deal(info, world, rng)
            state, log_weight = self._replay(info, deal, discard)
            if state is not None:
                bases.append(state)
                logs.append(log_weight)
        if not bases:
            raise ValueError("LBRAgent: no world consistent with the moves seen")
        logs_arr = np.array(logs)
        if not np.isfinite(logs_arr).any():  # no world explains the frozen moves (floor 0): every one alike
            logs_arr = np.zeros(len(bases))
        weights = np.exp(logs_arr - logs_arr.max())
        return bases, weights / weights.sum()

    def _replay(self, info: InfoState, deal: dict[str, Any], discard: int | None) -> tuple[GameState | None, float]:
        """The world's hand brought to the decision, and the log of the frozen agent's probability of its moves
        there (None, -inf: a move seen is illegal in this world)."""
        state = GameState(info.rules, 0, deal=deal, scores=list(info.scores))
        t = state.table
        moves = info.seen_moves(t.play_base)
        mine, log_weight, k = team_of(info.seat), 0.0, 0
        while True:
            if info.discard_due(state.phase, state.current):
                action = t.discard_base + discard  # the world's hidden (or the seat's own) discard
            elif k < len(moves):
                action, k = moves[k], k + 1
            else:
                break
            legal = state.legal_actions()
            if action not in legal:
                return None, -math.inf
            if team_of(state.current) != mine and len(legal) > 1:
                p = policy_probability(self._frozen, state, action)
                p = (1.0 - self.floor) * p + self.floor / len(legal)
                log_weight += math.log(p) if p > 0 else -math.inf
            state.apply(action)
        if state.phase != info.phase or state.current != info.seat:
            raise RuntimeError(f"LBRAgent: the replay reached {state.phase.name}/seat {state.current}, expected "
                               f"{info.phase.name}/seat {info.seat}")
        return state, log_weight

    def _rollout(self, base: GameState, action: int, seat: int) -> float:
        """``action`` applied in ``base`` and the hand played out (the frozen agent against the default policy);
        the hand margin of ``seat``'s team."""
        state = base.clone()
        state.apply(action)
        mine = team_of(seat)
        while not state.hand_over:
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply(legal[0])
                continue
            agent = self._rollout_default if team_of(state.current) == mine else self._rollout_frozen
            state.apply(ask_agent(agent, state, None))
        return float(hand_reward(state.hand_result["points"], seat))


@dataclass(frozen=True)
class LBRSpec:
    """The probe as a picklable agent factory for :func:`~euchre_env.evaluation.evaluate.evaluate` (each seat of
    each worker builds its own :class:`LBRAgent`); ``name`` labels the match's A side."""

    frozen: str
    worlds: int = DEFAULT_WORLDS
    rollouts: int = DEFAULT_ROLLOUTS
    default: str | None = None
    rollout_frozen: str | None = None
    confidence: float = DEFAULT_CONFIDENCE
    rules: Rules | None = None

    @property
    def name(self) -> str:
        extra = f", c={self.confidence:g}" if self.confidence != DEFAULT_CONFIDENCE else ""
        extra += f", default {self.default}" if self.default else ""
        extra += f", rollouts by {self.rollout_frozen}" if self.rollout_frozen else ""
        return f"lbr({self.worlds}/{self.rollouts}{extra})"

    def __call__(self, seed: int | None = None) -> LBRAgent:
        return LBRAgent(self.frozen, self.worlds, self.rollouts, self.default, self.rollout_frozen,
                        confidence=self.confidence, rules=self.rules, seed=seed, name=self.name)


def exploitability(frozen: str, rules: Rules, deals: int, seed: int, worlds: int = DEFAULT_WORLDS,
                   rollouts: int = DEFAULT_ROLLOUTS, rollout_frozen: str | None = None, default: str | None = None,
                   confidence: float = DEFAULT_CONFIDENCE, workers: int = 2, progress: bool | None = False
                   ) -> MatchResult:
    """The probe's duplicate match against ``frozen`` over ``deals`` single-hand deals of ``seed``: A is the probe,
    B the agent, so the margin (with its 95% interval) is what the probe wins from the agent per hand.
    ValueError in one line for a bad spec, count or rule set."""
    if deals < 2:
        raise ValueError(f"deals must be at least 2 (an interval needs two duplicate pairs), got {deals}")
    spec = LBRSpec(frozen, worlds, rollouts, default, rollout_frozen, confidence, rules)
    spec(None).check_rules(rules)  # a bad spec or rule set fails here, once, before any worker starts
    return evaluate(spec, frozen, rules, deals, seed, "hand", workers, progress=progress)
