"""Build time, speed per decision and size: the C twin (euchre_core) against Numba's one-game kernels.

    .venv/bin/python experiments/c_core/measure.py [--decisions 100000] [--reps 3] [--skip-numba-compile]

(1) CPU seconds of compiling the C module from scratch (cc -O2, children's rusage), and of Numba compiling the
    game family's four entry points into an empty cache (a fresh process; its import-only CPU shown apart);
(2) CPU ns per step: recorded random games (uniform legal actions) replayed by each engine; each hand is a new
    game at the hand's recorded scores, dealt by deal(pack) (game_deal). ns/step = (CPU of the replay - CPU of the
    same replay without its steps) / decisions; runs alternate C, Numba, `reps` times; medians reported;
(3) lines of C against the lines of the Numba sources it ports.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from common import HERE, ROOT, Pair  # noqa: I001 (sets the environment first)

import numpy as np

from euchre_env.compiled import layout as K
from euchre_env.game.deals import shuffled_pack
from euchre_env.game.rules import Rules


def compile_c(reps: int = 3) -> float:
    import build

    return statistics.median(build.build(quiet=True)["cpu_s"] for _ in range(reps))


def _child_cpu(code: str, env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compile_numba() -> tuple[float, float]:
    """CPU s of a fresh process that builds CompiledGame's four kernels into an empty cache, and of one that only
    imports the same modules."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "EUCHRE_ENV_ENGINE": "compiled"}
        imports = "from euchre_env.compiled.game import CompiledGame; from euchre_env.game.rules import Rules"
        base = _child_cpu(imports, env)
        full = _child_cpu(imports + "; CompiledGame(Rules.preset('knock'), 'absolute')", env)
    return full, base


def record(pair: Pair, decisions: int, seed: int) -> list[tuple[int, np.ndarray, int, int, list[int]]]:
    """Random games on the C side: (dealer, pack, score0, score1, actions) per hand, ``decisions`` in all."""
    rules, c = pair.rules, pair.c
    st = pair.cb[0]
    rng = np.random.default_rng(seed)
    hands, total = [], 0
    while total < decisions:
        st[0, K.DEALER] = int(rng.integers(4))
        new = True
        while True:
            dealer, s0, s1 = int(st[0, K.DEALER]), int(st[0, K.SC]), int(st[0, K.SC + 1])
            if new:
                s0 = s1 = 0
            pack = shuffled_pack(rules, rng)
            seat = c.deal(pack, new, s0, s1)
            actions = []
            while seat >= 0:
                a = int(rng.choice(np.flatnonzero(pair.c_mask)))
                actions.append(a)
                seat = c.step(a)
            hands.append((dealer, pack, s0, s1, actions))
            total += len(actions)
            if st[0, K.PH] == K.GAME_OVER or total >= decisions:
                break
            st[0, K.DEALER] = (dealer + 1) % 4
            new = False
    return hands


def replay(st, deal, step, hands, with_steps: bool) -> float:
    """CPU seconds of replaying ``hands`` (each a new game at its recorded scores)."""
    gc.disable()
    t0 = time.process_time()
    for dealer, pack, s0, s1, actions in hands:
        st[0, K.DEALER] = dealer
        deal(pack, True, s0, s1)
        if with_steps:
            for a in actions:
                step(a)
    t = time.process_time() - t0
    gc.enable()
    return t


def call_cost(step, action: int, n: int) -> float:
    """CPU seconds per call of ``step(action)`` for an illegal ``action`` (returns -2 at once)."""
    actions = [action] * n
    gc.disable()
    t0 = time.process_time()
    for a in actions:
        step(a)
    t = time.process_time() - t0
    gc.enable()
    return t / n


def floor_loop(hands) -> float:
    """CPU seconds of the same loop calling a no-op builtin (abs) per action: Python's loop and call floor."""
    noop = abs
    t0 = time.process_time()
    for _dealer, _pack, _s0, _s1, actions in hands:
        for a in actions:
            noop(a)
    return time.process_time() - t0


def speed(preset: str, observation: str, decisions: int, reps: int) -> dict[str, float]:
    pair = Pair(Rules.preset(preset), observation)
    hands = record(pair, decisions, seed=7)
    n = sum(len(h[4]) for h in hands)
    cg = pair.cg
    engines = {"C": (pair.cb[0], pair.c.deal, pair.c.step),
               "Numba": (pair.nb[0], cg._start_shuffled, cg.step)}
    for a, b in zip(pair.nb, pair.cb):  # the recording's leftovers (history past its count) wiped
        b[...] = a
    # the two replays end in the same state, checked once (the recorded games are legal for both)
    for name, (st, deal, step) in engines.items():
        replay(st, deal, step, hands[:50], True)
    assert pair.differences() in ([], ["seats"]), pair.differences()
    res: dict[str, list[float]] = {f"{e} {k}": [] for e in engines for k in ("step", "start")}
    res["floor"] = []
    # an illegal action: game_step's first check, then -2; the cost of the call itself (the dispatch)
    st0 = pair.nb[0]
    dealer, pack = hands[0][0], hands[0][1]
    for st, deal, _ in engines.values():
        st[0, K.DEALER] = dealer
        deal(pack, True, 0, 0)
    illegal = int(np.flatnonzero(cg.mask == 0)[0])
    assert cg.step(illegal) == pair.c.step(illegal) == -2 and st0 is not None
    for e in engines:
        res[f"{e} call"] = []
    for _ in range(reps):
        for name, (st, deal, step) in engines.items():
            full = replay(st, deal, step, hands, True)
            starts = replay(st, deal, step, hands, False)
            res[f"{name} step"].append((full - starts) / n * 1e9)
            res[f"{name} start"].append(starts / len(hands) * 1e9)
        res["floor"].append(floor_loop(hands) / n * 1e9)
        for name, (_st, _deal, step) in engines.items():
            res[f"{name} call"].append(call_cost(step, illegal, n) * 1e9)
    out = {k: statistics.median(v) for k, v in res.items()}
    out["decisions"], out["hands"] = n, len(hands)
    out["runs"] = {k: [round(x) for x in v] for k, v in res.items()}
    return out


def lines(paths) -> tuple[int, int]:
    total = code = 0
    for p in paths:
        in_comment = False
        for line in open(p):
            total += 1
            s = line.strip()
            if in_comment:
                in_comment = "*/" not in s
                continue
            if s.startswith("/*"):
                in_comment = "*/" not in s
                continue
            if s and not s.startswith("//") and not s.startswith("#") or s.startswith("#define"):
                code += 1
    return total, code


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--skip-numba-compile", action="store_true")
    args = parser.parse_args()
    print(f"C compile (cc -O2, from scratch, median of 3): {compile_c():.3f} CPU s", flush=True)
    if not args.skip_numba_compile:
        full, base = compile_numba()
        print(f"Numba compile of the game family into an empty cache: {full:.1f} CPU s for the process "
              f"({base:.1f} of it importing, so {full - base:.1f} compiling)", flush=True)
    for preset, observation in (("knock", "absolute"), ("knock", "structured"), ("bid", "structured")):
        r = speed(preset, observation, args.decisions, args.reps)
        print(f"{preset} {observation}: {r['decisions']} decisions, {r['hands']} hands; CPU ns/step C "
              f"{r['C step']:.0f}, Numba {r['Numba step']:.0f} (x{r['Numba step'] / r['C step']:.2f}); "
              f"ns/deal C {r['C start']:.0f}, Numba {r['Numba start']:.0f}; ns/illegal step (the call alone) C "
              f"{r['C call']:.0f}, Numba {r['Numba call']:.0f}; loop+abs() floor {r['floor']:.0f}; "
              f"runs {r['runs']}", flush=True)
    c_files = [os.path.join(HERE, f) for f in ("euchre_core.c", "legal_mask.inc")]
    py = [os.path.join(ROOT, "euchre_env", "compiled", f)
          for f in ("one_game.py", "rules.py", "scoring.py", "observe.py", "deal.py")]
    (ct, cc), (pt, _) = lines(c_files), lines(py)
    print(f"lines of C: {ct} ({cc} without comments / blank lines / includes); the Numba files it ports: {pt} "
          f"(one_game, rules, scoring, observe, deal: all lines, deal.py counted whole)")


if __name__ == "__main__":
    main()
