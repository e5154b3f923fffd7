"""bench/snap.py's trace reading (R6 claims): which claims count, and what its report of
the slowest claims says about a race, checked on a hand-made timeline."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def snap():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_snap", ROOT / "bench" / "snap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_snap"] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def tl(t: float, me: int, what: str, seat: int, kind: str) -> list[object]:
    return [t, me, what, seat, kind, None, None]


# Seat 0 claims at 1.000 s and seat 1 at 1.002 s (a race); seat 2's claim at 2.000 s is
# alone. Seat 3's claim at 3.000 s never reaches seat 2's engine (not every peer applied it).
SENT = {(0, 5): 1.000, (1, 7): 1.002, (2, 9): 2.000, (3, 4): 3.000}
APPLIED = {
    (0, 5): [1.004, 1.006, 1.009],
    (1, 7): [1.005, 1.007, 1.008],
    (2, 9): [2.001, 2.002, 2.003],
    (3, 4): [3.001, 3.002],
}
TIMELINE = sorted([
    tl(1.000, 0, "send", 0, "snap"), tl(1.001, 1, "recv", 0, "snap"), tl(1.001, 2, "recv", 0, "snap"),
    tl(1.002, 1, "send", 1, "snap"), tl(1.002, 2, "send", 2, "ack"), tl(1.003, 0, "recv", 2, "ack"),
    tl(1.003, 1, "recv", 2, "ack"), tl(1.006, 0, "send", 0, "shares"), tl(1.0065, 1, "recv", 0, "shares"),
    tl(1.030, 0, "send", 0, "shuffle"),  # 21 ms after the race: within 50 ms of it
    tl(2.000, 2, "send", 2, "snap"), tl(2.0005, 0, "recv", 2, "snap"),
])


def test_R6_only_claims_applied_at_every_peer_are_timed_slowest_last(snap) -> None:  # type: ignore[no-untyped-def]
    timed = snap.timed_claims(SENT, APPLIED, 3)
    assert [claim for _took, claim in timed] == [(2, 9), (1, 7), (0, 5)]
    assert [round(took * 1000, 3) for took, _claim in timed] == [3.0, 6.0, 9.0]


def test_R6_the_slowest_claims_report_their_race_and_what_else_was_sent(snap, capsys) -> None:  # type: ignore[no-untyped-def]
    snap.slowest(TIMELINE, SENT, APPLIED, 3, count=2)
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("slow claim, p1's claim 5: 9.0 ms; claims in its race")
    assert "its race (sent from 10 ms before it until its outcome was applied everywhere): 2;" in first
    assert "recv ack 2, recv shares 1, recv snap 2, send ack 1, send shares 1, send snap 2;" in first
    assert first.endswith("other messages within 50 ms: shuffle")
    assert second.startswith("slow claim, p2's claim 7: 6.0 ms;")
    assert "recv ack 2, recv shares 1, send ack 1, send shares 1, send snap 1;" in second


def test_R6_cpu_inside_claim_windows_is_read_off_each_peers_notes_once_per_merged_window(snap) -> None:  # type: ignore[no-untyped-def]
    # Peer A notes its CPU clock at 0.5, 1.0, 1.004 and 2.5 s; peer B at 1.001 and 1.010 s.
    clocks = [[(0.5, 1.0), (1.0, 1.5), (1.004, 1.503), (2.5, 2.0)], [(1.001, 0.25), (1.010, 0.26)]]
    # Two overlapping claims (1.000-1.009 and 1.002-1.005 s, merged) and one at 2.000-2.001 s
    # where neither peer noted anything.
    windows = [(1.000, 1.009), (1.002, 1.005), (2.000, 2.001)]
    assert snap.window_cpu(clocks, windows) == pytest.approx((1.503 - 1.5) + (0.25 - 0.25))
    assert snap.window_cpu([[]], windows) == 0.0


def test_R6_peers_that_share_a_process_note_one_cpu_clock_counted_once(snap, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`--processes 2` with 4 peers: seats 0 and 2 run in process 0, seats 1 and 3 in
    process 1. Each process's CPU clock is one, whichever of its peers read it: a window is
    counted once a process, not once a peer."""
    import json

    notes = {0: [(1.0, 5.0)], 1: [(1.0, 7.0)], 2: [(1.01, 5.004)], 3: [(1.01, 7.002)]}
    for seat, cpu in notes.items():
        (tmp_path / f"trace{seat}.jsonl").write_text(json.dumps({"cpu": cpu}) + "\n")
    trace = snap.GameTrace({}, {}, [], [], [])
    snap.read_traces(tmp_path, 4, 2, trace)
    assert sorted(trace.cpu_clocks) == [[(1.0, 5.0), (1.01, 5.004)], [(1.0, 7.0), (1.01, 7.002)]]
    assert snap.window_cpu(trace.cpu_clocks, [(1.0, 1.01)]) == pytest.approx(0.004 + 0.002)


def test_the_report_names_the_interpreter_the_peers_ran_on(snap) -> None:  # type: ignore[no-untyped-def]
    import platform

    said = snap.interpreter()
    assert said.startswith(f"{platform.python_implementation()} {platform.python_version()} (")
    assert platform.python_compiler() in said


def test_a_seat_whose_game_did_not_finish_is_named_counting_from_1(snap, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What the benchmark says of a seat is read by a person: the guest in seat index 1 is
    "seat 2", its player "p2", as the program counts seats."""
    from contextlib import asynccontextmanager
    from types import SimpleNamespace

    import trio

    joined: list[str] = []

    @asynccontextmanager
    async def mesh(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        yield SimpleNamespace(port=4000)

    async def join_table(mesh: object, hosts: object, *, name: str, expect_host: bytes) -> object:
        joined.append(name)
        return object()

    class Peer:
        def __init__(self, *args: object, **kwargs: object) -> None: ...

        async def run(self) -> object:
            return SimpleNamespace(finished=False, why="p1 left the table")

    monkeypatch.setattr(snap, "open_mesh", mesh)
    monkeypatch.setattr(snap, "load_or_create_identity", lambda folder: SimpleNamespace())
    monkeypatch.setattr(snap, "join_table", join_table)
    monkeypatch.setattr(snap, "TimedPeer", Peer)
    (tmp_path / "port").write_text("4000 00")
    listening = trio.Event()
    listening.set()
    with pytest.raises(SystemExit, match=r"^seat 2: p1 left the table"):
        trio.run(snap.worker, 1, 2, tmp_path, tmp_path / "port", False, 5, False, listening)
    assert joined == ["p2"]


def test_the_median_claim_s_story_names_players_as_they_are_named(snap, capsys) -> None:  # type: ignore[no-untyped-def]
    """The claims and the peers of the story are named as the players are, p1, p2 …"""
    snap.story(TIMELINE, SENT, APPLIED, 3)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "median claim, p2's claim 7: 6.0 ms"  # (seat index 1: player p2)
    assert "0.00 ms  p2 send     p2 snap " in "\n".join(lines), lines
