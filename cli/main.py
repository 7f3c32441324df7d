"""The ``euchre`` command: duplicate matches, rating ladders, self-play training, and play against the bots.

    euchre eval A B --preset knock --hands 20000 --seed 1 [--games N] [--workers 2] [--out DIR]
                    [--set option=value ...]
    euchre ladder A B C ... --preset knock --hands 2000 --seed 1 --out DIR [--bootstrap 200]
    euchre eval A B ... --backend ray [--address auto|HOST:PORT]    (the deals as Ray tasks; the same results)
    euchre merge RUN_DIR RUN_DIR ... [--out DIR]   (runs of one match over disjoint --first-deal ranges)
    euchre train --config configs/knock.yaml [--set section.key=value ...] [--run-name NAME] [--resume]
    euchre exploit AGENT --minutes 60 [--config configs/knock.yaml] [--deals N] [--seed S] [--resume]
    euchre exploit AGENT --method lbr [--deals N] [--worlds K] [--rollouts R] [--default SPEC]   (no training)
    euchre cfr --preset knock --minutes 20 --out tables.npz [--resume]     (then the agent spec cfr:tables.npz)
    euchre play --preset knock --seat 0 --partner rules --opponents CKPT.pt [--seed N] [--hands N] [--set ...]
    euchre serve --port 8000 [the options of play]    (the same games in a browser, on 127.0.0.1)
    euchre compile    (checks that the compiled code, built at install, is there: docs/compiling.md)

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
import sys

from euchre_env.cli import compiling, evaluate, play, train
from euchre_env.cli.arguments import PROG, OneLineParser, fail

GROUPS = (evaluate, train, play, compiling)
# One line each, in --help and when no command is given.
COMMANDS = {name: text for group in GROUPS for name, text in group.COMMANDS.items()}
RUN = {"eval": evaluate.run_match, "ladder": evaluate.run_match, "merge": evaluate.run_merge,
       "train": train.run_train, "exploit": train.run_exploit, "cfr": train.run_cfr,
       "play": play.run_table, "serve": play.run_table, "compile": compiling.run_compile}


def _overview() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {text}" for name, text in COMMANDS.items()]
    return "commands:\n" + "\n".join(lines) + f"\n\nRun '{PROG} COMMAND --help' for the options of a command."


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, usage=f"{PROG} [-h] COMMAND ...",
                           description="Euchre agents: duplicate matches, rating ladders, self-play training, "
                                       "human play.",
                           epilog=_overview(), formatter_class=argparse.RawDescriptionHelpFormatter)
    # The commands are listed in the epilog, one line each (argparse's own list wraps them). prog: each command's
    # parser is named "euchre eval" (argparse would prefix the whole usage line, "euchre [-h] COMMAND ... eval").
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND", help=argparse.SUPPRESS,
                                prog=PROG)
    for group in GROUPS:
        group.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's parser, whose line names its --help (the root's knows no command)
        see = f"; see {PROG} {args.command} --help" if args.command else ""
        parser.exit(2, f"{PROG}: error: unrecognized arguments: {' '.join(unknown)}{see}\n")
    if args.command is None:  # the overview of every command, as for --help, then the error
        sys.stderr.write(parser.format_help() + "\n")
        fail(f"missing command: {', '.join(COMMANDS)} (see {PROG} COMMAND --help)")
    missing = None if args.command in ("play", "serve", "compile") else evaluate.missing_extra()
    if missing is not None:
        extra = "train" if args.command == "train" else "eval"  # the train extra holds the eval extra's libraries
        fail(f"the {args.command} command needs the {extra} extra (no module named {missing!r}): "
             f"pip install 'euchre-env[{extra}]'")
    try:
        return RUN[args.command](args)
    except KeyboardInterrupt:
        # The one line of a Ctrl-C: pool workers ignore SIGINT (evaluation/pool.py) and are terminated.
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
