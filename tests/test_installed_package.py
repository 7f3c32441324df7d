"""The package as a user installs it: the wheel built from this tree, installed into a fresh virtual environment,
run from a folder outside the clone. It must carry its configs and published checkpoints (package data) and find
them by name (``--config knock``, the agent spec ``knock.pt``), and the README's snippets must run there.

The fresh environment borrows the test's own environment's libraries (numpy, torch, ...) through a ``.pth`` line,
so that nothing is downloaded; that line adds the folder without reading the ``.pth`` files in it, so the clone's
editable install, which would answer for any module the wheel lacks, stays out. Every run checks that
``euchre_env`` is the installed copy.

Numba caches machine code beside the modules it compiled, so a fresh install would compile every kernel again
(minutes on 2 cores, once per install). The installed copy borrows the clone's cache instead: Numba keys it by
the source file's contents, which the wheel copies as they are. A kernel the clone has not compiled yet (the
suite compiles them all) is compiled by the run that needs it: minutes, still correct.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_readme import README, snippets

from euchre_env.compiled import native

ROOT = Path(__file__).resolve().parents[1]
# What the wheel must ship: every config, and the checkpoints pyproject.toml's package-data names.
CONFIGS = sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))
CHECKPOINTS = ["bid.pt", "bid_cfr.npz", "classic.pt", "knock.pt", "knock_150m.pt", "knock_90m.pt", "knock_belief.pt",
               "knock_cfr.npz", "knock_long.pt", "multiplayer.pt"]
# The tree the wheel is built from, less what a build never reads: a copy, so that the build's own folders
# (build/, *.egg-info) never land in the clone, where another test run may be building at the same time.
NOT_BUILT = shutil.ignore_patterns(".git", ".venv", "runs", "docs", "tests", "benchmarks", "experiments", "examples",
                                   "seeds", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
                                   "*.so")  # the extensions: the wheel's build compiles its own


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path  # the fresh environment's interpreter
    euchre: Path  # its `euchre` command
    package: Path  # where euchre_env is installed
    home: Path  # a folder outside the clone: the current folder of every run

    def run(self, *argv: str | Path, timeout: float = 600) -> subprocess.CompletedProcess:
        # the suite's engine settings (tests/conftest.py) go with it; the clone's paths do not
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        return subprocess.run([str(a) for a in argv], cwd=self.home, env=env, capture_output=True, text=True,
                              timeout=timeout)

    def python_ok(self, code: str) -> str:
        """Run ``code`` in the installed package (after checking that it is the one imported); its stdout."""
        check = f"import euchre_env\nassert euchre_env.__file__.startswith({str(self.package)!r}), euchre_env.__file__"
        done = self.run(self.python, "-c", check + "\n" + code)
        assert done.returncode == 0, done.stderr
        return done.stdout


def _call(*argv: str | Path, cwd: Path) -> None:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("installed")
    source, dist, venv, home = work / "source", work / "dist", work / "venv", work / "home"
    shutil.copytree(ROOT, source, ignore=NOT_BUILT)
    # --no-build-isolation --no-index: the build uses this environment's setuptools, offline
    _call(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", dist,
          source, cwd=work)
    (wheel,) = dist.glob("euchre_env-*.whl")
    _call(sys.executable, "-m", "venv", "--without-pip", venv, cwd=work)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "borrowed_libraries.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _call(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel, cwd=work)
    package = Path(purelib) / "euchre_env"
    home.mkdir()
    return Installed(wheel, python, python.parent / "euchre", package, home)


def test_the_wheel_ships_every_config_and_the_published_checkpoints(installed: Installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    built = sorted(n.split(".")[0].replace("/", ".") for n in names if n.endswith(".so") or n.endswith(".pyd"))
    assert built == sorted(f"euchre_env.{name}" for name in native.EXTENSIONS)  # compiled when the wheel was built
    assert sorted(n.removeprefix("euchre_env/configs/") for n in names
                  if n.startswith("euchre_env/configs/") and n.endswith(".yaml")) == CONFIGS
    assert sorted(n.removeprefix("euchre_env/checkpoints/") for n in names
                  if n.startswith("euchre_env/checkpoints/") and not n.endswith(".py")) == CHECKPOINTS
    assert installed.wheel.stat().st_size < 12_000_000  # the 9 published files, about 9 MB


@pytest.mark.parametrize("index", range(len(snippets(README))))
def test_the_readme_snippets_run_where_the_package_is_installed(installed: Installed, index: int):
    code = snippets(README)[index]
    if "sb3_contrib" in code:
        # An extra's snippet (a minute of PPO, which tests/test_readme.py runs in the clone): what it takes from
        # this package must be installed.
        code = "".join(line for line in code.splitlines(keepends=True) if line.startswith("from euchre_env"))
        assert code.count("\n") == 2, code
    installed.python_ok(code)


def test_euchre_eval_plays_a_published_checkpoint_by_name_and_one_from_another_folder(installed: Installed):
    done = installed.run(installed.euchre, "eval", "knock.pt", "random", "--hands", "2", "--seed", "1",
                         "--workers", "1", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "rules from knock.pt: preset knock" in done.stdout and "| knock.pt |" in done.stdout
    mine = installed.home / "mine"
    mine.mkdir()
    shutil.copy(installed.package / "checkpoints" / "bid.pt", mine / "net.pt")
    done = installed.run(installed.euchre, "eval", mine / "net.pt", "rules", "--hands", "2", "--seed", "1",
                         "--workers", "1", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "preset bid" in done.stdout and f"| {mine / 'net.pt'} |" in done.stdout


def test_names_resolve_to_the_shipped_files_and_a_clones_path_says_what_to_write(installed: Installed):
    shipped = installed.package
    out = installed.python_ok(
        "from euchre_env.agents.registry import check_spec\n"
        "from euchre_env.published import find_config\n"
        "for spec in ('knock_150m.pt', 'search:32:knock_150m.pt', 'cfr:knock_cfr.npz', 'cfr:8:bid_cfr.npz'):\n"
        "    check_spec(spec)\n"
        "print(find_config('knock'), find_config('bid.yaml'))\n")
    assert out.split() == [str(shipped / "configs" / "knock.yaml"), str(shipped / "configs" / "bid.yaml")]
    # the README's clone paths are one line naming what works here
    done = installed.run(installed.euchre, "eval", "checkpoints/knock.pt", "random")
    assert done.returncode == 2 and done.stderr == (
        "euchre: error: no checkpoint file at 'checkpoints/knock.pt'; the package's checkpoints by name: bid.pt, "
        "classic.pt, knock.pt, knock_150m.pt, knock_90m.pt, knock_belief.pt, knock_long.pt, multiplayer.pt\n")
    done = installed.run(installed.euchre, "train", "--config", "configs/knock.yaml")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    configs = "bid, classic, knock, knock_belief, knock_expert, knock_scratch, multiplayer, tiny"
    assert f"the package's configs by name: {configs}" in done.stderr


def test_euchre_train_reads_a_shipped_config_by_name(installed: Installed):
    pytest.importorskip("torch", reason="the trainer needs the train extra")
    # the shipped knock.yaml is read, then a bad override stops the run before anything is made: a dry check
    done = installed.run(installed.euchre, "train", "--config", "knock", "--set", "ppo.nope=1")
    assert done.returncode == 2 and "unknown config key 'ppo.nope'" in done.stderr, done.stderr
    assert not (installed.home / "runs").exists()
