"""Evaluation of agents: duplicate matches, their statistics, reports and the rating ladder.

    from euchre_env.evaluation import evaluate, run_ladder, MatchResult

Modules, bottom to top: ``seeds`` (every random stream of a match), ``match`` (what a match
plays and the playing of its deals), ``stats`` (quantiles, intervals, Bradley-Terry),
``progress`` (the live bar), ``pool`` (worker processes), ``ray_backend`` (Ray tasks), ``results``
(:class:`MatchResult`, merging runs), ``evaluate`` (the entry point), ``ladder`` (round robin), ``report`` (tables
and files). Needs the ``eval`` extra (scipy, tqdm).
"""

from euchre_env.evaluation.evaluate import evaluate
from euchre_env.evaluation.ladder import LadderResult, run_ladder
from euchre_env.evaluation.match import DealRecord, GameTooLongError, IllegalActionError, Match
from euchre_env.evaluation.pool import play_match
from euchre_env.evaluation.report import ladder_report, match_table, write_ladder, write_match
from euchre_env.evaluation.results import MatchResult, merge_results

__all__ = [
    "DealRecord", "GameTooLongError", "IllegalActionError", "LadderResult", "Match", "MatchResult", "evaluate",
    "ladder_report", "match_table", "merge_results", "play_match", "run_ladder", "write_ladder", "write_match",
]
