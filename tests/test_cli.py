"""The ``euchre`` command line (euchre_env.training.cli), run in-process."""

from __future__ import annotations

import json

import pytest
from euchre_env.training.cli import main, parse_options


def test_eval_prints_the_table(capsys):
    assert main(["eval", "random", "random", "--hands", "40", "--seed", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "| A | B | deals | hands | margin A-B (pts/hand) | 95% CI |" in out
    assert "| random | random | 40 | 80 |" in out
    assert "preset knock" in out and "seed 1" in out


def test_eval_games_with_options_and_out(tmp_path, capsys):
    argv = ["eval", "random", "random", "--games", "2", "--set", "game_target=3", "joker=true", "--workers", "1",
            "--preset", "classic", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| random | random | 2 |" in out and "game_target=3" in out
    data = json.loads((tmp_path / "eval.json").read_text())
    assert data["games"] == 4 and data["rules"]["joker"] is True and data["rules"]["game_target"] == 3
    assert (tmp_path / "eval.csv").exists() and (tmp_path / "deals.csv").exists()


def test_ladder_writes_json_csv_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    argv = ["ladder", "random", "random", "--hands", "10", "--seed", "1", "--bootstrap", "5", "--workers", "1",
            "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| rank | agent |" in out and "random#2" in out
    for name in ("ladder.json", "ladder.csv", "matches.csv", "ladder.png"):
        assert (tmp_path / name).stat().st_size > 0


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["eval", "nosuch", "random"], "unknown agent spec 'nosuch'"),
        (["eval", "random", "random", "--preset", "nope"], "unknown preset 'nope'"),
        (["eval", "random", "random", "--set", "game_target=0"], "game_target"),
        (["eval", "random", "random", "--set", "colour=red"], "unknown rules option 'colour'"),
        (["eval", "random", "random", "--set", "joker"], "OPTION=VALUE"),
        (["eval", "random", "random", "--set", "joker=maybe"], "true or false"),
        (["eval", "random", "random", "--set", "game_target=ten"], "must be an integer"),
        (["eval", "random", "random", "--preset", "bid", "--set", "lone_maker=true"], "lone_maker"),
        (["eval", "random", "random", "--hands", "0"], "positive integer"),
        (["eval", "random", "random", "--hands", "many"], "positive integer"),
        (["eval", "random", "random", "--seed", "-1"], "non-negative"),
        (["eval", "random"], "required"),
        (["eval", "random:3", "random"], "takes no parameter"),
        (["eval", "random", "random", "--bogus"], "unrecognized arguments"),
        (["ladder", "random"], "at least two agents"),
        (["frobnicate"], "invalid choice"),
        ([], "missing command"),
    ],
)
def test_errors_are_one_line_with_status_2(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.count("\n") == 1 and err.startswith("euchre") and "error:" in err, err
    assert fragment in err
    assert "Traceback" not in err and captured.out == ""


def test_parse_options_types():
    assert parse_options(["game_target=5", "joker=yes", "renege=penalize"]) == {
        "game_target": 5, "joker": True, "renege": "penalize"}


def test_a_match_split_into_deal_ranges_merges_to_the_whole(tmp_path, capsys):
    """eval --first-deal plays the same pairs as one long run; merge gives the same statistics."""
    whole, part_a, part_b = (str(tmp_path / name) for name in ("whole", "a", "b"))
    assert main(["eval", "rules", "random", "--hands", "30", "--seed", "4", "--workers", "1", "--out", whole]) == 0
    assert main(["eval", "rules", "random", "--hands", "12", "--seed", "4", "--out", part_a]) == 0
    assert main(["eval", "rules", "random", "--hands", "18", "--first-deal", "12", "--seed", "4", "--out", part_b]) == 0
    merged = str(tmp_path / "merged")
    assert main(["merge", part_a, part_b, "--out", merged]) == 0

    def load(folder):
        with open(f"{folder}/eval.json") as f:
            data = json.load(f)
        return data["deal_records"], data["margin"], data["margin_low"], data["margin_high"]

    assert load(merged) == load(whole)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["merge", part_a, part_a])
    assert exit_info.value.code == 2
    assert "deal 0 was played in more than one run" in capsys.readouterr().err
