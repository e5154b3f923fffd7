"""Which garbage collections a process ran, and when: for benchmarks that ask whether a
collection fell inside a timed interval.

Theory of operation
-------------------
`Watcher.start` adds a hook to `gc.callbacks`, which CPython calls at the start and the
end of every collection of the cyclic collector, automatic or explicit. The hook notes
the start on the monotonic clock (the clock every process of a benchmark shares), the
duration and the generation collected. `overlapping` picks out the collections that ran
during an interval, and `summary` tells how the timed intervals with a collection inside
compare with the rest.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Iterable, Sequence
from typing import Any

Collection = tuple[float, float, int]  # (start, seconds, generation)


class Watcher:
    """Notes every collection this process runs from `start` until `stop`."""

    def __init__(self) -> None:
        self.collections: list[Collection] = []
        self._began = 0.0

    def _hook(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.monotonic()
        else:
            self.collections.append((self._began, time.monotonic() - self._began, info["generation"]))

    def start(self) -> None:
        gc.callbacks.append(self._hook)

    def stop(self) -> None:
        gc.callbacks.remove(self._hook)


def overlapping(collections: Iterable[Collection], start: float, end: float) -> list[Collection]:
    """The collections that ran during [start, end]."""
    return [c for c in collections if c[0] <= end and c[0] + c[1] >= start]


def summary(collections: Sequence[Collection], windows: Iterable[tuple[float, float]]) -> str:
    """How the timed intervals (start, end) with a collection inside compare in length
    with those without, and what the collections inside were."""
    hit: list[float] = []
    clear: list[float] = []
    inside: set[Collection] = set()  # (a collection inside two intervals counts once)
    for start, end in windows:
        found = overlapping(collections, start, end)
        (hit if found else clear).append((end - start) * 1000)
        inside.update(found)

    def median(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} ms" if values else "-"
    by_generation = ", ".join(
        f"generation {g}: {len(d)}, median {statistics.median(d):.2f} ms"
        for g in sorted({c[2] for c in inside}) for d in [[c[1] * 1000 for c in inside if c[2] == g]])
    return (f"{len(hit)} of {len(hit) + len(clear)} timed intervals had a garbage collection inside (at any process; "
            f"median {median(hit)}, the others {median(clear)}); collections inside: {by_generation or 'none'}; "
            f"{len(collections)} collections in all")
