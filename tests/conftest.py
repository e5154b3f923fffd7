"""Suite-wide settings of the test run."""

from __future__ import annotations

import os

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
