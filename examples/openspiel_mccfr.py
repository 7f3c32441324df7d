"""Outcome-sampling MCCFR from OpenSpiel on our game, saved as a policy and rated against our agents.

Trains OpenSpiel's Python ``OutcomeSamplingSolver`` on one hand of a preset (``python_euchre_<preset>``, the
team's points margin as the return) for ``--seconds``, saves its average policy where the ``openspiel:mccfr:``
agent spec reads it (an ``.npz`` of plain arrays: loading it runs nothing), and plays a duplicate match of that
agent against ``rules`` and ``random``.

What to expect (docs/openspiel.md has the measured figures): about a hundred iterations a second on the
2-core machine and tens of new information states per iteration, so a few minutes visit a small fraction
of even the first calling decisions (a seat's five cards, the up-card and its position already make
millions of them). The saved policy plays the states it met by their average strategy and every other
one uniformly at random, so against ``rules`` it loses; the example shows the pipeline, and the numbers
say how far tabular CFR is from Euchre's size. The table lives in memory and grows by about 80 information
states an iteration, about 1 KB each: 20 s made 214,000 of them (364 MB peak), so size ``--seconds`` to the
memory you have (the default minute: about 0.8 GB).

    .venv/bin/python examples/openspiel_mccfr.py --rules knock --seconds 60 --deals 200 --out mccfr_knock.npz
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mccfr, outcome_sampling_mccfr

from euchre_env.agents.search.openspiel_bots import save_mccfr_policy
from euchre_env.evaluation.evaluate import evaluate
from euchre_env.game.rules import Rules
from euchre_env.openspiel import game_for_rules


def train(rules: Rules, seconds: float, seed: int) -> tuple[dict[str, list[float]], int, float]:
    """The average policy after ``seconds`` of outcome sampling: {information-state string: probabilities of
    the legal actions, ascending ids}; the number of iterations and their rate."""
    np.random.seed(seed)  # OpenSpiel's Python MCCFR samples with numpy's global generator
    game: pyspiel.Game = game_for_rules(rules)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    start = time.perf_counter()
    iterations = 0
    while time.perf_counter() - start < seconds:
        solver.iteration()
        iterations += 1
    rate = iterations / (time.perf_counter() - start)
    policy = {}
    for key, values in solver._infostates.items():  # the solver keeps its tables there (no public accessor)
        total = values[mccfr.AVG_POLICY_INDEX].sum()
        if total > 0:
            policy[key] = (values[mccfr.AVG_POLICY_INDEX] / total).tolist()
    return policy, iterations, rate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="knock", help="preset: knock, classic, multiplayer, bid")
    parser.add_argument("--seconds", type=float, default=60.0, help="training time (memory grows with it)")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals of each evaluation match")
    parser.add_argument("--out", default="mccfr_policy.npz", help="where the policy goes (an .npz of plain arrays)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rules = Rules.preset(args.rules)
    policy, iterations, rate = train(rules, args.seconds, args.seed)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{iterations} iterations in {args.seconds:.0f} s ({rate:.0f}/s), {len(policy)} information states "
          f"with a policy, peak memory {rss_mb:.0f} MB")
    save_mccfr_policy(args.out, rules, policy)
    spec = f"openspiel:mccfr:{args.out}"
    for opponent in ("rules", "random"):
        result = evaluate(spec, opponent, rules=rules, n=args.deals, seed=args.seed, workers=1)
        print(f"{spec} vs {opponent}: margin {result.margin:+.3f} points/hand "
              f"[{result.margin_low:+.3f}, {result.margin_high:+.3f}] over {result.hands} hands")


if __name__ == "__main__":
    main()
