"""No file a user hands the project runs code (issue 44): every loader of a user-supplied path or body, given a
crafted file whose unsafe reading would create a marker file, refuses it in one line and the marker never appears.

The crafted pickles are checked to be live (``pickle.loads`` of one does create its marker), so a refusal here is
the loader's doing, not a dud payload's. docs/file-formats.md lists the formats and their readers.
"""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from euchre_env.agents.search.cfr_bidding import Tables
from euchre_env.agents.search.openspiel_bots import MCCFRPolicyError, load_mccfr_policy, save_mccfr_policy
from euchre_env.game.rules import Rules

KNOCK = Rules.preset("knock")


class _Calls:
    """Pickles as the call ``function(*args)``: what a malicious file holds, run by an unsafe load."""

    def __init__(self, function, *args) -> None:
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def _evil(marker: Path) -> _Calls:
    """An object whose unpickling creates the folder ``marker`` (os.mkdir pickles as posix.mkdir)."""
    return _Calls(os.mkdir, str(marker))


def _one_line(err: pytest.ExceptionInfo, *words: str) -> str:
    message = str(err.value)
    assert "\n" not in message and message.strip() == message, message
    for word in words:
        assert word in message, message
    return message


def test_the_crafted_pickle_runs_code_when_unpickled(tmp_path):
    """The payload every test below feeds to a loader is real: a plain pickle.loads makes its marker."""
    marker = tmp_path / "made"
    pickle.loads(pickle.dumps({"policy": _evil(marker)}))
    assert marker.is_dir()


# ------------------------------------------------------------------ openspiel:mccfr:PATH
def _old_mccfr_pickle(tmp_path: Path, marker: Path) -> Path:
    """A policy in the old format (a pickle of rules and policy) with a payload inside."""
    path = tmp_path / "policy.pkl"
    path.write_bytes(pickle.dumps({"rules": KNOCK.to_dict(), "policy": {"seat 0": [1.0]}, "x": _evil(marker)}))
    return path


def test_mccfr_policy_round_trips(tmp_path):
    """What save_mccfr_policy writes, load_mccfr_policy reads back exactly (so the refusals below are not all)."""
    policy = {"seat 0 dealer 3 | 0:order": [0.25, 0.75], "seat 1 ü": [1.0], "seat 2": [0.1, 0.2, 0.7], "": [0.5]}
    path = str(tmp_path / "policy.npz")
    save_mccfr_policy(path, KNOCK, policy)
    rules, loaded = load_mccfr_policy(path)
    assert rules == KNOCK and list(loaded) == list(policy)
    assert all(loaded[k].tolist() == v for k, v in policy.items())
    save_mccfr_policy(path, KNOCK, {})
    assert load_mccfr_policy(path) == (KNOCK, {})


def test_an_old_pickle_mccfr_policy_is_refused_unread(tmp_path):
    marker = tmp_path / "made"
    path = _old_mccfr_pickle(tmp_path, marker)
    with pytest.raises(MCCFRPolicyError) as err:
        load_mccfr_policy(str(path))
    _one_line(err, "is a pickle (the old MCCFR policy format)", "nothing was run", "an .npz of plain arrays",
              "python examples/openspiel_mccfr.py --rules PRESET --out POLICY.npz")
    assert not marker.exists()


def test_an_old_pickle_mccfr_policy_is_refused_through_the_spec(tmp_path):
    pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'euchre-env[openspiel]')")
    from euchre_env.agents.registry import build_for_rules, make_agent

    marker = tmp_path / "made"
    spec = f"openspiel:mccfr:{_old_mccfr_pickle(tmp_path, marker)}"
    with pytest.raises(ValueError) as err:
        make_agent(spec)
    _one_line(err, "is a pickle", "regenerate it with")
    with pytest.raises(ValueError) as err:
        build_for_rules(spec, KNOCK)
    _one_line(err, f"agent spec {spec!r}", "is a pickle", "regenerate it with")
    assert not marker.exists()


def test_an_mccfr_policy_with_an_object_array_is_refused(tmp_path):
    marker = tmp_path / "made"
    path = tmp_path / "policy.npz"
    meta = {"format": "euchre-env-mccfr-policy", "version": 1, "rules": KNOCK.to_dict(), "states": 1}
    np.savez(path, meta=np.array(json.dumps(meta)), keys=np.array([_evil(marker)], dtype=object),
             key_ends=np.array([1]), probs=np.array([1.0]), prob_ends=np.array([1]))
    with pytest.raises(MCCFRPolicyError) as err:
        load_mccfr_policy(str(path))
    _one_line(err, "holds a pickled object array", "nothing was run", "an .npz of plain arrays")
    assert not marker.exists()


@pytest.mark.parametrize(("content", "words"), [
    (b"", "is not an MCCFR policy file (not an .npz archive)"),
    (pickle.dumps({"policy": {}}, protocol=0), "is not an MCCFR policy file (not an .npz archive)"),
    ({"meta": np.array("[]")}, "no format tag 'euchre-env-mccfr-policy'"),
    ({"meta": np.array(json.dumps({"format": "euchre-env-mccfr-policy", "version": 9}))}, "policy version 9"),
    ({"meta": np.array(json.dumps({"format": "euchre-env-mccfr-policy", "version": 1, "states": 1,
                                   "rules": KNOCK.to_dict()})),
      "keys": np.frombuffer(b"ab", np.uint8), "key_ends": np.array([5]), "probs": np.array([1.0]),
      "prob_ends": np.array([1])}, "'key_ends' does not index the arrays"),
    ({"meta": np.array(json.dumps({"format": "euchre-env-mccfr-policy", "version": 1, "states": 1,
                                   "rules": KNOCK.to_dict()})),
      "keys": np.frombuffer(b"ab", np.uint8), "key_ends": np.array([2]), "probs": np.array([-1.0]),
      "prob_ends": np.array([1])}, "negative or not finite"),
])
def test_a_bad_mccfr_policy_file_is_one_line(tmp_path, content, words):
    path = tmp_path / "policy.npz"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        np.savez(path, **content)
    with pytest.raises(MCCFRPolicyError) as err:
        load_mccfr_policy(str(path))
    _one_line(err, repr(str(path)), words, "regenerate it with")


# ------------------------------------------------------------------ checkpoints (.pt, search:PATH.pt)
def test_a_checkpoint_that_would_run_code_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    from euchre_env.agents.neural.checkpoint import CheckpointError, load_checkpoint
    from euchre_env.agents.registry import make_agent

    marker = tmp_path / "made"
    path = tmp_path / "evil.pt"
    torch.save({"format": "euchre-env-checkpoint", "version": 2, "actor": _evil(marker)}, path)
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(path)
    _one_line(err, "refers to code", "refused, nothing was run")
    for spec in (str(path), f"search:{path}"):
        with pytest.raises(ValueError) as err:
            make_agent(spec)
        _one_line(err, "refers to code")
    assert not marker.exists()


def test_a_bare_pickle_named_pt_is_refused_unread(tmp_path):
    pytest.importorskip("torch")
    from euchre_env.agents.neural.checkpoint import CheckpointError, load_checkpoint

    marker = tmp_path / "made"
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"format": "euchre-env-checkpoint", "actor": _evil(marker)}))
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(path)
    _one_line(err, "not a PyTorch file")
    assert not marker.exists()


# ------------------------------------------------------------------ CFR tables (cfr:PATH.npz)
def test_cfr_tables_with_an_object_array_are_refused(tmp_path):
    from euchre_env.agents.registry import make_agent

    marker = tmp_path / "made"
    path = tmp_path / "tables.npz"
    np.savez(path, meta=np.array([_evil(marker)], dtype=object), regret=np.zeros(2), strategy=np.zeros(2))
    with pytest.raises(ValueError) as err:
        Tables.load(str(path))
    _one_line(err, "holds a pickled object array", "nothing was run", "euchre cfr --out")
    with pytest.raises(ValueError) as err:
        make_agent(f"cfr:{path}")
    _one_line(err, "holds a pickled object array")
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["pickle", "npy"])
def test_cfr_tables_that_are_not_an_archive_are_refused_unread(tmp_path, kind):
    """np.load would read a lone .npy as an array, and a pickle (were it allowed): neither gets that far."""
    marker = tmp_path / "made"
    path = tmp_path / "tables.npz"
    if kind == "pickle":
        path.write_bytes(pickle.dumps({"meta": _evil(marker)}))
    else:
        with open(path, "wb") as f:
            np.save(f, np.zeros(3))
    with pytest.raises(ValueError) as err:
        Tables.load(str(path))
    _one_line(err, "is not a readable CFR tables file (not an .npz archive)", "euchre cfr --out")
    assert not marker.exists()


# ------------------------------------------------------------------ the training config (YAML)
def test_a_config_with_a_python_tag_is_refused(tmp_path):
    pytest.importorskip("yaml")
    pytest.importorskip("torch")
    from euchre_env.training.config import load_config

    marker = tmp_path / "made"
    path = tmp_path / "config.yaml"
    path.write_text(f"run:\n  seed: !!python/object/apply:os.mkdir [{marker}]\n")
    with pytest.raises(ValueError) as err:
        load_config(str(path))
    _one_line(err, "line 2", "the YAML tag '!!python/object/apply:os.mkdir' asks for a Python object",
              "nothing was run")
    with pytest.raises(ValueError) as err:
        load_config(None, [f"run.seed=!!python/object/apply:os.mkdir [{marker}]"])
    _one_line(err, "--set", "asks for a Python object")
    assert not marker.exists()


# ------------------------------------------------------------------ euchre merge (eval.json)
def test_merge_refuses_a_pickle_given_as_eval_results(tmp_path, capsys):
    from euchre_env.cli.main import main

    marker = tmp_path / "made"
    path = tmp_path / "eval.json"
    path.write_bytes(pickle.dumps({"deals": _evil(marker)}))
    with pytest.raises(SystemExit):
        main(["merge", str(path), str(path)])
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "cannot read eval results" in err and "expected the eval.json (JSON)" in err, err
    assert not marker.exists()


# ------------------------------------------------------------------ euchre serve (request bodies)
def test_the_web_api_refuses_a_pickled_body(tmp_path):
    pytest.importorskip("flask")
    from euchre_env.play.web import create_app

    marker = tmp_path / "made"
    client = create_app(KNOCK, seed=1).test_client()
    response = client.post("/api/games", data=pickle.dumps({"x": _evil(marker)}), content_type="application/json")
    error = response.get_json()["error"]
    assert response.status_code == 400 and "not valid JSON" in error and "\n" not in error
    assert not marker.exists()
