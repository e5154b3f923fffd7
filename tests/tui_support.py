"""An in-process table for developing and testing the terminal client.

`LocalSession` implements `p2p.session.TableSession` over an engine `Game`, the
simulator's all-knowing `Oracle` (standing in for the joint encrypted deck) and bots
for the other seats, driven by trio: bots think and react with delays on trio's clock,
the turn timer and the ready barrier run on it too, so tests drive whole rounds under
`trio.testing.MockClock`. Every round is "audited" by replaying the game's recorded
events into a fresh engine and comparing state digests. The product plays against the
live peer; this is a test fixture.

`ScreenHarness` runs the real prompt_toolkit application with a pipe for input and a
fixed-size VT100 output, and exposes what prompt_toolkit actually rendered.
"""

from __future__ import annotations

import math
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import trio
import trio.testing
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from engine import (
    DEFAULT_SKILLS,
    EngineError,
    Event,
    Game,
    Intent,
    Note,
    Oracle,
    PeekBarrierExpired,
    Phase,
    Prng,
    RoundEnded,
    RoundStarted,
    SeatView,
    Skills,
    Snap,
    TurnStarted,
    TurnTimedOut,
    legal_intents,
    make_bot,
)
from engine.bots import Bot
from engine.narrate import Narrator
from p2p.session import CHOSE_TO_LEAVE, Line, RoundReport, SeatInfo, SessionRecord
from cli.tui.canvas import Canvas
from cli.tui.table_ui import TableScene
from cli.tui.terminal import Screen, Terminal, open_terminal

NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")


@dataclass
class Script:
    """A reproducible table: the faces dealt each round (card id -> face) and the first
    player of each round. Rounds beyond the script are shuffled by the seeded oracle."""

    deals: list[list[int]] = field(default_factory=list)
    first: list[int] = field(default_factory=list)


class LocalSession(SessionRecord):
    """A `TableSession` for seat `me` at an in-process table of bots (see the module)."""

    def __init__(
        self,
        players: int = 4,
        me: int = 0,
        *,
        seed: int = 1,
        target: int = 100,
        skills: Skills = DEFAULT_SKILLS,
        bot: str = "normal",
        script: Script | None = None,
        think: tuple[float, float] = (0.6, 1.2),
        turn_timeout: float = 60.0,
        peek_barrier: float = 30.0,
        between_rounds: float = 8.0,
        audit_delay: float = 0.4,
        log_path: str = "",
        bots_play: bool = True,
    ) -> None:
        self._me = me
        self._seats = tuple(SeatInfo(s, NAMES[s], f"ID{s:02d}-TEST", bot=s != me) for s in range(players))
        self.game = Game(players, skills, target)
        self.rng = Prng.derive(seed, 7)
        self.oracle = Oracle(skills.size, Prng.derive(seed, 8))
        self.script = script or Script()
        self.bots: dict[int, Bot] = {s: make_bot(bot) for s in range(players) if s != me} if bots_play else {}
        self.think = think
        self.turn_timeout = turn_timeout
        self.peek_barrier = peek_barrier
        self.between_rounds = between_rounds
        self.audit_delay = audit_delay
        self.narrator = Narrator([s.name for s in self._seats], me, turns=True)  # (as a live table's)
        self.record: list[Event] = []
        self.submitted: list[Intent] = []
        SessionRecord.__init__(self, log_path=log_path)
        self._changed = trio.Event()
        self._inbox_send, self._inbox = trio.open_memory_channel[Intent](math.inf)
        self._left = trio.Event()
        self.left_reason: str | None = None  # (`leave`'s reason, once called)
        self.away_reason: str | None = None  # (`go_away`'s, once called)
        self._timer_scope: trio.CancelScope | None = None
        self._nursery: trio.Nursery | None = None
        self._offered_top: tuple[int, int | None] = (0, None)  # (round, top) the bots were asked about
        self.round_started = trio.Event()
        self.rejoining = False  # (as `TablePeer.rejoining`: a seat resumed, or back from a stop, re-making its links)

    # ------------------------------------------------------------------ TableSession

    @property
    def me(self) -> int:
        return self._me

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return self._seats

    def view(self) -> SeatView:
        return self.game.view(self._me)

    def submit(self, intent: Intent) -> bool:
        self.submitted.append(intent)
        self._inbox_send.send_nowait(intent)
        return True

    def now(self) -> float:
        return trio.current_time()

    async def changed(self) -> None:
        await self._changed.wait()

    async def leave(self, reason: str = CHOSE_TO_LEAVE) -> bool:
        self.left_reason = reason
        if self._left.is_set():
            return False
        self._progress.ended = True
        self._progress.ended_why = "you left the table"
        self._left.set()
        self._touch()
        return True

    async def go_away(self, reason: str) -> None:
        self.away_reason = reason
        if not self._left.is_set():
            self._progress.ended = True
            self._progress.ended_why = "you went away from the table, meaning to come back"
            self._left.set()
            self._touch()

    # ------------------------------------------------------------------ running the table

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Play the game until it ends or the local seat leaves."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._serve_inbox)
            self._start_round()
            task_status.started()
            await self._left.wait()
            nursery.cancel_scope.cancel()

    def _touch(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _feed(self, event: Event) -> list[Note]:
        game = self.game
        notes = game.apply(event)
        self.record.append(event)
        told = self.narrator.narrate(game, event, notes)
        while (need := game.next_need) is not None:
            fact = self.oracle.answer(need)
            more = game.apply(fact)
            self.record.append(fact)
            told += self.narrator.narrate(game, fact, more)
            notes += more
        self._lines += [Line(t.text, t.kind, t.seat) for t in told]  # type: ignore[arg-type]
        for note in notes:
            self._on_note(note)
        self._touch()
        self._bots_consider(event)
        return notes

    def _on_note(self, note: Note) -> None:
        if isinstance(note, TurnStarted):
            self._deadlines.peek = None
            self._deadlines.turn = trio.current_time() + self.turn_timeout
            self._arm_timer(self._deadlines.turn, TurnTimedOut(note.turn), note.turn)
        elif isinstance(note, RoundEnded):
            self._deadlines.turn = None
            self._deadlines.peek = None
            self._cancel_timer()
            zones = self.game.zones()
            faces = self.oracle.faces
            tableaus = tuple(tuple((slot, faces[c]) for slot, c in enumerate(tab) if c is not None)
                             for tab in zones.tableaux)
            index = len(self._reports)
            self._reports.append(RoundReport(note.round, note.scores, note.totals, note.caller, note.exhausted,
                                             tableaus))
            assert self._nursery is not None
            self._nursery.start_soon(self._audit_round, index)
            if self.game.phase is Phase.BETWEEN:
                self._nursery.start_soon(self._next_round)

    async def _audit_round(self, index: int) -> None:
        await trio.sleep(self.audit_delay)
        replay = Game(self.game.players, self.game.skills, self.game.target)
        for event in self.record:
            replay.apply(event)
        ok = replay.state_hash() == self.game.state_hash()
        words = f"replayed {len(self.record)} events into a fresh engine: " + ("same state" if ok else "DIFFERENT state")
        report = self._reports[index]
        self._reports[index] = RoundReport(report.round, report.scores, report.totals, report.caller,
                                           report.exhausted, report.tableaus, ok, words)
        if self.game.over and ok:  # as at a live table, the game ends once its last round stands
            self._progress.ended = True
            self._progress.ended_why = "a total reached the target"
            self._progress.finished = True
        self._touch()

    async def _next_round(self) -> None:
        await trio.sleep(self.between_rounds)
        self._start_round()

    def _start_round(self) -> None:
        number = self.game.round  # rounds played so far
        script = self.script
        self.oracle.deal(script.deals[number] if number < len(script.deals) else None)
        first = script.first[number] if number < len(script.first) else self.rng.below(self.game.players)
        self._deadlines.peek = trio.current_time() + self.peek_barrier
        self._feed(RoundStarted(first))
        self._arm_timer(self._deadlines.peek, PeekBarrierExpired(), None)
        self.round_started.set()
        self.round_started = trio.Event()

    # --- timers -------------------------------------------------------------------------

    def _cancel_timer(self) -> None:
        if self._timer_scope is not None:
            self._timer_scope.cancel()
            self._timer_scope = None

    def _arm_timer(self, deadline: float, fact: Event, turn: int | None) -> None:
        self._cancel_timer()
        scope = self._timer_scope = trio.CancelScope(deadline=math.inf)
        assert self._nursery is not None

        async def fire() -> None:
            with scope:
                await trio.sleep_until(deadline)
                game = self.game
                if isinstance(fact, TurnTimedOut) and (game.turn != turn or game.phase not in (
                        Phase.START, Phase.DRAWN, Phase.POWER, Phase.DECIDE)):
                    return
                if isinstance(fact, PeekBarrierExpired) and game.phase is not Phase.PEEK:
                    return
                self._timer_scope = None
                self._feed(fact)

        self._nursery.start_soon(fire)

    # --- intents --------------------------------------------------------------------------

    async def _serve_inbox(self) -> None:
        async for intent in self._inbox:
            try:
                self._feed(intent)
            except EngineError as error:
                if intent.seat == self._me:
                    told = self.narrator.refusal(intent, error.rule, error.words)
                    self._lines.append(Line(told.text, told.kind, told.seat))
                    self._touch()

    # --- bots -------------------------------------------------------------------------------

    def _bots_consider(self, event: Event) -> None:
        game = self.game
        nursery = self._nursery
        if nursery is None or game.phase in (Phase.BETWEEN, Phase.OVER, Phase.REVEAL):
            return
        for seat, bot in self.bots.items():
            view = game.view(seat)
            if legal_intents(view):
                nursery.start_soon(self._bot_act, seat, bot, game.generation)
        top = game.discard_top()
        if (game.round, top) == self._offered_top:
            return
        self._offered_top = (game.round, top)
        if top is not None and game.phase in (Phase.PEEK, Phase.START, Phase.DRAWN, Phase.POWER, Phase.DECIDE):
            for seat, bot in self.bots.items():
                view = game.view(seat)
                claim = bot.snap(view, self.rng)
                if claim is not None:
                    nursery.start_soon(self._bot_snap, claim, bot.snap_delay.sample(self.rng))

    async def _bot_act(self, seat: int, bot: Bot, generation: int) -> None:
        low, high = self.think
        await trio.sleep(low + (high - low) * self.rng.random())
        game = self.game
        if game.generation != generation:
            return  # something happened meanwhile; the bot was asked again then
        view = game.view(seat)
        if legal_intents(view):
            self.submit(bot.act(view, self.rng))

    async def _bot_snap(self, claim: Snap, delay: float) -> None:
        await trio.sleep(delay)
        self.submit(claim)


# ---------------------------------------------------------------------------- the real screen


class OverlapCanvas(Canvas):
    """A `Canvas` that keeps every cell drawn twice (`overlaps`: the cell, and the texts
    that drew it): what a screen draws over something else. A `fill` is background,
    not a drawing."""

    __slots__ = ("_drawn", "overlaps")

    def __init__(self, width: int, height: int) -> None:
        super().__init__(width, height)
        self._drawn: dict[tuple[int, int], str] = {}
        self.overlaps: list[tuple[tuple[int, int], str, str]] = []

    def write(self, x: int, y: int, text: str, style: str = "") -> int:
        end = super().write(x, y, text, style)
        if 0 <= y < self.height:
            for cell in range(max(0, x), min(self.width, end)):
                if (cell, y) in self._drawn:
                    self.overlaps.append(((cell, y), self._drawn[(cell, y)], text))
                self._drawn[(cell, y)] = text
        return end

    def fill(self, x: int, y: int, width: int, style: str, char: str = " ") -> None:
        Canvas.write(self, x, y, char * max(0, width), style)


class _Sink:
    """What a terminal writes to (the bytes are not needed: the renderer's screen is)."""

    encoding = "utf-8"

    def __init__(self) -> None:
        self.written = 0
        self.erases = 0  # full-screen erases after the first frame (flicker)

    def write(self, data: str) -> None:
        if self.written and "\x1b[2J" in data:
            self.erases += 1
        self.written += len(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class ScreenHarness:
    """The real prompt_toolkit application on a pipe, at a fixed size, for tests."""

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.size = Size(rows=rows, columns=columns)
        self.sink = _Sink()
        self.output = Vt100_Output(self.sink, lambda: self.size, term="xterm-256color",  # type: ignore[arg-type]
                                   enable_cpr=False)
        self.text = ""
        self.screen: Screen | None = None
        self.renders = 0
        self._rendered = threading.Condition()
        self.terminal: Terminal | None = None

    def _after_render(self, screen: Screen) -> None:  # the terminal's thread
        app = self.terminal._app if self.terminal is not None else None
        drawn = app.renderer.last_rendered_screen if app is not None else None
        if drawn is None:
            return
        rows = []
        for y in range(self.size.rows):
            line = drawn.data_buffer[y]
            rows.append("".join(line[x].char for x in range(self.size.columns)).rstrip())
        with self._rendered:
            self.text = "\n".join(rows)
            self.screen = screen
            self.renders += 1
            self._rendered.notify_all()

    @asynccontextmanager
    async def open(self) -> AsyncIterator[ScreenHarness]:
        with create_pipe_input() as pipe:
            self.pipe = pipe
            async with open_terminal(input=pipe, output=self.output, after_render=self._after_render,
                                     forward_resize=False) as terminal:
                self.terminal = terminal
                yield self

    def press(self, *keys: str) -> None:
        """Type keys (names as the terminal reports them, or plain characters)."""
        codes = {"enter": "\r", "esc": "\x1b", "space": " ", "ctrl-c": "\x03", "tab": "\t", "backspace": "\x7f",
                 "up": "\x1b[A", "down": "\x1b[B", "pageup": "\x1b[5~", "pagedown": "\x1b[6~"}
        for key in keys:
            self.pipe.send_text(codes.get(key, key))

    async def wait_for(self, predicate: Callable[[str], bool], what: str = "", timeout: float = 10.0) -> str:
        """Wait (on render events, with a real-time failsafe) until the rendered text matches."""

        def blocking() -> str | None:
            with self._rendered:
                ok = self._rendered.wait_for(lambda: predicate(self.text), timeout)
                return self.text if ok else None

        text = await trio.to_thread.run_sync(blocking)
        if text is None:
            raise AssertionError(f"the screen never showed {what or predicate}; it shows:\n{self.text}")
        return text

    async def wait_for_text(self, *needles: str, timeout: float = 10.0) -> str:
        return await self.wait_for(lambda text: all(n in text for n in needles), " and ".join(map(repr, needles)),
                                   timeout)

    def resize(self, columns: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=columns)
        if self.terminal is not None:
            self.terminal._redraw()


@asynccontextmanager
async def real_time_limit(seconds: float) -> AsyncIterator[None]:
    """Fail a test that takes more than `seconds` of real time (trio's clock may be a
    MockClock that never advances by itself): a watcher thread cancels the block."""
    token = trio.lowlevel.current_trio_token()
    done = threading.Event()
    with trio.CancelScope() as scope:

        def watch() -> None:
            if not done.wait(seconds):
                try:
                    token.run_sync_soon(scope.cancel)
                except trio.RunFinishedError:
                    pass

        threading.Thread(target=watch, daemon=True).start()
        try:
            yield
        finally:
            done.set()
    if scope.cancelled_caught:
        raise AssertionError(f"the test took more than {seconds:g} s of real time")


def arranged(players: int, tableaux: dict[int, Sequence[int]] | None = None, discard: int | None = None,
             draw: Sequence[int] = (), skills: Skills = DEFAULT_SKILLS) -> list[int]:
    """Faces for a deal where the named positions hold the given values (engine_support)."""
    from engine_support import arrange

    return arrange(players, tableaux, discard, draw, skills)


class UiDriver:
    """A `TableUi` on a `LocalSession`, driven key by key without a terminal (fast).

    Keys are pressed with the scene of the moment as "what was on screen"; intents go
    to the session; `settle` lets the table process them (MockClock: no time passes)."""

    def __init__(self, session: LocalSession, memory_aid: bool = False) -> None:
        from cli.tui.table_ui import TableUi

        self.session = session
        self.ui = TableUi(session.me, memory_aid=memory_aid)
        self.sent: list[Intent] = []

    async def settle(self) -> None:
        await trio.testing.wait_all_tasks_blocked()
        self.refresh()

    def refresh(self) -> None:
        from cli.tui.model import TableModel

        for intent in self.ui.update(TableModel.capture(self.session)):
            self._send(intent)

    def _send(self, intent: Intent) -> None:
        self.sent.append(intent)
        self.session.submit(intent)

    async def press(self, *keys: str) -> list[Intent]:
        """Press keys; return the intents they sent."""
        before = len(self.sent)
        for key in keys:
            self.refresh()
            for intent in self.ui.press(key, self.ui.scene()):
                self._send(intent)
            await self.settle()
        return self.sent[before:]

    async def other(self, *intents: Intent) -> None:
        """Intents of other seats (a table without bots)."""
        for intent in intents:
            self.session.submit(intent)
            await self.settle()

    @property
    def scene(self) -> TableScene:
        return self.ui.scene()

    def text(self, columns: int = 80, rows: int = 24) -> str:
        return self.ui.scene().draw(columns, rows).text()

    @property
    def log(self) -> str:
        """The table log so far, one line each (unwrapped)."""
        return "\n".join(line.text for line in self.session.lines)

    @property
    def message(self) -> str:
        message = self.ui.scene().message
        return message.text if message is not None else ""
