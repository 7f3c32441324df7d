"""The trainer's configuration: every hyperparameter named in one place.

A config is a YAML file of sections (``run``, ``rules``, ``model``, ``ppo``, ``pretrain``,
``league``, ``eval``, ``final_eval``) over the defaults below; ``--set section.key=value`` overrides any
value (the value is read as YAML: ``--set ppo.lr=3e-4``). A mapping value such as ``league.mix``
is replaced as a whole (``--set 'league.mix={self: 1, rules: 1}'``). An unknown section or key,
or a value of the wrong type, is an error that names it.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

import yaml

from euchre_env.agents.neural.network import PRECISIONS
from euchre_env.agents.registry import check_spec
from euchre_env.game.rules import Rules
from euchre_env.views.structured import OBSERVATIONS


@dataclass
class RunConfig:
    seed: int = 1
    total_decisions: int = 2_000_000  # learner decisions to train on (forced moves are not counted)
    max_minutes: float = 0.0  # stop earlier when training has taken this long (0: no limit)
    torch_threads: int = 2
    checkpoint_every: int = 10  # updates between checkpoints (latest.pt)
    # Where self-play collects: "local" (this process) or "ray" (Ray actors, the section ray below).
    backend: str = "local"


@dataclass
class RayConfig:
    rollout_workers: int = 2  # Ray actors collecting self-play when run.backend is "ray" (one CPU each)
    address: str = ""  # "": start a local Ray instance; "auto" or HOST:PORT: join that cluster


@dataclass
class RulesConfig:
    preset: str = "knock"
    options: dict[str, Any] = field(default_factory=dict)  # rules options of docs/RULES.md over the preset


@dataclass
class ModelConfig:
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    # What the actor sees: the env's "absolute" or "structured" observation (canonical suit frame).
    observation: str = "structured"
    # What the critic sees: "seat" (the actor's observation) or "oracle" (that plus every hidden card and who
    # holds the other team, training/oracle.py). The critic is not played, so it may see what the actor may not.
    critic: str = "oracle"


CRITICS = ("oracle", "seat")
BACKENDS = ("local", "ray")  # where self-play collects (training/ray_collect.py)
LEAGUE_KEEP = ("spread", "recent")
AUTO_PRECISION = "auto"  # ppo.matmul_precision: resolved by the trainer on the machine the run starts on


@dataclass
class PPOConfig:
    num_games: int = 128  # games stepped in lockstep, one batched forward pass per step
    rollout_decisions: int = 8192  # learner decisions per update (hands in progress are finished)
    lr: float = 3e-4  # the actor's (and the critic's when critic_lr is 0)
    critic_lr: float = 0.0  # the critic's own learning rate (0: the critic shares lr and one param group)
    anneal_lr: bool = True
    gamma: float = 1.0  # within a hand; every hand is its own episode for the returns
    gae_lambda: float = 0.95
    epochs: int = 4
    minibatch_size: int = 2048
    clip: float = 0.2
    clip_value: bool = False
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # stop the epochs of an update when the approximate KL passes this (0: never)
    norm_adv: bool = True
    reward_scale: float = 0.25  # hand points times this is the reward the learner sees
    # Solver targets (training/solver_targets.py): an auxiliary head on the actor's features regressed onto
    # the double-dummy value of each legal card, at this share of the learner's play decisions, with this
    # weight in the loss (0: none).
    solver_coef: float = 0.0
    solver_fraction: float = 0.25
    # What the dense layers multiply in during the PPO epochs: "float32", or "bfloat16" (inputs and weights
    # rounded to an 8-bit mantissa for the product, everything else float32; 4-5x faster products on a CPU with
    # AVX-512 BF16 or AMX, far slower on one without), or "auto": the one that multiplies faster on the machine
    # the run starts on, timed then and saved in the run's config. Collection and play stay float32.
    matmul_precision: str = "float32"


@dataclass
class PretrainConfig:
    # Behaviour cloning of a teacher before PPO (training/imitation.py); "" skips it.
    teacher: str = ""
    decisions: int = 200_000  # teacher decisions recorded (all four seats play the teacher)
    epochs: int = 3
    minibatch_size: int = 1024
    lr: float = 1e-3


@dataclass
class LeagueConfig:
    # Who the learner plays, drawn per game: "self" (all four seats learn), "past" (a frozen earlier
    # snapshot holds one team) or any agent spec of euchre_env.agents.registry (random, rules, pimc:N).
    mix: dict[str, float] = field(default_factory=lambda: {"self": 0.5, "past": 0.2, "rules": 0.25, "random": 0.05})
    snapshot_every: int = 20  # updates between snapshots added to the league
    max_snapshots: int = 10  # the league's size; beyond it one snapshot is dropped, as ``keep`` says
    # "spread": drop the snapshot closest to its elder neighbour (never the oldest or the newest), so the
    # league spans the whole run at even spacing; "recent": drop the oldest (the last max_snapshots remain).
    keep: str = "spread"


@dataclass
class EvalConfig:
    every: int = 25  # updates between duplicate evaluations (0: never)
    hands: int = 500  # duplicate deals per opponent (each played twice)
    opponents: list[str] = field(default_factory=lambda: ["random", "rules"])
    seed: int = 12345
    workers: int = 1
    # Final selection: at the end of training the weights of the last ``select_last`` periodic evaluations
    # (and the final ones) play ``select_hands`` fresh duplicate deals of ``select_seed`` against
    # ``opponents[-1]``; the best becomes best.pt. 0: best.pt is the best periodic evaluation.
    select_last: int = 0
    select_hands: int = 5000
    select_seed: int = 777


@dataclass
class FinalEvalConfig:
    # At the end of training: best.pt against each opponent, with this many duplicate deals (use a seed
    # that neither training, the periodic evaluations nor the selection used: that margin is unbiased).
    opponents: dict[str, int] = field(default_factory=lambda: {"random": 10000, "rules": 10000, "pimc:50": 200})
    seed: int = 2026
    workers: int = 2


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        config = cls()
        _merge(config, data, "")
        config.validate()
        return config

    def make_rules(self) -> Rules:
        return Rules.preset(self.rules.preset, **self.rules.options)

    def validate(self) -> None:
        self.make_rules()  # unknown preset or option: Rules says which
        p, lg = self.ppo, self.league
        _positive("run.total_decisions", self.run.total_decisions)
        _positive("run.torch_threads", self.run.torch_threads)
        _positive("run.checkpoint_every", self.run.checkpoint_every)
        _positive("ppo.num_games", p.num_games)
        _positive("ppo.rollout_decisions", p.rollout_decisions)
        _positive("ppo.minibatch_size", p.minibatch_size)
        _positive("ppo.epochs", p.epochs)
        _positive("ppo.lr", p.lr)
        if not self.model.hidden or any(not isinstance(h, int) or h < 1 for h in self.model.hidden):
            raise ValueError(f"config model.hidden must be a non-empty list of positive ints, got {self.model.hidden}")
        _choice("model.observation", self.model.observation, OBSERVATIONS)
        _choice("model.critic", self.model.critic, CRITICS)
        _choice("ppo.matmul_precision", p.matmul_precision, (*PRECISIONS, AUTO_PRECISION))
        _choice("run.backend", self.run.backend, BACKENDS)
        _positive("ray.rollout_workers", self.ray.rollout_workers)
        if not 0 <= p.gamma <= 1 or not 0 <= p.gae_lambda <= 1:
            raise ValueError("config ppo.gamma and ppo.gae_lambda must lie in [0, 1]")
        if not lg.mix or any(not isinstance(w, (int, float)) or w < 0 for w in lg.mix.values()):
            raise ValueError(f"config league.mix must map opponents to non-negative weights, got {lg.mix}")
        if sum(lg.mix.values()) <= 0:
            raise ValueError("config league.mix: the weights sum to zero")
        teacher = [self.pretrain.teacher] if self.pretrain.teacher else []
        for spec in [*lg.mix, *self.eval.opponents, *self.final_eval.opponents, *teacher]:
            if spec not in ("self", "past"):
                check_spec(spec)  # a bad agent spec fails here, before training starts (nothing is built or loaded)
        if self.pretrain.teacher:
            _positive("pretrain.decisions", self.pretrain.decisions)
            _positive("pretrain.epochs", self.pretrain.epochs)
            _positive("pretrain.minibatch_size", self.pretrain.minibatch_size)
            _positive("pretrain.lr", self.pretrain.lr)
        _positive("league.snapshot_every", lg.snapshot_every)
        _positive("league.max_snapshots", lg.max_snapshots)
        _choice("league.keep", lg.keep, LEAGUE_KEEP)
        if p.solver_coef < 0 or not 0 < p.solver_fraction <= 1:
            raise ValueError(f"config ppo.solver_coef must be 0 or more and ppo.solver_fraction in (0, 1], got "
                             f"{p.solver_coef!r} and {p.solver_fraction!r}")
        if p.critic_lr < 0:
            raise ValueError(f"config ppo.critic_lr must be positive, or 0 to share ppo.lr, got {p.critic_lr!r}")
        if self.eval.select_last < 0:
            raise ValueError(f"config eval.select_last must be 0 (no selection) or more, got {self.eval.select_last}")
        if self.eval.select_last:
            _positive("eval.select_hands", self.eval.select_hands)
            if not self.eval.every:
                raise ValueError("config eval.select_last needs periodic evaluations (eval.every > 0)")
            if self.eval.select_seed in (self.eval.seed, self.final_eval.seed):
                raise ValueError(f"config eval.select_seed must differ from eval.seed and final_eval.seed "
                                 f"(a selection on the deals it is measured on is biased), got {self.eval.select_seed}")


def _positive(name: str, value: Any) -> None:
    if value <= 0:
        raise ValueError(f"config {name} must be positive, got {value!r}")


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
        raise ValueError(f"config {prefix.rstrip('.') or 'file'} must be a mapping, got {data!r}")
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
        value = float(value) if ok else value
    elif isinstance(current, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, type(current))
    if not ok:
        raise ValueError(f"config {name} must be of type {type(current).__name__}, got {value!r}")
    return copy.deepcopy(value)


def load_config(path: str | None = None, overrides: list[str] = ()) -> TrainConfig:
    """The config of a YAML file (or the defaults) with ``section.key=value`` overrides applied.

    A run's own ``config.yaml`` (a resume) is read the same way: a key it lacks gets today's default.
    """
    data: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path) as f:
                data = yaml.safe_load(f) or {}
        except OSError as e:
            raise ValueError(f"cannot read config {path!r}: {e.strerror}") from None
        except yaml.YAMLError as e:
            raise ValueError(f"config {path!r} is not valid YAML: {e}") from None
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set expects section.key=value, got {item!r}")
        *parents, leaf = key.strip().split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"--set {item!r}: {part!r} is not a section")
        node[leaf] = yaml.safe_load(text)
    return TrainConfig.from_dict(data)


# What --resume may change: how long to train, and how to select and evaluate at the end.
RESUMABLE_CHANGES = ("run.total_decisions", "run.max_minutes", "final_eval", "eval.workers", "eval.select_hands",
                     "eval.select_seed", "ray.address")


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
