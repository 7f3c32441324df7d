"""Agent specs on the command line and in configs: ``random``, ``rules``, ``pimc:50``, a checkpoint path (``.pt``),
the network-guided search over a checkpoint (``search:32:PATH.pt``, :mod:`euchre_env.agents.search.guided`),
the network anchored by double-dummy values (``anchored:32:PATH.pt``, :mod:`euchre_env.agents.search.anchored`),
the network's calls checked by its own rollouts (``calls:256:PATH.pt``, :mod:`euchre_env.agents.search.calls`),
the CFR bidding agent (``cfr:TABLES.npz``, :mod:`euchre_env.agents.search.cfr_bidding`), one agent's bidding with
another's card play (``split:BIDDER:PLAYER``, :mod:`euchre_env.agents.split`)
and OpenSpiel's bots (``openspiel:ismcts:1000``, ``openspiel:mcts:200``, ``openspiel:mccfr:PATH``; the
``openspiel`` extra, see :mod:`euchre_env.agents.search.openspiel_bots`).

A published checkpoint or CFR table goes by its file name alone wherever a ``.pt`` or ``.npz`` path is taken
(``knock.pt``, ``search:32:knock_150m.pt``, ``cfr:knock_cfr.npz``): the package ships them
(:mod:`euchre_env.published`), so these specs work without a clone. A file of that name in the current folder
wins.

:func:`check_spec` validates a spec without building anything (no agent, no checkpoint read,
no torch); :func:`make_agent` builds the agent. Both raise one self-contained line naming the
spec and what is allowed: :class:`~euchre_env.envs.agent_specs.UnknownAgentSpec` for a name no
agent has (so that the env's resolver chain can try the next resolver), ``ValueError`` for a
bad parameter or a missing checkpoint file. Callers print the message as it is.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from euchre_env import published
from euchre_env.envs.agent_specs import UnknownAgentSpec

# spec name -> (module, class, name of the integer parameter after the colon or None)
_AGENTS: dict[str, tuple[str, str, str | None]] = {
    "random": ("euchre_env.agents.random_agent", "RandomAgent", None),
    "rules": ("euchre_env.agents.rule_based.agent", "RuleBasedAgent", None),
    "pimc": ("euchre_env.agents.search.pimc", "PIMCAgent", "worlds"),
    "omniscient": ("euchre_env.agents.search.omniscient", "OmniscientAgent", None),
}
# The most worlds a search takes: far above any measured use (the call search's 256, an expert phase's 2,048), and
# below a count whose one decision takes minutes and whose sampled worlds fill memory (issue 54: pimc:1000000000
# grew 32 MB/s and never decided).
MAX_WORLDS = 100_000
CHECKPOINT_SUFFIX = ".pt"
OPENSPIEL_PREFIX = "openspiel:"  # OpenSpiel's bots: openspiel:KIND:ARG (two parameters, one maybe a path)
SEARCH_PREFIX = "search:"  # the network-guided search: search:[WORLDS:]CHECKPOINT.pt
ANCHORED_PREFIX = "anchored:"  # the network anchored by double-dummy values: anchored:[WORLDS:]CHECKPOINT.pt
CALLS_PREFIX = "calls:"  # the network's calls checked by its rollouts on belief worlds: calls:[WORLDS:]CHECKPOINT.pt
CFR_PREFIX = "cfr:"  # the CFR bidding agent: cfr:[WORLDS:]TABLES.npz (WORLDS: PIMC's, for the card play)
CFR_SUFFIX = ".npz"
SPLIT_PREFIX = "split:"  # a bidder and a card player: split:BIDDER:PLAYER (euchre_env.agents.split)

# The searches over a network, by the name before the colon of their spec (search:, anchored:, calls:) -> (module,
# class): the registry's specs and the trainer's expert.search (training/config.py) both read them here.
NETWORK_SEARCHES = {"search": ("euchre_env.agents.search.guided", "GuidedSearchAgent"),
                    "anchored": ("euchre_env.agents.search.anchored", "AnchoredSearchAgent"),
                    "calls": ("euchre_env.agents.search.calls", "CallSearchAgent")}


# Agents that see the cards a seat may not (every hand): a ceiling for analysis, never a player. They are listed
# apart, and a table where a person plays refuses them unless asked (cli/play.py: --allow-cheating).
SEES_HIDDEN_CARDS = ("omniscient",)


def agent_names() -> list[str]:
    """The agent names a spec may start with (a checkpoint path is the other kind of spec), the players first and
    the agents that see hidden cards last."""
    return sorted(set(_AGENTS) - set(SEES_HIDDEN_CARDS)) + sorted(SEES_HIDDEN_CARDS)


def sees_hidden_cards(spec: str) -> bool:
    """Whether the agent of ``spec`` (or either half of a ``split:`` spec) sees cards its seat may not."""
    text = str(spec).strip()
    if text.startswith("split:"):
        from euchre_env.agents.split import split_halves

        return any(sees_hidden_cards(half) for half in split_halves(text))
    return text.partition(":")[0] in SEES_HIDDEN_CARDS


def _parse(text: str) -> tuple[str, dict[str, int]]:
    """The agent name of a (stripped) non-checkpoint spec and its constructor parameters; raises if invalid."""
    name, colon, param = text.partition(":")
    if name not in _AGENTS:
        raise UnknownAgentSpec(
            f"unknown agent spec {text!r}; the kinds: random, rules, pimc:N, PATH.pt, "
            "search:/anchored:/calls:N:PATH.pt, cfr:PATH.npz, split:A:B, openspiel:KIND:ARG (docs/agents.md lists them)"
        )
    param_name = _AGENTS[name][2]
    if not colon:
        return name, {}
    if param_name is None:
        raise ValueError(f"agent spec {text!r}: {name!r} takes no parameter (write {name!r})")
    if not re.fullmatch(r"[+-]?\d+", param.strip()):
        raise ValueError(f"agent spec {text!r}: {param_name} must be an integer, e.g. '{name}:50', got {param!r}")
    value = int(param)
    if value < 1:
        raise ValueError(f"agent spec {text!r}: {param_name} must be at least 1, got {value}")
    if value > MAX_WORLDS:
        raise ValueError(f"agent spec {text!r}: {param_name} must be at most {MAX_WORLDS:,}, got {value:,}")
    return name, {param_name: value}


def check_spec(spec: str) -> None:
    """Raise unless ``spec`` names an agent that :func:`make_agent` can build; builds nothing.

    Checked: a known agent name, an integer parameter of at least 1 where the agent takes one
    and none where it does not; a ``.pt`` spec must name an existing file (its content is read
    only when the agent is built).
    """
    text = str(spec).strip()
    _kind_of(text).arguments(text)


def make_agent(spec: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build the agent ``spec`` names (see :func:`check_spec` for what is refused and how).

    The agent's ``name`` is the spec text, which evaluation tables print; ``kwargs`` go to the
    agent's constructor (e.g. ``greedy=False`` for a checkpoint).
    """
    text = str(spec).strip()
    kind = _kind_of(text)
    arguments = kind.arguments(text)
    # imported here, not at the top: checkpoints and searches need torch, OpenSpiel's bots the extra
    agent_class = getattr(importlib.import_module(kind.module), kind.cls)
    return agent_class(seed=seed, **{"name": text, **kwargs, **arguments})


@dataclass(frozen=True)
class _SpecKind:
    """One kind of spec: which texts it takes, the checker that returns the agent constructor's arguments
    (raising one line), and where the agent's class lives."""

    matches: Callable[[str], bool]
    arguments: Callable[[str], dict[str, Any]]
    module: str
    cls: str


def _kind_of(text: str) -> _SpecKind:
    """The kind of a (stripped) spec; an agent name (``rules``, ``pimc:50``) when no other kind takes it."""
    for kind in _SPEC_KINDS:
        if kind.matches(text):
            return kind
    name, _ = _parse(text)  # raises UnknownAgentSpec for a name no agent has
    module, cls, _ = _AGENTS[name]
    return _SpecKind(lambda _: True, lambda t: _parse(t)[1], module, cls)


def _check_checkpoint(path: str) -> dict[str, Any]:
    """A checkpoint spec's constructor arguments (a published name resolved to its file); ValueError if the file
    is missing (its content is read later)."""
    found = published.find(path, published.CHECKPOINTS)
    if os.path.isdir(found):
        raise ValueError(f"{path!r} is a directory, not a checkpoint file")
    if not os.path.isfile(found):
        names = published.hint("checkpoints", published.CHECKPOINTS, CHECKPOINT_SUFFIX)
        raise ValueError(f"no checkpoint file at {path!r}{names}")
    return {"checkpoint": found}


def _worlds_and_path(text: str, prefix: str, suffix: str, what: str) -> tuple[dict[str, Any], str]:
    """``PREFIX[WORLDS:]PATH``: ``({"worlds": N} or {}, PATH)``; ValueError for a bad count or another suffix."""
    rest = text[len(prefix):]
    head, colon, tail = rest.partition(":")
    kwargs: dict[str, Any] = {}
    if colon and re.fullmatch(r"[+-]?\d+", head.strip()):
        kwargs["worlds"], rest = int(head), tail.strip()
        if kwargs["worlds"] < 1:
            raise ValueError(f"agent spec {text!r}: worlds must be at least 1, e.g. '{prefix}32:{what}{suffix}'")
        if kwargs["worlds"] > MAX_WORLDS:
            raise ValueError(f"agent spec {text!r}: worlds must be at most {MAX_WORLDS:,}, got {kwargs['worlds']:,}")
    if not rest.endswith(suffix):
        raise ValueError(f"agent spec {text!r}: write {prefix}{what}{suffix} or {prefix}WORLDS:{what}{suffix}")
    return kwargs, rest


def _checkpoint_search(prefix: str) -> Callable[[str], dict[str, Any]]:
    """The checker of a ``PREFIX[N:]CHECKPOINT.pt`` spec (a search over a network: ``search:``, ``anchored:``,
    ``calls:``): its constructor arguments; ValueError if malformed or the file is missing."""

    def check(text: str) -> dict[str, Any]:
        kwargs, path = _worlds_and_path(text, prefix, CHECKPOINT_SUFFIX, "CHECKPOINT")
        try:
            return {**_check_checkpoint(path), **kwargs}
        except ValueError as exc:
            raise ValueError(f"agent spec {text!r}: {exc}") from None

    return check


def _check_cfr(text: str) -> dict[str, Any]:
    """A ``cfr:[N:]TABLES.npz`` spec's constructor arguments; ValueError if malformed or the file is missing."""
    kwargs, path = _worlds_and_path(text, CFR_PREFIX, CFR_SUFFIX, "TABLES")
    found = published.find(path, published.CHECKPOINTS)
    if not os.path.isfile(found):
        names = published.hint("CFR tables", published.CHECKPOINTS, CFR_SUFFIX)
        raise ValueError(f"agent spec {text!r}: no CFR tables file at {path!r} (train one with: euchre cfr --out "
                         f"{path}){names}")
    return {"tables": found, **kwargs}


def _check_openspiel(text: str) -> dict[str, Any]:
    """An ``openspiel:KIND:ARG`` spec's constructor arguments; ValueError if malformed or OpenSpiel is missing."""
    import importlib.util

    from euchre_env.agents.search.openspiel_bots import check_openspiel_spec  # imports no OpenSpiel

    kind, arg = check_openspiel_spec(text)
    if importlib.util.find_spec("pyspiel") is None:
        raise ValueError(f"agent spec {text!r} needs OpenSpiel: pip install 'euchre-env[openspiel]'")
    return {"kind": kind, "arg": arg}


def _check_split(text: str) -> dict[str, Any]:
    """A ``split:BIDDER:PLAYER`` spec's constructor arguments; ValueError if it does not cut into two specs."""
    from euchre_env.agents.split import split_halves

    bidder, player = split_halves(text)
    return {"bidder": bidder, "player": player}


# Tried in this order (a split or a search over a checkpoint also ends in .pt); a spec no kind takes is an agent name.
_SPEC_KINDS: tuple[_SpecKind, ...] = (
    _SpecKind(lambda t: t.startswith(SPLIT_PREFIX), _check_split, "euchre_env.agents.split", "SplitAgent"),
    *(_SpecKind(lambda t, p=prefix: t.startswith(p), _checkpoint_search(prefix), *NETWORK_SEARCHES[prefix[:-1]])
      for prefix in (SEARCH_PREFIX, ANCHORED_PREFIX, CALLS_PREFIX)),  # (NETWORK_SEARCHES: the prefix, no colon)
    _SpecKind(lambda t: t.startswith(CFR_PREFIX), _check_cfr, "euchre_env.agents.search.cfr_bidding",
              "CFRBiddingAgent"),
    _SpecKind(lambda t: t.endswith(CHECKPOINT_SUFFIX), _check_checkpoint, "euchre_env.agents.neural.agent",
              "NeuralAgent"),
    _SpecKind(lambda t: t.startswith(OPENSPIEL_PREFIX), _check_openspiel, "euchre_env.agents.search.openspiel_bots",
              "OpenSpielAgent"),
)


def build_for_rules(spec: str, rules: Any = None, seed: int | None = None) -> Any:
    """:func:`make_agent`, checked against ``rules`` (a checkpoint trained for others fails here), with any
    failure as one ``ValueError`` line naming the spec once: for callers that must refuse a spec before
    they start (the command line, a person's table)."""
    try:
        agent = make_agent(spec, seed)
        if rules is not None and hasattr(agent, "check_rules"):
            agent.check_rules(rules)
        return agent
    except ModuleNotFoundError as exc:
        extra = " (pip install 'euchre-env[train]')" if exc.name == "torch" else ""
        raise ValueError(f"agent spec {spec!r} is not available: {exc}{extra}") from None
    except Exception as exc:  # whatever the agent's constructor raises, reported in one line
        message = " ".join(str(exc).split())
        raise ValueError(message if spec in message else f"agent spec {spec!r}: {message}") from None
