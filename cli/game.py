"""Playing the game after the lobby: what `play`, `host` and `join` share.

A seat is played headless by a bot (progress and standings printed, `--json` for
scripts) or by you in the terminal client. Either way the same `TablePeer` runs the
table and writes the fairness log.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import trio

from cli.argtypes import integer
from cli.cells import ljust, text_width
from cli.commands import audit_command, logs_together, shell_word, this_program
from cli.folders import folder_problem
from cli.lobby_common import CANNOT_DRAW, complain, records_unwritable, say, say_to_copy, tell, why_not_full_screen
from cli.result_line import outcome, result_told
from cli.stopping import INTERRUPTED, LEAVE_WITHIN, leaving_on_stop
from engine import NormalBot
from engine.narrate import cut_short, game_won
from p2p.identity import Certificate, Identity, default_state_dir
from p2p.journal import SeatJournal, forget_stale_journals, open_seat_journal
from p2p.lobby import LobbyResult, Signing
from p2p.names import reads_as_a_bot
from p2p.peer import FULL_SPEED, HUMAN_PACE, GameSummary, Pace, Resumption, TablePeer
from p2p.roster import Member
from p2p.session import Line, round_cut_short, yours
from p2p.transport import Mesh


EXIT_STATUS = ("exit status: 0 when the game ended where every seat's log ends (played out, or left on purpose by "
               "anyone); 1 when a fault stopped it (broken rules, a player away longer than the grace period, this "
               "seat's log or journal failing) or it could not start; 2 for a command line that cannot be run; 130 "
               "when a signal cut it short outside a game, a second one came before its leaving was done, or its "
               "terminal hung up at the table (the seat went away: --resume takes it back).")

REJOIN_WAIT = 10.0  # seconds a seat taken back only to leave waits for its links first


def add_game_options(parser: argparse.ArgumentParser, *, bot_flag: bool = True, seats_bots: bool = False) -> None:
    """The options of playing a seat; `seats_bots`: the command seats bots of its own
    (`play`, `host --bots`), whose pace --headless sets too (`full_speed`)."""
    parser.epilog = EXIT_STATUS
    if bot_flag:
        parser.add_argument("--bot", action="store_true",
                            help="no full-screen client: the normal bot plays this seat at a person's pace, its "
                                 "progress printed")
    bots = ("; so do your bots (--bots), which otherwise play at a person's pace, even where no terminal is at "
            "hand") if seats_bots else ""
    parser.add_argument("--headless", action="store_true",
                        help=f"no full-screen client: a bot plays this seat as fast as it can, its progress "
                             f"printed{bots}")
    parser.add_argument("--seed", type=integer, default=0, help="seed of the bots' decisions (never of the cryptography)")
    parser.add_argument("--json", action="store_true", help="print one JSON object with the result on the last line")
    parser.add_argument("--memory-aid", action="store_true", help="keep the cards you have seen on screen")


def log_path_for(result: LobbyResult | Signing, state_dir: Path | None, explicit: Path | None, log_dir: Path | None = None) -> Path:
    """Where this seat's log goes: --log PATH, else DIR/<game>-seat<N>.bandit-log."""
    if explicit is not None:
        return explicit
    return log_folder(state_dir, log_dir) / log_name(result.game_id, result.seat)


def in_seat_order(logs: Sequence[Path]) -> list[Path]:
    """`logs` of one game, seat 1's first (as `log_name` numbers them); a log named
    otherwise (--log) keeps its place after them."""
    def seat(place: tuple[int, Path]) -> tuple[int, int]:
        number = re.search(r"-seat([0-9]+)\.bandit-log$", place[1].name)
        return (0, int(number[1])) if number else (1, place[0])
    return [path for _, path in sorted(enumerate(logs), key=seat)]


def log_name(game_id: bytes, seat: int) -> str:
    """The name of the log of `seat` (from 0) in the game `game_id`, without --log: its
    first twelve digits, then the seat from 1."""
    return f"{game_id[:6].hex()}-seat{seat + 1}.bandit-log"


def bot_logs_beside(log: Path, game_id: bytes, names: Sequence[str]) -> list[Path]:
    """Where the bots a `play` or `host --bots` seated keep their logs of the game
    `game_id`, whose seats are `names`, in seat order: each seat named as a bot
    (`reads_as_a_bot`, as `cli.bots.bot_names` names them) writes
    `<game>-seat<N>.bandit-log` in the folder of the `log` of the seat that seated them
    (`cli.bots.BotTable.log_dir`). The same as the game begins and once it is taken back."""
    return [log.with_name(log_name(game_id, seat)) for seat, name in enumerate(names) if reads_as_a_bot(name)]


def seat_log_path(result: LobbyResult | Signing, args: argparse.Namespace) -> Path:
    """Where this seat's log goes, by the command's --log, --log-dir and --state-dir."""
    return log_path_for(result, args.state_dir, getattr(args, "log", None), getattr(args, "log_dir", None))


class SeatBook:
    """This seat's journal, written as the seat signs the roster (the lobby's
    `on_signing`, §11.3): a seat whose process stops from then on, even before its game
    began, can take its seat back (`--resume`) instead of leaving the others to wait out
    their grace period. Its game takes the journal over (`seated`); a lobby that ends
    without a game removes it as the `with` block ends. Nothing is written for a seat
    that plays no game (`--lobby-only`). `first_use`: the seat joins by address, the
    host's fingerprint trusted on first use (a seat taken back shows it again)."""

    def __init__(self, mesh: Mesh, args: argparse.Namespace, *, first_use: bool = False) -> None:
        self._mesh, self._args, self._first_use = mesh, args, first_use
        self.seated: SeatJournal | None = None

    def sign(self, signing: Signing) -> None:
        if getattr(self._args, "lobby_only", False):
            return
        state_dir = self._args.state_dir or default_state_dir()
        forget_stale_journals(state_dir)  # (games nobody went back to: nobody waits for them now)
        self.seated = open_seat_journal(
            state_dir, game=signing.game_id, roster=signing.canonical, seat=signing.seat,
            log=seat_log_path(signing, self._args), port=self._mesh.port,
            addresses=[m.address for m in signing.roster.members], grace=signing.roster.rules.grace_s,
            first_use=self._first_use,
        )

    def __enter__(self) -> SeatBook:
        return self

    def __exit__(self, *_: object) -> None:
        if self.seated is not None:
            self.seated.abandon_untaken()


def trusted_on_first_use(host: Member) -> str:
    """What a person who joined by address (no --fingerprint) reads of the host's
    fingerprint, trusted on first use (§4.1): the table log's first line, and again as
    they leave, so that they can compare it with the host's screen."""
    return (f"{host.name}'s fingerprint is {host.cert.short}: you joined by address, so it was "
            "trusted on first use; compare it with the host's screen (or join with --fingerprint).")


def host_trusted_on_first_use(host: Certificate) -> str:
    """The same, as a headless seat that joined by address prints it."""
    return f"Host fingerprint {host.short} (trusted on first use: compare it with the host's screen)."


def log_folder(state_dir: Path | None, log_dir: Path | None) -> Path:
    """Where logs go without --log: --log-dir, else the state directory's logs/."""
    return log_dir or (state_dir or default_state_dir()) / "logs"


def log_place_problem(state_dir: Path | None, explicit: Path | None, log_dir: Path | None = None) -> str | None:
    """Why this seat's log could not be written where it would go, or None. Asked before
    the lobby, so nobody is seated at a table whose log this peer cannot keep (§10.1)."""
    folder = explicit.parent if explicit is not None else log_folder(state_dir, log_dir)
    try:  # (the journal records where the log is, as text: §11.3)
        str((explicit or folder).absolute()).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(explicit or folder).encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
        return f"cannot keep a fairness log at {shown}: its name is not UTF-8 text; choose another place"
    if explicit is not None and (explicit.exists() or explicit.is_symlink()):
        return f"{explicit} exists already, and a fairness log is never overwritten: choose another --log"
    return folder_problem(folder, "fairness logs", "--log" if explicit is not None else "--log-dir")


def log_unwritable(state_dir: Path | None, explicit: Path | None, log_dir: Path | None = None) -> bool:
    """Say so (before the lobby) if this seat's log could not be written."""
    problem = log_place_problem(state_dir, explicit, log_dir)
    if problem is not None:
        complain(problem)
    return problem is not None


def print_line(line: Line) -> None:
    """Line-mode progress: how each round ended, anything that went wrong, when this
    seat's turn begins, every Bandit announcement (R8), and what the full screen's table
    log tells of this seat's own cards (its own moves, and a power, a swap or a snap of
    anyone's on one of its cards), in the same words (`Told.yours`)."""
    if line.kind in ("round", "table", "warning", "error") or line.yours:
        say(f"  {line.text}")


def in_line_mode(args: argparse.Namespace) -> bool:
    """Whether the seat prints the table log's lines as it plays (`print_line`): without
    the full screen (`--headless`, `--bot`), and not only its result (`--quiet`, `--json`)."""
    headless = getattr(args, "headless", False) or getattr(args, "bot", False)
    return headless and not (getattr(args, "quiet", False) or args.json)


def tell_cut_short(peer: TablePeer) -> None:
    """Where the game ended in a round under way (a seat left, or was away too long), end
    the table log, which a line-mode seat prints, with what that means for the round's
    cards (`cut_short`: its shuffles were never shown and checked), as the full screen's game end says."""
    progress = peer.progress
    if progress.ended and not progress.finished:
        cut = round_cut_short(peer.view().round, len(peer.reports))
        if cut is not None:
            peer.tell(cut_short(cut), "round")


def playing_as(name: str, args: argparse.Namespace) -> str:
    """The table log's first line at `play`: the name the others, the standings, the
    --json totals and the logs give this seat, which its own screen calls "You"."""
    return f"You play as {name}{'' if args.name else ' (choose with --name)'}."


def seat_for_a_person(args: argparse.Namespace) -> bool:
    """Whether the command seats a person (not a bot, nor only the lobby), if a terminal
    is at hand (`cli.host.is_person` asks that too)."""
    return not (args.headless or getattr(args, "bot", False) or getattr(args, "lobby_only", False))


def bot_without_a_terminal(args: argparse.Namespace) -> None:
    """`play`, a game against bots only: a person plays a seat only at a terminal that can
    draw it (`why_not_full_screen`); without one (a script, input from /dev/null, a job in
    the background, TERM=dumb), a bot plays it without the full screen, as with
    --headless, and says why, rather than seat a full-screen client nobody can see or type
    at (it left the table at once, ending the game). It plays at a person's pace, as the
    command's bots do: only a --headless typed chose full speed (`full_speed`). (`host`
    and `join` seat people's tables: they refuse instead, `refused_without_a_terminal`.)"""
    why = why_not_full_screen() if seat_for_a_person(args) else None
    if why is not None:
        advice = " (play in a terminal that can, e.g. with TERM=xterm-256color)" if why == CANNOT_DRAW else ""
        complain(f"{why}: a bot plays your seat at a person's pace (--headless: as fast as it can){advice}")
        args.headless = True
        args.no_terminal = why


AT_A_TERMINAL = ("You play your seat full screen, in a terminal; without one (input from a file or /dev/null, output "
                 "to a file, a job in the background, TERM=dumb) the command stops before it contacts anyone, unless "
                 "--bot or --headless lets a bot play your seat.")
"""What `host --help` and `join --help` say of playing without a terminal (`refused_without_a_terminal`)."""


def refused_without_a_terminal(args: argparse.Namespace, command: str) -> bool:
    """`host` and `join` (and their --resume): a person's seat at a table of people needs
    a terminal that can draw it (`why_not_full_screen`). Without one, say so and how to
    play (in a terminal) or to let a bot play (--bot, --headless), and True: the command
    stops before it contacts anyone. A bot that took the seat unasked filled a table of
    people and started its game, and stopping it ended that game for all."""
    why = why_not_full_screen() if seat_for_a_person(args) else None
    if why is None:
        return False
    where = "a terminal that can (e.g. with TERM=xterm-256color)" if why == CANNOT_DRAW else "a terminal"
    complain(f"{why}: run `{this_program()} {command}` in {where} to play your seat yourself, or add --bot to let a bot "
             "play it at a person's pace (--headless: as fast as it can). Nobody was contacted.")
    return True


class SeatPeer(TablePeer):
    """This command's seat, with the other logs of its game kept beside its own on this
    machine (the bots it seated, `bot_logs_beside`): its game-end screen names them
    (`TableModel.logs_beside`)."""

    logs_beside: tuple[str, ...] = ()


def full_speed(args: argparse.Namespace) -> bool:
    """Whether the bots of this command play as fast as they can, its seat's and the ones
    it seats (`play`, `host --bots`): only with a --headless typed, where its player chose
    a table of bots (R6 is a race people must be able to win, and R10 treats every player
    alike). A seat a bot plays for want of a terminal (`bot_without_a_terminal`) is no such
    choice: people may still join its table."""
    return args.headless and getattr(args, "no_terminal", None) is None


def seat_pace(args: argparse.Namespace) -> Pace:
    """How fast a bot plays this seat (`full_speed`): else at a person's pace (`--bot`)."""
    return FULL_SPEED if full_speed(args) else HUMAN_PACE


async def play_seat(
    mesh: Mesh,
    result: LobbyResult,
    identity: Identity,
    args: argparse.Namespace,
    log_path: Path,
    *,
    terminal: object | None = None,
    seated: SeatJournal | None = None,
    resume: Resumption | None = None,
    note: str | None = None,
    beside: Sequence[Path] = (),
    playing_as: str | None = None,
    ended: trio.Event | None = None,
) -> GameSummary:
    """Play this seat to the end of the game (on `terminal`, if the lobby opened one),
    with the journal written as it signed the roster (`seated`, `SeatBook`), or taken
    back (`resume`); `args.leave_first` (a resumed seat's reason to leave): only take the
    seat back and leave. `note` is the table log's first line (a warning); `beside`: the
    other logs of the game on this machine (of the bots the command seated), which the
    game-end screen names with this seat's; `playing_as`: the table log says first the
    name the others and the logs know this seat by (the screen calls it "You"); `ended`:
    set as the game ends, before its screen is closed (a host's front door says so to a
    player coming back, `host_table`)."""
    headless = args.headless or getattr(args, "bot", False)
    leave_first: str | None = getattr(args, "leave_first", None)
    bot = NormalBot() if headless and leave_first is None else None
    pace = getattr(args, "pace", None) or seat_pace(args)
    slot_label: Callable[[int], str] = str
    if not headless:  # the full-screen client is only loaded for a person
        from cli.tui import keymap, run_client
        from cli.tui.client import JournalLooks, look_seen

        slot_label = keymap.slot_label  # the table log names a penalty slot by its key
    try:
        peer = SeatPeer(
            mesh, result, identity, log_path=log_path, bot=bot, seed=args.seed, pace=pace,
            on_line=print_line if in_line_mode(args) else None,
            seated=seated, resume=resume, slot_label=slot_label,
        )
    except OSError as exc:  # the disk filled (say) since the lobby checked the log's place
        return await unrecorded(mesh, result, log_path, exc)
    peer.logs_beside = tuple(str(path) for path in beside)
    if playing_as is not None:
        peer.tell(playing_as, "table")
    if note is not None:
        peer.tell(note, "warning")
    # A seat taken back only to leave does not come back; nor one whose command seated bots
    # of its own (`play`, `host --bots`): they are told to stop as the command ends.
    peer.comes_back = leave_first is None and not (getattr(args, "bots", 0) and not getattr(args, "resume", False))
    # A signal to stop makes this seat leave the table (§9.8); a hang-up, go away meaning to
    # come back (§11.3) where it can.
    with leaving_on_stop(peer.leave, peer.go_away):
        if leave_first is not None:
            return await leave_at_once(peer, leave_first)
        if headless:
            summary = await peer.run()
            if ended is not None:
                ended.set()
            if summary.away is None:  # (a seat gone away meaning to come back: its round goes on)
                tell_cut_short(peer)
            return summary
        # The screen stays up after the game: the player reads the last round and the final
        # standings, then closes it. Leaving mid-game (asked first) ends the peer, log valid.
        finished: list[GameSummary] = []
        async with trio.open_nursery() as nursery:

            async def run_peer() -> None:
                finished.append(await peer.run())
                if ended is not None:
                    ended.set()

            nursery.start_soon(run_peer)
            try:
                seen = None if resume is None else look_seen(resume.journal_contents, resume.journal.stopped)
                await run_client(peer, memory_aid=args.memory_aid, terminal=terminal,  # type: ignore[arg-type]
                                 looks=JournalLooks(peer.journal, seen))
            except Exception:  # (a fault of the screen is no end of the game: the seat stays resumable)
                peer.failed = True
                raise
        return finished[0]


async def leave_at_once(peer: TablePeer, reason: str) -> GameSummary:
    """Take a resumed seat back only to leave it (§9.8): once its links are up again (or
    after `REJOIN_WAIT`, for seats that are gone), its `leave` ends the game for the
    others at one point of the order, every log closed there, instead of their waiting out
    the grace period. Its stay after the end is cut to `LEAVE_WITHIN` (§11.4)."""
    ended: list[GameSummary] = []
    async with trio.open_nursery() as nursery:

        async def run_peer() -> None:
            ended.append(await peer.run())

        nursery.start_soon(run_peer)
        with trio.move_on_after(REJOIN_WAIT):
            while peer.rejoining:
                await peer.changed()
        await peer.leave(reason, LEAVE_WITHIN)
    return ended[0]


async def unrecorded(mesh: Mesh, result: LobbyResult, log_path: Path, exc: OSError) -> GameSummary:
    """This seat cannot keep the game's log, so it does not sit down (§10.1): it says
    why on every link (the others see it go, and end their game as for any seat that
    does not come back, §11.3), and the game stops here before its first move."""
    problem = exc.strerror or str(exc)
    await mesh.aclose(f"its records could not be written ({problem})")
    names = tuple(m.name for m in result.roster.members)
    where = exc.filename or log_path  # (the log, or the folder it goes in)
    why = records_unwritable(where, problem)
    return GameSummary(result.game_id, names, 0, {name: 0 for name in names}, [], log_path, False, why)


YOUR_VERBS = {"was": "were", "is": "are", "has": "have"}
"""The verbs a log's words put after a player's name, as they go after "you"."""


def to_you(words: str, name: str, names: Sequence[str]) -> str:
    """A log's `words`, which name every player (`names`, the roster's), as the player
    `name` reads them: "you" where they name that player ("Ann was away …" → "you were
    away …", "Ann's program" → "your program", "Bo could not reach Ann" → "Bo could not
    reach you"), never inside another player's name ("Ann Lee") or a "(bot)" mark."""

    def you(named: re.Match[str]) -> str:
        whole = named[0]
        if named["name"] != name or (words[named.start() - 1:named.start()] == "("
                                     and words[named.end("name"):named.end("name") + 1] == ")"):
            return whole
        if named["own"]:
            return "your"
        return f"you {YOUR_VERBS[named['verb']]}" if named["verb"] else "you"

    every = "|".join(re.escape(n) for n in sorted({name, *names}, key=len, reverse=True))
    verbs = "|".join(YOUR_VERBS)
    return re.sub(rf"(?<!\w)(?P<name>{every})(?!\w)(?:(?P<own>'s)| (?P<verb>{verbs}))?(?!\w)", you, words)


def after_rounds(rounds: int) -> str:
    """When a game that was not played out ended: "after 2 rounds", or before any ended."""
    return f"after {rounds} round{'s' if rounds != 1 else ''}" if rounds else "before the first round ended"


def _standings(summary: GameSummary) -> None:
    """Each player's total, lowest first, in one column; the winners marked."""
    width = max([24, *(text_width(name) for name in summary.totals)])  # (terminal cells: 山田 takes 4)
    for name, total in sorted(summary.totals.items(), key=lambda kv: kv[1]):
        mark = "  winner" if name in summary.winners else ""
        say(f"  {ljust(name, width)} {total:>4}{mark}")


def report(summary: GameSummary, args: argparse.Namespace, logs: list[Path] | None = None) -> int:
    """Print the standings (and the JSON line); the exit status of the command."""
    logs = logs or [summary.log_path]
    # A game that ends where every seat's log ends, played out or left on purpose by
    # anyone, is no failure; one stopped by a fault (broken rules, a player away too
    # long, this seat's own trouble) is; a seat that went away was cut short by its hang-up.
    if summary.away is not None:
        status = INTERRUPTED
    else:
        status = 0 if summary.finished or summary.left or summary.departed else 1
    if not args.json:
        if summary.finished:
            won = ""
            # (by name, as the standings give them; a seat in line mode has just printed it, in the table log)
            if summary.winners and not in_line_mode(args):
                points = summary.totals[summary.winners[0]]
                won = f": {game_won(summary.winners, range(len(summary.winners)), points)}"
            say(f"Game over after {summary.rounds} round{'s' if summary.rounds != 1 else ''}{won}. Standings:")
            _standings(summary)
        elif summary.away is not None:  # (its terminal is gone: said for a log of the output, if any)
            state_dir = "" if args.state_dir is None else f" --state-dir {shell_word(str(args.state_dir))}"
            say(f"Your seat went away from the table {after_rounds(summary.rounds)} ({yours(summary.away)}): the "
                f"others wait for you as for a crash; `{this_program()} {getattr(args, 'command', 'join')} --resume"
                f"{state_dir}` takes your seat back while they do.")
        else:
            if summary.left:
                say(f"You left the table {after_rounds(summary.rounds)}.")
            elif summary.departed:  # (`why` names who, as they wrote their name, and why: "bo left the table (…)")
                say(f"{summary.why}; the game ended {after_rounds(summary.rounds)}.")
            else:
                complain(f"the game ended: {summary.why}")  # (as the final screen says it)
            if summary.rounds:
                counted = "the one round that counts" if summary.rounds == 1 else f"the {summary.rounds} rounds that count"
                say(f"Totals of {counted} (the game was not played out, so nobody won):")
                _standings(summary)
        # (a path or a command on a line of its own where the line would be broken: copied whole)
        if summary.away is not None:  # (its log stays open for the seat's return: no audit would hold yet)
            say_to_copy(f"Log: {summary.log_path}   (open until your seat's game ends)",
                        [("Log (open until your seat's game ends):", False), (f"   {summary.log_path}", True)])
        else:
            command = audit_command([summary.log_path])
            say_to_copy(f"Log: {summary.log_path}   (check it with: {command})",
                        [("Log:", False), (f"   {summary.log_path}", True), ("Check it with:", False),
                         (f"   {command}", True)])
            if (together := logs_together(logs, len(summary.names))) is not None:  # (the bots' logs are here too)
                words, command = together
                say_to_copy(f"{words} {command}", [(words, False), (f"   {command}", True)])
    else:
        error = summary.why if summary.away is None else f"your seat went away from the table ({yours(summary.away)})"
        out = {**outcome(status, error), **summary.to_json()}
        out["logs"] = [str(p) for p in in_seat_order(logs)]
        out["log"] = str(summary.log_path)
        result_told()
        tell(json.dumps(out), sys.stdout)  # (a bot's host may be gone: its pipe with it)
    return status
