"""§4.1, §4.7: the TLS stream links run on: writes that never wait, reads that hand up
every whole record at once, clean and unclean ends, and interoperation with trio's own
TLS stream (what any other implementation would speak)."""

from __future__ import annotations

import socket
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import pytest
import trio

from p2p.identity import load_or_create_identity
from p2p.tls import check_peer, mesh_client_context, server_context
from p2p.tlsstream import TlsStream

C = TypeVar("C", TlsStream, trio.SSLStream)


async def connect(tmp_path: Path, client_stream: Callable[[trio.SocketStream, ssl.SSLContext], C]) -> tuple[C, TlsStream]:
    """A connected (client, server) pair over loopback TCP, handshake done and pinned; the
    server is a `TlsStream`, the client whatever `client_stream` makes of its socket."""
    a, b = load_or_create_identity(tmp_path / "a"), load_or_create_identity(tmp_path / "b")
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    client_sock = await trio.open_tcp_stream("127.0.0.1", port)
    server_sock = await listener.accept()
    await listener.aclose()
    client = client_stream(client_sock, mesh_client_context(a, b.certificate))
    server = TlsStream.over(server_sock, server_context(b, [a.certificate]), server_side=True)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.do_handshake)
        nursery.start_soon(server.do_handshake)
    assert check_peer(server, a.peer_id).peer_id == a.peer_id
    assert check_peer(client, b.peer_id).peer_id == b.peer_id
    return client, server


@asynccontextmanager
async def tls_pair(tmp_path: Path) -> AsyncIterator[tuple[TlsStream, TlsStream]]:
    """Two `TlsStream`s connected to each other (see `connect`), closed on the way out."""
    client, server = await connect(tmp_path, lambda sock, ctx: TlsStream.over(sock, ctx, server_side=False))
    try:
        yield client, server
    finally:
        await client.aclose()
        await server.aclose()


async def read_exactly(stream: TlsStream | trio.SSLStream, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = await stream.receive_some(1 << 20)
        assert chunk, "the stream ended early"
        data += chunk
    return data


async def test_a_write_is_on_the_wire_before_the_writer_yields(tmp_path: Path) -> None:
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            assert client.write(b"snap!") == 0  # nothing left pending: the kernel took it in the call
            assert await server.receive_some() == b"snap!"


async def test_records_written_together_are_read_together_in_order(tmp_path: Path) -> None:
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            for i in range(20):
                client.write(b"frame %02d;" % i)
            got = await read_exactly(server, 20 * 9)
            assert got == b"".join(b"frame %02d;" % i for i in range(20))


async def test_what_the_socket_cannot_take_is_flushed_by_drain(tmp_path: Path) -> None:
    with trio.fail_after(20):
        async with tls_pair(tmp_path) as (client, server):
            blob = bytes(range(256)) * 4096  # 1 MiB
            pending = 0
            for _ in range(16):  # far more than a socket buffer holds while nobody reads
                pending = client.write(blob)
            assert pending > 0 and client.pending == pending
            received = 0

            async def reader() -> None:
                nonlocal received
                while received < 16 * len(blob):
                    received += len(await server.receive_some(1 << 20))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(reader)
                await client.drain()
                assert client.pending == 0
            assert received == 16 * len(blob)


async def test_close_notify_reads_as_end_of_stream_after_the_data_before_it(tmp_path: Path) -> None:
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            client.write(b"last words")
            await client.aclose()
            assert await read_exactly(server, 10) == b"last words"
            assert await server.receive_some() == b""
            assert await server.receive_some() == b""  # and it stays ended


async def test_a_tcp_end_without_close_notify_is_an_end_too(tmp_path: Path) -> None:
    """Whether the stream ended between frames is the framing layer's judgement (§4.2)."""
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            client.write(b"cut")
            client._sock.shutdown(socket.SHUT_RDWR)  # noqa: SLF001 - the TCP end, no TLS goodbye
            assert await read_exactly(server, 3) == b"cut"
            assert await server.receive_some() == b""



@pytest.mark.parametrize("end", ["closed", "reset"])
async def test_s11_3_an_end_right_behind_the_last_data_is_known_with_it(tmp_path: Path, end: str) -> None:
    """A peer killed just after its last frame: its connection closed (or reset, with data
    of ours unread) behind it. The end is read with the data, and the next read says so at
    once, without another wait for the socket (the link's end is told before the next
    frame from anyone else, §11.3)."""
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            if end == "reset":
                server.write(b"unread")  # (in the client's socket, never read: its close resets)
            client.write(b"last frame")
            client._sock.close()  # noqa: SLF001 - killed: no TLS goodbye
            assert await read_exactly(server, 10) == b"last frame"
            with trio.CancelScope() as waiting:
                waiting.cancel()  # (a read that had to wait for the socket would end here)
                if end == "closed":
                    assert await server.receive_some() == b""
                else:
                    with pytest.raises(trio.BrokenResourceError):
                        await server.receive_some()
            assert not waiting.cancelled_caught

async def test_s4_6_what_came_before_a_reset_is_still_read_after_a_write_failed_on_it(tmp_path: Path) -> None:
    """The peer wrote its last words and closed with data of ours unread, so its kernel
    reset the connection. Our next write fails; what it wrote before is still read (a
    goodbye counts as one, §4.6), and then the stream ends."""
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            client.write(b"unread")  # in the server's socket, never read: its close resets
            server.write(b"goodbye")
            await server.aclose()
            with pytest.raises(trio.BrokenResourceError) as caught:
                for _ in range(1000):  # (the reset is there once the close returned; a few writes at most)
                    client.write(b"an ack")
                    await trio.lowlevel.checkpoint()
            assert isinstance(caught.value.__cause__, OSError)
            with pytest.raises(trio.BrokenResourceError):
                await client.drain()  # sending stays broken
            assert await read_exactly(client, 7) == b"goodbye"
            assert await client.receive_some() == b""


async def test_a_closed_or_broken_stream_says_so(tmp_path: Path) -> None:
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            await client.aclose()
            with pytest.raises(trio.ClosedResourceError):
                client.write(b"too late")
            with pytest.raises(trio.ClosedResourceError):
                await client.receive_some()
        # garbage where a TLS record should be breaks the stream, naming OpenSSL's reason
        async with tls_pair(tmp_path / "again") as (client, server):
            client._sock.send(b"\x17\x03\x03\x00\x10" + bytes(16))  # noqa: SLF001 - a forged record
            with pytest.raises(trio.BrokenResourceError) as caught:
                await server.receive_some()
            assert isinstance(caught.value.__cause__, ssl.SSLError)
            with pytest.raises(trio.BrokenResourceError):
                server.write(b"after the break")


async def test_one_reader_at_a_time(tmp_path: Path) -> None:
    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(server.receive_some)
                await trio.testing.wait_all_tasks_blocked()
                with pytest.raises(trio.BusyResourceError):
                    await server.receive_some()
                nursery.cancel_scope.cancel()


async def test_it_speaks_tls_with_trio_s_own_stream(tmp_path: Path) -> None:
    with trio.fail_after(10):
        client, server = await connect(tmp_path, lambda sock, ctx: trio.SSLStream(sock, ctx, server_side=False))
        await client.send_all(b"hello from trio")
        assert await read_exactly(server, 15) == b"hello from trio"
        server.write(b"and back")
        assert await read_exactly(client, 8) == b"and back"
        await client.aclose()
        assert await server.receive_some() == b""
        await server.aclose()


async def test_s11_3_a_reset_connection_is_told_in_words_without_the_system_s_error_number(tmp_path: Path) -> None:
    """A peer killed with data of ours unread resets the connection: the link's end reads
    "connection lost (connection reset by peer)", as players read it on the table log and
    in the log's notes, not "[Errno 104] Connection reset by peer"."""
    from p2p.errors import PeerLeft
    from p2p.framed import FramedStream
    from p2p.peer import table_schemas

    with trio.fail_after(10):
        async with tls_pair(tmp_path) as (client, server):
            server.write(b"unread")  # (in the client's socket, never read: its close resets)
            client.write(b"last")
            client._sock.close()  # noqa: SLF001 - killed: no TLS goodbye
            assert await read_exactly(server, 4) == b"last"
            framed = FramedStream(server, table_schemas(), label="cy")
            with pytest.raises(PeerLeft) as left:
                await framed.receive()
            assert left.value.reason == "connection lost (connection reset by peer)", left.value.reason
