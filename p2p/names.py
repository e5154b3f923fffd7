"""Names people read at a table: players' and the table's own (§6.4).

Theory of operation
-------------------
A name is shown on every screen and in every log, so two players must never be told
apart by a letter nobody can see. A name is *written plainly* (`plain_name`): Unicode
NFC, no white space at its ends, single spaces inside. It is *refused* (`name_problem`)
when it is blank, holds a control or format character (an invisible one, a direction
override), is only white space and combining marks, or mixes Latin, Cyrillic and Greek
letters inside one word (``Аnn`` with a Cyrillic А, the usual way to pass for another).
Two names are *alike* when their skeletons are equal (`skeleton`): NFKD, the letters of
Cyrillic, Greek, Coptic, Cherokee and Lisu drawn like Latin ones read as those Latin
letters (under their marks too: a Cyrillic "ё" reads "ë"), case folded, those letters
read again (a letter that folds to one: a narrow Cyrillic "ᲂ" folds to "о", so reads
"o"), NFKC, spaces collapsed; a letter drawn as a bare stroke (a palochka "Ӏ") reads as
"i" or "l", as the other name has it, and the Greek iota subscript as the ogonek it looks
like ("ᾳ" as "ą", not "ai"). So "ALICE", "ａｌｉｃｅ", an all-Cyrillic "АВВА"
beside "ABBA", "Рᲂр" beside "Pop", "Јоё" beside "Joë", a Cherokee "ᎫᎪᏦᎬ" beside "Jake"
and a Lisu "ꓮꓲ" beside "AI" and "Al" are alike. So are two names a roster may not seat
together (`name_key`: the same after NFKC and case folding), though a lookalike letter
and its other case read differently (a Cyrillic "М" reads as "M", its small "м" as none).
`refusal` is the front door's verdict on a name beside those seated, and every guest
replays it, seat by seat, over each roster it is sent in the lobby: so the door never
seats a name a guest refuses, and refuses every name a guest would. The host applies the
rules to its own names too, and a joiner to its own name before it dials.

A name that *reads as a bot's* (`reads_as_a_bot`) ends, as it looks, in "(bot)": the
mark of the bots a host seats beside itself. The command line keeps it for them (a
courtesy, not a rule of the protocol: a peer sent such a name seats it as any other).
A person and a bot at a host's table never share a first word (`bot_namesake`: "Bo"
beside "Bo (bot)" made "Bo (bot) cannot reach Bo" and "Bo (bot)'s turn" unreadable): a
host that seats bots of its own refuses such a name at its door, its bots' names kept
from the start (the host's courtesy again: no guest checks it).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

# Letters of other scripts drawn like Latin ones, read as those Latin letters (Unicode's
# confusables, UTS #39, is the reference; a letter a player could pass off as another's):
# a capital before folding (so that "В" reads "B", not "в"), a small letter as it is
# drawn. A letter not listed reads as its case folding does (a Komi "Ԁ" as "ԁ", so "d"):
# so a small letter whose capital folds to it and looks like nothing Latin is left out
# (Greek "γ", "σ", Cyrillic "г" look like "y", "o", "r"; their "Γ", "Σ", "Г" would too).
_LOOKALIKES = str.maketrans({
    # Cyrillic capitals, then small letters
    "А": "A", "В": "B", "Е": "E", "Ѕ": "S", "І": "I", "Ј": "J", "К": "K", "М": "M", "Н": "H", "О": "O",
    "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ү": "Y", "Һ": "H", "Ԛ": "Q", "Ԝ": "W", "Ѵ": "V",
    "а": "a", "е": "e", "ѕ": "s", "і": "i", "ј": "j", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
    "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y", "ѵ": "v", "ѡ": "w", "ԍ": "g",
    # Greek capitals, then small letters (the lunate sigmas are read before NFKD makes them "Σ", "σ")
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    "ο": "o", "ν": "v", "ρ": "p", "ι": "i", "α": "a", "κ": "k", "υ": "u", "τ": "t", "ϲ": "c", "ϳ": "j", "η": "n",
    "ϝ": "f", "ϻ": "m",  # (small digamma and san, drawn as small capitals "F", "M", as "ԍ" as a "G")
    # Coptic: small letters, drawn as small capitals, so that a capital, folded, reads as its
    # small letter does ("Ⲙ" and "ⲙ" as "m"); but a capital gamma "Ⲅ" is a "Γ", its small "ⲅ" an "r"
    "Ⲅ": "Γ",
    "ⲅ": "r", "ⲇ": "δ", "ⲏ": "h", "ⲕ": "k", "ⲗ": "λ", "ⲙ": "m", "ⲛ": "n", "ⲟ": "o", "ⲡ": "π", "ⲣ": "p",
    "ⲥ": "c", "ⲧ": "t", "ⲩ": "y", "ⲫ": "φ", "ⲭ": "x", "ⲯ": "ψ", "ⲱ": "ω", "ⳑ": "l",
    # Cherokee, drawn like Latin capitals: read in small letters, as Unicode folds a small
    # Cherokee letter ("ꭺ") to its capital ("Ꭺ"), which the table then reads
    "Ꭺ": "a", "Ꮟ": "b", "Ᏼ": "b", "Ꮯ": "c", "Ꭰ": "d", "Ꮷ": "d", "Ꭼ": "e", "Ꮐ": "g", "Ᏻ": "g", "Ꮋ": "h",
    "Ꮒ": "h", "Ꭵ": "i", "Ꭻ": "j", "Ꮶ": "k", "Ꮮ": "l", "Ꮇ": "m", "Ꮲ": "p", "Ꭱ": "r", "Ꮢ": "r", "Ꮥ": "s",
    "Ꮪ": "s", "Ꭲ": "t", "Ꮩ": "v", "Ꮃ": "w", "Ꮤ": "w", "Ꭹ": "y", "Ꮍ": "y", "Ꮓ": "z",
    # Lisu (one case), drawn like Latin capitals
    "ꓮ": "A", "ꓐ": "B", "ꓚ": "C", "ꓓ": "D", "ꓒ": "d", "ꓰ": "E", "ꓝ": "F", "ꓖ": "G", "ꓧ": "H", "ꓙ": "J",
    "ꓗ": "K", "ꓡ": "L", "ꓟ": "M", "ꓠ": "N", "ꓳ": "O", "ꓑ": "P", "ꓣ": "R", "ꓢ": "S", "ꓔ": "T", "ꓴ": "U",
    "ꓦ": "V", "ꓪ": "W", "ꓫ": "X", "ꓬ": "Y", "ꓜ": "Z",
    # a bare upright stroke (Cyrillic palochka, Lisu "ꓲ", Coptic "Ⲓ" folded): an "I" or an "l" (`_STROKE`)
    "Ӏ": "\u04cf", "ꓲ": "\u04cf", "ⲓ": "\u04cf",
    # the Greek iota subscript ("ᾳ" is an "α" and it), a hook beneath its letter: an ogonek
    # ("ą"), not the letter "ι" case folding makes of it (which read "ᾳ" as "ai")
    "\u0345": "\u0328",
})
_STROKE = "\u04cf"
"""How a skeleton holds a letter drawn as a bare upright stroke (a small palochka "ӏ"):
`alike` reads it as "i" (an "I") or "l", whichever the other name has there."""
# letters that draw nothing at all, though Unicode calls them letters or symbols
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def plain_name(text: str) -> str:
    """`text` written plainly: NFC, surrounding white space stripped, inner runs of
    white space (any kind: a no-break space too) made one space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _letters(name: str) -> str:
    """`skeleton` decomposed (NFD), a bare stroke held as `_STROKE`."""
    read = unicodedata.normalize("NFKD", name.translate(_LOOKALIKES)).translate(_LOOKALIKES)
    folded = unicodedata.normalize("NFKD", read.casefold()).translate(_LOOKALIKES)
    return unicodedata.normalize("NFD", " ".join(unicodedata.normalize("NFKC", folded).split()))


def skeleton(name: str) -> str:
    """What a name looks like, for "alike" (§6.4): lookalikes read as Latin letters (the
    table's letters themselves first, before NFKD can make a lunate "ϲ" a "σ"), NFKD (a
    Cyrillic "ё" is an "е" and a diaeresis), lookalikes read again, case folded, NFKD
    again, lookalikes read again (the letters that reach one only by folding: a narrow
    "ᲂ" is a Cyrillic "о", so "o"), NFKC, runs of white space collapsed; a bare stroke
    (a palochka "Ӏ") reads "l" here, and "i" or "l" in `alike`."""
    return unicodedata.normalize("NFC", _letters(name).replace(_STROKE, "l"))


def _read_alike(a: str, b: str) -> bool:
    """Whether two `_letters` read the same, letter for letter: a stroke as "i" or "l"."""
    return a == b or len(a) == len(b) and all(
        x == y or {x, y} in ({_STROKE, "i"}, {_STROKE, "l"}) for x, y in zip(a, b))


def _script(letter: str) -> str:
    return unicodedata.name(letter, "").split(" ", 1)[0]


def scripts(word: str) -> list[str]:
    """The scripts among Latin, Cyrillic and Greek whose letters `word` holds, in that order."""
    found = {_script(c) for c in unicodedata.normalize("NFKC", word) if c.isalpha()}
    return [s for s in _SCRIPTS if s in found]


def name_problem(name: str, max_len: int) -> str | None:
    """Why `name` (written plainly, `plain_name`) cannot name a player or a table of at
    most `max_len` characters, in words that follow "the name …"; None if it can."""
    if not name or name.isspace():
        return "is blank"
    if len(name) > max_len:
        return f"is longer than {max_len} characters"
    for c in name:
        if unicodedata.category(c)[0] == "C" or unicodedata.category(c) in ("Zl", "Zp"):
            return f"holds an invisible or control character (U+{ord(c):04X})"
    if all(c.isspace() or unicodedata.category(c)[0] == "M" or c in _BLANKS for c in name):
        return "shows no letter, digit or sign"
    for word in name.split(" "):
        if len(found := scripts(word)) > 1:
            # (the letter shown by its Unicode name: on screen it looks like the letter it copies)
            letters = [c for c in unicodedata.normalize("NFKC", word) if _script(c) in found]
            odd = min(letters, key=lambda c: sum(_script(o) == _script(c) for o in letters))
            return (f"mixes {' and '.join(s.title() for s in found)} letters in one word "
                    f"(its {odd} is {unicodedata.name(odd).capitalize().replace(_script(odd).lower(), _script(odd).title())})")
    return None


def problem_of(text: str, max_len: int) -> str | None:
    """`name_problem` of a name as received: one not written plainly is refused too."""
    if text != plain_name(text):
        return "is not written plainly (no white space at its ends or two in a row, Unicode NFC)"
    return name_problem(text, max_len)


def name_key(name: str) -> str:
    """How a roster's validity compares names (§6.5): compatibility forms folded (NFKC: a
    fullwidth "ａｌｉｃｅ" is "alice"), case-insensitively, with runs of white space
    collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def alike(a: str, b: str) -> bool:
    """Whether two names are alike (§6.4): equal skeletons, a bare stroke (a palochka
    "Ӏ") reading as "i" or "l" ("ꓮꓲ" in Lisu letters is alike "AI" and "Al"), or equal
    keys (`name_key`: no roster seats both)."""
    return _read_alike(_letters(a), _letters(b)) or name_key(a) == name_key(b)


def written_in(name: str, beside: str) -> str:
    """" (in Latin and Cyrillic letters)": the scripts `name` is written in, when they are
    not those of `beside`, the name it reads as; else nothing."""
    theirs, its = scripts(beside), scripts(name)
    return f" (in {' and '.join(s.title() for s in its)} letters)" if its != theirs and its else ""


@dataclass(frozen=True)
class Refusal:
    """Why the front door refuses a name (§6.4): `reason` "name-taken" (it reads as the
    seated name at index `seat`) or "bad-name" (`problem`, in words that follow "the name …")."""

    reason: Literal["name-taken", "bad-name"]
    seat: int = -1
    problem: str = ""


def refusal(name: str, seated: Sequence[str], max_len: int) -> Refusal | None:
    """The front door's verdict on `name` (as received) beside the `seated` names, in seat
    order (§6.4): taken if it is alike one of them (checked first), bad if it breaks a
    rule of names (`problem_of`), else None. A roster is one its host's door could have
    made when each of its names passes beside the names of the seats before it."""
    if (seat := next((i for i, other in enumerate(seated) if alike(other, name)), None)) is not None:
        return Refusal("name-taken", seat=seat)
    if (problem := problem_of(name, max_len)) is not None:
        return Refusal("bad-name", problem=problem)
    return None


BOT_MARK = "(bot)"
"""How the names of the bots a host seats end: "Ada (bot)"."""


def reads_as_a_bot(name: str) -> bool:
    """Whether `name` ends in `BOT_MARK` as it looks: in its skeleton, white space aside
    ("Bo (BOT)", "Bo(bot)", "Bo ( bot )", full-width brackets, "ВОТ" in Cyrillic capitals)."""
    return "".join(skeleton(name).split()).endswith(BOT_MARK)


def first_word(name: str) -> str:
    """What a sentence may shorten a name to, and a reader goes by: "Bo" of "Bo (bot)"."""
    return name.split(" ", 1)[0]


def bot_namesake(name: str, names: Sequence[str]) -> str | None:
    """The name among `names` that `name` shares its first word with (alike, §6.4) where
    one of the two reads as a bot's and the other not ("Bo" and "Bo (bot)", "Ada Lee" and
    "Ada (bot)"): a person and a bot of one table, which no reader could tell apart in
    "Bo (bot) cannot reach Bo". None if there is none."""
    bot = reads_as_a_bot(name)
    return next((other for other in names
                 if reads_as_a_bot(other) != bot and alike(first_word(other), first_word(name))), None)
