"""The single-seat whole step: ``SingleSeatVectorEnv.step`` in one compiled call, for opponents whose decision is
compiled (the opponents' :class:`~euchre_env.agents.base.CompiledDecision`, passed in; the rule-based agent's).

Each game applies the learner's action, then plays on, its opponents deciding by the compiled decision, until a
learner seat is to act; a hand that ends is accounted to the learner (:mod:`euchre_env.envs.learner_account`, as
the env's rounds of Python account it) and dealt on as the vector env deals (``compiled.batch.hand_outcome``,
``compiled.deal``). Reference: the env's rounds (``SingleSeatVectorEnv`` with ``_whole_steps = False``); proven equal
to them by ``tests/envs/test_single_seat_vector.py`` and to ``SingleSeatEnv`` by
``tests/differential/test_single_seat_vector_vs_single_seat.py``.

The driver is one Python function compiled once per decision passed in (:func:`driver`): the decision is a global
of its compiled copy, inlined into its loop, and the copy is named after the decision and a digest of every source
its machine code holds (``builds.two_builds(files=...)``), so Numba's disk cache keeps one build per decision and
never a stale one. (Passed as a run-time argument, a compiled function made the kernel uncacheable.)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np
from numba import prange

from euchre_env.compiled import batch
from euchre_env.compiled.builds import SLICES_PER_THREAD, FastCall, keyed, specialized, two_builds
from euchre_env.compiled.deal import deal_on, stream_uniforms
from euchre_env.compiled.layout import B_SIZE, CORE_FILES, CUR, FRAME
from euchre_env.compiled.observe import decide as observe_decision
from euchre_env.compiled.observe import encode_seat
from euchre_env.compiled.rules import apply, legal_mask
from euchre_env.envs import learner_account
from euchre_env.envs.learner_account import LEARNER_END, account_hand, learner_decides

DRIVER_FILES = (*CORE_FILES, learner_account.__file__, __file__)
jit = keyed(DRIVER_FILES)


class Learner(NamedTuple):
    """The learner's side of a step: its actions, which seats it holds, and the env's accounts and this step's ends,
    written in place (``learner_account`` says what each holds)."""

    actions: np.ndarray  # int64 [num_envs]: this step's actions, in each game's frame (checked legal)
    observe: np.ndarray  # bool [num_envs, 4]: the learner's seats (their decisions are encoded)
    team: int  # the learner's team
    rewards: np.ndarray  # float32 [num_envs]
    pending: np.ndarray  # float32 [num_envs]
    decided: np.ndarray  # bool [num_envs]
    acting: np.ndarray  # int64 [num_envs]: the learner seat of each game's decision
    terminated: np.ndarray  # bool [num_envs]
    truncated: np.ndarray  # bool [num_envs]
    has_final: np.ndarray  # bool [num_envs]
    final_obs: np.ndarray  # float32 [num_envs, obs_size]: zeros, the learner's last observations written


class DriverScratch(NamedTuple):
    """The driver's scratch: for the games waiting on an opponent (each slice uses its own range of rows), and
    each slice's rows."""

    codes: np.ndarray  # int64 [num_envs]: a failed decision's code, per game
    active: np.ndarray  # int64 [num_envs]: each slice's games with a move to make (the learner's, then an opponent's)
    picks: np.ndarray  # int64 [num_envs]: those moves (absolute ids)
    amasks: np.ndarray  # bool [num_envs, num_actions]: their legal masks (absolute ids)
    raw: np.ndarray  # float32 [slices, raw size + actions]: the absolute encoding, then the absolute mask
    uniforms: np.ndarray  # float64 [slices, pack + 1]: a deal's uniforms


@jit(_nrt=False)
def _hand_over(g, learner, e, s, d, u, raw, t):
    """Game ``g``'s hand is over: the learner's account of it (``learner_account.account_hand``, the Python rounds'
    accounting too) with its final observation if its episode ended, then the next deal, from the game's own stream
    of uniforms. Compiled on its own, not inlined: Numba's inlining pass refused it inside the parallel loop."""
    team0, ended, cut = batch.hand_outcome(s.st, g, e)
    over = ended or cut
    if account_hand(g, team0 if learner.team == 0 else -team0, over, cut, learner.rewards, learner.pending,
                    learner.decided, learner.has_final, learner.terminated, learner.truncated) == LEARNER_END \
            and e.with_obs:
        encode_seat(s, g, learner.acting[g], learner.final_obs[g], raw, t)
    stream_uniforms(d.streams, g, u)
    deal_on(s, g, over, u, d, t)


def _play_slice(c, chunks, learner, scratch, s, d, e, obs, mask, t, tables, pscratch):
    """The whole step of slice ``c`` of ``chunks`` (:func:`_single_seat_step`), its opponents deciding by
    ``decide`` (a global of this function's compiled copy: :func:`driver`) with the policy's ``tables`` and
    ``pscratch``.
    Compiled on its own and called once a slice: Numba's parallel loop body loses writes made through tuples."""
    st, actions = s.st, learner.actions
    lo, hi = batch.slice_of(st.shape[0], c, chunks)
    observe, codes, active, picks, amasks = learner.observe, scratch.codes, scratch.active, scratch.picks, \
        scratch.amasks
    size = t.off[B_SIZE]
    u = scratch.uniforms[c]
    raw, amask = scratch.raw[c, :size], scratch.raw[c, size:]
    for g in range(lo, hi):  # the learner's moves come first: every game has one
        learner_decides(g, learner.rewards, learner.pending, learner.decided)
        codes[g] = 0
        active[g] = g
        picks[g] = t.to_abs[st[g, FRAME], actions[g]]
    k = hi  # the games with a move to make are active[lo:k], their moves picks[lo:k]
    while k > lo:  # rounds: every move (one loop for the learner's and the opponents'), then the next decisions
        m = lo
        for j in range(lo, k):  # a game still waiting on an opponent moves down the list
            g = active[j]
            a = picks[j]
            if a < 0:
                codes[g] = a
                continue
            if apply(s, g, a, t):
                _hand_over(g, learner, e, s, d, u, raw, t)
            seat = st[g, CUR]
            if observe[g, seat]:
                learner.acting[g] = seat
                observe_decision(s, g, obs[g], mask[g], raw, amask, t, e.with_obs)
            else:
                active[m] = g
                m += 1
        k = m
        for j in range(lo, k):
            legal_mask(s, active[j], t, amasks[j])
        for j in range(lo, k):
            picks[j] = decide(tables, pscratch, c, active[j], amasks[j], s)  # noqa: F821 (the copy's global)


def _single_seat_step(chunks, learner, scratch, s, d, e, obs, mask, t, tables, pscratch):
    """Every game ``g`` applies the learner's ``learner.actions[g]`` (in its frame, legal), then plays on, its opponents
    deciding by the compiled decision, until a learner seat is to act, whose observation and mask are written
    (``obs[g]``, ``mask[g]``, ``learner.acting[g]``) as the engine's ``step_games`` writes them.

    The games go in ``chunks`` slices (at once in the parallel build; :func:`_play_slice`, a global of this
    function's compiled copy), slice ``c`` with its scratch rows (``scratch.raw[c]``, ``scratch.uniforms[c]``,
    the rows ``c`` of the policy's scratch ``pscratch``; ``tables``: the policy's). A slice plays its games'
    moves in rounds (every move, the learner's in the first; then every waiting game's legal mask and decision),
    not one game to its learner's turn after another: that ran slower on one thread (docs/rule_based_twin.md).
    ``scratch.codes[g]``: 0, or the code of a decision that failed (a bug), the game left where it was. It
    allocates nothing."""
    for c in prange(chunks):  # (the policy's tables and scratch come apart: a parallel loop takes no nested tuple)
        play_slice(c, chunks, learner, scratch, s, d, e, obs, mask, t, tables, pscratch)  # noqa: F821


_drivers: dict[Any, tuple[Any, Any]] = {}


def driver(decision: Any) -> tuple[Any, Any]:
    """``(parallel, serial)`` builds of the whole step for ``decision`` (a ``CompiledDecision``), made once per
    decision function and kept."""
    key = decision.decide
    if key not in _drivers:
        files = (*DRIVER_FILES, *decision.files)
        play_slice = specialized(_play_slice, files, decision.name, {"decide": decision.decide}, _nrt=False)
        _drivers[key] = two_builds(_single_seat_step, allocates=False, files=files,
                                   extra_globals={"play_slice": play_slice}, name=decision.name)
    return _drivers[key]


class WholeStep:
    """A vector env's whole single-seat step against one compiled decision: its kernels and its scratch, kept
    across steps (the kernel reuses them game after game within a step, so it may across steps)."""

    def __init__(self, venv: Any, decision: Any) -> None:
        self.venv, self.decision = venv, decision
        self._parallel, self._serial = (FastCall(k) for k in driver(decision))  # builds.FastCall: fixed types
        self._chunks = 0

    def __call__(self, learner: Learner) -> None:
        """One step of every game: the learner's actions (``learner.actions``, checked legal by the caller), the
        opponents', the hands that end accounted into ``learner`` and dealt on."""
        venv, decision = self.venv, self.decision
        engine = venv.engine
        n = venv.num_envs
        chunks, kernel = 1, self._serial
        if venv.threads != 1 and n >= decision.parallel_from:
            venv.use_threads()
            chunks, kernel = SLICES_PER_THREAD * numba.get_num_threads(), self._parallel
        if chunks != self._chunks:
            self._chunks = chunks
            self._scratch = DriverScratch(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                                          np.zeros((n, engine.mask.shape[1]), np.bool_),
                                          np.zeros((chunks, engine.raw.shape[1]), np.float32),
                                          np.zeros((chunks, engine.deals.pack.shape[0] + 1), np.float64))
            self._policy_scratch = decision.scratch(chunks)
        kernel(chunks, learner, self._scratch, engine.arrays, engine.deals, engine.episodes, engine.obs,
               engine.mask, engine.tables, decision.tables, self._policy_scratch)
        codes = self._scratch.codes
        if codes.min() < 0:  # a decision failed (a bug): the decision names it
            decision.check(np.arange(n), codes)
