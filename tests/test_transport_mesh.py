"""§4.7: a peer that stops reading loses its link by the overflow policy; the sender
never blocks and the other links carry on."""

from __future__ import annotations

import gc
import logging
import socket
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing

from p2p.identity import Identity, load_or_create_identity
from p2p.schema import Bin, Message
from p2p.tls import mesh_client_context
from p2p.transport import HandlerFailed, LinkDown, LinkUp, Mesh, Received, Sent, link_schemas, open_mesh
from p2p.wire import encode_frame

BLOB = Message("test.blob", 1, "§9", {"data": Bin(max_len=1 << 20)})
TABLE = bytes(32)


@asynccontextmanager
async def on_table(identity: Identity, **options: int) -> AsyncIterator[Mesh]:
    """A mesh of `identity` on loopback, on the test's table (`open_mesh`'s `options`)."""
    async with open_mesh(identity, link_schemas(BLOB), bind="127.0.0.1", **options) as mesh:
        mesh.set_table(TABLE)
        yield mesh


@asynccontextmanager
async def linked(a_id: Identity, b_id: Identity) -> AsyncIterator[tuple[Mesh, Mesh]]:
    """Meshes of `a_id` and `b_id` on one table, b having dialled a (b saw the link up)."""
    async with on_table(a_id) as a, on_table(b_id) as b:
        a.expect(b_id.certificate)
        b.expect(a_id.certificate, ("127.0.0.1", a.port), dial=True)
        assert isinstance(await b.receive(), LinkUp)
        yield a, b


async def test_a_peer_that_stops_reading_is_dropped_and_others_are_unaffected(tmp_path: Path) -> None:
    a_id, b_id, m_id = (load_or_create_identity(tmp_path / n) for n in "abm")
    with trio.fail_after(30):
        async with on_table(a_id, outbox_frames=8) as a, on_table(b_id) as b:
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


async def _stalled_link(mesh: Mesh, peer: Identity) -> trio.SSLStream:
    """`peer` links to `mesh` (a TLS client with its certificate), then never reads."""
    sock = await trio.open_tcp_stream("127.0.0.1", mesh.port)
    stalled = trio.SSLStream(sock, mesh_client_context(peer, mesh.identity.certificate), server_side=False)
    await stalled.do_handshake()
    await stalled.send_all(encode_frame({"type": "link.hello", "v": 1, "table": TABLE}))
    return stalled


@pytest.mark.parametrize("end", ["the peer resets it", "closed here", "a new link replaces it", "the mesh closes"])
async def test_s4_7_a_sender_waiting_for_a_link_that_ends_is_told_what_it_sent_is_lost(tmp_path: Path,
                                                                                          end: str) -> None:
    """A bulk sender waits in `send_paced` for a peer that stopped reading to take half
    the link's outbox, and the link ends: it waited for good, since only the link's
    writer woke it, as it flushed. Now every end of a link wakes it, and it is told that
    what the link had not taken is lost (§4.7); what it sends next goes to the backlog,
    the new link, or nowhere (the mesh is closing)."""
    a_id, m_id = (load_or_create_identity(tmp_path / n) for n in "am")
    big = {"type": "test.blob", "v": 1, "data": bytes(60_000)}
    with trio.fail_after(30):
        async with on_table(a_id, outbox_bytes=1 << 18) as a:
            a.expect(m_id.certificate)
            stalled = [await _stalled_link(a, m_id)]
            assert await a.receive() == LinkUp(m_id.peer_id)
            told: list[Sent] = []
            done = trio.Event()

            async def bulk() -> None:
                while (sent := await a.send_paced(m_id.peer_id, big)) is Sent.TAKEN:
                    pass
                told.append(sent)
                done.set()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(bulk)
                await trio.testing.wait_all_tasks_blocked()  # (the sender waits for M to read)
                assert not done.is_set() and m_id.peer_id in a.linked()
                if end == "the peer resets it":
                    await trio.aclose_forcefully(stalled[0])  # (closed with what came unread: a reset)
                elif end == "closed here":
                    a.close_link(m_id.peer_id, "nothing heard for 6 s")
                elif end == "a new link replaces it":
                    stalled.append(await _stalled_link(a, m_id))
                else:
                    await a.aclose("leaving the table", timeout=0)
                with trio.fail_after(5):
                    await done.wait()
            assert told == [Sent.LOST]
            after = await a.send_paced(m_id.peer_id, {"type": "test.blob", "v": 1, "data": b"next"})
            assert after is {"the peer resets it": Sent.BACKLOG, "closed here": Sent.BACKLOG,
                             "a new link replaces it": Sent.TAKEN, "the mesh closes": Sent.LOST}[end]
            for stream in stalled:
                await trio.aclose_forcefully(stream)


async def test_an_attached_handler_gets_every_event_as_it_happens_in_order(tmp_path: Path) -> None:
    """§4.7: a table attaches a handler: events reach it from the link's own task, those
    that waited in the queue first, one batch at a time (never re-entered), and go back
    to the queue once it is detached."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    with trio.fail_after(30):
        async with linked(a_id, b_id) as (a, b):
            b.send(a_id.peer_id, {"type": "test.blob", "v": 1, "data": b"queued"})
            waiting = [await a.receive(), await a.receive()]
            a.requeue(waiting)  # (as the lobby hands back what came early)
            seen: list[object] = []
            calls = 0
            inside = False
            arrived = trio.Event()

            def handler(events: list[object]) -> None:
                nonlocal inside, calls
                assert not inside
                calls += 1
                inside = True
                seen.extend(events)
                a.send(b_id.peer_id, {"type": "test.blob", "v": 1, "data": b"echo"})  # may send from inside
                inside = False
                if len([e for e in seen if isinstance(e, Received)]) == 3:
                    arrived.set()

            a.attach(handler)
            assert seen[0] == LinkUp(b_id.peer_id) and seen[1].message["data"] == b"queued"  # type: ignore[attr-defined]
            for word in (b"one", b"two"):
                b.send(a_id.peer_id, {"type": "test.blob", "v": 1, "data": word})
            await arrived.wait()
            assert [e.message["data"] for e in seen if isinstance(e, Received)] == [b"queued", b"one", b"two"]
            a.detach()
            b.send(a_id.peer_id, {"type": "test.blob", "v": 1, "data": b"queued again"})
            event = await a.receive()
            assert isinstance(event, Received) and event.message["data"] == b"queued again"
            echoes = 0  # one per batch the handler was given
            while echoes < calls:
                event = await b.receive()
                echoes += isinstance(event, Received) and event.message["data"] == b"echo"


async def test_s4_6_a_mesh_that_is_leaving_takes_no_new_link(tmp_path: Path) -> None:
    """§4.6, §11.3: once a mesh says goodbye, a peer that dials it again gets the goodbye
    during link setup, never a link that comes up only to close (which would look like
    a return and restart that peer's wait for it). That goodbye counts as one: a peer
    seeing the table off after the game (§11.4) stops waiting for it."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    with trio.fail_after(30):
        async with linked(a_id, b_id) as (a, b):
            await a.aclose("gone")
            down = await b.receive()
            assert isinstance(down, LinkDown) and "gone" in down.reason
            for _ in range(3):  # b redials, as a table does for a peer it lost
                b.dial(a_id.peer_id)
                event = await b.receive()
                assert isinstance(event, LinkDown), event
                assert event.reason == "link setup failed: left: gone" and event.clean, event
            assert a_id.peer_id not in b.linked()


async def test_s4_6_a_mesh_that_has_closed_dials_nobody_for_a_caller_that_outlived_it(tmp_path: Path) -> None:
    """A task that outlives its seat's mesh (a seat's redial, a lobby's late action) pins
    and dials a peer after the mesh closed: the mesh started the dial in its closed task
    group, trio refused ("Nursery is closed to new arrivals") and the caller failed. A mesh
    that is leaving takes no new link (§4.6): it dials nobody, and what is sent to a peer
    pinned meanwhile is lost, not kept for a link that cannot come."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    with trio.fail_after(30):
        async with on_table(b_id) as b:
            b.expect(a_id.certificate)
            async with on_table(a_id) as a:
                pass  # (closed at once: what follows outlives it)
            a.expect(b_id.certificate, ("127.0.0.1", b.port), dial=True)
            a.dial(b_id.peer_id)
            blob = {"type": "test.blob", "v": 1, "data": b"late"}
            assert await a.send_paced(b_id.peer_id, blob) is Sent.LOST
            await trio.testing.wait_all_tasks_blocked()
            assert a.linked() == b.linked() == frozenset() and b.receive_nowait() is None


async def test_s4_6_a_goodbye_counts_even_when_a_write_found_the_connection_gone_first(tmp_path: Path) -> None:
    """B says goodbye and closes while A's reader has not yet taken the goodbye (a busy
    peer), and A's next write finds the connection reset. The goodbye still counts: the
    link ends clean, with B's reason (a peer seeing the table off after the game would
    otherwise wait for B as for a lost link, §11.4)."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    schemas = link_schemas(BLOB)
    with trio.fail_after(30):
        async with open_mesh(a_id, schemas, bind="127.0.0.1") as a, open_mesh(b_id, schemas, bind="127.0.0.1") as b:
            gate = trio.Event()
            reader = a._read  # noqa: SLF001 - A's reader waits until its write has failed

            async def busy_reader(peer, link) -> None:  # type: ignore[no-untyped-def]
                await gate.wait()
                await reader(peer, link)

            a._read = busy_reader  # type: ignore[method-assign]  # noqa: SLF001
            a.set_table(TABLE)
            b.set_table(TABLE)
            a.expect(b_id.certificate)
            b.expect(a_id.certificate, ("127.0.0.1", a.port), dial=True)
            assert isinstance(await b.receive(), LinkUp)
            assert isinstance(await a.receive(), LinkUp)
            await b.aclose("off home")
            link = a._peers[b_id.peer_id].link  # noqa: SLF001
            assert link is not None
            for _ in range(1000):  # B's kernel resets the connection at the first frame: a few writes at most
                a.send(b_id.peer_id, {"type": "test.blob", "v": 1, "data": b"ack"})
                if link.tls._send_failed is not None:  # noqa: SLF001
                    break
                await trio.lowlevel.checkpoint()
            assert link.tls._send_failed is not None  # noqa: SLF001
            gate.set()
            event = await a.receive()
            assert isinstance(event, LinkDown) and event.clean and "off home" in event.reason, event


@asynccontextmanager
async def _linked_pair(tmp_path: Path) -> AsyncIterator[tuple[Mesh, Mesh, Identity]]:
    """Two meshes of one table, A dialling B, once both see the link up: (A, B, B's identity)."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    async with on_table(a_id) as a, on_table(b_id) as b:
        a.expect(b_id.certificate, ("127.0.0.1", b.port), dial=True)
        b.expect(a_id.certificate)
        assert isinstance(await a.receive(), LinkUp)
        assert isinstance(await b.receive(), LinkUp)
        yield a, b, b_id


async def test_s11_3_a_mesh_closed_as_away_says_no_goodbye_on_its_links_or_any_later_one(tmp_path: Path) -> None:
    """`aclose(away=True)`: a seat taken back that could not reach every member keeps its
    journal to try again, so it must not say goodbye (a goodbye from a seat that never sat
    down ends the others' game, §11.3): its link ends as one lost, and a dial that comes
    after is closed without a word."""
    with trio.fail_after(30):
        async with _linked_pair(tmp_path) as (a, b, b_id):
            await b.aclose("could not reach every seat", away=True)
            event = await a.receive()
            assert isinstance(event, LinkDown) and not event.clean and "left" not in event.reason, event
            a.dial(b_id.peer_id)  # (b still listens: its mesh is open until the block ends)
            event = await a.receive()
            assert isinstance(event, LinkDown) and not event.clean, event


async def test_s4_6_a_mesh_closed_without_a_reason_says_its_farewell(tmp_path: Path) -> None:
    """A lobby whose start failed sets the mesh's `farewell` (§11.3): the goodbye its mesh
    says on closing carries it, where it said "leaving the table" of a seat that did not
    leave."""
    with trio.fail_after(30):
        async with _linked_pair(tmp_path) as (a, b, _):
            b.farewell = "its start failed: carol did not sign the roster within 30 s"
            await b.aclose()
            event = await a.receive()
            assert isinstance(event, LinkDown) and event.clean, event
            assert event.reason == "left: its start failed: carol did not sign the roster within 30 s", event
            assert event.said == "its start failed: carol did not sign the roster within 30 s"  # (its words alone)


async def test_s11_3_a_peer_that_stays_unreachable_is_an_event_at_every_redial_and_never_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Each failed dial ends in a `LinkDown`, and its owner decides what to tell (a table
    says once per absence, by name, §11.3): the transport logs each at INFO and warns
    about none, so a screen that shows warnings does not show a peer's short id over
    the player's prompt at every redial. A link that comes up and fails again is the same."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    with socket.socket() as closed:  # a port where nobody listens
        closed.bind(("127.0.0.1", 0))
        nowhere = ("127.0.0.1", closed.getsockname()[1])
    caplog.set_level(logging.INFO, logger="bandit_lan.transport")
    with trio.fail_after(30):
        async with on_table(a_id) as a, on_table(b_id) as b:
            b.expect(a_id.certificate)
            a.expect(b_id.certificate, nowhere)
            for _ in range(3):
                a.dial(b_id.peer_id)
                down = await a.receive()
                assert isinstance(down, LinkDown) and down.reason.startswith("could not connect")

            def failures(level: int) -> int:
                return sum(1 for r in caplog.records if r.levelno == level and "could not connect" in r.getMessage())

            assert (failures(logging.WARNING), failures(logging.INFO)) == (0, 3)
            a.expect(b_id.certificate, ("127.0.0.1", b.port))  # back (at a port that answers)
            a.dial(b_id.peer_id)
            assert isinstance(await a.receive(), LinkUp)
            a.close_link(b_id.peer_id, "test")
            assert isinstance(await a.receive(), LinkDown)
            a.expect(b_id.certificate, nowhere)
            a.dial(b_id.peer_id)
            assert isinstance(await a.receive(), LinkDown)
            assert (failures(logging.WARNING), failures(logging.INFO)) == (0, 4)
            assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_s4_7_a_dial_again_while_its_link_is_set_up_makes_no_second_connection(tmp_path: Path) -> None:
    """A table dials a lost peer again and again until it is back (§11.3). A dial lasts
    until its link has exchanged `link.hello` (§4.7): one made again while that exchange
    is under way (a peer slow to answer, such as one busy catching up after a seat
    resumed) is the same dial. A second connection replaced the first at one end, and the
    other end could see the first closed before the second came up: a link lost just
    after it came back ("ada is back", "Lost the link to ada", "ada is back")."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    schemas = link_schemas(BLOB)
    with trio.fail_after(30):
        async with open_mesh(a_id, schemas, bind="127.0.0.1") as a, open_mesh(b_id, schemas, bind="127.0.0.1") as b:
            settled: list[object] = []  # connections B took through their TLS handshake
            answer = trio.Event()  # until set, B holds each one there: A waits for B's link.hello
            settle = b._settle  # noqa: SLF001

            async def slow_to_answer(*args):  # type: ignore[no-untyped-def]
                got = await settle(*args)
                settled.append(got)
                await answer.wait()
                return got

            b._settle = slow_to_answer  # type: ignore[method-assign]  # noqa: SLF001
            a.set_table(TABLE)
            b.set_table(TABLE)
            b.expect(a_id.certificate)
            a.expect(b_id.certificate, ("127.0.0.1", b.port), dial=True)
            while not settled:
                await trio.testing.wait_all_tasks_blocked()
            await trio.testing.wait_all_tasks_blocked()  # A sent its link.hello and waits for B's
            a.dial(b_id.peer_id)  # as the table's redial loop does while the peer is away
            await trio.testing.wait_all_tasks_blocked()
            assert len(settled) == 1, "a dial again during link setup made a second connection"
            answer.set()
            assert await a.receive() == LinkUp(b_id.peer_id)
            assert await b.receive() == LinkUp(a_id.peer_id)
            await trio.testing.wait_all_tasks_blocked()
            assert (a.receive_nowait(), b.receive_nowait()) == (None, None)  # one link, up once, never lost
            assert len(settled) == 1


async def test_s4_7_a_dial_whose_handshake_goes_unanswered_ends_after_one_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stopped program's computer still takes TCP connections (§6.6, §11.3) and never
    answers the TLS handshake. The dial gives up after that one attempt's handshake wait,
    rather than waiting it out at each of `DIAL_ATTEMPTS` attempts (40 s in all, held
    over a lobby's report of the seat, §6.6); a refused connection is still tried again."""
    from p2p import transport

    monkeypatch.setattr(transport, "HANDSHAKE_TIMEOUT", 0.2)  # (each unanswered attempt: 0.2 s)
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    taken: list[trio.SocketStream] = []  # connections "B's computer" took, never answered

    async def stopped(stream: trio.SocketStream) -> None:
        taken.append(stream)
        await trio.sleep_forever()

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery, open_mesh(a_id, link_schemas(BLOB), bind="127.0.0.1") as a:
            listeners = await nursery.start(partial(trio.serve_tcp, stopped, 0, host="127.0.0.1"))
            a.set_table(TABLE)
            a.expect(b_id.certificate, ("127.0.0.1", listeners[0].socket.getsockname()[1]), dial=True)
            down = await a.receive()
            assert isinstance(down, LinkDown) and down.reason == "could not connect: timed out", down
            assert len(taken) == 1, f"{len(taken)} attempts, each waiting out its handshake"
            nursery.cancel_scope.cancel()


def _hold_hello_reads(mesh: Mesh, gates: dict[bool, trio.Event], sent: list[Mesh]) -> None:
    """Each link of `mesh` sends its `link.hello` (noted in `sent`), then waits for
    `gates[dialled]` before it reads the other end's: a test decides in which order each
    end sees its links up."""
    run_link = mesh._run_link  # noqa: SLF001

    async def held(peer, stream, *, dialled=False):  # type: ignore[no-untyped-def]
        expect = stream.expect

        async def gated(*types):  # type: ignore[no-untyped-def]
            sent.append(mesh)
            await gates[dialled].wait()
            return await expect(*types)

        stream.expect = gated
        await run_link(peer, stream, dialled=dialled)

    mesh._run_link = held  # type: ignore[method-assign]  # noqa: SLF001


def _ends(mesh: Mesh, peer_id: bytes) -> tuple[object, object]:
    """(this end, far end) of `mesh`'s link to `peer_id`, as socket addresses."""
    link = mesh._peers[peer_id].link  # noqa: SLF001
    assert link is not None
    sock = link.tls._sock  # noqa: SLF001
    return sock.getsockname(), sock.getpeername()


# In which order each end reads the far end's `link.hello` on each connection: (the lower
# or higher peer id, whether it reads on the connection it dialled).
SEEN_UP = {
    "each its own first, the lower end before": [("low", True), ("high", True), ("low", False), ("high", False)],
    "each its own first, the higher end before": [("high", True), ("low", True), ("high", False), ("low", False)],
    "the lower end its own last": [("high", False), ("low", False), ("high", True), ("low", True)],
}


@pytest.mark.parametrize("order", list(SEEN_UP))
async def test_s4_7_two_peers_that_dial_each_other_at_once_keep_one_link_the_same_at_both_ends(
    tmp_path: Path, order: str,
) -> None:
    """Both ends dial at once (a seat that sent its leave, or resumed at another port,
    dials every seat, §9.8, §11.3): two connections of one pair come up, and each end sees
    them up in its own order (each first the one it dialled, say). Each end keeping the
    newer one it saw, each closed the one the other kept: a link lost just as it came up.
    Both keep the one the lower peer id dialled (§4.7): one link at each end, the same
    connection, and no link lost (also when the higher end closes the lower end's link
    before the lower end's own dial is up there)."""
    a_id, b_id = sorted((load_or_create_identity(tmp_path / n) for n in "ab"), key=lambda i: i.peer_id)
    schemas = link_schemas(BLOB)
    with trio.fail_after(30):
        async with open_mesh(a_id, schemas, bind="127.0.0.1") as a, open_mesh(b_id, schemas, bind="127.0.0.1") as b:
            gates = {name: {dialled: trio.Event() for dialled in (True, False)} for name in ("low", "high")}
            sent: list[Mesh] = []
            _hold_hello_reads(a, gates["low"], sent)
            _hold_hello_reads(b, gates["high"], sent)
            a.set_table(TABLE)
            b.set_table(TABLE)
            a.expect(b_id.certificate, ("127.0.0.1", b.port))
            b.expect(a_id.certificate, ("127.0.0.1", a.port))
            a.dial(b_id.peer_id)
            b.dial(a_id.peer_id)
            while len(sent) < 4:  # both connections set up at both ends, each hello sent
                await trio.testing.wait_all_tasks_blocked()
            for name, dialled in SEEN_UP[order]:
                gates[name][dialled].set()
                await trio.testing.wait_all_tasks_blocked()
            events = []
            for mesh in (a, b):
                while (event := mesh.receive_nowait()) is not None:
                    events.append(event)
            assert not [e for e in events if isinstance(e, LinkDown)], events
            assert a.linked() == {b_id.peer_id} and b.linked() == {a_id.peer_id}
            here, there = _ends(a, b_id.peer_id)
            assert _ends(b, a_id.peer_id) == (there, here), "the two ends kept different connections"
            for link in list(a._links | b._links):  # noqa: SLF001
                if link not in (a._peers[b_id.peer_id].link, b._peers[a_id.peer_id].link):  # noqa: SLF001
                    await link.done.wait()  # the other connection closes at both ends
            assert len(a._links) == len(b._links) == 1  # noqa: SLF001
            a.send(b_id.peer_id, {"type": "test.blob", "v": 1, "data": b"still here"})
            got = await b.receive()
            assert isinstance(got, Received) and got.message["data"] == b"still here", got


async def test_s4_7_a_peer_that_dials_anew_after_a_restart_takes_over_from_the_link_it_dropped(tmp_path: Path) -> None:
    """The higher peer id restarts (a seat taken back at another port dials every seat,
    §11.3) and dials while the lower peer still holds the link it dialled to the old
    process. The lower peer keeps that link until it ends, and the new connection then
    takes over at once: no link lost, and frames reach the new process."""
    low_id, high_id = sorted((load_or_create_identity(tmp_path / n) for n in "ab"), key=lambda i: i.peer_id)
    with trio.fail_after(30):
        async with on_table(low_id) as low:
            async with on_table(high_id) as old:
                old.expect(low_id.certificate)
                low.expect(high_id.certificate, ("127.0.0.1", old.port), dial=True)
                assert await low.receive() == LinkUp(high_id.peer_id)
                async with on_table(high_id) as new:
                    new.expect(low_id.certificate, ("127.0.0.1", low.port), dial=True)
                    assert await new.receive() == LinkUp(low_id.peer_id)
                    await old.aclose(away=True)  # the old process is gone (no goodbye)
                    assert await low.receive() == LinkUp(high_id.peer_id)  # (the new connection: what was lost is resent)
                    low.send(high_id.peer_id, {"type": "test.blob", "v": 1, "data": b"welcome back"})
                    got = await new.receive()
                    assert isinstance(got, Received) and got.message["data"] == b"welcome back", got
                    assert low.linked() == {high_id.peer_id} and low.receive_nowait() is None


@pytest.mark.parametrize("how", ["another table's link.hello", "hangs up before its link.hello"])
async def test_s4_7_a_second_connection_that_fails_its_setup_is_no_link_lost(tmp_path: Path, how: str) -> None:
    """A connection from a linked peer whose `link.hello` exchange fails (a stale dial,
    one that breaks §4.6) is logged and closed; the peer's link is up, so no link is
    lost: a table told its player the peer was lost, and waited for it."""
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    with trio.fail_after(30):
        async with linked(a_id, b_id) as (a, b):
            assert await a.receive() == LinkUp(b_id.peer_id)
            sock = await trio.open_tcp_stream("127.0.0.1", a.port)
            second = trio.SSLStream(sock, mesh_client_context(b_id, a_id.certificate), server_side=False)
            await second.do_handshake()
            if how == "another table's link.hello":
                await second.send_all(encode_frame({"type": "link.hello", "v": 1, "table": b"\x01" * 32}))
                while await second.receive_some():  # a's hello, its error frame, then its close
                    pass
            await trio.aclose_forcefully(second)
            await trio.testing.wait_all_tasks_blocked()
            assert a.receive_nowait() is None
            assert a.linked() == {b_id.peer_id}
            a.send(b_id.peer_id, {"type": "test.blob", "v": 1, "data": b"still linked"})
            got = await b.receive()
            assert isinstance(got, Received) and got.message["data"] == b"still linked", got


async def test_s4_7_a_mesh_that_fails_closes_the_connection_of_every_link_it_cancels(tmp_path: Path) -> None:
    """A mesh whose event handler fails (a bug) ends, cancelling every link's task: each
    link's connection is closed on the way out, not left to the garbage collector (a
    `ResourceWarning`, and a far end that sees no end of a connection nobody serves)."""
    a_id, b_id, c_id = (load_or_create_identity(tmp_path / n) for n in "abc")
    schemas = link_schemas(BLOB)
    links: list[object] = []
    with warnings.catch_warnings(record=True) as warned, trio.fail_after(30), pytest.raises(HandlerFailed):
        warnings.simplefilter("always", ResourceWarning)
        async with open_mesh(b_id, schemas, bind="127.0.0.1") as b, open_mesh(c_id, schemas, bind="127.0.0.1") as c:
            async with open_mesh(a_id, schemas, bind="127.0.0.1") as a:
                for mesh in (a, b, c):
                    mesh.set_table(TABLE)
                for far in (b, c):
                    a.expect(far.identity.certificate)
                    far.expect(a_id.certificate, ("127.0.0.1", a.port), dial=True)
                    assert await a.receive() == LinkUp(far.me)
                links.extend(a._links)  # noqa: SLF001
                unsettled = await trio.open_tcp_stream("127.0.0.1", a.port)  # (held in its TLS handshake)

                def handler(events: list[object]) -> None:
                    raise RuntimeError("a bug in the layer above")

                a.attach(handler)
                c.send(a_id.peer_id, {"type": "test.blob", "v": 1, "data": b"boom"})
                await trio.sleep_forever()  # (until a's failure cancels this block)
    assert len(links) == 2
    assert [link.tls._sock.fileno() for link in links] == [-1, -1]  # type: ignore[attr-defined]  # noqa: SLF001
    with trio.fail_after(5):
        assert await unsettled.receive_some() == b""  # closed: the far end sees the end
    await unsettled.aclose()
    gc.collect()
    assert not [w for w in warned if issubclass(w.category, ResourceWarning)], [str(w.message) for w in warned]


@pytest.mark.parametrize("leaver", ["the lower peer id", "the higher peer id"])
async def test_s4_6_s4_7_a_mesh_that_leaves_as_crossing_connections_come_up_is_read_leaving_at_the_far_end(
        tmp_path: Path, leaver: str) -> None:
    """Both ends dial at once (a seat taken back only to leave dials every seat, and the
    table dials it again, §11.3); the leaving end's own link is up, and it begins to
    leave while it still reads the far end's `link.hello` on the other connection, the one
    the far end keeps as its link if it has the lower peer id (§4.7). The far end reads the
    goodbye either way. Before, the leaving mesh waited only for the links it had: the
    connection still being set up was cut at its exit, and the far end, holding it as
    its link, took the leaver for a seat whose link was lost (and waited out its grace
    period for it, where it should have ended at once)."""
    ids = sorted((load_or_create_identity(tmp_path / n) for n in "ab"), key=lambda i: i.peer_id)
    a_id, b_id = ids if leaver == "the lower peer id" else ids[::-1]  # (a leaves)
    with trio.fail_after(30):
        async with on_table(b_id) as b:
            async with on_table(a_id) as a:
                gates = {True: trio.Event(), False: trio.Event()}  # (a reads b's hello on b's dial only when told)
                gates[True].set()
                sent: list[Mesh] = []
                _hold_hello_reads(a, gates, sent)
                a.expect(b_id.certificate, ("127.0.0.1", b.port))
                b.expect(a_id.certificate, ("127.0.0.1", a.port))
                a.dial(b_id.peer_id)
                b.dial(a_id.peer_id)
                while len(sent) < 2 or a.linked() != {b_id.peer_id}:  # (a's dial is up; b's waits at a)
                    await trio.testing.wait_all_tasks_blocked()
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(a.aclose, "gone")
                    await trio.testing.wait_all_tasks_blocked()
                    gates[False].set()
            events = []
            while b.linked() or not events or not isinstance(events[-1], LinkDown):
                events.append(await b.receive())
    downs = [event for event in events if isinstance(event, LinkDown)]
    assert downs and all(down.clean and down.said == "gone" for down in downs), events
