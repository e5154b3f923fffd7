"""The keymap: every action from the keyboard, made for one (left) hand.

Slots are chosen with the same keys on every tableau, and the keys are laid out like the
cards: the 2×2 square is ``q w / a s`` (R4: slots 0 1 / 2 3) and each penalty column to
its right takes the next two keys of the rows (``e/d`` for slots 4/5, ``r/f`` for 6/7,
``t/g`` for 8/9). The rows end there, under the left hand: ``v`` before a slot key names
the card five columns further right (``v q`` is slot 10, ``v v q`` slot 20, …), so every
slot a tableau can hold has keys of the left hand (R10), and the table screen writes
them by the card ("vq"). Opponents are chosen with ``1``–``5``, counting clockwise from
your left (the number is shown by each name). Space is the snap key: the thumb rests on
it while the fingers rest on the slot keys, so snapping your own card is two keystrokes
— Space, then the slot — and an opponent's card is Space, their number, their slot, then
your slot to give (R6).

The turn keys sit under the fingers too: ``x`` draws (and, in a look & swap, exchanges),
``z`` is "put it down / no" (discard the drawn card, skip a power, keep the looked-at
cards), ``c`` takes the discard pile's top card (option C), ``b`` announces Bandit.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

SLOT_ROWS: Final = ("qwert", "asdfg")
"""Top and bottom row of slot keys; column k of the rows is column k of a tableau, and
column k + 5n after `n` presses of `FURTHER_KEY`."""

FURTHER_KEY: Final = "v"
"""Before a slot key: the card five columns further right (one more each press)."""

SEAT_KEYS: Final = "12345"
"""Opponents clockwise from your left."""


class Command(enum.Enum):
    SLOT = "slot"
    FURTHER = "further"  # v: the next slot key names a card five columns further right
    SEAT = "seat"
    SNAP = "snap"
    DRAW = "draw"  # x: draw; exchange in a look & swap
    PASS = "pass"  # z: discard the drawn card; skip a power; keep the looked-at cards
    TAKE = "take"  # c: take the discard pile's top card
    BANDIT = "bandit"
    CONFIRM = "confirm"  # Enter
    HELP = "help"
    CANCEL = "cancel"  # Esc
    QUIT = "quit"  # Ctrl-C
    LOG_UP = "log_up"
    LOG_DOWN = "log_down"


@dataclass(frozen=True, slots=True)
class Press:
    """A key as a command; `number` is the slot, the opponent's position (1..5) or the
    presses of `FURTHER_KEY` so far."""

    command: Command
    number: int = 0


_FIXED: Final = {
    "space": Command.SNAP,
    "x": Command.DRAW,
    "z": Command.PASS,
    "c": Command.TAKE,
    "b": Command.BANDIT,
    "enter": Command.CONFIRM,
    "?": Command.HELP,
    "esc": Command.CANCEL,
    "ctrl-c": Command.QUIT,
    "pageup": Command.LOG_UP,
    "pagedown": Command.LOG_DOWN,
}


def slot_position(slot: int) -> tuple[int, int]:
    """(column, row) of a slot in its tableau: the square, then penalty columns of two."""
    if slot < 4:
        return slot % 2, slot // 2
    return 2 + (slot - 4) // 2, (slot - 4) % 2


def slot_at(column: int, row: int) -> int:
    """The slot shown at (column, row)."""
    return column + 2 * row if column < 2 else 4 + 2 * (column - 2) + row


def slot_keys(slot: int) -> tuple[str, ...]:
    """The keys that name `slot`, in order: `FURTHER_KEY` once for every five columns
    the slot lies beyond the first five, then the slot key of its column and row."""
    column, row = slot_position(slot)
    further, column = divmod(column, len(SLOT_ROWS[row]))
    return (FURTHER_KEY,) * further + (SLOT_ROWS[row][column],)


def slot_key(slot: int) -> str:
    """The keys that name `slot` as the screen writes them: "q", "vq", "vvq"."""
    return "".join(slot_keys(slot))


def slot_label(slot: int) -> str:
    """How the screen names `slot` in words: its keys."""
    return slot_key(slot)


SLOT_KEYS: Final = {slot_key(s): s for s in range(2 * len(SLOT_ROWS[0]))}


def press_for(key: str) -> Press | None:
    """The command a key stands for (case-insensitive letters), or None. A slot key
    typed after `FURTHER_KEY` comes joined to it ("vq", `slot_key`): the slot it names."""
    low = key.lower() if len(key) == 1 else key
    if key in _FIXED or low in _FIXED:  # (Caps Lock: "X" draws as "x" does)
        return Press(_FIXED[key] if key in _FIXED else _FIXED[low])
    if low in SLOT_KEYS:
        return Press(Command.SLOT, SLOT_KEYS[low])
    if low in SEAT_KEYS:
        return Press(Command.SEAT, int(low))
    low = key.lower()
    rest = low.lstrip(FURTHER_KEY)
    further = len(low) - len(rest)
    if not further:
        return None
    if not rest:
        return Press(Command.FURTHER, further)
    if rest not in SLOT_KEYS:
        return None
    column, row = slot_position(SLOT_KEYS[rest])
    return Press(Command.SLOT, slot_at(column + further * len(SLOT_ROWS[row]), row))


@dataclass(frozen=True, slots=True)
class KeyHelp:
    keys: str
    what: str


KEYMAP: Final = (
    KeyHelp("q w / a s", "slots of any tableau, laid out like its 2×2 square"),
    KeyHelp("e/d r/f t/g", "penalty slots, a column per two cards · v + slot: five columns on"),
    KeyHelp("1 – 5", "an opponent, clockwise from your left (the number by the name)"),
    KeyHelp("Space", "snap: Space + your slot · Space + opponent + slot + your slot"),
    KeyHelp("x", "draw (options A and B) · look & swap: exchange the two cards"),
    KeyHelp("z", "discard the drawn card (A) · skip a power · keep both cards"),
    KeyHelp("slot", "with a drawn card: keep it there, its card is discarded (B)"),
    KeyHelp("c + slot", "take the discard pile's top card into that slot (C)"),
    KeyHelp("b", "announce Bandit, at the very start of your turn (R5)"),
    KeyHelp("powers", "peek: slot · spy: opponent + slot · swaps: slot + opponent + slot"),
    KeyHelp("Enter", "ready after the look · cancel a snap with no card · close screens"),
    KeyHelp("Esc", "cancel a half-typed action or keys typed ahead · PgUp/PgDn log"),
    KeyHelp("?", "this help · Ctrl-C leave the table (asks first) · Ctrl-Z suspend"),
)
"""Every key, for the help screen and the README."""

HELP_BAR: Final = "Space snap · x draw · z discard/skip · c take · b Bandit · ? help · ^C quit"

MOVES_WAIT_BAR: Final = "No move plays till the others answer · PgUp/PgDn log · ? help · ^C quit"
"""The help bar after a stop past the grace period, while no move key plays (§11.3)."""


_KEY_WORDS: Final = {"space": "Space", "enter": "Enter", "esc": "Esc", "tab": "Tab", "backspace": "Backspace",
                     "pageup": "PgUp", "pagedown": "PgDn", "home": "Home", "end": "End", "delete": "Delete",
                     "up": "Up", "down": "Down", "left": "Left", "right": "Right", "ctrl-d": "Ctrl-D"}


def key_words(key: str) -> str:
    """How the screens write a key the terminal names ("enter" as "Enter", as the help
    does); a character as itself, anything else (pasted text) as "That key"."""
    return _KEY_WORDS.get(key, key if len(key) == 1 else "That key")


def opponent_keys(players: int) -> str:
    """The number keys that name an opponent at a table of `players`: "1", or "1–N"."""
    others = players - 1
    return "1" if others == 1 else f"1–{others}"
