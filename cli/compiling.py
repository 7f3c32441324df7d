"""``euchre compile``: build every compiled kernel of the project ahead of its first use (a Docker image, a cluster's
shared cache, a CI machine), with a line per build as it goes.

Without it nothing waits: the AEC env and ``euchre eval`` run on the reference engine while a background process
builds their kernels, and the batched envs compile theirs at their first step, announced (docs/compiling.md).
The machine code goes to Numba's cache (``NUMBA_CACHE_DIR`` when set, else beside the package's modules), where
every later process loads it in about a second.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from euchre_env.agents.rule_based.estimates import RULE_FILES
from euchre_env.compiled import builds
from euchre_env.compiled.builds import Family, build, is_built
from euchre_env.compiled.layout import CORE_FILES
from euchre_env.envs import single_seat_vector, vector, whole_step

COMMANDS = {"compile": "compile every kernel ahead of first use (a few minutes on 2 cores, once per install)"}

# The batched envs' kernels, which compile at their first use (no reference twin stands in for a batch of games).
VECTOR_BUILD = Family("vector", (*CORE_FILES, vector.__file__), "euchre_env.cli.compiling:warm_vector")
SINGLE_SEAT_BUILD = Family(
    "single_seat_vector", (*RULE_FILES, *whole_step.DRIVER_FILES, vector.__file__, single_seat_vector.__file__),
    "euchre_env.cli.compiling:warm_single_seat_vector")


def families() -> list[Family]:
    """Every build, in the order a user meets them: the one game, the batched match, the batched envs, PIMC's
    double-dummy solver."""
    from euchre_env.agents.search.double_dummy_compiled import DOUBLE_DUMMY_BUILD
    from euchre_env.compiled.game import GAME_BUILD
    from euchre_env.evaluation.batch_play import BATCH_PLAY_BUILD

    return [GAME_BUILD, BATCH_PLAY_BUILD, VECTOR_BUILD, SINGLE_SEAT_BUILD, DOUBLE_DUMMY_BUILD]


def _games(threads: int | None) -> int:
    """Games to warm a build with: on Numba's threads, enough that the agents' parallel builds run too (they take
    over from 256 games, PARALLEL_FROM in agents/rule_based/compiled.py and agents/neural/agent.py)."""
    return 8 if threads == 1 else 256


def warm_vector() -> None:
    """``VectorEuchre`` in every observation, on one thread and on Numba's threads, through ends of hands."""
    import numpy as np

    rng = np.random.default_rng(0)
    for threads in (1, None):
        for observation in ("none", "absolute", "structured"):
            venv = vector.VectorEuchre("knock", num_envs=_games(threads), seed=0, observation=observation,
                                       episode="hand", threads=threads)
            _, mask, _ = venv.reset()
            for _ in range(40):
                actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
                _, mask, *_ = venv.step(actions)


def warm_single_seat_vector() -> None:
    """``SingleSeatVectorEnv`` against random and rule-based opponents (its whole step), every observation."""
    import numpy as np

    rng = np.random.default_rng(0)
    for threads in (1, None):
        for opponents in ("random", "rules"):
            for observation in ("absolute", "structured"):
                envs = single_seat_vector.SingleSeatVectorEnv("knock", num_envs=_games(threads), opponents=opponents,
                                                              observation=observation, seed=0, threads=threads)
                _, infos = envs.reset(seed=0)
                for _ in range(20):
                    actions = np.array([rng.choice(np.flatnonzero(row)) for row in infos["action_mask"]])
                    _, _, _, _, infos = envs.step(actions)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("compile", help=COMMANDS["compile"], description=__doc__.split("\n\n")[0])
    p.add_argument("--force", action="store_true", help="build again even where a build is stamped done")


def run_compile(args: argparse.Namespace) -> int:
    todo = families()
    sys.stderr.write(f"euchre compile: {len(todo)} builds into {builds.cache_folder()}\n")
    start = time.perf_counter()
    for i, family in enumerate(todo, 1):
        if is_built(family) and not args.force:
            sys.stderr.write(f"  [{i}/{len(todo)}] {family.name}: built already\n")
            continue
        sys.stderr.write(f"  [{i}/{len(todo)}] {family.name}: compiling...")
        sys.stderr.flush()
        builds._announced = True  # this command says what it compiles itself
        sys.stderr.write(f" {build(family):.0f} s\n")
    sys.stderr.write(f"euchre compile: done in {time.perf_counter() - start:.0f} s; later processes load the "
                     "machine code in about a second\n")
    return 0
