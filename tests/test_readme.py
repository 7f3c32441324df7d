"""The README is a short landing page whose Python snippets run as written.

The helpers here read any Markdown page of the project; ``tests/test_docs.py`` uses them for ``docs/*.md``.
A ```python block after ``<!-- example: PATH TAG -->`` is an excerpt of an example, which
``tests/test_integrations.py`` runs (with its extra installed): it is only checked to be a verbatim copy
of the example's ``# readme-start: TAG`` .. ``# readme-end: TAG`` lines. Every other ```python block runs.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from test_integrations import readme_snippet

ROOT = Path(__file__).resolve().parents[1]
README_PATH = ROOT / "README.md"
README = README_PATH.read_text()


def excerpts(text: str) -> list[tuple[str, str, str]]:
    """(example path, tag, code) of every marked excerpt of a page."""
    return re.findall(r"<!-- example: (\S+) (\S+) -->\n```python\n(.*?)```", text, flags=re.S)


def snippets(text: str) -> list[str]:
    """The code of every ```python block of a page that is not a marked excerpt."""
    return re.findall(r"(?<!-->\n)```python\n(.*?)```", text, flags=re.S)


def run_snippet(code: str, name: str) -> None:
    if "euchre_env.training" in code and importlib.util.find_spec("torch") is None:
        pytest.skip("the [train] extra (torch) is not installed: pip install -e '.[train]'")
    if "euchre_env.torchrl" in code and importlib.util.find_spec("torchrl") is None:
        pytest.skip("the [torchrl] extra is not installed: pip install -e '.[torchrl]'")
    exec(compile(code, name, "exec"), {"__name__": name})


SNIPPETS = snippets(README)
EXCERPTS = excerpts(README)


def test_readme_is_a_short_landing_page():
    assert len(README.encode()) < 15_000, "README.md is a landing page: move details to docs/"
    top = "\n".join(README.splitlines()[:40])
    assert "make test" in top and "make train" in top
    assert ". .venv/bin/activate" in README


def test_readme_has_snippets():
    assert len(SNIPPETS) >= 1
    assert "action_mask" in SNIPPETS[0] and "agent_iter()" in SNIPPETS[0]
    assert all((ROOT / path).is_file() for path, _, _ in EXCERPTS)


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_readme_snippet_runs(index):
    run_snippet(SNIPPETS[index], f"README snippet {index}")


def test_readme_excerpts_match_their_examples():
    for path, tag, code in EXCERPTS:  # none today: the RL-library excerpts live in docs/integrations.md
        assert code == readme_snippet(ROOT / path, tag), f"README excerpt {path} {tag}"
