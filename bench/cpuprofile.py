"""Where a peer process spends its CPU at given moments: a sampling profiler for benchmarks.

Theory of operation
-------------------
`Sampler` arms the process's CPU-time interval timer (``ITIMER_PROF``): the kernel sends
``SIGPROF`` each time the process has used another interval of CPU, so samples fall in
proportion to CPU used, never to waiting. The handler runs in the main thread between
two bytecodes, with the interrupted frame, and notes the monotonic time (the clock every
process of a benchmark shares) and `label(frame)`: the innermost frame that names real
code, as the project module (``p2p/order/orderer.py``), the library (``trio``, ``msgpack``; for
PyNaCl also its function, since each stands for one libsodium call) or the standard
library module (``ssl``). Code generated at run time (dataclass and attrs methods) is
charged to its caller, trio's and outcome's to ``trio``.

`report` keeps the samples that fall inside given windows of time (a benchmark's timed
intervals, merged where they overlap) and prints each label's share of them, beside its
share of the whole run. The kernel's tick bounds how often samples come (every 4 ms of
CPU at 250 Hz), so shares are only as good as the number of samples they rest on, which
`report` prints.
"""

from __future__ import annotations

import bisect
import collections
import signal
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = str(Path(__file__).resolve().parent.parent)
PROJECT = ("p2p", "engine", "cli", "bench")
RUNTIME = ("trio", "outcome")


def label(frame: FrameType | None) -> str:
    """The innermost frame of `frame`'s stack that names real code, as a short label."""
    while frame is not None:
        code = frame.f_code
        path = code.co_filename
        if path.startswith(ROOT + "/"):
            return path[len(ROOT) + 1:]
        if path.startswith("<"):  # generated: trio's attrs classes, or a dataclass's __init__
            if any(name in path for name in RUNTIME):
                return "trio"
            frame = frame.f_back
            continue
        parts = Path(path).parts
        for marker in ("site-packages", "dist-packages"):
            if marker in parts:
                package = parts[parts.index(marker) + 1:]
                top = package[0].removesuffix(".py")
                if top in PROJECT:
                    return "/".join(package)
                if top == "nacl":
                    return f"nacl {code.co_name}"
                return "trio" if top in RUNTIME else top
        stdlib = next((i for i, part in enumerate(parts) if part.startswith("python3")), None)
        if stdlib is not None and stdlib + 1 < len(parts):  # lib/python3.x/json/decoder.py: json
            return parts[stdlib + 1].removesuffix(".py")
        return Path(path).stem
    return "?"


class Sampler:
    """Samples this process's stack every `interval` seconds of its CPU time."""

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.samples: list[tuple[float, str]] = []

    def _on_signal(self, _signum: int, frame: FrameType | None) -> None:
        self.samples.append((time.monotonic(), label(frame)))

    def start(self) -> None:
        signal.signal(signal.SIGPROF, self._on_signal)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)


def merged(windows: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of `windows` as disjoint intervals, in order."""
    out: list[list[float]] = []
    for start, end in sorted(windows):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(start, end) for start, end in out]


def shares(samples: Sequence[tuple[float, str]], windows: Iterable[tuple[float, float]]) -> tuple[collections.Counter[str], int]:
    """(samples per label, number of samples) for the samples inside `windows`."""
    ordered = sorted(samples)
    times = [t for t, _ in ordered]
    counts: collections.Counter[str] = collections.Counter()
    for start, end in merged(windows):
        counts.update(where for _, where in ordered[bisect.bisect_left(times, start):bisect.bisect_right(times, end)])
    return counts, sum(counts.values())


def report(samples: Sequence[tuple[float, str]], windows: Iterable[tuple[float, float]], what: str, rows: int = 20) -> list[Any]:
    """Print the labels' shares of the CPU samples inside `windows` and of all samples;
    return the printed rows as [label, share inside, share overall] (percent)."""
    inside, n_inside = shares(samples, windows)
    overall = collections.Counter(where for _, where in samples)
    n_all = len(samples)
    print(f"CPU samples of every peer process: {n_inside} in {what}, {n_all} in all")
    table = []
    for where, count in inside.most_common(rows):
        row = [where, round(100 * count / n_inside, 1), round(100 * overall[where] / n_all, 1)]
        table.append(row)
        print(f"  {row[1]:5.1f} %  ({row[2]:5.1f} % of the whole run)  {where}")
    rest = n_inside - sum(count for _, count in inside.most_common(rows))
    if rest:
        print(f"  {100 * rest / n_inside:5.1f} %  everything else")
    return table
