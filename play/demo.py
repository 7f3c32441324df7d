"""Play one whole game between agents and print the table as it goes.

``python -m euchre_env.play.demo --rules knock --seed 7`` (this is ``make demo``); ``--players`` takes four
agent specs (seats 0..3; seats 0 and 2 are partners), e.g. ``--players rules random rules random``.
"""

from __future__ import annotations

import argparse

import euchre_env
from euchre_env.agents.registry import make_agent
from euchre_env.game.rules import PRESETS


def play_game(rules: str, seed: int, players: list[str], verbose: bool = True) -> list[int]:
    """One game between the four agent specs; returns the final score [team 0, team 1]."""
    env = euchre_env.env(rules=rules, render_mode="ansi", info_state=True)
    env.reset(seed=seed)
    seats = zip(env.possible_agents, players)
    agents = {name: make_agent(spec, seed=seed * 10 + i) for i, (name, spec) in enumerate(seats)}
    game = env.unwrapped.game
    hands_played = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if verbose and not game.history:
            print(env.render(), "\n")
        action = agents[agent].act(obs, info)
        if verbose:
            spec = players[env.unwrapped.agent_name_mapping[agent]]
            print(f"  {agent} ({spec}): {env.unwrapped.action_to_str(action)}")
        env.step(action)
        if "hand_result" in env.infos.get(agent, {}):
            hands_played += 1
            if verbose:
                print(f"\n  hand {hands_played} result: {env.infos[agent]['hand_result']}\n")
    if verbose:
        print(f"final score: team 0 (seats 0+2) {game.scores[0]}, team 1 (seats 1+3) {game.scores[1]};"
              f" team {game.winner} wins")
    return list(game.scores)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="knock", choices=PRESETS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--players", nargs=4, default=["rules", "random", "rules", "random"], metavar="SPEC",
                        help="four agent specs, seats 0..3 (default: rules random rules random)")
    args = parser.parse_args(argv)
    try:
        play_game(args.rules, args.seed, args.players)
    except (ValueError, ModuleNotFoundError) as err:  # a bad spec, or a checkpoint spec without torch
        parser.exit(2, f"{parser.prog}: error: {err}\n")


if __name__ == "__main__":
    main()
