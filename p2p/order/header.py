"""What every message of the agreed order carries, and its hashes (protocol.md §7.1, §7.2, §7.4, §7.8).

What a content message, an ack and a side message carry besides their own fields, how
they are checked on receipt, and the hashes that chain them (§7.2), seed side chains
(§7.8) and break ties in the order (§7.4). Sans-I/O; shared by the live `Orderer` and the
audit's `OrderReplay`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from p2p.order.errors import ForeignGame, MalformedHeader
from p2p.schema import PEER_ID, Bin, Int, Kind, ListOf, Message, Tuple
from p2p.signing import SignedMessage

MSG_TAG = b"bandit-lan/v1/msg\x00"
SIDE_TAG = b"bandit-lan/v1/side\x00"
TIEBREAK_TAG = b"bandit-lan/v1/tiebreak\x00"
ZERO_HASH = bytes(32)
ACK_TYPE = "ack"
MAX_STAMP = 2**62


def message_hash(body: bytes) -> bytes:
    """§7.2: the hash that chains, heads and the log use for a content message."""
    return hashlib.sha256(MSG_TAG + body).digest()


def side_genesis(game: bytes) -> bytes:
    """§7.8: the `sprev` of every sender's first side message."""
    return hashlib.sha256(SIDE_TAG + game).digest()


def tiebreak(salt: bytes, stamp: int, sender: bytes) -> bytes:
    """§7.4: order of content messages that share a Lamport stamp."""
    return hashlib.sha256(TIEBREAK_TAG + salt + stamp.to_bytes(8, "big") + sender).digest()


Envelope = SignedMessage
"""What the order layer handles: a verified signed message (§4.5)."""

HASH = Bin(size=32)
HEAD = Tuple((Int(-1, MAX_STAMP - 1), HASH))
HEADER: dict[str, Kind] = {
    "from": PEER_ID,
    "game": HASH,
    "lamport": Int(0, MAX_STAMP - 1),
    "seq": Int(0, MAX_STAMP - 1),
    "prev": HASH,
    "heads": ListOf(HEAD, 1, 15),
}
"""§7.1: the fields every content message carries besides its own."""

MESSAGES: tuple[Message, ...] = (
    Message(ACK_TYPE, 1, "§7.1", {"from": PEER_ID, "game": HASH, "lamport": Int(0, MAX_STAMP - 1), "last": HEAD,
                                  "heads": ListOf(HEAD, 1, 15), "slast": HEAD, "sides": ListOf(HEAD, 1, 15),
                                  "away": ListOf(Int(0, 15), 0, 15)}),
)

SIDE_HEADER: dict[str, Kind] = {"from": PEER_ID, "game": HASH, "sseq": Int(0, MAX_STAMP - 1), "sprev": HASH}
"""§7.8: the fields every side message carries besides its own."""


def content_message(type: str, section: str, fields: Mapping[str, Kind], v: int = 1) -> Message:
    """The schema of a content message type: its own `fields` plus the §7.1 header,
    whose fields a message of the wrong types breaks §7.1 by (`MalformedHeader`), not
    the section of its type."""
    return Message(type, v, section, {**HEADER, **fields}, {name: "§7.1" for name in HEADER if name not in fields})


def side_message(type: str, section: str, fields: Mapping[str, Kind], v: int = 1) -> Message:
    """The schema of a side message type: its own `fields` plus the §7.8 header."""
    return Message(type, v, section, {**SIDE_HEADER, **fields})


def is_side(inner: Mapping[str, Any]) -> bool:
    return "sseq" in inner


class Header:
    """The §7.1 fields of a content message or an ack, as checked (an ack's `seq` is -1
    and its `last` names its sender's latest content; a content message's `last` is
    its own `seq`). Slots and a plain `__init__`: one is made for every message that
    arrives. Not a tuple: equal only to a `Header` of the same fields, unordered, and not
    something `p2p.wire.encode` packs. Not to be changed once made."""

    __slots__ = ("stamp", "seq", "prev", "heads", "last")
    stamp: int
    seq: int
    prev: bytes
    heads: list[list[Any]]
    last: tuple[int, bytes]

    def __init__(self, stamp: int, seq: int, prev: bytes, heads: list[list[Any]], last: tuple[int, bytes]) -> None:
        self.stamp = stamp
        self.seq = seq
        self.prev = prev
        self.heads = heads
        self.last = last

    def _fields(self) -> tuple[int, int, bytes, list[list[Any]], tuple[int, bytes]]:
        return (self.stamp, self.seq, self.prev, self.heads, self.last)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Header:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # (its heads are a list)

    def __repr__(self) -> str:
        return (f"Header(stamp={self.stamp!r}, seq={self.seq!r}, prev={self.prev!r}, heads={self.heads!r}, "
                f"last={self.last!r})")


def parse_header(envelope: Envelope, seats: int, game: bytes) -> Header:
    """Check the §7.1 header fields of `envelope` and return them."""
    inner = envelope.inner
    if inner.get("game") != game:
        raise ForeignGame(envelope.sender, "message is for another game")
    stamp = inner.get("lamport")
    if type(stamp) is not int or not 0 <= stamp < MAX_STAMP:
        raise MalformedHeader(envelope.sender, "lamport must be an integer in 0..2^62")
    heads = inner.get("heads")
    if not isinstance(heads, list) or len(heads) != seats - 1:
        raise MalformedHeader(envelope.sender, f"heads must list the {seats - 1} other seats")
    if inner.get("type") == ACK_TYPE:
        last, sides = inner.get("last"), inner.get("sides")
        if not (_heads_valid(heads) and _head_valid(last) and _head_valid(inner.get("slast"))):
            raise MalformedHeader(envelope.sender, BAD_HEAD)
        if not isinstance(sides, list) or len(sides) != seats - 1:
            raise MalformedHeader(envelope.sender, f"sides must list the {seats - 1} other seats")
        if not _heads_valid(sides):
            raise MalformedHeader(envelope.sender, BAD_HEAD)
        away = inner.get("away")
        if (not isinstance(away, list) or any(type(s) is not int or not 0 <= s < seats for s in away)
                or (away and away != sorted(set(away)))):
            raise MalformedHeader(envelope.sender, "away must list distinct seats of this table in increasing order")
        return Header(stamp, -1, ZERO_HASH, heads, (int(last[0]), bytes(last[1])))
    if not _heads_valid(heads):
        raise MalformedHeader(envelope.sender, BAD_HEAD)
    seq, prev = inner.get("seq"), inner.get("prev")
    if type(seq) is not int or not 0 <= seq < MAX_STAMP:
        raise MalformedHeader(envelope.sender, "seq must be a non-negative integer")
    if not isinstance(prev, bytes) or len(prev) != 32:
        raise MalformedHeader(envelope.sender, "prev must be 32 bytes")
    return Header(stamp, seq, prev, heads, (seq, b""))


def parse_side(envelope: Envelope, game: bytes) -> tuple[int, bytes]:
    """Check the §7.8 side header of `envelope` and return (sseq, sprev)."""
    inner = envelope.inner
    if inner.get("game") != game:
        raise ForeignGame(envelope.sender, "side message is for another game")
    sseq, sprev = inner.get("sseq"), inner.get("sprev")
    if type(sseq) is not int or not 0 <= sseq < MAX_STAMP:
        raise MalformedHeader(envelope.sender, "sseq must be a non-negative integer")
    if not isinstance(sprev, bytes) or len(sprev) != 32:
        raise MalformedHeader(envelope.sender, "sprev must be 32 bytes")
    return sseq, sprev


BAD_HEAD = "a head must be [seq >= 0, 32-byte hash] or [-1, 32 zero bytes]"


def _head_valid(head: Any) -> bool:
    """A head names a message, [seq, its hash], or none: [-1, 32 zero bytes] and nothing
    else, so that one meaning has one encoding (§7.1)."""
    return (isinstance(head, list) and len(head) == 2 and type(head[0]) is int and -1 <= head[0] < MAX_STAMP
            and isinstance(head[1], bytes) and len(head[1]) == 32 and (head[0] >= 0 or head[1] == ZERO_HASH))


def _heads_valid(heads: list[Any]) -> bool:
    """Every one of `heads` is a head (`_head_valid`, written out: an ack has up to 30)."""
    for head in heads:
        if not (isinstance(head, list) and len(head) == 2 and type(head[0]) is int and -1 <= head[0] < MAX_STAMP
                and isinstance(head[1], bytes) and len(head[1]) == 32 and (head[0] >= 0 or head[1] == ZERO_HASH)):
            return False
    return True


def seat_of(seats: Mapping[bytes, int], envelope: Envelope) -> int:
    """The seat of `envelope`'s signer (`seats`: peer id -> seat); a §7.1 violation if
    nobody seated at this table signed it."""
    seat = seats.get(envelope.sender)
    if seat is None:
        raise MalformedHeader(envelope.sender, "signed by a peer that is not seated at this table")
    return seat
