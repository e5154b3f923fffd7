"""§7 under fuzzing: seat 0's orderer, saved at points of a real game, is sent arbitrary
and mutated signed messages (each signed by the seat it names, as a cheating peer
would): every one is taken or refused with an `OrderError` that changes nothing, and
what becomes deliverable is delivered. Regression tests for what was found come first."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.order import ChainBroken, Orderer
from p2p.signing import SignedMessage
from p2p.wire import encode
from tests import fuzz_corpus as corpus
from tests.fuzz_corpus import Freezer
from tests.fuzz_mutate import Codec
from tests.fuzz_strategies import SIGNED, message_of, mutants
from tests.fuzz_targets import case, make_target
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


def forked_sender() -> tuple[Network, Network]:
    """Two orderers for one seat of one game: what a sender that forks its chain runs."""
    return Network(2, 1), Network(2, 1)


@pytest.mark.parametrize("side", [False, True], ids=["content", "side"])
def test_a_fork_under_held_messages_is_refused_with_nothing_changed(side: bool) -> None:
    # Found by the fuzzer: seq 1 held, then a different seq 0 arrived; it was taken, then
    # the held seq 1 failed to chain and the error came with seq 0 accepted and the held
    # messages dropped. Now the whole run is taken or none of it.
    net, fork = forked_sender()
    b = net.peers[1].orderer

    def send(orderer: Orderer, text: str) -> SignedMessage:
        if side:
            return orderer.send_side({"type": "shares", "v": 1, "round": 1, "items": [], "text": text}, 0.0)
        return orderer.send({"type": "leave", "v": 1, "reason": text}, 0.0)

    first, second = send(net.peers[0].orderer, "a"), send(net.peers[0].orderer, "b")
    forged = send(fork.peers[0].orderer, "forged")
    freezer = Freezer({"sign": b._sign})  # noqa: SLF001
    b.receive(transmit(second), 0.0)
    before = freezer.freeze(b)
    with pytest.raises(ChainBroken) as info:
        b.receive(transmit(forged), 0.0)
    assert info.value.peer == net.peers[0].orderer.seats[0]
    assert freezer.freeze(b) == before
    b.receive(transmit(first), 0.0)  # the real chain is still taken whole
    if side:
        assert [env.body for _, env in b.side_deliveries()] == [first.body, second.body]
    else:
        assert b.undelivered() == 2


@settings(SLOW_OK, max_examples=120)
@given(st.data())
def test_mutated_real_messages_at_saved_points_are_taken_or_refused_cleanly(data: st.DataObject) -> None:
    target = make_target("order")
    target.run(data.draw(mutants(target.seeds(), Codec.MSGPACK)))


@settings(SLOW_OK, max_examples=100)
@given(st.data())
def test_schema_built_messages_from_any_seat_are_taken_or_refused_cleanly(data: st.DataObject) -> None:
    g = corpus.game()
    message = data.draw(st.sampled_from(SIGNED))
    fixed = {"from": data.draw(st.sampled_from(g.seats[1:]))}
    if data.draw(st.booleans()):
        fixed["game"] = g.game_id
    steps = [encode(data.draw(message_of(message, **fixed))) for _ in range(data.draw(st.integers(1, 3)))]
    make_target("order").run(case(data.draw(st.integers(0, len(g.order_points) - 1)), *steps))


@settings(SLOW_OK, max_examples=40)
@given(st.data())
def test_any_arrival_order_of_real_chains_delivers_or_names_the_sender(data: st.DataObject) -> None:
    """Both chains of one sender, reordered, repeated and partly lost on the way."""
    net = Network(2, 3)
    a, b = net.peers
    count = data.draw(st.integers(1, 25))
    sent = []
    for i in range(count):
        sent.append(a.orderer.send({"type": "leave", "v": 1, "reason": str(i)}, 0.0))
        sent.append(a.orderer.send_side({"type": "shares", "v": 1, "round": 1, "items": []}, 0.0))
    sent.append(a.orderer.ack(0.0))
    arrivals = data.draw(st.permutations(sent))
    repeats = data.draw(st.lists(st.sampled_from(sent), max_size=5))
    lost = set(data.draw(st.lists(st.integers(0, len(arrivals) - 1), max_size=3)))
    taken = [e for i, e in enumerate([*arrivals, *repeats]) if i not in lost]
    for envelope in taken:
        b.orderer.receive(transmit(envelope), 0.0)  # an honest sender: never an OrderError
    sides = [env.inner["sseq"] for _, env in b.orderer.side_deliveries()]
    assert sides == list(range(len(sides)))
    delivered = [d.envelope.inner["seq"] for d in b.orderer.deliveries()]
    assert delivered == list(range(len(delivered)))
    if not lost:  # the ack promises nothing more below its stamp: everything is stable
        assert sides == list(range(count)) and delivered == list(range(count))
