"""The trainer tests' tiny config (``configs/tiny.yaml``: a few seconds of training) and a silent log."""

from __future__ import annotations

import os

TINY = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "tiny.yaml")


def QUIET(text: str) -> None:
    """A Trainer log that prints nothing."""


def tiny(*overrides: str):
    """The tiny config with ``section.key=value`` overrides (the train extra must be installed)."""
    from euchre_env.training.config import load_config

    return load_config(TINY, list(overrides))
