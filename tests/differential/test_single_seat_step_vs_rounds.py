"""The compiled whole step of ``SingleSeatVectorEnv`` (:mod:`euchre_env.envs.whole_step`, which inlines
``euchre_env.envs.learner_account`` and takes the rule-based opponents' compiled decision) against the env's rounds of
Python decisions and engine steps, which call the same account from Python: the same games, deal for deal."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env import SingleSeatVectorEnv


def random_actions(infos: dict, rng: np.random.Generator) -> np.ndarray:
    mask = infos["action_mask"]
    return (rng.random(mask.shape) * mask).argmax(1)


def same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize(("learner", "episode", "reward", "max_hands"), [
    ("seat", "hand", "points", None), ("team", "game", "win", None), ("seat", "game", "points", 3)])
def test_the_rule_based_whole_step_plays_what_the_python_rounds_play(monkeypatch, learner, episode, reward, max_hands):
    """Rule-based opponents play the compiled whole step (the learner's move, theirs, the ends of hands and the next
    deals in one call; its games equal to SingleSeatEnv's: tests/differential); the rounds of Python decisions and
    engine steps it replaces play the same games, deal for deal (both deal from each game's stream), over
    multi-hand episodes, win rewards and a hand limit too; so does its parallel build, in slices from 256 games."""
    from euchre_env.agents.rule_based import compiled
    from euchre_env.envs import whole_step

    def run(whole: bool, threads: int) -> list[np.ndarray]:
        envs = SingleSeatVectorEnv("knock", num_envs=300, learner=learner, opponents="rules", observation="structured",
                                   episode=episode, reward=reward, max_hands=max_hands, seed=4, threads=threads)
        envs._whole_steps = whole
        obs, infos = envs.reset()
        rng = np.random.default_rng(4)
        out = [obs]
        for _ in range(40):
            obs, rewards, terminated, truncated, infos = envs.step(random_actions(infos, rng))
            out += [obs, rewards, terminated, truncated, infos["seat"], infos.get("final_obs", np.zeros(0))]
        return [*out, envs.venv.scores(), envs.venv.engine.arrays.dealt]

    calls = []
    step = whole_step.WholeStep.__call__
    monkeypatch.setattr(whole_step.WholeStep, "__call__", lambda self, *args: calls.append(1) or step(self, *args))
    rounds = run(False, 1)
    assert not calls
    sliced = run(True, 2)  # 300 games: the parallel build, in slices
    assert calls and compiled.PARALLEL_FROM <= 300
    assert same(sliced, rounds)
    assert same(run(True, 1), rounds)
