"""The agreed order checked on a recorded sequence (protocol.md §7, §10.2): what the audit replays.

Acks are not recorded, so promises cannot be re-checked; everything else is, with the
same pieces the live `Orderer` uses (`p2p.order.header`, `p2p.order.chains`), so that a
log's verdicts come out exactly as they did at the peer that wrote it. Sans-I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p.order.chains import (
    Delivered,
    Positions,
    PeerChain,
    SaltSchedule,
    heads_violation,
    other_seats,
    stamp_bound,
    unjustified,
)
from p2p.order.errors import ChainBroken, MalformedHeader, OutOfOrder, StampBackwards
from p2p.order.header import ACK_TYPE, Envelope, message_hash, parse_header, parse_side, seat_of, side_genesis
from p2p.plain import side_message


class OrderReplay(Positions):
    """§7 checked on a recorded sequence of content messages (what the audit does).

    Acks are not recorded, so promises cannot be re-checked; everything else is: each
    sender's chain (a dropped, repeated or displaced record breaks it), growing stamps,
    the agreed order with its salted tie-break, and the §7.5 heads verdicts, which come
    out exactly as they did at the live peer because the replay holds, at each record,
    exactly the messages ordered before it.
    """

    def __init__(self, *, seats: Sequence[bytes], game: bytes, ties: bool = True) -> None:
        """With ``ties=False`` only what needs no table state is checked (chains, and
        stamps never going backwards): the first pass of an audit, before the salts
        that order ties are known, so that a displaced record is blamed on the log and
        never on the peer whose heads it seems to break."""
        self.seats = tuple(seats)
        self.game = game
        self.ties = ties
        self._seat_of = {peer: i for i, peer in enumerate(self.seats)}
        self._peers = [PeerChain(chain_hash=game, side_hash=side_genesis(game)) for _ in self.seats]
        self._others = other_seats(len(seats))
        self.salts = SaltSchedule(game)
        self._last: tuple[int, bytes] | None = None
        self._delivering = 0
        self.position = 0

    def next(self, envelope: Envelope) -> Delivered:
        """Check the next recorded message; raise the `OrderError` that puts it out of place."""
        seat = seat_of(self._seat_of, envelope)
        if envelope.inner.get("type") == ACK_TYPE:
            raise MalformedHeader(envelope.sender, "an ack among the delivered messages (acks are never delivered)")
        header = parse_header(envelope, len(self.seats), self.game)
        peer = self._peers[seat]
        if header.seq != peer.next_seq:
            raise ChainBroken(
                envelope.sender,
                f"its seq {header.seq} comes where seq {peer.next_seq} is due: a record is missing, repeated or out of place",
            )
        if header.prev != peer.chain_hash:
            raise ChainBroken(envelope.sender, f"seq {header.seq} does not chain to the previous message")
        if peer.stamps and header.stamp <= peer.stamps[-1]:
            raise StampBackwards(envelope.sender, f"stamp {header.stamp} is not above its previous stamp {peer.stamps[-1]}")
        key = self.salts.key(header.stamp, envelope.sender) if self.ties else (header.stamp, b"")
        if self._last is not None and (key <= self._last if self.ties else key < self._last):
            if key[0] == self._last[0]:
                raise _tie_broken(envelope.sender, header.stamp)
            raise OutOfOrder(envelope.sender, f"stamp {header.stamp} comes after stamp {self._last[0]} in the record: not the agreed order")
        verdict = heads_violation(self._peers, seat, envelope, header.stamp) if self.ties else None
        if self.ties and verdict is None:  # §7.3, as the live peer vouched for it
            bound = stamp_bound(self._peers, self._others[seat], seat, header.seq, header.prev, header.heads)
            verdict = None if bound is None else unjustified(self._peers, self._others[seat], seat, envelope, bound)
        peer.chain(message_hash(envelope.body), header.stamp)
        peer.envelopes.append(envelope)
        if self.ties and verdict is None and peer.vouched == header.seq - 1:
            peer.vouched = header.seq
        self._last = key
        return self._deliver(seat, envelope, header.stamp, verdict)

    def ties_ahead(self, upcoming: Sequence[Envelope]) -> tuple[int, OutOfOrder] | None:
        """Where the agreed tie-break (§7.4) breaks among the next records of one stamp
        (`upcoming`, from the next record on, each through the first pass already): the
        offset in `upcoming` at which `next` will raise, and what it will raise.

        The salt for that stamp is set before any of them is delivered, so the whole
        stamp's order is known before the first of them is judged: a record a swap moved
        ahead of its stamp's others must not be judged (by the heads or the table) before
        the order says the log was altered (§10.2)."""
        if not self.ties or not upcoming:
            return None
        stamp = upcoming[0].inner["lamport"]
        last = self._last if self._last is not None and self._last[0] == stamp else None
        for offset, envelope in enumerate(upcoming):
            if envelope.inner["lamport"] != stamp:
                break
            key = self.salts.key(stamp, envelope.sender)
            if last is not None and key <= last:
                return offset, _tie_broken(envelope.sender, stamp)
            last = key
        return None

    def side(self, envelope: Envelope) -> int:
        """Check the next recorded side message of its sender (§7.8); return its seat."""
        seat = seat_of(self._seat_of, envelope)
        peer = self._peers[seat]
        sseq, sprev = parse_side(envelope, self.game)
        kind = envelope.inner.get("type")
        if sseq != peer.side_next:
            raise ChainBroken(
                envelope.sender,
                f"its {side_message(sseq, kind)} comes where its {side_message(peer.side_next, kind)} is due: a "
                "record is missing, repeated or out of place",
            )
        if sprev != peer.side_hash:
            raise ChainBroken(envelope.sender, f"its {side_message(sseq, kind)} does not follow the one before it")
        digest = message_hash(envelope.body)
        peer.chain_side(digest)
        return seat

    def set_salt(self, salt: bytes) -> None:
        self.salts.set_after(self._delivering, salt)


def _tie_broken(sender: bytes, stamp: int) -> OutOfOrder:
    """A message after one of its own stamp that the salted tie-break puts after it (§7.4)."""
    return OutOfOrder(sender, f"stamp {stamp} comes after a message of the same stamp that the agreed tie-break "
                              "(§7.4) puts after it: not the agreed order")
