"""The learner's account in a ``SingleSeatVectorEnv`` game, its decisions and the hands that end: one home for
both of the env's paths.

A hand's points (the learner team's side of the engine's hand reward) go into the learner's reward of this step
once the learner has decided in the episode; before its first decision they wait in ``pending`` and are paid at
that decision's step. An episode that ends is the learner's end, terminated or (cut by ``max_hands``) truncated,
only if the learner decided in it; an episode without a learner decision is dealt again and never returned. The
env's rounds of Python (random, checkpoint and mixed opponents; ``SingleSeatVectorEnv.step``) call
:func:`learner_decisions` and :func:`account_hands`; the rule-based agent's compiled whole step
(``agents/rule_based/compiled.py``) inlines :func:`learner_decides` at each learner move and :func:`account_hand`
at each hand end. The test of the whole step against the rounds
(tests/differential/test_single_seat_step_vs_rounds.py) and the differential against ``SingleSeatEnv`` hold them to it.
"""

from __future__ import annotations

from numba import njit

HAND_ONLY = 0  # the hand ended, the episode goes on
LEARNER_END = 1  # the learner's episode ended: its final observation is due
DEALT_AGAIN = 2  # an episode without a learner decision ended: dealt again, not returned


@njit(cache=True, inline="always")
def learner_decides(g, rewards, pending, decided):
    """Game ``g``'s learner makes its decision of this step: the step's reward starts with the points of the hands
    that ended before the learner's first decision in the episode (``pending``), and the episode has a decision."""
    rewards[g] = pending[g]
    pending[g] = 0.0
    decided[g] = True


@njit(cache=True)
def learner_decisions(rewards, pending, decided):
    """:func:`learner_decides` for every game (a step in which every game was at a learner decision)."""
    for g in range(rewards.shape[0]):
        learner_decides(g, rewards, pending, decided)


@njit(cache=True, inline="always")
def account_hand(g, gain, episode_over, cut, rewards, pending, decided, has_final, terminated, truncated):
    """Game ``g``'s hand ended with ``gain`` points for the learner's team (``episode_over``: its episode too,
    ``cut``: by ``max_hands``). Writes the game's entries of the env's accounts (``rewards``, ``pending``,
    ``decided``) and of the step's ends (``has_final``, ``terminated``, ``truncated``); returns
    ``HAND_ONLY``, ``LEARNER_END`` or ``DEALT_AGAIN``."""
    if decided[g]:
        rewards[g] += gain
    else:
        pending[g] += gain
    if not episode_over:
        return HAND_ONLY
    code = DEALT_AGAIN
    if decided[g] and not has_final[g]:
        has_final[g] = True
        terminated[g] = not cut
        truncated[g] = cut
        code = LEARNER_END
    pending[g] = 0.0
    decided[g] = False
    return code


@njit(cache=True)
def account_hands(games, gains, episode_over, cut, rewards, pending, decided, has_final, terminated, truncated,
                  codes):
    """:func:`account_hand` for each of ``games`` in turn (``gains``, ``episode_over``, ``cut``: one per game);
    ``codes[i]``: what it returned for ``games[i]``."""
    for i in range(games.shape[0]):
        codes[i] = account_hand(games[i], gains[i], episode_over[i], cut[i], rewards, pending, decided, has_final,
                                terminated, truncated)
