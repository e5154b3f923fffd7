"""Table work the engine waits for (`Game.needs`), answered by facts in `engine.events`.

The engine cannot turn a card over or shuffle: the table does that (the joint
encrypted deck in a live game, an all-knowing oracle in the simulator). When a rule
needs a card seen or the deck refilled, the engine appends a need and stops accepting
intents (`AwaitingTable`) until the driver has fed the matching facts, first need
first:

| need                       | answered by                          |
|----------------------------|--------------------------------------|
| `Reveal(card, to=seat)`    | `Revealed(card, seat, face or None)` |
| `Reveal(card, to=ALL)`     | `Revealed(card, ALL, face)`          |
| `Reshuffle(retired, id)`   | `Reshuffled(retired, id)`            |

Whether a need arises depends only on public state, so every peer's engine asks for
the same work in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import ALL, Reshuffled, Revealed


@dataclass(frozen=True, slots=True)
class Reveal:
    """Show `card` to seat `to` privately, or to every seat when `to == ALL`."""

    card: int
    to: int

    @property
    def public(self) -> bool:
        return self.to == ALL

    def answer(self, face: int | None) -> Revealed:
        """The fact that satisfies this need."""
        return Revealed(self.card, self.to, face)


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """R7: shuffle the `retired` discard cards (all but the top, bottom first) into a
    new draw pile with ids `first_id`, `first_id + 1`, … drawn in that order."""

    retired: tuple[int, ...]
    first_id: int

    def answer(self) -> Reshuffled:
        """The fact that satisfies this need."""
        return Reshuffled(self.retired, self.first_id)


Need = Reveal | Reshuffle
