"""§7.6, §7.10 relayed messages: a peer relays a third seat's content that another
peer still lacks, and a copy that comes on another peer's link than its sender's says
nothing of its sender's present state.

Acks carry no sequence number of their own, and a heartbeat repeats the stamp of the
one before it, so an old ack relayed late by a third peer would otherwise be taken as
its sender's latest word: its `away` (§7.1, §11.3) and what it holds of the receiver's
chains (§7.6). What it proves stays proven whenever it was sent: its promise (§7.3) and
its hashes (§7.2, §7.10).
"""

from __future__ import annotations

import pytest

from p2p.order import ACK_TYPE, MAX_STAMP, RELAY_AFTER, ZERO_HASH, HeadsUnheld, Orderer, StampBackwards, message_hash
from tests.ordersim import Network, make_signer, transmit
from tests.test_order import forge


def test_s7_10_a_relayed_old_ack_does_not_bring_back_its_senders_away_report() -> None:
    net = Network(3, 9)
    a, r, _ = (p.orderer for p in net.peers)
    r.set_away([2])
    old = r.ack(1.0)  # r briefly lost its link to seat 2 ...
    a.receive(transmit(old), 1.0)
    assert a.cut_off()[1][1] == (2,)
    r.set_away([])
    new = r.ack(2.0)  # ... and it came back (the same stamp: nothing was sent meanwhile)
    a.receive(transmit(new), 2.0)
    assert old.inner["lamport"] == new.inner["lamport"] and a.cut_off() == {}
    t = 2.0
    for _ in range(130):  # a third seat relays r's old ack after each of r's heartbeats
        a.receive(transmit(old), t + 0.05, relayed=True)
        assert a.cut_off() == {}
        t += 1.0
        a.receive(transmit(r.ack(t)), t)
    # the same ack on r's own link is r's word: a report that starts again
    a.receive(transmit(old), t + 0.05)
    assert a.cut_off()[1][1] == (2,)


def test_s7_6_a_relayed_old_ack_does_not_make_the_receiver_resend_its_chains() -> None:
    net = Network(3, 3)
    a, r, _ = net.peers
    stale = r.orderer.ack(0.0)  # r's ack from the start of the game, signed by r
    for n in range(200):
        net.send(0, {"type": "note", "v": 1, "n": n})
        if n % 50 == 0:
            net.broadcast(0, a.orderer.send_side({"type": "shares", "v": 1, "n": n}, net.now))
        net.run_until(net.now + 0.001)
    net.quiesce(3.0)
    o = a.orderer
    assert o._peers[1].has_of_mine == len(o._sent) - 1 and not [e for s, e in o.on_timer(net.now) if s == 1]
    o.receive(transmit(stale), net.now, relayed=True)
    assert not [e for k in range(20) for s, e in o.on_timer(net.now + 0.05 * k) if s == 1]
    o.receive(transmit(stale), net.now + 1.0)  # on r's own link it is r's word (as after a restart)
    assert len([e for s, e in o.on_timer(net.now + 1.3) if s == 1]) >= len(o._sent)


def test_s11_3_a_relayed_pre_crash_ack_does_not_starve_a_restarted_peer() -> None:
    net = Network(3, 4)
    a, r, m = (p.orderer for p in net.peers)
    n0 = a.send({"type": "note", "v": 1}, 0.0)
    for o in (r, m):
        o.receive(transmit(n0), 0.0)
    acks = {i: o.ack(0.0) for i, o in enumerate((a, r, m))}
    for i, o in enumerate((a, r, m)):
        for j, ack in acks.items():
            if j != i:
                o.receive(transmit(ack), 0.0)
    logged = [d.envelope for d in r.deliveries()]
    n1 = a.send({"type": "note", "v": 1}, 0.0)
    r.receive(transmit(n1), 0.0)
    before_crash = r.ack(0.0)  # "I hold a's seq 1"
    a.receive(transmit(before_crash), 0.0)
    back = Orderer(seats=r.seats, me=1, game=r.game, sign=make_signer(net.peers[1].identity))
    for envelope in logged:  # r restarts from its log and journal, holding a's seq 0 alone
        back.restore_delivered(transmit(envelope))
    back.restore_sent(before_crash, 0.0)
    back.restored()
    resent = []
    for second in range(1, 4):
        a.receive(transmit(back.ack(float(second))), float(second))  # r: "I hold a's seq 0"
        a.receive(transmit(before_crash), second + 0.1, relayed=True)  # a third seat relays the old one
        resent += [e for k in range(20) for s, e in a.on_timer(second + 0.05 * k) if s == 1 and e.body == n1.body]
    assert resent
    for envelope in resent[:1]:
        back.receive(transmit(envelope), 4.0)
    assert back._peers[0].next_seq == 2  # r has a's seq 1 again


def test_s7_3_a_relayed_ack_still_promises_and_still_convicts() -> None:
    """The promise of a relayed ack is kept (it holds whenever the ack was sent), and a
    relayed ack that breaks it is refused with the evidence, as on its own link."""
    net = Network(3, 5)
    q, s, x = (p.orderer for p in net.peers)
    c = q.send({"type": "note", "v": 1}, 0.0)  # q's seq 0, stamped 1
    x.receive(transmit(c), 0.0)
    lie = make_signer(net.peers[0].identity)({
        "type": ACK_TYPE, "v": 1, "from": q.seats[0], "game": q.game, "lamport": 2,
        "last": [-1, ZERO_HASH], "heads": [[-1, ZERO_HASH], [-1, ZERO_HASH]],
        "slast": [-1, ZERO_HASH], "sides": [[-1, ZERO_HASH], [-1, ZERO_HASH]], "away": [],
    })  # "everything after my seq -1 is stamped above 2": but seq 0 is stamped 1
    with pytest.raises(StampBackwards) as refused:
        x.receive(transmit(lie), 0.0, relayed=True)
    assert refused.value.peer == q.seats[0] and {message_hash(e.body) for e in refused.value.evidence} == {
        message_hash(c.body), message_hash(lie.body)}


def test_s7_6_content_shown_to_one_peer_only_is_relayed_and_judged_everywhere() -> None:
    """Seat 0 sends one peer only a message that names one nobody signed, stamped near the
    top of the range: that peer takes it and promises its stamp, so it can send nothing
    until the message is delivered (§7.3), which needs everyone's promises. It relays the
    message to the others, who lack it, and every peer delivers it rejected at the same
    place (§7.5), instead of the honest peer staying mute for good with nobody named."""
    net = Network(3, 22)
    net.send(1, {"type": "note", "v": 1})
    net.quiesce()
    cheat = forge(net, 0, lamport=MAX_STAMP - 1, heads=[[5, bytes(range(32))], [-1, ZERO_HASH]])
    net._post(0, 2, cheat)  # to seat 2 only, never resent
    net.run_until(net.now + 0.1)
    assert not net.peers[2].orderer.may_send
    net.quiesce(3 * RELAY_AFTER)
    rejected = [[(d.position, d.seat, type(d.rejected)) for d in p.delivered if d.rejected] for p in net.peers[1:]]
    assert rejected[0] == rejected[1] == [(rejected[0][0][0], 0, HeadsUnheld)]


def test_s7_6_nothing_is_relayed_while_every_author_sends_to_everyone() -> None:
    """In an honest table with lost frames, authors repair their own chains (§7.6) long
    before a gap lasts RELAY_AFTER: no peer relays anything."""
    net = Network(4, 31, drop=0.05)
    relayed: list[int] = []
    for peer in net.peers:
        own = peer.orderer._relayed
        peer.orderer._relayed = lambda now, own=own: relayed.extend(len(own(now)) * [1]) or []  # type: ignore[method-assign]
    for n in range(60):
        net.send(n % 4, {"type": "note", "v": 1, "n": n})
        net.run_until(net.now + 0.01)
    net.quiesce(5.0)
    assert len({tuple(d.envelope.body for d in p.delivered) for p in net.peers}) == 1
    assert len(net.peers[0].delivered) == 60 and not relayed


def _exchange_acks(*orderers: Orderer, now: float = 0.0) -> None:
    acks = [o.ack(now) for o in orderers]
    for o in orderers:
        for ack in acks:
            if ack.sender != o.seats[o.me]:
                o.receive(transmit(ack), now)


@pytest.mark.parametrize("a_left_too", [False, True])
def test_s7_10_a_seat_that_left_and_is_gone_is_no_longer_waited_for_as_an_echo(a_left_too: bool) -> None:
    """Seat 2 leaves (§9.8) as seat 1 sends a message it never gets: that message waits at
    seat 0 for seat 2's echo. While seat 2 is linked it may still have something to say
    (the other side of a fork, §7.10), so seat 0 waits; once its link is down it is gone,
    and seat 0 delivers without its echo. A seat 0 that left itself waits for every echo
    (two seats that both skipped each other's echo could deliver two sides of a fork)."""
    net = Network(3, 41)
    a, b, c = (p.orderer for p in net.peers)
    if a_left_too:
        mine = a.send({"type": "leave", "v": 1, "reason": "the player chose to leave"}, 0.0)
        for o in (b, c):
            o.receive(transmit(mine), 0.0)
    leave = c.send({"type": "leave", "v": 1, "reason": "it was stopped"}, 0.0)
    note = b.send({"type": "note", "v": 1}, 0.0)  # (before it has seat 2's leave: stamped as low)
    for o in (a, b):
        o.receive(transmit(leave), 0.0)
    a.receive(transmit(note), 0.0)
    _exchange_acks(a, b)
    c.receive(transmit(a.ack(0.0)), 0.0)
    a.receive(transmit(c.ack(0.0)), 0.0)  # (seat 2's last word: it never got seat 1's note)
    delivered = [d.envelope.body for d in a.deliveries()]
    assert note.body not in delivered  # seat 2 still linked: its echo is awaited
    a.set_away([2])  # its link went down: it is gone
    delivered += [d.envelope.body for d in a.deliveries()]
    assert (note.body in delivered) is not a_left_too
    assert leave.body in delivered or a_left_too


def test_s7_6_a_peer_that_restarted_holding_less_is_relayed_what_it_lost_of_an_author_now_gone() -> None:
    """Seat 1 held seat 0's seq 1 and its share, then crashed before delivering them; it
    resumes holding seq 0 alone (§11.3). Seat 0 is gone and resends nothing: seat 2, which
    holds both, relays them once seat 1's latest acks say it lacks them (its word now,
    though lower than before the crash), content and side message alike."""
    net = Network(3, 43)
    a, r, m = (p.orderer for p in net.peers)
    n0 = a.send({"type": "note", "v": 1}, 0.0)
    for o in (r, m):
        o.receive(transmit(n0), 0.0)
    _exchange_acks(a, r, m)
    logged = [d.envelope for d in r.deliveries()]
    n1 = a.send({"type": "note", "v": 1}, 0.0)
    share = a.send_side({"type": "shares", "v": 1}, 0.0)
    for o in (r, m):
        o.receive(transmit(n1), 0.0)
        o.receive(transmit(share), 0.0)
    before_crash = r.ack(0.0)  # "I hold seat 0's seq 1 and its side message 0"
    m.receive(transmit(before_crash), 0.0)
    back = Orderer(seats=r.seats, me=1, game=r.game, sign=make_signer(net.peers[1].identity))
    for envelope in logged:
        back.restore_delivered(transmit(envelope))
    back.restore_sent(before_crash, 0.0)
    back.restored()
    relayed: list[bytes] = []
    for second in range(1, 4):
        m.receive(transmit(back.ack(float(second))), float(second))  # "I hold seat 0's seq 0"
        relayed += [e.body for k in range(20) for s, e in m.on_timer(second + 0.05 * k) if s == 1]
    assert n1.body in relayed and share.body in relayed
    for body in (n1.body, share.body):
        envelope = next(e for e in (n1, share) if e.body == body)
        back.receive(transmit(envelope), 4.0, relayed=True)
    assert back._peers[0].next_seq == 2 and back._peers[0].side_next == 1
