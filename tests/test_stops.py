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
