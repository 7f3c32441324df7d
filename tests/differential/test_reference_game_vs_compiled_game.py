"""The AEC env's two engines, pair by pair: ``ReferenceGame`` (the reference engine behind the compiled game's
interface, euchre_env/envs/game_core.py) against the reference engine's own observers, and against
``CompiledGame`` step by step; and a process where the C core is not built, which plays on the reference engine
(saying so once) the same games as the compiled engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import euchre_env
from euchre_env.compiled import native
from euchre_env.compiled.game import CompiledGame
from euchre_env.envs.game_core import ReferenceGame
from tests.differential.kernels_vs_engine import RULE_SETS, play_env, rules_of

HANDS = 40  # per rule set and observation; the compiled twin's own test plays 150


@pytest.fixture
def reference_engine(monkeypatch):
    monkeypatch.setenv(native.ENGINE_VARIABLE, "reference")


@pytest.mark.parametrize("observation", ["absolute", "structured"])
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_reference_game_equals_the_reference_engine(reference_engine, name, observation):
    episode = "game" if observation == "absolute" else "hand"
    counts = play_env(rules_of(name), observation, episode, HANDS, seed=13, replay_every=29)
    assert counts["hands"] >= HANDS


def _trajectory(env, games: int, seed: int, reset_seed_each: bool) -> list:
    """Everything a loop sees over ``games`` episodes of random legal play: observations, masks, rewards, ends,
    infos' hand results and the deals."""
    rng = np.random.default_rng(seed)
    seen = []
    env.reset(seed=seed)
    for game in range(games):
        if game and reset_seed_each:
            env.reset(seed=seed + game)
        elif game:
            env.reset()
        seen.append(("deal", env.unwrapped.current_deal()))
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated,
                         truncated, info.get("hand_result"), info.get("suit_order")))
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("preset, observation, episode, reset_seed_each", [
    ("knock", "absolute", "game", False), ("classic", "structured", "hand", True),
    ("multiplayer", "absolute", "hand", True), ("bid", "structured", "game", False)])
def test_both_engines_give_the_same_episodes(monkeypatch, preset, observation, episode, reset_seed_each):
    runs = {}
    for engine in ("reference", "compiled"):
        monkeypatch.setenv(native.ENGINE_VARIABLE, engine)
        env = euchre_env.env(rules=preset, observation=observation, episode=episode)
        assert isinstance(env.unwrapped._core, ReferenceGame if engine == "reference" else CompiledGame)
        runs[engine] = _trajectory(env, 3 if episode == "game" else 12, 7, reset_seed_each)
    assert runs["reference"] == runs["compiled"]


_COLD = textwrap.dedent("""
    import json, sys, time
    if sys.argv[1] == "unbuilt":  # the C core cannot be imported, as where the install had no C compiler
        sys.modules["euchre_env.compiled._core"] = None
    t0 = time.perf_counter()
    import numpy as np
    import euchre_env
    env = euchre_env.env(rules="knock")
    rng = np.random.default_rng(0)
    seen, first = [], None
    for game in range(3):
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            seen.append([agent, float(reward), int(obs["action_mask"].sum()), float(obs["observation"].sum())])
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            first = first or time.perf_counter() - t0
    print(json.dumps({"engine": type(env.unwrapped._core).__name__, "first_move_s": first, "seen": seen}))
""")


def test_a_process_without_the_core_plays_the_same_games_on_the_reference_engine():
    """The README's loop in a new process where the C core is not built (``EUCHRE_ENV_ENGINE=auto``): its games run on
    the reference engine, said once on stderr, and equal those of the compiled engine."""
    env = {**os.environ, native.ENGINE_VARIABLE: "auto"}
    cold = subprocess.run([sys.executable, "-c", _COLD, "unbuilt"], env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    cold_run = json.loads(cold.stdout)
    assert cold_run["engine"] == "ReferenceGame"
    assert cold.stderr.count("is not built: running on the reference engine") == 1
    warm = subprocess.run([sys.executable, "-c", _COLD, "built"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, native.ENGINE_VARIABLE: "compiled"}, check=True)
    warm_run = json.loads(warm.stdout)
    assert warm_run["engine"] == "CompiledGame"
    assert cold_run["seen"] == warm_run["seen"]
