"""Per-game ElGamal keys and the joint key (protocol.md §8.3).

Theory of operation: at the start of a game every peer draws a secret scalar x, publishes
X = x·G with a Schnorr proof of knowledge bound to the game id and its own peer id, and
collects everybody else's. The proof is what stops a rogue key: without it a peer could
announce X' = x'·G − X_other and control the joint key. Binding the peer id stops a peer
from replaying another's key as its own; binding the game id stops replays across games.
When every seat has a verified key, the joint key is Y = Σ X_j in seat order. A card
encrypted under Y opens only with a decryption share from every peer.

`KeySetup` is the collecting state: fed with each delivered `KeyShare` (its own too),
it validates fully before recording anything and refuses duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .context import GameContext
from .errors import DeckError, InvalidProof, ProtocolViolation, UsageError
from .group import IDENTITY, POINT_BYTES, SCALAR_BYTES, add, check_point, mul_base
from .hashing import TAG_SCHNORR
from .proofs import Proof, prove_dlog, verify_dlog
from .sampling import ByteSource, random_scalar
from .wire import Reader, expect_bytes

SECTION: Final = "§8.3"


@dataclass(frozen=True)
class KeyShare:
    """A peer's public key X with its Schnorr proof. Wire: {"key": X, "e": e, "s": s}."""

    key: bytes
    proof: Proof

    def __post_init__(self) -> None:
        expect_bytes(self.key, POINT_BYTES, "key", SECTION)

    def to_wire(self) -> dict[str, Any]:
        return {"key": self.key, "e": self.proof.e, "s": self.proof.s}

    @classmethod
    def from_wire(cls, obj: Any, sender: bytes) -> KeyShare:
        r = Reader(obj, "key share", ("key", "e", "s"), SECTION, sender)
        try:
            return cls(r.bin("key", POINT_BYTES), Proof(r.bin("e", SCALAR_BYTES), r.bin("s", SCALAR_BYTES)))
        except DeckError as err:
            raise err.attributed(sender) from None


def _context(game: GameContext, peer: bytes) -> tuple[bytes, ...]:
    return (game.game_id, peer)


@dataclass(frozen=True, repr=False)
class DeckKeys:
    """One peer's secret key for one game. Never leaves the peer; `repr` hides the secret."""

    game: GameContext
    peer: bytes
    secret: bytes
    public: bytes

    @classmethod
    def generate(cls, game: GameContext, peer: bytes, source: ByteSource) -> DeckKeys:
        """Draw x from `source` and compute X = x·G."""
        if peer not in game.seats:
            raise UsageError(SECTION, "peer", "keys are made for a seated peer")
        x = random_scalar(source)
        return cls(game, peer, x, mul_base(x))

    def key_share(self, source: ByteSource) -> KeyShare:
        """The message announcing X, with a fresh Schnorr proof."""
        return KeyShare(
            self.public, prove_dlog(self.secret, self.public, TAG_SCHNORR, _context(self.game, self.peer), source)
        )

    def __repr__(self) -> str:
        return f"DeckKeys(peer={self.peer[:8].hex()}, public={self.public.hex()})"


def verify_key_share(game: GameContext, sender: bytes, share: KeyShare) -> None:
    """Raise unless `share` is `sender`'s valid key with a proof bound to this game and peer."""
    game.seat_of(sender, SECTION)
    try:
        check_point(share.key, "public key")
        ok = verify_dlog(share.key, share.proof, TAG_SCHNORR, _context(game, sender))
    except DeckError as err:
        raise err.attributed(sender) from None
    if not ok:
        raise InvalidProof(SECTION, "schnorr", "key proof does not verify for this game and peer", peer=sender)


@dataclass(frozen=True)
class JointKey:
    """Every seat's verified public key (seat order) and the joint key Y = Σ X_j."""

    game: GameContext
    keys: tuple[bytes, ...]
    point: bytes

    def key_of(self, peer: bytes, section: str = SECTION) -> bytes:
        """The public key X of the seated `peer`."""
        return self.keys[self.game.seat_of(peer, section)]


class KeySetup:
    """Collects one verified `KeyShare` per seat, then yields the `JointKey`."""

    def __init__(self, game: GameContext) -> None:
        self.game = game
        self._keys: dict[bytes, bytes] = {}

    def receive(self, sender: bytes, share: KeyShare) -> None:
        """Verify and record `sender`'s key. Nothing changes if any check fails."""
        if sender in self._keys:
            raise ProtocolViolation(SECTION, "duplicate-key", "a second key share from this peer", peer=sender)
        verify_key_share(self.game, sender, share)
        self._keys[sender] = share.key

    @property
    def missing(self) -> tuple[bytes, ...]:
        """Seats whose key has not arrived yet, in seat order."""
        return tuple(p for p in self.game.seats if p not in self._keys)

    @property
    def complete(self) -> bool:
        return not self.missing

    def joint(self) -> JointKey:
        """The joint key; `UsageError` before every seat's key is in."""
        if not self.complete:
            raise UsageError(SECTION, "incomplete", f"{len(self.missing)} key share(s) still missing")
        keys = tuple(self._keys[p] for p in self.game.seats)
        y = IDENTITY
        for x in keys:
            y = add(y, x)
        if y == IDENTITY:
            # Only if the secrets sum to zero: every seat would have to be in one coalition.
            raise ProtocolViolation(SECTION, "joint-key", "the public keys sum to the identity")
        return JointKey(self.game, keys, y)
