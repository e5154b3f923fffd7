"""What the `bandit-lan` command does before any command's work: start-up, --version."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import ROOT
from p2p.roster import PROTOCOL_VERSION


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m ARGS…` started as a shell starts a command: Ctrl-C (SIGINT) not ignored."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.parametrize("module", ["cli.lobby_common", "p2p.roster", "cli.audit", "trio"])
@pytest.mark.parametrize("command", [("play", "--headless"), ("audit", "nothing.bandit-log")])
def test_ctrl_c_during_start_up_exits_quietly_with_status_130(module: str, command: tuple[str, ...]) -> None:
    """A real SIGINT as `module` starts loading: no traceback, status 130 (as a shell
    reports a command a Ctrl-C stopped)."""
    done = run("tests.interrupted_start", module, *command)
    assert done.returncode == 130 and "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done


def test_version_names_the_release_and_the_protocol() -> None:
    done = run("cli", "--version")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.strip().startswith("bandit-lan ") and done.stdout.strip().endswith(
        f"(protocol {PROTOCOL_VERSION})"), done.stdout


def test_one_option_has_one_metavar_in_every_command() -> None:
    """`--bots N`, `--target TARGET`, `--code WORD`, as README's table of options has them."""
    from cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command").choices
    shown = {}
    for name in ("play", "host", "join"):
        for action in sub[name]._actions:
            if action.option_strings and action.metavar is not None or action.option_strings and action.nargs != 0:
                shown.setdefault(action.option_strings[-1], set()).add(action.metavar or action.dest.upper())
    assert shown["--bots"] == {"N"} and shown["--target"] == {"TARGET"} and shown["--code"] == {"WORD"}, shown


def test_s10_1_a_folder_without_permission_names_the_option_that_chooses_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Made to fail in the process: a test run as root may write anywhere.)"""
    from pathlib import Path as RealPath

    from cli.folders import folder_problem

    def refused(self: RealPath, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(RealPath, "mkdir", refused)
    assert folder_problem(tmp_path / "home" / "state", "this player's identity", "--state-dir") == (
        f"cannot keep this player's identity in {tmp_path / 'home' / 'state'}: Permission denied; choose another "
        "folder with --state-dir")


def test_ctrl_c_while_a_line_mode_join_looks_for_its_table_leaves_at_once(tmp_path: Path) -> None:
    """Line mode (--headless): Ctrl-C while the table is looked for by name ends the search
    at once with the status of an interrupt, not after the whole --timeout."""
    import signal

    from tests.cli_support import bandit, finish, read_until

    proc, seen = bandit("join", "NoSuchTable", "--headless", "--timeout", "120", "--state-dir", str(tmp_path)), []
    try:
        read_until(proc, "Looking for 'NoSuchTable' on the LAN", seen)
        proc.send_signal(signal.SIGINT)
        status, out = finish(proc, seen, timeout=30)
    finally:
        proc.kill()
    assert status == 130 and "no table named" not in out, out


def test_play_in_line_mode_says_first_the_name_the_others_and_the_logs_know_you_by(tmp_path: Path) -> None:
    """Line mode: the table log's first line names the seat as the others, the standings
    and the logs do (the login name without --name; --name's, as chosen)."""
    import getpass

    from tests.cli_support import bandit, read_until

    for name, said in ((None, f"You play as {getpass.getuser()} (choose with --name)."), ("Ana", "You play as Ana.")):
        extra = () if name is None else ("--name", name)
        proc, seen = bandit("play", "--headless", "--bots", "1", "--state-dir", str(tmp_path / (name or "login")),
                            *extra), []
        try:
            read_until(proc, "Round 1:", seen)
        finally:
            proc.kill()
            proc.wait()
        assert f"  {said}\n" in "".join(seen), seen


def test_ctrl_c_in_a_line_mode_host_s_lobby_says_the_table_closed_as_the_full_screen_does(tmp_path: Path) -> None:
    """One wording for a host that closes its lobby: in line mode (Ctrl-C) as on the full
    screen (Ctrl-C, yes): "You closed the table before the game began." (it said "Leaving
    the table.")."""
    from tests.cli_support import bandit, interrupted_at

    status, out = interrupted_at(bandit("host", "--headless", "--no-discovery", "--bind", "127.0.0.1", "--state-dir",
                                        str(tmp_path)), "Others join with")
    assert status == 130 and "You closed the table before the game began." in out, out
    assert "Leaving the table" not in out, out


def test_s5_2_ctrl_c_while_a_line_mode_join_looks_for_its_table_says_it_stopped_looking(tmp_path: Path) -> None:
    """A line-mode `join` stopped (Ctrl-C) while it still looked for its table on the
    LAN said "Leaving the table.", though it never sat at one: it says it stopped looking."""
    from tests.cli_support import bandit, interrupted_at

    status, out = interrupted_at(bandit("join", "Nowhere at all", "--lobby-only", "--timeout", "60", "--state-dir",
                                        str(tmp_path)),
                                 "Looking for 'Nowhere at all' on the LAN")
    assert status == 130 and "Stopped looking for the table." in out, out
    assert "Leaving the table" not in out, out
