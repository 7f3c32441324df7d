"""The compiled engine's layout: one home for the numbers every kernel and every reader of its arrays shares.

- :class:`GameArrays`: the state of a batch of games, one value (``st`` and the per-card arrays below);
- :class:`Tables`: every table the kernels read, one named bundle (built by :mod:`euchre_env.compiled.tables`
  from the game's and the views' modules);
- the index constants of ``st``'s fields, of ``opt``, ``tab``, the action kinds and the observation offsets.

The phases, the rubber bonus and the score bound are read from their reference modules
(:mod:`euchre_env.game.phases`, :mod:`euchre_env.game.scoring`, :mod:`euchre_env.views.observation`), never
retyped; they reach the C as ``c/layout.h``, generated from this module by ``c/gen_layout.py`` and checked by
tests/compiled/test_layout_header.py.

State of game ``g`` (all ``int32`` unless said):

- ``st[g, F]``: scalar fields, ``F`` one of the constants below (phase, seat to act, dealer, ...);
- ``hands[g, seat, card]`` (int8): copies of each card id in each hand now; ``dealt`` the same as dealt;
- ``tc[g, k, j]`` / ``ts[g, k, j]`` (int8): card and seat of the ``j``-th play of trick ``k`` (done tricks,
  then the one in progress at ``k = st[g, NTR]`` with ``st[g, NCUR]`` cards);
- ``calls[g, r, seat]`` (int16): the action id ``seat`` took in calling round ``r`` (-1: not spoken);
  every seat speaks at most once a round, which is what the observation records.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from euchre_env.game import scoring as _scoring
from euchre_env.game.phases import Phase
from euchre_env.game.rules import OPTIONS
from euchre_env.views import blocks as _blocks

# ---- scalar fields of st[g, :] ------------------------------------------------------------------------
PH, CUR, DEALER, UP, UPSUIT, UPTAKEN, TDOWN, TRUMP, MAKER, MALONE, DEFALONE = range(11)
OUT = 11  # 11..14: seat sits out this hand
SPK, DISC, NTR, NCUR = 15, 16, 17, 18  # speakers this round, discard (-1), tricks done, cards in the trick
TW = 19  # 19, 20: tricks won per team
SC = 21  # 21, 22: game score per team
HANDNO = 23
GW = 24  # 24, 25: games won (rubbers)
RP = 26  # 26, 27: rubber points
NREN, REN = 28, 29  # reneged seats in order: count, then 29..32
CONTRACT, BIDDER, GIVEN, GIVENBACK = 33, 34, 35, 36  # Bid Euchre: contract as its bid rank (-1: none)
WINNER, RMARGIN = 37, 38  # game (rubber) winner, -1 while playing; rubber margin
RES_PTS = 39  # 39, 40: points of the hand just finished
RES_SC = 41  # 41, 42: scores after it (the finished game's, for rubbers)
THROWN, CLAIMANT, GWIN = 43, 44, 45  # 0 played / 1 all passed / 2 ace no face; claimant; game winner of it
FRAME = 46  # structured observation: the canonical frame of the seat to act
NF = 47

# ---- phases: the engine's own values (plain ints: layout.h defines them as constants) ------------------------
JOKER_SUIT, CALL1, DISCARD, CALL2, DEFEND, AUCTION, NAME_TRUMP, GIVE, GIVE_BACK, PLAY, HAND_OVER, GAME_OVER = (
    int(Phase.JOKER_SUIT), int(Phase.CALL1), int(Phase.DISCARD), int(Phase.CALL2), int(Phase.DEFEND),
    int(Phase.AUCTION), int(Phase.NAME_TRUMP), int(Phase.GIVE), int(Phase.GIVE_BACK), int(Phase.PLAY),
    int(Phase.HAND_OVER), int(Phase.GAME_OVER))
NUM_PHASES = len(Phase)

SCORE_BOUND = float(_blocks.SCORE_BOUND)
RUBBER_BONUS = int(_scoring.RUBBER_BONUS)

# ---- opt[:]: the rules as numbers -----------------------------------------------------------------
# First every option declared packed (euchre_env.game.rules.Option), O_<NAME> in declaration order, so that a new
# option reaches the C by its declaration alone (gen_layout.py writes these names into layout.h); then what the
# family and the deck give.
PACKED_OPTIONS = tuple(name for name, spec in OPTIONS.items() if spec.packed)
globals().update({f"O_{name.upper()}": index for index, name in enumerate(PACKED_OPTIONS)})
(O_BID, O_TRICKS, O_NIDS, O_JOKER, O_COPIES, O_NRANKS, O_JACK, O_QUEEN, O_KING,
 O_ACE) = range(len(PACKED_OPTIONS), len(PACKED_OPTIONS) + 10)
NOPT = O_ACE + 1

# ---- tab[:]: first ids of the action table's blocks (-1: absent) -------------------------------------
T_PASS, T_ORDER, T_ORDER_ALONE, T_NAME, T_NAME_ALONE, T_DEFEND, T_DISCARD, T_PLAY, T_BID, T_GIVE, T_ANF = range(11)
T_NBIDS, T_SIZE = 11, 12
NTAB = 13

# ---- action kinds (akind[a]); aarg[a] is the card, suit or bid rank -----------------------------------
K_PASS, K_ORDER, K_NAME, K_DEFEND, K_DISCARD, K_PLAY, K_BID, K_GIVE, K_ANF = range(9)

# ---- observation offsets off[:] (-1: no such block) --------------------------------------------------
# B_<NAME> for every block the observations declare (euchre_env.views.blocks.BLOCK_NAMES, in declaration order), so
# that a new block reaches the C by its declaration alone; then the two sizes.
globals().update({f"B_{name.upper()}": index for index, name in enumerate(_blocks.BLOCK_NAMES)})
B_BASE_SIZE, B_SIZE = len(_blocks.BLOCK_NAMES), len(_blocks.BLOCK_NAMES) + 1
NOFF = B_SIZE + 1


class GameArrays(NamedTuple):
    """The state of a batch of games (the module docstring says what each array holds)."""

    st: np.ndarray  # int32 [games, NF]
    hands: np.ndarray  # int8 [games, 4, cards]
    dealt: np.ndarray  # int8 [games, 4, cards]
    tc: np.ndarray  # int8 [games, tricks, 4]
    ts: np.ndarray  # int8 [games, tricks, 4]
    calls: np.ndarray  # int16 [games, rounds, 4]


class Tables(NamedTuple):
    """Every table the kernels read, for one rule set and one observation (:func:`euchre_env.compiled.tables.
    kernel_tables` builds it). A new table is one field here and one line there."""

    opt: np.ndarray  # int64 [NOPT]: the rules as numbers
    tab: np.ndarray  # int64 [NTAB]: the action table's blocks
    akind: np.ndarray  # int64 [actions]: each action's kind (K_*)
    aarg: np.ndarray  # int64 [actions]: its card, suit or bid rank
    aalone: np.ndarray  # int64 [actions]: alone (0 / 1)
    eff: np.ndarray  # int64 [5, cards]: effective suit of each card under trump - 1 .. 3
    power: np.ndarray  # int64 [4, cards]: trick power of each card under each trump
    rank: np.ndarray  # int64 [cards]: rank index (-1: the joker)
    printed: np.ndarray  # int64 [cards]: printed suit
    rnd: np.ndarray  # int64 [phases]: the calling round a phase records into (-1: none)
    off: np.ndarray  # int64 [NOFF]: the observation's block offsets
    leader_at: np.ndarray  # int64 [tricks]: where each trick's leader is encoded
    card_at: np.ndarray  # int64 [tricks, 4]: where each relative seat's card of a trick is encoded
    rnd_off: np.ndarray  # int64 [rounds]: each calling round's block
    rnd_width: np.ndarray  # int64 [rounds]: its columns a seat
    col: np.ndarray  # int64 [rounds, actions]: an action's column in its round
    perms: np.ndarray  # int64 [8, size]: each suit frame's source entries
    cands: np.ndarray  # int64 [5, 8]: the candidate frames of each reference suit
    ncands: np.ndarray  # int64 [5]: how many
    to_abs: np.ndarray  # int64 [frames, actions]: a frame's id -> the absolute id
    structured: bool  # the structured observation (else the absolute one)
    identity: int  # the frame whose ids are the absolute ones


class DealBuffers(NamedTuple):
    """What dealing on needs: the pack, each game's scratch rows for a deal and each game's stream of uniforms."""

    pack: np.ndarray  # int16 [cards in the pack]
    order: np.ndarray  # int16 [games, cards in the pack]: a shuffled pack (scratch)
    deal: np.ndarray  # int16 [games, 4, hand size (+1)]: a deal laid out (scratch)
    streams: np.ndarray  # uint64 [games]: each game's stream state (kernels' stream_uniforms)


class Episodes(NamedTuple):
    """How a hand's end ends episodes and what the step encodes (the env's options, as numbers)."""

    hand: bool  # every hand is an episode
    max_hands: int  # hands after which an undecided game is cut (0: no limit)
    win_reward: bool  # the reward is the game's result, not the hand's margin
    with_obs: bool  # observations are encoded (not observation="none")
