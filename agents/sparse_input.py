"""The networks' first layer, computed from the non-zero entries of the observation.

Both observations are mostly zeros (the structured one has about 49 non-zero entries of 834 in a knock
hand, the absolute one a similar share), and the first layer is most of the network's arithmetic: with
``hidden=[256, 256]`` the actor's and the oracle critic's first matrices are three quarters of the
multiply-adds of a PPO minibatch, forward and backward. :class:`SparseInputLinear` is an ``nn.Linear``
(same parameters, same state dict, so checkpoints do not change) whose forward pass on a CPU batch gathers
the weight rows of the non-zero inputs instead of multiplying by the zeros, and whose backward pass forms
the weight gradient from the same entries. It computes the same function as
``nn.Linear`` up to the order of float additions; ``tests/test_sparse_input.py`` holds the two equal,
forward and backward.

The fast path needs a float32 CPU matrix that does not itself require a gradient (an observation);
anything else (a GPU tensor, an input with a gradient, a dense input) goes through ``F.linear``. Each
output row and each weight-gradient row is summed by one thread in a fixed order, so the results do not
depend on the number of threads. A large batch (a PPO minibatch) runs on the parallel builds, on as many of
Numba's threads as torch uses (an update's two first layers: 0.19 s, against 0.33 s on one thread, two
cores): that starts Numba's OpenMP pool in the trainer's process, so the evaluation's worker pools are
started from a forkserver there (``euchre_env.numba_builds.forks_safely``).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import torch
import torch.nn.functional as F
from numba import prange
from torch import nn

from euchre_env.numba_builds import start_thread_pool, two_builds

# Above this share of non-zero inputs the gather is no cheaper than the dense product (measured on 2 cores:
# at 6% it is ~4x cheaper forward and backward).
MAX_DENSITY = 0.25
# Below this many non-zero entries (about 400 observations) a batch runs on one thread.
PARALLEL_ENTRIES = 20_000


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
                 out: np.ndarray) -> None:
    """``out[i] = bias + sum over row i's entries of value * weight_t[column]``."""
    for i in prange(out.shape[0]):
        acc = out[i]  # summed in place: a copy of the bias per row was an allocation per row (8% of the time)
        for h in range(acc.size):
            acc[h] = bias[h]
        for p in range(ptr[i], ptr[i + 1]):
            v, w = val[p], weight_t[col[p]]
            for h in range(acc.size):
                acc[h] += v * w[h]


def _weight_grad_t_py(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, bounds: np.ndarray, grad_out: np.ndarray,
                   grad_t: np.ndarray) -> None:
    """``grad_t[j] = sum over the entries (i, j, v) of v * grad_out[i]``: the weight gradient, transposed.

    Task ``t`` owns the columns ``bounds[t]..bounds[t + 1]`` and scans every row for them (the scan is
    cheap; the rows of ``grad_out`` are then read in order), so no two tasks write the same row and the
    sums run in row order whatever the number of threads."""
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


class _Kernel:
    """A kernel in two builds: parallel (on as many threads as torch uses, ``run.torch_threads``) for
    large batches, serial for small ones, where starting a parallel region costs more than it saves and
    the idle threads spin beside the caller's Python work (a collector's inference of a few games)."""

    def __init__(self, fn: Any, fastmath: bool = False, allocates: bool = True) -> None:
        self.parallel, self.serial = two_builds(fn, allocates, fastmath=fastmath)

    def __call__(self, entries: int, *args: Any) -> Any:
        threads = min(torch.get_num_threads(), numba.config.NUMBA_NUM_THREADS)
        if threads < 2 or entries < PARALLEL_ENTRIES:
            return self.serial(*args)
        start_thread_pool()  # keeps torch's thread count; the evaluation's pools then start from a forkserver
        saved = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            return self.parallel(*args)
        finally:
            numba.set_num_threads(saved)


_nonzeros = _Kernel(_nonzeros_py)
_gather_rows = _Kernel(_gather_rows_py, fastmath=True, allocates=False)
_weight_grad_t = _Kernel(_weight_grad_t_py, fastmath=True, allocates=False)
_select = _Kernel(_select_py)
_hstack = _Kernel(_hstack_py)


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


def _product(x: SparseRows, weight_t: np.ndarray, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    b = np.zeros(weight.shape[0], np.float32) if bias is None else bias.detach().numpy()
    out = np.empty((len(x), weight.shape[0]), np.float32)
    _gather_rows(x.col.size, x.ptr, x.col, x.val, weight_t, b, out)
    return torch.from_numpy(out)


class _SparseInputMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: SparseRows, weight_t: np.ndarray, weight: torch.Tensor, bias: torch.Tensor | None
                ) -> torch.Tensor:
        ctx.x = x
        ctx.has_bias = bias is not None
        return _product(x, weight_t, weight, bias)

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[None, None, torch.Tensor | None, torch.Tensor | None]:
        grad_weight = grad_bias = None
        g = grad_out.contiguous()
        if ctx.needs_input_grad[2]:
            x = ctx.x
            grad_t = np.empty((x.num_features, g.shape[1]), np.float32)
            per_column = np.zeros(x.num_features + 1, np.int64)
            per_column[1:] = np.cumsum(np.bincount(x.col, minlength=x.num_features))
            bounds = _balanced_chunks(per_column, max(1, torch.get_num_threads()))
            _weight_grad_t(x.col.size, x.ptr, x.col, x.val, bounds, g.numpy(), grad_t)
            grad_weight = torch.from_numpy(grad_t).t()
        if ctx.has_bias and ctx.needs_input_grad[3]:
            grad_bias = g.sum(0)
        return None, None, grad_weight, grad_bias


def _balanced_chunks(per_column: np.ndarray, k: int) -> np.ndarray:
    """``k + 1`` column boundaries that split the entries into ``k`` near-equal runs, from the cumulative
    entry counts per column (some columns are in every row, some in none, so equal column ranges would
    leave one thread most of the work)."""
    bounds = np.searchsorted(per_column, np.linspace(0, per_column[-1], k + 1), side="left")
    bounds[0], bounds[-1] = 0, per_column.size - 1
    return np.maximum.accumulate(bounds)


class SparseInputLinear(nn.Linear):
    """``nn.Linear`` for mostly-zero inputs: the same layer, computed from the inputs' non-zero entries.

    Used as the first layer of the policy and value networks (:mod:`euchre_env.agents.policy`). Takes a
    dense ``[batch, in_features]`` tensor or a :class:`SparseRows`; falls back to the dense product for
    dense inputs it is not made for (see the module docstring).
    """

    def forward(self, x: torch.Tensor | SparseRows) -> torch.Tensor:
        if not isinstance(x, SparseRows):
            if self.weight.dtype != torch.float32:
                return F.linear(x, self.weight, self.bias)
            x = sparse_input(x)
            if not isinstance(x, SparseRows):
                return F.linear(x, self.weight, self.bias)
        if x.num_features != self.in_features:
            raise ValueError(f"SparseInputLinear: rows of {x.num_features} features, layer takes {self.in_features}")
        trained = self.weight.requires_grad or (self.bias is not None and self.bias.requires_grad)
        if torch.is_grad_enabled() and trained:
            return _SparseInputMatmul.apply(x, self._weight_t(), self.weight, self.bias)
        return _product(x, self._weight_t(), self.weight, self.bias)  # inference: no autograd node to build

    def _weight_t(self) -> np.ndarray:
        # The kernels read the weight a row per input feature. Kept between calls while the weight is
        # unchanged (its version counts in-place updates: optimizer steps, load_state_dict), so that
        # inference on a few rows does not copy the whole matrix each time.
        key = (self.weight.data_ptr(), self.weight._version)
        if getattr(self, "_cached_key", None) != key:
            self._cached_weight_t = self.weight.detach().t().contiguous().numpy()
            self._cached_key = key
        return self._cached_weight_t
