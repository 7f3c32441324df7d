"""Expert iteration: a search labels the network's own decisions, and the actor learns the search's policy.

With ``expert.every`` above 0 the trainer runs an *expert phase* (:class:`ExpertIteration`) every ``expert.every``
PPO updates (from the end of ``ppo.critic_warmup`` on), then PPO resumes; the loop repeats. A phase:

1. **Labels** (:func:`label_decisions`). Self-play games of the current network in every seat, on the collector of
   the PPO rollouts (:meth:`SelfPlay.collect` with a ``teacher``, as the behaviour cloning records its
   demonstrations). Every seat plays the network *sampled*, as PPO's rollouts do, so that the labelled states are
   the ones PPO trains on and cover more than a greedy network's narrow lines; the search is greedy where it
   must be (its rollouts). At a random ``expert.fraction`` of the decisions (up to ``expert.decisions`` a phase) the
   search (``expert.search``: ``search``, :class:`~euchre_env.agents.search.guided.GuidedSearchAgent`,
   ``anchored``, ``AnchoredSearchAgent``, or ``calls``, ``CallSearchAgent``) around a frozen copy of the network,
   with ``expert.worlds`` worlds, gives its action and its per-action values; the game goes on with the network's
   action (the states stay the network's). The search's policy is its action (``expert.temperature`` 0) or the
   softmax of its values. A decision the search leaves to the network (the call search's card plays) is not
   labelled.
2. **Distillation** (:func:`distill`). The actor alone, with an Adam of its own (fresh each phase, so there is no
   state to keep and PPO's optimizer is untouched), minimises over ``expert.epochs`` passes of the labelled
   decisions a KL term toward the search's policy (weight ``expert.coef``) beside a KL term toward the network as
   it was at the phase's start (weight 1), on the labelled decisions and on as many of the phase's other
   decisions. At a labelled decision the minimum of the two is the mixture ``(network + coef x search) / (1 +
   coef)``, which is the target used; at the others it is the network itself, so the pull toward the labels moves
   the rest of the policy only as far as the labels need. That anchor is what PPO's clipping is to an update: a
   trust region, here around the policy PPO left. PPO's own loss stays where it is, on fresh rollouts between
   the phases (a PPO loss on the phase's games would need advantages of a policy the phase is changing).

Why not the KL term inside PPO's minibatches over a retained labelled set: it would tie every update to a set
labelled by an older network (off-policy labels), keep that set in every checkpoint, and share Adam's moments
between two losses of different scales; a phase of its own is one step of policy improvement (the search's) that
PPO then builds on, as expert iteration alternates them.

Determinism: every random choice of a phase (the games, which decisions are labelled, the network's draws, the
search's worlds, the distillation's minibatches) comes from generators seeded with (run seed, update,
:data:`EXPERT_STREAM`), and the search's network is a copy of the weights, so a phase depends only on the seed,
the update and the weights. Nothing of a phase is saved but the update it followed (``expert_update`` in the
checkpoint's counters): a run interrupted before a phase ended redoes it from the same weights, and the resumed
run is the same as one never interrupted.
"""

from __future__ import annotations

import copy
import importlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import nn

from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.neural.belief import BeliefHead
from euchre_env.agents.neural.network import PolicyNet
from euchre_env.agents.neural.sparse_input import SparseRows
from euchre_env.evaluation.pool import one_torch_thread
from euchre_env.evaluation.progress import progress_bar
from euchre_env.game.rules import Rules
from euchre_env.training.config import TrainConfig
from euchre_env.training.phase import PhaseResult
from euchre_env.training.ranges import DECISIONS
from euchre_env.training.sections import EXPERT_SEARCHES, ExpertConfig
from euchre_env.training.selfplay import SELF, SelfPlay

if TYPE_CHECKING:
    from euchre_env.training.interrupt import InterruptGuard
    from euchre_env.training.train import Trainer

# The (seed, update, stream) key of a phase's generators: PPO's collection is stream 0, the behaviour cloning's 1.
EXPERT_STREAM = 7
BATCH = 4096  # rows a no-grad pass of the actor over a phase's decisions


def search_class(name: str) -> type:
    """The search class ``expert.search`` names, imported now (a run with phases imports it when it starts, before
    its folder is written): ValueError in one line when this installation lacks it."""
    module, attribute = EXPERT_SEARCHES[name]
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"config expert.search {name!r} needs {module}.{attribute}, which this installation lacks "
                         f"({e}); use expert.search: search") from None


def phase_rng(seed: int, update: int, part: int) -> np.random.Generator:
    """The generator of one part of the phase after ``update`` (the parts: 0 play, 1 which decisions, 2 the search's
    seed, 3 the distillation's minibatches)."""
    return np.random.default_rng([seed, update, EXPERT_STREAM, part])


@dataclass
class Labels:
    """A phase's decisions (all of them: the distillation's anchor reads the unlabelled ones too) and the labels."""

    obs: np.ndarray  # [n, obs_size] float32, the actor's input at each decision of the phase
    mask: np.ndarray  # [n, num_actions] bool, in the frame of the observation
    rows: np.ndarray  # [m] int64: the labelled decisions, ascending
    policy: np.ndarray  # [m, num_actions] float32: the search's policy at each (in the frame of the observation)
    search_action: np.ndarray  # [m] int64: the search's action (the frame of the observation)
    network_action: np.ndarray  # [m] int64: the network's greedy action there, what the search starts from
    hands: int = 0
    seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def disagreement(self) -> float:
        """The share of labelled decisions at which the search chose another action than the greedy network."""
        return float(np.mean(self.search_action != self.network_action)) if len(self) else 0.0


class SearchLabeller:
    """The phase's "teacher" for :meth:`SelfPlay.collect`: it plays the network (sampled) at every learner decision
    and, at a random share of them, asks the search for its policy there. Its calls come in the order of the
    rollout's rows (the collector asks one decision at a time, row after row), so its ``k``-th call labels row
    ``k``; :func:`label_decisions` checks that against the rollout's own observations."""

    name = "expert labeller"
    needs_observation = False  # it encodes from info["information_state"], as NeuralAgent does

    def __init__(self, network: NeuralAgent, search: Any, cfg: ExpertConfig, seed: int, update: int,
                 on_label: Callable[[int], None] | None = None) -> None:
        # network: the frozen network the search is built around; its encoding is the labels' (and the rollout's)
        self.network, self.actor, self.search = network, network.model, search
        self.budget, self.fraction, self.temperature = cfg.decisions, cfg.fraction, cfg.temperature
        self.play_rng, self.label_rng = phase_rng(seed, update, 0), phase_rng(seed, update, 1)
        self.on_label = on_label
        self.asked = 0  # decisions asked so far: the row of the next one
        self.rows: list[int] = []
        self.obs: list[np.ndarray] = []  # each labelled row's input as encoded here (the alignment check)
        self.policy: list[np.ndarray] = []
        self.search_action: list[int] = []
        self.network_action: list[int] = []

    @property
    def done(self) -> bool:
        return len(self.rows) >= self.budget

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info["information_state"]
        obs, mask, frame = self.network.encode(state)
        canonical = int if frame is None else frame.to_canonical_action
        with torch.no_grad():
            logits = self.actor.masked_logits(torch.from_numpy(obs)[None], torch.from_numpy(mask)[None])[0]
        probs = torch.softmax(logits.double(), -1).numpy()
        play = int(self.play_rng.choice(len(probs), p=probs / probs.sum()))  # sampled, as PPO's rollouts play
        row, self.asked = self.asked, self.asked + 1
        # One draw a decision whether labelled or not: which decisions are labelled depends on the row alone.
        if self.label_rng.random() < self.fraction and not self.done:
            action, values = self.search.search(state)
        else:
            values = None
        # A decision the search leaves to the network (the call search's card plays) teaches nothing: no label,
        # the budget goes to the decisions searched.
        if values is not None:
            target = np.zeros(self.actor.num_actions, np.float32)
            if self.temperature > 0:
                acts = list(values)
                v = np.array([values[a] for a in acts]) / self.temperature
                p = np.exp(v - v.max())
                target[[canonical(a) for a in acts]] = p / p.sum()
            else:
                target[canonical(action)] = 1.0
            self.rows.append(row)
            self.obs.append(obs.copy())
            self.policy.append(target)
            self.search_action.append(canonical(action))
            self.network_action.append(int(logits.argmax()))
            if self.on_label is not None:
                self.on_label(len(self.rows))
        return play if frame is None else frame.to_absolute_action(play)


def label_decisions(selfplay: SelfPlay, actor: PolicyNet, rules: Rules, config: TrainConfig, search: type,
                    update: int, stop: Callable[[], bool] | None = None,
                    on_label: Callable[[int], None] | None = None, belief: BeliefHead | None = None) -> Labels:
    """The phase after ``update``: self-play of a frozen copy of ``actor`` (``selfplay`` collects for all four
    seats) until ``expert.decisions`` decisions are labelled by the ``search`` class around that copy, or ``stop``
    answers true (the run's time limit: the hands in progress finish, and the labels are what was made).
    ``belief``: the run's belief head (``ppo.belief_coef``), a frozen copy of which the search's network carries,
    so that the anchored and call searches draw their worlds from it."""
    cfg, seed = config.expert, config.run.seed
    frozen = actor.copy()  # the CPU's form, in eval mode: PPO goes on with the live one after the phase
    network = NeuralAgent(frozen, rules, observation=config.model.observation, greedy=True,
                          name=f"the network of update {update}")
    if belief is not None:
        network.belief = copy.deepcopy(belief).cpu().eval()
    worlds = {"worlds": cfg.worlds} if cfg.worlds else {}  # 0: the search's own default
    searcher = search(network, **worlds, seed=int(phase_rng(seed, update, 2).integers(2**32)))
    labeller = SearchLabeller(network, searcher, cfg, seed, update, on_label)
    # Enough decisions that the labels are reached: about decisions / (fraction x the share of the decisions the
    # search searches, ``searched_share``, 1 unless the search says), give or take a few standard deviations (the
    # margin). The stop below ends the games as soon as they are; the budget sizes the collector's buffers (about
    # 4 KB a decision) and is also the most a phase plays, so a search whose searched_share is too high ends its
    # phase with fewer labels (the phase's log line says how many).
    share = getattr(search, "searched_share", 1.0)
    budget = min(math.ceil(1.25 * cfg.decisions / (cfg.fraction * share)) + 100, int(DECISIONS.high))
    start = time.perf_counter()

    def enough() -> bool:
        return labeller.done or (stop is not None and stop())

    with one_torch_thread():
        played = selfplay.collect(budget, seed, update, teacher=labeller, stream=EXPERT_STREAM, stop=enough)
    rows = np.array(labeller.rows, np.int64)
    if labeller.asked != len(played) or (len(rows) and not np.array_equal(np.array(labeller.obs), played.obs[rows])):
        raise RuntimeError(f"expert phase after update {update}: the labels are out of step with the collected "
                           f"decisions ({labeller.asked} asked, {len(played)} recorded)")
    num_actions = actor.num_actions
    return Labels(played.obs, played.mask, rows,
                  np.array(labeller.policy, np.float32).reshape(len(rows), num_actions),
                  np.array(labeller.search_action, np.int64), np.array(labeller.network_action, np.int64),
                  played.hands, time.perf_counter() - start)


def _kl(target: torch.Tensor, log_p: torch.Tensor) -> torch.Tensor:
    """KL(target || p) per row, with 0 log 0 = 0 (illegal actions have target 0)."""
    log_t = torch.where(target > 0, target.clamp_min(1e-30).log(), torch.zeros_like(target))
    return (target * (log_t - log_p)).sum(-1)


def distill(actor: PolicyNet, labels: Labels, cfg: ExpertConfig, max_grad_norm: float,
            generator: torch.Generator) -> dict[str, float]:
    """Train ``actor`` toward the search's policy at the labelled decisions (the module docstring's two KL terms);
    returns the phase's figures: ``labelled``, ``disagreement`` (the search against the greedy network, before),
    ``agreement_after`` (the greedy network now chooses the search's action), ``kl_before`` and ``kl_after`` (to
    the target, over the labelled decisions), ``anchor_kl`` (how far the other decisions moved: KL from the network
    as it was), ``distill_loss`` (the last epoch's mean loss) and ``epochs``. On one torch thread
    (:func:`~euchre_env.evaluation.pool.one_torch_thread`: a phase's products are one decision or a few
    hundred rows, where a second thread mostly waits; a 1,000-label distillation took 0.3 s on one thread and 13 s
    on two, 2026-12-06)."""
    with one_torch_thread():
        return _distill(actor, labels, cfg, max_grad_norm, generator)


def _distill(actor: PolicyNet, labels: Labels, cfg: ExpertConfig, max_grad_norm: float,
             generator: torch.Generator) -> dict[str, float]:
    m = len(labels)
    stats = {"labelled": float(m), "disagreement": labels.disagreement}
    if m == 0:  # the time limit came before any label: nothing to learn
        return stats
    device = actor[0].weight.device if actor.dense else None

    def tensor(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a) if device is None else torch.from_numpy(a).to(device)

    # The CPU's sparse first layer reads the non-zero entries, found once for every epoch (as the PPO update does).
    obs = SparseRows.from_dense(labels.obs) if device is None else tensor(labels.obs)
    mask = tensor(labels.mask)
    n = len(labels.mask)

    def log_policy(index: torch.Tensor | None = None) -> torch.Tensor:
        """The actor's log-probabilities at ``index`` (None: every decision, in passes of BATCH rows)."""
        if index is not None:
            return torch.log_softmax(actor.masked_logits(obs[index], mask[index]), -1)
        parts = [log_policy(torch.arange(s, min(s + BATCH, n), device=device)) for s in range(0, n, BATCH)]
        return torch.cat(parts)

    rows = tensor(labels.rows)
    others = tensor(np.setdiff1d(np.arange(n), labels.rows))
    actor.eval()
    with torch.no_grad():
        old = log_policy().exp()  # the network at the phase's start: the anchor's target
        target = (old[rows] + cfg.coef * tensor(labels.policy)) / (1 + cfg.coef)
        kl_before = _kl(target, old[rows].clamp_min(1e-30).log()).mean().item()
    optimizer = torch.optim.Adam(actor.parameters(), lr=cfg.lr, eps=1e-5)
    losses: list[float] = []
    actor.train()
    for _ in range(cfg.epochs):
        losses = []
        order = torch.randperm(m, generator=generator)
        for start in range(0, m, cfg.minibatch_size):
            mb = order[start:start + cfg.minibatch_size]
            if device is not None:
                mb = mb.to(device)
            loss = _kl(target[mb], log_policy(rows[mb])).mean()
            if len(others):  # as many of the other decisions, drawn at random: the anchor
                pick = torch.randint(len(others), (len(mb),), generator=generator)
                index = others[pick if device is None else pick.to(device)]
                loss = loss + _kl(old[index], log_policy(index)).mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(actor.parameters(), max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
    actor.eval()
    with torch.no_grad():
        now = log_policy()
        stats["agreement_after"] = (now[rows].argmax(-1) == tensor(labels.search_action)).float().mean().item()
        stats["kl_before"] = kl_before
        stats["kl_after"] = _kl(target, now[rows]).mean().item()
        stats["anchor_kl"] = _kl(old[others], now[others]).mean().item() if len(others) else 0.0
    stats["distill_loss"] = float(np.mean(losses))
    stats["epochs"] = float(cfg.epochs)
    return stats


def distill_generator(seed: int, update: int) -> torch.Generator:
    """The distillation's minibatch generator of the phase after ``update`` (on the CPU, the same on every device)."""
    return torch.Generator().manual_seed(int(phase_rng(seed, update, 3).integers(2**62)))


class ExpertIteration:
    """The expert phase after an update: the search labels decisions of the network's self-play, then the actor is
    distilled toward its policy. Due every ``expert.every`` updates once the critic's warm-up is over (a phase
    moves the actor, which the warm-up holds), once per update. Its state: the update after which the last phase
    ran (-1: none yet; a run cut during a phase redoes it, from the same weights) and the decisions labelled so far.
    The search's class is imported when the phase is made: a missing one fails before the run's folder is written."""

    opening = False

    def __init__(self, cfg: ExpertConfig) -> None:
        self.search = search_class(cfg.search)
        self.update = -1
        self.labels = 0

    def due(self, run: Trainer) -> bool:
        every = run.config.expert.every
        return run.update >= run.config.ppo.critic_warmup and run.update % every == 0 and self.update < run.update

    def run(self, run: Trainer, guard: InterruptGuard) -> PhaseResult:
        """Ctrl-C during the labels abandons the phase as a collection is (the network is untouched; a resumed run
        redoes it); the distillation, which changes the network, finishes first, as an update's learning does."""
        cfg, ex = run.config, run.config.expert
        run.doing = f"the expert phase after update {run.update}"
        start = time.perf_counter()
        bar = progress_bar(ex.decisions, f"expert labels ({ex.search}, {ex.worlds} worlds)", "decisions",
                           enabled=run.progress, leave=False)  # the log line below says what it found
        with bar:
            labels = label_decisions(run.selfplay_for({SELF: 1.0}, {}), run.model.actor, run.rules, cfg,
                                     self.search, run.update, stop=run.past_limit,
                                     on_label=lambda k: bar.update(k - bar.n), belief=run.model.belief_head)
        with guard.finishing(run.update):
            t = time.perf_counter()
            stats = distill(run.model.actor, labels, ex, cfg.ppo.max_grad_norm, distill_generator(cfg.run.seed,
                                                                                                  run.update))
            end = time.perf_counter()
            self.update = run.update
            self.labels += len(labels)
            stats.update(decisions_played=float(len(labels.mask)), hands=float(labels.hands),
                         label_seconds=labels.seconds, distill_seconds=end - t, seconds=end - start)
            for key, value in stats.items():
                run.writer.add_scalar(f"expert/{key}", value, run.update)
            moved = (f", agreement {1 - stats['disagreement']:.1%} -> {stats['agreement_after']:.1%}, KL to the "
                     f"target {stats['kl_before']:.3f} -> {stats['kl_after']:.3f}, the other decisions moved KL "
                     f"{stats['anchor_kl']:.4f}" if len(labels) else "")
            run.log(f"expert phase after update {run.update} ({ex.search}, {ex.worlds} worlds): {len(labels):,} "
                    f"decisions labelled of {len(labels.mask):,} played, the search disagreed with the network at "
                    f"{stats['disagreement']:.1%}{moved}; {end - start:.0f} s (labels {labels.seconds:.0f} s, "
                    f"distillation {end - t:.1f} s)")
        return PhaseResult(stats)

    def state_dict(self) -> dict[str, Any]:
        return {"expert_update": self.update, "expert_labels": self.labels}

    def load_state_dict(self, counters: dict[str, Any]) -> None:
        self.update = counters.get("expert_update", -1)
        self.labels = counters.get("expert_labels", 0)
