"""protocol.md's test vectors (§3.4, §4.5, §6.3, §6.6) are re-derived byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p.admission import code_key, host_proof, join_transcript, joiner_proof
from p2p.roster import (
    Member, Roster, TableRules, game_id_of, parse_canonical, roster_signature_valid, sign_roster,
)
from p2p.signing import open_signed, sign, signed_frame
from p2p.schema import PEER_ID, Message, Str
from p2p.transport import link_schemas
from p2p.wire import FrameDecoder, encode_frame
from vectors_support import fixed_identity, protocol_vectors

VECTORS = protocol_vectors()


def h(name: str, field: str) -> bytes:
    return bytes.fromhex(VECTORS[name][field])


@pytest.fixture
def ids(tmp_path: Path):  # type: ignore[no-untyped-def]
    return fixed_identity(1, tmp_path / "a"), fixed_identity(2, tmp_path / "b")


def test_protocol_md_has_every_vector() -> None:
    assert {"identity-a", "identity-b", "signed-message", "join", "roster", "rules"} <= set(VECTORS)


def test_identity_vectors(ids) -> None:  # type: ignore[no-untyped-def]
    for ident, name in zip(ids, ("identity-a", "identity-b")):
        assert ident.certificate.der == h(name, "cert")
        assert ident.peer_id == h(name, "peer_id")
        assert ident.short == VECTORS[name]["short"]
    assert ids[0].certificate.public_key == h("identity-a", "public_key")


def test_signed_message_vector(ids) -> None:  # type: ignore[no-untyped-def]
    a = ids[0]
    body, sig = sign(a, {"type": "test.note", "v": 1, "from": a.peer_id, "text": "snap!"})
    assert body == h("signed-message", "body") and sig == h("signed-message", "sig")
    assert encode_frame(signed_frame(body, sig)) == h("signed-message", "frame")
    decoder = FrameDecoder()
    decoder.feed(h("signed-message", "frame"))
    frame = decoder.next_frame()
    assert frame is not None
    schemas = link_schemas(Message("test.note", 1, "§9", {"from": PEER_ID, "text": Str()}))
    opened = open_signed(frame, {a.peer_id: a.certificate.public_key}, schemas)
    assert opened.sender == a.peer_id and opened.inner["text"] == "snap!"


def test_join_vector(ids) -> None:  # type: ignore[no-untyped-def]
    a, b = ids
    v = VECTORS["join"]
    t = join_transcript(v["table"], a.peer_id, b.peer_id, h("join", "host_nonce"), h("join", "joiner_nonce"))
    assert t == h("join", "transcript")
    assert b.sign(t) == h("join", "join_sig") and b.certificate.verify(h("join", "join_sig"), t)
    k = code_key(v["code"], a.peer_id, v["table"])
    assert k == h("join", "code_key")
    assert joiner_proof(k, t) == h("join", "joiner_proof") and host_proof(k, t) == h("join", "host_proof")
    assert code_key("  sesame ", a.peer_id, v["table"]) == k  # trimmed
    assert code_key("Sesame", a.peer_id, v["table"]) != k


def test_roster_vector(ids) -> None:  # type: ignore[no-untyped-def]
    """The roster is built from the vector's own input lines (its table, rules and
    members), so a changed input line fails as a changed output does."""
    a, b = ids
    v = VECTORS["roster"]
    n1, n2 = bytes([0x11]) * 32, bytes([0x22]) * 32
    assert v["members"] == "identity-a alice (seat 0, nonce 11…11), identity-b bob (seat 1, nonce 22…22)"
    rules = TableRules()
    assert v["rules"] == (f'default (target {rules.target}, turn_s {rules.turn_s}, peek_s {rules.peek_s}, '
                          f'skills "{rules.skills_text}")')
    roster = Roster(v["table"], n1, 2, (Member(0, "alice", a.certificate, n1), Member(1, "bob", b.certificate, n2)),
                    rules=rules)
    r = roster.canonical()
    assert r == h("roster", "roster")
    assert game_id_of(r) == h("roster", "game_id")
    assert sign_roster(a, r) == h("roster", "roster_sig_a") and sign_roster(b, r) == h("roster", "roster_sig_b")
    assert roster_signature_valid(b.certificate, r, h("roster", "roster_sig_b"))
    assert not roster_signature_valid(a.certificate, r, h("roster", "roster_sig_b"))
    assert parse_canonical(r).members[1].name == "bob"
    assert parse_canonical(r).rules == roster.rules


def test_rules_vector() -> None:
    """§6.8: `grace_s` is in the rules only when it is not 120, so the R of a table that
    keeps the default is what it was before the field existed; rules that carry 120 are
    not canonical, and an R holding them is refused."""
    from p2p.errors import ProtocolError
    from p2p.wire import encode

    v = VECTORS["rules"]
    assert encode(TableRules().to_wire()) == bytes.fromhex(v["default"])
    assert encode(TableRules(grace_s=300).to_wire()) == bytes.fromhex(v["grace_s_300"])
    assert TableRules.from_wire(TableRules(grace_s=300).to_wire()) == TableRules(grace_s=300)
    r = VECTORS["roster"]["roster"].replace(" ", "")
    assert parse_canonical(bytes.fromhex(r)).rules.grace_s == 120
    import msgpack

    doc = msgpack.unpackb(bytes.fromhex(r), raw=False)
    doc["rules"]["grace_s"] = 120
    with pytest.raises(ProtocolError):
        parse_canonical(encode(doc))
