"""C kernels beside torch's CPU operations: how they are dispatched, bfloat16 as bits, and a one-pass tanh.

The networks' training on a CPU is bounded by memory traffic as much as by arithmetic: a PPO minibatch's
activations are 4,096 x 256 float32 (4 MiB, larger than a core's cache), and every torch operation on them
reads and writes them whole. Torch's CPU tanh is slow (1.2 ms on such a batch, against 0.12 ms for its
sigmoid), ``2 sigmoid(2x) - 1`` is four passes, and a bfloat16 product adds a conversion pass before and after
it. The kernels here do that work in one pass over a row while it is in the cache. They are C
(``agents/neural/c/kernels.c``, the loops in ``rows.h``), built into ``euchre_env.agents.neural._kernels`` when
the package is installed:

- tanh (``tanh32`` in C): ``1 - 2 / (exp(2x) + 1)``, with the exponential split into a power of two and a
  degree-7 Taylor polynomial of the remainder (|r| <= ln 2 / 2; within 1e-7 relative over the range used):
  plain float32 arithmetic that the compiler turns into vector instructions. Within 2e-7 of torch's tanh, as the
  sigmoid form is; a NaN stays a NaN.
- :func:`bfloat16_bits`: float32 rounded to bfloat16 (to nearest, ties to even: torch's conversion, bit for
  bit), as the 16-bit patterns, which NumPy holds as ``uint16`` and torch views as ``torch.bfloat16``; the
  kernels widen such bits back to float32 exactly.
- :data:`tanh_rows` and :data:`tanh_grad_rows`: the hidden layers' tanh and its gradient, from and to float32
  or bfloat16. The gradient's ``1 - y^2`` is one fused multiply-add, as in torch's ``tanh_backward`` on a CPU
  with FMA: the same bits.
- :data:`sample_rows`: an action drawn from each row of masked logits by the inverse of its CDF, with its
  log-probability (``torch.multinomial`` takes ~75 us on a collector's batch of ~58 rows; this kernel ~10 us).

The float loops are compiled twice, for any CPU and, with GCC or clang on x86-64, for AVX2 with FMA; the copy the
CPU can run is picked at import (``_kernels.isa()``). The two give the same bits (the rounding to bfloat16, tanh's
gradient, the sampler, the sparse rows) except where the AVX2 copy fuses a multiply and an add that the other
rounds apart (tanh's polynomial, the first layer's sums: a last bit here and there, as the Numba build did with
its fast-math flags); ``tests/agents/test_cpu_kernels.py`` runs on both. :class:`Kernel` runs a kernel on a
batch's rows: for a large batch cut into slices on as many threads as torch uses (on torch's own OpenMP threads,
below; else ``euchre_env.compiled.native.run_slices``'s Python threads, each calling the kernel on its rows with
the GIL released; each row is computed whole by one, so the results do not depend on the count), for the few rows
of a collector's inference in one call on the caller's thread, where handing slices to threads costs more than it
saves.

Slices and torch's threads: torch runs its own operations on an OpenMP team whose threads spin for a while after
each one, waiting for the next. Slices handed to Python threads between two torch operations waited for those
spinning threads to give up their cores, so a large batch's slices run on that same team instead (its threads pick
them up at once): a PPO step of the actor and the oracle critic (4,096 rows) took 42-44 ms against 65-67 ms on
Python threads, and the trainer's end-to-end rate rose from 9.4-12.0k to 13.5-15.3k learner decisions a second
(docs/speed.md). Where torch has no such team the slices go to Python threads. Either way each row is computed
whole by one thread, so the results are the same bits; a process forked from one that used the team must run
torch on one thread (``torch.set_num_threads(1)``, as the evaluation's workers do), which torch's own operations
need there too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from euchre_env.compiled.native import extension, run_slices

_k = extension("agents.neural._kernels")

# Below this much work (non-zero entries, or elements) a call runs on one thread: about 400 observations.
PARALLEL_WORK = 20_000
# Whether a large batch's slices run on torch's OpenMP team (agents/neural/c/team.h): found among the symbols torch
# loaded (libgomp on Linux, LLVM's libomp elsewhere), else they go to Python threads (run_slices).
ON_TORCH_TEAM = _k.team()


def _rows(first: np.ndarray, *args: Any) -> int:
    return len(first)


class Kernel:
    """A C kernel ``fn(*args, lo, hi, c)`` over a batch's rows (``count(*args)`` of them): on as many threads as
    torch uses for :data:`PARALLEL_WORK` or more, else on the caller's thread."""

    def __init__(self, fn: Callable[..., Any], count: Callable[..., int] = _rows) -> None:
        self.fn, self.count = fn, count

    def __call__(self, work: int, *args: Any) -> None:
        if work < PARALLEL_WORK:  # the whole batch in one call: the fewest steps for a few rows
            self.fn(*args, 0, self.count(*args), 0)
        elif ON_TORCH_TEAM:  # slices on torch's own OpenMP threads (a negative c asks for that many)
            self.fn(*args, 0, self.count(*args), -torch.get_num_threads())
        else:
            run_slices(self.fn, self.count(*args), torch.get_num_threads(), *args)


tanh_rows = Kernel(_k.tanh_rows)
"""``tanh_rows(work, pre, y, low)``: ``y = tanh(pre)`` (``pre`` float32 or bfloat16 bits) and, where ``low`` is
not None, ``low = y`` as bfloat16 bits."""
tanh_grad_rows = Kernel(_k.tanh_grad_rows)
"""``tanh_grad_rows(work, grad, y, out, low)``: ``grad * (1 - y^2)``, the gradient before a tanh from the one after
it (``grad``: float32 or bfloat16 bits; ``y``: the tanh's float32 output), computed in float32 as torch's
``tanh_backward`` is, into ``out`` (float32) where it is not None, else into ``low`` as bfloat16 bits."""
sample_rows = Kernel(_k.sample_rows)
"""``sample_rows(work, logits, uniforms, actions, log_probs)``: for each row, the action whose share of the
softmax's running sum (float64) first passes ``uniforms[i]`` (the inverse of the distribution's CDF: an exact
draw from the softmax), and its log-probability. A logit more than 87 below the row's largest has probability 0,
as in float32 (an illegal action's, -1e9); a row with a NaN gets the action -1."""
_round_rows = Kernel(_k.round_rows)


def bfloat16_bits(x: np.ndarray) -> np.ndarray:
    """The bfloat16 nearest each float32 of ``x`` (ties to even), as ``uint16`` bits of ``x``'s shape; a NaN stays
    a (quiet) NaN."""
    values = np.ascontiguousarray(x, np.float32)
    rows = values.reshape(1, -1)  # one row: the kernel's rows are for the networks' batches
    low = np.empty(rows.shape, np.uint16)
    _round_rows(rows.size, rows, low)
    return low.reshape(values.shape)


def bits(x: torch.Tensor) -> np.ndarray:
    """A contiguous bfloat16 tensor's storage as NumPy ``uint16`` (no copy)."""
    return x.detach().view(torch.int16).numpy().view(np.uint16)


def from_bits(a: np.ndarray) -> torch.Tensor:
    """NumPy ``uint16`` bfloat16 patterns as a ``torch.bfloat16`` tensor (no copy)."""
    return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)


def _tanh_and_float32(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(tanh(x) in x's dtype, tanh(x) in float32)`` for a contiguous CPU float32 or bfloat16 matrix."""
    low = x.dtype == torch.bfloat16
    pre = bits(x) if low else x.detach().numpy()
    y = np.empty(pre.shape, np.float32)
    low_rows = np.empty(pre.shape, np.uint16) if low else None
    tanh_rows(pre.size, pre, y, low_rows)
    out = torch.from_numpy(y)
    return (from_bits(low_rows) if low else out), out


class _Tanh(torch.autograd.Function):
    """tanh on a CPU float32 or bfloat16 tensor; a bfloat16 one keeps its float32 output for the gradient."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        result, y = _tanh_and_float32(x)
        ctx.save_for_backward(y)
        return result

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return tanh_grad(grad, y, grad.dtype)


def tanh_grad(grad: torch.Tensor, y: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``grad * (1 - y^2)`` in ``dtype`` (float32 or bfloat16), from a float32 or bfloat16 ``grad`` and the
    tanh's float32 output ``y``: the gradient before a tanh, in one pass."""
    g = grad.contiguous()
    source = bits(g) if g.dtype == torch.bfloat16 else g.float().numpy()
    if dtype == torch.bfloat16:
        low = np.empty(y.shape, np.uint16)
        tanh_grad_rows(low.size, source, y.numpy(), None, low)
        return from_bits(low)
    out = np.empty(y.shape, np.float32)
    tanh_grad_rows(out.size, source, y.numpy(), out, None)
    return torch.from_numpy(out)


def tanh(x: torch.Tensor) -> torch.Tensor:
    """``torch.tanh(x)`` in one pass on a CPU float32 or bfloat16 tensor (the result in ``x``'s dtype, within
    2e-7 of torch's before any rounding to bfloat16); ``torch.tanh`` on anything else."""
    if x.device.type != "cpu" or x.dtype not in (torch.float32, torch.bfloat16) or x.dim() == 0:
        return torch.tanh(x)
    rows = x.reshape(-1, x.shape[-1]).contiguous()  # the kernels take rows
    if torch.is_grad_enabled() and x.requires_grad:
        return _Tanh.apply(rows).reshape(x.shape)
    return _tanh_and_float32(rows)[0].reshape(x.shape)
