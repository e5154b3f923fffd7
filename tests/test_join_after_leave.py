"""`join`, `host` and `play` (a new game) after this player left their last one, whose
others may still play it: each says so, then starts anew (§9.8, §11.3)."""

from __future__ import annotations

import os
import re
import socket
import time
from pathlib import Path

import pytest

from cli.main import main
from cli.stopping import TERMINAL_CLOSED
from p2p.identity import load_or_create_identity
from p2p.log import FairnessLog, header_for
from p2p.roster import Member, Roster, TableRules
from p2p.session import left_the_table
from p2p.signing import signed_message
from tests.ordersim import seeded_identity


def _unused_port() -> int:
    with socket.socket() as sock:  # (nobody listens there once it is closed)
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _left(state: Path, *, delivered: bool, grace_s: int = 60) -> Path:
    """Ann's log (this state directory's identity, seat 1 of Ann, Bo and Cy), closed as
    her terminal was closed: her `leave` came back delivered, or (not `delivered`: Cy was
    away) she went before it did, and the others hold it (§9.8)."""
    me = load_or_create_identity(state)
    others = [seeded_identity(bytes([i]) * 32) for i in (1, 2)]
    members = tuple(Member(i, name, ident.certificate, bytes([i]) * 32)
                    for i, (name, ident) in enumerate(zip(("Ann", "Bo", "Cy"), [me, *others])))
    roster = Roster("Friday", bytes(32), 3, members, rules=TableRules(grace_s=grace_s))
    path = state / "logs" / "0a0b0c-seat1.bandit-log"
    path.parent.mkdir(parents=True)
    log = FairnessLog.create(path, header_for(roster.canonical(), (bytes(64),) * 3, 0), me)
    if delivered:
        log.append(signed_message(me, {"type": "leave", "v": 1, "from": me.peer_id, "reason": TERMINAL_CLOSED}))
    log.close(left_the_table("Ann"), left=None if delivered else TERMINAL_CLOSED)
    return path


def _join(state: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """`bandit-lan join --peer` a table nobody hosts (a new game): what it says."""
    assert main(["join", "--peer", f"127.0.0.1:{_unused_port()}", "--headless", "--state-dir", str(state)]) == 1
    return " ".join(capsys.readouterr().err.split())


def test_s9_8_join_after_your_own_leave_the_others_still_play_says_so_then_joins_anew(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A player whose leave the table had not yet delivered (a seat was away) ran a plain
    `join`: a new lobby, without a word of the game the others may still play. It says
    that game may go on without them, that the seat cannot be taken back, then joins."""
    _left(tmp_path, delivered=False)
    said = _join(tmp_path, capsys)
    assert re.search(r"bandit-lan: your last game, at table 'Friday', may still go on without you: you left it at "
                     r"\d\d:\d\d \(\d+ s ago\) because your terminal was closed, before the table took your leave, "
                     r"and the others end it at that leave or within 1 min of it; you cannot take that seat back, "
                     r"since you left it; joining anew\. bandit-lan: nothing answers at 127\.0\.0\.1", said), said


def _host_or_play(command: str, state: Path, capsys: pytest.CaptureFixture[str],
                  monkeypatch: pytest.MonkeyPatch) -> str:
    """`bandit-lan host` on a port another program holds, or `play` whose bot cannot sit
    down (a new game that ends before its lobby): what it says."""
    if command == "play":
        import subprocess

        import trio

        async def no_bot(cmd: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
            return subprocess.CompletedProcess(cmd, 1, b"", b"not run here")

        monkeypatch.setattr(trio, "run_process", no_bot)
        assert main(["play", "--headless", "--bots", "1", "--state-dir", str(state)]) == 1
    else:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            assert main(["host", "--headless", "--no-discovery", "--bind", "127.0.0.1", "--port",
                         str(taken.getsockname()[1]), "--state-dir", str(state)]) == 1
    return " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(("command", "then"), [("host", "hosting anew"), ("play", "starting a new game")])
def test_s9_8_host_and_play_after_your_own_leave_the_others_still_play_say_so_as_join_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str,
        then: str) -> None:
    """`host` and `play` began a new game without a word of the last one, which the others
    may still play without the player (`join` said so): they say it in `join`'s words."""
    _left(tmp_path, delivered=False)
    said = _host_or_play(command, tmp_path, capsys, monkeypatch)
    assert re.search(r"bandit-lan: your last game, at table 'Friday', may still go on without you: you left it at "
                     r"\d\d:\d\d \(\d+ s ago\) because your terminal was closed, before the table took your leave, "
                     r"and the others end it at that leave or within 1 min of it; you cannot take that seat back, "
                     rf"since you left it; {then}\. bandit-lan: ", said), said


@pytest.mark.parametrize("how", ["delivered", "past the grace period"])
def test_s9_8_join_after_a_game_that_ended_for_everyone_says_nothing_of_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    """A leave the table delivered ended the game for everyone; one it had not delivered,
    once the others' grace period is over: nothing of that game is said."""
    log = _left(tmp_path, delivered=how == "delivered")
    if how != "delivered":
        gone = time.time() - 61
        os.utime(log, (gone, gone))
    said = _join(tmp_path, capsys)
    assert "your last game" not in said and "nothing answers at 127.0.0.1" in said, said
