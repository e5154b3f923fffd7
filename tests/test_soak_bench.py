"""bench/soak.py itself: a short soak of the in-memory kinds of game reports its counts in one
JSON line, and a game that fails a check is reported with its kind and seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_support import run_bench


def test_a_short_soak_of_the_in_memory_kinds_finds_nothing() -> None:
    # (seed 5: its leave comes before that game ends; a game that ended first is skipped)
    result, printed = run_bench("soak.py", "--seed", "5", "--games", "1")
    assert result["games"] == {"table": 1, "faults": 1, "leave": 1} and result["failures"] == []
    assert "3 games (1 table, 1 faults, 1 leave)" in printed


def test_a_game_that_fails_a_check_is_reported_with_its_seed(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from bench import soak
    from p2p.audit import AuditResult, Failure

    def broken(path: Path) -> AuditResult:  # every log "fails" its audit
        return AuditResult(path, first_failure=Failure(3, 1, "§7.2", "chain broken"))

    monkeypatch.setattr(soak, "audit", broken)
    assert soak.main(["--kind", "faults", "--seed", "4", "--games", "1", "--json"]) == 1
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [(f["kind"], f["seed"]) for f in result["failures"]] == [("faults", 4)]
    assert "does not audit" in result["failures"][0]["why"] and "§7.2" in result["failures"][0]["why"]


def test_a_process_told_to_stop_mid_game_ends_everybody_s_game_at_its_leave() -> None:
    """One game of the `stop` kind: real processes, one sent a stop signal mid-game (§9.8)."""
    result, _ = run_bench("soak.py", "--kind", "stop", "--seed", "1", "--games", "1")
    assert result["games"] == {"stop": 1} and result["failures"] == []


def test_a_leave_game_names_its_leaver_counting_seats_from_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a leave game was and why it failed are read by a person: the seat that left
    is counted from 1, as the program counts seats everywhere a person reads them."""
    from bench import soak
    from p2p.audit import AuditResult, Failure

    leavers: list[int] = []
    leaving = soak.LeavingTable

    def table(leaver: int, *args: object, **options: object) -> soak.LeavingTable:
        leavers.append(leaver)
        return leaving(leaver, *args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(soak, "LeavingTable", table)
    monkeypatch.setattr(soak, "audit", lambda path: AuditResult(path, first_failure=Failure(3, 1, "§7.2", "chain broken")))
    what, why = soak.leave_game(5)  # (seed 5: its leave comes before that game ends)
    seat = leavers[0] + 1
    assert f"seat {seat} leaves after " in what and f"does not audit as left by seat {seat}: " in (why or ""), (what, why)
