"""§4.5: signed messages, and the one signature a receiver may check later: an ack on its
signer's own authenticated link (taken on the link's word until it is evidence)."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p.errors import ProtocolError
from p2p.identity import load_or_create_identity
from p2p.peer import table_schemas
from p2p.signing import open_signed, sign, signed_frame
from p2p.transport import LINK_AUTHENTICATED


def ack_of(identity, forged: bool = False):  # type: ignore[no-untyped-def]
    inner = {"type": "ack", "v": 1, "from": identity.peer_id, "game": bytes(32), "lamport": 7, "last": [-1, bytes(32)],
             "heads": [[-1, bytes(32)]], "slast": [-1, bytes(32)], "sides": [[-1, bytes(32)]]}
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
    with pytest.raises(ProtocolError, match="bad signature on a 'ack' message"):  # relayed by b: no link's word
        open_signed(ack_of(a, forged=True), keys, schemas, link=b.peer_id, link_authenticated=LINK_AUTHENTICATED)
    with pytest.raises(ProtocolError, match="bad signature"):  # no deferral asked for
        open_signed(ack_of(a, forged=True), keys, schemas)
    note = {"type": "leave", "v": 1, "from": a.peer_id, "game": bytes(32), "lamport": 1, "seq": 0, "prev": bytes(32),
            "heads": [[-1, bytes(32)]], "reason": "bye"}
    body, _ = sign(a, note)
    with pytest.raises(ProtocolError, match="bad signature on a 'leave' message"):  # content: never deferred
        open_signed(signed_frame(body, bytes(64)), keys, schemas, link=a.peer_id, link_authenticated=LINK_AUTHENTICATED)
    assert open_signed(ack_of(a), keys, schemas).verified
