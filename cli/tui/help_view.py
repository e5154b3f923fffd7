"""The `?` screens: the keys (how to snap, how to announce Bandit, the card legend), then,
at `?` again, how to play: how to win, what a round and a turn are, and the cards with
their powers, read from the table's skills table (R2, R3)."""

from __future__ import annotations

from engine.narrate import listed, power_words
from engine.skills import CardKind, Power, Skills
from cli.tui.canvas import Canvas, clip, text_width, wrap
from cli.tui.keymap import KEYMAP

KEY_COLUMN = 12

NOTES = (
    "Snap (R6): snap a face-down card identical to the discard top (green and red Bandit "
    "match). One try per turn; wrong or too late: a penalty card.",
    "Bandit (R5): announce it at the very start of your turn, before anything else (a draw or a snap of "
    "yours), if nobody has this round and your sum seems lowest. Then (R8) you play that turn and the next "
    "two players one final turn each (at a table of two, the other). Strictly lowest: -10, else +10 (R9).",
    "Paused (Ctrl-Z, sleep) too long? No move plays till you reach the others.",
)

LEGEND = ("[░░] face down", "[••] seen by you", "[ 8] shown", "[-2] green", "[20] red")

LOOK_LEGEND = ("… still looking at their cards", "✓ ready")
"""The marks by each total while the players look at their bottom cards (R4): said in the
legend while they are on screen."""

KEYS_FOOTER = "? how to win, options A B C, the cards · any other key: back to the table"
RULES_FOOTER = "? the keys · any other key: back to the table"


def _footer(canvas: Canvas, footer: str) -> None:
    canvas.write(max(0, canvas.width - text_width(footer) - 1), canvas.height - 1, clip(footer, canvas.width),
                 "class:dim")


LEGEND_X = 8
"""The column a legend's items begin in, after its label ("Cards", "Totals")."""


def _legend_rows(items: tuple[str, ...], width: int) -> list[list[str]]:
    """`items` of a legend, as many on a row as fit."""
    rows: list[list[str]] = [[]]
    x = LEGEND_X
    for item in items:
        if rows[-1] and x + text_width(item) >= width:
            rows.append([])
            x = LEGEND_X
        rows[-1].append(item)
        x += text_width(item) + 2
    return rows


def draw_help(canvas: Canvas, looking: bool = False) -> None:
    """The first `?` screen: every key, the card legend (and, `looking` at the bottom
    cards, the marks by the totals, `LOOK_LEGEND`), how to snap and announce Bandit. The
    blank row under the title gives way where the rows are too few for all of it."""
    width = canvas.width
    canvas.write(1, 0, clip("Bandit — keys for one hand: fingers on q w / a s, thumb on Space", width - 2), "class:title")
    what_width = max(10, width - KEY_COLUMN - 3)
    keys = [wrap(entry.what, what_width) for entry in KEYMAP]
    legends = [("Cards", LEGEND), *((("Totals", LOOK_LEGEND),) if looking else ())]
    legend_rows = [_legend_rows(items, width) for _, items in legends]
    needed = (sum(map(len, keys)) + sum(map(len, legend_rows)) + sum(len(wrap(note, width - 2)) for note in NOTES))
    y = 2 if 2 + needed < canvas.height else 1
    for entry, lines in zip(KEYMAP, keys, strict=True):
        canvas.write(2, y, entry.keys, "class:prompt.key")
        for i, line in enumerate(lines):
            canvas.write(2 + KEY_COLUMN, y + i, line, "class:prompt")
        y += len(lines)
    for (label, _), rows in zip(legends, legend_rows, strict=True):
        canvas.write(1, y, label, "class:title")
        for row in rows:
            x = LEGEND_X
            for item in row:
                x = canvas.write(x, y, item, "class:dim") + 2
            y += 1
    for note in NOTES:
        for line in wrap(note, width - 2):
            canvas.write(1, y, line, "class:prompt")
            y += 1
    _footer(canvas, KEYS_FOOTER)


# --- how to play ---------------------------------------------------------------------------


def goal_words(target: int) -> str:
    """How to win (R1, R9) and what a round is (R4, R7, R8), for a table playing to `target`."""
    return (f"How to win (R1, R9): the lowest total wins (equal lowest share the win); the game ends after "
            f"the round in which a total reaches or passes {target}. A round: 4 face-down cards each; look once "
            "at your bottom two (R4). It ends after a Bandit call and its final turns (R8), or when nothing is "
            "left to draw (R7); your cards' sum adds to your total.")


TURN_HEADING = "Your turn (R5): one of three options."

TURN_OPTIONS = (
    ("A", "x z", "draw, look, discard it face up; then you may use its power"),
    ("B", "x slot", "draw, look, put it in that slot; the card there is discarded unseen"),
    ("C", "c slot", "take the discard top into that slot; the card there is discarded"),
)
"""Options A, B and C of a turn (R5), with their keys."""

CARDS_HEADING = "Cards (R2, R3): a power is used only in option A, after its card is discarded."

POWER_EFFECTS = {
    Power.PEEK: "look at one of your own cards",
    Power.SPY: "look at one card of another player",
    Power.SWAP: "exchange one of yours with another player's card; nobody looks",
    Power.LOOK_SWAP: "look at one of yours and one of another player's, then exchange them or not",
}
"""What each power does (R3)."""


def card_rows(skills: Skills) -> list[tuple[list[CardKind], str]]:
    """The deck as the help lists it: its kinds of one power (or none) together, in the
    table's order, then the Bandit cards."""
    rows: dict[Power | None, list[CardKind]] = {}
    for kind in skills.kinds:
        if not kind.bandit:
            rows.setdefault(kind.power, []).append(kind)
    out = [(kinds, "no power" if power is None else f"{power_words(power)}: {POWER_EFFECTS[power]}")
           for power, kinds in rows.items()]
    bandits = [k for k in skills.kinds if k.bandit]
    if bandits:
        names = listed([k.name or f"the {k.value} Bandit" for k in bandits])
        out.append((bandits, f"{names}: no power; identical to each other in a snap (R6)"))
    return out


def _bandit_style(kind: CardKind) -> str:
    if not kind.bandit:
        return "class:prompt.key"
    return "class:card.green" if kind.value < 0 else "class:card.red"


def draw_rules(canvas: Canvas, skills: Skills, target: int) -> None:
    """The second `?` screen: how to win, a round, a turn's options and the cards."""
    width = canvas.width
    room = width - 2
    canvas.write(1, 0, clip("Bandit — how to win, a turn, the cards", room), "class:title")
    y = 2
    for line in wrap(goal_words(target), room):
        canvas.write(1, y, line, "class:prompt")
        y += 1
    y += 1
    canvas.write(1, y, clip(TURN_HEADING, room), "class:title")
    y += 1
    for letter, keys, what in TURN_OPTIONS:
        canvas.write(2, y, letter, "class:title")
        canvas.write(5, y, keys, "class:prompt.key")
        for line in wrap(what, max(10, width - 13)):
            canvas.write(12, y, line, "class:prompt")
            y += 1
    y += 1
    for line in wrap(CARDS_HEADING, room):
        canvas.write(1, y, line, "class:title")
        y += 1
    rows = card_rows(skills)
    column = min(width // 3, 4 + max(sum(len(str(k.value)) + 1 for k in kinds) for kinds, _ in rows))
    for kinds, what in rows:
        x = 2
        for kind in kinds:
            x = canvas.write(x, y, str(kind.value), _bandit_style(kind)) + 1
        for i, line in enumerate(wrap(what, max(10, width - column - 1))):
            canvas.write(column, y + i if x <= column else y + i + 1, line, "class:prompt")
        y += len(wrap(what, max(10, width - column - 1))) + (x > column)
    _footer(canvas, RULES_FOOTER)
