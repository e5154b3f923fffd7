"""What `host`, `join` and `tables` share: options, identity, messages, roster output."""

from __future__ import annotations

import argparse
import errno
import getpass
import os
import re
import shutil
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO


from cli.argtypes import ipv4, player
from cli.cells import ljust, text_width, wrapped
from cli.commands import this_program
from cli.listening import CannotListen
from cli.result_line import trouble_said
from cli.ttymode import in_the_foreground, point_at_nowhere
from p2p.errors import FingerprintMismatch, HostGone, JoinRefused, ProtocolError, TableClosed
from p2p.identity import Identity, IdentityError, default_state_dir, load_or_create_identity
from p2p.lobby import LobbyResult, RosterChanged, Signing
from p2p.lobby_runner import DialFailure, SigningCallback, TableUnreachable
from p2p.roster import Roster
from p2p.schema import Schemas

REFUSAL_HINTS = {
    "full": "the table is full",
    "started": "that table is no longer open to players",
    "bad-code": "the table code was not accepted",
    "version": "that table speaks another bandit-lan protocol; the same bandit-lan release is needed on both machines",
    "duplicate": "you are already seated at that table (same identity)",
    "name-taken": "a player with that name, or one that reads the same, is seated; pick another with --name",
    "bad-name": "that name cannot be used at a table; pick another with --name",
    "unreachable": "a player at the table and this machine could not connect to each other (a firewall?), "
                   "so the later of the two to join left",
    "in-game": "you hold a seat in the game that table is playing",
    "game-over": "the game you played at that table is over",
}
"""What a player reads of each refusal (§6.4), before the host's own words if it sent any."""

REFUSAL_ADVICE = {
    "name-taken": "pick another name with --name",
    "bad-name": "pick another name with --name",
}
"""What a player is told to do after the host's words, for the refusals whose words say
what is wrong themselves (which seated player the name reads as, which rule it breaks)."""

_SECTION = re.compile(r" \(§\d+(?:\.\d+)*\)$")
"""The section a host's words end with: for the logs, not the player's line."""


def add_identity_options(parser: argparse.ArgumentParser,
                         state_help: str = ("where your identity key, your logs (in logs/) and unfinished games "
                                            "live (default: the user data directory, ~/.local/share/bandit-lan "
                                            "on Linux)"),
                         ) -> None:
    parser.add_argument("--name", type=player, help="your name at the table, kept as the default for your next "
                                                    "games (default: the --name you gave last, else your login name)")
    parser.add_argument("--state-dir", type=Path, metavar="DIR", help=state_help)


def add_seat_options(parser: argparse.ArgumentParser, *, seats_bots: bool = False) -> None:
    """What `host` and `join` add to play the game after the lobby (`seats_bots`: as
    `add_game_options`)."""
    from cli.game import add_game_options

    add_game_options(parser, seats_bots=seats_bots)
    parser.add_argument("--log", type=Path, metavar="PATH", help="write this seat's fairness log here")
    parser.add_argument("--log-dir", type=Path, metavar="DIR",
                        help="write this seat's log into DIR, named after the game and seat (default: logs/ in the "
                             "--state-dir)")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    parser.add_argument("--resume", action="store_true",
                        help="continue the unfinished game you were playing when this program stopped (same "
                             "--state-dir; --log picks the game if there are several)")
    parser.add_argument("--lobby-only", action="store_true",
                        help="stop once everyone is seated and signed, without playing: checks that all players can "
                             "reach each other (at a real table, the others' game then ends at once)")


def add_interface_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--interface", action="append", type=ipv4, metavar="ADDR", dest="interfaces",
                        help="use only the interface with this IPv4 address for discovery (repeatable; default: all)")


NAME_FILE = "name"
"""In the state directory, beside the identity: the --name last given, the default name."""


def player_name(args: argparse.Namespace) -> str:
    """--name, else the name last given with this identity (`remember_name`), else the
    login name (if it makes a name at a table, §6.2), else "player"."""
    if args.name:
        return args.name
    if (kept := kept_name(args.state_dir or default_state_dir())) is not None:
        return kept
    try:
        return player(getpass.getuser()[:24].strip() or "player")
    except (argparse.ArgumentTypeError, OSError, KeyError):  # (no login name, or none that is a name)
        return "player"


def kept_name(state_dir: Path) -> str | None:
    """The name `remember_name` kept in `state_dir`, if it is still a player's name."""
    try:
        return player((state_dir / NAME_FILE).read_text(encoding="utf-8").strip())
    except (OSError, UnicodeDecodeError, argparse.ArgumentTypeError):
        return None


def remember_name(args: argparse.Namespace) -> None:
    """Keep --name beside the identity (once it is loaded: the state directory exists),
    as the default name of this identity's next games. A bot's name is not kept, and a
    name that cannot be kept only leaves the default as it was."""
    if not args.name:
        return
    try:
        name = player(args.name)
    except argparse.ArgumentTypeError:  # (a bot a host seats: "Ada (bot)")
        return
    path = (args.state_dir or default_state_dir()) / NAME_FILE
    new = path.with_name(f".{NAME_FILE}.new")
    try:
        new.write_text(f"{name}\n", encoding="utf-8")
        new.replace(path)  # (whole, or not at all)
    except OSError:
        pass


def load_identity(args: argparse.Namespace) -> Identity:
    return load_or_create_identity(args.state_dir or default_state_dir())


def lobby_schemas() -> Schemas:
    """Everything a table's links carry: the lobby, then the game (§4–§9)."""
    from p2p.peer import table_schemas

    return table_schemas()


AS_ANNOUNCED = "as announced on the LAN, which anyone on it could fake; compare it with the host's screen"
"""How a host's fingerprint was checked when the table was found on the LAN without
--fingerprint: only against the host's own announcement (§5), not vouched for."""

NO_TERMINAL = "no terminal to play on"
CANNOT_DRAW = "this terminal (TERM=dumb) cannot draw the table"


def at_a_terminal() -> bool:
    """Whether a person can play here, full screen (`why_not_full_screen`)."""
    return why_not_full_screen() is None


def why_not_full_screen() -> str | None:
    """Why a person cannot play here full screen (`NO_TERMINAL`, `CANNOT_DRAW`), or None
    if they can. A terminal that says it cannot move its cursor (`TERM=dumb`) would show
    the screen's codes, not a table: said only of a terminal (`terminal_at_hand`), not of
    output to a file, where nobody would see the screen anyway."""
    if not terminal_at_hand():
        return NO_TERMINAL
    return CANNOT_DRAW if cannot_draw() else None


def terminal_at_hand() -> bool:
    """Whether the output is the terminal this process has in the foreground, and the
    input is that terminal too, or a pipe (as with ``printf … | bandit-lan join --code -``:
    the keys are then read from the terminal). Input from a file or /dev/null, output to a
    file, a job in the background, or none of them open: nobody is at the keyboard, or
    nobody would see the screen."""
    if sys.stdin is None or sys.stdout is None:
        return False
    try:
        return (sys.stdout.isatty() and (sys.stdin.isatty() or input_piped())
                and in_the_foreground(sys.stdout.fileno()))
    except (OSError, ValueError):  # (closed, or no terminal after all)
        return False


def cannot_draw() -> bool:
    """Whether the terminal says it cannot draw a screen (`TERM=dumb`: an editor's shell
    buffer, a plain serial line): it would show the codes that draw the table as text.
    TERM unset (`env -i`) says nothing of the kind: prompt_toolkit then draws with the
    usual escape codes and 256 colours, as for any xterm-like terminal, and the table is
    drawn, coloured, resized and played as with TERM set."""
    return os.environ.get("TERM") == "dumb"


def input_piped() -> bool:
    """Whether the standard input is a pipe (not a terminal, a file or /dev/null)."""
    try:
        return sys.stdin is not None and stat.S_ISFIFO(os.fstat(sys.stdin.fileno()).st_mode)
    except (OSError, ValueError):  # (closed, or not a real file)
        return False


def say(text: str = "", *, aside: bool = False) -> None:
    """Print `text` for the person at the terminal: on standard output, or on standard
    error if `aside` (when standard output is for a script, --json or --quiet); broken
    at words to the terminal's width (`for_the_terminal`)."""
    stream = sys.stderr if aside else sys.stdout
    tell(for_the_terminal(text, stream), stream)


def complain(text: str) -> None:
    trouble_said(text)
    tell(for_the_terminal(f"bandit-lan: {text}", sys.stderr), sys.stderr)


TERMINAL_SIZE = (80, 24)
"""The size of a terminal that does not tell its own (`shutil.get_terminal_size`)."""


def for_the_terminal(text: str, stream: TextIO | None) -> str:
    """`text` as the person at the terminal `stream` reads it: every line broken at
    words to the terminal's width (`cli.cells.wrapped`), which would otherwise break it
    mid-word ("…the other playe / rs wait"); $COLUMNS, where set, is the width. Unchanged
    where `stream` is no terminal (a file, a pipe: a script reads whole lines, and JSON,
    printed with `tell`, never goes here)."""
    try:
        at_a_terminal = stream is not None and stream.isatty()
    except (OSError, ValueError):  # (closed)
        at_a_terminal = False
    return wrapped(text, shutil.get_terminal_size(TERMINAL_SIZE).columns) if at_a_terminal else text


OR: Final = "   or   "
"""Between two commands that do the same (the host's join commands, `cli.host.join_hint`)."""


def say_to_copy(one_line: str, lines: Sequence[tuple[str, bool]], *, aside: bool = False) -> None:
    """Say `one_line`, which holds commands or paths to copy, where the terminal's width
    holds it (or where no terminal reads it: a script reads it as ever); else say it as
    `lines`, each (text, whole): a command or path goes on a line of its own, whole
    (`wrapped` never breaks it: the terminal may wrap a longer one, and what is copied
    is still the command), the words around it are broken at spaces as ever."""
    stream = sys.stderr if aside else sys.stdout
    if for_the_terminal(one_line, stream) == one_line:
        tell(one_line, stream)
        return
    for text, whole in lines:
        tell(text if whole else for_the_terminal(text, stream), stream)


def commands_to_copy(intro: str, commands: Sequence[str], after: str = "") -> list[tuple[str, bool]]:
    """`say_to_copy`'s lines for `intro` then `commands` that do the same, "or" between
    them, each on a line of its own (indented), then `after` (a note on them)."""
    lines: list[tuple[str, bool]] = [(intro, False)]
    for i, command in enumerate(commands):
        lines += [*((("or", False),) if i else ()), (f"   {command}", True)]
    return [*lines, *(((after, False),) if after else ())]


def tell(line: str, stream: TextIO) -> None:
    """Print `line` on `stream` (a terminal, a pipe such as `| head`, or one to the command
    that started this one, such as the host of a bot), as it is: `say` and `complain` break
    a person's lines at words first (`for_the_terminal`), JSON goes here whole. Where its
    reader went away (its window closed, `head` had its lines, the host killed) nobody is
    left to read it: the stream goes to nowhere from then on (`let_go`), and the command
    goes on to its own exit status. Any other failure to write (a full disk) is raised:
    what the command writes is lost, and it must say so."""
    try:
        print(line, file=stream, flush=True)
    except OSError as error:
        if error.errno not in READER_GONE:
            raise
        let_go(stream)


READER_GONE = frozenset({errno.EPIPE, errno.ECONNRESET, errno.EIO, errno.ENXIO})
"""How a write fails when nobody is left to read: a pipe or socket closed at its other
end, a terminal hung up."""


def settle(stream: TextIO | None) -> None:
    """Flush what `stream` still holds, before the process exits; where its reader went
    away, `let_go` of it (else Python fails flushing it at exit, status 120). Nothing to
    do for a stream the process was started without (None)."""
    if stream is None:
        return
    try:
        stream.flush()
    except OSError as error:
        if error.errno not in READER_GONE:
            raise
        let_go(stream)
    except ValueError:  # (closed)
        pass


def let_go(stream: TextIO | None) -> None:
    """Point `stream`'s descriptor at /dev/null: its reader went away, so that what it
    still holds, and anything printed later, does not fail again."""
    if stream is None:
        return
    try:
        point_at_nowhere([stream.fileno()])
    except (OSError, ValueError):  # (no file behind it, or closed: nothing will be flushed there)
        pass


def records_unwritable(where: object, problem: str) -> str:
    """Why a seat did not sit down: its log or journal could not be written (§10.1)."""
    return f"this game's records could not be written here ({where}: {problem}), so you did not sit down (§10.1)"


CHECK_ADDRESS = "check the address and port on the host's screen"

DIAL_WORDS = {
    "refused": "nothing answers at {where}",
    "silent": "nothing answered at {where} in time",
    "unreachable": "{where} cannot be reached from here ({detail})",
    "not-a-name": "{host} is not a host name or address",
    "dropped": "the connection to {where} ended before it was set up",
    "crowded": "the table at {where} is refusing connections for now: too many are waiting there to be set up "
               "(someone may be flooding it); try again in a moment",
    "not-a-table": "what answers at {where} is not a bandit-lan table",
    "other-protocol": "what answers at {where} is not a bandit-lan table, or is one of another bandit-lan release "
                      "(the same release is needed on both machines)",
}
"""What a player reads of each address of a table that led to no host (`DialFailure.kind`)."""


def unreachable_words(failures: tuple[DialFailure, ...], by_address: bool) -> str:
    """Why a table could not be joined, address by address; then, for a table given by
    its address (`by_address`: `--peer`, or typed on the picker), to check it."""
    said = [DIAL_WORDS.get(f.kind, "{where}: {detail}").format(where=f.address, host=f.address.rpartition(":")[0],
                                                                detail=f.detail) for f in failures]
    if not said:
        return "the table has no address to join it at"
    if by_address and any(f.kind not in ("other-protocol", "crowded") for f in failures):
        said.append(CHECK_ADDRESS)
    return "; ".join(said)


def back_at_the_table(error: JoinRefused, going_back: str, *, left: bool = False) -> str:
    """What a player reads whose join its table's host refused because they hold a seat
    in the game it started (§6.4: `in-game`, `game-over`): what to do, going back to a
    game under way with `going_back` (the command, quoted). `left`: the player has just
    left that game (to start a new one), which the table is playing, or has played."""
    detail = _SECTION.sub("", error.detail)
    if left:  # (not "full": the seat is the player's, in the game that table plays to its end)
        playing = "is playing the game you just left (it ends at your leave)" if error.code == "in-game" else (
            "played the game you just left")
        return f"the host refused: that table {playing}, and seats nobody for a new one: its host opens a new table"
    if error.code == "in-game":
        return f"the host refused: {detail}, which goes on without you: {going_back} takes your seat back"
    return f"the host refused: {detail}, and its table seats nobody new ({going_back} says how it ended for you)"


def explain(error: BaseException, by_address: bool = False, *, going_back: str | None = None,
            left: bool = False) -> str:
    """One friendly sentence for a failure to host or join; `by_address`: the table was
    given by its address, not found by name (`unreachable_words`); `going_back` and
    `left`: as for `back_at_the_table` (the command is `join --resume` if not given)."""
    if isinstance(error, TableUnreachable):
        return unreachable_words(error.failures, by_address)
    if isinstance(error, JoinRefused) and error.code in ("in-game", "game-over"):
        return back_at_the_table(error, going_back or f"`{this_program()} join --resume`", left=left)
    if isinstance(error, JoinRefused):
        hint = REFUSAL_HINTS.get(error.code, error.code)
        detail = _SECTION.sub("", error.detail)
        if error.code == "duplicate" or not detail:  # (the host's words would say the hint again)
            return f"the host refused: {hint}"
        if (advice := REFUSAL_ADVICE.get(error.code)) is not None:  # (our words first: the host's are the host's)
            return f"the host refused your name: {detail}; {advice}"
        return f"the host refused: {hint} ({detail})"
    if isinstance(error, HostGone):  # (a table found by name may be listed again, under another address)
        return error.reason if by_address else f"{error.reason} (look again with `{this_program()} tables`)"
    if isinstance(error, TableClosed):  # (plain words: no section, no peer id)
        return error.reason
    if isinstance(error, FingerprintMismatch):
        return (f"fingerprint mismatch: expected {error.expected}, but the peer presented {error.presented or 'none'}. "
                "This is not the table you meant (or its host changed identity); nothing was sent.")
    if isinstance(error, ProtocolError):
        return str(error)
    if isinstance(error, IdentityError):
        return str(error)
    if isinstance(error, CannotListen):
        return str(error)
    if isinstance(error, OSError) and error.filename is not None:  # (a file of this seat's, not the network)
        return records_unwritable(error.filename, error.strerror or str(error))
    if isinstance(error, ConnectionRefusedError):
        return "connection refused: nobody is hosting at that address"
    if isinstance(error, OSError):
        return f"network error: {error.strerror or error}"
    return str(error) or type(error).__name__


def roster_lines(roster: Roster, me: bytes, reconnecting: frozenset[bytes] = frozenset()) -> list[str]:
    width = max(text_width(m.name) for m in roster.members)  # (terminal cells: a wide character takes two)
    lines = []
    for m in roster.members:
        tags = [t for t, on in (("host", m.seat == 0), ("you", m.peer_id == me),
                                ("reconnecting…", m.peer_id in reconnecting)) if on]
        lines.append(f"  seat {m.seat + 1}  {ljust(m.name, width)}  {m.cert.short}  {' '.join(tags)}".rstrip())
    return lines


class LobbyNews:
    """What a lobby screen tells of each change (`after`), as (sentence, kind "info" or
    "warning"): who left and why, whose link dropped and is being made again (§6.6), who
    is back. It remembers the change before, which the last two are told against."""

    def __init__(self) -> None:
        self.last: RosterChanged | None = None

    def after(self, change: RosterChanged) -> list[tuple[str, str]]:
        was = self.last.reconnecting if self.last is not None else frozenset()
        self.last = change
        told = [(left.sentence(), "warning") for left in change.left]
        for member in change.roster.members:
            if member.peer_id in change.reconnecting and member.peer_id not in was:
                told.append((f"The connection to {member.name} dropped; reconnecting…", "warning"))
            elif member.peer_id in was and member.peer_id not in change.reconnecting:
                told.append((f"Reconnected to {member.name}.", "info"))
        return told


def roster_progress(me: bytes) -> Callable[[RosterChanged], None]:
    """Prints each change of the lobby (headless): its news, then the roster if it changed."""
    news = LobbyNews()

    def show(change: RosterChanged) -> None:
        before = news.last
        for sentence, _kind in news.after(change):
            say(sentence)
        roster = change.roster
        if before is not None and before.roster == roster:
            return  # (only who is reconnecting changed)
        say(f"{len(roster.members)} of {roster.seats} seats taken:")
        for line in roster_lines(roster, me, change.reconnecting):
            say(line)

    return show


@dataclass(frozen=True)
class JoinHint:
    """How others join a host's table now (`command`), and the news of why it changed:
    a `warning` while another table on the LAN has its name (joining by that name alone
    fails), else the line that takes that warning back."""

    command: str
    news: str
    warning: bool


SIGNING_NOW = "Starting: every player signs the seating…"

LOBBY_CHECK = "only checking the lobby: --lobby-only"
"""Why a `--lobby-only` peer goes once seated, as the others read it ("carl left before
the game began (only checking the lobby: --lobby-only)")."""


def then_shown(on_signing: SigningCallback | None, show: Callable[[], None]) -> SigningCallback:
    """`on_signing` (the seat's journal, §11.3), then `show` that the seating is being
    signed (§6.6): the start was made, so a screen stops offering it or waiting for players."""

    def signing(seen: Signing) -> None:
        if on_signing is not None:
            on_signing(seen)  # (first: if the journal cannot be written, the seat does not sign)
        show()

    return signing


def print_result(result: LobbyResult, me: bytes) -> None:
    roster = result.roster
    say(f'Game ready at table "{roster.table}": {len(roster.members)} players, every roster signature checked.')
    rules = roster.rules
    say(f"Rules: game to {rules.target}, turn timer {rules.turn_s} s, a player whose link is lost is waited for "
        f"{rules.grace_s} s.")
    for line in roster_lines(roster, me):
        say(line)
    say(f"game id {result.game_id.hex()}")
