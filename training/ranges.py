"""The values a numeric config key allows: a :class:`Range`, declared on the key's field (:func:`bounded`).

Each section's dataclass (:mod:`~euchre_env.training.sections`) carries its keys' ranges in their fields'
metadata; :data:`~euchre_env.training.config.RANGES` is read from there, and every load or override of a config
checks them (:func:`check_range`): a value outside is one line naming the key, the range and the value.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Range:
    """The values a numeric config key allows: ``low`` to ``high``, both included (``above``: ``low`` itself
    is not); ``integer``: whole numbers only; ``zero``: what 0 means where 0 is allowed."""

    low: float
    high: float | None  # None: no upper bound here (run.torch_threads is capped at the cores instead)
    integer: bool = True
    above: bool = False
    zero: str = ""

    def allows(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int if self.integer else (int, float)):
            return False
        # NaN fails every comparison, so it is refused with the rest
        return (value > self.low if self.above else value >= self.low) and (self.high is None or value <= self.high)

    def __str__(self) -> str:
        kind = "an integer" if self.integer else "a number"
        low = _number(self.low) + (f" ({self.zero})" if self.zero else "")
        if self.high is None:
            return f"{kind} of at least {low}"
        if self.above:
            return f"{kind} above {low} and at most {_number(self.high)}"
        return f"{kind} from {low} to {_number(self.high)}"


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


SEED = Range(0, 2**32 - 1)  # 2**32 seeds, which every seeding API accepts; each gives its own deals and streams
DEALS = Range(1, 10**6)  # duplicate deals of a match: a million is hours of play; its records are held in memory
UPDATES = Range(1, 10**6)  # updates between two events: no run makes a million updates
LEARNING_RATE = Range(0, 1, integer=False, above=True)  # 0 would learn nothing
# Evaluation processes, each with torch and the agents loaded (about 280 MB): more than the cores only adds memory.
WORKERS = Range(1, 256)
# Rows of the rollout's arrays (the observation, the oracle's inputs, the mask, the solver's targets): about
# 4.5 KB a decision (bid, structured observation, oracle critic), so a million decisions hold 4.5 GB before the
# PPO epochs' copies. The behaviour cloning keeps its demonstrations the same way, all at once.
DECISIONS = Range(1, 10**6)
# A minibatch's activations: 65,536 rows of the widest network (8 layers of 2,048) take 4 GB.
MINIBATCH = Range(1, 65536)


def bounded(default: float, allowed: Range) -> Any:
    """A numeric config field of ``default`` whose values ``allowed`` holds (a list's or a mapping's field carries its
    values' range as ``field(default_factory=..., metadata={"range": ...})``)."""
    return field(default=default, metadata={"range": allowed})


def shown(value: Any) -> str:
    """``repr(value)`` cut short (a YAML alias can make a value whose full repr would never end)."""
    short = reprlib.Repr()
    short.maxstring = short.maxother = short.maxlong = 60
    return short.repr(value)


def check_range(name: str, allowed: Range, value: Any) -> None:
    """ValueError in one line unless ``allowed`` holds ``value`` (each value of a list or a mapping) of key ``name``."""
    if isinstance(value, dict):
        items = [(f"{name}[{k!r}]", v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(f"{name}[{i}]", v) for i, v in enumerate(value)]
    else:
        items = [(name, value)]
    for where, v in items:
        if not allowed.allows(v):
            raise ValueError(f"config {where} must be {allowed}, got {shown(v)}")
