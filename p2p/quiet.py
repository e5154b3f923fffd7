"""Garbage collection at the table's quiet moments (the shell's, never the machines').

Theory of operation
-------------------
CPython's cyclic collector pauses the whole process, and how long depends on how many
tracked objects the collected generations hold: a full (oldest-generation) collection
walks every one, late in a game tens of milliseconds; a middle-generation one walks all
that survived the last few young collections, about a millisecond in a game. When such
a pause falls inside a snap race it is the race's latency at every peer (the order
waits for the slowest acknowledgement, §7.4), and collections fall there more often
than anywhere, because they are triggered by allocation and a race allocates.

So the peer collects at quiet moments instead, and *freezes* what is left
(`gc.freeze`): collections that still come in the middle of play only walk what was
allocated since the last quiet moment, however old the game is. Quiet moments are

* the ones the table knows of (`settle`): before the first shuffle and when a round's
  scores stand; and
* lulls (`tidy`): no frame has come or gone for `LULL`, which at a table means no claim
  is being ordered or revealed here (a claim's frames come milliseconds apart, and the
  next claim takes a reaction time). A lull collects only once the young generation
  holds `YOUNG` objects, so most lulls cost nothing.

A full collection is never run here: its cost grows with everything the process holds
(a test process holding many tables, say). Acyclic garbage is freed by reference
counting as always; cyclic garbage among frozen objects waits for `release`, which the
peer calls on its way out.
"""

from __future__ import annotations

import gc
from typing import Final

LULL: Final = 0.010  # seconds without a frame in or out that make a lull
YOUNG: Final = 100  # tracked objects allocated since the last collection worth a lull's collection


def settle() -> None:
    """A quiet moment: collect the young generations, and keep everything that is left
    out of later collections."""
    gc.collect(1)
    gc.freeze()


def wanted() -> bool:
    """True when a lull would collect (enough was allocated since the last collection)."""
    return gc.get_count()[0] >= YOUNG


def tidy() -> bool:
    """A lull: settle if enough was allocated since the last collection; True if it did."""
    if not wanted():
        return False
    settle()
    return True


def release() -> None:
    """Make frozen objects collectable again (on leaving the table)."""
    gc.unfreeze()
