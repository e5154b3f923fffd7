"""One seat's own clocks at a table: the turn timer, the ready barrier, the stall wait.

Theory of operation
-------------------
A table's verdicts read only the agreed order (§9.6, §9.11): whose time is over is
counted from delivered ``timeout`` claims, a stall from delivered ``stalled`` claims.
*When* this seat makes such a claim is its own business, decided by the clocks here,
which nothing else ever reads: they run on this machine's time, start when this replica
applies what starts them (a turn, a round's deal, a wait for protocol work) and so
differ a little from seat to seat, and the auditor, replaying a log, has none.

A clock stands while a link of the table is down (§11.3) or while this process did not
run (§9.6): time away never counts, time present always does. The wait on a seat that
is itself the only one to report links down goes on meanwhile (`pause`'s `running`):
its own report excuses nothing it owes (§9.11). A turn's timer and the
ready barrier stand `timers_stand` seconds at most in all, so a peer that reports a
link down and up again over and over cannot stretch a turn without end; the stall wait
stands as long as the links are down (an absence that long ends the game by itself).
"""

from __future__ import annotations

from typing import Literal

WaitKey = tuple[str, int, int]
"""What the table waits for (`Awaited.key`) or which timer runs (`("turn", round, turn)`,
`("peek", round, 0)`)."""


class SeatClocks:
    """Since when this seat's timers and its wait for others' work run (local time)."""

    def __init__(self, *, turn_s: float, peek_s: float, timers_stand: float) -> None:
        self.turn_s = turn_s
        self.peek_s = peek_s
        self.timers_stand = timers_stand
        self.turn_since: tuple[int, float] | None = None  # (turn, time it started here)
        self.peek_since: float | None = None
        # what the table waits for, and since when it waits on each seat (local time)
        self.wait: tuple[WaitKey, dict[int, float]] | None = None
        self._stood = {"turn": 0.0, "peek": 0.0}  # how long the running timer has stood for links down
        self._paused_at: float | None = None  # since when a link of the table is down
        self._running: frozenset[int] = frozenset()  # seats whose wait goes on meanwhile

    def start_turn(self, turn: int, now: float) -> None:
        """Turn `turn` began here at `now` (R5)."""
        self.turn_since, self._stood["turn"] = (turn, now), 0.0

    def start_peek(self, now: float) -> None:
        """A round's ready barrier began here at `now` (R4.3)."""
        self.peek_since, self._stood["peek"] = now, 0.0

    def wait_for(self, key: WaitKey | None, seats: tuple[int, ...], now: float) -> None:
        """The table now waits for `key` from `seats` (None: for nothing). Each seat is
        timed from when its work fell due: a wait for the same thing keeps the start of
        the seats it still waits on, and a seat it waits on anew (the next step of a
        shuffle chain) starts now."""
        if key is None:
            self.wait = None
            return
        kept = self.wait[1] if self.wait is not None and self.wait[0] == key else {}
        self.wait = (key, {seat: kept.get(seat, now) for seat in seats})

    def due(self, key: WaitKey) -> float | None:
        """When the timer `key` runs out by this seat's clock (None: it is not running here)."""
        if key[0] == "peek":
            return None if self.peek_since is None else self.peek_since + self.peek_s
        since = self.turn_since
        return since[1] + self.turn_s if since is not None and since[0] == key[2] else None

    def pause(self, now: float, running: frozenset[int] = frozenset()) -> None:
        """A link of the table is down (§11.3): every clock stands from `now`, so a
        crash or a lost link is never taken for withholding (§9.11), and nothing can be
        played meanwhile (§9.6); but the wait on the seats `running` goes on (a seat whose
        own report is all that is down, §9.11). Asked again with other `running` seats,
        the clocks go on to `now` as they stood, and stand anew from there."""
        if self._paused_at is not None and running != self._running:
            self.resume(now)
        if self._paused_at is None:
            self._paused_at, self._running = now, running

    def stand_while_stopped(self, since: float, now: float) -> None:
        """This peer did not run from before `since` until `now` (its process was stopped,
        its machine slept): the clocks stand from `since`, as if a link went down then
        (§9.6), and go on from `now` unless a link is down; clocks that stand already
        stand from the earlier of the two."""
        if since >= now:
            return
        if self._paused_at is not None:
            self._paused_at = min(self._paused_at, since)
            return
        self.pause(since)
        self.resume(now)

    def resume(self, now: float) -> None:
        """Every link is back: each clock goes on from where it stood when the first link
        went down (one that started meanwhile, from now). A timer stands `timers_stand`
        at most in all."""
        paused, self._paused_at = self._paused_at, None
        running, self._running = self._running, frozenset()
        if paused is None:
            return

        def moved(since: float) -> float:
            return since + now - max(since, paused)

        def stood(timer: Literal["turn", "peek"], since: float) -> float:
            shift = min(moved(since) - since, self.timers_stand - self._stood[timer])
            self._stood[timer] += shift
            return since + shift

        if self.wait is not None:
            key, starts = self.wait
            self.wait = (key, {seat: since if seat in running else moved(since) for seat, since in starts.items()})
        if self.turn_since is not None:
            turn, since = self.turn_since
            self.turn_since = (turn, stood("turn", since))
        if self.peek_since is not None:
            self.peek_since = stood("peek", self.peek_since)
