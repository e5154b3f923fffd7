"""Seeing the table off after the game ended here (protocol.md §11.4).

Theory of operation
-------------------
A game ends at one point of the agreed order: the delivery that scored the last round,
or a seat's delivered `leave` (§9.8). A peer that has delivered it has logged all it
will log, but the others may not be there yet. To deliver that same message they may
still need from us a retransmission, a promise stamped at or above it (§7.3), or our
echo of it (§7.10). A peer that crashed just before the end and resumed needs fresh
promises from everybody, since acks are not logged. A peer that closed its links at
once would leave them waiting for the grace period (§11.3), and ending without it.

So the peer stays on its links a while, answering as in the game: acks, heartbeats,
retransmissions. Nothing more is delivered or logged. It goes once every other seat is
*seen off*:

* it said goodbye (a clean `bye`, §4.6): it ended its game too, or left; or
* its link is up, a signed frame came from it after our game ended (and since the link
  last came up), and its latest acks say it holds every content and side message we
  sent. What it may still lack then is our ack sent as the game ended (our promise,
  and our heads as the echo, §7.10), which went out on that reliable link (§4) before
  the frame we heard came back on it. (A frame from before our end is not enough: a
  link cut just then loses that ack, and the cut is only seen a moment later.)

A seat whose link went down without a goodbye (a crash, a pulled cable) may come back
and need us, so it is waited for; when its link comes back it is sent an ack at once.
The wait is bounded by `SEE_OFF_LIMIT`, after which the peer goes anyway.

Pure: fed link events and the order's view of what each seat holds; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

SEE_OFF_LIMIT = 15.0  # seconds a peer whose game ended stays for the others at most


@dataclass
class Farewell:
    """Whom this peer still stays for, after its game ended (§11.4)."""

    others: tuple[int, ...]
    until: float
    up: set[int] = field(default_factory=set)  # seats whose link is up
    fresh: set[int] = field(default_factory=set)  # ... and that sent something since it came up, and since the end
    gone: set[int] = field(default_factory=set)  # seats that said goodbye

    @classmethod
    def begin(cls, seats: int, me: int, now: float, *, up: Iterable[int], gone: Iterable[int] = (),
              limit: float = SEE_OFF_LIMIT) -> Farewell:
        """Start seeing off the other seats as the game ended; `up` are the seats linked
        now, `gone` those whose link is down after a goodbye."""
        others = tuple(s for s in range(seats) if s != me)
        linked = set(up) & set(others)
        return cls(others, now + limit, linked, set(), (set(gone) & set(others)) - linked)

    def link_up(self, seat: int) -> None:
        """A link came (back) up: what it held before may be stale (it may have restarted)."""
        self.up.add(seat)
        self.fresh.discard(seat)
        self.gone.discard(seat)

    def link_down(self, seat: int, *, clean: bool) -> None:
        """A link went down; `clean` if the seat said goodbye."""
        self.up.discard(seat)
        self.fresh.discard(seat)
        if clean:
            self.gone.add(seat)

    def heard(self, seat: int) -> None:
        """A signed frame came from `seat` (on its current link)."""
        if seat in self.up:
            self.fresh.add(seat)

    def staying_for(self, holds_ours: Callable[[int], bool]) -> tuple[int, ...]:
        """The seats not yet seen off; `holds_ours(seat)`: its acks say it holds every
        content and side message of ours."""
        return tuple(s for s in self.others
                     if s not in self.gone and not (s in self.fresh and holds_ours(s)))

    def over(self, holds_ours: Callable[[int], bool], now: float) -> bool:
        """Whether this peer may go: everybody seen off, or the wait is up."""
        return now >= self.until or not self.staying_for(holds_ours)
