"""Domain-separated hashing (protocol.md §8.1).

Every hash of the card protocol is SHA-512 over a framed transcript: the ASCII domain tag
and then each input, each one preceded by its length as a 4-byte big-endian integer.
Framing makes the encoding injective (no two different input lists hash the same bytes),
and the tag makes hashes of different purposes independent.
"""

from __future__ import annotations

import hashlib
from typing import Final

TAG_CARD: Final = b"bandit-lan/v1/card"
TAG_DECK_ID: Final = b"bandit-lan/v1/deck-id"
TAG_CHAIN_ID: Final = b"bandit-lan/v1/chain-id"
TAG_NONCE: Final = b"bandit-lan/v1/nonce"
TAG_SCHNORR: Final = b"bandit-lan/v1/schnorr"
TAG_CHAUM_PEDERSEN: Final = b"bandit-lan/v1/chaum-pedersen"
TAG_SEALED_SHARE: Final = b"bandit-lan/v1/sealed-share"
TAG_SHUFFLE_COMMIT: Final = b"bandit-lan/v1/shuffle-commit"
TAG_SHUFFLE_GENERATOR: Final = b"bandit-lan/v1/shuffle-generator"
TAG_SHUFFLE_PROOF: Final = b"bandit-lan/v1/shuffle-proof"
TAG_BEACON_COMMIT: Final = b"bandit-lan/v1/beacon-commit"
TAG_BEACON_SEED: Final = b"bandit-lan/v1/beacon-seed"
TAG_BEACON_DERIVE: Final = b"bandit-lan/v1/beacon-derive"


def u32(n: int) -> bytes:
    """A non-negative integer below 2**32 as 4 bytes big-endian."""
    return n.to_bytes(4, "big")


def u32s(values: list[int] | tuple[int, ...]) -> bytes:
    """A list of integers as the concatenation of their `u32` encodings."""
    return b"".join(v.to_bytes(4, "big") for v in values)


def transcript(tag: bytes, *fields: bytes) -> bytes:
    """The framed bytes that are hashed: len ‖ tag ‖ (len ‖ field)…"""
    parts = [u32(len(tag)), tag]
    for field in fields:
        parts.append(u32(len(field)))
        parts.append(field)
    return b"".join(parts)


def digest(tag: bytes, *fields: bytes) -> bytes:
    """H(tag, fields…): SHA-512 of the framed transcript, 64 bytes."""
    return hashlib.sha512(transcript(tag, *fields)).digest()


def digest32(tag: bytes, *fields: bytes) -> bytes:
    """The first 32 bytes of `digest` (identifiers and commitments)."""
    return digest(tag, *fields)[:32]
