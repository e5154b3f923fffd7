"""Garbage collection at the table's quiet moments (the shell's, never the machines').

Theory of operation
-------------------
CPython's cyclic collector pauses the whole process, and a full (oldest-generation)
collection walks every tracked object: late in a game that is tens of milliseconds, and
when it falls inside a snap race it is the race's latency at every peer (the order
waits for the slowest acknowledgement, §7.4). A table has natural pauses where nothing
is timed: before the first shuffle and when a round's scores stand. There the peer
collects the young generations (cheap: they hold only what was allocated lately) and
*freezes* everything that is left (`gc.freeze`), so the collections that still happen
during a round only walk what that round allocated. A full collection is not run there:
its cost grows with everything the process holds (a test process holding many tables,
say), and a pause that long would look like a peer gone away (§11.3). Acyclic garbage is
freed by reference counting as always; cyclic garbage among frozen objects waits for
`release`, which the peer calls on its way out.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """A quiet moment: collect the young generations, and keep everything that is left
    out of later collections."""
    gc.collect(1)
    gc.freeze()


def release() -> None:
    """Make frozen objects collectable again (on leaving the table)."""
    gc.unfreeze()
