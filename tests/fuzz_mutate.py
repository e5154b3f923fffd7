"""Mutations of valid inputs: structure-aware (msgpack trees, frame streams, TXT
records) and byte-level, driven by any `random.Random` (a seeded one in the fuzz
script, hypothesis' in the property tests, so failures shrink).

Structure-aware mutation keeps an input mostly well-formed so it gets past the outer
layers and reaches the validators behind them: a field deleted, retyped, resized,
bit-flipped, renamed, duplicated, swapped with another, or replaced by the same field
of another message; a `bin` that itself holds msgpack (a signed body, a canonical
roster) is mutated inside and re-encoded. Byte-level mutation (bit flips, interesting
bytes, inserted, deleted, duplicated and spliced ranges) covers everything else.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from p2p.errors import ProtocolError
from p2p.wire import HEADER, decode, encode

INTERESTING_INTS = (
    0, 1, -1, 2, 3, 5, 6, 7, 15, 16, 17, 31, 32, 33, 63, 64, 127, 128, 255, 256, 4095, 4096, 4097,
    65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**62 - 1, 2**62, 2**63 - 1, 2**64 - 1,
    -(2**31), -(2**31) - 1, -(2**63),
)
INTERESTING_LENGTHS = (0, 1, 2, 15, 16, 31, 32, 33, 63, 64, 65, 100, 4096, 4097)
INTERESTING_TEXT = (
    "", " ", "a", "\x00", "\x1b[2J", "\u202e", "é", "💥", "A" * 41, "B" * 4097, "lobby.hello", "signed",
    "ack", "shares", "snap", "turn", "peek", "0", "-1", "1e9", "00", "ff" * 32,
)
INTERESTING_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xCB, 0xD4, 0xD6, 0xD9, 0xDC, 0xDD, 0xDE, 0xDF, 0xFF)
MAX_BYTES = 1 << 16


class Codec(enum.Enum):
    """How a target's input is laid out, so structured mutation can take it apart."""

    MSGPACK = "msgpack"  # one msgpack value
    FRAMES = "frames"  # u32 length + msgpack map, repeated (§4.2, a link or a log file)
    TXT = "txt"  # DNS TXT strings: one length byte + "key=value", repeated
    BYTES = "bytes"  # no structure known


# -- taking inputs apart and putting them back ---------------------------------------------


def split_frames(data: bytes) -> list[Any] | None:
    """The decoded maps of a well-formed frame stream, or None."""
    out, offset = [], 0
    while offset < len(data):
        if len(data) - offset < HEADER.size:
            return None
        (length,) = HEADER.unpack_from(data, offset)
        payload = data[offset + HEADER.size : offset + HEADER.size + length]
        if len(payload) != length:
            return None
        try:
            out.append(decode(payload))
        except ProtocolError:
            return None
        offset += HEADER.size + length
    return out


def join_frames(values: Sequence[Any]) -> bytes:
    return b"".join(HEADER.pack(len(p)) + p for p in map(encode, values))


def split_txt(data: bytes) -> list[bytes] | None:
    out, offset = [], 0
    while offset < len(data):
        n = data[offset]
        entry = data[offset + 1 : offset + 1 + n]
        if len(entry) != n:
            return None
        out.append(entry)
        offset += 1 + n
    return out


def join_txt(entries: Sequence[bytes]) -> bytes:
    return b"".join(bytes([len(e[:255])]) + e[:255] for e in entries)


# -- the pool: realistic values to splice in ------------------------------------------------


@dataclass
class Pool:
    """Values seen in valid inputs, by the map key they were under (for splicing)."""

    by_key: dict[str, list[Any]] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    inputs: list[bytes] = field(default_factory=list)

    @classmethod
    def of(cls, seeds: Sequence[bytes], codec: Codec) -> Pool:
        pool = cls(inputs=list(seeds))
        for seed in seeds:
            for value in _values_of(seed, codec):
                pool._collect(value, 0)
        pool.keys = sorted(pool.by_key)
        return pool

    def _collect(self, value: Any, depth: int) -> None:
        if depth > 6:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                seen = self.by_key.setdefault(key, [])
                if len(seen) < 24 and item not in seen:
                    seen.append(item)
                self._collect(item, depth + 1)
        elif isinstance(value, list):
            for item in value[:8]:
                self._collect(item, depth + 1)
        elif isinstance(value, bytes):
            nested = _nested(value)
            if nested is not None:
                self._collect(nested, depth + 1)


def _values_of(data: bytes, codec: Codec) -> list[Any]:
    if codec is Codec.MSGPACK:
        try:
            return [decode(data)]
        except ProtocolError:
            return []
    if codec is Codec.FRAMES:
        return split_frames(data) or []
    return []


def _nested(value: bytes) -> Any | None:
    """A bin that holds a msgpack map (a signed body, a roster), decoded; else None."""
    if not value or not 0x80 <= value[0] <= 0x8F and value[0] not in (0xDE, 0xDF):
        return None
    try:
        return decode(value)
    except ProtocolError:
        return None


# -- structured mutation of msgpack trees -------------------------------------------------


Slot = tuple[Any, Any]  # (container, key or index); (None, None) is the root


def _slots(value: Any, depth: int = 0) -> Iterator[tuple[Slot, Any]]:
    yield (None, None), value
    yield from _inner_slots(value, depth)


def _inner_slots(value: Any, depth: int) -> Iterator[tuple[Slot, Any]]:
    if depth > 10:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield (value, key), item
            yield from _inner_slots(item, depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield (value, i), item
            yield from _inner_slots(item, depth + 1)


class TreeMutator:
    """Applies one random structural change to a decoded msgpack tree (in place,
    returning the new root)."""

    def __init__(self, rng: random.Random, pool: Pool) -> None:
        self.rng = rng
        self.pool = pool
        self.ops: tuple[Callable[[Any, Slot, Any], Any], ...] = (
            self._delete, self._retype, self._resize, self._flip, self._tweak_int, self._add_field,
            self._rename, self._swap, self._splice, self._nest, self._nested_msgpack, self._duplicate,
        )
        self.weights = (10, 10, 10, 12, 12, 6, 4, 5, 12, 2, 8, 4)

    def mutate(self, root: Any) -> Any:
        slots = list(_slots(root))
        slot, value = self.rng.choice(slots)
        op = self.rng.choices(self.ops, self.weights)[0]
        return op(root, slot, value)

    # each op: (root, slot of the chosen node, the node) -> new root

    def _put(self, root: Any, slot: Slot, new: Any) -> Any:
        container, key = slot
        if container is None:
            return new
        container[key] = new
        return root

    def _delete(self, root: Any, slot: Slot, value: Any) -> Any:
        container, key = slot
        if container is None:
            return self._retype(root, slot, value)
        del container[key]
        return root

    def _random_value(self) -> Any:
        rng = self.rng
        kind = rng.randrange(8)
        if kind == 0:
            return None
        if kind == 1:
            return rng.random() < 0.5
        if kind == 2:
            return rng.choice(INTERESTING_INTS)
        if kind == 3:
            return rng.choice(INTERESTING_TEXT)
        if kind == 4:
            return rng.randbytes(rng.choice(INTERESTING_LENGTHS[:12]))
        if kind == 5:
            return [rng.choice(INTERESTING_INTS) for _ in range(rng.randrange(4))]
        if kind == 6:
            return {rng.choice(self.pool.keys or ["x"]): rng.choice(INTERESTING_INTS)}
        return self._from_pool(None)

    def _from_pool(self, key: Any) -> Any:
        values = self.pool.by_key.get(key) if isinstance(key, str) else None
        if not values:
            if not self.pool.keys:
                return self.rng.choice(INTERESTING_INTS)
            values = self.pool.by_key[self.rng.choice(self.pool.keys)]
        return _copy(self.rng.choice(values))

    def _retype(self, root: Any, slot: Slot, value: Any) -> Any:
        return self._put(root, slot, self._random_value())

    def _resize(self, root: Any, slot: Slot, value: Any) -> Any:
        rng = self.rng
        if isinstance(value, bytes):
            n = rng.choice((*INTERESTING_LENGTHS, max(0, len(value) - 1), len(value) + 1, len(value) * 2, rng.randrange(len(value) + 2)))
            new: Any = (value * (n // max(len(value), 1) + 1))[:n] if value and rng.random() < 0.5 else value[:n] + rng.randbytes(max(0, n - len(value)))
        elif isinstance(value, str):
            n = rng.choice((0, 1, max(0, len(value) - 1), len(value) + 1, 24, 25, 40, 41, 64, 65, 201, 1001, 4097))
            new = (value + "x" * n)[:n]
        elif isinstance(value, list):
            n = rng.choice((0, 1, 2, max(0, len(value) - 1), len(value) + 1, 15, 16, 17, 65, 257))
            new = [_copy(value[i % len(value)]) for i in range(n)] if value else [self._random_value() for _ in range(min(n, 4))]
        elif isinstance(value, dict):
            new = dict(list(value.items())[: rng.randrange(len(value) + 1)])
        else:
            return self._tweak_int(root, slot, value)
        return self._put(root, slot, new)

    def _flip(self, root: Any, slot: Slot, value: Any) -> Any:
        rng = self.rng
        if isinstance(value, bytes) and value:
            data = bytearray(value)
            for _ in range(rng.choice((1, 1, 1, 2, 8))):
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
            return self._put(root, slot, bytes(data))
        if isinstance(value, str) and value:
            i = rng.randrange(len(value))
            char = chr(rng.choice((0, 7, 10, 27, 127, 0x85, 0xA0, 0x200B, 0x202E, ord(value[i]) ^ 1, rng.randrange(0x20, 0x2FFF))))
            return self._put(root, slot, value[:i] + char + value[i + 1 :])
        if isinstance(value, bool):
            return self._put(root, slot, not value)
        if isinstance(value, int):
            return self._put(root, slot, value ^ (1 << rng.randrange(64)))
        return self._retype(root, slot, value)

    def _tweak_int(self, root: Any, slot: Slot, value: Any) -> Any:
        rng = self.rng
        if isinstance(value, int) and not isinstance(value, bool):
            new = rng.choice((value + 1, value - 1, -value, value + rng.randrange(-16, 17), rng.choice(INTERESTING_INTS)))
            return self._put(root, slot, max(-(2**63), min(new, 2**64 - 1)))
        return self._put(root, slot, rng.choice(INTERESTING_INTS))

    def _add_field(self, root: Any, slot: Slot, value: Any) -> Any:
        target = value if isinstance(value, dict) else root if isinstance(root, dict) else None
        if target is None:
            if isinstance(value, list):
                value.insert(self.rng.randrange(len(value) + 1), self._random_value())
                return root
            return self._retype(root, slot, value)
        key = self.rng.choice(self.pool.keys) if self.pool.keys and self.rng.random() < 0.7 else self.rng.choice(INTERESTING_TEXT[:8])
        target[key] = self._from_pool(key)
        return root

    def _rename(self, root: Any, slot: Slot, value: Any) -> Any:
        container, key = slot
        if not isinstance(container, dict):
            return self._add_field(root, slot, value)
        new_key = self.rng.choice(self.pool.keys) if self.pool.keys else key + "_"
        del container[key]
        container[new_key] = value
        return root

    def _swap(self, root: Any, slot: Slot, value: Any) -> Any:
        others = [(s, v) for s, v in _inner_slots(root, 0) if s[0] is not None]
        if not others or slot[0] is None:
            return self._splice(root, slot, value)
        other_slot, other = self.rng.choice(others)
        if other is value or _contains(value, other) or _contains(other, value):
            return self._put(root, slot, _copy(other))
        self._put(root, slot, other)
        self._put(root, other_slot, value)
        return root

    def _splice(self, root: Any, slot: Slot, value: Any) -> Any:
        container, key = slot
        return self._put(root, slot, self._from_pool(key if isinstance(container, dict) else None))

    def _nest(self, root: Any, slot: Slot, value: Any) -> Any:
        new: Any = value
        for _ in range(self.rng.choice((1, 2, 8, 12))):
            new = [new] if self.rng.random() < 0.5 else {"x": new}
        return self._put(root, slot, new)

    def _nested_msgpack(self, root: Any, slot: Slot, value: Any) -> Any:
        candidates = [(s, v) for s, v in _slots(root) if isinstance(v, bytes) and _nested(v) is not None]
        if not candidates:
            return self._flip(root, slot, value)
        inner_slot, blob = self.rng.choice(candidates)
        inner = _nested(blob)
        for _ in range(self.rng.choice((1, 1, 2, 3))):
            inner = self.mutate(inner)
        try:
            return self._put(root, inner_slot, encode(inner))
        except (TypeError, ValueError, OverflowError):
            return root

    def _duplicate(self, root: Any, slot: Slot, value: Any) -> Any:
        container, key = slot
        if isinstance(container, list):
            container.insert(key, _copy(value))
            return root
        return self._swap(root, slot, value)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _contains(tree: Any, node: Any) -> bool:
    return any(v is node for _, v in _inner_slots(tree, 0))


def _encode(value: Any, rng: random.Random) -> bytes | None:
    try:
        if rng.random() < 0.05:  # now and then a valid but not canonical encoding
            return msgpack.packb(value, use_bin_type=True)
        return encode(value)
    except (TypeError, ValueError, OverflowError):
        return None


# -- byte-level mutation --------------------------------------------------------------------


def mutate_bytes(data: bytes, rng: random.Random, pool: Pool) -> bytes:
    """One random byte-level change."""
    buf = bytearray(data)
    op = rng.randrange(9)
    if op == 0 and buf:
        i = rng.randrange(len(buf))
        buf[i] ^= 1 << rng.randrange(8)
    elif op == 1 and buf:
        buf[rng.randrange(len(buf))] = rng.choice(INTERESTING_BYTES)
    elif op == 2:
        i = rng.randrange(len(buf) + 1)
        buf[i:i] = rng.randbytes(rng.choice((1, 1, 2, 4, 8, 32)))
    elif op == 3 and buf:
        i = rng.randrange(len(buf))
        del buf[i : i + rng.choice((1, 1, 2, 4, 16, 64))]
    elif op == 4 and buf:
        i = rng.randrange(len(buf))
        piece = buf[i : i + rng.choice((1, 4, 16, 64))]
        j = rng.randrange(len(buf) + 1)
        buf[j:j] = piece
    elif op == 5 and buf:
        del buf[rng.randrange(len(buf)) :]
    elif op == 6 and pool.inputs:
        other = rng.choice(pool.inputs)
        cut, other_cut = rng.randrange(len(buf) + 1), rng.randrange(len(other) + 1)
        buf = buf[:cut] + other[other_cut:]
    elif op == 7 and len(buf) >= 4:
        i = rng.randrange(len(buf) - 3)
        buf[i : i + 4] = (rng.choice(INTERESTING_INTS) % 2**32).to_bytes(4, "big") if rng.random() < 0.5 else b"\xff\xff\xff\xff"
    else:
        i = rng.randrange(len(buf) + 1)
        buf[i:i] = bytes([rng.choice(INTERESTING_BYTES)])
    return bytes(buf[:MAX_BYTES])


# -- whole inputs ------------------------------------------------------------------------------


def mutate_structure(data: bytes, codec: Codec, rng: random.Random, pool: Pool, rounds: int) -> bytes | None:
    """`rounds` structural changes to `data`; None if it does not parse as `codec`."""
    if codec is Codec.MSGPACK:
        try:
            tree = decode(data)
        except ProtocolError:
            return None
        mutator = TreeMutator(rng, pool)
        for _ in range(rounds):
            tree = mutator.mutate(tree)
        return _encode(tree, rng)
    if codec is Codec.FRAMES:
        frames = split_frames(data)
        if frames is None:
            return None
        mutator = TreeMutator(rng, pool)
        for _ in range(rounds):
            choice = rng.randrange(10)
            if choice < 6 and frames:
                i = rng.randrange(len(frames))
                frames[i] = mutator.mutate(frames[i])
            elif choice == 6 and frames:
                del frames[rng.randrange(len(frames))]
            elif choice == 7 and frames:
                frames.insert(rng.randrange(len(frames) + 1), _copy(rng.choice(frames)))
            elif choice == 8 and len(frames) > 1:
                i, j = rng.randrange(len(frames)), rng.randrange(len(frames))
                frames[i], frames[j] = frames[j], frames[i]
            else:
                other = split_frames(rng.choice(pool.inputs)) if pool.inputs else None
                if other:
                    frames.insert(rng.randrange(len(frames) + 1), rng.choice(other))
        try:
            out = join_frames(frames)
        except (TypeError, ValueError, OverflowError):
            return None
        if rng.random() < 0.1 and out:  # cut the last frame short, as a crash would
            out = out[: rng.randrange(len(out))]
        return out
    if codec is Codec.TXT:
        entries = split_txt(data)
        if entries is None:
            return None
        for _ in range(rounds):
            entries = _mutate_txt(entries, rng)
        return join_txt(entries)
    return None


def _mutate_txt(entries: list[bytes], rng: random.Random) -> list[bytes]:
    choice = rng.randrange(6)
    if choice == 0 and entries:
        del entries[rng.randrange(len(entries))]
    elif choice == 1 and entries:
        entries.insert(rng.randrange(len(entries) + 1), rng.choice(entries))
    elif entries:
        i = rng.randrange(len(entries))
        key, eq, value = entries[i].partition(b"=")
        if choice == 2:
            value = rng.choice((b"", b"0", b"1", b"2", b"6", b"7", b"-1", b" 3", b"\xd9\xa3", b"9" * 5000, b"1_0",
                                b"ff" * 31, b"ff" * 33, b"zz" * 32, b"\x00", b"\xff\xfe", value * 2))
        elif choice == 3:
            key = rng.choice((b"table", b"host", b"seats", b"free", b"proto", b"fp", b"", b"TABLE", key + b"\x00"))
        elif choice == 4:
            eq = b"" if eq else b"="
        else:
            data = bytearray(value or b"x")
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            value = bytes(data)
        entries[i] = key + eq + value
    else:
        entries.append(b"table=x")
    return entries


def mutate(data: bytes, codec: Codec, rng: random.Random, pool: Pool) -> bytes:
    """A mutated copy of `data`: mostly structure-aware, sometimes byte-level."""
    rounds = rng.choice((1, 1, 1, 2, 2, 3, 4))
    if codec is not Codec.BYTES and rng.random() < 0.7:
        out = mutate_structure(data, codec, rng, pool, rounds)
        if out is not None:
            return out[:MAX_BYTES]
    for _ in range(rounds):
        data = mutate_bytes(data, rng, pool)
    return data

