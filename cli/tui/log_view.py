"""The table log pane: the table screen's newest lines, wrapped under a rule.

It fills the rows from `LOG_TOP` (its rule, just below the prompt) down to the help bar,
newest last. PgUp scrolls it back five rows at a time, no further than its oldest line
at the top; the rule says how far it is scrolled.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p.session import Line
from cli.tui.canvas import Canvas, text_width, wrap

LOG_TOP = 14  # the log's rule, the row below the table screen's prompt


def log_scroll_limit(lines: Sequence[Line], width: int, height: int, wanted: int) -> int:
    """`wanted` rows scrolled up, or fewer: the table log of a `width`×`height` screen
    scrolls no further than its oldest line at the top (lines wrap into several rows)."""
    rows = height - 1 - LOG_TOP - 1
    if rows < 1:
        return 0
    return min(wanted, max(0, len(_rows(lines, width, rows + wanted)) - rows))


def _rows(lines: Sequence[Line], width: int, need: int) -> list[tuple[str, str]]:
    """The newest `need` rows of the log wrapped to `width` (all, if it has fewer), with
    their styles, oldest first; only the lines they come from are wrapped."""
    chunks: list[list[tuple[str, str]]] = []  # newest line first
    count = 0
    for line in reversed(lines):
        if count >= need:
            break
        style = f"class:log.{line.kind}"
        chunks.append([((" " if i == 0 else "   ") + part, style) for i, part in enumerate(wrap(line.text, width - 3))])
        count += len(chunks[-1])
    rows = [row for chunk in reversed(chunks) for row in chunk]
    return rows[-need:] if need else []


def draw_log(canvas: Canvas, lines: Sequence[Line], scroll: int, y0: int, y1: int) -> None:
    """The log between rows y0 (its rule) and y1 (exclusive), newest last, `scroll` rows
    scrolled up (or fewer: the oldest line at the top, at most)."""
    if y1 - y0 < 2:
        return
    width = canvas.width
    rows = y1 - y0 - 1
    wrapped = _rows(lines, width, rows + scroll)
    scroll = min(scroll, max(0, len(wrapped) - rows))
    title = f" table log (scrolled up {scroll}; PgDn) " if scroll else " table log "
    canvas.write(0, y0, "──" + title + "─" * max(0, width - 2 - text_width(title)), "class:log.rule")
    end = max(0, len(wrapped) - scroll)
    for i, (text, style) in enumerate(wrapped[max(0, end - rows):end]):
        canvas.write(0, y0 + 1 + i, text, style)
