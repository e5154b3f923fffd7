"""What a player's screen (or a headless bot driver) needs from the table it sits at.

The live peer (`p2p.peer`) implements `TableSession`; the terminal client and the
headless driver consume it. Nothing here does I/O: these are the types of the contract.

A session shows one seat's knowledge only: `view()` is the engine's `SeatView` of the
local seat, so a screen built on it cannot show a card the rules hide. Everything that
happened is also told in plain words as `Line`s (the same narration the audit report
uses), private lines only to the seat they concern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Literal, Protocol

from engine import Intent, SeatView

CHOSE_TO_LEAVE = "the player chose to leave"  # a `leave`'s reason when the player asked for it (§9.8)
YOU_LEFT = "you left the table"  # why a seat's own game ended when its player left: its own screen's words
WENT_AWAY = "you went away from the table, meaning to come back"  # (`TableSession.go_away`): its own screen's words


def yours(reason: str) -> str:
    """A leave's reason, worded for the others ("their terminal was closed", "the player
    chose to leave"), to the player who left ("your terminal was closed", "you chose to
    leave")."""
    for theirs, own in (("their ", "your "), ("they ", "you "), ("the player ", "you ")):
        if reason.startswith(theirs):
            return own + reason[len(theirs):]
    return reason


_RULE = re.compile(r"§\d|\bR\d+\b")


def cites_a_rule(reason: str) -> bool:
    """Whether a `leave`'s reason names a rule (a protocol section, or R1–R10): an
    honest table's leave names the culprit so (`p2p.policy.Verdict.leave_reason`), and so
    may any leaver's, falsely."""
    return _RULE.search(reason) is not None


def accuses(reason: str, names: Sequence[str] = (), seat: int | None = None) -> bool:
    """Whether a `leave`'s reason (of seat `seat`, at a table of `names`) accuses: it
    names a rule (`cites_a_rule`) or another player ("ada cheated"), in any case."""
    others = [name for i, name in enumerate(names) if i != seat and name]
    return cites_a_rule(reason) or any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", reason, re.IGNORECASE)
                                       for name in others)


def left_with(reason: str, names: Sequence[str] = (), seat: int | None = None) -> str:
    """A seat's `leave` (§9.8) as every screen and log tells it, after the leaver's name:
    "left the table (their terminal was closed)"; a reason that accuses (`accuses`: of
    seat `seat`, at a table of `names`) is a claim nothing signed proves, quoted as the
    leaver's own words: 'left the table, saying: "Bo published a false share of a card
    [§8.5]"', 'left the table, saying: "Bo cheated"'."""
    return f'left the table, saying: "{reason}"' if accuses(reason, names, seat) else f"left the table ({reason})"


def left_yourself(left: str) -> str:
    """A leave as every log has it ("left the table (their program was terminated)", §9.8),
    told to the seat that left: "left the table (your program was terminated)"."""
    head, bracket, reason = left.partition(" (")
    return f"{head}{bracket}{yours(reason)}" if bracket and head == "left the table" else left


def left_the_table(name: str) -> str:
    """What a seat's log says (`log.end`) where its screen says `YOU_LEFT`: the log is
    read by others, an auditor among them."""
    return f"{name} left the table"


NO_SEAT_ANSWERED = "no other seat answered after it"
DID_NOT_ANSWER = " did not answer after it"
EVERY_SEAT_ANSWERED = "every other seat answered after it"


def unanswered_after_stop(name: str, how: str, unanswered: str | None = None, cut: str | None = None) -> str:
    """What a seat's log says (`log.end`) when, back from a stop of its program (`how`:
    "was stopped for 30 s, …", no "; " in it), it reached no other seat (or not
    `unanswered`, "Ann and Dan", after a stop past the grace period): they ended the
    game, naming it away (§11.3). `cut`: what other seats reported they could not reach
    meanwhile ("Bo could not reach Cy", no "; " in it), said before whom it could not."""
    if unanswered is None:
        return f"{name}'s program {how}; {NO_SEAT_ANSWERED}"
    return f"{name}'s program {how}; {f'{cut}; ' if cut else ''}{unanswered}{DID_NOT_ANSWER}"


def cut_after_stop(name: str, how: str, cut: str) -> str:
    """What a seat's log says (`log.end`) when, back from a stop of its program past the
    grace period (`how`), it reached every other seat, but some reported links they
    could not get back within it (`cut`, "Bo could not reach Cy"): it leaves (§11.3)."""
    return f"{name}'s program {how}; {EVERY_SEAT_ANSWERED}; {cut}"


def ended_unanswered_after_stop(name: str, why: str) -> bool:
    """Whether `why` (a `log.end`'s) is `unanswered_after_stop` for `name`."""
    return why.startswith(f"{name}'s program ") and why.endswith((f"; {NO_SEAT_ANSWERED}", DID_NOT_ANSWER))


def ended_cut_after_stop(name: str, why: str) -> str | None:
    """What other seats could not reach ("Bo could not reach Cy within the grace
    period"), if `why` (a `log.end`'s) is `cut_after_stop` for `name`; else None."""
    head = f"{name}'s program "
    _, found, cut = why.partition(f"; {EVERY_SEAT_ANSWERED}; ")
    return cut if why.startswith(head) and found and cut else None


def unanswered_named(name: str, why: str) -> str | None:
    """Whom `why` (`unanswered_after_stop` for `name`) says did not answer ("Ann and
    Dan"); None where no other seat answered."""
    _, _, unanswered = why.removeprefix(f"{name}'s program ").rpartition("; ")
    return None if unanswered == NO_SEAT_ANSWERED else unanswered.removesuffix(DID_NOT_ANSWER)


LineKind = Literal["turn", "snap", "power", "round", "table", "private", "warning", "error"]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits at a seat."""

    seat: int
    name: str
    short_id: str  # short form of the peer id (its certificate fingerprint)
    bot: bool = False


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the table's event log, in plain words."""

    text: str
    kind: LineKind = "table"
    seat: int | None = None  # the seat it is mostly about, for colouring
    yours: bool = False  # it tells of a move of the local seat's, or of one on its cards (`Told.yours`)


@dataclass(frozen=True, slots=True)
class RoundReport:
    """A finished round as the round-end screen shows it."""

    round: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    caller: int | None
    exhausted: bool  # R7: ended because nothing could be drawn
    tableaus: tuple[tuple[tuple[int, int], ...], ...]  # per seat: (slot, face) of every card
    audit_ok: bool | None = None  # None while the round's shuffles are being opened (§8.7)
    audit: str = ""  # the verdict in words


def round_cut_short(round_no: int, played_out: int) -> int | None:
    """Of a game that ended early (§9.8, §11.3), the round it was in, if that round had
    been dealt and was not played out (its shuffles never opened, §9.7), or None:
    `round_no` is the engine's round, `played_out` the rounds whose scores stand."""
    return round_no if round_no > played_out else None


@dataclass(slots=True)
class Deadlines:
    """Timers the screen shows, on the session's clock (`TableSession.now()`)."""

    turn: float | None = None  # R5 turn timer of the current turn
    peek: float | None = None  # R4.3 ready barrier before the first turn
    grace: float | None = None  # §11.3 the game ends then unless the seats waited for are back
    unknown: bool = False  # the turn's timer (or the ready barrier) runs, from before this seat restarted: no countdown


@dataclass(slots=True)
class Progress:
    """Network-level state the screen shows besides the game."""

    waiting_for: tuple[int, ...] = ()  # seats the table is waiting on (link down, slow)
    ended: bool = False  # the game is over (normally, or by the policy of §11)
    ended_why: str = ""
    finished: bool = False  # it ended at its last round, whose scores stand (§9.8): the winners are final
    leaving: bool = False  # this seat is leaving the table (the player asked, or the process was told to stop)
    log_path: str = ""
    sending: tuple[str, ...] = ()  # the local seat's intents not yet in the agreed order (wire types, §9.5)
    sending_for: float = 0.0  # how long the first of them has waited so far (seconds, from when a screen saw it)
    held_by: tuple[int, ...] = ()  # the seats whose word the order waits for before it can count (§7.4)
    gone: tuple[int, ...] = ()  # seats that left the table, their link down, their leave not yet delivered (§9.8)
    stopped_s: float = 0.0  # how long this program did not run in all (stopped, or its machine slept)
    # back from a stop of this many seconds, longer than the grace period: the seat is reaching
    # the others again (they have likely ended the game), and its screen offers no move meanwhile (§11.3)
    stopped_past_grace: int | None = None
    # back from a stop the others noticed, this seat re-makes the links they closed meanwhile:
    # the seats in `waiting_for` are the ones it has not reached again, not players away (§11.3)
    reconnecting_after_stop: bool = False
    extra: dict[str, str] = field(default_factory=dict)


class TableSession(Protocol):
    """A seat at a running table."""

    @property
    def me(self) -> int:
        """The local seat."""
        ...

    @property
    def seats(self) -> tuple[SeatInfo, ...]: ...

    def view(self) -> SeatView:
        """The current state as the local seat knows it (a live engine view: read it,
        do not keep it across `changed()`)."""
        ...

    def submit(self, intent: Intent) -> bool:
        """Send an intent of the local seat. Never blocks; if the engine refuses it when
        it is delivered (too late, out of turn), an error `Line` says why. Whether it was
        sent: nothing is once the game or the seat's run is over."""
        ...

    @property
    def lines(self) -> list[Line]: ...

    @property
    def reports(self) -> list[RoundReport]: ...

    @property
    def deadlines(self) -> Deadlines: ...

    @property
    def progress(self) -> Progress: ...

    def notice_stop(self) -> None:
        """Take in, before a screen reads the rest, whether this program did not run for a
        while (it was stopped, its machine slept): a live seat learns of the stop now
        (§9.6) if nothing of it ran since, so that what the screen reads and does next
        counts it (`Progress.stopped_s`)."""
        ...

    def now(self) -> float:
        """The clock `deadlines` are on (trio's clock)."""
        ...

    async def changed(self) -> None:
        """Return when anything above may have changed."""
        ...

    async def leave(self, reason: str = CHOSE_TO_LEAVE) -> bool:
        """Leave the table: the log is closed valid; the others see the seat go, and
        read `reason` (by default: the player chose to). Whether this call sent the
        seat's leave: nothing is once the game or the seat's run is over."""
        ...

    async def go_away(self, reason: str) -> None:
        """Stop playing the seat meaning to come back (its terminal was closed): no
        leave; the seat can be taken back (`--resume`) while the others wait for it,
        which they do as for a crash (§11.3)."""
        ...


class SessionRecord:
    """What every `TableSession` keeps for the screen: the lines told, the round
    reports, the deadlines shown and the progress (a base for implementations)."""

    def __init__(self, log_path: str = "") -> None:
        self._lines: list[Line] = []
        self._reports: list[RoundReport] = []
        self._deadlines = Deadlines()
        self._progress = Progress(log_path=log_path)

    @property
    def lines(self) -> list[Line]:
        return self._lines

    @property
    def reports(self) -> list[RoundReport]:
        return self._reports

    @property
    def deadlines(self) -> Deadlines:
        return self._deadlines

    @property
    def progress(self) -> Progress:
        return self._progress

    def notice_stop(self) -> None:
        """A session with no clocks of its own to stand has no stop to notice."""
