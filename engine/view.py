"""What one seat knows: the per-seat view used by the terminal client and the bots.

`Game.view(seat)` returns a `SeatView`, a cheap read-only window on the game as it is
at that moment. It shows the public state (where every card is, who has seen which
card, face-up cards, scores) and the faces of exactly the cards this seat has seen, as
far as the engine instance was told them. Using a view after the game has applied
another event raises `StaleView` instead of silently showing a different moment;
`snapshot()` copies the view into plain frozen data that never goes stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.errors import StaleView
from engine.needs import Need
from engine.phases import SNAP_PHASES, TURN_PHASES, Phase
from engine.skills import Power, Skills

if TYPE_CHECKING:
    from engine.game import Game


@dataclass(frozen=True, slots=True)
class CardView:
    """One card as a seat sees it."""

    card: int
    face: int | None  # None: this seat does not know the card
    value: int | None
    seen_by: tuple[int, ...]  # seats that have seen it (public knowledge)
    public: bool  # turned face up for everyone at some point


@dataclass(frozen=True, slots=True)
class ViewSnapshot:
    """A frozen copy of a `SeatView` (safe to keep, compare and serialise)."""

    seat: int
    players: int
    target: int
    round: int
    phase: Phase
    turn: int
    turn_seat: int | None
    first_player: int | None
    caller: int | None
    final_turns_left: int | None
    totals: tuple[int, ...]
    history: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]
    needs: tuple[Need, ...]
    ready: tuple[bool, ...]
    snapped: tuple[bool, ...]
    tableaux: tuple[tuple[CardView | None, ...], ...]
    discard: tuple[CardView, ...]  # bottom first, top last
    draw_count: int
    hand: CardView | None
    in_transit: CardView | None
    power: Power | None
    looked: tuple[int, int, int] | None
    looked_in_place: bool  # both cards of the look & swap are where they were looked at (R3)


class SeatView:
    """Read-only window on `game` for `seat`, valid until the game's next event."""

    __slots__ = ("_game", "seat", "_generation", "_bit")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat
        self._bit = 1 << seat
        self._generation = game.generation

    def _g(self) -> Game:
        game = self._game
        if game.generation != self._generation:
            raise StaleView(f"this view of seat {self.seat + 1} is from before the game's last event; take a new one")
        return game

    # --- table and game ---------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._game.players

    @property
    def skills(self) -> Skills:
        return self._game.skills

    @property
    def target(self) -> int:
        return self._game.target

    @property
    def phase(self) -> Phase:
        return self._g()._phase

    @property
    def round(self) -> int:
        return self._g()._round

    @property
    def turn(self) -> int:
        return self._g()._turn

    @property
    def turn_seat(self) -> int | None:
        return self._g().turn_seat

    @property
    def my_turn(self) -> bool:
        g = self._g()
        return g._phase in TURN_PHASES and g._turn_seat == self.seat and not g._needs

    @property
    def turns_in_round(self) -> int:
        return self._g()._turns_in_round

    @property
    def caller(self) -> int | None:
        return self._g().caller

    @property
    def final_turns_left(self) -> int | None:
        return self._g().final_turns_left

    @property
    def totals(self) -> tuple[int, ...]:
        return self._g().totals

    @property
    def history(self) -> tuple[tuple[int, ...], ...]:
        return self._g().history

    @property
    def winners(self) -> tuple[int, ...]:
        return self._g()._winners

    @property
    def needs(self) -> tuple[Need, ...]:
        return self._g().needs

    @property
    def awaiting_table(self) -> bool:
        return bool(self._g()._needs)

    @property
    def ready(self) -> tuple[bool, ...]:
        mask = self._g()._ready
        return tuple(bool(mask >> s & 1) for s in range(self.players))

    @property
    def snapped(self) -> tuple[bool, ...]:
        """Per seat: has it used its immediate discard in the current turn?"""
        g = self._g()
        return tuple(t == g._turn for t in g._snapped)

    @property
    def can_snap(self) -> bool:
        """May this seat try an immediate discard right now (R6)?"""
        g = self._game
        if g.generation != self._generation:
            self._g()
        return g._phase in SNAP_PHASES and not g._needs and bool(g._discard) and g._snapped[self.seat] != g._turn

    # --- piles and hand ---------------------------------------------------------------

    @property
    def top(self) -> int | None:
        """The discard pile's top card id."""
        d = self._g()._discard
        return d[-1] if d else None

    @property
    def top_face(self) -> int | None:
        g = self._g()
        return g._face[g._discard[-1]] if g._discard else None

    @property
    def top_value(self) -> int | None:
        g = self._g()
        return g._values[g._face[g._discard[-1]]] if g._discard else None

    @property
    def discard(self) -> tuple[int, ...]:
        """Discard pile card ids, bottom first (all face up)."""
        return tuple(self._g()._discard)

    @property
    def draw_count(self) -> int:
        return len(self._g()._draw)

    @property
    def hand(self) -> int | None:
        """The card drawn by the player whose turn it is, if any."""
        h = self._g()._hand
        return h if h >= 0 else None

    @property
    def in_transit(self) -> int | None:
        t = self._g()._transit
        return t if t >= 0 else None

    @property
    def power(self) -> Power | None:
        return self._g()._power

    @property
    def looked(self) -> tuple[int, int, int] | None:
        """Phase DECIDE: (own_slot, owner, slot) of the look & swap."""
        looked = self._g()._looked
        return None if looked is None else (looked[0], looked[2], looked[3])

    @property
    def looked_in_place(self) -> bool:
        return self._g().looked_in_place()

    # --- tableaux and knowledge ---------------------------------------------------------

    def tableau(self, owner: int) -> tuple[int | None, ...]:
        """Card ids of `owner`'s slots in slot order; None for an emptied slot."""
        return tuple(c if c >= 0 else None for c in self._g()._tableau[owner])

    def cards(self, owner: int) -> list[tuple[int, int, int | None]]:
        """`owner`'s occupied slots as (slot, card, value if this seat knows it)."""
        g = self._g()
        bit = self._bit
        seen = g._seen
        face = g._face
        values = g._values
        out = []
        for slot, card in enumerate(g._tableau[owner]):
            if card >= 0:
                f = face[card]
                out.append((slot, card, values[f] if f >= 0 and seen[card] & bit else None))
        return out

    def card_count(self, owner: int) -> int:
        return self._g().card_count(owner)

    def face(self, card: int) -> int | None:
        """The face of `card` if this seat has seen it (and the engine was told)."""
        g = self._g()
        if not 0 <= card < g._next_id or not g._seen[card] & self._bit:
            return None
        f = g._face[card]
        return f if f >= 0 else None

    def value(self, card: int) -> int | None:
        f = self.face(card)
        return None if f is None else self._game._values[f]

    def seen_by(self, card: int) -> tuple[int, ...]:
        mask = self._g()._seen[card]
        return tuple(s for s in range(self.players) if mask >> s & 1)

    def is_public(self, card: int) -> bool:
        return bool(self._g()._public[card])

    def known_matches(self) -> list[tuple[int, int, int]]:
        """Tableau cards this seat knows to be identical to the discard top, as
        (owner, slot, card): the immediate discards it can make with certainty."""
        g = self._game
        if g.generation != self._generation:
            self._g()
        matches = g._match_cache if g._match_generation == g.generation else g.known_matches()
        if not matches:
            return []
        bit = self._bit
        return [(o, s, c) for o, s, c, seen in matches if seen & bit]

    def unseen_faces(self) -> list[int]:
        """Faces this seat cannot place: not on the discard pile and not a card it has
        seen in a tableau or in its hand. Unknown cards are drawn from these."""
        g = self._g()
        located = bytearray(g._size)
        for f in self._located_faces(g):
            located[f] = 1
        return [f for f in range(g._size) if not located[f]]

    def unseen_stats(self) -> tuple[int, int]:
        """(number, value sum) of `unseen_faces()`, computed without listing them."""
        g = self._g()
        bit = self._bit
        face = g._face
        seen = g._seen
        values = g._values
        count = g._size - len(g._discard)
        total = g._skills_total - g._discard_value
        for tab in g._tableau:
            for card in tab:
                if card >= 0 and seen[card] & bit:
                    f = face[card]
                    if f >= 0:
                        count -= 1
                        total -= values[f]
        h = g._hand
        if h >= 0 and seen[h] & bit and face[h] >= 0:
            count -= 1
            total -= values[face[h]]
        return count, total

    def _located_faces(self, g: Game) -> list[int]:
        bit = self._bit
        face = g._face
        seen = g._seen
        out = [face[card] for card in g._discard]
        for tab in g._tableau:
            out += [face[card] for card in tab if card >= 0 and seen[card] & bit and face[card] >= 0]
        h = g._hand
        if h >= 0 and seen[h] & bit and face[h] >= 0:
            out.append(face[h])
        return out

    # --- snapshot ------------------------------------------------------------------------

    def card_view(self, card: int) -> CardView:
        g = self._g()
        f = self.face(card)
        return CardView(card, f, None if f is None else g._values[f], self.seen_by(card), bool(g._public[card]))

    def snapshot(self) -> ViewSnapshot:
        """Everything this view shows, as frozen data."""
        g = self._g()
        looked = self.looked
        return ViewSnapshot(
            seat=self.seat,
            players=g.players,
            target=g.target,
            round=g._round,
            phase=g._phase,
            turn=g._turn,
            turn_seat=g.turn_seat,
            first_player=g.first_player,
            caller=g.caller,
            final_turns_left=g.final_turns_left,
            totals=g.totals,
            history=g.history,
            winners=g._winners,
            needs=g.needs,
            ready=self.ready,
            snapped=self.snapped,
            tableaux=tuple(
                tuple(None if c < 0 else self.card_view(c) for c in tab) for tab in g._tableau
            ),
            discard=tuple(self.card_view(c) for c in g._discard),
            draw_count=len(g._draw),
            hand=None if g._hand < 0 else self.card_view(g._hand),
            in_transit=None if g._transit < 0 else self.card_view(g._transit),
            power=g._power,
            looked=looked,
            looked_in_place=g.looked_in_place(),
        )
