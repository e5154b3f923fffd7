"""`bandit-lan join`: find a table (by name over mDNS, or --peer HOST:PORT) and take a seat."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from contextlib import AsyncExitStack

import trio

from cli.argtypes import NewTableOption, address, bot_player, host_sets_grace, port, seconds, target
from cli.commands import this_program
from cli.folders import USAGE_ERROR, state_unwritable
from cli.listening import listening
from cli.lobby_common import (
    AS_ANNOUNCED, SIGNING_NOW, add_identity_options, add_interface_option, add_seat_options, complain, explain, input_piped,
    load_identity, lobby_schemas, player_name, remember_name, roster_progress, say, then_shown,
)
from cli.stopping import INTERRUPTED, run_until_stopped, said_on_stop
from cli.tables import LISTED_WHILE_OPEN
from cli.game import (
    AT_A_TERMINAL, SeatBook, refused_without_a_terminal, host_trusted_on_first_use, play_seat, report, seat_log_path, trusted_on_first_use,
)
from p2p.peer import GameSummary
from cli.host import after_lobby, is_person, seat_log_unwritable
from cli.resume import offer_resume_first, resume_command, say_if_last_game_goes_on, stopped_long_ago
from p2p.discovery import browse
from p2p.errors import HostGone, JoinRefused, ProtocolError
from p2p.identity import (
    Certificate, IdentityError, fingerprint_matches, parse_fingerprint, short_id,
)
from p2p.lobby import RosterChanged
from p2p.lobby_runner import host_linked, join_table
from p2p.transport import Mesh, open_mesh


async def _find(args: argparse.Namespace, say_: Callable[[str], None],
                expect: bytes | str | None = None) -> tuple[list[tuple[str, int]], str, bytes] | None:
    """The table named (or the only one with free seats) on the LAN, hosted by `expect`
    if given (--fingerprint): addresses, words, fingerprint."""
    say_(f"Looking for {repr(args.table) if args.table else 'tables'} on the LAN...")
    found = await browse(args.timeout, interfaces=args.interfaces, table=args.table)
    found = [t for t in found if t.table == args.table] if args.table else [t for t in found if t.free > 0]
    if expect is not None:
        others = found
        found = [t for t in found if fingerprint_matches(t.fingerprint, expect)]
        if others and not found:
            hosts = ", ".join(f"{t.host} ({short_id(t.fingerprint)})" for t in others)
            complain(f"no table {'named ' + repr(args.table) if args.table else 'with free seats'} is hosted by "
                     f"the fingerprint --fingerprint names; found one hosted by {hosts}. Not joining.")
            return None
    if found and not any(t.compatible for t in found):
        complain("; ".join(t.other_version() for t in found) + ".")
        return None
    found = [t for t in found if t.compatible]
    if not found:
        which = f"no table named {args.table!r}" if args.table else "no table with free seats"
        complain(f"{which} found on the LAN (looked for {args.timeout:g} s). {LISTED_WHILE_OPEN} "
                 f"Try `{this_program()} tables`, or join directly with --peer HOST:PORT.")
        return None
    if len(found) > 1:
        if args.table:  # (one name: the fingerprint tells them apart)
            hosts = ", ".join(f"{t.host} ({short_id(t.fingerprint)})" for t in found)
            complain(f"several tables are named {args.table!r}, hosted by {hosts}. Add --fingerprint with the "
                     "host's fingerprint to pick one, or use --peer HOST:PORT.")
        else:
            names = ", ".join(f"{t.table!r} ({t.host})" for t in found)
            complain(f"several tables have free seats: {names}. Name one, or use --peer HOST:PORT.")
        return None
    ad = found[0]
    return [(a, ad.port) for a in ad.addresses], f'"{ad.table}" hosted by {ad.host}', ad.fingerprint


class NotSeated(Exception):
    """A person's join ended before the game (`why`): the table could not be reached, or
    its host refused this player. The picker says so and stays up."""

    def __init__(self, why: ConnectionError | JoinRefused) -> None:
        super().__init__(str(why))
        self.why = why


class OtherTarget(Exception):
    """`--target`: the game of the table hosted by `host` ends at another total (seen
    before anything is signed)."""

    def __init__(self, why: str, host: bytes) -> None:
        super().__init__(why)
        self.host = host


def _check_target(args: argparse.Namespace) -> Callable[[RosterChanged], None]:
    """A lobby callback that leaves, before the seating is signed, a table whose game
    ends at another total than `--target` (the rules come with the first roster)."""

    def check(change: RosterChanged) -> None:
        target = change.roster.rules.target
        if args.target is not None and target != args.target:
            raise OtherTarget(f"this table plays to {target}, not {args.target}; leaving before the seating is signed",
                              change.roster.members[0].cert.peer_id)

    return check


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("join", help="join a table on the LAN",
                              description="Join a table found on the LAN by name (or the only one with free seats), "
                                          "or directly with --peer HOST:PORT, and play its game once the host starts "
                                          f"it (when the table is full, or earlier at the host's Enter). {AT_A_TERMINAL}")
    p.add_argument("table", nargs="?", metavar="TABLE", help=f"name of the table (see `{this_program()} tables`)")
    p.add_argument("--peer", type=address, metavar="HOST:PORT", action=NewTableOption,
                   help="the host's address (no discovery needed)")
    p.add_argument("--fingerprint", metavar="FP", action=NewTableOption,
                   help="the host's fingerprint as shown on its screen; without it (and with --peer) the host is "
                        "trusted on first use and its fingerprint shown")
    p.add_argument("--code", metavar="WORD", action=NewTableOption,
                   help="the table code, if the host set one ('-': read it from the standard input, "
                        "so it stays out of the process list and the shell's history)")
    p.add_argument("--timeout", type=seconds, default=5.0, metavar="S", help="how long to look for the table (default 5 s)")
    p.add_argument("--port", type=port, default=0, action=NewTableOption,
                   help="TCP port for links from the other players (default: any free port)")
    p.add_argument("--bind", default="0.0.0.0", metavar="ADDR", help="address to listen on (default: all)")
    p.add_argument("--target", type=target, metavar="TARGET", action=NewTableOption,
                   help="only play if the host's game ends at this total (the host sets the rules)")
    p.add_argument("--grace", type=host_sets_grace, help=argparse.SUPPRESS)
    add_seat_options(p)
    add_identity_options(p)
    p.add_argument("--bot-name", dest="name", type=bot_player, help=argparse.SUPPRESS)  # (a host's bot's: `cli.bots`)
    add_interface_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.resume:
        from cli.resume import refuse_new_table, resume_refused_without_a_terminal, run_resume

        return refuse_new_table(args) or resume_refused_without_a_terminal(args, "join") or run_resume(args)
    name = player_name(args)
    expect: bytes | str | None = None
    if args.fingerprint:
        try:
            expect = parse_fingerprint(args.fingerprint)
        except ValueError as exc:
            complain(str(exc))
            return 2
    if refused_without_a_terminal(args, "join") or state_unwritable(args) or seat_log_unwritable(args):
        return USAGE_ERROR
    if (back := offer_resume_first(args, "join")) is not None:
        return back
    try:
        identity = load_identity(args)
    except IdentityError as exc:
        complain(str(exc))
        return 1
    remember_name(args)
    say_if_last_game_goes_on(args, identity.peer_id, "joining anew")

    quiet = args.quiet or args.json

    def say_(text: str) -> None:
        if not quiet:
            say(text)

    trusted: list[str] = []  # (a person who joined by address: the host's fingerprint, to compare)
    person = is_person(args)
    # `--code -` reads the code only once the table is found (after the offer to go back
    # to a waiting game, which needs none): at once with --peer; after the search, when a
    # bot looks for the table; a person's screen looks for it, then `table_code` reads it.
    located: list[tuple[list[tuple[str, int]], str, bytes]] = []
    if not person and not args.peer:

        async def locate() -> int:
            try:
                with said_on_stop(STOPPED_LOOKING):  # (no table to leave yet)
                    found = await _find(args, say_, expect)
            except (ProtocolError, OSError) as exc:
                complain(explain(exc))
                return 1
            if found is not None:
                located.append(found)
            return 0 if found is not None else 1

        if (status := run_until_stopped(locate)) != 0:
            return status
    if args.code == "-" and (not person or args.peer):
        args.code = _code_from_input()
        if not args.code:
            complain(NO_CODE)
            return 2

    async def table_code(terminal) -> str | None:  # type: ignore[no-untyped-def]
        """The code to join with, now that the table is found: --code's, or with
        `--code -` the standard input's (read once). A person who would type it is asked
        on the join screen, if the host asks for one (None): no prompt can show under it."""
        if args.code != "-":
            return args.code
        if terminal is not None and not input_piped():
            return None
        args.code = await trio.to_thread.run_sync(_code_from_input, abandon_on_cancel=True)
        return args.code

    async def main() -> int:
        async with AsyncExitStack() as stack:
            terminal = None
            if person:
                from cli.tui import open_terminal

                terminal = await stack.enter_async_context(open_terminal())
            outcome = await join_and_play(person, terminal)
        # a person's game is reported once the screen is closed, as is their leaving before it
        if trusted and not isinstance(outcome, str):
            say(trusted[-1])
        if isinstance(outcome, str):
            say(outcome)
            return 0
        return outcome if isinstance(outcome, int) else report(outcome, args)

    async def join_and_play(person: bool, terminal) -> int | str | GameSummary:  # type: ignore[no-untyped-def]
        """Join and play: an exit status, the summary of a game a person played, or what
        to tell a person who left before it began."""
        try:
            if args.peer:
                return await seat([args.peer], f"{args.peer[0]}:{args.peer[1]}", expect, person, terminal)
            if person and not args.table:
                return await pick_and_play(terminal)
            found = located[0] if located else await _find_on_screen(terminal)
            if found is None:
                return 1
            if isinstance(found, int):
                return found
            addresses, what, advertised = found
            return await seat(addresses, what, expect or advertised, person, terminal)
        except OtherTarget as exc:
            complain(str(exc))
            return 1
        except NotSeated as exc:
            complain(not_seated(exc.why, bool(args.peer)))
            return 1
        except (ProtocolError, OSError) as exc:
            complain(not_seated(exc, bool(args.peer)))
            return 1

    def not_seated(error: BaseException, by_address: bool) -> str:
        """Why this player took no seat (`explain`): a table whose game they hold a seat
        in says what to do, or, if they just left that game, that it seats nobody new. A
        table that is not there (its game over, its host gone) may be the one of an
        unfinished game of theirs, past its grace period: what became of it is for
        `--resume` to say, and they are told so."""
        said = explain(error, by_address, going_back=resume_command(args, "join"),
                       left=getattr(args, "left_its_game", False))
        if isinstance(error, (ConnectionError, HostGone)) and (stopped := stopped_long_ago(args, "join")) is not None:
            said = f"{said}. ({stopped[0].upper()}{stopped[1:]}.)"
        return said

    async def _find_on_screen(terminal) -> tuple[list[tuple[str, int]], str, bytes] | None | int:  # type: ignore[no-untyped-def]
        """`_find`, for a person, on its screen: Ctrl-C there leaves at once (`INTERRUPTED`)."""
        from cli.tui.lobby import LeftWhileLooking, until_left

        try:
            return await until_left(terminal, lambda: _find(args, _looking_on(terminal, args.table), expect))
        except LeftWhileLooking:
            return INTERRUPTED

    async def pick_and_play(terminal) -> str | GameSummary:  # type: ignore[no-untyped-def]
        """The table picker, then that table's lobby and game; a table that cannot be
        reached, or whose host refuses this player, is said on the picker, which stays
        up for another pick."""
        from cli.tui import pick_table_screen

        trouble = None
        while True:
            picked = await pick_table_screen(terminal, interfaces=args.interfaces, trouble=trouble)
            if picked is None:
                return "You joined no table."
            if isinstance(picked, tuple):
                addresses, what, fingerprint = [picked], f"{picked[0]}:{picked[1]}", None
            else:
                addresses = [(a, picked.port) for a in picked.addresses]
                what, fingerprint = f'"{picked.table}" hosted by {picked.host}', picked.fingerprint
            try:
                return await seat(addresses, what, expect or fingerprint, True, terminal)
            except NotSeated as exc:
                trouble = not_seated(exc.why, isinstance(picked, tuple))

    async def seat(addresses: list[tuple[str, int]], what: str, expect: bytes | str | None, person: bool,
                   terminal) -> int | str | GameSummary:  # type: ignore[no-untyped-def]
        """Join the table at `addresses` (`what`, in words), then play: as `join_and_play`."""
        code = await table_code(terminal)
        if code == "":
            complain(NO_CODE)
            return 2
        async with listening(open_mesh(identity, lobby_schemas(), bind=args.bind, port=args.port, hold_incoming=True),
                             args.bind, args.port) as mesh:
            try:
                with SeatBook(mesh, args, first_use=expect is None) as book:
                    return await seated(mesh, addresses, what, expect, code, person, terminal, book)
            except OtherTarget as exc:
                await host_linked(mesh, exc.host)  # (the mesh says goodbye on closing: the host hears it left)
                raise

    async def seated(mesh: Mesh, addresses: list[tuple[str, int]], what: str, expect: bytes | str | None,
                     code: str | None, person: bool, terminal,  # type: ignore[no-untyped-def]
                     book: SeatBook) -> int | str | GameSummary:
        """`seat`, on its open `mesh`, this seat's journal written by `book` as it signs."""
        if person:
            from cli.tui import join_lobby_screen

            check = _check_target(args)
            seated_at: list[RosterChanged] = []

            def seen(change: RosterChanged) -> None:  # (a roster comes once the host gave this player a seat)
                seated_at.append(change)
                check(change)

            try:
                result = await join_lobby_screen(terminal, mesh, addresses, name=name, code=code,
                                                 expect_host=expect, what=what, check=seen, on_signing=book.sign,
                                                 announced=not args.fingerprint)
            except (ConnectionError, JoinRefused) as exc:  # (not a failure of the game: that is played after)
                raise NotSeated(exc) from exc
            if result is None:
                return "You left the table before the game began." if seated_at else f"You did not join {what}."
            if expect is None:  # (by address: the lobby said it, but a table this player filled starts at once)
                trusted.append(trusted_on_first_use(result.roster.members[0]))
            return await play_seat(mesh, result, identity, args, seat_log_path(result, args), terminal=terminal,
                                   seated=book.seated, note=trusted[-1] if trusted else None)
        say_(f"Joining {what} as {name} (your fingerprint {identity.short})...")

        def on_host(cert: Certificate) -> None:
            if expect is None:
                say_(host_trusted_on_first_use(cert))
            elif not args.fingerprint:  # (found on the LAN: what the host announced, no more)
                say_(f"Host fingerprint {cert.short} ({AS_ANNOUNCED}).")
            else:
                say_(f"Host fingerprint {cert.short} verified.")

        check, show = _check_target(args), None if quiet else roster_progress(identity.peer_id)

        def on_roster(change: RosterChanged) -> None:
            check(change)
            if show is not None:
                show(change)

        result = await join_table(mesh, addresses, name=name, code=code, expect_host=expect,
                                  on_host=on_host, on_roster=on_roster,
                                  on_signing=then_shown(book.sign, lambda: say_(SIGNING_NOW)))
        return await after_lobby(mesh, result, identity, args, seated=book.seated)

    return run_until_stopped(main)


def _looking_on(terminal, table: str | None) -> Callable[[str], None]:  # type: ignore[no-untyped-def]
    """What `_find` says, for a person: the screen that is up says it (a line printed
    under it would be lost, or run into what is printed after the game)."""
    from cli.tui.lobby_view import JoinScene

    return lambda text: terminal.show(JoinScene(repr(table) if table else "a table", "", (), 0, "looking"))


STOPPED_LOOKING = "Stopped looking for the table."
"""What a line-mode `join` stopped (Ctrl-C) while it looks for its table on the LAN says:
it sat at none, so not "Leaving the table."."""

NO_CODE = "--code -: no table code on the standard input"


def _code_from_input() -> str:
    """The table code from the standard input (``--code -``): its first line, or, when it
    is a terminal, what the person types at a prompt, not shown (as a password is)."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().strip()
    try:
        return getpass.getpass("Table code: ").strip()
    except EOFError:  # (Ctrl-D)
        return ""
