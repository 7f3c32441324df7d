"""The suite runs every path on the engine it tests: the compiled twins where a path has them
(``EUCHRE_ENV_ENGINE=compiled``: an extension that was not built fails the test rather than falling back). Tests
of the reference fallback set ``EUCHRE_ENV_ENGINE`` themselves
(tests/differential/test_reference_game_vs_compiled_game.py).

A shell that starts the suite in the background without job control (``nohup pytest &`` in a script) leaves
SIGINT ignored, and every process the tests start inherits that, so the Ctrl-C tests would see no Ctrl-C: the
suite puts Python's own handler back, as a terminal's shell would have it (children then start with the default).
"""

import os
import signal

import pytest

os.environ.setdefault("EUCHRE_ENV_ENGINE", "compiled")
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The slow tier (docs/testing.md): the tests listed in slow_tests.txt (those that took 1 s or more; tests/slow_tiers.py
# makes the list from a run's durations) and every test of SLOW_MODULES are marked slow; `make check` runs the others.
# A module is slow whole where a module-scoped fixture takes seconds (a Ray cluster, a wheel built and installed, a
# browser, a training run on the dense path): its cost lands on whichever of its tests runs first.
SLOW_MODULES = {"tests/evaluation/test_ray_eval.py", "tests/training/test_ray_train.py",
                "tests/test_installed_package.py", "tests/play/test_web_browser.py", "tests/training/test_device.py"}
with open(os.path.join(os.path.dirname(__file__), "slow_tests.txt")) as _f:
    _SLOW = {line.split("#")[0].strip() for line in _f if line.split("#")[0].strip()}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid in _SLOW or item.nodeid.split("[")[0] in _SLOW or item.nodeid.split("::")[0] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
