"""The belief head: where each card a seat cannot see lies, from what the seat knows.

An auxiliary head on the actor's last hidden features (:class:`BeliefHead`) gives, for every card id of the deck
(in the frame of the observation), a distribution over the four places a card the seat does not hold and has not
seen played can be (:data:`~euchre_env.game.seats.CARD_PLACES`): the hand of the seat on its left, its partner's,
the one on its right, or out of play (the undealt cards and the dealer's discard). It is trained in self-play by
supervision from the true deal (``ppo.belief_coef``; the targets come from the oracle critic's features,
training/oracle.py), and it reads nothing but the actor's input, so it knows only what the seat knows
(tests/training/test_belief.py changes the hidden cards and finds the same input and the same beliefs).

What uses it: the searches that sample their worlds from it (``AnchoredSearchAgent(..., worlds_from="belief")``,
the default for a checkpoint with a head, and so the call search, ``calls:N:CKPT``: the uniform consistent worlds
of :mod:`euchre_env.agents.search.worlds` resampled in proportion to the head's probability of each world's card
places); the expert phases, whose search network carries a frozen copy of the run's head (training/expert.py);
and ``experiments/belief_quality.py``, which scores it against uniform sampling over the consistent deals
(docs/agents.md#a-belief-over-the-hidden-cards).

Why a head on the actor rather than a network of its own: the actor's features already summarise the calls and
the play; the head costs one small product per decision, and its gradient may teach the actor's features to track
who holds what (as the policy-inference results in Skat suggest). A checkpoint carries it under ``"belief"``
(agents/neural/checkpoint.py); a network without one plays as before.
"""

from __future__ import annotations

import torch
from torch import nn

from euchre_env.game.seats import CARD_PLACES


class BeliefHead(nn.Module):
    """``[batch, features]`` -> ``[batch, cards, len(CARD_PLACES)]`` logits over each card's place (float32).

    One hidden layer of its own (``width`` tanh units) between the actor's features and the logits: a linear
    readout of a trained policy's features barely beat uniform sampling (cross-entropy 1.335 against 1.386 for
    uniform places, after 1.6 M decisions of knock_150m.pt's self-play), since those features keep what the policy
    needs, not who holds what."""

    def __init__(self, features: int, cards: int, width: int = 256) -> None:
        super().__init__()
        self.cards = cards
        self.hidden = nn.Linear(features, width)
        self.out = nn.Linear(width, cards * len(CARD_PLACES))
        nn.init.orthogonal_(self.hidden.weight, 2**0.5)
        nn.init.zeros_(self.hidden.bias)
        nn.init.orthogonal_(self.out.weight, 0.01)  # near-uniform beliefs to start
        nn.init.zeros_(self.out.bias)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        # float32 whatever the trunk multiplied in (bfloat16 under matmul_precision): small products, kept exact
        h = torch.tanh(self.hidden(features.float()))
        return self.out(h).view(-1, self.cards, len(CARD_PLACES))


def belief_loss(logits: torch.Tensor, share: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the beliefs ``logits [b, cards, 4]`` against the true places ``share [b, cards, 4]`` (the
    share of a card's hidden copies in each place), averaged over the cards the seat cannot see (``hidden [b,
    cards]``); 0 (with a gradient) where there are none."""
    if not bool(hidden.any()):
        return logits.sum() * 0
    cross = -(share * torch.log_softmax(logits, dim=-1)).sum(-1)
    return cross[hidden].mean()
