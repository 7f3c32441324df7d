"""``VectorEuchre``: thousands of games stepped at once, with the env's observations and masks as arrays.

    from euchre_env.envs.vector import VectorEuchre
    venv = VectorEuchre("knock", num_envs=4096, seed=0, observation="structured")
    obs, mask, seat = venv.reset()
    while training:
        actions = policy(obs, mask)                       # [num_envs] ids, one per game's seat to act
        obs, mask, seat, rewards, done, info = venv.step(actions)

- ``obs``: ``float32 [num_envs, obs_size]``, the observation of the seat to act in each game, exactly as
  ``euchre_env.env`` with the same ``observation`` option shows it (``"absolute"``, the default as in the
  env, or ``"structured"``; ``"none"`` gives ``[num_envs, 0]`` and skips the encoding); ``mask``:
  ``bool [num_envs, num_actions]``; ``seat``: ``int64 [num_envs]``.
  With ``observation="structured"`` the mask and the ids ``step`` takes are in the canonical frame of the
  seat to act, as in the env (``info_frames()`` names each game's frame).
- ``rewards``: ``float32 [num_envs, 4]``, each seat's reward from this step: when a hand ends every seat
  gets its team's points minus the other team's (``reward="points"``), or with ``reward="win"`` +1 / -1
  when the game ends (as the env).
- ``done``: ``bool [num_envs]``, the episode ended at this step (``episode="hand"``, the default: every
  hand; ``"game"``: the game or rubber is decided, or ``max_hands`` cut it). Such a game is reset at once
  (a new deal, a new dealer, scores 0) and ``obs`` / ``mask`` / ``seat`` are already those of the new
  episode; the last observation of each of its four seats is in ``info["final_observation"]``.
- ``info``: ``"hand_over"`` (``bool [num_envs]``, a hand ended), ``"hand_result"`` (game index -> the
  env's ``hand_result`` dict, built when read), ``"truncated"`` (``bool [num_envs]``, cut by
  ``max_hands``), ``"final_index"`` (``int64 [k]``, the games that ended) and ``"final_observation"``
  (``float32 [k, 4, obs_size]``, their seats' last observations, seat order).

Scripted deals: ``reset(options={"deals": [deal, ...]})``, one deal per game in the format of the env's
``options["deal"]``, checked by the same code with the same messages (prefixed by the game index).
``current_deal(g)`` gives the deal of game ``g``'s current hand in that format.

An illegal action in any game raises ValueError naming the game, its action and the legal ones, and no
game changes. Every preset and rules option is supported (keywords as ``euchre_env.env``).

``threads=1`` (the default) steps every game on the caller's thread; ``threads=None`` (all cores) or ``N``
cuts every batch into that many slices of games, run at once on Python threads (the kernels release the GIL;
:func:`euchre_env.compiled.native.run_slices`): the same games, observations and rewards as on one thread, and
a process that used them can still ``fork``.

The rules are the reference engine's, ported to C in :mod:`euchre_env.compiled` (the batch kernels of
``compiled/c/core.c``, built when the package is installed) and proven equal to the engine and its observers by
tests/differential/test_vector_euchre_vs_engine.py. :attr:`VectorEuchre.engine` hands the live state, tables and
buffers to compiled readers and drivers of the games (one :class:`Engine`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from euchre_env.compiled import layout as K
from euchre_env.compiled.batch import core
from euchre_env.compiled.layout import DealBuffers, Episodes, GameArrays, Tables
from euchre_env.compiled.native import default_threads, run_slices
from euchre_env.compiled.seeding import reseed
from euchre_env.compiled.tables import KernelTables, hand_result, kernel_tables
from euchre_env.envs.episodes import AUTO, REWARDS, check_episode_args, check_reset_options
from euchre_env.game.actions import action_table
from euchre_env.game.cards import SUITS
from euchre_env.game.deals import parse_deal, scripted_deal
from euchre_env.game.errors import IllegalActionError, check_choice
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules, resolve_rules
from euchre_env.game.seats import NUM_SEATS
from euchre_env.views.structured import OBSERVATIONS, make_observer, suit_frames

VECTOR_EPISODE = "hand"  # short episodes by default, as the single-seat training view
RESET_OPTIONS = ("deals",)
VECTOR_OBSERVATIONS = (*OBSERVATIONS, "none")  # "none": masks and seats only, for search and engine-speed users


# The most games one env steps: a million (2**20) hold about 3.5 GB of structured observations; more is a typo
# rather than a batch (issue 54: every count a user types has a range).
MAX_NUM_ENVS = 1 << 20
# The most threads a batch is cut into: each is a thread of the pool (native.run_slices), so 10**9 would start
# threads until the process failed; 256 is far above this project's machines.
MAX_THREADS = 256


@dataclass(frozen=True)
class Engine:
    """A vector env's games as compiled code reads and drives them (:attr:`VectorEuchre.engine`).

    ``arrays`` and the buffers are the live ones, not copies: they change with every step and are read-only (writing
    to them corrupts the games), except to a compiled driver that plays the games with the engine's own kernels
    (the single-seat whole step, :mod:`euchre_env.envs.whole_step`): it must leave each game as
    :meth:`VectorEuchre.step_games` would, and a hand that ends as the env's ends of hands leave it (``engine.h``'s
    ``hand_outcome``, ``stream_uniforms`` then ``deal_on``, as ``compiled._core.Batch.deal_on_games`` does)."""

    arrays: GameArrays  # the games' state (layout: euchre_env.compiled.layout)
    tables: Tables  # the tables of the env's rules and observation, as the kernels take them
    kernel_tables: KernelTables  # the same with their sizes and maps (raw_size, to_canonical, ...)
    obs: np.ndarray  # float32 [num_envs, obs_size]: the step's observations
    mask: np.ndarray  # bool [num_envs, num_actions]: the step's masks
    deals: DealBuffers  # the pack, each game's deal scratch and its stream of uniforms
    episodes: Episodes  # the env's episode, reward and observation options, as numbers
    batch: Any  # compiled._core.Batch: the batch kernels over the arrays, tables, deals and episodes above
    slices: int  # the slices (threads) the env runs a batch in


class VectorEuchre:
    """``num_envs`` games of Euchre under one rule set, stepped together; see the module docstring."""

    def __init__(
        self,
        rules: str | Rules = "knock",
        num_envs: int = 1,
        seed: int | None = None,
        observation: str = "absolute",
        episode: str = VECTOR_EPISODE,
        reward: str = "points",
        max_hands: int | str | None = AUTO,
        copy: bool = True,
        threads: int | None = 1,
        **options: Any,
    ) -> None:
        self.rules = resolve_rules(rules, options, type(self))
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                    or not 1 <= threads <= MAX_THREADS):
            raise ValueError(f"'threads' must be an int from 1 to {MAX_THREADS} or None (every core), got {threads!r}")
        self.threads = threads
        # the slices of games a batch is cut into, each a call on its own thread (native.run_slices)
        self.slices = 1 if threads == 1 else threads or default_threads()
        if (isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer))
                or not 1 <= num_envs <= MAX_NUM_ENVS):
            raise ValueError(f"'num_envs' must be an int from 1 to {MAX_NUM_ENVS:,}, got {num_envs!r}")
        check_choice("observation", observation, VECTOR_OBSERVATIONS)
        check_choice("reward", reward, REWARDS)
        self.max_hands = check_episode_args(self.rules, episode, reward, None, max_hands)
        self.num_envs = int(num_envs)
        self.observation = observation
        self.episode = episode
        self.reward_mode = reward
        self.copy = bool(copy)
        self.table = action_table(self.rules)
        self.observer = make_observer(self.rules, "structured" if observation == "structured" else "absolute")
        self.obs_size = 0 if observation == "none" else self.observer.size
        self.num_actions = len(self.table)
        self._tables = kernel_tables(self.rules, observation)
        self._pack = np.asarray(self.rules.deck_spec.pack, np.int16)
        self._rng = np.random.default_rng(seed)
        n, r = self.num_envs, self.rules
        self._st = np.zeros((n, K.NF), np.int32)
        self._every_seat = np.ones((n, NUM_SEATS), np.bool_)  # step(): the final observations of all four seats
        self._hands = np.zeros((n, NUM_SEATS, r.deck_spec.num_ids), np.int8)
        self._dealt = np.zeros_like(self._hands)
        self._tc = np.zeros((n, r.tricks_per_hand, NUM_SEATS), np.int8)
        self._ts = np.zeros_like(self._tc)
        self._calls = np.full((n, self._tables.rounds, NUM_SEATS), -1, np.int16)
        self._obs = np.zeros((n, self.obs_size), np.float32)
        self._mask = np.zeros((n, self.num_actions), np.bool_)
        extra = r.is_bid and r.joker  # Bid Euchre with the joker: the dealer takes the 25th card
        self._order = np.zeros((n, len(self._pack)), np.int16)  # each game's shuffled pack (scratch)
        self._deal = np.zeros((n, NUM_SEATS, r.hand_size + extra), np.int16)  # each game's deal (scratch)
        self._streams = np.zeros(n, np.uint64)  # each game's stream of uniforms for its next deals (splitmix64)
        # The kernels' arguments, bundled once (the arrays above are never replaced, except _obs: swap_observations,
        # which is why the observations and masks go with each call).
        self._arrays = GameArrays(self._st, self._hands, self._dealt, self._tc, self._ts, self._calls)
        self._k = self._tables.kernel
        self._deals = DealBuffers(self._pack, self._order, self._deal, self._streams)
        self._episodes = Episodes(episode == "hand", int(self.max_hands or 0), reward == "win", observation != "none")
        # the C kernels over them: their views taken once, each step parses only its own arguments
        self._batch = core.Batch(self._arrays, self._k, self._deals, self._episodes)
        self._started = False

    # ------------------------------------------------------------------ public API
    @property
    def observation_layout(self) -> dict[str, tuple[int, int]]:
        """Block name -> (offset, size) in each observation row (the env's ``observation_layout``; empty for "none")."""
        return dict(self.observer.layout) if self.obs_size else {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new episode in every game: ``(obs, mask, seat)``. ``seed`` reseeds the deals."""
        deals = self._check_reset_options(options)  # everything is checked before anything changes
        if seed is not None:
            self._rng = reseed(self._rng, seed)  # default_rng(seed)'s state, set in place (compiled/seeding.py)
        everyone = np.arange(self.num_envs)
        st = self._st
        st[:] = 0
        st[:, K.WINNER] = -1
        if deals is None:
            st[:, K.DEALER] = self._rng.integers(NUM_SEATS, size=self.num_envs)
            cards, upcards = self._random_deals(st[:, K.DEALER])
        else:
            st[:, K.DEALER] = [d["dealer"] for d in deals]
            cards, upcards = self._deal_arrays(deals)
        self._streams[:] = self._rng.bit_generator.random_raw(self.num_envs)  # the deals after these
        self._start(everyone, cards, upcards)
        self._started = True
        self._observe(everyone)
        return self._out(self._obs), self._out(self._mask), st[:, K.CUR].astype(np.int64)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Apply one action per game (for its seat to act); see the module docstring for what comes back."""
        if not self._started:
            raise ValueError("step() before reset()")
        actions = self.check_actions(actions)
        ended = np.zeros(self.num_envs, np.bool_)
        run_slices(self._batch.step_all, self.num_envs, self.slices, actions, ended, self._obs, self._mask,
                   self._episodes.with_obs)
        return self._after_step(np.flatnonzero(ended), self._every_seat)

    def _after_step(self, finished: np.ndarray, final_seats: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """What a step returns once the games ``finished`` (int64, ascending) ended their hands at it, with the
        final observations of the seats ``final_seats`` (``bool [num_envs, 4]``) marks."""
        rewards = np.zeros((self.num_envs, NUM_SEATS), np.float32)
        done = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        hand_over = np.zeros(self.num_envs, np.bool_)
        hand_over[finished] = True
        info: dict[str, Any] = {"hand_over": hand_over, "truncated": truncated}
        if finished.size:
            self._end_hands(finished, rewards, done, truncated, info, final_seats)
        else:
            info["hand_result"] = _HandResults(self, finished)
            info["final_index"] = finished
            info["final_observation"] = np.zeros((0, NUM_SEATS, self.obs_size), np.float32)
        return (self._out(self._obs), self._out(self._mask), self._st[:, K.CUR].astype(np.int64), rewards, done,
                info)

    def sample_legal(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """``int64 [num_envs]``: a uniformly random legal action per game, for its seat to act now (in the ids
        ``step`` takes), drawn from ``rng`` (default: the env's own generator, seeded by ``seed``).

        The random policy of a loop, compiled: about 0.1 µs a game where a numpy expression over the masks
        costs several times more (docs/vector.md)."""
        if not self._started:
            raise ValueError("sample_legal() before reset()")
        out = np.empty(self.num_envs, np.int64)
        u = (self._rng if rng is None else rng).random(self.num_envs)
        run_slices(core.random_actions, self.num_envs, self.slices, self._mask, u, out)
        return out

    def step_games(self, games: Any, actions: Any, observe: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """:meth:`step` for the games ``games`` alone (ascending indices; ``actions[i]`` for ``games[i]``), for a
        driver that routes the seats itself (:class:`~euchre_env.envs.single_seat_vector.SingleSeatVectorEnv`).

        After the step a game (its next hand's first decision too, where its hand ended) is observed only if
        ``observe[g, seat]`` (``bool [num_envs, 4]``) marks its seat to act; any other seat's ``mask`` row is its
        legal actions in absolute ids (``info_frames()`` and the conversions then use the identity frame) and its
        ``obs`` row is left as it was. What comes back is
        :meth:`step`'s, over every game (zeros, ``False`` and no hand result for the games not stepped), except
        that ``info["final_observation"]`` holds the seats ``observe`` marks (zeros for the others)."""
        if not self._started:
            raise ValueError("step_games() before reset()")
        games = np.asarray(games)
        if games.ndim != 1 or not np.issubdtype(games.dtype, np.integer) or games.dtype == np.bool_:
            raise ValueError(f"games must be a 1-d array of game indices, got shape {games.shape} of {games.dtype}")
        games = np.ascontiguousarray(games, np.int64)
        if games.size and (games.min() < 0 or games.max() >= self.num_envs
                           or (games.size > 1 and not (np.diff(games) > 0).all())):
            raise ValueError(f"games must be ascending distinct indices in 0..{self.num_envs - 1}")
        a = np.asarray(actions)
        if a.shape != games.shape or not (np.issubdtype(a.dtype, np.integer) and a.dtype != np.bool_):
            raise ValueError(f"actions must be {games.size} integer action ids (one per game stepped), got an array "
                             f"of shape {a.shape} and dtype {a.dtype}")
        a = np.ascontiguousarray(a, np.int64)
        observe = np.ascontiguousarray(observe, np.bool_)
        if observe.shape != (self.num_envs, NUM_SEATS):
            raise ValueError(f"observe must be a bool array of shape ({self.num_envs}, {NUM_SEATS}), got "
                             f"{observe.shape}")
        i = core.first_illegal(self._mask[games], a)
        if i >= 0:
            self._raise_illegal(int(games[i]), int(a[i]))
        ended = np.zeros(games.size, np.bool_)
        run_slices(self._batch.step_games, games.size, self.slices, games, a, ended, observe, self._obs, self._mask,
                   self._episodes.with_obs)
        return self._after_step(games[ended], observe)

    def seats(self) -> np.ndarray:
        """``int64 [num_envs]``: the seat to act in each game."""
        return self._st[:, K.CUR].astype(np.int64)

    def masks(self) -> np.ndarray:
        """The masks of the last step (the env's own buffer: read it, do not keep it)."""
        return self._mask

    def observations(self) -> np.ndarray:
        """The observations of the last step (the env's own buffer: read it, do not keep it)."""
        return self._obs

    def swap_observations(self, buffer: np.ndarray) -> np.ndarray:
        """Make ``buffer`` (``float32 [num_envs, obs_size]``, C order) the env's observation buffer and return the
        one it replaces. A driver that observes every game at every step (``SingleSeatVectorEnv``) hands each step
        a new buffer and returns the written one to its caller as it is, instead of copying it out: the rows no
        step writes keep whatever ``buffer`` held."""
        if buffer.shape != self._obs.shape or buffer.dtype != np.float32 or not buffer.flags.c_contiguous:
            raise ValueError(f"an observation buffer must be a C-ordered float32 array of shape {self._obs.shape}, "
                             f"got {buffer.dtype} {buffer.shape}")
        old, self._obs = self._obs, buffer
        return old

    def current_deal(self, g: int) -> dict[str, Any]:
        """The deal of game ``g``'s current hand, as the env's ``options["deal"]`` takes it."""
        deck = self.rules.deck_spec
        hands = [[c for c in range(deck.num_ids) for _ in range(int(self._dealt[g, s, c]))] for s in range(NUM_SEATS)]
        return scripted_deal(int(self._st[g, K.DEALER]), hands, None if self.rules.is_bid else int(self._st[g, K.UP]))

    def to_absolute(self, actions: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        """The absolute ids (the action table's) of one id per game as ``step`` takes them now; with ``games``,
        ``actions[i]`` is game ``games[i]``'s (as ``step_games`` takes them)."""
        frames = self._st[:, K.FRAME] if games is None else self._st[games, K.FRAME]
        return self._tables.to_abs[frames, actions]

    def to_canonical(self, g: int, action: int) -> int:
        """The id ``step`` takes now in game ``g`` for the absolute id ``action`` (itself when not structured)."""
        return int(self._tables.to_canonical[self._st[g, K.FRAME], action])

    def to_canonical_batch(self, games: Any, actions: np.ndarray) -> np.ndarray:
        """:meth:`to_canonical` of ``actions[i]`` in game ``games[i]`` for each ``i``."""
        return self._tables.to_canonical[self._st[games, K.FRAME], actions]

    def card_frames(self, games: np.ndarray | None = None) -> np.ndarray:
        """``int64 [num_envs, n]``: each card id in the suit frame of each game's decision (identity if absolute);
        the rows of ``games`` only when given."""
        frames = self._st[:, K.FRAME] if games is None else self._st[games, K.FRAME]
        return self._tables.card_to_canonical[frames]

    def hidden_cards(self, games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Everything no seat sees whole, for centralised critics: ``hands [num_envs, 4, n]`` (copies of each
        card in each hand now), ``kitty [num_envs, n]`` (the undealt cards) and ``discard [num_envs]`` (the
        dealer's discard, -1: none), all in absolute card ids; the rows of ``games`` only when given."""
        every = slice(None) if games is None else games
        copies = self.rules.deck_spec.copies
        kitty = copies - self._dealt[every].sum(1, dtype=np.int64)
        up = self._st[every, K.UP]
        rows = np.flatnonzero(up >= 0)
        kitty[rows, up[rows]] -= 1
        return self._hands[every].copy(), kitty, self._st[every, K.DISC].astype(np.int64)

    def info_frames(self) -> list[str]:
        """The canonical suit order of each game's decision (``"CDHS"`` for every game when absolute)."""
        if self.observation != "structured":
            return [SUITS] * self.num_envs
        frames = suit_frames(self.rules)
        return [frames[f].suit_order if f < len(frames) else SUITS for f in self._st[:, K.FRAME]]  # identity: SUITS

    def scores(self) -> np.ndarray:
        """``int [num_envs, 2]``: each game's score (team 0, team 1)."""
        return self._st[:, K.SC:K.SC + 2].copy()

    @property
    def engine(self) -> Engine:
        """The games as compiled code reads and drives them: the live state, the tables, the step's buffers and the
        deal buffers, in one :class:`Engine` (see there what may be written)."""
        return Engine(self._arrays, self._k, self._tables, self._obs, self._mask, self._deals, self._episodes,
                      self._batch, self.slices)

    # ------------------------------------------------------------------ checks
    def _check_reset_options(self, options: Any) -> list[dict[str, Any]] | None:
        deals = check_reset_options(options, RESET_OPTIONS).get("deals")
        if deals is None:
            return None
        if not isinstance(deals, (list, tuple)) or len(deals) != self.num_envs:
            got = f"{len(deals)} deals" if isinstance(deals, (list, tuple)) else repr(deals)
            raise ValueError(f"reset option 'deals' must be a list of {self.num_envs} deals (one per game), got {got}")
        parsed, seen = [], {}  # a deal given for several games (a search's copies of one world) is parsed once
        for g, deal in enumerate(deals):
            if id(deal) not in seen:
                try:
                    seen[id(deal)] = parse_deal(self.rules, deal)
                except ValueError as e:
                    raise ValueError(f"deals[{g}]: {e}") from None
            parsed.append(seen[id(deal)])
        return parsed

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as ``int64 [num_envs]``, one legal id per game for its seat to act; else ValueError (an
        :class:`IllegalActionError` naming the first game with an illegal action) and no game changed."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not (np.issubdtype(a.dtype, np.integer) and a.dtype != np.bool_):
            raise ValueError(f"actions must be {self.num_envs} integer action ids (one per game), got an array of "
                             f"shape {a.shape} and dtype {a.dtype}")
        a = np.ascontiguousarray(a, np.int64)
        g = core.first_illegal(self._mask, a)
        if g >= 0:
            self._raise_illegal(g, int(a[g]))
        return a

    def _raise_illegal(self, g: int, action: int) -> None:
        legal = np.flatnonzero(self._mask[g]).tolist()
        framed = self.observation == "structured" and self._st[g, K.FRAME] != self._tables.identity_frame
        frame = f" (canonical frame {self.info_frames()[g]})" if framed else ""
        what = (f"{self.table.describe(int(self._tables.to_abs[self._st[g, K.FRAME], action]))}"
                if 0 <= action < self.num_actions else f"{action}, out of range 0..{self.num_actions - 1}")
        seat, phase = int(self._st[g, K.CUR]), Phase(int(self._st[g, K.PH])).name
        raise IllegalActionError(f"illegal action in game {g}: {what}{frame} for seat {seat} in phase {phase}; "
                                 f"legal ids: {legal}; no game was changed")

    # ------------------------------------------------------------------ internals
    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _observe(self, games: np.ndarray) -> None:
        """The observation and mask of ``games`` (the others' are already written by the step)."""
        games = np.ascontiguousarray(games, np.int64)
        run_slices(self._batch.observe_games, games.size, self.slices, games, self._obs, self._mask,
                   self._episodes.with_obs)

    def _random_deals(self, dealers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Shuffled deals (``deals.random_deal``'s layout: blocks from the dealer's left, then the up-card)."""
        r = self.rules
        k = len(dealers)
        extra = r.is_bid and r.joker  # Bid Euchre with the joker: the dealer takes the 25th card
        cards = np.full((k, NUM_SEATS, r.hand_size + extra), -1, np.int16)
        upcards = np.empty(k, np.int32)
        core.shuffled_deals(self._rng.random((k, len(self._pack))), self._pack, dealers.astype(np.int64),
                            r.hand_size, extra, r.is_bid, cards, upcards)
        return cards, upcards

    def _deal_arrays(self, deals: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        width = max(len(h) for d in deals for h in d["hands"])
        cards = np.full((len(deals), NUM_SEATS, width), -1, np.int16)
        for g, d in enumerate(deals):
            for s, hand in enumerate(d["hands"]):
                cards[g, s, :len(hand)] = hand
        upcards = np.array([d.get("upcard", -1) for d in deals], np.int32)
        return cards, upcards

    def _start(self, games: np.ndarray, cards: np.ndarray, upcards: np.ndarray) -> None:
        run_slices(self._batch.start_hands, games.size, self.slices, games.astype(np.int64), cards, upcards)

    def _end_hands(self, games: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray,
                   info: dict, final_seats: np.ndarray) -> None:
        """The hands of ``games`` ended: rewards, episode ends, the final observations of the seats
        ``final_seats[g]`` marks (zeros for the others), then every one deals on (the next hand, or a new game, its
        first seat to act observed if ``final_seats`` marks it): the rewards and episode ends in one compiled pass
        over the games in order (``Batch.hand_ends``: the final observations' slots count the episodes ended
        before), then the final observations and the next deals in slices (``Batch.deal_on_games``)."""
        info["hand_result"] = _HandResults(self, games)  # snapshots the results before the next deal
        k = games.size
        slot = np.empty(k, np.int64)
        final = np.zeros((k, NUM_SEATS, self.obs_size), np.float32)  # calloc: untouched rows cost nothing
        games = np.ascontiguousarray(games, np.int64)
        self._batch.hand_ends(games, rewards, done, truncated, slot)
        run_slices(self._batch.deal_on_games, k, self.slices, games, slot, final, final_seats, self._obs, self._mask)
        ended = slot >= 0
        info["final_index"] = games[ended]
        info["final_observation"] = final[:int(ended.sum())]


class _HandResults(Mapping):
    """Game index -> the env's ``hand_result`` dict of the hand it finished at this step (built when read)."""

    def __init__(self, venv: VectorEuchre, games: np.ndarray) -> None:
        self._rules = venv.rules
        self._games = games.tolist()
        self._rows = venv._st[games]  # a copy: the games deal on at once
        self._where = None

    def __getitem__(self, g: int) -> dict[str, Any]:
        if self._where is None:
            self._where = {game: i for i, game in enumerate(self._games)}
        return hand_result(self._rules, self._rows[self._where[g]])

    def __iter__(self) -> Iterator[int]:
        return iter(self._games)

    def __len__(self) -> int:
        return len(self._games)

    def __repr__(self) -> str:
        return f"{{{', '.join(f'{g}: ...' for g in self._games)}}}"
