"""The real prompt_toolkit application at 80×24: screen snapshots (lobby, bottom cards, a
turn, a snap, round end), resizing, and no full-screen erase between frames.

Snapshots are what prompt_toolkit actually rendered (its screen buffer), compared with
tests/snapshots/*.txt. After an intended change of the screens, regenerate them with
BANDIT_LAN_UPDATE_SNAPSHOTS=1 and review the diff.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from tui_support import LocalSession, ScreenHarness, Script, arranged, real_time_limit

from engine import Draw, Discard, Ready
from cli.tui import run_client
from cli.tui.lobby_view import HostScene, Seat

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("BANDIT_LAN_UPDATE_SNAPSHOTS"):
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    expected = path.read_text(encoding="utf-8").rstrip("\n")
    assert text == expected, f"screen {name} differs from {path.name}:\n{text}"


@asynccontextmanager
async def client_on_screen(session: LocalSession, harness: ScreenHarness,
                           memory_aid: bool = False) -> AsyncIterator[trio.Nursery]:
    async with real_time_limit(60), harness.open(), trio.open_nursery() as nursery:
        await nursery.start(session.run)
        done = trio.Event()

        async def client() -> None:
            await run_client(session, memory_aid=memory_aid, terminal=harness.terminal)
            done.set()

        nursery.start_soon(client)
        yield nursery
        nursery.cancel_scope.cancel()


def scripted_session(**kw: object) -> LocalSession:
    others = {1: [0, 2, 12, 14], 2: [16, 10, 4, 12], 3: [18, 14, 10, 6]}
    deal = arranged(4, {0: [4, 6, 8, 2], **others}, discard=8, draw=[0, 0, 0, 2])
    return LocalSession(4, 0, script=Script([deal], [0]), bots_play=False, **kw)  # type: ignore[arg-type]


async def test_snapshots_bottom_cards_turn_snap_and_round_end(mock_clock: trio.testing.MockClock) -> None:
    session = scripted_session(audit_delay=1.0)
    harness = ScreenHarness(80, 24)
    async with client_on_screen(session, harness):
        check_snapshot("bottom_cards", await harness.wait_for_text("remember them", "a[ 8] s[ 2]"))
        harness.press("enter")
        await harness.wait_for_text("waiting for Bo, Cy and Di")
        for seat in (1, 2, 3):
            session.submit(Ready(seat))
        check_snapshot("turn", await harness.wait_for_text("Your turn: x draw"))
        harness.press("b")  # Bandit first: before anything else in the turn (R5), a snap included
        await harness.wait_for_text("Bandit by you")
        harness.press("space")
        await harness.wait_for_text("Snap the 8: slot your card")
        harness.press("a")
        check_snapshot("snap", await harness.wait_for_text("it matched", "a ··  s[••]"))
        harness.press("x")
        await harness.wait_for_text("You drew a 0")
        harness.press("z")
        await harness.wait_for_text("Bo is playing")
        for seat in (1, 2):  # the two final turns (R8)
            session.submit(Draw(seat))
            session.submit(Discard(seat))
        await harness.wait_for_text("Round 1 is over", "checking the shuffles")
        mock_clock.jump(1.0)
        check_snapshot("round_end", await harness.wait_for_text("Round 1 is over", "Audit of this round: ✓"))
    assert harness.sink.erases == 0  # every frame after the first is a diff: no flicker


async def test_snapshot_host_lobby(mock_clock: trio.testing.MockClock) -> None:
    harness = ScreenHarness(80, 24)
    scene = HostScene(
        table="Friday", seats=4,
        members=(Seat(0, "alice", "NW77-F6HD-L3JV-RRPS", True, True), Seat(1, "bob", "K2QX-7TRM-PA4C-VE9D", False, False)),
        fingerprint="NW77-F6HD-L3JV-RRPS", join_hint="bandit-lan join 'Friday'   or   bandit-lan join --peer 192.168.1.20:41234",
        code=False, starting=False,
    )  # fmt: skip
    async with harness.open():
        assert harness.terminal is not None
        harness.terminal.show(scene)
        check_snapshot("lobby", await harness.wait_for_text("Hosting", "seat 4  (free)"))


async def test_the_screen_follows_a_resize(mock_clock: trio.testing.MockClock) -> None:
    session = scripted_session()
    harness = ScreenHarness(80, 24)
    async with client_on_screen(session, harness):
        await harness.wait_for_text("remember them")
        harness.resize(120, 30)
        text = await harness.wait_for(lambda t: len(t.splitlines()[0]) > 100, "a wider status bar")
        rows = text.splitlines()
        assert rows[-1].startswith(" Space snap")  # the help bar moved to the last of 30 rows
        assert "remember them" in text
        harness.resize(80, 24)
        text = await harness.wait_for(lambda t: len(t.splitlines()[0]) <= 80, "the narrow screen again")
        assert text.splitlines()[23].startswith(" Space snap")


async def test_R4_R5_a_screen_too_small_for_the_table_holds_its_keys_and_the_look_at_the_bottom_cards(
        mock_clock: trio.testing.MockClock) -> None:
    """The real terminal tells the client the size it draws to: shrunk below the table's
    layout, a key does nothing (here, the one that would end the look at the bottom
    cards) and the look waits; grown again, the table and the look are back."""
    session = scripted_session()
    harness = ScreenHarness(80, 24)
    async with client_on_screen(session, harness):
        await harness.wait_for_text("remember them")
        harness.resize(60, 20)
        await harness.wait_for_text("waits for it (10 s)")
        await trio.testing.wait_all_tasks_blocked()  # (the client has the new size)
        mock_clock.jump(15)  # (within the table's 30 s ready barrier)
        await trio.testing.wait_all_tasks_blocked()
        assert session.submitted == []
        harness.press("x")
        await harness.wait_for(lambda _: getattr(harness.screen, "keys", 0) == 1, "the key handled")
        harness.resize(80, 24)
        await harness.wait_for_text("remember them")
        assert session.submitted == []


async def test_R4_a_terminal_already_too_small_when_the_game_begins_holds_the_look_too(
        mock_clock: trio.testing.MockClock) -> None:
    """`host` and `join` open the terminal for the lobby, which takes the news of its
    size: a table that begins on a terminal already too small was taken to fit, and the
    look at the bottom cards ran out unseen (then marked seen). The client asks the
    terminal its size as it begins."""
    from cli.tui.terminal import Resized

    session = scripted_session()
    harness = ScreenHarness(60, 20)
    async with real_time_limit(60), harness.open(), trio.open_nursery() as nursery:
        assert isinstance(await harness.terminal.receive(), Resized)  # (the lobby's: taken before the table)
        await nursery.start(session.run)
        nursery.start_soon(partial(run_client, session, terminal=harness.terminal))
        await harness.wait_for_text("waits for it (10 s)")
        mock_clock.jump(15)  # (within the table's 30 s ready barrier)
        await trio.testing.wait_all_tasks_blocked()
        assert session.submitted == []
        harness.resize(80, 24)
        await harness.wait_for_text("remember them")
        nursery.cancel_scope.cancel()


async def test_six_players_fit_at_80_columns(mock_clock: trio.testing.MockClock) -> None:
    session = LocalSession(6, 0, seed=2, bots_play=False)
    harness = ScreenHarness(80, 24)
    async with client_on_screen(session, harness):
        text = await harness.wait_for_text("remember them")
        for position, name in enumerate(("Bo", "Cy", "Di", "Ed", "Flo"), 1):
            assert f"{position} {name}" in text
        assert max(len(row) for row in text.splitlines()) <= 80


async def test_s11_3_a_terminal_that_goes_away_takes_the_seat_away_not_from_the_table(
        mock_clock: trio.testing.MockClock) -> None:
    """A closed terminal is no choice to leave: the seat goes away meaning to come back."""
    session = scripted_session()
    harness = ScreenHarness(80, 24)
    async with client_on_screen(session, harness):
        await harness.wait_for_text("remember them")
        harness.pipe.close()  # the input ends, as a closed terminal window's does
        await session._left.wait()
    assert session.away_reason == "their terminal was closed" and session.left_reason is None


async def test_leaving_asks_and_calls_leave(mock_clock: trio.testing.MockClock) -> None:
    session = scripted_session()
    harness = ScreenHarness(80, 24)
    async with client_on_screen(session, harness):
        await harness.wait_for_text("remember them")
        harness.press("enter", "ctrl-c")
        await harness.wait_for_text("Leave the table?")
        harness.press("n")
        await harness.wait_for(lambda t: "Leave the table?" not in t, "the dialog closed")
        assert not session.progress.ended
        harness.press("ctrl-c", "enter")
        await session._left.wait()
        assert session.progress.ended and session.progress.ended_why == "you left the table"


def test_s11_3_ctrl_z_is_bound_to_suspend_the_program() -> None:
    """Raw mode reads Ctrl-Z as a key, so the terminal sends no SIGTSTP: the screen binds
    it to its suspend (which puts the screen away, stops the process group, and draws the
    screen again on `fg`, not on `bg`)."""
    from types import SimpleNamespace
    from unittest.mock import Mock

    from prompt_toolkit.keys import Keys

    from cli.tui.terminal import Terminal

    terminal = Terminal()
    bound = terminal._bindings().get_bindings_for_keys((Keys.ControlZ,))
    assert bound[-1].keys == (Keys.ControlZ,)
    terminal._suspend = Mock()  # type: ignore[method-assign]
    app = SimpleNamespace()
    bound[-1].handler(SimpleNamespace(app=app))  # (the most specific binding is the one called)
    terminal._suspend.assert_called_once_with(app)


def test_standings_line_up_with_names_in_wide_characters() -> None:
    """A name in CJK takes two columns a character: the totals after it stay in their
    column (padding counted characters)."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas, text_width, wrap
    from cli.tui.round_view import draw_game_end

    names = ("You", "漢字太郎", "Bo")
    view = SimpleNamespace(totals=(14, 20, 104), winners=(0,), history=((14, 20, 104),), target=100)
    model = SimpleNamespace(view=view, me=0, players=3, name=lambda s: names[s], ended=True, finished=True,
                            ended_why=None, log_path=None)
    canvas = Canvas(80, 24)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    rows = [canvas.row_text(y).rstrip() for y in range(24)]
    standings = [r for r in rows if any(n in r for n in names) and r.strip()[:1].isdigit()]
    assert len(standings) == 3 and len({text_width(r) for r in standings}) == 1, standings
    assert wrap("漢", 1) == ["漢"]  # (a character wider than the line goes whole: it looped for ever)


def test_s10_the_game_end_screen_of_a_game_with_no_round_scored_does_not_offer_to_check_scores() -> None:
    """A game that ended before any round was scored has no score, nor an opened shuffle,
    for an audit to check: the screen says no round was scored, and still gives the
    command that audits the log; a game with scores offers to check them."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_game_end

    def shown(history: tuple[tuple[int, ...], ...]) -> str:  # (ended between rounds: none under way)
        view = SimpleNamespace(totals=history[-1] if history else (0, 0), winners=(), history=history, target=100,
                               round=len(history))
        model = SimpleNamespace(view=view, me=0, players=2, name=lambda s: ("You", "Bo")[s], ended=True,
                                finished=False, ended_why="Bo left the table", log_path="game.bandit-log", logs_beside=(),
                                reports=history)
        canvas = Canvas(80, 24)
        draw_game_end(canvas, model)  # type: ignore[arg-type]
        return "\n".join(canvas.row_text(y).rstrip() for y in range(24))

    unscored = shown(())
    assert "every shuffle, reveal, move and score" not in unscored
    assert "No round was scored before the game ended." in unscored
    assert "There is no score to check in it, but anyone can still audit it:" in unscored
    assert "audit game.bandit-log" in unscored
    assert "Anyone can check every shuffle, reveal, move and score in it:" in shown(((3, 9),))
    assert "cut short" not in shown(((3, 9),))


@pytest.mark.parametrize("played_out", [0, 1, 2])
def test_s10_2_a_game_ended_in_a_round_under_way_says_that_round_was_cut_short_and_what_can_be_checked(
        played_out: int) -> None:
    """A game left in round 3 (§9.8: the round under way is void) did not let anyone check
    "every shuffle, reveal, move and score in it": the rounds played out can be checked in
    full; of the round cut short, whose shuffles were never shown, only the moves and the
    cards turned face up for all (§10.2), and a card only one player saw stays unknown."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_game_end
    from engine.narrate import cut_short

    history = ((3, 9), (12, 20))[:played_out]
    view = SimpleNamespace(totals=history[-1] if history else (0, 0), winners=(), history=history, target=100,
                           round=played_out + 1)
    model = SimpleNamespace(view=view, me=0, players=2, name=lambda s: ("You", "Bo")[s], ended=True, finished=False,
                            ended_why="Bo left the table", log_path="game.bandit-log", reports=history,
                            logs_beside=())
    canvas = Canvas(100, 30)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    text = " ".join(" ".join(canvas.row_text(y).split()) for y in range(30))
    cut = played_out + 1
    assert " ".join(cut_short(cut).split()) in text
    assert f"Round {cut} was cut short, so its shuffles were never shown and checked" in text
    assert "every shuffle, reveal, move and score in it" not in text
    what = "every move and every card turned face up, but not the cards only one player saw:"
    played = {0: f"There is no score to check in it; of round 1, cut short, anyone can check {what}",
              1: f"Anyone can check every shuffle, reveal, move and score of round 1 in it, played out; of round 2, cut "
                 f"short, {what}",
              2: f"Anyone can check every shuffle, reveal, move and score of rounds 1 and 2 in it, played out; of round "
                 f"3, cut short, {what}"}
    assert played[played_out] in text
    assert "audit game.bandit-log" in text
    assert "§" not in text  # (players know the rules' R-numbers, not the protocol's sections)


def test_s10_2_with_six_players_at_80x24_a_round_cut_short_leaves_the_audit_command_and_its_note_on_screen() -> None:
    """The sentence on a round cut short says what showing how one shuffled is (§8.7):
    it still takes three rows of an 80-column screen, as before it did, so six players'
    game end keeps the audit command whole, with the note that it is printed on one line."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import PRINTED_WHOLE, draw_game_end

    history = ((3, 9, 1, 1, 1, 1), (12, 20, 1, 1, 1, 1))
    view = SimpleNamespace(totals=history[-1], winners=(), history=history, target=100, round=3)
    model = SimpleNamespace(view=view, me=0, players=6, name=lambda s: ("You", "Bo", "Cy", "Di", "Ed", "Flo")[s],
                            ended=True, finished=False, ended_why="Bo left the table", reports=history, logs_beside=(),
                            log_path="/home/someone/.local/share/bandit-lan/logs/0a1b2c3d4e5f-seat1.bandit-log")
    canvas = Canvas(80, 24)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    rows = [canvas.row_text(y).strip() for y in range(24)]
    assert rows.index("Round 3 was cut short, so its shuffles were never shown and checked (at the") + 3 == rows.index(
        "Your fairness log of this game:") - 1, rows
    assert PRINTED_WHOLE in rows, rows


def test_a_wide_character_drawn_over_in_part_is_blanked_whole() -> None:
    """A dialog over a row of CJK names cut a wide character in two: its half left the
    row 81 cells wide on an 80-column screen (or a cell short)."""
    from cli.tui.canvas import Canvas, text_width

    for x in (3, 4):  # (over a character's first cell, and over its second)
        canvas = Canvas(12, 1)
        canvas.write(0, 0, "한국어이름한")
        canvas.write(x, 0, "│")
        assert text_width(canvas.row_text(0)) == 12, canvas.row_text(0)
        assert "│" in canvas.row_text(0)
    canvas = Canvas(12, 1)
    canvas.write(0, 0, "ab한국")
    canvas.write(3, 0, "漢")  # (wide over the tail of one and the head of the next)
    assert text_width(canvas.row_text(0)) == 12 and canvas.row_text(0).startswith("ab 漢 ")


def test_s9_2_before_the_first_round_the_prompt_says_the_cards_are_being_shuffled() -> None:
    """Every seat's keys, then the joint shuffle, come before the first deal (§9.2): a
    table held there (a seat whose program stopped as the game began) does not read
    "The round is over" before any round was played."""
    from types import SimpleNamespace

    from cli.tui.table_view import prompt_text
    from engine import Phase

    def scene(round_: int) -> Any:
        view = SimpleNamespace(phase=Phase.BETWEEN, round=round_)
        return SimpleNamespace(model=SimpleNamespace(view=view, me=0, players=3, skills=None, now=0.0, sending=(),
                                                     waiting_for=(), turn_sent=None, stopped_past_grace=None),
                               pending=None, bottom_until=None)

    assert prompt_text(scene(0)) == "The cards are being shuffled for the first round."
    assert prompt_text(scene(1)) == "The round is over; the next one starts soon."


class _Shown:
    """A screen of one line of text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def draw(self, width: int, height: int) -> Any:
        from cli.tui.canvas import Canvas

        canvas = Canvas(width, height)
        canvas.write(0, 0, self.text)
        return canvas


async def test_s11_3_a_client_continued_in_the_background_draws_nothing_until_fg(monkeypatch: Any) -> None:
    """SIGSTOP, then SIGCONT from elsewhere (or Ctrl-Z, then `bg`): the shell owns the
    terminal, so the table moving on draws nothing over its prompt; once `fg` gives the
    terminal back, the screen of that moment is drawn."""
    harness = ScreenHarness(80, 24)
    foreground = [False]
    monkeypatch.setattr(os, "tcgetpgrp", lambda fd: os.getpgrp() if foreground[0] else os.getpgrp() + 1)
    async with real_time_limit(20), harness.open():
        terminal = harness.terminal
        assert terminal is not None and terminal._loop is not None
        loop = terminal._loop

        async def settled() -> None:
            """Every draw asked of the terminal's loop so far is done (three hops: the
            request, prompt_toolkit's invalidate, its redraw)."""
            done = trio.Event()
            token = trio.lowlevel.current_trio_token()
            hop = lambda then: lambda: loop.call_soon(then)  # noqa: E731
            loop.call_soon_threadsafe(hop(hop(lambda: token.run_sync_soon(done.set))))
            await done.wait()

        terminal.show(_Shown("bob's turn"))
        await harness.wait_for_text("bob's turn")
        terminal._continued()  # (SIGCONT, with another process group in the terminal's foreground)
        await settled()
        renders = harness.renders
        terminal.show(_Shown("Your turn"))
        await settled()
        assert harness.renders == renders and "bob's turn" in harness.text
        foreground[0] = True  # `fg`
        await harness.wait_for_text("Your turn")


def test_the_screen_holds_drawing_with_prompt_toolkit_s_own_flag() -> None:
    """The client holds every frame while it is in the background with the flag
    prompt_toolkit sets for a program that has lent the terminal out (`_hold_drawing`):
    a private name, so a release of prompt_toolkit that drops it fails here, not at a
    player's terminal, where frames would land over the shell."""
    import inspect

    from prompt_toolkit.application import Application
    from prompt_toolkit.input import DummyInput
    from prompt_toolkit.output import DummyOutput

    from cli.tui.terminal import _hold_drawing

    app: Application[None] = Application(input=DummyInput(), output=DummyOutput())
    assert app._running_in_terminal is False
    assert "not self._running_in_terminal" in inspect.getsource(Application._redraw)
    _hold_drawing(app, True)
    assert app._running_in_terminal is True


async def test_a_screen_that_ends_while_it_reads_no_keys_leaves_no_reader_on_its_loop() -> None:
    """Ended in the background, where it reads no keys (a read would stop the program:
    SIGTTIN), the screen puts no reader of its input back on its loop, which runs on a
    while to shut down after the application ends."""
    import threading

    harness = ScreenHarness(80, 24)
    readers: list[bool] = []
    async with real_time_limit(20), harness.open():
        terminal = harness.terminal
        assert terminal is not None and terminal._app is not None and terminal._loop is not None
        app, loop = terminal._app, terminal._loop
        away = threading.Event()

        def go_away() -> None:  # (the terminal's thread: as when continued in the background)
            terminal._stop_reading(app)
            close = loop.close

            def closing() -> None:
                readers.append(loop.remove_reader(harness.pipe.fileno()))
                close()

            loop.close = closing  # type: ignore[method-assign]
            away.set()

        loop.call_soon_threadsafe(go_away)
        await trio.to_thread.run_sync(away.wait)
    assert readers == [False]
