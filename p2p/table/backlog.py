"""Delivered messages the table has not taken yet, weighed per sender (§7.2, §9.4).

Theory of operation
-------------------
While a reveal waits for its shares (§9.4), the table keeps the ordered messages
delivered after it: the machine those it was handed, the intake those it was not handed
yet. A sender's messages kept there weigh on its bound of §7.2 (`HELD_BYTES`) as if
they were not delivered: the order asks for their bytes (`Orderer.kept`) when it weighs
the sender's next message, so a sender that floods a table kept waiting is refused by
name as soon as its messages waiting anywhere here would pass the bound. Sans-I/O.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from p2p.order import Delivered


class Backlog:
    """Delivered messages kept in order, with the bytes of each sender's bodies counted."""

    __slots__ = ("_messages", "_bytes")

    def __init__(self) -> None:
        self._messages: deque[Delivered] = deque()
        self._bytes: dict[int, int] = {}  # seat -> the bytes of its bodies kept

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Delivered]:
        return iter(self._messages)

    def append(self, delivered: Delivered) -> None:
        self._messages.append(delivered)
        self._bytes[delivered.seat] = self._bytes.get(delivered.seat, 0) + len(delivered.envelope.body)

    def popleft(self) -> Delivered:
        delivered = self._messages.popleft()
        self._bytes[delivered.seat] -= len(delivered.envelope.body)
        return delivered

    def bytes_of(self, seat: int) -> int:
        """The bytes of `seat`'s bodies kept here."""
        return self._bytes.get(seat, 0)
