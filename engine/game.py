"""Bandit (rules R1–R10) as one deterministic state machine.

Theory of operation
-------------------
Everything that affects the game lives in this file. A `Game` is fed events in the
agreed order (`apply`); each event is validated completely and only then applied, so
a refused event (a typed `EngineError` naming the rule) leaves the state untouched.
The engine does not know which seat is "local": every peer, the auditor and the
simulator run the same transitions.

Cards are opaque ids (positions in the round's shuffled deck). The engine never sees a
card by itself: when a rule turns a card over or refills the draw pile it appends a
*need* (`Reveal(card, to)`, `Reshuffle(...)`, see `engine.needs`) and refuses intents
with `AwaitingTable` until the driver feeds the matching facts (`Revealed`,
`Reshuffled`) in order. Whether a need arises depends only on public state, so all
peers ask for the same work.

Knowledge is tracked per card: the set of seats that have seen it (public, the same on
every peer), whether it was turned face up for everyone, and its face if *this*
instance was told (a peer knows its own private reveals, the simulator knows all).
`view(seat)` shows a seat exactly what that seat knows.

The deal (R4) is fixed by positions: seat s gets cards 4s, 4s+1, 4s+2, 4s+3 in slots
0..3; card 4n (n players) is the first discard; cards 4n+1, 4n+2, … form the draw pile,
drawn in increasing order. A reshuffle (R7) retires all discard cards but the top and
creates a draw pile of fresh ids numbered on from the highest id used, drawn in
increasing order.

Turn model (R5, our reading): a turn starts in phase START, where the player may call
Bandit (if nobody has yet this round, R5; R8 says what follows), `Draw` (options A and
B both begin by drawing and looking) or `TakeDiscard(top, slot)` (option C: it names the
top card it takes, and is refused if an immediate discard covered that card first; the
player then chooses again). After a draw the phase is DRAWN: `Discard` (A) or
`Exchange(slot)` (B). A discarded card with a power opens phase POWER (any power intent
or `SkipPower`); Look & swap passes through DECIDE (`DecideSwap`). Snaps (R6) are
accepted in every phase from the first discard to the end of the last final turn, by
anyone, one per player per turn (the time before the first turn counts as a turn).

Turn timer fallback (R5): `TurnTimedOut(turn)` plays option A without a power from
wherever the turn is: in START the top card is drawn and discarded face up without
being shown to anyone first; in DRAWN the card in hand is discarded; in POWER and
DECIDE the power is dropped (no swap). The turn then ends.

Round end: after the Bandit caller's turn, one final turn (2 players) or two (3 or
more) follow (R8); then every tableau card not yet face-up knowledge is revealed to
all, and the round is scored (R9). R7: a draw (A/B, timer or penalty) from an empty
draw pile first needs a reshuffle of the discard pile minus its top; with nothing to
reshuffle the round ends at once and is scored the same way (a card in hand is not in
anyone's area and does not count). The game ends after the round in which a total
reaches the target; the lowest totals share the win (R1).
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from engine.errors import (
    AwaitingTable,
    BadTarget,
    BanditAlreadyCalled,
    FaceConflict,
    MalformedEvent,
    OutOfTurn,
    SnapLimit,
    UnexpectedFact,
    Where,
    Who,
    Words,
    WrongPhase,
)
from engine.events import (
    ALL,
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Event,
    Exchange,
    LookSwap,
    Peek,
    PeekBarrierExpired,
    Ready,
    Reshuffled,
    Revealed,
    RoundStarted,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
    TurnTimedOut,
)
from engine.needs import Need, Reshuffle, Reveal
from engine.notes import (
    BanditCalled,
    GameEnded,
    Note,
    PenaltyDrawn,
    RoundEnded,
    SnapOutcome,
    SnapResolved,
    TimerFallback,
    TurnStarted,
)
from engine.phases import PHASE_WORDS, SNAP_PHASES, TURN_PHASES, Phase
from engine.skills import CARDS_PER_SEAT, DEFAULT_SKILLS, Power, Skills
from engine.view import SeatView

CALLER_BONUS: Final = 10
"""R9: the Bandit caller gets -10 if strictly lowest, else +10."""

DEFAULT_TARGET: Final = 100
MAX_TARGET: Final = 10_000
"""The highest target a table may play to (R1; the table's rules, protocol.md §6.8)."""
"""R1: the game ends after the round in which a total reaches this."""


EMPTY: Final = -1
"""Internal marker of an empty tableau slot."""


def final_turn_seats(caller: int, players: int) -> tuple[int, ...]:
    """R8: who plays the final turns after `caller`'s, in turn order: the opponent at
    two players, the next two seats at three or more."""
    return tuple((caller + step) % players for step in range(1, 2 if players == 2 else 3))


@dataclass(frozen=True, slots=True)
class Zones:
    """Where every live card is (public knowledge)."""

    draw: tuple[int, ...]  # top first
    discard: tuple[int, ...]  # bottom first, top last
    tableaux: tuple[tuple[int | None, ...], ...]  # per seat, per slot; None = empty slot
    hand: int | None
    in_transit: int | None

    def cards(self) -> list[int]:
        """Every live card id, each once."""
        out = [*self.draw, *self.discard]
        out += [c for tab in self.tableaux for c in tab if c is not None]
        out += [c for c in (self.hand, self.in_transit) if c is not None]
        return out


def _counted(seat: object) -> str:
    """A seat number from an event (the wire's, from 0) as players count seats, from 1
    ("seat 1" is the host); what is no number, as it came."""
    return str(seat + 1) if type(seat) is int else repr(seat)


def _no_seat(seat: object, players: int) -> str:
    """That `seat` (as the wire numbers it) is no seat of this table, in a player's words."""
    return f"there is no seat {_counted(seat)} at this table of {players} seats"


def _describe_need(need: Need) -> Words:
    """A need in words, its seat left for a narrator to name."""
    if isinstance(need, Reveal):
        return (f"a reveal of card {need.card} to ", "all" if need.to == ALL else Who(need.to, "object"))
    return (f"a reshuffle of {len(need.retired)} discard cards into ids from {need.first_id}",)


class Game:
    """One game of Bandit at a table of `players` seats (2..6), fed events in order."""

    def __init__(self, players: int, skills: Skills = DEFAULT_SKILLS, target: int = DEFAULT_TARGET) -> None:
        skills.check_players(players)
        if type(target) is not int or target < 1:
            raise MalformedEvent("R1", None, f"the target total must be a positive integer, not {target!r}")
        self._n = players
        self._skills = skills
        self._target = target
        self._all = (1 << players) - 1
        self._values = skills.values
        self._keys = skills.keys
        self._powers = skills.powers
        self._size = skills.size
        self._skills_total = sum(skills.values)

        self._round = 0
        self._totals = [0] * players
        self._history: list[tuple[int, ...]] = []
        self._winners: tuple[int, ...] = ()
        self._phase = Phase.BETWEEN
        self._turn = 0  # game-wide counter: each round's peek period and each turn get a number
        self._turn_seat = -1
        self._first_player = -1
        self._turns_in_round = 0
        self._caller = -1
        self._final_left = -1  # -1: no final turns counted yet
        self._ready = 0
        self._snapped = [-1] * players  # turn number of each seat's last snap
        self._exhausted = False
        self._power: Power | None = None
        self._looked: tuple[int, int, int, int, int] | None = None  # own_slot, mine, owner, slot, theirs
        self._snap: tuple[int, int, int, int | None] | None = None  # seat, owner, slot, give
        self._snapped_onto: tuple[int, int] | None = None  # (card, seat): the last matched snap's card and snapper
        self._drawing: tuple[Callable[[int, int], None], int] | None = None  # a draw waiting for R7
        self._needs: deque[tuple[Need, Callable[[], None] | None]] = deque()
        self._notes: list[Note] = []
        self.generation = 0
        """Incremented by every accepted event (views use it to detect staleness)."""

        self._reset_cards(0)
        self._handlers: dict[type, Callable[[Any], None]] = {
            Ready: self._on_ready,
            CallBandit: self._on_call_bandit,
            Draw: self._on_draw,
            Discard: self._on_discard,
            Exchange: self._on_exchange,
            TakeDiscard: self._on_take_discard,
            Peek: self._on_peek,
            Spy: self._on_spy,
            Swap: self._on_swap,
            LookSwap: self._on_look_swap,
            DecideSwap: self._on_decide_swap,
            SkipPower: self._on_skip_power,
            Snap: self._on_snap,
            RoundStarted: self._on_round_started,
            PeekBarrierExpired: self._on_peek_barrier_expired,
            TurnTimedOut: self._on_turn_timed_out,
            Revealed: self._on_revealed,
            Reshuffled: self._on_reshuffled,
        }
        self._match_generation = -1
        self._match_cache: list[tuple[int, int, int, int]] = []

    def _reset_cards(self, count: int) -> None:
        self._seen = [0] * count  # bit s: seat s has seen the card
        self._public = bytearray(count)  # 1: turned face up for everyone at some point
        self._face = [-1] * count  # face if this instance knows it, else -1
        self._was_top = bytearray(count)  # 1: has been the discard pile's top card
        self._holder = [-1] * self._size  # face -> live card id known to have it
        self._tableau: list[list[int]] = [[] for _ in range(self._n)]
        self._draw: list[int] = []  # top card last
        self._discard: list[int] = []  # top card last
        self._discard_value = 0  # sum of the discard pile's values (all face up)
        self._hand = -1
        self._transit = -1
        self._next_id = count

    # ------------------------------------------------------------------ public API

    def apply(self, event: Event) -> list[Note]:
        """Validate and apply one event; return what happened as notes.

        Raises an `EngineError` subclass (state unchanged) if the event is refused."""
        handler = self._handlers.get(type(event))
        if handler is None:
            raise MalformedEvent("§9", None, f"not an engine event: {event!r}")
        notes: list[Note] = []
        self._notes = notes
        handler(event)
        self.generation += 1
        return notes

    @property
    def players(self) -> int:
        return self._n

    @property
    def skills(self) -> Skills:
        return self._skills

    @property
    def target(self) -> int:
        return self._target

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def round(self) -> int:
        """Number of the current (or last) round, 1-based; 0 before the first."""
        return self._round

    @property
    def turn(self) -> int:
        """Game-wide turn counter (each round's pre-first-turn period has its own number)."""
        return self._turn

    @property
    def turn_seat(self) -> int | None:
        """Whose turn it is (None outside turns)."""
        return self._turn_seat if self._phase in TURN_PHASES else None

    @property
    def first_player(self) -> int | None:
        return self._first_player if self._round else None

    @property
    def turns_in_round(self) -> int:
        return self._turns_in_round

    @property
    def caller(self) -> int | None:
        """The seat that announced Bandit this round, if any."""
        return self._caller if self._caller >= 0 else None

    @property
    def final_turns_left(self) -> int | None:
        """Final turns still to play after the caller's turn (None until it ended)."""
        return self._final_left if self._final_left >= 0 else None

    @property
    def power(self) -> Power | None:
        """The power that may be used now (phase POWER)."""
        return self._power

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._totals)

    @property
    def history(self) -> tuple[tuple[int, ...], ...]:
        """Round scores of every finished round."""
        return tuple(self._history)

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats sharing the win once the game is over (R1), else ()."""
        return self._winners

    @property
    def over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def needs(self) -> tuple[Need, ...]:
        """Table work the engine waits for, first to be answered first."""
        return tuple(need for need, _ in self._needs)

    @property
    def next_need(self) -> Need | None:
        return self._needs[0][0] if self._needs else None

    def discard_top(self) -> int | None:
        return self._discard[-1] if self._discard else None

    def is_ready(self, seat: int) -> bool:
        """Whether `seat` confirmed being ready this round (R4.3)."""
        return bool(self._ready >> seat & 1)

    def snapped_this_turn(self, seat: int) -> bool:
        return self._snapped[seat] == self._turn

    def card_count(self, seat: int) -> int:
        return sum(1 for c in self._tableau[seat] if c >= 0)

    def zones(self) -> Zones:
        return Zones(
            draw=tuple(reversed(self._draw)),
            discard=tuple(self._discard),
            tableaux=tuple(tuple(c if c >= 0 else None for c in tab) for tab in self._tableau),
            hand=self._hand if self._hand >= 0 else None,
            in_transit=self._transit if self._transit >= 0 else None,
        )

    def known_face(self, card: int) -> int | None:
        """The face of `card` if this instance knows it (not filtered by seat)."""
        if type(card) is int and 0 <= card < self._next_id and self._face[card] >= 0:
            return self._face[card]
        return None

    def view(self, seat: int) -> SeatView:
        """What `seat` knows now (see `engine.view.SeatView`)."""
        if type(seat) is not int or not 0 <= seat < self._n:
            raise MalformedEvent("§9", None, _no_seat(seat, self._n))
        return SeatView(self, seat)

    def public_state(self) -> dict[str, Any]:
        """The public state protocol.md §9.1 defines (what the table's `digest` hashes):
        the same on every peer that applied the same events, whatever private faces
        each was told. Plain ints, strs, lists and None only."""
        zones = self.zones()
        cards = range(self._next_id)
        return {
            "round": self._round,
            "phase": self._phase.value,
            "turn": self.turn_seat,
            "caller": self.caller,
            "totals": list(self._totals),
            "scores": [list(scores) for scores in self._history],
            "winners": list(self._winners),
            "draw": list(zones.draw),
            "discard": list(zones.discard),
            "tableaux": [list(tab) for tab in zones.tableaux],
            "hand": zones.hand,
            "transit": zones.in_transit,
            "faces": [self._face[c] if self._public[c] else None for c in cards],
            "seen": list(self._seen),
        }

    def state_hash(self) -> str:
        """SHA-256 (hex) of everything this engine holds that every peer shares (its
        public state and its bookkeeping, nothing private): equal on every peer that
        applied the same events; the tests' check that a refused event changed nothing."""
        cards = range(self._next_id)
        public_faces = [self._face[c] if self._public[c] else None for c in cards]
        state = {
            "players": self._n,
            "target": self._target,
            "deck": [[k.value, k.count, k.power.value if k.power else None, k.bandit] for k in self._skills.kinds],
            "round": self._round,
            "phase": self._phase.value,
            "turn": self._turn,
            "turn_seat": self._turn_seat,
            "first": self._first_player,
            "turns_in_round": self._turns_in_round,
            "caller": self._caller,
            "final_left": self._final_left,
            "ready": self._ready,
            "snapped": self._snapped,
            "exhausted": self._exhausted,
            "power": self._power.value if self._power else None,
            "looked": self._looked,
            "snap": self._snap,
            "totals": self._totals,
            "history": self._history,
            "winners": self._winners,
            "tableaux": self._tableau,
            "draw": self._draw,
            "discard": self._discard,
            "hand": self._hand,
            "transit": self._transit,
            "seen": self._seen,
            "public": list(self._public),
            "was_top": list(self._was_top),
            "public_faces": public_faces,
            "drawing": None if self._drawing is None else [self._drawing[0].__name__, self._drawing[1]],
            "needs": [
                [n.card, n.to] if isinstance(n, Reveal) else [list(n.retired), n.first_id] for n, _ in self._needs
            ],
            "then": [None if then is None else then.__name__ for _, then in self._needs],
        }
        encoded = json.dumps(state, separators=(",", ":"), sort_keys=True).encode()
        return hashlib.sha256(b"bandit-lan engine state v1\x00" + encoded).hexdigest()

    def known_matches(self) -> list[tuple[int, int, int, int]]:
        """Tableau cards whose face this instance knows and that are identical to the
        discard top: (owner, slot, card, seen-mask). Cached per generation."""
        if self._match_generation == self.generation:
            return self._match_cache
        out: list[tuple[int, int, int, int]] = []
        if self._discard:
            face = self._face
            keys = self._keys
            seen = self._seen
            key = keys[face[self._discard[-1]]]
            for owner, tab in enumerate(self._tableau):
                for slot, card in enumerate(tab):
                    if card >= 0:
                        f = face[card]
                        if f >= 0 and keys[f] == key:
                            out.append((owner, slot, card, seen[card]))
        self._match_cache = out
        self._match_generation = self.generation
        return out

    # ------------------------------------------------------------------ validation helpers

    def _seat(self, event: Any, rule: str) -> int:
        seat = event.seat
        if type(seat) is not int or not 0 <= seat < self._n:
            raise MalformedEvent(rule, None, f"{type(event).__name__}: {_no_seat(seat, self._n)}")
        return seat

    def _number(self, value: Any, what: str, rule: str, seat: int | None) -> int:
        if type(value) is not int or value < 0:
            raise MalformedEvent(rule, seat, f"{what} must be a non-negative integer, not {value!r}")
        return value

    def _other_seat(self, value: Any, rule: str, seat: int) -> int:
        if type(value) is not int or not 0 <= value < self._n:
            raise MalformedEvent(rule, seat, _no_seat(value, self._n))
        return value

    def _not_waiting(self, seat: int | None, what: str) -> None:
        if self._needs:
            raise AwaitingTable("§9", seat, (f"{what} must wait: the table owes ", *_describe_need(self._needs[0][0])))

    def _turn_action(self, seat: int, allowed: Phase, rule: str, action: str) -> None:
        """Common checks for intents of the player whose turn it is."""
        self._not_waiting(seat, action)
        phase = self._phase
        if phase in TURN_PHASES and seat != self._turn_seat:
            raise OutOfTurn(rule, seat, (f"cannot {action}: it is ", Who(self._turn_seat, "possessive"), " turn"))
        if phase is not allowed:
            raise WrongPhase(rule, seat, f"cannot {action} {PHASE_WORDS[phase]}")

    def _own_card(self, seat: int, slot: int, rule: str, action: str) -> int:
        tab = self._tableau[seat]
        if slot >= len(tab) or tab[slot] < 0:
            raise BadTarget(rule, seat, (f"cannot {action}: there is no card in ", Where(seat, slot)))
        return tab[slot]

    def _their_card(self, seat: int, owner: int, slot: int, rule: str, action: str) -> int:
        if owner == seat:
            raise BadTarget(rule, seat, (f"cannot {action}: it must target another player's card, not ",
                                         Who(seat, "possessive"), " own"))
        tab = self._tableau[owner]
        if slot >= len(tab) or tab[slot] < 0:
            raise BadTarget(rule, seat, (f"cannot {action}: there is no card in ", Where(owner, slot)))
        return tab[slot]

    def _was_on_top(self, top: int, rule: str, seat: int) -> None:
        """R5, R6: a take or a snap names a card that has been the discard pile's top."""
        if top >= self._next_id or not self._was_top[top]:
            raise BadTarget(rule, seat, f"card {top} has never been the top of the discard pile this round")

    def _power_check(self, seat: int, power: Power, action: str) -> None:
        self._turn_action(seat, Phase.POWER, "R3", action)
        if self._power is not power:
            have = self._power.value if self._power else "none"
            raise WrongPhase("R3", seat, f"cannot {action}: the discarded card's power is {have}")

    # ------------------------------------------------------------------ card movement (no validation)

    def _put(self, card: int, owner: int, slot: int) -> None:
        self._tableau[owner][slot] = card

    def _push_discard(self, card: int) -> None:
        self._discard.append(card)
        self._discard_value += self._values[self._face[card]]
        self._was_top[card] = 1

    def _to_transit(self, card: int) -> None:
        self._transit = card

    def _exchange(self, owner_a: int, slot_a: int, owner_b: int, slot_b: int) -> None:
        a = self._tableau[owner_a][slot_a]
        b = self._tableau[owner_b][slot_b]
        self._put(b, owner_a, slot_a)
        self._put(a, owner_b, slot_b)

    def _reveal_to(self, card: int, seat: int, then: Callable[[], None] | None = None) -> None:
        """Ask for a private reveal unless the seat has seen the card already.

        Only called with no needs pending, or with `then` None, so order is kept."""
        if self._seen[card] >> seat & 1:
            if then is not None:
                then()
        else:
            self._needs.append((Reveal(card, seat), then))

    def _reveal_all(self, card: int, then: Callable[[], None]) -> None:
        """Ask for a public reveal unless the card is face-up knowledge already."""
        if self._public[card]:
            then()
        else:
            self._needs.append((Reveal(card, ALL), then))

    def _draw_for(self, receiver: Callable[[int, int], None], seat: int) -> None:
        """Give the draw pile's top card to `receiver(seat, card)`. R7: an empty pile is
        first refilled from the discard pile (a need), or the round ends at once."""
        if self._draw:
            receiver(seat, self._draw.pop())
        elif len(self._discard) > 1:
            self._drawing = (receiver, seat)
            self._needs.append((Reshuffle(tuple(self._discard[:-1]), self._next_id), self._resume_draw))
        else:
            self._end_round(exhausted=True)

    def _resume_draw(self) -> None:
        receiver, seat = self._drawing  # type: ignore[misc]
        self._drawing = None
        self._draw_for(receiver, seat)

    # ------------------------------------------------------------------ round flow

    def _on_round_started(self, event: RoundStarted) -> None:
        first = event.first_player
        if type(first) is not int or not 0 <= first < self._n:
            raise MalformedEvent("R4", None, f"the first player: {_no_seat(first, self._n)}")
        if self._phase is Phase.OVER:
            raise WrongPhase("R1", None, "the game is over; no new round starts")
        if self._phase is not Phase.BETWEEN:
            raise UnexpectedFact("R4", None, f"round {self._round} is still being played")
        n = self._n
        self._reset_cards(self._size)
        for seat in range(n):
            base = CARDS_PER_SEAT * seat
            self._tableau[seat] = list(range(base, base + CARDS_PER_SEAT))
        first_discard = CARDS_PER_SEAT * n
        self._to_transit(first_discard)
        self._draw = list(range(self._size - 1, first_discard, -1))
        self._round += 1
        self._turn += 1
        self._turn_seat = -1
        self._first_player = first
        self._turns_in_round = 0
        self._caller = -1
        self._final_left = -1
        self._ready = 0
        self._exhausted = False
        self._power = None
        self._looked = None
        self._snap = None
        self._drawing = None
        self._phase = Phase.PEEK
        for seat in range(n):  # R4.3: each player looks at the two bottom cards
            base = CARDS_PER_SEAT * seat
            self._needs.append((Reveal(base + 2, seat), None))
            self._needs.append((Reveal(base + 3, seat), None))
        self._needs.append((Reveal(first_discard, ALL), self._finish_first_discard))

    def _finish_first_discard(self) -> None:
        card = self._transit
        self._transit = -1
        self._push_discard(card)

    def _on_ready(self, event: Ready) -> None:
        seat = self._seat(event, "R4")
        self._not_waiting(seat, "confirm being ready")
        if self._phase is not Phase.PEEK:
            raise WrongPhase("R4", seat, f"cannot confirm being ready {PHASE_WORDS[self._phase]}")
        if self._ready >> seat & 1:
            raise WrongPhase("R4", seat, "already confirmed being ready this round")
        self._ready |= 1 << seat
        if self._ready == self._all:
            self._start_turn(self._first_player)

    def _on_peek_barrier_expired(self, event: PeekBarrierExpired) -> None:
        self._not_waiting(None, "the ready barrier")
        if self._phase is not Phase.PEEK:
            raise UnexpectedFact("R4", None, f"no ready barrier is running {PHASE_WORDS[self._phase]}")
        self._start_turn(self._first_player)

    def _start_turn(self, seat: int) -> None:
        self._turn += 1
        self._turn_seat = seat
        self._turns_in_round += 1
        self._phase = Phase.START
        self._power = None
        self._looked = None
        self._notes.append(TurnStarted(seat, self._turn))

    def _end_turn(self) -> None:
        if self._caller >= 0:
            if self._final_left < 0:  # the caller's own turn just ended (R8)
                self._final_left = len(final_turn_seats(self._caller, self._n))
            else:
                self._final_left -= 1
            if self._final_left == 0:
                self._end_round(exhausted=False)
                return
        self._start_turn((self._turn_seat + 1) % self._n)

    def _end_round(self, exhausted: bool) -> None:
        """R8: turn every card face up (needs), then score. Called with no needs pending."""
        self._phase = Phase.REVEAL
        self._exhausted = exhausted
        self._power = None
        self._looked = None
        public = self._public
        hidden = [c for tab in self._tableau for c in tab if c >= 0 and not public[c]]
        if not hidden:
            self._score()
            return
        for card in hidden[:-1]:
            self._needs.append((Reveal(card, ALL), None))
        self._needs.append((Reveal(hidden[-1], ALL), self._score))

    def _score(self) -> None:
        values = self._values
        face = self._face
        scores = [sum(values[face[c]] for c in tab if c >= 0) for tab in self._tableau]
        caller = self._caller
        if caller >= 0:
            mine = scores[caller]
            strictly_lowest = all(mine < s for seat, s in enumerate(scores) if seat != caller)
            scores[caller] += -CALLER_BONUS if strictly_lowest else CALLER_BONUS
        for seat, score in enumerate(scores):
            self._totals[seat] += score
        self._history.append(tuple(scores))
        totals = tuple(self._totals)
        self._notes.append(
            RoundEnded(self._round, tuple(scores), totals, caller if caller >= 0 else None, self._exhausted)
        )
        if max(totals) >= self._target:
            best = min(totals)
            self._winners = tuple(seat for seat, t in enumerate(totals) if t == best)
            self._phase = Phase.OVER
            self._notes.append(GameEnded(self._winners, totals))
        else:
            self._phase = Phase.BETWEEN

    # ------------------------------------------------------------------ turn intents

    def _on_call_bandit(self, event: CallBandit) -> None:
        seat = self._seat(event, "R5")  # (R5 says when Bandit may be announced; R8, what follows)
        self._turn_action(seat, Phase.START, "R5", "announce Bandit")
        if self.snapped_this_turn(seat):  # R5: "at the very start of your turn, before anything else"
            raise WrongPhase("R5", seat, "cannot announce Bandit: it comes before anything else in your turn, "
                                         "and you have snapped in it")
        if self._caller >= 0:
            raise BanditAlreadyCalled("R5", seat,
                                      ("Bandit was already announced this round (by ", Who(self._caller, "object"), ")"))
        self._caller = seat
        self._notes.append(BanditCalled(seat))

    def _on_draw(self, event: Draw) -> None:
        seat = self._seat(event, "R5")
        self._turn_action(seat, Phase.START, "R5", "draw")
        self._draw_for(self._take_drawn, seat)

    def _take_drawn(self, seat: int, card: int) -> None:
        self._hand = card
        self._phase = Phase.DRAWN
        self._needs.append((Reveal(card, seat), None))

    def _on_discard(self, event: Discard) -> None:
        seat = self._seat(event, "R5")
        self._turn_action(seat, Phase.DRAWN, "R5", "discard the drawn card")
        card = self._hand
        self._hand = -1
        self._to_transit(card)
        self._reveal_all(card, self._finish_option_a)

    def _finish_option_a(self) -> None:
        card = self._transit
        self._transit = -1
        self._push_discard(card)
        power = self._powers[self._face[card]]
        if power is None:
            self._end_turn()
        else:
            self._power = power
            self._phase = Phase.POWER

    def _finish_blind_discard(self) -> None:
        """B, C and the timer fallback: the discarded card is face up; the turn ends."""
        card = self._transit
        self._transit = -1
        self._push_discard(card)
        self._end_turn()

    def _on_exchange(self, event: Exchange) -> None:
        seat = self._seat(event, "R5")
        slot = self._number(event.slot, "slot", "R5", seat)
        self._turn_action(seat, Phase.DRAWN, "R5", "exchange the drawn card")
        old = self._own_card(seat, slot, "R5", "exchange the drawn card")
        self._put(self._hand, seat, slot)
        self._hand = -1
        self._to_transit(old)
        self._reveal_all(old, self._finish_blind_discard)

    def _on_take_discard(self, event: TakeDiscard) -> None:
        seat = self._seat(event, "R5")
        top = self._number(event.top, "top", "R5", seat)
        slot = self._number(event.slot, "slot", "R5", seat)
        self._turn_action(seat, Phase.START, "R5", "take the discard pile's top card")
        old = self._own_card(seat, slot, "R5", "take the discard pile's top card")
        self._was_on_top(top, "R5", seat)
        if top != self._discard[-1]:  # the player chose a card that is no longer there: choose again
            raise BadTarget("R5", seat, ("the card ", Who(seat), " chose to take is no longer the discard pile's top: ",
                                         *self._cover_words(), "; ", Who(seat), " may choose again"))
        self._discard.pop()
        self._discard_value -= self._values[self._face[top]]
        self._put(top, seat, slot)
        self._to_transit(old)
        self._reveal_all(old, self._finish_blind_discard)

    def _cover_words(self) -> Words:
        """What covered the discard pile's top a take aimed at (R5), in the table's order,
        not in speed: a claim at the same Lamport stamp is put first by the lot (§7.4),
        which only the narrator knows of."""
        if self._snapped_onto is not None and self._snapped_onto[0] == self._discard[-1]:
            return (Who(self._snapped_onto[1], "possessive"), " snap covered it, ordered before the take")
        return ("another card covered it, ordered before the take",)

    def _on_skip_power(self, event: SkipPower) -> None:
        seat = self._seat(event, "R3")
        self._turn_action(seat, Phase.POWER, "R3", "skip the power")
        self._end_turn()

    def _on_peek(self, event: Peek) -> None:
        seat = self._seat(event, "R3")
        slot = self._number(event.slot, "slot", "R3", seat)
        self._power_check(seat, Power.PEEK, "peek")
        card = self._own_card(seat, slot, "R3", "peek")
        self._reveal_to(card, seat, self._end_turn)

    def _on_spy(self, event: Spy) -> None:
        seat = self._seat(event, "R3")
        owner = self._other_seat(event.owner, "R3", seat)
        slot = self._number(event.slot, "slot", "R3", seat)
        self._power_check(seat, Power.SPY, "spy")
        card = self._their_card(seat, owner, slot, "R3", "spy")
        self._reveal_to(card, seat, self._end_turn)

    def _on_swap(self, event: Swap) -> None:
        seat = self._seat(event, "R3")
        own_slot = self._number(event.own_slot, "own_slot", "R3", seat)
        owner = self._other_seat(event.owner, "R3", seat)
        slot = self._number(event.slot, "slot", "R3", seat)
        self._power_check(seat, Power.SWAP, "swap")
        self._own_card(seat, own_slot, "R3", "swap")
        self._their_card(seat, owner, slot, "R3", "swap")
        self._exchange(seat, own_slot, owner, slot)
        self._end_turn()

    def _on_look_swap(self, event: LookSwap) -> None:
        seat = self._seat(event, "R3")
        own_slot = self._number(event.own_slot, "own_slot", "R3", seat)
        owner = self._other_seat(event.owner, "R3", seat)
        slot = self._number(event.slot, "slot", "R3", seat)
        self._power_check(seat, Power.LOOK_SWAP, "look & swap")
        mine = self._own_card(seat, own_slot, "R3", "look & swap")
        theirs = self._their_card(seat, owner, slot, "R3", "look & swap")
        self._looked = (own_slot, mine, owner, slot, theirs)
        self._power = None
        self._phase = Phase.DECIDE
        self._reveal_to(mine, seat)
        self._reveal_to(theirs, seat)

    def looked_in_place(self) -> bool:
        """Phase DECIDE: are both looked-at cards still where they were looked at?"""
        if self._looked is None:
            return False
        own_slot, mine, owner, slot, theirs = self._looked
        seat = self._turn_seat
        return self._tableau[seat][own_slot] == mine and self._tableau[owner][slot] == theirs

    def _on_decide_swap(self, event: DecideSwap) -> None:
        seat = self._seat(event, "R3")
        if type(event.swap) is not bool:
            raise MalformedEvent("R3", seat, f"swap must be true or false, not {event.swap!r}")
        self._turn_action(seat, Phase.DECIDE, "R3", "decide the look & swap")
        if event.swap and not self.looked_in_place():
            raise BadTarget("R3", seat,
                            ("cannot exchange: a card ", Who(seat), " looked at has left its slot (an immediate discard)"))
        if event.swap:
            own_slot, _, owner, slot, _ = self._looked  # type: ignore[misc]
            self._exchange(seat, own_slot, owner, slot)
        self._looked = None
        self._end_turn()

    # ------------------------------------------------------------------ timers

    def _on_turn_timed_out(self, event: TurnTimedOut) -> None:
        turn = event.turn
        if type(turn) is not int:
            raise MalformedEvent("R5", None, f"turn must be an integer, not {turn!r}")
        self._not_waiting(None, "the turn timer")
        if self._phase not in TURN_PHASES:
            raise UnexpectedFact("R5", None, f"no turn is running {PHASE_WORDS[self._phase]}")
        if turn != self._turn:
            raise UnexpectedFact("R5", None, f"the timer of turn {turn} is stale: turn {self._turn} is running")
        self._notes.append(TimerFallback(self._turn_seat, turn))
        phase = self._phase
        if phase is Phase.START:
            self._draw_for(self._discard_unseen, self._turn_seat)
        elif phase is Phase.DRAWN:
            card = self._hand
            self._hand = -1
            self._to_transit(card)
            self._reveal_all(card, self._finish_blind_discard)
        else:  # POWER or DECIDE: the power is dropped
            self._looked = None
            self._power = None
            self._end_turn()

    def _discard_unseen(self, seat: int, card: int) -> None:
        self._to_transit(card)
        self._reveal_all(card, self._finish_blind_discard)

    # ------------------------------------------------------------------ snaps (R6)

    def _on_snap(self, event: Snap) -> None:
        seat = self._seat(event, "R6")
        top = self._number(event.top, "top", "R6", seat)
        owner = self._other_seat(event.owner, "R6", seat)
        slot = self._number(event.slot, "slot", "R6", seat)
        give = event.give
        if give is not None:
            self._number(give, "give", "R6", seat)
        self._not_waiting(seat, "an immediate discard")
        if self._phase not in SNAP_PHASES:
            raise WrongPhase("R6", seat, f"no immediate discard {PHASE_WORDS[self._phase]}")
        if self._snapped[seat] == self._turn:
            raise SnapLimit("R6", seat, ("one immediate discard per player per turn; ", Who(seat), " already tried this turn"))
        if owner == seat and give is not None:
            raise BadTarget("R6", seat, ("an immediate discard of ", Who(seat, "possessive"), " own card gives no card away"))
        if owner != seat and give is None:
            raise BadTarget("R6", seat, ("an immediate discard of ", Who(owner, "possessive"), " card must name one of ",
                                           Who(seat, "possessive"), " slots to give"))
        self._was_on_top(top, "R6", seat)
        target_tab = self._tableau[owner]
        if slot >= len(target_tab):
            raise BadTarget("R6", seat, (f"there is no slot {slot} among ", Who(owner, "possessive"), " cards"))
        own_tab = self._tableau[seat]
        if give is not None and give >= len(own_tab):
            raise BadTarget("R6", seat, (f"there is no slot {give} among ", Who(seat, "possessive"), " cards to give"))
        stale = top != self._discard[-1]
        if not stale:
            if target_tab[slot] < 0:
                raise BadTarget("R6", seat, (Where(owner, slot), " is empty"))
            if give is not None and own_tab[give] < 0:
                raise BadTarget("R6", seat, (Where(seat, give), " is empty: there is no card there to give"))
        # --- validated: apply
        self._snapped[seat] = self._turn
        if stale:  # R6: "not the fastest": the card stays unrevealed, penalty card
            self._notes.append(SnapResolved(seat, owner, slot, target_tab[slot], SnapOutcome.NOT_FASTEST))
            self._penalty(seat)
            return
        card = target_tab[slot]
        self._snap = (seat, owner, slot, give)
        self._reveal_all(card, self._resolve_snap)

    def _resolve_snap(self) -> None:
        seat, owner, slot, give = self._snap  # type: ignore[misc]
        self._snap = None
        tab = self._tableau[owner]
        card = tab[slot]
        face = self._face
        if self._keys[face[card]] == self._keys[face[self._discard[-1]]]:
            tab[slot] = EMPTY
            self._push_discard(card)
            self._snapped_onto = (card, seat)
            if give is not None:  # the snapper's card moves, unseen, into the emptied slot
                own = self._tableau[seat]
                given = own[give]
                own[give] = EMPTY
                self._put(given, owner, slot)
            self._notes.append(SnapResolved(seat, owner, slot, card, SnapOutcome.MATCHED))
            if all(c < 0 for c in self._tableau[seat]):  # R6: never zero cards
                self._penalty(seat)
        else:  # back face down, known to all (it was revealed publicly)
            self._notes.append(SnapResolved(seat, owner, slot, card, SnapOutcome.WRONG))
            self._penalty(seat)

    def _penalty(self, seat: int) -> None:
        self._draw_for(self._place_penalty, seat)

    def _place_penalty(self, seat: int, card: int) -> None:
        """R6: face down, unseen, into a new slot."""
        tab = self._tableau[seat]
        tab.append(card)
        self._notes.append(PenaltyDrawn(seat, len(tab) - 1, card))

    # ------------------------------------------------------------------ table facts

    def _on_revealed(self, event: Revealed) -> None:
        if not self._needs:
            raise UnexpectedFact("§9", None, f"no reveal is pending (got a reveal of card {event.card!r})")
        need, then = self._needs[0]
        card = event.card
        if type(need) is not Reveal or type(card) is not int or card != need.card or type(event.to) is not int or event.to != need.to:
            a_seat = type(event.to) is int and 0 <= event.to < self._n
            to: str | Who = "all" if event.to == ALL else Who(event.to, "object") if a_seat else repr(event.to)
            raise UnexpectedFact("§9", None, ("expected ", *_describe_need(need), f", got a reveal of card {card!r} to ", to))
        face = event.face
        if face is None:
            if need.to == ALL:
                raise MalformedEvent("§9", None, f"the reveal of card {card} to all must carry its face")
        else:
            if type(face) is not int or not 0 <= face < self._size:
                raise MalformedEvent("R2", None, f"card {card}: face {face!r} is not in 0..{self._size - 1}")
            known = self._face[card]
            if known >= 0 and known != face:
                raise FaceConflict("R2", None, f"card {card} was revealed as face {known} before, now as face {face}")
            holder = self._holder[face]
            if holder >= 0 and holder != card:
                raise FaceConflict("R2", None, f"face {face} is already card {holder}; card {card} cannot be it too")
        # --- validated: apply
        self._needs.popleft()
        if face is not None:
            self._face[card] = face
            self._holder[face] = card
        if need.to == ALL:
            self._seen[card] = self._all
            self._public[card] = 1
        else:
            self._seen[card] |= 1 << need.to
        if then is not None:
            then()

    def _on_reshuffled(self, event: Reshuffled) -> None:
        if not self._needs:
            raise UnexpectedFact("R7", None, "no reshuffle is pending")
        need, then = self._needs[0]
        if type(need) is not Reshuffle or event.retired != need.retired or event.first_id != need.first_id:
            raise UnexpectedFact("R7", None, ("expected ", *_describe_need(need), f", got {event!r}"))
        # --- validated: apply
        self._needs.popleft()
        holder = self._holder
        for card in need.retired:  # retired: their faces live on under the new ids
            f = self._face[card]
            if f >= 0 and holder[f] == card:
                holder[f] = -1
        self._discard = self._discard[-1:]
        self._discard_value = self._values[self._face[self._discard[0]]]
        count = len(need.retired)
        first = need.first_id
        self._seen.extend([0] * count)
        self._public.extend(bytes(count))
        self._face.extend([-1] * count)
        self._was_top.extend(bytes(count))
        self._draw = list(range(first + count - 1, first - 1, -1))
        self._next_id = first + count
        if then is not None:
            then()


