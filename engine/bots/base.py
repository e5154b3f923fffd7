"""What a bot is: two pure decision functions over a seat's view and a PRNG.

A bot never sees more than its seat's view. `act` is asked when the seat has an intent
to send (a turn decision, or `Ready` before the first turn); `snap` is asked whenever
the discard pile's top card changed, again when a turn begins on the same top (what
a bot learned since may make a snap on it) and again after the seat's own Bandit call (a
bot about to call holds its snap: R5 puts the call before anything else in the turn),
and may return an immediate discard or None.

`SnapDelay` is the human-like reaction time a live table waits before sending a bot's
snap (the simulator ignores it: its snap races are decided by a seeded lottery).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from engine.events import Intent, Snap
from engine.prng import Prng
from engine.view import SeatView


@dataclass(frozen=True, slots=True)
class SnapDelay:
    """Reaction time before a bot's immediate discard in a live game, in seconds:
    a triangular distribution around `median` (± `spread`), never below `minimum`."""

    median: float = 0.9
    spread: float = 0.5
    minimum: float = 0.3

    def __post_init__(self) -> None:
        if not (self.median >= 0 and self.spread >= 0 and self.minimum >= 0):
            raise ValueError(f"snap delay figures must be non-negative: {self}")

    def sample(self, rng: Prng) -> float:
        offset = (rng.random() + rng.random() - 1.0) * self.spread
        return max(self.minimum, self.median + offset)


class Bot(Protocol):
    """A player program. Implementations are frozen dataclasses (no hidden memory)."""

    @property
    def name(self) -> str:
        """The bot's name (as `--bots` spells it)."""
        ...

    @property
    def snap_delay(self) -> SnapDelay:
        """Reaction time before its snaps in a live game."""
        ...

    def act(self, view: SeatView, rng: Prng) -> Intent:
        """The seat's next intent; called only when `legal_intents(view)` is not empty."""
        ...

    def snap(self, view: SeatView, rng: Prng) -> Snap | None:
        """An immediate discard to try now, or None."""
        ...
