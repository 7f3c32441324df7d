"""Numba kernels beside torch's CPU operations: how they are dispatched, bfloat16 as bits, and a one-pass tanh.

The networks' training on a CPU is bounded by memory traffic as much as by arithmetic: a PPO minibatch's
activations are 4,096 x 256 float32 (4 MiB, larger than a core's cache), and every torch operation on them
reads and writes them whole. Torch's CPU tanh is slow (1.2 ms on such a batch, against 0.12 ms for its
sigmoid), ``2 sigmoid(2x) - 1`` is four passes, and a bfloat16 product adds a conversion pass before and after
it. The kernels here do that work in one pass over a row while it is in the cache:

- :func:`tanh32`: tanh from the exponential, ``1 - 2 / (exp(2x) + 1)``, with the exponential split into a power
  of two and a degree-7 Taylor polynomial of the remainder (|r| <= ln 2 / 2; within 1e-7 relative over the
  range used): plain arithmetic that the compiler turns into vector instructions. Within 2e-7 of torch's
  tanh, as the sigmoid form is; a NaN stays a NaN.
- :func:`bfloat16_bits` / :func:`widen`: a float32 rounded to bfloat16 (to nearest, ties to even: torch's
  conversion, bit for bit) and back, on the 16-bit patterns, which NumPy holds as ``uint16`` and torch views
  as ``torch.bfloat16``.
- :data:`tanh_rows` and :data:`tanh_grad_rows`: the hidden layers' tanh and its gradient, from and to float32
  or bfloat16.
- :data:`sample_rows`: an action drawn from each row of masked logits by the inverse of its CDF, with its
  log-probability (``torch.multinomial`` takes ~75 us on a collector's batch of ~58 rows; this kernel ~5 us).

:class:`Kernel` holds a kernel's two builds (``euchre_env.compiled.builds.two_builds``) and picks one per call:
the parallel build on torch's threads for a large batch, the serial one for the few rows of a collector's
inference, where starting the threads costs more than they save.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import torch
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic, overload

from euchre_env.compiled.builds import start_thread_pool, two_builds

# Below this much work (non-zero entries, or elements) a call runs on one thread: about 400 observations.
PARALLEL_WORK = 20_000


class Kernel:
    """A kernel in two builds: parallel (on as many threads as torch uses, ``run.torch_threads``) for
    large batches, serial for small ones, where starting a parallel region costs more than it saves and
    the idle threads spin beside the caller's Python work (a collector's inference of a few games)."""

    def __init__(self, fn: Any, fastmath: bool | set[str] = False, allocates: bool = True) -> None:
        # NumPy's error model: a float division by zero gives inf rather than raising. Python's (njit's default)
        # puts a check before every division, which kept the serial build's tanh loop from being vectorised
        # (52 us against 4 us on 58 x 256); parallel builds use NumPy's model already.
        self.parallel, self.serial = two_builds(fn, allocates, fastmath=fastmath, error_model="numpy")

    def __call__(self, work: int, *args: Any) -> Any:
        threads = min(torch.get_num_threads(), numba.config.NUMBA_NUM_THREADS)
        if threads < 2 or work < PARALLEL_WORK:
            return self.serial(*args)
        start_thread_pool()  # keeps torch's thread count; the evaluation's pools then start from a forkserver
        saved = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            return self.parallel(*args)
        finally:
            numba.set_num_threads(saved)


if numba.config.DISABLE_JIT:  # the kernels run as Python functions: the same bit casts in NumPy
    def _float_from_bits(bits: Any) -> np.float32:
        return np.uint32(bits).view(np.float32)

    def _bits_from_float(x: Any) -> np.uint32:
        return np.float32(x).view(np.uint32)
else:
    @intrinsic
    def _float_from_bits(typingctx: Any, bits: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.bitcast(args[0], ir.FloatType())
        return types.float32(types.uint32), codegen

    @intrinsic
    def _bits_from_float(typingctx: Any, x: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.bitcast(args[0], ir.IntType(32))
        return types.uint32(types.float32), codegen


def widen(v: Any) -> np.float32:
    """A float32 from a float32 or from a bfloat16's 16 bits (exact). In Python for NumPy scalars; compiled
    kernels call the implementation below, chosen by the argument's type."""
    if isinstance(v, np.uint16):
        return (np.uint32(v) << np.uint32(16)).view(np.float32)
    return np.float32(v)


if not numba.config.DISABLE_JIT:
    @overload(widen, inline="always")
    def _widen(v):  # no annotations: Numba matches this signature against widen's
        if v == types.uint16:
            return lambda v: _float_from_bits(np.uint32(v) << np.uint32(16))
        if v == types.float32:
            return lambda v: v
        return None


_LOG2E = np.float32(1.4426950408889634)
# ln 2 in two parts (Cody and Waite): the first has few enough bits that k * _LN2_HI is exact in float32, so
# the remainder keeps its precision for the large k of the sampler's exponents (down to -87)
_LN2_HI = np.float32(0.693359375)
_LN2_LO = np.float32(0.6931471805599453 - 0.693359375)
_TANH_ONE = np.float32(10.0)  # tanh(10) is 1 - 4e-9: 1.0 in float32; exp(20) is far from overflowing


@njit(inline="always")
def _exp32(x: float) -> float:
    """exp(x) for -87 < x <= 20 (within 1e-7, relative): 2^k times a Taylor polynomial of exp(r),
    r = x - k ln 2 in [-ln 2 / 2, ln 2 / 2]."""
    k = np.floor(x * _LOG2E + np.float32(0.5))
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = np.float32(1 / 5040)
    for c in (1 / 720, 1 / 120, 1 / 24, 1 / 6, 1 / 2, 1.0, 1.0):  # unrolled by the compiler
        p = p * r + np.float32(c)
    return p * _float_from_bits(np.uint32((np.int32(k) + 127) << 23))


# Numba's disk cache keys a kernel by its own file: after changing a function here, clear the caches of the
# kernels in other files that inline it (agents/__pycache__/sparse_input.*.nb*).
@njit(inline="always")
def tanh32(x: float) -> float:
    """tanh of a float32, within 2e-7 of torch's."""
    clamped = min(max(x, -_TANH_ONE), _TANH_ONE)
    y = np.float32(1.0) - np.float32(2.0) / (_exp32(clamped + clamped) + np.float32(1.0))
    return x if x != x else y  # NaN in, NaN out (the clamp would have made it -1)


@njit(inline="always")
def bfloat16_bits(x: float) -> np.uint16:
    """The bfloat16 nearest ``x`` (ties to even), as its 16 bits; a NaN stays a (quiet) NaN."""
    u = _bits_from_float(np.float32(x))
    if x != x:
        return np.uint16((u >> np.uint32(16)) | np.uint32(0x40))
    return np.uint16((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16))


def _tanh_rows_py(pre: np.ndarray, y: np.ndarray, low: np.ndarray) -> None:
    """``y = tanh(pre)`` (``pre`` float32 or bfloat16 bits) and, when ``low`` has rows, ``low = y`` as bfloat16."""
    to_low = low.shape[0] > 0
    for i in prange(pre.shape[0]):
        p, out = pre[i], y[i]
        for h in range(p.size):
            out[h] = tanh32(widen(p[h]))
        if to_low:
            o = low[i]
            for h in range(out.size):
                o[h] = bfloat16_bits(out[h])


def _tanh_grad_rows_py(grad: np.ndarray, y: np.ndarray, out: np.ndarray, low: np.ndarray) -> None:
    """``grad * (1 - y^2)``, the gradient before a tanh from the one after it (``grad``: float32 or bfloat16
    bits; ``y``: the tanh's float32 output), computed in float32 as torch's ``tanh_backward`` is, into ``out``
    (float32) where it has rows, else into ``low`` as bfloat16 bits."""
    to_low = out.shape[0] == 0
    for i in prange(grad.shape[0]):
        g, t = grad[i], y[i]
        if to_low:
            o = low[i]
            for h in range(g.size):
                o[h] = bfloat16_bits(widen(g[h]) * (np.float32(1.0) - t[h] * t[h]))
        else:
            f = out[i]
            for h in range(g.size):
                f[h] = widen(g[h]) * (np.float32(1.0) - t[h] * t[h])


def _sample_rows_py(logits: np.ndarray, uniforms: np.ndarray, actions: np.ndarray, log_probs: np.ndarray) -> None:
    """For each row: the action whose share of the softmax's running sum first passes ``uniforms[i]`` (the
    inverse of the distribution's CDF: an exact draw from the softmax), and its log-probability. A logit more
    than 87 below the row's largest has probability 0, as in float32 (an illegal action's, -1e9); a row with a
    NaN gets the action -1."""
    for i in prange(logits.shape[0]):
        row = logits[i]
        top, nan = row[0], False
        for a in range(row.size):
            top = max(top, row[a])
            nan |= row[a] != row[a]
        if nan:  # no distribution to draw from: -1 (sample_actions says which row)
            actions[i], log_probs[i] = -1, np.float32(np.nan)
            continue
        total = 0.0  # float64: the running sums compared with the uniform
        for a in range(row.size):
            z = row[a] - top
            total += _exp32(z) if z > np.float32(-87.0) else np.float32(0.0)
        target = uniforms[i] * total
        running, pick = 0.0, -1
        for a in range(row.size):
            z = row[a] - top
            if z > np.float32(-87.0):
                running += _exp32(z)
                pick = a  # the last possible action: where rounding leaves the target above every sum
                if running > target:
                    break
        actions[i] = pick
        log_probs[i] = (row[pick] - top) - np.float32(np.log(total))


# Every fast-math licence but "no NaN" and "no infinity", which would drop the NaN checks.
FAST = {"nsz", "arcp", "contract", "afn", "reassoc"}
tanh_rows = Kernel(_tanh_rows_py, fastmath=FAST, allocates=False)
tanh_grad_rows = Kernel(_tanh_grad_rows_py, fastmath=FAST, allocates=False)
sample_rows = Kernel(_sample_rows_py, allocates=False)

NO_ROWS = np.empty((0, 0), np.uint16)  # ``low`` when no bfloat16 copy is wanted
_NO_VALUES = np.empty((0, 0), np.float32)  # ``out`` when only the bfloat16 result is wanted


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
    low_rows = np.empty(pre.shape, np.uint16) if low else NO_ROWS
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
        tanh_grad_rows(low.size, source, y.numpy(), _NO_VALUES, low)
        return from_bits(low)
    out = np.empty(y.shape, np.float32)
    tanh_grad_rows(out.size, source, y.numpy(), out, NO_ROWS)
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
