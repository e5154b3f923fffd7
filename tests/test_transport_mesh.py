"""§4.7: a peer that stops reading loses its link by the overflow policy; the sender
never blocks and the other links carry on."""

from __future__ import annotations

from pathlib import Path

import trio

from p2p.identity import load_or_create_identity
from p2p.schema import Bin, Message
from p2p.tls import mesh_client_context
from p2p.transport import LinkDown, LinkUp, Received, link_schemas, open_mesh
from p2p.wire import encode_frame

BLOB = Message("test.blob", 1, "§9", {"data": Bin(max_len=1 << 20)})
TABLE = bytes(32)


async def test_a_peer_that_stops_reading_is_dropped_and_others_are_unaffected(tmp_path: Path) -> None:
    a_id, b_id, m_id = (load_or_create_identity(tmp_path / n) for n in "abm")
    schemas = link_schemas(BLOB)
    with trio.fail_after(30):
        async with open_mesh(a_id, schemas, bind="127.0.0.1", outbox_frames=8) as a, \
                open_mesh(b_id, schemas, bind="127.0.0.1") as b:
            a.set_table(TABLE)
            b.set_table(TABLE)
            a.expect(b_id.certificate)
            a.expect(m_id.certificate)
            b.expect(a_id.certificate, ("127.0.0.1", a.port), dial=True)
            assert isinstance(await a.receive(), LinkUp)
            # M links up correctly, then never reads again.
            sock = await trio.open_tcp_stream("127.0.0.1", a.port)
            stalled = trio.SSLStream(sock, mesh_client_context(m_id, a_id.certificate), server_side=False)
            await stalled.do_handshake()
            await stalled.send_all(encode_frame({"type": "link.hello", "v": 1, "table": TABLE}))
            assert await a.receive() == LinkUp(m_id.peer_id)
            big = {"type": "test.blob", "v": 1, "data": bytes(60_000)}
            dropped = None
            for _ in range(2000):
                a.send(m_id.peer_id, big)  # never blocks, whatever M does
                a.send(b_id.peer_id, {"type": "test.blob", "v": 1, "data": b"ok"})
                await trio.sleep(0)
                while True:
                    try:
                        event = a._events_out.receive_nowait()  # noqa: SLF001 - peek without blocking
                    except trio.WouldBlock:
                        break
                    if isinstance(event, LinkDown):
                        dropped = event
                if dropped:
                    break
            assert dropped is not None and dropped.peer == m_id.peer_id
            assert "send queue overflow" in dropped.reason
            assert a.linked() == {b_id.peer_id}
            got = 0
            while got < 10:
                event = await b.receive()
                if isinstance(event, Received):
                    got += 1
            await trio.aclose_forcefully(stalled)
