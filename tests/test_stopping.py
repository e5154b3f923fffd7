"""A process told to stop leaves its table (§9.8) instead of vanishing: Ctrl-C and SIGTERM;
a SIGHUP (the terminal window closed) sends its seat away, to come back (§11.3), or
leaves where nothing would wait for it; in-process and as real processes on a real terminal."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
import trio
from cli_support import ROOT, bandit, finish, kill_all, read_until

from cli.stopping import INTERRUPTED, REASONS, STOP_WAIT, leaving_on_stop, run_until_stopped
from p2p.audit import audit
from p2p.journal import read_journal, unfinished_journals
from p2p.log import read_log
from p2p.session import CHOSE_TO_LEAVE


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


def test_s11_3_a_hang_up_sends_a_playing_seat_away_rather_than_leaving() -> None:
    """A closed terminal is no choice to leave: where the seat can go away meaning to
    come back, a hang-up does that, saying why; other signals still leave."""
    called: list[tuple[str, str]] = []

    async def main() -> int:
        gone = trio.Event()

        async def leave(reason: str, within: float) -> None:
            called.append(("leave", reason))

        async def away(reason: str, within: float) -> None:
            called.append(("away", reason))
            gone.set()

        with leaving_on_stop(leave, away), trio.fail_after(10):
            _stop_self(signal.SIGHUP)
            await gone.wait()
        return INTERRUPTED

    assert run_until_stopped(main) == INTERRUPTED
    assert called == [("away", "their terminal was closed")]


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
    # (its own line mode says it in the second person: it said "You left the table (their program …)")
    assert "  You left the table (your program was terminated); the game ends here" in out, out
    assert "(their program was terminated)" not in out, out


@pytest.mark.parametrize(("reason", "told"), [
    (signal.SIGTERM, "left the table (your program was terminated)"),
    (signal.SIGHUP, "left the table (your terminal was closed)"),
    (signal.SIGINT, "left the table (you chose to leave)"),
])
def test_s9_8_a_seat_s_own_leave_is_told_to_it_in_the_second_person(reason: signal.Signals, told: str) -> None:
    """Every log says why a seat left as the others read it ("Zoe left the table (their
    program was terminated)"); the seat that left reads its own reason as said to it."""
    from p2p.session import left_yourself

    assert left_yourself(f"left the table ({REASONS[reason]})") == told
    assert left_yourself("left the table (its records could not be written)") == (
        "left the table (its records could not be written)")


def _bots_of(host: int) -> list[int]:
    """The bot processes `host` started (its children running `join --bot`)."""
    children = []
    for task in Path(f"/proc/{host}/task").iterdir():
        children += [int(pid) for pid in (task / "children").read_text().split()]
    return [pid for pid in children if b"--bot" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")]


def test_s9_8_ctrl_c_at_a_line_mode_host_with_bots_is_the_host_s_own_leaving(tmp_path: Path) -> None:
    """Ctrl-C at a line-mode host seating bots (the terminal sends SIGINT to the host's
    process group) is the host's way to leave: the bots run in sessions of their own and
    hear nothing of it, so every log ends with the host leaving, by choice, and the
    person at the table reads so."""
    logs = tmp_path / "logs"
    seen: list[str] = []
    host = bandit("host", "--headless", "--bots", "1", "--seats", "3", "--table", "Line", "--name", "Ann",
                  "--bind", "127.0.0.1", "--no-discovery", "--target", "5000", "--state-dir", str(tmp_path / "ann"),
                  "--log-dir", str(logs), own_group=True)
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        procs.append(bandit("join", "--peer", where, "--headless", "--name", "Bo", "--state-dir", str(tmp_path / "bo"),
                            "--log-dir", str(logs)))
        read_until(host, r"Round 1", seen)  # the game is under way
        bots = _bots_of(host.pid)
        assert len(bots) == 1 and os.getpgid(bots[0]) != host.pid and os.getsid(bots[0]) != os.getsid(host.pid)
        os.killpg(host.pid, signal.SIGINT)  # Ctrl-C at Ann's terminal
        (status, out), (_, bo_out) = finish(host, seen, 60), finish(procs[1], [], 60)
    finally:
        kill_all(procs)
    assert status == 0, out
    told = _logs_end_with_one_leave(logs, 3, CHOSE_TO_LEAVE)
    assert told == "Ann left the table (the player chose to leave)", told
    assert told in bo_out, bo_out


PR_SET_CHILD_SUBREAPER = 36  # (linux/prctl.h)


def _reaper(on: bool) -> None:
    """Make this process the one orphans of its descendants are given to (`on`), so that
    it learns how bots whose host was killed exit; or stop being it."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def test_s11_3_bots_whose_host_was_killed_end_on_their_own(tmp_path: Path) -> None:
    """A host killed outright (SIGKILL: it cannot leave) leaves its bots waiting for its
    seat as for any seat away; once the grace period is over they end their game and
    exit: none lingers. Each ends as the README says of a player away longer than the
    grace period, with status 1 and its log closed, naming the host absent: its last
    report, buffered as without a terminal, goes to a pipe whose reader is gone, which
    must not fail again as the bot exits (Python's status 120)."""
    seen: list[str] = []
    exits: list[int] = []
    waiting: set[int] = set()
    statuses: dict[int, int] = {}
    _reaper(True)
    try:
        host = bandit("host", "--headless", "--bots", "2", "--seats", "3", "--name", "Ann", "--bind", "127.0.0.1",
                      "--no-discovery", "--target", "5000", "--grace", "10", "--state-dir", str(tmp_path / "ann"),
                      "--log-dir", str(tmp_path / "logs"), env={"PYTHONUNBUFFERED": ""})
        try:
            read_until(host, r"Round 1", seen)
            exits = [os.pidfd_open(pid) for pid in _bots_of(host.pid)]
            assert len(exits) == 2
            host.kill()
            host.wait()
            deadline = time.monotonic() + 60
            waiting.update(exits)
            while waiting and (left := deadline - time.monotonic()) > 0:
                for fd in select.select(list(waiting), [], [], left)[0]:
                    waiting.discard(fd)
                    ended = os.waitid(os.P_PIDFD, fd, os.WEXITED)
                    statuses[fd] = ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
            assert not waiting, "a bot was still running a minute after its host was killed"
        finally:
            kill_all([host])
            for fd in exits:
                if fd in waiting:
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
                    os.waitid(os.P_PIDFD, fd, os.WEXITED)
                os.close(fd)
    finally:
        _reaper(False)
    assert sorted(statuses.values()) == [1, 1], statuses
    bots = [r for r in map(audit, (tmp_path / "logs").glob("*.bandit-log")) if r.writer != 0]
    assert len(bots) == 2 and all(r.ok and r.left is not None for r in bots), [r.first_failure for r in bots]
    assert all(r.left.seat == 0 and "naming Ann absent" in r.left.told for r in bots if r.left), bots


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


def test_s9_8_closing_the_terminal_window_of_a_play_makes_the_player_leave_and_every_log_stays_valid(
        tmp_path: Path) -> None:
    """The real client on a real terminal (a pty); closing the terminal's side, as a
    window that closes does, hangs it up: the kernel sends SIGHUP to the client (not to
    the bots it started, which run in sessions of their own). Those bots end with the
    command, so nothing would wait for the seat to come back: it leaves, alone."""
    logs = tmp_path / "logs"
    client, fd = _on_a_terminal(["play", "--bots", "2", "--name", "Eve", "--state-dir", str(tmp_path / "state"),
                                 "--log-dir", str(logs)])
    exited = os.pidfd_open(client.pid)
    try:
        _read_until(fd, "Everyone looks at their two bottom cards", timeout=60)  # the table is dealt: the game is on
        os.close(fd)  # the window closes
        fd = -1
        ready, _, _ = select.select([exited], [], [], 60)
        assert ready, "the client did not exit after its terminal closed"
        status = client.wait()
    finally:
        if fd >= 0:
            os.close(fd)
        os.close(exited)
        client.kill()
        client.wait()
    assert status == 0
    told = _logs_end_with_one_leave(logs, 3, "their terminal was closed")
    assert told == "Eve left the table (their terminal was closed)", told


def _on_a_terminal(argv: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    """`bandit-lan ARGV` with a pty as its controlling terminal (110 × 40, TERM xterm,
    `tests.on_terminal`): its process, and the terminal's side (closing it hangs the
    terminal up)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "110", "LINES": "40"}
    fd, its_side = os.openpty()
    try:
        fcntl.ioctl(its_side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 110, 0, 0))
        client = subprocess.Popen([sys.executable, "-m", "tests.on_terminal", "cli", *argv], cwd=ROOT, env=env,
                                  stdin=its_side, stdout=its_side, stderr=its_side)
    except BaseException:
        os.close(fd)
        raise
    finally:
        os.close(its_side)
    return client, fd


def test_s11_3_closing_the_terminal_window_sends_the_seat_away_and_join_resume_takes_it_back(tmp_path: Path) -> None:
    """Eve plays from the full-screen client on a real terminal (a pty) at alice's table;
    closing the terminal's side, as a window that closes (or an ssh connection that
    drops) does, hangs it up. That is no choice to leave: Eve's seat goes away meaning
    to come back, its journal saying why, and alice waits for it as for a crash (§11.3);
    `join --resume` takes it back, and every log stays valid."""
    logs, state = tmp_path / "logs", tmp_path / "eve"
    common = ("--bind", "127.0.0.1", "--log-dir", str(logs))
    host = bandit("host", "--headless", "--table", "Den", "--name", "alice", "--seats", "2", "--no-discovery",
                  "--grace", "60", "--state-dir", str(tmp_path / "alice"), *common)
    procs = [host]
    host_seen: list[str] = []
    client, fd = None, -1
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", host_seen).group(1)
        client, fd = _on_a_terminal(["join", "--peer", where, "--name", "Eve", "--state-dir", str(state), *common])
        exited = os.pidfd_open(client.pid)
        try:
            _read_until(fd, "Everyone looks at their two bottom cards", timeout=60)  # the game is on
            os.close(fd)  # the window closes
            fd = -1
            ready, _, _ = select.select([exited], [], [], 60)
            assert ready, "the client did not exit after its terminal closed"
        finally:
            os.close(exited)
        assert client.wait() == INTERRUPTED  # (cut short: its game goes on)
        waiting = read_until(host, r"Lost the link to Eve \((.*)\); waiting for Eve", host_seen).group(1)
        assert not waiting.startswith("left"), waiting  # (no goodbye: the link is lost, as in a crash)
        [journal] = unfinished_journals(state)
        assert read_journal(journal).away == "their terminal was closed"
        assert all(read_log(path).ended is None for path in logs.glob("*.bandit-log"))  # nobody's game ended
        seen: list[str] = []
        again = bandit("join", "--resume", "--headless", "--state-dir", str(state), *common)
        procs.append(again)
        read_until(again, r"Back at the table: reconnected to alice", seen)
        again.send_signal(signal.SIGTERM)  # (so that the game ends now, at one leave, every log closed)
        (status, out), (host_status, host_out) = finish(again, seen, 60), finish(host, host_seen, 60)
    finally:
        kill_all(procs)
        if fd >= 0:
            os.close(fd)
        if client is not None:
            client.kill()
            client.wait()
    assert status == host_status == 0, out + host_out
    assert re.search(r"Your seat went away \d+ s ago, when your terminal was closed: taking it back\.", out), out
    assert "Eve is back." in host_out, host_out
    told = _logs_end_with_one_leave(logs, 2, "their program was terminated")
    assert told == "Eve left the table (their program was terminated)", told


def test_s9_8_a_stop_line_to_a_standard_error_nobody_reads_lets_it_go(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """"Leaving the table." said to a standard error whose reader went away (a closed
    window, a host killed) points it at nowhere, so that nothing written there later,
    nor the flush at exit, fails again (status 120)."""
    import io

    from cli import stopping

    read, write = os.pipe()
    os.close(read)
    stream = io.TextIOWrapper(io.FileIO(write, "w"), line_buffering=False)
    monkeypatch.setattr(sys, "stderr", stream)
    try:
        stopping._tell("Leaving the table.")
        print("and a later line", file=stream)
        stream.flush()  # (raised BrokenPipeError while the pipe was kept)
    finally:
        monkeypatch.undo()
        stream.close()
