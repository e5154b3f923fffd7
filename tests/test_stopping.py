"""A process told to stop leaves its table (§9.8) instead of vanishing: Ctrl-C, SIGTERM, and
SIGHUP (the terminal window closed), in-process and as real processes on a real terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import trio
from cli_support import ROOT, bandit, finish, kill_all, read_until

from cli.stopping import INTERRUPTED, REASONS, STOP_WAIT, leaving_on_stop, run_until_stopped
from p2p.audit import audit
from p2p.log import read_log


def _stop_self(signum: int) -> None:
    os.kill(os.getpid(), signum)


def test_a_signal_makes_a_playing_seat_leave_with_a_reason_and_the_command_finishes() -> None:
    reasons: list[str] = []

    async def main() -> int:
        left = trio.Event()

        async def leave(reason: str, within: float) -> None:
            reasons.append(reason)
            assert 0 < within < STOP_WAIT  # its stay after the end is cut to fit (§11.4)
            left.set()

        with leaving_on_stop(leave), trio.fail_after(10):
            _stop_self(signal.SIGTERM)
            await left.wait()
        return 0  # the game ended by the leaving: the command reports as after any leaving

    heard: list[signal.Signals] = []
    assert run_until_stopped(main, heard=heard) == 0
    assert reasons == [REASONS[signal.SIGTERM]] == ["their program was terminated"]
    assert heard == [signal.SIGTERM]  # (the caller can tell the player asked to stop)


def test_a_signal_outside_a_game_cancels_at_once() -> None:
    async def main() -> int:
        with trio.fail_after(10):  # (cancelled long before, or the test fails)
            _stop_self(signal.SIGINT)
            await trio.sleep_forever()
        return 0

    assert run_until_stopped(main) == INTERRUPTED


def test_a_second_signal_cancels_a_leave_that_hangs() -> None:
    reasons: list[str] = []

    async def main() -> int:
        async def leave(reason: str, within: float) -> None:
            reasons.append(reason)
            _stop_self(signal.SIGINT)  # the player presses Ctrl-C again while we wait
            await trio.sleep_forever()

        with leaving_on_stop(leave), trio.fail_after(10):
            _stop_self(signal.SIGHUP)
            await trio.sleep_forever()
        return 0

    assert run_until_stopped(main) == INTERRUPTED
    assert reasons == ["their terminal was closed"]


def _logs_end_with_one_leave(folder: Path, seats: int, reason: str) -> str:
    """Every seat's log is intact and ends at the same `leave`, given `reason`; returns
    the audit's sentence about it."""
    logs = sorted(folder.glob("*.bandit-log"))
    assert len(logs) == seats, logs
    assert len({tuple(read_log(p).messages) for p in logs}) == 1  # the same records everywhere
    told = set()
    for path in logs:
        result = audit(path)
        assert result.ok, result.first_failure
        assert result.left is not None and result.left.why.endswith(f"({reason})"), result.left
        told.add(result.left.told)
    assert len(told) == 1, told
    return told.pop()


def test_s9_8_a_stopped_headless_seat_leaves_and_the_table_ends_at_once(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    play = bandit("play", "--headless", "--bots", "2", "--target", "5000", "--name", "Zoe",
                  "--state-dir", str(tmp_path / "state"), "--log-dir", str(logs))
    seen: list[str] = []
    try:
        read_until(play, r"Round 1", seen)  # the game is under way
        play.send_signal(signal.SIGTERM)
        status, out = finish(play, seen, timeout=60)
    finally:
        kill_all([play])
    assert status == 0, out
    assert re.search(r"You left the table (after|before the first round ended)", out), out
    assert _logs_end_with_one_leave(logs, 3, "their program was terminated") == "Zoe left the table (their program was terminated)"


CSI = re.compile(r"\x1b\[([0-9;?]*)([@-~])")
OTHER_ESCAPE = re.compile(r"\x1b(?:[()][0-9A-Za-z]|.)", re.S)


def screen_text(output: bytes, rows: int = 40, columns: int = 110) -> str:
    """What a terminal of `rows` × `columns` shows after `output`: the cursor moves and
    erasures a full-screen client sends, colours ignored."""
    grid = [[" "] * columns for _ in range(rows)]
    row = column = 0
    text = output.decode("utf-8", errors="replace")
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\x1b":
            if m := CSI.match(text, i):
                params, final = m.groups()
                numbers = [int(n) if n.isdigit() else 0 for n in params.lstrip("?").split(";")]
                n = max(numbers[0], 1)
                if params.startswith("?"):
                    pass  # modes (alternate screen, cursor shown)
                elif final == "A":
                    row = max(row - n, 0)
                elif final == "B":
                    row = min(row + n, rows - 1)
                elif final == "C":
                    column = min(column + n, columns - 1)
                elif final == "D":
                    column = max(column - n, 0)
                elif final in "Hf":
                    row = min(max(numbers[0], 1), rows) - 1
                    column = min(max(numbers[1] if len(numbers) > 1 else 1, 1), columns) - 1
                elif final == "J" and numbers[0] == 2:
                    grid = [[" "] * columns for _ in range(rows)]
                elif final == "K":
                    grid[row][column:] = [" "] * (columns - column)
                i = m.end()
            else:
                m = OTHER_ESCAPE.match(text, i)
                i = m.end() if m else i + 1
            continue
        if ch == "\r":
            column = 0
        elif ch == "\n":
            row = min(row + 1, rows - 1)
        elif ch == "\b":
            column = max(column - 1, 0)
        elif ch >= " " and column < columns:
            grid[row][column] = ch
            column += 1
        i += 1
    return "\n".join("".join(line) for line in grid)


def _read_until(fd: int, text: str, timeout: float) -> bytes:
    """What the terminal was sent until it showed `text` (within `timeout` seconds in
    all). The screen wraps a long line of the table log onto the next row, so the text is
    looked for with the screen's runs of spaces and line ends read as one space."""
    shown = b""
    wanted = " ".join(text.split())
    deadline = time.monotonic() + timeout
    while wanted not in " ".join(screen_text(shown).split()):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"{text!r} did not appear within {timeout} s:\n{screen_text(shown)}"
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed its side
            chunk = b""
        assert chunk, f"the client exited before showing {text!r}:\n{screen_text(shown)}"
        shown += chunk
    return shown


def test_s9_8_closing_the_terminal_window_makes_the_player_leave_and_every_log_stays_valid(tmp_path: Path) -> None:
    """The real client on a real terminal (a pty); closing the terminal's side, as a
    window that closes does, hangs it up: the kernel sends SIGHUP to the client (and to
    the bots it started, which share its terminal)."""
    logs = tmp_path / "logs"
    argv = [sys.executable, "-m", "cli", "play", "--bots", "2", "--name", "Eve",
            "--state-dir", str(tmp_path / "state"), "--log-dir", str(logs)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "110", "LINES": "40"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its controlling terminal
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 110, 0, 0))
            os.chdir(ROOT)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    exited = os.pidfd_open(pid)
    try:
        _read_until(fd, "Everyone looks at their two bottom cards", timeout=60)  # the table is dealt: the game is on
        os.close(fd)  # the window closes
        fd = -1
        ready, _, _ = select.select([exited], [], [], 60)
        assert ready, "the client did not exit after its terminal closed"
        _, wait_status = os.waitpid(pid, 0)
    finally:
        if fd >= 0:
            os.close(fd)
        os.close(exited)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
    assert os.waitstatus_to_exitcode(wait_status) == 0
    told = _logs_end_with_one_leave(logs, 3, "their terminal was closed")
    assert told.endswith("left the table (their terminal was closed)"), told
