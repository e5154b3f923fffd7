"""Agreed total order of signed messages (protocol.md §7): the live order of one peer.

Theory of operation
-------------------
Every peer at a table runs one `Orderer`. It is sans-I/O: it is fed envelopes that
the transport has already authenticated (signature checked against the sender's pinned
identity) and the current time, and it returns envelopes to send and messages
*delivered*, in an order that is identical at every honest peer.

Two kinds of message pass through it:

* **Content** messages (intents, shares, shuffle steps, ...) form one hash chain per
  sender: ``seq`` counts 0, 1, 2, ... and ``prev`` is the hash of the sender's previous
  content message (the game id for ``seq`` 0). Each carries a Lamport stamp and
  ``heads``: for every other seat, the (seq, hash) of the latest content message of it
  that the sender *vouches for*. A receiver vouches for a message once it vouches for
  the sender's previous one and for every one it names; its stamp must then be exactly
  one more than the highest of theirs (more is refused: no stamp can run away), and only
  stamps vouched for move the clock. A message that names what we do not hold yet is
  taken into its chain all the same (acknowledged, ordered, delivered), and vouched for
  when that arrives. Content messages are delivered in the total order and logged.
* **Acks** carry only a stamp (the highest of the content taken), ``last`` (the sender's
  own latest content seq and hash) and ``heads`` (all it has taken). An ack is a *promise*: "every content message I send after ``last``
  has a stamp greater than this one". Acks are signed but are not part of the chain
  and are not delivered or logged; they only let others decide stability, and their
  ``heads`` tell the sender what to retransmit. Only content is answered with an ack,
  and acks do not advance the Lamport clock: clocks count content, so an honest peer's
  stamps stay as low as causality allows (this matters for snap races, §7.7). Content
  waits (`post`, `released`) while an ack promised more than our clock: after taking a
  message we could not vouch for yet, or after a restart (§11.3).

A content message with stamp ``L`` is *stable* at a peer when, from every other peer
``q``, it holds a promise with stamp >= L (a content message is a promise too) *and*
every content message ``q`` had sent up to that promise. Then nothing that orders
before it can still arrive, so it may be delivered. Messages are delivered grouped by
stamp; within a stamp, by the tie-break ``SHA-256(tag || salt || stamp || sender)``,
so no seat is favoured. The salt is the round beacon; a salt set while delivering
stamp ``L`` applies from stamp ``L + 1`` on, which every peer computes identically.

Checks, and where they happen:

* on receipt (per link, cheap, needs only the sender's own history): seq continuity
  (gaps are held and filled by retransmission; a repeated seq with the same hash is
  a harmless duplicate; with a different hash it is *equivocation*, proven by the two
  signed bodies), ``prev`` matches, the stamp grows and honours every earlier promise;
* on vouching (receipt, or later when what it names arrives): the stamp is no higher
  than what it names justifies;
* on delivery (deterministic, because stability fixes what every peer holds): every
  head names a message the receiver holds, with that exact hash, stamped below the
  message. A violation there is reported as a *rejected* delivery: the message keeps
  its place in the sender's chain and in the log, but the table must not apply it.

* **Side** messages (decryption shares) form a second chain per sender (``sseq``,
  ``sprev``) but are *not* ordered: they are handed over as soon as they arrive in
  chain order. Their use does not depend on when they arrive (the table consumes them
  in its own deterministic order), so making them wait for stability would only add
  latency. They are signed, chained, logged and retransmitted like content. Nothing
  answers them at once; a receiver confirms them with its next ack, sent at the latest
  ``SIDE_CONFIRM_AFTER`` after the first unconfirmed one arrived, which is before their
  sender's retransmission timeout.

Lost frames are repaired by retransmission: a peer's heads in its acks say what it
holds of ours (both chains); whatever it lacks for longer than the retransmission
timeout is sent again, byte for byte. A third seat's content that a peer still lacks
``RELAY_AFTER`` later is relayed to it: an author that showed a message to some peers
only cannot leave the rest waiting on it.

Equivocation (§7.10): a sender may sign two different messages with one seq and send
each to different peers. Every head a peer declares about a *third* peer's chain (in its
content and acks; side heads in acks) is compared with our own copy: a different hash
means that chain forked, and we send our copy to the declarer, who then holds both
signed bodies: the proof, which raises `Equivocation` there (and theirs, sent to us,
raises it here). What an ack declares holding of *our own* chains is checked at once
against what we signed: a seq we never sent, or another hash, is a lie only we can see
for certain (`HeadsFalse`, our word: others cannot tell it from our fork); a head we
cannot match that holds back our delivery is shown to its chain's author. So that no
honest peer ever *delivers* one side of a fork, a content
message of q is delivered only once every other peer has declared holding q's chain up
to it with our hashes (its *echo*); acks go out whenever our heads changed, so a stable
message is usually echoed already (in a race, the echo costs one more message delay).
Messages relayed by another peer are taken like any other: their signatures make the
link irrelevant, except for what a message says of its sender's present state (`away`,
what it holds of our chains), taken only from the sender's own link. A refusal that the
sender's own signatures prove carries them as `evidence`, for the log and for the other
peers.
"""

from __future__ import annotations

import bisect
import heapq
import operator
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from p2p.order.chains import (
    Delivered,
    Positions,
    Mark,
    PeerChain,
    SaltSchedule,
    heads_violation,
    other_seats,
    stamp_bound,
    unjustified,
)
from p2p.order.early import MAX_HELD
from p2p.order.errors import (
    ChainBroken, Equivocation, ForeignGame, HeadsFalse, MalformedHeader, OrderError, StampBackwards,
)
from p2p.order.header import (
    ACK_TYPE,
    ZERO_HASH,
    Envelope,
    Header,
    is_side,
    message_hash,
    parse_header,
    parse_side,
    seat_of,
    side_genesis,
    tiebreak,
)
from p2p.signing import SignedMessage

RETRANSMIT_AFTER = 0.2  # seconds without progress before missing messages are resent
SIDE_CONFIRM_AFTER = RETRANSMIT_AFTER / 2  # an ack confirms side messages by then (§7.8)
HEARTBEAT_EVERY = 1.0  # seconds of silence after which an ack is sent anyway
LEAVE_TYPE = "leave"  # §9.8: a seat's last word; the others stop waiting for its echo (§7.10)
RELAY_AFTER = 1.0  # seconds a peer lacks a third seat's messages we hold before we relay them (§7.6)
REPORT_RETURNS = 10.0  # seconds within which a report of a link down that comes back adds up with the last (§11.3)
_DECLARED = operator.itemgetter(1)  # a promise's seq declared: what `PeerChain.promises` is sorted by


def owes_nothing(seats: Iterable[int]) -> None:
    """`Orderer.owed` of an order that no table feeds: it waits for no protocol work."""
    return None


def keeps_nothing(seat: int) -> int:
    """`Orderer.kept` of an order whose deliveries are all taken at once."""
    return 0


def absence_since(now: float, ended: tuple[float, Mark] | None, mark: Mark, *, ended_at: float | None = None,
                   goes_on: float = 0.0) -> float:
    """When an absence that begins `now` is timed from (§11.3): `ended` is (how long the
    last one lasted, the table's mark when it ended). The return was of no use, and the
    time away adds up, if nothing was delivered since, or if the table still waits for
    the very work it waited for from that seat when the seat came back; or if it ended
    at `ended_at`, less than `goes_on` seconds ago, whatever came meanwhile: a report
    that keeps coming back is one absence, however much each short return lets through."""
    if ended is None:
        return now
    duration, then = ended
    soon = ended_at is not None and now - ended_at < goes_on
    in_vain = soon or then[0] == mark[0] or (then[1] is not None and then[1] == mark[1])
    return now - duration if in_vain else now


Sign = Callable[[dict[str, Any]], SignedMessage]
"""Signs an inner map (which the orderer gives its ``from``) into a `SignedMessage`."""


class Orderer(Positions):
    """Total-order broadcast for one table, from the point of view of seat `me`."""

    def __init__(self, *, seats: Sequence[bytes], me: int, game: bytes, sign: Sign, salt: bytes | None = None) -> None:
        if not 0 <= me < len(seats) or len(set(seats)) != len(seats):
            raise ValueError("me must index a list of distinct peer ids")
        self.seats = tuple(seats)
        self.me = me
        self.game = game
        self._sign = sign
        self._seat_of = {peer: i for i, peer in enumerate(self.seats)}
        self._peers = [PeerChain(chain_hash=game, side_hash=side_genesis(game)) for _ in self.seats]
        self._others = other_seats(len(seats))
        self._unvouched: set[int] = set()  # seats with content taken whose stamp is not yet justified (§7.3)
        self.salts = SaltSchedule(salt if salt is not None else game)
        self._side_sent: list[SignedMessage] = []
        self._side_ready: deque[tuple[int, SignedMessage]] = deque()
        self._pending: dict[int, list[Envelope]] = {}
        self._pending_stamps: list[int] = []
        self._ready: deque[SignedMessage] = deque()  # the sorted group being delivered
        self._sent: list[Envelope] = []  # my chain, for retransmission
        self.clock = 0  # the Lamport clock: our own stamps and those of the content we vouch for (§7.3)
        self._seen = 0  # the highest stamp of content we took
        self._promised = -1  # the highest stamp our acks promised (§7.3), also before a restart (§11.3)
        self._unsent: deque[dict[str, Any]] = deque()  # content that waits until we may stamp it
        self._mine_delivered = 0  # how many of our content messages were delivered (in chain order)
        self._delivering = 0
        self._ack_wanted = 0  # highest content stamp received from others
        self._last_sent_time: float | None = None
        self._heads_changed = False  # others' content arrived since we last declared our heads
        self._sides_unconfirmed: float | None = None  # when a side message first arrived since our last ack
        self._evidence: list[tuple[int, Envelope]] = []  # our copies of forked messages, for their declarers
        # (peer, seat, side chain?) -> (when to relay, what the peer had declared of seat's chain then)
        self._relays: dict[tuple[int, int, bool], tuple[float, int]] = {}
        self._evidence_sent: set[tuple[int, int, int, bool]] = set()
        # §7.10: the delivery waiting for echoes, (sender, seq), and when `on_timer` first
        # saw it wait; the (declarer, sender, seq) whose unmatched ack its author was shown
        self._echo_wait: tuple[tuple[int, int], float] | None = None
        self._shown: set[tuple[int, int, int]] = set()
        self._away: tuple[int, ...] = ()  # the seats we have no link to, as our acks say
        # §7.10: seats whose `leave` we took (none once we left: a seat that left waits for
        # everybody's echo), and of those, the ones we have no link to: gone, with all they
        # had to say (a fork they saw, say); their echo is no longer waited for
        self._departed: frozenset[int] = frozenset()
        self._gone: frozenset[int] = frozenset()
        self._left = False
        self._away_changed = False
        self._reports_changed = False  # another peer's `away` changed since `reports_seen`
        self.position = 0
        self.owed: Callable[[Iterable[int]], Hashable] = owes_nothing
        """The protocol work the table waits for from any of these seats (§9.11), None if
        none: set by the table that feeds this order, for `mark`."""
        self.kept: Callable[[int], int] = keeps_nothing
        """The bytes of a seat's delivered content that the table this order feeds keeps
        without having taken it (behind a reveal, §9.4): they weigh on the seat's bound
        as if not delivered (§7.2, `Early.weigh`)."""

    # -- links (§7.1, §11.3) -----------------------------------------------------------

    def mark(self, seats: Iterable[int]) -> Mark:
        """How far the table is, for an absence of `seats` (`absence_since`)."""
        return self.position, self.owed(seats)

    def set_away(self, seats: Iterable[int]) -> None:
        """The seats this peer has no link to now; the next ack says so (one is due at
        once when it changed), so that every peer knows the table is partly cut off."""
        away = tuple(sorted(set(seats)))
        if away != self._away:
            self._away, self._away_changed = away, True
            self._gone = self._departed & set(away)

    @property
    def last_sent(self) -> float | None:
        """When this peer last sent an ack or a message (None: never): the others hear
        it last then."""
        return self._last_sent_time

    def gone(self) -> frozenset[int]:
        """The seats that left and are gone: we took their `leave` (§9.8) and have no link
        to them (§7.10: their echo is not waited for). The `away` of their last ack stands
        for good, and says nothing of the table now (§11.3)."""
        return self._gone

    def cut_off(self) -> dict[int, tuple[float, tuple[int, ...]]]:
        """For every other seat whose latest ack says it misses a link: (since when we
        know it, the seats it has no link to)."""
        return {i: (p.away_since, p.away) for i, p in enumerate(self._peers)
                if i != self.me and p.away and p.away_since is not None}

    @property
    def reports_changed(self) -> bool:
        """Another peer's report of its links changed since `reports_seen`."""
        return self._reports_changed

    def reports_seen(self) -> None:
        """The shell has read `cut_off` after the last change (see `has_work`)."""
        self._reports_changed = False

    # -- sending ---------------------------------------------------------------------

    def _heads(self, *, vouched: bool = False) -> list[list[Any]]:
        """What we hold of every other seat's chain (for acks), or what we vouch for (for
        content, whose stamp must be justified by what it names, §7.3)."""
        heads = []
        for i, p in enumerate(self._peers):
            if i != self.me:
                seq = p.vouched if vouched else p.next_seq - 1
                heads.append([seq, p.hashes[seq] if seq >= 0 else ZERO_HASH])
        return heads

    @property
    def may_send(self) -> bool:
        """Whether content can be stamped now: above every promise we made, and no higher
        than what we vouch for justifies (§7.3). It waits only after an ack that promised
        the stamp of content whose stamp we could not yet vouch for (it names a message we
        do not hold yet), or after a restart, until we hold again what our last ack named
        (§11.3)."""
        return self.clock >= self._promised

    def post(self, payload: Mapping[str, Any], now: float) -> list[Envelope]:
        """Send `payload` (see `send`) as soon as it may be stamped; return what goes now."""
        self._unsent.append(dict(payload))
        return self.released(now)

    def released(self, now: float) -> list[Envelope]:
        """Content that waited for `may_send` and may go now (call after `receive`)."""
        out: list[Envelope] = []
        while self._unsent and self.may_send:
            out.append(self.send(self._unsent.popleft(), now))
        return out

    def send(self, payload: Mapping[str, Any], now: float) -> Envelope:
        """Stamp, chain and sign a content message; it is delivered to us like any other.
        Only when `may_send` (a restarted peer uses `post`)."""
        if not self.may_send:
            raise RuntimeError("content cannot be stamped yet: post() it (§11.3)")
        mine = self._peers[self.me]
        self.clock += 1
        inner = dict(payload)
        inner.update(
            {"from": self.seats[self.me]},
            game=self.game,
            lamport=self.clock,
            seq=mine.next_seq,
            prev=mine.chain_hash,
            heads=self._heads(vouched=True),
        )
        envelope = self._sign(inner)
        self._accept_content(self.me, envelope)
        self._sent.append(envelope)
        self._note_sent(now)
        for i, peer in enumerate(self._peers):
            if i != self.me and peer.resend_at is None:
                peer.resend_at = now + RETRANSMIT_AFTER
        return envelope

    def _side_heads(self) -> list[list[Any]]:
        return [
            [p.side_next - 1, p.side_hash if p.side_next else ZERO_HASH]
            for i, p in enumerate(self._peers)
            if i != self.me
        ]

    def send_side(self, payload: Mapping[str, Any], now: float) -> Envelope:
        """Chain and sign a side message (§7.8); it is not ordered and not delivered to us."""
        mine = self._peers[self.me]
        inner = dict(payload)
        inner.update({"from": self.seats[self.me]}, game=self.game, sseq=mine.side_next, sprev=mine.side_hash)
        envelope = self._sign(inner)
        digest = message_hash(envelope.body)
        mine.chain_side(digest)
        self._side_sent.append(envelope)
        for i, peer in enumerate(self._peers):
            if i != self.me and peer.side_resend_at is None:
                peer.side_resend_at = now + RETRANSMIT_AFTER
        return envelope

    def side_deliveries(self) -> Iterator[tuple[int, Envelope]]:
        """(seat, side message) pairs that arrived, each sender's in chain order."""
        while self._side_ready:
            yield self._side_ready.popleft()

    def has_work(self) -> bool:
        """True when the shell has something to do after what it fed in: an ack is due,
        side messages wait to be taken, a peer's report of its links changed, or the next
        message may be deliverable. (After acks that completed nothing, the usual case, it
        has nothing to do.)"""
        if self.ack_due() or self._side_ready or self._reports_changed:
            return True
        return self._first_echoed() if self._ready else self._next_stable()

    def ack_due(self) -> bool:
        """True when others' content is stamped above every promise we have made, or
        arrived since we last declared our heads (others wait for that echo, §7.10)."""
        return self._ack_wanted > self._promised or self._heads_changed or self._away_changed

    def ack(self, now: float) -> Envelope:
        """A signed promise: our future content is stamped above our clock now."""
        mine = self._peers[self.me]
        inner = {
            "type": ACK_TYPE,
            "v": 1,
            "from": self.seats[self.me],
            "game": self.game,
            "lamport": max(self._seen, self._promised),
            "last": [mine.next_seq - 1, mine.chain_hash if mine.next_seq else ZERO_HASH],
            "heads": self._heads(),
            "slast": [mine.side_next - 1, mine.side_hash if mine.side_next else ZERO_HASH],
            "sides": self._side_heads(),
            "away": list(self._away),
        }
        self._note_sent(now)
        self._sides_unconfirmed = None
        self._away_changed = False
        return self._sign(inner)

    def _note_sent(self, now: float) -> None:
        self._promised = max(self._seen, self._promised)
        self._last_sent_time = now
        self._heads_changed = False

    # -- receiving -------------------------------------------------------------------

    def receive(self, envelope: Envelope, now: float, *, relayed: bool = False) -> None:
        """Take one authenticated envelope; then take what became deliverable from
        `deliveries()`. `relayed`: it came on another peer's link than its sender's, so
        it says nothing of its sender's present state (§7.10): not its `away`, nor what
        it holds of our chains (an old copy relayed late would speak for it now).

        Raises an `OrderError` subclass if the envelope breaks §7 in a way its sender
        alone is responsible for; the offending message changes no state (messages of
        that sender that were valid and held for reordering are kept).
        """
        seat = self._seat_of.get(envelope.sender)
        if seat is None:
            raise MalformedHeader(envelope.sender, "sender is not another seat of this table")
        if seat == self.me:  # our own message, relayed back to us: we have it (unless it is a replay)
            if envelope.inner.get("game") != self.game:
                raise ForeignGame(envelope.sender, "message is for another game")
            return
        if "sseq" in envelope.inner:  # (`is_side`, on every frame)
            self._receive_side(seat, envelope, now)
            return
        header = parse_header(envelope, len(self.seats), self.game)
        took = False
        if envelope.inner.get("type") == ACK_TYPE:
            self._check_heads_of_mine(seat, envelope, header.heads, side=False)
            self._check_heads_of_mine(seat, envelope, envelope.inner["sides"], side=True)
            self._accept_ack(seat, envelope, header, now, relayed=relayed)
            self._compare_heads(seat, envelope.inner["sides"], side=True)
        else:
            took = self._receive_content(seat, envelope, header)
        self._compare_heads(seat, header.heads, side=False)
        if not relayed:
            self._note_heads(seat, header.heads, now)
        if took and self._unvouched:
            self._vouch_all()

    def _receive_content(self, seat: int, envelope: Envelope, header: Header) -> bool:
        """Take a content message into its sender's chain, hold it until its seq is due,
        or refuse it; True if it was taken (with the held ones that followed it)."""
        peer = self._peers[seat]
        seq = header.seq
        if seq < peer.next_seq:
            if peer.hashes[seq] != message_hash(envelope.body):
                raise Equivocation(
                    envelope.sender, f"two different messages with seq {seq}", evidence=(envelope, peer.envelopes[seq])
                )
            return False  # a retransmitted copy
        if seq > peer.next_seq:
            if seq in peer.held:
                if message_hash(peer.held[seq].body) != message_hash(envelope.body):
                    raise Equivocation(envelope.sender, f"two different messages with seq {seq}",
                                       evidence=(envelope, peer.held[seq]))
                return False  # a retransmitted copy of one held
            peer.held.hold(seq, peer.next_seq, envelope, taken=peer.undelivered + self.kept(seat))
            return False
        self._check_content(seat, envelope, header)
        bound = stamp_bound(self._peers, self._others[seat], seat, seq, header.prev, header.heads)
        refusal = None if bound is None else unjustified(self._peers, self._others[seat], seat, envelope, bound)
        if refusal is not None:
            raise refusal
        justified = bound is not None  # (vouched for as it is taken: not judged twice)
        peer.held.weigh(seq, envelope, taken=peer.undelivered + self.kept(seat))  # (those held that follow weigh already)
        if seq + 1 not in peer.held:
            self._accept_content(seat, envelope, justified=justified)
            return True
        # Held messages follow: take them all, or (one does not fit: the sender forked its
        # chain) none, and refuse this one with nothing changed.
        saved = self._content_state(seat)
        try:
            self._accept_content(seat, envelope, justified=justified)
            while peer.next_seq in peer.held:
                following = peer.held.pop(peer.next_seq)
                self._check_content(seat, following, parse_header(following, len(self.seats), self.game))
                self._accept_content(seat, following)
        except OrderError:
            (self._peers[seat], self.clock, self._seen, self._ack_wanted, self._pending, self._pending_stamps,
             self._heads_changed, self._evidence, self._evidence_sent, echoes, self._unvouched, self._departed,
             self._gone) = saved
            for peer_, (echoed, unchecked) in zip(self._peers, echoes):
                peer_.echoed, peer_.unchecked = echoed, unchecked
            raise
        return True

    def _vouch(self, seat: int) -> bool:
        """Vouch for `seat`'s taken content, in chain order, as far as each stamp is
        justified by what it names (§7.3); True if any was. A stamp above what it names
        justifies is refused (`StampUnjustified`): its sender is named and the game ends."""
        peer = self._peers[seat]
        others = self._others[seat]
        start = peer.vouched
        while peer.vouched + 1 < peer.next_seq:
            seq = peer.vouched + 1
            envelope = peer.envelopes[seq]
            bound = stamp_bound(self._peers, others, seat, seq, envelope.inner["prev"], envelope.inner["heads"])
            if bound is None:
                break
            refusal = unjustified(self._peers, others, seat, envelope, bound)
            if refusal is not None:
                self._unvouched.discard(seat)  # (it says so once: the game ends here)
                raise refusal
            peer.vouched = seq
            self.clock = max(self.clock, peer.stamps[seq])
        if peer.vouched + 1 < peer.next_seq:
            self._unvouched.add(seat)
        else:
            self._unvouched.discard(seat)
        return peer.vouched != start

    def _vouch_all(self) -> None:
        """Vouch for what waited for the messages it names, now that more is vouched for."""
        progress = True
        while progress:
            progress = False
            for seat in sorted(self._unvouched):
                progress = self._vouch(seat) or progress

    def _content_state(self, seat: int) -> tuple[Any, ...]:
        """A copy of what accepting `seat`'s content changes (to undo it)."""
        p = self._peers[seat]
        copy = replace(p, hashes=list(p.hashes), stamps=list(p.stamps), held=p.held.copy(), promises=list(p.promises),
                       envelopes=list(p.envelopes), lasts=dict(p.lasts))
        pending = {stamp: list(group) for stamp, group in self._pending.items()}
        # accepting content also judges heads others declared of it (§7.10)
        echoes = [(dict(q.echoed), {k: dict(v) for k, v in q.unchecked.items()}) for q in self._peers]
        return (copy, self.clock, self._seen, self._ack_wanted, pending, list(self._pending_stamps),
                self._heads_changed, list(self._evidence), set(self._evidence_sent), echoes, set(self._unvouched),
                self._departed, self._gone)

    def _receive_side(self, seat: int, envelope: Envelope, now: float | None) -> None:
        """§7.8: accept the side chain in order; hold early ones; refuse forks. A side
        message taken at `now` is confirmed by an ack within SIDE_CONFIRM_AFTER."""
        peer = self._peers[seat]
        sseq, sprev = parse_side(envelope, self.game)
        digest = message_hash(envelope.body)
        if sseq < peer.side_next:
            if peer.side_hashes[sseq] != digest:
                raise Equivocation(
                    envelope.sender, f"two different side messages with sseq {sseq}",
                    evidence=(envelope, peer.side_envelopes[sseq]),
                )
            return
        if sseq > peer.side_next:
            if sseq in peer.side_held:
                if message_hash(peer.side_held[sseq].body) != digest:
                    raise Equivocation(envelope.sender, f"two different side messages with sseq {sseq}",
                                       evidence=(envelope, peer.side_held[sseq]))
                return  # a retransmitted copy of one held
            peer.side_held.hold(sseq, peer.side_next, envelope, side=True)
            return
        run: list[tuple[Envelope, bytes, int]] = []  # this one and the held ones that follow it
        following: Envelope | None = envelope
        expected = peer.side_hash
        while following is not None:  # a loop, not recursion: up to MAX_HELD may follow
            sseq, sprev = parse_side(following, self.game)
            if sprev != expected:  # checked before anything changes
                before = run[-1][0] if run else (peer.side_envelopes[-1] if peer.side_envelopes else None)
                raise ChainBroken(following.sender, f"side message {sseq} does not chain to the previous one",
                                  evidence=(following, *(() if before is None else (before,))))
            expected = message_hash(following.body)
            run.append((following, expected, sseq))
            following = peer.side_held.get(sseq + 1)
        for following, digest, sseq in run:
            peer.side_held.discard(peer.side_next)
            peer.chain_side(digest)
            peer.side_envelopes.append(following)
            self._recheck_heads(seat, sseq, side=True)
            self._side_ready.append((seat, following))
        if now is not None and self._sides_unconfirmed is None:
            self._sides_unconfirmed = now

    def _check_content(self, seat: int, envelope: Envelope, header: Header) -> None:
        peer = self._peers[seat]
        named = peer.lasts.get(header.seq)  # (forgotten once the message is taken)
        if named is not None and named[0] != message_hash(envelope.body):
            raise Equivocation(envelope.sender, f"its ack names a different message as its seq {header.seq}",
                               evidence=(named[1], envelope))
        if header.prev != peer.chain_hash:  # it signed a message after another seq - 1: a fork (§7.2)
            before = (peer.envelopes[-1],) if peer.envelopes else ()
            raise ChainBroken(envelope.sender, f"seq {header.seq} does not chain to the previous message",
                              evidence=(envelope, *before))
        floor = max(peer.stamps[-1] if peer.stamps else -1, peer.covered)
        before = bisect.bisect_left(peer.promises, header.seq, key=_DECLARED)  # promises made before this seq
        if before:
            floor = max(floor, peer.promises[before - 1][0])
        if header.stamp <= floor:
            raise StampBackwards(
                envelope.sender, f"stamp {header.stamp} of seq {header.seq} is not above {floor}, which it already used or promised",
                evidence=(envelope, *self._promise_broken(peer, header)),
            )

    @staticmethod
    def _promise_broken(peer: PeerChain, header: Header) -> tuple[Envelope, ...]:
        """The signed promise (its previous message, or an ack) that a stamp breaks (§7.3)."""
        if peer.envelopes and peer.stamps[-1] >= header.stamp:
            return (peer.envelopes[-1],)
        for (stamp, declared), ack in peer.acks.items():
            if declared < header.seq and stamp >= header.stamp:
                return (ack,)
        return ()

    def _accept_content(self, seat: int, envelope: Envelope, *, pending: bool = True, justified: bool = False) -> None:
        """Take `envelope` into `seat`'s chain; vouch for it at once if it is ours or its
        stamp was `justified` on receipt, else as far as `_vouch` can (§7.3)."""
        peer = self._peers[seat]
        stamp = int(envelope.inner["lamport"])
        peer.lasts.pop(peer.next_seq, None)  # (the ack naming it was judged by `_check_content`)
        peer.chain(message_hash(envelope.body), stamp)
        peer.envelopes.append(envelope)
        self._add_promise(peer, stamp, peer.next_seq - 1)
        self._seen = max(self._seen, stamp)
        if envelope.inner["type"] == LEAVE_TYPE:
            self._left |= seat == self.me
            self._departed = frozenset() if self._left else self._departed | {seat}
            self._gone = self._departed & set(self._away)
        if seat != self.me:
            self._ack_wanted = max(self._ack_wanted, stamp)
            self._heads_changed = len(self.seats) > 2  # a third peer waits for our echo (§7.10)
            self._recheck_heads(seat, peer.next_seq - 1, side=False)
        if seat == self.me or justified:
            peer.vouched = peer.next_seq - 1
            self.clock = max(self.clock, stamp)
        else:
            self._vouch(seat)
        if not pending:
            return
        peer.undelivered += len(envelope.body)
        if stamp not in self._pending:
            self._pending[stamp] = []
            heapq.heappush(self._pending_stamps, stamp)
        self._pending[stamp].append(envelope)

    def _accept_ack(self, seat: int, envelope: Envelope, header: Header, now: float, *, relayed: bool = False) -> None:
        peer = self._peers[seat]
        away = tuple(envelope.inner["away"])
        if seat in away:
            raise MalformedHeader(envelope.sender, "away names the sender's own seat")
        seq, digest = header.last
        if 0 <= seq < peer.next_seq and peer.hashes[seq] != digest:
            raise Equivocation(
                envelope.sender, f"its ack names a different message as its seq {seq}", evidence=(envelope, peer.envelopes[seq])
            )
        if seq >= peer.next_seq + MAX_HELD:
            raise ChainBroken(envelope.sender, f"its ack declares its seq {seq}, {MAX_HELD} or more beyond its seq "
                                               f"{peer.next_seq}, which this peer waits for")
        if seq >= peer.next_seq:  # named before it is taken: judged when it is, whichever comes first (§7.2)
            held = peer.held.get(seq)
            if held is not None and message_hash(held.body) != digest:
                raise Equivocation(envelope.sender, f"its ack names a different message as its seq {seq}",
                                   evidence=(envelope, held))
            peer.lasts.setdefault(seq, (digest, envelope))
        if seq + 1 < peer.next_seq and peer.stamps[seq + 1] <= header.stamp:  # its promise, already broken (§7.3)
            raise StampBackwards(
                envelope.sender, f"its ack stamped {header.stamp} promises every message after its seq {seq} a higher "
                                 f"stamp, but its seq {seq + 1} is stamped {peer.stamps[seq + 1]}",
                evidence=(peer.envelopes[seq + 1], envelope),  # (as §7.3's other order: the message, the promise)
            )
        if self._add_promise(peer, header.stamp, seq):
            peer.acks[(header.stamp, seq)] = envelope  # kept as evidence (§7.3)
        if len(peer.acks) > len(peer.promises) + 1:  # only the promises still in force need theirs
            kept = set(peer.promises)
            peer.acks = {key: ack for key, ack in peer.acks.items() if key in kept or key[0] == peer.covered}
        if relayed:  # its promise and its hashes hold whenever it was sent; the rest was its word then
            return
        peer.word = envelope
        sides = envelope.inner["sides"]
        held = int(sides[self.me if self.me < seat else self.me - 1][0])
        if held > peer.has_side_of_mine:  # progress: what it still lacks gets a full timeout
            peer.side_resend_at = now + RETRANSMIT_AFTER if held < len(self._side_sent) - 1 else None
        peer.has_side_of_mine = held  # the latest word counts (see _note_heads)
        if header.stamp >= peer.away_stamp:  # (an older one says nothing new)
            if away != peer.away:  # (the time runs from the first of a run of reports)
                since = peer.away_since if peer.away and away else None
                if away and not peer.away:  # (the same link reported again soon: the same absence, §11.3)
                    over = peer.away_over
                    ended_at = over[0] if over is not None and set(over[1]) & set(away) else None
                    since = absence_since(now, peer.away_ended, self.mark((seat, *away)), ended_at=ended_at,
                                          goes_on=REPORT_RETURNS)
                peer.away_ended = None
                if peer.away and not away and peer.away_since is not None:  # a run ends: how long, and where
                    peer.away_ended = (now - peer.away_since, self.mark((seat, *peer.away)))
                    peer.away_over = (now, peer.away)
                peer.away, peer.away_since = away, since
                self._reports_changed = True
            peer.away_stamp = header.stamp

    def _add_promise(self, peer: PeerChain, stamp: int, declared: int) -> bool:
        """Note a promise: every content message after seq `declared` is stamped above
        `stamp` (§7.3); True if it is kept. Only promises that no other outdoes are kept
        (one with an earlier `declared` and a stamp as high says more), sorted by
        `declared` with stamps rising, so a flood of acks keeps at most one per seq a
        sender may still send (`MAX_HELD`) and costs a search, not a scan."""
        promises = peer.promises
        at = bisect.bisect_right(promises, declared, key=_DECLARED)  # the first with a later `declared`
        kept = stamp > peer.covered and not (at and promises[at - 1][0] >= stamp)
        start = -1  # where it went, if kept
        if kept:
            end = at
            while end < len(promises) and promises[end][0] <= stamp:  # those this one outdoes
                end += 1
            start = at - 1 if at and promises[at - 1][1] == declared else at
            promises[start:end] = [(stamp, declared)]
        done = bisect.bisect_left(promises, peer.next_seq, key=_DECLARED)  # promises for messages held now
        if done:
            peer.covered = max(peer.covered, promises[done - 1][0])
        while done < len(promises) and promises[done][0] <= peer.covered:  # (stamps rise: those it covers lead)
            done += 1
        del promises[:done]
        return kept and (start >= done or stamp == peer.covered)  # still in force, or what covers now

    # -- equivocation: heads compared across peers (§7.10) ------------------------------

    def _compare_heads(self, declarer: int, heads: Sequence[Sequence[Any]], *, side: bool) -> None:
        """Compare what `declarer` says it holds of every third seat's chain with ours."""
        others = self._others[declarer]
        for seat, (seq, digest) in zip(others, heads):
            if seat == self.me or seq < 0:
                continue
            held = self._peers[seat].side_hashes if side else self._peers[seat].hashes
            if seq < len(held):
                self._judge_head(declarer, seat, seq, bytes(digest), side=side)
            else:  # it holds more than we do: compare when we get there
                unchecked = (self._peers[declarer].side_unchecked if side else self._peers[declarer].unchecked)
                pending = unchecked.setdefault(seat, {})
                if len(pending) < MAX_HELD:
                    pending[int(seq)] = bytes(digest)

    def _check_heads_of_mine(self, declarer: int, ack: Envelope, heads: Sequence[Sequence[Any]], *,
                             side: bool) -> None:
        """What `declarer`'s ack says it holds of our own chain (content, or side): a seq
        we never signed, or another hash than our message's, is a lie no honest peer
        tells, relayed or not (what it held then, it holds now; a resumed peer's journal
        and log keep what it sent, §11.3). Nobody else can tell that lie from our fork,
        and it would hold back the delivery of our messages at every other seat (§7.10):
        raise `HeadsFalse`, naming the declarer, with no evidence (it proves nothing to
        others). (Content that names what we never signed is rejected in order, §7.5.)"""
        seq, digest = heads[self.me if self.me < declarer else self.me - 1]
        if seq < 0:
            return
        mine = self._peers[self.me]
        ours = mine.side_hashes if side else mine.hashes
        what = "side message with sseq" if side else "seq"
        if seq >= len(ours):
            raise HeadsFalse(ack.sender, f"its ack declares holding this seat's {what} {seq}, which this seat never "
                                         f"sent (its last is {len(ours) - 1})")
        if ours[seq] != bytes(digest):
            raise HeadsFalse(ack.sender, f"its ack names another message as this seat's {what} {seq} than the one "
                                         "this seat signed")

    def _recheck_heads(self, seat: int, seq: int, *, side: bool) -> None:
        """We just took `seat`'s message `seq`: judge the heads that named it before we had it."""
        for declarer, peer in enumerate(self._peers):
            pending = (peer.side_unchecked if side else peer.unchecked).get(seat)
            if pending and seq in pending:
                self._judge_head(declarer, seat, seq, pending.pop(seq), side=side)

    def _judge_head(self, declarer: int, seat: int, seq: int, digest: bytes, *, side: bool) -> None:
        peer = self._peers[seat]
        ours = peer.side_hashes[seq] if side else peer.hashes[seq]
        if ours == digest:
            if not side:
                echoed = self._peers[declarer].echoed
                echoed[seat] = max(echoed.get(seat, -1), seq)
            return
        key = (declarer, seat, seq, side)
        if key not in self._evidence_sent:  # the declarer holds another message: show it ours
            self._evidence_sent.add(key)
            self._evidence.append((declarer, (peer.side_envelopes if side else peer.envelopes)[seq]))

    def _echoed(self, seat: int, seq: int) -> bool:
        """§7.10: every peer but the sender has declared holding `seat`'s chain up to `seq`
        (but one that left and is gone, `_gone`)."""
        if seat == self.me:
            return True
        me, gone = self.me, self._gone
        for i, peer in enumerate(self._peers):  # (a loop: asked for every message delivered)
            if i != me and i != seat and i not in gone and peer.echoed.get(seat, -1) < seq:
                return False
        return True

    def _note_heads(self, seat: int, heads: Sequence[Sequence[Any]], now: float) -> None:
        """Learn what `seat` holds of my chain (for retransmission)."""
        held = int(heads[self.me if self.me < seat else self.me - 1][0])
        peer = self._peers[seat]
        # The latest word counts, even when it is lower: a peer that restarted from its
        # log (§11.3) may hold less than it once said, and must be sent the rest again.
        if held != peer.has_of_mine:
            lagging = held < len(self._sent) - 1
            if held > peer.has_of_mine or peer.resend_at is None:
                peer.resend_at = now + RETRANSMIT_AFTER if lagging else None
            peer.has_of_mine = held

    # -- delivery --------------------------------------------------------------------

    def set_salt(self, salt: bytes) -> None:
        """Use `salt` for ties at stamps above the one being delivered now (§7.4)."""
        self.salts.set_after(self._delivering, salt)

    def _stable(self, stamp: int) -> bool:
        if self.clock < stamp and self._promised < stamp:  # (our own next stamp is above it)
            return False
        me = self.me
        for i, p in enumerate(self._peers):  # (a loop: asked after every frame taken)
            if i != me and p.covered < stamp:
                return False
        return True

    def _next_stable(self) -> bool:
        """The lowest stamp still pending is stable (§7.4)."""
        return bool(self._pending_stamps) and self._stable(self._pending_stamps[0])

    def _first_echoed(self) -> bool:
        """The next message of the group being delivered is echoed (§7.10)."""
        envelope = self._ready[0]
        return self._echoed(self._seat_of[envelope.sender], int(envelope.inner["seq"]))

    def deliveries(self) -> Iterator[Delivered]:
        """Yield the next stable messages in the agreed order, one at a time.

        Pull them one by one and process each before taking the next: a stamp group is
        sorted only when it is reached, so a salt set while processing one message
        (`set_salt`) applies to every later stamp exactly as at every other peer."""
        while True:
            if not self._ready:
                if not self._next_stable():
                    return
                stamp = heapq.heappop(self._pending_stamps)
                group = self._pending.pop(stamp)
                self._delivering = stamp
                if len(group) > 1:  # (a tie, §7.4: the usual group is one message)
                    salt = self.salts.at(stamp)
                    group.sort(key=lambda e: tiebreak(salt, stamp, e.sender))
                self._ready.extend(group)
            if not self._first_echoed():
                return  # wait until every peer holds the same message (§7.10)
            envelope = self._ready.popleft()
            seat = self._seat_of[envelope.sender]
            self._peers[seat].undelivered -= len(envelope.body)
            stamp = int(envelope.inner["lamport"])
            delivered = self._deliver(seat, envelope, stamp, heads_violation(self._peers, seat, envelope, stamp))
            if seat == self.me:
                self._mine_delivered += 1
            yield delivered

    # -- timers ----------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """When `on_timer` next has work: a retransmission, a heartbeat or the ack that
        confirms side messages."""
        times = [t for i, p in enumerate(self._peers) if i != self.me for t in (p.resend_at, p.side_resend_at) if t is not None]
        if self._evidence:
            return float("-inf")  # evidence of a fork goes out at once
        if self._last_sent_time is not None:
            times.append(self._last_sent_time + HEARTBEAT_EVERY)
        if self._sides_unconfirmed is not None:
            times.append(self._sides_unconfirmed + SIDE_CONFIRM_AFTER)
        times.extend(due for due, _declared in self._relays.values())
        if self._ready and self._echo_wait is not None:
            times.append(self._echo_wait[1] + RELAY_AFTER)
        return min(times) if times else None

    def on_timer(self, now: float) -> list[tuple[int, Envelope]]:
        """Return (seat, envelope) pairs to send: evidence of forks, retransmissions and a
        heartbeat ack, or the ack that confirms side messages (seat -1 = everyone)."""
        out: list[tuple[int, Envelope]] = self._evidence
        self._evidence = []
        last_mine = len(self._sent) - 1
        for i, peer in enumerate(self._peers):
            if i == self.me or peer.has_of_mine >= last_mine:
                peer.resend_at = None
                continue
            if peer.resend_at is None:
                peer.resend_at = now + RETRANSMIT_AFTER
            elif now >= peer.resend_at:
                out.extend((i, e) for e in self._sent[peer.has_of_mine + 1 :])
                peer.resend_at = now + RETRANSMIT_AFTER
        last_side = len(self._side_sent) - 1
        for i, peer in enumerate(self._peers):
            if i == self.me or peer.has_side_of_mine >= last_side:
                peer.side_resend_at = None
                continue
            if peer.side_resend_at is None:
                peer.side_resend_at = now + RETRANSMIT_AFTER
            elif now >= peer.side_resend_at:
                out.extend((i, e) for e in self._side_sent[peer.has_side_of_mine + 1 :])
                peer.side_resend_at = now + RETRANSMIT_AFTER
        out.extend(self._relayed(now))
        out.extend(self._shown_to_authors(now))
        heartbeat = self._last_sent_time is None or now >= self._last_sent_time + HEARTBEAT_EVERY
        confirm = self._sides_unconfirmed is not None and now >= self._sides_unconfirmed + SIDE_CONFIRM_AFTER
        if heartbeat or confirm:
            out.append((-1, self.ack(now)))
        return out

    def _relayed(self, now: float) -> list[tuple[int, Envelope]]:
        """Third seats' content and side messages that a peer still lacks RELAY_AFTER after
        we saw it lack them, with no progress meanwhile (§7.6): an author resends what it
        sent, but an author that showed a message to some peers only would leave the
        others, and the peers that hold it, waiting for good (§7.10), and one that is gone leaves a
        resumed peer without what it lost in its crash (§11.3). What a peer lacks is what
        its latest ack says it holds, even when less than before. Relayed, it is taken, or
        proves a fork or a broken promise against its author."""
        out: list[tuple[int, Envelope]] = []
        for r, peer in enumerate(self._peers):
            if r == self.me:
                continue
            for q in self._others[r]:
                if q == self.me:
                    continue
                author, word = self._peers[q], peer.word
                at = q if q < r else q - 1  # (q's place among the seats r's ack names)
                if word is None:  # (no ack of its own yet: what its content named)
                    declared = max(peer.echoed.get(q, -1), max(peer.unchecked.get(q, ()), default=-1))
                    side_declared = -1
                else:
                    declared, side_declared = int(word.inner["heads"][at][0]), int(word.inner["sides"][at][0])
                out.extend((r, e) for e in self._relay(now, (r, q, False), declared, author.envelopes))
                out.extend((r, e) for e in self._relay(now, (r, q, True), side_declared, author.side_envelopes))
        return out

    def _shown_to_authors(self, now: float) -> list[tuple[int, Envelope]]:
        """The acks to show their author (§7.10): when the next delivery, q's seq s, has
        waited RELAY_AFTER for the echo of a peer r whose latest ack declares holding q's
        chain up to s or beyond with a hash we cannot match (a seq we do not hold, or
        another message), that ack goes to q, once: q knows whether it is true, and names
        r if not. A lie told to us alone would otherwise hold our delivery back for good
        while q and r play on, and their claims about our shares would convict us (§9.11)."""
        if not self._ready:
            self._echo_wait = None
            return []
        envelope = self._ready[0]
        q, s = self._seat_of[envelope.sender], int(envelope.inner["seq"])
        if self._echo_wait is None or self._echo_wait[0] != (q, s):
            self._echo_wait = ((q, s), now)
            return []
        if now < self._echo_wait[1] + RELAY_AFTER:
            return []
        self._echo_wait = ((q, s), float("inf"))  # (shown once for this wait)
        out = []
        ours = self._peers[q].hashes
        for r, peer in enumerate(self._peers):
            word = peer.word
            if r in (self.me, q) or r in self._gone or peer.echoed.get(q, -1) >= s or word is None:
                continue
            seq, digest = word.inner["heads"][q if q < r else q - 1]
            if seq < s or (seq < len(ours) and ours[seq] == bytes(digest)) or (r, q, s) in self._shown:
                continue  # (not declared yet: it owes an ack, §9.11; or matched: nothing to show)
            self._shown.add((r, q, s))
            out.append((q, word))
        return out

    def _relay(self, now: float, key: tuple[int, int, bool], declared: int, held: list[Envelope]) -> list[Envelope]:
        """What of `held` (a third seat's chain, or side chain) to relay to a peer that has
        declared holding it up to `declared`: nothing until it has lacked the rest for
        RELAY_AFTER with no progress, then the rest, and again after each further wait."""
        if declared >= len(held) - 1:
            self._relays.pop(key, None)
            return []
        due = self._relays.get(key)
        if due is None or due[1] != declared:  # a new gap, or progress: wait again
            self._relays[key] = (now + RELAY_AFTER, declared)
            return []
        if now < due[0]:
            return []
        self._relays[key] = (now + RELAY_AFTER, declared)
        return held[declared + 1 :]

    def sent_of(self, kind: str) -> list[Envelope]:
        """Our content messages of type `kind` signed so far (not those still waiting to be
        stamped, §7.3), in the order sent."""
        return [e for e in self._sent if e.inner["type"] == kind]

    def unsettled(self) -> list[str]:
        """The types of our content messages not yet delivered: sent, or waiting to be
        stamped (`post`), in the order they will be."""
        return [e.inner["type"] for e in self._sent[self._mine_delivered:]] + [p["type"] for p in self._unsent]

    @property
    def delivered_mine(self) -> int:
        """How many of our own content messages the order has delivered."""
        return self._mine_delivered

    def holding_ours(self) -> list[int]:
        """The seats whose word the order still needs before our oldest content message
        not yet delivered can be: none has sent a stamp that covers it yet (§7.4)."""
        if self._mine_delivered >= len(self._sent):
            return []
        stamp = self._sent[self._mine_delivered].inner["lamport"]
        return [seat for seat, peer in enumerate(self._peers) if seat != self.me and peer.covered < stamp]

    def holding_back(self) -> tuple[tuple[str, int], tuple[int, ...]] | None:
        """What the next delivery waits for and the other seats whose word it lacks: the
        promise of each seat not covered up to the lowest stamp pending (§7.4), or the
        echo of each seat that has not declared the first message of the group being
        delivered (§7.10). None when nothing waits on another seat's word. The first item
        names the message waited for (a stamp, or a sender and seq), so that a seat that
        holds back one message after another is seen to make progress."""
        me = self.me
        if self._ready:
            envelope = self._ready[0]
            sender, seq = self._seat_of[envelope.sender], int(envelope.inner["seq"])
            seats = tuple(i for i, p in enumerate(self._peers)
                          if i not in (me, sender) and i not in self._gone and p.echoed.get(sender, -1) < seq)
            return ((f"echo {sender}", seq), seats) if seats else None
        if not self._pending_stamps:
            return None
        stamp = self._pending_stamps[0]
        seats = tuple(i for i, p in enumerate(self._peers) if i != me and p.covered < stamp)
        return (("stamp", stamp), seats) if seats else None

    def heard_content(self, seat: int) -> bool:
        """Whether any content message of `seat`'s has arrived here, delivered or not."""
        peer = self._peers[seat]
        return peer.next_seq > 0 or bool(peer.held)

    def holds_ours(self, seat: int) -> bool:
        """Whether `seat`'s latest word says it holds every content and side message we
        sent (§11.4): then our latest promise counts there (§7.3)."""
        peer = self._peers[seat]
        return peer.has_of_mine >= len(self._sent) - 1 and peer.has_side_of_mine >= len(self._side_sent) - 1

    def on_link_up(self, seat: int, now: float) -> None:
        """A link to `seat` came (back) up: resend what it lacks at the next timer,
        not after a full retransmission timeout."""
        peer = self._peers[seat]
        if peer.has_of_mine < len(self._sent) - 1:
            peer.resend_at = now
        if peer.has_side_of_mine < len(self._side_sent) - 1:
            peer.side_resend_at = now

    # -- resuming from a log (§11.3) --------------------------------------------------

    def restore_delivered(self, envelope: Envelope) -> Delivered:
        """Take a content message back from our own fairness log, as delivered: the
        records come in the order they were delivered, so each must continue its sender's
        chain. Its §7.5 verdict is judged against what we held then, as it was live."""
        seat = seat_of(self._seat_of, envelope)
        header = parse_header(envelope, len(self.seats), self.game)
        peer = self._peers[seat]
        if header.seq != peer.next_seq or header.prev != peer.chain_hash:
            raise ChainBroken(envelope.sender, f"the log's seq {header.seq} does not continue its chain at {peer.next_seq}")
        verdict = heads_violation(self._peers, seat, envelope, header.stamp)
        self._accept_content(seat, envelope, pending=False)
        if seat == self.me:
            self._sent.append(envelope)
            self._mine_delivered += 1
        return self._deliver(seat, envelope, header.stamp, verdict)

    def restore_side(self, envelope: Envelope) -> int:
        """Take a side message back from our own log; return its seat."""
        seat = seat_of(self._seat_of, envelope)
        if seat != self.me:
            self._receive_side(seat, envelope, None)
            self._side_ready.clear()
            return seat
        sseq, sprev = parse_side(envelope, self.game)
        mine = self._peers[self.me]
        if sseq != mine.side_next or sprev != mine.side_hash:
            raise ChainBroken(envelope.sender, f"the log's side sseq {sseq} does not continue our side chain")
        digest = message_hash(envelope.body)
        mine.chain_side(digest)
        self._side_sent.append(envelope)
        return seat

    def restore_sent(self, envelope: Envelope, now: float) -> None:
        """Take back from our journal a message we sent: content not yet delivered goes
        back into our chain (to be delivered and retransmitted as if never lost), an ack
        restores the promise it made. Returns False for what the log already holds."""
        inner = envelope.inner
        if inner.get("type") == ACK_TYPE:  # its promise binds us (§7.3); our clock waits for `may_send`
            self._promised = max(self._promised, int(inner["lamport"]))
            return
        if is_side(inner):
            return  # side messages are logged as they leave
        mine = self._peers[self.me]
        header = parse_header(envelope, len(self.seats), self.game)
        if header.seq < mine.next_seq:
            return
        if header.seq != mine.next_seq or header.prev != mine.chain_hash:
            raise ChainBroken(envelope.sender, f"the journal's seq {header.seq} does not continue our chain at {mine.next_seq}")
        self._accept_content(self.me, envelope)
        self._sent.append(envelope)
        for i, peer in enumerate(self._peers):
            if i != self.me:
                peer.resend_at = now + RETRANSMIT_AFTER

    def restored(self) -> None:
        """The log is replayed. The last stamp delivered, L, was stable: every other
        peer's messages stamped below L were delivered, so they are all back, and it
        promised nothing below L can follow. Its messages stamped L itself may not all
        have been: a crash can fall inside a stamp's group (one delivered, the next
        waiting for its echo, §7.10), and the rest of the group comes again. So every
        other peer is covered up to L - 1, not L (which would refuse that rest as a
        stamp going backwards, §7.3)."""
        for i, peer in enumerate(self._peers):
            if i != self.me:
                peer.covered = max(peer.covered, self._delivering - 1)
                peer.has_of_mine = -1  # until it says otherwise: send it everything again
                peer.has_side_of_mine = -1

    # -- introspection ---------------------------------------------------------------

    def undelivered(self) -> int:
        return sum(len(g) for g in self._pending.values()) + len(self._ready)
