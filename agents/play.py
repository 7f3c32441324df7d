"""Play one whole game between agents and print the table after every hand.

``python -m agents.play --rules knock --seed 7`` (this is ``make demo``).
"""

from __future__ import annotations

import argparse

import euchre_env
from agents.random_agent import RandomAgent
from euchre_env.rules import PRESETS


def play_game(rules: str, seed: int, verbose: bool = True) -> list[int]:
    """Four random agents play one game; returns the final score [team 0, team 1]."""
    env = euchre_env.env(rules=rules, render_mode="ansi")
    env.reset(seed=seed)
    players = {agent: RandomAgent(seed * 10 + i) for i, agent in enumerate(env.possible_agents)}
    game = env.unwrapped.game
    shown_hands = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if verbose and shown_hands == game.hand_number and game.history == []:
            print(env.render(), "\n")
        action = players[agent].act(obs, info)
        if verbose:
            print(f"  {agent}: {env.unwrapped.action_to_str(action)}")
        env.step(action)
        if verbose and "hand_result" in env.infos.get(agent, {}):
            result = env.infos[agent]["hand_result"]
            print(f"\n  hand {shown_hands + 1} result: {result}\n")
            shown_hands += 1
    if verbose:
        print(f"final score: team 0 (seats 0+2) {game.scores[0]}, team 1 (seats 1+3) {game.scores[1]};"
              f" team {game.winner} wins")
    return list(game.scores)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="knock", choices=PRESETS)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    play_game(args.rules, args.seed)


if __name__ == "__main__":
    main()
