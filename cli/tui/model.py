"""What the screen shows of a table, frozen at one moment.

The table lives on trio's thread and changes under its own clock; the terminal draws
on its own thread. Between them passes only immutable data: a `TableModel` captured
from the `TableSession` (the seat's `ViewSnapshot`, the log lines, the reports, the
timers), so a redraw can never read a half-applied event or a card the seat does not
know — the view only holds what the rules let this seat see.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import SNAP_PHASES, CardView, Intent, Skills, ViewSnapshot, legal_intents
from engine.narrate import owner
from p2p.session import Line, RoundReport, SeatInfo, TableSession
from cli.tui.seat_names import fit_names

KEEP_LINES = 300
"""Log lines kept for the screen (the session keeps them all)."""

SAID_NAME = 16
"""Columns a player's name takes at most in what the screen says in sentences (the prompt
line, its messages, the status bar's list of players waited for): a longer name ends in …
(`fit_names`), so that a sentence naming two players keeps its keys on an 80-column screen."""


@dataclass(frozen=True, slots=True)
class TableModel:
    """One seat's table at `now` (on the session's clock)."""

    me: int
    seats: tuple[SeatInfo, ...]
    view: ViewSnapshot
    skills: Skills
    legal: tuple[Intent, ...]  # every non-snap intent the engine would accept from me now
    can_snap: bool  # R6 allows me a snap now (a live table holds it while a card is being turned)
    lines: tuple[Line, ...]
    line_total: int
    reports: tuple[RoundReport, ...]
    turn_deadline: float | None
    peek_deadline: float | None
    grace_deadline: float | None  # §11.3 the game ends then unless those waited for are back
    clock_unknown: bool  # a timer runs that began before this seat restarted: how long it has left is not known
    waiting_for: tuple[int, ...]
    sending: tuple[str, ...]  # my intents not yet in the agreed order (wire types: "draw", "snap", …)
    ended: bool
    ended_why: str
    finished: bool  # ended normally: the engine's winners are final
    leaving: bool  # this seat is leaving (the player asked, or the process was told to stop)
    log_path: str
    now: float
    logs_beside: tuple[str, ...] = ()  # the game's other logs on this machine: its bots' (`cli.game.SeatPeer`)
    stopped_s: float = 0.0  # how long this program did not run in all (`Progress.stopped_s`)
    stopped_past_grace: int | None = None  # back from a stop this long, past the grace period: no move plays (§11.3)
    reconnecting_after_stop: bool = False  # `waiting_for` are the links this seat re-makes after its stop (§11.3)
    reconnecting_after_resume: bool = False  # `waiting_for` are the links this seat re-makes, resumed (§11.3)
    sending_for: float = 0.0  # how long the first of `sending` has waited (`Progress.sending_for`)
    held_by: tuple[int, ...] = ()  # the seats whose word the order waits for before it counts (§7.4)
    gone: tuple[int, ...] = ()  # seats that left the table, their leave not yet delivered (`Progress.gone`)

    @classmethod
    def capture(cls, session: TableSession) -> TableModel:
        session.notice_stop()  # (first: a live seat takes in a stop of its program, §9.6)
        progress = session.progress
        view = session.view()
        lines = session.lines
        deadlines = session.deadlines
        return cls(
            me=session.me,
            seats=tuple(session.seats),
            view=view.snapshot(),
            skills=view.skills,
            legal=tuple(legal_intents(view)),
            can_snap=view.phase in SNAP_PHASES and view.top is not None and not view.snapped[session.me],
            lines=tuple(lines[-KEEP_LINES:]),
            line_total=len(lines),
            reports=tuple(session.reports),
            turn_deadline=deadlines.turn,
            peek_deadline=deadlines.peek,
            grace_deadline=deadlines.grace,
            clock_unknown=deadlines.unknown,
            waiting_for=tuple(progress.waiting_for),
            sending=tuple(progress.sending),
            sending_for=progress.sending_for,
            held_by=tuple(progress.held_by),
            gone=tuple(progress.gone),
            ended=progress.ended,
            ended_why=progress.ended_why,
            finished=progress.finished,
            leaving=progress.leaving,
            log_path=progress.log_path,
            now=session.now(),
            logs_beside=tuple(getattr(session, "logs_beside", ())),
            stopped_s=progress.stopped_s,
            stopped_past_grace=progress.stopped_past_grace,
            reconnecting_after_stop=progress.reconnecting_after_stop,
            # (`TablePeer.rejoining`: resumed, or back from a stop, and not yet at every seat again)
            reconnecting_after_resume=(bool(getattr(session, "rejoining", False))
                                       and not progress.reconnecting_after_stop),
        )

    # --- conveniences for the screens -----------------------------------------------------

    @property
    def reconnecting_after(self) -> str | None:
        """Why the seats in `waiting_for` are links this seat re-makes, nobody else being
        away (§11.3): "your stop", "resuming" (a seat taken back after a crash), or None."""
        if self.reconnecting_after_stop:
            return "your stop"
        return "resuming" if self.reconnecting_after_resume else None

    @property
    def players(self) -> int:
        return self.view.players

    def name(self, seat: int) -> str:
        return self.seats[seat].name if seat < len(self.seats) else f"seat {seat + 1}"

    def short_name(self, seat: int, width: int) -> str:
        """`seat`'s name in at most `width` columns, unlike every other seat's (`fit_names`)."""
        return fit_names([self.name(s) for s in range(self.players)], width)[seat]

    def said_name(self, seat: int) -> str:
        """`seat`'s name as the screen's sentences write it (`SAID_NAME`)."""
        return self.short_name(seat, SAID_NAME)

    def whose(self, seat: int, width: int = SAID_NAME) -> str:
        """`seat`'s name as a possessive in the screen's sentences ("Bo's", `possessive`),
        in `width` columns at most before the "'s"."""
        return "".join(self.owner(seat, width))

    def owner(self, seat: int, width: int = SAID_NAME) -> tuple[str, str]:
        """`whose` in two (`engine.narrate.owner`): the name, then "'s" or nothing."""
        return owner(self.short_name(seat, width), [self.name(s) for s in range(self.players)])

    def opponent(self, position: int) -> int | None:
        """The seat `position` places clockwise from me (1 = on my left), if any."""
        if not 1 <= position < self.players:
            return None
        return (self.me + position) % self.players

    def position(self, seat: int) -> int:
        """How many places clockwise from me `seat` sits (0 = me)."""
        return (seat - self.me) % self.players

    def slots(self, seat: int) -> tuple[CardView | None, ...]:
        return self.view.tableaux[seat]

    def card_in(self, seat: int, slot: int) -> CardView | None:
        tableau = self.view.tableaux[seat]
        return tableau[slot] if 0 <= slot < len(tableau) else None

    @property
    def top(self) -> CardView | None:
        return self.view.discard[-1] if self.view.discard else None

    @property
    def my_turn(self) -> bool:
        """It is my turn and the table owes the engine nothing (turn keys act now)."""
        return self.view.turn_seat == self.me and not self.view.needs

    @property
    def busy(self) -> bool:
        """The table is turning a card over (or reshuffling): turn actions wait for it."""
        return bool(self.view.needs)

    @property
    def snap_open(self) -> bool:
        """R6 allows me a snap now and none of mine is on its way (`can_snap` knows only
        the snaps in the agreed order): what the screen offers Space for."""
        return self.can_snap and "snap" not in self.sending

    @property
    def snap_made(self) -> bool:
        """My one snap of this turn (R6) is made, or on its way."""
        return self.view.snapped[self.me] or "snap" in self.sending

    @property
    def turn_sent(self) -> str | None:
        """A move of my turn I sent that the table has not yet taken in (its wire type):
        the next one waits for it, lest it be judged before it and refused (R5)."""
        return next((kind for kind in self.sending if kind not in ("ready", "snap")), None)

    def remaining(self, deadline: float | None) -> float | None:
        return None if deadline is None else max(0.0, deadline - self.now)
