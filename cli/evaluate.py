"""``euchre eval``, ``euchre ladder`` and ``euchre merge``: duplicate matches, rating ladders and merged runs."""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import sys
from typing import Any

from euchre_env.agents.registry import CFR_SUFFIX, CHECKPOINT_SUFFIX, build_for_rules
from euchre_env.cli.arguments import PROG, check_output, deal_count, fail, int_in, make_rules, seed, workers
from euchre_env.game.errors import IllegalActionError
from euchre_env.game.rules import PRESETS, Rules, option_names

# The evaluation needs the eval extra (scipy, tqdm): without it, the command says so in one line (missing_extra,
# asked before anything runs). Its modules are imported by the commands that run a match, not here: scipy's
# statistics took 0.8 s of every `euchre --help` and every argument error.
EVAL_EXTRA = ("scipy", "tqdm")


def missing_extra() -> str | None:
    """The first module of the eval extra that is not installed (looked up, not imported), else None."""
    return next((name for name in EVAL_EXTRA if importlib.util.find_spec(name) is None), None)

# --first-deal: a deal index far beyond any match (a million deals a match), whose seeds stay exact in every API.
FIRST_DEAL_LIMIT = 10**12
MAX_BOOTSTRAP = 100_000  # resamples of the ladder's deals, each a fit of the ratings: minutes at most
COMMANDS = {
    "eval": "a duplicate match of agent A against agent B",
    "ladder": "a round robin of duplicate matches with Bradley-Terry ratings",
    "merge": "one match from several eval runs over disjoint deal ranges",
}


def add_parsers(sub: Any) -> None:
    """The eval, merge and ladder commands' arguments."""
    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--preset", default=None,
                       help=f"rules preset: {', '.join(PRESETS)} (default: the rules a checkpoint or CFR tables "
                            "were trained for, else knock)")
        p.add_argument("--set", dest="options", action="extend", nargs="+", default=[], metavar="OPTION=VALUE",
                       help=f"override a rules option; options: {', '.join(option_names())}")
        p.add_argument("--hands", type=deal_count, default=1000,
                       help="duplicate deals per match, each played twice with the teams swapped (default 1000)")
        p.add_argument("--games", type=deal_count, default=None,
                       help="play N duplicate pairs of whole games instead of single hands (--hands is then unused)")
        p.add_argument("--seed", type=seed, default=0, help="master seed, 0 to 2**32-1 (default 0)")
        p.add_argument("--workers", type=workers, default=2,
                       help="worker processes, 1 to 256 (default 2; with --backend ray and no --address, the local "
                            "Ray CPUs)")
        p.add_argument("--backend", choices=("local", "ray"), default="local",
                       help="local: this machine's processes (default); ray: Ray tasks (pip install 'euchre-env[ray]')")
        p.add_argument("--address", default=None, metavar="auto|HOST:PORT",
                       help="with --backend ray: join this Ray cluster (default: start a local Ray instance)")
        p.add_argument("--out", default=None, metavar="DIR", help="write JSON and CSV results (and the ladder PNG)")
        p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                       help="progress bar on stderr (default: when stderr is a terminal)")

    ev = sub.add_parser("eval", help=COMMANDS["eval"],
                        description="A duplicate match: every deal is played twice, the teams swapped.")
    ev.add_argument("agent_a", metavar="A", help="agent spec (random, rules, pimc:50, ...)")
    ev.add_argument("agent_b", metavar="B", help="agent spec")
    common(ev)
    ev.add_argument("--first-deal", type=int_in(0, FIRST_DEAL_LIMIT, "a deal index"), default=0, metavar="K",
                    help="play the duplicate pairs K .. K+N-1 (to split a long match into runs; see merge)")

    mer = sub.add_parser("merge", help=COMMANDS["merge"],
                         description="Merge the eval.json of runs of the same match (agents, rules, seed) "
                                     "played over disjoint ranges of deals (eval --first-deal).")
    mer.add_argument("runs", nargs="+", metavar="RUN",
                     help="eval.json files (or .json.gz), or the --out folders holding them")
    mer.add_argument("--out", default=None, metavar="DIR", help="write the merged JSON and CSV results")

    lad = sub.add_parser("ladder", help=COMMANDS["ladder"],
                         description="Round robin of duplicate matches; Elo-scale Bradley-Terry ratings "
                                     "anchored at the first agent = 0, with bootstrap intervals over deals.")
    lad.add_argument("agents", nargs="+", metavar="AGENT", help="two or more agent specs")
    common(lad)
    lad.add_argument("--bootstrap", type=int_in(0, MAX_BOOTSTRAP, "bootstrap resamples"), default=200,
                     help=f"bootstrap resamples of the deals for the rating intervals, 0 to {MAX_BOOTSTRAP:,} "
                          "(default 200)")



def check_agent(spec: str, rules: Rules | None = None) -> Any:
    """Build the agent once here, so that a bad spec (or a checkpoint for other rules) fails before any
    worker starts, with the agent's own message (naming the spec once); returns the agent."""
    return build_for_rules(spec, rules, 0)


def match_rules(preset: str | None, options: list[str], specs: list[str]) -> tuple[Rules, str]:
    """The rules of a match and how the description line names them: ``--preset``/``--set`` when given;
    else the rules the checkpoint agents were trained for (all the same, or a one-line error); else knock."""
    if preset is not None or options:
        rules = make_rules(preset or "knock", options)
        return rules, f"preset {rules.preset_name}" + (f" ({', '.join(options)})" if options else "")
    trained = {spec: check_agent(spec).rules for spec in dict.fromkeys(specs)
               if spec.endswith((CHECKPOINT_SUFFIX, CFR_SUFFIX))}  # a checkpoint, a search over one, CFR tables
    if not trained:
        return make_rules("knock", []), "preset knock"
    first = next(iter(trained.values()))
    if any(r.unlabelled() != first.unlabelled() for r in trained.values()):
        named = ", ".join(f"{spec} ({rules_label(r)})" for spec, r in trained.items())
        raise ValueError(f"the agents were trained for different rules: {named}; one match plays one "
                         "rule set: give agents trained for the same rules")
    return first, f"rules from {', '.join(trained)}: {rules_label(first)}"


def rules_label(rules: Rules) -> str:
    """``preset bid``, with the options where the rules differ from their preset."""
    if rules.preset_name not in PRESETS:
        return f"custom rules ({rules.to_dict()})"
    changed = [f"{name}={value}" for name, value in rules.changed_options().items()]
    return f"preset {rules.preset_name}" + (f" ({', '.join(changed)})" if changed else "")


def _describe(rules_text: str, seed: int, n: int, episode: str) -> str:
    unit = ("deals, each played twice with the teams swapped" if episode == "hand"
            else "pairs of games from the same seeded deals, the teams swapped")
    return (f"Duplicate evaluation, {rules_text}, seed {seed}: {n} {unit}. "
            "Margin = A's points minus B's per hand, 95% t-interval over the duplicate pairs.")


def run_match(args: argparse.Namespace) -> int:
    """eval and ladder: check the rules and agents, then play."""
    try:
        specs = [args.agent_a, args.agent_b] if args.command == "eval" else list(args.agents)
        if args.command == "ladder" and len(specs) < 2:
            raise ValueError(f"a ladder needs at least two agents, got {len(specs)}")
        rules, rules_text = match_rules(args.preset, args.options, specs)
        for spec in dict.fromkeys(specs):
            check_agent(spec, rules)
        if args.out:
            check_output(args.out, folder=True)
    except ValueError as exc:
        fail(str(exc))
    episode, n = ("game", args.games) if args.games else ("hand", args.hands)
    if args.address is not None and args.backend != "ray":
        fail("--address is for --backend ray (a Ray cluster)")
    if args.backend == "ray":
        _connect_ray(args.address, args.workers)
    from euchre_env.evaluation import GameTooLongError

    try:
        if args.command == "eval":
            _run_eval(args, rules, rules_text, episode, n)
        else:
            _run_ladder(args, specs, rules, rules_text, episode, n)
    except (IllegalActionError, GameTooLongError) as exc:
        fail(str(exc), status=1)
    return 0


def _connect_ray(address: str | None, workers: int) -> None:
    """Start or join Ray before anything is played, so that a missing extra or an unreachable address is one
    line (exit 2)."""
    try:
        from euchre_env.evaluation.ray_backend import connect

        connect(address, workers)
    except ModuleNotFoundError as exc:
        fail(f"--backend ray needs Ray (no module named {exc.name!r}): pip install 'euchre-env[ray]'")
    except ConnectionError as exc:
        fail(str(exc))


def _run_eval(args: argparse.Namespace, rules: Rules, rules_text: str, episode: str, n: int) -> None:
    from euchre_env.evaluation import evaluate, match_table, write_match

    result = evaluate(args.agent_a, args.agent_b, rules, n, args.seed, episode, args.workers,
                      progress=args.progress, first=args.first_deal, backend=args.backend, address=args.address)
    print(_describe(rules_text, args.seed, n, episode))
    if result.backend == "ray":
        print(f"Played as Ray tasks on {result.workers} CPUs; chunks played again after a worker died: "
              f"{result.retries}.")
    print()
    print(match_table([result]))
    if args.out:
        paths = write_match(result, args.out)
        print(f"\nwrote {', '.join(paths)}")


def run_merge(args: argparse.Namespace) -> int:
    from euchre_env.evaluation import match_table, merge_results, write_match

    if args.out:
        try:
            check_output(args.out, folder=True)
        except ValueError as exc:
            fail(str(exc))
    runs = []
    for path in args.runs:
        file = os.path.join(path, "eval.json") if os.path.isdir(path) else path
        try:  # docs/results keeps published runs gzipped (docs/results/README.md): read them as they are
            with (gzip.open(file, "rt") if file.endswith(".gz") else open(file)) as f:
                runs.append(json.load(f))
        except (OSError, ValueError) as exc:
            fail(f"cannot read eval results {file!r}: {exc}; expected the eval.json (JSON) that "
                 "euchre eval --out DIR writes, or DIR")
    try:
        result = merge_results(runs)
    except (ValueError, KeyError, TypeError) as exc:
        fail(f"cannot merge: {exc}")
    print(f"Merged {len(runs)} runs: {result.deals} duplicate pairs.\n")
    print(match_table([result]))
    if args.out:
        print(f"\nwrote {', '.join(write_match(result, args.out))}")
    return 0


def _run_ladder(args: argparse.Namespace, specs: list[str], rules: Rules, rules_text: str, episode: str,
                n: int) -> None:
    from euchre_env.evaluation import ladder_report, run_ladder, write_ladder

    result = run_ladder(specs, rules, n, args.seed, episode, args.workers, args.bootstrap, progress=args.progress,
                        backend=args.backend, address=args.address)
    print(_describe(rules_text, args.seed, n, episode))
    print(f"Ratings: Bradley-Terry on duplicate boards, Elo scale, {result.anchor}; "
          f"intervals from {result.bootstrap} bootstrap resamples of the deals.")
    print()
    print(ladder_report(result))
    if args.out:
        try:
            import matplotlib  # noqa: F401

            plot = True
        except ImportError:
            plot = False
            sys.stderr.write(f"{PROG}: matplotlib is not installed, no ladder.png (pip install 'euchre-env[eval]')\n")
        paths = write_ladder(result, args.out, plot=plot)
        print(f"\nwrote {', '.join(paths)}")

