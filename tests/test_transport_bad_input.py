"""§4: every kind of bad input on a real TLS link gets its specific error, costs the
sender its link, and leaves the honest peers' link working."""

from __future__ import annotations

import ssl
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from p2p.errors import ProtocolError
from p2p.identity import Identity, load_or_create_identity
from p2p.schema import PEER_ID, Message, Str
from p2p.signing import sign, signed_frame
from p2p.tls import mesh_client_context
from p2p.transport import LinkDown, LinkUp, Mesh, Received, link_schemas, open_mesh
from p2p.wire import FrameDecoder, encode, encode_frame, frame_bytes

NOTE = Message("test.note", 1, "§9", {"from": PEER_ID, "text": Str(max_len=100)})
TABLE = bytes(range(32))


@dataclass
class Table:
    a: Mesh
    b: Mesh
    intruder: Identity
    root: Path


@asynccontextmanager
async def table_with_intruder(tmp_path: Path) -> AsyncIterator[Table]:
    """Honest A and B linked; M (the intruder) is a pinned peer of A."""
    ids = [load_or_create_identity(tmp_path / n) for n in ("a", "b", "m")]
    schemas = link_schemas(NOTE)
    async with open_mesh(ids[0], schemas, bind="127.0.0.1") as a, open_mesh(ids[1], schemas, bind="127.0.0.1") as b:
        for m in (a, b):
            m.set_table(TABLE)
        a.expect(ids[1].certificate)
        a.expect(ids[2].certificate)
        b.expect(ids[0].certificate, ("127.0.0.1", a.port), dial=True)
        assert await a.receive() == LinkUp(ids[1].peer_id)
        assert await b.receive() == LinkUp(ids[0].peer_id)
        yield Table(a, b, ids[2], tmp_path)


async def intruder_link(t: Table) -> trio.SSLStream[trio.SocketStream]:
    sock = await trio.open_tcp_stream("127.0.0.1", t.a.port)
    tls = trio.SSLStream(sock, mesh_client_context(t.intruder, t.a.identity.certificate), server_side=False)
    await tls.do_handshake()
    await tls.send_all(encode_frame({"type": "link.hello", "v": 1, "table": TABLE}))
    # Read A's hello, so that closing later is an orderly end of stream: a TCP socket
    # closed with unread data resets the connection instead.
    decoder = FrameDecoder()
    while (hello := decoder.next_frame()) is None:
        decoder.feed(await tls.receive_some(65536))
    assert hello["type"] == "link.hello"
    return tls


async def frames_until_eof(tls: trio.SSLStream[trio.SocketStream]) -> list[dict]:
    decoder, frames = FrameDecoder(), []
    while True:
        try:
            data = await tls.receive_some(65536)
        except trio.BrokenResourceError:
            break
        if not data:
            break
        decoder.feed(data)
        frames.extend(decoder)
    return frames


async def link_down_at_a(t: Table) -> LinkDown:
    while True:
        event = await t.a.receive()
        if isinstance(event, LinkDown) and event.peer == t.intruder.peer_id:
            return event


async def honest_link_still_works(t: Table) -> None:
    body, sig = sign(t.b.identity, {"type": "test.note", "v": 1, "from": t.b.me, "text": "still here"})
    t.b.send(t.a.me, signed_frame(body, sig))
    while True:
        event = await t.a.receive()
        if isinstance(event, Received):
            assert event.peer == t.b.me and event.message.inner["text"] == "still here"
            break
    assert t.a.linked() == {t.b.me}


async def attack(t: Table, payload: bytes, *, close: bool = False) -> tuple[list[dict], LinkDown]:
    """Send `payload` after a correct link.hello; what the intruder heard, and A's verdict."""
    with trio.fail_after(10):
        tls = await intruder_link(t)
        await tls.send_all(payload)
        if close:
            await tls.aclose()
            heard: list[dict] = []
        else:
            heard = await frames_until_eof(tls)
        down = await link_down_at_a(t)
        await honest_link_still_works(t)
    return heard, down


def error_of(heard: list[dict]) -> dict:
    errors = [f for f in heard if f["type"] == "error"]
    assert errors, f"no error frame among {heard}"
    return errors[-1]


async def test_garbage_bytes_are_refused_as_bad_msgpack(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        heard, down = await attack(t, frame_bytes(b"\xc1\xff\x00garbage"))
    assert error_of(heard)["section"] == "§4.3" and "msgpack" in error_of(heard)["reason"]
    assert down.error is not None and down.error.section == "§4.3"


async def test_oversized_length_is_refused_before_buffering(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        heard, down = await attack(t, struct.pack(">I", 0xFFFFFFFF))
    assert error_of(heard)["section"] == "§4.2"
    assert "exceeds the limit of 1048576" in error_of(heard)["reason"]
    assert down.error is not None and "4294967295" in down.error.reason


async def test_truncated_frame_is_a_violation(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        _, down = await attack(t, struct.pack(">I", 100) + b"\x81\xa4type", close=True)
    assert down.error is not None and down.error.section == "§4.2"
    assert "stream ended inside a frame" in down.error.reason


async def test_wrong_envelope_type_is_refused(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        heard, down = await attack(t, frame_bytes(encode({"type": 7, "v": 1})))
    assert error_of(heard)["section"] == "§4.3" and "'type' must be str" in error_of(heard)["reason"]
    assert down.error is not None


async def test_wrong_field_type_names_the_field(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        heard, down = await attack(t, encode_frame({"type": "signed", "v": 1, "body": "text, not bin", "sig": bytes(64)}))
    reason = error_of(heard)["reason"]
    assert error_of(heard)["section"] == "§4.5"
    assert "signed.body" in reason and "expected bin" in reason and "got str" in reason


async def test_unknown_message_type_is_refused(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        heard, down = await attack(t, encode_frame({"type": "teleport", "v": 1}))
    assert error_of(heard)["section"] == "§4.4" and "unknown message type 'teleport'" in error_of(heard)["reason"]
    assert down.error is not None and down.error.peer == t.intruder.short


async def test_bad_signature_is_refused(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        body, sig = sign(t.intruder, {"type": "test.note", "v": 1, "from": t.intruder.peer_id, "text": "hi"})
        forged = bytes([sig[0] ^ 1]) + sig[1:]
        heard, down = await attack(t, encode_frame(signed_frame(body, forged)))
    assert error_of(heard)["section"] == "§4.5" and "bad signature" in error_of(heard)["reason"]


async def test_message_signed_in_another_peers_name_is_refused(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        # The intruder signs with its own key but claims to be B.
        body = encode({"type": "test.note", "v": 1, "from": t.b.me, "text": "I am B"})
        sig = t.intruder.sign(b"bandit-lan/v1/signed\x00" + body)
        heard, down = await attack(t, encode_frame(signed_frame(body, sig)))
    assert "bad signature" in error_of(heard)["reason"]


async def test_tls_client_with_an_unpinned_certificate_is_refused(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async with table_with_intruder(tmp_path) as t:
        stranger = load_or_create_identity(tmp_path / "stranger")
        with trio.fail_after(10):
            sock = await trio.open_tcp_stream("127.0.0.1", t.a.port)
            tls = trio.SSLStream(sock, mesh_client_context(stranger, t.a.identity.certificate), server_side=False)
            with pytest.raises(trio.BrokenResourceError) as info:
                await tls.do_handshake()  # TLS 1.3: the server's verdict arrives with the first read
                await tls.send_all(encode_frame({"type": "link.hello", "v": 1, "table": TABLE}))
                await tls.receive_some(100)
            assert isinstance(info.value.__cause__, ssl.SSLError)  # an alert, or the connection cut
            await honest_link_still_works(t)
    assert any("refused TLS client" in r.message and "certificate not pinned" in r.message for r in caplog.records)


async def test_link_hello_for_another_table_is_refused(tmp_path: Path) -> None:
    async with table_with_intruder(tmp_path) as t:
        with trio.fail_after(10):
            sock = await trio.open_tcp_stream("127.0.0.1", t.a.port)
            tls = trio.SSLStream(sock, mesh_client_context(t.intruder, t.a.identity.certificate), server_side=False)
            await tls.do_handshake()
            await tls.send_all(encode_frame({"type": "link.hello", "v": 1, "table": bytes(32)}))
            heard = await frames_until_eof(tls)
            down = await link_down_at_a(t)
            await honest_link_still_works(t)
    assert error_of(heard)["section"] == "§4.6" and "another table" in error_of(heard)["reason"]
    assert isinstance(down.error, ProtocolError)


async def test_s4_1_connections_reset_as_they_are_accepted_leave_the_mesh_running(tmp_path: Path) -> None:
    """A connection reset before its address is read (ENOTCONN) does not raise out of the
    listener and end the mesh, mid-game or before."""
    import socket as stdlib_socket

    async with table_with_intruder(tmp_path) as t:
        with trio.fail_after(10):
            for _ in range(40):  # SO_LINGER 0: close() sends a reset
                sock = trio.socket.socket()
                sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_LINGER, struct.pack("ii", 1, 0))
                await sock.connect(("127.0.0.1", t.a.port))
                sock.close()

            class Gone:  # and one that is certainly gone when its address is asked for
                class socket:  # noqa: N801
                    @staticmethod
                    def getpeername() -> tuple[str, int]:
                        raise OSError(107, "Transport endpoint is not connected")

                async def aclose(self) -> None:
                    pass

            await t.a._accept(Gone())  # type: ignore[arg-type]
            await honest_link_still_works(t)


async def test_s4_1_connections_that_never_finish_a_handshake_are_capped_per_address(tmp_path: Path) -> None:
    """Idle connections are not only timed out, which would let one address hold every
    file descriptor the host has: beyond a cap, a new one is refused at once (`BUSY`, in
    place of TLS) and closed."""
    from p2p.tlsstream import BUSY
    from p2p.unsettled import PER_ADDRESS

    async with table_with_intruder(tmp_path) as t:
        idle = [await trio.open_tcp_stream("127.0.0.1", t.a.port) for _ in range(PER_ADDRESS)]
        with trio.fail_after(5):
            while t.a._unsettled.total < PER_ADDRESS:  # accepted, all waiting
                await trio.testing.wait_all_tasks_blocked()
            extra = await trio.open_tcp_stream("127.0.0.1", t.a.port)
            assert await extra.receive_some(100) == BUSY
            assert await extra.receive_some(100) == b""  # then closed
            for stream in idle:
                await stream.aclose()
            await honest_link_still_works(t)


def test_s4_6_what_a_peer_says_cannot_drive_the_terminal() -> None:
    """An `error` reason or a refusal's detail does not go to stderr as sent, so a peer
    cannot clear the screen, retitle the terminal or fake a line."""
    from p2p.errors import JoinRefused, RemoteError, printable

    evil = "full\x1b[2J\x1b]0;owned\x07\u202eFAKE"
    for text in (RemoteError("§4.2", evil).reason, JoinRefused("full", evil).detail, printable(evil)):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "\\x1b[2J" in text and "\\u202e" in text
    assert printable("Ann's table: 3 seats · ok") == "Ann's table: 3 seats · ok"


def test_s4_1_a_client_that_hangs_up_mid_handshake_is_routine_a_failed_one_is_warned_of() -> None:
    """A dial given up, or a peer stopped mid-handshake, is noted quietly; a client that
    fails the handshake (a stranger's certificate, a protocol error) gets a warning, which
    a player's screen shows."""
    from p2p.errors import ProtocolError
    from p2p.transport import _failed_handshake

    def broken(cause: BaseException) -> trio.BrokenResourceError:
        exc = trio.BrokenResourceError()
        exc.__cause__ = cause
        return exc

    eof = ssl.SSLError(1, "unexpected eof while reading")
    eof.reason = "UNEXPECTED_EOF_WHILE_READING"  # type: ignore[misc]
    assert not _failed_handshake(broken(eof)) and not _failed_handshake(broken(ssl.SSLEOFError()))
    assert not _failed_handshake(trio.TooSlowError()) and not _failed_handshake(ConnectionResetError())
    assert _failed_handshake(broken(ssl.SSLCertVerificationError(1, "certificate verify failed")))
    assert _failed_handshake(ProtocolError("§4.1", "client did not offer ALPN bandit-lan/1"))
