"""Command lines the program shows its user, ready to paste into a shell."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from fnmatch import fnmatch
from pathlib import Path


def audit_command(logs: Sequence[Path | str]) -> str:
    """`bandit-lan audit` over `logs`, every path quoted as its shell needs; one game's
    seats in one folder become one pattern (`<game>-seat*.bandit-log`, §10.3)."""
    paths = [Path(p) for p in logs]
    first = paths[0]
    pattern = f"{first.name.rsplit('-seat', 1)[0]}-seat*.bandit-log"
    if len(paths) > 1 and "-seat" in first.name and all(p.parent == first.parent and fnmatch(p.name, pattern)
                                                        for p in paths):
        return f"bandit-lan audit {shlex.quote(str(first.parent))}/{pattern}"
    return "bandit-lan audit " + " ".join(shlex.quote(str(p)) for p in paths)
