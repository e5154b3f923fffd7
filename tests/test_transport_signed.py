"""§4.5: signed messages, and the one signature a receiver may check later: an ack on its
signer's own authenticated link (taken on the link's word until it is evidence)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from pathlib import Path

import msgpack
import pytest

from p2p.errors import ProtocolError
from p2p.identity import load_or_create_identity, short_id
from p2p.peer import table_schemas
from p2p.signing import SIGNED_DOMAIN, SignedMessage, encoded_frame, open_signed, sign, signed_frame, signed_message
from p2p.transport import LINK_AUTHENTICATED, Received, open_mesh
from p2p.wire import Limits, encode, encode_frame


def ack_of(identity, forged: bool = False):  # type: ignore[no-untyped-def]
    inner = {"type": "ack", "v": 1, "from": identity.peer_id, "game": bytes(32), "lamport": 7, "last": [-1, bytes(32)],
             "heads": [[-1, bytes(32)]], "slast": [-1, bytes(32)], "sides": [[-1, bytes(32)]], "away": []}
    body, sig = sign(identity, inner)
    return signed_frame(body, bytes(64) if forged else sig)


def test_s4_5_an_ack_on_its_signer_s_link_is_verified_when_it_matters(tmp_path: Path) -> None:
    a, b = load_or_create_identity(tmp_path / "a"), load_or_create_identity(tmp_path / "b")
    keys = {p.peer_id: p.certificate.public_key for p in (a, b)}
    schemas = table_schemas()
    good = open_signed(ack_of(a), keys, schemas, link=a.peer_id, link_authenticated=LINK_AUTHENTICATED)
    forged = open_signed(ack_of(a, forged=True), keys, schemas, link=a.peer_id, link_authenticated=LINK_AUTHENTICATED)
    assert not good.verified and good.verify(keys)  # deferred, and sound when checked
    assert not forged.verified and not forged.verify(keys)  # deferred, and caught when checked
    assert not forged.verify({})  # an unknown signer never verifies


def test_s4_5_relayed_acks_and_all_other_messages_are_verified_at_once(tmp_path: Path) -> None:
    a, b = load_or_create_identity(tmp_path / "a"), load_or_create_identity(tmp_path / "b")
    keys = {p.peer_id: p.certificate.public_key for p in (a, b)}
    schemas = table_schemas()
    with pytest.raises(ProtocolError, match="bad signature on an 'ack' message"):  # relayed by b: no link's word
        open_signed(ack_of(a, forged=True), keys, schemas, link=b.peer_id, link_authenticated=LINK_AUTHENTICATED)
    with pytest.raises(ProtocolError, match="bad signature"):  # no deferral asked for
        open_signed(ack_of(a, forged=True), keys, schemas)
    note = {"type": "leave", "v": 1, "from": a.peer_id, "game": bytes(32), "lamport": 1, "seq": 0, "prev": bytes(32),
            "heads": [[-1, bytes(32)]], "reason": "bye"}
    body, _ = sign(a, note)
    with pytest.raises(ProtocolError, match="bad signature on a 'leave' message"):  # content: never deferred
        open_signed(signed_frame(body, bytes(64)), keys, schemas, link=a.peer_id, link_authenticated=LINK_AUTHENTICATED)
    assert open_signed(ack_of(a), keys, schemas).verified


def test_s4_5_a_sender_id_unpinned_though_its_short_form_is_a_pinned_peer_s_is_told_in_full(tmp_path: Path) -> None:
    """A sender id changed past its first 10 bytes reads, in short, as a pinned peer's
    (§3.2): the refusal gives it in full and says it is not that peer's."""
    a, b = load_or_create_identity(tmp_path / "a"), load_or_create_identity(tmp_path / "b")
    keys = {p.peer_id: p.certificate.public_key for p in (a, b)}
    stranger = load_or_create_identity(tmp_path / "s").peer_id
    for sender, said in ((a.peer_id[:31] + bytes([a.peer_id[31] ^ 1]), None), (stranger, short_id(stranger))):
        note = {"type": "leave", "v": 1, "from": sender, "game": bytes(32), "lamport": 1, "seq": 0,
                "prev": bytes(32), "heads": [[-1, bytes(32)]], "reason": "bye"}
        with pytest.raises(ProtocolError) as refused:  # (refused before its signature is read)
            open_signed(signed_frame(encode(note), bytes(64)), keys, table_schemas())
        words = str(refused.value)
        if said is None:
            assert sender.hex() in words and f"not {short_id(a.peer_id)}'s peer id" in words, words
        else:
            assert f"signed by {said}, who is not a pinned peer" in words, words


def test_s4_3_a_signed_body_is_held_to_the_strict_subset_when_its_schema_does_not_match(tmp_path: Path) -> None:
    """The inner body's §4.3 types and nesting are checked with its schema (a body that
    matches a schema is strict by construction): a float, or nesting past the limit,
    is still refused as §4.3, before the schema's own verdict."""
    a = load_or_create_identity(tmp_path / "a")
    keys = {a.peer_id: a.certificate.public_key}
    schemas = table_schemas()
    ack = {"type": "ack", "v": 1, "from": a.peer_id, "game": bytes(32), "lamport": 7, "last": [-1, bytes(32)],
           "heads": [[-1, bytes(32)]], "slast": [-1, bytes(32)], "sides": [[-1, bytes(32)]], "away": []}
    deep: list = []
    for _ in range(9):
        deep = [deep]
    for bad, why in (({"lamport": 7.5}, "float values are not allowed"), ({"heads": deep}, "nesting deeper than 8")):
        body = msgpack.packb({**ack, **bad}, use_bin_type=True)  # (our encoder refuses to write these)
        sig = a.sign(SIGNED_DOMAIN + body)
        with pytest.raises(ProtocolError, match=why) as caught:
            open_signed(signed_frame(body, sig), keys, schemas)
        assert caught.value.section == "§4.3"
    body, sig = sign(a, {**ack, "lamport": -1})  # strict, but not what the schema allows
    with pytest.raises(ProtocolError) as caught:
        open_signed(signed_frame(body, sig), keys, schemas)
    assert caught.value.section != "§4.3" and "lamport" in str(caught.value)


@pytest.mark.parametrize(("sseq", "taken"), [(0, True), ((1 << 62) - 1, True), (1 << 62, False), (-1, False)])
def test_s9_5_a_snap_s_seen_takes_an_sseq_only_within_the_bound_of_s7_8(tmp_path: Path, sseq: int, taken: bool) -> None:
    """Each `seen` entry names a side message by its `sseq`, which §7.8 bounds 0 ≤ n < 2⁶²:
    the snap's schema takes the same, not 2⁶² (no side message has it)."""
    from p2p.order.header import SIDE_HEADER

    a = load_or_create_identity(tmp_path / "a")
    snap = {"type": "snap", "v": 1, "from": a.peer_id, "game": bytes(32), "lamport": 7, "seq": 3, "prev": bytes(32),
            "heads": [[-1, bytes(32)]], "round": 1, "top": 9, "owner": 1, "slot": 2, "seen": [[1, sseq, bytes(32)]]}
    schemas = table_schemas()
    if taken:
        assert schemas.check(snap) is snap
    else:
        with pytest.raises(ProtocolError, match="seen"):
            schemas.check(snap)
    assert SIDE_HEADER["sseq"].max == (1 << 62) - 1  # type: ignore[attr-defined]  (the side header's own bound)


def test_s4_4_every_table_schema_nests_within_the_frame_limit() -> None:
    """What lets a matching schema stand for the §4.3 tree check (`Schemas.check`)."""
    from p2p.wire import DEFAULT_LIMITS

    schemas = table_schemas()
    assert all(schemas._by_key[key].depth <= DEFAULT_LIMITS.max_depth for key in schemas._by_key)  # noqa: SLF001


@pytest.mark.parametrize("size", [1, 31, 32, 255, 256, 65535, 65536])
def test_s4_2_a_signed_message_s_frame_is_encoded_once_as_encode_frame_would(tmp_path: Path, size: int) -> None:
    a = load_or_create_identity(tmp_path / "a")
    message = signed_message(a, {"type": "ack", "v": 1, "from": a.peer_id, "pad": bytes(size)})
    assert message.wire == encode_frame(message.frame())  # (canonical: the same bytes, every length form)
    assert message.wire is message.wire  # made once, however often it is sent
    assert encoded_frame(bytearray(message.body), message.sig) == message.wire


async def test_s4_2_a_mesh_refuses_to_send_an_encoded_frame_no_peer_would_take(tmp_path: Path) -> None:
    a = load_or_create_identity(tmp_path / "a")
    async with open_mesh(a, table_schemas(), bind="127.0.0.1", limits=Limits(max_frame=100)) as mesh:
        message = signed_message(a, {"type": "ack", "v": 1, "from": a.peer_id, "pad": bytes(100)})
        with pytest.raises(ValueError, match="exceeds the 100-byte limit"):
            mesh.broadcast_frame(message.wire)
        with pytest.raises(ValueError, match="exceeds the 100-byte limit"):
            mesh.send_frame(bytes(32), message.wire)


def test_s4_5_a_signed_message_and_its_arrival_are_frozen_values() -> None:
    message = SignedMessage(b"a" * 32, {"type": "ack"}, b"body", b"s" * 64)
    same = SignedMessage(sender=b"a" * 32, inner={"type": "ack"}, body=b"body", sig=b"s" * 64, verified=True)
    assert message == same and message.verified and message.type == "ack"
    assert message != SignedMessage(b"a" * 32, {"type": "ack"}, b"body", b"s" * 64, False)
    with pytest.raises(FrozenInstanceError):
        message.body = b"other"  # type: ignore[misc]
    assert message.wire == same.wire and message == same  # (its encoded frame, kept, is no field)
    assert repr(message).startswith("SignedMessage(sender=b'aaaa")
    arrival = Received(b"p" * 32, message)
    assert arrival == Received(peer=b"p" * 32, message=same) and arrival.type == "ack"
    with pytest.raises(FrozenInstanceError):
        arrival.peer = b"q" * 32  # type: ignore[misc]
