"""Self-play collection on Ray actors (training/ray_collect.py): a tiny run with two rollout workers, the same
rollout for the same update, a killed worker restarted while the update goes on. A local Ray instance."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

from euchre_env.training.config import load_config  # noqa: E402
from euchre_env.training.train import Trainer  # noqa: E402

OVERRIDES = ["run.backend=ray", "ray.rollout_workers=2", "pretrain.teacher=''", "eval.every=0",
             "run.total_decisions=2000", "final_eval.opponents={}"]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _trainer(tmp_path, name: str, log=None) -> Trainer:
    config = load_config("configs/tiny.yaml", OVERRIDES)
    return Trainer(config, os.path.join(tmp_path, name), log=log or (lambda text: None))


def test_a_tiny_run_with_two_rollout_workers_trains(tmp_path) -> None:
    trainer = _trainer(tmp_path, "run")
    result = trainer.train()
    assert result.updates >= 2 and result.decisions >= 2000
    events = [f for f in os.listdir(trainer.run_dir) if f.startswith("events")]
    with open(os.path.join(trainer.run_dir, events[0]), "rb") as f:
        assert b"workers/decisions_per_second/1" in f.read()
    assert trainer.ray_collector is None  # train() stopped the workers at its end


def test_an_update_s_rollout_depends_only_on_seed_update_and_workers(tmp_path) -> None:
    rollouts = []
    for name in ("a", "b"):  # two runs of the same config, one after the other (each holds the two CPUs)
        trainer = _trainer(tmp_path, name)
        rollouts.append(trainer.collect())
        trainer.close()
    first, second = rollouts
    assert len(first) == len(second) and np.array_equal(first.action, second.action)
    assert np.array_equal(first.obs, second.obs) and np.array_equal(first.next_index, second.next_index)


def test_a_killed_worker_is_restarted_and_the_update_goes_on(tmp_path) -> None:
    said: list[str] = []
    trainer = _trainer(tmp_path, "k", log=said.append)
    full = len(trainer.collect())
    ray.kill(trainer.ray_collector.workers[0], no_restart=False)
    partial = trainer.collect()
    assert trainer.ray_collector.died == [0] and 0 < len(partial) < full
    assert any("rollout worker(s) 0 died" in line for line in said)
    again = trainer.collect()  # the restarted actor collects again
    assert trainer.ray_collector.died == [] and len(again) == full
    trainer.close()


def test_more_workers_than_free_cpus_is_one_line_not_a_hang(tmp_path) -> None:
    config = load_config("configs/tiny.yaml", [*OVERRIDES, "ray.rollout_workers=3"])
    trainer = Trainer(config, os.path.join(tmp_path, "big"), log=lambda text: None)
    words = "ray.rollout_workers=3 needs 3 CPUs; the Ray cluster has 2: lower it or add nodes"
    with pytest.raises(RuntimeError, match=re.escape(words)):
        trainer.collect()
    trainer.close()


def test_a_bad_backend_is_one_line() -> None:
    with pytest.raises(ValueError, match=re.escape("config run.backend must be one of 'local', 'ray', got 'cloud'")):
        load_config("configs/tiny.yaml", ["run.backend=cloud"])


def test_euchre_train_with_an_unreachable_address_is_one_line(tmp_path, capsys) -> None:
    from euchre_env.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["train", "--config", "configs/tiny.yaml", "--runs-dir", str(tmp_path), "--set", "run.backend=ray",
              "ray.address=127.0.0.1:1"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "no Ray head node answers at 127.0.0.1:1" in err and "\n" not in err
