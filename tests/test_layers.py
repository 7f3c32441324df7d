"""The package's shape: imports run one way, and a user's own modules never shadow ours.

Layers, bottom to top: ``euchre_env`` (rules, engine, env views; the files of ``euchre_env/``)
<- ``euchre_env.agents`` (``agents/``) <- ``euchre_env.evaluation`` (``evaluation/``) <-
``euchre_env.training`` (``training/``) <- the command line (``training/cli.py``). A module may
import its own layer and those below, never one above, lazily inside a function included.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("env", "agents", "evaluation", "training", "cli")
FOLDERS = {"euchre_env": "env", "agents": "agents", "evaluation": "evaluation", "training": "training"}


def file_layer(path: Path) -> str:
    folder = path.relative_to(ROOT).parts[0]
    return "cli" if path.stem == "cli" else FOLDERS[folder]


def import_layer(name: str) -> str | None:
    """The layer of a dotted import name, or None for a module outside the project."""
    parts = name.split(".")
    if parts[0] != "euchre_env":
        return None
    if parts[-1] == "cli":
        return "cli"
    if len(parts) > 1 and parts[1] in ("agents", "evaluation", "training"):
        return parts[1]
    return "env"


def imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # ``from euchre_env import agents`` names a layer in the imported names
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names if node.module == "euchre_env"]
    return found


def source_files() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).glob("*.py"))


def test_the_layer_rules_see_every_source_file():
    files = source_files()
    assert len(files) > 30
    assert {file_layer(p) for p in files} == set(LAYERS)
    assert import_layer("euchre_env.agents.registry") == "agents"
    assert import_layer("euchre_env.training.cli") == "cli"
    assert import_layer("euchre_env.engine") == "env"
    assert import_layer("numpy") is None


def test_imports_run_one_way():
    against = []
    for path in source_files():
        here = LAYERS.index(file_layer(path))
        for line, name in imports(path):
            target = import_layer(name)
            if target is not None and LAYERS.index(target) > here:
                against.append(f"{path.relative_to(ROOT)}:{line} ({file_layer(path)}) imports {name} ({target})")
    assert not against, "imports against env <- agents <- evaluation <- training <- cli:\n" + "\n".join(against)


def test_nothing_imports_the_old_top_level_names():
    # agents, evaluation and training install under euchre_env; a bare name would be the user's module.
    old = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in source_files() for line, name in imports(p)
           if name.split(".")[0] in ("agents", "evaluation", "training")]
    assert not old, "\n".join(old)


USER_MODULES = {
    "agents.py": "raise RuntimeError('the user agents.py was imported')\n",
    "evaluation.py": "raise RuntimeError('the user evaluation.py was imported')\n",
    "training/__init__.py": "raise RuntimeError('the user training/ was imported')\n",
}


@pytest.fixture
def user_project(tmp_path: Path) -> Path:
    """A user's folder with their own agents.py, evaluation.py and training/ beside their script."""
    for name, text in USER_MODULES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_a_users_agents_and_training_modules_do_not_shadow_ours(user_project: Path):
    script = user_project / "my_experiment.py"
    script.write_text(
        "import euchre_env\n"
        "from euchre_env.single_seat import SingleSeatEnv\n"
        "from euchre_env.agents import make_agent\n"
        "from euchre_env.evaluation import evaluate\n"
        "env = SingleSeatEnv('knock', opponents='rules')\n"
        "obs, info = env.reset(seed=0)\n"
        "assert make_agent('random').name == 'random'\n"
        "print('ok', evaluate('rules', 'random', 'knock', n=2, workers=1).deals)\n"
    )
    done = _run([sys.executable, script.name], user_project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "2"]


def test_the_command_line_runs_beside_a_users_modules(user_project: Path):
    # ``python -m`` puts the working folder first on sys.path: the shadowing case.
    done = _run([sys.executable, "-m", "euchre_env.training.cli", "eval", "rules", "random", "--hands", "2",
                 "--workers", "1"], user_project)
    assert done.returncode == 0, done.stderr
    assert "rules" in done.stdout
