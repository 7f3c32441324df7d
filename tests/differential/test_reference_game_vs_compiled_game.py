"""The AEC env's two engines, pair by pair: ``ReferenceGame`` (the reference engine behind the compiled game's
interface, euchre_env/envs/game_core.py) against the reference engine's own observers, and against
``CompiledGame`` step by step; the move from one to the other at a reset; and a process with an empty Numba cache,
which plays its first moves on the reference engine, giving the same games as the compiled engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import euchre_env
from euchre_env.compiled import builds
from euchre_env.compiled.game import CompiledGame
from euchre_env.envs import game_core
from euchre_env.envs.game_core import ReferenceGame
from tests.differential.kernels_vs_engine import RULE_SETS, play_env, rules_of

HANDS = 40  # per rule set and observation; the compiled twin's own test plays 150


@pytest.fixture
def reference_engine(monkeypatch):
    monkeypatch.setenv(builds.ENGINE_VARIABLE, "reference")


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
        monkeypatch.setenv(builds.ENGINE_VARIABLE, engine)
        env = euchre_env.env(rules=preset, observation=observation, episode=episode)
        assert isinstance(env.unwrapped._core, ReferenceGame if engine == "reference" else CompiledGame)
        runs[engine] = _trajectory(env, 3 if episode == "game" else 12, 7, reset_seed_each)
    assert runs["reference"] == runs["compiled"]


def test_the_env_moves_to_the_compiled_game_at_a_reset_once_built(monkeypatch):
    monkeypatch.setenv(builds.ENGINE_VARIABLE, "auto")
    built = {"now": False}
    monkeypatch.setattr(builds, "is_built", lambda family: built["now"])
    monkeypatch.setattr(game_core, "is_built", lambda family: built["now"])
    monkeypatch.setattr(builds, "build_in_background", lambda family: True)
    monkeypatch.setattr(game_core, "_next_check", 0.0)
    env = euchre_env.env(rules="knock", episode="hand")
    assert isinstance(env.unwrapped._core, ReferenceGame)
    first = _trajectory(env, 2, 3, True)
    assert isinstance(env.unwrapped._core, ReferenceGame)  # not built: stays
    built["now"] = True
    monkeypatch.setattr(game_core, "_next_check", 0.0)
    after = _trajectory(env, 2, 3, True)  # the first reset moves it
    assert isinstance(env.unwrapped._core, CompiledGame)
    monkeypatch.setenv(builds.ENGINE_VARIABLE, "compiled")
    assert first == after == _trajectory(euchre_env.env(rules="knock", episode="hand"), 2, 3, True)


_COLD = textwrap.dedent("""
    import json, time
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


def test_a_process_with_an_empty_cache_plays_the_same_games(tmp_path):
    """The README's loop in a new process with an empty Numba cache and no background build: its games run on the
    reference engine at once and equal those of the compiled engine."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), builds.ENGINE_VARIABLE: "auto",
           builds.BACKGROUND_VARIABLE: "0"}
    cold = subprocess.run([sys.executable, "-c", _COLD], env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    cold_run = json.loads(cold.stdout)
    assert cold_run["engine"] == "ReferenceGame"
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # nothing compiled, nothing stamped
    warm = subprocess.run([sys.executable, "-c", _COLD], env={**os.environ, builds.ENGINE_VARIABLE: "compiled"},
                          capture_output=True, text=True, timeout=600, check=True)
    warm_run = json.loads(warm.stdout)
    assert warm_run["engine"] == "CompiledGame"
    assert cold_run["seen"] == warm_run["seen"]
