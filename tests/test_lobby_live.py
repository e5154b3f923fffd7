"""§6 end to end over real TLS sockets on 127.0.0.1: host + joiners in one trio process."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import trio
import trio.testing

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

from p2p.errors import FingerprintMismatch, HostGone, JoinRefused, ProtocolError, StartFailed  # noqa: E402
from p2p.lobby_runner import StartCall, host_table, join_table  # noqa: E402
from p2p.lobby import LobbyResult, RosterChanged  # noqa: E402
from p2p.schema import Schemas  # noqa: E402
from p2p.transport import LinkDown, LinkUp, Mesh, open_mesh  # noqa: E402
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


async def test_s6_4_a_seated_player_coming_back_is_told_their_game_is_under_way_then_over(tmp_path: Path) -> None:
    """Bo's program stops once the game has begun and Bo joins the table again (a new
    process, the same identity): the host does not say the table is full, but that Bo's
    game is under way (`in-game`, so `--resume` takes the seat back), and, once the game
    has ended (the host's end screen still up, its door open), that it is over."""
    ada, bo = make_identities(tmp_path, 2)
    async with meshes([ada, bo, bo]) as (host, seated, back):
        ended = trio.Event()
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                await nursery.start(partial(host_table, host, name="Ada", table="Kitchen", seats=2, game_ended=ended))
                await join_table(seated, [(LOOPBACK, host.port)], name="Bo", expect_host=host.me)
            for over, code, detail in ((False, "in-game", "Bo holds seat 2 in the game this table is playing"),
                                       (True, "game-over", "the game Bo played at this table (seat 2) is over")):
                if over:
                    ended.set()
                with pytest.raises(JoinRefused) as info:
                    await join_table(back, [(LOOPBACK, host.port)], name="Bo", expect_host=host.me)
                assert (info.value.code, info.value.detail) == (code, detail)


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


HTTP_ANSWER = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
NO_APPLICATION_PROTOCOL = bytes([0x15, 3, 3, 0, 2, 2, 120])  # a TLS alert record: fatal, no_application_protocol


@pytest.mark.parametrize("there, said", [
    (None, "nothing answers at {where}; check the address and port on the host's screen"),
    (HTTP_ANSWER, "what answers at {where} is not a bandit-lan table; check the address and port on the host's screen"),
    (NO_APPLICATION_PROTOCOL, "what answers at {where} is not a bandit-lan table, or is one of another bandit-lan "
                              "release (the same release is needed on both machines)"),
    ("bandit-lan/0", "what answers at {where} is not a bandit-lan table, or is one of another bandit-lan "
                     "release (the same release is needed on both machines)"),
], ids=["nothing", "http", "alpn-alert", "other-alpn"])
async def test_a_join_at_an_address_where_no_table_answers_says_what_answers_there(
        tmp_path: Path, there: bytes | str | None, said: str) -> None:
    """A join by address names what it found there once: nothing (not "all attempts to
    connect to … failed" after the same address), a server that is not a table (an HTTP
    server), or a TLS server that speaks no bandit-lan/1 (its alert, or no protocol).
    Only a player who gave the table's address is told to check it: one who found the
    table by name typed no address."""
    import ssl

    from cli.lobby_common import explain

    ids = make_identities(tmp_path, 2)

    async def answer(stream: trio.abc.Stream) -> None:
        assert isinstance(there, bytes)
        await stream.receive_some(65536)  # (the TLS client hello)
        await stream.send_all(there)
        await stream.aclose()

    async with meshes(ids) as (gone, joiner):
        port = gone.port  # (closed next: nothing listens there)
    async with open_mesh(ids[1], lobby_schemas(), bind=LOOPBACK, hold_incoming=True) as joiner:
        async with trio.open_nursery() as nursery:
            if isinstance(there, bytes):
                port = (await nursery.start(trio.serve_tcp, answer, 0))[0].socket.getsockname()[1]
            elif isinstance(there, str):  # a TLS 1.3 server of another protocol: it selects none of ours
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(ids[0].cert_path, ids[0].key_path)
                context.set_alpn_protocols([there])
                listeners = await nursery.start(trio.serve_ssl_over_tcp, lambda s: s.do_handshake(), 0, context)
                port = listeners[0].transport_listener.socket.getsockname()[1]
            with trio.fail_after(20), pytest.raises(ConnectionError, match="could not reach the table") as failed:
                await join_table(joiner, [(LOOPBACK, port)], name="j")
            nursery.cancel_scope.cancel()
    assert explain(failed.value, by_address=True) == said.format(where=f"{LOOPBACK}:{port}")
    assert explain(failed.value) == said.format(where=f"{LOOPBACK}:{port}").removesuffix(
        "; check the address and port on the host's screen")


async def test_explicit_start_with_two_of_four_seats(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, guest, late):
        start = trio.Event()
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                got = {}

                async def run_host(task_status: trio.TaskStatus[StartCall]) -> None:
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


async def test_s6_4_wrong_table_codes_from_one_address_are_answered_ever_more_slowly(tmp_path: Path) -> None:
    """Table codes cannot be tried at line speed (unthrottled, 174 a second): each wrong
    code makes its address wait before its next code is checked: 1 s, then 2 s, …"""
    ids = make_identities(tmp_path, 2)
    async with meshes(ids) as (host, guesser):
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                await nursery.start(lambda task_status: host_table(host, name="h", table="Coded", seats=2, code="sesame",
                                                                   task_status=task_status))
                answered = []
                for guess in ("one", "two", "sesame"):
                    try:
                        await join_table(guesser, [(LOOPBACK, host.port)], name="g", code=guess, expect_host=host.me)
                    except JoinRefused as exc:
                        assert exc.code == "bad-code"
                    answered.append(trio.current_time())
                # 1 s, then 2 s (less what the answers took to travel, a loaded machine's milliseconds)
                assert answered[1] - answered[0] >= 0.5 and answered[2] - answered[1] >= 1.5  # then in
                nursery.cancel_scope.cancel()


async def rogue_guest(tmp_path: Path, misbehave: Callable[[Mesh, Mesh], Awaitable[None]],
                      schemas: Schemas | None = None) -> tuple[BaseException | None, LobbyResult]:
    """A table of three seats: a guest sits down and, once seated, does `misbehave(its
    mesh, the host's)`; then an honest guest joins and the host starts. What ended the
    rogue's lobby, and the honest guest's result."""
    ids = make_identities(tmp_path, 3)
    async with meshes(ids, schemas=schemas) as (host, rogue, honest):
        with trio.fail_after(20):
            start, seated, gone = trio.Event(), trio.Event(), trio.Event()
            ended: list[BaseException] = []
            async with trio.open_nursery() as nursery:
                await nursery.start(lambda task_status: host_table(host, name="h", table="Open", seats=3, start=start,
                                                                   task_status=task_status))

                async def run_rogue() -> None:
                    try:
                        await join_table(rogue, [(LOOPBACK, host.port)], name="rogue", expect_host=host.me,
                                         on_roster=lambda r: seated.set())
                    except ProtocolError as exc:
                        ended.append(exc)
                    finally:
                        gone.set()

                nursery.start_soon(run_rogue)
                await seated.wait()
                await misbehave(rogue, host)
                await gone.wait()
                result = await join_table(honest, [(LOOPBACK, host.port)], name="honest", expect_host=host.me,
                                          on_roster=lambda r: start.set())
    return (ended[0] if ended else None), result


async def test_s6_5_a_guest_that_breaks_the_lobby_protocol_loses_its_seat_not_the_table(tmp_path: Path) -> None:
    """One lobby message a guest may not send does not end the table for everyone: that
    guest is told why (§4.6) and leaves the roster (§6.5)."""

    async def start_the_table(rogue: Mesh, host: Mesh) -> None:  # only the host may
        rogue.send(host.me, {"type": "lobby.start", "v": 1, "roster": b"x", "sig": bytes(64)})

    ended, honest = await rogue_guest(tmp_path, start_the_table)
    assert "§6" in str(ended)
    assert [m.name for m in honest.roster.members] == ["h", "honest"]


async def test_s4_7_a_guest_that_floods_the_lobby_with_game_messages_loses_its_seat(tmp_path: Path) -> None:
    """Messages of the game that come before the start are not kept without bound (a
    seated guest could grow the host by 25 MB a second): past MAX_EARLY, that guest is
    told why and leaves the roster; the table goes on."""
    from p2p import lobby
    from p2p.lobby_runner import MAX_EARLY
    from p2p.schema import PEER_ID, Message, Str
    from p2p.signing import sign, signed_frame
    from p2p.transport import link_schemas

    note = Message("test.note", 1, "§9", {"from": PEER_ID, "text": Str(max_len=10)})

    async def flood(rogue: Mesh, host: Mesh) -> None:
        body, sig = sign(rogue.identity, {"type": "test.note", "v": 1, "from": rogue.me, "text": "x"})
        for sent in range(MAX_EARLY + 1):
            rogue.send(host.me, signed_frame(body, sig))
            if sent % 100 == 99:  # (within the link's own queue, §4.7)
                await trio.testing.wait_all_tasks_blocked()

    ended, honest = await rogue_guest(tmp_path, flood, link_schemas(*lobby.MESSAGES, note))
    assert ended is not None
    assert [m.name for m in honest.roster.members] == ["h", "honest"]


async def test_s4_7_a_guest_that_floods_the_lobby_with_large_game_messages_loses_its_seat(tmp_path: Path) -> None:
    """Messages of the game that come before the start are bounded in bytes too, not only
    in number (a few frames of 1 MiB each would otherwise weigh a gigabyte before
    MAX_EARLY): past MAX_EARLY_BYTES, that guest is told why and leaves the roster."""
    from p2p import lobby
    from p2p.lobby_runner import MAX_EARLY_BYTES
    from p2p.schema import PEER_ID, Bin, Message
    from p2p.signing import sign, signed_frame
    from p2p.transport import link_schemas

    blob = Message("test.blob", 1, "§9", {"from": PEER_ID, "blob": Bin()})

    async def flood(rogue: Mesh, host: Mesh) -> None:
        body, sig = sign(rogue.identity, {"type": "test.blob", "v": 1, "from": rogue.me, "blob": bytes(1_000_000)})
        for _ in range(MAX_EARLY_BYTES // len(body) + 1):
            rogue.send(host.me, signed_frame(body, sig))
            await trio.testing.wait_all_tasks_blocked()  # (within the link's own queue, §4.7)

    ended, honest = await rogue_guest(tmp_path, flood, link_schemas(*lobby.MESSAGES, blob))
    assert ended is not None and "bytes of messages of the game" in str(ended)
    assert [m.name for m in honest.roster.members] == ["h", "honest"]


@pytest.mark.parametrize("frames", [
    [{"type": "lobby.links", "v": 1, "version": 0, "unreachable": []}],  # only the host takes these
    # two different signatures, before any start
    [{"type": "lobby.sign", "v": 1, "game": bytes(32), "sig": bytes([i]) * 64} for i in range(2)],
], ids=["links", "signed-twice"])
async def test_s6_6_a_later_joiner_that_breaks_the_protocol_at_a_guest_loses_its_own_seat_not_the_guest_s(
        tmp_path: Path, frames: list[dict]) -> None:  # type: ignore[type-arg]
    """A later joiner sends an earlier guest lobby messages it may not send: only that
    link ends (§4.6), the guest reports it, and the later joiner of the two leaves
    (§6.6); the earlier guest keeps its seat and the table starts with the next joiner."""
    ids = make_identities(tmp_path, 4)
    async with meshes(ids) as (host, bob, rogue, carol):
        results: dict[str, LobbyResult] = {}
        bob_seated, start = trio.Event(), trio.Event()
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: host_table(host, name="h", table="Open", seats=4, start=start))
                await trio.testing.wait_all_tasks_blocked()

                async def join(mesh: Mesh, name: str, on_roster: Callable[[RosterChanged], None]) -> None:
                    results[name] = await join_table(mesh, [(LOOPBACK, host.port)], name=name, expect_host=host.me,
                                                     on_roster=on_roster)

                nursery.start_soon(join, bob, "bob", lambda change: bob_seated.set())
                await bob_seated.wait()
                sent = []

                def misbehave(change: RosterChanged) -> None:  # once seated: to bob, whose dial brings them
                    if not sent:
                        sent.append(True)
                        for frame in frames:
                            rogue.send(bob.me, frame)

                with pytest.raises(JoinRefused) as refused:
                    await join_table(rogue, [(LOOPBACK, host.port)], name="rogue", expect_host=host.me,
                                     on_roster=misbehave)
                assert refused.value.code == "unreachable" and "bob and rogue could not link" in str(refused.value)
                await join(carol, "carol", lambda change: start.set())  # (the host starts with three of four)
        assert [m.name for m in results["bob"].roster.members] == ["h", "bob", "carol"]
        assert results["bob"].game_id == results["carol"].game_id


async def test_s6_6_a_joiner_nobody_can_reach_cannot_take_the_last_seat_and_end_the_table(tmp_path: Path) -> None:
    """A hello naming a mesh port where nothing answers must not fill the last seat, start
    the table at once and end the lobby when that seat cannot sign: the host starts only
    once it reaches every member, the unreachable one leaves when the host's dial fails,
    and the next joiner starts the table."""
    import secrets
    import socket

    from p2p.framed import FramedStream
    from p2p.lobby import GuestLobby
    from p2p.lobby_runner import _open_front_door

    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, griefer, honest):
        with socket.socket() as closed:  # a port where nothing listens
            closed.bind((LOOPBACK, 0))
            dead = closed.getsockname()[1]
        with trio.fail_after(30):
            rosters: list[list[str]] = []
            left: list[str] = []
            freed = trio.Event()

            def on_roster(change: RosterChanged) -> None:
                rosters.append([m.name for m in change.roster.members])
                left.extend(gone.sentence() for gone in change.left)
                if rosters[-2:] == [["h", "griefer"], ["h"]]:
                    freed.set()

            async with trio.open_nursery() as nursery:
                await nursery.start(lambda task_status: host_table(host, name="h", table="Open", seats=2,
                                                                   on_roster=on_roster, task_status=task_status))
                # only the front door, as a griefer would: a hello that names the dead port
                door, address = await _open_front_door([(LOOPBACK, host.port)], host.me, griefer)
                framed = FramedStream(door.tls, griefer.schemas, limits=griefer.limits, label="host")
                guest = GuestLobby(griefer.identity, name="griefer", port=dead, nonce=secrets.token_bytes(32),
                                   expect_host=host.me)
                await framed.send(guest.on_offer(await framed.expect("lobby.offer"), door.peer_cert, address))
                assert (await framed.expect("lobby.welcome", "lobby.refuse"))["type"] == "lobby.welcome"
                await framed.aclose()
                await freed.wait()  # the host could not reach it: it left, and its seat is free
                result = await join_table(honest, [(LOOPBACK, host.port)], name="honest", expect_host=host.me)
            assert [m.name for m in result.roster.members] == ["h", "honest"]
            assert left == [left[0]] and left[0] == "griefer lost the connection: this machine could not reach theirs."


async def newcomer_let_go(host: Mesh, bob: Mesh, newcomer: Mesh, carol: Mesh, table: str,
                          then: Callable[[], None] = lambda: None) -> tuple[JoinRefused, float]:
    """Host a three-seat `table`, seat bob, let `newcomer` try (it must be let go), call
    `then`, and seat carol, who starts the table with bob: the newcomer's refusal, and
    how long it took. The host's screen says why the newcomer left; bob's that it did."""
    seated = trio.Event()
    results: dict[str, LobbyResult] = {}
    told: dict[str, list[str]] = {"h": [], "bob": [], "carol": []}

    def on_roster(name: str) -> Callable[[RosterChanged], None]:
        def note(change: RosterChanged) -> None:
            told[name] += [left.sentence() for left in change.left]
            if name == "bob":
                seated.set()
        return note

    async def join(mesh: Mesh, name: str) -> None:
        results[name] = await join_table(mesh, [(LOOPBACK, host.port)], name=name, expect_host=host.me,
                                         on_roster=on_roster(name))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host_table(host, name="h", table=table, seats=3, on_roster=on_roster("h")))
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(join, bob, "bob")
        await seated.wait()
        started = trio.current_time()
        with pytest.raises(JoinRefused) as info:
            await join_table(newcomer, [(LOOPBACK, host.port)], name="newcomer", expect_host=host.me)
        waited = trio.current_time() - started
        then()
        await join(carol, "carol")
    assert [m.name for m in results["carol"].roster.members] == ["h", "bob", "carol"]
    assert results["bob"].game_id == results["carol"].game_id
    assert told == {"h": [f"newcomer had to leave: {info.value.detail}."],
                    "bob": ["newcomer is no longer at the table."], "carol": []}
    return info.value, waited


async def test_s6_6_a_joiner_one_guest_cannot_reach_leaves_and_the_table_starts_without_it(tmp_path: Path) -> None:
    """A joiner the host reaches but another guest cannot (behind a firewall that lets
    only the host in) must not fill the last seat and end the lobby when the roster is
    signed: bob's failed dial is reported to the host, the later joiner of the two is
    told why and leaves, and the next joiner starts the table."""
    from tests.faultproxy import link_proxy

    ids = make_identities(tmp_path, 4)
    async with meshes(ids) as (host, bob, newcomer, carol):
        async with link_proxy((LOOPBACK, newcomer.port), admit=1) as wall:  # the first dial gets in: the host's
            newcomer.port = wall.port  # (its hello names the wall's port)
            with trio.fail_after(30):
                refused, _ = await newcomer_let_go(host, bob, newcomer, carol, "Walled")
            assert refused.code == "unreachable" and "bob and newcomer could not link" in str(refused)
            assert wall.accepted >= 2 and wall.connections == 1  # the host's link went through, bob's dials did not


@pytest.mark.parametrize("dialer", ["bob", "h"])
async def test_s6_6_a_link_that_drops_before_the_start_is_redialled_and_nobody_leaves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dialer: str) -> None:
    """A link to carol ends after every guest told the host it holds every link (a hiccup
    on the route): that costs her no seat. Its dialer, bob or the host, dials her again
    (and she asks the host's front door whether the table is still there when it is the
    host's link that dropped); the table starts with all three."""
    from p2p.lobby import GuestLobby, HostLobby
    from tests.faultproxy import link_proxy

    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        names = {host.me: "h", bob.me: "bob", carol.me: "carol"}
        ups: dict[tuple[str, str], int] = {}
        relinked, ready, probed = trio.Event(), trio.Event(), trio.Event()
        reports: set[str] = set()
        answers: list[bool] = []
        guest_link_up, host_message, guest_probe = GuestLobby.on_link_up, HostLobby.on_message, GuestLobby.on_probe

        def on_link_up(self: GuestLobby, peer: bytes) -> list:  # type: ignore[type-arg]
            ups[self.name, names[peer]] = ups.get((self.name, names[peer]), 0) + 1
            if ups.get(("carol", dialer), 0) == 2:
                relinked.set()
            return guest_link_up(self, peer)

        def on_message(self: HostLobby, peer: bytes, message: dict) -> list:  # type: ignore[type-arg]
            if message["type"] == "lobby.links" and message["version"] == 2 and not message["unreachable"]:
                reports.add(names[peer])
                if reports == {"bob", "carol"}:
                    ready.set()
            return host_message(self, peer, message)

        def on_probe(self: GuestLobby, peer: bytes, answered: bool, detail: str = "") -> list:  # type: ignore[type-arg]
            answers.append(answered)
            probed.set()
            return guest_probe(self, peer, answered, detail)

        monkeypatch.setattr(GuestLobby, "on_link_up", on_link_up)
        monkeypatch.setattr(HostLobby, "on_message", on_message)
        monkeypatch.setattr(GuestLobby, "on_probe", on_probe)
        left: list[str] = []
        results: dict[str, LobbyResult] = {}
        start, bob_seated = trio.Event(), trio.Event()

        def on_roster(change: RosterChanged) -> None:
            left.extend(gone.sentence() for gone in change.left)
            if [m.name for m in change.roster.members] == ["h", "bob"]:
                bob_seated.set()

        async def play(name: str, run: Callable[[], Awaitable[LobbyResult]]) -> None:
            results[name] = await run()

        async with link_proxy((LOOPBACK, carol.port)) as route:
            carol.port = route.port  # (her hello names the route's port: the host's and bob's dials take it)
            with trio.fail_after(30):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(play, "h", lambda: host_table(
                        host, name="h", table="Hiccup", seats=4, start=start, on_roster=on_roster))
                    await trio.testing.wait_all_tasks_blocked()
                    nursery.start_soon(play, "bob", lambda: join_table(bob, [(LOOPBACK, host.port)], name="bob",
                                                                      expect_host=host.me))
                    await bob_seated.wait()  # (bob takes seat 1, so he dials carol)
                    nursery.start_soon(play, "carol", lambda: join_table(carol, [(LOOPBACK, host.port)], name="carol",
                                                                        expect_host=host.me))
                    await ready.wait()  # both told the host they hold every link
                    assert route.connections == 2  # the host's dial to carol, then bob's
                    route.drop({"h": 1, "bob": 2}[dialer])
                    await relinked.wait()
                    if dialer == "h":
                        await probed.wait()
                    start.set()
        assert {name: [m.name for m in r.roster.members] for name, r in results.items()} == {
            name: ["h", "bob", "carol"] for name in ("h", "bob", "carol")}
        assert len({r.game_id for r in results.values()}) == 1
        assert left == [] and route.connections == 3  # the dialer's second dial went through
        assert answers == ([True] if dialer == "h" else [])  # (the host's table answered carol's probe)


async def test_s6_6_a_guest_whose_host_is_gone_is_told_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's link to carol drops and its table no longer answers (the host crashed):
    carol's probe of the front door fails and she is told at once, not after `MESH_WAIT`
    of waiting for a redial that cannot come."""
    from p2p.lobby import MESH_WAIT, HostLobby
    from tests.faultproxy import link_proxy

    ids = make_identities(tmp_path, 2)
    async with meshes(ids) as (host, carol):
        reported = trio.Event()
        host_message = HostLobby.on_message

        def on_message(self: HostLobby, peer: bytes, message: dict) -> list:  # type: ignore[type-arg]
            if message["type"] == "lobby.links":
                reported.set()  # carol holds her link to the host
            return host_message(self, peer, message)

        monkeypatch.setattr(HostLobby, "on_message", on_message)
        async with link_proxy((LOOPBACK, host.port)) as door, link_proxy((LOOPBACK, carol.port)) as route:
            carol.port = route.port  # (the host's dial takes the route)
            with trio.fail_after(MESH_WAIT / 3):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(lambda: host_table(host, name="h", table="Gone", seats=3))
                    await trio.testing.wait_all_tasks_blocked()

                    async def crash() -> None:
                        await reported.wait()
                        monkeypatch.setattr(host, "dial", lambda peer_id: None)  # a crashed host dials nobody
                        door.cut()  # and its front door answers nobody
                        route.drop(1)

                    nursery.start_soon(crash)
                    with pytest.raises(ProtocolError) as info:
                        await join_table(carol, [(LOOPBACK, door.port)], name="carol", expect_host=host.me)
                    nursery.cancel_scope.cancel()
    assert isinstance(info.value, HostGone) and info.value.section == "§6.5"
    assert info.value.reason.startswith("lost the host: h's table 'Gone' ")
    assert f"at {LOOPBACK}:{door.port} no longer answers: it closed, or its program stopped" in info.value.reason


@pytest.mark.parametrize("gone", [True, False])
async def test_s6_6_a_guest_the_host_never_dials_asks_whether_its_table_is_still_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gone: bool) -> None:
    """The host never dials carol after her welcome. Every `PROBE_EVERY` seconds she asks
    its front door whether the table is still there: when it is gone (the host died
    before it dialled) she is told at the first probe; while it answers (a firewall in
    front of her mesh port), she waits the whole `MESH_WAIT`, then says so."""
    from p2p import lobby_runner
    from tests.faultproxy import link_proxy

    monkeypatch.setattr(lobby_runner, "PROBE_EVERY", 0.05)
    monkeypatch.setattr(lobby_runner, "MESH_WAIT", 0.5)
    ids = make_identities(tmp_path, 2)
    async with meshes(ids) as (host, carol):
        monkeypatch.setattr(host, "dial", lambda peer_id: None)  # the host's side of the mesh never dials out
        async with link_proxy((LOOPBACK, host.port)) as door:
            with trio.fail_after(10):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(lambda: host_table(host, name="h", table="Silent", seats=3))
                    await trio.testing.wait_all_tasks_blocked()

                    def welcomed(change: RosterChanged) -> None:
                        if gone:
                            door.cut()

                    started = trio.current_time()
                    with pytest.raises(ProtocolError) as info:
                        await join_table(carol, [(LOOPBACK, door.port)], name="carol", expect_host=host.me,
                                         on_roster=welcomed)
                    waited = trio.current_time() - started
                    nursery.cancel_scope.cancel()
    if gone:
        assert isinstance(info.value, HostGone)
        assert f"at {LOOPBACK}:{door.port} no longer answers: it closed" in info.value.reason
        assert waited < 0.5
    else:
        assert "the host has not reached this peer's mesh port" in info.value.reason
        assert waited >= 0.5 and door.accepted >= 5  # (her join, then a probe every 0.05 s: each answered)


async def test_s6_6_a_newcomer_a_seated_guest_never_dials_leaves_after_the_mesh_wait(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other half of the rule: bob is seated but never dials the newcomer (nor says
    why). The newcomer waits `MESH_WAIT` for his link, then says so; being the later
    joiner of the two, it is let go, and the table is open again for the next joiner."""
    from p2p import lobby_runner

    monkeypatch.setattr(lobby_runner, "MESH_WAIT", 0.5)
    ids = make_identities(tmp_path, 4)
    async with meshes(ids) as (host, bob, newcomer, carol):
        monkeypatch.setattr(bob, "dial", lambda peer_id: None)  # bob's side of the mesh never dials out
        with trio.fail_after(30):
            refused, waited = await newcomer_let_go(host, bob, newcomer, carol, "Quiet", then=monkeypatch.undo)
        assert refused.code == "unreachable" and "bob and newcomer could not link" in str(refused)
        assert waited >= 0.5  # (it waited for bob's link first; then bob dials carol as usual)


def test_s6_5_the_host_says_how_a_guest_left_with_a_peers_words_printed_safely() -> None:
    from p2p.lobby_runner import _gone
    from p2p.transport import LinkDown

    assert _gone(LinkDown(b"p" * 32, "left: leaving the table", clean=True)) == "left the table"
    assert _gone(LinkDown(b"p" * 32, "connection lost (reset)")) == "lost the connection: connection lost (reset)"
    error = ProtocolError("§4.3", "not valid msgpack")
    assert _gone(LinkDown(b"p" * 32, str(error), error)).startswith("was disconnected: ")
    assert _gone(LinkDown(b"p" * 32, "a \x1b[2J b")) == "lost the connection: a \\x1b[2J b"


def test_s6_5_a_lost_link_is_told_in_a_players_words() -> None:
    from p2p.lobby_runner import _gone
    from p2p.transport import LinkDown

    raw = "could not connect: all attempts to connect to 127.0.0.1:35565 failed"
    assert _gone(LinkDown(b"p" * 32, raw)) == "lost the connection: this machine could not reach theirs"
    assert _gone(LinkDown(b"p" * 32, "link setup failed: timed out")) == (
        "lost the connection: the link to their machine could not be set up")


async def test_s6_5_a_guest_that_leaves_as_it_is_seated_says_goodbye_and_the_host_says_it_left(tmp_path: Path) -> None:
    """bob's player leaves (a stop signal cancels his join) as the welcome comes, before
    the host's dial reaches him: he waits for that link and says goodbye over it, so the
    host reads "bob left the table", not that it could not reach him."""
    ids = make_identities(tmp_path, 2)
    left: list[str] = []
    gone = trio.Event()

    def on_roster(change: RosterChanged) -> None:
        left.extend(g.sentence() for g in change.left)
        if change.left:
            gone.set()

    async with open_mesh(ids[0], lobby_schemas(), bind=LOOPBACK) as host:
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                await nursery.start(lambda task_status: host_table(host, name="Ann", table="Round Two", seats=3,
                                                                   on_roster=on_roster, task_status=task_status))
                with trio.CancelScope() as stop:
                    async with open_mesh(ids[1], lobby_schemas(), bind=LOOPBACK, hold_incoming=True) as bob:
                        def seated(change: RosterChanged) -> None:
                            assert host.me not in bob.linked()  # (the host's link is not up yet)
                            stop.cancel()  # (the signal: cancels everything of bob's at once)

                        await join_table(bob, [(LOOPBACK, host.port)], name="bob", expect_host=host.me,
                                         on_roster=seated)
                assert stop.cancelled_caught
                await gone.wait()
                nursery.cancel_scope.cancel()
    assert left == ["bob left the table."]


async def test_s6_5_a_leaving_guest_waits_leave_wait_for_the_hosts_link_and_no_longer(
        autojump_clock: trio.testing.MockClock) -> None:
    """Every guest that leaves before the host's link is up (a player who left, or
    `join --target` at a table of another target) waits for it as long, `LEAVE_WAIT`,
    and then leaves all the same."""
    from p2p.lobby_runner import LEAVE_WAIT, host_linked

    class Unlinked:
        """A mesh the host never links to, on which nothing comes."""

        def linked(self) -> set[bytes]:
            return set()

        async def receive(self) -> None:
            await trio.sleep_forever()

    await host_linked(Unlinked(), b"h" * 32)  # type: ignore[arg-type]
    assert trio.current_time() == LEAVE_WAIT


async def test_s6_6_a_guest_whose_process_stopped_loses_its_seat_not_a_later_joiner(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """carol's process stops (Ctrl-Z): her links stay open but carry nothing, and new
    connections to her are accepted but never answered (`LinkProxy.freeze`). Her links
    fall silent (no `lobby.beat`), so the host takes its link for lost and dials her
    again, in vain. dan, who joins meanwhile and whom she never dials, reports her; the
    host holds his report until its redial fails, then lets carol go as one that lost her
    connection, and the table starts with dan. Before the marks of life, the host waited
    for her forever; before the held report, dan (the later joiner) lost his seat."""
    from p2p import lobby_runner, transport
    from p2p.lobby import HostLobby
    from tests.faultproxy import link_proxy

    monkeypatch.setattr(lobby_runner, "SILENCE", 0.5)
    monkeypatch.setattr(lobby_runner, "BEAT_EVERY", 0.1)
    monkeypatch.setattr(lobby_runner, "MESH_WAIT", 0.3)
    monkeypatch.setattr(transport, "HANDSHAKE_TIMEOUT", 1.0)
    ids = make_identities(tmp_path, 4)
    async with meshes(ids) as (host, bob, carol, dan):
        names = {host.me: "h", bob.me: "bob", carol.me: "carol", dan.me: "dan"}
        reported, held = trio.Event(), trio.Event()
        on_links = HostLobby._on_links

        def spy(self: HostLobby, peer: bytes, version: int, unreachable: list[bytes]) -> list:  # type: ignore[type-arg]
            if names[peer] == "carol" and not unreachable:
                reported.set()
            actions = on_links(self, peer, version, unreachable)
            if names[peer] == "dan" and unreachable and peer in self._held:
                held.set()
            return actions

        monkeypatch.setattr(HostLobby, "_on_links", spy)
        start, bob_seated, carol_redialled = trio.Event(), trio.Event(), trio.Event()
        left: list[str] = []
        results: dict[str, LobbyResult] = {}
        carol_ended: list[BaseException] = []

        def on_roster(change: RosterChanged) -> None:
            left.extend(gone.sentence() for gone in change.left)
            if [m.name for m in change.roster.members] == ["h", "bob"]:
                bob_seated.set()
            if carol.me in change.reconnecting:
                carol_redialled.set()

        async def play(name: str, mesh: Mesh) -> None:
            results[name] = await join_table(mesh, [(LOOPBACK, host.port)], name=name, expect_host=host.me)

        async def play_carol() -> None:
            try:
                await play("carol", carol)
            except ProtocolError as exc:
                carol_ended.append(exc)

        async with link_proxy((LOOPBACK, carol.port)) as her:
            carol.port = her.port  # (every link to her goes through it: she is the highest seat, dialled by all)
            with trio.fail_after(30):
                async with trio.open_nursery() as nursery:
                    async def run_host() -> None:
                        results["h"] = await host_table(host, name="h", table="Stopped", seats=4, start=start,
                                                        on_roster=on_roster)

                    nursery.start_soon(run_host)
                    await trio.testing.wait_all_tasks_blocked()
                    nursery.start_soon(play, "bob", bob)
                    await bob_seated.wait()
                    nursery.start_soon(play_carol)
                    await reported.wait()  # she holds every link, and says so
                    her.freeze()
                    await carol_redialled.wait()  # her link to the host fell silent
                    nursery.start_soon(play, "dan", dan)
                    await held.wait()
                    start.set()
        assert {name: [m.name for m in r.roster.members] for name, r in results.items()} == {
            name: ["h", "bob", "dan"] for name in ("h", "bob", "dan")}
        assert len({r.game_id for r in results.values()}) == 1
        assert len(left) == 1 and left[0] == "carol lost the connection: this machine could not reach theirs.", left
        assert carol_ended  # (her own lobby ended: she was never dialled again)


async def test_s6_6_a_member_that_never_signs_ends_the_lobby_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """carol keeps her links alive but never sends her roster signature: the host and bob
    end their lobby `SIGN_WAIT` after the roster was frozen, naming her, rather than
    wait for good."""
    from p2p import lobby_runner

    monkeypatch.setattr(lobby_runner, "SIGN_WAIT", 1.0)
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        broadcast = carol.broadcast
        monkeypatch.setattr(carol, "broadcast", lambda message, exclude=(): None if message["type"] == "lobby.sign"
                            else broadcast(message, exclude))
        ended = await _host_bob_and_carol(host, bob, carol, table="Unsigned", seats=3)
    for name in ("h", "bob"):  # (whoever ran out first, the host likely, told the other: §6.6 lobby.fail)
        error = ended[name]
        assert isinstance(error, ProtocolError) and re.match(
            r"§6.6: (the game will not start: )?carol did not sign the roster within 1 s( \(told by (h|bob)\))?",
            str(error)), error
    assert isinstance(ended["carol"], LobbyResult)  # (she holds every signature but her own sent)


async def test_s6_6_a_member_killed_while_the_roster_is_signed_ends_every_lobby_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bob's process dies as he accepts the start, before his signature goes out: no
    goodbye, his links drop, and the host's dial of him again fails. The host's lobby
    ends, and so at once does carol's, told by the host's ``lobby.fail``: she waited for
    bob to dial her again, and before it would have waited out `SIGN_WAIT` (30 s)."""
    from tests.faultproxy import link_proxy

    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        async with link_proxy((LOOPBACK, bob.port)) as to_bob, link_proxy((LOOPBACK, carol.port)) as to_carol:
            bob.port, carol.port = to_bob.port, to_carol.port  # (their hellos name the routes' ports)
            broadcast = bob.broadcast

            def bob_dies(message: dict[str, Any], exclude: Any = ()) -> None:
                if message["type"] != "lobby.sign":
                    return broadcast(message, exclude)
                monkeypatch.setattr(bob, "dial", lambda peer: None)  # (dead: he dials nobody again)
                to_bob.cut()  # (the host's link to him, and its dials again)
                to_carol.drop(2)  # (his link to carol: the host's dial of her came first)

            monkeypatch.setattr(bob, "broadcast", bob_dies)
            ended: dict[str, BaseException] = {}

            async def play(name: str, run: Callable[[], Awaitable[LobbyResult]]) -> None:
                with pytest.raises(ProtocolError) as failed:
                    await run()
                ended[name] = failed.value

            async def bob_plays() -> None:
                with contextlib.suppress(ProtocolError):
                    await join_table(bob, [(LOOPBACK, host.port)], name="bob", expect_host=host.me)

            with trio.fail_after(10):
                async with trio.open_nursery() as dead:
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(play, "h", lambda: host_table(host, name="h", table="Killed", seats=3))
                        await trio.testing.wait_all_tasks_blocked()
                        dead.start_soon(bob_plays)
                        await trio.testing.wait_all_tasks_blocked()
                        nursery.start_soon(play, "carol", lambda: join_table(
                            carol, [(LOOPBACK, host.port)], name="carol", expect_host=host.me))
                    dead.cancel_scope.cancel()  # (bob's lobby: his process is dead)
    assert str(ended["h"]).startswith("§6.6: bob left before signing the roster (lost the connection"), ended
    assert str(ended["carol"]).startswith(
        "§6.6: the game will not start: bob left before signing the roster (lost the connection"), ended
    assert str(ended["carol"]).endswith("(told by h)"), ended


async def _bob_then_carol(bobs: trio.Nursery, nursery: trio.Nursery, play: Callable[..., Awaitable[None]],
                          host: Mesh, bob: Mesh, carol: Mesh) -> None:
    """bob joins the host's table in `bobs` (a nursery the test may cancel, his player
    quitting), then carol in `nursery`, each lobby's end kept by `play`."""
    bobs.start_soon(lambda: join_table(bob, [(LOOPBACK, host.port)], name="bob", expect_host=host.me))
    await trio.testing.wait_all_tasks_blocked()
    nursery.start_soon(play, "carol", lambda: join_table(carol, [(LOOPBACK, host.port)], name="carol",
                                                         expect_host=host.me))


def _carol_withholds_bob_signs(monkeypatch: pytest.MonkeyPatch, bob: Mesh, carol: Mesh) -> trio.Event:
    """carol never sends her roster signature (the host waits for it); the event is set
    once bob has sent his."""
    carol_broadcast, bob_broadcast = carol.broadcast, bob.broadcast
    monkeypatch.setattr(carol, "broadcast", lambda message, exclude=(): None if message["type"] == "lobby.sign"
                        else carol_broadcast(message, exclude))
    bob_signed = trio.Event()

    def bob_signs(message: dict[str, Any], exclude: Any = ()) -> None:
        bob_broadcast(message, exclude)
        if message["type"] == "lobby.sign":
            bob_signed.set()

    monkeypatch.setattr(bob, "broadcast", bob_signs)
    return bob_signed


async def test_s6_6_a_member_that_leaves_while_the_roster_is_signed_says_so_and_no_game_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bob signs, then his player quits (Ctrl-C, a stop signal: his lobby is cancelled)
    while the host still waits for carol's signature. His ``lobby.fail`` goes out as he
    goes, and the host's lobby ends at once saying so: before, the host held his
    signature, took his goodbye for that of a peer whose lobby was over, and started a
    game he would never play, to wait out its grace period."""
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        bob_signed = _carol_withholds_bob_signs(monkeypatch, bob, carol)
        ended: dict[str, BaseException | LobbyResult] = {}
        play = partial(_lobby_ended, ended)
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play, "h", lambda: host_table(host, name="h", table="Quit", seats=3))
                await trio.testing.wait_all_tasks_blocked()
                async with trio.open_nursery() as bob_quits:
                    await _bob_then_carol(bob_quits, nursery, play, host, bob, carol)
                    await bob_signed.wait()
                    bob_quits.cancel_scope.cancel()
    assert str(ended["h"]) == "§6.6: the game will not start: bob left before the game began (told by bob)", ended
    # (the goodbye each says as it closes: the host's start failed, bob gave up his seat; a
    # game begun without them quotes it, §11.3, where it said "leaving the table" of both)
    assert host.farewell == "its start failed: bob left before the game began"
    assert bob.farewell == "they gave up their seat as the seating was being signed"


async def test_s6_6_a_lobby_cancelled_by_a_failure_beside_it_is_not_its_player_leaving(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As above, but bob's lobby is cancelled because a task beside it failed (his screen,
    say), not because his player quit: that failure is why he goes, and his goodbye does
    not say he gave up his seat (it did)."""
    ids = make_identities(tmp_path, 3)

    class ScreenFailed(Exception):
        pass

    async with meshes(ids) as (host, bob, carol):
        bob_signed = _carol_withholds_bob_signs(monkeypatch, bob, carol)

        async def screen_fails() -> None:
            await bob_signed.wait()
            raise ScreenFailed

        ended: dict[str, BaseException | LobbyResult] = {}
        play = partial(_lobby_ended, ended)
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play, "h", lambda: host_table(host, name="h", table="Quit", seats=3))
                await trio.testing.wait_all_tasks_blocked()
                with pytest.RaisesGroup(ScreenFailed):
                    async with trio.open_nursery() as bob_fails:
                        await _bob_then_carol(bob_fails, nursery, play, host, bob, carol)
                        bob_fails.start_soon(screen_fails)
    assert str(ended["h"]) == "§6.6: the game will not start: bob left before the game began (told by bob)", ended
    assert bob.farewell is None


async def test_s6_6_a_host_that_closes_its_table_while_the_roster_is_signed_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's player closes the table (its lobby is cancelled) while carol has not
    signed: bob and carol are told who ended it, and the host's goodbye, which a game
    begun without it quotes (§11.3), says it closed the table, not "leaving the table"."""
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        bob_signed = _carol_withholds_bob_signs(monkeypatch, bob, carol)
        ended: dict[str, BaseException | LobbyResult] = {}
        play = partial(_lobby_ended, ended)
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                async with trio.open_nursery() as host_closes:
                    host_closes.start_soon(lambda: host_table(host, name="h", table="Closed", seats=3))
                    await trio.testing.wait_all_tasks_blocked()
                    for name, mesh in (("bob", bob), ("carol", carol)):
                        nursery.start_soon(play, name, lambda mesh=mesh, name=name: join_table(
                            mesh, [(LOOPBACK, host.port)], name=name, expect_host=host.me))
                        await trio.testing.wait_all_tasks_blocked()
                    await bob_signed.wait()
                    host_closes.cancel_scope.cancel()
    assert str(ended["bob"]) == "§6.6: the game will not start: h left before the game began (told by h)", ended
    assert host.farewell == "they closed the table as the seating was being signed"


async def test_s6_6_a_member_that_gives_up_as_its_signature_goes_out_is_heard_by_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bob's signature is the last the host and carol need, and it goes out just as his
    player quits: his ``lobby.fail`` comes right behind it. Both read it before their
    game begins, and neither starts: before, each started with his signature, the fail
    left for a game that ignores it, to wait for a member that will never play."""
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        carol_broadcast, bob_broadcast = carol.broadcast, bob.broadcast
        held: list[dict[str, Any]] = []  # bob's signature, held until he quits
        carol_signed, bob_signed = trio.Event(), trio.Event()

        def carol_signs(message: dict[str, Any], exclude: Any = ()) -> None:
            if message["type"] != "lobby.sign":
                return carol_broadcast(message, exclude)
            carol_broadcast(message, {*exclude, bob.me})  # (bob, still signing, waits for hers)
            carol_signed.set()

        def bob_signs(message: dict[str, Any], exclude: Any = ()) -> None:
            if message["type"] == "lobby.sign":
                held.append(message)
                bob_signed.set()
                return
            if message["type"] == "lobby.fail":
                bob_broadcast(held[0])  # (his signature, then at once his fail)
            bob_broadcast(message, exclude)

        monkeypatch.setattr(carol, "broadcast", carol_signs)
        monkeypatch.setattr(bob, "broadcast", bob_signs)
        ended: dict[str, BaseException | LobbyResult] = {}
        play = partial(_lobby_ended, ended)
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play, "h", lambda: host_table(host, name="h", table="Late", seats=3))
                await trio.testing.wait_all_tasks_blocked()
                async with trio.open_nursery() as bob_quits:
                    await _bob_then_carol(bob_quits, nursery, play, host, bob, carol)
                    await carol_signed.wait()
                    await bob_signed.wait()
                    await trio.testing.wait_all_tasks_blocked()  # (the host holds carol's signature)
                    bob_quits.cancel_scope.cancel()
    for name in ("h", "carol"):
        assert isinstance(ended[name], StartFailed), ended
        assert re.match(r"§6.6: the game will not start: bob left before the game began \(told by (bob|h)\)$",
                        str(ended[name])), ended


def test_s6_6_the_game_begins_with_each_link_where_it_stands() -> None:
    """What the lobby hands the game keeps every message in order and, of each peer's
    link events, only the last: a link redialled while the roster was signed is up, not
    "lost" and then "back" at the game's first moment; one that went down stays down."""
    from p2p.lobby_runner import links_settled
    from p2p.transport import Received

    bob, carol = b"b" * 32, b"c" * 32
    first, second = Received(carol, {"type": "x"}), Received(bob, {"type": "y"})
    up_bob, up_carol, dropped, back = LinkUp(bob), LinkUp(carol), LinkDown(carol, "lost"), LinkUp(carol)
    left = LinkDown(bob, "left", clean=True)
    assert links_settled([up_bob, up_carol, first, dropped, second, back, left]) == [first, second, back, left]
    assert links_settled([up_carol, dropped]) == [dropped]
    assert links_settled([]) == []


async def _lobby_ended(ended: dict[str, BaseException | LobbyResult], name: str,
                       run: Callable[[], Awaitable[LobbyResult]]) -> None:
    """Run `name`'s lobby; `ended[name]` is its result, or the protocol error it raised."""
    try:
        ended[name] = await run()
    except ProtocolError as exc:
        ended[name] = exc


async def _host_bob_and_carol(host: Mesh, bob: Mesh, carol: Mesh, **table: Any) -> dict[str, BaseException | LobbyResult]:
    """h hosts a table (`table`: `host_table`'s keywords), then bob and carol join it, in
    that order; how each one's lobby ended: its result, or the protocol error it raised."""
    ended: dict[str, BaseException | LobbyResult] = {}
    play = partial(_lobby_ended, ended)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, "h", lambda: host_table(host, name="h", **table))
            await trio.testing.wait_all_tasks_blocked()
            for name, mesh in (("bob", bob), ("carol", carol)):
                nursery.start_soon(play, name, lambda mesh=mesh, name=name: join_table(
                    mesh, [(LOOPBACK, host.port)], name=name, expect_host=host.me))
                await trio.testing.wait_all_tasks_blocked()
    return ended


async def test_s6_6_a_guest_that_never_reports_its_links_loses_its_seat_and_the_others_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """carol keeps her links alive but never sends her links report: the start would wait
    for her for good. The host lets her go `REPORT_WAIT` after the roster took its
    version, telling her why, and starts with bob."""
    from p2p import lobby_runner

    monkeypatch.setattr(lobby_runner, "REPORT_WAIT", 1.0)
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        send = carol.send
        monkeypatch.setattr(carol, "send", lambda peer, message: None if message["type"] == "lobby.links"
                            else send(peer, message))
        left: list[str] = []
        start = trio.Event()

        def seen(change: RosterChanged) -> None:
            left.extend(gone.sentence() for gone in change.left)
            if len(change.roster.members) == 3:
                start.set()

        ended = await _host_bob_and_carol(host, bob, carol, table="Mute", seats=4, start=start, on_roster=seen)
    for name in ("h", "bob"):
        result = ended[name]
        assert isinstance(result, LobbyResult) and [m.name for m in result.roster.members] == ["h", "bob"], result
    refused = ended["carol"]
    assert isinstance(refused, JoinRefused) and refused.code == "unreachable"
    assert "did not report its links to the other players within 1 s" in str(refused)
    assert left == ["carol had to leave: did not report its links to the other players within 1 s."]

class _QuietMesh:
    """A mesh for the runner's clock alone: `linked` peers, no events ever, and a note
    of every link it is asked to close."""

    def __init__(self, linked: frozenset[bytes] = frozenset()) -> None:
        self._linked = linked
        self.closed: list[tuple[bytes, str]] = []

    def linked(self) -> frozenset[bytes]:
        return self._linked

    def send(self, peer: bytes, message: dict) -> None:  # type: ignore[type-arg]
        pass

    def close_link(self, peer: bytes, reason: str) -> None:
        self.closed.append((peer, reason))

    async def receive(self) -> None:
        await trio.sleep_forever()


async def test_s6_6_a_peer_still_overdue_when_the_roster_changes_is_told_again(
        autojump_clock: trio.testing.MockClock) -> None:
    """The host ignores a report on an older roster (§6.6), so the lobby hears once per
    roster version that a peer is overdue: before, it heard once, and a report the host
    then ignored (a member joined meanwhile) left the start waiting for good."""
    from types import SimpleNamespace

    from p2p.lobby import MESH_WAIT
    from p2p.lobby_runner import _Driver

    class Done(Exception):
        pass

    told: list[tuple[int, float]] = []
    lobby = SimpleNamespace(roster=SimpleNamespace(version=1), signing=False,
                            awaited=lambda: frozenset({b"b" * 32}))

    def on_overdue(peer: bytes) -> list:  # type: ignore[type-arg]
        told.append((lobby.roster.version, trio.current_time()))
        if len(told) == 2:
            raise Done
        lobby.roster.version += 1  # (its report is about to be ignored: the roster changed)
        return []

    lobby.on_overdue = on_overdue
    with pytest.raises(Done), trio.fail_after(3 * MESH_WAIT):
        await _Driver(_QuietMesh(), None).run(lobby)  # type: ignore[arg-type]
    assert told == [(1, MESH_WAIT), (2, MESH_WAIT)]  # (at once on the new roster: it waited its time already)


async def test_s6_6_a_peer_that_was_stopped_itself_blames_nobody_for_the_silence(
        mock_clock: trio.testing.MockClock) -> None:
    """This peer's own process was stopped for 30 s (SIGSTOP, a laptop asleep): it
    listened to nobody, so on waking it does not close its links for the silence it slept
    through, but hears each anew; a link that then stays silent is closed `SILENCE`
    seconds later."""
    from types import SimpleNamespace

    from p2p.lobby_runner import _Driver
    from p2p.transport import SILENCE

    bob = b"b" * 32
    mesh = _QuietMesh(frozenset({bob}))
    driver = _Driver(mesh, None)  # type: ignore[arg-type]
    driver.heard[bob] = 0.0
    lobby = SimpleNamespace(roster=SimpleNamespace(version=1), signing=False, awaited=frozenset)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(driver.run, lobby)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(30.0)  # (stopped: every deadline passed unseen)
        await trio.testing.wait_all_tasks_blocked()
        assert mesh.closed == []
        mock_clock.jump(SILENCE)
        await trio.testing.wait_all_tasks_blocked()
        assert mesh.closed == [(bob, f"nothing heard for {SILENCE:.0f} s")]
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("wait", ["a member's dial", "the roster's signatures"])
async def test_s6_6_a_peer_that_was_stopped_itself_takes_nothing_for_overdue_before_it_reads_what_came(
        autojump_clock: trio.testing.MockClock, wait: str) -> None:
    """This peer's own process was stopped for 100 s, ten and a half seconds into a 30 s
    wait: what it waited for may well have come meanwhile and be waiting unread (a link, a
    roster signature). So its waits go on from where they stood when the process last ran
    (its last beat, at 10 s), a second later (`OVERSLEPT`), instead of running out the
    moment it wakes. (The stop was timed from when the lobby last looked, at the start of
    the wait: it read 110.5 s, and the wait began again in full.)"""
    from types import SimpleNamespace

    from p2p.lobby import MESH_WAIT, SIGN_WAIT
    from p2p.lobby_runner import _Driver
    from p2p.stops import OVERSLEPT

    class Overdue(Exception):
        pass

    def overdue(*args: object) -> list:  # type: ignore[type-arg]
        raise Overdue(trio.current_time())

    signing = wait == "the roster's signatures"
    lobby = SimpleNamespace(roster=SimpleNamespace(version=1), signing=signing, sign_overdue=overdue,
                            awaited=lambda: frozenset() if signing else frozenset({b"b" * 32}), on_overdue=overdue,
                            failure=lambda error: None)
    told: list[float] = []
    async with trio.open_nursery() as nursery:

        async def run() -> None:
            with pytest.raises(Overdue) as info:
                await _Driver(_QuietMesh(), None).run(lobby)  # type: ignore[arg-type]
            told.append(info.value.args[0])
            nursery.cancel_scope.cancel()

        nursery.start_soon(run)
        await trio.sleep(10.5)  # (half a second after a beat)
        autojump_clock.jump(100.0)  # (stopped)
        await trio.sleep_forever()
    assert told[0] == 10.5 + 100.0 + ((SIGN_WAIT if signing else MESH_WAIT) - 10.0) + OVERSLEPT


async def test_s6_6_a_link_that_drops_while_the_roster_is_signed_costs_nobody_the_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """carol's roster signature never reaches bob: it went down with their link, which
    drops once carol holds every signature and her game has begun. bob, the lower seat,
    dials her again from his lobby; her game sends her signature again over the link that
    comes back, and all three play the game to its end, agreeing on it (§6.6)."""
    from engine import NormalBot
    from p2p.audit import audit
    from p2p.peer import GameSummary, TablePeer, table_schemas
    from p2p.roster import TableRules
    from tests.faultproxy import link_proxy

    ids = make_identities(tmp_path, 3)
    async with meshes(ids, schemas=table_schemas()) as (host, bob, carol):
        broadcast = carol.broadcast

        def carol_broadcasts(message: dict[str, Any], exclude: Any = ()) -> None:
            if message["type"] == "lobby.sign":  # (to bob it goes down with the link dropped below)
                exclude = (*exclude, bob.me)
            broadcast(message, exclude)

        monkeypatch.setattr(carol, "broadcast", carol_broadcasts)
        requeue, handed = bob.requeue, []

        def bob_requeues(events: list[Any]) -> None:  # (what his lobby hands his game)
            handed.extend(events)
            requeue(events)

        monkeypatch.setattr(bob, "requeue", bob_requeues)
        summaries: dict[str, GameSummary] = {}

        async def play(mesh: Mesh, name: str, join: Callable[[], Awaitable[LobbyResult]],
                       then: Callable[[], None] = lambda: None) -> None:
            result = await join()
            then()
            seat = TablePeer(mesh, result, ids[result.seat], log_path=tmp_path / f"{name}.bandit-log", bot=NormalBot(),
                             seed=result.seat)
            summaries[name] = await seat.run()

        async with link_proxy((LOOPBACK, carol.port)) as route:
            carol.port = route.port  # (her hello names the route's port: the host's and bob's dials take it)
            with trio.fail_after(60):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(play, host, "h", lambda: host_table(
                        host, name="h", table="Hiccup", seats=3, rules=TableRules(target=20)))
                    await trio.testing.wait_all_tasks_blocked()
                    nursery.start_soon(play, bob, "bob", lambda: join_table(
                        bob, [(LOOPBACK, host.port)], name="bob", expect_host=host.me))
                    await trio.testing.wait_all_tasks_blocked()  # (bob takes seat 1: he dials carol)
                    nursery.start_soon(play, carol, "carol", lambda: join_table(
                        carol, [(LOOPBACK, host.port)], name="carol", expect_host=host.me),
                        lambda: route.drop(2))  # bob's dial of carol: the host's came first
    assert route.connections == 3  # bob dialled her again
    # (his game begins with her link up: not lost, then back, `links_settled`)
    assert [type(e).__name__ for e in handed if isinstance(e, (LinkUp, LinkDown)) and e.peer == carol.me] == ["LinkUp"]
    assert all(s.finished for s in summaries.values()), summaries
    assert len({(s.game_id, tuple(s.totals.items())) for s in summaries.values()}) == 1
    for name in ("h", "bob", "carol"):
        assert audit(tmp_path / f"{name}.bandit-log").ok


async def test_s10_1_a_seat_whose_journal_cannot_be_written_as_it_signs_ends_the_lobby_saying_why(
        tmp_path: Path) -> None:
    """carol's journal cannot be written as she signs the roster (§11.3: her state
    directory is a file, or the disk is full). Her signature never goes out; her lobby
    ends with the failed write, and every other lobby ends at once, told why (§6.6):
    no game begins that she could not keep the records of."""
    import argparse

    from cli.game import SeatBook

    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("")
    ids = make_identities(tmp_path, 3)
    async with meshes(ids) as (host, bob, carol):
        book = SeatBook(carol, argparse.Namespace(state_dir=blocker, log=None, log_dir=tmp_path / "logs"))
        ended: dict[str, BaseException | LobbyResult] = {}
        play = partial(_lobby_ended, ended)

        async def carol_joins() -> None:
            with pytest.raises(OSError) as failed:
                await join_table(carol, [(LOOPBACK, host.port)], name="carol", expect_host=host.me,
                                 on_signing=book.sign)
            ended["carol"] = failed.value

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play, "h", lambda: host_table(host, name="h", table="Full disk", seats=3))
                await trio.testing.wait_all_tasks_blocked()
                nursery.start_soon(play, "bob", lambda: join_table(bob, [(LOOPBACK, host.port)], name="bob",
                                                                   expect_host=host.me))
                await trio.testing.wait_all_tasks_blocked()
                nursery.start_soon(carol_joins)
    assert isinstance(ended["carol"], NotADirectoryError) and book.seated is None
    for name in ("h", "bob"):
        assert re.fullmatch(r"§6\.6: the game will not start: carol could not keep this game's records \(Not a "
                            r"directory\) \(told by (carol|h)\)", str(ended[name])), ended[name]


async def test_s10_1_a_host_whose_journal_cannot_be_written_as_it_starts_tells_its_guests_why(
        tmp_path: Path) -> None:
    """The host's call to start (Enter) fails as its journal is written (§11.3): no start
    goes out, and its guest, holding no R, reads the host's ``lobby.fail`` when the host
    leaves: "the game will not start: h could not keep this game's records (…)", not "h
    closed the table" (§6.6)."""
    import argparse

    from cli.game import SeatBook

    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("")
    ids = make_identities(tmp_path, 2)
    async with meshes(ids) as (host, bob):
        book = SeatBook(host, argparse.Namespace(state_dir=blocker, log=None, log_dir=tmp_path / "logs"))
        ended: dict[str, BaseException | LobbyResult] = {}
        start = trio.Event()

        reported = trio.Event()

        def seated(change: RosterChanged) -> None:
            if len(change.roster.members) == 2 and not change.linking:
                reported.set()  # (bob is seated and linked: the host's call to start signs at once)

        async def host_starts() -> None:
            with pytest.raises(OSError) as failed:
                await host_table(host, name="h", table="Full disk", seats=3, start=start, on_roster=seated,
                                 on_signing=book.sign)
            ended["h"] = failed.value
            await host.aclose()  # (its program ends: goodbye on every link)

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host_starts)
                await trio.testing.wait_all_tasks_blocked()
                nursery.start_soon(_lobby_ended, ended, "bob", lambda: join_table(
                    bob, [(LOOPBACK, host.port)], name="bob", expect_host=host.me))
                await reported.wait()
                await trio.testing.wait_all_tasks_blocked()  # (the host took bob's report in)
                start.set()  # (Enter)
    assert isinstance(ended["h"], NotADirectoryError)
    assert str(ended["bob"]) == ("§6.6: the game will not start: h could not keep this game's records (Not a "
                                 "directory) (told by h)"), ended["bob"]


async def test_s6_4_a_joiner_of_another_release_is_named_on_the_host_s_screen_and_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """bob runs the next release and joins by address: he is told the table speaks another
    protocol, as before, and the host, whose screen said nothing (bob hung up after the
    offer), has one line naming bob, his address and why, in its log too."""
    from p2p.errors import OtherRelease
    from p2p.roster import PROTOCOL_VERSION
    from transport_support import next_release

    next_release(monkeypatch)
    ids = make_identities(tmp_path, 2)
    told: list[str] = []
    async with meshes(ids) as (host, bob):
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                await nursery.start(lambda task_status: host_table(host, name="h", table="T", seats=2,
                                                                   on_turned_away=told.append, task_status=task_status))
                with pytest.raises(OtherRelease, match=f"the table speaks bandit-lan protocol {PROTOCOL_VERSION} and "
                                                       f"this program speaks {PROTOCOL_VERSION + 1}"):
                    await join_table(bob, [(LOOPBACK, host.port)], name="bob", expect_host=host.me)
                nursery.cancel_scope.cancel()
    line = (f"bob ({LOOPBACK}) could not join: they run bandit-lan protocol {PROTOCOL_VERSION + 1} and this table "
            f"{PROTOCOL_VERSION}; the same release is needed on both machines.")
    assert told == [line]
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records if line in r.getMessage()] == [
        ("bandit_lan.lobby", "WARNING", line)]


async def test_s6_4_a_flood_of_joiners_of_another_release_is_a_line_now_and_then(
        mock_clock: trio.testing.MockClock) -> None:
    """Joiners of another release turned away one after the other are told at once for
    the first, then in one line every `TOLD_EVERY` seconds naming the latest and counting
    the others: a flood of them cannot flood the host's screen or log."""
    from types import SimpleNamespace

    from p2p.lobby import TurnedAway
    from p2p.lobby_runner import TOLD_EVERY, _Driver

    told: list[str] = []
    driver = _Driver(_QuietMesh(), None, on_turned_away=told.append)  # type: ignore[arg-type]
    lobby = SimpleNamespace(roster=SimpleNamespace(version=1), signing=False, awaited=frozenset)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(driver.run, lobby)
        await trio.testing.wait_all_tasks_blocked()
        for n in range(50):
            driver.apply([TurnedAway(f"bot{n}", f"10.0.0.{n}", 9)])
        await trio.testing.wait_all_tasks_blocked()
        assert [line.split(" could not join")[0] for line in told] == ["bot0 (10.0.0.0)"]
        mock_clock.jump(TOLD_EVERY - 0.5)
        await trio.testing.wait_all_tasks_blocked()
        assert len(told) == 1
        mock_clock.jump(0.5)
        await trio.testing.wait_all_tasks_blocked()
        assert len(told) == 2 and told[1].startswith("bot49 (10.0.0.49) could not join: they run bandit-lan protocol 9")
        assert told[1].endswith("(48 more turned away since).")
        mock_clock.jump(TOLD_EVERY * 3)
        await trio.testing.wait_all_tasks_blocked()
        assert len(told) == 2  # (nothing more came)
        driver.apply([TurnedAway("bob", "10.0.0.7", 9)])
        assert len(told) == 3 and told[2].startswith("bob (10.0.0.7)") and "more" not in told[2]
        nursery.cancel_scope.cancel()


async def test_s6_3_a_joiner_seated_after_a_wrong_code_is_no_longer_told_of(mock_clock: trio.testing.MockClock) -> None:
    """bob gives a wrong code, and again, then the right one: once he is seated the line
    naming him is taken back (None), and the line held back for his second try is not
    told `TOLD_EVERY` seconds later; carol's wrong code, held back with his, still is, and
    alone."""
    from types import SimpleNamespace

    from p2p.lobby import RosterChanged, TurnedAway
    from p2p.lobby_runner import TOLD_EVERY, _Driver

    told: list[str | None] = []
    driver = _Driver(_QuietMesh(), None, on_turned_away=told.append)  # type: ignore[arg-type]
    lobby = SimpleNamespace(roster=SimpleNamespace(version=1), signing=False, awaited=frozenset)
    bob, carol = (TurnedAway(name, f"10.0.0.{n}", 9, "bad-code", bytes([n]) * 32)
                  for n, name in ((7, "bob"), (8, "carol")))

    def seated(*who: TurnedAway) -> RosterChanged:
        return RosterChanged(SimpleNamespace(members=[SimpleNamespace(peer_id=w.peer) for w in who]))  # type: ignore[arg-type]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(driver.run, lobby)
        await trio.testing.wait_all_tasks_blocked()
        driver.apply([bob, bob])
        assert [line.split(" could not")[0] for line in told if line] == ["bob (10.0.0.7)"]
        driver.apply([seated(bob)])
        assert told[1:] == [None]
        driver.apply([seated(bob)])  # (a later change of the roster takes back nothing more)
        assert told[1:] == [None]
        mock_clock.jump(TOLD_EVERY)
        await trio.testing.wait_all_tasks_blocked()
        assert told[1:] == [None]  # (his second try is not told once he sits)
        driver.apply([carol])
        assert len(told) == 3 and told[2] is not None and told[2].startswith("carol (10.0.0.8) could not join")
        driver.apply([carol, bob, seated(bob)])  # (held back; the line told names carol: it stands)
        assert len(told) == 3
        mock_clock.jump(TOLD_EVERY)
        await trio.testing.wait_all_tasks_blocked()
        assert len(told) == 4 and told[3] == told[2]  # (bob, seated, is not counted among those turned away)
        nursery.cancel_scope.cancel()
