"""The terminal: a full-screen prompt_toolkit application on its own thread, for trio.

Theory of operation
-------------------
The table (peer, cryptography, timers) runs on trio; prompt_toolkit runs on asyncio.
Rather than make one loop host the other, each keeps its own thread and they share
only immutable values:

- trio → terminal: `Terminal.show(screen)` stores a reference to an immutable screen
  (anything with ``draw(width, height) -> Canvas``) and asks prompt_toolkit's loop,
  thread-safely, to redraw. prompt_toolkit's renderer diffs the new frame against the
  last one and writes only what changed (no flicker), on the alternate screen.
- terminal → trio: every key is normalised to a name ("q", "space", "enter", "esc",
  "ctrl-c", …) and handed to trio with `TrioToken.run_sync_soon`, which never blocks,
  together with the screen that was on display when the key was read (a snap names
  the discard top the player saw); so is each new size the screen is drawn to
  (`Resized`: a table too large for it is not on screen).

So neither loop ever waits for the other, the trio program keeps `trio.run` as its
only entry point, and nothing here needs a new dependency (trio-asyncio). A key costs
two thread wake-ups (well under a millisecond; `bench/tui.py` measures the whole path).
Ctrl-Z suspends the program as in any terminal program (`Terminal._suspend`; on SIGCONT
the screen takes raw mode again and is drawn anew). A program running in the background
of its terminal (continued there by `bg`, or SIGCONT from elsewhere) does not touch it:
the kernel would stop it again at the first key it read or the first mode it set (SIGTTIN,
SIGTTOU), and a stop signal could then not end it. It reads no key and draws nothing until
`fg` gives the terminal back, and if told to stop meanwhile it lets go of the terminal
(the screen's own copies of its descriptors are pointed at /dev/null) before the screen
closes, so it leaves the table and exits. Resizes are picked
up by prompt_toolkit's size polling (it cannot receive SIGWINCH off the main thread),
and at once when trio, on the main thread, forwards SIGWINCH.

While the screen is up, log records (WARNING and above) are routed to the screen as
`LogNote`s instead of being printed over it.
"""

from __future__ import annotations

import asyncio
import errno
import io
import logging
import math
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import IO, Protocol

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.input import Input, create_input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.output import Output, create_output

from cli.lobby_common import for_the_terminal
from cli.ttymode import TERMINAL_ERRORS, full_screen_mark, in_the_foreground, point_at_nowhere
from cli.tui.canvas import Canvas
from cli.tui.styles import STYLE

SIZE_POLL_S = 0.1
"""How often prompt_toolkit checks the terminal size (it cannot get SIGWINCH off the main thread)."""
STOP_TAKES_S = 1.0
"""How long Ctrl-Z waits for the stop it asked for to have come and gone (the SIGCONT)."""
FOREGROUND_POLL_S = 0.25
"""How often a client continued in the background looks whether `fg` gave it the terminal."""

_KEY_NAMES = {
    Keys.ControlM: "enter", Keys.ControlJ: "enter", Keys.Escape: "esc", Keys.ControlC: "ctrl-c",
    Keys.ControlI: "tab", Keys.ControlH: "backspace", Keys.Backspace: "backspace", Keys.Up: "up", Keys.Down: "down",
    Keys.Left: "left", Keys.Right: "right", Keys.PageUp: "pageup", Keys.PageDown: "pagedown", Keys.Home: "home",
    Keys.End: "end", Keys.Delete: "delete", Keys.ControlD: "ctrl-d",
}  # fmt: skip


class Screen(Protocol):
    """Something the terminal can show: immutable, drawn to the terminal's size."""

    def draw(self, width: int, height: int) -> Canvas: ...


@dataclass(frozen=True, slots=True)
class KeyPress:
    key: str  # a character, or a name: space enter esc tab backspace ctrl-c up down left right pageup pagedown
    shown: Screen | None  # the screen on display when the key was read
    size: tuple[int, int] | None = None  # (width, height) it was drawn to


@dataclass(frozen=True, slots=True)
class LogNote:
    """A log record raised while the screen was up (shown instead of printed)."""

    text: str
    level: int


@dataclass(frozen=True, slots=True)
class Resized:
    """The screen is now drawn to `size` (width, height)."""

    size: tuple[int, int]


TerminalEvent = KeyPress | LogNote | Resized


class TerminalClosed(Exception):
    """The terminal's input ended (the terminal went away) or the screen stopped."""


class Blank:
    """The screen before anything was shown."""

    def draw(self, width: int, height: int) -> Canvas:
        return Canvas(width, height)


class _ScreenControl(UIControl):
    """One control covering the terminal: the current screen, drawn to its size."""

    def __init__(self, terminal: Terminal) -> None:
        self._terminal = terminal

    def create_content(self, width: int, height: int) -> UIContent:
        canvas = self._terminal._draw(width, height)
        return UIContent(get_line=canvas.fragments, line_count=canvas.height, show_cursor=False)

    def is_focusable(self) -> bool:
        return True


class _LogToScreen(logging.Handler):
    def __init__(self, terminal: Terminal) -> None:
        super().__init__(logging.WARNING)
        self._terminal = terminal

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a bad format string must not take the screen down
            text = str(record.msg)
        self._terminal._post(LogNote(text, record.levelno))


PASTE = "paste:"
"""The name of a key event that carries pasted text (after this prefix): a text field
takes it whole; anywhere else it is no key at all."""


class Terminal:
    """The screen and keyboard, driven from trio (see the module docstring).

    Make one with `open_terminal`; `show` a screen, `receive` keys."""

    def __init__(self, input: Input | None = None, output: Output | None = None,
                 after_render: Callable[[Screen], None] | None = None) -> None:
        self._input = input
        self._output = output
        self._after_render = after_render
        self._screen: Screen = Blank()
        self._drawn: Screen | None = None
        self._drawn_size: tuple[int, int] | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._send, self._receive = trio.open_memory_channel[TerminalEvent](math.inf)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._app: Application[None] | None = None
        self._failure: BaseException | None = None
        self._closed = False
        self._stopping = False
        self._away = False  # continued in the background (terminal thread): nothing is drawn until `fg`
        self._detached: ExitStack | None = None  # the keys not read while away (terminal thread)
        self._looking: asyncio.TimerHandle | None = None  # the next look for the foreground, while away
        self._put_away = False  # the screen was erased for a suspend (Ctrl-Z) and not drawn since
        self._let_go = False  # closed in the background: the terminal was left as it was
        self._owned: list[IO[str]] = []  # the screen's own copies of the terminal's descriptors
        self._resumed = threading.Event()  # a SIGCONT came (set from trio's thread)

    # ------------------------------------------------------------------ trio side

    def show(self, screen: Screen) -> None:
        """Put `screen` on the terminal (returns at once; thread-safe)."""
        self._screen = screen
        self._redraw()

    @property
    def showing(self) -> Screen:
        return self._screen

    async def receive(self) -> TerminalEvent:
        """The next key (or log note); raises TerminalClosed when input has ended."""
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            if self._failure is not None:
                raise TerminalClosed(f"the screen stopped: {self._failure!r}") from self._failure
            raise TerminalClosed("the terminal's input ended") from None

    def size(self) -> tuple[int, int]:
        """(columns, rows) of the terminal."""
        app = self._app
        if app is None:
            return 80, 24
        size = app.output.get_size()
        return size.columns, size.rows

    def _redraw(self) -> None:
        loop, app = self._loop, self._app
        if loop is not None and app is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._invalidate)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def _invalidate(self) -> None:
        """Draw the screen anew (terminal thread), unless the program runs in the
        background of its terminal: the shell owns the terminal then, and a table drawn
        over its prompt would look playable while the keys go to the shell."""
        app = self._app
        if app is not None and not self._away:
            app.invalidate()

    def _post(self, event: TerminalEvent) -> None:
        """From any thread: hand an event to trio without waiting."""
        token = self._token
        if token is None or self._closed:
            return
        try:
            token.run_sync_soon(self._deliver, event)
        except trio.RunFinishedError:
            pass

    def _deliver(self, event: TerminalEvent) -> None:
        try:
            self._send.send_nowait(event)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    # ------------------------------------------------------------------ terminal thread

    def _draw(self, width: int, height: int) -> Canvas:
        screen = self._screen
        if (width, height) != self._drawn_size:
            self._post(Resized((width, height)))
        self._drawn, self._drawn_size = screen, (width, height)
        return screen.draw(width, height)

    def _bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        def handler(event: KeyPressEvent) -> None:
            press = event.key_sequence[0]
            key = press.key
            if key is Keys.BracketedPaste:  # (text pasted: for a field being typed, never a move)
                text = "".join(char for char in press.data if char.isprintable())
                if text:
                    self._post(KeyPress(PASTE + text, self._drawn, self._drawn_size))
                return
            name = _KEY_NAMES.get(key) if isinstance(key, Keys) else None
            if name is None:
                name = "space" if press.data == " " else press.data if isinstance(key, Keys) else key
            if not name or (len(name) == 1 and not name.isprintable()):
                return
            self._post(KeyPress(name, self._drawn, self._drawn_size))

        bindings.add(Keys.Any)(handler)
        for key in (*_KEY_NAMES, " "):
            bindings.add(key)(handler)
        bindings.add(Keys.ControlZ)(lambda event: self._suspend(event.app))
        return bindings

    def _own_streams(self) -> tuple[Input, Output | None]:
        """The input and output the screen uses: those given, else its own copies of the
        terminal's descriptors (keys: standard input, or where it is a pipe, the output's
        terminal), which it can let go of without closing the process's standard streams."""
        if self._input is not None:
            return self._input, self._output
        keys = next((s for s in (sys.stdin, sys.stdout, sys.stderr) if s is not None and s.isatty()), sys.stdin)
        copies: list[IO[str]] = []
        try:
            for stream, mode in ((keys, "r"), (sys.stdout, "w")):
                fd = os.dup(stream.fileno())
                try:
                    copies.append(open(fd, mode, encoding=stream.encoding, errors=stream.errors))  # noqa: SIM115
                except BaseException:
                    os.close(fd)
                    raise
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # (not real files: a test's)
            for copy in copies:
                copy.close()
            return create_input(always_prefer_tty=True), self._output
        self._owned = copies
        return create_input(copies[0]), self._output or create_output(copies[1])

    def _make_app(self) -> Application[None]:
        input, output = self._own_streams()
        app: Application[None] = Application(
            layout=Layout(Window(_ScreenControl(self), always_hide_cursor=True)),
            key_bindings=self._bindings(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
            terminal_size_polling_interval=SIZE_POLL_S,
            max_render_postpone_time=0,
        )
        app.ttimeoutlen = 0.05  # a lone Esc is a key, not the start of a sequence, after 50 ms
        if self._after_render is not None:
            hook = self._after_render
            app.after_render += lambda _app: hook(self._drawn or self._screen)
        return app

    def _thread_main(self, started: Callable[[], None], closed: Callable[[], None]) -> None:
        async def run() -> None:
            self._loop = asyncio.get_running_loop()
            app = self._app = self._make_app()

            def on_start() -> None:
                started()
                if self._stopping:
                    app.exit()

            app.pre_run_callables.append(on_start)
            try:
                await app.run_async(handle_sigint=False, set_exception_handler=False)
            finally:
                self._unread_for_good(app)

        try:
            asyncio.run(run())
        except EOFError:
            pass  # the input ended: the terminal went away
        except OSError as exc:
            if exc.errno != errno.EIO:  # (EIO: the terminal hung up, its window closed)
                self._failure = exc
        except BaseException as exc:  # reported to trio by `receive` and `open_terminal`
            self._failure = exc
        finally:
            self._closed = True
            for stream in self._owned:
                try:
                    stream.close()
                except OSError:  # (a write left unflushed on a terminal that went away)
                    pass
            closed()

    def _suspend(self, app: Application[None]) -> None:
        """Ctrl-Z (terminal thread): to the background, as any terminal program (raw mode
        reads the key instead of the terminal sending SIGTSTP). The screen is put away and
        the terminal given its line mode first; after the stop, `_look_for_the_terminal`
        draws it again once the terminal is this program's (`fg`), and until then (`bg`)
        touches nothing. The table counts the time this program did not run against nobody."""
        try:
            _hold_drawing(app, True)
            app.renderer.erase()  # (off the alternate screen: the shell's own screen)
            app.output.flush()
            self._put_away = True
            self._stop_reading(app)
            app.input.cooked_mode().__enter__()  # (left by the raw mode taken again on `fg`)
            self._resumed.clear()
            os.kill(0, signal.SIGTSTP)  # (the whole group, as the terminal would: a pipeline's too)
            # The stop may reach this thread only after it went on (it would find the terminal
            # still its own, and draw): it waits for the SIGCONT, or a moment if none comes
            # (an orphaned group is not stopped).
            self._resumed.wait(STOP_TAKES_S)
        except TERMINAL_ERRORS:
            pass
        self._look_for_the_terminal(app)

    def _stop_reading(self, app: Application[None]) -> None:
        """Read no keys (terminal thread): in the background, a read would stop the program."""
        if self._detached is None:
            self._detached = ExitStack()
            self._detached.enter_context(app.input.detach())

    def _read_again(self) -> None:
        """Read keys again (terminal thread; the loop still running)."""
        if self._detached is not None:
            self._detached.close()
            self._detached = None

    def _unread_for_good(self, app: Application[None]) -> None:
        """The application ended while away (terminal thread): the keys not read stay
        unread. Its reader is put back on the loop as the stop of the reading ends (which
        needs the loop running), and taken off again at once: the loop runs on a while to
        shut down, and a key read then, in the background, would stop the program (SIGTTIN)."""
        loop = self._loop
        if self._detached is not None and loop is not None:
            self._read_again()
            loop.remove_reader(app.input.fileno())

    def _look_for_the_terminal(self, app: Application[None]) -> None:
        """After a stop (terminal thread): if the terminal is this program's again, raw mode
        and keys again, and the whole screen drawn anew; if not (continued in the
        background, where `fg` sends no signal), nothing is read or drawn, and it looks
        again a little later."""
        if self._looking is not None:
            self._looking.cancel()
            self._looking = None
        if not app.is_running:
            return
        try:
            if not in_the_foreground(app.input.fileno()):
                self._away = True
                _hold_drawing(app, True)
                self._stop_reading(app)
                self._looking = asyncio.get_running_loop().call_later(
                    FOREGROUND_POLL_S, self._look_for_the_terminal, app)
                return
            self._away = self._put_away = False
            app.input.raw_mode().__enter__()  # (left when the application ends: its own raw mode restores all)
        except TERMINAL_ERRORS:
            return
        self._read_again()
        _hold_drawing(app, False)
        app.renderer.reset()
        app.invalidate()

    def _continued(self) -> None:
        """The program runs again after a stop (from trio's thread, on SIGCONT). The
        screen's thread asked the terminal for its line mode before it stopped, and may
        have asked for raw mode again before the stop took effect: the shell then put its
        own modes back, and `fg` gave the terminal over in line mode (keys echoed, nothing
        read until Enter). Raw mode again, and the whole screen drawn anew, once the
        terminal is this program's (`_look_for_the_terminal`)."""
        self._resumed.set()
        app, loop = self._app, self._loop
        if app is None or loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._look_for_the_terminal, app)
        except RuntimeError:  # (the loop closed meanwhile)
            pass

    def _let_go_of_the_terminal(self) -> None:
        """Closing in the background (terminal thread): the screen's own descriptors are
        pointed at /dev/null, so that putting the screen away neither sets the terminal's
        modes nor writes over what is in its foreground now (either would stop this
        program: SIGTTOU). Its screen, if still up, is left as it was (`left_up`)."""
        point_at_nowhere(stream.fileno() for stream in self._owned)
        self._let_go = True

    @property
    def left_up(self) -> bool:
        """The screen closed in the background while it was still up on the terminal
        (stopped by SIGSTOP, not Ctrl-Z): the terminal still shows it."""
        return self._let_go and not self._put_away

    def _exit(self) -> None:
        """Ask the application to end (from trio's thread)."""
        self._stopping = True
        app, loop = self._app, self._loop
        if app is None or loop is None or loop.is_closed():
            return

        def stop() -> None:
            if app.is_running and app.future is not None and not app.future.done():
                try:
                    away = self._owned and not in_the_foreground(app.input.fileno())
                except TERMINAL_ERRORS:
                    away = False
                if away:  # (keys read again, from what is /dev/null a moment later: its end stops the reading)
                    self._read_again()
                    self._let_go_of_the_terminal()
                app.exit()

        try:
            loop.call_soon_threadsafe(stop)
        except RuntimeError:  # the loop closed meanwhile
            pass


@asynccontextmanager
async def open_terminal(*, input: Input | None = None, output: Output | None = None,
                        after_render: Callable[[Screen], None] | None = None,
                        forward_resize: bool = True) -> AsyncIterator[Terminal]:
    """Take over the terminal (alternate screen) for the duration of the block.

    `input`/`output` default to the process's terminal; tests pass a pipe input and an
    output of fixed size. `after_render(screen)` is called on the terminal's thread after
    each redraw (benchmarks)."""
    terminal = Terminal(input, output, after_render)
    token = terminal._token = trio.lowlevel.current_trio_token()
    ready = trio.Event()
    ended = trio.Event()

    def from_thread(action: Callable[[], None]) -> Callable[[], None]:
        def call() -> None:
            try:
                token.run_sync_soon(action)
            except trio.RunFinishedError:
                pass

        return call

    def on_closed() -> None:
        terminal._send.close()
        ended.set()

    thread = threading.Thread(target=terminal._thread_main, args=(from_thread(ready.set), from_thread(on_closed)),
                              name="bandit-lan screen", daemon=True)
    handler = _LogToScreen(terminal)
    root = logging.getLogger()
    root.addHandler(handler)
    # What is said on stderr while the full screen is up (why a lobby failed, say) would
    # go with the screen: it is held, and said once the screen is closed.
    held, stderr = (io.StringIO(), sys.stderr) if output is None else (None, None)
    if held is not None:
        sys.stderr = held
    marked = ExitStack()  # (a killed client leaves its mark: the next question puts the screen back)
    mark = marked.enter_context(full_screen_mark(sys.stdout)) if output is None else None
    thread.start()
    try:
        async with trio.open_nursery() as nursery:

            async def first(event: trio.Event) -> None:
                await event.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(first, ready)
            nursery.start_soon(first, ended)
        if not ready.is_set():
            raise TerminalClosed(f"the screen could not start: {terminal._failure!r}") from terminal._failure
        async with trio.open_nursery() as nursery:
            if forward_resize and threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGWINCH"):
                nursery.start_soon(_forward_signals, terminal)
            try:
                yield terminal
            finally:
                nursery.cancel_scope.cancel()
    finally:
        root.removeHandler(handler)
        terminal._exit()
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(thread.join)
        if terminal.left_up and mark is not None:
            mark.keep()  # (the next question puts the terminal's own screen back)
        marked.close()
        if held is not None:
            sys.stderr = stderr
            try:
                stderr.write(for_the_terminal(held.getvalue(), stderr))  # (broken at words, as it would have been)
                stderr.flush()
            except (OSError, ValueError):  # (the terminal went away: nobody is left to read it)
                pass
    if terminal._failure is not None and not isinstance(terminal._failure, KeyboardInterrupt):
        raise TerminalClosed(f"the screen stopped: {terminal._failure!r}") from terminal._failure


def _hold_drawing(app: Application[None], held: bool) -> None:
    """No drawing at all while `held`, not even a redraw prompt_toolkit had already
    planned (its own flag for a program that has lent the terminal out)."""
    app._running_in_terminal = held


async def _forward_signals(terminal: Terminal) -> None:
    """SIGWINCH: the screen is drawn at its new size at once. SIGCONT: the program runs
    again after a stop (Ctrl-Z, then `fg`)."""
    wanted = [sig for sig in (getattr(signal, "SIGWINCH", None), getattr(signal, "SIGCONT", None)) if sig is not None]
    with trio.open_signal_receiver(*wanted) as signals:
        async for number in signals:
            if number == getattr(signal, "SIGCONT", None):
                terminal._continued()
            else:
                terminal._redraw()
