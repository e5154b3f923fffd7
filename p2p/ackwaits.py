"""Whose acknowledgements the table waits for, and for how long (§7.3, §9.11 "Acks").

Theory of operation
-------------------
The next delivery waits on the promise (§7.3) or echo (§7.10) of every seat that has
not given it yet. An honest seat gives it within a message delay, so the table seldom
waits on it, and never for most of a while. Two kinds of seat keep it waiting:

* one whose word holds back the same message `ACKS_LATE` (it stopped acknowledging, its
  link up): the table waits for it as for a link down (§11.3: the timers stand, the
  stall clock times it alone);
* one that sends every ack late, and so holds back one message after another, each time
  a little less than any single limit: no one wait says anything, their sum does.
  `AckWaits` keeps, for each seat, the spans of time during which the next delivery
  waited on that seat's word and on nobody else's, and sums them over a recent window:
  progress (one message covered, the next one held back) ends no span that goes on. A
  seat waited on alone `ACKS_SLOW` of the last `ACKS_SLOW_WINDOW` seconds keeps the
  table waiting (waited for as above) until that is under `ACKS_KEEP_UP`; one waited on
  alone for the stall time within twice that is claimed (`stalled`, `what: "acks"`),
  once a round.

`AcksWatch` is that policy: the shell tells it, after each input, which message the
next delivery waits for and on whose word (less the seats away, or at either end of a
link reported down: those are waited for as such), and forgets what an excuse covers (a
seat's absence, its own process's stop); it answers what to tell the player, which
seats the table waits for, which stalls to claim and when any of that next changes. It
is pure: every time is given to it, and the shell words what it tells.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

from p2p.order import HEARTBEAT_EVERY

ACKS_LATE = 2 * HEARTBEAT_EVERY  # a seat whose word holds back the next delivery this long is waited for (§7.3)
# A seat whose acks alone kept the next delivery waiting `ACKS_SLOW` seconds of the last
# `ACKS_SLOW_WINDOW` keeps the table waiting (its acks are late, one after another), and
# keeps up again once that is under `ACKS_KEEP_UP` (§9.11 "Acks").
ACKS_SLOW_WINDOW = 10.0
ACKS_SLOW = 5.0
ACKS_KEEP_UP = 2.0

Token = tuple[str, int]
"""The message the next delivery waits for (`Orderer.holding_back`): progress changes it."""


class AckWaits:
    """The spans during which the next delivery waited on one seat's acks alone."""

    def __init__(self) -> None:
        self._open: tuple[int, float] | None = None  # (the seat waited on alone now, since when)
        self._spans: dict[int, deque[tuple[float, float]]] = {}  # seat -> (begin, end), oldest first

    def note(self, now: float, alone: int | None, keep: float) -> None:
        """From `now` on, the table waits on `alone`'s word alone (None: on no one seat
        alone). Spans that ended `keep` seconds ago or more are dropped."""
        if self._open is not None and self._open[0] != alone:
            seat, since = self._open
            if now > since:
                self._spans.setdefault(seat, deque()).append((since, now))
            self._open = None
        if alone is not None and self._open is None:
            self._open = (alone, now)
        for seat, spans in list(self._spans.items()):
            while spans and spans[0][1] <= now - keep:
                spans.popleft()
            if not spans:
                del self._spans[seat]

    def forget(self, seats: set[int] | frozenset[int] | None = None) -> None:
        """Drop what was noted of `seats` (None: of every seat), the span under way too."""
        if self._open is not None and (seats is None or self._open[0] in seats):
            self._open = None
        for seat in list(self._spans):
            if seats is None or seat in seats:
                del self._spans[seat]

    def waited(self, seat: int, now: float, window: float) -> float:
        """Seconds of the last `window` during which the table waited on `seat` alone."""
        start = now - window
        total = sum(min(end, now) - max(begin, start) for begin, end in self._spans.get(seat, ()) if end > start)
        if self._open is not None and self._open[0] == seat:
            total += max(0.0, now - max(self._open[1], start))
        return total

    def reaches(self, seat: int, now: float, window: float, amount: float) -> float | None:
        """The earliest moment `waited(seat, ·, window)` can reach `amount`, if the wait
        under way on `seat` goes on (None: the table does not wait on it now)."""
        if self._open is None or self._open[0] != seat:
            return None
        return now + max(0.0, amount - self.waited(seat, now, window))

    def seats(self) -> set[int]:
        """The seats with a span kept, or under way."""
        return set(self._spans) | ({self._open[0]} if self._open is not None else set())


@dataclass(frozen=True)
class AcksTold:
    """A change the player is told of a seat's acks: `held` (the table waits for them, one
    message held back `ACKS_LATE`), `confirms` (they came), `slow` (they kept the table
    waiting `waited` seconds of the last `ACKS_SLOW_WINDOW`) or `keeps up` (no longer)."""

    seat: int
    what: str
    waited: float = 0.0


class AcksWatch:
    """One seat's watch over the others' acks: whom the table waits for, what to tell the
    player, which stalls to claim (§9.11 "Acks"). `stall` is the stall time for acks."""

    def __init__(self) -> None:
        self.waits = AckWaits()
        # seat -> (the delivery it holds back, since when): its acks do not cover it (§7.3, §7.10)
        self._late: dict[int, tuple[Token, float]] = {}
        self._told_held: set[int] = set()  # seats the player was told the table waits for their acks
        self._told_slow: set[int] = set()  # seats the player was told their late acks keep the table waiting
        self._claimed: set[tuple[int, int]] = set()  # (round, seat) whose acks' stall was claimed

    def track(self, now: float, token: Token, waiting: Sequence[int], *, alone: bool, stall: float,
              absent: Set[int] = frozenset(), cut: Set[int] = frozenset()) -> list[AcksTold]:
        """The next delivery, `token`, waits on the word of `waiting` (seats away, or at
        either end of a link reported down, left out: `absent`, `cut`); `alone`: no link
        of the table is down, so a seat waited on by itself is the table's only cause to
        wait. What the player is to be told, in order: acks that came, late acks that
        keep the table waiting or keep up again, and seats the table now waits for."""
        self.waits.note(now, waiting[0] if alone and len(waiting) == 1 else None, max(2 * stall, ACKS_SLOW_WINDOW))
        told = []
        for seat in list(self._late):
            if seat not in waiting:
                del self._late[seat]
                if seat in self._told_held:
                    self._told_held.discard(seat)
                    if seat not in absent and seat not in cut:  # (its link lost, or reported down: told as such)
                        told.append(AcksTold(seat, "confirms"))
        for seat in waiting:
            if self._late.get(seat, (None, 0.0))[0] != token:
                self._late[seat] = (token, now)
        told += self._track_slow(now, absent)  # (a seat whose one long wait just ended may have been slow)
        for seat in sorted(self.waited(now) - self._told_held):
            self._told_held.add(seat)
            told.append(AcksTold(seat, "held"))
        return told

    def _track_slow(self, now: float, absent: Set[int]) -> list[AcksTold]:
        """A seat's acks alone kept the next delivery waiting `ACKS_SLOW` of the last
        `ACKS_SLOW_WINDOW` seconds, however many messages they held back one after
        another: told once, and once when that is over; not while the table waits for
        that seat's acks as for a link down (`held`: told so), nor once it is away."""
        told = []
        self._told_slow -= absent  # (its absence is told instead)
        for seat in sorted(self.waits.seats() | self._told_slow):
            waited = self.waits.waited(seat, now, ACKS_SLOW_WINDOW)
            if seat not in self._told_slow and waited >= ACKS_SLOW and seat not in self._told_held:
                self._told_slow.add(seat)
                told.append(AcksTold(seat, "slow", waited))
            elif seat in self._told_slow and waited < ACKS_KEEP_UP:
                self._told_slow.discard(seat)
                told.append(AcksTold(seat, "keeps up", waited))
        return told

    def waited(self, now: float) -> frozenset[int]:
        """The seats whose acks have held back the next delivery `ACKS_LATE` or more: the
        table waits for them as for a link down, so a turn whose moves cannot count
        meanwhile is not timed out (§9.6), but their own stall is timed."""
        return frozenset(seat for seat, (_, since) in self._late.items() if now >= since + ACKS_LATE)

    def held(self, now: float) -> frozenset[int]:
        """The seats whose acks the table waits for as for a link down: one message held
        back `ACKS_LATE` (`waited`), or one late ack after another (told `slow`).
        Meanwhile the timers stand and the stall clock times those seats alone (a seat
        whose own shares came late only because its deliveries waited on their acks is
        never claimed for it, §9.11)."""
        return self.waited(now) | self._told_slow

    def holding(self) -> Mapping[int, float]:
        """Seat -> since when it holds back the next delivery (the whole wait for its word
        on one message: past the grace period, the game ends naming it, §11.3)."""
        return {seat: since for seat, (_, since) in self._late.items()}

    def claims(self, now: float, round_number: int, stall: float) -> list[int]:
        """The seats whose stall to claim now (`stalled`, `what: "acks"`), once a round: their
        acks alone kept the next delivery waiting `stall` seconds within twice that, held
        back in one piece or message after message (the shell asks only while every link
        of the table is up and a round is being played)."""
        due = [seat for seat in sorted(self.waits.seats()) if (round_number, seat) not in self._claimed
               and self.waits.waited(seat, now, 2 * stall) >= stall]
        self._claimed.update((round_number, seat) for seat in due)
        return due

    def deadline(self, now: float, round_number: int, stall: float) -> float | None:
        """When `waited` next grows, a seat's late acks are next to be told slow, or
        `claims` next has a claim to make, if the waits under way go on. (That they keep
        up again is told at the next input: every seat sends one at least every second.)"""
        times: list[float | None] = [since + ACKS_LATE for seat, (_, since) in self._late.items()
                                     if seat not in self._told_held]
        for seat in self.waits.seats():
            if (round_number, seat) not in self._claimed:
                times.append(self.waits.reaches(seat, now, 2 * stall, stall))
            if seat not in self._told_slow and seat not in self._told_held:  # (told held: never told slow)
                times.append(self.waits.reaches(seat, now, ACKS_SLOW_WINDOW, ACKS_SLOW))
        return min((t for t in times if t is not None), default=None)

    def forget(self, seats: Iterable[int] | None = None) -> None:
        """What was summed of `seats`' waits (None: every seat's) is excused: an absence,
        a link reported down, this process's own stop (it heard nobody meanwhile)."""
        self.waits.forget(None if seats is None else set(seats))
