"""The mesh: mutual-TLS links to every pinned peer of a table, one trio task per link (§4.1, §4.6, §4.7).

Theory of operation
-------------------
A `Mesh` owns one TCP listener and one link per pinned peer. The layers above see three
operations and one stream of events:

* ``expect(cert, address, dial)`` pins a peer (its certificate joins the listener's
  trust store) and gives it an outbox; with ``dial`` the mesh connects to it (the lobby's
  dial rule, §6.5, decides who dials whom);
* ``send(peer, message)`` / ``broadcast(message)`` encode once and queue the frame in
  each peer's bounded outbox; they never block and never raise for a slow peer;
* ``await receive()`` returns the next `MeshEvent`: `Received` (a checked frame, or a
  verified `SignedMessage` for ``signed`` frames), `LinkUp`, `LinkDown`.

Each link is a reader task and a writer task. The reader decodes strictly, checks
schemas and signatures; any violation gets the peer an ``error`` frame naming the rule,
closes that link, is logged, and surfaces as `LinkDown` with the `ProtocolError`;
nothing else is touched. The writer drains the peer's outbox; when an outbox overflows
(the peer stopped reading), that link is dropped with the reason and its queued frames
are discarded: a slow peer never stalls the sender or the other links. Outboxes outlive
links, so a peer that reconnects (``dial(peer)``, or an incoming link from it) resumes
with whatever is queued; replaying what was lost is the order layer's job.

Incoming TLS clients without a certificate are lobby joiners and go to the front door
handler if this peer hosts a table (§6.2); clients with an unpinned certificate fail
the handshake; a peer that has not yet been admitted to a table holds incoming
connections until ``release_incoming()`` (its trust store is not complete before).
"""

from __future__ import annotations

import logging
import ssl
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import trio

from p2p import framed, signing
from p2p.groups import lone_exception_unwrapped
from p2p.errors import FingerprintMismatch, PeerLeft, ProtocolError, RemoteError
from p2p.framed import FramedStream
from p2p.identity import Certificate, Identity, short_id
from p2p.schema import NONCE, Message, Schemas
from p2p.signing import SignedMessage, open_signed
from p2p.tls import check_peer, describe_tls_failure, front_door_context, mesh_client_context, presented, server_context
from p2p.wire import DEFAULT_LIMITS, Limits, encode_frame

log = logging.getLogger("bandit_lan.transport")

HANDSHAKE_TIMEOUT = 10.0
DIAL_TIMEOUT = 5.0
DIAL_ATTEMPTS = 4
OUTBOX_FRAMES = 1024
INBOUND_EVENTS = 1024
WRITE_BATCH = 65536

MESSAGES: tuple[Message, ...] = (
    *framed.MESSAGES,
    *signing.MESSAGES,
    Message("link.hello", 1, "§4.6", {"table": NONCE}),
)


def link_schemas(*more: Message) -> Schemas:
    """A registry with the link-level messages (§4.5, §4.6) and `more`."""
    return Schemas(*MESSAGES, *more)


@dataclass(frozen=True)
class LinkUp:
    peer: bytes


@dataclass(frozen=True)
class LinkDown:
    """A link ended. `error` is set when the peer broke the protocol (or we did, per the peer)."""

    peer: bytes
    reason: str
    error: ProtocolError | None = None
    clean: bool = False
    fault: bool = False  # `error` is a frame the peer sent on the established link (§4.6, §11.2)


@dataclass(frozen=True)
class Received:
    """A checked message from `peer` (the link it came on): a frame map or a `SignedMessage`."""

    peer: bytes
    message: dict[str, Any] | SignedMessage

    @property
    def type(self) -> str:
        m = self.message
        return m.type if isinstance(m, SignedMessage) else str(m["type"])


MeshEvent = LinkUp | LinkDown | Received
FrontDoor = Callable[[FramedStream, tuple[str, int]], Awaitable[None]]


@dataclass
class _Peer:
    cert: Certificate
    address: tuple[str, int] | None
    outbox: trio.MemorySendChannel[bytes]
    queued: trio.MemoryReceiveChannel[bytes]
    link: _Link | None = None
    dialing: bool = False


@dataclass
class _Link:
    stream: FramedStream
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    done: trio.Event = field(default_factory=trio.Event)
    end_reason: str | None = None
    end_error: ProtocolError | None = None
    clean: bool = False


class Mesh:
    """Links to the pinned peers of one table. Make one with `open_mesh`."""

    def __init__(
        self,
        identity: Identity,
        schemas: Schemas,
        nursery: trio.Nursery,
        *,
        limits: Limits = DEFAULT_LIMITS,
        outbox_frames: int = OUTBOX_FRAMES,
        hold_incoming: bool = False,
    ) -> None:
        self.identity = identity
        self.schemas = schemas
        self.limits = limits
        self.table_id: bytes | None = None
        self.port = 0
        self._nursery = nursery
        self._outbox_frames = outbox_frames
        self._peers: dict[bytes, _Peer] = {}
        self._keys: dict[bytes, bytes] = {identity.peer_id: identity.certificate.public_key}
        self._server_ctx: ssl.SSLContext | None = None
        self._front_door: FrontDoor | None = None
        self._incoming = trio.Event()
        if not hold_incoming:
            self._incoming.set()
        self._events_in, self._events_out = trio.open_memory_channel[MeshEvent](INBOUND_EVENTS)
        self._requeued: deque[MeshEvent] = deque()
        self._closing: str | None = None

    # -- peers ------------------------------------------------------------------------

    @property
    def me(self) -> bytes:
        return self.identity.peer_id

    def set_table(self, table_id: bytes) -> None:
        """The table this mesh belongs to; links to peers of another table are refused."""
        if self.table_id is not None and self.table_id != table_id:
            raise ValueError("this mesh already belongs to another table")
        self.table_id = table_id

    def expect(self, cert: Certificate, address: tuple[str, int] | None = None, *, dial: bool = False) -> None:
        """Pin `cert`; with `dial`, connect to `address` (and keep the link)."""
        if cert.peer_id == self.me:
            raise ValueError("a peer does not link to itself")
        peer = self._peers.get(cert.peer_id)
        if peer is None:
            send, recv = trio.open_memory_channel[bytes](self._outbox_frames)
            peer = self._peers[cert.peer_id] = _Peer(cert, address, send, recv)
            self._keys[cert.peer_id] = cert.public_key
            self._server_ctx = None
        elif address is not None:
            peer.address = address
        if dial:
            self.dial(cert.peer_id)

    def forget(self, peer_id: bytes) -> None:
        """Unpin a peer: its link sends what is queued, says ``bye`` and closes."""
        peer = self._peers.pop(peer_id, None)
        if peer is None:
            return
        self._keys.pop(peer_id, None)
        self._server_ctx = None
        peer.outbox.close()  # the writer sends what is queued, then bye

    def dial(self, peer_id: bytes) -> None:
        """Connect to a pinned peer (no-op while linked or dialing)."""
        peer = self._peers[peer_id]
        if peer.address is None:
            raise ValueError(f"no address known for {short_id(peer_id)}")
        if peer.link is None and not peer.dialing:
            peer.dialing = True
            self._nursery.start_soon(self._dial, peer)

    def peers(self) -> frozenset[bytes]:
        return frozenset(self._peers)

    def linked(self) -> frozenset[bytes]:
        return frozenset(p for p, peer in self._peers.items() if peer.link is not None)

    def certificate(self, peer_id: bytes) -> Certificate:
        return self._peers[peer_id].cert

    @property
    def keys(self) -> Mapping[bytes, bytes]:
        """Raw Ed25519 public keys of this peer and every pinned peer, for `open_signed`."""
        return self._keys

    # -- sending ----------------------------------------------------------------------

    def send(self, peer_id: bytes, message: Mapping[str, Any]) -> None:
        """Queue `message` for one peer; never blocks (§4.7 overflow policy)."""
        self._queue(peer_id, encode_frame(message, self.limits))

    async def send_paced(self, peer_id: bytes, message: Mapping[str, Any]) -> None:
        """Queue `message` for one peer, waiting while its outbox is full (for bulk
        transfers where the caller prefers backpressure to the overflow policy)."""
        peer = self._peers.get(peer_id)
        if peer is None:
            raise KeyError(f"{short_id(peer_id)} is not a pinned peer of this table")
        await peer.outbox.send(encode_frame(message, self.limits))

    def broadcast(self, message: Mapping[str, Any], exclude: Iterable[bytes] = ()) -> None:
        """Queue `message` for every pinned peer (encoded once)."""
        frame = encode_frame(message, self.limits)
        skip = set(exclude)
        for peer_id in list(self._peers):
            if peer_id not in skip:
                self._queue(peer_id, frame)

    def _queue(self, peer_id: bytes, frame: bytes) -> None:
        peer = self._peers.get(peer_id)
        if peer is None:
            raise KeyError(f"{short_id(peer_id)} is not a pinned peer of this table")
        try:
            peer.outbox.send_nowait(frame)
        except trio.ClosedResourceError:
            return  # the mesh is closing
        except trio.WouldBlock:
            dropped = 0
            while True:
                try:
                    peer.queued.receive_nowait()
                    dropped += 1
                except trio.WouldBlock:
                    break
            reason = f"send queue overflow ({dropped} frames unsent): the peer is not reading"
            log.warning("link to %s dropped: %s", short_id(peer_id), reason)
            if peer.link is not None:
                peer.link.end_reason = reason
                peer.link.scope.cancel()
            else:
                self._emit(LinkDown(peer_id, reason))

    # -- receiving --------------------------------------------------------------------

    async def receive(self) -> MeshEvent:
        """The next event from any link (requeued events first)."""
        if self._requeued:
            await trio.lowlevel.checkpoint()
            return self._requeued.popleft()
        return await self._events_out.receive()

    def receive_nowait(self) -> MeshEvent | None:
        """The next event if one is already waiting, else None (to drain a burst)."""
        if self._requeued:
            return self._requeued.popleft()
        try:
            return self._events_out.receive_nowait()
        except trio.WouldBlock:
            return None

    def requeue(self, events: Iterable[MeshEvent]) -> None:
        """Hand events back (in order) for the next reader, e.g. game messages that
        arrived while the lobby was still collecting signatures."""
        self._requeued.extendleft(reversed(list(events)))

    def __aiter__(self) -> AsyncIterator[MeshEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[MeshEvent]:
        while True:
            yield await self.receive()

    def _emit(self, event: MeshEvent) -> None:
        try:
            self._events_in.send_nowait(event)
        except trio.WouldBlock:
            self._nursery.start_soon(self._events_in.send, event)

    # -- listening --------------------------------------------------------------------

    def serve_front_door(self, handler: FrontDoor | None) -> None:
        """Hand TLS clients without a certificate (lobby joiners, §6.2) to `handler`."""
        self._front_door = handler

    def release_incoming(self) -> None:
        """Start accepting links held since `hold_incoming` (after admission, §6.5)."""
        self._incoming.set()

    async def _listen(self, bind: str, port: int, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        await trio.serve_listeners(self._accept, listeners, handler_nursery=self._nursery, task_status=task_status)

    async def _accept(self, sock: trio.SocketStream) -> None:
        host, port = sock.socket.getpeername()[:2]
        label = f"{host}:{port}"
        await self._incoming.wait()
        if self._server_ctx is None:
            self._server_ctx = server_context(self.identity, (p.cert for p in self._peers.values()))
        tls = trio.SSLStream(sock, self._server_ctx, server_side=True)
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                await tls.do_handshake()
            cert = presented(tls)
            if tls.selected_alpn_protocol() is None:
                raise ProtocolError("§4.1", "client did not offer ALPN bandit-lan/1")
        except (trio.BrokenResourceError, trio.TooSlowError, ProtocolError, OSError) as exc:
            log.warning("refused TLS client %s: %s", label, describe_tls_failure(exc))
            await trio.aclose_forcefully(tls)
            return
        stream = FramedStream(tls, self.schemas, limits=self.limits, label=label)
        if cert is None:
            if self._front_door is None:
                await stream.reject(ProtocolError("§6.2", "this peer is not hosting a table"))
                return
            await self._front_door(stream, (host, port))
            return
        peer = self._peers.get(cert.peer_id)
        if peer is None:  # unpinned after the handshake started (forgotten meanwhile)
            await stream.reject(ProtocolError("§4.1", f"{cert.short} is not a peer of this table"))
            return
        stream.label = cert.short
        stream.decoder.peer = cert.short
        await self._run_link(peer, stream)

    # -- dialing ----------------------------------------------------------------------

    async def _dial(self, peer: _Peer) -> None:
        try:
            stream: FramedStream | None = None
            failure = "no attempt"
            error: ProtocolError | None = None
            for attempt in range(DIAL_ATTEMPTS):
                if peer.link is not None or peer.cert.peer_id not in self._peers:
                    return
                try:
                    stream = await self._connect(peer)
                    break
                except FingerprintMismatch as exc:
                    error, failure = exc, str(exc)
                    break
                except (OSError, trio.BrokenResourceError, trio.TooSlowError, ProtocolError) as exc:
                    failure = describe_tls_failure(exc)
                    if attempt < DIAL_ATTEMPTS - 1:
                        await trio.sleep(0.05 * 4**attempt)
            if stream is None:
                log.warning("could not connect to %s: %s", peer.cert.short, failure)
                self._emit(LinkDown(peer.cert.peer_id, f"could not connect: {failure}", error))
                return
        finally:
            peer.dialing = False
        await self._run_link(peer, stream)

    async def _connect(self, peer: _Peer) -> FramedStream:
        assert peer.address is not None
        host, port = peer.address
        with trio.fail_after(DIAL_TIMEOUT):
            sock = await trio.open_tcp_stream(host, port)
        tls = trio.SSLStream(sock, mesh_client_context(self.identity, peer.cert), server_side=False)
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                await tls.do_handshake()
            check_peer(tls, peer.cert.peer_id)
        except trio.BrokenResourceError as exc:
            await trio.aclose_forcefully(tls)
            if isinstance(exc.__cause__, ssl.SSLCertVerificationError):
                shown = await probe_certificate(host, port)
                raise FingerprintMismatch(peer.cert.short, shown.short if shown else None, f"{host}:{port}") from None
            raise
        except BaseException:
            await trio.aclose_forcefully(tls)
            raise
        return FramedStream(tls, self.schemas, limits=self.limits, label=peer.cert.short)

    # -- links ------------------------------------------------------------------------

    async def _run_link(self, peer: _Peer, stream: FramedStream) -> None:
        peer_id = peer.cert.peer_id
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                await stream.send({"type": "link.hello", "v": 1, "table": self.table_id or bytes(32)})
                hello = await stream.expect("link.hello")
            if self.table_id is None or hello["table"] != self.table_id:
                raise ProtocolError("§4.6", "link.hello names another table", stream.label)
        except ProtocolError as exc:
            log.warning("link to %s refused: %s", stream.label, exc)
            await stream.reject(exc)
            self._emit(LinkDown(peer_id, str(exc), exc))
            return
        except (PeerLeft, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            reason = describe_tls_failure(exc) if not isinstance(exc, PeerLeft) else exc.reason
            if isinstance(exc, PeerLeft) and isinstance(stream.stream, trio.SSLStream):
                reason = f"{reason} (the peer may not have pinned this certificate)"
            await stream.aclose()
            self._emit(LinkDown(peer_id, f"link setup failed: {reason}"))
            return
        if self._peers.get(peer_id) is not peer:
            await stream.say_bye("removed from the table")
            return
        if peer.link is not None:  # a newer link replaces an older one (reconnect)
            peer.link.end_reason = "replaced by a new link"
            peer.link.scope.cancel()
        link = peer.link = _Link(stream)
        self._emit(LinkUp(peer_id))
        with link.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._guarded, self._write, peer, link)
                nursery.start_soon(self._guarded, self._read, peer, link)
        replaced = peer.link is not None and peer.link is not link
        if peer.link is link:
            peer.link = None
        if link.end_error is not None and not isinstance(link.end_error, RemoteError):
            log.warning("peer %s broke the protocol: %s", stream.label, link.end_error)
            await stream.reject(link.end_error)
        else:
            await stream.aclose()
        link.done.set()
        if not replaced:  # a link replaced by a newer one is not a peer lost
            fault = link.end_error is not None and not isinstance(link.end_error, RemoteError)
            self._emit(LinkDown(peer_id, link.end_reason or "link closed", link.end_error, link.clean, fault))

    async def _guarded(self, fn: Callable[[_Peer, _Link], Awaitable[None]], peer: _Peer, link: _Link) -> None:
        """Run a link half; the first way it ends becomes the link's end reason."""
        reason: str | None = None
        try:
            await fn(peer, link)
        except ProtocolError as exc:
            reason = str(exc)
            if link.end_reason is None:
                link.end_error = exc
        except PeerLeft as exc:
            reason = exc.reason
            if link.end_reason is None:
                link.clean = exc.clean
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            reason = f"connection lost ({describe_tls_failure(exc)})"
        if link.end_reason is None:
            link.end_reason = reason
        link.scope.cancel()

    async def _read(self, peer: _Peer, link: _Link) -> None:
        while True:
            frame = await link.stream.receive()
            kind = frame["type"]
            if kind == "signed":
                try:
                    message: dict[str, Any] | SignedMessage = open_signed(frame, self._keys, self.schemas, self.limits)
                except ProtocolError as exc:
                    raise exc.with_peer(link.stream.label) from None
            elif kind == "link.hello":
                raise ProtocolError("§4.6", "link.hello sent twice", link.stream.label)
            else:
                message = frame
            await self._events_in.send(Received(peer.cert.peer_id, message))

    async def _write(self, peer: _Peer, link: _Link) -> None:
        async for frame in peer.queued:
            batch = [frame]  # whatever else is queued goes out in the same TLS write
            size = len(frame)
            while size < WRITE_BATCH:
                try:
                    more = peer.queued.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                batch.append(more)
                size += len(more)
            await link.stream.send_frame(b"".join(batch))
        # The outbox was closed (forget, or the mesh is closing): everything queued went
        # out; leave politely.
        reason = self._closing or "removed from the table"
        await link.stream.send(framed.bye_frame(reason))
        link.end_reason, link.clean = link.end_reason or reason, True

    # -- closing ----------------------------------------------------------------------

    def close_link(self, peer_id: bytes, reason: str) -> None:
        """Drop the link to a peer at once (it stays pinned; a later dial may reconnect)."""
        peer = self._peers.get(peer_id)
        if peer is not None and peer.link is not None:
            peer.link.end_reason = reason
            peer.link.scope.cancel()

    async def aclose(self, reason: str = "leaving the table", timeout: float = 2.0) -> None:
        """Leave every link gracefully: send what is queued, then ``bye`` (bounded)."""
        self._closing = reason
        links = [peer.link for peer in self._peers.values() if peer.link is not None]
        for peer in self._peers.values():
            peer.outbox.close()
        with trio.move_on_after(timeout):
            for link in links:
                await link.done.wait()
        for link in links:
            if not link.done.is_set():
                link.end_reason = link.end_reason or reason
                link.scope.cancel()


@asynccontextmanager
async def open_mesh(
    identity: Identity,
    schemas: Schemas,
    *,
    bind: str = "0.0.0.0",
    port: int = 0,
    limits: Limits = DEFAULT_LIMITS,
    outbox_frames: int = OUTBOX_FRAMES,
    hold_incoming: bool = False,
) -> AsyncIterator[Mesh]:
    """A listening mesh; on exit every link says ``bye`` and closes."""
    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:
            mesh = Mesh(identity, schemas, nursery, limits=limits, outbox_frames=outbox_frames, hold_incoming=hold_incoming)
            await nursery.start(mesh._listen, bind, port)
            try:
                yield mesh
            finally:
                with trio.CancelScope(shield=True):
                    await mesh.aclose()
                nursery.cancel_scope.cancel()


async def probe_certificate(host: str, port: int) -> Certificate | None:
    """The certificate a TLS server presents, fetched without sending any data; used
    only to name the presented fingerprint in a mismatch error."""
    try:
        with trio.fail_after(DIAL_TIMEOUT):
            sock = await trio.open_tcp_stream(host, port)
            tls = trio.SSLStream(sock, front_door_context(), server_side=False)
            try:
                await tls.do_handshake()
                return presented(tls)
            finally:
                await trio.aclose_forcefully(tls)
    except (OSError, trio.BrokenResourceError, trio.TooSlowError, ProtocolError):
        return None
