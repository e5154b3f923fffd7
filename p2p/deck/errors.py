"""Typed errors of the card protocol (protocol.md §8).

Every error names the protocol section it enforces (for example "§8.4"), a short,
stable name of the check that failed (for example "deck-point") and, when a peer is at
fault, that peer's id. Errors are raised before any state changes, so a caller that
catches one still holds exactly the state it had before the offending input.
"""

from __future__ import annotations


def short_peer(peer: bytes | None) -> str:
    """The short human form of a peer id used in messages: its first 8 bytes in hex."""
    return "-" if peer is None else peer[:8].hex()


class DeckError(Exception):
    """Base of every card-protocol error."""

    def __init__(self, section: str, check: str, detail: str, *, peer: bytes | None = None) -> None:
        self.section = section
        self.check = check
        self.detail = detail
        self.peer = peer
        super().__init__(str(self))

    def __str__(self) -> str:
        who = "" if self.peer is None else f" (peer {short_peer(self.peer)})"
        return f"{self.section} {self.check}: {self.detail}{who}"

    def attributed(self, peer: bytes) -> DeckError:
        """The same error blamed on `peer` (unchanged if it already names a peer)."""
        if self.peer is not None:
            return self
        return type(self)(self.section, self.check, self.detail, peer=peer)


class MalformedMessage(DeckError):
    """A message or field with the wrong type, length, range or a non-canonical encoding."""


class InvalidPoint(DeckError):
    """A point that is not the canonical encoding of a prime-order group element (§8.1)."""


class InvalidProof(DeckError):
    """A Schnorr or Chaum–Pedersen proof that does not verify for its statement and context."""


class ProtocolViolation(DeckError):
    """A well-formed message at the wrong moment, from the wrong peer, or for the wrong card."""


class CommitmentMismatch(DeckError):
    """An opening (of a shuffle step or a beacon nonce) that does not match its commitment."""


class ShuffleMismatch(DeckError):
    """An opened shuffle step whose output is not a re-encryption and permutation of its input."""


class CardMismatch(DeckError):
    """A reveal that decodes to no card of the deck, or to a card already seen elsewhere.

    The shares were all proven correct, so a shuffle step was dishonest; which one is
    named by the round opening (§8.7), which the table must then run at once."""


class UsageError(DeckError):
    """The local caller broke the API contract: asked too early, passed bad arguments (never a peer's fault)."""
