"""The import paths of version 0.1, kept for one release: each old module name is the new module, with a warning.

Version 0.2 arranged ``euchre_env`` into subpackages (``game``, ``views``, ``compiled``, ``envs``) and moved
human play and the command line out of ``agents`` and ``training`` (docs/design.md). A user's
``from euchre_env.vector import VectorEuchre`` still works until 0.3: the finder below answers an old name
with the module that now holds its code (the same module object, so classes and globals are shared) and
warns once with a :class:`DeprecationWarning` naming the new path. ``python -m`` on an old name runs the
new module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

REMOVED_IN = "0.3"

# old module name -> the module that holds its code now
MOVED: dict[str, str] = {
    **{f"euchre_env.{m}": f"euchre_env.game.{m}"
       for m in ("cards", "seats", "phases", "rules", "actions", "deals", "scoring", "engine")},
    **{f"euchre_env.{m}": f"euchre_env.views.{m}"
       for m in ("infostate", "seat_view", "observation", "structured", "decision", "render")},
    "euchre_env.vector_kernels": "euchre_env.compiled.kernels",
    "euchre_env.kernel_tables": "euchre_env.compiled.tables",
    "euchre_env.compiled_game": "euchre_env.compiled.game",
    "euchre_env.env": "euchre_env.envs.aec",
    **{f"euchre_env.{m}": f"euchre_env.envs.{m}"
       for m in ("wrappers", "episodes", "single_seat", "vector", "legal_space", "agent_specs")},
    "euchre_env.agents.heuristics": "euchre_env.agents.rule_based.heuristics",
    "euchre_env.agents.rule_based_vector": "euchre_env.agents.rule_based.compiled",
    "euchre_env.agents.pimc": "euchre_env.agents.search.pimc",
    "euchre_env.agents.worlds": "euchre_env.agents.search.worlds",
    "euchre_env.agents.double_dummy": "euchre_env.agents.search.double_dummy",
    "euchre_env.agents.policy": "euchre_env.agents.neural.network",
    "euchre_env.agents.sparse_input": "euchre_env.agents.neural.sparse_input",
    "euchre_env.agents.cpu_kernels": "euchre_env.agents.neural.cpu_kernels",
    "euchre_env.agents.checkpoint": "euchre_env.agents.neural.checkpoint",
    "euchre_env.agents.table": "euchre_env.play.table",
    "euchre_env.agents.human": "euchre_env.play.terminal",
    "euchre_env.agents.web": "euchre_env.play.web",
    "euchre_env.agents.play": "euchre_env.play.demo",
    "euchre_env.training.cli": "euchre_env.cli.main",
    "euchre_env.training.arguments": "euchre_env.cli.arguments",
    "euchre_env.evaluation.seeds": "euchre_env.evaluation.streams",
}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the new module itself."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{self.old} moved to {self.new} in euchre-env 0.2; the old path goes in {REMOVED_IN}",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(self.new)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system has just set the module's __spec__ to the alias's: give it back its own
        module.__spec__ = self._spec

    def get_code(self, fullname: str):  # ``python -m old.name``: run the new module's code
        spec = importlib.util.find_spec(self.new)
        return spec.loader.get_code(self.new)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        new = MOVED.get(fullname)
        return None if new is None else importlib.util.spec_from_loader(fullname, _Alias(fullname, new))


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
