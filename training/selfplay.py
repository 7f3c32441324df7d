"""Lockstep self-play: many games at once, one batched forward pass per step.

Every game steps at once on :class:`~euchre_env.envs.vector.VectorEuchre`, which hands the networks its
observation and mask arrays, exactly those of ``euchre_env.env`` with the same ``observation`` option; the
rule-based and random league agents decide for all their games from the batch's arrays, and games with
another scripted seat keep a reference :class:`~euchre_env.game.engine.GameState` in step for that agent,
which reads an ``InfoState`` (:class:`~euchre_env.envs.mirror.MirroredAgents`).

Action frames. With the structured observation a seat's action ids are in its canonical suit
frame (:class:`~euchre_env.views.structured.Frame`): the networks (learner and frozen snapshots) get the
mask in that frame, their sampled ids go back through ``Frame.to_absolute_action`` to the engine,
and the rollout records what the network saw (canonical masks and actions). A teacher's absolute
choice is recorded through ``Frame.to_canonical_action``. With the absolute observation the frame
is the identity. Scripted league agents act on the engine's absolute ids as in the env.

Oracle critic. With an :class:`~euchre_env.training.oracle.Oracle` each learner decision also
records the privileged features of its state (``Rollout.extra``) for the critic; the actor's
input is the observation alone. The critic chooses nothing, so its values (``Rollout.value``) are
computed in one batched pass over the rollout once the collection is over, not at every step.

Solver targets. With a :class:`~euchre_env.training.solver_targets.SolverTargets` a share of the
learner's play decisions also records the double-dummy value of each legal card on the true deal
(``Rollout.solver_target``, in the frame of the observation), the auxiliary head's regression targets.

Each game slot holds one game between two teams. Who holds them is drawn per game from the
league mix: ``"self"`` (the learner holds all four seats), ``"past"`` (a frozen snapshot of the
learner holds one team) or an agent spec such as ``"rules"`` (that agent holds one team); the
learner's team is drawn too, so it plays both team positions and every seat.

At every step each game advances to its next decision that needs a network: forced moves
(a single legal action) are applied at once and not recorded, scripted agents are asked
directly. Then the learner's pending decisions go through the network in one batch, and each
frozen snapshot's in one batch of its own.

Rewards. A hand ends with the team's points minus the other team's (the environment's
reward); each learner seat gets it, scaled, on its own last decision of the hand, so partners
share it. Every (game, seat, hand) is one episode for the returns: ``next_index`` links each
recorded decision to the same seat's next decision in the same hand (-1 after its last).

Devices. On the CPU the networks read the batch's arrays in place (their sparse first layer) and the draws are
the C sampler's. A network in the accelerator's dense form (``run.device`` other than ``cpu``) lives on its
device: each batched forward pass moves that batch's observations and masks there once, samples there with a
generator on that device, and only the chosen actions and their log-probabilities come back.

Games run whole (scores carry over from hand to hand, so the learner sees every score
situation) until the update's decision budget is reached; then each slot finishes the hand
in progress and stops. Every random choice of an update comes from generators seeded with
(seed, update), so an update's data depends only on the seed, the update number and the
weights: that is what makes a resumed run identical to an uninterrupted one.

Why one module: the collection fills the buffers with the rewards and league slots and reads top to bottom
as one loop; apart its pieces would share most of their state through arguments.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from euchre_env.agents.base import batch_twin
from euchre_env.agents.neural.network import ActorCritic, PolicyNet, sample_actions
from euchre_env.envs.mirror import MirroredAgents
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.engine import hand_reward, team_margin
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.training.oracle import Oracle
from euchre_env.training.solver_targets import SolverTargets
from euchre_env.views.structured import make_observer

LEARNER = "learner"
SELF = "self"
PAST = "past"
VALUE_BATCH = 4096  # rows a pass of the critic's values over a finished rollout


@dataclass
class Rollout:
    """The learner's decisions of one update, in the order they were made."""

    obs: np.ndarray  # [n, obs_size] float32, what the actor saw
    mask: np.ndarray  # [n, num_actions] bool, in the frame of the observation
    action: np.ndarray  # [n] int64, in the frame of the observation
    log_prob: np.ndarray  # [n] float32, under the policy that acted
    value: np.ndarray  # [n] float32
    reward: np.ndarray  # [n] float32, non-zero only on a seat's last decision of a hand
    next_index: np.ndarray  # [n] int64: the same seat's next decision in the same hand, or -1
    extra: np.ndarray  # [n, k] float32: the critic's privileged features (k = 0 without an oracle)
    hands: int = 0  # hands finished
    forced: int = 0  # learner moves with one legal action, applied without recording
    inference_seconds: float = 0.0  # time in the networks' forward passes (the rest is the game and encoding)
    margins: dict[str, list[float]] = field(default_factory=dict)  # opponent -> learner's hand margins
    # [n, num_actions] float32 in the frame of the observation: the scaled double-dummy value of each legal
    # card at the play decisions drawn for solver targets (training/solver_targets.py), NaN elsewhere;
    # None when the run has no solver targets.
    solver_target: np.ndarray | None = None
    # The collector's split of the rest:
    engine_seconds: float = 0.0  # in VectorEuchre: rules, observations, masks, deals
    scripted_seconds: float = 0.0  # in the scripted seats' agents and the reference games kept for them

    def __len__(self) -> int:
        return len(self.action)


@dataclass
class _Slot:
    seats: list[str]  # controller of each seat: LEARNER, "past:<k>" or an agent spec
    opponent: str  # what the learner plays in this game ("self", "past", "rules", ...)
    learner_team: int  # -1 in self-play
    last: list[int] = field(default_factory=lambda: [-1] * NUM_SEATS)  # seat's last recorded decision this hand


class SelfPlay:
    """Collects rollouts for ``model`` against the league's mix of opponents."""

    def __init__(self, rules: Rules, model: ActorCritic, num_games: int, mix: dict[str, float],
                 scripted: dict[str, Any], reward_scale: float, *, observation: str = "absolute",
                 oracle: Oracle | None = None, solver: SolverTargets | None = None,
                 solver_fraction: float = 0.0) -> None:
        self.rules = rules
        self.observation = observation
        self.model = model
        self.encoder = make_observer(rules, observation)  # what the networks get
        self.oracle = oracle
        self.solver = solver  # labels a solver_fraction of the learner's play decisions (not a teacher's)
        self.solver_fraction = solver_fraction
        self.extra_size = oracle.size if oracle is not None else 0
        self.num_games = num_games
        self.names = list(mix)
        weights = np.array([mix[k] for k in self.names], float)
        self.probs = weights / weights.sum()
        self.scripted = scripted  # agent spec -> agent (stateless between decisions, shared by the slots)
        # A scripted agent with a compiled twin (agents.base.batch_twin: the rule-based and the random one)
        # decides for all its games at once from the batch's arrays, with no reference game kept in step for
        # it; the twins are made with the collection's VectorEuchre (self._batched: their specs).
        self._batched: set[str] = set()
        self.reward_scale = reward_scale
        self.snapshots: list[tuple[str, PolicyNet]] = []  # (name, frozen actor), oldest first
        self.num_actions = model.num_actions
        # A hand records at most one decision per seat per calling step, discard/exchange and trick.
        self.per_hand = NUM_SEATS * (rules.tricks_per_hand + 8)

    # ------------------------------------------------------------------ opponents
    def _new_vector_slot(self, rng: np.random.Generator) -> _Slot:
        """A slot for a game just dealt: who holds its seats, drawn from the league's mix."""
        opponent = self.names[rng.choice(len(self.names), p=self.probs)]
        if opponent == PAST and not self.snapshots:
            opponent = SELF
        if opponent == SELF:
            seats, team = [LEARNER] * NUM_SEATS, -1
        else:
            team = int(rng.integers(2))
            other = self.snapshots[rng.integers(len(self.snapshots))][0] if opponent == PAST else opponent
            seats = [LEARNER if team_of(s) == team else other for s in range(NUM_SEATS)]
        return _Slot(seats, opponent, team)

    # ------------------------------------------------------------------ collection
    def collect(self, budget: int, seed: int, update: int, teacher: Any = None, stream: int = 0,
                on_step: Callable[[int], None] | None = None, stop: Callable[[], bool] | None = None) -> Rollout:
        """Play until ``budget`` learner decisions are recorded and every hand in progress is over.

        With a ``teacher`` agent, the teacher makes the learner's decisions instead of the network
        (they are recorded the same way, with zero log-probabilities and values): demonstrations
        for behaviour cloning. ``stream`` separates such uses of one (seed, update). ``on_step``
        is called with the number of decisions recorded so far after each lockstep step (a
        progress bar). ``stop``, asked after each lockstep step: once it answers true, the budget counts as
        reached (the run's time limit cuts the demonstrations short): the hands in progress finish, and the
        rollout holds what was recorded.
        """
        return self._collect_vector(budget, seed, update, teacher, stream, on_step, stop)

    def _collect_vector(self, budget: int, seed: int, update: int, teacher: Any, stream: int,
                        on_step: Callable[[int], None] | None, stop: Callable[[], bool] | None = None) -> Rollout:
        """:meth:`collect` on :class:`~euchre_env.envs.vector.VectorEuchre`: every game steps at once.

        The networks read the batch's observations and masks directly; a league agent with a compiled twin
        (:func:`~euchre_env.agents.base.batch_twin`) decides for all its games at once: the rule-based one
        makes the same choices, the random one draws from the batch's masks (the same distribution, from the
        collector's generator). Games with another scripted seat (and every game when a teacher or the solver
        reads the true game) keep a reference ``GameState`` in step (:class:`~euchre_env.envs.mirror.MirroredAgents`),
        dealt the same cards: those agents read its ``InfoState``. Once the budget is reached each game finishes its
        hand and goes idle (it still steps, on its first legal action, until the last game is done).
        """
        rng = np.random.default_rng([seed, update, stream])
        # The dense form's device (None: the CPU's sparse path), where its batches go and its draws are made.
        device = self.model.actor[0].weight.device if self.model.dense else None
        generator = torch.Generator(device=device or "cpu").manual_seed(int(rng.integers(2**62)))
        for k, agent in enumerate(self.scripted.values()):
            agent.reset(int(rng.integers(2**62)) + k)
        buf = _Buffers(budget + self.num_games * self.per_hand, self.encoder.size, self.extra_size, self.num_actions,
                       labelled=self.solver is not None and teacher is None)
        label_rng = np.random.default_rng([seed, update, stream, 3])
        margins: dict[str, list[float]] = defaultdict(list)
        hands = forced = n = 0
        inference = engine = scripted = 0.0
        snapshots = dict(self.snapshots)
        mirrored = teacher is not None or buf.labelled
        clock = time.perf_counter
        t = clock()
        # One thread: the learner's torch threads (and the other runs of a shared machine) hold the cores.
        venv = VectorEuchre(self.rules, self.num_games, observation=self.observation, episode="game",
                            max_hands=None, copy=False, threads=1)
        obs, mask, seat = venv.reset(seed=int(rng.integers(2**62)))
        twins = {spec: twin(venv) for spec, agent in self.scripted.items() if (twin := batch_twin(agent, self.rules))}
        self._batched = set(twins)
        engine += clock() - t
        # Who decides at each seat of each game, as codes (the per-game Python loop over the slots was a tenth
        # of an update): 0 the learner, then the batched specs (those that draw first: their stream is their
        # own), one code per frozen snapshot and one per other scripted spec (asked one game at a time).
        batched = sorted(twins, key=lambda spec: (twins[spec].deterministic, spec))
        asked = [spec for spec in self.scripted if spec not in twins]
        order = [LEARNER, *batched, *snapshots, *asked]
        codes = {name: k for k, name in enumerate(order)}
        first_frozen = 1 + len(batched)
        first_asked = first_frozen + len(snapshots)
        twin_rng = np.random.default_rng([seed, update, stream, 4])  # its own stream: the rest is unchanged
        controller = np.zeros((self.num_games, NUM_SEATS), np.int64)
        last = np.full((self.num_games, NUM_SEATS), -1, np.int64)  # each seat's last recorded decision this hand
        # The scripted agents asked one game at a time (a scripted agent reads the game's InfoState; the compiled
        # twins read the engine's arrays), and every game's reference state when a teacher or the solver reads it.
        mirror = MirroredAgents(venv)
        slots: list[_Slot] = [None] * self.num_games  # type: ignore[list-item]

        def new_slot(g: int) -> None:
            slot = slots[g] = self._new_vector_slot(rng)
            slot.last = last[g]  # a view: the reward at the hand's end reads and clears the same row
            controller[g] = [codes[c] for c in slot.seats]
            mirror.start(g, [self.scripted[c] if codes[c] >= first_asked else None for c in slot.seats], slot.seats,
                         keep=mirrored)

        for g in range(self.num_games):
            new_slot(g)
        live = np.ones(self.num_games, bool)
        while live.any():
            actions = mask.argmax(1)  # the first legal action: forced moves and idle games
            playing = np.flatnonzero(live)
            who = controller[playing, seat[playing]]
            single = mask[playing].sum(1) == 1
            forced += int(np.count_nonzero(single & (who == 0)))
            deciding, who = playing[~single], who[~single]
            learner = deciding[who == 0]
            frozen = {order[k]: deciding[who == k] for k in np.unique(who[(who >= first_frozen) & (who < first_asked)])}
            for g in deciding[who >= first_asked].tolist():
                t = clock()
                actions[g] = mirror.decide(g)
                scripted += clock() - t
            for k, spec in enumerate(batched, 1):
                games = deciding[who == k]
                if games.size:
                    t = clock()
                    actions[games] = twins[spec].actions(games, mask[games], twin_rng)
                    scripted += clock() - t
            if learner.size:
                games, rows = learner, slice(n, n + len(learner))
                buf.obs[rows], buf.mask[rows] = obs[games], mask[games]
                if self.oracle is not None:
                    self.oracle.encode_batch(*venv.hidden_cards(games), seat[games], venv.card_frames(games),
                                             [slots[g].opponent for g in games.tolist()], buf.extra[rows])
                if teacher is not None:
                    buf.action[rows] = [mirror.ask(g, teacher, "teacher") for g in games.tolist()]
                else:
                    t = time.perf_counter()
                    buf.action[rows], buf.log_prob[rows] = _sample(self.model.actor, buf.obs[rows], buf.mask[rows],
                                                                   generator, device)
                    inference += time.perf_counter() - t
                if buf.labelled:
                    for i, g in zip(range(n, n + len(learner)), games.tolist()):
                        state = mirror.states[g]
                        if state.phase == Phase.PLAY and label_rng.random() < self.solver_fraction:
                            for a, points in self.solver.values(state).items():
                                buf.target[i, venv.to_canonical(g, a)] = self.reward_scale * points
                seats, previous = seat[games], last[games, seat[games]]
                linked = previous >= 0
                buf.next_index[previous[linked]] = np.arange(n, n + len(learner))[linked]
                last[games, seats] = np.arange(n, n + len(learner))
                actions[games] = buf.action[rows]
                n += len(learner)
                if on_step is not None:
                    on_step(n)
            for name, group in sorted(frozen.items(), key=lambda item: item[1][0]):  # in order of first game
                t = time.perf_counter()
                actions[group] = _sample(snapshots[name], obs[group], mask[group], generator, device)[0]
                inference += time.perf_counter() - t
            absolute = venv.to_absolute(actions)  # before the step: the frames are those of this decision
            t = clock()
            obs, mask, seat, _, done, info = venv.step(actions)
            t2 = clock()
            kept = np.flatnonzero(live & mirror.kept)
            mirror.follow(kept, absolute[kept])
            engine += t2 - t
            scripted += clock() - t2
            if stop is not None and n < budget and stop():
                budget = n  # no hand starts any more; those in progress finish and are recorded
            for g in np.flatnonzero(info["hand_over"] & live).tolist():
                slot = slots[g]
                hands += 1
                self._reward_hand(slot, info["hand_result"][g]["points"], buf.reward, margins)
                if n >= budget:
                    live[g] = False  # this game is done for the update
                elif done[g]:
                    new_slot(g)
                else:
                    mirror.next_hand(g)
        if teacher is None:
            t = time.perf_counter()
            buf.value[:n] = self._values(buf.obs[:n], buf.extra[:n], device)
            inference += time.perf_counter() - t
        return buf.rollout(n, hands, forced, inference, dict(margins), engine, scripted)

    def _values(self, obs: np.ndarray, extra: np.ndarray, device: torch.device | None = None) -> np.ndarray:
        """The critic's values of a rollout's decisions, in passes of :data:`VALUE_BATCH` rows. The critic
        chooses nothing, so it runs once the collection is over instead of beside the actor at every step:
        0.04 s for a 16,884-decision rollout against 0.09 s in ~290 passes of ~58 rows (the same values up to
        the order of float additions). ``device``: the dense form's (each pass's rows move there)."""
        values = np.empty(len(obs), np.float32)
        with torch.no_grad():
            for start in range(0, len(obs), VALUE_BATCH):
                rows = slice(start, start + VALUE_BATCH)
                if device is None:
                    values[rows] = self.model.value(torch.from_numpy(obs[rows]),
                                                    torch.from_numpy(extra[rows])).numpy()
                else:
                    values[rows] = self.model.value(torch.from_numpy(obs[rows]).to(device),
                                                    torch.from_numpy(extra[rows]).to(device)).cpu().numpy()
        return values

    def _reward_hand(self, slot: _Slot, points: list[int], reward: np.ndarray, margins: dict[str, list[float]]
                     ) -> None:
        """Each seat's hand result onto its last decision of the hand; the learner's margin by opponent."""
        for seat in range(NUM_SEATS):
            last = slot.last[seat]
            if last >= 0:
                reward[last] = self.reward_scale * hand_reward(points, seat)
                slot.last[seat] = -1
        if slot.learner_team >= 0:
            margins[slot.opponent].append(team_margin(points, slot.learner_team))


def _sample(net: PolicyNet, obs: np.ndarray, mask: np.ndarray, generator: torch.Generator,
            device: torch.device | None) -> tuple[np.ndarray, np.ndarray]:
    """``(actions, log-probabilities)`` of ``net``'s draws for a batch: on the CPU's sparse path from the arrays in
    place with the C sampler; on a ``device`` (the dense form) the batch moves there once, is drawn there with
    torch (``generator`` is on that device) and only the draws come back."""
    with torch.no_grad():
        if device is None:
            acts, logps = sample_actions(net.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask)), generator)
            return acts.numpy(), logps.numpy()
        logits = net.masked_logits(torch.from_numpy(obs).to(device), torch.from_numpy(mask).to(device))
        acts, logps = sample_actions(logits, generator, kernel=False)
        return acts.cpu().numpy(), logps.cpu().numpy()


class _Buffers:
    """The arrays a rollout is recorded into, ``cap`` rows (the budget plus the hands in progress)."""

    def __init__(self, cap: int, obs_size: int, extra_size: int, num_actions: int, labelled: bool) -> None:
        self.obs = np.zeros((cap, obs_size), np.float32)
        self.extra = np.zeros((cap, extra_size), np.float32)
        self.mask = np.zeros((cap, num_actions), bool)
        self.action = np.zeros(cap, np.int64)
        self.log_prob = np.zeros(cap, np.float32)
        self.value = np.zeros(cap, np.float32)
        self.reward = np.zeros(cap, np.float32)
        self.next_index = np.full(cap, -1, np.int64)
        self.labelled = labelled
        self.target = np.full((cap, num_actions) if labelled else (0, 0), np.nan, np.float32)

    def rollout(self, n: int, hands: int, forced: int, inference: float, margins: dict[str, list[float]],
                engine: float, scripted: float) -> Rollout:
        return Rollout(self.obs[:n], self.mask[:n], self.action[:n], self.log_prob[:n], self.value[:n],
                       self.reward[:n], self.next_index[:n], self.extra[:n], hands, forced, inference, margins,
                       self.target[:n] if self.labelled else None, engine, scripted)
