"""The round's random beacon by commit-reveal (protocol.md §8.6).

Theory of operation. Each round, every seat draws a 32-byte nonce and publishes a
commitment H32(beacon-commit, game id, round, peer, nonce). Once every seat's commitment
is delivered, each seat reveals its nonce; a reveal must open its own commitment. The
seed is H32(beacon-seed, game id, round, peer_0, nonce_0, …) over the seats in seat
order. Nobody can steer it: commitments are fixed before any nonce is known, so one
honest seat's fresh nonce makes the seed unpredictable to all others.

Outputs (`BeaconSeed`): `derive(label, n)` — a uniform integer in [0, n) for any label;
`first_player` — the seat chosen by lot (R4.5); `tie_break_salt` — 32 bytes for the
agreed order's tie-break (§7).

A nonce revealed before (in an earlier round of this game, or by another seat in this
round) is refused and blamed on the revealer: it is either predictable or copied.
What commit-reveal cannot prevent is the last revealer walking away after seeing the
seed; the table must treat a missing reveal as abandonment, never as a reason to run
the beacon again (which would let the withholder choose between two seeds).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from .context import GameContext
from .errors import CommitmentMismatch, ProtocolViolation, UsageError
from .hashing import TAG_BEACON_COMMIT, TAG_BEACON_DERIVE, TAG_BEACON_SEED, digest, digest32, u32
from .sampling import ByteSource
from .shuffle import ID_BYTES, MAX_ROUND
from .wire import Reader, expect_bytes, expect_int

SECTION: Final = "§8.6"
NONCE_BYTES: Final = 32


@dataclass(frozen=True)
class BeaconCommit:
    """Wire: {"round": int, "commit": bin 32}."""

    round: int
    commit: bytes

    def __post_init__(self) -> None:
        expect_int(self.round, 0, MAX_ROUND, "round", SECTION)
        expect_bytes(self.commit, ID_BYTES, "commitment", SECTION)

    def to_wire(self) -> dict[str, Any]:
        return {"round": self.round, "commit": self.commit}

    @classmethod
    def from_wire(cls, obj: Any, sender: bytes) -> BeaconCommit:
        r = Reader(obj, "beacon commit", ("round", "commit"), SECTION, sender)
        return cls(r.integer("round", 0, MAX_ROUND), r.bin("commit", ID_BYTES))


@dataclass(frozen=True)
class BeaconReveal:
    """Wire: {"round": int, "nonce": bin 32}. The nonce is secret until its round's
    commitments are all in (§8.6), so no repr shows it."""

    round: int
    nonce: bytes = field(repr=False)

    def __post_init__(self) -> None:
        expect_int(self.round, 0, MAX_ROUND, "round", SECTION)
        expect_bytes(self.nonce, NONCE_BYTES, "nonce", SECTION)

    def to_wire(self) -> dict[str, Any]:
        return {"round": self.round, "nonce": self.nonce}

    @classmethod
    def from_wire(cls, obj: Any, sender: bytes) -> BeaconReveal:
        r = Reader(obj, "beacon reveal", ("round", "nonce"), SECTION, sender)
        return cls(r.integer("round", 0, MAX_ROUND), r.bin("nonce", NONCE_BYTES))


def beacon_commitment(game: GameContext, round: int, peer: bytes, nonce: bytes) -> bytes:
    """H32(beacon-commit, game id, u32(round), peer, nonce)."""
    return digest32(TAG_BEACON_COMMIT, game.game_id, u32(round), peer, nonce)


@dataclass(frozen=True)
class BeaconSeed:
    """The agreed random seed of one round and what is derived from it."""

    game: GameContext
    round: int
    value: bytes

    def derive_bytes(self, label: bytes, length: int = 32) -> bytes:
        """The first `length` (≤ 64) bytes of H(beacon-derive, seed, label)."""
        if not 1 <= length <= 64:
            raise UsageError(SECTION, "length", "derive_bytes gives 1..64 bytes")
        return digest(TAG_BEACON_DERIVE, self.value, label)[:length]

    def derive(self, label: bytes, n: int) -> int:
        """A uniform integer in [0, n): H(beacon-derive, seed, label) as a 512-bit
        big-endian integer, modulo n (bias below n / 2**512)."""
        if type(n) is not int or not 1 <= n <= 2**32:
            raise UsageError(SECTION, "range", "derive draws from 1..2**32 values")
        return int.from_bytes(digest(TAG_BEACON_DERIVE, self.value, label), "big") % n

    @property
    def first_player(self) -> bytes:
        """The peer who plays first this round: seats[derive(b"first-player", seats)]."""
        seats = self.game.seats
        return seats[self.derive(b"first-player", len(seats))]

    @property
    def tie_break_salt(self) -> bytes:
        """32 bytes for the agreed order's tie-break: derive_bytes(b"tie-break-salt", 32)."""
        return self.derive_bytes(b"tie-break-salt", 32)


class Beacon:
    """State of one round's beacon: every seat's commitment, then every seat's reveal."""

    def __init__(self, game: GameContext, round: int, used: Iterable[bytes] = ()) -> None:
        """`used`: the nonces revealed in earlier rounds of this game (see `nonces`)."""
        if type(round) is not int or not 0 <= round <= MAX_ROUND:
            raise UsageError(SECTION, "round", "round must be an integer in [0, 2**32)")
        self.game = game
        self.round = round
        self._used = frozenset(used)
        self._commits: dict[bytes, bytes] = {}
        self._nonces: dict[bytes, bytes] = {}

    @staticmethod
    def draw(game: GameContext, round: int, peer: bytes, source: ByteSource) -> tuple[BeaconCommit, BeaconReveal]:
        """A fresh nonce for `peer`: the commitment to send now and the reveal to send later."""
        nonce = source(NONCE_BYTES)
        return BeaconCommit(round, beacon_commitment(game, round, peer, nonce)), BeaconReveal(round, nonce)

    @property
    def phase(self) -> str:
        """ "commit" until every seat committed, "reveal" until every seat revealed, then "done"."""
        seats = self.game.seats
        if len(self._commits) < len(seats):
            return "commit"
        return "reveal" if len(self._nonces) < len(seats) else "done"

    @property
    def missing(self) -> tuple[bytes, ...]:
        """Seats whose message for the current phase is still expected, in seat order."""
        have = self._commits if self.phase == "commit" else self._nonces
        return tuple(p for p in self.game.seats if p not in have)

    def _check_round(self, sender: bytes, round: int) -> None:
        self.game.seat_of(sender, SECTION)
        if round != self.round:
            raise ProtocolViolation(SECTION, "wrong-round", f"message for round {round}, not {self.round}", peer=sender)

    def receive_commit(self, sender: bytes, msg: BeaconCommit) -> None:
        self._check_round(sender, msg.round)
        if sender in self._commits:
            raise ProtocolViolation(SECTION, "duplicate-commit", "a second beacon commitment", peer=sender)
        self._commits[sender] = msg.commit

    def receive_reveal(self, sender: bytes, msg: BeaconReveal) -> None:
        self._check_round(sender, msg.round)
        if self.phase == "commit":
            raise ProtocolViolation(
                SECTION, "reveal-too-early", "nonce revealed before every seat committed", peer=sender
            )
        if sender in self._nonces:
            raise ProtocolViolation(SECTION, "duplicate-reveal", "a second beacon reveal", peer=sender)
        if beacon_commitment(self.game, self.round, sender, msg.nonce) != self._commits[sender]:
            raise CommitmentMismatch(
                SECTION, "beacon-commitment", "revealed nonce does not match the commitment", peer=sender
            )
        if msg.nonce in self._used or msg.nonce in self._nonces.values():
            raise ProtocolViolation(SECTION, "reused-nonce", "this nonce was revealed before in this game", peer=sender)
        self._nonces[sender] = msg.nonce

    @property
    def nonces(self) -> frozenset[bytes]:
        """Every nonce revealed in this game so far: pass it as `used` to the next round's beacon."""
        return self._used | frozenset(self._nonces.values())

    def seed(self) -> BeaconSeed:
        """The seed; `UsageError` until every seat revealed."""
        if self.phase != "done":
            raise UsageError(SECTION, "incomplete", f"{len(self.missing)} beacon message(s) still missing")
        fields = [f for p in self.game.seats for f in (p, self._nonces[p])]
        return BeaconSeed(self.game, self.round, digest32(TAG_BEACON_SEED, self.game.game_id, u32(self.round), *fields))
