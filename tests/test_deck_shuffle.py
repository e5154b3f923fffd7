"""§8.4: the shuffle chain — every step validated on receipt, nothing half-applied."""

from __future__ import annotations

from dataclasses import replace

import pytest
from deck_support import TORSION8, cheating_step, decrypt_with_all_keys, honest_steps_until, peer, table
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.deck import (
    InvalidPoint,
    MalformedMessage,
    ProtocolViolation,
    ShuffleChain,
    ShuffleOpening,
    ShuffleStep,
    UsageError,
    verify_round_opening,
)
from p2p.deck.group import IDENTITY, L, add
from p2p.deck.shuffle import Ciphertext


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 6), seed=st.binary(min_size=1, max_size=8))
def test_8_4_shuffled_deck_is_a_permutation_of_the_canonical_deck(n: int, seed: bytes) -> None:
    t = table(n, seed)
    chain, openings = t.shuffle(round=1)
    order = verify_round_opening([chain], openings)[chain.chain_id]
    assert sorted(order) == list(range(50))
    deck = chain.deck()
    # Decrypting each final ciphertext with every key gives the card the opening names.
    points = t.game.card_points
    assert [deck.index_of(decrypt_with_all_keys(t, c)) for c in deck.ciphertexts] == list(order)
    assert all(deck.index_of(points[i]) == i for i in range(50))
    # Every step hides the order: no final c1 equals any earlier c1.
    assert len({c.c1 for s in chain.steps for c in s.deck}) == 50 * n


def test_8_4_chain_follows_seat_order_and_records_nothing_on_error() -> None:
    t = table(3)
    chain = ShuffleChain(t.joint, 1)
    step1, _ = ShuffleChain(t.joint, 1).make_step(peer(0), t.source)
    assert chain.expected == peer(0)
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(1), step1)
    assert e.value.check == "out-of-turn" and e.value.peer == peer(1)
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(7), step1)
    assert e.value.check == "unknown-peer"
    assert chain.steps == () and chain.expected == peer(0)
    chain.receive(peer(0), step1)
    assert chain.expected == peer(1)
    with pytest.raises(UsageError):
        chain.make_step(peer(0), t.source)
    with pytest.raises(UsageError):
        chain.deck()


def test_8_4_wrong_chain_step_number_and_size() -> None:
    t = table(2)
    chain = ShuffleChain(t.joint, 1)
    step, _ = ShuffleChain(t.joint, 2).make_step(peer(0), t.source)
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(0), step)
    assert e.value.check == "wrong-chain"
    good, _ = chain.make_step(peer(0), t.source)
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(0), replace(good, step=1))
    assert e.value.check == "wrong-step"
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(0), replace(good, deck=good.deck[:-1]))
    assert e.value.check == "deck-size"
    chain.receive(peer(0), good)
    assert len(chain.steps) == 1


@pytest.mark.parametrize("which", ["c1", "c2"])
@pytest.mark.parametrize("bad", ["torsion", "small-order", "identity", "non-canonical", "off-curve"])
def test_8_4_an_invalid_point_in_a_deck_is_caught_and_attributed(which: str, bad: str) -> None:
    t = table(3)
    chain = ShuffleChain(t.joint, 1)
    honest_steps_until(t, chain, 1)

    def tamper(deck: list[Ciphertext]) -> None:
        c = deck[7]
        point = getattr(c, which)
        new = {
            "torsion": add(point, TORSION8),  # a valid card plus a point of order 8: it could tag the card
            "small-order": TORSION8,
            "identity": IDENTITY,
            "non-canonical": b"\xee" + b"\xff" * 30 + b"\x7f",  # y = p + 1
            "off-curve": b"\x02" * 32,
        }[bad]
        deck[7] = replace(c, **{which: new})

    step, _ = cheating_step(t, chain, tamper)
    with pytest.raises(InvalidPoint) as e:
        chain.receive(peer(1), step)
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.4", "deck-point", peer(1))
    assert "position 7" in str(e.value)
    assert len(chain.steps) == 1


def test_8_4_a_verbatim_duplicated_card_is_caught_on_receipt() -> None:
    t = table(3)
    chain = ShuffleChain(t.joint, 1)
    honest_steps_until(t, chain, 1)

    def duplicate(deck: list[Ciphertext]) -> None:
        deck[5] = deck[3]

    step, _ = cheating_step(t, chain, duplicate)
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(1), step)
    assert e.value.check == "duplicate-ciphertext" and e.value.peer == peer(1)
    assert "positions 3 and 5" in str(e.value)


def test_8_4_a_card_passed_through_without_re_randomizing_is_caught() -> None:
    t = table(3)
    chain = ShuffleChain(t.joint, 1)
    honest_steps_until(t, chain, 1)
    previous = chain.steps[0].deck

    def pass_through(deck: list[Ciphertext]) -> None:
        deck[9] = previous[20]

    step, _ = cheating_step(t, chain, pass_through)
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(1), step)
    assert e.value.check == "not-rerandomized" and "position 9" in str(e.value)


def test_8_4_no_step_after_the_last_seat() -> None:
    t = table(2)
    chain, _ = t.shuffle(1)
    step, _ = ShuffleChain(t.joint, 1).make_step(peer(0), t.source)
    with pytest.raises(ProtocolViolation) as e:
        chain.receive(peer(0), step)
    assert e.value.check == "chain-complete"


def test_8_4_own_step_is_recorded_when_delivered_back() -> None:
    t = table(2)
    chain = ShuffleChain(t.joint, 1)
    step, opening = chain.make_step(peer(0), t.source)
    assert chain.steps == ()  # not recorded until delivered
    chain.receive(peer(0), ShuffleStep.from_wire(step.to_wire(), peer(0)))
    assert chain.steps == (step,)
    chain.verify_opening(peer(0), opening)


def test_8_4_reshuffle_chain_starts_from_the_known_discard_pile() -> None:
    t = table(3)
    deal, deal_openings = t.shuffle(1)
    pile = [17, 3, 44, 8, 0, 29]
    again, again_openings = t.shuffle(1, number=1, cards=pile)
    assert again.chain_id != deal.chain_id
    assert [c.c2 for c in again.input_deck] == [t.game.card_points[i] for i in pile]
    assert all(c.c1 == IDENTITY for c in again.input_deck)
    deck = again.deck()
    revealed = sorted(t.reveal(deck, p) for p in range(len(pile)))
    assert revealed == sorted(pile)
    cards = verify_round_opening([deal, again], deal_openings + again_openings)
    assert sorted(cards[again.chain_id]) == sorted(pile)
    assert [t.reveal(deck, p) for p in range(len(pile))] == list(cards[again.chain_id])


@pytest.mark.parametrize("cards", [[], [1, 1], [50], [-1], [True]])
def test_8_4_chain_input_must_be_distinct_cards(cards: list) -> None:
    t = table(2)
    with pytest.raises(UsageError):
        ShuffleChain(t.joint, 1, 1, cards)


def test_8_4_step_wire_form_is_strict() -> None:
    t = table(2)
    step, opening = ShuffleChain(t.joint, 1).make_step(peer(0), t.source)
    wire = step.to_wire()
    assert set(wire) == {"chain", "step", "deck", "commit", "proof"} and len(wire["deck"]) == 50 * 64
    assert len(wire["proof"]) == 32 * (4 * 50 + 5)
    assert ShuffleStep.from_wire(wire, peer(0)) == step
    for bad in [
        {**wire, "deck": wire["deck"][:-1]},
        {**wire, "deck": b""},
        {**wire, "deck": bytes(64 * 4097)},
        {**wire, "step": -1},
        {**wire, "step": 16},
        {**wire, "step": True},
        {**wire, "chain": wire["chain"] + b"\x00"},
        {**wire, "commit": "x" * 32},
        {**wire, "proof": wire["proof"][:-32]},
        {**wire, "proof": wire["proof"][:-32] + b"\xff" * 32},  # a scalar not below L
        {k: v for k, v in wire.items() if k != "proof"},
        {k: v for k, v in wire.items() if k != "commit"},
        "not a map",
    ]:
        with pytest.raises(MalformedMessage) as e:
            ShuffleStep.from_wire(bad, peer(0))
        assert e.value.peer == peer(0) and e.value.section == "§8.4"


def test_8_4_a_step_holds_only_ciphertexts() -> None:
    t = table(2)
    step, _ = ShuffleChain(t.joint, 1).make_step(peer(0), t.source)
    for deck in [list(step.deck), (step.deck[0].c1,) + step.deck[1:], ()]:
        with pytest.raises(MalformedMessage):
            replace(step, deck=deck)


def test_8_7_opening_wire_form_is_strict() -> None:
    t = table(2)
    _, opening = ShuffleChain(t.joint, 1).make_step(peer(0), t.source)
    wire = opening.to_wire()
    assert ShuffleOpening.from_wire(wire, peer(0)) == opening
    perm = wire["perm"]
    for bad in [
        {**wire, "perm": [0] * len(perm)},
        {**wire, "perm": perm[:-1]},
        {**wire, "perm": perm[:-1] + [50]},
        {**wire, "perm": perm[:-1] + ["1"]},
        {**wire, "scalars": L.to_bytes(32, "little") + wire["scalars"][32:]},
        {**wire, "scalars": wire["scalars"][:-1]},
        {**wire, "scalars": bytes(32 * 4097)},
        {**wire, "salt": b""},
    ]:
        with pytest.raises(MalformedMessage) as e:
            ShuffleOpening.from_wire(bad, peer(0))
        assert e.value.peer == peer(0) and e.value.section == "§8.7"
    assert opening.salt.hex() not in repr(opening)
