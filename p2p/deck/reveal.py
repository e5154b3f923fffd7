"""Revealing cards: decryption shares with proofs, each published at most once (§8.5).

Theory of operation. A card at position p of a deck is (c1, c2) = (R·G, M + R·Y) with
Y = Σ x_j·G, so M = c2 − Σ_j x_j·c1. Seat j's *share* of the card is D_j = x_j·c1. Whoever
holds every seat's share reads the card, so the table must never let a share become
public while that would show the card to anyone outside the audience. Shares are
deterministic, so a share published once serves every later reveal of the same card.

`CardShares` plans, per card, who owes what for each reveal, in the order the reveals
are asked for (the same at every peer). A card's *hidden* seats are those whose share is
neither published nor owed by a reveal already planned:

- hidden = everybody (a card nobody was shown): a reveal to all takes a *plain* share
  (D_j with a Chaum–Pedersen proof) from every seat; a reveal to R takes one from every
  seat but R, so afterwards only R's share is hidden: R alone can read the card.
- hidden = {K} (K was shown the card): a reveal to all takes only K's plain share; a
  reveal to another seat S takes K's share *sealed* to S: (U, V) = (t·G, D_K + t·X_S),
  an ElGamal encryption under S's key with a proof that it holds x_K·c1 (`seal`). S
  unseals D_K = V − x_S·U; to everybody else (U, V) says nothing about D_K, so K's share
  stays hidden and the card stays known to K and S only. A reveal to K itself takes
  nothing.
- hidden = nobody: the card is public; nothing is owed.

Every share is checked on receipt, a wrong one is refused at once and blamed on its
sender, and a share owed by nobody is refused (`not-owed`). A decrypted point that is
not a card of the deck, or one card at two positions (`CardLedger`), can then only come
from a dishonest shuffle step: the error says so and the round opening (§8.7) names the
peer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .context import MAX_CARDS
from .errors import CardMismatch, DeckError, InvalidPoint, InvalidProof, ProtocolViolation, UsageError
from .group import IDENTITY, POINT_BYTES, SCALAR_BYTES, add, mul, sub
from .hashing import TAG_CHAUM_PEDERSEN, TAG_SEALED_SHARE, u32
from .keys import DeckKeys
from .proofs import Proof, SealProof, prove_dleq, seal, verify_dleq, verify_seal
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


@dataclass(frozen=True)
class SealedShare:
    """Seat K's share of one card sealed to the seat S a private reveal is for (§8.5):
    (U, V) = (t·G, x_K·c1 + t·X_S), with its seal proof bound to K and S.

    Wire: {"chain": bin 32, "position": int, "u": bin 32, "v": bin 32, "e", "s", "r": bin 32}."""

    chain: bytes
    position: int
    u: bytes
    v: bytes
    proof: SealProof

    def __post_init__(self) -> None:
        expect_bytes(self.chain, ID_BYTES, "chain id", SECTION)
        expect_int(self.position, 0, MAX_CARDS - 1, "position", SECTION)
        expect_bytes(self.u, POINT_BYTES, "sealed share u", SECTION)
        expect_bytes(self.v, POINT_BYTES, "sealed share v", SECTION)

    def to_wire(self) -> dict[str, Any]:
        return {
            "chain": self.chain,
            "position": self.position,
            "u": self.u,
            "v": self.v,
            "e": self.proof.e,
            "s": self.proof.s,
            "r": self.proof.r,
        }

    @classmethod
    def from_wire(cls, obj: Any, sender: bytes) -> SealedShare:
        r = Reader(obj, "sealed share", ("chain", "position", "u", "v", "e", "s", "r"), SECTION, sender)
        try:
            return cls(
                r.bin("chain", ID_BYTES),
                r.integer("position", 0, MAX_CARDS - 1),
                r.bin("u", POINT_BYTES),
                r.bin("v", POINT_BYTES),
                SealProof(r.bin("e", SCALAR_BYTES), r.bin("s", SCALAR_BYTES), r.bin("r", SCALAR_BYTES)),
            )
        except DeckError as err:
            raise err.attributed(sender) from None


def _seal_context(deck: Deck, position: int, peer: bytes, recipient: bytes) -> tuple[bytes, ...]:
    return (deck.chain, u32(position), peer, recipient)


def make_sealed_share(keys: DeckKeys, deck: Deck, position: int, recipient: bytes, source: ByteSource) -> SealedShare:
    """This peer's share of the card at `position`, sealed to `recipient` (a seat)."""
    _check_position(deck, position)
    _check_keys(deck, keys)
    if recipient == keys.peer:
        raise UsageError(SECTION, "recipient", "a share is never sealed to its own seat")
    z = deck.joint.key_of(recipient, SECTION)
    c1 = deck.ciphertexts[position].c1
    u, v, proof = seal(
        keys.secret, keys.public, c1, z, TAG_SEALED_SHARE, _seal_context(deck, position, keys.peer, recipient), source
    )
    return SealedShare(deck.chain, position, u, v, proof)


def verify_sealed_share(deck: Deck, sender: bytes, recipient: bytes, sealed: SealedShare) -> None:
    """Raise unless `sealed` is `sender`'s share of the card it names, sealed to `recipient`."""
    x = deck.joint.key_of(sender, SECTION)
    z = deck.joint.key_of(recipient, SECTION)
    if sealed.chain != deck.chain or sealed.position >= len(deck.ciphertexts):
        raise ProtocolViolation(SECTION, "wrong-card", "sealed share names a card that is not in this deck", peer=sender)
    c1 = deck.ciphertexts[sealed.position].c1
    context = _seal_context(deck, sealed.position, sender, recipient)
    try:
        ok = verify_seal(x, c1, z, sealed.u, sealed.v, sealed.proof, TAG_SEALED_SHARE, context)
    except InvalidPoint:
        raise InvalidPoint(SECTION, "sealed-point", "sealed share is not made of valid group elements", peer=sender) from None
    if not ok:
        raise InvalidProof(SECTION, "seal", f"sealed share proof fails for position {sealed.position}", peer=sender)


def unseal(keys: DeckKeys, sealed: SealedShare) -> bytes:
    """The share inside `sealed`, for the seat it was sealed to: V − x·U."""
    return sub(sealed.v, mul(keys.secret, sealed.u))


class CardShares:
    """The share plan of one card (§8.5): whose share is published or owed, and which
    published shares are in, so each seat publishes its share of a card at most once."""

    def __init__(self, deck: Deck, position: int) -> None:
        _check_position(deck, position)
        self.deck = deck
        self.position = position
        self.promised: set[bytes] = set()  # published, or owed by a planned reveal
        self.published: dict[bytes, bytes] = {}  # verified plain shares (add them with `publish`)
        self.published_sum = IDENTITY  # their sum, kept as they come: a reveal adds only the rest

    def publish(self, sender: bytes, share: bytes) -> None:
        """Record `sender`'s verified plain share of this card."""
        if sender not in self.published:
            self.published[sender] = share
            self.published_sum = add(self.published_sum, share)

    @property
    def hidden(self) -> tuple[bytes, ...]:
        """Seats whose share nobody but themselves (and whom they sealed it to) holds."""
        return tuple(p for p in self.deck.joint.game.seats if p not in self.promised)

    def plan(self, audience: bytes | None) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
        """(seats owing a plain share, seats owing a share sealed to `audience`) for the
        next reveal of this card, and note the plain ones as promised."""
        hidden = self.hidden
        if audience is None or audience in hidden:
            plain, sealed = tuple(p for p in hidden if p != audience), ()
        else:
            plain, sealed = (), hidden
        self.promised.update(plain)
        return plain, sealed


class Reveal:
    """Collects the shares one reveal of a card takes, for one audience (`None`: everyone),
    and decodes it. `card` is the card's share plan, shared by every reveal of that card
    (a fresh plan when omitted: a card nobody was shown)."""

    def __init__(self, deck: Deck, position: int, audience: bytes | None = None, card: CardShares | None = None) -> None:
        _check_position(deck, position)
        seats = deck.joint.game.seats
        if audience is not None and audience not in seats:
            raise UsageError(SECTION, "audience", "the audience of a private reveal must be seated")
        if card is None:
            card = CardShares(deck, position)
        elif card.deck.chain != deck.chain or card.position != position:
            raise UsageError(SECTION, "plan", "the share plan belongs to another card")
        self.deck = deck
        self.position = position
        self.audience = audience
        self.plan = card
        self.plain_from, self.sealed_from = card.plan(audience)
        self.expected: tuple[bytes, ...] = tuple(p for p in seats if p in self.plain_from or p in self.sealed_from)
        # Shares an earlier reveal owes and this one decodes with (see `missing`).
        self._relied = tuple(p for p in seats if p in card.promised and p != audience and p not in self.plain_from)
        self._shares: dict[bytes, bytes] = {}
        self._sealed: dict[bytes, SealedShare] = {}

    def receive(self, sender: bytes, share: Share | SealedShare, *, own: bool = False, proven: bool = False) -> None:
        """Verify and record `sender`'s share. Nothing changes if any check fails.

        `own=True` records a share this peer made itself, and `proven=True` a plain share
        whose proof `verify_share` already accepted for the deck it names: either is
        checked for place, but its proof is not verified again."""
        if sender not in self.expected:
            self.deck.joint.game.seat_of(sender, SECTION)
            if sender == self.audience and isinstance(share, Share):
                raise ProtocolViolation(
                    SECTION, "own-share-published", "the recipient must not publish its share", peer=sender
                )
            raise ProtocolViolation(
                SECTION, "not-owed", "this seat owes no share to this reveal (its share is published or not due)", peer=sender
            )
        if sender in self._shares or sender in self._sealed:
            raise ProtocolViolation(SECTION, "duplicate-share", "a second share from this peer", peer=sender)
        if share.position != self.position:
            raise ProtocolViolation(
                SECTION, "wrong-card", f"share is for position {share.position}, not {self.position}", peer=sender
            )
        if isinstance(share, SealedShare):
            if sender not in self.sealed_from:
                raise ProtocolViolation(SECTION, "wrong-kind", "a sealed share where a plain share is owed", peer=sender)
            assert self.audience is not None
            if not own:
                verify_sealed_share(self.deck, sender, self.audience, share)
            self._sealed[sender] = share
            return
        if sender not in self.plain_from:
            raise ProtocolViolation(SECTION, "wrong-kind", "a plain share where a sealed share is owed", peer=sender)
        if not own and not (proven and share.chain == self.deck.chain):
            verify_share(self.deck, sender, share)
        self._shares[sender] = share.share
        self.plan.publish(sender, share.share)

    @property
    def shares(self) -> dict[bytes, bytes]:
        """The verified plain shares this reveal received, by peer."""
        return dict(self._shares)

    @property
    def missing(self) -> tuple[bytes, ...]:
        """Seats whose share is still awaited, in seat order: what this reveal is owed,
        and the plain shares it decodes with that an earlier reveal is still owed."""
        have = set(self._shares) | set(self._sealed)
        return tuple(
            p
            for p in self.deck.joint.game.seats
            if (p in self.expected and p not in have) or (p in self._relied and p not in self.plan.published)
        )

    @property
    def complete(self) -> bool:
        return not self.missing

    def card(self, keys: DeckKeys | None = None) -> int:
        """The card index. A private reveal needs the recipient's own `keys`."""
        if not self.complete:
            raise UsageError(SECTION, "incomplete", f"{len(self.missing)} share(s) still missing")
        c = self.deck.ciphertexts[self.position]
        if self.audience is not None:
            if keys is None or keys.peer != self.audience:
                raise UsageError(SECTION, "audience", "only the recipient's keys can finish a private reveal")
            _check_keys(self.deck, keys)
        published = self.plan.published
        total = self.plan.published_sum  # (every seat's share is published, or ours, or sealed to us)
        for peer in self.deck.joint.game.seats:
            if peer in published:
                continue
            if keys is None or (peer != self.audience and peer not in self._sealed):
                raise UsageError(SECTION, "incomplete", "a share this reveal decodes with is not in")
            share = mul(keys.secret, c.c1) if peer == self.audience else unseal(keys, self._sealed[peer])
            total = add(total, share)
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
