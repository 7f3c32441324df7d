"""The rows of bench_env.py runs of two trees (``old_R.json`` and ``new_R.json``, R = 1, 2, 3, in one folder): each
tree's runs pooled (3 processes x their repeats), the medians, their ratio, and each round's ratio."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def main(folder: str) -> None:
    trees = {t: [json.loads((Path(folder) / f"{t}_{r}.json").read_text()) for r in (1, 2, 3)] for t in ("old", "new")}
    print("| row | before | after | after/before | each round |")
    print("|---|---:|---:|---:|---|")
    for env in [r["env"] for r in trees["old"][0]["results"]]:
        def rows(tree: str, env: str = env) -> list[dict]:
            return [r for d in trees[tree] for r in d["results"] if r["env"] == env]
        pooled = {t: [x["rate"] for r in rows(t) for x in r["runs"]] for t in trees}
        rounds = [n["decisions_per_s"] / o["decisions_per_s"] for o, n in zip(rows("old"), rows("new"))]
        old, new = statistics.median(pooled["old"]), statistics.median(pooled["new"])
        print(f"| {env} | {old:,.0f} | {new:,.0f} | {new / old:.3f} | {', '.join(f'{x:.2f}' for x in rounds)} |")


if __name__ == "__main__":
    main(sys.argv[1])
