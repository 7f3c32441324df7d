"""The C core's constants are the layout's: ``euchre_env/compiled/c/layout.h`` is what ``gen_layout.py`` writes from
``euchre_env/compiled/layout.py`` (after a change there: ``.venv/bin/python euchre_env/compiled/c/gen_layout.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import euchre_env.compiled

FOLDER = Path(euchre_env.compiled.__file__).parent / "c"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_layout", FOLDER / "gen_layout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_header_is_what_the_script_generates():
    text = (FOLDER / "layout.h").read_text()
    assert text == _generator().header(), "layout.h is stale: run euchre_env/compiled/c/gen_layout.py"


def test_the_header_holds_the_fields_and_the_phases():
    from euchre_env.compiled import layout

    header = _generator().header()
    for name in ("NF", "FRAME", "HAND_OVER", "GAME_OVER", "B_SIZE", "T_PLAY", "O_NIDS", "RUBBER_BONUS"):
        assert f"#define {name} {getattr(layout, name)}\n" in header
    assert f"#define SCORE_BOUND {float(layout.SCORE_BOUND)!r}\n" in header
