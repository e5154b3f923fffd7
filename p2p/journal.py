"""The seat journal: what a peer needs, besides its fairness log, to resume a game (§11.3).

Theory of operation
-------------------
The fairness log holds what was *delivered* (and every side message); it is public. A
peer killed in the middle of a game also needs what is private or not yet delivered:

* its seat seed (§9.12), from which every secret of its seat is derived;
* the roster R it signed, where to reach the others, which port it listened on, and
  whether it joined by address, trusting its host's fingerprint on first use (shown again);
* every signed message it sent (content, side and acks), in the order sent: content
  not yet delivered goes back into its chain on resume, and its acks' stamps are
  promises it must keep.

The journal is a file of §4.2 frames beside the identity (mode 0600, never shared):
one ``journal.seat`` frame, written as the seat signs R, before its signature goes out
(`open_seat_journal`), so a seat stopped from then on, even before its game began, can
take its seat back; then one ``journal.sent`` frame per message, each written with a
single unbuffered write *before* the message is handed to the network, so a killed
process never sent what its journal lacks. A last frame cut short is ignored (it
was never sent). A seat that goes away meaning to come back (its terminal hung up)
writes ``journal.away`` last, saying why, for its player's resume. The journal is
removed when its game ends cleanly (or, if its seat stopped between closing its log and
removing the journal, when the journals are next listed), and, when the state
directory's next game starts, if its seat stopped over a day before.

The process playing a seat holds its journal (an exclusive `flock`): no second process
resumes a seat that still plays, which would sign in its place. The writes are not
synced one by one (a sync per message would cost each message milliseconds): a killed
process loses nothing the operating system holds, but a machine that stops (its power
cut) may lose the journal's last records, sent already. So the seat record names the
machine's boot, and a seat is never resumed after its machine restarted: it could sign
against what it had sent.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2p.appendfile import AppendFile, in_use
from p2p.errors import ProtocolError
from p2p.log import read_log
from p2p.schema import Bin, Bool, Int, ListOf, Message, Schemas, Str, Tuple
from p2p.signing import SignedMessage
from p2p.table.machine import GRACE
from p2p.table.secrets import SeatSecrets
from p2p.wire import Limits, decode_map, encode_frame, split_frames

JOURNAL_LIMITS = Limits(max_frame=2 << 20)
SUFFIX = ".journal"

ADDRESS = Tuple((Str(max_len=255), Int(0, 65535)))  # ["", 0]: not known
SEAT_V2 = {  # (a journal written before version 3, as its game began: without R)
    "game": Bin(size=32), "seat": Int(0, 15), "seed": Bin(size=32), "log": Str(max_len=4096),
    "port": Int(0, 65535), "addresses": ListOf(ADDRESS, 2, 16), "boot": Str(max_len=64), "grace_ms": Int(0, 2**40),
}
SEAT_V3 = {**SEAT_V2, "roster": Bin(min_len=1, max_len=65536)}  # (a journal written before version 4: first_use false)
SCHEMAS = Schemas(
    Message("journal.seat", 2, "§11.3", SEAT_V2),
    Message("journal.seat", 3, "§11.3", SEAT_V3),
    Message("journal.seat", 4, "§11.3", {**SEAT_V3, "first_use": Bool()}),
    Message("journal.sent", 1, "§11.3", {"body": Bin(min_len=1, max_len=1 << 20), "sig": Bin(size=64)}),
    Message("journal.look", 1, "§11.3", {"round": Int(0, 2**31), "at_ms": Int(0, 2**53)}),
    Message("journal.away", 1, "§11.3", {"reason": Str(max_len=200)}),
)


class JournalError(ProtocolError):
    """A journal that cannot be used to resume."""


_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
STILL_PLAYED = ("its seat is still being played by another bandit-lan process on this machine (stop that one "
                "first: two processes playing one seat would sign against each other)")


def boot_id() -> str:
    """What names this boot of the machine (Linux's boot id), or "" where that is not
    known: a journal of an unknown boot is resumed as before."""
    try:
        return _BOOT_ID.read_text(encoding="ascii").strip()[:64]
    except (OSError, UnicodeDecodeError):
        return ""


@dataclass
class JournalContents:
    game: bytes
    seat: int
    seed: bytes = field(repr=False)  # every secret of the seat comes from it (§9.12): never in a repr
    log: Path
    port: int
    addresses: list[tuple[str, int] | None]
    boot: str = ""  # the machine's boot when the seat sat down ("" not known)
    grace: float = GRACE  # how long this seat's table waits for a player away (its --grace)
    roster: bytes = b""  # R, as this seat signed it (§6.6); b"" in a journal of version 2, written as the game began
    first_use: bool = False  # it joined by address without the host's fingerprint, trusted on first use (§4.1)
    sent: list[tuple[bytes, bytes]] = field(default_factory=list)  # (body, sig) in the order sent
    look: tuple[int, float] | None = None  # (round, wall clock) its player's look at the bottom cards began (R4.3)
    away: str | None = None  # why the seat went away meaning to come back, if that was how it last stopped
    intact: int = 0

    def began(self) -> bool:
        """Whether the seat's game had begun when it stopped: its log is made when it
        holds every signature of the roster, and it sends nothing before (§11.3). A seat
        stopped while the roster was being signed has this journal and no log, or an
        empty one (made, and stopped before its header was written: `unmade_log`)."""
        return not self.roster or bool(self.sent) or (self.log.exists() or self.log.is_symlink()) and not self.unmade_log()

    def unmade_log(self) -> bool:
        """Whether this seat's log is there but empty, and nothing was sent: its process
        stopped between making the file and writing its header (one write), before its
        game began. Such a file is made again as the game begins (`--resume`)."""
        try:
            made = self.log.lstat()
        except OSError:  # (none there, or it cannot be told: not an unmade one)
            return False
        return not self.sent and stat.S_ISREG(made.st_mode) and made.st_size == 0  # (a file: never a pipe, a device)

    def forget_unmade_log(self) -> None:
        """Remove this seat's log if it was made and never written (`unmade_log`): it
        holds nothing, and its game will not begin with it (a log that stays says why)."""
        if self.unmade_log():
            with suppress(OSError):
                self.log.unlink()

    def restarted(self, now_boot: str | None = None) -> bool:
        """Whether this machine restarted since the seat sat down: the journal's last
        records may never have reached the disk, so the seat must not be resumed."""
        now_boot = boot_id() if now_boot is None else now_boot
        return bool(self.boot and now_boot and self.boot != now_boot)

    def why_not_resumable(self, path: Path) -> str | None:
        """Why this seat cannot be taken back now, or None."""
        if in_use(path):
            return STILL_PLAYED
        if self.restarted():
            return ("this machine restarted since that game stopped: the last records of its journal may never "
                    "have reached the disk, and a seat resumed from it could sign against what it had already "
                    "sent (§11.3); the others end the game without you after their grace period")
        return None


def journal_path(state_dir: Path, game: bytes) -> Path:
    return state_dir / "games" / f"{game.hex()[:16]}{SUFFIX}"


class Journal:
    """An open journal of a live seat. If the disk fails it takes nothing more
    (`failure` says why) and must be `abandon`ed: a journal that misses a sent message
    would let a resumed seat sign another message in its place."""

    def __init__(self, out: AppendFile, stopped: float | None = None) -> None:
        self.path = out.path
        self._out = out
        self._stopped = stopped  # (a reopened journal: when its seat stopped, by the file's time)

    @classmethod
    def create(
        cls, path: Path, *, game: bytes, seat: int, seed: bytes, log: Path, port: int,
        addresses: Sequence[tuple[str, int] | None], roster: bytes, grace: float = GRACE, first_use: bool = False,
    ) -> Journal:
        journal = cls(AppendFile.create(path, mode=0o600, folder_mode=0o700, lock=True))
        try:
            journal._write({
                "type": "journal.seat", "v": 4, "game": game, "seat": seat, "seed": seed, "log": str(log),
                "port": port, "addresses": [list(a) if a is not None else ["", 0] for a in addresses],
                "boot": boot_id(), "grace_ms": round(grace * 1000), "roster": roster,
                "first_use": first_use,
            })
        except BaseException:  # (a log path that is no text, say: no half-made journal is left behind)
            journal.abandon()
            raise
        journal._out.sync()
        journal._out.started("the journal")
        return journal

    @classmethod
    def reopen(cls, path: Path) -> tuple[Journal, JournalContents]:
        """Take a stopped seat's journal back (raises FileInUse, touching nothing, if
        another process holds it)."""
        stopped = path.stat().st_mtime
        contents = read_journal(path)
        return cls(AppendFile.reopen(path, contents.intact, lock=True), stopped), contents

    @property
    def stopped(self) -> float | None:
        """A reopened journal: when its seat stopped (its last mark of life, wall clock)."""
        return self._stopped

    @property
    def failure(self) -> str | None:
        """Why writing stopped, once the disk failed (None while all is well)."""
        return self._out.failure

    def _write(self, frame: dict[str, Any]) -> None:
        self._out.append(encode_frame(frame, JOURNAL_LIMITS))

    def alive(self) -> None:
        """Mark the journal's time as now: its age after a crash says when the seat
        stopped (the others wait for it only so long, §11.3). Nothing to lose if it fails."""
        try:
            os.utime(self.path)
        except OSError:
            pass

    def sent(self, message: SignedMessage) -> None:
        """Record a message about to be sent (call before handing it to the network)."""
        self._write({"type": "journal.sent", "v": 1, "body": message.body, "sig": message.sig})

    def look(self, number: int, at: float) -> None:
        """Record that the player's look at the bottom cards of round `number` began at `at`
        (wall clock, less the time it stood): a seat taken back shows what is left of it
        (R4.3)."""
        self._write({"type": "journal.look", "v": 1, "round": number, "at_ms": max(0, round(at * 1000))})

    def away(self, reason: str) -> None:
        """Record that the seat goes away meaning to come back (`reason`, as the others
        would read it: "their terminal was closed"), and make the journal durable: its
        player is told so as the seat is offered back (§11.3)."""
        self._write({"type": "journal.away", "v": 1, "reason": reason[:200]})
        self._out.sync()

    def close(self, *, finished: bool) -> None:
        """Close; a game that ended needs no resuming, so its journal (and seed) go."""
        if self._out.closed:
            return
        self._out.close()
        if finished:
            self.path.unlink(missing_ok=True)

    def release(self) -> None:
        """Give a reopened journal up untouched, its time as it was (a resume that could
        not start, or that tried for a while, must not make its game look as if it
        stopped just now)."""
        self._out.close()
        if self._stopped is not None:
            try:
                os.utime(self.path, (self._stopped, self._stopped))
            except OSError:
                pass

    def abandon(self) -> None:
        """Close and remove: this seat can no longer be resumed from it."""
        self._out.close()
        self.path.unlink(missing_ok=True)


@dataclass
class SeatJournal:
    """A seat's journal, written as the seat signed R, and the seat seed it holds: the
    seat's game begins with them (`TablePeer`), which then owns the journal (`taken`);
    a lobby that ends without a game removes it (`abandon_untaken`)."""

    journal: Journal
    seed: bytes = field(repr=False)
    dials_all: bool = False  # the seat was taken back on another port: the others cannot dial it (§11.3)
    taken: bool = False

    def abandon_untaken(self) -> None:
        if not self.taken:
            self.journal.abandon()


def open_seat_journal(
    state_dir: Path, *, game: bytes, roster: bytes, seat: int, log: Path, port: int,
    addresses: Sequence[tuple[str, int] | None], grace: float = GRACE, first_use: bool = False,
) -> SeatJournal:
    """Write the journal of seat `seat` of the game of R (`roster`), with a fresh seat
    seed (§9.12), before the seat's signature of R goes out (§11.3); `first_use`: the
    seat joined by address and trusted the host's fingerprint on first use."""
    seed = SeatSecrets.draw(os.urandom).seed
    journal = Journal.create(journal_path(state_dir, game), game=game, seat=seat, seed=seed, log=log.resolve(),
                             port=port, addresses=addresses, roster=roster, grace=grace,
                             first_use=first_use)
    return SeatJournal(journal, seed)


def read_journal(path: Path) -> JournalContents:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise JournalError("§11.3", f"cannot read the journal {path.name}: {exc.strerror}") from None
    contents: JournalContents | None = None
    try:
        for offset, payload in split_frames(data, JOURNAL_LIMITS):
            if payload is None:
                break  # cut short by a crash: never sent
            frame = SCHEMAS.check(decode_map(payload, JOURNAL_LIMITS))
            if contents is None:
                if frame["type"] != "journal.seat":
                    raise JournalError("§11.3", "the journal does not start with its seat record")
                contents = JournalContents(
                    frame["game"], frame["seat"], frame["seed"], Path(frame["log"]), frame["port"],
                    [(a[0], a[1]) if a[0] else None for a in frame["addresses"]], frame["boot"],
                    frame["grace_ms"] / 1000, frame.get("roster", b""), frame.get("first_use", False),
                )
            elif frame["type"] == "journal.sent":
                contents.sent.append((frame["body"], frame["sig"]))
                contents.away = None  # (taken back since: it ran again)
            elif frame["type"] == "journal.look":
                contents.look = (frame["round"], frame["at_ms"] / 1000)
                contents.away = None
            elif frame["type"] == "journal.away":
                contents.away = frame["reason"]
            else:
                raise JournalError("§11.3", f"a second seat record at byte {offset}")
            contents.intact = offset + 4 + len(payload)
    except JournalError:
        raise
    except ProtocolError as exc:
        raise JournalError("§11.3", f"journal: {exc.reason}") from None
    if contents is None:
        raise JournalError("§11.3", f"the journal {path.name} is empty or cut short")
    return contents


def journal_age(path: Path, now: float | None = None) -> float:
    """Seconds since the journal's seat last marked it alive (every 2 s while it plays,
    §11.3): after a crash, about how long ago it stopped."""
    return max(0.0, (time.time() if now is None else now) - path.stat().st_mtime)


FORGET_AFTER = 24 * 3600.0  # seconds after its seat stopped that a journal is removed (no table waits so long)


def forget_stale_journals(state_dir: Path, *, older_than: float = FORGET_AFTER, now: float | None = None) -> list[Path]:
    """Remove the journals whose seat stopped (its last mark of life, §11.3) more than
    `older_than` seconds ago: nobody waits for those seats any more, and each journal
    holds a seat's seed. Their fairness logs stay. Returns the removed paths."""
    now = time.time() if now is None else now
    gone = []
    for path in unfinished_journals(state_dir):
        try:
            if journal_age(path, now) >= older_than:
                with suppress(JournalError):  # (an empty log left by a kill as it was made goes with it)
                    read_journal(path).forget_unmade_log()
                path.unlink()
                gone.append(path)
        except OSError:  # (gone meanwhile, or not ours to remove: it stays)
            continue
    return gone


def unfinished_journals(state_dir: Path, *, held: bool = False) -> list[Path]:
    """Journals of games that did not end, newest first; `held`: those whose seat another
    process plays now too. One whose fairness log was closed belongs to a game that
    ended: its seat stopped between closing the log and removing the journal, and the
    journal goes now, as the end would have removed it."""
    folder = state_dir / "games"
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob(f"*{SUFFIX}"):
        try:
            mtime = path.stat().st_mtime
            if in_use(path):  # (its seat plays: not stopped, and not ours to remove)
                if held:
                    found.append((mtime, path))
                continue
            if _log_closed(path):
                path.unlink()
                continue
        except OSError:  # (its game ended meanwhile, in another process; or it is not ours to remove)
            continue
        found.append((mtime, path))
    return [path for _, path in sorted(found, reverse=True)]


def _log_closed(path: Path) -> bool:
    """Whether the fairness log the journal at `path` writes beside was closed (§10.1).
    A journal or log that cannot be read is not known to be over: resuming says why."""
    try:
        return read_log(read_journal(path).log).ended is not None
    except (OSError, ProtocolError):
        return False
