"""``np.random.default_rng(seed)``, re-seeded in place: the same generator state in about 3 µs instead of 13.

A user's loop that calls ``env.reset(seed=episode)`` at every hand paid more for the new generator than for a
tenth of the hand's decisions: ``default_rng`` hashes the seed through a ``SeedSequence`` and builds a new
``PCG64`` around it. :func:`reseed` computes the same 128-bit PCG64 state and increment (the seed's four words in
C, ``_core.seed_words``; the 128-bit arithmetic in Python's integers) and writes them into an existing generator,
so a seed still deals exactly the hands of ``GameState(rules, np.random.default_rng(seed))``
(tests/differential/test_reseed_vs_default_rng.py compares the states).

The algorithms are NumPy's: ``SeedSequence``'s entropy pool and ``generate_state`` (numpy/random/
bit_generator.pyx; ported in ``euchre_env/compiled/c/engine.h``), then ``pcg_setseq_128_srandom_r`` (PCG64's
seeding from four 64-bit words).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.compiled.native import CORE, extension

_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG64's 128-bit multiplier
_M128 = (1 << 128) - 1


_words: Any = None  # _core.seed_words, once imported


def seed_words(seed: Any) -> tuple[int, int, int, int]:
    """The four 64-bit words ``SeedSequence(seed).generate_state(4, np.uint64)`` of a seed 0 .. 2**64 - 1 (C:
    ``_core.seed_words``, imported at the first call: this module imports where the core is not built)."""
    global _words
    if _words is None:
        _words = extension(CORE).seed_words
    return _words(seed)


def reseed(generator: np.random.Generator | None, seed: Any) -> np.random.Generator:
    """``generator`` re-seeded in place as ``np.random.default_rng(seed)`` would seed a new one, and returned;
    a new ``default_rng(seed)`` where that cannot be done (no generator, another bit generator, or a seed
    that is not an integer from 0 to 2**64 - 1: a sequence, a ``SeedSequence``, a negative number, which
    ``default_rng`` itself accepts or rejects in its own words)."""
    if (generator is None or type(generator.bit_generator) is not np.random.PCG64
            or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 1 << 64):
        return np.random.default_rng(seed)
    w0, w1, w2, w3 = seed_words(seed)
    initstate = (w0 << 64) | w1
    inc = ((((w2 << 64) | w3) << 1) | 1) & _M128
    state = (((inc + initstate) & _M128) * _PCG_MULT + inc) & _M128  # pcg_setseq_128_srandom_r's two steps
    generator.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                                     "has_uint32": 0, "uinteger": 0}
    return generator
