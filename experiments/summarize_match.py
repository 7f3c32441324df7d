"""Publish a match's results into docs/results without its raw per-deal records (docs/results/README.md).

    python experiments/summarize_match.py runs/NAME --command "euchre eval A B --hands N --seed S" \\
        --to docs/results/TOPIC/NAME
    python experiments/summarize_match.py --gzip docs/results/TOPIC/*.json
    python experiments/summarize_match.py --png docs/results/TOPIC/curves.png

The first form reads an ``euchre eval --out`` folder and writes, in ``--to`` (the folder itself when left out):
``eval.summary.json``, the match summary with the command and seed that replay it, and ``deals.csv.gz``, the
per-deal records gzipped (a 2,000-deal match: 340 KB of eval.json, 6 KB here), which the paired comparisons read
(``experiments/paired_deals.py``), and the match's one-row ``eval.csv``. The published folder's ``eval.json`` and
``deals.csv`` are then removed: they hold the same records twice. ``--gzip`` compresses other record files in place
(FILE to FILE.gz): the runs that ``euchre merge`` reads, ``experiments/search_overrides.py --json``'s deal margins.
The gzip header carries no time or name, so the same records give the same bytes. ``--png`` re-saves figures in
place with a 256-colour palette (Pillow): matplotlib's curves and ladders look the same at 40% of the bytes.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import shutil
import sys
from pathlib import Path


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzipped with no time stamp or file name in the header: rewriting the same file changes nothing."""
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=out, mtime=0) as f:
        f.write(data)
    return out.getvalue()


def summarize(folder: Path, command: str, to: Path) -> list[Path]:
    """``to``/eval.summary.json and ``to``/deals.csv.gz from the match in ``folder``; returns the paths written."""
    with open(folder / "eval.json") as f:
        match = json.load(f)
    records = match.pop("deal_records")
    if str(match["seed"]) not in command.split():
        raise SystemExit(f"the command must name the match's seed ({match['seed']}): {command!r}")
    summary = {"summary_of": "eval.json", "dropped": "deal_records (per-deal records, in deals.csv.gz)",
               "command": command, **match}
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    to.mkdir(parents=True, exist_ok=True)
    written = [to / "eval.summary.json", to / "deals.csv.gz"]
    written[0].write_text(json.dumps(summary, indent=1) + "\n")
    written[1].write_bytes(gzip_bytes(table.getvalue().encode()))
    if to.resolve() != folder.resolve() and (folder / "eval.csv").exists():  # the one-row summary goes along
        shutil.copyfile(folder / "eval.csv", to / "eval.csv")
        written.append(to / "eval.csv")
    for raw in ("eval.json", "deals.csv"):  # in the published folder only: a runs/ folder stays whole
        if (to / raw).exists():
            os.remove(to / raw)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="an `euchre eval --out` folder, or with --gzip files")
    parser.add_argument("--command", help="the command line (with its seed) that replays the match")
    parser.add_argument("--to", type=Path, help="where the summary goes (default: the match's folder)")
    parser.add_argument("--gzip", action="store_true", help="gzip each file in place instead (FILE -> FILE.gz)")
    parser.add_argument("--png", action="store_true", help="re-save each PNG in place with a 256-colour palette")
    args = parser.parse_args(argv)
    if args.png:
        from PIL import Image  # Pillow comes with matplotlib (the eval extra); only this mode needs it

        for path in args.paths:
            Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)
        return
    if args.gzip:
        for path in args.paths:
            path.with_name(path.name + ".gz").write_bytes(gzip_bytes(path.read_bytes()))
            os.remove(path)
        return
    if len(args.paths) != 1 or not args.command:
        parser.error("one match folder and its --command")
    for path in summarize(args.paths[0], args.command, args.to or args.paths[0]):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    sys.exit(main())
