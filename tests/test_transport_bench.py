"""bench/transport.py end to end, small: every figure is measured, the split one with its
receiver in a process of its own (§4: signed messages over mutual TLS)."""

from __future__ import annotations

from bench_support import run_bench


def test_s4_5_the_transport_benchmark_measures_one_process_and_two() -> None:
    figures, _ = run_bench("transport.py", "--runs", "1", "--messages", "300", timeout=120)
    assert figures["messages"] == 300 and figures["body_bytes"] > 100
    for key in ("msgs_per_s", "plain_msgs_per_s", "split_msgs_per_s", "connect_ms"):
        assert figures[key] > 0, key
    assert abs(figures["split_over_one"] - figures["split_msgs_per_s"] / figures["msgs_per_s"]) < 0.01
