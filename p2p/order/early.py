"""Messages that arrived before their seq was due, held until the gap fills (§7.2, §7.8).

Theory of operation
-------------------
A receiver takes each sender's chain (content, or side) in seq order; a message whose
seq is beyond the one it waits for is *held* here until retransmission fills the gap.
What a sender can make a receiver hold is bounded twice, each bound refused as a broken
chain (`ChainBroken`) naming the sender, with nothing held changed: a seq `MAX_HELD` or
more beyond the one awaited (so at most `MAX_HELD` - 1 wait), and bodies of more than
`HELD_BYTES` in all, counting with the content held here the content taken into the
chain and not yet delivered, and that delivered and kept by the table behind a reveal
(`weigh`: a sender can make the order, or the table, wait too). Honest play stays far inside both (protocol.md §7.2 says why), so
only a sender that signs messages nobody could need yet reaches them, and an honest peer
holds at most `HELD_BYTES` per chain of each other seat. The bounds are per sender, not
shared: a cheat can fill only its own. Sans-I/O.
"""

from __future__ import annotations

from p2p.order.errors import ChainBroken
from p2p.order.header import Envelope

MAX_HELD = 4096  # a seq this far or more beyond the awaited one is refused (§7.2)
HELD_BYTES = 8 * 1024 * 1024  # bodies held early per sender and chain: eight of the largest a frame carries (§4.2)


class Early:
    """One sender's messages of one chain held early, by seq, with their bytes counted."""

    __slots__ = ("_by_seq", "size")

    def __init__(self) -> None:
        self._by_seq: dict[int, Envelope] = {}
        self.size = 0  # the bytes of the bodies held

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
        envelope = self._by_seq.pop(seq)
        self.size -= len(envelope.body)
        return envelope

    def discard(self, seq: int) -> None:
        """Take out the message `seq`, if held."""
        if seq in self._by_seq:
            self.pop(seq)

    def copy(self) -> Early:
        copy = Early()
        copy._by_seq, copy.size = dict(self._by_seq), self.size
        return copy

    def hold(self, seq: int, due: int, envelope: Envelope, *, side: bool = False, taken: int = 0) -> None:
        """Hold `envelope`, the sender's message `seq` of its chain (its side chain if
        `side`), not held yet and beyond `due`, the one awaited; or refuse it (§7.2).
        `taken`: as for `weigh`."""
        if seq >= due + MAX_HELD:
            named, chain = ("side sseq", " of side messages") if side else ("seq", "")
            raise ChainBroken(envelope.sender, f"{named} {seq} is {MAX_HELD} or more beyond its seq {due}{chain}, "
                                               "which this peer waits for: no honest sender runs that far ahead")
        self.weigh(seq, envelope, side=side, taken=taken)
        self._by_seq[seq] = envelope
        self.size += len(envelope.body)

    def weigh(self, seq: int, envelope: Envelope, *, side: bool = False, taken: int = 0) -> None:
        """Refuse (§7.2) `envelope`, the sender's message `seq` of this chain, if with it
        the sender's messages of this chain not yet delivered here, those held and
        `taken` bytes of those taken, would weigh more than `HELD_BYTES`."""
        size = self.size + taken + len(envelope.body)
        if size > HELD_BYTES:
            named, kind = ("side sseq", "side messages") if side else ("seq", "messages")
            raise ChainBroken(envelope.sender, f"{named} {seq}: with it, {size} bytes of its {kind} would already "
                                               f"wait here, more than the {HELD_BYTES} honest play can need")
