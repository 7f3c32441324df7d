"""The ``euchre`` command: duplicate matches, rating ladders, self-play training, and play against the bots.

    euchre eval A B --preset knock --hands 20000 --seed 1 [--games N] [--workers 2] [--out DIR]
                    [--set option=value ...]
    euchre ladder A B C ... --preset knock --hands 2000 --seed 1 --out DIR [--bootstrap 200]
    euchre eval A B ... --backend ray [--address auto|HOST:PORT]    (the deals as Ray tasks; the same results)
    euchre merge RUN_DIR RUN_DIR ... [--out DIR]   (runs of one match over disjoint --first-deal ranges)
    euchre train --config configs/knock.yaml [--set section.key=value ...] [--run-name NAME] [--resume]
    euchre play --preset knock --seat 0 --partner rules --opponents CKPT.pt [--seed N] [--hands N] [--set ...]
    euchre serve --port 8000 [the options of play]    (the same games in a browser, on 127.0.0.1)

An agent spec is whatever ``euchre_env.agents.registry.make_agent`` accepts: ``random``, ``rules``,
``pimc:50``, or a checkpoint path ending in ``.pt``. Without ``--preset`` and ``--set``, eval and
ladder play the rules the checkpoint agents were trained for (knock when there is none). Bad input
(an unknown agent, preset or rules option, a bad value, a bad config or a damaged checkpoint) ends
with a one-line message and exit status 2; an agent that plays an illegal action, or games that never
end, with a one-line message and status 1; Ctrl-C with ``euchre: interrupted`` and status 130 (in
training, with what was saved and the command that continues).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from dataclasses import fields
from typing import Any, NoReturn

from euchre_env.agents.registry import CHECKPOINT_SUFFIX, build_for_rules
from euchre_env.rules import PRESETS, Rules, option_names
from euchre_env.training.arguments import OneLineParser, non_negative_int, positive_int
from euchre_env.training.curves import plot_curves

# The evaluation needs the eval extra (scipy, tqdm): without it, main() says so in one line instead of
# the console script dying on this import with a traceback.
EVAL_EXTRA = ("scipy", "tqdm")
try:
    from euchre_env.evaluation import (
        GameTooLongError,
        IllegalActionError,
        evaluate,
        ladder_report,
        match_table,
        merge_results,
        run_ladder,
        write_ladder,
        write_match,
    )

    _MISSING_EXTRA: str | None = None
except ModuleNotFoundError as exc:
    _MISSING_EXTRA = (exc.name or "").partition(".")[0]
    if _MISSING_EXTRA not in EVAL_EXTRA:
        raise

PROG = "euchre"


# One line each, in --help and when no command is given.
COMMANDS = {
    "eval": "a duplicate match of agent A against agent B",
    "ladder": "a round robin of duplicate matches with Bradley-Terry ratings",
    "merge": "one match from several eval runs over disjoint deal ranges",
    "train": "self-play PPO training from a YAML config",
    "play": "play a game against the bots in the terminal",
    "serve": "play against the bots in a browser (a local web page)",
}


def _overview() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {text}" for name, text in COMMANDS.items()]
    return "commands:\n" + "\n".join(lines) + f"\n\nRun '{PROG} COMMAND --help' for the options of a command."


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, usage=f"{PROG} [-h] COMMAND ...",
                           description="Euchre agents: duplicate matches, rating ladders, self-play training, "
                                       "human play.",
                           epilog=_overview(), formatter_class=argparse.RawDescriptionHelpFormatter)
    # The commands are listed in the epilog, one line each (argparse's own list wraps them).
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND", help=argparse.SUPPRESS)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--preset", default=None,
                       help=f"rules preset: {', '.join(PRESETS)} (default: a checkpoint agent's rules, else knock)")
        p.add_argument("--set", dest="options", action="extend", nargs="+", default=[], metavar="OPTION=VALUE",
                       help=f"override a rules option; options: {', '.join(option_names())}")
        p.add_argument("--hands", type=positive_int, default=1000,
                       help="duplicate deals per match, each played twice with the teams swapped (default 1000)")
        p.add_argument("--games", type=positive_int, default=None,
                       help="play N duplicate pairs of whole games instead of single hands (--hands is then unused)")
        p.add_argument("--seed", type=non_negative_int, default=0, help="master seed (default 0)")
        p.add_argument("--workers", type=positive_int, default=2,
                       help="worker processes (default 2; with --backend ray and no --address, the local Ray CPUs)")
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
    ev.add_argument("--first-deal", type=non_negative_int, default=0, metavar="K",
                    help="play the duplicate pairs K .. K+N-1 (to split a long match into runs; see merge)")

    mer = sub.add_parser("merge", help=COMMANDS["merge"],
                         description="Merge the eval.json of runs of the same match (agents, rules, seed) "
                                     "played over disjoint ranges of deals (eval --first-deal).")
    mer.add_argument("runs", nargs="+", metavar="RUN", help="eval.json files, or the --out folders holding them")
    mer.add_argument("--out", default=None, metavar="DIR", help="write the merged JSON and CSV results")

    lad = sub.add_parser("ladder", help=COMMANDS["ladder"],
                         description="Round robin of duplicate matches; Elo-scale Bradley-Terry ratings "
                                     "anchored at the first agent = 0, with bootstrap intervals over deals.")
    lad.add_argument("agents", nargs="+", metavar="AGENT", help="two or more agent specs")
    common(lad)
    lad.add_argument("--bootstrap", type=non_negative_int, default=200,
                     help="bootstrap resamples of the deals for the rating intervals (default 200)")

    tr = sub.add_parser("train", help=COMMANDS["train"],
                        description="Self-play PPO with a league; TensorBoard logs and checkpoints in "
                                    "RUNS_DIR/RUN_NAME, then a duplicate evaluation of the best checkpoint.")
    tr.add_argument("--config", default=None, metavar="PATH", help="YAML config (default: the built-in defaults)")
    tr.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                    help="override a config value, e.g. ppo.lr=3e-4 run.total_decisions=100000")
    tr.add_argument("--run-name", default=None, metavar="NAME", help="run folder name (default PRESET-seedSEED)")
    tr.add_argument("--runs-dir", default="runs", metavar="DIR", help="where run folders go (default runs)")
    tr.add_argument("--resume", action="store_true", help="continue the run from its latest.pt")
    tr.add_argument("--final-eval", action=argparse.BooleanOptionalAction, default=True,
                    help="evaluate the best checkpoint against final_eval.opponents at the end (default on)")
    tr.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="a progress bar on stderr (default on)")
    def table_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--preset", default="knock", help=f"rules preset: {', '.join(PRESETS)} (default knock)")
        p.add_argument("--set", dest="options", action="extend", nargs="+", default=[], metavar="OPTION=VALUE",
                       help=f"override a rules option; options: {', '.join(option_names())}")
        p.add_argument("--seat", type=int, choices=range(4), default=0, help="your seat, 0..3 (default 0)")
        p.add_argument("--partner", default="rules", metavar="SPEC", help="your partner's agent spec (default rules)")
        p.add_argument("--opponents", default="rules", metavar="SPEC",
                       help="the opponents' agent spec (default rules), e.g. docs/checkpoints/knock.pt")
        p.add_argument("--seed", type=non_negative_int, default=None, help="seed of the deals (default: random)")
        p.add_argument("--hands", type=positive_int, default=None, help="play N hands instead of a whole game")

    pl = sub.add_parser("play", help=COMMANDS["play"],
                        description="A whole game against three agents in the terminal; answer each decision with "
                                    "its number or its text, or hint, history, help, quit.")
    table_options(pl)
    pl.add_argument("--hint", default="rules", metavar="SPEC",
                    help="the agent whose advice 'hint' shows (default rules; pimc:50 gives its values)")

    sv = sub.add_parser("serve", help=COMMANDS["serve"],
                        description="A local web page to play against three agents; each browser tab plays its "
                                    "own games. Needs the play extra (pip install 'euchre-env[play]').")
    table_options(sv)
    sv.add_argument("--port", type=positive_int, default=8000, help="port (default 8000)")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    return parser


def _fail(message: str, status: int = 2) -> NoReturn:
    sys.stderr.write(f"{PROG}: error: {' '.join(str(message).split())}\n")
    raise SystemExit(status)


def parse_options(items: list[str]) -> dict[str, Any]:
    """``["game_target=5", "joker=true"]`` -> typed rules options (typed by the Rules fields)."""
    defaults = {f.name: f.default for f in fields(Rules)}
    allowed = option_names()
    options: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name:
            raise ValueError(f"--set expects OPTION=VALUE, got {item!r}")
        if name not in allowed:
            raise ValueError(f"unknown rules option {name!r}; allowed: {', '.join(allowed)}")
        kind = type(defaults[name])
        if kind is bool:
            low = text.lower()
            if low in ("true", "yes", "on", "1"):
                options[name] = True
            elif low in ("false", "no", "off", "0"):
                options[name] = False
            else:
                raise ValueError(f"rules option {name!r} must be true or false, got {text!r}")
        elif kind is int:
            try:
                options[name] = int(text)
            except ValueError:
                raise ValueError(f"rules option {name!r} must be an integer, got {text!r}") from None
        else:
            options[name] = text
    return options


def make_rules(preset: str, items: list[str]) -> Rules:
    return Rules.preset(preset, **parse_options(items))


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
    trained = {spec: check_agent(spec).rules for spec in dict.fromkeys(specs) if spec.endswith(CHECKPOINT_SUFFIX)}
    if not trained:
        return make_rules("knock", []), "preset knock"
    from euchre_env.agents.checkpoint import rules_key  # a checkpoint agent needs torch, this module does not

    first = next(iter(trained.values()))
    if any(rules_key(r) != rules_key(first) for r in trained.values()):
        named = ", ".join(f"{spec} ({_rules_label(r)})" for spec, r in trained.items())
        raise ValueError(f"the checkpoints were trained for different rules: {named}; one match plays one "
                         "rule set: give agents trained for the same rules")
    return first, f"rules from {', '.join(trained)}: {_rules_label(first)}"


def _rules_label(rules: Rules) -> str:
    """``preset bid``, with the options where the rules differ from their preset."""
    if rules.preset_name not in PRESETS:
        return f"custom rules ({rules.to_dict()})"
    base = Rules.preset(rules.preset_name)
    changed = [f"{name}={getattr(rules, name)}" for name in option_names()
               if getattr(rules, name) != getattr(base, name)]
    return f"preset {rules.preset_name}" + (f" ({', '.join(changed)})" if changed else "")


def _describe(rules_text: str, seed: int, n: int, episode: str) -> str:
    unit = ("deals, each played twice with the teams swapped" if episode == "hand"
            else "pairs of games from the same seeded deals, the teams swapped")
    return (f"Duplicate evaluation, {rules_text}, seed {seed}: {n} {unit}. "
            "Margin = A's points minus B's per hand, 95% t-interval over the duplicate pairs.")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # the overview of every command, as for --help, then the error
        sys.stderr.write(parser.format_help() + "\n")
        _fail(f"missing command: {', '.join(COMMANDS)} (see {PROG} COMMAND --help)")
    if args.command in ("play", "serve"):
        return _run_table(args)
    if _MISSING_EXTRA is not None:
        extra = "train" if args.command == "train" else "eval"  # the train extra holds the eval extra's libraries
        _fail(f"the {args.command} command needs the {extra} extra (no module named {_MISSING_EXTRA!r}): "
              f"pip install 'euchre-env[{extra}]'")
    run = {"eval": _run_match, "ladder": _run_match, "merge": _run_merge, "train": _run_train}[args.command]
    try:
        return run(args)
    except KeyboardInterrupt:
        # The one line of a Ctrl-C: pool workers ignore SIGINT (evaluation/pool.py) and are terminated.
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130


def _run_table(args: argparse.Namespace) -> int:
    """play and serve: a person against three agents (agents/human.py, agents/web.py)."""
    try:
        rules = make_rules(args.preset, args.options)
    except ValueError as exc:
        _fail(str(exc))
    if args.command == "play":
        from euchre_env.agents.human import play_in_terminal

        try:
            play_in_terminal(rules, args.seat, args.partner, args.opponents, seed=args.seed, hands=args.hands,
                             hint=args.hint)
        except ValueError as exc:  # a bad agent spec, before anything is dealt
            _fail(str(exc))
        return 0
    try:
        from euchre_env.agents.web import create_app
    except ModuleNotFoundError as exc:
        _fail(f"the serve command needs the play extra (no module named {exc.name!r}): pip install 'euchre-env[play]'")
    try:
        app = create_app(rules, args.seat, args.partner, args.opponents,
                         seed=args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little"),
                         hands=args.hands)
    except ValueError as exc:
        _fail(str(exc))
    print(f"euchre: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops the server)")
    try:
        app.run(host=args.host, port=args.port, threaded=True)
    except OSError as exc:  # the port is taken, or the address is not this machine's
        _fail(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}")
    return 0


def _run_match(args: argparse.Namespace) -> int:
    """eval and ladder: check the rules and agents, then play."""
    try:
        specs = [args.agent_a, args.agent_b] if args.command == "eval" else list(args.agents)
        if args.command == "ladder" and len(specs) < 2:
            raise ValueError(f"a ladder needs at least two agents, got {len(specs)}")
        rules, rules_text = match_rules(args.preset, args.options, specs)
        for spec in dict.fromkeys(specs):
            check_agent(spec, rules)
    except ValueError as exc:
        _fail(str(exc))
    episode, n = ("game", args.games) if args.games else ("hand", args.hands)
    if args.address is not None and args.backend != "ray":
        _fail("--address is for --backend ray (a Ray cluster)")
    if args.backend == "ray":
        _connect_ray(args.address, args.workers)
    try:
        if args.command == "eval":
            _run_eval(args, rules, rules_text, episode, n)
        else:
            _run_ladder(args, specs, rules, rules_text, episode, n)
    except (IllegalActionError, GameTooLongError) as exc:
        _fail(str(exc), status=1)
    return 0


def _connect_ray(address: str | None, workers: int) -> None:
    """Start or join Ray before anything is played, so that a missing extra or an unreachable address is one
    line (exit 2)."""
    try:
        from euchre_env.evaluation.ray_backend import connect

        connect(address, workers)
    except ModuleNotFoundError as exc:
        _fail(f"--backend ray needs Ray (no module named {exc.name!r}): pip install 'euchre-env[ray]'")
    except ConnectionError as exc:
        _fail(str(exc))


def _run_eval(args: argparse.Namespace, rules: Rules, rules_text: str, episode: str, n: int) -> None:
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


def _run_merge(args: argparse.Namespace) -> int:
    runs = []
    for path in args.runs:
        file = os.path.join(path, "eval.json") if os.path.isdir(path) else path
        try:
            with open(file) as f:
                runs.append(json.load(f))
        except (OSError, ValueError) as exc:
            _fail(f"cannot read eval results {file!r}: {exc}")
    try:
        result = merge_results(runs)
    except (ValueError, KeyError, TypeError) as exc:
        _fail(f"cannot merge: {exc}")
    print(f"Merged {len(runs)} runs: {result.deals} duplicate pairs.\n")
    print(match_table([result]))
    if args.out:
        print(f"\nwrote {', '.join(write_match(result, args.out))}")
    return 0


def _run_train(args: argparse.Namespace) -> int:
    # Imported here, not at the top: the trainer needs the train extra (torch, tensorboard, pyyaml), and
    # eval, ladder and merge must work without it.
    try:
        from euchre_env.training.config import load_config
        from euchre_env.training.train import Trainer, TrainingInterrupted, run_dir_for
    except ModuleNotFoundError as exc:
        _fail(f"training needs the train extra ({exc}): pip install 'euchre-env[train]'")
    try:
        config = load_config(args.config, args.overrides)
        run_dir = run_dir_for(config, args.run_name, args.runs_dir)
        if args.resume and not os.path.isfile(os.path.join(run_dir, "checkpoints", "latest.pt")):
            raise ValueError(f"no run to resume at {run_dir!r} (no checkpoints/latest.pt)")
        if args.resume and args.config is None:  # the run's own config, with the overrides given now
            config = load_config(os.path.join(run_dir, "config.yaml"), args.overrides, saved_run=True)
        trainer = Trainer(config, run_dir, resume=args.resume)
    except (ValueError, OSError) as exc:  # a bad config, or a damaged checkpoint (CheckpointError is a ValueError)
        _fail(str(exc))
    if config.run.backend == "ray":  # join or start Ray now: a bad address is one line before any training
        try:
            trainer.start_workers()
        except ModuleNotFoundError as exc:
            _fail(f"run.backend ray needs Ray (no module named {exc.name!r}): pip install 'euchre-env[ray]'")
        except (ConnectionError, RuntimeError) as exc:
            _fail(str(exc))
    try:
        result = trainer.train(progress=args.progress)
    except TrainingInterrupted as stop:
        sys.stderr.write(f"{PROG}: {_interrupted_line(args, run_dir, stop)}\n")
        return 130
    print(f"Trained {result.updates} updates, {result.decisions:,} decisions in {result.seconds / 60:.1f} min; "
          f"checkpoints in {os.path.join(run_dir, 'checkpoints')}")
    print(f"TensorBoard: tensorboard --logdir {args.runs_dir}")
    try:
        print(f"Training curve: {plot_curves(run_dir)}")
    except ImportError:
        sys.stderr.write(f"{PROG}: matplotlib is not installed, no curves.png (pip install 'euchre-env[eval]')\n")
    if args.final_eval and config.final_eval.opponents:
        fe = config.final_eval
        print(f"\nDuplicate evaluation of {result.best_path}, preset {config.rules.preset}, seed {fe.seed}: "
              "margin = the checkpoint's points minus the opponent's per hand, 95% t-interval over duplicate pairs.\n")
        try:
            results = trainer.evaluate(fe.opponents, fe.seed, fe.workers, path=result.best_path,
                                       progress=args.progress)
        except KeyboardInterrupt:
            again = _train_command(args, run_dir, resume=True)
            sys.stderr.write(f"{PROG}: interrupted during the final evaluation; training is complete "
                             f"({result.updates} updates); evaluate again with: {again}\n")
            return 130
        print(match_table(results))
        out = os.path.join(run_dir, "final_eval")
        for r in results:
            write_match(r, os.path.join(out, r.agent_b.replace(":", "_")))
        print(f"\nwrote {out}")
        if trainer.selection:
            print(_selection_line(trainer.selection, results, fe.seed))
            _record_fresh_margins(trainer.selection, results, fe.seed, run_dir)
    return 0


def _selection_line(selection: dict[str, Any], results: list[Any], seed: int) -> str:
    """The selected checkpoint's margin on the selection deals beside its margin on the final, fresh ones."""
    line = (f"best.pt is update {selection['chosen_update']}, selected at {selection['chosen_margin']:+.3f} vs "
            f"{selection['opponent']} over {selection['deals']:,} deals of seed {selection['seed']}")
    fresh = [r for r in results if r.agent_b == selection["opponent"]]
    if fresh:
        r = fresh[0]
        line += (f"; on {r.deals:,} fresh deals of seed {seed}: {r.margin:+.3f} "
                 f"[{r.margin_low:+.3f}, {r.margin_high:+.3f}]")
    return line


def _record_fresh_margins(selection: dict[str, Any], results: list[Any], seed: int, run_dir: str) -> None:
    """selection.json gains the final evaluation's margins, so that both figures sit in one file."""
    selection["fresh"] = {"seed": seed, "margins": {r.agent_b: {"deals": r.deals, "margin": r.margin,
                                                                "low": r.margin_low, "high": r.margin_high}
                                                    for r in results}}
    with open(os.path.join(run_dir, "checkpoints", "selection.json"), "w") as f:
        json.dump(selection, f, indent=2)


def _train_command(args: argparse.Namespace, run_dir: str, resume: bool) -> str:
    """The command that continues this run (``resume``: from its latest.pt, with the run's own config)
    or starts it again as it was started, and ``make train`` where that is the same command."""
    name = os.path.basename(run_dir)
    words = [PROG, "train"]
    if not resume:  # the run's config.yaml holds the config and the overrides: a resume needs neither
        words += [*(["--config", args.config] if args.config else []), *(["--set", *args.overrides] if args.overrides
                                                                         else [])]
    words += ["--run-name", name]
    words += ["--runs-dir", args.runs_dir] if args.runs_dir != "runs" else []
    words += [] if args.progress else ["--no-progress"]
    words += [] if args.final_eval else ["--no-final-eval"]
    words += ["--resume"] if resume else []
    command = " ".join(shlex.quote(w) for w in words)
    # make train is this command (with --resume once latest.pt exists) for configs/knock.yaml, run RUN (knock)
    made = (args.config and os.path.normpath(args.config) == os.path.normpath("configs/knock.yaml")
            and not args.overrides and args.runs_dir == "runs" and args.progress and args.final_eval)
    if made:
        command += f" (or run make train{'' if name == 'knock' else ' RUN=' + shlex.quote(name)} again)"
    return command


def _interrupted_line(args: argparse.Namespace, run_dir: str, stop: Any) -> str:
    """What a Ctrl-C of training left, and the command that goes on from there."""
    if stop.saved_update is None:
        return ("interrupted before any update was saved; nothing to resume yet; start again with: "
                + _train_command(args, run_dir, resume=False))
    if stop.saved_update == stop.update:
        where = f"interrupted at update {stop.update}; saved {stop.latest_path}"
    else:
        where = (f"quit at once at update {stop.update}, without saving; {stop.latest_path} holds update "
                 f"{stop.saved_update}")
    return f"{where}; continue with: {_train_command(args, run_dir, resume=True)}"


def _run_ladder(args: argparse.Namespace, specs: list[str], rules: Rules, rules_text: str, episode: str,
                n: int) -> None:
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


if __name__ == "__main__":
    sys.exit(main())
