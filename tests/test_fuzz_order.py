"""§7 under fuzzing: seat 0's orderer, saved at points of a real game, is sent arbitrary
and mutated signed messages (each signed by the seat it names, as a cheating peer
would): every one is taken or refused with an `OrderError` that changes nothing, and
what becomes deliverable is delivered. Regression tests for what was found come first."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ordersim import Network, transmit

SLOW_OK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_thousands_of_held_side_messages_are_released_without_recursion() -> None:
    # Found while writing the §7 fuzz target: each held side message was released
    # by a recursive call, so a peer that sent its side chain backwards (up to the 4096
    # held) crashed the receiver with a RecursionError.
    net = Network(2, 1)
    a, b = net.peers
    sides = [a.orderer.send_side({"type": "shares", "v": 1, "round": 1, "items": []}, 0.0) for _ in range(3000)]
    for envelope in reversed(sides[1:]):
        b.orderer.receive(transmit(envelope), 0.0)
    assert list(b.orderer.side_deliveries()) == []
    b.orderer.receive(transmit(sides[0]), 0.0)
    released = list(b.orderer.side_deliveries())
    assert [env.inner["sseq"] for _, env in released] == list(range(3000))
