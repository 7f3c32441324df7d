"""A kernel of this package that compiles says so once per process, whoever calls it first; a short compile, or a
kernel of another package, says nothing (the notice listens to Numba's own compile events)."""

from __future__ import annotations

import threading
import types

import numba.core.event as numba_events
import pytest

from euchre_env.compiled import builds


def _compile(module: str, seconds: float) -> None:
    """A compile event of a kernel of ``module`` lasting ``seconds``, as Numba's dispatcher raises it."""
    dispatcher = types.SimpleNamespace(py_func=types.SimpleNamespace(__module__=module))
    with numba_events.trigger_event("numba:compile", data={"dispatcher": dispatcher}):
        threading.Event().wait(seconds)


@pytest.fixture
def quick_notice(monkeypatch):
    monkeypatch.setattr(builds, "ANNOUNCE_AFTER_S", 0.05)
    monkeypatch.setattr(builds, "_announced", False)


def test_a_long_compile_of_ours_is_announced_once(quick_notice, capsys):
    _compile("euchre_env.agents.rule_based.compiled", 0.5)
    _compile("euchre_env.compiled.kernels", 0.5)
    err = capsys.readouterr().err
    assert err.count("euchre-env: compiling the kernels of euchre_env.agents.rule_based.compiled") == 1
    assert err.count("euchre-env: compiling") == 1
    assert builds.cache_folder() in err and "once per install" in err and "euchre compile" in err


def test_a_short_compile_or_another_package_says_nothing(quick_notice, capsys):
    _compile("euchre_env.compiled.kernels", 0.0)
    _compile("someone_else.kernels", 0.5)
    assert capsys.readouterr().err == "" and not builds._announced
