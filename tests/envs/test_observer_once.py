"""An env builds its observers once (issue 56): the env, its compiled tables, its opponents and the checks of a
checkpoint share ``make_observer``'s one observer per rule set and kind, which never changes after it is built."""

import numpy as np
import pytest

import euchre_env
from euchre_env import SingleSeatEnv, SingleSeatVectorEnv, VectorEuchre
from euchre_env.views import observation, structured
from euchre_env.views.structured import make_observer


@pytest.fixture
def builds(monkeypatch):
    """The observers built from here on, by class name; the shared ones forgotten first."""
    counts = {"Observer": 0, "StructuredObserver": 0}
    for cls in (observation.Observer, structured.StructuredObserver):
        init = cls.__init__

        def counted(self, *args, _init=init, _name=cls.__name__, **kwargs):
            counts[_name] += 1
            _init(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", counted)
    structured._observer.cache_clear()
    yield counts
    structured._observer.cache_clear()  # none of the counting observers outlives the test


@pytest.mark.parametrize("make", [
    lambda: VectorEuchre("knock", 8, observation="structured"),
    lambda: SingleSeatVectorEnv(num_envs=8, observation="structured"),
    lambda: SingleSeatEnv(observation="structured").reset(seed=0),
    lambda: euchre_env.env(observation="structured").reset(seed=0),
], ids=["VectorEuchre", "SingleSeatVectorEnv", "SingleSeatEnv", "env"])
def test_an_env_builds_each_observer_once(builds, make):
    make()
    assert builds == {"Observer": 1, "StructuredObserver": 1}
    make()  # a second env of the same rules builds none
    assert builds == {"Observer": 1, "StructuredObserver": 1}


def test_the_shared_observer_cannot_be_changed():
    observer = make_observer(euchre_env.Rules.preset("knock"), "structured")
    assert observer is make_observer(euchre_env.Rules.preset("knock"), "structured")
    assert observer.base is make_observer(euchre_env.Rules.preset("knock"), "absolute")
    with pytest.raises(ValueError, match="read-only"):
        observer.high[0] = np.float32(2)
