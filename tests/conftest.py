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

os.environ.setdefault("EUCHRE_ENV_ENGINE", "compiled")
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
