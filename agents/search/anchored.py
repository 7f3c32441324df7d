"""Anchored search: the network proposes, double-dummy values decide, on worlds the network finds likely.

    agent = make_agent("anchored:32:checkpoints/knock_150m.pt")   # 32 worlds for the big decisions
    agent = make_agent("anchored:checkpoints/knock_150m.pt")      # the default, 32

The network-guided search (``search:N:CKPT``, :mod:`euchre_env.agents.search.guided`) values each candidate by
rollouts of the same network it searches around, so the values share its mistakes and it overrules it in about
1% of its decisions. ``AnchoredSearchAgent`` keeps the network as the prior and the belief but takes its values
from a signal the network does not produce. At a decision with more than one legal action, reading only its
seat's ``InfoState``:

1. **Worlds** (``worlds_from``): ``"policy"`` draws them uniformly
   (:class:`~euchre_env.agents.search.worlds.WorldSampler`, as PIMC) and weighs each by the network's probability
   of every move the other seats made in it (the guided search's replay on a ``VectorEuchre``, floored at
   ``BELIEF_FLOOR``); ``"belief"`` samples them from the network's belief head (agents/neural/belief.py):
   ``BELIEF_POOL`` x N uniform consistent worlds, N of them kept by systematic resampling in proportion to the
   head's probability of every hidden card's place there (importance resampling: the head's beliefs restricted to
   the deals the seat's knowledge allows), then weighed equally; ``"uniform"`` weighs uniform worlds equally.
   The default, ``"auto"``: ``"belief"`` for a network with a belief head, else ``"policy"``.
2. **Values** are the seat team's points margin of the hand (``hand_value``: euchres and marches count), solved
   double-dummy in each world. A card play: the double-dummy value of each legal card on the world's current
   hands and the trick in progress. A calling decision (order / pass / alone, name, defend alone, the dealer's
   discard): the candidate is applied, the greedy network takes the calling decisions still to come for every
   seat (each from its own view of the world, on the batched engine) until play starts, then the hand is
   solved double-dummy from the first lead. A hand thrown in is worth 0. Points only: unlike PIMC, no
   tie-break on tricks, so a card that takes a trick more but no point more is no gain. ``plies`` (4 by
   default, ``DEFAULT_PLIES``): the greedy network plays that many cards more, every seat from its own view of
   its world, before the solve (for card plays too: the candidate, then ``plies`` network plays): less of the
   solver's clairvoyance (strategy fusion) in the values, at the price of the network's own mistakes there.
   ``plies=None``: no solve, the network plays the hand out (its own rollouts; the call search,
   :mod:`euchre_env.agents.search.calls`).
3. **The network as prior**: its own action is played unless another action's weighted mean gain over it, on
   the same worlds, has a lower confidence bound above zero (mean - ``z`` x standard error, the effective
   sample size taken from the weights; ``z`` 1.64 by default, one-sided 95%); then the best such action.
   ``z=-inf`` plays the argmax of the weighted means (the network kept on ties).
4. **Budget**: ``worlds`` (N) worlds for calls, going alone, the discard and the hand's opening lead; N // 4
   (at least 4, at most N) for the other card plays. ``searched`` and ``changed`` count the decisions searched
   and overruled by kind: ``call``, ``alone`` (the defend-alone decision, or a call where the network makes
   trump and going alone is open), ``discard``, ``lead``, ``play``. ``kinds`` (all five by default): the kinds
   searched; at the others the network plays, unsearched.

Cost per decision (``OMP_NUM_THREADS=1 python benchmarks/bench_pimc.py --agent
anchored:32:checkpoints/knock_belief.pt --hands 8``, knock, all four seats, the compiled solver, 4 plies, belief
worlds, one core of a 2-core machine busy with another job, 2026-12-06): median 8.9 ms a card play (max 40 ms),
38 ms a calling decision (max 408 ms). The solver is the one PIMC uses
(:func:`~euchre_env.agents.search.double_dummy_compiled.solver_for`: the compiled twin where its C extension is
built, else the Python one, about ten times slower); a call pays for one solve per world and candidate (cached
when two reach the same position).

What it does not do: past its ``plies`` the double-dummy values see every card (PIMC's strategy fusion and its
optimism; the belief only moves which worlds count); the network's later calls are taken as they are (no
search over them); the game score is ignored (every value is the hand's margin); Bid Euchre is refused in one
line (the help exchange is not replayed), as is a spec with fewer than one world. Reproducible: each decision's
generator is seeded from the agent's seed and the information state, as the guided search's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from euchre_env.agents.base import ranked_values, require_information_state
from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.search.double_dummy import hand_value
from euchre_env.agents.search.double_dummy_compiled import solver_for
from euchre_env.agents.search.guided import GuidedSearchAgent
from euchre_env.agents.search.worlds import World, WorldSampler, paired_gains, resample, world_deal, world_places
from euchre_env.compiled import layout as K
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.actions import NAME, ORDER, action_table
from euchre_env.game.phases import Phase
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.views.infostate import InfoState

DEFAULT_WORLDS = 32
DEFAULT_Z = 1.64  # one-sided 95%: leave the network only for a gain whose lower bound is above zero
MIN_PLAY_WORLDS = 4  # the worlds of a card play other than the opening lead: N // 4, at least this
EPS = 1e-9  # gains below this are ties
# The network's card plays before a solve: 4 (one trick) had the best paired gain over the network of the variants
# tried on their own seed (0, 4, 8 plies; docs/agents.md#the-anchored-searchs-gate-and-worlds-chosen-on-a-seed-of-
# their-own), within noise of 0.
DEFAULT_PLIES = 4
WORLDS_FROM = ("auto", "belief", "policy", "uniform")  # how the worlds are drawn and weighed (the module docstring)
KINDS = ("call", "alone", "discard", "lead", "play")  # the decision kinds (``AnchoredSearchAgent.kind``)
BELIEF_POOL = 8  # worlds="belief": uniform worlds drawn per world kept
BELIEF_MIN = 1e-6  # a place the head rules out still leaves a consistent world a chance


class AnchoredSearchAgent(GuidedSearchAgent):
    """The network's action unless double-dummy values on belief-weighted worlds beat it; see the module
    docstring."""

    name = "anchored"
    def __init__(self, checkpoint: str | NeuralAgent, worlds: int = DEFAULT_WORLDS, z: float = DEFAULT_Z,
                 worlds_from: str = "auto", plies: int | None = DEFAULT_PLIES, kinds: Sequence[str] = KINDS,
                 seed: int | None = None, name: str | None = None) -> None:
        network = checkpoint if isinstance(checkpoint, NeuralAgent) else NeuralAgent(checkpoint)
        if worlds_from not in WORLDS_FROM:
            raise ValueError(f"{type(self).__name__}: worlds_from must be one of {', '.join(map(repr, WORLDS_FROM))}, "
                             f"got {worlds_from!r}")
        if worlds_from == "auto":
            worlds_from = "belief" if network.belief is not None else "policy"
        if worlds_from == "belief" and network.belief is None:
            raise ValueError(f"{type(self).__name__}: {network.source!r} has no belief head to draw worlds from "
                             "(train one with ppo.belief_coef; configs/knock_belief.yaml)")
        if plies is not None and (isinstance(plies, bool) or not isinstance(plies, int) or plies < 0):
            raise ValueError(f"{type(self).__name__}: plies must be an integer of at least 0 or None (no solve), "
                             f"got {plies!r}")
        if isinstance(kinds, str) or not isinstance(kinds, (list, tuple, set, frozenset)) or not kinds \
                or set(kinds) - set(KINDS):
            raise ValueError(f"{type(self).__name__}: kinds must be a non-empty list of {', '.join(KINDS)}, "
                             f"got {kinds!r}")
        self.worlds_from = worlds_from
        self.plies = plies
        self.kinds = frozenset(kinds)
        # the worlds and z are checked there, as the guided search's worlds and confidence (z here)
        super().__init__(network, worlds, belief=worlds_from == "policy", confidence=z, seed=seed, name=name)
        self._solvers: dict[int, Any] = {}  # by trump; exact values, so reuse across decisions changes nothing
        self._table = action_table(self.rules)
        self.last_worlds = 0  # the worlds of the last decision searched

    def explain(self, observation: Any, info: dict[str, Any]) -> tuple[int, str]:
        """``(action, why)``: the action :meth:`act` picks and the weighted mean margins it compared."""
        state = require_information_state(info, type(self).__name__)
        action, values = self.search(state)
        if values is None:
            return action, ("the only legal action" if len(state.legal_actions) == 1 else
                            f"the network's choice (a {self.kind(state, action)} decision, not searched)")
        how = "the network's rollouts'" if self.plies is None else "double-dummy"
        return action, (f"{how} mean hand margin for your team over {self.last_worlds} weighted worlds: "
                        f"{ranked_values(values, state.rules)}")

    # ------------------------------------------------------------------ the search
    def kind(self, info: InfoState, mine: int) -> str:
        """The decision's kind (``call``, ``alone``, ``discard``, ``lead``, ``play``) given the network's action."""
        if info.phase == Phase.PLAY:
            return "play" if info.tricks or info.trick else "lead"
        if info.phase == Phase.DISCARD:
            return "discard"
        if info.phase == Phase.DEFEND:
            return "alone"
        acts = self._table.actions
        if acts[mine].kind in (ORDER, NAME) and any(acts[a].alone for a in info.legal_actions):
            return "alone"
        return "call"

    def budget(self, kind: str) -> int:
        """The worlds a decision of ``kind`` gets."""
        return self.worlds if kind != "play" else min(self.worlds, max(MIN_PLAY_WORLDS, self.worlds // 4))

    def search(self, info: InfoState) -> tuple[int, dict[int, float] | None]:
        """The action :meth:`act` plays at ``info`` and each candidate's weighted mean margin for the seat's team
        (None: one legal action, or a kind not in ``kinds``: nothing searched)."""
        self.network.check_rules(info.rules)
        legal = list(info.legal_actions)
        if not legal:
            raise ValueError(f"{type(self).__name__}.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return legal[0], None
        mine = self.network.act(None, {"information_state": info})
        kind = self.kind(info, mine)
        if kind not in self.kinds:
            return mine, None
        n = self.last_worlds = self.budget(kind)
        rng = self._rng(info)
        worlds, deals, discards = self.draw(info, n, rng)
        if info.phase == Phase.PLAY and self.plies == 0:
            candidates = info.honest_plays(legal, self._table.play_base)
            if self.weigh_by_policy:  # the replay only weighs the worlds here: the solver reads the worlds' hands
                venv, policy = self._engine(n)
                venv.reset(options={"deals": deals})
                log_weight = self._replay(info, venv, policy, discards, 1)
            else:
                log_weight = np.zeros(n)
            per_world = self.play_values(info, candidates, worlds)
        else:
            candidates = info.honest_plays(legal, self._table.play_base) if info.phase == Phase.PLAY else legal
            k = len(candidates)
            venv, policy = self._engine(n * k)
            venv.reset(options={"deals": [d for d in deals for _ in range(k)]})
            log_weight = self._replay(info, venv, policy, np.repeat(discards, k), k)
            per_world = self.rollout_values(info, venv, policy, np.tile(candidates, n), rng).reshape(n, k)
        weight = np.exp(log_weight - log_weight.max()) if self.weigh_by_policy else np.ones(n)
        weight /= weight.sum()
        values = {a: float(v) for a, v in zip(candidates, weight @ per_world)}
        return self._gate(kind, mine, candidates, per_world, weight), values

    def draw(self, info: InfoState, n: int, rng: np.random.Generator
             ) -> tuple[list[World], list[dict[str, Any]], np.ndarray]:
        """``n`` worlds, their deals and the dealer's discard in each (-1: none): uniform, or resampled from a pool
        by the belief head (``worlds_from="belief"``)."""
        sampler = WorldSampler(info)
        if self.worlds_from == "belief":
            pool = [sampler.sample(rng) for _ in range(BELIEF_POOL * n)]
            log_belief = np.log(np.maximum(self.network.card_beliefs(info), BELIEF_MIN))
            n_ids = info.rules.deck_spec.num_ids
            log_weight = np.array([float((world_places(w, info.seat, n_ids) * log_belief).sum()) for w in pool])
            weight = np.exp(log_weight - log_weight.max())
            chosen = [pool[i] for i in resample(weight / weight.sum(), n, rng)]
        else:
            chosen = [sampler.sample(rng) for _ in range(n)]
        worlds, deals, discards = [], [], []
        for world in chosen:
            deal, discard = world_deal(info, world, rng)
            worlds.append(world)
            deals.append(deal)
            discards.append(-1 if discard is None else discard)
        return worlds, deals, np.asarray(discards, np.int64)

    def _gate(self, kind: str, mine: int, candidates: list[int], per_world: np.ndarray, weight: np.ndarray) -> int:
        """The network's action unless another's mean gain over it has a lower confidence bound above zero."""
        self.searched[kind] += 1
        if mine in candidates:
            mean, se = paired_gains(per_world, weight, candidates.index(mine))
            lower = mean if self.confidence == -np.inf else mean - self.confidence * se
            better = (mean > EPS) & (lower > EPS)
            if not better.any():
                return mine
            choice = candidates[int(np.argmax(np.where(better, mean, -np.inf)))]
        else:  # the network reneges (renege="penalize"): the solver values honest cards only
            choice = candidates[int(np.argmax(weight @ per_world))]
        self.changed[kind] += 1
        return choice

    def _solver(self, trump: int) -> Any:
        solver = self._solvers[trump] = solver_for(self.rules.deck_spec, trump, self._solvers.get(trump))
        return solver

    def play_values(self, info: InfoState, candidates: list[int], worlds: list[World]) -> np.ndarray:
        """``[world, candidate]``: the seat team's margin of the hand when it plays each candidate card in each world
        and everyone then plays double-dummy."""
        rules, base = info.rules, self._table.play_base
        maker_team, me = team_of(info.maker), team_of(info.seat)
        solver = self._solver(info.trump)
        out = np.empty((len(worlds), len(candidates)))
        for i, world in enumerate(worlds):
            made = solver.card_values(world.hands, info.seat, maker_team, trick=info.trick, out=info.out)
            for j, a in enumerate(candidates):
                out[i, j] = hand_value(rules, info.tricks_won[maker_team] + made[a - base], maker_team, me,
                                       info.contract, info.maker_alone, info.defender_alone >= 0)
        return out

    def rollout_values(self, info: InfoState, venv: VectorEuchre, policy: Any, candidates: np.ndarray,
                       rng: np.random.Generator) -> np.ndarray:
        """Apply each game's candidate; the greedy network takes every calling decision left and then ``plies``
        card plays, each seat from its own view of its world; then each game's margin for the seat's team, solved
        double-dummy from there (a hand that ends first, or every hand with ``plies=None``: its own margin, 0 when
        thrown in)."""
        margins = np.zeros(venv.num_envs)
        observe = np.ones((venv.num_envs, NUM_SEATS), bool)
        st = venv.engine.arrays.st
        solved: dict[tuple, float] = {}
        plays = np.zeros(venv.num_envs, np.int64)  # the network's card plays so far, in each game
        games, actions = np.arange(venv.num_envs), candidates
        while games.size:
            _, _, _, rewards, _, step_info = venv.step_games(games, actions, observe)
            over = step_info["hand_over"][games]
            margins[games[over]] = rewards[games[over], info.seat]
            games = games[~over]
            leaf = (st[games, K.PH] == K.PLAY) & (plays[games] >= (np.inf if self.plies is None else self.plies))
            for g in games[leaf]:
                margins[g] = self._leaf(info, venv, int(g), solved)
            games = games[~leaf]
            if games.size:
                plays[games[st[games, K.PH] == K.PLAY]] += 1
                actions = policy.actions(games, venv.masks(), rng)
        return margins

    def _leaf(self, info: InfoState, venv: VectorEuchre, g: int, solved: dict[tuple, float]) -> float:
        """Game ``g`` in its play: the seat team's margin of the hand played double-dummy from there."""
        arrays = venv.engine.arrays
        row = arrays.st[g]
        trump, maker_team, to_play = int(row[K.TRUMP]), team_of(int(row[K.MAKER])), int(row[K.CUR])
        out = tuple(bool(row[K.OUT + s]) for s in range(NUM_SEATS))
        ids = np.arange(arrays.hands.shape[2])
        hands = tuple(tuple(np.repeat(ids, arrays.hands[g, s]).tolist()) for s in range(NUM_SEATS))
        done, n = int(row[K.NTR]), int(row[K.NCUR])
        trick = tuple((int(arrays.ts[g, done, j]), int(arrays.tc[g, done, j])) for j in range(n))
        key = (trump, maker_team, hands, to_play, out, trick)
        made = solved.get(key)
        if made is None:
            values = self._solver(trump).card_values(hands, to_play, maker_team, trick=trick, out=out).values()
            made = solved[key] = max(values) if team_of(to_play) == maker_team else min(values)
        return hand_value(info.rules, int(row[K.TW + maker_team]) + made, maker_team, team_of(info.seat), None,
                          bool(row[K.MALONE]), int(row[K.DEFALONE]) >= 0)
