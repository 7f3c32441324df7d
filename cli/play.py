"""``euchre play`` and ``euchre serve``: a person against three agents, in the terminal or in a browser."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from euchre_env.cli.arguments import fail, int_in, make_rules, seed
from euchre_env.game.rules import PRESETS, option_names

MAX_HANDS = 10_000  # --hands: a person's session, far past any evening
COMMANDS = {
    "play": "play a game against the bots in the terminal",
    "serve": "play against the bots in a browser (a local web page)",
}


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 1..65535 (checked before the banner names it)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 1..65535, got {text!r}")
    return value


def add_parsers(sub: Any) -> None:
    """The play and serve commands' arguments."""
    def table_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--preset", default="knock", help=f"rules preset: {', '.join(PRESETS)} (default knock)")
        p.add_argument("--set", dest="options", action="extend", nargs="+", default=[], metavar="OPTION=VALUE",
                       help=f"override a rules option; options: {', '.join(option_names())}")
        p.add_argument("--seat", type=int, choices=range(4), default=0, help="your seat, 0..3 (default 0)")
        p.add_argument("--partner", default="rules", metavar="SPEC", help="your partner's agent spec (default rules)")
        p.add_argument("--opponents", default="rules", metavar="SPEC",
                       help="the opponents' agent spec (default rules), e.g. checkpoints/knock.pt")
        p.add_argument("--seed", type=seed, default=None, help="seed of the deals, 0 to 2**32-1 (default: random)")
        p.add_argument("--hands", type=int_in(1, MAX_HANDS, "hands"), default=None,
                       help=f"play N hands instead of a whole game, 1 to {MAX_HANDS:,}")
        p.add_argument("--hint", default="rules", metavar="SPEC",
                       help="the agent whose advice 'hint' gives (default rules; pimc:50 gives its values)")
        p.add_argument("--allow-cheating", action="store_true",
                       help="let an agent that sees every hand (omniscient) sit at the table, as partner or opponent")

    pl = sub.add_parser("play", help=COMMANDS["play"],
                        description="A whole game against three agents in the terminal; answer each decision with "
                                    "its number or its text, or hint, history, help, quit.")
    table_options(pl)

    sv = sub.add_parser("serve", help=COMMANDS["serve"],
                        description="A local web page to play against three agents; each browser tab plays its "
                                    "own games. Needs the play extra (pip install 'euchre-env[play]').")
    table_options(sv)
    sv.add_argument("--port", type=port_number, default=8000, help="port, 1..65535 (default 8000)")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 or :: opens the page to "
                         "the network, with no login)")


def _check_fair(args: argparse.Namespace) -> None:
    """A person is not seated with an agent that sees every hand unless they asked (``--allow-cheating``), and a
    hint only ever sees what the person's seat sees."""
    from euchre_env.agents.registry import sees_hidden_cards

    if sees_hidden_cards(args.hint):
        fail(f"--hint {args.hint} sees every hand: a hint may see only what your seat sees (rules, pimc:N, a "
             "checkpoint)")
    cheats = [f"--{flag} {spec}" for flag, spec in (("partner", args.partner), ("opponents", args.opponents))
              if sees_hidden_cards(spec)]
    if cheats and not args.allow_cheating:
        fail(f"{' and '.join(cheats)} sees every hand (a ceiling for analysis, not a player): add --allow-cheating "
             "to play with it anyway")
    if cheats:
        print(f"euchre: warning: {' and '.join(cheats)} sees every hand, yours included (--allow-cheating)",
              file=sys.stderr)


def run_table(args: argparse.Namespace) -> int:
    """play and serve: a person against three agents (play/terminal.py, play/web.py)."""
    try:
        rules = make_rules(args.preset, args.options)
    except ValueError as exc:
        fail(str(exc))
    _check_fair(args)
    if args.command == "play":
        from euchre_env.play.terminal import play_in_terminal

        try:
            play_in_terminal(rules, args.seat, args.partner, args.opponents, seed=args.seed, hands=args.hands,
                             hint=args.hint)
        except ValueError as exc:  # a bad agent spec, before anything is dealt
            fail(str(exc))
        return 0
    try:
        from euchre_env.play.web import create_app
        from euchre_env.play.web_address import bind, page_url
    except ModuleNotFoundError as exc:
        fail(f"the serve command needs the play extra (no module named {exc.name!r}): pip install 'euchre-env[play]'")
    try:
        app = create_app(rules, args.seat, args.partner, args.opponents,
                         seed=args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little"),
                         hands=args.hands, hint=args.hint, host=args.host)
    except ValueError as exc:
        fail(str(exc))
    # Bound before anything is printed: the banner names a port this server holds, never another program's.
    try:
        server = bind(app, args.host, args.port)
    except OSError as exc:  # the port is taken, or the address is not this machine's (or no address at all)
        fail(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}")
    url, exposed = page_url(args.host, server.server_address)
    if exposed:
        print(f"euchre: warning: --host {args.host}: the page is reachable from the network, with no login: "
              f"anyone who can reach this machine on port {server.port} can play and start games on it",
              file=sys.stderr)
    print(f"euchre: open {url} in a browser (Ctrl-C stops the server)", flush=True)
    server.serve_forever()  # Werkzeug's: Ctrl-C returns from it and closes the socket
    return 0

