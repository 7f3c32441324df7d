"""The trainer's configuration: every hyperparameter named in one place.

A config is a YAML file of sections (``run``, ``rules``, ``model``, ``ppo``, ``pretrain``,
``league``, ``eval``, ``final_eval``, ``ray``, ``expert``: :mod:`~euchre_env.training.sections`, each key with its
default, meaning and range) over the defaults; ``--set section.key=value`` overrides any value (the value is read as
YAML: ``--set ppo.lr=3e-4``). A mapping value such as ``league.mix`` is replaced as a whole (``--set 'league.mix={self:
1, rules: 1}'``). An unknown section or key, a value of the wrong type, a number outside its key's range
(:data:`RANGES`) or a YAML tag is an error of one line that names it; YAML is read with ``yaml.safe_load``, which
builds plain data only.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

import yaml

from euchre_env.agents.neural.limits import MAX_LAYERS, PRECISIONS
from euchre_env.agents.registry import check_spec
from euchre_env.game.rules import Rules, check_option_names
from euchre_env.training.device import resolve_device
from euchre_env.training.ranges import Range, check_range, shown
from euchre_env.training.sections import (
    AUTO_PRECISION,
    BACKENDS,
    CRITICS,
    EXPERT_SEARCHES,
    LEAGUE_KEEP,
    EvalConfig,
    ExpertConfig,
    FinalEvalConfig,
    LeagueConfig,
    ModelConfig,
    PPOConfig,
    PretrainConfig,
    RayConfig,
    RulesConfig,
    RunConfig,
)
from euchre_env.views.structured import OBSERVATIONS


@dataclass
class TrainConfig:
    run: RunConfig = field(default_factory=RunConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    final_eval: FinalEvalConfig = field(default_factory=FinalEvalConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    expert: ExpertConfig = field(default_factory=ExpertConfig)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        config = cls()
        _merge(config, data, "")
        config.validate()
        return config

    def make_rules(self) -> Rules:
        check_option_names(self.rules.options)  # before the call: a key that is no name (1: 2) is named too
        return Rules.preset(self.rules.preset, **self.rules.options)

    def validate(self) -> None:
        for name, allowed in RANGES.items():
            section, key = name.split(".")
            check_range(name, allowed, getattr(getattr(self, section), key))
        if not 1 <= len(self.model.hidden) <= MAX_LAYERS:
            raise ValueError(f"config model.hidden must list 1 to {MAX_LAYERS} layer widths, "
                             f"got {shown(self.model.hidden)}")
        self.make_rules()  # unknown preset or option: Rules says which
        p, lg = self.ppo, self.league
        _choice("model.observation", self.model.observation, OBSERVATIONS)
        _choice("model.critic", self.model.critic, CRITICS)
        _choice("ppo.matmul_precision", p.matmul_precision, (*PRECISIONS, AUTO_PRECISION))
        if p.belief_coef and self.model.critic != "oracle":
            raise ValueError("config ppo.belief_coef needs model.critic: oracle (the belief head learns the true "
                             "deal from the oracle's features); set it to 0 with the seat critic")
        _choice("run.backend", self.run.backend, BACKENDS)
        resolve_device(self.run.device)  # a device this machine lacks: one line naming those it has
        if not lg.mix or sum(lg.mix.values()) <= 0:
            raise ValueError(f"config league.mix needs an opponent of weight above 0, got {shown(lg.mix)}")
        if self.eval.every and not self.eval.opponents:
            raise ValueError("config eval.opponents is empty: periodic evaluations need an opponent "
                             "(eval.every: 0 turns them off)")
        teacher = [self.pretrain.teacher] if self.pretrain.teacher else []
        for spec in [*lg.mix, *self.eval.opponents, *self.final_eval.opponents, *teacher]:
            if spec not in ("self", "past"):
                check_spec(spec)  # a bad agent spec fails here, before training starts (nothing is built or loaded)
        _choice("league.keep", lg.keep, LEAGUE_KEEP)
        _choice("expert.search", self.expert.search, tuple(EXPERT_SEARCHES))
        if self.expert.every and self.make_rules().is_bid:  # every search refuses Bid Euchre (the help exchange)
            raise ValueError("config expert.every: the searches do not cover Bid Euchre (its help exchange); "
                             "set expert.every to 0 for a bid run")
        if self.eval.select_last:
            if not self.eval.every:
                raise ValueError("config eval.select_last needs periodic evaluations (eval.every > 0)")
            if self.eval.select_seed in (self.eval.seed, self.final_eval.seed):
                raise ValueError(f"config eval.select_seed must differ from eval.seed and final_eval.seed "
                                 f"(a selection on the deals it is measured on is biased), got {self.eval.select_seed}")


def _choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"config {name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def with_defaults(data: dict[str, Any]) -> dict[str, Any]:
    """A saved run's config (a dict, as a checkpoint holds it) with every key it lacks at today's default, as
    :func:`load_config` reads one; an unknown key is the same one-line error. Not validated: only compared."""
    config = TrainConfig()
    _merge(config, data, "")
    return config.to_dict()


def _merge(target: Any, data: Any, prefix: str) -> None:
    if not isinstance(data, dict):
        raise ValueError(f"config {prefix.rstrip('.') or 'file'} must be a mapping, got {shown(data)}")
    known = {f.name: f for f in fields(target)}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if key not in known:
            raise ValueError(f"unknown config key {name!r}; known here: {', '.join(known)}")
        current = getattr(target, key)
        if is_dataclass(current):
            _merge(current, value, name + ".")
        else:
            setattr(target, key, _checked(name, current, value))


def _checked(name: str, current: Any, value: Any) -> Any:
    """``value`` if it has the type of the default ``current`` (an int is accepted for a float)."""
    if isinstance(current, bool):
        ok = isinstance(value, bool)
    elif isinstance(current, float):
        if isinstance(value, str):  # YAML 1.1 reads 1e-3 (no dot) as a string
            with contextlib.suppress(ValueError):
                value = float(value)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok:
            with contextlib.suppress(OverflowError):  # an int past any float stays one, for the range to refuse
                value = float(value)
    elif isinstance(current, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, type(current))
    if not ok:
        raise ValueError(f"config {name} must be of type {type(current).__name__}, got {shown(value)}")
    return copy.deepcopy(value)


SECTIONS = tuple(f.name for f in fields(TrainConfig))
# Every numeric key's range, read from its field (sections.py declares them), checked whenever a config is loaded or
# overridden (docs/training.md lists them). For a list or a mapping (model.hidden, league.mix, final_eval.opponents)
# the range holds for each of its values.
RANGES: dict[str, Range] = {f"{section.name}.{key.name}": key.metadata["range"] for section in fields(TrainConfig)
                            for key in fields(section.default_factory) if "range" in key.metadata}


def _yaml_problem(e: yaml.YAMLError, where: bool) -> str:
    """A YAML error in one line (``where``: with its line). safe_load builds plain data only: a tag such as
    ``!!python/object/apply:os.system`` is refused there, before anything is built, and named here as such."""
    problem = getattr(e, "problem", None) or str(e)
    tag = re.search(r"constructor for the tag '([^']*)'", problem)
    if tag:
        name = tag.group(1).replace("tag:yaml.org,2002:", "!!")
        problem = (f"the YAML tag {shown(name)} asks for a Python object; a config holds plain values (numbers, "
                   "strings, lists, mappings): refused, nothing was run")
    else:
        problem = f"not valid YAML: {problem}"
    mark = getattr(e, "problem_mark", None)
    if where and mark is not None:
        problem = f"line {mark.line + 1}: {problem}"
    return " ".join(problem.split())


def load_config(path: str | None = None, overrides: list[str] = ()) -> TrainConfig:
    """The config of a YAML file (or the defaults) with ``section.key=value`` overrides applied.

    A run's own ``config.yaml`` (a resume) is read the same way: a key it lacks gets today's default.
    """
    data: Any = {}
    if path is not None:
        try:
            with open(path, "rb") as f:  # bytes: YAML finds the encoding, and a binary file is its one-line error
                data = yaml.safe_load(f)
        except OSError as e:
            raise ValueError(f"cannot read config {path!r}: {e.strerror}") from None
        except yaml.YAMLError as e:
            raise ValueError(f"config {path!r}: {_yaml_problem(e, True)}") from None
        if data is None:  # an empty file: the defaults
            data = {}
        if not isinstance(data, dict):  # before the overrides, which are set into it
            raise ValueError(f"config {path!r} must be a mapping of sections ({', '.join(SECTIONS)}), "
                             f"got the {type(data).__name__} {shown(data)}")
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set expects section.key=value, got {item!r}")
        *parents, leaf = key.strip().split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"--set {item!r}: {part!r} is not a section")
        try:
            node[leaf] = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ValueError(f"--set {item!r}: {_yaml_problem(e, False)}") from None
    return TrainConfig.from_dict(data)


# What --resume may change: how long to train, and how to select and evaluate at the end; and the device (a run
# may move between machines; it resumes bit for bit on the CPU, not across devices).
RESUMABLE_CHANGES = ("run.total_decisions", "run.max_minutes", "final_eval", "eval.workers", "eval.select_hands",
                     "eval.select_seed", "ray.address", "run.device")


def config_changes(saved: dict[str, Any], now: dict[str, Any], prefix: str = "") -> list[str]:
    """The config values that differ between a run's saved config and the one given now, except
    :data:`RESUMABLE_CHANGES` (as ``"name (old -> new)"``); mappings such as ``league.mix`` compare whole."""
    changed = []
    for key in sorted(set(saved) | set(now)):
        name = prefix + key
        if name in RESUMABLE_CHANGES:
            continue
        a, b = saved.get(key), now.get(key)
        if isinstance(a, dict) and isinstance(b, dict) and key != "mix" and key != "options":
            changed += config_changes(a, b, name + ".")
        elif a != b:
            changed.append(f"{name} ({a!r} -> {b!r})")
    return changed


def run_dir_for(config: TrainConfig, run_name: str | None, runs_dir: str = "runs") -> str:
    """The run's folder: ``runs_dir/run_name``, by default named after the preset and the seed."""
    name = run_name or f"{config.rules.preset}-seed{config.run.seed}"
    return os.path.join(runs_dir, name)
