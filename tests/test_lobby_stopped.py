"""§6.6 with a `bandit-lan` guest process stopped by SIGSTOP (Ctrl-Z, a laptop lid closed):
its links stay open, carrying nothing, and its port accepts connections (the operating
system does) that are never answered. The lobby's marks of life (`lobby.beat`) find it.
(A host stopped so: tests/test_lobby_processes.py.)"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from cli_support import bandit, finish, kill_all, one_game, read_until


def lobby(tmp_path: Path, name: str, *args: str):  # type: ignore[no-untyped-def]
    return bandit(*args, "--name", name, "--state-dir", str(tmp_path / name), "--lobby-only")


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
    one_game(results)
    assert "bob" in results[2][1] and "dan" in results[2][1]
