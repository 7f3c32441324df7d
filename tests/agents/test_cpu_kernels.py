"""The one-pass tanh and bfloat16 kernels compute what torch computes (agents/neural/cpu_kernels.py), and the networks'
fused order of work (the first layer's tanh in its gather, bfloat16 activations) gives the unfused numbers.

The C extension holds its float kernels twice (for any CPU, and for AVX2 with FMA): the tests of what they compute
run on each copy this CPU can run (the ``isa`` fixture)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from euchre_env.agents.neural import _kernels, cpu_kernels  # noqa: E402
from euchre_env.agents.neural.cpu_kernels import (  # noqa: E402
    bfloat16_bits,
    bits,
    from_bits,
    sample_rows,
    tanh,
    tanh_grad,
    tanh_grad_rows,
    tanh_rows,
)
from euchre_env.agents.neural.network import ActorCritic, matmul_precision, sample_actions  # noqa: E402
from euchre_env.agents.neural.sparse_input import SparseInputLinear, SparseRows  # noqa: E402


def _runnable_copies() -> list[str]:
    best = _kernels.isa()
    copies = ["generic"]
    try:
        _kernels.set_isa("avx2")
        copies.append("avx2")
    except ValueError:  # not this CPU's (or not this build's)
        pass
    _kernels.set_isa(best)
    return copies


COPIES = _runnable_copies()


@pytest.fixture(params=COPIES)
def isa(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs a test on one copy of the float kernels, then puts back the one picked at import."""
    previous = _kernels.set_isa(request.param)
    yield request.param
    _kernels.set_isa(previous)


def _special() -> torch.Tensor:
    values = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -1e-30, 9.0, 10.0, 10.5, -30.0, 88.7]
    return torch.tensor([values], dtype=torch.float32)


def test_tanh_equals_torch_on_float32_and_bfloat16(isa: str) -> None:
    x = torch.cat([torch.linspace(-12, 12, 4096), torch.randn(4096, generator=torch.Generator().manual_seed(0))])
    x = x.reshape(32, 256)
    torch.testing.assert_close(tanh(x), torch.tanh(x), rtol=0, atol=2.5e-7)
    low = x.to(torch.bfloat16)
    out = tanh(low)  # from bfloat16 to bfloat16: the float32 tanh of the widened input, rounded once
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), torch.tanh(low.float()), rtol=0, atol=2 ** -9)
    special = _special()
    torch.testing.assert_close(tanh(special), torch.tanh(special), rtol=0, atol=1e-7, equal_nan=True)
    assert tanh(x[0]).shape == x[0].shape and tanh(x.reshape(4, 8, 256)).shape == (4, 8, 256)


def test_bfloat16_bits_round_as_torch_does(isa: str) -> None:
    g = torch.Generator().manual_seed(1)
    scaled = torch.randn(64, 256, generator=g) * 10.0 ** torch.randint(-40, 38, (64, 1), generator=g)
    ties = (torch.arange(4096, dtype=torch.int32) * 65536 + 32768).view(torch.float32)  # halfway between two
    x = torch.cat([scaled.flatten(), ties, _special().flatten()])
    out = bfloat16_bits(x.numpy())
    expected = bits(x.to(torch.bfloat16))
    nan = np.isnan(x.numpy())
    assert np.array_equal(out[~nan], expected[~nan])
    assert from_bits(out)[torch.from_numpy(nan)].isnan().all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_tanh_gradient_equals_torch(dtype: torch.dtype, isa: str) -> None:
    g = torch.Generator().manual_seed(2)
    x = (torch.randn(300, 64, generator=g) * 2).to(dtype).requires_grad_(True)
    grad = torch.randn(300, 64, generator=g).to(dtype)
    tanh(x).backward(grad)
    reference = x.detach().float().requires_grad_(True)
    torch.tanh(reference).to(dtype).backward(grad)
    # the tanh's outputs differ by up to 2e-7, times gradients of up to ~4
    torch.testing.assert_close(x.grad.float(), reference.grad.to(dtype).float(), rtol=0, atol=1e-6 * 4 if dtype ==
                               torch.float32 else 2 ** -7)
    y = torch.tanh(x.detach().float())
    assert torch.equal(tanh_grad(grad, y), torch.ops.aten.tanh_backward(grad.float(), y))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_first_layer_with_its_tanh_equals_the_two_apart(dtype: torch.dtype, isa: str) -> None:
    g = torch.Generator().manual_seed(3)
    x = (torch.rand(1000, 300, generator=g) < 0.06).float()
    layer = SparseInputLinear(300, 64)
    grad = torch.randn(1000, 64, generator=g).to(dtype)
    fused = layer.forward_tanh(SparseRows.from_dense(x), dtype)
    assert fused.dtype == dtype
    fused.backward(grad)
    fused_grads = layer.weight.grad.clone(), layer.bias.grad.clone()
    layer.zero_grad()
    apart = torch.tanh(F.linear(x, layer.weight, layer.bias)).to(dtype)
    apart.backward(grad)
    torch.testing.assert_close(fused.float(), apart.float(), rtol=0, atol=1e-6 if dtype == torch.float32 else 2 ** -7)
    torch.testing.assert_close(fused_grads[0], layer.weight.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(fused_grads[1], layer.bias.grad, rtol=1e-4, atol=1e-4)


def _unfused(net: torch.nn.Sequential, x: torch.Tensor, low: torch.dtype) -> torch.Tensor:
    """The network as plain torch operations: every product's inputs rounded to ``low``, float32 elsewhere."""
    layers = list(net)
    h = x
    for i in range(0, len(layers) - 1, 2):
        linear = layers[i]
        if i == 0:
            h = torch.tanh(F.linear(h, linear.weight, linear.bias))
        else:
            h = torch.tanh(F.linear(h.to(low), linear.weight.to(low), linear.bias.to(low)).float())
    out = layers[-1]
    return F.linear(h.to(low), out.weight.to(low), out.bias.to(low)).float()


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_the_fused_network_gives_the_unfused_numbers(precision: str) -> None:
    torch.manual_seed(4)
    model = ActorCritic(300, 20, [64, 32], critic_extra=10)
    g = torch.Generator().manual_seed(5)
    obs, extra = (torch.rand(512, 300, generator=g) < 0.06).float(), (torch.rand(512, 10, generator=g) < 0.3).float()
    mask = torch.ones(512, 20, dtype=torch.bool)
    low = getattr(torch, precision)
    with matmul_precision(model, precision):
        logits, value = model(obs, mask, extra)
        assert logits.dtype == value.dtype == torch.float32
        (logits.sum() + value.sum()).backward()
    fused = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad()
    ref_logits = _unfused(model.actor, obs, low)
    ref_value = _unfused(model.critic, torch.cat([obs, extra], 1), low).squeeze(-1)
    (ref_logits.sum() + ref_value.sum()).backward()
    # relative to the whole tensor: float32 differs by the tanh's 2e-7; bfloat16 also where an activation within
    # 2e-7 of a rounding boundary rounds the other way (measured: 1e-4 to 5e-4 on [256, 256] networks)
    tol = 1e-5 if precision == "float32" else 3e-3

    def relative(a: torch.Tensor, b: torch.Tensor) -> float:
        return float((a - b).detach().norm() / max(float(b.detach().norm()), 1e-12))

    assert relative(logits, ref_logits) < tol and relative(value, ref_value) < tol
    for name, p in model.named_parameters():
        assert relative(fused[name], p.grad) < tol, name
    np.testing.assert_array_equal(np.isfinite(logits.detach().numpy()), True)


def test_sampled_actions_follow_the_softmax_and_carry_its_log_probabilities(isa: str) -> None:
    from euchre_env.agents.neural.network import ILLEGAL_LOGIT

    g = torch.Generator().manual_seed(6)
    logits = torch.tensor([[2.0, 0.0, -1.0, 5.0, 0.5]]).repeat(40_000, 1)
    mask = torch.tensor([[True, True, True, False, True]]).repeat(40_000, 1)
    masked = torch.where(mask, logits, ILLEGAL_LOGIT)
    actions, log_probs = sample_actions(masked, g)
    assert mask[torch.arange(40_000), actions].all()  # the illegal action (the largest logit) is never drawn
    expected = torch.softmax(masked[0], -1)
    frequencies = torch.bincount(actions, minlength=5).double() / 40_000
    assert (frequencies - expected).abs().max() < 0.01  # 4 standard errors at the largest probability
    torch.testing.assert_close(log_probs, torch.log_softmax(masked, -1).gather(1, actions[:, None]).squeeze(1),
                               rtol=0, atol=1e-6)
    again = sample_actions(masked, torch.Generator().manual_seed(6))[0]
    assert torch.equal(actions, again)  # the generator's stream decides the draws
    bad = masked[:3].clone()
    bad[1, 2] = float("nan")
    with pytest.raises(ValueError, match="row 1 of the logits holds a NaN"):
        sample_actions(bad, g)


def test_the_copies_agree_where_their_arithmetic_is_the_same() -> None:
    """The rounding to bfloat16, tanh's gradient (one fused multiply-add, as torch's) and the sampler (each operation
    rounded apart) give the same bits on both copies; tanh's polynomial is fused on the AVX2 copy only (within 2e-7)."""
    if len(COPIES) < 2:
        pytest.skip("this CPU runs one copy of the kernels")
    g = torch.Generator().manual_seed(7)
    x = (torch.randn(257, 300, generator=g) * 4).numpy()
    y = np.tanh(x)
    grad = torch.randn(257, 300, generator=g).numpy()
    logits = (torch.randn(500, 33, generator=g) * 4).numpy()
    logits[:, 20:] = -1e9
    uniforms = torch.rand(500, generator=g, dtype=torch.float64).numpy()
    results = []
    for copy in COPIES:
        previous = _kernels.set_isa(copy)
        try:
            t, grads, low = np.empty_like(x), np.empty_like(x), np.empty(x.shape, np.uint16)
            tanh_rows(0, x, t, None)
            tanh_grad_rows(0, grad, y, grads, None)
            tanh_grad_rows(0, grad, y, None, low)
            actions, log_probs = np.empty(500, np.int64), np.empty(500, np.float32)
            sample_rows(0, logits, uniforms, actions, log_probs)
            results.append((t, grads, low, bfloat16_bits(x), actions, log_probs))
        finally:
            _kernels.set_isa(previous)
    (t0, *exact0), (t1, *exact1) = results
    np.testing.assert_allclose(t0, t1, rtol=0, atol=2.5e-7)
    for a, b in zip(exact0, exact1):
        assert a.tobytes() == b.tobytes()


def _large_batch_results(threads: int) -> list[torch.Tensor]:
    """Every row kernel on batches above PARALLEL_WORK, on ``threads`` torch threads, and the sparse first layer's
    output and gradients (its gather, weight gradient and entry kernels)."""
    g = torch.Generator().manual_seed(8)
    x = torch.randn(4096, 256, generator=g) * 3
    grad = torch.randn(4096, 256, generator=g)
    logits = torch.randn(4096, 40, generator=g) * 4
    obs = (torch.rand(4096, 300, generator=g) < 0.06).float() * torch.randn(4096, 300, generator=g)
    saved = torch.get_num_threads()
    try:
        torch.set_num_threads(threads)
        y = tanh(x)
        low = tanh(x.to(torch.bfloat16))
        drawn = sample_actions(logits, torch.Generator().manual_seed(9))
        torch.manual_seed(3)
        layer = SparseInputLinear(300, 64)
        out = layer.forward_tanh(obs)
        out.square().sum().backward()
        return [y, low.view(torch.int16), tanh_grad(grad, y), tanh_grad(grad, y, torch.bfloat16).float(), *drawn,
                out.detach(), layer.weight.grad, layer.bias.grad]
    finally:
        torch.set_num_threads(saved)


@pytest.mark.parametrize("team", [True, False], ids=["torch-team", "python-threads"])
def test_large_batches_on_more_threads_give_the_same_bits(team: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above PARALLEL_WORK a kernel's rows are cut into slices on torch's OpenMP team (or Python threads where there
    is none); each row is computed whole by one thread, so 1, 2 or 3 threads give the same bits either way."""
    if team and not cpu_kernels.ON_TORCH_TEAM:
        pytest.skip("this torch has no OpenMP team to run slices on")
    monkeypatch.setattr(cpu_kernels, "ON_TORCH_TEAM", team)
    serial = _large_batch_results(1)
    for threads in (2, 3):
        for a, b in zip(serial, _large_batch_results(threads)):
            assert torch.equal(a, b)


def test_slices_run_on_torchs_team_where_it_has_one() -> None:
    """torch on Linux runs on libgomp, whose entry points it loads for every module: the slices find them."""
    import sys

    if sys.platform.startswith("linux") and "OpenMP" in torch.__config__.parallel_info():
        assert cpu_kernels.ON_TORCH_TEAM and _kernels.team()
    x = np.zeros((4096, 8), np.float32)
    y = np.empty_like(x)
    for c in (-2, -1, 0):  # a team of two, a team of one (run here), one slice
        tanh_rows.fn(x, y, None, 0, 4096, c)
    with pytest.raises(ValueError, match=r"tanh_rows: rows 0\.\.4097 of 4096"):
        tanh_rows.fn(x, y, None, 0, 4097, -2)
    col = np.tile(np.arange(5, dtype=np.int32), 4096)
    col[-1] = 300  # the last row's last entry: outside the layer's 300 columns, found by the team's second slice
    rows = SparseRows(np.arange(0, 5 * 4097, 5, dtype=np.int64), col, np.ones(col.size, np.float32), 300)
    with pytest.raises(IndexError, match=r"gather_rows: row 4095's entries are not within 0\.\.300 columns"):
        SparseInputLinear(300, 4)(rows)


def test_a_wrong_array_is_one_clear_error() -> None:
    x = np.zeros((4, 8), np.float32)
    with pytest.raises(ValueError, match="tanh_rows: pre must be a C-contiguous float32 or uint16 array of 2 dim"):
        tanh_rows(0, x.astype(np.float64), x, None)
    with pytest.raises(ValueError, match="tanh_rows: y must be a C-contiguous, writable float32 array"):
        tanh_rows(0, x, np.zeros((8, 4), np.float32).T, None)
    with pytest.raises(ValueError, match="tanh_rows: pre, y and low must have one shape"):
        tanh_rows(0, x, np.zeros((4, 9), np.float32), None)
    with pytest.raises(ValueError, match="sample_rows: actions must be a C-contiguous, writable int64 array"):
        sample_rows(0, x, np.zeros(4), np.zeros(4, np.int32), np.zeros(4, np.float32))
    rows = SparseRows(np.array([0, 2], np.int64), np.array([1, 300], np.int32), np.ones(2, np.float32), 300)
    with pytest.raises(IndexError, match=r"gather_rows: row 0's entries are not within 0\.\.300 columns"):
        SparseInputLinear(300, 4)(rows)
