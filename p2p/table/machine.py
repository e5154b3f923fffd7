"""One replica of a running table: engine + card cryptography, fed the agreed order (§9).

Theory of operation
-------------------
Every peer, and the auditor, runs a `TableMachine`. It is sans-I/O: the shell feeds it
the messages the `Orderer` delivers (`deliver`), local intents (`submit`) and the time
(`on_timer`); it returns a `Step`: messages to send, engine events applied or refused,
a new tie-break salt, finished rounds, and the first protocol violation if any. The
state is a function of the delivered sequence alone (plus this peer's own secrets),
so every honest peer reaches the same state, the same verdicts and the same scores at
the same point of the sequence, and the auditor (`me=None`, no secrets) reaches them
too by replaying a log.

The life of a game:

1. ``keys``: every seat publishes its ElGamal key with a proof (§8.3). When all are
   delivered, round 1 begins.
2. Each round: every seat commits to a beacon nonce, then reveals it (§8.6); seat 0
   starts the deal's shuffle chain and each seat adds its step in seat order (§8.4).
   When both are complete the beacon's salt becomes the order's tie-break salt (§7.4)
   and the engine gets ``RoundStarted(first player by lot)``.
3. The engine asks for table work (`needs`), numbered in the order it asks. For a
   reveal, the card's share plan (§8.5) says which seats owe a share: each publishes
   it (plain, or sealed to the recipient of a private reveal) with its proof in a
   ``shares`` *side* message naming the need (§7.8, §9.4); a seat's share of a card is
   published at most once, so a card once shown to one seat needs one share. Side messages
   are not ordered: shares are used as soon as they arrive (`receive_side`), because
   the engine consumes them in its own need order, whatever the timing. When every
   share of the first need is in, the face is known (to everybody, or, for a private
   reveal, to its recipient only, who adds its own share) and is fed to the engine. A
   reshuffle (R7) runs a fresh chain over the discard pile's known cards; the engine
   gets its answer at once (the new pile's ids are all it needs), and only a reveal of
   a card of the new pile waits until that chain is complete, so a penalty card drawn
   face down from it holds nothing up.
4. Intents are delivered in order and applied in order. While the engine waits for
   table work they queue, so the engine's sequence of events is the same everywhere.
   A snap must name the side messages that turned its target face up, or causally
   follow the message that did (§9.5): nobody can claim a card before seeing it.
5. When the engine scores the round, every seat opens its shuffle steps (§8.7) with a
   digest of its engine's public state (§9.1); when all openings are delivered they are verified, the
   round's every card is re-derived, and the next round begins (or the game ends with
   ``done`` from every seat).
6. A reveal that decodes to no card, or to a card already seen elsewhere, proves that a
   shuffle step was dishonest (every share was proven). The round is then *void*
   (§9.10): everybody sees a failure of a reveal to all at the same point; a failure only
   this seat can see (its private card, or a public card it alone had seen before) is
   announced with a ``challenge``, and this seat forgets what it alone was shown (its
   engine replays the game's public events) so it stays in step with the others until
   the challenge is delivered. From the void point on, only openings count; when they
   are all in, the step that does not open is named (or, if every step opens, the
   challenger is).
7. Whatever protocol work the table waits for (keys, beacon, shuffle steps, shares,
   openings, ``done``) is timed; a seat that waited longer than the stall time sends
   ``stalled`` naming who it waits for (§9.11). Delivered, it ends the game naming them:
   at its place in the order, or, for shares, which are not ordered, at once.

Anything a peer sends that breaks §8 or §9 (a wrong share, a step out of turn, an
opening that does not open) is a *violation*: it names the peer and the section, and
the machine halts, as every honest peer does at the same point (§11). A refused intent
(the engine says which rule) is not a violation: players race and lose races.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from engine import (
    ALL,
    EngineError,
    Event,
    Game,
    Intent,
    Note,
    PeekBarrierExpired,
    Phase,
    Ready,
    Reshuffle,
    Reveal,
    Revealed,
    RoundEnded,
    RoundStarted,
    Snap,
    TURN_PHASES,
    TurnStarted,
    TurnTimedOut,
    Words,
)
from engine.errors import Who, plain
from p2p.deck import (
    Beacon,
    BeaconCommit,
    BeaconReveal,
    BeaconSeed,
    ByteSource,
    CardMismatch,
    CardShares,
    DeckError,
    DeckKeys,
    GameContext,
    JointKey,
    KeySetup,
    KeyShare,
    SealedShare,
    Share,
    ShuffleChain,
    ShuffleOpening,
    ShuffleStep,
    make_sealed_share,
    make_share,
    verify_round_opening,
    verify_share,
)
from p2p.deck import Reveal as Collect
from p2p.deck.shuffle import Deck
from p2p.errors import printable
from p2p.order import Delivered, message_hash
from p2p.roster import DEFAULT_RULES, TableRules
from p2p.session import left_with
from p2p.table.clocks import SeatClocks
from p2p.table.backlog import Backlog
from p2p.table.intake import judged_at_once
from p2p.table.messages import UNORDERED_STALLS, intent_of, intent_payload, state_digest
from p2p.table.secrets import SeatSecrets

GRACE: Final = float(DEFAULT_RULES.grace_s)
"""Seconds a table waits for a missing peer before it ends the game (§11.3) by default:
each table's rules say how long (`grace_s`, §6.8). A turn's timer (or a round's ready
barrier) stands for links that are down (§9.6) as long in all (`SeatClocks.timers_stand`): an
honest outage that long ends the game anyway, and a peer that reports a link down and
up again over and over cannot stretch a turn past it."""

STALL_SECTIONS: Final = {
    "keys": "§9.2", "beacon": "§8.6", "shuffle": "§9.3", "shares": "§9.4", "opening": "§9.7", "done": "§9.8",
    "acks": "§7.3",
}
"""What a seat withheld (§9.11) -> the section that obliged it to send it."""
STALL_WORDS: Final = {
    "keys": "its key", "beacon": "its beacon message", "shuffle": "its shuffle step", "shares": "its share",
    "opening": "its opening", "done": "its end of game", "acks": "its acknowledgements",
}


class TableViolation(Exception):
    """A peer broke §8 or §9 (or the order, §7.5): the game cannot go on (§11).

    A reason that names seats is given as `words`, which a peer that knows the players'
    names tells with them (`p2p.policy.Verdict.told`); `reason` counts those seats from 1,
    as a person does and as the audit's report counts the culprit beside it."""

    def __init__(self, section: str, seat: int | None, reason: str | Words, *,
                 suspects: tuple[int, ...] = ()) -> None:
        self.words: Words = () if isinstance(reason, str) else reason
        self.reason = reason if isinstance(reason, str) else plain(reason)
        super().__init__(f"{section}: {self.reason}")
        self.section = section
        self.seat = seat
        self.suspects = suspects  # (seat None) the seats one of which broke it: nothing tells which (§7.5)


class SeatLeft(TableViolation):
    """A player left the table (§9.8): the game ends there, but nobody cheated. `said`
    is its leave's reason; `reason` tells it (`left_with`) as a table that knows no
    names can: a shell that knows them tells it with them."""

    def __init__(self, section: str, seat: int | None, said: str) -> None:
        super().__init__(section, seat, left_with(said))
        self.said = said


def _seat_left(seat: int, leave: Mapping[str, Any]) -> SeatLeft:
    """The departure `seat`'s `leave` makes (§9.8)."""
    return SeatLeft("§9.8", seat, printable(leave["reason"]) or "no reason given")


@dataclass(frozen=True, slots=True)
class Awaited:
    """Protocol work the table waits for (§9.11): `what`, in which round, from which seats.

    `need` is the reveal's number for shares, the chain number for shuffle steps, 0 for
    the beacon's commitments and 1 for its reveals, else 0: every wait has its own key (a
    chain's steps share theirs, each seat timed from its own step's due time)."""

    what: str
    round: int
    need: int
    seats: tuple[int, ...]

    @property
    def key(self) -> tuple[str, int, int]:
        """Which wait this is, whoever it is still waiting on: (what, round, need)."""
        return self.what, self.round, self.need


@dataclass(frozen=True, slots=True)
class _Void:
    """Why and where a round became void (§9.10)."""

    check: str  # "not-a-card", "duplicate-card" or "challenge"
    card: int
    challenger: int | None  # the seat whose challenge voided the round, if one did


@dataclass(frozen=True, slots=True)
class Applied:
    """An engine event applied at `position` of the order (`seat`: who caused it, if anyone;
    `stamp`: the Lamport stamp of the message that did, §7.3, None for a table fact)."""

    position: int
    seat: int | None
    event: Event
    notes: tuple[Note, ...]
    stamp: int | None = None


@dataclass(frozen=True, slots=True)
class Refused:
    """An intent the rules (or §9.5) refused; the state is unchanged."""

    position: int
    seat: int
    intent: Intent
    section: str  # an R-number or a §
    reason: str  # as the logs keep it
    words: Words = ()  # the engine's reason with its seats and slots left for a narrator to name

    @property
    def told(self) -> Words:
        """The reason as a narrator takes it (a table's own reason has no seats to name)."""
        return self.words or (self.reason,)


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """A finished round, its shuffles opened and verified (§8.7)."""

    round: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    caller: int | None
    exhausted: bool
    tableaus: tuple[tuple[tuple[int, int], ...], ...]  # per seat: (slot, face)
    faces: Mapping[int, int]  # every card id of the round -> its face, from the openings
    seen: Mapping[int, tuple[int, ...]]  # card id -> seats that had seen it


@dataclass
class Step:
    """What one call to the machine produced."""

    send: list[dict[str, Any]] = field(default_factory=list)
    side: list[dict[str, Any]] = field(default_factory=list)  # side messages (§7.8) to send
    applied: list[Applied] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    rounds: list[RoundOutcome] = field(default_factory=list)
    salt: bytes | None = None
    violation: TableViolation | None = None
    finished: bool = False

    def changed(self) -> bool:
        """Whether anything happened at the table (not just time passing)."""
        return bool(self.send or self.side or self.applied or self.refused or self.rounds or self.violation or self.finished)


@dataclass
class _Queued:
    """A delivered intent or timer claim waiting for the engine."""

    position: int
    seat: int
    seq: int
    heads: list[list[Any]]
    event: Event
    turn: int | None
    seen: list[list[Any]] | None = None
    stamp: int | None = None  # its message's Lamport stamp (§7.3)


@dataclass
class _RevealWork:
    number: int  # the need's number (§9.4)
    collect: Collect
    contributors: dict[int, tuple[int, bytes]] = field(default_factory=dict)  # seat -> (sseq, hash) of its side message


@dataclass
class _Round:
    number: int
    beacon: Beacon
    chains: list[ShuffleChain]
    my_reveal: BeaconReveal | None = None
    revealed: bool = False
    seed: BeaconSeed | None = None
    started: bool = False
    ended: RoundEnded | None = None
    my_openings: list[ShuffleOpening] = field(default_factory=list)
    openings: dict[int, tuple[str, list[ShuffleOpening]]] = field(default_factory=dict)
    digest: str = ""
    location: dict[int, tuple[Deck, int]] = field(default_factory=dict)  # card id -> (deck, position)
    plans: dict[tuple[bytes, int], CardShares] = field(default_factory=dict)  # (chain, position) -> share plan (§8.5)
    retired: set[int] = field(default_factory=set)  # card ids reshuffled away (R7)
    piles: dict[bytes, int] = field(default_factory=dict)  # reshuffle chain id -> first id of its pile
    void: _Void | None = None  # the round is void from this point (§9.10)
    challenger: int | None = None  # a seat challenged the round after it was scored
    challenged: bool = False  # this seat sent its challenge

    @property
    def shuffled(self) -> bool:
        """Every chain of the round (the deal and each reshuffle) is complete."""
        return all(c.complete for c in self.chains)

    def chain(self, chain_id: Any) -> ShuffleChain | None:
        """The round's shuffle chain with this id, if it started one."""
        return next((c for c in self.chains if c.chain_id == chain_id), None)


EARLY_PROOFS_AHEAD = 4  # needs ahead of the last opened whose early plain shares are proven on arrival (§9.4)
EARLY_SHARES_HELD = 4096  # shares one seat may have waiting for needs not open here (§9.4): no honest lag comes near


def _open_here(opened: int) -> str:
    """Which needs this peer has opened, the first `opened` (§9.4): "while needs 0–11 are open here"."""
    if opened == 0:
        return "while no need is open here"
    return "while need 0 is open here" if opened == 1 else f"while needs 0–{opened - 1} are open here"


class TableMachine:
    """A replica of one game, from seat `me`'s point of view (`me=None`: an observer)."""

    def __init__(
        self,
        *,
        game_id: bytes,
        seats: Sequence[bytes],
        rules: TableRules,
        me: int | None,
        source: ByteSource | None = None,
        secrets: SeatSecrets | None = None,
        stall_s: float | None = None,
    ) -> None:
        """`stall_s`: how long this seat waits for another seat's protocol work before it
        claims a stall (§9.11); the table's turn time by default. A local choice: the
        verdict on a delivered claim does not depend on it."""
        if me is not None and source is None and secrets is None:
            raise ValueError("a seated machine needs a source of randomness for its secrets")
        self.seats = tuple(seats)
        self.me = me
        self.rules = rules
        self.context = GameContext(game_id, self.seats, rules.skills.size)
        self.engine = Game(len(self.seats), rules.skills, rules.target)
        if me is not None and secrets is None:
            assert source is not None
            secrets = SeatSecrets.draw(source)
        self.secrets = secrets  # every secret of this seat comes from here (§9.12)
        self._keys = DeckKeys.generate(self.context, self.seats[me], secrets.stream("deck-key")) if secrets is not None and me is not None else None
        self._key_setup = KeySetup(self.context)
        self._joint: JointKey | None = None
        self._round: _Round | None = None
        self._used_nonces: frozenset[bytes] = frozenset()
        self._fifo: deque[_Queued] = deque()
        self._held = Backlog()  # ordered messages waiting for a reveal to complete
        self._work: dict[Any, Any] = {}  # open need -> _RevealWork | ShuffleChain
        self._by_number: dict[int, _RevealWork] = {}
        self._needs_opened = 0  # every need ever opened gets the next number (§9.4)
        # need -> shares that came before it: (seat, share, sseq, digest, its proof checked already)
        self._early: dict[int, list[tuple[int, Share | SealedShare, int, bytes, bool]]] = {}
        self._early_from: dict[int, int] = {}  # seat -> how many of its shares wait in `_early`
        self._unsigned: dict[int, _RevealWork] = {}  # need -> work whose own share is not yet in a signed side message
        self._share_items: list[dict[str, Any]] = []
        self._prepared: dict[tuple[bytes, int], Share] = {}  # shares made ahead (`prepare`)
        self._sealed_items: list[dict[str, Any]] = []
        self._owed: list[ShuffleChain] = []  # chains waiting for this seat's step (`catch_up` makes it)
        # what made the top card visible (§9.5): ("reveal", its work) or ("message", (seat, seq))
        self._top_visibility: tuple[str, Any] = ("message", (-1, -1))
        self._top_seen: tuple[int | None, int | None] = (None, None)
        self._done: dict[int, str] = {}
        self._now = 0.0
        self._timer_claims: dict[tuple[str, int, int], set[int]] = {}  # who claimed each running timer (§9.6)
        # this seat's own clocks: when it claims (§9.6, §9.11); no verdict reads them
        self.clocks = SeatClocks(
            turn_s=float(rules.turn_s), peek_s=float(rules.peek_s), timers_stand=float(rules.grace_s))
        self._claimed: set[tuple[str, int, int]] = set()  # timers this peer already claimed
        self._current: tuple[int, int] | None = None  # (seat, seq) of the message being processed
        self.stall_s = float(rules.turn_s) if stall_s is None else stall_s
        self._public_events: list[Event] = []  # every event applied, private faces left out
        self._stalls_claimed: set[tuple[tuple[str, int, int], int]] = set()  # (wait, seat) this seat claimed
        # (wait, a seat it waits on) -> the seats whose delivered claims say it withheld (§9.11)
        self._stall_claims: dict[tuple[tuple[str, int, int], int], set[int]] = {}
        self.position = -1
        self.on_applied: Callable[[Event, Sequence[Note], int | None], None] | None = None
        """Called right after every engine transition, with the game in its new state, its
        notes and the Lamport stamp of the message that caused it (what a narrator needs;
        the shell sets it)."""
        self.halted: TableViolation | None = None
        self.finished = False
        self.outcomes: list[RoundOutcome] = []
        # every card's face of each round whose openings verified (§8.7), a void one's too
        self.opened: dict[int, Mapping[int, int]] = {}
        # `awaited()` as of the last message (`_track_stall`; what `clocks.wait` names); before the
        # first, every seat's keys (§9.2), so a return then is judged like any other (§11.3)
        self._awaited: Awaited | None = self.awaited()

    # -- public surface --------------------------------------------------------------

    @property
    def round_number(self) -> int:
        return self._round.number if self._round else 0

    @property
    def void(self) -> tuple[str, int, int | None] | None:
        """Why the round under way became void (§9.10), or None: the check its card
        failed ("not-a-card", "duplicate-card", or "challenge"), that card, and the seat
        whose challenge voided it (None: a failure every seat saw)."""
        void = self._round.void if self._round else None
        return None if void is None else (void.check, void.card, void.challenger)

    def start(self) -> Step:
        """The first message of a seated peer: its key with proof (§9.2)."""
        step = Step()
        if self._keys is not None:
            assert self.secrets is not None
            step.send.append({"type": "keys", "v": 1, **self._keys.key_share(self.secrets.stream("key-proof")).to_wire()})
        return step

    def submit(self, intent: Intent) -> dict[str, Any]:
        """The §9.5 message for a local intent (the engine judges it when delivered)."""
        if self.me is None or intent.seat != self.me:
            raise ValueError("only the local seat's intents can be submitted")
        payload = intent_payload(intent, self.round_number, self.engine.turn)
        if isinstance(intent, Snap):
            kind, what = self._top_visibility
            seen = _contributors(what) if kind == "reveal" and intent.top == self.engine.discard_top() else ()
            payload["seen"] = [list(c) for c in seen]
        return payload

    def prepare(self, intent: Intent) -> None:
        """Do ahead what a local intent will need once it is delivered, so that it is not
        done then, on every peer's critical path: for a snap, this seat's plain share of
        the card it targets (the share a reveal of it would ask of this seat, §8.5).
        Shares come from the seat's secrets by (chain, position), so a share made early
        is the very share that would be made later; an unused one is simply dropped."""
        if not isinstance(intent, Snap) or self._keys is None or self.secrets is None or self.halted is not None:
            return
        rnd = self._round
        tableaux = self.engine.zones().tableaux
        if rnd is None or not 0 <= intent.owner < len(tableaux) or not 0 <= intent.slot < len(tableaux[intent.owner]):
            return
        self._make_ahead(rnd, tableaux[intent.owner][intent.slot])

    def share_ahead(self) -> bool:
        """Make ahead, in a moment when nothing else waits, one plain share this seat may
        soon be asked for: of a card of its own tableau whose share it has neither
        published nor promised (a snap of it, by anyone, or the card's discard will ask
        for it, §8.5). The claim then goes out and its reveal comes back without waiting
        for a proof to be made (see `prepare`). True if it made one; False when there is
        none left to make (call again once the table has changed)."""
        if self._keys is None or self.secrets is None or self.me is None or self.halted is not None:
            return False
        rnd = self._round
        if rnd is None or rnd.ended is not None or rnd.void is not None:
            return False
        return any(self._make_ahead(rnd, card) for card in self.engine.zones().tableaux[self.me])

    def _make_ahead(self, rnd: _Round, card: int | None) -> bool:
        """Make this seat's plain share of `card` now, unless it is made already, or
        published or owed (then no later reveal asks for it again); True if it made one."""
        if card is None or card not in rnd.location:
            return False
        deck, position = rnd.location[card]
        key = (deck.chain, position)
        plan = rnd.plans.get(key)
        if key in self._prepared or (plan is not None and self.seats[self.me] in plan.promised):
            return False
        self._prepared[key] = self._my_share(deck, position)
        return True

    def _my_share(self, deck: Deck, position: int) -> Share:
        """This seat's plain share of a card: from its secrets by (chain, position), so
        the same whenever it is made (§8.5)."""
        assert self._keys is not None and self.secrets is not None
        return make_share(self._keys, deck, position, self.secrets.stream("share", deck.chain, position))

    def deliver(self, delivered: Delivered, now: float) -> Step:
        """Process the next message of the agreed order (or hold it, see `_run_held`)."""
        step = Step()
        self._now = now
        if self.halted is not None or self.finished:
            return step
        inner = delivered.envelope.inner
        if judged_at_once(delivered):
            # Shares are not ordered, so what a peer holds of them when the claim arrives
            # differs from peer to peer: the claim is judged at once, on its own (§9.11).
            self.position = delivered.position
            self._current = (delivered.seat, int(inner["seq"]))
            try:
                self._on_stalled(delivered.seat, inner, step)
            except TableViolation as exc:
                self._halt(step, exc)
        else:
            self._held.append(delivered)
            self._run_held(step)
        self._flush_shares(step)
        self._track_stall()
        return step

    @property
    def holding(self) -> bool:
        """An ordered message waits here for a reveal's shares (§9.4): the shell hands
        over nothing more until it is taken but a stall claim about shares (`Intake`)."""
        return bool(self._held)

    @property
    def held_leave(self) -> SeatLeft | None:
        """The departure a `leave` (§9.8) makes when it is first among the ordered messages
        held here for a reveal's shares: the game ends at it once that reveal is complete."""
        first = next(iter(self._held), None)
        if first is None or first.rejected is not None or first.envelope.inner["type"] != "leave":
            return None
        return _seat_left(first.seat, first.envelope.inner)

    def held_bytes(self, seat: int) -> int:
        """The bytes of `seat`'s ordered messages held here (they weigh on its bound, §7.2)."""
        return self._held.bytes_of(seat)

    def _run_held(self, step: Step) -> None:
        """Process held ordered messages in order, but never while a reveal waits for its
        shares: shares are not ordered (§7.8), so an ordered message is only judged once
        every reveal before it is complete, in the same state at every peer (§9.4)."""
        while self._held and self.halted is None and not self._reveal_waiting():
            delivered = self._held.popleft()
            inner = delivered.envelope.inner
            seat = delivered.seat
            self.position = delivered.position
            self._current = (seat, int(inner["seq"]))
            try:
                rejected = delivered.rejected
                if rejected is not None:
                    blamed, suspects = delivered.blamed
                    raise TableViolation(rejected.section, blamed, rejected.reason, suspects=suspects)
                handler = getattr(self, "_on_" + str(inner["type"]).replace(".", "_").replace("-", "_"), None)
                if handler is None:
                    raise TableViolation("§9", seat, f"{inner['type']!r} is not a table message")
                handler(seat, inner, step)
                self._settle(step)
            except DeckError as exc:
                self._halt(step, self._blame(exc))
            except TableViolation as exc:
                self._halt(step, exc)

    def _reveal_waiting(self) -> bool:
        if self._round is not None and self._round.void is not None:
            return False  # a void round waits for nothing but openings (§9.10)
        # Only the engine's next need can complete at a moment that differs from peer to
        # peer (the engine answers needs in order). When that is a reveal that waits for a
        # reshuffle's chain, it is not open yet and ordered messages go on: the chain's
        # steps are among them, even if later reveals are open (the round's last cards,
        # turned up while the chain runs), which could not complete before it anyway.
        need = self.engine.next_need
        return isinstance(need, Reveal) and need in self._work

    @property
    def playing(self) -> bool:
        """Whether intents can still count: the game runs and the round is not void."""
        return self.halted is None and not self.finished and (self._round is None or self._round.void is None)

    def awaited(self) -> Awaited | None:
        """The protocol work the table waits for now and the seats it waits on (§9.11);
        None when it waits for nothing, or only for a player's decision (R5 timers)."""
        if self.halted is not None or self.finished:
            return None
        n = len(self.seats)

        def seats_of(peers: Sequence[bytes | None]) -> tuple[int, ...]:
            return tuple(self.seats.index(p) for p in peers if p is not None)

        if not self._key_setup.complete:
            return Awaited("keys", 0, 0, seats_of(self._key_setup.missing))
        rnd = self._round
        if rnd is None:
            return None
        if rnd.void is None and rnd.ended is None:
            if rnd.beacon.phase != "done":
                phase = 0 if rnd.beacon.phase == "commit" else 1
                return Awaited("beacon", rnd.number, phase, seats_of(rnd.beacon.missing))
            need = self.engine.next_need
            work = self._work.get(need) if isinstance(need, Reveal) else None
            if isinstance(work, _RevealWork) and not work.collect.complete:
                # every ordered message waits for these shares, a reshuffle chain's next step
                # among them (§9.4): that step cannot come before them
                return Awaited("shares", rnd.number, work.number, seats_of(work.collect.missing))
            for chain in rnd.chains:
                if not chain.complete:
                    return Awaited("shuffle", rnd.number, chain.number, seats_of((chain.expected,)))
            return None
        if not (self.outcomes and self.outcomes[-1].round == rnd.number):
            return Awaited("opening", rnd.number, 0, tuple(s for s in range(n) if s not in rnd.openings))
        if self.engine.over:
            return Awaited("done", rnd.number, 0, tuple(s for s in range(n) if s not in self._done))
        return None

    def owed(self, seats: Iterable[int]) -> tuple[str, int, int] | None:
        """The protocol work the table waits for (as of the last message) if any of
        `seats` owes it, else None: a return during which it stays owed did not end an
        absence (§11.3)."""
        awaited = self._awaited
        if awaited is None or not set(awaited.seats).intersection(seats):
            return None
        return awaited.key

    def _blame(self, exc: DeckError) -> TableViolation:
        blamed = self.context.seats.index(exc.peer) if exc.peer in self.context.seats else None
        return TableViolation(exc.section, blamed, f"{exc.check}: {exc.detail}")

    @property
    def waiting_for_shares(self) -> dict[int, tuple[int, ...]]:
        """Reveal needs still waiting, by number, with the seats whose shares are missing."""
        return {
            work.number: tuple(self.seats.index(p) for p in work.collect.missing)
            for work in self._by_number.values()
        }

    def turn_started_at(self) -> float | None:
        """When the current turn started here (for the R5 turn timer on screen)."""
        since = self.clocks.turn_since
        if since is None or since[0] != self.engine.turn or self.engine.phase not in TURN_PHASES:
            return None
        return since[1]

    def peek_started_at(self) -> float | None:
        """When the R4.3 ready barrier started here, while it runs."""
        return self.clocks.peek_since if self.engine.phase is Phase.PEEK else None

    def next_deadline(self, stalls_of: frozenset[int] | None = None) -> float | None:
        """When `on_timer` has a timer or stall claim to make (seated peers only); with
        `stalls_of`, only a stall claim naming those seats (see `on_timer`)."""
        dues = (self._stall_due(stalls_of),) if stalls_of is not None else (
            self._timer_due(), self._stall_due(), self._held_due())
        return min((due[0] for due in dues if due is not None), default=None)

    def on_timer(self, now: float, stalls_of: frozenset[int] | None = None) -> Step:
        """The timer and stall claims due at `now`. With `stalls_of` (a link of the table
        is down, §11.3), only a stall claim naming those seats: a seat whose own report of
        links down is all that is down still owes its work (§9.11)."""
        step = Step()
        self._now = max(self._now, now)
        if stalls_of is not None:
            stall = self._stall_due(stalls_of)
            if stall is not None and now >= stall[0]:
                self._claim_stall(stall, step)
            return step
        timer = self._timer_due()
        if timer is not None and now >= timer[0] and self.halted is None:
            what, number, turn = key = timer[1]
            self._claimed.add(key)
            # A turn's key names its turn; the peek's is 0, and its claim names the turn to come.
            turn = turn if what == "turn" else self.engine.turn
            step.send.append({"type": "timeout", "v": 1, "round": number, "what": what, "turn": turn})
        for stall in (self._stall_due(), self._held_due()):
            if stall is not None and now >= stall[0]:
                self._claim_stall(stall, step)
        return step

    def _claim_stall(self, stall: tuple[float, tuple[str, int, int], list[int]], step: Step) -> None:
        _, wait, seats = stall
        self._stalls_claimed.update((wait, s) for s in seats)
        what, number, need = wait
        step.send.append({"type": "stalled", "v": 1, "round": number, "what": what, "need": need, "seats": seats})

    # -- handlers: game setup and rounds ---------------------------------------------

    def _on_keys(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        peer = self.seats[seat]
        share = KeyShare.from_wire({k: inner[k] for k in ("key", "e", "s")}, peer)
        if self._key_setup.complete or peer not in self._key_setup.missing:
            raise TableViolation("§9.2", seat, "a second key for this game")
        self._key_setup.receive(peer, share)
        if self._key_setup.complete:
            self._joint = self._key_setup.joint()
            self._begin_round(1, step)

    def _begin_round(self, number: int, step: Step) -> None:
        assert self._joint is not None
        rnd = _Round(number, Beacon(self.context, number, self._used_nonces), [ShuffleChain(self._joint, number, 0)])
        self._round = rnd
        self._stall_claims.clear()  # (every wait's key names its round)
        self._work.clear()
        self._by_number.clear()
        if self.me is not None:
            assert self.secrets is not None
            commit, rnd.my_reveal = Beacon.draw(self.context, number, self.seats[self.me], self.secrets.stream("beacon", number))
            step.send.append({"type": "beacon.commit", "v": 1, **commit.to_wire()})
            self._shuffle_if_mine(rnd.chains[0])

    def _this_round(self, seat: int, inner: Mapping[str, Any], section: str) -> _Round:
        rnd = self._round
        if rnd is None or inner["round"] != rnd.number:
            raise TableViolation(section, seat, f"message for round {inner['round']}, the table is in round {self.round_number}")
        return rnd

    def _on_beacon_commit(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        rnd = self._this_round(seat, inner, "§9.3")
        rnd.beacon.receive_commit(self.seats[seat], BeaconCommit.from_wire(_pick(inner, "round", "commit"), self.seats[seat]))
        if rnd.beacon.phase == "reveal" and rnd.my_reveal is not None and not rnd.revealed:
            rnd.revealed = True
            step.send.append({"type": "beacon.reveal", "v": 1, **rnd.my_reveal.to_wire()})

    def _on_beacon_reveal(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        rnd = self._this_round(seat, inner, "§9.3")
        rnd.beacon.receive_reveal(self.seats[seat], BeaconReveal.from_wire(_pick(inner, "round", "nonce"), self.seats[seat]))
        if rnd.beacon.phase == "done":
            rnd.seed = rnd.beacon.seed()
            self._used_nonces = rnd.beacon.nonces
            if rnd.number == 1:  # the game's tie-break salt (§7.4), set before any reveal can hold messages
                step.salt = rnd.seed.tie_break_salt
            self._maybe_deal(step)

    def _on_shuffle(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        rnd = self._this_round(seat, inner, "§9.3")
        if rnd.void is not None:
            return  # chains stop where the round became void (§9.10)
        chain = rnd.chain(inner["chain"])
        if chain is None:
            raise TableViolation("§9.3", seat, "a shuffle step for a chain the table did not start")
        peer = self.seats[seat]
        chain.receive(peer, ShuffleStep.from_wire(_pick(inner, "chain", "step", "deck", "commit", "proof"), peer))
        if chain.complete:
            if chain is rnd.chains[0]:
                self._maybe_deal(step)
            else:
                self._pile_shuffled(rnd, chain, step)
        else:
            self._shuffle_if_mine(chain)

    def _pile_shuffled(self, rnd: _Round, chain: ShuffleChain, step: Step) -> None:
        """A reshuffle's chain is complete (R7, §9.4): its pile's cards get their places, so
        reveals of them can open now; an opening that waited for it goes out."""
        deck = chain.deck()
        first = rnd.piles[chain.chain_id]
        for offset in range(len(deck.ciphertexts)):
            rnd.location[first + offset] = (deck, offset)
        if rnd.ended is not None and rnd.shuffled:
            self._send_opening(rnd, step)  # scored while this chain ran: the opening waited for it
        self._open_needs(step)

    def _shuffle_if_mine(self, chain: ShuffleChain) -> None:
        """Note that this seat's step of `chain` is due; `catch_up` makes it, so the step
        that made it due (a snap's outcome, say) is not held up by a shuffle."""
        if self.me is not None and chain.expected == self.seats[self.me]:
            self._owed.append(chain)

    @property
    def owes_work(self) -> bool:
        """True when a shuffle step of this seat's is due (`catch_up` makes it)."""
        return bool(self._owed)

    def catch_up(self) -> Step:
        """Make the shuffle steps this seat owes (§9.3, §9.4), the heaviest work a seat
        does of its own accord. Kept out of the step that made them due, so the shell can
        first show that step and take what else has arrived; what is sent does not
        depend on when this runs."""
        step = Step()
        owed, self._owed = self._owed, []
        rnd = self._round
        for chain in owed:
            assert self.me is not None and self.secrets is not None
            current = rnd is not None and rnd.void is None and any(c is chain for c in rnd.chains)
            if self.halted is not None or not current or chain.expected != self.seats[self.me]:
                continue  # the round moved on or became void: its chains stop (§9.10)
            assert rnd is not None
            made, opening = chain.make_step(self.seats[self.me], self.secrets.stream("shuffle", chain.chain_id))
            rnd.my_openings.append(opening)
            step.send.append({"type": "shuffle", "v": 1, "round": rnd.number, **made.to_wire()})
        return step

    def _maybe_deal(self, step: Step) -> None:
        rnd = self._round
        assert rnd is not None
        if rnd.started or rnd.seed is None or not rnd.chains[0].complete:
            return
        rnd.started = True
        deck = rnd.chains[0].deck()
        rnd.location = {card: (deck, card) for card in range(len(deck.ciphertexts))}
        first = self.seats.index(rnd.seed.first_player)
        self._apply(None, RoundStarted(first), step)
        self.clocks.start_peek(self._now)
        self._timer_claims.clear()

    def _on_opening(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        rnd = self._this_round(seat, inner, "§9.7")
        if rnd.ended is None and rnd.void is None:
            raise TableViolation("§9.7", seat, "opened its shuffles before the round ended (that would show the deck)")
        if seat in rnd.openings:
            raise TableViolation("§9.7", seat, "a second opening for this round")
        peer = self.seats[seat]
        rnd.openings[seat] = (inner["digest"], [ShuffleOpening.from_wire(o, peer) for o in inner["steps"]])
        if len(rnd.openings) == len(self.seats):
            self._close_round(rnd, step)

    def _close_round(self, rnd: _Round, step: Step) -> None:
        for seat, (digest, _) in rnd.openings.items():
            if digest != rnd.digest:
                raise TableViolation("§9.7", seat, "its engine state at the end of the round differs from the one the agreed order gives")
        chains = [c for c in rnd.chains if c.complete]  # a void round may stop in a reshuffle (§9.10)
        try:
            by_chain = verify_round_opening(
                chains, [(self.seats[s], o) for s in sorted(rnd.openings) for o in rnd.openings[s][1]]
            )
        except DeckError as exc:
            blamed = self._blame(exc)
            raise TableViolation(blamed.section, blamed.seat, f"round {rnd.number} is void: {blamed.reason}") from None
        faces: dict[int, int] = {}
        for card, (deck, position) in rnd.location.items():
            faces[card] = by_chain[deck.chain][position]
        for card, face in faces.items():
            known = self.engine.known_face(card)
            if known is not None and known != face:
                raise TableViolation("§8.7", None, f"card {card} was revealed as face {known} but the openings say {face}")
        self.opened[rnd.number] = faces
        void = rnd.void
        challenger = rnd.challenger if void is None else void.challenger
        if challenger is not None:
            raise TableViolation(
                "§9.10", challenger, f"challenged round {rnd.number}, but every shuffle step opened and every card checks out"
            )
        if void is not None:  # every proof held and every step opened: only a broken primitive gets here
            raise TableViolation("§8.5", None, f"card {void.card} failed its reveal ({void.check}), yet every shuffle opened")
        assert rnd.ended is not None
        view = self.engine.view(0)
        outcome = RoundOutcome(
            round=rnd.number,
            scores=rnd.ended.scores,
            totals=rnd.ended.totals,
            caller=rnd.ended.caller,
            exhausted=rnd.ended.exhausted,
            tableaus=self._tableaus(),
            faces=faces,
            seen={card: view.seen_by(card) for card in faces},
        )
        self.outcomes.append(outcome)
        step.rounds.append(outcome)
        if self.engine.over:
            if self.me is not None:
                step.send.append({"type": "done", "v": 1, "digest": state_digest(self.engine), "totals": list(self.engine.totals)})
        else:
            self._begin_round(rnd.number + 1, step)

    def _tableaus(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        out = []
        for tableau in self.engine.zones().tableaux:
            cards = []
            for slot, card in enumerate(tableau):
                face = None if card is None else self.engine.known_face(card)
                if face is not None:
                    cards.append((slot, face))
            out.append(tuple(cards))
        return tuple(out)

    def _on_done(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        if not self.engine.over or not self.outcomes or self.outcomes[-1].round != self.engine.round:
            raise TableViolation("§9.8", seat, "said the game is done before it was")
        if inner["digest"] != state_digest(self.engine) or tuple(inner["totals"]) != self.engine.totals:
            raise TableViolation("§9.8", seat, "its final state differs from the one the agreed order gives")
        self._done[seat] = inner["digest"]
        if len(self._done) == len(self.seats):
            self.finished = True
            step.finished = True

    def _on_leave(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        raise _seat_left(seat, inner)

    def _on_challenge(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        """§9.10: a seat saw a reveal fail where only it could see it; open the round now."""
        rnd = self._this_round(seat, inner, "§9.10")
        if rnd.void is not None or rnd.challenger is not None:
            return  # being opened already
        if not rnd.started:
            raise TableViolation("§9.10", seat, "challenged a round whose cards were not dealt yet")
        if rnd.ended is not None:
            rnd.challenger = seat  # the openings are on their way; they judge the challenge
            return
        self._void(step, _Void("challenge", inner["card"], seat))

    def _on_stalled(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        """§9.11: `seat` waited too long for protocol work of the seats it names."""
        what, named = inner["what"], list(inner["seats"])
        if seat in named or len(set(named)) != len(named) or any(s >= len(self.seats) for s in named):
            raise TableViolation("§9.11", seat, "a stall claim must name other seats of the table, once each")
        if inner["round"] != self.round_number:
            return  # crossed the end of its round (or the game's start)
        if what in ("turn", "peek"):  # a player's time held open at a table of two (§9.6)
            timer = self._timer_key()
            if timer != (what, inner["round"], inner["need"]) or named != self._held_open(timer):
                return  # its own claim (or its move) came first: nothing to do
            held = named[0]
            raise TableViolation("§9.6", None, (Who(held, "possessive"), " time ran out by ", Who(seat, "possessive"),
                                                " clock and not by its own, and nothing tells which clock is right"),
                                 suspects=(held, seat))
        wait = (what, inner["round"], inner["need"])
        if what not in UNORDERED_STALLS:  # ordered work: judged at its place, where every peer waits for the same
            awaited = self.awaited()
            if awaited is None or awaited.key != wait:
                return  # the work arrived before the claim: nothing to do
            named = [s for s in named if s in awaited.seats]
        # (shares and acks are not ordered: what a peer holds of them differs from peer to
        # peer, so only the claims count, and they are judged the moment they are delivered)
        for named_seat in named:
            self._stall_claims.setdefault((wait, named_seat), set()).add(seat)
        self._judge_stall(wait, named, seat)

    def _judge_stall(self, wait: tuple[str, int, int], named: Sequence[int], claimant: int) -> None:
        """§9.11: a seat withheld the work `wait` once every other seat claimed so: one
        seat's word never convicts another. At a table of two the other seat is alone: its
        claim ends the game with both seats as suspects, since nothing tells which is right."""
        what, _, need = wait
        section = STALL_SECTIONS[what]
        detail = f" of reveal {need}" if what == "shares" else ""
        if len(self.seats) == 2:
            if named:
                work = STALL_WORDS[what].removeprefix("its ")
                raise TableViolation(section, None, (Who(claimant), " stopped waiting for ", Who(named[0], "possessive"),
                                                     f" {work}{detail} (§9.11), and at a table of two nothing tells "
                                                     "which of them is right"), suspects=(named[0], claimant))
            return
        others = len(self.seats) - 1
        withheld = [s for s in named if len(self._stall_claims.get((wait, s), ())) == others]
        if not withheld:
            return  # counted: the other seats' claims, if they come, decide
        also: list[str | Who] = []
        for i, other in enumerate(withheld[1:]):
            also += [" (and " if i == 0 else ", ", Who(other, "object")]
        raise TableViolation(
            section, withheld[0],
            (f"withheld {STALL_WORDS[what]}{detail}", *also, ")" if also else "",
             ": every other seat stopped waiting for it (§9.11)"),
        )

    # -- handlers: play --------------------------------------------------------------

    def _queue(self, seat: int, inner: Mapping[str, Any], event: Event) -> None:
        self._fifo.append(
            _Queued(self.position, seat, int(inner["seq"]), inner["heads"], event, inner.get("turn"), inner.get("seen"),
                    int(inner["lamport"]))
        )

    def _on_intent(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        intent = intent_of(inner, seat)
        if self._round is None or inner["round"] != self._round.number or not self._round.started:
            if inner["round"] == self.round_number:  # sent while the round under way was being dealt
                why = f"{inner['type']} arrived before round {self.round_number or 1} was dealt"
            else:
                why = f"{inner['type']} for round {inner['round']} arrived in round {self.round_number}"
            step.refused.append(Refused(self.position, seat, intent, "§9.5", why))
            return
        if self._round.void is not None:
            step.refused.append(Refused(self.position, seat, intent, "§9.10", f"round {self._round.number} is void"))
            return
        self._queue(seat, inner, intent)

    _on_ready = _on_bandit = _on_draw = _on_discard = _on_exchange = _on_take = _on_intent
    _on_peek = _on_spy = _on_swap = _on_look_swap = _on_decide = _on_skip_power = _on_snap = _on_intent

    def _on_timeout(self, seat: int, inner: Mapping[str, Any], step: Step) -> None:
        if self._round is None or inner["round"] != self._round.number or self._round.void is not None:
            return  # a claim that crossed the end of its round: nothing to do
        event: Event = TurnTimedOut(inner["turn"]) if inner["what"] == "turn" else PeekBarrierExpired()
        self._queue(seat, inner, event)

    def receive_side(self, seat: int, envelope: Any, now: float) -> Step:
        """A side message (§7.8) arrived: shares are used at once, whatever the order."""
        step = Step()
        self._now = now
        if self.halted is not None or self.finished:
            return step
        if self._round is not None and self._round.void is not None:
            return step  # a void round reveals nothing more (§9.10)
        inner = envelope.inner
        peer = self.seats[seat]
        try:
            if inner.get("type") != "shares":
                raise TableViolation("§9.4", seat, f"{inner.get('type')!r} is not a side message of the table")
            sseq, digest = int(inner["sseq"]), message_hash(envelope.body)
            if not inner["items"] and not inner.get("sealed"):
                raise TableViolation("§9.4", seat, "a shares message that carries no share")
            for number, share in _shares_of(inner, peer):
                if number >= self._needs_opened:
                    held = self._early_from[seat] = self._early_from.get(seat, 0) + 1
                    if held > EARLY_SHARES_HELD:
                        raise TableViolation("§9.4", seat, f"more than {EARLY_SHARES_HELD} of its shares are for needs "
                                             f"not open yet (the latest for need {number}, {_open_here(self._needs_opened)})")
                    waiting = self._early.setdefault(number, [])
                    waiting.append((seat, share, sseq, digest, self._proven_early(seat, share, number, waiting)))
                    continue
                work = self._by_number.get(number)
                if work is None:
                    raise TableViolation("§9.4", seat, f"a share for need {number}, which is not waiting for shares")
                self._take_share(work, seat, share, sseq, digest)
            self._settle(step)
        except DeckError as exc:
            self._halt(step, self._blame(exc))
        except TableViolation as exc:
            self._halt(step, exc)
        self._run_held(step)
        self._flush_shares(step)
        self._track_stall()
        return step

    def sent_side(self, envelope: Any) -> None:
        """Our side message was signed (by the shell): note which of our shares it carries."""
        sseq, digest = int(envelope.inner["sseq"]), message_hash(envelope.body)
        assert self.me is not None
        for item in [*envelope.inner["items"], *envelope.inner.get("sealed", ())]:
            work = self._unsigned.pop(item["need"], None)
            if work is not None:
                work.contributors[self.me] = (sseq, digest)

    def _take_share(self, work: _RevealWork, seat: int, share: Share | SealedShare, sseq: int, digest: bytes,
                    proven: bool = False) -> None:
        work.collect.receive(self.seats[seat], share, proven=proven)
        work.contributors[seat] = (sseq, digest)

    def _proven_early(self, seat: int, share: Share | SealedShare, number: int,
                      waiting: list[tuple[int, Share | SealedShare, int, bytes, bool]]) -> bool:
        """Check the proof of a plain share that came before its need opened, while this
        peer waits for what opens it (a snap's share often overtakes the snap's last
        acknowledgement, §9.4): the proof depends on the card's deck alone, not on the
        need. True if it holds; one that does not is judged as before, once its need
        opens (whether the share is owed comes first). Only for the next few needs, and
        once per seat and need, so shares sent far ahead cost no more than they did."""
        rnd = self._round
        if not isinstance(share, Share) or rnd is None or number >= self._needs_opened + EARLY_PROOFS_AHEAD:
            return False
        if any(seat == earlier for earlier, *_ in waiting):
            return False  # (a second share of one seat for one need is refused when it opens)
        chain = rnd.chain(share.chain)
        if chain is None or not chain.complete:
            return False
        try:
            verify_share(chain.deck(), self.seats[seat], share)
        except DeckError:
            return False
        return True

    # -- the engine loop -------------------------------------------------------------

    def _settle(self, step: Step) -> None:
        """Answer whatever needs can be answered and apply queued intents, in order."""
        while self.halted is None:
            if self._round is not None and self._round.void is not None:
                break
            if self._answer_need(step):
                continue
            if self._fifo and not self.engine.needs:
                self._apply_queued(self._fifo.popleft(), step)
                continue
            break

    def _answer_need(self, step: Step) -> bool:
        need = self.engine.next_need
        if need is None:
            return False
        work = self._work.get(need)
        rnd = self._round
        assert rnd is not None
        if isinstance(need, Reveal):
            if work is None or not work.collect.complete:
                return False
            face = self._face_of(need, work, step)
            if rnd.void is not None:
                return True
            try:
                self._apply(None, need.answer(face), step, reveal=work if need.to == ALL else None)
            except EngineError as exc:  # the checks above leave the engine nothing to refuse
                raise TableViolation(exc.rule, None, (f"the engine refused reveal {work.number}: ", *exc.words)) from None
            return True
        if work is None:
            return False
        # The engine needs only the new ids; the chain runs on (`_pile_shuffled`).
        rnd.retired.update(need.retired)
        self._apply(None, need.answer(), step)
        return True

    def _face_of(self, need: Reveal, work: _RevealWork, step: Step) -> int | None:
        """The face a complete reveal shows here, or None (not ours to see, or it failed).

        Every share was proven, so a face that is no card, or a card already seen
        elsewhere, convicts a shuffle step (§8.5, §8.9): a failure everybody sees voids the
        round at once; one only this seat can see is challenged (§9.10)."""
        if need.to == ALL:
            try:
                face = work.collect.card()
            except CardMismatch:
                self._void(step, _Void("not-a-card", need.card, None))
                return None
            clash = self._clash(need.card, face)
            if clash is not None:
                if self.engine.view(0).is_public(clash):
                    self._void(step, _Void("duplicate-card", need.card, None))
                    return None
                self._challenge(step, need.card, "duplicate-card")  # we alone had seen the other one
                self._forget_private()
            return face
        if need.to != self.me:
            return None
        try:
            face = work.collect.card(self._keys)
        except CardMismatch:
            self._challenge(step, need.card, "not-a-card")
            return None
        if self._clash(need.card, face) is not None:
            self._challenge(step, need.card, "duplicate-card")
            return None
        return face

    def _clash(self, card: int, face: int) -> int | None:
        """Another card of the round (not reshuffled away) known here to have `face`."""
        rnd = self._round
        assert rnd is not None
        for other in rnd.location:
            if other != card and other not in rnd.retired and self.engine.known_face(other) == face:
                return other
        return None

    def _challenge(self, step: Step, card: int, check: str) -> None:
        rnd = self._round
        assert rnd is not None
        if self.me is None or rnd.challenged or rnd.void is not None:
            return
        rnd.challenged = True
        step.send.append({"type": "challenge", "v": 1, "round": rnd.number, "card": card, "check": check})

    def _forget_private(self) -> None:
        """Replace the engine by one that knows only what everybody knows: after a private
        conflict this seat goes on exactly as the others do until its challenge lands."""
        engine = Game(len(self.seats), self.rules.skills, self.rules.target)
        for event in self._public_events:
            engine.apply(event)
        self.engine = engine

    def _void(self, step: Step, void: _Void) -> None:
        """§9.10: the round stops here; every seat opens the steps of its complete chains."""
        rnd = self._round
        assert rnd is not None
        rnd.void = void
        rnd.digest = state_digest(self.engine)
        while self._fifo:
            item = self._fifo.popleft()
            if not isinstance(item.event, (TurnTimedOut, PeekBarrierExpired)):
                step.refused.append(Refused(item.position, item.seat, item.event, "§9.10", f"round {rnd.number} became void"))
        self._work.clear()
        self._by_number.clear()
        self._early.clear()
        self._early_from.clear()
        self._unsigned.clear()
        # (Shares made before this point still go out, as at a halt (`_halt`): a peer that
        # is not here yet may need them to get here. After it, nothing more is revealed.)
        self._send_opening(rnd, step)

    def _send_opening(self, rnd: _Round, step: Step) -> None:
        """Open this seat's steps of every complete chain (§8.7; a void round's chains stop
        where they are, §9.10)."""
        if self.me is not None:
            complete = {c.chain_id for c in rnd.chains if c.complete}
            steps = [o.to_wire() for o in rnd.my_openings if o.chain in complete]
            step.send.append({"type": "opening", "v": 1, "round": rnd.number, "steps": steps, "digest": rnd.digest})

    def _apply_queued(self, item: _Queued, step: Step) -> None:
        # What the item changes is its own message's doing (§9.5: a top card it turns up
        # was shown by it), whatever this peer took last: that differs from peer to peer.
        self._current = (item.seat, item.seq)
        event = item.event
        if isinstance(event, (TurnTimedOut, PeekBarrierExpired)):
            self._apply_timeout(item, event, step)
            return
        if item.turn is not None and item.turn != self.engine.turn:
            step.refused.append(
                Refused(item.position, item.seat, event, "§9.5", f"sent for turn {item.turn}, but turn {self.engine.turn} has begun")
            )
            return
        if isinstance(event, Snap) and event.top == self.engine.discard_top() and not self._saw_top(item):
            step.refused.append(
                Refused(item.position, item.seat, event, "§9.5", "a snap on a card its sender had not seen turned face up")
            )
            return
        try:
            self._apply(item.seat, event, step, position=item.position, stamp=item.stamp)
        except EngineError as exc:
            step.refused.append(Refused(item.position, item.seat, event, exc.rule, exc.message, exc.words))
            return
        if isinstance(event, Ready):  # the last seat still in time confirmed: the barrier may end (§9.6)
            self._end_timer(item.seat, step, item.position, item.stamp)

    def _apply_timeout(self, item: _Queued, event: TurnTimedOut | PeekBarrierExpired, step: Step) -> None:
        """A seat's timer ran out (§9.6). A claim that comes after what it would end (the
        turn was played, the barrier is over) is dropped. Otherwise it is counted: a
        player's time is over once its own seat claimed it, or every other seat did, so
        that no seat alone cuts another player's time short."""
        key = self._timer_key()
        if key is None or key[0] != ("turn" if isinstance(event, TurnTimedOut) else "peek"):
            return
        if isinstance(event, TurnTimedOut) and event.turn != self.engine.turn:
            return
        self._timer_claims = {key: self._timer_claims.get(key, set()) | {item.seat}}  # (only the running timer's)
        self._end_timer(item.seat, step, item.position, item.stamp)

    def _end_timer(self, seat: int | None, step: Step, position: int, stamp: int | None) -> None:
        """Apply the end of the running timer once every player it times is out of time
        (`_out_of_time`): the turn's player, or each seat not ready at the barrier (the
        message at `position`, stamped `stamp`, made it so)."""
        key = self._timer_key()
        if key is None or key not in self._timer_claims:
            return
        if all(self._out_of_time(key, s) for s in self._timed(key)):
            event = TurnTimedOut(key[2]) if key[0] == "turn" else PeekBarrierExpired()
            self._apply(seat, event, step, position=position, stamp=stamp)

    def _timed(self, key: tuple[str, int, int]) -> list[int]:
        """The players the running timer `key` times: the turn's, or each seat not ready
        at the barrier."""
        if key[0] == "turn":
            return [] if self.engine.turn_seat is None else [self.engine.turn_seat]
        return [s for s in range(len(self.seats)) if not self.engine.is_ready(s)]

    def _out_of_time(self, key: tuple[str, int, int], seat: int) -> bool:
        """Whether `seat`'s time on the timer `key` is over: its own seat claimed so, or
        every other seat did, at a table of three or more (§9.6): one seat's word never
        ends another player's time."""
        claims = self._timer_claims.get(key, set())
        others = len(self.seats) - 1
        return seat in claims or (others >= 2 and len(claims - {seat}) == others)

    def _held_open(self, key: tuple[str, int, int]) -> list[int]:
        """At a table of two, the seat whose time on the timer `key` is over by the other
        seat's claim and not by its own (§9.6): it holds it open."""
        claims = self._timer_claims.get(key, set())
        if len(self.seats) != 2 or not claims:
            return []
        return [s for s in self._timed(key) if s not in claims]

    def _saw_top(self, item: _Queued) -> bool:
        """§9.5: the snap's sender had what turned the top card face up."""
        kind, what = self._top_visibility
        if kind == "reveal":
            return sorted(tuple(c) for c in (item.seen or [])) == list(_contributors(what))
        seat, seq = what
        if seat == item.seat:
            return seq < item.seq
        others = [s for s in range(len(self.seats)) if s != item.seat]
        return seat < 0 or item.heads[others.index(seat)][0] >= seq

    def _apply(
        self,
        seat: int | None,
        event: Event,
        step: Step,
        *,
        position: int | None = None,
        reveal: _RevealWork | None = None,
        stamp: int | None = None,
    ) -> None:
        notes = self.engine.apply(event)  # raises EngineError with the state unchanged
        private = isinstance(event, Revealed) and event.to != ALL and event.face is not None
        self._public_events.append(replace(event, face=None) if private else event)
        step.applied.append(Applied(self.position if position is None else position, seat, event, tuple(notes), stamp))
        if self.on_applied is not None:
            self.on_applied(event, notes, stamp)
        self._note_top(reveal)
        for note in notes:
            if isinstance(note, TurnStarted):
                self.clocks.start_turn(note.turn, self._now)
            elif isinstance(note, RoundEnded):
                self._round_ended(note, step)
        self._open_needs(step)

    def _note_top(self, reveal: _RevealWork | None) -> None:
        """Remember what made the current top card visible (for §9.5)."""
        top = self.engine.discard_top()
        face = None if top is None else self.engine.known_face(top)
        if (top, face) == self._top_seen or face is None:
            return
        self._top_seen = (top, face)
        if reveal is not None:
            self._top_visibility = ("reveal", reveal)  # read when a snap is judged: all shares signed by then
        else:
            self._top_visibility = ("message", self._current or (-1, -1))

    def _open_needs(self, step: Step) -> None:
        needs = self.engine.needs
        if not needs and not self._work:
            return
        live = set(needs)
        for need in [n for n in self._work if n not in live]:
            work = self._work.pop(need)
            if isinstance(work, _RevealWork):
                self._by_number.pop(work.number, None)
        rnd = self._round
        assert rnd is not None
        for need in needs:
            if need in self._work:
                continue
            if isinstance(need, Reveal):
                if need.card not in rnd.location:
                    continue  # a card of a new pile whose chain still runs: opened when it is complete
                deck, position = rnd.location[need.card]
                audience = None if need.to == ALL else self.seats[need.to]
                number = self._needs_opened
                self._needs_opened += 1
                plan = rnd.plans.setdefault((deck.chain, position), CardShares(deck, position))
                work = _RevealWork(number, Collect(deck, position, audience, plan))
                self._work[need] = work
                self._by_number[number] = work
                if self._keys is not None and self.seats[self.me] in work.collect.expected:
                    self._owe_share(work, deck, position, audience)
                for seat, share, sseq, digest, proven in self._early.pop(number, []):
                    self._early_from[seat] -= 1
                    self._take_share(work, seat, share, sseq, digest, proven)
            elif isinstance(need, Reshuffle):
                assert self._joint is not None
                faces = [self.engine.known_face(card) for card in need.retired]
                if any(face is None for face in faces):
                    raise TableViolation("§9.4", None, "a reshuffle of cards whose faces are not public")
                chain = ShuffleChain(self._joint, rnd.number, len(rnd.chains), [f for f in faces if f is not None])
                rnd.chains.append(chain)
                rnd.piles[chain.chain_id] = need.first_id
                self._work[need] = chain
                self._shuffle_if_mine(chain)

    def _owe_share(self, work: _RevealWork, deck: Deck, position: int, audience: bytes | None) -> None:
        """Make the share this seat owes a reveal (plain, or sealed to its audience, §8.5)."""
        assert self._keys is not None and self.secrets is not None and self.me is not None
        me = self.seats[self.me]
        share: Share | SealedShare
        if me in work.collect.plain_from:
            share = self._prepared.pop((deck.chain, position), None) or self._my_share(deck, position)
            self._share_items.append({"need": work.number, **share.to_wire()})
        else:
            assert audience is not None
            stream = self.secrets.stream("seal", deck.chain, position, self.seats.index(audience))
            share = make_sealed_share(self._keys, deck, position, audience, stream)
            self._sealed_items.append({"need": work.number, **share.to_wire()})
        work.collect.receive(me, share, own=True)
        self._unsigned[work.number] = work

    def _flush_shares(self, step: Step) -> None:
        if self._share_items or self._sealed_items:  # (made before any halt: see `_halt`)
            message: dict[str, Any] = {"type": "shares", "v": 1, "round": self.round_number, "items": self._share_items}
            if self._sealed_items:
                message["sealed"] = self._sealed_items
            step.side.append(message)
        self._share_items = []
        self._sealed_items = []

    def _round_ended(self, note: RoundEnded, step: Step) -> None:
        rnd = self._round
        assert rnd is not None
        rnd.ended = note
        rnd.digest = state_digest(self.engine)
        self._prepared.clear()
        while self._fifo:
            item = self._fifo.popleft()
            if not isinstance(item.event, (TurnTimedOut, PeekBarrierExpired)):
                step.refused.append(Refused(item.position, item.seat, item.event, "R8", "the round ended before it was applied"))
        if rnd.shuffled:  # (else it goes out when the last chain completes, `_pile_shuffled`)
            self._send_opening(rnd, step)

    # -- timers ------------------------------------------------------------------------

    def _track_stall(self) -> None:
        """Note since when the table waits for the work it waits for now (§9.11). Called
        after every ordered or side message, the only inputs that change what it waits
        for; the stall claim (`_stall_due`, asked at every deadline) reads it from here."""
        awaited = self._awaited = self.awaited()
        if awaited is None:
            self.clocks.wait_for(None, (), self._now)
        else:
            self.clocks.wait_for(awaited.key, awaited.seats, self._now)

    def _stall_due(self, of: frozenset[int] | None = None) -> tuple[float, tuple[str, int, int], list[int]] | None:
        """(when, the wait's key, the seats) of the next stall this seat would claim: the
        seats it has not claimed yet whose work fell due first, each timed from then (a
        shuffle chain's steps share a key, and a step late before it never shortens the
        next seat's time); with `of`, of those seats only."""
        if self.me is None or self.halted is not None or self.clocks.wait is None:
            return None
        key, starts = self.clocks.wait
        awaited = self._awaited
        if awaited is None or awaited.key != key:
            return None
        due = {s: since + self.stall_s for s, since in starts.items()
               if s != self.me and (key, s) not in self._stalls_claimed and (of is None or s in of)}
        if not due:
            return None
        at = min(due.values())
        return at, key, sorted(s for s, when in due.items() if when == at)

    def _timer_due(self) -> tuple[float, tuple[str, int, int]] | None:
        """(when, key) of the timeout this seat would claim: ("peek", round, 0) or
        ("turn", round, turn), at the end of the timer by its own clock (§9.6)."""
        key = self._timer_key()
        if key is None or key in self._claimed or self.me is None or self.halted is not None:
            return None
        at = self.clocks.due(key)
        return None if at is None else (at, key)

    def _held_due(self) -> tuple[float, tuple[str, int, int], list[int]] | None:
        """(when, key, seats) of the stall this seat would claim at a table of two: the
        other seat holds its time open `stall_s` past this seat's own claim (§9.6)."""
        key = self._timer_key()
        if key is None or key not in self._claimed or self.halted is not None:
            return None
        held = [s for s in self._held_open(key) if s != self.me and (key, s) not in self._stalls_claimed]
        due = self.clocks.due(key)
        return None if not held or due is None else (due + self.stall_s, key, held)

    def _timer_key(self) -> tuple[str, int, int] | None:
        """Which timer the game stands at, the same at every peer: the round's ready barrier
        ("peek", round, 0; R4.3) or a turn's ("turn", round, turn; R5)."""
        rnd = self._round
        if rnd is None or not rnd.started or rnd.void is not None:
            return None
        if self.engine.phase is Phase.PEEK:
            return "peek", rnd.number, 0
        if self.engine.phase in TURN_PHASES:
            return "turn", rnd.number, self.engine.turn
        return None

    def _halt(self, step: Step, violation: TableViolation) -> None:
        """Stop at `violation`. Content made in this step is dropped: it would be stamped
        after the halt point, where every honest peer stops too. Shares made before the
        halt still go out (`_flush_shares`): a reveal ordered before the halt point may
        need them, and the others must get past it to halt where this peer did (a seat
        that snaps its own card and leaves at once, say)."""
        self.halted = violation
        step.violation = violation
        step.send.clear()


_PLAIN = ("chain", "position", "share", "e", "s")
_SEALED = ("chain", "position", "u", "v", "e", "s", "r")


def _shares_of(inner: Mapping[str, Any], peer: bytes) -> list[tuple[int, Share | SealedShare]]:
    """Every (need number, share) a ``shares`` message carries, plain then sealed (§9.4)."""
    out: list[tuple[int, Share | SealedShare]] = [
        (item["need"], Share.from_wire({k: item[k] for k in _PLAIN}, peer)) for item in inner["items"]
    ]
    out += [(item["need"], SealedShare.from_wire({k: item[k] for k in _SEALED}, peer)) for item in inner.get("sealed", ())]
    return out


def _contributors(work: _RevealWork) -> tuple[tuple[int, int, bytes], ...]:
    """The side messages that carried a reveal's shares: (seat, sseq, hash), by seat."""
    return tuple(sorted((seat, sseq, digest) for seat, (sseq, digest) in work.contributors.items()))


def _pick(inner: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {name: inner[name] for name in names}

