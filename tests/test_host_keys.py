"""The line-mode host's terminal (`cli.host`): what it reads, and that it stops reading."""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
from collections.abc import Callable

import pytest
import trio
import trio.testing

from cli import host


def test_nothing_is_left_reading_the_terminal_once_the_host_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the line-mode host's lobby and game are over, a line typed at its terminal is
    there for whoever reads it next (the shell): no reader of the host's is left behind
    to swallow it (no thread is left blocked reading the terminal)."""
    terminal, its_side = os.openpty()
    keys = open(its_side, encoding="utf-8", closefd=True)  # noqa: SIM115 (closed below)
    monkeypatch.setattr(sys, "stdin", keys)

    async def host_run() -> None:
        async with host._enters(lambda: 1) as reading:
            assert reading is not None
            await trio.testing.wait_all_tasks_blocked()

    try:
        trio.run(host_run)
        os.write(terminal, b"typed later\n")
        # (the line is there at once, unless a reader took it: the bound is for that failure only)
        ready, _, _ = select.select([its_side], [], [], 30.0)
        assert ready and os.read(its_side, 100) == b"typed later\n"
    finally:
        keys.close()
        os.close(terminal)


def test_each_line_typed_is_read_whole_and_the_lines_end_with_the_input() -> None:
    """Lines come whole however the bytes arrive; bytes that are not text read as U+FFFD;
    the end of the input ends the lines, and a last line with no newline is given too."""
    read_end, write_end = os.pipe()

    async def read_all() -> list[str]:
        async def type_them() -> None:
            for chunk in (b"\n", b"he", b"lp\n\xff\n", b"half"):
                os.write(write_end, chunk)
                await trio.testing.wait_all_tasks_blocked()
            os.close(write_end)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(type_them)
            return [line async for line in host.terminal_lines(read_end)]

    try:
        assert trio.run(read_all) == ["", "help", "\ufffd", "half"]
    finally:
        os.close(read_end)


def test_a_line_another_reader_took_first_leaves_the_lines_waiting_for_the_next(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal is readable, but another reader takes the line before the host reads:
    the host reads nothing then (a read would block every task of the table until the
    next line) and waits for the next line."""
    read_end, write_end = os.pipe()
    readable = trio.lowlevel.wait_readable
    woken: list[int] = []

    async def taken_first(fd: int) -> None:
        woken.append(fd)
        if len(woken) == 2:  # (the host waits for the next line: it comes, and the input ends)
            os.write(write_end, b"mine\n")
            os.close(write_end)
        await readable(fd)
        if len(woken) == 1:
            assert os.read(read_end, 100) == b"taken\n"  # (the other reader, first)

    monkeypatch.setattr(trio.lowlevel, "wait_readable", taken_first)
    os.write(write_end, b"taken\n")
    # (were the host to read the emptied terminal, a line comes in a while all the same,
    # so that this fails rather than hangs)
    late = threading.Timer(10.0, os.write, (write_end, b"late\n"))
    late.start()

    async def read_all() -> list[str]:
        return [line async for line in host.terminal_lines(read_end)]

    try:
        assert trio.run(read_all) == ["mine"]
    finally:
        late.cancel()
        os.close(read_end)


def _keys_said(monkeypatch: pytest.MonkeyPatch, **enters: bool) -> None:
    """The line-mode host's lobby on a terminal (a pty) with `_enters(**enters)`: an
    Enter alone at the table, then an Enter once the game is on."""
    terminal, its_side = os.openpty()
    keys = open(its_side, encoding="utf-8", closefd=True)  # noqa: SIM115 (closed below)
    monkeypatch.setattr(sys, "stdin", keys)

    async def host_run() -> None:
        async with host._enters(lambda: 1, **enters) as reading:
            assert reading is not None
            reading.typed("")
            reading.playing = True
            reading.typed("")

    try:
        trio.run(host_run)
    finally:
        keys.close()
        os.close(terminal)


def test_with_json_or_quiet_what_the_keys_do_is_said_on_standard_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """With --json or --quiet (`aside`) standard output is for a script: what the keys do
    is said on standard error, for the person at the terminal."""
    _keys_said(monkeypatch, aside=True)
    out, err = capsys.readouterr()
    assert out == ""
    assert host.LOBBY_KEYS in err and host.GAME_KEYS in err and "A game needs at least two players" in err


def test_a_table_bots_fill_at_once_is_not_told_to_press_enter(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """With bots in every other seat the host waits for nobody: no Enter to press, and an
    Enter pressed anyway while the bots take their seats starts nothing short of them."""
    _keys_said(monkeypatch, waiting=False)
    out, _ = capsys.readouterr()
    assert "Press Enter" not in out and host.GAME_KEYS in out
    assert host.BOTS_TAKING_SEATS in out and "A game needs at least two players" not in out


def test_a_host_in_the_background_of_its_terminal_is_told_to_come_to_the_foreground(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An Enter reaches a host in the background (`bandit-lan host &`) only after `fg`:
    its prompt says so; in the foreground, it does not."""
    _keys_said(monkeypatch)
    assert host.IN_THE_BACKGROUND not in capsys.readouterr().out
    monkeypatch.setattr(host, "_in_the_foreground", lambda fd: False)
    _keys_said(monkeypatch)
    assert f"{host.LOBBY_KEYS} {host.IN_THE_BACKGROUND}" in capsys.readouterr().out


def _lobby_keys_said_again(monkeypatch: pytest.MonkeyPatch, come_back: Callable[[], None],
                           foreground: bool, clock: trio.abc.Clock | None = None) -> list[str]:
    """What the line-mode host's lobby on a terminal (a pty) says, in the foreground of
    it or not, until it says its keys once more after `come_back`."""
    terminal, its_side = os.openpty()
    keys = open(its_side, encoding="utf-8", closefd=True)  # noqa: SIM115 (closed below)
    monkeypatch.setattr(sys, "stdin", keys)
    where = {"foreground": foreground}
    monkeypatch.setattr(host, "_in_the_foreground", lambda fd: where["foreground"])
    said: list[str] = []

    async def host_run() -> None:
        again = trio.Event()

        def say(text: str = "", *, aside: bool = False) -> None:
            said.append(text)
            if len(said) > 1:
                again.set()

        monkeypatch.setattr(host, "say", say)
        with trio.fail_after(30):  # (the bound is for the failure only)
            async with host._enters(lambda: 1):
                await trio.testing.wait_all_tasks_blocked()
                where["foreground"] = True
                come_back()
                await again.wait()

    try:
        trio.run(host_run, clock=clock)
    finally:
        keys.close()
        os.close(terminal)
    return said


def test_a_host_brought_from_the_background_to_the_foreground_says_its_keys_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`bandit-lan host &`, then `fg`: the host said to come to the foreground first; once
    there, it says what its keys do again (its first words were far up the screen, or not
    there at all). A shell's `fg` sends a running job no signal: the host looks."""
    said = _lobby_keys_said_again(monkeypatch, lambda: None, foreground=False,
                                  clock=trio.testing.MockClock(autojump_threshold=0))
    assert said == [f"{host.LOBBY_KEYS} {host.IN_THE_BACKGROUND}", host.LOBBY_KEYS]


def test_a_host_stopped_and_continued_in_the_foreground_says_its_keys_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-Z, then `fg`: the host is continued (SIGCONT) in the foreground, below the
    shell's lines, and says what its keys do again."""
    said = _lobby_keys_said_again(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGCONT), foreground=True)
    assert said == [host.LOBBY_KEYS, host.LOBBY_KEYS]


def test_s5_3_a_namesake_gone_while_others_stay_counts_them() -> None:
    """One namesake gone, the others still there: "another of that name is" for one,
    "2 others of that name are" for two, with their hosts named in a sentence."""
    from cli.host import namesake_left
    from p2p.discovery import TableAd

    def ad(host: str, fp: int) -> TableAd:
        return TableAd(table="Solo", host=host, seats=4, free=3, proto=1, fingerprint=bytes([fp]) * 32, port=1,
                       addresses=("127.0.0.1",))

    me, bob, dan, eve = ad("ann", 1), ad("bob", 2), ad("dan", 3), ad("eve", 4)
    assert "but another of that name is still on this LAN (hosted by dan):" in namesake_left(me, bob, [dan])
    assert "but 2 others of that name are still on this LAN (hosted by dan and eve):" in namesake_left(me, bob, [eve, dan])
