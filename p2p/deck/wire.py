"""Strict reading of the plain structures that card messages travel as (protocol.md §8.8).

Each message's `to_wire()` gives a map with `str` keys whose values are `bytes`, `int` or
lists of `int`: exactly what msgpack carries as `bin`, integers and arrays. `from_wire`
goes the other way and trusts nothing: the map must have exactly the listed keys, every
value the right type, length and range, or a `MalformedMessage` names the message, the
field, the check and the sender.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from .errors import MalformedMessage


class Reader:
    """Reads the fields of one received map, blaming `sender` for anything wrong."""

    def __init__(self, obj: Any, message: str, fields: tuple[str, ...], section: str, sender: bytes) -> None:
        self.message = message
        self.section = section
        self.sender = sender
        if not isinstance(obj, Mapping):
            self.fail("type", f"is a {type(obj).__name__}, not a map")
        keys = set(obj.keys())
        if keys != set(fields):
            missing = sorted(set(fields) - {k for k in keys if isinstance(k, str)})
            extra = sorted(repr(k) for k in keys if k not in fields)
            self.fail("fields", f"missing {missing}, unexpected {extra}")
        self.obj = obj

    def fail(self, check: str, detail: str) -> NoReturn:
        raise MalformedMessage(self.section, check, f"{self.message}: {detail}", peer=self.sender)

    def bin(self, key: str, length: int | None = None, *, multiple_of: int = 1, max_items: int = 0) -> bytes:
        """A `bin` field of exactly `length` bytes, or of 1..`max_items` items of `multiple_of` bytes."""
        v = self.obj[key]
        if not isinstance(v, bytes):
            self.fail("type", f"field {key!r} is a {type(v).__name__}, not bytes")
        if length is not None and len(v) != length:
            self.fail("length", f"field {key!r} has {len(v)} bytes, not {length}")
        if length is None and (len(v) == 0 or len(v) % multiple_of or len(v) > max_items * multiple_of):
            self.fail("length", f"field {key!r} has {len(v)} bytes, not 1..{max_items} items of {multiple_of} bytes")
        return v

    def integer(self, key: str, lo: int, hi: int) -> int:
        """An integer field in [lo, hi]."""
        v = self.obj[key]
        if type(v) is not int:
            self.fail("type", f"field {key!r} is a {type(v).__name__}, not an integer")
        if not lo <= v <= hi:
            self.fail("range", f"field {key!r} = {v} is outside [{lo}, {hi}]")
        return v

    def integers(self, key: str, lo: int, hi: int, max_len: int) -> tuple[int, ...]:
        """A list of integers, each in [lo, hi], at most `max_len` long."""
        v = self.obj[key]
        if not isinstance(v, (list, tuple)):
            self.fail("type", f"field {key!r} is a {type(v).__name__}, not a list")
        if len(v) > max_len:
            self.fail("length", f"field {key!r} has {len(v)} items, more than {max_len}")
        for item in v:
            if type(item) is not int:
                self.fail("type", f"field {key!r} holds a {type(item).__name__}, not an integer")
            if not lo <= item <= hi:
                self.fail("range", f"field {key!r} holds {item}, outside [{lo}, {hi}]")
        return tuple(v)


def chunks(data: bytes, size: int) -> tuple[bytes, ...]:
    """`data` cut into consecutive pieces of `size` bytes."""
    return tuple(data[i : i + size] for i in range(0, len(data), size))


def expect_bytes(value: object, length: int, what: str, section: str) -> bytes:
    """`value` if it is `bytes` of exactly `length`, else `MalformedMessage` naming `what`."""
    if not isinstance(value, bytes) or len(value) != length:
        raise MalformedMessage(section, "length", f"{what} must be {length} bytes")
    return value


def expect_int(value: object, lo: int, hi: int, what: str, section: str) -> int:
    """`value` if it is an `int` (not a bool) in [lo, hi], else `MalformedMessage`."""
    if type(value) is not int or not lo <= value <= hi:
        raise MalformedMessage(section, "range", f"{what} must be an integer in [{lo}, {hi}]")
    return value
