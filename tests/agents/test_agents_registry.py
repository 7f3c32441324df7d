"""Agent specs: check_spec validates without building, make_agent builds, and each error is one complete line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from euchre_env.agents.random_agent import RandomAgent
from euchre_env.agents.registry import agent_names, check_spec, make_agent, sees_hidden_cards
from euchre_env.agents.rule_based.agent import RuleBasedAgent
from euchre_env.agents.search.pimc import PIMCAgent
from euchre_env.envs.agent_specs import UnknownAgentSpec

BAD = [
    ("pimc:0", ValueError, "agent spec 'pimc:0': worlds must be at least 1, got 0"),
    ("pimc:-3", ValueError, "agent spec 'pimc:-3': worlds must be at least 1, got -3"),
    ("pimc:1000000000", ValueError, "agent spec 'pimc:1000000000': worlds must be at most 100,000, got 1,000,000,000"),
    ("anchored:999999999999:knock.pt", ValueError,
     "agent spec 'anchored:999999999999:knock.pt': worlds must be at most 100,000, got 999,999,999,999"),
    ("calls:100001:knock.pt", ValueError, "agent spec 'calls:100001:knock.pt': worlds must be at most 100,000"),
    ("pimc:many", ValueError, "agent spec 'pimc:many': worlds must be an integer, e.g. 'pimc:50', got 'many'"),
    ("pimc:", ValueError, "agent spec 'pimc:': worlds must be an integer, e.g. 'pimc:50', got ''"),
    ("rules:3", ValueError, "agent spec 'rules:3': 'rules' takes no parameter (write 'rules')"),
    ("random:", ValueError, "agent spec 'random:': 'random' takes no parameter (write 'random')"),
    ("wizard", UnknownAgentSpec, "unknown agent spec 'wizard'; the kinds: random, rules, pimc:N, PATH.pt, "
                                 "search:/anchored:/calls:N:PATH.pt, cfr:PATH.npz, split:A:B, openspiel:KIND:ARG "
                                 "(docs/agents.md lists them)"),
    ("", UnknownAgentSpec, "unknown agent spec ''"),
]


@pytest.mark.parametrize(("spec", "kind", "message"), BAD, ids=[b[0] or "empty" for b in BAD])
def test_a_bad_spec_is_refused_in_one_self_contained_line(spec, kind, message):
    for call in (check_spec, make_agent):
        with pytest.raises(kind) as info:
            call(spec)
        text = str(info.value)
        assert text.startswith(message) and "\n" not in text
        assert text.count("agent spec") == 1  # said once: callers print it as it is


@pytest.mark.parametrize(("spec", "cls", "worlds"), [
    ("random", RandomAgent, None), ("rules", RuleBasedAgent, None), ("pimc", PIMCAgent, 50),
    ("pimc:7", PIMCAgent, 7), ("  pimc:3 ", PIMCAgent, 3),
])
def test_good_specs_pass_the_check_and_build_agents_named_by_the_spec(spec, cls, worlds):
    assert check_spec(spec) is None
    agent = make_agent(spec, seed=4)
    assert type(agent) is cls and agent.name == spec.strip()
    assert getattr(agent, "worlds", None) == worlds
    assert cls.name == spec.strip().partition(":")[0]  # the class default is untouched


def test_constructors_take_the_name():
    assert RandomAgent(name="r").name == "r" and PIMCAgent(name="p", worlds=2).name == "p"
    assert RandomAgent().name == "random" and PIMCAgent(worlds=2).name == "pimc"


def test_pimc_refuses_a_bad_world_count_directly():
    for worlds in (0, 2.5, "5", True):
        with pytest.raises(ValueError, match=f"PIMCAgent: worlds must be an integer of at least 1, got {worlds!r}"):
            PIMCAgent(worlds=worlds)


def test_a_checkpoint_spec_is_checked_for_the_file_only(tmp_path):
    junk = tmp_path / "junk.pt"
    junk.write_text("not a checkpoint")
    check_spec(str(junk))  # exists: fine for the check; its content is read when the agent is built
    with pytest.raises(ValueError, match=r"^no checkpoint file at 'nowhere/missing\.pt'; the package's checkpoints by "
                                         r"name: bid\.pt, .*knock\.pt"):
        check_spec("nowhere/missing.pt")
    folder = tmp_path / "folder.pt"
    folder.mkdir()
    with pytest.raises(ValueError, match="is a directory, not a checkpoint file"):
        check_spec(str(folder))


def test_agent_names_list_the_cheating_agent_apart():
    assert agent_names() == ["pimc", "random", "rules", "omniscient"]  # the players, then what sees hidden cards
    assert [sees_hidden_cards(s) for s in ("omniscient", "split:omniscient:rules", "split:rules:omniscient",
                                           "rules", "pimc:50", "knock.pt")] == [True, True, True, False, False, False]


def test_specs_and_the_package_need_no_torch(tmp_path):
    """Only a checkpoint agent needs torch: the package, check_spec and the other agents work without it."""
    junk = tmp_path / "junk.pt"
    junk.write_text("x")
    code = (
        "import sys; sys.modules['torch'] = None\n"  # any import of torch now fails
        "import euchre_env.agents\n"
        "from euchre_env.agents.registry import check_spec, make_agent\n"
        f"check_spec({str(junk)!r}); check_spec('pimc:2')\n"
        "print(make_agent('pimc:2').name, make_agent('rules').name, make_agent('random').name)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["pimc:2", "rules", "random"]
