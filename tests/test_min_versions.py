"""The version ranges pyproject.toml declares are ones the package works with: the core installed from this tree into
a fresh virtual environment with its dependencies at the lowest versions allowed (constraints-min.txt) and at the
newest the package index offers, each running tests/min_versions_smoke.py (import, the README loop, PettingZoo's
``api_test``, ``SingleSeatEnv`` under Gymnasium's ``check_env``, both vector envs).

Unlike tests/test_installed_package.py, whose environment borrows the suite's libraries, these environments get
their dependencies from the package index, as a user's would: that is the point. The two installs are in the slow
tier (``make test``), a few seconds each once pip's cache holds the wheels. Where no index answers they skip, saying
so, except in CI (``CI`` set), where ``make test`` has just installed from that index and a skip would hide the
check. The newest versions change as upstream releases: a failure there is a new release this package's ``<2``
upper bounds claim and do not work with, which is worth hearing about at once.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from test_installed_package import NOT_BUILT

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS_MIN = ROOT / "constraints-min.txt"
SMOKE = ROOT / "tests" / "min_versions_smoke.py"


def floors() -> dict[str, Version]:
    """Each core dependency's lower bound in pyproject.toml."""
    # the [project] table's list, read with a pattern: tomllib is Python 3.11's, and the package supports 3.10
    listed = re.search(r"^dependencies = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), flags=re.S | re.M)
    out = {}
    for line in re.findall(r'"([^"]+)"', listed.group(1)):
        req = Requirement(line)
        lows = [Version(s.version) for s in req.specifier if s.operator == ">="]
        assert len(lows) == 1, f"{line}: every core dependency names one lower bound (>=)"
        out[req.name.lower()] = lows[0]
    return out


def pins() -> dict[str, Version]:
    """constraints-min.txt's pins."""
    out = {}
    for line in CONSTRAINTS_MIN.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[name.strip().lower()] = Version(version.strip())
    return out


def test_constraints_min_pins_each_floor_of_pyproject():
    assert pins() == floors()


def _run(argv: list[str | Path], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the clone stays out of the fresh environment
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's wheel, built from a copy of this tree with the suite's setuptools (offline)."""
    work = tmp_path_factory.mktemp("min_versions")
    source, dist = work / "source", work / "dist"
    shutil.copytree(ROOT, source, ignore=NOT_BUILT)
    _ok(_run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w",
              dist, source], cwd=work))
    (built,) = dist.glob("euchre_env-*.whl")
    return built


def _fresh_venv(where: Path) -> Path:
    _ok(_run([sys.executable, "-m", "venv", where], cwd=where.parent))
    python = where / "bin" / "python"
    # Is an index there? One small wheel, the lowest PettingZoo, asked for before anything is installed.
    probe = _run([python, "-m", "pip", "download", "--no-deps", "-q", "-d", where / "probe",
                  f"pettingzoo=={pins()['pettingzoo']}"], cwd=where, timeout=300)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        message = f"no package index reachable to install the dependencies from (pip download said: {last})"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return python


@pytest.mark.slow
@pytest.mark.parametrize("versions", ["lowest", "newest"])
def test_the_core_works_on_the_lowest_and_the_newest_allowed_versions(wheel: Path, tmp_path: Path, versions: str):
    python = _fresh_venv(tmp_path / "venv")
    constraints = ["-c", CONSTRAINTS_MIN] if versions == "lowest" else []
    _ok(_run([python, "-m", "pip", "install", "-q", *constraints, wheel], cwd=tmp_path))
    home = tmp_path / "home"  # outside the clone: the installed euchre_env is the one imported
    home.mkdir()
    out = _ok(_run([python, SMOKE, ROOT / "README.md"], cwd=home))
    assert f"euchre_env from {tmp_path / 'venv'}" in out, out
    assert "ok: README loop" in out, out
    if versions == "lowest":
        ran = dict(re.findall(r"(numpy|gymnasium|pettingzoo) (\S+)", out))
        assert {name: Version(v) for name, v in ran.items()} == pins(), out
