"""Every row of docs/bad-input.md, run: the command line's rows through ``euchre`` (one line on stderr, exit status
2, nothing on stdout), the Python rows as expressions (one line, the exception's class and message). A line in the
page that ends in "..." is the start of the message (the rest names this machine's memory)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the checkpoint rows need the train extra (torch)")

import euchre_env  # noqa: E402
from euchre_env.agents.neural.checkpoint import build_model, load_checkpoint  # noqa: E402
from euchre_env.agents.registry import make_agent  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.envs.single_seat import SingleSeatEnv  # noqa: E402
from euchre_env.envs.single_seat_vector import SingleSeatVectorEnv  # noqa: E402
from euchre_env.envs.vector import VectorEuchre  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.published import CHECKPOINTS, find  # noqa: E402

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bad-input.md"
ROW = re.compile(r"^\| `(?P<input>[^`]+)` \| `(?P<line>.+)` \|$")


def _rows(start: str) -> list[tuple[str, str]]:
    """The (input, line) rows of the page whose input starts with ``start``."""
    found = [ROW.match(text) for text in PAGE.read_text(encoding="utf-8").splitlines()]
    return [(m["input"], m["line"]) for m in found if m and m["input"].startswith(start)]


COMMANDS = _rows("euchre ")
EXPRESSIONS = [row for row in _rows("") if not row[0].startswith("euchre ")]


@pytest.fixture
def probe_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The files the page's rows name, in the current folder."""
    monkeypatch.chdir(tmp_path)
    torch.save({"run": eval}, tmp_path / "evil.pt")  # a global the weights-only loader refuses
    payload = torch.load(find("knock.pt", CHECKPOINTS), weights_only=True)
    payload["hidden"] = [60000, 60000]  # the probe's file: 14 GB of network declared beside small weights
    torch.save(payload, tmp_path / "huge.pt")
    (tmp_path / "damaged.pt").write_bytes(Path(find("knock.pt", CHECKPOINTS)).read_bytes()[:5000])
    return tmp_path


def _matches(seen: str, documented: str) -> bool:
    return seen.startswith(documented[:-3]) if documented.endswith("...") else seen == documented


def test_the_page_has_its_rows():
    assert len(COMMANDS) >= 25 and len(EXPRESSIONS) >= 10


@pytest.mark.parametrize(("command", "line"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_a_bad_command_is_the_documented_line(probe_folder: Path, capsys: pytest.CaptureFixture[str],
                                               command: str, line: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(shlex.split(command)[1:])
    captured = capsys.readouterr()
    assert exc.value.code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and _matches(captured.err.rstrip("\n"), line), captured.err
    assert sorted(p.name for p in probe_folder.iterdir()) == ["damaged.pt", "evil.pt", "huge.pt"]  # nothing written


def _reset(env: Any) -> Any:
    env.reset(seed=0)
    return env


NAMES = {"euchre_env": euchre_env, "VectorEuchre": VectorEuchre, "SingleSeatEnv": SingleSeatEnv,
         "SingleSeatVectorEnv": SingleSeatVectorEnv, "Rules": Rules, "make_agent": make_agent,
         "load_checkpoint": load_checkpoint, "build_model": build_model, "reset": _reset}


@pytest.mark.parametrize(("expression", "line"), EXPRESSIONS, ids=[e for e, _ in EXPRESSIONS])
def test_a_bad_call_is_the_documented_line(probe_folder: Path, expression: str, line: str) -> None:
    with pytest.raises(Exception) as info, contextlib.redirect_stdout(io.StringIO()):
        eval(expression, dict(NAMES))  # the page's own expressions, nothing from outside the repository
    seen = f"{type(info.value).__name__}: {info.value}"
    assert "\n" not in seen and _matches(seen, line), seen


def test_the_command_lines_ranges_are_the_trainers():
    from euchre_env.cli.arguments import MAX_MINUTES, MAX_WORKERS, seed
    from euchre_env.training.config import RANGES
    from euchre_env.training.ranges import SEED, WORKERS

    assert (WORKERS.low, WORKERS.high) == (1, MAX_WORKERS)
    assert RANGES["run.max_minutes"].high == MAX_MINUTES
    assert seed(str(SEED.high)) == SEED.high and seed(str(SEED.low)) == SEED.low
