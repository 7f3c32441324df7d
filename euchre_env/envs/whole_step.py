"""The single-seat whole step: ``SingleSeatVectorEnv.step`` in one C call, for opponents whose decision is compiled
(the opponents' :class:`~euchre_env.agents.base.CompiledDecision`, passed in; the rule-based agent's).

Each game applies the learner's action, then plays on, its opponents deciding by the compiled decision, until a
learner seat is to act; a hand that ends is accounted to the learner (``engine.h``'s ``account_hand``, as the env's
rounds of Python account it) and dealt on as the vector env deals. The C is
``euchre_env/compiled/c/whole_step.h`` (``compiled._core.Batch.single_seat_step``); the decision reaches it as a
function pointer in a capsule, so the env never links the agent's extension. Reference: the env's rounds
(``SingleSeatVectorEnv`` with ``_whole_steps = False``); proven equal to them by
``tests/envs/test_single_seat_vector.py`` and to ``SingleSeatEnv`` by
``tests/differential/test_single_seat_vector_vs_single_seat.py``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from euchre_env.compiled.native import run_slices


class Learner(NamedTuple):
    """The learner's side of a step: its actions, which seats it holds, and the env's accounts and this step's ends,
    written in place (``learner_account`` says what each holds). The field order is the C's (``whole_step.h``)."""

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


class WholeStep:
    """A vector env's whole single-seat step against one compiled decision."""

    def __init__(self, venv: Any, decision: Any) -> None:
        self.venv, self.decision = venv, decision
        self._codes = np.zeros(venv.num_envs, np.int64)  # a failed decision's code, per game

    def __call__(self, learner: Learner) -> None:
        """One step of every game: the learner's actions (``learner.actions``, checked legal by the caller), the
        opponents', the hands that end accounted into ``learner`` and dealt on. The games go in slices on the
        env's threads (at most the slices the decision's scratch serves), each slice a C call."""
        venv, decision = self.venv, self.decision
        engine = venv.engine
        n = venv.num_envs
        slices = 1
        if venv.threads != 1 and n >= decision.parallel_from:
            slices = min(engine.slices, decision.slices)
        run_slices(engine.batch.single_seat_step, n, slices, decision.capsule, learner, self._codes, engine.obs,
                   engine.mask)
        if self._codes.min() < 0:  # a decision failed (a bug): the decision names it
            decision.check(np.arange(n), self._codes)
