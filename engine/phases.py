"""Where a game is: its phase, and which phases allow turns and snaps."""

from __future__ import annotations

import enum
from typing import Final


class Phase(enum.Enum):
    """Where the round (or game) is. Table needs may be pending in any phase."""

    BETWEEN = "between"
    """Before the first round, or a round was scored and the next has not started."""
    PEEK = "peek"
    """R4.3: players look at their bottom cards; snaps on the first discard are allowed."""
    START = "start"
    """R5: start of a turn: call Bandit, draw (options A/B) or take the discard (C)."""
    DRAWN = "drawn"
    """R5: the player holds the drawn card: discard it (A) or exchange it (B)."""
    POWER = "power"
    """R3: the card discarded in option A has a power that may be used."""
    DECIDE = "decide"
    """R3: look & swap has looked; exchange or not."""
    REVEAL = "reveal"
    """R8: the round is over and every card is being turned face up."""
    OVER = "over"
    """R1: the game has ended."""


# Tuples, not sets: membership of enum members in a short tuple is an identity check,
# while a set would call Enum.__hash__ (Python code) on every test.
TURN_PHASES: Final = (Phase.START, Phase.DRAWN, Phase.POWER, Phase.DECIDE)
"""Phases in which a player has the turn."""

SNAP_PHASES: Final = (Phase.PEEK, *TURN_PHASES)
"""Phases in which immediate discards (R6) are allowed."""

PHASE_WORDS: Final = {
    Phase.BETWEEN: "between rounds",
    Phase.PEEK: "before the first turn",
    Phase.START: "at the start of a turn",
    Phase.DRAWN: "while a drawn card is in hand",
    Phase.POWER: "while a power may be used",
    Phase.DECIDE: "while a look & swap awaits its decision",
    Phase.REVEAL: "while the round's cards are turned up",
    Phase.OVER: "after the game has ended",
}
"""Phrases for error messages: "cannot draw {words}"."""
