"""§9.12: every secret of a seat comes from one seed, by what it is for."""

from __future__ import annotations

import pytest

from p2p.table.secrets import SeatSecrets


def test_s9_12_vector() -> None:
    stream = SeatSecrets(bytes([7]) * 32).stream("beacon", 3)
    assert stream(32).hex() == "2648ec33ed4738a8e56836cc6dad9673c44a78e71ccbd1bfe3eca5f3354e6213"


def test_s9_12_a_label_always_gives_the_same_bytes_whatever_was_drawn_before() -> None:
    secrets = SeatSecrets(bytes(range(32)))
    first = secrets.stream("shuffle", b"\x01" * 32)
    whole = first(100)
    secrets.stream("beacon", 1)(64)  # other draws in between change nothing
    again = secrets.stream("shuffle", b"\x01" * 32)
    assert again(30) + again(70) == whole  # read in pieces: the same stream


def test_s9_12_labels_are_unambiguous_and_independent() -> None:
    secrets = SeatSecrets(bytes(32))
    assert secrets.stream("beacon", 12)(32) != secrets.stream("beacon1", 2)(32)
    assert secrets.stream("share", b"c", 1)(32) != secrets.stream("share", b"c", 2)(32)
    assert SeatSecrets(bytes(31) + b"\x01").stream("beacon", 1)(32) != secrets.stream("beacon", 1)(32)


def test_s9_12_a_seed_has_32_bytes() -> None:
    with pytest.raises(ValueError):
        SeatSecrets(bytes(31))


def test_s9_12_a_seats_key_comes_from_its_seed_not_from_the_games_public_facts() -> None:
    """Two seats in the same place of the same game (same id, seats, rules) but with other
    seeds announce unrelated keys; the same seed gives the same key and proof again, as a
    seat taken back after a crash needs (§11.3)."""
    from p2p.roster import TableRules
    from p2p.table import TableMachine

    seats = (bytes([1]) * 32, bytes([2]) * 32)

    def key_message(seed: bytes) -> dict:
        machine = TableMachine(game_id=b"g" * 32, seats=seats, rules=TableRules(), me=0, secrets=SeatSecrets(seed))
        (message,) = machine.start().send
        return message

    first, again, other = key_message(bytes([7]) * 32), key_message(bytes([7]) * 32), key_message(bytes([8]) * 32)
    assert first == again
    assert all(first[field] != other[field] for field in ("key", "e", "s"))
