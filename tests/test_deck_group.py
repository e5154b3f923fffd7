"""§8.1–8.2: group encodings, validation, hashing, sampling, card points."""

from __future__ import annotations

import pytest
from deck_support import TORSION8, game

from p2p.deck import GameContext, InvalidPoint, MalformedMessage, SeededSource, UsageError
from p2p.deck.group import (
    IDENTITY,
    ZERO,
    G,
    L,
    add,
    check_point,
    check_scalar,
    is_point,
    mul,
    mul_base,
    reduce64,
)
from p2p.deck.hashing import transcript, u32
from p2p.deck.sampling import random_below, random_permutation, random_scalar

P = mul_base(reduce64(bytes(range(64))))
NON_CANONICAL_IDENTITY = b"\xee" + b"\xff" * 30 + b"\x7f"  # y = p + 1


def test_8_1_torsion_order_is_eight() -> None:
    q = TORSION8
    multiples = []
    for _ in range(8):
        multiples.append(q)
        q = add(q, TORSION8)
    assert multiples[-1] == IDENTITY and IDENTITY not in multiples[:-1]


@pytest.mark.parametrize(
    "bad",
    [IDENTITY, TORSION8, add(P, TORSION8), NON_CANONICAL_IDENTITY, b"\x02" * 32, P[:31], P + b"\x00", b""],
    ids=["identity", "small-order", "mixed-order", "non-canonical", "off-curve", "short", "long", "empty"],
)
def test_8_1_received_points_are_validated(bad: bytes) -> None:
    assert not is_point(bad)
    with pytest.raises(InvalidPoint) as e:
        check_point(bad, "test point")
    assert e.value.section == "§8.1" and e.value.check == "point"


def test_8_1_valid_points_pass() -> None:
    assert is_point(G) and is_point(P) and check_point(P, "p") == P


def test_8_1_variable_base_multiplication_rejects_points_outside_the_subgroup() -> None:
    # The share verification relies on libsodium checking the base point of a multiplication.
    s = reduce64(b"\x07" * 64)
    with pytest.raises(InvalidPoint):
        mul(s, add(P, TORSION8))
    with pytest.raises(InvalidPoint):
        mul(s, TORSION8)


def test_8_1_zero_scalar_gives_identity_and_still_validates_the_point() -> None:
    assert mul(ZERO, P) == IDENTITY and mul_base(ZERO) == IDENTITY
    with pytest.raises(InvalidPoint):
        mul(ZERO, add(P, TORSION8))


def test_8_1_scalars_must_be_canonical() -> None:
    assert check_scalar((L - 1).to_bytes(32, "little"), "s")
    for bad in [L.to_bytes(32, "little"), (2**256 - 1).to_bytes(32, "little"), bytes(31), bytes(33)]:
        with pytest.raises(MalformedMessage) as e:
            check_scalar(bad, "s")
        assert e.value.check == "scalar"


def test_8_1_hash_framing_is_injective() -> None:
    assert transcript(b"t", b"ab", b"c") != transcript(b"t", b"a", b"bc")
    assert transcript(b"t", b"ab") != transcript(b"ta", b"b")
    assert transcript(b"tag", b"xy") == u32(3) + b"tag" + u32(2) + b"xy"


def test_8_1_seeded_source_is_deterministic_and_streams() -> None:
    a, b = SeededSource(b"s"), SeededSource(b"s")
    assert a(10) + a(100) == b(110)
    assert SeededSource(b"t")(16) != SeededSource(b"s")(16)


def test_8_1_random_below_rejects_the_biased_tail() -> None:
    draws = iter([(2**32 - 1).to_bytes(4, "big"), (5).to_bytes(4, "big")])
    # For n = 3 the top value 2**32 - 1 would favour residue 0: it must be redrawn.
    assert random_below(lambda n: next(draws), 3) == 5 % 3


def test_8_1_random_permutation_and_scalar() -> None:
    src = SeededSource(b"perm")
    perms = {random_permutation(src, 5) for _ in range(200)}
    assert all(sorted(p) == list(range(5)) for p in perms)
    assert len(perms) > 60  # 120 possible; a broken shuffle gives few
    s = random_scalar(src)
    assert s != ZERO and int.from_bytes(s, "little") < L


def test_8_1_a_short_byte_source_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        random_scalar(lambda n: b"\x01" * (n - 1))


def test_8_2_card_points_are_valid_distinct_and_not_multiples_of_g() -> None:
    g = game(2)
    points = g.card_points
    assert len(points) == 50 and len(set(points)) == 50
    assert all(is_point(m) for m in points)
    small_multiples = {mul_base(i.to_bytes(32, "little")) for i in range(1, 200)}
    assert not small_multiples.intersection(points)


def test_8_2_deck_id_binds_game_and_size() -> None:
    assert game(2).deck_id != game(2, game_id=b"other game").deck_id
    assert game(2).deck_id != game(2, cards=40).deck_id
    assert game(2).card_points[0] != game(2, game_id=b"other game").card_points[0]
    assert game(2).deck_id == game(3).deck_id  # the seats are bound by the chain id instead


@pytest.mark.parametrize(
    "kwargs",
    [
        {"game_id": b""},
        {"game_id": "text"},
        {"seats": (b"\x01" * 32,)},
        {"seats": (b"\x01" * 32, b"\x01" * 32)},
        {"seats": (b"\x01" * 32, b"\x02" * 31)},
        {"seats": [b"\x01" * 32, b"\x02" * 32]},
        {"cards": 0},
        {"cards": True},
    ],
)
def test_8_2_game_context_rejects_bad_setup(kwargs: dict) -> None:
    base = {"game_id": b"g", "seats": (b"\x01" * 32, b"\x02" * 32), "cards": 50}
    with pytest.raises(UsageError):
        GameContext(**{**base, **kwargs})
