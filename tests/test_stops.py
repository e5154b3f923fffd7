"""`p2p.stops.stop_began`: when a task that ran late finds that this process was stopped."""

from __future__ import annotations

from p2p.stops import OVERSLEPT, stop_began


def test_a_task_that_ran_in_time_finds_no_stop() -> None:
    assert stop_began(10.0, 9.0, 10.0 + OVERSLEPT) is None
    assert stop_began(float("inf"), 9.0, 100.0) is None


def test_a_stop_is_dated_from_the_last_moment_the_process_ran() -> None:
    assert stop_began(10.0, 9.5, 40.0) == 9.5
    assert stop_began(10.0, None, 40.0) == 10.0


def test_a_task_starved_past_its_deadline_by_work_that_ran_meanwhile_finds_no_stop() -> None:
    """The timer task was due at 10 s; a long verification ran until 11.49 s, and the
    timer task runs at 11.5 s: late, but the process ran all along (before: a 10 ms
    "stop", whose note said the peer did not run for 0 s)."""
    assert stop_began(10.0, 11.49, 11.5) is None
    assert stop_began(10.0, 10.6, 11.5) is None  # (ran 0.9 s before: no stop either)
    assert stop_began(10.0, 10.4, 11.5) == 10.4  # (more than `OVERSLEPT` without running: a stop)


def test_a_log_end_after_a_stop_names_whom_it_did_not_reach_apart_from_what_others_reported() -> None:
    """A log's end after a stop past the grace period says what other seats reported they
    could not reach before whom this seat could not reach; a later `resume` reads only the
    latter as the seats that did not answer. Where every seat answered, it is no end of a
    seat that did not answer."""
    from p2p.session import (cut_after_stop, ended_cut_after_stop, ended_unanswered_after_stop, unanswered_after_stop,
                             unanswered_named)

    how = "was stopped for 30 s, longer than the table's grace period (15 s)"
    ended = unanswered_after_stop("Ann", how, "Cy", "Bo could not reach Dan")
    assert ended == f"Ann's program {how}; Bo could not reach Dan; Cy did not answer after it"
    assert ended_unanswered_after_stop("Ann", ended) and unanswered_named("Ann", ended) == "Cy"
    assert unanswered_named("Ann", unanswered_after_stop("Ann", how, "Bo, Cy and Dan")) == "Bo, Cy and Dan"
    assert unanswered_named("Ann", unanswered_after_stop("Ann", how)) is None
    alone = cut_after_stop("Ann", how, "Bo could not reach Ann within the grace period")
    assert alone == (f"Ann's program {how}; every other seat answered after it; Bo could not reach Ann within the "
                     "grace period")
    assert not ended_unanswered_after_stop("Ann", alone)
    assert ended_cut_after_stop("Ann", alone) == "Bo could not reach Ann within the grace period"
    assert ended_cut_after_stop("Ann", ended) is None and ended_cut_after_stop("Bo", alone) is None
