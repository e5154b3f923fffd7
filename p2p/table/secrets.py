"""A seat's secrets for one game, all derived from one seed (protocol.md §9.12).

Theory of operation
-------------------
A seated peer draws one 32-byte *seat seed* from the operating system when the game
starts and keeps it in its journal (never in the fairness log). Every secret the seat
needs later (its deck key, its key proof's nonce input, each round's beacon nonce,
each shuffle step's permutation, scalars and salt, each share proof's nonce input)
comes from a byte stream named after what it is for:

    stream(label) = SHA-512(TAG ‖ seed ‖ label ‖ u64be(0)) ‖ SHA-512(… ‖ u64be(1)) ‖ …

so the same seed and the same label always give the same bytes, whatever order the
machine asks in. That is what lets a peer killed in the middle of a game rebuild every
secret from its journal and its log and carry on exactly where it was (§11.3). The
streams are independent (distinct labels hash to unrelated streams), and proof nonces
stay hedged with the statement (§8.1).
"""

from __future__ import annotations

from p2p.deck import ByteSource, SeededSource

TAG = b"bandit-lan/v1/seat-secret\x00"
SEED_BYTES = 32


def _label(parts: tuple[str | int | bytes, ...]) -> bytes:
    out = bytearray()
    for part in parts:
        raw = part if isinstance(part, bytes) else str(part).encode()
        out += len(raw).to_bytes(2, "big") + raw
    return bytes(out)


class SeatSecrets:
    """Named byte streams from one seat seed."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seat seed is {SEED_BYTES} bytes")
        self.seed = seed

    @classmethod
    def draw(cls, source: ByteSource) -> SeatSecrets:
        return cls(source(SEED_BYTES))

    def stream(self, *label: str | int | bytes) -> ByteSource:
        """A fresh byte source for `label` (the same label gives the same bytes)."""
        return SeededSource(TAG + self.seed + _label(label))  # the §8.1 expander, keyed by the secret seed
