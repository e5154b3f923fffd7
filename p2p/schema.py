"""Message schemas: a small declarative checker for decoded frames (§4.4).

Theory of operation
-------------------
Every message type is registered as a `Message`: its ``type`` string, its version ``v``,
its fields (name -> kind), and the protocol section that defines it. A `Schemas`
registry maps (type, v) to its `Message`; `Schemas.check(frame)` either returns the
frame untouched or raises `SchemaError` naming the section, the field path, what was
expected and what arrived.

Policies (§4.4): an unknown ``type`` is an error; a known type with an unsupported ``v``
is an error; a field not declared by the schema is an error (a new field means a new
``v``); a declared field may be absent only when wrapped in `Optional`.

Each layer declares its messages as a tuple of `Message` and the caller builds one
registry for a link from all the layers it speaks::

    schemas = Schemas(*transport.LINK_MESSAGES, *signing.MESSAGES, *lobby.MESSAGES)
    schemas.register(Message("order.ack", 1, "§7.2", {"from": PEER_ID, "lamport": Int(0)}))

Kinds: `Int`, `Bool`, `Str`, `Bin`, `ListOf`, `Tuple`, `Record` (a nested map with its own
fields), `Optional` (field may be absent), `OneOf` (str from a fixed set).

Every kind answers twice: ``valid(value)`` is a bare yes or no, built for the common case
of a good frame (exact types, no strings built, nothing raised); ``check(value, path,
section)`` is the judge that runs when ``valid`` says no, and names the field, what was
expected and what came. Both say the same thing: ``valid`` accepts exactly the values
that decoding produces and ``check`` accepts (``check`` also takes subclasses, which
only local callers ever pass, and lets them through the slow way).

``valid`` is generated: each kind writes the Python statements that test one value
(``emit``), and a message's fields become one flat function, compiled once per kind
(`_compiled`), so a good frame is checked without a method call per field or item.
Every message crosses this check at every peer (25 acks per snap at a six-seat table),
which is why it is worth the code generation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from p2p.errors import ProtocolError, SchemaError
from p2p.wire import Limits, check_tree, kind_of


class Kind(Protocol):
    @property
    def valid(self) -> Callable[[Any], bool]: ...

    def emit(self, source: _Source, value: str, indent: int) -> None: ...

    @property
    def depth(self) -> int: ...

    def check(self, value: Any, path: str, section: str) -> None: ...

    def describe(self) -> str: ...


class _Source:
    """The statements of a generated ``valid`` function: each returns False as soon as
    the value it tests is not valid (kinds add theirs with ``emit``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {"_ABSENT": _ABSENT}
        self._count = 0

    def name(self) -> str:
        """A fresh local variable."""
        self._count += 1
        return f"v{self._count}"

    def constant(self, value: Any) -> str:
        """A name the function sees `value` under."""
        name = f"k{len(self.names)}"
        self.names[name] = value
        return name

    def line(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def fail_if(self, indent: int, condition: str) -> None:
        self.line(indent, f"if {condition}: return False")

    def fields(self, fields: Mapping[str, Kind], value: str, envelope: int, indent: int) -> None:
        """A map `value` with exactly these fields (plus `envelope` more keys)."""
        required = sum(not isinstance(kind, Optional) for kind in fields.values())
        optional = len(fields) - required
        low, high = required + envelope, required + optional + envelope
        self.fail_if(indent, f"len({value}) != {low}" if low == high else f"not {low} <= len({value}) <= {high}")
        present = self.name() if optional else None
        if present:
            self.line(indent, f"{present} = {low}")
        for name, kind in fields.items():
            item = self.name()
            if isinstance(kind, Optional):
                self.line(indent, f"{item} = {value}.get({name!r}, _ABSENT)")
                self.line(indent, f"if {item} is not _ABSENT:")
                kind.kind.emit(self, item, indent + 1)
                self.line(indent + 1, f"{present} += 1")
            else:  # (an absent field fails the kind's type test: nothing else is `_ABSENT`)
                self.line(indent, f"{item} = {value}.get({name!r}, _ABSENT)")
                kind.emit(self, item, indent)
        if present:
            self.fail_if(indent, f"len({value}) != {present}")

    def function(self) -> Callable[[Any], bool]:
        text = "def valid(v0):\n" + "\n".join(self.lines + ["    return True"]) + "\n"
        namespace = dict(self.names)
        exec(compile(text, "<schema>", "exec"), namespace)  # noqa: S102 (our own generated source)
        return namespace["valid"]  # type: ignore[no-any-return]


def _compiled(kind: Kind) -> Callable[[Any], bool]:
    source = _Source()
    kind.emit(source, "v0", 1)
    return source.function()


_ABSENT = object()


class _Generated:
    """What every kind but `Optional` shares: its fast path `valid`, one function
    generated (once, on first use) from the kind's `emit`; and a depth of 0 unless the
    kind nests containers in its value (§4.3)."""

    depth = 0

    @cached_property
    def valid(self) -> Callable[[Any], bool]:
        return _compiled(self)  # type: ignore[arg-type]  (every subclass is a Kind)


def _wrong(kind: Kind, value: Any, path: str, section: str, got: str | None = None) -> SchemaError:
    return SchemaError(section, path, kind.describe(), got if got is not None else kind_of(value))


@dataclass(frozen=True)
class Int(_Generated):
    min: int = -(1 << 63)
    max: int = (1 << 64) - 1

    def emit(self, source: _Source, value: str, indent: int) -> None:
        source.fail_if(indent, f"type({value}) is not int or not {self.min} <= {value} <= {self.max}")

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise _wrong(self, value, path, section)
        if not self.min <= value <= self.max:
            raise _wrong(self, value, path, section, f"{value}")

    def describe(self) -> str:
        return f"int in [{self.min}, {self.max}]"


@dataclass(frozen=True)
class Bool(_Generated):
    def emit(self, source: _Source, value: str, indent: int) -> None:
        source.fail_if(indent, f"type({value}) is not bool")

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, bool):
            raise _wrong(self, value, path, section)

    def describe(self) -> str:
        return "bool"


@dataclass(frozen=True)
class Str(_Generated):
    """UTF-8 text; `printable` forbids control characters (names shown on screens)."""

    min_len: int = 0
    max_len: int = 4096
    printable: bool = False

    def emit(self, source: _Source, value: str, indent: int) -> None:
        source.fail_if(indent, f"type({value}) is not str or not {self.min_len} <= len({value}) <= {self.max_len}")
        if self.printable:
            source.fail_if(indent, f"not {value}.isprintable()")

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, str):
            raise _wrong(self, value, path, section)
        if not self.min_len <= len(value) <= self.max_len:
            raise _wrong(self, value, path, section, f"str of {len(value)} characters")
        if self.printable and not value.isprintable():
            raise _wrong(self, value, path, section, "str with control characters")

    def describe(self) -> str:
        extra = ", printable" if self.printable else ""
        return f"str of {self.min_len}..{self.max_len} characters{extra}"


@dataclass(frozen=True)
class OneOf(_Generated):
    choices: frozenset[str]

    def emit(self, source: _Source, value: str, indent: int) -> None:
        source.fail_if(indent, f"type({value}) is not str or {value} not in {source.constant(self.choices)}")

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, str):
            raise _wrong(self, value, path, section)
        if value not in self.choices:
            raise _wrong(self, value, path, section, repr(value[:40]))

    def describe(self) -> str:
        return "one of " + ", ".join(sorted(map(repr, self.choices)))


@dataclass(frozen=True)
class Bin(_Generated):
    """Bytes: exactly `size` long, or `min_len`..`max_len`."""

    size: int | None = None
    min_len: int = 0
    max_len: int = 1 << 20

    def emit(self, source: _Source, value: str, indent: int) -> None:
        size = f"len({value}) != {self.size}" if self.size is not None else f"not {self.min_len} <= len({value}) <= {self.max_len}"
        source.fail_if(indent, f"type({value}) is not bytes or {size}")

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, bytes):
            raise _wrong(self, value, path, section)
        n = len(value)
        if (self.size is not None and n != self.size) or (self.size is None and not self.min_len <= n <= self.max_len):
            raise _wrong(self, value, path, section, f"bin of {n} bytes")

    def describe(self) -> str:
        if self.size is not None:
            return f"bin of {self.size} bytes"
        return f"bin of {self.min_len}..{self.max_len} bytes"


@dataclass(frozen=True)
class ListOf(_Generated):
    item: Kind
    min_len: int = 0
    max_len: int = 4096

    @property
    def depth(self) -> int:
        return 1 + self.item.depth

    def emit(self, source: _Source, value: str, indent: int) -> None:
        source.fail_if(indent, f"type({value}) is not list or not {self.min_len} <= len({value}) <= {self.max_len}")
        item = source.name()
        source.line(indent, f"for {item} in {value}:")
        self.item.emit(source, item, indent + 1)

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, list):
            raise _wrong(self, value, path, section)
        if not self.min_len <= len(value) <= self.max_len:
            raise _wrong(self, value, path, section, f"array of {len(value)} items")
        for i, item in enumerate(value):
            self.item.check(item, f"{path}[{i}]", section)

    def describe(self) -> str:
        return f"array of {self.min_len}..{self.max_len} ({self.item.describe()})"


@dataclass(frozen=True)
class Tuple(_Generated):
    """A fixed-length array whose items have their own kinds (e.g. ``[seq, hash]``)."""

    items: tuple[Kind, ...]

    @property
    def depth(self) -> int:
        return 1 + max((kind.depth for kind in self.items), default=0)

    def emit(self, source: _Source, value: str, indent: int) -> None:
        source.fail_if(indent, f"type({value}) is not list or len({value}) != {len(self.items)}")
        names = [source.name() for _ in self.items]
        source.line(indent, f"{', '.join(names)}, = {value}")
        for name, kind in zip(names, self.items):
            kind.emit(source, name, indent)

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, list) or len(value) != len(self.items):
            raise _wrong(self, value, path, section)
        for i, (item, kind) in enumerate(zip(value, self.items)):
            kind.check(item, f"{path}[{i}]", section)

    def describe(self) -> str:
        return "[" + ", ".join(k.describe() for k in self.items) + "]"


@dataclass(frozen=True)
class Optional:
    """A field that may be absent (it is never nil: absence is the only way to omit)."""

    kind: Kind

    @cached_property
    def valid(self) -> Callable[[Any], bool]:
        return self.kind.valid

    @property
    def depth(self) -> int:
        return self.kind.depth

    def emit(self, source: _Source, value: str, indent: int) -> None:
        self.kind.emit(source, value, indent)

    def check(self, value: Any, path: str, section: str) -> None:
        self.kind.check(value, path, section)

    def describe(self) -> str:
        return f"absent or {self.kind.describe()}"


def _check_fields(fields: Mapping[str, Kind], value: Any, path: str, section: str, skip: frozenset[str]) -> None:
    for name, value_kind in fields.items():
        if name in value:
            value_kind.check(value[name], f"{path}.{name}" if path else name, section)
        elif not isinstance(value_kind, Optional):
            where = f"{path}.{name}" if path else name
            raise SchemaError(section, where, value_kind.describe(), "nothing (field missing)")
    for name in value:
        if name not in fields and name not in skip:
            where = f"{path}.{name}" if path else name
            raise SchemaError(section, where, "no such field", f"unknown field {name!r}")


@dataclass(frozen=True)
class Record(_Generated):
    """A nested map with declared fields (same unknown-field policy as a message)."""

    fields: Mapping[str, Kind]

    @property
    def depth(self) -> int:
        return 1 + max((kind.depth for kind in self.fields.values()), default=0)

    def emit(self, source: _Source, value: str, indent: int) -> None:
        source.fail_if(indent, f"type({value}) is not dict")
        source.fields(self.fields, value, 0, indent)

    def check(self, value: Any, path: str, section: str) -> None:
        if not isinstance(value, dict):
            raise _wrong(self, value, path, section)
        _check_fields(self.fields, value, path, section, frozenset())

    def describe(self) -> str:
        return "map with fields " + ", ".join(self.fields)


_ENVELOPE = frozenset({"type", "v"})


@dataclass(frozen=True)
class Message:
    """The schema of one message type at one version, and the section defining it."""

    type: str
    v: int
    section: str
    fields: Mapping[str, Kind] = field(default_factory=dict)
    sections: Mapping[str, str] = field(default_factory=dict)  # a field defined elsewhere -> its section (§7.1 header)

    def __post_init__(self) -> None:
        for name in self.fields:
            if name in _ENVELOPE:
                raise ValueError(f"schema {self.type} redeclares envelope field {name!r}")

    @cached_property
    def depth(self) -> int:
        """How deep the containers of a matching frame nest (the frame's map is 1, §4.3)."""
        return 1 + max((kind.depth for kind in self.fields.values()), default=0)

    @cached_property
    def valid(self) -> Callable[[Any], bool]:
        """The fast path: True if `frame` (a decoded map with ``type`` and ``v``) matches."""
        source = _Source()
        source.fail_if(1, "type(v0) is not dict")
        source.fields(self.fields, "v0", 2, 1)
        return source.function()

    def check(self, frame: Mapping[str, Any]) -> None:
        """Raise `SchemaError` unless `frame` (which has ``type`` and ``v``) matches."""
        if self.valid(frame):
            return
        try:
            _check_fields(self.fields, frame, "", self.section, _ENVELOPE)
        except SchemaError as exc:
            section = self.sections.get(_FIELD.match(exc.field).group(), exc.section)  # type: ignore[union-attr]
            raise SchemaError(section, f"{self.type}.{exc.field}", exc.expected, exc.got) from None


_FIELD = re.compile(r"[^.\[]*")
"""A field path's first name: the message's own field it lies in."""


class Schemas:
    """A registry of message schemas, keyed by (type, v). Not shared: each link stack
    builds its own, so registrations never leak between tables or tests."""

    def __init__(self, *messages: Message) -> None:
        self._by_key: dict[tuple[str, int], Message] = {}
        self._versions: dict[str, set[int]] = {}
        for message in messages:
            self.register(message)

    def register(self, message: Message) -> None:
        key = (message.type, message.v)
        if key in self._by_key and self._by_key[key] != message:
            raise ValueError(f"message {message.type} v{message.v} is already registered differently")
        self._by_key[key] = message
        self._versions.setdefault(message.type, set()).add(message.v)

    def __contains__(self, key: tuple[str, int]) -> bool:
        return key in self._by_key

    def types(self) -> frozenset[str]:
        return frozenset(self._versions)

    def check(self, frame: Mapping[str, Any], *, tree: Limits | None = None) -> Mapping[str, Any]:
        """`frame` itself when it matches its schema; else a specific `ProtocolError`.

        `tree`: the frame was decoded without its §4.3 type and nesting check
        (`decode(..., tree=False)`), to be made here under these limits. A frame that
        matches a schema no deeper than the limits passes it by construction (every kind
        takes exact msgpack types), so only a frame that fails is walked, and a §4.3
        fault is reported before the schema's verdict, as decoding would have."""
        kind, version = frame.get("type"), frame.get("v")
        if type(kind) is str and type(version) is int:  # (the usual case: what decoding makes)
            schema = self._by_key.get((kind, version))
            if schema is not None and (tree is None or schema.depth <= tree.max_depth) and schema.valid(frame):
                return frame
        if tree is not None:  # (a §4.3 fault is reported first, as decoding would have)
            check_tree(frame, tree)
        if not isinstance(kind, str) or not isinstance(version, int) or isinstance(version, bool):
            raise ProtocolError("§4.3", "a message needs 'type' (str) and 'v' (int)")
        schema = self._by_key.get((kind, version))
        if schema is None:
            if kind in self._versions:
                known = ", ".join(str(v) for v in sorted(self._versions[kind]))
                raise ProtocolError("§4.4", f"message type {kind!r} version {version} is not supported (supported: {known})")
            raise ProtocolError("§4.4", f"unknown message type {kind[:64]!r}")
        schema.check(frame)
        return frame


PEER_ID = Bin(size=32)
NONCE = Bin(size=32)
SIGNATURE = Bin(size=64)
