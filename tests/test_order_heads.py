"""§7.10: what an ack declares holding of its receiver's own chain is checked by that
chain's author, who alone knows it; a false head names the ack's sender."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from p2p.order import ACK_TYPE, HEARTBEAT_EVERY, RELAY_AFTER, HeadsFalse, Orderer, message_hash
from tests.ordersim import Network, make_signer, transmit

ADA, BO, MAL = 0, 1, 2


def table(seed: int) -> Network:
    """Three seats that each sent two notes and a side message, all delivered."""
    net = Network(3, seed)
    for seat in (ADA, BO, MAL, ADA, BO, MAL):
        net.send(seat, {"type": "note", "v": 1})
    for seat in (ADA, BO, MAL):
        net.broadcast(seat, net.peers[seat].orderer.send_side({"type": "shares", "v": 1}, net.now))
    net.quiesce()
    assert all(len(p.delivered) == 6 and len(p.sides) == 2 and not p.errors for p in net.peers)
    return net


def doctored_ack(net: Network, seat: int, about: int, key: str, head: list[Any]):
    """`seat`'s ack as it stands, its `key` entry ("heads" or "sides") about `about`
    replaced by `head`, signed again (as a modified peer sends it)."""
    o = net.peers[seat].orderer
    inner = dict(o.ack(net.now).inner)
    heads = [list(h) for h in inner[key]]
    heads[about if about < seat else about - 1] = head
    inner[key] = heads
    return o._sign(inner)


def lies(net: Network) -> dict[str, Any]:
    ada = net.peers[ADA].orderer
    last, side_last = len(ada._sent) - 1, len(ada._side_sent) - 1
    return {
        "beyond": doctored_ack(net, MAL, ADA, "heads", [last + 50, hashlib.sha256(b"never").digest()]),
        "wrong hash": doctored_ack(net, MAL, ADA, "heads", [last, hashlib.sha256(b"other").digest()]),
        "side beyond": doctored_ack(net, MAL, ADA, "sides", [side_last + 1, hashlib.sha256(b"never").digest()]),
        "side wrong hash": doctored_ack(net, MAL, ADA, "sides", [side_last, hashlib.sha256(b"other").digest()]),
    }


@pytest.mark.parametrize("lie", ["beyond", "wrong hash", "side beyond", "side wrong hash"])
@pytest.mark.parametrize("relayed", [False, True])
def test_s7_10_an_ack_naming_what_the_author_never_signed_names_its_sender_at_the_author(lie: str,
                                                                                         relayed: bool) -> None:
    """Mal's ack claims ada's seq (or side sseq) beyond her last, or with another hash:
    ada, the author, refuses it at once, naming mal under §7.10, with no evidence (her
    own messages and mal's ack prove nothing to anybody else: she could have forked)."""
    net = table(1)
    ack = lies(net)[lie]
    with pytest.raises(HeadsFalse) as caught:
        net.peers[ADA].orderer.receive(transmit(ack), net.now, relayed=relayed)
    assert caught.value.peer == net.peers[MAL].orderer.seats[MAL]
    assert caught.value.section == "§7.10" and caught.value.evidence == ()
    # bo cannot tell: it goes on (the head is compared when it can be, §7.10)
    net.peers[BO].orderer.receive(transmit(ack), net.now, relayed=relayed)


def test_s7_10_honest_acks_pass_the_author_s_check_also_after_it_resumed() -> None:
    """A resumed author holds, from its log and journal, every message it sent: the
    others' honest acks, naming its latest (never delivered before it stopped), pass."""
    net = table(2)
    ada = net.peers[ADA]
    unlogged = net.send(ADA, {"type": "note", "v": 1})  # sent, journalled; the log never got it
    net.broadcast(ADA, ada.orderer.send_side({"type": "shares", "v": 1}, net.now))
    net.quiesce()
    acks = [net.peers[seat].orderer.ack(net.now) for seat in (BO, MAL)]
    assert all(a.inner["heads"][0][0] == unlogged.inner["seq"] for a in acks)
    back = Orderer(seats=ada.orderer.seats, me=ADA, game=ada.orderer.game, sign=make_signer(ada.identity))
    for delivered in ada.delivered[:-1]:  # (the log: up to the note before)
        back.restore_delivered(delivered.envelope)
    for side in ada.orderer._side_sent:
        back.restore_side(side)
    for sent in ada.orderer._sent:  # (the journal)
        back.restore_sent(sent, net.now)
    back.restored()
    for ack in acks:
        back.receive(transmit(ack), net.now)
    assert message_hash(unlogged.body) == back._peers[ADA].hashes[-1]


class LiarToBo(Network):
    """Mal's acks to bo alone declare ada's chain as `lie` says; to ada they are true."""

    def __init__(self, seed: int, lie: str) -> None:
        super().__init__(3, seed)
        self.lie = lie
        self.lying = False

    def _post(self, src: int, dst: int, envelope) -> None:
        if self.lying and (src, dst) == (MAL, BO) and envelope.inner.get("type") == ACK_TYPE:
            inner = dict(envelope.inner)
            heads = [list(h) for h in inner["heads"]]
            seq = heads[ADA][0] + 50 if self.lie == "beyond" else heads[ADA][0]
            heads[ADA] = [seq, hashlib.sha256(b"never").digest()]
            envelope = self.peers[MAL].orderer._sign({**inner, "heads": heads})
        super()._post(src, dst, envelope)


@pytest.mark.parametrize("lie", ["beyond", "wrong hash"])
def test_s7_10_a_false_echo_told_to_one_seat_alone_is_shown_to_the_author_who_names_its_sender(lie: str) -> None:
    """Mal tells bo alone that it holds ada's chain further than she sent, or another
    message: bo's delivery of ada's note waits for mal's echo, so after `RELAY_AFTER` bo
    shows mal's ack to ada, who names mal; bo never delivers the note unechoed."""
    net = LiarToBo(3, lie)
    for seat in (ADA, BO, MAL):
        net.send(seat, {"type": "note", "v": 1})
    net.quiesce()
    net.lying = True
    note = net.send(ADA, {"type": "note", "v": 1})
    net.run_until(net.now + RELAY_AFTER / 2)
    bo = net.peers[BO]
    assert note.body not in [d.envelope.body for d in bo.delivered]  # (it waits for mal's echo)
    assert not net.peers[ADA].errors
    net.run_until(net.now + 2 * RELAY_AFTER + HEARTBEAT_EVERY)
    (error,) = {type(e): e for e in net.peers[ADA].errors}.values()
    assert isinstance(error, HeadsFalse) and error.peer == net.peers[MAL].orderer.seats[MAL]
    assert note.body not in [d.envelope.body for d in bo.delivered] and not bo.errors
