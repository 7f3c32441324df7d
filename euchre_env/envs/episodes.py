"""What an episode is, what it rewards and when it is cut short: one home for both envs.

``euchre_env.env`` / ``raw_env`` (the four-seat AEC env) and ``SingleSeatEnv`` (one learner
against fixed opponents) take the same ``episode``, ``reward``, ``max_steps``, ``max_hands``
and ``reset(options=...)``, checked here with the same messages.

- ``episode``: ``"game"`` plays a whole game to the target (a whole rubber with
  ``rubber=True``), ``"hand"`` ends after one hand. The defaults differ on purpose:
  the AEC env is the game itself, so it plays a game (:data:`ENV_EPISODE`); the single-seat
  env is a training view, and one hand per episode gives a learner against fixed opponents
  short episodes whose reward is the hand's own result (:data:`SINGLE_SEAT_EPISODE`).
- ``reward``: ``"points"``, every hand's points of the seat's team minus the other team's;
  ``"win"``, +1 / -1 when the game ends (:func:`win_reward`).
- ``max_steps``: truncate after that many steps (None: no limit).
- ``max_hands``: truncate after that many hands (None: no limit), following Gymnasium's
  time-limit convention (``truncated``, not ``terminated``: the game was not decided).
  The default :data:`AUTO` is :func:`auto_max_hands`: a limit only for whole games that
  need not end. In Bid Euchre a failed bid costs the bidders their bid while the defenders
  still score their tricks, so poor bidders (a random or untrained policy) drive both
  scores down: 75 of 100 random games were still going after 1,000 hands. With
  ``renege="penalize"`` (any family) random play reneges at nearly every hand and loses
  more to the penalty than it scores: none of 100 random ``classic`` games ended. Real
  games are short: of 500 whole Bid Euchre games between the rule-based agents (``rules``
  vs ``rules``; also 500 with each of joker, double deck, stick the dealer, ace no face)
  the longest took 20 hands (mean 10.5), and of 300 with ``renege="penalize"`` in each
  preset, 17. The limit, 200 hands per 32 points of target (:data:`AUTO_MAX_HANDS`,
  :data:`AUTO_TARGET`, never fewer than 200), is ten times the longest such game, so it
  cuts only games that would not end. The turn-up family with masked reneges needs none:
  every hand that is played gives a team at least a point, and even random games end
  (the longest of 300 random games of each preset took 14 hands; of 100 random rubbers, 35).
  On truncation every agent is truncated, the game has no winner (``reward="win"`` gives 0)
  and ``info["truncated"]`` names the limit (``"max_hands"`` or ``"max_steps"``).

Compiled twin: ``hand_outcome`` and ``deal_on`` of ``euchre_env/compiled/c/engine.h`` (an episode's end, its
reward, the hand limit, the next deal) for ``VectorEuchre`` and the compiled game, and
:mod:`euchre_env.envs.learner_account` for ``SingleSeatVectorEnv``. Proven equal by
tests/differential/test_vector_euchre_vs_engine.py, tests/differential/test_compiled_game_vs_engine.py and
tests/differential/test_single_seat_vector_vs_single_seat.py.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from euchre_env.game.engine import GameState
from euchre_env.game.errors import check_choice
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.scoring import team_margin

EPISODES = ("game", "hand")
REWARDS = ("points", "win")
RESET_OPTIONS = ("deal", "scores")
ENV_EPISODE = "game"  # euchre_env.env / raw_env: the AEC env plays the game itself
SINGLE_SEAT_EPISODE = "hand"  # SingleSeatEnv: short episodes for a learner against fixed opponents

AUTO = "auto"  # max_hands default: see auto_max_hands
AUTO_MAX_HANDS = 200  # hands of a whole game to AUTO_TARGET points before AUTO truncates it
AUTO_TARGET = 32  # the bid preset's game_target; a larger target scales the limit up
TRUNCATED = "truncated"  # the info key naming the limit that cut an episode short
TERMINATED = "terminated"  # hand_ending(): the episode is over (game decided, or its one hand played)


def check_episode_args(rules: Rules, episode: Any, reward: Any, max_steps: Any, max_hands: Any) -> int | None:
    """Check the episode keywords both envs take; returns the hand limit (:func:`resolve_max_hands`)."""
    check_choice("episode", episode, EPISODES)
    check_choice("reward", reward, REWARDS)
    check_max_steps(max_steps)
    return resolve_max_hands(max_hands, rules, episode)


def check_max_steps(max_steps: Any) -> None:
    if max_steps is not None and not _positive_int(max_steps):
        raise ValueError(f"'max_steps' must be a positive int or None, got {max_steps!r}")


def resolve_max_hands(max_hands: Any, rules: Rules, episode: str) -> int | None:
    """The hand limit of an episode: ``max_hands`` itself, or for :data:`AUTO` :func:`auto_max_hands`."""
    if max_hands == AUTO and isinstance(max_hands, str):
        return auto_max_hands(rules, episode)
    if max_hands is None or _positive_int(max_hands):
        return max_hands
    raise ValueError(f"'max_hands' must be a positive int, {AUTO!r} or None, got {max_hands!r}")


def auto_max_hands(rules: Rules, episode: str) -> int | None:
    """:data:`AUTO_MAX_HANDS` per :data:`AUTO_TARGET` points of target for a whole game of Bid Euchre or
    with ``renege="penalize"`` (games that need not end); None (no limit) otherwise."""
    if episode != "game" or not (rules.is_bid or rules.renege == "penalize"):
        return None
    return max(AUTO_MAX_HANDS, math.ceil(AUTO_MAX_HANDS * rules.game_target / AUTO_TARGET))


def check_reset_options(options: Any, known: tuple[str, ...] = RESET_OPTIONS) -> dict[str, Any]:
    """The ``known`` reset options of ``options`` (None: none); an unknown one is ignored with a warning.

    One behaviour in every view (the AEC env, ``SingleSeatEnv`` and its AEC view, ``VectorEuchre``): a
    warning naming the unknown options and the known ones, not an error, because PettingZoo's ``api_test``
    passes an arbitrary option and expects ``reset()`` to accept it. Options that are not a dict raise.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"reset 'options' must be a dict (known keys: {list(known)}) or None, got {options!r}")
    unknown = sorted(set(options) - set(known), key=repr)
    if unknown:
        warnings.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(known)}", stacklevel=3)
    return {k: v for k, v in options.items() if k in known}


def hand_ending(game: GameState, episode: str, max_hands: int | None) -> str | None:
    """What the hand that just ended does to the episode: :data:`TERMINATED`, ``"max_hands"``
    (truncated: the limit is reached and the game undecided) or None (the game goes on)."""
    if episode == "hand" or game.phase == Phase.GAME_OVER:
        return TERMINATED
    if max_hands is not None and game.hand_number + 1 >= max_hands:
        return "max_hands"
    return None


def hand_end_reward(game: GameState, team: int, reward: str, ending: str | None) -> float:
    """``team``'s reward for the hand that just ended: its margin (``"points"``), or the game's
    result when the episode ends (``"win"``); ``ending`` is :func:`hand_ending`'s answer."""
    if reward == "points":
        return float(team_margin(game.hand_result["points"], team))
    if ending is None:
        return 0.0
    return win_reward(game, team, truncated=ending != TERMINATED)


def win_reward(game: GameState, team: int, truncated: bool = False) -> float:
    """``reward="win"`` when an episode ends: +1 / -1 by the game's (or rubber's) winner.

    A single-hand episode with no game winner yet gets the sign of the hand's points; a
    truncated game was not decided and gets 0.
    """
    if truncated:
        return 0.0
    if game.winner is None:
        return float(np.sign(team_margin(game.hand_result["points"], team)))
    return 1.0 if game.winner == team else -1.0


def _positive_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
