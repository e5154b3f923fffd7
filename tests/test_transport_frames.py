"""§4.2–§4.4: the sans-I/O frame decoder and the schema checker, by example and by hypothesis."""

from __future__ import annotations

import re
import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.errors import ProtocolError, SchemaError
from p2p.schema import Bin, Bool, Int, ListOf, Message, OneOf, Optional, Record, Schemas, Str, _check_fields
from p2p.wire import FrameDecoder, Limits, decode, decode_map, encode, encode_frame, frame_bytes

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=20) | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
messages = st.fixed_dictionaries({"type": st.text(min_size=1, max_size=10), "v": st.integers(0, 5)},
                                 optional={"x": values, "y": values})


@settings(deadline=None)  # (a loaded machine pauses; the verdict is not a time)
@given(st.lists(messages, min_size=1, max_size=5), st.data())
def test_frames_round_trip_whatever_the_chunking(msgs: list[dict], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(m) for m in msgs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    decoder, out, last = FrameDecoder(), [], 0
    for cut in [*cuts, len(stream)]:
        decoder.feed(stream[last:cut])
        out.extend(decoder)
        last = cut
    decoder.close()
    assert out == [decode(encode(m)) for m in msgs]


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_give_frames_or_protocol_errors_only(blob: bytes) -> None:
    decoder = FrameDecoder(Limits(max_frame=1000))
    try:
        decoder.feed(blob)
        list(decoder)
        decoder.close()
    except ProtocolError as exc:
        assert exc.section in {"§4.2", "§4.3"}


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=100))
def test_arbitrary_payloads_decode_or_fail_typed(payload: bytes) -> None:
    try:
        decode_map(payload)
    except ProtocolError:
        pass


@settings(deadline=None)  # (a loaded machine pauses; the verdict is not a time)
@given(values)
def test_encoding_is_canonical(value: object) -> None:
    assert encode(decode(encode(value))) == encode(value)


def test_limits_are_enforced() -> None:
    with pytest.raises(ProtocolError, match="exceeds the limit"):
        FrameDecoder().feed(struct.pack(">I", (1 << 20) + 1))
    with pytest.raises(ProtocolError, match="empty frame"):
        FrameDecoder().feed(struct.pack(">I", 0))
    deep: object = 1
    for _ in range(9):
        deep = [deep]
    with pytest.raises(ProtocolError, match="nesting deeper than 8"):
        decode_map(encode({"type": "t", "v": 1, "x": deep}))
    with pytest.raises(ProtocolError, match="4096"):
        decode(encode(list(range(4097))))
    with pytest.raises(ProtocolError):
        decode(encode("x" * 4097))


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"\x81\x01\x02", "keys must be str"),
        (b"\x81\x91\x01\x02", r"map key \[1\] is array, keys must be str"),  # (not "unhashable type: 'list'")
        (b"\x82\xa1a\x01\xa1a\x02", "duplicate map key 'a'"),
        (b"\xcb" + bytes(8), "float values are not allowed"),
        # (in the words of §4.3, the msgpack library's after them)
        (b"\xd6\xff" + bytes(4), "^not a frame of the strict msgpack subset: an extension type; the msgpack library "
                                 "says: "),  # (the timestamp extension)
        (b"\xd4\x05\x00", "^not a frame of the strict msgpack subset: an extension type; the msgpack library says: "),
        (b"\xc1", "^not a frame of the strict msgpack subset: a byte that msgpack reserves, 0xc1, which starts no "
                  "value; the msgpack library says: FormatError$"),
        (b"\xa2\xff\xfe", "not valid UTF-8"),
        (b"\x01\x02", "left over"),
        (b"\x91", "^not a frame of the strict msgpack subset: the frame ends inside its value, cut short; "),
    ],
)
def test_strict_subset_violations_are_named(payload: bytes, reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode(payload)
    assert info.value.section == "§4.3" and re.search(reason, info.value.reason), info.value.reason


def test_a_frame_needs_type_and_version() -> None:
    with pytest.raises(ProtocolError, match="'type' must be str"):
        decode_map(encode({"v": 1}))
    with pytest.raises(ProtocolError, match="'v' must be int"):
        decode_map(encode({"type": "x", "v": "1"}))
    with pytest.raises(ProtocolError, match="a message is a map"):
        decode_map(encode([1]))


def test_a_broken_decoder_stays_broken() -> None:
    decoder = FrameDecoder(peer="ABCD")
    decoder.feed(frame_bytes(b"\xc1"))
    with pytest.raises(ProtocolError) as first:
        decoder.next_frame()
    assert first.value.peer == "ABCD"
    with pytest.raises(ProtocolError):
        decoder.feed(encode_frame({"type": "ok", "v": 1}))


def test_truncation_is_detected_at_close() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame({"type": "x", "v": 1})[:-1])
    assert decoder.next_frame() is None
    with pytest.raises(ProtocolError, match="stream ended inside a frame"):
        decoder.close()


# -- schemas ---------------------------------------------------------------------------

NOTE = Message("note", 1, "§9.1", {
    "n": Int(0, 10), "ok": Bool(), "who": Str(1, 5, printable=True), "h": Bin(size=4),
    "tags": ListOf(OneOf(frozenset({"a", "b"})), 0, 2), "at": Record({"x": Int(0, 3)}), "extra": Optional(Int()),
})
GOOD = {"type": "note", "v": 1, "n": 3, "ok": True, "who": "bo", "h": b"1234", "tags": ["a"], "at": {"x": 1}}


def test_a_good_message_passes_and_optional_fields_may_be_absent() -> None:
    schemas = Schemas(NOTE)
    assert schemas.check(GOOD) is GOOD
    schemas.check({**GOOD, "extra": 5})


@pytest.mark.parametrize(
    ("change", "field", "got"),
    [
        ({"n": 11}, "note.n", "11"),
        ({"n": True}, "note.n", "bool"),
        ({"ok": 1}, "note.ok", "int"),
        ({"who": "b\x00"}, "note.who", "control characters"),
        ({"h": "1234"}, "note.h", "str"),
        ({"h": b"123"}, "note.h", "bin of 3 bytes"),
        ({"tags": ["c"]}, "note.tags[0]", "'c'"),
        ({"tags": ["a", "a", "a"]}, "note.tags", "array of 3 items"),
        ({"at": {"x": 1, "y": 2}}, "note.at.y", "unknown field 'y'"),
        ({"zzz": 1}, "note.zzz", "unknown field 'zzz'"),
        ({"extra": None}, "note.extra", "nil"),
    ],
)
def test_schema_errors_name_field_expectation_and_value(change: dict, field: str, got: str) -> None:
    with pytest.raises(SchemaError) as info:
        Schemas(NOTE).check({**GOOD, **change})
    assert info.value.field == field and got in info.value.got and info.value.section == "§9.1"


def test_missing_unknown_and_unsupported() -> None:
    schemas = Schemas(NOTE)
    with pytest.raises(SchemaError, match="field missing"):
        schemas.check({k: v for k, v in GOOD.items() if k != "n"})
    with pytest.raises(ProtocolError, match="unknown message type 'nope'"):
        schemas.check({"type": "nope", "v": 1})
    with pytest.raises(ProtocolError, match=r"version 2 is not supported \(supported: 1\)"):
        schemas.check({**GOOD, "v": 2})
    with pytest.raises(ValueError):
        schemas.register(Message("note", 1, "§9.1", {}))  # a different schema under the same key
    with pytest.raises(ValueError):
        Message("bad", 1, "§9", {"type": Int()})


@settings(deadline=None, max_examples=200)
@given(st.dictionaries(st.sampled_from(sorted(GOOD) + ["zzz"]), values, max_size=9))
def test_schema_check_accepts_or_raises_typed(fields: dict) -> None:
    try:
        Schemas(NOTE).check({**fields, "type": "note", "v": 1})
    except ProtocolError:
        pass


KINDS = [Int(0, 10), Bool(), Str(1, 5, printable=True), Bin(size=4), Bin(min_len=1, max_len=3),
         ListOf(OneOf(frozenset({"a", "b"})), 0, 2), Record({"x": Int(0, 3), "y": Optional(Bool())}),
         ListOf(Record({"x": Int(0, 3)}), 1, 3)]


@settings(deadline=None, max_examples=400)
@given(st.sampled_from(KINDS), values | st.fixed_dictionaries({"x": values}, optional={"y": values}))
def test_the_fast_path_and_the_judge_agree_on_every_decoded_value(kind, value) -> None:  # type: ignore[no-untyped-def]
    """§4.4: `valid` (the good-frame fast path) accepts exactly what `check` accepts."""
    value = decode(encode(value))  # exactly the types a decoder produces
    try:
        kind.check(value, "f", "§9")
        judged = True
    except SchemaError:
        judged = False
    assert kind.valid(value) is judged


@settings(deadline=None, max_examples=300)
@given(st.dictionaries(st.sampled_from(sorted(GOOD) + ["zzz"]), values, max_size=9))
def test_a_message_fast_path_agrees_with_the_judge(fields: dict) -> None:
    """The generated fast path of a whole message (optional field, nested record, list)
    accepts exactly what the judge accepts."""
    frame = decode(encode({**GOOD, **fields, "type": "note", "v": 1}))
    fast = NOTE.valid(frame)
    try:
        _check_fields(NOTE.fields, frame, "", NOTE.section, frozenset({"type", "v"}))  # the judge alone
        judged = True
    except SchemaError:
        judged = False
    assert fast is judged
    try:
        NOTE.check(frame)
    except SchemaError as exc:  # the judge names the field (the fast path never raises)
        assert exc.field.startswith("note.")


@settings(deadline=None)  # (a loaded machine pauses; the verdict is not a time)
@given(st.dictionaries(st.text(max_size=6), st.integers(0, 9), max_size=8))
def test_4_3_map_keys_are_encoded_in_utf8_byte_order(value: dict[str, int]) -> None:
    decoded = msgpack.unpackb(encode(value), raw=False)
    assert list(decoded) == sorted(value, key=lambda key: key.encode("utf-8"))


def test_4_3_a_tuple_encodes_as_the_array_of_its_items() -> None:
    assert encode({"h": ((1, b"\x00" * 32), [2, b"x"])}) == encode({"h": [[1, b"\x00" * 32], [2, b"x"]]})


def test_a_map_packed_as_it_is_must_be_canonical_already() -> None:
    """`pack_canonical` skips `encode`'s walk (a signed frame is built in canonical form):
    it packs a canonical map as `encode` does, and a map whose keys are out of order, or
    anything but a map, is a mistake it does not pack."""
    from p2p.wire import pack_canonical

    frame = {"body": b"x", "sig": b"s" * 64, "type": "signed", "v": 1}
    assert pack_canonical(frame) == encode(frame)
    for wrong in ({"v": 1, "type": "signed"}, [1, 2]):
        with pytest.raises(AssertionError):
            pack_canonical(wrong)  # type: ignore[arg-type]


FLOAT = msgpack.packb(1.5)


@pytest.mark.parametrize(
    "payload",
    [
        b"\x83\xa4type\xa4note\xa1v\x01\xa4text" + FLOAT,  # a float where the schema wants str
        b"\x83\xa4type\xa7unknown\xa1v\x01\xa1x" + FLOAT,  # a float in a message of no known type
        b"\x83\xa4type\xa4note\xa1v\x01\xa1x" + b"\x91" * 9 + b"\x01",  # nested deeper than 8
        b"\x83\xa4type\xa4note\xa1v\x02\xa1x\x81\xa1y" + FLOAT,  # an unsupported version
    ],
)
def test_s4_3_a_link_s_frames_are_held_to_the_strict_subset_with_their_schema(payload: bytes) -> None:
    """A link decodes its frames' tree together with their schema check (one walk for a
    good frame): every §4.3 fault is found, and named first, as strict decoding does."""
    decoder = FrameDecoder(tree=False)
    decoder.feed(frame_bytes(payload))
    frame = decoder.next_frame()
    with pytest.raises(ProtocolError) as strict:
        decode_map(payload)
    with pytest.raises(ProtocolError) as linked:
        Schemas(NOTE).check(frame, tree=Limits())
    assert (linked.value.section, linked.value.reason) == (strict.value.section, strict.value.reason)


def test_s4_3_an_encoding_that_failed_leaves_nothing_behind() -> None:
    """Every encoding shares one packer: one that failed halfway (an int beyond 64 bits)
    leaves no bytes of it in the next."""
    with pytest.raises(OverflowError):
        encode({"a": [1, 1 << 70]})
    assert encode({"a": 1}) == b"\x81\xa1a\x01"
    assert encode({"b": b"x" * 70000, "a": 1})[:4] == b"\x82\xa1a\x01"
    assert encode({"a": 2}) == b"\x81\xa1a\x02"


def _sorted_tree(value: object) -> object:
    """The canonical form of §4.3 spelled out: every map's keys in UTF-8 byte order."""
    if isinstance(value, dict):
        return {key: _sorted_tree(value[key]) for key in sorted(value, key=lambda k: k.encode())}
    if isinstance(value, (list, tuple)):
        return [_sorted_tree(item) for item in value]
    return value


@settings(deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=6) | st.binary(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=30,
))
def test_s4_3_encoding_is_canonical_at_every_depth(value: object) -> None:
    assert encode(value) == msgpack.packb(_sorted_tree(value), use_bin_type=True)
