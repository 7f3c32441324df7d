"""The project's one word for a bad choice: an illegal action, a value outside what an option allows, or an
option that does not exist.

Every layer raises these and nothing else for them, so a caller catches one class whatever raised it
(the engine, the AEC env, ``SingleSeatEnv``, ``VectorEuchre``, the evaluation, the web table).
"""

from __future__ import annotations

from typing import Any


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the message names the legal ones.

    A ValueError, raised before anything changes: ``env()``'s wrapper turns it into PettingZoo's end of
    the game with a penalty (TerminateIllegal). ``seat``, ``agent`` (its name) and ``action`` say who chose
    what, where the raiser knows it, for a driver that reports the choice in its own words (the single-seat
    env names its opponents by seat).
    """

    def __init__(self, message: str, seat: int | None = None, agent: str | None = None, action: Any = None) -> None:
        super().__init__(message)
        self.seat, self.agent, self.action = seat, agent, action


class UnknownOptionError(TypeError, ValueError):
    """A keyword that names no option: an env constructor's unknown keyword argument, or a rules option that does
    not exist (a config's, ``Rules.preset``'s). The message is one line naming the known ones.

    A ``TypeError``, as Python's own "unexpected keyword argument" is, so that a caller that retries without a
    keyword it tried (TorchRL's ``GymEnv`` passes ``frameskip=`` and drops it on that ``TypeError``) works; and a
    ``ValueError``, what 0.2 raised, so that a caller that catches that still does.
    """


def check_choice(name: str, value: Any, allowed: tuple) -> None:
    """Raise one line naming the option, what is allowed and what was given, unless ``value`` is allowed."""
    # Of the allowed value's own type too: True == 1 and a NumPy integer would pass ``in`` and then be taken for
    # something else downstream.
    if not any(type(value) is type(choice) and value == choice for choice in allowed):
        raise ValueError(f"{name!r} must be one of {list(allowed)}, got {value!r}")
