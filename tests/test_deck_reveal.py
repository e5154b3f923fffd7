"""§8.5: reveals — shares with Chaum–Pedersen proofs, checked on receipt and attributed."""

from __future__ import annotations

from dataclasses import replace

import msgpack
import pytest
from deck_support import TORSION8, peer, record_unproven, table
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.deck import (
    CardShares,
    InvalidPoint,
    InvalidProof,
    MalformedMessage,
    ProtocolViolation,
    Reveal,
    SealedShare,
    Share,
    UsageError,
    make_sealed_share,
    make_share,
    unseal,
    verify_round_opening,
    verify_sealed_share,
    verify_share,
)
from p2p.deck.group import IDENTITY, G, L, add, mul, sub
from p2p.deck.shuffle import ShuffleChain


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 6), seed=st.binary(min_size=1, max_size=8), data=st.data())
def test_8_5_every_card_is_recovered(n: int, seed: bytes, data: st.DataObject) -> None:
    t = table(n, seed)
    chain, openings = t.shuffle(round=1)
    order = verify_round_opening([chain], openings)[chain.chain_id]
    deck = chain.deck()
    audiences = data.draw(st.lists(st.sampled_from((None,) + t.game.seats), min_size=50, max_size=50))
    assert [t.reveal(deck, p, a) for p, a in enumerate(audiences)] == list(order)


@pytest.fixture(scope="module")
def dealt():
    t = table(4, b"reveal")
    chain, openings = t.shuffle(1)
    return t, chain.deck(), verify_round_opening([chain], openings)[chain.chain_id]


@pytest.mark.parametrize("n", [2, 3, 6])
def test_8_5_all_but_the_recipient_cannot_finish_a_private_reveal(n: int) -> None:
    t = table(n, b"coalition")
    chain, openings = t.shuffle(1)
    order = verify_round_opening([chain], openings)[chain.chain_id]
    deck = chain.deck()
    recipient = t.game.seats[-1]
    coalition = [p for p in t.game.seats if p != recipient]
    position = 5
    c = deck.ciphertexts[position]
    wire = [make_share(t.keys[p], deck, position, t.source).to_wire() for p in coalition]
    reveal = Reveal(deck, position, recipient)
    for p, w in zip(coalition, wire, strict=True):
        reveal.receive(p, Share.from_wire(msgpack.unpackb(msgpack.packb(w)), p))
    assert reveal.complete
    # Everything the coalition holds: every public share and every coalition secret.
    known = IDENTITY
    for p in coalition:
        known = add(known, mul(t.keys[p].secret, c.c1))
    assert known == _sum(reveal.shares.values())
    best_guess = sub(c.c2, known)
    assert deck.index_of(best_guess) is None  # decrypts to no card: x_R·c1 is missing
    missing = mul(t.keys[recipient].secret, c.c1)
    assert sub(best_guess, missing) == t.game.card_points[order[position]]
    # The recipient's share never travels, not even as part of another field.
    packed = msgpack.packb(wire)
    assert missing not in packed
    # Only the recipient's keys finish it.
    for p in coalition:
        with pytest.raises(UsageError):
            reveal.card(t.keys[p])
    with pytest.raises(UsageError):
        reveal.card()
    assert reveal.card(t.keys[recipient]) == order[position]


def _sum(points) -> bytes:
    total = IDENTITY
    for p in points:
        total = add(total, p)
    return total


def test_8_5_a_wrong_share_is_caught_and_attributed(dealt) -> None:
    t, deck, _ = dealt
    share = make_share(t.keys[peer(1)], deck, 3, t.source)
    wrong = replace(share, share=add(share.share, G))  # a valid point, but not x·c1
    reveal = Reveal(deck, 3)
    with pytest.raises(InvalidProof) as e:
        reveal.receive(peer(1), wrong)
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.5", "chaum-pedersen", peer(1))
    assert reveal.missing == deck.joint.game.seats
    reveal.receive(peer(1), share)  # the honest share still goes in afterwards
    assert peer(1) not in reveal.missing


@pytest.mark.parametrize("field", ["e", "s"])
def test_8_5_a_wrong_proof_is_caught_and_attributed(dealt, field: str) -> None:
    t, deck, _ = dealt
    share = make_share(t.keys[peer(2)], deck, 3, t.source)
    value = getattr(share.proof, field)
    bumped = ((int.from_bytes(value, "little") + 1) % L).to_bytes(32, "little")
    with pytest.raises(InvalidProof) as e:
        verify_share(deck, peer(2), replace(share, proof=replace(share.proof, **{field: bumped})))
    assert e.value.peer == peer(2)


def test_8_5_a_proof_for_another_card_or_peer_fails(dealt) -> None:
    t, deck, _ = dealt
    share = make_share(t.keys[peer(0)], deck, 3, t.source)
    with pytest.raises(InvalidProof) as e:  # relabelled for another position
        verify_share(deck, peer(0), replace(share, position=4))
    assert e.value.peer == peer(0)
    with pytest.raises(InvalidProof) as e:  # replayed by another peer
        verify_share(deck, peer(1), share)
    assert e.value.peer == peer(1)
    with pytest.raises(ProtocolViolation) as e:  # sent to the reveal of another card
        Reveal(deck, 4).receive(peer(0), share)
    assert (e.value.check, e.value.peer) == ("wrong-card", peer(0))
    with pytest.raises(ProtocolViolation) as e:
        verify_share(deck, peer(0), replace(share, chain=bytes(32)))
    assert e.value.check == "wrong-card"
    with pytest.raises(ProtocolViolation) as e:
        verify_share(deck, peer(0), replace(share, position=50))
    assert e.value.check == "wrong-card"
    with pytest.raises(ProtocolViolation) as e:
        verify_share(deck, peer(9), share)
    assert e.value.check == "unknown-peer"


def test_8_5_a_share_proof_is_bound_to_its_chain(dealt) -> None:
    """A later round's deck where a cheating shuffler copied a c1 verbatim: the share of it
    is the same point, but a proof made for the earlier chain does not verify for it."""
    t, deck, _ = dealt
    share = make_share(t.keys[peer(1)], deck, 12, t.source)
    later = _deck_with_copied_c1(t, deck, 12, round=2)
    assert later.ciphertexts[12].c1 == deck.ciphertexts[12].c1
    with pytest.raises(InvalidProof) as e:
        verify_share(later, peer(1), replace(share, chain=later.chain))
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.5", "chaum-pedersen", peer(1))
    verify_share(later, peer(1), make_share(t.keys[peer(1)], later, 12, t.source))


@pytest.mark.parametrize("bad", ["torsion", "identity", "off-curve"])
def test_8_5_an_invalid_share_point_is_caught_and_attributed(dealt, bad: str) -> None:
    t, deck, _ = dealt
    share = make_share(t.keys[peer(3)], deck, 8, t.source)
    point = {"torsion": add(share.share, TORSION8), "identity": IDENTITY, "off-curve": b"\x02" * 32}[bad]
    with pytest.raises(InvalidPoint) as e:
        Reveal(deck, 8).receive(peer(3), replace(share, share=point))
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.5", "share-point", peer(3))


def test_8_5_duplicates_and_the_recipients_own_share_are_refused(dealt) -> None:
    t, deck, order = dealt
    reveal = Reveal(deck, 9, peer(0))
    assert reveal.expected == (peer(1), peer(2), peer(3))
    with pytest.raises(ProtocolViolation) as e:
        reveal.receive(peer(0), make_share(t.keys[peer(0)], deck, 9, t.source))
    assert (e.value.check, e.value.peer) == ("own-share-published", peer(0))
    s1 = make_share(t.keys[peer(1)], deck, 9, t.source)
    reveal.receive(peer(1), s1)
    with pytest.raises(ProtocolViolation) as e:
        reveal.receive(peer(1), s1)
    assert e.value.check == "duplicate-share"
    with pytest.raises(UsageError):
        reveal.card(t.keys[peer(0)])
    assert reveal.missing == (peer(2), peer(3))


def test_8_5_shares_of_a_private_reveal_serve_a_later_public_one(dealt) -> None:
    t, deck, order = dealt
    private = Reveal(deck, 11, peer(2))
    shares = {p: make_share(t.keys[p], deck, 11, t.source) for p in deck.joint.game.seats}
    for p in private.expected:
        private.receive(p, shares[p])
    assert private.card(t.keys[peer(2)]) == order[11]
    public = Reveal(deck, 11)
    for p in deck.joint.game.seats:
        public.receive(p, shares[p])
    assert public.card() == order[11]


def test_8_5_usage_errors(dealt) -> None:
    t, deck, _ = dealt
    for position in (-1, 50, True):
        with pytest.raises(UsageError):
            Reveal(deck, position)
        with pytest.raises(UsageError):
            make_share(t.keys[peer(0)], deck, position, t.source)
    with pytest.raises(UsageError):
        Reveal(deck, 0, peer(9))
    other = table(4, b"other game")
    with pytest.raises(UsageError):
        make_share(other.keys[peer(0)], deck, 0, t.source)
    with pytest.raises(UsageError):
        make_share(table(5, b"bigger table").keys[peer(4)], deck, 0, t.source)
    private = Reveal(deck, 0, peer(0))
    for p in private.expected:
        private.receive(p, make_share(t.keys[p], deck, 0, t.source))
    with pytest.raises(UsageError):  # the recipient's seat, but keys of another game
        private.card(other.keys[peer(0)])
    assert private.card(t.keys[peer(0)]) == dealt[2][0]


def test_8_5_share_wire_form_is_strict(dealt) -> None:
    t, deck, _ = dealt
    wire = make_share(t.keys[peer(0)], deck, 3, t.source).to_wire()
    assert set(wire) == {"chain", "position", "share", "e", "s"}
    for bad in [
        {**wire, "position": 4096},
        {**wire, "position": 3.0},
        {**wire, "share": wire["share"][1:]},
        {**wire, "e": L.to_bytes(32, "little")},
        {**wire, "s": bytearray(wire["s"])},
        {**wire, 1: 2},
        None,
    ]:
        with pytest.raises(MalformedMessage) as e:
            Share.from_wire(bad, peer(0))
        assert e.value.peer == peer(0)


def test_8_5_a_share_proven_ahead_is_still_placed_and_its_chain_checked(dealt) -> None:
    """`proven=True` (a share whose proof was checked as it arrived, before its reveal
    opened) skips only the proof: a share of another deck, position or a seat that owes
    nothing is refused as before."""
    t, deck, _ = dealt
    share = make_share(t.keys[peer(1)], deck, 3, t.source)
    with pytest.raises(ProtocolViolation) as e:
        Reveal(deck, 3).receive(peer(1), replace(share, chain=bytes(32)), proven=True)
    assert e.value.check == "wrong-card"
    with pytest.raises(ProtocolViolation) as e:
        Reveal(deck, 4).receive(peer(1), share, proven=True)
    assert e.value.check == "wrong-card"
    with pytest.raises(ProtocolViolation) as e:
        Reveal(deck, 3, audience=peer(1)).receive(peer(1), share, proven=True)
    assert e.value.check == "own-share-published"
    reveal = Reveal(deck, 3)
    reveal.receive(peer(1), share, proven=True)
    assert reveal.shares == {peer(1): share.share}


# -- sealed shares (§8.5): seat 0 was shown a card, seat 1 is shown it next -------------


def _shown_to_seat_0(t, deck, position: int) -> CardShares:
    """The share plan of `position` once seat 0 alone was shown it: only seat 0's share is hidden."""
    plan = CardShares(deck, position)
    first = Reveal(deck, position, peer(0), plan)
    for p in first.expected:
        first.receive(p, make_share(t.keys[p], deck, position, t.source))
    assert plan.hidden == (peer(0),)
    return plan


def test_8_5_a_sealed_share_opens_only_for_its_recipient(dealt) -> None:
    t, deck, order = dealt
    plan = _shown_to_seat_0(t, deck, 20)
    reveal = Reveal(deck, 20, peer(1), plan)
    assert (reveal.plain_from, reveal.sealed_from) == ((), (peer(0),))
    sealed = make_sealed_share(t.keys[peer(0)], deck, 20, peer(1), t.source)
    reveal.receive(peer(0), SealedShare.from_wire(msgpack.unpackb(msgpack.packb(sealed.to_wire())), peer(0)))
    assert reveal.card(t.keys[peer(1)]) == order[20]
    share_0 = mul(t.keys[peer(0)].secret, deck.ciphertexts[20].c1)
    assert unseal(t.keys[peer(1)], sealed) == share_0
    for p in (peer(2), peer(3)):  # every other seat, its own key in hand, gets a useless point
        assert unseal(t.keys[p], sealed) != share_0
    assert share_0 not in msgpack.packb(sealed.to_wire())


def test_8_5_a_sealed_share_shown_to_another_audience_fails(dealt) -> None:
    """Seat 0's share sealed to seat 1, presented where the audience is seat 2: the proof
    names seat 1's key, so seat 2's reveal refuses it and blames its sealer."""
    t, deck, _ = dealt
    plan = _shown_to_seat_0(t, deck, 21)
    sealed = make_sealed_share(t.keys[peer(0)], deck, 21, peer(1), t.source)
    verify_sealed_share(deck, peer(0), peer(1), sealed)
    with pytest.raises(InvalidProof) as e:
        verify_sealed_share(deck, peer(0), peer(2), sealed)
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.5", "seal", peer(0))
    reveal = Reveal(deck, 21, peer(2), plan)
    with pytest.raises(InvalidProof) as e:
        reveal.receive(peer(0), sealed)
    assert (e.value.check, e.value.peer) == ("seal", peer(0))
    assert reveal.missing == (peer(0),)
    reveal.receive(peer(0), make_sealed_share(t.keys[peer(0)], deck, 21, peer(2), t.source))
    assert reveal.complete


def test_8_5_a_sealed_share_replayed_for_another_card_sender_or_round_fails(dealt) -> None:
    t, deck, _ = dealt
    sealed = make_sealed_share(t.keys[peer(0)], deck, 22, peer(1), t.source)
    with pytest.raises(InvalidProof) as e:  # relabelled for another position
        verify_sealed_share(deck, peer(0), peer(1), replace(sealed, position=23))
    assert (e.value.check, e.value.peer) == ("seal", peer(0))
    with pytest.raises(InvalidProof) as e:  # passed off by another seat as its own
        verify_sealed_share(deck, peer(2), peer(1), sealed)
    assert (e.value.check, e.value.peer) == ("seal", peer(2))
    with pytest.raises(ProtocolViolation) as e:  # for a chain that is not this deck's
        verify_sealed_share(deck, peer(0), peer(1), replace(sealed, chain=bytes(32)))
    assert (e.value.check, e.value.peer) == ("wrong-card", peer(0))
    # Round 2's deal where the last shuffler copied position 22's c1 verbatim to its own
    # position 22 (another chain, so no receipt check compares them): the sealed statement
    # is the same, only the chain differs, and the proof is bound to the chain.
    later = _deck_with_copied_c1(t, deck, 22, round=2)
    with pytest.raises(InvalidProof) as e:
        verify_sealed_share(later, peer(0), peer(1), replace(sealed, chain=later.chain))
    assert (e.value.check, e.value.peer) == ("seal", peer(0))


@pytest.mark.parametrize("field", ["e", "s", "r"])
def test_8_5_a_tampered_seal_proof_fails(dealt, field: str) -> None:
    t, deck, _ = dealt
    sealed = make_sealed_share(t.keys[peer(3)], deck, 24, peer(1), t.source)
    value = getattr(sealed.proof, field)
    bumped = ((int.from_bytes(value, "little") + 1) % L).to_bytes(32, "little")
    with pytest.raises(InvalidProof) as e:
        verify_sealed_share(deck, peer(3), peer(1), replace(sealed, proof=replace(sealed.proof, **{field: bumped})))
    assert (e.value.check, e.value.peer) == ("seal", peer(3))
    wire = {**sealed.to_wire(), field: (int.from_bytes(value, "little") + L).to_bytes(32, "little")}
    with pytest.raises(MalformedMessage) as e:  # the same scalar, not reduced: refused as it is read
        SealedShare.from_wire(wire, peer(3))
    assert (e.value.check, e.value.peer) == ("scalar", peer(3))


def test_8_5_a_sealed_share_with_its_points_swapped_or_shifted_fails(dealt) -> None:
    t, deck, _ = dealt
    sealed = make_sealed_share(t.keys[peer(3)], deck, 25, peer(2), t.source)
    for forged in (
        replace(sealed, u=sealed.v, v=sealed.u),
        replace(sealed, v=add(sealed.v, G)),  # seals x·c1 + G: a share that opens no card
        replace(sealed, u=add(sealed.u, G), v=add(sealed.v, deck.joint.key_of(peer(2)))),  # re-randomized
    ):
        with pytest.raises(InvalidProof) as e:
            verify_sealed_share(deck, peer(3), peer(2), forged)
        assert (e.value.check, e.value.peer) == ("seal", peer(3))


@pytest.mark.parametrize("which", ["u", "v"])
@pytest.mark.parametrize("bad", ["mixed-order", "small-order", "identity", "non-canonical", "off-curve"])
def test_8_5_an_invalid_sealed_point_is_caught_and_attributed(dealt, which: str, bad: str) -> None:
    t, deck, _ = dealt
    sealed = make_sealed_share(t.keys[peer(2)], deck, 26, peer(0), t.source)
    point = {
        "mixed-order": add(getattr(sealed, which), TORSION8),
        "small-order": TORSION8,
        "identity": IDENTITY,
        "non-canonical": b"\xee" + b"\xff" * 30 + b"\x7f",  # y = p + 1: the identity, encoded out of range
        "off-curve": b"\x02" * 32,
    }[bad]
    with pytest.raises(InvalidPoint) as e:
        verify_sealed_share(deck, peer(2), peer(0), replace(sealed, **{which: point}))
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.5", "sealed-point", peer(2))


def _deck_with_copied_c1(t, deck, position: int, round: int):
    """The final deck of a chain of `round` whose last step put `deck`'s c1 at `position`
    verbatim at the same position (a cheat its proof cannot cover, refused on receipt, §8.4;
    recorded regardless, since here only the deck matters)."""
    chain = ShuffleChain(t.joint, round)
    for p in t.game.seats[:-1]:
        step, _ = chain.make_step(p, t.source)
        chain.receive(p, step)
    last = t.game.seats[-1]
    step, _ = chain.make_step(last, t.source)
    cards = list(step.deck)
    cards[position] = replace(cards[position], c1=deck.ciphertexts[position].c1)
    record_unproven(chain, last, replace(step, deck=tuple(cards)))
    return chain.deck()
