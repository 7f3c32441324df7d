"""The learner's account in a ``SingleSeatVectorEnv`` game, its decisions and the hands that end: one home for
both of the env's paths.

A hand's points (the learner team's side of the engine's hand reward) go into the learner's reward of this step
once the learner has decided in the episode; before its first decision they wait in ``pending`` and are paid at
that decision's step. An episode that ends is the learner's end, terminated or (cut by ``max_hands``) truncated,
only if the learner decided in it; an episode without a learner decision is dealt again and never returned.

The account is C (``learner_decides`` and ``account_hand`` in ``euchre_env/compiled/c/engine.h``, built when the
package is installed): the env's rounds of Python (random, checkpoint and mixed opponents;
``SingleSeatVectorEnv.step``) call :func:`learner_decisions` and :func:`account_hands`, and a compiled whole step
calls the same two functions at each learner move and each hand end. The test of the whole step against the rounds
(tests/differential/test_single_seat_step_vs_rounds.py) and the differential against ``SingleSeatEnv`` hold them to it.
"""

from __future__ import annotations

from euchre_env.compiled.batch import core

HAND_ONLY = core.HAND_ONLY  # the hand ended, the episode goes on
LEARNER_END = core.LEARNER_END  # the learner's episode ended: its final observation is due
DEALT_AGAIN = core.DEALT_AGAIN  # an episode without a learner decision ended: dealt again, not returned

# learner_decisions(rewards, pending, decided): every game's learner makes its decision of this step (a step in
# which every game was at a learner decision): its reward starts with the pending points, its episode has a decision.
learner_decisions = core.learner_decisions
# account_hands(games, gains, episode_over, cut, rewards, pending, decided, has_final, terminated, truncated, codes):
# the hands of games ended, in turn (gains: the learner team's points; episode_over, cut: one per game); codes[i]:
# HAND_ONLY, LEARNER_END or DEALT_AGAIN for games[i].
account_hands = core.account_hands
