"""What the order delivered, handed to the table machine as it can take it (§9.4, §10.1).

Theory of operation
-------------------
A peer logs each delivered message as it hands it to its `TableMachine`, so its log is
exactly what its machine took, in that order: the audit and a resumed seat replay it
call for call. The machine holds an ordered message behind a reveal that waits for
shares (§9.4), and shares are not ordered, so one peer may hold a message that another
takes at once. Were the later messages of the order handed over (and logged) behind a
held one, a held message that ends the game (a `leave`, say) would end some logs with
records after it and others without.

So the intake keeps what the order delivered while the machine holds something, and
hands it over once the held message is taken; once the game is over (or halted at a
violation) it hands over nothing more, as the machine would take nothing. One kind of
message cannot wait: a stall claim about shares (§9.11) is judged at once, because it is
what ends a wait for shares that never come. When one is in the intake, everything
before it is handed over (the machine holds it) and then the claim.

What the intake and the machine keep is bounded per sender, not by the intake: it
keeps pulling the order, so a claim is never stuck behind other messages, and each
sender's messages kept weigh on that sender's bound of §7.2 (`kept`, `Backlog`), so a
sender that floods a table kept waiting is refused by name. Sans-I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from p2p.order import Delivered
from p2p.table.backlog import Backlog
from p2p.table.messages import UNORDERED_STALLS


class Holder(Protocol):
    finished: bool
    halted: object  # the violation that halted it, or None

    @property
    def holding(self) -> bool: ...

    def held_bytes(self, seat: int) -> int: ...


def judged_at_once(delivered: Delivered) -> bool:
    """A stall claim about shares or acks: the table machine takes it even while it holds others."""
    inner = delivered.envelope.inner
    return delivered.rejected is None and inner["type"] == "stalled" and inner["what"] in UNORDERED_STALLS


class Intake:
    """Delivered messages the machine is not ready for, in the agreed order."""

    def __init__(self) -> None:
        self._waiting = Backlog()

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, delivered: Delivered) -> None:
        self._waiting.append(delivered)

    def kept(self, seat: int, machine: Holder) -> int:
        """The bytes of `seat`'s delivered messages that wait here or in `machine`: they
        weigh on its bound (§7.2, `Orderer.kept`)."""
        return self._waiting.bytes_of(seat) + machine.held_bytes(seat)

    def pull(self, deliveries: Iterator[Delivered], machine: Holder) -> Iterator[Delivered]:
        """What waits and can go now, then the order's `deliveries` as `machine` can take
        them: each is to be logged and handed over before the next is asked for (the order
        is pulled one message at a time, so a salt set by one applies to the next)."""
        yield from self.ready(machine)
        for delivered in deliveries:
            self.add(delivered)
            yield from self.ready(machine)

    def ready(self, machine: Holder) -> Iterator[Delivered]:
        """Yield the messages to log and hand to `machine` now, one at a time: hand each
        over before taking the next (whether the machine holds depends on it)."""
        while self._waiting and not machine.finished and machine.halted is None:
            if machine.holding and not any(judged_at_once(d) for d in self._waiting):
                return
            yield self._waiting.popleft()
