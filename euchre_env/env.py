"""
# Euchre

| Import | `import euchre_env; env = euchre_env.env(rules="knock")` |
|---|---|
| Registry | `pettingzoo.make("aec", "euchre/euchre_v0", rules="classic")` after `import euchre_env` |
| Actions | Discrete (size depends on the rules: 59 for `knock`) |
| Agents | `player_0` .. `player_3`; seat 1 sits at seat 0's left; teams {0, 2} and {1, 3} |
| Observation | `Dict(observation=Box(float32), action_mask=Box(0, 1, int8))` |

Four-handed Euchre with rule presets from the project's sources: `knock`, `classic`,
`multiplayer` and `bid` (Bid Euchre). Every rule option is a keyword:
`env(rules="classic", joker=True, game_target=5)`.

## Observation space
A perfect-recall information state of the seat for the current hand, seats relative
to the observer (0 = self, 1 = left opponent, 2 = partner, 3 = right opponent), plus
the game score. The named blocks and their offsets are in
`env.unwrapped.observation_layout` (see `euchre_env.observation`).

## Action space and legal-action mask
One `Discrete` space covers every decision: pass, order (alone), name a suit (alone),
dealer discard, defend alone, the suit offered by a turned-up joker (`name S` in its own
phase), play a card, and in Bid Euchre bids, help exchanges and ace-no-face.
`env.unwrapped.action_to_str(a)` and `env.unwrapped.str_to_action("play JH")` convert.
The mask is in `observation["action_mask"]` and in `infos[agent]["action_mask"]`; it is all
zeros for every agent but the one to act, and at the end.

## Rewards
Zero-sum. When a hand ends every seat gets its team's points for the hand minus the other
team's (`reward="points"`, default), delivered through `last()` at its next turn;
`reward="win"` instead gives +1 / -1 when the game ends. Each seat's info then holds
`hand_result` (maker team, trump, lone flags, tricks, points) and `scores`.
With `info_state=True` the acting seat's info also holds `information_state`, the structured
view of what that seat knows (`euchre_env.infostate.InfoState`), for rule-based and search agents.

## Episodes
`episode="game"` (default) plays a whole game to the target (a whole rubber with
`rubber=True`); `episode="hand"` ends after one hand. `max_steps` truncates.
`reset(seed=..., options={"deal": {...}, "scores": [a, b]})` scripts the first deal.

## Version history
* v0: first release.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from euchre_env.actions import action_table
from euchre_env.engine import NUM_SEATS, GameState, Phase, team_of
from euchre_env.infostate import InfoState, information_state
from euchre_env.observation import Observer
from euchre_env.render import render_text
from euchre_env.rules import Rules, option_names
from euchre_env.wrappers import standard_wrappers

EPISODES = ("game", "hand")
REWARDS = ("points", "win")
RESET_OPTIONS = ("deal", "scores")


def env(**kwargs: Any) -> AECEnv:
    """The Euchre AEC env with PettingZoo's standard wrappers (illegal action ends the game)."""
    return standard_wrappers(raw_env(**kwargs), illegal_reward=-1)


class raw_env(AECEnv, EzPickle):
    metadata = {"render_modes": ["ansi", "human"], "name": "euchre_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(
        self,
        rules: str | Rules = "knock",
        render_mode: str | None = None,
        episode: str = "game",
        reward: str = "points",
        max_steps: int | None = None,
        render_seat: int | None = None,
        info_state: bool = False,
        **overrides: Any,
    ) -> None:
        EzPickle.__init__(self, rules, render_mode, episode, reward, max_steps, render_seat, info_state, **overrides)
        super().__init__()
        self.rules = resolve_rules(rules, overrides)
        _check_choice("episode", episode, EPISODES)
        _check_choice("reward", reward, REWARDS)
        _check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        _check_max_steps(max_steps)
        if render_seat not in (None, 0, 1, 2, 3):
            raise ValueError(f"'render_seat' must be a seat 0..3 or None, got {render_seat!r}")
        self.render_mode = render_mode
        self.episode = episode
        self.reward_mode = reward
        self.max_steps = max_steps
        self.render_seat = render_seat
        self.info_state = bool(info_state)
        self.table = action_table(self.rules)
        self.observer = Observer(self.rules)
        self.possible_agents = [f"player_{i}" for i in range(NUM_SEATS)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        n = len(self.table)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(self.observer.low, self.observer.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(n)
        self._rng: np.random.Generator | None = None
        self.game: GameState | None = None

    # ---------------------------------------------------------------- spaces & helpers
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    @property
    def observation_layout(self) -> dict[str, tuple[int, int]]:
        """Block name -> (offset, size) in ``observation["observation"]``."""
        return dict(self.observer.layout)

    def action_to_str(self, action: int) -> str:
        return self.table.to_str(action)

    def str_to_action(self, text: str) -> int:
        return self.table.from_str(text)

    def information_state(self, agent: str) -> InfoState:
        """What ``agent``'s seat knows, as structured data (see ``euchre_env.infostate``)."""
        return information_state(self.game, self.agent_name_mapping[agent])

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act (empty at the end)."""
        return list(self.game.legal_actions()) if self.game is not None else []

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        obs = self.observer.encode(self.game, seat)
        acting = (not self.terminations.get(agent, True) and not self.truncations.get(agent, True)
                  and seat == self.game.current_player)
        # The acting seat's mask is built once per decision (in _select) and shared with its info.
        mask = self.infos[agent]["action_mask"] if acting else np.zeros(len(self.table), np.int8)
        return {"observation": obs, "action_mask": mask}

    # ---------------------------------------------------------------- reset & step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # A warning, not an error: PettingZoo's api_test passes an arbitrary option and
            # expects reset() to accept it.
            warnings.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}", stacklevel=2)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        # Build the game first: a bad deal raises before anything of the old episode changes.
        game = GameState(self.rules, self._rng, deal=options.get("deal"), scores=options.get("scores"))
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"action_mask": np.zeros(len(self.table), np.int8)} for a in self.agents}
        self.num_steps = 0
        self._rewards_set = False
        self._select()

    def _select(self) -> None:
        seat = self.game.current_player
        self.agent_selection = self.possible_agents[seat]
        mask = np.zeros(len(self.table), np.int8)
        mask[self.game.legal_actions()] = 1
        self.infos[self.agent_selection]["action_mask"] = mask
        if self.info_state:
            self.infos[self.agent_selection]["information_state"] = information_state(self.game, seat)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act (action None is only for finished agents)")
        self.game.apply(action)  # raises ValueError listing the legal actions; state unchanged
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {"action_mask": np.zeros(len(self.table), np.int8)}
        if self._rewards_set:  # rewards are instantaneous: clear the last hand's
            self._clear_rewards()
            self._rewards_set = False
        game = self.game
        if game.hand_over:
            self._end_hand()
            self._accumulate_rewards()
            self._rewards_set = True
            if not self.terminations[agent]:
                game.next_hand()
        if self.max_steps is not None and self.num_steps >= self.max_steps and not self.terminations[agent]:
            self.truncations = dict.fromkeys(self.agents, True)
        if not (self.terminations[agent] or self.truncations[agent]):
            self._select()
        if self.render_mode == "human":
            self.render()

    def _end_hand(self) -> None:
        game = self.game
        result = game.hand_result
        finished = game.phase == Phase.GAME_OVER or self.episode == "hand"
        for agent in self.agents:
            team = team_of(self.agent_name_mapping[agent])
            if self.reward_mode == "points":
                self.rewards[agent] = float(result["points"][team] - result["points"][1 - team])
            elif finished:
                self.rewards[agent] = _win_reward(game, team)
            self.infos[agent]["hand_result"] = dict(result)
            self.infos[agent]["scores"] = list(result["scores"])
        if finished:
            self.terminations = dict.fromkeys(self.agents, True)

    # ---------------------------------------------------------------- render
    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'human'")
            return None
        if self.game is None:
            raise ValueError("render() before reset()")
        text = render_text(self.game, self.render_seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass


def _win_reward(game: GameState, team: int) -> float:
    """+1 / -1 by the game's (or rubber's) winner; 0 for a single hand with no game winner yet."""
    if game.winner is None:
        pts = game.hand_result["points"]
        return float(np.sign(pts[team] - pts[1 - team]))
    return 1.0 if game.winner == team else -1.0


def resolve_rules(rules: Rules | str, overrides: dict[str, Any]) -> Rules:
    """The rules an env is made with: a preset name or a ``Rules``, with rules options over it."""
    if isinstance(rules, Rules):
        _check_options(overrides)
        return rules.replace(**overrides)
    if isinstance(rules, str):
        return Rules.preset(rules, **overrides)
    raise ValueError(f"'rules' must be a preset name or a Rules instance, got {rules!r}")


def _check_max_steps(max_steps: Any) -> None:
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ValueError(f"'max_steps' must be a positive int or None, got {max_steps!r}")


def _check_choice(name: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"{name!r} must be one of {list(allowed)}, got {value!r}")


def _check_options(overrides: dict[str, Any]) -> None:
    unknown = sorted(set(overrides) - set(option_names()))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; rules options: {', '.join(option_names())}")
