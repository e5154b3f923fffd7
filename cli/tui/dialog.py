"""A question in a box over the screen (leaving the table)."""

from __future__ import annotations

from collections.abc import Sequence

from cli.tui.canvas import Canvas, clip, text_width

LEAVE_AGAIN = "Ctrl-C does not answer: press Enter or y to leave."
"""Said under a leave question (at the table, in the lobby) once Ctrl-C is pressed at it
(a double press is no "yes")."""


def answer_keys(yes: str, no: str) -> tuple[str, str]:
    """The keys that answer a question, `yes` and `no` in words: as its box lists them,
    and as the help bar under it offers them ({keys} marked), for while it is open they
    are the only keys that do anything."""
    return f"Enter/y: {yes}    Esc/n: {no}", f"{{Enter}}/{{y}} {yes} · {{Esc}}/{{n}} {no}"


def draw_dialog(canvas: Canvas, title: str, lines: Sequence[str], keys: str) -> None:
    """A box centred on `canvas` with a title, some lines and a row of keys."""
    inner = max([text_width(title) + 2, text_width(keys)] + [text_width(line) for line in lines])
    inner = min(inner, canvas.width - 4)
    box = inner + 4
    height = len(lines) + 4
    x = max(0, (canvas.width - box) // 2)
    y = max(0, (canvas.height - height) // 2)
    canvas.fill(x, y, box, "class:dialog")
    canvas.write(x, y, "┌ ", "class:dialog")
    after = canvas.write(x + 2, y, clip(title, inner), "class:dialog.title")
    canvas.write(after, y, " " + "─" * max(0, x + box - 1 - after - 1) + "┐", "class:dialog")
    for i, line in enumerate([*lines, "", keys]):
        row = y + 1 + i
        canvas.fill(x, row, box, "class:dialog")
        canvas.write(x, row, "│", "class:dialog")
        canvas.write(x + 2, row, clip(line, inner), "class:dialog.title" if i == len(lines) + 1 else "class:dialog")
        canvas.write(x + box - 1, row, "│", "class:dialog")
    canvas.write(x, y + height - 1, "└" + "─" * (box - 2) + "┘", "class:dialog")
