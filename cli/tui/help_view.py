"""The `?` screen: every key, how to snap and how to announce Bandit, and the card legend."""

from __future__ import annotations

from cli.tui.canvas import Canvas, clip, wrap
from cli.tui.keymap import KEYMAP

KEY_COLUMN = 12

NOTES = (
    "Snap (R6): snap a face-down card identical to the discard top (green and red Bandit "
    "match). One try per turn; wrong or too late: a penalty card.",
    "Bandit (R5): announce it at the very start of your turn, before anything else (a draw or a snap of "
    "yours), if nobody has this round and your sum seems lowest. Then (R8) you play that turn and the next "
    "two players one final turn each (at a table of two, the other). Strictly lowest: -10, else +10 (R9).",
    "After a stop past the table's grace period, moves wait till the table answers.",
)

LEGEND = ("[░░] face down", "[••] seen by you", "[ 8] shown", "[-2] green", "[20] red")


def draw_help(canvas: Canvas) -> None:
    width = canvas.width
    canvas.write(1, 0, clip("Bandit — keys for one hand: fingers on q w / a s, thumb on Space", width - 2), "class:title")
    y = 2
    what_width = max(10, width - KEY_COLUMN - 3)
    for entry in KEYMAP:
        lines = wrap(entry.what, what_width)
        canvas.write(2, y, entry.keys, "class:prompt.key")
        for i, line in enumerate(lines):
            canvas.write(2 + KEY_COLUMN, y + i, line, "class:prompt")
        y += len(lines)
    x = 1
    canvas.write(x, y, "Cards", "class:title")
    x += 7
    for item in LEGEND:
        if x + len(item) >= width:
            y += 1
            x = 8
        x = canvas.write(x, y, item, "class:dim") + 2
    y += 1
    for note in NOTES:
        for line in wrap(note, width - 2):
            canvas.write(1, y, line, "class:prompt")
            y += 1
    footer = "Press any key to return to the table."
    canvas.write(max(0, width - len(footer) - 1), canvas.height - 1, footer, "class:dim")
