"""The `bandit-lan` command: one sub-command per module, registered below."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from cli.lobby_common import complain, settle

# Each module named here defines `register(subparsers)`; the parser it adds sets
# `func(args) -> int` as its default. Order is the order shown in --help.
COMMANDS: tuple[str, ...] = ("play", "tables", "host", "join", "audit", "simulate")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bandit-lan",
        description="Play Bandit on your LAN: no server, a joint encrypted shuffle, signed moves, auditable logs.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        import_module(f"cli.{name}").register(sub)
    for command in sub.choices.values():  # (what a command does not know, it says in its own usage)
        command.set_defaults(command_parser=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        getattr(args, "command_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # (a write not through `tell`, whose reader went away: the command stopped part way)
        settle(sys.stdout)
        settle(sys.stderr)
        complain("stopped before it was done: what it was writing to was closed")
        return 1
    finally:  # (what it printed last, flushed now: a reader gone by then is let go of, not failed on at exit)
        settle(sys.stdout)
