"""The oracle critic's privileged features: what the seat cannot see, for the value network only.

The critic only shapes the advantages the actor learns from; it is never played. Giving it every
hidden card lets it tell a good decision from a lucky deal (its value of a state no longer averages
over the hands the other seats might hold), which lowers the variance of the advantages, while the
actor, and so every checkpoint, still sees only the seat's own observation.

Layout (``Oracle.layout``, name -> (offset, size); ``n`` the deck's number of card ids, 24 for knock),
cards in the suit frame of the seat's observation (the identity for the absolute one), counts of copies:

- ``hands`` (4 x n): every seat's current hand, one card block per relative seat (0 = the seat itself,
  1 its left, 2 its partner, 3 its right);
- ``kitty`` (n): the undealt cards;
- ``discard`` (n): the dealer's discard (seen by the dealer only);
- ``opponent`` (one per kind): one-hot of who holds the other team in this game, over the league's kinds
  (``self``, ``past``, then each scripted agent spec of the mix).
"""

from __future__ import annotations

import numpy as np

from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, relative_seat
from euchre_env.views.structured import Frame


class Oracle:
    """Encodes the privileged features of ``seat`` in a game against ``opponent`` (one of ``kinds``)."""

    def __init__(self, rules: Rules, kinds: list[str]) -> None:
        n = rules.deck_spec.num_ids
        self.kinds = list(kinds)
        self._kind = {k: i for i, k in enumerate(self.kinds)}
        self.layout: dict[str, tuple[int, int]] = {}
        offset = 0
        for name, size in (("hands", NUM_SEATS * n), ("kitty", n), ("discard", n), ("opponent", len(kinds))):
            self.layout[name] = (offset, size)
            offset += size
        self.size = offset
        self._n = n
        self._rel = [[relative_seat(s, seat) for s in range(NUM_SEATS)] for seat in range(NUM_SEATS)]

    def encode(self, state: GameState, seat: int, frame: Frame, opponent: str, out: np.ndarray) -> np.ndarray:
        """Write the features of ``seat`` (cards in ``frame``, the frame of its observation) into ``out``."""
        n, canon, rel = self._n, frame.card_to_canonical, self._rel[seat]
        hands, kitty, discard = self.layout["hands"][0], self.layout["kitty"][0], self.layout["discard"][0]
        at = [hands + rel[s] * n + c for s, hand in enumerate(state.hands) for c in hand]
        at += [kitty + c for c in state.kitty]
        if state.discarded is not None:
            at.append(discard + state.discarded)
        cards = np.array(at, np.int64)
        cards += canon[cards % n] - cards % n  # each card into the frame (every card block starts at a multiple of n)
        opponents = self.layout["opponent"][0]
        out[:opponents] = np.bincount(cards, minlength=opponents)  # counts: the double deck's copies count twice
        out[opponents:] = 0.0
        out[opponents + self._kind[opponent]] = 1.0
        return out

    def card_places(self, extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The belief head's targets from rows of these features (``extra [k, size]``): ``(share [k, n, 4],
        hidden [k, n])``, ``share`` the part of a card's copies in each of
        :data:`~euchre_env.game.seats.CARD_PLACES` (the left seat's hand, the partner's, the right seat's,
        the kitty with the discard), ``hidden`` whether any copy is in one of those places: not in the seat's own
        hand and not played. Cards in the frame of the seat's observation, as the features are."""
        n, hands, kitty, discard = self._n, self.layout["hands"][0], self.layout["kitty"][0], self.layout["discard"][0]
        seats = extra[:, hands:hands + NUM_SEATS * n].reshape(len(extra), NUM_SEATS, n)
        out = extra[:, kitty:kitty + n] + extra[:, discard:discard + n]
        counts = np.concatenate([seats[:, 1:], out[:, None]], axis=1).transpose(0, 2, 1)  # [k, n, 4]
        total = counts.sum(-1)
        return (counts / np.maximum(total, 1.0)[..., None]).astype(np.float32), total > 0

    def encode_batch(self, hands: np.ndarray, kitty: np.ndarray, discard: np.ndarray, seats: np.ndarray,
                     card_frames: np.ndarray, opponents: list[str], out: np.ndarray) -> np.ndarray:
        """:meth:`encode` for ``k`` decisions at once, from the arrays of
        :meth:`euchre_env.envs.vector.VectorEuchre.hidden_cards` (rows of the games deciding): ``hands [k, 4, n]``,
        ``kitty [k, n]``, ``discard [k]`` (-1: none), the deciding ``seats [k]``, ``card_frames [k, n]`` (each
        absolute card id in the frame of that seat's observation), the ``opponents`` kinds; into ``out [k, size]``."""
        kinds = np.array([self._kind[o] for o in opponents], np.int64)
        _encode_rows(hands, kitty, discard, seats, card_frames, kinds, self.layout["hands"][0],
                     self.layout["kitty"][0], self.layout["discard"][0], self.layout["opponent"][0], out)
        return out


def _encode_rows(hands: np.ndarray, kitty: np.ndarray, discard: np.ndarray, seats: np.ndarray, frames: np.ndarray,
                 kinds: np.ndarray, hands_at: int, kitty_at: int, discard_at: int, opponent_at: int,
                 out: np.ndarray) -> None:
    """Row ``r`` of ``out``: each seat's hand (relative to ``seats[r]``), the kitty and the discard, each card at
    its column in the row's frame, and the opponent's kind, one-hot; the rest zero. Scatters of whole arrays: one
    NumPy call a block, not a Python step a card."""
    k, n = frames.shape
    out[:] = 0.0
    rows = np.arange(k)[:, None]
    for s in range(NUM_SEATS):
        block = hands_at + ((s - seats) % NUM_SEATS) * n  # [k]
        out[rows, block[:, None] + frames] = hands[:, s]
    out[rows, kitty_at + frames] = kitty
    dealt = np.flatnonzero(discard >= 0)
    out[dealt, discard_at + frames[dealt, discard[dealt]]] = 1.0
    out[np.arange(k), opponent_at + kinds] = 1.0
