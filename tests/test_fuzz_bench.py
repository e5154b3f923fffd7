"""bench/fuzz.py itself: a short run over every target reports its counts in one JSON
line, and the harness really sees an unhandled exception, a hang and a crash (the
deliberately broken `canary` target), with each engine that is installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz_targets import ALL_TARGETS

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ["random"] + (["atheris"] if importlib.util.find_spec("atheris") else [])


def fuzz(tmp_path: Path, *args: str) -> tuple[int, dict, str]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fuzz.py"), "--json", "--out", str(tmp_path / "out"), *args],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    lines = done.stdout.strip().splitlines()
    return done.returncode, json.loads(lines[-1]), done.stdout


def test_a_short_run_over_every_target_finds_nothing(tmp_path: Path) -> None:
    code, result, text = fuzz(tmp_path, "--engine", "random", "--inputs", "900", "--workers", "2")
    assert code == 0, text
    assert result["inputs"] == 900 and result["engine"] == "random"
    assert (result["crashes"], result["hangs"], result["unhandled"], result["invariant"]) == (0, 0, 0, 0)
    assert set(result["per_target"]) == set(ALL_TARGETS)
    for name, tally in result["per_target"].items():
        assert tally["inputs"] == tally["accepted"] + tally["rejected"] > 0, name
        assert tally["accepted"] >= 1 and tally["seeds"] >= 1, name  # the real inputs are accepted
    assert "0 crashes, 0 hangs, 0 unhandled exceptions" in text
    assert any((tmp_path / "out" / "corpus" / name).iterdir() for name in ALL_TARGETS)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_harness_counts_an_exception_a_hang_and_a_crash(tmp_path: Path, engine: str) -> None:
    code, result, text = fuzz(tmp_path, "--engine", engine, "--target", "canary", "--inputs", "300", "--hang-seconds", "1")
    assert code == 1, text
    # (a worker that ends quietly, status 0, in the middle of an input is a crash too: it
    # was neither counted nor reported, and the rest of its inputs were dropped)
    assert result["unhandled"] >= 1 and result["hangs"] == 1 and result["crashes"] == 2, text
    assert result["inputs"] >= 290
    findings = {name.split("-")[1] for name in result["findings"]}
    assert {"unhandled", "hang", "crash"} <= findings
    hang = next((tmp_path / "out").glob("canary-hang-*.txt")).read_text()
    assert "run_canary" in hang  # the stack of the stuck worker was kept
    assert next((tmp_path / "out").glob("canary-hang-*.bin")).read_bytes() == b"?hang"
    assert {p.read_bytes() for p in (tmp_path / "out").glob("canary-crash-*.bin")} == {b"*abort", b"=exit"}
    # an --out used again (atheris keeps its corpus there): the old findings are not this run's
    code, again, text = fuzz(tmp_path, "--engine", "random", "--target", "txt", "--inputs", "50")
    assert code == 0 and again["findings"] == [], text


def test_a_timed_run_gives_every_target_an_equal_share_of_the_workers_time() -> None:
    """Three targets on two workers for 12 s: each target runs 2 jobs of 4 s (one job a
    target left the last one 4 s of its 8 and a worker idle)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from fuzz import plan
    finally:
        sys.path.remove(str(ROOT / "bench"))
    jobs = plan(["txt", "roster", "deck"], None, 1000, 2, 12.0, 0)
    assert sorted(j.target for j in jobs) == ["deck", "deck", "roster", "roster", "txt", "txt"]
    assert {j.budget for j in jobs} == {4.0} and len({j.seed for j in jobs}) == 6
