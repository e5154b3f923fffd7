"""The fairness log: every delivered message, exact signed bytes, append-only (protocol.md §10).

Theory of operation
-------------------
A log file is a sequence of frames in the wire format (§4.2: u32 big-endian length +
one canonical msgpack map, §4.3 strict subset). The first frame is the header: the
roster's canonical encoding R and every member's signature over it (§6.6), so the log
alone says who played and proves they agreed to. Then, in the agreed order, one
``log.msg`` frame per delivered content message with its exact ``body`` and ``sig``
(§4.5): the log's own integrity needs no extra hashes, because the messages are signed
and chained (§7.2) and their order is checkable (§7.4). Side messages (§7.8: shares)
are recorded as ``log.side`` frames when they arrive (or are sent); each sender's are in
its side chain's order, interleaved with the rest as they came. ``log.note`` frames are the
peer's own remarks (a peer that sent garbage, a lost link); they are not signed on their
own (a closed log's end covers them), shown by the audit, and never part of its verdict. ``log.evidence`` frames keep the signed
messages that prove a peer broke the order (two bodies with one seq, a broken promise):
the audit re-checks them, signatures and all. ``log.end`` closes a log cleanly.

The writer signs its header and its end with its identity key (the one the roster names
for its seat), each under its own domain and bound to the game id: the header, so that
nobody can pass one seat's log off as another's; the end, over the SHA-256 of every byte
written before it too, so that once closed nothing in the log can change, its end
included, without the writer's key. Those signatures cover encodings the reader derives
again from the values it decoded, so the reader requires every frame to be canonical
(§4.3): one encoding for each value. A log never closed (a crash, a game in progress) has
only its header's signature: its records speak for themselves (§10.2).

Writes go straight to the file (no buffering in the process), so a killed process
loses nothing it had appended; the file is fsync'd at round ends and on close, so a
crash of the machine loses at most the current round. A log whose last frame was cut
short by a crash (or a file cut there) reads as "torn": everything before it is intact.
A last frame that holds a whole record before its length ends was damaged, not cut (its
length was changed), and a file that does not start as every log does is no log at all:
both are told so.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

from p2p.appendfile import AppendFile
from p2p.errors import ProtocolError
from p2p.identity import Identity, short_id
from p2p.roster import game_id_of, parse_canonical
from p2p.schema import SIGNATURE, Bin, Int, ListOf, Message, Optional, Record, Schemas, Str
from p2p.signing import SignedMessage
from p2p.wire import Limits, decode_map, encode, encode_frame, frame_bytes, read_frames

LOG_LIMITS = Limits(max_frame=2 << 20)
"""A log.msg frame wraps a message of up to 1 MiB."""
MAX_EVIDENCE = 17  # a message, its sender's previous one and the 15 it may name (§7.3)
HEADER_DOMAIN = b"bandit-lan/v1/log-header\x00"
END_DOMAIN = b"bandit-lan/v1/log-end\x00"

SCHEMAS = Schemas(
    Message(
        "log.header",
        2,
        "§10.1",
        {"roster": Bin(min_len=1, max_len=1 << 16), "signatures": ListOf(Bin(size=64), 2, 16), "seat": Int(0, 15),
         "software": Str(max_len=64), "sig": SIGNATURE},
    ),
    Message("log.msg", 1, "§10.1", {"body": Bin(min_len=1, max_len=1 << 20), "sig": Bin(size=64)}),
    Message("log.side", 1, "§10.1", {"body": Bin(min_len=1, max_len=1 << 20), "sig": Bin(size=64)}),
    Message("log.note", 1, "§10.1", {"text": Str(max_len=2000), "peer": Optional(Bin(size=32)), "section": Optional(Str(max_len=16))}),
    Message("log.end", 2, "§10.1", {"why": Str(max_len=200), "absent": Optional(Int(0, 15)),
                                    "left": Optional(Str(max_len=200)),
                                    "leave": Optional(Record({"body": Bin(min_len=1, max_len=1 << 20), "sig": Bin(size=64)})),
                                    "sig": SIGNATURE}),
    Message(
        "log.evidence",
        1,
        "§10.1",
        {"section": Str(max_len=16), "peer": Bin(size=32),
         "items": ListOf(Record({"body": Bin(min_len=1, max_len=1 << 20), "sig": Bin(size=64)}), 1, MAX_EVIDENCE)},
    ),
)


@dataclass(frozen=True)
class Header:
    roster: bytes  # R, the canonical roster (§6.6)
    signatures: tuple[bytes, ...]  # every member's signature over R, in seat order
    seat: int  # the seat of the peer that wrote this log
    software: str


@dataclass(frozen=True)
class Note:
    index: int  # how many messages precede it
    text: str
    peer: bytes | None = None
    section: str | None = None


@dataclass(frozen=True)
class Evidence:
    """Signed messages that prove a violation of §7 by `peer` (§10.1 ``log.evidence``)."""

    index: int  # how many messages precede it
    section: str
    peer: bytes
    items: tuple[tuple[bytes, bytes], ...]  # (body, sig) of each message


@dataclass
class LogContents:
    """A log as read back: header, messages in order, notes, and how it ended."""

    header: Header
    messages: list[tuple[bytes, bytes]] = field(default_factory=list)  # (body, sig) in the agreed order
    sides: list[tuple[bytes, bytes]] = field(default_factory=list)  # side messages, as they came
    notes: list[Note] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    ended: str | None = None  # the reason given in log.end, if the log was closed
    absent: int | None = None  # the seat whose absence ended the game (§11.3), if that is why
    left: str | None = None  # the writer left before its `leave` came back delivered: the reason it gave (§9.8)
    leave: tuple[bytes, bytes] | None = None  # (body, sig) of that `leave`, if it could be signed
    header_signature: tuple[bytes, bytes] = (b"", b"")  # what the writer signed for its header, and its signature
    roster_at: int = 0  # byte offset in the file of the roster R its header holds
    end_signature: tuple[bytes, bytes] | None = None  # the same for its `log.end`, if the log was closed
    torn: bool = False  # the last frame was cut short (a crash while writing)
    intact: int = 0  # bytes up to the end of the last whole frame
    sequence: list[tuple[bool, int]] = field(default_factory=list)  # (is side, index): messages and sides as written
    message_at: list[int] = field(default_factory=list, compare=False)  # byte offset of each message's frame
    side_at: list[int] = field(default_factory=list, compare=False)  # byte offset of each side record's frame
    damaged: tuple[int, str] | None = None  # (read with `partial`) the first frame that cannot be read: offset, why
    written: Any = field(default_factory=hashlib.sha256, repr=False, compare=False)  # SHA-256 of the whole frames before any end

    def records(self) -> Iterator[tuple[bool, bytes, bytes]]:
        """(is side, body, sig) of every message and side record, in the order written."""
        for side, index in self.sequence:
            yield (side, *(self.sides if side else self.messages)[index])


class LogError(ProtocolError):
    """A log that cannot be read as a §10 log."""


class NotALog(LogError):
    """A file whose first bytes are not those every log's header starts with: not a
    fairness log at all (another file given by mistake), rather than a damaged one."""

    def __init__(self) -> None:
        super().__init__("§10.1", "this is not a bandit-lan fairness log: its first bytes are not a log's header")


HEADER_START = (0, b"\x00"), (4, b"\x87\xa6roster")
"""The bytes every log starts with, by offset: the first byte of its header's length (a
log frame holds at most 2 MiB), then its map's opening and first key (canonical, §4.3)."""


def _not_a_log(start: bytes) -> bool:
    """Whether a file starting with `start` is no log at all: most of the bytes every
    log's header starts with, of those it holds, differ (a damaged header differs in a
    few, and is told as damage, with its byte). A file of fewer than 5 bytes is not
    judged: a log cut that short ends inside its header."""
    if len(start) < 5:
        return False
    expected = [(at + i, byte) for at, run in HEADER_START for i, byte in enumerate(run) if at + i < len(start)]
    differ = sum(1 for at, byte in expected if start[at] != byte)
    return differ > len(expected) // 2


class Undecodable(LogError):
    """(Within the reader) The record of the frame at `offset` does not decode (§4.3):
    `reason` says how; the reader words it from the file's bytes (`_undecodable`)."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__("§4.3", reason)
        self.offset = offset


class HeaderUnreadable(LogError):
    """(`read_log` with `partial`) The log's first frame, its header, cannot be read as
    one: it does not decode, is not canonical, is not a `log.header` or is cut short. The
    `reason` says how, without the frame's byte (`offset`, which the caller words)."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__("§10.1", reason)
        self.offset = offset


def writer_signed(domain: bytes, game: bytes, record: Mapping[str, Any], before: bytes = b"") -> bytes:
    """What a log's writer signs for its header or its end (§10.1): the record's domain,
    the game id, for the end the SHA-256 of every byte before it (`before`), and the
    record's canonical encoding without its `sig`."""
    return domain + game + before + encode({key: value for key, value in record.items() if key != "sig"})


class FairnessLog:
    """An open log being written by a live peer, who signs its header and, at the close,
    its end (§10.1). If the disk fails, the log keeps every whole record written before
    and takes nothing more: `failure` says why."""

    def __init__(self, out: AppendFile, writer: Identity, game: bytes, written: Any) -> None:
        self.path = out.path
        self._out = out
        self._writer = writer
        self._game = game
        self._written = written  # SHA-256 of every frame so far: the end signs it
        self.messages = 0

    @classmethod
    def reopen(cls, path: Path, writer: Identity) -> tuple[FairnessLog, LogContents]:
        """Continue an unclosed log after a crash (§11.3): a last frame cut short is cut
        off (it was never acted on), and writing resumes after the last whole frame; its
        end, at the close, is signed by `writer` over all of it. Only the seat the header
        names may go on with it."""
        contents = read_log(path)
        if contents.ended is not None:
            raise LogError("§10.1", f"the log was closed ({contents.ended}): that game is over")
        members = parse_canonical(contents.header.roster).members
        seat = contents.header.seat
        if seat >= len(members) or members[seat].peer_id != writer.peer_id:
            raise LogError("§10.1", f"the log is seat {seat + 1}'s, and this is {short_id(writer.peer_id)}: "
                                    "only its writer goes on with it")
        log = cls(AppendFile.reopen(path, contents.intact), writer, game_id_of(contents.header.roster),
                  contents.written.copy())
        contents.torn = False
        log.messages = len(contents.messages)
        return log, contents

    @classmethod
    def create(cls, path: Path, header: Header, writer: Identity) -> FairnessLog:
        """Start a new log at `path` (it must not exist: logs are never overwritten),
        its header signed by `writer`, the identity the roster names for `header.seat`."""
        game = game_id_of(header.roster)
        log = cls(AppendFile.create(path, mode=0o644), writer, game, hashlib.sha256())
        frame: dict[str, Any] = {
            "type": "log.header", "v": 2, "roster": header.roster, "signatures": list(header.signatures),
            "seat": header.seat, "software": header.software,
        }
        frame["sig"] = writer.sign(writer_signed(HEADER_DOMAIN, game, frame))
        log._write(frame)
        log.sync()
        log._out.started("the fairness log")
        return log

    @property
    def failure(self) -> str | None:
        """Why writing stopped, once the disk failed (None while all is well)."""
        return self._out.failure

    def _write(self, frame: dict[str, Any]) -> None:
        data = encode_frame(frame, LOG_LIMITS)
        self._written.update(data)
        self._out.append(data)

    def append(self, message: SignedMessage) -> None:
        """Record a delivered content message, byte for byte."""
        self._write({"type": "log.msg", "v": 1, "body": message.body, "sig": message.sig})
        self.messages += 1

    def append_side(self, message: SignedMessage) -> None:
        """Record a side message (§7.8) as it arrives or leaves, byte for byte."""
        self._write({"type": "log.side", "v": 1, "body": message.body, "sig": message.sig})

    def note(self, text: str, *, peer: bytes | None = None, section: str | None = None) -> None:
        frame: dict[str, Any] = {"type": "log.note", "v": 1, "text": text[:2000]}
        if peer is not None:
            frame["peer"] = peer
        if section is not None:
            frame["section"] = section[:16]
        self._write(frame)

    def evidence(self, section: str, peer: bytes, messages: Sequence[SignedMessage]) -> None:
        """Keep the signed messages that prove `peer` broke §7 (the order refused them, so
        they are not among the delivered records); the audit re-checks them. Every one of
        them is needed for the proof, so where they do not fit in one record (more than
        `MAX_EVIDENCE`, or over the log's frame limit) a note about `peer` says so in
        their place: a violation always leaves its mark in the log (§10.1)."""
        if not messages:
            return
        record = {"type": "log.evidence", "v": 1, "section": section[:16], "peer": peer,
                  "items": [{"body": m.body, "sig": m.sig} for m in messages]}
        size = len(encode(record))
        if len(messages) <= MAX_EVIDENCE and size <= LOG_LIMITS.max_frame:
            self._write(record)
            return
        self.note(f"{section}: the evidence of this violation ({len(messages)} signed messages, {size} bytes) is more "
                  f"than one log record holds ({MAX_EVIDENCE} messages, {LOG_LIMITS.max_frame} bytes): it is not kept, "
                  "so the audit cannot check the claim", peer=peer, section=section)

    def sync(self) -> None:
        """Make what was written durable (round ends, exit)."""
        self._out.sync()

    @property
    def closed(self) -> bool:
        return self._out.closed

    def drop(self) -> None:
        """Stop writing without ending the log, as a killed process would: its seat can
        be resumed from it (§11.3)."""
        self.sync()
        self._out.close()

    def close(self, why: str, *, absent: int | None = None, left: str | None = None,
              leave: SignedMessage | None = None) -> None:
        """End the log; `absent` names the seat whose absence ended the game (§11.3);
        `left` is the reason this seat gave for leaving when its `leave` did not come back
        delivered before it went, and `leave` that message as signed, if it was (§9.8). A
        log whose disk failed is left as it was (its last whole record ends it)."""
        if self._out.closed:
            return
        end: dict[str, Any] = {"type": "log.end", "v": 2, "why": why[:200]}
        if absent is not None:
            end["absent"] = absent
        if left is not None:
            end["left"] = left[:200]
        if leave is not None:
            end["leave"] = {"body": leave.body, "sig": leave.sig}
        end["sig"] = self._writer.sign(writer_signed(END_DOMAIN, self._game, end, self._written.digest()))
        self._write(end)
        self.sync()
        self._out.close()


def _frames(source: BinaryIO) -> Iterator[tuple[int, bytes | None]]:
    """(offset, payload) of each frame, read one at a time; payload None for a final frame
    cut short (a crash while writing, or a file cut there), zeros where its bytes were
    never written included. A final frame whose length its bytes contradict was damaged,
    not cut: a `LogError` naming its byte; so is a frame longer than a log frame may be,
    told with where its record ends if it holds a whole one (its length was changed)."""
    after = 0  # where the next frame starts
    try:
        for offset, payload in read_frames(source, LOG_LIMITS):
            if payload == b"" and _zeros_to_the_end(source):  # (no frame is empty: a length never written)
                payload = None
            if payload is None:
                source.seek(offset)
                damage = _length_damaged(source.read(4 + LOG_LIMITS.max_frame))
                if damage is not None:
                    raise LogError("§10.1", f"frame at byte {offset}: {damage}")
            yield offset, payload
            if payload is None:
                return
            after = offset + 4 + len(payload)
    except ProtocolError as exc:
        if isinstance(exc, LogError):
            raise
        source.seek(after)
        frame = source.read(4 + LOG_LIMITS.max_frame)
        end = _record_end(frame[4:])
        if end is None:
            raise LogError("§10.1", exc.reason.replace("a frame may hold here", "a log frame may hold")) from None
        raise LogError("§10.1", f"frame at byte {after}: its length says {int.from_bytes(frame[:4], 'big')} bytes, "
                                f"more than a log frame may hold, but the record in it ends after {end}, so its "
                                "length was changed") from None


def _zeros_to_the_end(source: BinaryIO) -> bool:
    """Whether every byte from `source`'s position to the end of the file is zero (the
    position is kept)."""
    at = source.tell()
    try:
        while chunk := source.read(1 << 16):
            if chunk.strip(b"\0"):
                return False
        return True
    finally:
        source.seek(at)


def _record_end(tail: bytes) -> int | None:
    """Where the record that `tail` starts with ends, if it starts with a whole one:
    canonical and of a kind a log holds (None: cut inside it, or bytes that are no record)."""
    unpacker = msgpack.Unpacker(raw=True, strict_map_key=False)
    unpacker.feed(tail)
    try:
        unpacker.skip()
        end = unpacker.tell()
        record = tail[:end]
        decoded = decode_map(record, LOG_LIMITS)
        SCHEMAS.check(decoded)
    except Exception:  # noqa: BLE001 (cut inside its record, or bytes that are no record: nothing tells)
        return None
    return end if encode(decoded) == record else None


def _length_damaged(frame: bytes) -> str | None:
    """Why a final `frame` that the file ends inside was not cut short but damaged (None:
    it may have been cut). A write cut short leaves the start of one frame: its length,
    then the first bytes of one record, which ends only at that length, and perhaps zeros
    after them (bytes a power loss left unwritten often read back as zeros). Only a whole
    record, canonical and of a kind a log holds, that ends before the length says and
    before any zeros the file ends with, shows that the length was changed."""
    claimed, tail = int.from_bytes(frame[:4], "big"), frame[4:]
    end = _record_end(tail[:len(tail.rstrip(b"\0"))])  # (what follows may never have been written)
    if end is None:
        return None
    return (f"its length says {claimed} bytes follow, but only {len(tail)} do, and its record ends after "
            f"{end} of them: the length was changed, it was not cut short")


def _undecodable(frame: bytes, reason: str) -> str:
    """Why a whole `frame` (its length and the file's bytes after it) whose record does
    not decode cannot be read, in words: a whole record that ends elsewhere than its
    length says shows that the length was changed; else its bytes are no record, and
    `reason` (the decoder's) says how."""
    claimed = int.from_bytes(frame[:4], "big")
    end = _record_end(frame[4:])
    if end is not None and end != claimed:
        return f"its length says {claimed} bytes, but the record in it ends after {end}, so its length was changed"
    return f"its bytes are not a record ({reason})"


def read_log(path: Path, *, partial: bool = False) -> LogContents:
    """Read a log strictly, frame by frame; raise `LogError` naming the byte offset of
    anything malformed. With `partial` (the audit, which tells what it can), a frame after
    the header that cannot be read ends the reading instead: `damaged` says where and why,
    and the contents hold everything before it; a header that cannot be read raises
    `HeaderUnreadable`. A file that does not start as a log does raises `NotALog`."""
    with path.open("rb") as source:
        return _read(source, partial)


def _read(source: BinaryIO, partial: bool = False) -> LogContents:
    start = source.read(12)
    if start and _not_a_log(start):
        raise NotALog()
    source.seek(0)
    contents: LogContents | None = None
    game = b""
    frames = _frames(source)
    while True:
        offset = contents.intact if contents is not None else 0  # (where a frame that cannot be read starts)
        try:
            item = next(frames, None)
            if item is None:
                break
            offset, payload = item
            if payload is None:  # a final frame cut short
                if contents is not None and contents.ended is not None:  # (a closed log holds nothing after its end)
                    raise LogError("§10.1", f"frame at byte {offset} follows the log's end")
                if contents is None:
                    if partial:
                        raise HeaderUnreadable(offset, "cut short: the file ends inside it")
                    raise LogError("§10.1", "the log ends inside its header")
                contents.torn = True
                break
            contents, game = _take(contents, game, offset, payload)
        except LogError as exc:
            if isinstance(exc, Undecodable):  # (the file's bytes from its start tell how: reading stops here)
                source.seek(offset)
                exc = LogError("§10.1", f"frame at byte {offset}: "
                                        f"{_undecodable(source.read(4 + LOG_LIMITS.max_frame), exc.reason)}")
            if not partial or isinstance(exc, HeaderUnreadable):
                raise exc from None
            why = re.sub(rf"^frame at byte {offset}:? ", "", exc.reason)
            if contents is None:
                raise HeaderUnreadable(offset, why) from None
            contents.damaged = (offset, why)
            break
    if contents is None:
        raise LogError("§10.1", "the log is empty")
    return contents


def _take(contents: LogContents | None, game: bytes, offset: int, payload: bytes) -> tuple[LogContents, bytes]:
    """`contents` with the frame at `offset` read into it (the header makes them), and
    the game id; raise `LogError` for a frame that is not one a writer writes there."""
    try:
        decoded = decode_map(payload, LOG_LIMITS)
    except ProtocolError as exc:
        raise Undecodable(offset, exc.reason) from None
    try:
        frame = SCHEMAS.check(decoded)
    except ProtocolError as exc:
        raise LogError("§10.1", f"frame at byte {offset}: {exc.reason}") from None
    if encode(decoded) != payload:  # (the writer's signatures cover values it re-derives: one encoding each)
        raise LogError("§10.1", f"frame at byte {offset}: not in its canonical encoding (§4.3), so not as its "
                                "writer wrote it")
    kind = frame["type"]
    if contents is None:
        if kind != "log.header":
            raise LogError("§10.1", "the log does not start with its header")
        contents = LogContents(Header(frame["roster"], tuple(frame["signatures"]), frame["seat"], frame["software"]))
        game = game_id_of(frame["roster"])
        contents.header_signature = (writer_signed(HEADER_DOMAIN, game, frame), frame["sig"])
        contents.roster_at = offset + 4 + payload.find(frame["roster"])  # (its longest field: found nowhere else)
        contents.written.update(frame_bytes(payload))
        contents.intact = offset + 4 + len(payload)
        return contents, game
    if contents.ended is not None:
        raise LogError("§10.1", f"frame at byte {offset} follows the log's end")
    if kind == "log.msg":
        contents.sequence.append((False, len(contents.messages)))
        contents.messages.append((frame["body"], frame["sig"]))
        contents.message_at.append(offset)
    elif kind == "log.side":
        contents.sequence.append((True, len(contents.sides)))
        contents.sides.append((frame["body"], frame["sig"]))
        contents.side_at.append(offset)
    elif kind == "log.note":
        contents.notes.append(Note(len(contents.messages), frame["text"], frame.get("peer"), frame.get("section")))
    elif kind == "log.evidence":
        items = tuple((item["body"], item["sig"]) for item in frame["items"])
        contents.evidence.append(Evidence(len(contents.messages), frame["section"], frame["peer"], items))
    elif kind == "log.end":
        contents.end_signature = (writer_signed(END_DOMAIN, game, frame, contents.written.digest()), frame["sig"])
        contents.ended = frame["why"]
        contents.absent = frame.get("absent")
        contents.left = frame.get("left")
        if "leave" in frame:
            contents.leave = (frame["leave"]["body"], frame["leave"]["sig"])
    else:
        raise LogError("§10.1", f"a second header at byte {offset}")
    if kind != "log.end":
        contents.written.update(frame_bytes(payload))
    contents.intact = offset + 4 + len(payload)
    return contents, game


def header_for(roster: bytes, signatures: Sequence[bytes], seat: int) -> Header:
    from importlib.metadata import PackageNotFoundError, version

    try:
        software = f"bandit-lan {version('bandit-lan')}"
    except PackageNotFoundError:
        software = "bandit-lan (source)"
    return Header(roster, tuple(signatures), seat, software)
