"""Telling that this process did not run for a while: it was stopped (Ctrl-Z, SIGSTOP)
or its machine slept (§6.6, §9.6). No I/O here."""

from __future__ import annotations

import math

OVERSLEPT = 1.0  # seconds past its deadline a task woke: this process did not run meanwhile


def stop_began(due: float, ran: float | None, now: float) -> float | None:
    """When this process stopped, if a task due to run at `due` runs only at `now`, more
    than `OVERSLEPT` later: the last moment the process is known to have run (`ran`,
    else `due`), if that too is more than `OVERSLEPT` before `now`. None if it ran in
    time, or ran meanwhile (a task starved by other work, not a stop). Whatever runs
    first after a stop asks this before it acts, and each moment the process runs is
    its `ran` for the next."""
    if not math.isfinite(due) or now <= due + OVERSLEPT:
        return None
    began = due if ran is None else ran
    return began if now - began > OVERSLEPT else None
