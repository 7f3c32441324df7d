"""``run.device``: the trainer on an accelerator, its code path tested here on the CPU.

``run.device: cpu-dense`` runs the accelerator's path on the CPU: the networks in their dense form (a plain first
layer, torch's operations only), each batch moved to the device before its forward pass, the draws made by torch
with a generator of that device, the PPO minibatches indexed there. On a GPU the same lines run with the tensors
there. A checkpoint holds no device: the weights of either form load into the other and play the same.
"""

from __future__ import annotations

import contextlib
import io
import os
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch)")

from tiny_run import QUIET, TINY, tiny  # noqa: E402

from euchre_env.agents.neural import network  # noqa: E402
from euchre_env.agents.neural.agent import NeuralAgent  # noqa: E402
from euchre_env.agents.neural.checkpoint import build_model, load_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import ActorCritic, DenseLinear, PolicyNet, matmul_precision  # noqa: E402
from euchre_env.agents.neural.sparse_input import SparseInputLinear  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.game.engine import GameState  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.training import ppo as ppo_module  # noqa: E402
from euchre_env.training.config import load_config  # noqa: E402
from euchre_env.training.device import devices_here, resolve_device  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402
from euchre_env.views.infostate import information_state  # noqa: E402

torch.set_num_threads(1)
CHECKPOINTS = os.path.join(os.path.dirname(__file__), "..", "..", "checkpoints")


# ------------------------------------------------------------------ the config value
def test_each_device_value_resolves_on_this_machine():
    assert resolve_device("cpu") == (torch.device("cpu"), False)  # today's path: the sparse first layer
    assert resolve_device("cpu-dense") == (torch.device("cpu"), True)  # the accelerator's path, on the CPU
    here = devices_here()
    expected = "cuda" if "cuda:0" in here else "mps" if "mps" in here else "cpu"
    assert resolve_device("auto") == (torch.device(expected), expected != "cpu")
    assert tiny().run.device == "cpu" and load_config().run.device == "cpu"  # the default until a GPU is measured
    for folder_config in sorted(os.listdir(os.path.dirname(TINY))):
        if folder_config.endswith(".yaml"):
            load_config(os.path.join(os.path.dirname(TINY), folder_config))  # every shipped config says a device


@pytest.mark.parametrize("name", ["tpu", "CUDA", "cuda:x", "cuda:", "gpu", ""])
def test_a_value_that_names_no_device_is_one_line(name):
    with pytest.raises(ValueError) as info:
        tiny(f"run.device='{name}'")
    assert str(info.value) == (f"config run.device must be one of 'auto', 'cpu', 'cuda', 'cuda:N', 'mps', "
                               f"got {name!r}")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_on_a_machine_without_one_is_one_line_naming_what_it_has(tmp_path, capsys):
    here = ", ".join(devices_here())
    build = "" if torch.version.cuda else f" (torch {torch.__version__} is built without CUDA)"
    for name in ("cuda", "cuda:1"):
        with pytest.raises(ValueError) as info:
            tiny(f"run.device={name}")
        assert str(info.value) == (f"config run.device {name!r} is not available on this machine, which has: "
                                   f"{here}{build}; set run.device to one of those, or auto")
    with pytest.raises(SystemExit) as exit_info:  # euchre train: the same line, exit status 2, nothing run
        main(["train", "--config", TINY, "--runs-dir", str(tmp_path), "--run-name", "gpu", "--set", "run.device=cuda"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config run.device 'cuda' is not available on this machine" in err, err
    assert not (tmp_path / "gpu").exists()


def test_auto_prefers_cuda_then_mps_and_a_missing_index_names_the_ones_there(monkeypatch):
    """The resolution alone (no tensor is made), with a machine's devices as torch would report them."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert devices_here()[:3] == ["cpu", "cuda:0", "cuda:1"]
    assert resolve_device("auto") == (torch.device("cuda"), True)
    assert resolve_device("cuda:1") == (torch.device("cuda:1"), True)
    with pytest.raises(ValueError, match=re.escape("config run.device 'cuda:2' is not available on this machine, "
                                                   "which has: cpu, cuda:0, cuda:1")):
        resolve_device("cuda:2")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert devices_here() == ["cpu", "mps"] and resolve_device("auto") == (torch.device("mps"), True)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert resolve_device("auto") == (torch.device("cpu"), False)
    with pytest.raises(ValueError, match=re.escape("config run.device 'mps' is not available on this machine, "
                                                   "which has: cpu; set run.device")):
        resolve_device("mps")


# ------------------------------------------------------------------ the two forms of a network
def test_the_dense_form_has_the_sparse_forms_parameters_and_computes_the_same():
    torch.manual_seed(3)
    sparse = ActorCritic(120, 17, [32, 16], critic_extra=9, solver_head=True)
    torch.manual_seed(3)
    dense = ActorCritic(120, 17, [32, 16], critic_extra=9, solver_head=True, dense=True)
    a, b = sparse.state_dict(), dense.state_dict()
    assert list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)  # the same draws, the same keys
    assert not any(isinstance(m, SparseInputLinear) for m in dense.modules())
    assert isinstance(dense.actor[0], torch.nn.Linear) and not isinstance(dense.actor[0], DenseLinear)
    x = (torch.rand(300, 120) < 0.06).float() * torch.rand(300, 120)  # mostly zeros, as an observation is
    extra = (torch.rand(300, 9) < 0.3).float()
    mask = torch.rand(300, 17) < 0.5
    mask[:, 0] = True
    (logits_s, value_s), (logits_d, value_d) = sparse(x, mask, extra), dense(x, mask, extra)
    torch.testing.assert_close(logits_d, logits_s, rtol=0, atol=1e-5)
    torch.testing.assert_close(value_d, value_s, rtol=0, atol=1e-5)
    with matmul_precision(dense, "bfloat16"):  # the hidden products in bfloat16; the first layer stays float32
        assert dense.actor[0].weight.dtype == torch.float32 and dense.actor[2].compute_dtype == torch.bfloat16
        low, _ = dense(x, mask, extra)
    with matmul_precision(sparse, "bfloat16"):
        low_sparse, _ = sparse(x, mask, extra)
    torch.testing.assert_close(low, low_sparse, rtol=0, atol=0.02)
    copy = dense.actor.copy()  # back to the CPU's sparse form: the same weights
    assert not copy.dense and isinstance(copy[0], SparseInputLinear) and not copy.training
    assert all(torch.equal(copy.state_dict()[k], v) for k, v in dense.actor.state_dict().items())


def test_a_copy_draws_nothing_from_torchs_generator():
    net = PolicyNet(40, 9, [8])
    torch.manual_seed(11)
    net.copy(dense=True)
    after = torch.rand(3)
    torch.manual_seed(11)
    assert torch.equal(after, torch.rand(3))


# ------------------------------------------------------------------ training on the accelerator's path
@contextlib.contextmanager
def no_cpu_kernels():
    """The CPU path's sampler and the sparse rows of the PPO update fail if anything calls them."""
    def refused(*args, **kwargs):
        raise AssertionError("the dense path called a CPU kernel")

    class NoSparseRows:
        from_dense = staticmethod(refused)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(network, "sample_rows", refused)
        mp.setattr(ppo_module, "SparseRows", NoSparseRows)
        yield


@pytest.fixture(scope="module")
def dense_runs(tmp_path_factory):
    """Tiny runs on ``cpu-dense``: 3 updates at once; the same stopped after update 2 and resumed; and that
    stopped run resumed on the plain ``cpu`` instead."""
    root = tmp_path_factory.mktemp("dense")
    log = io.StringIO()
    with no_cpu_kernels():
        trainer = Trainer(tiny("run.device=cpu-dense"), str(root / "full"), log=lambda text: log.write(text + "\n"))
        assert trainer.dense and trainer.model.dense and trainer.device == torch.device("cpu")
        full = trainer.train()
        Trainer(tiny("run.device=cpu-dense"), str(root / "split"), log=QUIET).train(stop_at_update=2)
        resumed = Trainer(tiny("run.device=cpu-dense"), str(root / "split"), resume=True, log=QUIET)
        assert all(net.dense for _, net in resumed.selfplay.snapshots)  # the league's files, in the dense form
        split = resumed.train()
    Trainer(tiny("run.device=cpu-dense"), str(root / "moved"), log=QUIET).train(stop_at_update=2)
    return root, full, split, log.getvalue()


def test_a_tiny_run_on_the_dense_path_trains_and_writes_checkpoints(dense_runs):
    root, full, _, log = dense_runs
    assert full.updates == 3 and full.decisions >= 3000
    assert log.startswith(f"training {root / 'full'} on cpu-dense (the accelerator's code path on the CPU) until ")
    ckpts = root / "full" / "checkpoints"
    latest = load_checkpoint(str(ckpts / "latest.pt"), Rules.preset("knock"))
    assert latest["config"]["run"]["device"] == "cpu-dense"
    assert "device: cpu-dense" in (root / "full" / "config.yaml").read_text()
    assert latest["league"] == ["update_000001", "update_000003"]
    tensors = [*latest["actor"].values(), *latest["critic"].values()]
    tensors += [v for state in latest["optimizer"]["state"].values() for v in state.values()]
    assert all(t.device.type == "cpu" for t in tensors)
    # the play payload is the CPU run's: the same keys, shapes and names of weights
    cpu_model = ActorCritic(latest["obs_size"], latest["num_actions"], latest["hidden"])
    assert {k: v.shape for k, v in latest["actor"].items()} == {k: v.shape for k, v in cpu_model.actor.state_dict()
                                                                .items()}
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(root / "full"), size_guidance={"tensors": 0}).Reload()
    assert "device/text_summary" in events.Tags()["tensors"]
    assert {"losses/policy_loss", "eval/margin_vs_rules"} <= set(events.Tags()["scalars"])
    assert all(np.isfinite(e.value) for e in events.Scalars("losses/policy_loss"))


def assert_same_run(full_dir, split_dir) -> None:
    """The two runs' latest.pt hold the same counters, league and weights, bit for bit."""
    a = load_checkpoint(str(full_dir / "checkpoints" / "latest.pt"))
    b = load_checkpoint(str(split_dir / "checkpoints" / "latest.pt"))
    for key in ("update", "decisions", "hands", "best_margin"):
        assert a["counters"][key] == b["counters"][key], key
    for part in ("actor", "critic"):
        assert all(torch.equal(a[part][k], b[part][k]) for k in a[part]), part
    assert a["league"] == b["league"]


def test_a_run_on_the_dense_path_resumes_exactly(dense_runs):
    root, full, split, _ = dense_runs
    assert split.updates == full.updates == 3 and split.decisions == full.decisions
    assert_same_run(root / "full", root / "split")


def test_a_dense_run_resumes_on_the_plain_cpu(dense_runs):
    """The device may change on resume (a run moves between machines); the league's snapshots follow it."""
    root = dense_runs[0]
    moved = Trainer(tiny("run.device=cpu"), str(root / "moved"), resume=True, log=QUIET)
    assert not moved.model.dense and isinstance(moved.model.actor[0], SparseInputLinear)
    assert moved.update == 2 and all(not net.dense for _, net in moved.selfplay.snapshots)
    assert moved.train().updates == 3
    assert load_checkpoint(str(root / "moved" / "checkpoints" / "latest.pt"))["config"]["run"]["device"] == "cpu"


# ------------------------------------------------------------------ checkpoints play the same in either form
def random_states(rules: Rules, count: int, seed: int) -> list:
    """``count`` information states of random play (decisions with a choice), from several games."""
    rng = np.random.default_rng(seed)
    states, state = [], GameState(rules, rng)
    while len(states) < count:
        legal = state.legal_actions()
        if len(legal) > 1:
            states.append(information_state(state, state.current))
        state.apply(int(rng.choice(legal)))
        if state.is_over:
            state = GameState(rules, rng)
        elif state.hand_over:
            state.next_hand()
    return states


def same_play(path: str, states: list, device: str = "cpu") -> None:
    """The checkpoint as NeuralAgent loads it (the CPU's sparse form) and its weights in the dense form on ``device``
    pick the same greedy action in each state, from logits equal to 1e-5."""
    data = load_checkpoint(path)
    loaded = NeuralAgent(path)
    assert not loaded.model.dense and isinstance(loaded.model[0], SparseInputLinear)
    dense_net = build_model(data, path).copy(dense=True, device=device)
    dense = NeuralAgent(dense_net, data["rules"], observation=data["observation"])
    for info in states:
        assert loaded.act({}, {"information_state": info}) == dense.act({}, {"information_state": info})
    obs, mask = zip(*(loaded.encode(info)[:2] for info in states))
    x, m = torch.from_numpy(np.stack(obs)), torch.from_numpy(np.stack(mask))
    with torch.no_grad():
        on_device = dense_net.masked_logits(x.to(device), m.to(device)).cpu()
        torch.testing.assert_close(on_device, loaded.model.masked_logits(x, m), rtol=0, atol=1e-5)


def test_a_checkpoint_trained_on_the_dense_path_plays_the_same_with_neural_agent(dense_runs):
    path = str(dense_runs[0] / "full" / "checkpoints" / "latest.pt")
    same_play(path, random_states(Rules.preset("knock"), 300, seed=1))


@pytest.mark.parametrize("name", ["knock.pt", "bid.pt"])
def test_a_published_cpu_checkpoint_plays_the_same_in_the_dense_form(name):
    path = os.path.join(CHECKPOINTS, name)
    same_play(path, random_states(load_checkpoint(path)["rules"], 300, seed=2))


# ------------------------------------------------------------------ on a GPU, where the machine has one
ACCELERATORS = [d for d in devices_here() if d != "cpu"]


@pytest.mark.skipif(not ACCELERATORS, reason="no GPU here: cpu-dense runs the same lines (the tests above)")
@pytest.mark.parametrize("device", ACCELERATORS or ["none"])
def test_on_each_accelerator_here_a_tiny_run_trains_resumes_and_plays_the_same(device, tmp_path):
    with no_cpu_kernels():
        trainer = Trainer(tiny(f"run.device={device}"), str(tmp_path / "full"), log=QUIET)
        assert all(p.device == torch.device(device) for p in trainer.model.parameters())
        assert trainer.train().updates == 3
        Trainer(tiny(f"run.device={device}"), str(tmp_path / "split"), log=QUIET).train(stop_at_update=2)
        Trainer(tiny(f"run.device={device}"), str(tmp_path / "split"), resume=True, log=QUIET).train()
    assert_same_run(tmp_path / "full", tmp_path / "split")
    path = str(tmp_path / "full" / "checkpoints" / "latest.pt")
    assert all(t.device.type == "cpu" for t in load_checkpoint(path)["actor"].values())
    same_play(path, random_states(Rules.preset("knock"), 300, seed=1), device)
    same_play(os.path.join(CHECKPOINTS, "knock.pt"), random_states(Rules.preset("knock"), 300, seed=2), device)


# ------------------------------------------------------------------ the benchmark names the device
def test_bench_train_reports_decisions_per_second_with_the_device(capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_train", os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "bench_train.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with no_cpu_kernels():
        bench.main(["--config", TINY, "--updates", "2", "--device", "cpu-dense"])
    out = capsys.readouterr().out
    assert "device cpu-dense (the accelerator's code path on the CPU)" in out, out
    assert re.search(r"\| learner decisions/s on cpu-dense, end to end \| [\d,]+ \|", out), out
    with pytest.raises(SystemExit):
        bench.main(["--config", TINY, "--updates", "2", "--device", "tpu"])
    assert "config run.device must be one of" in capsys.readouterr().err
