"""Terminal cells a text takes: a CJK character or an emoji two, a combining mark none.

The one measure of the full-screen client (`cli.tui.canvas`) and of plain output (the
standings, the headless lobby), which uses it without loading the client (`wcwidth` is
the table prompt_toolkit itself measures with).
"""

from __future__ import annotations

from functools import lru_cache

from wcwidth import wcwidth


@lru_cache(maxsize=4096)
def cell_width(ch: str) -> int:
    """Columns the character `ch` takes on a terminal (0 for a combining or control one)."""
    return max(0, wcwidth(ch))


def text_width(text: str) -> int:
    """Columns `text` takes on a terminal."""
    return sum(cell_width(ch) for ch in text)


def ljust(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns, never cut (a column of names)."""
    return text + " " * max(0, width - text_width(text))
