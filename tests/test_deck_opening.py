"""§8.7: the round opening re-derives every card and names any dishonest step.

A step that is no permutation of its input cannot prove itself and is refused on receipt
(§8.4, tests/test_deck_shuffle_proof.py); the checks behind the proof, at reveals and at
the opening, are tested here on chains that recorded such a step regardless."""

from __future__ import annotations

from dataclasses import replace

import pytest
from deck_support import cheating_step, encrypt, honest_steps_until, peer, record_unproven, reencrypt, table
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.deck import (
    CardLedger,
    CardMismatch,
    CommitmentMismatch,
    DeckError,
    InvalidProof,
    LocalTable,
    ProtocolViolation,
    ShuffleChain,
    ShuffleMismatch,
    ShuffleOpening,
    UsageError,
    verify_round_opening,
)
from p2p.deck.group import G
from p2p.deck.sampling import random_scalar
from p2p.deck.hashing import u32
from p2p.deck.shuffle import Ciphertext, ShuffleStep, rerandomize, shuffle_commitment
from p2p.deck.shuffle_proof import prove_shuffle


def chain_with_cheater(
    t: LocalTable, cheater_seat: int, tamper
) -> tuple[ShuffleChain, list[tuple[bytes, ShuffleOpening]]]:
    """A complete chain where seat `cheater_seat` tampered with its output deck: refused on
    receipt for its proof (§8.4, the chain unchanged), then recorded regardless."""
    chain = ShuffleChain(t.joint, 1)
    openings = honest_steps_until(t, chain, cheater_seat)
    step, opening = cheating_step(t, chain, tamper)
    cheater = chain.expected
    assert cheater is not None
    with pytest.raises(InvalidProof) as e:
        chain.receive(cheater, step)
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.4", "shuffle-proof", cheater)
    assert len(chain.steps) == cheater_seat
    record_unproven(chain, cheater, step)  # passes every other receipt check
    openings.append((cheater, opening))
    for p in t.game.seats[cheater_seat + 1 :]:
        s, o = chain.make_step(p, t.source)
        chain.receive(p, s)
        openings.append((p, o))
    return chain, openings


@settings(max_examples=10, deadline=None)
@given(
    n=st.integers(2, 6),
    data=st.data(),
    kind=st.sampled_from(["duplicate", "replace"]),
    seed=st.binary(min_size=1, max_size=4),
)
def test_8_7_any_cheating_seat_is_named_with_its_step(n: int, data: st.DataObject, kind: str, seed: bytes) -> None:
    t = table(n, seed)
    cheater = data.draw(st.integers(0, n - 1))
    position, source = data.draw(st.lists(st.integers(0, 49), min_size=2, max_size=2, unique=True))

    def tamper(deck: list[Ciphertext]) -> None:
        if kind == "duplicate":
            deck[position] = reencrypt(t, deck[source])
        else:
            deck[position] = encrypt(t, t.game.card_points[source])

    chain, openings = chain_with_cheater(t, cheater, tamper)
    with pytest.raises(ShuffleMismatch) as e:
        verify_round_opening([chain], openings)
    assert e.value.peer == peer(cheater)
    assert f"step {cheater} position {position}" in str(e.value)


def test_8_7_a_re_randomized_duplicate_card_is_named_at_opening() -> None:
    t = table(4)

    def duplicate(deck: list[Ciphertext]) -> None:
        deck[16] = reencrypt(t, deck[40])  # e.g. copy a hidden card onto the first discard

    chain, openings = chain_with_cheater(t, 2, duplicate)
    with pytest.raises(ShuffleMismatch) as e:
        verify_round_opening([chain], openings)
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.7", "not-a-reencryption", peer(2))
    assert "step 2 position 16" in str(e.value)


def test_8_7_a_replaced_card_is_named_at_opening() -> None:
    t = table(3)

    def replace_card(deck: list[Ciphertext]) -> None:
        deck[0] = encrypt(t, t.game.card_points[49])  # a fresh encryption of a chosen card

    chain, openings = chain_with_cheater(t, 0, replace_card)
    with pytest.raises(ShuffleMismatch) as e:
        verify_round_opening([chain], openings)
    assert e.value.peer == peer(0) and "step 0 position 0" in str(e.value)


def test_8_7_a_step_that_shuffles_an_earlier_deck_instead_of_its_input_is_named() -> None:
    """Seats 0 and 2 collude: seat 2 re-encrypts seat 0's deck (whose order seat 0 knows)
    instead of seat 1's, so the honest shuffle counts for nothing. Every c1 is fresh, so
    the step passes its receipt checks but its proof; recorded regardless, the opening
    names seat 2."""
    t = table(3)
    chain = ShuffleChain(t.joint, 1)
    openings = honest_steps_until(t, chain, 2)
    colluder_deck = chain.steps[0].deck
    perm = tuple(reversed(range(50)))
    scalars = tuple(random_scalar(t.source) for _ in range(50))
    forged = rerandomize(colluder_deck, perm, scalars, t.joint.point)
    salt = bytes(32)
    commit = shuffle_commitment(chain.chain_id, 2, peer(2), perm, scalars, salt)
    proof = prove_shuffle((chain.chain_id, u32(2), peer(2)), t.joint.point, colluder_deck, forged, perm, scalars, t.source)
    step = ShuffleStep(chain.chain_id, 2, forged, commit, proof)
    with pytest.raises(InvalidProof) as refused:
        chain.receive(peer(2), step)  # proven against seat 0's deck, not its input
    assert refused.value.peer == peer(2) and len(chain.steps) == 2
    record_unproven(chain, peer(2), step)
    openings.append((peer(2), ShuffleOpening(chain.chain_id, 2, perm, scalars, salt)))
    with pytest.raises(ShuffleMismatch) as e:
        verify_round_opening([chain], openings)
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.7", "not-a-reencryption", peer(2))
    assert "step 2 position 0" in str(e.value)


def test_8_7_a_card_brought_in_from_another_chain_is_named() -> None:
    """A reshuffle step that slips in a re-encryption of a card of the round's deal (a card
    the pile does not hold: revealing it would show that deal card) is named at opening."""
    t = table(3)
    deal, deal_openings = t.shuffle(1)
    pile = ShuffleChain(t.joint, 1, 1, list(range(10, 20)))

    def smuggle(deck: list[Ciphertext]) -> None:
        deck[3] = reencrypt(t, deal.deck().ciphertexts[7])

    openings = honest_steps_until(t, pile, 1)
    step, opening = cheating_step(t, pile, smuggle)
    with pytest.raises(InvalidProof):
        pile.receive(peer(1), step)
    record_unproven(pile, peer(1), step)  # fresh c1: passes every other receipt check
    openings.append((peer(1), opening))
    last, last_opening = pile.make_step(peer(2), t.source)
    pile.receive(peer(2), last)
    openings.append((peer(2), last_opening))
    with pytest.raises(ShuffleMismatch) as e:
        verify_round_opening([deal, pile], deal_openings + openings)
    assert (e.value.check, e.value.peer) == ("not-a-reencryption", peer(1))
    assert "step 1 position 3" in str(e.value)


def test_8_7_a_commitment_that_does_not_open_is_named() -> None:
    t = table(3)
    chain, openings = t.shuffle(1)
    p, o = openings[1]
    openings[1] = (p, replace(o, salt=bytes(32)))
    with pytest.raises(CommitmentMismatch) as e:
        verify_round_opening([chain], openings)
    assert (e.value.check, e.value.peer) == ("shuffle-commitment", peer(1))
    # A different permutation cannot be claimed after the fact either.
    perm = list(o.perm)
    perm[0], perm[1] = perm[1], perm[0]
    openings[1] = (p, replace(o, perm=tuple(perm)))
    with pytest.raises(CommitmentMismatch):
        verify_round_opening([chain], openings)


def test_8_7_missing_duplicate_misrouted_openings() -> None:
    t = table(3)
    chain, openings = t.shuffle(1)
    with pytest.raises(ProtocolViolation) as e:
        verify_round_opening([chain], openings[:2])
    assert (e.value.check, e.value.peer) == ("missing-opening", peer(2))
    with pytest.raises(ProtocolViolation) as e:
        verify_round_opening([chain], openings + [openings[0]])
    assert (e.value.check, e.value.peer) == ("duplicate-opening", peer(0))
    with pytest.raises(ProtocolViolation) as e:
        verify_round_opening([chain], [openings[0], (peer(1), openings[0][1]), openings[2]])
    assert (e.value.check, e.value.peer) == ("wrong-step", peer(1))
    assert "by the peer of seat 2" in str(e.value)  # (seats counted from 1, as in every verdict, §10.2)
    other, other_openings = t.shuffle(1, number=1, cards=[1, 2, 3])
    with pytest.raises(ProtocolViolation) as e:
        verify_round_opening([chain], openings + other_openings[:1])
    assert (e.value.check, e.value.peer) == ("wrong-chain", peer(0))
    with pytest.raises(UsageError):
        verify_round_opening([], openings)
    with pytest.raises(UsageError):
        verify_round_opening([chain, chain], openings)
    assert sorted(verify_round_opening([chain, other], openings + other_openings)[other.chain_id]) == [1, 2, 3]


def test_8_5_a_replaced_card_outside_the_deck_is_caught_when_revealed() -> None:
    t = table(3)

    def garbage(deck: list[Ciphertext]) -> None:
        deck[16] = encrypt(t, G)  # G is no card point

    chain, openings = chain_with_cheater(t, 2, garbage)  # the last seat: positions are final
    with pytest.raises(CardMismatch) as e:
        t.reveal(chain.deck(), 16)
    assert e.value.check == "not-a-card" and e.value.peer is None and "§8.7" in str(e.value)
    with pytest.raises(ShuffleMismatch) as e:
        verify_round_opening([chain], openings)
    assert e.value.peer == peer(2)


def test_8_5_a_duplicated_card_is_caught_when_both_copies_are_seen() -> None:
    t = table(3)

    def duplicate(deck: list[Ciphertext]) -> None:
        deck[2] = reencrypt(t, deck[3])

    chain, openings = chain_with_cheater(t, 2, duplicate)
    deck = chain.deck()
    ledger = CardLedger(deck)
    ledger.learn(3, t.reveal(deck, 3, peer(0)))
    ledger.learn(3, t.reveal(deck, 3, peer(0)))  # seeing the same position again is fine
    with pytest.raises(CardMismatch) as e:
        ledger.learn(2, t.reveal(deck, 2, peer(0)))
    assert e.value.check == "duplicate-card"
    assert ledger.known == {3: t.reveal(deck, 3)}
    with pytest.raises(ShuffleMismatch) as e:
        verify_round_opening([chain], openings)
    assert e.value.peer == peer(2)


def test_8_7_an_opening_that_is_no_permutation_is_judged_when_it_arrives() -> None:
    """π and every r_j are checked as each opening is read, before any step is
    recomputed (§8.7): of seat 0, whose step does not open, and seat 1, whose π is no
    permutation, seat 1 is named, as every peer and the audit name it."""
    t = table(3, b"order", cards=8)
    chain, openings = t.shuffle(1)
    seats = t.game.seats
    wires = {p: o.to_wire() for p, o in openings}
    wires[seats[0]]["salt"] = bytes(32)  # seat 0's commitment does not open
    perm = list(wires[seats[1]]["perm"])
    perm[1] = perm[0]
    wires[seats[1]]["perm"] = perm  # seat 1's π maps two positions to one
    assert ShuffleOpening.from_wire(wires[seats[0]], seats[0])  # (read: judged with the steps)
    with pytest.raises(DeckError) as refused:
        ShuffleOpening.from_wire(wires[seats[1]], seats[1])
    assert refused.value.peer == seats[1] and refused.value.check == "permutation"
