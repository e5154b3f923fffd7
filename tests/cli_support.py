"""Running `bandit-lan` as real processes (optionally inside a network namespace)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import chdir, suppress
from pathlib import Path

from cli.commands import as_typed
from p2p.journal import Journal, journal_path

ROOT = Path(__file__).resolve().parent.parent

with chdir(ROOT):  # (where these processes run, with this PATH)
    PROGRAM = f"{as_typed(sys.executable)} -m cli"
"""How the commands these processes print begin (`cli.commands.this_program`): this
interpreter as the shell finds it, relative to the checkout when it is inside it."""


def bandit(*args: str, netns: str | None = None, stdin: int = subprocess.DEVNULL,
           env: dict[str, str] | None = None, program: tuple[str, ...] = ("cli",),
           own_group: bool = False, stderr: int = subprocess.STDOUT) -> subprocess.Popen[str]:
    """`bandit-lan ARGS` as a process whose output is read (`read_until`); its input is
    nothing, or the file descriptor `stdin` (a pty's, to be a terminal); `env` adds to
    its environment; `program`: the module run, and its own arguments (a test double);
    `own_group`: it leads a process group of its own, as a shell's job does (a signal
    sent to that group, `os.killpg`, is what a terminal sends at Ctrl-C); `stderr`: where
    its standard error goes (with its standard output unless told)."""
    cmd = [sys.executable, "-m", *program, *args]
    if netns is not None:
        cmd = ["ip", "netns", "exec", netns, *cmd]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **(env or {})}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=stdin, stdout=subprocess.PIPE,
                            stderr=stderr, text=True, process_group=0 if own_group else None)


def read_until(proc: subprocess.Popen[str], pattern: str, seen: list[str], timeout: float = 120,
               *, errors: bool = False, kill: Callable[[], None] | None = None) -> re.Match[str]:
    """Read the process's output (its standard error if `errors`) line by line until
    `pattern` matches (or it exits). A process that prints neither within `timeout`
    seconds is killed (by `kill`, if given: what else writes to its output too): the
    test fails, it does not hang."""
    stream = proc.stderr if errors else proc.stdout
    assert stream is not None
    watchdog = threading.Timer(timeout, kill or proc.kill)
    watchdog.start()
    try:
        for line in stream:
            seen.append(line)
            if m := re.search(pattern, line):
                return m
    finally:
        watchdog.cancel()
    raise AssertionError(f"process exited with {proc.wait()} before printing {pattern!r} "
                         f"(or was killed after {timeout:.0f} s):\n{''.join(seen)}")


def finish(proc: subprocess.Popen[str], seen: list[str], timeout: float = 30) -> tuple[int, str]:
    """Wait for `proc` to exit: its status and all it printed (`seen` before). One still
    running after `timeout` seconds is killed, and the test fails with all it printed."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        raise AssertionError(f"process did not exit within {timeout:.0f} s; all it printed:\n{''.join(seen) + out}") from None
    return proc.returncode, "".join(seen) + out


def interrupted_at(proc: subprocess.Popen[str], pattern: str) -> tuple[int, str]:
    """Ctrl-C (SIGINT) to `proc` once it printed `pattern`: its status and all it printed."""
    seen: list[str] = []
    try:
        read_until(proc, pattern, seen)
        proc.send_signal(signal.SIGINT)
        return finish(proc, seen)
    finally:
        proc.kill()


def kill_all(procs: list[subprocess.Popen[str]]) -> None:
    """Kill whatever is still running (a test's `finally`)."""
    for p in procs:
        if p.poll() is None:
            p.kill()


def kill_job(group: int) -> None:
    """Kill the process group `group` (a job `tests.background_job` started) and the bots
    its processes started, which run in sessions of their own (`cli.bots`)."""
    members = [pid for pid in _pids() if _group_of(pid) == group]
    for pid in members + [bot for pid in members for bot in _descendants(pid)]:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _group_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def _descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs (none if it is gone)."""
    children: list[int] = []
    with suppress(FileNotFoundError, ProcessLookupError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            children += [int(child) for child in (task / "children").read_text().split()]
    return children + [grandchild for child in children for grandchild in _descendants(child)]


def game_id(output: str) -> str:
    m = re.search(r"^game id ([0-9a-f]{64})$", output, re.M)
    assert m, output
    return m.group(1)


def one_game(results: list[tuple[int, str]]) -> str:
    """Every process of `results` (exit status, output) exited 0 having started the same
    game: its id."""
    for rc, out in results:
        assert rc == 0, out
    ids = {game_id(out) for _, out in results}
    assert len(ids) == 1, ids
    return ids.pop()


def stopped_journal(state: Path, game: int, ago: float, *others: tuple[str, int], began: bool = True) -> Path:
    """A journal as a killed seat 0 leaves it in `state`, last marked alive `ago` seconds
    before now; `others`: the other seats' addresses; `began`: its game had begun (its
    log is there, if only as a few bytes: an empty one is a log made and stopped before
    its header, of a game that had not begun), else it stopped as the roster was signed."""
    path = journal_path(state, bytes([game]) * 32)
    log = state / f"{game}.bandit-log"
    Journal.create(path, game=bytes([game]) * 32, seat=0, seed=bytes(32), log=log, port=4000,
                   addresses=[None, *others], roster=b"R").close(finished=False)
    if began:
        log.write_bytes(b"not empty")
    at = time.time() - ago
    os.utime(path, (at, at))
    return path
