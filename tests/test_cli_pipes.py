"""A command whose output's reader went away (`bandit-lan audit LOG | head -1`, a closed
window) ends with the status of its own work, and says nothing of the broken pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cli.audit
from cli.main import main

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def reader_gone(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`bandit-lan ARGS` with its standard output a pipe whose reader has already gone:
    its first write fails, whatever it is (as after `| head` has had its lines)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "cli", *args], stdout=write, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, env=ENV, cwd=cwd, timeout=120)
    finally:
        os.close(write)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """A game of two seats played with nobody reading its output; its run, and its first
    seat's log as written and with one byte changed."""
    where = tmp_path_factory.mktemp("played")
    run = reader_gone("play", "--headless", "--bots", "1", "--target", "5", "--json", "--log-dir",
                      str(where / "logs"), "--state-dir", str(where / "state"))
    good = sorted((where / "logs").glob("*-seat1.bandit-log"))[0]
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 1
    bad = where / "changed.bandit-log"
    bad.write_bytes(bytes(data))
    return run, good, bad


def test_play_ends_with_its_games_status_when_nobody_reads_it(played) -> None:  # type: ignore[no-untyped-def]
    run, good, _bad = played
    assert run.returncode == 0 and run.stderr == "", run
    assert good.stat().st_size > 0


@pytest.mark.parametrize("options", [(), ("--json",), ("--brief",)])
def test_audit_exit_status_survives_a_reader_that_went_away(played, options: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """A log that fails its audit exits 1 and one that holds exits 0, however the report
    is printed, with no word of the pipe on standard error (`--json` used to exit 0)."""
    _run, good, bad = played
    for logs, status in [((good,), 0), ((bad,), 1), ((bad, good), 1), ((good, good), 0)]:
        run = reader_gone("audit", *options, *map(str, logs))
        assert (run.returncode, run.stderr) == (status, ""), (logs, run)


def test_host_lobby_only_json_survives_a_reader_gone_after_its_first_line(tmp_path: Path) -> None:
    """`host --lobby-only --json`: its JSON, printed once the bot is seated, finds its
    reader gone (it read the line saying where the table listens): still 0, said nothing."""
    host = subprocess.Popen(
        [sys.executable, "-m", "cli", "host", "--headless", "--seats", "2", "--bots", "1", "--lobby-only", "--json",
         "--no-discovery", "--bind", "127.0.0.1", "--state-dir", str(tmp_path / "state"),
         "--log-dir", str(tmp_path / "logs")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=ENV, cwd=ROOT)
    try:
        assert host.stdout is not None and "listening" in json.loads(host.stdout.readline())
        host.stdout.close()
        _out, errors = host.communicate(timeout=120)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert (host.returncode, errors) == (0, ""), errors


def test_a_broken_pipe_past_tell_is_not_a_success(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A command cut short by a write that failed outside `tell` did not finish its work:
    status 1, said so, not 0 as if it had."""
    def cut_short(_args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli.audit, "run", cut_short)
    assert main(["audit", "any.bandit-log"]) == 1
    assert "stopped before it was done" in capsys.readouterr().err


@pytest.mark.xdist_group("mdns")
@pytest.mark.parametrize("args", [("simulate", "--games", "2", "--json"),
                                  ("tables", "--json", "--timeout", "0", "--interface", "127.0.0.1")])
def test_json_listings_end_with_status_0_when_nobody_reads_them(args: tuple[str, ...]) -> None:
    run = reader_gone(*args)
    assert (run.returncode, run.stderr) == (0, ""), run


def run_with_stdout(stdout: int | None, *args: str) -> subprocess.CompletedProcess[str]:
    """`bandit-lan ARGS` with standard output `stdout`: a descriptor, or None for none at
    all (fd 1 closed, as `>&-` or a daemon started without it)."""
    closed = stdout is None
    return subprocess.run([sys.executable, "-m", "cli", *args], stdout=subprocess.DEVNULL if closed else stdout,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=ENV, cwd=ROOT,
                          timeout=120, preexec_fn=(lambda: os.close(1)) if closed else None)


def test_a_command_started_without_standard_output_keeps_its_status(played) -> None:  # type: ignore[no-untyped-def]
    """fd 1 closed: Python has no `sys.stdout`; each command still ends with its own
    status, and no traceback."""
    _run, good, bad = played
    for args, status in [(("audit", str(good)), 0), (("audit", str(bad)), 1), (("audit", "--json", str(bad)), 1),
                         (("audit", str(good.parent / "nowhere.bandit-log")), 2)]:
        run = run_with_stdout(None, *args)
        assert (run.returncode, "Traceback" in run.stderr) == (status, False), (args, run.stderr)


def test_output_to_a_full_disk_fails_the_command_and_says_so(played) -> None:  # type: ignore[no-untyped-def]
    """`audit --json LOG > out.json` on a full disk (/dev/full): what it told is cut short,
    so it fails whatever the audit found, and says why on standard error."""
    _run, good, _bad = played
    with open("/dev/full", "w") as full:
        for options in [("--json",), ()]:
            run = run_with_stdout(full.fileno(), "audit", *options, str(good))
            assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
            assert "its output could not be written (No space left on device)" in run.stderr, run.stderr
