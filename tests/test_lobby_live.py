"""§6 end to end over real TLS sockets on 127.0.0.1: host + joiners in one trio process."""

from __future__ import annotations

from pathlib import Path

import trio

from p2p.roster import game_id_of, parse_canonical, roster_signature_valid
from transport_support import make_identities, meshes, run_table


async def test_four_peers_seat_sign_and_agree_on_the_game_id(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 4)
    async with meshes(ids) as ms:
        with trio.fail_after(20):
            results = await run_table(ms)
        assert len({r.game_id for r in results}) == 1
        first = results[0]
        assert first.game_id == game_id_of(first.canonical)
        roster = parse_canonical(first.canonical)
        assert [m.cert.peer_id for m in roster.members] == [i.peer_id for i in ids]
        for m, sig in zip(roster.members, first.signatures):
            assert roster_signature_valid(m.cert, first.canonical, sig)
        assert sorted(r.seat for r in results) == [0, 1, 2, 3]
        for m in ms:  # full mesh: everybody linked to everybody
            assert m.linked() == {i.peer_id for i in ids} - {m.me}


import pytest  # noqa: E402

from p2p.errors import FingerprintMismatch, JoinRefused  # noqa: E402
from p2p.lobby_runner import host_table, join_table  # noqa: E402
from p2p.transport import open_mesh  # noqa: E402
from transport_support import LOOPBACK, lobby_schemas  # noqa: E402


async def test_wrong_table_code_is_refused_and_the_right_one_gets_in(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, wrong, right):
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                await nursery.start(lambda task_status: host_table(host, name="h", table="Coded", seats=2, code="sesame", task_status=task_status))
                with pytest.raises(JoinRefused) as info:
                    await join_table(wrong, [(LOOPBACK, host.port)], name="w", code="open up", expect_host=host.me)
                assert info.value.code == "bad-code" and "wrong table code" in info.value.detail
                with pytest.raises(JoinRefused, match="needs a code"):
                    await join_table(wrong, [(LOOPBACK, host.port)], name="w", expect_host=host.me)
                result = await join_table(right, [(LOOPBACK, host.port)], name="r", code=" sesame", expect_host=host.me)
                assert [m.name for m in result.roster.members] == ["h", "r"]


async def test_a_joiner_at_a_full_table_is_refused_politely(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, first, late):
        with trio.fail_after(20):
            results = await run_table([host, first])
            assert len(results) == 2
            with pytest.raises(JoinRefused) as info:
                await join_table(late, [(LOOPBACK, host.port)], name="late", expect_host=host.me)
            assert info.value.code == "full" and "2 seats" in info.value.detail
            assert host.linked() == {first.me}  # the seated players are unaffected


async def test_an_unexpected_host_certificate_is_refused_naming_both(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, joiner, other):
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                await nursery.start(lambda task_status: host_table(host, name="h", table="T", seats=2, task_status=task_status))
                with pytest.raises(FingerprintMismatch) as info:
                    await join_table(joiner, [(LOOPBACK, host.port)], name="j", expect_host=other.me)
                assert info.value.expected == ids[2].short and info.value.presented == ids[0].short
                nursery.cancel_scope.cancel()


async def test_nobody_listening_is_a_connection_error(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 2)
    async with meshes(ids) as (gone, joiner):
        port = gone.port
    async with open_mesh(ids[1], lobby_schemas(), bind=LOOPBACK, hold_incoming=True) as joiner:
        with pytest.raises(ConnectionError, match="could not reach the table"):
            await join_table(joiner, [(LOOPBACK, port)], name="j")


async def test_explicit_start_with_two_of_four_seats(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, guest, late):
        start = trio.Event()
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                got = {}

                async def run_host(task_status: trio.TaskStatus[None]) -> None:
                    got["host"] = await host_table(host, name="h", table="Early", seats=4, start=start, task_status=task_status)

                await nursery.start(run_host)

                async def run_guest() -> None:
                    got["guest"] = await join_table(guest, [(LOOPBACK, host.port)], name="g", expect_host=host.me,
                                                    on_roster=lambda r: start.set())

                nursery.start_soon(run_guest)
            assert got["host"].game_id == got["guest"].game_id and len(got["host"].roster.members) == 2
            with pytest.raises(JoinRefused) as info:
                await join_table(late, [(LOOPBACK, host.port)], name="late", expect_host=host.me)
            assert info.value.code == "started"
