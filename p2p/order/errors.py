"""Violations of the agreed order (protocol.md §7), each naming its section and the peer it blames."""

from __future__ import annotations

from p2p.signing import SignedMessage


class OrderError(Exception):
    """A violation of §7, attributed to `peer` (a peer id)."""

    section = "§7"

    def __init__(self, peer: bytes, reason: str, *, evidence: tuple[SignedMessage, ...] = ()) -> None:
        super().__init__(f"{self.section}: {reason}")
        self.peer = peer
        self.reason = reason
        self.evidence = evidence


class MalformedHeader(OrderError):
    section = "§7.1"


class ChainBroken(OrderError):
    section = "§7.2"


class StampBackwards(OrderError):
    section = "§7.3"


class StampUnjustified(OrderError):
    """A stamp above one more than the highest of its sender's previous stamp and the
    stamps of the messages its heads name: what no honest clock gives (§7.3)."""

    section = "§7.3"


class Equivocation(OrderError):
    """Two different signed bodies with one seq: proven by `evidence`."""

    section = "§7.2"


class ForeignGame(MalformedHeader):
    """A message for another game: a replay, refused without changing anything (§7.1)."""


class HeadsInvalid(OrderError):
    """At delivery: a head the sender could not have held, or a hash that differs."""

    section = "§7.5"


class HeadsUnheld(HeadsInvalid):
    """At delivery: a head names seat `other`'s `seq`, which the receiver does not hold,
    though `other`'s own promises cover the message's stamp (that is what made it
    stable). Either the sender named a message `other` never signed, or `other` signed
    one, sent it to some peers only and promised the rest that it had not: the two
    signed statements contradict each other, and nothing here tells which is false."""

    def __init__(self, peer: bytes, reason: str, *, other: int, seq: int) -> None:
        super().__init__(peer, reason)
        self.other = other
        self.seq = seq


class HeadsForked(HeadsInvalid):
    """At delivery: a head names, as seat `other`'s `seq`, another message than the one
    held. Live, the echo rule (§7.10) leaves only the sender to blame; in a log read on
    its own, the named seat may as well have signed two messages as one."""

    def __init__(self, peer: bytes, reason: str, *, other: int, seq: int) -> None:
        super().__init__(peer, reason)
        self.other = other
        self.seq = seq


class HeadsFalse(OrderError):
    """A head about the receiver's own chain that no honest peer declares: a seq the
    receiver never signed, or another hash than its own message's (§7.10). Only the
    chain's author knows it for certain (nobody else can tell it from the author signing
    two messages with one seq, or one it never showed), so it is the author's word and
    carries no evidence: its signed ack proves nothing to a third party."""

    section = "§7.10"


class OutOfOrder(OrderError):
    """A recorded sequence that is not the agreed order (§7.4)."""

    section = "§7.4"
