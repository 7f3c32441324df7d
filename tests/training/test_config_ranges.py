"""The trainer's config as input: every numeric key has a documented range, and bad input (a value outside it,
a file that is no mapping, a YAML tag, a malformed --set) is one line that names it, with nothing run."""

from __future__ import annotations

import os
import re
from dataclasses import fields, is_dataclass

import pytest

pytest.importorskip("torch", reason="the trainer's config needs the train extra (torch)")

from euchre_env.training import device as device_module
from euchre_env.training.config import RANGES, TrainConfig, load_config
from euchre_env.training.device import threads_here

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "training.md")


def _numeric(value) -> bool:
    """A number, or a non-empty list or mapping of numbers (not a bool: those are switches)."""
    if isinstance(value, (list, dict)):
        items = list(value.values()) if isinstance(value, dict) else value
        return bool(items) and all(_numeric(v) for v in items)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def test_every_numeric_key_has_a_range_and_every_range_a_key():
    config = TrainConfig()
    numeric = {f"{section.name}.{key.name}" for section in fields(config) if is_dataclass(getattr(config, section.name))
               for key in fields(getattr(config, section.name))
               if _numeric(getattr(getattr(config, section.name), key.name))}
    assert numeric == set(RANGES)


def _value(name: str, number: str) -> str:
    """``--set`` text putting ``number`` (YAML) where the range of ``name`` applies."""
    if name == "model.hidden":
        return f"[{number}]"
    if name == "league.mix":
        return f"{{self: 1, random: {number}}}"  # the weights must still sum above 0
    if name == "final_eval.opponents":
        return f"{{random: {number}}}"
    return number


def _yaml(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else repr(number)


@pytest.mark.parametrize("name", list(RANGES))
def test_each_range_admits_its_ends_and_refuses_what_lies_beyond(name):
    allowed = RANGES[name]
    step = 1 if allowed.integer else 0.001
    ends = [end for end in (None if allowed.above else allowed.low, allowed.high) if end is not None]
    for end in ends:
        load_config(None, [f"{name}={_value(name, _yaml(end))}"])
    beyond = [_yaml(allowed.low if allowed.above else allowed.low - step)]
    beyond += [] if allowed.high is None else [_yaml(allowed.high + step)]
    beyond += [] if allowed.integer else [".nan", ".inf"]
    for text in beyond:
        with pytest.raises(ValueError) as info:
            load_config(None, [f"{name}={_value(name, text)}"])
        message = str(info.value)
        assert message.startswith(f"config {name}") and f" must be {allowed}, got " in message, message
        assert "\n" not in message


@pytest.mark.parametrize("item, message", [
    ("run.max_minutes=-5", "config run.max_minutes must be a number from 0 (no limit) to 1000000, got -5.0"),
    ("ppo.num_games=1000000000000", "config ppo.num_games must be an integer from 1 to 8192, got 1000000000000"),
    ("ppo.lr=0", "config ppo.lr must be a number above 0 and at most 1, got 0.0"),
    ("ppo.lr=1e400", "config ppo.lr must be a number above 0 and at most 1, got inf"),
    ("ppo.lr=" + "9" * 400, "config ppo.lr must be a number above 0 and at most 1, got 9999999999999999999999999999"
                            "...99999999999999999999999999999"),
    ("run.seed=-1", "config run.seed must be an integer from 0 to 4294967295, got -1"),
    ("run.torch_threads=0", "config run.torch_threads must be an integer of at least 1, got 0"),
    ("model.hidden=[64, true]", "config model.hidden[1] must be an integer from 1 to 2048, got True"),
    ("model.hidden=[]", "config model.hidden must list 1 to 8 layer widths, got []"),
    ("final_eval.opponents={random: many}",
     "config final_eval.opponents['random'] must be an integer from 1 to 1000000, got 'many'"),
    ("league.mix={self: 0}", "config league.mix needs an opponent of weight above 0, got {'self': 0}"),
    ("eval.opponents=[]", "config eval.opponents is empty: periodic evaluations need an opponent (eval.every: 0 "
                          "turns them off)"),
    ("rules.options={1: 2}", "unknown rules option 1; allowed: deck, joker,"),
    ("ppo.epochs=many", "config ppo.epochs must be of type int, got 'many'"),
])
def test_a_bad_value_is_one_line_naming_key_range_and_value(item, message):
    with pytest.raises(ValueError) as info:
        load_config(None, [item])
    assert str(info.value).startswith(message) and "\n" not in str(info.value), str(info.value)


def test_the_docs_list_every_range():
    with open(DOCS) as f:
        text = f.read()
    section = text.split("\n## Config ranges\n")[1].split("\n## ")[0]
    rows = dict(re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \| ([^|]+?) \|", section, re.M))
    assert rows == {name: str(allowed) for name, allowed in RANGES.items()}


def test_torch_threads_are_capped_at_the_cores_this_process_may_use(monkeypatch):
    monkeypatch.setattr(device_module, "usable_cores", lambda: 4)
    assert threads_here(4) == (4, "")
    assert threads_here(100000) == (4, "warning: run.torch_threads 100000 is more than the 4 cores this process "
                                       "may use: using 4")


# ------------------------------------------------------------------ files and --set items that are not plain data
def test_a_yaml_tag_is_refused_and_nothing_runs(tmp_path):
    made = tmp_path / "made_by_the_tag"
    item = f"ppo.lr=!!python/object/apply:os.mkdir [{made}]"
    with pytest.raises(ValueError) as info:
        load_config(None, [item])
    assert str(info.value) == (f"--set {item!r}: the YAML tag '!!python/object/apply:os.mkdir' asks for a Python "
                               "object; a config holds plain values (numbers, strings, lists, mappings): refused, "
                               "nothing was run")
    path = tmp_path / "tagged.yaml"
    path.write_text(f"run:\n  seed: 3\nppo:\n  lr: !!python/object/apply:os.mkdir [{made}]\n")
    with pytest.raises(ValueError) as info:
        load_config(str(path))
    assert str(info.value) == (f"config {str(path)!r}: line 4: the YAML tag '!!python/object/apply:os.mkdir' asks "
                               "for a Python object; a config holds plain values (numbers, strings, lists, "
                               "mappings): refused, nothing was run")
    assert not made.exists()


@pytest.mark.parametrize("text, got", [("- ppo\n- run\n", "the list ['ppo', 'run']"),
                                       ("just words\n", "the str 'just words'"), ("42\n", "the int 42")])
def test_a_config_file_that_is_no_mapping_is_one_line_even_with_overrides(tmp_path, text, got):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        load_config(str(path), ["ppo.lr=1e-3"])  # the overrides are set into the file's mapping: it must be one
    assert str(info.value) == (f"config {str(path)!r} must be a mapping of sections (run, rules, model, ppo, "
                               f"pretrain, league, eval, final_eval, ray, expert), got {got}")


def test_a_malformed_set_item_and_invalid_yaml_are_one_line(tmp_path):
    for item in ("ppo.lr", "=3", " =3"):
        with pytest.raises(ValueError, match=re.escape(f"--set expects section.key=value, got {item!r}")):
            load_config(None, [item])
    with pytest.raises(ValueError) as info:
        load_config(None, ["ppo.lr=["])
    assert str(info.value) == "--set 'ppo.lr=[': not valid YAML: expected the node content, but found '<stream end>'"
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\x80\x81\x00\x01")
    with pytest.raises(ValueError, match=re.escape(f"config {str(binary)!r}: not valid YAML: unacceptable character")):
        load_config(str(binary))
    with pytest.raises(ValueError, match=re.escape(f"cannot read config {str(tmp_path)!r}: ")):
        load_config(str(tmp_path))
