"""The sections of a training config, each a dataclass of its keys: their defaults, meanings and ranges.

A numeric key declares its range on its field (:func:`~euchre_env.training.ranges.bounded`): the one place a
reader finds what a key means and what it allows. :class:`~euchre_env.training.config.TrainConfig` gathers the
sections; an algorithm of the trainer (docs/training.md, "Adding an algorithm") adds its own section here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from euchre_env.agents.neural.limits import MAX_WIDTH
from euchre_env.agents.registry import NETWORK_SEARCHES
from euchre_env.training.ranges import (
    DEALS,
    DECISIONS,
    LEARNING_RATE,
    MINIBATCH,
    SEED,
    UPDATES,
    WORKERS,
    Range,
    bounded,
)


@dataclass
class RunConfig:
    seed: int = bounded(1, SEED)
    # learner decisions to train on (forced moves are not counted); at most years at the 16,000 decisions a second
    # of a 2-core machine
    total_decisions: int = bounded(2_000_000, Range(1, 10**12))
    # stop earlier when training has taken this long (0: no limit); at most about two years, .inf and .nan refused
    max_minutes: float = bounded(0.0, Range(0, 10**6, integer=False, zero="no limit"))
    # More than this process's cores is capped at the cores, with a warning: torch crashes (a segmentation fault)
    # when asked for far more threads than there are cores (threads_here), so a config moves between machines.
    torch_threads: int = bounded(2, Range(1, None))
    checkpoint_every: int = bounded(10, UPDATES)  # updates between checkpoints (latest.pt)
    # Where self-play collects: "local" (this process) or "ray" (Ray actors, the section ray below).
    backend: str = "local"
    # Where the networks run (rollout inference and the PPO update): "cpu" (the sparse first layer and its C
    # kernels), "cuda" or "cuda:N", "mps", or "auto" (cuda if torch sees one, else mps, else cpu; the run's config
    # records the device it resolved to). "cpu-dense" runs the accelerator's code path on the CPU (tests).
    device: str = "cpu"


@dataclass
class RayConfig:
    # Ray actors collecting self-play when run.backend is "ray", one CPU each; more than the cluster has is refused
    # when Ray starts (training/ray_collect.py).
    rollout_workers: int = bounded(2, Range(1, 1024))
    address: str = ""  # "": start a local Ray instance; "auto" or HOST:PORT: join that cluster


@dataclass
class RulesConfig:
    preset: str = "knock"
    options: dict[str, Any] = field(default_factory=dict)  # rules options of docs/RULES.md over the preset


@dataclass
class ModelConfig:
    # each layer's width (agents/neural/network.py says why it is bounded)
    hidden: list[int] = field(default_factory=lambda: [256, 256], metadata={"range": Range(1, MAX_WIDTH)})
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
LEAGUE_KEEP = ("spread", "recent")
AUTO_PRECISION = "auto"  # ppo.matmul_precision: resolved by the trainer on the machine the run starts on


@dataclass
class PPOConfig:
    # games stepped in lockstep, one batched forward pass per step; each game reserves its hand in progress in the
    # rollout's arrays (56 rows in bid): 8,192 games, 2 GB
    num_games: int = bounded(128, Range(1, 8192))
    rollout_decisions: int = bounded(8192, DECISIONS)  # learner decisions per update (hands in progress finish)
    lr: float = bounded(3e-4, LEARNING_RATE)  # the actor's (and the critic's when critic_lr is 0)
    # the critic's own learning rate (0: the critic shares lr and one param group)
    critic_lr: float = bounded(0.0, Range(0, 1, integer=False, zero="the critic shares ppo.lr"))
    anneal_lr: bool = True
    gamma: float = bounded(1.0, Range(0, 1, integer=False))  # within a hand; every hand is its own episode
    gae_lambda: float = bounded(0.95, Range(0, 1, integer=False))
    epochs: int = bounded(4, Range(1, 100))
    minibatch_size: int = bounded(2048, MINIBATCH)
    clip: float = bounded(0.2, Range(0, 1, integer=False, above=True))  # 0 would allow no change of the policy
    clip_value: bool = False
    ent_coef: float = bounded(0.01, Range(0, 1, integer=False))
    vf_coef: float = bounded(0.5, Range(0, 10, integer=False))
    # 0 would scale every gradient to zero
    max_grad_norm: float = bounded(0.5, Range(0, 1000, integer=False, above=True))
    # stop the epochs of an update when the approximate KL passes this (0: never)
    target_kl: float = bounded(0.0, Range(0, 10, integer=False, zero="never stop early"))
    norm_adv: bool = True
    # hand points times this is the reward the learner sees (0 would make every reward zero)
    reward_scale: float = bounded(0.25, Range(0, 100, integer=False, above=True))
    # Solver targets (training/solver_targets.py): an auxiliary head on the actor's features regressed onto
    # the double-dummy value of each legal card, at this share of the learner's play decisions, with this
    # weight in the loss (0: none).
    solver_coef: float = bounded(0.0, Range(0, 10, integer=False, zero="no solver targets"))
    solver_fraction: float = bounded(0.25, Range(0, 1, integer=False, above=True))
    # The belief head (agents/neural/belief.py): an auxiliary head on the actor's features that learns where each
    # unseen card is, by cross-entropy against the true deal (read from the oracle critic's features, so it needs
    # model.critic: oracle), with this weight in the loss (0: no head). It trains in the critic's parameter group
    # (ppo.critic_lr), so it learns on the actor's features during ppo.critic_warmup too.
    belief_coef: float = bounded(0.0, Range(0, 100, integer=False, zero="no belief head"))
    # What the dense layers multiply in during the PPO epochs: "float32", or "bfloat16" (inputs and weights
    # rounded to an 8-bit mantissa for the product, everything else float32; 4-5x faster products on a CPU with
    # AVX-512 BF16 or AMX, far slower on one without), or "auto": the one that multiplies faster on the machine
    # the run starts on, timed then and saved in the run's config. Collection and play stay float32.
    matmul_precision: str = "float32"
    # The first updates of a run in which only the critic learns (the actor's learning rate held at 0): a fresh
    # critic (model.init) fits the values before its advantages move a trained policy. The critic learns in its
    # own parameter group then, at ppo.critic_lr (or ppo.lr when that is 0).
    critic_warmup: int = bounded(0, Range(0, 10**6, zero="the actor learns from the first update"))


@dataclass
class PretrainConfig:
    # Behaviour cloning of a teacher before PPO (training/imitation.py); "" skips it.
    teacher: str = ""
    decisions: int = bounded(200_000, DECISIONS)  # teacher decisions recorded (all four seats play the teacher)
    epochs: int = bounded(3, Range(1, 100))
    minibatch_size: int = bounded(1024, MINIBATCH)
    lr: float = bounded(1e-3, LEARNING_RATE)


# expert.search: the searches that label an expert phase's decisions, by name -> (module, class): the registry's
# searches over a network (search:, anchored:, calls:). Imported when a run with phases starts (training/expert.py),
# not when its config is read, so that reading a config imports no search.
EXPERT_SEARCHES = NETWORK_SEARCHES


@dataclass
class ExpertConfig:
    # Expert iteration (training/expert.py): every `every` PPO updates a phase plays self-play games with the
    # current network in every seat, asks a search around a frozen copy of it for its action at a sample of the
    # decisions, and trains the actor toward the search's policy; then PPO resumes. 0: no phases (the default).
    every: int = bounded(0, Range(0, 10**6, zero="off"))
    # decisions labelled by the search per phase (the search is most of a phase's time), held at once as a
    # rollout's are
    decisions: int = bounded(2000, DECISIONS)
    # the share of the phase's decisions labelled: the labels spread over more games (0 would label nothing)
    fraction: float = bounded(0.25, Range(0, 1, integer=False, above=True))
    search: str = "search"  # which search labels: "search" (network-guided), "anchored" or "calls" (EXPERT_SEARCHES)
    # The search's worlds per decision; 0: the search's own default (anchored 32, calls 256). The search replays and
    # rolls out worlds x legal actions games at once: 1,024 worlds are thousands of games.
    worlds: int = bounded(0, Range(0, 1024, zero="the search's own default"))
    # The search's policy at a labelled decision: 0 its chosen action alone (one-hot); above 0 the softmax of its
    # per-action values (the hand's margin in points) at this temperature.
    temperature: float = bounded(0.0, Range(0, 100, integer=False, zero="the search's action alone"))
    # The target at a labelled decision is (network + coef x search) / (1 + coef), the minimum of the loss's KL
    # term toward the search (weight coef) beside its KL term toward the network as it was (weight 1): coef 1
    # moves the policy halfway to the search's. 0 would learn nothing (expert.every: 0 turns phases off).
    coef: float = bounded(1.0, Range(0, 100, integer=False, above=True))
    epochs: int = bounded(4, Range(1, 100))  # passes over the labelled decisions
    # labelled decisions a step (and as many of the phase's other decisions)
    minibatch_size: int = bounded(256, MINIBATCH)
    lr: float = bounded(1e-4, LEARNING_RATE)  # the distillation's own Adam, fresh each phase (PPO's is not touched)


@dataclass
class LeagueConfig:
    # Who the learner plays, drawn per game: "self" (all four seats learn), "past" (a frozen earlier
    # snapshot holds one team) or any agent spec of euchre_env.agents.registry (random, rules, pimc:N); relative
    # weights, drawn in proportion (their sum above 0).
    mix: dict[str, float] = field(default_factory=lambda: {"self": 0.5, "past": 0.2, "rules": 0.25, "random": 0.05},
                                  metadata={"range": Range(0, 10**6, integer=False)})
    snapshot_every: int = bounded(20, UPDATES)  # updates between snapshots added to the league
    # the league's size, each a frozen actor in memory; beyond it one snapshot is dropped, as ``keep`` says
    max_snapshots: int = bounded(10, Range(1, 100))
    # "spread": drop the snapshot closest to its elder neighbour (never the oldest or the newest), so the
    # league spans the whole run at even spacing; "recent": drop the oldest (the last max_snapshots remain).
    keep: str = "spread"


@dataclass
class EvalConfig:
    every: int = bounded(25, Range(0, 10**6, zero="never"))  # updates between duplicate evaluations
    hands: int = bounded(500, DEALS)  # duplicate deals per opponent (each played twice)
    opponents: list[str] = field(default_factory=lambda: ["random", "rules"])
    seed: int = bounded(12345, SEED)
    workers: int = bounded(1, WORKERS)
    # Final selection: at the end of training the weights of the last ``select_last`` periodic evaluations
    # (and the final ones) play ``select_hands`` fresh duplicate deals of ``select_seed`` against
    # ``opponents[-1]``; the best becomes best.pt. 0: best.pt is the best periodic evaluation. Each candidate is
    # a checkpoint file until the end.
    select_last: int = bounded(0, Range(0, 100, zero="no selection"))
    select_hands: int = bounded(5000, DEALS)
    select_seed: int = bounded(777, SEED)


@dataclass
class FinalEvalConfig:
    # At the end of training: best.pt against each opponent, with this many duplicate deals (use a seed
    # that neither training, the periodic evaluations nor the selection used: that margin is unbiased).
    opponents: dict[str, int] = field(default_factory=lambda: {"random": 10000, "rules": 10000, "pimc:50": 200},
                                      metadata={"range": DEALS})
    seed: int = bounded(2026, SEED)
    workers: int = bounded(2, WORKERS)
