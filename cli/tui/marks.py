"""Marked text: prompts and help bars mark the keys they offer in braces ("{Space}+slot
snaps …", "{x} draw"), drawn highlighted without the braces. A brace that is only a
brace is written doubled ("{{", "}}"): a player's name put into marked text goes through
`literal`, so a player called "{x}" is drawn as "{x}", never as the key x."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cli.tui.canvas import Canvas

_MARK = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
"""A doubled brace (a brace as written), or a {marked} key."""

WORD = re.compile(r"(?:\{\{|\}\}|\{[^{}]*\}|[^\s{}])+")
"""A word of marked text: a {marked} key goes whole, spaces and all."""


def literal(text: str) -> str:
    """`text` (a name) as marked text writes it: its braces doubled, none read as a key."""
    return text.replace("{", "{{").replace("}", "}}")


def marked_parts(text: str) -> Iterator[tuple[str, bool]]:
    """`text` in parts as drawn, each with whether it is a key."""
    pos = 0
    for m in _MARK.finditer(text):
        if m.start() > pos:
            yield text[pos:m.start()], False
        yield (m.group(1), True) if m.group(1) is not None else (m.group(0)[0], False)
        pos = m.end()
    if pos < len(text):
        yield text[pos:], False


def unmarked(text: str) -> str:
    """`text` as shown: its {marked} keys without their braces, its doubled braces single."""
    return "".join(part for part, _ in marked_parts(text))


def write_marked(canvas: Canvas, x: int, y: int, text: str, style: str, key_style: str = "class:prompt.key") -> int:
    """Write `text`, drawing {marked} parts (keys) in `key_style`."""
    for part, key in marked_parts(text):
        x = canvas.write(x, y, part, key_style if key else style)
    return x
