"""Which screen a table scene shows: the table, help, round end or game end."""

from __future__ import annotations

from cli.tui.canvas import Canvas, text_width, wrap
from cli.tui.dialog import draw_dialog
from cli.tui.help_view import draw_help
from cli.tui.round_view import draw_game_end, draw_round_end
from cli.tui.table_ui import Overlay, TableScene
from cli.tui.table_view import draw_table

LEAVE_LINES = (
    "Leaving ends the game for the whole table, and",
    "this round does not count. Your fairness log is",
    "closed valid: it can still be audited.",
)


MIN_WIDTH, MIN_HEIGHT = 80, 24
"""The table's layout needs this much; a smaller terminal is asked to grow (the game goes
on, and keys still work), rather than shown a table drawn over itself."""


def draw_table_scene(scene: TableScene, width: int, height: int) -> Canvas:
    canvas = Canvas(width, height)
    overlay = scene.overlay
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        _too_small(canvas)
    elif overlay is Overlay.HELP:
        draw_help(canvas)
    elif overlay is Overlay.ROUND and scene.report is not None:
        draw_round_end(canvas, scene.model, scene.report)
    elif overlay is Overlay.GAME:
        draw_game_end(canvas, scene.model)
    else:
        draw_table(canvas, scene)
    if scene.quitting:
        draw_dialog(canvas, "Leave the table?", LEAVE_LINES, "Enter/y: leave    Esc/n: stay")
    return canvas


def _too_small(canvas: Canvas) -> None:
    text = (f"This terminal is {canvas.width}×{canvas.height}; the table needs {MIN_WIDTH}×{MIN_HEIGHT}. "
            "Enlarge it: the game goes on meanwhile, your turn's timer too.")
    lines = wrap(text, canvas.width)[: canvas.height]
    top = max(0, (canvas.height - len(lines)) // 2)
    for i, line in enumerate(lines):
        canvas.write(max(0, (canvas.width - text_width(line)) // 2), top + i, line, "class:message.warning")
