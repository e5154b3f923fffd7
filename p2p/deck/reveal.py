"""Revealing cards: decryption shares with Chaum–Pedersen proofs (protocol.md §8.5).

Theory of operation. A card at position p of a deck is (c1, c2) = (R·G, M + R·Y) with
Y = Σ x_j·G, so M = c2 − Σ_j x_j·c1. Peer j's *share* of the card is D_j = x_j·c1,
published with a Chaum–Pedersen proof that it used the same x_j as its public key
X_j = x_j·G. The proof is bound to the chain id, the position and the peer id, so a share
cannot be replayed for another card or claimed by another peer. Shares are checked on
receipt: a wrong one is rejected at once and blamed on its sender.

- Reveal to all (discard, snap, end of round): every seat publishes its share; anyone
  with all of them computes M and looks it up in the deck's card points.
- Reveal to one peer P (deal, draw, peek, spy): every seat except P publishes its share;
  P adds its own x_P·c1 locally. The wire never carries x_P·c1, and without it the
  others hold M + x_P·c1, which under DDH tells them nothing about M.

A decrypted point that is not a card of the deck, or one card showing up at two
positions (`CardLedger`), can only come from a dishonest shuffle step: every share was
proven. The error says so; the round opening (§8.7) then names the peer.

A share is a deterministic function of the card and the key, so shares published for a
private reveal stay valid if the same card is later revealed to all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .context import MAX_CARDS
from .errors import CardMismatch, DeckError, InvalidPoint, InvalidProof, ProtocolViolation, UsageError
from .group import IDENTITY, POINT_BYTES, SCALAR_BYTES, add, mul, sub
from .hashing import TAG_CHAUM_PEDERSEN, u32
from .keys import DeckKeys
from .proofs import Proof, prove_dleq, verify_dleq
from .sampling import ByteSource
from .shuffle import ID_BYTES, Deck
from .wire import Reader, expect_bytes, expect_int

SECTION: Final = "§8.5"


@dataclass(frozen=True)
class Share:
    """Peer j's decryption share D_j = x_j·c1 of one card, with its proof.

    Wire: {"chain": bin 32, "position": int, "share": bin 32, "e": bin 32, "s": bin 32}."""

    chain: bytes
    position: int
    share: bytes
    proof: Proof

    def __post_init__(self) -> None:
        expect_bytes(self.chain, ID_BYTES, "chain id", SECTION)
        expect_int(self.position, 0, MAX_CARDS - 1, "position", SECTION)
        expect_bytes(self.share, POINT_BYTES, "share", SECTION)

    def to_wire(self) -> dict[str, Any]:
        return {
            "chain": self.chain,
            "position": self.position,
            "share": self.share,
            "e": self.proof.e,
            "s": self.proof.s,
        }

    @classmethod
    def from_wire(cls, obj: Any, sender: bytes) -> Share:
        r = Reader(obj, "share", ("chain", "position", "share", "e", "s"), SECTION, sender)
        try:
            return cls(
                r.bin("chain", ID_BYTES),
                r.integer("position", 0, MAX_CARDS - 1),
                r.bin("share", POINT_BYTES),
                Proof(r.bin("e", SCALAR_BYTES), r.bin("s", SCALAR_BYTES)),
            )
        except DeckError as err:
            raise err.attributed(sender) from None


def _context(deck: Deck, position: int, peer: bytes) -> tuple[bytes, ...]:
    return (deck.chain, u32(position), peer)


def _check_position(deck: Deck, position: int) -> None:
    if type(position) is not int or not 0 <= position < len(deck.ciphertexts):
        raise UsageError(SECTION, "position", f"position {position!r} is not in this deck")


def _check_keys(deck: Deck, keys: DeckKeys) -> None:
    if keys.peer not in deck.joint.game.seats or deck.joint.key_of(keys.peer) != keys.public:
        raise UsageError(SECTION, "keys", "these keys are not this peer's key in the deck's game")


def make_share(keys: DeckKeys, deck: Deck, position: int, source: ByteSource) -> Share:
    """This peer's share of the card at `position`, with its Chaum–Pedersen proof."""
    _check_position(deck, position)
    _check_keys(deck, keys)
    c1 = deck.ciphertexts[position].c1
    d = mul(keys.secret, c1)
    proof = prove_dleq(keys.secret, keys.public, c1, d, TAG_CHAUM_PEDERSEN, _context(deck, position, keys.peer), source)
    return Share(deck.chain, position, d, proof)


def verify_share(deck: Deck, sender: bytes, share: Share) -> None:
    """Raise unless `share` is `sender`'s correct share of the card it names in `deck`."""
    x = deck.joint.key_of(sender, SECTION)
    if share.chain != deck.chain or share.position >= len(deck.ciphertexts):
        raise ProtocolViolation(SECTION, "wrong-card", "share names a card that is not in this deck", peer=sender)
    c1 = deck.ciphertexts[share.position].c1
    try:
        ok = verify_dleq(x, c1, share.share, share.proof, TAG_CHAUM_PEDERSEN, _context(deck, share.position, sender))
    except InvalidPoint:
        # Every point but the share was validated before (keys at setup, c1 on receipt).
        raise InvalidPoint(SECTION, "share-point", "share is not a valid group element", peer=sender) from None
    if not ok:
        raise InvalidProof(SECTION, "chaum-pedersen", f"share proof fails for position {share.position}", peer=sender)


class Reveal:
    """Collects the shares of one card for one audience (`None`: everyone) and decodes it."""

    def __init__(self, deck: Deck, position: int, audience: bytes | None = None) -> None:
        _check_position(deck, position)
        seats = deck.joint.game.seats
        if audience is not None and audience not in seats:
            raise UsageError(SECTION, "audience", "the audience of a private reveal must be seated")
        self.deck = deck
        self.position = position
        self.audience = audience
        self.expected: tuple[bytes, ...] = tuple(p for p in seats if p != audience)
        self._shares: dict[bytes, bytes] = {}

    def receive(self, sender: bytes, share: Share, *, own: bool = False) -> None:
        """Verify and record `sender`'s share. Nothing changes if any check fails.

        `own=True` records a share this peer made itself with `make_share`: it is
        checked for place but its proof is not re-verified."""
        if sender not in self.expected:
            if sender == self.audience:
                raise ProtocolViolation(
                    SECTION, "own-share-published", "the recipient must not publish its share", peer=sender
                )
            self.deck.joint.game.seat_of(sender, SECTION)
        if sender in self._shares:
            raise ProtocolViolation(SECTION, "duplicate-share", "a second share from this peer", peer=sender)
        if share.position != self.position:
            raise ProtocolViolation(
                SECTION, "wrong-card", f"share is for position {share.position}, not {self.position}", peer=sender
            )
        if not own:
            verify_share(self.deck, sender, share)
        self._shares[sender] = share.share

    @property
    def shares(self) -> dict[bytes, bytes]:
        """The verified shares so far, by peer."""
        return dict(self._shares)

    @property
    def missing(self) -> tuple[bytes, ...]:
        """Peers whose share is still expected, in seat order."""
        return tuple(p for p in self.expected if p not in self._shares)

    @property
    def complete(self) -> bool:
        return not self.missing

    def card(self, keys: DeckKeys | None = None) -> int:
        """The card index. A private reveal needs the recipient's own `keys`."""
        if not self.complete:
            raise UsageError(SECTION, "incomplete", f"{len(self.missing)} share(s) still missing")
        c = self.deck.ciphertexts[self.position]
        total = IDENTITY
        for d in self._shares.values():
            total = add(total, d)
        if self.audience is not None:
            if keys is None or keys.peer != self.audience:
                raise UsageError(SECTION, "audience", "only the recipient's keys can finish a private reveal")
            _check_keys(self.deck, keys)
            total = add(total, mul(keys.secret, c.c1))
        index = self.deck.index_of(sub(c.c2, total))
        if index is None:
            raise CardMismatch(
                SECTION,
                "not-a-card",
                f"position {self.position} decrypts to no card of this deck; open the round (§8.7)",
            )
        return index


class CardLedger:
    """The cards this peer has seen in one deck, by position: a card at two positions is a cheat."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self._by_card: dict[int, int] = {}

    def learn(self, position: int, index: int) -> None:
        """Record that `position` holds card `index`; raise if another position holds it."""
        _check_position(self.deck, position)
        seen = self._by_card.get(index)
        if seen is not None and seen != position:
            raise CardMismatch(
                SECTION, "duplicate-card", f"card {index} at positions {seen} and {position}; open the round (§8.7)"
            )
        self._by_card[index] = position

    @property
    def known(self) -> dict[int, int]:
        """Position → card index for every card seen."""
        return {p: i for i, p in self._by_card.items()}
