"""The live table's test helpers (`tests/live_support.py`): a test that fails at a live
table ends promptly with its own failure, on trio's MockClock too.

Each failing body runs as a sub-test, in its own `trio.run` on a MockClock that only it
could advance; a watcher thread notes a run still going after `PROMPTLY` seconds of real
time (a hung run, then let go: the clock jumps by itself from there), and the test
checks what the run raised and that it ended by itself."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
import trio.testing

from engine import Phase
from p2p.peer import TablePeer
from p2p.transport import HandlerFailed, MeshEvent
from tests.live_support import running, seat_live_table, until

PROMPTLY = 30.0  # seconds of real time (a failing body here ends in about one)


def _failure_of(body: Callable[[], Awaitable[None]]) -> tuple[BaseException, bool]:
    """What `body` raised, run on a MockClock, and whether the run ended by itself
    within `PROMPTLY` seconds of real time."""
    clock = trio.testing.MockClock()
    hung = threading.Event()
    ended = threading.Event()

    async def main() -> None:
        token = trio.lowlevel.current_trio_token()

        def unstick() -> None:
            clock.autojump_threshold = 0

        def watch() -> None:
            if not ended.wait(PROMPTLY):
                hung.set()
                try:
                    token.run_sync_soon(unstick)
                except trio.RunFinishedError:
                    pass

        threading.Thread(target=watch, daemon=True).start()
        await body()

    try:
        with pytest.raises(BaseException) as failed:
            trio.run(main, clock=clock)
    finally:
        ended.set()
    return failed.value, not hung.is_set()


class FailingSeat(TablePeer):
    """A seat with a bug where it takes what its links bring: the mesh's link task, which
    runs the seat's handler, raises (`HandlerFailed`), and the mesh fails; its links
    are left to the peers across, unanswered."""

    def _on_events(self, events: list[MeshEvent]) -> None:
        if self.view().phase is Phase.PEEK:
            raise RuntimeError("a bug in Bot 1's seat")
        super()._on_events(events)


def test_a_seat_that_fails_at_a_live_table_on_a_mock_clock_fails_the_test_promptly(tmp_path: Path) -> None:
    """Bot 1's seat fails mid-game. Ann's mesh closed by saying goodbye on its link to Bot 1
    and waiting (`transport.LINGER`, in the clock's time) for an answer that could not
    come: the MockClock stood still and the failing test hung. The clock jumps by itself
    once the test failed: it fails at once, with Bot 1's failure."""

    async def body() -> None:
        stack, (ann, bot) = await seat_live_table(tmp_path, 2, classes={1: FailingSeat})
        async with stack, running([ann, bot]):
            await until(lambda: ann.progress.ended, ann)  # (the failure cuts the wait short)

    failure, promptly = _failure_of(body)
    assert isinstance(failure, HandlerFailed) and "a bug in Bot 1's seat" in str(failure), repr(failure)
    assert promptly, f"the failing test hung: it ended only when let go after {PROMPTLY:g} s"


def test_a_lobby_that_fails_at_a_live_table_fails_the_test_with_its_own_failure(tmp_path: Path) -> None:
    """A table of one seat cannot be hosted: the lobby fails with the meshes open. The
    test ended in a `TrioInternalError` (the meshes' task groups left open as the test
    returned) that hid the lobby's error; the meshes now close as it fails, and the
    test fails with the lobby's own error."""

    async def body() -> None:
        await seat_live_table(tmp_path, 1)

    failure, promptly = _failure_of(body)
    assert isinstance(failure, ValueError) and "a table has 2 to" in str(failure), repr(failure)
    assert promptly


def test_until_fails_naming_what_it_waited_for_once_its_time_is_up() -> None:
    """`until` had no deadline: a predicate that never held hung the test (on a MockClock,
    which no timer moves, for ever). It fails after `within` seconds of real time, with
    the predicate's words; one that holds returns at once."""
    seat = type("Seat", (), {})()
    seat._watch = type("Watch", (), {"changed": trio.Event()})()  # (a seat whose table never changes)

    async def body() -> None:
        await until(lambda: True, seat)
        with trio.fail_after(5):  # (on the clock, which only moves once the run is taken for hung)
            await until(lambda: "the round to end" == "never", seat, within=0.2)

    failure, by_itself = _failure_of(body)
    assert by_itself
    assert isinstance(failure, AssertionError), failure
    assert str(failure) == ('waited 0.2 s of real time for: await until(lambda: "the round to end" == "never", '
                            'seat, within=0.2)'), failure
