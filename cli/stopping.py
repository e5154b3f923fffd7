"""How a `bandit-lan` process stops when it is told to: Ctrl-C, SIGTERM, or SIGHUP (its
terminal window was closed).

Theory of operation
-------------------
`run_until_stopped` runs a command's main function under trio and watches the three
signals. Outside a game (the lobby, a table list) a signal cancels everything at once.
At a table, vanishing would leave the others waiting out the grace period for a seat
that will not come back (§11.3) and this seat's log ending in mid-game; so while a seat
plays (`leaving_on_stop`), the first interrupt or termination request makes it *leave*
(a hang-up is another matter, below): a `leave` in the agreed
order (§9.8) with a reason that says what happened, after which every peer's game ends
at the same point and every log closes valid. Its stay for the others after the end
(§11.4) is cut to fit, so the command then finishes as after any leaving, within
`STOP_WAIT`. A second signal, or a leave that has not finished by then, cancels.

An interrupt is the person at the terminal pressing Ctrl-C (a line-mode seat's way to
leave: the full-screen client reads the key itself and asks first), so the others read
it as the choice it is; the bots a command seats beside the person run in sessions of
their own (`cli.bots`), so only the person's process hears it.

A hang-up means the terminal is gone (its window closed, its ssh connection dropped):
no choice of the player's to leave, but the seat going away meaning to come back. So
at a table that can take it back (`leaving_on_stop`'s `away`), a hang-up does not leave:
the seat stops as a crash would for the others, its links closed without a goodbye, so
they wait out their grace period for it (§11.3), and cleanly for itself, its log and
journal made durable for `--resume`; the command then ends with `INTERRUPTED`. Output to
the terminal would only fail, so standard output and error are pointed at /dev/null
first where they were that terminal (a JSON line piped to another program still gets
through). Outside a game (the lobby) a hang-up cancels like any signal: the seat leaves
the lobby, as there is no game yet to come back to.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

import trio

from cli.lobby_common import for_the_terminal, tell
from cli.ttymode import point_at_nowhere
from p2p.groups import lone_exception_unwrapped
from p2p.session import CHOSE_TO_LEAVE

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_WAIT: Final = 10.0  # seconds a seat gets to leave its table after a signal
LEAVE_WITHIN: Final = STOP_WAIT - 2.0  # ... to end its stay after the game (§11.4), leaving time to close
INTERRUPTED: Final = 130  # exit status when a signal cut the command short

# Why the seat leaves, as the others read it after its name ("Bo left the table (…)"); a
# hang-up leaves only where the seat cannot go away instead (`leaving_on_stop`).
TERMINAL_CLOSED: Final = "their terminal was closed"  # (also when the client sees it go first)
REASONS: Final = {
    signal.SIGINT: CHOSE_TO_LEAVE,  # (Ctrl-C at the terminal: the person's own doing)
    signal.SIGTERM: "their program was terminated",
    signal.SIGHUP: TERMINAL_CLOSED,
}

Leave = Callable[[str, float], Awaitable[None]]  # (reason, seconds it has to be gone)


class _Stop:
    """The leaving a signal should start, while a seat plays, and the going away a
    hang-up should start instead, where the seat can be taken back."""

    def __init__(self) -> None:
        self.leave: Leave | None = None
        self.away: Leave | None = None
        self.words = "Leaving the table."  # (what a signal that cancels says: `said_on_stop`)


_STOP: ContextVar[_Stop] = ContextVar("bandit_lan_stop")


@contextmanager
def leaving_on_stop(leave: Leave, away: Leave | None = None) -> Iterator[None]:
    """While this block runs (a seat plays), a stop signal calls `leave(reason, within)`
    instead of cancelling the command: the seat has `within` seconds to be gone. A
    hang-up calls `away(reason, within)` instead, if given: the seat goes away meaning to
    come back (§11.3)."""
    stop = _STOP.get(None)
    if stop is None:  # not under run_until_stopped (a test): nothing watches signals
        yield
        return
    previous = stop.leave, stop.away
    stop.leave, stop.away = leave, away
    try:
        yield
    finally:
        stop.leave, stop.away = previous


@contextmanager
def said_on_stop(words: str) -> Iterator[None]:
    """While this block runs, a signal that cancels the command says `words` (a host's
    lobby: as its full screen says it), not "Leaving the table."."""
    stop = _STOP.get(None)
    if stop is None:  # not under run_until_stopped (a test)
        yield
        return
    previous, stop.words = stop.words, words
    try:
        yield
    finally:
        stop.words = previous


def _tell(text: str) -> None:
    tell(for_the_terminal(text, sys.stderr), sys.stderr)  # (a terminal that is gone is let go of, as every other line's)


def _terminal_outputs() -> list[int]:
    """Standard output and error, where they are a terminal."""
    fds = []
    for stream in (sys.stdout, sys.stderr):
        try:
            if os.isatty(stream.fileno()):
                fds.append(stream.fileno())
        except (OSError, ValueError):  # closed, or not a real file
            continue
    return fds


def run_until_stopped(main: Callable[[], Awaitable[int]], *, heard: list[signal.Signals] | None = None) -> int:
    """Run `main` under trio; a signal stops it as the module says. Returns main's exit
    status, or `INTERRUPTED` if a signal cancelled it; `heard` gets every stop signal
    that came (a seat that left at one still ends with its game's status)."""
    stop = _Stop()
    terminal = _terminal_outputs()  # (asked now: a hung-up terminal no longer says it is one)

    async def wrapper() -> int:
        status = INTERRUPTED
        _STOP.set(stop)
        with lone_exception_unwrapped():
            async with trio.open_nursery() as nursery:

                async def cancel_after(seconds: float) -> None:
                    await trio.sleep(seconds)
                    _tell("bandit-lan: the table did not see us off in time; stopping.")
                    nursery.cancel_scope.cancel()

                async def watch_signals(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
                    leaving = False
                    with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
                        task_status.started()  # (before `main` runs: no signal finds the default action)
                        async for signum in signals:
                            if heard is not None:
                                heard.append(signal.Signals(signum))
                            if signum == signal.SIGHUP:
                                point_at_nowhere(terminal)  # (the hung-up terminal)
                            if stop.leave is not None and not leaving:
                                leaving = True
                                if signum == signal.SIGHUP and stop.away is not None:
                                    nursery.start_soon(stop.away, TERMINAL_CLOSED, LEAVE_WITHIN)
                                else:
                                    _tell("\nLeaving the table.")  # (a seat at play leaves, as its others read)
                                    nursery.start_soon(stop.leave, REASONS[signal.Signals(signum)], LEAVE_WITHIN)
                                nursery.start_soon(cancel_after, STOP_WAIT)
                                continue
                            _tell("\nStopped." if leaving else f"\n{stop.words}")
                            nursery.cancel_scope.cancel()
                            return

                async def body() -> None:
                    nonlocal status
                    status = await main()
                    nursery.cancel_scope.cancel()

                await nursery.start(watch_signals)
                nursery.start_soon(body)
        return status

    return trio.run(wrapper)
