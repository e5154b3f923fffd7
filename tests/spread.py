"""Seeded simulated games spread over the machine's cores.

Each game is pure and independent (its seed decides everything), so a worker process
plays it and reports only what failed; the test compares nothing else. One worker per
core, shared with the suite's other workers when pytest-xdist runs it on every core
(each batch then takes its share, and the live tests beside it are not starved of CPU).
Whatever a worker puts in temporary folders goes in one folder that is removed after
the batch.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor


def _use_scratch(folder: str) -> None:
    tempfile.tempdir = folder


def spread(check: Callable[[int], str | None], seeds: Iterable[int]) -> list[str]:
    """Run `check(seed)` for every seed (a module-level function, so workers can import
    it); the failures it described, in seed order."""
    seeds = list(seeds)
    suite_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    workers = min(len(seeds), max(1, (os.cpu_count() or 1) // suite_workers))
    if workers <= 1:
        return [failure for seed in seeds if (failure := check(seed)) is not None]
    with tempfile.TemporaryDirectory(prefix="bandit-spread-") as scratch:
        with ProcessPoolExecutor(workers, initializer=_use_scratch, initargs=(scratch,)) as pool:
            return [failure for failure in pool.map(check, seeds) if failure is not None]
