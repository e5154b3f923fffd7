"""Which screen a table scene shows: the table, help, round end or game end."""

from __future__ import annotations

import math

from cli.tui.canvas import Canvas, text_width, wrap
from cli.tui.dialog import draw_dialog
from cli.tui.help_view import draw_help
from cli.tui.round_view import draw_game_end, draw_round_end
from cli.tui.table_ui import MIN_HEIGHT, MIN_WIDTH, Overlay, TableScene, table_fits
from cli.tui.table_view import clock, draw_table

LEAVE_LINES = (
    "Leaving ends the game for the whole table, and",
    "this round does not count. Your fairness log is",
    "closed valid: it can still be audited.",
)
LEAVE_AGAIN = "Ctrl-C does not answer: press Enter or y to leave."
"""Said under the question once Ctrl-C is pressed at it (a double press is no "yes")."""


def draw_table_scene(scene: TableScene, width: int, height: int) -> Canvas:
    canvas = Canvas(width, height)
    overlay = scene.overlay
    if not table_fits((width, height)):  # (rather than a table drawn over itself)
        _too_small(canvas, scene)
    elif overlay is Overlay.HELP:
        draw_help(canvas)
    elif overlay is Overlay.ROUND and scene.report is not None:
        draw_round_end(canvas, scene.model, scene.report, scene.report_slots)
    elif overlay is Overlay.GAME:
        draw_game_end(canvas, scene.model)
    else:
        draw_table(canvas, scene)
    if scene.quitting:
        lines = (*LEAVE_LINES, "", LEAVE_AGAIN) if scene.quit_again else LEAVE_LINES
        draw_dialog(canvas, "Leave the table?", lines, "Enter/y: leave    Esc/n: stay")
    return canvas


def too_small_words(scene: TableScene, width: int, height: int) -> list[str]:
    """What a screen too small for the table says: how much room it needs, that keys
    wait for it, and what runs meanwhile (your turn's timer; your look at your bottom
    cards, R4.3, waits for the table)."""
    model = scene.model
    words = [f"This terminal is {width}×{height}; the table needs {MIN_WIDTH}×{MIN_HEIGHT}. "
             "Enlarge it: the game goes on meanwhile. Keys do nothing until the table is shown (Ctrl-C still leaves, asking first)."]
    if scene.bottom_until is not None:
        words.append(f"Your look at your bottom cards waits for it ({math.ceil(scene.bottom_until - model.now)} s).")
    view = model.view
    left = model.remaining(model.turn_deadline)
    if view.turn_seat == model.me and left is not None and not model.ended:
        words.append(f"It is your turn: {clock(left)} left.")
    return words


def _too_small(canvas: Canvas, scene: TableScene) -> None:
    lines = [line for text in too_small_words(scene, canvas.width, canvas.height) for line in wrap(text, canvas.width)]
    lines = lines[: canvas.height]
    top = max(0, (canvas.height - len(lines)) // 2)
    for i, line in enumerate(lines):
        canvas.write(max(0, (canvas.width - text_width(line)) // 2), top + i, line, "class:message.warning")
