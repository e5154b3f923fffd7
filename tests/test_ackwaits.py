"""Whose acks the table waits for, and how long it waited on one seat's alone (`p2p.ackwaits`, §7.3, §9.11)."""

from __future__ import annotations

from copy import deepcopy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.ackwaits import ACKS_LATE, ACKS_SLOW_WINDOW, AcksTold, AcksWatch, AckWaits, Token


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


STALL = 7.0  # (the least stall time for acks: `p2p.peer.ACKS_STALL_AT_LEAST`)
NOBODY: Token = ("", -1)


def test_s7_3_a_seat_holding_one_message_back_is_waited_for_told_once_and_told_back_when_its_acks_come() -> None:
    watch = AcksWatch()
    assert watch.track(0.0, ("m", 1), [2], alone=True, stall=STALL) == []
    assert watch.track(ACKS_LATE - 0.1, ("m", 1), [2], alone=True, stall=STALL) == [] and not watch.held(1.9)
    assert watch.deadline(ACKS_LATE - 0.1, 1, STALL) == ACKS_LATE  # (when it is next told)
    assert watch.track(ACKS_LATE, ("m", 1), [2], alone=True, stall=STALL) == [AcksTold(2, "held")]
    assert watch.held(ACKS_LATE) == {2} and watch.holding() == {2: 0.0}
    assert watch.track(3.0, ("m", 1), [2], alone=True, stall=STALL) == []  # (told once)
    assert watch.track(4.0, NOBODY, [], alone=True, stall=STALL) == [AcksTold(2, "confirms")]
    assert not watch.held(4.0) and not watch.holding()


def test_s7_3_progress_starts_the_wait_on_a_seat_s_word_over() -> None:
    """One message covered and the next held back: the next one is timed from then."""
    watch = AcksWatch()
    watch.track(0.0, ("m", 1), [2], alone=True, stall=STALL)
    watch.track(1.5, ("m", 2), [2], alone=True, stall=STALL)
    assert watch.track(2.5, ("m", 2), [2], alone=True, stall=STALL) == [] and not watch.waited(2.5)
    assert watch.track(1.5 + ACKS_LATE, ("m", 2), [2], alone=True, stall=STALL) == [AcksTold(2, "held")]


@pytest.mark.parametrize("excuse", ["absent", "cut"])
def test_s11_3_acks_awaited_from_a_seat_whose_link_is_lost_are_not_told_back(excuse: str) -> None:
    """Its link lost (or reported down), the seat leaves the waiting: that loss is told, not
    acks that came."""
    watch = AcksWatch()
    watch.track(0.0, ("m", 1), [2], alone=True, stall=STALL)
    assert watch.track(ACKS_LATE, ("m", 1), [2], alone=True, stall=STALL) == [AcksTold(2, "held")]
    assert watch.track(3.0, ("m", 1), [], alone=False, stall=STALL, **{excuse: {2}}) == []
    assert not watch.held(3.0)


def test_s9_11_acks_late_one_after_another_are_told_once_held_and_claimed_once_a_round() -> None:
    """Every ack 1.9 s late: no message waits `ACKS_LATE`, yet after 5 s of 10 the table
    waits for the seat, and after the stall time within twice that its stall is claimed,
    once a round; once its acks keep up, that is told too."""
    watch, now, told, claims = AcksWatch(), 0.0, [], []
    for n in range(8):
        told += watch.track(now, ("m", n), [2], alone=True, stall=STALL)
        claims += [(now, watch.claims(now, 1, STALL))]
        now += 1.9
        told += watch.track(now, NOBODY, [], alone=True, stall=STALL)
        now += 0.1
    assert [t.what for t in told] == ["slow"] and told[0].seat == 2 and told[0].waited >= 5.0
    assert watch.held(now) == {2} and not watch.waited(now)
    assert [seats for _, seats in claims if seats] == [[2]]  # (once a round)
    assert watch.claims(now, 2, STALL) == [2]  # (the next round's)
    later = now + ACKS_SLOW_WINDOW
    assert watch.track(later, NOBODY, [], alone=True, stall=STALL) == [AcksTold(2, "keeps up", 0.0)]
    assert not watch.held(later)


def test_s9_11_no_seat_is_waited_on_alone_while_another_holds_the_delivery_back_too() -> None:
    watch = AcksWatch()
    for t in range(0, 12):
        watch.track(float(t), ("m", t), [1, 2], alone=True, stall=STALL)
    assert watch.claims(12.0, 1, STALL) == [] and watch.track(12.0, NOBODY, [], alone=True, stall=STALL) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(0.05, 4.0), st.sampled_from([(), (1,), (2,), (1, 2)]), st.booleans(),
                          st.booleans()), min_size=1, max_size=25))
def test_s9_11_nothing_the_watch_has_to_say_falls_due_before_its_deadline(steps: list) -> None:
    """The timer task sleeps until `deadline`: nothing the watch tells or claims may fall
    due before it (it would be told or claimed late), and with no deadline nothing falls
    due at all. (A deadline may come early, as a wait summed over a window loses what
    slides out of it: the task then finds nothing and asks again. That a seat's acks keep
    up again is told at the next input: every seat sends one at least every second, §7.3.)"""
    watch, now, number = AcksWatch(), 0.0, 0

    def changes(at: float) -> bool:
        copy = deepcopy(watch)
        told = [t for t in copy.track(at, token, waiting, alone=alone, stall=STALL) if t.what != "keeps up"]
        return bool(told or copy.claims(at, 1, STALL))

    for dt, waiting, progress, alone in steps:
        now += dt
        number += progress
        token = ("m", number) if waiting else NOBODY
        watch.track(now, token, list(waiting), alone=alone, stall=STALL)
        watch.claims(now, 1, STALL)
        due = watch.deadline(now, 1, STALL)
        if due is None:
            assert not changes(now + 3 * ACKS_SLOW_WINDOW)
            continue
        assert due > now and not changes(due - 1e-6), (now, due)
