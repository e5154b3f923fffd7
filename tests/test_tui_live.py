"""The client on a live table: real peers on loopback TLS in this process (§7, §9)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
import trio.testing
from live_support import seat_live_table
from tui_support import ScreenHarness

from engine import Phase
from cli.tui import run_client
from cli.tui.model import TableModel
from p2p.log import read_log
from p2p.peer import TablePeer


async def test_s7_3_an_idle_table_does_not_wake_the_screen_for_its_heartbeats(tmp_path: Path) -> None:
    stack, (me, other) = await seat_live_table(tmp_path, 2)
    async with stack, _playing(me, other, 30):
        while True:  # the bot is ready; everything waits for me (R4.3)
            await me.changed()
            view = me.view()
            if view.phase is Phase.PEEK and view.ready[1] and not view.needs:
                break
        # Heartbeats come about once a second from each peer and change nothing on
        # the table, so they do not wake the screen (a spinning timer loop would
        # wake it thousands of times a second).
        heard = me._heard[1]  # noqa: SLF001 - when the other peer was last heard
        wakes = []
        with trio.move_on_after(2.5):
            while True:
                await me.changed()
                wakes.append(time.monotonic())
        assert me._heard[1] >= heard + 1.0  # noqa: SLF001 - its heartbeats kept coming
        assert len(wakes) <= 2, [round(w - wakes[0], 4) for w in wakes]
        await me.leave()


async def test_the_client_plays_a_live_seat_and_leaves_with_the_log_closed(tmp_path: Path) -> None:
    stack, (me, other) = await seat_live_table(tmp_path, 2)
    harness = ScreenHarness()
    async with stack, harness.open():
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(me.run)
                nursery.start_soon(other.run)
                nursery.start_soon(lambda: run_client(me, terminal=harness.terminal))
                await harness.wait_for_text("remember them")
                harness.press("enter")
                await harness.wait_for(lambda t: "Your turn: x draw" in t, "my turn", timeout=30)
                harness.press("x")
                text = await harness.wait_for_text("You drew")
                assert TableModel.capture(other).view.hand is not None  # the other seat sees my drawn card…
                assert TableModel.capture(other).view.hand.face is None  # …face down
                assert "[" in text.splitlines()[7][48:]  # and I see its value in the middle band
                harness.press("ctrl-c")
                await harness.wait_for_text("Leave the table?")
                harness.press("y")
                while not me.progress.ended:
                    await me.changed()
                nursery.cancel_scope.cancel()
    assert me.progress.ended_why == "you left the table"  # (its own screen's words)
    assert read_log(me.log.path).ended == f"{me.names[me.me]} left the table"  # (the log's: read by others)


async def test_s9_8_a_seat_told_to_stop_leaves_and_the_client_returns_without_a_key(tmp_path: Path) -> None:
    """What a stop signal does at a table (cli.stopping): `leave` with the signal's reason;
    the client, which nobody may be looking at, returns by itself."""
    stack, (me, other) = await seat_live_table(tmp_path, 2)
    harness = ScreenHarness()
    async with stack, harness.open(), _playing(me, other, 60, harness) as returned:
        await harness.wait_for_text("remember them")
        await me.leave("it was stopped")  # (as the signal handler calls it)
        await returned.wait()  # no key was pressed
        while not other.progress.ended:
            await other.changed()
    assert me.progress.ended_why == "you left the table"
    told = [line.text for line in other.lines]
    assert f"{me.names[0]} left the table (it was stopped); the game ends here (this round does not count)." in told
    assert other.progress.ended_why == f"{me.names[0]} left the table (it was stopped)"


async def test_s9_8_a_seat_told_to_stop_after_the_game_closes_its_final_standings_at_once(tmp_path: Path) -> None:
    """The game is over and the screen shows the final standings, waiting for Enter that
    nobody may press (the window was closed, the machine shuts down): a stop signal's
    `leave` closes the client at once, instead of the process waiting out its limit."""
    from p2p.roster import TableRules

    stack, (me, other) = await seat_live_table(tmp_path, 2, person=False, rules=TableRules(target=5))
    harness = ScreenHarness()
    async with stack, harness.open(), _playing(me, other, 120, harness) as returned:
        while not (me.progress.ended and other.progress.ended):
            await me.changed()
        await harness.wait_for_text("Enter: the final standings")  # the last round's screen
        harness.press("enter")
        await harness.wait_for_text("Game over")
        assert not returned.is_set()  # the final standings wait for the player
        await me.leave("it was stopped")  # (as the signal handler calls it)
        with trio.fail_after(10):  # (the process would give up after 10 s: STOP_WAIT)
            await returned.wait()
    assert me.progress.finished and me.progress.ended_why == "the game ended"
    assert not me.summary().left  # it finished the game; it did not leave it (`--json`, the exit status)


@asynccontextmanager
async def _playing(me: TablePeer, other: TablePeer, limit: float,
                   harness: ScreenHarness | None = None) -> AsyncIterator[trio.Event]:
    """Both peers play, `me` through the client on `harness` if given; yields the event
    set when the client returns. Leaving the block stops everything; all of it fails
    after `limit` s."""
    returned = trio.Event()

    async def client(harness: ScreenHarness) -> None:
        await run_client(me, terminal=harness.terminal)
        returned.set()

    with trio.fail_after(limit):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(me.run)
            nursery.start_soon(other.run)
            if harness is not None:
                nursery.start_soon(client, harness)
            yield returned
            nursery.cancel_scope.cancel()


async def test_R5_a_refused_move_is_told_as_play_on_every_screen_not_as_a_broken_rule(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A move the rules refuse (here a draw before the first turn) is part of play: the
    player's own screen says it did not count and why, in the error colour; another
    seat's says the same of that player, as a table line, never "broke the rules". The
    log's note is not also raised as a warning (a screen shows those on its prompt line)."""
    from engine import Draw

    stack, (me, other) = await seat_live_table(tmp_path, 2)
    async with stack, _playing(me, other, 30):
        while me.view().phase is not Phase.PEEK:
            await me.changed()
        me.submit(Draw(0))
        assert me.progress.sending == ("draw",)  # (on its way until the order delivers it: the screen holds keys)

        def told(peer: TablePeer) -> list[tuple[str, str]]:
            return [(line.text, line.kind) for line in peer.lines if "did not count" in line.text]

        while not (told(me) and told(other)):
            await (me if not told(me) else other).changed()
        assert me.progress.sending == ()  # (delivered, and refused: nothing is on its way)
        (mine, mine_kind), = told(me)
        (theirs, theirs_kind), = told(other)
        assert mine.startswith("Your draw did not count (R") and mine_kind == "error", mine
        assert theirs.startswith("Ann's draw did not count (R") and theirs_kind == "table", theirs
        assert mine.removeprefix("Your") == theirs.removeprefix("Ann's") and theirs.endswith(").")
        assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        await me.leave()


async def test_R4_s9_6_a_screen_that_runs_first_after_a_long_stop_keeps_the_look_at_the_bottom_cards(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Ann's program was stopped (Ctrl-Z) 2 s into her look at her bottom cards, for 15 s,
    longer than the others take to miss her (6 s). Running again, her screen's task ran
    before anything of her seat: it found the look's 10 s past, ended it and sent her
    "ready", and then the seat learned of the stop; she saw her cards for under a second.
    A screen that looks first after a stop learns of it: the look goes on for its 8 s."""
    from engine import Ready
    from live_support import running, until
    from cli.tui.table_ui import BOTTOM_PEEK_S, TableUi

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    ui = TableUi(me.me)
    async with stack, running([me, bot]):
        await until(lambda: me.view().phase is Phase.PEEK and me.view().ready[bot.me], me)
        await trio.testing.wait_all_tasks_blocked()
        assert ui.update(TableModel.capture(me)) == [] and ui.scene().bottom_until is not None  # (the look begins)
        for _ in range(8):  # (2 s go by as the program runs: its tasks run as they are due)
            mock_clock.jump(0.25)
            await trio.testing.wait_all_tasks_blocked()
            assert ui.update(TableModel.capture(me)) == []
        mock_clock.jump(15.0)  # (stopped; the screen's task is the first to run again:)
        model = TableModel.capture(me)
        assert ui.update(model) == [], "the look ended as the program ran again"
        scene = ui.scene()
        assert scene.bottom_until is not None and scene.bottom_until - model.now == pytest.approx(BOTTOM_PEEK_S - 2.0)
        await trio.testing.wait_all_tasks_blocked()
        assert ui.update(TableModel.capture(me)) == [] and not me.view().ready[me.me]
        for _ in range(31):
            mock_clock.jump(0.25)
            await trio.testing.wait_all_tasks_blocked()
            assert ui.update(TableModel.capture(me)) == []
        mock_clock.jump(0.25)
        await trio.testing.wait_all_tasks_blocked()
        assert ui.update(TableModel.capture(me)) == [Ready(me.me)]  # (its 10 s are over)
        for peer in (me, bot):
            peer._finish("the test ends here")


async def test_s9_6_reading_a_seat_s_progress_does_nothing_and_its_screen_takes_in_a_stop_first(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Reading a seat's `progress` took in a stop of its program (a side effect in a
    getter): any reader could stand the table's clocks and tell the player of the stop.
    It only reads now; the screen's capture takes the stop in, as its first step."""
    from live_support import running, until

    stopped = "This program did not run for 15 s"
    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    async with stack, running([me, bot]):
        await until(lambda: me.view().phase is Phase.PEEK and me.view().ready[bot.me], me)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(15.0)  # (stopped; nothing of the seat has run since)
        read = me.progress.stopped_s
        told = any(line.text.startswith(stopped) for line in me.lines)
        model = TableModel.capture(me)
        for peer in (me, bot):
            peer._finish("the test ends here")
    assert read == 0.0 and not told
    assert model.stopped_s == pytest.approx(15.0, abs=0.5)
    assert any(line.text.startswith(stopped) for line in model.lines)


async def test_s11_3_a_screen_back_from_a_stop_past_the_grace_period_offers_no_move(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Ann's program was stopped in her turn for 30 s, longer than the grace period (15 s):
    the others have likely ended the game. Running again, her screen offered "Your turn:
    x draw …" for 7 s, until her seat gave up reaching them. It says at once that her seat
    is reaching the others after a long stop, and that no move plays; x draws nothing."""
    from live_support import running
    from cli.tui.table_ui import TableUi
    from cli.tui.table_view import PROMPT_ROW

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    me.grace = bot.grace = 15.0
    ui = TableUi(me.me)
    async with stack, running([me, bot]):
        await _to_my_first_turn(me, bot)
        ui.update(TableModel.capture(me))
        assert ui.scene().draw(80, 24).text().splitlines()[PROMPT_ROW].strip().startswith("Your turn: x draw")
        mock_clock.jump(30.0)  # (stopped; the screen's task is the first to run again:)
        assert ui.update(TableModel.capture(me)) == []
        prompt = ui.scene().draw(80, 24).text().splitlines()[PROMPT_ROW].strip()
        assert prompt == "Stopped 30 s, longer than the table waits for you: reaching the others.", prompt
        assert ui.press("x", ui.scene()) == []
        assert ui.scene().message is not None and ui.scene().message.text.startswith(
            "No move plays yet: your program was stopped for 30 s")
        for peer in (me, bot):
            peer._finish("the test ends here")


async def test_s11_3_back_from_a_stop_the_status_bar_says_this_seat_reconnects_not_that_others_are_away(
        tmp_path: Path, mock_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann's program was stopped in her turn for 20 s; meanwhile Bot 1 dropped the link,
    silent for longer than 6 s. Running again, while her seat re-made the link, her
    status bar read "Your turn · waiting for Bot 1 (…)" and marked Bot 1 "(away)": it
    was Ann who was away. It says that she is reconnecting after her stop, and once the
    link is back, nothing of it."""
    from live_support import running, until
    from cli.tui.table_ui import TableUi

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    ui = TableUi(me.me)
    async with stack, running([me, bot]):
        await _to_my_first_turn(me, bot)
        dial = me.mesh.dial
        monkeypatch.setattr(me.mesh, "dial", lambda peer_id: None)  # (the link takes its time to come back)
        mock_clock.jump(20.0)  # (stopped; Bot 1, who heard nothing for 6 s of it, dropped the link:)
        bot.mesh.close_link(bot.machine.seats[me.me], "nothing heard for 6 s")
        await until(lambda: bot.me in me.progress.waiting_for, me)
        ui.update(TableModel.capture(me))
        text = ui.scene().draw(80, 24).text()
        status = text.splitlines()[0]
        assert "Your turn" in status and "reconnecting after your stop" in status, status
        assert "waiting for" not in status and "(away)" not in text, text
        monkeypatch.setattr(me.mesh, "dial", dial)
        for _ in range(10):
            mock_clock.jump(0.5)
            await trio.testing.wait_all_tasks_blocked()
            if not me.progress.waiting_for:
                break
        ui.update(TableModel.capture(me))
        status = ui.scene().draw(80, 24).text().splitlines()[0]
        assert "Your turn" in status and "reconnecting" not in status and "waiting for" not in status, status
        for peer in (me, bot):
            peer._finish("the test ends here")


async def _to_my_first_turn(me: TablePeer, bot: TablePeer) -> None:
    """`me` ready once `bot` is, then until the first turn, `me`'s, waits for its move,
    and everything else has settled."""
    from engine import Ready
    from live_support import until

    await until(lambda: me.view().phase is Phase.PEEK and me.view().ready[bot.me], me)
    me.submit(Ready(me.me))
    await until(lambda: me.view().turn_seat == me.me and me.view().phase is Phase.START and not me.view().needs, me)
    await trio.testing.wait_all_tasks_blocked()
