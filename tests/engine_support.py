"""Scenario tables for engine tests: a Game whose deck is arranged card by card.

`ScriptedTable(players, tableaux={seat: [values of slots 0..3]}, discard=value,
draw=[values, top first])` deals a round where every named position holds a card of
that value (distinct physical cards; unnamed positions get the remaining faces in
canonical order) and answers every reveal from that arrangement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine import (
    DEFAULT_SKILLS,
    Event,
    Game,
    Note,
    Oracle,
    Prng,
    Ready,
    RoundStarted,
    SeatView,
    Skills,
)

GREEN = -2
RED = 20


def arrange(
    players: int,
    tableaux: dict[int, Sequence[int]] | None = None,
    discard: int | None = None,
    draw: Sequence[int] = (),
    skills: Skills = DEFAULT_SKILLS,
) -> list[int]:
    """Faces for card ids 0..N-1 so that the named positions hold the given values."""
    free: dict[int, list[int]] = {}
    for face, value in enumerate(skills.values):
        free.setdefault(value, []).append(face)
    size = skills.size
    faces: list[int | None] = [None] * size

    def place(position: int, value: int) -> None:
        if not free.get(value):
            raise ValueError(f"no card of value {value} left for position {position}")
        faces[position] = free[value].pop(0)

    for seat, values in (tableaux or {}).items():
        for slot, value in enumerate(values):
            place(4 * seat + slot, value)
    if discard is not None:
        place(4 * players, discard)
    for i, value in enumerate(draw):
        place(4 * players + 1 + i, value)
    rest = sorted(f for fs in free.values() for f in fs)
    it = iter(rest)
    return [f if f is not None else next(it) for f in faces]


class ScriptedTable:
    """A game plus an oracle that knows the arranged deck; `do` feeds and serves."""

    def __init__(
        self,
        players: int = 2,
        tableaux: dict[int, Sequence[int]] | None = None,
        discard: int | None = None,
        draw: Sequence[int] = (),
        first: int = 0,
        target: int = 100,
        skills: Skills = DEFAULT_SKILLS,
        ready: bool = True,
    ) -> None:
        self.game = Game(players, skills, target)
        self.oracle = Oracle(skills.size, Prng(1234))
        self.skills = skills
        self.events: list[Event] = []
        self.notes: list[Note] = []
        self.deal(tableaux, discard, draw, first)
        if ready:
            for seat in range(players):
                self.do(Ready(seat))

    def deal(
        self,
        tableaux: dict[int, Sequence[int]] | None = None,
        discard: int | None = None,
        draw: Sequence[int] = (),
        first: int = 0,
    ) -> list[Note]:
        self.oracle.deal(arrange(self.game.players, tableaux, discard, draw, self.skills))
        return self.do(RoundStarted(first))

    def do(self, event: Event, serve: bool = True) -> list[Note]:
        """Apply `event`; then (by default) answer every need. Returns all notes."""
        notes = self.game.apply(event)
        self.events.append(event)
        if serve:
            notes += self.serve()
        self.notes += notes
        return notes

    def serve(self) -> list[Note]:
        notes: list[Note] = []
        while (need := self.game.next_need) is not None:
            fact = self.oracle.answer(need)
            self.events.append(fact)
            notes += self.game.apply(fact)
        return notes

    def do_all(self, events: Iterable[Event]) -> list[Note]:
        out: list[Note] = []
        for event in events:
            out += self.do(event)
        return out

    def view(self, seat: int) -> SeatView:
        return self.game.view(seat)

    def card(self, seat: int, slot: int) -> int:
        card = self.game.zones().tableaux[seat][slot]
        assert card is not None, f"seat {seat} slot {slot} is empty"
        return card

    def value(self, card: int) -> int:
        """The true value of a card id (the oracle knows it)."""
        return self.skills.values[self.oracle.faces[card]]

    def values(self, seat: int) -> list[int | None]:
        """True values of a seat's slots (None for an empty slot)."""
        return [None if c is None else self.value(c) for c in self.game.zones().tableaux[seat]]

    def top(self) -> int:
        top = self.game.discard_top()
        assert top is not None
        return top

    def top_value(self) -> int:
        return self.value(self.top())
