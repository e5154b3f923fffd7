"""§6.6 with `bandit-lan` processes stopped by SIGSTOP (Ctrl-Z, a laptop lid closed): their
links stay open, carrying nothing, and their ports accept connections (the operating
system does) that are never answered. The lobby's marks of life (`lobby.beat`) find them."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from cli_support import bandit, finish, game_id, kill_all, read_until


def lobby(tmp_path: Path, name: str, *args: str):  # type: ignore[no-untyped-def]
    return bandit(*args, "--name", name, "--state-dir", str(tmp_path / name), "--lobby-only")


def test_s6_6_a_joiner_whose_host_process_stops_is_told_within_seconds(tmp_path: Path) -> None:
    """The joiner hears nothing from its host for 6 s, takes the link for lost and asks
    the host's front door, whose handshake never comes: the table no longer answers, and
    it says so, instead of waiting for good."""
    seen: list[str] = []
    host = lobby(tmp_path, "alice", "host", "--table", "Porch", "--seats", "3", "--bind", "127.0.0.1", "--no-discovery")
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        guest = lobby(tmp_path, "bob", "join", "--peer", where)
        procs.append(guest)
        joined: list[str] = []
        read_until(guest, r"2 of 3 seats taken", joined)
        os.kill(host.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        rc, out = finish(guest, joined, timeout=40)
        waited = time.monotonic() - stopped
    finally:
        kill_all(procs)
    assert rc == 1 and f"lost the host: its table at {where} no longer answers" in out, out
    assert 6 <= waited < 25, waited  # (6 s of silence, then a handshake that times out after 10 s)


def test_s6_6_a_guest_whose_process_stops_loses_its_seat_and_the_table_starts_without_it(tmp_path: Path) -> None:
    """carol sits down, then stops. bob takes the last seat; carol, seated before him,
    should dial him and never does, so he reports her. The host, which heard nothing
    from her for 6 s, is dialling her again meanwhile, and holds his report until its
    dial fails: carol leaves, not bob. dan takes her seat and the table starts."""
    seen: list[str] = []
    host = lobby(tmp_path, "alice", "host", "--table", "Den", "--seats", "3", "--bind", "127.0.0.1", "--no-discovery")
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        carol = lobby(tmp_path, "carol", "join", "--peer", where)
        procs.append(carol)
        read_until(carol, r"2 of 3 seats taken", [])
        os.kill(carol.pid, signal.SIGSTOP)
        bob = lobby(tmp_path, "bob", "join", "--peer", where)
        procs.append(bob)
        read_until(host, r"3 of 3 seats taken", seen)
        read_until(host, r"carol lost the connection", seen)  # (after 6 s of silence and a dial that failed)
        read_until(host, r"2 of 3 seats taken", seen)
        dan = lobby(tmp_path, "dan", "join", "--peer", where)
        procs.append(dan)
        results = [finish(p, seen if p is host else [], 60) for p in (bob, dan, host)]
    finally:
        kill_all(procs)
    for rc, out in results:
        assert rc == 0, out
    assert len({game_id(out) for _, out in results}) == 1
    assert "bob" in results[2][1] and "dan" in results[2][1]
