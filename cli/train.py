"""``euchre train``: self-play PPO from a YAML config, then the duplicate evaluation of the best checkpoint."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any

from euchre_env.agents.registry import MAX_WORLDS
from euchre_env.cli.arguments import (
    PROG,
    agent_spec,
    check_output,
    config_file,
    deal_count,
    fail,
    int_in,
    make_rules,
    minutes,
    seed,
    workers,
)
from euchre_env.cli.evaluate import check_agent, rules_label
from euchre_env.training.curves import plot_curves

COMMANDS = {"train": "self-play PPO training from a YAML config",
            "exploit": "train a fresh best response to a frozen agent: how exploitable the agent is",
            "cfr": "train the CFR bidding agent's tables (cfr:PATH), resumable"}
EXPLOIT_DEALS = 10_000  # the final match of a probe: as many deals as the project's other headline margins
EXPLOIT_SEED = 4242  # no config of this project trains, evaluates or selects on it
# cfr: a billion deals is years of CPU at the measured rate; a batch's calling trees are all held at once.
MAX_CFR_DEALS = 10**9
MAX_CFR_BATCH = 4096
LBR_DEALS = 500  # the local best response searches at every decision: seconds a deal against cheap agents
LBR_ONLY = ("worlds", "rollouts", "workers", "rollout_agent", "confidence", "default")
PPO_ONLY = ("minutes", "config", "overrides", "resume")


def add_parsers(sub: Any) -> None:
    """The train command's arguments."""
    tr = sub.add_parser("train", help=COMMANDS["train"],
                        description="Self-play PPO with a league; TensorBoard logs and checkpoints in "
                                    "RUNS_DIR/RUN_NAME, then a duplicate evaluation of the best checkpoint.")
    tr.add_argument("--config", type=config_file, default=None, metavar="PATH",
                    help="YAML config, or a shipped one by name: knock, classic, multiplayer, bid, ... (default: the "
                         "built-in defaults)")
    tr.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                    help="override a config value, e.g. ppo.lr=3e-4 run.total_decisions=100000")
    tr.add_argument("--run-name", default=None, metavar="NAME", help="run folder name (default PRESET-seedSEED)")
    tr.add_argument("--runs-dir", default="runs", metavar="DIR", help="where run folders go (default runs)")
    tr.add_argument("--resume", action="store_true", help="continue the run from its latest.pt")
    tr.add_argument("--final-eval", action=argparse.BooleanOptionalAction, default=True,
                    help="evaluate the best checkpoint against final_eval.opponents at the end (default on)")
    tr.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="a progress bar on stderr (default on)")

    ex = sub.add_parser("exploit", help=COMMANDS["exploit"],
                        description="The exploitability probe (docs/exploit.md): PPO trains a fresh network for "
                                    "--minutes against AGENT alone, the agent holding one team (it partners "
                                    "itself), the network the other; then the selected exploiter plays --deals "
                                    "fresh duplicate deals of --seed against the agent. The run is a training run "
                                    "(RUNS_DIR/RUN_NAME, TensorBoard, curves.png) with exploit.json beside it. "
                                    "--method lbr: no training, a local best response (evaluation/lbr.py) plays "
                                    "--deals duplicate deals against AGENT; eval.json in RUNS_DIR/RUN_NAME.")
    ex.add_argument("agent", type=agent_spec, metavar="AGENT", help="the frozen agent: rules, pimc:50, a .pt, ...")
    ex.add_argument("--method", choices=("ppo", "lbr"), default="ppo",
                    help="ppo: train a best response (default); lbr: the local best response probe, no training "
                         "(docs/exploit.md#local-best-response)")
    ex.add_argument("--minutes", type=minutes, default=None,
                    help="training time, the behaviour cloning and periodic evaluations included (default 60)")
    ex.add_argument("--config", type=config_file, default=None, metavar="PATH",
                    help="YAML config of the exploiter's recipe, or a shipped one by name (default: the built-in "
                         "defaults; a checkpoint agent's rules replace the default rules)")
    ex.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                    help="override a config value (not the league, the evaluation opponents or the budget)")
    ex.add_argument("--deals", type=deal_count, default=None,
                    help=f"fresh duplicate deals of the final match (default {EXPLOIT_DEALS:,}; lbr: {LBR_DEALS})")
    ex.add_argument("--seed", type=seed, default=EXPLOIT_SEED,
                    help=f"seed of the final match's deals, 0 to 2**32-1 (default {EXPLOIT_SEED}, used by no config)")
    ex.add_argument("--run-name", default=None, metavar="NAME",
                    help="run folder name (default exploit-AGENT; lbr: lbr-AGENT)")
    for flag, text in (("--worlds", "lbr: worlds drawn for the posterior at each decision (default 32)"),
                       ("--rollouts", "lbr: posterior worlds each legal action is played out in (default 32)")):
        ex.add_argument(flag, type=int_in(1, MAX_WORLDS, "worlds"), default=None, help=f"{text}, 1 to {MAX_WORLDS:,}")
    ex.add_argument("--workers", type=workers, default=None, help="lbr: worker processes, 1 to 256 (default 2)")
    ex.add_argument("--confidence", type=_non_negative_float, default=None, metavar="C",
                    help="lbr: leave the default policy's choice only for an action better by C standard errors "
                         "(default 2; 0: plain argmax)")
    ex.add_argument("--default", default=None, metavar="SPEC",
                    help="lbr: the probe's default policy, played where no deviation pays and in its seats of the "
                         "rollouts (default: AGENT itself)")
    ex.add_argument("--rollout-agent", default=None, metavar="SPEC",
                    help="lbr: a cheaper stand-in for AGENT in the rollouts only (e.g. pimc:10 for pimc:50); the "
                         "posterior always asks AGENT")
    ex.add_argument("--runs-dir", default="runs", metavar="DIR", help="where run folders go (default runs)")
    ex.add_argument("--resume", action="store_true", help="continue the probe from its latest.pt")
    ex.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="a progress bar on stderr (default on)")
    ex.set_defaults(final_eval=True)

    cf = sub.add_parser("cfr", help=COMMANDS["cfr"],
                        description="Chance-sampled CFR over the calling decisions (euchre_env.training.cfr); the "
                                    "tables play as the agent spec cfr:OUT (card play by PIMC).")
    cf.add_argument("--out", required=True, metavar="PATH", help="the tables file (.npz) to write")
    cf.add_argument("--preset", default="knock",
                    help="rules preset: knock, classic, multiplayer or bid (default knock)")
    cf.add_argument("--set", dest="options", action="extend", nargs="+", default=[], metavar="OPTION=VALUE",
                    help="override a rules option")
    cf.add_argument("--deals", type=int_in(1, MAX_CFR_DEALS, "deals"), default=None,
                    help="train until the tables hold this many deals (at most 10**9)")
    cf.add_argument("--minutes", type=minutes, default=None, help="... or for this long (both: the first)")
    cf.add_argument("--seed", type=seed, default=0, help="master seed of the deals, 0 to 2**32-1 (default 0)")
    cf.add_argument("--batch", type=int_in(1, MAX_CFR_BATCH, "deals a batch"), default=64,
                    help=f"deals per batch, 1 to {MAX_CFR_BATCH:,} (default 64)")
    cf.add_argument("--resume", action="store_true", help="continue the tables in --out (their rules and seed)")
    cf.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="a progress bar on stderr (default on)")


def _non_negative_float(text: str) -> float:
    """An argparse type: a finite number of at least 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of at least 0, got {text!r}")
    return value


def run_train(args: argparse.Namespace) -> int:
    load_config, run_dir_for = _trainer_modules()
    try:
        config = load_config(args.config, args.overrides)
        run_dir = run_dir_for(config, args.run_name, args.runs_dir)
        if args.resume:
            _check_resumable(run_dir)
        if args.resume and args.config is None:  # the run's own config, with the overrides given now
            config = load_config(os.path.join(run_dir, "config.yaml"), args.overrides)
    except (ValueError, OSError) as exc:  # a bad config
        fail(str(exc))
    _say_who_cheats(config)
    status, _, _ = _train_and_evaluate(args, config, run_dir, lambda resume: _train_command(args, run_dir, resume))
    return status


def _say_who_cheats(config: Any) -> None:
    """One line on stderr where the run learns from an agent that sees every hand (registry.SEES_HIDDEN_CARDS): as
    a league opponent or the cloning teacher (evaluating against one is a ceiling, not learning, and says nothing)."""
    from euchre_env.agents.registry import sees_hidden_cards

    roles = [f"league.mix {spec}" for spec in config.league.mix
             if spec not in ("self", "past") and sees_hidden_cards(spec)]
    if config.pretrain.teacher and sees_hidden_cards(config.pretrain.teacher):
        roles.append(f"pretrain.teacher {config.pretrain.teacher}")
    if roles:
        sys.stderr.write(f"{PROG}: note: {' and '.join(roles)} sees every hand (a ceiling, not a player): the network "
                         "plays against or imitates choices made from cards its seat cannot see\n")


def run_exploit(args: argparse.Namespace) -> int:
    """euchre exploit: the trainer against the agent alone (training/exploit.py), then its summary; with --method
    lbr, the local best response's match instead (:func:`run_lbr`)."""
    given = [name for name in (PPO_ONLY if args.method == "lbr" else LBR_ONLY)
             if getattr(args, name) not in (None, False, [])]
    if given:
        flag = "--" + ("set" if given[0] == "overrides" else given[0].replace("_", "-"))
        fail(f"{flag} is not an option of --method {args.method}")
    if args.method == "lbr":
        return run_lbr(args)
    args.minutes = 60.0 if args.minutes is None else args.minutes
    args.deals = EXPLOIT_DEALS if args.deals is None else args.deals
    load_config, _ = _trainer_modules()
    from euchre_env.training.exploit import exploit_config, exploit_summary, owned_override, probed_agent, summary_line

    try:
        owned = owned_override(args.overrides)
        if owned is not None:
            raise ValueError(f"--set {owned!r}: the probe sets that key itself (--minutes, --deals and --seed "
                             "change its budget and final evaluation)")
        run_dir = os.path.join(args.runs_dir, args.run_name or "exploit-" + _folder_name(args.agent))
        if args.resume:
            _check_resumable(run_dir)
            config = load_config(os.path.join(run_dir, "config.yaml"), args.overrides)
            if probed_agent(config) != args.agent:
                raise ValueError(f"{run_dir!r} probes {probed_agent(config)!r}, not {args.agent!r}")
        else:
            config = load_config(args.config, args.overrides)
            agent_rules = getattr(check_agent(args.agent), "rules", None)  # a checkpoint plays only its own rules
            rules_given = args.config is not None or any(o.startswith("rules") for o in args.overrides)
            if agent_rules is not None and rules_given and agent_rules != config.make_rules():
                raise ValueError(f"{args.agent} was trained for {rules_label(agent_rules)}, the config asks for "
                                 f"{rules_label(config.make_rules())}: give a config of the agent's rules, or none")
            config = exploit_config(config, args.agent, args.minutes, args.deals, args.seed, agent_rules)
    except (ValueError, OSError) as exc:  # a bad config, agent, budget or seed, or a damaged checkpoint
        fail(str(exc))

    def again(resume: bool) -> str:
        words = [PROG, "exploit", args.agent, "--run-name", os.path.basename(run_dir)]
        words += ["--runs-dir", args.runs_dir] if args.runs_dir != "runs" else []
        if resume:
            words.append("--resume")
        else:
            words += [f"--minutes={args.minutes:g}", f"--deals={args.deals}", f"--seed={args.seed}"]
            words += (["--config", args.config] if args.config else []) + (["--set", *args.overrides]
                                                                           if args.overrides else [])
        return " ".join(shlex.quote(w) for w in words)

    status, result, finals = _train_and_evaluate(args, config, run_dir, again)
    if status or not finals:
        return status
    summary = exploit_summary(run_dir, args.agent, result, finals[0], config.final_eval.seed)
    path = os.path.join(run_dir, "exploit.json")
    with open(path, "w") as f:
        json.dump(summary, f, indent=2)
    print(f"\n{summary_line(summary)}\nwrote {path}")
    return 0


def run_lbr(args: argparse.Namespace) -> int:
    """euchre exploit --method lbr: the local best response against the agent (evaluation/lbr.py), over --deals
    duplicate deals of --seed; prints the match and writes its eval.json to the run folder."""
    from euchre_env.cli.evaluate import match_rules, missing_extra

    missing = missing_extra()
    if missing:  # the match's statistics need the eval extra
        fail(f"--method lbr needs the eval extra (no module named {missing!r}): pip install 'euchre-env[eval]'")
    from euchre_env.evaluation import GameTooLongError, IllegalActionError, match_table, write_match
    from euchre_env.evaluation.lbr import DEFAULT_CONFIDENCE, DEFAULT_ROLLOUTS, DEFAULT_WORLDS, exploitability

    deals = LBR_DEALS if args.deals is None else args.deals
    try:
        rules, rules_text = match_rules(None, [], [args.agent])
        check_agent(args.agent, rules)
        for extra in (args.rollout_agent, args.default):
            if extra is not None:
                check_agent(extra, rules)
        run_dir = os.path.join(args.runs_dir, args.run_name or "lbr-" + _folder_name(args.agent))
        check_output(run_dir, folder=True)  # before the deals, which take minutes each
        result = exploitability(args.agent, rules, deals, args.seed, args.worlds or DEFAULT_WORLDS,
                                args.rollouts or DEFAULT_ROLLOUTS, rollout_frozen=args.rollout_agent,
                                default=args.default,
                                confidence=DEFAULT_CONFIDENCE if args.confidence is None else args.confidence,
                                workers=args.workers or 2, progress=args.progress)
    except ValueError as exc:
        fail(str(exc))
    except (IllegalActionError, GameTooLongError) as exc:
        fail(str(exc), status=1)
    print(f"Local best response to {args.agent}, {rules_text}, seed {args.seed}: {deals} duplicate deals. Margin = "
          "the probe's points minus the agent's per hand, 95% t-interval over the duplicate pairs.\n")
    print(match_table([result]))
    paths = write_match(result, run_dir)
    interval = f"{result.margin:+.3f} [{result.margin_low:+.3f}, {result.margin_high:+.3f}]"
    print(f"\nThe local best response wins {interval} points a hand from {args.agent} over {deals:,} duplicate "
          f"deals (seed {args.seed}), "
          f"{result.seconds / deals:.2f} s a deal\nwrote {', '.join(paths)}")
    return 0


def run_cfr(args: argparse.Namespace) -> int:
    """euchre cfr: new or resumed CFR tables, trained for --deals / --minutes."""
    from euchre_env.agents.search.cfr_bidding import Tables
    from euchre_env.training.cfr import train

    try:
        if args.deals is None and args.minutes is None:
            raise ValueError("give --deals N or --minutes M (or both: whichever comes first)")
        if args.resume:
            tables = Tables.load(args.out)
            if args.deals is not None and args.deals <= tables.deals:
                raise ValueError(f"{args.out!r} already holds {tables.deals:,} deals; --deals must be more")
        else:
            if os.path.exists(args.out):
                raise ValueError(f"{args.out!r} exists: --resume to continue it, or choose another --out")
            check_output(args.out, folder=False)
            tables = Tables.empty(make_rules(args.preset, args.options), args.seed, args.batch)
    except ValueError as exc:
        fail(str(exc))
    try:
        train(tables, args.out, deals=args.deals, minutes=args.minutes, progress=args.progress)
    except KeyboardInterrupt:
        if not os.path.exists(args.out):  # before the first save: say what is true
            sys.stderr.write(f"{PROG}: interrupted before the first save; nothing was written to {args.out}\n")
            return 130
        sys.stderr.write(f"{PROG}: interrupted; {args.out} holds the tables of the last save; continue with: "
                         f"{PROG} cfr --out {shlex.quote(args.out)} --resume --deals N\n")
        return 130
    print(f"CFR tables: {tables.deals:,} deals, {tables.reached():,} of {len(tables.regret):,} information sets "
          f"reached; wrote {args.out} (play them as cfr:{args.out})")
    return 0


def _trainer_modules() -> tuple[Any, Any]:
    """``(load_config, run_dir_for)`` of the trainer, or the one line that says the train extra is missing.
    Imported here, not at the top: the trainer needs the train extra (torch, tensorboard, pyyaml), and eval,
    ladder and merge must work without it. Neither imports torch: a bad config is one line before it loads."""
    try:
        from euchre_env.training.config import load_config, run_dir_for
    except ModuleNotFoundError as exc:
        fail(f"training needs the train extra ({exc}): pip install 'euchre-env[train]'")
    return load_config, run_dir_for


def _check_resumable(run_dir: str) -> None:
    if not os.path.isfile(os.path.join(run_dir, "checkpoints", "latest.pt")):
        raise ValueError(f"no run to resume at {run_dir!r} (no checkpoints/latest.pt)")


def _folder_name(spec: str) -> str:
    """An agent spec as a file name: ``pimc:50`` -> ``pimc_50``, ``checkpoints/knock.pt`` -> ``knock``."""
    if spec.endswith(".pt"):
        spec = os.path.basename(spec).removesuffix(".pt")
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in spec)


def _train_and_evaluate(args: argparse.Namespace, config: Any, run_dir: str,
                        again: Callable[[bool], str]) -> tuple[int, Any, list[Any] | None]:
    """Train ``config`` into ``run_dir`` (resuming if ``args.resume``), then evaluate its best checkpoint
    against ``final_eval.opponents`` unless ``args.final_eval`` is off; ``(exit status, the training result,
    the final matches)``. ``again(resume)``: the command that goes on after an interruption."""
    from euchre_env.evaluation import match_table, write_match
    from euchre_env.training.evaluations import matches
    from euchre_env.training.train import Trainer, TrainingInterrupted

    try:
        trainer = Trainer(config, run_dir, resume=args.resume)
    except (ValueError, OSError) as exc:  # a damaged checkpoint (CheckpointError is a ValueError)
        fail(str(exc))
    if config.run.backend == "ray":  # join or start Ray now: a bad address is one line before any training
        try:
            trainer.start_workers()
        except ModuleNotFoundError as exc:
            fail(f"run.backend ray needs Ray (no module named {exc.name!r}): pip install 'euchre-env[ray]'")
        except (ConnectionError, RuntimeError) as exc:
            fail(str(exc))
    try:
        result = trainer.train(progress=args.progress)
    except TrainingInterrupted as stop:
        sys.stderr.write(f"{PROG}: {_interrupted_line(stop, again)}\n")
        return 130, None, None
    print(f"Trained {result.updates} updates, {result.decisions:,} decisions in {result.seconds / 60:.1f} min; "
          f"checkpoints in {os.path.join(run_dir, 'checkpoints')}")
    print(f"TensorBoard: tensorboard --logdir {args.runs_dir}")
    try:
        print(f"Training curve: {plot_curves(run_dir)}")
    except ImportError:
        sys.stderr.write(f"{PROG}: matplotlib is not installed, no curves.png (pip install 'euchre-env[eval]')\n")
    if not (args.final_eval and config.final_eval.opponents):
        return 0, result, None
    fe = config.final_eval
    print(f"\nDuplicate evaluation of {result.best_path}, preset {config.rules.preset}, seed {fe.seed}: "
          "margin = the checkpoint's points minus the opponent's per hand, 95% t-interval over duplicate pairs.\n")
    try:
        results = matches(trainer, fe.opponents, fe.seed, fe.workers, path=result.best_path, progress=args.progress)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted during the final evaluation; training is complete "
                         f"({result.updates} updates); evaluate again with: {again(True)}\n")
        return 130, result, None
    print(match_table(results))
    out = os.path.join(run_dir, "final_eval")
    for r in results:
        write_match(r, os.path.join(out, _folder_name(r.agent_b)))
    print(f"\nwrote {out}")
    if trainer.selection:
        print(_selection_line(trainer.selection, results, fe.seed))
        _record_fresh_margins(trainer.selection, results, fe.seed, run_dir)
    return 0, result, results


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
    from euchre_env.training.config import RESUMABLE_CHANGES

    name = os.path.basename(run_dir)
    words = [PROG, "train"]
    if not resume:
        words += [*(["--config", args.config] if args.config else []), *(["--set", *args.overrides] if args.overrides
                                                                         else [])]
    else:  # the run's config.yaml holds its config and first overrides, not what a resume changed (the budget)
        keys = [o.partition("=")[0].strip() for o in args.overrides]
        kept = [o for o, key in zip(args.overrides, keys)
                if any(key == k or key.startswith(k + ".") for k in RESUMABLE_CHANGES)]
        words += ["--set", *kept] if kept else []
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


def _interrupted_line(stop: Any, again: Callable[[bool], str]) -> str:
    """What a Ctrl-C of training left, and the command that goes on from there."""
    if stop.saved_update is None:
        return "interrupted before any update was saved; nothing to resume yet; start again with: " + again(False)
    if stop.saved_update == stop.update:
        where = f"interrupted at update {stop.update}; saved {stop.latest_path}"
    else:
        where = (f"quit at once at update {stop.update}, without saving; {stop.latest_path} holds update "
                 f"{stop.saved_update}")
    return f"{where}; continue with: {again(True)}"
