"""What a seat tells its player of the others' reports of missing links (`p2p.cuts`, §11.3).

Seat 3 ("me") watches; seats 0, 1 and 2 report. Each test gives the reports standing
at each moment, as every ack's `away` makes them (§7.1), and reads what is told."""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.cuts import CONTESTED_HOLD, REPORT_HOLD, CutTold, CutWatch, Reports
from p2p.order.orderer import REPORT_RETURNS

ME, GRACE, SILENCE = 3, 60.0, 6.0


def watch() -> CutWatch:
    return CutWatch(ME, silence=SILENCE)


def track(w: CutWatch, now: float, reports: Reports, *, waiting_for: Sequence[int] = (), reaching: Sequence[int] = (),
          back: Sequence[int] = (), quiet: Sequence[int] = ()) -> list[CutTold]:
    """`reaching`: the seats that say they reach any reporter (their acks name no link down to it)."""
    told, _ = w.track(now, reports, grace=GRACE, waiting_for=waiting_for, just_back=lambda s: s in back,
                      quiet=lambda s: s in quiet, reaching=lambda seat, away: [s for s in away if s in reaching])
    return told


def test_s11_3_a_lost_link_is_told_once_it_stood_a_moment_with_what_is_left_of_the_grace_period() -> None:
    w, reports = watch(), {0: (10.0, (1,))}
    assert track(w, 10.0, reports) == [] and track(w, 10.0 + REPORT_HOLD / 2, reports) == []
    assert w.deadline(10.5, lambda: reports, GRACE) == 10.0 + REPORT_HOLD  # (told then, input or not)
    assert track(w, 10.0 + REPORT_HOLD, reports) == [CutTold(0, "lost", (1,), left=GRACE - REPORT_HOLD)]
    assert track(w, 20.0, reports) == []  # (told once)
    assert track(w, 30.0, {}) == [CutTold(0, "over")]


def test_s11_3_the_two_ends_of_one_cut_are_told_in_one_line_and_its_end_once() -> None:
    w, reports = watch(), {0: (0.0, (1,)), 1: (0.0, (0,))}
    track(w, 0.0, reports)
    assert track(w, REPORT_HOLD, reports) == [CutTold(0, "between", (1,), left=GRACE - REPORT_HOLD)]
    assert track(w, 5.0, {}) == [CutTold(0, "over")]


def test_s11_3_a_report_a_seat_it_names_denies_is_told_as_the_reporter_s_word() -> None:
    w, reports = watch(), {2: (0.0, (0,))}
    assert track(w, REPORT_HOLD, reports, reaching=[0]) == []  # (held longer: the other end may yet report it)
    told = track(w, CONTESTED_HOLD, reports, reaching=[0])
    assert told == [CutTold(2, "contested", (0,), (0,), GRACE - CONTESTED_HOLD)]
    assert track(w, 5.0, {}) == [CutTold(2, "over", contested=True)]


def test_s11_3_a_report_naming_only_this_seat_is_a_link_broken_one_way() -> None:
    w, reports = watch(), {1: (0.0, (ME,))}
    track(w, 0.0, reports)
    assert track(w, REPORT_HOLD, reports) == [CutTold(1, "one way", left=GRACE - REPORT_HOLD)]
    w = watch()  # (but from a seat just back, dialling anew: nothing)
    assert track(w, REPORT_HOLD, reports, back=[1]) == []


def test_s11_3_a_report_of_seats_this_seat_misses_too_is_its_own_loss_said_if_it_outlasts_it() -> None:
    w, reports = watch(), {0: (0.0, (1,))}
    assert track(w, REPORT_HOLD, reports, waiting_for=[1]) == [] and w.unsaid == {0}
    assert track(w, 3.0, reports) == [CutTold(0, "lost", (1,), left=GRACE - 3.0)]  # (this seat reaches 1 again)
    w.own_loss(waiting_for=[1])  # (this seat loses 1 too: the report is its own loss now, its end untold)
    assert track(w, 4.0, {}) == []


def test_s11_3_a_report_that_keeps_coming_back_is_one_absence_told_once_and_its_end_once_it_stays_over() -> None:
    w, reports = watch(), {0: (0.0, (1,))}
    track(w, 0.0, reports)
    assert [t.what for t in track(w, REPORT_HOLD, reports)] == ["lost"]
    assert track(w, 2.0, {}) == [CutTold(0, "over")]
    again = {0: (2.5, (1,))}
    assert track(w, 2.5, again) == [CutTold(0, "keeps coming back", (1,), left=GRACE)]
    assert track(w, 3.0, {}) == [] and track(w, 3.5, again) == [] and track(w, 4.0, {}) == []
    assert w.deadline(4.0, lambda: {}, GRACE) == 4.0 + REPORT_RETURNS
    assert track(w, 4.0 + REPORT_RETURNS, {}) == [CutTold(0, "over")]


def test_s11_3_a_report_of_a_seat_gone_quiet_here_waits_to_be_told_with_this_seat_s_own_loss() -> None:
    w, reports = watch(), {0: (0.0, (1,))}
    assert track(w, REPORT_HOLD, reports, quiet=[1]) == []
    assert track(w, SILENCE - 0.1, reports, quiet=[1]) == []
    assert [t.what for t in track(w, SILENCE + REPORT_HOLD, reports, quiet=[1])] == ["lost"]


REPORTS = [{}, {0: (1,)}, {0: (1,), 1: (0,)}, {2: (0,)}, {1: (ME,)}, {0: (1, 2)}, {0: (1,), 2: (1,)}]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(0.05, 3.0), st.sampled_from(range(len(REPORTS))), st.sampled_from([(), (0,), (1,)])),
                min_size=1, max_size=25))
def test_s11_3_nothing_the_watch_has_to_tell_falls_due_before_its_deadline(steps: list) -> None:
    """The timer task sleeps until `deadline`: a report held a moment, or one that kept
    coming back and stays over, is told then, whatever comes meanwhile; nothing may fall
    due before it (it would be told late)."""
    w, now, began = watch(), 0.0, {}
    for dt, which, reaching in steps:
        now += dt
        standing = REPORTS[which]
        began = {seat: began.get(seat, now) for seat in standing}  # (a report runs from its first ack)
        reports = {seat: (began[seat], away) for seat, away in standing.items()}
        track(w, now, reports, reaching=reaching)
        due = w.deadline(now, lambda: reports, GRACE)
        later = deepcopy(w)
        if due is None:
            assert track(later, now + 2 * REPORT_RETURNS, reports, reaching=reaching) == []
            continue
        assert due > now and track(later, due - 1e-6, reports, reaching=reaching) == [], (now, due)
