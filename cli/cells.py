"""Terminal cells a text takes: a CJK character or an emoji two, a combining mark none.

Plain output (standings, the headless lobby, `tables`) lines up its columns with these,
as the full-screen client does, without loading the client (`wcwidth` is the table
prompt_toolkit itself measures with).
"""

from __future__ import annotations

from wcwidth import wcwidth


def text_width(text: str) -> int:
    """Columns `text` takes on a terminal."""
    return sum(max(0, wcwidth(ch)) for ch in text)


def ljust(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns, never cut (a column of names)."""
    return text + " " * max(0, width - text_width(text))
