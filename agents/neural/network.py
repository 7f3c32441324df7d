"""The actor-critic network and the masked policy it defines.

One set of weights plays every seat: the observation is already seat-relative. The actor
and the critic are separate MLPs (a shared trunk lets the value loss pull the policy's
features around, which PPO tolerates badly at this size). Illegal actions are removed by
setting their logits to a large negative number before the softmax, both when sampling
and in the loss, so they get exactly zero probability and zero gradient.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from euchre_env.agents.neural.belief import BeliefHead
from euchre_env.agents.neural.cpu_kernels import sample_rows, tanh
from euchre_env.agents.neural.limits import PRECISIONS
from euchre_env.agents.neural.sparse_input import SparseInputLinear, SparseRows, sparse_input

ILLEGAL_LOGIT = -1e9  # finite, so that 0 * logit stays 0 in the entropy (inf would give nan)


def _layers(sizes: list[int], out: int, out_gain: float, dense: bool = False) -> list[nn.Module]:
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        # The first layer sees the mostly-zero observation: on the CPU computed from its non-zero entries; on an
        # accelerator (``dense``) a plain ``nn.Linear`` and torch's tanh. The same parameters either way (the same
        # random draws, the same state dict), so a network's weights load into either form.
        if layers:
            linear = DenseLinear(a, b)
        elif dense:
            linear = nn.Linear(a, b)
        else:
            linear = SparseInputLinear(a, b)
        layers += [_init(linear, 2**0.5), nn.Tanh() if dense else Tanh()]
    layers.append(_init(DenseLinear(sizes[-1], out), out_gain))
    return layers


class DenseLinear(nn.Linear):
    """``nn.Linear`` (the same parameters and state dict) whose product can run in bfloat16.

    ``compute_dtype`` is float32 except inside :func:`matmul_precision`: there the input, weight and bias go
    into the product as bfloat16 and the result comes back as float32, so everything around it (activations,
    losses, gradients' sums, the optimizer's weights) stays float32, as mixed-precision training does. On a CPU
    with AVX-512 BF16 that product runs 4-5x faster (a 4,096 x 256 x 256 product: 3.1 ms in float32, 0.64 ms in
    bfloat16 on this project's 2-core machine); it is rounded to bfloat16's 8-bit mantissa on the way.
    """

    compute_dtype = torch.float32

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.compute_dtype is torch.float32:
            return super().forward(x)
        low = self.compute_dtype
        return F.linear(x.to(low), self.weight.to(low), self.bias.to(low))


def fastest_precision(rows: int = 4096, width: int = 256, repeats: int = 5, device: torch.device | str = "cpu"
                      ) -> str:
    """Whichever of :data:`PRECISIONS` multiplies a ``[rows, width] x [width, width]`` product faster on this
    machine's ``device``, timed now (a few milliseconds); bfloat16 only when at least 1.5x as fast, since it also
    rounds."""
    device = torch.device(device)
    x, w = torch.rand(rows, width), torch.rand(width, width)
    best = {}
    for name in PRECISIONS:
        dtype = getattr(torch, name)
        a, b = x.to(device, dtype), w.to(device, dtype)
        times = []
        for _ in range(repeats + 1):  # the first warms up
            start = time.perf_counter()
            torch.mm(a, b)
            synchronize(device)
            times.append(time.perf_counter() - start)
        best[name] = min(times[1:])
    return "bfloat16" if best["float32"] >= 1.5 * best["bfloat16"] else "float32"


def synchronize(device: torch.device) -> None:
    """Wait for the work queued on ``device`` (an accelerator runs it asynchronously; a CPU has none queued)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


@contextlib.contextmanager
def matmul_precision(model: nn.Module, precision: str) -> Iterator[None]:
    """Within the block the dense layers of ``model`` multiply in ``precision`` (one of :data:`PRECISIONS`);
    float32 again after it (a checkpoint's play and the collection's inference stay float32)."""
    if precision not in PRECISIONS:
        raise ValueError(f"matmul precision must be one of {list(PRECISIONS)}, got {precision!r}")
    dense = [m for m in model.modules() if isinstance(m, DenseLinear)]
    for m in dense:
        m.compute_dtype = getattr(torch, precision)
    try:
        yield
    finally:
        for m in dense:
            del m.compute_dtype  # back to the class's float32


class Tanh(nn.Module):
    """``nn.Tanh`` in one pass over a CPU batch (:func:`~euchre_env.agents.neural.cpu_kernels.tanh`: torch's CPU tanh
    takes ~10x as long as its sigmoid), bfloat16 in, bfloat16 out; within 2e-7 of torch's. No parameters, so
    the state dict is ``nn.Tanh``'s."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return tanh(x)


def _init(layer: nn.Linear, gain: float) -> nn.Linear:
    # Orthogonal weights and zero biases: the PPO initialisation that keeps early updates small.
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def _widened(out: torch.Tensor) -> torch.Tensor:
    """A network's output in float32 where the products ran in bfloat16 (any other dtype as it is)."""
    return out.float() if out.dtype == torch.bfloat16 else out


class _MLP(nn.Sequential):
    """``[SparseInputLinear, Tanh, (DenseLinear, Tanh)..., DenseLinear]``, run with the first layer's tanh done in
    its gather (:meth:`SparseInputLinear.forward_tanh`) and the hidden activations in the dense layers'
    ``compute_dtype``; the output is float32 (or the layers' own dtype, float64 say). The modules are those of
    ``nn.Sequential`` (so the state dict and checkpoints are unchanged); only the order of their work is fused.

    ``dense``: the accelerator's form, ``[nn.Linear, nn.Tanh, (DenseLinear, nn.Tanh)..., DenseLinear]``, torch's
    operations only (no CPU kernel), with the same parameters and state dict (:meth:`PolicyNet.copy` moves weights
    between the two forms). Its first layer multiplies in float32 under :func:`matmul_precision` too, as the
    sparse one does."""

    dense = False

    def hidden_activations(self, x: torch.Tensor | SparseRows) -> torch.Tensor:
        """The last hidden layer's activations, in the dense layers' compute dtype (the dense form: float32
        after the first layer, rounded by the next product where it multiplies in bfloat16)."""
        layers = list(self)
        h = layers[1](layers[0](x)) if self.dense else layers[0].forward_tanh(x, layers[-1].compute_dtype)
        for layer in layers[2:-1]:
            h = layer(h)
        return h

    def forward(self, x: torch.Tensor | SparseRows) -> torch.Tensor:
        return _widened(self[-1](self.hidden_activations(x)))


class PolicyNet(_MLP):
    """The actor: ``[batch, obs_size]`` observations -> ``[batch, num_actions]`` logits.

    It is all that plays a checkpoint: a :class:`~euchre_env.agents.neural.agent.NeuralAgent` holds a
    PolicyNet and nothing of the critic, so nothing it holds could have seen hidden cards.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], dense: bool = False) -> None:
        super().__init__(*_layers([obs_size, *hidden], num_actions, 0.01, dense))  # near-uniform first policy
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.hidden = list(hidden)
        self.dense = dense

    def masked_logits(self, obs: torch.Tensor | SparseRows, mask: torch.Tensor) -> torch.Tensor:
        return torch.where(mask, self(obs), ILLEGAL_LOGIT)

    def copy(self, dense: bool = False, device: torch.device | str = "cpu") -> PolicyNet:
        """A frozen copy of this actor's weights (in eval mode) in the ``dense`` or the sparse form, on ``device``:
        the CPU's sparse form plays a network trained on an accelerator, and the accelerator's dense form
        continues one trained on the CPU. Building it draws no number from torch's global generator."""
        with torch.random.fork_rng(devices=[]):  # the new layers' own initialisation, then overwritten
            net = PolicyNet(self.obs_size, self.num_actions, self.hidden, dense=dense)
        net.load_state_dict({k: v.detach().cpu() for k, v in self.state_dict().items()})
        return net.to(device).eval()


class ValueNet(_MLP):
    """The critic: ``[batch, input_size]`` -> ``[batch]`` values (training only)."""

    def __init__(self, input_size: int, hidden: list[int], dense: bool = False) -> None:
        super().__init__(*_layers([input_size, *hidden], 1, 1.0, dense))
        self.input_size = input_size
        self.dense = dense

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self(x).squeeze(-1)


class ActorCritic(nn.Module):
    """``logits, value = model(obs, mask, extra)``: ``obs`` ``[batch, obs_size]``, ``mask`` ``[batch, actions]``,
    ``extra`` ``[batch, critic_extra]``.

    The trainer's pair of networks; ``actor`` (a :class:`PolicyNet`) is what a checkpoint plays and sees
    ``obs`` only. The critic sees ``obs`` followed by ``critic_extra`` privileged features (the trainer's
    oracle: hidden cards the seat cannot see; 0 for a critic on the seat's observation alone). The critic
    only shapes the advantages during training, so what it knows never reaches play.

    ``dense``: both networks in the accelerator's form (:class:`_MLP`): the same parameters, drawn the same.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], critic_extra: int = 0,
                 solver_head: bool = False, belief_cards: int = 0, dense: bool = False) -> None:
        super().__init__()
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.critic_extra = critic_extra
        self.dense = dense
        self.actor = PolicyNet(obs_size, num_actions, hidden, dense)
        self.critic = ValueNet(obs_size + critic_extra, hidden, dense)
        # The auxiliary head of solver targets (training/solver_targets.py): a value per action from the
        # actor's features, which it shapes; trained, never played (checkpoints play the actor alone).
        self.solver_head = _init(DenseLinear(hidden[-1], num_actions), 1.0) if solver_head else None
        # The belief head (agents/neural/belief.py): where each of ``belief_cards`` card ids is, from the actor's
        # features; trained by supervision from the true deal, played only by a search that samples worlds.
        self.belief_head = BeliefHead(hidden[-1], belief_cards) if belief_cards else None

    def heads(self, obs: torch.Tensor | SparseRows, mask: torch.Tensor
              ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """``(masked logits, the solver head's per-action values, the belief head's [batch, cards, places]
        logits)`` from one pass through the actor; None for a head the model does not have."""
        features = self.actor.hidden_activations(obs)
        logits = torch.where(mask, _widened(self.actor[-1](features)), ILLEGAL_LOGIT)
        values = None if self.solver_head is None else _widened(self.solver_head(features))
        beliefs = None if self.belief_head is None else self.belief_head(features)
        return logits, values, beliefs

    def masked_logits(self, obs: torch.Tensor | SparseRows, mask: torch.Tensor) -> torch.Tensor:
        return self.actor.masked_logits(obs, mask)

    def value(self, obs: torch.Tensor | SparseRows, extra: torch.Tensor | SparseRows) -> torch.Tensor:
        if isinstance(obs, SparseRows):
            return self.critic.value(obs.hstack(extra))
        return self.critic.value(torch.cat([obs, extra], dim=-1))

    def forward(self, obs: torch.Tensor | SparseRows, mask: torch.Tensor, extra: torch.Tensor | SparseRows
                ) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.dense and not isinstance(obs, SparseRows):  # the non-zero entries found once, for both networks
            rows, extra_rows = sparse_input(obs), sparse_input(extra)
            if isinstance(rows, SparseRows) and isinstance(extra_rows, SparseRows):
                obs, extra = rows, extra_rows
        return self.masked_logits(obs, mask), self.value(obs, extra)


def sample_actions(
    logits: torch.Tensor, generator: torch.Generator | None = None, greedy: bool = False, kernel: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from masked ``logits`` (or their argmax) and their log-probabilities, on the logits' device.

    On a CPU float32 batch the draw is one C pass (:data:`~euchre_env.agents.neural.cpu_kernels.sample_rows`: a
    uniform from ``generator`` per row, inverted through the softmax's CDF); elsewhere, or with ``kernel=False``
    (the accelerator's code path, run on the CPU), ``torch.multinomial`` with ``generator``, which must then be
    on the logits' device. Both are exact draws from the softmax; they take different numbers from the
    generator."""
    if (kernel and not greedy and logits.device.type == "cpu" and logits.dtype == torch.float32
            and logits.dim() == 2):
        rows = logits.detach().contiguous().numpy()
        uniforms = torch.rand(rows.shape[0], generator=generator, dtype=torch.float64).numpy()
        actions, log_probs = np.empty(rows.shape[0], np.int64), np.empty(rows.shape[0], np.float32)
        sample_rows(rows.size, rows, uniforms, actions, log_probs)
        if (actions < 0).any():  # a NaN logit: a diverged network
            bad = int(np.flatnonzero(actions < 0)[0])
            raise ValueError(f"sample_actions: row {bad} of the logits holds a NaN; no distribution to draw from")
        return torch.from_numpy(actions), torch.from_numpy(log_probs)
    log_probs = torch.log_softmax(logits, dim=-1)
    if greedy:
        actions = logits.argmax(dim=-1)
    else:
        actions = torch.multinomial(log_probs.exp(), 1, generator=generator).squeeze(-1)
    return actions, log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)


def log_prob_and_entropy(logits: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of ``actions`` and the entropy of the masked policy (illegal actions add 0)."""
    log_probs = torch.log_softmax(logits, dim=-1)
    # softmax, not log_probs.exp(): torch's CPU exp takes a slow path on inputs below about -88 (every illegal
    # action's), 5x the time on a PPO minibatch; the two agree to one float32 rounding.
    entropy = -(torch.softmax(logits, dim=-1) * log_probs).sum(-1)
    return log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1), entropy
