"""§9.4, §10.1: the intake hands the table machine what it can take of the agreed order,
so every log ends where the game did (the sim and live tests play it through)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from p2p.order import HELD_BYTES, ChainBroken, Delivered
from p2p.plain import broke
from p2p.table import Intake
from p2p.table.backlog import Backlog
from tests.ordersim import Network, SimPeer


@dataclass
class Machine:
    """Holds the first message it is handed while `waiting` (a reveal's shares)."""

    waiting: bool = True
    finished: bool = False
    halted: Any = None
    taken: int = 0

    @property
    def holding(self) -> bool:
        return self.waiting and self.taken > 0

    def held_bytes(self, seat: int) -> int:
        return 0


def message(position: int, kind: str, **fields: Any) -> Delivered:
    return Delivered(position, 0, SimpleNamespace(inner={"type": kind, **fields}, body=b""))  # type: ignore[arg-type]


def hand_over(intake: Intake, machine: Machine) -> list[int]:
    handed = []
    for d in intake.ready(machine):
        handed.append(d.position)
        machine.taken += 1
    return handed


def test_s9_4_what_comes_behind_a_held_message_waits_in_the_intake_until_it_is_taken() -> None:
    intake, machine = Intake(), Machine()
    for position, kind in enumerate(["leave", "snap", "discard"]):
        intake.add(message(position, kind))
    assert hand_over(intake, machine) == [0]  # the leave is held by the machine; the rest waits
    assert len(intake) == 2
    machine.waiting = False  # the shares came: the machine took the leave
    assert hand_over(intake, machine) == [1, 2]


def test_s9_11_a_stall_claim_about_shares_goes_through_with_everything_before_it() -> None:
    intake, machine = Intake(), Machine()
    intake.add(message(0, "snap"))
    assert hand_over(intake, machine) == [0]
    intake.add(message(1, "discard"))
    intake.add(message(2, "stalled", what="shares"))
    intake.add(message(3, "take"))
    assert hand_over(intake, machine) == [1, 2]  # judged at once: it ends a wait that never ends
    intake.add(message(4, "stalled", what="keys"))  # ordered like any other message
    assert hand_over(intake, machine) == [] and len(intake) == 2


def test_s9_8_once_the_game_is_over_nothing_more_is_handed_over() -> None:
    for over in ({"finished": True}, {"halted": "a violation"}):
        intake, machine = Intake(), Machine(waiting=False, **over)
        intake.add(message(0, "snap"))
        assert hand_over(intake, machine) == [] and len(intake) == 1


def test_s7_4_the_order_is_pulled_one_message_at_a_time() -> None:
    """A salt set while one message is taken applies to the next stamp: `pull` asks the
    order for a message only once the one before it was handed over."""
    intake, machine = Intake(), Machine(waiting=False)
    asked: list[int] = []

    def deliveries():  # type: ignore[no-untyped-def]
        for position in range(3):
            asked.append(position)
            yield message(position, "snap")

    for d in intake.pull(deliveries(), machine):
        assert asked[-1] == d.position  # nothing asked for beyond the message in hand
        machine.taken += 1
    assert asked == [0, 1, 2]


class Waiting:
    """A machine waiting for a reveal's shares that never come: it holds every ordered
    message it is handed, and takes a stall claim about shares at once (§9.4, §9.11)."""

    finished = False
    halted = None

    def __init__(self) -> None:
        self.held = Backlog()
        self.claims: list[Delivered] = []

    @property
    def holding(self) -> bool:
        return bool(self.held)

    def held_bytes(self, seat: int) -> int:
        return self.held.bytes_of(seat)

    def deliver(self, delivered: Delivered) -> None:
        if delivered.envelope.inner["type"] == "stalled":
            self.claims.append(delivered)
        else:
            self.held.append(delivered)


class WaitingTable(Network):
    """Seat 1's table waits for a reveal's shares: what the order delivers there goes
    through an intake to a machine that holds it, as a peer's does (`TablePeer._pump`)."""

    def __init__(self) -> None:
        super().__init__(3, 11)
        self.intake, self.machine = Intake(), Waiting()
        self.peers[1].orderer.kept = lambda seat: self.intake.kept(seat, self.machine)

    def on_deliveries(self, peer: SimPeer) -> None:
        if peer.seat != 1:
            return super().on_deliveries(peer)
        for delivered in self.intake.pull(peer.orderer.deliveries(), self.machine):
            peer.delivered.append(delivered)
            self.machine.deliver(delivered)


def test_s7_2_s9_4_a_sender_flooding_a_table_held_for_shares_is_refused_by_name() -> None:
    """What a table keeps behind a reveal waiting for shares (§9.4), in its intake or its
    machine, weighs on each sender's bound (HELD_BYTES, §7.2) as if not delivered: a
    sender that floods it is refused by name, a stall claim about shares still goes
    through at once behind the flood, and the other seats go on as before."""
    net = WaitingTable()
    megabyte = bytes(1_000_000)
    net.send(0, {"type": "note", "v": 1, "n": 0})  # (held by the machine: it waits for shares)
    net.quiesce(2)
    for n in range(1, 6):
        net.send(0, {"type": "note", "v": 1, "n": n, "pad": megabyte})
        net.quiesce(2)
    assert len(net.intake) == 5 and net.intake.kept(0, net.machine) > 5_000_000
    claim = net.send(2, {"type": "stalled", "v": 1, "round": 1, "what": "shares", "need": 0, "seats": [0]})
    net.quiesce(2)
    assert [d.envelope.body for d in net.machine.claims] == [claim.body]  # (never stuck behind the flood)
    assert len(net.intake) == 0 and len(net.machine.held) == 6  # (what came before it is handed over with it)
    for n in range(6, 10):
        net.send(0, {"type": "note", "v": 1, "n": n, "pad": megabyte})
        net.quiesce(2)
    refusal = net.peers[1].errors[0]  # (its copies sent again are refused alike: a live peer ends the game at the first)
    assert {(type(e), e.peer) for e in net.peers[1].errors} == {(ChainBroken, refusal.peer)}
    assert isinstance(refusal, ChainBroken) and refusal.peer == net.peers[0].orderer.seats[0]
    assert refusal.section == "§7.2" and str(HELD_BYTES) in refusal.reason
    assert refusal.reason.startswith("seq 9:")  # (eight of a megabyte fit, §7.2)
    assert broke("§7.2", refusal.reason) == "sent more of their messages than a table keeps waiting for its turn to take them"
    assert len(net.machine.held) + len(net.intake) == 9  # (nothing kept changed: only the one past the bound is refused)
    assert not net.peers[2].errors and len(net.peers[2].delivered) == 10  # (a table that took them refuses nothing)


def test_s7_2_what_a_table_took_weighs_nothing() -> None:
    """A table that takes what is delivered keeps nothing: an honest sender sends many
    times HELD_BYTES in a game and nobody refuses it (`Intake.kept` is 0 once taken)."""
    intake, machine = Intake(), Machine(waiting=False)
    body = bytes(1000)
    delivered = [Delivered(n, 0, SimpleNamespace(inner={"type": "snap"}, body=body))  # type: ignore[arg-type]
                 for n in range(3)]
    assert [d.position for d in intake.pull(iter(delivered), machine)] == [0, 1, 2]
    assert intake.kept(0, machine) == 0
    machine.waiting, machine.taken = True, 1
    intake.add(Delivered(3, 0, SimpleNamespace(inner={"type": "snap"}, body=body)))  # type: ignore[arg-type]
    assert hand_over(intake, machine) == [] and intake.kept(0, machine) == 1000 and intake.kept(1, machine) == 0
    machine.waiting = False
    assert hand_over(intake, machine) == [3] and intake.kept(0, machine) == 0
