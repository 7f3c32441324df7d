"""Two duplicate matches on the same deals (the same seed and count), paired deal by deal: the mean difference of
A's margin per hand in match X and in match Y, with a 95% t-interval over the deals. Reads each match's
``deals.csv`` (``euchre eval --out``) or the JSON of ``experiments/search_overrides.py --json``, or their gzipped
copies in docs/results (``deals.csv.gz``, ``NAME.json.gz``: docs/results/README.md).

    python experiments/paired_deals.py docs/results/diagnosis/network_vs_pimc50 \\
        docs/results/diagnosis/netbid_pimcplay_vs_pimc50
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import statistics
import sys
from pathlib import Path
from typing import IO


def margins(folder: str) -> dict[int, float]:
    """A's margin per hand of each duplicate deal (its two hands: A's points minus B's, halved), from a match's
    folder or from the JSON of ``experiments/search_overrides.py --json``."""
    if folder.endswith((".json", ".json.gz")):
        with _open(Path(folder)) as f:
            return {int(i): float(m) for i, m in json.load(f)["deal_margins"]}
    table = Path(folder) / "deals.csv"
    with _open(table if table.exists() else table.with_name("deals.csv.gz")) as f:
        return {int(r["index"]): (float(r["diff0"]) + float(r["diff1"])) / 2 for r in csv.DictReader(f)}


def _open(path: Path) -> IO[str]:
    return gzip.open(path, "rt", newline="") if path.suffix == ".gz" else open(path, newline="")


def main(x: str, y: str) -> None:
    mx, my = margins(x), margins(y)
    if mx.keys() != my.keys():
        sys.exit(f"the two matches did not play the same deals ({len(mx)} and {len(my)} deals)")
    d = [mx[i] - my[i] for i in sorted(mx)]
    mean, se = statistics.fmean(d), statistics.stdev(d) / math.sqrt(len(d))
    differ = sum(v != 0 for v in d)
    print(f"{Path(x).name} minus {Path(y).name}: {mean:+.3f} a hand [{mean - 1.96 * se:+.3f}, {mean + 1.96 * se:+.3f}]"
          f" over {len(d)} deals ({differ} scored differently)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
