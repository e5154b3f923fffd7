"""bench/arrival.py end to end, small: a few round trips of a signed claim and its ack
between two live meshes over TLS, timed per arrival (§4.5, §7.1)."""

from __future__ import annotations

from bench_support import run_bench


def test_s7_1_the_arrival_benchmark_times_claims_and_their_acks() -> None:
    figures, printed = run_bench("arrival.py", "--n", "20", "--warm", "5", "--runs", "1", timeout=120)
    assert figures["n"] == 20 and figures["runs"] == 1
    assert figures["us_per_arrival"] > 0
    assert "µs of CPU per arrival" in printed
