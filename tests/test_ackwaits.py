"""How long the table waited on one seat's acks alone, lately (`p2p.ackwaits`, §9.11 "Acks")."""

from __future__ import annotations

from p2p.ackwaits import AckWaits


def test_s9_11_acks_waits_add_up_across_messages_held_back_one_after_another() -> None:
    """A seat whose every ack comes 1.9 s late holds back one message after another, none
    for 2 s: the spans add up over the window, and progress starts nothing over."""
    waits, now = AckWaits(), 0.0
    for _ in range(5):  # 1.9 s waiting on seat 2, then 0.1 s on nobody
        waits.note(now, 2, keep=20.0)
        now += 1.9
        waits.note(now, None, keep=20.0)
        now += 0.1
    assert abs(waits.waited(2, now, 10.0) - 9.5) < 1e-9
    assert waits.waited(1, now, 10.0) == 0.0 and waits.seats() == {2}
    assert waits.reaches(2, now, 10.0, 5.0) is None  # (nobody is waited on now)


def test_s9_11_acks_waits_count_the_span_under_way_and_only_the_window() -> None:
    waits = AckWaits()
    waits.note(0.0, 1, keep=10.0)
    assert waits.waited(1, 4.0, 10.0) == 4.0 and waits.reaches(1, 4.0, 10.0, 7.0) == 7.0
    waits.note(4.0, 2, keep=10.0)  # (another seat alone now: seat 1's span ends)
    assert waits.waited(1, 12.0, 10.0) == 2.0 and waits.waited(2, 12.0, 10.0) == 8.0
    waits.note(15.0, None, keep=10.0)  # (seat 1's span ended 10 s ago or more: dropped)
    assert waits.seats() == {2} and waits.waited(2, 15.0, 10.0) == 10.0


def test_s11_3_acks_waits_forget_what_an_absence_excuses() -> None:
    waits = AckWaits()
    waits.note(0.0, 1, keep=10.0)
    waits.note(3.0, 2, keep=10.0)
    waits.forget({2})
    assert waits.seats() == {1} and waits.waited(2, 5.0, 10.0) == 0.0
    waits.forget()
    assert waits.seats() == set()
