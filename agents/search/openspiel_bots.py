"""OpenSpiel's bots as our agents: ``openspiel:ismcts:N``, ``openspiel:mcts:N``, ``openspiel:mccfr:PATH``.

Each plays one seat through our agent protocol (``act(observation, info)`` with ``info["information_state"]``),
so it works wherever a spec does: ``euchre eval``, the ladder, ``play``, ``SingleSeatEnv``. It needs the
``openspiel`` extra. The bots search the single-hand game of the rules in use (``euchre_env.openspiel``):
their objective is the hand's team margin, as PIMC's is.

- ``ismcts:N``: OpenSpiel's information-set MCTS (``ISMCTSBot``) with ``N`` simulations and random rollouts.
  Each simulation starts from a world drawn uniformly from what the seat knows (the same sampler as PIMC's,
  :mod:`euchre_env.agents.search.worlds`), replayed through our engine to the decision.
- ``mcts:N``: OpenSpiel's (perfect-information) ``MCTSBot`` on one such world per decision ("determinized"
  MCTS): cheap, and weak where hidden cards matter; a baseline.
- ``mccfr:PATH``: a tabular average policy saved by ``examples/openspiel_mccfr.py`` (:func:`save_mccfr_policy`:
  {information-state string: [probability of each legal action, in ascending id order]}, the layout of
  OpenSpiel's MCCFR tables, and the rules it was trained on); an information state the policy never met is
  played uniformly at random among the legal actions.

**The policy file** is an ``.npz`` of plain arrays, read with ``np.load(allow_pickle=False)``: nothing in it
can run code. ``meta`` is a JSON string (format, version, rules, number of states); ``keys`` the UTF-8 bytes
of every information-state string one after another and ``key_ends`` where each ends; ``probs`` every
probability one after another and ``prob_ends`` where each state's list ends. A pickle (the earlier format) is
refused without being read.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from euchre_env.agents.base import require_information_state
from euchre_env.agents.search.worlds import World, WorldSampler
from euchre_env.game.deals import scripted_deal
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import partner_of
from euchre_env.views.infostate import InfoState, information_state

KINDS = ("ismcts", "mcts", "mccfr")
POLICY_FORMAT = "euchre-env-mccfr-policy"
POLICY_VERSION = 1
POLICY_EXPECTED = ("an MCCFR policy is an .npz of plain arrays that examples/openspiel_mccfr.py writes; regenerate "
                   "it with: python examples/openspiel_mccfr.py --rules PRESET --out POLICY.npz")
MAX_RESAMPLES = 400  # a drawn world the replay refuses (a help exchange the give-back rule forbids) is drawn again


def check_openspiel_spec(text: str) -> tuple[str, int | str]:
    """``openspiel:KIND:ARG`` -> (kind, simulations or path); one ValueError line if malformed. Builds nothing."""
    parts = text.split(":", 2)
    if len(parts) != 3 or parts[1] not in KINDS:
        raise ValueError(f"agent spec {text!r}: write openspiel:ismcts:N, openspiel:mcts:N or openspiel:mccfr:PATH")
    kind, arg = parts[1], parts[2].strip()
    if kind == "mccfr":
        if not os.path.isfile(arg):
            raise ValueError(f"agent spec {text!r}: no MCCFR policy file at {arg!r}")
        return kind, arg
    if not arg.isdigit() or int(arg) < 1:
        raise ValueError(f"agent spec {text!r}: simulations must be an integer of at least 1, got {arg!r}")
    return kind, int(arg)


def save_mccfr_policy(path: str, rules: Rules, policy: dict[str, list[float]]) -> None:
    """Write ``policy`` ({information-state string: probabilities of the legal actions, ascending ids}) trained on
    ``rules`` to ``path`` as the module docstring's ``.npz``, atomically: an interrupted write leaves the previous
    file."""
    keys = [key.encode() for key in policy]
    lists = list(policy.values())
    meta = {"format": POLICY_FORMAT, "version": POLICY_VERSION, "rules": rules.to_dict(), "states": len(policy)}
    arrays = {
        "meta": np.array(json.dumps(meta)),
        "keys": np.frombuffer(b"".join(keys), dtype=np.uint8),
        "key_ends": np.cumsum([len(k) for k in keys], dtype=np.int64),
        "probs": np.array([p for probs in lists for p in probs], dtype=np.float64),
        "prob_ends": np.cumsum([len(probs) for probs in lists], dtype=np.int64),
    }
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:  # a file object: numpy appends no ".npz" to the name given
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


class MCCFRPolicyError(ValueError):
    """An MCCFR policy file that cannot be played: missing, damaged, foreign or a pickle (one line)."""


def _policy_problem(path: str, what: str) -> MCCFRPolicyError:
    """The one line for a policy file that cannot be played: ``what`` was wrong, and what is expected."""
    return MCCFRPolicyError(f"{path!r} {what}; {POLICY_EXPECTED}")


def _ends(data: Any, name: str, length: int, states: int) -> np.ndarray:
    """The ``*_ends`` array ``name``: ``states`` non-decreasing integers from 0, the last ``length``."""
    ends = data[name]
    if ends.dtype.kind not in "iu" or ends.shape != (states,) or (states and ends[-1] != length) or \
            (np.diff(ends, prepend=0) < 0).any():
        raise ValueError(f"{name!r} does not index the arrays it belongs to")
    return ends.astype(np.int64)


def load_mccfr_policy(path: str) -> tuple[Rules, dict[str, np.ndarray]]:
    """The rules and the policy saved by :func:`save_mccfr_policy` at ``path``; :class:`MCCFRPolicyError` (a
    ValueError) in one line for a file that is missing, damaged, foreign or of the old pickle format.

    Only ``np.load(allow_pickle=False)`` reads the file, so no byte of it can run code: an object array inside
    is refused by numpy before it is unpickled. A pickle (the earlier format, whose ``pickle.load`` would run
    whatever the file names) is recognised by its first byte and refused unread. Converting old files with a
    restricted unpickler was ruled out: it would still parse a stranger's pickle, to save re-running a
    one-minute example.
    """
    try:
        with open(path, "rb") as f:
            if not zipfile.is_zipfile(f):
                f.seek(0)
                # Protocols 2 and above (what pickle.dump has written since Python 3.0) open with PROTO, 0x80.
                if f.read(1) == b"\x80":
                    raise _policy_problem(path, "is a pickle (the old MCCFR policy format), which can run code "
                                                "when read: refused unread, nothing was run")
                raise _policy_problem(path, "is not an MCCFR policy file (not an .npz archive)")
            f.seek(0)
            with np.load(f, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if not isinstance(meta, dict) or meta.get("format") != POLICY_FORMAT:
                    raise _policy_problem(path, f"is not an MCCFR policy file (no format tag {POLICY_FORMAT!r})")
                if meta.get("version") != POLICY_VERSION:
                    raise _policy_problem(path, f"has MCCFR policy version {str(meta.get('version'))[:20]}; this "
                                                f"code reads {POLICY_VERSION}")
                keys, probs = data["keys"], data["probs"]
                states = meta.get("states")
                if not isinstance(states, int) or keys.dtype != np.uint8 or keys.ndim != 1 or \
                        probs.dtype.kind != "f" or probs.ndim != 1:
                    raise ValueError("its arrays are not those of an MCCFR policy")
                key_ends = _ends(data, "key_ends", len(keys), states)
                prob_ends = _ends(data, "prob_ends", len(probs), states)
                if not np.isfinite(probs).all() or (probs < 0).any():
                    raise ValueError("a probability is negative or not finite")
                raw = keys.tobytes()
                starts = np.concatenate([[0], key_ends[:-1]]).astype(np.int64)
                strings = [raw[a:b].decode() for a, b in zip(starts.tolist(), key_ends.tolist())]
                policy = dict(zip(strings, np.split(probs.astype(np.float64), prob_ends[:-1])))
                rules = Rules.from_dict(meta.get("rules"))
    except MCCFRPolicyError:
        raise
    except FileNotFoundError:
        raise _policy_problem(path, "does not exist") from None
    except ValueError as exc:
        if "allow_pickle" in str(exc):  # numpy's refusal of an object array, made before unpickling it
            raise _policy_problem(path, "holds a pickled object array, which can run code when read: refused, "
                                        "nothing was run") from None
        raise _policy_problem(path, f"is not a readable MCCFR policy file ({' '.join(str(exc).split())[:120]})") \
            from None
    except (OSError, KeyError, TypeError, AttributeError, zipfile.BadZipFile, EOFError) as exc:
        detail = " ".join(str(exc).split())[:120]
        raise _policy_problem(path, f"is not a readable MCCFR policy file ({type(exc).__name__}: {detail})") \
            from None
    return rules, policy


def _same_rules(a: Rules, b: Rules) -> bool:
    return a.replace(preset_name="") == b.replace(preset_name="")


def replay_world(info: InfoState, world: World, rng: np.random.Generator) -> GameState:
    """The hand of ``world`` (every seat's current cards) dealt and replayed to ``info``'s decision.

    The dealt hands are the current ones plus the cards each seat has played; the moves ``info`` does not
    show are chosen consistent with the world: the dealer's discard (a pile card, or the up-card when the
    world's dealer does not hold it) and a help exchange between two other seats. The engine checks every
    move, so a world that cannot have been reached raises ValueError.
    """
    rules = info.rules
    me, dealer = info.seat, info.dealer
    hands = [list(h) for h in world.hands]
    pile = list(world.pile)
    for seat, card in info.plays:
        hands[seat].append(card)
    discard = None
    # Bid Euchre's joker dealer discards before the auction: done once the phase has moved on.
    dealer_discarded = rules.is_bid and rules.joker and info.phase != Phase.DISCARD
    if info.upcard is not None and info.upcard_taken:
        if info.phase == Phase.DISCARD and me == dealer:
            hands[dealer].remove(info.upcard)  # not discarded yet: the dealt hand is the six less the up-card
        elif me == dealer:
            discard = info.discarded
            hands[dealer].append(discard)
            hands[dealer].remove(info.upcard)
        elif info.upcard in hands[dealer]:
            discard = pile[int(rng.integers(len(pile)))] if pile else info.upcard
            hands[dealer].append(discard)
            hands[dealer].remove(info.upcard)
        else:
            discard = info.upcard  # the world's dealer holds it nowhere: it was the discard
    elif rules.is_bid and rules.joker and dealer_discarded:
        discard = info.discarded if me == dealer else pile[int(rng.integers(len(pile)))]
        hands[dealer].append(discard)
    given = given_back = None
    if info.contract == "help" and info.phase in (Phase.GIVE_BACK, Phase.PLAY):
        bidder, partner = info.bidder, partner_of(info.bidder)
        if info.given is not None:  # one of the two: it saw the exchange
            given, given_back = info.given, info.given_back
        else:  # an exchange between two other seats: the partner (sitting out) still holds what it was given
            given, given_back = _draw_exchange(info, hands[bidder], hands[partner], rng)
        if given_back is not None:
            hands[bidder].remove(given_back)
            hands[partner].append(given_back)
        hands[partner].remove(given)
        hands[bidder].append(given)
    deal = scripted_deal(dealer, hands, info.upcard)
    state = GameState(rules, 0, deal=deal, scores=list(info.scores))
    state.games_won, state.rubber_points = list(info.games_won), list(info.rubber_points)
    hidden = {Phase.DISCARD: discard, Phase.GIVE: given, Phase.GIVE_BACK: given_back}
    t = state.table

    def flush() -> None:
        while state.phase in hidden and not (state.current == me and info.phase == state.phase):
            card = hidden[state.phase]
            base = t.discard_base if state.phase == Phase.DISCARD else t.give_base
            state.apply(base + card)

    for action in info.seen_moves(t.play_base):  # the hidden moves fall between the calls, before any card
        flush()
        state.apply(action)
    flush()
    if state.phase != info.phase or state.current != me:
        raise ValueError(f"replay reached {state.phase.name}/seat {state.current}, expected {info.phase.name}/{me}")
    return state


def sample_replayed_world(info: InfoState, sampler: WorldSampler, rng: np.random.Generator) -> GameState:
    """:func:`replay_world` of a world from ``sampler`` (built on ``info``), drawing again when the replay refuses
    one: the sampler infers nothing from moves, so in a help hand it may give the partner a better trump than
    the one it gave back, which the give-back rule forbids."""
    for _ in range(MAX_RESAMPLES):
        try:
            return replay_world(info, sampler.sample(rng), rng)
        except ValueError:
            continue
    raise RuntimeError(f"no world consistent with seat {info.seat}'s view could be replayed in {MAX_RESAMPLES} draws")


def _draw_exchange(info: InfoState, bidder_cards: list[int], partner_cards: list[int],
                   rng: np.random.Generator) -> tuple[int, int]:
    """A help exchange the give-back rule allows, for a world where the bidder holds ``bidder_cards`` (played
    ones included) and the partner ``partner_cards`` after it: the partner gave back its best trump."""
    deck = info.rules.deck_spec
    suits, power = deck.effective_suits(info.trump), deck.powers(info.trump)
    given = partner_cards[int(rng.integers(len(partner_cards)))]
    own = list(partner_cards)
    own.remove(given)
    best = max((power[c] for c in own if suits[c] == info.trump), default=None)
    # With a trump left, the card given back was a better trump; with none, any card was allowed.
    backs = [c for c in bidder_cards if best is None or (suits[c] == info.trump and power[c] > best)]
    if not backs:
        raise ValueError("no give-back fits this world")
    return given, backs[int(rng.integers(len(backs)))]


class OpenSpielAgent:
    """One OpenSpiel bot playing a seat (see the module docstring)."""

    needs_observation = False

    def __init__(self, kind: str, arg: int | str, seed: int | None = None, name: str | None = None) -> None:
        import pyspiel  # noqa: F401  here: the openspiel extra is only needed by these agents

        import euchre_env.openspiel  # noqa: F401  registers the games

        if kind not in KINDS:
            raise ValueError(f"OpenSpielAgent: kind must be one of {', '.join(KINDS)}, got {kind!r}")
        self.kind, self.arg = kind, arg
        self.name = name or f"openspiel:{kind}:{arg}"
        self._games: dict[Rules, Any] = {}
        self._policy: dict[str, np.ndarray] | None = None
        if kind == "mccfr":
            self._policy_rules, self._policy = load_mccfr_policy(arg)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed

    def check_rules(self, rules: Rules) -> None:
        """A saved MCCFR policy plays only the rules it was trained on."""
        if self._policy is not None and not _same_rules(rules, self._policy_rules):
            raise ValueError(f"{self.name}: the policy was trained on {self._policy_rules.preset_name} rules "
                             f"{self._policy_rules.to_dict()}, not these")

    # ------------------------------------------------------------------ helpers
    def _rng(self, info: InfoState) -> np.random.Generator:
        key = repr((info.seat, info.phase, info.dealer, info.hand, info.upcard, info.calls, info.tricks, info.trick,
                    info.scores))
        return np.random.default_rng([0 if self.seed is None else int(self.seed) & 0xFFFFFFFF,
                                      zlib.crc32(key.encode())])

    def _game(self, rules: Rules) -> Any:
        game = self._games.get(rules)
        if game is None:
            from euchre_env.openspiel import game_for_rules

            game = self._games[rules] = game_for_rules(rules)
        return game

    def _state(self, game: Any, engine: GameState) -> Any:
        state = game.new_initial_state()
        state.set_engine(engine)
        return state

    def _world_state(self, game: Any, info: InfoState, sampler: WorldSampler, rng: np.random.Generator) -> Any:
        return self._state(game, sample_replayed_world(info, sampler, rng))

    # ------------------------------------------------------------------ acting
    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state_info = require_information_state(info, type(self).__name__)
        legal = list(state_info.legal_actions)
        if not legal and info.get("action_mask") is not None:
            legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
        if not legal:
            raise ValueError(f"{self.name}.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return legal[0]
        rng = self._rng(state_info)
        game = self._game(state_info.rules)
        sampler = WorldSampler(state_info)
        root = self._world_state(game, state_info, sampler, rng)
        if self.kind == "mccfr":
            return self._mccfr_action(root, state_info.seat, legal, rng)
        if self.kind == "mcts":
            return int(self._mcts_bot(game, rng).step(root))
        bot = self._ismcts_bot(game, rng)
        bot.set_resampler(lambda state, player: self._world_state(game, state_info, sampler, rng))
        return int(bot.step(root))

    def _mccfr_action(self, root: Any, seat: int, legal: list[int], rng: np.random.Generator) -> int:
        probs = self._policy.get(root.information_state_string(seat))
        if probs is None or len(probs) != len(legal) or probs.sum() <= 0:
            return legal[int(rng.integers(len(legal)))]  # never met in training: uniform
        return legal[int(rng.choice(len(legal), p=probs / probs.sum()))]

    def _random_state(self, rng: np.random.Generator) -> np.random.RandomState:
        return np.random.RandomState(int(rng.integers(2**31)))

    def _ismcts_bot(self, game: Any, rng: np.random.Generator) -> Any:
        from open_spiel.python.algorithms import ismcts, mcts

        rs = self._random_state(rng)
        return ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=self.arg,
                                random_state=rs)

    def _mcts_bot(self, game: Any, rng: np.random.Generator) -> Any:
        from open_spiel.python.algorithms import mcts

        rs = self._random_state(rng)
        return mcts.MCTSBot(game, uct_c=2.0, max_simulations=self.arg, evaluator=mcts.RandomRolloutEvaluator(1, rs),
                            random_state=rs)


def resampler(rng: np.random.Generator | None = None) -> Callable[[Any, int], Any]:
    """A resampling function for OpenSpiel's ``ISMCTSBot.set_resampler``, for callers running the bot on
    ``euchre_env.openspiel`` games themselves: ``f(state, player)`` returns a state of the same game with a
    world drawn uniformly from ``player``'s view (the Python games provide no ``resample_from_infostate``:
    the sampler is an agent's helper, above the game's layer)."""
    rng = rng if rng is not None else np.random.default_rng()

    def resample(state: Any, player: int) -> Any:
        info = information_state(state.engine, player)
        new = state.get_game().new_initial_state()
        new.set_engine(sample_replayed_world(info, WorldSampler(info), rng))
        return new

    return resample


def information_string_for(info: InfoState, rng: np.random.Generator | None = None) -> str:
    """The OpenSpiel information-state string of ``info``'s seat (for looking up a saved policy)."""
    from euchre_env.openspiel import information_string

    rng = rng or np.random.default_rng(0)
    return information_string(sample_replayed_world(info, WorldSampler(info), rng), info.seat)


__all__ = ["KINDS", "MCCFRPolicyError", "OpenSpielAgent", "check_openspiel_spec", "information_string_for",
           "load_mccfr_policy", "replay_world", "resampler", "sample_replayed_world", "save_mccfr_policy"]
