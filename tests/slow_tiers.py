"""The slow tier's list (tests/slow_tests.txt) from a run's durations: the tests that took 1 s or more.

    .venv/bin/python -m pytest -n 2 --durations=0 -p no:randomly > /tmp/durations.log
    .venv/bin/python tests/slow_tiers.py /tmp/durations.log > tests/slow_tests.txt

conftest.py marks each listed test ``slow``: ``make check`` runs the rest (docs/testing.md). A parametrized test
whose id holds a path (machine-specific) is listed by its function, every case of it slow.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

SLOW_S = 1.0


def slow_tests(log: str) -> dict[str, float]:
    """Each test's setup + call + teardown seconds, for those of at least :data:`SLOW_S`."""
    seconds: Counter[str] = Counter()
    for line in log.splitlines():
        m = re.match(r"\s*([\d.]+)s (?:call|setup|teardown)\s+(\S+)", line)
        if m:
            node = m.group(2)
            if "[" in node and "/" in node.split("[", 1)[1]:
                node = node.split("[", 1)[0]
            seconds[node] += float(m.group(1))
    return {node: s for node, s in seconds.items() if s >= SLOW_S}


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        found = slow_tests(f.read())
    print("# The slow tier: tests that took 1 s or more (tests/slow_tiers.py made this list; seconds on 2 cores).")
    for node in sorted(found):
        print(f"{node}  # {found[node]:.1f} s")
