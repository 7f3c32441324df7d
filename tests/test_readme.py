"""Every Python snippet of the README runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_snippets():
    assert len(SNIPPETS) >= 3


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_readme_snippet_runs(index):
    code = SNIPPETS[index]
    if "env.reset(seed=1, options=" in code:  # a fragment that continues the first snippet
        code = "import euchre_env\nenv = euchre_env.env(rules='knock')\n" + code
    exec(compile(code, f"README snippet {index}", "exec"), {})
