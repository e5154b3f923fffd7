"""What `Game.apply` reports back: consequences of an event that a screen or a log wants
to show and that are not obvious from the event itself (who won a snap race, who drew a
penalty card, whose turn it is now, the scores)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class SnapOutcome(enum.Enum):
    """How an immediate discard (R6) ended."""

    MATCHED = "matched"
    """Identical: the card went onto the discard pile."""
    WRONG = "wrong"
    """Not identical: back face down, known to all; penalty card."""
    NOT_FASTEST = "not_fastest"
    """The top card had changed: nothing revealed; penalty card."""


@dataclass(frozen=True, slots=True)
class TurnStarted:
    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class BanditCalled:
    seat: int


@dataclass(frozen=True, slots=True)
class TimerFallback:
    """The turn timer expired: the engine played option A without power for `seat` (R5)."""

    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class SnapResolved:
    seat: int
    owner: int
    slot: int
    card: int
    outcome: SnapOutcome


@dataclass(frozen=True, slots=True)
class PenaltyDrawn:
    seat: int
    slot: int
    card: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """R9: round `round` scored. `exhausted` is True when R7 ended it (nothing to draw)."""

    round: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    caller: int | None
    exhausted: bool


@dataclass(frozen=True, slots=True)
class GameEnded:
    """R1: the game is over; `winners` share the win (equal lowest totals)."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]


Note = TurnStarted | BanditCalled | TimerFallback | SnapResolved | PenaltyDrawn | RoundEnded | GameEnded
