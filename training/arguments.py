"""Command-line arguments shared by the ``euchre`` command and the example scripts.

A bad argument ends the program with one line naming it and what is allowed, and exit status 2:
:class:`OneLineParser` drops argparse's usage block, and the argument types below say what they
expected. Nothing here needs the optional extras.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from euchre_env.agents.registry import check_spec


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


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


def agent_spec(text: str) -> str:
    """An argparse type: an agent spec the registry accepts (checked without building the agent)."""
    try:
        check_spec(text)
    except ValueError as exc:  # the registry's own message names the spec and what is allowed
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text
