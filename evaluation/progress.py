"""Live progress on stderr (tqdm): the bar of a match with its running margin, and the shared bar style.

tqdm draws in terminals, notebooks (``tqdm.auto``) and log files alike; the project's long loops
(matches, training, behaviour cloning) all use :func:`progress_bar`, so they look the same.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from tqdm.auto import tqdm

from euchre_env.evaluation.match import DealRecord
from euchre_env.evaluation.stats import ratio_half_width

# "label  42%|##########              | 420/1000 deals [00:03<00:04, margin +0.131 ±0.045]"
BAR_FORMAT = "{desc} {percentage:3.0f}%|{bar:24}| {n_fmt}/{total_fmt} {unit} [{elapsed}<{remaining}{postfix}]"


class _LineEnd:
    """The bar's stream, remembering whether the last text written left its line open."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.open_line = False

    def write(self, text: str) -> int:
        if text:  # a bar erased (leave=False) ends with "\r" at the start of its blank line: nothing is open
            self.open_line = not text.endswith(("\n", "\r"))
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, encoding, isatty, fileno: the stream's own
        return getattr(self.stream, name)

    def __eq__(self, other: object) -> bool:  # tqdm.write(file=sys.stderr) finds the bars to clear by their stream
        return other is self or self.stream == getattr(other, "stream", other)

    def __hash__(self) -> int:
        return hash(self.stream)


class _Bar(tqdm):
    """tqdm whose close always ends the bar's line: a Ctrl-C in the middle of a draw leaves tqdm's own
    close silent, and the next message would be written after the bar."""

    def close(self) -> None:
        super().close()
        stream = getattr(self, "line_end", None)
        if stream is not None and stream.open_line:
            stream.write("\n")
            stream.flush()


def progress_bar(total: int, desc: str, unit: str, *, enabled: bool = True, initial: int = 0,
                 stream: TextIO | None = None, delay: float = 1.0, interval: float = 0.2,
                 unit_scale: bool = False, leave: bool = True) -> tqdm:
    """A tqdm bar on stderr (or ``stream``) that appears only after ``delay`` seconds: short runs stay silent.

    ``enabled=False`` gives a bar that draws nothing (its methods still work), so callers need no branches.
    ``leave=False``: the bar is erased when it closes (a loop that logs its own line instead).
    """
    line_end = _LineEnd(stream if stream is not None else sys.stderr)
    bar = _Bar(total=total, desc=desc, unit=unit, initial=initial, file=line_end, delay=delay, mininterval=interval,
               unit_scale=unit_scale, bar_format=BAR_FORMAT, disable=not enabled, leave=leave)
    bar.line_end = line_end
    return bar


class RunningMargin:
    """Running sums over the duplicate pairs played so far, for the live margin and its 95% half-width."""

    def __init__(self) -> None:
        self.n = 0
        self.d = self.h = self.dd = self.dh = self.hh = 0.0

    def add(self, part: Iterable[DealRecord]) -> None:
        for r in part:
            d, h = r.diff0 + r.diff1, r.hands0 + r.hands1
            self.n += 1
            self.d += d
            self.h += h
            self.dd += d * d
            self.dh += d * h
            self.hh += h * h

    def margin(self) -> float:
        return self.d / self.h if self.h else 0.0

    def half_width(self) -> float:
        """The half-width of the match's final interval, were it to stop here (nan before two pairs)."""
        if self.n < 2:
            return math.nan
        r = self.margin()
        ss = self.dd - 2 * r * self.dh + r * r * self.hh  # sum of (d - r h)^2
        return ratio_half_width(ss, self.n, self.h / self.n)


class Progress:
    """The bar of a match: pairs played, with the live margin ± its half-width as the postfix."""

    def __init__(self, total: int, label: str = "", unit: str = "deals", stream: TextIO | None = None,
                 delay: float = 1.0, interval: float = 0.2, leave: bool = True) -> None:
        self.bar = progress_bar(total, label, unit, stream=stream, delay=delay, interval=interval, leave=leave)

    def update(self, done: int, margin: float, half: float) -> None:
        pm = f" ±{half:.3f}" if math.isfinite(half) else ""
        self.bar.set_postfix_str(f"margin {margin:+.3f}{pm}", refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()
