"""Scoring: a hand's points, a hand's reward, the end of a game and of a rubber.

Pure functions of the rules and the numbers of a hand or a game; :class:`~euchre_env.game.engine.GameState`
calls them when a hand ends, and search agents and the envs use the same ones (a hand's
reward is :func:`hand_reward` everywhere). :func:`typed_hand_result` is a hand's result as the Gymnasium envs'
infos give it.

Compiled twin: ``score_hand``, ``game_winner``, ``finish_hand`` and ``hand_outcome`` of
``euchre_env/compiled/c/engine.h`` (a hand's points, the end of a game and of a rubber, the reward). Proven equal by
tests/differential/test_vector_euchre_vs_engine.py and tests/differential/test_compiled_game_vs_engine.py (rewards,
hand results and episode ends at every hand's end).
"""

from __future__ import annotations

from euchre_env.game.actions import HELP, MOON
from euchre_env.game.rules import Rules
from euchre_env.game.seats import other_team, team_of

RUBBER_BONUS = 2  # the rubber's winner adds 2 to its rubber points


def team_margin(points: list[int] | tuple[int, ...], team: int) -> int:
    """``team``'s points for a hand minus the other team's (a hand's result is zero-sum)."""
    return points[team] - points[other_team(team)]


def hand_reward(points: list[int] | tuple[int, ...], seat: int) -> int:
    """The reward of ``seat`` for a hand scored ``points`` (per team): its team's margin."""
    return team_margin(points, team_of(seat))


def scoring_thresholds(rules: Rules) -> tuple[int, ...]:
    """Makers' trick counts at which a turn-up hand's points change: making it, and the march."""
    return (rules.tricks_per_hand // 2 + 1, rules.tricks_per_hand)


def contract_tricks(rules: Rules, contract: int | str) -> int:
    """The tricks a Bid Euchre contract needs: a plain bid its number, help and moon every trick."""
    return rules.tricks_per_hand if contract in (HELP, MOON) else int(contract)


def score_hand(
    rules: Rules, made: int, contract: int | str | None, maker_alone: bool, defender_alone: bool
) -> tuple[int, int]:
    """(makers' points, defenders' points) of a hand in which the makers took ``made`` tricks.

    Turn-up family: fewer than half the tricks is a euchre (2 to the defenders, 4 against a
    lone defender, and with ``euchred_loner_four`` against a lone maker), all of them a march (2, or 4 alone),
    else 1. Bid Euchre: the defenders
    score their tricks; the makers their tricks if they made the contract, else minus the
    contract; help and moon score 2 and 4 times the tricks for all of them, else minus the tricks.
    """
    all_tricks = rules.tricks_per_hand
    if rules.is_bid:
        defenders = all_tricks - made
        need = contract_tricks(rules, contract)
        if made < need:
            return -need, defenders
        if contract in (HELP, MOON):
            return (2 if contract == HELP else 4) * all_tricks, defenders
        return made, defenders
    make, march = scoring_thresholds(rules)
    if made < make:  # euchred
        return 0, 4 if defender_alone or (maker_alone and rules.euchred_loner_four) else 2
    if made >= march:
        return (4 if maker_alone else 2), 0
    return 1, 0


def hand_outcome(
    rules: Rules, made: int, contract: int | str | None, maker_alone: bool, defender_alone: bool
) -> str:
    """What :func:`score_hand` scored, in a player's words: ``"march"``, ``"lone march"``, ``"made it"``,
    ``"euchred"``, ``"euchred by a lone defender"``; Bid Euchre: ``"made the bid"``, ``"set"`` (with
    help or moon: ``"made help"``, ``"moon set"``...). Its branches are score_hand's, in its order."""
    if rules.is_bid:
        made_it = made >= contract_tricks(rules, contract)
        if contract in (HELP, MOON):
            return f"made {contract}" if made_it else f"{contract} set"
        return "made the bid" if made_it else "set"
    make, march = scoring_thresholds(rules)
    if made < make:
        return "euchred by a lone defender" if defender_alone else "euchred"
    if made >= march:
        return "lone march" if maker_alone else "march"
    return "made it"


def describe_hand(rules: Rules, result: dict) -> str:
    """One line on a finished hand's points and why, from its ``hand_result`` (the env's format):
    ``team 1 made it (3 tricks of 5): team 1 +1``."""
    if result.get("thrown_in"):
        return f"thrown in ({result['thrown_in']}): no points"
    makers = result["maker_team"]
    made = result["tricks"][makers]
    outcome = hand_outcome(rules, made, result.get("contract"), result["maker_alone"], result["defender_alone"])
    who = f"team {makers}" + (" (alone)" if result["maker_alone"] else "")
    bid = f", bid {result['contract']}" if rules.is_bid else ""
    points = ", ".join(f"team {t} {p:+d}" for t, p in enumerate(result["points"]) if p)
    reneged = result.get("reneged") or []
    penalty = f"; renege by seat {', '.join(map(str, reneged))}: -2 to that team" if reneged else ""
    return (f"{who} {outcome} ({made} trick{'' if made == 1 else 's'} of {rules.tricks_per_hand}{bid}): "
            f"{points or 'no points'}{penalty}")


def typed_hand_result(rules: Rules, result: dict) -> dict:
    """``result`` (a ``hand_result``) with one type per key in every preset, as the Gymnasium envs' infos give
    it: vector envs batch an info key by key, into an array typed by the first value they meet. A field with no
    value (a thrown-in hand's ``maker_team``, ``trump``, ``bidder``, ``contract``) is left out rather than None,
    and Bid Euchre's ``contract`` is an int, the tricks it needs (:func:`contract_tricks`), with the bid itself
    in ``bid`` (a str: ``"4"``, ``"help"``, ``"moon"``). Lists are new: the result shares nothing with ``result``."""
    typed = {key: list(value) if isinstance(value, list) else value
             for key, value in result.items() if value is not None}
    if "contract" in typed:
        typed["bid"] = str(typed["contract"])
        typed["contract"] = contract_tricks(rules, typed["contract"])
    return typed


def game_winner(rules: Rules, scores: list[int] | tuple[int, int]) -> int | None:
    """The team that has won the game at ``scores``, or None while the game goes on.

    The game is over once a team reaches ``game_target`` (with ``minus_target_loses``, also
    once a team is at minus the target or below) and the scores differ: the higher score
    wins, so of two teams past minus the target at once the lower one loses, and a team past
    the target beats one past minus the target. Equal scores play on: another hand decides.
    Equal scores at or past the target happen only in Bid Euchre, where both teams score in
    a hand; in the turn-up family only one team scores a hand.
    """
    s0, s1 = scores
    target = rules.game_target
    ended = max(s0, s1) >= target or (rules.minus_target_loses and min(s0, s1) <= -target)
    if not ended or s0 == s1:
        return None
    return 0 if s0 > s1 else 1


def rubber_points(loser_score: int) -> int:
    """Rubber points for winning a game whose losers had ``loser_score``: 3 at 0 or less, 2 at 1-2, else 1."""
    return 3 if loser_score <= 0 else 2 if loser_score <= 2 else 1


def rubber_margin(points: list[int], winner: int) -> int:
    """The rubber's margin: the winner's rubber points plus the bonus, minus the loser's."""
    return points[winner] + RUBBER_BONUS - points[other_team(winner)]
