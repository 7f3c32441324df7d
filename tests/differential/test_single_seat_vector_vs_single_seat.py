"""SingleSeatVectorEnv against SingleSeatEnv: the same deals and learner actions give the same game, decision by
decision, for every opponent kind: compiled twins, and an agent without one (PIMC) on the slow path.

Every game of a ``SingleSeatVectorEnv`` is shadowed by a ``SingleSeatEnv`` dealt the same hand (the vector env's
``current_deal`` at the learner's first decision of each episode). Both get the same learner action at every
step; the observations, masks, acting seats, rewards, episode ends and final observations must be equal. The
rule-based and network opponents are deterministic and play in both as themselves (compiled twin against
Python agent); the random opponents' draws differ by design, so the shadow's opponents replay the vector env's
(recorded per game and per deal) and the test checks that game for game they were legal there too. PIMC's shadow
plays the vector env's own PIMC agents of the game, seeded as the vector env seeded them for the episode.

Run long (docs/vector.md):
``.venv/bin/python -m tests.differential.test_single_seat_vector_vs_single_seat --steps 20000``.
"""

from __future__ import annotations

import argparse
import copy
import os
from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from euchre_env.compiled import kernels as K
from euchre_env.envs.single_seat import SingleSeatEnv
from euchre_env.envs.single_seat_vector import SingleSeatVectorEnv
from euchre_env.game.rules import Rules

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
RULE_SETS = {
    "knock": ("knock", {}),
    "classic+joker": ("classic", {"joker": True}),
    "multiplayer+defend": ("multiplayer", {}),
    "bid+joker": ("bid", {"joker": True}),
}


class _Recorder:
    """Wraps a random opponent's batch policy: every absolute action it takes, per game, with the game's deal."""

    def __init__(self, policy: Any, venv: Any, log: dict[int, list]) -> None:
        self.policy, self.venv, self.log = policy, venv, log
        self.deterministic = False

    def actions(self, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        ids = self.policy.actions(games, mask, rng)
        st, dealt = self.venv.engine.arrays.st, self.venv.engine.arrays.dealt
        absolute = self.venv._tables.to_abs[st[games, K.FRAME], ids]
        for g, a in zip(games.tolist(), absolute.tolist()):
            self.log[g].append((dealt[g].tobytes(), a))
        return ids


def _replayer(log: list, shadow: list, rules: Rules) -> Any:
    """An opponent for a shadow SingleSeatEnv that plays the vector env's recorded actions of the same deal."""

    def act(observation: Any, info: Any) -> int:
        dealt = np.zeros((4, rules.deck_spec.num_ids), np.int8)
        for seat, hand in enumerate(shadow[0].state.initial_hands):
            for c in hand:
                dealt[seat, c] += 1
        key = dealt.tobytes()
        while log and log[0][0] != key:  # actions of deals the shadow never plays (dealt again in the vector env)
            log.pop(0)
        assert log, "the vector env took no action for this deal"
        action = log.pop(0)[1]
        assert observation["action_mask"][action], "the vector env's random opponent chose an illegal action"
        return action

    return act


def _asked(agent: Any) -> Any:
    """A copy of ``agent`` as it is now (the vector env reset it for this episode) as a plain callable, which the
    shadow never resets: the vector env resets its own agent again when its next episode starts, in the step in
    which the shadow still plays the end of this one."""
    mine = copy.copy(agent)
    return lambda observation, info: mine.act(observation, info)


def play(name: str, opponent: str, learner: str, observation: str, threads: int, num_envs: int, steps: int,
         seed: int, whole: bool = True, illegal: float = 0.0) -> int:
    """Run both envs side by side for ``steps`` vector steps; returns the number of learner decisions compared.
    ``threads``: the vector env's; ``whole``: rule-based opponents play the compiled whole step (the default), or
    rounds of decisions and engine steps from Python. ``illegal``: the share of games whose learner tries any id of
    the action space at a step instead of a legal one, under ``illegal_action="penalize"`` in both envs."""
    preset, options = RULE_SETS[name]
    rules = Rules.preset(preset, **options)
    spec = {"rules": "rules", "random": "random", "pimc": "pimc:4",
            "network": os.path.join(FIXTURES, "knock_structured.pt" if preset == "knock" else "bid_structured.pt")
            }[opponent]
    vx = SingleSeatVectorEnv(rules, num_envs=num_envs, learner=learner, seat=1, opponents=spec,
                             observation=observation, seed=seed, threads=threads,
                             illegal_action="penalize" if illegal else "raise")
    vx._whole_steps = whole
    log: dict[int, list] = defaultdict(list)
    if opponent == "random":
        vx._policies = [_Recorder(p, vx.venv, log) for p in vx._policies]
    obs, infos = vx.reset(seed=seed)
    shadows: list[list[SingleSeatEnv]] = [[None] for _ in range(num_envs)]  # type: ignore[list-item]
    kw = {"seat": 1} if learner == "seat" else {"team": 1}

    def shadow_env(g: int) -> SingleSeatEnv:
        opp = _replayer(log[g], shadows[g], rules) if opponent == "random" else spec
        if opponent == "pimc":  # the vector env's agents of game g, seeded as it seeded them for this episode
            opp = {s: _asked(vx._slow.mirror.agent(g, s)) for s in range(4) if vx._slow.mirror.agent(g, s) is not None}
        return SingleSeatEnv(rules, opponents=opp, observation=observation, **kw)

    def start(g: int) -> tuple[dict, dict]:
        env = shadows[g][0] = shadow_env(g)
        return env.reset(options={"deal": vx.current_deal(g)})

    rng = np.random.default_rng(seed)
    compared = 0
    last = [start(g) for g in range(num_envs)]
    for _ in range(steps):
        for g in range(num_envs):
            o, i = last[g]
            assert np.array_equal(obs[g], o["observation"]), (g, "observation")
            assert np.array_equal(infos["action_mask"][g], o["action_mask"].astype(bool)), (g, "mask")
            assert infos["seat"][g] == i["seat"], (g, "seat")
        mask = infos["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(1)
        if illegal:
            wild = rng.random(num_envs) < illegal
            actions[wild] = rng.integers(mask.shape[1], size=int(wild.sum()))  # mostly illegal
        obs, rewards, terminated, truncated, infos = vx.step(actions)
        for g in range(num_envs):
            o, r, te, tr, i = shadows[g][0].step(int(actions[g]))
            compared += 1
            assert not illegal or infos["illegal_action"][g] == i["illegal_action"], (g, "illegal")
            assert np.isclose(rewards[g], r), (g, "reward", rewards[g], r)
            assert (terminated[g], truncated[g]) == (te, tr), (g, "ends")
            if te or tr:
                assert infos["_final_obs"][g] and np.array_equal(infos["final_obs"][g], o["observation"]), g
                last[g] = start(g)
            else:
                last[g] = (o, i)
    assert not illegal or vx.num_illegal_actions > steps * num_envs * illegal / 2
    return compared


# Rule-based opponents both ways: the compiled whole step on one thread, and rounds from Python on two (the engine's
# parallel kernels); the whole step's parallel build against the rounds: test_single_seat_step_vs_rounds.py.
CASES = [(name, opponent, learner, observation, threads, whole)
         for name in RULE_SETS for opponent in ("rules", "random", "network")
         for learner, observation in (("seat", "structured"), ("team", "absolute"))
         for threads, whole in (((1, True), (2, False)) if opponent == "rules" else ((1, True),))
         if opponent != "network" or name in ("knock",)]


@pytest.mark.parametrize(("name", "opponent", "learner", "observation", "threads", "whole"), CASES)
def test_the_vector_env_plays_single_seat_envs_games(name, opponent, learner, observation, threads, whole):
    assert play(name, opponent, learner, observation, threads, num_envs=12, steps=60, seed=3, whole=whole) == 12 * 60


@pytest.mark.parametrize(("opponent", "learner", "observation", "whole"), [
    ("rules", "seat", "structured", True), ("rules", "team", "absolute", False), ("random", "seat", "absolute", True),
    ("pimc", "team", "structured", True)])
def test_penalized_illegal_actions_are_single_seat_envs_penalties(opponent, learner, observation, whole):
    """``illegal_action="penalize"`` in both: a game whose learner tries an id its decision does not allow stays
    where it was, with -1 and the pending hand rewards, as SingleSeatEnv's; the others step, deal for deal, on every
    path (the whole step, rounds, the slow path)."""
    steps = 25 if opponent == "pimc" else 60
    assert play("knock", opponent, learner, observation, 1, num_envs=6, steps=steps, seed=5, whole=whole,
                illegal=0.3) == 6 * steps


@pytest.mark.parametrize(("learner", "observation"), [("seat", "structured"), ("team", "absolute")])
def test_an_opponent_without_a_compiled_twin_plays_on_the_slow_path(learner, observation):
    """PIMC has no compiled twin: the vector env asks it one game at a time on a reference game kept in step."""
    assert play("knock", "pimc", learner, observation, 1, num_envs=4, steps=25, seed=3) == 4 * 25


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="vector steps per case (default 2000)")
    parser.add_argument("--num-envs", type=int, default=32)
    args = parser.parse_args()
    for *case, threads, whole in CASES:
        n = play(*case, threads, num_envs=args.num_envs, steps=args.steps, seed=11, whole=whole)
        path = (", the whole step" if whole else ", rounds") if case[1] == "rules" else ""  # other opponents: rounds
        print(f"{' '.join(case)}, {threads} thread(s){path}: {n:,} learner decisions identical", flush=True)


if __name__ == "__main__":
    main()
