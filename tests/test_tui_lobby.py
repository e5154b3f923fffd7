"""§5, §6 on screen: the lobby screens over real TLS meshes on 127.0.0.1 and real mDNS."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio
from transport_support import LOOPBACK, make_identities, meshes
from tui_support import ScreenHarness

from p2p.discovery import TableAd, advertise
from p2p.errors import JoinRefused
from p2p.lobby import GuestLobby, LobbyResult
from p2p.lobby_runner import StartCall, host_table, join_table
from p2p.identity import short_id
from p2p.roster import PROTOCOL_VERSION
from p2p.transport import Mesh
from cli.tui import host_lobby_screen, join_lobby_screen, pick_table_screen

LO = ["127.0.0.1"]

pytestmark = pytest.mark.xdist_group("mdns")  # one worker runs the mDNS tests, one at a time (pyproject.toml)


async def test_host_screen_shows_the_roster_as_it_fills_and_enter_starts_early(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 2)
    harness = ScreenHarness()
    got: dict[str, LobbyResult | None] = {}
    tell, warnings = trio.open_memory_channel[str](1)
    async with meshes(ids) as (host, guest), harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:

                async def run_host() -> None:
                    got["host"] = await host_lobby_screen(harness.terminal, host, name="alice", table="Friday",
                                                          seats=4, join_hint="bandit-lan join 'Friday'",
                                                          warnings=(warnings,))

                nursery.start_soon(run_host)
                await harness.wait_for_text('Hosting "Friday" — 1 of 4 seats taken', "seat 2  (free)")
                harness.press("enter")
                await harness.wait_for_text("A game needs at least two players.")

                async def run_guest() -> None:
                    got["guest"] = await join_table(guest, [(LOOPBACK, host.port)], name="bob", expect_host=host.me)

                nursery.start_soon(run_guest)
                text = await harness.wait_for_text("2 of 4 seats taken", "bob")
                assert ids[1].short in text and "Enter start now with 2 players" in text
                assert "A game needs at least two players." not in text  # (no longer true: it goes)
                # `host --bots`: a bot process that fails is told at once, not after the game
                await tell.send("Ada (bot) could not sit down (exited with status 1); its seat is free for a player")
                await harness.wait_for_text("Ada (bot) could not sit down")
                harness.press("enter")
    host_result, guest_result = got["host"], got["guest"]
    assert host_result is not None and guest_result is not None
    assert host_result.game_id == guest_result.game_id
    assert [m.name for m in host_result.roster.members] == ["alice", "bob"]


async def test_s6_5_host_screen_says_who_left_the_lobby_and_how(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A member that leaves before the start does not vanish from the host's roster
    without a word: the screen says who and how; the seat is free again."""
    ids = make_identities(tmp_path, 2)
    harness = ScreenHarness()
    linked = trio.Event()  # bob holds his mesh link to the host (so he leaves over it, saying bye)
    link_up = GuestLobby.on_link_up

    def on_link_up(self: GuestLobby, peer: bytes) -> list:  # type: ignore[type-arg]
        linked.set()
        return link_up(self, peer)

    monkeypatch.setattr(GuestLobby, "on_link_up", on_link_up)
    async with meshes(ids[:1]) as (host,), harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                await alice_opens_friday(harness, host, nursery)
                async with meshes(ids[1:]) as (guest,):  # bob joins, then closes his end
                    with trio.move_on_after(5) as waiting:  # (the lobby runs until the start)
                        async with trio.open_nursery() as joining:
                            joining.start_soon(lambda: join_table(guest, [(LOOPBACK, host.port)], name="bob",
                                                                  expect_host=host.me))
                            await harness.wait_for_text("2 of 3 seats taken", "bob")
                            await linked.wait()
                            joining.cancel_scope.cancel()
                    assert not waiting.cancelled_caught
                text = await harness.wait_for_text("bob left the table.", "1 of 3 seats taken")
                assert "seat 2  (free)" in text
                nursery.cancel_scope.cancel()


async def test_s6_4_the_host_screen_names_a_joiner_of_another_release(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bob runs the next release and joins by address: the host's screen, which said
    nothing, names him, his address and why he could not join, on a line of its own."""
    from p2p.errors import OtherRelease
    from transport_support import next_release

    next_release(monkeypatch)
    ids = make_identities(tmp_path, 2)
    harness = ScreenHarness()
    async with meshes(ids) as (host, bob), harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                await alice_opens_friday(harness, host, nursery)
                with pytest.raises(OtherRelease):
                    await join_table(bob, [(LOOPBACK, host.port)], name="bob", expect_host=host.me)
                text = await harness.wait_for_text(
                    f"bob (127.0.0.1) could not join: they run bandit-lan protocol {PROTOCOL_VERSION + 1} and this",
                    "the same release is needed on both machines.")
                assert "1 of 3 seats taken" in text and "seat 2  (free)" in text
                assert re.search(r"\b\d\d:\d\d bob \(127\.0\.0\.1\) could not join", text)  # (when: it stays)
                nursery.cancel_scope.cancel()


async def test_the_host_screen_names_the_join_command_as_this_program_was_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Given no hint, the host screen builds `… join Friday` itself: after the quick start
    (`.venv/bin/bandit-lan`, no environment activated) it names that script, as every
    printed command does (`cli.commands.this_program`)."""
    import sys
    import types

    from test_shell_words import console_script

    ids = make_identities(tmp_path, 1)
    console_script(tmp_path / ".venv" / "bin")
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [".venv/bin/bandit-lan", "host"])
    monkeypatch.setenv("PATH", "/nowhere")
    harness = ScreenHarness()
    async with meshes(ids) as (host,), harness.open():
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                await alice_opens_friday(harness, host, nursery)
                await harness.wait_for_text(".venv/bin/bandit-lan join Friday")
                nursery.cancel_scope.cancel()


def test_the_empty_table_list_names_the_host_command_as_this_program_was_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The list of tables, empty, told the player to ask for `bandit-lan host` by the
    bare name, which no shell finds after the quick start: it names the program as every
    printed command does (`cli.commands.this_program`), here `.venv/bin/bandit-lan`; on
    a row of its own, whole, where the sentence does not fit on one."""
    import sys
    import types

    from cli.tui.lobby_view import BrowseScene
    from test_shell_words import console_script

    console_script(tmp_path / ".venv" / "bin")
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [".venv/bin/bandit-lan", "join"])
    monkeypatch.setenv("PATH", "/nowhere")
    rows = [row.strip() for row in BrowseScene((), 0, looking=True).draw(100, 24).text().splitlines()]
    assert rows[2] == "No table with a free seat yet. Ask the host to run `.venv/bin/bandit-lan host`.", rows
    program = "/home/someone/projects/bandit-lan/.venv/bin/python -m cli"  # (started so: never broken at 80)
    monkeypatch.setattr("cli.tui.lobby_view.this_program", lambda: program)
    for columns in (80, 100):
        rows = [row.strip() for row in BrowseScene((), 0, looking=True).draw(columns, 24).text().splitlines()]
        assert rows[2:4] == ["No table with a free seat yet. Ask the host to run:", f"{program} host"], rows


async def test_s6_3_a_joiner_turned_away_for_a_wrong_code_then_seated_is_no_longer_named(tmp_path: Path) -> None:
    """bob mistypes the table code, then gives the right one and sits down: the host's
    screen named him as turned away, and went on doing so beside his seat."""
    ids = make_identities(tmp_path, 2)
    harness = ScreenHarness()
    async with meshes(ids) as (host, bob), harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: host_lobby_screen(harness.terminal, host, name="alice", table="Coded",
                                                             seats=3, code="sesame"))
                await harness.wait_for_text("1 of 3 seats taken")
                with pytest.raises(JoinRefused, match="wrong table code"):
                    await join_table(bob, [(LOOPBACK, host.port)], name="bob", code="open", expect_host=host.me)
                await harness.wait_for_text("bob (127.0.0.1) could not join: the table code they gave is wrong")
                nursery.start_soon(lambda: join_table(bob, [(LOOPBACK, host.port)], name="bob", code="sesame",
                                                      expect_host=host.me))
                text = await harness.wait_for(lambda text: "2 of 3 seats taken" in text and "could not join" not in text,
                                              "bob seated, and no longer named as turned away")
                assert "bob" in text
                nursery.cancel_scope.cancel()


async def alice_opens_friday(harness: ScreenHarness, mesh: Mesh, nursery: trio.Nursery) -> None:
    """alice's host screen for "Friday", three seats, on `harness`, run in `nursery`, once
    it shows her seated."""
    terminal = harness.terminal
    assert terminal is not None
    nursery.start_soon(lambda: host_lobby_screen(terminal, mesh, name="alice", table="Friday", seats=3))
    await harness.wait_for_text("1 of 3 seats taken")


async def alice_hosts_friday(harness: ScreenHarness, mesh: Mesh, got: dict[str, LobbyResult | None]) -> None:
    """alice's host screen for "Friday", four seats, on `harness`; its result in got["host"]."""
    assert harness.terminal is not None
    got["host"] = await host_lobby_screen(harness.terminal, mesh, name="alice", table="Friday", seats=4)

async def test_s6_6_the_host_screen_names_whom_the_start_waits_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host presses Enter while bob has not yet said he holds every link: his seat
    shows him linking and the note names him, instead of claiming the signing is under
    way; once his report comes, the game starts."""
    ids = make_identities(tmp_path, 2)
    harness = ScreenHarness()
    got: dict[str, LobbyResult | None] = {}
    async with meshes(ids) as (host, guest), harness.open():
        held: list[tuple[bytes, dict]] = []  # type: ignore[type-arg]
        reported = trio.Event()  # (bob's report is written, and held)
        send = guest.send

        def hold(peer: bytes, message: dict) -> None:  # type: ignore[type-arg]
            if message["type"] != "lobby.links":
                return send(peer, message)
            held.append((peer, message))
            reported.set()

        monkeypatch.setattr(guest, "send", hold)
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:

                async def run_guest() -> None:
                    got["guest"] = await join_table(guest, [(LOOPBACK, host.port)], name="bob", expect_host=host.me)

                nursery.start_soon(alice_hosts_friday, harness, host, got)
                await harness.wait_for_text("1 of 4 seats taken")
                nursery.start_soon(run_guest)
                await harness.wait_for_text("2 of 4 seats taken", "bob")
                await reported.wait()
                harness.press("enter")
                text = await harness.wait_for_text("Starting once bob holds a link to every other player…")
                assert "bob" in text and "… linking with the others" in text
                assert "every player signs" not in text
                for peer, message in held:
                    send(peer, message)
    host_result, guest_result = got["host"], got["guest"]
    assert host_result is not None and guest_result is not None
    assert [m.name for m in host_result.roster.members] == ["alice", "bob"]


async def test_s6_6_the_host_can_start_again_after_everyone_it_would_have_started_with_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host presses Enter with bob, who never reports his links and is let go
    (`REPORT_WAIT`): the lobby forgets the call and the table is open again, and so does
    the screen, which no longer says it is starting. carol joins, Enter starts with her."""
    from p2p import lobby_runner

    monkeypatch.setattr(lobby_runner, "REPORT_WAIT", 1.0)
    ids = make_identities(tmp_path, 3)
    harness = ScreenHarness()
    got: dict[str, LobbyResult | None] = {}
    async with meshes(ids) as (host, bob, carol), harness.open():
        send = bob.send
        monkeypatch.setattr(bob, "send", lambda peer, message: None if message["type"] == "lobby.links"
                            else send(peer, message))
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:

                async def run_guest(mesh: Mesh, name: str) -> None:
                    try:
                        got[name] = await join_table(mesh, [(LOOPBACK, host.port)], name=name, expect_host=host.me)
                    except JoinRefused:
                        got[name] = None

                nursery.start_soon(alice_hosts_friday, harness, host, got)
                await harness.wait_for_text("1 of 4 seats taken")
                nursery.start_soon(run_guest, bob, "bob")
                await harness.wait_for_text("2 of 4 seats taken", "bob")
                harness.press("enter")
                await harness.wait_for_text("Starting once bob holds a link")
                text = await harness.wait_for_text("bob had to leave: did not report its links", "1 of 4 seats taken")
                assert "Starting" not in text and "Waiting for players" in text
                nursery.start_soon(run_guest, carol, "carol")
                await harness.wait_for_text("2 of 4 seats taken", "carol", "Enter start now with 2 players")
                harness.press("enter")
    assert got["bob"] is None
    host_result, carol_result = got["host"], got["carol"]
    assert host_result is not None and carol_result is not None and host_result.game_id == carol_result.game_id
    assert [m.name for m in host_result.roster.members] == ["alice", "carol"]

async def test_join_screen_asks_for_the_table_code_and_retries(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 2)
    harness = ScreenHarness()
    got: dict[str, LobbyResult | None] = {}
    async with meshes(ids) as (host, guest), harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:

                async def run_host(task_status: trio.TaskStatus[StartCall]) -> None:
                    got["host"] = await host_table(host, name="alice", table="Coded", seats=2, code="sesame",
                                                   task_status=task_status)

                await nursery.start(run_host)
                got["guest"] = None

                async def run_guest() -> None:
                    got["guest"] = await join_lobby_screen(harness.terminal, guest, [(LOOPBACK, host.port)],
                                                           name="bob", expect_host=host.me, what='"Coded"')

                nursery.start_soon(run_guest)
                text = await harness.wait_for_text("Table code:")
                # (asked, not refused: the joiner's own reading of the host's offer, no reply of the host)
                # (no host screen shows the code: the joiner is not sent looking for it there)
                assert "This table asks for a code: type the one its host chose (the host's screen does not " \
                       "show it)." in " ".join(text.split()), text
                assert "The host says" not in text and "needs a code" not in text, text
                assert f"Host fingerprint {ids[0].short} (verified)" in text
                harness.press("o", "p", "e", "n", "enter")
                text = await harness.wait_for_text("The host says: wrong table code", "Table code:")
                harness.press(*"sesame", "enter")
    assert got["guest"] is not None and got["host"] is not None
    assert got["guest"].game_id == got["host"].game_id


async def test_pick_table_screen_lists_the_tables_found_by_mdns() -> None:
    ad = TableAd(table="Kitchen table", host="alice", seats=4, free=2, proto=PROTOCOL_VERSION,
                 fingerprint=bytes(range(32)), port=40123, addresses=("127.0.0.1",), code=True)
    full = TableAd(table="Full table", host="carol", seats=2, free=0, proto=PROTOCOL_VERSION,
                   fingerprint=bytes(range(1, 33)), port=40124, addresses=("127.0.0.1",))
    newer = TableAd(table="Newer table", host="dan", seats=3, free=2, proto=PROTOCOL_VERSION + 1,
                    fingerprint=bytes(range(2, 34)), port=40125, addresses=("127.0.0.1",))
    harness = ScreenHarness()
    with trio.fail_after(40):
        async with advertise(ad, interfaces=LO) as advert, advertise(full, interfaces=LO) as advert_full, \
                advertise(newer, interfaces=LO) as advert_newer, harness.open():
            assert harness.terminal is not None
            await advert.published.wait()
            await advert_full.published.wait()
            await advert_newer.published.wait()
            picked: list[object] = []

            async def pick() -> None:
                picked.append(await pick_table_screen(harness.terminal, interfaces=LO))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(pick)
                text = await harness.wait_for_text("Kitchen table", "alice", "2/4", "Newer table", timeout=30)
                assert "Full table" not in text  # only tables with a free seat
                # other tables may be on the LAN (the host of the test before this one was seen here):
                # pick ours by its number, as a player would, then take it
                rows = text.split("TABLE", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
                newer_row = next(i for i, row in enumerate(rows, start=1) if "Newer table" in row)
                assert f"another bandit-lan version (protocol {PROTOCOL_VERSION + 1})" in rows[newer_row - 1]
                kitchen = next(row for row in rows if "Kitchen table" in row)
                assert " 2/4  yes  " in kitchen and kitchen.rstrip().endswith(short_id(ad.fingerprint)), kitchen  # (§5.2)
                assert newer_row > next(i for i, row in enumerate(rows, start=1) if "Kitchen table" in row)  # listed last
                harness.press(str(newer_row), "enter")  # another version: not joined, and told why
                await harness.wait_for_text(f"'Newer table' speaks bandit-lan protocol {PROTOCOL_VERSION + 1}")
                rows = (await harness.wait_for_text("Kitchen table")).split("TABLE", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
                number = next(i for i, row in enumerate(rows, start=1) if "Kitchen table" in row)
                harness.press(str(number))
                harness.press("enter")
    assert picked == [ad]


@pytest.mark.parametrize("how", ["typed", "pasted"])
async def test_pick_table_screen_takes_a_typed_or_pasted_address(how: str) -> None:
    """Terminals send a paste bracketed, as one event: the address and code fields, which
    took one character a key, dropped it. It is typed in as if typed."""
    async def nothing(timeout: float, **kw: object) -> list[TableAd]:
        await trio.sleep(timeout)
        return []

    harness = ScreenHarness()
    picked: list[object] = []
    with trio.fail_after(30):
        async with harness.open():
            assert harness.terminal is not None

            async def pick() -> None:
                picked.append(await pick_table_screen(harness.terminal, find=nothing))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(pick)
                await harness.wait_for_text("No table with a free seat yet")
                if how == "typed":
                    harness.press("p", *"192.168.1.20:4123x", "backspace", "enter")
                else:
                    harness.press("p")
                    await harness.wait_for_text("Address (HOST:PORT):")
                    harness.pipe.send_text("\x1b[200~192.168.1.20:4123\x1b[201~")
                    await harness.wait_for_text("192.168.1.20:4123")
                    harness.press("enter")
    assert picked == [("192.168.1.20", 4123)]


async def test_s6_6_both_screens_say_while_a_dropped_link_is_being_made_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The host's link to bob drops in the lobby and its redial waits on the route: the
    host's screen shows bob as reconnecting (his seat is kept), and bob, headless, prints
    that the connection to the host dropped. Once the route is back, both say so."""
    from tests.faultproxy import link_proxy

    from cli.lobby_common import roster_progress

    ids = make_identities(tmp_path, 2)
    harness = ScreenHarness()
    linked = trio.Event()  # bob reported his links (the host's link to him is up)
    link_up = GuestLobby.on_link_up

    def on_link_up(self: GuestLobby, peer: bytes) -> list:  # type: ignore[type-arg]
        actions = link_up(self, peer)
        linked.set()
        return actions

    monkeypatch.setattr(GuestLobby, "on_link_up", on_link_up)
    async with meshes(ids) as (host, guest), harness.open(), link_proxy((LOOPBACK, guest.port)) as route:
        assert harness.terminal is not None
        guest.port = route.port  # (bob's hello names the route: the host dials him through it)
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                await alice_opens_friday(harness, host, nursery)
                nursery.start_soon(lambda: join_table(guest, [(LOOPBACK, host.port)], name="bob", expect_host=host.me,
                                                      on_roster=roster_progress(guest.me)))
                await linked.wait()
                await harness.wait_for_text("bob", "✓ seated")
                route.hold()  # the route is down for a while: the host's redial waits on it
                route.drop(1)
                text = await harness.wait_for_text("The connection to bob dropped; reconnecting…", "… reconnecting")
                assert "2 of 3 seats taken" in text  # he keeps his seat
                route.restore()
                text = await harness.wait_for_text("Reconnected to bob.")
                assert "… reconnecting" not in text and text.count("✓ seated") == 2
                nursery.cancel_scope.cancel()
    printed = capsys.readouterr().out.splitlines()
    lost = printed.index("The connection to alice dropped; reconnecting…")
    assert "Reconnected to alice." in printed[lost + 1:]
    assert printed.count("2 of 3 seats taken:") == 1  # (news alone does not repeat the roster)


async def test_s6_6_both_screens_say_once_the_seating_is_being_signed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host starts with three of four seats taken (Enter), so the roster is frozen and
    every member signs it (§6.6): from then on the host's screen no longer offers Enter
    nor shows the fourth seat free (it is not played), bob's no longer says it waits for
    the table to fill, the question bob had open (leaving while seats were free) is
    closed, and leaving is told for what it is now. (carol never answers the start here,
    so the signing lasts; before, both screens went on as if nothing had been started.)"""
    ids = make_identities(tmp_path, 3)
    at_host, at_bob = ScreenHarness(), ScreenHarness()
    on_start = GuestLobby._on_start

    def deaf_carol(self: GuestLobby, canonical: bytes, host_sig: bytes) -> list:  # type: ignore[type-arg]
        return [] if self._sigs.me.peer_id == ids[2].peer_id else on_start(self, canonical, host_sig)

    monkeypatch.setattr(GuestLobby, "_on_start", deaf_carol)
    journaled: list[int] = []  # (each screen passes the signing on: the seat's journal is written first)
    async with meshes(ids) as (host, bob, carol), at_host.open(), at_bob.open():
        assert at_host.terminal is not None and at_bob.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: host_lobby_screen(at_host.terminal, host, name="alice", table="Friday",
                                                             seats=4, on_signing=lambda s: journaled.append(s.seat)))
                await at_host.wait_for_text("1 of 4 seats taken")
                nursery.start_soon(lambda: join_lobby_screen(at_bob.terminal, bob, [(LOOPBACK, host.port)],
                                                             name="bob", expect_host=host.me,
                                                             on_signing=lambda s: journaled.append(s.seat)))
                await at_bob.wait_for_text("Waiting for the table to fill or the host to start…")
                nursery.start_soon(lambda: join_table(carol, [(LOOPBACK, host.port)], name="carol",
                                                      expect_host=host.me))
                await at_host.wait_for_text("Enter start now with 3 players", "seat 4  (free)")
                at_bob.press("ctrl-c")
                await at_bob.wait_for_text("Leave this table?", "You can join again while seats are free.")
                at_host.press("enter")
                text = await at_host.wait_for_text("Starting: every player signs the seating…")
                assert "3 of 4 seats taken" in text and "start now" not in text and "seat 4" not in text, text
                text = await at_bob.wait_for_text("Starting: every player signs the seating…")
                assert "Waiting for the table to fill" not in text and "Leave this table?" not in text, text
                assert "seat 4" not in text, text
                at_bob.press("ctrl-c")
                await at_bob.wait_for_text("Leave this table?", "The game is about to begin: leaving stops it for")
                at_host.press("ctrl-c")
                await at_host.wait_for_text("Close the table?", "The game is about to begin: closing stops it for")
                assert sorted(journaled) == [0, 1]
                nursery.cancel_scope.cancel()


async def test_s11_3_a_seat_taken_back_while_signing_shows_what_it_does_and_may_be_given_up() -> None:
    """`--resume` of a seat whose program stopped as the seating was being signed, for a
    person: the screen says what the resume found and that it gathers the signatures
    again (before, the full screen showed one line printed under it, cut off, for up to
    30 s, and Ctrl-C did nothing); Ctrl-C asks, and "y" gives the seat up."""
    from cli.tui import sign_again_screen

    harness = ScreenHarness()
    gathering = trio.Event()
    outcome: list[LobbyResult | None] = []

    async def never_signed() -> LobbyResult:
        gathering.set()
        await trio.sleep_forever()
        raise AssertionError

    async with harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:

                async def run() -> None:
                    outcome.append(await sign_again_screen(harness.terminal, [
                        "Taking your seat back at game 0a1b2c as carol (seat 3): this program stopped as the players "
                        "were signing the seating, before the game began ...",
                        "Port 4242 is taken by another program now: listening on 4343 and dialling every seat."],
                        never_signed))

                nursery.start_soon(run)
                await gathering.wait()
                text = await harness.wait_for_text("Taking your seat back", "as carol (seat 3)", "listening on 4343",
                                                   "sign the seating again (up to 30 s)", "Ctrl-C give up this seat")
                assert "Give up this seat?" not in text
                harness.press("ctrl-c")
                await harness.wait_for_text("Give up this seat?", "giving up ends their")
                harness.press("n")
                await harness.wait_for(lambda shown: "Give up this seat?" not in shown, "the question gone")
                harness.press("ctrl-c")
                await harness.wait_for_text("Give up this seat?")
                harness.press("y")
                await harness.wait_for_text("Telling the other players that you gave your seat up…")
    assert outcome == [None]

    async def signed() -> LobbyResult:
        return LobbyResult(b"\0" * 32, None, b"R", (), 2)  # type: ignore[arg-type]

    async with harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            got = await sign_again_screen(harness.terminal, [], signed)
    assert got is not None and got.seat == 2


def test_the_lobby_questions_wrap_on_a_narrow_terminal() -> None:
    """At 40 columns the question's line is wrapped inside its box, not cut ("The game is
    about to begi…")."""
    from cli.tui.lobby_view import JoinScene, ReturnScene

    for scene, words in ((JoinScene("Friday", "", (), 3, "starting", quitting=True), "stops it for everyone."),
                         (ReturnScene(("Taking your seat back…",), 30, quitting=True), "ends their game.")):
        text = scene.draw(40, 16).text()
        assert words in text and "…│" not in text, text


def test_the_lobby_screens_wrap_rather_than_cut_on_a_narrow_terminal() -> None:
    """At 40 columns every line of the lobby screens was cut ("Ask th", a fingerprint
    "K3J9-AA", the help bar "{C…" with its braces showing, a seat's "✓ seated" gone): each
    now wraps, a roster's row and a table's entry flow on under it, and the help bar
    takes two rows, so every word is there and nothing a player compares is split."""
    from cli.tui.lobby_view import BrowseScene, HostScene, JoinScene, Note, ReturnScene, Seat

    seats = (Seat(0, "alice", "NW77-F6HD-L3JV-RRPS", True, True),
             Seat(1, "bartholomew-the-long", "K3J9-7TRM-PA4C-VE9D", False, False, reconnecting=True),
             Seat(2, "cy", "K2QX-7TRM-PA4C-AB12", False, False, linking=True))
    kitchen = TableAd(table="Kitchen table", host="alice", seats=4, free=2, proto=PROTOCOL_VERSION,
                      fingerprint=bytes(range(32)), port=40123, addresses=("192.168.100.200",), code=True)
    newer = TableAd(table="Newer table", host="dan", seats=3, free=2, proto=PROTOCOL_VERSION + 1,
                    fingerprint=bytes(range(2, 34)), port=40125, addresses=("127.0.0.1",))
    screens = {
        HostScene("Friday night", 4, seats, "NW77-F6HD-L3JV-RRPS",
                  "bandit-lan join 'Friday night'   or   bandit-lan join --peer 192.168.1.20:41234", True, False,
                  turned_away=Note("bob (192.168.1.7) could not join: they run bandit-lan protocol 5 and this table 4; "
                                   "the same release is needed on both machines.", "warning")): (
            'Hosting "Friday night" — 3 of 4 seats taken', "bandit-lan join 'Friday night' or bandit-lan join --peer "
            "192.168.1.20:41234", "players who joined by address compare it with this screen",
            "seat 2 bartholomew-the-long K3J9-7TRM-PA4C-VE9D … reconnecting", "seat 4 (free)",
            "seat 3 cy K2QX-7TRM-PA4C-AB12 … linking with the others", "host you ✓ seated",
            "the same release is needed on both machines.", "Enter start now with 3 players", "Ctrl-C close the table"),
        BrowseScene((kitchen, newer), 0, looking=False, entry="192.168.1.20:4123"): (
            "▶ Kitchen table alice 2/4 code 192.168.100.200:40123", short_id(kitchen.fingerprint),
            f"Newer table dan another bandit-lan version (protocol {PROTOCOL_VERSION + 1})",
            "Address (HOST:PORT): 192.168.1.20:4123█", "Enter join this address", "Esc back to the list"),
        BrowseScene((), 0, looking=True): (
            "No table with a free seat yet. Ask the host to run: bandit-lan host",  # (at 40: the command on its row)
            "↑ ↓ choose · Enter join", "Ctrl-C quit"),
        JoinScene('"Friday night"', "", (), 4, "code", entry="abc"): (
            "This table needs its code (ask the host; it never travels over the network).", "Table code: •••█",
            "Enter join with this code", "Esc give up"),
        JoinScene('"Friday night"', "Host fingerprint NW77-F6HD-L3JV-RRPS (verified).", seats, 4, "waiting"): (
            "Waiting for the table to fill or the host to start…", "NW77-F6HD-L3JV-RRPS"),
        ReturnScene(("Taking your seat back at game 0a1b2c as carol (seat 3).",), 30): (
            "Reaching the other players, who sign the seating again (up to 30 s)…", "Ctrl-C give up this seat"),
    }
    wholes = ("NW77-F6HD-L3JV-RRPS", "K3J9-7TRM-PA4C-VE9D", short_id(kitchen.fingerprint), "✓ seated",
              "Ctrl-C close the table", "Enter join with this code", "192.168.100.200:40123")
    shown: set[str] = set()
    for scene, phrases in screens.items():
        text = scene.draw(40, 30).text()  # type: ignore[attr-defined]
        rows = text.splitlines()
        flowing = " ".join(text.split())
        for phrase in phrases:
            assert " ".join(phrase.split()) in flowing, (phrase, text)
        for whole in wholes:
            if whole in flowing:
                assert any(whole in row for row in rows), (whole, text)  # (on one row)
                shown.add(whole)
        assert "{" not in text and all(len(row) <= 40 for row in rows), text
        for width, height in ((1, 1), (4, 30), (12, 8)):
            scene.draw(width, height)  # type: ignore[attr-defined]  # (draws, and returns)
    assert shown == set(wholes), set(wholes) - shown  # (every one was on some screen)


def test_the_roster_s_columns_line_up_at_60_columns_with_bots_names() -> None:
    """At 60 columns the host's row ("host you  ✓ seated") did not fit beside a name
    padded to "Ada (bot)", so every name lost its padding and the fingerprints stood
    where each name ended: the columns line up now, and a status that does not fit goes
    on under the name."""
    from cli.cells import text_width
    from cli.tui.lobby_view import HostScene, Seat

    seats = (Seat(0, "alice", "NW77-F6HD-L3JV-RRPS", True, True),
             Seat(1, "Ada (bot)", "K3J9-7TRM-PA4C-VE9D", False, False),
             Seat(2, "Bo (bot)", "K2QX-7TRM-PA4C-AB12", False, False, linking=True))
    for columns in (60, 80):
        text = HostScene("Friday", 4, seats, "NW77-F6HD-L3JV-RRPS", "bandit-lan join Friday", False, False).draw(
            columns, 24).text()
        rows = [row for row in text.splitlines() if row.lstrip().startswith("seat ")]
        assert [row.split()[2] for row in rows] == ["alice", "Ada", "Bo", "(free)"], text
        starts = {text_width(row[:row.index(seat.short)]) for row, seat in zip(rows, seats)}
        assert len(starts) == 1, text
        assert ("host you  ✓ seated" in text and "… linking with the others" in text
                and all(len(row) <= columns for row in text.splitlines())), text


def test_a_second_ctrl_c_does_not_answer_the_lobby_s_leave_question() -> None:
    """Closing the table (or giving up a seat) asks first, and a reflex double Ctrl-C
    is no answer: the question says so, in the table's words, and only Enter or y
    answers yes; Ctrl-C at a table not yet sat at (the picker, the code prompt) still
    leaves at once."""
    from cli.tui.dialog import LEAVE_AGAIN
    from cli.tui.lobby import _question
    from cli.tui.lobby_view import HostScene, JoinScene, ReturnScene

    for scene in (HostScene("Friday", 4, (), "NW77-F6HD-L3JV-RRPS", "bandit-lan join Friday", False, False),
                  JoinScene("Friday", "", (), 3, "waiting"), ReturnScene(("Taking your seat back…",), 30)):
        asked, leaving = _question(scene, "ctrl-c") or (scene, None)  # type: ignore[type-var]
        assert asked.quitting and leaving is False and LEAVE_AGAIN not in asked.draw(80, 24).text()
        again, leaving = _question(asked, "ctrl-c") or (asked, None)
        assert again.quitting and leaving is False
        assert LEAVE_AGAIN in again.draw(80, 24).text(), again.draw(80, 24).text()
        assert _question(again, "y") == (again, True)
        closed, _ = _question(again, "n") or (again, None)
        reopened, _ = _question(closed, "ctrl-c") or (closed, None)
        assert reopened.quitting and LEAVE_AGAIN not in reopened.draw(80, 24).text()  # (asked afresh)


def test_while_the_lobby_s_leave_question_is_open_its_help_bar_offers_only_the_question_s_keys() -> None:
    """While "Close the table? … Enter/y: yes" was open, the help bar under it still read
    "Enter start now with 3 players" (Enter answers the question, and closes the table):
    the help bar offers the question's keys, and the screen's own once it is answered."""
    from cli.tui.lobby import _question
    from cli.tui.lobby_view import HostScene, JoinScene, ReturnScene, Seat

    seats = tuple(Seat(i, name, "NW77-F6HD-L3JV-RRPS", i == 0, i == 0) for i, name in enumerate(("alice", "bob", "cy")))
    for scene, own in ((HostScene("Friday", 4, seats, "NW77-F6HD-L3JV-RRPS", "bandit-lan join Friday", False, False),
                        "Enter start now with 3 players · Ctrl-C close the table"),
                       (HostScene("Friday", 4, seats, "NW77-F6HD-L3JV-RRPS", "bandit-lan join Friday", False, True),
                        "Ctrl-C close the table"),
                       (JoinScene("Friday", "", seats, 4, "waiting"), "Ctrl-C leave"),
                       (ReturnScene(("Taking your seat back…",), 30), "Ctrl-C give up this seat")):
        assert scene.draw(80, 24).text().splitlines()[-1].strip() == own
        asked, _ = _question(scene, "ctrl-c") or (scene, None)  # type: ignore[type-var]
        for width in (80, 30):
            rows = asked.draw(width, 24).text().splitlines()
            assert "Enter/y: yes" in "\n".join(rows) and rows[-1].strip() == "Enter/y yes · Esc/n no", rows
            assert not any(word in "\n".join(rows[-3:]) for word in ("start", "Ctrl-C")), rows
        closed, _ = _question(asked, "n") or (asked, None)
        assert closed.draw(80, 24).text().splitlines()[-1].strip() == own


async def test_s5_3_the_host_screen_shows_the_join_command_a_namesake_calls_for_and_takes_it_back(
        tmp_path: Path) -> None:
    """While another table on the LAN has the host's table's name, the screen warns and
    shows the join command with the fingerprint; once the last has gone, the warning and
    that command go (they stayed, though `join Friday` worked again). Had other news come
    meanwhile, that stays."""
    from cli.lobby_common import JoinHint

    ids = make_identities(tmp_path, 1)
    harness = ScreenHarness(columns=160)
    tell, warnings = trio.open_memory_channel[str | JoinHint](1)
    plain, pinned = "bandit-lan join Friday   or   bandit-lan", "bandit-lan join Friday --fingerprint 1a2b   or"
    warned = JoinHint(f"{pinned} …", "Another table on this LAN is also called 'Friday' (hosted by Cy)", warning=True)
    gone = JoinHint(f"{plain} …", "The other table called 'Friday' is gone", warning=False)
    async with meshes(ids) as (host,), harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: host_lobby_screen(harness.terminal, host, name="alice", table="Friday",
                                                             seats=3, join_hint=f"{plain} …", warnings=(warnings,)))
                await harness.wait_for_text("1 of 3 seats taken", plain)
                await tell.send(warned)
                text = await harness.wait_for_text(pinned, "also called 'Friday' (hosted by Cy)")
                assert plain not in text
                await tell.send(gone)
                text = await harness.wait_for_text(plain, "The other table called 'Friday' is gone")
                assert pinned not in text and "also called" not in text
                await tell.send(warned)
                await harness.wait_for_text(pinned, "also called 'Friday' (hosted by Cy)")
                await tell.send("Ada (bot) could not sit down")
                await tell.send(gone)
                text = await harness.wait_for_text(plain, "Ada (bot) could not sit down")
                assert "is gone" not in text
                nursery.cancel_scope.cancel()


async def test_s6_4_the_host_screen_names_a_joiner_refused_for_a_lookalike_name(tmp_path: Path) -> None:
    """BOB is seated; carol's program comes as 'ВОВ' (Cyrillic letters): she reads why
    her name was refused, and the host's screen says it too, naming both."""
    ids = make_identities(tmp_path, 3)
    harness = ScreenHarness()
    async with meshes(ids) as (host, bob, carol), harness.open():
        assert harness.terminal is not None
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: host_lobby_screen(harness.terminal, host, name="alice", table="Friday",
                                                             seats=3))
                await harness.wait_for_text("1 of 3 seats taken")
                nursery.start_soon(lambda: join_table(bob, [(LOOPBACK, host.port)], name="BOB", expect_host=host.me))
                await harness.wait_for_text("2 of 3 seats taken")
                with pytest.raises(JoinRefused, match="reads the same"):
                    await join_table(carol, [(LOOPBACK, host.port)], name="\u0412\u041e\u0412", expect_host=host.me)
                text = await harness.wait_for_text("\u0412\u041e\u0412 (127.0.0.1) could not join under that name:")
                assert "'BOB' is already seated (seat 2)" in " ".join(text.split()), text
                nursery.cancel_scope.cancel()


def test_s5_3_the_host_screen_never_breaks_a_join_command_between_its_words_at_80_columns() -> None:
    """At 80 columns the host's screen wrapped its second join command mid-command
    ("… or   /…/python -m cli" / "join --peer 192.0.2.2:36655"): where the two do not fit
    one row, each goes on rows of its own, "or" between them."""
    from cli.lobby_common import OR
    from cli.tui.lobby_view import HostScene, Seat

    program = "/home/ana/bandit-lan/.venv/bin/python -m cli"
    commands = [f"{program} join 'Friday'", f"{program} join --peer 192.0.2.2:36655"]
    scene = HostScene(table="Friday", seats=4, members=(Seat(0, "alice", "NW77-F6HD-L3JV-RRPS", True, True),),
                      fingerprint="NW77-F6HD-L3JV-RRPS", join_hint=OR.join(commands), code=False, starting=False)
    canvas = scene.draw(80, 24)
    rows = [canvas.row_text(y).rstrip() for y in range(24)]
    start = rows.index(" Others join with:") + 1
    assert rows[start:start + 3] == [f"   {commands[0]}", " or", f"   {commands[1]}"], rows
