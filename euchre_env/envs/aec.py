"""
# Euchre

| Import | `import euchre_env; env = euchre_env.env(rules="knock")` |
|---|---|
| Registry | `pettingzoo.make("aec", "euchre/euchre_v0", rules="classic")` after `import euchre_env` (PettingZoo 1.27+)
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
`env.unwrapped.observation_layout` (see `euchre_env.views.observation`).
`observation="structured"` (default `"absolute"`) adds derived blocks and writes every suit in
the seat's canonical frame (trump first; see `euchre_env.views.structured`): then the masks and the
ids `step()` takes are in the frame of the seat to act too, `infos[agent]["suit_order"]` names
it (`"HDCS"`: slot 0 is hearts...), and `env.unwrapped.to_absolute_action(a)` /
`to_canonical_action(a)` convert; `action_to_str` / `str_to_action` stay on absolute ids.

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
view of what that seat knows (`euchre_env.views.infostate.InfoState`), for rule-based and search agents.

## Episodes
`episode="game"` (default) plays a whole game to the target (a whole rubber with
`rubber=True`); `episode="hand"` ends after one hand. `max_steps` truncates after that many
steps, `max_hands` after that many hands; its default `"auto"` truncates whole games of Bid
Euchre (and of `renege="penalize"`) after 200 hands, games that poor play may never end.
On truncation every agent is truncated, `infos[agent]["truncated"]` names the limit
(`"max_hands"` / `"max_steps"`) and nobody wins (`reward="win"` gives 0); see `euchre_env.envs.episodes`.
`reset(seed=..., options={"deal": {...}, "scores": [a, b]})` scripts the first deal.

## Rendering
`render_mode="ansi"` returns the table as text, `"human"` prints it, `"rgb_array"` returns it drawn, a
(480, 640, 3) uint8 array (the `render` extra, Pillow: `euchre_env.views.picture`). `render_seat` says who looks:
`"table"` (the default) an onlooker, who sees no hand until the hand is over; `k` seat k, its own hand; `"all"` the
god view, every hand.

## Speed
The rules run on a compiled copy of the reference engine (`euchre_env.compiled.game`, C built at install),
proven equal to it step by step (`tests/differential/kernels_vs_engine.py`): one call a decision. Where that
extension was not built (no C compiler at install), the env plays on the reference engine behind the same
interface (`euchre_env.envs.game_core.ReferenceGame`, the same games for the same seeds), after one line on
stderr (docs/compiling.md). `env.unwrapped.game` is the
reference engine's `GameState` of the same game, replayed from the episode's deals and actions when first read
and kept in step from then on.

## Version history
* v0: first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from euchre_env.compiled.game import ILLEGAL
from euchre_env.envs import episodes
from euchre_env.envs.episodes import AUTO, ENV_EPISODE
from euchre_env.envs.game_core import game_core
from euchre_env.envs.wrappers import standard_wrappers
from euchre_env.game.actions import action_table
from euchre_env.game.deals import parse_deal, parse_scores, shuffled_pack
from euchre_env.game.engine import GameState
from euchre_env.game.errors import check_choice
from euchre_env.game.rules import Rules, resolve_rules
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.views.blocks import ENV_VERSION
from euchre_env.views.infostate import InfoState, information_state
from euchre_env.views.picture import require_pillow, table_picture
from euchre_env.views.render import TABLE, VIEWERS, render_text
from euchre_env.views.structured import CanonicalActions, make_observer, suit_frames


def env(**kwargs: Any) -> AECEnv:
    """The Euchre AEC env with PettingZoo's standard wrappers (illegal action ends the game)."""
    return standard_wrappers(raw_env(**kwargs), illegal_reward=-1)


class raw_env(CanonicalActions, AECEnv, EzPickle):
    # render_fps: a frame per decision, two a second, for video recorders.
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": f"euchre_v{ENV_VERSION}",
                "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        rules: str | Rules = "knock",
        render_mode: str | None = None,
        episode: str = ENV_EPISODE,
        reward: str = "points",
        max_steps: int | None = None,
        render_seat: int | str = TABLE,
        info_state: bool = False,
        max_hands: int | str | None = AUTO,
        observation: str = "absolute",
        **overrides: Any,
    ) -> None:
        EzPickle.__init__(self, rules, render_mode, episode, reward, max_steps, render_seat, info_state,
                          max_hands=max_hands, observation=observation, **overrides)
        super().__init__()
        self.rules = resolve_rules(rules, overrides, type(self))
        # The hand limit (None: none) as max_hands resolves under these rules (see euchre_env.envs.episodes).
        self.max_hands = episodes.check_episode_args(self.rules, episode, reward, max_steps, max_hands)
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        if render_mode == "rgb_array":
            require_pillow()
        check_choice("render_seat", render_seat, VIEWERS)
        self.render_mode = render_mode
        self.episode = episode
        self.reward_mode = reward
        self.max_steps = max_steps
        self.render_seat = render_seat
        self.info_state = bool(info_state)
        self.table = action_table(self.rules)
        self.observer = make_observer(self.rules, observation)  # validates the option; the layout and bounds
        self.observation = observation
        self._frames = suit_frames(self.rules) if observation == "structured" else None
        self._frame = None  # structured: the Frame of the seat to act
        # The rules run on the compiled core (on the reference engine until its kernels are built: game_core); a
        # reference GameState is replayed only when something reads it.
        self._core = game_core(self.rules, observation)
        self._game: GameState | None = None
        self._started = False
        # The agent whose decision is on the table: None at a hand's end, after a truncation, and after an illegal
        # move's end under the standard wrapper, which clears it and then takes it for the live agent to act.
        # PettingZoo's own TerminateIllegalWrapper does not clear it: last() reads the terminations too.
        self._turn: str | None = None
        self.possible_agents = [f"player_{i}" for i in range(NUM_SEATS)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        n = self._num_actions = len(self.table)
        # The mask of every agent not to act: one shared all-zeros array, read-only so that nobody changes it.
        self._no_actions = np.zeros(n, np.int8)
        self._no_actions.flags.writeable = False
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(self.observer.low, self.observer.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(n)
        self._rng: np.random.Generator | None = None
        self._spare: np.random.Generator | None = None  # reseeded by reset(seed=...), then swapped in
        # No option that adds work to a decision (a step limit, suit frames, information states, printing):
        # _act may take its short path.
        self._plain = max_steps is None and self._frames is None and not self.info_state and render_mode != "human"

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

    @property
    def game(self) -> GameState | None:
        """The game as the reference engine's :class:`GameState` (None before ``reset()``), for rendering,
        agents and inspection: replayed from the episode's deals and actions on first read, then kept in step.
        Read it, do not change it: the env plays on its compiled copy of the game."""
        if self._game is None and self._started:
            self._game = self._core.replay(self._rng)
        return self._game

    @property
    def hand_number(self) -> int:
        """Hands dealt before the one on the table in this episode (``game.hand_number``, without the replay)."""
        return self._core.hand_number

    def information_state(self, agent: str) -> InfoState:
        """What ``agent``'s seat knows, as structured data (see ``euchre_env.views.infostate``)."""
        return information_state(self.game, self.agent_name_mapping[agent])

    def legal_actions(self) -> list[int]:
        """Legal ids of the agent to act, as ``step`` takes them (canonical when structured; empty at the end)."""
        if not self._started or self._core.current_player < 0:
            return []
        return np.flatnonzero(self._core.mask).tolist()

    def current_deal(self) -> dict[str, Any]:
        """The deal of the hand on the table, as ``reset(options={"deal": ...})`` takes it (card ids)."""
        return self._core.current_deal()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent == self._turn and not (self.terminations.get(agent, True) or self.truncations.get(agent, True)):
            # The acting seat: its observation was written by the step that made it act; its mask
            # (copied once per decision in _select) is shared with its info.
            return {"observation": self._core.obs.copy(), "action_mask": self.infos[agent]["action_mask"]}
        return {"observation": self._core.encode(self.agent_name_mapping[agent]), "action_mask": self._no_actions}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """AECEnv.last: the agent to act's observation, cumulative reward, terminated, truncated, info."""
        try:
            agent = self.agent_selection
            terminated, truncated, info = self.terminations[agent], self.truncations[agent], self.infos[agent]
        except (AttributeError, KeyError):
            raise self._no_episode("last") from None
        if agent is self._turn and not (terminated or truncated):  # the agent to act: observe(), one call less
            obs = {"observation": self._core.obs.copy(), "action_mask": info["action_mask"]} if observe else None
            return obs, self._cumulative_rewards[agent], False, False, info
        return (self.observe(agent) if observe else None), self._cumulative_rewards[agent], terminated, truncated, info

    # ---------------------------------------------------------------- reset & step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        rng = self._rng
        if seed is None and options is None and rng is not None:  # the next episode of a loop: nothing to check
            dealer = int(rng.integers(NUM_SEATS))  # the draws of the general path below, in its order
            seat = self._core.start_shuffled(shuffled_pack(self.rules, rng), dealer, [0, 0])
        else:
            options = episodes.check_reset_options(options)
            if seed is not None or rng is None:
                # A seed deals as GameState(rules, np.random.default_rng(seed)) does. reseed() sets that state in
                # a third of default_rng's time, into the spare generator: a bad deal below leaves ours as it was.
                rng = self._spare = self._core.reseed(self._spare, seed)
            # Check everything first: a bad deal or score raises before anything of the old episode
            # changes (the generator included). Then draw as GameState does: the dealer, then the cards.
            scores = parse_scores(self.rules, options.get("scores"))
            if options.get("deal") is not None:
                seat = self._core.start(parse_deal(self.rules, options["deal"]), scores)
            else:  # as random_deal draws: the dealer, then the cards
                dealer = int(rng.integers(NUM_SEATS))
                seat = self._core.start_shuffled(shuffled_pack(self.rules, rng), dealer, scores)
            if rng is self._spare:
                self._spare = self._rng
            self._rng = rng
        self._game = None
        self._started = True
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"action_mask": self._no_actions} for a in self.agents}
        self.num_steps = 0
        self._rewards_set = False
        self._select(seat)

    def _select(self, seat: int) -> None:
        core = self._core
        agent = self.agent_selection = self._turn = self.possible_agents[seat]
        info = self.infos[agent]
        info["action_mask"] = core.mask.copy()  # the compiled step wrote it, in the seat's frame
        if self._frames is not None:
            self._frame = self._frames[core.frame]
            info["suit_order"] = self._frame.suit_order
        if self.info_state:
            info["information_state"] = information_state(self.game, seat)

    def step(self, action: int | None) -> None:
        try:
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):  # no episode to step: one line, not the bare lookup error
            raise self._no_episode("step") from None
        if dead:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = self.table.check_id(action)  # a string, None or an id out of range: one line saying so
        self._act(agent, action)

    def _act(self, agent: str, action: int) -> None:
        """``step`` for the live ``agent`` to act and an int ``action`` in range (what the standard wrapper has
        checked)."""
        core = self._core
        seat = core.step(action)
        if seat >= 0 and self._plain and self._game is None and not self._rewards_set:
            # The common decision: the hand goes on, nothing else to keep in step. What the general path
            # below does in that case, in the fewest attribute reads (an AEC loop makes this call per decision).
            self.num_steps += 1
            self._cumulative_rewards[agent] = 0.0
            self.infos[agent] = {"action_mask": self._no_actions}
            turn = self.agent_selection = self._turn = self.possible_agents[seat]
            self.infos[turn]["action_mask"] = core.mask.copy()
            return
        if seat == ILLEGAL:
            self._reject(action)
        if self._game is not None:  # somebody reads the reference state: keep it in step
            self._game.apply(core.last_action())
        self._frame = self._turn = None
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {"action_mask": self._no_actions}
        if self._rewards_set:  # rewards are instantaneous: clear the last hand's
            self._clear_rewards()
            self._rewards_set = False
        if seat < 0:  # the hand is over
            self._end_hand()
            self._accumulate_rewards()
            self._rewards_set = True
            if self.terminations[agent] or self.truncations[agent]:
                if self.render_mode == "human":
                    self.render()
                return
            self._next_hand()
        if self.max_steps is not None and self.num_steps >= self.max_steps:
            self._truncate("max_steps")
        else:
            self._select(core.current_player if seat < 0 else seat)  # after a hand's end: the next hand's first
        if self.render_mode == "human":
            self.render()

    def _was_dead_step(self, action: None) -> None:
        """PettingZoo's ``AECEnv._was_dead_step`` (a finished agent steps out), in fewer operations: each agent
        makes this step once per episode, four a one-hand episode, a sixth of a hand's env time in PettingZoo's
        version. Same effects in the same order; tests/envs/test_env_api.py compares the two."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        terminations, truncations = self.terminations, self.truncations
        assert terminations[agent] or truncations[agent], "an agent that was not dead as attempted to be removed"
        del terminations[agent], truncations[agent], self.rewards[agent], self._cumulative_rewards[agent]
        del self.infos[agent]
        self.agents.remove(agent)
        for other in self.agents:  # the next dead agent, else back to the live one it stood in for
            if terminations[other] or truncations[other]:
                if getattr(self, "_skip_agent_selection", None) is None:
                    self._skip_agent_selection = agent
                self.agent_selection = other
                break
        else:
            skipped = getattr(self, "_skip_agent_selection", None)
            if skipped is not None:
                self.agent_selection = skipped
            self._skip_agent_selection = None
        rewards = self.rewards  # AECEnv._clear_rewards: in place
        for other in rewards:
            rewards[other] = 0

    def _reject(self, action: int) -> None:
        """Raise the reference engine's ValueError for an illegal ``action`` (it names the legal ones)."""
        self.table.check_id(action)  # out of range: says so
        state = self._core.replay(self._rng)  # a throwaway copy: not even its caches change
        if self._frame is not None:
            self._legal_absolute(action, state)
        else:
            state.apply(action)
        raise RuntimeError(f"the compiled core refused action {action}, which the reference engine allows: "
                           "please report this bug with the seed")

    def _next_hand(self) -> None:
        core = self._core
        core.next_hand_shuffled(shuffled_pack(self.rules, self._rng))
        if self._game is not None:
            self._game.next_hand(core.current_deal())

    def _end_hand(self) -> None:
        core = self._core
        result = core.hand_result
        ending = episodes.hand_ending(core, self.episode, self.max_hands)
        team_rewards = [episodes.hand_end_reward(core, team, self.reward_mode, ending) for team in (0, 1)]
        for agent in self.agents:
            self.rewards[agent] = team_rewards[team_of(self.agent_name_mapping[agent])]
            self.infos[agent]["hand_result"] = dict(result)
            self.infos[agent]["scores"] = list(result["scores"])
        if ending == episodes.TERMINATED:
            self.terminations = dict.fromkeys(self.agents, True)
        elif ending is not None:
            self._truncate(ending)  # the hand stays on the table: no next deal

    def _truncate(self, limit: str) -> None:
        self.truncations = dict.fromkeys(self.agents, True)
        for agent in self.agents:
            self.infos[agent][episodes.TRUNCATED] = limit

    def _no_episode(self, call: str) -> RuntimeError:
        """What ``call`` meets with no episode to act in: before the first ``reset()``, or after every agent has
        stepped out of a finished one."""
        if not self._started:
            return RuntimeError(f"{call}() before reset(): call reset() first")
        return RuntimeError(f"{call}() after the episode ended (every agent has stepped out): call reset()")

    # ---------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        """The table as ``render_seat`` sees it (``"table"``: no hand until it is over; ``"all"``: every hand; a
        seat: its own): ``"ansi"`` returns the text, ``"human"``
        prints it, ``"rgb_array"`` returns a (480, 640, 3) uint8 picture (``euchre_env.views.picture``)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi', 'human' or "
                                  "'rgb_array'")
            return None
        if not self._started:
            raise ValueError("render() before reset()")
        if self.render_mode == "rgb_array":
            return table_picture(self.game, self.render_seat)
        text = render_text(self.game, self.render_seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

