"""A grid of styled character cells that the screens draw into.

A card table is not a box layout: seats sit around a table, cards line up in columns
under names. Screens therefore draw at explicit positions into a `Canvas` of the
terminal's size, then hand prompt_toolkit one list of (style, text) fragments per row.
Wide characters (east-Asian names) take two cells; anything drawn outside the canvas is
clipped, so a small terminal degrades instead of crashing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

from cli.cells import cell_width, text_width  # (the client's modules take text_width from here)

_WIDE_TAIL = ""  # the second cell of a wide character


class Canvas:
    """`width` × `height` cells, each a character and a style string."""

    __slots__ = ("width", "height", "_chars", "_styles")

    def __init__(self, width: int, height: int, style: str = "") -> None:
        self.width = max(0, width)
        self.height = max(0, height)
        self._chars = [[" "] * self.width for _ in range(self.height)]
        self._styles = [[style] * self.width for _ in range(self.height)]

    def write(self, x: int, y: int, text: str, style: str = "") -> int:
        """Draw `text` from column `x` of row `y`; return the column after it."""
        if not 0 <= y < self.height:
            return x + text_width(text)
        chars = self._chars[y]
        styles = self._styles[y]
        for ch in text:
            w = cell_width(ch)
            if w <= 0:
                continue
            if 0 <= x and x + w <= self.width:
                for cell in range(x, x + w):  # (a wide character drawn over in part is blanked whole)
                    if chars[cell] == _WIDE_TAIL and cell > 0:
                        chars[cell - 1] = " "
                    elif cell + 1 < self.width and chars[cell + 1] == _WIDE_TAIL:
                        chars[cell + 1] = " "
                chars[x] = ch
                styles[x] = style
                if w == 2:
                    chars[x + 1] = _WIDE_TAIL
                    styles[x + 1] = style
            x += w
        return x

    def fill(self, x: int, y: int, width: int, style: str, char: str = " ") -> None:
        """Paint `width` cells of row `y` from `x` with `style` (and `char`)."""
        self.write(x, y, char * max(0, width), style)

    def restyle(self, x: int, y: int, width: int, style: str) -> None:
        """Add `style` to existing cells, keeping their characters."""
        if not 0 <= y < self.height:
            return
        row = self._styles[y]
        for i in range(max(0, x), min(self.width, x + width)):
            row[i] = f"{row[i]} {style}".strip()

    def style_at(self, x: int, y: int) -> str:
        return self._styles[y][x]

    def row_text(self, y: int) -> str:
        return "".join(self._chars[y])

    def text(self) -> str:
        """The characters only, rows joined by newlines (trailing spaces removed)."""
        return "\n".join(self.row_text(y).rstrip() for y in range(self.height))

    def fragments(self, y: int) -> StyleAndTextTuples:
        """Row `y` as prompt_toolkit fragments, runs of equal style merged."""
        out: StyleAndTextTuples = []
        chars = self._chars[y]
        styles = self._styles[y]
        start = 0
        for i in range(1, self.width + 1):
            if i == self.width or styles[i] != styles[start]:
                out.append((styles[start], "".join(chars[start:i])))
                start = i
        return out


def pad(text: str, width: int) -> str:
    """`text` clipped, then padded with spaces, to exactly `width` columns."""
    text = clip(text, width)
    return text + " " * max(0, width - text_width(text))


def clip(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `width` columns (marked with an ellipsis when cut)."""
    if text_width(text) <= width:
        return text
    if width <= 0:
        return ""
    out = []
    used = 0
    limit = width - text_width(ellipsis)
    for ch in text:
        w = cell_width(ch)
        if used + w > limit:
            break
        out.append(ch)
        used += w
    return "".join(out) + ellipsis


def _broken(word: str, width: int) -> str:
    """The first line of a `word` wider than `width`: up to the last "/" that fits (a path
    breaks between its folders, never inside a name), else as much as fits (a wide
    character in one column goes whole)."""
    head = clip(word, width, "") or word[0]
    slash = head.rfind("/")
    return head[:slash + 1] if slash > 0 else head


def wrap(text: str, width: int, measure: Callable[[str], int] = text_width) -> list[str]:
    """Word-wrap `text` to lines of at most `width` columns, each word `measure` columns
    wide (as written, unless told); a word wider than a line (a path) is broken after a
    "/" of it where one fits (`_broken`), else cut."""
    if width <= 0:
        return []
    lines: list[str] = []
    line, used = "", 0
    for word in text.split(" "):
        size = measure(word)
        if line and used + 1 + size <= width:
            line, used = f"{line} {word}", used + 1 + size
            continue
        if line:  # (not the spaces where a line broke, nor the empty rest of a word cut whole)
            lines.append(line)
        while size > width:
            head = _broken(word, width)
            lines.append(head)
            word = word[len(head):]
            size = measure(word)
        line, used = word, size
    if line or not lines:  # (not the empty rest of a word cut to the last character)
        lines.append(line)
    return lines
