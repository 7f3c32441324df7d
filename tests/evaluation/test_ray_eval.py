"""Evaluation on Ray (evaluation/ray_backend.py): the local backend's records, a killed worker's chunk played
again, one line for an unreachable cluster. A local Ray instance, started here with two CPUs."""

from __future__ import annotations

import json
import os
import sys

import pytest

ray = pytest.importorskip("ray")

from euchre_env.agents.random_agent import RandomAgent  # noqa: E402
from euchre_env.cli.main import main  # noqa: E402
from euchre_env.evaluation import evaluate, run_ladder  # noqa: E402

CHECKPOINT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "knock_structured.pt")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    # The test's agent factory below travels by value: the workers cannot import this test module.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    ray.shutdown()


class DiesOnce:
    """A random agent whose process exits in the middle of a chunk, the first time any copy of it acts."""

    name = "random-that-dies-once"

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def __call__(self, seed: int | None) -> DiesOnce:
        agent = DiesOnce(self.flag)
        agent.inner = RandomAgent(seed)
        agent.acted = 0
        return agent

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def _first_to_die(self) -> bool:
        # Created atomically: two workers reaching their fifth action together must not both die (an
        # exists-then-create check let both through once, and the test saw two chunks played again).
        try:
            os.close(os.open(self.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True

    def act(self, observation, info) -> int:
        self.acted += 1
        if self.acted == 5 and self._first_to_die():
            os._exit(1)  # the worker process dies, as a killed one does
        return self.inner.act(observation, info)


@pytest.mark.parametrize("a, b, episode, n", [("rules", "random", "hand", 40), (CHECKPOINT, "rules", "hand", 24),
                                              ("rules", "random", "game", 3)])
def test_ray_gives_the_local_backends_records(a: str, b: str, episode: str, n: int) -> None:
    local = evaluate(a, b, "knock", n=n, seed=11, episode=episode, workers=1)
    on_ray = evaluate(a, b, "knock", n=n, seed=11, episode=episode, workers=2, chunk=5, backend="ray")
    assert on_ray.records == local.records and on_ray.margin == local.margin
    assert (on_ray.backend, on_ray.workers, on_ray.retries, local.backend) == ("ray", 2, 0, "local")


def test_the_workers_leave_no_checkpoint_file_behind() -> None:
    import glob
    import tempfile

    left = set(glob.glob(os.path.join(tempfile.gettempdir(), "euchre-*.pt")))
    on_ray = evaluate(CHECKPOINT, "random", "knock", n=8, seed=3, workers=2, chunk=2, backend="ray")
    assert on_ray.hands == 16 and on_ray.agent_a == CHECKPOINT
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "euchre-*.pt"))) <= left


def test_a_killed_worker_s_chunk_is_played_again_and_nothing_is_lost_or_counted_twice(tmp_path) -> None:
    flag = str(tmp_path / "died")
    on_ray = evaluate("rules", DiesOnce(flag), "knock", n=30, seed=5, workers=2, chunk=6, backend="ray")
    assert os.path.exists(flag)  # a worker did die
    local = evaluate("rules", "random", "knock", n=30, seed=5, workers=1)
    assert on_ray.retries == 1
    assert [r.index for r in on_ray.records] == list(range(30))
    assert on_ray.records == local.records


def test_the_ladder_on_ray_is_the_local_ladder() -> None:
    local = run_ladder(["rules", "random"], "knock", n=20, seed=2, workers=1, bootstrap=0)
    on_ray = run_ladder(["rules", "random"], "knock", n=20, seed=2, workers=2, bootstrap=0, backend="ray")
    assert on_ray.ratings == local.ratings and on_ray.record == local.record


def test_the_cli_records_the_backend_and_workers_in_its_json(tmp_path, capsys) -> None:
    assert main(["eval", "rules", "random", "--hands", "20", "--backend", "ray", "--out", str(tmp_path)]) == 0
    saved = json.loads((tmp_path / "eval.json").read_text())
    assert (saved["backend"], saved["workers"], saved["retries"]) == ("ray", 2, 0)
    assert "Played as Ray tasks on 2 CPUs" in capsys.readouterr().out


@pytest.mark.parametrize("address, words", [("127.0.0.1:1", "no Ray head node answers at 127.0.0.1:1"),
                                            ("nowhere", "--address must be 'auto' or HOST:PORT")])
def test_an_unreachable_address_is_one_line(address: str, words: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["eval", "rules", "random", "--hands", "10", "--backend", "ray", "--address", address])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and words in err and "\n" not in err


def test_an_address_without_the_ray_backend_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["eval", "rules", "random", "--address", "auto"])
    assert "--address is for --backend ray" in capsys.readouterr().err


class ChoosesNonsense:
    """An agent that answers an action id no rule set has."""

    name = "nonsense"

    def __call__(self, seed: int | None) -> ChoosesNonsense:
        return self

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation, info) -> int:
        return 10**6


def test_an_agent_s_own_error_is_raised_as_the_local_backend_raises_it() -> None:
    from euchre_env.evaluation import IllegalActionError

    with pytest.raises(IllegalActionError, match=r"^agent 'nonsense' at seat \d chose the illegal action 1000000"):
        evaluate("rules", ChoosesNonsense(), "knock", n=4, backend="ray")
