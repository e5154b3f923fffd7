"""§9.4, §10.1: the intake hands the table machine what it can take of the agreed order,
so every log ends where the game did (the sim and live tests play it through)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from p2p.order import Delivered
from p2p.table import Intake


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


def message(position: int, kind: str, **fields: Any) -> Delivered:
    return Delivered(position, 0, SimpleNamespace(inner={"type": kind, **fields}))  # type: ignore[arg-type]


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
