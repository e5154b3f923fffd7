"""The shuffle chain: a joint shuffle that no single peer can see through (protocol.md §8.4).

Theory of operation. A chain turns a list of known cards into a deck of ciphertexts under
the joint key Y whose order nobody knows:

1. Input: the trivial encryption (c1, c2) = (identity, M_i) of each card i, in the order
   given — the canonical deck 0..n-1 for a round's first chain; the discard pile's cards
   (all but its top card, bottom first) for a reshuffle (R7). The input is public and
   built fresh from card points, so nothing links a reshuffled deck to old ciphertexts.
2. Each peer in seat order takes the previous deck, picks a permutation π and a fresh
   scalar r_j per position and publishes
       out[j] = (in[π(j)].c1 + r_j·G,  in[π(j)].c2 + r_j·Y)
   with a commitment H32(shuffle-commit, chain id, step, peer, π, r, salt) and a proof
   of the shuffle (`shuffle_proof`) that the output holds exactly the input's cards.
   Re-encryption keeps every plaintext and makes the ciphertexts unlinkable to anyone
   not knowing π and r, so one honest shuffler hides the order from everybody else.
3. Every received step is checked before it is recorded: right sender (seat order),
   right chain and step, right size, every point valid, no two c1 equal, no c1 passed
   through unchanged from the input (a card left un-re-randomized is traceable), and
   its proof verifies: no step can replace, copy or invent a card.
4. At round end each peer opens its steps (π, r, salt); `verify_opening` checks the
   commitment, then recomputes the step and compares every ciphertext (§8.7), which
   names where every card of the deck lay.

`ShuffleChain` is the state of one chain, fed with every delivered `ShuffleStep` (the
local peer's too). `make_step` computes the local peer's step without recording it; when
that exact step comes back through delivery, the point checks are skipped since this
chain computed it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

from .context import MAX_CARDS, MAX_SEATS, GameContext
from .errors import (
    CommitmentMismatch,
    DeckError,
    InvalidPoint,
    MalformedMessage,
    InvalidProof,
    ProtocolViolation,
    ShuffleMismatch,
    UsageError,
)
from .group import IDENTITY, POINT_BYTES, SCALAR_BYTES, add, is_point, is_scalar, mul, mul_base
from .hashing import TAG_CHAIN_ID, TAG_SHUFFLE_COMMIT, digest32, u32, u32s
from .kept import Kept
from .keys import JointKey
from .sampling import ByteSource, random_permutation, random_scalar
from .shuffle_proof import ShuffleProof, deck_bytes, proof_bytes, prove_shuffle, verify_shuffle
from .wire import Reader, chunks, expect_bytes, expect_int

SECTION: Final = "§8.4"
OPENING_SECTION: Final = "§8.7"
CIPHERTEXT_BYTES: Final = 2 * POINT_BYTES
SALT_BYTES: Final = 32
ID_BYTES: Final = 32
MAX_ROUND: Final = 2**32 - 1


@dataclass(frozen=True)
class Ciphertext:
    """An ElGamal ciphertext (c1, c2) = (r·G, M + r·Y)."""

    c1: bytes
    c2: bytes


def chain_id(joint: JointKey, round: int, number: int, cards: Sequence[int]) -> bytes:
    """H32(chain-id, deck_id, seats, Y, u32(round), u32(number), u32s(cards))."""
    game = joint.game
    return digest32(
        TAG_CHAIN_ID, game.deck_id, b"".join(game.seats), joint.point, u32(round), u32(number), u32s(list(cards))
    )


def shuffle_commitment(
    chain: bytes, step: int, peer: bytes, perm: Sequence[int], scalars: Sequence[bytes], salt: bytes
) -> bytes:
    """H32(shuffle-commit, chain id, u32(step), peer, u32s(π), r_0‖…‖r_{n-1}, salt)."""
    return digest32(TAG_SHUFFLE_COMMIT, chain, u32(step), peer, u32s(list(perm)), b"".join(scalars), salt)


def trivial_deck(game: GameContext, cards: Sequence[int]) -> tuple[Ciphertext, ...]:
    """The chain input: (identity, M_i) for each card index i, in the given order."""
    points = game.card_points
    return tuple(Ciphertext(IDENTITY, points[i]) for i in cards)


def rerandomize(
    deck: Sequence[Ciphertext], perm: Sequence[int], scalars: Sequence[bytes], y: bytes
) -> tuple[Ciphertext, ...]:
    """out[j] = (in[π(j)].c1 + r_j·G, in[π(j)].c2 + r_j·Y): one shuffle step, made or re-checked."""
    out = []
    for j, r in zip(perm, scalars, strict=True):
        c = deck[j]
        rg = mul_base(r)
        out.append(Ciphertext(rg if c.c1 == IDENTITY else add(c.c1, rg), add(c.c2, mul(r, y))))
    return tuple(out)


def _first_mismatch(
    inp: Sequence[Ciphertext], opening: ShuffleOpening, y: bytes, out: Sequence[Ciphertext]
) -> int | None:
    """The first position of `out` that is not `inp` re-encrypted as `opening` says, or None."""
    made = rerandomize(inp, opening.perm, opening.scalars, y)
    return next((j for j, (got, want) in enumerate(zip(out, made, strict=True)) if got != want), None)


# Each seat checks every step's opening at round end, and so does the audit of each log:
# the answer is kept for the exact statement (`Kept`).
_mismatches: Kept[int | None] = Kept(b"shuffle-opening", 1024)


@dataclass(frozen=True)
class ShuffleStep:
    """One peer's shuffled deck, commitment and proof of the shuffle.

    Wire: {"chain": bin 32, "step": int, "deck": bin 64·n (c1‖c2 per position), "commit": bin 32,
    "proof": bin 32·(4n + 5) (`ShuffleProof`)}."""

    chain: bytes
    step: int
    deck: tuple[Ciphertext, ...]
    commit: bytes
    proof: ShuffleProof

    def __post_init__(self) -> None:
        expect_bytes(self.chain, ID_BYTES, "chain id", SECTION)
        expect_int(self.step, 0, MAX_SEATS - 1, "step", SECTION)
        expect_bytes(self.commit, ID_BYTES, "commitment", SECTION)
        if not isinstance(self.deck, tuple) or not 1 <= len(self.deck) <= MAX_CARDS:
            raise MalformedMessage(SECTION, "length", f"deck must hold 1..{MAX_CARDS} ciphertexts")
        for c in self.deck:
            if not isinstance(c, Ciphertext):
                raise MalformedMessage(SECTION, "type", "deck must hold ciphertexts")
            expect_bytes(c.c1, POINT_BYTES, "c1", SECTION)
            expect_bytes(c.c2, POINT_BYTES, "c2", SECTION)
        if not isinstance(self.proof, ShuffleProof):
            raise MalformedMessage(SECTION, "type", "proof must be a shuffle proof")

    def to_wire(self) -> dict[str, Any]:
        return {"chain": self.chain, "step": self.step, "deck": deck_bytes(self.deck), "commit": self.commit,
                "proof": self.proof.to_bytes()}

    @classmethod
    def from_wire(cls, obj: Any, sender: bytes) -> ShuffleStep:
        r = Reader(obj, "shuffle step", ("chain", "step", "deck", "commit", "proof"), SECTION, sender)
        chain = r.bin("chain", ID_BYTES)
        step = r.integer("step", 0, MAX_SEATS - 1)
        raw = r.bin("deck", multiple_of=CIPHERTEXT_BYTES, max_items=MAX_CARDS)
        deck = tuple(Ciphertext(c[:POINT_BYTES], c[POINT_BYTES:]) for c in chunks(raw, CIPHERTEXT_BYTES))
        commit = r.bin("commit", ID_BYTES)
        try:
            proof = ShuffleProof.from_bytes(r.bin("proof", proof_bytes(len(deck))), len(deck))
        except DeckError as err:
            raise err.attributed(sender) from None
        return cls(chain, step, deck, commit, proof)


@dataclass(frozen=True, repr=False)
class ShuffleOpening:
    """The secret behind one step, published at round end: π, the scalars r_j and the salt.

    Wire: {"chain": bin 32, "step": int, "perm": [int…], "scalars": bin 32·n, "salt": bin 32}."""

    chain: bytes
    step: int
    perm: tuple[int, ...]
    scalars: tuple[bytes, ...]
    salt: bytes

    def __post_init__(self) -> None:
        s = OPENING_SECTION
        expect_bytes(self.chain, ID_BYTES, "chain id", s)
        expect_int(self.step, 0, MAX_SEATS - 1, "step", s)
        expect_bytes(self.salt, SALT_BYTES, "salt", s)
        n = len(self.perm)
        if not 1 <= n <= MAX_CARDS or len(self.scalars) != n:
            raise MalformedMessage(s, "length", "perm and scalars must have the same length, 1..4096")
        if any(type(v) is not int for v in self.perm) or sorted(self.perm) != list(range(n)):
            raise MalformedMessage(s, "permutation", "perm is not a permutation of 0..n-1")
        for r in self.scalars:
            if not isinstance(r, bytes) or not is_scalar(r):
                raise MalformedMessage(s, "scalar", "a re-encryption scalar is not below L")

    def __repr__(self) -> str:
        return f"ShuffleOpening(chain={self.chain[:8].hex()}, step={self.step}, n={len(self.perm)})"

    def to_wire(self) -> dict[str, Any]:
        return {
            "chain": self.chain,
            "step": self.step,
            "perm": list(self.perm),
            "scalars": b"".join(self.scalars),
            "salt": self.salt,
        }

    @classmethod
    def from_wire(cls, obj: Any, sender: bytes) -> ShuffleOpening:
        r = Reader(obj, "shuffle opening", ("chain", "step", "perm", "scalars", "salt"), OPENING_SECTION, sender)
        chain = r.bin("chain", ID_BYTES)
        step = r.integer("step", 0, MAX_SEATS - 1)
        perm = r.integers("perm", 0, MAX_CARDS - 1, MAX_CARDS)
        scalars = chunks(r.bin("scalars", multiple_of=SCALAR_BYTES, max_items=MAX_CARDS), SCALAR_BYTES)
        salt = r.bin("salt", SALT_BYTES)
        try:
            return cls(chain, step, perm, scalars, salt)
        except DeckError as err:
            raise err.attributed(sender) from None


@dataclass(frozen=True)
class Deck:
    """The final deck of a complete chain: what reveals refer to, by position."""

    joint: JointKey
    chain: bytes
    round: int
    number: int
    cards: tuple[int, ...]
    ciphertexts: tuple[Ciphertext, ...]

    @cached_property
    def _decode(self) -> dict[bytes, int]:
        points = self.joint.game.card_points
        return {points[i]: i for i in self.cards}

    def index_of(self, point: bytes) -> int | None:
        """The card index whose point is `point`, if it is one of this deck's cards."""
        return self._decode.get(point)


class ShuffleChain:
    """State of one joint shuffle: expects each seat's step in turn, validates, records."""

    def __init__(self, joint: JointKey, round: int, number: int = 0, cards: Sequence[int] | None = None) -> None:
        game = joint.game
        cards = tuple(range(game.cards)) if cards is None else tuple(cards)
        if (
            not cards
            or any(type(i) is not int or not 0 <= i < game.cards for i in cards)
            or len(set(cards)) != len(cards)
        ):
            raise UsageError(SECTION, "cards", "chain input must be distinct card indices of the deck")
        if (
            type(round) is not int
            or not 0 <= round <= MAX_ROUND
            or type(number) is not int
            or not 0 <= number <= MAX_ROUND
        ):
            raise UsageError(SECTION, "round", "round and chain number must be integers in [0, 2**32)")
        self.joint = joint
        self.game = game
        self.round = round
        self.number = number
        self.cards = cards
        self.chain_id = chain_id(joint, round, number, cards)
        self.input_deck = trivial_deck(game, cards)
        self._decks: list[tuple[Ciphertext, ...]] = [self.input_deck]
        self._steps: list[ShuffleStep] = []
        self._own: ShuffleStep | None = None

    @property
    def steps(self) -> tuple[ShuffleStep, ...]:
        """The recorded steps, in seat order."""
        return tuple(self._steps)

    @property
    def expected(self) -> bytes | None:
        """The peer whose step is next, or None when the chain is complete."""
        k = len(self._steps)
        return self.game.seats[k] if k < len(self.game.seats) else None

    @property
    def complete(self) -> bool:
        return self.expected is None

    def make_step(self, peer: bytes, source: ByteSource) -> tuple[ShuffleStep, ShuffleOpening]:
        """The local peer's step (to send) and its opening (to keep secret until round end).

        Does not record the step: it is recorded when delivered back to `receive`."""
        if peer != self.expected:
            raise UsageError(SECTION, "out-of-turn", "it is not this peer's turn to shuffle")
        n = len(self.cards)
        perm = random_permutation(source, n)
        scalars = tuple(random_scalar(source) for _ in range(n))
        salt = source(SALT_BYTES)
        k = len(self._steps)
        y = self.joint.point
        deck = rerandomize(self._decks[-1], perm, scalars, y)
        proof = prove_shuffle(self._proof_context(k, peer), y, self._decks[-1], deck, perm, scalars, source)
        commit = shuffle_commitment(self.chain_id, k, peer, perm, scalars, salt)
        step = ShuffleStep(self.chain_id, k, deck, commit, proof)
        self._own = step
        return step, ShuffleOpening(self.chain_id, k, perm, scalars, salt)

    def receive(self, sender: bytes, step: ShuffleStep) -> None:
        """Validate `sender`'s step completely, then record it."""
        self.game.seat_of(sender, SECTION)
        expected = self.expected
        if expected is None:
            raise ProtocolViolation(SECTION, "chain-complete", "a step after the last seat shuffled", peer=sender)
        if sender != expected:
            raise ProtocolViolation(
                SECTION, "out-of-turn", f"step {len(self._steps)} belongs to another seat", peer=sender
            )
        if step.chain != self.chain_id:
            raise ProtocolViolation(SECTION, "wrong-chain", "step is for another chain", peer=sender)
        if step.step != len(self._steps):
            raise ProtocolViolation(
                SECTION, "wrong-step", f"step number {step.step}, expected {len(self._steps)}", peer=sender
            )
        n = len(self.cards)
        if len(step.deck) != n:
            raise ProtocolViolation(
                SECTION, "deck-size", f"deck holds {len(step.deck)} ciphertexts, not {n}", peer=sender
            )
        if step != self._own:
            for j, c in enumerate(step.deck):
                if not is_point(c.c1) or not is_point(c.c2):
                    raise InvalidPoint(SECTION, "deck-point", f"position {j} holds an invalid point", peer=sender)
        c1s: dict[bytes, int] = {}
        for j, c in enumerate(step.deck):
            if c.c1 in c1s:
                raise ProtocolViolation(
                    SECTION, "duplicate-ciphertext", f"positions {c1s[c.c1]} and {j} share one c1", peer=sender
                )
            c1s[c.c1] = j
        for c in self._decks[-1]:
            unchanged = c1s.get(c.c1)
            if unchanged is not None:
                raise ProtocolViolation(
                    SECTION,
                    "not-rerandomized",
                    f"position {unchanged} passes a ciphertext through unchanged",
                    peer=sender,
                )
        if step != self._own and not self._proven(sender, step):
            raise InvalidProof(
                SECTION,
                "shuffle-proof",
                f"step {step.step}'s proof does not show its deck to be the previous deck's cards, shuffled",
                peer=sender,
            )
        self._steps.append(step)
        self._decks.append(step.deck)
        self._own = None

    def _proven(self, sender: bytes, step: ShuffleStep) -> bool:
        """Whether `step`'s proof verifies against the previous deck (§8.4)."""
        context = self._proof_context(step.step, sender)
        try:
            return verify_shuffle(context, self.joint.point, self._decks[-1], step.deck, step.proof)
        except DeckError as err:
            raise err.attributed(sender) from None

    def _proof_context(self, step: int, peer: bytes) -> tuple[bytes, bytes, bytes]:
        """What a step's proof is bound to: chain id, u32(step), the shuffler's peer id."""
        return self.chain_id, u32(step), peer

    def deck(self) -> Deck:
        """The final deck; `UsageError` until every seat has shuffled."""
        if not self.complete:
            raise UsageError(
                SECTION, "incomplete", f"{len(self.game.seats) - len(self._steps)} seat(s) have not shuffled yet"
            )
        return Deck(self.joint, self.chain_id, self.round, self.number, self.cards, self._decks[-1])

    def verify_opening(self, sender: bytes, opening: ShuffleOpening) -> None:
        """Check one opened step (§8.7): right peer, commitment opens, output recomputes exactly."""
        s = OPENING_SECTION
        seat = self.game.seat_of(sender, s)
        if opening.chain != self.chain_id:
            raise ProtocolViolation(s, "wrong-chain", "opening is for another chain", peer=sender)
        k = opening.step
        if k >= len(self._steps) or seat != k:
            raise ProtocolViolation(s, "wrong-step", f"opening of step {k} (seat {k + 1}'s) by the peer of seat {seat + 1}",
                                     peer=sender)
        if len(opening.perm) != len(self.cards):
            raise ProtocolViolation(s, "deck-size", "opening does not fit the deck size", peer=sender)
        step = self._steps[k]
        if shuffle_commitment(self.chain_id, k, sender, opening.perm, opening.scalars, opening.salt) != step.commit:
            raise CommitmentMismatch(
                s, "shuffle-commitment", f"opening of step {k} does not match its commitment", peer=sender
            )
        inp, y = self._decks[k], self.joint.point
        statement = (y, deck_bytes(inp), u32s(opening.perm), b"".join(opening.scalars), deck_bytes(step.deck))
        j = _mismatches(statement, lambda: _first_mismatch(inp, opening, y, step.deck))
        if j is not None:
            raise ShuffleMismatch(
                s,
                "not-a-reencryption",
                f"step {k} position {j} is not a re-encryption of input position {opening.perm[j]}",
                peer=sender,
            )

    def cards_by_position(self, openings: Mapping[bytes, ShuffleOpening]) -> tuple[int, ...]:
        """Verify every step's opening (seat order) and return the card at each final position."""
        if not self.complete:
            raise UsageError(OPENING_SECTION, "incomplete", "the chain is not complete")
        order = list(range(len(self.cards)))
        for k, peer in enumerate(self.game.seats):
            opening = openings.get(peer)
            if opening is None:
                raise ProtocolViolation(OPENING_SECTION, "missing-opening", f"no opening of step {k}", peer=peer)
            self.verify_opening(peer, opening)
            order = [order[j] for j in opening.perm]
        return tuple(self.cards[i] for i in order)
