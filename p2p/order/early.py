"""Messages that arrived before their seq was due, held until the gap fills (§7.2, §7.8).

Theory of operation
-------------------
A receiver takes each sender's chain (content, or side) in seq order; a message whose
seq is beyond the one it waits for is *held* here until retransmission fills the gap.
A message whose seq is `MAX_HELD` or more beyond the one awaited is refused as a broken
chain (`ChainBroken`) naming the sender, with nothing held changed, so at most
`MAX_HELD` - 1 wait. Honest play stays far inside that (protocol.md §7.2 says why), so
only a sender that signs messages nobody could need yet reaches it. Sans-I/O.
"""

from __future__ import annotations

from p2p.order.errors import ChainBroken
from p2p.order.header import Envelope

MAX_HELD = 4096  # a seq this far or more beyond the awaited one is refused (§7.2)


class Early:
    """One sender's messages of one chain held early, by seq."""

    __slots__ = ("_by_seq",)

    def __init__(self, by_seq: dict[int, Envelope] | None = None) -> None:
        self._by_seq: dict[int, Envelope] = dict(by_seq or {})

    def __len__(self) -> int:
        return len(self._by_seq)

    def __contains__(self, seq: int) -> bool:
        return seq in self._by_seq

    def __getitem__(self, seq: int) -> Envelope:
        return self._by_seq[seq]

    def get(self, seq: int) -> Envelope | None:
        return self._by_seq.get(seq)

    def pop(self, seq: int) -> Envelope:
        """Take out the message `seq`, held: its gap is filled."""
        return self._by_seq.pop(seq)

    def discard(self, seq: int) -> None:
        """Take out the message `seq`, if held."""
        self._by_seq.pop(seq, None)

    def copy(self) -> Early:
        return Early(self._by_seq)

    def hold(self, seq: int, due: int, envelope: Envelope, *, side: bool = False) -> None:
        """Hold `envelope`, the sender's message `seq` of its chain (its side chain if
        `side`), not held yet and beyond `due`, the one awaited; or refuse it (§7.2)."""
        if seq >= due + MAX_HELD:
            named, chain = ("side sseq", " of side messages") if side else ("seq", "")
            raise ChainBroken(envelope.sender, f"{named} {seq} is {MAX_HELD} or more beyond its seq {due}{chain}, "
                                               "which this peer waits for: no honest sender runs that far ahead")
        self._by_seq[seq] = envelope
