"""Suite-wide settings of the test run."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (the default run): one worker more than this process may use cores.
    About a third of a worker's time goes to live tests waiting on real processes,
    sockets and timers (a grace period, a handshake that goes unanswered); one more
    worker keeps the cores busy meanwhile. `PYTEST_XDIST_AUTO_NUM_WORKERS` still
    chooses (pytest-xdist's own hook reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1


@pytest.fixture(autouse=True)
def _ctrl_c_as_python_set_it() -> Iterator[None]:
    """Each test leaves Ctrl-C (SIGINT) handled as Python handles it. A full-screen
    application run in a test (prompt_toolkit) puts back SIGINT's handler below Python's
    as it found it, which can leave the process ignoring SIGINT, and every process a
    later test starts inherits that: a Ctrl-C sent to it would do nothing. Installing
    Python's own handler again sets the process's handler too."""
    yield
    handler = signal.getsignal(signal.SIGINT)
    if handler is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)
