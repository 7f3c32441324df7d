"""The paired difference of two matches played on the same duplicate deals (same seed, same deal range), from
their merged ``deals.csv`` (``deals.csv.gz`` as published here): each deal's margin per hand in A minus the same
deal's in B, with a t interval.

    python docs/results/search_knock/paired.py docs/results/search_knock/vs_pimc50_2000_knock_150m_64worlds \
        docs/results/search_knock/vs_pimc50_2000_knock_150m

The opponent (PIMC-50) plays each deal the same way whenever it meets the same cards, so a deal whose outcome
differs between the two runs is a deal where the two searches played differently: the interval is much tighter
than the one of either margin alone.
"""

import csv
import gzip
import sys
from pathlib import Path

from euchre_env.evaluation.stats import mean_ci


def deal_margins(folder: str) -> dict[int, float]:
    """Each deal's margin per hand for agent A (the two plays of the deal, teams swapped, together)."""
    table = Path(folder) / "deals.csv"
    opened = open(table, newline="") if table.exists() else gzip.open(f"{table}.gz", "rt", newline="")
    with opened as f:
        return {int(row["index"]): (float(row["diff0"]) + float(row["diff1"]))
                / (float(row["hands0"]) + float(row["hands1"])) for row in csv.DictReader(f)}


def main() -> None:
    a, b = deal_margins(sys.argv[1]), deal_margins(sys.argv[2])
    if a.keys() != b.keys():
        sys.exit("the two matches were not played on the same deals")
    differences = [a[deal] - b[deal] for deal in sorted(a)]
    mean, low, high = mean_ci(differences)
    changed = sum(d != 0 for d in differences)
    print(f"A - B: {mean:+.4f} [{low:+.4f}, {high:+.4f}] points a hand over {len(differences)} deals "
          f"({changed} deals scored differently); A {sum(a.values()) / len(a):+.4f}, B {sum(b.values()) / len(b):+.4f}")


if __name__ == "__main__":
    main()
