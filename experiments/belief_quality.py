"""How well a belief head knows where the unseen cards are, against uniform sampling over the consistent deals.

    python experiments/belief_quality.py runs/knock_belief/checkpoints/latest.pt --deals 200 --seed 47100

The network plays all four seats (greedy) on ``--deals`` seeded knock hands; at every decision, for the seat to
act and every card it does not hold and has not seen played, three things are compared with the card's true place
(:data:`~euchre_env.game.seats.CARD_PLACES`):

- the head's probabilities (``NeuralAgent.card_beliefs``);
- uniform sampling over the deals consistent with what the seat knows (``WorldSampler``): each card's marginal,
  estimated from ``--draws`` uniform worlds, averaged over the cards of its suit group (they are exchangeable
  there), with a floor of 1/(2 draws) on places the seat's knowledge allows;
- per card: mean log-probability of the true place and accuracy of the most probable place;
- per deal: the log-probability of the true deal under uniform sampling, ``-log(consistent deals)`` (exact),
  and under the head restricted to the consistent deals (what the search samples from): the product of the
  head's probabilities of the true places, over its sum on the consistent deals (estimated from the same draws).

Decisions whose true deal the sampler rules out (the dealer discarded the up-card it took: the sampler assumes it
did not) are counted and left out. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.search.worlds import World, WorldSampler, world_places
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.seats import CARD_PLACES, OUT_OF_PLAY, card_place
from euchre_env.views.infostate import information_state


def uniform_places(sampler: WorldSampler, info, draws: int, rng: np.random.Generator, n: int
                   ) -> tuple[np.ndarray, list[World]]:
    """Each card's marginal place under uniform consistent deals (suit-group averaged), and the worlds drawn."""
    worlds = [sampler.sample(rng) for _ in range(draws)]
    marginal = sum(world_places(w, info.seat, n) for w in worlds) / draws
    for group, allowed in zip(sampler.groups, sampler.allowed):
        cards = sorted(set(group))
        allowed_places = np.zeros(len(CARD_PLACES), bool)  # the group's slots: the other seats, then the pile
        for k, ok in enumerate(allowed):
            allowed_places[card_place(sampler.slots[k], info.seat) if k < len(sampler.slots) else OUT_OF_PLAY] = ok
        marginal[cards] = np.where(allowed_places, np.maximum(marginal[cards].mean(0), 0.5 / draws), 0.0)
    return marginal / np.maximum(marginal.sum(1, keepdims=True), 1e-12), worlds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=47100)
    ap.add_argument("--draws", type=int, default=400)
    args = ap.parse_args()
    agent = NeuralAgent(args.checkpoint)
    rules = agent.rules
    n = rules.deck_spec.num_ids
    rng = np.random.default_rng(args.seed)
    sums = {k: 0.0 for k in ("head_ll", "uniform_ll", "head_hit", "uniform_hit", "cards",
                             "head_deal", "uniform_deal", "decisions", "ruled_out")}
    by_phase: dict[str, list[float]] = {}
    for deal in range(args.deals):
        state = GameState(rules, args.seed * 100_003 + deal)
        while not state.hand_over:
            seat = state.current
            info = information_state(state, seat)
            truth = world_places(World(tuple(tuple(h) for h in state.hands),
                                       tuple([*state.kitty, *([] if state.discarded is None else [state.discarded])])),
                                 seat, n)
            hidden = truth.sum(1) > 0
            place = truth.argmax(1)
            sampler = WorldSampler(info)
            uniform, worlds = uniform_places(sampler, info, args.draws, rng, n)
            head = agent.card_beliefs(info)
            rows = np.flatnonzero(hidden)
            u_true = uniform[rows, place[rows]]
            if (u_true <= 0).any():
                sums["ruled_out"] += 1
            else:
                h_true = head[rows, place[rows]]
                sums["head_ll"] += float(np.log(h_true).sum())
                sums["uniform_ll"] += float(np.log(u_true).sum())
                sums["head_hit"] += float((head[rows].argmax(1) == place[rows]).sum())
                sums["uniform_hit"] += float((uniform[rows].argmax(1) == place[rows]).sum())
                sums["cards"] += len(rows)
                log_head = np.log(np.maximum(head, 1e-12))
                log_count = math.log(sampler.count())
                drawn = np.array([float((world_places(w, seat, n) * log_head).sum()) for w in worlds])
                top = drawn.max()
                log_z = top + math.log(np.mean(np.exp(drawn - top))) + log_count  # sum over consistent deals
                head_deal = float((truth * log_head).sum()) - log_z
                sums["head_deal"] += head_deal
                sums["uniform_deal"] -= log_count
                sums["decisions"] += 1
                kind = "play" if state.phase == Phase.PLAY else "calls"
                by_phase.setdefault(kind, [0.0, 0.0, 0.0])
                by_phase[kind][0] += head_deal
                by_phase[kind][1] -= log_count
                by_phase[kind][2] += 1
            state.apply(agent.act(None, {"information_state": info}))
    c, d = sums["cards"], sums["decisions"]
    print(json.dumps({
        "checkpoint": args.checkpoint, "deals": args.deals, "seed": args.seed, "draws": args.draws,
        "decisions": int(d), "cards": int(c), "ruled_out": int(sums["ruled_out"]),
        "card_log_likelihood": {"head": sums["head_ll"] / c, "uniform": sums["uniform_ll"] / c},
        "card_accuracy": {"head": sums["head_hit"] / c, "uniform": sums["uniform_hit"] / c},
        "deal_log_likelihood": {"head": sums["head_deal"] / d, "uniform": sums["uniform_deal"] / d},
        "deal_log_likelihood_by_phase": {k: {"head": v[0] / v[2], "uniform": v[1] / v[2], "decisions": int(v[2])}
                                         for k, v in by_phase.items()},
    }, indent=1))


if __name__ == "__main__":
    sys.exit(main())
