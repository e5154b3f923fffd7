"""The table screen's state machine: keys in, intents out, and what to show.

Theory of operation
-------------------
`TableUi` is fed three things, all on trio's thread: a fresh `TableModel` whenever the
session changed (`update`), each key the player pressed together with the scene that
was on screen at that moment (`press`), and the passing of time (also `update`; it
says when it next needs one with `wakeup`). It returns the intents to submit and makes
the immutable `TableScene` the terminal draws. It does no I/O and reads no clock: time
is the session's clock, carried by the model, so tests run it under trio's MockClock.

Private information (R3, R4, R10) is decided here, once: which cards have their value
on screen right now (`TableScene.shown`). Your bottom cards are shown once per round,
until you press a key or 10 s pass, and then `Ready` is sent (R4.3); a card you look
at (peek, spy, look & swap) or that is turned face up for everyone in a tableau (a
wrong snap) is shown for a few seconds, and so is a drawn card you put in a slot with a
key pressed before its face was on screen (typed ahead: it is marked seen, so it is
shown once); nothing else, unless `memory_aid`. A screen that
opens on a table in play (a seat resumed after a crash, §11.3) shows none of the cards
its player saw before, nor the bottom cards again once confirmed: they were seen then.
While the terminal is too small for the table (`MIN_WIDTH` × `MIN_HEIGHT`, as the screen
was last drawn: `resize`), nothing is seen: keys other than Ctrl-C do nothing (but Enter
on the game's end, shown small, which it closes), and the times of what is shown for a
while stand still.

Keys are read through `keymap.press_for`, presses of `v` joined to the slot key that
follows them ("vq": a card five columns further right). An action of several keys is a
`Pending` value that the next keys complete; a finished action is checked against
`legal_intents` (turn actions) or the snap rules before it is sent, so a mistake gets an
explanation on the prompt line instead of a refusal from the table. A snap claims the
discard top that was on screen when Space was pressed (`Snap.top`), a take the one on
screen when c was pressed (`TakeDiscard.top`); if the top changes before the action is
complete it is cancelled, as a player at a real table stops reaching when the pile is
covered.
"""

from __future__ import annotations

import enum
import math
from itertools import zip_longest
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from engine import (
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Exchange,
    Intent,
    LookSwap,
    Peek,
    Phase,
    Power,
    Ready,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
)
from engine.narrate import listed
from engine.phases import PHASE_WORDS, SNAP_PHASES, TURN_PHASES
from cli.tui.canvas import Canvas
from cli.tui.keymap import (FURTHER_KEY, SLOT_ROWS, Command, Press, key_words, opponent_keys, press_for,
                            slot_label)
from cli.tui.log_view import log_scroll_limit
from cli.tui.model import TableModel
from p2p.table.messages import WIRE_NAME

FLASH_S: Final = 5.0
"""How long a look (or a card turned face up in a tableau) stays on screen."""

BOTTOM_PEEK_S: Final = 10.0
"""R4.3 (client decision): your bottom cards are shown until a key or this long."""

MESSAGE_S: Final = 4.0
"""How long a message stays on the prompt line."""

MIN_WIDTH: Final = 80
MIN_HEIGHT: Final = 24
"""The table's layout needs this much; a smaller terminal is asked to grow instead, and
while the table is not on screen its keys do nothing (the game goes on) and what is shown
for a while (the look at the bottom cards, a look at a card) waits for it (client decision)."""

STALE_KEYS_S: Final = 2.0
"""After the table cancels a half-typed snap or take, slot and opponent keys typed this
soon were meant for it: they are swallowed (client decision)."""

LOOKED_CARD_LEFT: Final = "A card you looked at was snapped away"
"""R3: why a look & swap can no longer exchange (the engine refuses it)."""

PendingAction = Literal["snap", "take", "spy", "swap", "look_swap"]

_TURN_COMMANDS: Final = (Command.SLOT, Command.SEAT, Command.DRAW, Command.PASS, Command.TAKE, Command.BANDIT)
"""Keys that act on the turn: typed while the table turns a card over, they wait for it."""

_MOVE_COMMANDS: Final = (*_TURN_COMMANDS, Command.SNAP)
"""Keys that play a move (a turn's, or a snap)."""

_OPENING_MOVES: Final = {Command.DRAW: "draw (x)", Command.TAKE: "take (c)", Command.BANDIT: "Bandit call (b)"}
"""Keys that begin a turn (R5): typed as the first turn, this player's, is about to begin
(their "ready" ended the last look), they are kept for it."""


@dataclass(frozen=True, slots=True)
class Pending:
    """An action being typed: what is chosen so far."""

    action: PendingAction
    top: int | None = None  # snap, take: the discard top on screen when Space (or c) was pressed
    seat: int | None = None  # the opponent chosen
    slot: int | None = None  # the opponent's slot chosen
    own: int | None = None  # your slot chosen


@dataclass(frozen=True, slots=True)
class LookSeen:
    """A look at the bottom cards begun before this program restarted (R4.3): its round,
    and how long it was shown then (its seat's journal tells, `cli.game`)."""

    round: int
    shown_s: float


@dataclass(frozen=True, slots=True)
class Message:
    text: str
    kind: Literal["info", "warning", "error"] = "info"
    until: float = 0.0
    while_away: bool = False  # it tells what waits for players away: it goes once none is


class Overlay(enum.Enum):
    """What covers the table, highest priority first (the quit question is asked on
    top of any of them)."""

    HELP = "help"
    RULES = "rules"  # the help's second screen (? again): how to win, a turn, the cards
    ROUND = "round"
    GAME = "game"


@dataclass(frozen=True, slots=True)
class TableScene:
    """Everything one redraw of the table needs (immutable; drawn on another thread)."""

    model: TableModel
    overlay: Overlay | None
    quitting: bool  # "leave the table?" is being asked
    quit_again: bool  # Ctrl-C was pressed again at that question (which it does not answer)
    pending: Pending | None
    message: Message | None
    shown: frozenset[int]  # card ids whose value is on screen now
    bottom_until: float | None  # R4.3 your bottom cards are being shown until then
    report: int | None  # index of the round report on screen
    report_slots: tuple[int, ...]  # each seat's slot count in that round, as this screen last saw it (R6)
    memory_aid: bool
    log_scroll: int
    keys: int  # keys handled so far (benchmarks wait for a key's redraw with it)

    @property
    def top_card(self) -> int | None:
        top = self.model.top
        return None if top is None else top.card

    def picture(self) -> tuple[object, ...]:
        """What the screen would show: equal pictures draw equal screens (the session's
        clock matters only through the countdown seconds)."""
        model = self.model
        now = model.now

        def seconds(deadline: float | None) -> int | None:
            return None if deadline is None else math.ceil(deadline - now)

        still = replace(self, model=replace(model, now=0.0))
        return (still, seconds(model.turn_deadline), seconds(model.peek_deadline), seconds(model.grace_deadline),
                seconds(self.bottom_until))

    def draw(self, width: int, height: int) -> Canvas:
        from cli.tui.screens import draw_table_scene  # the views import this module

        return draw_table_scene(self, width, height)


@dataclass(slots=True)
class _RoundState:
    number: int = -1
    known: set[int] = field(default_factory=set)  # card ids whose face I know
    flashes: dict[int, float] = field(default_factory=dict)  # card id -> shown until
    looking: set[int] = field(default_factory=set)  # my look targets waiting to be shown
    placed_unseen: int | None = None  # my drawn card, put in a slot by a key pressed before its face was on screen
    bottom: tuple[int, ...] = ()  # my dealt bottom cards
    bottom_s: float = BOTTOM_PEEK_S  # how long they are still to be shown (less after a restart)
    bottom_began: float | None = None  # when the look began, less the time it stood (session clock)
    bottom_until: float | None = None
    bottom_done: bool = False
    ready_sent: bool = False
    bottom_stood: bool = False  # the look was shown longer for a stop of this program
    phase: Phase | None = None  # the phase as last seen (the first turn may begin during the look)

    def stood(self, seconds: float) -> None:
        """This program did not run for `seconds` (stopped, or its machine slept): what it
        shows for a while was seen by nobody meanwhile, and is shown that much longer."""
        if self.bottom_until is not None and not self.bottom_done:
            self.bottom_until += seconds
            self.bottom_stood = True
            if self.bottom_began is not None:
                self.bottom_began += seconds
        self.flashes = {card: until + seconds for card, until in self.flashes.items()}


class TableUi:
    """The table screen of seat `me` (see the module docstring)."""

    def __init__(self, me: int, *, memory_aid: bool = False, seen: LookSeen | None = None) -> None:
        self.me = me
        self.memory_aid = memory_aid
        self._seen = seen  # the look of this seat's round before a restart, if it had begun
        self._stopped_s: float | None = None  # `TableModel.stopped_s` as of the last update
        self.pending: Pending | None = None
        self.message: Message | None = None
        self.help_open = False
        self.rules_open = False  # the help shows how to play (? turns its two screens)
        self.quit_open = False
        self.quit_again = False  # Ctrl-C pressed at the open leave question: the question says which keys answer
        self.game_open = False
        self.game_seen = False
        self.report_open: int | None = None
        self.reports_seen = -1  # reports present before this screen opened are not shown
        self._slot_counts: dict[int, tuple[int, ...]] = {}  # round -> each seat's slot count (R6: emptied ones too)
        self.log_scroll = 0
        self.screen_size = (MIN_WIDTH, MIN_HEIGHT)  # (width, height) the screen was last drawn to
        self._updated: float | None = None  # the session time of the last update
        self.keys = 0
        self.leaving = False  # the player confirmed leaving the table
        self.finished = False  # the player closed the game-end screen
        self._round = _RoundState()
        self._model: TableModel | None = None
        self._held: list[str] = []  # turn keys typed while a card was being turned over, or a move was on its way
        self._further = ""  # presses of FURTHER_KEY waiting for the slot key they lead to
        self._further_dropped = ""  # those the last key dropped, as it led to no slot
        self._moved = False  # a turn move went out since the model was last updated: the next key waits for it
        self._look_snap: Message | None = None  # said as Space ended the look: which turn the snap counts in
        # why a half-typed action was cancelled (or a snap refused), and how said; its keys land until then
        self._stale: tuple[str, float, Literal["warning", "error"]] | None = None

    # ------------------------------------------------------------------ time and table

    def update(self, model: TableModel) -> list[Intent]:
        """Take in the table as it is now; return intents that are due (Ready)."""
        opening = self._model is None  # the screen opens on a table in play (a resumed seat's)
        self._model = model
        self._moved = False  # (a move sent before this model is in it, or in `model.sending`)
        now = model.now
        view = model.view
        out: list[Intent] = []
        if view.round != self._round.number:
            self._round = _RoundState(number=view.round)
            self.pending = None
            self._held = []
            self._further = ""
        rs = self._round
        live = view.phase in SNAP_PHASES
        if self._stopped_s is not None and model.stopped_s > self._stopped_s:  # (R4.3: 10 s of being shown)
            rs.stood(model.stopped_s - self._stopped_s)
        self._stopped_s = model.stopped_s
        if not self.table_in_view and self._updated is not None and now > self._updated:
            rs.stood(now - self._updated)  # (nothing runs out unseen while the table is not on screen)
        self._updated = now

        # knowledge: cards newly known in a tableau are shown for a few seconds
        known_now: set[int] = set()
        in_tableau: set[int] = set()
        for tableau in view.tableaux:
            for card in tableau:
                if card is not None:
                    in_tableau.add(card.card)
                    if card.face is not None:
                        known_now.add(card.card)
        for card in (*view.discard, view.hand, view.in_transit):
            if card is not None and card.face is not None:
                known_now.add(card.card)
        if not rs.bottom:
            mine = view.tableaux[self.me]
            bottom = tuple(c.card for c in mine[2:4] if c is not None and c.face is not None)
            if len(bottom) == 2 and view.phase is Phase.PEEK:
                rs.bottom = bottom
                # (confirmed before this screen opened, or sent and not yet in the order: a restart is no second look)
                rs.bottom_done = rs.ready_sent = view.ready[self.me] or "ready" in model.sending
                if self._seen is not None and self._seen.round == view.round and not rs.bottom_done:
                    rs.bottom_s = BOTTOM_PEEK_S - self._seen.shown_s  # (what is left of it, R4.3)
                    if rs.bottom_s <= 0:
                        rs.bottom_done = True  # (its "ready" goes below)
                        self._say("Your look at your bottom cards is over: its 10 s ran out before this program "
                                  "restarted (R4).", "warning")
        if live and not opening:  # what was known before the screen opened was seen then
            for fresh in known_now - rs.known:
                if fresh in in_tableau and fresh not in rs.bottom:
                    rs.flashes[fresh] = now + FLASH_S
        for looked in list(rs.looking):
            if looked in known_now:
                rs.flashes[looked] = now + FLASH_S
                rs.looking.discard(looked)
        if rs.placed_unseen is not None and rs.placed_unseen in in_tableau:  # (shown where it went, as a look is)
            rs.flashes[rs.placed_unseen] = now + FLASH_S
            rs.placed_unseen = None
        elif rs.placed_unseen is not None and (view.hand is None or view.hand.card != rs.placed_unseen):
            rs.placed_unseen = None  # (not kept after all: the turn ran out, R5)
        rs.known = known_now
        self._count_slots(view.round, tuple(len(tableau) for tableau in view.tableaux))
        rs.flashes = {c: t for c, t in rs.flashes.items() if t > now and c in in_tableau}

        # reports and the end of the game
        if self.reports_seen < 0:
            self.reports_seen = len(model.reports)
        elif len(model.reports) > self.reports_seen:
            self.reports_seen = len(model.reports)
            self.report_open = len(model.reports) - 1
            self.pending = None
        if (model.ended or view.phase is Phase.OVER) and not self.game_seen:
            self.game_seen = self.game_open = True
            self.pending = None

        # R4.3: the bottom cards, once, when the table is on screen
        if rs.bottom and not rs.bottom_done:
            if rs.bottom_until is None:
                self._start_bottom_peek(now)
            elif now >= rs.bottom_until:
                out += self._end_bottom_peek(model)
        if view.phase is Phase.PEEK and rs.bottom_done and not rs.ready_sent and not view.ready[self.me]:
            out += self._ready(model)
        if rs.phase is Phase.PEEK and view.phase is not Phase.PEEK and rs.bottom_until is not None and not rs.bottom_done:
            self._say(look_goes_on(rs.bottom_stood))  # (R4: the look is the player's)
        rs.phase = view.phase

        if model.stopped_past_grace is not None:  # (§11.3: no move counts now; keys typed for one act on nothing later)
            self.pending = None
            self._held = []

        # a half-typed action that the table overtook
        pending = self.pending
        if pending is not None:
            if pending.action == "snap":
                if self._covered(pending, model) or not model.can_snap:
                    self._cancel_covered(pending, now)
            elif view.turn_seat != self.me:  # (a card being turned over does not cancel it)
                self.pending = None
            elif pending.action == "take" and self._covered(pending, model):
                self._cancel_covered(pending, now)
        if self.message is not None and (self.message.until <= now or (self.message.while_away and not model.waiting_for)):
            self.message = None
        if self.message is not None and self.message is self._look_snap:  # (the first turn began meanwhile)
            self.message = self._look_snap = replace(self.message, text=look_snap(model))
        if self._held and not model.busy and not model.turn_sent and not self._first_turn_coming(model):
            # type-ahead: the table is ready for them now
            held, self._held = self._held, []
            for key in held:
                out += self._press_table(key, model, None)
        return out

    def _count_slots(self, round_number: int, counts: tuple[int, ...]) -> None:
        """Remember how many slots each tableau has in this round (they only grow): the
        round's report lists the cards, not a last penalty slot a snap emptied."""
        before = self._slot_counts.get(round_number, ())
        self._slot_counts[round_number] = tuple(max(pair) for pair in zip_longest(counts, before, fillvalue=0))

    def wakeup(self) -> float | None:
        """When (session clock) the screen next changes by itself, if ever."""
        model = self._model
        if model is None:
            return None
        now = model.now
        times: list[float] = []
        if self.table_in_view:  # (else they wait for it)
            times += self._round.flashes.values()
            if self._round.bottom_until is not None and not self._round.bottom_done:
                times.append(self._round.bottom_until)
                left = self._round.bottom_until - now
                if left > 0:
                    times.append(now + (left - math.floor(left) or 1.0))  # the look's countdown's next second
        if self.message is not None:
            times.append(self.message.until)
        for deadline in (model.turn_deadline, model.peek_deadline, model.grace_deadline):
            if deadline is not None and deadline > now:
                left = deadline - now
                times.append(now + (left - math.floor(left) or 1.0))  # the countdown's next second
        return min(times) if times else None

    @property
    def look_began(self) -> tuple[int, float] | None:
        """(round, when) the look at the bottom cards began, on the session's clock, less
        the time it stood and counting what was shown before a restart (R4.3): the seat's
        journal keeps it, so that a restart shows only what is left of it."""
        rs = self._round
        return None if rs.bottom_began is None else (rs.number, rs.bottom_began)

    @property
    def table_shown(self) -> bool:
        """The screen is large enough to show the table (or what covers it)."""
        return table_fits(self.screen_size)

    @property
    def table_in_view(self) -> bool:
        """The table is on screen and nothing covers it (help, a round's or the game's end,
        the leave question): what it shows for a while runs only then (R4.3)."""
        return self.table_shown and self.overlay is None and not self.quit_open

    def resize(self, size: tuple[int, int]) -> None:
        """The screen is now drawn to `size` (width, height)."""
        self.screen_size = size
        if self._model is not None and self._round.bottom and not self._round.bottom_done:
            self._start_bottom_peek(self._model.now)

    @property
    def overlay(self) -> Overlay | None:
        if self.help_open:
            return Overlay.RULES if self.rules_open else Overlay.HELP
        if self.report_open is not None:
            return Overlay.ROUND
        if self.game_open:
            return Overlay.GAME
        return None

    def scene(self) -> TableScene:
        model = self._model
        assert model is not None, "update() first"
        rs = self._round
        shown = set(rs.flashes)
        bottom_until = None
        if rs.bottom_until is not None and not rs.bottom_done:
            shown.update(rs.bottom)
            bottom_until = rs.bottom_until
        elif rs.bottom and not rs.bottom_done and not self.table_shown and self.overlay is None:
            bottom_until = model.now + rs.bottom_s  # (it starts once the table is shown)
        view = model.view
        if view.phase is Phase.DECIDE and view.turn_seat == self.me and view.looked is not None:
            own_slot, owner, slot = view.looked  # the look & swap stays visible until decided
            for seat, s in ((self.me, own_slot), (owner, slot)):
                card = model.card_in(seat, s)
                if card is not None:
                    shown.add(card.card)
        return TableScene(
            model=model,
            overlay=self.overlay,
            quitting=self.quit_open,
            quit_again=self.quit_open and self.quit_again,
            pending=self.pending,
            message=self.message,
            shown=frozenset(shown),
            bottom_until=bottom_until,
            report=self.report_open,
            report_slots=() if self.report_open is None else self._slot_counts.get(
                model.reports[self.report_open].round, ()),
            memory_aid=self.memory_aid,
            log_scroll=self.log_scroll,
            keys=self.keys,
        )

    # ------------------------------------------------------------------ keys

    def press(self, key: str, shown: object = None, size: tuple[int, int] | None = None) -> list[Intent]:
        """One key; `shown` is the scene that was on screen when it was pressed (anything
        but a `TableScene` — the blank screen before the first draw, a lobby — shows no
        card: keys typed ahead as the client starts say nothing of what was seen), and
        `size` the (width, height) it was drawn to."""
        if size is not None:
            self.resize(size)
        if not isinstance(shown, TableScene):
            shown = None
        self.keys += 1
        model = self._model
        if model is None:
            return []
        overlay = self.overlay
        if self.quit_open:  # (a second Ctrl-C is no answer: a reflex double press must not end everyone's game)
            if key in ("enter", "y", "Y"):
                self.leaving = True
            elif key in ("esc", "n", "N", "space"):
                self.quit_open = False
            elif key == "ctrl-c":
                self.quit_again = True
            return []
        if key == "ctrl-c":
            if overlay is Overlay.GAME or model.ended:  # (the game is over: nothing to leave, the screen closes)
                self.finished = True
            else:
                self.quit_open, self.quit_again = True, False
            return []
        if not self.table_shown:  # (nobody sees what a key would act on: it does nothing)
            if key == "enter" and (overlay is Overlay.GAME or model.ended):  # (but the game's end, shown small, closes)
                self.finished = True
            return []
        if overlay in (Overlay.HELP, Overlay.RULES):  # (? turns the help's screen, any other key closes it)
            self.rules_open = key == "?" and not self.rules_open
            self.help_open = key == "?"
            return []
        if overlay is Overlay.ROUND:  # (closed by the key it names only: a game key mashed as it opens is lost)
            if key == "?":
                self.help_open = True
            elif key == "enter":
                self.report_open = None
                self.update(model)  # the table is visible again: the bottom peek may start
            return []
        if overlay is Overlay.GAME:
            if key == "enter":
                self.finished = True
            elif key == "?":
                self.help_open = True
            return []
        joined = self._joined(key)
        return [] if joined is None else self._press_table(joined, model, shown)

    def _joined(self, key: str) -> str | None:
        """`key` joined to the presses of `FURTHER_KEY` before it when together they name
        a slot further right ("vq", `keymap.press_for`), else `key` alone (they lead to
        nothing else); None for one more such press, kept for the next key."""
        joined = self._further + key
        press = press_for(joined)
        if press is not None and press.command is Command.FURTHER:
            self._further = joined
            self._say(further_words(press.number))
            return None
        self._further_dropped = "" if press is not None else self._further
        self._further = ""
        if self._further_dropped:  # (its message, still up, said what this key would name)
            self._say(further_dropped(self._further_dropped, key), "warning")
        return joined if press is not None else key

    def _press_table(self, key: str, model: TableModel, shown: TableScene | None) -> list[Intent]:
        """A key on the table: a key that starts or advances an action shows its prompt
        at once (a message said before it gives way). A key that ends the look at the
        bottom cards says so with what else it did (R4): Space began a snap, which counts
        as this player's one snap of that turn (R6); x, c or b, when the first turn is
        this player's and waits only for them, is kept for that turn (R5); a key that only
        ends it leaves the prompt to say who the first turn waits for."""
        pending = self.pending
        message = self.message
        looking = self._round.bottom_until is not None and not self._round.bottom_done
        out = self._table_key(key, model, shown)
        if self.pending is not None and self.pending != pending:
            self.message = None
        if looking and self._round.bottom_done:
            if self.pending is not None and self.pending.action == "snap":
                self._say(look_snap(model))
                self._look_snap = self.message
            elif self.message is not None and self.message is not message:  # (what the key did besides)
                self._say(f"{look_ended(model)} {self.message.text}", self.message.kind)
        return out

    def _table_key(self, key: str, model: TableModel, shown: TableScene | None) -> list[Intent]:
        out: list[Intent] = []
        rs = self._round
        press = press_for(key)
        if rs.bottom_until is not None and not rs.bottom_done and (press is None or press.command not in _BESIDE_THE_LOOK):
            out += self._end_bottom_peek(model)
            if key in ("enter", "esc", "z") or (key != "space" and press is None):
                return out  # the key that closes the look does nothing else
        if press is None:
            self._say("No action on that key — press ? for help.", "warning")
            return out
        command = press.command
        if self._stale is not None:
            why, until, kind = self._stale
            if self.pending is None and command in (Command.SLOT, Command.SEAT) and model.now < until:
                # typed for the snap or take the table just cancelled: they finish nothing, and
                # the player keeps seeing why rather than a hint about a key they did not mean
                self._say(why, kind)
                return out
            self._stale = None
        if model.stopped_past_grace is not None and command in _MOVE_COMMANDS:
            self._say(moves_wait(model.stopped_past_grace), "warning")
            return out
        if command in _OPENING_MOVES and self.pending is None and not self._held and self._first_turn_coming(model):
            # R4, R5: my "ready" is all the first turn, mine, waits for: the move is kept for it
            self._held.append(key)
            self._say(f"Your {_OPENING_MOVES[command]} is played as your first turn begins, in a moment (R5).")
            return out
        if (model.busy or model.turn_sent or self._moved or self._held) and command in _TURN_COMMANDS and (
                self.pending is None or self.pending.action != "snap"):
            # a card is being turned over, or my last move is not yet in the agreed order:
            # the key acts when it is done (sent now, it would be judged before it, R5)
            self._held.append(key)
            if model.turn_sent and model.waiting_for:
                self._say(f"{on_its_way(model.turn_sent, model)} The keys you type meanwhile wait for it (Esc drops "
                          "them).", while_away=True)
            return out
        if command is Command.HELP:
            self.help_open = True
        elif command is Command.CANCEL:  # (the prompt then says what the keys do now: the power's, the turn's)
            if self._held and self._first_turn_coming(model):  # (R5: the move kept for the first turn)
                kept = press_for(self._held[0])
                move = _OPENING_MOVES.get(kept.command, "move") if kept is not None else "move"
                self._say(f"Cancelled: your {move} is not played as your first turn begins.")
            elif self._held:  # (type-ahead: keys waiting for a card turned over, or a move on its way)
                self._say(typed_ahead_dropped(self._held))
            elif self.pending is not None:
                self.message = None
            elif self._further_dropped:  # (its message said what the next slot key would name)
                keys = " ".join(self._further_dropped)
                self._say(f"Cancelled: {keys}: the next slot key names a card of the first five columns again.")
            self._held = []
            self.pending = None
        elif command is Command.LOG_UP:  # (no further than the oldest line: PgDn comes straight back)
            self.log_scroll = log_scroll_limit(model.lines, *self.screen_size, self.log_scroll + 5)
        elif command is Command.LOG_DOWN:
            self.log_scroll = max(0, self.log_scroll - 5)
        elif command is Command.QUIT:
            self.quit_open, self.quit_again = True, False
        elif command is Command.CONFIRM:
            if self.pending is not None:
                self._confirm_half_typed(self.pending, model)
            elif model.view.phase is Phase.PEEK and not model.view.ready[self.me] and not rs.ready_sent:
                out += self._ready(model)
        elif command is Command.SNAP:
            out += self._snap_key(model, shown)
        elif self.pending is not None:
            out += self._complete(press, model, shown)
        else:
            out += self._act(press, model, shown)
        return out

    def _first_turn_coming(self, model: TableModel) -> bool:
        """The first turn is mine and waits only for my "ready", sent (R4, R5)."""
        view = model.view
        me = self.me
        return (view.phase is Phase.PEEK and view.first_player == me and self._round.ready_sent
                and all(ready for seat, ready in enumerate(view.ready) if seat != me))

    # --- the discard top a snap or a take names (R5, R6) ------------------------------------

    @staticmethod
    def _top_seen(model: TableModel, shown: TableScene | None) -> int | None:
        """The discard top on screen when the key was pressed (the table's now, when the
        key comes with no picture of this round)."""
        top = shown.top_card if shown is not None and shown.model.view.round == model.view.round else None
        if top is None:
            top = model.top.card if model.top else None
        return top

    @staticmethod
    def _covered(pending: Pending, model: TableModel) -> bool:
        """The discard top a half-typed snap or take names is no longer on top."""
        return pending.top is None or pending.top != (model.top.card if model.top else None)

    def _cancel_covered(self, pending: Pending, now: float) -> None:
        """The table covered the card a half-typed snap or take names: it is cancelled,
        saying so, and the slot keys typed for it next are swallowed (`STALE_KEYS_S`)."""
        self.pending = None
        why = covered_words(pending.action)
        self._say(why, "warning")
        self._stale = (why, now + STALE_KEYS_S, "warning")

    # --- snaps (R6) -------------------------------------------------------------------

    def _snap_key(self, model: TableModel, shown: TableScene | None) -> list[Intent]:
        if self.pending is not None and self.pending.action == "snap":
            self.pending = None
            self._say("Snap cancelled.")
            return []
        view = model.view
        if "snap" in model.sending:  # (not yet in the agreed order: `can_snap` does not know it yet)
            return self._refuse_snap(f"One snap per turn (R6). {on_its_way('snap', model)}", model)
        if not model.can_snap:
            if view.phase in SNAP_PHASES and view.snapped[self.me]:
                return self._refuse_snap(f"You already tried your one snap {snap_turn(model)} (R6; a failed one counts "
                                         "too): this Space turned no card.", model)
            if view.phase not in SNAP_PHASES:
                return self._refuse_snap(f"No snaps {PHASE_WORDS[view.phase]} (R6): this Space turned no card.", model)
            return self._refuse_snap("No snap yet: the discard pile's top card is still being turned up (R6).", model)
        self.pending = Pending("snap", top=self._top_seen(model, shown))
        return []

    def _refuse_snap(self, why: str, model: TableModel) -> list[Intent]:
        """Space refused: say why; the slot key typed for that snap next says it again
        (`STALE_KEYS_S`), not a hint about the turn it was not meant for."""
        self._say(why, "error")
        self._stale = (why, model.now + STALE_KEYS_S, "error")
        return []

    def _snap_complete(self, model: TableModel, pending: Pending) -> list[Intent]:
        self.pending = None
        if self.message is not None and self.message is self._look_snap:  # (the snap it offered is made: R6)
            self.message = self._look_snap = None
        if self._covered(pending, model) or not model.can_snap:
            self._say(covered_words("snap"), "warning")
            return []
        if pending.seat is None:
            assert pending.own is not None
            return [Snap(self.me, pending.top, self.me, pending.own)]
        assert pending.slot is not None and pending.own is not None
        return [Snap(self.me, pending.top, pending.seat, pending.slot, give=pending.own)]

    # --- completing a half-typed action ------------------------------------------------

    def _complete(self, press: Press, model: TableModel, shown: TableScene | None) -> list[Intent]:
        pending = self.pending
        assert pending is not None
        command = press.command
        if command is Command.SEAT:
            if pending.action == "take":
                self._say("Take the discard into one of your own slots: press its key.", "warning")
                return []
            seat = model.opponent(press.number)
            if seat is None:
                self._say(f"There is no opponent {press.number} at this table.", "error")
                return []
            if not self._has_cards(model, seat):
                self._say(f"{model.said_name(seat)} has no cards.", "error")
                return []
            self.pending = replace(pending, seat=seat, slot=None)
            return []
        if command is not Command.SLOT:
            if command in (Command.DRAW, Command.PASS, Command.TAKE, Command.BANDIT):
                if pending.action == "snap":  # (x sits by s, z by a: a slip must not draw or discard)
                    self._say(f"Finish the snap first: {still_needed(pending, model)}. Esc cancels it.", "warning")
                    return []
                self.pending = None
                return self._act(press, model, shown)
            return []
        slot = press.number
        if pending.action == "take":
            if self._covered(pending, model):
                self.pending = None
                self._say(covered_words("take"), "warning")
                return []
            if model.card_in(self.me, slot) is None:  # (the take stays chosen, as a drawn card does: R5 C)
                self._say(no_card(model, self.me, slot), "error")
                return []
            self.pending = None
            assert pending.top is not None
            return self._turn(TakeDiscard(self.me, pending.top, slot), model)
        if pending.seat is not None and pending.slot is None:
            if model.card_in(pending.seat, slot) is None:
                self._say(no_card(model, pending.seat, slot), "error")
                return []
            pending = replace(pending, slot=slot)
        elif pending.own is None and (pending.seat is None or pending.slot is not None):
            if pending.action == "spy":
                self._say("Spy on whom? Press the opponent's number first.", "warning")
                return []
            if model.card_in(self.me, slot) is None:
                self._say(no_card(model, self.me, slot), "error")
                return []
            pending = replace(pending, own=slot)
        else:  # your slot was chosen already: choose again
            if model.card_in(self.me, slot) is None:
                self._say(no_card(model, self.me, slot), "error")
                return []
            pending = replace(pending, own=slot)
        self.pending = pending
        if pending.action == "snap":
            if pending.seat is None or pending.own is not None:
                return self._snap_complete(model, pending)
            return []
        if pending.action == "spy" and pending.seat is not None and pending.slot is not None:
            self.pending = None
            return self._turn(Spy(self.me, pending.seat, pending.slot), model)
        if pending.seat is not None and pending.slot is not None and pending.own is not None:
            self.pending = None
            kind = Swap if pending.action == "swap" else LookSwap
            return self._turn(kind(self.me, pending.own, pending.seat, pending.slot), model)
        return []

    def _confirm_half_typed(self, pending: Pending, model: TableModel) -> None:
        """Enter finishes no action: a snap or take with nothing chosen yet is cancelled,
        saying so; one partly typed stays, and the player reads what finishes it."""
        if pending.seat is None and pending.own is None and pending.action in ("snap", "take"):
            self.pending = None
            what = "no card chosen, none turned" if pending.action == "snap" else "no slot chosen, nothing taken"
            self._say(f"{pending.action.capitalize()} cancelled: {what}.")
            return
        words = "look & swap" if pending.action == "look_swap" else pending.action  # (the others' names are their words)
        self._say(f"Enter does not finish the {words}: press {still_needed(pending, model)}.", "warning")

    @staticmethod
    def _has_cards(model: TableModel, seat: int) -> bool:
        return any(c is not None for c in model.slots(seat))

    # --- single keys ------------------------------------------------------------------

    def _act(self, press: Press, model: TableModel, shown: TableScene | None = None) -> list[Intent]:
        view = model.view
        me = self.me
        command = press.command
        mine = model.my_turn
        phase = view.phase
        if command is Command.DRAW:
            if mine and phase is Phase.DECIDE:
                return self._turn(DecideSwap(me, True), model)
            return self._turn(Draw(me), model)
        if command is Command.PASS:
            if mine and phase is Phase.DRAWN:
                return self._turn(Discard(me), model)
            if mine and phase is Phase.DECIDE:
                return self._turn(DecideSwap(me, False), model)
            return self._turn(SkipPower(me), model)
        if command is Command.BANDIT:
            return self._turn(CallBandit(me), model)
        if command is Command.TAKE:
            top = self._top_seen(model, shown)
            if not mine or phase is not Phase.START or top is None:
                return self._turn(TakeDiscard(me, top or 0, 0), model, explain_only=True)
            self.pending = Pending("take", top=top)
            return []
        if command is Command.SLOT:
            slot = press.number
            if mine and phase is Phase.DRAWN:
                out = self._turn(Exchange(me, slot), model)
                if out and not self._hand_was_shown(model, shown):
                    self._round.placed_unseen = view.hand.card if view.hand is not None else None
                return out
            if mine and phase is Phase.POWER:
                if view.power is Power.PEEK:
                    return self._turn(Peek(me, slot), model)
                if view.power is Power.SPY:
                    self._say(f"Spy on whom? Press the opponent's number ({opponent_keys(model.players)}) first, "
                              "then the slot.", "warning")
                    return []
                if view.power in (Power.SWAP, Power.LOOK_SWAP):
                    if model.card_in(me, slot) is None:
                        self._say(no_card(model, self.me, slot), "error")
                        return []
                    self.pending = Pending(self._power_action(view.power), own=slot)
                    return []
            if mine and phase is Phase.START:
                self._say("First x (draw) or c (take the discard); to snap, Space first.", "warning")
                return []
            self._say("To snap a card press Space first, then its slot.", "warning")
            return []
        if command is Command.SEAT:
            seat = model.opponent(press.number)
            if seat is None:
                self._say(f"There is no opponent {press.number} at this table.", "error")
                return []
            if mine and phase is Phase.POWER and view.power in (Power.SPY, Power.SWAP, Power.LOOK_SWAP):
                self.pending = Pending(self._power_action(view.power), seat=seat)
                return []
            self._say(f"To snap {model.whose(seat)} card: Space, {press.number}, their slot, your slot to give.",
                      "warning")
            return []
        return []

    @staticmethod
    def _hand_was_shown(model: TableModel, shown: TableScene | None) -> bool:
        """The face of my drawn card was on screen when the key was pressed (a key typed
        ahead, held while it was turned over, comes with no picture: it was not)."""
        hand, seen = model.view.hand, None if shown is None else shown.model.view.hand
        return hand is not None and seen is not None and seen.card == hand.card and seen.face is not None

    @staticmethod
    def _power_action(power: Power | None) -> PendingAction:
        return {Power.SPY: "spy", Power.SWAP: "swap", Power.LOOK_SWAP: "look_swap"}.get(power, "swap")  # type: ignore[return-value, arg-type]

    def _turn(self, intent: Intent, model: TableModel, explain_only: bool = False) -> list[Intent]:
        """Send a turn intent if the engine would take it, else say why not."""
        if not explain_only and intent in model.legal:
            if isinstance(intent, (Peek, Spy, LookSwap)):
                self._looking(intent, model)
            self.message = None
            if model.waiting_for:
                self._say(on_its_way(WIRE_NAME[type(intent)], model), while_away=True)
            self._moved = True
            return [intent]
        self._say(explain(intent, model), "error")
        return []

    def _looking(self, intent: Peek | Spy | LookSwap, model: TableModel) -> None:
        """Remember what I look at: shown when its face arrives (or at once if known)."""
        if isinstance(intent, Peek):
            targets = [(self.me, intent.slot)]
        elif isinstance(intent, Spy):
            targets = [(intent.owner, intent.slot)]
        else:
            targets = [(self.me, intent.own_slot), (intent.owner, intent.slot)]
        for seat, slot in targets:
            card = model.card_in(seat, slot)
            if card is not None:
                self._round.looking.add(card.card)

    # --- the bottom cards (R4.3) -------------------------------------------------------------

    def _start_bottom_peek(self, now: float) -> None:
        """R4.3: the look at the bottom cards starts once the table is on screen."""
        rs = self._round
        if rs.bottom_until is None and self.table_in_view:
            rs.bottom_until = now + rs.bottom_s
            rs.bottom_began = rs.bottom_until - BOTTOM_PEEK_S

    def _end_bottom_peek(self, model: TableModel) -> list[Intent]:
        self._round.bottom_done = True
        if model.view.phase is Phase.PEEK and not model.view.ready[self.me]:
            return self._ready(model)
        return []

    def _ready(self, model: TableModel) -> list[Intent]:
        self._round.ready_sent = True
        self._round.bottom_done = True
        return [Ready(self.me)]

    def note(self, text: str) -> None:
        """Something the program logged while the screen was up."""
        self._say(text, "warning")

    def _say(self, text: str, kind: Literal["info", "warning", "error"] = "info", *, while_away: bool = False) -> None:
        now = self._model.now if self._model is not None else 0.0
        self.message = Message(text, kind, now + MESSAGE_S, while_away)


def table_fits(size: tuple[int, int]) -> bool:
    """A screen of `size` (width, height) has room for the table."""
    width, height = size
    return width >= MIN_WIDTH and height >= MIN_HEIGHT


SLOW_MOVE: Final = 1.0  # seconds a move of mine waits for the others' word before the prompt names who
_MOVES: Final = {"bandit": "Bandit call", "look-swap": "look & swap", "decide": "choice", "skip-power": "skip",
                 "take": "take from the discard pile", "ready": "\"ready\""}


def on_its_way(kind: str, model: TableModel) -> str:
    """What becomes of a move of mine (wire type `kind`) sent while the table waits for
    someone: it is sent, and counts once they are back (nothing is ordered meanwhile), or,
    if it has waited `SLOW_MOVE` for players whose links are up, once they answer."""
    move = _MOVES.get(kind, kind)
    if model.waiting_for:
        who = listed([model.said_name(seat) for seat in model.waiting_for])
        if model.reconnecting_after is not None:  # (nobody else is away: this seat re-makes its links)
            return f"Your {move} is sent: it counts once you reach {who} again."
        return f"Your {move} is sent: it counts once {who} {'is' if len(model.waiting_for) == 1 else 'are'} back."
    if model.held_by and model.sending_for >= SLOW_MOVE:
        who = listed([model.said_name(seat) for seat in model.held_by])
        return f"Your {move} is sent and waits for {who} to answer ({model.sending_for:.0f} s); it counts once they do."
    return f"Your {move} is on its way."


def further_words(presses: int) -> str:
    """What `presses` presses of `FURTHER_KEY` did: the next slot key names a card that
    many groups of five columns further right (R10: every slot has left-hand keys)."""
    keys = " ".join([FURTHER_KEY] * presses)
    return f"{keys}: the next slot key names a card {presses * len(SLOT_ROWS[0])} columns further right."


def further_dropped(presses: str, key: str) -> str:
    """What a key that is not a slot key did to the `presses` of `FURTHER_KEY` before
    it: they name nothing, and the key does what it always does."""
    are = "is" if len(presses) == 1 else "are"
    return f"{key_words(key)} is not a slot key: the {' '.join(presses)} before it {are} dropped."


def typed_ahead_dropped(keys: list[str]) -> str:
    """What Esc did to `keys`, typed ahead while a card was turned over or a move of mine
    was on its way: none of them is played."""
    are = "is" if len(keys) == 1 else "are"
    return f"Cancelled: {listed([key.lower() for key in keys])}, typed ahead, {are} not played."


def still_needed(pending: Pending, model: TableModel) -> str:
    """The keys that finish a half-typed action, in words: "a slot or an opponent's
    number", "the slot of Bo's card", "your slot to give Bo", …"""
    if pending.action == "take":
        return "a slot of yours"
    if pending.seat is None:
        return "a slot or an opponent's number" if pending.action == "snap" else "an opponent's number and slot"
    theirs = model.said_name(pending.seat)
    if pending.slot is None:
        return f"the slot of {model.whose(pending.seat)} card"
    return f"your slot to give {theirs}" if pending.action == "snap" else "your slot"


def covered_words(action: PendingAction) -> str:
    """Why a half-typed snap or take was cancelled: the card it names was covered."""
    if action == "snap":
        return ("The discard pile changed: snap cancelled, not sent — no card turned, no penalty card drawn (R6: sent "
                "now, it would not be the fastest and would cost one).")
    return f"The discard pile changed: {action} cancelled, nothing taken (R5 C: c takes the card on top now)."


def snap_turn(model: TableModel) -> str:
    """Which turn a snap made now counts for (R6: one per player per turn, the time
    before the first turn being one): "before the first turn", "in your turn", "in Bo's turn"."""
    view = model.view
    if view.phase is Phase.PEEK:
        return "before the first turn"
    if view.turn_seat == model.me:
        return "in your turn"
    return "in this turn" if view.turn_seat is None else f"in {model.whose(view.turn_seat)} turn"


# Keys that neither play nor answer: the help and the log's scrolling leave the look at the
# bottom cards open (a player who asks what to do does not lose the look, R4); its time
# stands while the help covers the table (`table_in_view`).
_BESIDE_THE_LOOK = frozenset({Command.HELP, Command.LOG_UP, Command.LOG_DOWN})


def look_snap(model: TableModel) -> str:
    """What Space did when it ended the look at the bottom cards (R4, R6)."""
    return f"Look ended (R4). This is your one snap {snap_turn(model)} (R6)."


def look_goes_on(stood: bool) -> str:
    """Why the look at the bottom cards goes on as the first turn begins (the table's
    ready barrier ran out, R4.3), after a stop of this program (`stood`) or not: the line
    under it gives its time."""
    if stood:
        return f"The first turn began; your look goes on (its {BOTTOM_PEEK_S:.0f} s do not count the stop, R4)."
    return "The first turn began; your look at your bottom cards goes on (R4)."


def reaching_after_stop(stopped: int) -> str:
    """The prompt of a seat back from a stop of `stopped` seconds, longer than the grace
    period (how long the table waits for a player away), while it reaches the others again
    (§11.3): it offers no move (the help bar says none plays, `MOVES_WAIT_BAR`)."""
    return f"Stopped {stopped} s, longer than the table waits for you: reaching the others."


def moves_wait(stopped: int) -> str:
    """Why a move key does nothing after a stop of `stopped` seconds past the grace period
    (the key is not kept for later: it plays nothing)."""
    return (f"No move plays yet: your program was stopped for {stopped} s, longer than the table waits for you, and "
            "is reaching the others again (they have likely ended the game).")


def look_ended(model: TableModel) -> str:
    """What ending the look at the bottom cards did (R4)."""
    if model.view.phase is Phase.PEEK:
        return "Your look ended: you are ready for the first turn (R4)."
    return "Your look at your bottom cards ended (R4)."


def no_card(model: TableModel, seat: int, slot: int) -> str:
    """Why `seat` has no card in `slot`: a slot a snap emptied, or one its tableau does
    not have (a penalty slot, R6, comes with a penalty card)."""
    label = slot_label(slot)
    if slot < len(model.slots(seat)):
        return f"Your slot {label} is empty." if seat == model.me else f"{model.said_name(seat)} has no card in slot {label}."
    who = "You have" if seat == model.me else f"{model.said_name(seat)} has"
    return f"{who} no penalty slot {label}." if slot >= 4 else f"{who} no slot {label}."


def explain(intent: Intent, model: TableModel) -> str:
    """Why the engine would refuse `intent` now, in a player's words."""
    view = model.view
    phase = view.phase
    if view.needs and phase in TURN_PHASES:
        return "One moment: the table is turning a card over."
    if phase is Phase.PEEK:
        looking = [model.said_name(seat) for seat in range(model.players) if seat != model.me and not view.ready[seat]]
        if not looking:
            first = view.first_player
            if first is not None and first != model.me:
                return f"{model.said_name(first)} plays first (R4): nothing was played."
            return "The first turn starts once your \"ready\" counts (R4): nothing was played before it."
        verb = "is" if len(looking) == 1 else "are"
        return f"The first turn has not started: {listed(looking)} {verb} still looking at their bottom cards (R4)."
    if phase not in TURN_PHASES:
        return "No turn is being played right now."
    if view.turn_seat != model.me:
        return f"It is {model.whose(view.turn_seat or 0)} turn (R5): nothing was played."
    if isinstance(intent, CallBandit):
        if view.caller is not None:
            who = "you" if view.caller == model.me else model.said_name(view.caller)
            return f"Bandit was already announced this round (by {who}) — R5."
        if view.snapped[model.me]:
            return "Bandit comes before anything else in your turn, and you have snapped in it (R5)."
        return "Bandit is announced at the very start of your turn, before drawing (R5)."
    if isinstance(intent, (Exchange, TakeDiscard, Peek)):
        if model.card_in(model.me, getattr(intent, "slot", 0)) is None and phase is not Phase.DECIDE:
            return no_card(model, model.me, getattr(intent, "slot", 0))
    if isinstance(intent, DecideSwap) and intent.swap and phase is Phase.DECIDE and not view.looked_in_place:
        return f"{LOOKED_CARD_LEFT}: no exchange (R3); z ends your turn."
    bandit = "" if view.snapped[model.me] or view.caller is not None else ", b announces Bandit"
    hints = {
        Phase.START: f"Start your turn: x draws, c + slot takes the discard{bandit}.",
        Phase.DRAWN: "You hold the drawn card: z discards it, a slot key puts it in your tableau.",
        Phase.POWER: "Use the power or skip it with z.",
        Phase.DECIDE: "Decide the look & swap: x exchanges the two cards, z keeps them.",
    }
    return hints[phase]
