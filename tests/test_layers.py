"""The package's shape: imports run one way, and a user's own modules never shadow ours.

Layers, bottom to top. Inside ``euchre_env/``: ``game`` (the rules) <- ``views`` (what a seat may know) <-
``compiled`` (the Numba copy, built from the game's and the views' tables) <- ``envs`` (the environments; the
package root ``euchre_env/__init__.py`` sits here). Above them: ``agents`` <- ``evaluation`` <- ``training``,
and beside those ``play`` (human play: the env and the agents only); ``cli`` (the command line) on top. A
module may import its own layer and those it builds on, never another, lazily inside a function included.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = ("game", "views", "compiled", "envs")
# layer -> the layers its modules may import
ALLOWED = {
    "game": {"game"},
    "views": {"game", "views"},
    "compiled": {"game", "views", "compiled"},
    "envs": {*ENV},
    "agents": {*ENV, "agents"},
    "evaluation": {*ENV, "agents", "evaluation"},
    "training": {*ENV, "agents", "evaluation", "training"},
    "play": {*ENV, "agents", "play"},
    "cli": {*ENV, "agents", "evaluation", "training", "play", "cli"},
}
FOLDERS = ("euchre_env", "agents", "evaluation", "training", "play", "cli")


def file_layer(path: Path) -> str:
    parts = path.relative_to(ROOT).parts
    if parts[0] == "euchre_env":
        return parts[1] if parts[1] in ENV else "envs"  # the package root is the envs' facade
    return parts[0]


def import_layer(name: str) -> str | None:
    """The layer of a dotted import name, or None for a module outside the project."""
    parts = name.split(".")
    if parts[0] != "euchre_env":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else "envs"


def imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # ``from euchre_env import agents`` names a layer (or a module) in the imported names
            if node.module.split(".")[0] == "euchre_env":
                found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return found


def source_files() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py"))


def test_the_layer_rules_see_every_source_file():
    files = source_files()
    assert len(files) > 60
    assert {file_layer(p) for p in files} == set(ALLOWED)
    assert import_layer("euchre_env.agents.registry") == "agents"
    assert import_layer("euchre_env.cli.main") == "cli"
    assert import_layer("euchre_env.game.engine") == "game"
    assert import_layer("euchre_env.compiled.kernels") == "compiled"
    assert import_layer("euchre_env") == "envs"
    assert import_layer("numpy") is None


def test_imports_run_one_way():
    against = []
    for path in source_files():
        here = file_layer(path)
        for line, name in imports(path):
            target = import_layer(name)
            if target is not None and target not in ALLOWED[here]:
                against.append(f"{path.relative_to(ROOT)}:{line} ({here}) imports {name} ({target})")
    assert not against, "imports against the layers (tests/test_layers.py):\n" + "\n".join(against)


def test_the_game_imports_no_library_of_the_envs():
    # the definition of the rules is plain Python: numpy at most, never numba, gymnasium or pettingzoo
    heavy = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in (ROOT / "euchre_env" / "game").glob("*.py")
             for line, name in imports(p) if name.split(".")[0] in ("numba", "gymnasium", "pettingzoo", "torch")]
    assert not heavy, "\n".join(heavy)


def test_nothing_imports_the_old_top_level_names():
    # agents, evaluation and training install under euchre_env; a bare name would be the user's module.
    old = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in source_files() for line, name in imports(p)
           if name.split(".")[0] in ("agents", "evaluation", "training", "play", "cli")]
    assert not old, "\n".join(old)


LONG = 500


def test_a_long_module_says_why_it_is_one():
    # about 500 lines is where a module should be split; one that is longer says why in its docstring
    unexplained = []
    for path in source_files():
        lines = path.read_text().count("\n")
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if lines > LONG and "Why one module" not in doc:
            unexplained.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not unexplained, "split these, or say in the docstring 'Why one module': " + ", ".join(unexplained)


# The compiled seam (issue 45): the twins' files stay the size of their references, and a kernel outside
# compiled/ takes the engine's bundles (GameArrays, Tables, a policy's tables), not a wall of positional arguments.
SEAM_LONG = 700
WIDE_CALL = 12


def test_the_compiled_layer_and_the_agents_have_no_file_over_700_lines():
    long = [f"{p.relative_to(ROOT)}: {p.read_text().count(chr(10))} lines"
            for folder in (ROOT / "euchre_env" / "compiled", ROOT / "agents") for p in folder.rglob("*.py")
            if p.read_text().count("\n") > SEAM_LONG]
    assert not long, "split by concern: " + ", ".join(long)


# The trainer (issue 56): a run and its phases, one algorithm a module (docs/design.md, "The trainer's parts").
TRAINING_LONG = 400


def test_no_file_in_training_is_over_400_lines():
    long = [f"{p.relative_to(ROOT)}: {p.read_text().count(chr(10))} lines" for p in (ROOT / "training").rglob("*.py")
            if p.read_text().count("\n") > TRAINING_LONG]
    assert not long, "a phase of its own, or a part of the run of its own (training/phase.py): " + ", ".join(long)


def test_no_function_call_outside_compiled_takes_more_than_12_arguments():
    # a function call, not a record's constructor (a class name: NamedTuple, dataclass, pyspiel.GameType)
    wide = []
    for path in source_files():
        if "compiled" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and len(node.args) + len(node.keywords) > WIDE_CALL:
                name = ast.unparse(node.func).split(".")[-1]
                if not name[:1].isupper():
                    wide.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert not wide, "pass the bundles (compiled.layout), not more than 12 arguments: " + ", ".join(wide)


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
        "from euchre_env.envs.single_seat import SingleSeatEnv\n"
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
    done = _run([sys.executable, "-m", "euchre_env.cli", "eval", "rules", "random", "--hands", "2",
                 "--workers", "1"], user_project)
    assert done.returncode == 0, done.stderr
    assert "rules" in done.stdout
