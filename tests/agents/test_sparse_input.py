"""The networks' sparse first layer and fast tanh compute what nn.Linear and nn.Tanh compute."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from euchre_env.agents.neural.network import ActorCritic, Tanh  # noqa: E402
from euchre_env.agents.neural.sparse_input import SparseInputLinear, SparseRows  # noqa: E402


def _observations(rows: int, features: int = 300, seed: int = 0) -> torch.Tensor:
    """Mostly zeros with a few values in (0, 1], like the env's observations, one column always set."""
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(rows, features, generator=g) < 0.06).float()
    x *= torch.randint(1, 6, (rows, features), generator=g).float() / 5
    x[:, 7] = 1.0
    return x


def _pair(features: int = 300, out: int = 64) -> tuple[SparseInputLinear, torch.nn.Linear]:
    torch.manual_seed(3)
    sparse = SparseInputLinear(features, out)
    dense = torch.nn.Linear(features, out)
    dense.load_state_dict(sparse.state_dict())
    return sparse, dense


@pytest.mark.parametrize("rows", [1, 16, 2048])
def test_forward_and_gradients_equal_nn_linear(rows: int) -> None:
    sparse, dense = _pair()
    x = _observations(rows)
    grad = torch.randn(rows, 64, generator=torch.Generator().manual_seed(1))
    for inputs in (x, SparseRows.from_dense(x)):
        sparse.zero_grad()
        dense.zero_grad()
        y = sparse(inputs)
        y.backward(grad)
        y_ref = dense(x)
        y_ref.backward(grad)
        torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(sparse.weight.grad, dense.weight.grad, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(sparse.bias.grad, dense.bias.grad, rtol=1e-5, atol=1e-5)


def test_selected_and_stacked_rows_equal_indexing_and_cat() -> None:
    sparse, dense = _pair(features=300 + 40)
    obs, extra = _observations(500), _observations(500, features=40, seed=2)
    index = torch.randperm(500, generator=torch.Generator().manual_seed(4))[:123]
    rows = SparseRows.from_dense(obs)[index].hstack(SparseRows.from_dense(extra)[index])
    torch.testing.assert_close(sparse(rows), dense(torch.cat([obs, extra], dim=1)[index]), rtol=1e-5, atol=1e-5)


def test_results_do_not_depend_on_the_number_of_threads() -> None:
    x = _observations(2048)
    grad = torch.randn(2048, 64, generator=torch.Generator().manual_seed(1))
    results = []
    saved = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            sparse, _ = _pair()
            y = sparse(x)
            y.backward(grad)
            results.append((y.detach(), sparse.weight.grad.clone()))
    finally:
        torch.set_num_threads(saved)
    assert torch.equal(results[0][0], results[1][0])
    assert torch.equal(results[0][1], results[1][1])


def test_inputs_it_is_not_made_for_take_the_dense_product() -> None:
    sparse, dense = _pair()
    x = _observations(8)
    wants_grad = x.clone().requires_grad_(True)
    y = sparse(wants_grad)
    y.sum().backward()
    assert wants_grad.grad is not None  # the gather path gives no input gradient; the dense one does
    full = torch.rand(8, 300) + 0.1  # no zeros at all
    torch.testing.assert_close(sparse(full), dense(full))
    torch.testing.assert_close(sparse(x[0]), dense(x[0]))  # one observation, not a batch


def test_bad_rows_are_rejected_in_one_line() -> None:
    sparse, _ = _pair()
    with pytest.raises(ValueError, match="rows of 299 features, layer takes 300"):
        sparse(SparseRows.from_dense(_observations(4, features=299)))
    rows = SparseRows.from_dense(_observations(4))
    with pytest.raises(IndexError, match="out of range for 4 rows"):
        rows[np.array([0, 4])]
    with pytest.raises(ValueError, match="4 rows and 3 rows"):
        rows.hstack(SparseRows.from_dense(_observations(3)))
    with pytest.raises(ValueError, match="expected a \\[batch, features\\] matrix"):
        SparseRows.from_dense(np.zeros(5, np.float32))


def test_a_changed_weight_is_seen_at_the_next_call() -> None:
    sparse, dense = _pair()
    x = _observations(16)
    sparse(x)  # caches the transposed weight
    optimizer = torch.optim.SGD(sparse.parameters(), lr=0.5)
    sparse(x).sum().backward()
    optimizer.step()
    dense.load_state_dict(sparse.state_dict())
    torch.testing.assert_close(sparse(x), dense(x), rtol=1e-5, atol=1e-5)
    sparse.load_state_dict(_pair()[1].state_dict())
    torch.testing.assert_close(sparse(x), _pair()[1](x), rtol=1e-5, atol=1e-5)


def test_tanh_equals_torch_tanh_with_its_gradient() -> None:
    x = torch.linspace(-12, 12, 10_001, requires_grad=True)
    y = Tanh()(x)
    torch.testing.assert_close(y, torch.tanh(x), rtol=0, atol=3e-7)
    y.sum().backward()
    torch.testing.assert_close(x.grad, 1 - torch.tanh(x.detach()) ** 2, rtol=0, atol=1e-6)


def test_the_actor_critic_keeps_nn_linear_state_dict_keys() -> None:
    model = ActorCritic(300, 20, [32, 32], critic_extra=5)
    keys = set(model.state_dict())
    assert {"actor.0.weight", "actor.0.bias", "critic.0.weight", "actor.4.weight"} <= keys
    assert not any("cached" in key for key in keys)
