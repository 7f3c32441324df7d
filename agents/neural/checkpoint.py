"""Checkpoints: plain data only, written atomically, checked when read.

A checkpoint is a ``torch.save`` of a dict holding nothing but tensors, numbers, strings,
lists and dicts, so that ``torch.load(weights_only=True)`` can read it: a file from a
stranger cannot run code. It names its format and version, the rules as plain data, the
observation it was trained on and a fingerprint of that observation's layout and the action
table; a loader refuses a file whose rules or fingerprint do not match what it is asked to
play, with a message that says so.

Version 2 (written now): ``"observation"`` (``"absolute"`` or ``"structured"``), ``"observation_version"`` (the
version of that observation's blocks, :mod:`euchre_env.views.blocks`; 1 where absent: a file written before
versions were recorded) and
``"actor"``, the state dict of the :class:`PolicyNet` alone: a checkpoint's player holds no
critic, whose inputs it could not see at play time. Version 1 (the published checkpoints):
no ``"observation"`` (it was the absolute one) and ``"model"``, an :class:`ActorCritic`'s state
dict, of which :func:`build_model` takes the ``actor.*`` weights. A trainer adds keys of its
own (optimizer, critic, counters) to the payload it saves; the loader keeps them.

Writes go to a temporary file in the same folder that is then renamed over the target
(``os.replace`` is atomic), so a run killed at any moment leaves either the previous
complete checkpoint or the new one, never a torn file.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import warnings
import zipfile
from functools import lru_cache
from typing import Any

import torch

from euchre_env.agents.neural.belief import BeliefHead
from euchre_env.agents.neural.limits import MAX_LAYERS, MAX_WIDTH
from euchre_env.agents.neural.network import PolicyNet
from euchre_env.game.actions import action_table
from euchre_env.game.rules import Rules
from euchre_env.game.seats import CARD_PLACES
from euchre_env.views.blocks import check_version
from euchre_env.views.structured import OBSERVATIONS, make_observer

FORMAT = "euchre-env-checkpoint"
VERSION = 2
READS = (1, 2)  # the versions load_checkpoint reads


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, damaged, foreign, or for other rules (one line)."""


@lru_cache(maxsize=64)  # a structured observer takes a while to build, and a trainer saves often
def fingerprint(rules: Rules, observation: str = "absolute", version: int = 1) -> str:
    """A short hash of what a network's inputs (``observation`` of ``version``) and outputs mean under ``rules``."""
    spec: dict[str, Any] = {"layout": make_observer(rules, observation, version).layout,
                            "actions": list(action_table(rules).strings)}
    if observation != "absolute":
        # The structured layout repeats the absolute block names; the kind keeps the two apart. The absolute
        # spec stays as version 1 wrote it, so that those files keep their fingerprints.
        spec["observation"] = observation
    if version > 1:  # the same for the observation's version: version 1's files keep theirs
        spec["observation_version"] = version
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def check_rules(path: str | os.PathLike, trained: Rules, here: Rules) -> None:
    """Raise a CheckpointError naming every option in which ``trained`` and ``here`` differ."""
    want, have = trained.unlabelled(), here.unlabelled()
    if want != have:
        diff = ", ".join(f"{k}={want[k]!r} there, {have[k]!r} here" for k in want if want[k] != have[k])
        raise CheckpointError(f"checkpoint {os.fspath(path)!r} was trained for other rules: {diff}")


def model_payload(actor: PolicyNet, rules: Rules, observation: str = "absolute",
                  belief: BeliefHead | None = None) -> dict[str, Any]:
    """What a player of ``actor`` needs: its weights, shape, rules, observation kind and fingerprint; with
    ``belief``, its belief head's weights under ``"belief"`` (a search's world sampler reads them).

    ValueError in one line for an unknown observation or an actor whose input size is not that
    observation's under ``rules``.
    """
    observer = make_observer(rules, observation)  # the latest version: what a network is trained on now
    size = observer.size
    if actor.obs_size != size:
        raise ValueError(f"model_payload: the actor takes {actor.obs_size} inputs, the {observation} observation "
                         f"of these rules has {size}")
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "observation": observation,
        "observation_version": observer.version,
        # CPU copies whatever device the actor is on: a checkpoint holds no device and loads anywhere
        "actor": {k: v.detach().to("cpu", copy=True) for k, v in actor.state_dict().items()},
        # plain ints: a NumPy integer (a gymnasium space's n) would pickle as code the loader refuses
        "hidden": [int(h) for h in actor.hidden],
        "obs_size": int(actor.obs_size),
        "num_actions": int(actor.num_actions),
        "rules": rules.to_dict(),
        "fingerprint": fingerprint(rules, observation, observer.version),
    }
    if belief is not None:
        payload["belief"] = {k: v.detach().to("cpu", copy=True) for k, v in belief.state_dict().items()}
    return payload


def save_checkpoint(payload: dict[str, Any], path: str) -> None:
    """Write ``payload`` to ``path`` atomically (temporary file, fsync, rename)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _one_line(text: object, limit: int = 120) -> str:
    """The first line of an error text, cut to ``limit`` characters (torch's messages run to paragraphs)."""
    line = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _refused(path: str, error: str) -> str:
    """The line for what ``torch.load(weights_only=True)`` refused in ``path`` (its UnpicklingError says),
    or "" when the error is not a refusal.

    The weights-only unpickler stops at the instruction it refuses, before anything is called. A global (a
    function or class) it names as "GLOBAL eval was not an allowed global", or, in torch 2.13's words for the
    modules it never allows (os, sys), "unsupported GLOBAL posix.system whose module posix is blocked": both
    read "GLOBAL <name>". A pickle protocol above torch's 2 it refuses at its first instruction ("Unsupported
    operand 149"), before any global is read.
    """
    glob = re.search(r"\bGLOBAL (\S+)", error)
    if glob:
        name = _one_line(glob.group(1).rstrip("."), 60)
        return (f"{path!r} is a file holding more than plain data: it refers to code (the global {name!r}), which "
                "a checkpoint never holds; refused, nothing was run")
    opcode = re.search(r"Unsupported operand (\d+)", error)
    if opcode:
        return (f"{path!r} is not a readable checkpoint: its pickle has an instruction that "
                f"torch.load(weights_only=True) refuses (opcode {opcode.group(1)}: damaged, or saved with a pickle "
                "protocol above 2); nothing was run")
    return ""


def _read(path: str) -> Any:
    """``torch.load`` of ``path`` with every way of failing turned into one CheckpointError line."""
    if os.path.isdir(path):
        raise CheckpointError(f"{path!r} is a directory, not a checkpoint file")
    if not os.path.isfile(path):
        raise CheckpointError(f"no checkpoint file at {path!r}")
    damaged = f"{path!r} is not a readable checkpoint: not a PyTorch file (truncated or damaged?)"
    try:
        with open(path, "rb") as f:
            # torch.save writes a zip archive; anything else (text, a truncated file) is refused before
            # torch's readers, which fail on it with KeyError, EOFError or OSError and paragraphs of advice.
            if not zipfile.is_zipfile(f):
                raise CheckpointError(damaged)
            f.seek(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch warns about pickle protocols before failing anyway
                return torch.load(f, map_location="cpu", weights_only=True)
    except CheckpointError:
        raise
    except PermissionError as e:
        raise CheckpointError(f"cannot read checkpoint {path!r}: {e.strerror}") from None
    except pickle.UnpicklingError as e:
        raise CheckpointError(_refused(path, str(e)) or damaged) from None
    except Exception:  # torch's zip and pickle readers raise many kinds for a damaged file; all mean this
        raise CheckpointError(damaged) from None


def load_checkpoint(path: str | os.PathLike, rules: Rules | None = None) -> dict[str, Any]:
    """Read and check a checkpoint; ``rules``, when given, must be the checkpoint's rules.

    Every file that cannot be played (missing, a directory, damaged, foreign, for another code
    version) raises a :class:`CheckpointError` of one short line naming the file and the fault.
    """
    path = os.fspath(path)
    data = _read(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path!r} is not a euchre-env checkpoint (no format tag {FORMAT!r})")
    version = data.get("version")
    if version not in READS:
        raise CheckpointError(f"{path!r} has checkpoint version {_one_line(repr(version), 20)}; this code reads "
                              f"{' and '.join(map(str, READS))}")
    if version == 1:
        data["observation"] = "absolute"  # the only one there was
    weights = "model" if version == 1 else "actor"
    for key in (weights, "observation", "hidden", "obs_size", "num_actions", "rules", "fingerprint"):
        if key not in data:
            raise CheckpointError(f"{path!r} is missing {key!r}")
    observation = data["observation"]
    if observation not in OBSERVATIONS:
        raise CheckpointError(f"{path!r} was trained on an unknown observation {_one_line(repr(observation), 40)}; "
                              f"this code knows {', '.join(map(repr, OBSERVATIONS))}")
    version = data.setdefault("observation_version", 1)
    try:
        check_version(observation, version)
    except ValueError as e:  # a file from a newer euchre-env: its blocks are not declared here
        raise CheckpointError(f"{path!r}: {_one_line(e)} (a newer euchre-env wrote it)") from None
    try:
        saved_rules = Rules.from_dict(data["rules"])
    except (TypeError, ValueError, AttributeError) as e:
        raise CheckpointError(f"{path!r} holds invalid rules: {_one_line(e)}") from None
    expected = fingerprint(saved_rules, observation, version)
    if data["fingerprint"] != expected:
        raise CheckpointError(
            f"{path!r} was written for another observation layout or action table (fingerprint "
            f"{_one_line(data['fingerprint'], 20)}, this code's {observation} one is {expected}): retrain, or use "
            "the euchre-env version that wrote it"
        )
    if rules is not None:
        check_rules(path, saved_rules, rules)
    sizes = {"obs_size": make_observer(saved_rules, observation, version).size,
             "num_actions": len(action_table(saved_rules))}
    for key, size in sizes.items():  # its network's ends are the observation's and the action table's sizes
        if type(data[key]) is not int or data[key] != size:
            raise CheckpointError(f"{path!r} has {key} {_one_line(repr(data[key]), 20)}; its rules and "
                                  f"{observation} observation have {size}")
    data["rules"] = saved_rules
    return data


def build_model(data: dict[str, Any], path: str | os.PathLike | None = None) -> PolicyNet:
    """The actor of a loaded checkpoint (``path``: the file, for messages), weights in, in eval mode: on the CPU,
    with the sparse first layer, however the checkpoint was trained (:meth:`PolicyNet.copy` gives the dense form
    on another device)."""
    where = "checkpoint" if path is None else f"checkpoint {os.fspath(path)!r}"
    try:
        hidden = [int(h) for h in data["hidden"]]
        if data["version"] == 1:  # an ActorCritic's weights: the actor's, the critic's left out
            weights = {k.removeprefix("actor."): v for k, v in data["model"].items() if k.startswith("actor.")}
        else:
            weights = data["actor"]
        _check_shapes(weights, int(data["obs_size"]), int(data["num_actions"]), hidden)
        model = PolicyNet(int(data["obs_size"]), int(data["num_actions"]), hidden)
        model.load_state_dict(weights)
    except (RuntimeError, KeyError, TypeError, ValueError, AttributeError) as e:
        # load_state_dict lists every mismatch on its own line after a header: show the first one
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        detail = _one_line(lines[1] if len(lines) > 1 else e)
        raise CheckpointError(f"{where}: the weights do not fit the network it describes ({detail})") from None
    return model.eval()


def _check_shapes(weights: dict[str, Any], obs_size: int, num_actions: int, hidden: list[int]) -> None:
    """ValueError unless ``weights`` hold exactly the tensors of the network the sizes describe. Checked on
    torch's meta device, which allocates nothing: a crafted file that declares ``hidden: [60000, 60000]`` beside
    small weights is refused here, before the 14 GB network it describes is built."""
    if not 1 <= len(hidden) <= MAX_LAYERS or not all(0 < h <= MAX_WIDTH for h in hidden):
        raise ValueError(f"hidden {_one_line(repr(hidden), 60)}: 1 to {MAX_LAYERS} widths of 1 to {MAX_WIDTH} each")
    with torch.device("meta"):
        want = {k: tuple(v.shape) for k, v in PolicyNet(obs_size, num_actions, hidden).state_dict().items()}
    if not isinstance(weights, dict):
        raise ValueError("its weights are not a mapping of tensors")
    have = {k: tuple(v.shape) if isinstance(v, torch.Tensor) else None for k, v in weights.items()}
    for key in sorted(want.keys() | have.keys()):
        if want.get(key) != have.get(key):
            raise ValueError(f"{key}: {have.get(key) or 'missing'} in the file, {want.get(key) or 'none'} "
                             "in the network")


def build_belief(data: dict[str, Any], path: str | os.PathLike | None = None) -> BeliefHead | None:
    """The belief head a checkpoint read by :func:`load_checkpoint` carries (agents/neural/belief.py), in eval mode;
    None where it has none; a CheckpointError in one line where it does not fit the network and the deck."""
    if "belief" not in data:
        return None
    where = "checkpoint" if path is None else f"checkpoint {os.fspath(path)!r}"
    try:
        hidden, out = data["belief"]["hidden.weight"], data["belief"]["out.weight"]
        features, cards = int(hidden.shape[1]), int(out.shape[0]) // len(CARD_PLACES)
        if features != int(data["hidden"][-1]) or cards != data["rules"].deck_spec.num_ids:  # rules: as loaded
            raise ValueError(f"a head of {features} features and {cards} cards")
        head = BeliefHead(features, cards, int(hidden.shape[0]))
        head.load_state_dict(data["belief"])
    except (RuntimeError, KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise CheckpointError(f"{where}: its belief head does not fit the network ({_one_line(e)})") from None
    return head.eval()
