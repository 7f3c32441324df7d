"""The ``euchre`` command line (euchre_env.cli.main), run in-process (and in a subprocess where the
process itself is the point: Ctrl-C, a missing extra)."""

from __future__ import annotations

import gzip
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys

import pytest
import yaml

from euchre_env import evaluation
from euchre_env.cli import main as cli
from euchre_env.cli.arguments import parse_options
from euchre_env.cli.main import main
from euchre_env.evaluation import Match
from euchre_env.evaluation.pool import _init_worker
from euchre_env.game.rules import Rules

TINY = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "tiny.yaml")


def test_eval_prints_the_table(capsys):
    assert main(["eval", "random", "random", "--hands", "40", "--seed", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    # hand mode: no games, win-rate or Wilson columns (they would only hold "-")
    assert "| A | B | deals | hands | margin A-B (pts/hand) | 95% CI | A points share | time |\n" in out
    assert "| random | random | 40 | 80 |" in out and "games" not in out and "Wilson" not in out
    assert "preset knock" in out and "seed 1" in out


def test_eval_games_with_options_and_out(tmp_path, capsys):
    argv = ["eval", "random", "random", "--games", "2", "--set", "game_target=3", "joker=true", "--workers", "1",
            "--preset", "classic", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| random | random | 2 |" in out and "game_target=3" in out
    assert "| games | A win rate | 95% CI (Wilson) | time |" in out  # game mode keeps them
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
        (["eval", "random", "random", "--seed", "-1"], "--seed: expected a seed from 0 to 4,294,967,295"),
        (["cfr", "--seed", "-1", "--deals", "1", "--out", "never_written.npz"], "--seed: expected a seed from 0"),
        (["eval", "random", "random", "--hands", str(10**12)], "expected at most 1,000,000 deals a match"),
        (["play", "--opponents", "omniscient"], "--opponents omniscient sees every hand (a ceiling for analysis, "
                                                "not a player): add --allow-cheating"),
        (["serve", "--partner", "split:omniscient:rules"], "--partner split:omniscient:rules sees every hand"),
        (["play", "--hint", "omniscient", "--allow-cheating"], "--hint omniscient sees every hand: a hint may see"),
        (["eval", "random", "random", "--games", "1000001"], "expected at most 1,000,000 deals a match"),
        (["eval", "random"], "required"),
        (["eval", "random:3", "random"], "takes no parameter"),
        (["eval", "random", "random", "--bogus"], "unrecognized arguments"),
        (["ladder", "random"], "at least two agents"),
        (["frobnicate"], "invalid choice"),
        (["eval", "pimc:0", "random"], "agent spec 'pimc:0': worlds must be at least 1"),
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


def test_an_agent_error_is_said_once(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "pimc:0", "random"])
    err = capsys.readouterr().err
    assert err.count("pimc:0") == 1 and err.count("agent spec") == 1, err


COMMAND_LINES = [f"  {name:<{max(map(len, cli.COMMANDS))}}  {text}" for name, text in cli.COMMANDS.items()]


def test_help_describes_every_command_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert [name for name in cli.COMMANDS] == ["eval", "ladder", "merge", "train", "exploit", "cfr", "play", "serve",
                                                "compile"]
    for line in COMMAND_LINES:
        assert line in lines
    assert "training" in lines[2]  # the description is not about evaluation only


def test_no_command_prints_the_overview_then_one_error_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and all(line in lines for line in COMMAND_LINES)
    assert lines[-1] == ("euchre: error: missing command: eval, ladder, merge, train, exploit, cfr, play, serve, "
                         "compile (see euchre COMMAND --help)")


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_a_commands_usage_line_names_the_command(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: euchre {command} [-h]")


@pytest.mark.parametrize(("argv", "line"), [
    (["eval", "random"], "euchre: error: the following arguments are required: B; see euchre eval --help"),
    (["play", "--seat", "9"], "euchre: error: argument --seat: invalid choice: 9 (choose from 0, 1, 2, 3); "
                              "see euchre play --help"),
    (["train", "--progress=no"], "euchre: error: argument --progress/--no-progress: ignored explicit argument 'no'; "
                                 "see euchre train --help"),
])
def test_an_argument_error_of_a_command_is_one_line_that_names_its_help(argv, line, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.err == line + "\n" and captured.out == ""


@pytest.mark.parametrize(("config", "overrides", "fragment"), [
    ("- ppo\n- run\n", ["ppo.lr=1e-3"], "must be a mapping of sections (run, rules, model, ppo, pretrain, league, "
                                        "eval, final_eval, ray, expert), got the list ['ppo', 'run']"),
    (None, ["ppo.lr=!!python/object:os.system ls"], "--set 'ppo.lr=!!python/object:os.system ls': the YAML tag "
                                                    "'!!python/object:os.system' asks for a Python object"),
    (None, ["ppo.lr"], "--set expects section.key=value, got 'ppo.lr'"),
    (None, ["ppo.epochs=2.5"], "config ppo.epochs must be of type int, got 2.5"),
    (None, ["ppo.num_games=1000000000000"], "config ppo.num_games must be an integer from 1 to 8192, got "
                                            "1000000000000"),
    (None, ["run.max_minutes=-5"], "config run.max_minutes must be a number from 0 (no limit) to 1000000, got -5.0"),
])
def test_a_bad_train_config_is_one_line_with_status_2(tmp_path, capsys, config, overrides, fragment):
    pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")
    argv = ["train", "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--set", *overrides]
    if config is not None:
        (tmp_path / "config.yaml").write_text(config)
        argv += ["--config", str(tmp_path / "config.yaml")]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("euchre: error: ") and captured.err.count("\n") == 1, captured.err
    assert fragment in captured.err and captured.out == ""
    assert not (tmp_path / "runs").exists()  # refused before anything was made


@pytest.mark.parametrize("slot", ["pretrain.teacher={}", "eval.opponents=[{}]", "final_eval.opponents={{{}: 10}}",
                                  "league.mix={{self: 1, {}: 1}}"])
def test_a_refused_checkpoint_in_any_config_slot_is_one_line_before_training(tmp_path, capsys, slot):
    """The probe of issue 54: a pickled file as the teacher or an opponent was refused inside a traceback, the final
    evaluation's after the run had trained. Every slot is now built before the run's folder is written."""
    torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")
    evil = tmp_path / "evil.pt"
    torch.save({"run": eval}, evil)  # a global the weights-only loader refuses
    argv = ["train", "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--set", slot.format(evil)]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("euchre: error: ") and captured.err.count("\n") == 1, captured.err
    assert "it refers to code (the global 'eval')" in captured.err and captured.out == ""
    assert not (tmp_path / "runs").exists()


# ------------------------------------------------------------------------------ Ctrl-C
def _sigint_after_interrupting_myself():
    os.kill(os.getpid(), signal.SIGINT)  # a worker that does not ignore SIGINT dies here
    return int(signal.getsignal(signal.SIGINT))


def test_pool_workers_ignore_sigint():
    match = Match("random", "random", Rules.preset("knock"))
    with mp.get_context().Pool(1, initializer=_init_worker, initargs=(match,)) as pool:
        assert pool.apply(_sigint_after_interrupting_myself) == int(signal.SIG_IGN)


def test_ctrl_c_in_the_parent_is_one_line_and_status_130(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation, "evaluate", interrupted)  # what the command imports when it runs a match
    assert main(["eval", "random", "random", "--hands", "10"]) == 130
    captured = capsys.readouterr()
    assert captured.err == "euchre: interrupted\n" and captured.out == ""


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_during_a_pooled_eval_prints_no_worker_traceback():
    """The terminal's Ctrl-C: SIGINT to the whole process group, parent and workers alike."""
    argv = [sys.executable, "-m", "euchre_env.cli", "eval", "random", "random", "--hands", "1000000",
            "--workers", "2", "--progress"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, bufsize=0)
    seen = b""
    try:
        while b"deals" not in seen:  # the bar draws after a second, from the parent's loop over the pool's results
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break  # it ended before: the asserts below show why
            seen += chunk
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err = (seen + err).decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "ForkPoolWorker" not in err and out == b""
    assert err.splitlines()[-1].split("\r")[-1] == "euchre: interrupted"


# ------------------------------------------------------------------------------ train --resume of a damaged run
def _damaged_run(root, latest: bytes) -> str:
    run = root / "damaged"
    (run / "checkpoints").mkdir(parents=True)
    with open(TINY) as f:
        (run / "config.yaml").write_text(yaml.safe_dump(yaml.safe_load(f)))
    (run / "checkpoints" / "latest.pt").write_bytes(latest)
    return str(root)


def test_resume_of_a_truncated_checkpoint_is_one_line(tmp_path, capsys):
    pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")
    good = os.path.join(os.path.dirname(__file__), "..", "fixtures", "knock_absolute_v1.pt")
    with open(good, "rb") as f:
        data = f.read()
    runs = _damaged_run(tmp_path, data[: len(data) // 2])
    with pytest.raises(SystemExit) as exc:
        main(["train", "--runs-dir", runs, "--run-name", "damaged", "--resume", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "cannot resume: " in err and "latest.pt' is not a readable checkpoint: not a PyTorch file" in err
    assert "start a new run with another --run-name" in err


def test_resume_when_reading_the_checkpoint_fails_is_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")
    from euchre_env.training import checkpoints

    def unreadable(path, rules=None):
        raise OSError(22, "Invalid argument", path)

    monkeypatch.setattr(checkpoints, "load_checkpoint", unreadable)
    runs = _damaged_run(tmp_path, b"")
    (tmp_path / "damaged" / "checkpoints" / "best.pt").write_bytes(b"")
    with pytest.raises(SystemExit) as exc:
        main(["train", "--runs-dir", runs, "--run-name", "damaged", "--resume", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be read (Invalid argument)" in err and "best.pt" in err


# ------------------------------------------------------------------------------ without the eval extra
def test_without_the_eval_extra_the_command_says_which_extra(tmp_path):
    # None in sys.modules makes "import scipy" raise ModuleNotFoundError, as if it were not installed.
    code = ("import sys; sys.modules['scipy'] = None; from euchre_env.cli.main import main; "
            "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "eval", "random", "random"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("euchre: error: the eval command needs the eval extra (no module named 'scipy'): "
                           "pip install 'euchre-env[eval]'\n")
    helped = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "  train" in helped.stdout  # help needs no extra


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
    # docs/results keeps merge inputs gzipped: a .json.gz run merges as its JSON does
    with open(f"{part_b}/eval.json", "rb") as f, gzip.open(tmp_path / "b.json.gz", "wb") as g:
        g.write(f.read())
    assert main(["merge", f"{part_a}/eval.json", str(tmp_path / "b.json.gz"), "--out", merged]) == 0
    assert load(merged) == load(whole)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["merge", part_a, part_a])
    assert exit_info.value.code == 2
    assert "deal 0 was played in more than one run" in capsys.readouterr().err


# ------------------------------------------------------------------------------ the rules of checkpoint agents
# the tests' own small checkpoints (tests/fixtures/make_fixtures.py)
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
BID, KNOCK = os.path.join(FIXTURES, "bid_structured.pt"), os.path.join(FIXTURES, "knock_absolute_v1.pt")


@pytest.mark.parametrize("command", ["eval", "ladder"])
def test_without_preset_a_checkpoint_brings_its_rules(command, capsys):
    pytest.importorskip("torch", reason="a checkpoint agent needs the train extra (torch)")
    extra = ["--bootstrap", "2"] if command == "ladder" else []
    assert main([command, BID, "rules", "--hands", "2", "--workers", "1", "--no-progress", *extra]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Duplicate evaluation, rules from {BID}: preset bid, seed 0: 2 deals"), out


def test_checkpoints_of_different_rules_without_preset_are_one_line(capsys):
    pytest.importorskip("torch", reason="a checkpoint agent needs the train extra (torch)")
    with pytest.raises(SystemExit) as exc:
        main(["ladder", BID, KNOCK, "rules", "--hands", "2", "--workers", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err == (f"euchre: error: the agents were trained for different rules: {BID} (preset bid), {KNOCK} "
                   "(preset knock); one match plays one rule set: give agents trained for the same rules\n")


def test_with_preset_a_checkpoint_for_other_rules_still_fails(capsys):
    pytest.importorskip("torch", reason="a checkpoint agent needs the train extra (torch)")
    with pytest.raises(SystemExit) as exc:
        main(["eval", BID, "rules", "--preset", "knock", "--hands", "2", "--workers", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"checkpoint {BID!r} was trained for other rules: family='bid' there" in err
    assert main(["eval", "random", "rules", "--hands", "2", "--workers", "1", "--no-progress"]) == 0
    assert "Duplicate evaluation, preset knock, seed 0" in capsys.readouterr().out  # no checkpoint: knock


@pytest.mark.parametrize("argv", [["--help"], ["eval", "--help"], ["eval", "rules", "random", "--hands", "-1"],
                                  ["train", "--set", "ppo.num_games=1000000000000"]])
def test_help_and_argument_errors_import_no_heavy_library(argv):
    """`euchre --help`, a command's help, an argument error and a bad config value answer before scipy, torch or the
    evaluation are imported (they took 0.8 s, 3 s for the config, of every such call): checked by what the process
    imported, not by a clock."""
    code = ("import sys\nfrom euchre_env.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
            "    pass\nheavy = [m for m in ('scipy', 'torch', 'euchre_env.evaluation') if m in sys.modules]\n"
            "print('HEAVY', heavy)\n")
    run = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in run.stdout, run.stdout + run.stderr


def test_a_match_is_bounded_as_the_trainers_matches_are():
    from euchre_env.cli.arguments import MAX_DEALS
    from euchre_env.training.ranges import DEALS

    assert (DEALS.low, DEALS.high) == (1, MAX_DEALS)


def test_an_output_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys):
    """eval/ladder/merge --out and cfr --out are checked first (issue 54: eval played its match, then printed a
    traceback; cfr trained, then claimed a save that never happened): one line, exit 2, nothing written."""
    a_file = tmp_path / "results.txt"
    a_file.write_text("kept")
    blocked = a_file / "below" / "t.npz"  # under a file: no folder can be made there
    cases = [
        (["eval", "rules", "random", "--hands", "20", "--out", str(a_file)], "cannot write a folder at"),
        (["ladder", "rules", "random", "--hands", "20", "--out", str(blocked.parent)], "cannot write a folder at"),
        (["merge", str(tmp_path), "--out", str(a_file)], "cannot write a folder at"),
        (["cfr", "--deals", "1", "--out", str(blocked)], "cannot write a file at"),
        (["exploit", "rules", "--method", "lbr", "--deals", "2", "--runs-dir", str(a_file)],
         "cannot write a folder at"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as info:
            main(argv)
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.count("\n") == 1 and message in err, err
    assert a_file.read_text() == "kept" and sorted(p.name for p in tmp_path.iterdir()) == ["results.txt"]


def test_training_against_or_from_an_agent_that_sees_every_hand_says_so_in_one_line(capsys):
    from euchre_env.cli.train import _say_who_cheats
    from euchre_env.training.config import load_config

    _say_who_cheats(load_config(None, ["league.mix={self: 0.5, omniscient: 0.5}", "pretrain.teacher=omniscient"]))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "league.mix omniscient and pretrain.teacher omniscient sees every hand" in err
    _say_who_cheats(load_config(None, []))  # the default league: nothing to say
    assert capsys.readouterr().err == ""


def test_a_relative_output_is_checked_where_it_will_be_written(tmp_path, monkeypatch):
    """runs/NAME or out.npz below the current folder: checked there (a relative folder's parents end at '', which
    once looped for ever)."""
    from euchre_env.cli.arguments import check_output

    monkeypatch.chdir(tmp_path)
    check_output("runs/lbr-rules", folder=True)
    check_output("deep/er/tables.npz", folder=False)
    check_output("here", folder=True)
    assert list(tmp_path.iterdir()) == []
