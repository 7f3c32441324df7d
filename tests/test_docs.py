"""The pages of docs/: their Python snippets run, their excerpts are verbatim, every relative link resolves, and
docs/ keeps to its size budget (docs/results/README.md)."""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
import re
import subprocess
from pathlib import Path

import pytest
from test_integrations import readme_snippet
from test_readme import README_PATH, ROOT, excerpts, run_snippet, snippets

PAGES = sorted((ROOT / "docs").glob("*.md"))
SNIPPETS = [(page, i, code) for page in PAGES for i, code in enumerate(snippets(page.read_text()))]
EXCERPTS = [(page, *excerpt) for page in PAGES for excerpt in excerpts(page.read_text())]


def _id(page: Path, *rest: object) -> str:
    return "-".join([page.name, *map(str, rest)])


def test_every_page_the_readme_promises_exists():
    for name in ("environment", "agents", "evaluation", "training", "integrations", "speed", "design", "testing"):
        assert (ROOT / "docs" / f"{name}.md").is_file(), name
    assert any(page.name == "environment.md" for page, _, _ in SNIPPETS)


def test_integrations_page_holds_the_rl_library_excerpts():
    page = ROOT / "docs" / "integrations.md"
    assert [path for p, path, _, _ in EXCERPTS if p == page] == [
        "examples/sb3_maskable_ppo.py", "examples/rllib_multiagent.py", "examples/tianshou_dqn.py"]


@pytest.mark.parametrize(("page", "index", "code"), SNIPPETS, ids=[_id(p, i) for p, i, _ in SNIPPETS])
def test_docs_snippet_runs(page, index, code):
    run_snippet(code, f"{page.relative_to(ROOT)} snippet {index}")


@pytest.mark.parametrize(("page", "path", "tag", "code"), EXCERPTS, ids=[_id(p, t) for p, _, t, _ in EXCERPTS])
def test_docs_excerpt_matches_its_example(page, path, tag, code):
    assert code == readme_snippet(ROOT / path, tag)


# ---------------------------------------------------------------- links

def _prose(text: str) -> str:
    """A page without its code blocks and inline code, where `](` is not a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def links(text: str) -> list[str]:
    """The targets of the page's Markdown links and images, ``[text](target)``."""
    return [m.group(1) for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(text))]


def anchors(text: str) -> set[str]:
    """GitHub's ids of a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M),
                              flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


LINKED_PAGES = [README_PATH, *PAGES]


@pytest.mark.parametrize("page", LINKED_PAGES, ids=[str(p.relative_to(ROOT)) for p in LINKED_PAGES])
def test_every_relative_link_points_at_a_file_that_exists(page):
    broken = []
    for target in links(page.read_text()):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not a file of the repository
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text()):
            broken.append(f"{target}: no heading #{anchor} in {file.name}")
    assert not broken, f"{page.relative_to(ROOT)}:\n" + "\n".join(broken)


def test_the_link_checker_sees_links_and_headings():
    text = "# A `b` c\n## A b c\n[x](docs/y.md#a-b-c) ![p](p.png) `[no](not.md)`\n```\n[no](code.md)\n```\n"
    assert links(text) == ["docs/y.md#a-b-c", "p.png"]
    assert anchors(text) == {"a-b-c", "a-b-c-1"}


# ---------------------------------------------------------------- size (docs/results/README.md)

# docs/ is the manual and the results' summaries, not the lab notebook: a clone carries it whole, so it has a budget.
# The limits are stated in docs/results/README.md; a 2,000-deal match's raw eval.json alone is 340 KB.
DOCS_BYTES = 3_000_000
FILE_BYTES = 100_000
RAW_RECORDS = ("eval.json", "deals.csv")  # `euchre eval --out`'s per-deal files; summarised before they are committed


def committed(folder: str) -> dict[str, int]:
    """The size of each file git tracks under ``folder`` (untracked files, runs and scratch, do not count)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", folder], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the committed files cannot be listed")
    names = [name for name in listed.stdout.decode().split("\0") if name and (ROOT / name).is_file()]
    return {name: (ROOT / name).stat().st_size for name in names}


def over_budget(sizes: dict[str, int], total: int = DOCS_BYTES, each: int = FILE_BYTES) -> list[str]:
    """What breaks the budget: the total, each file over its limit, each raw per-deal file, with sizes."""
    out = [f"{name}: {size:,} bytes, over {each:,}" for name, size in sorted(sizes.items()) if size > each]
    out += [f"{name}: raw per-deal records (experiments/summarize_match.py)" for name in sorted(sizes)
            if Path(name).name in RAW_RECORDS]
    if sum(sizes.values()) > total:
        out.insert(0, f"docs/ holds {sum(sizes.values()):,} bytes, over {total:,}")
    return out


def test_docs_stays_within_its_size_budget():
    sizes = committed("docs")
    assert len(sizes) > 100 and "docs/index.md" in sizes
    assert not over_budget(sizes), "\n".join(over_budget(sizes)) + "\n(docs/results/README.md says what to keep)"


def test_no_committed_json_under_docs_holds_per_deal_records_uncompressed():
    # the JSON forms of per-deal records: `euchre eval --out` and `euchre merge` (deal_records), and
    # experiments/search_overrides.py --json (deal_margins); published gzipped or summarised instead
    raw = [name for name in committed("docs") if name.endswith(".json")
           and re.search(r'"deal_(records|margins)"\s*:', (ROOT / name).read_text())]
    assert not raw, raw


def test_the_budget_check_names_what_breaks_it():
    sizes = {"docs/a.md": 60, "docs/results/x/eval.json": 30, "docs/results/x/deals.csv.gz": 20}
    assert over_budget(sizes, total=200, each=50) == [
        "docs/a.md: 60 bytes, over 50",
        "docs/results/x/eval.json: raw per-deal records (experiments/summarize_match.py)"]
    assert over_budget(sizes, total=100, each=100)[0] == "docs/ holds 110 bytes, over 100"
    assert over_budget({"docs/results/x/eval.summary.json": 30}, total=100, each=100) == []


def test_a_published_match_keeps_its_summary_and_every_record_compressed(tmp_path):
    from euchre_env.cli.main import main

    spec = importlib.util.spec_from_file_location("summarize_match", ROOT / "experiments" / "summarize_match.py")
    summarize_match = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(summarize_match)
    run, published = tmp_path / "runs" / "m", tmp_path / "docs" / "m"
    assert main(["eval", "rules", "random", "--hands", "6", "--seed", "4", "--workers", "1", "--out", str(run)]) == 0
    raw = json.loads((run / "eval.json").read_text())
    with pytest.raises(SystemExit, match="must name the match's seed"):
        summarize_match.main([str(run), "--to", str(published), "--command", "euchre eval rules random --hands 6"])
    summarize_match.main([str(run), "--to", str(published), "--command", "euchre eval rules random --hands 6 --seed 4"])

    assert sorted(p.name for p in published.iterdir()) == ["deals.csv.gz", "eval.csv", "eval.summary.json"]
    summary = json.loads((published / "eval.summary.json").read_text())
    assert summary.pop("command") == "euchre eval rules random --hands 6 --seed 4"
    assert {k: v for k, v in summary.items() if k not in ("summary_of", "dropped")} == {
        k: v for k, v in raw.items() if k != "deal_records"}
    with gzip.open(published / "deals.csv.gz", "rt") as f:
        assert [{k: int(v) for k, v in row.items()} for row in csv.DictReader(f)] == raw["deal_records"]
    assert (run / "eval.json").exists() and (run / "deals.csv").exists()  # the run's own folder stays whole
    first = (published / "deals.csv.gz").read_bytes()
    summarize_match.main([str(run), "--to", str(published), "--command", "euchre eval rules random --hands 6 --seed 4"])
    assert (published / "deals.csv.gz").read_bytes() == first  # no time stamp: republishing changes no bytes
