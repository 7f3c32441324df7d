"""The compiled core's names in one place, for callers of 0.2's module: the layout's constants
(:mod:`~euchre_env.compiled.layout`) and the benchmarks' random policy. The kernels themselves are C
(``euchre_env/compiled/c``): the batch kernels are ``compiled._core.Batch``'s methods
(:mod:`~euchre_env.compiled.batch`), the AEC env's one game ``compiled._core.Game`` (:mod:`~euchre_env.compiled.game`).
"""

from __future__ import annotations

import numpy as np

from euchre_env.compiled.batch import core
from euchre_env.compiled.layout import *  # noqa: F403
from euchre_env.compiled.native import default_threads, run_slices


def random_actions(mask: np.ndarray, u: np.ndarray, out: np.ndarray, threads: int | None = None) -> None:
    """``out[g]``: a uniformly random legal action of each row of ``mask`` from the uniform ``u[g]``
    (``_core.random_actions``), in ``threads`` slices (default: every core)."""
    run_slices(core.random_actions, mask.shape[0], threads or default_threads(), mask, u, out)


def random_actions_serial(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """:func:`random_actions` on the caller's thread."""
    core.random_actions(mask, u, out)
