"""Terminal cells a text takes: a CJK character or an emoji two, a combining mark none.

The one measure of the full-screen client (`cli.tui.canvas`) and of plain output (the
standings, the headless lobby, and where its lines are broken, `wrapped`), which uses it
without loading the client (`wcwidth` is the table prompt_toolkit itself measures with).
"""

from __future__ import annotations

import re
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


_WORD = re.compile(r"(\s*)(\S+)")


def wrapped(text: str, width: int) -> str:
    """`text` broken into lines of at most `width` columns, at spaces only: a word wider
    than a line keeps a line of its own, whole (a path, a command; a wide character is
    never split). Each line of `text` is broken on its own, its continuation indented as
    it is (up to half the width); the spaces between words on one line, and those that
    end it (a prompt's), are kept."""
    return "\n".join(_wrapped_line(line, width) for line in text.split("\n"))


def _wrapped_line(line: str, width: int) -> str:
    if text_width(line) <= width:
        return line
    indent = line[:len(line) - len(line.lstrip())]
    if text_width(indent) > width // 2:
        indent = ""
    trail = line[len(line.rstrip()):]
    lines: list[str] = []
    current, used = "", 0
    for m in _WORD.finditer(line.strip()):
        gap, word = m.group(1), m.group(2)
        needed = text_width(gap) + text_width(word)
        if current and used + needed > width:
            lines.append(current)
            current, used = indent + word, text_width(indent) + text_width(word)
        else:
            current, used = (current + gap + word, used + needed) if current else (indent + word,
                                                                                    text_width(indent + word))
    lines.append(current + trail)
    return "\n".join(lines)
