"""Text rendering of a game: scores, dealer, trump and maker, hands, the current trick."""

from __future__ import annotations

from collections.abc import Callable

from euchre_env.game.cards import SUITS
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.seats import NUM_SEATS, team_of

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def contract_text(trump: int, maker: int, contract: int | None, maker_alone: bool, defender_alone: int,
                  name: Callable[[int], str] = lambda seat: f"seat {seat}") -> str:
    """The public facts of a hand's contract, as the text table and the human table show them:
    ``"   trump: hearts   maker: seat 2 (bid 3) alone   seat 1 defends alone"`` (``name`` names a seat)."""
    text = f"   trump: {SUIT_NAMES[SUITS[trump]]}   maker: {name(maker)}"
    if contract is not None:
        text += f" (bid {contract})"
    if maker_alone:
        text += " alone"
    if defender_alone >= 0:
        text += f"   {name(defender_alone)} defends alone"
    return text


# Who looks at the table (a rendering's viewer): a seat 0..3 (its own hand), TABLE (an onlooker: no hand until the
# hand is over; the envs' default, so that nothing hidden is shown unless asked) or ALL (the god view, every hand).
TABLE = "table"
ALL = "all"
VIEWERS = (TABLE, ALL, *range(NUM_SEATS))


def visible_hands(state: GameState, viewer: int | str) -> list[list[int] | None]:
    """Each seat's cards as ``viewer`` (:data:`VIEWERS`) sees them on the table, None for a hand it may not see: a
    seat's own hand, and every hand once the hand is over (or always, for :data:`ALL`). The one rule of the text
    table and the picture (euchre_env.views.picture)."""
    reveal = viewer == ALL or state.hand_over
    return [list(state.hands[s]) if reveal or s == viewer else None for s in range(NUM_SEATS)]


def render_text(state: GameState, viewer: int | str = TABLE) -> str:
    """A readable table as ``viewer`` sees it (:func:`visible_hands`: by default no hand until the hand is
    over)."""
    d = state.deck
    lines = [
        f"Euchre ({state.rules.preset_name})  hand {state.hand_number + 1}  "
        f"score: team 0 (seats 0+2) {state.scores[0]}  team 1 (seats 1+3) {state.scores[1]}"
        f"  target {state.rules.game_target}"
    ]
    if state.rules.rubber:
        lines.append(f"rubber: games won {state.games_won}, rubber points {state.rubber_points}")
    call = f"dealer: seat {state.dealer}"
    if state.upcard is not None:
        call += f"   up-card: {d.name(state.upcard)}"
        if state.upcard_suit >= 0 and state.upcard == d.joker_id:
            call += f" (offered as {SUIT_NAMES[SUITS[state.upcard_suit]]})"
        if state.turned_down:
            call += " (turned down)"
    if state.trump >= 0:
        call += contract_text(state.trump, state.maker, state.contract, state.maker_alone, state.defender_alone)
    lines.append(call)
    for s, hand in enumerate(visible_hands(state, viewer)):
        cards = " ".join(d.name(c) for c in hand) if hand is not None else "?? " * len(state.hands[s])
        tags = []
        if s == state.current_player:
            tags.append("to act")
        if state.out[s]:
            tags.append("sits out")
        tag = f"  <- {', '.join(tags)}" if tags else ""
        lines.append(f"  seat {s} (team {team_of(s)}): {cards.strip()}{tag}")
    if state.trick:
        played = ", ".join(f"seat {s}: {d.name(c)}" for s, c in zip(state.trick_seats, state.trick))
        lines.append(f"trick {len(state.tricks) + 1}: {played}")
    elif state.tricks:
        winner, seats, cards = state.tricks[-1]
        played = ", ".join(f"seat {s}: {d.name(c)}" for s, c in zip(seats, cards))
        lines.append(f"trick {len(state.tricks)}: {played}  -> seat {winner}")
    lines.append(f"tricks: team 0 {state.tricks_won[0]}, team 1 {state.tricks_won[1]}   phase: {state.phase.name}")
    if state.hand_result is not None:
        r = state.hand_result
        if r.get("thrown_in"):
            lines.append(f"hand thrown in ({r['thrown_in']}): no points")
        else:
            lines.append(f"hand over: points team 0 {r['points'][0]}, team 1 {r['points'][1]}")
    if state.phase == Phase.GAME_OVER:
        lines.append(f"game over: team {state.winner} wins")
    return "\n".join(lines)
