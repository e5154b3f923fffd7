"""A deterministic, seeded discrete-event network for `p2p.order` (no sockets, no trio).

Every peer is an `Orderer` with a real Ed25519 key; frames travel with seeded latency
and jitter (so they reorder across and within links) and may be dropped; the orderers'
retransmission and heartbeats repair the losses.
"""

from __future__ import annotations

import heapq
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p.identity import CERT_FILE, KEY_FILE, Certificate, Identity, load_or_create_identity, make_certificate
from p2p.order import Delivered, OrderError, Orderer
from p2p.signing import SIGNED_DOMAIN, signed_message
from p2p.signing import SignedMessage as Envelope
from p2p.identity import verify_signature
from p2p.wire import decode_map

_IDENTITIES: dict[bytes, Identity] = {}
_FILES: dict[int, tempfile.TemporaryDirectory[str]] = {}  # where their files live: a folder per process, removed at exit


def seeded_identity(seed: bytes) -> Identity:
    """A real identity (key + self-signed certificate) determined by a 32-byte seed."""
    if seed not in _IDENTITIES:
        key = Ed25519PrivateKey.from_private_bytes(seed)
        # (a worker process of `tests.spread` makes its own: it inherits this one's name)
        if os.getpid() not in _FILES:
            _FILES[os.getpid()] = tempfile.TemporaryDirectory(prefix="bandit-id-")
        folder = Path(_FILES[os.getpid()].name) / seed.hex()
        folder.mkdir()
        (folder / KEY_FILE).write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        (folder / KEY_FILE).chmod(0o600)
        serial = int.from_bytes(seed[:8], "big") >> 2 or 1
        (folder / CERT_FILE).write_text(Certificate.from_der(make_certificate(key, serial=serial)).pem)
        _IDENTITIES[seed] = load_or_create_identity(folder)
    return _IDENTITIES[seed]


def seeded_identity_of(peer_id: bytes) -> Identity | None:
    """The seeded identity with this peer id, if one was made here (a test that alters a
    log signs it as its writer, as the writer itself could)."""
    return next((identity for identity in _IDENTITIES.values() if identity.peer_id == peer_id), None)


def make_signer(identity: Identity) -> Callable[[dict[str, Any]], Envelope]:
    return partial(signed_message, identity)


def transmit(envelope: Envelope) -> Envelope:
    """What the receiver gets: the same bytes, decoded afresh (as after the wire)."""
    return Envelope(envelope.sender, decode_map(envelope.body), envelope.body, envelope.sig)


@dataclass
class SimPeer:
    seat: int
    orderer: Orderer
    identity: Identity
    delivered: list[Delivered] = field(default_factory=list)
    sides: list[tuple[int, Envelope]] = field(default_factory=list)
    errors: list[OrderError] = field(default_factory=list)


class Network:
    check_deadlines = False  # (a test sets it: every remembered deadline is asked again and compared)

    def __init__(
        self,
        peers: int,
        seed: int,
        *,
        latency: float = 0.002,
        jitter: float = 0.002,
        drop: float = 0.0,
        identities: list[Identity] | None = None,
        game: bytes | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.latency, self.jitter, self.drop = latency, jitter, drop
        if identities is None:
            identities = [seeded_identity(self.rng.randbytes(32)) for _ in range(peers)]
        ids = [identity.peer_id for identity in identities]
        self.keys = {identity.peer_id: identity.certificate.public_key for identity in identities}
        game = game if game is not None else self.rng.randbytes(32)
        self.game = game
        self.peers = [
            SimPeer(i, Orderer(seats=ids, me=i, game=game, sign=make_signer(identity)), identity)
            for i, identity in enumerate(identities)
        ]
        self.now = 0.0
        self._queue: list[tuple[float, int, int, Envelope, int]] = []  # (at, order, to, envelope, from)
        self.arriving_from = -1  # the seat whose link the frame arriving now came on
        self._later: list[tuple[float, int, Any]] = []  # (time, order, action)
        self._n = 0
        # Each peer's own deadlines (`own_deadlines`) as last asked, until something reaches
        # or leaves that peer: asking every peer after every event was a twentieth of a game's time.
        self._due: dict[int, tuple[float | None, ...]] = {}
        self._checked: set[tuple[bytes, bytes, bytes]] = set()  # (sender, signature, body): signatures that held

    def _post(self, src: int, dst: int, envelope: Envelope) -> None:
        if self._lost(src):
            return
        at = self.now + self.latency + self.rng.random() * self.jitter
        self._n += 1
        heapq.heappush(self._queue, (at, self._n, dst, envelope, src))

    def _lost(self, src: int) -> bool:
        """Whether the next frame `src` sends is dropped (a seeded draw for every frame)."""
        return self.rng.random() < self.drop

    def broadcast(self, src: int, envelope: Envelope) -> None:
        self._due.pop(src, None)  # (what it sends, it made: its state moved)
        for dst in range(len(self.peers)):
            if dst != src:
                self._post(src, dst, envelope)

    def send(self, seat: int, payload: dict[str, Any]) -> Envelope | None:
        """`payload` from `seat`, stamped and sent; None while it waits to be stamped
        (§7.3: it goes when `released`), else the last message that went now."""
        peer = self.peers[seat]
        self._due.pop(seat, None)
        sent = peer.orderer.post(payload, self.now)
        for envelope in sent:
            self.broadcast(seat, envelope)
        return sent[-1] if sent else None

    def _arrive(self, dst: int, envelope: Envelope) -> None:
        peer = self.peers[dst]
        assert self._signed(envelope)
        try:
            peer.orderer.receive(transmit(envelope), self.now, relayed=self.relayed(envelope))
            for released in peer.orderer.released(self.now):
                self.broadcast(peer.seat, released)
            self._ack_if_due(peer)  # first, as a live peer does: everybody's delivery waits on it (§7.4)
            self.on_deliveries(peer)
        except OrderError as error:
            peer.errors.append(error)
        self._ack_if_due(peer)

    def _signed(self, envelope: Envelope) -> bool:
        """Whether the frame is signed by its sender (the transport's check, §4.5), checked
        once per frame: it reaches every receiver with the same bytes."""
        seen = (envelope.sender, envelope.sig, envelope.body)
        if seen not in self._checked:
            if not verify_signature(self.keys[envelope.sender], envelope.sig, SIGNED_DOMAIN + envelope.body):
                return False
            self._checked.add(seen)
        return True

    def relayed(self, envelope: Envelope) -> bool:
        """Whether the frame arriving now came on another link than its signer's (§7.10)."""
        return self.arriving_from >= 0 and self.peers[self.arriving_from].orderer.seats[self.arriving_from] != envelope.sender

    def _ack_if_due(self, peer: SimPeer) -> None:
        if peer.orderer.ack_due():
            self.broadcast(peer.seat, peer.orderer.ack(self.now))

    def on_deliveries(self, peer: SimPeer) -> None:
        """Take what `peer` can deliver now (subclasses process each in turn)."""
        peer.sides.extend(peer.orderer.side_deliveries())
        peer.delivered.extend(peer.orderer.deliveries())

    def running(self, seat: int) -> bool:
        """Whether `seat`'s timers run (a subclass stops those of a dead or departed peer)."""
        return True

    def _timers(self) -> None:
        for peer in self.peers:
            if self.running(peer.seat):
                self._orderer_timer(peer)

    def _orderer_timer(self, peer: SimPeer) -> None:
        """Run `peer`'s order-layer timer if it is due: retransmissions and heartbeats."""
        deadline = self.own_deadlines(peer.seat)[0]
        if deadline is not None and deadline <= self.now:
            self._due.pop(peer.seat, None)
            for seat, envelope in peer.orderer.on_timer(self.now):
                if seat < 0:
                    self.broadcast(peer.seat, envelope)
                else:
                    self._post(peer.seat, seat, envelope)

    def own_deadlines(self, seat: int) -> tuple[float | None, ...]:
        """`seat`'s own deadlines (`peer_deadlines`), remembered until something reaches
        that peer, leaves it or fires its timers, and forgotten wholesale whenever an action
        of the test or a scheduled one runs (either may touch any peer)."""
        due = self._due.get(seat)
        if due is None:
            due = self._due[seat] = self.peer_deadlines(seat)
        elif self.check_deadlines:
            assert due == self.peer_deadlines(seat), f"seat {seat}: remembered {due}, now {self.peer_deadlines(seat)}"
        return due

    def peer_deadlines(self, seat: int) -> tuple[float | None, ...]:
        """When each of `seat`'s state machines next has timer work (a subclass adds its own)."""
        return (self.peers[seat].orderer.next_deadline(),)

    def schedule(self, at: float, action: Any) -> None:
        """Run `action()` at simulated time `at` (a player's reaction time, say)."""
        self._n += 1
        heapq.heappush(self._later, (at, self._n, action))

    def deadlines(self) -> list[float]:
        """Every pending timer (subclasses add their own)."""
        out = [d for p in self.peers if self.running(p.seat) and (d := self.own_deadlines(p.seat)[0]) is not None]
        if self._later:
            out.append(self._later[0][0])
        return out

    def run_until(self, t: float) -> None:
        self._due.clear()  # (the test may have acted on any peer since)
        while True:
            deadlines = self.deadlines()
            next_frame = self._queue[0][0] if self._queue else None
            candidates = [x for x in [next_frame, min(deadlines, default=None)] if x is not None]
            step = min(candidates, default=None)
            if step is None or step > t:
                self.now = t
                return
            self.now = max(self.now, step)
            if next_frame is not None and next_frame <= self.now:
                _, _, dst, envelope, self.arriving_from = heapq.heappop(self._queue)
                self._arrive(dst, envelope)
                self._due.pop(dst, None)
                self.arriving_from = -1
            while self._later and self._later[0][0] <= self.now:
                heapq.heappop(self._later)[2]()
                self._due.clear()
            self._timers()

    def quiesce(self, extra: float = 30.0) -> None:
        """Run until every sent message is delivered everywhere (heartbeats repair drops)."""
        self.run_until(self.now + extra)
