"""The `bandit-lan` command: one sub-command per module, registered below.

This module imports only the standard library at its top: the console script imports
it before calling `main`, and a Ctrl-C while the rest loads (most of a second) is
caught in `main`, which then exits quietly with status 130 as at any other moment."""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Sequence
from importlib import import_module

# Each module named here defines `register(subparsers)`; the parser it adds sets
# `func(args) -> int` as its default. Order is the order shown in --help.
COMMANDS: tuple[str, ...] = ("play", "tables", "host", "join", "audit", "simulate")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bandit-lan",
        description="Play Bandit on your LAN: no server, a joint encrypted shuffle, signed moves, auditable logs.",
    )
    parser.add_argument("--version", action="version", version=version())
    from cli.usage import CommandParser

    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name in COMMANDS:
        import_module(f"cli.{name}").register(sub)
    for command in sub.choices.values():  # (what a command does not know, it says in its own usage)
        command.set_defaults(command_parser=command)
    return parser


def no_resume() -> str:
    """Said to `bandit-lan resume`, the word other programs use."""
    from cli.commands import this_program

    return ("there is no `resume` command: to take your seat back in the game this program was playing, "
            f"run the command you started it with, adding --resume: `{this_program()} join --resume` "
            "(or `host --resume`, `play --resume`)")


def options_help(command: str | None) -> str:
    """Where a command's options are listed: said with an option it does not know."""
    from cli.commands import this_program

    return f"`{' '.join(filter(None, (this_program(), command)))} --help` lists its options"


def version() -> str:
    """This release (the installed package's version) and the protocol it speaks (§6.2's `proto`)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    from p2p.roster import PROTOCOL_VERSION

    try:
        release = installed("bandit-lan")
    except PackageNotFoundError:  # (run from a checkout that was never installed)
        release = "(not installed)"
    return f"bandit-lan {release} (protocol {PROTOCOL_VERSION})"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command `argv` (else the command line) and return its exit status; a
    Ctrl-C at any moment, start-up included, ends it quietly with status 130."""
    try:
        return _command(argv)
    except KeyboardInterrupt:
        return 130


def _command(argv: Sequence[str] | None) -> int:
    from cli.lobby_common import complain, settle

    parser = build_parser()
    if list(sys.argv[1:] if argv is None else argv)[:1] == ["resume"]:
        parser.error(no_resume())  # (exit status 2, as for any other unknown command)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        getattr(args, "command_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)} "
                                                      f"({options_help(getattr(args, 'command', None))})")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        status = int(args.func(args) or 0)
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:  # (a write not through `tell`, whose reader went away: the command stopped part way)
        settle(sys.stdout)
        settle(sys.stderr)
        complain("stopped before it was done: what it was writing to was closed")
        status = 1
    except OSError as error:
        if error.errno not in OUTPUT_FULL:
            raise
        return _output_lost(error)
    if getattr(args, "json", False) and getattr(args, "command", None) in ("play", "host", "join"):
        from cli.result_line import end_with_a_result

        end_with_a_result(status)  # (a script reads the last line: there is one, game or none)
    try:  # (what it printed last, flushed now: a reader gone by then is let go of, not failed on at exit)
        settle(sys.stdout)
    except OSError as error:
        if error.errno not in OUTPUT_FULL:
            raise
        return _output_lost(error)
    return status


OUTPUT_FULL = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
"""How a write fails when what the output goes to has no room for it (a full disk)."""


def _output_lost(error: OSError) -> int:
    """The command's output could not all be written: whatever its work found, what it
    told is cut short, so it fails."""
    from cli.lobby_common import complain, let_go

    let_go(sys.stdout)  # (nothing more is tried there, nor flushed at exit)
    complain(f"its output could not be written ({error.strerror}): what it printed is cut short")
    return 1
