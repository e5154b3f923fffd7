"""`bandit-lan host`: open a table on the LAN and run the lobby until it is full."""

from __future__ import annotations

import argparse
import json
import math
import os
import select
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from functools import partial

import trio

from cli.argtypes import (
    SEATS_RANGE, TARGET_RANGE, TURN_RANGE, NewTableOption, add_grace_option, host_bots, plain, port, seats, skills_file,
    target, turn_seconds,
)
from cli.lobby_common import (
    add_identity_options, add_interface_option, add_seat_options, at_a_terminal, complain, explain, load_identity,
    JoinHint, LOBBY_CHECK, OR, SIGNING_NOW, commands_to_copy, lobby_schemas, player_name, print_result, remember_name,
    roster_progress, say, say_to_copy, tell, then_shown,
)
from cli.result_line import outcome, result_told
from cli.bots import BotSeats, BotTable, bot_names, bot_seats, seat_with_bots
from cli.commands import shell_word, this_program
from cli.folders import USAGE_ERROR, state_unwritable
from cli.listening import listening
from cli.stopping import run_until_stopped, said_on_stop
from cli.ttymode import in_the_foreground
from cli.game import (
    AT_A_TERMINAL, SeatBook, bot_logs_beside, refused_without_a_terminal, full_speed, log_folder, log_unwritable, play_seat, report,
    seat_for_a_person, seat_log_path,
)
from p2p.discovery import TableAd, advertise, advertised_addresses, watch
from p2p.errors import ProtocolError
from p2p.identity import IdentityError, default_state_dir, short_id
from p2p.journal import SeatJournal
from p2p.lobby import RosterChanged
from p2p.lobby_runner import host_table
from engine import SkillsError
from engine.narrate import listed
from p2p.roster import PROTOCOL_VERSION, TABLE_NAME, TableRules
from p2p.transport import open_mesh


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("host", help="host a table on the LAN and play when it is full",
                              description="Host a table: announce it on the LAN, let players in, and play its game "
                                          "once the table is full (or earlier, at Enter, with at least two players "
                                          f"seated). {AT_A_TERMINAL}")
    p.add_argument("--table", action=NewTableOption, help="table name shown to others (default: NAME's table)")
    p.add_argument("--seats", type=seats, default=4, metavar="N", action=NewTableOption,
                   help=f"number of seats, {SEATS_RANGE} (default 4)")
    p.add_argument("--port", type=port, default=0, action=NewTableOption,
                   help="TCP port to listen on (default: any free port)")
    p.add_argument("--bind", default="0.0.0.0", metavar="ADDR", help="address to listen on (default: all)")
    p.add_argument("--code", metavar="WORD", action=NewTableOption,
                   help="a table code players must know to join (never sent over the network)")
    p.add_argument("--no-discovery", action="store_true", help="do not advertise the table by mDNS (players join with "
                                                                 f"`{this_program()} join --peer`)")
    p.add_argument("--target", type=target, default=100, metavar="TARGET", action=NewTableOption,
                   help=f"end the game when a total reaches this, {TARGET_RANGE} (default 100)")
    p.add_argument("--turn-seconds", type=turn_seconds, default=60, metavar="S", action=NewTableOption,
                   help=f"a turn's time, {TURN_RANGE}; when it runs out the turn is played as A without the "
                        "power (default 60 s)")
    add_grace_option(p)
    p.add_argument("--skills", type=skills_file, metavar="FILE", action=NewTableOption,
                   help="your own skills table (TOML), as in engine/skills.toml")
    p.add_argument("--bots", type=host_bots, default=0, metavar="N",
                   action=NewTableOption, help="fill N seats with bots, up to every seat but yours, each a peer of "
                                               "its own on this machine as in `play` (default 0)")
    add_seat_options(p, seats_bots=True)
    add_identity_options(p)
    add_interface_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.resume:
        from cli.resume import refuse_new_table, resume_refused_without_a_terminal, run_resume

        return refuse_new_table(args) or resume_refused_without_a_terminal(args, "host") or run_resume(args)
    name = player_name(args)
    if args.bots >= args.seats:  # (each in its own range: `argtypes.seats`, `host_bots`)
        args.command_parser.error(f"argument --bots: {args.bots} is not a number of bots for {args.seats} seats "
                                  f"(0-{args.seats - 1}: the seats but yours)")
    try:  # (the player's name was checked as it was read, `argtypes.player`)
        table = plain(args.table or f"{name}'s table", "table's name", TABLE_NAME.max_len)
    except argparse.ArgumentTypeError as exc:
        complain(f"--table: {exc}")
        return 2
    try:
        rules = TableRules(target=args.target, turn_s=args.turn_seconds,
                           skills_text=args.skills.text if args.skills else "", grace_s=args.grace)
        rules.skills.check_players(args.seats)  # the deck must deal to a full table (R4)
    except (ProtocolError, SkillsError) as exc:
        complain(f"these table rules cannot be played: {exc}")
        return 2
    if refused_without_a_terminal(args, "host") or state_unwritable(args) or seat_log_unwritable(args):
        return USAGE_ERROR
    from cli.resume import offer_resume_first, say_if_last_game_goes_on

    if (back := offer_resume_first(args, "host")) is not None:
        return back
    try:
        identity = load_identity(args)
    except IdentityError as exc:
        complain(str(exc))
        return 1
    remember_name(args)
    say_if_last_game_goes_on(args, identity.peer_id, "hosting anew")
    show = (lambda change: None) if args.quiet or args.json else roster_progress(identity.peer_id)

    async def main() -> int:
        try:
            async with listening(open_mesh(identity, lobby_schemas(), bind=args.bind, port=args.port),
                                 args.bind, args.port) as mesh:
                addresses = advertised_addresses(args.bind, args.interfaces)
                where = addresses[0] if addresses else args.bind
                ad = TableAd(table, name, args.seats, args.seats - 1, PROTOCOL_VERSION, identity.peer_id,
                             mesh.port, addresses, code=bool(args.code))
                hint = join_hint(ad, where, by_name=not args.no_discovery)  # (by name only if it is advertised)
                async with bot_seats(bot_names(args.bots, name), _bot_table(args, where, mesh.port, identity)) as bots:
                    return await _lobby_and_game(mesh, ad, hint, where, bots)
        except (ProtocolError, OSError) as exc:
            complain(explain(exc))
            return 1

    async def _lobby_and_game(mesh, ad: TableAd, hint: str, where: str, bots: BotSeats) -> int:  # type: ignore[no-untyped-def]
        with SeatBook(mesh, args) as book:
            return await _seat_and_play(mesh, ad, hint, where, bots, book)

    async def _seat_and_play(mesh, ad: TableAd, hint: str, where: str, bots: BotSeats,  # type: ignore[no-untyped-def]
                             book: SeatBook) -> int:
        ended = trio.Event()  # (the game is over: the front door tells a player coming back so)
        if is_person(args):  # the full-screen lobby, then the table, on one terminal
            from cli.tui import host_lobby_screen, open_terminal

            async with open_terminal() as terminal:
                notes, heard = trio.open_memory_channel[str | JoinHint](math.inf)  # (few: namesakes, a failure)
                async with _advertising(ad, args, where, notes.send_nowait) as advert:
                    result = await host_lobby_screen(
                        terminal, mesh, name=name, table=table, seats=args.seats, code=args.code,
                        rules=rules, join_hint=hint, on_roster=lambda change: advert(change.roster.free),
                        warnings=(bots.lost, heard), on_signing=book.sign, bots=bots.names, game_ended=ended,
                    )
                bots.seated()
                if result is not None:
                    log = seat_log_path(result, args)
                    beside = bot_logs_beside(log, result.game_id, [m.name for m in result.roster.members])
                    summary = await play_seat(mesh, result, identity, args, log, terminal=terminal, seated=book.seated,
                                              beside=beside, ended=ended)
            if result is None:  # (said once the screen is closed)
                say(CLOSED_BEFORE_THE_GAME)
                return 0
            return report(summary, args, await bots.logs_after(summary.log_path))
        if not (args.quiet or args.json):
            say(f'Hosting "{table}" on {where}:{mesh.port} with {args.seats} seats'
                f'{" (a code is required)" if args.code else ""}, game to {args.target}.')
            say(f"Your fingerprint: {identity.short} (players can check it on their screens)")
            say_join_hint(hint, "(each is asked for the table code)" if args.code else "")
        else:
            say_listening(args, f"{where}:{mesh.port}", identity.peer_id)
        seated = [1]  # (players at the table now, for Enter)

        def signing_shown() -> None:
            if not (args.quiet or args.json):
                say(SIGNING_NOW)

        async with _enters(lambda: seated[0], aside=bool(args.quiet or args.json),
                           waiting=args.bots < args.seats - 1) as keys:  # (the lobby's, then the game's)
            with said_on_stop(CLOSED_BEFORE_THE_GAME):
                async with _advertising(ad, args, where, partial(said_in_lines, args)) as advert:

                    def on_roster(change: RosterChanged) -> None:
                        seated[0] = len(change.roster.members)
                        show(change)
                        advert(change.roster.free)

                    result = await seat_with_bots(bots, partial(
                        host_table, mesh, name=name, table=table, seats=args.seats, code=args.code, rules=rules,
                        start=None if keys is None else keys.start, on_roster=on_roster,
                        on_signing=then_shown(book.sign, signing_shown), bots=bots.names, game_ended=ended))
            if result is None:  # (only a table that needs every bot gives up)
                return 1
            if keys is not None:
                keys.playing = True
            return await after_lobby(mesh, result, identity, args, bots, book.seated, ended)

    return run_until_stopped(main)


CLOSED_BEFORE_THE_GAME = "You closed the table before the game began."
"""What a host that closed its lobby is told, full screen (Ctrl-C, yes) or in line mode (Ctrl-C)."""


def is_person(args: argparse.Namespace) -> bool:
    """A person plays this seat (full screen) unless a bot does or only the lobby runs."""
    return seat_for_a_person(args) and at_a_terminal()


def seat_log_unwritable(args: argparse.Namespace) -> bool:
    """Say so, if this seat will play and its log could not be written (before the lobby)."""
    return not args.lobby_only and log_unwritable(args.state_dir, args.log, args.log_dir)


def join_hint(ad: TableAd, where: str, *, by_name: bool = True, namesake: bool = False) -> str:
    """The commands others join `ad` with: by its address, and by its name if it is
    advertised (`by_name`); with the host's fingerprint while another table on the LAN
    has that name (`namesake`), as joining by the name alone then fails."""
    by_peer = f"{this_program()} join --peer {where}:{ad.port}"
    if not by_name:
        return by_peer
    fingerprint = f" --fingerprint {short_id(ad.fingerprint)}" if namesake else ""
    return f"{this_program()} join {shell_word(ad.table)}{fingerprint}{OR}{by_peer}"


@asynccontextmanager
async def _advertising(ad: TableAd, args: argparse.Namespace, where: str,
                       tell: Callable[[str | JoinHint], None]) -> AsyncIterator[Callable[[int], None]]:
    """Advertise the table by mDNS (unless --no-discovery) while the lobby runs; yields
    a function that updates the free seats shown to others. If mDNS cannot run here the
    table goes on unadvertised (§5.3), and `tell` says so; `tell` is also given a
    `JoinHint` whenever another table of this name appears or goes."""
    if args.no_discovery:
        yield lambda free: None
        return
    async with trio.open_nursery() as watching:

        async def tell_twin() -> None:
            """Another table of this name this identity hosts (another host run from this
            state directory), heard from before this one is announced: say so, once for
            each; the two share one instance name and hide each other in the list (§5.1),
            and nobody joins either from this state directory (§6.2)."""
            told: set[tuple[tuple[str, ...], int]] = set()

            def heard(other: TableAd) -> None:
                key = (tuple(other.addresses), other.port)
                if (other.table, other.fingerprint) == (ad.table, ad.fingerprint) and other.port != ad.port \
                        and key not in told:
                    told.add(key)
                    tell(twin_warning(other))

            with suppress(OSError):  # (a LAN that cannot be browsed: nothing to warn of)
                await watch(heard, interfaces=args.interfaces)

        watching.start_soon(tell_twin)  # (first: once announced, this table's record replaces the other's)
        async with _advertised(ad, args, where, tell) as update:
            yield update
        watching.cancel_scope.cancel()


def twin_warning(other: TableAd) -> str:
    """What a host is told of another table its own identity hosts (`_advertising`)."""
    where = f"{other.addresses[0]}:{other.port}" if other.addresses else f"port {other.port}"
    return (f'Your identity already hosts a table named "{other.table}" on the LAN (at {where}, from this state '
            "directory): the two hide each other in the list, and nobody can join either from this state "
            "directory. To host a second table, start it with another --state-dir.")


@asynccontextmanager
async def _advertised(ad: TableAd, args: argparse.Namespace, where: str,
                      tell: Callable[[str | JoinHint], None]) -> AsyncIterator[Callable[[int], None]]:
    """`_advertising`'s announcement and its namesakes' news (discovery on)."""
    async with advertise(ad, interfaces=args.interfaces) as advert, trio.open_nursery() as nursery:

        async def tell_failure() -> None:
            await advert.failed.wait()
            tell(f"The table is not advertised on the LAN ({advert.failure}); "
                 f"others join with: {this_program()} join --peer {where}:{ad.port}")

        async def tell_namesakes() -> None:
            """Whenever another table of this name appears while the lobby runs, say so
            (once for each host of one while it is there: its record changes as its seats
            fill), and the join command with this host's fingerprint; when one goes while
            others stay, say which are left; once the last of them has gone, take that back."""
            await advert.published.wait()
            namesakes: dict[bytes, TableAd] = {}  # (by their hosts' fingerprints)

            def heard(other: TableAd) -> None:
                if other.table == ad.table and other.fingerprint not in namesakes.keys() | {ad.fingerprint}:
                    namesakes[other.fingerprint] = other
                    tell(JoinHint(join_hint(ad, where, namesake=True), namesake_warning(ad, [other]), warning=True))

            def gone(other: TableAd) -> None:
                if other.table == ad.table and namesakes.pop(other.fingerprint, None) is not None:
                    if namesakes:
                        tell(JoinHint(join_hint(ad, where, namesake=True),
                                      namesake_left(ad, other, list(namesakes.values())), warning=True))
                    else:
                        tell(JoinHint(join_hint(ad, where), namesake_gone(ad), warning=False))

            with suppress(OSError):  # (a LAN that cannot be browsed: nothing to warn of)
                await watch(heard, gone, interfaces=args.interfaces)

        nursery.start_soon(tell_failure)
        nursery.start_soon(tell_namesakes)
        yield lambda free: advert.update(free=free)
        advert.withdraw()
        nursery.cancel_scope.cancel()


def say_listening(args: argparse.Namespace, where: str, fingerprint: bytes) -> None:
    """Where a host for a script (--quiet, --json) listens, on its first line of standard
    output: ``listening ADDR:PORT ID``, or with --json, where standard output holds only
    JSON, one object a line, the result last, ``{"listening": "ADDR:PORT", "fingerprint":
    ID, "fingerprint_words": "NW77-…"}`` (ID: the host's peer id in hex; the words: its
    fingerprint as every screen shows it, `short_id`)."""
    if args.json:
        tell(json.dumps({"listening": where, "fingerprint": fingerprint.hex(), "fingerprint_words": short_id(fingerprint)}),
             sys.stdout)
    else:
        say(f"listening {where} {fingerprint.hex()}")


def said_in_lines(args: argparse.Namespace, news: str | JoinHint) -> None:
    """What the line-mode host prints of `_advertising`'s news: the news, then the join
    command a `JoinHint` calls for (as the host's first lines, not with --quiet or --json).
    With --quiet or --json the news goes to standard error: standard output holds only
    the result (and the listening line). The command a `JoinHint`'s news names (the
    first of its join commands) is never broken at the terminal's width: where the news
    does not fit on one line, the command goes on a line of its own (`news_to_copy`)."""
    aside = bool(args.quiet or args.json)
    if isinstance(news, str):
        say(news, aside=aside)
        return
    say_to_copy(news.news, news_to_copy(news.news, news.command.split(OR)[0]), aside=aside)
    if not aside:
        say_join_hint(news.command)


def say_join_hint(hint: str, after: str = "") -> None:
    """"Others join with: …" and the join commands of `hint` (`join_hint`), then `after`:
    on one line where it fits, else each command on a line of its own (`say_to_copy`)."""
    say_to_copy(f"Others join with: {hint}{f'   {after}' if after else ''}",
                commands_to_copy("Others join with:", hint.split(OR), after))


def news_to_copy(news: str, command: str) -> list[tuple[str, bool]]:
    """`say_to_copy`'s lines for `news` that names `command` (as `namesake_warning`
    does): the words before it, the command whole on a line of its own, the words after
    it (without the backquotes around it, or a lone full stop after it: what is copied
    is the command alone)."""
    before, named, after = news.partition(command)
    if not named:
        return [(news, False)]
    after = after.lstrip("`").strip()
    return commands_to_copy(before.rstrip("` "), [command], "" if after == "." else after)


def namesake_warning(ad: TableAd, namesakes: list[TableAd]) -> str:
    """What a host reads when other tables on the LAN have its table's name: `join NAME`
    then lists them and stops, so its players need its fingerprint."""
    hosts = ", ".join(sorted({t.host for t in namesakes}))
    short = short_id(ad.fingerprint)
    return (f"Another table on this LAN is also called {ad.table!r} (hosted by {hosts}): joining by that name "
            f"alone now fails, so give your players your fingerprint: {this_program()} join {shell_word(ad.table)} "
            f"--fingerprint {short} (or host under another name).")


def namesake_left(ad: TableAd, left: TableAd, staying: list[TableAd]) -> str:
    """What a host reads when one other table of its table's name goes while others stay."""
    hosts = sorted({t.host for t in staying})
    others = "another of that name is" if len(staying) == 1 else f"{len(staying)} others of that name are"
    return (f"{left.host}'s table called {ad.table!r} is gone, but {others} still on this LAN "
            f"(hosted by {listed(hosts)}): joining by the name alone still fails, so keep giving your players your "
            f"fingerprint: {this_program()} join {shell_word(ad.table)} --fingerprint {short_id(ad.fingerprint)}.")


def namesake_gone(ad: TableAd) -> str:
    """What a host reads once no other table on the LAN has its table's name any more."""
    return f"The other table called {ad.table!r} is gone: `{this_program()} join {shell_word(ad.table)}` works again."


def _bot_table(args: argparse.Namespace, where: str, port: int, identity) -> BotTable:  # type: ignore[no-untyped-def]
    """The bots dial the host where the other players do, so the roster gives everyone an
    address of each bot that works for them (`cli.bots`); they listen where the host does.
    They play at a person's pace, for people may join (R6, R10), unless the host chose
    full speed for its table (`full_speed`: a --headless typed)."""
    host = "127.0.0.1" if where in ("0.0.0.0", "") else where
    state_dir = args.state_dir or default_state_dir()
    log_dir = args.log.parent if args.log is not None else log_folder(args.state_dir, args.log_dir)
    return BotTable(host, port, identity.peer_id.hex(), args.bind, state_dir, log_dir, args.seed, args.code,
                    args.lobby_only, full_speed=full_speed(args))


async def after_lobby(mesh, result, identity, args, bots: BotSeats | None = None,  # type: ignore[no-untyped-def]
                      seated: SeatJournal | None = None, ended: trio.Event | None = None) -> int:
    """Print the seating; then play the game headless (unless --lobby-only), with the
    journal written as this seat signed the roster (`seated`, `SeatBook`); `ended` as
    for `play_seat`."""
    if not (args.quiet or args.json):
        print_result(result, identity.peer_id)
    if args.lobby_only:
        mesh.farewell = LOBBY_CHECK  # (what the others read as it goes: it was never going to play)
        if args.json:
            result_told()
            tell(json.dumps({**outcome(0, None), "game_id": result.game_id.hex(), "seat": result.seat,
                             "players": [m.name for m in result.roster.members]}), sys.stdout)
        if bots is not None:
            await bots.finish()  # (they stop once seated, as this peer does)
        return 0
    summary = await play_seat(mesh, result, identity, args, seat_log_path(result, args), seated=seated, ended=ended)
    return report(summary, args, None if bots is None else await bots.logs_after(summary.log_path))


LOBBY_KEYS = ("Press Enter to start with the players seated so far (at least 2); "
              "Ctrl-C closes the table.")
GAME_KEYS = ("The game is on and a bot plays your seat: Enter does nothing now. "
             "Ctrl-C leaves the table, which ends the game for everyone.")
BOTS_TAKING_SEATS = "The bots are taking their seats: the game begins as soon as they are all seated."
IN_THE_BACKGROUND = "(This host runs in the background: bring it to the foreground with fg first.)"
FOREGROUND_CHECK_S = 1.0
"""How often a host in the background of its terminal looks whether it is in the
foreground now (a shell's `fg` tells a running job nothing)."""


class HostKeys:
    """What the line-mode host does with each line typed at its terminal: in the lobby
    (`playing` False), an Enter asks to start the game early with the `seated` players, at
    least two (Enter alone at the table says so): again, if everyone the host would have
    started with left meanwhile; where bots fill every other seat (`bots_fill`), it only
    says they are taking their seats (a table is not started short of its bots). Once the game is on, a line only says what the keys do:
    leaving is Ctrl-C, never an Enter. What it says goes to standard error if `aside`
    (--json or --quiet: standard output is for a script)."""

    def __init__(self, seated: Callable[[], int], *, aside: bool = False, bots_fill: bool = False) -> None:
        self.seated = seated
        self.aside = aside
        self.bots_fill = bots_fill  # (bots take every other seat: nobody to wait for, nothing to start early)
        self.playing = False
        self._asked, self.start = trio.open_memory_channel[object](1)

    def typed(self, line: str) -> None:
        if self.playing:
            say(GAME_KEYS, aside=self.aside)
        elif self.bots_fill:
            say(BOTS_TAKING_SEATS, aside=self.aside)
        elif self.seated() < 2:
            say("A game needs at least two players: Enter again once someone has joined.", aside=self.aside)
        else:
            with suppress(trio.WouldBlock):  # (one call waiting is enough)
                self._asked.send_nowait(None)


@asynccontextmanager
async def _enters(seated: Callable[[], int], *, aside: bool = False,
                  waiting: bool = True) -> AsyncIterator[HostKeys | None]:
    """While the line-mode host runs (its lobby, then its game), on a terminal, each line
    typed goes to `HostKeys`; None off a terminal (a headless host starts when the table
    is full). The lobby's keys are told if the host is `waiting` for players (not when
    bots fill every other seat), with how to reach them from the background of the
    terminal; on standard error if `aside`. Nothing is left reading the terminal once
    the block ends (`terminal_lines`); they are told again each time the host comes to
    the foreground while the lobby runs (`on_coming_to_the_foreground`)."""
    if not sys.stdin.isatty():
        yield None
        return
    keys = HostKeys(seated, aside=aside, bots_fill=not waiting)
    if waiting:
        background = not _in_the_foreground(sys.stdin.fileno())
        say(f"{LOBBY_KEYS} {IN_THE_BACKGROUND}" if background else LOBBY_KEYS, aside=aside)

    async def read_lines() -> None:
        async for line in terminal_lines(sys.stdin.fileno()):
            keys.typed(line)

    def keys_again() -> None:
        if not keys.playing:
            say(LOBBY_KEYS, aside=aside)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_lines)
        if waiting:
            nursery.start_soon(on_coming_to_the_foreground, sys.stdin.fileno(), keys_again)
        yield keys
        nursery.cancel_scope.cancel()


async def on_coming_to_the_foreground(fd: int, told: Callable[[], None]) -> None:
    """Call `told` each time this process comes to the foreground of the terminal `fd`:
    from the background (`fg` of a running job, seen within `FOREGROUND_CHECK_S`), or
    continued in the foreground after a stop (Ctrl-Z, then `fg`: SIGCONT)."""
    with trio.open_signal_receiver(signal.SIGCONT) as continued:
        before = _in_the_foreground(fd)
        while True:
            woken = False
            with trio.move_on_after(math.inf if before else FOREGROUND_CHECK_S):
                await continued.__anext__()
                woken = True
            now = _in_the_foreground(fd)
            if now and (woken or not before):
                told()
            before = now


async def terminal_lines(fd: int) -> AsyncIterator[str]:
    """Each line typed at the terminal `fd`, read only once it is there (no thread is left
    blocked reading: when the reader is cancelled, what is typed next is for whoever reads
    the terminal next, the shell), and only while this process is in the terminal's
    foreground (a read from the background would stop it, SIGTTIN). Bytes that are not text
    read as U+FFFD; the lines end when the terminal hangs up or ends its input (Ctrl-D),
    and a last line typed without a newline before that Ctrl-D is given too."""
    typed = b""
    while True:
        await trio.lowlevel.wait_readable(fd)
        if not _in_the_foreground(fd):
            await trio.sleep(1)  # (what is typed now goes to the foreground job: wait for fg)
            continue
        if not select.select([fd], [], [], 0)[0]:
            continue  # (another reader took it first: a read now would block the event loop)
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return  # (the terminal hung up: the stop signal that comes with it is the command's)
        if not chunk:
            if typed:
                yield typed.decode("utf-8", "replace")
            return
        typed += chunk
        *lines, typed = typed.split(b"\n")
        for line in lines:
            yield line.decode("utf-8", "replace")


def _in_the_foreground(fd: int) -> bool:
    """Whether this process may read the terminal `fd` without being stopped: it is in
    its foreground, or `fd` is not this process's controlling terminal."""
    try:
        return in_the_foreground(fd)
    except OSError:  # (not our controlling terminal: reading it stops nobody)
        return True
