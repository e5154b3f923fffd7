"""Which screen a table scene shows: the table, help, round end or game end."""

from __future__ import annotations

from cli.tui.canvas import Canvas
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


def draw_table_scene(scene: TableScene, width: int, height: int) -> Canvas:
    canvas = Canvas(width, height)
    overlay = scene.overlay
    if overlay is Overlay.HELP:
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
