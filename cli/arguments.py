"""Command-line arguments shared by the ``euchre`` command and the example scripts.

A bad argument ends the program with one line naming it and what is allowed, and exit status 2:
:class:`OneLineParser` drops argparse's usage block, and the argument types below say what they
expected. Nothing here needs the optional extras.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from euchre_env import published
from euchre_env.agents.registry import check_spec
from euchre_env.game.rules import DEFAULTS, Rules, option_names

PROG = "euchre"


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block), exit status 2."""

    def error(self, message: str) -> NoReturn:
        # A command's parser is named "euchre eval": its errors start as every other error of the program does
        # ("euchre: error:"), and name the help that lists what is allowed in place of the usage block.
        program, _, command = self.prog.partition(" ")
        see = f"; see {self.prog} --help" if command else ""
        self.exit(2, f"{program}: error: {' '.join(message.split())}{see}\n")


def int_at_least(low: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``low`` (``what`` names the kind in the message)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected a {what} integer, got {text!r}")
        return value

    return parse


positive_int = int_at_least(1, "positive")
non_negative_int = int_at_least(0, "non-negative")


def int_in(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high`` (``what``: the counted things, for the message)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} from {low:,} to {high:,}, got {text!r}")
        return value

    return parse


def float_in(high: float, what: str) -> Callable[[str], float]:
    """An argparse type: a number above 0 and at most ``high`` (inf and nan refused)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not 0 < value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} above 0 and at most {high:,.0f}, got {text!r}")
        return value

    return parse


# The ranges of the counts a user types (docs/bad-input.md lists them all). Workers are processes, each holding its
# own agents; the trainer's eval.workers has the same range (training.config.WORKERS; a test holds them equal).
MAX_WORKERS = 256
workers = int_in(1, MAX_WORKERS, "a number of worker processes")
# Minutes of training (exploit, cfr): about two years, as the trainer's run.max_minutes.
MAX_MINUTES = 10**6
minutes = float_in(MAX_MINUTES, "minutes")
# A seed every seeding API takes (the trainer's seeds: training.config.SEED).
seed = int_in(0, 2**32 - 1, "a seed")

# The most duplicate deals (or game pairs) one match plays: a match keeps its records in memory, and a million deals
# is hours of play (a longer match: ranges with --first-deal, then euchre merge). The trainer's limit too
# (training.config.DEALS; a test holds them equal); 10**12 grew memory by 150 MB/s (issue 54).
MAX_DEALS = 10**6


def deal_count(text: str) -> int:
    """An argparse type: a match's deals, 1 to :data:`MAX_DEALS`."""
    value = positive_int(text)
    if value > MAX_DEALS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_DEALS:,} deals a match (split a longer match with "
                                         f"--first-deal and euchre merge), got {text!r}")
    return value


def check_output(path: str, folder: bool) -> None:
    """Raise ValueError (one line) unless ``path`` can be written: a folder (``folder``) or a file, where one exists
    of the other kind nothing is overwritten, and the nearest existing folder above it takes a file (tried with a
    temporary file, removed at once: as root, permissions alone do not say that ``/proc`` refuses one). Called
    before the work starts, so that nothing is played or trained for results that could not be saved."""
    import tempfile

    kind = "a folder" if folder else "a file"
    if os.path.exists(path) and os.path.isdir(path) != folder:
        raise ValueError(f"cannot write {kind} at {path!r}: {'a file' if folder else 'a folder'} is there")
    full = os.path.abspath(path)  # a relative path's parents end at the current folder, not at ''
    parent = full if folder else os.path.dirname(full)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    try:
        if not os.path.isdir(parent):
            raise OSError(f"{parent!r} is not a folder")
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".euchre-write-check-")
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        raise ValueError(f"cannot write {kind} at {path!r}: {exc.strerror or exc}") from None


def agent_spec(text: str) -> str:
    """An argparse type: an agent spec the registry accepts (checked without building the agent)."""
    try:
        check_spec(text)
    except ValueError as exc:  # the registry's own message names the spec and what is allowed
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def config_file(text: str) -> str:
    """An argparse type: ``--config``'s YAML file, a path or the name of a config the package ships (``knock``),
    so that the trainer's configs work without a clone; the path of the file."""
    try:
        return published.find_config(text)
    except ValueError as exc:  # names the shipped configs
        raise argparse.ArgumentTypeError(str(exc)) from None


def fail(message: str, status: int = 2) -> NoReturn:
    sys.stderr.write(f"{PROG}: error: {' '.join(str(message).split())}\n")
    raise SystemExit(status)


def parse_options(items: list[str]) -> dict[str, Any]:
    """``["game_target=5", "joker=true"]`` -> typed rules options (typed by their defaults' types)."""
    allowed = option_names()
    options: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name:
            raise ValueError(f"--set expects OPTION=VALUE, got {item!r}")
        if name not in allowed:
            raise ValueError(f"unknown rules option {name!r}; allowed: {', '.join(allowed)}")
        kind = type(DEFAULTS[name])
        if kind is bool:
            low = text.lower()
            if low in ("true", "yes", "on", "1"):
                options[name] = True
            elif low in ("false", "no", "off", "0"):
                options[name] = False
            else:
                raise ValueError(f"rules option {name!r} must be true or false, got {text!r}")
        elif kind is int:
            try:
                options[name] = int(text)
            except ValueError:
                raise ValueError(f"rules option {name!r} must be an integer, got {text!r}") from None
        else:
            options[name] = text
    return options


def make_rules(preset: str, items: list[str]) -> Rules:
    return Rules.preset(preset, **parse_options(items))

