"""Ctrl-C during training: what is saved, that the run resumes exactly, and the line that says how to go on."""

from __future__ import annotations

import os
import re
import signal
import sys

import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from euchre_env.agents.neural.checkpoint import load_checkpoint  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.training import imitation, ppo  # noqa: E402
from euchre_env.training.config import load_config  # noqa: E402
from euchre_env.training.selfplay import SelfPlay  # noqa: E402
from euchre_env.training.train import Trainer, TrainingInterrupted  # noqa: E402

torch.set_num_threads(1)

TINY = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "tiny.yaml")
QUIET = lambda text: None
# latest.pt only at the end or on Ctrl-C, so that the interrupted run's latest.pt is the interrupt's own save
SPARSE = ["run.checkpoint_every=10"]


def tiny(*overrides: str):
    return load_config(TINY, [*SPARSE, *overrides])


def interrupt_collect_at(monkeypatch, update: int) -> None:
    """The collection of update ``update + 1`` (its ``update`` argument is the updates done) gets a Ctrl-C."""
    real = SelfPlay.collect

    def collect(self, budget, seed, done, *args, **kwargs):
        if done == update and kwargs.get("teacher") is None:
            raise KeyboardInterrupt
        return real(self, budget, seed, done, *args, **kwargs)

    monkeypatch.setattr(SelfPlay, "collect", collect)


def weights(path) -> tuple[dict, dict]:
    """The actor's and the critic's weights (one dict, keys prefixed) and the counters of a checkpoint."""
    data = load_checkpoint(str(path))
    return {f"{part}.{k}": v for part in ("actor", "critic") for k, v in data[part].items()}, data["counters"]


def test_ctrl_c_in_a_collection_saves_the_last_update_and_resumes_exactly(tmp_path, monkeypatch):
    full = Trainer(tiny(), str(tmp_path / "full"), log=QUIET).train()
    with monkeypatch.context() as m:
        interrupt_collect_at(m, 2)
        with pytest.raises(TrainingInterrupted) as stop:
            Trainer(tiny(), str(tmp_path / "split"), log=QUIET).train()
    assert (stop.value.update, stop.value.saved_update) == (2, 2)
    ckpts = tmp_path / "split" / "checkpoints"
    assert stop.value.latest_path == str(ckpts / "latest.pt")
    assert load_checkpoint(str(ckpts / "latest.pt"))["counters"]["update"] == 2
    split = Trainer(tiny(), str(tmp_path / "split"), resume=True, log=QUIET).train()
    assert (split.updates, split.decisions) == (full.updates, full.decisions) == (3, full.decisions)
    (a, ca), (b, cb) = weights(tmp_path / "full" / "checkpoints" / "latest.pt"), weights(ckpts / "latest.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert all(ca[k] == cb[k] for k in ("update", "decisions", "hands", "best_margin"))


def sigint_during_learning(monkeypatch, at_update: int, times: int) -> None:
    """``times`` Ctrl-Cs arrive during the PPO epochs of update ``at_update`` (the signal, as a terminal sends it)."""
    real = ppo.ppo_update
    calls = []

    def ppo_update(*args, **kwargs):
        calls.append(1)
        if len(calls) == at_update:
            for _ in range(times):
                os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)

    monkeypatch.setattr(ppo, "ppo_update", ppo_update)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself is POSIX")
def test_a_first_ctrl_c_mid_update_finishes_the_update(tmp_path, monkeypatch):
    lines = []
    sigint_during_learning(monkeypatch, at_update=2, times=1)
    with pytest.raises(TrainingInterrupted) as stop:
        Trainer(tiny(), str(tmp_path / "run"), log=lines.append).train()
    assert (stop.value.update, stop.value.saved_update) == (2, 2)
    assert "Ctrl-C: finishing update 2 to save it (Ctrl-C again quits at once, without saving)" in lines
    assert load_checkpoint(stop.value.latest_path)["counters"]["update"] == 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the trainer's handler is gone


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself is POSIX")
def test_a_second_ctrl_c_quits_at_once_without_saving(tmp_path, monkeypatch):
    sigint_during_learning(monkeypatch, at_update=2, times=2)
    with pytest.raises(TrainingInterrupted) as stop:
        Trainer(tiny("run.checkpoint_every=1"), str(tmp_path / "run"), log=QUIET).train()
    # update 2 was abandoned half applied: latest.pt stays at update 1
    assert stop.value.saved_update == 1 and stop.value.update in (1, 2)
    assert load_checkpoint(stop.value.latest_path)["counters"]["update"] == 1


def last_line(err: str) -> str:
    return err.rstrip("\n").split("\n")[-1].split("\r")[-1]


def test_cli_says_how_to_continue(tmp_path, monkeypatch, capsys):
    interrupt_collect_at(monkeypatch, 1)
    argv = ["train", "--config", TINY, "--set", *SPARSE, "--runs-dir", str(tmp_path), "--run-name", "cut", "--progress"]
    assert main(argv) == 130
    captured = capsys.readouterr()
    latest = os.path.join(str(tmp_path), "cut", "checkpoints", "latest.pt")
    assert last_line(captured.err) == (f"euchre: interrupted at update 1; saved {latest}; continue with: "
                                       f"euchre train --run-name cut --runs-dir {tmp_path} --resume")
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.endswith("\n" + last_line(captured.err) + "\n")  # on a line of its own, after the bars


def test_the_continue_command_keeps_a_resumes_new_budget(tmp_path, monkeypatch, capsys):
    # A run resumed with a longer budget (not written to its config.yaml) and interrupted again: the command it
    # prints must carry that budget, or following it would end the run at the old one.
    argv = ["train", "--config", TINY, "--set", *SPARSE, "--runs-dir", str(tmp_path), "--run-name", "more",
            "--no-progress", "--no-final-eval"]
    assert main(argv) == 0
    capsys.readouterr()
    interrupt_collect_at(monkeypatch, 3)  # the first run's 3,000 decisions are 3 updates
    again = ["train", "--run-name", "more", "--runs-dir", str(tmp_path), "--resume", "--no-progress",
             "--no-final-eval", "--set", "run.total_decisions=9000", "run.checkpoint_every=10"]
    assert main(again) == 130
    line = last_line(capsys.readouterr().err)
    assert line.endswith(f"continue with: euchre train --set run.total_decisions=9000 --run-name more --runs-dir "
                         f"{tmp_path} --no-progress --no-final-eval --resume"), line


def test_cli_before_the_first_update_says_start_again(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(imitation, "clone", interrupted)  # Ctrl-C during behaviour cloning
    argv = ["train", "--config", TINY, "--runs-dir", str(tmp_path), "--run-name", "early", "--no-progress"]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert last_line(err) == ("euchre: interrupted before any update was saved; nothing to resume yet; start again "
                              f"with: euchre train --config {TINY} --run-name early --runs-dir {tmp_path} "
                              "--no-progress")
    assert "--resume" not in err and not (tmp_path / "early" / "checkpoints" / "latest.pt").exists()


def test_make_train_is_named_when_it_is_the_same_command(tmp_path, monkeypatch, capsys):
    from euchre_env.cli import main as cli

    interrupt_collect_at(monkeypatch, 0)
    monkeypatch.chdir(tmp_path)  # configs/knock.yaml and runs/ relative to the folder, as make train has them
    os.makedirs("configs")
    with open(TINY) as f, open("configs/knock.yaml", "w") as out:
        out.write(f.read())
    assert cli.main(["train", "--config", "configs/knock.yaml", "--run-name", "mine"]) == 130
    assert last_line(capsys.readouterr().err) == (
        "euchre: interrupted before any update was saved; nothing to resume yet; start again with: "
        "euchre train --config configs/knock.yaml --run-name mine (or run make train RUN=mine again)")


def test_the_bar_counts_toward_the_first_stop(tmp_path, capsys):
    """With a time limit the bar is in minutes; its total is the projected end, here the decision budget's."""
    Trainer(tiny("run.max_minutes=60"), str(tmp_path / "timed"), log=QUIET).train(progress=True)
    last = last_line(capsys.readouterr().err)
    assert last.startswith("training 100%|") and " min [" in last, last
    assert "update 3, train margin" in last and re.search(r", 3.\d\dk/3.00k decisions]$", last), last
