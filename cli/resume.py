"""`host --resume` / `join --resume`: continue a game after this peer was killed (§11.3).

The seat's journal (in the state directory) says which game, where its log is, which
port it listened on and where the others are; the log's header holds the signed roster.
The peer listens on its old port again (the others keep dialling it), dials the seats
it dials by the §6.5 rule, replays its log and goes on playing. If another program
holds the old port now, it listens on another and dials every seat itself.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import math
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Literal

from cli.argtypes import new_table_options
from cli.commands import shell_word, this_program
from cli.game import (
    REJOIN_WAIT, bot_logs_beside, host_trusted_on_first_use, log_folder, log_name, play_seat,
    refused_without_a_terminal, seat_for_a_person, to_you, trusted_on_first_use,
)
from cli.lobby_common import (
    complain, for_the_terminal, input_piped, load_identity, lobby_schemas, say, why_not_full_screen,
)
from cli.listening import CannotListen, cannot_listen_words, listening, port_taken_words
from p2p.session import yours
from cli.stopping import INTERRUPTED, run_until_stopped
from cli.ttymode import ready_to_ask
from p2p.appendfile import FileInUse
from p2p.identity import KEY_FILE, Identity, IdentityError, default_state_dir
from p2p.errors import NotReached, ProtocolError, printable
from p2p.journal import (
    STILL_PLAYED, Journal, JournalContents, JournalError, SeatJournal, journal_age, read_journal, unfinished_journals,
)
from p2p.lobby import LobbyResult, fail_message
from p2p.lobby_runner import members_linked, sign_again
from p2p.log import FairnessLog, LogContents, LogError, read_log
from p2p.names import reads_as_a_bot
from p2p.peer import GameSummary, Resumption
from engine.narrate import listed
from p2p.session import YOU_LEFT, ended_cut_after_stop, ended_unanswered_after_stop, left_the_table, unanswered_named
from p2p.wire import decode_map
from p2p.rejoin import ResumeError
from p2p.roster import game_id_of, parse_canonical
from p2p.transport import Mesh, open_mesh


def find_journal(state_dir: Path, log: Path | None, *, local: bool = False) -> Path | None:
    """The journal of the unfinished game to resume: the one writing `log`, else the
    newest; `local`: only a game whose other seats were all on this machine."""
    for path in unfinished_journals(state_dir):
        try:
            contents = read_journal(path)
        except JournalError:
            continue
        if contents.restarted():
            continue
        if (log is None or contents.log.resolve() == log.resolve()) and (not local or _on_this_machine(contents)):
            return path
    return None


def why_none_resumable(state_dir: Path, log: Path | None) -> str | None:
    """Why the unfinished game (writing `log`, else the newest) cannot be resumed, if
    one is there: its seat still plays in another process, or the machine restarted."""
    for path in unfinished_journals(state_dir, held=True):
        try:
            contents = read_journal(path)
        except JournalError:
            continue
        if log is None or contents.log.resolve() == log.resolve():
            return contents.why_not_resumable(path)
    return None


@dataclass(frozen=True)
class WaitingGame:
    """An unfinished game this seat stopped in so recently that the others still wait."""

    journal: Path
    contents: JournalContents
    age: float  # seconds since the seat's journal last marked it alive (every 2 s while it plays)
    over: str | None = None  # a game of `play` whose bots left it meanwhile: how it ended for them

    def words(self, local: bool) -> str:
        others = "its bots" if local else "the other players"
        if not self.contents.began():  # (stopped as the seating was signed: nobody may be waiting, §11.3)
            return (f"your last game stopped as it was about to begin, {_ago(self.age)} ago: {others} may have begun "
                    f"it without you, and then wait for you up to {_ago(self.contents.grace)}")
        how = "" if self.contents.away is None else f" when {yours(self.contents.away)}"  # (a hang-up, §11.3)
        return (f"your last game stopped {_ago(self.age)} ago{how} and {others} wait for you "
                f"{_ago(math.ceil(max(0.0, self.contents.grace - self.age)))} more")


def waiting_game(state_dir: Path, *, local: bool, now: float | None = None) -> WaitingGame | None:
    """The newest unfinished game of `state_dir` that stopped less than its grace period
    ago (§11.3: the others wait that long for a seat whose link is lost; the journal
    says how long this seat's table waits); `local`: only a game whose other seats are
    all on this machine (one `play` started)."""
    now = time.time() if now is None else now
    for path in unfinished_journals(state_dir):  # (newest first)
        try:
            age = journal_age(path, now)
            contents = read_journal(path)
        except (OSError, JournalError):
            continue
        if age >= contents.grace or (local and not _on_this_machine(contents)) or contents.restarted():
            continue
        return WaitingGame(path, contents, age, bots_gone(contents) if local else None)
    return None


def stopped_long_ago(args: argparse.Namespace, command: str, now: float | None = None) -> str | None:
    """The newest unfinished game of this player's, if it stopped longer ago than its
    table waits for a player away (§11.3): nobody offers it (`waiting_game`), and a
    `join` that finds no table there now says nothing of it. What to tell the player, or
    None (no such game, or one its table still waits for)."""
    now = time.time() if now is None else now
    for path in unfinished_journals(args.state_dir or default_state_dir()):  # (newest first)
        try:
            age = journal_age(path, now)
            contents = read_journal(path)
        except (OSError, JournalError):
            continue
        if age < contents.grace or contents.restarted():  # (offered before; or not to be taken back)
            return None
        try:  # (R as it signed it; none in a journal written as its game began, an older kind)
            at = f", at table {parse_canonical(contents.roster).table!r}," if contents.roster else ""
        except ProtocolError:
            at = ""
        return (f"your last game{at} stopped {_ago(age)} ago, longer than its table waits for a player away "
                f"({_ago(contents.grace)}): {resume_command(args, command)} tells what became of it")
    return None


def bots_gone(contents: JournalContents) -> str | None:
    """How the game of a `play` ended for its bots, if it did: each bot keeps its log
    beside this seat's (`<game>-seat<N>.bandit-log`) and closes it when its game ends (at
    a leave, §9.8, or once the grace period for a seat away is over, §11.3), so a seat
    that goes back to it would only wait out the grace period. None while every bot's
    log is open."""
    for seat in range(len(contents.addresses)):
        path = contents.log.with_name(log_name(contents.game, seat))
        if seat == contents.seat or not path.exists():
            continue
        try:
            log = read_log(path)
        except (LogError, OSError):
            continue
        try:
            members = parse_canonical(log.header.roster).members
            name, player = members[log.header.seat].name, members[contents.seat].name
        except (ProtocolError, IndexError):
            name, player, members = f"seat {seat + 1}", None, ()
        if log.ended in (YOU_LEFT, left_the_table(name)):  # (YOU_LEFT: its own screen's words, in older logs)
            return left_the_table(name) + (f" ({log.left})" if log.left else "")
        if log.ended is not None:  # (said to the player: "you were away …", not their name)
            return log.ended if player is None else to_you(log.ended, player, [m.name for m in members])
    return None


def bot_logs(summary: GameSummary) -> list[Path] | None:
    """The logs of a `play` or `host --bots` game taken back, this seat's and its bots'
    (`bot_logs_beside`), so they can be checked together; None if it seated no bots."""
    bots = bot_logs_beside(summary.log_path, summary.game_id, summary.names)
    return [summary.log_path, *bots] if bots else None


Choice = Literal["back", "leave", "new"]


@contextlib.contextmanager
def _the_terminal() -> Iterator[tuple[IO[str], IO[str]]]:
    """(keys, out): the person's terminal, even when the standard input is a pipe (a
    table code came that way, `join --code -`: then /dev/tty); put in line mode on its
    own screen (`ready_to_ask`). OSError: no terminal after all."""
    if not input_piped():
        ready_to_ask(sys.stdin, sys.stdout)
        yield sys.stdin, sys.stdout
        return
    with open("/dev/tty", "w", encoding="utf-8") as out, open("/dev/tty", encoding="utf-8", errors="replace") as keys:
        ready_to_ask(keys, out)
        yield keys, out


def ready_the_terminal() -> None:
    """Before a person is told something and asked about it: the terminal they answer at
    in line mode, on its own screen (a full-screen client killed in it left its screen up:
    what is said first would be lost with it, `ready_to_ask`)."""
    with contextlib.suppress(OSError), _the_terminal():  # (no terminal after all: nothing to put back)
        pass


def ask_at_the_terminal(prompt: str) -> str:
    """`input`, at the terminal even when the standard input is a pipe (`_the_terminal`);
    the prompt broken at words to its width, as every line said there (`for_the_terminal`)."""
    try:
        with _the_terminal() as (keys, out):
            prompt = for_the_terminal(prompt, out)
            if keys is sys.stdin:
                return input(prompt)
            out.write(prompt)
            out.flush()
            line = keys.readline()
    except OSError:  # (no terminal after all: as if nobody answered)
        raise EOFError from None
    if not line:
        raise EOFError
    return line.rstrip("\n")


def offer_resume(args: argparse.Namespace, state_dir: Path, command: str, *, person: bool, local: bool = False,
                 ask: Callable[[str], str] = ask_at_the_terminal) -> Choice | None:
    """Before a new game: if this seat's last game still waits for it, say so. A person
    is asked whether to go back to it ("back") or to leave it, so that the others need
    not wait, before the new game ("leave"); anyone else is told the command that goes
    back, and the new game starts ("new", as when nothing waits). None: no answer (Ctrl-D;
    Ctrl-C goes on as `KeyboardInterrupt`), which says that nothing was done."""
    waiting = waiting_game(state_dir, local=local)
    if waiting is None:
        return "new"
    if waiting.over is not None:
        say(f"Your last game ended while you were away ({waiting.over}); starting a new one.")
        return "new"
    words = waiting.words(local)
    going_back = f"{resume_command(args, command)} goes back to it"
    if not person:
        complain(f"{words}: {going_back}; starting a new game")
        return "new"
    ready_the_terminal()
    say(f"{words[0].upper()}{words[1:]}.")
    while True:
        try:
            answer = ask("Go back to it? (n: leave it, then start a new one) [Y/n] ").strip().lower()
        except (EOFError, KeyboardInterrupt) as exc:  # (Ctrl-D, Ctrl-C: no answer, so nothing is done)
            say()
            say(f"No answer: no new game was started, and that game still waits for you ({going_back}).")
            if isinstance(exc, KeyboardInterrupt):
                raise
            return None
        if answer in ("", "y", "yes"):
            return "back"
        if answer in ("n", "no"):
            return "leave"


def resume_command(args: argparse.Namespace, command: str) -> str:
    """`command --resume` as this player types it (with their --state-dir), quoted."""
    same_dir = "" if args.state_dir is None else f" --state-dir {shell_word(str(args.state_dir))}"
    return f"`{this_program()} {command} --resume{same_dir}`"


def offer_resume_first(args: argparse.Namespace, command: str,
                       resume: Callable[[argparse.Namespace], int] | None = None) -> int | None:
    """If this seat's last game still waits for it, offer it first (a person is asked);
    the exit status of the command when it ends here (`resume`: how it goes back, by
    default as `--resume` does), None when a new game starts."""
    from cli.host import is_person

    if getattr(args, "bot", False) or getattr(args, "lobby_only", False):
        return None  # (a bot a player started: that player's command decides)
    choice = offer_resume(args, args.state_dir or default_state_dir(), command,
                          person=is_person(args) and not args.json, local=command == "play")
    if choice is None:
        return 1
    if choice == "back":  # (the options of the new game were not typed to go back: `refuse_new_table`)
        return (resume or run_resume)(argparse.Namespace(**{**vars(args), "resume": True, "new_table_typed": ()}))
    if choice == "leave":
        heard: list[signal.Signals] = []
        args.left_its_game = True  # (a table that refuses the new game's join is the one it left: `back_at_the_table`)
        leave_waiting_game(args, heard)
        if heard:  # (told to stop while leaving: that is no wish for a new game)
            say("No new game was started.")
            return INTERRUPTED
    return None


CHOSE_NOT_TO_GO_BACK = "they chose not to go back to it"
"""The reason of the leave of a player who chose a new game over the one that waited for
them (§9.8), as the others read it after their name ("Bo left the table (…)"): whether
the new game begins is not known as they leave."""


def leave_waiting_game(args: argparse.Namespace, heard: list[signal.Signals] | None = None) -> int:
    """The player starts a new game instead: take the old seat back only to leave it
    (§9.8), so that its other seats end that game now, every log closed at the leave,
    rather than wait out the grace period for a player who is not coming. `heard`: the
    stop signals that came meanwhile. A leave that fails (its game over meanwhile)
    does not keep the new game from starting: the old one is not waiting then."""
    say("Leaving that game, so that nobody waits for you…")
    return run_resume(argparse.Namespace(**{
        **vars(args), "resume": True, "headless": True, "quiet": True, "json": False, "log": None,
        "bind": getattr(args, "bind", "127.0.0.1"),  # (`play`: on this machine)
        "leave_first": CHOSE_NOT_TO_GO_BACK,
    }), heard=heard)


@dataclass(frozen=True)
class OwnLeave:
    """This seat's last game, ended by its own leave (§9.8): what its log says of it."""

    table: str
    when: float  # when its log was closed (the file's last change), on the wall clock
    reason: str  # the leave's reason, as the others read it after this player's name
    log: Path
    ended_by_it: bool = True  # the others' game ended with this leave (else they had ended it already, §11.3)
    # (else: the seats that did not answer after this seat's stop, "Bo and Cy", and whether it reached any other)
    unanswered: str = "the others"
    reached_some: bool = False
    cut: str | None = None  # (else: every other seat answered, but what they could not reach: "Bo could not reach Cy …")
    # the table had not delivered the leave when this seat's log closed (a seat was away, §9.8): the others'
    # game goes on until it does, or until their grace period (`grace`, seconds) runs out
    undelivered: bool = False
    grace: float = 0.0

    def words(self, now: float | None = None) -> str:
        """Why there is nothing to go back to, to the player who left."""
        now = time.time() if now is None else now
        at = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.when))
        when = f"at {at} ({_ago(max(0.0, now - self.when))} ago)"
        if self.cut is not None:
            return (f"your last game, at table {self.table!r}, ended {when}: {yours(self.reason)}; every other "
                    f"seat answered after it, but {self.cut}, so you left the table and the others ended the game "
                    f"for that lost link; there is no game to go back to (its log: {self.log})")
        if not self.ended_by_it:
            how = (f"{self.unanswered} did not answer after it, so {self.unanswered} likely ended the game"
                   if self.reached_some else
                   f"no other seat answered after it, so {self.unanswered} ended the game")
            return (f"your last game, at table {self.table!r}, ended {when}: {yours(self.reason)}, and {how}, "
                    f"naming you away; there is no game to go back to (its log: {self.log})")
        return (f"you left your last game, at table {self.table!r}, {when}, "
                f"because {yours(self.reason)}; the game ended for the others then too, so there is no game to "
                f"go back to (its log: {self.log})")

    def goes_on(self, now: float | None = None) -> str | None:
        """What to tell the player who starts a new game while the others may still play
        this one (its leave not yet delivered when the log closed, within their grace
        period of it, §9.8), or None when it is over for them too."""
        now = time.time() if now is None else now
        if not (self.ended_by_it and self.undelivered and now < self.when + self.grace):
            return None
        at = time.strftime("%H:%M", time.localtime(self.when))
        return (f"your last game, at table {self.table!r}, may still go on without you: you left it at {at} "
                f"({_ago(max(0.0, now - self.when))} ago) because {yours(self.reason)}, before the table took your "
                f"leave, and the others end it at that leave or within {_ago(self.grace)} of it; you cannot take "
                f"that seat back, since you left it")


def own_leave(state_dir: Path, log: Path | None, log_dir: Path | None, peer: bytes) -> OwnLeave | None:
    """Whether this seat's last game ended by its own leave: its newest log (or `log`)
    in the log folder, closed as its player left (`left_the_table`), or as it left
    back from a stop that outlasted the others' wait for it (§9.6)."""
    if log is not None:
        paths = [log]
    else:
        try:
            paths = sorted(log_folder(state_dir, log_dir).glob("*.bandit-log"), key=lambda p: p.stat().st_mtime,
                           reverse=True)
        except OSError:
            return None
    for path in paths:
        try:
            contents = read_log(path)
            roster = parse_canonical(contents.header.roster)
            member = roster.members[contents.header.seat]
            closed = path.stat().st_mtime
        except (LogError, ProtocolError, IndexError, OSError):
            continue
        if member.peer_id != peer:
            continue  # (another identity's log in the same folder: a bot's, beside `play`)
        ended_by_it = contents.ended == left_the_table(member.name)
        cut = ended_cut_after_stop(member.name, contents.ended or "")
        if not ended_by_it and cut is None and not ended_unanswered_after_stop(member.name, contents.ended or ""):
            return None  # (the last game ended otherwise)
        reason = contents.left or _leave_reason(contents, peer)
        if reason is None:
            return None
        if ended_by_it:
            return OwnLeave(roster.table, closed, reason, path, undelivered=contents.left is not None,
                            grace=float(roster.rules.grace_s))
        if cut is not None:  # (said to the player: "Bo could not reach you", not their name)
            names = [m.name for m in roster.members]
            return OwnLeave(roster.table, closed, reason, path, False, cut=to_you(cut, member.name, names))
        unanswered = unanswered_named(member.name, contents.ended or "")
        others = listed([m.name for m in roster.members if m.seat != member.seat])
        return OwnLeave(roster.table, closed, reason, path, False, unanswered or others, unanswered is not None)
    return None


def say_if_last_game_goes_on(args: argparse.Namespace, me: bytes, then: str) -> None:
    """Before a new game (`play`, `host`, `join`): if this player left their last game and
    the others may still play it (§9.8), say so (`OwnLeave.goes_on`), then what the
    command does (`then`: "joining anew"). A bot a host seats (named as one) says
    nothing: its host's command speaks for it."""
    if args.name and reads_as_a_bot(args.name):
        return
    left = own_leave(args.state_dir or default_state_dir(), None, getattr(args, "log_dir", None), me)
    if left is not None and (goes_on := left.goes_on()) is not None:
        complain(f"{goes_on}; {then}.")


def _leave_reason(contents: LogContents, peer: bytes) -> str | None:
    """The reason of the `leave` of `peer` the log holds as delivered (§9.8), if any."""
    for body, _ in reversed(contents.messages):
        try:
            inner = decode_map(body)
        except ProtocolError:
            continue
        if inner.get("type") == "leave" and inner.get("from") == peer and isinstance(inner.get("reason"), str):
            return printable(inner["reason"])
    return None


def _ago(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min" + (f" {whole % 60} s" if whole % 60 else "")


def _on_this_machine(contents: JournalContents) -> bool:
    """Whether every other seat of the journal's game was on this machine (`play`)."""
    return all(a is None or _loopback(a[0]) for a in contents.addresses)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def resume_teller(args: argparse.Namespace, on_screen: bool, told: list[str],
                  warned: list[str]) -> Callable[..., None]:
    """How `resume_seat` says what it found, `tell(text, warning=False)`: for a person's
    screen (`on_screen`), into `told` (and a warning into `warned` too: the table shows
    those); else printed, but with --quiet or --json only a warning (it stopped long ago,
    its port is taken), on standard error, so that it reaches the player without
    touching the result on standard output."""

    def tell(text: str, *, warning: bool = False) -> None:
        if on_screen:
            told.append(text)
            if warning:  # (shown on the table too: the sign-again screen shows all)
                warned.append(text)
        elif not (args.quiet or args.json):
            say(text)
        elif warning:
            say(text, aside=True)

    return tell


async def resume_seat(args: argparse.Namespace, identity: Identity, terminal: object | None = None,
                      on_leaving: list[str] | None = None) -> int | str | GameSummary:
    """Take this seat's unfinished game back and play it (on `terminal`, for a person):
    an exit status, the game's summary, or what to tell a person who gave the seat up
    before the game began. `on_leaving` gets what to tell the person again once the
    screen has closed (the host's fingerprint, for a seat that joined by address)."""
    state_dir = args.state_dir or default_state_dir()
    # Listening on loopback only, a seat is out of reach of players on other machines.
    local = _loopback(args.bind)
    path = find_journal(state_dir, args.log, local=local)
    if path is None:
        complain(nothing_to_resume(args, identity.peer_id) or "no unfinished game to resume")
        return 1
    try:
        age = journal_age(path)
        journal, jc = Journal.reopen(path)  # (first: it holds the seat, so nobody else writes its log)
    except FileInUse:
        complain(f"cannot resume: {STILL_PLAYED}")
        return 1
    except (JournalError, OSError) as exc:
        complain(f"cannot resume: {getattr(exc, 'reason', exc)}")
        return 1
    if getattr(args, "command", None) == "play" and (over := bots_gone(jc)) is not None:  # (its bots' logs, §11.3)
        journal.release()
        complain(f"cannot resume: that game ended for its bots while you were away ({over})")
        return 1
    began = jc.began()
    if began:
        try:
            log, contents = FairnessLog.reopen(jc.log, identity)
        except (LogError, OSError) as exc:
            journal.release()
            complain(f"cannot resume: {getattr(exc, 'reason', exc)}")
            return 1
        canonical, signatures = contents.header.roster, contents.header.signatures
    else:
        canonical, signatures = jc.roster, ()
    try:
        roster = parse_canonical(canonical)
        mine = roster.members[jc.seat].peer_id == identity.peer_id
    except (ProtocolError, IndexError) as exc:  # (a journal changed since: its R no longer reads)
        journal.release()
        complain(f"cannot resume: the seating this seat signed does not read ({getattr(exc, 'reason', exc)})")
        return 1
    if not mine:
        journal.release()
        complain("cannot resume: that game was played with another identity (use the same --state-dir)")
        return 1
    if jc.roster and canonical != jc.roster:
        journal.release()
        complain("cannot resume: the log and the journal are of two different games")
        return 1
    told: list[str] = []  # (a person's screen is up already: it shows these)
    warned: list[str] = []
    tell = resume_teller(args, terminal is not None, told, warned)
    me = f"{roster.members[jc.seat].name} (seat {jc.seat + 1})"
    if jc.away is not None:  # (a hang-up: the seat went away meaning to come back, §11.3)
        tell(f"Your seat went away {_ago(age)} ago, when {yours(jc.away)}: taking it back.", warning=True)
    if began:
        tell(f"Resuming game {game_id_of(canonical)[:6].hex()} as {me} from {jc.log} ...")
    else:
        tell(f"Taking your seat back at game {game_id_of(canonical)[:6].hex()} as {me}: this program stopped "
             "as the players were signing the seating, before the game began ...")
    if age >= jc.grace:  # (the journal's age is that of its last mark of life: it tries)
        tell(f"It stopped {_ago(age)} ago, and the table waits for a player away only {_ago(jc.grace)}: "
             "the others have likely ended it. Trying anyway.", warning=True)
    note = None  # (the table log's first line, as when the seat joined)
    if jc.first_use:  # (joined by address: the host's fingerprint, to compare with the host's screen)
        if terminal is None:
            tell(host_trusted_on_first_use(roster.members[0].cert))
        else:
            note = trusted_on_first_use(roster.members[0])
            if on_leaving is not None:
                on_leaving.append(note)
    async with AsyncExitStack() as stack:
        try:
            try:
                mesh = await stack.enter_async_context(open_mesh(identity, lobby_schemas(), bind=args.bind,
                                                                 port=jc.port))
                unreachable = False
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise CannotListen(cannot_listen_words(exc, args.bind, jc.port)) from exc
                # Another program took the port since: the others' dials cannot reach us there,
                # so we listen anywhere and dial every seat ourselves (§11.3).
                mesh = await stack.enter_async_context(listening(open_mesh(identity, lobby_schemas(), bind=args.bind,
                                                                           port=0), args.bind, 0))
                unreachable = True
                taken = port_taken_words(args.bind, jc.port)
                tell(f"{taken[0].upper()}{taken[1:]} now, the port this seat listened at: it listens at {mesh.port} "
                     "instead, and dials every seat, as the others cannot reach it at its old port (§11.3).",
                     warning=True)
        except CannotListen as exc:
            journal.release()
            complain(f"cannot resume: {exc}")
            return 1
        mesh.set_table(roster.table_nonce)
        for member, address in zip(roster.members, jc.addresses):
            if member.seat != jc.seat:
                mesh.expect(member.cert, address, dial=not began and address is not None)
        if not began:
            return await _sign_again_and_play(mesh, journal, jc, identity, args, terminal, unreachable, told, note)
        result = LobbyResult(game_id_of(canonical), roster, canonical, signatures, jc.seat)
        try:
            seated_bots = getattr(args, "command", None) in ("play", "host")  # (their bots' logs lie beside theirs)
            beside = bot_logs_beside(jc.log, result.game_id, [m.name for m in roster.members]) if seated_bots else []
            return await play_seat(mesh, result, identity, args, jc.log, terminal=terminal,
                                   resume=Resumption(log, contents, journal, jc, unreachable, tuple(warned), stopped=age),
                                   note=note, beside=beside)
        except ResumeError as exc:  # its log and journal do not replay (changed, or of two games): nothing written
            journal.release()
            complain(f"cannot resume: {exc}")
            return 1


async def _sign_again_and_play(mesh: Mesh, journal: Journal, jc: JournalContents, identity: Identity,
                               args: argparse.Namespace, terminal: object | None, unreachable: bool,
                               told: list[str], note: str | None = None) -> int | str | GameSummary:
    """A seat stopped while the roster was being signed (§11.3): gather every member's
    signature again (`sign_again`), then play the game from its start, with the journal
    written as the seat signed. If the game cannot begin (a member left, or said the
    start failed), it never will: the journal goes. If a member cannot be reached, it may
    only be away: the journal stays, and a later `--resume` may try again. A person sees
    `told` meanwhile, and may give the seat up (what to tell them then, once the screen
    is closed); `note` is the game's table log's first line."""
    leave_first: str | None = getattr(args, "leave_first", None)
    if leave_first is not None:
        return await _leave_unbegun(mesh, journal, jc, leave_first)
    gather = partial(sign_again, mesh, jc.roster, dials_all=unreachable)
    try:
        if terminal is None:
            result = await gather()
        else:
            from cli.tui import sign_again_screen

            taken = await sign_again_screen(terminal, told, gather)  # type: ignore[arg-type]
            if taken is None:  # (its screen says it tells the others meanwhile)
                await _leave_unbegun(mesh, journal, jc, "they gave up their seat")
                return "You gave up your seat before the game began; the other players were told."
            result = taken
    except NotReached as exc:
        journal.release()
        # No goodbye: to those it reached, this seat is one whose link was lost, which they
        # wait for within their grace period (a goodbye from a seat that never sat down
        # would end their game, §11.3, and the journal kept for a later try with it).
        await mesh.aclose("could not reach every seat", away=True)
        complain(f"cannot take your seat back now: {exc.reason}. The others may have ended the game, or it never "
                 "began; while they would still wait for you, --resume can try again.")
        return 1
    except BaseException as exc:
        _forget_unbegun(journal, jc)
        if isinstance(exc, ProtocolError):
            complain(f"cannot take your seat back: the game cannot begin for you ({exc})")
            return 1
        raise
    jc.forget_unmade_log()  # (made, and stopped before its header: made again now)
    return await play_seat(mesh, result, identity, args, jc.log, terminal=terminal,
                           seated=SeatJournal(journal, jc.seed, dials_all=unreachable), note=note)


def _forget_unbegun(journal: Journal, jc: JournalContents) -> None:
    """The game will never begin for this seat: its journal goes, and a log made but
    never written (`unmade_log`) with it."""
    journal.abandon()
    jc.forget_unmade_log()


async def _leave_unbegun(mesh: Mesh, journal: Journal, jc: JournalContents, reason: str) -> int:
    """Leave a seat whose game never began here (its process stopped as the roster was
    being signed), its player starting a new game instead, or giving the seat up while
    it signed again: nothing is played to leave it.
    Once its links are up (or after `REJOIN_WAIT`) it tells every member that it left
    before the game began: a member still signing reads its ``lobby.fail`` (§6.6), a
    game that waits for its keys its goodbye (§11.3), and each ends at once. Leaving by
    the order instead (`leave`, §9.8) let a peer that ended at it say goodbye to another
    that had not yet delivered it, and be blamed there as the one that left."""
    await members_linked(mesh, mesh.peers(), REJOIN_WAIT)
    name = parse_canonical(jc.roster).members[jc.seat].name
    mesh.broadcast(fail_message(game_id_of(jc.roster), f"{name} left before the game began ({reason})"))
    _forget_unbegun(journal, jc)
    await mesh.aclose(reason)
    return 0


def nothing_to_resume(args: argparse.Namespace, peer: bytes | None) -> str | None:
    """Why `--resume` finds no game to take back (what to tell the player), or None if it
    finds one; `peer`: this player's id, to say a game they left is over (None: not known)."""
    state_dir = args.state_dir or default_state_dir()
    local = _loopback(args.bind)  # (listening on loopback only: out of reach of other machines' players)
    if find_journal(state_dir, args.log, local=local) is not None:
        return None
    which = f"writing {args.log}" if args.log else "in " + str(state_dir)
    if (why := why_none_resumable(state_dir, args.log)) is not None:
        return f"cannot resume the unfinished game {which}: {why}"
    if local and find_journal(state_dir, args.log) is not None:
        return (f"the unfinished game {which} was played with other machines, which cannot reach "
                f"{args.bind}: resume it with `{this_program()} join --resume` (or host)")
    if peer is not None and (left := own_leave(state_dir, args.log, getattr(args, "log_dir", None), peer)) is not None:
        return f"no unfinished game to resume {which}: {left.words()}"
    return f"no unfinished game to resume {which} (a game that ended needs no resuming)"


def resume_refused_without_a_terminal(args: argparse.Namespace, command: str) -> int | None:
    """`host --resume` and `join --resume` of a person without a terminal: 1, saying so,
    if there is no game to take back (rather than send them to a terminal to be told
    so); else 2 if `refused_without_a_terminal` refuses; else None."""
    if why_not_full_screen() is None or not seat_for_a_person(args):
        return None
    state_dir = args.state_dir or default_state_dir()
    try:  # (no identity yet: no game either; none is made here)
        peer = load_identity(args).peer_id if (state_dir / KEY_FILE).exists() else None
    except IdentityError:
        peer = None
    if (nothing := nothing_to_resume(args, peer)) is not None:
        complain(nothing)
        return 1
    state = "" if args.state_dir is None else f" --state-dir {shell_word(str(args.state_dir))}"  # (where the game is)
    return 2 if refused_without_a_terminal(args, f"{command} --resume{state}") else None


def refuse_new_table(args: argparse.Namespace) -> int | None:
    """2, saying why, if a typed `--resume` came with options of a new table (its rules,
    its seats: `NewTableOption`), which a game taken back does not use."""
    given = new_table_options(args)
    if getattr(args, "command", None) == "join" and getattr(args, "table", None):  # (a positional: named so)
        given.insert(0, "TABLE")
    if given:
        complain(f"--resume takes a game back as its seating was signed (its rules, its seats): "
                 f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} for a new table")
        return 2
    return None


def run_resume(args: argparse.Namespace, *, heard: list[signal.Signals] | None = None) -> int:
    """The whole `--resume` command: identity, the screen for a person, the game, the
    report; `heard` as for `run_until_stopped`."""
    from cli.game import bot_without_a_terminal, report
    from cli.host import is_person
    from cli.folders import USAGE_ERROR, state_unwritable
    from cli.lobby_common import load_identity
    from p2p.identity import IdentityError

    bot_without_a_terminal(args)
    if state_unwritable(args):
        return USAGE_ERROR
    try:
        identity = load_identity(args)
    except IdentityError as exc:
        complain(str(exc))
        return 1

    async def main() -> int:
        on_leaving: list[str] = []
        async with AsyncExitStack() as stack:
            terminal = None
            if is_person(args):
                from cli.tui import open_terminal

                terminal = await stack.enter_async_context(open_terminal())
            outcome = await resume_seat(args, identity, terminal, on_leaving)
        # (said once the screen is closed, as a person's leaving before a game began is, `join`)
        if isinstance(outcome, GameSummary):
            for text in on_leaving:
                say(text)
        if isinstance(outcome, str):
            say(outcome)
            return 0
        if isinstance(outcome, int):
            return outcome
        seated_bots = getattr(args, "command", None) in ("play", "host")  # (their bots' logs lie beside theirs)
        return report(outcome, args, bot_logs(outcome) if seated_bots else None)

    return run_until_stopped(main, heard=heard)
