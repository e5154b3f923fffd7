"""How one card looks on screen: the privacy rule of the client in one place.

A tableau card is drawn in one of four ways:

- ``[░░]`` face down, unknown to you;
- ``[••]`` face down, a card you have seen (its value is not written: remembering it
  is the game — unless you play with ``--memory-aid``);
- ``[ 8]`` its value: only while it is shown to you (your bottom cards once, a peek,
  a spy, a look & swap, a card turned face up for everyone, each for a few seconds),
  with ``--memory-aid`` whenever you know it, and at the end of the round;
- `` ·· `` an emptied slot (R6: it stays empty; slot numbers keep their meaning).

Face-up cards (the discard pile) always show their value. Green and red Bandit cards
are drawn in their colours.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from engine import CardView, Skills


class Shown(enum.Enum):
    """Why a card's value is on screen."""

    FACE_UP = "face"  # on the discard pile, or the round is over
    LOOK = "look"  # shown to you right now (a look, a reveal, your bottom cards)
    REMEMBERED = "remembered"  # --memory-aid
    HAND = "hand"  # the card you drew


@dataclass(frozen=True, slots=True)
class CardCell:
    text: str
    style: str


@functools.lru_cache(maxsize=8)
def label_width(skills: Skills) -> int:
    """Columns a value needs in this deck (2 for the default deck: "18", "-2")."""
    return max(2, max(len(str(v)) for v in skills.values))


def card_width(skills: Skills) -> int:
    return label_width(skills) + 2


def value_cell(skills: Skills, face: int, why: Shown) -> CardCell:
    """A card with its value showing."""
    kind = skills.kind(face)
    text = f"[{kind.value:>{label_width(skills)}}]"
    style = f"class:card.{why.value}"
    if kind.bandit:  # drawn in its colour; a look is underlined
        style += " class:card.green" if kind.value < 0 else " class:card.red"
        if why is Shown.LOOK:
            style += " class:card.flash-edge"
    return CardCell(text, style)


def hidden_cell(skills: Skills, known: bool) -> CardCell:
    w = label_width(skills)
    if known:
        return CardCell("[" + "•" * w + "]", "class:card.known")
    return CardCell("[" + "░" * w + "]", "class:card.back")


def empty_cell(skills: Skills) -> CardCell:
    w = label_width(skills)
    return CardCell(" " + "·" * w + " ", "class:card.empty")


def tableau_cell(skills: Skills, card: CardView | None, *, shown: bool, memory_aid: bool) -> CardCell:
    """A tableau card as this seat may see it now (see the module docstring)."""
    if card is None:
        return empty_cell(skills)
    if card.face is not None:
        if shown:
            return value_cell(skills, card.face, Shown.LOOK)
        if memory_aid:
            return value_cell(skills, card.face, Shown.REMEMBERED)
        return hidden_cell(skills, known=True)
    return hidden_cell(skills, known=False)
