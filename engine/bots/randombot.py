"""The `random` bot: uniform over legal intents, with an occasional random snap."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.bots.base import SnapDelay
from engine.events import Intent, Snap
from engine.legal import legal_intents, legal_snaps
from engine.prng import Prng
from engine.view import SeatView


@dataclass(frozen=True, slots=True)
class RandomBot:
    """Picks uniformly among the legal intents (Bandit calls included); at each change
    of the discard top it tries a uniformly chosen legal snap with probability
    `snap_rate`."""

    name: str = "random"
    snap_rate: float = 0.05
    snap_delay: SnapDelay = field(default_factory=SnapDelay)

    def act(self, view: SeatView, rng: Prng) -> Intent:
        return rng.choice(legal_intents(view))

    def snap(self, view: SeatView, rng: Prng) -> Snap | None:
        if not view.can_snap or not rng.chance(self.snap_rate):
            return None
        options = legal_snaps(view)
        return rng.choice(options) if options else None
