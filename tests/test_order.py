"""§7 agreed order: every peer delivers the identical sequence, whatever the network does."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from p2p.order import (
    ACK_TYPE,
    message_hash,
    ChainBroken,
    Equivocation,
    HeadsInvalid,
    HeadsUnheld,
    MalformedHeader,
    StampBackwards,
    ZERO_HASH,
    tiebreak,
)
from tests.ordersim import Network, make_signer, transmit


def sequences(net: Network) -> list[list[bytes]]:
    return [[message_hash(d.envelope.body) for d in p.delivered] for p in net.peers]


def run_workload(net: Network, seed: int, messages: int, spread: float) -> list[bytes]:
    rng = random.Random(seed)
    times = sorted((rng.random() * spread, rng.randrange(len(net.peers))) for _ in range(messages))
    for n, (t, seat) in enumerate(times):
        net.run_until(t)
        net.send(seat, {"type": "note", "v": 1, "n": n})  # (it may wait for what it is to name, §7.3)
    net.quiesce()
    assert not any(p.orderer._unsent for p in net.peers)  # everything went, in the end
    sent = [message_hash(e.body) for p in net.peers for e in p.orderer._sent]
    assert len(sent) == messages
    return sent


@settings(max_examples=40, deadline=None)
@given(
    peers=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    drop=st.sampled_from([0.0, 0.05, 0.25]),
    spread=st.sampled_from([0.001, 0.05, 1.0]),
)
def test_order_identical_at_every_peer(peers: int, seed: int, drop: float, spread: float) -> None:
    net = Network(peers, seed, drop=drop)
    sent = run_workload(net, seed, messages=30, spread=spread)
    seqs = sequences(net)
    assert all(s == seqs[0] for s in seqs)
    assert sorted(seqs[0]) == sorted(sent)  # each delivered exactly once
    assert not any(p.errors for p in net.peers)
    assert all(d.rejected is None for p in net.peers for d in p.delivered)


def test_order_respects_stamps_and_causality() -> None:
    net = Network(4, 7, jitter=0.01)
    run_workload(net, 7, messages=80, spread=0.3)
    delivered = net.peers[0].delivered
    stamps = [d.stamp for d in delivered]
    assert stamps == sorted(stamps)
    position = {message_hash(d.envelope.body): d.position for d in delivered}
    for d in delivered:  # everything a message says it had received orders before it
        for (seq, digest) in d.envelope.inner["heads"]:
            if seq >= 0:
                assert position[digest] < d.position


def test_order_causal_reply_follows_what_it_answers() -> None:
    net = Network(3, 1)
    first = net.send(0, {"type": "note", "v": 1})
    net.run_until(0.1)
    reply = net.send(1, {"type": "note", "v": 1})
    net.quiesce()
    order = [message_hash(d.envelope.body) for d in net.peers[2].delivered]
    assert order.index(message_hash(first.body)) < order.index(message_hash(reply.body))


def test_order_ties_favour_no_seat() -> None:
    """Concurrent messages with equal stamps are ordered by the salted tie-break."""
    wins = Counter()
    for seed in range(300):
        net = Network(3, seed)
        for seat in range(3):
            net.send(seat, {"type": "claim", "v": 1})  # all stamped 1: a three-way tie
        while not net.peers[0].delivered:  # the first delivery waits for every seat's stamp: the tie is whole
            net.run_until(net.now + 0.05)
        wins[net.peers[0].delivered[0].seat] += 1
    assert set(wins) == {0, 1, 2}
    assert min(wins.values()) > 60  # a fair lottery gives ~100 each


def test_order_salt_applies_after_the_stamp_being_delivered() -> None:
    net = Network(2, 3)
    salt = b"\x01" * 32
    for p in net.peers:
        p.orderer.set_salt(salt)  # as if set while delivering stamp 0
    net.send(0, {"type": "claim", "v": 1})
    net.send(1, {"type": "claim", "v": 1})
    net.quiesce()
    first = net.peers[0].delivered[0]
    ids = net.peers[0].orderer.seats
    expected = min(range(2), key=lambda s: tiebreak(salt, 1, ids[s]))
    assert first.seat == expected
    assert sequences(net)[0] == sequences(net)[1]


# -- violations: each is attributed to its sender and leaves honest state intact --------


def forge(net: Network, seat: int, **overrides):
    """A content message from `seat` built by hand (as a cheating peer would)."""
    peer = net.peers[seat]
    o = peer.orderer
    mine = o._peers[seat]
    inner = {
        "type": "note",
        "v": 1,
        "from": o.seats[seat],
        "game": o.game,
        "lamport": o.clock + 1,
        "seq": mine.next_seq,
        "prev": mine.chain_hash,
        "heads": o._heads(),
    }
    inner.update(overrides)
    return make_signer(peer.identity)(inner)


def deliver_to(net: Network, dst: int, envelope) -> None:
    net.peers[dst].orderer.receive(transmit(envelope), net.now)
    net.peers[dst].delivered.extend(net.peers[dst].orderer.deliveries())


def test_order_rejects_broken_chain() -> None:
    net = Network(3, 5)
    bad = forge(net, 0, prev=b"\x07" * 32)
    with pytest.raises(ChainBroken) as info:
        deliver_to(net, 1, bad)
    assert info.value.peer == net.peers[0].orderer.seats[0] and info.value.section == "§7.2"
    assert net.peers[1].orderer.undelivered() == 0


def test_order_rejects_equivocation_with_evidence() -> None:
    net = Network(3, 5)
    one = net.send(0, {"type": "note", "v": 1, "text": "a"})
    net.quiesce()
    twin = forge(net, 0, seq=0, prev=net.peers[0].orderer.game, lamport=1, text="b")
    with pytest.raises(Equivocation) as info:
        deliver_to(net, 1, twin)
    assert info.value.evidence and info.value.evidence[0].body != one.body


def test_order_rejects_stamp_going_backwards() -> None:
    net = Network(3, 5)
    net.send(0, {"type": "note", "v": 1})
    net.send(0, {"type": "note", "v": 1})
    net.quiesce()
    late = forge(net, 0, lamport=1)
    with pytest.raises(StampBackwards):
        deliver_to(net, 2, late)


def test_order_rejects_stamp_below_a_promise() -> None:
    """An ack promises higher stamps for what follows; a message that breaks it is refused."""
    net = Network(2, 5)
    net.send(1, {"type": "note", "v": 1})
    net.run_until(0.01)
    o = net.peers[0].orderer
    o._seen = 50  # seat 0 promises: nothing more from me at or below 50
    deliver_to(net, 1, o.ack(net.now))
    with pytest.raises(StampBackwards):
        deliver_to(net, 1, forge(net, 0, lamport=11))


def test_order_rejects_malformed_headers() -> None:
    net = Network(3, 5)
    for overrides in [
        {"lamport": -1},
        {"lamport": "1"},
        {"seq": -2},
        {"prev": b"short"},
        {"heads": []},
        {"heads": [[0, b"x"], [0, b"y"]]},
        {"heads": [[-1, b"\x2a" * 32], [-1, ZERO_HASH]]},  # (§7.1: no message is [-1, 32 zero bytes] only)
        {"game": b"\x00" * 32},
    ]:
        with pytest.raises(MalformedHeader):
            deliver_to(net, 1, forge(net, 0, **overrides))
    assert net.peers[1].orderer.undelivered() == 0


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"lamport": 2**62}, "lamport must be an integer"),
        ({"heads": [[-1, ZERO_HASH]]}, "heads must list the 2 other seats"),
        ({"heads": [[-2, ZERO_HASH], [-1, ZERO_HASH]]}, "a head must be"),
        ({"heads": [[-1, ZERO_HASH], (-1, ZERO_HASH)]}, "a head must be"),
        ({"last": [True, ZERO_HASH]}, "a head must be"),
        ({"slast": [-1, b"short"]}, "a head must be"),
        ({"last": [-1, b"\x2a" * 32]}, "a head must be"),  # (none is [-1, 32 zero bytes] and nothing else)
        ({"heads": [[-1, ZERO_HASH], [-1, b"\x01" + bytes(31)]]}, "a head must be"),
        ({"sides": [[-1, b"\x2a" * 32], [-1, ZERO_HASH]]}, "a head must be"),
        ({"sides": [[-1, ZERO_HASH]]}, "sides must list the 2 other seats"),
        ({"sides": [[-1, ZERO_HASH], [-1]]}, "a head must be"),
        ({"away": [2, 0]}, "away must list distinct seats"),
        ({"away": [0, 0]}, "away must list distinct seats"),
        ({"away": [3]}, "away must list distinct seats"),
        ({"away": (0,)}, "away must list distinct seats"),
    ],
)
def test_s7_1_an_ack_s_header_is_checked_field_by_field(overrides: dict[str, Any], reason: str) -> None:
    net = Network(3, 5)
    ack = net.peers[0].orderer.ack(0.0)
    inner = {**ack.inner, **overrides}
    with pytest.raises(MalformedHeader, match=reason):
        net.peers[1].orderer.receive(net.peers[0].orderer._sign(inner), 0.0)
    net.peers[1].orderer.receive(transmit(ack), 0.0)  # (the ack as it was passes: each forgery fails for its field)


def test_order_rejects_heads_the_sender_could_not_hold() -> None:
    """A message stamped at or below a message it claims to have seen is rejected at delivery."""
    net = Network(3, 9)
    notes = [net.peers[1].orderer.send({"type": "note", "v": 1}, 0.0) for _ in range(5)]  # stamps 1 to 5
    early = notes[-1]
    # seat 0 claims to have seen it, yet stamps itself 2: impossible for an honest peer.
    cheat = forge(net, 0, lamport=2, heads=[[4, message_hash(early.body)], [-1, ZERO_HASH]])
    for dst in (1, 2):
        deliver_to(net, dst, cheat)  # (seat 2 holds it until it has what it names, §7.3)
    for note in notes:
        net.broadcast(1, note)
    net.quiesce()
    verdicts = [[(message_hash(d.envelope.body), type(d.rejected)) for d in p.delivered] for p in net.peers[1:]]
    assert verdicts[0] == verdicts[1] and (message_hash(cheat.body), HeadsInvalid) in verdicts[0]
    # seat 0's own acks (last: -1, stamped above 2) contradict the seq 0 forged in its name:
    # that is refused too, whichever arrived first (§7.3), and nothing is blamed on anybody else
    cheater = net.peers[0].orderer.seats[0]
    for peer in net.peers[1:]:
        assert peer.errors and all(isinstance(e, StampBackwards) and e.peer == cheater for e in peer.errors)


def test_order_holds_out_of_order_and_fills_gaps() -> None:
    net = Network(2, 11)
    a = net.peers[0].orderer.send({"type": "note", "v": 1}, 0.0)
    b = net.peers[0].orderer.send({"type": "note", "v": 1}, 0.0)
    o1 = net.peers[1].orderer
    o1.receive(transmit(b), 0.0)
    assert list(o1.deliveries()) == []  # held: seq 1 before seq 0
    o1.receive(transmit(a), 0.0)
    got = list(o1.deliveries())
    assert [message_hash(d.envelope.body) for d in got] == [message_hash(a.body), message_hash(b.body)]


def test_order_zero_hash_constant_is_all_zero() -> None:
    assert ZERO_HASH == bytes(32)


def _vector_rows() -> dict[str, str]:
    """§7.9's table: the function each row names → the output written in that row."""
    from pathlib import Path

    text = Path(__file__).resolve().parent.parent.joinpath("protocol.md").read_text(encoding="utf-8")
    section = text.split("### 7.9 Test vectors", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if m := re.match(r"\| `(\w+)\(.*\| `([0-9a-f]{64})` \|$", line):
            rows[m.group(1)] = m.group(2)
    return rows


def test_order_protocol_vectors_match_code() -> None:
    """§7.9: each row's output is what the function that row names computes (a value
    found anywhere in the section did not tell which row it belonged to)."""
    from p2p.order import message_hash, side_genesis

    rows = _vector_rows()
    assert rows["message_hash"] == message_hash(b"\x81\xa4type\xa4note").hex()
    assert rows["tiebreak"] == tiebreak(bytes(range(32)), 7, b"\xaa" * 32).hex()
    assert rows["side_genesis"] == side_genesis(bytes(range(32))).hex()


class SaltingNetwork(Network):
    """Sets a new salt while delivering the message marked 'beacon' (as the table does),
    and has seats 1 and 2 answer the beacon with a claim the moment they receive it, so
    that seat 0 finds the beacon and both claims stable in one batch."""

    salt = b""

    def on_deliveries(self, peer) -> None:  # type: ignore[no-untyped-def]
        for d in peer.orderer.deliveries():
            peer.delivered.append(d)
            if d.envelope.inner["type"] == "beacon":
                peer.orderer.set_salt(self.salt)

    def _arrive(self, dst, envelope) -> None:  # type: ignore[no-untyped-def]
        if envelope.inner.get("type") == "beacon" and dst in (1, 2):
            self.peers[dst].orderer.receive(transmit(envelope), self.now)
            self.send(dst, {"type": "claim", "v": 1})
            self.on_deliveries(self.peers[dst])
            return
        super()._arrive(dst, envelope)


def test_order_salt_set_mid_batch_applies_to_the_next_stamp_everywhere() -> None:
    """§7.4: a salt set while processing stamp L orders stamp L+1 at every peer, even
    where L and L+1 became deliverable in one batch."""
    for seed in range(20):
        net = SaltingNetwork(3, seed)
        ids = net.peers[0].orderer.seats
        # a salt that orders the stamp-2 tie differently from the game-id salt
        net.salt = next(
            bytes([i]) * 32
            for i in range(256)
            if (tiebreak(bytes([i]) * 32, 2, ids[1]) < tiebreak(bytes([i]) * 32, 2, ids[2]))
            != (tiebreak(net.game, 2, ids[1]) < tiebreak(net.game, 2, ids[2]))
        )
        net.send(0, {"type": "beacon", "v": 1})
        net.quiesce()
        seqs = sequences(net)
        assert all(len(s) == 3 for s in seqs)
        assert all(s == seqs[0] for s in seqs)
        first_claim = net.peers[0].delivered[1].seat
        assert first_claim == min((1, 2), key=lambda s: tiebreak(net.salt, 2, ids[s]))


# -- §7.8 side chains: unordered, but chained, deduplicated and retransmitted -----------


def test_order_side_messages_arrive_in_chain_order_despite_loss() -> None:
    for seed in range(20):
        net = Network(3, seed, drop=0.25, jitter=0.01)
        sent = [message_hash(net.peers[0].orderer.send_side({"type": "shares", "v": 1, "n": i}, 0.0).body)
                for i in range(12)]
        for envelope in net.peers[0].orderer._side_sent:
            net.broadcast(0, envelope)
        net.send(1, {"type": "note", "v": 1})  # some content so acks (which carry side heads) flow
        net.quiesce()
        for peer in net.peers[1:]:
            got = [message_hash(e.body) for seat, e in peer.sides if seat == 0]
            assert got == sent, f"seed {seed}"
        assert not any(p.errors for p in net.peers)


def test_order_s7_8_side_messages_are_confirmed_so_a_healthy_link_never_resends_them() -> None:
    """Side messages are never answered on their own, but each receiver confirms them
    (an ack carrying `sides`) within SIDE_CONFIRM_AFTER, before the sender's
    retransmission timeout: without loss every side message crosses each link once."""
    from p2p.order import SIDE_CONFIRM_AFTER

    net = Network(4, 7)
    copies: Counter[tuple[int, int]] = Counter()  # (destination, sseq) -> frames of it sent
    acks: list[tuple[float, int]] = []  # (time, sender)
    post, broadcast = net._post, net.broadcast

    def posting(src: int, dst: int, envelope: Any) -> None:
        if src == 0 and "sseq" in envelope.inner:
            copies[(dst, envelope.inner["sseq"])] += 1
        post(src, dst, envelope)

    def broadcasting(src: int, envelope: Any) -> None:
        if envelope.inner["type"] == "ack":
            acks.append((net.now, src))
        broadcast(src, envelope)

    net._post, net.broadcast = posting, broadcasting  # type: ignore[method-assign]
    for i in range(3):
        net.broadcast(0, net.peers[0].orderer.send_side({"type": "shares", "v": 1, "n": i}, net.now))
    net.run_until(5.0)
    assert copies == {(dst, sseq): 1 for dst in (1, 2, 3) for sseq in range(3)}
    for seat in (1, 2, 3):  # each confirmed them in time, with one ack, long before its heartbeat
        first = min(t for t, src in acks if src == seat)
        assert first <= net.latency + net.jitter + SIDE_CONFIRM_AFTER
        assert net.peers[0].orderer._peers[seat].has_side_of_mine == 2
    assert not any(p.errors for p in net.peers)


def test_order_side_fork_is_equivocation() -> None:
    net = Network(2, 3)
    o0 = net.peers[0].orderer
    first = o0.send_side({"type": "shares", "v": 1, "n": 1}, 0.0)
    net.peers[1].orderer.receive(transmit(first), 0.0)
    twin = make_signer(net.peers[0].identity)(dict(first.inner, n=2))
    with pytest.raises(Equivocation):
        net.peers[1].orderer.receive(transmit(twin), 0.0)


def test_order_side_chain_must_link() -> None:
    net = Network(2, 4)
    o0 = net.peers[0].orderer
    o0.send_side({"type": "shares", "v": 1}, 0.0)
    bad = make_signer(net.peers[0].identity)({"type": "shares", "v": 1, "from": o0.seats[0], "game": o0.game,
                                              "sseq": 1, "sprev": b"\x09" * 32})
    net.peers[1].orderer.receive(transmit(o0._side_sent[0]), 0.0)
    with pytest.raises(ChainBroken):
        net.peers[1].orderer.receive(transmit(bad), 0.0)


@pytest.mark.parametrize("peers, drop", [(3, 0.0), (6, 0.0), (6, 0.1)])
def test_order_s7_4_has_work_is_false_only_when_nothing_waits(peers: int, drop: float) -> None:
    """`has_work` lets a peer skip the acks that complete nothing (most acks: only the last
    promise makes a message stable); it must never be False while an ack is due, a side
    message waits to be taken or a message is deliverable."""
    seen = Counter[bool]()

    class Checking(Network):
        def on_deliveries(self, peer: Any) -> None:
            work = peer.orderer.has_work()
            due = peer.orderer.ack_due()
            before = len(peer.delivered) + len(peer.sides)
            super().on_deliveries(peer)
            if not work:
                assert not due and len(peer.delivered) + len(peer.sides) == before
            seen[work] += 1

    net = Checking(peers, 11, drop=drop)
    for i in range(5):
        net.broadcast(i % peers, net.peers[i % peers].orderer.send_side({"type": "shares", "v": 1, "n": i}, net.now))
    run_workload(net, 11, messages=40, spread=0.5)
    assert sorted(len(p.delivered) for p in net.peers) == [40] * peers and not any(p.errors for p in net.peers)
    assert seen[False] > seen[True] > 0  # most arrivals leave nothing to do


def test_s11_3_a_peer_resumed_inside_a_stamp_group_takes_the_rest_of_the_group_again() -> None:
    """A crash can fall between two messages of one stamp: the first delivered (and in
    the log), the next waiting for its echo (§7.10). Resumed from its log, the peer must
    take the rest of that group again when it is resent, and deliver it where everybody
    else did, instead of refusing it as a stamp going backwards (§7.3) and blaming an
    honest peer."""
    from p2p.order import Orderer

    net = Network(3, 4)
    peers = [p.orderer for p in net.peers]
    a, b, c = peers
    mb, mc = b.send({"type": "note", "v": 1}, 0.0), c.send({"type": "note", "v": 1}, 0.0)  # concurrent: one stamp
    assert mb.inner["lamport"] == mc.inner["lamport"] == 1
    salt = a.salts.at(1)
    first, second = sorted((mb, mc), key=lambda e: tiebreak(salt, 1, e.sender))
    x, y = (b, c) if first is mb else (c, b)  # the senders of the first and the second
    a.receive(transmit(mb), 0.0)
    a.receive(transmit(mc), 0.0)
    y.receive(transmit(first), 0.0)  # y holds the first and says so; x never hears of the second
    a.receive(transmit(y.ack(0.0)), 0.0)
    delivered = list(a.deliveries())
    assert [d.envelope.body for d in delivered] == [first.body]  # the second waits for x's echo

    resumed = Orderer(seats=a.seats, me=0, game=a.game, sign=make_signer(net.peers[0].identity))
    for d in delivered:  # the fairness log holds what was delivered, nothing else
        resumed.restore_delivered(transmit(d.envelope))
    resumed.restored()
    resumed.receive(transmit(second), 0.1)  # resent: it must be taken, not refused
    x.receive(transmit(second), 0.1)
    resumed.receive(transmit(x.ack(0.1)), 0.1)
    resumed.receive(transmit(y.ack(0.1)), 0.1)
    assert [d.envelope.body for d in resumed.deliveries()] == [second.body]
    x.receive(transmit(y.ack(0.1)), 0.1)  # the others deliver the same two, in the same order
    y.receive(transmit(x.ack(0.1)), 0.1)
    for peer in (x, y):
        peer.receive(transmit(resumed.ack(0.1)), 0.1)
        assert [d.envelope.body for d in peer.deliveries()] == [first.body, second.body]


def test_s7_1_acks_say_which_links_their_sender_misses() -> None:
    """`away` (§7.1, §11.3): a peer that lost links says so in its next ack, due at once;
    every receiver keeps the latest report of each sender, timed from the first of a run
    of reports, and a run that ends with nothing delivered, or with the work the table
    waits for from those seats still owed, or that comes back soon, does not end the absence; a report that names the sender itself, a seat twice, out of order or
    outside the table is refused, changing nothing."""
    net = Network(3, 9)
    a, b, c = (p.orderer for p in net.peers)
    b.ack(0.0)
    assert not b.ack_due()
    b.set_away([2])
    assert b.ack_due()
    a.receive(transmit(b.ack(1.0)), 1.0)
    assert a.cut_off() == {1: (1.0, (2,))} and not b.ack_due()
    b.set_away([0, 2])
    a.receive(transmit(b.ack(2.0)), 2.0)
    assert a.cut_off() == {1: (1.0, (0, 2))}  # still the same run of reports: timed from 1.0
    b.set_away([])
    a.receive(transmit(b.ack(3.0)), 3.0)
    assert a.cut_off() == {}
    b.set_away([2])  # again, and nothing was delivered meanwhile: the 2 s away add up (§11.3)
    a.receive(transmit(b.ack(3.5)), 3.5)
    assert a.cut_off() == {1: (1.5, (2,))}
    b.set_away([])
    a.receive(transmit(b.ack(3.6)), 3.6)
    note = transmit(c.send({"type": "note", "v": 1}, 13.7))
    a.receive(note, 13.7)
    b.receive(note, 13.7)
    a.receive(transmit(b.ack(13.7)), 13.7)
    assert len(list(a.deliveries())) == 1  # the table went on in between, and the report stayed over ...
    b.set_away([2])
    a.receive(transmit(b.ack(13.8)), 13.8)
    assert a.cut_off() == {1: (13.8, (2,))}  # ... so this is a new run, timed from now
    b.set_away([])
    a.receive(transmit(b.ack(13.9)), 13.9)
    assert a.cut_off() == {}

    def table_goes_on(now: float) -> None:
        note = transmit(c.send({"type": "note", "v": 1}, now))
        a.receive(note, now)
        b.receive(note, now)
        a.receive(transmit(b.ack(now)), now)
        assert len(list(a.deliveries())) == 1

    table_goes_on(23.95)
    owed = {2}  # the table waits for protocol work (a share) from seat 2 (§9.11)
    a.owed = lambda seats: ("shares", 1, 6) if owed & set(seats) else None
    b.set_away([2])
    a.receive(transmit(b.ack(24.0)), 24.0)
    b.set_away([])
    a.receive(transmit(b.ack(24.5)), 24.5)
    table_goes_on(34.6)  # something was delivered, but the share is still owed ...
    b.set_away([2])
    a.receive(transmit(b.ack(34.8)), 34.8)
    assert a.cut_off() == {1: (pytest.approx(34.3), (2,))}  # ... so the 0.5 s away add up
    b.set_away([])
    a.receive(transmit(b.ack(34.9)), 34.9)
    owed.clear()  # the share came
    table_goes_on(35.0)
    b.set_away([2])
    a.receive(transmit(b.ack(45.1)), 45.1)
    assert a.cut_off() == {1: (45.1, (2,))}  # that return was of use: a new run, timed from now
    b.set_away([])
    a.receive(transmit(b.ack(45.2)), 45.2)
    for away in ([1], [2, 0], [0, 0], [3]):
        inner = dict(b.ack(46.0).inner, away=away)
        forged = make_signer(net.peers[1].identity)(inner)
        with pytest.raises(MalformedHeader):
            a.receive(transmit(forged), 46.0)
    assert a.cut_off() == {}


def test_s11_3_a_report_that_keeps_coming_back_is_one_absence() -> None:
    """A seat's acks say it has no link to seat 2 for 1.5 s, then that it has, over and
    over, and the table delivers something each time the report is over: a report of the
    same link back within `REPORT_RETURNS` of its end adds its time to the last one's,
    so its grace period runs out once the reports lasted that long in all (§11.3). Once
    it stayed over that long, the next one is a new absence."""
    from p2p.order.orderer import REPORT_RETURNS

    net = Network(3, 9)
    a, b, c = (p.orderer for p in net.peers)
    now = 1.0
    for returns in range(10):
        b.set_away([2])
        a.receive(transmit(b.ack(now)), now)
        assert a.cut_off() == {1: (pytest.approx(now - 1.5 * returns), (2,))}  # (1.5 s away each time, in all)
        now += 1.5
        b.set_away([])
        a.receive(transmit(b.ack(now)), now)
        note = transmit(c.send({"type": "note", "v": 1}, now))
        a.receive(note, now)
        b.receive(note, now)
        a.receive(transmit(b.ack(now)), now)
        assert len(list(a.deliveries())) == 1 and a.cut_off() == {}  # (the table went on meanwhile)
        now += 1.5
    now += REPORT_RETURNS
    b.set_away([2])
    a.receive(transmit(b.ack(now)), now)
    assert a.cut_off() == {1: (now, (2,))}


def test_s7_3_a_promise_broken_by_content_that_came_first_is_caught_when_the_ack_comes() -> None:
    """An ack promising more than content already held (stamped 2 after its seq -1, yet
    its seq 0 is stamped 1) is caught in this arrival order too, not only in the other."""
    net = Network(2, 5)
    content = forge(net, 0, lamport=1)
    o = net.peers[0].orderer
    o._seen = 2
    promise = o.ack(net.now)  # seat 0's real ack: it has sent no content (last -1)
    deliver_to(net, 1, content)
    with pytest.raises(StampBackwards) as info:
        deliver_to(net, 1, promise)
    assert [e.body for e in info.value.evidence] == [content.body, promise.body]
    fresh = Network(2, 5)  # and the other way round, as before
    fresh.peers[0].orderer._seen = 2
    deliver_to(fresh, 1, fresh.peers[0].orderer.ack(fresh.now))
    with pytest.raises(StampBackwards):
        deliver_to(fresh, 1, forge(fresh, 0, lamport=1))


def test_s7_3_promises_stay_few_however_many_acks_arrive() -> None:
    """Not every ack's promise is kept (identical heartbeats too, each new one scanning
    them all): only promises no other outdoes are, and an ack that declares a seq far
    beyond what can be held is refused like such content."""
    from p2p.order import MAX_HELD, ChainBroken

    net = Network(2, 5)
    o, receiver = net.peers[0].orderer, net.peers[1].orderer
    for _ in range(500):  # the same heartbeat, again and again
        deliver_to(net, 1, o.ack(net.now))
    for stamp in range(10, 2000):  # ever higher stamps, declaring the same seq
        o.clock = stamp
        deliver_to(net, 1, o.ack(net.now))
    peer = receiver._peers[0]
    assert len(peer.promises) <= 1 and len(peer.acks) <= 2
    inner = dict(o.ack(net.now).inner, last=[MAX_HELD, ZERO_HASH])
    with pytest.raises(ChainBroken):
        deliver_to(net, 1, make_signer(net.peers[0].identity)(inner))
    receiver.clock = 3999  # (so that what seat 0 names justifies a high stamp, §7.3)
    named = receiver.send({"type": "note", "v": 1}, net.now)
    zero = forge(net, 0, lamport=4001, heads=[[0, message_hash(named.body)]])  # its seq 0, delivered below
    for declared in range(0, 3000, 3):  # a frontier: rising seqs with rising stamps
        digest = message_hash(zero.body) if declared == 0 else ZERO_HASH  # (seqs above 0 are never sent here)
        inner = dict(o.ack(net.now).inner, last=[declared, digest], lamport=5000 + declared)
        deliver_to(net, 1, make_signer(net.peers[0].identity)(inner))
    assert len(peer.promises) == 1000 and len(peer.acks) <= len(peer.promises) + 1
    stamps = [s for s, _ in peer.promises]
    assert stamps == sorted(stamps) and [d for _, d in peer.promises] == sorted(d for _, d in peer.promises)
    deliver_to(net, 1, zero)
    with pytest.raises(StampBackwards):  # and each still binds: its seq 1 must be above 5000
        deliver_to(net, 1, forge(net, 0, lamport=5000, seq=1, prev=message_hash(zero.body)))


def test_s7_2_a_copy_of_a_held_message_is_a_retransmission_even_when_many_are_held() -> None:
    """Once all the messages that may wait do, an identical copy of one is still
    ignored, not refused as a broken chain (§7.2); side messages the same."""
    from p2p.order import MAX_HELD

    net = Network(2, 5)
    receiver = net.peers[1].orderer
    early = forge(net, 0, seq=5)
    deliver_to(net, 1, early)
    for seq in range(6, MAX_HELD):  # as if they had come
        receiver._peers[0].held.hold(seq, 0, early)
    deliver_to(net, 1, early)  # ignored, not refused
    assert receiver._peers[0].next_seq == 0 and len(receiver._peers[0].held) == MAX_HELD - 5


def side_message(net: Network, seat: int, sseq: int, sprev: bytes, **fields: Any):  # type: ignore[no-untyped-def]
    """A side message of `seat`'s built by hand (as a cheating peer would)."""
    o = net.peers[seat].orderer
    return make_signer(net.peers[seat].identity)({"type": "shares", "v": 1, "from": o.seats[seat], "game": o.game,
                                                  "sseq": sseq, "sprev": sprev, **fields})


def test_s7_2_content_too_far_ahead_is_refused_naming_its_sender() -> None:
    """A content message whose seq is MAX_HELD or more beyond the one awaited is refused
    (§7.2), naming its sender in the words the audit uses, and nothing is held for it;
    one just short of that is held."""
    from p2p.order import MAX_HELD
    from p2p.plain import broke

    net = Network(3, 5)
    receiver = net.peers[1].orderer
    deliver_to(net, 1, forge(net, 0, seq=MAX_HELD - 1))
    with pytest.raises(ChainBroken) as info:
        deliver_to(net, 1, forge(net, 0, seq=MAX_HELD))
    assert info.value.peer == receiver.seats[0] and info.value.section == "§7.2"
    assert broke("§7.2", info.value.reason) == "sent more of their messages ahead of one still missing than a table keeps"
    held = receiver._peers[0].held
    assert len(held) == 1 and MAX_HELD - 1 in held


def test_s7_2_early_content_is_bounded_in_bytes_naming_its_sender() -> None:
    """What a sender's content held early may weigh is bounded (HELD_BYTES, §7.2): the
    message that would pass it is refused, naming its sender in the audit's words, and
    the ones held stay, counted; filled, the gap takes them all and nothing is held."""
    from p2p.order import HELD_BYTES
    from p2p.plain import broke

    net = Network(3, 5)
    receiver = net.peers[1].orderer
    pad = bytes(1_000_000)  # (about the largest body a frame carries, §4.2)
    chain, early = [forge(net, 0, seq=0, pad=b"")], []
    for seq in range(1, 10):
        chain.append(forge(net, 0, seq=seq, prev=message_hash(chain[-1].body), lamport=seq + 1, pad=pad))
    for envelope in chain[1:9]:
        deliver_to(net, 1, envelope)
        early.append(len(envelope.body))
    held = receiver._peers[0].held
    assert len(held) == 8 and held.size == sum(early) <= HELD_BYTES
    with pytest.raises(ChainBroken) as info:
        deliver_to(net, 1, chain[9])
    assert info.value.peer == receiver.seats[0] and info.value.section == "§7.2"
    assert broke("§7.2", info.value.reason) == "sent more of their messages than a table keeps waiting for its turn to take them"
    assert len(held) == 8 and held.size == sum(early)
    deliver_to(net, 1, chain[0])
    assert receiver._peers[0].next_seq == 9 and len(receiver._peers[0].held) == 0 and receiver._peers[0].held.size == 0


def test_s7_2_content_taken_but_not_delivered_counts_towards_the_bytes_bound() -> None:
    """Content taken in chain order but not yet delivered (the order waits for a seat
    that says nothing) weighs like content held early (§7.2): the message that would
    pass HELD_BYTES is refused, naming its sender, and nothing changes."""
    net = Network(3, 5)
    receiver = net.peers[1].orderer
    pad = bytes(1_000_000)
    chain = [forge(net, 0, seq=0, lamport=1, pad=pad)]
    for seq in range(1, 9):
        chain.append(forge(net, 0, seq=seq, prev=message_hash(chain[-1].body), lamport=seq + 1, pad=pad))
    for envelope in chain[:8]:
        deliver_to(net, 1, envelope)
    assert receiver._peers[0].next_seq == 8 and not net.peers[1].delivered  # (seat 2 promised nothing)
    with pytest.raises(ChainBroken) as info:
        deliver_to(net, 1, chain[8])
    assert info.value.peer == receiver.seats[0] and receiver._peers[0].next_seq == 8


def test_s7_2_delivered_content_no_longer_counts_towards_the_bytes_bound() -> None:
    """What is delivered weighs nothing more: an honest sender sends many times HELD_BYTES
    in a game, a message at a time, and nobody refuses it."""
    from p2p.order import HELD_BYTES

    net = Network(3, 5)
    for n in range(HELD_BYTES // 1_000_000 + 4):
        net.send(0, {"type": "note", "v": 1, "n": n, "pad": bytes(1_000_000)})
        net.quiesce()
    assert not any(p.errors for p in net.peers)
    assert all(len(p.delivered) == HELD_BYTES // 1_000_000 + 4 for p in net.peers)


def test_s7_2_a_refused_gap_filler_leaves_the_held_bytes_as_they_were() -> None:
    """A message that fills a gap but is refused with the held ones (one does not chain
    to it, §7.2) changes nothing: what is held stays, its bytes still counted."""
    net = Network(3, 5)
    receiver = net.peers[1].orderer
    zero = forge(net, 0, seq=0)
    forked = forge(net, 0, seq=1, prev=bytes(32), lamport=2, pad=bytes(1000))
    deliver_to(net, 1, forked)
    with pytest.raises(ChainBroken):
        deliver_to(net, 1, zero)
    held = receiver._peers[0].held
    assert receiver._peers[0].next_seq == 0 and len(held) == 1 and held.size == len(forked.body)


def test_s7_8_side_message_too_far_ahead_is_refused_naming_its_sender() -> None:
    """Side chains follow the same rule (§7.8): a side message MAX_HELD or more beyond
    the awaited sseq is refused, and nothing is held for it."""
    from p2p.order import MAX_HELD
    from p2p.plain import broke

    net = Network(3, 5)
    receiver = net.peers[1].orderer
    deliver_to(net, 1, side_message(net, 0, MAX_HELD - 1, bytes(32)))
    with pytest.raises(ChainBroken) as info:
        deliver_to(net, 1, side_message(net, 0, MAX_HELD, bytes(32)))
    assert info.value.peer == receiver.seats[0] and info.value.section == "§7.2"
    assert broke("§7.2", info.value.reason) == "sent more of their messages ahead of one still missing than a table keeps"
    held = receiver._peers[0].side_held
    assert len(held) == 1 and MAX_HELD - 1 in held


def test_s7_10_a_side_chain_fork_or_break_carries_its_evidence() -> None:
    """Side-chain refusals proven by the sender's own signatures carry them, so they are
    logged and shown to the other peers."""
    from p2p.order import ChainBroken, side_genesis

    net = Network(2, 5)
    o = net.peers[0].orderer
    sign = make_signer(net.peers[0].identity)

    def side(sseq: int, sprev: bytes, n: int):  # type: ignore[no-untyped-def]
        return sign({"type": "shares", "v": 1, "from": o.seats[0], "game": o.game, "sseq": sseq, "sprev": sprev,
                     "n": n})

    first = side(0, side_genesis(o.game), 0)
    held, twin = side(2, bytes(32), 1), side(2, bytes(32), 2)
    deliver_to(net, 1, held)
    with pytest.raises(Equivocation) as forked:
        deliver_to(net, 1, twin)
    assert {e.body for e in forked.value.evidence} == {held.body, twin.body}
    deliver_to(net, 1, first)
    broken = side(1, bytes(32), 3)  # does not chain to sseq 0
    with pytest.raises(ChainBroken) as info:
        deliver_to(net, 1, broken)
    assert [e.body for e in info.value.evidence] == [broken.body, first.body]
    from p2p.audit import _violation_shown  # what an auditor reading that evidence in a log concludes

    assert "its chain of share messages forked" in (_violation_shown("§7.2", info.value.evidence, net.peers[0].orderer.seats)
                                                    or "")
    assert "two different messages as its" in (_violation_shown("§7.2", forked.value.evidence, net.peers[0].orderer.seats)
                                               or "")



def test_s7_8_early_side_messages_are_bounded_in_bytes_naming_their_sender() -> None:
    """Side chains are bounded in bytes alike (§7.8): the side message that would pass
    HELD_BYTES is refused, naming its sender; those held are taken when the gap fills."""
    from p2p.order import HELD_BYTES, side_genesis

    net = Network(3, 5)
    receiver = net.peers[1].orderer
    pad = bytes(1_000_000)
    chain = [side_message(net, 0, 0, side_genesis(receiver.game))]
    for sseq in range(1, 10):
        chain.append(side_message(net, 0, sseq, message_hash(chain[-1].body), pad=pad))
    for envelope in chain[1:9]:
        deliver_to(net, 1, envelope)
    held = receiver._peers[0].side_held
    assert len(held) == 8 and held.size <= HELD_BYTES
    with pytest.raises(ChainBroken) as info:
        deliver_to(net, 1, chain[9])
    assert info.value.peer == receiver.seats[0] and len(held) == 8
    deliver_to(net, 1, chain[0])
    assert [e.body for _, e in receiver.side_deliveries()] == [e.body for e in chain[:9]]
    assert len(held) == 0 and held.size == 0



# -- §7.3: a stamp no higher than what it names justifies ------------------------------


def test_s7_3_a_stamp_at_the_top_of_the_range_is_refused_naming_its_sender() -> None:
    """A stamp of 2^62 - 1 must not enter every honest clock, where the next honest stamp
    would pass 2^62 and be refused in an honest peer's name: a stamp above one more than
    what its message names is refused, with the proof, and honest clocks never see it."""
    from p2p.audit import _violation_shown
    from p2p.order import MAX_STAMP, StampUnjustified

    net = Network(3, 21)
    net.send(1, {"type": "note", "v": 1})
    net.quiesce()
    cheat = forge(net, 0, lamport=MAX_STAMP - 1)  # its heads name seat 1's note, stamped 1
    clocks = [p.orderer.clock for p in net.peers[1:]]
    for dst in (1, 2):
        with pytest.raises(StampUnjustified) as refused:
            deliver_to(net, dst, cheat)
        assert refused.value.peer == net.peers[0].orderer.seats[0] and "above 2" in str(refused.value)
        seats = net.peers[dst].orderer.seats
        assert "above the 2 that its previous message" in (_violation_shown("§7.3", refused.value.evidence, seats) or "")
    assert [p.orderer.clock for p in net.peers[1:]] == clocks
    for seat in (1, 2):  # the honest seats play on, stamped as before
        assert net.send(seat, {"type": "note", "v": 1}).inner["lamport"] < 10
    net.quiesce()
    assert not net.peers[1].errors and not net.peers[2].errors
    assert sequences(net)[1] == sequences(net)[2]


def test_s7_3_a_top_stamp_naming_a_message_nobody_sent_is_rejected_in_order_and_blames_nobody_else() -> None:
    """A stamp that cannot be judged (it names a message nobody holds) is taken into the
    chain but not vouched for: acks may promise it, content is never stamped above it,
    and its delivery rejects it at the same place everywhere (§7.5)."""
    from p2p.order import MAX_STAMP

    net = Network(3, 22)
    net.send(1, {"type": "note", "v": 1})
    net.quiesce()
    cheat = forge(net, 0, lamport=MAX_STAMP - 1, heads=[[5, bytes(range(32))], [-1, ZERO_HASH]])
    for dst in (1, 2):
        deliver_to(net, dst, cheat)
        honest = net.peers[dst].orderer
        assert honest.clock == 1 and honest.may_send  # (nothing promised above it yet)
    net.quiesce()
    for peer in net.peers[1:]:
        assert not peer.errors
        rejected = [d for d in peer.delivered if d.rejected is not None]
        assert [(d.seat, type(d.rejected)) for d in rejected] == [(0, HeadsUnheld)]
        assert all(d.stamp < 10 for d in peer.delivered if d.seat != 0)
    assert sequences(net)[1] == sequences(net)[2]


def test_s7_3_a_message_that_comes_before_what_it_names_waits_to_be_vouched_for() -> None:
    """Seat 2 gets seat 1's reply before seat 0's note it answers: the reply is held in
    its chain, acknowledged, but stamps nothing until the note comes; content posted
    meanwhile goes then, named above the reply."""
    net = Network(3, 23)
    note = net.peers[0].orderer.send({"type": "note", "v": 1}, net.now)
    deliver_to(net, 1, note)
    reply = net.peers[1].orderer.send({"type": "note", "v": 1}, net.now)  # names the note: stamp 2
    waiting = net.peers[2].orderer
    deliver_to(net, 2, reply)
    assert waiting.clock == 0 and waiting._heads(vouched=True)[1][0] == -1 and waiting._heads()[1][0] == 0
    promise = waiting.ack(net.now)
    assert promise.inner["lamport"] == 2 and not waiting.may_send
    assert waiting.post({"type": "note", "v": 1}, net.now) == []  # it may not be stamped yet
    deliver_to(net, 2, note)
    (answer,) = waiting.released(net.now)
    assert answer.inner["lamport"] == 3 and answer.inner["heads"][1] == [0, message_hash(reply.body)]
    for dst in (0, 1):
        deliver_to(net, dst, answer)
    for sender, envelope in ((0, note), (1, reply), (2, promise)):
        for dst in range(3):
            if dst != sender:
                deliver_to(net, dst, envelope)
    net.quiesce()
    assert not any(p.errors for p in net.peers)
    assert sequences(net)[0] == sequences(net)[1] == sequences(net)[2] and len(sequences(net)[0]) == 3


def test_s11_3_a_restarted_peer_stamps_nothing_until_it_holds_what_its_last_ack_named() -> None:
    """Its journal keeps its ack (stamp 1, after seat 0's note) but not the note: its next
    stamp must be above 1 and justified by what it names, so it waits for the note."""
    from p2p.order import Orderer

    net = Network(2, 24)
    note = net.send(0, {"type": "note", "v": 1})
    net.quiesce()
    ack = net.peers[1].orderer.ack(net.now)
    assert ack.inner["lamport"] == 1
    back = Orderer(seats=net.peers[1].orderer.seats, me=1, game=net.peers[1].orderer.game,
                   sign=make_signer(net.peers[1].identity))
    back.restore_sent(ack, net.now)
    back.restored()
    assert not back.may_send and back.post({"type": "note", "v": 1}, net.now) == []
    assert back.ack(net.now).inner["lamport"] == 1  # (its promises never go backwards)
    back.receive(transmit(note), net.now)
    (content,) = back.released(net.now)
    assert content.inner["lamport"] == 2 and content.inner["heads"] == [[0, message_hash(note.body)]]
    deliver_to(net, 0, content)
    assert not net.peers[0].errors


def test_s7_3_an_audit_rejects_a_stamp_its_message_does_not_justify() -> None:
    """A log that holds such a message (its writer took it) fails there, naming its signer."""
    from p2p.order import OrderReplay, StampUnjustified

    net = Network(2, 25)
    note = net.send(1, {"type": "note", "v": 1})
    net.quiesce()
    cheat = forge(net, 0, lamport=50)
    replay = OrderReplay(seats=net.peers[0].orderer.seats, game=net.peers[0].orderer.game)
    assert replay.next(note).rejected is None
    verdict = replay.next(cheat).rejected
    assert isinstance(verdict, StampUnjustified) and verdict.peer == cheat.sender


def test_s7_9_the_stamp_bound_vector() -> None:
    """The §7.9 row: seat 1's seq 3, after its seq 2 stamped 4, naming stamps 9 and 2."""
    from pathlib import Path

    from p2p.order import PeerChain as _Peer, stamp_bound, unjustified

    text = Path(__file__).resolve().parent.parent.joinpath("protocol.md").read_text(encoding="utf-8")
    section = text.split("### 7.9 Test vectors", 1)[1].split("\n## ", 1)[0]
    assert "`bound` (§7.3) of seat 1's seq 3" in section and "| `10`: stamped 10" in section

    def chain(*stamps: int) -> _Peer:
        peer = _Peer()
        for n, stamp in enumerate(stamps):
            peer.chain(bytes([n]) * 32, stamp)
        peer.vouched = len(stamps) - 1
        return peer

    peers = [chain(1, 3, 5, 6, 8, 9), chain(1, 2, 4), chain(), chain(2)]
    heads = [[5, bytes([5]) * 32], [-1, ZERO_HASH], [0, bytes(32)]]
    prev = bytes([2]) * 32  # (its seq 2)
    assert stamp_bound(peers, (0, 2, 3), 1, 3, prev, heads) == 10
    peers[0].vouched = 4  # what it names is not vouched for yet: it waits
    assert stamp_bound(peers, (0, 2, 3), 1, 3, prev, heads) is None
    peers[0].vouched = 5
    assert stamp_bound(peers, (0, 2, 3), 1, 3, prev, [[5, bytes(32)], *heads[1:]]) is None  # another hash: a fork
    assert stamp_bound(peers, (0, 2, 3), 1, 3, bytes(32), heads) is None  # nor is another previous message known
    from p2p.signing import SignedMessage

    def message(stamp: int) -> SignedMessage:
        return SignedMessage(b"\x01" * 32, {"lamport": stamp, "seq": 3, "heads": heads}, b"", b"")

    for peer in peers:
        peer.envelopes = [message(0)] * peer.next_seq
    refused = unjustified(peers, (0, 2, 3), 1, message(11), 10)
    assert refused is not None and len(refused.evidence) == 4  # it, its seq 2, the two it names
    assert unjustified(peers, (0, 2, 3), 1, message(10), 10) is None


def test_s10_1_a_log_keeps_the_whole_proof_of_an_unjustified_stamp_at_six_seats(tmp_path) -> None:
    """Such a proof holds the message, its sender's previous one and the five others it
    names at a table of six: seven signed messages, all kept (`log.evidence`)."""
    from p2p.log import FairnessLog, header_for, read_log
    from p2p.order import StampUnjustified

    net = Network(6, 26)
    for seat in range(6):
        net.send(seat, {"type": "note", "v": 1})
    net.quiesce()
    net.send(0, {"type": "note", "v": 1})
    net.quiesce()
    cheat = forge(net, 0, lamport=1000)
    with pytest.raises(StampUnjustified) as refused:
        deliver_to(net, 1, cheat)
    assert len(refused.value.evidence) == 7
    path = tmp_path / "seat1.bandit-log"
    log = FairnessLog.create(path, header_for(b"roster", [bytes(64)] * 6, 1), net.peers[1].identity)
    log.evidence(refused.value.section, refused.value.peer, refused.value.evidence)
    log.close("stopped")
    (kept,) = read_log(path).evidence
    assert [body for body, _ in kept.items] == [m.body for m in refused.value.evidence]


@pytest.mark.parametrize("arrival", ["ack, then both", "the second, the ack, the first", "both, then the ack"])
def test_s7_2_an_ack_naming_another_message_is_equivocation_whichever_arrives_first(arrival: str) -> None:
    """An ack whose `last` names another hash for a seq than the message signed as that
    seq is equivocation (§7.2), whether the message was taken before the ack, was held
    waiting for a gap, or comes after it: the verdict does not depend on arrival order."""
    net = Network(2, 5)
    q = net.peers[0].orderer
    first, second = q.send({"type": "note", "v": 1}, 0.0), q.send({"type": "note", "v": 1}, 0.0)
    lie = make_signer(net.peers[0].identity)({
        "type": ACK_TYPE, "v": 1, "from": q.seats[0], "game": q.game, "lamport": 9,
        "last": [1, b"\x07" * 32], "heads": [[-1, ZERO_HASH]], "slast": [-1, ZERO_HASH],
        "sides": [[-1, ZERO_HASH]], "away": []})
    frames = {"ack, then both": [lie, first, second], "the second, the ack, the first": [second, lie, first],
              "both, then the ack": [first, second, lie]}[arrival]
    x = net.peers[1].orderer
    with pytest.raises(Equivocation) as refused:
        for frame in frames:
            x.receive(transmit(frame), 0.0)
    assert refused.value.peer == q.seats[0]
    assert {e.body for e in refused.value.evidence} == {lie.body, second.body}
    assert x._peers[0].covered < 9  # the false promise covers nothing


def _framed() -> tuple[Network, Any, Any]:
    """Seats q = 0 (dishonest), s = 1, x = 2: q sends its seq 0 to s only, s answers with
    m naming it, and q tells x, in an ack that echoes m, that it has sent nothing (a
    promise that covers m's stamp). Returns the network, m, and x's delivery of m."""
    net = Network(3, 5)
    q, s, x = (p.orderer for p in net.peers)
    c = q.send({"type": "note", "v": 1}, 0.0)
    s.receive(transmit(c), 0.0)
    m = s.send({"type": "note", "v": 1}, 0.0)
    x.receive(transmit(m), 0.0)
    lie = make_signer(net.peers[0].identity)({
        "type": ACK_TYPE, "v": 1, "from": q.seats[0], "game": q.game, "lamport": 2,
        "last": [-1, ZERO_HASH], "heads": [[0, message_hash(m.body)], [-1, ZERO_HASH]],
        "slast": [-1, ZERO_HASH], "sides": [[-1, ZERO_HASH], [-1, ZERO_HASH]], "away": []})
    x.receive(transmit(lie), 0.0)
    x.ack(0.0)
    (delivered,) = list(x.deliveries())
    return net, m, delivered


def test_s7_5_a_head_naming_a_message_a_promise_denies_names_both_suspects_and_neither_alone() -> None:
    """x cannot tell whether s named a message q never signed or q signed one and lied in
    its promise: m is rejected (the game ends there) with both as suspects, so a liar
    cannot get an honest sender convicted (§7.5)."""
    from p2p.order import OrderReplay
    from p2p.policy import on_violation
    from p2p.table.machine import TableViolation

    net, m, delivered = _framed()
    rejected = delivered.rejected
    assert delivered.seat == 1 and isinstance(rejected, HeadsUnheld) and (rejected.other, rejected.seq) == (0, 0)
    assert "one of the two signed falsely" in rejected.reason
    replay = OrderReplay(seats=net.peers[2].orderer.seats, game=net.peers[2].orderer.game)  # the audit's view
    assert isinstance(replay.next(transmit(m)).rejected, HeadsUnheld)
    verdict = on_violation(TableViolation(rejected.section, None, rejected.reason, suspects=(1, rejected.other)))
    assert verdict.seat is None and verdict.who(["Ann", "Bo", "Cy"]) == "Bo or Ann"
    assert verdict.note(["Ann", "Bo", "Cy"]).startswith(
        "Bo or Ann (seats 2 or 1) signed something false about which messages were sent (a message named as seen that "
        "its sender's promises say it had not sent), and nothing tells which [§7.5]. In detail: §7.5: ")


def test_order_unsettled_names_our_messages_until_they_are_delivered() -> None:
    """What a screen tells its player is still on its way (§9.5, §11.3): our content
    messages sent and not yet delivered, in order; delivered, they are settled."""
    net = Network(3, 5)
    net.send(0, {"type": "note", "v": 1})
    net.send(0, {"type": "other", "v": 1})
    assert net.peers[0].orderer.unsettled() == ["note", "other"]
    assert net.peers[1].orderer.unsettled() == []
    net.quiesce()
    assert len(net.peers[0].delivered) == 2 and net.peers[0].orderer.unsettled() == []


def test_order_unsettled_after_a_restart_is_what_the_journal_sent_and_the_log_lacks() -> None:
    from p2p.order import Orderer

    net = Network(3, 6)
    net.send(0, {"type": "note", "v": 1})
    net.quiesce()
    a = net.peers[0].orderer
    unsent = a.send({"type": "other", "v": 1}, net.now)  # signed and journaled; the crash comes first
    resumed = Orderer(seats=a.seats, me=0, game=a.game, sign=make_signer(net.peers[0].identity))
    for d in net.peers[0].delivered:  # the fairness log
        resumed.restore_delivered(transmit(d.envelope))
    for envelope in a.sent_of("note") + [unsent]:  # the journal: every message it sent
        resumed.restore_sent(transmit(envelope), net.now)
    resumed.restored()
    assert resumed.unsettled() == ["other"]


def test_s11_3_content_that_arrived_is_heard_before_it_is_delivered() -> None:
    """A seat whose first message arrived but is not yet delivered has sat down (§11.3:
    its goodbye is then a link lost, not a seat that never began)."""
    net = Network(3, 5)
    assert not any(net.peers[1].orderer.heard_content(s) for s in (0, 2))
    sent = net.send(0, {"type": "note", "v": 1, "text": "hello"})
    assert sent is not None
    net.peers[1].orderer.receive(transmit(sent), net.now)
    assert net.peers[1].orderer.heard_content(0) and not net.peers[1].orderer.heard_content(2)
    assert not any(d.seat == 0 for d in net.peers[1].delivered)  # (not delivered: seat 2 has promised nothing)


# Every public name the single module p2p/order.py had, before it became a package.
_ORDER_MODULE_NAMES = (
    "ACK_TYPE", "HASH", "HEAD", "HEADER", "HEARTBEAT_EVERY", "LEAVE_TYPE", "MAX_HELD", "MAX_STAMP", "MESSAGES",
    "MSG_TAG", "RELAY_AFTER", "RETRANSMIT_AFTER", "SIDE_CONFIRM_AFTER", "SIDE_HEADER", "SIDE_TAG", "TIEBREAK_TAG",
    "ZERO_HASH", "ChainBroken", "Delivered", "Envelope", "Equivocation", "ForeignGame", "HeadsForked", "HeadsInvalid",
    "HeadsUnheld", "MalformedHeader", "Mark", "OrderError", "OrderReplay", "Orderer", "OutOfOrder", "SaltSchedule",
    "Sign", "StampBackwards", "StampOf", "StampUnjustified", "absence_since", "content_message", "heads_violation",
    "is_side", "lamport_bound", "message_hash", "other_seats", "owes_nothing", "side_genesis", "side_message",
    "stamp_bound", "tiebreak", "unjustified",
)


def test_the_order_package_exports_every_public_name_of_the_module_it_replaced() -> None:
    """`p2p.order` became a package of modules; `from p2p.order import X` and its
    `__all__` still give every public name the single module had (the §7.2 hash tags and
    the header's field kinds among them)."""
    import p2p.order

    assert [n for n in _ORDER_MODULE_NAMES if n not in p2p.order.__all__ or not hasattr(p2p.order, n)] == []


def test_s7_4_our_message_names_the_seats_whose_word_it_still_waits_for() -> None:
    """`holding_ours`: until every other seat has sent a stamp covering our oldest
    message not yet delivered, the order waits for the ones that have not (what the
    screen names for a move that does not come back at once)."""

    class Silent(Network):
        mute = True

        def _post(self, src: int, dst: int, envelope: Any) -> None:
            if not (self.mute and src == 2):  # (seat 2's program stopped: nothing of it arrives)
                super()._post(src, dst, envelope)

    net = Silent(3, 11)
    net.run_until(0.1)
    ann = net.peers[0].orderer
    assert ann.holding_ours() == []  # (nothing of ours in flight)
    net.send(0, {"type": "note", "v": 1, "n": 1})
    assert ann.holding_ours() == [1, 2]
    net.run_until(0.2)
    assert ann.holding_ours() == [2] and not net.peers[0].delivered
    net.mute = False
    net.quiesce()
    assert ann.holding_ours() == [] and len(net.peers[0].delivered) == 1


def test_a_delivered_message_and_a_header_are_values_of_their_own_not_tuples_the_wire_would_pack() -> None:
    """`Delivered` and `Header` are made for every frame, fast, but are not tuples: equal
    only to their own kind with the same fields, unordered, and refused by `encode`."""
    from p2p.order import Delivered
    from p2p.order.header import Header
    from p2p.wire import encode

    envelope: Any = "envelope"
    delivered, header = Delivered(3, 1, envelope), Header(5, 2, ZERO_HASH, [[0, ZERO_HASH]], (2, b""))
    assert delivered == Delivered(3, 1, envelope) and header == Header(5, 2, ZERO_HASH, [[0, ZERO_HASH]], (2, b""))
    assert delivered != Delivered(4, 1, envelope) and header != Header(6, 2, ZERO_HASH, [[0, ZERO_HASH]], (2, b""))
    assert delivered != (3, 1, envelope, None) and header != (5, 2, ZERO_HASH, [[0, ZERO_HASH]], (2, b""))
    assert hash(delivered) == hash(Delivered(3, 1, envelope))
    for value in (delivered, header):
        with pytest.raises(TypeError):
            value < value  # type: ignore[operator]  # noqa: B015
        with pytest.raises(TypeError, match="cannot be encoded"):
            encode({"value": value})
