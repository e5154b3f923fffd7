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

Leaving: Ctrl-C asks first; on "yes" (or when the terminal goes away, saying so) the
client calls `session.leave()`, which closes the fairness log valid, and returns; so it
does when the seat is leaving for another reason (the process was told to stop). After the
game has ended the player reads the final screens and returns with Enter (or a stop
signal closes them: the seat is then marked leaving, with nothing left to leave).
"""

from __future__ import annotations

from collections import deque

import trio

from cli.stopping import TERMINAL_CLOSED
from p2p.session import TableSession
from cli.tui.model import TableModel
from cli.tui.table_ui import TableUi
from cli.tui.terminal import KeyPress, LogNote, Resized, Terminal, TerminalClosed, TerminalEvent, open_terminal


async def run_client(session: TableSession, memory_aid: bool = False, *, terminal: Terminal | None = None) -> None:
    """Play `session`'s seat from the terminal until the player leaves or closes the
    game-end screen. Opens the terminal unless one is given (the lobby screens pass
    theirs on, so the screen does not flicker between lobby and table)."""
    if terminal is None:
        async with open_terminal() as opened:
            await _play(session, opened, memory_aid)
    else:
        await _play(session, terminal, memory_aid)


async def _play(session: TableSession, terminal: Terminal, memory_aid: bool) -> None:
    ui = TableUi(session.me, memory_aid=memory_aid)
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
            if gone:  # (whichever comes first, this or the hang-up signal, says the same)
                await session.leave(TERMINAL_CLOSED)
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
