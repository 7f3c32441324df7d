"""The trainer's configuration: every hyperparameter named in one place.

A config is a YAML file of sections (``run``, ``rules``, ``model``, ``ppo``, ``pretrain``,
``league``, ``eval``, ``final_eval``, ``ray``, ``expert``) over the defaults below; ``--set section.key=value``
overrides any value (the value is read as YAML: ``--set ppo.lr=3e-4``). A mapping value such as ``league.mix``
is replaced as a whole (``--set 'league.mix={self: 1, rules: 1}'``). An unknown section or key,
a value of the wrong type, a number outside its key's range (:data:`RANGES`) or a YAML tag is an error
of one line that names it; YAML is read with ``yaml.safe_load``, which builds plain data only.

Why one module: every hyperparameter, its default, its allowed range and its check live in one config
object (as CleanRL keeps them), so that a reader finds any knob of a run in one file.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import reprlib
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

import torch
import yaml

from euchre_env.agents.neural.network import MAX_LAYERS, MAX_WIDTH, PRECISIONS
from euchre_env.agents.registry import NETWORK_SEARCHES, check_spec
from euchre_env.game.rules import Rules, check_option_names
from euchre_env.views.structured import OBSERVATIONS


@dataclass
class RunConfig:
    seed: int = 1
    total_decisions: int = 2_000_000  # learner decisions to train on (forced moves are not counted)
    max_minutes: float = 0.0  # stop earlier when training has taken this long (0: no limit)
    torch_threads: int = 2  # more than this process's cores is capped at the cores, with a warning
    checkpoint_every: int = 10  # updates between checkpoints (latest.pt)
    # Where self-play collects: "local" (this process) or "ray" (Ray actors, the section ray below).
    backend: str = "local"
    # Where the networks run (rollout inference and the PPO update): "cpu" (the sparse first layer and its C
    # kernels), "cuda" or "cuda:N", "mps", or "auto" (cuda if torch sees one, else mps, else cpu; the run's config
    # records the device it resolved to). "cpu-dense" runs the accelerator's code path on the CPU (tests).
    device: str = "cpu"


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
    # A checkpoint (.pt) whose actor starts the run, "" for none: a published network trained on (continued or
    # fine-tuned). Its rules, observation and hidden layers must be the run's; the critic starts fresh (a
    # published checkpoint holds the actor alone), so pair it with ppo.critic_warmup. It replaces the behaviour
    # cloning (pretrain). A resumed run loads its own weights and ignores it.
    init: str = ""


CRITICS = ("oracle", "seat")
BACKENDS = ("local", "ray")  # where self-play collects (training/ray_collect.py)
AUTO_DEVICE = "auto"  # run.device: resolved by the trainer on the machine the run starts on
DENSE_CPU = "cpu-dense"  # run.device: the accelerator's code path (dense first layer, torch only) on the CPU
DEVICES = ("auto", "cpu", "cuda", "cuda:N", "mps")  # what run.device takes (and DENSE_CPU), for messages
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
    # The belief head (agents/neural/belief.py): an auxiliary head on the actor's features that learns where each
    # unseen card is, by cross-entropy against the true deal (read from the oracle critic's features, so it needs
    # model.critic: oracle), with this weight in the loss (0: no head). It trains in the critic's parameter group
    # (ppo.critic_lr), so it learns on the actor's features during ppo.critic_warmup too.
    belief_coef: float = 0.0
    # What the dense layers multiply in during the PPO epochs: "float32", or "bfloat16" (inputs and weights
    # rounded to an 8-bit mantissa for the product, everything else float32; 4-5x faster products on a CPU with
    # AVX-512 BF16 or AMX, far slower on one without), or "auto": the one that multiplies faster on the machine
    # the run starts on, timed then and saved in the run's config. Collection and play stay float32.
    matmul_precision: str = "float32"
    # The first updates of a run in which only the critic learns (the actor's learning rate held at 0): a fresh
    # critic (model.init) fits the values before its advantages move a trained policy. The critic learns in its
    # own parameter group then, at ppo.critic_lr (or ppo.lr when that is 0).
    critic_warmup: int = 0


@dataclass
class PretrainConfig:
    # Behaviour cloning of a teacher before PPO (training/imitation.py); "" skips it.
    teacher: str = ""
    decisions: int = 200_000  # teacher decisions recorded (all four seats play the teacher)
    epochs: int = 3
    minibatch_size: int = 1024
    lr: float = 1e-3


# expert.search: the searches that label an expert phase's decisions, by name -> (module, class): the registry's
# searches over a network (search:, anchored:, calls:). Imported when a run with phases starts (training/expert.py),
# not when its config is read, so that reading a config imports no search.
EXPERT_SEARCHES = NETWORK_SEARCHES


@dataclass
class ExpertConfig:
    # Expert iteration (training/expert.py): every `every` PPO updates a phase plays self-play games with the
    # current network in every seat, asks a search around a frozen copy of it for its action at a sample of the
    # decisions, and trains the actor toward the search's policy; then PPO resumes. 0: no phases (the default).
    every: int = 0
    decisions: int = 2000  # decisions labelled by the search per phase (the search is most of a phase's time)
    fraction: float = 0.25  # the share of the phase's decisions labelled: the labels spread over more games
    search: str = "search"  # which search labels: "search" (network-guided), "anchored" or "calls" (EXPERT_SEARCHES)
    worlds: int = 0  # the search's worlds per decision; 0: the search's own default (anchored 32, calls 256)
    # The search's policy at a labelled decision: 0 its chosen action alone (one-hot); above 0 the softmax of its
    # per-action values (the hand's margin in points) at this temperature.
    temperature: float = 0.0
    # The target at a labelled decision is (network + coef x search) / (1 + coef), the minimum of the loss's KL
    # term toward the search (weight coef) beside its KL term toward the network as it was (weight 1): coef 1
    # moves the policy halfway to the search's.
    coef: float = 1.0
    epochs: int = 4  # passes over the labelled decisions
    minibatch_size: int = 256  # labelled decisions a step (and as many of the phase's other decisions)
    lr: float = 1e-4  # the distillation's own Adam, fresh each phase (PPO's optimizer is not touched)


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


@dataclass(frozen=True)
class Range:
    """The values a numeric config key allows: ``low`` to ``high``, both included (``above``: ``low`` itself
    is not); ``integer``: whole numbers only; ``zero``: what 0 means where 0 is allowed."""

    low: float
    high: float | None  # None: no upper bound here (run.torch_threads is capped at the cores instead)
    integer: bool = True
    above: bool = False
    zero: str = ""

    def allows(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int if self.integer else (int, float)):
            return False
        # NaN fails every comparison, so it is refused with the rest
        return (value > self.low if self.above else value >= self.low) and (self.high is None or value <= self.high)

    def __str__(self) -> str:
        kind = "an integer" if self.integer else "a number"
        low = _number(self.low) + (f" ({self.zero})" if self.zero else "")
        if self.high is None:
            return f"{kind} of at least {low}"
        if self.above:
            return f"{kind} above {low} and at most {_number(self.high)}"
        return f"{kind} from {low} to {_number(self.high)}"


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


SEED = Range(0, 2**32 - 1)  # 2**32 seeds, which every seeding API accepts; each gives its own deals and streams
DEALS = Range(1, 10**6)  # duplicate deals of a match: a million is hours of play; its records are held in memory
UPDATES = Range(1, 10**6)  # updates between two events: no run makes a million updates
LEARNING_RATE = Range(0, 1, integer=False, above=True)  # 0 would learn nothing
# Evaluation processes, each with torch and the agents loaded (about 280 MB): more than the cores only adds memory.
WORKERS = Range(1, 256)
# Rows of the rollout's arrays (the observation, the oracle's inputs, the mask, the solver's targets): about
# 4.5 KB a decision (bid, structured observation, oracle critic), so a million decisions hold 4.5 GB before the
# PPO epochs' copies. The behaviour cloning keeps its demonstrations the same way, all at once.
DECISIONS = Range(1, 10**6)
# A minibatch's activations: 65,536 rows of the widest network (8 layers of 2,048) take 4 GB.
MINIBATCH = Range(1, 65536)

# Every numeric key, checked whenever a config is loaded or overridden (docs/training.md lists them). For a list
# or a mapping (model.hidden, league.mix, final_eval.opponents) the range holds for each of its values.
RANGES: dict[str, Range] = {
    "run.seed": SEED,
    "run.total_decisions": Range(1, 10**12),  # years at the 16,000 decisions a second of a 2-core machine
    "run.max_minutes": Range(0, 10**6, integer=False, zero="no limit"),  # about two years; .inf and .nan refused
    # torch crashes (a segmentation fault) when asked for far more threads than there are cores, so the trainer
    # caps this at the cores it may use and says so (threads_here): a config moves between machines unchanged.
    "run.torch_threads": Range(1, None),
    "run.checkpoint_every": UPDATES,
    # Ray actors of one CPU each; more than the cluster has is refused when Ray starts (training/ray_collect.py).
    "ray.rollout_workers": Range(1, 1024),
    # Each game reserves its hand in progress in the rollout's arrays (56 rows in bid): 8,192 games, 2 GB.
    "ppo.num_games": Range(1, 8192),
    "ppo.rollout_decisions": DECISIONS,
    "ppo.lr": LEARNING_RATE,
    "ppo.critic_lr": Range(0, 1, integer=False, zero="the critic shares ppo.lr"),
    "ppo.gamma": Range(0, 1, integer=False),
    "ppo.gae_lambda": Range(0, 1, integer=False),
    "ppo.epochs": Range(1, 100),
    "ppo.minibatch_size": MINIBATCH,
    "ppo.clip": Range(0, 1, integer=False, above=True),  # 0 would allow no change of the policy
    "ppo.ent_coef": Range(0, 1, integer=False),
    "ppo.vf_coef": Range(0, 10, integer=False),
    "ppo.max_grad_norm": Range(0, 1000, integer=False, above=True),  # 0 would scale every gradient to zero
    "ppo.target_kl": Range(0, 10, integer=False, zero="never stop early"),
    "ppo.reward_scale": Range(0, 100, integer=False, above=True),  # 0 would make every reward zero
    "ppo.solver_coef": Range(0, 10, integer=False, zero="no solver targets"),
    "ppo.solver_fraction": Range(0, 1, integer=False, above=True),
    "ppo.belief_coef": Range(0, 100, integer=False, zero="no belief head"),
    "ppo.critic_warmup": Range(0, 10**6, zero="the actor learns from the first update"),
    "pretrain.decisions": DECISIONS,
    "pretrain.epochs": Range(1, 100),
    "pretrain.minibatch_size": MINIBATCH,
    "pretrain.lr": LEARNING_RATE,
    "model.hidden": Range(1, MAX_WIDTH),  # each layer's width (agents/neural/network.py says why)
    "league.mix": Range(0, 10**6, integer=False),  # relative weights, drawn in proportion (their sum above 0)
    "league.snapshot_every": UPDATES,
    "league.max_snapshots": Range(1, 100),  # each a frozen actor in memory
    "eval.every": Range(0, 10**6, zero="never"),
    "eval.hands": DEALS,
    "eval.seed": SEED,
    "eval.workers": WORKERS,
    "eval.select_last": Range(0, 100, zero="no selection"),  # each candidate is a checkpoint file until the end
    "eval.select_hands": DEALS,
    "eval.select_seed": SEED,
    "final_eval.opponents": DEALS,
    "final_eval.seed": SEED,
    "final_eval.workers": WORKERS,
    "expert.every": Range(0, 10**6, zero="off"),  # updates between phases
    "expert.decisions": DECISIONS,  # labelled decisions are held at once, as a rollout's
    "expert.fraction": Range(0, 1, integer=False, above=True),  # 0 would label nothing
    # The search replays and rolls out worlds x legal actions games at once: 1,024 worlds are thousands of games.
    "expert.worlds": Range(0, 1024, zero="the search's own default"),
    "expert.temperature": Range(0, 100, integer=False, zero="the search's action alone"),
    "expert.coef": Range(0, 100, integer=False, above=True),  # 0 would learn nothing (expert.every: 0 turns it off)
    "expert.epochs": Range(1, 100),
    "expert.minibatch_size": MINIBATCH,
    "expert.lr": LEARNING_RATE,
}


def _shown(value: Any) -> str:
    """``repr(value)`` cut short (a YAML alias can make a value whose full repr would never end)."""
    short = reprlib.Repr()
    short.maxstring = short.maxother = short.maxlong = 60
    return short.repr(value)


def _check_range(name: str, value: Any) -> None:
    allowed = RANGES[name]
    if isinstance(value, dict):
        items = [(f"{name}[{k!r}]", v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(f"{name}[{i}]", v) for i, v in enumerate(value)]
    else:
        items = [(name, value)]
    for where, v in items:
        if not allowed.allows(v):
            raise ValueError(f"config {where} must be {allowed}, got {_shown(v)}")


def usable_cores() -> int:
    """The CPUs this process may run on (a container's or ``taskset``'s share, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity call
        return os.cpu_count() or 1


def threads_here(requested: int) -> tuple[int, str]:
    """The torch threads to use for ``run.torch_threads`` on this machine, and a warning where it was capped."""
    cores = usable_cores()
    if requested <= cores:
        return requested, ""
    return cores, (f"warning: run.torch_threads {requested} is more than the {cores} cores this process may use: "
                   f"using {cores}")


def devices_here() -> list[str]:
    """The devices torch can run the networks on here: ``cpu``, then ``cuda:0``... and ``mps`` where it sees them."""
    here = ["cpu"]
    if torch.cuda.is_available():
        here += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        here.append("mps")
    return here


def resolve_device(name: str) -> tuple[torch.device, bool]:
    """``(the torch device, dense)`` that ``run.device`` ``name`` asks for on this machine; ``dense``: the networks
    take the accelerator's form (a dense first layer, torch's operations only), everywhere but on ``cpu``.
    ValueError in one line for a name that is no device or one this machine lacks, naming those it has."""
    if not re.fullmatch(r"auto|cpu|cpu-dense|cuda(:\d+)?|mps", name):
        raise ValueError(f"config run.device must be one of {', '.join(map(repr, DEVICES))}, got {_shown(name)}")
    here = devices_here()
    if name == AUTO_DEVICE:
        name = "cuda" if "cuda:0" in here else "mps" if "mps" in here else "cpu"
    if name in ("cpu", DENSE_CPU):
        return torch.device("cpu"), name == DENSE_CPU
    if (name + ":0" if name == "cuda" else name) not in here:
        build = "" if torch.version.cuda or name == "mps" else f" (torch {torch.__version__} is built without CUDA)"
        raise ValueError(f"config run.device {name!r} is not available on this machine, which has: "
                         f"{', '.join(here)}{build}; set run.device to one of those, or auto")
    return torch.device(name), True


def describe_device(device: torch.device, dense: bool) -> str:
    """The device as a run's log names it: ``cpu``, ``cpu-dense (...)``, ``cuda:0 (NVIDIA H200)``, ``mps (...)``."""
    if device.type == "cpu":
        return f"{DENSE_CPU} (the accelerator's code path on the CPU)" if dense else "cpu"
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        return f"cuda:{index} ({torch.cuda.get_device_name(index)})"
    return f"{device.type} (dense first layer)"


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
        for name in RANGES:
            section, key = name.split(".")
            _check_range(name, getattr(getattr(self, section), key))
        if not 1 <= len(self.model.hidden) <= MAX_LAYERS:
            raise ValueError(f"config model.hidden must list 1 to {MAX_LAYERS} layer widths, "
                             f"got {_shown(self.model.hidden)}")
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
            raise ValueError(f"config league.mix needs an opponent of weight above 0, got {_shown(lg.mix)}")
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
        raise ValueError(f"config {prefix.rstrip('.') or 'file'} must be a mapping, got {_shown(data)}")
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
        raise ValueError(f"config {name} must be of type {type(current).__name__}, got {_shown(value)}")
    return copy.deepcopy(value)


SECTIONS = tuple(f.name for f in fields(TrainConfig))


def _yaml_problem(e: yaml.YAMLError, where: bool) -> str:
    """A YAML error in one line (``where``: with its line). safe_load builds plain data only: a tag such as
    ``!!python/object/apply:os.system`` is refused there, before anything is built, and named here as such."""
    problem = getattr(e, "problem", None) or str(e)
    tag = re.search(r"constructor for the tag '([^']*)'", problem)
    if tag:
        name = tag.group(1).replace("tag:yaml.org,2002:", "!!")
        problem = (f"the YAML tag {_shown(name)} asks for a Python object; a config holds plain values (numbers, "
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
                             f"got the {type(data).__name__} {_shown(data)}")
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
