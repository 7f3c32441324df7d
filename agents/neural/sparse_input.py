"""The networks' first layer, computed from the non-zero entries of the observation.

Both observations are mostly zeros (the structured one has about 49 non-zero entries of 834 in a knock
hand, the absolute one a similar share), and the first layer is most of the network's arithmetic: with
``hidden=[256, 256]`` the actor's and the oracle critic's first matrices are three quarters of the
multiply-adds of a PPO minibatch, forward and backward. :class:`SparseInputLinear` is an ``nn.Linear``
(same parameters, same state dict, so checkpoints do not change) whose forward pass on a CPU batch gathers
the weight rows of the non-zero inputs instead of multiplying by the zeros, and whose backward pass forms
the weight gradient from the same entries. It computes the same function as
``nn.Linear`` up to the order of float additions; ``tests/agents/test_sparse_input.py`` holds the two equal,
forward and backward. :meth:`SparseInputLinear.forward_tanh` is the layer followed by its tanh, which the
networks use: the tanh (and, for a next product in bfloat16, the rounding) is applied to each row while the
gather has it in the cache, rather than in passes of its own over the whole batch
(``tests/agents/test_cpu_kernels.py``).

The fast path needs a float32 CPU matrix that does not itself require a gradient (an observation);
anything else (a GPU tensor, an input with a gradient, a dense input) goes through ``F.linear``. The kernels are
C (``agents/neural/c/kernels.c``, with those of :mod:`~euchre_env.agents.neural.cpu_kernels`). Each output row and
each weight-gradient row is summed by one thread in a fixed order, so the results do not depend on the number of
threads. A large batch (a PPO minibatch) is cut into slices on as many threads as torch uses, because on a
minibatch they beat one thread (the timing: docs/results/module_measurements.md): torch's own OpenMP threads where
torch has them, else Python threads running C with the GIL released (:class:`~.cpu_kernels.Kernel` says why).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from euchre_env.agents.neural.cpu_kernels import Kernel, from_bits, tanh_grad
from euchre_env.agents.neural.cpu_kernels import tanh as cpu_tanh
from euchre_env.compiled.native import extension

_k = extension("agents.neural._kernels")

# Above this share of non-zero inputs the gather is no cheaper than the dense product (measured on 2 cores:
# at 6% it is ~4x cheaper forward and backward).
MAX_DENSITY = 0.25


def _entry_rows(ptr: np.ndarray, *args: Any) -> int:
    return len(ptr) - 1


def _tasks(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, bounds: np.ndarray, *args: Any) -> int:
    return len(bounds) - 1


def _selected(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, rows: np.ndarray, *args: Any) -> int:
    return len(rows)


# Each row's non-zero entries of a dense matrix: their count (into ptr[i + 1]), then, from the running sums,
# their columns and values.
_nonzero_counts = Kernel(_k.nonzero_counts)
_nonzero_entries = Kernel(_k.nonzero_entries)
# out[i] = bias + the sum over row i's entries of value * weight_t[column], then (tanh) its tanh, and (where low
# is not None) low[i] the same row as bfloat16 bits: the activation fused while the row is in the cache, instead
# of passes over the whole batch. Eight entries are added a pass over the row (an eighth of its loads and stores:
# 1.9x faster than one a pass), and the same sums: left to right.
_gather_rows = Kernel(_k.gather_rows, _entry_rows)
# grad_t[j] = the sum over the entries (i, j, v) of v * grad_out[i]: the weight gradient, transposed. Task t owns
# the columns bounds[t]..bounds[t + 1] and scans every row for them (the scan is cheap; the rows of grad_out are
# then read in order), so no two tasks write the same row and the sums run in row order whatever the number of
# threads. (Forming the tanh's gradient there, row by row, was slower than its own pass: 1.8 ms against 1.2 ms for
# this kernel on a 4,096-row minibatch, in Numba.)
_weight_grad_t = Kernel(_k.weight_grad_t, _tasks)
_select = Kernel(_k.select_entries, _selected)  # the entries of rows (in that order), at out_ptr's starts
_hstack = Kernel(_k.hstack_entries, _entry_rows)  # row by row, a's entries then b's, columns shifted by a's width


def _nonzeros(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's non-zero entries of the C-contiguous float32 matrix ``x``: ``ptr`` (row starts), their column
    and their value, row by row."""
    n = x.shape[0]
    work = x.size // 16
    ptr = np.zeros(n + 1, np.int64)
    _nonzero_counts(work, x, ptr)
    np.cumsum(ptr, out=ptr)
    col = np.empty(ptr[n], np.int32)
    val = np.empty(ptr[n], np.float32)
    _nonzero_entries(work, x, ptr, col, val)
    return ptr, col, val


class SparseRows:
    """A batch of input rows kept as their non-zero entries (compressed sparse rows).

    ``SparseRows.from_dense(x)`` once, then ``rows[index]`` per minibatch: the PPO update turns the rollout's
    observations into entries once and every epoch's minibatches select from them, instead of copying and
    scanning the dense rows each time. A :class:`SparseInputLinear` (the networks' first layer) takes one
    in place of a dense ``[batch, features]`` tensor.
    """

    def __init__(self, ptr: np.ndarray, col: np.ndarray, val: np.ndarray, num_features: int) -> None:
        self.ptr, self.col, self.val, self.num_features = ptr, col, val, num_features

    @classmethod
    def from_dense(cls, x: torch.Tensor | np.ndarray) -> SparseRows:
        a = x.detach().numpy() if isinstance(x, torch.Tensor) else x
        a = np.ascontiguousarray(a, np.float32)
        if a.ndim != 2:
            raise ValueError(f"SparseRows.from_dense: expected a [batch, features] matrix, got shape {a.shape}")
        return cls(*_nonzeros(a), a.shape[1])

    def __len__(self) -> int:
        return self.ptr.size - 1

    @property
    def density(self) -> float:
        """The share of non-zero entries."""
        return self.col.size / max(1, len(self) * self.num_features)

    def __getitem__(self, index: torch.Tensor | np.ndarray) -> SparseRows:
        rows = index.numpy() if isinstance(index, torch.Tensor) else np.asarray(index)
        rows = np.ascontiguousarray(rows, np.int64)
        ptr = np.empty(rows.size + 1, np.int64)
        _k.select_ptr(self.ptr, rows, ptr)  # an IndexError, "row index out of range for n rows", on a bad index
        col, val = np.empty(ptr[-1], np.int32), np.empty(ptr[-1], np.float32)
        _select(int(ptr[-1]), self.ptr, self.col, self.val, rows, ptr, col, val)
        return SparseRows(ptr, col, val, self.num_features)

    def hstack(self, other: SparseRows) -> SparseRows:
        """The rows of ``self`` followed by those of ``other``: ``torch.cat([a, b], dim=-1)`` on entries."""
        if len(other) != len(self):
            raise ValueError(f"SparseRows.hstack: {len(self)} rows and {len(other)} rows")
        ptr = self.ptr + other.ptr
        col, val = np.empty(ptr[-1], np.int32), np.empty(ptr[-1], np.float32)
        _hstack(int(ptr[-1]), self.ptr, self.col, self.val, self.num_features, other.ptr, other.col, other.val,
                ptr, col, val)
        return SparseRows(ptr, col, val, self.num_features + other.num_features)


def sparse_input(x: torch.Tensor) -> torch.Tensor | SparseRows:
    """``x`` as :class:`SparseRows` where the first layer's fast path takes it (a 2-D float32 CPU matrix that does
    not require a gradient, at most :data:`MAX_DENSITY` non-zero), else ``x`` itself. The actor-critic converts
    an observation once for both of its networks."""
    if x.device.type != "cpu" or x.dtype != torch.float32 or x.dim() != 2 or x.requires_grad or x.shape[0] == 0:
        return x
    rows = SparseRows.from_dense(x)
    return rows if rows.density <= MAX_DENSITY else x


def _product(x: SparseRows, weight_t: np.ndarray, weight: torch.Tensor, bias: torch.Tensor | None, tanh: bool,
             low: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """``(the layer's output, its float32 values)``: ``x W^T + b``, then its tanh where ``tanh``, returned as
    bfloat16 where ``low`` (else the float32 values themselves)."""
    b = np.zeros(weight.shape[0], np.float32) if bias is None else bias.detach().numpy()
    out = np.empty((len(x), weight.shape[0]), np.float32)
    low_rows = np.empty(out.shape, np.uint16) if low else None
    _gather_rows(x.col.size, x.ptr, x.col, x.val, weight_t, b, tanh, out, low_rows)
    values = torch.from_numpy(out)
    return (from_bits(low_rows) if low else values), values


class _SparseInputMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: SparseRows, weight_t: np.ndarray, weight: torch.Tensor, bias: torch.Tensor | None,
                tanh: bool, low: bool) -> torch.Tensor:
        result, values = _product(x, weight_t, weight, bias, tanh, low)
        ctx.x, ctx.has_bias, ctx.tanh = x, bias is not None, tanh
        ctx.save_for_backward(values if tanh else None)  # the tanh's gradient needs its output
        return result

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x = ctx.x
        (y,) = ctx.saved_tensors
        g = tanh_grad(grad_out, y) if ctx.tanh else grad_out.float().contiguous()  # before the tanh, float32
        grad_weight = grad_bias = None
        if ctx.needs_input_grad[2]:
            grad_t = np.empty((x.num_features, g.shape[1]), np.float32)
            per_column = np.zeros(x.num_features + 1, np.int64)
            per_column[1:] = np.cumsum(np.bincount(x.col, minlength=x.num_features))
            bounds = _balanced_chunks(per_column, max(1, torch.get_num_threads()))
            _weight_grad_t(x.col.size, x.ptr, x.col, x.val, bounds, g.numpy(), grad_t)
            grad_weight = torch.from_numpy(grad_t).t()
        if ctx.has_bias and ctx.needs_input_grad[3]:
            grad_bias = g.sum(0)
        return None, None, grad_weight, grad_bias, None, None


def _balanced_chunks(per_column: np.ndarray, k: int) -> np.ndarray:
    """``k + 1`` column boundaries that split the entries into ``k`` near-equal runs, from the cumulative
    entry counts per column (some columns are in every row, some in none, so equal column ranges would
    leave one thread most of the work)."""
    bounds = np.searchsorted(per_column, np.linspace(0, per_column[-1], k + 1), side="left")
    bounds[0], bounds[-1] = 0, per_column.size - 1
    return np.maximum.accumulate(bounds)


class SparseInputLinear(nn.Linear):
    """``nn.Linear`` for mostly-zero inputs: the same layer, computed from the inputs' non-zero entries.

    Used as the first layer of the policy and value networks (:mod:`euchre_env.agents.neural.network`). Takes a
    dense ``[batch, in_features]`` tensor or a :class:`SparseRows`; falls back to the dense product for
    dense inputs it is not made for (see the module docstring).
    """

    def forward(self, x: torch.Tensor | SparseRows) -> torch.Tensor:
        return self._apply_to(x, tanh=False, dtype=torch.float32)

    def forward_tanh(self, x: torch.Tensor | SparseRows, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """``tanh(self(x))`` in ``dtype`` (float32, or bfloat16 for a next layer that multiplies in it), with the
        tanh and the rounding done in the gather's pass over each row (the same numbers as
        :func:`~euchre_env.agents.neural.cpu_kernels.tanh` on ``self(x)``; its gradient likewise)."""
        return self._apply_to(x, tanh=True, dtype=dtype)

    def _apply_to(self, x: torch.Tensor | SparseRows, tanh: bool, dtype: torch.dtype) -> torch.Tensor:
        if not isinstance(x, SparseRows):
            rows = sparse_input(x) if self.weight.dtype == torch.float32 else x
            if not isinstance(rows, SparseRows):  # not made for the gather: the dense product
                y = F.linear(x, self.weight, self.bias)
                y = cpu_tanh(y) if tanh else y
                return y if dtype == torch.float32 else y.to(dtype)  # a float64 layer stays float64
            x = rows
        if x.num_features != self.in_features:
            raise ValueError(f"SparseInputLinear: rows of {x.num_features} features, layer takes {self.in_features}")
        if dtype not in (torch.float32, torch.bfloat16):
            raise ValueError(f"SparseInputLinear: output dtype must be float32 or bfloat16, got {dtype}")
        low = dtype == torch.bfloat16
        trained = self.weight.requires_grad or (self.bias is not None and self.bias.requires_grad)
        if torch.is_grad_enabled() and trained:
            return _SparseInputMatmul.apply(x, self._weight_t(), self.weight, self.bias, tanh, low)
        return _product(x, self._weight_t(), self.weight, self.bias, tanh, low)[0]  # inference: no autograd node

    def _weight_t(self) -> np.ndarray:
        # The kernels read the weight a row per input feature. Kept between calls while the weight is
        # unchanged (its version counts in-place updates: optimizer steps, load_state_dict), so that
        # inference on a few rows does not copy the whole matrix each time.
        key = (self.weight.data_ptr(), self.weight._version)
        if getattr(self, "_cached_key", None) != key:
            self._cached_weight_t = self.weight.detach().t().contiguous().numpy()
            self._cached_key = key
        return self._cached_weight_t
