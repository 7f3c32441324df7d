"""Seeds of a match: every random stream derives from (master seed, tag, keys).

A deal's cards, each agent's reset seed and the ladder's bootstrap draws come from their own
streams, so a result depends only on the master seed, never on the number of workers or how
the deals are split into runs.
"""

from __future__ import annotations

import numpy as np

# One tag per kind of stream; distinct tags give independent streams for the same keys.
TAG_DEAL = 0
TAG_AGENT = 1
TAG_BOOTSTRAP = 2


def derive_seed(*keys: int) -> int:
    """A 63-bit seed from non-negative integer keys (independent streams for distinct keys)."""
    state = np.random.SeedSequence([int(k) for k in keys]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def deal_seed(seed: int, index: int) -> int:
    """Seed of the ``GameState`` generator for deal (or game pair) ``index``."""
    return derive_seed(seed, TAG_DEAL, index)


def agent_seed(seed: int, index: int, play: int, seat: int) -> int:
    """Seed passed to ``agent.reset`` of ``seat`` before deal ``index``, play ``play``."""
    return derive_seed(seed, TAG_AGENT, index, play, seat)


def bootstrap_seed(seed: int, n: int) -> int:
    """Seed of the ladder's bootstrap resampling of ``n`` deals."""
    return derive_seed(seed, TAG_BOOTSTRAP, n)
