"""Which screen a table scene shows: the table, help, round end or game end."""

from __future__ import annotations

import math

from engine import Phase

from cli.tui.canvas import Canvas, text_width, wrap
from cli.tui.dialog import LEAVE_AGAIN, answer_keys, draw_dialog
from cli.tui.help_view import draw_help, draw_rules
from cli.tui.round_view import draw_game_end, draw_round_end, draw_small_game_end
from cli.tui.table_ui import MIN_HEIGHT, MIN_WIDTH, Overlay, TableScene, table_fits
from cli.tui.marks import write_marked
from cli.tui.table_view import clock, draw_table, your_turn_left

LEAVE_LINES = (
    "Leaving ends the game for the whole table, and",
    "this round does not count. Your fairness log is",
    "closed valid: it can still be audited.",
)


def draw_table_scene(scene: TableScene, width: int, height: int) -> Canvas:
    canvas = Canvas(width, height)
    overlay = scene.overlay
    if not table_fits((width, height)):  # (rather than a table drawn over itself)
        _too_small(canvas, scene)
    elif overlay is Overlay.HELP:
        draw_help(canvas, looking=scene.model.view.phase is Phase.PEEK)  # (R4: the marks by the totals)
    elif overlay is Overlay.RULES:
        draw_rules(canvas, scene.model.skills, scene.model.view.target)
    elif overlay is Overlay.ROUND and scene.report is not None:
        draw_round_end(canvas, scene.model, scene.report, scene.report_slots)
    elif overlay is Overlay.GAME:
        draw_game_end(canvas, scene.model)
    else:
        draw_table(canvas, scene)
    if scene.quitting:  # (the screen's last row offers its keys: no other key acts while it is asked)
        lines = (*LEAVE_LINES, "", LEAVE_AGAIN) if scene.quit_again else LEAVE_LINES
        box, bar = answer_keys("leave", "stay")
        draw_dialog(canvas, "Leave the table?", lines, box)
        canvas.fill(0, height - 1, width, "class:helpbar")
        write_marked(canvas, 1, height - 1, bar, "class:helpbar")
    return canvas


SMALL_FOOTER = "Enter: leave"
"""What leaves a game-end screen too small for the table, as the full one (Ctrl-C too)."""


def too_small_words(scene: TableScene, width: int, height: int) -> list[str]:
    """What a screen too small for the table says: how much room it needs, that keys
    wait for it, and what runs meanwhile (your turn's timer; your look at your bottom
    cards, R4.3, waits for the table); once the game is over, only that."""
    model = scene.model
    if model.ended or scene.overlay is Overlay.GAME:  # (nothing goes on: what is left is to read how it ended)
        return [f"This terminal is {width}×{height}; the end of the game needs {MIN_WIDTH}×{MIN_HEIGHT}. "
                "The game is over: enlarge it to read how it ended, or press Enter to leave."]
    words = [f"This terminal is {width}×{height}; the table needs {MIN_WIDTH}×{MIN_HEIGHT}. "
             "Enlarge it: the game goes on meanwhile. Keys do nothing until the table is shown (Ctrl-C still leaves, asking first)."]
    if scene.bottom_until is not None:
        words.append(f"Your look at your bottom cards waits for it ({math.ceil(scene.bottom_until - model.now)} s).")
    if model.remaining(model.turn_deadline) is not None and (turn := your_turn_left(model)) is not None:
        words.append(turn)
    return words


def too_small_short(scene: TableScene, width: int, height: int) -> list[str]:
    """What a tiny screen says instead of `too_small_words` (which it cannot hold): the
    size the table needs, and your turn's time."""
    model = scene.model
    left = model.remaining(model.turn_deadline)
    mine = model.view.turn_seat == model.me and left is not None and not model.ended
    return [f"Too small: need {MIN_WIDTH}×{MIN_HEIGHT}.", *([f"Your turn: {clock(left)}"] if mine else [])]


def _fitting(texts: list[str], width: int, height: int) -> list[str] | None:
    """`texts` wrapped to `width`, if they fit on `height` rows with no word cut."""
    if any(text_width(word) > width for text in texts for word in text.split()):
        return None
    lines = [line for text in texts for line in wrap(text, width)]
    return lines if len(lines) <= height else None


def _too_small(canvas: Canvas, scene: TableScene) -> None:
    """A screen too small for the table: at the game's end the standings if they fit
    (`draw_small_game_end`), else what `too_small_words` says, as much as fits."""
    width, height = canvas.width, canvas.height
    if scene.model.ended or scene.overlay is Overlay.GAME:  # (the standings, if they fit: R1)
        note = (f"This terminal is {width}×{height}: enlarge it to {MIN_WIDTH}×{MIN_HEIGHT} to read where your "
                "fairness log is and how to audit it.") if scene.model.log_path else ""
        if draw_small_game_end(canvas, scene.model, note, SMALL_FOOTER):
            return
    lines = (_fitting(too_small_words(scene, width, height), width, height)
             or _fitting(too_small_short(scene, width, height), width, height)
             or [line for text in too_small_short(scene, width, height) for line in wrap(text, width)][:height])
    # (one block, centred as a whole: its lines begin in one column, as a paragraph's do)
    top = max(0, (canvas.height - len(lines)) // 2)
    left = max(0, (canvas.width - max(map(text_width, lines), default=0)) // 2)
    for i, line in enumerate(lines):
        canvas.write(left, top + i, line, "class:message.warning")
