"""How long the table waited on one seat's acknowledgements alone, lately (§9.11 "Acks").

Theory of operation
-------------------
The next delivery waits on the promise (§7.3) or echo (§7.10) of every seat that has
not given it yet. An honest seat gives it within a message delay, so the table seldom
waits on it, and never for most of a while. A seat that sends every ack late keeps
the next delivery waiting again and again, each time on another message and each time
a little less than any single limit: no one wait says anything, their sum does.

`AckWaits` keeps, for each seat, the spans of time during which the next delivery
waited on that seat's word and on nobody else's, and sums them over a recent window:
progress (one message covered, the next one held back) ends no span that goes on. The
shell says, after each input, which seat the table waits on alone now, if any (none
while a link of the table is down: that is waited for as such, §11.3), and forgets
what an excuse covers (a seat's absence, its own process's stop). It is pure: every
time is given to it.
"""

from __future__ import annotations

from collections import deque


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
