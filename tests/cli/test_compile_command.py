"""``euchre compile``: every extension loaded with a line each; a missing one is named, with how to build it."""

from __future__ import annotations

from euchre_env.cli.main import main
from euchre_env.compiled import native


def test_compile_lists_every_extension_as_loaded(capsys):
    assert main(["compile"]) == 0
    err = capsys.readouterr().err
    for name in native.EXTENSIONS:
        assert f"euchre_env.{name}: loaded in" in err
    assert "every extension is built" in err


def test_a_missing_extension_is_named_with_the_way_to_build_it(monkeypatch, capsys):
    monkeypatch.setitem(native.EXTENSIONS, "compiled._not_there", "a test's missing extension")
    assert main(["compile", "--force"]) == 1  # --force is accepted (0.2's scripts) and changes nothing
    err = capsys.readouterr().err
    assert "euchre_env.compiled._not_there: NOT BUILT" in err
    assert "1 of 5 extensions not built" in err and "pip install" in err
