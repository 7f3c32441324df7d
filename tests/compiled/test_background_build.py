"""A background build: one process per cache folder, which stamps the build done, removes its lock and logs what
it printed; a use that finds the build running or done starts no other."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from euchre_env.compiled import builds
from euchre_env.compiled.builds import Family, build_in_background, is_built, use_compiled

ROOT = Path(__file__).resolve().parents[2]
TINY = Family("tiny_background", (__file__,), "tests.compiled.test_background_build:warm")


def warm() -> None:
    """The build's warm function: prints, as a compile's notices would, into the build's log."""
    print("warming the tiny build")


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(builds.BACKGROUND_VARIABLE, "1")
    monkeypatch.setenv(builds.ENGINE_VARIABLE, "auto")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the child imports this module by its dotted name
    monkeypatch.setattr(builds, "_started", set())
    return tmp_path


def test_a_background_build_stamps_its_family_and_cleans_up(empty_cache, capsys):
    assert not use_compiled(TINY)  # not built: the caller runs its reference twin, the build starts
    assert "tiny_background kernels not compiled for this machine yet" in capsys.readouterr().err
    lock = TINY.stamp + ".building"
    deadline = time.monotonic() + 120
    while not is_built(TINY) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert is_built(TINY)
    while os.path.exists(lock) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(lock)
    log = Path(TINY.stamp.removesuffix(".built") + ".log")
    assert "warming the tiny build" in log.read_text()
    assert use_compiled(TINY)  # built: the compiled path from now on


def test_a_build_running_elsewhere_starts_no_other(empty_cache, capsys):
    lock = Path(TINY.stamp + ".building")
    lock.write_text("")  # another process's build, under way
    assert build_in_background(TINY)
    assert capsys.readouterr().err == "" and not list(empty_cache.glob("*.log"))


def test_background_builds_can_be_turned_off(empty_cache, monkeypatch):
    monkeypatch.setenv(builds.BACKGROUND_VARIABLE, "0")
    assert not use_compiled(TINY) and not build_in_background(TINY)
    assert not list(empty_cache.iterdir())


def test_a_bad_engine_choice_is_one_line(monkeypatch):
    monkeypatch.setenv(builds.ENGINE_VARIABLE, "fast")
    with pytest.raises(ValueError, match="EUCHRE_ENV_ENGINE='fast' is not an engine choice: use one of auto, "
                                         "compiled, reference"):
        use_compiled(TINY)
