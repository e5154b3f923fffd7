"""When a seat played by a program (a bot) should act, and what it has in flight.

Theory of operation: a bot is a pure decision function over its seat's view
(`engine.bots`). The driver asks it at the right moments and no more: for a turn or
ready decision when the engine waits on this seat and none of its intents is still
travelling through the order; for a snap once per card turned face up on the discard
pile, once more each turn it stays on top, and once more after the seat's own Bandit
call (a bot about to call holds its snap, as R5 puts the call before anything else in
the turn; the simulator asks on the same schedule). A live peer waits the bot's thinking
or reaction time before sending; if the table moved on meanwhile (a snap covered the
card it claims or takes, emptied the slot, ended the turn) the intent is withdrawn and
the bot decides again, as a person would (a take names the top card it was decided on,
as a snap does, so a take of a covered card is no longer legal, and one already sent is
refused by the table, R5). A turn or ready decision still in its thinking time when what
it was taken on changes (the discard pile's top, or the seat's own cards: `basis`) is
withdrawn at once, and the bot decides again and thinks anew, as a person would: a card
turned up while the bot thinks stays up for the whole thinking time before the bot
covers it. The in-memory test network sends at once. Both use this same module.

A seat's intents are delivered in the order it sends them (its chain, §7.2), so the
driver keeps its own moves from spoiling each other, as a player would: it asks for a
snap before a turn decision and decides the turn once its snap has landed (the turn is
then decided on the table the snap left), and it never claims a top card that a move
of its own already sent will cover or take (a discard, an exchange, a take, R5): that
claim would arrive after the card was covered and cost a penalty card (R6, "not the
fastest").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import Bot, Discard, Exchange, Intent, Prng, Snap, TakeDiscard, legal_intents, legal_snaps
from p2p.table.machine import Applied, Step, TableMachine

COVERS_TOP = (Discard, Exchange, TakeDiscard)
"""Turn moves that put another card on the discard pile or take its top (R5)."""

Basis = tuple[int | None, int | None, tuple[tuple[int, int, int | None], ...]]
"""What a turn decision is taken on: the discard pile's top card and its face, and the
seat's own cards (slot, card, value if the seat knows it)."""


@dataclass
class SeatDriver:
    """Plays seat `machine.me` with `bot`, using `rng` for the bot's own choices."""

    machine: TableMachine
    bot: Bot
    rng: Prng
    acts_in_flight: int = 0
    snaps_in_flight: int = 0
    _considered: tuple[int | None, int, int, int | None] | None = None  # (top, its face, turn, caller) offered
    _covering: list[Intent] = field(default_factory=list)  # sent, not landed, and they cover the top

    def observe(self, step: Step) -> None:
        """Learn from a step which of our intents reached the engine."""
        me = self.machine.me
        for item in (*step.applied, *step.refused):
            if item.seat != me:
                continue
            event = item.event if isinstance(item, Applied) else item.intent
            if isinstance(event, Intent):
                self._landed(event)

    def _landed(self, intent: Intent) -> None:
        """`intent` is no longer travelling (applied, refused or withdrawn)."""
        if isinstance(intent, Snap):
            self.snaps_in_flight = max(0, self.snaps_in_flight - 1)
        else:
            self.acts_in_flight = max(0, self.acts_in_flight - 1)
            if intent in self._covering:
                self._covering.remove(intent)

    def sending(self, intent: Intent) -> None:
        """`intent` of this seat goes out now (after any thinking or reaction time)."""
        if isinstance(intent, COVERS_TOP):
            self._covering.append(intent)

    def act(self) -> Intent | None:
        """A turn or ready intent to send now, if the engine is waiting for this seat."""
        machine = self.machine
        if self.acts_in_flight or self.snaps_in_flight or not machine.playing or machine.me is None or machine.engine.needs:
            return None
        view = machine.engine.view(machine.me)
        if not legal_intents(view):
            return None
        self.acts_in_flight += 1
        return self.bot.act(view, self.rng)

    def snap(self) -> Snap | None:
        """An immediate discard to try on a top card this seat has not yet considered."""
        machine = self.machine
        if self.snaps_in_flight or self._covering or not machine.playing or machine.me is None:
            return None
        view = machine.engine.view(machine.me)
        top, face = view.top, view.top_face
        if top is None or face is None or not view.can_snap:
            return None
        key = (top, face, view.turn, view.caller)
        if key == self._considered:
            return None
        self._considered = key
        claim = self.bot.snap(view, self.rng)
        if claim is not None:
            self.snaps_in_flight += 1
        return claim

    def still_wanted(self, intent: Intent) -> bool:
        """After the bot's thinking time: whether `intent` still fits the table. One that
        no longer does is withdrawn (the bot is asked again on what it sees now)."""
        machine = self.machine
        if machine.me is None or not machine.playing:
            return True
        view = machine.engine.view(machine.me)
        if isinstance(intent, Snap) and self._covering:
            fits = False  # a move of ours already sent covers the card it claims
        elif view.awaiting_table:
            return True  # the engine judges it once the table's work is done
        else:
            fits = intent in (legal_snaps(view) if isinstance(intent, Snap) else legal_intents(view))
        if not fits:
            self._landed(intent)
        return fits

    def basis(self) -> Basis | None:
        """What the bot's turn and ready decisions are taken on now (`Basis`); None
        while this seat does not play."""
        machine = self.machine
        if machine.me is None or not machine.playing:
            return None
        view = machine.engine.view(machine.me)
        return view.top, view.top_face, tuple(view.cards(machine.me))

    def withdraw(self, intent: Intent) -> None:
        """`intent`, not sent, is given up: the bot is asked again on what it sees now."""
        self._landed(intent)

    def snap_delay(self) -> float:
        """The bot's reaction time before sending a snap in a live game, in seconds."""
        return self.bot.snap_delay.sample(self.rng)
