"""Checkpoint files: what is written loads back; a damaged or foreign file fails in one short CheckpointError line."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

from euchre_env.agents.neural.checkpoint import (  # noqa: E402
    CheckpointError,
    build_model,
    load_checkpoint,
    model_payload,
    save_checkpoint,
)
from euchre_env.agents.neural.network import ActorCritic, PolicyNet, ValueNet  # noqa: E402
from euchre_env.game.actions import action_table  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.views.observation import Observer  # noqa: E402
from euchre_env.views.structured import StructuredObserver  # noqa: E402

KNOCK = Rules.preset("knock")
PUBLISHED = os.path.join(os.path.dirname(__file__), "..", "..", "checkpoints")


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> str:
    """A small checkpoint of the knock rules, as the trainer writes them."""
    torch.manual_seed(0)
    actor = PolicyNet(Observer(KNOCK).size, len(action_table(KNOCK)), [8])
    path = str(tmp_path_factory.mktemp("ckpt") / "good.pt")
    save_checkpoint(model_payload(actor, KNOCK), path)
    return path


def _logits(model, size: int, seed: int = 0) -> torch.Tensor:
    """The network's logits on a batch of random inputs (everything legal)."""
    obs = torch.rand(6, size, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        return model.masked_logits(obs, torch.ones(6, model.num_actions, dtype=torch.bool))


def refused(path, match: str, rules: Rules | None = None) -> str:
    """Load ``path``, expecting one short CheckpointError line that contains ``match``."""
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path, rules)
    message = str(info.value)
    assert match in message, message
    assert "\n" not in message and len(message) <= 200 + len(str(path)), message
    # no torch error chained on: the traceback, if printed, ends with this one line
    assert info.value.__cause__ is None and (info.value.__context__ is None or info.value.__suppress_context__)
    return message


def test_a_written_checkpoint_loads_back_and_builds(good):
    data = load_checkpoint(good, KNOCK)
    assert data["rules"] == KNOCK and data["hidden"] == [8]
    assert data["version"] == 2 and data["observation"] == "absolute"
    model = build_model(data, good)
    assert not model.training and model.obs_size == Observer(KNOCK).size


@pytest.mark.parametrize("name", ["knock_ppo.pt", "bid_ppo.pt"])
def test_the_published_checkpoints_still_load(name):
    """Version 1: the absolute observation; the actor alone, with the old ActorCritic actor's logits."""
    path = os.path.join(PUBLISHED, name)
    data = load_checkpoint(path)
    assert data["version"] == 1 and data["observation"] == "absolute"
    actor = build_model(data, path)
    assert isinstance(actor, PolicyNet) and not any(isinstance(m, ValueNet) for m in actor.modules())
    assert actor.obs_size == Observer(data["rules"]).size
    old = ActorCritic(actor.obs_size, actor.num_actions, data["hidden"])
    old.load_state_dict(data["model"])  # critic and all, as version 1 played it
    assert torch.equal(_logits(actor, actor.obs_size), _logits(old, actor.obs_size))


@pytest.mark.parametrize("observation", ["absolute", "structured"])
def test_version_2_round_trip(tmp_path, observation):
    """The actor comes back with its weights and observation kind; a trainer's extra keys are kept."""
    rules = Rules.preset("classic", joker=True)
    size = Observer(rules).size if observation == "absolute" else StructuredObserver(rules).size
    torch.manual_seed(4)
    actor = PolicyNet(size, len(action_table(rules)), [16, 8])
    payload = model_payload(actor, rules, observation)
    payload.update(critic=ValueNet(size + 3, [4]).state_dict(), counters={"update": 7})  # the trainer's own keys
    path = str(tmp_path / "v2.pt")
    save_checkpoint(payload, path)
    data = load_checkpoint(path, rules)
    assert data["version"] == 2 and data["observation"] == observation and data["counters"] == {"update": 7}
    assert set(data["actor"]) == set(actor.state_dict())  # the actor alone: no critic in the play payload
    back = build_model(data, path)
    assert isinstance(back, PolicyNet) and back.hidden == [16, 8]
    assert torch.equal(_logits(back, size), _logits(actor, size))


def test_model_payload_refuses_an_unknown_observation_or_a_wrong_size():
    actor = PolicyNet(Observer(KNOCK).size, len(action_table(KNOCK)), [4])
    with pytest.raises(ValueError, match=r"the actor takes \d+ inputs, the structured observation of these rules"):
        model_payload(actor, KNOCK, "structured")
    with pytest.raises(ValueError, match="observation"):
        model_payload(actor, KNOCK, "pixels")


def test_an_observation_that_does_not_match_its_fingerprint(good, tmp_path):
    """An absolute file relabelled structured (or the reverse): the layouts differ, so it is refused."""
    message = refused(_tampered(good, tmp_path, observation="structured"), "another observation layout or action")
    assert "this code's structured one is" in message
    size = StructuredObserver(KNOCK).size
    structured = model_payload(PolicyNet(size, len(action_table(KNOCK)), [4]), KNOCK, "structured")
    path = str(tmp_path / "structured.pt")
    torch.save(dict(structured, observation="absolute"), path)
    refused(path, "was written for another observation layout or action table")


def test_an_unknown_observation_kind(good, tmp_path):
    refused(_tampered(good, tmp_path, observation="pixels"),
            "was trained on an unknown observation 'pixels'; this code knows 'absolute', 'structured'")


def test_a_text_file_renamed_pt(tmp_path):
    path = tmp_path / "notes.pt"
    path.write_text("hello, these are my notes\n")
    refused(path, f"{str(path)!r} is not a readable checkpoint: not a PyTorch file (truncated or damaged?)")


@pytest.mark.parametrize("fraction", [0.0001, 0.01, 0.5, 0.99, -1])
def test_a_truncated_file(good, tmp_path, fraction):
    with open(good, "rb") as f:
        data = f.read()
    cut = len(data) - 1 if fraction == -1 else max(1, int(len(data) * fraction))
    path = tmp_path / f"cut{cut}.pt"
    path.write_bytes(data[:cut])
    refused(path, "not a readable checkpoint: not a PyTorch file (truncated or damaged?)")


def test_an_empty_file(tmp_path):
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    refused(path, "not a PyTorch file")


def test_a_zip_that_is_not_a_torch_file(tmp_path):
    import zipfile

    path = tmp_path / "archive.pt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "not a model")
    refused(path, "not a PyTorch file")


def test_a_torch_file_of_a_foreign_dict(tmp_path):
    path = tmp_path / "foreign.pt"
    torch.save({"state_dict": {"w": torch.zeros(2)}}, path)
    refused(path, "is not a euchre-env checkpoint (no format tag 'euchre-env-checkpoint')")
    torch.save(torch.zeros(3), path)  # not even a dict
    refused(path, "is not a euchre-env checkpoint")


def test_a_torch_file_holding_objects(tmp_path):
    path = tmp_path / "code.pt"
    torch.save({"format": "euchre-env-checkpoint", "payload": KNOCK}, path)  # a pickled object
    refused(path, f"{str(path)!r} is a file holding more than plain data: it refers to code (the global "
                  "'euchre_env.game.rules.Rules'), which a checkpoint never holds; refused, nothing was run")


class _Calls:
    """Pickles as a call of ``function(*args)``: what a malicious checkpoint holds, run by an unsafe load."""

    def __init__(self, function, *args) -> None:
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


@pytest.mark.parametrize("blocked", [True, False])
def test_a_checkpoint_that_would_run_code_is_refused_before_running_it(tmp_path, blocked):
    """torch words the two refusals differently: a global of a module it never allows (os: "whose module posix
    is blocked", torch 2.13) and any other global ("was not an allowed global"). Both are named as code; the
    call in the file never happens, and the words are not those of a damaged file."""
    import io

    made = tmp_path / "made_by_the_file"
    # os.mkdir pickles as posix.mkdir (nt.mkdir on Windows); io.open as _io.open, opening the file to write
    call = _Calls(os.mkdir, str(made)) if blocked else _Calls(io.open, str(made), "w")
    name = f"{call.function.__module__}.{call.function.__name__}"
    path = tmp_path / "evil.pt"
    torch.save({"format": "euchre-env-checkpoint", "version": 2, "actor": call}, path)
    message = refused(path, f"{str(path)!r} is a file holding more than plain data: it refers to code (the global "
                            f"{name!r}), which a checkpoint never holds; refused, nothing was run")
    assert "damaged" not in message
    assert not made.exists()


def test_a_pickle_protocol_torch_refuses_is_named(tmp_path):
    """Protocol 4 opens with an instruction (FRAME, opcode 149) that the weights-only reader refuses."""
    path = tmp_path / "protocol4.pt"
    torch.save({"format": "euchre-env-checkpoint"}, path, pickle_protocol=4)
    message = refused(path, f"{str(path)!r} is not a readable checkpoint: its pickle has an instruction that "
                            "torch.load(weights_only=True) refuses (opcode 149: damaged, or saved with a pickle "
                            "protocol above 2); nothing was run")
    assert "not a PyTorch file" not in message


def _tampered(good: str, tmp_path, **changes) -> str:
    payload = torch.load(good, weights_only=True)
    payload.update(changes)
    path = str(tmp_path / "tampered.pt")
    torch.save(payload, path)
    return path


def test_a_tampered_fingerprint(good, tmp_path):
    message = refused(_tampered(good, tmp_path, fingerprint="0" * 16), "another observation layout or action table")
    assert "fingerprint 0000000000000000" in message


def test_other_version_invalid_rules_and_missing_keys(good, tmp_path):
    refused(_tampered(good, tmp_path, version=99), "has checkpoint version 99; this code reads 1 and 2")
    refused(_tampered(good, tmp_path, rules={"colour": "red"}), "holds invalid rules: unknown rules field(s)")
    payload = torch.load(good, weights_only=True)
    del payload["hidden"]
    path = tmp_path / "short.pt"
    torch.save(payload, path)
    refused(path, "is missing 'hidden'")
    refused(_tampered(good, tmp_path, version=1), "is missing 'model'")  # version 1 keeps its weights there
    payload = torch.load(good, weights_only=True)
    del payload["observation"]
    torch.save(payload, path)
    refused(path, "is missing 'observation'")


def _unfit(path: str) -> str:
    with pytest.raises(CheckpointError) as info:
        build_model(load_checkpoint(path), path)
    message = str(info.value)
    assert "\n" not in message and len(message) <= 200 + len(path)
    return message


def test_weights_that_do_not_fit_the_network(good, tmp_path):
    message = _unfit(_tampered(good, tmp_path, hidden=[9]))
    assert "the weights do not fit the network it describes (0.bias: (8,) in the file, (9,) in the network)" \
        in message


def test_a_huge_network_is_refused_before_it_is_built(good, tmp_path, monkeypatch):
    # The probe's crafted file: small weights, a network of 60,000 x 60,000 declared. Nothing may be allocated.
    built = []
    monkeypatch.setattr(PolicyNet, "__init__", lambda self, *a, **k: built.append(a))
    message = _unfit(_tampered(good, tmp_path, hidden=[60000, 60000]))
    assert "hidden [60000, 60000]: 1 to 8 widths of 1 to 2048 each" in message
    monkeypatch.undo()
    payload = torch.load(good, weights_only=True)
    payload["hidden"] = [2048, 2048]  # allowed widths, but not the widths its weights have
    message = _unfit(_tampered(good, tmp_path, **payload))
    assert "(0.bias: (8,) in the file, (2048,) in the network)" in message
    assert built == []


@pytest.mark.parametrize("key", ["obs_size", "num_actions"])
def test_sizes_that_are_not_the_rules_sizes(good, tmp_path, key):
    payload = torch.load(good, weights_only=True)
    refused(_tampered(good, tmp_path, **{key: payload[key] + 1}), f"has {key} {payload[key] + 1}; its rules and ")
    refused(_tampered(good, tmp_path, **{key: torch.ones(3)}), f"has {key} tensor([1., 1., 1.]); its rules and ")


def test_a_checkpoint_for_other_rules(good):
    refused(good, "was trained for other rules: ", Rules.preset("bid"))


def test_a_missing_file_and_a_directory(tmp_path):
    refused(tmp_path / "missing.pt", f"no checkpoint file at {str(tmp_path / 'missing.pt')!r}")
    folder = tmp_path / "folder.pt"
    folder.mkdir()
    refused(folder, f"{str(folder)!r} is a directory, not a checkpoint file")


def test_an_interrupted_save_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "latest.pt"

    def fails(obj, f):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", fails)
    with pytest.raises(OSError):
        save_checkpoint({"format": "x"}, str(path))
    assert os.listdir(tmp_path) == []


def test_an_os_error_while_reading_is_one_line(good, monkeypatch):
    """torch's reader can fail on a damaged file with OSError [Errno 22] (a resumed run met it)."""

    def invalid(*args, **kwargs):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(torch, "load", invalid)
    refused(good, "not a readable checkpoint: not a PyTorch file (truncated or damaged?)")
