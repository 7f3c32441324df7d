"""The batch kernels: many games a call, for :mod:`euchre_env.envs.vector` and the compiled agents' twins. Each
loop runs one game at a time through :mod:`~euchre_env.compiled.rules`, :mod:`~euchre_env.compiled.observe` and
:mod:`~euchre_env.compiled.deal`, and adds no rule: its games end up as the reference engine's
(:mod:`euchre_env.game.engine`), as ``tests/differential/kernels_vs_engine.py`` shows at every step.

Each kernel comes in two builds (:func:`~euchre_env.compiled.builds.two_builds`): parallel over games (every core)
and serial, for callers whose cores are already busy (a trainer's learner): a parallel region waits for its
slowest thread, and its idle threads spin. A kernel takes the games' state as one
:class:`~euchre_env.compiled.layout.GameArrays` ``s`` and the tables as one
:class:`~euchre_env.compiled.layout.Tables` ``t``.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from euchre_env.compiled.builds import keyed, two_builds
from euchre_env.compiled.deal import deal_on, stream_uniforms
from euchre_env.compiled.layout import B_SIZE, CORE_FILES, CUR, FRAME, GAME_OVER, HANDNO, PH, RES_PTS, WINNER
from euchre_env.compiled.observe import decide, encode_seat
from euchre_env.compiled.rules import apply, legal_mask, start_hand

jit = keyed(CORE_FILES)


@jit(inline="always")
def slice_of(n, c, chunks):
    """``(lo, hi)``: slice ``c`` of ``chunks`` near-equal slices of ``n`` games (a batch kernel's ``prange`` unit)."""
    return n * c // chunks, n * (c + 1) // chunks


# Numba 0.68 loses writes made through a tuple's arrays (``s.st[g, f] = ...``) in the body of a ``prange`` loop of the
# parallel build (measured: none of them reach memory), though a call made from that body with the tuples works. So
# each batch kernel's ``prange`` loop calls a compiled function for its slice of games (:func:`_observe_slice`,
# ...), which reads and writes through the tuples as the serial code does: one call a slice, not a game.

@jit(_nrt=False)
def _observe_slice(s, games, lo, hi, obs, mask, raw, t, with_obs):
    """:func:`_observe_games` for ``games[lo:hi]`` with the scratch row ``raw``."""
    size = t.off[B_SIZE]
    for i in range(lo, hi):
        g = games[i]
        decide(s, g, obs[g], mask[g], raw[:size], raw[size:], t, with_obs)


def _observe_games(s, games, obs, mask, raw, t, with_obs):
    """Observation (with ``with_obs``) and mask of the seat to act in each of ``games``, in its frame; in
    ``len(raw)`` slices, slice ``c`` with the scratch row ``raw[c]`` (see :func:`_step_all`)."""
    n, chunks = games.shape[0], raw.shape[0]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        _observe_slice(s, games, lo, hi, obs, mask, raw[c], t, with_obs)


@jit(_nrt=False)
def _sparse_slice(s, games, lo, hi, size, row, mask, raw, ptr, col, val, t):
    """:func:`_observe_games_sparse` for ``games[lo:hi]``, its entries written from ``lo * len(row)`` on."""
    full = t.off[B_SIZE]
    words = row.view(np.uint64)
    p = lo * row.shape[0]
    for i in range(lo, hi):
        decide(s, games[i], row[:size], mask[i], raw[:full], raw[full:], t, True)
        for w in range(0, words.shape[0], 4):
            if words[w] | words[w + 1] | words[w + 2] | words[w + 3]:
                for j in range(2 * w, 2 * w + 8):
                    x = row[j]
                    col[p] = j
                    val[p] = x
                    p += x != 0
        ptr[i + 1] = p


def _observe_games_sparse(s, games, chunks, size, rows, mask, raw, ptr, col, val, t):
    """:func:`_observe_games` for a reader of non-zero entries (a network's first layer): the observation of the
    seat to act in each of ``games`` as compressed sparse rows, row ``i`` (game ``games[i]``) being the columns
    ``col[ptr[i]:ptr[i + 1]]`` in ascending order with the values ``val[...]``, and its mask in ``mask[i]``.

    Each observation is encoded into a scratch row that stays in the cache and read back there, so no dense
    batch is written to memory, copied and scanned again (docs/compiling.md has the measurement). The read skips
    8 entries at a time while they are all zero and takes the rest without a branch per entry.

    ``chunks`` slices of the games run at once in the parallel build, slice ``c`` with the scratch ``rows[c]``
    (the observation's ``size`` rounded up to a multiple of 8 floats, zero beyond it) and ``raw[c]``; each writes
    its entries from position ``lo * rows.shape[1]`` on (its first game's index times the row width, room for
    every entry of its rows), then the slices are moved together. ``col`` and ``val`` hold at least
    ``len(games) * rows.shape[1]`` entries; ``ptr`` ``len(games) + 1``."""
    n = games.shape[0]
    width = rows.shape[1]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        _sparse_slice(s, games, lo, hi, size, rows[c], mask, raw[c], ptr, col, val, t)
    ptr[0] = 0
    end = 0
    for c in range(chunks):  # the slices' entries moved together, in order (a slice only moves down)
        lo, hi = slice_of(n, c, chunks)
        start = lo * width
        count = (ptr[hi] - start) if hi > lo else 0
        for q in range(count):
            col[end + q] = col[start + q]
            val[end + q] = val[start + q]
        for i in range(lo, hi):
            ptr[i + 1] += end - start
        end += count


@jit(_nrt=False)
def _step_slice(s, lo, hi, actions, ended, obs, mask, raw, t, with_obs):
    """:func:`_step_all` for the games ``lo:hi`` with the scratch row ``raw``."""
    st = s.st
    size = t.off[B_SIZE]
    for g in range(lo, hi):
        ended[g] = apply(s, g, t.to_abs[st[g, FRAME], actions[g]], t)
        if not ended[g]:
            decide(s, g, obs[g], mask[g], raw[:size], raw[size:], t, with_obs)


def _step_all(s, actions, ended, obs, mask, raw, t, with_obs):
    """Apply every game's action (in its frame; all legal); ``ended[g]``: the hand ended. The games that go on
    get their next observation and mask at once (the game's state is still in cache).

    The games go in ``len(raw)`` slices (run at once in the parallel build), slice ``c`` encoding into the
    scratch row ``raw[c]`` (the absolute encoding, then the absolute mask): one row per slice stays in the
    cache, where a row per game was written to memory and read back at every observation."""
    n, chunks = actions.shape[0], raw.shape[0]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        _step_slice(s, lo, hi, actions, ended, obs, mask, raw[c], t, with_obs)


@jit(_nrt=False)
def _step_games_slice(s, games, lo, hi, actions, ended, observe, obs, mask, raw, t, with_obs):
    """:func:`_step_games` for ``games[lo:hi]`` with the scratch row ``raw``."""
    st = s.st
    size = t.off[B_SIZE]
    for i in range(lo, hi):
        g = games[i]
        ended[i] = apply(s, g, t.to_abs[st[g, FRAME], actions[i]], t)
        if ended[i]:
            continue
        if observe[g, st[g, CUR]]:
            decide(s, g, obs[g], mask[g], raw[:size], raw[size:], t, with_obs)
        else:
            legal_mask(s, g, t, mask[g])
            st[g, FRAME] = t.identity


def _step_games(s, games, actions, ended, observe, obs, mask, raw, t, with_obs):
    """:func:`_step_all` for the games ``games`` alone (``actions[i]`` for ``games[i]``; ``ended[i]``), and a game
    that goes on is observed only for a seat that ``observe[g, seat]`` marks: any other seat to act gets its
    legal mask in absolute ids and the frame ``t.identity`` (whose ids are the absolute ones), not encoded. Slices
    and their scratch rows ``raw[c]`` as in :func:`_step_all`."""
    n, chunks = games.shape[0], raw.shape[0]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        _step_games_slice(s, games, lo, hi, actions, ended, observe, obs, mask, raw[c], t, with_obs)


@jit
def first_illegal(mask, actions):
    """Index of the first game whose action is not legal in its mask (-1: all legal)."""
    for g in range(mask.shape[0]):
        a = actions[g]
        if a < 0 or a >= mask.shape[1] or not mask[g, a]:
            return g
    return -1


def _start_hands(s, games, deals, upcards, t):
    """:func:`~euchre_env.compiled.rules.start_hand` for each of ``games`` with its row of ``deals`` / ``upcards``
    (a call a game: start_hand is compiled on its own, so the tuples reach it whole)."""
    for i in prange(games.shape[0]):
        start_hand(s, games[i], deals[i], upcards[i], t)


@jit(inline="always")
def hand_outcome(st, g, e):
    """What the hand game ``g`` just finished does: ``(team0, ended, cut)``. ``team0``: team 0's reward
    (``episodes.hand_end_reward``: its margin, or with ``e.win_reward`` the game's result when the episode ends);
    ``ended``: the episode is over (``e.hand``, or the game decided); ``cut``: it is cut short by ``e.max_hands``
    hands (0: no limit) with the game undecided. ``e``: the :class:`~euchre_env.compiled.layout.Episodes`."""
    margin = st[g, RES_PTS] - st[g, RES_PTS + 1]  # team 0's
    ended = e.hand or st[g, PH] == GAME_OVER
    cut = (not ended) and e.max_hands > 0 and st[g, HANDNO] + 1 >= e.max_hands
    team0 = float(margin)
    if e.win_reward:
        if not ended:  # the game goes on, or was cut undecided: nobody won
            team0 = 0.0
        elif st[g, WINNER] >= 0:
            team0 = 1.0 if st[g, WINNER] == 0 else -1.0
        else:  # a single hand with no game winner yet: the sign of its margin
            team0 = float((margin > 0) - (margin < 0))
    return team0, ended, cut


@jit(_nrt=False)
def _hand_ends(st, games, e, ends):
    """:func:`_end_hands`'s first pass: every game's rewards and episode end, and its slot of the final
    observations (one pass in order: the slots count the episodes ended before)."""
    rewards, done, truncated, slot = ends.rewards, ends.done, ends.truncated, ends.slot
    m = 0
    for i in range(games.shape[0]):  # the rewards and the episodes' ends: a few reads a game
        g = games[i]
        team0, ended, cut = hand_outcome(st, g, e)
        rewards[g, 0] = team0
        rewards[g, 2] = team0
        rewards[g, 1] = -team0
        rewards[g, 3] = -team0
        done[g] = ended or cut
        truncated[g] = cut
        slot[i] = m if ended or cut else -1
        if ended or cut:
            m += 1


@jit(_nrt=False)
def _deal_on_slice(s, games, lo, hi, d, raw, u, e, slot, final, observe, obs, mask, t):
    """:func:`_end_hands`'s second pass for ``games[lo:hi]`` with the scratch rows ``raw`` and ``u``."""
    st = s.st
    size = t.off[B_SIZE]
    for i in range(lo, hi):
        g = games[i]
        if slot[i] >= 0 and e.with_obs:
            for seat in range(4):
                if observe[g, seat]:
                    encode_seat(s, g, seat, final[slot[i], seat], raw[:size], t)
        stream_uniforms(d.streams, g, u)
        deal_on(s, g, slot[i] >= 0, u, d, t)
        if observe[g, st[g, CUR]]:
            decide(s, g, obs[g], mask[g], raw[:size], raw[size:], t, e.with_obs)
        else:
            legal_mask(s, g, t, mask[g])
            st[g, FRAME] = t.identity


def _end_hands(s, games, d, scratch, e, ends, observe, obs, mask, t):
    """The end of the hands of ``games`` (they ended at this step), as the env ends them, then their next deal.

    Into ``ends`` (:class:`~euchre_env.compiled.layout.HandEnds`): the rewards (:func:`hand_outcome`: team 0's,
    seats 0 and 2; the other team's the opposite), ``done`` (the episode ended) and ``truncated`` (cut by
    ``e.max_hands``); ``slot[i]``: the row of ``final`` that holds the last observations of the seats of
    ``games[i]`` when its episode ended (with ``e.with_obs``), else -1; only the seats ``observe[g]`` marks are
    encoded (a single-seat driver reads its learner's alone), the other rows of ``final`` are left as they were.
    Then every game deals on (:func:`~euchre_env.compiled.deal.deal_on`, with uniforms from its stream
    ``d.streams[g]``, drawn into the slice's scratch row ``scratch.uniforms[c]``), and the new hand's first
    mask is written, with its observation if ``observe`` marks the seat to act, else (as :func:`_step_games`
    leaves an unmarked seat) in absolute ids under the frame ``t.identity``, not encoded."""
    _hand_ends(s.st, games, e, ends)
    raw, uniforms, slot, final = scratch.raw, scratch.uniforms, ends.slot, ends.final
    k, chunks = games.shape[0], raw.shape[0]
    for c in prange(chunks):  # the final observations and the next deal: each game on its own, in slices
        lo, hi = slice_of(k, c, chunks)
        _deal_on_slice(s, games, lo, hi, d, raw[c], uniforms[c], e, slot, final, observe, obs, mask, t)


def _random_actions(mask, u, out):
    """A uniformly random legal action per game from the uniforms ``u`` (for benchmarks and tests; every row of
    ``mask`` allows one, as every game's does)."""
    for g in prange(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[g, a]
        pick = int(u[g] * count)
        # The pick-th legal id (from 0) is the number of ids up to which at most pick are legal: counted without
        # a branch (a branch on each legal id is a guess the predictor mostly loses).
        seen = 0
        at = 0
        for a in range(mask.shape[1]):
            seen += mask[g, a]
            at += seen <= pick
        out[g] = at


# The batch kernels in their two builds, named after the digest of the core's sources (builds.keyed).
observe_games, observe_games_serial = two_builds(_observe_games, allocates=False, files=CORE_FILES)
observe_games_sparse, observe_games_sparse_serial = two_builds(_observe_games_sparse, allocates=False,
                                                               files=CORE_FILES)
step_all, step_all_serial = two_builds(_step_all, allocates=False, files=CORE_FILES)
step_games, step_games_serial = two_builds(_step_games, allocates=False, files=CORE_FILES)
start_hands, start_hands_serial = two_builds(_start_hands, allocates=False, files=CORE_FILES)
end_hands, end_hands_serial = two_builds(_end_hands, allocates=False, files=CORE_FILES)
random_actions, random_actions_serial = two_builds(_random_actions, allocates=False, files=CORE_FILES)
