"""A terminal put back in line mode before the program asks a question on it.

A full-screen client turns the terminal's line discipline off (no echo, no line editing,
Enter read as a carriage return) and turns it back on when it ends. A client that was
killed (or crashed) cannot: the next command in that terminal inherits a raw terminal,
where a question that reads a line never sees Enter and the keys typed do not show. The
commands that ask such a question (`join`/`host`/`play` offering a game that still waits
for this seat) put the line discipline back first, as `stty sane` would for these flags.

A shell with job control (bash, zsh) puts the line discipline back itself after a job
killed by a signal, but not the screen: the terminal is still on the client's alternate
screen, its cursor hidden. No terminal can be asked reliably which screen it shows, so
the client leaves a mark while its screen is up (`full_screen_mark`, removed when it
closes it); a mark whose process is gone says the screen was left up on this terminal.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

try:
    import termios
except ImportError:  # (no POSIX terminals here: nothing to put back)
    termios = None  # type: ignore[assignment]

AFTER_A_FULL_SCREEN = "\x1b[?2004l\x1b7\x1b[?1049l\x1b[?25h"
"""Bracketed paste off, back from the alternate screen (to what the terminal showed
before the client started, and where its cursor was), the cursor shown: what a killed
client left on. (The cursor is saved first: a terminal that keeps one saved cursor a
screen, and was not on the alternate one after all, puts it back where it was.)"""


def line_mode(fd: int) -> bool:
    """Turn line editing, echo, signals and the Enter key's translation back on for the
    terminal `fd`, if it is one; True if anything had to change."""
    if termios is None or not os.isatty(fd):
        return False
    try:
        attrs = termios.tcgetattr(fd)
    except termios.error:
        return False
    iflag, oflag, lflag = attrs[0], attrs[1], attrs[3]
    iflag = (iflag | termios.ICRNL) & ~(termios.INLCR | termios.IGNCR)
    oflag |= termios.OPOST | termios.ONLCR
    lflag |= termios.ICANON | termios.ECHO | termios.ECHOE | termios.ECHOK | termios.ISIG | termios.IEXTEN
    if (iflag, oflag, lflag) == (attrs[0], attrs[1], attrs[3]):
        return False
    attrs[0], attrs[1], attrs[3] = iflag, oflag, lflag
    try:
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except termios.error:
        return False
    return True


def ready_to_ask(keys: IO[str], out: IO[str]) -> None:
    """Before a question read line by line from `keys`: its terminal in line mode and, if
    it was not, or a full-screen client's mark says it was killed with its screen up,
    `out` back on the terminal's own screen with the cursor shown, so the question is not
    asked over the dead table."""
    left_up = screen_left_up(out)
    try:
        changed = line_mode(keys.fileno())
    except (OSError, ValueError):  # (not a real file)
        return
    if (changed or left_up) and out.isatty():
        out.write(AFTER_A_FULL_SCREEN)
        out.flush()


def _mark_path(out: IO[str]) -> Path | None:
    """Where the mark of a full screen on `out`'s terminal goes (None: not a terminal)."""
    try:
        fd = out.fileno()
        if not os.isatty(fd):
            return None
        device = os.fstat(fd).st_rdev
    except (OSError, ValueError):
        return None
    user = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"bandit-lan-{user}-screens" / f"tty-{device:x}"


@contextlib.contextmanager
def full_screen_mark(out: IO[str]) -> Iterator[None]:
    """While a full screen is up on the terminal `out`: a mark of it, naming this process
    (left behind if the process is killed; best effort, a mark that cannot be written is
    no fault)."""
    path = _mark_path(out)
    mine = str(os.getpid())
    if path is not None:
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            path.write_text(mine, encoding="ascii")
        except OSError:
            path = None
    try:
        yield
    finally:
        if path is not None:
            with contextlib.suppress(OSError):
                if path.read_text(encoding="ascii") == mine:
                    path.unlink()


def screen_left_up(out: IO[str]) -> bool:
    """A full-screen client's mark on `out`'s terminal, of a process that is gone: it was
    killed with its screen up (the mark is removed). A process still there (stopped with
    Ctrl-Z, its screen put away) is no such client."""
    path = _mark_path(out)
    if path is None:
        return False
    try:
        pid = int(path.read_text(encoding="ascii"))
    except (OSError, ValueError):
        return False
    if _running(pid):
        return False
    with contextlib.suppress(OSError):
        path.unlink()
    return True


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's: it exists)
        return True
    return True
