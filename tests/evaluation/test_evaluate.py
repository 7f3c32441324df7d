"""Duplicate matches, their statistics and the rating ladder (the euchre_env.evaluation package)."""

from __future__ import annotations

import io
import json
import math
import os
import re

import numpy as np
import pytest
from scipy import stats

from euchre_env.evaluation import MatchResult, evaluate, run_ladder
from euchre_env.evaluation.match import GameTooLongError, IllegalActionError, hand_deal
from euchre_env.evaluation.progress import Progress, RunningMargin
from euchre_env.evaluation.report import ladder_report, match_table, write_ladder, write_match
from euchre_env.evaluation.stats import (
    bradley_terry,
    mean_ci,
    normal_quantile,
    ratio_ci,
    t_quantile,
    wilson_interval,
)
from euchre_env.game.actions import ActionTable
from euchre_env.game.cards import trick_winner
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.rules import Rules

KNOCK = Rules.preset("knock")
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")  # small checkpoints of the tests


# ------------------------------------------------------------------------------ test agents
class FirstLegalAgent:
    """Deterministic: always the lowest legal action id."""

    name = "first"
    needs_observation = False

    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[0])


class GreedyAgent:
    """A simple card player: calls trump only with three or more, wins tricks cheaply when it can."""

    name = "greedy"
    needs_observation = False

    def __init__(self, seed=None):
        self._tables = {}

    def reset(self, seed=None):
        pass

    def act(self, observation, info):
        s = info["information_state"]
        rules = s.rules
        if rules not in self._tables:
            self._tables[rules] = ActionTable(rules)
        table = self._tables[rules]
        deck = table.deck
        legal = list(s.legal_actions)
        acts = {a: table.actions[a] for a in legal}

        def count(suit):
            suits = deck.effective_suits(suit)
            return sum(1 for c in s.hand if suits[c] == suit)

        if s.phase == Phase.CALL1:
            extra = 1 if s.seat == s.dealer else 0
            if count(s.upcard_suit) + extra >= 3 and table.order_id in legal:
                return table.order_id
            return table.pass_id if table.pass_id in legal else legal[0]
        if s.phase in (Phase.CALL2, Phase.JOKER_SUIT, Phase.NAME_TRUMP):
            names = [a for a in legal if acts[a].kind == "name" and not acts[a].alone]
            best = max(names, key=lambda a: count(acts[a].arg)) if names else legal[0]
            if s.phase == Phase.CALL2 and table.pass_id in legal and count(acts[best].arg) < 3:
                return table.pass_id
            return best
        if s.phase == Phase.DISCARD:
            power = deck.powers(s.trump)
            return min(legal, key=lambda a: power[acts[a].arg])
        if s.phase == Phase.PLAY:
            power = deck.powers(s.trump)
            cards = {a: acts[a].arg for a in legal}
            if not s.trick:
                return max(legal, key=lambda a: power[cards[a]])
            played = [c for _, c in s.trick]
            winning = [a for a in legal if trick_winner([*played, cards[a]], deck, s.trump) == len(played)]
            if winning:
                return min(winning, key=lambda a: power[cards[a]])
            return min(legal, key=lambda a: power[cards[a]])
        return table.pass_id if table.pass_id in legal else legal[0]


class IllegalAgent(FirstLegalAgent):
    name = "cheater"

    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])


class RecordingAgent(FirstLegalAgent):
    """Checks what it is given: an InfoState, and an observation only when it asks for one."""

    instances = 0

    def __init__(self, seed=None, needs_observation=True):
        type(self).instances += 1
        self.needs_observation = needs_observation
        self.resets = []

    def reset(self, seed=None):
        self.resets.append(seed)

    def act(self, observation, info):
        assert ("observation" in observation) == self.needs_observation
        assert info["information_state"].seat == info["information_state"].to_act
        assert np.array_equal(info["action_mask"], observation["action_mask"])
        return super().act(observation, info)


# ------------------------------------------------------------------------------ statistics
def test_t_quantile_is_scipys_and_matches_the_tables():
    for df, expected in [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (100, 1.9840),
                         (5000, 1.9604)]:
        assert t_quantile(0.975, df) == stats.t.ppf(0.975, df)
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)  # printed tables
    assert t_quantile(0.995, 9) == stats.t.ppf(0.995, 9) == pytest.approx(3.2498, abs=1e-4)
    assert normal_quantile(0.975) == stats.norm.ppf(0.975) == pytest.approx(1.959964, abs=1e-6)
    for p, df in [(0.5, 3), (1.0, 3), (0.975, 0)]:
        with pytest.raises(ValueError):
            t_quantile(p, df)


def test_mean_ci_is_scipys_t_interval():
    x = [1, 2, 3, 4, 5]
    mean, lo, hi = mean_ci(x)
    # sd = 1.5811, se = 0.7071, t(0.975, 4) = 2.7764
    assert mean == 3
    assert (lo, hi) == (pytest.approx(1.0368, abs=1e-4), pytest.approx(4.9632, abs=1e-4))
    assert (lo, hi) == pytest.approx(stats.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=stats.sem(x)),
                                     rel=1e-12)
    y = np.random.default_rng(0).normal(size=50)
    assert mean_ci(y, 0.9)[1:] == pytest.approx(stats.t.interval(0.9, 49, loc=y.mean(), scale=stats.sem(y)),
                                                rel=1e-12)
    assert math.isnan(mean_ci([1.0])[1])


def test_ratio_ci_with_equal_denominators_is_the_mean_ci():
    x = np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0])
    r, lo, hi = ratio_ci(2 * x, np.full(6, 2.0))
    assert (r, lo, hi) == pytest.approx(mean_ci(x))


def test_wilson_interval_is_scipys():
    for k, n, level in [(5, 10, 0.95), (81, 263, 0.95), (3, 7, 0.9), (1, 1000, 0.99)]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        assert wilson_interval(k, n, level) == (ci.low, ci.high)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    # the conventions at the edges: exact 0 and 1 bounds, nan without games, an error for k outside 0..n
    assert wilson_interval(0, 10) == (0.0, pytest.approx(stats.binomtest(0, 10).proportion_ci(method="wilson").high))
    assert wilson_interval(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson_interval(11, 10)


def test_bradley_terry_two_agents_matches_the_closed_form():
    scores = np.array([[0.0, 30.0], [10.0, 0.0]])
    boards = np.array([[0.0, 40.0], [40.0, 0.0]])
    ratings = bradley_terry(scores, boards, prior=0.0)
    assert ratings[0] == 0
    assert ratings[1] == pytest.approx(-400 * math.log10(3), abs=1e-6)


def test_bradley_terry_prior_keeps_a_clean_sweep_finite():
    scores = np.array([[0.0, 20.0], [0.0, 0.0]])
    boards = np.array([[0.0, 20.0], [20.0, 0.0]])
    ratings = bradley_terry(scores, boards, prior=1.0)
    assert ratings[1] == pytest.approx(-400 * math.log10(20.5 / 0.5), abs=1e-6)


# ------------------------------------------------------------------------------ deals
def test_hand_deal_is_the_engines_deal_turned_to_the_dealer():
    for seed in range(5):
        engine = GameState(KNOCK, np.random.default_rng(seed))
        for dealer in range(4):
            deal = hand_deal(KNOCK, seed, dealer)
            assert deal["dealer"] == dealer and deal["upcard"] == engine.upcard
            for k in range(4):  # hands keep their place relative to the dealer
                assert sorted(deal["hands"][(dealer + k) % 4]) == sorted(engine.initial_hands[(engine.dealer + k) % 4])


def test_hand_deal_bid_euchre_with_joker():
    rules = Rules.preset("bid", joker=True)
    deal = hand_deal(rules, 3, 2)
    assert len(deal["hands"][2]) == 7 and "upcard" not in deal
    GameState(rules, deal=deal)  # valid for the engine


# ------------------------------------------------------------------------------ matches
def test_random_against_itself_interval_contains_zero():
    r = evaluate("random", "random", KNOCK, n=300, seed=3, workers=1)
    assert isinstance(r, MatchResult)
    assert r.deals == 300 and r.hands == 600 and r.games == 0
    assert r.margin_low < 0 < r.margin_high
    assert 0.4 < r.points_share < 0.6
    assert math.isnan(r.win_rate)


def test_deterministic_agent_against_itself_gives_exactly_zero():
    r = evaluate(FirstLegalAgent, FirstLegalAgent, KNOCK, n=40, seed=1, workers=1)
    assert all(rec.diff0 + rec.diff1 == 0 for rec in r.records)
    assert r.margin == 0 and r.points_a == r.points_b
    assert any(rec.diff0 != 0 for rec in r.records)  # the deals themselves are not all even


def test_greedy_beats_random():
    r = evaluate(GreedyAgent, "random", KNOCK, n=150, seed=2, workers=1)
    assert r.agent_a == "greedy" and r.agent_b == "random"
    assert r.margin_low > 0
    assert r.points_share > 0.55
    swapped = evaluate("random", GreedyAgent, KNOCK, n=150, seed=2, workers=1)
    assert swapped.margin_high < 0


def test_results_do_not_depend_on_workers_or_chunks():
    one = evaluate("random", "random", KNOCK, n=60, seed=5, workers=1)
    two = evaluate("random", "random", KNOCK, n=60, seed=5, workers=2, chunk=7)
    odd = evaluate("random", "random", KNOCK, n=60, seed=5, workers=1, chunk=13)
    assert one.records == two.records == odd.records
    assert (one.margin, one.margin_low, one.margin_high) == (two.margin, two.margin_low, two.margin_high)
    other = evaluate("random", "random", KNOCK, n=60, seed=6, workers=1)
    assert other.records != one.records


class ThreadRecordingAgent(GreedyAgent):
    """Greedy play that records torch's intra-op threads at each decision (as a checkpoint agent would see them)."""

    name = "threads"
    seen: set[int] = set()

    def act(self, observation, info):
        import torch

        ThreadRecordingAgent.seen.add(torch.get_num_threads())
        return super().act(observation, info)


def test_an_in_process_match_plays_on_one_torch_thread_and_restores_the_count():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        ThreadRecordingAgent.seen.clear()
        evaluate(ThreadRecordingAgent, "random", KNOCK, n=3, seed=1, workers=1)
        assert ThreadRecordingAgent.seen == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_game_mode():
    rules = Rules.preset("knock", game_target=5)
    r = evaluate(GreedyAgent, "random", rules, n=10, seed=4, episode="game", workers=2)
    assert r.deals == 10 and r.games == 20
    assert r.hands == sum(rec.hands0 + rec.hands1 for rec in r.records) >= 20 * 3
    assert 0 <= r.games_won_a <= 20 and r.win_rate == r.games_won_a / 20
    assert r.win_low <= r.win_rate <= r.win_high
    assert r.win_rate > 0.5 and r.margin > 0
    table = match_table([r])
    assert "| greedy | random | 10 |" in table and "%" in table
    assert "| games | A win rate | 95% CI (Wilson) |" in table and "| 20 |" in table


def test_hand_mode_table_has_no_game_columns():
    r = evaluate("random", "random", KNOCK, n=6, seed=0, workers=1)
    header, rule, row = match_table([r]).splitlines()
    assert header == "| A | B | deals | hands | margin A-B (pts/hand) | 95% CI | A points share | time |"
    assert rule.count("---") == 8 and row.startswith("| random | random | 6 | 12 |") and " - " not in row


def test_game_mode_same_seed_gives_same_deals_in_both_games():
    r = evaluate(FirstLegalAgent, FirstLegalAgent, Rules.preset("knock", game_target=5), n=5, seed=0,
                 episode="game", workers=1)
    for rec in r.records:  # identical deterministic players: the two games are the same game
        assert rec.hands0 == rec.hands1 and rec.diff0 == -rec.diff1 and rec.a_games == 1


def test_endless_games_are_abandoned_with_a_clear_error():
    # Bid Euchre without stick-the-dealer: players that always pass throw in every hand, 0-0 forever
    with pytest.raises(GameTooLongError, match="no result after 1000 hands with game_target=32"):
        evaluate(FirstLegalAgent, FirstLegalAgent, "bid", n=1, episode="game", workers=1)


def test_every_seat_has_its_own_instance_and_is_reset_each_deal():
    RecordingAgent.instances = 0
    agents = []

    def with_obs(seed):
        agents.append(RecordingAgent(seed, needs_observation=True))
        return agents[-1]

    def without_obs(seed):
        agents.append(RecordingAgent(seed, needs_observation=False))
        return agents[-1]

    evaluate(with_obs, without_obs, KNOCK, n=3, seed=0, workers=1)
    assert RecordingAgent.instances == 8
    for a in agents:
        # an instance sits at its seat in one play of each deal (the teams swap between plays)
        assert len(a.resets) == 3
        assert len(set(a.resets)) == 3 and all(isinstance(s, int) for s in a.resets)
    assert len({s for a in agents for s in a.resets}) == 24  # a distinct seed per deal, play and seat


def test_illegal_action_names_the_agent():
    with pytest.raises(IllegalActionError, match=r"agent 'cheater' at seat \d chose the illegal action"):
        evaluate(IllegalAgent, "random", KNOCK, n=2, seed=0, workers=1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="episode"):
        evaluate("random", "random", KNOCK, n=2, episode="rubber")
    with pytest.raises(ValueError, match="positive"):
        evaluate("random", "random", KNOCK, n=0)
    with pytest.raises(ValueError, match="unknown agent spec"):
        evaluate("nope", "random", KNOCK, n=2, workers=1)


def test_other_presets_run():
    for preset in ("classic", "multiplayer", "bid"):
        r = evaluate("random", "random", preset, n=8, seed=1, workers=1)
        assert r.hands == 16


def test_progress_bar_shows_the_live_margin():
    stream = io.StringIO()
    bar = Progress(10, "a vs b", stream=stream, delay=0.0, interval=0.0)
    bar.update(5, 0.25, 0.1)
    bar.close()
    text = stream.getvalue()
    assert "a vs b" in text and "5/10 deals" in text and "margin +0.250 ±0.100" in text and text.endswith("\n")
    quiet = io.StringIO()
    bar = Progress(10, "a vs b", stream=quiet)  # a run shorter than the delay draws nothing
    bar.update(10, 0.25, 0.1)
    bar.close()
    assert quiet.getvalue() == ""


def test_a_transient_bar_is_erased_without_a_blank_line():
    """leave=False (the trainer's periodic evaluations, which log their own line): the bar's line is blanked
    and the cursor left at its start, so the next line is written over it and nothing of the bar stays."""
    stream = io.StringIO()
    bar = Progress(10, "a vs b", stream=stream, delay=0.0, interval=0.0, leave=False)
    bar.update(5, 0.25, 0.1)
    bar.close()
    text = stream.getvalue()
    tail = text[text.rindex("±0.100]") + len("±0.100]"):]
    assert re.fullmatch(r"\r +\r", tail), repr(tail)


def test_live_half_width_is_the_final_interval():
    r = evaluate("random", "random", KNOCK, n=50, seed=7, workers=1)
    tally = RunningMargin()
    tally.add(r.records)
    assert tally.margin() == pytest.approx(r.margin, rel=1e-12)
    assert tally.half_width() == pytest.approx((r.margin_high - r.margin_low) / 2, rel=1e-9)


def test_write_match(tmp_path):
    r = evaluate("random", "random", KNOCK, n=5, seed=0, workers=1)
    paths = write_match(r, str(tmp_path))
    data = json.loads((tmp_path / "eval.json").read_text())
    assert data["deals"] == 5 and len(data["deal_records"]) == 5 and data["win_rate"] is None
    assert len((tmp_path / "deals.csv").read_text().splitlines()) == 6
    assert len(paths) == 3


# ------------------------------------------------------------------------------ ladder
def test_ladder_end_to_end(tmp_path):
    pytest.importorskip("matplotlib")
    result = run_ladder(["random", GreedyAgent, "random"], KNOCK, n=40, seed=1, workers=1, bootstrap=30)
    assert result.agents == ["random", "greedy", "random#2"]
    assert result.ratings[0] == 0 and result.low[0] == result.high[0] == 0  # anchored at the first agent
    assert result.ratings[1] > max(result.ratings[0], result.ratings[2])
    assert all(lo <= r <= hi for r, lo, hi in zip(result.ratings, result.low, result.high))
    assert len(result.matches) == 3
    report = ladder_report(result)
    assert "| 1 | greedy |" in report
    written = write_ladder(result, str(tmp_path / "out"))
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["ladder.csv", "ladder.json", "ladder.png", "matches.csv"] and len(written) == 4
    assert (tmp_path / "out" / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert data["anchor"] == "first agent = 0" and len(data["ratings"]) == 3
    assert len((tmp_path / "out" / "ladder.csv").read_text().splitlines()) == 4


def test_ladder_is_reproducible():
    a = run_ladder(["random", FirstLegalAgent], KNOCK, n=20, seed=2, workers=1, bootstrap=10)
    b = run_ladder(["random", FirstLegalAgent], KNOCK, n=20, seed=2, workers=2, bootstrap=10)
    assert a.ratings == b.ratings and a.low == b.low and a.high == b.high


# ------------------------------------------------------------------------------ other agents
def test_rules_agent_plays_a_duplicate_match():
    r = evaluate("rules", "random", KNOCK, n=10, seed=0, workers=1)
    assert r.hands == 20


def test_pimc_agent_plays_a_duplicate_match():
    r = evaluate("pimc:2", "random", KNOCK, n=2, seed=0, workers=1)
    assert r.hands == 4
