"""Differential play: the compiled core against the reference engine and the env's observers, step by step.

Two consumers of the compiled core (C: ``euchre_env/compiled/c/engine.h``) are checked: ``VectorEuchre`` (:func:`play`,
many games at once, ``compiled._core.Batch``) and the AEC env ``raw_env``, which steps its one game on the same rules
(:func:`play_env`, ``compiled._core.Game``). Both sides
play the same deals (each reference game is dealt the compiled side's ``current_deal`` at every hand) and the
same uniformly random legal actions; at every decision the seat to act, the observation and the mask must be
identical, and at every hand's end the rewards, the hand result, the episode's end and the four final
observations. Used by tests/differential/test_vector_euchre_vs_engine.py and
tests/differential/test_compiled_game_vs_engine.py on a few hundred hands per rule set; the full runs are

    .venv/bin/python tests/differential/kernels_vs_engine.py --hands 100000          # VectorEuchre
    .venv/bin/python tests/differential/kernels_vs_engine.py --hands 100000 --env    # the AEC env

(100,000 random hands of every rule set below, each observation; the README gives their result).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from euchre_env.envs.aec import raw_env
from euchre_env.envs.episodes import hand_end_reward, hand_ending
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.views.decision import legal_mask
from euchre_env.views.structured import make_observer

# The presets and the main option sets: every option of docs/RULES.md is switched on in at least one.
RULE_SETS: dict[str, dict[str, Any]] = {
    "knock": {},
    "classic": {},
    "multiplayer": {},
    "bid": {},
    "knock+joker": {"joker": True},
    "classic+deck32+rubber+loner4": {"deck": 32, "rubber": True, "euchred_loner_four": True},
    "multiplayer+dealer_partner_alone": {"dealer_partner_must_go_alone": True, "stick_the_dealer": True},
    "classic+penalize": {"renege": "penalize", "game_target": 5},
    "bid+joker+ace_no_face": {"joker": True, "ace_no_face": True},
    "bid+double_deck+stick+minus": {"double_deck": True, "stick_the_dealer": True, "minus_target_loses": True},
}


def rules_of(name: str) -> Rules:
    return Rules.preset(name.split("+")[0], **RULE_SETS[name])


def play(rules: Rules, observation: str, episode: str, hands: int, num_envs: int = 16, seed: int = 0,
         reward: str = "points", max_hands: int | str | None = "auto", venv: VectorEuchre | None = None
         ) -> dict[str, int]:
    """Play until ``hands`` hands have ended in all; AssertionError at the first difference. Returns counts
    (``truncated``: episodes cut by ``max_hands``). ``venv``: a ready one to check instead of a new one."""
    if venv is None:
        venv = VectorEuchre(rules, num_envs=num_envs, seed=seed, observation=observation, episode=episode,
                            reward=reward, max_hands=max_hands)
    num_envs = venv.num_envs
    observer = make_observer(rules, observation)
    obs, mask, seat = venv.reset()
    refs = [GameState(rules, deal=venv.current_deal(g)) for g in range(num_envs)]
    rng = np.random.default_rng(seed + 1)
    done_hands = decisions = episodes = truncated = 0
    while done_hands < hands:
        actions = np.zeros(num_envs, np.int64)
        for g, ref in enumerate(refs):
            where = f"{rules.preset_name} {observation} game {g} hand {ref.hand_number} step {len(ref.history)}"
            assert seat[g] == ref.current_player, f"{where}: seat {seat[g]} vs {ref.current_player}"
            absolute = legal_mask(ref).astype(bool)
            if observation == "structured":
                want, frame = observer.encode_with_frame(ref, ref.current_player)
                want_mask = frame.canonical_mask(absolute)
            else:
                want, frame, want_mask = observer.encode(ref, ref.current_player), None, absolute
            if not np.array_equal(obs[g], want):
                diff = np.flatnonzero(obs[g] != want)
                raise AssertionError(f"{where}: observation differs at {diff[:10]} ({_blocks(observer, diff)})")
            assert np.array_equal(mask[g], want_mask), f"{where}: mask {np.flatnonzero(mask[g])} vs " \
                                                      f"{np.flatnonzero(want_mask)}"
            actions[g] = rng.choice(np.flatnonzero(want_mask))
            ref.apply(frame.to_absolute_action(int(actions[g])) if frame is not None else int(actions[g]))
        decisions += num_envs
        obs, mask, seat, rewards, done, info = venv.step(actions)
        final = dict(zip(info["final_index"].tolist(), info["final_observation"]))
        for g, ref in enumerate(refs):
            where = f"{rules.preset_name} {observation} game {g} hand {ref.hand_number}"
            assert bool(info["hand_over"][g]) == ref.hand_over, f"{where}: hand over {info['hand_over'][g]}"
            if not ref.hand_over:
                assert not rewards[g].any() and not done[g], f"{where}: reward or done mid-hand"
                continue
            done_hands += 1
            assert info["hand_result"][g] == ref.hand_result, \
                f"{where}: hand result {info['hand_result'][g]} vs {ref.hand_result}"
            ending = hand_ending(ref, episode, venv.max_hands)
            want_rewards = [hand_end_reward(ref, team_of(s), reward, ending) for s in range(NUM_SEATS)]
            assert rewards[g].tolist() == want_rewards, f"{where}: rewards {rewards[g]} vs {want_rewards}"
            assert bool(done[g]) == (ending is not None), f"{where}: done {done[g]} vs ending {ending}"
            assert bool(info["truncated"][g]) == (ending not in (None, "terminated")), f"{where}: truncated"
            if ending is not None:
                episodes += 1
                truncated += ending != "terminated"
                for s in range(NUM_SEATS):
                    assert np.array_equal(final[g][s], observer.encode(ref, s)), f"{where}: final obs of seat {s}"
                refs[g] = GameState(rules, deal=venv.current_deal(g))
            else:
                ref.next_hand(deal=venv.current_deal(g))
    return {"hands": done_hands, "decisions": decisions, "episodes": episodes, "truncated": truncated}


def play_env(rules: Rules, observation: str, episode: str, hands: int, seed: int = 0, reward: str = "points",
             max_hands: int | str | None = "auto", replay_every: int = 97) -> dict[str, int]:
    """:func:`play` for the AEC env: every decision through ``last()`` / ``step()``, and every ``replay_every``
    decisions the env's replayed ``game`` compared with the reference (from then on kept in step by the env)."""
    env = raw_env(rules=rules, observation=observation, episode=episode, reward=reward, max_hands=max_hands)
    observer = make_observer(rules, observation)
    rng = np.random.default_rng(seed + 1)
    env.reset(seed=seed)
    ref = GameState(rules, deal=env.current_deal())
    done_hands = decisions = episodes = truncated = 0
    while done_hands < hands:
        seat = ref.current_player
        where = f"{rules.preset_name} {observation} env hand {ref.hand_number} step {len(ref.history)}"
        assert env.agent_selection == env.possible_agents[seat], f"{where}: {env.agent_selection} vs seat {seat}"
        obs, _, term, trunc, info = env.last()
        assert not (term or trunc), f"{where}: over mid-hand"
        absolute = legal_mask(ref).astype(bool)
        if observation == "structured":
            want, frame = observer.encode_with_frame(ref, seat)
            want_mask = frame.canonical_mask(absolute)
            assert info["suit_order"] == frame.suit_order, f"{where}: frame {info['suit_order']}"
        else:
            want, frame, want_mask = observer.encode(ref, seat), None, absolute
        if not np.array_equal(obs["observation"], want):
            diff = np.flatnonzero(obs["observation"] != want)
            raise AssertionError(f"{where}: observation differs at {diff[:10]} ({_blocks(observer, diff)})")
        assert np.array_equal(obs["action_mask"].astype(bool), want_mask), f"{where}: mask"
        assert env.legal_actions() == np.flatnonzero(want_mask).tolist(), f"{where}: legal_actions()"
        if decisions % replay_every == replay_every - 1:
            game = env.game
            assert (game.history, game.hands, game.scores, game.phase) == (ref.history, ref.hands, ref.scores,
                                                                           ref.phase), f"{where}: replayed game"
        other = (seat + 1 + decisions % 3) % NUM_SEATS  # a seat not to act sees its own view, and no actions
        seen = env.observe(env.possible_agents[other])
        assert np.array_equal(seen["observation"], observer.encode(ref, other)), f"{where}: seat {other}'s view"
        assert not seen["action_mask"].any(), f"{where}: seat {other} has actions"
        action = int(rng.choice(np.flatnonzero(want_mask)))
        env.step(action)
        ref.apply(frame.to_absolute_action(action) if frame is not None else action)
        decisions += 1
        if not ref.hand_over:
            assert not any(env.rewards.values()), f"{where}: reward mid-hand"
            continue
        done_hands += 1
        where = f"{rules.preset_name} {observation} env hand {ref.hand_number}"
        ending = hand_ending(ref, episode, env.max_hands)
        for s, agent in enumerate(env.possible_agents):
            assert env.infos[agent]["hand_result"] == ref.hand_result, f"{where}: hand result of {agent}"
            want_reward = hand_end_reward(ref, team_of(s), reward, ending)
            assert env.rewards[agent] == want_reward, f"{where}: reward {env.rewards[agent]} vs {want_reward}"
        if ending is None:
            ref.next_hand(deal=env.current_deal())
            continue
        episodes += 1
        truncated += ending != "terminated"
        over = env.truncations if ending != "terminated" else env.terminations
        assert all(over.values()), f"{where}: episode end {ending}"
        for s, agent in enumerate(env.possible_agents):
            assert np.array_equal(env.observe(agent)["observation"], observer.encode(ref, s)), f"{where}: final {s}"
        while env.agents:
            env.step(None)
        env.reset()
        ref = GameState(rules, deal=env.current_deal())
    return {"hands": done_hands, "decisions": decisions, "episodes": episodes, "truncated": truncated}


def _blocks(observer: Any, indices: np.ndarray) -> str:
    names = []
    for i in indices[:10]:
        names += [name for name, (o, n) in observer.layout.items() if o <= i < o + n]
    return ", ".join(dict.fromkeys(names))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands per rule set, observation and episode")
    parser.add_argument("--only", default=None, help="one rule set name (default: all)")
    parser.add_argument("--env", action="store_true", help="check the AEC env instead of VectorEuchre")
    args = parser.parse_args(argv)
    total = 0
    for name in [args.only] if args.only else RULE_SETS:
        for observation in ("absolute", "structured"):
            episode = "game" if observation == "absolute" else "hand"
            start = time.perf_counter()
            if args.env:
                counts = play_env(rules_of(name), observation, episode, args.hands, seed=len(name))
            else:
                counts = play(rules_of(name), observation, episode, args.hands, num_envs=64, seed=len(name))
            total += counts["hands"]
            label = f"env {name}" if args.env else name
            print(f"{label:38s} {observation:10s} episode={episode}: {counts['hands']:,} hands, "
                  f"{counts['decisions']:,} decisions, {counts['episodes']:,} episodes identical "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"all identical: {total:,} hands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
