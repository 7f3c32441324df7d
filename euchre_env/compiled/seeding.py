"""``np.random.default_rng(seed)``, re-seeded in place: the same generator state in about 3 µs instead of 13.

A user's loop that calls ``env.reset(seed=episode)`` at every hand paid more for the new generator than for a
tenth of the hand's decisions: ``default_rng`` hashes the seed through a ``SeedSequence`` and builds a new
``PCG64`` around it. :func:`reseed` computes the same 128-bit PCG64 state and increment in one compiled call
and writes them into an existing generator, so a seed still deals exactly the hands of
``GameState(rules, np.random.default_rng(seed))`` (tests/differential/test_reseed_vs_default_rng.py compares the
states).

The algorithms are NumPy's: ``SeedSequence``'s entropy pool and ``generate_state`` (numpy/random/
bit_generator.pyx), then ``pcg_setseq_128_srandom_r`` (PCG64's seeding from four 64-bit words).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_U32 = np.uint64(0xFFFFFFFF)
_INIT_A, _MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
_INIT_B, _MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
_MIX_L, _MIX_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
_SHIFT, _WORD = np.uint64(16), np.uint64(32)
POOL = 4  # SeedSequence's default pool size, in 32-bit words
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG64's 128-bit multiplier
_M128 = (1 << 128) - 1


@njit(cache=True)
def _hashmix(value, hash_const):
    """SeedSequence's hashmix: the hashed ``value`` and the next hash constant."""
    value = (value ^ hash_const) & _U32
    hash_const = (hash_const * _MULT_A) & _U32
    value = (value * hash_const) & _U32
    return value ^ (value >> _SHIFT), hash_const


@njit(cache=True)
def _mix(x, y):
    result = (_MIX_L * x - _MIX_R * y) & _U32
    return result ^ (result >> _SHIFT)


@njit(cache=True)
def seed_words(seed):
    """The four 64-bit words ``SeedSequence(seed).generate_state(4, np.uint64)`` for a seed below 2**64, as a
    tuple. Scalars only: no array to allocate or box, a call of about half a microsecond."""
    low, high = seed & _U32, seed >> _WORD
    h = _INIT_A
    # The pool of POOL words: the entropy (one 32-bit word, two when the seed needs them), then zeros.
    p0, h = _hashmix(low, h)
    p1, h = _hashmix(high, h)  # high is 0 for a one-word seed, the pad SeedSequence hashes there too
    p2, h = _hashmix(np.uint64(0), h)
    p3, h = _hashmix(np.uint64(0), h)
    pool = [p0, p1, p2, p3]
    for src in range(POOL):
        for dst in range(POOL):
            if src != dst:
                hashed, h = _hashmix(pool[src], h)
                pool[dst] = _mix(pool[dst], hashed)
    h = _INIT_B
    out = [np.uint64(0)] * 4
    for i in range(8):
        value = (pool[i % POOL] ^ h) & _U32
        h = (h * _MULT_B) & _U32
        value = (value * h) & _U32
        value ^= value >> _SHIFT
        if i % 2 == 0:
            out[i // 2] = value
        else:
            out[i // 2] |= value << _WORD
    return out[0], out[1], out[2], out[3]


def reseed(generator: np.random.Generator | None, seed: Any) -> np.random.Generator:
    """``generator`` re-seeded in place as ``np.random.default_rng(seed)`` would seed a new one, and returned;
    a new ``default_rng(seed)`` where that cannot be done (no generator, another bit generator, or a seed
    that is not an integer from 0 to 2**64 - 1: a sequence, a ``SeedSequence``, a negative number, which
    ``default_rng`` itself accepts or rejects in its own words)."""
    if (generator is None or type(generator.bit_generator) is not np.random.PCG64
            or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 1 << 64):
        return np.random.default_rng(seed)
    w0, w1, w2, w3 = seed_words(np.uint64(seed))
    initstate = (int(w0) << 64) | int(w1)
    inc = ((((int(w2) << 64) | int(w3)) << 1) | 1) & _M128
    state = (((inc + initstate) & _M128) * _PCG_MULT + inc) & _M128  # pcg_setseq_128_srandom_r's two steps
    generator.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                                     "has_uint32": 0, "uinteger": 0}
    return generator
