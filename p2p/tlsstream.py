"""TLS over a TCP socket with writes that never wait (§4.1, §4.7).

Theory of operation
-------------------
`trio.SSLStream` makes every send an `await`: the caller yields to the scheduler, and
on a busy peer a frame queued for a link can wait behind whatever else is runnable. On
a card table a frame's latency *is* the game (an acknowledgement that waits holds up
every peer's delivery, §7.4), so links use this stream instead. It keeps the TLS state
in an `ssl.SSLObject` over two memory BIOs and owns a non-blocking socket:

* ``write(data)`` encrypts at once and hands the record to the kernel in the same call;
  what the socket does not take now stays in this stream's backlog (``pending``), and
  ``await drain()`` (the link's writer task) flushes it when the socket is writable
  again. Frames therefore leave in exactly the order they were written, from any task,
  with no await between encryption and sending;
* ``await receive_some()`` decrypts every whole record that has arrived, waiting for the
  socket to become readable only when none is buffered; a peer's ``close_notify``, or
  the end of the TCP stream, reads as end of stream (``b""``): whether the stream ended
  at a frame boundary is the framing layer's judgement (§4.2). An end (or a reset) right
  behind the data is read with it, and the next call says so at once;
* ``await do_handshake()`` runs the TLS 1.3 handshake; certificate checks, ALPN and
  pinning are the caller's (`p2p.tls`). A listener too crowded to take the connection
  answers `BUSY` in place of TLS (§4.1, `p2p.unsettled`): a client's handshake then
  fails with `Crowded` as its cause, not as with a server that speaks no TLS.

Errors follow trio's stream conventions: a failed socket or TLS state is
`trio.BrokenResourceError` (the `ssl.SSLError` or `OSError` as its cause, so
`describe_tls_failure` can name it), a closed stream is `trio.ClosedResourceError`.
Only one task may wait to read and one to drain at a time (`trio.BusyResourceError`).
"""

from __future__ import annotations

import select
import socket
import ssl

import trio

RECORD_READ = 65536
BUSY = b"bandit-lan busy\n"  # a listener's refusal, in place of its first TLS flight (§4.1)


class Crowded(ConnectionError):
    """The listener answered `BUSY`: too many connections wait there for their
    handshake or the lobby, and it took no more (§4.1)."""

    def __init__(self) -> None:
        super().__init__("refused: too many connections wait there to be set up (§4.1)")


class TlsStream(trio.abc.Stream):
    """One TLS connection over a connected TCP socket (see the module docstring)."""

    def __init__(self, sock: socket.socket, context: ssl.SSLContext, *, server_side: bool) -> None:
        sock.setblocking(False)
        self._sock = sock
        self._behind = select.poll()  # whether more (or the end) waits right behind what was read
        self._behind.register(sock, select.POLLIN)
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._tls = context.wrap_bio(self._incoming, self._outgoing, server_side=server_side)
        self._pending = bytearray()
        self._broken: BaseException | None = None  # nothing more can be read or written
        self._send_failed: BaseException | None = None  # nothing more can be sent; what came can be read
        self._closed = False
        self._ended = False  # the peer's close_notify has been read
        self._reading = False
        self._draining = False
        self._opening = bytearray()  # the first bytes that came (up to `len(BUSY)`): a refusal?

    @classmethod
    def over(cls, stream: trio.SocketStream, context: ssl.SSLContext, *, server_side: bool) -> TlsStream:
        """Take over the socket of a connected trio `SocketStream` (which is closed)."""
        trio_sock = stream.socket
        sock = socket.socket(trio_sock.family, trio_sock.type, trio_sock.proto, fileno=trio_sock.detach())
        return cls(sock, context, server_side=server_side)

    # -- what the handshake established ------------------------------------------------

    def getpeercert(self, binary_form: bool = True) -> bytes | None:
        return self._tls.getpeercert(binary_form=True) if binary_form else None

    def selected_alpn_protocol(self) -> str | None:
        return self._tls.selected_alpn_protocol()

    @property
    def pending(self) -> int:
        """Encrypted bytes written but not yet taken by the kernel."""
        return len(self._pending)

    # -- handshake ---------------------------------------------------------------------

    async def do_handshake(self) -> None:
        self._check_open()
        while True:
            try:
                self._tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._collect()
                await self.drain()
                await self._fill()
            except (ssl.SSLError, OSError) as exc:
                if self._opening == BUSY:  # (no TLS at all: the listener's refusal, §4.1)
                    exc = Crowded()
                self._collect()
                self._send_now(quiet=True)  # the alert, if OpenSSL wrote one
                raise self._break(exc) from exc
        self._collect()
        await self.drain()

    # -- sending -----------------------------------------------------------------------

    def write(self, data: bytes) -> int:
        """Encrypt `data` and send what the socket takes now; returns the bytes left
        pending for `drain`. Never blocks, never yields."""
        if self._closed or self._broken is not None or self._send_failed is not None:
            self._check_sending()  # (raises)
        try:
            self._tls.write(data)
        except (ssl.SSLError, OSError) as exc:
            raise self._break(exc) from exc
        self._pending += self._outgoing.read()
        self._send_now()
        return len(self._pending)

    async def drain(self) -> None:
        """Wait until everything written is with the kernel (a checkpoint either way)."""
        if self._draining:
            raise trio.BusyResourceError("another task is already draining this stream")
        self._draining = True
        try:
            if not self._pending:
                self._check_sending()
                await trio.lowlevel.checkpoint()
                return
            while self._pending:
                self._check_sending()
                await trio.lowlevel.wait_writable(self._sock)
                self._send_now()
        finally:
            self._draining = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.write(bytes(data))
        await self.drain()

    async def wait_send_all_might_not_block(self) -> None:
        await self.drain()

    def _collect(self) -> None:
        out = self._outgoing.read()
        if out:
            self._pending += out

    def _send_now(self, *, quiet: bool = False) -> None:
        while self._pending and self._send_failed is None:
            try:
                sent = self._sock.send(self._pending)
            except BlockingIOError:
                return
            except OSError as exc:
                # The peer reset or closed the connection. What it sent before that (its
                # goodbye, say) may still wait in the socket: reading goes on.
                self._send_failed = exc
                if quiet:
                    return
                raise _broken_by(exc) from exc
            del self._pending[:sent]

    # -- receiving ---------------------------------------------------------------------

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        self._check_open()
        if self._reading:
            raise trio.BusyResourceError("another task is already reading this stream")
        if self._ended:  # (read with the data before it: the end is told at once, not a turn later)
            return b""
        self._reading = True
        try:
            waited = False
            while True:
                # (usually nothing has come yet: the socket is waited for at once)
                if self._ended or self._incoming.pending or self._tls.pending() or self._incoming.eof:
                    data = self._read_buffered(max_bytes or RECORD_READ)
                    if data is not None:
                        if not waited:
                            await trio.lowlevel.checkpoint()
                        return data
                await self._fill()
                waited = True
        finally:
            self._reading = False

    def _read_buffered(self, max_bytes: int) -> bytes | None:
        """Every whole record's plaintext that has arrived (up to `max_bytes`); b"" at a
        clean end of stream; None when a whole record is still to come."""
        if self._ended:
            return b""
        chunks: list[bytes] = []
        size = 0
        # Read while a record may be buffered (checking first spares the exception that a
        # read of an empty buffer raises, on every frame).
        while size < max_bytes and (self._incoming.pending or self._tls.pending() or self._incoming.eof):
            try:
                data = self._tls.read(max_bytes - size)
            except ssl.SSLWantReadError:
                break
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                # close_notify, or the TCP stream ended without one: an end either way,
                # reported once the data before it was handed up
                self._ended = True
                break
            except (ssl.SSLError, OSError) as exc:
                if chunks:
                    break  # hand up what came before it; the next call raises
                raise self._break(exc) from exc
            if not data:  # the socket reached its end without a close_notify
                self._ended = True
                break
            chunks.append(data)
            size += len(data)
        self._collect()  # (post-handshake messages may need an answer)
        if self._pending:
            self._send_now(quiet=True)  # (a failed send is the writer's to report)
        if chunks:
            return b"".join(chunks)
        return b"" if self._ended else None

    async def _fill(self) -> None:
        """Wait for the socket, then move what it holds into the TLS object; an end of
        the connection right behind the data (a peer that died after its last frame) is
        taken with it, so that it shows now, not after another wait."""
        while True:
            self._check_open()
            await trio.lowlevel.wait_readable(self._sock)
            try:
                data = self._sock.recv(RECORD_READ)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise self._break(exc) from exc
            if not data:
                self._incoming.write_eof()
                return
            self._take(data)
            if not self._behind.poll(0):  # (nothing more there: asked without a failed read's exception)
                return
            try:
                more = self._sock.recv(RECORD_READ)
            except BlockingIOError:
                return
            except OSError as exc:  # (a reset: what came before it is read first, `_check_open` raises next)
                self._break(exc)
                return
            if more:
                self._take(more)
            else:
                self._incoming.write_eof()
            return

    def _take(self, data: bytes) -> None:
        """Hand what came to the TLS object (keeping its opening bytes: a refusal?)."""
        self._incoming.write(data)
        if len(self._opening) < len(BUSY):
            self._opening += data[:len(BUSY) - len(self._opening)]

    # -- closing -----------------------------------------------------------------------

    async def aclose(self) -> None:
        """Send ``close_notify`` if the connection is healthy (without waiting for the
        answer), then close the socket. A checkpoint; never raises for a dead peer."""
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        try:
            if self._broken is None and self._send_failed is None:
                try:
                    self._tls.unwrap()
                except (ssl.SSLError, OSError, ValueError):
                    pass
                self._collect()
                self._send_now(quiet=True)
        finally:
            self._closed = True
            trio.lowlevel.notify_closing(self._sock)  # a task waiting on it gets ClosedResourceError
            self._sock.close()
        await trio.lowlevel.checkpoint()

    def _check_open(self) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the TLS stream is closed")
        if self._broken is not None:
            raise trio.BrokenResourceError("the TLS connection is broken") from self._broken

    def _check_sending(self) -> None:
        self._check_open()
        if self._send_failed is not None:
            raise _broken_by(self._send_failed) from self._send_failed

    def _break(self, exc: BaseException) -> trio.BrokenResourceError:
        if self._broken is None:
            self._broken = exc
        return _broken_by(exc)


def _broken_by(exc: BaseException) -> trio.BrokenResourceError:
    """trio's error for a broken stream, with `exc` as its cause."""
    error = trio.BrokenResourceError(str(exc) or type(exc).__name__)
    error.__cause__ = exc
    return error
