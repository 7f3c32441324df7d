"""Every Python snippet of the README runs as written; the RL-library ones are excerpts of the examples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_integrations import readme_snippet

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# A snippet after "<!-- example: PATH TAG -->" is an excerpt of an example, which tests/test_integrations.py
# runs (with its extra installed): here it is only checked to be verbatim.
EXCERPTS = re.findall(r"<!-- example: (\S+) (\S+) -->\n```python\n(.*?)```", README, flags=re.S)
SNIPPETS = re.findall(r"(?<!-->\n)```python\n(.*?)```", README, flags=re.S)


def test_readme_has_snippets():
    assert len(SNIPPETS) >= 3
    assert [path for path, _, _ in EXCERPTS] == ["examples/sb3_maskable_ppo.py", "examples/rllib_multiagent.py",
                                                 "examples/tianshou_dqn.py"]


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_readme_snippet_runs(index):
    code = SNIPPETS[index]
    if "env.reset(seed=1, options=" in code:  # a fragment that continues the first snippet
        code = "import euchre_env\nenv = euchre_env.env(rules='knock')\n" + code
    exec(compile(code, f"README snippet {index}", "exec"), {})


@pytest.mark.parametrize(("path", "tag", "code"), EXCERPTS, ids=[tag for _, tag, _ in EXCERPTS])
def test_readme_excerpt_matches_its_example(path, tag, code):
    assert code == readme_snippet(ROOT / path, tag)
