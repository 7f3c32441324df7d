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
anything else (a GPU tensor, an input with a gradient, a dense input) goes through ``F.linear``. Each
output row and each weight-gradient row is summed by one thread in a fixed order, so the results do not
depend on the number of threads. A large batch (a PPO minibatch) runs on the parallel builds, on as many of
Numba's threads as torch uses, because on a minibatch they beat one thread (the timing:
docs/results/module_measurements.md): that starts Numba's OpenMP pool in the trainer's process, so the
evaluation's worker pools are started from a forkserver there (``euchre_env.compiled.builds.forks_safely``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from numba import prange
from torch import nn

from euchre_env.agents.neural.cpu_kernels import FAST, NO_ROWS, Kernel, bfloat16_bits, from_bits, tanh32, tanh_grad
from euchre_env.agents.neural.cpu_kernels import tanh as cpu_tanh

# Above this share of non-zero inputs the gather is no cheaper than the dense product (measured on 2 cores:
# at 6% it is ~4x cheaper forward and backward).
MAX_DENSITY = 0.25


def _nonzeros_py(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's non-zero entries: ``ptr`` (row starts), their column and their value, row by row."""
    n, d = x.shape
    count = np.zeros(n + 1, np.int64)
    for i in prange(n):
        c = 0
        for j in range(d):
            if x[i, j] != 0:
                c += 1
        count[i + 1] = c
    for i in range(n):
        count[i + 1] += count[i]
    col = np.empty(count[n], np.int32)
    val = np.empty(count[n], np.float32)
    for i in prange(n):
        p = count[i]
        for j in range(d):
            if x[i, j] != 0:
                col[p] = j
                val[p] = x[i, j]
                p += 1
    return count, col, val


def _gather_rows_py(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, weight_t: np.ndarray, bias: np.ndarray,
                    tanh: bool, out: np.ndarray, low: np.ndarray) -> None:
    """``out[i] = bias + sum over row i's entries of value * weight_t[column]``, then (``tanh``) its tanh, and
    (where ``low`` has rows) ``low[i]`` the same row as bfloat16 bits: the activation fused while the row is
    in the cache, instead of passes over the whole batch."""
    to_low = low.shape[0] > 0
    for i in prange(out.shape[0]):
        acc = out[i]  # summed in place: a copy of the bias per row was an allocation per row (8% of the time)
        for h in range(acc.size):
            acc[h] = bias[h]
        p, end = ptr[i], ptr[i + 1]
        while p + 8 <= end:  # eight entries a pass over the row: an eighth of its loads and stores (1.9x faster
            v0, w0 = val[p], weight_t[col[p]]  # than one a pass), and the same sums: added left to right
            v1, w1 = val[p + 1], weight_t[col[p + 1]]
            v2, w2 = val[p + 2], weight_t[col[p + 2]]
            v3, w3 = val[p + 3], weight_t[col[p + 3]]
            v4, w4 = val[p + 4], weight_t[col[p + 4]]
            v5, w5 = val[p + 5], weight_t[col[p + 5]]
            v6, w6 = val[p + 6], weight_t[col[p + 6]]
            v7, w7 = val[p + 7], weight_t[col[p + 7]]
            for h in range(acc.size):
                acc[h] = (acc[h] + v0 * w0[h] + v1 * w1[h] + v2 * w2[h] + v3 * w3[h] + v4 * w4[h] + v5 * w5[h]
                          + v6 * w6[h] + v7 * w7[h])
            p += 8
        for q in range(p, end):
            v, w = val[q], weight_t[col[q]]
            for h in range(acc.size):
                acc[h] += v * w[h]
        if tanh:
            for h in range(acc.size):
                acc[h] = tanh32(acc[h])
        if to_low:
            o = low[i]
            for h in range(acc.size):
                o[h] = bfloat16_bits(acc[h])


def _weight_grad_t_py(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, bounds: np.ndarray, grad_out: np.ndarray,
                      grad_t: np.ndarray) -> None:
    """``grad_t[j] = sum over the entries (i, j, v) of v * grad_out[i]``: the weight gradient, transposed.

    Task ``t`` owns the columns ``bounds[t]..bounds[t + 1]`` and scans every row for them (the scan is
    cheap; the rows of ``grad_out`` are then read in order), so no two tasks write the same row and the
    sums run in row order whatever the number of threads. (Forming the tanh's gradient here, row by row,
    was slower than its own pass: 1.8 ms against 1.2 ms for this kernel on a 4,096-row minibatch.)"""
    for t in prange(bounds.size - 1):
        lo, hi = bounds[t], bounds[t + 1]
        for j in range(lo, hi):
            for h in range(grad_t.shape[1]):
                grad_t[j, h] = 0
        for i in range(ptr.size - 1):
            g = grad_out[i]
            for p in range(ptr[i], ptr[i + 1]):
                j = col[p]
                if lo <= j < hi:
                    v, r = val[p], grad_t[j]
                    for h in range(g.size):
                        r[h] += v * g[h]


def _select_py(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, rows: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of ``rows`` (in that order), as a new ``(ptr, col, val)``."""
    n = rows.size
    out_ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        out_ptr[i + 1] = out_ptr[i] + ptr[rows[i] + 1] - ptr[rows[i]]
    out_col = np.empty(out_ptr[n], np.int32)
    out_val = np.empty(out_ptr[n], np.float32)
    for i in prange(n):
        src, dst = ptr[rows[i]], out_ptr[i]
        for k in range(out_ptr[i + 1] - dst):
            out_col[dst + k] = col[src + k]
            out_val[dst + k] = val[src + k]
    return out_ptr, out_col, out_val


def _hstack_py(ptr_a: np.ndarray, col_a: np.ndarray, val_a: np.ndarray, width_a: int,
            ptr_b: np.ndarray, col_b: np.ndarray, val_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row by row, ``a``'s entries then ``b``'s with their columns shifted by ``width_a``."""
    n = ptr_a.size - 1
    ptr = ptr_a + ptr_b
    col = np.empty(ptr[n], np.int32)
    val = np.empty(ptr[n], np.float32)
    for i in prange(n):
        p = ptr[i]
        for q in range(ptr_a[i], ptr_a[i + 1]):
            col[p], val[p] = col_a[q], val_a[q]
            p += 1
        for q in range(ptr_b[i], ptr_b[i + 1]):
            col[p], val[p] = col_b[q] + width_a, val_b[q]
            p += 1
    return ptr, col, val


_nonzeros = Kernel(_nonzeros_py)
_gather_rows = Kernel(_gather_rows_py, fastmath=FAST, allocates=False)
_weight_grad_t = Kernel(_weight_grad_t_py, fastmath=True, allocates=False)
_select = Kernel(_select_py)
_hstack = Kernel(_hstack_py)


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
        return cls(*_nonzeros(a.size // 16, a), a.shape[1])

    def __len__(self) -> int:
        return self.ptr.size - 1

    @property
    def density(self) -> float:
        """The share of non-zero entries."""
        return self.col.size / max(1, len(self) * self.num_features)

    def __getitem__(self, index: torch.Tensor | np.ndarray) -> SparseRows:
        rows = index.numpy() if isinstance(index, torch.Tensor) else np.asarray(index)
        rows = rows.astype(np.int64, copy=False)
        if rows.size and (rows.min() < 0 or rows.max() >= len(self)):
            raise IndexError(f"SparseRows: row index out of range for {len(self)} rows")
        work = self.col.size * rows.size // max(1, len(self))
        return SparseRows(*_select(work, self.ptr, self.col, self.val, rows), self.num_features)

    def hstack(self, other: SparseRows) -> SparseRows:
        """The rows of ``self`` followed by those of ``other``: ``torch.cat([a, b], dim=-1)`` on entries."""
        if len(other) != len(self):
            raise ValueError(f"SparseRows.hstack: {len(self)} rows and {len(other)} rows")
        entries = _hstack(self.col.size + other.col.size, self.ptr, self.col, self.val, self.num_features,
                          other.ptr, other.col, other.val)
        return SparseRows(*entries, self.num_features + other.num_features)


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
    low_rows = np.empty(out.shape, np.uint16) if low else NO_ROWS
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
