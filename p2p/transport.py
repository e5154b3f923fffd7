"""The mesh: mutual-TLS links to every pinned peer of a table, one trio task per link (§4.1, §4.6, §4.7).

Theory of operation
-------------------
A `Mesh` owns one TCP listener and one link per pinned peer. The layers above see three
operations and one stream of events:

* ``expect(cert, address, dial)`` pins a peer (its certificate joins the listener's
  trust store) and gives it an outbox; with ``dial`` the mesh connects to it (the lobby's
  dial rule, §6.5, decides who dials whom);
* ``send(peer, message)`` / ``broadcast(message)`` encode once and write the frame to
  each peer's link at once (encrypted and handed to the kernel in the same call, see
  `p2p.tlsstream`); they never block, never yield and never raise for a slow peer;
* ``await receive()`` returns the next `MeshEvent`: `Received` (a checked frame, or a
  verified `SignedMessage` for ``signed`` frames), `LinkUp`, `LinkDown`. A table that
  wants every event the moment it happens ``attach``es a handler instead: the link's own
  task then calls it with each batch of frames that arrived together, synchronously, so
  nothing waits in a queue for a scheduler pass (§7.4: an acknowledgement that waits,
  holds up every peer).

Each link is a reader task and a writer task. The reader decodes strictly, checks
schemas and signatures; any violation gets the peer an ``error`` frame naming the rule,
closes that link, is logged, and surfaces as `LinkDown` with the `ProtocolError`;
nothing else is touched. A link's end surfaces as `LinkDown` the moment it is known, and
its connection is closed after (the ``error`` frame, the ``close_notify``): a peer hears
of a link it lost no later than of another peer's report of the same loss (§11.3). The
writer only flushes what the socket could not take at once; when more than the outbox
allows is waiting (the peer stopped reading), that link is dropped with the reason and
what it had not taken is discarded: a slow peer never stalls the sender or the other
links. (What surfaces as an event is logged at INFO: the layer that takes the event
tells its user, in the table's words. Only what no event carries, a TLS client refused
at the door, is a warning.) Frames sent while a peer has no link wait in its backlog
(bounded too), which outlives links, so a peer that reconnects (``dial(peer)``, or an
incoming link from it) gets them first; replaying what was lost is the order layer's
job.

A pair keeps one link. A connection dialled by the end that dialled the link replaces
it (a reconnect); of two dialled by opposite ends (both dialled at once), both ends keep
the one the lower peer id dialled: the higher end closes its own, the lower end keeps
the other as a spare, read but not written, until the higher end closes it or its own
link ends, when the spare takes over (`_place`, §4.7). A connection that fails its
`link.hello` exchange while the peer is linked is no link lost. A mesh that leaves says
``bye`` on every link, and on every connection whose exchange is under way, after it
(`aclose`): the far end may hold that one as its link already.

An ``ack`` (§7.1) that arrives on its own signer's link is authenticated by that TLS
link; its Ed25519 signature, which only matters if the ack ever serves as evidence, is
left to be checked then (`SignedMessage.verified`, §4.5). Every other signed message is
verified before it is handed up.

Incoming connections that are not links yet are capped, and answered `BUSY` beyond the
caps; one that says nothing for `QUIET` seconds is closed (`p2p.unsettled`, §4.1).
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
from enum import Enum
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
from p2p.tlsstream import BUSY, TlsStream
from p2p.unsettled import QUIET, Refusals, Unsettled
from p2p.wire import DEFAULT_LIMITS, Limits, encode_frame

log = logging.getLogger("bandit_lan.transport")

HANDSHAKE_TIMEOUT = 10.0
DIAL_TIMEOUT = 5.0
SILENCE = 6.0  # seconds without a frame (the lobby's beats, the game's acks: one a second) before a link is dropped
DIAL_ATTEMPTS = 4
LINGER = 1.0  # seconds a link whose connection broke under a write waits for the reader (`Mesh._guarded`)
OUTBOX_FRAMES = 1024  # frames waiting for a peer that has no link
OUTBOX_BYTES = 4 << 20  # bytes a link's connection has not taken yet
INBOUND_EVENTS = 1024


class Unanswered(trio.TooSlowError):
    """A dialled peer's kernel took the TCP connection and its program did not answer
    the TLS handshake within `HANDSHAKE_TIMEOUT` (stopped, or hung): this ends the dial (§4.7)."""


MeshHandler = Callable[[list["MeshEvent"]], None]
LINK_AUTHENTICATED = frozenset({"ack"})  # signed types whose signature may wait (§4.5)

MESSAGES: tuple[Message, ...] = (
    *framed.MESSAGES,
    *signing.MESSAGES,
    Message("link.hello", 1, "§4.6", {"table": NONCE}),
)


def link_schemas(*more: Message) -> Schemas:
    """A registry with the link-level messages (§4.5, §4.6) and `more`."""
    return Schemas(*MESSAGES, *more)


class HandlerFailed(RuntimeError):
    """The handler given to `Mesh.attach` raised: a bug, never the peer's fault."""


@dataclass(frozen=True)
class LinkUp:
    peer: bytes


def _failed_handshake(exc: BaseException) -> bool:
    """Whether a refused TLS client failed the handshake itself (a stranger's certificate,
    a protocol error), not just hung up or went quiet before it ended."""
    cause = exc.__cause__ if isinstance(exc, trio.BrokenResourceError) and exc.__cause__ is not None else exc
    if isinstance(cause, (ssl.SSLEOFError, ssl.SSLZeroReturnError)) or getattr(cause, "reason", None) == "UNEXPECTED_EOF_WHILE_READING":
        return False
    return isinstance(cause, (ssl.SSLError, ProtocolError))


@dataclass(frozen=True)
class LinkDown:
    """A link ended. `error` is set when the peer broke the protocol (or we did, per the peer)."""

    peer: bytes
    reason: str
    error: ProtocolError | None = None
    clean: bool = False
    fault: bool = False  # `error` is a frame the peer sent on the established link (§4.6, §11.2)
    said: str = ""  # the words of the peer's goodbye (`clean`), for a reader to quote


@dataclass(frozen=True, init=False)
class Received:
    """A checked message from `peer` (the link it came on): a frame map or a `SignedMessage`."""

    peer: bytes
    message: dict[str, Any] | SignedMessage

    def __init__(self, peer: bytes, message: dict[str, Any] | SignedMessage) -> None:
        # (frozen all the same: set once, here, without a call per field; one per frame)
        self.__dict__["peer"], self.__dict__["message"] = peer, message

    @property
    def type(self) -> str:
        m = self.message
        return m.type if isinstance(m, SignedMessage) else str(m["type"])


MeshEvent = LinkUp | LinkDown | Received
FrontDoor = Callable[[FramedStream, tuple[str, int]], Awaitable[None]]


class Sent(Enum):
    """What became of a frame sent to one peer (`Mesh.send_paced`, §4.7)."""

    TAKEN = "taken"  # its link took it (the link may still end before the peer reads it)
    BACKLOG = "backlog"  # the peer has no link: it waits in the peer's backlog for its next link
    # Not sent, or likely not: its link ended before it took it (what a link had not taken
    # ends with it, §4.7), the backlog overflowed, or the peer was forgotten or the mesh closes.
    LOST = "lost"


@dataclass
class _Peer:
    cert: Certificate
    address: tuple[str, int] | None
    backlog: deque[bytes] = field(default_factory=deque)  # frames sent while it had no link
    link: _Link | None = None
    spare: _Link | None = None  # (lower id only) the far end's connection, while the one this end dialled is the link
    dialing: bool = False
    greeting: bool = False  # this end's dial has a connection in its `link.hello` exchange
    held: LinkDown | None = None  # the far end's link ended while that exchange runs: told if it fails
    closing: bool = False  # forgotten, or the mesh is closing: the link says bye and ends


@dataclass(eq=False)  # (one link is itself: kept in a set while it runs)
class _Link:
    stream: FramedStream
    tls: TlsStream
    dialled: bool = False  # this end dialled it
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    done: trio.Event = field(default_factory=trio.Event)
    wake: trio.Event = field(default_factory=trio.Event)  # the writer has bytes to flush, or must close
    flushed: trio.Event = field(default_factory=trio.Event)  # set (and replaced) at each flush, and as the link ends
    read_over: trio.Event = field(default_factory=trio.Event)  # the reader stopped
    end_reason: str | None = None
    end_error: ProtocolError | None = None
    clean: bool = False
    said: str = ""  # (the peer's goodbye's words)

    def end(self, reason: str) -> None:
        if self.end_reason is None:
            self.end_reason = reason
        self.scope.cancel()

    def write(self, frame: bytes) -> int | None:
        """Write `frame` to the connection now: the bytes it has not taken yet, or None
        if the connection is gone (the link is then ending: the writer finds out too, and
        ends it once the reader has taken what came before, see `Mesh._guarded`)."""
        try:
            return self.tls.write(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.wake.set()
            return None


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
        outbox_bytes: int = OUTBOX_BYTES,
        hold_incoming: bool = False,
    ) -> None:
        self.identity = identity
        self.schemas = schemas
        self.limits = limits
        self.table_id: bytes | None = None
        self.port = 0
        self._nursery = nursery
        self._outbox_frames = outbox_frames
        self._outbox_bytes = outbox_bytes
        self._peers: dict[bytes, _Peer] = {}
        self._keys: dict[bytes, bytes] = {identity.peer_id: identity.certificate.public_key}
        self._server_ctx: ssl.SSLContext | None = None
        self._front_door: FrontDoor | None = None
        self._unsettled = Unsettled()  # incoming connections not yet a link (§4.1)
        self._refusals = Refusals()
        self._telling_refusals = False  # a task waits to tell the refusals held back
        self._incoming = trio.Event()
        if not hold_incoming:
            self._incoming.set()
        self._events_in, self._events_out = trio.open_memory_channel[MeshEvent](INBOUND_EVENTS)
        self._requeued: deque[MeshEvent] = deque()
        self._handler: MeshHandler | None = None
        self._handoff: list[MeshEvent] = []  # events for the handler while it is running
        self._dispatching = False
        self._closing: str | None = None
        self._away = False  # closing without a goodbye: the peers take it for a link lost (`aclose`)
        self._links: set[_Link] = set()  # links up or closing (one ended, told, may still be closing)
        self._greeting = 0  # connections in their `link.hello` exchange, or saying bye after it (`aclose` waits)
        self._greeted = trio.Event()  # set as one of those is over
        self.farewell: str | None = None  # why this peer goes, for its goodbye when it closes (`aclose`)

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
        """Pin `cert`; with `dial`, connect to `address` (and keep the link). A peer pinned
        as the mesh closes is closing too: it gets no link, nothing sent to it waits."""
        if cert.peer_id == self.me:
            raise ValueError("a peer does not link to itself")
        peer = self._peers.get(cert.peer_id)
        if peer is None:
            peer = self._peers[cert.peer_id] = _Peer(cert, address, closing=self._closing is not None)
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
        peer.closing = True  # the writer flushes what was written, then says bye
        for link in (peer.link, peer.spare):
            if link is not None:
                link.wake.set()

    def dial(self, peer_id: bytes) -> None:
        """Connect to a pinned peer (no-op while linked, while a dial is under way: until
        its `link.hello` exchange is over, §4.7, and once the mesh is closing: it takes no
        new link, and its tasks may be gone; a caller may outlive it)."""
        peer = self._peers[peer_id]
        if peer.address is None:
            raise ValueError(f"no address known for {short_id(peer_id)}")
        if peer.link is None and not peer.dialing and not peer.closing:
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
        """Send `message` to one peer now; never blocks (§4.7 overflow policy)."""
        self._queue(peer_id, encode_frame(message, self.limits))

    async def send_paced(self, peer_id: bytes, message: Mapping[str, Any]) -> Sent:
        """Send `message` to one peer, then wait while more than half its link's outbox
        is unsent (for bulk transfers where the caller prefers backpressure to the
        overflow policy). Says what became of it: `Sent.LOST` if the link ended while
        this waited (re-sending it is the caller's business), `Sent.BACKLOG` if the peer
        has no link (nothing paces a backlog: its overflow policy bounds it)."""
        peer = self._peers.get(peer_id)
        if peer is None:
            raise KeyError(f"{short_id(peer_id)} is not a pinned peer of this table")
        sent = self._queue(peer_id, encode_frame(message, self.limits))
        link = peer.link
        if sent is not Sent.TAKEN or link is None or link.tls.pending <= self._outbox_bytes // 2:
            await trio.lowlevel.checkpoint()
            return sent
        while link is peer.link and link.tls.pending > self._outbox_bytes // 2:
            await link.flushed.wait()  # (set as the writer flushes, and as the link ends: `_unlink`)
        return Sent.TAKEN if link is peer.link else Sent.LOST

    def broadcast(self, message: Mapping[str, Any], exclude: Iterable[bytes] = ()) -> None:
        """Send `message` to every pinned peer now (encoded once)."""
        frame = encode_frame(message, self.limits)
        skip = set(exclude)
        for peer_id in list(self._peers):
            if peer_id not in skip:
                self._queue(peer_id, frame)

    def send_frame(self, peer_id: bytes, frame: bytes) -> None:
        """`send` for a message encoded already (`encode_frame`'s bytes, such as a
        `SignedMessage.wire`)."""
        self._queue(peer_id, self._sized(frame))

    def broadcast_frame(self, frame: bytes, exclude: Iterable[bytes] = ()) -> None:
        """`broadcast` for a message encoded already (see `send_frame`)."""
        self._sized(frame)
        skip = set(exclude)
        for peer_id in list(self._peers):
            if peer_id not in skip:
                self._queue(peer_id, frame)

    def _sized(self, frame: bytes) -> bytes:
        """`frame`, if a peer would take its size (§4.2), as `encode_frame` checks."""
        if len(frame) - 4 > self.limits.max_frame:
            raise ValueError(f"frame of {len(frame) - 4} bytes exceeds the {self.limits.max_frame}-byte limit (§4.2)")
        return frame

    def _queue(self, peer_id: bytes, frame: bytes) -> Sent:
        peer = self._peers.get(peer_id)
        if peer is None:
            raise KeyError(f"{short_id(peer_id)} is not a pinned peer of this table")
        if peer.closing:
            return Sent.LOST  # forgotten, or the mesh is closing
        link = peer.link
        if link is None or peer.backlog:
            if len(peer.backlog) < self._outbox_frames:
                peer.backlog.append(frame)
                return Sent.BACKLOG
            self._overflow(peer, f"send queue overflow ({len(peer.backlog)} frames unsent)")
            return Sent.LOST
        unsent = link.write(frame)
        if unsent is None:
            return Sent.LOST
        if unsent > self._outbox_bytes:
            self._overflow(peer, f"send queue overflow ({unsent} bytes unsent)")
            return Sent.LOST
        if unsent:
            link.wake.set()
        return Sent.TAKEN

    def _overflow(self, peer: _Peer, what: str) -> None:
        """§4.7: a peer that does not read loses its link and what was waiting for it."""
        reason = f"{what}: the peer is not reading"
        log.info("link to %s dropped: %s", peer.cert.short, reason)
        peer.backlog.clear()
        if peer.spare is not None:
            peer.spare.end(reason)
        if peer.link is not None:
            peer.link.end(reason)
        else:
            self._emit(LinkDown(peer.cert.peer_id, reason))

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

    def attach(self, handler: MeshHandler) -> None:
        """From now on call `handler` with every event as it happens, instead of queueing
        it for `receive` (what is queued already goes to the handler first, in order).
        The handler runs synchronously in the task that saw the event; it must not
        block, and an exception from it is a bug that ends the mesh."""
        self._handler = handler
        waiting = list(self._requeued)
        self._requeued.clear()
        while (event := self._take_queued()) is not None:
            waiting.append(event)
        if waiting:
            self._hand(waiting)

    def detach(self) -> None:
        """Queue events for `receive` again."""
        self._handler = None

    def _take_queued(self) -> MeshEvent | None:
        try:
            return self._events_out.receive_nowait()
        except trio.WouldBlock:
            return None

    def _hand(self, events: list[MeshEvent]) -> None:
        """Give `events` to the handler; while it runs (it may send, and a send may end a
        link), new events wait and follow in order, so it is never re-entered."""
        self._handoff.extend(events)
        if self._dispatching:
            return
        self._dispatching = True
        try:
            while self._handoff and self._handler is not None:
                batch, self._handoff = self._handoff, []
                try:
                    self._handler(batch)
                except Exception as exc:
                    raise HandlerFailed(f"the mesh's event handler failed: {exc!r}") from exc
        finally:
            self._dispatching = False
            if self._handoff and self._handler is None:  # detached meanwhile: back to the queue
                self._requeued.extend(self._handoff)
                self._handoff = []

    def __aiter__(self) -> AsyncIterator[MeshEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[MeshEvent]:
        while True:
            yield await self.receive()

    def _emit(self, event: MeshEvent) -> None:
        if self._handler is not None:
            self._hand([event])
            return
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
        try:
            host, port = sock.socket.getpeername()[:2]
        except OSError as exc:  # reset before it was looked at: nothing to refuse, nothing to tell
            log.info("a connection went away before it was accepted: %s", exc.strerror or exc)
            await trio.aclose_forcefully(sock)
            return
        label = f"{host}:{port}"
        pinned = any(peer.address is not None and peer.address[0] == host for peer in self._peers.values())
        cap = self._unsettled.cap_hit(host, pinned=pinned)
        if cap is not None:
            await self._refuse(sock, cap, host, port)
            return
        self._unsettled.add(host)
        try:
            settled = await self._settle(sock, host, port, label)
        finally:
            self._unsettled.remove(host)
        if settled is not None:
            await self._run_link(*settled)

    async def _refuse(self, sock: trio.SocketStream, cap: str, host: str, port: int) -> None:
        """Answer a connection beyond a cap (§4.1) with `BUSY`, in place of TLS, and close
        it; the host's log tells of it (`Refusals`: a flood is a line now and then)."""
        line = self._refusals.add(cap, host, port, trio.current_time())
        if line is not None:
            log.warning("%s", line)
        elif not self._telling_refusals:
            self._telling_refusals = True
            self._nursery.start_soon(self._tell_refusals)
        try:
            await sock.send_all(BUSY)  # (a new connection's socket takes it at once)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        await trio.aclose_forcefully(sock)

    async def _tell_refusals(self) -> None:
        """Tell the refusals held back once their line is owed."""
        try:
            await trio.sleep_until(self._refusals.due)
            if (line := self._refusals.line(trio.current_time())) is not None:
                log.warning("%s", line)
        finally:
            self._telling_refusals = False

    async def _settle(self, sock: trio.SocketStream, host: str, port: int, label: str) -> tuple[_Peer, FramedStream] | None:
        """The TLS handshake of an incoming connection, then: a lobby joiner goes to the
        front door (for its whole stay there); a pinned peer's link is returned. One
        that sends nothing for `QUIET` seconds is no client of ours (§4.1): closed."""
        spoke = False
        try:
            with trio.move_on_after(QUIET):
                await trio.lowlevel.wait_readable(sock.socket)
                spoke = True
            if not spoke:
                log.info("closed the connection from %s: it sent nothing for %.0f s (§4.1)", label, QUIET)
                await trio.aclose_forcefully(sock)
                return None
            await self._incoming.wait()
        except BaseException:  # (cancelled while held)
            await trio.aclose_forcefully(sock)
            raise
        if self._server_ctx is None:
            self._server_ctx = server_context(self.identity, (p.cert for p in self._peers.values()))
        tls = TlsStream.over(sock, self._server_ctx, server_side=True)
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                await tls.do_handshake()
            cert = presented(tls)
            if tls.selected_alpn_protocol() is None:
                raise ProtocolError("§4.1", "client did not offer ALPN bandit-lan/1")
        except (trio.BrokenResourceError, trio.TooSlowError, ProtocolError, OSError) as exc:
            # a client that hung up or went quiet mid-handshake (a dial given up, a peer that
            # stopped) is routine: only one that failed the handshake is worth a warning
            level = logging.WARNING if _failed_handshake(exc) else logging.INFO
            log.log(level, "refused TLS client %s: %s", label, describe_tls_failure(exc))
            await trio.aclose_forcefully(tls)
            return
        except BaseException:  # (cancelled: a mesh that fails cancels its tasks)
            await trio.aclose_forcefully(tls)
            raise
        stream = FramedStream(tls, self.schemas, limits=self.limits, label=label)
        if cert is None:
            if self._front_door is None:
                await stream.reject(ProtocolError("§6.2", "this peer is not hosting a table"))
                return None
            await self._front_door(stream, (host, port))
            return None
        peer = self._peers.get(cert.peer_id)
        if peer is None:  # unpinned after the handshake started (forgotten meanwhile)
            await stream.reject(ProtocolError("§4.1", f"{cert.short} is not a peer of this table"))
            return None
        stream.label = cert.short
        stream.decoder.peer = cert.short
        return peer, stream

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
                except Unanswered as exc:  # (another attempt would wait out its handshake again, §4.7)
                    failure = describe_tls_failure(exc)
                    break
                except (OSError, trio.BrokenResourceError, trio.TooSlowError, ProtocolError, ValueError) as exc:
                    # (ValueError: an address no resolver takes, such as "a..b" or a bad port)
                    failure = describe_tls_failure(exc)
                    if attempt < DIAL_ATTEMPTS - 1:
                        await trio.sleep(0.05 * 4**attempt)
            if stream is None:
                if peer.link is not None:  # the peer dialled us meanwhile: nothing is down
                    return
                log.info("could not connect to %s: %s", peer.cert.short, failure)
                self._emit(LinkDown(peer.cert.peer_id, f"could not connect: {failure}", error))
                return
        finally:
            if stream is None:
                peer.dialing = False
        await self._run_link(peer, stream, dialled=True)

    async def _connect(self, peer: _Peer) -> FramedStream:
        assert peer.address is not None
        host, port = peer.address
        with trio.fail_after(DIAL_TIMEOUT):
            sock = await trio.open_tcp_stream(host, port)
        tls = TlsStream.over(sock, mesh_client_context(self.identity, peer.cert), server_side=False)
        try:
            try:
                with trio.fail_after(HANDSHAKE_TIMEOUT):
                    await tls.do_handshake()
            except trio.TooSlowError:
                raise Unanswered() from None
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

    async def _run_link(self, peer: _Peer, stream: FramedStream, *, dialled: bool = False) -> None:
        """Set up a link on `stream` and serve it until it ends. `dialled`: this peer's dial
        made it, and that dial lasts until the `link.hello` exchange is over (§4.7).
        However it ends, cancelled too (a mesh that fails cancels every link), its
        connection is closed: not left to the garbage collector, nor half open at the far end."""
        try:
            await self._serve_link(peer, stream, dialled=dialled)
        finally:
            await stream.aclose()  # (shielded, bounded; nothing if closed already)

    async def _serve_link(self, peer: _Peer, stream: FramedStream, *, dialled: bool) -> None:
        peer_id = peer.cert.peer_id
        if self._closing is not None or peer.closing:
            if dialled:
                peer.dialing = False
            await self._leave_unlinked(stream)
            return
        self._greeting += 1
        try:
            if not await self._greet(peer, stream, dialled=dialled):
                return
            if self._closing is not None or peer.closing:  # (it began leaving meanwhile: `aclose` waits for this)
                await self._leave_unlinked(stream)
                return
        finally:
            self._greeting -= 1
            self._greeted.set()
            self._greeted = trio.Event()
        if self._peers.get(peer_id) is not peer:
            await stream.say_bye("removed from the table")
            return
        assert isinstance(stream.stream, TlsStream)
        link = _Link(stream, stream.stream, dialled=dialled)
        if not self._place(peer, link):
            log.info("closed the connection to %s this peer dialled: the one it dialled is up (§4.7)", stream.label)
            await stream.aclose()
            return
        link.wake.set()
        self._links.add(link)
        try:
            with link.scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._guarded, self._write, peer, link)
                    nursery.start_soon(self._guarded, self._reader, peer, link)
            self._link_ended(peer, link)  # (ended from outside: `close_link`, an overflow, a mesh closing)
            if link.end_error is not None and not isinstance(link.end_error, RemoteError):
                log.info("peer %s broke the protocol: %s", stream.label, link.end_error)
                await stream.reject(link.end_error)
            else:
                await stream.aclose()
        finally:
            self._unlink(peer, link)  # (cancelled with the mesh's links: not handed up, but its senders are woken)
            self._links.discard(link)
            link.done.set()

    async def _greet(self, peer: _Peer, stream: FramedStream, *, dialled: bool) -> bool:
        """The `link.hello` exchange (§4.6, §4.7): whether it succeeded; a failure is told
        (`_setup_failed`) and its connection closed here."""
        peer_id = peer.cert.peer_id
        try:
            try:
                peer.greeting = peer.greeting or dialled
                with trio.fail_after(HANDSHAKE_TIMEOUT):
                    await stream.send({"type": "link.hello", "v": 1, "table": self.table_id or bytes(32)})
                    hello = await stream.expect("link.hello")
            finally:
                # (over before its end is told: whoever hears of a failed setup may dial again.
                # Not before: a dial again meanwhile, as a table dials a lost peer again and
                # again, §11.3, made a second connection; it replaced the first at one end,
                # and the other could see the first closed before the second came up)
                if dialled:
                    peer.dialing = peer.greeting = False
            if self.table_id is None or hello["table"] != self.table_id:
                raise ProtocolError("§4.6", "link.hello names another table", stream.label)
        except ProtocolError as exc:
            log.info("link to %s refused: %s", stream.label, exc)
            self._setup_failed(peer, LinkDown(peer_id, str(exc), exc), dialled)
            await stream.reject(exc)
            return False
        except (PeerLeft, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            reason = describe_tls_failure(exc) if not isinstance(exc, PeerLeft) else exc.reason
            if isinstance(exc, PeerLeft) and not exc.clean and isinstance(stream.stream, TlsStream):
                reason = f"{reason} (the peer may not have pinned this certificate)"
            # (a goodbye in place of the hello is a goodbye: the peer is leaving, §4.6)
            left = isinstance(exc, PeerLeft) and exc.clean
            self._setup_failed(peer, LinkDown(peer_id, f"link setup failed: {reason}", clean=left,
                                              said=exc.said if isinstance(exc, PeerLeft) else ""), dialled)
            await stream.aclose()
            return False
        return True

    async def _leave_unlinked(self, stream: FramedStream) -> None:
        """A mesh that is leaving takes no new link: one that came up only to say bye
        would look to the other peer like a return (and restart its wait, §11.3). Its
        connection says the goodbye at once (none if the mesh leaves `away`)."""
        if self._away:
            await stream.aclose()
        else:
            await stream.say_bye(self._closing or "removed from the table")

    def _place(self, peer: _Peer, link: _Link) -> bool:
        """Make `link`, whose `link.hello` exchange is over, the peer's link or its spare
        (§4.7), telling `LinkUp` when it becomes the link; False if it is to be closed.
        A connection dialled by the same end as the link replaces it (that end dropped
        the old one: a reconnect). Of two dialled by opposite ends (both dialled at once,
        or the far end dialled anew while this end still holds a connection the far end
        has dropped) the one the lower peer id dialled is the link: the higher end closes
        its own, and the lower end keeps the other as a spare until the higher end closes
        it, or until its own ends (then the spare is the link: what the far end dialled
        anew, §11.3, takes over from a connection dead at the far end)."""
        current = peer.link
        lower = self.me < peer.cert.peer_id
        if current is not None and current.dialled != link.dialled:
            if link.dialled != lower:  # the higher peer's dial, while the lower peer's is up
                if not lower:
                    return False
                if peer.spare is not None:
                    peer.spare.end("replaced by a new link")
                peer.spare = link
                return True
            if lower:  # this end's dial is the link now; the far end's waits as a spare
                if peer.spare is not None:
                    peer.spare.end("replaced by a new link")
                peer.spare, peer.link = current, None
            else:
                current.end("replaced by the link the lower peer id dialled (§4.7)")
        elif current is not None:  # a newer link replaces an older one (reconnect)
            current.end("replaced by a new link")
        self._make_link(peer, link)
        return True

    def _make_link(self, peer: _Peer, link: _Link) -> None:
        """`link` is the peer's link from now on; tell it, and send it the backlog."""
        peer.link, peer.held = link, None
        self._emit(LinkUp(peer.cert.peer_id))
        while peer.backlog:  # what was sent while it had no link goes first, in order
            if link.write(peer.backlog.popleft()) is None:
                break
        link.wake.set()

    def _setup_failed(self, peer: _Peer, down: LinkDown, dialled: bool) -> None:
        """A connection's `link.hello` exchange failed: a loss only if the peer has no
        link (a second connection failing is not the peer lost, §4.7), or, if this end's
        dial failed, the far end's link that ended while it ran (`_link_ended`)."""
        held = peer.held if dialled else None
        if held is not None:
            peer.held = None
            self._emit(held)
        elif peer.link is None:
            self._emit(down)
        else:
            log.info("a second connection to %s failed, its link stays up: %s", peer.cert.short, down.reason)

    def _link_ended(self, peer: _Peer, link: _Link) -> None:
        """Hand up `link`'s end, once, as soon as it is known: before its connection is
        closed (an ``error`` frame sent, a ``close_notify``), so that this peer learns of a
        link it lost no later than of another peer's report of the same loss (§11.3). A
        link replaced by a newer one, or a spare, is not a peer lost; nor is the link
        when a spare takes over (`_place`), or when the far end dialled it and this end's
        own dial is in its `link.hello` exchange (the far end closed it for that one: told
        only if that exchange fails, `_setup_failed`)."""
        if not self._unlink(peer, link):  # (handed up already, or replaced)
            return
        spare, peer.spare = peer.spare, None
        if spare is not None and spare.end_reason is None:
            log.info("link to %s ended (%s): the connection it dialled takes over", peer.cert.short,
                     link.end_reason or "link closed")
            self._make_link(peer, spare)
            return
        fault = link.end_error is not None and not isinstance(link.end_error, RemoteError)
        down = LinkDown(peer.cert.peer_id, link.end_reason or "link closed", link.end_error, link.clean, fault, link.said)
        held = not link.dialled and peer.greeting and self.me < peer.cert.peer_id  # (the higher end closes no link of the lower's)
        if held and not fault and not self._closing and not peer.closing:
            peer.held = down
            return
        self._emit(down)

    @staticmethod
    def _unlink(peer: _Peer, link: _Link) -> bool:
        """`link` has ended: wake whoever waits for it to flush (`send_paced`), and if it
        is still `peer`'s link, take it away (from now on, what is sent to the peer waits in
        its backlog). Whether it was. (A spare that ends is just gone.)"""
        link.flushed.set()
        if peer.spare is link:
            peer.spare = None
        if peer.link is not link:
            return False
        peer.link = None
        return True

    async def _guarded(self, fn: Callable[[_Peer, _Link], Awaitable[None]], peer: _Peer, link: _Link) -> None:
        """Run a link half; the first way it ends becomes the link's end reason, handed
        up at once (`_link_ended`). When the writer finds the connection gone (the peer
        closed it, or reset it), what the peer sent before that may still wait in the
        socket, its goodbye among it: the reader gets up to `LINGER` seconds to take it,
        so a goodbye counts as one (it ends the link first, as soon as it has taken what
        came, a few milliseconds in practice)."""
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
                link.clean, link.said = exc.clean, exc.said
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            reason = f"connection lost ({describe_tls_failure(exc)})"
            if link.end_reason is None and not link.read_over.is_set():  # (the writer's failure)
                with trio.move_on_after(LINGER):
                    await link.read_over.wait()
        if link.end_reason is None:
            link.end_reason = reason
        self._link_ended(peer, link)
        link.scope.cancel()

    async def _reader(self, peer: _Peer, link: _Link) -> None:
        try:
            await self._read(peer, link)
        finally:
            link.read_over.set()

    async def _read(self, peer: _Peer, link: _Link) -> None:
        """Hand up every frame as it arrives: those that came together, together. A bad
        frame ends the link after the good ones before it were handed up."""
        while True:
            frame: dict[str, Any] | None = await link.stream.receive()
            events: list[MeshEvent] = []
            failure: ProtocolError | PeerLeft | None = None
            try:
                while frame is not None:
                    events.append(Received(peer.cert.peer_id, self._open(peer, link, frame)))
                    frame = link.stream.buffered()
            except (ProtocolError, PeerLeft) as exc:
                failure = exc
            if peer.closing:
                events = []  # (leaving: nobody takes them, and the reader must read on to the peer's close)
            if self._handler is not None:
                self._hand(events)
            else:
                for event in events:  # (queued together, while there is room: a reader finds them all)
                    try:
                        self._events_in.send_nowait(event)
                    except trio.WouldBlock:
                        await self._events_in.send(event)
            if failure is not None:
                raise failure

    def _open(self, peer: _Peer, link: _Link, frame: dict[str, Any]) -> dict[str, Any] | SignedMessage:
        kind = frame["type"]
        if kind == "signed":
            try:
                return open_signed(frame, self._keys, self.schemas, self.limits, checked=True,
                                   link=peer.cert.peer_id, link_authenticated=LINK_AUTHENTICATED)
            except ProtocolError as exc:
                raise exc.with_peer(link.stream.label) from None
        if kind == "link.hello":
            raise ProtocolError("§4.6", "link.hello sent twice", link.stream.label)
        return frame

    async def _write(self, peer: _Peer, link: _Link) -> None:
        """Flush what the socket could not take when it was written; on closing, flush
        everything and leave politely."""
        while True:
            await link.tls.drain()
            flushed, link.flushed = link.flushed, trio.Event()
            flushed.set()
            if peer.closing:
                break
            await link.wake.wait()
            link.wake = trio.Event()
        reason = self._closing or "removed from the table"
        if self._away:  # (no goodbye: the peer takes the close for a link lost, §11.3)
            link.end_reason = link.end_reason or reason
            return
        await link.stream.send(framed.bye_frame(reason))
        link.end_reason, link.clean = link.end_reason or reason, True
        # The peer closes on reading the goodbye: read on (discarding) until it has, so that
        # this side closes with nothing unread. Else its kernel resets the connection, and
        # the peer may take the reset, not the goodbye (a game kept waiting for a seat gone).
        with trio.move_on_after(LINGER):
            await link.read_over.wait()

    # -- closing ----------------------------------------------------------------------

    def close_link(self, peer_id: bytes, reason: str, error: ProtocolError | None = None) -> None:
        """Drop the link to a peer at once (it stays pinned; a later dial may reconnect);
        with `error`, the peer is told in an ``error`` frame what it broke (§4.6)."""
        peer = self._peers.get(peer_id)
        if peer is not None and peer.spare is not None:
            peer.spare.end(reason)  # (first: a spare does not take over from a link dropped on purpose)
        if peer is not None and peer.link is not None:
            peer.link.end_reason = reason
            if error is not None:
                peer.link.end_error = error
            peer.link.scope.cancel()

    async def aclose(self, reason: str | None = None, timeout: float = 2.0, *, away: bool = False) -> None:
        """Leave every link gracefully: send what is queued, then ``bye`` (bounded), with
        `reason`, else the `farewell` set before, else "leaving the table"; a connection
        in its `link.hello` exchange says ``bye`` after it (the far end may hold it as its
        link already, the one the lower peer id dialled, §4.7). `away`: say
        no goodbye, on these links or any later one, so that the peers take this peer for
        one whose link was lost, which may come back (§11.3: a seat taken back that could
        not reach them all, and keeps its journal to try again)."""
        self._away = self._away or away
        self._closing = reason or self.farewell or "leaving the table"
        links = list(self._links)  # (those that ended, told already, finish their close too)
        for peer in self._peers.values():
            peer.closing = True
        while self._take_queued() is not None:  # (a reader waiting for room in the queue reads on)
            pass
        for link in links:
            link.wake.set()
        with trio.move_on_after(timeout):
            for link in links:
                await link.done.wait()
            while self._greeting:  # (a connection in its `link.hello` exchange says bye after it: `_serve_link`)
                await self._greeted.wait()
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
    outbox_bytes: int = OUTBOX_BYTES,
    hold_incoming: bool = False,
) -> AsyncIterator[Mesh]:
    """A listening mesh; on exit every link says ``bye`` and closes. Its links run
    shielded from the caller's cancellation (a signal that stops the program cancels
    everything), so that the goodbye still goes out on exit; they stop once it has."""
    with lone_exception_unwrapped():
        async with trio.open_nursery() as outer:
            nursery, links = await outer.start(_shielded_nursery)
            mesh = Mesh(identity, schemas, nursery, limits=limits, outbox_frames=outbox_frames,
                        outbox_bytes=outbox_bytes, hold_incoming=hold_incoming)
            try:
                await nursery.start(mesh._listen, bind, port)
                yield mesh
            finally:
                with trio.CancelScope(shield=True):
                    await mesh.aclose()
                links.cancel()


async def _shielded_nursery(task_status: trio.TaskStatus[tuple[trio.Nursery, trio.CancelScope]]) -> None:
    """A nursery no outer cancellation reaches, and the scope that ends it."""
    with trio.CancelScope(shield=True) as scope:
        async with trio.open_nursery() as nursery:
            task_status.started((nursery, scope))
            await trio.sleep_forever()


async def probe_certificate(host: str, port: int) -> Certificate | None:
    """The certificate a TLS server presents, fetched without sending any data; used
    only to name the presented fingerprint in a mismatch error."""
    try:
        with trio.fail_after(DIAL_TIMEOUT):
            sock = await trio.open_tcp_stream(host, port)
            tls = TlsStream.over(sock, front_door_context(), server_side=False)
            try:
                await tls.do_handshake()
                return presented(tls)
            finally:
                await trio.aclose_forcefully(tls)
    except (OSError, trio.BrokenResourceError, trio.TooSlowError, ProtocolError):
        return None
