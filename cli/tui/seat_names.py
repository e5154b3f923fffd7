"""Players' names in the narrow columns of the screens, readable and never two alike.

A name that fits is shown whole. A bot's name ("Ada (bot)") that does not fit drops its
"(bot)" mark first, so that the name the bot plays under stays whole, unless the name
alone would read like another seat's (§6.4: a player may be called "Ada" beside
"Ada (bot)"). A name still too long is cut at its end, where "…" marks the cut, never
halfway through the mark ("Ada (b…"). Names that would then read alike keep their ends
as well, "…" moving into the middle ("Alexa…nova" and "Alexa…idis"); names alike at both
ends show where they differ ("…pher A Wil…"), and as a last resort their seats' numbers.

How wide a screen's names are is one rule (`name_columns`): as wide as the widest name
where the screen has room, so that every name reads whole up to its full allowed length
(§6.4: 24 characters), and no fewer than 12 columns where it has not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Final

from cli.tui.canvas import clip, text_width
from p2p.names import BOT_MARK, skeleton

_MARKED = f" {BOT_MARK}"

NAME_COLUMNS: Final = 12
"""The columns a screen's column of names always has: a longer name is cut to them where
the screen has no more room."""

def name_columns(names: Sequence[str], room: Callable[[int], bool]) -> int:
    """The columns a screen gives `names`: as many as the widest needs (every name whole,
    however long §6.4 lets it be), down to `NAME_COLUMNS`, as far as `room(columns)` says
    the screen has room for them (nothing else it shows giving way for them)."""
    need = max([NAME_COLUMNS, *map(text_width, names)])
    return next((columns for columns in range(need, NAME_COLUMNS, -1) if room(columns)), NAME_COLUMNS)


def fit_names(names: Sequence[str], width: int) -> tuple[str, ...]:
    """Every seat's name in at most `width` columns (see the module)."""
    return _fitted(tuple(names), width)


@lru_cache(maxsize=64)  # (a redraw fits the same names to a few widths, many times over)
def _fitted(names: tuple[str, ...], width: int) -> tuple[str, ...]:
    fitted = [_fit(name, width, names) for name in names]
    for group in _alike_groups(fitted):
        for tail in range(max(1, min(4, (width - 1) // 3)), width - 1):  # (an end long enough to read)
            cuts = [_ends(names[seat], width, tail) for seat in group]
            if len({skeleton(cut) for cut in cuts}) == len(cuts):
                break
        else:  # (alike at both ends: show where they differ, else number them)
            at = _first_difference([names[seat] for seat in group])
            cuts = [_around(names[seat], width, at) for seat in group]
            if len({skeleton(cut) for cut in cuts}) != len(cuts):
                numbered = [_numbered(names[seat], width, seat) for seat in group]
                fits = all(text_width(cut) <= width for cut in numbered)  # (not in 2 or 3 columns)
                cuts = numbered if fits else [fitted[seat] for seat in group]
        for seat, cut in zip(group, cuts, strict=True):
            fitted[seat] = cut
    return tuple(fitted)


def _first_difference(names: Sequence[str]) -> int:
    """Where names that begin alike first differ."""
    return next((i for i in range(max(map(len, names))) if len({name[i:i + 1] for name in names}) > 1), 0)


def _around(name: str, width: int, at: int) -> str:
    """`name` in `width` columns showing its letters around `at`: "…pher A Wil…"."""
    if text_width(name) <= width:
        return name
    start = max(0, at - max(1, (width - 2) // 2))
    head = "…" if start > 0 else ""
    rest = name[start:]
    if text_width(head + rest) <= width:
        return head + rest
    return head + clip(rest, width - text_width(head) - 1, "") + "…"


def _numbered(name: str, width: int, seat: int) -> str:
    """`name` in `width` columns ending in its seat's number: "Chris…#2"."""
    tag = f"#{seat + 1}"
    return clip(name, max(0, width - len(tag) - 1), "").rstrip() + "…" + tag


def _fit(name: str, width: int, names: Sequence[str]) -> str:
    if text_width(name) <= width:
        return name
    if name.endswith(_MARKED):
        plain = name[: -len(_MARKED)].rstrip()
        if text_width(plain) <= width and all(skeleton(plain) != skeleton(other) for other in names):
            return plain
        return _cut(plain, width, always=True)  # (cut before the mark: "Ada…", never "Ada (…")
    return _cut(name, width)


def _cut(text: str, width: int, always: bool = False) -> str:
    """`text` cut at its end to `width` columns, "…" right after the last letter kept
    (`always`: even where it fits, for a name that is longer than `text`)."""
    if text_width(text) <= width and not always:
        return text
    return clip(text, width - 1, "").rstrip() + "…" if width > 1 else clip(text, width)


def _ends(name: str, width: int, tail: int) -> str:
    """`name` in `width` columns keeping its last `tail` columns: "Alexa…nova"."""
    if text_width(name) <= width:
        return name
    end = ""
    for ch in reversed(name):
        if text_width(ch + end) > tail:
            break
        end = ch + end
    return clip(name, width - 1 - text_width(end), "").rstrip() + "…" + end.lstrip()


def _alike_groups(fitted: Sequence[str]) -> list[list[int]]:
    """The seats whose fitted names read alike, in groups of two or more."""
    groups: dict[str, list[int]] = {}
    for seat, name in enumerate(fitted):
        groups.setdefault(skeleton(name), []).append(seat)
    return [group for group in groups.values() if len(group) > 1]
