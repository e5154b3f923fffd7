"""§8.3: per-game keys with Schnorr proofs, and the joint key."""

from __future__ import annotations

from dataclasses import replace

import pytest
from deck_support import TORSION8, game, peer
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.deck import (
    DeckKeys,
    InvalidPoint,
    InvalidProof,
    KeySetup,
    KeyShare,
    MalformedMessage,
    Proof,
    ProtocolViolation,
    SeededSource,
    UsageError,
)
from p2p.deck.group import IDENTITY, L, add, mul_base, sub


def keys_for(g, seed: bytes = b"k") -> dict[bytes, DeckKeys]:
    src = SeededSource(seed)
    return {p: DeckKeys.generate(g, p, src) for p in g.seats}


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 6), seed=st.binary(min_size=1, max_size=8))
def test_8_3_joint_key_is_the_sum_of_verified_keys(n: int, seed: bytes) -> None:
    g = game(n)
    keys = keys_for(g, seed)
    setup = KeySetup(g)
    src = SeededSource(seed + b"proofs")
    for p in reversed(g.seats):  # delivery order does not matter
        setup.receive(p, KeyShare.from_wire(keys[p].key_share(src).to_wire(), p))
    joint = setup.joint()
    total = 0
    for k in keys.values():
        total = (total + int.from_bytes(k.secret, "little")) % L
    assert joint.point == mul_base(total.to_bytes(32, "little"))
    assert joint.keys == tuple(keys[p].public for p in g.seats)
    assert all(joint.key_of(p) == keys[p].public for p in g.seats)


def test_8_3_a_key_proof_is_bound_to_its_peer() -> None:
    g = game(3)
    keys = keys_for(g)
    stolen = keys[peer(0)].key_share(SeededSource(b"n"))
    setup = KeySetup(g)
    with pytest.raises(InvalidProof) as e:
        setup.receive(peer(1), stolen)
    assert e.value.peer == peer(1) and e.value.section == "§8.3" and e.value.check == "schnorr"
    assert setup.missing == g.seats


def test_8_3_a_key_proof_is_bound_to_its_game() -> None:
    g1, g2 = game(2), game(2, game_id=b"another game")
    share = keys_for(g1)[peer(0)].key_share(SeededSource(b"n"))
    with pytest.raises(InvalidProof):
        KeySetup(g2).receive(peer(0), share)


def test_8_3_a_rogue_key_without_knowledge_fails() -> None:
    # X' = G − X_0 would cancel peer 0's key; nobody knows its discrete log, so any proof fails.
    g = game(2)
    honest = keys_for(g)[peer(0)]
    rogue = KeyShare(
        add(mul_base((1).to_bytes(32, "little")), sub(IDENTITY, honest.public)),
        honest.key_share(SeededSource(b"n")).proof,
    )
    with pytest.raises(InvalidProof) as e:
        KeySetup(g).receive(peer(1), rogue)
    assert e.value.peer == peer(1)


@pytest.mark.parametrize("field", ["e", "s"])
def test_8_3_a_tampered_proof_fails(field: str) -> None:
    g = game(2)
    share = keys_for(g)[peer(0)].key_share(SeededSource(b"n"))
    value = getattr(share.proof, field)
    bumped = ((int.from_bytes(value, "little") + 1) % L).to_bytes(32, "little")
    with pytest.raises(InvalidProof):
        KeySetup(g).receive(peer(0), replace(share, proof=replace(share.proof, **{field: bumped})))


@pytest.mark.parametrize(
    "bad", ["small-order", "identity", "off-curve", "mixed-order", "non-canonical"]
)
def test_8_3_an_invalid_key_point_is_refused_and_attributed(bad: str) -> None:
    g = game(2)
    keys = keys_for(g)[peer(0)]
    share = keys.key_share(SeededSource(b"n"))
    x = keys.public
    key = {
        "small-order": TORSION8,
        "identity": IDENTITY,
        "off-curve": b"\x02" * 32,
        "mixed-order": add(x, TORSION8),  # x·G + T: a proof of x still "explains" it up to the torsion part
        "non-canonical": b"\xee" + b"\xff" * 30 + b"\x7f",  # y = p + 1
    }[bad]
    setup = KeySetup(g)
    with pytest.raises(InvalidPoint) as e:
        setup.receive(peer(0), replace(share, key=key))
    assert (e.value.check, e.value.peer) == ("point", peer(0)) and "public key" in e.value.detail
    assert setup.missing == g.seats
    setup.receive(peer(0), share)  # nothing was recorded: the honest key still goes in


def test_8_3_a_key_copied_from_another_seat_with_a_fresh_proof_fails() -> None:
    """A seat that announces another seat's public key (so its shares would be that seat's,
    or to cancel it with a later key) cannot prove it knows the secret, whatever proof it
    makes up; only the copied seat's own proof verifies, and only for that seat."""
    g = game(3)
    keys = keys_for(g)
    victim = keys[peer(0)].public
    own = keys[peer(1)].key_share(SeededSource(b"n"))  # a valid proof, but of another key
    setup = KeySetup(g)
    setup.receive(peer(0), keys[peer(0)].key_share(SeededSource(b"n")))
    for forged in (KeyShare(victim, own.proof), KeyShare(sub(IDENTITY, victim), own.proof)):
        with pytest.raises(InvalidProof) as e:
            setup.receive(peer(1), forged)
        assert (e.value.section, e.value.check, e.value.peer) == ("§8.3", "schnorr", peer(1))
    assert setup.missing == (peer(1), peer(2))


def test_8_3_duplicate_and_unknown_senders() -> None:
    g = game(2)
    keys = keys_for(g)
    setup = KeySetup(g)
    setup.receive(peer(0), keys[peer(0)].key_share(SeededSource(b"n")))
    with pytest.raises(ProtocolViolation) as e:
        setup.receive(peer(0), keys[peer(0)].key_share(SeededSource(b"m")))
    assert e.value.check == "duplicate-key"
    with pytest.raises(ProtocolViolation) as e:
        setup.receive(peer(9), keys[peer(1)].key_share(SeededSource(b"n")))
    assert e.value.check == "unknown-peer" and e.value.peer == peer(9)
    assert setup.missing == (peer(1),)
    with pytest.raises(UsageError):
        setup.joint()


def test_8_3_keys_that_sum_to_the_identity_are_refused() -> None:
    # Only a coalition of every seat can do this (x_1 = −x_0); the proofs are valid.
    g = game(2)
    x0 = (12345).to_bytes(32, "little")
    x1 = (L - 12345).to_bytes(32, "little")
    setup = KeySetup(g)
    src = SeededSource(b"n")
    for p, x in [(peer(0), x0), (peer(1), x1)]:
        setup.receive(p, DeckKeys(g, p, x, mul_base(x)).key_share(src))
    with pytest.raises(ProtocolViolation) as e:
        setup.joint()
    assert e.value.check == "joint-key"


def test_8_3_wire_form_is_strict() -> None:
    g = game(2)
    wire = keys_for(g)[peer(0)].key_share(SeededSource(b"n")).to_wire()
    assert set(wire) == {"key", "e", "s"}
    for bad in [
        {**wire, "s": L.to_bytes(32, "little")},
        {**wire, "e": wire["e"][:31]},
        {**wire, "key": list(wire["key"])},
        {**wire, "extra": 1},
        {"key": wire["key"], "e": wire["e"]},
        [wire["key"], wire["e"], wire["s"]],
    ]:
        with pytest.raises(MalformedMessage) as e:
            KeyShare.from_wire(bad, peer(0))
        assert e.value.peer == peer(0) and e.value.section in ("§8.1", "§8.3")


def test_8_3_secret_never_shows_in_repr() -> None:
    k = keys_for(game(2))[peer(0)]
    assert k.secret.hex() not in repr(k) and k.public.hex() in repr(k)
    with pytest.raises(UsageError):
        DeckKeys.generate(game(2), peer(7), SeededSource(b"x"))
    assert isinstance(k.key_share(SeededSource(b"n")).proof, Proof)
