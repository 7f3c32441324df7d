"""The pages of docs/: their Python snippets run, their excerpts are verbatim, every relative link resolves."""

from __future__ import annotations

import re
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
