"""Wire encoding: the strict msgpack subset (§2, §4.3) and length-prefixed frames (§4.2).

Theory of operation
-------------------
A frame is a 4-byte big-endian length followed by exactly that many bytes holding one
msgpack map. Everything a peer sends goes through `encode_frame`; everything it receives
goes through a `FrameDecoder`, a sans-I/O object: feed it bytes as they arrive, pull
complete frames out. It never blocks and never does I/O, so the same code serves the
live transport, the tests and the fuzzer.

Decoding is strict, because every byte may come from a hostile machine:

* limits first: a length prefix above `Limits.max_frame` is rejected as soon as its four
  bytes arrive, before any payload is buffered; str/bin lengths, container sizes and
  nesting depth are bounded too;
* the msgpack subset: nil, bool, int, str (valid UTF-8), bin, array, map; no float, no
  extension types (timestamps included); str and bin are distinct; map keys are str and
  unique; one object per frame, no trailing bytes;
* every frame is a map with ``type`` (str) and ``v`` (int); the per-type schema check is
  the next layer's job (`p2p.schema`).

A decoder that saw bad input stays broken: it raises the same `ProtocolError` again, so
a caller cannot accidentally resynchronise on attacker-chosen bytes.

`encode` is canonical (map keys sorted by their UTF-8 bytes, shortest integer forms), so
hashes over encodings (the game id, §6.6) are well defined.
"""

from __future__ import annotations

import io
import re
import struct
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

import msgpack

from p2p.errors import ProtocolError

HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds on what a peer may send (§4.2, §4.3)."""

    max_frame: int = MAX_FRAME  # payload bytes, excluding the 4-byte length
    max_depth: int = 8  # containers nested inside the frame map (the frame map is depth 1)
    max_items: int = 4096  # elements of one array, or pairs of one map
    max_str: int = 4096  # bytes of UTF-8 in one str
    max_bin: int = MAX_FRAME  # bytes in one bin


DEFAULT_LIMITS = Limits()


class _Rejected(Exception):
    """Raised inside msgpack callbacks; turned into a ProtocolError by `decode`."""

    def __init__(self, section: str, reason: str) -> None:
        super().__init__(reason)
        self.section = section
        self.reason = reason


def _pairs_to_map(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    try:
        out = dict(pairs)
    except TypeError:  # (an array or map as a key: told below, as any key that is not str)
        out = {}
    if len(out) == len(pairs):
        for key in out:  # (a loop: every map of every frame passes here)
            if type(key) is not str:
                break
        else:
            return out
    seen: set[Any] = set()  # say exactly what is wrong
    for key, _ in pairs:
        if not isinstance(key, str):
            raise _Rejected("§4.3", f"map key {key!r} is {kind_of(key)}, keys must be str")
        if key in seen:
            raise _Rejected("§4.3", f"duplicate map key {key!r}")
        seen.add(key)
    return out


def _no_ext(code: int, data: bytes) -> Any:
    raise _Rejected("§4.3", f"msgpack extension type {code} is not allowed")


def kind_of(value: Any) -> str:
    """The msgpack kind name of a decoded value, for error messages."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "str"
    if isinstance(value, bytes):
        return "bin"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, float):
        return "float"
    return type(value).__name__


_LEAVES = frozenset({str, bytes, int, bool, type(None)})  # the types msgpack decodes scalars to


def _check_tree(value: Any, depth: int, limit: int) -> None:
    """Depth and type check of a decoded tree (maps were already checked for keys)."""
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list:
        items = value
    elif kind in _LEAVES:
        return
    else:
        raise _Rejected("§4.3", f"{kind_of(value)} values are not allowed")
    if depth > limit:
        raise _Rejected("§4.3", f"nesting deeper than {limit} levels")
    for item in items:
        if type(item) not in _LEAVES:
            _check_tree(item, depth + 1, limit)


def decode(payload: bytes, limits: Limits = DEFAULT_LIMITS, *, tree: bool = True) -> Any:
    """One value in the strict msgpack subset (§4.3); raises ProtocolError. With
    ``tree=False`` the types and nesting below the top are left to the caller
    (`check_tree`, or a schema that implies them: see `Schemas.check`)."""
    try:
        value = msgpack.unpackb(
            payload,
            raw=False,
            use_list=True,
            strict_map_key=False,  # checked by _pairs_to_map, with a specific message
            object_pairs_hook=_pairs_to_map,
            ext_hook=_no_ext,
            max_str_len=limits.max_str,
            max_bin_len=limits.max_bin,
            max_array_len=limits.max_items,
            max_map_len=limits.max_items,
            max_ext_len=0,
        )
    except _Rejected as exc:
        raise ProtocolError(exc.section, exc.reason) from None
    except msgpack.ExtraData:
        raise ProtocolError("§4.3", "bytes left over after the msgpack value") from None
    except UnicodeDecodeError:
        raise ProtocolError("§4.3", "str is not valid UTF-8") from None
    except msgpack.StackError:
        raise ProtocolError("§4.3", f"nesting deeper than {limits.max_depth} levels") from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as exc:
        # msgpack reports limit overruns, truncation and reserved bytes as ValueError.
        raise ProtocolError("§4.3", f"not a frame of the strict msgpack subset: {_unpack_fault(exc, limits)}"
                                    f"; the msgpack library says: {str(exc) or type(exc).__name__}") from None
    if tree:
        check_tree(value, limits)
    return value


_OVERRUN = re.compile(r"(\d+) exceeds max_(ext|str|bin|array|map)_len")


def _unpack_fault(exc: BaseException, limits: Limits) -> str:
    """What the msgpack library refused, in the words of §4.3."""
    overrun = _OVERRUN.search(str(exc))
    if overrun is not None:
        size, kind = overrun.groups()
        return {"ext": "an extension type",
                "str": f"a str of {size} bytes, over the limit of {limits.max_str}",
                "bin": f"a bin of {size} bytes, over the limit of {limits.max_bin}",
                "array": f"an array of {size} elements, over the limit of {limits.max_items}",
                "map": f"a map of {size} pairs, over the limit of {limits.max_items}"}[kind]
    if "incomplete input" in str(exc):
        return "the frame ends inside its value, cut short"
    if isinstance(exc, msgpack.FormatError):
        return "a byte that msgpack reserves, 0xc1, which starts no value"
    return "bytes that are no msgpack value"


def check_tree(value: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """The §4.3 types and nesting of a decoded value; raises ProtocolError."""
    try:
        _check_tree(value, 1, limits.max_depth)
    except _Rejected as exc:
        raise ProtocolError(exc.section, exc.reason) from None


def decode_map(payload: bytes, limits: Limits = DEFAULT_LIMITS, *, tree: bool = True) -> dict[str, Any]:
    """A message map: decoded strictly, with `type` (str) and `v` (int) present (§4.3)."""
    value = decode(payload, limits, tree=tree)
    if type(value) is not dict:  # (decoding makes exact types)
        raise ProtocolError("§4.3", f"a message is a map, got {kind_of(value)}")
    kind = value.get("type")
    if type(kind) is not str:
        raise ProtocolError("§4.3", f"field 'type' must be str, got {kind_of(kind) if 'type' in value else 'nothing'}")
    version = value.get("v")
    if type(version) is not int:
        raise ProtocolError("§4.3", f"field 'v' must be int, got {kind_of(version) if 'v' in value else 'nothing'}")
    return value


def _canonical(value: Any) -> Any:
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list or kind is tuple:
        for item in value:
            if type(item) not in _LEAVES:
                if type(item) is list:  # (an array of arrays of plain values, as heads are, is taken as it is)
                    for each in item:
                        if type(each) not in _LEAVES:
                            break
                    else:
                        continue
                return [item if type(item) in _LEAVES else _canonical(item) for item in value]
        return value  # (msgpack packs a tuple as an array too)
    if kind is dict:
        keys = list(value)
        for key in keys:
            if type(key) is not str:
                break
        else:  # plain str keys: code-point order is UTF-8 byte order
            keys.sort()
            out = {}
            for key in keys:
                item = value[key]
                if type(item) is list:  # (an array of plain values, as most are, is taken as it is)
                    for each in item:
                        if type(each) not in _LEAVES:
                            item = _canonical(item)
                            break
                elif type(item) not in _LEAVES:
                    item = _canonical(item)
                out[key] = item
            return out
    if isinstance(value, Mapping):
        items = []
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"map key {key!r} is not str")
            items.append((key.encode("utf-8"), key))
        items.sort()
        return {key: _canonical(value[key]) for _, key in items}
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if isinstance(value, (bytes, str, int)):
        return value  # (subclasses of the plain types)
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{type(value).__name__} cannot be encoded (strict msgpack subset, §2)")


_packers = threading.local()  # (one packer per thread: making one per call costs more than most messages' packing)


def pack_canonical(value: dict[str, Any]) -> bytes:
    """msgpack bytes of a map that is canonical already, packed as it is: what `encode`
    packs once it has made a value canonical, for a caller that builds such a map by
    hand where `encode`'s walk would cost (a signed frame, `p2p.signing.encoded_frame`).

    Precondition, not checked but for the keys' order (an assert): a plain dict whose
    str keys are in sorted order, of plain str, bytes, int, bool and None values, or
    lists of them (no float, no tuple, no subclass); anything else is packed wrong or
    not refused. Unsure? Use `encode`. Each thread packs with a packer of its own, which
    resets itself after each value, or an error."""
    assert type(value) is dict and list(value) == sorted(value), "pack_canonical takes a canonical map: use encode"
    return _pack(value)


def _pack(value: Any) -> bytes:
    """msgpack bytes of `value` as it is (see `pack_canonical`)."""
    try:
        packer = _packers.packer
    except AttributeError:
        packer = _packers.packer = msgpack.Packer(use_bin_type=True)
    return packer.pack(value)


def encode(value: Any) -> bytes:
    """Canonical strict-msgpack bytes of `value` (keys sorted; str and bin distinct)."""
    return _pack(_canonical(value))


def frame_bytes(payload: bytes) -> bytes:
    """The length prefix and payload of one frame (§4.2)."""
    return HEADER.pack(len(payload)) + payload


def encode_frame(message: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """A complete frame for `message`; refuses to send what a peer would reject."""
    payload = encode(message)
    if len(payload) > limits.max_frame:
        raise ValueError(f"frame of {len(payload)} bytes exceeds the {limits.max_frame}-byte limit (§4.2)")
    return frame_bytes(payload)


class FrameDecoder:
    """Sans-I/O frame splitter and strict decoder (§4.2, §4.3).

    ``feed(data)`` appends received bytes; ``next_frame()`` returns the next decoded
    message map, or None when no complete frame is buffered; ``close()`` checks that the
    stream did not end inside a frame. Any violation raises `ProtocolError` (with `peer`
    set) and leaves the decoder broken.
    """

    def __init__(self, limits: Limits = DEFAULT_LIMITS, peer: str | None = None, *, tree: bool = True) -> None:
        """`tree=False`: each frame's types and nesting below its top are left to the
        caller, who checks its schema with them (`Schemas.check(frame, tree=limits)`)."""
        self.limits = limits
        self.peer = peer
        self.tree = tree
        self._buffer = bytearray()
        self._needed: int | None = None
        self._error: ProtocolError | None = None

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def _fail(self, error: ProtocolError) -> ProtocolError:
        self._error = error.with_peer(self.peer) if self.peer else error
        return self._error

    def feed(self, data: bytes) -> None:
        if self._error is not None:
            raise self._error
        self._buffer += data
        self._read_header()

    def _read_header(self) -> None:
        if self._needed is None and len(self._buffer) >= HEADER.size:
            self._header()

    def _header(self) -> int:
        """The length of the next frame, from its prefix (which has come), checked."""
        (length,) = HEADER.unpack_from(self._buffer)
        if length > self.limits.max_frame:
            raise self._fail(ProtocolError("§4.2", f"frame length {length} exceeds the limit of {self.limits.max_frame} bytes"))
        if length == 0:
            raise self._fail(ProtocolError("§4.2", "empty frame (length 0)"))
        self._needed = length
        return length

    def next_frame(self) -> dict[str, Any] | None:
        if self._error is not None:
            raise self._error
        needed = self._needed
        if needed is None:
            if len(self._buffer) < HEADER.size:  # (the usual case once a burst is taken)
                return None
            needed = self._header()
        end = HEADER.size + needed
        if len(self._buffer) < end:
            return None
        payload = bytes(self._buffer[HEADER.size : end])
        del self._buffer[:end]
        self._needed = None
        try:
            return decode_map(payload, self.limits, tree=self.tree)
        except ProtocolError as exc:
            raise self._fail(exc) from None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        while (frame := self.next_frame()) is not None:
            yield frame

    def close(self) -> None:
        """The byte stream ended: fine between frames, a violation inside one."""
        if self._error is not None:
            raise self._error
        if self._buffer:
            have = len(self._buffer)
            want = f"{HEADER.size + self._needed} bytes" if self._needed is not None else "a 4-byte length"
            raise self._fail(ProtocolError("§4.2", f"stream ended inside a frame ({have} bytes of {want})"))


def split_frames(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Iterator[tuple[int, bytes | None]]:
    """(offset, payload) of each §4.2 frame of a file's bytes (see `read_frames`)."""
    return read_frames(io.BytesIO(data), limits)


def read_frames(source: BinaryIO, limits: Limits = DEFAULT_LIMITS) -> Iterator[tuple[int, bytes | None]]:
    """(offset, payload) of each §4.2 frame read from `source`, one frame at a time (a
    file is never read whole: a bad frame is found where it is); payload None for a last
    frame cut short (a crash while writing). A frame longer than `limits` allows is a
    §4.2 error, raised before its payload is read."""
    offset = 0
    while prefix := source.read(4):
        if len(prefix) < 4:
            yield offset, None
            return
        length = int.from_bytes(prefix, "big")
        if length > limits.max_frame:
            raise ProtocolError("§4.2", f"frame at byte {offset} claims {length} bytes, more than a frame may hold here")
        payload = source.read(length)
        if len(payload) < length:
            yield offset, None
            return
        yield offset, payload
        offset += 4 + length
