"""Network-guided search: determinized worlds weighted by the network's belief, each candidate action rolled out
by the network in every seat, on the batched engine.

    agent = make_agent("search:32:checkpoints/knock_long.pt")     # 32 worlds a decision
    agent = make_agent("search:checkpoints/knock_long.pt")        # the default, 32

At a decision with more than one legal action, ``GuidedSearchAgent`` reads only its seat's ``InfoState``:

1. **Worlds.** It draws ``worlds`` deals consistent with what the seat knows, uniformly
   (:class:`~euchre_env.agents.search.worlds.WorldSampler`, as PIMC does), with the hidden discard of the dealer
   drawn from the world's pile.
2. **Belief.** Each world is replayed on a :class:`~euchre_env.envs.vector.VectorEuchre` (one game per world and
   candidate action), and every move another seat made so far is scored by the network in that seat's view of
   the world: the world's weight is the product of those probabilities, each floored at ``BELIEF_FLOOR`` of the
   uniform choice (a move the network would never make does not zero a world: the other seat is not the
   network). Worlds in which the calls and plays seen are likely count more; ``belief=False`` weighs them
   equally, as PIMC does.
3. **Rollouts.** In each world each candidate is applied and the hand is played out by the network (greedy) in
   all four seats, each from its own information in that world: no seat sees another's cards, so the rollout
   has none of PIMC's strategy fusion. The candidate's value is the weighted mean of the seat's team margin of
   the hand (points for minus points against, the env's hand reward).
4. **Only where it pays.** The network's own choice is played unless another action beats it in the worlds by
   more than ``confidence`` standard errors of the paired difference (all actions share the worlds); then the
   best of those. Plain argmax of the means played worse than the network itself: 32 worlds leave each mean a
   noisy estimate, and most decisions' differences are smaller than that noise.

The network is the prior twice over: it proposes the rollout policy of every seat and weighs the worlds. Leaves
are the hand's end (Euchre hands are short: at most about twenty decisions), so no value network is needed; the
trainers' critics see hidden cards (the oracle critic), which a determinized leaf could use, but the shipped
checkpoints keep the actor only.

Cost: one batched forward pass per step of the replay (the worlds) and of the rollouts (worlds x candidates),
about 20-40 ms a decision with 32 worlds on one core (docs/agents.md#network-guided-search). Rollouts start at
the score 0-0 (the batched engine deals hands, not scores); the seat's own decision sees the true score only
through the candidates' values. Bid Euchre is not covered (the help exchange moves hidden cards between hands,
which the world replay does not model): a ``bid`` rule set is refused in one line.

Reproducible: as PIMC, each decision's generator is seeded from the agent's seed and the information state.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from euchre_env.agents.base import ranked_values, require_information_state
from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.search.worlds import WorldSampler, decision_rng, paired_gains, world_deal
from euchre_env.compiled import layout as K
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.views.infostate import InfoState

DEFAULT_WORLDS = 32
DEFAULT_CONFIDENCE = 2.0  # leave the network's choice only for an action better by this many standard errors
BELIEF_FLOOR = 0.1  # each observed move's probability is at least this share of a uniform choice among its legal ones


class GuidedSearchAgent:
    """Determinized search with network rollouts and a network belief; see the module docstring."""

    name = "search"
    needs_observation = False

    def __init__(self, checkpoint: str | NeuralAgent, worlds: int = DEFAULT_WORLDS, belief: bool = True,
                 confidence: float = DEFAULT_CONFIDENCE, seed: int | None = None, name: str | None = None) -> None:
        kind = type(self).__name__  # the searches built on this one check their arguments here too
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"{kind}: worlds must be an integer of at least 1, got {worlds!r}")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or math.isnan(confidence):
            raise ValueError(f"{kind}: the gate's standard errors must be a number (-inf: no gate), "
                             f"got {confidence!r}")
        self.network = checkpoint if isinstance(checkpoint, NeuralAgent) else NeuralAgent(checkpoint)
        if not self.network.greedy:
            raise ValueError(f"{kind}: the rollouts need a greedy network (NeuralAgent(greedy=True))")
        self.worlds = worlds
        self.weigh_by_policy = bool(belief)  # each world weighed by the network's probability of the moves seen
        self.confidence = float(confidence)
        self.rules = self.network.rules
        if self.rules.is_bid:
            raise ValueError(f"{kind}: {self.network.source!r} plays Bid Euchre, which the search does not "
                             "cover (the help exchange); use the checkpoint itself or pimc:N")
        if name is not None:
            self.name = name
        self._twin = self.network.batch_twin(self.rules)
        self._engines: dict[int, tuple[VectorEuchre, Any]] = {}  # by number of games: worlds x legal actions
        # The decisions searched, and those at which the search left the network's choice, by phase name: how
        # often the search pays (experiments/search_overrides.py reports them).
        self.searched: Counter[str] = Counter()
        self.changed: Counter[str] = Counter()
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed

    def check_rules(self, rules: Rules) -> None:
        """Raise unless the network was trained for ``rules`` (the search plays its rules only)."""
        self.network.check_rules(rules)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        action, _ = self.search(require_information_state(info, type(self).__name__))
        return action

    def explain(self, observation: Any, info: dict[str, Any]) -> tuple[int, str]:
        """``(action, why)``: the action :meth:`act` picks and the weighted mean margins it compared."""
        state = require_information_state(info, type(self).__name__)
        action, values = self.search(state)
        if values is None:
            return action, "the only legal action"
        return action, (f"mean hand margin for your team over {self.worlds} weighted worlds: "
                        f"{ranked_values(values, state.rules)}")

    # ------------------------------------------------------------------ the search
    def _rng(self, info: InfoState) -> np.random.Generator:
        return decision_rng(self.seed, info)

    def search(self, info: InfoState) -> tuple[int, dict[int, float] | None]:
        """The action :meth:`act` plays at ``info`` and each candidate's value, the weighted mean margin for the
        seat's team (None: one legal action, nothing searched)."""
        self.network.check_rules(info.rules)
        legal = list(info.legal_actions)
        if not legal:
            raise ValueError("GuidedSearchAgent.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return legal[0], None
        rng = self._rng(info)
        sampler = WorldSampler(info)
        deals, discards = [], []
        for _ in range(self.worlds):
            deal, discard = world_deal(info, sampler.sample(rng), rng)
            deals.append(deal)
            discards.append(-1 if discard is None else discard)
        n_worlds, n_moves = self.worlds, len(legal)
        venv, policy = self._engine(n_worlds * n_moves)
        venv.reset(options={"deals": [d for d in deals for _ in range(n_moves)]})
        log_weight = self._replay(info, venv, policy, np.repeat(discards, n_moves), n_moves)
        margins = self._rollouts(info, venv, policy, np.tile(legal, n_worlds), rng)
        weight = np.exp(log_weight - log_weight.max()) if self.weigh_by_policy else np.ones(n_worlds)
        weight /= weight.sum()
        per_world = margins.reshape(n_worlds, n_moves)
        values = {a: float(v) for a, v in zip(legal, weight @ per_world)}
        return self._choose(info, legal, per_world, weight), values

    def _choose(self, info: InfoState, legal: list[int], per_world: np.ndarray, weight: np.ndarray) -> int:
        """The network's own action, unless another one beats it in the worlds by more than ``confidence``
        standard errors of the paired difference (the same worlds for every action): then the best of those."""
        mine = self.network.act(None, {"information_state": info})
        mean, se = paired_gains(per_world, weight, legal.index(mine))
        better = (mean > 0) & (mean > self.confidence * se)
        self.searched[info.phase.name] += 1
        if not better.any():
            return mine
        self.changed[info.phase.name] += 1
        return legal[int(np.argmax(np.where(better, mean, -np.inf)))]

    def _engine(self, games: int) -> tuple[VectorEuchre, Any]:
        """A batched engine of ``games`` games and the network's twin on it, built once per size (about 8 ms)."""
        if games not in self._engines:
            venv = VectorEuchre(self.rules, games, observation="none")
            self._engines[games] = venv, self._twin(venv)
        return self._engines[games]

    def _replay(self, info: InfoState, venv: VectorEuchre, policy: Any, discards: np.ndarray, n_moves: int
                ) -> np.ndarray:
        """Bring every game to the seat's decision: the public calls, the hidden discard of each world, the cards
        played. Returns each world's log belief weight: the log probabilities the network gave the other seats'
        moves in that world (its first game stands for the world)."""
        moves = info.seen_moves(venv.table.play_base)
        every = np.arange(venv.num_envs)
        firsts = every[::n_moves]
        log_weight = np.zeros(len(firsts))
        st = venv.engine.arrays.st
        k = 0
        while True:
            phase, seat = Phase(int(st[0, K.PH])), int(st[0, K.CUR])
            if info.discard_due(phase, seat):
                actions = venv.table.discard_base + discards  # the world's hidden (or the seat's own) discard
            elif k < len(moves):
                actions = np.full(venv.num_envs, moves[k], np.int64)
                k += 1
            else:
                break
            if self.weigh_by_policy and seat != info.seat:
                legal = venv.masks()[firsts].sum(1)
                p = policy.probabilities(firsts, actions[firsts])
                log_weight += np.log((1 - BELIEF_FLOOR) * p + BELIEF_FLOOR / legal)
            venv.step(actions)
        if phase != info.phase or seat != info.seat:
            raise RuntimeError(f"GuidedSearchAgent: the replay reached {phase.name}/seat {seat}, expected "
                               f"{info.phase.name}/seat {info.seat}")
        return log_weight

    def _rollouts(self, info: InfoState, venv: VectorEuchre, policy: Any, candidates: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        """Apply each game's candidate, then let the network play every seat until each game's hand ends; each
        game's margin for the seat's team (the seat's hand reward)."""
        margins = np.zeros(venv.num_envs)
        pending = np.ones(venv.num_envs, bool)
        every = np.arange(venv.num_envs)
        actions = candidates
        while True:
            _, _, _, rewards, _, step_info = venv.step(actions)
            ended = step_info["hand_over"] & pending
            margins[ended] = rewards[ended, info.seat]
            pending &= ~ended
            if not pending.any():
                return margins
            actions = policy.actions(every, venv.masks(), rng)
