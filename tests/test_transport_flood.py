"""§4.1: a flood of connections that never become links: the host's log tells of it now
and then, a seated peer still gets in, a joiner is told the table is crowded, and a
connection that says nothing holds its slot for `QUIET` seconds only."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import trio
import trio.testing

from p2p import transport, unsettled
from p2p.identity import load_or_create_identity
from p2p.tlsstream import BUSY
from p2p.transport import HANDSHAKE_TIMEOUT, LinkUp, Mesh, link_schemas, open_mesh
from p2p.unsettled import ADDRESS_CAP, ALL_CAP, QUIET, TOLD_EVERY, Refusals

TABLE = bytes(32)
LOOPBACK = "127.0.0.1"


async def flood(mesh: Mesh, hosts: tuple[str, ...], each: int) -> list[trio.SocketStream]:
    """`each` idle connections to `mesh` from every one of `hosts` (loopback addresses),
    once the mesh holds them all."""
    idle = [await trio.open_tcp_stream(LOOPBACK, mesh.port, local_address=host) for host in hosts for _ in range(each)]
    while mesh._unsettled.total < len(idle):  # noqa: SLF001 (accepted, all waiting)
        await trio.testing.wait_all_tasks_blocked()
    return idle


def test_s4_1_refusals_are_told_at_most_once_every_10_s_counted_by_the_cap_they_hit() -> None:
    """47,158 lines in 45 s, one a refused connection, each giving the count of its own
    address (often 0, when the cap in all was what it hit): the first is told at once,
    then one line every 10 s counts the rest by cap."""
    refusals = Refusals()
    assert refusals.add(ALL_CAP, "127.0.0.3", 4000, 100.0) == (
        "refused a connection from 127.0.0.3:4000: 256 from all addresses already wait for their handshake or the "
        "lobby (§4.1)")
    for i in range(1000):
        assert refusals.add(ALL_CAP if i % 4 else ADDRESS_CAP, f"127.0.0.{i % 10}", 4001 + i, 100.0 + i / 200) is None
    assert refusals.due == 100.0 + TOLD_EVERY
    assert refusals.line(109.0) is None
    assert refusals.line(110.0) == (
        "refused 1000 connections since the last such line: 250 because 32 from 127.0.0.6 already wait for their "
        "handshake or the lobby; 750 because 256 from all addresses already wait for their handshake or the lobby "
        "(§4.1)")
    assert refusals.line(200.0) is None and refusals.due == float("inf")


async def test_s4_1_a_flood_from_strangers_keeps_out_no_seated_peer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Idle connections from other addresses fill every slot: a seated peer that dials
    again (a lost link, §11.3) was refused with them. The cap in all does not hold for a
    pinned peer's address; the strangers are answered `BUSY` and told of once."""
    monkeypatch.setattr(unsettled, "IN_ALL", 8)
    monkeypatch.setattr(unsettled, "PER_ADDRESS", 4)
    monkeypatch.setattr(transport, "QUIET", 60.0)  # (the flood stays while the test runs, however slow)
    caplog.set_level(logging.INFO, "bandit_lan.transport")
    a_id, b_id = (load_or_create_identity(tmp_path / n) for n in "ab")
    schemas = link_schemas()
    with trio.fail_after(30):
        async with open_mesh(a_id, schemas, bind=LOOPBACK) as a, open_mesh(b_id, schemas, bind=LOOPBACK) as b:
            a.set_table(TABLE)
            b.set_table(TABLE)
            a.expect(b_id.certificate, (LOOPBACK, b.port))
            idle = await flood(a, ("127.0.0.2", "127.0.0.3"), 4)
            refused = [await trio.open_tcp_stream(LOOPBACK, a.port, local_address=host)
                       for host in ("127.0.0.4", "127.0.0.2", "127.0.0.5")]
            port = refused[0].socket.getsockname()[1]
            for stream in refused:
                assert await stream.receive_some(100) == BUSY
            b.expect(a_id.certificate, (LOOPBACK, a.port), dial=True)
            assert await b.receive() == LinkUp(a_id.peer_id)
            for stream in (*idle, *refused):
                await stream.aclose()
    told = [r.getMessage() for r in caplog.records if r.name == "bandit_lan.transport" and r.levelno >= logging.WARNING]
    assert told == [f"refused a connection from 127.0.0.4:{port}: 8 from all addresses already wait for their "
                    "handshake or the lobby (§4.1)"], told


async def test_s4_1_a_joiner_at_a_crowded_table_is_told_so_not_to_check_its_address(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bo, refused while a flood held every slot, read "the connection to 127.0.0.1:45123
    ended before it was set up; check the address and port on the host's screen"."""
    from cli.lobby_common import explain
    from p2p.lobby_runner import TableUnreachable, join_table

    monkeypatch.setattr(unsettled, "IN_ALL", 2)
    monkeypatch.setattr(transport, "QUIET", 60.0)
    host_id, bo_id = (load_or_create_identity(tmp_path / n) for n in ("host", "bo"))
    schemas = link_schemas()
    with trio.fail_after(30):
        async with open_mesh(host_id, schemas, bind=LOOPBACK) as host, \
                open_mesh(bo_id, schemas, bind=LOOPBACK, hold_incoming=True) as bo:
            idle = await flood(host, ("127.0.0.2",), 2)
            with pytest.raises(TableUnreachable) as refused:
                await join_table(bo, [(LOOPBACK, host.port)], name="bo", expect_host=host_id.peer_id)
            for stream in idle:
                await stream.aclose()
    assert [f.kind for f in refused.value.failures] == ["crowded"]
    assert explain(refused.value, by_address=True) == (
        f"the table at {LOOPBACK}:{host.port} is refusing connections for now: too many are waiting there to be set "
        "up (someone may be flooding it); try again in a moment")


async def test_s4_1_a_connection_that_says_nothing_is_closed_after_2_s(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """A client of ours speaks first: one silent for `QUIET` seconds is closed then, not
    after the handshake's 10 s (a handful of addresses held every slot that long)."""
    schemas = link_schemas()
    async with open_mesh(load_or_create_identity(tmp_path / "a"), schemas, bind=LOOPBACK) as a:
        silent = await trio.open_tcp_stream(LOOPBACK, a.port)
        began = trio.current_time()
        with trio.fail_after(HANDSHAKE_TIMEOUT / 2):
            assert await silent.receive_some(100) == b""
        assert QUIET <= trio.current_time() - began < QUIET + 1
        await silent.aclose()
