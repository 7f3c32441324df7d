"""The observations' blocks, declared once: each kind is a list of named blocks with their units and bounds.

An observation is a flat float32 vector made of named blocks. Each :class:`Block` says under which rules it is
present, what it is made of (its units) and its bounds, and the observation version that added it. Everything
else reads these declarations: :class:`~euchre_env.views.observation.Observer` lays the absolute blocks out and
:class:`~euchre_env.views.structured.StructuredObserver` the structured ones (the absolute blocks, then its own);
the structured observation's suit frames permute each block by its units (a card block by the frame's card order,
a suit block by its suit order, a calling round's columns by its action order); the C engine's observer reads each
block's offset as ``B_<NAME>`` (``euchre_env/compiled/layout.py`` numbers them, ``layout.h`` carries them); a
checkpoint's fingerprint hashes the layout they give. The encoders' logic (what each entry holds) stays written out,
in the reference observers and in ``engine.h``.

Units: ``"card"`` (one entry per card id of the deck), ``"suit"`` (4), :class:`Round` (one column per action of
that calling round, for one seat), or an int (entries with no suit in them: seats, counts, phases).

Versions: each kind has a version (:data:`VERSIONS`), and each block the version that added it (``since``). An
observer of version ``v`` holds the blocks of ``since <= v``, so a new block is a new version, and a network
trained on an older one still finds its own layout: a checkpoint records the version it was trained on
(``observation_version``, 1 when absent) and plays with that observer. A new version changes what the envs give by
default, so it bumps the envs' own version too (``euchre/euchre_v0``, ``euchre/SingleSeat-v0``: :data:`ENV_VERSION`,
held to :data:`VERSIONS` by tests/views/test_blocks.py, which also holds every released layout fixed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS

SCORE_BOUND = 8.0  # scores are encoded as score / game_target, clipped to +-SCORE_BOUND
# The latest version of each observation kind, and the version of the envs that give them by default.
VERSIONS = {"absolute": 1, "structured": 1}
ENV_VERSION = 0


class Round(NamedTuple):
    """A unit: one seat's row of a calling round's block, a column per action of the round."""

    phase: Phase


Unit = str | int | Round


class Block(NamedTuple):
    """One named block of an observation (see the module docstring)."""

    name: str
    units: Callable[[Rules], list[Unit]]  # what it is made of, in order, under the rules
    present: Callable[[Rules], bool] = lambda rules: True
    high: Callable[[Rules], float] = lambda rules: 1.0  # every entry's upper bound
    low: float = 0.0  # every entry's lower bound
    since: int = 1  # the observation version that added it


def _turn_up(rules: Rules) -> bool:
    return not rules.is_bid


def _copies(rules: Rules) -> float:
    return float(rules.deck_spec.copies)


def _seats(rules: Rules) -> list[Unit]:
    return [NUM_SEATS]


def _card(rules: Rules) -> list[Unit]:
    return ["card"]


def _suit(rules: Rules) -> list[Unit]:
    return ["suit"]


def _round(phase: Phase) -> Callable[[Rules], list[Unit]]:
    return lambda rules: [Round(phase)] * NUM_SEATS


# The absolute observation: a perfect-recall information state of the current hand and the score, seats relative to
# the observer, suits as they are (views/observation.py says what each block holds). The two families order their
# calling blocks apart; a name appears once in any one layout.
ABSOLUTE: tuple[Block, ...] = (
    Block("phase", lambda rules: [len(Phase)]),
    Block("to_act", _seats),
    Block("dealer", _seats),
    Block("hand", _card, high=_copies),
    Block("auction", _round(Phase.AUCTION), present=lambda rules: rules.is_bid),
    Block("discard", _card, present=lambda rules: rules.is_bid and rules.joker),
    Block("given", _card, present=lambda rules: rules.is_bid),
    Block("given_back", _card, present=lambda rules: rules.is_bid),
    Block("upcard", _card, present=_turn_up),
    Block("upcard_suit", _suit, present=_turn_up),
    Block("upcard_fate", lambda rules: [3], present=_turn_up),  # taken by the dealer / turned down / set aside
    Block("call1", _round(Phase.CALL1), present=_turn_up),
    Block("call2", _round(Phase.CALL2), present=_turn_up),
    Block("defend", _round(Phase.DEFEND), present=lambda rules: not rules.is_bid and rules.defend_alone),
    Block("discard", _card, present=_turn_up),
    Block("trump", _suit),
    Block("maker", _seats),
    Block("sitting_out", _seats),
    # a trick: its leader's relative seat, then each relative seat's card
    Block("tricks", lambda rules: [NUM_SEATS, *["card"] * NUM_SEATS] * rules.tricks_per_hand),
    Block("tricks_won", lambda rules: [2]),
    Block("scores", lambda rules: [2], high=lambda rules: SCORE_BOUND, low=-SCORE_BOUND),
    # games won (own, other) / 2, rubber points (own, other) / 6
    Block("rubber", lambda rules: [4], present=lambda rules: rules.rubber),
)

# The structured observation's own blocks, after the absolute ones (views/structured.py says what each holds).
STRUCTURED: tuple[Block, ...] = (
    Block("current_trick", lambda rules: ["card"] * NUM_SEATS),
    Block("led_suit", _suit),
    Block("winning", _seats),
    Block("partner_winning", lambda rules: [1]),
    Block("played", _card, high=_copies),
    Block("unseen", _card, high=_copies),
    Block("voids", lambda rules: ["suit"] * (NUM_SEATS - 1)),  # left, partner, right
    Block("trick_number", lambda rules: [rules.tricks_per_hand]),
    Block("leads", lambda rules: [1]),
)

KINDS: dict[str, tuple[Block, ...]] = {"absolute": ABSOLUTE, "structured": ABSOLUTE + STRUCTURED}
# Every block name, each once, in declaration order: the C observer's offsets (compiled/layout.py's B_<NAME>).
BLOCK_NAMES: tuple[str, ...] = tuple(dict.fromkeys(block.name for block in KINDS["structured"]))


def check_version(kind: str, version: int | None) -> int:
    """``version`` of observation ``kind`` (None: the latest), or one line naming the versions there are."""
    latest = VERSIONS[kind]
    if version is None:
        return latest
    if type(version) is not int or not 1 <= version <= latest:
        raise ValueError(f"the {kind} observation has versions 1 to {latest}, got {version!r}")
    return version


def blocks_of(kind: str, rules: Rules, version: int | None = None) -> list[Block]:
    """The blocks of observation ``kind`` (version ``version``, None: the latest) under ``rules``, in order."""
    v = check_version(kind, version)
    return [block for block in KINDS[kind] if block.since <= v and block.present(rules)]
