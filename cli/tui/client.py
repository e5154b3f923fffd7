"""`run_client`: a seat at a table, played from the terminal.

Theory of operation
-------------------
One trio task owns the table screen. It sleeps until something happens — the session
changed, a key arrived from the terminal thread, or the screen's next timer (a
countdown second, a look that must be hidden again) is due — then captures a fresh
`TableModel`, lets `TableUi` digest the time and the keys, submits the intents that
came out, and hands the terminal the new immutable scene if it shows anything new (a
live table reports every acknowledgement and heartbeat as a change; redrawing for
those would only take time from the table). Everything the session
exposes is read on trio's thread only; the terminal thread only ever sees frozen
scenes.

Leaving: Ctrl-C asks first; on "yes" the client calls `session.leave()`, which closes
the fairness log valid, and returns; so it does when the seat is leaving for another
reason (the process was told to stop). A terminal that goes away (its window closed, its
ssh connection dropped) is no choice to leave: the client calls `session.go_away()`, and
the seat can be taken back while the others wait for it (§11.3). After the
game has ended the player reads the final screens and returns with Enter (or a stop
signal closes them: the seat is then marked leaving, with nothing left to leave).

The look at the bottom cards (R4.3) is kept in the seat's journal as it begins
(`JournalLooks`): a seat taken back after a crash shows what is left of its 10 s.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import trio

from cli.stopping import TERMINAL_CLOSED
from p2p.journal import Journal, JournalContents
from p2p.session import TableSession
from cli.tui.model import TableModel
from cli.tui.table_ui import BOTTOM_PEEK_S, LookSeen, TableUi
from cli.tui.terminal import KeyPress, LogNote, Resized, Terminal, TerminalClosed, TerminalEvent, open_terminal


@dataclass
class JournalLooks:
    """Where the seat keeps when its player's look at the bottom cards began (R4.3): its
    journal (§11.3), if it has one; `seen`, the look a restarted seat had begun."""

    journal: Journal | None
    seen: LookSeen | None = None

    def began(self, number: int, at: float) -> None:
        """The look of round `number` began at `at` (wall clock, less the time it stood)."""
        if self.journal is not None:
            self.journal.look(number, at)


def look_seen(contents: JournalContents, stopped: float | None) -> LookSeen | None:
    """The look a seat taken back had begun, and how long it was shown: from its start
    until the journal's last mark of life (`stopped`, at most a couple of seconds before
    the stop: the player is never shown less than R4.3's 10 s in all)."""
    if contents.look is None or stopped is None:
        return None
    number, began = contents.look
    return LookSeen(number, min(max(0.0, stopped - began), BOTTOM_PEEK_S))


async def run_client(session: TableSession, memory_aid: bool = False, *, terminal: Terminal | None = None,
                     looks: JournalLooks | None = None) -> None:
    """Play `session`'s seat from the terminal until the player leaves or closes the
    game-end screen. Opens the terminal unless one is given (the lobby screens pass
    theirs on, so the screen does not flicker between lobby and table). `looks` keeps
    the look at the bottom cards for a restart."""
    if terminal is None:
        async with open_terminal() as opened:
            await _play(session, opened, memory_aid, looks)
    else:
        await _play(session, terminal, memory_aid, looks)


async def _play(session: TableSession, terminal: Terminal, memory_aid: bool, looks: JournalLooks | None) -> None:
    ui = TableUi(session.me, memory_aid=memory_aid, seen=None if looks is None else looks.seen)
    kept: tuple[int, float] | None = None  # the look's start as last kept in the journal
    ui.resize(terminal.size())  # (a lobby drew at this size already: the terminal says so only of a new one)
    events: deque[TerminalEvent] = deque()
    shown: tuple[object, ...] = ()  # the picture on screen: a change that shows nothing new redraws nothing
    wake = trio.Event()
    gone = False

    async def watch_session() -> None:
        while True:
            await session.changed()
            wake.set()

    async def watch_terminal() -> None:
        nonlocal gone
        while True:
            try:
                event = await terminal.receive()
            except TerminalClosed:
                gone = True
                wake.set()
                return
            events.append(event)
            wake.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch_session)
        nursery.start_soon(watch_terminal)
        while True:
            wake = trio.Event()
            model = TableModel.capture(session)
            intents = ui.update(model)
            while events:
                event = events.popleft()
                if isinstance(event, KeyPress):
                    intents += ui.press(event.key, event.shown, event.size)  # type: ignore[arg-type]
                elif isinstance(event, LogNote):
                    ui.note(event.text)
                elif isinstance(event, Resized):
                    ui.resize(event.size)
            for intent in intents:
                session.submit(intent)
            began = ui.look_began
            if looks is not None and began is not None and began != kept:
                looks.began(began[0], time.time() - (session.now() - began[1]))
                kept = began
            if gone:  # (whichever comes first, this or the hang-up signal, does the same)
                await session.go_away(TERMINAL_CLOSED)
                break
            if ui.leaving or model.leaving:
                await session.leave()
                break
            if ui.finished:
                break
            scene = ui.scene()
            picture = scene.picture()
            if picture != shown:
                terminal.show(scene)
                shown = picture
            deadline = ui.wakeup()
            with trio.move_on_at(deadline if deadline is not None else float("inf")):
                await wake.wait()
        nursery.cancel_scope.cancel()
