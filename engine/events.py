"""The engine's input vocabulary: player intents and table facts.

Every peer feeds the same events, in the same agreed order, to its own `Game`.

*Intents* are what a player chooses to do; each names the acting `seat`. The engine
accepts or refuses each one by the rules (R-number in the error).

*Facts* come from the table, not from a player's choice: a round starts (with the
beacon's first player), a timer expired, or a piece of work the engine asked for in
`Game.needs` was done (`Revealed`, `Reshuffled`). Facts carry all randomness and every
revealed face as data, so the engine itself is deterministic.

Card ids are opaque integers: positions in the round's shuffled deck (0..N-1), and
fresh ids after a reshuffle (R7). A *face* is a card's index in the canonical deck
(see `engine.skills`); the engine learns faces only from `Revealed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

ALL: Final = -1
"""`to` of a reveal to every seat (a card turned face up)."""


# --- intents -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ready:
    """R4.3: `seat` has looked at its two bottom cards and is ready for the first turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class CallBandit:
    """`seat` announces Bandit at the very start of its turn, if nobody has yet this round
    (R5); R8 says what follows."""

    seat: int


@dataclass(frozen=True, slots=True)
class Draw:
    """R5 options A and B: draw the top of the draw pile and look at it privately."""

    seat: int


@dataclass(frozen=True, slots=True)
class Discard:
    """R5 option A: discard the drawn card face up (then its power, if any, may be used)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Exchange:
    """R5 option B: put the drawn card into `slot`; the card there is discarded unseen."""

    seat: int
    slot: int


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    """R5 option C: take the discard pile's top card `top` (the card id the player saw on
    top, as a snap names it) into `slot`; the card there is discarded unseen. A take
    whose `top` was covered meanwhile (an immediate discard came first) is refused."""

    seat: int
    top: int
    slot: int


@dataclass(frozen=True, slots=True)
class Peek:
    """R3 Peek: look at your own card in `slot`."""

    seat: int
    slot: int


@dataclass(frozen=True, slots=True)
class Spy:
    """R3 Spy: look at the card in `slot` of another player, `owner`."""

    seat: int
    owner: int
    slot: int


@dataclass(frozen=True, slots=True)
class Swap:
    """R3 Swap: exchange your card in `own_slot` with `owner`'s card in `slot`; nobody looks."""

    seat: int
    own_slot: int
    owner: int
    slot: int


@dataclass(frozen=True, slots=True)
class LookSwap:
    """R3 Look & swap: look at your card in `own_slot` and `owner`'s card in `slot`,
    then decide with `DecideSwap`."""

    seat: int
    own_slot: int
    owner: int
    slot: int


@dataclass(frozen=True, slots=True)
class DecideSwap:
    """R3 Look & swap, second half: exchange the two looked-at cards or not."""

    seat: int
    swap: bool


@dataclass(frozen=True, slots=True)
class SkipPower:
    """R3: powers are optional; end the turn without using it."""

    seat: int


@dataclass(frozen=True, slots=True)
class Snap:
    """R6 immediate discard by `seat`, claiming the card in `owner`'s `slot` is identical
    to the discard pile's top card `top` (the card id the player saw on top).

    Own card: `owner == seat` and `give` is None. Opponent's card: `give` is the snapper's
    own slot whose card moves, unseen, into the emptied slot if the snap succeeds.
    """

    seat: int
    top: int
    owner: int
    slot: int
    give: int | None = None


Intent = Ready | CallBandit | Draw | Discard | Exchange | TakeDiscard | Peek | Spy | Swap | LookSwap | DecideSwap | SkipPower | Snap
"""A player's choice; every intent has a `seat`."""

TURN_INTENTS: Final = (CallBandit, Draw, Discard, Exchange, TakeDiscard, Peek, Spy, Swap, LookSwap, DecideSwap, SkipPower)
"""Intents only the player whose turn it is may send."""


# --- facts -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """R4: a new round starts with a fresh shuffled deck; `first_player` is drawn by lot
    (the table's beacon). The deal is fixed by positions (see `Game`)."""

    first_player: int


@dataclass(frozen=True, slots=True)
class PeekBarrierExpired:
    """R4.3: the ready barrier timed out; the first turn starts now."""


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """R5: the turn timer of turn number `turn` expired (stale numbers are refused)."""

    turn: int


@dataclass(frozen=True, slots=True)
class Revealed:
    """Answer to a `Reveal` need: `card` was shown to seat `to` (or to `ALL`).

    `face` is the card's face if this engine instance learned it, else None. A reveal to
    ALL always carries the face; for a private reveal only the recipient (and an
    all-knowing simulator) knows it, other peers feed None."""

    card: int
    to: int
    face: int | None


@dataclass(frozen=True, slots=True)
class Reshuffled:
    """Answer to a `Reshuffle` need (R7): the `retired` discard cards were shuffled into
    a new draw pile whose cards have ids `first_id`, `first_id + 1`, … (top first)."""

    retired: tuple[int, ...]
    first_id: int


Fact = RoundStarted | PeekBarrierExpired | TurnTimedOut | Revealed | Reshuffled
"""Something the table reports; facts carry all randomness and revealed faces."""

Event = Intent | Fact
