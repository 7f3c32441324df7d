"""``euchre compile``: every build compiled in turn with a line each, a stamped build skipped, ``--force`` again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from euchre_env.cli import compiling
from euchre_env.cli.main import main
from euchre_env.compiled.builds import Family, is_built


def warm() -> None:
    """A build's warm function: here it only records that it ran (in a file: the build imports this module by its
    dotted name, which may be another module object than pytest's)."""
    with open(os.environ["WARM_LOG"], "a") as f:
        f.write("warm\n")


def warmed(tmp_path: Path) -> list[str]:
    log = tmp_path / "warm.log"
    return log.read_text().split() if log.exists() else []


@pytest.fixture
def one_build(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    source = tmp_path / "kernel_source.py"
    source.write_text("# the build's source\n")
    family = Family("tiny", (str(source),), "tests.cli.test_compile_command:warm")
    monkeypatch.setattr(compiling, "families", lambda: [family])
    monkeypatch.setenv("WARM_LOG", str(tmp_path / "warm.log"))
    return family


def test_compile_builds_then_skips_then_forces(one_build, tmp_path, capsys):
    assert main(["compile"]) == 0
    err = capsys.readouterr().err
    assert "[1/1] tiny: compiling..." in err and is_built(one_build) and warmed(tmp_path) == ["warm"]
    assert main(["compile"]) == 0
    assert "[1/1] tiny: built already" in capsys.readouterr().err and warmed(tmp_path) == ["warm"]
    assert main(["compile", "--force"]) == 0
    assert "[1/1] tiny: compiling..." in capsys.readouterr().err and warmed(tmp_path) == ["warm", "warm"]


def test_every_build_of_the_package_is_listed():
    assert [f.name for f in compiling.families()] == ["game", "batch_play", "vector", "single_seat_vector",
                                                     "double_dummy"]
