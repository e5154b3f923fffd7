"""What a peer holds of each sender's chains, and the checks of §7.3 and §7.5 on them.

A content message is delivered in the agreed order (`Delivered`); each sender's chain, as
held here (`PeerChain`), gives the stamps, hashes and promises that the live order and
its replay judge by: the order of ties (`SaltSchedule`, §7.4), the heads a message names
(§7.5) and the most its stamp may be (§7.3). Sans-I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2p.order.early import Early
from p2p.order.errors import HeadsForked, HeadsInvalid, HeadsUnheld, OrderError, StampUnjustified
from p2p.order.header import ZERO_HASH, Envelope, tiebreak


Mark = tuple[int, Hashable]
"""How far the table is, to tell whether a return was of use (§11.3): the order's
position, and the protocol work (§9.11) the table waits for from the seats concerned."""


class Positions:
    """Where an agreed order stands: the position of its next message and the stamp being
    delivered (the live `Orderer` and the audit's `OrderReplay` count alike)."""

    position: int
    _delivering: int

    def _deliver(self, seat: int, envelope: Envelope, stamp: int, verdict: OrderError | None) -> Delivered:
        """`envelope` of `seat` delivered at the next position."""
        self._delivering = stamp
        delivered = Delivered(self.position, seat, envelope, verdict)
        self.position += 1
        return delivered


class Delivered:
    """One content message in the agreed order; `rejected` is set if it must not be applied.
    (Slots and a plain `__init__`: one is made for every message delivered, at every peer.
    Not a tuple: equal only to a `Delivered` of the same fields, unordered, and not
    something `p2p.wire.encode` packs. Not to be changed once made.)"""

    __slots__ = ("position", "seat", "envelope", "rejected")
    position: int
    seat: int
    envelope: Envelope
    rejected: OrderError | None

    def __init__(self, position: int, seat: int, envelope: Envelope, rejected: OrderError | None = None) -> None:
        self.position = position
        self.seat = seat
        self.envelope = envelope
        self.rejected = rejected

    def _fields(self) -> tuple[int, int, Envelope, OrderError | None]:
        return (self.position, self.seat, self.envelope, self.rejected)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Delivered:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"Delivered(position={self.position!r}, seat={self.seat!r}, envelope={self.envelope!r}, "
                f"rejected={self.rejected!r})")

    @property
    def stamp(self) -> int:
        return int(self.envelope.inner["lamport"])

    @property
    def blamed(self) -> tuple[int | None, tuple[int, ...]]:
        """Whom its rejection blames: (its sender, ()), or, for a head nothing here can
        judge (§7.5, `HeadsUnheld`), (None, the sender and the seat it names)."""
        if isinstance(self.rejected, HeadsUnheld):
            return None, (self.seat, self.rejected.other)
        return self.seat, ()


@dataclass(slots=True)
class PeerChain:
    """What this peer knows of one other peer's chain and promises."""

    next_seq: int = 0
    chain_hash: bytes = ZERO_HASH
    hashes: list[bytes] = field(default_factory=list)
    stamps: list[int] = field(default_factory=list)
    held: Early = field(default_factory=Early)  # content that arrived before its seq was due (§7.2)
    undelivered: int = 0  # the bytes of its content taken and not yet delivered (§7.2, `Early.weigh`)
    promises: list[tuple[int, int]] = field(default_factory=list)  # (stamp, own seq declared)
    covered: int = -1  # highest stamp promised with every message before it held
    vouched: int = -1  # highest seq whose stamp is justified (§7.3): in our clock and our content's heads
    has_of_mine: int = -1  # highest seq of my chain it declared holding
    resend_at: float | None = None
    side_next: int = 0
    side_hash: bytes = ZERO_HASH
    side_hashes: list[bytes] = field(default_factory=list)
    side_held: Early = field(default_factory=Early)
    has_side_of_mine: int = -1
    side_resend_at: float | None = None
    # §7.10: its messages (kept as evidence), and what it declared of other seats' chains
    envelopes: list[Envelope] = field(default_factory=list)
    side_envelopes: list[Envelope] = field(default_factory=list)
    echoed: dict[int, int] = field(default_factory=dict)  # seat -> highest seq declared with our hashes
    # its latest ack on its own link: its word now on what it holds of third seats' chains,
    # even when less than before (a resumed peer holds less, §11.3); read when relaying
    word: Envelope | None = None
    unchecked: dict[int, dict[int, bytes]] = field(default_factory=dict)  # seat -> {seq: hash} beyond what we hold
    side_unchecked: dict[int, dict[int, bytes]] = field(default_factory=dict)
    acks: dict[tuple[int, int], Envelope] = field(default_factory=dict)  # (stamp, last seq) -> its promise
    lasts: dict[int, tuple[bytes, Envelope]] = field(default_factory=dict)  # seq not taken yet -> an ack naming it
    away: tuple[int, ...] = ()  # §7.1: the seats it said, in its latest ack, it has no link to
    away_since: float | None = None  # when we first saw it say so
    away_stamp: int = -1  # the stamp of the ack that said it
    away_ended: tuple[float, Mark] | None = None  # (how long, the mark) when its last run of reports ended
    away_over: tuple[float, tuple[int, ...]] | None = None  # (when, the seats it named) its last run of reports ended

    def chain(self, digest: bytes, stamp: int) -> None:
        """Append the next content message of this sender's chain."""
        self.hashes.append(digest)
        self.stamps.append(stamp)
        self.chain_hash = digest
        self.next_seq += 1

    def chain_side(self, digest: bytes) -> None:
        """Append the next side message of this sender's side chain."""
        self.side_hashes.append(digest)
        self.side_hash = digest
        self.side_next += 1


class SaltSchedule:
    """§7.4: which tie-break salt applies at which stamp."""

    def __init__(self, initial: bytes) -> None:
        self._salts: list[tuple[int, bytes]] = [(0, initial)]

    def set_after(self, stamp: int, salt: bytes) -> None:
        """Use `salt` for stamps above `stamp` (the one being delivered)."""
        self._salts.append((stamp + 1, salt))

    def at(self, stamp: int) -> bytes:
        salt = self._salts[0][1]
        for since, value in self._salts:
            if since <= stamp:
                salt = value
        return salt

    def key(self, stamp: int, sender: bytes) -> tuple[int, bytes]:
        """The position key of a message in the agreed order."""
        return stamp, tiebreak(self.at(stamp), stamp, sender)


def heads_violation(peers: Sequence[PeerChain], seat: int, envelope: Envelope, stamp: int) -> HeadsInvalid | None:
    """§7.5, at delivery: every head names a message we hold, with that hash, stamped below."""
    heads = envelope.inner["heads"]
    others = [i for i in range(len(peers)) if i != seat]
    for other, (seq, digest) in zip(others, heads):
        if seq < 0:
            continue
        peer = peers[other]
        if seq >= peer.next_seq:
            return HeadsUnheld(envelope.sender, f"seat {seat + 1}'s message names seat {other + 1}'s seq {seq}, which "
                                                f"seat {other + 1}'s promises say it had not sent below stamp {stamp}: "
                                                "one of the two signed falsely, and nothing here tells which",
                               other=other, seq=seq)
        if peer.stamps[seq] >= stamp:
            return HeadsInvalid(envelope.sender, f"stamp {stamp} is not above the stamp of seat {other + 1}'s seq {seq}, which it claims to have received")
        if peer.hashes[seq] != digest:
            return HeadsForked(envelope.sender, f"it names a different message as seat {other + 1}'s seq {seq}",
                               other=other, seq=seq)
    return None


def other_seats(n: int) -> list[tuple[int, ...]]:
    """For each of `n` seats, the others in seat order: the seats its `heads` speak of."""
    return [tuple(i for i in range(n) if i != seat) for seat in range(n)]


StampOf = Callable[[int, int, bytes], "int | None"]
"""The stamp of a seat's message `seq` known with that hash, or None if it is not known."""


def lamport_bound(seat: int, seq: int, prev: bytes, others: Sequence[int], heads: Sequence[Sequence[Any]],
                  stamp_of: StampOf) -> int | None:
    """§7.3: the highest stamp `seat`'s content message `seq` may carry: one more than the
    highest of its previous message's stamp (hash `prev`) and the stamps of the messages
    its `heads` name (one per seat of `others`), each as `stamp_of` knows it; None if it
    does not know one. The live order, its replay and the audit of kept proofs judge so."""
    top = 0
    if seq:
        previous = stamp_of(seat, seq - 1, prev)
        if previous is None:
            return None
        top = previous
    for other, (named, digest) in zip(others, heads):
        if named < 0:
            continue
        stamp = stamp_of(other, named, digest)
        if stamp is None:
            return None
        if stamp > top:
            top = stamp
    return top + 1


def stamp_bound(peers: Sequence[PeerChain], others: Sequence[int], seat: int, seq: int, prev: bytes,
                heads: Sequence[Sequence[Any]]) -> int | None:
    """`lamport_bound` over the chains held: a message counts once vouched for
    (`PeerChain.vouched`) with that hash, and until then the bound waits for it (a head with
    another hash waits for the fork to be proven, §7.10)."""

    def vouched(at: int, n: int, digest: bytes) -> int | None:
        chain = peers[at]
        return chain.stamps[n] if n <= chain.vouched and chain.hashes[n] == digest else None

    return lamport_bound(seat, seq, prev, others, heads, vouched)


def unjustified(peers: Sequence[PeerChain], others: Sequence[int], seat: int, envelope: Envelope,
                bound: int) -> StampUnjustified | None:
    """The refusal of `envelope` if its stamp is above `bound` (`stamp_bound`), with the
    signed messages that prove it: itself, its sender's previous one, and those it names."""
    stamp, seq = int(envelope.inner["lamport"]), int(envelope.inner["seq"])
    if stamp <= bound:
        return None
    named = [peers[other].envelopes[at] for other, (at, _) in zip(others, envelope.inner["heads"]) if at >= 0]
    return StampUnjustified(
        envelope.sender,
        f"stamp {stamp} of seq {seq} is above {bound}: one more than the highest stamp of its previous message "
        "and of the messages it names is the most a Lamport clock gives",
        evidence=(envelope, *peers[seat].envelopes[max(seq - 1, 0):seq], *named),
    )
