"""The engine's typed errors: one hierarchy, each error naming the rule it enforces.

Every error carries `rule` (a rules section "R1".."R10", or a protocol section such as
"§9" for table bookkeeping that the rules do not cover), `seat` (the seat whose intent
was refused, or None for table facts) and a readable `message`. When `Game.apply`
raises one of these, the game state is exactly as it was before the call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

SQUARE_WORDS: Final = ("top-left", "top-right", "bottom-left", "bottom-right")
"""R4: slots 0..3 of the 2×2 square."""


@dataclass(frozen=True, slots=True)
class Who:
    """A seat named in a refusal: "seat 2" ("seat 2's") in the logs, counted from 1 (the
    wire's seat 1); a screen says the player's name, "you" for its own seat, "they" for
    the seat whose intent it was."""

    seat: int
    form: Literal["subject", "object", "possessive"] = "subject"


@dataclass(frozen=True, slots=True)
class Where:
    """A slot named in a refusal: "seat 2's top-left slot" in the logs, "Bo's top-left
    slot" on a screen."""

    owner: int
    slot: int


Words = tuple["str | Who | Where", ...]


def spell(words: Words, who: Callable[[Who], str], where: Callable[[Where], str]) -> str:
    """`words` as text, each seat spelt by `who` and each slot by `where`."""
    return "".join(who(w) if isinstance(w, Who) else where(w) if isinstance(w, Where) else w for w in words)


def slot_words(slot: int) -> str:
    """"top-left" … "bottom-right" for the square, "slot 4" for a penalty slot (R6)."""
    return SQUARE_WORDS[slot] if 0 <= slot < len(SQUARE_WORDS) else f"slot {slot}"


def slot_named(slot: int) -> str:
    """A slot in a sentence, after its owner's name: "top-left slot", "slot 4" (R6)."""
    return f"{slot_words(slot)} slot" if 0 <= slot < len(SQUARE_WORDS) else slot_words(slot)


def seat_counted(seat: int) -> str:
    """A seat as a person reads it: "seat 1" is the wire's seat 0, the host's."""
    return f"seat {seat + 1}"


def plain(words: Words) -> str:
    """`words` as the logs write them, for whoever reads them without the players' names:
    seats by number, counted from 1 ("seat 2" is the wire's seat 1), slots in words."""
    return spell(words, lambda w: f"{seat_counted(w.seat)}'s" if w.form == "possessive" else seat_counted(w.seat),
                 lambda w: f"{seat_counted(w.owner)}'s {slot_named(w.slot)}")


class EngineError(Exception):
    """Base class of every error raised by the engine. `message` is the text the logs
    keep, its seats counted from 1 (`plain`), as `str()` counts `seat` before it; `words`
    is the same message with its seats and slots left for a narrator to name (a screen
    names players, not seat numbers). The `seat` field keeps the wire's number, from 0."""

    rule: str
    seat: int | None
    message: str
    words: Words

    def __init__(self, rule: str, seat: int | None, message: str | Words) -> None:
        self.rule = rule
        self.seat = seat
        self.words = (message,) if isinstance(message, str) else message
        self.message = plain(self.words)
        who = f"{seat_counted(seat)}: " if seat is not None else ""
        super().__init__(f"{rule}: {who}{self.message}")


class MalformedEvent(EngineError):
    """An event whose fields have the wrong type or an impossible value (a seat that
    does not exist, a negative slot, a non-engine object)."""


class AwaitingTable(EngineError):
    """The engine is waiting for table facts (reveals, a reshuffle): the intent must be
    held by the driver and fed again once `Game.needs` is empty."""


class UnexpectedFact(EngineError):
    """A table fact that does not answer the first pending need, or arrives when the
    engine is not waiting for it (for example a stale turn timer)."""


class FaceConflict(EngineError):
    """A reveal contradicts what this engine instance already knows: a card revealed
    with two different faces, or one face on two live cards (R2: every card is distinct)."""


class RuleViolation(EngineError):
    """An intent that the rules forbid in the current state."""


class OutOfTurn(RuleViolation):
    """A turn action from a seat whose turn it is not."""


class WrongPhase(RuleViolation):
    """An action that is not possible at this point of the turn, round or game."""


class BadTarget(RuleViolation):
    """A slot, seat or card that the action cannot target (empty or unknown slot,
    your own seat where another player's is needed, a card that was never on top, a
    top card that was covered before a take of it counted)."""


class SnapLimit(RuleViolation):
    """A second immediate discard by the same player in the same turn (R6)."""


class BanditAlreadyCalled(RuleViolation):
    """A second Bandit announcement in one round (R5: "if nobody has announced it yet")."""


class SkillsError(EngineError):
    """A skills table (deck description) that cannot be used."""


class RoundStalled(EngineError):
    """A simulated round exceeded the hard cap on turns (a bot that never ends a round),
    or a game the cap on rounds (a deck whose totals never reach the target)."""


class StaleView(RuntimeError):
    """A `SeatView` used after the game it looks at has changed; take a fresh view
    (or keep `view.snapshot()`, which never goes stale)."""
