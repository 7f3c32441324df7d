"""Shared by test_equal.py and measure.py: the environment, the C module (built when stale) and a pair of one-game
kernels, Numba's (a CompiledGame's own buffers) and C's (copies of them), driven by the same calls."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("EUCHRE_ENV_ENGINE", "compiled")
os.environ.setdefault("NUMBA_CACHE_DIR", "/tmp/nc_helper")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for path in (HERE, ROOT):
    if path not in sys.path:
        sys.path.insert(0, path)

import sysconfig  # noqa: E402

import numpy as np  # noqa: E402

SOURCES = ("euchre_core.c", "legal_mask.inc", "gen_layout.py", "build.py")


def load_core():
    """The euchre_core module, rebuilt first if a source is newer than the .so."""
    so = os.path.join(HERE, "euchre_core" + sysconfig.get_config_var("EXT_SUFFIX"))
    from euchre_env.compiled import layout

    deps = [os.path.join(HERE, s) for s in SOURCES] + [layout.__file__]
    if not os.path.exists(so) or os.path.getmtime(so) < max(map(os.path.getmtime, deps)):
        import build

        build.build(quiet=True)
    import euchre_core

    return euchre_core


class Pair:
    """One game on both engines: ``cg`` (a CompiledGame, Numba's kernels on its buffers ``nb``) and ``c``
    (euchre_core.Game on copies ``cb`` of them)."""

    def __init__(self, rules, observation: str) -> None:
        from euchre_env.compiled.game import CompiledGame

        core = load_core()
        self.rules = rules
        self.cg = cg = CompiledGame(rules, observation)
        self.nb = (cg._st, cg._s8, cg._s16, cg._f32, cg._T)
        self.cb = tuple(b.copy() for b in self.nb)
        self.c = core.Game(*self.cb)
        self.n_seats = cg._seats
        self.c_seats = np.zeros_like(cg._seats)
        self.c_mask = self.cb[1][len(self.cb[1]) - len(cg.mask):]

    def set_field(self, field: int, value: int) -> None:
        self.nb[0][0, field] = value
        self.cb[0][0, field] = value

    def field(self, field: int) -> int:
        return int(self.nb[0][0, field])

    def differences(self) -> list[str]:
        names = ("st", "s8", "s16", "f32", "T", "seats")
        pairs = [*zip(self.nb, self.cb), (self.n_seats, self.c_seats)]
        return [name for name, (a, b) in zip(names, pairs) if a.tobytes() != b.tobytes()]
