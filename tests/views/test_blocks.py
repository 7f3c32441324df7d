"""The observations' block declarations (euchre_env/views/blocks.py): every released layout stays as released, a new
block is a new version that old checkpoints do not see, and the envs' version moves with the default observations."""

from __future__ import annotations

import hashlib
import json

import pytest

import euchre_env
from euchre_env.game.rules import Rules
from euchre_env.views import blocks, structured
from euchre_env.views.blocks import ENV_VERSION, VERSIONS, Block
from euchre_env.views.observation import Observer
from euchre_env.views.structured import StructuredObserver, make_observer

# Every released (kind, version): a hash of its layout and bounds under each rule set that changes the layout. A new
# block, a changed size or bound must come as a new version (Block.since), never as a change of these.
RULE_SETS = {"knock": {}, "multiplayer": {}, "bid": {}, "knock+joker": {"joker": True},
             "classic+deck32+rubber": {"deck": 32, "rubber": True}, "bid+joker": {"joker": True},
             "bid+double_deck": {"double_deck": True}}
RELEASED = {
    ("absolute", 1): {"knock": "6145c5a0d863", "multiplayer": "0f9c9c2b30bd", "bid": "94f5ae35756c",
                      "knock+joker": "f87d1075617f", "classic+deck32+rubber": "4840cc264c5e",
                      "bid+joker": "fe3f2c0d53d7", "bid+double_deck": "cf18ab12e566"},
    ("structured", 1): {"knock": "02240afbb1f3", "multiplayer": "3bed58b187fc", "bid": "407f5ae86b64",
                        "knock+joker": "816a5fe4a204", "classic+deck32+rubber": "53d1af2f42f5",
                        "bid+joker": "a10be8ece81d", "bid+double_deck": "3eb3f076f14b"},
}
# The envs' version for each set of default observation versions it has given.
ENV_VERSIONS = {0: {"absolute": 1, "structured": 1}}


def _rules(name: str) -> Rules:
    return Rules.preset(name.split("+")[0], **RULE_SETS[name])


def _digest(observer: Observer | StructuredObserver) -> str:
    data = [observer.layout, observer.low.tolist(), observer.high.tolist()]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:12]


@pytest.mark.parametrize(("kind", "version"), list(RELEASED))
def test_every_released_layout_stays_as_released(kind: str, version: int) -> None:
    for name, digest in RELEASED[kind, version].items():
        assert _digest(make_observer(_rules(name), kind, version)) == digest, (
            f"the {kind} observation's version {version} changed under {name}: declare the change as a new block "
            "(Block.since) of a new version in euchre_env/views/blocks.py, and bump ENV_VERSION")


def test_the_envs_version_names_the_default_observations() -> None:
    assert set(RELEASED) >= {(kind, v) for kind, v in VERSIONS.items()}, "record the new version's layouts above"
    assert ENV_VERSIONS[ENV_VERSION] == VERSIONS, "a new default observation version bumps blocks.ENV_VERSION"
    assert euchre_env.env().metadata["name"] == f"euchre_v{ENV_VERSION}"


def test_a_block_declares_its_units_and_the_layout_follows() -> None:
    observer = StructuredObserver(Rules.preset("knock"))
    assert list(observer.units) == list(observer.layout)
    call1, call2 = observer.layout["call1"], observer.layout["call2"]
    assert call2 == (call1[0] + call1[1], 4 * 9)  # a row a seat: pass and the 8 names
    assert observer.layout["voids"][1] == 3 * 4 and observer.layout["tricks"][1] == 5 * (4 + 4 * 24)
    assert "upcard" not in make_observer(Rules.preset("bid"), "absolute").layout


def test_a_new_block_is_a_new_version_and_old_checkpoints_keep_theirs(monkeypatch: pytest.MonkeyPatch, tmp_path,
                                                                      request: pytest.FixtureRequest) -> None:
    torch = pytest.importorskip("torch")
    from euchre_env.agents.neural.agent import NeuralAgent
    from euchre_env.agents.neural.checkpoint import fingerprint, load_checkpoint, model_payload, save_checkpoint
    from euchre_env.agents.neural.network import PolicyNet

    knock = Rules.preset("knock")
    old = Observer(knock)
    torch.manual_seed(0)
    path = str(tmp_path / "v1.pt")
    save_checkpoint(model_payload(PolicyNet(old.size, 59, [8]), knock), path)
    v1_fingerprint = fingerprint(knock)
    # Version 2 of the absolute observation: one block more (a test's, "bid_level").
    monkeypatch.setitem(blocks.KINDS, "absolute", (*blocks.ABSOLUTE, Block("bid_level", lambda r: [3], since=2)))
    monkeypatch.setitem(blocks.VERSIONS, "absolute", 2)
    for cache in (fingerprint, structured._observer):  # (cleared after monkeypatch's undo: no version-2 entry stays)
        cache.cache_clear()
        request.addfinalizer(cache.cache_clear)
    new = Observer(knock)
    assert new.version == 2 and new.size == old.size + 3 and "bid_level" not in Observer(knock, 1).layout
    data = load_checkpoint(path)  # its version, 1, is still declared: it loads, with its fingerprint
    assert data["observation_version"] == 1 and data["fingerprint"] == v1_fingerprint
    assert fingerprint(knock, "absolute", 2) != v1_fingerprint
    agent = NeuralAgent(path)
    assert agent.observer.version == 1 and agent.observer.size == old.size
    with pytest.raises(ValueError, match=r"the absolute observation has versions 1 to 2, got 3"):
        Observer(knock, 3)


def test_a_checkpoint_of_a_version_this_code_does_not_declare_is_one_line(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    from euchre_env.agents.neural.checkpoint import CheckpointError, load_checkpoint, model_payload

    knock = Rules.preset("knock")
    payload = model_payload(_actor(torch, knock), knock)
    path = tmp_path / "future.pt"
    torch.save({**payload, "observation_version": 7}, path)
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    assert str(info.value) == (f"{str(path)!r}: the absolute observation has versions 1 to 1, got 7 (a newer "
                               "euchre-env wrote it)")


def _actor(torch, rules: Rules):
    from euchre_env.agents.neural.network import PolicyNet

    torch.manual_seed(0)
    return PolicyNet(Observer(rules).size, 59, [8])

