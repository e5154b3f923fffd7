"""Framed streams: send and receive checked message maps over any trio byte stream (§4.2–§4.6).

Theory of operation
-------------------
A `FramedStream` pairs a trio stream (normally a `trio.SSLStream`) with a `FrameDecoder`
and a `Schemas` registry. ``receive()`` returns the next frame that decoded strictly and
matched its schema; it raises `ProtocolError` for bad input, `RemoteError` when the
other end sent an ``error`` frame, and `PeerLeft` when it said ``bye`` or closed.
``reject(error)`` is the misbehaviour policy in one place (§4.6): tell the peer why in
an ``error`` frame (best effort, bounded in time), then close.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import trio

from p2p.errors import PeerLeft, ProtocolError, RemoteError, printable, said_of
from p2p.schema import Message, Schemas, Str
from p2p.wire import DEFAULT_LIMITS, FrameDecoder, Limits, encode_frame

RECEIVE_CHUNK = 65536
REJECT_TIMEOUT = 1.0

MESSAGES: tuple[Message, ...] = (
    Message("error", 1, "§4.6", {"section": Str(min_len=1, max_len=16, printable=True), "reason": Str(max_len=1000)}),
    Message("bye", 1, "§4.6", {"reason": Str(max_len=1000)}),
)


def error_frame(error: ProtocolError) -> dict[str, Any]:
    return {"type": "error", "v": 1, "section": error.section[:16], "reason": error.reason[:1000]}


def bye_frame(reason: str) -> dict[str, Any]:
    return {"type": "bye", "v": 1, "reason": reason[:1000]}


class FramedStream:
    """Checked message maps over a byte stream; `label` names the peer in errors."""

    def __init__(self, stream: trio.abc.Stream, schemas: Schemas, *, limits: Limits = DEFAULT_LIMITS, label: str) -> None:
        self.stream = stream
        self.schemas = schemas
        self.limits = limits
        self.label = label
        self.decoder = FrameDecoder(limits, peer=label, tree=False)  # (the tree is checked with the schema)

    async def send(self, message: Mapping[str, Any]) -> None:
        await self.stream.send_all(encode_frame(message, self.limits))

    async def send_frame(self, frame: bytes) -> None:
        """Send an already encoded frame (length prefix included)."""
        await self.stream.send_all(frame)

    async def receive(self) -> dict[str, Any]:
        while True:
            frame = self.buffered()
            if frame is not None:
                return frame
            try:
                data = await self.stream.receive_some(RECEIVE_CHUNK)
            except trio.BrokenResourceError as exc:
                raise PeerLeft(f"connection lost ({said_of(exc.__cause__ or exc)})", clean=False) from None
            if not data:
                self.decoder.close()
                raise PeerLeft("connection closed", clean=False)
            self.decoder.feed(data)

    def buffered(self) -> dict[str, Any] | None:
        """The next checked frame if it has arrived whole already, else None (no I/O)."""
        frame = self.decoder.next_frame()
        if frame is None:
            return None
        try:
            self.schemas.check(frame, tree=self.limits)
        except ProtocolError as exc:
            raise exc.with_peer(self.label) from None
        if frame["type"] == "error":
            raise RemoteError(frame["section"], frame["reason"], self.label)
        if frame["type"] == "bye":
            said = printable(frame["reason"])
            raise PeerLeft(f"left: {said}" if said else "left", clean=True, said=said)
        return frame

    async def expect(self, *types: str) -> dict[str, Any]:
        """The next frame, which must be one of `types` (else a §4.4 violation)."""
        frame = await self.receive()
        if frame["type"] not in types:
            wanted = " or ".join(repr(t) for t in types)
            raise ProtocolError("§4.4", f"expected a {wanted} message here, got {frame['type']!r}", self.label)
        return frame

    async def reject(self, error: ProtocolError) -> None:
        """Tell the peer what it did wrong, then close (never raises, never hangs)."""
        with trio.move_on_after(REJECT_TIMEOUT):
            try:
                await self.send(error_frame(error))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        await self.aclose()

    async def say_bye(self, reason: str) -> None:
        """Leave politely: a ``bye`` frame (best effort), then close."""
        with trio.move_on_after(REJECT_TIMEOUT):
            try:
                await self.send(bye_frame(reason))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        await self.aclose()

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True), trio.move_on_after(REJECT_TIMEOUT):
            try:
                await self.stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
