"""bench/order.py end to end, small: both figures measured, and an ack, whose signature
waits on its signer's own link (§4.5), costs less than a claim, whose signature is checked."""

from __future__ import annotations

from bench_support import run_bench


def test_s7_1_the_order_benchmark_times_a_claim_and_an_ack() -> None:
    figures, _ = run_bench("order.py", "--runs", "1", "--messages", "300", timeout=120)
    assert figures["seats"] == 6 and figures["messages"] == 300
    assert 0 < figures["ack_us"] < figures["content_us"]
