"""Configs and published checkpoints by name (euchre_env/published.py): ``knock.pt`` in an agent spec and
``--config knock`` find the package's files from any folder; a file of that name in the current folder wins; a
missing one is one line naming what the package has. tests/test_installed_package.py checks the same from a wheel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from euchre_env import published
from euchre_env.agents.registry import check_spec, make_agent
from euchre_env.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs from an empty folder outside the clone."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_name_is_the_packages_file_and_a_file_here_wins(elsewhere: Path):
    # (euchre_env/checkpoints is a link to checkpoints/: the same file)
    assert Path(published.find("knock.pt", published.CHECKPOINTS)).samefile(ROOT / "checkpoints" / "knock.pt")
    assert Path(published.find("knock_cfr.npz", published.CHECKPOINTS)).samefile(ROOT / "checkpoints" / "knock_cfr.npz")
    assert published.find("nothing.pt", published.CHECKPOINTS) == "nothing.pt"  # the caller reports it
    assert published.find("checkpoints/knock.pt", published.CHECKPOINTS) == "checkpoints/knock.pt"  # a path
    (elsewhere / "knock.pt").write_bytes(b"mine")
    assert published.find("knock.pt", published.CHECKPOINTS) == "knock.pt"


def test_the_shipped_names_include_the_readmes():
    assert {"knock.pt", "knock_long.pt", "knock_150m.pt", "classic.pt", "multiplayer.pt", "bid.pt"} <= set(
        published.shipped(published.CHECKPOINTS, ".pt"))
    assert published.shipped(published.CHECKPOINTS, ".npz") == ["bid_cfr.npz", "knock_cfr.npz"]
    assert {"knock.yaml", "classic.yaml", "multiplayer.yaml", "bid.yaml"} <= set(
        published.shipped(published.CONFIGS, ".yaml"))


@pytest.mark.parametrize("spec", ["knock.pt", "search:8:knock_150m.pt", "cfr:knock_cfr.npz", "cfr:4:bid_cfr.npz"])
def test_agent_specs_take_published_names(spec: str):
    check_spec(spec)


def test_a_published_checkpoint_builds_under_its_name():
    pytest.importorskip("torch", reason="a checkpoint agent needs the train extra")
    agent = make_agent("bid.pt")
    assert agent.name == "bid.pt" and agent.rules.preset_name == "bid"


@pytest.mark.parametrize(("spec", "line"), [
    ("checkpoints/knock.pt", "no checkpoint file at 'checkpoints/knock.pt'; the package's checkpoints by name: "
                             "bid.pt, "),
    ("search:knock_9m.pt", "agent spec 'search:knock_9m.pt': no checkpoint file at 'knock_9m.pt'; the package's "
                           "checkpoints by name: bid.pt, "),
    ("cfr:knock.npz", "agent spec 'cfr:knock.npz': no CFR tables file at 'knock.npz' (train one with: euchre cfr "
                      "--out knock.npz); the package's CFR tables by name: bid_cfr.npz, knock_cfr.npz"),
])
def test_a_missing_file_is_one_line_naming_the_packages_files(spec: str, line: str):
    with pytest.raises(ValueError) as info:
        check_spec(spec)
    assert str(info.value).startswith(line) and "\n" not in str(info.value)


def test_a_config_by_name_with_or_without_its_suffix(elsewhere: Path):
    knock = ROOT / "configs" / "knock.yaml"
    assert all(Path(published.find_config(name)).samefile(knock) for name in ("knock", "knock.yaml"))
    (elsewhere / "knock.yaml").write_text("run: {seed: 3}\n")
    assert published.find_config("knock") == "knock.yaml" == published.find_config("knock.yaml")  # the file here
    (elsewhere / "folder").mkdir()
    assert published.find_config("folder") == "folder"  # something is there: the trainer says what is wrong
    names = ("the package's configs by name: bid, classic, knock, knock_belief, knock_expert, knock_scratch, "
             "multiplayer, tiny")
    for text in ("configs/knock.yaml", "knock_9m"):
        with pytest.raises(ValueError, match=f"^cannot read config '{text}': No such file or directory; {names}$"):
            published.find_config(text)


def test_euchre_train_refuses_an_unknown_config_name_in_one_line(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exc:
        main(["train", "--config", "knock_9m"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("euchre: error: argument --config: cannot read config 'knock_9m': ") and err.count("\n") == 1
    assert "configs by name: bid, classic, knock," in err
