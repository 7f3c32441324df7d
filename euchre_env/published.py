"""The files shipped with the package, found by name: the trainer's configs and the published checkpoints.

The repository keeps them in its top-level folders ``configs/`` and ``checkpoints/``, which install as the data
packages ``euchre_env.configs`` and ``euchre_env.checkpoints`` (pyproject.toml: every config, the checkpoints
the README points to). So an installed package finds them without a clone, and a clone (an editable install)
finds its own folders.

A name is a file name without a folder: ``knock.pt`` or ``knock_cfr.npz`` wherever an agent spec takes a
checkpoint or CFR tables (``knock.pt``, ``search:32:knock_150m.pt``, ``cfr:knock_cfr.npz``), and ``knock`` or
``knock.yaml`` for ``euchre train --config``. A path always wins: a name means the shipped file only when no
file of that name is where it was given (the current folder).
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

CONFIGS = "euchre_env.configs"
CHECKPOINTS = "euchre_env.checkpoints"
CONFIG_SUFFIX = ".yaml"


def _folder(package: str) -> Path | None:
    """The folder of a data package; None where it is not importable (an editable install made before it
    existed, which ``pip install -e .`` renews)."""
    try:
        # An installed package is a folder (Numba caches its machine code beside the modules), so the package's
        # resources are files that open, torch.load and np.load read by path.
        return Path(str(importlib.resources.files(package)))
    except ModuleNotFoundError:
        return None


def shipped(package: str, suffix: str) -> list[str]:
    """The file names ending in ``suffix`` that ``package`` (:data:`CONFIGS` or :data:`CHECKPOINTS`) ships."""
    folder = _folder(package)
    if folder is None:
        return []
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(suffix) and p.is_file())


def find(path: str, package: str) -> str:
    """``path`` where a file or folder is there or where it names a folder; else the file of ``package`` that
    the name ``path`` names, if it ships one; else ``path`` (the caller reports it missing, with :func:`hint`)."""
    if os.path.exists(path) or os.path.dirname(path):
        return path
    folder = _folder(package)
    if folder is not None and (folder / path).is_file():
        return str(folder / path)
    return path


def hint(what: str, package: str, suffix: str) -> str:
    """The end of a missing file's message: the ``what`` that ``package`` ships, by name (empty if none). A
    config's name is shown without its suffix, as ``--config knock`` takes it."""
    names = shipped(package, suffix)
    if package == CONFIGS:
        names = [name.removesuffix(suffix) for name in names]
    return f"; the package's {what} by name: {', '.join(names)}" if names else ""


def find_config(text: str) -> str:
    """The config file of ``--config TEXT``: the path ``TEXT`` if something is there (the trainer reports a
    folder), else the shipped config that the name ``TEXT`` or ``TEXT.yaml`` names; ``ValueError`` (one line,
    worded as the trainer's own, naming the shipped configs) if neither."""
    if os.path.exists(text):
        return text
    if not os.path.dirname(text):
        found = find(text if text.endswith(CONFIG_SUFFIX) else text + CONFIG_SUFFIX, CONFIGS)
        if os.path.isfile(found):
            return found
    raise ValueError(f"cannot read config {text!r}: No such file or directory{hint('configs', CONFIGS, CONFIG_SUFFIX)}")
