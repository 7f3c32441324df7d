"""The suite runs every path on the engine it tests: the compiled kernels where a path has them (compiled on first
use, as before there was a reference fallback), and no background builds. Tests of the reference fallback set
``EUCHRE_ENV_ENGINE`` themselves (tests/differential/test_reference_game_vs_compiled_game.py)."""

import os

os.environ.setdefault("EUCHRE_ENV_ENGINE", "compiled")
os.environ.setdefault("EUCHRE_ENV_BACKGROUND_BUILD", "0")
