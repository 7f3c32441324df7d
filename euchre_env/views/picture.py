"""Pictures of the table: what ``render_mode="rgb_array"`` returns.

``euchre_env.env(render_mode="rgb_array")`` and ``SingleSeatEnv(render_mode="rgb_array")`` return
``env.render()`` as a ``(480, 640, 3)`` ``uint8`` array: the table as one seat may see it, drawn with
Pillow (the ``render`` extra: ``pip install 'euchre-env[render]'``; without it that render mode fails
when the env is built, saying so). Gymnasium's ``RecordVideo`` (``moviepy``, in the same extra) records
these frames into a video, and PettingZoo's ``render_mode="rgb_array"`` convention holds: ``env.render()``
returns the array.

What is drawn: the viewing seat's hand face up at the bottom (an onlooker, ``TABLE``, sees none), the other
hands as card backs (their counts beside the seat's name), the up-card (and whether it was turned down),
trump, the maker (its bid, alone), a lone defender, each seat's last call of the hand, the trick in progress
(else the last one, its winner's card outlined), the tricks each team has won, the game score (and a rubber's
games), the dealer (``D``) and the seat to act (in yellow). When a hand ends its result is written under the
score, and every hand is shown, as the text rendering does.

Which cards a viewer sees is decided in one place for both renderings,
:func:`euchre_env.views.render.visible_hands`; everything else public is drawn from the bottom seat's
:class:`~euchre_env.views.infostate.InfoState`, which holds no hidden card. The viewer is a seat 0..3,
``TABLE`` (the default: an onlooker, no hand face up until the hand is over) or ``ALL`` (the god view:
every hand face up), as in the text rendering.

>>> from euchre_env.game.engine import GameState
>>> import numpy as np
>>> from euchre_env.game.rules import Rules
>>> table_picture(GameState(Rules.preset("knock"), np.random.default_rng(0)), viewer=0).shape
(480, 640, 3)

The picture depends on the state and the seat only (the same state gives the same array), so frames can
be compared and cached. Pillow's built-in font is the only font (``ImageFont.load_default(size=...)``,
Pillow 10.1 or newer: nothing is downloaded); it has no suit symbols, so suits are drawn as shapes.
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from euchre_env.game.cards import SUITS
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.scoring import describe_hand
from euchre_env.game.seats import NUM_SEATS, relative_seat, team_of
from euchre_env.views.infostate import InfoState, information_state
from euchre_env.views.render import SUIT_NAMES, TABLE, visible_hands

if TYPE_CHECKING:  # Pillow is optional: imported when a picture is drawn
    from PIL import Image, ImageDraw, ImageFont

HEIGHT, WIDTH = 480, 640
PILLOW_MISSING = "render_mode='rgb_array' draws with Pillow 10.1 or newer: pip install 'euchre-env[render]'"

# The table on the left, the facts of the hand in a panel on the right.
TABLE_W = 470
FELT, PANEL, INK, DIM, TO_ACT = (30, 100, 60), (22, 44, 34), (240, 240, 232), (150, 170, 160), (250, 210, 60)
FACE, EDGE, RED, BLACK, JOKER = (250, 250, 244), (70, 70, 70), (200, 30, 45), (25, 25, 25), (120, 40, 160)
BACK, BACK_INNER, TAKEN = (40, 70, 150), (80, 115, 190), (250, 210, 60)
# Card sizes (width, height) of each place; the viewer's own hand is the largest.
BIG, SMALL, TRICK = (44, 64), (36, 52), (44, 64)
# Where each relative seat (0 = the seat at the bottom, 1 its left, 2 its partner, 3 its right) lays its
# card in the trick: top-left corners around the table's centre.
TRICK_AT = {0: (213, 268), 1: (148, 204), 2: (213, 140), 3: (278, 204)}


def require_pillow() -> None:
    """ImportError (one line naming the extra) unless Pillow 10.1 or newer can be imported: called when an env
    is built with ``render_mode="rgb_array"``, so that a missing extra shows then, not at the first frame."""
    try:
        import PIL
    except ImportError:
        raise ImportError(PILLOW_MISSING) from None
    version = tuple(int(part) for part in PIL.__version__.split(".")[:2])
    if version < (10, 1):  # ImageFont.load_default(size=...) came in 10.1
        raise ImportError(f"{PILLOW_MISSING} (found Pillow {PIL.__version__})")


def table_picture(state: GameState, viewer: int | str = TABLE, bottom: int | None = None) -> np.ndarray:
    """The table as ``viewer`` may see it (a seat 0..3, ``TABLE`` or ``ALL``: :data:`~.render.VIEWERS`), as a new
    ``(480, 640, 3)`` uint8 array.

    ``bottom`` is the seat drawn at the bottom (default the viewing seat, or seat 0); the others sit round the
    table as at a real one (its left on the left)."""
    from PIL import Image, ImageDraw

    seat = viewer if isinstance(viewer, int) else None
    bottom = (0 if seat is None else seat) if bottom is None else bottom
    info = information_state(state, bottom if seat is None else seat)  # its public parts alone are drawn
    hands = visible_hands(state, viewer)
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    canvas = _Canvas(image, ImageDraw.Draw(image))
    for s in range(NUM_SEATS):
        _draw_seat(canvas, info, s, relative_seat(s, bottom), hands[s], seat is None)
    _draw_centre(canvas, info, bottom)
    _draw_panel(canvas, info, state)
    return np.asarray(image, dtype=np.uint8).copy()


class _Canvas(NamedTuple):
    """The picture being drawn: the image (suits are pasted into it) and its drawing context."""

    image: Image.Image
    draw: ImageDraw.ImageDraw


# ---------------------------------------------------------------- the seats
def _draw_seat(canvas: _Canvas, info: InfoState, s: int, where: int, hand: list[int] | None, seatless: bool) -> None:
    """Seat ``s``'s name, tags and cards at its place ``where`` (relative to the bottom seat); ``seatless``: the
    viewer sits at no seat (an onlooker, the god view), so no seat is "you"."""
    draw = canvas.draw
    count = info.hand_sizes[s]
    name = f"seat {s} · team {team_of(s)}"
    if not seatless:
        name += " · you" if s == info.seat else " · partner" if team_of(s) == team_of(info.seat) else " · opponent"
    tags = [tag for tag, on in (("D", s == info.dealer), ("to act", s == info.to_act), ("sits out", info.out[s]))
            if on]
    if hand is None:
        tags.append(f"{count} card{'' if count == 1 else 's'}")
    last_call = next((text for who, text in reversed(info.calls) if who == s), None)
    colour = TO_ACT if s == info.to_act else DIM if info.out[s] else INK
    font = _font(12)
    cards = hand if hand is not None else [None] * count
    if where in (0, 2):  # a row: the name on one line beside the cards
        size = BIG if where == 0 else SMALL
        y = HEIGHT - size[1] - 8 if where == 0 else 8
        line = " · ".join([name, *tags] + ([f"said: {last_call}"] if last_call else []))
        label_y = y - 18 if where == 0 else y + size[1] + 4
        draw.text((TABLE_W // 2, label_y), line, fill=colour, font=font, anchor="mt")
        step = _step(len(cards), size[0], TABLE_W - 40, size[0] + 6)
        x0 = (TABLE_W - (size[0] + step * (len(cards) - 1))) // 2
        for i, card in enumerate(cards):
            _draw_card(canvas, x0 + i * step, y, size, info, card, s == info.to_act)
    else:  # a column on the left or right edge, the name above it
        left = where == 1
        x = 8 if left else TABLE_W - SMALL[0] - 8
        anchor = "la" if left else "ra"
        tx = 6 if left else TABLE_W - 6
        lines = [name, " · ".join(tags)] + ([f"said: {last_call}"] if last_call else [])
        for i, line in enumerate(lines):
            draw.text((tx, 92 + 14 * i), line, fill=colour, font=font, anchor=anchor)
        top, room = 140, 240
        step = _step(len(cards), SMALL[1], room, SMALL[1] // 2)
        for i, card in enumerate(cards):
            _draw_card(canvas, x, top + i * step, SMALL, info, card, s == info.to_act)


def _step(n: int, size: int, room: int, most: int) -> int:
    """The distance between ``n`` overlapping cards of ``size`` so that they fill at most ``room``."""
    return most if n <= 1 else min(most, (room - size) // (n - 1))


# ---------------------------------------------------------------- the centre: trick or up-card
def _draw_centre(canvas: _Canvas, info: InfoState, bottom: int) -> None:
    draw = canvas.draw
    font = _font(12)
    cx = TABLE_W // 2
    if info.trick or info.tricks:
        # The trick in progress; between tricks (and at the hand's end) the last one, its winner outlined.
        plays, winner = (info.trick, None) if info.trick else (info.tricks[-1][1], info.tricks[-1][0])
        number = len(info.tricks) + (1 if info.trick else 0)
        for who, card in plays:
            x, y = TRICK_AT[relative_seat(who, bottom)]
            _draw_card(canvas, x, y, TRICK, info, card, False, outline=TAKEN if who == winner else None)
        caption = f"trick {number} of {info.rules.tricks_per_hand}"
        if winner is not None:
            caption += f": seat {winner} took it"
        draw.text((cx, 346), caption, fill=INK, font=font, anchor="mt")
    elif info.upcard is not None and not info.upcard_taken:
        x, y = TRICK_AT[0][0], TRICK_AT[1][1]
        _draw_card(canvas, x, y, TRICK, info, info.upcard, False, faded=info.turned_down)
        caption = "up-card, turned down" if info.turned_down else "up-card"
        draw.text((cx, y + TRICK[1] + 6), caption, fill=INK, font=font, anchor="mt")


# ---------------------------------------------------------------- the panel: score and contract
def _draw_panel(canvas: _Canvas, info: InfoState, state: GameState) -> None:
    draw = canvas.draw
    draw.rectangle((TABLE_W, 0, WIDTH - 1, HEIGHT - 1), fill=PANEL)
    rules = info.rules
    x, y = TABLE_W + 10, 10
    value_x, right = x + 56, WIDTH - 8
    title, text, small = _font(16), _font(13), _font(12)
    draw.text((x, y), f"Euchre · {rules.preset_name}", fill=INK, font=title)
    y += 22
    draw.text((x, y), f"hand {state.hand_number + 1} · game to {rules.game_target}", fill=DIM, font=small)
    y += 26

    def row(label: str, value: str, colour: tuple[int, int, int] = INK) -> None:
        nonlocal y
        draw.text((x, y), label, fill=DIM, font=text)
        for line in _wrap(draw, value, text, right - value_x):
            draw.text((value_x, y), line, fill=colour, font=text)
            y += 17

    for team in (0, 1):
        row(f"team {team}", f"{info.scores[team]} point{'' if info.scores[team] == 1 else 's'}")
        won = info.tricks_won[team]
        draw.text((value_x, y - 1), f"{won} trick{'' if won == 1 else 's'} · seats {team}, {team + 2}", fill=DIM,
                  font=small)
        y += 19
    if rules.rubber:
        row("rubber", f"games {info.games_won[0]}-{info.games_won[1]}, "
                      f"points {info.rubber_points[0]}-{info.rubber_points[1]}")
    y += 8
    row("dealer", f"seat {info.dealer}")
    row("to act", "nobody" if info.to_act < 0 else f"seat {info.to_act}", TO_ACT if info.to_act >= 0 else INK)
    if info.upcard is not None:
        name = rules.deck_spec.name(info.upcard)
        if info.upcard == rules.deck_spec.joker_id and info.upcard_suit >= 0:
            name += f" as {SUIT_NAMES[SUITS[info.upcard_suit]]}"
        row("up-card", name + (", turned down" if info.turned_down else ", taken" if info.upcard_taken else ""))
    if info.trump >= 0:
        draw.text((x, y), "trump", fill=DIM, font=text)
        _draw_suit(canvas.image, info.trump, value_x + 6, y + 8, 6, _suit_colour(info.trump, light=True))
        draw.text((value_x + 16, y), SUIT_NAMES[SUITS[info.trump]], fill=INK, font=text)
        y += 17
        maker = f"seat {info.maker}"
        if info.contract is not None:
            maker += f", bid {info.contract}"
        row("maker", maker + (", alone" if info.maker_alone else ""))
        if info.defender_alone >= 0:
            row("defends", f"seat {info.defender_alone}, alone")
    if state.phase in (Phase.HAND_OVER, Phase.GAME_OVER) and state.hand_result is not None:
        y += 10
        for line in _wrap(draw, "hand over: " + describe_hand(rules, state.hand_result), small, right - x):
            draw.text((x, y), line, fill=INK, font=small)
            y += 15
    if state.phase == Phase.GAME_OVER and state.winner is not None:
        y += 6
        draw.text((x, y), f"game over: team {state.winner} wins", fill=TO_ACT, font=text)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` pixels."""
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=font) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


# ---------------------------------------------------------------- cards and suits
def _draw_card(canvas: _Canvas, x: int, y: int, size: tuple[int, int], info: InfoState,
               card: int | None, to_act: bool, outline: tuple[int, int, int] | None = None,
               faded: bool = False) -> None:
    """One card with its top-left corner at ``(x, y)``: face up, or its back when ``card`` is None."""
    draw = canvas.draw
    w, h = size
    box = (x, y, x + w - 1, y + h - 1)
    edge = outline or (TO_ACT if to_act else EDGE)
    width = 2 if outline or to_act else 1
    if card is None:
        draw.rounded_rectangle(box, radius=4, fill=BACK, outline=edge, width=width)
        draw.rounded_rectangle((x + 4, y + 4, x + w - 5, y + h - 5), radius=2, outline=BACK_INNER, width=1)
        return
    draw.rounded_rectangle(box, radius=4, fill=(205, 205, 200) if faded else FACE, outline=edge, width=width)
    deck = info.rules.deck_spec
    font = _font(12)
    if card == deck.joker_id:
        draw.text((x + 3, y + 2), "Jo", fill=JOKER, font=font)
        _draw_star(draw, x + w / 2, y + h / 2 + 4, w / 4, JOKER)
        return
    suit = deck.printed_suit(card)
    colour = _suit_colour(suit)
    rank = deck.rank_char(card)
    rank = "10" if rank == "T" else rank
    draw.text((x + 3, y + 2), rank, fill=colour, font=font)
    _draw_suit(canvas.image, suit, x + 5 + draw.textlength(rank, font=font) + 4, y + 8, 4, colour)
    _draw_suit(canvas.image, suit, x + w / 2, y + h / 2 + 5, w / 6, colour)


def _suit_colour(suit: int, light: bool = False) -> tuple[int, int, int]:
    """Red for diamonds and hearts, black (white on the dark panel: ``light``) for clubs and spades."""
    if SUITS[suit] in "DH":
        return (235, 80, 90) if light else RED
    return INK if light else BLACK


def _draw_suit(image: Image.Image, suit: int, cx: float, cy: float, r: float, fill: tuple[int, int, int]) -> None:
    """The suit's symbol, about ``2r`` across, centred on ``(cx, cy)``."""
    mask = _suit_mask(suit, round(r))
    half = mask.size[0] / 2
    image.paste(fill, (round(cx - half), round(cy - half)), mask)


@cache
def _suit_mask(suit: int, r: int) -> Image.Image:
    """The suit's shape as a smooth mask, drawn at four times its size and scaled down: Pillow draws shapes
    without anti-aliasing, and a 4-pixel club drawn as it is reads as a spade."""
    from PIL import Image, ImageDraw

    scale = 4
    side = (2 * r + 2) * scale
    big = Image.new("L", (side, side), 0)
    draw = ImageDraw.Draw(big)
    c, r = side / 2, r * scale  # the shapes below are in units of r about the centre c

    def disc(dx: float, dy: float, radius: float) -> None:
        draw.ellipse((c + dx * r - radius * r, c + dy * r - radius * r, c + dx * r + radius * r,
                      c + dy * r + radius * r), fill=255)

    def polygon(*points: tuple[float, float]) -> None:
        draw.polygon([(c + dx * r, c + dy * r) for dx, dy in points], fill=255)

    letter = SUITS[suit]
    if letter == "D":
        polygon((0, -1), (0.75, 0), (0, 1), (-0.75, 0))
    elif letter == "H":  # two lobes over a point
        disc(-0.48, -0.42, 0.5), disc(0.48, -0.42, 0.5)
        polygon((-0.95, -0.3), (0.95, -0.3), (0, 1))
    elif letter == "S":  # a point over two lobes, on a stem
        disc(-0.45, 0.22, 0.45), disc(0.45, 0.22, 0.45)
        polygon((-0.88, 0.12), (0.88, 0.12), (0, -1))
        polygon((0, 0.2), (-0.3, 1), (0.3, 1))
    else:  # clubs: three leaves apart, on a stem
        disc(0, -0.52, 0.42), disc(-0.52, 0.18, 0.42), disc(0.52, 0.18, 0.42)
        polygon((0, -0.1), (-0.3, 1), (0.3, 1))
    return big.resize((side // scale, side // scale), Image.Resampling.LANCZOS)


def _draw_star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: tuple[int, int, int]) -> None:
    """A five-pointed star: the joker's mark."""
    points = [(cx + (r if i % 2 == 0 else r / 2.5) * math.sin(i * math.pi / 5),
               cy - (r if i % 2 == 0 else r / 2.5) * math.cos(i * math.pi / 5)) for i in range(10)]
    draw.polygon(points, fill=fill)


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own font at ``size`` pixels (its bitmap font where Pillow was built without FreeType)."""
    from PIL import ImageFont

    return ImageFont.load_default(size=size)
