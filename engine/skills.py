"""The skills table: which cards make up the deck, their values and powers (R2, R3).

A deck is a list of card *kinds* (value, count, power, Bandit or not). Expanding the
kinds in order gives the canonical deck: card *face* f in 0..N-1 is the f-th physical
card. Faces are what reveals report; `values[f]`, `powers[f]` and `keys[f]` are
precomputed per face so the engine never searches the table during play.

`keys[f]` is the snap identity of a face (R6 "identical"): the value for ordinary cards,
and one shared key for every Bandit card (green -2 and red +20 are identical).

The default table ships as `skills.toml` beside this module; users replace it with their
own TOML file (see the comments there). Every table is validated on construction and a
bad one raises `SkillsError` naming the entry at fault.
"""

from __future__ import annotations

import enum
import pkgutil
import tomllib
from dataclasses import dataclass, field
from typing import Any

from engine.errors import SkillsError

MIN_PLAYERS = 2
MAX_PLAYERS = 6
CARDS_PER_SEAT = 4


class Power(enum.Enum):
    """The four powers of R3; the value is the name used in skills files."""

    PEEK = "peek"
    SPY = "spy"
    SWAP = "swap"
    LOOK_SWAP = "look_swap"


_KIND_KEYS = frozenset({"value", "count", "power", "bandit", "name"})


@dataclass(frozen=True, slots=True)
class CardKind:
    """`count` identical-looking cards worth `value`, with an optional power."""

    value: int
    count: int
    power: Power | None = None
    bandit: bool = False
    name: str = ""

    @property
    def label(self) -> str:
        """A display name: the given name, or the value (with its power)."""
        if self.name:
            return self.name
        return f"{self.value}" if self.power is None else f"{self.value} ({self.power.value})"


@dataclass(frozen=True, slots=True)
class Skills:
    """A validated deck description with per-face lookup tables."""

    kinds: tuple[CardKind, ...]
    values: tuple[int, ...] = field(init=False, repr=False)
    powers: tuple[Power | None, ...] = field(init=False, repr=False)
    keys: tuple[int, ...] = field(init=False, repr=False)
    kind_of: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _validate_kinds(self.kinds)
        bandit_values = [k.value for k in self.kinds if k.bandit]
        bandit_key = min(bandit_values) if bandit_values else 0
        values: list[int] = []
        powers: list[Power | None] = []
        keys: list[int] = []
        kind_of: list[int] = []
        for index, kind in enumerate(self.kinds):
            for _ in range(kind.count):
                values.append(kind.value)
                powers.append(kind.power)
                keys.append(bandit_key if kind.bandit else kind.value)
                kind_of.append(index)
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "powers", tuple(powers))
        object.__setattr__(self, "keys", tuple(keys))
        object.__setattr__(self, "kind_of", tuple(kind_of))

    @property
    def size(self) -> int:
        """Number of physical cards N (faces are 0..N-1)."""
        return len(self.values)

    def kind(self, face: int) -> CardKind:
        """The kind of card a face belongs to."""
        return self.kinds[self.kind_of[face]]

    def identical(self, face_a: int, face_b: int) -> bool:
        """R6 "identical": equal value, and every Bandit card matches every other."""
        return self.keys[face_a] == self.keys[face_b]

    def check_players(self, players: int) -> None:
        """Raise SkillsError unless this deck can seat `players` players (R1, R4)."""
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SkillsError("R1", None, f"Bandit is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
        needed = CARDS_PER_SEAT * players + 2
        if self.size < needed:
            raise SkillsError(
                "R4",
                None,
                f"the deck has {self.size} cards; {players} players need at least {needed} "
                f"({CARDS_PER_SEAT} each, the first discard and one to draw)",
            )

    @classmethod
    def from_toml(cls, text: str, source: str = "skills table") -> Skills:
        """Parse and validate a skills table written in TOML (see `skills.toml`)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SkillsError("R2", None, f"{source}: not valid TOML: {exc}") from None
        except RecursionError:  # (the parser recurses once per nested array or table)
            raise SkillsError("R2", None, f"{source}: not valid TOML: nested too deeply") from None
        return cls(tuple(_parse_kinds(data, source)))

    def to_toml(self) -> str:
        """This table as TOML that `from_toml` reads back to an equal table."""
        out = ["# Bandit skills table (R2, R3); see `bandit-lan simulate --help`.", ""]
        for kind in self.kinds:
            out.append("[[card]]")
            if kind.name:
                out.append(f"name = {_toml_str(kind.name)}")
            out.append(f"value = {kind.value}")
            out.append(f"count = {kind.count}")
            if kind.power is not None:
                out.append(f'power = "{kind.power.value}"')
            if kind.bandit:
                out.append("bandit = true")
            out.append("")
        return "\n".join(out)


def _toml_str(text: str) -> str:
    """A TOML basic string: backslash, quote and every control character escaped."""
    escaped = "".join(
        "\\\\" if ch == "\\" else '\\"' if ch == '"' else f"\\u{ord(ch):04x}" if ord(ch) < 0x20 or ord(ch) == 0x7F else ch
        for ch in text
    )
    return f'"{escaped}"'


def _parse_kinds(data: dict[str, Any], source: str) -> list[CardKind]:
    extra = set(data) - {"card"}
    if extra:
        raise SkillsError("R2", None, f"{source}: unknown top-level key(s) {sorted(extra)}; only [[card]] entries are allowed")
    entries = data.get("card")
    if not isinstance(entries, list) or not entries:
        raise SkillsError("R2", None, f"{source}: no [[card]] entries")
    kinds: list[CardKind] = []
    for number, entry in enumerate(entries, 1):
        where = f"{source}: card entry {number}"
        if not isinstance(entry, dict):
            raise SkillsError("R2", None, f"{where}: must be a table")
        unknown = set(entry) - _KIND_KEYS
        if unknown:
            raise SkillsError("R2", None, f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_KIND_KEYS)}")
        for key in ("value", "count"):
            if key not in entry:
                raise SkillsError("R2", None, f"{where}: missing '{key}'")
        power_name = entry.get("power")
        power: Power | None = None
        if power_name is not None:
            try:
                power = Power(power_name)
            except ValueError:
                names = ", ".join(p.value for p in Power)
                raise SkillsError("R3", None, f"{where}: unknown power {power_name!r} (known: {names})") from None
        name = entry.get("name", "")
        if not isinstance(name, str):
            raise SkillsError("R2", None, f"{where}: 'name' must be a string")
        bandit = entry.get("bandit", False)
        if not isinstance(bandit, bool):
            raise SkillsError("R2", None, f"{where}: 'bandit' must be true or false")
        kinds.append(CardKind(value=entry["value"], count=entry["count"], power=power, bandit=bandit, name=name))
    return kinds


def _validate_kinds(kinds: tuple[CardKind, ...]) -> None:
    if not isinstance(kinds, tuple) or not kinds:
        raise SkillsError("R2", None, "a skills table needs at least one kind of card")
    seen_values: dict[int, int] = {}
    for number, kind in enumerate(kinds, 1):
        where = f"card entry {number}"
        if not isinstance(kind, CardKind):
            raise SkillsError("R2", None, f"{where}: not a CardKind")
        if type(kind.value) is not int:
            raise SkillsError("R2", None, f"{where}: value must be an integer, not {kind.value!r}")
        if not -1000 <= kind.value <= 1000:
            raise SkillsError("R2", None, f"{where}: value {kind.value} is outside -1000..1000")
        if type(kind.count) is not int or kind.count < 1:
            raise SkillsError("R2", None, f"{where}: count must be a positive integer, not {kind.count!r}")
        if kind.power is not None and not isinstance(kind.power, Power):
            raise SkillsError("R3", None, f"{where}: unknown power {kind.power!r}")
        if kind.bandit and kind.power is not None:
            raise SkillsError("R3", None, f"{where}: a Bandit card has no power")
        if kind.value in seen_values:
            other = seen_values[kind.value]
            raise SkillsError(
                "R2",
                None,
                f"{where}: value {kind.value} is already used by card entry {other}; "
                "give each kind its own value (one entry with a larger count)",
            )
        seen_values[kind.value] = number
    total = sum(k.count for k in kinds)
    if total > 4096:
        raise SkillsError("R2", None, f"the deck has {total} cards; at most 4096 are supported")
    if any(k.bandit for k in kinds) and all(k.bandit for k in kinds):
        raise SkillsError("R2", None, "a deck of Bandit cards only cannot be played")


def load_skills(text: str, source: str = "skills table") -> Skills:
    """Parse a user's TOML skills table (the CLI reads the file; this stays pure)."""
    return Skills.from_toml(text, source)


def _default_table() -> str:
    data = pkgutil.get_data("engine", "skills.toml")
    if data is None:  # a loader without resource support; cannot happen for a normal install
        raise SkillsError("R2", None, "the default skills table (engine/skills.toml) is missing")
    return data.decode("utf-8")


DEFAULT_SKILLS: Skills = Skills.from_toml(_default_table(), "default skills table")
"""The deck of R2 with the powers of R3, read from `skills.toml` beside this module."""
