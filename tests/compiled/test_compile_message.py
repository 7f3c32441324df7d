"""A first call that compiles says so once per process; one that loads cached code says nothing."""

from __future__ import annotations

import threading

from euchre_env.compiled import builds


def test_a_slow_first_call_is_announced_once(monkeypatch, capsys):
    monkeypatch.setattr(builds, "ANNOUNCE_AFTER_S", 0.01)
    monkeypatch.setattr(builds, "_announced", False)
    done = threading.Event()
    with builds.compiling("the kernels"):
        done.wait(0.3)  # a call that takes longer than the threshold, as a compile does
    with builds.compiling("the kernels"):
        done.wait(0.3)
    err = capsys.readouterr().err
    assert err.count("euchre-env: compiling the kernels for this machine") == 1
    assert builds.cache_folder() in err and "once per install" in err


def test_a_quick_call_says_nothing(monkeypatch, capsys):
    monkeypatch.setattr(builds, "_announced", False)
    with builds.compiling("the kernels"):
        pass
    assert capsys.readouterr().err == "" and not builds._announced
