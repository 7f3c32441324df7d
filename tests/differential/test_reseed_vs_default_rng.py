"""reseed() gives exactly the generator of np.random.default_rng(seed), in place."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env.compiled.seeding import reseed, seed_words

SEEDS = [0, 1, 2, 7, 255, 12345, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 3, 2**63, 2**64 - 1,
         *np.random.default_rng(0).integers(0, 2**63, 200).tolist()]


@pytest.mark.parametrize("seed", SEEDS[:13])
def test_the_words_are_the_seed_sequences(seed):
    want = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    assert list(seed_words(np.uint64(seed))) == want.tolist()


def test_a_reseeded_generator_is_default_rngs():
    generator = np.random.default_rng(99)
    generator.random(3)  # a used generator, with a buffered 32-bit half
    generator.integers(2**32, dtype=np.uint32)
    for seed in SEEDS:
        assert reseed(generator, seed) is generator
        fresh = np.random.default_rng(seed)
        assert generator.bit_generator.state == fresh.bit_generator.state, seed
        assert np.array_equal(generator.permutation(24), fresh.permutation(24))
        assert generator.integers(4) == fresh.integers(4)


@pytest.mark.parametrize("seed", [-1, 2**64, [1, 2], np.random.SeedSequence(3), None])
def test_other_seeds_get_default_rngs_own_answer(seed):
    generator = np.random.default_rng(1)
    try:
        want = np.random.default_rng(seed)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)[:20]):
            reseed(generator, seed)
        return
    got = reseed(generator, seed)
    if seed is not None:
        assert got.bit_generator.state == want.bit_generator.state


def _splitmix64(state: int, count: int) -> tuple[list[float], int]:
    """The reference splitmix64 (Steele, Lea and Flood 2014) in Python integers: ``count`` uniforms, the new state."""
    mask = (1 << 64) - 1
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        out.append((z >> 11) / 2**53)
    return out, state


def test_each_games_stream_of_uniforms_is_splitmix64():
    """The deals after a vector env's first are shuffled with uniforms from each game's own stream."""
    from euchre_env.compiled.batch import core

    streams = np.array([0, 1, 2**64 - 1, 0x0123456789ABCDEF], np.uint64)
    for g in range(streams.size):
        start = int(streams[g])
        for _ in range(3):  # the state moves on: three draws of 25 follow one another
            out = np.empty(25)
            core.stream_uniforms(streams, g, out)
            want, start = _splitmix64(start, 25)
            assert out.tolist() == want and int(streams[g]) == start
            assert ((out >= 0) & (out < 1)).all()
