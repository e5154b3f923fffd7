"""The game a deck belongs to: game id, seat order, deck size (protocol.md §8.2).

Theory of operation: everything the card protocol hashes or proves is bound to this
context, so a message from one game, round, deck or peer can never be replayed as one of
another. From it follow the deck id and the card points:

    deck_id = H32("bandit-lan/v1/deck-id", game_id, u32(cards))
    M_i     = from_uniform(H("bandit-lan/v1/card", deck_id, u32(i))[0:32])   for i in 0..cards-1

Card points come from hashing, never from i·G: nobody knows any relation between two card
points, so re-encrypted cards cannot be shifted from one value to another, and a
decrypted point is decoded back to its card by table lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Final

from .errors import ProtocolViolation, UsageError
from .group import hash_to_point
from .hashing import TAG_CARD, TAG_DECK_ID, digest32, u32

SECTION: Final = "§8.2"
PEER_ID_BYTES: Final = 32
MIN_SEATS: Final = 2
MAX_SEATS: Final = 16
MAX_CARDS: Final = 4096
MAX_GAME_ID_BYTES: Final = 64


@dataclass(frozen=True)
class GameContext:
    """One game's fixed facts: its id (from the lobby), the seat order and the deck size."""

    game_id: bytes
    seats: tuple[bytes, ...]
    cards: int = 50

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, bytes) or not 1 <= len(self.game_id) <= MAX_GAME_ID_BYTES:
            raise UsageError(SECTION, "game-id", f"game id must be 1..{MAX_GAME_ID_BYTES} bytes")
        if not isinstance(self.seats, tuple) or not MIN_SEATS <= len(self.seats) <= MAX_SEATS:
            raise UsageError(SECTION, "seats", f"seats must be a tuple of {MIN_SEATS}..{MAX_SEATS} peer ids")
        for peer in self.seats:
            if not isinstance(peer, bytes) or len(peer) != PEER_ID_BYTES:
                raise UsageError(SECTION, "seats", "every peer id must be 32 bytes")
        if len(set(self.seats)) != len(self.seats):
            raise UsageError(SECTION, "seats", "a peer id appears twice in the seat order")
        if type(self.cards) is not int or not 1 <= self.cards <= MAX_CARDS:
            raise UsageError(SECTION, "cards", f"deck size must be 1..{MAX_CARDS}")

    @cached_property
    def deck_id(self) -> bytes:
        """H32(deck-id, game_id, u32(cards))."""
        return digest32(TAG_DECK_ID, self.game_id, u32(self.cards))

    @cached_property
    def card_points(self) -> tuple[bytes, ...]:
        """The point M_i of every card index i of the canonical deck."""
        return tuple(hash_to_point(TAG_CARD, self.deck_id, u32(i)) for i in range(self.cards))

    @cached_property
    def _seat_index(self) -> dict[bytes, int]:
        return {peer: i for i, peer in enumerate(self.seats)}

    def seat_of(self, peer: bytes, section: str = SECTION) -> int:
        """The seat number of `peer`; a peer not at this table is a `ProtocolViolation`."""
        seat = self._seat_index.get(peer)
        if seat is None:
            raise ProtocolViolation(section, "unknown-peer", "sender is not seated at this table", peer=peer)
        return seat
