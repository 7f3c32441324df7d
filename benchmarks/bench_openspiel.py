"""Decisions per second through ``euchre_env.openspiel`` (our engine as an OpenSpiel game) next to our raw env.

Every row plays single hands of the preset under uniformly random play for ``--seconds`` and counts decisions
(actions chosen by a seat, never a chance outcome); the rate is the median of ``--repeats`` rounds, the rows
measured round-robin so that background load skews the ratios less.

Rows:

* ``raw env``: ``euchre_env.raw_env(rules=..., episode="hand")`` in the RL loop of benchmarks/bench_env.py
  (``last()``, read the observation and the mask, a random legal action, ``step()``);
* ``openspiel playout``: the OpenSpiel state driven from Python as OpenSpiel's sampling algorithms drive it:
  chance outcomes sampled by their probabilities (a walk of the cumulative probabilities, as OpenSpiel's C++
  ``SampleAction``), ``legal_actions()``, the perfect-recall tensor of the seat to act filled at each decision
  (``make_observation(...).set_from``, as benchmarks/bench_env.py's OpenSpiel row), ``apply_action``;
* ``openspiel playout numpy-chance``: the same with chance sampled by ``zip(*chance_outcomes())`` and
  ``numpy``'s ``choice(p=...)``, the idiom of OpenSpiel's Python MCCFR and random-rollout evaluator (about
  20 us a draw, 21 draws a hand);
* ``openspiel playout+clone``: the same with ``state.clone()`` before every decision, as tree searches
  (MCTS, IS-MCTS) and external-sampling MCCFR copy states;
* ``openspiel no-tensor``: ``playout`` without the tensor (what OpenSpiel's string-keyed tabular algorithms
  read is the information-state string: the ``+string`` row adds it instead).

``raw/row`` is how many times slower than the raw env's step a row's decision is; the target is 3 for the
game-tree traversal. ``--algorithms`` also times OpenSpiel's outcome-sampling MCCFR (Python and C++) and
external-sampling MCCFR (Python) for ``--seconds`` each, and one decision of ``openspiel:ismcts:1000`` and
``openspiel:mcts:1000``.

    .venv/bin/python benchmarks/bench_openspiel.py --rules knock --seconds 2 --repeats 3 --algorithms
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

import euchre_env
import euchre_env.openspiel as eo


def raw_env_row(rules: str) -> Callable[[float], tuple[int, float]]:
    env = euchre_env.raw_env(rules=rules, episode="hand")
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, float]:
        decisions = 0
        start = time.perf_counter()
        end = start + seconds
        while time.perf_counter() < end:
            env.reset()
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                _ = obs["observation"]
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                decisions += 1
        return decisions, time.perf_counter() - start

    return run


def openspiel_row(rules: str, chance: str = "walk", tensor: bool = True, clone: bool = False,
                  string: bool = False) -> Callable[[float], tuple[int, float]]:
    game = pyspiel.load_game(eo.preset_game_name(rules))
    # The tensor as OpenSpiel's Python algorithms read it without copies: the observer's numpy array
    # (state.information_state_tensor() would copy it to a C++ vector and back to a Python list).
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    rng = np.random.default_rng(0)
    draw = random.Random(0).random

    def run(seconds: float) -> tuple[int, float]:
        decisions = 0
        start = time.perf_counter()
        end = start + seconds
        while time.perf_counter() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    if chance == "numpy":  # the idiom of OpenSpiel's Python MCCFR and rollout evaluator
                        actions, probs = zip(*outcomes)
                        state.apply_action(actions[rng.choice(len(actions), p=probs)])
                    else:  # a walk of the cumulative probabilities, as OpenSpiel's C++ SampleAction does
                        z, action = draw(), outcomes[-1][0]
                        for a, p in outcomes:
                            z -= p
                            if z < 0:
                                action = a
                                break
                        state.apply_action(action)
                    continue
                if clone:
                    state = state.clone()
                player = state.current_player()
                legal = state.legal_actions()
                if tensor:
                    observer.set_from(state, player)
                if string:
                    state.information_state_string(player)
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
        return decisions, time.perf_counter() - start

    return run


def algorithm_rates(rules: str, seconds: float) -> None:
    """Iterations (or simulations) per second of OpenSpiel's algorithms on the preset's single-hand game."""
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    from euchre_env.agents.registry import make_agent
    from euchre_env.game.engine import GameState
    from euchre_env.game.rules import Rules
    from euchre_env.views.infostate import information_state

    game = pyspiel.load_game(eo.preset_game_name(rules))
    np.random.seed(0)
    solvers = {
        "Python outcome-sampling MCCFR": outcome_sampling_mccfr.OutcomeSamplingSolver(game).iteration,
        "C++ outcome-sampling MCCFR": pyspiel.OutcomeSamplingMCCFRSolver(game).run_iteration,
        "Python external-sampling MCCFR": external_sampling_mccfr.ExternalSamplingSolver(
            game, external_sampling_mccfr.AverageType.SIMPLE).iteration,
    }
    for name, step in solvers.items():
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            step()
            n += 1
        print(f"{name:32s} {n / (time.perf_counter() - start):8.1f} iterations/s")
    truth = GameState(Rules.preset(rules), 5)  # a first calling decision
    info = {"information_state": information_state(truth, truth.current)}
    for spec in ("openspiel:ismcts:1000", "openspiel:mcts:1000"):
        start = time.perf_counter()
        make_agent(spec, seed=0).act(None, info)
        took = time.perf_counter() - start
        print(f"{spec:32s} {took:8.2f} s a decision ({1000 / took:.0f} simulations/s)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="knock")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--algorithms", action="store_true", help="also time OpenSpiel's algorithms on the game")
    args = parser.parse_args(argv)
    rows = {
        "raw env": raw_env_row(args.rules),
        "openspiel playout": openspiel_row(args.rules),
        "openspiel playout numpy-chance": openspiel_row(args.rules, chance="numpy"),
        "openspiel playout+clone": openspiel_row(args.rules, clone=True),
        "openspiel no-tensor": openspiel_row(args.rules, tensor=False),
        "openspiel no-tensor+string": openspiel_row(args.rules, tensor=False, string=True),
    }
    for run in rows.values():
        run(0.2)  # warm-up: imports, caches, the compiled game's first call
    rates: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.repeats):
        for name, run in rows.items():
            n, seconds = run(args.seconds)
            rates[name].append(n / seconds)
    base = statistics.median(rates["raw env"])
    print(f"rules={args.rules} seconds={args.seconds} repeats={args.repeats} (median decisions/s)")
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"{name:32s} {rate:10,.0f}/s  {1e6 / rate:7.1f} us/decision  raw/row {base / rate:5.2f}")
    if args.algorithms:
        algorithm_rates(args.rules, args.seconds)


if __name__ == "__main__":
    main()
